/* ks-emu-exec-int.c: integer arithmetic (add, sub, mul, mad, their carry
 * chains, mul24, div, rem, abs, neg, min, max, sad) and mov.
 *
 * A 32-bit result is stored in the low half of its slot; every reader of a
 * 32-bit operand casts it down first, so the upper half never matters.
 * Arithmetic wraps as the GPU's does: it is done in unsigned types, where
 * C defines wrapping. The handlers are generated per width by macros, so
 * that each is a loop over lanes with nothing to decide inside. */
#include "config.h"

#include "ks-emu-private.h"

#define CARRY (w->regs + KS_EMU_SR_CARRY * KS_EMU_WARP_SIZE)


/* d = expr of x = a and y = b, both of type T. */



/* ---- mov -------------------------------------------------------------------- */

KS_EMU_UNARY (exec_mov, guint64, x)

/* mov d, local_variable: the lane's frame plus the variable's offset. */
KS_EMU_HANDLER (exec_mov_local)
{
  guint64 *d = KS_EMU_D;
  const guint64 *frame = w->regs + KS_EMU_SR_FRAME * KS_EMU_WARP_SIZE;

  KS_EMU_FOR_LANES (mask, l, { d[l] = frame[l] + (guint64) insn->imm; });
}

/* mov.b64 d, {a, b, …}: o[1…] the parts, size their bytes, vec their count. */
KS_EMU_HANDLER (exec_pack)
{
  guint64 *d = KS_EMU_D;
  guint bits = insn->size * 8;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 v = 0;

    for (guint i = 0; i < insn->vec; i++)
      v |= ks_emu_zext (w->regs[insn->o[1 + i] + l], insn->size) << (bits * i);
    d[l] = v;
  });
}

/* mov.b64 {d0, d1, …}, a: o[0] the source, o[1…] the parts. */
KS_EMU_HANDLER (exec_unpack)
{
  const guint64 *a = w->regs + insn->o[0];
  guint bits = insn->size * 8;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 v = a[l];

    for (guint i = 0; i < insn->vec; i++)
      w->regs[insn->o[1 + i] + l] = ks_emu_zext (v >> (bits * i), insn->size);
  });
}

/* mov d, %clock…: aux which (the parser's numbering: 1 %clock, 2 %clock_hi,
 * 3 %clock64, 4 %globaltimer, 5 %globaltimer_lo, 6 %globaltimer_hi). The
 * clocks count nanoseconds of the host's monotonic clock: they advance, as
 * a kernel that times itself expects, at about the rate of a GPU's. */
KS_EMU_HANDLER (exec_clock)
{
  guint64 *d = KS_EMU_D;
  guint64 t = insn->aux >= 4 ? (guint64) g_get_real_time () * 1000
                             : (guint64) g_get_monotonic_time () * 1000;

  if (insn->aux == 2 || insn->aux == 6)
    t >>= 32;
  else if (insn->aux == 1 || insn->aux == 5)
    t &= 0xffffffffu;
  KS_EMU_FOR_LANES (mask, l, { d[l] = t; });
}

KS_EMU_HANDLER (exec_mov_pred)
{
  ks_emu_set_pred (w, insn->o[0], mask, insn->flags ? ~w->preds[insn->o[1]] : w->preds[insn->o[1]]);
}

KS_EMU_HANDLER (exec_set_pred_const)
{
  ks_emu_set_pred (w, insn->o[0], mask, insn->imm ? KS_EMU_FULL_MASK : 0);
}

/* ---- add, sub --------------------------------------------------------------- */

KS_EMU_BINARY (exec_add16, guint16, x + y)
KS_EMU_BINARY (exec_add32, guint32, x + y)
KS_EMU_BINARY (exec_add64, guint64, x + y)
KS_EMU_BINARY (exec_sub16, guint16, x - y)
KS_EMU_BINARY (exec_sub32, guint32, x - y)
KS_EMU_BINARY (exec_sub64, guint64, x - y)
KS_EMU_BINARY (exec_add_sat, gint32, CLAMP ((gint64) (gint32) x + (gint32) y, G_MININT32, G_MAXINT32))
KS_EMU_BINARY (exec_sub_sat, gint32, CLAMP ((gint64) (gint32) x - (gint32) y, G_MININT32, G_MAXINT32))

