#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-pipeline.h"
#include "ks-timing-export.h"
#include "ks-op-registry.h"

/* Unwritten pixels read as transparent black, so the view's checkerboard and
 * coverage hatching show through where a grid was too small. */
#define POISON 0x00

/* Instrumenting costs three words per pixel: only up to 8K × 8K. */
#define MAX_INSTRUMENTED_PIXELS (8192u * 8192u)

/* ---- what the engine works from ------------------------------------------------- */

/* The device, its engine, the host inputs and their copies on the device.
 * Built on the worker, never changed once built, shared with the main loop. */
typedef struct
{
  gatomicrefcount ref;
  KsDevice *device;
  KsEngine *engine;
  KsImage *inputs[2];
  char *names[2];
  KsBuffer *buffers[2];
  double upload_ms;
  guint32 histogram[4][256];    /* of input A */
} Source;

static Source *
source_new (KsDevice *device, KsEngine *engine)
{
  Source *s = g_new0 (Source, 1);

  g_atomic_ref_count_init (&s->ref);
  s->device = g_object_ref (device);
  s->engine = g_object_ref (engine);
  s->upload_ms = -1;
  return s;
}

static Source *
source_ref (Source *s)
{
  g_atomic_ref_count_inc (&s->ref);
  return s;
}

/* A GDestroyNotify too. */
static void
source_unref (gpointer data)
{
  Source *s = data;

  if (!g_atomic_ref_count_dec (&s->ref))
    return;
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&s->buffers[i], ks_buffer_unref);
      g_clear_pointer (&s->inputs[i], ks_image_unref);
      g_free (s->names[i]);
    }
  g_object_unref (s->engine);
  g_object_unref (s->device);
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Source, source_unref)

/* The same inputs, to be uploaded again (on another engine, or with one replaced). */
static Source *
source_derive (const Source *base, KsDevice *device, KsEngine *engine)
{
  Source *s = source_new (device, engine);

  for (guint i = 0; i < 2; i++)
    {
      s->inputs[i] = base->inputs[i] != NULL ? ks_image_ref (base->inputs[i]) : NULL;
      s->names[i] = g_strdup (base->names[i]);
    }
  return s;
}

/* ---- a published run -------------------------------------------------------------- */

typedef struct
{
  Source *source;
  const KsOp *op;
  KsParams params;
  KsRunResult result;
  guint32 histogram[4][256];    /* of the output, or the histogram op's result */
  KsImage *coverage_mask;
  /* When instrumented: per pixel the last writer's linear block, and its
   * linear thread with the write count (saturated) above it — what the
   * view's overlay texture holds, packed on the worker. */
  guint32 *ownership;
  double plain_ms;              /* a plain run of the same configuration; negative: none made */
  char *shareable_refused;      /* why the output is not in memory shared with OpenGL, or NULL */
} Outcome;

static void
outcome_free (gpointer data)
{
  Outcome *o = data;

  ks_run_result_clear (&o->result);
  g_clear_pointer (&o->coverage_mask, ks_image_unref);
  g_free (o->ownership);
  g_free (o->shareable_refused);
  source_unref (o->source);
  g_free (o);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Outcome, outcome_free)

struct _KsPipeline
{
  GObject parent_instance;

  /* owned */
  KsRunner *runner;
  GMainContext *context;      /* where work is published: the creator's */
  GListStore *devices;
  Source *source;             /* published */
  Outcome *outcome;           /* published, or NULL */
  KsBuffer *spare;            /* an output no longer published: the next run writes it */
  char *cpu_reason;
  char *validation_message;
  char *display_path;
  GArray *history;            /* KsTimingSample */

  /* the model */
  const KsOp *op;
  KsParams params;
  KsLaunchConfig launch;
  KsLaunchConfig resolved;
  KsLaunchConfig suggestion;
  gboolean valid;
  gboolean have_occupancy;
  KsOccupancy occupancy;
  KsKernelAttributes attributes;
  double display_ms;
  double fps;
  guint n_long;               /* Measures and Compares not finished */
  guint n_tasks;              /* tasks on the runner whose callback has not run */
  double progress;
  guint run_source;
  GTask *live_task;             /* the newest live run's, until it is done */
  gboolean instrumented;        /* every run records its coverage (an overlay is on) */
  gboolean shareable_outputs;   /* image outputs in memory OpenGL can import (a view asks) */
  char *shareable_refused;      /* the last run's reason it could not, or NULL */
  char *plain_key;              /* the configuration plain_ms was measured for */
  double plain_ms;

  /* the user's kernel, when it runs in place of the op */
  KsWorker *worker;           /* created on first use, for the current device */
  guint kernel_timeout_ms;    /* the worker's watchdog */
  gsize printf_fifo;          /* the worker's printf buffer */
  KsKernelSource *user_kernel;
  KsParams user_params;
  GHashTable *remembered_params; /* name → double *: for the next user kernel set; NULL: none */
  guint user_launches;

  /* the worker's own: touched only by tasks on the runner */
  Source *worker_source;

  /* from the worker to the main loop */
  gint progress_done;
  gint progress_total;
  gint progress_posted;
};

