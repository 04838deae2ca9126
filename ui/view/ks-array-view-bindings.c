/* ks-array-view-bindings.c: the array view's bindings and the arrays made
 * from them. A new signature keeps the bindings of the arguments that stay
 * (and those set for names that now are arguments) and gives the new ones
 * ks_bindings_default's; bindings in the command line's syntax replace
 * those of their arguments; and the arrays to run with are made from the
 * bindings once the check finds no error. The public functions in
 * ks-array-view.c check their arguments and call these. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-array-view-private.h"
#include "ks-error.h"

/* ---- signature and bindings -------------------------------------------------------- */

static gboolean
same_signature (const GPtrArray *a, const GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const KsKernelArg *x = g_ptr_array_index (a, i);
      const KsKernelArg *y = g_ptr_array_index (b, i);

      if (g_strcmp0 (x->name, y->name) != 0 || g_strcmp0 (x->type_text, y->type_text) != 0
          || x->type != y->type || x->pointer != y->pointer || x->is_const != y->is_const)
        return FALSE;
    }
  return TRUE;
}

static gint
find_binding (const GPtrArray *bindings, const char *name)
{
  for (guint i = 0; i < bindings->len; i++)
    {
      const KsBinding *binding = g_ptr_array_index (bindings, i);

      if (g_strcmp0 (binding->name, name) == 0)
        return (gint) i;
    }
  return -1;
}

static const KsKernelArg *
find_arg (const GPtrArray *args, const char *name)
{
  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);

      if (g_strcmp0 (arg->name, name) == 0)
        return arg;
    }
  return NULL;
}

/* The binding an argument keeps across a new signature, or NULL. */
static KsBinding *
kept_binding (KsArrayView *self, const KsKernelArg *arg)
{
  const KsKernelArg *old_arg = find_arg (self->args, arg->name);
  gint i;

  if (old_arg != NULL)
    {
      KsBinding *binding;

      if (old_arg->pointer != arg->pointer)
        return NULL;
      i = find_binding (self->bindings, arg->name);
      if (i < 0)
        return NULL;
      binding = ks_binding_copy (g_ptr_array_index (self->bindings, i));
      /* An array that had the pointee's type follows it: "float *" edited to
       * "double *" means the data should be doubles now, "float3 *" edited
       * to "float4 *" float4 items. */
      if (arg->pointer && binding->is_array && _ks_array_view_has_pointee (binding, old_arg))
        _ks_array_view_set_pointee (binding, arg);
      return binding;
    }

  i = find_binding (self->extra, arg->name);
  if (i >= 0)
    {
      const KsBinding *extra = g_ptr_array_index (self->extra, i);

      if (extra->is_array == arg->pointer)
        return ks_binding_copy (extra);
    }
  return NULL;
}

void
_ks_array_view_set_signature (KsArrayView *self, const GPtrArray *args)
{
  g_autoptr (GPtrArray) new_args = NULL;
  g_autoptr (GPtrArray) new_bindings = NULL;
  g_autoptr (GPtrArray) defaults = NULL;
  g_autoptr (GPtrArray) kept = NULL;
  gsize length = 0;

  new_args = g_ptr_array_new_full (args->len, (GDestroyNotify) ks_kernel_arg_free);
  for (guint i = 0; i < args->len; i++)
    g_ptr_array_add (new_args, ks_kernel_arg_copy (g_ptr_array_index (args, i)));

  /* The same arguments (the user edited the body): only their places moved. */
  if (same_signature (self->args, new_args))
    {
      g_ptr_array_unref (self->args);
      self->args = g_steal_pointer (&new_args);
      _ks_array_view_update_checks (self);
      return;
    }

  kept = g_ptr_array_new_full (args->len, NULL);
  for (guint i = 0; i < new_args->len; i++)
    {
      KsBinding *binding = kept_binding (self, g_ptr_array_index (new_args, i));

      g_ptr_array_add (kept, binding);
      if (binding != NULL && binding->is_array && length == 0)
        length = binding->length;
    }

  defaults = ks_bindings_default (new_args, length > 0 ? length : KS_ARRAY_VIEW_DEFAULT_LENGTH);
  new_bindings = g_ptr_array_new_full (new_args->len, (GDestroyNotify) ks_binding_free);
  for (guint i = 0; i < new_args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (new_args, i);
      KsBinding *binding = g_ptr_array_index (kept, i);

      if (binding == NULL)
        {
          gint d = find_binding (defaults, arg->name);

          if (d >= 0)
            binding = ks_binding_copy (g_ptr_array_index (defaults, d));
          else
            {
              /* ks_bindings_default binds every argument; this keeps a row
               * usable should it ever leave one out. */
              binding = g_new0 (KsBinding, 1);
              binding->name = g_strdup (arg->name);
              binding->is_array = arg->pointer;
              binding->type = arg->type;
              binding->length = KS_ARRAY_VIEW_DEFAULT_LENGTH;
              binding->value = arg->pointer ? NULL : g_strdup ("0");
            }
        }
      g_ptr_array_add (new_bindings, binding);
    }

  /* Extras that now bind an argument are no longer extra. */
  for (guint i = self->extra->len; i > 0; i--)
    {
      const KsBinding *extra = g_ptr_array_index (self->extra, i - 1);

      if (find_arg (new_args, extra->name) != NULL)
        g_ptr_array_remove_index (self->extra, i - 1);
    }

  g_ptr_array_unref (self->args);
  self->args = g_steal_pointer (&new_args);
  g_ptr_array_unref (self->bindings);
  self->bindings = g_steal_pointer (&new_bindings);

  _ks_array_view_rebuild_rows (self);
  _ks_array_view_update_checks (self);
}

