#include "config.h"

#include <string.h>

#if HAVE_CUDA
# include <cuda_runtime_api.h>
#endif

#include "ks-engine-private.h"
#include "ks-error.h"
#include "ks-user-run.h"

void
ks_user_run_request_init (KsUserRunRequest *request, KsKernelSource *source)
{
  const KsParamSpec *specs;
  guint n_params = 0;

  g_return_if_fail (request != NULL);
  g_return_if_fail (source != NULL);

  memset (request, 0, sizeof *request);
  request->source = source;
  specs = ks_kernel_source_get_params (source, &n_params);
  for (guint i = 0; i < n_params && i < KS_OP_MAX_PARAMS; i++)
    request->params.values[i] = specs[i].default_value;
  ks_kernel_source_get_default_launch (source, &request->launch);
  request->repeats = 1;
}

void
ks_user_run_result_clear (KsUserRunResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->output, ks_buffer_unref);
  g_clear_pointer (&result->coverage, ks_coverage_free);
  g_clear_pointer (&result->compiled, ks_compile_result_free);
  ks_worker_run_result_clear (&result->run);
  memset (result, 0, sizeof *result);
}

/* The inputs a request has, checked against what the source declares. */
static gboolean
check_inputs (const KsUserRunRequest *request, guint *width, guint *height, GError **error)
{
  KsKernelMode mode = ks_kernel_source_get_mode (request->source);
  guint n_inputs = ks_kernel_source_get_n_inputs (request->source);

  if (mode == KS_KERNEL_MODE_ANY)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "This kernel takes arrays, not images: bind its arguments and run "
                           "it on them");
      return FALSE;
    }
  for (guint i = 0; i < n_inputs; i++)
    {
      KsBuffer *in = request->inputs[i];

      if (in == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "This kernel reads %u input images; input %u is missing", n_inputs,
                       i + 1);
          return FALSE;
        }
      if (ks_buffer_get_format (in) != KS_FORMAT_RGBA8)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "Your own kernels read RGBA images; input %u is %s", i + 1,
                       ks_format_name (ks_buffer_get_format (in)));
          return FALSE;
        }
      if (i > 0 && (ks_buffer_get_width (in) != *width || ks_buffer_get_height (in) != *height))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "Both inputs must have the same size: %u×%u and %u×%u", *width, *height,
                       ks_buffer_get_width (in), ks_buffer_get_height (in));
          return FALSE;
        }
      *width = ks_buffer_get_width (in);
      *height = ks_buffer_get_height (in);
    }
  return TRUE;
}

gboolean
ks_user_kernel_prepare (KsWorker *worker, KsEngine *engine, const KsUserRunRequest *request,
                        KsLaunchConfig *resolved, KsCompileResult **compiled,
                        KsKernelAttributes *attributes, KsLaunchConfig *suggestion,
                        GCancellable *cancellable, GError **error)
{
  const KsDeviceLimits *limits;
  g_autoptr (KsCompileResult) result = NULL;
  KsKernelAttributes attrs;
  KsLaunchConfig launch;
  guint width = 0, height = 0;

  g_return_val_if_fail (KS_IS_WORKER (worker), FALSE);
  g_return_val_if_fail (KS_IS_ENGINE (engine), FALSE);
  g_return_val_if_fail (request != NULL && request->source != NULL, FALSE);
  g_return_val_if_fail (resolved != NULL && compiled != NULL, FALSE);

  if (!check_inputs (request, &width, &height, error))
    return FALSE;

  limits = ks_device_get_limits (ks_engine_get_device (engine));
  launch = request->launch;
  /* An image kernel decides for itself which pixels a thread writes: its
   * automatic grid is one thread per pixel. */
  if (ks_kernel_source_get_mode (request->source) == KS_KERNEL_MODE_IMAGE)
    launch.pixels_per_thread = 1;
  ks_launch_config_resolve (&launch, width, height, 1, limits);

  result = ks_worker_compile (worker, request->source, &launch, request->instrument,
                              cancellable, error);
  if (result == NULL)
    return FALSE;
  if (!result->success)
    {
      const KsDiagnostic *first = NULL;
      g_autofree char *where = NULL;

      for (guint i = 0; result->diagnostics != NULL && i < result->diagnostics->len; i++)
        {
          const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

          if (d->severity == KS_DIAGNOSTIC_ERROR)
            {
              first = d;
              break;
            }
        }
      where = first != NULL ? ks_diagnostic_format (first) : NULL;
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE, "The kernel does not compile: %s",
                   where != NULL ? where : "the compiler gave no reason");
      *compiled = g_steal_pointer (&result);
      return FALSE;
    }

  if (!ks_worker_kernel_attributes (worker, result, 0,
                                    ks_kernel_source_get_dynamic_shared (request->source),
                                    &attrs, error))
    return FALSE;
  ks_launch_config_fit_occupancy (&launch, width, height, limits, &attrs);
  if (!ks_launch_config_validate (&launch, width, height, limits, &attrs, suggestion, error))
    {
      *compiled = g_steal_pointer (&result);
      return FALSE;
    }

  *resolved = launch;
  if (attributes != NULL)
    *attributes = attrs;
  *compiled = g_steal_pointer (&result);
  return TRUE;
}

