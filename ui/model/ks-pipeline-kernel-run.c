/* The user's kernel (the kernel panel's) on the runner: its live run in the
 * worker process, the launch the runner checked published back on the main
 * loop, the console's report, and the worker itself. Called from
 * ks-pipeline-run.c's live runs; the kernel panel's setters are in
 * ks-pipeline-kernel.c. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-pipeline-private.h"

typedef struct
{
  Source *source;
  KsWorker *worker;
  KsKernelSource *kernel;
  KsParams params;
  KsLaunchConfig launch;
  guint number;
  gboolean instrumented;        /* an overlay is on */
  /* filled on the runner */
  gboolean checked;             /* the launch was validated: resolved and attributes are set */
  KsLaunchConfig resolved;
  KsLaunchConfig suggestion;
  KsKernelAttributes attributes;
  KsUserRunResult run;
  gboolean ran;
  gboolean restarted;
} UserJob;

static void
user_job_free (gpointer data)
{
  UserJob *job = data;

  ks_user_run_result_clear (&job->run);
  ks_kernel_source_unref (job->kernel);
  g_object_unref (job->worker);
  _ks_pipeline_source_unref (job->source);
  g_free (job);
}

static Outcome *
user_live_run (UserJob *job, GCancellable *cancellable, GError **error)
{
  g_autoptr (Outcome) o = NULL;
  g_autoptr (KsCompileResult) compiled = NULL;
  g_autoptr (GError) local = NULL;
  KsEngine *engine = job->source->engine;
  KsUserRunRequest request;
  guint n_inputs = ks_kernel_source_get_n_inputs (job->kernel);

  ks_user_run_request_init (&request, job->kernel);
  request.params = job->params;
  request.launch = job->launch;
  for (guint i = 0; i < n_inputs && i < KS_OP_MAX_INPUTS; i++)
    request.inputs[i] = job->source->buffers[i];

  /* On the CPU engine the worker has no device and the emulator runs the
   * kernel (ks-user-run.h): the same checks, the same launch. */
  if (!ks_user_kernel_prepare (job->worker, engine, &request, &job->resolved, &compiled,
                               &job->attributes, &job->suggestion, cancellable, &local))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  job->checked = TRUE;

  if (job->checked && ks_kernel_source_get_mode (job->kernel) == KS_KERNEL_MODE_EXPRESSION)
    {
      KsLaunchTotals totals;
      guint w = ks_buffer_get_width (request.inputs[0]);
      guint h = ks_buffer_get_height (request.inputs[0]);

      /* An expression walks the image like a built-in op: where its grid
       * leaves pixels out, record which, for the view's hatching. */
      ks_launch_totals (&job->resolved, w, h, &totals);
      request.instrument = (totals.unreached_pixels > 0 || job->instrumented)
                           && (guint64) w * h <= MAX_INSTRUMENTED_PIXELS;
    }
  if (!ks_user_kernel_run (job->worker, engine, &request, &job->run, cancellable, error))
    {
      /* A fault ends the worker's CUDA, never ours: start a fresh worker now,
       * so the next edit runs at once. */
      if (error != NULL && *error != NULL && !job->run.run.emulated
          && ((*error)->domain == KS_ERROR && ((*error)->code == KS_ERROR_KERNEL_FAULT
                                               || (*error)->code == KS_ERROR_TIMED_OUT
                                               || (*error)->code == KS_ERROR_WORKER)))
        job->restarted = ks_worker_start (job->worker, NULL, NULL);
      return NULL;
    }
  job->ran = TRUE;

  o = g_new0 (Outcome, 1);
  o->source = _ks_pipeline_source_ref (job->source);
  o->op = NULL;
  o->params = job->params;
  o->result.launch = job->run.launch;
  o->result.output = g_steal_pointer (&job->run.output);
  o->result.coverage = g_steal_pointer (&job->run.coverage);
  o->result.kernel_ms = job->run.run.kernel_ms;
  if (o->result.output == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_FAILED, _("The kernel produced no image"));
      return NULL;
    }
  if (!_ks_pipeline_run_histogram (engine, o->result.output, o->histogram, error))
    return NULL;
  o->coverage_mask = _ks_pipeline_coverage_mask (o->result.coverage);
  o->plain_ms = -1;
  if (job->instrumented)
    o->ownership = _ks_pipeline_pack_ownership (o->result.coverage);
  return g_steal_pointer (&o);
}

static void
user_live_thread (GTask *task, gpointer source_object, gpointer task_data,
                  GCancellable *cancellable)
{
  GError *error = NULL;
  Outcome *o = user_live_run (task_data, cancellable, &error);

  if (o == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, o, _ks_pipeline_outcome_free);
}

