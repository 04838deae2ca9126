/* ks-image-save.c: ks_image_save and ks_image_check_save_path (ks-image.h):
 * the format named by the extension among gdk-pixbuf's writable ones, alpha
 * flattened for the formats without it (JPEG, BMP), and the encoder writing
 * into an atomic file (ks-file.h). */
#include "config.h"

#include <string.h>
#include <gdk-pixbuf/gdk-pixbuf.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-image.h"

/* The writable gdk-pixbuf format whose extensions name path's, or NULL;
 * *known gets ".png, .jpg, …" (free it) when it is NULL. */
static char *
writable_type_for (const char *path, char **known)
{
  g_autoptr (GSList) formats = gdk_pixbuf_get_formats ();
  g_autofree char *base = g_path_get_basename (path);
  const char *dot = strrchr (base, '.');
  g_autofree char *ext = dot != NULL && dot != base ? g_ascii_strdown (dot + 1, -1) : NULL;
  g_autoptr (GString) list = g_string_new (NULL);

  for (GSList *l = formats; l != NULL; l = l->next)
    {
      g_auto (GStrv) exts = NULL;

      if (!gdk_pixbuf_format_is_writable (l->data))
        continue;
      exts = gdk_pixbuf_format_get_extensions (l->data);
      for (guint i = 0; exts[i] != NULL; i++)
        {
          if (ext != NULL && g_ascii_strcasecmp (exts[i], ext) == 0)
            return gdk_pixbuf_format_get_name (l->data);
          g_string_append_printf (list, "%s.%s", list->len > 0 ? ", " : "", exts[i]);
        }
    }
  if (known != NULL)
    *known = g_strdup (list->str);
  return NULL;
}

gboolean
ks_image_check_save_path (const char *path, GError **error)
{
  g_autofree char *known = NULL;
  g_autofree char *type = NULL;
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  type = writable_type_for (path, &known);
  if (type != NULL)
    return TRUE;
  display = ks_file_display_basename (path);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "Cannot write “%s”: %s names no image format Kernelscope can write (it writes %s)",
               display, strrchr (display, '.') != NULL ? "its extension" : "no extension", known);
  return FALSE;
}

static gboolean
write_chunk (const char *data, gsize size, GError **error, gpointer user_data)
{
  return ks_atomic_file_write (user_data, data, size, error);
}

gboolean
ks_image_save (const KsImage *image, const char *path, GError **error)
{
  g_autoptr (KsImage) rgba = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autofree char *type = NULL;
  KsAtomicFile *file;
  gboolean ok;

  g_return_val_if_fail (image != NULL && path != NULL, FALSE);
  if (!ks_image_check_save_path (path, error))
    return FALSE;
  type = writable_type_for (path, NULL);
  /* An RGBA image is encoded from its own memory: a copy would be one more
   * image-sized allocation at the peak of a save. */
  rgba = image->format == KS_FORMAT_RGBA8 ? ks_image_ref ((KsImage *) image)
                                          : ks_image_to_rgba (image);
  if (rgba == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to save the image");
      return FALSE;
    }
  pixbuf = gdk_pixbuf_new_from_data (rgba->data, GDK_COLORSPACE_RGB, TRUE, 8, rgba->width,
                                     rgba->height, rgba->stride, NULL, NULL);
  if (g_str_equal (type, "jpeg") || g_str_equal (type, "bmp"))
    {
      /* These formats have no alpha channel. */
      g_autoptr (GdkPixbuf) opaque = gdk_pixbuf_new (GDK_COLORSPACE_RGB, FALSE, 8, rgba->width,
                                                     rgba->height);
      if (opaque == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to save the image");
          return FALSE;
        }
      gdk_pixbuf_fill (opaque, 0);
      gdk_pixbuf_composite (pixbuf, opaque, 0, 0, rgba->width, rgba->height, 0, 0, 1, 1,
                            GDK_INTERP_NEAREST, 255);
      g_set_object (&pixbuf, opaque);
    }
  /* Encoded straight into a temporary beside the target, which replaces it
   * only once complete (ks-file.h): an interrupted save loses nothing. */
  file = ks_atomic_file_open (path, &local_error);
  if (file != NULL)
    {
      ok = gdk_pixbuf_save_to_callback (pixbuf, write_chunk, file, type, &local_error, NULL);
      if (!ok)
        {
          g_autofree char *display = ks_file_display_name (path);

          ks_atomic_file_abort (file);
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot save “%s”: %s", display,
                       local_error->message);
          return FALSE;
        }
      if (ks_atomic_file_commit (file, &local_error))
        return TRUE;
    }
  /* The writer's message names the file and the reason. */
  g_set_error_literal (error, KS_ERROR, KS_ERROR_IMAGE, local_error->message);
  return FALSE;
}