/* The coverage buffers of an instrumented run: on a CUDA engine device
 * memory the worker writes through IPC, one allocation each, since a shared
 * pointer must be the start of its allocation; on the CPU engine host
 * memory the emulator writes in place. */
typedef struct
{
  gboolean device;
  void *ptr[4]; /* writes, owner_block, owner_thread, idle_threads */
  gsize size[4];
} UserCoverage;

static void
user_coverage_free (UserCoverage *c)
{
  if (!c->device)
    {
      for (guint i = 0; i < 4; i++)
        g_free (c->ptr[i]);
      return;
    }
#if HAVE_CUDA
  if (ks_cuda_lost_reason () != NULL)
    return;
  for (guint i = 0; i < 4; i++)
    if (c->ptr[i] != NULL)
      cudaFree (c->ptr[i]);
  (void) cudaGetLastError ();
#endif
}

static gboolean
user_coverage_alloc (UserCoverage *c, gboolean device, gsize n, gpointer stream, GError **error)
{
  memset (c, 0, sizeof *c);
  c->device = device;
  c->size[0] = c->size[1] = c->size[2] = n * sizeof (guint32);
  c->size[3] = sizeof (unsigned long long);
  if (!device)
    {
      for (guint i = 0; i < 4; i++)
        c->ptr[i] = g_malloc0 (c->size[i]);
      return TRUE;
    }
#if HAVE_CUDA
  for (guint i = 0; i < 4; i++)
    if (!_ks_cuda_check ((int) cudaMalloc (&c->ptr[i], c->size[i]), "cudaMalloc", error)
        || !_ks_cuda_check ((int) cudaMemsetAsync (c->ptr[i], 0, c->size[i],
                                                   (cudaStream_t) stream),
                            "cudaMemsetAsync", error))
      return FALSE;
  return TRUE;
#else
  g_assert_not_reached ();
  return FALSE;
#endif
}

static gboolean
user_coverage_download (UserCoverage *c, gpointer stream, KsCoverage *out, GError **error)
{
  unsigned long long idle = 0;
  void *dst[4] = { out->writes, out->owner_block, out->owner_thread, &idle };

  if (!c->device)
    for (guint i = 0; i < 4; i++)
      memcpy (dst[i], c->ptr[i], c->size[i]);
#if HAVE_CUDA
  else
    {
      for (guint i = 0; i < 4; i++)
        if (!_ks_cuda_check ((int) cudaMemcpyAsync (dst[i], c->ptr[i], c->size[i],
                                                    cudaMemcpyDeviceToHost,
                                                    (cudaStream_t) stream),
                             "cudaMemcpyAsync", error))
          return FALSE;
      if (!_ks_cuda_check ((int) cudaStreamSynchronize ((cudaStream_t) stream),
                           "cudaStreamSynchronize", error))
        return FALSE;
    }
#endif
  out->idle_threads = idle;
  _ks_coverage_summarise (out);
  return TRUE;
}

