/* ks-worker-server-private.h: what the files of the worker process's side
 * share: its state, the kinds of reply, the request handlers the loop
 * (ks-worker-server.c) calls, and the helpers below them: its CUDA context
 * and its errors (ks-worker-server-context.c), the captured printf output
 * (ks-worker-server-printf.c), the kernels and shared memory a request names
 * (ks-worker-server-load.c). Not for the application's side.
 *
 * Like every header here it does not include config.h: the .c files that
 * include it have, so HAVE_CUDA says the same in all of them. */
#pragma once

#include <glib.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-worker-private.h"

G_BEGIN_DECLS

typedef struct
{
  int fd;
  int device;
  gsize printf_fifo;
  gboolean guard_arrays;    /* freed memory after each array (--guard-arrays) */
  gboolean has_cuda;
  char *cuda_reason;
  char *device_name;
  guint arch;
  gboolean fatal;           /* a sticky error happened: reply, then exit */
  int printf_fd;            /* the memfd standing in for stdout; -1: not captured */
#if HAVE_CUDA
  cudaStream_t stream;
  cudaEvent_t start;
  cudaEvent_t stop;
  cudaEvent_t ready;        /* the client's, opened from its IPC handle */
  cudaEvent_t done;
#endif
  GHashTable *libraries;    /* cubin checksum → cudaLibrary_t */
  GHashTable *ipc_buffers;  /* GBytes (the handle) → device pointer */
} Server;

/* A bad request: the worker replies with the reason and exits, since it can
 * no longer trust that both sides read the stream the same way. */
typedef enum
{
  REPLY_OK,
  REPLY_ERROR,
  REPLY_PROTOCOL,
} ReplyKind;

/* ---- the requests ---------------------------------------------------------- */

/* "compile" (ks-worker-server-compile.c). */
ReplyKind     _ks_worker_handle_compile (Server *s, GVariant *fields, GVariantDict *reply,
                                         GError **error);
/* "attributes" (ks-worker-server-load.c). */
ReplyKind     _ks_worker_handle_attributes (Server *s, GVariant *fields, GVariantDict *reply,
                                            int *cuda_error, GError **error);
/* "run" (ks-worker-server-run.c). */
ReplyKind     _ks_worker_handle_run     (Server *s, GVariant *fields, GVariantDict *reply,
                                         int *cuda_error, GError **error);

/* ---- the CUDA context (ks-worker-server-context.c) ------------------------- */

/* Sets the device up with the FIFO's size and makes the stream and the
 * timing events; without them, s->cuda_reason says why. */
void          _ks_worker_server_start_cuda (Server *s);
void          _ks_worker_server_stop_cuda (Server *s);
/* FALSE with KS_ERROR_UNAVAILABLE (the reason) where the worker has no CUDA. */
gboolean      _ks_worker_server_needs_cuda (Server *s, GError **error);
#if HAVE_CUDA
/* A malformed request is a protocol error; anything else is the request's own. */
ReplyKind     _ks_worker_server_error_kind (const GError *error);
/* The CUDA error as a GError carrying its number: the reply sends
 * cuda-error and cuda-name with it. A sticky error marks the server fatal. */
gboolean      _ks_worker_server_check   (Server *s, cudaError_t err, const char *call,
                                         int *cuda_error, GError **error);
/* KS_ERROR_WORKER with the message; returns FALSE. */
gboolean      _ks_worker_server_protocol_error (GError **error, const char *message);
#endif

/* ---- device printf (ks-worker-server-printf.c) ----------------------------- */

void          _ks_worker_server_capture_stdout (Server *s);
#if HAVE_CUDA
char         *_ks_worker_server_take_printf (Server *s);
guint64       _ks_worker_server_count_lines (const char *text);
#endif

/* ---- what a request names (ks-worker-server-load.c) ------------------------ */

#if HAVE_CUDA
/* A shared buffer as a run holds it. */
typedef struct
{
  void *device;      /* the worker's pointer to it */
  gsize size;
  gboolean copied;   /* cudaMalloc'd here: freed after the run, sent back */
} RunBuffer;

/* The kernel of the request's cubin and lowered name. */
gboolean      _ks_worker_server_get_kernel (Server *s, GVariant *fields, cudaKernel_t *kernel,
                                            cudaLibrary_t *library, int *cuda_error,
                                            GError **error);
/* Unloads a library get_kernel loaded and drops it from the cache. */
void          _ks_worker_server_forget_library (Server *s, cudaLibrary_t library);
/* The client's IPC event under key, where the request has one. */
gboolean      _ks_worker_server_open_event (Server *s, GVariant *fields, const char *key,
                                            cudaEvent_t *event, GError **error);
/* A shared buffer of the request into b: an IPC handle opened (once), or
 * copied bytes in memory of its own; opened: the run's buffers so far. */
gboolean      _ks_worker_server_open_buffer (Server *s, guint8 kind, GVariant *bytes,
                                             guint64 size, GArray *opened, RunBuffer *b,
                                             int *cuda_error, GError **error);
#endif

G_END_DECLS
