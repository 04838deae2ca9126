/* ks-emu-exec-warp.c: the instructions that lanes of a warp execute
 * together: shfl.sync, vote (.sync or not), activemask, match.sync,
 * redux.sync and elect.sync.
 *
 * Their member mask must name only lanes that are here: a lane of the warp
 * that has not exited and is on another path is a WARP_SYNC finding (the
 * GPU would wait for it, or hang), reported once per instruction; the
 * instruction then goes on with the lanes that are. */
#include "config.h"

#include "ks-emu-private.h"


#define HAS_PAIR 1
#define NEGATE 2

/* The member mask in o[slot] (the first lane's: it is the same for all, or
 * the program is wrong), checked against the lanes that run. */
static guint32
members (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask, guint slot, const char *what)
{
  guint first = (guint) __builtin_ctz (mask);
  guint32 m = (guint32) w->regs[insn->o[slot] + first];
  guint32 missing = m & w->alive & ~w->exited & ~mask;

  if (missing != 0)
    {
      KsEmuFinding *f = _ks_emu_finding_new (w, first, insn, KS_EMU_FINDING_WARP_SYNC);
      g_autofree char *where = _ks_emu_finding_where (w->block->module, f);

      f->message = g_strdup_printf ("Warp synchronization error: %s with member mask 0x%08x "
                                    "names threads that are not executing it with this one "
                                    "(lanes 0x%08x are on another path)\n%s",
                                    what, m, missing, where);
      _ks_emu_block_report (w->block, f,
                            ((guint64) 3 << 60) | (guint64) (insn - w->block->module->code));
    }
  return m;
}

/* ---- shfl.sync -------------------------------------------------------------- */

enum { SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };

/* shfl.sync.mode.b32 d[|p], a, b, c, membermask: o[0] d, o[1] a, o[2] b,
 * o[3] c, o[4] the mask, o[5] p; aux the mode. As the PTX ISA defines it:
 * c holds the clamp value (bits 0–4) and the segment mask (bits 8–12). */
KS_EMU_HANDLER (exec_shfl)
{
  const guint64 *a = w->regs + insn->o[1], *b = w->regs + insn->o[2], *c = w->regs + insn->o[3];
  guint64 result[KS_EMU_WARP_SIZE];
  guint32 valid = 0;

  members (w, insn, mask, 4, "__shfl_sync()");
  KS_EMU_FOR_LANES (mask, lane, {
    guint bval = (guint) (b[lane] & 31);
    guint cval = (guint) (c[lane] & 31);
    guint segmask = (guint) ((c[lane] >> 8) & 31);
    guint max_lane = (lane & segmask) | (cval & ~segmask);
    guint min_lane = lane & segmask;
    gint j;
    gboolean pval;

    switch (insn->aux)
      {
      case SHFL_UP:
        j = (gint) lane - (gint) bval;
        pval = j >= (gint) max_lane;
        break;
      case SHFL_DOWN:
        j = (gint) lane + (gint) bval;
        pval = j <= (gint) max_lane;
        break;
      case SHFL_BFLY:
        j = (gint) (lane ^ bval);
        pval = j <= (gint) max_lane;
        break;
      default:
        j = (gint) (min_lane | (bval & ~segmask));
        pval = j <= (gint) max_lane;
        break;
      }
    if (!pval)
      j = (gint) lane;
    /* A source lane that is not active gives an undefined value on the GPU:
     * here what its register holds. */
    result[lane] = a[j & 31];
    valid |= (guint32) pval << lane;
  });
  KS_EMU_FOR_LANES (mask, lane, { w->regs[insn->o[0] + lane] = result[lane]; });
  if (insn->flags & HAS_PAIR)
    ks_emu_set_pred (w, insn->o[5], mask, valid);
}

/* ---- vote, activemask, match, redux, elect --------------------------------- */

enum { VOTE_ALL, VOTE_ANY, VOTE_UNI, VOTE_BALLOT };

/* vote{.sync}.mode d, {!}a{, membermask}: o[0] d (a predicate but for
 * ballot), o[1] a's predicate, o[2] the mask (flags 4: there is one). */
