/* ks-emu-exec-mem.c: the memory instructions: ld, ldu and st in every state
 * space (scalars and vectors), atom and red, cvta and isspacep.
 *
 * An access of the common kind (global memory in the buffer the warp used
 * last, shared memory without the shadow, the thread's local memory) is
 * resolved inline; anything else goes through _ks_emu_access, which also
 * reports it. The handlers are generated per state space, so that the
 * space's resolution is inlined into each. */
#include "config.h"

#include "ks-emu-private.h"


#define LD_SIGNED 1

static inline guint64
load (const guint8 *p, guint size, gboolean is_signed)
{
  switch (size)
    {
    case 1: return is_signed ? (guint64) (gint64) (gint8) p[0] : p[0];
    case 2:
      {
        guint16 v;

        memcpy (&v, p, 2);
        return is_signed ? (guint64) (gint64) (gint16) v : v;
      }
    case 4:
      {
        guint32 v;

        memcpy (&v, p, 4);
        return is_signed ? (guint64) (gint64) (gint32) v : v;
      }
    default:
      {
        guint64 v;

        memcpy (&v, p, 8);
        return v;
      }
    }
}

static inline void
store (guint8 *p, guint size, guint64 v)
{
  /* Little-endian: the low bytes of the register. */
  memcpy (p, &v, size);
}

/* The host address of a lane's access, or NULL (reported). */
static inline guint8 *
resolve (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, KsEmuSpace space, guint64 address,
         guint size, KsEmuAccess access)
{
  const KsEmuAlloc *a;
  KsEmuBlock *b = w->block;

  switch (space)
    {
    case KS_EMU_SPACE_GLOBAL:
    case KS_EMU_SPACE_CONST:
    case KS_EMU_SPACE_GENERIC:
      /* A generic address in the buffer last used is a global one: no
       * buffer lies in a window of the generic space. */
      a = w->last_alloc;
      if (G_LIKELY (a != NULL && address - a->base < a->size
                    && a->size - (address - a->base) >= size && (address & (size - 1)) == 0
                    && ((!a->read_only && a->block_of == NULL) || access == KS_EMU_ACCESS_READ)))
        return a->host + (address - a->base);
      break;
    case KS_EMU_SPACE_SHARED:
      if (G_LIKELY (b->shadow == NULL && address < b->shared_size
                    && b->shared_size - address >= size && (address & (size - 1)) == 0))
        return b->shared + address;
      break;
    case KS_EMU_SPACE_LOCAL:
      if (G_LIKELY (address < w->local_size[lane] && w->local_size[lane] - address >= size
                    && (address & (size - 1)) == 0))
        return w->local[lane] + address;
      break;
    case KS_EMU_SPACE_PARAM:
      if (G_LIKELY (access == KS_EMU_ACCESS_READ && address < b->run->params_size
                    && b->run->params_size - address >= size && (address & (size - 1)) == 0))
        return b->run->params + address;
      break;
    default:
      break;
    }
  return _ks_emu_access (w, lane, insn, space, address, size, access);
}

/* ld{.space}{.vN}.type d, [a+imm]: o[0] the base, o[1…] the destinations;
 * size the element's bytes, vec their count. */
#define GEN_LD(name, space)                                                    \
  KS_EMU_HANDLER (name)                                                               \
  {                                                                            \
    const guint64 *base = w->regs + insn->o[0];                                \
    guint size = insn->size;                                                   \
    gboolean is_signed = (insn->flags & LD_SIGNED) != 0;                       \
    if (insn->vec == 1)                                                        \
      {                                                                        \
        guint64 *d = w->regs + insn->o[1];                                     \
        KS_EMU_FOR_LANES (mask, l, {                                           \
          const guint8 *p = resolve (w, l, insn, space, base[l] + (guint64) insn->imm, size, \
                                     KS_EMU_ACCESS_READ);                      \
          d[l] = p != NULL ? load (p, size, is_signed) : 0;                    \
        });                                                                    \
        return;                                                                \
      }                                                                        \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      const guint8 *p = resolve (w, l, insn, space, base[l] + (guint64) insn->imm, \
                                 size * insn->vec, KS_EMU_ACCESS_READ);        \
      for (guint i = 0; i < insn->vec; i++)                                    \
        w->regs[insn->o[1 + i] + l] = p != NULL ? load (p + i * size, size, is_signed) : 0; \
    });                                                                        \
  }

