/* ks-emu-exec-bits.c: logic and bit fields: and, or, xor, not, cnot, lop3
 * (of integers and of predicates), the shifts and funnel shifts, popc, clz,
 * brev, bfe, bfi, bfind, prmt, fns, bmsk, szext, dp4a and dp2a. */
#include "config.h"

#include "ks-emu-private.h"



/* d = expr of x = a (type T) and y = b (type Y: T, or a shift's u32). */


/* ---- logic ------------------------------------------------------------------ */

KS_EMU_BINARY2 (exec_and, guint64, guint64, x & y)
KS_EMU_BINARY2 (exec_or, guint64, guint64, x | y)
KS_EMU_BINARY2 (exec_xor, guint64, guint64, x ^ y)
KS_EMU_UNARY (exec_not, guint64, ~x)
KS_EMU_UNARY (exec_cnot, guint64, x == 0 ? 1 : 0)
KS_EMU_UNARY (exec_cnot16, guint16, (guint16) x == 0 ? 1 : 0)
KS_EMU_UNARY (exec_cnot32, guint32, (guint32) x == 0 ? 1 : 0)

/* Predicates: o[] are predicate indices; flags bit i negates source i. */
static inline guint32
pred_src (KsEmuWarp *w, const KsEmuInsn *insn, guint i)
{
  guint32 p = w->preds[insn->o[1 + i]];

  return (insn->flags >> i) & 1 ? ~p : p;
}

KS_EMU_HANDLER (exec_and_pred)
{
  ks_emu_set_pred (w, insn->o[0], mask, pred_src (w, insn, 0) & pred_src (w, insn, 1));
}

KS_EMU_HANDLER (exec_or_pred)
{
  ks_emu_set_pred (w, insn->o[0], mask, pred_src (w, insn, 0) | pred_src (w, insn, 1));
}

KS_EMU_HANDLER (exec_xor_pred)
{
  ks_emu_set_pred (w, insn->o[0], mask, pred_src (w, insn, 0) ^ pred_src (w, insn, 1));
}
KS_EMU_HANDLER (exec_not_pred) { ks_emu_set_pred (w, insn->o[0], mask, ~pred_src (w, insn, 0)); }

/* lop3.b32 d, a, b, c, lut: each bit of d is lut's bit at (a b c). */
KS_EMU_HANDLER (exec_lop3)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;
  guint lut = (guint) insn->imm;

  KS_EMU_FOR_LANES (mask, l, {
    guint32 x = (guint32) a[l], y = (guint32) b[l], z = (guint32) c[l], r = 0;

    for (guint i = 0; i < 8; i++)
      if ((lut >> i) & 1)
        r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
    d[l] = r;
  });
}

/* ---- shifts ----------------------------------------------------------------- */

KS_EMU_BINARY2 (exec_shl16, guint16, guint32, y >= 16 ? 0 : x << y)
KS_EMU_BINARY2 (exec_shl32, guint32, guint32, y >= 32 ? 0 : x << y)
KS_EMU_BINARY2 (exec_shl64, guint64, guint32, y >= 64 ? 0 : x << y)
KS_EMU_BINARY2 (exec_shr_u16, guint16, guint32, y >= 16 ? 0 : x >> y)
KS_EMU_BINARY2 (exec_shr_u32, guint32, guint32, y >= 32 ? 0 : x >> y)
KS_EMU_BINARY2 (exec_shr_u64, guint64, guint32, y >= 64 ? 0 : x >> y)
KS_EMU_BINARY2 (exec_shr_s16, guint16, guint32, (gint16) x >> MIN (y, 15u))
KS_EMU_BINARY2 (exec_shr_s32, guint32, guint32, (gint32) x >> MIN (y, 31u))
KS_EMU_BINARY2 (exec_shr_s64, guint64, guint32, (gint64) x >> MIN (y, 63u))

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the 64 bits b:a shifted by c.
 * aux: 1 right, 2 clamp. */
KS_EMU_HANDLER (exec_shf)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 both = ((guint64) (guint32) b[l] << 32) | (guint32) a[l];
    guint32 n = (guint32) c[l];

    n = (insn->aux & 2) ? MIN (n, 32u) : n & 31;
    d[l] = (insn->aux & 1) ? (guint32) (both >> n) : (guint32) ((both << n) >> 32);
  });
}