G_DEFINE_FINAL_TYPE (KsPipeline, ks_pipeline, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICES,
  PROP_DEVICE,
  PROP_ENGINE,
  PROP_CPU_REASON,
  PROP_OP,
  PROP_INPUT_NAME,
  PROP_SECOND_NAME,
  PROP_VALID,
  PROP_VALIDATION_MESSAGE,
  PROP_RESULT,
  PROP_DISPLAY_PATH,
  PROP_FPS,
  PROP_BUSY,
  PROP_PROGRESS,
  PROP_USER_KERNEL,
  PROP_INSTRUMENTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_RAN,
  SIGNAL_CONFIG_CHANGED,
  SIGNAL_INPUTS_CHANGED,
  SIGNAL_RUN_FAILED,
  SIGNAL_DEVICE_LOST,
  SIGNAL_USER_RUN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
notify (KsPipeline *self, guint prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
ks_pipeline_dispose (GObject *object)
{
  KsPipeline *self = KS_PIPELINE (object);

  g_clear_handle_id (&self->run_source, g_source_remove);
  /* A long CPU run stops between bands instead of holding up the join. */
  if (self->live_task != NULL)
    g_cancellable_cancel (g_task_get_cancellable (self->live_task));
  g_clear_object (&self->live_task);
  /* Joins the worker: nothing runs on worker_source after this. */
  g_clear_object (&self->runner);
  g_clear_pointer (&self->outcome, outcome_free);
  g_clear_pointer (&self->spare, ks_buffer_unref);
  g_clear_pointer (&self->source, source_unref);
  g_clear_pointer (&self->worker_source, source_unref);
  g_clear_pointer (&self->user_kernel, ks_kernel_source_unref);
  g_clear_object (&self->worker);
  g_clear_object (&self->devices);
  G_OBJECT_CLASS (ks_pipeline_parent_class)->dispose (object);
}

static void
ks_pipeline_finalize (GObject *object)
{
  KsPipeline *self = KS_PIPELINE (object);

  g_free (self->cpu_reason);
  g_free (self->validation_message);
  g_free (self->display_path);
  g_free (self->plain_key);
  g_free (self->shareable_refused);
  g_clear_pointer (&self->remembered_params, g_hash_table_unref);
  g_array_unref (self->history);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (ks_pipeline_parent_class)->finalize (object);
}

static void
ks_pipeline_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsPipeline *self = KS_PIPELINE (object);

  switch (prop_id)
    {
    case PROP_DEVICES:
      g_value_set_object (value, self->devices);
      break;
    case PROP_DEVICE:
      g_value_set_object (value, ks_pipeline_get_device (self));
      break;
    case PROP_ENGINE:
      g_value_set_object (value, ks_pipeline_get_engine (self));
      break;
    case PROP_CPU_REASON:
      g_value_set_string (value, ks_pipeline_get_cpu_reason (self));
      break;
    case PROP_OP:
      g_value_set_pointer (value, (gpointer) self->op);
      break;
    case PROP_INPUT_NAME:
      g_value_set_string (value, ks_pipeline_get_input_name (self, KS_INPUT_A));
      break;
    case PROP_SECOND_NAME:
      g_value_set_string (value, ks_pipeline_get_input_name (self, KS_INPUT_B));
      break;
    case PROP_VALID:
      g_value_set_boolean (value, self->valid);
      break;
    case PROP_VALIDATION_MESSAGE:
      g_value_set_string (value, self->validation_message);
      break;
    case PROP_RESULT:
      g_value_set_pointer (value, (gpointer) ks_pipeline_get_result (self));
      break;
    case PROP_DISPLAY_PATH:
      g_value_set_string (value, self->display_path);
      break;
    case PROP_FPS:
      g_value_set_double (value, self->fps);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, ks_pipeline_get_busy (self));
      break;
    case PROP_PROGRESS:
      g_value_set_double (value, self->progress);
      break;
    case PROP_USER_KERNEL:
      g_value_set_pointer (value, self->user_kernel);
      break;
    case PROP_INSTRUMENTED:
      g_value_set_boolean (value, self->instrumented);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_pipeline_set_property (GObject *object, guint prop_id, const GValue *value,
                          GParamSpec *pspec)
{
  KsPipeline *self = KS_PIPELINE (object);

  switch (prop_id)
    {
    case PROP_OP:
      ks_pipeline_set_op (self, g_value_get_pointer (value));
      break;
    case PROP_FPS:
      ks_pipeline_set_fps (self, g_value_get_double (value));
      break;
    case PROP_INSTRUMENTED:
      ks_pipeline_set_instrumented (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define RO (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
#define RW (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)

static void
ks_pipeline_class_init (KsPipelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->dispose = ks_pipeline_dispose;
  object_class->finalize = ks_pipeline_finalize;
  object_class->get_property = ks_pipeline_get_property;
  object_class->set_property = ks_pipeline_set_property;

  properties[PROP_DEVICES] = g_param_spec_object ("devices", NULL, NULL, G_TYPE_LIST_MODEL, RO);
  properties[PROP_DEVICE] = g_param_spec_object ("device", NULL, NULL, KS_TYPE_DEVICE, RO);
  properties[PROP_ENGINE] = g_param_spec_object ("engine", NULL, NULL, KS_TYPE_ENGINE, RO);
  properties[PROP_CPU_REASON] = g_param_spec_string ("cpu-reason", NULL, NULL, NULL, RO);
  properties[PROP_OP] = g_param_spec_pointer ("op", NULL, NULL, RW);
  properties[PROP_INPUT_NAME] = g_param_spec_string ("input-name", NULL, NULL, NULL, RO);
  properties[PROP_SECOND_NAME] = g_param_spec_string ("second-name", NULL, NULL, NULL, RO);
  properties[PROP_VALID] = g_param_spec_boolean ("valid", NULL, NULL, TRUE, RO);
  properties[PROP_VALIDATION_MESSAGE] = g_param_spec_string ("validation-message", NULL, NULL,
                                                             NULL, RO);
  properties[PROP_RESULT] = g_param_spec_pointer ("result", NULL, NULL, RO);
  properties[PROP_DISPLAY_PATH] = g_param_spec_string ("display-path", NULL, NULL, NULL, RO);
  properties[PROP_FPS] = g_param_spec_double ("fps", NULL, NULL, 0, G_MAXDOUBLE, 0, RW);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, RO);
  properties[PROP_PROGRESS] = g_param_spec_double ("progress", NULL, NULL, 0, 1, 0, RO);
  properties[PROP_USER_KERNEL] = g_param_spec_pointer ("user-kernel", NULL, NULL, RO);
  properties[PROP_INSTRUMENTED] = g_param_spec_boolean ("instrumented", NULL, NULL, FALSE, RW);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_RAN] = g_signal_new ("ran", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 0);
  signals[SIGNAL_CONFIG_CHANGED] = g_signal_new ("config-changed", type, G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_INPUTS_CHANGED] = g_signal_new ("inputs-changed", type, G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_RUN_FAILED] = g_signal_new ("run-failed", type, G_SIGNAL_RUN_LAST, 0, NULL,
                                             NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[SIGNAL_DEVICE_LOST] = g_signal_new ("device-lost", type, G_SIGNAL_RUN_LAST, 0, NULL,
                                              NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_USER_RUN] = g_signal_new ("user-run", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                           NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

#undef RO
#undef RW

static void
ks_pipeline_init (KsPipeline *self)
{
  self->runner = ks_runner_new ();
  self->context = g_main_context_ref_thread_default ();
  self->devices = g_list_store_new (KS_TYPE_DEVICE);
  self->history = g_array_new (FALSE, TRUE, sizeof (KsTimingSample));
  self->display_ms = -1;
  self->op = ks_op_registry_lookup ("invert");
  ks_params_init (&self->params, self->op);
  self->launch = self->op->default_launch;
  self->valid = TRUE;
}

static void revalidate (KsPipeline *self);

KsPipeline *
ks_pipeline_new (void)
{
  KsPipeline *self = g_object_new (KS_TYPE_PIPELINE, NULL);
  g_autoptr (GPtrArray) devices = ks_devices_enumerate ();
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) device = NULL;
  g_autoptr (KsEngine) engine = NULL;

  for (guint i = 0; i < devices->len; i++)
    g_list_store_append (self->devices, g_ptr_array_index (devices, i));

  /* The first engine opens before the window shows: there is nothing to draw
   * without one, and the worker needs it for its first task. */
  if (ks_cuda_available (&error))
    {
      device = ks_device_get_cuda (0, &error);
      engine = device != NULL ? ks_engine_new (device, &error) : NULL;
    }
  if (engine == NULL)
    {
      g_set_object (&device, NULL);
      device = ks_device_get_cpu ();
      self->cpu_reason = g_strdup (error != NULL ? error->message : "");
      /* The CPU engine cannot fail to open. */
      engine = ks_engine_new (device, NULL);
      g_assert (engine != NULL);
    }
  self->source = source_new (device, engine);
  self->worker_source = source_ref (self->source);
  revalidate (self);
  return self;
}

KsRunner *
ks_pipeline_get_runner (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->runner;
}

/* ---- on the worker: uploads and histograms ---------------------------------------- */

/* Nearest-neighbour resampling, so that a second image of another size can
 * still be added to or blended with the first. */
static KsImage *
resample (const KsImage *src, guint width, guint height)
{
  KsImage *dst = ks_image_new (src->format, width, height, NULL);

  if (dst == NULL)
    return NULL;
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      ks_image_set_rgba (dst, x, y,
                         ks_image_get_rgba (src, (guint) ((guint64) x * src->width / width),
                                            (guint) ((guint64) y * src->height / height)));
  return dst;
}

/* Input B follows input A's size; without one, the test card stands in. */
static KsImage *
second_input_for (const Source *s)
{
  KsImage *a = s->inputs[KS_INPUT_A], *b = s->inputs[KS_INPUT_B];

  if (b == NULL)
    return ks_image_new_test_card (a->width, a->height, NULL);
  if (b->width == a->width && b->height == a->height)
    return ks_image_ref (b);
  return resample (b, a->width, a->height);
}

static gboolean
run_histogram (KsEngine *engine, KsBuffer *buffer, guint32 out[4][256], GError **error)
{
  KsRunRequest request;
  KsRunResult result = { 0 };

  ks_run_request_init (&request, ks_op_registry_lookup ("histogram"));
  request.inputs[0] = buffer;
  if (!ks_engine_run (engine, &request, &result, error))
    return FALSE;
  memcpy (out, result.histogram, sizeof result.histogram);
  ks_run_result_clear (&result);
  return TRUE;
}

static gboolean
upload_inputs (Source *s, GError **error)
{
  g_autoptr (KsImage) b = NULL;

  if (s->inputs[KS_INPUT_A] == NULL)
    return TRUE;
  s->buffers[0] = ks_engine_upload (s->engine, s->inputs[KS_INPUT_A], &s->upload_ms, error);
  if (s->buffers[0] == NULL)
    return FALSE;
  b = second_input_for (s);
  if (b == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   _("Not enough memory for the second image"));
      return FALSE;
    }
  s->buffers[1] = ks_engine_upload (s->engine, b, NULL, error);
  return s->buffers[1] != NULL && run_histogram (s->engine, s->buffers[0], s->histogram, error);
}

/* ---- publishing on the main loop ------------------------------------------------------ */

static void
clear_outcome (KsPipeline *self)
{
  if (self->outcome == NULL)
    return;
  g_clear_pointer (&self->outcome, outcome_free);
  notify (self, PROP_RESULT);
}

static void
adopt_source (KsPipeline *self, Source *source)
{
  g_autoptr (Source) old = g_steal_pointer (&self->source);
  gboolean new_engine = old->engine != source->engine;

  self->source = source_ref (source);
  if (new_engine)
    {
      /* Buffers of another engine must never reach this one. */
      clear_outcome (self);
      g_clear_pointer (&self->spare, ks_buffer_unref);
      /* A worker serves one device: the next request starts one for this one. */
      g_clear_object (&self->worker);
      notify (self, PROP_DEVICE);
      notify (self, PROP_ENGINE);
      notify (self, PROP_CPU_REASON);
    }
  if (g_strcmp0 (old->names[KS_INPUT_A], source->names[KS_INPUT_A]) != 0)
    notify (self, PROP_INPUT_NAME);
  if (g_strcmp0 (old->names[KS_INPUT_B], source->names[KS_INPUT_B]) != 0)
    notify (self, PROP_SECOND_NAME);
  revalidate (self);
  if (new_engine)
    g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_INPUTS_CHANGED], 0);
  ks_pipeline_queue_run (self);
}

static void fall_back_to_cpu (KsPipeline *self, const GError *cause);

static void
report_failure (KsPipeline *self, GError *error)
{
  if (g_error_matches (error, KS_ERROR, KS_ERROR_DEVICE_LOST)
      && ks_engine_is_cuda (self->source->engine))
    fall_back_to_cpu (self, error);
  else
    g_signal_emit (self, signals[SIGNAL_RUN_FAILED], 0, error);
}

/* ---- devices ------------------------------------------------------------ */

GListModel *
ks_pipeline_get_devices (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return G_LIST_MODEL (self->devices);
}

KsDevice *
ks_pipeline_get_device (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->source != NULL ? self->source->device : NULL;
}

KsEngine *
ks_pipeline_get_engine (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->source != NULL ? self->source->engine : NULL;
}

const char *
ks_pipeline_get_cpu_reason (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  if (self->source == NULL || ks_engine_is_cuda (self->source->engine))
    return NULL;
  return self->cpu_reason != NULL && *self->cpu_reason ? self->cpu_reason : NULL;
}

/* On the worker: s, once its inputs are uploaded, becomes the worker's
 * source, and the task returns it for the main loop to adopt. On failure the
 * worker keeps the source it had. */
static void
return_uploaded (KsPipeline *self, GTask *task, Source *s)
{
  g_autoptr (GError) error = NULL;

  if (!upload_inputs (s, &error))
    {
      source_unref (s);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_clear_pointer (&self->worker_source, source_unref);
  self->worker_source = source_ref (s);
  g_task_return_pointer (task, s, source_unref);
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
  return_uploaded (self, task, source_derive (self->worker_source, job->device, engine));
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
static void
queue_inner (KsPipeline *self, GTask *outer, gpointer data, GDestroyNotify destroy,
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
ks_pipeline_set_device_async (KsPipeline *self, KsDevice *device, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  DeviceJob *job;

  g_return_if_fail (KS_IS_PIPELINE (self) && KS_IS_DEVICE (device));
  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ks_pipeline_set_device_async);
  g_task_set_check_cancellable (outer, FALSE);
  if (device == self->source->device)
    {
      g_task_return_boolean (outer, TRUE);
      return;
    }
  job = g_new0 (DeviceJob, 1);
  job->pipeline = self;
  job->device = g_object_ref (device);
  queue_inner (self, outer, job, device_job_free, device_thread, on_device_done_cb);
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
  KsPipeline *self = KS_PIPELINE (object);
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_device_finish (self, result, &error))
    {
      g_warning ("The CPU engine could not take over: %s", error->message);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_DEVICE_LOST], 0, self->cpu_reason);
}

/* After a sticky CUDA error the process can never use the GPU again: carry on
 * with the CPU engine and the images the user already has. */
static void
fall_back_to_cpu (KsPipeline *self, const GError *cause)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();

  g_free (self->cpu_reason);
  self->cpu_reason = g_strdup (cause->message);
  clear_outcome (self);
  ks_pipeline_set_device_async (self, cpu, NULL, on_fallback_done_cb, NULL);
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
  Source *s = source_derive (base, base->device, base->engine);

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

  g_clear_pointer (&s, source_unref);
}

void
ks_pipeline_set_input_async (KsPipeline *self, KsInputSlot slot, KsImage *image,
                             const char *name, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  InputJob *job;

  g_return_if_fail (KS_IS_PIPELINE (self) && image != NULL && slot <= KS_INPUT_B);
  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ks_pipeline_set_input_async);
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
  queue_inner (self, outer, job, input_job_free, input_thread, on_input_done_cb);
}

gboolean
ks_pipeline_set_input_finish (KsPipeline *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

KsImage *
ks_pipeline_get_input (KsPipeline *self, KsInputSlot slot)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && slot <= KS_INPUT_B, NULL);
  return self->source->inputs[slot];
}

