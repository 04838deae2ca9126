/* ks-op-elementwise.c: the element-wise kind — every output pixel a function
 * of the input pixels at the same place (kernels/ks-elementwise.cu, the pixel
 * functions of kernels/ks-pixel.h listed in kernels/ks-op-list.h) — and the
 * tutorial's element-wise ops. The colour ops of ks-op-color.c use this kind
 * too. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-cpu-simd.h"
#include "ks-engine-private.h"
#include "ks-npp.h"

#if HAVE_CUDA
#include "ks-kernels.h"
#endif

/* The hot loops are compiled for AVX2 as well as the baseline, picked at
 * load time: SSE2 has no 32-bit multiply (pmulld), which the luma needs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define KS_HOT __attribute__ ((target_clones ("avx2", "default"), optimize ("O3")))
#else
#define KS_HOT
#endif


typedef void (*RowFunc) (const guint8 *a, const guint8 *b, guint8 *out, guint n,
                         const KsPixelParams *p);

static inline guint32
load32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return v;
}

#define KS_X_ROW(ID, name, fn, n_in, gray, lut)                                                  \
  static void row_##name (const guint8 *a, const guint8 *b, guint8 *out, guint n,                \
                          const KsPixelParams *p)                                                \
  {                                                                                              \
    for (gsize i = 0; i < n; i++)                                                                \
      {                                                                                          \
        guint32 v = fn (load32 (a + 4 * i), (n_in) > 1 ? load32 (b + 4 * i) : 0u, p);          \
        if (gray)                                                                                \
          out[i] = (guint8) v;                                                                   \
        else                                                                                     \
          memcpy (out + 4 * i, &v, 4);                                                           \
      }                                                                                          \
  }
KS_ELEMENTWISE_OPS (KS_X_ROW)
#undef KS_X_ROW

/* CPU-only rows of the hottest ops: the same integers as ks_px_gray,
 * ks_px_invert and ks_px_add (tests/test-ops-*.c hold them to independent
 * references), written without branches so that GCC vectorises them. */

/* ks_luma601: s / 1000 for s ≤ 255 500 is ((s >> 3) · 33555) >> 22 — exact
 * over that whole range (checked exhaustively), and the product stays below
 * 2^32, so the division becomes a 32-bit multiply and shifts. */
KS_HOT void
_ks_cpu_luma_row (const guint8 *a, guint8 *out, guint n, guint32 bias)
{
  /* The same integers, 16 or 32 pixels at a time where the processor can. */
  if (_ks_cpu_simd_luma_row (a, out, n, bias))
    return;
  for (gsize i = 0; i < n; i++)
    {
      guint32 v = load32 (a + 4 * i);
      guint32 s = 299u * (v & 0xffu) + 587u * ((v >> 8) & 0xffu) + 114u * ((v >> 16) & 0xffu)
                  + bias;
      out[i] = (guint8) (((s >> 3) * 33555u) >> 22);
    }
}

static void
row_gray_fast (const guint8 *a, const guint8 *b, guint8 *out, guint n, const KsPixelParams *p)
{
  (void) b;
  _ks_cpu_luma_row (a, out, n, p->i[0] ? 0u : 500u);
}

KS_HOT static void
row_invert_fast (const guint8 *a, const guint8 *b, guint8 *out, guint n, const KsPixelParams *p)
{
  (void) b;
  (void) p;
  for (gsize i = 0; i < n; i++)
    {
      guint32 v = load32 (a + 4 * i) ^ 0x00ffffffu;
      memcpy (out + 4 * i, &v, 4);
    }
}

/* Saturating add of R, G and B within 32-bit words: the low seven bits of
 * each byte added without carries between bytes, the top bits put back by
 * xor; a byte overflowed where its carry-out (bit 7 of the majority of x, y
 * and not-sum) is set, and (c << 1) − (c >> 7) turns each such bit into 0xff.
 * Alpha is masked off before and taken from a after. */
KS_HOT static void
row_add_fast (const guint8 *a, const guint8 *b, guint8 *out, guint n, const KsPixelParams *p)
{
  (void) p;
  for (gsize i = 0; i < n; i++)
    {
      guint32 va = load32 (a + 4 * i), vb = load32 (b + 4 * i);
      guint32 x = va & 0x00ffffffu, y = vb & 0x00ffffffu;
      guint32 sum = ((x & 0x007f7f7fu) + (y & 0x007f7f7fu)) ^ ((x ^ y) & 0x00808080u);
      guint32 c = ((x & y) | ((x | y) & ~sum)) & 0x00808080u;
      guint32 v = (sum | ((c << 1) - (c >> 7))) | (va & 0xff000000u);
      memcpy (out + 4 * i, &v, 4);
    }
}

