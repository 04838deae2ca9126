/* ks-emu-module.c: a parsed module and what it knows once it is all read:
 * the calls resolved to their callees' parameters, which functions recurse,
 * how much local memory a thread of an entry needs, and each entry's shared
 * memory (the .shared variables of the functions it reaches, then the
 * dynamic part). */
#include "config.h"

#include "ks-error.h"
#include "ks-emu-private.h"

static KsEmuFunc *
func_at (const KsEmuModule *module, guint32 i)
{
  return g_ptr_array_index (module->funcs, i);
}

/* ---- the layout ------------------------------------------------------------- */

static gboolean
resolve_calls (KsEmuModule *m, GError **error)
{
  for (guint i = 0; i < m->calls->len; i++)
    {
      KsEmuCallSite *site = &g_array_index (m->calls, KsEmuCallSite, i);
      KsEmuFunc *callee;

      if (site->kind != KS_EMU_CALL_FUNC)
        continue;
      callee = func_at (m, site->callee);
      if (!callee->defined)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "the function “%s” is called but not defined in the PTX (the emulator "
                       "has no library to link it from)", callee->name);
          return FALSE;
        }
      if (callee->is_entry)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "the kernel “%s” is called like a function", callee->name);
          return FALSE;
        }
      if (site->n_args != callee->params->len)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "a call of “%s” passes %u arguments for its %u parameters", callee->name,
                       site->n_args, callee->params->len);
          return FALSE;
        }
      for (guint a = 0; a < site->n_args; a++)
        {
          KsEmuCopy *copy = &g_array_index (m->copies, KsEmuCopy, site->first_arg + a);
          const KsEmuVar *param = g_ptr_array_index (callee->params, a);

          copy->dst = (guint32) param->address;
          copy->size = MIN (copy->size, (guint32) param->size);
        }
      if (site->ret.size > 0)
        {
          const KsEmuVar *ret;

          if (callee->rets->len == 0)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "a call of “%s” expects a value it does not return", callee->name);
              return FALSE;
            }
          ret = g_ptr_array_index (callee->rets, 0);
          site->ret.src = (guint32) ret->address;
          site->ret.size = MIN (site->ret.size, (guint32) ret->size);
        }
    }
  return TRUE;
}

/* Whether from reaches to through calls (depth-first, seen marks). */
static gboolean
reaches (const KsEmuModule *m, guint32 from, guint32 to, guint8 *seen)
{
  const KsEmuFunc *f = func_at (m, from);

  for (guint i = 0; i < f->callees->len; i++)
    {
      guint32 c = g_array_index (f->callees, guint32, i);

      if (c == to)
        return TRUE;
      if (!seen[c])
        {
          seen[c] = 1;
          if (reaches (m, c, to, seen))
            return TRUE;
        }
    }
  return FALSE;
}

static guint64
frame_bytes (const KsEmuFunc *f)
{
  /* Frames stay 16-byte aligned, as the GPU's stack does. */
  return ((guint64) f->local_size + 15) & ~G_GUINT64_CONSTANT (15);
}

/* Local memory of f and the deepest chain of calls below it; a recursive
 * call counts once (more is found when it runs, up to the limit). */
static guint64
stack_bytes (const KsEmuModule *m, guint32 i, guint8 *visiting, guint64 *memo)
{
  const KsEmuFunc *f = func_at (m, i);
  guint64 deepest = 0;

  if (memo[i] != G_MAXUINT64)
    return memo[i];
  if (visiting[i])
    return 0;
  visiting[i] = 1;
  for (guint c = 0; c < f->callees->len; c++)
    deepest = MAX (deepest,
                   stack_bytes (m, g_array_index (f->callees, guint32, c), visiting, memo));
  visiting[i] = 0;
  memo[i] = frame_bytes (f) + deepest;
  return memo[i];
}

static void
collect_reachable (const KsEmuModule *m, guint32 i, guint8 *seen)
{
  const KsEmuFunc *f = func_at (m, i);

  if (seen[i])
    return;
  seen[i] = 1;
  for (guint c = 0; c < f->callees->len; c++)
    collect_reachable (m, g_array_index (f->callees, guint32, c), seen);
}

/* The entry's shared memory: the static variables the functions it reaches
 * name, in declaration order, each at its alignment; then the dynamic part,
 * 16-byte aligned (as cudaFuncAttributes' sharedSizeBytes counts it). */
