/* ks-op-filter.c: the neighbourhood filters' registry entries and the
 * conversion of their typed parameters into KsFilterParams (ks-filter.h):
 * integer taps, so that both engines compute the same bits. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-filter.h"
#include "ks-npp.h"


/* 16×8 threads. Small symmetric masks (radius 1 to 3, ks_filter_uses_direct)
 * run without shared memory; the others read a 64×8 tile (4 pixels a thread)
 * and its halo into at most 40 KB of shared memory (ks_filter_shared_bytes),
 * within what every device grants. On the H200 at 8K the tiled 5×5 blurs
 * measured 0.267 ms with 16×8 blocks, 0.276 with 32×4 and 0.312 with 32×8;
 * the direct kernel runs about the same with any of these shapes (sweeps in
 * docs/performance.md). */
#define FILTER_LAUNCH { { 16, 8, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_PER_PIXEL, 0 }

/* The blurs at 8 pixels a thread: the direct kernel's columns pass covers the
 * span and R columns each side, so wider spans repeat less of it (5×5 at 8K on
 * the H200: Gaussian 0.123 ms against 0.154 with 4, box 0.132 against 0.164).
 * Larger masks go to the tiled kernel, where 8 pixels measured about as fast
 * as 4 (0.279 against 0.276 ms, 32×4 blocks). */
#define BLUR_PPT 8

static const KsParamSpec box_params[] = {
  { "radius", "Radius",
    "Half the window's side in pixels: each pixel becomes the mean of the (2·radius + 1)² "
    "pixels around it",
    KS_PARAM_INT, 1, 32, 2, NULL, NULL },
};

static const KsParamSpec gaussian_params[] = {
  { "sigma", "Sigma",
    "Standard deviation of the Gaussian in pixels; the window reaches 3 sigma each way (at most "
    "64 pixels)",
    KS_PARAM_DOUBLE, 0.5, 20, 1.5, NULL, NULL },
};

static const char *const sobel_modes[] = { "horizontal", "vertical", "magnitude", NULL };
static const char *const sobel_mode_titles[] = {
  "Horizontal edges (|Gy|)", "Vertical edges (|Gx|)", "Gradient magnitude", NULL,
};

static const KsParamSpec sobel_params[] = {
  { "mode", "Edges",
    "Which derivative of the luma to show: the vertical one finds horizontal edges, the "
    "horizontal one vertical edges; the magnitude combines both (integer square root)",
    KS_PARAM_CHOICE, 0, 2, 2, sobel_modes, sobel_mode_titles },
};

static const KsParamSpec sharpen_params[] = {
  { "amount", "Amount",
    "How much of the detail (the image minus its blur) is added back: 0 leaves the image as it "
    "is, 1 doubles the detail",
    KS_PARAM_DOUBLE, 0, 5, 1, NULL, NULL },
  { "radius", "Radius",
    "Sigma of the Gaussian blur that separates the detail, in pixels: larger radii sharpen "
    "coarser features",
    KS_PARAM_DOUBLE, 0.5, 10, 1, NULL, NULL },
};

/* Integer taps of a sampled Gaussian summing to 1024 exactly: each tap is
 * rounded, and the rounding remainder goes to the centre tap, so a constant
 * image stays constant. */
static void
gaussian_taps (double sigma, KsFilterParams *f)
{
  gint32 radius = (gint32) MIN (ceil (3.0 * sigma), (double) KS_FILTER_MAX_RADIUS);
  double g[2 * KS_FILTER_MAX_RADIUS + 1];
  double total = 0;
  gint32 sum = 0;

  radius = MAX (radius, 1);
  for (gint32 i = 0; i <= 2 * radius; i++)
    {
      double d = i - radius;
      g[i] = exp (-d * d / (2.0 * sigma * sigma));
      total += g[i];
    }
  for (gint32 i = 0; i <= 2 * radius; i++)
    {
      f->taps[i] = (gint32) lround (1024.0 * g[i] / total);
      sum += f->taps[i];
    }
  f->taps[radius] += 1024 - sum;
  f->radius = radius;
  f->divisor = 1024 * 1024;
}