static const RowFunc row_funcs[KS_EW_N] = {
#define KS_X_TABLE(ID, name, fn, n_in, gray, lut) [KS_EW_##ID] = row_##name,
  KS_ELEMENTWISE_OPS (KS_X_TABLE)
#undef KS_X_TABLE
};

/* Where a CPU-only row exists, it replaces the generic one. */
static const RowFunc fast_row_funcs[KS_EW_N] = {
  [KS_EW_GRAY] = row_gray_fast,
  [KS_EW_INVERT] = row_invert_fast,
  [KS_EW_ADD] = row_add_fast,
};

/* The LUT ops copy their tables into shared memory (kernels/ks-elementwise.cu). */
static const gboolean ew_reads_lut[KS_EW_N] = {
#define KS_X_LUT(ID, name, fn, n_in, gray, lut) [KS_EW_##ID] = (lut),
  KS_ELEMENTWISE_OPS (KS_X_LUT)
#undef KS_X_LUT
};

static void
ew_shared_memory (const KsKernelRun *run, KsKernelAttributes *attrs)
{
  if (run->ew_id >= 0 && run->ew_id < KS_EW_N && ew_reads_lut[run->ew_id])
    attrs->shared_static = sizeof (KsPixelParams);
}

static void
ew_cpu_rect (KsCpuWorker *worker, const KsKernelRun *run, guint x0, guint y0, guint n,
             guint rows)
{
  const KsBuffer *in0 = run->inputs[0], *in1 = run->inputs[1], *out = run->output;
  guint in_bpp = ks_format_bytes_per_pixel (in0->format);
  guint out_bpp = ks_format_bytes_per_pixel (out->format);
  RowFunc row;

  g_assert (run->ew_id >= 0 && run->ew_id < KS_EW_N);
  row = fast_row_funcs[run->ew_id] != NULL ? fast_row_funcs[run->ew_id] : row_funcs[run->ew_id];
  for (guint y = y0; y < y0 + rows; y++)
    {
      const guint8 *a = (const guint8 *) in0->data + (gsize) y * in0->pitch + (gsize) x0 * in_bpp;
      const guint8 *b = in1 != NULL
                          ? (const guint8 *) in1->data + (gsize) y * in1->pitch
                              + (gsize) x0 * in_bpp
                          : NULL;

      row (a, b, (guint8 *) out->data + (gsize) y * out->pitch + (gsize) x0 * out_bpp, n,
           &run->pixel_params);
    }
}

#if HAVE_CUDA
static int
ew_cuda_attributes (const KsKernelRun *run, struct cudaFuncAttributes *attrs)
{
  return ks_cuda_elementwise_attributes ((KsElementwiseId) run->ew_id, run->geom,
                                         run->instrument, attrs);
}

static int
ew_cuda_occupancy (const KsKernelRun *run, gsize shared, int *blocks)
{
  return ks_cuda_elementwise_occupancy ((KsElementwiseId) run->ew_id, run->geom, run->instrument,
                                        shared, blocks);
}

static int
ew_cuda_launch (const KsKernelRun *run, KsCoverageBuffers cov, gpointer stream)
{
  const KsBuffer *b = run->inputs[1];

  return ks_cuda_elementwise_launch ((KsElementwiseId) run->ew_id, run->geom,
                                     run->inputs[0]->data, run->inputs[0]->pitch,
                                     b != NULL ? b->data : NULL, b != NULL ? b->pitch : 0,
                                     run->output->data, run->output->pitch, run->pixel_params,
                                     cov, (cudaStream_t) stream);
}
#endif

const KsOpKind _ks_kind_elementwise = {
  .name = "elementwise",
  .cpu_rect = ew_cpu_rect,
  .shared_memory = ew_shared_memory,
#if HAVE_CUDA
  .cuda_attributes = ew_cuda_attributes,
  .cuda_launch = ew_cuda_launch,
  .cuda_occupancy = ew_cuda_occupancy,
#endif
  .cuda_launcher = "ks_cuda_elementwise_launch",
};

/* Equalisation: the input's histograms by the histogram op's kernel with its
 * own launch, then the op's tables applied element-wise with the user's
 * launch; both kernels count in the op's time. */