KsBuffer *
ks_pipeline_get_input_buffer (KsPipeline *self, KsInputSlot slot)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && slot <= KS_INPUT_B, NULL);
  return self->source->buffers[slot];
}

const char *
ks_pipeline_get_input_name (KsPipeline *self, KsInputSlot slot)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && slot <= KS_INPUT_B, NULL);
  if (slot == KS_INPUT_B && self->source->names[slot] == NULL)
    return _("Test card");
  return self->source->names[slot];
}

/* ---- op, parameters, launch ---------------------------------------------- */

static void
build_request (KsPipeline *self, const Source *s, KsRunRequest *request)
{
  ks_run_request_init (request, self->op);
  request->params = self->params;
  request->launch = self->launch;
  for (guint i = 0; i < self->op->n_inputs; i++)
    request->inputs[i] = s->buffers[i];
}

static void
revalidate (KsPipeline *self)
{
  KsRunRequest request;
  g_autoptr (GError) error = NULL;
  g_autofree char *old_message = g_steal_pointer (&self->validation_message);
  gboolean was_valid = self->valid;

  /* The user's kernel is validated on the runner, where it is compiled:
   * its attributes come from the worker (user_validated). */
  if (self->user_kernel != NULL)
    {
      self->validation_message = g_steal_pointer (&old_message);
      return;
    }
  self->have_occupancy = FALSE;
  self->valid = TRUE;
  if (self->source->buffers[KS_INPUT_A] != NULL)
    {
      build_request (self, self->source, &request);
      /* Validation reads the device's limits and the kernel's attributes; it
       * launches nothing, so it stays on the main loop and the launch panel
       * answers at once. */
      self->valid = ks_engine_validate (self->source->engine, &request, &self->resolved,
                                        &self->suggestion, &error);
      if (!self->valid)
        self->validation_message = g_strdup (error->message);
      else if (ks_engine_is_cuda (self->source->engine)
               && ks_engine_kernel_attributes (self->source->engine, &request,
                                               &self->attributes, NULL))
        {
          ks_launch_occupancy (&self->resolved, ks_device_get_limits (self->source->device),
                               &self->attributes, &self->occupancy);
          self->have_occupancy = TRUE;
        }
    }
  if (was_valid != self->valid)
    notify (self, PROP_VALID);
  if (g_strcmp0 (old_message, self->validation_message) != 0)
    notify (self, PROP_VALIDATION_MESSAGE);
}

