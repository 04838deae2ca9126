/* ks-filter.cu: the neighbourhood filters of ks-filter.h (box and Gaussian
 * blur, unsharp mask, Sobel), one fused kernel per kind.
 *
 * A block computes a tile of blockDim.x·PPT × blockDim.y output pixels. The
 * separable kinds read the tile's source rows with their halo (clamped to the
 * edge) into shared memory a chunk at a time, run the rows pass into shared
 * 32-bit sums, and every thread adds the chunk's rows into the column sums it
 * keeps in registers for its own PPT pixels; nothing intermediate goes to
 * global memory. Sobel loads the tile's luma with a one-pixel halo as bytes.
 *
 * Threads write exactly the pixels of the traversal in ks-geometry.cuh: the
 * thread (gx, gy) owns pixels [gx·PPT, gx·PPT + PPT) of row gy, and in
 * grid-stride mode the same position in every tile its block visits, so the
 * coverage matches the CPU engine's. Every thread of a block loads and
 * synchronises, whatever its shape (1×1 included), even when it owns no pixel.
 */

#include "ks-kernels.h"
#include "ks-geometry.cuh"
#include "ks-pixel.h"

namespace {

template <uint32_t PPT>
__device__ __forceinline__ void
ks_filter_store_rgba (uint8_t *__restrict__ row, uint32_t x0, uint32_t n, const uint32_t (&r)[PPT])
{
  uint32_t *p = reinterpret_cast<uint32_t *> (row) + x0;

  if (PPT == 1 || n == PPT)
    {
      if constexpr (PPT >= 4)
        {
#pragma unroll
          for (uint32_t i = 0; i < PPT / 4; i++)
            reinterpret_cast<uint4 *> (p)[i] = make_uint4 (r[4 * i], r[4 * i + 1],
                                                           r[4 * i + 2], r[4 * i + 3]);
        }
      else if constexpr (PPT == 2)
        *reinterpret_cast<uint2 *> (p) = make_uint2 (r[0], r[1]);
      else
        p[0] = r[0];
    }
  else
    {
#pragma unroll
      for (uint32_t i = 0; i < PPT; i++)
        if (i < n)
          p[i] = r[i];
    }
}

template <uint32_t PPT>
__device__ __forceinline__ void
ks_filter_store_gray (uint8_t *__restrict__ row, uint32_t x0, uint32_t n, const uint32_t (&r)[PPT])
{
  uint8_t *p = row + x0;

  if (PPT >= 4 && n == PPT)
    {
      uint32_t w[(PPT + 3) / 4];
#pragma unroll
      for (uint32_t k = 0; k < (PPT + 3) / 4; k++)
        w[k] = __byte_perm (__byte_perm (r[4 * k], r[4 * k + 1], 0x0040),
                            __byte_perm (r[4 * k + 2], r[4 * k + 3], 0x0040), 0x5410);
      if constexpr (PPT == 16)
        *reinterpret_cast<uint4 *> (p) = make_uint4 (w[0], w[1], w[2], w[3]);
      else if constexpr (PPT == 8)
        *reinterpret_cast<uint2 *> (p) = make_uint2 (w[0], w[1]);
      else
        *reinterpret_cast<uint32_t *> (p) = w[0];
    }
  else
    {
#pragma unroll
      for (uint32_t i = 0; i < PPT; i++)
        if (i < n)
          p[i] = (uint8_t) r[i];
    }
}

/* PPT consecutive shared words from a 4·PPT-byte aligned address: vector loads
 * (a warp reading consecutive vectors is conflict-free). */
template <uint32_t PPT>
__device__ __forceinline__ void
ks_lds_words (const uint32_t *p, uint32_t (&w)[PPT])
{
  if constexpr (PPT >= 4)
    {
#pragma unroll
      for (uint32_t i = 0; i < PPT / 4; i++)
        {
          const uint4 v = reinterpret_cast<const uint4 *> (p)[i];
          w[4 * i + 0] = v.x;
          w[4 * i + 1] = v.y;
          w[4 * i + 2] = v.z;
          w[4 * i + 3] = v.w;
        }
    }
  else if constexpr (PPT == 2)
    {
      const uint2 v = *reinterpret_cast<const uint2 *> (p);
      w[0] = v.x;
      w[1] = v.y;
    }
  else
    w[0] = p[0];
}

/* Where a block's tiles start and how it steps between them. In per-pixel
 * mode a block has one tile; in grid-stride mode it walks the tiles that
 * ks_walk_spans makes its threads visit: x by the grid's width in pixels,
 * then y by its height, back to the first column. */
struct KsTileWalk
{
  uint32_t x0, y0;    /* the first tile */
  uint32_t sx, sy;    /* the strides, sx capped at the width as in ks_walk_spans */
};

template <uint32_t PPT>
__device__ __forceinline__ bool
ks_tile_walk_init (const KsGeometry &g, KsTileWalk &w)
{
  const uint64_t x0 = (uint64_t) blockIdx.x * blockDim.x * PPT;
  const uint64_t y0 = (uint64_t) blockIdx.y * blockDim.y;
  const uint64_t sx = (uint64_t) gridDim.x * blockDim.x * PPT;

  if (blockIdx.z != 0 || x0 >= g.width || y0 >= g.height)
    return false;
  w.x0 = (uint32_t) x0;
  w.y0 = (uint32_t) y0;
  w.sx = sx < g.width ? (uint32_t) sx : g.width;
  w.sy = gridDim.y * blockDim.y;
  return true;
}

/* Runs tile (tx0, ty0) for every tile of the block. Overflow-free steps as in
 * ks_walk_spans. */
template <uint32_t MODE, typename Tile>
__device__ __forceinline__ void
ks_tile_walk (const KsGeometry &g, const KsTileWalk &w, Tile &&tile)
{
  if constexpr (MODE == KS_MAP_PER_PIXEL)
    tile (w.x0, w.y0);
  else
    {
      for (uint32_t ty0 = w.y0;;)
        {
          for (uint32_t tx0 = w.x0;;)
            {
              tile (tx0, ty0);
              if (g.width - tx0 <= w.sx)
                break;
              tx0 += w.sx;
            }
          if (g.height - ty0 <= w.sy)
            break;
          ty0 += w.sy;
        }
    }
}

/* Whether this thread owns any pixel at all (its position in the block's
 * first tile): the others count as idle, as in ks_walk_spans. */
template <uint32_t PPT>
__device__ __forceinline__ bool
ks_thread_is_busy (const KsGeometry &g)
{
  const uint64_t gx = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) * PPT;
  const uint32_t gy = blockIdx.y * blockDim.y + threadIdx.y;
  const uint32_t gz = blockIdx.z * blockDim.z + threadIdx.z;