static gboolean
equalize_before_run (KsEngine *engine, KsKernelRun *run, const KsParams *params, KsClock *clock,
                     GError **error)
{
  KsBuffer *in = run->inputs[0];
  guint32 hist[4][256];

  memset (hist, 0, sizeof hist);
  if (!_ks_engine_run_pass (engine, &_ks_op_histogram, in, hist, clock, error))
    return FALSE;
  run->op->impl->equalize (params, hist, (guint64) in->width * in->height, run);
  return TRUE;
}

/* The element-wise kernel, after a histogram of the input. */
const KsOpKind _ks_kind_equalize = {
  .name = "equalize",
  .cpu_rect = ew_cpu_rect,
  .shared_memory = ew_shared_memory,
  .before_run = equalize_before_run,
  .input_passes = 2,
#if HAVE_CUDA
  .cuda_attributes = ew_cuda_attributes,
  .cuda_launch = ew_cuda_launch,
  .cuda_occupancy = ew_cuda_occupancy,
#endif
  .cuda_launcher = "ks_cuda_elementwise_launch",
};

/* ---- the tutorial's element-wise ops ---------------------------------------- */

static const KsParamSpec gray_params[] = {
  { "truncate", "Truncate like the tutorial",
    "Drop the fraction (the tutorial's float-to-uint8 cast) instead of rounding to nearest: "
    "about half of the pixels come out one level darker",
    KS_PARAM_BOOL, 0, 1, 0, NULL, NULL },
};

static const KsParamSpec blend_params[] = {
  { "weight_a", "Weight of A", "How much of the first image goes into each channel",
    KS_PARAM_DOUBLE, 0, 2, 0.5, NULL, NULL },
  { "weight_b", "Weight of B", "How much of the second image goes into each channel",
    KS_PARAM_DOUBLE, 0, 2, 0.5, NULL, NULL },
};

#define EW_LAUNCH { { 32, 8, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_PER_PIXEL, 0 }

static void
prepare_gray (const KsParams *params, KsKernelRun *run)
{
  run->pixel_params.i[0] = params->values[0] != 0;
}

static void
prepare_blend (const KsParams *params, KsKernelRun *run)
{
  /* 16.16 fixed point: both engines then agree to the bit. */
  run->pixel_params.i[0] = (gint32) lround (params->values[0] * 65536.0);
  run->pixel_params.i[1] = (gint32) lround (params->values[1] * 65536.0);
}

/* NPP's functions for the tutorial's ops, on RGBA8 (the only input they take). */
static const KsNppPeer npp_not = { KS_NPP_NOT_8U_AC4R };
static const KsNppPeer npp_gray = { KS_NPP_RGB_TO_GRAY_8U_AC4C1R };
static const KsNppPeer npp_add = { KS_NPP_ADD_8U_C4RSFS };

static const KsOpImpl invert_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_INVERT, .npp = &npp_not,
};
static const KsOpImpl gray_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_GRAY, .prepare = prepare_gray, .npp = &npp_gray,
};
static const KsOpImpl add_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_ADD, .npp = &npp_add,
};
static const KsOpImpl blend_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_BLEND, .prepare = prepare_blend,
};

static const KsOp op_invert = {
  "invert", "Invert", "Tutorial",
  "Each colour channel becomes 255 minus its value; alpha is kept",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, NULL, 0, EW_LAUNCH, 0, &invert_impl,
};

static const KsOp op_gray = {
  "gray", "Grayscale", "Tutorial",
  "BT.601 luma, 0.299 R + 0.587 G + 0.114 B, rounded to the nearest level",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_GRAY8, gray_params, G_N_ELEMENTS (gray_params), EW_LAUNCH,
  /* 32 bytes read and 8 written per thread: measured 0.043 ms against 0.048 ms with 4
   * pixels (8K UHD, H200), since a 4-byte store per thread leaves too few bytes in flight. */
  8, &gray_impl,
};

static const KsOp op_add = {
  "add", "Add", "Tutorial",
  "Adds two images channel by channel, saturating at 255; alpha from the first image",
  2, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, NULL, 0, EW_LAUNCH, 0, &add_impl,
};

static const KsOp op_blend = {
  "blend", "Blend", "Tutorial",
  "A × weight A + B × weight B per channel, rounded and saturated; alpha from the first image",
  2, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, blend_params, G_N_ELEMENTS (blend_params), EW_LAUNCH, 0,
  &blend_impl,
};

/* This file's ops, for the registry. */
const KsOp *const _ks_ops_elementwise[] = {
  &op_invert,
  &op_gray,
  &op_add,
  &op_blend,
  NULL,
};
