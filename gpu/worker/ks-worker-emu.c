/* ks-worker-emu.c: a worker's runs where there is no GPU: the launch's PTX
 * run by the CPU emulator (ks-emu.h) in this process.
 *
 * The emulator executes no code of the user's: it interprets PTX, checks
 * every access against the launch's memory and stops at the time limit, so
 * the isolation of a worker process buys nothing here and would cost copying
 * every image across. The launch is the one the GPU path sends: its values,
 * its pointers into shared buffers (host memory of the CPU engine, used in
 * place), and its arrays (copied in, and the out and inout ones copied back
 * into the result). A sequence of launches runs them one after the other
 * on the same arrays and module variables, swapping the arrays its swaps
 * pair between launches, as the worker does on a GPU. */
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

/* The memory of the launch's arrays, one each in order, with their
 * initial data (out arrays zeroed, as the worker's cudaMemset leaves them)
 * and their writers' records. */
static void
create_arrays (KsWorkerLaunch *launch, GArray *arrays)
{
  for (guint i = 0; i < launch->args->len; i++)
    {
      LaunchArg *arg = g_ptr_array_index (launch->args, i);
      EmuArray a = { NULL, 0, NULL, NULL };

      if (arg->kind == KS_WORKER_ARG_VALUE)
        continue;
      a.data = g_malloc0 (MAX (arg->size, 1));
      a.size = arg->size;
      if (arg->bytes != NULL)
        memcpy (a.data, g_bytes_get_data (arg->bytes, NULL),
                MIN (arg->size, g_bytes_get_size (arg->bytes)));
      if (launch->track_writers && arg->kind != KS_WORKER_ARG_ARRAY_IN && a.size >= 4)
        {
          a.block_of = g_new (gint32, a.size / 4);
          a.thread_of = g_new (gint32, a.size / 4);
          memset (a.block_of, 0xff, a.size / 4 * sizeof (gint32));
          memset (a.thread_of, 0xff, a.size / 4 * sizeof (gint32));
        }
      g_array_append_val (arrays, a);
    }
}

/* Adds the launch's arguments in order: bound[i] is the array (in `arrays`)
 * argument i passes, for the array arguments. */
static gboolean
add_args (KsWorkerLaunch *launch, KsEmuLaunch *emu, const guint64 *buffer_addresses,
          GArray *arrays, const guint *bound, GError **error)
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
          EmuArray *a = &g_array_index (arrays, EmuArray, bound[i]);
          g_autofree char *name = arg->name != NULL ? g_strdup (arg->name)
                                                    : g_strdup_printf ("argument %u", i + 1);
          guint64 address = ks_emu_launch_add_buffer (emu, a->data, a->size, name);

          if (a->block_of != NULL)
            ks_emu_launch_track_writers (emu, address, 4, a->block_of, a->thread_of);
          ks_emu_launch_add_param (emu, &address, sizeof address);
        }
    }
  return TRUE;
}

/* The out and inout arrays into result->arrays, in the order added, each
 * the one its argument passed at the last launch. */
static gboolean
collect_arrays (KsWorkerLaunch *launch, GArray *arrays, const guint *bound,
                KsWorkerRunResult *result, GError **error)
{
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

      if (arg->kind == KS_WORKER_ARG_VALUE || arg->kind == KS_WORKER_ARG_ARRAY_IN)
        continue;
      a = &g_array_index (arrays, EmuArray, bound[i]);
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
          /* A record kept for an array another argument swapped in. */
          g_ptr_array_add (result->block_of, g_memdup2 (a->block_of, a->size / 4 * 4));
          g_ptr_array_add (result->thread_of, g_memdup2 (a->thread_of, a->size / 4 * 4));
        }
    }
  return TRUE;
}

