/* ks-worker-protocol.c: the message format both sides of the worker share
 * (ks-worker-private.h): messages framed on the socket, with deadlines and
 * cancellation, the lookup of a message's typed fields, and compile results
 * and launch configurations as GVariant values. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

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
  g_variant_builder_add (&dict, "{sv}", "ptx",
                         g_variant_new_maybe (G_VARIANT_TYPE_STRING,
                                              result->ptx != NULL
                                                ? g_variant_new_string (result->ptx) : NULL));
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
  g_autoptr (GVariant) ptx = NULL;
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
      || (ptx = _ks_worker_lookup (value, "ptx", "ms", error)) == NULL
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
  {
    const char *text = NULL;

    g_variant_get (ptx, "m&s", &text);
    result->ptx = g_strdup (text);
  }
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
