/* ks-emu-exec-control.c: how a warp runs: its loop over instructions, the
 * lanes at the lowest pc first (they meet again where the branches join),
 * branches, calls and returns with their parameters and frames, exit, trap,
 * barriers, and the instructions that only order memory.
 *
 * Lanes that run together share w->pc; the others keep theirs in lane_pc.
 * After an instruction the running lanes move on to pc + 1, and when that
 * reaches the lowest pc of the others (other_min) they join. */
#include "config.h"

#include "ks-error.h"
#include "ks-emu-private.h"

enum
{
  BAR_SYNC,
  BAR_ARRIVE,
  BAR_RED_POPC,
  BAR_RED_AND,
  BAR_RED_OR,
};

#define BAR_HAS_COUNT 1
#define BAR_NEGATE 2

void
_ks_emu_regroup (KsEmuWarp *w)
{
  guint32 ready = w->alive & ~w->exited;
  guint32 best = G_MAXUINT32, other = G_MAXUINT32, mask = 0;

  if (ready == 0 || w->state == KS_EMU_WARP_EXITED)
    {
      w->state = KS_EMU_WARP_EXITED;
      w->mask = 0;
      w->other_min = G_MAXUINT32;
      return;
    }
  for (guint32 left = ready; left != 0; left &= left - 1)
    {
      guint lane = (guint) __builtin_ctz (left);
      guint32 pc = w->lane_pc[lane];

      if (pc < best)
        {
          other = MIN (other, best);
          best = pc;
          mask = 1u << lane;
        }
      else if (pc == best)
        mask |= 1u << lane;
      else
        other = MIN (other, pc);
    }
  w->pc = best;
  w->mask = mask;
  w->other_min = other;
}

/* The running lanes' pc into lane_pc, before regrouping. */
static inline void
sync_group (KsEmuWarp *w)
{
  for (guint32 left = w->mask; left != 0; left &= left - 1)
    w->lane_pc[__builtin_ctz (left)] = w->pc;
}

/* The running lanes go on at pc together. */
static inline void
advance_to (KsEmuWarp *w, guint32 pc)
{
  w->pc = pc;
  if (pc >= w->other_min)
    {
      sync_group (w);
      _ks_emu_regroup (w);
    }
}

/* Lanes of mask go to taken, the other running lanes to pc + 1. */
static void
split (KsEmuWarp *w, guint32 mask, guint32 taken)
{
  guint32 rest = w->mask & ~mask;

  for (guint32 left = mask; left != 0; left &= left - 1)
    w->lane_pc[__builtin_ctz (left)] = taken;
  for (guint32 left = rest; left != 0; left &= left - 1)
    w->lane_pc[__builtin_ctz (left)] = w->pc + 1;
  _ks_emu_regroup (w);
}

void
_ks_emu_warp_run (KsEmuWarp *w, guint budget)
{
  const KsEmuInsn *code = w->code;
  KsEmuBlock *block = w->block;
  guint64 lanes = 0, insns = 0;

  while (budget-- > 0 && w->state == KS_EMU_WARP_RUNNING && !block->stop)
    {
      const KsEmuInsn *insn = &code[w->pc];
      guint32 mask = w->mask;

      if (insn->guard != 0)
        {
          guint32 p = w->preds[insn->guard - 1];

          mask &= insn->guard_neg ? ~p : p;
        }
      insns++;
      lanes += (guint) __builtin_popcount (mask);
      if (insn->control)
        {
          insn->fn (w, insn, mask);
          continue;
        }
      if (mask != 0)
        insn->fn (w, insn, mask);
      if (++w->pc >= w->other_min)
        {
          sync_group (w);
          _ks_emu_regroup (w);
        }
    }
  w->insns += insns;
  w->lane_insns += lanes;
}

/* ---- branches and exits ----------------------------------------------------- */

/* bra target (the guard decides per lane) */
static void
exec_bra (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  if (mask == w->mask)
    advance_to (w, insn->target);
  else if (mask == 0)
    advance_to (w, w->pc + 1);
  else
    split (w, mask, insn->target);
}

static void
exec_exit (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  guint32 rest = w->mask & ~mask;

  _ks_emu_exit_lanes (w, mask);
  if (w->state == KS_EMU_WARP_EXITED)
    return;
  for (guint32 left = rest; left != 0; left &= left - 1)
    w->lane_pc[__builtin_ctz (left)] = w->pc + 1;
  _ks_emu_regroup (w);
}