/* A module variable as the launch names it: its bytes in globals. */
static guint8 *
lookup_global (KsEmuGlobals *globals, const char *symbol, gsize expected, GError **error)
{
  gsize size = 0;
  guint8 *data = ks_emu_globals_lookup (globals, symbol, &size);

  if (data == NULL)
    g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                 "The module has no __device__ or __constant__ variable “%s”", symbol);
  else if (size != expected)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The variable “%s” is %" G_GSIZE_FORMAT " bytes, not %" G_GSIZE_FORMAT,
                   symbol, size, expected);
      data = NULL;
    }
  return data;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* What one launch of a sequence gave, added to the result. */
static void
add_launch_result (KsWorkerRunResult *result, KsEmuResult *run, GString *printf_text)
{
  if (run->printf_output != NULL)
    g_string_append (printf_text, run->printf_output);
  result->printf_lines += run->printf_lines;
  if (result->findings == NULL)
    result->findings = g_steal_pointer (&run->findings);
  result->n_findings += run->n_findings;
  result->lane_instructions += run->lane_instructions;
  result->global_atomics += run->global_atomics;
  result->shared_atomics += run->shared_atomics;
}

/* One launch of the sequence, on bound[], stopped after limit_ms (0: none). */
static gboolean
run_one (KsWorkerLaunch *launch, KeptModule *kept, KsEmuGlobals *globals,
         GArray *arrays, const guint *bound, guint limit_ms, GCancellable *cancellable,
         KsEmuResult *run, GError **error)
{
  g_autoptr (KsEmuLaunch) emu = NULL;
  g_autofree guint64 *addresses = NULL;

  emu = ks_emu_launch_new (kept->module, launch->lowered_name, launch->grid, launch->block,
                           launch->dynamic_shared);
  ks_emu_launch_set_time_limit (emu, limit_ms);
  ks_emu_launch_set_globals (emu, globals);
  if (launch->block_order_seed != 0)
    {
      /* One thread, the seed's order, and as many blocks at once as an
       * sm_90 multiprocessor holds: races between blocks lose updates, the
       * same ones every time. */
      ks_emu_launch_set_threads (emu, 1);
      ks_emu_launch_set_block_order (emu, launch->block_order_seed);
      ks_emu_launch_set_resident_blocks (emu, 32);
    }

  addresses = g_new0 (guint64, MAX (launch->buffers->len, 1));
  for (guint i = 0; i < launch->buffers->len; i++)
    {
      LaunchBuffer *b = &g_array_index (launch->buffers, LaunchBuffer, i);
      g_autofree char *name = b->name != NULL ? g_strdup (b->name)
                                              : g_strdup_printf ("shared buffer %u", i + 1);

      addresses[i] = ks_emu_launch_add_buffer (emu, b->device, b->size, name);
    }
  if (!add_args (launch, emu, addresses, arrays, bound, error))
    return FALSE;
  return ks_emu_launch_run (emu, cancellable, run, error);
}

