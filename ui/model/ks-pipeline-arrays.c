/* An "any" kernel (the kernel panel's, on the array view's arrays) run on
 * the pipeline's runner like its other tasks: the array-run service
 * (ks-array-run.c) validates the launch with the current device's limits
 * and the kernel's attributes, then runs it in the pipeline's worker. Part
 * of the public API, beside ks-pipeline-kernel.c. */
#include "config.h"

#include <string.h>

#include "ks-pipeline-private.h"

typedef struct
{
  Source *source;
  KsWorker *worker;
  KsKernelSource *kernel;
  GPtrArray *bindings;
  GPtrArray *arrays;
  KsLaunchConfig launch;
  KsArrayRunResult result;      /* filled on the runner */
} ArraysJob;

static void
arrays_job_free (gpointer data)
{
  ArraysJob *job = data;

  ks_array_run_result_clear (&job->result);
  g_ptr_array_unref (job->arrays);
  g_ptr_array_unref (job->bindings);
  ks_kernel_source_unref (job->kernel);
  g_object_unref (job->worker);
  _ks_pipeline_source_unref (job->source);
  g_free (job);
}

static void
arrays_thread (GTask *task, gpointer source_object, gpointer task_data,
               GCancellable *cancellable)
{
  ArraysJob *job = task_data;
  KsArrayRunRequest request;
  GError *error = NULL;

  ks_array_run_request_init (&request, job->kernel);
  request.bindings = job->bindings;
  request.arrays = job->arrays;
  request.launch = job->launch;
  if (ks_array_kernel_run (job->worker, ks_device_get_limits (job->source->device), &request,
                           &job->result, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_arrays_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) outer = user_data;
  KsPipeline *self = g_task_get_source_object (outer);
  GError *error = NULL;

  self->n_tasks--;
  if (g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
}

void
ks_pipeline_run_arrays_async (KsPipeline *self, KsKernelSource *source, GPtrArray *bindings,
                              GPtrArray *arrays, const KsLaunchConfig *launch,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  ArraysJob *job;

  g_return_if_fail (KS_IS_PIPELINE (self));
  g_return_if_fail (source != NULL && bindings != NULL && arrays != NULL && launch != NULL);

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ks_pipeline_run_arrays_async);
  g_task_set_check_cancellable (outer, FALSE);
  job = g_new0 (ArraysJob, 1);
  job->source = _ks_pipeline_source_ref (self->source);
  job->worker = g_object_ref (_ks_pipeline_get_worker (self));
  job->kernel = ks_kernel_source_ref (source);
  job->bindings = g_ptr_array_ref (bindings);
  job->arrays = g_ptr_array_ref (arrays);
  job->launch = *launch;
  job->result.launch = *launch;
  /* The outer task owns the job, so that its result outlives the runner's
   * task for the finish function, a failed run's included. */
  g_task_set_task_data (outer, job, arrays_job_free);
  _ks_pipeline_queue_inner (self, outer, job, NULL, arrays_thread, on_arrays_done_cb);
}

gboolean
ks_pipeline_run_arrays_finish (KsPipeline *self, GAsyncResult *result, KsArrayRunResult *out,
                               GError **error)
{
  ArraysJob *job;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ks_pipeline_run_arrays_async,
                        FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  job = g_task_get_task_data (G_TASK (result));
  *out = job->result;
  memset (&job->result, 0, sizeof job->result);
  return g_task_propagate_boolean (G_TASK (result), error);
}
