/* ks-emu-fp.c: the floating-point helpers several instruction groups and
 * the decoder share: rounding modes as the host's fenv modes, and the
 * conversions to and from f16 and bf16, rounded in any of PTX's modes. */
#include "config.h"

#include <fenv.h>
#include <math.h>

#include "ks-emu-private.h"

int
_ks_emu_round_mode (guint ptx_rounding)
{
  switch (ptx_rounding)
    {
    case KS_PTX_RND_RZ: case KS_PTX_RND_RZI: return FE_TOWARDZERO;
    case KS_PTX_RND_RM: case KS_PTX_RND_RMI: return FE_DOWNWARD;
    case KS_PTX_RND_RP: case KS_PTX_RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

double
_ks_emu_half_to_double (guint16 h)
{
  guint exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;

  if (exponent == 0)
    v = ldexp (mantissa, -24);
  else if (exponent == 31)
    v = mantissa != 0 ? NAN : INFINITY;
  else
    v = ldexp (mantissa + 1024, (int) exponent - 25);
  return (h & 0x8000) ? -v : v;
}

/* x, a non-negative value with a fraction, to an integer by the mode, the
 * value's sign deciding the direction of .rm and .rp. */
double
_ks_emu_round_magnitude (double x, gboolean negative, guint mode)
{
  switch (mode)
    {
    case KS_PTX_RND_RZ: case KS_PTX_RND_RZI: return trunc (x);
    case KS_PTX_RND_RM: case KS_PTX_RND_RMI: return negative ? ceil (x) : floor (x);
    case KS_PTX_RND_RP: case KS_PTX_RND_RPI: return negative ? floor (x) : ceil (x);
    case KS_PTX_RND_RNA: return round (x);
    default: return rint (x);
    }
}

guint16
_ks_emu_double_to_half (double d, guint mode)
{
  gboolean negative = signbit (d) != 0;
  guint16 sign = negative ? 0x8000 : 0;
  double a = fabs (d), q, n;
  int e;

  if (isnan (d))
    return 0x7fff;
  if (isinf (d))
    return sign | 0x7c00;
  if (a == 0.0)
    return sign;
  frexp (a, &e);
  e -= 1;
  if (e < -14)
    e = -14;
  /* The mantissa with its implicit bit as an integer: exact, a power of two apart. */
  q = ldexp (a, 10 - e);
  n = _ks_emu_round_magnitude (q, negative, mode);
  if (n >= 2048.0)
    {
      n /= 2;
      e++;
    }
  if (e > 15)
    {
      gboolean to_inf = mode == KS_PTX_RND_RN || mode == KS_PTX_RND_NONE
                        || mode == KS_PTX_RND_RNA || (mode == KS_PTX_RND_RM && negative)
                        || (mode == KS_PTX_RND_RP && !negative);

      return sign | (to_inf ? 0x7c00 : 0x7bff);
    }
  if (n < 1024.0)
    return sign | (guint16) n; /* subnormal (or zero) */
  return sign | (guint16) (((e + 15) << 10) | ((guint) n - 1024));
}

guint16
_ks_emu_float_to_bf16 (float f, guint mode)
{
  guint32 u = (guint32) ks_emu_from_f32 (f);
  gboolean negative = (u >> 31) != 0;
  gboolean inexact = (u & 0xffff) != 0;

  if (isnan (f))
    return 0x7fff;
  switch (mode)
    {
    case KS_PTX_RND_RZ:
      return (guint16) (u >> 16);
    case KS_PTX_RND_RM:
    case KS_PTX_RND_RP:
      if (inexact && (mode == KS_PTX_RND_RM) == negative)
        return (guint16) ((u >> 16) + 1);
      return (guint16) (u >> 16);
    default:
      return (guint16) ((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    }
}
