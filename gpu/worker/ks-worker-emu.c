/* ks-worker-emu.c: a worker's runs where there is no GPU: the launch's PTX
 * run by the CPU emulator (ks-emu.h) in this process.
 *
 * The emulator executes no code of the user's: it interprets PTX, checks
 * every access against the launch's memory and stops at the time limit, so
 * the isolation of a worker process buys nothing here and would cost copying
 * every image across. The launch is the one the GPU path sends: its values,
 * its pointers into shared buffers (host memory of the CPU engine, used in
 * place), and its arrays (copied in, and the out and inout ones copied back
 * into the result). */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-worker-client-private.h"

/* A parsed module and the PTX it came from, in an atomic reference-counted
 * box: the worker keeps the last one, so that a kernel launched again (the
 * timed runs, 12-04's frames, a live view's every change) is not parsed and
 * decoded again. */
typedef struct
{
  char *ptx;
  KsEmuModule *module;
} KeptModule;

static void
kept_module_clear (gpointer data)
{
  KeptModule *k = data;

  g_free (k->ptx);
  ks_emu_module_free (k->module);
}

static void
kept_module_release (KeptModule *k)
{
  g_atomic_rc_box_release_full (k, kept_module_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KeptModule, kept_module_release)

/* What the worker's finalize calls on the module it keeps. */
static void
kept_module_release_cb (gpointer k)
{
  kept_module_release (k);
}

/* The module of ptx, from the worker's last one or parsed now (and kept). */
static KeptModule *
module_for (KsWorker *self, const char *ptx, GError **error)
{
  KeptModule *k;
  KsEmuModule *module;

  g_mutex_lock (&self->emu_lock);
  k = self->emu_module;
  if (k != NULL && strcmp (k->ptx, ptx) == 0)
    {
      g_atomic_rc_box_acquire (k);
      g_mutex_unlock (&self->emu_lock);
      return k;
    }
  g_mutex_unlock (&self->emu_lock);

  module = ks_emu_module_new (ptx, error);
  if (module == NULL)
    return NULL;
  k = g_atomic_rc_box_new0 (KeptModule);
  k->ptx = g_strdup (ptx);
  k->module = module;
  g_mutex_lock (&self->emu_lock);
  if (self->emu_module != NULL)
    kept_module_release (self->emu_module);
  self->emu_module = g_atomic_rc_box_acquire (k);
  self->emu_module_release = kept_module_release_cb;
  g_mutex_unlock (&self->emu_lock);
  return k;
}

/* The bytes of one array argument while the emulator runs. */
typedef struct
{
  guint8 *data;
  gsize size;
  gint32 *block_of, *thread_of; /* tracked writers, or NULL */
} EmuArray;

static void
emu_array_clear (gpointer data)
{
  EmuArray *a = data;

  g_free (a->data);
  g_free (a->block_of);
  g_free (a->thread_of);
}

/* Adds the launch's arguments in order; arrays get memory of their own in
 * `arrays`, which must outlive the run. */
static gboolean
add_args (KsWorkerLaunch *launch, KsEmuLaunch *emu, const guint64 *buffer_addresses,
          GArray *arrays, GError **error)
{
  for (guint i = 0; i < launch->args->len; i++)
    {
      LaunchArg *arg = g_ptr_array_index (launch->args, i);

      if (arg->kind == KS_WORKER_ARG_VALUE)
        {
          gsize size = 0;
          const guint8 *bytes = arg->bytes != NULL ? g_bytes_get_data (arg->bytes, &size) : NULL;
          g_autofree guint8 *value = g_memdup2 (bytes, size);

          for (guint p = 0; arg->pointers != NULL && p < arg->pointers->len; p++)
            {
              const KsWorkerPointer *ptr = &g_array_index (arg->pointers, KsWorkerPointer, p);
              const LaunchShare *share;
              guint64 address;

              if (ptr->buffer >= launch->shares->len || ptr->at + sizeof address > size)
                {
                  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               "Argument %u points into shared buffer %u at byte %" G_GSIZE_FORMAT
                               "; the launch shares %u and the argument has %" G_GSIZE_FORMAT
                               " bytes", i + 1, ptr->buffer, ptr->at, launch->shares->len, size);
                  return FALSE;
                }
              share = &g_array_index (launch->shares, LaunchShare, ptr->buffer);
              address = buffer_addresses[share->buffer] + share->delta + ptr->offset;
              memcpy (value + ptr->at, &address, sizeof address);
            }
          ks_emu_launch_add_param (emu, value, size);
        }
      else
        {
          EmuArray a = { g_malloc0 (MAX (arg->size, 1)), arg->size, NULL, NULL };
          g_autofree char *name = arg->name != NULL ? g_strdup (arg->name)
                                                    : g_strdup_printf ("argument %u", i + 1);
          guint64 address;

          /* Out arrays start zeroed, as the worker's cudaMemset leaves them. */
          if (arg->bytes != NULL)
            memcpy (a.data, g_bytes_get_data (arg->bytes, NULL),
                    MIN (arg->size, g_bytes_get_size (arg->bytes)));
          address = ks_emu_launch_add_buffer (emu, a.data, a.size, name);
          if (launch->track_writers && arg->kind != KS_WORKER_ARG_ARRAY_IN && a.size >= 4)
            {
              a.block_of = g_new (gint32, a.size / 4);
              a.thread_of = g_new (gint32, a.size / 4);
              memset (a.block_of, 0xff, a.size / 4 * sizeof (gint32));
              memset (a.thread_of, 0xff, a.size / 4 * sizeof (gint32));
              ks_emu_launch_track_writers (emu, address, 4, a.block_of, a.thread_of);
            }
          g_array_append_val (arrays, a);
          ks_emu_launch_add_param (emu, &address, sizeof address);
        }
    }
  return TRUE;
}

