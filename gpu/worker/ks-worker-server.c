/* ks-worker-server.c: the worker process's side of ks-worker.h, and the
 * message format both sides share (ks-worker-private.h).
 *
 * The worker serves one request at a time on its socket. It owns a CUDA
 * context of its own, so a user kernel that faults ends this process and
 * nothing else: after a sticky error it replies with the error and exits. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>

#include "ks-kernels.h"
#endif

#include "ks-device.h"
#include "ks-error.h"
#include "ks-worker-private.h"

/* ---- messages ------------------------------------------------------------ */

GVariant *
_ks_worker_message_new (const char *command, GVariant *fields)
{
  if (fields == NULL)
    fields = g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0);
  return g_variant_ref_sink (g_variant_new ("(s@a{sv})", command, fields));
}

/* Waits until fd is ready for `events`, the deadline passes or cancellable
 * fires: 1 ready, 0 timed out, -1 cancelled or a poll error (errno kept). */
static int
wait_fd (int fd, short events, gint64 deadline_us, GCancellable *cancellable)
{
  GPollFD cancel_fd = { -1, 0, 0 };
  gboolean have_cancel = cancellable != NULL && g_cancellable_make_pollfd (cancellable,
                                                                           &cancel_fd);
  int ret;

  for (;;)
    {
      struct pollfd fds[2] = { { fd, events, 0 }, { have_cancel ? cancel_fd.fd : -1, POLLIN, 0 } };
      int timeout = -1;

      if (g_cancellable_is_cancelled (cancellable))
        {
          ret = -1;
          break;
        }
      if (deadline_us >= 0)
        {
          gint64 left = deadline_us - g_get_monotonic_time ();

          if (left <= 0)
            {
              ret = 0;
              break;
            }
          /* Rounded up, so that a wait never spins on a zero timeout. */
          timeout = (int) MIN ((left + 999) / 1000, G_MAXINT);
        }
      ret = poll (fds, have_cancel ? 2 : 1, timeout);
      if (ret < 0 && errno == EINTR)
        continue;
      if (ret < 0)
        {
          ret = -1;
          break;
        }
      if (fds[0].revents != 0)
        {
          ret = 1;
          break;
        }
      if (have_cancel && fds[1].revents != 0)
        {
          ret = -1;
          errno = ECANCELED;
          break;
        }
    }
  if (have_cancel)
    g_cancellable_release_fd (cancellable);
  return ret;
}

static gboolean
wait_failed (int ready, GCancellable *cancellable, const char *what, GError **error)
{
  if (ready == 0)
    g_set_error (error, KS_ERROR, KS_ERROR_TIMED_OUT, "The worker did not answer in time");
  else if (g_cancellable_set_error_if_cancelled (cancellable, error))
    ;
  else
    g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "Waiting to %s the worker's socket failed: %s",
                 what, g_strerror (errno));
  return FALSE;
}

static gboolean
write_all (int fd, const guint8 *data, gsize size, gint64 deadline_us, GError **error)
{
  while (size > 0)
    {
      int ready = wait_fd (fd, POLLOUT, deadline_us, NULL);
      gssize n;

      if (ready <= 0)
        return wait_failed (ready, NULL, "write to", error);
      /* MSG_NOSIGNAL: a peer that is gone is an error here, not SIGPIPE. */
      n = send (fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR,
                       saved == EPIPE || saved == ECONNRESET ? G_IO_ERROR_CLOSED
                                                             : g_io_error_from_errno (saved),
                       "Writing to the worker's socket failed: %s", g_strerror (saved));
          return FALSE;
        }
      data += n;
      size -= (gsize) n;
    }
  return TRUE;
}

gboolean
_ks_worker_write_message (int fd, GVariant *message, gint64 deadline_us, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  gsize size;
  guint32 header;

  g_return_val_if_fail (fd >= 0, FALSE);
  g_return_val_if_fail (message != NULL, FALSE);

  bytes = g_variant_get_data_as_bytes (message);
  size = g_bytes_get_size (bytes);
  if (size > KS_WORKER_MESSAGE_MAX)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "A request to the kernel worker takes %" G_GSIZE_FORMAT " MiB; at most %"
                   G_GSIZE_FORMAT " MiB fit in one (make the arrays smaller)",
                   size >> 20, KS_WORKER_MESSAGE_MAX >> 20);
      return FALSE;
    }
  header = GUINT32_TO_LE ((guint32) size);
  return write_all (fd, (const guint8 *) &header, sizeof header, deadline_us, error)
         && write_all (fd, g_bytes_get_data (bytes, NULL), size, deadline_us, error);
}

/* Reads exactly size bytes. The stream's end before the first byte is
 * G_IO_ERROR_CLOSED (a clean end), after it G_IO_ERROR_PARTIAL_INPUT. */
static gboolean
read_all (int fd, guint8 *data, gsize size, gint64 deadline_us, GCancellable *cancellable,
          GError **error)
{
  gsize done = 0;

  while (done < size)
    {
      int ready = wait_fd (fd, POLLIN, deadline_us, cancellable);
      gssize n;

      if (ready <= 0)
        return wait_failed (ready, cancellable, "read from", error);
      n = recv (fd, data + done, size - done, MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0 && errno != ECONNRESET)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Reading from the worker's socket failed: %s", g_strerror (saved));
          return FALSE;
        }
      if (n <= 0)
        {
          if (done == 0)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                         "The other side closed the connection");
          else
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                         "The connection closed in the middle of a message");
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}

