/* test-lesson-runs.c: every lesson on the CPU engine against references
 * written here from the tutorial's definitions and numbers, every book variant
 * reproducing its defect's consequence, the same on every run; 11-02 run on
 * the CPU engine and what it refuses; 12-04's frames. What holds for every
 * lesson alike (the registry, the check, cancelling, NVRTC, compute-sanitizer)
 * is in test-lessons.c. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-lesson-private.h"
#include "ks-test-helpers.h"

static const KsArray *
output (const KsLessonReport *report, const char *name)
{
  const KsLessonArray *la = ks_lesson_report_find (report, name);

  g_assert_nonnull (la);
  return la->array;
}

static gint32
i32_at (const KsArray *a, gsize i)
{
  return (gint32) ks_array_get_double (a, i);
}

/* The gray photo as the test reads it, pixel values 0..255. */
static guint8 *
gray_photo (gsize *n)
{
  g_autofree char *path = ks_test_sample_path ("lesson-photo-gray.png");
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_load (path, &error);
  guint8 *pixels;

  g_assert_no_error (error);
  g_assert_cmpuint (image->width, ==, 256);
  g_assert_cmpuint (image->height, ==, 256);
  *n = 65536;
  pixels = g_new (guint8, 65536);
  for (guint y = 0; y < 256; y++)
    for (guint x = 0; x < 256; x++)
      pixels[y * 256 + x] = ks_image_get_rgba (image, x, y) & 0xFF;
  return pixels;
}

static guint8 *
circles (void)
{
  g_autofree char *path = ks_test_sample_path ("lesson-circles.png");
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_load (path, &error);
  guint8 *pixels = g_new (guint8, 65536);

  g_assert_no_error (error);
  for (guint y = 0; y < 256; y++)
    for (guint x = 0; x < 256; x++)
      {
        pixels[y * 256 + x] = ks_image_get_rgba (image, x, y) & 0xFF;
        g_assert_true (pixels[y * 256 + x] == 0 || pixels[y * 256 + x] == 255);
      }
  return pixels;
}

static void
test_hello (void)
{
  g_autoptr (KsLessonReport) fixed = ks_test_run_lesson ("11-01", "fixed", 0);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("11-01", "book", 0);

  g_assert_cmpstr (fixed->printf_output, ==, "Hello,PyCUDA!!!\n");
  g_assert_cmpstr (book->printf_output, ==, "Hello,PyCUDA!!!");
}

static void
test_blocks_any_order (void)
{
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("11-03");
  KsLessonOptions options;
  g_autofree char *first = NULL;
  gboolean some_out_of_order = FALSE;

  ks_lesson_options_init (&options);
  options.repeats = 1;
  for (guint64 seed = 1; seed <= 4; seed++)
    {
      g_autoptr (KsLessonReport) r = NULL;
      g_autoptr (KsLessonReport) again = NULL;
      g_auto (GStrv) lines = NULL;
      const KsArray *order;
      gboolean seen[10] = { FALSE };

      options.seed = seed;
      g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &r,
                                    &error));
      g_assert_true (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &again,
                                    &error));
      g_assert_no_error (error);
      /* The same seed, the same order: deterministic. */
      g_assert_cmpstr (r->printf_output, ==, again->printf_output);
      order = output (r, "order");
      for (guint k = 0; k < 10; k++)
        {
          gint32 b = i32_at (order, k);

          g_assert_cmpint (b, >=, 0);
          g_assert_cmpint (b, <, 10);
          g_assert_false (seen[b]);
          seen[b] = TRUE;
          some_out_of_order = some_out_of_order || b != (gint32) k;
        }
      lines = g_strsplit (r->printf_output, "\n", -1);
      g_assert_cmpuint (g_strv_length (lines), ==, 11);
      if (first == NULL)
        first = g_strdup (r->printf_output);
    }
  g_assert_true (some_out_of_order);
}

