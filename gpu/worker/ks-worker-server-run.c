/* ks-worker-server-run.c: the worker's "run" request, in its phases: the
 * request read, what it names opened, the arguments bound (arrays allocated
 * and filled, guarded for a sanitizer), the module's variables set, the
 * launches timed over the repeats or a sequence (its arrays swapped between
 * launches), and the reply with the out arrays, the module's variables read
 * back, the copied buffers and the printf output. */
#include "config.h"

#include <string.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>

#include "ks-kernels.h"
#endif

#include "ks-error.h"
#include "ks-worker-server-private.h"

#if HAVE_CUDA
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

static ReplyKind
bad_request (GError **error, const char *message)
{
  _ks_worker_server_protocol_error (error, message);
  return REPLY_PROTOCOL;
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

  if (!_ks_worker_server_check (s, cudaMalloc (&guard, MAX (array_size, (gsize) 4096)),
                                "cudaMalloc (the guard after an array)", cuda_error, error))
    return FALSE;
  g_array_append_val (guards, guard);
  return TRUE;
}

/* What a run request asks for. */
typedef struct
{
  GVariant *buffers_v;      /* a(yayt): the shared buffers */
  GVariant *args_v;         /* a(uaya(ttu)t): the arguments */
  GVariant *swaps_v;        /* a(uu): argument indices */
  GVariant *set_globals_v;  /* a(say): module variables and their bytes */
  GVariant *read_globals_v; /* a(st): module variables and their sizes */
  dim3 grid, block;
  guint64 shared;
  guint repeats;
  guint launches;
  gboolean wait_ready;
  gboolean fresh_module;
} RunRequest;

static void
run_request_clear (RunRequest *req)
{
  g_clear_pointer (&req->buffers_v, g_variant_unref);
  g_clear_pointer (&req->args_v, g_variant_unref);
  g_clear_pointer (&req->swaps_v, g_variant_unref);
  g_clear_pointer (&req->set_globals_v, g_variant_unref);
  g_clear_pointer (&req->read_globals_v, g_variant_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunRequest, run_request_clear)

/* The request's fields; FALSE: it is malformed. */
static gboolean
run_read_request (GVariant *fields, RunRequest *req, GError **error)
{
  g_autoptr (GVariant) grid_v = NULL;
  g_autoptr (GVariant) block_v = NULL;
  g_autoptr (GVariant) shared_v = NULL;
  g_autoptr (GVariant) repeats_v = NULL;
  g_autoptr (GVariant) launches_v = NULL;

  if ((grid_v = _ks_worker_lookup (fields, "grid", "(uuu)", error)) == NULL
      || (block_v = _ks_worker_lookup (fields, "block", "(uuu)", error)) == NULL
      || (shared_v = _ks_worker_lookup (fields, "shared", "t", error)) == NULL
      || (repeats_v = _ks_worker_lookup (fields, "repeats", "u", error)) == NULL
      || (launches_v = _ks_worker_lookup (fields, "launches", "u", error)) == NULL
      || (req->buffers_v = _ks_worker_lookup (fields, "buffers", "a(yayt)", error)) == NULL
      || (req->args_v = _ks_worker_lookup (fields, "args", "a(uaya(ttu)t)", error)) == NULL
      || (req->swaps_v = _ks_worker_lookup (fields, "swaps", "a(uu)", error)) == NULL
      || (req->set_globals_v = _ks_worker_lookup (fields, "set-globals", "a(say)",
                                                  error)) == NULL
      || (req->read_globals_v = _ks_worker_lookup (fields, "read-globals", "a(st)",
                                                   error)) == NULL)
    return FALSE;
  g_variant_lookup (fields, "wait-ready", "b", &req->wait_ready);
  g_variant_lookup (fields, "fresh-module", "b", &req->fresh_module);
  g_variant_get (grid_v, "(uuu)", &req->grid.x, &req->grid.y, &req->grid.z);
  g_variant_get (block_v, "(uuu)", &req->block.x, &req->block.y, &req->block.z);
  req->shared = g_variant_get_uint64 (shared_v);
  req->repeats = CLAMP (g_variant_get_uint32 (repeats_v), 1, 10000);
  req->launches = CLAMP (g_variant_get_uint32 (launches_v), 1, KS_WORKER_MAX_LAUNCHES);
  if (req->repeats > 1 && req->launches > 1)
    return _ks_worker_server_protocol_error (error, "A run asks for repeats and launches");
  return TRUE;
}

/* A module variable of the request: its device memory, of the size the
 * client expects (it read the PTX). */
static gboolean
run_global (Server *s, cudaLibrary_t library, const char *symbol, gsize expected, void **ptr,
            int *cuda_error, GError **error)
{
  size_t size = 0;
  cudaError_t err = cudaLibraryGetGlobal (ptr, &size, library, symbol);

  if (err == cudaErrorSymbolNotFound || err == cudaErrorInvalidSymbol)
    {
      (void) cudaGetLastError ();
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The module has no __device__ or __constant__ variable “%s”", symbol);
      return FALSE;
    }
  if (!_ks_worker_server_check (s, err, "cudaLibraryGetGlobal", cuda_error, error))
    return FALSE;
  if (size != expected)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The variable “%s” is %" G_GSIZE_FORMAT " bytes on the GPU, not %"
                   G_GSIZE_FORMAT, symbol, (gsize) size, expected);
      return FALSE;
    }
  return TRUE;
}

