/* test-lessons.c: what holds for every lesson, and the tables behind them,
 * on the CPU engine: the registry and its catalogue of variants, defects and
 * sanitizer tools, every variant running with the timing protocol, the check
 * naming its output and carrying its reference, an edit refused without
 * CUDA, cancellation before and during a run, another launch than the
 * lesson's, every lesson kernel compiling with NVRTC (skipped where NVRTC is
 * missing), 11-02's attribute table and the text it prints and reads back,
 * and compute-sanitizer: its tools, where it is looked for, its log and a
 * worker run under a wrapper. Each lesson's own results against the tutorial
 * are in test-lesson-runs.c. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-lesson-private.h"
#include "ks-nvrtc.h"
#include "ks-test-helpers.h"

/* A lesson's fixed variant under another launch; NULL with *error when it
 * cannot run. */
static KsLessonReport *
run_launch (const char *name, KsDim3 grid, KsDim3 block, GError **error)
{
  const KsLesson *lesson = ks_lesson_lookup (name);
  KsLessonReport *report = NULL;
  KsLessonOptions options;

  g_assert_nonnull (lesson);
  ks_lesson_options_init (&options);
  options.repeats = 1;
  options.grid = grid;
  options.block = block;
  if (!ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &report, error))
    return NULL;
  return report;
}

static void
test_registry (void)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);
  const char *ids[] = { "11-01", "11-02", "11-03", "11-04", "11-05", "11-06", "11-07", "11-08",
                        "11-09", "11-10", "11-11", "11-12", "12-01", "12-02", "12-03", "12-04",
                        "12-05", "12-06" };
  const char *tools[] = { "memcheck", "initcheck", "racecheck" };

  g_assert_cmpuint (n, ==, G_N_ELEMENTS (ids));
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (lessons[i]->id, ==, ids[i]);
      g_assert_true (ks_lesson_lookup (lessons[i]->slug) == lessons[i]);
      g_assert_false (lessons[i]->variants[0].book);
      for (guint k = 0; k < lessons[i]->n_variants; k++)
        {
          g_autoptr (GError) error = NULL;
          g_autofree char *text = ks_lesson_get_source (lessons[i], &lessons[i]->variants[k],
                                                        &error);

          g_assert_no_error (error);
          /* 11-02's text is the host's code: there is no kernel. */
          g_assert_true ((strstr (text, "__global__") != NULL) != lessons[i]->host_only);
          g_assert_true (g_strv_contains (tools, ks_lesson_get_sanitizer_tool (
                                            lessons[i], &lessons[i]->variants[k])));
        }
      /* Only 12-04 offers the live camera, with the gray op and the book's block. */
      if (g_str_equal (lessons[i]->id, "12-04"))
        {
          g_assert_cmpstr (lessons[i]->live_op, ==, "gray");
          g_assert_cmpuint (lessons[i]->live_block.x * lessons[i]->live_block.y
                            * lessons[i]->live_block.z, ==, 1024);
        }
      else
        g_assert_null (lessons[i]->live_op);
      g_assert_true (lessons[i]->host_only == g_str_equal (lessons[i]->id, "11-02"));
    }
  g_assert_true (ks_lesson_lookup ("device-properties") == ks_lesson_lookup ("11-02"));
  g_assert_true (ks_lesson_lookup ("webcam-gray") == ks_lesson_lookup ("12-04"));
  g_assert_null (ks_lesson_lookup ("no-such-lesson"));
  /* Every defect the lessons promise to show has a book variant. */
  {
    const char *defects[] = { "P2", "P3", "P5", "P6", "P9", "P10", "P11", "P12", "P13", "P14",
                              "P15", "P16", "P18" };

    for (guint d = 0; d < G_N_ELEMENTS (defects); d++)
      {
        gboolean found = FALSE;

        for (guint i = 0; i < n; i++)
          for (guint k = 0; k < lessons[i]->n_variants; k++)
            {
              g_auto (GStrv) words = g_strsplit (lessons[i]->variants[k].defects, " ", -1);

              found = found || (lessons[i]->variants[k].book
                                && g_strv_contains ((const char *const *) words, defects[d]));
            }
        if (!found)
          g_error ("no book variant shows %s", defects[d]);
      }
  }
}

