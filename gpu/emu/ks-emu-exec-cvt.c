/* ks-emu-exec-cvt.c: cvt between every pair of integer and floating-point
 * types, with the rounding modifiers (.rn .rz .rm .rp for floats, .rni .rzi
 * .rmi .rpi to integral values), .sat and .ftz; the packed f16x2/bf16x2
 * conversions; and the f16/bf16 rounding the other groups use.
 *
 * Float to integer saturates as the GPU does: NaN gives 0, values beyond
 * the type its bounds. Half rounding is done on the exact double value, so
 * that f32 and f64 sources round once. */
#include "config.h"

#include <fenv.h>
#include <math.h>

#include "ks-emu-private.h"



static double
bf16_to_double (guint16 h)
{
  return ks_emu_f32 ((guint64) h << 16);
}

/* ---- cvt -------------------------------------------------------------------- */

/* aux: the source type in bits 0–7, the destination in 8–15; flags: 1 .sat,
 * 2 .ftz, 4 .relu; imm the rounding. */
#define CVT_SAT 1
#define CVT_FTZ 2
#define CVT_RELU 4

static inline KsPtxType
src_type (const KsEmuInsn *insn)
{
  return (KsPtxType) (insn->aux & 0xff);
}

static inline KsPtxType
dst_type (const KsEmuInsn *insn)
{
  return (KsPtxType) ((insn->aux >> 8) & 0xff);
}

/* Integer to integer: extended by the source's type, then cut to the
 * destination's (or clamped to it, with .sat). */
KS_EMU_HANDLER (exec_cvt_int)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;
  KsPtxType st = src_type (insn), dt = dst_type (insn);
  guint ss = _ks_ptx_type_size (st), ds = _ks_ptx_type_size (dt);
  gboolean s_signed = _ks_ptx_type_is_signed (st), d_signed = _ks_ptx_type_is_signed (dt);
  gboolean sat = (insn->flags & CVT_SAT) != 0;
  gint64 dmin = d_signed ? (gint64) (G_MAXUINT64 << (8 * ds - 1)) : 0;
  guint64 dmax = d_signed ? (G_GUINT64_CONSTANT (1) << (8 * ds - 1)) - 1
                          : ds >= 8 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << (8 * ds)) - 1;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 v = s_signed ? (guint64) ks_emu_sext (a[l], ss) : ks_emu_zext (a[l], ss);

    if (sat)
      {
        if (s_signed && (gint64) v < dmin)
          v = (guint64) dmin;
        else if (s_signed && (gint64) v < 0)
          ; /* within a signed destination's range (dmin < v < 0) */
        else if (v > dmax)
          v = dmax;
      }
    d[l] = d_signed ? (guint64) ks_emu_sext (v, ds) : ks_emu_zext (v, ds);
  });
}

static double
read_float (KsPtxType t, guint64 bits, gboolean ftz)
{
  switch (t)
    {
    case KS_PTX_F16: return _ks_emu_half_to_double ((guint16) bits);
    case KS_PTX_BF16: return bf16_to_double ((guint16) bits);
    case KS_PTX_F32: return ftz ? ks_emu_ftz (ks_emu_f32 (bits)) : ks_emu_f32 (bits);
    default: return ks_emu_f64 (bits);
    }
}

static guint64
float_to_int (double v, KsPtxType dt, guint rounding)
{
  guint size = _ks_ptx_type_size (dt);
  double lo, hi;

  if (isnan (v))
    return 0;
  v = _ks_emu_round_magnitude (fabs (v), signbit (v) != 0, rounding) * (signbit (v) ? -1.0 : 1.0);
  if (_ks_ptx_type_is_signed (dt))
    {
      lo = -ldexp (1.0, (int) (8 * size - 1));
      hi = ldexp (1.0, (int) (8 * size - 1));
      /* The bounds, sign-extended as every signed result is. */
      if (v < lo)
        return G_MAXUINT64 << (8 * size - 1);
      if (v >= hi)
        return (G_GUINT64_CONSTANT (1) << (8 * size - 1)) - 1;
      return (guint64) (gint64) v;
    }
  hi = ldexp (1.0, (int) (8 * size));
  if (v <= 0.0)
    return 0;
  if (v >= hi)
    return ks_emu_zext (G_MAXUINT64, size);
  return (guint64) v;
}