static void
test_add_numbers (void)
{
  g_autoptr (KsLessonReport) one = ks_test_run_lesson ("11-04", "fixed", 0);
  g_autoptr (KsLessonReport) many = ks_test_run_lesson ("11-05", "fixed", 3000);
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("11-05");
  KsLessonReport *report = NULL;
  KsLessonOptions options;
  const KsArray *a = output (many, "a"), *b = output (many, "b"), *c = output (many, "result");

  g_assert_cmpfloat (ks_array_get_double (output (one, "result"), 0), ==,
                     (float) (ks_array_get_double (output (one, "a"), 0)
                              + ks_array_get_double (output (one, "b"), 0)));
  g_assert_cmpuint (c->length, ==, 3000);
  for (gsize i = 0; i < 3000; i++)
    g_assert_cmpfloat (ks_array_get_double (c, i), ==,
                       (float) ((float) ks_array_get_double (a, i)
                                + (float) ks_array_get_double (b, i)));
  /* The book's one block of N threads: N = 2000 cannot launch. */
  ks_lesson_options_init (&options);
  options.size = 2000;
  g_assert_false (ks_lesson_run (lesson, ks_lesson_get_book_variant (lesson), NULL, NULL,
                                 &options, &report, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_assert_null (report);
}

static void
test_million (void)
{
  g_autoptr (KsLessonReport) fixed = ks_test_run_lesson ("11-06", "fixed", 0);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("11-06", "book", 0);

  g_assert_cmpuint (fixed->grid.x, ==, 977);
  g_assert_cmpuint (book->grid.x, ==, 978);
  g_assert_true (fixed->check.passed && book->check.passed);
  /* The fair CPU baseline is measured: a C loop on the same data, a million
   * additions, which no clock reads as nothing. */
  ks_test_assert_timing (&fixed->timings.reference, 2);
  g_assert_cmpfloat (fixed->timings.reference.median_ms, >, 0);
  /* The book's single span is measured beside the fair numbers: the first
   * run, as one span. It is not compared with the kernel's times, which are
   * other runs: on a loaded machine any run may be the slow one. */
  ks_test_assert_timing (&book->timings.kernel, 2);
  ks_test_assert_timing (&book->timings.upload, 2);
  ks_test_assert_timing (&book->timings.download, 2);
  g_assert_true (isfinite (book->timings.book_total_ms));
  g_assert_cmpfloat (book->timings.book_total_ms, >, 0);
  g_assert_nonnull (book->timings.book_total_covers);
  /* That first run is the warm-up of each stage: kept apart, never a sample. */
  g_assert_true (isfinite (book->timings.kernel.warmup_ms));
  g_assert_cmpfloat (book->timings.kernel.warmup_ms, >=, 0);
}

static void
test_square (void)
{
  g_autoptr (KsLessonReport) fixed6 = ks_test_run_lesson ("11-07", "fixed", 6);
  g_autoptr (KsLessonReport) book5 = ks_test_run_lesson ("11-07", "book", 5);
  g_autoptr (KsLessonReport) book6 = ks_test_run_lesson ("11-07", "book", 0);
  const KsLessonArray *out = ks_lesson_report_find (book6, "a");
  const KsArray *in = NULL;

  g_assert_true (fixed6->check.passed);
  g_assert_true (book5->check.passed);
  for (guint i = 0; i < book6->inputs->len; i++)
    if (g_str_equal (((KsLessonArray *) g_ptr_array_index (book6->inputs, i))->name, "a"))
      in = ((KsLessonArray *) g_ptr_array_index (book6->inputs, i))->array;
  g_assert_nonnull (in);
  g_assert_cmpuint (out->array->length, ==, 36);
  g_assert_nonnull (out->block_of);
  /* x + 5·y reaches only cells 0..30 on 6×6: 31..35 are never written and
   * keep their values; every other cell is squared (once). */
  for (gsize i = 0; i < 36; i++)
    {
      double v = ks_array_get_double (in, i);

      if (i >= 31)
        {
          g_assert_cmpint (out->block_of[i], ==, -1);
          g_assert_cmpfloat (ks_array_get_double (out->array, i), ==, v);
        }
      else
        {
          g_assert_cmpint (out->block_of[i], ==, 0);
          g_assert_cmpfloat (ks_array_get_double (out->array, i), ==, v * v);
        }
    }
  /* Cell 5 is (5, 0) and (0, 1) at once: thread 6 wrote it last. */
  g_assert_cmpint (out->thread_of[5], ==, 6);
}

static void
test_dot (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("11-08", "fixed", 0);
  double x = 1023;

  /* Chapter 3's dot: a[i] = i, b[i] = 2 over 1024 elements is x(x+1). */
  g_assert_cmpfloat (ks_array_get_double (output (r, "dot"), 0), ==, 1047552.0);
  g_assert_cmpfloat (x * (x + 1), ==, 1047552.0);
  g_assert_cmpuint (output (r, "partial")->length, ==, 2);
  /* The check is of the host's sum, against the C loop's. */
  g_assert_cmpstr (r->check.output, ==, "dot");
  g_assert_cmpuint (r->check.expected_values->length, ==, 1);
  g_assert_cmpfloat (ks_array_get_double (r->check.expected_values, 0), ==, 1047552.0);
}

static void
test_matmul (void)
{
  g_autoptr (KsLessonReport) tiled = ks_test_run_lesson ("11-09", "tiled", 0);
  g_autoptr (KsLessonReport) tiled6 = ks_test_run_lesson ("11-09", "tiled", 5);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("11-09", "book", 0);
  g_autoptr (KsLessonReport) tiled_book = ks_test_run_lesson ("11-09", "tiled-book", 0);
  const KsArray *c = output (tiled, "c");

  /* A[i][j] = i, B[i][j] = j: C[i][j] = 4·i·j. */
  for (guint i = 0; i < 4; i++)
    for (guint j = 0; j < 4; j++)
      g_assert_cmpfloat (ks_array_get_double (c, i * 4 + j), ==, 4.0 * i * j);
  g_assert_true (tiled6->check.passed);
  /* P6: the book's check passes a wrong product, the element-wise one does not. */
  g_assert_true (book->check.passed);
  g_assert_true (book->book_check.present);
  g_assert_true (book->book_check.says_correct_on_wrong);
  g_assert_true (book->book_check.real_check_catches_wrong);
  /* P3: += into a never-cleared C: nothing is right. */
  g_assert_false (tiled_book->check.passed);
  g_assert_cmpuint (tiled_book->check.differing, ==, 16);
  /* The reference it failed against is the product itself, 4·i·j. */
  g_assert_cmpstr (tiled_book->check.output, ==, "c");
  g_assert_cmpuint (tiled_book->check.expected_values->length, ==, 16);
  for (guint i = 0; i < 4; i++)
    for (guint j = 0; j < 4; j++)
      g_assert_cmpfloat (ks_array_get_double (tiled_book->check.expected_values, i * 4 + j), ==,
                         4.0 * i * j);
}

static void
test_elementwise (void)
{
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("11-10", "book", 0);

  g_assert_true (book->check.passed);
  g_assert_true (book->book_check.says_correct_on_result);
  g_assert_true (book->book_check.says_correct_on_wrong);
  g_assert_true (book->book_check.real_check_catches_wrong);
}

static void
test_reduction (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("11-11", "fixed", 0);
  const KsLessonStep *last;

  g_assert_cmpfloat (ks_array_get_double (output (r, "out"), 0), ==, 30);
  /* 8 threads: the products, then halving to 4, 2, 1. */
  g_assert_cmpuint (r->steps->len, ==, 4);
  g_assert_cmpfloat (ks_array_get_double (((KsLessonStep *) g_ptr_array_index (r->steps, 0))
                                          ->values, 4), ==, 16);
  last = g_ptr_array_index (r->steps, 3);
  g_assert_cmpfloat (ks_array_get_double (last->values, 0), ==, 30);
}

static void
test_scan (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("11-12", "fixed", 0);
  const KsArray *in = NULL, *out = output (r, "data");
  gint64 sum = 0;

  for (guint i = 0; i < r->inputs->len; i++)
    if (g_str_equal (((KsLessonArray *) g_ptr_array_index (r->inputs, i))->name, "data"))
      in = ((KsLessonArray *) g_ptr_array_index (r->inputs, i))->array;
  g_assert_nonnull (in);
  g_assert_cmpuint (in->length, ==, 10);
  for (gsize i = 0; i < 10; i++)
    {
      g_assert_cmpint (i32_at (in, i), >=, 1);
      g_assert_cmpint (i32_at (in, i), <=, 9);
      sum += i32_at (in, i);
      g_assert_cmpint (i32_at (out, i), ==, sum);
    }
  g_assert_cmpuint (r->steps->len, ==, 4);
}

static void
test_histogram (void)
{
  g_autoptr (KsLessonReport) fixed = ks_test_run_lesson ("12-01", "fixed", 0);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("12-01", "book", 0);
  g_autoptr (KsLessonReport) again = ks_test_run_lesson ("12-01", "book", 0);
  gsize n;
  g_autofree guint8 *photo = gray_photo (&n);
  guint counts[256] = { 0 };
  gint64 sum = 0;
  gint32 poison;

  for (gsize i = 0; i < n; i++)
    counts[photo[i]]++;
  for (guint k = 0; k < 256; k++)
    {
      g_assert_cmpint (i32_at (output (fixed, "bins"), k), ==, counts[k]);
      sum += i32_at (output (fixed, "bins"), k);
    }
  g_assert_cmpint (sum, ==, 65536);
  g_assert_cmpuint (fixed->atomics.global, ==, 65536);

  /* P3: every bin is the count plus what the buffer held. P2: the source
   * loads the pixel before the bounds test, but NVRTC moves the load below
   * it, and the CPU engine runs the compiled code: no read past the pixels,
   * as on the GPU. */
  memset (&poison, KS_LESSON_POISON_BYTE, 4);
  g_assert_false (book->check.passed);
  for (guint k = 0; k < 256; k++)
    g_assert_cmpint (i32_at (output (book, "bins"), k) - poison, ==, counts[k]);
  /* Both checks compare the bins with the photo's true counts. */
  g_assert_cmpstr (fixed->check.output, ==, "bins");
  g_assert_cmpstr (book->check.output, ==, "bins");
  for (guint k = 0; k < 256; k++)
    {
      g_assert_cmpint (i32_at (fixed->check.expected_values, k), ==, counts[k]);
      g_assert_cmpint (i32_at (book->check.expected_values, k), ==, counts[k]);
    }
  g_assert_cmpuint (book->block.x, ==, 257);
  g_assert_cmpuint (book->n_faults, ==, 0);
  g_assert_cmpuint (book->faults->len, ==, 0);
  g_assert_cmpstr (book->printf_output, ==, again->printf_output);
  g_assert_cmpuint (again->n_faults, ==, 0);
}

static void
test_histogram_int64 (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("12-01", "int64", 0);
  gsize n;
  g_autofree guint8 *photo = gray_photo (&n);
  guint counts[256] = { 0 };
  const KsArray *host = output (r, "bins as the host reads them (int64)");

  /* The int kernel sees rows 0..127 and a zero after each pixel. */
  for (gsize i = 0; i < n / 2; i++)
    counts[photo[i]]++;
  counts[0] += 32768;
  for (guint k = 0; k < 256; k++)
    g_assert_cmpint (i32_at (output (r, "bins"), k), ==, counts[k]);
  g_assert_cmpint (i32_at (output (r, "bins"), 0), >=, 32768);
  /* The host's int64 bins: pairs of the kernel's ints, then never written. */
  g_assert_cmpfloat (ks_array_get_double (host, 0), ==,
                     counts[0] + (double) counts[1] * 4294967296.0);
  for (guint k = 128; k < 256; k++)
    g_assert_cmpfloat (ks_array_get_double (host, k), ==, 0);
}

static void
test_histogram_race (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("12-01", "race", 0);
  g_autoptr (KsLessonReport) again = ks_test_run_lesson ("12-01", "race", 0);
  const KsArray *bins = output (r, "bins");
  guint correct[16] = { 0 };
  gint64 sum = 0;

  /* Chapter 4's data: i % 16 for 1000 values: 63 in bins 0..7, 62 in 8..15. */
  for (guint i = 0; i < 1000; i++)
    correct[i % 16]++;
  for (guint k = 0; k < 16; k++)
    g_assert_cmpuint (correct[k], ==, k < 8 ? 63 : 62);
  for (guint k = 0; k < 16; k++)
    {
      g_assert_cmpint (i32_at (bins, k), <, correct[k]);
      g_assert_cmpint (i32_at (bins, k), ==, i32_at (output (again, "bins"), k));
      /* Two waves of blocks, each adding one per bin. */
      g_assert_cmpint (i32_at (bins, k), ==, 2);
      sum += i32_at (bins, k);
    }
  g_assert_cmpint (sum, <, 1000);
  g_assert_false (r->check.passed);
  g_assert_cmpuint (r->check.differing, ==, 16);
  /* 1008 threads for 1000 values; the source reads input[tid] before the
   * test, but the compiled code only below it: no read past the input. */
  g_assert_cmpuint (r->n_faults, ==, 0);
}

static void
test_histogram_shared (void)
{
  g_autoptr (KsLessonReport) fixed = ks_test_run_lesson ("12-02", "fixed", 0);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("12-02", "book", 0);
  g_autoptr (KsLessonReport) plain = ks_test_run_lesson ("12-01", "fixed", 0);

  for (guint k = 0; k < 256; k++)
    {
      g_assert_cmpint (i32_at (output (fixed, "bins"), k), ==, i32_at (output (plain, "bins"), k));
      g_assert_cmpint (i32_at (output (book, "bins"), k), ==, i32_at (output (plain, "bins"), k));
    }
  g_assert_cmpuint (fixed->atomics.shared, ==, 65536);
  g_assert_cmpuint (fixed->atomics.global, ==, 32 * 256);
  /* P11: 256 × 257 merges, more global atomics than 12-01's one per pixel. */
  g_assert_cmpuint (book->atomics.shared, ==, 65536);
  g_assert_cmpuint (book->atomics.global, ==, 65792);
  g_assert_cmpuint (book->atomics.global, >, plain->atomics.global);
  /* P10: thread 256 of each block writes and reads cache[256], which lies
   * in the 1 KiB of dynamic shared memory the launch asks for: inside the
   * block's shared memory, so no check finds it, on either engine; its
   * merge lands in the guard slot bins[256] (with 0). */
  g_assert_cmpuint (book->dynamic_shared, ==, 1024);
  g_assert_cmpuint (book->n_faults, ==, 0);
  g_assert_cmpuint (output (book, "bins")->length, ==, 257);
  g_assert_cmpint (i32_at (output (book, "bins"), 256), ==, 0);
}

static void
test_gray (void)
{
  g_autoptr (KsLessonReport) fixed = ks_test_run_lesson ("12-03", "fixed", 0);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("12-03", "book", 0);
  g_autofree char *path = ks_test_sample_path ("lesson-photo-color.png");
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) photo = ks_image_load (path, &error);
  const KsArray *rounded = output (fixed, "result");
  const KsArray *cast = output (book, "gray (astype(uint8))");
  gsize darker = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (book->grid.x * book->block.x, ==, 65536);
  for (guint y = 0; y < 256; y++)
    for (guint x = 0; x < 256; x++)
      {
        guint32 p = ks_image_get_rgba (photo, x, y);
        double exact = 0.299 * (p & 0xFF) + 0.587 * ((p >> 8) & 0xFF) + 0.114 * ((p >> 16) & 0xFF);
        double v = ks_array_get_double (rounded, y * 256 + x);

        g_assert_cmpfloat (fabs (v - floor (exact + 0.5)), <=, 1);
        g_assert_cmpfloat (v, ==, floor (v));
        g_assert_cmpfloat (ks_array_get_double (cast, y * 256 + x), ==, floor (exact + 1e-9));
        darker += ks_array_get_double (cast, y * 256 + x) < v;
      }
  /* Truncation makes about half the pixels one level darker. */
  g_assert_cmpuint (darker, >, 65536 / 4);
  g_assert_true (book->check.passed);
  g_assert_cmpuint (book->images->len, ==, 2);
}

static void
test_image_add (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("12-05", "fixed", 0);
  g_autofree guint8 *mask = circles ();
  gsize n;
  g_autofree guint8 *photo = gray_photo (&n);
  const KsArray *out = output (r, "result");

  for (gsize i = 0; i < n; i++)
    if (mask[i] == 255)
      g_assert_cmpfloat (ks_array_get_double (out, i), ==, 255);
    else
      g_assert_cmpfloat (ks_array_get_double (out, i), ==, photo[i]);
  g_assert_true (r->check.passed);
}

static void
test_invert (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("12-06", "fixed", 0);
  g_autofree guint8 *mask = circles ();
  const KsArray *out = output (r, "z");
  gsize white = 0, black = 0;

  for (gsize i = 0; i < 65536; i++)
    {
      g_assert_cmpfloat (ks_array_get_double (out, i), ==, 255 - mask[i]);
      white += ks_array_get_double (out, i) == 255;
      black += mask[i] == 0;
    }
  g_assert_cmpuint (white, ==, black);
}

/* ---- 11-02 on the CPU engine ------------------------------------------------ */

static void
test_device_cpu (void)
{
  g_autoptr (KsLessonReport) r = ks_test_run_lesson ("11-02", NULL, 0);
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("11-02");
  KsLessonReport *refused = NULL;
  KsLessonOptions options;
  g_autofree char *cores = g_strdup_printf (", %u logical cores", g_get_num_processors ());
  gboolean said_cores = FALSE, said_h200 = FALSE;

  g_assert_cmpstr (r->printf_output, ==, "0 device(s) found.\n");
  g_assert_true (r->check.passed);
  g_assert_null (r->check.output);
  g_assert_cmpuint (r->threads, ==, 0);
  g_assert_cmpuint (r->outputs->len, ==, 0);
  for (guint i = 0; i < r->notes->len; i++)
    {
      const char *note = g_ptr_array_index (r->notes, i);

      said_cores = said_cores || strstr (note, cores) != NULL;
      said_h200 = said_h200 || (strstr (note, "150 109 880 320") != NULL
                                && strstr (note, "139 GB") != NULL
                                && strstr (note, "139.8 GiB") != NULL);
    }
  g_assert_true (said_cores);
  g_assert_true (said_h200);

  /* No size, no launch, no edit: there is no kernel. */
  ks_lesson_options_init (&options);
  options.size = 3;
  g_assert_false (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &refused,
                                 &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  ks_lesson_options_init (&options);
  options.block = (KsDim3) { 32, 1, 1 };
  g_assert_false (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &refused,
                                 &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_test_assert_message_has (error, "launches no kernel", NULL);
  g_clear_error (&error);
  ks_lesson_options_init (&options);
  options.source = "int main (void) { return 0; }\n";
  g_assert_false (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &refused,
                                 &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_test_assert_message_has (error, "runs no kernel", NULL);
  g_assert_null (refused);
}

/* ---- 12-04 frames ------------------------------------------------------------ */

static const KsImage *
image (const KsLessonReport *r, const char *name)
{
  for (guint i = 0; i < r->images->len; i++)
    if (g_str_equal (((KsLessonImage *) g_ptr_array_index (r->images, i))->name, name))
      return ((KsLessonImage *) g_ptr_array_index (r->images, i))->image;
  g_error ("no image %s", name);
  return NULL;
}

static double
median (const KsArray *a)
{
  g_autofree double *v = g_new (double, a->length);

  for (gsize i = 0; i < a->length; i++)
    v[i] = ks_array_get_double (a, i);
  for (gsize i = 1; i < a->length; i++)
    for (gsize j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        double t = v[j];

        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  return v[a->length / 2];
}

static void
test_webcam (void)
{
  g_autoptr (KsLessonReport) fixed = ks_test_run_lesson ("12-04", "fixed", 0);
  g_autoptr (KsLessonReport) book = ks_test_run_lesson ("12-04", "book", 0);
  g_autoptr (KsLessonReport) three = ks_test_run_lesson ("12-04", "book", 3);
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup ("12-04");
  const KsArray *rounded = output (fixed, "gray, frame by frame");
  const KsArray *cast = output (book, "gray (astype(uint8)), frame by frame");
  const KsImage *frame0 = image (fixed, "frame 0");
  const KsImage *camera = image (fixed, "camera frame 0");
  KsLessonReport *refused = NULL;
  KsLessonOptions options;
  gsize darker = 0;
  gboolean said_darker = FALSE, said_red = FALSE;

  /* 30 frames of a 4:3 camera, resized to the book's square. */
  g_assert_cmpuint (camera->width, ==, 320);
  g_assert_cmpuint (camera->height, ==, 240);
  g_assert_cmpuint (frame0->width, ==, 256);
  g_assert_cmpuint (frame0->height, ==, 256);
  g_assert_cmpuint (rounded->length, ==, 30 * 65536);
  g_assert_cmpuint (cast->length, ==, 30 * 65536);
  g_assert_cmpuint (output (three, "gray (astype(uint8)), frame by frame")->length, ==,
                    3 * 65536);
  /* 12-03's launch: 64 × 1024 for the book. */
  g_assert_cmpuint (book->grid.x * book->block.x, ==, 65536);
  g_assert_true (fixed->check.passed);
  g_assert_true (book->check.passed);

  /* Frame 0 against BT.601 written here: rounded within a level, the book
   * truncating exactly; about half the book's pixels a level darker (P13). */
  for (guint y = 0; y < 256; y++)
    for (guint x = 0; x < 256; x++)
      {
        guint32 p = ks_image_get_rgba (frame0, x, y);
        double exact = 0.299 * (p & 0xFF) + 0.587 * ((p >> 8) & 0xFF) + 0.114 * ((p >> 16) & 0xFF);
        double v = ks_array_get_double (rounded, y * 256 + x);

        g_assert_cmpfloat (fabs (v - floor (exact + 0.5)), <=, 1);
        g_assert_cmpfloat (ks_array_get_double (cast, y * 256 + x), ==, floor (exact + 1e-9));
        darker += ks_array_get_double (cast, y * 256 + x) < floor (exact + 0.5);
      }
  g_assert_cmpuint (darker, >, 65536 / 4);
  /* The frames move: the last differs from the first. */
  g_assert_false (memcmp (cast->data, cast->data + 29 * 65536, 65536) == 0);
  for (guint i = 0; i < book->notes->len; i++)
    {
      const char *note = g_ptr_array_index (book->notes, i);

      said_darker = said_darker || strstr (note, "one level darker") != NULL;
      said_red = said_red || strstr (note, "red plane overwritten") != NULL;
    }
  g_assert_true (said_darker);
  g_assert_true (said_red);
  /* The two ways of handling the buffers, timed per frame. */
  g_assert_cmpuint (output (book, "ms per frame, the book's way")->length, ==, 30);
  g_assert_cmpuint (output (book, "ms per frame, buffers allocated once")->length, ==, 30);
  g_assert_cmpfloat (median (output (book, "ms per frame, the book's way")), >, 0);
  g_assert_cmpfloat (median (output (book, "ms per frame, buffers allocated once")), >, 0);

  /* The same seed, the same frames; another seed, others. */
  {
    g_autoptr (KsLessonReport) again = ks_test_run_lesson ("12-04", "book", 3);
    KsLessonReport *other = NULL;
    const KsArray *a = output (three, "gray (astype(uint8)), frame by frame");

    g_assert_true (ks_array_equal (a, output (again, "gray (astype(uint8)), frame by frame"), 0,
                                   0, NULL));
    ks_lesson_options_init (&options);
    options.repeats = 1;
    options.size = 3;
    options.seed = 7;
    g_assert_true (ks_lesson_run (lesson, &lesson->variants[1], NULL, NULL, &options, &other,
                                  &error));
    g_assert_false (ks_array_equal (a, output (other, "gray (astype(uint8)), frame by frame"),
                                    0, 0, NULL));
    ks_lesson_report_free (other);
  }
  ks_lesson_options_init (&options);
  options.size = KS_LESSON_MAX_FRAMES + 1;
  g_assert_false (ks_lesson_run (lesson, &lesson->variants[0], NULL, NULL, &options, &refused,
                                 &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_null (refused);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* Every test here runs lessons' kernels, which NVRTC compiles. */
  if (!ks_nvrtc_load (NULL))
    {
      g_print ("1..0 # SKIP NVRTC is not available\n");
      return KS_TEST_SKIPPED;
    }
  g_test_add_func ("/ks/lessons/11-01/hello", test_hello);
  g_test_add_func ("/ks/lessons/11-03/any-order", test_blocks_any_order);
  g_test_add_func ("/ks/lessons/11-04-05/add", test_add_numbers);
  g_test_add_func ("/ks/lessons/11-06/million", test_million);
  g_test_add_func ("/ks/lessons/11-07/hard-coded-width", test_square);
  g_test_add_func ("/ks/lessons/11-08/dot", test_dot);
  g_test_add_func ("/ks/lessons/11-09/matmul", test_matmul);
  g_test_add_func ("/ks/lessons/11-10/vacuous-check", test_elementwise);
  g_test_add_func ("/ks/lessons/11-11/reduction", test_reduction);
  g_test_add_func ("/ks/lessons/11-12/scan", test_scan);
  g_test_add_func ("/ks/lessons/12-01/histogram", test_histogram);
  g_test_add_func ("/ks/lessons/12-01/int64", test_histogram_int64);
  g_test_add_func ("/ks/lessons/12-01/race", test_histogram_race);
  g_test_add_func ("/ks/lessons/12-02/shared", test_histogram_shared);
  g_test_add_func ("/ks/lessons/12-03/gray", test_gray);
  g_test_add_func ("/ks/lessons/12-05/add", test_image_add);
  g_test_add_func ("/ks/lessons/12-06/invert", test_invert);
  g_test_add_func ("/ks/lessons/11-02/cpu-engine", test_device_cpu);
  g_test_add_func ("/ks/lessons/12-04/frames", test_webcam);
  return g_test_run ();
}
