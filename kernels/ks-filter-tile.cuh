/* ks-filter-tile.cuh: what the filter kernels of ks-filter.cu and
 * ks-filter-sobel.cuh share: stores of a thread's pixels, the walk over a
 * block's tiles, the shared-memory loads, division by the window's weight,
 * the rows pass of the separable kinds. Device code for those two files only.
 */
#pragma once

#include "ks-filter.h"
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

} /* namespace */
