/* ks-op-resize.c: ops that change the image's size. */
#include "config.h"

#include <math.h>

#include "ks-engine-private.h"
#include "ks-npp.h"
#include "ks-resize.h"

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
  KsResizeParams *resize = KS_RUN_PARAMS (run, KsResizeParams);

  resize->mode = params->values[RESIZE_MODE] == 1 ? KS_RESIZE_NEAREST : KS_RESIZE_BILINEAR;
  resize->src_width = run->in_width;
  resize->src_height = run->in_height;
}

static void
resize_cpu_rect (KsCpuWorker *worker, const KsKernelRun *run, guint x0, guint y0, guint n,
                 guint rows)
{
  for (guint y = y0; y < y0 + rows; y++)
    _ks_cpu_resize_span (run, x0, y, n);
}

static void
resize_kernel_variant (const KsKernelRun *run, GString *key)
{
  g_string_append_printf (key, "%d", KS_RUN_PARAMS (run, const KsResizeParams)->mode);
}

#if HAVE_CUDA
static int
resize_cuda_attributes (const KsKernelRun *run, struct cudaFuncAttributes *attrs)
{
  return ks_cuda_resize_attributes (KS_RUN_PARAMS (run, const KsResizeParams), run->geom, run->instrument, attrs);
}

static int
resize_cuda_occupancy (const KsKernelRun *run, gsize shared, int *blocks)
{
  return ks_cuda_resize_occupancy (KS_RUN_PARAMS (run, const KsResizeParams), run->geom, run->instrument, shared, blocks);
}

static int
resize_cuda_launch (const KsKernelRun *run, KsCoverageBuffers cov, gpointer stream)
{
  return ks_cuda_resize_launch (run->geom, KS_RUN_PARAMS (run, const KsResizeParams), run->inputs[0]->data,
                                run->inputs[0]->pitch, run->output->data, run->output->pitch,
                                cov, (cudaStream_t) stream);
}
#endif

/* Resampling (kernels/ks-resize.cu; the CPU engine's in ks-cpu-resize.c). */
static const KsOpKind kind = {
  .name = "resize",
  .cpu_rect = resize_cpu_rect,
#if HAVE_CUDA
  .cuda_attributes = resize_cuda_attributes,
  .cuda_launch = resize_cuda_launch,
  .cuda_occupancy = resize_cuda_occupancy,
#endif
  .cuda_launcher = "ks_cuda_resize_launch",
  .kernel_variant = resize_kernel_variant,
};

static const KsNppPeer npp_resize = { KS_NPP_RESIZE_8U_C4R_LINEAR };

static const KsOpImpl resize_impl = {
  .kind = &kind, .prepare = prepare_resize, .output_size = resize_output_size,
  .npp = &npp_resize,
};

/* Per-pixel launch over the output, 4 output pixels (one 16-byte store) per thread. */
static const KsOp op_resize = {
  "resize", "Resize", "Geometry",
  "Resamples to any size, down or up: nearest neighbour or bilinear with pixel centres aligned "
  "and edges clamped; alpha is resampled like the colours",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, resize_params, G_N_ELEMENTS (resize_params),
  { { 32, 8, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_PER_PIXEL, 0 }, 4, &resize_impl,
};

/* This file's ops, for the registry. */
const KsOp *const _ks_ops_resize[] = {
  &op_resize,
  NULL,
};
