#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <gio/gio.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-image.h"

typedef struct
{
  int width;
  int height;
  gboolean too_large;
} SizeCheck;

/* Decoding a 100000×100000 header would allocate 40 GB before failing: refuse
 * in size-prepared, before the loader allocates the pixbuf. */
static void
on_size_prepared_cb (GdkPixbufLoader *loader, int width, int height, gpointer user_data)
{
  SizeCheck *check = user_data;

  check->width = width;
  check->height = height;
  if (width <= 0 || height <= 0 || (guint) width > KS_IMAGE_MAX_SIDE
      || (guint) height > KS_IMAGE_MAX_SIDE)
    {
      check->too_large = TRUE;
      /* A 1×1 target keeps the loader from allocating the full size. */
      gdk_pixbuf_loader_set_size (loader, 1, 1);
    }
}

static KsImage *
image_from_pixbuf (GdkPixbuf *pixbuf, GError **error)
{
  int w = gdk_pixbuf_get_width (pixbuf), h = gdk_pixbuf_get_height (pixbuf);
  int n_channels = gdk_pixbuf_get_n_channels (pixbuf);
  int rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  gboolean alpha = gdk_pixbuf_get_has_alpha (pixbuf);
  const guint8 *pixels = gdk_pixbuf_read_pixels (pixbuf);
  KsImage *image;

  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 || n_channels < 3)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "Unsupported pixel layout (%d bits per sample, %d channels)",
                   gdk_pixbuf_get_bits_per_sample (pixbuf), n_channels);
      return NULL;
    }
  image = ks_image_new (KS_FORMAT_RGBA8, w, h, error);
  if (image == NULL)
    return NULL;
  for (int y = 0; y < h; y++)
    {
      const guint8 *src = pixels + (gsize) y * rowstride;
      guint8 *dst = ks_image_row (image, y);
      if (alpha && n_channels == 4)
        memcpy (dst, src, (gsize) w * 4);
      else
        for (int x = 0; x < w; x++)
          {
            dst[4 * x + 0] = src[n_channels * x + 0];
            dst[4 * x + 1] = src[n_channels * x + 1];
            dst[4 * x + 2] = src[n_channels * x + 2];
            dst[4 * x + 3] = 255;
          }
    }
  return image;
}

static KsImage *
load_data (const guint8 *data, gsize len, const char *what, GError **error)
{
  g_autoptr (GdkPixbufLoader) loader = NULL;
  g_autoptr (GError) local_error = NULL;
  SizeCheck check = { 0, 0, FALSE };
  gboolean ok;
  GdkPixbuf *pixbuf;

  if (len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s is empty", what);
      return NULL;
    }
  loader = gdk_pixbuf_loader_new ();
  g_signal_connect (loader, "size-prepared", G_CALLBACK (on_size_prepared_cb), &check);
  ok = gdk_pixbuf_loader_write (loader, data, len, &local_error);
  /* close() must run even after a failed write, or the loader warns on finalize. */
  if (!gdk_pixbuf_loader_close (loader, ok ? &local_error : NULL))
    ok = FALSE;
  if (check.too_large)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "%s is %d×%d pixels; Kernelscope opens images up to %u×%u",
                   what, check.width, check.height, KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return NULL;
    }
  if (!ok)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s could not be read: %s", what,
                   local_error != NULL ? local_error->message : "the data is incomplete");
      return NULL;
    }
  pixbuf = gdk_pixbuf_loader_get_pixbuf (loader);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s is not an image Kernelscope can read",
                   what);
      return NULL;
    }
  return image_from_pixbuf (pixbuf, error);
}

static guint32
read_le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

/* Whether a JPEG or BMP file holds all the data its header promises. Their
 * decoders recover from a file cut short — gray or black where the data
 * ended, and no error — so a truncated download would open as an image. A
 * JPEG ends with an end-of-image marker (FF D9; some writers append padding
 * after it, so the last 4 KiB are searched); a BMP's uncompressed pixel rows
 * have a size its header gives. */
