/* ks-elementwise.cu: out = f(a, b, params) per pixel, for every op of
 * KS_ELEMENTWISE_OPS.
 *
 * One kernel template, instantiated per op, pixels per thread, mapping mode and
 * instrumentation, so that the fast path carries no run-time switches and no
 * coverage code. The ops are memory-bound: each thread reads its whole span with
 * 16-byte read-only loads before any math, so that all its loads are in flight
 * at once.
 *
 * The LUT ops index their tables with each pixel's value. The parameters live
 * in the constant bank, whose cache serves one address at a time, so a warp's
 * 32 different indices would replay the load up to 32 times per channel; each
 * block therefore copies the tables it reads into shared memory once and looks
 * up there. The tables stay bytes: a 256-byte table spans 64 words, two per
 * bank, so a warp's 32 random lookups conflict about 2-way; as 32-bit words
 * it would span 256 words, eight per bank, and conflict more.
 *
 * The copy itself is the expensive part: each lane of a copying warp reads a
 * different word of the parameter bank, so the constant cache replays it 32
 * times, and the barrier after it held every block's first loads back. So the
 * block copies only the tables its op reads (768 bytes for KS_EW_LUT, 256 for
 * KS_EW_LUMA_LUT, against the 1072 of the whole parameters), and the colour
 * ops default to a grid-stride launch (gpu/ops/ks-op-color.c), in which each
 * block copies once for many spans. (Loading the first span before the copy
 * does not survive compilation: nvcc sinks the read-only loads below the
 * barrier.)
 */

#include "ks-kernels.h"
#include "ks-geometry.cuh"