static void
config_changed (KsPipeline *self)
{
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  ks_pipeline_queue_run (self);
}

const KsOp *
ks_pipeline_get_op (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->op;
}

void
ks_pipeline_set_op (KsPipeline *self, const KsOp *op)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && op != NULL);
  if (op == self->op)
    return;
  self->op = op;
  ks_params_init (&self->params, op);
  /* The output changes kind or format: the spare may not fit any more. */
  g_clear_pointer (&self->spare, ks_buffer_unref);
  notify (self, PROP_OP);
  config_changed (self);
}

const KsParams *
ks_pipeline_get_params (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->params;
}

void
ks_pipeline_set_param (KsPipeline *self, guint index, double value)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && index < self->op->n_params);
  if (self->params.values[index] == value)
    return;
  self->params.values[index] = value;
  config_changed (self);
}

const KsLaunchConfig *
ks_pipeline_get_launch (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->launch;
}

void
ks_pipeline_set_launch (KsPipeline *self, const KsLaunchConfig *launch)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && launch != NULL);
  if (memcmp (launch, &self->launch, sizeof *launch) == 0)
    return;
  self->launch = *launch;
  config_changed (self);
}

gboolean
ks_pipeline_get_validation (KsPipeline *self, const char **message, KsLaunchConfig *suggestion)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  if (message != NULL)
    *message = self->validation_message;
  if (suggestion != NULL)
    *suggestion = self->valid ? self->resolved : self->suggestion;
  return self->valid;
}

