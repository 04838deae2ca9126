/* Measure and Compare: timed runs of the current configuration on the runner,
 * against the CPU engine for Compare, with their progress and the "busy"
 * state published on the main loop while they last. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-pipeline-private.h"

typedef struct
{
  KsPipeline *pipeline;         /* kept alive by the outer task */
  Source *source;
  KsRunRequest request;         /* its buffers are the source's */
  guint repeats;
  guint runs_before;            /* progress: runs of earlier stages */
  guint runs_total;
  KsTiming timing;
  KsTiming cpu_timing;
  gboolean identical;
} MeasureJob;

static void
measure_job_free (gpointer data)
{
  MeasureJob *job = data;

  ks_timing_clear (&job->timing);
  ks_timing_clear (&job->cpu_timing);
  _ks_pipeline_source_unref (job->source);
  g_free (job);
}

static void
set_busy (KsPipeline *self, gboolean busy)
{
  gboolean was = self->n_long > 0;

  if (busy)
    self->n_long++;
  else
    self->n_long--;
  if (was != (self->n_long > 0))
    _ks_pipeline_notify (self, PROP_BUSY);
  if (self->progress != 0)
    {
      self->progress = 0;
      _ks_pipeline_notify (self, PROP_PROGRESS);
    }
}

static gboolean
progress_cb (gpointer user_data)
{
  KsPipeline *self = user_data;
  guint done, total;

  g_atomic_int_set (&self->progress_posted, 0);
  done = g_atomic_int_get (&self->progress_done);
  total = g_atomic_int_get (&self->progress_total);
  if (self->n_long > 0 && total > 0 && self->progress != (double) done / total)
    {
      self->progress = (double) done / total;
      _ks_pipeline_notify (self, PROP_PROGRESS);
    }
  return G_SOURCE_REMOVE;
}

/* On the worker, after every run of a measurement: at most one update waits
 * in the main loop, however fast the runs are; and the newest live run goes
 * in between, so the view follows the controls during a long Measure. */
static void
on_measure_progress (guint done, guint total, gpointer user_data)
{
  MeasureJob *job = user_data;
  KsPipeline *self = job->pipeline;

  g_atomic_int_set (&self->progress_done, job->runs_before + done);
  g_atomic_int_set (&self->progress_total, job->runs_total);
  if (g_atomic_int_compare_and_exchange (&self->progress_posted, 0, 1))
    {
      /* An idle in the pipeline's context, never g_main_context_invoke: that
       * runs the function right here when the main thread is between two
       * iterations and does not own the context. */
      g_autoptr (GSource) idle = g_idle_source_new ();

      g_source_set_priority (idle, G_PRIORITY_DEFAULT);
      g_source_set_callback (idle, progress_cb, g_object_ref (self), g_object_unref);
      g_source_attach (idle, self->context);
    }
  ks_runner_run_pending_live (self->runner);
}

static void
timing_options (MeasureJob *job, GCancellable *cancellable, KsTimingOptions *options)
{
  ks_timing_options_init (options, job->repeats);
  options->cancellable = cancellable;
  options->progress = on_measure_progress;
  options->progress_data = job;
}