static void
layout_shared (const KsEmuModule *m, KsEmuFunc *entry, guint32 entry_index)
{
  g_autofree guint8 *seen = g_new0 (guint8, m->funcs->len);
  g_autoptr(GHashTable) used = g_hash_table_new (NULL, NULL);
  guint64 offset = 0;

  collect_reachable (m, entry_index, seen);
  for (guint i = 0; i < m->funcs->len; i++)
    if (seen[i])
      {
        const KsEmuFunc *f = func_at (m, i);

        for (guint v = 0; v < f->shared_used->len; v++)
          g_hash_table_add (used, g_ptr_array_index (f->shared_used, v));
      }
  g_array_set_size (entry->shared_slots, 0);
  for (guint i = 0; i < m->vars->len; i++)
    {
      KsEmuVar *var = g_ptr_array_index (m->vars, i);
      KsEmuSlotValue sv;

      if (var->kind != KS_EMU_VAR_SHARED || var->dynamic || !g_hash_table_contains (used, var))
        continue;
      offset = (offset + var->align - 1) / var->align * var->align;
      sv.slot = var->slot;
      sv.value = offset;
      g_array_append_val (entry->shared_slots, sv);
      offset += var->size;
    }
  entry->shared_static = offset;
  entry->dynamic_offset = (offset + 15) & ~G_GUINT64_CONSTANT (15);
  for (guint i = 0; i < m->vars->len; i++)
    {
      KsEmuVar *var = g_ptr_array_index (m->vars, i);
      KsEmuSlotValue sv;

      if (var->kind != KS_EMU_VAR_SHARED || !var->dynamic || !g_hash_table_contains (used, var))
        continue;
      sv.slot = var->slot;
      sv.value = entry->dynamic_offset;
      g_array_append_val (entry->shared_slots, sv);
    }
}

/* Whether a .file is where a user writes code (a .cu), not a header: CUDA's
 * intrinsics, atomics and fp16 come inlined from .h and .hpp files, and
 * Kernelscope's helpers from .cuh ones. */
static gboolean
is_source_file (const KsEmuModule *m, guint file)
{
  static const char *const headers[] = { ".h", ".hpp", ".cuh", ".inl", ".inc" };
  const char *name = file < m->files->len ? g_ptr_array_index (m->files, file) : NULL;

  if (name == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (headers); i++)
    if (g_str_has_suffix (name, headers[i]))
      return FALSE;
  return TRUE;
}

/* Each instruction's line as the user reads it: the innermost place of its
 * chain of inlining that is in a source file (the call of an intrinsic or
 * a helper, not the header's line), else the outermost. */
static void
resolve_locs (KsEmuModule *m)
{
  guint n = m->locs->len;
  g_autofree KsEmuLoc *resolved = g_new0 (KsEmuLoc, n);
  const KsEmuLoc *locs = (const KsEmuLoc *) (void *) m->locs->data;

  for (guint i = 1; i < n; i++)
    {
      guint32 j = i, last = i;
      guint depth = 0;

      while (j != 0 && j < n && depth++ < 64 && !is_source_file (m, locs[j].file))
        {
          last = j;
          j = locs[j].parent;
        }
      j = (j != 0 && j < n && depth <= 64) ? j : last;
      resolved[i].file = locs[j].file;
      resolved[i].line = locs[j].line;
    }
  memcpy (m->locs->data, resolved, n * sizeof (KsEmuLoc));
}