/* A ks_image argument: the struct by value with its data pointer shared. */
static void
add_image (KsWorkerLaunch *launch, KsBuffer *buffer, const char *name)
{
  KsUserImage image = { 0 };
  KsWorkerPointer pointer = { 0 };

  image.pitch = ks_buffer_get_pitch (buffer);
  image.width = ks_buffer_get_width (buffer);
  image.height = ks_buffer_get_height (buffer);
  image.channels = ks_format_bytes_per_pixel (ks_buffer_get_format (buffer));
  pointer.at = G_STRUCT_OFFSET (KsUserImage, data);
  pointer.buffer = ks_worker_launch_share (launch, ks_buffer_get_data (buffer),
                                           image.pitch * image.height, name);
  pointer.offset = 0;
  ks_worker_launch_add_value_with_pointers (launch, &image, sizeof image, G_ALIGNOF (KsUserImage),
                                            &pointer, 1);
}

static void
add_params (KsWorkerLaunch *launch, const KsUserRunRequest *request)
{
  g_autoptr (GBytes) bytes = ks_kernel_source_pack_params (request->source, &request->params);
  gsize size = 0;
  gconstpointer data = g_bytes_get_data (bytes, &size);

  /* The struct's alignment is that of its widest member, 8 at most. */
  ks_worker_launch_add_value (launch, data, size, 8);
}

/* The arguments of an image kernel, in the order its signature declares
 * them: the images (out, in, in2) and the parameters. */
static gboolean
add_image_kernel_args (KsWorkerLaunch *launch, const KsUserRunRequest *request, KsBuffer *output,
                       GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (request->source);
  KsBuffer *images[3] = { output, request->inputs[0], request->inputs[1] };
  guint next_image = 0;

  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);

      if (strstr (arg->type_text, "ks_image") != NULL && next_image < 3
          && images[next_image] != NULL)
        add_image (launch, images[next_image++], arg->name);
      else if (strstr (arg->type_text, "ks_params") != NULL)
        add_params (launch, request);
      else
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "Argument “%s” (%s) of an image kernel is neither an image nor the "
                       "parameters", arg->name, arg->type_text);
          return FALSE;
        }
    }
  return TRUE;
}

/* ks_expression_kernel (KsGeometry g, ks_image out, ks_image in, ks_image in2,
 * ks_params p, KsCoverageBuffers cov): see kernels/ks-user.cuh. */
static void
add_expression_args (KsWorkerLaunch *launch, const KsUserRunRequest *request,
                     const KsLaunchConfig *resolved, KsBuffer *output, UserCoverage *coverage)
{
  KsGeometry geometry;
  KsCoverageBuffers cov = { 0 };

  ks_launch_config_to_geometry (resolved, ks_buffer_get_width (output),
                                ks_buffer_get_height (output), &geometry);
  ks_worker_launch_add_value (launch, &geometry, sizeof geometry, G_ALIGNOF (KsGeometry));
  add_image (launch, output, "out");
  add_image (launch, request->inputs[0], "in");
  add_image (launch, request->inputs[1] != NULL ? request->inputs[1] : request->inputs[0],
             request->inputs[1] != NULL ? "in2" : "in");
  add_params (launch, request);
  if (coverage == NULL)
    ks_worker_launch_add_value (launch, &cov, sizeof cov, G_ALIGNOF (KsCoverageBuffers));
  else
    {
      KsWorkerPointer pointers[4];

      for (guint i = 0; i < 4; i++)
        {
          pointers[i].at = i * sizeof (void *);
          pointers[i].buffer = ks_worker_launch_share (launch, coverage->ptr[i],
                                                       coverage->size[i], "coverage");
          pointers[i].offset = 0;
        }
      ks_worker_launch_add_value_with_pointers (launch, &cov, sizeof cov,
                                                G_ALIGNOF (KsCoverageBuffers), pointers, 4);
    }
}

