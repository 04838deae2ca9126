/* ks-worker-ipc.c: the application's device memory as the worker gets it for
 * a run: CUDA IPC memory handles of the shared buffers and the IPC events
 * that order the run after this process's stream and the stream after it,
 * or copies of the bytes where this process cannot export its memory. */
#include "config.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-error.h"
#include "ks-worker-client-private.h"

#if HAVE_CUDA
gboolean
_ks_worker_client_check (cudaError_t err, const char *call, GError **error)
{
  if (err == cudaSuccess)
    return TRUE;
  (void) cudaGetLastError ();
  g_set_error (error, KS_ERROR, KS_ERROR_CUDA, "%s failed with %s (%d): %s", call,
               cudaGetErrorName (err), (int) err, cudaGetErrorString (err));
  return FALSE;
}

/* The events that order the worker's run after this process's stream and
 * this process's stream after the run: created once per worker start. */
gboolean
_ks_worker_ensure_events_locked (KsWorker *self, GVariantDict *fields, GError **error)
{
  cudaIpcEventHandle_t ready, done;
  const unsigned flags = cudaEventInterprocess | cudaEventDisableTiming;

  if (self->events_sent)
    return TRUE;
  if ((self->ready == NULL
       && !_ks_worker_client_check (cudaEventCreateWithFlags (&self->ready, flags),
                                    "cudaEventCreate", error))
      || (self->done == NULL
          && !_ks_worker_client_check (cudaEventCreateWithFlags (&self->done, flags),
                                       "cudaEventCreate", error))
      || !_ks_worker_client_check (cudaIpcGetEventHandle (&ready, self->ready),
                                   "cudaIpcGetEventHandle", error)
      || !_ks_worker_client_check (cudaIpcGetEventHandle (&done, self->done),
                                   "cudaIpcGetEventHandle", error))
    return FALSE;
  g_variant_dict_insert_value (fields, "ready-event",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, &ready,
                                                          sizeof ready, 1));
  g_variant_dict_insert_value (fields, "done-event",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, &done,
                                                          sizeof done, 1));
  return TRUE;
}
#endif

/* The shared buffers as the worker gets them: IPC handles, or where this
 * process cannot export its memory, their bytes. *copied says which. */
gboolean
_ks_worker_build_buffers_locked (KsWorker *self, KsWorkerLaunch *launch, GVariantBuilder *builder,
                                 gboolean *copied, GError **error)
{
  g_variant_builder_init (builder, G_VARIANT_TYPE ("a(yayt)"));
  *copied = FALSE;
  if (launch->buffers->len == 0)
    return TRUE;
#if HAVE_CUDA
  {
    g_autoptr (GPtrArray) handles = g_ptr_array_new_with_free_func (g_free);
    cudaError_t failed = cudaSuccess;

    if (!_ks_worker_client_check (cudaSetDevice (self->ordinal), "cudaSetDevice", error))
      goto fail;
    for (guint i = 0; i < launch->buffers->len && !self->ipc_disabled; i++)
      {
        LaunchBuffer *b = &g_array_index (launch->buffers, LaunchBuffer, i);
        cudaIpcMemHandle_t *h = g_new0 (cudaIpcMemHandle_t, 1);

        g_ptr_array_add (handles, h);
        failed = cudaIpcGetMemHandle (h, b->device);
        if (failed != cudaSuccess)
          {
            (void) cudaGetLastError ();
            break;
          }
      }
    if (!self->ipc_disabled && failed == cudaSuccess)
      {
        for (guint i = 0; i < launch->buffers->len; i++)
          g_variant_builder_add (builder, "(y@ayt)", (guint8) KS_WORKER_BUFFER_IPC,
                                 g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE,
                                                            g_ptr_array_index (handles, i),
                                                            sizeof (cudaIpcMemHandle_t), 1),
                                 (guint64) g_array_index (launch->buffers, LaunchBuffer, i).size);
        return TRUE;
      }
    if (!self->ipc_disabled && !self->ipc_fallback_said)
      {
        g_message ("CUDA IPC is not available here (cudaIpcGetMemHandle: %s); the kernel "
                   "worker gets copies of the images instead, which is slower",
                   cudaGetErrorName (failed));
        self->ipc_fallback_said = TRUE;
      }
    /* Copies: the producer's work must be done before they are read. */
    if (launch->stream != NULL
        && !_ks_worker_client_check (cudaStreamSynchronize (launch->stream),
                                     "cudaStreamSynchronize", error))
      goto fail;
    for (guint i = 0; i < launch->buffers->len; i++)
      {
        LaunchBuffer *b = &g_array_index (launch->buffers, LaunchBuffer, i);
        guint8 *host = g_malloc (MAX (b->size, 1));

        if (!_ks_worker_client_check (cudaMemcpy (host, b->device, b->size, cudaMemcpyDeviceToHost),
                                      "cudaMemcpy", error))
          {
            g_free (host);
            goto fail;
          }
        g_variant_builder_add (builder, "(y@ayt)", (guint8) KS_WORKER_BUFFER_COPY,
                               g_variant_new_from_data (G_VARIANT_TYPE_BYTESTRING, host, b->size,
                                                        TRUE, g_free, host),
                               (guint64) b->size);
      }
    *copied = TRUE;
    return TRUE;
  }
fail:
  g_variant_builder_clear (builder);
  return FALSE;
#else
  (void) self;
  g_variant_builder_clear (builder);
  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
               "Shared device buffers need CUDA, and this build has no CUDA support");
  return FALSE;
#endif
}
