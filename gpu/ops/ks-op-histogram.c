/* ks-op-histogram.c: the histogram kind and op — 256 bins of R, G, B and
 * luma (kernels/ks-histogram.cu), by global atomics or privatised per lane in
 * shared memory. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-npp.h"

#if HAVE_CUDA
#include "ks-kernels.h"
#endif

/* Pixels per piece of a row: the luma of a piece is computed in vectors first. */
#define PIECE 256

static inline guint32
load32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return v;
}

/* One pixel into copy h of the bins: R, G, B and its luma y. */
static inline void
count_pixel (guint32 (*h)[256], guint32 p, guint y)
{
  h[0][KS_R (p)]++;
  h[1][KS_G (p)]++;
  h[2][KS_B (p)]++;
  h[3][y]++;
}

static void
histogram_span (KsCpuWorker *w, guint channels, const guint8 *src, guint n)
{
  guint32 (*h)[4][256] = w->hist;
  guint8 luma[PIECE];
  guint i = 0;

  G_STATIC_ASSERT (KS_CPU_HIST_COPIES == 4);
  if (channels == 1)
    {
      for (; i + KS_CPU_HIST_COPIES <= n; i += KS_CPU_HIST_COPIES)
        {
          h[0][0][src[i]]++;
          h[1][0][src[i + 1]]++;
          h[2][0][src[i + 2]]++;
          h[3][0][src[i + 3]]++;
        }
      for (; i < n; i++)
        h[0][0][src[i]]++;
      return;
    }
  for (guint done = 0; done < n; done += PIECE)
    {
      guint m = MIN (PIECE, n - done);
      const guint8 *s = src + 4 * (gsize) done;

      /* The rounded luma of ks_luma601 (p, 0), a piece at a time in vectors. */
      _ks_cpu_luma_row (s, luma, m, 500u);
      /* Four pixels a step, each into its own copy, fixed: the copy's address
       * is a constant offset, not worked out per pixel. */
      for (i = 0; i + 4 <= m; i += 4)
        {
          count_pixel (h[0], load32 (s + 4 * i), luma[i]);
          count_pixel (h[1], load32 (s + 4 * i + 4), luma[i + 1]);
          count_pixel (h[2], load32 (s + 4 * i + 8), luma[i + 2]);
          count_pixel (h[3], load32 (s + 4 * i + 12), luma[i + 3]);
        }
      for (; i < m; i++)
        count_pixel (h[i % KS_CPU_HIST_COPIES], load32 (s + 4 * i), luma[i]);
    }
}

static guint
channels_of (const KsKernelRun *run)
{
  return run->inputs[0]->format == KS_FORMAT_GRAY8 ? 1 : KS_HIST_CHANNELS;
}

static void
histogram_cpu_rect (KsCpuWorker *worker, const KsKernelRun *run, guint x0, guint y0, guint n,
                    guint rows)
{
  const KsBuffer *in = run->inputs[0];
  guint bpp = ks_format_bytes_per_pixel (in->format);

  for (guint y = y0; y < y0 + rows; y++)
    histogram_span (worker, channels_of (run),
                    (const guint8 *) in->data + (gsize) y * in->pitch + (gsize) x0 * bpp, n);
}

/* The kind's parameters in a prepared run: the method alone. */
static inline KsHistogramMethod
method_of (const KsKernelRun *run)
{
  return *KS_RUN_PARAMS (run, const KsHistogramMethod);
}

static void
histogram_kernel_variant (const KsKernelRun *run, GString *key)
{
  g_string_append_printf (key, "%d", method_of (run));
}

static void
histogram_shared_memory (const KsKernelRun *run, KsKernelAttributes *attrs)
{
  attrs->shared_dynamic = ks_histogram_shared_bytes (method_of (run), channels_of (run),
                                                     run->geom.block.x * run->geom.block.y
                                                       * run->geom.block.z);
}

#if HAVE_CUDA
static int
histogram_cuda_attributes (const KsKernelRun *run, struct cudaFuncAttributes *attrs)
{
  return ks_cuda_histogram_attributes (method_of (run), run->geom, (int) channels_of (run),
                                       run->instrument, attrs);
}

