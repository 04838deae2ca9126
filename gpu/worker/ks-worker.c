/* ks-worker.c: the client of the worker process (ks-worker.h); the worker's
 * side is ks-worker-server.c. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-device.h"
#include "ks-error.h"
#include "ks-worker-private.h"

struct _KsWorker
{
  GObject parent_instance;

  /* settings, read without the lock */
  int ordinal;
  guint timeout_ms;
  guint compile_timeout_ms;
  guint printf_fifo;
  guint arch_override;
  guint cached_arch;
  guint starts;

  /* everything below: under lock, held for a whole request and its reply */
  GMutex lock;
  /* also under process_lock when it changes, so that is_running never
   * waits for a run to end */
  GMutex process_lock;
  GSubprocess *process;
  int fd;                      /* our end of the socket pair; -1 when stopped */
  guint process_printf_fifo;   /* what the running process was started with */
  gboolean ipc_disabled;
  GHashTable *env;             /* name → value (NULL: unset) for new processes */
  char **wrapper;              /* argv before the program (compute-sanitizer), or NULL */
  guint wrapper_slow_ms;       /* a wrapped process's time to start and to end */
  /* from the running process's hello */
  gboolean has_cuda;
  char *cuda_reason;
  guint device_arch;
  char *nvrtc_reason;
  /* the ordering events of this start (client side) */
  gboolean events_sent;
  gboolean last_run_used_ipc;
  gboolean ipc_fallback_said;
#if HAVE_CUDA
  cudaEvent_t ready;
  cudaEvent_t done;
#endif
  GHashTable *compile_cache;   /* key → KsCompileResult */
};

G_DEFINE_FINAL_TYPE (KsWorker, ks_worker, G_TYPE_OBJECT)

typedef struct
{
  KsWorkerArgKind kind;
  GBytes *bytes;               /* values; in and inout arrays */
  GArray *pointers;            /* KsWorkerPointer */
  gsize align;
  gsize size;                  /* out arrays */
  KsElemType type;             /* arrays, for the result */
  gsize length, rows, cols;
} LaunchArg;

typedef struct
{
  gpointer device;             /* the start of its allocation */
  gsize size;                  /* the allocation's size */
} LaunchBuffer;

/* What ks_worker_launch_share returned an index of: a pointer inside one of
 * the launch's buffers. */
typedef struct
{
  guint buffer;
  gsize delta;                 /* from the allocation's start */
} LaunchShare;

struct _KsWorkerLaunch
{
  GBytes *cubin;
  char *lowered_name;
  KsDim3 grid;
  KsDim3 block;
  guint64 dynamic_shared;
  GArray *buffers;             /* LaunchBuffer */
  GArray *shares;              /* LaunchShare */
  GPtrArray *args;             /* LaunchArg */
  gpointer stream;
  guint repeats;
};

/* ---- the process --------------------------------------------------------- */

static void
clear_process_locked (KsWorker *self)
{
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  g_mutex_lock (&self->process_lock);
  g_clear_object (&self->process);
  g_mutex_unlock (&self->process_lock);
  g_clear_pointer (&self->cuda_reason, g_free);
  g_clear_pointer (&self->nvrtc_reason, g_free);
  self->has_cuda = FALSE;
  self->events_sent = FALSE;
#if HAVE_CUDA
  /* The events belong to one start: a new worker gets new ones. */
  if (self->ready != NULL)
    cudaEventDestroy (self->ready);
  if (self->done != NULL)
    cudaEventDestroy (self->done);
  self->ready = NULL;
  self->done = NULL;
#endif
}

/* How the process ended, in words ("was killed by signal 9 (Killed)"). */
static char *
describe_exit (GSubprocess *process)
{
  if (g_subprocess_get_if_signaled (process))
    {
      int sig = g_subprocess_get_term_sig (process);

      return g_strdup_printf ("was killed by signal %d (%s)", sig, g_strsignal (sig));
    }
  return g_strdup_printf ("exited with status %d", g_subprocess_get_exit_status (process));
}

/* Ends the process for good: SIGKILL, then reap it. */
static void
kill_locked (KsWorker *self)
{
  if (self->process != NULL)
    {
      g_subprocess_force_exit (self->process);
      (void) g_subprocess_wait (self->process, NULL, NULL);
    }
  clear_process_locked (self);
}

/* The process ended by itself (a fault, a protocol error): reap it, giving
 * it a moment to exit before it is killed; returns how it ended. */
static char *
reap_locked (KsWorker *self)
{
  char *how = NULL;
  gint64 deadline = g_get_monotonic_time ()
                    + (self->wrapper != NULL ? (gint64) self->wrapper_slow_ms * 1000
                                             : 2 * G_USEC_PER_SEC);

  if (self->process == NULL)
    return g_strdup ("was not running");
  if (self->fd >= 0)
    {
      /* Closing our end lets a worker blocked on a write see the end. */
      close (self->fd);
      self->fd = -1;
    }
  while (g_subprocess_get_identifier (self->process) != NULL
         && g_get_monotonic_time () < deadline)
    g_usleep (2000);
  if (g_subprocess_get_identifier (self->process) != NULL)
    g_subprocess_force_exit (self->process);
  (void) g_subprocess_wait (self->process, NULL, NULL);
  how = describe_exit (self->process);
  clear_process_locked (self);
  return how;
}

/* Sends a request and reads its reply; on a time-out, a cancellation or a
 * dead process the process is gone afterwards (killed and reaped). The
 * reply's fields on ("ok", …); an error reply becomes *error. */
static GVariant *exchange_locked (KsWorker *self, const char *command, GVariant *fields,
                                  guint timeout_ms, const char *what,
                                  GCancellable *cancellable, GError **error);