/* Every variant runs on the CPU engine; the fixed ones pass their check. */
static void
test_all_run (void)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < lessons[i]->n_variants; k++)
      {
        g_autoptr (KsLessonReport) report =
          ks_test_run_lesson (lessons[i]->id, lessons[i]->variants[k].id, 0);
        g_autoptr (JsonNode) json = ks_lesson_report_to_json (report, 16);
        JsonObject *o = json_node_get_object (json);

        g_assert_false (report->cuda);
        if (!lessons[i]->variants[k].book)
          {
            if (!report->check.passed)
              g_error ("%s %s: %s", lessons[i]->id, lessons[i]->variants[k].id,
                       report->check.summary);
            g_assert_cmpuint (report->n_faults, ==, 0);
          }
        g_assert_cmpstr (json_object_get_string_member (o, "lesson"), ==, lessons[i]->id);
        g_assert_true (json_object_has_member (o, "check"));
        g_assert_true (json_object_has_member (o, "timings"));
        /* The timing protocol: the warm-up flagged and outside the medians;
         * a lesson without a kernel has no kernel time, only its one pass. */
        g_assert_cmpuint (report->timings.kernel.n, ==, lessons[i]->host_only ? 0 : 2);
        g_assert_true (isnan (report->timings.kernel.warmup_ms) == lessons[i]->host_only);
        g_assert_false (isnan (report->timings.book_total_ms));
        /* NVRTC compiles the kernel for the CPU engine too. */
        g_assert_true (isnan (report->timings.compile_ms) == lessons[i]->host_only);
      }
}

/* An edited kernel runs on the CPU engine as it is: here 11-06's addition
 * turned into a subtraction, whose result the check then refuses; a kernel
 * that reads past its arrays is reported with the thread and the line. */
static void
test_edited_on_cpu (void)
{
  static const char subtract[] =
    "__global__ void add_num (float *result, const float *a, const float *b, int n)\n"
    "{\n"
    "  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)\n"
    "    result[i] = a[i] - b[i];\n"
    "}\n";
  static const char past_the_end[] =
    "__global__ void add_num (float *result, const float *a, const float *b, int n)\n"
    "{\n"
    "  int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "  result[i] = a[i + 1] + b[i];\n"
    "}\n";
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("11-06");
  KsLessonReport *report = NULL;
  KsLessonOptions options;
  g_autofree char *pristine = ks_lesson_get_source (lesson, &lesson->variants[0], NULL);
  const KsArray *result, *a, *b;

  if (!ks_test_have_nvrtc ())
    return;
  ks_lesson_options_init (&options);
  options.repeats = 1;
  options.source = subtract;
  g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &report,
                                &error));
  g_assert_no_error (error);
  g_assert_true (report->edited);
  g_assert_false (report->cuda);
  g_assert_false (report->check.passed);
  result = ks_lesson_report_find (report, "result")->array;
  a = ks_lesson_report_find (report, "a")->array;
  b = ks_lesson_report_find (report, "b")->array;
  for (gsize i = 0; i < result->length; i++)
    g_assert_cmpfloat (((const float *) result->data)[i], ==,
                       ((const float *) a->data)[i] - ((const float *) b->data)[i]);
  g_assert_cmpuint (report->n_faults, ==, 0);
  g_clear_pointer (&report, ks_lesson_report_free);

  /* The last thread reads a[n]: one read past the array, by its thread. */
  options.source = past_the_end;
  g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &report,
                                &error));
  g_assert_no_error (error);
  g_test_message ("%s", (const char *) g_ptr_array_index (report->faults, 0));
  g_assert_cmpuint (report->n_faults, >=, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (report->faults, 0),
                            "Invalid __global__ read of size 4 bytes"));
  g_assert_nonnull (strstr (g_ptr_array_index (report->faults, 0), ".cu:4"));
  g_clear_pointer (&report, ks_lesson_report_free);

  /* The pristine text is not an edit. */
  options.source = pristine;
  g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &report,
                                &error));
  g_assert_false (report->edited);
  ks_lesson_report_free (report);
}

/* Every check names the output it compared and holds the reference it
 * compared with, in the report and in its JSON; the sanitizer's text is the
 * variant's, not a note. */