static int
histogram_cuda_occupancy (const KsKernelRun *run, gsize shared, int *blocks)
{
  return ks_cuda_histogram_occupancy (method_of (run), run->geom, (int) channels_of (run),
                                      run->instrument, shared, blocks);
}

static int
histogram_cuda_launch (const KsKernelRun *run, KsCoverageBuffers cov, gpointer stream)
{
  cudaError_t err = ks_cuda_histogram_launch (method_of (run), run->geom,
                                              (int) channels_of (run), run->inputs[0]->data,
                                              run->inputs[0]->pitch, run->device_bins,
                                              *run->bins_generation, cov, (cudaStream_t) stream);

  /* Only a launch that ran cleared the next set. */
  if (err == cudaSuccess)
    ++*run->bins_generation;
  return err;
}
#endif

static const KsOpKind kind = {
  .name = "histogram",
  .cpu_rect = histogram_cpu_rect,
  .shared_memory = histogram_shared_memory,
#if HAVE_CUDA
  .cuda_attributes = histogram_cuda_attributes,
  .cuda_launch = histogram_cuda_launch,
  .cuda_occupancy = histogram_cuda_occupancy,
#endif
  .cuda_launcher = "ks_cuda_histogram_launch",
  .kernel_variant = histogram_kernel_variant,
};

/* ---- the op ------------------------------------------------------------------ */

static const char *const histogram_methods[] = { "shared", "global", NULL };
static const char *const histogram_method_titles[] = {
  "Shared memory (privatised per lane)", "Global atomics", NULL,
};

static const KsParamSpec histogram_params[] = {
  { "method", "Kernel",
    "Global atomics: every pixel adds to the bins in device memory, so popular bins serialise. "
    "Shared memory: each lane of a warp counts into its own copy of the bins in shared memory, "
    "where no two lanes meet in a bank, and each block merges once",
    KS_PARAM_CHOICE, 0, 1, 0, histogram_methods, histogram_method_titles },
};

static void
prepare_histogram (const KsParams *params, KsKernelRun *run)
{
  *KS_RUN_PARAMS (run, KsHistogramMethod) =
    params->values[0] == 1 ? KS_HIST_GLOBAL_ATOMICS : KS_HIST_SHARED;
}

/* NPP's even histograms: one channel of GRAY8 or four of RGBA8. */
static gboolean
npp_histogram (const KsOp *op, const KsParams *params, KsFormat format,
               KsNppPeer *peer)
{
  peer->function = format == KS_FORMAT_GRAY8 ? KS_NPP_HISTOGRAM_EVEN_8U_C1R
                                             : KS_NPP_HISTOGRAM_EVEN_8U_C4R;
  return TRUE;
}

static const KsOpImpl histogram_impl = {
  .kind = &kind, .accepts_gray = TRUE, .prepare = prepare_histogram,
  .npp_peer = npp_histogram,
};

/* Blocks of 32×32 threads: measured at 8K on the H200 (the test card, the
 * bundled photo resized, uniform random pixels), four channels took 0.0377,
 * 0.0467 and 0.0471 ms with them against 0.0402, 0.0519 and 0.0523 with
 * 32×16. Gray, with its copies cleared under the first loads
 * (ks-histogram.cu), took 0.0130–0.0132 ms on each with 32×32 against
 * 0.0133–0.0135 with 32×16 (two runs). */
const KsOp _ks_op_histogram = {
  "histogram", "Histogram", "Tutorial",
  "256-bin histograms of red, green, blue and luma (of the single channel for gray images)",
  1, KS_OP_OUTPUT_HISTOGRAM, KS_FORMAT_RGBA8, histogram_params, G_N_ELEMENTS (histogram_params),
  { { 32, 32, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_GRID_STRIDE, 0 }, 0, &histogram_impl,
};

/* This file's ops, for the registry. */
const KsOp *const _ks_ops_histogram[] = {
  &_ks_op_histogram,
  NULL,
};
