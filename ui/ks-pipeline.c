#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-pipeline.h"

/* Unwritten pixels read as transparent black, so the view's checkerboard and
 * coverage hatching show through where a grid was too small. */
#define POISON 0x00

struct _KsPipeline
{
  GObject parent_instance;

  /* owned */
  GListStore *devices;
  KsDevice *device;
  KsEngine *engine;
  char *cpu_reason;
  KsImage *inputs[2];
  char *names[2];
  KsBuffer *buffers[2];
  KsRunResult result;
  char *validation_message;
  char *display_path;
  GArray *history;          /* KsTimingSample */
  GArray *display_times;    /* gint64: when frames reached the screen, for the frame rate */

  /* state */
  const KsOp *op;
  KsParams params;
  KsLaunchConfig launch;
  KsLaunchConfig resolved;
  KsLaunchConfig suggestion;
  gboolean valid;
  gboolean have_occupancy;
  KsOccupancy occupancy;
  KsKernelAttributes attributes;
  gboolean have_result;
  guint32 input_histogram[4][256];
  guint32 output_histogram[4][256];
  double upload_ms;
  double display_ms;
  guint run_source;
};

G_DEFINE_FINAL_TYPE (KsPipeline, ks_pipeline, G_TYPE_OBJECT)

enum
{
  SIGNAL_RAN,
  SIGNAL_CONFIG_CHANGED,
  SIGNAL_INPUTS_CHANGED,
  SIGNAL_RUN_FAILED,
  SIGNAL_DEVICE_LOST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
ks_pipeline_dispose (GObject *object)
{
  KsPipeline *self = KS_PIPELINE (object);

  g_clear_handle_id (&self->run_source, g_source_remove);
  ks_run_result_clear (&self->result);
  for (guint i = 0; i < 2; i++)
    g_clear_pointer (&self->buffers[i], ks_buffer_unref);
  g_clear_object (&self->engine);
  g_clear_object (&self->device);
  g_clear_object (&self->devices);
  G_OBJECT_CLASS (ks_pipeline_parent_class)->dispose (object);
}

static void
ks_pipeline_finalize (GObject *object)
{
  KsPipeline *self = KS_PIPELINE (object);

  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&self->inputs[i], ks_image_unref);
      g_free (self->names[i]);
    }
  g_free (self->cpu_reason);
  g_free (self->validation_message);
  g_free (self->display_path);
  g_array_unref (self->history);
  g_array_unref (self->display_times);
  G_OBJECT_CLASS (ks_pipeline_parent_class)->finalize (object);
}

