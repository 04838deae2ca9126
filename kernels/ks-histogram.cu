/* ks-histogram.cu: 256-bin histograms of R, G, B and luma of an RGBA8 image,
 * or of a GRAY8 image, with global atomics or with copies in shared memory
 * that lanes count into without meeting in a bank (ks_histogram_columns).
 *
 * The same traversal as the element-wise kernels (ks-geometry.cuh); coverage
 * records the pixels read.
 */

#include "ks-kernels.h"
#include "ks-geometry.cuh"

namespace {

/* Byte i of w, zero-extended: one PRMT. */
__device__ __forceinline__ uint32_t
ks_byte (uint32_t w, uint32_t i)
{
  return __byte_perm (w, 0u, 0x4440u | i);
}

/* A shared-memory add at a 32-bit shared address. Through atomicAdd on a
 * pointer into the copy, the compiler rebuilt each bin's address from the copy
 * index (four instructions per count in SASS); from a precomputed address it
 * is a byte permute and one multiply-add, so the count loop stays cheap next to
 * the atomics it issues. */
__device__ __forceinline__ void
ks_shared_add (uint32_t addr, uint32_t k)
{
  asm volatile ("red.shared.add.u32 [%0], %1;" : : "r" (addr), "r" (k) : "memory");
}

/* Zeroes the first `words` words of the block's shared bins (a multiple of
 * four when there are four columns or more, else any), 16 bytes a store where it
 * can, with a block-stride loop: blocks of any size, even of one thread or of
 * a few threads more than a multiple of 32, clear all of it. Then waits for
 * the block. */
__device__ __forceinline__ void
ks_histogram_clear (uint32_t words, uint32_t tid, uint32_t threads)
{
  extern __shared__ uint32_t ks_hist_smem[];

  if (words % 4u == 0)
    for (uint32_t i = tid; i < words / 4u; i += threads)
      reinterpret_cast<uint4 *> (ks_hist_smem)[i] = make_uint4 (0u, 0u, 0u, 0u);
  else
    for (uint32_t i = tid; i < words; i += threads)
      ks_hist_smem[i] = 0u;
  __syncthreads ();
}

/* Spans to keep loaded ahead in grid-stride mode. Spans of 16 bytes: two for
 * gray, one for four channels, as measured at 8K on the H200 (gray: 0.0159
 * ms with three ahead, 0.0143 with two, 0.0151 with none; RGBA on the photo:
 * 0.0551 with one, 0.0568 with two). Other spans as the element-wise rule has
 * it. */
__host__ __device__ constexpr uint32_t
ks_hist_prefetch_depth (uint32_t channels, uint32_t ppt)
{
  return ppt * (channels == 4u ? 4u : 1u) == 16u ? (channels == 4u ? 1u : 2u)
                                                 : ks_prefetch_depth (ppt * (channels == 4u ? 4u : 1u), 64u);
}

/* A span as the histogram reads it: PPT packed RGBA8 pixels, or PPT GRAY8
 * pixels four to a word. */
template <uint32_t CH, uint32_t PPT>
struct KsHistSpan
{
  static constexpr uint32_t words = CH == 4 ? PPT : (PPT + 3) / 4;
  uint32_t w[words];
};

template <uint32_t CH, uint32_t PPT>
__device__ __forceinline__ KsHistSpan<CH, PPT>
ks_hist_load (const uint8_t *__restrict__ src, size_t pitch, uint32_t y, uint32_t x0, uint32_t n)
{
  KsHistSpan<CH, PPT> s;
  const uint8_t *row = src + (size_t) y * pitch;

  if constexpr (CH == 4)
    ks_load_rgba<PPT> (row, x0, n, s.w);
  else
    ks_load_gray<PPT> (row, x0, n, s.w);
  return s;
}

/* The columns of the shared copies as a type: N when known at compile time,
 * 0 for a count read at run time. */
template <uint32_t N>
struct KsColumnCount
{
  static constexpr uint32_t value = N;
};

/* No __launch_bounds__, for the reason given in ks-elementwise.cu. */
template <uint32_t METHOD, uint32_t CH, uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_histogram_kernel (KsGeometry g,
                     const uint8_t *__restrict__ src, size_t pitch,
                     uint32_t *__restrict__ bins,
                     uint32_t *__restrict__ next_bins,
                     KsCoverageBuffers cov)
{
  constexpr bool shared = METHOD == KS_HIST_SHARED;
  constexpr uint32_t n_bins = CH * KS_HIST_BINS;
  constexpr uint32_t fit = KS_HIST_SHARED_BUDGET / (CH * KS_HIST_BINS * 4u);
  constexpr uint32_t most_columns = fit < KS_HIST_MOST_COLUMNS ? fit : KS_HIST_MOST_COLUMNS;
  extern __shared__ uint32_t ks_hist_smem[];

  const uint32_t tid = ks_linear_thread ();
  const uint32_t threads = blockDim.x * blockDim.y * blockDim.z;
  uint32_t columns = 1;
  uint32_t hist_addr = 0; /* this lane's column, as a shared-memory address */

  if constexpr (shared)
    {
      columns = ks_histogram_columns (CH, threads);
      hist_addr = (uint32_t) __cvta_generic_to_shared (ks_hist_smem)
                  + (tid % 32u & (columns - 1u)) * (uint32_t) sizeof (uint32_t);
    }

  /* What comes before the first count: the next launch counts into
   * next_bins, so the blocks clear the whole set together (every copy, all
   * four channels: the next launch may have more blocks, or count four
   * channels where this one counts one), with plain stores that nothing in
   * this launch reads; and the block's copies are cleared. Gray does it once
   * the walk has issued its first loads, so that the clears and the wait for
   * the block pass while those loads are on their way: at 8K on the H200 with
   * the op's 32×32 blocks, 0.0134–0.0136 ms → 0.0130–0.0132 on random pixels,
   * the photo and the test card. Four channels clear first: with their one
   * span ahead loaded before the clears, random pixels took 0.0471–0.0476 ms
   * against 0.0468–0.0470. */
  auto clear = [&] {
    const uint32_t blocks = gridDim.x * gridDim.y * gridDim.z;

    for (uint32_t i = ks_linear_block () * threads + tid; i < KS_HIST_SET_WORDS / 4u;
         i += blocks * threads)
      reinterpret_cast<uint4 *> (next_bins)[i] = make_uint4 (0u, 0u, 0u, 0u);
    if constexpr (shared)
      ks_histogram_clear (columns * n_bins, tid, threads);
  };
  auto start = [&] {
    if constexpr (CH == 1)
      clear ();
  };

  if constexpr (CH != 1)
    clear ();

  /* The walk, once with the columns of the usual block as a constant (the
   * address of a count is then a shift and an add, the channel's offset part
   * of the instruction) and once with them read at run time, for blocks of
   * fewer threads than that. */
  auto walk = [&] (auto fixed) -> bool {
    constexpr uint32_t fixed_columns = decltype (fixed)::value;
    const uint32_t cols = fixed_columns != 0 ? fixed_columns : columns;

    (void) cols; /* global atomics have no columns */

    /* Global atomics count one pixel and channel at a time, as the method says.
     * The shared copies of the four channels count a span whose pixels are all
     * equal with one atomic per channel, when every lane of the warp has such a
     * span: a warp issues its atomics for all lanes at once, so a lane that
     * skips them saves nothing while another lane still counts, and measured on
     * the H200 an atomic that only some lanes issue costs more than one that all
     * issue. On the test card at 8K this counts RGBA in 0.040 ms instead of 0.055. Gray
     * spans are not tested: the gray kernel is close to the time reading the
     * image takes (ks_histogram_read_kernel: 0.0118 ms of its 0.0132 at 8K),
     * and the test cost 3 % there. */
    auto count = [&] (uint32_t channel, uint32_t value, uint32_t k) {
      if constexpr (shared)
        ks_shared_add (hist_addr + (channel * KS_HIST_BINS + value) * cols * 4u, k);
      else
        atomicAdd (&bins[channel * KS_HIST_BINS + value], k);
    };

    /* The luma from the bytes the first three counts took (ks_luma601 would
     * take them out of the word again). */
    auto count_rgba = [&] (uint32_t p, uint32_t k) {
      const uint32_t r = ks_byte (p, 0), g = ks_byte (p, 1), b = ks_byte (p, 2);

      count (0, r, k);
      count (1, g, k);
      count (2, b, k);
      count (3, ks_luma601_rgb (r, g, b, 0), k);
    };

    auto load = [&] (uint32_t y, uint32_t x0, uint32_t n) {
      return ks_hist_load<CH, PPT> (src, pitch, y, x0, n);
    };

    auto use = [&] (const auto &s, uint32_t y, uint32_t x0, uint32_t n) {
      if (PPT == 1 || n == PPT)
        {
          if constexpr (CH == 4)
            {
              bool flat = shared && PPT > 1;
#pragma unroll
              for (uint32_t i = 1; i < PPT; i++)
                flat = flat && s.w[i] == s.w[0];
              if (shared && PPT > 1 && __all_sync (__activemask (), flat))
                count_rgba (s.w[0], PPT);
              else
                {
#pragma unroll
                  for (uint32_t i = 0; i < PPT; i++)
                    count_rgba (s.w[i], 1u);
                }
            }
          else
            {
#pragma unroll
              for (uint32_t i = 0; i < PPT; i++)
                count (0, ks_byte (s.w[i / 4], i % 4), 1u);
            }
        }
      else
        {
#pragma unroll
          for (uint32_t i = 0; i < PPT; i++)
            if (i < n)
              {
                if constexpr (CH == 4)
                  count_rgba (s.w[i], 1u);
                else
                  count (0, ks_byte (s.w[i / 4], i % 4), 1u);
              }
        }

      if constexpr (INSTRUMENTED)
        ks_coverage_record (cov, g.width, y, x0, n);
    };

    return ks_walk_spans_after<PPT, MODE, ks_hist_prefetch_depth (CH, PPT)> (g, start, load, use);
  };
  bool handled;

  if constexpr (shared)
    handled = columns == most_columns ? walk (KsColumnCount<most_columns> ())
                                      : walk (KsColumnCount<0> ());
  else
    handled = walk (KsColumnCount<1> ());

  if constexpr (INSTRUMENTED)
    {
      if (!handled)
        atomicAdd (cov.idle_threads, 1ull);
    }
  else
    (void) handled;

  if constexpr (shared)
    {
      /* The block's copies summed into its copy of this launch's counters
       * (KS_HIST_COPIES): one atomic per bin and block. With the copies a
       * compile-time count, eight loads of a sum are in flight at once: all
       * 32 of gray's took 40 registers a thread where the walk needs 32, and
       * two blocks of 1024 threads fit a multiprocessor only with 32 (the
       * op's block, ks-op-histogram.c). */
      uint32_t *const counters = bins + (ks_linear_block () % KS_HIST_COPIES) * KS_HIST_COPY_WORDS;

      /* A warp sums 32 consecutive bins, whose words lie most_columns apart:
       * lanes that would meet in a bank that way (every 32 / most_columns)
       * start at columns one apart, so each read of the warp meets 32 banks.
       * With 8 columns and every lane starting at its own, four lanes met in
       * each bank (Nsight Compute: four wavefronts a read). Fewer columns
       * than most_columns only come with blocks of fewer threads than that,
       * a part of one warp. */
      constexpr uint32_t most_apart = 32u / most_columns;

      __syncthreads ();
      for (uint32_t i = tid; i < n_bins; i += threads)
        {
          uint32_t sum = 0;
          if (columns == most_columns)
            {
#pragma unroll 8
              for (uint32_t c = 0; c < most_columns; c++)
                sum += ks_hist_smem[i * most_columns + ((c + tid / most_apart) & (most_columns - 1u))];
            }
          else
            for (uint32_t c = 0; c < columns; c++)
              sum += ks_hist_smem[i * columns + ((c + tid) & (columns - 1u))];
          if (sum != 0)
            atomicAdd (&counters[i], sum);
        }
    }
}

/* The histogram's other limit: reading the image. The walk and the loads of
 * ks_histogram_kernel, each span folded into one word and nothing counted; a
 * thread stores its word only when it equals a constant, so that the loads
 * stay live without a store of their own. Same arguments as the histogram
 * kernel, so that one chain of templates picks both: bins is one word per
 * block, next_bins and cov are not used. */
template <uint32_t CH, uint32_t PPT, uint32_t MODE>
__global__ void
ks_histogram_read_kernel (KsGeometry g,
                          const uint8_t *__restrict__ src, size_t pitch,
                          uint32_t *__restrict__ sink,
                          uint32_t *__restrict__ unused_bins,
                          KsCoverageBuffers unused_cov)
{
  uint32_t folded = 0;
  auto load = [&] (uint32_t y, uint32_t x0, uint32_t n) {
    return ks_hist_load<CH, PPT> (src, pitch, y, x0, n);
  };
  auto use = [&] (const KsHistSpan<CH, PPT> &s, uint32_t, uint32_t, uint32_t) {
#pragma unroll
    for (uint32_t i = 0; i < KsHistSpan<CH, PPT>::words; i++)
      folded ^= s.w[i];
  };

  (void) unused_bins;
  (void) unused_cov;
  (void) ks_walk_spans<PPT, MODE, ks_hist_prefetch_depth (CH, PPT)> (g, load, use);
  if (folded == KS_HIST_READ_MARK)
    sink[ks_linear_block ()] = folded;
}

typedef void (*KsHistKernel) (KsGeometry, const uint8_t *, size_t, uint32_t *, uint32_t *,
                               KsCoverageBuffers);

/* Not a KsHistogramMethod: picks ks_histogram_read_kernel. */
constexpr uint32_t KS_HIST_READ_ONLY = 0x100u;

template <uint32_t METHOD, uint32_t CH, uint32_t PPT, uint32_t MODE>
KsHistKernel
ks_hist_pick_instrumented (bool instrumented)
{
  if constexpr (METHOD == KS_HIST_READ_ONLY)
    return instrumented ? NULL : ks_histogram_read_kernel<CH, PPT, MODE>;
  else
    return instrumented ? ks_histogram_kernel<METHOD, CH, PPT, MODE, true>
                        : ks_histogram_kernel<METHOD, CH, PPT, MODE, false>;
}

template <uint32_t METHOD, uint32_t CH, uint32_t PPT>
KsHistKernel
ks_hist_pick_mode (uint32_t mode, bool instrumented)
{
  return mode == KS_MAP_GRID_STRIDE
           ? ks_hist_pick_instrumented<METHOD, CH, PPT, KS_MAP_GRID_STRIDE> (instrumented)
           : ks_hist_pick_instrumented<METHOD, CH, PPT, KS_MAP_PER_PIXEL> (instrumented);
}

template <uint32_t METHOD, uint32_t CH>
KsHistKernel
ks_hist_pick_ppt (uint32_t ppt, uint32_t mode, bool instrumented)
{
  switch (ppt)
    {
    case 1: return ks_hist_pick_mode<METHOD, CH, 1> (mode, instrumented);
    case 2: return ks_hist_pick_mode<METHOD, CH, 2> (mode, instrumented);
    case 4: return ks_hist_pick_mode<METHOD, CH, 4> (mode, instrumented);
    case 8: return ks_hist_pick_mode<METHOD, CH, 8> (mode, instrumented);
    case 16: return ks_hist_pick_mode<METHOD, CH, 16> (mode, instrumented);
    default: return NULL;
    }
}

template <uint32_t METHOD>
KsHistKernel
ks_hist_pick_channels (int channels, uint32_t ppt, uint32_t mode, bool instrumented)
{
  switch (channels)
    {
    case 1: return ks_hist_pick_ppt<METHOD, 1> (ppt, mode, instrumented);
    case KS_HIST_CHANNELS:
      return ks_hist_pick_ppt<METHOD, KS_HIST_CHANNELS> (ppt, mode, instrumented);
    default: return NULL;
    }
}

/* NULL when the method, the channels, the pixels per thread or the mode is not
 * one we instantiate. The rest of the geometry does not choose the kernel. */
KsHistKernel
ks_hist_pick (KsHistogramMethod method, const KsGeometry *g, int channels, bool instrumented)
{
  const uint32_t ppt = g->pixels_per_thread;
  const uint32_t mode = g->mode;

  if (mode != KS_MAP_PER_PIXEL && mode != KS_MAP_GRID_STRIDE)
    return NULL;

  switch (method)
    {
    case KS_HIST_GLOBAL_ATOMICS:
      return ks_hist_pick_channels<KS_HIST_GLOBAL_ATOMICS> (channels, ppt, mode, instrumented);
    case KS_HIST_SHARED:
      return ks_hist_pick_channels<KS_HIST_SHARED> (channels, ppt, mode, instrumented);
    default:
      return NULL;
    }
}

/* The limit the shared method is bound by: shared-memory atomics into the
 * same interleaved copies of the bins, from blocks and a grid like the
 * histogram's, at the bins the histogram meets on uniformly random pixels,
 * and nothing else: no global memory touched and no work per atomic beyond
 * the atomic. Each thread draws KS_LIMIT_SLOTS bins once (an xorshift; one
 * byte of the draw a gray bin, or R, G, B and the luma of those three for the
 * four channels, as the kernel counts a pixel) and then issues `count`
 * atomics at them in turn. A warp's atomic thus meets the banks as the
 * kernel's do, each lane at an independent random bin. Drawing a bin per
 * atomic instead, the draws themselves bound the kernel: measured with Nsight
 * Compute on the H200 at 8K, the ALU pipe was 84 % busy in the gray limit and
 * computing the luma per atomic made the four-channel one 8 % slower. */
constexpr uint32_t KS_LIMIT_SLOTS = KS_SHARED_ATOMICS_GROUP;

template <uint32_t CH>
__global__ void
ks_shared_atomics_kernel (uint32_t count, uint32_t seed, uint32_t *sink)
{
  extern __shared__ uint32_t ks_hist_smem[];
  constexpr uint32_t n_bins = CH * KS_HIST_BINS;
  const uint32_t tid = ks_linear_thread ();
  const uint32_t threads = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t columns = ks_histogram_columns (CH, threads);
  const uint32_t base = (uint32_t) __cvta_generic_to_shared (ks_hist_smem)
                        + (tid % 32u & (columns - 1u)) * (uint32_t) sizeof (uint32_t);
  uint32_t x = (seed ^ (ks_linear_block () * threads + tid) * 0x9e3779b9u) | 1u;
  uint32_t slot[KS_LIMIT_SLOTS];

  ks_histogram_clear (columns * n_bins, tid, threads);

#pragma unroll
  for (uint32_t j = 0; j < KS_LIMIT_SLOTS; j += 4)
    {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
#pragma unroll
      for (uint32_t k = 0; k < 4; k++)
        {
          const uint32_t bin = CH == 4 ? k * KS_HIST_BINS + (k == 3 ? ks_luma601 (x, 0) : ks_byte (x, k))
                                       : ks_byte (x, k);
          slot[j + k] = base + bin * columns * 4u;
        }
    }

  for (uint32_t i = 0; i < count; i += KS_LIMIT_SLOTS)
    {
#pragma unroll
      for (uint32_t k = 0; k < KS_LIMIT_SLOTS; k++)
        ks_shared_add (slot[k], 1u);
    }

  /* One word a block leaves the kernel, so that nothing above is dead. */
  __syncthreads ();
  if (tid == 0)
    sink[ks_linear_block ()] = ks_hist_smem[0];
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_shared_atomics_launch (int channels, KsDim3 grid, KsDim3 block, uint32_t per_thread,
                               uint32_t *sink, cudaStream_t stream)
{
  const size_t shared_bytes = ks_cuda_histogram_shared_bytes (KS_HIST_SHARED, channels, block);

  if ((channels != 1 && channels != KS_HIST_CHANNELS) || sink == NULL || per_thread == 0
      || per_thread % KS_SHARED_ATOMICS_GROUP != 0
      || grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0
      || block.z == 0)
    return cudaErrorInvalidValue;
  void (*kernel) (uint32_t, uint32_t, uint32_t *) = channels == 1
                                                      ? ks_shared_atomics_kernel<1>
                                                      : ks_shared_atomics_kernel<KS_HIST_CHANNELS>;
  const cudaError_t err = ks_cuda_allow_shared (reinterpret_cast<const void *> (kernel),
                                                shared_bytes);

  if (err != cudaSuccess)
    return err;
  kernel<<<ks_dim3 (grid), ks_dim3 (block), shared_bytes, stream>>> (per_thread, 0x2545f491u, sink);
  return cudaGetLastError ();
}

extern "C" size_t
ks_cuda_histogram_shared_bytes (KsHistogramMethod method, int channels, KsDim3 block)
{
  const uint64_t threads = (uint64_t) block.x * block.y * block.z;

  if (channels != 1 && channels != KS_HIST_CHANNELS)
    return 0;
  /* The same function as the engine's attributes, so what it reports is what
   * the launch asks for. Blocks over 1024 threads cannot launch; the clamp only
   * keeps the product from wrapping. */
  return ks_histogram_shared_bytes (method, (uint32_t) channels,
                                    threads > 1024 ? 1024u : (uint32_t) threads);
}

extern "C" cudaError_t
ks_cuda_histogram_launch (KsHistogramMethod method,
                          KsGeometry geom,
                          int channels,
                          const uint8_t *src, size_t pitch,
                          uint32_t *bins, uint64_t generation,
                          KsCoverageBuffers cov,
                          cudaStream_t stream)
{
  const KsHistKernel kernel = ks_hist_pick (method, &geom, channels, cov.writes != NULL);
  const size_t shared_bytes = ks_cuda_histogram_shared_bytes (method, channels, geom.block);

  if (kernel == NULL || bins == NULL || !ks_geometry_is_valid (&geom)
      || !ks_coverage_is_valid (&cov)
      || !ks_buffer_is_valid (src, pitch, geom.width, (uint32_t) channels, geom.pixels_per_thread))
    return cudaErrorInvalidValue;

  const cudaError_t err = ks_cuda_allow_shared (reinterpret_cast<const void *> (kernel),
                                                shared_bytes);
  if (err != cudaSuccess)
    return err;
  /* Both methods add to this launch's set, which the launch before cleared. */
  kernel<<<ks_dim3 (geom.grid), ks_dim3 (geom.block), shared_bytes, stream>>> (
    geom, src, pitch, bins + ks_histogram_set_offset (generation),
    bins + ks_histogram_set_offset (generation + 1u), cov);
  return cudaGetLastError ();
}

extern "C" cudaError_t
ks_cuda_histogram_read_launch (KsGeometry geom, int channels, const uint8_t *src, size_t pitch,
                               uint32_t *sink, cudaStream_t stream)
{
  const KsHistKernel kernel = geom.mode == KS_MAP_PER_PIXEL || geom.mode == KS_MAP_GRID_STRIDE
                                ? ks_hist_pick_channels<KS_HIST_READ_ONLY> (
                                    channels, geom.pixels_per_thread, geom.mode, false)
                                : NULL;
  const KsCoverageBuffers none = {};

  if (kernel == NULL || sink == NULL || !ks_geometry_is_valid (&geom)
      || !ks_buffer_is_valid (src, pitch, geom.width, (uint32_t) channels, geom.pixels_per_thread))
    return cudaErrorInvalidValue;
  kernel<<<ks_dim3 (geom.grid), ks_dim3 (geom.block), 0, stream>>> (geom, src, pitch, sink, NULL,
                                                                     none);
  return cudaGetLastError ();
}

extern "C" cudaError_t
ks_cuda_histogram_attributes (KsHistogramMethod method,
                              KsGeometry geom,
                              int channels,
                              int instrumented,
                              struct cudaFuncAttributes *attr)
{
  const KsHistKernel kernel = ks_hist_pick (method, &geom, channels, instrumented != 0);

  if (kernel == NULL || attr == NULL)
    return cudaErrorInvalidValue;
  return cudaFuncGetAttributes (attr, reinterpret_cast<const void *> (kernel));
}

extern "C" cudaError_t
ks_cuda_histogram_occupancy (KsHistogramMethod method, KsGeometry geom, int channels,
                             int instrumented, size_t shared, int *blocks)
{
  const KsHistKernel kernel = ks_hist_pick (method, &geom, channels, instrumented != 0);
  cudaError_t err;

  if (kernel == NULL || blocks == NULL)
    return cudaErrorInvalidValue;
  err = ks_cuda_allow_shared (reinterpret_cast<const void *> (kernel), shared);
  if (err != cudaSuccess)
    return err;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor (blocks, kernel, (int) (geom.block.x * geom.block.y * geom.block.z),
                                                        shared);
}