GVariant *
_ks_worker_read_message (int fd, gint64 deadline_us, GCancellable *cancellable, GError **error)
{
  guint32 header;
  gsize size;
  guint8 *data;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GVariant) message = NULL;

  g_return_val_if_fail (fd >= 0, NULL);

  if (!read_all (fd, (guint8 *) &header, sizeof header, deadline_us, cancellable, error))
    return NULL;
  size = GUINT32_FROM_LE (header);
  if (size > KS_WORKER_MESSAGE_MAX)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                   "A message of %" G_GSIZE_FORMAT " bytes is beyond the limit of %" G_GSIZE_FORMAT
                   " bytes", size, KS_WORKER_MESSAGE_MAX);
      return NULL;
    }
  data = g_malloc (size);
  if (!read_all (fd, data, size, deadline_us, cancellable, error))
    {
      g_free (data);
      if (error != NULL && g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CLOSED))
        (*error)->code = G_IO_ERROR_PARTIAL_INPUT;
      return NULL;
    }
  bytes = g_bytes_new_take (data, size);
  message = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (KS_WORKER_MESSAGE_TYPE),
                                                          bytes, FALSE));
  if (!g_variant_is_normal_form (message))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                   "A message of %" G_GSIZE_FORMAT " bytes is not a valid %s value", size,
                   KS_WORKER_MESSAGE_TYPE);
      return NULL;
    }
  return g_steal_pointer (&message);
}

GVariant *
_ks_worker_lookup (GVariant *fields, const char *key, const char *type, GError **error)
{
  GVariant *value;

  g_return_val_if_fail (fields != NULL, NULL);

  value = g_variant_lookup_value (fields, key, G_VARIANT_TYPE (type));
  if (value == NULL)
    g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                 "The message has no field “%s” of type %s", key, type);
  return value;
}

/* ---- compile results and launches as values ------------------------------ */

#define DIAGNOSTIC_TYPE "(umsuumss)"
#define RESOURCES_TYPE "(smsuuttttttuuu)"
/* The same, read with borrowed strings (the iterated values own them). */
#define DIAGNOSTIC_BORROW "(um&suum&s&s)"
#define RESOURCES_BORROW "(&sm&suuttttttuuu)"

GVariant *
_ks_compile_result_to_variant (const KsCompileResult *result)
{
  GVariantBuilder diagnostics, kernels, dict;
  const void *cubin = NULL;
  gsize cubin_size = 0;

  g_return_val_if_fail (result != NULL, NULL);

  g_variant_builder_init (&diagnostics, G_VARIANT_TYPE ("a" DIAGNOSTIC_TYPE));
  for (guint i = 0; result->diagnostics != NULL && i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      g_variant_builder_add (&diagnostics, DIAGNOSTIC_TYPE, (guint32) d->severity, d->file,
                             d->line, d->column, d->code,
                             d->message != NULL ? d->message : "");
    }
  g_variant_builder_init (&kernels, G_VARIANT_TYPE ("a" RESOURCES_TYPE));
  for (guint i = 0; result->kernels != NULL && i < result->kernels->len; i++)
    {
      const KsKernelResources *r = g_ptr_array_index (result->kernels, i);

      g_variant_builder_add (&kernels, RESOURCES_TYPE, r->name != NULL ? r->name : "",
                             r->lowered_name, r->arch, r->num_regs,
                             (guint64) r->shared_static, (guint64) r->local_bytes,
                             (guint64) r->spill_stores, (guint64) r->spill_loads,
                             (guint64) r->const_bytes, (guint64) 0, r->barriers,
                             r->launch_bounds, r->max_threads_per_block);
    }
  if (result->cubin != NULL)
    cubin = g_bytes_get_data (result->cubin, &cubin_size);

  g_variant_builder_init (&dict, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&dict, "{sv}", "success", g_variant_new_boolean (result->success));
  g_variant_builder_add (&dict, "{sv}", "has-cubin",
                         g_variant_new_boolean (result->cubin != NULL));
  g_variant_builder_add (&dict, "{sv}", "cubin",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, cubin, cubin_size, 1));
  g_variant_builder_add (&dict, "{sv}", "log",
                         g_variant_new_string (result->log != NULL ? result->log : ""));
  g_variant_builder_add (&dict, "{sv}", "diagnostics", g_variant_builder_end (&diagnostics));
  g_variant_builder_add (&dict, "{sv}", "kernels", g_variant_builder_end (&kernels));
  g_variant_builder_add (&dict, "{sv}", "compile-ms", g_variant_new_double (result->compile_ms));
  return g_variant_builder_end (&dict);
}

KsCompileResult *
_ks_compile_result_from_variant (GVariant *value, GError **error)
{
  g_autoptr (KsCompileResult) result = NULL;
  g_autoptr (GVariant) success = NULL;
  g_autoptr (GVariant) has_cubin = NULL;
  g_autoptr (GVariant) cubin = NULL;
  g_autoptr (GVariant) log = NULL;
  g_autoptr (GVariant) diagnostics = NULL;
  g_autoptr (GVariant) kernels = NULL;
  g_autoptr (GVariant) compile_ms = NULL;
  GVariantIter iter;
  guint32 severity, line, column, arch, regs, barriers, bounds, max_threads;
  guint64 shared, local, spill_stores, spill_loads, const_bytes, unused;
  const char *file, *code, *message, *name, *lowered;

  g_return_val_if_fail (value != NULL, NULL);

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE ("a{sv}")))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "A compile result of type %s, not a{sv}",
                   g_variant_get_type_string (value));
      return NULL;
    }
  if ((success = _ks_worker_lookup (value, "success", "b", error)) == NULL
      || (has_cubin = _ks_worker_lookup (value, "has-cubin", "b", error)) == NULL
      || (cubin = _ks_worker_lookup (value, "cubin", "ay", error)) == NULL
      || (log = _ks_worker_lookup (value, "log", "s", error)) == NULL
      || (diagnostics = _ks_worker_lookup (value, "diagnostics", "a" DIAGNOSTIC_TYPE,
                                           error)) == NULL
      || (kernels = _ks_worker_lookup (value, "kernels", "a" RESOURCES_TYPE, error)) == NULL
      || (compile_ms = _ks_worker_lookup (value, "compile-ms", "d", error)) == NULL)
    return NULL;

  result = g_new0 (KsCompileResult, 1);
  result->success = g_variant_get_boolean (success);
  if (g_variant_get_boolean (has_cubin))
    {
      gsize size;
      const void *data = g_variant_get_fixed_array (cubin, &size, 1);

      result->cubin = g_bytes_new (data, size);
    }
  result->log = g_variant_dup_string (log, NULL);
  result->compile_ms = g_variant_get_double (compile_ms);

  result->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  g_variant_iter_init (&iter, diagnostics);
  while (g_variant_iter_loop (&iter, DIAGNOSTIC_BORROW, &severity, &file, &line, &column, &code,
                              &message))
    {
      KsDiagnostic *d = ks_diagnostic_new (MIN (severity, KS_DIAGNOSTIC_NOTE), file, line,
                                           column, message);

      d->code = g_strdup (code);
      g_ptr_array_add (result->diagnostics, d);
    }

  result->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_resources_free);
  g_variant_iter_init (&iter, kernels);
  while (g_variant_iter_loop (&iter, RESOURCES_BORROW, &name, &lowered, &arch, &regs, &shared,
                              &local, &spill_stores, &spill_loads, &const_bytes, &unused,
                              &barriers, &bounds, &max_threads))
    {
      KsKernelResources *r = g_new0 (KsKernelResources, 1);

      r->name = g_strdup (name);
      r->lowered_name = g_strdup (lowered);
      r->arch = arch;
      r->num_regs = regs;
      r->shared_static = shared;
      r->local_bytes = local;
      r->spill_stores = spill_stores;
      r->spill_loads = spill_loads;
      r->const_bytes = const_bytes;
      r->barriers = barriers;
      r->launch_bounds = bounds;
      r->max_threads_per_block = max_threads;
      g_ptr_array_add (result->kernels, r);
    }
  return g_steal_pointer (&result);
}

