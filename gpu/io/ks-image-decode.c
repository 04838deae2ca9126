/* ks-image-decode.c: gdk-pixbuf's images as KsImage: every layout it
 * decodes to normalised to RGBA8, data decoded in memory with its size
 * refused before the loader allocates for it, and the reason in a loader's
 * message without the path it repeats. */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-image-io-private.h"

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

KsImage *
_ks_image_from_pixbuf (GdkPixbuf *pixbuf, GError **error)
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

KsImage *
_ks_image_load_data (const guint8 *data, gsize len, const char *what, GError **error)
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
  return _ks_image_from_pixbuf (pixbuf, error);
}

/* gdk_pixbuf_new_from_file's messages start “Failed to load image “PATH”: ”:
 * the whole path again (for ks_image_load_bytes, a temporary file's). The
 * reason follows it. */
const char *
_ks_image_pixbuf_reason (const char *message, const char *path)
{
  /* As gdk-pixbuf shows it: control characters as they are. */
  g_autofree char *shown = g_filename_display_name (path);
  const char *at = strstr (message, shown);
  const char *colon = at != NULL ? strstr (at + strlen (shown), ": ") : NULL;

  return colon != NULL && colon[2] != '\0' ? colon + 2 : message;
}