static gboolean
start_locked (KsWorker *self, double *ms, GError **error)
{
  g_autofree char *program = NULL;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autofree char *device = NULL;
  g_autofree char *fifo = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key, value;
  GSubprocess *process;
  gint64 t0 = g_get_monotonic_time ();
  int fds[2];
  gboolean cuda = FALSE;
  guint32 arch = 0;
  const char *reason = NULL;
  const char *nvrtc_reason = NULL;
  guint hello_ms = self->wrapper != NULL ? MAX (KS_WORKER_HELLO_TIMEOUT_MS, self->wrapper_slow_ms)
                                         : KS_WORKER_HELLO_TIMEOUT_MS;

  if ((program = ks_worker_program_find (error)) == NULL)
    return FALSE;
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      int saved = errno;

      g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                   "Could not create the socket pair for the kernel worker: %s",
                   g_strerror (saved));
      return FALSE;
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_hash_table_iter_init (&iter, self->env);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (value != NULL)
        g_subprocess_launcher_setenv (launcher, key, value, TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, key);
    }
  /* The child's end becomes its fd 3 (without CLOEXEC); ours stays here.
   * A wrapper passes the standard streams on to the program it starts, so a
   * wrapped worker gets the socket as its standard input. */
  if (self->wrapper != NULL)
    g_subprocess_launcher_take_stdin_fd (launcher, fds[1]);
  else
    g_subprocess_launcher_take_fd (launcher, fds[1], 3);
  device = g_strdup_printf ("%d", self->ordinal);
  self->process_printf_fifo = g_atomic_int_get (&self->printf_fifo);
  fifo = g_strdup_printf ("%u", self->process_printf_fifo);
  for (guint i = 0; self->wrapper != NULL && self->wrapper[i] != NULL; i++)
    g_ptr_array_add (argv, self->wrapper[i]);
  g_ptr_array_add (argv, program);
  g_ptr_array_add (argv, (gpointer) "--fd");
  g_ptr_array_add (argv, (gpointer) (self->wrapper != NULL ? "0" : "3"));
  g_ptr_array_add (argv, (gpointer) "--device");
  g_ptr_array_add (argv, device);
  g_ptr_array_add (argv, (gpointer) "--printf-fifo");
  g_ptr_array_add (argv, fifo);
  /* A wrapper is a sanitizer: let it see an array's overrun. */
  if (self->wrapper != NULL)
    g_ptr_array_add (argv, (gpointer) "--guard-arrays");
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &local);
  if (process == NULL)
    {
      close (fds[0]);
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "Could not start the kernel worker %s: %s",
                   program, local->message);
      return FALSE;
    }
  g_mutex_lock (&self->process_lock);
  self->process = process;
  g_mutex_unlock (&self->process_lock);
  self->fd = fds[0];
  g_atomic_int_inc (&self->starts);

  reply = exchange_locked (self, "hello", NULL, hello_ms, "start", NULL, &local);
  if (reply == NULL)
    {
      if (g_error_matches (local, KS_ERROR, KS_ERROR_TIMED_OUT))
        g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                     "The kernel worker %s did not answer within %.0f s of starting", program,
                     hello_ms / 1000.0);
      else
        g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "The kernel worker %s did not start: %s",
                     program, local->message);
      return FALSE;
    }
  g_variant_lookup (reply, "cuda", "b", &cuda);
  g_variant_lookup (reply, "arch", "u", &arch);
  g_variant_lookup (reply, "cuda-reason", "&s", &reason);
  g_variant_lookup (reply, "nvrtc-reason", "&s", &nvrtc_reason);
  self->has_cuda = cuda;
  self->device_arch = arch;
  self->cuda_reason = g_strdup (reason != NULL && *reason != '\0' ? reason : "unknown reason");
  self->nvrtc_reason = g_strdup (nvrtc_reason != NULL && *nvrtc_reason != '\0' ? nvrtc_reason
                                                                                 : NULL);
  if (ms != NULL)
    *ms = (g_get_monotonic_time () - t0) / 1000.0;
  g_debug ("The kernel worker %s started (pid %s, CUDA: %s)", program,
           g_subprocess_get_identifier (self->process), cuda ? "yes" : self->cuda_reason);
  return TRUE;
}

/* A process that ended between requests (killed from outside, or its
 * parent thread's death) is replaced without an error: the next request
 * must not fail for what happened while nothing was asked. */
static gboolean
process_alive_locked (KsWorker *self)
{
  struct pollfd pfd;

  if (self->process == NULL || self->fd < 0)
    return FALSE;
  if (g_subprocess_get_identifier (self->process) == NULL)
    return FALSE;
  pfd.fd = self->fd;
  pfd.events = POLLIN;
  pfd.revents = 0;
  /* Nothing is due between requests: readable means closed (or garbage). */
  return poll (&pfd, 1, 0) == 0;
}

static gboolean
ensure_started_locked (KsWorker *self, double *ms, GError **error)
{
  if (self->process != NULL
      && self->process_printf_fifo != (guint) g_atomic_int_get (&self->printf_fifo))
    kill_locked (self);
  if (process_alive_locked (self))
    {
      if (ms != NULL)
        *ms = 0;
      return TRUE;
    }
  if (self->process != NULL)
    {
      g_autofree char *how = reap_locked (self);

      g_debug ("The kernel worker %s while idle; starting a new one", how);
    }
  return start_locked (self, ms, error);
}

static GVariant *
exchange_locked (KsWorker *self, const char *command, GVariant *fields, guint timeout_ms,
                 const char *what, GCancellable *cancellable, GError **error)
{
  g_autoptr (GVariant) request = _ks_worker_message_new (command, fields);
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) reply_fields = NULL;
  g_autoptr (GError) local = NULL;
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  const char *status;

  if (!_ks_worker_write_message (self->fd, request, deadline, &local))
    {
      if (g_error_matches (local, KS_ERROR, KS_ERROR_TOO_LARGE))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      if (!g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CLOSED))
        {
          kill_locked (self);
          g_set_error (error, KS_ERROR,
                       g_error_matches (local, KS_ERROR, KS_ERROR_TIMED_OUT) ? KS_ERROR_TIMED_OUT
                                                                           : KS_ERROR_WORKER,
                       "Sending the request to the kernel worker failed: %s", local->message);
          return NULL;
        }
      /* Closed: the reply read below finds the end and says how it died. */
      g_clear_error (&local);
    }

  reply = _ks_worker_read_message (self->fd, deadline, cancellable, &local);
  if (reply == NULL)
    {
      if (g_error_matches (local, KS_ERROR, KS_ERROR_TIMED_OUT))
        {
          g_autofree char *limit = timeout_ms < 1000 ? g_strdup_printf ("%u ms", timeout_ms)
                                   : g_strdup_printf ("%.1f s", timeout_ms / 1000.0);

          kill_locked (self);
          g_set_error (error, KS_ERROR, KS_ERROR_TIMED_OUT,
                       "The %s ran longer than %s and was stopped (the time limit is a "
                       "setting). The worker was restarted.", what, limit);
        }
      else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          kill_locked (self);
          g_propagate_error (error, g_steal_pointer (&local));
        }
      else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CLOSED)
               || g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
        {
          g_autofree char *how = reap_locked (self);

          g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                       "The kernel worker stopped unexpectedly: it %s. It starts again on the "
                       "next request", how);
        }
      else
        {
          kill_locked (self);
          g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                       "The kernel worker's reply could not be read (%s); it was stopped and "
                       "starts again on the next request", local->message);
        }
      return NULL;
    }

  g_variant_get (reply, "(&s@a{sv})", &status, &reply_fields);
  if (g_str_equal (status, "ok"))
    return g_steal_pointer (&reply_fields);
  if (g_str_equal (status, "error"))
    {
      const char *domain = NULL, *message = NULL, *cuda_name = NULL;
      gint32 code = 0, cuda_error = 0;
      gboolean fatal = FALSE;

      if (!g_variant_lookup (reply_fields, "domain", "&s", &domain)
          || !g_variant_lookup (reply_fields, "code", "i", &code)
          || !g_variant_lookup (reply_fields, "message", "&s", &message))
        goto bad_reply;
      g_variant_lookup (reply_fields, "fatal", "b", &fatal);
      g_variant_lookup (reply_fields, "cuda-error", "i", &cuda_error);
      g_variant_lookup (reply_fields, "cuda-name", "&s", &cuda_name);
      if (g_str_equal (domain, g_quark_to_string (KS_ERROR)) && code == KS_ERROR_KERNEL_FAULT)
        g_set_error (error, KS_ERROR, KS_ERROR_KERNEL_FAULT,
                     "%s (%s, CUDA error %d). The worker process that ran it was stopped and "
                     "starts again on the next run; Kernelscope's own GPU work is unaffected.",
                     ks_worker_describe_fault (cuda_error),
                     cuda_name != NULL ? cuda_name : "unknown error", cuda_error);
      else
        g_set_error_literal (error, g_quark_from_string (domain), code, message);
      if (fatal)
        {
          g_autofree char *how = reap_locked (self);

          g_debug ("The kernel worker %s after: %s", how, message);
        }
      return NULL;
    }