GVariant *
_ks_launch_config_to_variant (const KsLaunchConfig *launch)
{
  return g_variant_new ("(uuuuuubuu)", launch->block.x, launch->block.y, launch->block.z,
                        launch->grid.x, launch->grid.y, launch->grid.z, launch->auto_grid,
                        (guint32) launch->mode, launch->pixels_per_thread);
}

void
_ks_launch_config_from_variant (GVariant *value, KsLaunchConfig *launch)
{
  guint32 mode;

  memset (launch, 0, sizeof *launch);
  g_variant_get (value, "(uuuuuubuu)", &launch->block.x, &launch->block.y, &launch->block.z,
                 &launch->grid.x, &launch->grid.y, &launch->grid.z, &launch->auto_grid, &mode,
                 &launch->pixels_per_thread);
  launch->mode = mode == KS_LAUNCH_GRID_STRIDE ? KS_LAUNCH_GRID_STRIDE : KS_LAUNCH_PER_PIXEL;
}

/* ---- the server ----------------------------------------------------------- */

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

#if HAVE_CUDA
/* A malformed request is a protocol error; anything else is the request's own. */
static ReplyKind
error_kind (const GError *error)
{
  return error->domain == KS_ERROR && error->code == KS_ERROR_WORKER ? REPLY_PROTOCOL
                                                                      : REPLY_ERROR;
}

/* Errors that leave the context unusable: only a new process can run again. */
static gboolean
cuda_error_is_sticky (cudaError_t err)
{
  switch ((int) err)
    {
    case cudaErrorECCUncorrectable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown:
      return TRUE;
    default:
      return FALSE;
    }
}

/* The CUDA error as a GError carrying its number: the reply sends
 * cuda-error and cuda-name with it. A sticky error marks the server fatal. */
static gboolean
server_check (Server *s, cudaError_t err, const char *call, int *cuda_error, GError **error)
{
  if (err == cudaSuccess)
    return TRUE;
  if (cuda_error_is_sticky (err))
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
#endif

static gboolean
server_needs_cuda (Server *s, GError **error)
{
  if (s->has_cuda)
    return TRUE;
  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
               "Running a kernel needs an NVIDIA GPU with a CUDA driver; none is available here "
               "(%s). Compiling and checking still work.", s->cuda_reason);
  return FALSE;
}

static void
server_start_cuda (Server *s)
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
  if (!server_check (s, cudaSetDevice (s->device), "cudaSetDevice", NULL, &error)
      || !server_check (s, cudaDeviceSetLimit (cudaLimitPrintfFifoSize, s->printf_fifo),
                        "cudaDeviceSetLimit (cudaLimitPrintfFifoSize)", NULL, &error)
      || !server_check (s, cudaGetDeviceProperties (&prop, s->device),
                        "cudaGetDeviceProperties", NULL, &error)
      || !server_check (s, cudaStreamCreateWithFlags (&s->stream, cudaStreamNonBlocking),
                        "cudaStreamCreateWithFlags", NULL, &error)
      || !server_check (s, cudaEventCreate (&s->start), "cudaEventCreate", NULL, &error)
      || !server_check (s, cudaEventCreate (&s->stop), "cudaEventCreate", NULL, &error))
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

static void
server_stop_cuda (Server *s)
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

/* Device printf writes through stdio to fd 1; a memory file there lets the
 * worker read back exactly what each run printed. */
static void
server_capture_stdout (Server *s)
{
  /* memfd_create without _GNU_SOURCE (the build does not define it). */
  int fd = (int) syscall (SYS_memfd_create, "kernelscope-printf", 1u /* MFD_CLOEXEC */);

  s->printf_fd = -1;
  if (fd < 0)
    {
      g_message ("Device printf is not captured: memfd_create failed: %s", g_strerror (errno));
      return;
    }
  fflush (stdout);
  if (dup2 (fd, STDOUT_FILENO) < 0)
    {
      g_message ("Device printf is not captured: dup2 failed: %s", g_strerror (errno));
      close (fd);
      return;
    }
  close (fd);
  s->printf_fd = STDOUT_FILENO;
}

