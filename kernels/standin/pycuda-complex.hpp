/* pycuda-complex.hpp for kernels compiled by NVRTC: the complex type that
 * PyCUDA's kernels include under this name, pycuda::complex<float> and
 * pycuda::complex<double>: a real and an imaginary part in that order,
 * aligned to twice the part's size (8 bytes for float, 16 for double, as
 * numpy's complex64 and complex128 lie in memory), with the arithmetic,
 * comparisons and functions of the standard library's std::complex:
 * real, imag, abs, arg, norm, conj, polar, exp, log, log10, sqrt, pow,
 * sin, cos, tan, sinh, cosh, tanh. abs and division scale their operands
 * first, so that they neither overflow nor underflow where the result
 * itself is representable. */
#pragma once

namespace pycuda
{

template <typename T>
struct alignas (2 * sizeof (T)) complex
{
  typedef T value_type;

  T _M_re;
  T _M_im;

  __host__ __device__ complex (const T &re = T (), const T &im = T ()) : _M_re (re), _M_im (im) {}

  template <typename U>
  __host__ __device__ explicit complex (const complex<U> &z)
    : _M_re ((T) z.real ()), _M_im ((T) z.imag ()) {}

  __host__ __device__ T real () const { return _M_re; }
  __host__ __device__ T imag () const { return _M_im; }
  __host__ __device__ void real (T re) { _M_re = re; }
  __host__ __device__ void imag (T im) { _M_im = im; }

  __host__ __device__ complex &operator= (const T &x)
  {
    _M_re = x;
    _M_im = T ();
    return *this;
  }
  __host__ __device__ complex &operator+= (const T &x) { _M_re += x; return *this; }
  __host__ __device__ complex &operator-= (const T &x) { _M_re -= x; return *this; }
  __host__ __device__ complex &operator*= (const T &x) { _M_re *= x; _M_im *= x; return *this; }
  __host__ __device__ complex &operator/= (const T &x) { _M_re /= x; _M_im /= x; return *this; }