/* On the main loop: what the runner found about the launch. */
static void
user_validated (KsPipeline *self, UserJob *job, const GError *error)
{
  gboolean was_valid = self->valid;
  g_autofree char *old_message = g_strdup (self->validation_message);

  if (g_error_matches (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
    {
      self->valid = FALSE;
      g_free (self->validation_message);
      self->validation_message = g_strdup (error->message);
      self->suggestion = job->suggestion;
      self->have_occupancy = FALSE;
    }
  else if (job->checked)
    {
      self->valid = TRUE;
      g_clear_pointer (&self->validation_message, g_free);
      self->resolved = job->resolved;
      self->attributes = job->attributes;
      self->have_occupancy = ks_engine_is_cuda (job->source->engine);
      if (self->have_occupancy)
        ks_launch_occupancy (&self->resolved, ks_device_get_limits (job->source->device),
                             &self->attributes, &self->occupancy);
    }

  if (was_valid != self->valid)
    _ks_pipeline_notify (self, PROP_VALID);
  if (g_strcmp0 (old_message, self->validation_message) != 0)
    _ks_pipeline_notify (self, PROP_VALIDATION_MESSAGE);
  /* The launch panel shows the message and the fix; the window shows no
   * toast for an invalid launch. */
  if (was_valid != self->valid || job->checked)
    g_signal_emit (self, _ks_pipeline_signals[SIGNAL_CONFIG_CHANGED], 0);
}

static void
on_user_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsPipeline) self = user_data;
  UserJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autoptr (Outcome) o = g_task_propagate_pointer (G_TASK (result), &error);
  KsUserRunReport report = { 0 };

  self->n_tasks--;

  if (self->runner == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (job->source != self->source || self->user_kernel == NULL)
    return;

  user_validated (self, job, error);
  if (o != NULL)
    {
      if (self->outcome != NULL && self->outcome->result.output != NULL)
        {
          g_clear_pointer (&self->spare, ks_buffer_unref);
          self->spare = ks_buffer_ref (self->outcome->result.output);
        }
      g_clear_pointer (&self->outcome, _ks_pipeline_outcome_free);
      self->outcome = g_steal_pointer (&o);
      _ks_pipeline_record_sample (self);
      _ks_pipeline_notify (self, PROP_RESULT);
      g_signal_emit (self, _ks_pipeline_signals[SIGNAL_RAN], 0);
    }

  /* Never report_failure: whatever the kernel did happened in the worker,
   * so the application's own device is fine. */
  report.number = job->number;
  report.source = job->kernel;
  report.launch = job->checked ? job->resolved : job->launch;
  report.kernel_ms = job->ran ? job->run.run.kernel_ms : -1;
  report.printf_output = job->run.run.printf_output;
  report.printf_lines = job->run.run.printf_lines;
  report.printf_lines_lost = job->run.run.printf_lines_lost;
  report.error = error;
  report.worker_restarted = job->restarted;
  report.engine = ks_engine_is_cuda (job->source->engine)
                  ? ks_device_get_name (job->source->device) : _("CPU engine");
  report.emulated = job->run.run.emulated;
  report.findings = job->run.run.findings;
  report.n_findings = job->run.run.n_findings;
  g_signal_emit (self, _ks_pipeline_signals[SIGNAL_USER_RUN], 0, &report);
}

void
_ks_pipeline_submit_user_live (KsPipeline *self)
{
  g_autoptr (GTask) task = NULL;
  UserJob *job;

  if (self->source->buffers[KS_INPUT_A] == NULL)
    return;
  job = g_new0 (UserJob, 1);
  job->source = _ks_pipeline_source_ref (self->source);
  job->worker = g_object_ref (_ks_pipeline_get_worker (self));
  job->kernel = ks_kernel_source_ref (self->user_kernel);
  job->params = self->user_params;
  job->launch = self->launch;
  job->number = ++self->user_launches;
  job->instrumented = self->instrumented;
  task = g_task_new (NULL, NULL, on_user_done_cb, g_object_ref (self));
  g_task_set_task_data (task, job, user_job_free);
  self->n_tasks++;
  ks_runner_queue_live (self->runner, task, user_live_thread);
}

KsWorker *
_ks_pipeline_get_worker (KsPipeline *self)
{
  if (self->worker == NULL)
    {
      KsEngine *engine = self->source->engine;
      int ordinal = ks_engine_is_cuda (engine) ? ks_device_get_ordinal (self->source->device)
                                               : -1;

      self->worker = ks_worker_new (ordinal);
      if (self->kernel_timeout_ms > 0)
        ks_worker_set_timeout_ms (self->worker, self->kernel_timeout_ms);
      if (self->printf_fifo > 0)
        ks_worker_set_printf_fifo (self->worker, self->printf_fifo);
    }
  return self->worker;
}