#if HAVE_CUDA
/* What the runs since the last call printed; the file starts over. */
static char *
server_take_printf (Server *s)
{
  off_t end;
  char *text;
  gssize n = 0;

  fflush (stdout);
  if (s->printf_fd < 0 || (end = lseek (s->printf_fd, 0, SEEK_CUR)) <= 0)
    return g_strdup ("");
  text = g_malloc ((gsize) end + 1);
  while (n < end)
    {
      gssize got = pread (s->printf_fd, text + n, (gsize) (end - n), n);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      n += got;
    }
  text[n] = '\0';
  if (ftruncate (s->printf_fd, 0) != 0 || lseek (s->printf_fd, 0, SEEK_SET) != 0)
    g_message ("Could not reset the captured printf output: %s", g_strerror (errno));
  return text;
}

static guint64
count_lines (const char *text)
{
  guint64 n = 0;
  const char *p;

  for (p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  /* A last line without its newline is a line too. */
  if (p != text && p[-1] != '\n')
    n++;
  return n;
}
#endif

static ReplyKind
handle_hello (Server *s, GVariantDict *reply)
{
  g_autoptr (GError) nvrtc_error = NULL;
  gboolean nvrtc = ks_nvrtc_load (&nvrtc_error);

  g_variant_dict_insert (reply, "pid", "x", (gint64) getpid ());
  g_variant_dict_insert (reply, "cuda", "b", s->has_cuda);
  g_variant_dict_insert (reply, "cuda-reason", "s", s->cuda_reason != NULL ? s->cuda_reason : "");
  g_variant_dict_insert (reply, "device-name", "s", s->device_name != NULL ? s->device_name : "");
  g_variant_dict_insert (reply, "arch", "u", s->arch);
  g_variant_dict_insert (reply, "nvrtc-version", "i", nvrtc ? ks_nvrtc_version () : 0);
  g_variant_dict_insert (reply, "nvrtc-reason", "s", nvrtc ? "" : nvrtc_error->message);
  return REPLY_OK;
}

static ReplyKind
handle_compile (Server *s, GVariant *fields, GVariantDict *reply, GError **error)
{
  g_autoptr (GVariant) mode = NULL;
  g_autoptr (GVariant) file = NULL;
  g_autoptr (GVariant) text = NULL;
  g_autoptr (GVariant) launch_v = NULL;
  g_autoptr (GVariant) instrumented = NULL;
  g_autoptr (GVariant) arch = NULL;
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  KsLaunchConfig launch;

  if ((mode = _ks_worker_lookup (fields, "mode", "u", error)) == NULL
      || (file = _ks_worker_lookup (fields, "file", "s", error)) == NULL
      || (text = _ks_worker_lookup (fields, "text", "s", error)) == NULL
      || (launch_v = _ks_worker_lookup (fields, "launch", "(uuuuuubuu)", error)) == NULL
      || (instrumented = _ks_worker_lookup (fields, "instrumented", "b", error)) == NULL
      || (arch = _ks_worker_lookup (fields, "arch", "u", error)) == NULL)
    return REPLY_PROTOCOL;
  if (g_variant_get_uint32 (mode) > KS_KERNEL_MODE_ANY)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "Unknown kernel mode %u",
                   g_variant_get_uint32 (mode));
      return REPLY_PROTOCOL;
    }
  if (!ks_nvrtc_load (error))
    return REPLY_ERROR;

  _ks_launch_config_from_variant (launch_v, &launch);
  source = ks_kernel_source_new ((KsKernelMode) g_variant_get_uint32 (mode),
                                 g_variant_get_string (file, NULL),
                                 g_variant_get_string (text, NULL));
  result = ks_kernel_source_compile (source, &launch, g_variant_get_boolean (instrumented),
                                     g_variant_get_uint32 (arch), error);
  if (result == NULL)
    return REPLY_ERROR;
  g_variant_dict_insert_value (reply, "result", _ks_compile_result_to_variant (result));
  (void) s;
  return REPLY_OK;
}

#if HAVE_CUDA
/* The cubin loaded once per process: a checksum names it. The cache is
 * bounded because an editor recompiles on every change. */
static gboolean
server_get_kernel (Server *s, GVariant *fields, cudaKernel_t *kernel, cudaLibrary_t *library,
                   int *cuda_error, GError **error)
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
      if (!server_check (s, cudaLibraryLoadData (&lib, copy, NULL, NULL, 0, NULL, NULL, 0),
                         "cudaLibraryLoadData", cuda_error, error))
        return FALSE;
      g_hash_table_insert (s->libraries, g_steal_pointer (&checksum), lib);
    }
  *library = lib;
  return server_check (s, cudaLibraryGetKernel (kernel, lib, g_variant_get_string (name, NULL)),
                       "cudaLibraryGetKernel", cuda_error, error);
}
#endif

static ReplyKind
handle_attributes (Server *s, GVariant *fields, GVariantDict *reply, int *cuda_error,
                   GError **error)
{
#if HAVE_CUDA
  cudaKernel_t kernel;
  cudaLibrary_t library;
  struct cudaFuncAttributes attrs;

  if (!server_needs_cuda (s, error))
    return REPLY_ERROR;
  if (!server_get_kernel (s, fields, &kernel, &library, cuda_error, error)
      || !server_check (s, cudaFuncGetAttributes (&attrs, (const void *) kernel),
                        "cudaFuncGetAttributes", cuda_error, error))
    return error_kind (*error);
  g_variant_dict_insert (reply, "num-regs", "u", (guint32) attrs.numRegs);
  g_variant_dict_insert (reply, "shared-static", "t", (guint64) attrs.sharedSizeBytes);
  g_variant_dict_insert (reply, "local-bytes", "t", (guint64) attrs.localSizeBytes);
  g_variant_dict_insert (reply, "max-threads", "u", (guint32) attrs.maxThreadsPerBlock);
  return REPLY_OK;
#else
  (void) fields;
  (void) reply;
  (void) cuda_error;
  server_needs_cuda (s, error);
  return REPLY_ERROR;
#endif
}

