/* ks-lesson-run-kernel.c: the lesson's real kernel on either engine. It is
 * compiled with NVRTC in the worker and its arguments are bound as the book
 * binds them; then
 *  - on the CPU engine (a worker without a device: the emulator, ks-emu.h)
 *    it runs once with the writers of every output element tracked and
 *    every access checked (the owners, the faults, the atomics and printf
 *    of the report), then again for the timings;
 *  - on CUDA it runs once as the book times it and then timed with the
 *    worker's events, the copies timed on the application's engine, and the
 *    outputs compared with the CPU engine's run of the same kernel. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array-run.h"
#include "ks-error.h"
#include "ks-lesson-private.h"

/* Whether the book's binding of an output allocates it without writing it:
 * drv.Out, mem_alloc, cudaMalloc and gpuarray.empty leave whatever the
 * allocator returns. */
static gboolean
binding_leaves_garbage (const char *book_binding)
{
  static const char *const uncleared[] = { "drv.Out", "mem_alloc", "cudaMalloc", "gpuarray.empty" };

  for (guint i = 0; book_binding != NULL && i < G_N_ELEMENTS (uncleared); i++)
    if (g_str_has_prefix (book_binding, uncleared[i]))
      return TRUE;
  return FALSE;
}

/* The elements an argument has on the device: under the sanitizer what the
 * book allocates (12-02's 256 bins, without the guard slot), else all. */
static gsize
device_length (const KsLessonRun *run, const KsLessonArg *a)
{
  if (run->sanitize && a->book_length != 0 && a->book_length < a->array->length)
    return a->book_length;
  return a->array->length;
}

static KsBinding *
binding_for (const KsLessonRun *run, const KsLessonArg *a)
{
  KsBinding *b = g_new0 (KsBinding, 1);

  b->name = g_strdup (a->name);
  b->is_array = a->is_array;
  if (a->is_array)
    {
      b->type = a->array->type;
      b->length = device_length (run, a);
      /* Outputs go in with their starting contents (zeros, or the poison of
       * a book variant), so both engines start from the same bytes. */
      b->direction = a->direction == KS_ARRAY_IN ? KS_ARRAY_IN : KS_ARRAY_INOUT;
      b->direction_given = TRUE;
      b->init = KS_ARRAY_INIT_ZEROS;
    }
  else
    b->value = g_strdup_printf ("%.17g", a->scalar);
  return b;
}

/* The index of the lesson's argument of that name (names are unique in a
 * lesson); -1 when none. */
static int
arg_named (const KsLessonRun *run, const char *name)
{
  for (guint k = 0; k < run->args->len; k++)
    if (g_str_equal (((const KsLessonArg *) g_ptr_array_index (run->args, k))->name, name))
      return (int) k;
  return -1;
}

/* A run of the lesson's kernel on its arguments as the array-run service
 * (ks-array-run.h) takes it: a binding per argument, an array per pointer
 * (data: a KsArray per argument, NULL for scalars, or NULL for the
 * arguments' own), the lesson's launch and dynamic shared memory. Under the
 * sanitizer, an output the book never clears reaches the kernel uncleared. */
typedef struct
{
  KsArrayRunRequest request;
  GPtrArray *bindings;
  GPtrArray *arrays;
  GArray *uncleared;
} LessonRequest;

