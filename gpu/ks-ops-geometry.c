/* ks-ops-geometry.c: ops that change the image's size. */
#include "config.h"

#include <math.h>

#include "ks-op-impl.h"

static const char *const resize_modes[] = { "bilinear", "nearest", NULL };
static const char *const resize_mode_titles[] = {
  "Bilinear (pixel centres aligned)", "Nearest neighbour", NULL,
};

/* 0 is allowed below the 1..16384 sizes: it means "this side from the scale",
 * so that one scale serves any input without the user knowing its size. */
static const KsParamSpec resize_params[] = {
  { "width", "Width",
    "Output width in pixels (1–16384); 0 takes the input's width times the scale",
    KS_PARAM_INT, 0, KS_IMAGE_MAX_SIDE, 0, NULL, NULL },
  { "height", "Height",
    "Output height in pixels (1–16384); 0 takes the input's height times the scale",
    KS_PARAM_INT, 0, KS_IMAGE_MAX_SIDE, 0, NULL, NULL },
  { "scale", "Scale",
    "Factor for a side whose width or height is 0, rounded to the nearest pixel (at least 1)",
    KS_PARAM_DOUBLE, 0.05, 8, 0.5, NULL, NULL },
  { "mode", "Interpolation",
    "Nearest: the source pixel whose cell holds the output pixel's corner. Bilinear: pixel "
    "centres aligned, 8-bit weights, clamp-to-edge",
    KS_PARAM_CHOICE, 0, 1, 0, resize_modes, resize_mode_titles },
};

enum { RESIZE_WIDTH, RESIZE_HEIGHT, RESIZE_SCALE, RESIZE_MODE };

static guint
resize_side (double requested, double scale, guint in)
{
  double s;

  if (requested >= 1)
    return (guint) requested;
  /* Oversized results pass through unclamped so that the engine refuses them
   * with the size in the message, rather than resizing to something else. */
  s = floor ((double) in * scale + 0.5);
  return s < 1 ? 1 : s > G_MAXUINT ? G_MAXUINT : (guint) s;
}

static void
resize_output_size (const KsParams *params, guint in_width, guint in_height, guint *out_width,
                    guint *out_height)
{
  double scale = params->values[RESIZE_SCALE];

  *out_width = resize_side (params->values[RESIZE_WIDTH], scale, in_width);
  *out_height = resize_side (params->values[RESIZE_HEIGHT], scale, in_height);
}

static void
prepare_resize (const KsParams *params, KsKernelRun *run)
{
  /* The source size is the engine's to set: it knows the input. */
  run->resize.mode = params->values[RESIZE_MODE] == 1 ? KS_RESIZE_NEAREST : KS_RESIZE_BILINEAR;
}

static const KsOpImpl resize_impl = {
  KS_IMPL_RESIZE, 0, FALSE, prepare_resize, resize_output_size, NULL,
};

/* Per-pixel launch over the output, 4 output pixels (one 16-byte store) per thread. */
const KsOp _ks_op_resize = {
  "resize", "Resize", "Geometry",
  "Resamples to any size, down or up: nearest neighbour or bilinear with pixel centres aligned "
  "and edges clamped; alpha is resampled like the colours",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, resize_params, G_N_ELEMENTS (resize_params),
  { { 32, 8, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_PER_PIXEL, 0 }, 4, &resize_impl,
};
