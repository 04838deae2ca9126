/* ks-emu-exec-float.c: floating-point arithmetic of f32 and f64 (add, sub,
 * mul, fma/mad, div, rcp, sqrt, rsqrt, the .approx functions, abs, neg,
 * min, max, copysign, testp) and of f16/bf16, one value or a pair.
 *
 * Correctly rounded operations are bit-exact: the host's IEEE arithmetic in
 * the same format, fmaf()/fma() for fused results, and fesetround() for
 * .rz/.rm/.rp (the operands go through volatile variables so that the
 * compiler cannot move the arithmetic across the mode change).
 *
 * The .approx instructions are computed in double and rounded once, that is
 * within 0.5 ulp of the true value, where the GPU is within its documented
 * error (from the PTX ISA's tables: sin/cos 2^-20.5 absolute in [-π, π],
 * ex2 2 ulp, lg2 2^-22.6 absolute, rcp and sqrt 1 ulp, rsqrt 2^-22.9
 * relative, tanh 2^-10.987 relative, div.approx and div.full 2 ulp): the
 * emulator's result then differs from a GPU's by at most that error and
 * half an ulp, and a kernel that only relies on the documented bound sees
 * no difference. Outside [-π, π] the GPU's sin.approx is worse than
 * documented; the emulator's stays exact.
 *
 * .ftz flushes subnormal inputs and results to zero of the same sign; .sat
 * clamps to [0, 1] with NaN giving 0. NaN results keep the host's payload
 * (the GPU gives the canonical 0x7fffffff): only the bits of a NaN differ. */
#include "config.h"

#include <fenv.h>
#include <math.h>

#include "ks-emu-private.h"



enum
{
  OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_DIV, OP_RCP, OP_SQRT, OP_RSQRT, OP_SIN, OP_COS, OP_LG2,
  OP_EX2, OP_TANH, OP_ABS, OP_NEG, OP_MIN, OP_MAX, OP_MIN_NAN, OP_MAX_NAN, OP_COPYSIGN,
};

#define F_FTZ 1
#define F_SAT 2
#define F_RELU 4

/* ---- the fast paths: round to nearest, no flags ---------------------------- */

#define F32_BINARY(name, expr)                                                 \
  KS_EMU_HANDLER (name)                                                               \
  {                                                                            \
    guint64 *d = KS_EMU_D;                                                            \
    const guint64 *a = KS_EMU_A, *b = KS_EMU_B;                                              \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      float x = ks_emu_f32 (a[l]), y = ks_emu_f32 (b[l]);                      \
      d[l] = ks_emu_from_f32 (expr);                                           \
    });                                                                        \
  }

#define F64_BINARY(name, expr)                                                 \
  KS_EMU_HANDLER (name)                                                               \
  {                                                                            \
    guint64 *d = KS_EMU_D;                                                            \
    const guint64 *a = KS_EMU_A, *b = KS_EMU_B;                                              \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      double x = ks_emu_f64 (a[l]), y = ks_emu_f64 (b[l]);                     \
      d[l] = ks_emu_from_f64 (expr);                                           \
    });                                                                        \
  }

F32_BINARY (exec_add_f32, x + y)
F32_BINARY (exec_sub_f32, x - y)
F32_BINARY (exec_mul_f32, x * y)
F32_BINARY (exec_add_f32_ftz, ks_emu_ftz (ks_emu_ftz (x) + ks_emu_ftz (y)))
F32_BINARY (exec_sub_f32_ftz, ks_emu_ftz (ks_emu_ftz (x) - ks_emu_ftz (y)))
F32_BINARY (exec_mul_f32_ftz, ks_emu_ftz (ks_emu_ftz (x) * ks_emu_ftz (y)))
F64_BINARY (exec_add_f64, x + y)
F64_BINARY (exec_sub_f64, x - y)
F64_BINARY (exec_mul_f64, x * y)

KS_EMU_HANDLER (exec_fma_f32)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    d[l] = ks_emu_from_f32 (fmaf (ks_emu_f32 (a[l]), ks_emu_f32 (b[l]), ks_emu_f32 (c[l])));
  });
}