gboolean
_ks_array_view_set_bindings (KsArrayView *self, const char *const *texts, GError **error)
{
  g_autoptr (GPtrArray) parsed = g_ptr_array_new_with_free_func (
    (GDestroyNotify) ks_binding_free);

  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      KsBinding *binding = ks_binding_parse (texts[i], error);

      if (binding == NULL)
        return FALSE;
      g_ptr_array_add (parsed, binding);
    }

  /* Every text parsed: from here on the bindings move into the view. */
  g_ptr_array_set_free_func (parsed, NULL);
  for (guint i = 0; i < parsed->len; i++)
    {
      KsBinding *binding = g_ptr_array_index (parsed, i);
      gint at = find_binding (self->bindings, binding->name);

      if (at >= 0)
        {
          ks_binding_free (g_ptr_array_index (self->bindings, at));
          g_ptr_array_index (self->bindings, at) = binding;
          _ks_array_view_sync_row (self, (guint) at);
          continue;
        }
      at = find_binding (self->extra, binding->name);
      if (at >= 0)
        g_ptr_array_remove_index (self->extra, (guint) at);
      g_ptr_array_add (self->extra, binding);
    }

  _ks_array_view_update_checks (self);
  return TRUE;
}

GPtrArray *
_ks_array_view_create_arrays (KsArrayView *self, GError **error)
{
  g_autoptr (GPtrArray) arrays = NULL;
  g_autoptr (GPtrArray) inputs = NULL;
  g_autoptr (GPtrArray) input_args = NULL;

  _ks_array_view_update_summary (self);
  if (self->check == KS_BINDING_ERROR)
    {
      for (guint i = 0; i < self->messages->len; i++)
        {
          const KsDiagnostic *diagnostic = g_ptr_array_index (self->messages, i);

          if (diagnostic->severity == KS_DIAGNOSTIC_ERROR)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           _("The arguments cannot be bound as they are: %s"),
                           diagnostic->message);
              return NULL;
            }
        }
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           _("The arguments cannot be bound as they are"));
      return NULL;
    }

  arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  input_args = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_arg_free);
  for (guint i = 0; i < self->args->len; i++)
    {
      const KsKernelArg *arg = _ks_array_view_get_arg (self, i);
      const KsBinding *binding = _ks_array_view_get_binding (self, i);
      KsArray *array;

      if (!arg->pointer)
        continue;
      /* A struct's array takes its layout from the argument. */
      array = ks_binding_create_array_for (binding, arg, error);
      if (array == NULL)
        {
          g_prefix_error (error, _("Argument “%s”: "), arg->name);
          return NULL;
        }
      g_ptr_array_add (arrays, array);
      if (ks_binding_resolve_direction (binding, arg) == KS_ARRAY_IN)
        {
          g_ptr_array_add (inputs, ks_binding_copy (binding));
          g_ptr_array_add (input_args, ks_kernel_arg_copy (arg));
        }
    }

  g_clear_pointer (&self->run_inputs, g_ptr_array_unref);
  self->run_inputs = g_steal_pointer (&inputs);
  g_clear_pointer (&self->run_input_args, g_ptr_array_unref);
  self->run_input_args = g_steal_pointer (&input_args);
  return g_steal_pointer (&arrays);
}
