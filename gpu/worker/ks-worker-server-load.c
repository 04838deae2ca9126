/* ks-worker-server-load.c: what a request names, opened in the worker: a
 * cubin's library (loaded once, a bounded cache) and its kernel, with the
 * "attributes" request on it, and the client's IPC events and shared
 * buffers (mapped once, or copied in). */
#include "config.h"

#include <string.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-error.h"
#include "ks-worker-server-private.h"

#if HAVE_CUDA
/* The cubin loaded once per process: a checksum names it. The cache is
 * bounded because an editor recompiles on every change. */
gboolean
_ks_worker_server_get_kernel (Server *s, GVariant *fields, cudaKernel_t *kernel,
                              cudaLibrary_t *library, int *cuda_error, GError **error)
{
  g_autoptr (GVariant) cubin = NULL;
  g_autoptr (GVariant) name = NULL;
  g_autofree char *checksum = NULL;
  cudaLibrary_t lib;
  const void *data;
  gsize size;

  if ((cubin = _ks_worker_lookup (fields, "cubin", "ay", error)) == NULL
      || (name = _ks_worker_lookup (fields, "lowered-name", "s", error)) == NULL)
    return FALSE;
  data = g_variant_get_fixed_array (cubin, &size, 1);
  if (size == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The kernel has no machine code: it did not compile");
      return FALSE;
    }
  checksum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
  lib = g_hash_table_lookup (s->libraries, checksum);
  if (lib == NULL)
    {
      /* Inside a message the cubin may sit at any address; the ELF loader
       * wants it aligned as malloc aligns. */
      g_autofree void *copy = g_memdup2 (data, size);

      if (g_hash_table_size (s->libraries) >= 32)
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, s->libraries);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            (void) cudaLibraryUnload (value);
          g_hash_table_remove_all (s->libraries);
        }
      if (!_ks_worker_server_check (s, cudaLibraryLoadData (&lib, copy, NULL, NULL, 0, NULL, NULL,
                                                            0),
                                    "cudaLibraryLoadData", cuda_error, error))
        return FALSE;
      g_hash_table_insert (s->libraries, g_steal_pointer (&checksum), lib);
    }
  *library = lib;
  return _ks_worker_server_check (s, cudaLibraryGetKernel (kernel, lib,
                                                          g_variant_get_string (name, NULL)),
                                  "cudaLibraryGetKernel", cuda_error, error);
}

void
_ks_worker_server_forget_library (Server *s, cudaLibrary_t library)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, s->libraries);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (value == library)
      {
        (void) cudaLibraryUnload (library);
        g_hash_table_iter_remove (&iter);
        return;
      }
}
#endif

ReplyKind
_ks_worker_handle_attributes (Server *s, GVariant *fields, GVariantDict *reply, int *cuda_error,
                              GError **error)
{
#if HAVE_CUDA
  cudaKernel_t kernel;
  cudaLibrary_t library;
  struct cudaFuncAttributes attrs;

  if (!_ks_worker_server_needs_cuda (s, error))
    return REPLY_ERROR;
  if (!_ks_worker_server_get_kernel (s, fields, &kernel, &library, cuda_error, error)
      || !_ks_worker_server_check (s, cudaFuncGetAttributes (&attrs, (const void *) kernel),
                                   "cudaFuncGetAttributes", cuda_error, error))
    return _ks_worker_server_error_kind (*error);
  g_variant_dict_insert (reply, "num-regs", "u", (guint32) attrs.numRegs);
  g_variant_dict_insert (reply, "shared-static", "t", (guint64) attrs.sharedSizeBytes);
  g_variant_dict_insert (reply, "local-bytes", "t", (guint64) attrs.localSizeBytes);
  g_variant_dict_insert (reply, "max-threads", "u", (guint32) attrs.maxThreadsPerBlock);
  return REPLY_OK;
#else
  (void) fields;
  (void) reply;
  (void) cuda_error;
  _ks_worker_server_needs_cuda (s, error);
  return REPLY_ERROR;
#endif
}