KS_EMU_HANDLER (exec_fma_f32_ftz)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    d[l] = ks_emu_from_f32 (ks_emu_ftz (fmaf (ks_emu_ftz (ks_emu_f32 (a[l])),
                                              ks_emu_ftz (ks_emu_f32 (b[l])),
                                              ks_emu_ftz (ks_emu_f32 (c[l])))));
  });
}

KS_EMU_HANDLER (exec_fma_f64)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    d[l] = ks_emu_from_f64 (fma (ks_emu_f64 (a[l]), ks_emu_f64 (b[l]), ks_emu_f64 (c[l])));
  });
}

/* ---- everything else: one handler per type, the operation in aux ------------ */

static inline float
min_f32 (float x, float y, gboolean nan)
{
  if (isnan (x) || isnan (y))
    return nan ? NAN : isnan (x) ? y : x;
  if (x == y)
    return signbit (x) ? x : y; /* -0 is the smaller zero */
  return x < y ? x : y;
}

static inline float
max_f32 (float x, float y, gboolean nan)
{
  if (isnan (x) || isnan (y))
    return nan ? NAN : isnan (x) ? y : x;
  if (x == y)
    return signbit (x) ? y : x;
  return x > y ? x : y;
}

static inline double
min_f64 (double x, double y, gboolean nan)
{
  if (isnan (x) || isnan (y))
    return nan ? NAN : isnan (x) ? y : x;
  if (x == y)
    return signbit (x) ? x : y;
  return x < y ? x : y;
}

static inline double
max_f64 (double x, double y, gboolean nan)
{
  if (isnan (x) || isnan (y))
    return nan ? NAN : isnan (x) ? y : x;
  if (x == y)
    return signbit (x) ? y : x;
  return x > y ? x : y;
}

static inline float
f32_op (guint op, float x, float y, float z)
{
  switch (op)
    {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_FMA: return fmaf (x, y, z);
    case OP_DIV: return x / y;
    case OP_RCP: return 1.0f / x;
    case OP_SQRT: return sqrtf (x);
    case OP_RSQRT: return (float) (1.0 / sqrt ((double) x));
    case OP_SIN: return (float) sin ((double) x);
    case OP_COS: return (float) cos ((double) x);
    case OP_LG2: return (float) log2 ((double) x);
    case OP_EX2: return (float) exp2 ((double) x);
    case OP_TANH: return (float) tanh ((double) x);
    case OP_ABS: return fabsf (x);
    case OP_NEG: return -x;
    case OP_MIN: return min_f32 (x, y, FALSE);
    case OP_MAX: return max_f32 (x, y, FALSE);
    case OP_MIN_NAN: return min_f32 (x, y, TRUE);
    case OP_MAX_NAN: return max_f32 (x, y, TRUE);
    case OP_COPYSIGN: return copysignf (y, x);
    default: return x;
    }
}

static inline double
f64_op (guint op, double x, double y, double z)
{
  switch (op)
    {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_FMA: return fma (x, y, z);
    case OP_DIV: return x / y;
    case OP_RCP: return 1.0 / x;
    case OP_SQRT: return sqrt (x);
    case OP_RSQRT: return 1.0 / sqrt (x);
    case OP_SIN: return sin (x);
    case OP_COS: return cos (x);
    case OP_LG2: return log2 (x);
    case OP_EX2: return exp2 (x);
    case OP_TANH: return tanh (x);
    case OP_ABS: return fabs (x);
    case OP_NEG: return -x;
    case OP_MIN: return min_f64 (x, y, FALSE);
    case OP_MAX: return max_f64 (x, y, FALSE);
    case OP_MIN_NAN: return min_f64 (x, y, TRUE);
    case OP_MAX_NAN: return max_f64 (x, y, TRUE);
    case OP_COPYSIGN: return copysign (y, x);
    default: return x;
    }
}

static inline float
sat_f32 (float f)
{
  return isnan (f) ? 0.0f : f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
}