static void
prepare_box (const KsParams *params, KsKernelRun *run)
{
  KsFilterParams *filter = KS_RUN_PARAMS (run, KsFilterParams);
  gint32 r = (gint32) params->values[0];

  filter->kind = KS_FILTER_SEPARABLE;
  filter->radius = r;
  for (gint32 i = 0; i <= 2 * r; i++)
    filter->taps[i] = 1;
  filter->divisor = (2 * r + 1) * (2 * r + 1);
}

static void
prepare_gaussian (const KsParams *params, KsKernelRun *run)
{
  KsFilterParams *filter = KS_RUN_PARAMS (run, KsFilterParams);

  filter->kind = KS_FILTER_SEPARABLE;
  gaussian_taps (params->values[0], filter);
}

static void
prepare_sobel (const KsParams *params, KsKernelRun *run)
{
  KsFilterParams *filter = KS_RUN_PARAMS (run, KsFilterParams);

  filter->kind = KS_FILTER_SOBEL;
  filter->radius = 1;
  filter->sobel_mode = (gint32) params->values[0];
}

static void
prepare_sharpen (const KsParams *params, KsKernelRun *run)
{
  KsFilterParams *filter = KS_RUN_PARAMS (run, KsFilterParams);

  filter->kind = KS_FILTER_UNSHARP;
  /* 8.8 fixed point: (P − B) · amount stays far inside 32 bits (255 · 1280). */
  filter->amount = (gint32) lround (params->values[0] * 256.0);
  gaussian_taps (params->values[1], filter);
}

/* ---- the kind ------------------------------------------------------------- */

/* The filter's parameters in a prepared run. */
static inline const KsFilterParams *
params_of (const KsKernelRun *run)
{
  return KS_RUN_PARAMS (run, const KsFilterParams);
}

static void
filter_cpu_rect (KsCpuWorker *worker, const KsKernelRun *run, guint x0, guint y0, guint n,
                 guint rows)
{
  /* Filters read around (x0, y): they find their own source pixels. */
  _ks_cpu_filter_rect (run, x0, y0, n, rows);
}

static void
filter_shared_memory (const KsKernelRun *run, KsKernelAttributes *attrs)
{
  attrs->shared_dynamic = ks_filter_shared_bytes (params_of (run), run->geom.block,
                                                  run->geom.pixels_per_thread);
}

/* Radii 1 to 3 have direct kernels of their own. */
static void
filter_kernel_variant (const KsKernelRun *run, GString *key)
{
  g_string_append_printf (key, "%d/%d", params_of (run)->kind, params_of (run)->radius);
}

#if HAVE_CUDA
static int
filter_cuda_attributes (const KsKernelRun *run, struct cudaFuncAttributes *attrs)
{
  return ks_cuda_filter_attributes (params_of (run),
                                    ks_format_bytes_per_pixel (run->inputs[0]->format), run->geom,
                                    run->instrument, attrs);
}

static int
filter_cuda_occupancy (const KsKernelRun *run, gsize shared, int *blocks)
{
  return ks_cuda_filter_occupancy (params_of (run), ks_format_bytes_per_pixel (run->inputs[0]->format),
                                   run->geom, run->instrument, shared, blocks);
}

static int
filter_cuda_launch (const KsKernelRun *run, KsCoverageBuffers cov, gpointer stream)
{
  return ks_cuda_filter_launch (run->geom, params_of (run), run->inputs[0]->data,
                                run->inputs[0]->pitch,
                                ks_format_bytes_per_pixel (run->inputs[0]->format),
                                run->output->data, run->output->pitch, cov,
                                (cudaStream_t) stream);
}
#endif

/* Neighbourhood filters (kernels/ks-filter.cu; the CPU engine's in
 * ks-cpu-filter.c). */