gboolean
ks_user_kernel_run (KsWorker *worker, KsEngine *engine, const KsUserRunRequest *request,
                    KsUserRunResult *result, GCancellable *cancellable, GError **error)
{
  g_autoptr (KsCompileResult) compiled = NULL;
  g_autoptr (KsBuffer) output = NULL;
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (KsCoverage) coverage = NULL;
  KsWorkerRunResult run = { 0 };
  UserCoverage device_coverage = { 0 };
  gboolean instrument, coverage_allocated = FALSE, ok = FALSE;
  gboolean on_cuda;
  KsKernelAttributes attrs;
  KsLaunchConfig resolved;
  gpointer stream;
  guint width, height;

  g_return_val_if_fail (KS_IS_WORKER (worker), FALSE);
  g_return_val_if_fail (KS_IS_ENGINE (engine), FALSE);
  g_return_val_if_fail (request != NULL && request->source != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  /* The CPU engine's images are host memory, which only a worker without a
   * device (the emulator's) can run on, and a CUDA engine's the reverse. */
  on_cuda = ks_engine_is_cuda (engine);
  if (on_cuda != (ks_worker_get_ordinal (worker) >= 0))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The kernel worker is for %s, the images are on the %s engine",
                   on_cuda ? "the CPU" : "a GPU", on_cuda ? "CUDA" : "CPU");
      return FALSE;
    }
  if (!ks_user_kernel_prepare (worker, engine, request, &resolved, &compiled, &attrs, NULL,
                               cancellable, error))
    return FALSE;

  width = ks_buffer_get_width (request->inputs[0]);
  height = ks_buffer_get_height (request->inputs[0]);
  stream = on_cuda ? ks_engine_get_stream (engine) : NULL;
  if (request->output != NULL)
    {
      if (ks_buffer_get_width (request->output) != width
          || ks_buffer_get_height (request->output) != height
          || ks_buffer_get_format (request->output)
             != ks_kernel_source_get_output_format (request->source))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "The output buffer must be a %u×%u %s image", width, height,
                       ks_format_name (ks_kernel_source_get_output_format (request->source)));
          return FALSE;
        }
      output = ks_buffer_ref (request->output);
    }
  else
    {
      output = ks_engine_new_buffer (engine, ks_kernel_source_get_output_format (request->source),
                                     width, height, error);
      if (output == NULL)
        return FALSE;
    }

  instrument = request->instrument
               && ks_kernel_source_get_mode (request->source) == KS_KERNEL_MODE_EXPRESSION;
  if (instrument)
    {
      coverage = _ks_coverage_new (width, height, error);
      if (coverage == NULL)
        return FALSE;
      coverage_allocated = TRUE;
      if (!user_coverage_alloc (&device_coverage, on_cuda, (gsize) width * height, stream,
                                error))
        goto out;
    }

  launch = ks_worker_launch_new (compiled, 0, resolved.grid, resolved.block,
                                 ks_kernel_source_get_dynamic_shared (request->source));
  if (ks_kernel_source_get_mode (request->source) == KS_KERNEL_MODE_EXPRESSION)
    add_expression_args (launch, request, &resolved, output,
                         instrument ? &device_coverage : NULL);
  else if (!add_image_kernel_args (launch, request, output, error))
    goto out;
  ks_worker_launch_set_stream (launch, stream);
  ks_worker_launch_set_repeats (launch, MAX (request->repeats, 1));

  if (!ks_worker_run (worker, launch, cancellable, &run, error))
    goto out;
  if (instrument && !user_coverage_download (&device_coverage, stream, coverage, error))
    goto out;

  result->launch = resolved;
  result->output = g_steal_pointer (&output);
  result->coverage = g_steal_pointer (&coverage);
  result->compiled = g_steal_pointer (&compiled);
  result->attributes = attrs;
  result->run = run;
  memset (&run, 0, sizeof run);
  ok = TRUE;

out:
  /* What the CPU engine's checks found explains a failed run too. */
  if (!ok)
    {
      result->run.findings = g_steal_pointer (&run.findings);
      result->run.n_findings = run.n_findings;
      result->run.emulated = run.emulated;
      result->run.printf_output = g_steal_pointer (&run.printf_output);
    }
  if (coverage_allocated)
    user_coverage_free (&device_coverage);
  ks_worker_run_result_clear (&run);
  return ok;
}