/* The lane loop of exec_f32, with QUAL volatile under a directed rounding. */
#define F32_LANES(QUAL)                                                        \
  KS_EMU_FOR_LANES (mask, l, {                                                 \
    QUAL float x = ks_emu_f32 (a[l]), y = ks_emu_f32 (b[l]), z = ks_emu_f32 (c[l]); \
    QUAL float r;                                                              \
    if (ftz)                                                                   \
      {                                                                        \
        x = ks_emu_ftz (x);                                                    \
        y = ks_emu_ftz (y);                                                    \
        z = ks_emu_ftz (z);                                                    \
      }                                                                        \
    r = f32_op (op, x, y, z);                                                  \
    if (ftz)                                                                   \
      r = ks_emu_ftz (r);                                                      \
    if (insn->flags & F_SAT)                                                   \
      r = sat_f32 (r);                                                         \
    if ((insn->flags & F_RELU) && r < 0.0f)                                    \
      r = 0.0f;                                                                \
    d[l] = ks_emu_from_f32 (r);                                                \
  })

/* aux the operation, flags F_*, imm the KsPtxRounding (NONE: nearest). */
KS_EMU_HANDLER (exec_f32)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;
  guint op = insn->aux;
  gboolean ftz = (insn->flags & F_FTZ) != 0;

  if (insn->imm != KS_PTX_RND_NONE && insn->imm != KS_PTX_RND_RN)
    {
      fesetround (_ks_emu_round_mode ((guint) insn->imm));
      F32_LANES (volatile);
      fesetround (FE_TONEAREST);
    }
  else
    F32_LANES ();
}

static inline double
ftz_f64 (double x)
{
  return fpclassify (x) == FP_SUBNORMAL ? copysign (0.0, x) : x;
}

/* .ftz on f64 (rcp.approx.ftz.f64, rsqrt.approx.ftz.f64): subnormals in and out. */
#define F64_LANES(QUAL)                                                        \
  KS_EMU_FOR_LANES (mask, l, {                                                 \
    QUAL double x = ks_emu_f64 (a[l]), y = ks_emu_f64 (b[l]), z = ks_emu_f64 (c[l]); \
    QUAL double r;                                                             \
    if (insn->flags & F_FTZ)                                                   \
      x = ftz_f64 (x);                                                         \
    r = f64_op (op, x, y, z);                                                  \
    if (insn->flags & F_FTZ)                                                   \
      r = ftz_f64 (r);                                                         \
    if (insn->flags & F_SAT)                                                   \
      r = isnan (r) ? 0.0 : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;                 \
    d[l] = ks_emu_from_f64 (r);                                                \
  })

KS_EMU_HANDLER (exec_f64)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;
  guint op = insn->aux;

  if (insn->imm != KS_PTX_RND_NONE && insn->imm != KS_PTX_RND_RN)
    {
      fesetround (_ks_emu_round_mode ((guint) insn->imm));
      F64_LANES (volatile);
      fesetround (FE_TONEAREST);
    }
  else
    F64_LANES ();
}

/* f16 and bf16 (aux the operation, size 2: one value, 4: a pair), computed in
 * double and rounded once: exact for add, sub and mul (the double holds
 * their exact result) and for fma (see below). */
static guint16
half_op (const KsEmuInsn *insn, gboolean bf16, guint16 x, guint16 y, guint16 z)
{
  double a = bf16 ? ks_emu_f32 ((guint64) x << 16) : _ks_emu_half_to_double (x);
  double b = bf16 ? ks_emu_f32 ((guint64) y << 16) : _ks_emu_half_to_double (y);
  double c = bf16 ? ks_emu_f32 ((guint64) z << 16) : _ks_emu_half_to_double (z);
  double r = f64_op (insn->aux, a, b, c);
  guint mode = insn->imm == KS_PTX_RND_NONE ? KS_PTX_RND_RN : (guint) insn->imm;

  if (insn->aux == OP_FMA)
    {
      /* The product of two halves is exact in double, the sum may not be:
       * its rounding error (TwoSum) nudges it by a double ulp, so that the
       * rounding to half that follows is the correct one (no double rounding
       * at a tie). */
      double prod = a * b, sum = prod + c, bv = sum - prod;
      double err = (prod - (sum - bv)) + (c - bv);

      r = sum;
      if (err != 0.0 && isfinite (r))
        r = nextafter (r, err > 0.0 ? INFINITY : -INFINITY);
    }

  if (insn->aux == OP_NEG || insn->aux == OP_ABS)
    return insn->aux == OP_NEG ? x ^ 0x8000 : x & 0x7fff;
  if (insn->flags & F_SAT)
    r = isnan (r) ? 0.0 : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
  if ((insn->flags & F_RELU) && r < 0.0)
    r = 0.0;
  if (bf16)
    return _ks_emu_float_to_bf16 ((float) r, mode);
  {
    guint16 h = _ks_emu_double_to_half (r, mode);

    if ((insn->flags & F_FTZ) && (h & 0x7c00) == 0)
      h &= 0x8000;
    return h;
  }
}