  return gz == 0 && gy < g.height && gx < g.width;
}

/* Box, Gaussian (UNSHARP false) and unsharp mask (UNSHARP true).
 *
 * No __launch_bounds__, for the reason given in ks-elementwise.cu. */
template <bool UNSHARP, uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_separable_kernel (KsGeometry g, KsFilterParams p,
                     const uint8_t *__restrict__ src, size_t src_pitch,
                     uint8_t *__restrict__ out, size_t out_pitch,
                     KsCoverageBuffers cov)
{
  extern __shared__ uint4 ks_filter_smem[];
  __shared__ int32_t taps[2 * KS_FILTER_MAX_RADIUS + 1];

  const uint32_t r = (uint32_t) p.radius;
  const uint32_t n_taps = 2u * r + 1u;
  const uint32_t tid = ks_linear_thread ();
  const uint32_t n_threads = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t out_cols = blockDim.x * PPT;
  const KsDim3 block = { blockDim.x, blockDim.y, blockDim.z };
  const uint32_t chunk_rows = ks_filter_chunk_rows (&p, block, PPT);
  const uint32_t stride = (uint32_t) ks_filter_tile_stride (r, out_cols);
  const uint32_t pad = (r + 3u) & ~3u;
  uint32_t *tile = reinterpret_cast<uint32_t *> (ks_filter_smem);
  uint32_t *sums = tile + (size_t) chunk_rows * stride; /* [3][chunk_rows][out_cols] */
  const size_t plane = (size_t) chunk_rows * out_cols;
  /* The interior of a source row is read with 16-byte loads when the rows
   * and every tile's first column are 16-byte aligned. */
  const bool vec = ((uintptr_t) src % 16u == 0) && (src_pitch % 16u == 0) && (out_cols % 4u == 0);
  KsTileWalk walk;

  if constexpr (INSTRUMENTED)
    {
      if (!ks_thread_is_busy<PPT> (g))
        atomicAdd (cov.idle_threads, 1ull);
    }
  /* The whole block leaves together, before any barrier. */
  if (!ks_tile_walk_init<PPT> (g, walk))
    return;

  for (uint32_t k = tid; k < n_taps; k += n_threads)
    taps[k] = p.taps[k];

  auto do_tile = [&] (uint32_t tx0, uint32_t ty0) {
    const uint32_t ox = tx0 + threadIdx.x * PPT;
    const uint32_t oy = ty0 + threadIdx.y;
    const bool mine = threadIdx.z == 0 && ox < g.width && oy < g.height;
    const uint32_t cols = min (out_cols, g.width - tx0);
    const uint32_t rows_out = min (blockDim.y, g.height - ty0);
    const uint32_t total = rows_out + 2u * r;
    const uint32_t row_words = cols + 2u * r;
    const int32_t sx0 = (int32_t) tx0 - (int32_t) r;
    const int32_t last_x = (int32_t) g.width - 1;
    const int32_t last_y = (int32_t) g.height - 1;
    uint32_t acc[3][PPT];

#pragma unroll
    for (uint32_t i = 0; i < PPT; i++)
      acc[0][i] = acc[1][i] = acc[2][i] = 0u;

    for (uint32_t c0 = 0; c0 < total; c0 += chunk_rows)
      {
        const uint32_t rows = min (chunk_rows, total - c0);
        const int32_t sy0 = (int32_t) ty0 - (int32_t) r + (int32_t) c0;

        /* Load the chunk. The halo (and, unaligned, everything) word by word
         * with clamped coordinates; the interior of aligned tiles by vectors. */
        if (vec)
          {
            const uint32_t n_vec = cols / 4u;
            for (uint32_t k = tid; k < rows * n_vec; k += n_threads)
              {
                const uint32_t row = k / n_vec, v = k % n_vec;
                const int32_t sy = ks_clamp_i32 (sy0 + (int32_t) row, 0, last_y);
                const uint4 *s = reinterpret_cast<const uint4 *> (src + (size_t) sy * src_pitch
                                                                  + (size_t) tx0 * 4u);
                reinterpret_cast<uint4 *> (tile + (size_t) row * stride + pad)[v] = __ldg (s + v);
              }
            const uint32_t n_rest = row_words - 4u * n_vec;
            for (uint32_t k = tid; k < rows * n_rest; k += n_threads)
              {
                const uint32_t row = k / n_rest;
                uint32_t col = k % n_rest; /* left halo, the interior's tail, right halo */
                col = col < r ? col : col + 4u * n_vec;
                const int32_t sy = ks_clamp_i32 (sy0 + (int32_t) row, 0, last_y);
                const int32_t sx = ks_clamp_i32 (sx0 + (int32_t) col, 0, last_x);
                tile[(size_t) row * stride + pad - r + col] =
                  __ldg (reinterpret_cast<const uint32_t *> (src + (size_t) sy * src_pitch) + sx);
              }
          }
        else
          {
            for (uint32_t k = tid; k < rows * row_words; k += n_threads)
              {
                const uint32_t row = k / row_words, col = k % row_words;
                const int32_t sy = ks_clamp_i32 (sy0 + (int32_t) row, 0, last_y);
                const int32_t sx = ks_clamp_i32 (sx0 + (int32_t) col, 0, last_x);
                tile[(size_t) row * stride + pad - r + col] =
                  __ldg (reinterpret_cast<const uint32_t *> (src + (size_t) sy * src_pitch) + sx);
              }
          }
        __syncthreads ();

        /* The rows pass: consecutive threads take consecutive columns, so
         * their shared reads and writes fall in distinct banks. */
        for (uint32_t k = tid; k < rows * cols; k += n_threads)
          {
            const uint32_t row = k / cols, col = k % cols;
            const uint32_t *s = tile + (size_t) row * stride + pad - r + col;
            uint32_t sr = 0, sg = 0, sb = 0;

            for (uint32_t t = 0; t < n_taps; t++)
              {
                const uint32_t v = s[t];
                const uint32_t w = (uint32_t) taps[t];
                sr += w * KS_R (v);
                sg += w * KS_G (v);
                sb += w * KS_B (v);
              }
            const size_t o = (size_t) row * out_cols + col;
            sums[o] = sr;
            sums[plane + o] = sg;
            sums[2 * plane + o] = sb;
          }
        __syncthreads ();

        /* The columns pass for the chunk's rows that reach this thread's
         * output row: source row c0 + row is tap c0 + row − threadIdx.y. */
        if (mine)
          {
            const int32_t j0 = (int32_t) c0 - (int32_t) threadIdx.y;
            const uint32_t first = j0 < 0 ? (uint32_t) -j0 : 0u;
            const int32_t end_i = (int32_t) n_taps - j0;
            const uint32_t end = end_i <= 0 ? 0u : min (rows, (uint32_t) end_i);

            for (uint32_t row = first; row < end; row++)
              {
                const uint32_t w = (uint32_t) taps[j0 + (int32_t) row];
                const size_t o = (size_t) row * out_cols + threadIdx.x * PPT;
                uint32_t vr[PPT], vg[PPT], vb[PPT];

                ks_lds_words<PPT> (sums + o, vr);
                ks_lds_words<PPT> (sums + plane + o, vg);
                ks_lds_words<PPT> (sums + 2 * plane + o, vb);
#pragma unroll
                for (uint32_t i = 0; i < PPT; i++)
                  {
                    acc[0][i] += w * vr[i];
                    acc[1][i] += w * vg[i];
                    acc[2][i] += w * vb[i];
                  }
              }
          }
        /* The next chunk overwrites the tile only after every thread has
         * finished the rows pass (the barrier above); the sums only after
         * every thread has passed the next chunk's first barrier. */
      }

    if (mine)
      {
        const uint32_t n = min (PPT, g.width - ox);
        const uint32_t d = (uint32_t) p.divisor;
        const uint32_t half = d / 2u;
        uint32_t px[PPT], res[PPT];

        ks_load_rgba<PPT> (src + (size_t) oy * src_pitch, ox, n, px);
#pragma unroll
        for (uint32_t i = 0; i < PPT; i++)
          {
            const uint32_t br = (acc[0][i] + half) / d;
            const uint32_t bg = (acc[1][i] + half) / d;
            const uint32_t bb = (acc[2][i] + half) / d;
            if constexpr (UNSHARP)
              res[i] = KS_RGBA (ks_unsharp_channel ((int32_t) KS_R (px[i]), (int32_t) br, p.amount),
                                ks_unsharp_channel ((int32_t) KS_G (px[i]), (int32_t) bg, p.amount),
                                ks_unsharp_channel ((int32_t) KS_B (px[i]), (int32_t) bb, p.amount),
                                KS_A (px[i]));
            else
              res[i] = KS_RGBA (br, bg, bb, KS_A (px[i]));
          }
        ks_filter_store_rgba<PPT> (out + (size_t) oy * out_pitch, ox, n, res);
        if constexpr (INSTRUMENTED)
          ks_coverage_record (cov, g.width, oy, ox, n);
      }
  };

  ks_tile_walk<MODE> (g, walk, do_tile);
}

