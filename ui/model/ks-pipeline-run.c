/* The runner side: work the pipeline queues on ks-runner.c's thread and
 * publishes back on the main loop — uploads of new inputs, device switches
 * and the fall back to the CPU after a lost GPU, and the live runs that follow
 * every change of the model (the user's kernel runs in
 * ks-pipeline-kernel-run.c). Nothing here calls ks-pipeline.c: the public
 * functions of these check their arguments there and call them. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-pipeline-private.h"

/* Unwritten pixels read as transparent black, so the view's checkerboard and
 * coverage hatching show through where a grid was too small. */
#define POISON 0x00

/* ---- publishing the runner's work on the main loop --------------------------------- */

static void
adopt_source (KsPipeline *self, Source *source)
{
  g_autoptr (Source) old = g_steal_pointer (&self->source);
  gboolean new_engine = old->engine != source->engine;

  self->source = _ks_pipeline_source_ref (source);
  if (new_engine)
    {
      /* Buffers of another engine must never reach this one. */
      _ks_pipeline_clear_outcome (self);
      g_clear_pointer (&self->spare, ks_buffer_unref);
      /* A worker serves one device: the next request starts one for this one. */
      g_clear_object (&self->worker);
      _ks_pipeline_notify (self, PROP_DEVICE);
      _ks_pipeline_notify (self, PROP_ENGINE);
      _ks_pipeline_notify (self, PROP_CPU_REASON);
    }
  if (g_strcmp0 (old->names[KS_INPUT_A], source->names[KS_INPUT_A]) != 0)
    _ks_pipeline_notify (self, PROP_INPUT_NAME);
  if (g_strcmp0 (old->names[KS_INPUT_B], source->names[KS_INPUT_B]) != 0)
    _ks_pipeline_notify (self, PROP_SECOND_NAME);
  _ks_pipeline_revalidate (self);
  if (new_engine)
    g_signal_emit (self, _ks_pipeline_signals[SIGNAL_CONFIG_CHANGED], 0);
  g_signal_emit (self, _ks_pipeline_signals[SIGNAL_INPUTS_CHANGED], 0);
  _ks_pipeline_queue_run (self);
}

static void fall_back_to_cpu (KsPipeline *self, const GError *cause);

void
_ks_pipeline_report_failure (KsPipeline *self, GError *error)
{
  if (g_error_matches (error, KS_ERROR, KS_ERROR_DEVICE_LOST)
      && ks_engine_is_cuda (self->source->engine))
    fall_back_to_cpu (self, error);
  else
    g_signal_emit (self, _ks_pipeline_signals[SIGNAL_RUN_FAILED], 0, error);
}

/* ---- uploads and device switches ------------------------------------------------- */

/* On the worker: s, once its inputs are uploaded, becomes the worker's
 * source, and the task returns it for the main loop to adopt. On failure the
 * worker keeps the source it had. */
static void
return_uploaded (KsPipeline *self, GTask *task, Source *s)
{
  g_autoptr (GError) error = NULL;

  if (!_ks_pipeline_upload_inputs (s, &error))
    {
      _ks_pipeline_source_unref (s);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_clear_pointer (&self->worker_source, _ks_pipeline_source_unref);
  self->worker_source = _ks_pipeline_source_ref (s);
  g_task_return_pointer (task, s, _ks_pipeline_source_unref);
}

/* On the main loop: the source a worker task returned is published. */
static Source *
adopt_returned (KsPipeline *self, GTask *outer, GAsyncResult *result)
{
  g_autoptr (GError) error = NULL;
  Source *s = g_task_propagate_pointer (G_TASK (result), &error);

  self->n_tasks--;
  if (s == NULL)
    {
      g_task_return_error (outer, g_steal_pointer (&error));
      return NULL;
    }
  adopt_source (self, s);
  g_task_return_boolean (outer, TRUE);
  return s;
}

typedef struct
{
  KsPipeline *pipeline;         /* kept alive by the task's callback */
  KsDevice *device;
} DeviceJob;

static void
device_job_free (gpointer data)
{
  DeviceJob *job = data;

  g_object_unref (job->device);
  g_free (job);
}

static void
device_thread (GTask *task, gpointer source_object, gpointer task_data,
               GCancellable *cancellable)
{
  DeviceJob *job = task_data;
  KsPipeline *self = job->pipeline;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = ks_engine_new (job->device, &error);

  if (engine == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  return_uploaded (self, task,
                   _ks_pipeline_source_derive (self->worker_source, job->device, engine));
}

static void
on_device_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) outer = user_data;
  KsPipeline *self = g_task_get_source_object (outer);
  g_autoptr (Source) s = adopt_returned (self, outer, result);

  /* Chosen, not fallen back to: no reason to show. */
  if (s != NULL && ks_device_get_kind (s->device) == KS_DEVICE_KIND_CPU
      && self->cpu_reason == NULL)
    self->cpu_reason = g_strdup ("");
}