KS_EMU_HANDLER (exec_half)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;
  gboolean bf16 = (insn->flags & 8) != 0;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 r = half_op (insn, bf16, (guint16) a[l], (guint16) b[l], (guint16) c[l]);

    if (insn->size == 4)
      r |= (guint64) half_op (insn, bf16, (guint16) (a[l] >> 16), (guint16) (b[l] >> 16),
                              (guint16) (c[l] >> 16)) << 16;
    d[l] = r;
  });
}

/* testp.op.type p, a: aux the test. */
enum { TEST_FINITE, TEST_INFINITE, TEST_NUMBER, TEST_NOTANUMBER, TEST_NORMAL, TEST_SUBNORMAL };

KS_EMU_HANDLER (exec_testp)
{
  const guint64 *a = KS_EMU_A;
  guint32 bits = 0;

  KS_EMU_FOR_LANES (mask, l, {
    int c = insn->size == 4 ? fpclassify (ks_emu_f32 (a[l])) : fpclassify (ks_emu_f64 (a[l]));
    gboolean r;

    switch (insn->aux)
      {
      case TEST_FINITE: r = c != FP_INFINITE && c != FP_NAN; break;
      case TEST_INFINITE: r = c == FP_INFINITE; break;
      case TEST_NUMBER: r = c != FP_NAN; break;
      case TEST_NOTANUMBER: r = c == FP_NAN; break;
      case TEST_NORMAL: r = c == FP_NORMAL; break;
      default: r = c == FP_SUBNORMAL; break;
      }
    bits |= (guint32) r << l;
  });
  ks_emu_set_pred (w, insn->o[0], mask, bits);
}

/* ---- decoding --------------------------------------------------------------- */

static const struct
{
  const char *name;
  guint op;
  guint n_src;
} ops[] = {
  { "add", OP_ADD, 2 }, { "sub", OP_SUB, 2 }, { "mul", OP_MUL, 2 }, { "fma", OP_FMA, 3 },
  { "mad", OP_FMA, 3 }, { "div", OP_DIV, 2 }, { "rcp", OP_RCP, 1 }, { "sqrt", OP_SQRT, 1 },
  { "rsqrt", OP_RSQRT, 1 }, { "sin", OP_SIN, 1 }, { "cos", OP_COS, 1 }, { "lg2", OP_LG2, 1 },
  { "ex2", OP_EX2, 1 }, { "tanh", OP_TANH, 1 }, { "abs", OP_ABS, 1 }, { "neg", OP_NEG, 1 },
  { "min", OP_MIN, 2 }, { "max", OP_MAX, 2 }, { "copysign", OP_COPYSIGN, 2 },
};