static void
ks_pipeline_class_init (KsPipelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_pipeline_dispose;
  object_class->finalize = ks_pipeline_finalize;

  signals[SIGNAL_RAN] = g_signal_new ("ran", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                      NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_CONFIG_CHANGED] = g_signal_new ("config-changed", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 0);
  signals[SIGNAL_INPUTS_CHANGED] = g_signal_new ("inputs-changed", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 0);
  signals[SIGNAL_RUN_FAILED] = g_signal_new ("run-failed", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[SIGNAL_DEVICE_LOST] = g_signal_new ("device-lost", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
ks_pipeline_init (KsPipeline *self)
{
  self->devices = g_list_store_new (KS_TYPE_DEVICE);
  self->history = g_array_new (FALSE, TRUE, sizeof (KsTimingSample));
  self->display_times = g_array_new (FALSE, TRUE, sizeof (gint64));
  self->upload_ms = -1;
  self->display_ms = -1;
  self->op = ks_op_registry_lookup ("invert");
  ks_params_init (&self->params, self->op);
  self->launch = self->op->default_launch;
  self->valid = TRUE;
}

static gboolean
open_engine (KsPipeline *self, KsDevice *device, GError **error)
{
  g_autoptr (KsEngine) engine = ks_engine_new (device, error);

  if (engine == NULL)
    return FALSE;
  ks_run_result_clear (&self->result);
  self->have_result = FALSE;
  for (guint i = 0; i < 2; i++)
    g_clear_pointer (&self->buffers[i], ks_buffer_unref);
  g_set_object (&self->device, device);
  g_set_object (&self->engine, engine);
  return TRUE;
}

KsPipeline *
ks_pipeline_new (void)
{
  KsPipeline *self = g_object_new (KS_TYPE_PIPELINE, NULL);
  g_autoptr (GPtrArray) devices = ks_devices_enumerate ();
  g_autoptr (GError) error = NULL;
  gboolean opened = FALSE;

  for (guint i = 0; i < devices->len; i++)
    g_list_store_append (self->devices, g_ptr_array_index (devices, i));

  if (ks_cuda_available (&error))
    {
      g_autoptr (KsDevice) gpu = ks_device_get_cuda (0, &error);
      opened = gpu != NULL && open_engine (self, gpu, &error);
    }
  if (!opened)
    {
      g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
      self->cpu_reason = g_strdup (error != NULL ? error->message : "");
      /* The CPU engine cannot fail to open. */
      if (!open_engine (self, cpu, NULL))
        g_warning ("The CPU engine could not start");
    }
  return self;
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
  return self->device;
}

KsEngine *
ks_pipeline_get_engine (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->engine;
}

const char *
ks_pipeline_get_cpu_reason (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  if (self->engine != NULL && ks_engine_is_cuda (self->engine))
    return NULL;
  return self->cpu_reason != NULL && *self->cpu_reason ? self->cpu_reason : NULL;
}

static gboolean upload_inputs (KsPipeline *self, GError **error);
static void revalidate (KsPipeline *self);
static gboolean compute_input_histogram (KsPipeline *self, GError **error);

gboolean
ks_pipeline_set_device (KsPipeline *self, KsDevice *device, GError **error)
{
  g_autoptr (KsDevice) previous = NULL;

  g_return_val_if_fail (KS_IS_PIPELINE (self) && KS_IS_DEVICE (device), FALSE);
  if (device == self->device)
    return TRUE;
  previous = g_object_ref (self->device);
  if (!open_engine (self, device, error))
    return FALSE;
  if (!upload_inputs (self, error))
    {
      /* Keep working on the previous device rather than on none. */
      open_engine (self, previous, NULL);
      upload_inputs (self, NULL);
      return FALSE;
    }
  if (ks_device_get_kind (device) == KS_DEVICE_KIND_CPU && self->cpu_reason == NULL)
    self->cpu_reason = g_strdup ("");
  compute_input_histogram (self, NULL);
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_INPUTS_CHANGED], 0);
  ks_pipeline_queue_run (self);
  return TRUE;
}

/* ---- inputs ------------------------------------------------------------- */

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
second_input_for (KsPipeline *self)
{
  KsImage *a = self->inputs[KS_INPUT_A], *b = self->inputs[KS_INPUT_B];

  if (b == NULL)
    return ks_image_new_test_card (a->width, a->height, NULL);
  if (b->width == a->width && b->height == a->height)
    return ks_image_ref (b);
  return resample (b, a->width, a->height);
}

static gboolean
upload_inputs (KsPipeline *self, GError **error)
{
  KsBuffer *fresh[2] = { NULL, NULL };
  g_autoptr (KsImage) b = NULL;
  double ms = 0;

  if (self->inputs[KS_INPUT_A] == NULL)
    return TRUE;
  fresh[0] = ks_engine_upload (self->engine, self->inputs[KS_INPUT_A], &ms, error);
  if (fresh[0] == NULL)
    return FALSE;
  self->upload_ms = ms;
  b = second_input_for (self);
  if (b == NULL)
    {
      ks_buffer_unref (fresh[0]);
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory for the second image");
      return FALSE;
    }
  fresh[1] = ks_engine_upload (self->engine, b, &ms, error);
  if (fresh[1] == NULL)
    {
      ks_buffer_unref (fresh[0]);
      return FALSE;
    }
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&self->buffers[i], ks_buffer_unref);
      self->buffers[i] = fresh[i];
    }
  return TRUE;
}

static gboolean
run_histogram (KsPipeline *self, KsBuffer *buffer, guint32 out[4][256], GError **error)
{
  const KsOp *op = ks_op_registry_lookup ("histogram");
  KsRunRequest request;
  KsRunResult result = { 0 };

  ks_run_request_init (&request, op);
  request.inputs[0] = buffer;
  if (!ks_engine_run (self->engine, &request, &result, error))
    return FALSE;
  memcpy (out, result.histogram, sizeof result.histogram);
  ks_run_result_clear (&result);
  return TRUE;
}

