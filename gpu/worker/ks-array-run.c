/* ks-array-run.c: the run of an "any" kernel on arrays, as the command line
 * and the kernel panel make it: compiled in the worker (a cache hit when it
 * was compiled before), its launch resolved for the arrays and validated
 * with the device's limits and the kernel's attributes, its arguments bound
 * and the launch run in the worker. */
#include "config.h"

#include <string.h>

#include "ks-array-run-private.h"
#include "ks-error.h"
#include "ks-worker-private.h"

void
ks_array_run_request_init (KsArrayRunRequest *request, KsKernelSource *source)
{
  g_return_if_fail (request != NULL);
  g_return_if_fail (source != NULL);

  memset (request, 0, sizeof *request);
  request->source = source;
  ks_kernel_source_get_default_launch (source, &request->launch);
  request->repeats = 1;
}

void
ks_array_run_result_clear (KsArrayRunResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->compiled, ks_compile_result_free);
  g_clear_pointer (&result->out_names, g_ptr_array_unref);
  g_clear_pointer (&result->global_names, g_ptr_array_unref);
  ks_worker_run_result_clear (&result->run);
  memset (result, 0, sizeof *result);
}

static const KsBinding *
find_binding (const GPtrArray *bindings, const char *name)
{
  for (guint i = 0; bindings != NULL && i < bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (bindings, i);

      if (g_strcmp0 (b->name, name) == 0)
        return b;
    }
  return NULL;
}

/* One array per pointer argument, in order, made from its binding. */
static GPtrArray *
create_arrays (const KsArrayRunRequest *request, GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (request->source);
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);

  for (guint i = 0; args != NULL && i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);
      const KsBinding *binding;
      KsArray *array;

      if (!arg->pointer)
        continue;
      binding = find_binding (request->bindings, arg->name);
      if (binding == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "The argument “%s” is not bound to an array", arg->name);
          return NULL;
        }
      array = ks_binding_create_array_for (binding, arg, error);
      if (array == NULL)
        return NULL;
      g_ptr_array_add (arrays, array);
    }
  return g_steal_pointer (&arrays);
}

static guint64
request_dynamic_shared (const KsArrayRunRequest *request)
{
  return request->dynamic_shared != 0 || request->dynamic_shared_set
         ? request->dynamic_shared
         : ks_kernel_source_get_dynamic_shared (request->source);
}

/* The compilation, with the first error's place when it failed. */
static gboolean
compile (KsWorker *worker, const KsArrayRunRequest *request, KsCompileResult **compiled,
         GCancellable *cancellable, GError **error)
{
  const KsDiagnostic *first = NULL;
  g_autofree char *where = NULL;

  *compiled = ks_worker_compile (worker, request->source, &request->launch, FALSE, cancellable,
                                 error);
  if (*compiled == NULL)
    return FALSE;
  if ((*compiled)->success)
    return TRUE;
  for (guint i = 0; (*compiled)->diagnostics != NULL && i < (*compiled)->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index ((*compiled)->diagnostics, i);

      if (d->severity == KS_DIAGNOSTIC_ERROR)
        {
          first = d;
          break;
        }
    }
  where = first != NULL ? ks_diagnostic_format (first) : NULL;
  g_set_error (error, KS_ERROR, KS_ERROR_COMPILE, "The kernel does not compile: %s",
               where != NULL ? where : "the compiler gave no reason");
  return FALSE;
}

gboolean
ks_array_kernel_prepare (KsWorker *worker, const KsDeviceLimits *limits,
                         const KsArrayRunRequest *request, const GPtrArray *arrays,
                         KsLaunchConfig *resolved, KsCompileResult **compiled,
                         KsKernelAttributes *attributes, KsLaunchConfig *suggestion,
                         GCancellable *cancellable, GError **error)
{
  KsKernelAttributes attrs;
  KsLaunchConfig launch;
  guint64 threads;

  g_return_val_if_fail (KS_IS_WORKER (worker), FALSE);
  g_return_val_if_fail (limits != NULL, FALSE);
  g_return_val_if_fail (request != NULL && request->source != NULL, FALSE);
  g_return_val_if_fail (arrays != NULL, FALSE);
  g_return_val_if_fail (resolved != NULL && compiled != NULL && *compiled == NULL, FALSE);

  if (ks_kernel_source_get_mode (request->source) != KS_KERNEL_MODE_ANY)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "This kernel runs on images, not arrays");
      return FALSE;
    }

  /* An array kernel indexes its arrays itself: one pass of the grid as
   * chosen, or one thread per element of the longest array. */
  launch = request->launch;
  if (launch.auto_grid || launch.grid.x == 0)
    launch.grid = ks_worker_auto_grid (&launch.block, arrays);
  launch.auto_grid = FALSE;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  launch.pixels_per_thread = 1;
  *resolved = launch;

  if (!compile (worker, request, compiled, cancellable, error))
    return FALSE;
  /* The arguments' bytes as the compiled kernel declares them: a struct
   * Kernelscope misread is refused before anything runs. */
  if (!ks_kernel_source_check_layout (request->source, *compiled, error))
    return FALSE;
  if (!ks_worker_kernel_attributes (worker, *compiled, 0, request_dynamic_shared (request),
                                    &attrs, error))
    return FALSE;
  /* Shared memory does not depend on the block: say what to change. */
  if (attrs.shared_static + attrs.shared_dynamic > limits->shared_mem_per_block_optin)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "The kernel's %" G_GUINT64_FORMAT " bytes of static shared memory and the %"
                   G_GUINT64_FORMAT " bytes of dynamic shared memory asked for make %"
                   G_GUINT64_FORMAT " bytes a block; this device allows %" G_GUINT64_FORMAT
                   ": ask for at most %" G_GUINT64_FORMAT " bytes of dynamic shared memory",
                   attrs.shared_static, attrs.shared_dynamic,
                   attrs.shared_static + attrs.shared_dynamic,
                   (guint64) limits->shared_mem_per_block_optin,
                   attrs.shared_static < limits->shared_mem_per_block_optin
                   ? limits->shared_mem_per_block_optin - attrs.shared_static : 0);
      /* No other block does better. */
      if (suggestion != NULL)
        *suggestion = launch;
      return FALSE;
    }
  /* The device's and the kernel's limits on the block and the grid; the
   * data's extent plays no part (arrays have no width to cover). */
  threads = (guint64) launch.grid.x * launch.block.x;
  if (!ks_launch_config_validate (&launch, (guint) MIN (threads, G_MAXUINT32), 1, limits, &attrs,
                                  suggestion, error))
    return FALSE;
  if (attributes != NULL)
    *attributes = attrs;
  return TRUE;
}

