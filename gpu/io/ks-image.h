#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  KS_FORMAT_RGBA8 = 0, /* 4 bytes per pixel: R, G, B, A */
  KS_FORMAT_GRAY8 = 1, /* 1 byte per pixel */
} KsFormat;

/* The largest image the engine accepts, on either side: 16384² RGBA8 is
 * 1 GiB. `kernelscope-cli run` holds its inputs and its output at once and no
 * more (a file's decoded copy goes once the image is built, a host copy once
 * it is on the engine): 2 GiB at the peak for a one-input op at this size,
 * measured by build-aux/bench-memory.py (docs/performance.md). */
#define KS_IMAGE_MAX_SIDE 16384u

/* A host image. Rows are `stride` bytes apart (stride >= width * bpp). */
typedef struct _KsImage
{
  KsFormat format;
  guint width;
  guint height;
  gsize stride;
  guint8 *data;
} KsImage;

guint      ks_format_bytes_per_pixel (KsFormat format);
const char *ks_format_name           (KsFormat format);

KsImage   *ks_image_new        (KsFormat format, guint width, guint height, GError **error);
KsImage   *ks_image_ref        (KsImage *image);
void       ks_image_unref      (KsImage *image);
KsImage   *ks_image_copy       (const KsImage *image);
void       ks_image_fill       (KsImage *image, guint8 value);
gboolean   ks_image_equal      (const KsImage *a, const KsImage *b);
guint8    *ks_image_row        (const KsImage *image, guint y);
guint32    ks_image_get_rgba   (const KsImage *image, guint x, guint y);
void       ks_image_set_rgba   (KsImage *image, guint x, guint y, guint32 rgba);

/* Deterministic content for tests and samples. */
void       ks_image_fill_random (KsImage *image, guint32 seed);
KsImage   *ks_image_new_test_card (guint width, guint height, GError **error);
/* A GRAY8 image of the rounded BT.601 luma of each pixel (ks_luma601, the gray
 * op's default); of a GRAY8 image, a copy. */
KsImage   *ks_image_to_gray    (const KsImage *image, GError **error);

/* Files, through gdk-pixbuf. Every input (gray, RGB, palette, 16-bit) becomes
 * RGBA8. Dimensions are checked before decoding; files beyond
 * KS_IMAGE_MAX_SIDE are refused with KS_ERROR_TOO_LARGE. */
KsImage   *ks_image_load       (const char *path, GError **error);
KsImage   *ks_image_load_bytes (GBytes *bytes, GError **error);
/* The format follows the extension, among those gdk-pixbuf can write here
 * (png, jpg/jpeg, tif/tiff, bmp, ico, …); written whole or not at all. */
gboolean   ks_image_save       (const KsImage *image, const char *path, GError **error);
/* Whether ks_image_save can write a file of this name: an unknown or missing
 * extension is refused (KS_ERROR_INVALID_ARGUMENT) with the list of those it
 * can. Nothing is touched. */
gboolean   ks_image_check_save_path (const char *path, GError **error);
/* A GRAY8 image as RGBA8 (v, v, v, 255); an RGBA8 image copied. */
KsImage   *ks_image_to_rgba    (const KsImage *image);

/* Differences between two images of the same size and format. */
typedef struct
{
  guint max_abs_diff;
  guint64 differing_pixels;
  double psnr;  /* dB; +inf when identical */
} KsImageDiff;

gboolean   ks_image_compare    (const KsImage *a, const KsImage *b, KsImageDiff *diff,
                                KsImage **diff_image, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsImage, ks_image_unref)

G_END_DECLS