static void
lesson_request_clear (LessonRequest *lr)
{
  g_clear_pointer (&lr->bindings, g_ptr_array_unref);
  g_clear_pointer (&lr->arrays, g_ptr_array_unref);
  g_clear_pointer (&lr->uncleared, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LessonRequest, lesson_request_clear)

static gboolean
lesson_request_init (const KsLessonRun *run, const GPtrArray *data, LessonRequest *lr,
                     GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (run->source);

  lr->bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  lr->arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  lr->uncleared = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *ka = g_ptr_array_index (args, i);
      int k = arg_named (run, ka->name);
      const KsLessonArg *la = k >= 0 ? g_ptr_array_index (run->args, k) : NULL;

      if (la == NULL || la->is_array != ka->pointer)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "the kernel's argument “%s” is not one of the lesson's data: an edited "
                       "kernel keeps the lesson's argument names and kinds", ka->name);
          return FALSE;
        }
      g_ptr_array_add (lr->bindings, binding_for (run, la));
      if (la->is_array)
        {
          const KsArray *from = data != NULL ? g_ptr_array_index (data, k) : la->array;
          gsize n = device_length (run, la);
          KsArray *copy;

          if (n == from->length)
            copy = ks_array_copy (from);
          else
            {
              copy = _ks_lesson_new_array (from->type, n, 0, 0);
              memcpy (copy->data, from->data, ks_array_get_bytes (copy));
            }
          g_ptr_array_add (lr->arrays, copy);
          if (run->sanitize && la->direction == KS_ARRAY_OUT
              && binding_leaves_garbage (la->book_binding))
            g_array_append_val (lr->uncleared, i);
        }
    }
  ks_array_run_request_init (&lr->request, run->source);
  lr->request.bindings = lr->bindings;
  lr->request.arrays = lr->arrays;
  lr->request.launch.block = run->block;
  lr->request.launch.grid = run->grid;
  lr->request.launch.auto_grid = FALSE;
  lr->request.dynamic_shared = run->shared;
  lr->request.uncleared = (const guint *) (gconstpointer) lr->uncleared->data;
  lr->request.n_uncleared = lr->uncleared->len;
  return TRUE;
}

/* Runs it in `worker`, with the launch checked against CUDA's limits (as
 * check_launch did before either engine ran) and the kernel's attributes. */
static gboolean
lesson_request_run (const KsLessonRun *run, KsWorker *worker, LessonRequest *lr,
                    KsArrayRunResult *result, GError **error)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();

  return ks_array_kernel_run (worker, ks_device_get_limits (cpu), &lr->request, result,
                              run->options.cancellable, error);
}

/* Bytes the kernel's arrays carry to the device (in, inout) and back (out,
 * inout): those of the arguments the source declares. */
static void
count_bytes (const KsLessonRun *run, gsize *bytes_in, gsize *bytes_out)
{
  const GPtrArray *args = ks_kernel_source_get_args (run->source);

  *bytes_in = *bytes_out = 0;
  for (guint i = 0; i < args->len; i++)
    {
      int k = arg_named (run, ((const KsKernelArg *) g_ptr_array_index (args, i))->name);
      const KsLessonArg *la = k >= 0 ? g_ptr_array_index (run->args, k) : NULL;

      if (la == NULL || !la->is_array)
        continue;
      *bytes_in += ks_array_get_bytes (la->array);
      if (la->direction != KS_ARRAY_IN)
        *bytes_out += ks_array_get_bytes (la->array);
    }
}

/* Host ↔ device copies of `bytes`, timed with CUDA events on the
 * application's engine: repeats runs after a warm-up. */
static gboolean
time_copies (const KsLessonRun *run, KsEngine *engine, gsize bytes, KsTiming *up,
             KsTiming *down, GError **error)
{
  guint repeats = MAX (run->options.repeats, 1);
  guint width = (guint) MIN (bytes, (gsize) 4096);
  guint height = (guint) ((bytes + width - 1) / width);
  g_autoptr (KsImage) image = NULL;

  if (bytes == 0)
    return TRUE;
  image = ks_image_new (KS_FORMAT_GRAY8, width, height, error);
  if (image == NULL)
    return FALSE;
  ks_timing_begin (up, repeats);
  ks_timing_begin (down, repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      double ms_up = 0, ms_down = 0;
      g_autoptr (KsBuffer) buffer = NULL;
      g_autoptr (KsImage) back = NULL;

      if (_ks_lesson_cancelled (run, error))
        return FALSE;
      buffer = ks_engine_upload (engine, image, &ms_up, error);
      if (buffer == NULL)
        return FALSE;
      back = ks_engine_download (engine, buffer, &ms_down, error);
      if (back == NULL)
        return FALSE;
      ks_timing_add (up, ms_up, r == 0);
      ks_timing_add (down, ms_down, r == 0);
    }
  ks_timing_compute (up);
  ks_timing_compute (down);
  return TRUE;
}

