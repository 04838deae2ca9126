/* ks-emu-operand.c: what the decoders of the instruction groups use: their
 * errors, their modifiers, and their operands as register-file slots
 * (immediates and addresses given constant slots of their own, shared
 * variables the slot their offset is put in), branches' labels, calls'
 * sites. */
#include "config.h"

#include <math.h>

#include "ks-error.h"
#include "ks-emu-private.h"

void
_ks_emu_build_error (KsEmuBuild *b, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  if (b->error != NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&b->error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "PTX line %u: %s", b->line,
               message);
}

gboolean
_ks_ptx_take_mod (KsPtxMods *m, const char *mod)
{
  for (guint i = 0; i < m->n_rest; i++)
    if (strcmp (m->rest[i], mod) == 0)
      {
        memmove (&m->rest[i], &m->rest[i + 1], (m->n_rest - i - 1) * sizeof m->rest[0]);
        m->n_rest--;
        return TRUE;
      }
  return FALSE;
}

KsPtxType
_ks_ptx_mods_type (const KsPtxMods *m, gint n)
{
  gint i = n >= 0 ? n : (gint) m->n_types + n;

  if (i < 0 || i >= (gint) m->n_types)
    return KS_PTX_NONE;
  return m->types[i];
}

guint32
_ks_emu_const_slot (KsEmuBuild *b, guint64 value)
{
  gpointer found = g_hash_table_lookup (b->const_slots, &value);
  KsEmuSlotValue sv;
  gint64 *key;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  sv.slot = b->module->n_slots++;
  sv.value = value;
  g_array_append_val (b->module->consts, sv);
  key = g_new (gint64, 1);
  *key = (gint64) value;
  g_hash_table_insert (b->const_slots, key, GUINT_TO_POINTER (sv.slot + 1));
  return sv.slot;
}

/* An immediate as the bits of a value of type. */
static guint64
immediate_bits (const KsPtxOperand *op, KsPtxType type)
{
  switch (type)
    {
    case KS_PTX_F32:
      if (op->imm_kind == KS_PTX_IMM_F64)
        return ks_emu_from_f32 ((float) ks_emu_f64 (op->bits));
      if (op->imm_kind == KS_PTX_IMM_INT)
        return ks_emu_from_f32 ((float) (gint64) op->bits);
      return op->bits;
    case KS_PTX_F64:
      if (op->imm_kind == KS_PTX_IMM_F32)
        return ks_emu_from_f64 (ks_emu_f32 (op->bits));
      if (op->imm_kind == KS_PTX_IMM_INT)
        return ks_emu_from_f64 ((double) (gint64) op->bits);
      return op->bits;
    case KS_PTX_F16:
    case KS_PTX_BF16:
      if (op->imm_kind == KS_PTX_IMM_INT)
        return op->bits & 0xffff;
      {
        double d = op->imm_kind == KS_PTX_IMM_F32 ? ks_emu_f32 (op->bits) : ks_emu_f64 (op->bits);

        return type == KS_PTX_F16 ? _ks_emu_double_to_half (d, KS_PTX_RND_RN)
                                  : _ks_emu_float_to_bf16 ((float) d, KS_PTX_RND_RN);
      }
    default:
      return op->bits;
    }
}

/* Which shared variables a function names: an entry's shared memory holds
 * those of the functions it reaches. */
static void
note_shared (KsEmuBuild *b, KsEmuVar *var)
{
  if (b->func != NULL && !g_ptr_array_find (b->func->shared_used, var, NULL))
    g_ptr_array_add (b->func->shared_used, var);
}

guint32
_ks_emu_src (KsEmuBuild *b, const KsPtxOperand *op, KsPtxType type)
{
  switch (op->kind)
    {
    case KS_PTX_OPND_REG:
      return op->slot * KS_EMU_WARP_SIZE;
    case KS_PTX_OPND_IMM:
      return _ks_emu_const_slot (b, immediate_bits (op, type)) * KS_EMU_WARP_SIZE;
    case KS_PTX_OPND_SYM:
      if (op->var != NULL && op->var->kind == KS_EMU_VAR_GLOBAL)
        return _ks_emu_const_slot (b, op->var->address) * KS_EMU_WARP_SIZE;
      if (op->var != NULL && op->var->kind == KS_EMU_VAR_SHARED)
        {
          note_shared (b, op->var);
          return op->var->slot * KS_EMU_WARP_SIZE;
        }
      if (op->var != NULL && op->var->kind == KS_EMU_VAR_KPARAM)
        return _ks_emu_const_slot (b, op->var->address) * KS_EMU_WARP_SIZE;
      _ks_emu_build_error (b, "“%s” cannot be used as a value here", op->name);
      return G_MAXUINT32;
    case KS_PTX_OPND_PRED:
    case KS_PTX_OPND_ADDR:
    case KS_PTX_OPND_VEC:
    case KS_PTX_OPND_LIST:
    case KS_PTX_OPND_SINK:
    case KS_PTX_OPND_CLOCK:
    default:
      _ks_emu_build_error (b, "an operand of the wrong kind");
      return G_MAXUINT32;
    }
}