bad_reply:
  kill_locked (self);
  g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
               "The kernel worker sent a malformed reply to “%s”; it was stopped and starts "
               "again on the next request", command);
  return NULL;
}

/* ---- the object ---------------------------------------------------------- */

static void
ks_worker_finalize (GObject *object)
{
  KsWorker *self = KS_WORKER (object);

  ks_worker_stop (self);
  g_hash_table_unref (self->compile_cache);
  g_hash_table_unref (self->env);
  g_strfreev (self->wrapper);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->process_lock);
  G_OBJECT_CLASS (ks_worker_parent_class)->finalize (object);
}

static void
ks_worker_class_init (KsWorkerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_worker_finalize;
}

static void
ks_worker_init (KsWorker *self)
{
  g_mutex_init (&self->lock);
  g_mutex_init (&self->process_lock);
  self->fd = -1;
  self->timeout_ms = KS_WORKER_DEFAULT_TIMEOUT_MS;
  self->compile_timeout_ms = KS_WORKER_DEFAULT_COMPILE_TIMEOUT_MS;
  self->printf_fifo = KS_WORKER_DEFAULT_PRINTF_FIFO;
  self->env = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->compile_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) ks_compile_result_free);
}

KsWorker *
ks_worker_new (int ordinal)
{
  KsWorker *self;

  g_return_val_if_fail (ordinal >= -1, NULL);

  self = g_object_new (KS_TYPE_WORKER, NULL);
  self->ordinal = ordinal;
  return self;
}

int
ks_worker_get_ordinal (KsWorker *self)
{
  g_return_val_if_fail (KS_IS_WORKER (self), -1);
  return self->ordinal;
}

void
ks_worker_set_timeout_ms (KsWorker *self, guint ms)
{
  g_return_if_fail (KS_IS_WORKER (self));
  g_return_if_fail (ms > 0);
  g_atomic_int_set (&self->timeout_ms, ms);
}

guint
ks_worker_get_timeout_ms (KsWorker *self)
{
  g_return_val_if_fail (KS_IS_WORKER (self), 0);
  return g_atomic_int_get (&self->timeout_ms);
}

void
ks_worker_set_compile_timeout_ms (KsWorker *self, guint ms)
{
  g_return_if_fail (KS_IS_WORKER (self));
  g_return_if_fail (ms > 0);
  g_atomic_int_set (&self->compile_timeout_ms, ms);
}

void
ks_worker_set_printf_fifo (KsWorker *self, gsize bytes)
{
  g_return_if_fail (KS_IS_WORKER (self));
  g_return_if_fail (bytes >= 4096 && bytes <= ((gsize) 1 << 30));

  /* Taken by the next request, which restarts a process started with another size. */
  g_atomic_int_set (&self->printf_fifo, (guint) bytes);
}

gsize
ks_worker_get_printf_fifo (KsWorker *self)
{
  g_return_val_if_fail (KS_IS_WORKER (self), 0);
  return g_atomic_int_get (&self->printf_fifo);
}

gboolean
ks_worker_is_running (KsWorker *self)
{
  gboolean running;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);

  /* Not the request lock: a long run holds it, and the answer is a moment's. */
  g_mutex_lock (&self->process_lock);
  running = self->process != NULL && g_subprocess_get_identifier (self->process) != NULL;
  g_mutex_unlock (&self->process_lock);
  return running;
}

guint
ks_worker_get_starts (KsWorker *self)
{
  g_return_val_if_fail (KS_IS_WORKER (self), 0);
  return g_atomic_int_get (&self->starts);
}

gboolean
ks_worker_start (KsWorker *self, double *ms, GError **error)
{
  gboolean ok;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_mutex_lock (&self->lock);
  ok = ensure_started_locked (self, ms, error);
  g_mutex_unlock (&self->lock);
  return ok;
}

void
ks_worker_stop (KsWorker *self)
{
  g_return_if_fail (KS_IS_WORKER (self));

  g_mutex_lock (&self->lock);
  if (process_alive_locked (self))
    {
      guint quit_ms = self->wrapper != NULL ? MAX (self->wrapper_slow_ms, 1000) : 1000;
      g_autoptr (GVariant) reply = exchange_locked (self, "quit", NULL, quit_ms, "stop", NULL,
                                                    NULL);

      (void) reply;
    }
  if (self->process != NULL)
    {
      g_autofree char *how = reap_locked (self);

      g_debug ("The kernel worker %s", how);
    }
  g_mutex_unlock (&self->lock);
}