gboolean
_ks_lesson_compile (KsLessonRun *run, KsWorker *worker, const char *text, GError **error)
{
  KsLaunchConfig launch;

  run->source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, run->variant->source_name, text);
  ks_kernel_source_get_default_launch (run->source, &launch);
  launch.block = run->block;
  launch.grid = run->grid;
  launch.auto_grid = FALSE;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  launch.pixels_per_thread = 1;
  if (!ks_kernel_source_has_errors (run->source))
    {
      run->compiled = ks_worker_compile (worker, run->source, &launch, FALSE,
                                         run->options.cancellable, error);
      if (run->compiled == NULL)
        return FALSE;
    }
  if (run->compiled == NULL || !run->compiled->success)
    {
      const GPtrArray *diags = run->compiled != NULL
                               ? run->compiled->diagnostics
                               : ks_kernel_source_get_diagnostics (run->source);

      for (guint i = 0; diags != NULL && i < diags->len; i++)
        g_ptr_array_add (run->report->notes, ks_diagnostic_format (g_ptr_array_index (diags, i)));
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE, "the kernel %s does not compile",
                   run->variant->source_name);
      return FALSE;
    }
  return TRUE;
}

/* The index of the out array `name` in a run's result, or -1. */
static int
out_index (const GPtrArray *out_names, const char *name)
{
  for (guint i = 0; i < out_names->len; i++)
    if (g_str_equal (g_ptr_array_index (out_names, i), name))
      return (int) i;
  return -1;
}

gboolean
_ks_lesson_run_once (KsLessonRun *run, KsWorker *worker, const GPtrArray *data,
                     gboolean model, GPtrArray *results, KsWorkerRunResult *result,
                     GError **error)
{
  g_auto (LessonRequest) lr = { 0 };
  KsArrayRunResult ar = { 0 };
  gboolean ok;

  g_assert (run->compiled != NULL);
  if (!lesson_request_init (run, data, &lr, error))
    return FALSE;
  /* The model run: one worker thread, 32 resident blocks and the seed's
   * block order, so that the same data give the same result, races and "any
   * order" included. Other runs (the timings, 12-04's frames) use every core. */
  lr.request.track_writers = model;
  lr.request.block_order_seed = !model ? 0 : run->options.seed != 0 ? run->options.seed : 1;
  ok = !_ks_lesson_cancelled (run, error) && lesson_request_run (run, worker, &lr, &ar, error);
  /* What the run found is the caller's, on failure too. */
  *result = ar.run;
  memset (&ar.run, 0, sizeof ar.run);
  if (ok)
    {
      /* The outputs by argument, with the shapes the lesson gave them. */
      g_ptr_array_set_size (results, 0);
      for (guint i = 0; i < run->args->len; i++)
        g_ptr_array_add (results, NULL);
      for (guint k = 0; k < run->args->len; k++)
        {
          const KsLessonArg *la = g_ptr_array_index (run->args, k);
          int i = out_index (ar.out_names, la->name);
          KsArray *a;

          if (i < 0 || (guint) i >= result->arrays->len)
            continue;
          a = ks_array_copy (g_ptr_array_index (result->arrays, i));
          if (a->length == la->array->length)
            {
              a->rows = la->array->rows;
              a->cols = la->array->cols;
            }
          g_ptr_array_index (results, k) = a;
        }
    }
  ks_array_run_result_clear (&ar);
  return ok;
}

