/* ks-emu-exec-cmp.c: comparisons and selections: setp (every compare
 * operator of every type, the unordered float ones, the .and/.or/.xor with
 * a predicate and the second destination), set, selp and slct.
 *
 * A comparison is generated per type and operator, so that its loop holds
 * nothing but the compare: setp is what every loop and every bounds check
 * runs. */
#include "config.h"

#include <math.h>

#include "ks-emu-private.h"



typedef enum
{
  CMP_eq, CMP_ne, CMP_lt, CMP_le, CMP_gt, CMP_ge,
  CMP_equ, CMP_neu, CMP_ltu, CMP_leu, CMP_gtu, CMP_geu, CMP_num, CMP_nan,
  N_CMP,
} CmpOp;

static const char *const cmp_names[N_CMP] = {
  "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};

typedef guint32 (*CmpFn) (const guint64 *a, const guint64 *b, guint32 mask);

typedef struct
{
  CmpFn cmp;
  KsEmuExecFn setp;
} CmpEntry;

#define TYPE_s16 gint16
#define TYPE_u16 guint16
#define TYPE_s32 gint32
#define TYPE_u32 guint32
#define TYPE_s64 gint64
#define TYPE_u64 guint64
#define TYPE_f32 float
#define TYPE_f32ftz float
#define TYPE_f64 double
#define TYPE_f16 double
#define TYPE_bf16 double
#define LOAD_s16(v) ((gint16) (v))
#define LOAD_u16(v) ((guint16) (v))
#define LOAD_s32(v) ((gint32) (v))
#define LOAD_u32(v) ((guint32) (v))
#define LOAD_s64(v) ((gint64) (v))
#define LOAD_u64(v) ((guint64) (v))
#define LOAD_f32(v) ks_emu_f32 (v)
#define LOAD_f32ftz(v) ks_emu_ftz (ks_emu_f32 (v))
#define LOAD_f64(v) ks_emu_f64 (v)
#define LOAD_f16(v) _ks_emu_half_to_double ((guint16) (v))
#define LOAD_bf16(v) ((double) ks_emu_f32 ((guint64) (guint16) (v) << 16))

#define GEN_CMP(ty, op, expr)                                                  \
  static guint32                                                               \
  cmp_##ty##_##op (const guint64 *a, const guint64 *b, guint32 mask)           \
  {                                                                            \
    guint32 r = 0;                                                             \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      TYPE_##ty x = LOAD_##ty (a[l]), y = LOAD_##ty (b[l]);                    \
      r |= (guint32) (expr) << l;                                              \
    });                                                                        \
    return r;                                                                  \
  }                                                                            \
  KS_EMU_HANDLER (setp_##ty##_##op)                                                   \
  {                                                                            \
    ks_emu_set_pred (w, insn->o[0], mask, cmp_##ty##_##op (KS_EMU_A, KS_EMU_B, mask));       \
  }

#define INT_OPS(X, ty)                                                         \
  X (ty, eq, x == y) X (ty, ne, x != y) X (ty, lt, x < y) X (ty, le, x <= y)   \
  X (ty, gt, x > y) X (ty, ge, x >= y)

INT_OPS (GEN_CMP, s16)
INT_OPS (GEN_CMP, u16)
INT_OPS (GEN_CMP, s32)
INT_OPS (GEN_CMP, u32)
INT_OPS (GEN_CMP, s64)
INT_OPS (GEN_CMP, u64)

/* The ordered operators are false where either side is NaN, the unordered
 * ones (…u) true, as C's < is and its ! of the opposite is; ordered ne is
 * not C's !=, which NaN makes true. */
#define FLOAT_OPS_ORDERED_NE(X, ty)                                            \
  X (ty, eq, x == y) X (ty, ne, x < y || x > y) X (ty, lt, x < y) X (ty, le, x <= y) \
  X (ty, gt, x > y) X (ty, ge, x >= y)                                         \
  X (ty, equ, !(x < y || x > y)) X (ty, neu, !(x == y)) X (ty, ltu, !(x >= y)) \
  X (ty, leu, !(x > y)) X (ty, gtu, !(x <= y)) X (ty, geu, !(x < y))           \
  X (ty, num, !isnan (x) && !isnan (y)) X (ty, nan, isnan (x) || isnan (y))

FLOAT_OPS_ORDERED_NE (GEN_CMP, f32)
FLOAT_OPS_ORDERED_NE (GEN_CMP, f32ftz)
FLOAT_OPS_ORDERED_NE (GEN_CMP, f64)
FLOAT_OPS_ORDERED_NE (GEN_CMP, f16)
FLOAT_OPS_ORDERED_NE (GEN_CMP, bf16)

#define ENTRY(ty, op, expr) [CMP_##op] = { cmp_##ty##_##op, setp_##ty##_##op },

static const CmpEntry table_s16[N_CMP] = { INT_OPS (ENTRY, s16) };
static const CmpEntry table_u16[N_CMP] = { INT_OPS (ENTRY, u16) };
static const CmpEntry table_s32[N_CMP] = { INT_OPS (ENTRY, s32) };
static const CmpEntry table_u32[N_CMP] = { INT_OPS (ENTRY, u32) };
static const CmpEntry table_s64[N_CMP] = { INT_OPS (ENTRY, s64) };
static const CmpEntry table_u64[N_CMP] = { INT_OPS (ENTRY, u64) };
static const CmpEntry table_f32[N_CMP] = { FLOAT_OPS_ORDERED_NE (ENTRY, f32) };
static const CmpEntry table_f32ftz[N_CMP] = { FLOAT_OPS_ORDERED_NE (ENTRY, f32ftz) };
static const CmpEntry table_f64[N_CMP] = { FLOAT_OPS_ORDERED_NE (ENTRY, f64) };
static const CmpEntry table_f16[N_CMP] = { FLOAT_OPS_ORDERED_NE (ENTRY, f16) };
static const CmpEntry table_bf16[N_CMP] = { FLOAT_OPS_ORDERED_NE (ENTRY, bf16) };

/* A compare's table by type: (table index) kept in insn->aux's high bits. */
static const CmpEntry *const tables[] = {
  table_s16, table_u16, table_s32, table_u32, table_s64, table_u64, table_f32, table_f32ftz,
  table_f64, table_f16, table_bf16,
};

enum { T_S16, T_U16, T_S32, T_U32, T_S64, T_U64, T_F32, T_F32FTZ, T_F64, T_F16, T_BF16 };

static CmpFn
cmp_of (const KsEmuInsn *insn)
{
  return tables[insn->aux >> 8][insn->aux & 0xff].cmp;
}

/* The .and/.or/.xor with c, and the second destination: flags bit 0–1 the
 * operation (0 none, 1 and, 2 or, 3 xor), bit 2 c negated, bit 3 a q. */
static inline guint32
combine (guint op, guint32 v, guint32 c)
{
  switch (op)
    {
    case 1: return v & c;
    case 2: return v | c;
    case 3: return v ^ c;
    default: return v;
    }
}

/* setp p|q, a, b{, c}: o[0] p, o[4] q, o[5] c. */
KS_EMU_HANDLER (exec_setp_full)
{
  guint32 r = cmp_of (insn) (KS_EMU_A, KS_EMU_B, mask);
  guint op = insn->flags & 3;
  guint32 c = op != 0 ? w->preds[insn->o[5]] : 0;

  if (insn->flags & 4)
    c = ~c;
  ks_emu_set_pred (w, insn->o[0], mask, combine (op, r, c));
  if (insn->flags & 8)
    ks_emu_set_pred (w, insn->o[4], mask, combine (op, ~r, c));
}

/* setp.f16x2 p|q: the low halves into p, the high ones into q. */
KS_EMU_HANDLER (exec_setp_x2)
{
  guint64 lo_a[KS_EMU_WARP_SIZE], lo_b[KS_EMU_WARP_SIZE], hi_a[KS_EMU_WARP_SIZE],
          hi_b[KS_EMU_WARP_SIZE];
  CmpFn cmp = cmp_of (insn);
  guint op = insn->flags & 3;
  guint32 c = op != 0 ? w->preds[insn->o[5]] : 0;

  if (insn->flags & 4)
    c = ~c;
  KS_EMU_FOR_LANES (mask, l, {
    lo_a[l] = KS_EMU_A[l] & 0xffff;
    lo_b[l] = KS_EMU_B[l] & 0xffff;
    hi_a[l] = (KS_EMU_A[l] >> 16) & 0xffff;
    hi_b[l] = (KS_EMU_B[l] >> 16) & 0xffff;
  });
  ks_emu_set_pred (w, insn->o[0], mask, combine (op, cmp (lo_a, lo_b, mask), c));
  if (insn->flags & 8)
    ks_emu_set_pred (w, insn->o[4], mask, combine (op, cmp (hi_a, hi_b, mask), c));
}

/* set.cmp{.bool}.dtype.stype d, a, b{, c}: all ones (1.0f for .f32) or 0. */
KS_EMU_HANDLER (exec_set)
{
  guint32 r = cmp_of (insn) (KS_EMU_A, KS_EMU_B, mask);
  guint op = insn->flags & 3;
  guint32 c = op != 0 ? w->preds[insn->o[5]] : 0;
  guint64 one = insn->imm != 0 ? ks_emu_from_f32 (1.0f) : 0xffffffffu;
  guint64 *d = KS_EMU_D;

  if (insn->flags & 4)
    c = ~c;
  r = combine (op, r, c);
  KS_EMU_FOR_LANES (mask, l, { d[l] = ((r >> l) & 1) ? one : 0; });
}

/* selp d, a, b, c: c ? a : b. o[3] is c's predicate. */
KS_EMU_HANDLER (exec_selp)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;
  guint32 p = w->preds[insn->o[3]];

  KS_EMU_FOR_LANES (mask, l, { d[l] = ((p >> l) & 1) ? a[l] : b[l]; });
}

/* slct d, a, b, c: c >= 0 ? a : b; aux 1: c is f32, 2 with .ftz. */
KS_EMU_HANDLER (exec_slct)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    gboolean take_a;

    if (insn->aux == 0)
      take_a = (gint32) c[l] >= 0;
    else
      take_a = (insn->aux == 2 ? ks_emu_ftz (ks_emu_f32 (c[l])) : ks_emu_f32 (c[l])) >= 0.0f;
    d[l] = take_a ? a[l] : b[l];
  });
}