/* An inner task on the runner whose callback finishes the outer one on the
 * main loop: the pipeline is the outer task's source, so it is only ever
 * released on the main loop. */
void
_ks_pipeline_queue_inner (KsPipeline *self, GTask *outer, gpointer data, GDestroyNotify destroy,
                          GTaskThreadFunc func, GAsyncReadyCallback done)
{
  g_autoptr (GTask) inner = g_task_new (NULL, g_task_get_cancellable (outer), done,
                                        g_object_ref (outer));

  g_task_set_task_data (inner, data, destroy);
  /* What the worker did is published even when cancelled meanwhile: its own
   * state has moved on already. */
  g_task_set_check_cancellable (inner, FALSE);
  self->n_tasks++;
  ks_runner_queue (self->runner, inner, func);
}

void
_ks_pipeline_set_device_async (KsPipeline *self, KsDevice *device, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  DeviceJob *job;

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, _ks_pipeline_set_device_async);
  g_task_set_check_cancellable (outer, FALSE);
  if (device == self->source->device)
    {
      g_task_return_boolean (outer, TRUE);
      return;
    }
  job = g_new0 (DeviceJob, 1);
  job->pipeline = self;
  job->device = g_object_ref (device);
  _ks_pipeline_queue_inner (self, outer, job, device_job_free, device_thread, on_device_done_cb);
}

gboolean
ks_pipeline_set_device_finish (KsPipeline *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_fallback_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  /* No KS_PIPELINE (): its check would call ks-pipeline.c (see the private header). */
  KsPipeline *self = (KsPipeline *) object;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_device_finish (self, result, &error))
    {
      g_warning ("The CPU engine could not take over: %s", error->message);
      return;
    }
  g_signal_emit (self, _ks_pipeline_signals[SIGNAL_DEVICE_LOST], 0, self->cpu_reason);
}

/* After a sticky CUDA error the process can never use the GPU again: carry on
 * with the CPU engine and the images the user already has. */
static void
fall_back_to_cpu (KsPipeline *self, const GError *cause)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();

  g_free (self->cpu_reason);
  self->cpu_reason = g_strdup (cause->message);
  _ks_pipeline_clear_outcome (self);
  _ks_pipeline_set_device_async (self, cpu, NULL, on_fallback_done_cb, NULL);
}

/* ---- inputs ------------------------------------------------------------- */

typedef struct
{
  KsPipeline *pipeline;         /* kept alive by the task's callback */
  KsInputSlot slot;
  KsImage *image;
  char *name;
} InputJob;

static void
input_job_free (gpointer data)
{
  InputJob *job = data;

  ks_image_unref (job->image);
  g_free (job->name);
  g_free (job);
}

static void
input_thread (GTask *task, gpointer source_object, gpointer task_data,
              GCancellable *cancellable)
{
  InputJob *job = task_data;
  KsPipeline *self = job->pipeline;
  Source *base = self->worker_source;
  Source *s = _ks_pipeline_source_derive (base, base->device, base->engine);

  g_clear_pointer (&s->inputs[job->slot], ks_image_unref);
  g_free (s->names[job->slot]);
  s->inputs[job->slot] = ks_image_ref (job->image);
  s->names[job->slot] = g_strdup (job->name);
  return_uploaded (self, task, s);
}

static void
on_input_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) outer = user_data;
  Source *s = adopt_returned (g_task_get_source_object (outer), outer, result);

  g_clear_pointer (&s, _ks_pipeline_source_unref);
}

void
_ks_pipeline_set_input_async (KsPipeline *self, KsInputSlot slot, KsImage *image,
                              const char *name, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  InputJob *job;

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, _ks_pipeline_set_input_async);
  g_task_set_check_cancellable (outer, FALSE);
  if (image->format != KS_FORMAT_RGBA8)
    {
      g_task_return_new_error (outer, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("Inputs are colour images"));
      return;
    }
  job = g_new0 (InputJob, 1);
  job->pipeline = self;
  job->slot = slot;
  job->image = ks_image_ref (image);
  job->name = g_strdup (name != NULL ? name : _("Untitled"));
  _ks_pipeline_queue_inner (self, outer, job, input_job_free, input_thread, on_input_done_cb);
}