  __host__ __device__ complex &operator+= (const complex &z)
  {
    _M_re += z._M_re;
    _M_im += z._M_im;
    return *this;
  }
  __host__ __device__ complex &operator-= (const complex &z)
  {
    _M_re -= z._M_re;
    _M_im -= z._M_im;
    return *this;
  }
  __host__ __device__ complex &operator*= (const complex &z)
  {
    const T re = _M_re * z._M_re - _M_im * z._M_im;

    _M_im = _M_re * z._M_im + _M_im * z._M_re;
    _M_re = re;
    return *this;
  }
  __host__ __device__ complex &operator/= (const complex &z)
  {
    /* Smith's method: divide by the larger part of z first. */
    const T ar = z._M_re < T () ? -z._M_re : z._M_re;
    const T ai = z._M_im < T () ? -z._M_im : z._M_im;
    T re, im;

    if (ar >= ai)
      {
        const T r = z._M_im / z._M_re, d = z._M_re + z._M_im * r;
        re = (_M_re + _M_im * r) / d;
        im = (_M_im - _M_re * r) / d;
      }
    else
      {
        const T r = z._M_re / z._M_im, d = z._M_re * r + z._M_im;
        re = (_M_re * r + _M_im) / d;
        im = (_M_im * r - _M_re) / d;
      }
    _M_re = re;
    _M_im = im;
    return *this;
  }
};

template <typename T>
__host__ __device__ inline T real (const complex<T> &z) { return z.real (); }
template <typename T>
__host__ __device__ inline T imag (const complex<T> &z) { return z.imag (); }
template <typename T>
__host__ __device__ inline complex<T> conj (const complex<T> &z)
{
  return complex<T> (z.real (), -z.imag ());
}
template <typename T>
__host__ __device__ inline T norm (const complex<T> &z)
{
  return z.real () * z.real () + z.imag () * z.imag ();
}
__host__ __device__ inline float abs (const complex<float> &z) { return hypotf (z.real (), z.imag ()); }
__host__ __device__ inline double abs (const complex<double> &z) { return hypot (z.real (), z.imag ()); }
__host__ __device__ inline float arg (const complex<float> &z) { return atan2f (z.imag (), z.real ()); }
__host__ __device__ inline double arg (const complex<double> &z) { return atan2 (z.imag (), z.real ()); }

template <typename T>
__host__ __device__ inline complex<T> operator+ (const complex<T> &z) { return z; }
template <typename T>
__host__ __device__ inline complex<T> operator- (const complex<T> &z)
{
  return complex<T> (-z.real (), -z.imag ());
}

#define KS_PYCUDA_COMPLEX_BINARY(OP)                                                     \
  template <typename T>                                                                  \
  __host__ __device__ inline complex<T> operator OP (const complex<T> &a, const complex<T> &b) \
  {                                                                                      \
    complex<T> r = a;                                                                    \
    r OP##= b;                                                                           \
    return r;                                                                            \
  }                                                                                      \
  template <typename T>                                                                  \
  __host__ __device__ inline complex<T> operator OP (const complex<T> &a, const T &b)    \
  {                                                                                      \
    complex<T> r = a;                                                                    \
    r OP##= b;                                                                           \
    return r;                                                                            \
  }                                                                                      \
  template <typename T>                                                                  \
  __host__ __device__ inline complex<T> operator OP (const T &a, const complex<T> &b)    \
  {                                                                                      \
    complex<T> r = a;                                                                    \
    r OP##= b;                                                                           \
    return r;                                                                            \
  }

KS_PYCUDA_COMPLEX_BINARY (+)
KS_PYCUDA_COMPLEX_BINARY (-)
KS_PYCUDA_COMPLEX_BINARY (*)
KS_PYCUDA_COMPLEX_BINARY (/)
#undef KS_PYCUDA_COMPLEX_BINARY

template <typename T>
__host__ __device__ inline bool operator== (const complex<T> &a, const complex<T> &b)
{
  return a.real () == b.real () && a.imag () == b.imag ();
}
template <typename T>
__host__ __device__ inline bool operator== (const complex<T> &a, const T &b)
{
  return a.real () == b && a.imag () == T ();
}
template <typename T>
__host__ __device__ inline bool operator!= (const complex<T> &a, const complex<T> &b)
{
  return !(a == b);
}
template <typename T>
__host__ __device__ inline bool operator!= (const complex<T> &a, const T &b)
{
  return !(a == b);
}

__host__ __device__ inline complex<float> polar (float r, float theta = 0)
{
  float s, c;
  sincosf (theta, &s, &c);
  return complex<float> (r * c, r * s);
}
__host__ __device__ inline complex<double> polar (double r, double theta = 0)
{
  double s, c;
  sincos (theta, &s, &c);
  return complex<double> (r * c, r * s);
}

/* The functions, for float and double alike: each names the real functions
 * of its precision through these overloads. */
__host__ __device__ inline float ks_pc_exp (float x) { return expf (x); }
__host__ __device__ inline double ks_pc_exp (double x) { return ::exp (x); }
__host__ __device__ inline float ks_pc_log (float x) { return logf (x); }
__host__ __device__ inline double ks_pc_log (double x) { return ::log (x); }
__host__ __device__ inline float ks_pc_sqrt (float x) { return sqrtf (x); }
__host__ __device__ inline double ks_pc_sqrt (double x) { return ::sqrt (x); }
__host__ __device__ inline void ks_pc_sincos (float x, float *s, float *c) { sincosf (x, s, c); }
__host__ __device__ inline void ks_pc_sincos (double x, double *s, double *c) { sincos (x, s, c); }
__host__ __device__ inline float ks_pc_sinh (float x) { return sinhf (x); }
__host__ __device__ inline double ks_pc_sinh (double x) { return ::sinh (x); }
__host__ __device__ inline float ks_pc_cosh (float x) { return coshf (x); }
__host__ __device__ inline double ks_pc_cosh (double x) { return ::cosh (x); }

template <typename T>
__host__ __device__ inline complex<T> exp (const complex<T> &z)
{
  T s, c;
  const T m = ks_pc_exp (z.real ());

  ks_pc_sincos (z.imag (), &s, &c);
  return complex<T> (m * c, m * s);
}
template <typename T>
__host__ __device__ inline complex<T> log (const complex<T> &z)
{
  return complex<T> (ks_pc_log (abs (z)), arg (z));
}
template <typename T>
__host__ __device__ inline complex<T> log10 (const complex<T> &z)
{
  return log (z) / ks_pc_log (T (10));
}
/* The principal root, its real part at least 0, computed without the
 * cancellation of (|z| - re) for a z near the negative real axis. */
template <typename T>
__host__ __device__ inline complex<T> sqrt (const complex<T> &z)
{
  const T x = z.real (), y = z.imag ();

  if (x == T () && y == T ())
    return complex<T> (T (), y);
  const T t = ks_pc_sqrt ((x < T () ? -x : x) / 2 + abs (z) / 2);
  if (x >= T ())
    return complex<T> (t, y / (2 * t));
  return complex<T> ((y < T () ? -y : y) / (2 * t), y < T () ? -t : t);
}
template <typename T>
__host__ __device__ inline complex<T> pow (const complex<T> &z, const complex<T> &w)
{
  if (z.real () == T () && z.imag () == T ())
    return complex<T> ();
  return exp (w * log (z));
}
template <typename T>
__host__ __device__ inline complex<T> pow (const complex<T> &z, const T &x)
{
  return pow (z, complex<T> (x));
}
template <typename T>
__host__ __device__ inline complex<T> pow (const T &x, const complex<T> &w)
{
  return pow (complex<T> (x), w);
}
template <typename T>
__host__ __device__ inline complex<T> pow (const complex<T> &z, int k)
{
  complex<T> r (T (1)), b = z;
  unsigned int e = k < 0 ? 0u - (unsigned int) k : (unsigned int) k;

  for (; e != 0; e >>= 1, b *= b)
    if (e & 1u)
      r *= b;
  return k < 0 ? complex<T> (T (1)) / r : r;
}
template <typename T>
__host__ __device__ inline complex<T> sin (const complex<T> &z)
{
  T s, c;

  ks_pc_sincos (z.real (), &s, &c);
  return complex<T> (s * ks_pc_cosh (z.imag ()), c * ks_pc_sinh (z.imag ()));
}
template <typename T>
__host__ __device__ inline complex<T> cos (const complex<T> &z)
{
  T s, c;

  ks_pc_sincos (z.real (), &s, &c);
  return complex<T> (c * ks_pc_cosh (z.imag ()), -s * ks_pc_sinh (z.imag ()));
}
template <typename T>
__host__ __device__ inline complex<T> tan (const complex<T> &z)
{
  return sin (z) / cos (z);
}
template <typename T>
__host__ __device__ inline complex<T> sinh (const complex<T> &z)
{
  T s, c;

  ks_pc_sincos (z.imag (), &s, &c);
  return complex<T> (ks_pc_sinh (z.real ()) * c, ks_pc_cosh (z.real ()) * s);
}
template <typename T>
__host__ __device__ inline complex<T> cosh (const complex<T> &z)
{
  T s, c;

  ks_pc_sincos (z.imag (), &s, &c);
  return complex<T> (ks_pc_cosh (z.real ()) * c, ks_pc_sinh (z.real ()) * s);
}
template <typename T>
__host__ __device__ inline complex<T> tanh (const complex<T> &z)
{
  return sinh (z) / cosh (z);
}

} /* namespace pycuda */