const KsLaunchConfig *
ks_pipeline_get_resolved_launch (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->resolved;
}

static void
output_size (KsPipeline *self, guint *width, guint *height)
{
  KsImage *a = self->source->inputs[KS_INPUT_A];

  if (self->user_kernel != NULL)
    {
      /* User kernels write an image of the input's size. */
      *width = a->width;
      *height = a->height;
      return;
    }
  ks_op_output_size (self->op, &self->params, a->width, a->height, width, height);
}

void
ks_pipeline_get_totals (KsPipeline *self, KsLaunchTotals *totals)
{
  guint w, h;

  g_return_if_fail (KS_IS_PIPELINE (self) && totals != NULL);
  memset (totals, 0, sizeof *totals);
  if (self->source->inputs[KS_INPUT_A] == NULL)
    return;
  output_size (self, &w, &h);
  ks_launch_totals (&self->resolved, w, h, totals);
}

gboolean
ks_pipeline_get_occupancy (KsPipeline *self, KsOccupancy *occupancy,
                           KsKernelAttributes *attributes)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  if (!self->have_occupancy)
    return FALSE;
  if (occupancy != NULL)
    *occupancy = self->occupancy;
  if (attributes != NULL)
    *attributes = self->attributes;
  return TRUE;
}

/* ---- results -------------------------------------------------------------- */