gboolean
ks_pipeline_set_input_finish (KsPipeline *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- live runs ------------------------------------------------------------------------ */

typedef struct
{
  Source *source;
  const KsOp *op;
  KsParams params;
  KsLaunchConfig launch;
  KsBuffer *spare;              /* written into when it fits; never a published buffer */
  guint out_width, out_height;
  gboolean poison;              /* the grid leaves pixels out */
  gboolean instrument;          /* an overlay is on: record who wrote what */
  gboolean need_plain;          /* also time a plain run: the overlay's cost */
  gboolean shareable;           /* the output in memory OpenGL can import */
  char *key;                    /* the configuration, for the plain time */
  GMutex lock;
  gint64 started_us;            /* under lock: when the worker began it; 0: queued */
} LiveJob;

/* A live run that has computed for longer than this is stopped when a newer
 * one is queued: its result would be replaced at once, and the newer one
 * waits for it. Shorter runs finish, so that a dragged slider shows frames. */
#define LIVE_CANCEL_AFTER_US (250 * G_TIME_SPAN_MILLISECOND)

static void
live_job_free (gpointer data)
{
  LiveJob *job = data;

  g_clear_pointer (&job->spare, ks_buffer_unref);
  _ks_pipeline_source_unref (job->source);
  g_free (job->key);
  g_mutex_clear (&job->lock);
  g_free (job);
}

static Outcome *
live_run (LiveJob *job, GCancellable *cancellable, GError **error)
{
  g_autoptr (Outcome) o = g_new0 (Outcome, 1);
  g_autoptr (KsBuffer) output = NULL;
  KsEngine *engine = job->source->engine;
  KsRunRequest request;

  o->source = _ks_pipeline_source_ref (job->source);
  o->op = job->op;
  o->params = job->params;
  o->plain_ms = -1;
  ks_run_request_init (&request, job->op);
  request.params = job->params;
  request.launch = job->launch;
  for (guint i = 0; i < job->op->n_inputs; i++)
    request.inputs[i] = job->source->buffers[i];

  if (job->spare != NULL && ks_buffer_get_width (job->spare) == job->out_width
      && ks_buffer_get_height (job->spare) == job->out_height
      && ks_buffer_get_format (job->spare) == job->op->output_format
      && (!job->shareable || ks_buffer_is_shareable (job->spare)))
    output = g_steal_pointer (&job->spare);
  if (output == NULL && job->shareable && job->op->output_kind == KS_OP_OUTPUT_IMAGE
      && ks_engine_is_cuda (engine))
    {
      g_autoptr (GError) local = NULL;

      /* The view samples this memory in place. Where it cannot be made, an
       * ordinary buffer serves and the view copies from it, saying why. */
      output = ks_engine_new_shareable_buffer (engine, job->op->output_format, job->out_width,
                                               job->out_height, &local);
      if (output == NULL)
        o->shareable_refused = g_strdup (local->message);
    }
  if (job->poison || job->instrument)
    {
      /* Poison the output so that what no thread wrote shows, and record
       * which pixels those are. */
      if (output == NULL)
        output = ks_engine_new_buffer (engine, job->op->output_format, job->out_width,
                                       job->out_height, error);
      if (output == NULL)
        return NULL;
      request.instrument = (guint64) job->out_width * job->out_height <= MAX_INSTRUMENTED_PIXELS;
    }
  request.output = output;
  request.cancellable = cancellable;

  if (request.instrument && job->need_plain)
    {
      KsRunRequest plain = request;
      KsRunResult r;

      /* The overlay's cost: the same configuration without the recording.
       * Its first run may pay for a first launch; the second is the one kept. */
      plain.instrument = FALSE;
      for (guint i = 0; i < 2; i++)
        {
          memset (&r, 0, sizeof r);
          if (!ks_engine_run (engine, &plain, &r, error))
            return NULL;
          o->plain_ms = r.kernel_ms;
          ks_run_result_clear (&r);
        }
    }
  if (output != NULL && (job->poison || job->instrument)
      && !ks_engine_fill (engine, output, POISON, error))
    return NULL;

  if (!ks_engine_run (engine, &request, &o->result, error))
    {
      memset (&o->result, 0, sizeof o->result);
      return NULL;
    }
  if (job->op->output_kind == KS_OP_OUTPUT_HISTOGRAM)
    memcpy (o->histogram, o->result.histogram, sizeof o->histogram);
  else if (!_ks_pipeline_run_histogram (engine, o->result.output, o->histogram, error))
    return NULL;
  o->coverage_mask = _ks_pipeline_coverage_mask (o->result.coverage);
  if (job->instrument)
    o->ownership = _ks_pipeline_pack_ownership (o->result.coverage);
  return g_steal_pointer (&o);
}

static void
live_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  LiveJob *job = task_data;
  Outcome *o;

  g_mutex_lock (&job->lock);
  job->started_us = g_get_monotonic_time ();
  g_mutex_unlock (&job->lock);
  o = live_run (job, cancellable, &error);

  if (o == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, o, _ks_pipeline_outcome_free);
}