static void
exec_trap (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  KsEmuFinding *f;

  if (mask == 0)
    {
      advance_to (w, w->pc + 1);
      return;
    }
  f = _ks_emu_finding_new (w, (guint) __builtin_ctz (mask), insn, KS_EMU_FINDING_TRAP);
  {
    g_autofree char *where = _ks_emu_finding_where (w->block->module, f);

    f->message = g_strdup_printf ("The kernel trapped (trap instruction, __trap())\n%s", where);
  }
  _ks_emu_block_fault (w->block, f);
  _ks_emu_exit_lanes (w, w->mask);
}

/* ---- calls ------------------------------------------------------------------ */

static KsEmuFunc *
func_of (KsEmuWarp *w, guint32 index)
{
  return g_ptr_array_index (w->block->module->funcs, index);
}

static guint64
frame_size (const KsEmuFunc *f)
{
  return ((guint64) f->local_size + 15) & ~G_GUINT64_CONSTANT (15);
}

static void
stack_fault (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, const char *why)
{
  KsEmuFinding *f = _ks_emu_finding_new (w, lane, insn, KS_EMU_FINDING_STACK);
  g_autofree char *where = _ks_emu_finding_where (w->block->module, f);

  f->message = g_strdup_printf ("Stack overflow: %s\n%s", why, where);
  _ks_emu_block_fault (w->block, f);
  _ks_emu_exit_lanes (w, w->alive);
}

/* A lane's state in a recursive function: its registers, predicates and
 * parameter bytes, kept while it calls the function again. */
static void
save_state (KsEmuWarp *w, guint lane, const KsEmuFunc *f, GByteArray *into)
{
  const KsEmuModule *m = w->block->module;

  for (guint i = 0; i < f->reg_slots->len; i++)
    {
      guint64 v = w->regs[g_array_index (f->reg_slots, guint32, i) * KS_EMU_WARP_SIZE + lane];

      g_byte_array_append (into, (const guint8 *) &v, sizeof v);
    }
  for (guint i = 0; i < f->pred_count; i++)
    {
      guint8 bit = (w->preds[f->pred_first + i] >> lane) & 1;

      g_byte_array_append (into, &bit, 1);
    }
  g_byte_array_append (into, w->fparams + (gsize) lane * m->fparam_size + f->fparam_first,
                       f->fparam_size);
}

static void
restore_state (KsEmuWarp *w, guint lane, const KsEmuFunc *f, GByteArray *from, gsize at)
{
  const KsEmuModule *m = w->block->module;
  const guint8 *p = from->data + at;

  for (guint i = 0; i < f->reg_slots->len; i++, p += sizeof (guint64))
    memcpy (&w->regs[g_array_index (f->reg_slots, guint32, i) * KS_EMU_WARP_SIZE + lane], p,
            sizeof (guint64));
  for (guint i = 0; i < f->pred_count; i++, p++)
    {
      guint32 *pred = &w->preds[f->pred_first + i];

      *pred = (*pred & ~(1u << lane)) | ((guint32) *p << lane);
    }
  memcpy (w->fparams + (gsize) lane * m->fparam_size + f->fparam_first, p, f->fparam_size);
  g_byte_array_set_size (from, (guint) at);
}

/* Local memory for a lane's deeper frame, grown when recursion needs it. */
static gboolean
ensure_local (KsEmuWarp *w, guint lane, guint64 size)
{
  guint64 grown;

  if (size <= w->local_size[lane])
    return TRUE;
  if (size > KS_EMU_MAX_LOCAL_BYTES)
    return FALSE;
  grown = MIN (MAX (size, w->local_size[lane] * 2), (guint64) KS_EMU_MAX_LOCAL_BYTES);
  w->local[lane] = g_realloc (w->local[lane], grown);
  memset (w->local[lane] + w->local_size[lane], 0, grown - w->local_size[lane]);
  w->local_size[lane] = grown;
  return TRUE;
}