static void
test_check_output_and_reference (void)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < lessons[i]->n_variants; k++)
      {
        const KsLessonVariant *v = &lessons[i]->variants[k];
        g_autoptr (KsLessonReport) r = ks_test_run_lesson (lessons[i]->id, v->id, 0);
        g_autoptr (JsonNode) json = ks_lesson_report_to_json (r, 16);
        JsonObject *o = json_node_get_object (json);
        JsonObject *check = json_object_get_object_member (o, "check");
        const KsLessonCheck *c = &r->check;

        g_test_message ("%s %s: %s", lessons[i]->id, v->id, c->output);
        if (g_str_equal (lessons[i]->id, "11-01") || g_str_equal (lessons[i]->id, "11-03")
            || g_str_equal (lessons[i]->id, "11-02"))
          {
            /* Printed text and the blocks' order (11-02 on the CPU engine: the
             * count of no device): no array against a reference. */
            g_assert_null (c->output);
            g_assert_null (c->expected_values);
            g_assert_true (json_object_get_null_member (check, "output"));
            g_assert_true (json_object_get_null_member (check, "expected_values"));
          }
        else
          {
            const KsLessonArray *la = ks_lesson_report_find (r, c->output);
            const KsArray *ev = c->expected_values;
            JsonObject *jev = json_object_get_object_member (check, "expected_values");
            JsonArray *values = json_object_get_array_member (jev, "values");
            gboolean in_outputs = FALSE;

            g_assert_nonnull (la);
            for (guint a = 0; a < r->outputs->len; a++)
              in_outputs = in_outputs || g_ptr_array_index (r->outputs, a) == la;
            g_assert_true (in_outputs);
            g_assert_nonnull (ev);
            g_assert_cmpuint (c->compared, ==, MIN (ev->length, la->array->length));
            if (c->first_difference != G_MAXSIZE)
              {
                g_assert_cmpfloat (c->expected, ==,
                                   ks_array_get_double (ev, c->first_difference));
                g_assert_cmpfloat (c->actual, ==,
                                   ks_array_get_double (la->array, c->first_difference));
              }
            /* Integer results are checked exactly: a pass is equality. */
            if (c->passed && !ks_elem_type_is_float (la->array->type))
              for (gsize e = 0; e < c->compared; e++)
                g_assert_cmpfloat (ks_array_get_double (ev, e), ==,
                                   ks_array_get_double (la->array, e));
            g_assert_cmpstr (json_object_get_string_member (check, "output"), ==, c->output);
            g_assert_cmpint (json_object_get_int_member (jev, "length"), ==, ev->length);
            g_assert_cmpuint (json_array_get_length (values), ==, MIN (ev->length, (gsize) 16));
            for (guint e = 0; e < json_array_get_length (values); e++)
              g_assert_cmpfloat (json_array_get_double_element (values, e), ==,
                                 ks_array_get_double (ev, e));
          }
        if (v->sanitizer != NULL)
          g_assert_cmpstr (json_object_get_string_member (o, "sanitizer"), ==, v->sanitizer);
        else
          g_assert_true (json_object_get_null_member (o, "sanitizer"));
        for (guint e = 0; e < r->notes->len; e++)
          g_assert_null (strstr (g_ptr_array_index (r->notes, e), "Under compute-sanitizer"));
      }
}

static void
test_cancelled_before (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (KsLessonReport) control = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("11-11");
  KsLessonReport *report = NULL;
  KsLessonOptions options;

  if (!ks_test_have_nvrtc ())
    return;
  ks_lesson_options_init (&options);
  options.repeats = 1;
  options.cancellable = cancellable;
  /* Not cancelled, the cancellable changes nothing. */
  g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &control,
                                &error));
  g_assert_no_error (error);
  g_assert_true (control->check.passed);

  g_cancellable_cancel (cancellable);
  g_assert_false (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &report,
                                 &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);
}

typedef struct
{
  GCancellable *cancellable;
  gulong delay_us;
  gint64 cancelled_at;
} CancelLater;

static gpointer
cancel_later (gpointer data)
{
  CancelLater *c = data;

  g_usleep (c->delay_us);
  c->cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (c->cancellable);
  return NULL;
}

/* 11-06 on the CPU engine with 100000 repeats would take over an hour;
 * cancelled from another thread, it stops at its next repeat or block. */
