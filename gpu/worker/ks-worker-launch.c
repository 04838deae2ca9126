/* ks-worker-launch.c: KsWorkerLaunch (ks-worker.h), one launch as it is
 * built before a run: the compiled entry and its shape, the shared device
 * buffers (by their allocation), and the arguments (values, values holding
 * pointers into shared buffers, arrays, an "any" kernel's bindings). */
#include "config.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-error.h"
#include "ks-worker-client-private.h"

/* ---- launches ------------------------------------------------------------ */

static void
launch_arg_free (gpointer data)
{
  LaunchArg *arg = data;

  g_clear_pointer (&arg->bytes, g_bytes_unref);
  g_clear_pointer (&arg->pointers, g_array_unref);
  g_clear_pointer (&arg->element, ks_value_type_unref);
  g_free (arg->name);
  g_free (arg);
}

static void
launch_global_free (gpointer data)
{
  LaunchGlobal *g = data;

  g_free (g->symbol);
  g_clear_pointer (&g->bytes, g_bytes_unref);
  g_free (g);
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
  if (compiled->success)
    launch->ptx = g_strdup (compiled->ptx);
  launch->lowered_name = g_strdup (resources != NULL ? resources->lowered_name : NULL);
  launch->grid = grid;
  launch->block = block;
  launch->dynamic_shared = dynamic_shared;
  launch->buffers = g_array_new (FALSE, TRUE, sizeof (LaunchBuffer));
  launch->shares = g_array_new (FALSE, TRUE, sizeof (LaunchShare));
  launch->args = g_ptr_array_new_with_free_func (launch_arg_free);
  launch->repeats = 1;
  launch->launches = 1;
  launch->swaps = g_array_new (FALSE, FALSE, sizeof (guint));
  launch->set_globals = g_ptr_array_new_with_free_func (launch_global_free);
  launch->read_globals = g_ptr_array_new_with_free_func (launch_global_free);
  if (launch->ptx != NULL)
    {
      g_autoptr (GPtrArray) globals = ks_module_globals_from_ptx (launch->ptx);

      launch->has_globals = globals->len > 0;
    }
  return launch;
}

