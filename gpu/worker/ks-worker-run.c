/* ks-worker-run.c: the run requests of KsWorker (ks-worker.h): a launch sent
 * with its arguments and shared buffers, and the reply read back into a
 * KsWorkerRunResult (times, printf output, out arrays, copied buffers). */
#include "config.h"

#include <string.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-error.h"
#include "ks-worker-client-private.h"

void
ks_worker_run_result_clear (KsWorkerRunResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->printf_output, g_free);
  g_clear_pointer (&result->arrays, g_ptr_array_unref);
  g_clear_pointer (&result->findings, g_ptr_array_unref);
  g_clear_pointer (&result->block_of, g_ptr_array_unref);
  g_clear_pointer (&result->thread_of, g_ptr_array_unref);
  g_clear_pointer (&result->launch_ms, g_array_unref);
  g_clear_pointer (&result->globals, g_ptr_array_unref);
  memset (result, 0, sizeof *result);
}

static GVariant *
bytes_variant (GBytes *bytes)
{
  if (bytes == NULL)
    return g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, NULL, 0, 1);
  return g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, bytes, TRUE);
}

static char *
unavailable_message (const char *reason)
{
  return g_strdup_printf ("Running a kernel needs an NVIDIA GPU with a CUDA driver; none is "
                          "available here (%s). Compiling and checking still work.", reason);
}

static gboolean
read_run_reply (KsWorkerLaunch *launch, GVariant *reply, gboolean copied,
                KsWorkerRunResult *result, GError **error)
{
  g_autoptr (GVariant) arrays = NULL;
  g_autoptr (GVariant) buffers = NULL;
  g_autoptr (GVariant) launch_ms = NULL;
  g_autoptr (GVariant) globals = NULL;
  const char *printf_text = NULL;
  guint n_out = 0;

  if (!g_variant_lookup (reply, "kernel-ms", "d", &result->kernel_ms)
      || !g_variant_lookup (reply, "kernel-min-ms", "d", &result->kernel_min_ms)
      || !g_variant_lookup (reply, "kernel-max-ms", "d", &result->kernel_max_ms)
      || !g_variant_lookup (reply, "printf", "&s", &printf_text)
      || !g_variant_lookup (reply, "printf-lines", "t", &result->printf_lines)
      || !g_variant_lookup (reply, "printf-lost", "t", &result->printf_lines_lost)
      || (arrays = _ks_worker_lookup (reply, "arrays", "aay", error)) == NULL
      || !g_variant_lookup (reply, "launches-run", "u", &result->launches_run)
      || (buffers = _ks_worker_lookup (reply, "buffers", "aay", error)) == NULL
      || (launch_ms = _ks_worker_lookup (reply, "launch-ms", "ad", error)) == NULL
      || (globals = _ks_worker_lookup (reply, "globals", "aay", error)) == NULL)
    goto bad;
  result->printf_output = g_strdup (printf_text);
  if (launch->launches > 1)
    {
      gsize n;
      const double *ms = g_variant_get_fixed_array (launch_ms, &n, sizeof (double));

      if (n != result->launches_run)
        goto bad;
      result->launch_ms = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) n);
      g_array_append_vals (result->launch_ms, ms, (guint) n);
    }
  if (g_variant_n_children (globals) != launch->read_globals->len)
    goto bad;
  result->globals = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  for (guint i = 0; i < launch->read_globals->len; i++)
    {
      const LaunchGlobal *g = g_ptr_array_index (launch->read_globals, i);
      g_autoptr (GVariant) bytes = g_variant_get_child_value (globals, i);
      g_autoptr (KsArray) array = ks_array_new (g->type, g->length, error);
      gsize size;
      const void *data = g_variant_get_fixed_array (bytes, &size, 1);

      if (array == NULL)
        return FALSE;
      if (size != ks_array_get_bytes (array))
        goto bad;
      memcpy (array->data, data, size);
      g_ptr_array_add (result->globals, g_steal_pointer (&array));
    }

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
      array->element = arg->element != NULL ? ks_value_type_ref (arg->element) : NULL;
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
          if (!_ks_worker_client_check (cudaMemcpy (b->device, data, size, cudaMemcpyHostToDevice),
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
  if ((launch->cubin == NULL && launch->ptx == NULL) || launch->lowered_name == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE,
                   "The kernel did not compile; fix the errors shown and run it again");
      return FALSE;
    }
  if (!_ks_worker_launch_check (launch, error))
    return FALSE;
  /* A worker without a device runs kernels on the CPU. */
  if (self->ordinal < 0)
    return _ks_worker_run_emulated (self, launch, cancellable, result, error);
  if (launch->cubin == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE,
                   "The kernel did not compile; fix the errors shown and run it again");
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  if (!_ks_worker_ensure_started_locked (self, NULL, error))
    goto out;
  if (!self->has_cuda)
    {
      g_autofree char *message = unavailable_message (self->cuda_reason);

      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE, message);
      goto out;
    }

  g_variant_dict_init (&fields, NULL);
  if (!_ks_worker_build_buffers_locked (self, launch, &buffers, &copied, error))
    {
      g_variant_dict_clear (&fields);
      goto out;
    }
