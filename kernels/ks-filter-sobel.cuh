/* ks-filter-sobel.cuh: Sobel edges (ks-filter.h's KS_FILTER_SOBEL) on RGBA
 * and on gray sources: the tile's luma with a one-pixel halo loaded as bytes,
 * the 3×3 gradients from registers. Included by ks-filter.cu, which picks
 * and launches the kernels.
 */
#pragma once

#include "ks-filter-tile.cuh"

namespace {

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

} /* namespace */
