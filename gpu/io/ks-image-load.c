/* ks-image-load.c: ks_image_load and ks_image_load_bytes (ks-image.h), the
 * order of what a file goes through before it is an image: that it can be
 * opened and is not empty, its GIF sizes, its dimensions from the header
 * against the largest side, a vector image rendered apart
 * (ks-image-render.c), the structure checked (ks-image-check.c), then the
 * whole-file decoder (ks-image-decode.c). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-image-io-private.h"
#include "ks-image-private.h"

/* What ks_image_load accepts on either side (_ks_image_set_max_side). */
static guint max_side = KS_IMAGE_MAX_SIDE;

void
_ks_image_set_max_side (guint side)
{
  max_side = side != 0 ? MIN (side, KS_IMAGE_MAX_SIDE) : KS_IMAGE_MAX_SIDE;
}

KsImage *
ks_image_load (const char *path, GError **error)
{
  g_autofree char *display = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  GdkPixbufFormat *format;
  GStatBuf st;
  int width = 0, height = 0;

  g_return_val_if_fail (path != NULL, NULL);
  display = ks_file_display_basename (path);
  if (g_stat (path, &st) != 0 || g_access (path, R_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot open “%s”: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot open “%s”: %s", display,
                   S_ISDIR (st.st_mode) ? g_strerror (EISDIR) : "not a regular file");
      return NULL;
    }
  if (st.st_size == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” is empty", display);
      return NULL;
    }
  if (!_ks_image_check_gif_sizes (path, display, error))
    return NULL;
  /* Only the header is read here: absurd dimensions are refused before any
   * pixel memory is allocated. */
  format = gdk_pixbuf_get_file_info (path, &width, &height);
  if (format == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is not an image Kernelscope can read (unknown or damaged format)",
                   display);
      return NULL;
    }
  if (width <= 0 || height <= 0 || (guint) width > max_side || (guint) height > max_side)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u", display, width,
                   height, max_side, max_side);
      return NULL;
    }
  if (gdk_pixbuf_format_is_scalable (format))
    return _ks_image_render_vector (path, display, width, height, max_side, error);
  {
    g_autofree char *name = gdk_pixbuf_format_get_name (format);

    if (!_ks_image_check_complete (path, display, name, st.st_size, error))
      return NULL;
  }
  /* The whole-file decoders notice truncated PNG data, which the incremental
   * loader lets through as a partly black image. */
  pixbuf = gdk_pixbuf_new_from_file (path, &local_error);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” could not be read: %s", display,
                   _ks_image_pixbuf_reason (local_error->message, path));
      return NULL;
    }
  return _ks_image_from_pixbuf (pixbuf, error);
}

KsImage *
ks_image_load_bytes (GBytes *bytes, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) local_error = NULL;
  KsImage *image;
  gsize len = 0;
  const guint8 *data;
  int fd;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "The image data is empty");
      return NULL;
    }
  /* Through a file, so that the same whole-file decoders as for opened files
   * see the data: they refuse truncated images, the incremental loader does not. */
  fd = g_file_open_tmp ("kernelscope-XXXXXX", &path, &local_error);
  if (fd < 0)
    return _ks_image_load_data (data, len, "The image", error);
  close (fd);
  if (!g_file_set_contents (path, (const char *) data, len, &local_error))
    {
      g_unlink (path);
      return _ks_image_load_data (data, len, "The image", error);
    }
  image = ks_image_load (path, &local_error);
  g_unlink (path);
  if (image == NULL)
    {
      /* Name the data, not the temporary file. */
      const char *msg = local_error->message;
      const char *rest = strstr (msg, "” ");
      g_set_error (error, KS_ERROR, local_error->code, "The image%s",
                   rest != NULL ? rest + strlen ("”") : ": could not be read");
    }
  return image;
}
