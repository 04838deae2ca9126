/* The kernel panel's side of the model: the user's kernel that runs in place
 * of the op, its parameters (carried over an edit, remembered from a session),
 * and the worker's limits. Its runs are ks-pipeline-kernel-run.c's. */
#include "config.h"

#include <string.h>

#include "ks-pipeline-private.h"

KsWorker *
ks_pipeline_get_worker (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return _ks_pipeline_get_worker (self);
}

void
ks_pipeline_set_kernel_limits (KsPipeline *self, guint timeout_ms, gsize printf_fifo)
{
  g_return_if_fail (KS_IS_PIPELINE (self));

  self->kernel_timeout_ms = timeout_ms;
  self->printf_fifo = printf_fifo;
  if (self->worker != NULL)
    {
      ks_worker_set_timeout_ms (self->worker,
                                timeout_ms > 0 ? timeout_ms : KS_WORKER_DEFAULT_TIMEOUT_MS);
      /* A new size restarts the worker, on its next request. */
      ks_worker_set_printf_fifo (self->worker,
                                 printf_fifo > 0 ? printf_fifo : KS_WORKER_DEFAULT_PRINTF_FIFO);
    }
}

static gboolean
same_launch_defaults (KsKernelSource *a, KsKernelSource *b)
{
  KsLaunchConfig la, lb;

  if (a == NULL || b == NULL)
    return FALSE;
  ks_kernel_source_get_default_launch (a, &la);
  ks_kernel_source_get_default_launch (b, &lb);
  return memcmp (&la, &lb, sizeof la) == 0;
}

/* Values of parameters that keep their name and type survive an edit. A
 * remembered value of a parameter's name (a session's) comes before both,
 * within the parameter's range. */
static void
carry_user_params (KsKernelSource *old, const KsParams *old_values, GHashTable *remembered,
                   KsKernelSource *source, KsParams *values)
{
  guint n_old = 0, n_new = 0;
  const KsParamSpec *old_specs = old != NULL ? ks_kernel_source_get_params (old, &n_old) : NULL;
  const KsParamSpec *specs = ks_kernel_source_get_params (source, &n_new);

  memset (values, 0, sizeof *values);
  for (guint i = 0; i < n_new && i < KS_OP_MAX_PARAMS; i++)
    {
      const double *kept = remembered != NULL ? g_hash_table_lookup (remembered, specs[i].name)
                                              : NULL;

      values->values[i] = specs[i].default_value;
      for (guint j = 0; j < n_old && j < KS_OP_MAX_PARAMS; j++)
        if (g_strcmp0 (old_specs[j].name, specs[i].name) == 0
            && old_specs[j].type == specs[i].type)
          values->values[i] = CLAMP (old_values->values[j], specs[i].min, specs[i].max);
      if (kept != NULL)
        values->values[i] = CLAMP (*kept, specs[i].min, specs[i].max);
    }
}

void
ks_pipeline_set_user_kernel (KsPipeline *self, KsKernelSource *source)
{
  g_autoptr (KsKernelSource) old = NULL;
  KsParams values;

  g_return_if_fail (KS_IS_PIPELINE (self));
  g_return_if_fail (source == NULL || ks_kernel_source_get_mode (source) != KS_KERNEL_MODE_ANY);
  if (source == self->user_kernel)
    return;

  old = g_steal_pointer (&self->user_kernel);
  if (source != NULL)
    {
      carry_user_params (old, &self->user_params, self->remembered_params, source, &values);
      self->user_params = values;
      /* Remembered values serve the first kernel only, not later edits. */
      g_clear_pointer (&self->remembered_params, g_hash_table_unref);
      if (!same_launch_defaults (old, source))
        ks_kernel_source_get_default_launch (source, &self->launch);
      self->user_kernel = ks_kernel_source_ref (source);
      if (old == NULL)
        {
          /* Until the runner has checked it, nothing says it cannot launch. */
          self->resolved = self->launch;
          self->have_occupancy = FALSE;
        }
    }
  /* The output's format or size may change with the kernel. */
  g_clear_pointer (&self->spare, ks_buffer_unref);
  _ks_pipeline_notify (self, PROP_USER_KERNEL);
  _ks_pipeline_config_changed (self);
}

KsKernelSource *
ks_pipeline_get_user_kernel (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->user_kernel;
}

const KsParams *
ks_pipeline_get_user_params (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->user_params;
}

void
ks_pipeline_remember_user_param (KsPipeline *self, const char *name, double value)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && name != NULL);
  if (self->remembered_params == NULL)
    self->remembered_params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace (self->remembered_params, g_strdup (name), g_memdup2 (&value, sizeof value));
}

void
ks_pipeline_forget_user_params (KsPipeline *self)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  g_clear_pointer (&self->remembered_params, g_hash_table_unref);
}

GHashTable *
ks_pipeline_get_remembered_user_params (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->remembered_params;
}

void
ks_pipeline_set_user_param (KsPipeline *self, guint index, double value)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && index < KS_OP_MAX_PARAMS);
  if (self->user_params.values[index] == value)
    return;
  self->user_params.values[index] = value;
  ks_pipeline_queue_run (self);
}