/* A double as the destination float type, by the rounding mode. */
static guint64
write_float (KsPtxType dt, double v, guint rounding, guint flags)
{
  if (flags & CVT_SAT)
    v = isnan (v) ? 0.0 : v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
  if ((flags & CVT_RELU) && v < 0.0)
    v = 0.0;
  switch (dt)
    {
    case KS_PTX_F16:
      return _ks_emu_double_to_half (v, rounding);
    case KS_PTX_BF16:
      return _ks_emu_float_to_bf16 ((float) v, rounding);
    case KS_PTX_F32:
      {
        volatile double in = v;
        volatile float f;

        if (rounding != KS_PTX_RND_NONE && rounding != KS_PTX_RND_RN)
          {
            fesetround (_ks_emu_round_mode (rounding));
            f = (float) in;
            fesetround (FE_TONEAREST);
          }
        else
          f = (float) in;
        return ks_emu_from_f32 ((flags & CVT_FTZ) ? ks_emu_ftz (f) : f);
      }
    default:
      return ks_emu_from_f64 (v);
    }
}

/* Everything with a float on either side. */
KS_EMU_HANDLER (exec_cvt_float)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;
  KsPtxType st = src_type (insn), dt = dst_type (insn);
  guint rounding = (guint) insn->imm;
  gboolean s_float = _ks_ptx_type_is_float (st), d_float = _ks_ptx_type_is_float (dt);
  gboolean ftz = (insn->flags & CVT_FTZ) != 0;
  guint ss = _ks_ptx_type_size (st);

  KS_EMU_FOR_LANES (mask, l, {
    if (s_float && !d_float)
      d[l] = float_to_int (read_float (st, a[l], ftz), dt, rounding);
    else if (s_float)
      {
        double v = read_float (st, a[l], ftz);

        /* To an integral value in the same type (.rni …): exact. */
        if (rounding >= KS_PTX_RND_RNI && rounding <= KS_PTX_RND_RPI && !isnan (v) && !isinf (v))
          v = copysign (_ks_emu_round_magnitude (fabs (v), signbit (v) != 0, rounding), v);
        d[l] = write_float (dt, v, rounding, insn->flags);
      }
    else
      {
        /* Integer to float: a 64-bit integer need not fit a double, so the
         * conversion to f32/f64 rounds once, in the mode. */
        gboolean s_signed = _ks_ptx_type_is_signed (st);
        gint64 sv = ks_emu_sext (a[l], ss);
        guint64 uv = ks_emu_zext (a[l], ss);
        volatile float f;
        volatile double g;

        if (dt == KS_PTX_F16 || dt == KS_PTX_BF16)
          d[l] = write_float (dt, s_signed ? (double) sv : (double) uv, rounding, insn->flags);
        else
          {
            gboolean directed = rounding != KS_PTX_RND_NONE && rounding != KS_PTX_RND_RN;

            if (directed)
              fesetround (_ks_emu_round_mode (rounding));
            if (dt == KS_PTX_F32)
              f = s_signed ? (float) sv : (float) uv;
            else
              g = s_signed ? (double) sv : (double) uv;
            if (directed)
              fesetround (FE_TONEAREST);
            d[l] = dt == KS_PTX_F32 ? write_float (dt, f, KS_PTX_RND_RN, insn->flags)
                                    : write_float (dt, g, KS_PTX_RND_RN, insn->flags);
          }
      }
  });
}

/* The conversions every kernel has, without the general one's decisions. */
KS_EMU_HANDLER (exec_cvt_f32_s32)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;

  KS_EMU_FOR_LANES (mask, l, { d[l] = ks_emu_from_f32 ((float) (gint32) a[l]); });
}

KS_EMU_HANDLER (exec_cvt_f32_u32)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;

  KS_EMU_FOR_LANES (mask, l, { d[l] = ks_emu_from_f32 ((float) (guint32) a[l]); });
}

KS_EMU_HANDLER (exec_cvt_f64_f32)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;

  KS_EMU_FOR_LANES (mask, l, { d[l] = ks_emu_from_f64 ((double) ks_emu_f32 (a[l])); });
}

KS_EMU_HANDLER (exec_cvt_f32_f64)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;

  KS_EMU_FOR_LANES (mask, l, { d[l] = ks_emu_from_f32 ((float) ks_emu_f64 (a[l])); });
}