/* The request's swaps by argument index; names that are not pointer
 * arguments are refused here, the rest by the launch's check. */
static gboolean
bind_swaps (KsWorkerLaunch *launch, const KsArrayRunRequest *request, GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (request->source);

  for (guint i = 0; request->swaps != NULL && request->swaps[i] != NULL; i += 2)
    {
      const char *names[2] = { request->swaps[i], request->swaps[i + 1] };
      guint index[2] = { G_MAXUINT, G_MAXUINT };

      if (names[1] == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s” swaps with nothing: name two pointer arguments", names[0]);
          return FALSE;
        }
      for (guint n = 0; n < 2; n++)
        {
          const KsKernelArg *arg = NULL;

          for (guint k = 0; args != NULL && k < args->len; k++)
            if (g_str_equal (((const KsKernelArg *) g_ptr_array_index (args, k))->name, names[n]))
              {
                index[n] = k;
                arg = g_ptr_array_index (args, k);
              }
          if (arg == NULL || !arg->pointer)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           arg == NULL ? "Cannot swap “%s”: the kernel has no argument of that name"
                                       : "Cannot swap “%s”: it is a value, and only pointer "
                                         "arguments swap their arrays", names[n]);
              return FALSE;
            }
        }
      if (request->launches <= 1)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s” and “%s” swap between launches, and the run has one: ask for "
                       "more launches", names[0], names[1]);
          return FALSE;
        }
      ks_worker_launch_add_swap (launch, index[0], index[1]);
    }
  return TRUE;
}

gboolean
ks_array_kernel_run (KsWorker *worker, const KsDeviceLimits *limits,
                     const KsArrayRunRequest *request, KsArrayRunResult *result,
                     GCancellable *cancellable, GError **error)
{
  g_autoptr (GPtrArray) own_arrays = NULL;
  g_autoptr (KsWorkerLaunch) launch = NULL;
  const GPtrArray *arrays = request != NULL ? request->arrays : NULL;

  g_return_val_if_fail (KS_IS_WORKER (worker), FALSE);
  g_return_val_if_fail (limits != NULL, FALSE);
  g_return_val_if_fail (request != NULL && request->source != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  result->launch = request->launch;
  if (arrays == NULL)
    {
      /* Compiled first, so that a kernel that does not compile says so
       * before a binding's file is read. */
      if (!compile (worker, request, &result->compiled, cancellable, error))
        return FALSE;
      g_clear_pointer (&result->compiled, ks_compile_result_free);
      own_arrays = create_arrays (request, error);
      if (own_arrays == NULL)
        return FALSE;
      arrays = own_arrays;
    }
  if (!ks_array_kernel_prepare (worker, limits, request, arrays, &result->launch,
                                &result->compiled, &result->attributes, NULL, cancellable,
                                error))
    return FALSE;

  launch = ks_worker_launch_new (result->compiled, 0, result->launch.grid, result->launch.block,
                                 request_dynamic_shared (request));
  result->out_names = g_ptr_array_new_with_free_func (g_free);
  if (!ks_worker_launch_bind (launch, ks_kernel_source_get_args (request->source),
                              request->bindings, arrays, result->out_names, error))
    return FALSE;
  for (guint i = 0; i < request->n_uncleared; i++)
    _ks_worker_launch_set_uncleared (launch, request->uncleared[i]);
  ks_worker_launch_set_cpu_model (launch, request->track_writers, request->block_order_seed);
  ks_worker_launch_set_repeats (launch, MAX (request->repeats, 1));
  ks_worker_launch_set_launches (launch, MAX (request->launches, 1));
  if (!bind_swaps (launch, request, error))
    return FALSE;
  result->global_names = g_ptr_array_new_with_free_func (g_free);
  if (!_ks_array_bind_globals (request, result->compiled, launch, result->global_names, error))
    return FALSE;
  /* Asking for the attributes cannot be cancelled: a cancellation that
   * came meanwhile ends the run here. */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  return ks_worker_run (worker, launch, cancellable, &result->run, error);
}