KS_EMU_HANDLER (exec_vote)
{
  guint32 p = w->preds[insn->o[1]];
  guint32 bits;

  if (insn->flags & 4)
    members (w, insn, mask, 2, "a __vote_sync()");
  if (insn->flags & NEGATE)
    p = ~p;
  bits = p & mask;
  switch (insn->aux)
    {
    case VOTE_ALL:
      ks_emu_set_pred (w, insn->o[0], mask, bits == mask ? KS_EMU_FULL_MASK : 0);
      break;
    case VOTE_ANY:
      ks_emu_set_pred (w, insn->o[0], mask, bits != 0 ? KS_EMU_FULL_MASK : 0);
      break;
    case VOTE_UNI:
      ks_emu_set_pred (w, insn->o[0], mask, bits == 0 || bits == mask ? KS_EMU_FULL_MASK : 0);
      break;
    default:
      KS_EMU_FOR_LANES (mask, lane, { w->regs[insn->o[0] + lane] = bits; });
      break;
    }
}

KS_EMU_HANDLER (exec_activemask)
{
  KS_EMU_FOR_LANES (mask, lane, { w->regs[insn->o[0] + lane] = mask; });
}

/* match.any.sync d, a, membermask / match.all.sync d[|p], a, membermask:
 * o[0] d, o[1] a, o[2] the mask, o[3] p; aux 1 for all, size the width. */
KS_EMU_HANDLER (exec_match)
{
  const guint64 *a = w->regs + insn->o[1];
  guint32 result[KS_EMU_WARP_SIZE];
  guint32 same_all = mask;

  members (w, insn, mask, 2, "__match_sync()");
  KS_EMU_FOR_LANES (mask, lane, {
    guint64 v = ks_emu_zext (a[lane], insn->size);
    guint32 same = 0;

    for (guint32 left = mask; left != 0; left &= left - 1)
      {
        guint other = (guint) __builtin_ctz (left);

        if (ks_emu_zext (a[other], insn->size) == v)
          same |= 1u << other;
      }
    result[lane] = same;
    if (same != mask)
      same_all = 0;
  });
  KS_EMU_FOR_LANES (mask, lane, {
    w->regs[insn->o[0] + lane] = insn->aux == 1 ? same_all : result[lane];
  });
  if (insn->aux == 1 && (insn->flags & HAS_PAIR))
    ks_emu_set_pred (w, insn->o[3], mask, same_all != 0 ? KS_EMU_FULL_MASK : 0);
}

enum { REDUX_ADD, REDUX_MIN, REDUX_MAX, REDUX_AND, REDUX_OR, REDUX_XOR };

/* redux.sync.op.type d, a, membermask: o[0] d, o[1] a, o[2] the mask; aux
 * the operation; flags 8: signed. */
KS_EMU_HANDLER (exec_redux)
{
  const guint64 *a = w->regs + insn->o[1];
  gboolean is_signed = (insn->flags & 8) != 0;
  guint32 r = 0;
  gboolean first = TRUE;

  members (w, insn, mask, 2, "__reduce_sync()");
  KS_EMU_FOR_LANES (mask, lane, {
    guint32 v = (guint32) a[lane];

    if (first)
      r = v;
    else
      switch (insn->aux)
        {
        case REDUX_ADD: r += v; break;
        case REDUX_MIN: r = is_signed ? (guint32) MIN ((gint32) r, (gint32) v) : MIN (r, v); break;
        case REDUX_MAX: r = is_signed ? (guint32) MAX ((gint32) r, (gint32) v) : MAX (r, v); break;
        case REDUX_AND: r &= v; break;
        case REDUX_OR: r |= v; break;
        default: r ^= v; break;
        }
    first = FALSE;
  });
  KS_EMU_FOR_LANES (mask, lane, { w->regs[insn->o[0] + lane] = r; });
}

/* elect.sync d|p, membermask: the lowest lane of the mask that is here. */
KS_EMU_HANDLER (exec_elect)
{
  guint32 m = members (w, insn, mask, 1, "elect.sync");
  guint32 candidates = m & mask;
  guint elected = candidates != 0 ? (guint) __builtin_ctz (candidates) : 0;

  KS_EMU_FOR_LANES (mask, lane, { w->regs[insn->o[0] + lane] = elected; });
  if (insn->flags & HAS_PAIR)
    ks_emu_set_pred (w, insn->o[2], mask, candidates != 0 ? 1u << elected : 0);
}

/* ---- decoding --------------------------------------------------------------- */