/* Sobel on the rounded BT.601 luma, into GRAY8. */
template <uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_sobel_kernel (KsGeometry g, KsFilterParams p,
                 const uint8_t *__restrict__ src, size_t src_pitch,
                 uint8_t *__restrict__ out, size_t out_pitch,
                 KsCoverageBuffers cov)
{
  extern __shared__ uint4 ks_filter_smem[];
  uint8_t *luma = reinterpret_cast<uint8_t *> (ks_filter_smem);
  const uint32_t tid = ks_linear_thread ();
  const uint32_t n_threads = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t stride = blockDim.x * PPT + 2u;
  const int32_t mode = p.sobel_mode;
  KsTileWalk walk;

  if constexpr (INSTRUMENTED)
    {
      if (!ks_thread_is_busy<PPT> (g))
        atomicAdd (cov.idle_threads, 1ull);
    }
  if (!ks_tile_walk_init<PPT> (g, walk))
    return;

  auto do_tile = [&] (uint32_t tx0, uint32_t ty0) {
    const uint32_t ox = tx0 + threadIdx.x * PPT;
    const uint32_t oy = ty0 + threadIdx.y;
    const bool mine = threadIdx.z == 0 && ox < g.width && oy < g.height;
    const uint32_t tw = min (blockDim.x * PPT, g.width - tx0) + 2u;
    const uint32_t th = min (blockDim.y, g.height - ty0) + 2u;
    const int32_t last_x = (int32_t) g.width - 1;
    const int32_t last_y = (int32_t) g.height - 1;

    for (uint32_t k = tid; k < tw * th; k += n_threads)
      {
        const uint32_t row = k / tw, col = k % tw;
        const int32_t sy = ks_clamp_i32 ((int32_t) ty0 - 1 + (int32_t) row, 0, last_y);
        const int32_t sx = ks_clamp_i32 ((int32_t) tx0 - 1 + (int32_t) col, 0, last_x);
        const uint32_t v =
          __ldg (reinterpret_cast<const uint32_t *> (src + (size_t) sy * src_pitch) + sx);
        luma[(size_t) row * stride + col] = (uint8_t) ks_luma601 (v, 0);
      }
    __syncthreads ();

    if (mine)
      {
        const uint32_t n = min (PPT, g.width - ox);
        const uint8_t *t = luma + (size_t) threadIdx.y * stride + threadIdx.x * PPT;
        uint32_t res[PPT];

#pragma unroll
        for (uint32_t i = 0; i < PPT; i++)
          {
            /* Pixels past the right edge read inside the tile's row stride
             * (or stale bytes) and are never stored. */
            const int32_t a0 = t[i], a1 = t[i + 1], a2 = t[i + 2];
            const int32_t b0 = t[stride + i], b2 = t[stride + i + 2];
            const int32_t c0 = t[2 * stride + i], c1 = t[2 * stride + i + 1];
            const int32_t c2 = t[2 * stride + i + 2];
            const int32_t gx = (a2 + 2 * b2 + c2) - (a0 + 2 * b0 + c0);
            const int32_t gy = (c0 + 2 * c1 + c2) - (a0 + 2 * a1 + a2);
            res[i] = ks_sobel_value (gx, gy, mode);
          }
        ks_filter_store_gray<PPT> (out + (size_t) oy * out_pitch, ox, n, res);
        if constexpr (INSTRUMENTED)
          ks_coverage_record (cov, g.width, oy, ox, n);
      }
    /* The next tile's loads overwrite what this one's threads still read. */
    __syncthreads ();
  };

  ks_tile_walk<MODE> (g, walk, do_tile);
}