guint
ks_worker_get_arch (KsWorker *self)
{
  guint arch;

  g_return_val_if_fail (KS_IS_WORKER (self), KS_WORKER_DEFAULT_ARCH);

  arch = g_atomic_int_get (&self->arch_override);
  if (arch != 0)
    return arch;
  arch = g_atomic_int_get (&self->cached_arch);
  if (arch != 0)
    return arch;
  arch = KS_WORKER_DEFAULT_ARCH;
  /* The device's own, asked in this process: no worker needs to start. */
  if (self->ordinal >= 0 && ks_cuda_available (NULL))
    {
      g_autoptr (KsDevice) device = ks_device_get_cuda (self->ordinal, NULL);

      if (device != NULL)
        {
          const KsDeviceLimits *limits = ks_device_get_limits (device);

          arch = limits->cc_major * 10 + limits->cc_minor;
        }
    }
  g_atomic_int_set (&self->cached_arch, arch);
  return arch;
}

void
ks_worker_set_arch (KsWorker *self, guint arch)
{
  g_return_if_fail (KS_IS_WORKER (self));
  g_atomic_int_set (&self->arch_override, arch);
}

/* ---- compiling ----------------------------------------------------------- */

static KsCompileResult *
compile_result_copy (const KsCompileResult *result)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (_ks_compile_result_to_variant (result));
  KsCompileResult *copy = _ks_compile_result_from_variant (value, NULL);

  g_assert (copy != NULL);
  return copy;
}

static char *
compile_key (const KsKernelSource *source, const KsLaunchConfig *launch, gboolean instrumented,
             guint arch)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  const char *file = ks_kernel_source_get_file_name (source);
  const char *text = ks_kernel_source_get_text (source);

  /* The file name shapes the messages (#line), so it is part of the key. */
  g_checksum_update (sum, (const guchar *) (file != NULL ? file : ""), -1);
  g_checksum_update (sum, (const guchar *) "", 1);
  g_checksum_update (sum, (const guchar *) (text != NULL ? text : ""), -1);
  return g_strdup_printf ("%s|%d|%u,%u,%u|%u,%u,%u|%d|%d|%u|%d|%u",
                          g_checksum_get_string (sum), (int) ks_kernel_source_get_mode (source),
                          launch->block.x, launch->block.y, launch->block.z, launch->grid.x,
                          launch->grid.y, launch->grid.z, launch->auto_grid, (int) launch->mode,
                          launch->pixels_per_thread, instrumented, arch);
}

KsCompileResult *
ks_worker_compile (KsWorker *self, const KsKernelSource *source,
                   const KsLaunchConfig *resolved_launch, gboolean instrumented,
                   GCancellable *cancellable, GError **error)
{
  g_autofree char *key = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) value = NULL;
  KsCompileResult *cached;
  KsCompileResult *result;
  GVariantDict fields;
  guint arch;

  g_return_val_if_fail (KS_IS_WORKER (self), NULL);
  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (resolved_launch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  arch = ks_worker_get_arch (self);
  key = compile_key (source, resolved_launch, instrumented, arch);

  g_mutex_lock (&self->lock);
  cached = g_hash_table_lookup (self->compile_cache, key);
  if (cached != NULL)
    {
      result = compile_result_copy (cached);
      g_mutex_unlock (&self->lock);
      result->cached = TRUE;
      return result;
    }
  if (!ensure_started_locked (self, NULL, error))
    {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  g_variant_dict_init (&fields, NULL);
  g_variant_dict_insert (&fields, "mode", "u", (guint32) ks_kernel_source_get_mode (source));
  g_variant_dict_insert (&fields, "file", "s", ks_kernel_source_get_file_name (source) != NULL
                                               ? ks_kernel_source_get_file_name (source)
                                               : "kernel.cu");
  g_variant_dict_insert (&fields, "text", "s", ks_kernel_source_get_text (source));
  g_variant_dict_insert_value (&fields, "launch", _ks_launch_config_to_variant (resolved_launch));
  g_variant_dict_insert (&fields, "instrumented", "b", instrumented);
  g_variant_dict_insert (&fields, "arch", "u", arch);
  reply = exchange_locked (self, "compile", g_variant_dict_end (&fields),
                           g_atomic_int_get (&self->compile_timeout_ms), "compilation",
                           cancellable, error);
  if (reply == NULL)
    {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  value = g_variant_lookup_value (reply, "result", G_VARIANT_TYPE ("a{sv}"));
  result = value != NULL ? _ks_compile_result_from_variant (value, error) : NULL;
  if (result == NULL)
    {
      if (value == NULL)
        g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                     "The kernel worker's reply to a compilation has no result");
      kill_locked (self);
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  g_hash_table_insert (self->compile_cache, g_steal_pointer (&key), compile_result_copy (result));
  g_mutex_unlock (&self->lock);
  return result;
}

/* ---- attributes ---------------------------------------------------------- */

void
ks_kernel_resources_to_attributes (const KsKernelResources *resources, guint64 dynamic_shared,
                                   KsKernelAttributes *attrs)
{
  g_return_if_fail (resources != NULL);
  g_return_if_fail (attrs != NULL);

  memset (attrs, 0, sizeof *attrs);
  attrs->num_regs = resources->num_regs;
  attrs->shared_static = resources->shared_static;
  attrs->shared_dynamic = dynamic_shared;
  attrs->local_bytes = resources->local_bytes;
  /* Unknown (no ptxas lines): CUDA's own limit, the launch's check decides. */
  attrs->max_threads_per_block = resources->max_threads_per_block > 0
                                 ? resources->max_threads_per_block : 1024;
}

static const KsKernelResources *
compiled_entry (const KsCompileResult *compiled, guint entry, GError **error)
{
  if (!compiled->success || compiled->cubin == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE,
                   "The kernel did not compile; fix the errors shown and run it again");
      return NULL;
    }
  if (compiled->kernels == NULL || entry >= compiled->kernels->len)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "Entry %u does not exist: the compilation has %u", entry,
                   compiled->kernels != NULL ? compiled->kernels->len : 0);
      return NULL;
    }
  return g_ptr_array_index (compiled->kernels, entry);
}

static char *
unavailable_message (const char *reason)
{
  return g_strdup_printf ("Running a kernel needs an NVIDIA GPU with a CUDA driver; none is "
                          "available here (%s). Compiling and checking still work.", reason);
}

