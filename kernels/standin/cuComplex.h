/* cuComplex.h for kernels compiled by NVRTC: CUDA's complex numbers, single
 * precision in a float2 (x real, y imaginary) and double in a double2, with
 * the same names and meanings as the toolkit's header: make_cuFloatComplex,
 * cuCrealf, cuCimagf, cuConjf, cuCaddf, cuCsubf, cuCmulf, cuCdivf, cuCabsf,
 * cuCfmaf, their double twins without the f, cuComplex (the float type) and
 * the conversions between the two precisions. Division and the absolute
 * value scale their operands first, so that they neither overflow nor
 * underflow where the result itself is representable. */
#pragma once

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

__host__ __device__ static __inline__ float
cuCrealf (cuFloatComplex z)
{
  return z.x;
}

__host__ __device__ static __inline__ float
cuCimagf (cuFloatComplex z)
{
  return z.y;
}

__host__ __device__ static __inline__ cuFloatComplex
make_cuFloatComplex (float re, float im)
{
  cuFloatComplex z;
  z.x = re;
  z.y = im;
  return z;
}

__host__ __device__ static __inline__ cuFloatComplex
cuConjf (cuFloatComplex z)
{
  return make_cuFloatComplex (z.x, -z.y);
}

__host__ __device__ static __inline__ cuFloatComplex
cuCaddf (cuFloatComplex a, cuFloatComplex b)
{
  return make_cuFloatComplex (a.x + b.x, a.y + b.y);
}

__host__ __device__ static __inline__ cuFloatComplex
cuCsubf (cuFloatComplex a, cuFloatComplex b)
{
  return make_cuFloatComplex (a.x - b.x, a.y - b.y);
}

__host__ __device__ static __inline__ cuFloatComplex
cuCmulf (cuFloatComplex a, cuFloatComplex b)
{
  return make_cuFloatComplex (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* a / b with both scaled by 1 / (|b.x| + |b.y|). */
__host__ __device__ static __inline__ cuFloatComplex
cuCdivf (cuFloatComplex a, cuFloatComplex b)
{
  const float s = 1.0f / (fabsf (b.x) + fabsf (b.y));
  const float ax = a.x * s, ay = a.y * s, bx = b.x * s, by = b.y * s;
  const float d = 1.0f / (bx * bx + by * by);

  return make_cuFloatComplex ((ax * bx + ay * by) * d, (ay * bx - ax * by) * d);
}

/* |z|, the larger part factored out: (big) sqrt (1 + (small / big)²). */
__host__ __device__ static __inline__ float
cuCabsf (cuFloatComplex z)
{
  const float a = fabsf (z.x), b = fabsf (z.y);
  float big, small, r;

  if (a > 3.402823466e38f || b > 3.402823466e38f)
    return a > 3.402823466e38f ? a : b;   /* an infinite part, even beside a NaN */
  if (a != a || b != b)
    return a + b;               /* NaN */
  big = fmaxf (a, b);
  small = fminf (a, b);
  if (big == 0.0f)
    return 0.0f;
  r = small / big;
  return big * sqrtf (1.0f + r * r);
}

/* x * y + d */
__host__ __device__ static __inline__ cuFloatComplex
cuCfmaf (cuFloatComplex x, cuFloatComplex y, cuFloatComplex d)
{
  return make_cuFloatComplex (x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}

__host__ __device__ static __inline__ double
cuCreal (cuDoubleComplex z)
{
  return z.x;
}

__host__ __device__ static __inline__ double
cuCimag (cuDoubleComplex z)
{
  return z.y;
}

__host__ __device__ static __inline__ cuDoubleComplex
make_cuDoubleComplex (double re, double im)
{
  cuDoubleComplex z;
  z.x = re;
  z.y = im;
  return z;
}

__host__ __device__ static __inline__ cuDoubleComplex
cuConj (cuDoubleComplex z)
{
  return make_cuDoubleComplex (z.x, -z.y);
}

__host__ __device__ static __inline__ cuDoubleComplex
cuCadd (cuDoubleComplex a, cuDoubleComplex b)
{
  return make_cuDoubleComplex (a.x + b.x, a.y + b.y);
}

__host__ __device__ static __inline__ cuDoubleComplex
cuCsub (cuDoubleComplex a, cuDoubleComplex b)
{
  return make_cuDoubleComplex (a.x - b.x, a.y - b.y);
}

__host__ __device__ static __inline__ cuDoubleComplex
cuCmul (cuDoubleComplex a, cuDoubleComplex b)
{
  return make_cuDoubleComplex (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__host__ __device__ static __inline__ cuDoubleComplex
cuCdiv (cuDoubleComplex a, cuDoubleComplex b)
{
  const double s = 1.0 / (fabs (b.x) + fabs (b.y));
  const double ax = a.x * s, ay = a.y * s, bx = b.x * s, by = b.y * s;
  const double d = 1.0 / (bx * bx + by * by);

  return make_cuDoubleComplex ((ax * bx + ay * by) * d, (ay * bx - ax * by) * d);
}

__host__ __device__ static __inline__ double
cuCabs (cuDoubleComplex z)
{
  const double a = fabs (z.x), b = fabs (z.y);
  double big, small, r;

  if (a > 1.7976931348623157e308 || b > 1.7976931348623157e308)
    return a > 1.7976931348623157e308 ? a : b;   /* an infinite part, even beside a NaN */
  if (a != a || b != b)
    return a + b;               /* NaN */
  big = fmax (a, b);
  small = fmin (a, b);
  if (big == 0.0)
    return 0.0;
  r = small / big;
  return big * sqrt (1.0 + r * r);
}

__host__ __device__ static __inline__ cuDoubleComplex
cuCfma (cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d)
{
  return make_cuDoubleComplex (x.x * y.x - x.y * y.y + d.x, x.x * y.y + x.y * y.x + d.y);
}

__host__ __device__ static __inline__ cuComplex
make_cuComplex (float re, float im)
{
  return make_cuFloatComplex (re, im);
}

__host__ __device__ static __inline__ cuDoubleComplex
cuComplexFloatToDouble (cuFloatComplex z)
{
  return make_cuDoubleComplex ((double) z.x, (double) z.y);
}

__host__ __device__ static __inline__ cuFloatComplex
cuComplexDoubleToFloat (cuDoubleComplex z)
{
  return make_cuFloatComplex ((float) z.x, (float) z.y);
}