/* The module variables the request sets, written before the first launch. */
static ReplyKind
run_set_globals (Server *s, cudaLibrary_t library, const RunRequest *req, int *cuda_error,
                 GError **error)
{
  GVariantIter iter;
  const char *symbol;
  GVariant *bytes;

  g_variant_iter_init (&iter, req->set_globals_v);
  while (g_variant_iter_next (&iter, "(&s@ay)", &symbol, &bytes))
    {
      g_autoptr (GVariant) owned = bytes;
      gsize n;
      const void *data = g_variant_get_fixed_array (bytes, &n, 1);
      void *ptr = NULL;

      if (!run_global (s, library, symbol, n, &ptr, cuda_error, error)
          || !_ks_worker_server_check (s, cudaMemcpyAsync (ptr, data, n, cudaMemcpyHostToDevice,
                                                           s->stream),
                                       "setting a module variable", cuda_error, error))
        return REPLY_ERROR;
    }
  return REPLY_OK;
}

/* What the run uses: the client's events, the kernel, and the shared
 * buffers (into `buffers`) once the client's stream has produced them. */
static ReplyKind
run_open (Server *s, GVariant *fields, const RunRequest *req, GArray *buffers,
          cudaKernel_t *kernel, cudaLibrary_t *library, int *cuda_error, GError **error)
{
  GVariantIter iter;
  guint8 kind8;
  GVariant *bytes;
  guint64 size;

  if (!_ks_worker_server_open_event (s, fields, "ready-event", &s->ready, error)
      || !_ks_worker_server_open_event (s, fields, "done-event", &s->done, error))
    return _ks_worker_server_error_kind (*error);
  if (!_ks_worker_server_get_kernel (s, fields, kernel, library, cuda_error, error))
    return _ks_worker_server_error_kind (*error);

  /* The client's stream produced the shared inputs: wait for it on the GPU. */
  if (req->wait_ready && s->ready != NULL
      && !_ks_worker_server_check (s, cudaStreamWaitEvent (s->stream, s->ready, 0),
                                   "cudaStreamWaitEvent", cuda_error, error))
    return REPLY_ERROR;

  g_variant_iter_init (&iter, req->buffers_v);
  while (g_variant_iter_next (&iter, "(y@ayt)", &kind8, &bytes, &size))
    {
      RunBuffer b = { 0 };
      gboolean ok = _ks_worker_server_open_buffer (s, kind8, bytes, size, buffers, &b, cuda_error,
                                                   error);

      g_variant_unref (bytes);
      if (b.device != NULL)
        g_array_append_val (buffers, b);
      if (!ok)
        return _ks_worker_server_error_kind (*error);
    }
  return REPLY_OK;
}