const KsRunResult *
ks_pipeline_get_result (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? &self->outcome->result : NULL;
}

const KsOp *
ks_pipeline_get_result_op (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? self->outcome->op : NULL;
}

const KsParams *
ks_pipeline_get_result_params (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? &self->outcome->params : NULL;
}

const KsCoverage *
ks_pipeline_get_coverage (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? self->outcome->result.coverage : NULL;
}

KsImage *
ks_pipeline_get_coverage_mask (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? self->outcome->coverage_mask : NULL;
}

static char *config_key (KsPipeline *self, guint width, guint height);

const guint32 *
ks_pipeline_get_ownership (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? self->outcome->ownership : NULL;
}

void
ks_pipeline_set_shareable_outputs (KsPipeline *self, gboolean shareable)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  shareable = !!shareable;
  if (self->shareable_outputs == shareable)
    return;
  self->shareable_outputs = shareable;
  /* The next run writes a buffer of the right kind. */
  g_clear_pointer (&self->spare, ks_buffer_unref);
  g_clear_pointer (&self->shareable_refused, g_free);
  ks_pipeline_queue_run (self);
}

const char *
ks_pipeline_get_shareable_refused (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->shareable_outputs ? self->shareable_refused : NULL;
}

void
ks_pipeline_set_instrumented (KsPipeline *self, gboolean instrumented)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  instrumented = !!instrumented;
  if (self->instrumented == instrumented)
    return;
  self->instrumented = instrumented;
  notify (self, PROP_INSTRUMENTED);
  ks_pipeline_queue_run (self);
}

gboolean
ks_pipeline_get_instrumented (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  return self->instrumented;
}

void
ks_pipeline_get_instrument_cost (KsPipeline *self, double *instrumented_ms, double *plain_ms)
{
  const Outcome *o;
  g_autofree char *key = NULL;
  guint w, h;

  g_return_if_fail (KS_IS_PIPELINE (self));
  *instrumented_ms = *plain_ms = -1;
  o = self->outcome;
  if (o == NULL || o->result.coverage == NULL || o->op == NULL || o->op != self->op)
    return;
  *instrumented_ms = o->result.kernel_ms;
  output_size (self, &w, &h);
  key = config_key (self, w, h);
  if (g_strcmp0 (key, self->plain_key) == 0)
    *plain_ms = self->plain_ms;
}

KsImage *
ks_pipeline_download_output (KsPipeline *self, GError **error)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  if (self->outcome == NULL || self->outcome->result.output == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   _("There is no output image: run an image operation first"));
      return NULL;
    }
  /* A published buffer is never written again: reading it here while the
   * worker runs the next one is safe. */
  return ks_engine_download (self->outcome->source->engine, self->outcome->result.output, NULL,
                             error);
}

typedef struct
{
  KsEngine *engine;
  KsBuffer *output;
  char *path;
} SaveJob;

static void
save_job_free (gpointer data)
{
  SaveJob *job = data;

  g_object_unref (job->engine);
  ks_buffer_unref (job->output);
  g_free (job->path);
  g_free (job);
}

static void
save_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  SaveJob *job = task_data;
  g_autoptr (KsImage) image = NULL;
  GError *error = NULL;

  image = ks_engine_download (job->engine, job->output, NULL, &error);
  if (image == NULL || !ks_image_save (image, job->path, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
ks_pipeline_save_output_async (KsPipeline *self, GFile *file, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *path = NULL;
  SaveJob *job;

  g_return_if_fail (KS_IS_PIPELINE (self) && G_IS_FILE (file));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_pipeline_save_output_async);
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_task_return_new_error (task, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("Choose a local file to save to"));
      return;
    }
  if (self->outcome == NULL || self->outcome->result.output == NULL)
    {
      g_task_return_new_error (task, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("There is no output image: run an image operation first"));
      return;
    }
  job = g_new0 (SaveJob, 1);
  job->engine = g_object_ref (self->outcome->source->engine);
  job->output = ks_buffer_ref (self->outcome->result.output);
  job->path = g_steal_pointer (&path);
  g_task_set_task_data (task, job, save_job_free);
  g_task_run_in_thread (task, save_thread);
}

gboolean
ks_pipeline_save_output_finish (KsPipeline *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
ks_pipeline_read_output_pixel (KsPipeline *self, guint x, guint y, guint32 *rgba)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && rgba != NULL, FALSE);
  if (self->outcome == NULL || self->outcome->result.output == NULL)
    return FALSE;
  return ks_engine_read_pixel (self->outcome->source->engine, self->outcome->result.output, x, y,
                               rgba, NULL);
}

const guint32 *
ks_pipeline_get_input_histogram (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->source->histogram[0][0];
}

const guint32 *
ks_pipeline_get_output_histogram (KsPipeline *self)
{
  static const guint32 none[4][256];

  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? &self->outcome->histogram[0][0] : &none[0][0];
}

void
ks_pipeline_get_stage_times (KsPipeline *self, KsStageTimes *times, double *display_ms)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && times != NULL);
  times->upload_ms = self->source->upload_ms;
  times->kernel_ms = self->outcome != NULL ? self->outcome->result.kernel_ms : -1;
  times->download_ms = -1;
  if (display_ms != NULL)
    *display_ms = self->display_ms;
}