static void
call_builtin (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask, const KsEmuCallSite *site)
{
  const KsEmuModule *m = w->block->module;

  KS_EMU_FOR_LANES (mask, lane, {
    guint8 *params = w->fparams + (gsize) lane * m->fparam_size;
    guint64 a0, a1, a3 = 0;

    memcpy (&a0, params + site->arg_offsets[0], 8);
    memcpy (&a1, params + site->arg_offsets[1], 8);
    if (site->kind == KS_EMU_CALL_VPRINTF)
      {
        gint32 r = _ks_emu_vprintf (w, lane, insn, a0, a1);

        if (site->ret.size >= 4)
          memcpy (params + site->ret.dst, &r, 4);
      }
    else
      {
        guint32 line;

        memcpy (&line, params + site->arg_offsets[2], 4);
        memcpy (&a3, params + site->arg_offsets[3], 8);
        _ks_emu_assertfail (w, lane, insn, a0, a1, line, a3);
        return;
      }
  });
  advance_to (w, w->pc + 1);
}

/* call (ret), func, (args): o[] unused; aux the call site. */
static void
exec_call (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  const KsEmuModule *m = w->block->module;
  const KsEmuCallSite *site = &g_array_index (m->calls, KsEmuCallSite, insn->aux);
  const KsEmuFunc *caller, *callee;
  guint64 *frame = w->regs + KS_EMU_SR_FRAME * KS_EMU_WARP_SIZE;

  if (mask == 0)
    {
      advance_to (w, w->pc + 1);
      return;
    }
  if (site->kind != KS_EMU_CALL_FUNC)
    {
      call_builtin (w, insn, mask, site);
      return;
    }
  caller = func_of (w, insn->func);
  callee = func_of (w, site->callee);
  for (guint32 left = mask; left != 0; left &= left - 1)
    {
      guint lane = (guint) __builtin_ctz (left);
      KsEmuLaneStack *stack = &w->stacks[lane];
      guint8 *params = w->fparams + (gsize) lane * m->fparam_size;
      KsEmuFrame fr = { w->pc + 1, insn->func, insn->aux, frame[lane], G_MAXSIZE };
      guint64 callee_frame = frame[lane] + frame_size (caller);

      if (stack->frames == NULL)
        {
          stack->frames = g_array_new (FALSE, FALSE, sizeof (KsEmuFrame));
          stack->saved = g_byte_array_new ();
        }
      if (stack->frames->len >= KS_EMU_MAX_CALL_DEPTH)
        {
          stack_fault (w, lane, insn, "calls nested deeper than "
                       G_STRINGIFY (KS_EMU_MAX_CALL_DEPTH) " (endless recursion?)");
          return;
        }
      if (!ensure_local (w, lane, callee_frame + frame_size (callee)))
        {
          stack_fault (w, lane, insn, "the calls need more local memory than the "
                       "emulator's 512 KiB a thread");
          return;
        }
      if (callee->recursive)
        {
          fr.saved = stack->saved->len;
          save_state (w, lane, callee, stack->saved);
        }
      for (guint a = 0; a < site->n_args; a++)
        {
          const KsEmuCopy *c = &g_array_index (m->copies, KsEmuCopy, site->first_arg + a);

          memmove (params + c->dst, params + c->src, c->size);
        }
      frame[lane] = callee_frame;
      g_array_append_val (stack->frames, fr);
    }
  if (mask == w->mask)
    advance_to (w, callee->start);
  else
    split (w, mask, callee->start);
}

/* ret: the lanes go back to their callers (or exit, in the kernel). */
static void
exec_ret (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  const KsEmuModule *m = w->block->module;
  const KsEmuFunc *callee = func_of (w, insn->func);
  guint64 *frame = w->regs + KS_EMU_SR_FRAME * KS_EMU_WARP_SIZE;
  guint32 rest = w->mask & ~mask;
  guint32 leaving = 0;

  for (guint32 left = mask; left != 0; left &= left - 1)
    {
      guint lane = (guint) __builtin_ctz (left);
      KsEmuLaneStack *stack = &w->stacks[lane];
      guint8 *params = w->fparams + (gsize) lane * m->fparam_size;
      const KsEmuCallSite *site;
      KsEmuFrame fr;
      guint8 small[64];
      g_autofree guint8 *large = NULL;
      guint8 *ret = small;

      if (stack->frames == NULL || stack->frames->len == 0)
        {
          leaving |= 1u << lane;
          continue;
        }
      fr = g_array_index (stack->frames, KsEmuFrame, stack->frames->len - 1);
      g_array_set_size (stack->frames, stack->frames->len - 1);
      site = &g_array_index (m->calls, KsEmuCallSite, fr.call_site);
      if (site->ret.size > sizeof small)
        ret = large = g_malloc (site->ret.size);
      memcpy (ret, params + site->ret.src, site->ret.size);
      if (fr.saved != G_MAXSIZE)
        restore_state (w, lane, callee, stack->saved, fr.saved);
      memcpy (params + site->ret.dst, ret, site->ret.size);
      frame[lane] = fr.frame;
      w->lane_pc[lane] = fr.ret_pc;
    }
  for (guint32 left = rest; left != 0; left &= left - 1)
    w->lane_pc[__builtin_ctz (left)] = w->pc + 1;
  if (leaving != 0)
    _ks_emu_exit_lanes (w, leaving);
  _ks_emu_regroup (w);
}

