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

/* A thread's spans in grid-stride mode, in the order it visits them: across
 * its row by the grid's width in pixels, then down by the grid's height,
 * back at its first x. gx is formed in 64 bits because gridDim.x * blockDim.x
 * * PPT can pass 2^32; after the range test every x fits 32 bits, and the
 * strides are stepped with overflow-free comparisons (remaining > stride)
 * instead of x + stride < end. */
template <uint32_t PPT>
struct KsSpanCursor
{
  uint32_t width, height, sx, sy, row_x0;
  uint32_t y, x0, n; /* the span the cursor is on */
  bool valid;        /* false once the thread has no span left (or had none) */

  __device__ __forceinline__ explicit KsSpanCursor (const KsGeometry &g)
  {
    const uint32_t gy = blockIdx.y * blockDim.y + threadIdx.y;
    const uint32_t gz = blockIdx.z * blockDim.z + threadIdx.z;
    const uint64_t first_x = ((uint64_t) blockIdx.x * blockDim.x + threadIdx.x) * PPT;
    const uint64_t sx64 = (uint64_t) gridDim.x * blockDim.x * PPT;

    width = g.width;
    height = g.height;
    /* A stride of at least the width means one span per row. */
    sx = sx64 < width ? (uint32_t) sx64 : width;
    sy = gridDim.y * blockDim.y;
    valid = gz == 0 && gy < height && first_x < width;
    y = gy;
    x0 = valid ? (uint32_t) first_x : 0u;
    row_x0 = x0;
    n = valid ? min (PPT, width - x0) : 0u;
  }

  __device__ __forceinline__ void
  advance ()
  {
    if (width - x0 > sx)
      x0 += sx;
    else if (height - y > sy)
      {
        y += sy;
        x0 = row_x0;
      }
    else
      {
        valid = false;
        return;
      }
    n = min (PPT, width - x0);
  }
};

/* Runs load (y, x0, n) and then use (span, y, x0, n) for every span of at most
 * PPT pixels that this thread handles, n being the pixels of the span inside
 * the row (PPT except at the right edge). Returns false when the thread is
 * idle.
 *
 * In grid-stride mode the thread keeps DEPTH spans loaded ahead of the one it
 * uses, so that its loads are in flight while it computes, counts or stores:
 * with the one wave of blocks that grid-stride launches use, a thread that
 * waited for each load in turn would leave too few bytes in flight to cover
 * the memory latency. Each span held costs its registers, so callers whose
 * spans are large go with fewer. The spans are used in the walk's order
 * whatever the depth.
 *
 * start () runs once in every thread of the block, idle or not, at one point
 * of the code, so it may wait for the block (__syncthreads): in grid-stride
 * mode with spans held ahead, after the thread's first loads are issued and
 * before the first use, so that it overlaps their latency; otherwise before
 * anything. */
template <uint32_t PPT, uint32_t MODE, uint32_t DEPTH, typename Start, typename Load, typename Use>
__device__ __forceinline__ bool
ks_walk_spans_after (const KsGeometry &g, Start &&start, Load &&load, Use &&use)
{
  KsSpanCursor<PPT> c (g);

  if constexpr (MODE == KS_MAP_PER_PIXEL || DEPTH == 0)
    {
      start ();
      if (!c.valid)
        return false;
      do
        {
          auto span = load (c.y, c.x0, c.n);
          const uint32_t y = c.y, x0 = c.x0, n = c.n;
          if constexpr (MODE != KS_MAP_PER_PIXEL)
            c.advance ();
          use (span, y, x0, n);
        }
      while (MODE != KS_MAP_PER_PIXEL && c.valid);
    }
  else
    {
      typedef decltype (load (0u, 0u, 0u)) Span;
      Span q[DEPTH];
      uint32_t qy[DEPTH], qx[DEPTH], qn[DEPTH];
      uint32_t queued = 0;

      /* Fill the queue, then: take the front, load one more at the back, use
       * the front. */
#pragma unroll
      for (uint32_t k = 0; k < DEPTH; k++)
        if (c.valid)
          {
            q[k] = load (c.y, c.x0, c.n);
            qy[k] = c.y;
            qx[k] = c.x0;
            qn[k] = c.n;
            queued++;
            c.advance ();
          }
      start ();
      if (queued == 0)
        return false;
      while (queued > 0)
        {
          const Span span = q[0];
          const uint32_t y = qy[0], x0 = qx[0], n = qn[0];
#pragma unroll
          for (uint32_t k = 0; k + 1 < DEPTH; k++)
            {
              q[k] = q[k + 1];
              qy[k] = qy[k + 1];
              qx[k] = qx[k + 1];
              qn[k] = qn[k + 1];
            }
          if (c.valid)
            {
              q[DEPTH - 1] = load (c.y, c.x0, c.n);
              qy[DEPTH - 1] = c.y;
              qx[DEPTH - 1] = c.x0;
              qn[DEPTH - 1] = c.n;
              c.advance ();
            }
          else
            queued--;
          use (span, y, x0, n);
        }
    }
  return true;
}

