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

/* What the launcher derives from the parameters once, for every thread: the
 * divisor as a multiply and a shift (a 32-bit division is a long sequence per
 * quotient; the blur needs three per pixel), and whether the taps are
 * symmetric (box, Gaussian), which the unrolled rows pass requires. */
struct KsFilterAux
{
  uint32_t div_m;     /* ceil(2^div_k / divisor) */
  uint32_t div_k;     /* 31 + floor(log2 divisor) */
  uint32_t symmetric; /* taps[i] == taps[2r − i] for every i */
  uint32_t pow2;      /* the divisor is 2^(div_k − 31) (the Gaussians' 2^20) */
};

/* floor(n / divisor), exact for n < 2^30: with e = div_m·divisor − 2^div_k
 * < divisor and 2^div_k > 2^30·divisor, n·e < 2^div_k. The blur's
 * numerators stay below 256·divisor ≤ 2^28. */
__device__ __forceinline__ uint32_t
ks_div_magic (uint32_t n, const KsFilterAux &a)
{
  return (uint32_t) (((uint64_t) n * a.div_m) >> a.div_k);
}

/* floor(n / divisor): a shift for a power of two, else the multiply. The
 * choice is the same for every thread of a launch. */
__device__ __forceinline__ uint32_t
ks_filter_divide (uint32_t n, const KsFilterAux &a)
{
  return a.pow2 ? n >> (a.div_k - 31u) : ks_div_magic (n, a);
}

/* Channel C (0 R, 1 G, 2 B) of a packed pixel: one instruction each. */
template <uint32_t C>
__device__ __forceinline__ uint32_t
ks_channel (uint32_t v)
{
  if constexpr (C == 0)
    return v & 0xffu;
  else
    return __byte_perm (v, 0u, C == 1 ? 0x4441u : 0x4442u);
}

template <uint32_t N>
struct KsConst
{
  static constexpr uint32_t value = N;
};

/* Four source words into a shared row at word wi, from source column x
 * (clamped to [0, last_x]): one 16-byte load and store when the four are
 * inside the row and aligned, else word by word, never past the row's stride. */
__device__ __forceinline__ void
ks_fill_words (uint32_t *srow, uint32_t wi, uint32_t stride, const uint32_t *grow, int32_t x,
               int32_t last_x, bool vec)
{
  if (vec && x >= 0 && x + 3 <= last_x && wi + 4u <= stride)
    *reinterpret_cast<uint4 *> (srow + wi) = __ldg (reinterpret_cast<const uint4 *> (grow + x));
  else
    {
#pragma unroll
      for (uint32_t j = 0; j < 4; j++)
        if (wi + j < stride)
          srow[wi + j] = __ldg (grow + ks_clamp_i32 (x + (int32_t) j, 0, last_x));
    }
}

/* The rows pass for Q consecutive outputs at column c of a shared row (trow[u]
 * is source column tx0 + u) with a radius known at compile time and
 * symmetric taps w[0 .. R] (w[R] the centre): the window is read once (16-byte
 * loads for Q = 4, from the aligned pad of R rounded up to 4), each word
 * unpacked once per channel, and each mirrored pair added before its multiply. */
template <uint32_t R, uint32_t Q>
__device__ __forceinline__ void
ks_rows_fixed (const uint32_t *trow, uint32_t c, const uint32_t (&w)[R + 1],
               uint32_t (&h)[3][Q])
{
  constexpr uint32_t P4 = (R + 3u) / 4u * 4u;
  constexpr uint32_t NW = Q == 4 ? Q + 2u * P4 : Q + 2u * R;
  constexpr uint32_t OFF = Q == 4 ? P4 - R : 0u;
  uint32_t x[NW];

  if constexpr (Q == 4)
    {
      const uint4 *v = reinterpret_cast<const uint4 *> (trow + c - P4);
#pragma unroll
      for (uint32_t i = 0; i < NW / 4; i++)
        {
          const uint4 q = v[i];
          x[4 * i + 0] = q.x;
          x[4 * i + 1] = q.y;
          x[4 * i + 2] = q.z;
          x[4 * i + 3] = q.w;
        }
    }
  else
    {
#pragma unroll
      for (uint32_t i = 0; i < NW; i++)
        x[i] = trow[(int32_t) (c + i) - (int32_t) R];
    }

  auto channel = [&] (auto cc) {
    constexpr uint32_t C = decltype (cc)::value;
    uint32_t e[Q + 2 * R];
#pragma unroll
    for (uint32_t i = 0; i < Q + 2 * R; i++)
      e[i] = ks_channel<C> (x[i + OFF]);
#pragma unroll
    for (uint32_t q = 0; q < Q; q++)
      {
        uint32_t s = w[R] * e[q + R];
#pragma unroll
        for (uint32_t t = 0; t < R; t++)
          s += w[t] * (e[q + t] + e[q + 2 * R - t]);
        h[C][q] = s;
      }
  };
  channel (KsConst<0> ());
  channel (KsConst<1> ());
  channel (KsConst<2> ());
}

