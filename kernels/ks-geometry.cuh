/* ks-geometry.cuh: the thread → pixel traversal and the helpers that the
 * element-wise and histogram kernels share.
 *
 * The CPU engine mirrors this traversal exactly (coverage is compared pixel for
 * pixel), so any change here is a change of semantics.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "ks-kernel-common.h"

/* Host side: preconditions shared by the launchers. */

static inline bool
ks_ppt_is_valid (uint32_t ppt)
{
  return ppt == 1 || ppt == 2 || ppt == 4 || ppt == 8 || ppt == 16;
}

static inline bool
ks_geometry_is_valid (const KsGeometry *g)
{
  return g->grid.x != 0 && g->grid.y != 0 && g->grid.z != 0
         && g->block.x != 0 && g->block.y != 0 && g->block.z != 0
         && g->width != 0 && g->height != 0
         && (g->mode == KS_MAP_PER_PIXEL || g->mode == KS_MAP_GRID_STRIDE)
         && ks_ppt_is_valid (g->pixels_per_thread);
}

/* A buffer can be read or written with the vectors its kernel uses: ppt
 * consecutive pixels of bpp bytes, split into 16-byte accesses at most. A
 * misaligned vector access is a sticky error that ends CUDA in the process, so
 * it is refused here rather than faulting there. */
static inline bool
ks_buffer_is_valid (const void *data, size_t pitch, uint32_t width, uint32_t bpp, uint32_t ppt)
{
  size_t align = (size_t) ppt * bpp < 16 ? (size_t) ppt * bpp : 16;

  return data != NULL
         && (uintptr_t) data % align == 0
         && pitch % align == 0
         && pitch >= (size_t) width * bpp;
}

static inline bool
ks_coverage_is_valid (const KsCoverageBuffers *cov)
{
  return cov->writes == NULL
         || (cov->owner_block != NULL && cov->owner_thread != NULL && cov->idle_threads != NULL);
}

static inline dim3
ks_dim3 (KsDim3 d)
{
  return dim3 (d.x, d.y, d.z);
}

/* Device side. */