static void
measure_thread (GTask *task, gpointer source_object, gpointer task_data,
                GCancellable *cancellable)
{
  MeasureJob *job = task_data;
  GError *error = NULL;
  KsRunResult result = { 0 };
  KsTimingOptions options;
  gboolean ok;

  timing_options (job, cancellable, &options);
  ok = ks_engine_measure (job->source->engine, &job->request, &options, &result, &job->timing,
                          &error);
  ks_run_result_clear (&result);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static gboolean
compare_run (MeasureJob *job, GCancellable *cancellable, GError **error)
{
  g_autoptr (KsDevice) cpu_device = ks_device_get_cpu ();
  g_autoptr (KsEngine) cpu_engine = NULL;
  g_autoptr (KsImage) second = NULL;
  g_autoptr (KsImage) out_current = NULL;
  g_autoptr (KsImage) out_cpu = NULL;
  KsImage *inputs[2] = { job->source->inputs[KS_INPUT_A], NULL };
  KsRunRequest request = job->request;
  KsRunResult r_current = { 0 }, r_cpu = { 0 };
  KsTimingOptions options;
  gboolean ok = FALSE;

  cpu_engine = ks_engine_new (cpu_device, error);
  if (cpu_engine == NULL)
    return FALSE;
  second = _ks_pipeline_second_input_for (job->source);
  inputs[1] = second;
  timing_options (job, cancellable, &options);
  if (!ks_engine_measure (job->source->engine, &request, &options, &r_current, &job->timing,
                          error))
    goto out;
  job->runs_before = job->repeats + 1;
  request.inputs[0] = request.inputs[1] = NULL;
  if (!ks_engine_process (cpu_engine, &request, inputs, &options, &out_cpu, &r_cpu, NULL,
                          &job->cpu_timing, error))
    goto out;
  if (r_current.output != NULL)
    {
      out_current = ks_engine_download (job->source->engine, r_current.output, NULL, error);
      if (out_current == NULL)
        goto out;
      job->identical = ks_image_equal (out_current, out_cpu);
    }
  else
    job->identical = memcmp (r_current.histogram, r_cpu.histogram, sizeof r_cpu.histogram) == 0;
  ok = TRUE;
out:
  ks_run_result_clear (&r_current);
  ks_run_result_clear (&r_cpu);
  return ok;
}

static void
compare_thread (GTask *task, gpointer source_object, gpointer task_data,
                GCancellable *cancellable)
{
  GError *error = NULL;

  if (compare_run (task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_long_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) outer = user_data;
  KsPipeline *self = g_task_get_source_object (outer);
  GError *error = NULL;

  self->n_tasks--;

  set_busy (self, FALSE);
  if (g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_boolean (outer, TRUE);
  else
    {
      /* Other failures are the caller's to show; a lost GPU is everyone's. */
      if (g_error_matches (error, KS_ERROR, KS_ERROR_DEVICE_LOST))
        _ks_pipeline_report_failure (self, error);
      g_task_return_error (outer, error);
    }
}

static void
start_long (KsPipeline *self, guint repeats, gboolean compare, GCancellable *cancellable,
            GAsyncReadyCallback callback, gpointer user_data, gpointer tag)
{
  g_autoptr (GTask) outer = g_task_new (self, cancellable, callback, user_data);
  MeasureJob *job;

  g_task_set_source_tag (outer, tag);
  if (self->source->buffers[KS_INPUT_A] == NULL)
    {
      g_task_return_new_error (outer, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("Open an image first"));
      return;
    }
  if (self->user_kernel != NULL)
    {
      g_task_return_new_error (outer, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("Measure and Compare time the built-in operations: close the "
                                 "kernel editor to measure “%s”"), self->op->title);
      return;
    }
  job = g_new0 (MeasureJob, 1);
  job->pipeline = self;
  job->source = _ks_pipeline_source_ref (self->source);
  _ks_pipeline_build_request (self, job->source, &job->request);
  job->repeats = MAX (1, repeats);
  job->runs_total = (job->repeats + 1) * (compare ? 2 : 1);
  /* The outer task owns the job, so that finish can read the timings. */
  g_task_set_task_data (outer, job, measure_job_free);
  set_busy (self, TRUE);
  _ks_pipeline_queue_inner (self, outer, job, NULL, compare ? compare_thread : measure_thread,
                            on_long_done_cb);
}

void
ks_pipeline_measure_async (KsPipeline *self, guint repeats, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  start_long (self, repeats, FALSE, cancellable, callback, user_data, ks_pipeline_measure_async);
}

static void
take_timing (KsTiming *to, KsTiming *from)
{
  if (to == NULL)
    return;
  *to = *from;
  memset (from, 0, sizeof *from);
}

gboolean
ks_pipeline_measure_finish (KsPipeline *self, GAsyncResult *result, KsTiming *timing,
                            GError **error)
{
  MeasureJob *job;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  job = g_task_get_task_data (G_TASK (result));
  if (job != NULL)
    take_timing (timing, &job->timing);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
ks_pipeline_compare_async (KsPipeline *self, guint repeats, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  start_long (self, repeats, TRUE, cancellable, callback, user_data, ks_pipeline_compare_async);
}

gboolean
ks_pipeline_compare_finish (KsPipeline *self, GAsyncResult *result, KsTiming *current,
                            KsTiming *cpu, gboolean *identical, GError **error)
{
  MeasureJob *job;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  job = g_task_get_task_data (G_TASK (result));
  if (job != NULL)
    {
      take_timing (current, &job->timing);
      take_timing (cpu, &job->cpu_timing);
      if (identical != NULL)
        *identical = job->identical;
    }
  return g_task_propagate_boolean (G_TASK (result), error);
}