/* The carry chain: CC.CF per lane in its slot. flags: 1 uses the carry in,
 * 2 sets the carry out. Subtraction's CF is the borrow. */
#define CARRY_IN 1
#define CARRY_OUT 2

KS_EMU_HANDLER (exec_addc32)
{
  guint64 *d = KS_EMU_D, *cf = CARRY;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 s = (guint64) (guint32) a[l] + (guint32) b[l] + ((insn->flags & CARRY_IN) ? cf[l] : 0);

    d[l] = (guint32) s;
    if (insn->flags & CARRY_OUT)
      cf[l] = s >> 32;
  });
}

KS_EMU_HANDLER (exec_addc64)
{
  guint64 *d = KS_EMU_D, *cf = CARRY;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;

  KS_EMU_FOR_LANES (mask, l, {
    unsigned __int128 s = (unsigned __int128) a[l] + b[l] + ((insn->flags & CARRY_IN) ? cf[l] : 0);

    d[l] = (guint64) s;
    if (insn->flags & CARRY_OUT)
      cf[l] = (guint64) (s >> 64);
  });
}

KS_EMU_HANDLER (exec_subc32)
{
  guint64 *d = KS_EMU_D, *cf = CARRY;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 sub = (guint64) (guint32) b[l] + ((insn->flags & CARRY_IN) ? cf[l] : 0);

    d[l] = (guint32) ((guint32) a[l] - sub);
    if (insn->flags & CARRY_OUT)
      cf[l] = (guint32) a[l] < sub;
  });
}

KS_EMU_HANDLER (exec_subc64)
{
  guint64 *d = KS_EMU_D, *cf = CARRY;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;

  KS_EMU_FOR_LANES (mask, l, {
    unsigned __int128 sub = (unsigned __int128) b[l] + ((insn->flags & CARRY_IN) ? cf[l] : 0);

    d[l] = a[l] - (guint64) sub;
    if (insn->flags & CARRY_OUT)
      cf[l] = a[l] < sub;
  });
}

/* ---- mul, mad --------------------------------------------------------------- */

KS_EMU_BINARY (exec_mul16, guint16, x * y)
KS_EMU_BINARY (exec_mul32, guint32, x * y)
KS_EMU_BINARY (exec_mul64, guint64, x * y)
KS_EMU_BINARY (exec_mulhi_s16, guint16, ((gint32) (gint16) x * (gint16) y) >> 16)
KS_EMU_BINARY (exec_mulhi_u16, guint16, ((guint32) x * y) >> 16)
KS_EMU_BINARY (exec_mulhi_s32, guint32, (guint64) ((gint64) (gint32) x * (gint32) y) >> 32)
KS_EMU_BINARY (exec_mulhi_u32, guint32, ((guint64) x * y) >> 32)
KS_EMU_BINARY (exec_mulhi_s64, guint64, (unsigned __int128) ((__int128) (gint64) x * (gint64) y) >> 64)
KS_EMU_BINARY (exec_mulhi_u64, guint64, ((unsigned __int128) x * y) >> 64)
KS_EMU_BINARY (exec_mulwide_s16, guint32, (guint32) ((gint32) (gint16) x * (gint16) y))
KS_EMU_BINARY (exec_mulwide_u16, guint32, (guint32) (guint16) x * (guint16) y)
KS_EMU_BINARY (exec_mulwide_s32, guint64, (guint64) ((gint64) (gint32) x * (gint32) y))
KS_EMU_BINARY (exec_mulwide_u32, guint64, (guint64) (guint32) x * (guint32) y)

KS_EMU_TERNARY (exec_mad16, guint16, x * y + z)
KS_EMU_TERNARY (exec_mad32, guint32, x * y + z)
KS_EMU_TERNARY (exec_mad64, guint64, x * y + z)
KS_EMU_TERNARY (exec_madhi_s16, guint16, (((gint32) (gint16) x * (gint16) y) >> 16) + z)
KS_EMU_TERNARY (exec_madhi_u16, guint16, (((guint32) x * y) >> 16) + z)
KS_EMU_TERNARY (exec_madhi_s32, guint32, ((guint64) ((gint64) (gint32) x * (gint32) y) >> 32) + z)
KS_EMU_TERNARY (exec_madhi_u32, guint32, (((guint64) x * y) >> 32) + z)
KS_EMU_TERNARY (exec_madhi_s64, guint64,
         (guint64) ((unsigned __int128) ((__int128) (gint64) x * (gint64) y) >> 64) + z)