#if HAVE_CUDA
gboolean
_ks_worker_server_open_event (Server *s, GVariant *fields, const char *key, cudaEvent_t *event,
                              GError **error)
{
  g_autoptr (GVariant) handle = g_variant_lookup_value (fields, key, G_VARIANT_TYPE ("ay"));
  cudaIpcEventHandle_t h;
  gsize size;
  const void *data;

  if (handle == NULL)
    return TRUE;
  data = g_variant_get_fixed_array (handle, &size, 1);
  if (size != sizeof h)
    return _ks_worker_server_protocol_error (error, "An event handle of the wrong size");
  memcpy (&h, data, sizeof h);
  if (*event != NULL)
    cudaEventDestroy (*event);
  *event = NULL;
  return _ks_worker_server_check (s, cudaIpcOpenEventHandle (event, h), "cudaIpcOpenEventHandle",
                                  NULL, error);
}

gboolean
_ks_worker_server_open_buffer (Server *s, guint8 kind, GVariant *bytes, guint64 size,
                               GArray *opened, RunBuffer *b, int *cuda_error, GError **error)
{
  cudaError_t err;
  gsize n;
  const void *data = g_variant_get_fixed_array (bytes, &n, 1);

  b->size = size;
  if (kind == KS_WORKER_BUFFER_COPY)
    {
      if (n != size)
        return _ks_worker_server_protocol_error (error,
                                                 "A copied buffer's bytes differ from its size");
      b->copied = TRUE;
      return _ks_worker_server_check (s, cudaMalloc (&b->device, MAX (size, 1)), "cudaMalloc",
                                      cuda_error, error)
             && _ks_worker_server_check (s, cudaMemcpyAsync (b->device, data, size,
                                                             cudaMemcpyHostToDevice, s->stream),
                                         "cudaMemcpyAsync", cuda_error, error);
    }
  if (kind != KS_WORKER_BUFFER_IPC || n != sizeof (cudaIpcMemHandle_t))
    return _ks_worker_server_protocol_error (error, "A shared buffer of an unknown kind");
  {
    g_autoptr (GBytes) key = g_bytes_new (data, n);
    cudaIpcMemHandle_t h;

    b->device = g_hash_table_lookup (s->ipc_buffers, key);
    if (b->device != NULL)
      return TRUE;
    /* Each opened allocation stays mapped until the process ends, since
     * opening one twice fails; a bound keeps freed ones from piling up. */
    if (g_hash_table_size (s->ipc_buffers) >= 64)
      {
        GHashTableIter iter;
        gpointer value;

        g_hash_table_iter_init (&iter, s->ipc_buffers);
        while (g_hash_table_iter_next (&iter, NULL, &value))
          (void) cudaIpcCloseMemHandle (value);
        g_hash_table_remove_all (s->ipc_buffers);
      }
    memcpy (&h, data, sizeof h);
    err = cudaIpcOpenMemHandle (&b->device, h, cudaIpcMemLazyEnablePeerAccess);
    if (err == cudaErrorAlreadyMapped)
      {
        GHashTableIter iter;
        gpointer value;

        /* The allocation is open under an older handle of it (the
         * application freed a buffer and got its memory back): close the
         * mappings this run does not use, and open it again. */
        (void) cudaGetLastError ();
        g_hash_table_iter_init (&iter, s->ipc_buffers);
        while (g_hash_table_iter_next (&iter, NULL, &value))
          {
            gboolean in_use = FALSE;

            for (guint i = 0; i < opened->len; i++)
              in_use |= g_array_index (opened, RunBuffer, i).device == value;
            if (!in_use)
              {
                (void) cudaIpcCloseMemHandle (value);
                g_hash_table_iter_remove (&iter);
              }
          }
        err = cudaIpcOpenMemHandle (&b->device, h, cudaIpcMemLazyEnablePeerAccess);
      }
    if (!_ks_worker_server_check (s, err, "cudaIpcOpenMemHandle", cuda_error, error))
      return FALSE;
    g_hash_table_insert (s->ipc_buffers, g_steal_pointer (&key), b->device);
  }
  return TRUE;
}
#endif