#if HAVE_CUDA
typedef struct
{
  void *device;      /* the worker's pointer to it */
  gsize size;
  gboolean copied;   /* cudaMalloc'd here: freed after the run, sent back */
} RunBuffer;

typedef struct
{
  guint32 kind;
  void *value;       /* the argument's bytes (values) or &device (arrays) */
  void *device;      /* arrays */
  gsize size;
  GVariant *initial; /* in and inout arrays: their data, for every repeat */
} RunArg;

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static gboolean
protocol_error (GError **error, const char *message)
{
  g_set_error_literal (error, KS_ERROR, KS_ERROR_WORKER, message);
  return FALSE;
}

static ReplyKind
bad_request (GError **error, const char *message)
{
  protocol_error (error, message);
  return REPLY_PROTOCOL;
}

static gboolean
server_open_event (Server *s, GVariant *fields, const char *key, cudaEvent_t *event,
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
    return protocol_error (error, "An event handle of the wrong size");
  memcpy (&h, data, sizeof h);
  if (*event != NULL)
    cudaEventDestroy (*event);
  *event = NULL;
  return server_check (s, cudaIpcOpenEventHandle (event, h), "cudaIpcOpenEventHandle", NULL,
                       error);
}

static gboolean
server_open_buffer (Server *s, guint8 kind, GVariant *bytes, guint64 size, GArray *opened,
                    RunBuffer *b, int *cuda_error, GError **error)
{
  cudaError_t err;
  gsize n;
  const void *data = g_variant_get_fixed_array (bytes, &n, 1);

  b->size = size;
  if (kind == KS_WORKER_BUFFER_COPY)
    {
      if (n != size)
        return protocol_error (error, "A copied buffer's bytes differ from its size");
      b->copied = TRUE;
      return server_check (s, cudaMalloc (&b->device, MAX (size, 1)), "cudaMalloc", cuda_error,
                           error)
             && server_check (s, cudaMemcpyAsync (b->device, data, size, cudaMemcpyHostToDevice,
                                                  s->stream),
                              "cudaMemcpyAsync", cuda_error, error);
    }
  if (kind != KS_WORKER_BUFFER_IPC || n != sizeof (cudaIpcMemHandle_t))
    return protocol_error (error, "A shared buffer of an unknown kind");
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
    if (!server_check (s, err, "cudaIpcOpenMemHandle", cuda_error, error))
      return FALSE;
    g_hash_table_insert (s->ipc_buffers, g_steal_pointer (&key), b->device);
  }
  return TRUE;
}

static void
run_free (GArray *buffers, GArray *args)
{
  for (guint i = 0; i < buffers->len; i++)
    {
      RunBuffer *b = &g_array_index (buffers, RunBuffer, i);

      if (b->copied && b->device != NULL)
        cudaFree (b->device);
    }
  for (guint i = 0; i < args->len; i++)
    {
      RunArg *a = &g_array_index (args, RunArg, i);

      if (a->device != NULL)
        cudaFree (a->device);
      if (a->kind == KS_WORKER_ARG_VALUE)
        g_aligned_free (a->value);
      g_clear_pointer (&a->initial, g_variant_unref);
    }
}

static void
free_guard (gpointer element)
{
  cudaFree (*(void **) element);
}

/* With --guard-arrays: an allocation right after the array just made, freed
 * before the launch (free_guard). The allocator places small allocations one
 * after the other, so without it an array's first element past the end is
 * often the next array's first, where no sanitizer can see it (12-02's
 * bins[256] lands in the pixels). As large as the array, at least 4 KiB. */
static gboolean
server_guard (Server *s, gsize array_size, GArray *guards, int *cuda_error, GError **error)
{
  void *guard = NULL;

  if (!server_check (s, cudaMalloc (&guard, MAX (array_size, (gsize) 4096)),
                     "cudaMalloc (the guard after an array)", cuda_error, error))
    return FALSE;
  g_array_append_val (guards, guard);
  return TRUE;
}