gboolean
ks_worker_kernel_attributes (KsWorker *self, const KsCompileResult *compiled, guint entry,
                             guint64 dynamic_shared, KsKernelAttributes *attrs, GError **error)
{
  const KsKernelResources *resources;
  g_autoptr (GVariant) reply = NULL;
  GVariantDict fields;
  gsize size;
  const void *data;
  guint32 regs = 0, max_threads = 0;
  guint64 shared = 0, local = 0;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);
  g_return_val_if_fail (compiled != NULL, FALSE);
  g_return_val_if_fail (attrs != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((resources = compiled_entry (compiled, entry, error)) == NULL)
    return FALSE;
  ks_kernel_resources_to_attributes (resources, dynamic_shared, attrs);
  if (self->ordinal < 0)
    return TRUE;

  g_mutex_lock (&self->lock);
  if (!ensure_started_locked (self, NULL, error))
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  if (!self->has_cuda)
    {
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  data = g_bytes_get_data (compiled->cubin, &size);
  g_variant_dict_init (&fields, NULL);
  g_variant_dict_insert_value (&fields, "cubin",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, data, size, 1));
  g_variant_dict_insert (&fields, "lowered-name", "s",
                         resources->lowered_name != NULL ? resources->lowered_name : "");
  reply = exchange_locked (self, "attributes", g_variant_dict_end (&fields),
                           KS_WORKER_HELLO_TIMEOUT_MS, "query of the kernel's attributes", NULL,
                           error);
  g_mutex_unlock (&self->lock);
  if (reply == NULL)
    return FALSE;
  g_variant_lookup (reply, "num-regs", "u", &regs);
  g_variant_lookup (reply, "shared-static", "t", &shared);
  g_variant_lookup (reply, "local-bytes", "t", &local);
  g_variant_lookup (reply, "max-threads", "u", &max_threads);
  attrs->num_regs = regs;
  attrs->shared_static = shared;
  attrs->local_bytes = local;
  attrs->max_threads_per_block = max_threads;
  attrs->shared_dynamic = dynamic_shared;
  return TRUE;
}

/* ---- launches ------------------------------------------------------------ */

static void
launch_arg_free (gpointer data)
{
  LaunchArg *arg = data;

  g_clear_pointer (&arg->bytes, g_bytes_unref);
  g_clear_pointer (&arg->pointers, g_array_unref);
  g_free (arg);
}

KsWorkerLaunch *
ks_worker_launch_new (const KsCompileResult *compiled, guint entry, KsDim3 grid, KsDim3 block,
                      guint64 dynamic_shared)
{
  KsWorkerLaunch *launch;
  const KsKernelResources *resources = NULL;

  g_return_val_if_fail (compiled != NULL, NULL);

  launch = g_new0 (KsWorkerLaunch, 1);
  /* A launch of a failed compilation is refused by ks_worker_run with the reason. */
  if (compiled->success && compiled->kernels != NULL && entry < compiled->kernels->len)
    resources = g_ptr_array_index (compiled->kernels, entry);
  if (compiled->success && compiled->cubin != NULL)
    launch->cubin = g_bytes_ref (compiled->cubin);
  launch->lowered_name = g_strdup (resources != NULL ? resources->lowered_name : NULL);
  launch->grid = grid;
  launch->block = block;
  launch->dynamic_shared = dynamic_shared;
  launch->buffers = g_array_new (FALSE, TRUE, sizeof (LaunchBuffer));
  launch->shares = g_array_new (FALSE, TRUE, sizeof (LaunchShare));
  launch->args = g_ptr_array_new_with_free_func (launch_arg_free);
  launch->repeats = 1;
  return launch;
}

void
ks_worker_launch_free (KsWorkerLaunch *launch)
{
  if (launch == NULL)
    return;
  g_clear_pointer (&launch->cubin, g_bytes_unref);
  g_free (launch->lowered_name);
  g_array_unref (launch->buffers);
  g_array_unref (launch->shares);
  g_ptr_array_unref (launch->args);
  g_free (launch);
}

#if HAVE_CUDA
typedef int (*KsMemGetAddressRange) (unsigned long long *base, size_t *size,
                                     unsigned long long ptr);

/* The allocation a device pointer lies in. The runtime carves small
 * allocations out of larger ones, and an IPC handle stands for the whole
 * larger one: two small buffers can share it, and opening it twice in the
 * worker fails. So buffers are shared by their allocation, and pointers are
 * offsets into it. The driver's cuMemGetAddressRange is reached through the
 * runtime: nothing links the driver library. */
static gboolean
allocation_range (gpointer device_ptr, gpointer *base, gsize *size)
{
  static KsMemGetAddressRange get_range;
  static gsize resolved;
  unsigned long long b = 0;
  size_t n = 0;

  if (g_once_init_enter (&resolved))
    {
      void *fn = NULL;
      enum cudaDriverEntryPointQueryResult status;

      if (cudaGetDriverEntryPointByVersion ("cuMemGetAddressRange", &fn, 12000,
                                            cudaEnableDefault, &status) == cudaSuccess
          && status == cudaDriverEntryPointSuccess)
        get_range = (KsMemGetAddressRange) fn;
      else
        (void) cudaGetLastError ();
      g_once_init_leave (&resolved, 1);
    }
  if (get_range == NULL || get_range (&b, &n, (unsigned long long) (guintptr) device_ptr) != 0)
    return FALSE;
  *base = (gpointer) (guintptr) b;
  *size = n;
  return TRUE;
}
#endif

guint
ks_worker_launch_share (KsWorkerLaunch *launch, gpointer device_ptr, gsize size)
{
  LaunchBuffer b = { device_ptr, size };
  LaunchShare share = { 0, 0 };
  guint i;

  g_return_val_if_fail (launch != NULL, 0);
  g_return_val_if_fail (device_ptr != NULL, 0);

#if HAVE_CUDA
  {
    gpointer base;
    gsize alloc_size;

    if (allocation_range (device_ptr, &base, &alloc_size)
        && (guint8 *) device_ptr + size <= (guint8 *) base + alloc_size)
      {
        b.device = base;
        b.size = alloc_size;
      }
  }
#endif
  share.delta = (gsize) ((guint8 *) device_ptr - (guint8 *) b.device);
  for (i = 0; i < launch->buffers->len; i++)
    {
      LaunchBuffer *known = &g_array_index (launch->buffers, LaunchBuffer, i);

      if (known->device == b.device)
        {
          known->size = MAX (known->size, b.size);
          break;
        }
    }
  if (i == launch->buffers->len)
    g_array_append_val (launch->buffers, b);
  share.buffer = i;
  g_array_append_val (launch->shares, share);
  return launch->shares->len - 1;
}

void
ks_worker_launch_add_value_with_pointers (KsWorkerLaunch *launch, gconstpointer data, gsize size,
                                          gsize align, const KsWorkerPointer *pointers,
                                          guint n_pointers)
{
  LaunchArg *arg;

  g_return_if_fail (launch != NULL);
  g_return_if_fail (data != NULL || size == 0);
  g_return_if_fail (n_pointers == 0 || pointers != NULL);

  arg = g_new0 (LaunchArg, 1);
  arg->kind = KS_WORKER_ARG_VALUE;
  arg->bytes = g_bytes_new (data, size);
  arg->align = MAX (align, 1);
  arg->pointers = g_array_new (FALSE, FALSE, sizeof (KsWorkerPointer));
  if (n_pointers > 0)
    g_array_append_vals (arg->pointers, pointers, n_pointers);
  g_ptr_array_add (launch->args, arg);
}

