/* ks-worker-server-context.c: the worker's own CUDA context: starting it
 * (device, printf FIFO, stream, timing events) and stopping it, and its
 * errors: a CUDA error as the reply's GError, a sticky one marking the
 * worker fatal, and what is a protocol error. */
#include "config.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-device.h"
#include "ks-error.h"
#include "ks-worker-server-private.h"

#if HAVE_CUDA
/* A malformed request is a protocol error; anything else is the request's own. */
ReplyKind
_ks_worker_server_error_kind (const GError *error)
{
  return error->domain == KS_ERROR && error->code == KS_ERROR_WORKER ? REPLY_PROTOCOL
                                                                      : REPLY_ERROR;
}

/* The CUDA error as a GError carrying its number: the reply sends
 * cuda-error and cuda-name with it. A sticky error marks the server fatal. */
gboolean
_ks_worker_server_check (Server *s, cudaError_t err, const char *call, int *cuda_error,
                         GError **error)
{
  if (err == cudaSuccess)
    return TRUE;
  /* An internal error the runtime does not name shows nothing of the
   * context's state: a new process costs less than running on in a broken
   * one. */
  if (ks_cuda_error_is_sticky ((int) err) || err == cudaErrorUnknown)
    s->fatal = TRUE;
  else
    (void) cudaGetLastError ();
  if (cuda_error != NULL)
    *cuda_error = (int) err;
  g_set_error (error, KS_ERROR, s->fatal ? KS_ERROR_KERNEL_FAULT : KS_ERROR_CUDA,
               "%s failed with %s (%d): %s", call, cudaGetErrorName (err), (int) err,
               cudaGetErrorString (err));
  return FALSE;
}

gboolean
_ks_worker_server_protocol_error (GError **error, const char *message)
{
  g_set_error_literal (error, KS_ERROR, KS_ERROR_WORKER, message);
  return FALSE;
}
#endif

gboolean
_ks_worker_server_needs_cuda (Server *s, GError **error)
{
  if (s->has_cuda)
    return TRUE;
  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
               "Running a kernel needs an NVIDIA GPU with a CUDA driver; none is available here "
               "(%s). Compiling and checking still work.", s->cuda_reason);
  return FALSE;
}

void
_ks_worker_server_start_cuda (Server *s)
{
#if HAVE_CUDA
  g_autoptr (GError) error = NULL;
  struct cudaDeviceProp prop;
  int count = 0;

  if (s->device < 0)
    {
      s->cuda_reason = g_strdup ("the worker was started for compilation only");
      return;
    }
  if (!ks_cuda_available (&error))
    {
      s->cuda_reason = g_strdup (error->message);
      return;
    }
  if (cudaGetDeviceCount (&count) != cudaSuccess || s->device >= count)
    {
      s->cuda_reason = g_strdup_printf ("there is no CUDA device %d, only %d", s->device, count);
      return;
    }
  /* The FIFO's size must be set before the first launch in the context. */
  if (!_ks_worker_server_check (s, cudaSetDevice (s->device), "cudaSetDevice", NULL, &error)
      || !_ks_worker_server_check (s, cudaDeviceSetLimit (cudaLimitPrintfFifoSize, s->printf_fifo),
                                   "cudaDeviceSetLimit (cudaLimitPrintfFifoSize)", NULL, &error)
      || !_ks_worker_server_check (s, cudaGetDeviceProperties (&prop, s->device),
                                   "cudaGetDeviceProperties", NULL, &error)
      || !_ks_worker_server_check (s, cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking),
                                   "cudaStreamCreateWithFlags", NULL, &error)
      || !_ks_worker_server_check (s, cudaEventCreate (&s->start), "cudaEventCreate", NULL, &error)
      || !_ks_worker_server_check (s, cudaEventCreate (&s->stop), "cudaEventCreate", NULL, &error))
    {
      s->cuda_reason = g_strdup (error->message);
      s->fatal = FALSE;
      return;
    }
  s->has_cuda = TRUE;
  s->device_name = g_strdup (prop.name);
  s->arch = (guint) (prop.major * 10 + prop.minor);
#else
  s->cuda_reason = g_strdup ("this build of Kernelscope has no CUDA support");
#endif
}

void
_ks_worker_server_stop_cuda (Server *s)
{
#if HAVE_CUDA
  GHashTableIter iter;
  gpointer value;

  if (!s->has_cuda || s->fatal)
    return;  /* after a sticky error every call fails; the process ends anyway */
  g_hash_table_iter_init (&iter, s->ipc_buffers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    (void) cudaIpcCloseMemHandle (value);
  g_hash_table_iter_init (&iter, s->libraries);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    (void) cudaLibraryUnload (value);
  if (s->ready != NULL)
    cudaEventDestroy (s->ready);
  if (s->done != NULL)
    cudaEventDestroy (s->done);
  cudaEventDestroy (s->start);
  cudaEventDestroy (s->stop);
  cudaStreamDestroy (s->stream);
#endif
  g_hash_table_remove_all (s->ipc_buffers);
  g_hash_table_remove_all (s->libraries);
}
