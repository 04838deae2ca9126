/* ks-lesson-run.c: ks_lesson_run and its phases: the lesson's size, data
 * and launch (its KsLessonImpl's setup), the limits any CUDA device sets,
 * the reference timed, the kernel compiled and run on the CPU engine and on
 * CUDA (ks-lesson-run-kernel.c), the report's arrays, the check, and the
 * lesson's finish; the same preparation for a run under compute-sanitizer. */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-lesson-private.h"

void
ks_lesson_options_init (KsLessonOptions *options)
{
  memset (options, 0, sizeof *options);
  options->repeats = 5;
  options->seed = 1;
}

/* The size a lesson runs on, from its size hook (the option, else its
 * default); a lesson without one takes none. */
static gboolean
resolve_size (KsLessonRun *run, GError **error)
{
  const char *id = run->lesson->id;
  guint size = run->options.size;

  if (run->lesson->impl->size != NULL)
    {
      if (!run->lesson->impl->size (run, error))
        return FALSE;
    }
  else if (size != 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson %s runs on the tutorial's data: it takes no size (only 11-05, 11-07, "
                   "11-09 and 12-04, its frames, do)", id);
      return FALSE;
    }
  if (run->size > 1u << 24)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "size %u is too large", run->size);
      return FALSE;
    }
  return TRUE;
}

static void
lesson_arg_free (KsLessonArg *a)
{
  g_free (a->name);
  g_clear_pointer (&a->array, ks_array_free);
  g_free (a);
}

static void
run_free (KsLessonRun *run)
{
  if (run->lesson_data_free != NULL)
    run->lesson_data_free (run->lesson_data);
  if (run->block_of != NULL)
    for (guint i = 0; i < run->args->len; i++)
      {
        g_free (run->block_of[i]);
        g_free (run->thread_of[i]);
      }
  g_ptr_array_unref (run->args);
  g_clear_pointer (&run->results, g_ptr_array_unref);
  g_free (run->block_of);
  g_free (run->thread_of);
  g_clear_pointer (&run->compiled, ks_compile_result_free);
  g_clear_pointer (&run->source, ks_kernel_source_unref);
  g_clear_object (&run->cpu_worker);
  g_free (run);
}

static KsLessonRun *
run_new (const KsLesson *lesson, const KsLessonVariant *variant, const KsLessonOptions *options)
{
  KsLessonRun *run = g_new0 (KsLessonRun, 1);

  run->lesson = lesson;
  run->variant = variant;
  if (options != NULL)
    run->options = *options;
  else
    ks_lesson_options_init (&run->options);
  run->args = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_arg_free);
  run->checked_arg = -1;
  return run;
}

static gboolean
dim3_given (KsDim3 d)
{
  return d.x != 0 && d.y != 0 && d.z != 0;
}

/* The options' launch in place of the lesson's, where they give one. */
static void
apply_launch (KsLessonRun *run)
{
  if (dim3_given (run->options.grid))
    run->grid = run->options.grid;
  if (dim3_given (run->options.block))
    run->block = run->options.block;
}

void
ks_lesson_get_launch (const KsLesson *lesson, const KsLessonVariant *variant,
                      const KsLessonOptions *options, KsDim3 *grid, KsDim3 *block,
                      guint64 *dynamic_shared)
{
  KsLessonRun run = { 0 };
  KsLessonReport report = { 0 };
  KsLessonOptions defaults;

  g_return_if_fail (lesson != NULL && variant != NULL);
  if (options == NULL)
    {
      ks_lesson_options_init (&defaults);
      options = &defaults;
    }
  run.lesson = lesson;
  run.variant = variant;
  run.options = *options;
  run.report = &report;
  run.args = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_arg_free);
  report.notes = g_ptr_array_new_with_free_func (g_free);
  if (resolve_size (&run, NULL) && lesson->impl->setup (&run, NULL))
    {
      apply_launch (&run);
      *grid = run.grid;
      *block = run.block;
      *dynamic_shared = run.shared;
    }
  else
    {
      *grid = _ks_lesson_dim3 (0, 0, 0);
      *block = _ks_lesson_dim3 (0, 0, 0);
      *dynamic_shared = 0;
    }
  /* What the set-up made beside the arguments (12-04's frames). */
  if (run.lesson_data_free != NULL)
    run.lesson_data_free (run.lesson_data);
  g_ptr_array_unref (run.args);
  g_ptr_array_unref (report.notes);
}