static void
test_cancelled_during (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  const KsLesson *lesson = ks_lesson_lookup ("11-06");
  KsLessonReport *report = NULL;
  KsLessonOptions options;
  CancelLater later = { 0 };
  GThread *thread;
  gint64 start, returned;
  double after_ms;
  gboolean ok;

  if (!ks_test_have_nvrtc ())
    return;
  /* So many repeats that the run lasts over an hour: the cancellation lands
   * in it whatever the machine's speed or load. */
  ks_lesson_options_init (&options);
  options.repeats = 100000;
  options.cancellable = cancellable;
  later.cancellable = cancellable;
  later.delay_us = 300 * 1000;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel-later", cancel_later, &later);
  ok = ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &report, &error);
  returned = g_get_monotonic_time ();
  g_thread_join (thread);

  after_ms = (returned - later.cancelled_at) / 1000.0;
  g_test_message ("returned %.1f ms after the cancellation, %.2f s after the start", after_ms,
                  (returned - start) / 1e6);
  /* Ended by the cancellation, without a report. A cancelled run has
   * nothing to count (no report, no progress), and how soon it stopped is
   * not read off the clock: a loaded machine runs a repeat slowly. That it
   * stopped among its repeats and not after them is what their number
   * shows: all 100000 would last over an hour, far past the suite's timeout. */
  g_assert_false (ok);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);
}

/* Every lesson kernel compiles with NVRTC as the worker would compile it. */
static void
test_sources_compile (void)
{
  g_autoptr (GError) error = NULL;
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  if (!ks_test_have_nvrtc ())
    return;
  if (!ks_nvrtc_load (&error))
    {
      g_test_skip (error->message);
      return;
    }
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < lessons[i]->n_variants; k++)
      {
        const KsLessonVariant *v = &lessons[i]->variants[k];
        g_autofree char *text = ks_lesson_get_source (lessons[i], v, NULL);
        g_autoptr (KsKernelSource) source = NULL;
        g_autoptr (KsCompileResult) result = NULL;

        if (lessons[i]->host_only)
          continue;
        source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, v->source_name, text);
        g_assert_false (ks_kernel_source_has_errors (source));
        result = ks_kernel_source_compile (source, NULL, FALSE, 90, &error);
        g_assert_no_error (error);
        if (!result->success || ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR) != 0)
          g_error ("%s does not compile:\n%s", v->source_name, result->log);
      }
}

/* Another launch than the lesson's: the kernel runs it as given, and what
 * breaks shows. */