/* ---- decoding --------------------------------------------------------------- */

static gint
table_of (KsPtxType t, gboolean ftz)
{
  switch (t)
    {
    case KS_PTX_S16: return T_S16;
    case KS_PTX_U16: case KS_PTX_B16: return T_U16;
    case KS_PTX_S32: return T_S32;
    case KS_PTX_U32: case KS_PTX_B32: return T_U32;
    case KS_PTX_S64: return T_S64;
    case KS_PTX_U64: case KS_PTX_B64: return T_U64;
    case KS_PTX_F32: return ftz ? T_F32FTZ : T_F32;
    case KS_PTX_F64: return T_F64;
    case KS_PTX_F16: case KS_PTX_F16X2: return T_F16;
    case KS_PTX_BF16: case KS_PTX_BF16X2: return T_BF16;
    default: return -1;
    }
}

/* The compare operator and the boolean one, taken from m. */
static gboolean
take_ops (KsPtxMods *m, KsPtxType t, gint *cmp, guint *boolop)
{
  static const struct { const char *name; CmpOp op; } unsigned_names[] = {
    { "lo", CMP_lt }, { "ls", CMP_le }, { "hi", CMP_gt }, { "hs", CMP_ge },
  };

  *cmp = -1;
  for (guint i = 0; i < N_CMP && *cmp < 0; i++)
    if (_ks_ptx_take_mod (m, cmp_names[i]))
      *cmp = (gint) i;
  for (guint i = 0; i < G_N_ELEMENTS (unsigned_names) && *cmp < 0; i++)
    if (_ks_ptx_take_mod (m, unsigned_names[i].name))
      *cmp = unsigned_names[i].op;
  *boolop = _ks_ptx_take_mod (m, "and") ? 1 : _ks_ptx_take_mod (m, "or") ? 2
            : _ks_ptx_take_mod (m, "xor") ? 3 : 0;
  if (*cmp < 0)
    return FALSE;
  /* Integers have the six ordered operators; bit types only eq and ne. */
  if (!_ks_ptx_type_is_float (t) && *cmp > CMP_ge)
    return FALSE;
  if ((t == KS_PTX_B16 || t == KS_PTX_B32 || t == KS_PTX_B64) && *cmp > CMP_ne)
    return FALSE;
  return TRUE;
}

