/* The published run as the views and the window read it: the output, its
 * coverage and histograms, what instrumenting cost, saving the output, the
 * stage times and timing history, and the history exported as CSV or JSON.
 * (The "result" property's getter is ks-pipeline.c's.) */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-pipeline-private.h"
#include "ks-timing-export.h"

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

const guint32 *
ks_pipeline_get_ownership (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->outcome != NULL ? self->outcome->ownership : NULL;
}

const char *
ks_pipeline_get_shareable_refused (KsPipeline *self)
{
  g_return_val_if_fail (KS_IS_PIPELINE (self), NULL);
  return self->shareable_outputs ? self->shareable_refused : NULL;
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
  _ks_pipeline_output_size (self, &w, &h);
  key = _ks_pipeline_config_key (self, w, h);
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
      _ks_pipeline_notify (self, PROP_DISPLAY_PATH);
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