static gboolean
compute_input_histogram (KsPipeline *self, GError **error)
{
  memset (self->input_histogram, 0, sizeof self->input_histogram);
  if (self->buffers[KS_INPUT_A] == NULL)
    return TRUE;
  return run_histogram (self, self->buffers[KS_INPUT_A], self->input_histogram, error);
}

gboolean
ks_pipeline_set_input (KsPipeline *self, KsInputSlot slot, KsImage *image, const char *name,
                       GError **error)
{
  KsImage *old_image;
  char *old_name;

  g_return_val_if_fail (KS_IS_PIPELINE (self) && image != NULL && slot <= KS_INPUT_B, FALSE);
  if (image->format != KS_FORMAT_RGBA8)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "Inputs are colour images");
      return FALSE;
    }
  old_image = self->inputs[slot];
  old_name = self->names[slot];
  self->inputs[slot] = ks_image_ref (image);
  self->names[slot] = g_strdup (name != NULL ? name : "Untitled");
  if (!upload_inputs (self, error))
    {
      /* The user keeps what was there. */
      ks_image_unref (self->inputs[slot]);
      g_free (self->names[slot]);
      self->inputs[slot] = old_image;
      self->names[slot] = old_name;
      return FALSE;
    }
  if (old_image != NULL)
    ks_image_unref (old_image);
  g_free (old_name);
  if (slot == KS_INPUT_A)
    {
      /* A new size: the previous output no longer fits. */
      ks_run_result_clear (&self->result);
      self->have_result = FALSE;
      compute_input_histogram (self, NULL);
    }
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_INPUTS_CHANGED], 0);
  ks_pipeline_queue_run (self);
  return TRUE;
}

KsImage *
ks_pipeline_get_input (KsPipeline *self, KsInputSlot slot)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && slot <= KS_INPUT_B, NULL);
  return self->inputs[slot];
}

KsBuffer *
ks_pipeline_get_input_buffer (KsPipeline *self, KsInputSlot slot)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && slot <= KS_INPUT_B, NULL);
  return self->buffers[slot];
}

const char *
ks_pipeline_get_input_name (KsPipeline *self, KsInputSlot slot)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && slot <= KS_INPUT_B, NULL);
  if (slot == KS_INPUT_B && self->names[slot] == NULL)
    return "Test card";
  return self->names[slot];
}

/* ---- op, parameters, launch ---------------------------------------------- */

static void
build_request (KsPipeline *self, KsRunRequest *request)
{
  ks_run_request_init (request, self->op);
  request->params = self->params;
  request->launch = self->launch;
  for (guint i = 0; i < self->op->n_inputs; i++)
    request->inputs[i] = self->buffers[i];
}

static void
revalidate (KsPipeline *self)
{
  KsRunRequest request;
  g_autoptr (GError) error = NULL;

  g_clear_pointer (&self->validation_message, g_free);
  self->have_occupancy = FALSE;
  self->valid = TRUE;
  if (self->buffers[KS_INPUT_A] == NULL)
    return;
  build_request (self, &request);
  self->valid = ks_engine_validate (self->engine, &request, &self->resolved, &self->suggestion,
                                    &error);
  if (!self->valid)
    {
      self->validation_message = g_strdup (error->message);
      return;
    }
  if (ks_engine_is_cuda (self->engine)
      && ks_engine_kernel_attributes (self->engine, &request, &self->attributes, NULL))
    {
      ks_launch_occupancy (&self->resolved, ks_device_get_limits (self->device), &self->attributes,
                           &self->occupancy);
      self->have_occupancy = TRUE;
    }
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
  /* The output changes kind or format: the old one cannot be reused. */
  ks_run_result_clear (&self->result);
  self->have_result = FALSE;
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  ks_pipeline_queue_run (self);
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
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  ks_pipeline_queue_run (self);
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
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  ks_pipeline_queue_run (self);
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
  KsImage *a = self->inputs[KS_INPUT_A];

  ks_op_output_size (self->op, &self->params, a->width, a->height, width, height);
}

void
ks_pipeline_get_totals (KsPipeline *self, KsLaunchTotals *totals)
{
  guint w, h;

  g_return_if_fail (KS_IS_PIPELINE (self) && totals != NULL);
  memset (totals, 0, sizeof *totals);
  if (self->inputs[KS_INPUT_A] == NULL)
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
  return self->have_result ? &self->result : NULL;
}

