/* ks-worker.c: KsWorker, the client of the worker process (ks-worker.h): the
 * object, its settings, starting and stopping it, and the hooks tests use.
 * The process itself is ks-worker-process.c; its requests are
 * ks-worker-compile.c and ks-worker-run.c, with launches built in
 * ks-worker-launch.c and shared buffers in ks-worker-ipc.c. The worker's
 * side is ks-worker-server.c. */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>

#include "ks-device.h"
#include "ks-error.h"
#include "ks-worker-client-private.h"

G_DEFINE_FINAL_TYPE (KsWorker, ks_worker, G_TYPE_OBJECT)

/* ---- the object ---------------------------------------------------------- */

static void
ks_worker_finalize (GObject *object)
{
  KsWorker *self = KS_WORKER (object);

  ks_worker_stop (self);
  g_hash_table_unref (self->compile_cache);
  g_hash_table_unref (self->env);
  g_strfreev (self->wrapper);
  /* The CPU engine's kept module, released as ks-worker-emu.c said. */
  if (self->emu_module != NULL)
    self->emu_module_release (self->emu_module);
  g_mutex_clear (&self->emu_lock);
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
  g_mutex_init (&self->emu_lock);
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
  ok = _ks_worker_ensure_started_locked (self, ms, error);
  g_mutex_unlock (&self->lock);
  return ok;
}

void
ks_worker_stop (KsWorker *self)
{
  g_return_if_fail (KS_IS_WORKER (self));

  g_mutex_lock (&self->lock);
  if (_ks_worker_process_alive_locked (self))
    {
      guint quit_ms = self->wrapper != NULL ? MAX (self->wrapper_slow_ms, 1000) : 1000;
      g_autoptr (GVariant) reply = _ks_worker_exchange_locked (self, "quit", NULL, quit_ms,
                                                               "stop", NULL, NULL);

      (void) reply;
    }
  if (self->process != NULL)
    {
      g_autofree char *how = _ks_worker_reap_locked (self);

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
  ok = _ks_worker_ensure_started_locked (self, NULL, error);
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
          _ks_worker_clear_process_locked (self);
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