/* ---- counting and reversing ------------------------------------------------- */

KS_EMU_UNARY (exec_popc32, guint32, (guint32) __builtin_popcount (x))
KS_EMU_UNARY (exec_popc64, guint64, (guint32) __builtin_popcountll (x))
KS_EMU_UNARY (exec_clz32, guint32, x == 0 ? 32u : (guint32) __builtin_clz (x))
KS_EMU_UNARY (exec_clz64, guint64, x == 0 ? 64u : (guint32) __builtin_clzll (x))

static inline guint32
brev32 (guint32 x)
{
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32 (x);
}

KS_EMU_UNARY (exec_brev32, guint32, brev32 (x))
KS_EMU_UNARY (exec_brev64, guint64, ((guint64) brev32 ((guint32) x) << 32) | brev32 ((guint32) (x >> 32)))

/* bfind.{u,s}{32,64}{.shiftamt} d, a: aux bit 0 signed, bit 1 shiftamt; size the width. */
KS_EMU_HANDLER (exec_bfind)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A;
  guint bits = insn->size * 8;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 x = ks_emu_zext (a[l], insn->size);
    gint pos = -1;

    /* A negative signed value: the highest bit that differs from the sign. */
    if ((insn->aux & 1) && (x >> (bits - 1)) != 0)
      x = ~x & (bits == 64 ? G_MAXUINT64 : ((G_GUINT64_CONSTANT (1) << bits) - 1));
    if (x != 0)
      pos = 63 - __builtin_clzll (x);
    if (pos < 0)
      d[l] = 0xffffffffu;
    else
      d[l] = (insn->aux & 2) ? (guint32) (bits - 1 - (guint) pos) : (guint32) pos;
  });
}

/* fns.b32 d, mask, base, offset: the offset-th set bit of mask from base. */
KS_EMU_HANDLER (exec_fns)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    guint32 m = (guint32) a[l];
    gint pos = (gint) ((guint32) b[l] & 0xffffffffu);
    gint32 offset = (gint32) c[l];
    guint32 r = 0xffffffffu;

    if (offset == 0)
      {
        if (pos >= 0 && pos < 32 && ((m >> pos) & 1))
          r = (guint32) pos;
      }
    else
      {
        gint inc = offset > 0 ? 1 : -1;
        gint64 count = (offset > 0 ? (gint64) offset : -(gint64) offset) - 1;

        for (; pos >= 0 && pos < 32; pos += inc)
          if ((m >> pos) & 1)
            {
              if (count == 0)
                {
                  r = (guint32) pos;
                  break;
                }
              count--;
            }
      }
    d[l] = r;
  });
}

/* ---- bit fields and bytes --------------------------------------------------- */

/* bfe d, a, pos, len: aux bit 0 signed; size the width. */
KS_EMU_HANDLER (exec_bfe)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;
  guint msb = insn->size * 8 - 1;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 x = a[l];
    guint pos = (guint) (b[l] & 0xff), len = (guint) (c[l] & 0xff);
    guint64 r = 0;
    gboolean sbit = FALSE;

    if ((insn->aux & 1) && len > 0)
      sbit = (x >> MIN (pos + len - 1, msb)) & 1;
    for (guint i = 0; i <= msb; i++)
      {
        guint64 bit = (i < len && pos + i <= msb) ? (x >> (pos + i)) & 1 : (guint64) sbit;

        r |= (guint64) bit << i;
      }
    d[l] = r;
  });
}

/* bfi f, a, b, pos, len: a's low bits inserted into b. */
KS_EMU_HANDLER (exec_bfi)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C, *e = w->regs + insn->o[4];
  guint msb = insn->size * 8 - 1;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 r = b[l];
    guint pos = (guint) (c[l] & 0xff), len = (guint) (e[l] & 0xff);

    for (guint i = 0; i < len && pos + i <= msb; i++)
      r = (r & ~(G_GUINT64_CONSTANT (1) << (pos + i))) | (((a[l] >> i) & 1) << (pos + i));
    d[l] = ks_emu_zext (r, insn->size);
  });
}

