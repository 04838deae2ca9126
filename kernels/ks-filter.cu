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

#include "ks-filter-tile.cuh"
#include "ks-filter-sobel.cuh"

namespace {

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