static gboolean
decode_float (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, -1);
  gint found = -1;
  guint op, n_src;
  gboolean approx, ftz, sat, relu, nan;
  gboolean plain;

  for (guint i = 0; i < G_N_ELEMENTS (ops) && found < 0; i++)
    if (strcmp (ops[i].name, pi->parts[0]) == 0)
      found = (gint) i;
  if (found < 0 || m->n_types != 1 || !_ks_ptx_type_is_float (t))
    return FALSE;
  op = ops[found].op;
  n_src = ops[found].n_src;
  approx = _ks_ptx_take_mod (m, "approx");
  _ks_ptx_take_mod (m, "full"); /* div.full: within 2 ulp; computed exactly */
  ftz = _ks_ptx_take_mod (m, "ftz");
  sat = _ks_ptx_take_mod (m, "sat");
  relu = _ks_ptx_take_mod (m, "relu");
  nan = _ks_ptx_take_mod (m, "NaN");
  if (pi->n_ops != n_src + 1)
    return FALSE;
  /* Those with no exact form need .approx; div and rcp and sqrt need one of
   * .approx, .full or a rounding. */
  if ((op == OP_SIN || op == OP_COS || op == OP_LG2 || op == OP_EX2 || op == OP_TANH
       || op == OP_RSQRT) && !approx)
    return FALSE;
  if (nan)
    op = op == OP_MIN ? OP_MIN_NAN : op == OP_MAX ? OP_MAX_NAN : op;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  for (guint i = 0; i < 3; i++)
    insn->o[1 + i] = i < n_src ? _ks_emu_src (b, &pi->ops[1 + i], t)
                               : KS_EMU_SR_ZERO * KS_EMU_WARP_SIZE;
  insn->aux = op;
  insn->imm = m->rounding;
  insn->flags = (ftz ? F_FTZ : 0) | (sat ? F_SAT : 0) | (relu ? F_RELU : 0);
  if (m->rounding >= KS_PTX_RND_RNI)
    return FALSE;
  if (t == KS_PTX_F16 || t == KS_PTX_F16X2 || t == KS_PTX_BF16 || t == KS_PTX_BF16X2)
    {
      if (op != OP_ADD && op != OP_SUB && op != OP_MUL && op != OP_FMA && op != OP_NEG
          && op != OP_ABS && op != OP_MIN && op != OP_MAX && op != OP_MIN_NAN
          && op != OP_MAX_NAN && op != OP_EX2 && op != OP_TANH)
        return FALSE;
      insn->fn = exec_half;
      insn->size = (guint8) _ks_ptx_type_size (t);
      if (t == KS_PTX_BF16 || t == KS_PTX_BF16X2)
        insn->flags |= 8;
      for (guint i = 0; i < 3; i++)
        if (i < n_src && pi->ops[1 + i].kind == KS_PTX_OPND_IMM && insn->size == 4)
          insn->o[1 + i] = _ks_emu_src (b, &pi->ops[1 + i], KS_PTX_B32);
      return TRUE;
    }
  plain = !sat && !relu && (m->rounding == KS_PTX_RND_NONE || m->rounding == KS_PTX_RND_RN);
  if (t == KS_PTX_F32 && plain)
    {
      KsEmuExecFn fast[2][4] = {
        { exec_add_f32, exec_sub_f32, exec_mul_f32, exec_fma_f32 },
        { exec_add_f32_ftz, exec_sub_f32_ftz, exec_mul_f32_ftz, exec_fma_f32_ftz },
      };

      if (op <= OP_FMA)
        {
          insn->fn = fast[ftz][op];
          return TRUE;
        }
    }
  if (t == KS_PTX_F64 && plain && !ftz)
    {
      KsEmuExecFn fast[4] = { exec_add_f64, exec_sub_f64, exec_mul_f64, exec_fma_f64 };

      if (op <= OP_FMA)
        {
          insn->fn = fast[op];
          return TRUE;
        }
    }
  insn->fn = t == KS_PTX_F64 ? exec_f64 : exec_f32;
  return TRUE;
}

gboolean
_ks_emu_decode_float_shared (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  return decode_float (b, pi, m, insn);
}

static gboolean
decode_testp (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const char *const tests[] = { "finite", "infinite", "number", "notanumber", "normal",
                                       "subnormal" };
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gint found = -1;

  for (guint i = 0; i < G_N_ELEMENTS (tests) && found < 0; i++)
    if (_ks_ptx_take_mod (m, tests[i]))
      found = (gint) i;
  if (found < 0 || (t != KS_PTX_F32 && t != KS_PTX_F64) || pi->n_ops != 2)
    return FALSE;
  insn->fn = exec_testp;
  insn->aux = (guint32) found;
  insn->size = (guint8) _ks_ptx_type_size (t);
  insn->o[0] = _ks_emu_pred (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  return TRUE;
}

const KsEmuDecoder _ks_emu_decoders_float[] = {
  { "fma", decode_float },
  { "rcp", decode_float },
  { "sqrt", decode_float },
  { "rsqrt", decode_float },
  { "sin", decode_float },
  { "cos", decode_float },
  { "lg2", decode_float },
  { "ex2", decode_float },
  { "tanh", decode_float },
  { "copysign", decode_float },
  { "testp", decode_testp },
  { NULL, NULL },
};