/* prmt.b32{.mode} d, a, b, c: bytes of b:a picked by c. aux the mode. */
enum { PRMT_DEFAULT, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16 };

KS_EMU_HANDLER (exec_prmt)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 src = ((guint64) (guint32) b[l] << 32) | (guint32) a[l];
    guint32 sel = (guint32) c[l];
    guint32 r = 0;

    for (guint i = 0; i < 4; i++)
      {
        guint s = sel & 3;
        guint byte_index;
        guint8 v;

        switch (insn->aux)
          {
          case PRMT_F4E: byte_index = (sel + i) & 7; break;
          case PRMT_B4E: byte_index = (sel - i) & 7; break;
          case PRMT_RC8: byte_index = s; break;
          case PRMT_ECL: byte_index = MAX (i, s); break;
          case PRMT_ECR: byte_index = MIN (i, s); break;
          case PRMT_RC16: byte_index = (s & 1) * 2 + (i & 1); break;
          default:
            {
              guint nibble = (sel >> (4 * i)) & 0xf;

              byte_index = nibble & 7;
              v = (guint8) (src >> (8 * byte_index));
              if (nibble & 8)
                v = (v & 0x80) ? 0xff : 0;
              r |= (guint32) v << (8 * i);
              continue;
            }
          }
        v = (guint8) (src >> (8 * byte_index));
        r |= (guint32) v << (8 * i);
      }
    d[l] = r;
  });
}

/* bmsk.{wrap,clamp}.b32 d, a, b: b ones from bit a. aux 2: clamp. */
KS_EMU_HANDLER (exec_bmsk)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;

  KS_EMU_FOR_LANES (mask, l, {
    guint32 pos = (guint32) a[l], len = (guint32) b[l];

    if (insn->aux & 2)
      pos = MIN (pos, 32u), len = MIN (len, 32u);
    else
      pos &= 31, len &= 31;
    d[l] = (guint32) ((((G_GUINT64_CONSTANT (1) << len) - 1) << pos));
  });
}

/* szext.{wrap,clamp}.{u32,s32} d, a, b: a extended from its low b bits.
 * aux bit 0 signed, bit 1 clamp. */
KS_EMU_HANDLER (exec_szext)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B;

  KS_EMU_FOR_LANES (mask, l, {
    guint32 x = (guint32) a[l], n = (guint32) b[l];

    n = (insn->aux & 2) ? MIN (n, 32u) : n & 31;
    if (n == 0)
      d[l] = 0;
    else if (n >= 32)
      d[l] = x;
    else if (insn->aux & 1)
      d[l] = (guint32) (((gint32) (x << (32 - n))) >> (32 - n));
    else
      d[l] = x & ((1u << n) - 1);
  });
}

/* dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}: aux bit 0 a signed, bit 1 b
 * signed, bit 2 dp2a, bit 3 dp2a.hi. */
KS_EMU_HANDLER (exec_dp)
{
  guint64 *d = KS_EMU_D;
  const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;

  KS_EMU_FOR_LANES (mask, l, {
    guint32 x = (guint32) a[l], y = (guint32) b[l];
    gint64 sum = (insn->aux & 3) ? (gint64) (gint32) c[l] : (gint64) (guint32) c[l];

    if (insn->aux & 4)
      for (guint i = 0; i < 2; i++)
        {
          gint64 ax = (insn->aux & 1) ? (gint16) (x >> (16 * i)) : (guint16) (x >> (16 * i));
          guint shift = 8 * (i + ((insn->aux & 8) ? 2 : 0));
          gint64 by = (insn->aux & 2) ? (gint8) (y >> shift) : (guint8) (y >> shift);

          sum += ax * by;
        }
    else
      for (guint i = 0; i < 4; i++)
        {
          gint64 ax = (insn->aux & 1) ? (gint8) (x >> (8 * i)) : (guint8) (x >> (8 * i));
          gint64 by = (insn->aux & 2) ? (gint8) (y >> (8 * i)) : (guint8) (y >> (8 * i));

          sum += ax * by;
        }
    d[l] = (guint32) sum;
  });
}

/* ---- decoding --------------------------------------------------------------- */