void
ks_worker_launch_free (KsWorkerLaunch *launch)
{
  if (launch == NULL)
    return;
  g_clear_pointer (&launch->cubin, g_bytes_unref);
  g_free (launch->ptx);
  g_free (launch->lowered_name);
  g_array_unref (launch->buffers);
  g_array_unref (launch->shares);
  g_ptr_array_unref (launch->args);
  g_array_unref (launch->swaps);
  g_ptr_array_unref (launch->set_globals);
  g_ptr_array_unref (launch->read_globals);
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
ks_worker_launch_share (KsWorkerLaunch *launch, gpointer device_ptr, gsize size,
                        const char *name)
{
  LaunchBuffer b = { device_ptr, size, name };
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
  arg->element = array->element != NULL ? ks_value_type_ref (array->element) : NULL;
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
          ((LaunchArg *) g_ptr_array_index (launch->args, launch->args->len - 1))->name =
            g_strdup (arg->name);
          if (direction != KS_ARRAY_IN && out_names != NULL)
            g_ptr_array_add (out_names, g_strdup (arg->name));
        }
      else
        {
          g_autoptr (GBytes) bytes = ks_binding_pack_scalar (b, arg, error);

          if (bytes == NULL)
            return FALSE;
          /* float3 is 12 bytes aligned to 4, double2 16 aligned to 16 */
          ks_worker_launch_add_value (launch, g_bytes_get_data (bytes, NULL),
                                      g_bytes_get_size (bytes), ks_kernel_arg_get_align (arg));
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
        longest = MAX (longest, ks_array_get_count (a));
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
ks_worker_launch_set_cpu_model (KsWorkerLaunch *launch, gboolean track_writers,
                                guint64 block_order_seed)
{
  g_return_if_fail (launch != NULL);
  launch->track_writers = track_writers;
  launch->block_order_seed = block_order_seed;
}

void
ks_worker_launch_set_repeats (KsWorkerLaunch *launch, guint repeats)
{
  g_return_if_fail (launch != NULL);
  launch->repeats = MAX (repeats, 1);
}

/* ---- sequences and module variables ---------------------------------------- */

void
ks_worker_launch_set_launches (KsWorkerLaunch *launch, guint launches)
{
  g_return_if_fail (launch != NULL);
  launch->launches = MAX (launches, 1);
}

void
ks_worker_launch_add_swap (KsWorkerLaunch *launch, guint a, guint b)
{
  g_return_if_fail (launch != NULL);
  g_array_append_val (launch->swaps, a);
  g_array_append_val (launch->swaps, b);
}

void
ks_worker_launch_set_global (KsWorkerLaunch *launch, const char *symbol, GBytes *bytes)
{
  LaunchGlobal *g;

  g_return_if_fail (launch != NULL);
  g_return_if_fail (symbol != NULL && bytes != NULL);

  g = g_new0 (LaunchGlobal, 1);
  g->symbol = g_strdup (symbol);
  g->bytes = g_bytes_ref (bytes);
  g_ptr_array_add (launch->set_globals, g);
}

void
ks_worker_launch_read_global (KsWorkerLaunch *launch, const char *symbol, KsElemType type,
                              gsize length)
{
  LaunchGlobal *g;

  g_return_if_fail (launch != NULL);
  g_return_if_fail (symbol != NULL);
  g_return_if_fail (type != KS_ELEM_OTHER && length > 0);

  g = g_new0 (LaunchGlobal, 1);
  g->symbol = g_strdup (symbol);
  g->type = type;
  g->length = length;
  g_ptr_array_add (launch->read_globals, g);
}

static const char *
arg_label (const LaunchArg *arg, guint index, char *buf, gsize size)
{
  if (arg->name != NULL)
    g_snprintf (buf, size, "“%s”", arg->name);
  else
    g_snprintf (buf, size, "argument %u", index + 1);
  return buf;
}

gboolean
_ks_worker_launch_check (const KsWorkerLaunch *launch, GError **error)
{
  g_autofree guint8 *paired = NULL;

  if (launch->launches > 1 && launch->repeats > 1)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%u repeats time one launch again and again from the same inputs; %u "
                   "launches run a sequence, each on what the one before left: ask for one "
                   "or the other (each launch of a sequence is timed)",
                   launch->repeats, launch->launches);
      return FALSE;
    }
  paired = g_new0 (guint8, MAX (launch->args->len, 1));
  for (guint i = 0; i + 1 < launch->swaps->len; i += 2)
    {
      guint ia = g_array_index (launch->swaps, guint, i);
      guint ib = g_array_index (launch->swaps, guint, i + 1);
      const LaunchArg *a, *b;
      char la[64], lb[64];

      if (ia >= launch->args->len || ib >= launch->args->len)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "A swap names argument %u; the kernel has %u", MAX (ia, ib) + 1,
                       launch->args->len);
          return FALSE;
        }
      a = g_ptr_array_index (launch->args, ia);
      b = g_ptr_array_index (launch->args, ib);
      arg_label (a, ia, la, sizeof la);
      arg_label (b, ib, lb, sizeof lb);
      if (ia == ib)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s cannot swap with itself: name two pointer arguments", la);
          return FALSE;
        }
      if (a->kind == KS_WORKER_ARG_VALUE || b->kind == KS_WORKER_ARG_VALUE)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s is not an array: only two pointer arguments swap their arrays",
                       a->kind == KS_WORKER_ARG_VALUE ? la : lb);
          return FALSE;
        }
      if (paired[ia] || paired[ib])
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s is in two swaps; an array swaps with one other at most",
                       paired[ia] ? la : lb);
          return FALSE;
        }
      paired[ia] = paired[ib] = TRUE;
      if (a->size != b->size || a->type != b->type)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s (%s[%" G_GSIZE_FORMAT "]) and %s (%s[%" G_GSIZE_FORMAT "]) cannot "
                       "swap: ping-pong arrays have the same type and length", la,
                       ks_elem_type_short_name (a->type), a->length, lb,
                       ks_elem_type_short_name (b->type), b->length);
          return FALSE;
        }
    }
  return TRUE;
}
