/* ks-emu-program.c: the storage of a module as the parser fills it and
 * the emulator reads it: its functions by name, its variables, and freeing
 * it all. */
#include "config.h"

#include "ks-emu-private.h"

KsEmuModule *
_ks_emu_module_alloc (void)
{
  KsEmuModule *m;

  m = g_new0 (KsEmuModule, 1);
  m->funcs = g_ptr_array_new_with_free_func ((GDestroyNotify) _ks_emu_func_free);
  m->func_index = g_hash_table_new (g_str_hash, g_str_equal);
  m->vars = g_ptr_array_new_with_free_func ((GDestroyNotify) _ks_emu_var_free);
  m->locs = g_array_new (FALSE, FALSE, sizeof (KsEmuLoc));
  m->files = g_ptr_array_new_with_free_func (g_free);
  m->consts = g_array_new (FALSE, FALSE, sizeof (KsEmuSlotValue));
  m->calls = g_array_new (FALSE, FALSE, sizeof (KsEmuCallSite));
  m->copies = g_array_new (FALSE, FALSE, sizeof (KsEmuCopy));
  m->n_slots = KS_EMU_N_SPECIAL;
  m->scratch_pred = G_MAXUINT32;
  m->entries = g_ptr_array_new ();
  return m;
}

void
_ks_emu_module_destroy (KsEmuModule *module)
{
  if (module == NULL)
    return;
  g_free (module->code);
  g_clear_pointer (&module->entries, g_ptr_array_unref);
  g_clear_pointer (&module->func_index, g_hash_table_unref);
  g_clear_pointer (&module->funcs, g_ptr_array_unref);
  g_clear_pointer (&module->vars, g_ptr_array_unref);
  g_clear_pointer (&module->locs, g_array_unref);
  g_clear_pointer (&module->files, g_ptr_array_unref);
  g_clear_pointer (&module->consts, g_array_unref);
  g_clear_pointer (&module->calls, g_array_unref);
  g_clear_pointer (&module->copies, g_array_unref);
  g_free (module->global_image);
  g_free (module);
}

void
_ks_emu_var_free (KsEmuVar *var)
{
  g_free (var->name);
  g_free (var->init);
  g_free (var);
}

void
_ks_emu_func_free (KsEmuFunc *func)
{
  g_free (func->name);
  g_ptr_array_unref (func->params);
  g_ptr_array_unref (func->rets);
  g_array_unref (func->reg_slots);
  g_array_unref (func->callees);
  g_array_unref (func->shared_slots);
  g_ptr_array_unref (func->shared_used);
  g_free (func);
}

KsEmuFunc *
_ks_emu_module_add_func (KsEmuModule *module, const char *name, guint32 *index)
{
  KsEmuFunc *f = _ks_emu_module_find (module, name, index);

  if (f != NULL)
    return f;
  f = g_new0 (KsEmuFunc, 1);
  f->name = g_strdup (name);
  f->params = g_ptr_array_new ();
  f->rets = g_ptr_array_new ();
  f->reg_slots = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->callees = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->shared_slots = g_array_new (FALSE, FALSE, sizeof (KsEmuSlotValue));
  f->shared_used = g_ptr_array_new ();
  *index = module->funcs->len;
  g_ptr_array_add (module->funcs, f);
  g_hash_table_insert (module->func_index, f->name, GUINT_TO_POINTER (*index + 1));
  return f;
}

KsEmuFunc *
_ks_emu_module_find (const KsEmuModule *module, const char *name, guint32 *index)
{
  gpointer found = g_hash_table_lookup (module->func_index, name);
  guint32 i;

  if (found == NULL)
    return NULL;
  i = GPOINTER_TO_UINT (found) - 1;
  if (index != NULL)
    *index = i;
  return g_ptr_array_index (module->funcs, i);
}