KS_EMU_TERNARY (exec_madhi_u64, guint64, (guint64) (((unsigned __int128) x * y) >> 64) + z)
KS_EMU_TERNARY (exec_madwide_s16, guint32, (guint32) ((gint32) (gint16) x * (gint16) y) + z)
KS_EMU_TERNARY (exec_madwide_u16, guint32, (guint32) (guint16) x * (guint16) y + z)
KS_EMU_TERNARY (exec_madwide_s32, guint64, (guint64) ((gint64) (gint32) x * (gint32) y) + z)
KS_EMU_TERNARY (exec_madwide_u32, guint64, (guint64) (guint32) x * (guint32) y + z)

/* mad{c}.{lo,hi}{.cc}.{u32,s32,u64,s64}: aux 1 for .hi, 2 for signed. */
KS_EMU_HANDLER (exec_madc32)
{
  guint64 *d = KS_EMU_D, *cf = CARRY;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 p = (insn->aux & 2) ? (guint64) ((gint64) (gint32) a[l] * (gint32) b[l])
                                : (guint64) (guint32) a[l] * (guint32) b[l];
    guint64 half = (insn->aux & 1) ? p >> 32 : (guint32) p;
    guint64 s = half + (guint32) c[l] + ((insn->flags & CARRY_IN) ? cf[l] : 0);

    d[l] = (guint32) s;
    if (insn->flags & CARRY_OUT)
      cf[l] = (s >> 32) & 1;
  });
}

KS_EMU_HANDLER (exec_madc64)
{
  guint64 *d = KS_EMU_D, *cf = CARRY;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    unsigned __int128 p = (insn->aux & 2)
                          ? (unsigned __int128) ((__int128) (gint64) a[l] * (gint64) b[l])
                          : (unsigned __int128) a[l] * b[l];
    guint64 half = (insn->aux & 1) ? (guint64) (p >> 64) : (guint64) p;
    unsigned __int128 s = (unsigned __int128) half + c[l] + ((insn->flags & CARRY_IN) ? cf[l] : 0);

    d[l] = (guint64) s;
    if (insn->flags & CARRY_OUT)
      cf[l] = (guint64) (s >> 64) & 1;
  });
}

/* 24-bit operands, 48-bit products. */
static inline gint64
s24 (guint64 v)
{
  return ks_emu_sext (v & 0xffffff, 3);
}

KS_EMU_BINARY (exec_mul24lo_s, guint32, (guint64) (s24 (x) * s24 (y)))
KS_EMU_BINARY (exec_mul24lo_u, guint32, (guint64) (x & 0xffffff) * (y & 0xffffff))
KS_EMU_BINARY (exec_mul24hi_s, guint32, (guint64) (s24 (x) * s24 (y)) >> 16)
KS_EMU_BINARY (exec_mul24hi_u, guint32, ((guint64) (x & 0xffffff) * (y & 0xffffff)) >> 16)
KS_EMU_TERNARY (exec_mad24lo_s, guint32, (guint64) (s24 (x) * s24 (y)) + z)
KS_EMU_TERNARY (exec_mad24lo_u, guint32, (guint64) (x & 0xffffff) * (y & 0xffffff) + z)
KS_EMU_TERNARY (exec_mad24hi_s, guint32, ((guint64) (s24 (x) * s24 (y)) >> 16) + z)
KS_EMU_TERNARY (exec_mad24hi_u, guint32, (((guint64) (x & 0xffffff) * (y & 0xffffff)) >> 16) + z)

/* ---- div, rem: what the GPU gives for a zero divisor, and no trap ------------ */