static gboolean
decode_setp (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, -1);
  gboolean ftz = _ks_ptx_take_mod (m, "ftz");
  gint cmp, table;
  guint boolop;
  const KsPtxOperand *p;
  gboolean x2 = t == KS_PTX_F16X2 || t == KS_PTX_BF16X2;

  if (m->n_types != 1 || !take_ops (m, t, &cmp, &boolop) || (table = table_of (t, ftz)) < 0)
    return FALSE;
  if (pi->n_ops != (boolop != 0 ? 4u : 3u))
    return FALSE;
  p = &pi->ops[0];
  insn->o[0] = _ks_emu_pred (b, p);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t == KS_PTX_F16X2 ? KS_PTX_B32 : t);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], t == KS_PTX_F16X2 ? KS_PTX_B32 : t);
  insn->aux = ((guint32) table << 8) | (guint32) cmp;
  if (boolop == 0 && p->pair == G_MAXUINT32 && !x2)
    {
      insn->fn = tables[table][cmp].setp;
      return TRUE;
    }
  insn->fn = x2 ? exec_setp_x2 : exec_setp_full;
  insn->flags = (guint8) boolop;
  if (boolop != 0)
    {
      insn->o[5] = _ks_emu_pred (b, &pi->ops[3]);
      if (pi->ops[3].negated)
        insn->flags |= 4;
    }
  if (p->pair != G_MAXUINT32)
    {
      insn->o[4] = p->pair;
      insn->flags |= 8;
    }
  return TRUE;
}

