/* ks-resize.h: resampling to any output size, exact in integers, shared by the
 * CUDA kernel and the CPU engine. The launch geometry covers the OUTPUT.
 *
 * Nearest: sx = x · src_w / dst_w (integer division), likewise y.
 * Bilinear (pixel centres aligned): f = (2x + 1) · src_w · 2^15 / dst_w − 2^15 in
 *   16.16 fixed point (64-bit), x0 = f >> 16 clamped to [0, src_w − 1],
 *   x1 = min(x0 + 1, src_w − 1), w = (f & 0xffff) >> 8 (0..255; 0 where f < 0);
 *   likewise y; per channel (alpha too):
 *   out = ((p00·(256 − wx) + p01·wx)·(256 − wy) + (p10·(256 − wx) + p11·wx)·wy + 32768) >> 16.
 */
#pragma once

#include "ks-kernel-common.h"

/* Its launchers are declared (at the end) where CUDA's headers are: nvcc, or a
 * C file of a build with CUDA. */
#if defined(__CUDACC__) || (defined(HAVE_CUDA) && HAVE_CUDA)
#include <cuda_runtime_api.h>
#define KS_RESIZE_LAUNCHERS 1
#else
#define KS_RESIZE_LAUNCHERS 0
#endif

KS_KERNEL_BEGIN_DECLS

typedef enum
{
  KS_RESIZE_NEAREST = 0,
  KS_RESIZE_BILINEAR = 1,
} KsResizeMode;

typedef struct
{
  int32_t mode;         /* KsResizeMode */
  uint32_t src_width;
  uint32_t src_height;
} KsResizeParams;

/* Source coordinate and weight along one axis for output coordinate x. */
KS_HD void
ks_resize_axis (uint32_t x, uint32_t src, uint32_t dst, int32_t mode, uint32_t *i0, uint32_t *i1,
                uint32_t *w)
{
  if (mode == KS_RESIZE_NEAREST)
    {
      uint32_t s = (uint32_t) (((uint64_t) x * src) / dst);
      *i0 = *i1 = s < src ? s : src - 1;
      *w = 0;
      return;
    }
  {
    int64_t f = (int64_t) ((((uint64_t) (2u * x + 1u)) * src << 15) / dst) - 32768;
    if (f < 0)
      {
        *i0 = *i1 = 0;
        *w = 0;
        return;
      }
    *i0 = (uint32_t) (f >> 16);
    if (*i0 > src - 1)
      *i0 = src - 1;
    *i1 = *i0 + 1 < src ? *i0 + 1 : src - 1;
    *w = (uint32_t) ((f & 0xffff) >> 8);
  }
}

KS_HD uint32_t
ks_resize_blend (uint32_t p00, uint32_t p01, uint32_t p10, uint32_t p11, uint32_t wx,
                 uint32_t wy)
{
  uint32_t out = 0;

  for (uint32_t s = 0; s < 32; s += 8)
    {
      uint32_t a = (p00 >> s) & 0xffu, b = (p01 >> s) & 0xffu;
      uint32_t c = (p10 >> s) & 0xffu, d = (p11 >> s) & 0xffu;
      uint32_t top = a * (256u - wx) + b * wx, bottom = c * (256u - wx) + d * wx;
      out |= ((top * (256u - wy) + bottom * wy + 32768u) >> 16) << s;
    }
  return out;
}

/* The launchers (kernels/ks-resize.cu), for the op's file and the kernels only. Each
 * checks its preconditions, launches on the stream and returns
 * cudaGetLastError(); pitches are in bytes. */
#if KS_RESIZE_LAUNCHERS
/* Resampling (ks-resize.h): RGBA8 src of params->src_width × src_height into
 * an RGBA8 output of geom.width × geom.height. */
cudaError_t ks_cuda_resize_launch (KsGeometry geom,
                                   const KsResizeParams *params,
                                   const uint8_t *src, size_t src_pitch,
                                   uint8_t *out, size_t out_pitch,
                                   KsCoverageBuffers cov,
                                   cudaStream_t stream);
cudaError_t ks_cuda_resize_attributes (const KsResizeParams *params,
                                       KsGeometry geom,
                                       int instrumented,
                                       struct cudaFuncAttributes *attr);
/* Blocks per multiprocessor by the runtime's occupancy calculator
 * (ks-kernels.h says what it is checked against). */
cudaError_t ks_cuda_resize_occupancy (const KsResizeParams *params, KsGeometry geom,
                                      int instrumented, size_t shared, int *blocks);
#endif

KS_KERNEL_END_DECLS