void
ks_worker_launch_add_value (KsWorkerLaunch *launch, gconstpointer data, gsize size, gsize align)
{
  ks_worker_launch_add_value_with_pointers (launch, data, size, align, NULL, 0);
}

void
ks_worker_launch_add_array (KsWorkerLaunch *launch, const KsArray *array,
                            KsArrayDirection direction)
{
  LaunchArg *arg;

  g_return_if_fail (launch != NULL);
  g_return_if_fail (array != NULL);

  arg = g_new0 (LaunchArg, 1);
  arg->kind = direction == KS_ARRAY_IN ? KS_WORKER_ARG_ARRAY_IN
              : direction == KS_ARRAY_OUT ? KS_WORKER_ARG_ARRAY_OUT
                                          : KS_WORKER_ARG_ARRAY_INOUT;
  arg->size = ks_array_get_bytes (array);
  /* Out arrays start zeroed in the worker: their bytes need not travel. */
  if (arg->kind != KS_WORKER_ARG_ARRAY_OUT)
    arg->bytes = g_bytes_new (array->data, arg->size);
  arg->type = array->type;
  arg->length = array->length;
  arg->rows = array->rows;
  arg->cols = array->cols;
  g_ptr_array_add (launch->args, arg);
}

static const KsBinding *
find_binding (const GPtrArray *bindings, const char *name)
{
  for (guint i = 0; bindings != NULL && i < bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (bindings, i);

      if (g_strcmp0 (b->name, name) == 0)
        return b;
    }
  return NULL;
}

gboolean
ks_worker_launch_bind (KsWorkerLaunch *launch, const GPtrArray *args, const GPtrArray *bindings,
                       const GPtrArray *arrays, GPtrArray *out_names, GError **error)
{
  guint next_array = 0;

  g_return_val_if_fail (launch != NULL && args != NULL && arrays != NULL, FALSE);

  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);
      const KsBinding *b = find_binding (bindings, arg->name);

      if (b == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "The argument “%s” is not bound", arg->name);
          return FALSE;
        }
      if (arg->pointer)
        {
          KsArrayDirection direction = ks_binding_resolve_direction (b, arg);

          if (next_array >= arrays->len)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "No array for the pointer “%s”", arg->name);
              return FALSE;
            }
          ks_worker_launch_add_array (launch, g_ptr_array_index (arrays, next_array++), direction);
          if (direction != KS_ARRAY_IN && out_names != NULL)
            g_ptr_array_add (out_names, g_strdup (arg->name));
        }
      else
        {
          g_autoptr (GBytes) bytes = ks_binding_pack_scalar (b, arg, error);
          gsize size;

          if (bytes == NULL)
            return FALSE;
          size = g_bytes_get_size (bytes);
          ks_worker_launch_add_value (launch, g_bytes_get_data (bytes, NULL), size, size);
        }
    }
  return TRUE;
}

KsDim3
ks_worker_auto_grid (const KsDim3 *block, const GPtrArray *arrays)
{
  gsize longest = 1;
  KsDim3 grid = { 1, 1, 1 };

  g_return_val_if_fail (block != NULL && block->x > 0, grid);

  for (guint i = 0; arrays != NULL && i < arrays->len; i++)
    {
      const KsArray *a = g_ptr_array_index (arrays, i);

      if (a != NULL)
        longest = MAX (longest, a->length);
    }
  grid.x = (guint32) MIN ((longest + block->x - 1) / block->x, (gsize) G_MAXINT32);
  return grid;
}

void
_ks_worker_launch_set_uncleared (KsWorkerLaunch *launch, guint index)
{
  LaunchArg *arg;

  g_return_if_fail (launch != NULL && index < launch->args->len);
  arg = g_ptr_array_index (launch->args, index);
  g_return_if_fail (arg->kind == KS_WORKER_ARG_ARRAY_OUT
                    || arg->kind == KS_WORKER_ARG_ARRAY_INOUT);
  arg->kind = KS_WORKER_ARG_ARRAY_UNCLEARED;
  g_clear_pointer (&arg->bytes, g_bytes_unref);
}

void
ks_worker_launch_set_stream (KsWorkerLaunch *launch, gpointer cuda_stream)
{
  g_return_if_fail (launch != NULL);
  launch->stream = cuda_stream;
}

void
ks_worker_launch_set_repeats (KsWorkerLaunch *launch, guint repeats)
{
  g_return_if_fail (launch != NULL);
  launch->repeats = MAX (repeats, 1);
}

void
ks_worker_run_result_clear (KsWorkerRunResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->printf_output, g_free);
  g_clear_pointer (&result->arrays, g_ptr_array_unref);
  memset (result, 0, sizeof *result);
}

static GVariant *
bytes_variant (GBytes *bytes)
{
  if (bytes == NULL)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, NULL, 0, 1);
  return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