gboolean
_ks_lesson_run_in_place (KsLessonRun *run, KsWorker *worker, GPtrArray *data, GError **error)
{
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  KsWorkerRunResult result = { 0 };
  gboolean ok = _ks_lesson_run_once (run, worker, data, FALSE, results, &result, error);

  for (guint k = 0; ok && k < results->len && k < data->len; k++)
    {
      const KsArray *from = g_ptr_array_index (results, k);
      KsArray *to = g_ptr_array_index (data, k);

      if (from != NULL && to != NULL)
        memcpy (to->data, from->data, MIN (ks_array_get_bytes (from), ks_array_get_bytes (to)));
    }
  ks_worker_run_result_clear (&result);
  return ok;
}

/* A finding of the CPU engine's checks on one line, for the report. */
static char *
fault_text (const KsEmuFinding *f)
{
  g_auto (GStrv) lines = g_strsplit (f->message, "\n", -1);
  GString *s = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      if (lines[i][0] == '\0')
        continue;
      if (s->len > 0)
        g_string_append (s, i == 1 ? ": " : "; ");
      g_string_append (s, lines[i]);
    }
  return g_string_free (s, FALSE);
}

/* The first run on the CPU engine: the outputs (run->results), who wrote
 * each element of those small enough to show (run->block_of, thread_of),
 * what the checks found (the report's faults), the atomics and printf. */
static gboolean
model_run (KsLessonRun *run, GError **error)
{
  KsLessonReport *report = run->report;
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  KsWorkerRunResult result = { 0 };
  gboolean ok;

  ok = _ks_lesson_run_once (run, run->cpu_worker, NULL, TRUE, results, &result, error);
  /* What the checks found explains a run that stopped too. */
  report->n_faults = result.n_findings;
  for (guint i = 0; result.findings != NULL && i < result.findings->len
                    && report->faults->len < KS_LESSON_MAX_LISTED_FAULTS; i++)
    g_ptr_array_add (report->faults, fault_text (g_ptr_array_index (result.findings, i)));
  if (!ok)
    {
      ks_worker_run_result_clear (&result);
      return FALSE;
    }
  report->atomics.global = result.global_atomics;
  report->atomics.shared = result.shared_atomics;
  g_free (report->printf_output);
  report->printf_output = g_strdup (result.printf_output != NULL ? result.printf_output : "");

  /* The owners, per argument: the worker gives them per out array, in the
   * order of the arguments the kernel declares. */
  run->block_of = g_new0 (gint32 *, run->args->len);
  run->thread_of = g_new0 (gint32 *, run->args->len);
  {
    const GPtrArray *args = ks_kernel_source_get_args (run->source);
    guint next = 0;

    for (guint i = 0; i < args->len; i++)
      {
        const KsKernelArg *ka = g_ptr_array_index (args, i);
        int k = arg_named (run, ka->name);
        const KsLessonArg *la;

        if (k < 0 || !ka->pointer)
          continue;
        la = g_ptr_array_index (run->args, k);
        if (la->direction == KS_ARRAY_IN)
          continue;
        if (result.block_of != NULL && next < result.block_of->len
            && la->array->length <= KS_LESSON_OWNER_LIMIT)
          {
            run->block_of[k] = g_steal_pointer (&g_ptr_array_index (result.block_of, next));
            run->thread_of[k] = g_steal_pointer (&g_ptr_array_index (result.thread_of, next));
          }
        next++;
      }
  }
  g_clear_pointer (&run->results, g_ptr_array_unref);
  run->results = g_steal_pointer (&results);
  ks_worker_run_result_clear (&result);
  return TRUE;
}

/* The CPU engine under the timing protocol: `repeats` runs after a warm-up,
 * each split into the copies into the run's memory (upload: the launch's
 * arrays made from the arguments), the emulator's run (kernel) and the
 * copies of the outputs back (download). */
