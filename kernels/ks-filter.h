/* ks-filter.h: the neighbourhood filters' parameters and their exact integer
 * definition, shared by the CUDA kernels and the CPU engine.
 *
 * Borders: clamp to edge — a pixel outside the image reads the nearest pixel
 * inside it — in both engines.
 *
 * KS_FILTER_SEPARABLE (box blur, Gaussian blur), per colour channel c:
 *   h(x, y) = Σ_i taps[i] · P(clamp(x + i − r), y)
 *   out(x, y) = (Σ_j taps[j] · h(x, clamp(y + j − r)) + divisor / 2) / divisor
 *   with divisor = (Σ taps)²; alpha is the centre pixel's.
 * KS_FILTER_UNSHARP: B = the separable result above (a Gaussian), then
 *   d = (P − B) · amount (amount in 8.8 fixed point),
 *   out = clamp(P + sign(d) · ((|d| + 128) >> 8), 0, 255); alpha kept.
 * KS_FILTER_SOBEL on the rounded BT.601 luma L (ks_luma601), into GRAY8:
 *   Gx = [−1 0 1; −2 0 2; −1 0 1] * L (vertical edges),
 *   Gy = [−1 −2 −1; 0 0 0; 1 2 1] * L (horizontal edges),
 *   horizontal: min(|Gy|, 255); vertical: min(|Gx|, 255);
 *   magnitude: min(isqrt(Gx² + Gy²), 255) with the exact integer square root.
 */
#pragma once

#include <stddef.h>

#include "ks-kernel-common.h"

/* Its launchers are declared (at the end) where CUDA's headers are: nvcc, or a
 * C file of a build with CUDA. */
#if defined(__CUDACC__) || (defined(HAVE_CUDA) && HAVE_CUDA)
#include <cuda_runtime_api.h>
#define KS_FILTER_LAUNCHERS 1
#else
#define KS_FILTER_LAUNCHERS 0
#endif

KS_KERNEL_BEGIN_DECLS

#define KS_FILTER_MAX_RADIUS 64

typedef enum
{
  KS_FILTER_SEPARABLE = 0,
  KS_FILTER_UNSHARP = 1,
  KS_FILTER_SOBEL = 2,
} KsFilterKind;

typedef enum
{
  KS_SOBEL_HORIZONTAL = 0,
  KS_SOBEL_VERTICAL = 1,
  KS_SOBEL_MAGNITUDE = 2,
} KsSobelMode;

typedef struct
{
  int32_t kind;        /* KsFilterKind */
  int32_t radius;      /* taps[0 .. 2·radius] are used; 1 for Sobel */
  int32_t divisor;     /* (Σ taps)²; Σ taps ≤ 1024 keeps every sum inside 32 bits */
  int32_t amount;      /* unsharp: 8.8 fixed point */
  int32_t sobel_mode;  /* KsSobelMode */
  int32_t taps[2 * KS_FILTER_MAX_RADIUS + 1];
} KsFilterParams;