typedef void (*KsFilterKernel) (KsGeometry, KsFilterParams, const uint8_t *, size_t, uint8_t *,
                                size_t, KsCoverageBuffers);

template <uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
KsFilterKernel
ks_filter_pick_kind (int32_t kind)
{
  switch (kind)
    {
    case KS_FILTER_SEPARABLE: return ks_separable_kernel<false, PPT, MODE, INSTRUMENTED>;
    case KS_FILTER_UNSHARP: return ks_separable_kernel<true, PPT, MODE, INSTRUMENTED>;
    case KS_FILTER_SOBEL: return ks_sobel_kernel<PPT, MODE, INSTRUMENTED>;
    default: return NULL;
    }
}

template <uint32_t PPT, uint32_t MODE>
KsFilterKernel
ks_filter_pick_instrumented (int32_t kind, bool instrumented)
{
  return instrumented ? ks_filter_pick_kind<PPT, MODE, true> (kind)
                      : ks_filter_pick_kind<PPT, MODE, false> (kind);
}

template <uint32_t PPT>
KsFilterKernel
ks_filter_pick_mode (int32_t kind, uint32_t mode, bool instrumented)
{
  return mode == KS_MAP_GRID_STRIDE
           ? ks_filter_pick_instrumented<PPT, KS_MAP_GRID_STRIDE> (kind, instrumented)
           : ks_filter_pick_instrumented<PPT, KS_MAP_PER_PIXEL> (kind, instrumented);
}