/* What any CUDA device refuses, by the launch rule against the CPU device's
 * limits (CUDA's); checked before either engine runs, so that the CPU engine
 * teaches the same limits. Then what only the CPU engine limits in a lesson:
 * how many threads it runs on one worker thread. */
static gboolean
check_launch (const KsLessonRun *run, GError **error)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  const KsDeviceLimits *limits = ks_device_get_limits (cpu);
  guint64 threads = (guint64) run->block.x * run->block.y * run->block.z;
  guint64 total = threads;
  const guint grid[3] = { run->grid.x, run->grid.y, run->grid.z };
  g_autoptr (GError) local = NULL;
  const char *field = NULL;
  gboolean overflow = FALSE;
  KsLaunchConfig launch;

  ks_launch_config_init (&launch, 1, 1);
  launch.block = run->block;
  launch.grid = run->grid;
  launch.auto_grid = FALSE;
  launch.pixels_per_thread = 1;
  if (!ks_launch_config_check_limits (&launch, limits, &field, &local))
    {
      /* A block too large is the lesson's usual mistake: say the way out. */
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG, "%s%s", local->message,
                   g_strcmp0 (field, "block") == 0 && threads > 0
                     ? "; use a grid of several blocks" : "");
      return FALSE;
    }
  /* A grid at CUDA's limits times a full block does not fit in 64 bits. */
  for (guint i = 0; i < 3 && !overflow; i++)
    overflow = !g_uint64_checked_mul (&total, total, grid[i]);
  if (overflow || total > KS_LESSON_MAX_THREADS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "%s%" G_GUINT64_FORMAT " threads: the CPU engine runs at most %" G_GUINT64_FORMAT
                   " in a lesson (on one worker thread)", overflow ? "more than " : "",
                   overflow ? G_MAXUINT64 : total, KS_LESSON_MAX_THREADS);
      return FALSE;
    }
  /* The lessons' launches do not opt in to more. */
  if (run->shared > limits->shared_mem_per_block)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "%" G_GUINT64_FORMAT " bytes of dynamic shared memory: at most "
                   "%" G_GUINT64_FORMAT " without opting in", run->shared,
                   limits->shared_mem_per_block);
      return FALSE;
    }
  return TRUE;
}

/* The reference, timed: what the last run computes is the check's. */
static gboolean
time_reference (KsLessonRun *run, GError **error)
{
  KsLessonCheck *check = &run->report->check;
  KsTiming *timing = &run->report->timings.reference;
  guint repeats = MAX (run->options.repeats, 1);

  if (run->lesson->impl->reference == NULL)
    return TRUE;
  ks_timing_clear (timing);
  ks_timing_begin (timing, repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      double t0;

      if (_ks_lesson_cancelled (run, error))
        return FALSE;
      g_clear_pointer (&check->expected_values, ks_array_free);
      t0 = _ks_lesson_now_ms ();
      check->expected_values = run->lesson->impl->reference (run);
      ks_timing_add (timing, _ks_lesson_now_ms () - t0, r == 0);
    }
  ks_timing_compute (timing);
  return TRUE;
}