namespace {

template <int OP>
struct KsEwOp;

#define KS_X_OP(ID, name, fn, n_in, gray, lut)                                   \
  template <>                                                                    \
  struct KsEwOp<KS_EW_##ID>                                                      \
  {                                                                              \
    static constexpr int inputs = (n_in);                                        \
    static constexpr bool gray_out = (gray) != 0;                                \
    static constexpr bool reads_lut = (lut) != 0;                                \
    static __device__ __forceinline__ uint32_t                                   \
    apply (uint32_t a, uint32_t b, const KsPixelParams *p)                       \
    {                                                                            \
      return fn (a, b, p);                                                       \
    }                                                                            \
  };
KS_ELEMENTWISE_OPS (KS_X_OP)
#undef KS_X_OP

template <uint32_t PPT>
struct KsEwSpan
{
  uint32_t a[PPT];
  uint32_t b[PPT];
};

/* The block's copy, in shared memory, of the tables that op OP reads, as a
 * KsPixelParams whose other fields are left unset (the LUT pixel functions
 * read nothing else). Every thread of the block must call it (it synchronises
 * the block), so it runs before any thread can leave. The loop strides by the
 * block's size, whatever its shape: a 1×1 block copies alone, a 1024-thread
 * one in a single step. Words, not vectors: the parameter is only 4-byte
 * aligned in the parameter space. */
template <int OP>
__device__ __forceinline__ const KsPixelParams *
ks_params_to_shared (const KsPixelParams &params)
{
  __shared__ KsPixelParams shared_params;
  /* KS_EW_LUT reads lut[0..2], KS_EW_LUMA_LUT lut[3]; any other LUT op
   * copies all four. */
  constexpr uint32_t first_table = OP == KS_EW_LUMA_LUT ? 3u : 0u;
  constexpr uint32_t n_tables = OP == KS_EW_LUT ? 3u : OP == KS_EW_LUMA_LUT ? 1u : 4u;
  constexpr uint32_t n_words = n_tables * KS_HIST_BINS / sizeof (uint32_t);
  const uint32_t *src = reinterpret_cast<const uint32_t *> (&params.lut[first_table][0]);
  uint32_t *dst = reinterpret_cast<uint32_t *> (&shared_params.lut[first_table][0]);
  const uint32_t n_threads = blockDim.x * blockDim.y * blockDim.z;

  static_assert (sizeof (params.lut[0]) == KS_HIST_BINS, "one byte per level");
  static_assert (offsetof (KsPixelParams, lut) % sizeof (uint32_t) == 0,
                 "the tables are copied in 32-bit words");
  for (uint32_t k = ks_linear_thread (); k < n_words; k += n_threads)
    dst[k] = src[k];
  __syncthreads ();
  return &shared_params;
}

/* No __launch_bounds__: with it ptxas spent up to the 64-register cap even on
 * kernels that need 32, halving occupancy. Without it every instantiation
 * stays within 64 registers on sm_90, so blocks of 1024 threads launch; on
 * sm_80 and sm_86 the luma LUT in grid-stride mode at 8 and 16 pixels per
 * thread takes 66 to 74, and validation turns such blocks down. Holding two
 * 16-pixel spans of two inputs took 96, so two-input ops at 16 pixels per
 * thread go without the grid-stride prefetch: with eight 16-byte loads in
 * flight per thread they do not need it. */
template <int OP, uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_elementwise_kernel (KsGeometry g,
                       const uint8_t *__restrict__ a, size_t a_pitch,
                       const uint8_t *__restrict__ b, size_t b_pitch,
                       uint8_t *__restrict__ out, size_t out_pitch,
                       KsPixelParams params,
                       KsCoverageBuffers cov)
{
  typedef KsEwOp<OP> Op;
  /* A local copy: the pixel functions take a pointer, and a pointer to the
   * kernel parameter itself would force a copy into local memory. The LUT ops
   * read the block's shared copy instead (see the top of the file). */
  const KsPixelParams prm = params;
  const KsPixelParams *p = &prm;

  if constexpr (Op::reads_lut)
    p = ks_params_to_shared<OP> (params);

  auto load = [&] (uint32_t y, uint32_t x0, uint32_t n) {
    KsEwSpan<PPT> s;
    ks_load_rgba<PPT> (a + (size_t) y * a_pitch, x0, n, s.a);
    if constexpr (Op::inputs > 1)
      ks_load_rgba<PPT> (b + (size_t) y * b_pitch, x0, n, s.b);
    else
      {
#pragma unroll
        for (uint32_t i = 0; i < PPT; i++)
          s.b[i] = 0u;
      }
    return s;
  };

  auto use = [&] (const KsEwSpan<PPT> &s, uint32_t y, uint32_t x0, uint32_t n) {
    uint32_t r[PPT];
#pragma unroll
    for (uint32_t i = 0; i < PPT; i++)
      r[i] = Op::apply (s.a[i], s.b[i], p);

    uint8_t *row = out + (size_t) y * out_pitch;
    if constexpr (Op::gray_out)
      ks_store_gray<PPT> (row, x0, n, r);
    else
      ks_store_rgba<PPT> (row, x0, n, r);

    if constexpr (INSTRUMENTED)
      ks_coverage_record (cov, g.width, y, x0, n);
  };

  /* The luma LUT's per-pixel math is the heaviest: with the prefetch at 16
   * pixels per thread it took 72 registers on sm_90 (80 instrumented), over
   * the 64 that 1024-thread blocks allow; without it, 56 and 64. */
  /* One span ahead, not ks_prefetch_depth's three for small spans: on the
   * H200 at 8K, three measured no faster for the LUT ops (0.0685 ms either
   * way) and slower for invert in grid-stride mode (0.0675 against 0.0665). */
  constexpr uint32_t depth = PPT * 4u * Op::inputs <= (Op::reads_lut ? 32u : 64u) ? 1u : 0u;
  const bool handled = ks_walk_spans<PPT, MODE, depth> (g, load, use);

  if constexpr (INSTRUMENTED)
    {
      if (!handled)
        atomicAdd (cov.idle_threads, 1ull);
    }
  else
    (void) handled;
}

typedef void (*KsEwKernel) (KsGeometry, const uint8_t *, size_t, const uint8_t *, size_t,
                            uint8_t *, size_t, KsPixelParams, KsCoverageBuffers);

template <int OP, uint32_t PPT, uint32_t MODE>
KsEwKernel
ks_ew_pick_instrumented (bool instrumented)
{
  return instrumented ? ks_elementwise_kernel<OP, PPT, MODE, true>
                      : ks_elementwise_kernel<OP, PPT, MODE, false>;
}

template <int OP, uint32_t PPT>
KsEwKernel
ks_ew_pick_mode (uint32_t mode, bool instrumented)
{
  return mode == KS_MAP_GRID_STRIDE
           ? ks_ew_pick_instrumented<OP, PPT, KS_MAP_GRID_STRIDE> (instrumented)
           : ks_ew_pick_instrumented<OP, PPT, KS_MAP_PER_PIXEL> (instrumented);
}

template <int OP>
KsEwKernel
ks_ew_pick_ppt (uint32_t ppt, uint32_t mode, bool instrumented)
{
  switch (ppt)
    {
    case 1: return ks_ew_pick_mode<OP, 1> (mode, instrumented);
    case 2: return ks_ew_pick_mode<OP, 2> (mode, instrumented);
    case 4: return ks_ew_pick_mode<OP, 4> (mode, instrumented);
    case 8: return ks_ew_pick_mode<OP, 8> (mode, instrumented);
    case 16: return ks_ew_pick_mode<OP, 16> (mode, instrumented);
    default: return NULL;
    }
}

/* NULL when the op, the pixels per thread or the mode is not one we
 * instantiate. The rest of the geometry does not choose the kernel. */
KsEwKernel
ks_ew_pick (KsElementwiseId op, const KsGeometry *g, bool instrumented)
{
  const uint32_t ppt = g->pixels_per_thread;
  const uint32_t mode = g->mode;

  if (mode != KS_MAP_PER_PIXEL && mode != KS_MAP_GRID_STRIDE)
    return NULL;

  switch (op)
    {
#define KS_X_CASE(ID, name, fn, n_in, gray, lut) \
    case KS_EW_##ID: return ks_ew_pick_ppt<KS_EW_##ID> (ppt, mode, instrumented);
      KS_ELEMENTWISE_OPS (KS_X_CASE)
#undef KS_X_CASE
    default:
      return NULL;
    }
}

int
ks_ew_inputs (KsElementwiseId op)
{
  switch (op)
    {
#define KS_X_CASE(ID, name, fn, n_in, gray, lut) case KS_EW_##ID: return (n_in);
      KS_ELEMENTWISE_OPS (KS_X_CASE)
#undef KS_X_CASE
    default:
      return 0;
    }
}

bool
ks_ew_gray_out (KsElementwiseId op)
{
  switch (op)
    {
#define KS_X_CASE(ID, name, fn, n_in, gray, lut) case KS_EW_##ID: return (gray) != 0;
      KS_ELEMENTWISE_OPS (KS_X_CASE)
#undef KS_X_CASE
    default:
      return false;
    }
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_elementwise_launch (KsElementwiseId op,
                            KsGeometry geom,
                            const uint8_t *a, size_t a_pitch,
                            const uint8_t *b, size_t b_pitch,
                            uint8_t *out, size_t out_pitch,
                            KsPixelParams params,
                            KsCoverageBuffers cov,
                            cudaStream_t stream)
{
  const bool instrumented = cov.writes != NULL;
  const KsEwKernel kernel = ks_ew_pick (op, &geom, instrumented);
  const uint32_t ppt = geom.pixels_per_thread;

  if (kernel == NULL || !ks_geometry_is_valid (&geom) || !ks_coverage_is_valid (&cov))
    return cudaErrorInvalidValue;
  if (!ks_buffer_is_valid (a, a_pitch, geom.width, 4, ppt)
      || !ks_buffer_is_valid (out, out_pitch, geom.width, ks_ew_gray_out (op) ? 1 : 4, ppt))
    return cudaErrorInvalidValue;
  if (ks_ew_inputs (op) > 1 && !ks_buffer_is_valid (b, b_pitch, geom.width, 4, ppt))
    return cudaErrorInvalidValue;

  kernel<<<ks_dim3 (geom.grid), ks_dim3 (geom.block), 0, stream>>> (geom, a, a_pitch, b, b_pitch,
                                                                     out, out_pitch, params, cov);
  return cudaGetLastError ();
}

extern "C" cudaError_t
ks_cuda_elementwise_attributes (KsElementwiseId op,
                                KsGeometry geom,
                                int instrumented,
                                struct cudaFuncAttributes *attr)
{
  const KsEwKernel kernel = ks_ew_pick (op, &geom, instrumented != 0);

  if (kernel == NULL || attr == NULL)
    return cudaErrorInvalidValue;
  return cudaFuncGetAttributes (attr, reinterpret_cast<const void *> (kernel));
}

extern "C" cudaError_t
ks_cuda_elementwise_occupancy (KsElementwiseId op, KsGeometry geom, int instrumented,
                               size_t shared, int *blocks)
{
  const KsEwKernel kernel = ks_ew_pick (op, &geom, instrumented != 0);

  if (kernel == NULL || blocks == NULL)
    return cudaErrorInvalidValue;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor (blocks, kernel, (int) (geom.block.x * geom.block.y * geom.block.z),
                                                        shared);
}