static gboolean
decode_shfl (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const char *const modes[] = { "up", "down", "bfly", "idx" };
  gint mode = -1;

  if (!_ks_ptx_take_mod (m, "sync"))
    {
      _ks_emu_build_error (b, "shfl without .sync (deprecated since sm_70) is not supported");
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (modes) && mode < 0; i++)
    if (_ks_ptx_take_mod (m, modes[i]))
      mode = (gint) i;
  if (mode < 0 || _ks_ptx_mods_type (m, 0) != KS_PTX_B32 || pi->n_ops != 5)
    return FALSE;
  insn->fn = exec_shfl;
  insn->aux = (guint32) mode;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  for (guint i = 1; i < 5; i++)
    insn->o[i] = _ks_emu_src (b, &pi->ops[i], KS_PTX_B32);
  if (pi->ops[0].pair != G_MAXUINT32)
    {
      insn->o[5] = pi->ops[0].pair;
      insn->flags |= HAS_PAIR;
    }
  return TRUE;
}

static gboolean
decode_vote (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const char *const modes[] = { "all", "any", "uni", "ballot" };
  gboolean sync = _ks_ptx_take_mod (m, "sync");
  gint mode = -1;

  for (guint i = 0; i < G_N_ELEMENTS (modes) && mode < 0; i++)
    if (_ks_ptx_take_mod (m, modes[i]))
      mode = (gint) i;
  if (mode < 0 || pi->n_ops != (sync ? 3u : 2u))
    return FALSE;
  insn->fn = exec_vote;
  insn->aux = (guint32) mode;
  insn->o[0] = mode == VOTE_BALLOT ? _ks_emu_dst (b, &pi->ops[0]) : _ks_emu_pred (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_pred (b, &pi->ops[1]);
  if (pi->ops[1].negated)
    insn->flags |= NEGATE;
  if (sync)
    {
      insn->o[2] = _ks_emu_src (b, &pi->ops[2], KS_PTX_B32);
      insn->flags |= 4;
    }
  m->n_types = 0;
  return TRUE;
}

static gboolean
decode_activemask (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (pi->n_ops != 1)
    return FALSE;
  insn->fn = exec_activemask;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  return TRUE;
}

static gboolean
decode_match (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gboolean all = _ks_ptx_take_mod (m, "all");

  if (!all && !_ks_ptx_take_mod (m, "any"))
    return FALSE;
  if (!_ks_ptx_take_mod (m, "sync") || (t != KS_PTX_B32 && t != KS_PTX_B64) || pi->n_ops != 3)
    return FALSE;
  insn->fn = exec_match;
  insn->aux = all;
  insn->size = (guint8) _ks_ptx_type_size (t);
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], KS_PTX_B32);
  if (pi->ops[0].pair != G_MAXUINT32)
    {
      insn->o[3] = pi->ops[0].pair;
      insn->flags |= HAS_PAIR;
    }
  return TRUE;
}

static gboolean
decode_redux (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const char *const ops[] = { "add", "min", "max", "and", "or", "xor" };
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gint op = -1;

  if (!_ks_ptx_take_mod (m, "sync"))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops) && op < 0; i++)
    if (_ks_ptx_take_mod (m, ops[i]))
      op = (gint) i;
  if (op < 0 || (t != KS_PTX_U32 && t != KS_PTX_S32 && t != KS_PTX_B32) || pi->n_ops != 3)
    return FALSE;
  insn->fn = exec_redux;
  insn->aux = (guint32) op;
  insn->flags = t == KS_PTX_S32 ? 8 : 0;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  insn->o[2] = _ks_emu_src (b, &pi->ops[2], KS_PTX_B32);
  return TRUE;
}

static gboolean
decode_elect (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (!_ks_ptx_take_mod (m, "sync") || pi->n_ops != 2)
    return FALSE;
  insn->fn = exec_elect;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], KS_PTX_B32);
  if (pi->ops[0].pair != G_MAXUINT32)
    {
      insn->o[2] = pi->ops[0].pair;
      insn->flags |= HAS_PAIR;
    }
  return TRUE;
}

const KsEmuDecoder _ks_emu_decoders_warp[] = {
  { "shfl", decode_shfl },
  { "vote", decode_vote },
  { "activemask", decode_activemask },
  { "match", decode_match },
  { "redux", decode_redux },
  { "elect", decode_elect },
  { NULL, NULL },
};
