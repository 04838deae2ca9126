/* ks-kernel-panel-arrays.c: the kernel panel's arrays side. In the "any"
 * mode the compiled entry's arguments are bound to arrays and values in
 * the array view, and "Run" (the kernel.run-arrays action) runs it on them
 * in the worker: arrays_run compiles (a cache hit) and launches with the
 * launch panel's block and grid, and the arrays the run wrote come back to
 * the view. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"

void
_ks_kernel_panel_show_arrays_page (KsKernelPanel *self, KsKernelSource *source)
{
  gboolean any = self->mode == KS_KERNEL_MODE_ANY;

  gtk_stack_page_set_visible (self->arrays_page, any);
  if (any && source != NULL)
    {
      const char *entry = ks_kernel_source_get_entry (source);
      g_autofree char *text = g_strdup_printf (_("Bind the arguments of %s to arrays and "
                                                 "values, then run it in the worker."),
                                               entry != NULL ? entry : _("the kernel"));

      ks_array_view_set_signature (self->array_view, ks_kernel_source_get_args (source));
      gtk_label_set_label (self->arrays_label, text);
    }
}

/* ---- running an "any" kernel on arrays --------------------------------------------------- */

typedef struct
{
  KsWorker *worker;
  KsKernelSource *source;
  KsCompileResult *compiled;
  GPtrArray *bindings;          /* KsBinding, one per argument */
  GPtrArray *arrays;            /* KsArray, one per pointer argument */
  KsLaunchConfig launch;
  KsDim3 grid, block;
  guint64 dynamic_shared;
  KsWorkerRunResult run;
  GPtrArray *result_names;      /* of run.arrays */
} ArraysJob;

static void
arrays_job_free (gpointer data)
{
  ArraysJob *job = data;

  ks_worker_run_result_clear (&job->run);
  g_ptr_array_unref (job->bindings);
  g_ptr_array_unref (job->arrays);
  g_ptr_array_unref (job->result_names);
  g_clear_pointer (&job->compiled, ks_compile_result_free);
  ks_kernel_source_unref (job->source);
  g_object_unref (job->worker);
  g_free (job);
}

static gboolean
arrays_run (ArraysJob *job, GCancellable *cancellable, GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (job->source);
  g_autoptr (KsWorkerLaunch) launch = NULL;

  /* The worker client caches compilations: this one returns at once. */
  job->compiled = ks_worker_compile (job->worker, job->source, &job->launch, FALSE, cancellable,
                                     error);
  if (job->compiled == NULL)
    return FALSE;
  if (!job->compiled->success)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_COMPILE, _("The kernel does not compile"));
      return FALSE;
    }
  launch = ks_worker_launch_new (job->compiled, 0, job->grid, job->block, job->dynamic_shared);
  if (!ks_worker_launch_bind (launch, args, job->bindings, job->arrays, job->result_names, error))
    return FALSE;
  g_ptr_array_add (job->result_names, NULL);
  return ks_worker_run (job->worker, launch, cancellable, &job->run, error);
}

static void
arrays_thread (GTask *task, gpointer source_object, gpointer task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;

  if (arrays_run (task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_arrays_ran_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsKernelPanel) self = user_data;
  ArraysJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  KsUserRunReport report = { 0 };
  static guint launches;

  report.number = ++launches;
  report.source = job->source;
  report.launch.grid = job->grid;
  report.launch.block = job->block;
  report.kernel_ms = -1;
  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      report.kernel_ms = job->run.kernel_ms;
      report.printf_output = job->run.printf_output;
      report.printf_lines = job->run.printf_lines;
      report.printf_lines_lost = job->run.printf_lines_lost;
      if (self->array_view != NULL && job->run.arrays != NULL)
        ks_array_view_set_results (self->array_view, job->run.arrays,
                                   (const char *const *) job->result_names->pdata);
    }
  report.error = error;
  if (error != NULL)
    {
      g_autofree char *status = g_strdup_printf (_("Version %u compiles. %s"), self->version,
                                                 error->message);
      _ks_kernel_panel_set_status (self, status);
    }
  g_signal_emit (self, _ks_kernel_panel_signals[SIGNAL_ARRAYS_RAN], 0, &report);
}

/* The kernel.run-arrays action (ks-kernel-panel.c): the last source that
 * compiled in the "any" mode, run on the array view's arrays in the worker. */
void
_ks_kernel_panel_run_arrays (KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  KsLaunchConfig launch;
  ArraysJob *job;

  if (self->last_good == NULL || ks_kernel_source_get_mode (self->last_good) != KS_KERNEL_MODE_ANY)
    {
      _ks_kernel_panel_report_error (self,
                                     _("Compile a kernel in the “Any kernel” mode first"));
      return;
    }
  job = g_new0 (ArraysJob, 1);
  job->worker = g_object_ref (_ks_kernel_panel_worker_of (self));
  job->source = ks_kernel_source_ref (self->last_good);
  job->bindings = ks_array_view_get_bindings (self->array_view);
  job->arrays = ks_array_view_create_arrays (self->array_view, &error);
  job->result_names = g_ptr_array_new_with_free_func (g_free);
  if (job->arrays == NULL)
    {
      job->arrays = g_ptr_array_new ();
      arrays_job_free (job);
      _ks_kernel_panel_report_error (self, error->message);
      return;
    }
  /* The block and grid of the launch panel, as for image kernels; the
   * source's //@block and //@grid when there is no pipeline. */
  if (pipeline != NULL)
    launch = *ks_pipeline_get_launch (pipeline);
  else
    ks_kernel_source_get_default_launch (job->source, &launch);
  job->launch = launch;
  job->block = launch.block;
  job->grid = launch.grid;
  if (launch.auto_grid || job->grid.x == 0)
    job->grid = ks_worker_auto_grid (&job->block, job->arrays);
  job->dynamic_shared = ks_kernel_source_get_dynamic_shared (job->source);
  task = g_task_new (NULL, NULL, on_arrays_ran_cb, g_object_ref (self));
  g_task_set_task_data (task, job, arrays_job_free);
  g_task_run_in_thread (task, arrays_thread);
}