#define DIV_U(name, T) KS_EMU_BINARY (name, T, y == 0 ? (T) -1 : x / y)
#define REM_U(name, T) KS_EMU_BINARY (name, T, y == 0 ? x : x % y)
DIV_U (exec_div_u16, guint16)
DIV_U (exec_div_u32, guint32)
DIV_U (exec_div_u64, guint64)
REM_U (exec_rem_u16, guint16)
REM_U (exec_rem_u32, guint32)
REM_U (exec_rem_u64, guint64)

/* Signed, in the unsigned type: the quotient of the magnitudes with the sign
 * put back, so that MIN / -1 wraps to MIN instead of trapping the host. */
#define DIV_S(name, T, S)                                                      \
  KS_EMU_BINARY (name, T, y == 0 ? (T) -1                                             \
                 : (((S) x < 0) != ((S) y < 0))                                \
                   ? (T) - (T) (((S) x < 0 ? (T) - x : x) / ((S) y < 0 ? (T) - y : y)) \
                   : (T) (((S) x < 0 ? (T) - x : x) / ((S) y < 0 ? (T) - y : y)))
#define REM_S(name, T, S)                                                      \
  KS_EMU_BINARY (name, T, y == 0 ? x                                                  \
                 : ((S) x < 0) ? (T) - (T) (((T) - x) % ((S) y < 0 ? (T) - y : y)) \
                   : (T) (x % ((S) y < 0 ? (T) - y : y)))
DIV_S (exec_div_s16, guint16, gint16)
DIV_S (exec_div_s32, guint32, gint32)
DIV_S (exec_div_s64, guint64, gint64)
REM_S (exec_rem_s16, guint16, gint16)
REM_S (exec_rem_s32, guint32, gint32)
REM_S (exec_rem_s64, guint64, gint64)

/* ---- abs, neg, min, max, sad ------------------------------------------------- */

KS_EMU_UNARY (exec_abs16, guint16, (gint16) x < 0 ? (guint16) -x : x)
KS_EMU_UNARY (exec_abs32, guint32, (gint32) x < 0 ? -x : x)
KS_EMU_UNARY (exec_abs64, guint64, (gint64) x < 0 ? -x : x)
KS_EMU_UNARY (exec_neg16, guint16, -x)
KS_EMU_UNARY (exec_neg32, guint32, -x)
KS_EMU_UNARY (exec_neg64, guint64, -x)

#define MINMAX(name, T, S, op) KS_EMU_BINARY (name, T, ((S) x op (S) y) ? x : y)
MINMAX (exec_min_s16, guint16, gint16, <)
MINMAX (exec_min_u16, guint16, guint16, <)
MINMAX (exec_min_s32, guint32, gint32, <)
MINMAX (exec_min_u32, guint32, guint32, <)
MINMAX (exec_min_s64, guint64, gint64, <)
MINMAX (exec_min_u64, guint64, guint64, <)
MINMAX (exec_max_s16, guint16, gint16, >)
MINMAX (exec_max_u16, guint16, guint16, >)
MINMAX (exec_max_s32, guint32, gint32, >)
MINMAX (exec_max_u32, guint32, guint32, >)
MINMAX (exec_max_s64, guint64, gint64, >)
MINMAX (exec_max_u64, guint64, guint64, >)
KS_EMU_BINARY (exec_min_relu, guint32, MAX (MIN ((gint32) x, (gint32) y), 0))
KS_EMU_BINARY (exec_max_relu, guint32, MAX (MAX ((gint32) x, (gint32) y), 0))

#define SAD(name, T, S) KS_EMU_TERNARY (name, T, z + (((S) x > (S) y) ? x - y : y - x))
SAD (exec_sad_s16, guint16, gint16)
SAD (exec_sad_u16, guint16, guint16)
SAD (exec_sad_s32, guint32, gint32)
SAD (exec_sad_u32, guint32, guint32)
SAD (exec_sad_s64, guint64, gint64)
SAD (exec_sad_u64, guint64, guint64)

/* ---- decoding --------------------------------------------------------------- */

typedef struct
{
  KsEmuExecFn s16, u16, s32, u32, s64, u64;
} ByType;

static KsEmuExecFn
by_type (const ByType *t, KsPtxType type)
{
  switch (type)
    {
    case KS_PTX_S16: return t->s16;
    case KS_PTX_U16: case KS_PTX_B16: return t->u16;
    case KS_PTX_S32: return t->s32;
    case KS_PTX_U32: case KS_PTX_B32: return t->u32;
    case KS_PTX_S64: return t->s64;
    case KS_PTX_U64: case KS_PTX_B64: return t->u64;
    default: return NULL;
    }
}