static guint
width (KsPtxType t)
{
  return _ks_ptx_type_size (t);
}

static gboolean
decode_logic (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  const char *op = pi->parts[0];
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean unary = strcmp (op, "not") == 0 || strcmp (op, "cnot") == 0;

  if (m->n_types != 1)
    return FALSE;
  if (t == KS_PTX_PRED)
    {
      if (strcmp (op, "cnot") == 0 || pi->n_ops != (unary ? 2u : 3u))
        return FALSE;
      insn->o[0] = _ks_emu_pred (b, &pi->ops[0]);
      for (guint i = 1; i < pi->n_ops; i++)
        {
          insn->o[i] = _ks_emu_pred (b, &pi->ops[i]);
          insn->flags |= (guint8) (pi->ops[i].negated << (i - 1));
        }
      insn->fn = op[0] == 'a' ? exec_and_pred : op[0] == 'o' ? exec_or_pred
                 : op[0] == 'x' ? exec_xor_pred : exec_not_pred;
      return TRUE;
    }
  if (width (t) < 2 || width (t) > 8 || _ks_ptx_type_is_float (t))
    return FALSE;
  if (strcmp (op, "cnot") == 0)
    insn->fn = width (t) == 2 ? exec_cnot16 : width (t) == 4 ? exec_cnot32 : exec_cnot;
  else
    insn->fn = op[0] == 'a' ? exec_and : op[0] == 'o' ? exec_or : op[0] == 'x' ? exec_xor
               : exec_not;
  return _ks_emu_operands (b, pi, insn, unary ? 2 : 3, t);
}

static gboolean
decode_lop3 (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (_ks_ptx_mods_type (m, 0) != KS_PTX_B32 || pi->n_ops != 5
      || pi->ops[4].kind != KS_PTX_OPND_IMM)
    return FALSE;
  insn->fn = exec_lop3;
  insn->imm = (gint64) (pi->ops[4].bits & 0xff);
  return _ks_emu_operands (b, pi, insn, 4, KS_PTX_B32);
}

static gboolean
decode_shift (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  guint size = width (t);
  gboolean left = pi->parts[0][2] == 'l';
  gboolean is_signed = _ks_ptx_type_is_signed (t);

  if (m->n_types != 1 || size < 2 || size > 8 || _ks_ptx_type_is_float (t) || pi->n_ops != 3)
    return FALSE;
  if (left)
    insn->fn = size == 2 ? exec_shl16 : size == 4 ? exec_shl32 : exec_shl64;
  else if (is_signed)
    insn->fn = size == 2 ? exec_shr_s16 : size == 4 ? exec_shr_s32 : exec_shr_s64;
  else
    insn->fn = size == 2 ? exec_shr_u16 : size == 4 ? exec_shr_u32 : exec_shr_u64;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], KS_PTX_U32);
  return TRUE;
}

static gboolean
decode_shf (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  gboolean right = _ks_ptx_take_mod (m, "r");

  if (!right && !_ks_ptx_take_mod (m, "l"))
    return FALSE;
  if (_ks_ptx_take_mod (m, "clamp"))
    insn->aux = 2;
  else if (!_ks_ptx_take_mod (m, "wrap"))
    return FALSE;
  insn->aux |= right ? 1 : 0;
  insn->fn = exec_shf;
  return _ks_emu_operands (b, pi, insn, 4, KS_PTX_B32);
}

static gboolean
decode_count (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  const char *op = pi->parts[0];
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean wide = width (t) == 8;

  if (m->n_types != 1 || (width (t) != 4 && width (t) != 8) || _ks_ptx_type_is_float (t))
    return FALSE;
  if (strcmp (op, "popc") == 0)
    insn->fn = wide ? exec_popc64 : exec_popc32;
  else if (strcmp (op, "clz") == 0)
    insn->fn = wide ? exec_clz64 : exec_clz32;
  else if (strcmp (op, "brev") == 0)
    insn->fn = wide ? exec_brev64 : exec_brev32;
  else
    {
      insn->fn = exec_bfind;
      insn->size = (guint8) width (t);
      insn->aux = (_ks_ptx_type_is_signed (t) ? 1 : 0)
                  | (_ks_ptx_take_mod (m, "shiftamt") ? 2 : 0);
    }
  return _ks_emu_operands (b, pi, insn, 2, t);
}