static void
on_live_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsPipeline) self = user_data;
  LiveJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autoptr (Outcome) o = g_task_propagate_pointer (G_TASK (result), &error);

  self->n_tasks--;
  if (self->live_task == G_TASK (result))
    g_clear_object (&self->live_task);

  if (self->runner == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  /* Work on inputs or an engine that are no longer current: the run queued
   * when they changed brings the result that matters. */
  if (job->source != self->source)
    return;
  if (o == NULL)
    {
      _ks_pipeline_report_failure (self, error);
      return;
    }
  if (self->outcome != NULL && self->outcome->result.output != NULL)
    {
      g_clear_pointer (&self->spare, ks_buffer_unref);
      self->spare = ks_buffer_ref (self->outcome->result.output);
    }
  if (o->plain_ms >= 0)
    {
      g_free (self->plain_key);
      self->plain_key = g_strdup (job->key);
      self->plain_ms = o->plain_ms;
    }
  g_free (self->shareable_refused);
  self->shareable_refused = g_strdup (o->shareable_refused);
  g_clear_pointer (&self->outcome, _ks_pipeline_outcome_free);
  self->outcome = g_steal_pointer (&o);
  _ks_pipeline_record_sample (self);
  _ks_pipeline_notify (self, PROP_RESULT);
  g_signal_emit (self, _ks_pipeline_signals[SIGNAL_RAN], 0);
}

static void
submit_live (KsPipeline *self)
{
  g_autoptr (GTask) task = NULL;
  KsLaunchTotals totals;
  LiveJob *job;

  if (self->user_kernel != NULL)
    {
      _ks_pipeline_submit_user_live (self);
      return;
    }
  if (self->source->buffers[KS_INPUT_A] == NULL || !self->valid)
    return;  /* an invalid launch runs nothing: the launch panel shows why */
  job = g_new0 (LiveJob, 1);
  job->source = _ks_pipeline_source_ref (self->source);
  job->op = self->op;
  job->params = self->params;
  job->launch = self->launch;
  job->spare = g_steal_pointer (&self->spare);
  _ks_pipeline_output_size (self, &job->out_width, &job->out_height);
  ks_launch_totals (&self->resolved, job->out_width, job->out_height, &totals);
  job->poison = totals.unreached_pixels > 0 && self->op->output_kind == KS_OP_OUTPUT_IMAGE;
  job->instrument = self->instrumented && self->op->output_kind == KS_OP_OUTPUT_IMAGE;
  job->shareable = self->shareable_outputs;
  job->key = _ks_pipeline_config_key (self, job->out_width, job->out_height);
  job->need_plain = job->instrument && g_strcmp0 (job->key, self->plain_key) != 0;
  g_mutex_init (&job->lock);
  if (self->live_task != NULL)
    {
      LiveJob *last = g_task_get_task_data (self->live_task);
      gint64 started;

      g_mutex_lock (&last->lock);
      started = last->started_us;
      g_mutex_unlock (&last->lock);
      if (started != 0 && g_get_monotonic_time () - started > LIVE_CANCEL_AFTER_US)
        g_cancellable_cancel (g_task_get_cancellable (self->live_task));
    }
  {
    g_autoptr (GCancellable) cancellable = g_cancellable_new ();

    task = g_task_new (NULL, cancellable, on_live_done_cb, g_object_ref (self));
  }
  g_task_set_task_data (task, job, live_job_free);
  g_set_object (&self->live_task, task);
  self->n_tasks++;
  ks_runner_queue_live (self->runner, task, live_thread);
}

static gboolean
run_idle_cb (gpointer user_data)
{
  KsPipeline *self = user_data;

  self->run_source = 0;
  submit_live (self);
  return G_SOURCE_REMOVE;
}

void
_ks_pipeline_queue_run (KsPipeline *self)
{
  /* Setters called together (a preset sets three values) make one run. */
  if (self->run_source == 0)
    self->run_source = g_idle_add_full (G_PRIORITY_HIGH_IDLE, run_idle_cb, self, NULL);
}
