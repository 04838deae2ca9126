/* The model behind the window (ks-pipeline.h): the GObject with its
 * properties and signals, the first engine, the inputs, op, parameters and
 * launch with their setters, and the state the window binds to. A setter
 * changes the model and queues a run; the runs are ks-pipeline-run.c's, whose
 * public entry points check their arguments here. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-op-registry.h"
#include "ks-pipeline-private.h"

G_DEFINE_FINAL_TYPE (KsPipeline, ks_pipeline, G_TYPE_OBJECT)

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
  g_clear_pointer (&self->outcome, _ks_pipeline_outcome_free);
  g_clear_pointer (&self->spare, ks_buffer_unref);
  g_clear_pointer (&self->source, _ks_pipeline_source_unref);
  g_clear_pointer (&self->worker_source, _ks_pipeline_source_unref);
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
  /* The tables are ks-pipeline-publish.c's, below every file that notifies. */
  GParamSpec **properties = _ks_pipeline_properties;
  guint *signals = _ks_pipeline_signals;

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
  self->source = _ks_pipeline_source_new (device, engine);
  self->worker_source = _ks_pipeline_source_ref (self->source);
  _ks_pipeline_revalidate (self);
  return self;
}

KsRunner *
ks_pipeline_get_runner (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->runner;
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

void
ks_pipeline_set_device_async (KsPipeline *self, KsDevice *device, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && KS_IS_DEVICE (device));
  _ks_pipeline_set_device_async (self, device, cancellable, callback, user_data);
}

/* ---- inputs ------------------------------------------------------------- */

void
ks_pipeline_set_input_async (KsPipeline *self, KsInputSlot slot, KsImage *image,
                             const char *name, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && image != NULL && slot <= KS_INPUT_B);
  _ks_pipeline_set_input_async (self, slot, image, name, cancellable, callback, user_data);
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

void
_ks_pipeline_config_changed (KsPipeline *self)
{
  _ks_pipeline_revalidate (self);
  g_signal_emit (self, _ks_pipeline_signals[SIGNAL_CONFIG_CHANGED], 0);
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
  _ks_pipeline_notify (self, PROP_OP);
  _ks_pipeline_config_changed (self);
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
  _ks_pipeline_config_changed (self);
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
  _ks_pipeline_config_changed (self);
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

void
ks_pipeline_get_totals (KsPipeline *self, KsLaunchTotals *totals)
{
  guint w, h;

  g_return_if_fail (KS_IS_PIPELINE (self) && totals != NULL);
  memset (totals, 0, sizeof *totals);
  if (self->source->inputs[KS_INPUT_A] == NULL)
    return;
  _ks_pipeline_output_size (self, &w, &h);
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

/* ---- the result, and what the views ask of the runs ------------------------- */

/* The "result" property's; the other results are ks-pipeline-results.c's. */
const KsRunResult *
ks_pipeline_get_result (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? &self->outcome->result : NULL;
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

void
ks_pipeline_set_instrumented (KsPipeline *self, gboolean instrumented)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  instrumented = !!instrumented;
  if (self->instrumented == instrumented)
    return;
  self->instrumented = instrumented;
  _ks_pipeline_notify (self, PROP_INSTRUMENTED);
  ks_pipeline_queue_run (self);
}

gboolean
ks_pipeline_get_instrumented (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  return self->instrumented;
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
  _ks_pipeline_notify (self, PROP_FPS);
}

/* ---- runs ----------------------------------------------------------------- */

void
ks_pipeline_queue_run (KsPipeline *self)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  _ks_pipeline_queue_run (self);
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
