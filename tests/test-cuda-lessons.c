/* test-cuda-lessons.c: every lesson's kernel compiled with NVRTC and run in
 * the worker on the GPU, equal to the CPU engine's run of the same kernel on the same data
 * (within the lesson's tolerance), with the book variants reproducing their
 * consequence there too; the racing variants only lose counts; the check
 * names the same output and reference on both engines; a cancelled run
 * ends without a report and the worker serves the next one. 11-02 prints
 * what cudaDeviceGetAttribute gives, 12-04's frames equal the CPU engine's,
 * and under compute-sanitizer (where it is installed) 12-01's book variant
 * shows errors and its fixed variant none.
 *
 * Without a usable GPU it prints a TAP plan of 0 and exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-lesson-private.h"
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
        g_assert_false (isnan (cuda->timings.book_total_ms));
        if (lessons[i]->host_only)
          {
            /* 11-02 runs no kernel: its check is of the text (test_device_properties). */
            g_assert_true (isnan (cuda->timings.compile_ms));
            g_assert_cmpuint (cuda->timings.kernel.n, ==, 0);
            g_assert_true (cuda->check.passed);
            continue;
          }
        g_assert_false (isnan (cuda->timings.compile_ms));
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

/* An edited kernel runs on CUDA: its result is its own, and the CPU engine,
 * which runs the same edit, agrees with it. */
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
  g_assert_true (report->matches_cpu);
}

static gpointer
cancel_in_half_a_second (gpointer cancellable)
{
  g_usleep (G_USEC_PER_SEC / 2);
  g_cancellable_cancel (cancellable);
  return NULL;
}

/* Cancelled before it starts, a CUDA run does not start; cancelled from
 * another thread while it repeats, it stops at its next repeat or block;
 * either way no report, and the worker runs the next lesson. */
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

  /* 100000 repeats of the CPU engine beside the GPU would take over an hour:
   * the cancellation lands in them whatever the machine's speed or load. */
  options.repeats = 100000;
  options.cancellable = during;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_in_half_a_second, during);
  ok = ks_lesson_run (lesson, &lesson->variants[0], gpu, worker, &options, &report, &error);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_thread_join (thread);
  g_test_message ("a run cancelled after 0.5 s returned after %.3f s", seconds);
  /* Ended by the cancellation, without a report. A cancelled run has
   * nothing to count (no report, no progress), and how soon it stopped is
   * not read off the clock: a loaded machine runs a repeat slowly. That it
   * stopped among its repeats and not after them is what their number
   * shows: all of them would last far past the suite's timeout. */
  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);

  after = run_on (gpu, lesson, &lesson->variants[0]);
  g_assert_true (after->check.passed);
  g_assert_true (after->matches_cpu);
}

/* 11-02: the printed lines parse back to what cudaDeviceGetAttribute says,
 * asked here for every device; the memory is floor-divided. */
static void
test_device_properties (void)
{
#if HAVE_CUDA
  const KsLesson *lesson = ks_lesson_lookup ("11-02");
  g_autoptr (KsLessonReport) r = run_on (gpu, lesson, &lesson->variants[0]);
  g_autoptr (GArray) printed = NULL;
  g_autoptr (GError) error = NULL;
  guint n = 0;
  const KsLessonDeviceAttribute *table = ks_lesson_device_attributes (&n);
  int count = 0;

  g_test_message ("%s", r->printf_output);
  g_assert_true (r->check.passed);
  g_assert_cmpstr (r->check.output, ==, "as printed, parsed back");
  g_assert_cmpint (cudaGetDeviceCount (&count), ==, cudaSuccess);
  printed = _ks_lesson_device_parse (r->printf_output, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (printed->len, ==, (guint) count);
  for (int d = 0; d < count; d++)
    {
      const KsLessonDevice *p = &g_array_index (printed, KsLessonDevice, d);
      struct cudaDeviceProp prop;
      g_autofree char *memory_line = NULL;
      int major = 0, minor = 0;

      g_assert_cmpint (cudaGetDeviceProperties (&prop, d), ==, cudaSuccess);
      g_assert_cmpint (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, d), ==,
                       cudaSuccess);
      g_assert_cmpint (cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, d), ==,
                       cudaSuccess);
      g_assert_cmpstr (p->name, ==, prop.name);
      g_assert_cmpint (p->major, ==, major);
      g_assert_cmpint (p->minor, ==, minor);
      for (guint k = 0; k < n; k++)
        {
          int v = 0;

          g_assert_cmpint (cudaDeviceGetAttribute (&v, (enum cudaDeviceAttr) table[k].attribute,
                                                   d), ==, cudaSuccess);
          g_assert_true (p->present[k]);
          if (p->values[k] != v)
            g_error ("device %d %s: printed %" G_GINT64_FORMAT ", cudaDeviceGetAttribute %d", d,
                     table[k].name, p->values[k], v);
        }
      /* total_memory () // 2^30: an H200's 150 109 880 320 bytes print as 139. */
      memory_line = g_strdup_printf ("\n  Total Memory: %" G_GUINT64_FORMAT " GB\n",
                                     (guint64) prop.totalGlobalMem
                                     / (G_GUINT64_CONSTANT (1) << 30));
      g_assert_nonnull (strstr (r->printf_output, memory_line));
      if (prop.totalGlobalMem == G_GUINT64_CONSTANT (150109880320))
        g_assert_nonnull (strstr (r->printf_output, "\n  Total Memory: 139 GB\n"));
    }
  g_assert_cmpuint (G_GUINT64_CONSTANT (150109880320) / (G_GUINT64_CONSTANT (1) << 30), ==, 139);