/* The rows pass for any radius and any taps. */
template <uint32_t Q>
__device__ __forceinline__ void
ks_rows_generic (const uint32_t *trow, uint32_t c, uint32_t r, const int32_t *taps,
                 uint32_t (&h)[3][Q])
{
  const uint32_t *s = trow + c - r;

#pragma unroll
  for (uint32_t q = 0; q < Q; q++)
    h[0][q] = h[1][q] = h[2][q] = 0u;
  for (uint32_t t = 0; t <= 2u * r; t++)
    {
      const uint32_t w = (uint32_t) taps[t];
#pragma unroll
      for (uint32_t q = 0; q < Q; q++)
        {
          const uint32_t v = s[t + q];
          h[0][q] += w * ks_channel<0> (v);
          h[1][q] += w * ks_channel<1> (v);
          h[2][q] += w * ks_channel<2> (v);
        }
    }
}

template <uint32_t Q>
__device__ __forceinline__ void
ks_store_sums (uint32_t *o, size_t plane, const uint32_t (&h)[3][Q])
{
#pragma unroll
  for (uint32_t ch = 0; ch < 3; ch++)
    {
      uint32_t *p = o + ch * plane;
      if constexpr (Q == 4)
        *reinterpret_cast<uint4 *> (p) = make_uint4 (h[ch][0], h[ch][1], h[ch][2], h[ch][3]);
      else if constexpr (Q == 2)
        *reinterpret_cast<uint2 *> (p) = make_uint2 (h[ch][0], h[ch][1]);
      else
        p[0] = h[ch][0];
    }
}

__host__ __device__ constexpr uint32_t
ks_separable_max_threads (uint32_t ppt, bool instrumented)
{
  if (ppt <= 2u || (ppt == 4u && !instrumented))
    return 1024u;
  return ppt == 4u ? 768u : ppt == 8u ? 640u : 512u;
}

/* The largest radius with an unrolled rows pass; larger ones (and asymmetric
 * taps) take the generic loop. 5 covers the default box (2) and Gaussian
 * (sigma 1.5); up to 8 cost the default kernel 96 registers instead of 72. */
#define KS_FILTER_UNROLLED_RADIUS 5

/* Box, Gaussian (UNSHARP false) and unsharp mask (UNSHARP true).
 *
 * Shared memory (ks_filter_shared_bytes): a chunk of source rows as packed
 * RGBA words, word pad + u of a row holding source column tx0 + u (clamped),
 * filled over [−pad, colsP + pad) so that every word the rows pass reads was
 * written; then the rows pass's R, G, B sums, which every owning thread reads
 * for its PPT columns.
 *
 * Loads and the rows pass map threadIdx.x to columns and (y, z) to rows, so
 * that a 32-wide block fills a 128-column tile in one step without divisions;
 * only the few halo words go through a linear index.
 *
 * Launch bounds per pixels per thread, at what each instantiation needs anyway
 * (65 536 registers over the bound): with 4 pixels a thread (the default)
 * ptxas took 72 registers unbounded, so seven 128-thread blocks fitted on a
 * multiprocessor and blocks of 1024 threads could not launch; bounded at 1024
 * threads it fits 64 without spilling on every architecture we build: eight
 * blocks, and any block size. Instrumented, or with 8 and 16 pixels (96 and
 * 128 registers), a bound of 1024 spills, so theirs only state what held. */