#if HAVE_CUDA
static gboolean
client_check (cudaError_t err, const char *call, GError **error)
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
static gboolean
ensure_events_locked (KsWorker *self, GVariantDict *fields, GError **error)
{
  cudaIpcEventHandle_t ready, done;
  const unsigned flags = cudaEventInterprocess | cudaEventDisableTiming;

  if (self->events_sent)
    return TRUE;
  if ((self->ready == NULL
       && !client_check (cudaEventCreateWithFlags (&self->ready, flags), "cudaEventCreate", error))
      || (self->done == NULL
          && !client_check (cudaEventCreateWithFlags (&self->done, flags), "cudaEventCreate",
                            error))
      || !client_check (cudaIpcGetEventHandle (&ready, self->ready), "cudaIpcGetEventHandle",
                        error)
      || !client_check (cudaIpcGetEventHandle (&done, self->done), "cudaIpcGetEventHandle",
                        error))
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
static gboolean
build_buffers_locked (KsWorker *self, KsWorkerLaunch *launch, GVariantBuilder *builder,
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

    if (!client_check (cudaSetDevice (self->ordinal), "cudaSetDevice", error))
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
        && !client_check (cudaStreamSynchronize (launch->stream), "cudaStreamSynchronize", error))
      goto fail;
    for (guint i = 0; i < launch->buffers->len; i++)
      {
        LaunchBuffer *b = &g_array_index (launch->buffers, LaunchBuffer, i);
        guint8 *host = g_malloc (MAX (b->size, 1));

        if (!client_check (cudaMemcpy (host, b->device, b->size, cudaMemcpyDeviceToHost),
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

static gboolean
read_run_reply (KsWorkerLaunch *launch, GVariant *reply, gboolean copied,
                KsWorkerRunResult *result, GError **error)
{
  g_autoptr (GVariant) arrays = NULL;
  g_autoptr (GVariant) buffers = NULL;
  const char *printf_text = NULL;
  guint n_out = 0;

  if (!g_variant_lookup (reply, "kernel-ms", "d", &result->kernel_ms)
      || !g_variant_lookup (reply, "kernel-min-ms", "d", &result->kernel_min_ms)
      || !g_variant_lookup (reply, "kernel-max-ms", "d", &result->kernel_max_ms)
      || !g_variant_lookup (reply, "printf", "&s", &printf_text)
      || !g_variant_lookup (reply, "printf-lines", "t", &result->printf_lines)
      || !g_variant_lookup (reply, "printf-lost", "t", &result->printf_lines_lost)
      || (arrays = _ks_worker_lookup (reply, "arrays", "aay", error)) == NULL
      || (buffers = _ks_worker_lookup (reply, "buffers", "aay", error)) == NULL)
    goto bad;
  result->printf_output = g_strdup (printf_text);

  result->arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  for (guint i = 0; i < launch->args->len; i++)
    {
      LaunchArg *arg = g_ptr_array_index (launch->args, i);
      g_autoptr (GVariant) bytes = NULL;
      g_autoptr (KsArray) array = NULL;
      const void *data;
      gsize size;

      if (arg->kind != KS_WORKER_ARG_ARRAY_OUT && arg->kind != KS_WORKER_ARG_ARRAY_INOUT
          && arg->kind != KS_WORKER_ARG_ARRAY_UNCLEARED)
        continue;
      if (n_out >= g_variant_n_children (arrays))
        goto bad;
      bytes = g_variant_get_child_value (arrays, n_out++);
      data = g_variant_get_fixed_array (bytes, &size, 1);
      if (size != arg->size)
        goto bad;
      array = ks_array_new (arg->type, arg->length, error);
      if (array == NULL)
        return FALSE;
      array->rows = arg->rows;
      array->cols = arg->cols;
      memcpy (array->data, data, size);
      g_ptr_array_add (result->arrays, g_steal_pointer (&array));
    }

#if HAVE_CUDA
  if (copied)
    {
      if (g_variant_n_children (buffers) != launch->buffers->len)
        goto bad;
      for (guint i = 0; i < launch->buffers->len; i++)
        {
          LaunchBuffer *b = &g_array_index (launch->buffers, LaunchBuffer, i);
          g_autoptr (GVariant) bytes = g_variant_get_child_value (buffers, i);
          gsize size;
          const void *data = g_variant_get_fixed_array (bytes, &size, 1);

          if (size != b->size)
            goto bad;
          if (!client_check (cudaMemcpy (b->device, data, size, cudaMemcpyHostToDevice),
                             "cudaMemcpy", error))
            return FALSE;
        }
    }
#else
  (void) copied;
#endif
  return TRUE;

bad:
  g_clear_error (error);
  g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "The kernel worker's reply to a run is malformed");
  return FALSE;
}

gboolean
ks_worker_run (KsWorker *self, KsWorkerLaunch *launch, GCancellable *cancellable,
               KsWorkerRunResult *result, GError **error)
{
  g_autoptr (GVariant) reply = NULL;
  GVariantBuilder buffers, args;
  GVariantDict fields;
  gboolean copied = FALSE;
  gboolean wait_ready = FALSE;
  gint64 t0;
  gsize cubin_size = 0;
  const void *cubin;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);
  g_return_val_if_fail (launch != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (result, 0, sizeof *result);
  if (launch->cubin == NULL || launch->lowered_name == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE,
                   "The kernel did not compile; fix the errors shown and run it again");
      return FALSE;
    }
  if (self->ordinal < 0)
    {
      g_autofree char *message = unavailable_message ("the worker was made for compilation "
                                                      "only");

      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE, message);
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  if (!ensure_started_locked (self, NULL, error))
    goto out;
  if (!self->has_cuda)
    {
      g_autofree char *message = unavailable_message (self->cuda_reason);

      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE, message);
      goto out;
    }

  g_variant_dict_init (&fields, NULL);
  if (!build_buffers_locked (self, launch, &buffers, &copied, error))
    {
      g_variant_dict_clear (&fields);
      goto out;
    }
#if HAVE_CUDA
  if (!copied && launch->buffers->len > 0)
    {
      if (!ensure_events_locked (self, &fields, error))
        {
          g_variant_builder_clear (&buffers);
          g_variant_dict_clear (&fields);
          goto out;
        }
      if (launch->stream != NULL)
        {
          if (!client_check (cudaEventRecord (self->ready, launch->stream), "cudaEventRecord",
                             error))
            {
              g_variant_builder_clear (&buffers);
              g_variant_dict_clear (&fields);
              goto out;
            }
          wait_ready = TRUE;
        }
    }
#endif

  g_variant_builder_init (&args, G_VARIANT_TYPE ("a(uaya(ttu)t)"));
  for (guint i = 0; i < launch->args->len; i++)
    {
      LaunchArg *arg = g_ptr_array_index (launch->args, i);
      GVariantBuilder pointers;

      g_variant_builder_init (&pointers, G_VARIANT_TYPE ("a(ttu)"));
      for (guint p = 0; arg->pointers != NULL && p < arg->pointers->len; p++)
        {
          const KsWorkerPointer *ptr = &g_array_index (arg->pointers, KsWorkerPointer, p);
          const LaunchShare *share;

          if (ptr->buffer >= launch->shares->len)
            {
              g_variant_builder_clear (&pointers);
              g_variant_builder_clear (&args);
              g_variant_builder_clear (&buffers);
              g_variant_dict_clear (&fields);
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "An argument points into shared buffer %u; the launch shares %u",
                           ptr->buffer, launch->shares->len);
              goto out;
            }
          share = &g_array_index (launch->shares, LaunchShare, ptr->buffer);
          g_variant_builder_add (&pointers, "(ttu)", (guint64) ptr->at,
                                 (guint64) (share->delta + ptr->offset), (guint32) share->buffer);
        }
      /* The number is a value's alignment, or an out array's size. */
      g_variant_builder_add (&args, "(u@ay@a(ttu)t)", (guint32) arg->kind,
                             bytes_variant (arg->bytes), g_variant_builder_end (&pointers),
                             (guint64) (arg->kind == KS_WORKER_ARG_ARRAY_OUT
                                        || arg->kind == KS_WORKER_ARG_ARRAY_UNCLEARED
                                        ? arg->size : arg->align));
    }

  cubin = g_bytes_get_data (launch->cubin, &cubin_size);
  g_variant_dict_insert_value (&fields, "cubin",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, cubin, cubin_size,
                                                          1));
  g_variant_dict_insert (&fields, "lowered-name", "s", launch->lowered_name);
  g_variant_dict_insert (&fields, "grid", "(uuu)", launch->grid.x, launch->grid.y,
                         launch->grid.z);
  g_variant_dict_insert (&fields, "block", "(uuu)", launch->block.x, launch->block.y,
                         launch->block.z);
  g_variant_dict_insert (&fields, "shared", "t", launch->dynamic_shared);
  g_variant_dict_insert (&fields, "repeats", "u", launch->repeats);
  g_variant_dict_insert (&fields, "wait-ready", "b", wait_ready);
  g_variant_dict_insert_value (&fields, "buffers", g_variant_builder_end (&buffers));
  g_variant_dict_insert_value (&fields, "args", g_variant_builder_end (&args));

  t0 = g_get_monotonic_time ();
  reply = exchange_locked (self, "run", g_variant_dict_end (&fields),
                           g_atomic_int_get (&self->timeout_ms), "kernel", cancellable, error);
  if (reply == NULL)
    goto out;
  /* The worker got the ready event: later runs of this start reuse it. */
  if (!copied && launch->buffers->len > 0)
    self->events_sent = TRUE;
  self->last_run_used_ipc = !copied && launch->buffers->len > 0;
  result->round_trip_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (!read_run_reply (launch, reply, copied, result, error))
    {
      kill_locked (self);
      ks_worker_run_result_clear (result);
      goto out;
    }