gboolean
_ks_worker_run_emulated (KsWorker *self, KsWorkerLaunch *launch, GCancellable *cancellable,
                         KsWorkerRunResult *result, GError **error)
{
  g_autoptr (KeptModule) kept = NULL;
  g_autoptr (KsEmuGlobals) globals = NULL;
  g_autoptr (GArray) arrays = g_array_new (FALSE, TRUE, sizeof (EmuArray));
  g_autoptr (GString) printf_text = g_string_new (NULL);
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree guint *bound = NULL;
  guint timeout_ms = ks_worker_get_timeout_ms (self);
  gint64 start_us, deadline_us;
  gboolean ok = TRUE;

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
  g_array_set_clear_func (arrays, emu_array_clear);
  create_arrays (launch, arrays);
  bound = g_new0 (guint, MAX (launch->args->len, 1));
  for (guint i = 0, next = 0; i < launch->args->len; i++)
    if (((LaunchArg *) g_ptr_array_index (launch->args, i))->kind != KS_WORKER_ARG_VALUE)
      bound[i] = next++;

  /* The module's variables, shared by the launches: each run starts from
   * their initial values and what the request sets. */
  globals = ks_emu_globals_new (kept->module);
  for (guint i = 0; i < launch->set_globals->len; i++)
    {
      const LaunchGlobal *g = g_ptr_array_index (launch->set_globals, i);
      gsize size;
      const void *bytes = g_bytes_get_data (g->bytes, &size);
      guint8 *data = lookup_global (globals, g->symbol, size, error);

      if (data == NULL)
        return FALSE;
      memcpy (data, bytes, size);
    }

  result->emulated = TRUE;
  start_us = g_get_monotonic_time ();
  deadline_us = timeout_ms != 0 ? start_us + (gint64) timeout_ms * 1000 : 0;
  for (guint k = 0; k < launch->launches; k++)
    {
      KsEmuResult run = { 0 };
      /* The worker's limit is for the whole sequence: each launch gets
       * what the ones before left of it. */
      guint limit_ms = timeout_ms == 0 || k == 0
                       ? timeout_ms
                       : (guint) CLAMP ((deadline_us - g_get_monotonic_time () + 999) / 1000, 1,
                                        (gint64) timeout_ms);
      double ms;

      /* Ping-pong: the swapped arguments trade their arrays. */
      for (guint i = 0; k > 0 && i + 1 < launch->swaps->len; i += 2)
        {
          guint ia = g_array_index (launch->swaps, guint, i);
          guint ib = g_array_index (launch->swaps, guint, i + 1);
          guint tmp = bound[ia];

          bound[ia] = bound[ib];
          bound[ib] = tmp;
        }
      ok = run_one (launch, kept, globals, arrays, bound, limit_ms, cancellable, &run, error);
      ms = run.ms;
      add_launch_result (result, &run, printf_text);
      ks_emu_result_clear (&run);
      if (!ok)
        {
          if (launch->launches > 1 && error != NULL && *error != NULL
              && g_error_matches (*error, KS_ERROR, KS_ERROR_TIMED_OUT))
            {
              g_clear_error (error);
              g_set_error (error, KS_ERROR, KS_ERROR_TIMED_OUT,
                           "The %u launches ran past their time limit of %u ms, in launch %u",
                           launch->launches, timeout_ms, k + 1);
            }
          else if (launch->launches > 1)
            g_prefix_error (error, "Launch %u of %u: ", k + 1, launch->launches);
          break;
        }
      g_array_append_val (times, ms);
      result->launches_run = k + 1;
      /* A launch with findings ends the sequence: what came after would
       * build on the accesses it suppressed, and repeat its reports. */
      if (result->n_findings > 0)
        break;
    }
  result->round_trip_ms = (g_get_monotonic_time () - start_us) / 1000.0;
  result->printf_output = g_string_free (g_steal_pointer (&printf_text), FALSE);
  if (times->len > 0)
    {
      if (launch->launches > 1)
        result->launch_ms = g_array_copy (times);
      g_array_sort (times, compare_doubles);
      result->kernel_ms = g_array_index (times, double, times->len / 2);
      result->kernel_min_ms = g_array_index (times, double, 0);
      result->kernel_max_ms = g_array_index (times, double, times->len - 1);
    }
  if (!ok)
    return FALSE;

  result->globals = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  for (guint i = 0; i < launch->read_globals->len; i++)
    {
      const LaunchGlobal *g = g_ptr_array_index (launch->read_globals, i);
      g_autoptr (KsArray) array = ks_array_new (g->type, g->length, error);
      const guint8 *data;

      if (array == NULL)
        return FALSE;
      data = lookup_global (globals, g->symbol, ks_array_get_bytes (array), error);
      if (data == NULL)
        return FALSE;
      memcpy (array->data, data, ks_array_get_bytes (array));
      g_ptr_array_add (result->globals, g_steal_pointer (&array));
    }
  return collect_arrays (launch, arrays, bound, result, error);
}