KS_EMU_HANDLER (exec_cvt_s32_f32_rzi)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;

  KS_EMU_FOR_LANES (mask, l, {
    float f = ks_emu_f32 (a[l]);

    d[l] = isnan (f) ? 0 : f >= 2147483648.0f ? (guint32) G_MAXINT32
           : f < -2147483648.0f ? (guint32) G_MININT32 : (guint32) (gint32) f;
  });
}

/* cvt.rn.f16x2.f32 d, a, b (and bf16x2): a into the upper half, b the lower. */
KS_EMU_HANDLER (exec_cvt_x2)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;
  guint rounding = (guint) insn->imm;
  KsPtxType dt = dst_type (insn) == KS_PTX_F16X2 ? KS_PTX_F16 : KS_PTX_BF16;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 hi = write_float (dt, ks_emu_f32 (a[l]), rounding, insn->flags);
    guint64 lo = write_float (dt, ks_emu_f32 (b[l]), rounding, insn->flags);

    d[l] = (hi << 16) | lo;
  });
}

static gboolean
decode_cvt (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType dt = _ks_ptx_mods_type (m, 0), st = _ks_ptx_mods_type (m, 1);
  gboolean sat = _ks_ptx_take_mod (m, "sat");
  gboolean ftz = _ks_ptx_take_mod (m, "ftz");
  gboolean relu = _ks_ptx_take_mod (m, "relu");
  gboolean s_float, d_float;

  _ks_ptx_take_mod (m, "satfinite"); /* f16 results are finite already unless the input is not */
  if (m->n_types != 2 || dt == KS_PTX_PRED || st == KS_PTX_PRED || dt == KS_PTX_B128
      || st == KS_PTX_B128 || st == KS_PTX_F16X2 || st == KS_PTX_BF16X2)
    return FALSE;
  insn->aux = (guint32) st | ((guint32) dt << 8);
  insn->imm = m->rounding;
  insn->flags = (sat ? CVT_SAT : 0) | (ftz ? CVT_FTZ : 0) | (relu ? CVT_RELU : 0);
  if (dt == KS_PTX_F16X2 || dt == KS_PTX_BF16X2)
    {
      if (st != KS_PTX_F32 || pi->n_ops != 3)
        return FALSE;
      insn->fn = exec_cvt_x2;
      insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
      insn->o[1] = _ks_emu_src (b, &pi->ops[1], st);
      insn->o[2] = _ks_emu_src (b, &pi->ops[2], st);
      return TRUE;
    }
  if (pi->n_ops != 2)
    return FALSE;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], st);
  s_float = _ks_ptx_type_is_float (st);
  d_float = _ks_ptx_type_is_float (dt);
  /* A float to an integer needs an integer rounding; to a narrower float a
   * float rounding (.rn is what NVRTC writes). */
  if (s_float && !d_float && (m->rounding < KS_PTX_RND_RNI || m->rounding > KS_PTX_RND_RPI))
    return FALSE;
  if (!s_float && !d_float)
    insn->fn = exec_cvt_int;
  else
    {
      gboolean plain = !sat && !ftz && !relu;

      insn->fn = exec_cvt_float;
      if (plain && dt == KS_PTX_F32 && st == KS_PTX_S32 && m->rounding == KS_PTX_RND_RN)
        insn->fn = exec_cvt_f32_s32;
      else if (plain && dt == KS_PTX_F32 && st == KS_PTX_U32 && m->rounding == KS_PTX_RND_RN)
        insn->fn = exec_cvt_f32_u32;
      else if (plain && dt == KS_PTX_F64 && st == KS_PTX_F32)
        insn->fn = exec_cvt_f64_f32;
      else if (plain && dt == KS_PTX_F32 && st == KS_PTX_F64 && m->rounding == KS_PTX_RND_RN)
        insn->fn = exec_cvt_f32_f64;
      else if (plain && dt == KS_PTX_S32 && st == KS_PTX_F32 && m->rounding == KS_PTX_RND_RZI)
        insn->fn = exec_cvt_s32_f32_rzi;
    }
  return TRUE;
}

const KsEmuDecoder _ks_emu_decoders_cvt[] = {
  { "cvt", decode_cvt },
  { NULL, NULL },
};
