#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-error.h"
#include "ks-image.h"
#include "ks-pixel.h"

/* Host images are reference counted through a hidden header in front of the
 * public struct, so that KsImage stays a plain struct for C callers. */
typedef struct
{
  gatomicrefcount ref_count;
  KsImage image;
} KsImageBox;

#define BOX(img) ((KsImageBox *) ((guint8 *) (img) - G_STRUCT_OFFSET (KsImageBox, image)))

guint
ks_format_bytes_per_pixel (KsFormat format)
{
  return format == KS_FORMAT_GRAY8 ? 1 : 4;
}

const char *
ks_format_name (KsFormat format)
{
  return format == KS_FORMAT_GRAY8 ? "gray8" : "rgba8";
}

KsImage *
ks_image_new (KsFormat format, guint width, guint height, GError **error)
{
  KsImageBox *box;
  gsize stride;

  if (width == 0 || height == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "An image needs at least one pixel (asked for %u×%u)", width, height);
      return NULL;
    }
  if (width > KS_IMAGE_MAX_SIDE || height > KS_IMAGE_MAX_SIDE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "An image of %u×%u pixels is too large: each side may be at most %u",
                   width, height, KS_IMAGE_MAX_SIDE);
      return NULL;
    }

  /* 64-byte rows keep vector loops aligned in the CPU engine. */
  stride = ((gsize) width * ks_format_bytes_per_pixel (format) + 63) & ~(gsize) 63;
  box = g_try_malloc0 (sizeof *box);
  if (box != NULL)
    box->image.data = g_try_malloc (stride * height);
  if (box == NULL || box->image.data == NULL)
    {
      g_free (box);
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "Not enough memory for a %u×%u image (%.1f MiB)", width, height,
                   (double) stride * height / (1024.0 * 1024.0));
      return NULL;
    }
  g_atomic_ref_count_init (&box->ref_count);
  box->image.format = format;
  box->image.width = width;
  box->image.height = height;
  box->image.stride = stride;
  return &box->image;
}

KsImage *
ks_image_ref (KsImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  g_atomic_ref_count_inc (&BOX (image)->ref_count);
  return image;
}

void
ks_image_unref (KsImage *image)
{
  KsImageBox *box;

  if (image == NULL)
    return;
  box = BOX (image);
  if (g_atomic_ref_count_dec (&box->ref_count))
    {
      g_free (box->image.data);
      g_free (box);
    }
}

guint8 *
ks_image_row (const KsImage *image, guint y)
{
  return image->data + (gsize) y * image->stride;
}

KsImage *
ks_image_copy (const KsImage *image)
{
  KsImage *copy;
  gsize row_bytes;

  g_return_val_if_fail (image != NULL, NULL);
  copy = ks_image_new (image->format, image->width, image->height, NULL);
  if (copy == NULL)
    return NULL;
  row_bytes = (gsize) image->width * ks_format_bytes_per_pixel (image->format);
  for (guint y = 0; y < image->height; y++)
    memcpy (ks_image_row (copy, y), ks_image_row (image, y), row_bytes);
  return copy;
}

void
ks_image_fill (KsImage *image, guint8 value)
{
  g_return_if_fail (image != NULL);
  memset (image->data, value, image->stride * image->height);
}

gboolean
ks_image_equal (const KsImage *a, const KsImage *b)
{
  gsize row_bytes;

  if (a->format != b->format || a->width != b->width || a->height != b->height)
    return FALSE;
  row_bytes = (gsize) a->width * ks_format_bytes_per_pixel (a->format);
  for (guint y = 0; y < a->height; y++)
    if (memcmp (ks_image_row (a, y), ks_image_row (b, y), row_bytes) != 0)
      return FALSE;
  return TRUE;
}

KsImage *
ks_image_to_gray (const KsImage *image, GError **error)
{
  KsImage *gray;

  g_return_val_if_fail (image != NULL, NULL);
  gray = ks_image_new (KS_FORMAT_GRAY8, image->width, image->height, error);
  if (gray == NULL)
    return NULL;
  for (guint y = 0; y < image->height; y++)
    {
      const guint8 *src = ks_image_row (image, y);
      guint8 *dst = ks_image_row (gray, y);

      if (image->format == KS_FORMAT_GRAY8)
        memcpy (dst, src, image->width);
      else
        for (guint x = 0; x < image->width; x++)
          {
            guint32 p;

            memcpy (&p, src + (gsize) x * 4, 4);
            dst[x] = (guint8) ks_luma601 (GUINT32_FROM_LE (p), 0);
          }
    }
  return gray;
}