__device__ __forceinline__ uint32_t
ks_linear_block (void)
{
  /* Wraps modulo 2^32 like the owner_block counters it is stored in. */
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

__device__ __forceinline__ uint32_t
ks_linear_thread (void)
{
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ void
ks_coverage_record (const KsCoverageBuffers &cov, uint32_t width,
                    uint32_t y, uint32_t x0, uint32_t n)
{
  const uint32_t bid = ks_linear_block ();
  const uint32_t tid = ks_linear_thread ();
  const size_t base = (size_t) y * width + x0;

  for (uint32_t i = 0; i < n; i++)
    {
      atomicAdd (&cov.writes[base + i], 1u);
      cov.owner_block[base + i] = bid;
      cov.owner_thread[base + i] = tid;
    }
}

/* Runs load (y, x0, n) and then use (span, y, x0, n) for every span of at most
 * PPT pixels that this thread handles, n being the pixels of the span inside
 * the row (PPT except at the right edge). Returns false when the thread is
 * idle.
 *
 * With PREFETCH, grid-stride mode loads the next span before it uses the
 * current one, so every thread keeps a load in flight while it computes or
 * counts: with the few blocks per multiprocessor that grid-stride launches use,
 * one small load per thread is not enough bytes in flight to cover the memory
 * latency. It doubles the registers that hold spans, so callers whose spans are
 * already large (and so already many bytes in flight) go without.
 *
 * gx is formed in 64 bits because gridDim.x * blockDim.x * PPT can pass 2^32;
 * after the range test every x fits 32 bits, and the strides are stepped with
 * overflow-free comparisons (remaining > stride) instead of x + stride < end. */
template <uint32_t PPT, uint32_t MODE, bool PREFETCH, typename Load, typename Use>
__device__ __forceinline__ bool
ks_walk_spans (const KsGeometry &g, Load &&load, Use &&use)
{
  const uint32_t width = g.width;
  const uint32_t height = g.height;
  const uint32_t gy = blockIdx.y * blockDim.y + threadIdx.y;
  const uint32_t gz = blockIdx.z * blockDim.z + threadIdx.z;
  const uint64_t first_x = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) * PPT;

  if (gz != 0 || gy >= height || first_x >= width)
    return false;

  uint32_t y = gy;
  uint32_t x0 = (uint32_t) first_x;
  uint32_t n = min (PPT, width - x0);

  if constexpr (MODE == KS_MAP_PER_PIXEL)
    {
      auto span = load (y, x0, n);
      use (span, y, x0, n);
    }
  else
    {
      const uint64_t sx64 = (uint64_t) gridDim.x * blockDim.x * PPT;
      /* A stride of at least the width means one span per row. */
      const uint32_t sx = sx64 < width ? (uint32_t) sx64 : width;
      const uint32_t sy = gridDim.y * blockDim.y;
      const uint32_t row_x0 = x0;

      auto span = load (y, x0, n);
      for (;;)
        {
          uint32_t next_y = y;
          uint32_t next_x0;

          if (width - x0 > sx)
            next_x0 = x0 + sx;
          else if (height - y > sy)
            {
              next_y = y + sy;
              next_x0 = row_x0;
            }
          else
            break;

          const uint32_t next_n = min (PPT, width - next_x0);
          if constexpr (PREFETCH)
            {
              auto next = load (next_y, next_x0, next_n);
              use (span, y, x0, n);
              span = next;
            }
          else
            {
              use (span, y, x0, n);
              span = load (next_y, next_x0, next_n);
            }
          y = next_y;
          x0 = next_x0;
          n = next_n;
        }
      use (span, y, x0, n);
    }
  return true;
}

/* PPT packed RGBA8 pixels from row[x0 ...]: 16-byte read-only loads when the
 * whole span is inside the row, one pixel at a time (zeros after n) otherwise. */
template <uint32_t PPT>
__device__ __forceinline__ void
ks_load_rgba (const uint8_t *__restrict__ row, uint32_t x0, uint32_t n, uint32_t (&px)[PPT])
{
  const uint32_t *p = reinterpret_cast<const uint32_t *> (row) + x0;

  if (PPT == 1 || n == PPT)
    {
      if constexpr (PPT >= 4)
        {
#pragma unroll
          for (uint32_t i = 0; i < PPT / 4; i++)
            {
              const uint4 v = __ldg (reinterpret_cast<const uint4 *> (p) + i);
              px[4 * i + 0] = v.x;
              px[4 * i + 1] = v.y;
              px[4 * i + 2] = v.z;
              px[4 * i + 3] = v.w;
            }
        }
      else if constexpr (PPT == 2)
        {
          const uint2 v = __ldg (reinterpret_cast<const uint2 *> (p));
          px[0] = v.x;
          px[1] = v.y;
        }
      else
        px[0] = __ldg (p);
    }
  else
    {
#pragma unroll
      for (uint32_t i = 0; i < PPT; i++)
        px[i] = i < n ? __ldg (p + i) : 0u;
    }
}

/* PPT GRAY8 pixels from row[x0 ...], packed four to a word, low byte first:
 * one load of PPT bytes when the whole span is inside the row. */
template <uint32_t PPT>
__device__ __forceinline__ void
ks_load_gray (const uint8_t *__restrict__ row, uint32_t x0, uint32_t n,
              uint32_t (&w)[(PPT + 3) / 4])
{
  const uint8_t *p = row + x0;

  if (PPT == 1 || n == PPT)
    {
      if constexpr (PPT == 16)
        {
          const uint4 v = __ldg (reinterpret_cast<const uint4 *> (p));
          w[0] = v.x;
          w[1] = v.y;
          w[2] = v.z;
          w[3] = v.w;
        }
      else if constexpr (PPT == 8)
        {
          const uint2 v = __ldg (reinterpret_cast<const uint2 *> (p));
          w[0] = v.x;
          w[1] = v.y;
        }
      else if constexpr (PPT == 4)
        w[0] = __ldg (reinterpret_cast<const uint32_t *> (p));
      else if constexpr (PPT == 2)
        w[0] = __ldg (reinterpret_cast<const unsigned short *> (p));
      else
        w[0] = __ldg (p);
    }
  else
    {
#pragma unroll
      for (uint32_t k = 0; k < (PPT + 3) / 4; k++)
        w[k] = 0u;
#pragma unroll
      for (uint32_t i = 0; i < PPT; i++)
        if (i < n)
          w[i / 4] |= (uint32_t) __ldg (p + i) << (8 * (i % 4));
    }
}
