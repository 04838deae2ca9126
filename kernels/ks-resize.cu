/* ks-resize.cu: resampling of RGBA8 images to any size (ks-resize.h).
 *
 * The threads cover the OUTPUT with the traversal of ks-geometry.cuh; each
 * thread produces PPT consecutive output pixels of one row and stores them with
 * 16-byte stores. Source pixels are gathered with 4-byte read-only loads: their
 * addresses depend on the scale, but neighbouring threads read neighbouring
 * source pixels, so the loads of a warp still fall into few sectors.
 *
 * The header's formulas divide 64-bit numerators per pixel, which the GPU
 * emulates in some hundred instructions. Here each axis is written as
 * N(x) = a·x + b over the divisor d = dst: the first quotient of a span comes
 * from a double division (exact, see ks_axis_first) and the next ones from
 * stepping the quotient and remainder by a = Q·d + R, which gives the same
 * integers as the header's division without dividing again.
 */

#include "ks-kernels.h"
#include "ks-resize.h"
#include "ks-geometry.cuh"

namespace {

/* One axis of the mapping: N(x) = a·x + b, q(x) = N(x) / d. Bilinear:
 * a = 2·src·2^15, b = src·2^15, and f = q − 2^15; nearest: a = src, b = 0,
 * and the source index is q. */
struct KsAxis
{
  uint64_t a, b;
  uint32_t d;      /* the output's size along the axis */
  uint32_t step_q; /* a / d; below 2^31 since src ≤ 16384 */
  uint32_t step_r; /* a % d */
  uint32_t src;    /* the source's size along the axis */
};

struct KsResizeArgs
{
  KsAxis x, y;
};

/* q(x) and N(x) mod d. N < 2^45 and q < 2^31: the correctly rounded double
 * quotient of two integers below 2^53 is off by less than q·2^−53 < 2^−22,
 * while a non-integer N/d is at least 1/d ≥ 2^−14 from any integer, so its
 * floor is the integer quotient. */
__device__ __forceinline__ void
ks_axis_first (const KsAxis &ax, uint32_t x, uint32_t *q, uint32_t *r)
{
  const uint64_t n = ax.a * x + ax.b;
  const uint32_t qq = (uint32_t) floor (__ull2double_rn (n) / (double) ax.d);

  *q = qq;
  *r = (uint32_t) (n - (uint64_t) qq * ax.d);
}

__device__ __forceinline__ void
ks_axis_next (const KsAxis &ax, uint32_t *q, uint32_t *r)
{
  /* r < d ≤ 16384 and step_r < d: the sum cannot wrap. */
  *q += ax.step_q;
  *r += ax.step_r;
  if (*r >= ax.d)
    {
      *r -= ax.d;
      *q += 1;
    }
}

/* ks_resize_axis from the quotient, for the mode the kernel is built for. */
template <int MODE>
__device__ __forceinline__ void
ks_axis_resolve (uint32_t q, uint32_t src, uint32_t *i0, uint32_t *i1, uint32_t *w)
{
  if constexpr (MODE == KS_RESIZE_NEAREST)
    {
      *i0 = *i1 = q < src ? q : src - 1;
      *w = 0;
    }
  else
    {
      if (q < 32768u)
        {
          *i0 = *i1 = 0;
          *w = 0;
          return;
        }
      const uint32_t f = q - 32768u;
      uint32_t s = f >> 16;
      s = s < src - 1 ? s : src - 1;
      *i0 = s;
      *i1 = s + 1 < src ? s + 1 : src - 1;
      *w = (f & 0xffffu) >> 8;
    }
}

template <uint32_t PPT>
__device__ __forceinline__ void
ks_resize_store (uint8_t *__restrict__ row, uint32_t x0, uint32_t n, const uint32_t (&r)[PPT])
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
struct KsResizeSpan
{
  uint32_t px[PPT];
};

/* The gathers and the blend happen in load, so that with the grid-stride
 * prefetch the next span's loads are in flight while this span is stored. The
 * pixels past n (right edge) are computed from clamped indices and not stored. */
template <int MODE, uint32_t PPT, uint32_t MAP, bool INSTRUMENTED>
__global__ void
ks_resize_kernel (KsGeometry g, KsResizeArgs args,
                  const uint8_t *__restrict__ src, size_t src_pitch,
                  uint8_t *__restrict__ out, size_t out_pitch,
                  KsCoverageBuffers cov)
{
  auto load = [&] (uint32_t y, uint32_t x0, uint32_t n) {
    KsResizeSpan<PPT> s;
    uint32_t qy, ry, y0, y1, wy, qx, rx;

    (void) n;
    ks_axis_first (args.y, y, &qy, &ry);
    ks_axis_resolve<MODE> (qy, args.y.src, &y0, &y1, &wy);
    const uint32_t *r0 = reinterpret_cast<const uint32_t *> (src + (size_t) y0 * src_pitch);
    const uint32_t *r1 = reinterpret_cast<const uint32_t *> (src + (size_t) y1 * src_pitch);

    ks_axis_first (args.x, x0, &qx, &rx);
#pragma unroll
    for (uint32_t i = 0; i < PPT; i++)
      {
        uint32_t xa, xb, wx;
        ks_axis_resolve<MODE> (qx, args.x.src, &xa, &xb, &wx);
        if constexpr (MODE == KS_RESIZE_NEAREST)
          s.px[i] = __ldg (r0 + xa);
        else
          s.px[i] = ks_resize_blend (__ldg (r0 + xa), __ldg (r0 + xb), __ldg (r1 + xa),
                                     __ldg (r1 + xb), wx, wy);
        if (i + 1 < PPT)
          ks_axis_next (args.x, &qx, &rx);
      }
    return s;
  };

  auto use = [&] (const KsResizeSpan<PPT> &s, uint32_t y, uint32_t x0, uint32_t n) {
    ks_resize_store<PPT> (out + (size_t) y * out_pitch, x0, n, s.px);
    if constexpr (INSTRUMENTED)
      ks_coverage_record (cov, g.width, y, x0, n);
  };

  const bool handled = ks_walk_spans<PPT, MAP, 1> (g, load, use);

  if constexpr (INSTRUMENTED)
    {
      if (!handled)
        atomicAdd (cov.idle_threads, 1ull);
    }
  else
    (void) handled;
}

typedef void (*KsResizeKernel) (KsGeometry, KsResizeArgs, const uint8_t *, size_t, uint8_t *,
                                size_t, KsCoverageBuffers);

template <int MODE, uint32_t PPT, uint32_t MAP>
KsResizeKernel
ks_resize_pick_instrumented (bool instrumented)
{
  return instrumented ? ks_resize_kernel<MODE, PPT, MAP, true>
                      : ks_resize_kernel<MODE, PPT, MAP, false>;
}

template <int MODE, uint32_t PPT>
KsResizeKernel
ks_resize_pick_map (uint32_t map, bool instrumented)
{
  return map == KS_MAP_GRID_STRIDE
           ? ks_resize_pick_instrumented<MODE, PPT, KS_MAP_GRID_STRIDE> (instrumented)
           : ks_resize_pick_instrumented<MODE, PPT, KS_MAP_PER_PIXEL> (instrumented);
}

template <int MODE>
KsResizeKernel
ks_resize_pick_ppt (uint32_t ppt, uint32_t map, bool instrumented)
{
  switch (ppt)
    {
    case 1: return ks_resize_pick_map<MODE, 1> (map, instrumented);
    case 2: return ks_resize_pick_map<MODE, 2> (map, instrumented);
    case 4: return ks_resize_pick_map<MODE, 4> (map, instrumented);
    case 8: return ks_resize_pick_map<MODE, 8> (map, instrumented);
    case 16: return ks_resize_pick_map<MODE, 16> (map, instrumented);
    default: return NULL;
    }
}

KsResizeKernel
ks_resize_pick (const KsResizeParams *p, const KsGeometry *g, bool instrumented)
{
  if (g->mode != KS_MAP_PER_PIXEL && g->mode != KS_MAP_GRID_STRIDE)
    return NULL;
  switch (p->mode)
    {
    case KS_RESIZE_NEAREST:
      return ks_resize_pick_ppt<KS_RESIZE_NEAREST> (g->pixels_per_thread, g->mode, instrumented);
    case KS_RESIZE_BILINEAR:
      return ks_resize_pick_ppt<KS_RESIZE_BILINEAR> (g->pixels_per_thread, g->mode,
                                                     instrumented);
    default:
      return NULL;
    }
}

KsAxis
ks_axis_make (int32_t mode, uint32_t src, uint32_t dst)
{
  KsAxis ax;

  if (mode == KS_RESIZE_NEAREST)
    {
      ax.a = src;
      ax.b = 0;
    }
  else
    {
      ax.a = (uint64_t) src << 16;
      ax.b = (uint64_t) src << 15;
    }
  ax.d = dst;
  ax.step_q = (uint32_t) (ax.a / dst);
  ax.step_r = (uint32_t) (ax.a % dst);
  ax.src = src;
  return ax;
}

bool
ks_resize_sizes_are_valid (const KsResizeParams *p, const KsGeometry *g)
{
  /* Sizes past 16384 would break the bounds that make the double quotient
   * exact (ks_axis_first). */
  return p->src_width >= 1 && p->src_width <= 16384 && p->src_height >= 1
         && p->src_height <= 16384 && g->width <= 16384 && g->height <= 16384;
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_resize_launch (KsGeometry geom,
                       const KsResizeParams *params,
                       const uint8_t *src, size_t src_pitch,
                       uint8_t *out, size_t out_pitch,
                       KsCoverageBuffers cov,
                       cudaStream_t stream)
{
  if (params == NULL || !ks_geometry_is_valid (&geom) || !ks_coverage_is_valid (&cov)
      || !ks_resize_sizes_are_valid (params, &geom))
    return cudaErrorInvalidValue;

  const KsResizeKernel kernel = ks_resize_pick (params, &geom, cov.writes != NULL);
  KsResizeArgs args;

  /* The source is gathered one pixel at a time: 4-byte alignment is enough. */
  if (kernel == NULL || !ks_buffer_is_valid (src, src_pitch, params->src_width, 4, 1)
      || !ks_buffer_is_valid (out, out_pitch, geom.width, 4, geom.pixels_per_thread))
    return cudaErrorInvalidValue;

  args.x = ks_axis_make (params->mode, params->src_width, geom.width);
  args.y = ks_axis_make (params->mode, params->src_height, geom.height);
  kernel<<<ks_dim3 (geom.grid), ks_dim3 (geom.block), 0, stream>>> (geom, args, src, src_pitch,
                                                                     out, out_pitch, cov);
  return cudaGetLastError ();
}

extern "C" cudaError_t
ks_cuda_resize_attributes (const KsResizeParams *params,
                           KsGeometry geom,
                           int instrumented,
                           struct cudaFuncAttributes *attr)
{
  if (params == NULL || attr == NULL)
    return cudaErrorInvalidValue;

  const KsResizeKernel kernel = ks_resize_pick (params, &geom, instrumented != 0);

  if (kernel == NULL)
    return cudaErrorInvalidValue;
  return cudaFuncGetAttributes (attr, reinterpret_cast<const void *> (kernel));
}

extern "C" cudaError_t
ks_cuda_resize_occupancy (const KsResizeParams *params, KsGeometry geom, int instrumented,
                          size_t shared, int *blocks)
{
  if (params == NULL || blocks == NULL)
    return cudaErrorInvalidValue;

  const KsResizeKernel kernel = ks_resize_pick (params, &geom, instrumented != 0);

  if (kernel == NULL)
    return cudaErrorInvalidValue;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor (blocks, kernel, (int) (geom.block.x * geom.block.y * geom.block.z),
                                                        shared);
}