guint32
ks_image_get_rgba (const KsImage *image, guint x, guint y)
{
  const guint8 *p;

  g_return_val_if_fail (x < image->width && y < image->height, 0);
  if (image->format == KS_FORMAT_GRAY8)
    {
      guint32 v = ks_image_row (image, y)[x];
      return v | v << 8 | v << 16 | 0xff000000u;
    }
  p = ks_image_row (image, y) + (gsize) x * 4;
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

void
ks_image_set_rgba (KsImage *image, guint x, guint y, guint32 rgba)
{
  guint8 *p;

  g_return_if_fail (x < image->width && y < image->height);
  if (image->format == KS_FORMAT_GRAY8)
    {
      ks_image_row (image, y)[x] = rgba & 0xff;
      return;
    }
  p = ks_image_row (image, y) + (gsize) x * 4;
  p[0] = rgba & 0xff;
  p[1] = (rgba >> 8) & 0xff;
  p[2] = (rgba >> 16) & 0xff;
  p[3] = rgba >> 24;
}

/* xorshift32: fast, and the same sequence on every machine for a given seed. */
void
ks_image_fill_random (KsImage *image, guint32 seed)
{
  guint32 s = seed != 0 ? seed : 0x9e3779b9u;
  gsize row_bytes = (gsize) image->width * ks_format_bytes_per_pixel (image->format);

  for (guint y = 0; y < image->height; y++)
    {
      guint8 *row = ks_image_row (image, y);
      for (gsize i = 0; i < row_bytes; i++)
        {
          s ^= s << 13;
          s ^= s >> 17;
          s ^= s << 5;
          row[i] = s >> 24;
        }
    }
}

/* A test card that shows what ops do: colour bars, a gray ramp, a checkerboard
 * for blurs and resampling, and a circle with a 1-pixel outline for edges. */
KsImage *
ks_image_new_test_card (guint width, guint height, GError **error)
{
  static const guint32 bars[8] = {
    0xffc0c0c0, 0xff00c0c0, 0xffc0c000, 0xff00c000,
    0xffc000c0, 0xff0000c0, 0xffc00000, 0xff000000,
  };
  KsImage *image = ks_image_new (KS_FORMAT_RGBA8, width, height, error);
  double cx = width / 2.0, cy = height / 2.0, r = MIN (width, height) * 0.35;

  if (image == NULL)
    return NULL;
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        guint32 px;
        double d = hypot (x + 0.5 - cx, y + 0.5 - cy);

        if (y < height / 2)
          px = bars[(guint64) x * 8 / width];
        else if (y < height * 3 / 4)
          {
            guint v = (guint) ((guint64) x * 255 / MAX (width - 1, 1));
            px = 0xff000000u | v | v << 8 | v << 16;
          }
        else
          px = (((x / 8) + (y / 8)) & 1) ? 0xffffffffu : 0xff202020u;
        if (fabs (d - r) < 1.0)
          px = 0xff00ffffu; /* yellow */
        ks_image_set_rgba (image, x, y, px);
      }
  return image;
}

KsImage *
ks_image_to_rgba (const KsImage *image)
{
  KsImage *out;

  if (image->format == KS_FORMAT_RGBA8)
    return ks_image_copy (image);
  out = ks_image_new (KS_FORMAT_RGBA8, image->width, image->height, NULL);
  if (out == NULL)
    return NULL;
  for (guint y = 0; y < image->height; y++)
    for (guint x = 0; x < image->width; x++)
      ks_image_set_rgba (out, x, y, ks_image_get_rgba (image, x, y));
  return out;
}

gboolean
ks_image_compare (const KsImage *a, const KsImage *b, KsImageDiff *diff,
                  KsImage **diff_image, GError **error)
{
  guint bpp;
  double sse = 0.0;
  guint64 n_values;
  g_autoptr (KsImage) dimg = NULL;

  g_return_val_if_fail (a != NULL && b != NULL && diff != NULL, FALSE);
  if (a->width != b->width || a->height != b->height || a->format != b->format)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The images differ in size or format: %u×%u %s against %u×%u %s",
                   a->width, a->height, ks_format_name (a->format),
                   b->width, b->height, ks_format_name (b->format));
      return FALSE;
    }
  memset (diff, 0, sizeof *diff);
  bpp = ks_format_bytes_per_pixel (a->format);
  if (diff_image != NULL)
    {
      dimg = ks_image_new (KS_FORMAT_RGBA8, a->width, a->height, error);
      if (dimg == NULL)
        return FALSE;
    }
  for (guint y = 0; y < a->height; y++)
    {
      const guint8 *ra = ks_image_row (a, y), *rb = ks_image_row (b, y);
      for (guint x = 0; x < a->width; x++)
        {
          guint px_max = 0;
          for (guint c = 0; c < bpp; c++)
            {
              int d = abs ((int) ra[x * bpp + c] - (int) rb[x * bpp + c]);
              sse += (double) d * d;
              px_max = MAX (px_max, (guint) d);
            }
          if (px_max > 0)
            diff->differing_pixels++;
          diff->max_abs_diff = MAX (diff->max_abs_diff, px_max);
          if (dimg != NULL)
            {
              /* Differences in red over a dimmed copy of the first image. */
              guint32 g = (ks_image_get_rgba (a, x, y) >> 8 & 0xff) / 3;
              ks_image_set_rgba (dimg, x, y,
                                 px_max > 0 ? 0xff000000u | MIN (255u, 64u + px_max * 4)
                                            : 0xff000000u | g | g << 8 | g << 16);
            }
        }
    }
  n_values = (guint64) a->width * a->height * bpp;
  diff->psnr = sse == 0.0 ? INFINITY : 10.0 * log10 (255.0 * 255.0 / (sse / (double) n_values));
  if (diff_image != NULL)
    *diff_image = g_steal_pointer (&dimg);
  return TRUE;
}