static ReplyKind
server_run (Server *s, GVariant *fields, GVariantDict *reply, GArray *buffers, GArray *args,
            int *cuda_error, GError **error)
{
  g_autoptr (GVariant) grid_v = NULL;
  g_autoptr (GVariant) block_v = NULL;
  g_autoptr (GVariant) shared_v = NULL;
  g_autoptr (GVariant) repeats_v = NULL;
  g_autoptr (GVariant) buffers_v = NULL;
  g_autoptr (GVariant) args_v = NULL;
  g_autoptr (GArray) times = NULL;
  g_autoptr (GPtrArray) kernel_args = g_ptr_array_new ();
  g_autoptr (GArray) guards = g_array_new (FALSE, FALSE, sizeof (void *));
  g_autofree char *printf_text = NULL;
  GVariantBuilder arrays, copied;
  GVariantIter iter;
  cudaKernel_t kernel;
  cudaLibrary_t library;
  dim3 grid, block;
  guint64 shared, counted = 0;
  guint repeats;
  unsigned long long *lines_counter = NULL;
  size_t counter_size = 0;
  gboolean wait_ready = FALSE;
  guint8 kind8;
  GVariant *bytes;
  guint64 size;
  cudaError_t err;

  if ((grid_v = _ks_worker_lookup (fields, "grid", "(uuu)", error)) == NULL
      || (block_v = _ks_worker_lookup (fields, "block", "(uuu)", error)) == NULL
      || (shared_v = _ks_worker_lookup (fields, "shared", "t", error)) == NULL
      || (repeats_v = _ks_worker_lookup (fields, "repeats", "u", error)) == NULL
      || (buffers_v = _ks_worker_lookup (fields, "buffers", "a(yayt)", error)) == NULL
      || (args_v = _ks_worker_lookup (fields, "args", "a(uaya(ttu)t)", error)) == NULL)
    return REPLY_PROTOCOL;
  g_variant_lookup (fields, "wait-ready", "b", &wait_ready);
  g_variant_get (grid_v, "(uuu)", &grid.x, &grid.y, &grid.z);
  g_variant_get (block_v, "(uuu)", &block.x, &block.y, &block.z);
  shared = g_variant_get_uint64 (shared_v);
  repeats = CLAMP (g_variant_get_uint32 (repeats_v), 1, 10000);

  g_array_set_clear_func (guards, free_guard);
  if (!server_needs_cuda (s, error))
    return REPLY_ERROR;
  if (!server_open_event (s, fields, "ready-event", &s->ready, error)
      || !server_open_event (s, fields, "done-event", &s->done, error))
    return error_kind (*error);
  if (!server_get_kernel (s, fields, &kernel, &library, cuda_error, error))
    return error_kind (*error);

  /* The client's stream produced the shared inputs: wait for it on the GPU. */
  if (wait_ready && s->ready != NULL
      && !server_check (s, cudaStreamWaitEvent (s->stream, s->ready, 0), "cudaStreamWaitEvent",
                        cuda_error, error))
    return REPLY_ERROR;

  g_variant_iter_init (&iter, buffers_v);
  while (g_variant_iter_next (&iter, "(y@ayt)", &kind8, &bytes, &size))
    {
      RunBuffer b = { 0 };
      gboolean ok = server_open_buffer (s, kind8, bytes, size, buffers, &b, cuda_error, error);

      g_variant_unref (bytes);
      if (b.device != NULL)
        g_array_append_val (buffers, b);
      if (!ok)
        return error_kind (*error);
    }

  g_variant_iter_init (&iter, args_v);
  {
    guint32 kind;
    GVariant *pointers;
    guint64 at, offset;
    guint32 index;
    guint64 align;

    while (g_variant_iter_next (&iter, "(u@ay@a(ttu)t)", &kind, &bytes, &pointers, &align))
      {
        g_autoptr (GVariant) bytes_owned = bytes;
        g_autoptr (GVariant) pointers_owned = pointers;
        RunArg a = { kind, NULL, NULL, 0, NULL };
        gsize n;
        const guint8 *data = g_variant_get_fixed_array (bytes, &n, 1);
        GVariantIter piter;

        if (kind == KS_WORKER_ARG_VALUE)
          {
            /* Kernel arguments are read at their natural alignment. */
            align = CLAMP (align, 16, 256);
            if ((align & (align - 1)) != 0)
              return bad_request (error, "An argument's alignment is not a power of two");
            a.size = n;
            a.value = g_aligned_alloc0 (1, MAX (n, 1), align);
            memcpy (a.value, data, n);
            g_array_append_val (args, a);
            g_variant_iter_init (&piter, pointers);
            while (g_variant_iter_next (&piter, "(ttu)", &at, &offset, &index))
              {
                RunBuffer *b;
                guint8 *p;

                if (at > n || n - at < sizeof (void *) || index >= buffers->len)
                  return bad_request (error, "A pointer outside its argument or to no buffer");
                b = &g_array_index (buffers, RunBuffer, index);
                if (offset > b->size)
                  return bad_request (error, "A pointer past the end of its buffer");
                p = (guint8 *) b->device + offset;
                memcpy ((guint8 *) a.value + at, &p, sizeof p);
              }
          }
        else if (kind <= KS_WORKER_ARG_ARRAY_UNCLEARED)
          {
            gboolean sized = kind == KS_WORKER_ARG_ARRAY_OUT
                             || kind == KS_WORKER_ARG_ARRAY_UNCLEARED;

            /* Out arrays travel as their size only, in the number field. */
            a.size = sized ? (gsize) align : n;
            if (!server_check (s, cudaMalloc (&a.device, MAX (a.size, 1)), "cudaMalloc",
                               cuda_error, error))
              return REPLY_ERROR;
            if (!sized)
              a.initial = g_variant_ref (bytes);
            g_array_append_val (args, a);
            if (s->guard_arrays && !server_guard (s, a.size, guards, cuda_error, error))
              return REPLY_ERROR;
            /* Left as the allocator gives it, as the book's drv.Out does. */
            if (kind == KS_WORKER_ARG_ARRAY_UNCLEARED)
              continue;
            if (kind == KS_WORKER_ARG_ARRAY_OUT)
              err = cudaMemsetAsync (a.device, 0, a.size, s->stream);
            else
              err = cudaMemcpyAsync (a.device, data, a.size, cudaMemcpyHostToDevice, s->stream);
            if (!server_check (s, err, "copying an array to the GPU", cuda_error, error))
              return REPLY_ERROR;
          }
        else
          return bad_request (error, "An argument of an unknown kind");
      }
  }
  /* The guards' memory is free again when the kernel runs: what reaches past
   * an array's end reaches no allocation. */
  g_array_remove_range (guards, 0, guards->len);
  for (guint i = 0; i < args->len; i++)
    {
      RunArg *a = &g_array_index (args, RunArg, i);

      g_ptr_array_add (kernel_args, a->kind == KS_WORKER_ARG_VALUE ? a->value : &a->device);
    }

  /* Past 48 KiB with its static shared memory, the kernel opts in. */
  if (!server_check (s, ks_cuda_allow_shared ((const void *) kernel, shared),
                     "cudaFuncSetAttribute (cudaFuncAttributeMaxDynamicSharedMemorySize)",
                     cuda_error, error))
    {
      g_prefix_error (error, "The kernel cannot have %" G_GUINT64_FORMAT " bytes of dynamic "
                      "shared memory: ", shared);
      (*error)->code = KS_ERROR_LAUNCH_CONFIG;
      return REPLY_ERROR;
    }

  /* The prelude counts the lines every printf means to print, so that lines
   * lost to a full FIFO can be told apart from lines never printed. */
  err = cudaLibraryGetGlobal ((void **) &lines_counter, &counter_size, library,
                              "ks_printf_lines");
  if (err != cudaSuccess || counter_size != sizeof (unsigned long long))
    {
      lines_counter = NULL;
      if (err != cudaSuccess)
        (void) cudaGetLastError ();
    }
  if (lines_counter != NULL
      && !server_check (s, cudaMemsetAsync (lines_counter, 0, counter_size, s->stream),
                        "cudaMemsetAsync", cuda_error, error))
    return REPLY_ERROR;

  times = g_array_sized_new (FALSE, FALSE, sizeof (double), repeats);
  for (guint r = 0; r < repeats; r++)
    {
      float ms = 0;

      /* Every run starts from the bound data, so that a kernel that updates
       * an array in place gives the result of one run whatever the repeats. */
      for (guint i = 0; r > 0 && i < args->len; i++)
        {
          RunArg *a = &g_array_index (args, RunArg, i);
          gsize n = 0;

          if (a->kind == KS_WORKER_ARG_VALUE || a->kind == KS_WORKER_ARG_ARRAY_UNCLEARED)
            continue;
          if (a->kind == KS_WORKER_ARG_ARRAY_OUT)
            err = cudaMemsetAsync (a->device, 0, a->size, s->stream);
          else
            err = cudaMemcpyAsync (a->device, g_variant_get_fixed_array (a->initial, &n, 1),
                                   a->size, cudaMemcpyHostToDevice, s->stream);
          if (!server_check (s, err, "restoring an array before a repeat", cuda_error, error))
            return REPLY_ERROR;
        }
      if (!server_check (s, cudaEventRecord (s->start, s->stream), "cudaEventRecord", cuda_error,
                         error))
        return REPLY_ERROR;
      err = cudaLaunchKernel ((const void *) kernel, grid, block, kernel_args->pdata,
                              (size_t) shared, s->stream);
      if (err != cudaSuccess)
        {
          server_check (s, err, "cudaLaunchKernel", cuda_error, error);
          /* Refused before it ran (a block too large, too many registers):
           * the context is fine. */
          if (!s->fatal)
            (*error)->code = KS_ERROR_LAUNCH_CONFIG;
          return REPLY_ERROR;
        }
      if (!server_check (s, cudaEventRecord (s->stop, s->stream), "cudaEventRecord", cuda_error,
                         error))
        return REPLY_ERROR;
      /* Synchronise each launch: a fault is then the kernel's own, and
       * its printf output is flushed. */
      err = cudaStreamSynchronize (s->stream);
      if (err != cudaSuccess)
        {
          /* Any error seen here came from the kernel running. */
          server_check (s, err, "the kernel", cuda_error, error);
          s->fatal = TRUE;
          (*error)->code = KS_ERROR_KERNEL_FAULT;
          return REPLY_ERROR;
        }
      if (!server_check (s, cudaEventElapsedTime (&ms, s->start, s->stop),
                         "cudaEventElapsedTime", cuda_error, error))
        return REPLY_ERROR;
      {
        double t = ms;

        g_array_append_val (times, t);
      }
    }

  g_variant_builder_init (&arrays, G_VARIANT_TYPE ("aay"));
  for (guint i = 0; i < args->len; i++)
    {
      RunArg *a = &g_array_index (args, RunArg, i);
      guint8 *host;

      if (a->kind != KS_WORKER_ARG_ARRAY_OUT && a->kind != KS_WORKER_ARG_ARRAY_INOUT
          && a->kind != KS_WORKER_ARG_ARRAY_UNCLEARED)
        continue;
      host = g_malloc (MAX (a->size, 1));
      if (!server_check (s, cudaMemcpy (host, a->device, a->size, cudaMemcpyDeviceToHost),
                         "copying an array from the GPU", cuda_error, error))
        {
          g_free (host);
          return REPLY_ERROR;
        }
      g_variant_builder_add_value (&arrays,
                                   g_variant_new_from_data (G_VARIANT_TYPE_BYTESTRING, host,
                                                            a->size, TRUE, g_free, host));
    }
  g_variant_builder_init (&copied, G_VARIANT_TYPE ("aay"));
  for (guint i = 0; i < buffers->len; i++)
    {
      RunBuffer *b = &g_array_index (buffers, RunBuffer, i);
      guint8 *host;

      if (!b->copied)
        continue;
      host = g_malloc (MAX (b->size, 1));
      if (!server_check (s, cudaMemcpy (host, b->device, b->size, cudaMemcpyDeviceToHost),
                         "copying a buffer from the GPU", cuda_error, error))
        {
          g_free (host);
          g_variant_builder_clear (&arrays);
          g_variant_builder_clear (&copied);
          return REPLY_ERROR;
        }
      g_variant_builder_add_value (&copied,
                                   g_variant_new_from_data (G_VARIANT_TYPE_BYTESTRING, host,
                                                            b->size, TRUE, g_free, host));
    }
  if (lines_counter != NULL)
    {
      unsigned long long value = 0;

      if (cudaMemcpy (&value, lines_counter, sizeof value, cudaMemcpyDeviceToHost) == cudaSuccess)
        counted = value;
      else
        (void) cudaGetLastError ();
    }
  /* The client's stream goes on after this: it waits for "done". */
  if (s->done != NULL)
    (void) server_check (s, cudaEventRecord (s->done, s->stream), "cudaEventRecord", NULL, NULL);

  printf_text = server_take_printf (s);
  g_array_sort (times, compare_doubles);
  {
    guint64 received = count_lines (printf_text);

    g_variant_dict_insert (reply, "kernel-ms", "d", g_array_index (times, double, times->len / 2));
    g_variant_dict_insert (reply, "kernel-min-ms", "d", g_array_index (times, double, 0));
    g_variant_dict_insert (reply, "kernel-max-ms", "d",
                           g_array_index (times, double, times->len - 1));
    g_variant_dict_insert (reply, "printf", "s", printf_text);
    g_variant_dict_insert (reply, "printf-lines", "t", received);
    g_variant_dict_insert (reply, "printf-lost", "t", counted > received ? counted - received : 0);
  }
  g_variant_dict_insert_value (reply, "arrays", g_variant_builder_end (&arrays));
  g_variant_dict_insert_value (reply, "buffers", g_variant_builder_end (&copied));
  return REPLY_OK;
}
#endif