static gboolean
check_complete (const char *path, const char *display, const char *format, goffset size,
                GError **error)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  guint8 buf[4096];
  gsize got = 0;

  if (g_strcmp0 (format, "jpeg") != 0 && g_strcmp0 (format, "bmp") != 0)
    return TRUE;
  file = g_file_new_for_path (path);
  in = g_file_read (file, NULL, NULL);
  if (in == NULL)
    return TRUE; /* the decoder reports what is wrong */
  if (g_str_equal (format, "jpeg"))
    {
      goffset from = MAX (size - (goffset) sizeof buf, 0);

      if (!g_seekable_seek (G_SEEKABLE (in), from, G_SEEK_SET, NULL, NULL)
          || !g_input_stream_read_all (G_INPUT_STREAM (in), buf, sizeof buf, &got, NULL, NULL))
        return TRUE;
      for (gsize i = got; i >= 2; i--)
        if (buf[i - 2] == 0xff && buf[i - 1] == 0xd9)
          return TRUE;
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is truncated: the JPEG data ends before the image does (no end-of-image "
                   "marker)", display);
      return FALSE;
    }

  if (!g_input_stream_read_all (G_INPUT_STREAM (in), buf, 54, &got, NULL, NULL) || got < 54
      || buf[0] != 'B' || buf[1] != 'M' || read_le32 (buf + 14) < 40)
    return TRUE;
  {
    guint32 offset = read_le32 (buf + 10);
    gint32 width = (gint32) read_le32 (buf + 18);
    gint32 height = (gint32) read_le32 (buf + 22);
    guint bits = buf[28] | buf[29] << 8;
    guint32 compression = read_le32 (buf + 30);
    guint64 row, need;

    /* Only uncompressed rows (BI_RGB, BI_BITFIELDS) have a known size. */
    if ((compression != 0 && compression != 3) || width <= 0 || height == 0 || bits == 0)
      return TRUE;
    row = ((guint64) width * bits + 31) / 32 * 4;
    need = (guint64) offset + row * (guint64) ABS ((gint64) height);
    if ((guint64) size < need)
      {
        g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                     "“%s” is truncated: the BMP header promises %" G_GUINT64_FORMAT
                     " bytes, the file has %" G_GINT64_FORMAT, display, need, (gint64) size);
        return FALSE;
      }
  }
  return TRUE;
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
  display = g_filename_display_basename (path);
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
  if (width <= 0 || height <= 0 || (guint) width > KS_IMAGE_MAX_SIDE
      || (guint) height > KS_IMAGE_MAX_SIDE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u", display, width,
                   height, KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return NULL;
    }
  {
    g_autofree char *name = gdk_pixbuf_format_get_name (format);

    if (!check_complete (path, display, name, st.st_size, error))
      return NULL;
  }
  /* The whole-file decoders notice truncated PNG data, which the incremental
   * loader lets through as a partly black image. */
  pixbuf = gdk_pixbuf_new_from_file (path, &local_error);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” could not be read: %s", display,
                   local_error->message);
      return NULL;
    }
  return image_from_pixbuf (pixbuf, error);
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
    return load_data (data, len, "The image", error);
  close (fd);
  if (!g_file_set_contents (path, (const char *) data, len, &local_error))
    {
      g_unlink (path);
      return load_data (data, len, "The image", error);
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

static const char *
type_for_path (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".jpg") || g_str_has_suffix (lower, ".jpeg"))
    return "jpeg";
  if (g_str_has_suffix (lower, ".tif") || g_str_has_suffix (lower, ".tiff"))
    return "tiff";
  if (g_str_has_suffix (lower, ".bmp"))
    return "bmp";
  return "png";
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
  const char *type = type_for_path (path);
  KsAtomicFile *file;
  gboolean ok;

  g_return_val_if_fail (image != NULL && path != NULL, FALSE);
  rgba = ks_image_to_rgba (image);
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
          g_autofree char *display = g_filename_display_name (path);

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