/* The kernel's arguments (into `args`, and what cudaLaunchKernel takes of
 * them into kernel_args): values with the shared buffers' pointers written
 * in, arrays allocated and filled. */
static ReplyKind
run_bind_args (Server *s, const RunRequest *req, GArray *buffers, GArray *args,
               GPtrArray *kernel_args, int *cuda_error, GError **error)
{
  g_autoptr (GArray) guards = g_array_new (FALSE, FALSE, sizeof (void *));
  GVariantIter iter;
  GVariant *bytes;
  cudaError_t err;

  g_array_set_clear_func (guards, free_guard);
  g_variant_iter_init (&iter, req->args_v);
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
            if (!_ks_worker_server_check (s, cudaMalloc (&a.device, MAX (a.size, 1)), "cudaMalloc",
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
            if (!_ks_worker_server_check (s, err, "copying an array to the GPU", cuda_error, error))
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
  return REPLY_OK;
}

/* Which launch of a sequence failed. */
static void
prefix_launch (GError **error, const RunRequest *req, guint r)
{
  if (req->launches > 1)
    g_prefix_error (error, "Launch %u of %u: ", r + 1, req->launches);
}

/* The launches, one a repeat, each from the bound data, or a sequence of
 * them, each on what the one before left; all timed by events:
 * *times_out their times; *lines_counter_out the prelude's count of the
 * lines printed, or NULL. */
static ReplyKind
run_launch (Server *s, cudaKernel_t kernel, cudaLibrary_t library, const RunRequest *req,
            GArray *args, GPtrArray *kernel_args, GArray **times_out,
            unsigned long long **lines_counter_out, int *cuda_error, GError **error)
{
  g_autoptr (GArray) times = NULL;
  dim3 grid = req->grid, block = req->block;
  guint64 shared = req->shared;
  guint repeats = MAX (req->repeats, req->launches);
  unsigned long long *lines_counter = NULL;
  size_t counter_size = 0;
  cudaError_t err;

  /* Past 48 KiB with its static shared memory, the kernel opts in. */
  if (!_ks_worker_server_check (s, ks_cuda_allow_shared ((const void *) kernel, shared),
                                "cudaFuncSetAttribute "
                                "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
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
      && !_ks_worker_server_check (s, cudaMemsetAsync (lines_counter, 0, counter_size, s->stream),
                                   "cudaMemsetAsync", cuda_error, error))
    return REPLY_ERROR;

  times = g_array_sized_new (FALSE, FALSE, sizeof (double), repeats);
  for (guint r = 0; r < repeats; r++)
    {
      float ms = 0;

      /* A sequence goes on from what the launch before left, its swapped
       * arrays trading places (kernel_args point at the devices). */
      if (req->launches > 1 && r > 0)
        {
          GVariantIter iter;
          guint32 ia, ib;

          g_variant_iter_init (&iter, req->swaps_v);
          while (g_variant_iter_next (&iter, "(uu)", &ia, &ib))
            {
              RunArg *a = &g_array_index (args, RunArg, ia);
              RunArg *b = &g_array_index (args, RunArg, ib);
              void *tmp = a->device;

              a->device = b->device;
              b->device = tmp;
            }
        }
      /* Every repeat starts from the bound data, so that a kernel that
       * updates an array in place gives the result of one run whatever the
       * repeats. */
      for (guint i = 0; req->launches == 1 && r > 0 && i < args->len; i++)
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
          if (!_ks_worker_server_check (s, err, "restoring an array before a repeat", cuda_error,
                                        error))
            return REPLY_ERROR;
        }
      if (!_ks_worker_server_check (s, cudaEventRecord (s->start, s->stream), "cudaEventRecord",
                                    cuda_error, error))
        return REPLY_ERROR;
      err = cudaLaunchKernel ((const void *) kernel, grid, block, kernel_args->pdata,
                              (size_t) shared, s->stream);
      if (err != cudaSuccess)
        {
          _ks_worker_server_check (s, err, "cudaLaunchKernel", cuda_error, error);
          /* Refused before it ran (a block too large, too many registers):
           * the context is fine. */
          if (!s->fatal)
            (*error)->code = KS_ERROR_LAUNCH_CONFIG;
          prefix_launch (error, req, r);
          return REPLY_ERROR;
        }
      if (!_ks_worker_server_check (s, cudaEventRecord (s->stop, s->stream), "cudaEventRecord",
                                    cuda_error, error))
        return REPLY_ERROR;
      /* Synchronise each launch: a fault is then the kernel's own, and
       * its printf output is flushed. */
      err = cudaStreamSynchronize (s->stream);
      if (err != cudaSuccess)
        {
          /* Any error seen here came from the kernel running. */
          _ks_worker_server_check (s, err, "the kernel", cuda_error, error);
          s->fatal = TRUE;
          (*error)->code = KS_ERROR_KERNEL_FAULT;
          prefix_launch (error, req, r);
          return REPLY_ERROR;
        }
      if (!_ks_worker_server_check (s, cudaEventElapsedTime (&ms, s->start, s->stop),
                                    "cudaEventElapsedTime", cuda_error, error))
        return REPLY_ERROR;
      {
        double t = ms;

        g_array_append_val (times, t);
      }
    }
  *times_out = g_steal_pointer (&times);
  *lines_counter_out = lines_counter;
  return REPLY_OK;
}

/* The reply: the out arrays and the copied buffers back from the GPU, the
 * times, and what the kernel printed with the lines of it lost. */
static ReplyKind
run_reply (Server *s, cudaLibrary_t library, const RunRequest *req, GArray *buffers,
           GArray *args, GArray *times, unsigned long long *lines_counter, GVariantDict *reply,
           int *cuda_error, GError **error)
{
  g_autofree char *printf_text = NULL;
  GVariantBuilder arrays, copied, globals;
  GVariantIter iter;
  const char *symbol;
  guint64 global_size;
  guint64 counted = 0;

  /* The module variables asked for, after the last launch. */
  g_variant_builder_init (&globals, G_VARIANT_TYPE ("aay"));
  g_variant_iter_init (&iter, req->read_globals_v);
  while (g_variant_iter_next (&iter, "(&st)", &symbol, &global_size))
    {
      void *ptr = NULL;
      guint8 *host;

      if (global_size > KS_WORKER_MESSAGE_MAX
          || !run_global (s, library, symbol, (gsize) global_size, &ptr, cuda_error, error))
        {
          if (global_size > KS_WORKER_MESSAGE_MAX)
            _ks_worker_server_protocol_error (error, "A module variable beyond a message's size");
          g_variant_builder_clear (&globals);
          return _ks_worker_server_error_kind (*error);
        }
      host = g_malloc (MAX (global_size, 1));
      if (!_ks_worker_server_check (s, cudaMemcpy (host, ptr, global_size,
                                                   cudaMemcpyDeviceToHost),
                                    "reading a module variable", cuda_error, error))
        {
          g_free (host);
          g_variant_builder_clear (&globals);
          return REPLY_ERROR;
        }
      g_variant_builder_add_value (&globals,
                                   g_variant_new_from_data (G_VARIANT_TYPE_BYTESTRING, host,
                                                            global_size, TRUE, g_free, host));
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
      if (!_ks_worker_server_check (s, cudaMemcpy (host, a->device, a->size,
                                                   cudaMemcpyDeviceToHost),
                                    "copying an array from the GPU", cuda_error, error))
        {
          g_free (host);
          g_variant_builder_clear (&arrays);
          g_variant_builder_clear (&globals);
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
      if (!_ks_worker_server_check (s, cudaMemcpy (host, b->device, b->size,
                                                   cudaMemcpyDeviceToHost),
                                    "copying a buffer from the GPU", cuda_error, error))
        {
          g_free (host);
          g_variant_builder_clear (&arrays);
          g_variant_builder_clear (&copied);
          g_variant_builder_clear (&globals);
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
    (void) _ks_worker_server_check (s, cudaEventRecord (s->done, s->stream), "cudaEventRecord",
                                    NULL, NULL);

  printf_text = _ks_worker_server_take_printf (s);
  /* A sequence's times in the order of its launches, before the sort. */
  g_variant_dict_insert_value (reply, "launch-ms",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE,
                                                          req->launches > 1 ? times->data : NULL,
                                                          req->launches > 1 ? times->len : 0,
                                                          sizeof (double)));
  g_variant_dict_insert (reply, "launches-run", "u", req->launches > 1 ? times->len : 1);
  g_array_sort (times, compare_doubles);
  {
    guint64 received = _ks_worker_server_count_lines (printf_text);

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
  g_variant_dict_insert_value (reply, "globals", g_variant_builder_end (&globals));
  return REPLY_OK;
}

/* The swaps name two arrays of one size (the client checked it; a request
 * that does not is malformed). */
static ReplyKind
run_check_swaps (const RunRequest *req, GArray *args, GError **error)
{
  GVariantIter iter;
  guint32 ia, ib;

  g_variant_iter_init (&iter, req->swaps_v);
  while (g_variant_iter_next (&iter, "(uu)", &ia, &ib))
    {
      const RunArg *a, *b;

      if (ia >= args->len || ib >= args->len || ia == ib)
        return bad_request (error, "A swap of arguments the run does not have");
      a = &g_array_index (args, RunArg, ia);
      b = &g_array_index (args, RunArg, ib);
      if (a->kind == KS_WORKER_ARG_VALUE || b->kind == KS_WORKER_ARG_VALUE || a->size != b->size)
        return bad_request (error, "A swap of arguments that are not two arrays of one size");
    }
  return REPLY_OK;
}

static ReplyKind
server_run (Server *s, GVariant *fields, GVariantDict *reply, GArray *buffers, GArray *args,
            int *cuda_error, GError **error)
{
  g_auto (RunRequest) req = { 0 };
  g_autoptr (GArray) times = NULL;
  g_autoptr (GPtrArray) kernel_args = g_ptr_array_new ();
  unsigned long long *lines_counter = NULL;
  cudaKernel_t kernel = NULL;
  cudaLibrary_t library = NULL;
  ReplyKind kind;

  if (!run_read_request (fields, &req, error))
    return REPLY_PROTOCOL;
  if (!_ks_worker_server_needs_cuda (s, error))
    return REPLY_ERROR;
  kind = run_open (s, fields, &req, buffers, &kernel, &library, cuda_error, error);
  if (kind == REPLY_OK)
    kind = run_bind_args (s, &req, buffers, args, kernel_args, cuda_error, error);
  if (kind == REPLY_OK)
    kind = run_check_swaps (&req, args, error);
  if (kind == REPLY_OK)
    kind = run_set_globals (s, library, &req, cuda_error, error);
  if (kind == REPLY_OK)
    kind = run_launch (s, kernel, library, &req, args, kernel_args, &times, &lines_counter,
                       cuda_error, error);
  if (kind == REPLY_OK)
    kind = run_reply (s, library, &req, buffers, args, times, lines_counter, reply, cuda_error,
                      error);
  /* What this run wrote into the module's variables is no later run's
   * start: the next loads the module afresh. */
  if (req.fresh_module && library != NULL && !s->fatal)
    _ks_worker_server_forget_library (s, library);
  return kind;
}
#endif

ReplyKind
_ks_worker_handle_run (Server *s, GVariant *fields, GVariantDict *reply, int *cuda_error,
                       GError **error)
{
#if HAVE_CUDA
  g_autoptr (GArray) buffers = g_array_new (FALSE, TRUE, sizeof (RunBuffer));
  g_autoptr (GArray) args = g_array_new (FALSE, TRUE, sizeof (RunArg));
  ReplyKind kind = server_run (s, fields, reply, buffers, args, cuda_error, error);

  if (!s->fatal)
    {
      /* Whatever the run left printed belongs to no later run. */
      g_free (_ks_worker_server_take_printf (s));
      run_free (buffers, args);
    }
  return kind;
#else
  (void) fields;
  (void) reply;
  (void) cuda_error;
  _ks_worker_server_needs_cuda (s, error);
  return REPLY_ERROR;
#endif
}