const KsCoverage *
ks_pipeline_get_coverage (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->have_result ? self->result.coverage : NULL;
}

KsImage *
ks_pipeline_download_output (KsPipeline *self, GError **error)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  if (!self->have_result || self->result.output == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "There is no output image: run an image operation first");
      return NULL;
    }
  return ks_engine_download (self->engine, self->result.output, NULL, error);
}

gboolean
ks_pipeline_read_output_pixel (KsPipeline *self, guint x, guint y, guint32 *rgba)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self) && rgba != NULL, FALSE);
  if (!self->have_result || self->result.output == NULL)
    return FALSE;
  return ks_engine_read_pixel (self->engine, self->result.output, x, y, rgba, NULL);
}

const guint32 *
ks_pipeline_get_input_histogram (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->input_histogram[0][0];
}

const guint32 *
ks_pipeline_get_output_histogram (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return &self->output_histogram[0][0];
}

void
ks_pipeline_get_stage_times (KsPipeline *self, KsStageTimes *times, double *display_ms)
{
  g_return_if_fail (KS_IS_PIPELINE (self) && times != NULL);
  times->upload_ms = self->upload_ms;
  times->kernel_ms = self->have_result ? self->result.kernel_ms : -1;
  times->download_ms = -1;
  if (display_ms != NULL)
    *display_ms = self->display_ms;
}

void
ks_pipeline_report_display (KsPipeline *self, double display_ms, const char *path)
{
  gint64 now = g_get_monotonic_time ();

  g_return_if_fail (KS_IS_PIPELINE (self));
  self->display_ms = display_ms;
  if (g_strcmp0 (path, self->display_path) != 0)
    {
      g_free (self->display_path);
      self->display_path = g_strdup (path);
    }
  if (self->history->len > 0)
    g_array_index (self->history, KsTimingSample, self->history->len - 1).display_ms = display_ms;
  g_array_append_val (self->display_times, now);
  /* One second of frames is enough for the rate. */
  while (self->display_times->len > 0 && g_array_index (self->display_times, gint64, 0) < now - G_USEC_PER_SEC)
    g_array_remove_index (self->display_times, 0);
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
  return self->display_times->len;
}

double
ks_pipeline_get_achieved_gbs (KsPipeline *self)
{
  KsImage *a;

  g_return_val_if_fail (KS_IS_PIPELINE (self), 0);
  a = self->inputs[KS_INPUT_A];
  if (!self->have_result || a == NULL || self->result.kernel_ms <= 0)
    return 0;
  return ks_op_bytes_moved_for (self->op, &self->params, a->format, a->width, a->height)
         / (self->result.kernel_ms * 1e-3) / 1e9;
}

/* ---- runs ----------------------------------------------------------------- */

static gboolean
run_idle_cb (gpointer user_data)
{
  KsPipeline *self = user_data;
  g_autoptr (GError) error = NULL;

  self->run_source = 0;
  if (!ks_pipeline_run_now (self, &error))
    g_debug ("run failed: %s", error->message);
  return G_SOURCE_REMOVE;
}

void
ks_pipeline_queue_run (KsPipeline *self)
{
  g_return_if_fail (KS_IS_PIPELINE (self));
  if (self->run_source == 0)
    self->run_source = g_idle_add_full (G_PRIORITY_HIGH_IDLE, run_idle_cb, self, NULL);
}

/* After a sticky CUDA error the process can never use the GPU again: carry on
 * with the CPU engine and the images the user already has. */
static void
fall_back_to_cpu (KsPipeline *self, const GError *cause)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autofree char *reason = g_strdup (cause->message);

  g_free (self->cpu_reason);
  self->cpu_reason = g_strdup (reason);
  if (!open_engine (self, cpu, NULL) || !upload_inputs (self, NULL))
    g_warning ("The CPU engine could not take over: the inputs could not be copied");
  compute_input_histogram (self, NULL);
  revalidate (self);
  g_signal_emit (self, signals[SIGNAL_DEVICE_LOST], 0, reason);
  g_signal_emit (self, signals[SIGNAL_CONFIG_CHANGED], 0);
  g_signal_emit (self, signals[SIGNAL_INPUTS_CHANGED], 0);
  ks_pipeline_queue_run (self);
}