static ReplyKind
handle_run (Server *s, GVariant *fields, GVariantDict *reply, int *cuda_error, GError **error)
{
#if HAVE_CUDA
  g_autoptr (GArray) buffers = g_array_new (FALSE, TRUE, sizeof (RunBuffer));
  g_autoptr (GArray) args = g_array_new (FALSE, TRUE, sizeof (RunArg));
  ReplyKind kind = server_run (s, fields, reply, buffers, args, cuda_error, error);

  if (!s->fatal)
    {
      /* Whatever the run left printed belongs to no later run. */
      g_free (server_take_printf (s));
      run_free (buffers, args);
    }
  return kind;
#else
  (void) fields;
  (void) reply;
  (void) cuda_error;
  server_needs_cuda (s, error);
  return REPLY_ERROR;
#endif
}

static gboolean
server_reply (Server *s, ReplyKind kind, GVariantDict *fields, const GError *error,
              int cuda_error)
{
  g_autoptr (GVariant) message = NULL;
  g_autoptr (GError) write_error = NULL;

  if (kind == REPLY_OK)
    message = _ks_worker_message_new ("ok", g_variant_dict_end (fields));
  else
    {
      GVariantDict e;

      g_variant_dict_init (&e, NULL);
      g_variant_dict_insert (&e, "domain", "s", g_quark_to_string (error->domain));
      g_variant_dict_insert (&e, "code", "i", error->code);
      g_variant_dict_insert (&e, "message", "s", error->message);
      g_variant_dict_insert (&e, "fatal", "b", s->fatal || kind == REPLY_PROTOCOL);
      if (cuda_error != 0)
        {
          g_variant_dict_insert (&e, "cuda-error", "i", cuda_error);
#if HAVE_CUDA
          g_variant_dict_insert (&e, "cuda-name", "s", cudaGetErrorName ((cudaError_t) cuda_error));
#endif
        }
      message = _ks_worker_message_new ("error", g_variant_dict_end (&e));
    }
  if (!_ks_worker_write_message (s->fd, message, -1, &write_error))
    {
      g_message ("The worker could not reply: %s", write_error->message);
      return FALSE;
    }
  return TRUE;
}