gboolean
_ks_emu_module_layout (KsEmuModule *m, GError **error)
{
  guint n = m->funcs->len;
  g_autofree guint8 *seen = g_new0 (guint8, n);
  g_autofree guint8 *visiting = g_new0 (guint8, n);
  g_autofree guint64 *memo = g_new (guint64, n);

  if (m->n_slots > KS_EMU_MAX_SLOTS || m->n_preds > KS_EMU_MAX_PREDS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "the module has %u registers and constants and %u predicates, more than "
                   "the emulator's %u and %u", m->n_slots, m->n_preds, KS_EMU_MAX_SLOTS,
                   KS_EMU_MAX_PREDS);
      return FALSE;
    }
  if (m->fparam_size > KS_EMU_MAX_FUNC_PARAMS || m->global_size > (G_GUINT64_CONSTANT (256) << 20))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "the module's device-function parameters or variables are too large for "
                   "the emulator");
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (func_at (m, i)->param_size > KS_EMU_MAX_KERNEL_PARAMS)
      {
        g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                     "the kernel “%s” has %u bytes of parameters, more than CUDA's %u",
                     func_at (m, i)->name, func_at (m, i)->param_size, KS_EMU_MAX_KERNEL_PARAMS);
        return FALSE;
      }
  if (!resolve_calls (m, error))
    return FALSE;
  resolve_locs (m);
  for (guint i = 0; i < n; i++)
    {
      memset (seen, 0, n);
      func_at (m, i)->recursive = reaches (m, i, i, seen);
      memo[i] = G_MAXUINT64;
    }
  for (guint i = 0; i < n; i++)
    {
      KsEmuFunc *f = func_at (m, i);

      if (!f->is_entry || !f->defined)
        continue;
      f->stack_bytes = stack_bytes (m, i, visiting, memo);
      if (f->stack_bytes > KS_EMU_MAX_LOCAL_BYTES)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "the kernel “%s” needs %" G_GUINT64_FORMAT " bytes of local memory a "
                       "thread, more than the emulator's %u", f->name, f->stack_bytes,
                       KS_EMU_MAX_LOCAL_BYTES);
          return FALSE;
        }
      layout_shared (m, f, i);
      g_ptr_array_add (m->entries, f);
    }
  m->global_image = g_malloc0 (MAX (m->global_size, 1));
  for (guint i = 0; i < m->vars->len; i++)
    {
      const KsEmuVar *var = g_ptr_array_index (m->vars, i);

      if (var->kind == KS_EMU_VAR_GLOBAL && var->init != NULL)
        memcpy (m->global_image + (var->address - KS_EMU_MODULE_BASE), var->init, var->size);
    }
  return TRUE;
}

/* ---- the public API --------------------------------------------------------- */

KsEmuModule *
ks_emu_module_new (const char *ptx, GError **error)
{
  KsEmuModule *module;

  g_return_val_if_fail (ptx != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  module = _ks_ptx_parse (ptx, error);
  if (module == NULL)
    return NULL;
  if (!_ks_emu_module_layout (module, error))
    {
      ks_emu_module_free (module);
      return NULL;
    }
  return module;
}

void
ks_emu_module_free (KsEmuModule *module)
{
  _ks_emu_module_destroy (module);
}

guint
ks_emu_module_n_entries (const KsEmuModule *module)
{
  g_return_val_if_fail (module != NULL, 0);
  return module->entries->len;
}

const char *
ks_emu_module_entry_name (const KsEmuModule *module, guint i)
{
  g_return_val_if_fail (module != NULL, NULL);
  g_return_val_if_fail (i < module->entries->len, NULL);
  return ((const KsEmuFunc *) g_ptr_array_index (module->entries, i))->name;
}

static const KsEmuFunc *
find_entry (const KsEmuModule *module, const char *entry)
{
  const KsEmuFunc *f = _ks_emu_module_find (module, entry, NULL);

  return f != NULL && f->is_entry && f->defined ? f : NULL;
}

gboolean
ks_emu_module_entry_params (const KsEmuModule *module, const char *entry, guint *n_params,
                            gsize *sizes, gsize *aligns, guint max_params)
{
  const KsEmuFunc *f;

  g_return_val_if_fail (module != NULL, FALSE);
  g_return_val_if_fail (entry != NULL, FALSE);

  f = find_entry (module, entry);
  if (f == NULL)
    return FALSE;
  if (n_params != NULL)
    *n_params = f->params->len;
  for (guint i = 0; i < f->params->len && i < max_params; i++)
    {
      const KsEmuVar *var = g_ptr_array_index (f->params, i);

      if (sizes != NULL)
        sizes[i] = var->size;
      if (aligns != NULL)
        aligns[i] = var->align;
    }
  return TRUE;
}

guint64
ks_emu_module_entry_shared (const KsEmuModule *module, const char *entry)
{
  const KsEmuFunc *f;

  g_return_val_if_fail (module != NULL, 0);
  g_return_val_if_fail (entry != NULL, 0);

  f = find_entry (module, entry);
  return f != NULL ? f->shared_static : 0;
}