static void
record_sample (KsPipeline *self)
{
  KsTimingSample s = { g_get_monotonic_time (), self->result.kernel_ms, -1, self->result.warmup,
                       ks_engine_is_cuda (self->engine) };

  g_array_append_val (self->history, s);
  if (self->history->len > KS_PIPELINE_HISTORY)
    g_array_remove_range (self->history, 0, self->history->len - KS_PIPELINE_HISTORY);
}

static gboolean
handle_failure (KsPipeline *self, GError *error)
{
  if (g_error_matches (error, KS_ERROR, KS_ERROR_DEVICE_LOST) && ks_engine_is_cuda (self->engine))
    fall_back_to_cpu (self, error);
  else
    g_signal_emit (self, signals[SIGNAL_RUN_FAILED], 0, error);
  return FALSE;
}

gboolean
ks_pipeline_run_now (KsPipeline *self, GError **error)
{
  g_autoptr (GError) local = NULL;
  KsRunRequest request;
  KsRunResult result = { 0 };
  KsLaunchTotals totals;
  KsImage *a;
  guint out_w, out_h;

  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  g_clear_handle_id (&self->run_source, g_source_remove);
  a = self->inputs[KS_INPUT_A];
  if (a == NULL || self->buffers[KS_INPUT_A] == NULL)
    return TRUE;
  revalidate (self);
  if (!self->valid)
    {
      /* Nothing is launched; the launch panel shows why and offers the fix. */
      g_set_error_literal (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG, self->validation_message);
      return FALSE;
    }

  build_request (self, &request);
  output_size (self, &out_w, &out_h);
  ks_launch_totals (&self->resolved, out_w, out_h, &totals);
  /* Reuse the previous output: same op, same size. */
  if (self->have_result && self->result.output != NULL
      && ks_buffer_get_width (self->result.output) == out_w
      && ks_buffer_get_height (self->result.output) == out_h)
    request.output = self->result.output;
  if (totals.unreached_pixels > 0 && self->op->output_kind == KS_OP_OUTPUT_IMAGE)
    {
      /* A grid too small: poison the output so that what no thread wrote
       * shows, and record which pixels those are. */
      if (request.output == NULL)
        {
          request.output = ks_engine_new_buffer (self->engine, self->op->output_format, out_w,
                                                 out_h, &local);
          if (request.output == NULL)
            {
              handle_failure (self, local);
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          ks_run_result_clear (&self->result);
          self->result.output = request.output;
          self->have_result = FALSE;
        }
      if (!ks_engine_fill (self->engine, request.output, POISON, &local))
        {
          handle_failure (self, local);
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      request.instrument = (guint64) out_w * out_h <= 8192u * 8192u;
    }

  if (!ks_engine_run (self->engine, &request, &result, &local))
    {
      ks_run_result_clear (&result);
      handle_failure (self, local);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  ks_run_result_clear (&self->result);
  self->result = result;
  self->have_result = TRUE;

  if (self->op->output_kind == KS_OP_OUTPUT_HISTOGRAM)
    memcpy (self->output_histogram, self->result.histogram, sizeof self->output_histogram);
  else if (!run_histogram (self, self->result.output, self->output_histogram, &local))
    {
      handle_failure (self, local);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  record_sample (self);
  g_signal_emit (self, signals[SIGNAL_RAN], 0);
  return TRUE;
}

gboolean
ks_pipeline_measure (KsPipeline *self, guint repeats, KsTiming *timing, GError **error)
{
  g_autoptr (GError) local = NULL;
  KsRunRequest request;
  KsRunResult result = { 0 };
  KsTimingOptions options;
  gboolean ok;

  g_return_val_if_fail (KS_IS_PIPELINE (self) && timing != NULL, FALSE);
  if (self->buffers[KS_INPUT_A] == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "Open an image first");
      return FALSE;
    }
  build_request (self, &request);
  ks_timing_options_init (&options, repeats);
  ok = ks_engine_measure (self->engine, &request, &options, &result, timing, &local);
  ks_run_result_clear (&result);
  if (!ok)
    {
      handle_failure (self, local);
      g_propagate_error (error, g_steal_pointer (&local));
    }
  return ok;
}

gboolean
ks_pipeline_compare_engines (KsPipeline *self, guint repeats, KsTiming *current, KsTiming *cpu,
                             gboolean *identical, GError **error)
{
  g_autoptr (KsDevice) cpu_device = ks_device_get_cpu ();
  g_autoptr (KsEngine) cpu_engine = NULL;
  g_autoptr (KsImage) second = NULL;
  g_autoptr (KsImage) out_current = NULL;
  g_autoptr (KsImage) out_cpu = NULL;
  KsImage *inputs[2] = { NULL, NULL };
  KsRunRequest request;
  KsRunResult r_current = { 0 }, r_cpu = { 0 };
  KsTimingOptions options;
  gboolean ok = FALSE;

  g_return_val_if_fail (KS_IS_PIPELINE (self), FALSE);
  if (self->inputs[KS_INPUT_A] == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "Open an image first");
      return FALSE;
    }
  cpu_engine = ks_engine_new (cpu_device, error);
  if (cpu_engine == NULL)
    return FALSE;
  inputs[0] = self->inputs[KS_INPUT_A];
  second = second_input_for (self);
  inputs[1] = second;

  build_request (self, &request);
  ks_timing_options_init (&options, repeats);
  if (!ks_engine_measure (self->engine, &request, &options, &r_current, current, error))
    goto out;
  request.inputs[0] = request.inputs[1] = NULL;
  if (!ks_engine_process (cpu_engine, &request, inputs, &options, &out_cpu, &r_cpu, NULL, cpu,
                          error))
    goto out;
  if (r_current.output != NULL)
    {
      out_current = ks_engine_download (self->engine, r_current.output, NULL, error);
      if (out_current == NULL)
        goto out;
      *identical = ks_image_equal (out_current, out_cpu);
    }
  else
    *identical = memcmp (r_current.histogram, r_cpu.histogram, sizeof r_cpu.histogram) == 0;
  ok = TRUE;
out:
  ks_run_result_clear (&r_current);
  ks_run_result_clear (&r_cpu);
  return ok;
}

char *
ks_pipeline_export_timings (KsPipeline *self, gboolean json)
{
  GString *s = g_string_new (NULL);
  gint64 t0;
  char num[3][G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  t0 = self->history->len > 0 ? g_array_index (self->history, KsTimingSample, 0).time_us : 0;
  if (json)
    {
      KsImage *a = self->inputs[KS_INPUT_A];
      g_autofree char *device = g_strescape (ks_device_get_name (self->device), NULL);
      g_string_append_printf (s, "{\n  \"device\": \"%s\",\n  \"engine\": \"%s\",\n"
                                 "  \"op\": \"%s\",\n",
                              device, ks_engine_is_cuda (self->engine) ? "cuda" : "cpu",
                              self->op->id);
      if (a != NULL)
        g_string_append_printf (s, "  \"width\": %u,\n  \"height\": %u,\n", a->width, a->height);
      g_string_append (s, "  \"samples\": [");
    }
  else
    g_string_append (s, "time_s,kernel_ms,display_ms,warmup,engine\n");
  for (guint i = 0; i < self->history->len; i++)
    {
      const KsTimingSample *t = &g_array_index (self->history, KsTimingSample, i);
      g_ascii_formatd (num[0], sizeof num[0], "%.6f", (t->time_us - t0) / 1e6);
      g_ascii_formatd (num[1], sizeof num[1], "%.6f", t->kernel_ms);
      g_ascii_formatd (num[2], sizeof num[2], "%.6f", t->display_ms);
      if (json)
        g_string_append_printf (s, "%s\n    {\"time_s\": %s, \"kernel_ms\": %s, "
                                   "\"display_ms\": %s, \"warmup\": %s, \"engine\": \"%s\"}",
                                i ? "," : "", num[0], num[1],
                                t->display_ms < 0 ? "null" : num[2],
                                t->warmup ? "true" : "false", t->cuda ? "cuda" : "cpu");
      else
        g_string_append_printf (s, "%s,%s,%s,%d,%s\n", num[0], num[1],
                                t->display_ms < 0 ? "" : num[2], t->warmup,
                                t->cuda ? "cuda" : "cpu");
    }
  if (json)
    g_string_append (s, "\n  ]\n}\n");
  return g_string_free (s, FALSE);
}