#endif
}

/* 12-04: every frame on the GPU equals the CPU engine's, and the buffers
 * are timed both ways. */
static void
test_webcam_frames (void)
{
  const KsLesson *lesson = ks_lesson_lookup ("12-04");

  for (guint k = 0; k < lesson->n_variants; k++)
    {
      g_autoptr (KsLessonReport) r = run_on (gpu, lesson, &lesson->variants[k]);
      const KsArray *book = ks_lesson_report_find (r, "ms per frame, the book's way")->array;
      const KsArray *once =
        ks_lesson_report_find (r, "ms per frame, buffers allocated once")->array;
      double book_sum = 0, once_sum = 0;

      if (!r->matches_cpu)
        g_error ("12-04 %s: %s", lesson->variants[k].id, r->cpu_difference);
      g_assert_true (r->check.passed);
      g_assert_cmpuint (book->length, ==, KS_LESSON_DEFAULT_FRAMES);
      for (gsize f = 0; f < book->length; f++)
        {
          book_sum += ks_array_get_double (book, f);
          once_sum += ks_array_get_double (once, f);
          g_assert_cmpfloat (ks_array_get_double (once, f), >, 0);
        }
      g_test_message ("12-04 %s: %.3f ms a frame the book's way, %.3f ms with the buffers "
                      "allocated once (means of %" G_GSIZE_FORMAT ")", lesson->variants[k].id,
                      book_sum / book->length, once_sum / once->length, book->length);
    }
}

static KsLessonSanitizerReport *
sanitize (const char *name, const char *variant)
{
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup (name);
  KsLessonSanitizerReport *report = NULL;
  KsLessonOptions options;

  ks_lesson_options_init (&options);
  if (!ks_lesson_sanitize (lesson, ks_lesson_lookup_variant (lesson, variant), gpu, &options,
                           &report, &error))
    g_error ("%s %s under compute-sanitizer: %s", name, variant, error->message);
  g_test_message ("%s %s: %s (%s, %.1f s)\n%s", name, variant, report->summary,
                  report->command_line, report->wall_ms / 1000, report->output);
  return report;
}

static gboolean
skip_without_sanitizer (void)
{
  g_autofree char *why = NULL;

  if (ks_lesson_find_sanitizer (NULL, &why))
    return FALSE;
  g_test_skip (why);
  return TRUE;
}

/* 12-01 under initcheck: the book's never-cleared bins are read by its
 * atomics; the fixed variant's cleared bins are not. */
static void
test_sanitizer_12_01 (void)
{
  g_autoptr (KsLessonSanitizerReport) book = NULL;
  g_autoptr (KsLessonSanitizerReport) fixed = NULL;

  if (skip_without_sanitizer ())
    return;
  book = sanitize ("12-01", "book");
  fixed = sanitize ("12-01", "fixed");
  g_assert_cmpstr (book->tool, ==, "initcheck");
  g_assert_cmpstr (fixed->tool, ==, "initcheck");
  g_assert_cmpint (book->errors, >=, 1);
  g_assert_cmpuint (book->findings->len, >=, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (book->findings, 0), "Uninitialized"));
  g_assert_cmpint (fixed->errors, ==, 0);
  g_assert_cmpuint (fixed->findings->len, ==, 0);
  g_assert_null (fixed->run_error);
}

/* 12-02 under memcheck: the 257th thread's atomic lands past the book's
 * 256 bins. */
static void
test_sanitizer_12_02 (void)
{
  g_autoptr (KsLessonSanitizerReport) book = NULL;
  g_autoptr (KsLessonSanitizerReport) fixed = NULL;

  if (skip_without_sanitizer ())
    return;
  book = sanitize ("12-02", "book");
  fixed = sanitize ("12-02", "fixed");
  g_assert_cmpstr (book->tool, ==, "memcheck");
  g_assert_cmpint (book->errors, >=, 1);
  g_assert_cmpint (fixed->errors, ==, 0);
}

/* Cancelled, the tool and its worker are killed at once, and no report. */
static void
test_sanitizer_cancelled (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  const KsLesson *lesson = ks_lesson_lookup ("11-06");
  KsLessonSanitizerReport *report = NULL;
  KsLessonOptions options;
  GThread *thread;
  gint64 start;
  double seconds;

  if (skip_without_sanitizer ())
    return;
  ks_lesson_options_init (&options);
  options.cancellable = cancellable;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_in_half_a_second, cancellable);
  g_assert_false (ks_lesson_sanitize (lesson, &lesson->variants[0], gpu, &options, &report,
                                      &error));
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_thread_join (thread);
  g_test_message ("a sanitizer run cancelled after 0.5 s returned after %.3f s", seconds);
  /* Ended by the cancellation, without a report: a run left to the tool
   * would give one, findings and all. How soon it ended is not read off the
   * clock: a loaded machine starts the tool and its worker slowly. */
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);
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
  g_test_add_func ("/ks/cuda/lessons/11-02/device-properties", test_device_properties);
  g_test_add_func ("/ks/cuda/lessons/12-04/frames", test_webcam_frames);
  g_test_add_func ("/ks/cuda/lessons/sanitizer/12-01", test_sanitizer_12_01);
  g_test_add_func ("/ks/cuda/lessons/sanitizer/12-02", test_sanitizer_12_02);
  g_test_add_func ("/ks/cuda/lessons/sanitizer/cancelled", test_sanitizer_cancelled);
  ret = g_test_run ();
  g_clear_object (&worker);
  g_clear_object (&gpu);
  return ret;
}