guint32
_ks_emu_dst (KsEmuBuild *b, const KsPtxOperand *op)
{
  if (op->kind == KS_PTX_OPND_SINK)
    return KS_EMU_SR_SCRATCH * KS_EMU_WARP_SIZE;
  if (op->kind == KS_PTX_OPND_REG && op->slot >= KS_EMU_N_SPECIAL)
    return op->slot * KS_EMU_WARP_SIZE;
  _ks_emu_build_error (b, "the destination must be a register");
  return G_MAXUINT32;
}

gboolean
_ks_emu_operands (KsEmuBuild *b, const KsPtxInsn *pi, KsEmuInsn *insn, guint n, KsPtxType type)
{
  if (pi->n_ops != n)
    return FALSE;
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  for (guint i = 1; i < n; i++)
    insn->o[i] = _ks_emu_src (b, &pi->ops[i], type);
  return TRUE;
}

guint32
_ks_emu_pred (KsEmuBuild *b, const KsPtxOperand *op)
{
  if (op->kind == KS_PTX_OPND_PRED)
    return op->pred;
  if (op->kind == KS_PTX_OPND_SINK)
    {
      /* A predicate nobody reads: one for the module. */
      if (b->module->scratch_pred == G_MAXUINT32)
        b->module->scratch_pred = b->module->n_preds++;
      return b->module->scratch_pred;
    }
  _ks_emu_build_error (b, "expected a predicate");
  return 0;
}

gboolean
_ks_emu_address (KsEmuBuild *b, const KsPtxOperand *op, KsEmuInsn *insn, guint32 *base_slot,
                 KsEmuSpace *space, KsEmuVar **var)
{
  KsEmuVar *v = op->var;

  *var = NULL;
  *space = KS_EMU_SPACE_GENERIC;
  if (op->kind != KS_PTX_OPND_ADDR)
    {
      _ks_emu_build_error (b, "expected an address [ … ]");
      return FALSE;
    }
  insn->imm = op->offset;
  if (op->addr_reg)
    {
      *base_slot = op->slot * KS_EMU_WARP_SIZE;
      return TRUE;
    }
  *base_slot = KS_EMU_SR_ZERO * KS_EMU_WARP_SIZE;
  if (v == NULL)
    {
      insn->imm += (gint64) op->bits;
      return TRUE;
    }
  *var = v;
  switch (v->kind)
    {
    case KS_EMU_VAR_GLOBAL:
      *space = v->space;
      insn->imm += (gint64) v->address;
      break;
    case KS_EMU_VAR_SHARED:
      note_shared (b, v);
      *space = KS_EMU_SPACE_SHARED;
      *base_slot = v->slot * KS_EMU_WARP_SIZE;
      break;
    case KS_EMU_VAR_LOCAL:
      *space = KS_EMU_SPACE_LOCAL;
      *base_slot = KS_EMU_SR_FRAME * KS_EMU_WARP_SIZE;
      insn->imm += (gint64) v->address;
      b->module->specials_used |= 1u << KS_EMU_SR_FRAME;
      break;
    case KS_EMU_VAR_KPARAM:
    case KS_EMU_VAR_FPARAM:
    default:
      *space = KS_EMU_SPACE_PARAM;
      insn->imm += (gint64) v->address;
      break;
    }
  return TRUE;
}

void
_ks_emu_branch_fixup (KsEmuBuild *b, const KsPtxOperand *label)
{
  KsEmuFixup fx;

  if (label->kind != KS_PTX_OPND_SYM || label->var != NULL || label->name == NULL)
    {
      _ks_emu_build_error (b, "a branch must name a label");
      return;
    }
  fx.insn = b->code->len;
  fx.label = g_strdup (label->name);
  fx.line = b->line;
  g_array_append_val (b->fixups, fx);
}

guint32
_ks_emu_new_callsite (KsEmuBuild *b, const KsEmuCallSite *site)
{
  g_array_append_val (b->module->calls, *site);
  return b->module->calls->len - 1;
}

guint32
_ks_emu_add_copy (KsEmuBuild *b, const KsEmuCopy *copy)
{
  g_array_append_val (b->module->copies, *copy);
  return b->module->copies->len - 1;
}

guint32
_ks_emu_func_ref (KsEmuBuild *b, const char *name)
{
  guint32 index;

  _ks_emu_module_add_func (b->module, name, &index);
  return index;
}