static gboolean
decode_field (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean bfe = strcmp (pi->parts[0], "bfe") == 0;
  guint n = bfe ? 4 : 5;

  if (m->n_types != 1 || (width (t) != 4 && width (t) != 8) || pi->n_ops != n)
    return FALSE;
  insn->fn = bfe ? exec_bfe : exec_bfi;
  insn->size = (guint8) width (t);
  insn->aux = _ks_ptx_type_is_signed (t);
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  if (bfe)
    {
      insn->o[2] = _ks_emu_src (b, &pi->ops[2], KS_PTX_U32);
      insn->o[3] = _ks_emu_src (b, &pi->ops[3], KS_PTX_U32);
    }
  else
    {
      insn->o[2] = _ks_emu_src (b, &pi->ops[2], t);
      insn->o[3] = _ks_emu_src (b, &pi->ops[3], KS_PTX_U32);
      insn->o[4] = _ks_emu_src (b, &pi->ops[4], KS_PTX_U32);
    }
  return TRUE;
}

static gboolean
decode_prmt (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const char *const modes[] = { NULL, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16" };

  if (_ks_ptx_mods_type (m, 0) != KS_PTX_B32)
    return FALSE;
  for (guint i = 1; i < G_N_ELEMENTS (modes); i++)
    if (_ks_ptx_take_mod (m, modes[i]))
      insn->aux = i;
  insn->fn = exec_prmt;
  return _ks_emu_operands (b, pi, insn, 4, KS_PTX_B32);
}

static gboolean
decode_fns (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (_ks_ptx_mods_type (m, 0) != KS_PTX_B32)
    return FALSE;
  insn->fn = exec_fns;
  return _ks_emu_operands (b, pi, insn, 4, KS_PTX_B32);
}

static gboolean
decode_bmsk_szext (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);

  if (_ks_ptx_take_mod (m, "clamp"))
    insn->aux = 2;
  else if (!_ks_ptx_take_mod (m, "wrap"))
    return FALSE;
  if (strcmp (pi->parts[0], "bmsk") == 0)
    {
      if (t != KS_PTX_B32)
        return FALSE;
      insn->fn = exec_bmsk;
    }
  else
    {
      if (t != KS_PTX_U32 && t != KS_PTX_S32)
        return FALSE;
      insn->aux |= t == KS_PTX_S32;
      insn->fn = exec_szext;
    }
  return _ks_emu_operands (b, pi, insn, 3, KS_PTX_B32);
}

static gboolean
decode_dp (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  gboolean dp2a = strcmp (pi->parts[0], "dp2a") == 0;

  if (m->n_types != 2)
    return FALSE;
  if (dp2a)
    {
      insn->aux = 4;
      if (_ks_ptx_take_mod (m, "hi"))
        insn->aux |= 8;
      else if (!_ks_ptx_take_mod (m, "lo"))
        return FALSE;
    }
  insn->aux |= (_ks_ptx_type_is_signed (m->types[0]) ? 1 : 0)
               | (_ks_ptx_type_is_signed (m->types[1]) ? 2 : 0);
  insn->fn = exec_dp;
  return _ks_emu_operands (b, pi, insn, 4, KS_PTX_B32);
}

const KsEmuDecoder _ks_emu_decoders_bits[] = {
  { "and", decode_logic },
  { "or", decode_logic },
  { "xor", decode_logic },
  { "not", decode_logic },
  { "cnot", decode_logic },
  { "lop3", decode_lop3 },
  { "shl", decode_shift },
  { "shr", decode_shift },
  { "shf", decode_shf },
  { "popc", decode_count },
  { "clz", decode_count },
  { "brev", decode_count },
  { "bfind", decode_count },
  { "bfe", decode_field },
  { "bfi", decode_field },
  { "prmt", decode_prmt },
  { "fns", decode_fns },
  { "bmsk", decode_bmsk_szext },
  { "szext", decode_bmsk_szext },
  { "dp4a", decode_dp },
  { "dp2a", decode_dp },
  { NULL, NULL },
};