#if HAVE_CUDA
  if (!copied && launch->buffers->len > 0)
    {
      if (!_ks_worker_ensure_events_locked (self, &fields, error))
        {
          g_variant_builder_clear (&buffers);
          g_variant_dict_clear (&fields);
          goto out;
        }
      if (launch->stream != NULL)
        {
          if (!_ks_worker_client_check (cudaEventRecord (self->ready, launch->stream),
                                        "cudaEventRecord", error))
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
  g_variant_dict_insert (&fields, "launches", "u", launch->launches);
  {
    GVariantBuilder swaps, set, read;

    g_variant_builder_init (&swaps, G_VARIANT_TYPE ("a(uu)"));
    for (guint i = 0; i + 1 < launch->swaps->len; i += 2)
      g_variant_builder_add (&swaps, "(uu)", g_array_index (launch->swaps, guint, i),
                             g_array_index (launch->swaps, guint, i + 1));
    g_variant_builder_init (&set, G_VARIANT_TYPE ("a(say)"));
    for (guint i = 0; i < launch->set_globals->len; i++)
      {
        const LaunchGlobal *g = g_ptr_array_index (launch->set_globals, i);

        g_variant_builder_add (&set, "(s@ay)", g->symbol, bytes_variant (g->bytes));
      }
    g_variant_builder_init (&read, G_VARIANT_TYPE ("a(st)"));
    for (guint i = 0; i < launch->read_globals->len; i++)
      {
        const LaunchGlobal *g = g_ptr_array_index (launch->read_globals, i);

        g_variant_builder_add (&read, "(st)", g->symbol,
                               (guint64) (g->length * ks_elem_type_size (g->type)));
      }
    g_variant_dict_insert_value (&fields, "swaps", g_variant_builder_end (&swaps));
    g_variant_dict_insert_value (&fields, "set-globals", g_variant_builder_end (&set));
    g_variant_dict_insert_value (&fields, "read-globals", g_variant_builder_end (&read));
    /* The worker keeps a loaded module for the next run; one whose
     * variables a run may change is loaded afresh, so that every run starts
     * from their initial values, as on the CPU engine. */
    g_variant_dict_insert (&fields, "fresh-module", "b", launch->has_globals);
  }
  g_variant_dict_insert (&fields, "wait-ready", "b", wait_ready);
  g_variant_dict_insert_value (&fields, "buffers", g_variant_builder_end (&buffers));
  g_variant_dict_insert_value (&fields, "args", g_variant_builder_end (&args));

  t0 = g_get_monotonic_time ();
  reply = _ks_worker_exchange_locked (self, "run", g_variant_dict_end (&fields),
                                      g_atomic_int_get (&self->timeout_ms), "kernel", cancellable,
                                      error);
  if (reply == NULL)
    goto out;
  /* The worker got the ready event: later runs of this start reuse it. */
  if (!copied && launch->buffers->len > 0)
    self->events_sent = TRUE;
  self->last_run_used_ipc = !copied && launch->buffers->len > 0;
  result->round_trip_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (!read_run_reply (launch, reply, copied, result, error))
    {
      _ks_worker_kill_locked (self);
      ks_worker_run_result_clear (result);
      goto out;
    }
#if HAVE_CUDA
  if (wait_ready
      && !_ks_worker_client_check (cudaStreamWaitEvent (launch->stream, self->done, 0),
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