/* ---- barriers --------------------------------------------------------------- */

/* bar.sync / barrier.sync / bar.arrive / bar.red: o[0] the barrier's number,
 * o[1] the thread count (BAR_HAS_COUNT), o[2] bar.red's destination, o[3]
 * its predicate; aux the kind. */
static void
exec_bar (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  KsEmuBlock *b = w->block;
  guint32 live = w->alive & ~w->exited;
  guint first;
  guint id;

  if (mask == 0 && insn->guard != 0)
    {
      advance_to (w, w->pc + 1);
      return;
    }
  if (mask != live)
    {
      guint lane = (guint) __builtin_ctz (mask != 0 ? mask : w->mask);
      KsEmuFinding *f = _ks_emu_finding_new (w, lane, insn, KS_EMU_FINDING_DIVERGENT_BARRIER);
      g_autofree char *where = _ks_emu_finding_where (b->module, f);

      f->message = g_strdup_printf ("Barrier error detected. Divergent thread(s) in warp: "
                                    "%u of its %u running threads reached the barrier, "
                                    "the others are on another path\n%s",
                                    (guint) __builtin_popcount (mask),
                                    (guint) __builtin_popcount (live), where);
      _ks_emu_block_fault (b, f);
      _ks_emu_exit_lanes (w, w->alive);
      return;
    }
  first = (guint) __builtin_ctz (mask);
  id = (guint) (w->regs[insn->o[0] + first] & 15);
  if ((insn->flags & BAR_HAS_COUNT) != 0 && b->bar_arrived[id] == 0)
    b->bar_expected[id] = (guint32) w->regs[insn->o[1] + first];
  b->bar_arrived[id] += KS_EMU_WARP_SIZE;
  if (insn->aux == BAR_ARRIVE)
    {
      advance_to (w, w->pc + 1);
      return;
    }
  if (insn->aux != BAR_SYNC)
    {
      guint32 p = w->preds[insn->o[3]];
      guint32 bits = ((insn->flags & BAR_NEGATE) != 0 ? ~p : p) & mask;

      if (b->bar_arrived[id] == KS_EMU_WARP_SIZE)
        {
          b->bar_red_popc[id] = 0;
          b->bar_red_and[id] = TRUE;
          b->bar_red_or[id] = FALSE;
        }
      b->bar_red_popc[id] += (guint32) __builtin_popcount (bits);
      b->bar_red_and[id] &= bits == mask;
      b->bar_red_or[id] |= bits != 0;
    }
  w->state = KS_EMU_WARP_BARRIER;
  w->bar_insn = insn;
  w->bar_mask = mask;
  w->pc++;
  w->other_min = G_MAXUINT32;
}

void
_ks_emu_bar_release (KsEmuWarp *w, guint id)
{
  const KsEmuInsn *insn = w->bar_insn;
  KsEmuBlock *b = w->block;

  w->state = KS_EMU_WARP_RUNNING;
  if (insn == NULL)
    return;
  if (insn->aux == BAR_RED_POPC)
    KS_EMU_FOR_LANES (w->bar_mask, lane, { w->regs[insn->o[2] + lane] = b->bar_red_popc[id]; });
  else if (insn->aux == BAR_RED_AND)
    ks_emu_set_pred (w, insn->o[2], w->bar_mask, b->bar_red_and[id] ? KS_EMU_FULL_MASK : 0);
  else if (insn->aux == BAR_RED_OR)
    ks_emu_set_pred (w, insn->o[2], w->bar_mask, b->bar_red_or[id] ? KS_EMU_FULL_MASK : 0);
  w->bar_insn = NULL;
}

