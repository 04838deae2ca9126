#include "config.h"

#include <string.h>

#include "ks-op-registry.h"

#include "ks-engine-private.h"
#include "ks-op-files.h"

/* The op files' lists (KS_OP_FILES, generated from the top-level
 * meson.build's op_files), one after the other: the op panel lists the ops in
 * this order within their groups. */
#define KS_X_DECLARE(name) extern const KsOp *const _ks_ops_##name[];
KS_OP_FILES (KS_X_DECLARE)
#undef KS_X_DECLARE

static const KsOp *const *const op_files[] = {
#define KS_X_ENTRY(name) _ks_ops_##name,
  KS_OP_FILES (KS_X_ENTRY)
#undef KS_X_ENTRY
};

static GPtrArray *
registry (void)
{
  static GPtrArray *ops;

  if (g_once_init_enter (&ops))
    {
      GPtrArray *all = g_ptr_array_new ();

      for (guint f = 0; f < G_N_ELEMENTS (op_files); f++)
        for (guint i = 0; op_files[f][i] != NULL; i++)
          g_ptr_array_add (all, (gpointer) op_files[f][i]);
      g_once_init_leave (&ops, all);
    }
  return ops;
}

guint
ks_op_registry_count (void)
{
  return registry ()->len;
}

const KsOp *
ks_op_registry_get (guint index)
{
  GPtrArray *ops = registry ();

  g_return_val_if_fail (index < ops->len, NULL);
  return g_ptr_array_index (ops, index);
}

const KsOp *
ks_op_registry_lookup (const char *id)
{
  GPtrArray *ops = registry ();

  g_return_val_if_fail (id != NULL, NULL);
  for (guint i = 0; i < ops->len; i++)
    {
      const KsOp *op = g_ptr_array_index (ops, i);
      if (g_str_equal (op->id, id))
        return op;
    }
  return NULL;
}