#define GEN_ST(name, space)                                                    \
  KS_EMU_HANDLER (name)                                                               \
  {                                                                            \
    const guint64 *base = w->regs + insn->o[0];                                \
    guint size = insn->size;                                                   \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      guint8 *p = resolve (w, l, insn, space, base[l] + (guint64) insn->imm,   \
                           size * insn->vec, KS_EMU_ACCESS_WRITE);             \
      if (p != NULL)                                                           \
        for (guint i = 0; i < insn->vec; i++)                                  \
          store (p + i * size, size, w->regs[insn->o[1 + i] + l]);             \
    });                                                                        \
  }

GEN_LD (exec_ld_global, KS_EMU_SPACE_GLOBAL)
GEN_LD (exec_ld_shared, KS_EMU_SPACE_SHARED)
GEN_LD (exec_ld_local, KS_EMU_SPACE_LOCAL)
GEN_LD (exec_ld_generic, KS_EMU_SPACE_GENERIC)
GEN_LD (exec_ld_const, KS_EMU_SPACE_CONST)
GEN_LD (exec_ld_kparam, KS_EMU_SPACE_PARAM)
GEN_ST (exec_st_global, KS_EMU_SPACE_GLOBAL)
GEN_ST (exec_st_shared, KS_EMU_SPACE_SHARED)
GEN_ST (exec_st_local, KS_EMU_SPACE_LOCAL)
GEN_ST (exec_st_generic, KS_EMU_SPACE_GENERIC)

/* A device function's parameters and a call's arguments: the lane's
 * parameter memory, where the decoder checked the offset. */
KS_EMU_HANDLER (exec_ld_fparam)
{
  const KsEmuModule *m = w->block->module;

  KS_EMU_FOR_LANES (mask, l, {
    const guint8 *p = w->fparams + (gsize) l * m->fparam_size + insn->imm;

    for (guint i = 0; i < insn->vec; i++)
      w->regs[insn->o[1 + i] + l] = load (p + i * insn->size, insn->size,
                                          (insn->flags & LD_SIGNED) != 0);
  });
}

KS_EMU_HANDLER (exec_st_fparam)
{
  const KsEmuModule *m = w->block->module;

  KS_EMU_FOR_LANES (mask, l, {
    guint8 *p = w->fparams + (gsize) l * m->fparam_size + insn->imm;

    for (guint i = 0; i < insn->vec; i++)
      store (p + i * insn->size, insn->size, w->regs[insn->o[1 + i] + l]);
  });
}

/* ---- atomics ---------------------------------------------------------------- */

enum
{
  AT_ADD, AT_ADD_F32, AT_ADD_F64, AT_MIN_S, AT_MIN_U, AT_MAX_S, AT_MAX_U, AT_EXCH, AT_CAS,
  AT_AND, AT_OR, AT_XOR, AT_INC, AT_DEC, AT_ADD_F16, AT_ADD_F16X2,
};

/* Host memory the host cannot update atomically (not aligned for its
 * size): under one lock. */
static GMutex unaligned_lock;

static guint64
apply (guint op, guint size, guint64 old, guint64 b, guint64 c)
{
  switch (op)
    {
    case AT_ADD: return old + b;
    case AT_ADD_F32: return ks_emu_from_f32 (ks_emu_f32 (old) + ks_emu_f32 (b));
    case AT_ADD_F64: return ks_emu_from_f64 (ks_emu_f64 (old) + ks_emu_f64 (b));
    case AT_MIN_S: return ks_emu_sext (old, size) < ks_emu_sext (b, size) ? old : b;
    case AT_MAX_S: return ks_emu_sext (old, size) > ks_emu_sext (b, size) ? old : b;
    case AT_MIN_U: return ks_emu_zext (old, size) < ks_emu_zext (b, size) ? old : b;
    case AT_MAX_U: return ks_emu_zext (old, size) > ks_emu_zext (b, size) ? old : b;
    case AT_EXCH: return b;
    case AT_CAS: return ks_emu_zext (old, size) == ks_emu_zext (b, size) ? c : old;
    case AT_AND: return old & b;
    case AT_OR: return old | b;
    case AT_XOR: return old ^ b;
    case AT_INC: return (guint32) old >= (guint32) b ? 0 : (guint32) old + 1;
    case AT_DEC: return ((guint32) old == 0 || (guint32) old > (guint32) b) ? b : (guint32) old - 1;
    case AT_ADD_F16:
      return _ks_emu_double_to_half (_ks_emu_half_to_double ((guint16) old)
                                     + _ks_emu_half_to_double ((guint16) b), KS_PTX_RND_RN);
    case AT_ADD_F16X2:
      return apply (AT_ADD_F16, 2, old & 0xffff, b & 0xffff, 0)
             | apply (AT_ADD_F16, 2, (old >> 16) & 0xffff, (b >> 16) & 0xffff, 0) << 16;
    default:
      return old;
    }
}