void
ks_pipeline_report_display (KsPipeline *self, double display_ms, const char *path)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  self->display_ms = display_ms;
  if (self->history->len > 0)
    g_array_index (self->history, KsTimingSample, self->history->len - 1).display_ms = display_ms;
  if (g_strcmp0 (path, self->display_path) != 0)
    {
      g_free (self->display_path);
      self->display_path = g_strdup (path);
      notify (self, PROP_DISPLAY_PATH);
    }
}

const char *
ks_pipeline_get_display_path (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->display_path;
}

GArray *
ks_pipeline_get_history (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->history;
}

double
ks_pipeline_get_fps (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), 0);
  return self->fps;
}

void
ks_pipeline_set_fps (KsPipeline *self, double fps)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  fps = MAX (fps, 0);
  if (fps == self->fps)
    return;
  self->fps = fps;
  notify (self, PROP_FPS);
}

double
ks_pipeline_get_achieved_gbs (KsPipeline *self)
{
  const Outcome *o;
  KsImage *a;

  g_return_val_if_fail (KS_IS_PIPELINE (self), 0);
  o = self->outcome;
  if (o == NULL || o->op == NULL || o->result.kernel_ms <= 0)
    return 0;  /* a user kernel's bytes are its own business */
  a = o->source->inputs[KS_INPUT_A];
  return ks_op_bytes_moved_for (o->op, &o->params, a->format, a->width, a->height)
         / (o->result.kernel_ms * 1e-3) / 1e9;
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
  source_unref (job->source);
  g_free (job->key);
  g_mutex_clear (&job->lock);
  g_free (job);
}

/* The overlay's texture data (see Outcome.ownership). */
static guint32 *
pack_ownership (const KsCoverage *coverage)
{
  gsize n;
  guint32 *packed;

  if (coverage == NULL || coverage->writes == NULL || coverage->width == 0)
    return NULL;
  n = (gsize) coverage->width * coverage->height;
  packed = g_try_new (guint32, 2 * n);
  if (packed == NULL)
    return NULL;
  for (gsize i = 0; i < n; i++)
    {
      packed[2 * i] = coverage->owner_block[i];
      packed[2 * i + 1] = (coverage->owner_thread[i] & 0xffffu)
                          | MIN (coverage->writes[i], 0xffffu) << 16;
    }
  return packed;
}

static KsImage *
coverage_mask (const KsCoverage *coverage)
{
  KsImage *mask;

  if (coverage == NULL || coverage->writes == NULL || coverage->width == 0)
    return NULL;
  mask = ks_image_new (KS_FORMAT_GRAY8, coverage->width, coverage->height, NULL);
  if (mask == NULL)
    return NULL;
  for (guint y = 0; y < coverage->height; y++)
    {
      const guint32 *writes = coverage->writes + (gsize) y * coverage->width;
      guint8 *row = ks_image_row (mask, y);

      for (guint x = 0; x < coverage->width; x++)
        row[x] = writes[x] != 0 ? 255 : 0;
    }
  return mask;
}

static Outcome *
live_run (LiveJob *job, GCancellable *cancellable, GError **error)
{
  g_autoptr (Outcome) o = g_new0 (Outcome, 1);
  g_autoptr (KsBuffer) output = NULL;
  KsEngine *engine = job->source->engine;
  KsRunRequest request;

  o->source = source_ref (job->source);
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
  else if (!run_histogram (engine, o->result.output, o->histogram, error))
    return NULL;
  o->coverage_mask = coverage_mask (o->result.coverage);
  if (job->instrument)
    o->ownership = pack_ownership (o->result.coverage);
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
    g_task_return_pointer (task, o, outcome_free);
}

static void
record_sample (KsPipeline *self)
{
  KsTimingSample s = { g_get_monotonic_time (), self->outcome->result.kernel_ms, -1,
                       self->outcome->result.warmup,
                       ks_engine_is_cuda (self->outcome->source->engine) };

  g_array_append_val (self->history, s);
  if (self->history->len > KS_PIPELINE_HISTORY)
    g_array_remove_range (self->history, 0, self->history->len - KS_PIPELINE_HISTORY);
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
      report_failure (self, error);
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
  g_clear_pointer (&self->outcome, outcome_free);
  self->outcome = g_steal_pointer (&o);
  record_sample (self);
  notify (self, PROP_RESULT);
  g_signal_emit (self, signals[SIGNAL_RAN], 0);
}

static void submit_user_live (KsPipeline *self);

/* What a plain run's time depends on: the op, the launch that runs, the
 * output's size and the engine (not the parameters' values). */
static char *
config_key (KsPipeline *self, guint width, guint height)
{
  const KsLaunchConfig *l = &self->resolved;

  return g_strdup_printf ("%s %p %ux%u b%ux%ux%u g%ux%ux%u m%u p%u", self->op->id,
                          (gpointer) self->source->engine, width, height, l->block.x, l->block.y,
                          l->block.z, l->grid.x, l->grid.y, l->grid.z, (guint) l->mode,
                          l->pixels_per_thread);
}