/* A client that dies closes its end, which the request loop reads as the
 * end; but while a kernel never ends nothing reads the socket, so this
 * thread ends the process once the parent is gone. It asks getppid rather
 * than relying on PR_SET_PDEATHSIG, which fires when the thread that
 * started the worker ends (a pool thread of the application), not the
 * application. */
static gpointer
watch_parent (gpointer data)
{
  pid_t parent = GPOINTER_TO_INT (data);

  for (;;)
    {
      if (getppid () != parent)
        _exit (KS_WORKER_EXIT_OK);
      g_usleep (200 * 1000);
    }
  return NULL;
}

int
_ks_worker_server_main (int fd, int device, gsize printf_fifo, gboolean guard_arrays)
{
  Server s = { 0 };
  int status = KS_WORKER_EXIT_OK;

  g_return_val_if_fail (fd >= 0, KS_WORKER_EXIT_USAGE);

  s.fd = fd;
  s.device = device;
  s.printf_fifo = printf_fifo;
  s.guard_arrays = guard_arrays;
  s.libraries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s.ipc_buffers = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                         (GDestroyNotify) g_bytes_unref, NULL);
  if (getppid () == 1)
    return KS_WORKER_EXIT_OK;
  g_thread_unref (g_thread_new ("ks-parent-watch", watch_parent,
                                GINT_TO_POINTER ((int) getppid ())));
  server_capture_stdout (&s);
  server_start_cuda (&s);

  for (;;)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GVariant) message = _ks_worker_read_message (fd, -1, NULL, &error);
      g_autoptr (GVariant) fields = NULL;
      GVariantDict reply;
      const char *command;
      ReplyKind kind;
      int cuda_error = 0;

      if (message == NULL)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
            break;
          g_message ("The worker stops on a bad request: %s", error->message);
          status = KS_WORKER_EXIT_PROTOCOL;
          break;
        }
      g_variant_get (message, "(&s@a{sv})", &command, &fields);
      g_variant_dict_init (&reply, NULL);
      if (g_str_equal (command, "hello"))
        kind = handle_hello (&s, &reply);
      else if (g_str_equal (command, "compile"))
        kind = handle_compile (&s, fields, &reply, &error);
      else if (g_str_equal (command, "attributes"))
        kind = handle_attributes (&s, fields, &reply, &cuda_error, &error);
      else if (g_str_equal (command, "run"))
        kind = handle_run (&s, fields, &reply, &cuda_error, &error);
      else if (g_str_equal (command, "quit"))
        {
          server_reply (&s, REPLY_OK, &reply, NULL, 0);
          break;
        }
      else
        {
          g_set_error (&error, KS_ERROR, KS_ERROR_WORKER, "Unknown request “%s”", command);
          kind = REPLY_PROTOCOL;
        }
      if (kind != REPLY_OK)
        g_variant_dict_clear (&reply);
      server_reply (&s, kind, &reply, error, cuda_error);
      if (kind == REPLY_PROTOCOL)
        {
          g_message ("The worker stops on a bad request: %s", error->message);
          status = KS_WORKER_EXIT_PROTOCOL;
          break;
        }
      if (s.fatal)
        {
          status = KS_WORKER_EXIT_FAULT;
          break;
        }
    }

  server_stop_cuda (&s);
  g_hash_table_unref (s.libraries);
  g_hash_table_unref (s.ipc_buffers);
  g_free (s.cuda_reason);
  g_free (s.device_name);
  return status;
}