static gboolean
is_int (KsPtxType t)
{
  return !_ks_ptx_type_is_float (t) && t != KS_PTX_PRED && t != KS_PTX_NONE && t != KS_PTX_B8
         && t != KS_PTX_U8 && t != KS_PTX_S8 && t != KS_PTX_B128;
}

static gboolean
decode_mov (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  const KsPtxOperand *dst, *src;

  if (pi->n_ops != 2 || m->n_types != 1)
    return FALSE;
  dst = &pi->ops[0];
  src = &pi->ops[1];
  if (t == KS_PTX_PRED)
    {
      insn->o[0] = _ks_emu_pred (b, dst);
      if (src->kind == KS_PTX_OPND_IMM)
        {
          insn->fn = exec_set_pred_const;
          insn->imm = src->bits != 0;
          return TRUE;
        }
      insn->fn = exec_mov_pred;
      insn->o[1] = _ks_emu_pred (b, src);
      insn->flags = (guint8) src->negated;
      return TRUE;
    }
  if (src->kind == KS_PTX_OPND_CLOCK)
    {
      insn->fn = exec_clock;
      insn->aux = src->clock;
      insn->o[0] = _ks_emu_dst (b, dst);
      return TRUE;
    }
  if (dst->kind == KS_PTX_OPND_VEC || src->kind == KS_PTX_OPND_VEC)
    {
      const KsPtxOperand *vec = dst->kind == KS_PTX_OPND_VEC ? dst : src;
      const KsPtxOperand *whole = dst->kind == KS_PTX_OPND_VEC ? src : dst;
      guint size = _ks_ptx_type_size (t);

      if (vec->n_elems < 2 || vec->n_elems > 4 || size % vec->n_elems != 0 || size > 8)
        return FALSE;
      insn->size = (guint8) (size / vec->n_elems);
      insn->vec = (guint8) vec->n_elems;
      insn->fn = vec == dst ? exec_unpack : exec_pack;
      insn->o[0] = vec == dst ? _ks_emu_src (b, whole, t) : _ks_emu_dst (b, whole);
      for (guint i = 0; i < vec->n_elems; i++)
        insn->o[1 + i] = vec == dst ? _ks_emu_dst (b, &vec->elems[i])
                                    : _ks_emu_src (b, &vec->elems[i], KS_PTX_B64);
      return TRUE;
    }
  insn->o[0] = _ks_emu_dst (b, dst);
  if (src->kind == KS_PTX_OPND_SYM && src->var != NULL && src->var->kind == KS_EMU_VAR_LOCAL)
    {
      insn->fn = exec_mov_local;
      insn->imm = (gint64) src->var->address;
      b->module->specials_used |= 1u << KS_EMU_SR_FRAME;
      return TRUE;
    }
  insn->fn = exec_mov;
  insn->o[1] = _ks_emu_src (b, src, t);
  return TRUE;
}

static gboolean
decode_add_sub (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const ByType add = { exec_add16, exec_add16, exec_add32, exec_add32, exec_add64,
                              exec_add64 };
  static const ByType sub = { exec_sub16, exec_sub16, exec_sub32, exec_sub32, exec_sub64,
                              exec_sub64 };
  gboolean is_add = pi->parts[0][0] == 'a';
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean chain = strcmp (pi->parts[0], "addc") == 0 || strcmp (pi->parts[0], "subc") == 0;
  gboolean cc = _ks_ptx_take_mod (m, "cc");

  if (m->n_types != 1 || !is_int (t) || _ks_ptx_type_is_float (t))
    return FALSE;
  if (chain || cc)
    {
      guint size = _ks_ptx_type_size (t);

      if (size < 4)
        return FALSE;
      insn->flags = (chain ? CARRY_IN : 0) | (cc ? CARRY_OUT : 0);
      insn->fn = is_add ? (size == 4 ? exec_addc32 : exec_addc64)
                        : (size == 4 ? exec_subc32 : exec_subc64);
    }
  else if (_ks_ptx_take_mod (m, "sat"))
    {
      if (t != KS_PTX_S32)
        return FALSE;
      insn->fn = is_add ? exec_add_sat : exec_sub_sat;
    }
  else
    insn->fn = by_type (is_add ? &add : &sub, t);
  return _ks_emu_operands (b, pi, insn, 3, t);
}