static gboolean
time_model (KsLessonRun *run, KsLessonTimings *t, gboolean engine_is_cpu, GError **error)
{
  guint repeats = MAX (run->options.repeats, 1);
  KsTiming upload = { 0 }, kernel = { 0 }, download = { 0 };
  KsTiming *stages[] = { &upload, &kernel, &download };

  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    ks_timing_begin (stages[k], repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      g_auto (LessonRequest) lr = { 0 };
      g_autoptr (GPtrArray) back = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
      KsArrayRunResult result = { 0 };
      double t0, t1, t2, t3;

      if (_ks_lesson_cancelled (run, error))
        goto fail;
      t0 = _ks_lesson_now_ms ();
      if (!lesson_request_init (run, NULL, &lr, error))
        goto fail;
      t1 = _ks_lesson_now_ms ();
      if (!lesson_request_run (run, run->cpu_worker, &lr, &result, error))
        {
          ks_array_run_result_clear (&result);
          goto fail;
        }
      t2 = _ks_lesson_now_ms ();
      for (guint i = 0; i < result.run.arrays->len; i++)
        g_ptr_array_add (back, ks_array_copy (g_ptr_array_index (result.run.arrays, i)));
      t3 = _ks_lesson_now_ms ();
      /* The worker's copies of the outputs are part of its run's wall time;
       * the compile cache's look-up and the launch's check are too, and
       * small. */
      ks_timing_add (&upload, t1 - t0, r == 0);
      ks_timing_add (&kernel, result.run.kernel_ms, r == 0);
      ks_timing_add (&download, MAX (t2 - t1 - result.run.kernel_ms, 0) + (t3 - t2), r == 0);
      ks_array_run_result_clear (&result);
    }
  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    ks_timing_compute (stages[k]);
  ks_timing_clear (&t->cpu_kernel);
  if (engine_is_cpu)
    {
      ks_timing_clear (&t->upload);
      ks_timing_clear (&t->download);
      ks_timing_clear (&t->kernel);
      t->upload = upload;
      t->download = download;
      t->kernel = kernel;
      t->cpu_kernel = kernel;
      t->cpu_kernel.samples_ms = g_memdup2 (kernel.samples_ms, sizeof (double) * kernel.n);
    }
  else
    {
      ks_timing_clear (&upload);
      ks_timing_clear (&download);
      t->cpu_kernel = kernel;
    }
  return TRUE;

fail:
  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    ks_timing_clear (stages[k]);
  return FALSE;
}

gboolean
_ks_lesson_run_model (KsLessonRun *run, gboolean engine_is_cpu, GError **error)
{
  KsLessonReport *report = run->report;
  double t0 = _ks_lesson_now_ms ();

  if (!model_run (run, error))
    return FALSE;
  if (engine_is_cpu)
    {
      report->timings.book_total_ms = _ks_lesson_now_ms () - t0 + run->compiled->compile_ms;
      report->timings.book_total_covers =
        g_strdup_printf ("NVRTC's compile (%s) and the first run on the CPU engine as one "
                         "span: the arrays made, the kernel's PTX run with every access "
                         "checked, the outputs copied back", run->compiled->cached
                         ? "found in the compile cache" : "compiled now");
    }
  return time_model (run, &report->timings, engine_is_cpu, error);
}

