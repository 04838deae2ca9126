/* ks-worker-process.c: the worker process's lifetime, seen from the
 * application: starting it (its hello), restarting one that ended while idle
 * or runs with another printf FIFO, the exchange of a request and its reply
 * under the watchdog's deadline, and killing and reaping it. Starting needs
 * the exchange (the hello), and the exchange ends a process that fails it:
 * the two are one piece. The plain words for a fault an error reply carries
 * are here too, since the exchange writes them into its error. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ks-error.h"
#include "ks-worker-client-private.h"

void
_ks_worker_clear_process_locked (KsWorker *self)
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
void
_ks_worker_kill_locked (KsWorker *self)
{
  if (self->process != NULL)
    {
      g_subprocess_force_exit (self->process);
      (void) g_subprocess_wait (self->process, NULL, NULL);
    }
  _ks_worker_clear_process_locked (self);
}

/* The process ended by itself (a fault, a protocol error): reap it, giving
 * it a moment to exit before it is killed; returns how it ended. */
char *
_ks_worker_reap_locked (KsWorker *self)
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
  _ks_worker_clear_process_locked (self);
  return how;
}

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

  reply = _ks_worker_exchange_locked (self, "hello", NULL, hello_ms, "start", NULL, &local);
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
gboolean
_ks_worker_process_alive_locked (KsWorker *self)
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

gboolean
_ks_worker_ensure_started_locked (KsWorker *self, double *ms, GError **error)
{
  if (self->process != NULL
      && self->process_printf_fifo != (guint) g_atomic_int_get (&self->printf_fifo))
    _ks_worker_kill_locked (self);
  if (_ks_worker_process_alive_locked (self))
    {
      if (ms != NULL)
        *ms = 0;
      return TRUE;
    }
  if (self->process != NULL)
    {
      g_autofree char *how = _ks_worker_reap_locked (self);

      g_debug ("The kernel worker %s while idle; starting a new one", how);
    }
  return start_locked (self, ms, error);
}

GVariant *
_ks_worker_exchange_locked (KsWorker *self, const char *command, GVariant *fields, guint timeout_ms,
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
          _ks_worker_kill_locked (self);
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

          _ks_worker_kill_locked (self);
          g_set_error (error, KS_ERROR, KS_ERROR_TIMED_OUT,
                       "The %s ran longer than %s and was stopped (the time limit is a "
                       "setting). The worker was restarted.", what, limit);
        }
      else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          _ks_worker_kill_locked (self);
          g_propagate_error (error, g_steal_pointer (&local));
        }
      else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CLOSED)
               || g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
        {
          g_autofree char *how = _ks_worker_reap_locked (self);

          g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                       "The kernel worker stopped unexpectedly: it %s. It starts again on the "
                       "next request", how);
        }
      else
        {
          _ks_worker_kill_locked (self);
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
          g_autofree char *how = _ks_worker_reap_locked (self);

          g_debug ("The kernel worker %s after: %s", how, message);
        }
      return NULL;
    }

bad_reply:
  _ks_worker_kill_locked (self);
  g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
               "The kernel worker sent a malformed reply to “%s”; it was stopped and starts "
               "again on the next request", command);
  return NULL;
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
