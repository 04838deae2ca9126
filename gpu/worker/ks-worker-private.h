/* ks-worker-private.h: the protocol between KsWorker (ks-worker.c) and the
 * worker process (ks-worker-server.c, app/kernelscope-worker.c); its
 * messages and values are ks-worker-protocol.c.
 *
 * Every message is a little-endian u32 length followed by that many bytes: a
 * serialized GVariant of type (sa{sv}), a command and its fields. Requests:
 * hello, compile, attributes, run, quit. Replies: ("ok", fields) or
 * ("error", {domain, code, message[, cuda-error, cuda-name, fatal]}); a fatal
 * error (a sticky CUDA fault) is the worker's last message before it exits.
 * The receiver checks the length, the normal form and every field's type;
 * anything else is a protocol error, and the worker exits on one. */
#pragma once

#include "ks-worker.h"

G_BEGIN_DECLS

#define KS_WORKER_MESSAGE_TYPE "(sa{sv})"
/* One message at most: arrays and copied buffers travel inside messages. */
#define KS_WORKER_MESSAGE_MAX ((gsize) 1 << 30)
#define KS_WORKER_HELLO_TIMEOUT_MS 10000

/* The worker's exit statuses. */
#define KS_WORKER_EXIT_OK 0
#define KS_WORKER_EXIT_USAGE 2
#define KS_WORKER_EXIT_PROTOCOL 3
#define KS_WORKER_EXIT_FAULT 4

/* Kinds of run arguments, as sent. */
typedef enum
{
  KS_WORKER_ARG_VALUE,
  KS_WORKER_ARG_ARRAY_IN,
  KS_WORKER_ARG_ARRAY_OUT,
  KS_WORKER_ARG_ARRAY_INOUT,
  /* An out array the worker allocates and does not clear: what the book's
   * drv.Out gives, for compute-sanitizer's initcheck to see (sent as its
   * size, like an out array). */
  KS_WORKER_ARG_ARRAY_UNCLEARED,
} KsWorkerArgKind;

/* Shared buffers, as sent: an IPC memory handle, or the bytes themselves
 * where this process cannot export its memory. */
typedef enum
{
  KS_WORKER_BUFFER_IPC,
  KS_WORKER_BUFFER_COPY,
} KsWorkerBufferKind;

/* A message from its command and fields (an a{sv}, floating or not; NULL:
 * none). Returns a new full reference. */
GVariant     *_ks_worker_message_new    (const char *command, GVariant *fields);
/* Writes one message; deadline_us is g_get_monotonic_time's clock, or -1. */
gboolean      _ks_worker_write_message  (int fd, GVariant *message, gint64 deadline_us,
                                         GError **error);
/* Reads one message. Errors: KS_ERROR_TIMED_OUT past the deadline,
 * G_IO_ERROR_CANCELLED, G_IO_ERROR_CLOSED at the end of the stream
 * (G_IO_ERROR_PARTIAL_INPUT inside a message), KS_ERROR_WORKER for a
 * malformed message. */
GVariant     *_ks_worker_read_message   (int fd, gint64 deadline_us, GCancellable *cancellable,
                                         GError **error);

/* A field of the expected type, or NULL (with KS_ERROR_WORKER naming it). */
GVariant     *_ks_worker_lookup         (GVariant *fields, const char *key, const char *type,
                                         GError **error);

GVariant     *_ks_compile_result_to_variant   (const KsCompileResult *result);
KsCompileResult *_ks_compile_result_from_variant (GVariant *value, GError **error);

GVariant     *_ks_launch_config_to_variant    (const KsLaunchConfig *launch);
void          _ks_launch_config_from_variant  (GVariant *value, KsLaunchConfig *launch);

/* The worker process: serves requests on fd until quit, the end of the
 * stream or a fault; returns the exit status. device: the CUDA ordinal, -1
 * for none. printf_fifo: cudaLimitPrintfFifoSize in bytes. guard_arrays: a
 * run's arrays are allocated with freed memory after each (for a sanitizer,
 * which sees an access past an array's end only where no other allocation
 * begins). */
int           _ks_worker_server_main    (int fd, int device, gsize printf_fifo,
                                         gboolean guard_arrays);

/* For tests. The process id while running, else 0. */
GPid          _ks_worker_get_pid        (KsWorker *self);
/* An environment variable for the next processes started (NULL value: unset). */
void          _ks_worker_set_env        (KsWorker *self, const char *name, const char *value);
/* Writes bytes to the worker's socket as they are, starting it first. */
gboolean      _ks_worker_send_raw       (KsWorker *self, const void *data, gsize size,
                                         GError **error);
/* Waits up to timeout_ms for the process to end by itself; TRUE if it did,
 * with *exit_status its status (-1 when killed by a signal). */
gboolean      _ks_worker_wait_exit      (KsWorker *self, guint timeout_ms, int *exit_status);
/* Starts the next processes under a wrapper (compute-sanitizer and its
 * options: argv, NULL-terminated, copied; NULL: none). A wrapped worker gets
 * its socket as its standard input (--fd 0), which a wrapper passes on to the
 * program it starts, and slow_ms to answer its hello and to exit after
 * "quit" or a fault (the wrapper writes its report then). */
void          _ks_worker_set_wrapper    (KsWorker *self, const char *const *argv, guint slow_ms);
/* Makes the launch's argument `index` (an out or inout array) uncleared:
 * allocated in the worker and not written before the kernel runs. */
void          _ks_worker_launch_set_uncleared (KsWorkerLaunch *launch, guint index);
/* Copies shared buffers through the messages even where IPC works. */
void          _ks_worker_set_ipc_disabled (KsWorker *self, gboolean disabled);
/* Whether the last run with shared buffers used IPC (FALSE: copies). */
gboolean      _ks_worker_last_run_used_ipc (KsWorker *self);

G_END_DECLS