static void
collect_arrays (KsLessonRun *run)
{
  KsLessonReport *report = run->report;

  for (guint i = 0; i < run->args->len; i++)
    {
      const KsLessonArg *a = g_ptr_array_index (run->args, i);
      KsLessonArray *la;

      if (!a->is_array)
        continue;
      if (a->direction != KS_ARRAY_OUT)
        g_ptr_array_add (report->inputs, _ks_lesson_array_new (a->name, a->direction == KS_ARRAY_IN
                                                               ? "input" : "inout",
                                                               ks_array_copy (a->array)));
      if (a->direction == KS_ARRAY_IN || g_ptr_array_index (run->results, i) == NULL)
        continue;
      la = _ks_lesson_array_new (a->name, a->direction == KS_ARRAY_OUT ? "output" : "inout",
                                 ks_array_copy (g_ptr_array_index (run->results, i)));
      if (run->block_of != NULL && run->block_of[i] != NULL)
        {
          la->block_of = g_steal_pointer (&run->block_of[i]);
          la->thread_of = g_steal_pointer (&run->thread_of[i]);
        }
      g_ptr_array_add (report->outputs, la);
    }
}

/* What a lesson without a kernel (11-02) refuses: an edit of its host code,
 * another launch. */
static gboolean
check_host_only (const KsLessonRun *run, GError **error)
{
  if (run->report->edited)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson %s runs no kernel: its text is the host's code, shown for reading, "
                   "and does not run (Reset restores it)", run->lesson->id);
      return FALSE;
    }
  if (dim3_given (run->options.grid) || dim3_given (run->options.block))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson %s launches no kernel: it takes no grid or block", run->lesson->id);
      return FALSE;
    }
  return TRUE;
}

/* Everything before a run: the report, the source, the options, the
 * lesson's data and launch. *pristine gets the lesson's source. */
static gboolean
prepare (KsLessonRun *run, KsEngine *engine, char **pristine, GError **error)
{
  const KsLesson *lesson = run->lesson;
  gboolean cuda = engine != NULL && ks_engine_is_cuda (engine);
  KsLessonReport *report;

  *pristine = ks_lesson_get_source (lesson, run->variant, error);
  if (*pristine == NULL)
    return FALSE;
  report = run->report = _ks_lesson_report_new (lesson, run->variant);
  report->cuda = cuda;
  report->edited = run->options.source != NULL && !g_str_equal (run->options.source, *pristine);
  report->engine_name = g_strdup (cuda ? ks_device_get_name (ks_engine_get_device (engine))
                                       : "CPU engine");
  if (lesson->host_only)
    return check_host_only (run, error) && resolve_size (run, error)
           && lesson->impl->setup (run, error);
  if (!resolve_size (run, error) || !lesson->impl->setup (run, error))
    return FALSE;
  apply_launch (run);
  if (!check_launch (run, error))
    return FALSE;
  report->grid = run->grid;
  report->block = run->block;
  report->dynamic_shared = run->shared;
  report->threads = (guint64) run->grid.x * run->grid.y * run->grid.z
                    * run->block.x * run->block.y * run->block.z;
  return TRUE;
}