static gboolean
decode_set (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType dt = _ks_ptx_mods_type (m, 0), st = _ks_ptx_mods_type (m, 1);
  gboolean ftz = _ks_ptx_take_mod (m, "ftz");
  gint cmp, table;
  guint boolop;

  if (m->n_types != 2 || !take_ops (m, st, &cmp, &boolop) || (table = table_of (st, ftz)) < 0
      || st == KS_PTX_F16X2 || st == KS_PTX_BF16X2)
    return FALSE;
  if (dt != KS_PTX_U32 && dt != KS_PTX_S32 && dt != KS_PTX_F32)
    return FALSE;
  if (pi->n_ops != (boolop != 0 ? 4u : 3u))
    return FALSE;
  insn->fn = exec_set;
  insn->aux = ((guint32) table << 8) | (guint32) cmp;
  insn->imm = dt == KS_PTX_F32;
  insn->flags = (guint8) boolop;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], st);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], st);
  if (boolop != 0)
    {
      insn->o[5] = _ks_emu_pred (b, &pi->ops[3]);
      if (pi->ops[3].negated)
        insn->flags |= 4;
    }
  return TRUE;
}

static gboolean
decode_selp (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);

  if (m->n_types != 1 || pi->n_ops != 4 || t == KS_PTX_PRED)
    return FALSE;
  insn->fn = exec_selp;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], t);
  if (pi->ops[3].negated)
    return FALSE;
  insn->o[3] = _ks_emu_pred (b, &pi->ops[3]);
  return TRUE;
}

static gboolean
decode_slct (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType dt = _ks_ptx_mods_type (m, 0), ct = _ks_ptx_mods_type (m, 1);
  gboolean ftz = _ks_ptx_take_mod (m, "ftz");

  if (m->n_types != 2 || pi->n_ops != 4 || (ct != KS_PTX_S32 && ct != KS_PTX_F32))
    return FALSE;
  insn->fn = exec_slct;
  insn->aux = ct == KS_PTX_F32 ? (ftz ? 2 : 1) : 0;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], dt);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], dt);
  insn->o[3] = _ks_emu_src (b, &pi->ops[3], ct);
  return TRUE;
}

const KsEmuDecoder _ks_emu_decoders_cmp[] = {
  { "setp", decode_setp },
  { "set", decode_set },
  { "selp", decode_selp },
  { "slct", decode_slct },
  { NULL, NULL },
};
