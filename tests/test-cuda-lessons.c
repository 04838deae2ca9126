/* test-cuda-lessons.c: every lesson's kernel compiled with NVRTC and run in
 * the worker on the GPU, equal to the CPU engine's twin on the same data
 * (within the lesson's tolerance), with the book variants reproducing their
 * consequence there too; the racing variants only lose counts; the check
 * names the same output and reference on both engines; a cancelled run
 * ends without a report and the worker serves the next one.
 *
 * Without a usable GPU it prints a TAP plan of 0 and exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-lesson.h"
#include "ks-test-helpers.h"

static KsEngine *gpu;
static KsWorker *worker;

static KsLessonReport *
run_on (KsEngine *engine, const KsLesson *lesson, const KsLessonVariant *variant)
{
  g_autoptr (GError) error = NULL;
  KsLessonReport *report = NULL;
  KsLessonOptions options;

  ks_lesson_options_init (&options);
  options.repeats = 3;
  if (!ks_lesson_run (lesson, variant, engine, engine != NULL ? worker : NULL, &options,
                      &report, &error))
    g_error ("%s %s: %s", lesson->id, variant->id, error->message);
  return report;
}

static void
test_every_lesson (void)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < lessons[i]->n_variants; k++)
      {
        const KsLessonVariant *v = &lessons[i]->variants[k];
        g_autoptr (KsLessonReport) cuda = run_on (gpu, lessons[i], v);
        g_autoptr (KsLessonReport) cpu = run_on (NULL, lessons[i], v);

        g_test_message ("%s %s: kernel %.4f ms, book's way %.3f ms", lessons[i]->id, v->id,
                        cuda->timings.kernel.median_ms, cuda->timings.book_total_ms);
        g_assert_true (cuda->cuda);
        g_assert_false (isnan (cuda->timings.compile_ms));
        g_assert_false (isnan (cuda->timings.book_total_ms));
        g_assert_cmpuint (cuda->timings.kernel.n, ==, 3);
        /* The same output checked against the same reference (the same data). */
        g_assert_cmpstr (cuda->check.output, ==, cpu->check.output);
        g_assert_true ((cuda->check.expected_values == NULL)
                       == (cpu->check.expected_values == NULL));
        if (cpu->check.expected_values != NULL)
          g_assert_true (ks_array_equal (cuda->check.expected_values, cpu->check.expected_values,
                                         0, 0, NULL));
        if (v->cuda_deterministic)
          {
            if (!cuda->matches_cpu)
              g_error ("%s %s: CUDA differs from the CPU engine: %s", lessons[i]->id, v->id,
                       cuda->cpu_difference);
            g_assert_cmpint (cuda->check.passed, ==, cpu->check.passed);
            g_assert_cmpuint (cuda->check.differing, ==, cpu->check.differing);
          }
        else
          g_assert_true (cuda->check.passed == cpu->check.passed);
        if (g_str_equal (lessons[i]->id, "11-01") || g_str_equal (lessons[i]->id, "11-03"))
          g_assert_cmpuint (strlen (cuda->printf_output), ==, strlen (cpu->printf_output));
      }
}

/* The racing histogram loses counts on the GPU as well, never gains. */
static void
test_race_loses (void)
{
  const KsLesson *lesson = ks_lesson_lookup ("12-01");
  g_autoptr (KsLessonReport) r = run_on (gpu, lesson, ks_lesson_lookup_variant (lesson, "race"));
  const KsArray *bins = ks_lesson_report_find (r, "bins")->array;
  double sum = 0;

  for (gsize k = 0; k < bins->length; k++)
    {
      g_assert_cmpfloat (ks_array_get_double (bins, k), <=, k < 8 ? 63 : 62);
      sum += ks_array_get_double (bins, k);
    }
  g_test_message ("the racing histogram kept %g of 1000 counts", sum);
  g_assert_cmpfloat (sum, <=, 1000);
}

/* An edited kernel runs on CUDA: its result is its own. */
static void
test_edited (void)
{
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("12-06");
  g_autoptr (KsLessonReport) report = NULL;
  KsLessonOptions options;

  ks_lesson_options_init (&options);
  options.repeats = 1;
  options.source = "__global__ void axpbz (float *z, const float *x, float a, float b, int n)\n"
                   "{\n"
                   "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
                   "       i += gridDim.x * blockDim.x)\n"
                   "    z[i] = x[i];\n"
                   "}\n";
  g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], gpu, worker, &options, &report,
                                &error));
  g_assert_no_error (error);
  g_assert_true (report->edited);
  g_assert_false (report->check.passed);
  g_assert_false (report->matches_cpu);
}

static gpointer
cancel_in_half_a_second (gpointer cancellable)
{
  g_usleep (G_USEC_PER_SEC / 2);
  g_cancellable_cancel (cancellable);
  return NULL;
}

/* Cancelled before it starts, a CUDA run does not start; cancelled from
 * another thread while it repeats, it ends at once; either way no report,
 * and the worker runs the next lesson. */
static void
test_cancelled (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) before = g_cancellable_new ();
  g_autoptr (GCancellable) during = g_cancellable_new ();
  g_autoptr (KsLessonReport) after = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("11-06");
  KsLessonReport *report = NULL;
  KsLessonOptions options;
  GThread *thread;
  double seconds;
  gint64 start;
  gboolean ok;

  ks_lesson_options_init (&options);
  options.cancellable = before;
  g_cancellable_cancel (before);
  g_assert_false (ks_lesson_run (lesson, &lesson->variants[0], gpu, worker, &options, &report,
                                 &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);
  g_clear_error (&error);

  /* 2000 repeats of the CPU twin beside the GPU take minutes. */
  options.repeats = 2000;
  options.cancellable = during;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_in_half_a_second, during);
  ok = ks_lesson_run (lesson, &lesson->variants[0], gpu, worker, &options, &report, &error);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_thread_join (thread);
  g_test_message ("a run cancelled after 0.5 s returned after %.3f s", seconds);
  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);
  g_assert_cmpfloat (seconds, <, 2.5);

  after = run_on (gpu, lesson, &lesson->variants[0]);
  g_assert_true (after->check.passed);
  g_assert_true (after->matches_cpu);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) dev = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_cuda_available (&error))
    {
      g_print ("1..0 # SKIP CUDA is not available: %s\n", error->message);
      return 77;
    }
  if (!ks_nvrtc_load (&error))
    {
      g_print ("1..0 # SKIP NVRTC is not available: %s\n", error->message);
      return 77;
    }
  dev = ks_device_get_cuda (0, &error);
  g_assert_no_error (error);
  gpu = ks_engine_new (dev, &error);
  g_assert_no_error (error);
  worker = ks_worker_new (ks_device_get_ordinal (dev));

  g_test_add_func ("/ks/cuda/lessons/every-lesson-equals-cpu", test_every_lesson);
  g_test_add_func ("/ks/cuda/lessons/race-loses-counts", test_race_loses);
  g_test_add_func ("/ks/cuda/lessons/edited-kernel", test_edited);
  g_test_add_func ("/ks/cuda/lessons/cancelled", test_cancelled);
  ret = g_test_run ();
  g_clear_object (&worker);
  g_clear_object (&gpu);
  return ret;
}