/* The out and inout arrays into result->arrays, in the order added. */
static gboolean
collect_arrays (KsWorkerLaunch *launch, GArray *arrays, KsWorkerRunResult *result,
                GError **error)
{
  guint next = 0;

  result->arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  if (launch->track_writers)
    {
      result->block_of = g_ptr_array_new_with_free_func (g_free);
      result->thread_of = g_ptr_array_new_with_free_func (g_free);
    }
  for (guint i = 0; i < launch->args->len; i++)
    {
      LaunchArg *arg = g_ptr_array_index (launch->args, i);
      EmuArray *a;
      g_autoptr (KsArray) array = NULL;

      if (arg->kind == KS_WORKER_ARG_VALUE)
        continue;
      a = &g_array_index (arrays, EmuArray, next++);
      if (arg->kind == KS_WORKER_ARG_ARRAY_IN)
        continue;
      array = ks_array_new (arg->type, arg->length, error);
      if (array == NULL)
        return FALSE;
      array->rows = arg->rows;
      array->cols = arg->cols;
      array->element = arg->element != NULL ? ks_value_type_ref (arg->element) : NULL;
      memcpy (array->data, a->data, MIN (a->size, ks_array_get_bytes (array)));
      g_ptr_array_add (result->arrays, g_steal_pointer (&array));
      if (launch->track_writers)
        {
          g_ptr_array_add (result->block_of, g_steal_pointer (&a->block_of));
          g_ptr_array_add (result->thread_of, g_steal_pointer (&a->thread_of));
        }
    }
  return TRUE;
}

gboolean
_ks_worker_run_emulated (KsWorker *self, KsWorkerLaunch *launch, GCancellable *cancellable,
                         KsWorkerRunResult *result, GError **error)
{
  g_autoptr (KeptModule) kept = NULL;
  g_autoptr (KsEmuLaunch) emu = NULL;
  g_autoptr (GArray) arrays = g_array_new (FALSE, TRUE, sizeof (EmuArray));
  g_autofree guint64 *addresses = NULL;
  KsEmuResult run = { 0 };
  gboolean ok;

  if (launch->ptx == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "The compiler gave no PTX for this kernel, which the CPU engine "
                           "needs to run it");
      return FALSE;
    }
  kept = module_for (self, launch->ptx, error);
  if (kept == NULL)
    return FALSE;
  emu = ks_emu_launch_new (kept->module, launch->lowered_name, launch->grid, launch->block,
                           launch->dynamic_shared);
  ks_emu_launch_set_time_limit (emu, ks_worker_get_timeout_ms (self));
  if (launch->block_order_seed != 0)
    {
      /* One thread, the seed's order, and as many blocks at once as an
       * sm_90 multiprocessor holds: races between blocks lose updates, the
       * same ones every time. */
      ks_emu_launch_set_threads (emu, 1);
      ks_emu_launch_set_block_order (emu, launch->block_order_seed);
      ks_emu_launch_set_resident_blocks (emu, 32);
    }
  g_array_set_clear_func (arrays, emu_array_clear);

  addresses = g_new0 (guint64, MAX (launch->buffers->len, 1));
  for (guint i = 0; i < launch->buffers->len; i++)
    {
      LaunchBuffer *b = &g_array_index (launch->buffers, LaunchBuffer, i);
      g_autofree char *name = b->name != NULL ? g_strdup (b->name)
                                              : g_strdup_printf ("shared buffer %u", i + 1);

      addresses[i] = ks_emu_launch_add_buffer (emu, b->device, b->size, name);
    }
  if (!add_args (launch, emu, addresses, arrays, error))
    return FALSE;

  ok = ks_emu_launch_run (emu, cancellable, &run, error);
  result->emulated = TRUE;
  result->kernel_ms = result->kernel_min_ms = result->kernel_max_ms = run.ms;
  result->round_trip_ms = run.ms;
  result->printf_output = g_steal_pointer (&run.printf_output);
  result->printf_lines = run.printf_lines;
  result->findings = g_steal_pointer (&run.findings);
  result->n_findings = run.n_findings;
  result->lane_instructions = run.lane_instructions;
  result->global_atomics = run.global_atomics;
  result->shared_atomics = run.shared_atomics;
  ks_emu_result_clear (&run);
  if (!ok)
    return FALSE;
  return collect_arrays (launch, arrays, result, error);
}