KS_HD int32_t
ks_clamp_i32 (int32_t v, int32_t lo, int32_t hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* floor(sqrt(v)), exact for every 32-bit v. */
KS_HD uint32_t
ks_isqrt_u32 (uint32_t v)
{
  uint32_t r = 0, bit = 1u << 30;

  while (bit > v)
    bit >>= 2;
  while (bit != 0)
    {
      if (v >= r + bit)
        {
          v -= r + bit;
          r = (r >> 1) + bit;
        }
      else
        r >>= 1;
      bit >>= 2;
    }
  return r;
}

KS_HD uint32_t
ks_unsharp_channel (int32_t p, int32_t blurred, int32_t amount)
{
  int32_t d = (p - blurred) * amount;
  int32_t q = d >= 0 ? (d + 128) >> 8 : -((-d + 128) >> 8);
  return (uint32_t) ks_clamp_i32 (p + q, 0, 255);
}

KS_HD uint32_t
ks_sobel_value (int32_t gx, int32_t gy, int32_t mode)
{
  uint32_t v;

  if (mode == KS_SOBEL_HORIZONTAL)
    v = (uint32_t) (gy < 0 ? -gy : gy);
  else if (mode == KS_SOBEL_VERTICAL)
    v = (uint32_t) (gx < 0 ? -gx : gx);
  else
    v = ks_isqrt_u32 ((uint32_t) (gx * gx + gy * gy));
  return v > 255u ? 255u : v;
}

/* The separable kernels' shared memory: a chunk of source rows (RGBA words)
 * and the rows pass's 32-bit R, G, B sums for the tile's output columns. The
 * columns pass accumulates in registers chunk by chunk, so the shared memory
 * does not grow with the radius vertically: a 32×8 block of 4 pixels per
 * thread needs 40 KB at radius 64, under the 48 KB every device grants.
 *
 * Words per source row: the left halo padded to a multiple of four words, so
 * the interior starts 16-byte aligned for vector stores, then the interior
 * and the right halo, the row rounded up to four words. */
KS_HD size_t
ks_filter_tile_stride (uint32_t radius, uint32_t out_cols)
{
  size_t pad = ((size_t) radius + 3u) & ~(size_t) 3u;
  return (pad + out_cols + radius + 3u) & ~(size_t) 3u;
}

KS_HD size_t
ks_filter_chunk_bytes (uint32_t radius, uint32_t out_cols, uint32_t rows)
{
  return (size_t) rows * (ks_filter_tile_stride (radius, out_cols) + 3u * (size_t) out_cols) * 4u;
}

/* Source rows per chunk: all of them (block.y + 2r) when they fit in 16 or
 * in block.y, else 16 (or block.y when larger), falling back to block.y rows
 * when 16 would pass 48 KB. One chunk for small radii keeps the rows pass
 * from computing rows twice; block.y rows is the least that keeps every
 * thread busy. */
KS_HD uint32_t
ks_filter_chunk_rows (const KsFilterParams *p, KsDim3 block, uint32_t ppt)
{
  uint32_t r = (uint32_t) p->radius;
  uint32_t need = block.y + 2u * r;
  uint32_t rows = block.y > 16u ? block.y : 16u;

  if (rows > need)
    rows = need;
  if (rows > block.y && ks_filter_chunk_bytes (r, block.x * ppt, rows) > 48u * 1024u)
    rows = block.y;
  return rows;
}

/* Whether the separable filter runs as the direct kernel (ks-filter.cu):
 * small symmetric masks (radius 1 to 3: box blurs of 3×3 to 7×7, Gaussians up
 * to σ 1) at 4 or 8 pixels per thread. Each thread reads its window
 * from global memory; no shared memory, no barriers. */
#define KS_FILTER_DIRECT_MAX_RADIUS 3

KS_HD int
ks_filter_uses_direct (const KsFilterParams *p, uint32_t ppt)
{
  if (p->kind == KS_FILTER_SOBEL || (ppt != 4u && ppt != 8u) || p->radius < 1
      || p->radius > KS_FILTER_DIRECT_MAX_RADIUS)
    return 0;
  for (int32_t k = 0; k < p->radius; k++)
    if (p->taps[k] != p->taps[2 * p->radius - k])
      return 0;
  return 1;
}

/* Dynamic shared memory a filter kernel asks for with this block and these
 * pixels per thread. The engine validates launches with it, on both engines. */
KS_HD size_t
ks_filter_shared_bytes (const KsFilterParams *p, KsDim3 block, uint32_t ppt)
{
  uint32_t r = (uint32_t) p->radius;
  size_t out_cols = (size_t) block.x * ppt;

  if (ks_filter_uses_direct (p, ppt))
    return 0;

  if (p->kind == KS_FILTER_SOBEL)
    return ((out_cols + 3u) / 4u + 2u) * 4u * ((size_t) block.y + 2u * r); /* luma bytes */
  return ks_filter_chunk_bytes (r, (uint32_t) out_cols, ks_filter_chunk_rows (p, block, ppt));
}

/* The launchers (kernels/ks-filter.cu), for the op's file and the kernels only. Each
 * checks its preconditions, launches on the stream and returns
 * cudaGetLastError(); pitches are in bytes. */
#if KS_FILTER_LAUNCHERS
/* Neighbourhood filters (ks-filter.h): RGBA8 in (src_bpp 4), or GRAY8 (1) for
 * Sobel; RGBA8 out, GRAY8 for Sobel.
 * The geometry covers the output (the same size as the input); each block
 * loads its tile and halo into ks_filter_shared_bytes of dynamic shared memory. */
cudaError_t ks_cuda_filter_launch (KsGeometry geom,
                                   const KsFilterParams *params,
                                   const uint8_t *src, size_t src_pitch, uint32_t src_bpp,
                                   uint8_t *out, size_t out_pitch,
                                   KsCoverageBuffers cov,
                                   cudaStream_t stream);
cudaError_t ks_cuda_filter_attributes (const KsFilterParams *params,
                                       uint32_t src_bpp,
                                       KsGeometry geom,
                                       int instrumented,
                                       struct cudaFuncAttributes *attr);
/* Blocks per multiprocessor by the runtime's occupancy calculator
 * (ks-kernels.h says what it is checked against). */
cudaError_t ks_cuda_filter_occupancy (const KsFilterParams *params, uint32_t src_bpp,
                                      KsGeometry geom, int instrumented, size_t shared,
                                      int *blocks);
#endif

KS_KERNEL_END_DECLS