gboolean
_ks_lesson_run_cuda (KsLessonRun *run, KsEngine *engine, KsWorker *worker, GError **error)
{
  KsLessonReport *report = run->report;
  g_autoptr (GPtrArray) cuda_results =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  g_auto (LessonRequest) timed = { 0 };
  KsWorkerRunResult first_run = { 0 };
  KsArrayRunResult timed_run = { 0 };
  gsize bytes_in = 0, bytes_out = 0;
  guint repeats = MAX (run->options.repeats, 1);
  double t0;
  gboolean ok = FALSE;

  t0 = _ks_lesson_now_ms ();
  count_bytes (run, &bytes_in, &bytes_out);

  /* First use, as the book times it: compiled (before this), then one
   * launch that allocates, copies in, runs and copies out. */
  if (!_ks_lesson_run_once (run, worker, NULL, FALSE, cuda_results, &first_run, error))
    goto out;
  report->timings.book_total_ms = _ks_lesson_now_ms () - t0 + run->compiled->compile_ms;
  report->timings.book_total_covers =
    g_strdup_printf ("the host clock from compiling (%s) through the worker's first run: "
                     "allocation, %" G_GSIZE_FORMAT " bytes up, the kernel, %" G_GSIZE_FORMAT
                     " bytes down, the wait", run->compiled->cached
                     ? "found in the compile cache" : "NVRTC", bytes_in, bytes_out);
  g_free (report->printf_output);
  report->printf_output = g_strdup (first_run.printf_output != NULL ? first_run.printf_output
                                                                    : "");
  if (run->sanitize)
    {
      /* One run is what the tool checks. */
      g_clear_pointer (&run->results, g_ptr_array_unref);
      run->results = g_steal_pointer (&cuda_results);
      ok = TRUE;
      goto out;
    }

  /* The kernel alone: the worker's CUDA events, repeats after its warm-up. */
  if (!lesson_request_init (run, NULL, &timed, error))
    goto out;
  timed.request.repeats = repeats;
  if (_ks_lesson_cancelled (run, error) || !lesson_request_run (run, worker, &timed, &timed_run,
                                                                 error))
    goto out;
  ks_timing_clear (&report->timings.kernel);
  ks_timing_begin (&report->timings.kernel, 0);
  report->timings.kernel.n = repeats;
  report->timings.kernel.median_ms = timed_run.run.kernel_ms;
  report->timings.kernel.min_ms = timed_run.run.kernel_min_ms;
  report->timings.kernel.max_ms = timed_run.run.kernel_max_ms;
  report->timings.kernel.mad_ms = NAN;
  report->timings.kernel.warmup_ms = first_run.kernel_ms;
  ks_timing_clear (&report->timings.upload);
  ks_timing_clear (&report->timings.download);
  if (!time_copies (run, engine, bytes_in, &report->timings.upload, &report->timings.download,
                    error))
    goto out;
  if (bytes_out != bytes_in && bytes_out > 0)
    {
      KsTiming ignored = { 0 };
      gboolean timed_down;

      ks_timing_clear (&report->timings.download);
      timed_down = time_copies (run, engine, bytes_out, &ignored, &report->timings.download,
                                error);
      ks_timing_clear (&ignored);
      if (!timed_down)
        goto out;
    }

  /* The first run's outputs, compared with the CPU engine's, then kept. */
  report->matches_cpu = TRUE;
  for (guint k = 0; k < run->args->len; k++)
    {
      const KsArray *cpu = run->results != NULL ? g_ptr_array_index (run->results, k) : NULL;
      const KsArray *gpu = g_ptr_array_index (cuda_results, k);
      const KsLessonArg *la = g_ptr_array_index (run->args, k);
      gsize at = 0;

      if (!la->is_array || la->direction == KS_ARRAY_IN || gpu == NULL)
        continue;
      if (cpu != NULL && !ks_array_equal (cpu, gpu, run->abs_tol, run->rel_tol, &at))
        {
          report->matches_cpu = FALSE;
          if (report->cpu_difference == NULL)
            report->cpu_difference =
              g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]: CUDA %g, CPU engine %g", la->name, at,
                               ks_array_get_double (gpu, at), ks_array_get_double (cpu, at));
        }
    }
  if (run->results == NULL)
    report->matches_cpu = FALSE;
  g_clear_pointer (&run->results, g_ptr_array_unref);
  run->results = g_steal_pointer (&cuda_results);
  report->timings.method =
    g_strdup_printf ("compile: NVRTC in the worker (%s); kernel: CUDA events in the worker, the "
                     "median of %u runs after a warm-up; upload and download: CUDA events on "
                     "the application's engine for the same bytes (pageable host memory, "
                     "rounded up to whole 4096-byte rows); cpu_kernel: the CPU engine's run "
                     "of the same kernel on the same data; reference: the plain C loop", run->compiled->cached ? "cached"
                     : "compiled now", repeats);
  ok = TRUE;

out:
  ks_worker_run_result_clear (&first_run);
  ks_array_run_result_clear (&timed_run);
  return ok;
}