static void
test_launch_override (void)
{
  const KsDim3 none = { 0, 0, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (KsLessonReport) stride = NULL;
  g_autoptr (KsLessonReport) wide = NULL;
  g_autoptr (KsLessonReport) refused = NULL;
  KsDim3 grid, block;
  guint64 shared;

  if (!ks_test_have_nvrtc ())
    return;
  /* A grid-stride loop covers a million elements with two blocks. */
  stride = run_launch ("11-06", (KsDim3) { 2, 1, 1 }, none, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stride->grid.x, ==, 2);
  g_assert_cmpuint (stride->block.x, ==, 1024);
  g_assert_cmpuint (stride->threads, ==, 2048);
  g_assert_true (stride->check.passed);
  g_assert_cmpuint (stride->n_faults, ==, 0);

  /* One number added by four threads: threads 1–3 read a and b and write
   * result past the one-element arrays, nine accesses refused and listed
   * with the thread and the kernel's line; the sum is still right. */
  wide = run_launch ("11-04", none, (KsDim3) { 4, 1, 1 }, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (wide->block.x, ==, 4);
  g_assert_cmpuint (wide->n_faults, ==, 9);
  g_assert_cmpuint (wide->faults->len, ==, 9);
  g_assert_nonnull (strstr (g_ptr_array_index (wide->faults, 0),
                            "Invalid __global__ read of size 4 bytes: at 11-04.cu:7"));
  g_assert_nonnull (strstr (g_ptr_array_index (wide->faults, 0), "by thread (1,0,0)"));
  g_assert_nonnull (strstr (g_ptr_array_index (wide->faults, 8),
                            "Invalid __global__ write of size 4 bytes"));
  g_assert_nonnull (strstr (g_ptr_array_index (wide->faults, 8), "by thread (3,0,0)"));
  g_assert_nonnull (strstr (g_ptr_array_index (wide->faults, 8), "allocation “result”"));
  g_assert_true (wide->check.passed);

  /* What no device runs is refused before either engine does anything. */
  refused = run_launch ("11-05", none, (KsDim3) { 2000, 1, 1 }, &error);
  g_assert_null (refused);
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_clear_error (&error);
  refused = run_launch ("11-06", (KsDim3) { 100000, 1, 1 }, none, &error);
  g_assert_null (refused);
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_assert_nonnull (strstr (error->message, "at most 16777216"));

  /* ks_lesson_get_launch says what would run. */
  {
    const KsLesson *lesson = ks_lesson_lookup ("11-06");
    KsLessonOptions options;

    ks_lesson_options_init (&options);
    options.grid = (KsDim3) { 3, 1, 1 };
    ks_lesson_get_launch (lesson, &lesson->variants[0], &options, &grid, &block, &shared);
    g_assert_cmpuint (grid.x, ==, 3);
    g_assert_cmpuint (block.x, ==, 1024);
  }
}

/* ---- 11-02 device properties ------------------------------------------------ */

/* Python compares str code point by code point; for these ASCII names that
 * is a comparison of the bytes as unsigned values, written out here. */
static int
python_compare (const char *a, const char *b)
{
  for (; *a != '\0' && *a == *b; a++, b++)
    ;
  return (int) (unsigned char) *a - (int) (unsigned char) *b;
}

static int
index_of (const KsLessonDeviceAttribute *table, guint n, const char *name)
{
  for (guint k = 0; k < n; k++)
    if (g_str_equal (table[k].name, name))
      return (int) k;
  return -1;
}

static void
test_device_attribute_table (void)
{
  guint n = 0, n_aliases = 0;
  const KsLessonDeviceAttribute *table = ks_lesson_device_attributes (&n);
  const KsLessonDeviceAttribute *aliases = ks_lesson_device_attribute_aliases (&n_aliases);

  /* PyCUDA 2017.1.1: 89 names, 84 attributes. */
  g_assert_cmpuint (n, ==, 84);
  g_assert_cmpuint (n_aliases, ==, 5);
  for (guint k = 0; k < n; k++)
    {
      g_assert_true (g_str_has_prefix (table[k].cuda_name, "cudaDevAttr"));
      if (k > 0 && python_compare (table[k - 1].name, table[k].name) >= 0)
        g_error ("%s is printed before %s", table[k - 1].name, table[k].name);
      /* Keyed by value: no number twice. */
      for (guint j = 0; j < k; j++)
        g_assert_cmpint (table[j].attribute, !=, table[k].attribute);
    }
  /* '_' after the letters: every MAXIMUM_* before MAX_*. */
  g_assert_cmpint (index_of (table, n, "MAXIMUM_TEXTURE2D_WIDTH"), <,
                   index_of (table, n, "MAX_BLOCK_DIM_X"));
  g_assert_cmpint (index_of (table, n, "MAXIMUM_TEXTURECUBEMAP_WIDTH"), <,
                   index_of (table, n, "MAX_BLOCK_DIM_X"));
  g_assert_cmpstr (table[0].name, ==, "ASYNC_ENGINE_COUNT");
  g_assert_cmpstr (table[n - 1].name, ==, "WARP_SIZE");
  g_assert_cmpint (table[index_of (table, n, "MAX_THREADS_PER_BLOCK")].attribute, ==, 1);
  g_assert_cmpstr (table[index_of (table, n, "MAXIMUM_TEXTURE2D_ARRAY_WIDTH")].cuda_name, ==,
                   "cudaDevAttrMaxTexture2DLayeredWidth");
  /* Each alias names one of the 84, which sorts before it and is the one kept. */
  for (guint a = 0; a < n_aliases; a++)
    {
      int kept = -1;

      g_assert_cmpint (index_of (table, n, aliases[a].name), ==, -1);
      for (guint k = 0; k < n; k++)
        if (table[k].attribute == aliases[a].attribute)
          {
            g_assert_cmpint (kept, ==, -1);
            kept = (int) k;
          }
      g_assert_cmpint (kept, >=, 0);
      g_assert_cmpint (python_compare (table[kept].name, aliases[a].name), <, 0);
      g_assert_cmpstr (table[kept].cuda_name, ==, aliases[a].cuda_name);
    }
  g_assert_cmpint (index_of (table, n, "MAX_SHARED_MEMORY_PER_BLOCK"), >=, 0);
  g_assert_cmpint (index_of (table, n, "SHARED_MEMORY_PER_BLOCK"), ==, -1);
}

/* The H200 of the tutorial's table, as the text would print it. */
static const struct
{
  const char *name;
  gint64 value;
} h200[] = {
  { "ASYNC_ENGINE_COUNT", 3 }, { "CAN_MAP_HOST_MEMORY", 1 }, { "CLOCK_RATE", 1980000 },
  { "COMPUTE_CAPABILITY_MAJOR", 9 }, { "MAXIMUM_TEXTURE1D_LINEAR_WIDTH", 268435456 },
  { "MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS", 2046 }, { "MAX_GRID_DIM_X", 2147483647 },
  { "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 233472 }, { "MULTIPROCESSOR_COUNT", 132 },
  { "L2_CACHE_SIZE", 62914560 }, { "WARP_SIZE", 32 },
};

static void
fill_h200 (KsLessonDevice *dev)
{
  guint n = 0;
  const KsLessonDeviceAttribute *table = ks_lesson_device_attributes (&n);

  memset (dev, 0, sizeof *dev);
  dev->name = g_strdup ("NVIDIA H200");
  dev->major = 9;
  dev->minor = 0;
  dev->total_memory = G_GUINT64_CONSTANT (150109880320);
  for (guint k = 0; k < n; k++)
    {
      dev->present[k] = TRUE;
      dev->values[k] = 1000 + k;
    }
  for (guint i = 0; i < G_N_ELEMENTS (h200); i++)
    dev->values[index_of (table, n, h200[i].name)] = h200[i].value;
}

static void
test_device_text (void)
{
  KsLessonDevice devices[2];
  g_autofree char *text = NULL;
  g_autofree char *one = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GArray) parsed = NULL;
  g_autoptr (GError) error = NULL;
  guint n = 0, pairs = 0;
  const KsLessonDeviceAttribute *table = ks_lesson_device_attributes (&n);

  fill_h200 (&devices[0]);
  fill_h200 (&devices[1]);
  g_free (devices[1].name);
  devices[1].name = g_strdup ("Second: with a colon");
  /* One attribute left out, as PyCUDA skips one that raises: 83, an odd count. */
  devices[1].present[index_of (table, n, "CLOCK_RATE")] = FALSE;
  devices[1].total_memory = G_GUINT64_CONSTANT (1) << 30;

  text = _ks_lesson_device_text (devices, 2);
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "2 device(s) found.");
  g_assert_cmpstr (lines[1], ==, "Device #0: NVIDIA H200");
  g_assert_cmpstr (lines[2], ==, "  Compute Capability: 9.0");
  /* 150 109 880 320 // 2^30 = 139 (139.8 GiB, 150.1 GB). */
  g_assert_cmpuint (G_GUINT64_CONSTANT (150109880320) >> 30, ==, 139);
  g_assert_cmpstr (lines[3], ==, "  Total Memory: 139 GB");
  /* Two per line, in the printed order. */
  g_assert_true (g_str_has_prefix (lines[4], "  ASYNC_ENGINE_COUNT: 3 "));
  g_assert_true (g_str_has_suffix (lines[4], " CAN_MAP_HOST_MEMORY: 1"));
  for (guint i = 4; i < 4 + 42; i++)
    {
      g_auto (GStrv) words = g_strsplit_set (lines[i], " ", -1);
      guint w = 0;

      for (guint k = 0; words[k] != NULL; k++)
        w += words[k][0] != '\0';
      g_assert_cmpuint (w, ==, 4);
      pairs += 2;
    }
  g_assert_cmpuint (pairs, ==, 84);
  g_assert_cmpstr (lines[4 + 42], ==, "Device #1: Second: with a colon");
  g_assert_cmpstr (lines[4 + 42 + 2], ==, "  Total Memory: 1 GB");
  /* 83 attributes: 41 full lines and one pair alone. */
  g_assert_cmpstr (lines[4 + 42 + 3 + 41], ==, "  WARP_SIZE: 32");
  g_assert_cmpstr (lines[4 + 42 + 3 + 42], ==, "");
  g_assert_null (lines[4 + 42 + 3 + 43]);

  parsed = _ks_lesson_device_parse (text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (parsed->len, ==, 2);
  for (guint d = 0; d < 2; d++)
    {
      const KsLessonDevice *p = &g_array_index (parsed, KsLessonDevice, d);

      g_assert_cmpstr (p->name, ==, devices[d].name);
      g_assert_cmpint (p->major, ==, 9);
      g_assert_cmpuint (p->total_memory >> 30, ==, devices[d].total_memory >> 30);
      for (guint k = 0; k < n; k++)
        {
          g_assert_cmpint (p->present[k], ==, devices[d].present[k]);
          if (p->present[k])
            g_assert_cmpint (p->values[k], ==, devices[d].values[k]);
        }
    }

  /* What does not read back is refused, naming the line. */
  {
    g_autofree char *bad = g_strdup (text);
    char *at = strstr (bad, "CLOCK_RATE:");
    g_autoptr (GArray) none = NULL;

    memcpy (at, "CLOCK_RATX:", 11);
    none = _ks_lesson_device_parse (bad, &error);
    g_assert_null (none);
    g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "line 6 "));
    g_clear_error (&error);
  }
  one = _ks_lesson_device_text (NULL, 0);
  g_assert_cmpstr (one, ==, "0 device(s) found.\n");
  _ks_lesson_device_clear (&devices[0]);
  _ks_lesson_device_clear (&devices[1]);
}