/* The read-modify-write, atomic against the other workers; the old value. */
static guint64
atomic_rmw (guint8 *p, guint op, guint size, guint64 b, guint64 c)
{
  guint64 old = 0, new_value;

  if (((guintptr) p & (size - 1)) != 0)
    {
      g_mutex_lock (&unaligned_lock);
      memcpy (&old, p, size);
      new_value = apply (op, size, old, b, c);
      memcpy (p, &new_value, size);
      g_mutex_unlock (&unaligned_lock);
      return old;
    }
  if (size == 4)
    {
      guint32 *q = (guint32 *) (void *) p;
      guint32 o = __atomic_load_n (q, __ATOMIC_RELAXED);

      while (!__atomic_compare_exchange_n (q, &o, (guint32) apply (op, size, o, b, c), FALSE,
                                           __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        ;
      return o;
    }
  if (size == 8)
    {
      guint64 *q = (guint64 *) (void *) p;
      guint64 o = __atomic_load_n (q, __ATOMIC_RELAXED);

      while (!__atomic_compare_exchange_n (q, &o, apply (op, size, o, b, c), FALSE,
                                           __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        ;
      return o;
    }
  {
    guint16 *q = (guint16 *) (void *) p;
    guint16 o = __atomic_load_n (q, __ATOMIC_RELAXED);

    while (!__atomic_compare_exchange_n (q, &o, (guint16) apply (op, size, o, b, c), FALSE,
                                         __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      ;
    return o;
  }
}

/* atom{.space}.op.type d, [a], b{, c} and red (no d): o[0] the base, o[1] d
 * (scratch for red), o[2] b, o[3] c; aux the operation; flags 1: signed. */
KS_EMU_HANDLER (exec_atom)
{
  const guint64 *base = w->regs + insn->o[0];
  guint64 *d = w->regs + insn->o[1];
  const guint64 *b = w->regs + insn->o[2], *c = w->regs + insn->o[3];
  KsEmuSpace space = (KsEmuSpace) insn->space;
  guint size = insn->size;

  /* Lanes one after the other, as the GPU serialises a warp's atomics to one
   * address (in lane order here). */
  KS_EMU_FOR_LANES (mask, l, {
    guint8 *p = _ks_emu_access (w, l, insn, space, base[l] + (guint64) insn->imm, size,
                                KS_EMU_ACCESS_ATOMIC);
    guint64 old = p != NULL ? atomic_rmw (p, insn->aux, size, b[l], c[l]) : 0;

    if (p != NULL && p >= w->block->shared && p < w->block->shared + w->block->shared_size)
      w->block->shared_atomics++;
    else if (p != NULL)
      w->block->global_atomics++;

    d[l] = (insn->flags & 1) ? (guint64) ks_emu_sext (old, size) : old;
  });
}

/* ---- cvta, isspacep --------------------------------------------------------- */

/* cvta.space: aux 0 to generic, 1 from generic (.to); imm the window; size 4
 * for the .u32 form. */
KS_EMU_HANDLER (exec_cvta)
{
  guint64 *d = w->regs + insn->o[0];
  const guint64 *a = w->regs + insn->o[1];
  guint64 window = (guint64) insn->imm;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 v = insn->aux == 0 ? a[l] + window : a[l] - window;

    d[l] = insn->size == 4 ? (guint32) v : v;
  });
}

KS_EMU_HANDLER (exec_isspacep)
{
  const guint64 *a = w->regs + insn->o[1];
  guint32 bits = 0;

  KS_EMU_FOR_LANES (mask, l, {
    guint64 at;
    KsEmuSpace s = _ks_emu_generic_space (a[l], &at);

    bits |= (guint32) (s == (KsEmuSpace) insn->space
                       || (insn->space == KS_EMU_SPACE_CONST && s == KS_EMU_SPACE_GLOBAL
                           && _ks_emu_find_alloc (w->block->run, at) != NULL
                           && _ks_emu_find_alloc (w->block->run, at)->read_only)) << l;
  });
  ks_emu_set_pred (w, insn->o[0], mask, bits);
}

/* ---- decoding --------------------------------------------------------------- */

static KsEmuSpace
insn_space (KsEmuBuild *b, const KsPtxMods *m, KsEmuSpace from_symbol)
{
  if (m->has_space)
    return m->space;
  return from_symbol;
}

static gboolean
decode_ld_st (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  gboolean is_store = strcmp (pi->parts[0], "st") == 0;
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  const KsPtxOperand *addr = &pi->ops[is_store ? 0 : 1];
  const KsPtxOperand *vals;
  KsEmuSpace sym_space, space;
  KsEmuVar *var;
  guint32 base;

  if (pi->n_ops != 2 || m->n_types != 1 || t == KS_PTX_PRED || t == KS_PTX_B128)
    return FALSE;
  vals = &pi->ops[is_store ? 1 : 0];
  insn->size = (guint8) _ks_ptx_type_size (t);
  insn->vec = (guint8) m->vec;
  insn->flags = _ks_ptx_type_is_signed (t) ? LD_SIGNED : 0;
  if (m->vec > 4)
    return FALSE;
  if (!_ks_emu_address (b, addr, insn, &base, &sym_space, &var))
    return FALSE;
  space = insn_space (b, m, sym_space);
  insn->o[0] = base;
  insn->space = (guint8) space;
  if (vals->kind == KS_PTX_OPND_VEC)
    {
      if (vals->n_elems != m->vec)
        return FALSE;
      for (guint i = 0; i < m->vec; i++)
        insn->o[1 + i] = is_store ? _ks_emu_src (b, &vals->elems[i], t)
                                  : _ks_emu_dst (b, &vals->elems[i]);
    }
  else
    {
      if (m->vec != 1)
        return FALSE;
      insn->o[1] = is_store ? _ks_emu_src (b, vals, t) : _ks_emu_dst (b, vals);
    }
  switch (space)
    {
    case KS_EMU_SPACE_GLOBAL:
      insn->fn = is_store ? exec_st_global : exec_ld_global;
      break;
    case KS_EMU_SPACE_SHARED:
      insn->fn = is_store ? exec_st_shared : exec_ld_shared;
      break;
    case KS_EMU_SPACE_LOCAL:
      insn->fn = is_store ? exec_st_local : exec_ld_local;
      break;
    case KS_EMU_SPACE_CONST:
      if (is_store)
        {
          _ks_emu_build_error (b, "a store to the .const space");
          return TRUE;
        }
      insn->fn = exec_ld_const;
      break;
    case KS_EMU_SPACE_PARAM:
      /* A kernel's parameters are one buffer for all threads; a device
       * function's are each lane's. */
      if (var != NULL && var->kind == KS_EMU_VAR_FPARAM)
        {
          if (insn->imm < 0 || (guint64) insn->imm + (guint64) insn->size * insn->vec
                                 > var->address + var->size)
            {
              _ks_emu_build_error (b, "an access past the end of the parameter “%s”",
                                   var->name);
              return TRUE;
            }
          insn->fn = is_store ? exec_st_fparam : exec_ld_fparam;
        }
      else if (!is_store && (var != NULL || b->func->is_entry))
        insn->fn = exec_ld_kparam;
      else
        {
          _ks_emu_build_error (b, "this access to .param memory is not supported");
          return TRUE;
        }
      break;
    case KS_EMU_SPACE_GENERIC:
    default:
      insn->fn = is_store ? exec_st_generic : exec_ld_generic;
      break;
    }
  return TRUE;
}

static gboolean
decode_atom (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  static const struct { const char *name; guint op; } names[] = {
    { "add", AT_ADD }, { "min", AT_MIN_U }, { "max", AT_MAX_U }, { "exch", AT_EXCH },
    { "cas", AT_CAS }, { "and", AT_AND }, { "or", AT_OR }, { "xor", AT_XOR }, { "inc", AT_INC },
    { "dec", AT_DEC },
  };
  gboolean red = strcmp (pi->parts[0], "red") == 0;
  KsPtxType t = _ks_ptx_mods_type (m, 0);
  gint op = -1;
  guint first = red ? 0 : 1;
  guint n_src;
  KsEmuSpace sym_space;
  KsEmuVar *var;
  guint32 base;

  for (guint i = 0; i < G_N_ELEMENTS (names) && op < 0; i++)
    if (_ks_ptx_take_mod (m, names[i].name))
      op = (gint) names[i].op;
  _ks_ptx_take_mod (m, "noftz");
  if (op < 0 || m->n_types != 1 || m->vec != 1)
    return FALSE;
  insn->size = (guint8) _ks_ptx_type_size (t);
  if (op == AT_ADD && t == KS_PTX_F32)
    op = AT_ADD_F32;
  else if (op == AT_ADD && t == KS_PTX_F64)
    op = AT_ADD_F64;
  else if (op == AT_ADD && t == KS_PTX_F16)
    op = AT_ADD_F16;
  else if (op == AT_ADD && t == KS_PTX_F16X2)
    op = AT_ADD_F16X2;
  else if ((op == AT_MIN_U || op == AT_MAX_U) && _ks_ptx_type_is_signed (t))
    op = op == AT_MIN_U ? AT_MIN_S : AT_MAX_S;
  if (_ks_ptx_type_is_float (t) && op != AT_ADD_F32 && op != AT_ADD_F64 && op != AT_ADD_F16
      && op != AT_ADD_F16X2 && op != AT_EXCH && op != AT_CAS)
    return FALSE;
  if ((op == AT_INC || op == AT_DEC) && t != KS_PTX_U32)
    return FALSE;
  if (insn->size < 2 || insn->size > 8 || (insn->size == 2 && op != AT_CAS && op != AT_ADD_F16))
    return FALSE;
  n_src = op == AT_CAS ? 2 : 1;
  if (pi->n_ops != first + 1 + n_src)
    return FALSE;
  if (!_ks_emu_address (b, &pi->ops[first], insn, &base, &sym_space, &var))
    return FALSE;
  insn->space = (guint8) insn_space (b, m, sym_space);
  if (insn->space != KS_EMU_SPACE_GLOBAL && insn->space != KS_EMU_SPACE_SHARED
      && insn->space != KS_EMU_SPACE_GENERIC)
    return FALSE;
  insn->fn = exec_atom;
  insn->aux = (guint32) op;
  insn->flags = _ks_ptx_type_is_signed (t) ? 1 : 0;
  insn->o[0] = base;
  insn->o[1] = red ? KS_EMU_SR_SCRATCH * KS_EMU_WARP_SIZE : _ks_emu_dst (b, &pi->ops[0]);
  insn->o[2] = _ks_emu_src (b, &pi->ops[first + 1], t);
  insn->o[3] = op == AT_CAS ? _ks_emu_src (b, &pi->ops[first + 2], t)
                            : KS_EMU_SR_ZERO * KS_EMU_WARP_SIZE;
  return TRUE;
}

static guint64
window_of (KsEmuSpace space)
{
  switch (space)
    {
    case KS_EMU_SPACE_SHARED: return KS_EMU_SHARED_WINDOW;
    case KS_EMU_SPACE_LOCAL: return KS_EMU_LOCAL_WINDOW;
    case KS_EMU_SPACE_PARAM: return KS_EMU_PARAM_WINDOW;
    case KS_EMU_SPACE_GENERIC:
    case KS_EMU_SPACE_GLOBAL:
    case KS_EMU_SPACE_CONST:
    default:
      return 0; /* global and constant addresses are generic ones */
    }
}

static gboolean
decode_cvta (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  KsPtxType t = _ks_ptx_mods_type (m, 0);

  if (!m->has_space || pi->n_ops != 2 || (t != KS_PTX_U64 && t != KS_PTX_U32))
    return FALSE;
  insn->fn = exec_cvta;
  insn->aux = _ks_ptx_take_mod (m, "to") ? 1 : 0;
  insn->imm = (gint64) window_of (m->space);
  insn->size = (guint8) _ks_ptx_type_size (t);
  insn->o[0] = _ks_emu_dst (b, &pi->ops[0]);
  if (pi->ops[1].kind == KS_PTX_OPND_SYM && pi->ops[1].var != NULL
      && pi->ops[1].var->kind == KS_EMU_VAR_LOCAL)
    {
      _ks_emu_build_error (b, "cvta of a local variable's name: take its address with mov");
      return TRUE;
    }
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], t);
  return TRUE;
}

static gboolean
decode_isspacep (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m, KsEmuInsn *insn)
{
  if (!m->has_space || pi->n_ops != 2)
    return FALSE;
  insn->fn = exec_isspacep;
  insn->space = (guint8) m->space;
  insn->o[0] = _ks_emu_pred (b, &pi->ops[0]);
  insn->o[1] = _ks_emu_src (b, &pi->ops[1], KS_PTX_U64);
  return TRUE;
}

const KsEmuDecoder _ks_emu_decoders_mem[] = {
  { "ld", decode_ld_st },
  { "ldu", decode_ld_st },
  { "st", decode_ld_st },
  { "atom", decode_atom },
  { "red", decode_atom },
  { "cvta", decode_cvta },
  { "isspacep", decode_isspacep },
  { NULL, NULL },
};