gboolean
ks_lesson_run (const KsLesson *lesson, const KsLessonVariant *variant, KsEngine *engine,
               KsWorker *worker, const KsLessonOptions *options, KsLessonReport **report_out,
               GError **error)
{
  KsLessonRun *run;
  KsLessonReport *report;
  g_autofree char *pristine = NULL;
  GError *local = NULL;
  gboolean cuda = engine != NULL && ks_engine_is_cuda (engine);
  gboolean ok = FALSE;

  g_return_val_if_fail (lesson != NULL && variant != NULL, FALSE);
  g_return_val_if_fail (report_out != NULL && *report_out == NULL, FALSE);
  g_return_val_if_fail (!cuda || worker != NULL, FALSE);

  if (options != NULL && g_cancellable_set_error_if_cancelled (options->cancellable, error))
    return FALSE;
  run = run_new (lesson, variant, options);
  /* The CPU engine's runs need a worker without a device: the caller's
   * where it is one (it compiles too), else one of the run's own. */
  run->cpu_worker = worker != NULL && ks_worker_get_ordinal (worker) < 0 ? g_object_ref (worker)
                                                                         : ks_worker_new (-1);
  if (!prepare (run, engine, &pristine, &local))
    goto out;
  report = run->report;
  if (lesson->host_only)
    {
      ok = lesson->impl->host (run, engine, &local);
      goto out;
    }

  /* Each stage looks at the cancellable before each of its repeats. */
  if (!time_reference (run, &local))
    goto out;
  /* The lesson's real kernel, compiled once: on the CPU engine always
   * (unless CUDA runs it and the caller does without the comparison), then
   * on CUDA. A worker without a device runs it on the CPU engine. */
  if (!_ks_lesson_compile (run, worker != NULL ? worker : run->cpu_worker,
                           report->edited ? run->options.source : pristine, &local))
    goto out;
  report->timings.compile_ms = run->compiled->compile_ms;
  report->timings.compile_cached = run->compiled->cached;
  if ((!cuda || !run->options.skip_cpu_run) && !_ks_lesson_run_model (run, !cuda, &local))
    goto out;
  if (!cuda)
    report->timings.method =
      g_strdup_printf ("CPU engine, the monotonic clock: compile: NVRTC in the worker (%s); "
                       "upload: the kernel's arrays made from the lesson's data; kernel: the "
                       "kernel's PTX run with every access checked; download: the outputs "
                       "copied back; each the median of %u runs after a warm-up; reference: "
                       "the plain C loop", run->compiled->cached ? "cached" : "compiled now",
                       MAX (run->options.repeats, 1));
  if (cuda && !_ks_lesson_run_cuda (run, engine, worker, &local))
    goto out;
  if (cuda && run->options.skip_cpu_run)
    {
      /* Owners and faults come from the CPU engine: without its run there are none. */
      report->matches_cpu = FALSE;
    }
  if (_ks_lesson_cancelled (run, &local))
    goto out;

  collect_arrays (run);
  if (lesson->impl->more != NULL && !lesson->impl->more (run, engine, worker, &local))
    goto out;
  if (run->checked_arg >= 0 && _ks_lesson_reference (run) != NULL)
    {
      const KsLessonArg *checked = g_ptr_array_index (run->args, run->checked_arg);

      _ks_lesson_compare_check (run, checked->name,
                                _ks_lesson_result (run, (guint) run->checked_arg),
                                lesson->impl->against != NULL ? lesson->impl->against
                                                              : "an independent C reference");
    }
  if (lesson->impl->finish != NULL)
    lesson->impl->finish (run);
  if (report->atomics.counted && cuda)
    {
      char *how = g_strconcat (report->atomics.how != NULL ? report->atomics.how : "",
                               "; on CUDA the same code path runs, so the counts are computed, "
                               "not measured", NULL);

      g_free (report->atomics.how);
      report->atomics.how = how;
    }
  if (cuda && !variant->cuda_deterministic)
    _ks_lesson_note (run, "On the GPU this variant's result depends on timing, so it may differ "
                     "from the CPU engine's from run to run.");
  ok = TRUE;

out:
  /* A kernel that does not compile still has its report: the diagnostics. */
  if (run->report != NULL && (ok || g_error_matches (local, KS_ERROR, KS_ERROR_COMPILE)))
    *report_out = run->report;
  else
    g_clear_pointer (&run->report, ks_lesson_report_free);
  run_free (run);
  if (local != NULL)
    g_propagate_error (error, local);
  return ok;
}

gboolean
_ks_lesson_run_for_sanitizer (const KsLesson *lesson, const KsLessonVariant *variant,
                              KsEngine *engine, KsWorker *worker,
                              const KsLessonOptions *options, GError **error)
{
  KsLessonRun *run = run_new (lesson, variant, options);
  g_autofree char *pristine = NULL;
  gboolean ok;

  g_assert (engine != NULL && ks_engine_is_cuda (engine) && worker != NULL);
  run->sanitize = TRUE;
  run->options.repeats = 1;
  ok = prepare (run, engine, &pristine, error)
       && _ks_lesson_compile (run, worker, run->report->edited ? run->options.source : pristine,
                              error)
       && _ks_lesson_run_cuda (run, engine, worker, error);
  g_clear_pointer (&run->report, ks_lesson_report_free);
  run_free (run);
  return ok;
}