static void
submit_live (KsPipeline *self)
{
  g_autoptr (GTask) task = NULL;
  KsLaunchTotals totals;
  LiveJob *job;

  if (self->user_kernel != NULL)
    {
      submit_user_live (self);
      return;
    }
  if (self->source->buffers[KS_INPUT_A] == NULL || !self->valid)
    return;  /* an invalid launch runs nothing: the launch panel shows why */
  job = g_new0 (LiveJob, 1);
  job->source = source_ref (self->source);
  job->op = self->op;
  job->params = self->params;
  job->launch = self->launch;
  job->spare = g_steal_pointer (&self->spare);
  output_size (self, &job->out_width, &job->out_height);
  ks_launch_totals (&self->resolved, job->out_width, job->out_height, &totals);
  job->poison = totals.unreached_pixels > 0 && self->op->output_kind == KS_OP_OUTPUT_IMAGE;
  job->instrument = self->instrumented && self->op->output_kind == KS_OP_OUTPUT_IMAGE;
  job->shareable = self->shareable_outputs;
  job->key = config_key (self, job->out_width, job->out_height);
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
ks_pipeline_queue_run (KsPipeline *self)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  /* Setters called together (a preset sets three values) make one run. */
  if (self->run_source == 0)
    self->run_source = g_idle_add_full (G_PRIORITY_HIGH_IDLE, run_idle_cb, self, NULL);
}

/* ---- the user's kernel ------------------------------------------------------------------- */

#define NEEDS_GPU_MESSAGE \
  _("Running your own kernel needs an NVIDIA GPU; compiling and checking work here.")

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
  source_unref (job->source);
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

  if (ks_user_kernel_prepare (job->worker, engine, &request, &job->resolved, &compiled,
                              &job->attributes, &job->suggestion, cancellable, &local))
    job->checked = TRUE;
  else if (g_error_matches (local, KS_ERROR, KS_ERROR_LAUNCH_CONFIG)
           || ks_engine_is_cuda (engine))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }

  if (!ks_engine_is_cuda (engine))
    {
      /* Said here rather than left to the worker: the words are the window's,
       * and the check above already told the user what it could. */
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE, NEEDS_GPU_MESSAGE);
      return NULL;
    }

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
      if (error != NULL && *error != NULL
          && ((*error)->domain == KS_ERROR && ((*error)->code == KS_ERROR_KERNEL_FAULT
                                               || (*error)->code == KS_ERROR_TIMED_OUT
                                               || (*error)->code == KS_ERROR_WORKER)))
        job->restarted = ks_worker_start (job->worker, NULL, NULL);
      return NULL;
    }
  job->ran = TRUE;

  o = g_new0 (Outcome, 1);
  o->source = source_ref (job->source);
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
  if (!run_histogram (engine, o->result.output, o->histogram, error))
    return NULL;
  o->coverage_mask = coverage_mask (o->result.coverage);
  o->plain_ms = -1;
  if (job->instrumented)
    o->ownership = pack_ownership (o->result.coverage);
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
    g_task_return_pointer (task, o, outcome_free);
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
    notify (self, PROP_VALID);
  if (g_strcmp0 (old_message, self->validation_message) != 0)
    notify (self, PROP_VALIDATION_MESSAGE);
  /* The launch panel shows the message and the fix; the window shows no
   * toast for an invalid launch. */
  if (was_valid != self->valid || job->checked)
    g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
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
      g_clear_pointer (&self->outcome, outcome_free);
      self->outcome = g_steal_pointer (&o);
      record_sample (self);
      notify (self, PROP_RESULT);
      g_signal_emit (self, signals[SIGNAL_RAN], 0);
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
  g_signal_emit (self, signals[SIGNAL_USER_RUN], 0, &report);
}

static void
submit_user_live (KsPipeline *self)
{
  g_autoptr (GTask) task = NULL;
  UserJob *job;

  if (self->source->buffers[KS_INPUT_A] == NULL)
    return;
  job = g_new0 (UserJob, 1);
  job->source = source_ref (self->source);
  job->worker = g_object_ref (ks_pipeline_get_worker (self));
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
ks_pipeline_get_worker (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
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
  notify (self, PROP_USER_KERNEL);
  config_changed (self);
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

/* ---- Measure and Compare ------------------------------------------------------------------ */

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
  source_unref (job->source);
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
    notify (self, PROP_BUSY);
  if (self->progress != 0)
    {
      self->progress = 0;
      notify (self, PROP_PROGRESS);
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
      notify (self, PROP_PROGRESS);
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
  second = second_input_for (job->source);
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
        report_failure (self, error);
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
  job->source = source_ref (self->source);
  build_request (self, job->source, &job->request);
  job->repeats = MAX (1, repeats);
  job->runs_total = (job->repeats + 1) * (compare ? 2 : 1);
  /* The outer task owns the job, so that finish can read the timings. */
  g_task_set_task_data (outer, job, measure_job_free);
  set_busy (self, TRUE);
  queue_inner (self, outer, job, NULL, compare ? compare_thread : measure_thread,
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

gboolean
ks_pipeline_is_idle (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  return self->n_tasks == 0 && self->run_source == 0;
}

gboolean
ks_pipeline_get_busy (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  return self->n_long > 0;
}

double
ks_pipeline_get_progress (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), 0);
  return self->progress;
}

/* ---- export ------------------------------------------------------------------------------- */

char *
ks_pipeline_export_timings (KsPipeline *self, gboolean json)
{
  KsImage *a;
  KsTimingExport data = { 0 };

  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  a = self->source->inputs[KS_INPUT_A];
  data.device_name = ks_device_get_name (self->source->device);
  data.cuda = ks_engine_is_cuda (self->source->engine);
  data.op_id = self->op->id;
  data.width = a != NULL ? a->width : 0;
  data.height = a != NULL ? a->height : 0;
  data.history = self->history;
  return json ? ks_timing_export_json (&data) : ks_timing_export_csv (&data);
}