static const KsOpKind kind = {
  .name = "filter",
  .cpu_rect = filter_cpu_rect,
  .shared_memory = filter_shared_memory,
#if HAVE_CUDA
  .cuda_attributes = filter_cuda_attributes,
  .cuda_launch = filter_cuda_launch,
  .cuda_occupancy = filter_cuda_occupancy,
#endif
  .cuda_launcher = "ks_cuda_filter_launch",
  .kernel_variant = filter_kernel_variant,
};

/* ---- the ops ---------------------------------------------------------------- */

/* NPP's border-replicating 5×5 filters, which the benchmark's settings
 * (radius 2; sigma 0.5, whose ceil(3σ) is 2) make comparable; its horizontal
 * Sobel reads GRAY8 only, so an RGBA8 row is held against it on the gray
 * image of the same size. */
static const KsNppPeer npp_box = { KS_NPP_FILTER_BOX_BORDER_8U_C4R };
static const KsNppPeer npp_gaussian = { KS_NPP_FILTER_GAUSS_BORDER_8U_C4R };
static const KsNppPeer npp_sobel = { KS_NPP_FILTER_SOBEL_HORIZ_BORDER_8U_C1R };

static const KsOpImpl box_impl = {
  .kind = &kind, .prepare = prepare_box, .bench_settings = "radius=2",
  .npp = &npp_box,
};
static const KsOpImpl gaussian_impl = {
  .kind = &kind, .prepare = prepare_gaussian, .bench_settings = "sigma=0.5",
  .npp = &npp_gaussian,
};
static const KsOpImpl sobel_impl = {
  .kind = &kind, .accepts_gray = TRUE, .prepare = prepare_sobel,
  .bench_settings = "mode=horizontal", .bench_tag = "horizontal", .npp = &npp_sobel,
};
static const KsOpImpl sharpen_impl = { .kind = &kind, .prepare = prepare_sharpen };

static const KsOp op_box_blur = {
  "box_blur", "Box blur", "Filters",
  "The mean of a square window around each pixel, computed as a rows pass then a columns pass; "
  "alpha is kept. Borders clamp to the edge: pixels outside the image read the nearest edge "
  "pixel",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, box_params, G_N_ELEMENTS (box_params), FILTER_LAUNCH,
  BLUR_PPT, &box_impl,
};

static const KsOp op_gaussian_blur = {
  "gaussian_blur", "Gaussian blur", "Filters",
  "A separable Gaussian blur with integer weights (summing to 1024), a rows pass then a "
  "columns pass, rounded to the nearest level; alpha is kept. Borders clamp to the edge",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, gaussian_params, G_N_ELEMENTS (gaussian_params),
  FILTER_LAUNCH, BLUR_PPT, &gaussian_impl,
};

static const KsOp op_sobel = {
  "sobel", "Sobel edges", "Filters",
  "3×3 Sobel derivatives of the BT.601 luma (of a gray image, of its own levels), as a gray "
  "image clamped to 255. Borders clamp to the edge, so the image's border shows no false edges",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_GRAY8, sobel_params, G_N_ELEMENTS (sobel_params),
  /* 16 pixels a thread: on the H200 at 8K, horizontal mode, 0.037 ms on gray
   * input and 0.071 on RGBA, against 0.046 and 0.072 with 8 on 32×4 blocks. */
  FILTER_LAUNCH, 16, &sobel_impl,
};

static const KsOp op_sharpen = {
  "sharpen", "Sharpen (unsharp mask)", "Filters",
  "Adds back the detail a Gaussian blur removes: P + amount · (P − blur(P)), rounded and "
  "clamped to 0..255; alpha is kept. Borders clamp to the edge",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, sharpen_params, G_N_ELEMENTS (sharpen_params),
  FILTER_LAUNCH, 0, &sharpen_impl,
};

/* This file's ops, for the registry. */
const KsOp *const _ks_ops_filter[] = {
  &op_box_blur,
  &op_gaussian_blur,
  &op_sobel,
  &op_sharpen,
  NULL,
};