template <bool UNSHARP, uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void __launch_bounds__ (ks_separable_max_threads (PPT, INSTRUMENTED))
ks_separable_kernel (KsGeometry g, KsFilterParams p,
                     const uint8_t *__restrict__ src, size_t src_pitch,
                     uint8_t *__restrict__ out, size_t out_pitch,
                     KsCoverageBuffers cov, KsFilterAux aux)
{
  extern __shared__ uint4 ks_filter_smem[];
  __shared__ int32_t taps[2 * KS_FILTER_MAX_RADIUS + 1];
  constexpr uint32_t Q = PPT >= 4 ? 4u : PPT;

  const uint32_t r = (uint32_t) p.radius;
  const uint32_t n_taps = 2u * r + 1u;
  const uint32_t tid = ks_linear_thread ();
  const uint32_t n_threads = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t ylin = threadIdx.y + blockDim.y * threadIdx.z;
  const uint32_t ny = blockDim.y * blockDim.z;
  const uint32_t out_cols = blockDim.x * PPT;
  const KsDim3 block = { blockDim.x, blockDim.y, blockDim.z };
  const uint32_t chunk_rows = ks_filter_chunk_rows (&p, block, PPT);
  const uint32_t stride = (uint32_t) ks_filter_tile_stride (r, out_cols);
  const uint32_t pad = (r + 3u) & ~3u;
  uint32_t *tile = reinterpret_cast<uint32_t *> (ks_filter_smem);
  uint32_t *sums = tile + (size_t) chunk_rows * stride; /* [3][chunk_rows][out_cols] */
  const size_t plane = (size_t) chunk_rows * out_cols;
  const bool vec = ((uintptr_t) src % 16u == 0) && (src_pitch % 16u == 0);
  const uint32_t unrolled = aux.symmetric && r >= 1u && r <= KS_FILTER_UNROLLED_RADIUS ? r : 0u;
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
  /* The taps are read only after the first chunk's barrier. */

  auto do_tile = [&] (uint32_t tx0, uint32_t ty0) {
    const uint32_t ox = tx0 + threadIdx.x * PPT;
    const uint32_t oy = ty0 + threadIdx.y;
    const bool mine = threadIdx.z == 0 && ox < g.width && oy < g.height;
    const uint32_t cols = min (out_cols, g.width - tx0);
    /* Columns the rows pass computes: whole spans, as owners read them. */
    const uint32_t cols_p = min (out_cols, (cols + PPT - 1u) / PPT * PPT);
    const uint32_t n_inner = (cols_p + 3u) / 4u;   /* quads at words pad + 4k */
    const uint32_t n_halo = pad / 2u;               /* pad / 4 quads each side */
    const uint32_t rows_out = min (blockDim.y, g.height - ty0);
    const uint32_t total = rows_out + 2u * r;
    const int32_t last_x = (int32_t) g.width - 1;
    const int32_t last_y = (int32_t) g.height - 1;
    const bool vt = vec && tx0 % 4u == 0;
    uint32_t acc[3][PPT];

#pragma unroll
    for (uint32_t i = 0; i < PPT; i++)
      acc[0][i] = acc[1][i] = acc[2][i] = 0u;

    for (uint32_t c0 = 0; c0 < total; c0 += chunk_rows)
      {
        const uint32_t rows = min (chunk_rows, total - c0);
        const int32_t sy0 = (int32_t) ty0 - (int32_t) r + (int32_t) c0;

        for (uint32_t row = ylin; row < rows; row += ny)
          {
            const int32_t sy = ks_clamp_i32 (sy0 + (int32_t) row, 0, last_y);
            const uint32_t *grow =
              reinterpret_cast<const uint32_t *> (src + (size_t) sy * src_pitch);
            uint32_t *srow = tile + (size_t) row * stride;

            for (uint32_t k = threadIdx.x; k < n_inner; k += blockDim.x)
              ks_fill_words (srow, pad + 4u * k, stride, grow, (int32_t) (tx0 + 4u * k), last_x,
                             vt);
          }
        for (uint32_t k = tid; k < rows * n_halo; k += n_threads)
          {
            const uint32_t row = k / n_halo, h = k % n_halo;
            const uint32_t wi = h < n_halo / 2u ? 4u * h : pad + 4u * (n_inner + h - n_halo / 2u);
            const int32_t sy = ks_clamp_i32 (sy0 + (int32_t) row, 0, last_y);
            const uint32_t *grow =
              reinterpret_cast<const uint32_t *> (src + (size_t) sy * src_pitch);

            ks_fill_words (tile + (size_t) row * stride, wi, stride, grow,
                           (int32_t) tx0 - (int32_t) pad + (int32_t) wi, last_x, vt);
          }
        __syncthreads ();

        /* The rows pass, Q columns per thread and step. */
        const uint32_t n_groups = cols_p / Q;
        auto rows_pass = [&] (auto rc) {
          constexpr uint32_t R = decltype (rc)::value;
          uint32_t w[R + 1];

#pragma unroll
          for (uint32_t t = 0; t <= R; t++)
            w[t] = (uint32_t) taps[t];
          for (uint32_t row = ylin; row < rows; row += ny)
            {
              const uint32_t *trow = tile + (size_t) row * stride + pad;
              for (uint32_t k = threadIdx.x; k < n_groups; k += blockDim.x)
                {
                  uint32_t h[3][Q];
                  if constexpr (R == 0)
                    ks_rows_generic<Q> (trow, k * Q, r, taps, h);
                  else
                    ks_rows_fixed<R, Q> (trow, k * Q, w, h);
                  ks_store_sums<Q> (sums + (size_t) row * out_cols + k * Q, plane, h);
                }
            }
        };
        switch (unrolled)
          {
          case 1: rows_pass (KsConst<1> ()); break;
          case 2: rows_pass (KsConst<2> ()); break;
          case 3: rows_pass (KsConst<3> ()); break;
          case 4: rows_pass (KsConst<4> ()); break;
          case 5: rows_pass (KsConst<5> ()); break;
          default: rows_pass (KsConst<0> ()); break;
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
        const uint32_t half = (uint32_t) p.divisor / 2u;
        uint32_t px[PPT], res[PPT];

        ks_load_rgba<PPT> (src + (size_t) oy * src_pitch, ox, n, px);
#pragma unroll
        for (uint32_t i = 0; i < PPT; i++)
          {
            const uint32_t br = ks_filter_divide (acc[0][i] + half, aux);
            const uint32_t bg = ks_filter_divide (acc[1][i] + half, aux);
            const uint32_t bb = ks_filter_divide (acc[2][i] + half, aux);
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

/* Box, Gaussian and unsharp mask with small symmetric masks (radius R of 1
 * to 3, ks_filter_uses_direct), 4 pixels per thread: each thread reads the
 * 2R + 1 source rows of its span, R pixels more on each side, straight from
 * global memory (its neighbours read the same lines, so most of it comes from
 * L1), through the element-wise walk, so it writes exactly the spans the
 * launch gives it. The columns pass comes first, mirrored rows added before
 * their multiply, then the rows pass on its sums: the same double sum as
 * ks-filter.h's, in exact integers, so the same result. No shared memory and
 * no barriers, where the tiled kernel above computes the rows pass of the
 * tile's 2R halo rows too and waits at two barriers per tile. */
template <bool UNSHARP, uint32_t R, uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_separable_direct_kernel (KsGeometry g, KsFilterParams p,
                            const uint8_t *__restrict__ src, size_t src_pitch,
                            uint8_t *__restrict__ out, size_t out_pitch,
                            KsCoverageBuffers cov, KsFilterAux aux)
{
  constexpr uint32_t W = PPT + 2 * R; /* source columns of a span */
  const int32_t last_x = (int32_t) g.width - 1;
  const int32_t last_y = (int32_t) g.height - 1;
  const bool vec = (uintptr_t) src % 16u == 0 && src_pitch % 16u == 0;
  uint32_t w[R + 1]; /* w[R] the centre tap, w[t] the pair R − t away */

#pragma unroll
  for (uint32_t t = 0; t <= R; t++)
    w[t] = (uint32_t) p.taps[t];

  /* Source columns x0 − R .. x0 + PPT + R − 1 of row y (clamped). */
  auto load_row = [&] (int32_t y, uint32_t x0, uint32_t (&px)[W]) {
    const uint32_t *row = reinterpret_cast<const uint32_t *> (
      src + (size_t) ks_clamp_i32 (y, 0, last_y) * src_pitch);

    if (vec && x0 >= R && x0 + PPT + R <= g.width)
      {
        uint32_t mid[PPT];
        ks_load_rgba<PPT> (reinterpret_cast<const uint8_t *> (row), x0, PPT, mid);
#pragma unroll
        for (uint32_t i = 0; i < R; i++)
          {
            px[i] = __ldg (row + x0 - R + i);
            px[R + PPT + i] = __ldg (row + x0 + PPT + i);
          }
#pragma unroll
        for (uint32_t i = 0; i < PPT; i++)
          px[R + i] = mid[i];
      }
    else
      {
#pragma unroll
        for (uint32_t i = 0; i < W; i++)
          px[i] = __ldg (row + ks_clamp_i32 ((int32_t) (x0 + i) - (int32_t) R, 0, last_x));
      }
  };

  /* Nothing to load ahead: use reads its 2R + 1 rows itself, row by row, so
   * that only two of them are held at a time. */
  auto load = [] (uint32_t, uint32_t, uint32_t) { return 0u; };

  auto use = [&] (uint32_t, uint32_t y, uint32_t x0, uint32_t n) {
    uint32_t v[3][W];
    uint32_t centre[W];

    /* The columns pass: the centre row, then the mirrored pairs of rows. */
    load_row ((int32_t) y, x0, centre);
#pragma unroll
    for (uint32_t i = 0; i < W; i++)
      {
        v[0][i] = w[R] * ks_channel<0> (centre[i]);
        v[1][i] = w[R] * ks_channel<1> (centre[i]);
        v[2][i] = w[R] * ks_channel<2> (centre[i]);
      }
#pragma unroll
    for (uint32_t t = 0; t < R; t++)
      {
        uint32_t a[W], b[W];
        load_row ((int32_t) y - (int32_t) (R - t), x0, a);
        load_row ((int32_t) y + (int32_t) (R - t), x0, b);
#pragma unroll
        for (uint32_t i = 0; i < W; i++)
          {
            v[0][i] += w[t] * (ks_channel<0> (a[i]) + ks_channel<0> (b[i]));
            v[1][i] += w[t] * (ks_channel<1> (a[i]) + ks_channel<1> (b[i]));
            v[2][i] += w[t] * (ks_channel<2> (a[i]) + ks_channel<2> (b[i]));
          }
      }

    /* The rows pass on the column sums, then the rounding division. */
    const uint32_t half = (uint32_t) p.divisor / 2u;
    uint32_t res[PPT];
#pragma unroll
    for (uint32_t q = 0; q < PPT; q++)
      {
        uint32_t s[3];
#pragma unroll
        for (uint32_t ch = 0; ch < 3; ch++)
          {
            s[ch] = w[R] * v[ch][q + R];
#pragma unroll
            for (uint32_t t = 0; t < R; t++)
              s[ch] += w[t] * (v[ch][q + t] + v[ch][q + 2 * R - t]);
            s[ch] = ks_filter_divide (s[ch] + half, aux);
          }
        const uint32_t c = centre[q + R];
        if constexpr (UNSHARP)
          res[q] = KS_RGBA (ks_unsharp_channel ((int32_t) KS_R (c), (int32_t) s[0], p.amount),
                            ks_unsharp_channel ((int32_t) KS_G (c), (int32_t) s[1], p.amount),
                            ks_unsharp_channel ((int32_t) KS_B (c), (int32_t) s[2], p.amount),
                            KS_A (c));
        else
          res[q] = KS_RGBA (s[0], s[1], s[2], KS_A (c));
      }
    ks_filter_store_rgba<PPT> (out + (size_t) y * out_pitch, x0, n, res);
    if constexpr (INSTRUMENTED)
      ks_coverage_record (cov, g.width, y, x0, n);
  };

  const bool handled = ks_walk_spans<PPT, MODE, 0u> (g, load, use);

  if constexpr (INSTRUMENTED)
    {
      if (!handled)
        atomicAdd (cov.idle_threads, 1ull);
    }
  else
    (void) handled;
}

/* Rounded BT.601 luma: 299 = 256 + 43 and 587 = 512 + 75 make the weights
 * bytes, so two 4-way byte dot products replace three extracts and three
 * multiplies; the division by the constant 1000 is a multiply-high. */
__device__ __forceinline__ uint32_t
ks_luma601_fast (uint32_t v)
{
  const uint32_t s = __dp4a (v, 0x00724b2bu, 500u) + (__dp4a (v, 0x00000201u, 0u) << 8);
  return s / 1000u;
}

/* min(isqrt(s), 255) for s ≤ 2·1020²: 255 from 255² up; below, the float
 * square root (exact integers under 2^24, conversions by the 1.5·2^23 magic
 * add instead of the quarter-rate converters) rounded to the nearest integer,
 * then corrected by one either way. */
__device__ __forceinline__ uint32_t
ks_isqrt255 (uint32_t s)
{
  if (s >= 255u * 255u)
    return 255u;
  const float f = __uint_as_float (0x4b000000u | s) - 8388608.0f;
  const float root = (f + 0.25f) * rsqrtf (f + 0.25f);
  uint32_t q = __float_as_uint (root + 12582912.0f) - 0x4b400000u;
  if (q * q > s)
    q--;
  else if ((q + 1u) * (q + 1u) <= s)
    q++;
  return q;
}

__device__ __forceinline__ uint32_t
ks_sobel_fast (int32_t gx, int32_t gy, int32_t mode)
{
  if (mode == KS_SOBEL_HORIZONTAL)
    return min ((uint32_t) abs (gy), 255u);
  if (mode == KS_SOBEL_VERTICAL)
    return min ((uint32_t) abs (gx), 255u);
  return ks_isqrt255 ((uint32_t) (gx * gx + gy * gy));
}

/* One row of a 4-wide Sobel window from three words of four levels: the last
 * level of w0, the four of w1, the first of w2 (columns −1 .. 4). */
__device__ __forceinline__ void
ks_sobel_window_row (uint32_t w0, uint32_t w1, uint32_t w2, int32_t (&l)[6])
{
  l[0] = (int32_t) (w0 >> 24);
  l[1] = (int32_t) (w1 & 0xffu);
  l[2] = (int32_t) __byte_perm (w1, 0u, 0x4441u);
  l[3] = (int32_t) __byte_perm (w1, 0u, 0x4442u);
  l[4] = (int32_t) (w1 >> 24);
  l[5] = (int32_t) (w2 & 0xffu);
}

/* PPT Sobel values from the window's columns: V = top + 2·middle + bottom
 * and D = bottom − top per column, columns 0 .. PPT + 1 being source columns
 * −1 .. PPT of the span. */
template <uint32_t N>
__device__ __forceinline__ void
ks_sobel_span (const int32_t (&a)[N + 2], const int32_t (&b)[N + 2], const int32_t (&c)[N + 2],
               int32_t mode, uint32_t *res)
{
  int32_t v[N + 2], d[N + 2];

#pragma unroll
  for (uint32_t i = 0; i < N + 2; i++)
    {
      v[i] = a[i] + 2 * b[i] + c[i];
      d[i] = c[i] - a[i];
    }
#pragma unroll
  for (uint32_t i = 0; i < N; i++)
    res[i] = ks_sobel_fast (v[i + 2] - v[i], d[i] + 2 * d[i + 1] + d[i + 2], mode);
}

/* Sobel on the rounded BT.601 luma of an RGBA8 image, into GRAY8 (a GRAY8
 * image, its own luma, goes to ks_sobel_gray_kernel below).
 *
 * Shared memory (ks_filter_shared_bytes): block.y + 2 rows of luma bytes,
 * byte 4 + u of a row holding source column tx0 + u (clamped), so that every
 * four source pixels read with one 16-byte load become one aligned word.
 * Filled over [−4, cols_p + 4), which covers every byte an owner reads. */
template <uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_sobel_kernel (KsGeometry g, KsFilterParams p,
                 const uint8_t *__restrict__ src, size_t src_pitch,
                 uint8_t *__restrict__ out, size_t out_pitch,
                 KsCoverageBuffers cov, KsFilterAux aux)
{
  extern __shared__ uint4 ks_filter_smem[];
  uint32_t *luma = reinterpret_cast<uint32_t *> (ks_filter_smem);
  const uint32_t tid = ks_linear_thread ();
  const uint32_t n_threads = blockDim.x * blockDim.y * blockDim.z;
  const uint32_t ylin = threadIdx.y + blockDim.y * threadIdx.z;
  const uint32_t ny = blockDim.y * blockDim.z;
  const uint32_t out_cols = blockDim.x * PPT;
  const uint32_t sw = (out_cols + 3u) / 4u + 2u; /* words per row */
  const int32_t mode = p.sobel_mode;
  const bool vec = ((uintptr_t) src % 16u == 0) && (src_pitch % 16u == 0);
  KsTileWalk walk;

  (void) aux;
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
    const uint32_t cols = min (out_cols, g.width - tx0);
    const uint32_t cols_p = min (out_cols, (cols + PPT - 1u) / PPT * PPT);
    const uint32_t n_inner = (cols_p + 3u) / 4u;              /* words 1 .. n_inner */
    const uint32_t n_words = min ((cols_p + 11u) / 4u, sw);    /* bytes up to 4 + cols_p + 4 */
    const uint32_t n_halo = n_words - n_inner;                 /* word 0 and the right ones */
    const uint32_t th = min (blockDim.y, g.height - ty0) + 2u;
    const int32_t last_x = (int32_t) g.width - 1;
    const int32_t last_y = (int32_t) g.height - 1;
    const bool vt = vec && tx0 % 4u == 0;

    auto fill = [&] (uint32_t row, uint32_t k) {
      const int32_t sy = ks_clamp_i32 ((int32_t) ty0 - 1 + (int32_t) row, 0, last_y);
      const uint32_t *grow = reinterpret_cast<const uint32_t *> (src + (size_t) sy * src_pitch);
      const int32_t x = (int32_t) tx0 - 4 + 4 * (int32_t) k;
      uint32_t px[4];

      if (vt && x >= 0 && x + 3 <= last_x)
        {
          const uint4 v = __ldg (reinterpret_cast<const uint4 *> (grow + x));
          px[0] = v.x;
          px[1] = v.y;
          px[2] = v.z;
          px[3] = v.w;
        }
      else
        {
#pragma unroll
          for (uint32_t j = 0; j < 4; j++)
            px[j] = __ldg (grow + ks_clamp_i32 (x + (int32_t) j, 0, last_x));
        }
      luma[(size_t) row * sw + k] =
        __byte_perm (__byte_perm (ks_luma601_fast (px[0]), ks_luma601_fast (px[1]), 0x0040),
                     __byte_perm (ks_luma601_fast (px[2]), ks_luma601_fast (px[3]), 0x0040),
                     0x5410);
    };

    for (uint32_t row = ylin; row < th; row += ny)
      for (uint32_t k = threadIdx.x; k < n_inner; k += blockDim.x)
        fill (row, 1u + k);
    for (uint32_t k = tid; k < th * n_halo; k += n_threads)
      {
        const uint32_t row = k / n_halo, h = k % n_halo;
        fill (row, h == 0 ? 0u : n_inner + h);
      }
    __syncthreads ();

    if (mine)
      {
        const uint32_t n = min (PPT, g.width - ox);
        const uint32_t u0 = threadIdx.x * PPT;
        uint32_t res[PPT];

        if constexpr (PPT >= 4)
          {
            /* Words k − 1, k, k + 1 of each row hold source columns
             * u − 4 .. u + 7: the span's four, one each side. */
#pragma unroll
            for (uint32_t s = 0; s < PPT / 4; s++)
              {
                const uint32_t k = (u0 + 4u * s) / 4u + 1u;
                int32_t l[3][6];
#pragma unroll
                for (uint32_t j = 0; j < 3; j++)
                  {
                    const uint32_t *w = luma + (size_t) (threadIdx.y + j) * sw + k;
                    ks_sobel_window_row (w[-1], w[0], w[1], l[j]);
                  }
                ks_sobel_span<4> (l[0], l[1], l[2], mode, res + 4 * s);
              }
          }
        else
          {
            const uint8_t *t = reinterpret_cast<const uint8_t *> (luma) + 3u + u0;
            int32_t l[3][PPT + 2];
#pragma unroll
            for (uint32_t j = 0; j < 3; j++)
#pragma unroll
              for (uint32_t i = 0; i < PPT + 2; i++)
                l[j][i] = t[(size_t) (threadIdx.y + j) * sw * 4u + i];
            ks_sobel_span<PPT> (l[0], l[1], l[2], mode, res);
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

/* Sobel of a GRAY8 image, without shared memory or barriers: each thread
 * reads the three source rows around its span straight from global memory,
 * the span's own bytes and the word on each side (its neighbours read the
 * same lines, so most of it comes from L1), through the same walk as the
 * element-wise kernels (ks_walk_spans), so it writes exactly the spans the
 * launch gives it. A span too close to an edge for whole words, or a
 * source that is not 16-byte aligned, reads byte by byte, clamped.
 *
 * The tiled kernel above reads its tile and halo into shared memory first;
 * on gray input its barriers and halo rows, not the bytes, set its time. */
template <uint32_t PPT>
struct KsSobelRows
{
  /* Per row: source columns x0 − 4 .. x0 + PPT + 3 as words (PPT ≥ 4), or
   * x0 − 1 .. x0 + PPT as levels (PPT < 4). */
  uint32_t w[3][PPT >= 4 ? PPT / 4 + 2 : PPT + 2];
};

template <uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
__global__ void
ks_sobel_gray_kernel (KsGeometry g, KsFilterParams p,
                      const uint8_t *__restrict__ src, size_t src_pitch,
                      uint8_t *__restrict__ out, size_t out_pitch,
                      KsCoverageBuffers cov, KsFilterAux aux)
{
  const int32_t mode = p.sobel_mode;
  const int32_t last_x = (int32_t) g.width - 1;
  const int32_t last_y = (int32_t) g.height - 1;
  const bool vec = (uintptr_t) src % 16u == 0 && src_pitch % 16u == 0;

  (void) aux;

  auto load = [&] (uint32_t y, uint32_t x0, uint32_t n) {
    KsSobelRows<PPT> s;
#pragma unroll
    for (uint32_t j = 0; j < 3; j++)
      {
        const int32_t sy = ks_clamp_i32 ((int32_t) y - 1 + (int32_t) j, 0, last_y);
        const uint8_t *row = src + (size_t) sy * src_pitch;

        if constexpr (PPT >= 4)
          {
            if (vec && x0 >= 4u && n == PPT && x0 + PPT + 4u <= g.width)
              {
                uint32_t mid[PPT / 4];
                ks_load_gray<PPT> (row, x0, PPT, mid);
                s.w[j][0] = __ldg (reinterpret_cast<const uint32_t *> (row + x0) - 1);
#pragma unroll
                for (uint32_t k = 0; k < PPT / 4; k++)
                  s.w[j][k + 1] = mid[k];
                s.w[j][PPT / 4 + 1] = __ldg (reinterpret_cast<const uint32_t *> (row + x0 + PPT));
              }
            else
              {
#pragma unroll
                for (uint32_t k = 0; k < PPT / 4 + 2; k++)
                  {
                    uint32_t word = 0u;
#pragma unroll
                    for (uint32_t b = 0; b < 4; b++)
                      {
                        const int32_t x = (int32_t) x0 - 4 + (int32_t) (4 * k + b);
                        word |= (uint32_t) __ldg (row + ks_clamp_i32 (x, 0, last_x)) << (8 * b);
                      }
                    s.w[j][k] = word;
                  }
              }
          }
        else
          {
#pragma unroll
            for (uint32_t i = 0; i < PPT + 2; i++)
              s.w[j][i] = __ldg (row + ks_clamp_i32 ((int32_t) x0 - 1 + (int32_t) i, 0, last_x));
          }
      }
    return s;
  };

  auto use = [&] (const KsSobelRows<PPT> &s, uint32_t y, uint32_t x0, uint32_t n) {
    uint32_t res[PPT];

    if constexpr (PPT >= 4)
      {
        /* Words q − 1, q, q + 1 hold columns 4q − 5 .. 4q + 4 relative to
         * x0 − 4 + 4: the four outputs of word q and one column each side. */
#pragma unroll
        for (uint32_t q = 1; q <= PPT / 4; q++)
          {
            int32_t l[3][6];
#pragma unroll
            for (uint32_t j = 0; j < 3; j++)
              {
                ks_sobel_window_row (s.w[j][q - 1], s.w[j][q], s.w[j][q + 1], l[j]);
              }
            ks_sobel_span<4> (l[0], l[1], l[2], mode, res + 4 * (q - 1));
          }
      }
    else
      {
        int32_t l[3][PPT + 2];
#pragma unroll
        for (uint32_t j = 0; j < 3; j++)
#pragma unroll
          for (uint32_t i = 0; i < PPT + 2; i++)
            l[j][i] = (int32_t) s.w[j][i];
        ks_sobel_span<PPT> (l[0], l[1], l[2], mode, res);
      }
    ks_filter_store_gray<PPT> (out + (size_t) y * out_pitch, x0, n, res);
    if constexpr (INSTRUMENTED)
      ks_coverage_record (cov, g.width, y, x0, n);
  };

  const bool handled = ks_walk_spans<PPT, MODE, PPT <= 4 ? 1u : 0u> (g, load, use);

  if constexpr (INSTRUMENTED)
    {
      if (!handled)
        atomicAdd (cov.idle_threads, 1ull);
    }
  else
    (void) handled;
}

typedef void (*KsFilterKernel) (KsGeometry, KsFilterParams, const uint8_t *, size_t, uint8_t *,
                                size_t, KsCoverageBuffers, KsFilterAux);

/* NULL for a gray source with any kind but Sobel. */
template <uint32_t PPT, uint32_t MODE, bool INSTRUMENTED>
KsFilterKernel
ks_filter_pick_kind (int32_t kind, bool gray_in)
{
  if (gray_in)
    return kind == KS_FILTER_SOBEL ? ks_sobel_gray_kernel<PPT, MODE, INSTRUMENTED> : NULL;
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
ks_filter_pick_instrumented (int32_t kind, bool gray_in, bool instrumented)
{
  return instrumented ? ks_filter_pick_kind<PPT, MODE, true> (kind, gray_in)
                      : ks_filter_pick_kind<PPT, MODE, false> (kind, gray_in);
}

template <uint32_t PPT>
KsFilterKernel
ks_filter_pick_mode (int32_t kind, bool gray_in, uint32_t mode, bool instrumented)
{
  return mode == KS_MAP_GRID_STRIDE
           ? ks_filter_pick_instrumented<PPT, KS_MAP_GRID_STRIDE> (kind, gray_in, instrumented)
           : ks_filter_pick_instrumented<PPT, KS_MAP_PER_PIXEL> (kind, gray_in, instrumented);
}

template <bool UNSHARP, uint32_t R, uint32_t PPT, uint32_t MODE>
KsFilterKernel
ks_direct_pick_instrumented (bool instrumented)
{
  return instrumented ? ks_separable_direct_kernel<UNSHARP, R, PPT, MODE, true>
                      : ks_separable_direct_kernel<UNSHARP, R, PPT, MODE, false>;
}

template <bool UNSHARP, uint32_t R, uint32_t PPT>
KsFilterKernel
ks_direct_pick_mode (uint32_t mode, bool instrumented)
{
  return mode == KS_MAP_GRID_STRIDE
           ? ks_direct_pick_instrumented<UNSHARP, R, PPT, KS_MAP_GRID_STRIDE> (instrumented)
           : ks_direct_pick_instrumented<UNSHARP, R, PPT, KS_MAP_PER_PIXEL> (instrumented);
}

template <bool UNSHARP, uint32_t R>
KsFilterKernel
ks_direct_pick_ppt (uint32_t ppt, uint32_t mode, bool instrumented)
{
  return ppt == 8u ? ks_direct_pick_mode<UNSHARP, R, 8> (mode, instrumented)
                   : ks_direct_pick_mode<UNSHARP, R, 4> (mode, instrumented);
}

template <bool UNSHARP>
KsFilterKernel
ks_direct_pick_radius (int32_t radius, uint32_t ppt, uint32_t mode, bool instrumented)
{
  static_assert (KS_FILTER_DIRECT_MAX_RADIUS == 3, "one case per radius");
  switch (radius)
    {
    case 1: return ks_direct_pick_ppt<UNSHARP, 1> (ppt, mode, instrumented);
    case 2: return ks_direct_pick_ppt<UNSHARP, 2> (ppt, mode, instrumented);
    case 3: return ks_direct_pick_ppt<UNSHARP, 3> (ppt, mode, instrumented);
    default: return NULL;
    }
}

KsFilterKernel
ks_filter_pick (const KsFilterParams *p, uint32_t src_bpp, const KsGeometry *g, bool instrumented)
{
  const bool gray_in = src_bpp == 1;

  if (g->mode != KS_MAP_PER_PIXEL && g->mode != KS_MAP_GRID_STRIDE)
    return NULL;
  if (src_bpp != 1 && src_bpp != 4)
    return NULL;
  if (!gray_in && ks_filter_uses_direct (p, g->pixels_per_thread))
    return p->kind == KS_FILTER_UNSHARP
             ? ks_direct_pick_radius<true> (p->radius, g->pixels_per_thread, g->mode, instrumented)
             : ks_direct_pick_radius<false> (p->radius, g->pixels_per_thread, g->mode,
                                              instrumented);
  switch (g->pixels_per_thread)
    {
    case 1: return ks_filter_pick_mode<1> (p->kind, gray_in, g->mode, instrumented);
    case 2: return ks_filter_pick_mode<2> (p->kind, gray_in, g->mode, instrumented);
    case 4: return ks_filter_pick_mode<4> (p->kind, gray_in, g->mode, instrumented);
    case 8: return ks_filter_pick_mode<8> (p->kind, gray_in, g->mode, instrumented);
    case 16: return ks_filter_pick_mode<16> (p->kind, gray_in, g->mode, instrumented);
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

KsFilterAux
ks_filter_aux (const KsFilterParams *p)
{
  KsFilterAux a = { 1u, 31u, 1u, 0u };

  if (p->kind != KS_FILTER_SOBEL)
    {
      const uint32_t d = (uint32_t) p->divisor;
      uint32_t lg = 0;

      while ((d >> lg) > 1u)
        lg++;
      a.div_k = 31u + lg;
      a.div_m = (uint32_t) (((1ull << a.div_k) + d - 1u) / d);
      a.pow2 = (d & (d - 1u)) == 0u ? 1u : 0u;
      for (int32_t k = 0; k < p->radius; k++)
        if (p->taps[k] != p->taps[2 * p->radius - k])
          a.symmetric = 0u;
    }
  return a;
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_filter_launch (KsGeometry geom, const KsFilterParams *params,
                       const uint8_t *src, size_t src_pitch, uint32_t src_bpp,
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
  kernel = ks_filter_pick (params, src_bpp, &geom, instrumented);
  if (kernel == NULL)
    return cudaErrorInvalidValue;
  /* The source is read as words of RGBA or bytes of gray (and as vectors only
   * where the kernel checks the alignment itself); the output as the
   * traversal's spans. */
  if (!ks_buffer_is_valid (src, src_pitch, geom.width, src_bpp, 1) || src_pitch % src_bpp != 0
      || !ks_buffer_is_valid (out, out_pitch, geom.width,
                              params->kind == KS_FILTER_SOBEL ? 1 : 4, ppt))
    return cudaErrorInvalidValue;
  /* Centre pixels are read with the traversal's vectors too. */
  if (params->kind != KS_FILTER_SOBEL && !ks_buffer_is_valid (src, src_pitch, geom.width, 4, ppt))
    return cudaErrorInvalidValue;

  shared = ks_filter_shared_bytes (params, geom.block, ppt);
  {
    const cudaError_t err = ks_cuda_allow_shared (reinterpret_cast<const void *> (kernel), shared);
    if (err != cudaSuccess)
      return err;
  }

  kernel<<<ks_dim3 (geom.grid), ks_dim3 (geom.block), shared, stream>>> (geom, *params, src,
                                                                          src_pitch, out,
                                                                          out_pitch, cov,
                                                                          ks_filter_aux (params));
  return cudaGetLastError ();
}

extern "C" cudaError_t
ks_cuda_filter_attributes (const KsFilterParams *params, uint32_t src_bpp, KsGeometry geom,
                           int instrumented, struct cudaFuncAttributes *attr)
{
  KsFilterKernel kernel;

  if (params == NULL || attr == NULL)
    return cudaErrorInvalidValue;
  kernel = ks_filter_pick (params, src_bpp, &geom, instrumented != 0);
  if (kernel == NULL)
    return cudaErrorInvalidValue;
  return cudaFuncGetAttributes (attr, reinterpret_cast<const void *> (kernel));
}

extern "C" cudaError_t
ks_cuda_filter_occupancy (const KsFilterParams *params, uint32_t src_bpp, KsGeometry geom,
                          int instrumented, size_t shared, int *blocks)
{
  KsFilterKernel kernel;

  if (params == NULL || blocks == NULL)
    return cudaErrorInvalidValue;
  kernel = ks_filter_pick (params, src_bpp, &geom, instrumented != 0);
  if (kernel == NULL)
    return cudaErrorInvalidValue;
  {
    const cudaError_t err = ks_cuda_allow_shared (reinterpret_cast<const void *> (kernel), shared);
    if (err != cudaSuccess)
      return err;
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor (blocks, kernel, (int) (geom.block.x * geom.block.y * geom.block.z),
                                                        shared);
}