guint
_ks_emu_bar_id (const KsEmuWarp *w)
{
  return (guint) (w->regs[w->bar_insn->o[0] + (guint) __builtin_ctz (w->bar_mask)] & 15);
}

static void
exec_nop (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
}

/* bar.warp.sync mask: orders the shared memory accesses of the warp's lanes
 * (for racecheck), and the lanes named must be here. */
static void
exec_warp_sync (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
{
  guint first = (guint) __builtin_ctz (mask);
  guint32 members = (guint32) w->regs[insn->o[0] + first];
  guint32 missing = members & w->alive & ~w->exited & ~w->mask;

  w->wsync++;
  if (missing != 0)
    {
      KsEmuFinding *f = _ks_emu_finding_new (w, first, insn, KS_EMU_FINDING_WARP_SYNC);
      g_autofree char *where = _ks_emu_finding_where (w->block->module, f);

      f->message = g_strdup_printf ("Warp synchronization error: __syncwarp(0x%08x) names "
                                    "threads that are on another path (lanes 0x%08x)\n%s",
                                    members, missing, where);
      _ks_emu_block_report (w->block, f, ((guint64) 3 << 60) | (guint64) (insn - w->code));
    }
}

/* ---- decoding --------------------------------------------------------------- */

static gboolean
decode_bra (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (pi->n_ops != 1)
    return FALSE;
  insn->fn = exec_bra;
  insn->control = TRUE;
  _ks_emu_branch_fixup (b, &pi->ops[0]);
  return TRUE;
}

static gboolean
decode_exit (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (pi->n_ops != 0)
    return FALSE;
  insn->control = TRUE;
  insn->fn = strcmp (pi->parts[0], "ret") == 0 ? exec_ret
             : strcmp (pi->parts[0], "trap") == 0 ? exec_trap : exec_exit;
  return TRUE;
}

/* The parameter a call's list names: a .param variable of the caller. */
static const KsEmuVar *
call_param (KsEmuBuild *b, const KsPtxOperand *op)
{
  if (op->kind != KS_PTX_OPND_SYM || op->var == NULL || op->var->kind != KS_EMU_VAR_FPARAM)
    {
      _ks_emu_build_error (b, "a call's arguments must be .param variables");
      return NULL;
    }
  return op->var;
}

static gboolean
decode_call (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  const KsPtxOperand *ret = NULL, *fn, *args = NULL;
  KsEmuCallSite site = { 0 };
  guint i = 0;

  if (pi->n_ops > 0 && pi->ops[0].kind == KS_PTX_OPND_LIST)
    ret = &pi->ops[i++];
  if (i >= pi->n_ops || pi->ops[i].kind != KS_PTX_OPND_SYM || pi->ops[i].var != NULL)
    {
      _ks_emu_build_error (b, "only direct calls of functions are supported");
      return TRUE;
    }
  fn = &pi->ops[i++];
  if (i < pi->n_ops)
    args = &pi->ops[i++];
  if (i != pi->n_ops || (args != NULL && args->kind != KS_PTX_OPND_LIST)
      || (ret != NULL && ret->n_elems > 1))
    {
      _ks_emu_build_error (b, "only direct calls of functions are supported");
      return TRUE;
    }
  if (ret != NULL && ret->n_elems == 1)
    {
      const KsEmuVar *v = call_param (b, &ret->elems[0]);

      if (v == NULL)
        return TRUE;
      site.ret.dst = (guint32) v->address;
      site.ret.size = (guint32) v->size;
    }
  if (strcmp (fn->name, "vprintf") == 0 || strcmp (fn->name, "__assertfail") == 0)
    {
      gboolean printf = fn->name[0] == 'v';
      guint want = printf ? 2 : 5;

      site.kind = printf ? KS_EMU_CALL_VPRINTF : KS_EMU_CALL_ASSERTFAIL;
      if (args == NULL || args->n_elems != want)
        {
          _ks_emu_build_error (b, "%s takes %u arguments", fn->name, want);
          return TRUE;
        }
      for (guint a = 0; a < want; a++)
        {
          const KsEmuVar *v = call_param (b, &args->elems[a]);

          if (v == NULL)
            return TRUE;
          site.arg_offsets[a] = (guint32) v->address;
        }
    }
  else if (strcmp (fn->name, "malloc") == 0 || strcmp (fn->name, "free") == 0)
    {
      _ks_emu_build_error (b, "device malloc() and free() are not supported by the emulator");
      return TRUE;
    }
  else
    {
      site.kind = KS_EMU_CALL_FUNC;
      site.callee = _ks_emu_func_ref (b, fn->name);
      site.first_arg = b->module->copies->len;
      site.n_args = args != NULL ? args->n_elems : 0;
      for (guint a = 0; a < site.n_args; a++)
        {
          const KsEmuVar *v = call_param (b, &args->elems[a]);
          KsEmuCopy copy = { 0 };

          if (v == NULL)
            return TRUE;
          copy.src = (guint32) v->address;
          copy.size = (guint32) v->size;
          _ks_emu_add_copy (b, &copy);
        }
      g_array_append_val (b->func->callees, site.callee);
    }
  insn->fn = exec_call;
  insn->control = TRUE;
  insn->aux = _ks_emu_new_callsite (b, &site);
  return TRUE;
}

/* bar{.cta}.sync a{, b}; barrier{.cta}.sync{.aligned} a{, b}; bar.arrive a, b;
 * bar.red.popc.u32 d, a{, b}, {!}c; bar.red.{and,or}.pred p, a{, b}, {!}c */
static gboolean
decode_bar (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  guint i = 0;
  guint n = pi->n_ops;

  if (strcmp (pi->parts[0], "bar") == 0 && _ks_ptx_take_mod (m, "warp"))
    {
      if (!_ks_ptx_take_mod (m, "sync") || n != 1)
        return FALSE;
      insn->fn = exec_warp_sync;
      insn->o[0] = _ks_emu_src (b, &pi->ops[0], KS_PTX_B32);
      return TRUE;
    }
  insn->fn = exec_bar;
  insn->control = TRUE;
  if (_ks_ptx_take_mod (m, "sync"))
    insn->aux = BAR_SYNC;
  else if (_ks_ptx_take_mod (m, "arrive"))
    insn->aux = BAR_ARRIVE;
  else if (_ks_ptx_take_mod (m, "red"))
    {
      if (_ks_ptx_take_mod (m, "popc"))
        insn->aux = BAR_RED_POPC;
      else if (_ks_ptx_take_mod (m, "and"))
        insn->aux = BAR_RED_AND;
      else if (_ks_ptx_take_mod (m, "or"))
        insn->aux = BAR_RED_OR;
      else
        return FALSE;
      if (n < 3)
        return FALSE;
      if (insn->aux == BAR_RED_POPC)
        insn->o[2] = _ks_emu_dst (b, &pi->ops[0]);
      else
        insn->o[2] = _ks_emu_pred (b, &pi->ops[0]);
      insn->o[3] = _ks_emu_pred (b, &pi->ops[n - 1]);
      if (pi->ops[n - 1].negated)
        insn->flags |= BAR_NEGATE;
      i = 1;
      n--;
    }
  else if (n >= 1)
    insn->aux = BAR_SYNC; /* plain "bar a" is bar.sync */
  else
    return FALSE;
  if (n - i < 1 || n - i > 2)
    return FALSE;
  insn->o[0] = _ks_emu_src (b, &pi->ops[i], KS_PTX_U32);
  if (n - i == 2)
    {
      insn->o[1] = _ks_emu_src (b, &pi->ops[i + 1], KS_PTX_U32);
      insn->flags |= BAR_HAS_COUNT;
    }
  return TRUE;
}

/* membar, fence, nanosleep, prefetch hints, pmevent: nothing to emulate. */
static gboolean
decode_nop (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  m->n_rest = 0;
  m->n_types = 0;
  insn->fn = exec_nop;
  return TRUE;
}

const KsEmuDecoder _ks_emu_decoders_control[] = {
  { "bra", decode_bra },
  { "ret", decode_exit },
  { "exit", decode_exit },
  { "trap", decode_exit },
  { "call", decode_call },
  { "bar", decode_bar },
  { "barrier", decode_bar },
  { "membar", decode_nop },
  { "fence", decode_nop },
  { "nanosleep", decode_nop },
  { "pmevent", decode_nop },
  { "brkpt", decode_nop },
  { "prefetch", decode_nop },
  { "prefetchu", decode_nop },
  { NULL, NULL },
};