#if HAVE_CUDA
  if (wait_ready
      && !client_check (cudaStreamWaitEvent (launch->stream, self->done, 0),
                        "cudaStreamWaitEvent", error))
    {
      ks_worker_run_result_clear (result);
      goto out;
    }
#endif
  g_mutex_unlock (&self->lock);
  return TRUE;

out:
  g_mutex_unlock (&self->lock);
  return FALSE;
}

const char *
ks_worker_describe_fault (int cuda_error)
{
  /* cudaError_t's numbers, so that this works in builds without CUDA too. */
  switch (cuda_error)
    {
    case 700:
      return "The kernel read or wrote an address outside any allocation";
    case 702:
      return "The kernel ran longer than the display driver's watchdog allows";
    case 710:
      return "An assert in the kernel failed";
    case 714:
      return "The kernel overflowed its call stack (deep recursion or large local arrays)";
    case 715:
      return "The kernel executed an illegal instruction";
    case 716:
      return "The kernel accessed memory at an address not aligned for its type";
    case 717:
      return "The kernel used an address of one memory space (shared, local) as another";
    case 718:
      return "The kernel jumped to an address outside its code";
    case 719:
      return "The kernel stopped on an error (a __trap(), or an exception CUDA does not name)";
    case 214:
      return "The GPU reported an uncorrectable memory (ECC) error while the kernel ran";
    default:
      return "The kernel caused a CUDA error that ends its GPU context";
    }
}

/* ---- for tests ------------------------------------------------------------ */

GPid
_ks_worker_get_pid (KsWorker *self)
{
  const char *id;
  GPid pid = 0;

  g_return_val_if_fail (KS_IS_WORKER (self), 0);

  g_mutex_lock (&self->process_lock);
  if (self->process != NULL && (id = g_subprocess_get_identifier (self->process)) != NULL)
    pid = (GPid) g_ascii_strtoll (id, NULL, 10);
  g_mutex_unlock (&self->process_lock);
  return pid;
}

void
_ks_worker_set_env (KsWorker *self, const char *name, const char *value)
{
  g_return_if_fail (KS_IS_WORKER (self));
  g_return_if_fail (name != NULL);

  g_mutex_lock (&self->lock);
  g_hash_table_insert (self->env, g_strdup (name), g_strdup (value));
  g_mutex_unlock (&self->lock);
}

gboolean
_ks_worker_send_raw (KsWorker *self, const void *data, gsize size, GError **error)
{
  gboolean ok;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);

  g_mutex_lock (&self->lock);
  ok = ensure_started_locked (self, NULL, error);
  if (ok && send (self->fd, data, size, MSG_NOSIGNAL) != (gssize) size)
    {
      int saved = errno;

      g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "Writing to the worker failed: %s",
                   g_strerror (saved));
      ok = FALSE;
    }
  g_mutex_unlock (&self->lock);
  return ok;
}

gboolean
_ks_worker_wait_exit (KsWorker *self, guint timeout_ms, int *exit_status)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean exited = FALSE;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);

  g_mutex_lock (&self->lock);
  while (self->process != NULL && g_get_monotonic_time () < deadline)
    {
      if (g_subprocess_get_identifier (self->process) == NULL)
        {
          (void) g_subprocess_wait (self->process, NULL, NULL);
          if (exit_status != NULL)
            *exit_status = g_subprocess_get_if_exited (self->process)
                           ? g_subprocess_get_exit_status (self->process) : -1;
          exited = TRUE;
          clear_process_locked (self);
          break;
        }
      g_usleep (5000);
    }
  g_mutex_unlock (&self->lock);
  return exited;
}

void
_ks_worker_set_wrapper (KsWorker *self, const char *const *argv, guint slow_ms)
{
  g_return_if_fail (KS_IS_WORKER (self));

  g_mutex_lock (&self->lock);
  g_strfreev (self->wrapper);
  self->wrapper = argv != NULL && argv[0] != NULL ? g_strdupv ((char **) argv) : NULL;
  self->wrapper_slow_ms = slow_ms;
  g_mutex_unlock (&self->lock);
}

void
_ks_worker_set_ipc_disabled (KsWorker *self, gboolean disabled)
{
  g_return_if_fail (KS_IS_WORKER (self));
  g_mutex_lock (&self->lock);
  self->ipc_disabled = disabled;
  g_mutex_unlock (&self->lock);
}

gboolean
_ks_worker_last_run_used_ipc (KsWorker *self)
{
  gboolean used;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);
  g_mutex_lock (&self->lock);
  used = self->last_run_used_ipc;
  g_mutex_unlock (&self->lock);
  return used;
}