static gboolean
decode_mul_mad (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const ByType lo = { exec_mul16, exec_mul16, exec_mul32, exec_mul32, exec_mul64,
                             exec_mul64 };
  static const ByType hi = { exec_mulhi_s16, exec_mulhi_u16, exec_mulhi_s32, exec_mulhi_u32,
                             exec_mulhi_s64, exec_mulhi_u64 };
  static const ByType wide = { exec_mulwide_s16, exec_mulwide_u16, exec_mulwide_s32,
                               exec_mulwide_u32, NULL, NULL };
  static const ByType madlo = { exec_mad16, exec_mad16, exec_mad32, exec_mad32, exec_mad64,
                                exec_mad64 };
  static const ByType madhi = { exec_madhi_s16, exec_madhi_u16, exec_madhi_s32, exec_madhi_u32,
                                exec_madhi_s64, exec_madhi_u64 };
  static const ByType madwide = { exec_madwide_s16, exec_madwide_u16, exec_madwide_s32,
                                  exec_madwide_u32, NULL, NULL };
  gboolean mad = strcmp (pi->parts[0], "mad") == 0 || strcmp (pi->parts[0], "madc") == 0;
  gboolean chain = strcmp (pi->parts[0], "madc") == 0;
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean is_lo = _ks_ptx_take_mod (m, "lo");
  gboolean is_hi = !is_lo && _ks_ptx_take_mod (m, "hi");
  gboolean is_wide = !is_lo && !is_hi && _ks_ptx_take_mod (m, "wide");
  gboolean cc = _ks_ptx_take_mod (m, "cc");
  KsPtxType src_type = t;

  if (m->n_types != 1 || _ks_ptx_type_is_float (t))
    return FALSE; /* the float group decodes mul.f32 and mad.f32 */
  if (!is_int (t) || (!is_lo && !is_hi && !is_wide))
    return FALSE;
  if (chain || cc)
    {
      guint size = _ks_ptx_type_size (t);

      if (!mad || is_wide || size < 4)
        return FALSE;
      insn->fn = size == 4 ? exec_madc32 : exec_madc64;
      insn->aux = (is_hi ? 1 : 0) | (_ks_ptx_type_is_signed (t) ? 2 : 0);
      insn->flags = (chain ? CARRY_IN : 0) | (cc ? CARRY_OUT : 0);
    }
  else
    insn->fn = by_type (is_lo ? (mad ? &madlo : &lo) : is_hi ? (mad ? &madhi : &hi)
                                                   : (mad ? &madwide : &wide), t);
  if (insn->fn == NULL)
    return FALSE;
  if (!_ks_emu_operands (b, pi, insn, mad ? 4 : 3, src_type))
    return FALSE;
  if (mad && is_wide)
    insn->o[3] = _ks_emu_src (b, &pi->ops[3], _ks_ptx_type_is_signed (t)
                              ? (t == KS_PTX_S16 ? KS_PTX_S32 : KS_PTX_S64)
                              : (t == KS_PTX_U16 ? KS_PTX_U32 : KS_PTX_U64));
  return TRUE;
}

static gboolean
decode_24 (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  gboolean mad = pi->parts[0][1] == 'a';
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean is_hi = _ks_ptx_take_mod (m, "hi");
  gboolean is_signed = t == KS_PTX_S32;

  if (!is_hi && !_ks_ptx_take_mod (m, "lo"))
    return FALSE;
  if (m->n_types != 1 || (t != KS_PTX_S32 && t != KS_PTX_U32))
    return FALSE;
  insn->fn = mad ? (is_hi ? (is_signed ? exec_mad24hi_s : exec_mad24hi_u)
                          : (is_signed ? exec_mad24lo_s : exec_mad24lo_u))
                 : (is_hi ? (is_signed ? exec_mul24hi_s : exec_mul24hi_u)
                          : (is_signed ? exec_mul24lo_s : exec_mul24lo_u));
  return _ks_emu_operands (b, pi, insn, mad ? 4 : 3, t);
}