KsFilterKernel
ks_filter_pick (const KsFilterParams *p, const KsGeometry *g, bool instrumented)
{
  if (g->mode != KS_MAP_PER_PIXEL && g->mode != KS_MAP_GRID_STRIDE)
    return NULL;
  switch (g->pixels_per_thread)
    {
    case 1: return ks_filter_pick_mode<1> (p->kind, g->mode, instrumented);
    case 2: return ks_filter_pick_mode<2> (p->kind, g->mode, instrumented);
    case 4: return ks_filter_pick_mode<4> (p->kind, g->mode, instrumented);
    case 8: return ks_filter_pick_mode<8> (p->kind, g->mode, instrumented);
    case 16: return ks_filter_pick_mode<16> (p->kind, g->mode, instrumented);
    default: return NULL;
    }
}

bool
ks_filter_params_are_valid (const KsFilterParams *p)
{
  if (p->kind == KS_FILTER_SOBEL)
    return p->radius == 1 && p->sobel_mode >= KS_SOBEL_HORIZONTAL
           && p->sobel_mode <= KS_SOBEL_MAGNITUDE;
  if (p->kind != KS_FILTER_SEPARABLE && p->kind != KS_FILTER_UNSHARP)
    return false;
  if (p->radius < 0 || p->radius > KS_FILTER_MAX_RADIUS || p->divisor <= 0)
    return false;
  /* Σ taps ≤ 1024 with non-negative taps keeps every sum inside 32 bits. */
  int64_t sum = 0;
  for (int32_t k = 0; k <= 2 * p->radius; k++)
    {
      if (p->taps[k] < 0)
        return false;
      sum += p->taps[k];
    }
  return sum >= 1 && sum <= 1024 && p->divisor == sum * sum;
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_filter_launch (KsGeometry geom, const KsFilterParams *params,
                       const uint8_t *src, size_t src_pitch,
                       uint8_t *out, size_t out_pitch,
                       KsCoverageBuffers cov, cudaStream_t stream)
{
  const bool instrumented = cov.writes != NULL;
  KsFilterKernel kernel;
  const uint32_t ppt = geom.pixels_per_thread;
  size_t shared;

  if (params == NULL || !ks_filter_params_are_valid (params) || !ks_geometry_is_valid (&geom)
      || !ks_coverage_is_valid (&cov))
    return cudaErrorInvalidValue;
  kernel = ks_filter_pick (params, &geom, instrumented);
  if (kernel == NULL)
    return cudaErrorInvalidValue;
  /* The source is read as words (and 16-byte vectors only where the kernel
   * checks the alignment itself); the output as the traversal's spans. */
  if (!ks_buffer_is_valid (src, src_pitch, geom.width, 4, 1) || src_pitch % 4 != 0
      || !ks_buffer_is_valid (out, out_pitch, geom.width,
                              params->kind == KS_FILTER_SOBEL ? 1 : 4, ppt))
    return cudaErrorInvalidValue;
  /* Centre pixels are read with the traversal's vectors too. */
  if (params->kind != KS_FILTER_SOBEL && !ks_buffer_is_valid (src, src_pitch, geom.width, 4, ppt))
    return cudaErrorInvalidValue;

  shared = ks_filter_shared_bytes (params, geom.block, ppt);
  if (shared > 48u * 1024u)
    {
      /* Past 48 KB a kernel must opt in, up to the device's limit. */
      int device = 0, optin = 0;
      cudaError_t err = cudaGetDevice (&device);
      if (err == cudaSuccess)
        err = cudaDeviceGetAttribute (&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      if (err != cudaSuccess)
        return err;
      if (shared > (size_t) optin)
        return cudaErrorInvalidValue;
      err = cudaFuncSetAttribute (reinterpret_cast<const void *> (kernel),
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared);
      if (err != cudaSuccess)
        return err;
    }

  kernel<<<ks_dim3 (geom.grid), ks_dim3 (geom.block), shared, stream>>> (geom, *params, src,
                                                                          src_pitch, out,
                                                                          out_pitch, cov);
  return cudaGetLastError ();
}

extern "C" cudaError_t
ks_cuda_filter_attributes (const KsFilterParams *params, KsGeometry geom, int instrumented,
                           struct cudaFuncAttributes *attr)
{
  KsFilterKernel kernel;

  if (params == NULL || attr == NULL)
    return cudaErrorInvalidValue;
  kernel = ks_filter_pick (params, &geom, instrumented != 0);
  if (kernel == NULL)
    return cudaErrorInvalidValue;
  return cudaFuncGetAttributes (attr, reinterpret_cast<const void *> (kernel));
}
