/* ks-kernel-common.h: definitions shared by the CUDA kernels and the CPU engine.
 *
 * Valid C (C11) and CUDA C++. Everything here is plain data and inline math, so
 * that the CPU engine and the device code compute the same function.
 */
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
# define KS_HD __host__ __device__ __forceinline__
#else
# define KS_HD static inline
#endif

#ifdef __cplusplus
# define KS_KERNEL_BEGIN_DECLS extern "C" {
# define KS_KERNEL_END_DECLS }
#else
# define KS_KERNEL_BEGIN_DECLS
# define KS_KERNEL_END_DECLS
#endif

KS_KERNEL_BEGIN_DECLS

/* How threads map onto pixels. */
typedef enum
{
  KS_MAP_PER_PIXEL = 0,  /* each thread owns pixels_per_thread pixels, once */
  KS_MAP_GRID_STRIDE = 1 /* threads stride over the image by the grid's extent */
} KsMapMode;

typedef struct
{
  uint32_t x, y, z;
} KsDim3;

/* Everything a kernel needs to know about the launch and the data. Passed by value. */
typedef struct
{
  KsDim3 grid;
  KsDim3 block;
  uint32_t mode;              /* KsMapMode */
  uint32_t pixels_per_thread; /* 1, 2, 4, 8 or 16: consecutive pixels along x */
  uint32_t width;
  uint32_t height;
} KsGeometry;

/* Parameters of an element-wise op, converted from the registry's typed values
 * on the host (for example weights to 16.16 fixed point) so that both engines
 * do integer arithmetic and agree to the bit. */
typedef struct
{
  int32_t i[8];
  float f[4];
  /* Lookup tables for the LUT ops: R, G, B, and luma. Built on the host once
   * per parameter change, so both engines map every value identically. */
  uint8_t lut[4][256];
} KsPixelParams;

/* Per-pixel instrumentation of one run. All pointers may be NULL when not
 * instrumenting. writes[] and owner_*[] have width*height elements. */
typedef struct
{
  uint32_t *writes;       /* how many times each pixel was written */
  uint32_t *owner_block;  /* linear block index of the last writer */
  uint32_t *owner_thread; /* linear thread index (within its block) of the last writer */
  unsigned long long *idle_threads; /* threads that touched no pixel */
} KsCoverageBuffers;

/* An image as a user kernel receives it (kernels/ks-user.cuh calls it
 * ks_image): passed by value, laid out the same in C on the host and in the
 * NVRTC-compiled code. channels is 4 for RGBA8 (R, G, B, A bytes) and 1 for
 * GRAY8. */
typedef struct
{
  uint8_t *data;
  uint64_t pitch;     /* bytes from one row to the next */
  uint32_t width;
  uint32_t height;
  uint32_t channels;
  uint32_t reserved;  /* zero */
} KsUserImage;

/* Without the usual (a + b - 1) / b, which wraps to 0 for b near 2^32. */
KS_HD uint32_t
ks_ceil_div_u32 (uint32_t a, uint32_t b)
{
  return a / b + (a % b != 0u);
}

KS_HD uint32_t
ks_clamp_u8 (int32_t v)
{
  return v < 0 ? 0u : (v > 255 ? 255u : (uint32_t) v);
}

KS_KERNEL_END_DECLS