/* ---- compute-sanitizer ---------------------------------------------------------- */

static void
test_sanitizer_tools_and_refusals (void)
{
  const KsLesson *hist = ks_lesson_lookup ("12-01");
  const KsLesson *shared = ks_lesson_lookup ("12-02");
  const KsLesson *hello = ks_lesson_lookup ("11-01");
  g_autoptr (GError) error = NULL;
  KsLessonSanitizerReport *report = NULL;

  /* The tool that sees each defect; a fixed variant gets its book's. */
  g_assert_cmpstr (ks_lesson_get_sanitizer_tool (hist, ks_lesson_lookup_variant (hist, "book")),
                   ==, "initcheck");
  g_assert_cmpstr (ks_lesson_get_sanitizer_tool (hist, &hist->variants[0]), ==, "initcheck");
  g_assert_cmpstr (ks_lesson_get_sanitizer_tool (hist, ks_lesson_lookup_variant (hist, "race")),
                   ==, "racecheck");
  g_assert_cmpstr (ks_lesson_get_sanitizer_tool (shared, ks_lesson_get_book_variant (shared)),
                   ==, "memcheck");
  g_assert_cmpstr (ks_lesson_get_sanitizer_tool (hello, &hello->variants[1]), ==, "memcheck");

  /* Without a CUDA engine: why not, in a sentence. */
  g_assert_false (ks_lesson_sanitize (hist, ks_lesson_get_book_variant (hist), NULL, NULL,
                                      &report, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
  ks_test_assert_message_has (error, "compute-sanitizer", NULL);
  g_assert_null (report);
  g_clear_error (&error);
  g_assert_false (ks_lesson_sanitize (ks_lesson_lookup ("11-02"),
                                      &ks_lesson_lookup ("11-02")->variants[0], NULL, NULL,
                                      &report, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
  ks_test_assert_message_has (error, "runs no kernel", NULL);
}

/* Where the tool is not: the reason names where it was looked for. */
static void
test_sanitizer_not_found (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = NULL;
      g_autofree char *why = NULL;

      g_setenv ("KS_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", TRUE);
      g_assert_false (ks_lesson_find_sanitizer (&path, &why));
      g_assert_null (path);
      g_assert_nonnull (strstr (why, "KS_COMPUTE_SANITIZER"));
      g_clear_pointer (&why, g_free);
      /* An empty value is no value: PATH and the CUDA folders are searched. */
      g_setenv ("KS_COMPUTE_SANITIZER", "", TRUE);
      g_setenv ("PATH", "/nonexistent", TRUE);
      g_setenv ("CUDA_HOME", "/nonexistent", TRUE);
      if (!ks_lesson_find_sanitizer (&path, &why))
        {
          g_assert_null (path);
          g_assert_nonnull (strstr (why, "PATH"));
          g_assert_nonnull (strstr (why, "/usr/local/cuda/bin"));
        }
      else
        g_assert_true (g_str_has_prefix (path, "/usr/local/cuda/"));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A worker under a wrapper (here env, which runs its arguments as
 * compute-sanitizer does) talks over its standard input: it starts,
 * answers and compiles a lesson's kernel. */
static void
test_wrapped_worker (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autofree char *env = g_find_program_in_path ("env");
  const char *wrapper[] = { env, NULL };
  const KsLesson *lesson = ks_lesson_lookup ("12-01");
  g_autofree char *text = ks_lesson_get_source (lesson, &lesson->variants[0], NULL);
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "12-01.cu", text);
  g_autoptr (KsCompileResult) compiled = NULL;
  KsLaunchConfig launch;

  if (env == NULL)
    {
      g_test_skip ("no env program on PATH");
      return;
    }
  _ks_worker_set_wrapper (worker, wrapper, 20000);
  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ks_worker_is_running (worker));
  if (ks_nvrtc_load (NULL))
    {
      ks_kernel_source_get_default_launch (source, &launch);
      compiled = ks_worker_compile (worker, source, &launch, FALSE, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (compiled->success);
    }
  ks_worker_stop (worker);
  g_assert_false (ks_worker_is_running (worker));
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 1);
}

/* The tool's log as compute-sanitizer writes it, read into a report. */
static void
test_sanitizer_log (void)
{
  const char *memcheck =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ atomic of size 4 bytes\n"
    "=========     at atomic_hist(int *, const int *, int)+0x1b0 in 12-02-book.cu:20\n"
    "=========     by thread (256,0,0) in block (3,0,0)\n"
    "=========     Address 0x7f0000000400 is out of bounds\n"
    "=========     and is 1 bytes after the nearest allocation at 0x7f0000000000 of size 1024 "
    "bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: cudaLaunchKernel [0x1234] in libcudart\n"
    "=========\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch "
    "failure\" on CUDA API call to cudaStreamSynchronize.\n"
    "=========\n"
    "========= ERROR SUMMARY: 133 errors\n"
    "========= ERROR SUMMARY: 113 errors were not printed. Use --print-limit option to adjust "
    "the number of printed errors\n";
  const char *racecheck =
    "========= COMPUTE-SANITIZER\n"
    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";
  KsLessonSanitizerReport m = { 0 }, r = { 0 }, none = { 0 };

  m.tool = (char *) "memcheck";
  m.findings = g_ptr_array_new_with_free_func (g_free);
  _ks_lesson_sanitizer_parse_log (&m, memcheck);
  g_assert_cmpint (m.errors, ==, 133);
  g_assert_cmpuint (m.findings->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (m.findings, 0), ==,
                   "Invalid __global__ atomic of size 4 bytes at atomic_hist(int *, const int *, "
                   "int)+0x1b0 in 12-02-book.cu:20, by thread (256,0,0) in block (3,0,0), "
                   "Address 0x7f0000000400 is out of bounds, and is 1 bytes after the nearest "
                   "allocation at 0x7f0000000000 of size 1024 bytes");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (m.findings, 1),
                                   "Program hit cudaErrorLaunchFailure"));
  g_ptr_array_unref (m.findings);

  r.tool = (char *) "racecheck";
  r.findings = g_ptr_array_new_with_free_func (g_free);
  _ks_lesson_sanitizer_parse_log (&r, racecheck);
  g_assert_cmpint (r.errors, ==, 0);
  g_assert_cmpuint (r.findings->len, ==, 0);
  g_ptr_array_unref (r.findings);

  none.tool = (char *) "initcheck";
  none.findings = g_ptr_array_new_with_free_func (g_free);
  _ks_lesson_sanitizer_parse_log (&none, "kernelscope-worker: something else\n");
  g_assert_cmpint (none.errors, ==, -1);
  g_ptr_array_unref (none.findings);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ks/lessons/registry", test_registry);
  g_test_add_func ("/ks/lessons/all-run-on-cpu", test_all_run);
  g_test_add_func ("/ks/lessons/edited-on-cpu", test_edited_on_cpu);
  g_test_add_func ("/ks/lessons/check-output-and-reference", test_check_output_and_reference);
  g_test_add_func ("/ks/lessons/cancelled-before", test_cancelled_before);
  g_test_add_func ("/ks/lessons/cancelled-during", test_cancelled_during);
  g_test_add_func ("/ks/lessons/sources-compile", test_sources_compile);
  g_test_add_func ("/ks/lessons/launch-override", test_launch_override);
  g_test_add_func ("/ks/lessons/11-02/attribute-table", test_device_attribute_table);
  g_test_add_func ("/ks/lessons/11-02/text", test_device_text);
  g_test_add_func ("/ks/lessons/sanitizer/tools-and-refusals", test_sanitizer_tools_and_refusals);
  g_test_add_func ("/ks/lessons/sanitizer/not-found", test_sanitizer_not_found);
  g_test_add_func ("/ks/lessons/sanitizer/log", test_sanitizer_log);
  g_test_add_func ("/ks/lessons/sanitizer/wrapped-worker", test_wrapped_worker);
  return g_test_run ();
}