static gboolean
decode_div_rem (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const ByType div = { exec_div_s16, exec_div_u16, exec_div_s32, exec_div_u32,
                              exec_div_s64, exec_div_u64 };
  static const ByType rem = { exec_rem_s16, exec_rem_u16, exec_rem_s32, exec_rem_u32,
                              exec_rem_s64, exec_rem_u64 };
  KsPtxType t = _ks_ptx_mods_type (m, 0);

  if (m->n_types != 1 || !is_int (t) || _ks_ptx_type_is_float (t))
    return FALSE; /* div.f32 is the float group's */
  insn->fn = by_type (pi->parts[0][0] == 'd' ? &div : &rem, t);
  return insn->fn != NULL && _ks_emu_operands (b, pi, insn, 3, t);
}

static gboolean
decode_simple (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const ByType abs_ = { exec_abs16, exec_abs16, exec_abs32, exec_abs32, exec_abs64,
                               exec_abs64 };
  static const ByType neg = { exec_neg16, exec_neg16, exec_neg32, exec_neg32, exec_neg64,
                              exec_neg64 };
  static const ByType min = { exec_min_s16, exec_min_u16, exec_min_s32, exec_min_u32,
                              exec_min_s64, exec_min_u64 };
  static const ByType max = { exec_max_s16, exec_max_u16, exec_max_s32, exec_max_u32,
                              exec_max_s64, exec_max_u64 };
  static const ByType sad = { exec_sad_s16, exec_sad_u16, exec_sad_s32, exec_sad_u32,
                              exec_sad_s64, exec_sad_u64 };
  const char *op = pi->parts[0];
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean relu;

  if (m->n_types != 1 || !is_int (t))
    return FALSE;
  if (strcmp (op, "abs") == 0 || strcmp (op, "neg") == 0)
    {
      insn->fn = by_type (op[0] == 'a' ? &abs_ : &neg, t);
      return _ks_emu_operands (b, pi, insn, 2, t);
    }
  if (strcmp (op, "sad") == 0)
    {
      insn->fn = by_type (&sad, t);
      return _ks_emu_operands (b, pi, insn, 4, t);
    }
  relu = _ks_ptx_take_mod (m, "relu");
  if (relu && t != KS_PTX_S32)
    return FALSE;
  if (relu)
    insn->fn = op[1] == 'i' ? exec_min_relu : exec_max_relu;
  else
    insn->fn = by_type (op[1] == 'i' ? &min : &max, t);
  return _ks_emu_operands (b, pi, insn, 3, t);
}

/* add, sub, mul, mad, div, abs, neg, min, max are integer or float by type. */
static gboolean
decode_arith (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, -1);
  const char *op = pi->parts[0];

  if (_ks_ptx_type_is_float (t))
    return _ks_emu_decode_float_shared (b, pi, m, insn);
  if (strcmp (op, "add") == 0 || strcmp (op, "sub") == 0 || strcmp (op, "addc") == 0
      || strcmp (op, "subc") == 0)
    return decode_add_sub (b, pi, m, insn);
  if (strcmp (op, "mul") == 0 || strcmp (op, "mad") == 0 || strcmp (op, "madc") == 0)
    return decode_mul_mad (b, pi, m, insn);
  if (strcmp (op, "div") == 0 || strcmp (op, "rem") == 0)
    return decode_div_rem (b, pi, m, insn);
  return decode_simple (b, pi, m, insn);
}

const KsEmuDecoder _ks_emu_decoders_int[] = {
  { "mov", decode_mov },
  { "add", decode_arith },
  { "sub", decode_arith },
  { "addc", decode_arith },
  { "subc", decode_arith },
  { "mul", decode_arith },
  { "mad", decode_arith },
  { "madc", decode_arith },
  { "mul24", decode_24 },
  { "mad24", decode_24 },
  { "div", decode_arith },
  { "rem", decode_arith },
  { "abs", decode_arith },
  { "neg", decode_arith },
  { "min", decode_arith },
  { "max", decode_arith },
  { "sad", decode_simple },
  { NULL, NULL },
};