/* ks_walk_spans_after with nothing to do before the first use. */
template <uint32_t PPT, uint32_t MODE, uint32_t DEPTH, typename Load, typename Use>
__device__ __forceinline__ bool
ks_walk_spans (const KsGeometry &g, Load &&load, Use &&use)
{
  return ks_walk_spans_after<PPT, MODE, DEPTH> (g, [] {}, load, use);
}

/* Spans to keep loaded ahead in grid-stride mode: three of 16 bytes or
 * fewer (64 bytes in flight with the one in use), one of up to max_bytes, none
 * of larger ones, whose registers would cost more occupancy than the loads
 * ahead repay. The histogram takes its own count for 16-byte spans
 * (ks_hist_prefetch_depth) and this one for the others. */
__host__ __device__ constexpr uint32_t
ks_prefetch_depth (uint32_t span_bytes, uint32_t max_bytes)
{
  return span_bytes <= 16u ? 3u : span_bytes <= max_bytes ? 1u : 0u;
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

/* Stores of a span's results, the mirror of the loads above: 16-byte
 * vectors when the whole span is inside the row, one pixel at a time at the
 * right edge. The element-wise ops and user expressions share them. */

/* The low bytes of four results as one word, the first in the low byte. */
__device__ __forceinline__ uint32_t
ks_pack_low_bytes (uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
  return __byte_perm (__byte_perm (r0, r1, 0x0040), __byte_perm (r2, r3, 0x0040), 0x5410);
}

template <uint32_t PPT>
__device__ __forceinline__ void
ks_store_rgba (uint8_t *__restrict__ row, uint32_t x0, uint32_t n, const uint32_t (&r)[PPT])
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
ks_store_gray (uint8_t *__restrict__ row, uint32_t x0, uint32_t n, const uint32_t (&r)[PPT])
{
  uint8_t *p = row + x0;

  if (PPT == 1 || n == PPT)
    {
      if constexpr (PPT >= 4)
        {
          uint32_t w[PPT / 4];
#pragma unroll
          for (uint32_t k = 0; k < PPT / 4; k++)
            w[k] = ks_pack_low_bytes (r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
          if constexpr (PPT == 16)
            *reinterpret_cast<uint4 *> (p) = make_uint4 (w[0], w[1], w[2], w[3]);
          else if constexpr (PPT == 8)
            *reinterpret_cast<uint2 *> (p) = make_uint2 (w[0], w[1]);
          else
            *reinterpret_cast<uint32_t *> (p) = w[0];
        }
      else if constexpr (PPT == 2)
        *reinterpret_cast<unsigned short *> (p) =
          (unsigned short) ((r[0] & 0xffu) | (r[1] & 0xffu) << 8);
      else
        p[0] = (uint8_t) r[0];
    }
  else
    {
#pragma unroll
      for (uint32_t i = 0; i < PPT; i++)
        if (i < n)
          p[i] = (uint8_t) r[i];
    }
}
