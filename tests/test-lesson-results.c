/* test-lesson-results.c: what a lesson's run shows in the Lessons window on
 * the CPU engine, as a user sees it: every lesson runs and its result cells
 * hold the report's values (and the values the tutorial gives: 11-11 → 30,
 * 11-04 a + b, 11-07 the squares, 11-09 A·B); the book's 11-09 shows its
 * check passing a wrong product; a wrong result has every differing cell
 * marked with the value expected, and counted, and a long one a heatmap of
 * its differences; 12-01 and 12-02 show their atomics; the book's 12-02 its
 * refused accesses; 11-02 shows what the book prints; and screenshots of a
 * matrix, a defect, the differences and the timings. The window's controls
 * (editing, launching, cancelling, the main window's camera) are in
 * test-lesson-window.c. Needs a display: run under xvfb-run; without one
 * every test skips. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-lesson-window-fixture.h"
#include "ks-test-helpers.h"
#include "ks-ui-test-helpers.h"

typedef KsLessonFixture Fixture;


static const KsArray *
report_array (Fixture *f, const char *name)
{
  const KsLessonArray *la = ks_lesson_report_find (ks_lesson_window_get_report (f->window), name);

  g_assert_nonnull (la);
  return la->array;
}

/* A cell shows value v, formatted as an f32 array's element is. */
static void
assert_cell_f32 (KsLessonCells *c, gsize index, float v)
{
  g_autoptr (KsArray) one = ks_array_new (KS_ELEM_FLOAT32, 1, NULL);
  g_autofree char *text = NULL;

  ks_array_set_double (one, 0, v);
  text = ks_array_format_element (one, 0);
  g_assert_cmpstr (ks_lesson_cells_get_text (c, index), ==, text);
}

/* Every cell of the window's arrays shows what the report holds. */
static void
assert_cells_match_report (Fixture *f)
{
  const KsLessonReport *r = ks_lesson_window_get_report (f->window);
  const GPtrArray *lists[2] = { r->inputs, r->outputs };
  const char *const prefixes[2] = { "input", "output" };

  for (guint k = 0; k < 2; k++)
    for (guint i = 0; i < lists[k]->len; i++)
      {
        const KsLessonArray *la = g_ptr_array_index (lists[k], i);
        g_autofree char *key = g_strdup_printf ("%s:%s", prefixes[k], la->name);
        GtkWidget *w = ks_lesson_window_get_result_widget (f->window, key);

        if (w == NULL)
          {
            /* Too long for cells: its first value is in the summary. */
            g_autofree char *values_key = g_strconcat (key, ":values", NULL);
            g_autofree char *first = ks_array_format_element (la->array, 0);

            g_assert_nonnull (strstr (ks_lesson_fixture_label (f, values_key), first));
            continue;
          }
        g_assert_cmpuint (ks_lesson_cells_get_n_cells (KS_LESSON_CELLS (w)), ==,
                          la->array->length);
        for (gsize e = 0; e < la->array->length; e++)
          {
            g_autofree char *v = ks_array_format_element (la->array, e);

            g_assert_cmpstr (ks_lesson_cells_get_text (KS_LESSON_CELLS (w), e), ==, v);
            if (la->block_of != NULL && la->block_of[e] < 0)
              g_assert_cmpint (ks_lesson_cells_get_state (KS_LESSON_CELLS (w), e), !=,
                               KS_LESSON_CELL_WRITTEN);
          }
      }
}

/* ---- every lesson ----------------------------------------------------------------------- */

static void
test_every_lesson (Fixture *f, gconstpointer data)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  if (ks_ui_test_skip_without_display ())
    return;
  g_assert_cmpuint (n, >, 10);
  for (guint i = 0; i < n; i++)
    {
      const KsLessonReport *r;

      ks_lesson_fixture_run (f, lessons[i]->id, NULL);
      r = ks_lesson_window_get_report (f->window);
      g_test_message ("%s: %s", lessons[i]->id, r->check.summary);
      /* The fixed variants are right, and the window says so. */
      g_assert_true (r->check.passed);
      g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "check"), r->check.summary));
      g_assert_nonnull (ks_lesson_window_get_result_widget (f->window, "timings"));
      assert_cells_match_report (f);
      for (guint k = 0; k < r->images->len; k++)
        {
          const KsLessonImage *li = g_ptr_array_index (r->images, k);
          g_autofree char *key = g_strdup_printf ("image:%s", li->name);
          GtkWidget *picture = ks_lesson_window_get_result_widget (f->window, key);
          GdkPaintable *paintable;

          g_assert_nonnull (picture);
          paintable = gtk_picture_get_paintable (GTK_PICTURE (picture));
          g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), ==, li->image->width);
          g_assert_cmpint (gdk_paintable_get_intrinsic_height (paintable), ==, li->image->height);
        }
      if (r->printf_output != NULL && r->printf_output[0] != '\0')
        {
          GtkWidget *view = ks_lesson_window_get_result_widget (f->window, "printf");
          GtkTextIter start, end;
          g_autofree char *shown = NULL;

          g_assert_nonnull (view);
          gtk_text_buffer_get_bounds (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), &start,
                                      &end);
          shown = gtk_text_iter_get_text (&start, &end);
          g_assert_cmpstr (shown, ==, r->printf_output);
        }
      for (guint k = 0; k < r->steps->len; k++)
        {
          const KsLessonStep *step = g_ptr_array_index (r->steps, k);
          g_autofree char *key = g_strdup_printf ("step:%u", k);
          KsLessonCells *c = ks_lesson_fixture_cells (f, key);

          g_assert_cmpuint (ks_lesson_cells_get_n_cells (c), ==, step->values->length);
        }
    }
}

static void
test_known_values (Fixture *f, gconstpointer data)
{
  KsLessonCells *c;
  const KsArray *a, *b;

  if (ks_ui_test_skip_without_display ())
    return;

  /* 11-11: [0..4]·[0..4] = 30, and its four steps shown. */
  ks_lesson_fixture_run (f, "11-11", NULL);
  g_assert_cmpstr (ks_lesson_cells_get_text (ks_lesson_fixture_cells (f, "output:out"), 0), ==,
                   "30");
  c = ks_lesson_fixture_cells (f, "step:3");
  g_assert_cmpstr (ks_lesson_cells_get_text (c, 0), ==, "30");
  g_assert_cmpstr (ks_lesson_cells_get_text (ks_lesson_fixture_cells (f, "step:0"), 4), ==, "16");

  /* 11-04: a + b. */
  ks_lesson_fixture_run (f, "11-04", NULL);
  a = report_array (f, "a");
  b = report_array (f, "b");
  assert_cell_f32 (ks_lesson_fixture_cells (f, "output:result"), 0,
                   (float) ks_array_get_double (a, 0) + (float) ks_array_get_double (b, 0));
  /* Hovering the cell names the one thread that wrote it. */
  {
    g_autofree char *tip =
      ks_lesson_cells_describe (ks_lesson_fixture_cells (f, "output:result"), 0);

    g_assert_nonnull (strstr (tip, "block (0, 0, 0), thread (0, 0, 0)"));
  }

  /* 11-07: each cell squared in place, by the thread at its (x, y). */
  ks_lesson_fixture_run (f, "11-07", NULL);
  a = report_array (f, "a");
  c = ks_lesson_fixture_cells (f, "output:a");
  g_assert_cmpuint (ks_lesson_cells_get_n_cells (c), ==, 25);
  {
    const KsLessonArray *in = g_ptr_array_index (ks_lesson_window_get_report (f->window)->inputs,
                                                 0);
    g_autofree char *tip = ks_lesson_cells_describe (c, 7);

    for (gsize i = 0; i < 25; i++)
      {
        float v = (float) ks_array_get_double (in->array, i);

        assert_cell_f32 (c, i, v * v);
      }
    /* Element 7 is row 1, column 2: thread x = 2, y = 1. */
    g_assert_nonnull (strstr (tip, "thread (2, 1, 0)"));
  }

  /* 11-09: C = A·B, element by element. */
  ks_lesson_fixture_run (f, "11-09", NULL);
  a = report_array (f, "a");
  b = report_array (f, "b");
  c = ks_lesson_fixture_cells (f, "output:c");
  for (gsize i = 0; i < 3; i++)
    for (gsize j = 0; j < 3; j++)
      {
        float s = 0;

        for (gsize k = 0; k < 3; k++)
          s += (float) ks_array_get_double (a, i * 3 + k) * (float) ks_array_get_double (b, k * 3 + j);
        assert_cell_f32 (c, i * 3 + j, s);
      }
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "book-check"));
}

/* ---- the defects, shown -------------------------------------------------------------------- */

static void
test_book_check_vacuous (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-09", "book");
  r = ks_lesson_window_get_report (f->window);
  g_assert_true (r->book_check.present);
  g_assert_true (r->book_check.says_correct_on_wrong);
  /* The book's check passes the deliberately wrong product, and the window says so. */
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "book-check"), "passes a wrong result"));
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "book-check"),
                            r->book_check.wrong_description));
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "book-check"), "catches the wrong one"));
  g_assert_true (gtk_widget_has_css_class (ks_lesson_window_get_result_widget (f->window,
                                                                               "book-check"),
                                           "ks-error-box"));
  /* The variant's defect is named. */
  g_assert_cmpstr (ks_lesson_window_get_variant (f->window)->defects, ==, "P6");

  /* The hard-coded width: 11-07's book on 6×6 leaves cells unwritten and
   * marks the first wrong one. */
  ks_lesson_fixture_run (f, "11-07", "book");
  r = ks_lesson_window_get_report (f->window);
  g_assert_false (r->check.passed);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "check"), "✗"));
  g_assert_cmpint (ks_lesson_cells_get_state (ks_lesson_fixture_cells (f, "output:a"),
                                              r->check.first_difference),
                   ==, KS_LESSON_CELL_DIFFERENT);
  g_assert_cmpint (ks_lesson_cells_get_state (ks_lesson_fixture_cells (f, "output:a"), 35), ==,
                   KS_LESSON_CELL_UNWRITTEN);
  ks_lesson_fixture_scroll_to (f, "check", 12);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-wrong-cells.png");
  assert_cells_match_report (f);
}

static void
test_atomics (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "12-01", NULL);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "atomics"), "65536 on global memory"));
  ks_lesson_fixture_run (f, "12-02", NULL);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "atomics"), "8192 on global memory"));
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "atomics"), "65536 on shared memory"));
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "faults"));

  /* The book's 257 threads: more global atomics than 12-01; the 257th
   * thread's cache[256] lies in the launch's dynamic shared memory, so no
   * check finds it; bins[256] is the guard slot. */
  ks_lesson_fixture_run (f, "12-02", "book");
  r = ks_lesson_window_get_report (f->window);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "atomics"), "65792 on global memory"));
  g_assert_cmpuint (r->n_faults, ==, 0);
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "faults"));
  g_assert_cmpuint (ks_lesson_cells_get_n_cells (ks_lesson_fixture_cells (f, "output:bins")), ==,
                    257);
  g_assert_cmpstr (ks_lesson_cells_get_text (ks_lesson_fixture_cells (f, "output:bins"), 256), ==,
                   "0");
  assert_cells_match_report (f);
  /* The guard slot's row of bins and the atomics. */
  ks_lesson_fixture_scroll_to (f, "atomics", 90);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-defect.png");

  /* The racing histogram loses updates: the check says where. */
  ks_lesson_fixture_run (f, "12-01", "race");
  r = ks_lesson_window_get_report (f->window);
  g_assert_false (r->check.passed);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "check"), r->check.summary));
}

/* ---- every difference, marked -------------------------------------------------------------- */

/* Whether element i of the checked output differs from the report's
 * reference: these lessons compare exactly. */
static gboolean
differs_from_reference (const KsLessonReport *r, const KsArray *out, gsize i)
{
  const KsArray *ev = r->check.expected_values;

  return i < ev->length && ks_array_get_double (ev, i) != ks_array_get_double (out, i);
}

/* The count above the checked output's cells and every one of its cells:
 * red exactly where it differs from the reference, each saying what was
 * expected there. */
static void
assert_differences_marked (Fixture *f, const char *output)
{
  const KsLessonReport *r = ks_lesson_window_get_report (f->window);
  const KsArray *out = report_array (f, output);
  g_autofree char *key = g_strdup_printf ("output:%s", output);
  g_autofree char *count_key = g_strdup_printf ("output:%s:differences", output);
  g_autofree char *count = NULL;
  KsLessonCells *c = ks_lesson_fixture_cells (f, key);
  gsize marked = 0;

  g_assert_false (r->check.passed);
  g_assert_cmpstr (r->check.output, ==, output);
  for (gsize i = 0; i < out->length; i++)
    {
      g_autofree char *tip = ks_lesson_cells_describe (c, i);

      if (differs_from_reference (r, out, i))
        {
          g_autofree char *e = ks_array_format_element (r->check.expected_values, i);
          g_autofree char *v = ks_array_format_element (out, i);
          g_autofree char *says = g_strdup_printf ("expected %s, got %s", e, v);

          g_assert_cmpint (ks_lesson_cells_get_state (c, i), ==, KS_LESSON_CELL_DIFFERENT);
          g_assert_nonnull (strstr (tip, says));
          marked++;
        }
      else
        {
          g_assert_cmpint (ks_lesson_cells_get_state (c, i), !=, KS_LESSON_CELL_DIFFERENT);
          g_assert_null (strstr (tip, "expected"));
        }
    }
  /* Every difference the check counted is marked, not only the first. */
  g_assert_cmpuint (marked, ==, r->check.differing);
  g_assert_cmpuint (marked, >, 1);
  count = g_strdup_printf ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " elements differ",
                           r->check.differing, r->check.compared);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, count_key), count));
}

static void
test_every_difference (Fixture *f, gconstpointer data)
{
  if (ks_ui_test_skip_without_display ())
    return;
  /* The hard-coded width on 6×6: three cells of 36 wrong, among them cells
   * no thread wrote; cell 35 was not written either, but it is right. */
  ks_lesson_fixture_run (f, "11-07", "book");
  assert_differences_marked (f, "a");
  g_assert_cmpuint (ks_lesson_window_get_report (f->window)->check.differing, ==, 3);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                         "3 of 36 elements differ from the reference"));
  g_assert_cmpint (ks_lesson_cells_get_state (ks_lesson_fixture_cells (f, "output:a"), 35), ==,
                   KS_LESSON_CELL_UNWRITTEN);
  ks_lesson_fixture_scroll_to (f, "check", 12);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-wrong-cells.png");

  /* Bins never cleared: every one of the 256 is off by the garbage. */
  ks_lesson_fixture_run (f, "12-01", "book");
  assert_differences_marked (f, "bins");
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                         "256 of 256 elements differ from the reference"));

  /* Increments lost in a race: the bins that lost them. */
  ks_lesson_fixture_run (f, "12-01", "race");
  assert_differences_marked (f, "bins");

  /* A right result marks nothing and counts nothing. */
  ks_lesson_fixture_run (f, "12-01", NULL);
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "output:bins:differences"));
  for (gsize i = 0; i < 256; i++)
    g_assert_cmpint (ks_lesson_cells_get_state (ks_lesson_fixture_cells (f, "output:bins"), i), !=,
                     KS_LESSON_CELL_DIFFERENT);
}

static gboolean
is_toggle_with_mnemonic (GtkWidget *widget, gconstpointer label)
{
  return GTK_IS_TOGGLE_BUTTON (widget) && gtk_widget_is_drawable (widget)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

/* The red of a differing element in the heatmap of differences, as B, G, R, A. */
static gboolean
is_difference_red (const guint8 *bgra)
{
  return bgra[2] > 200 && bgra[1] < 60 && bgra[0] < 70 && bgra[3] == 255;
}

/* 12-03's check allows a gray level either way (a float sum halfway between
 * two levels may round up or down): an element differs beyond that. */
static gboolean
gray_differs (const KsArray *expected, const KsArray *out, gsize i)
{
  return fabs (ks_array_get_double (expected, i) - ks_array_get_double (out, i)) > 1.0;
}

/* 12-03 on 32 blocks of its 1024 threads colours the first 128 rows of
 * 256: the rest keep the zeros the output started with, wrong wherever the
 * photo is not black (or nearly). The heatmap of differences is red there
 * and nowhere else (not where the check's tolerance let a level pass), the
 * count says how many, and hovering a pixel gives the element and its
 * expected value. */
static void
test_heatmap_differences (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;
  const KsArray *out, *ev;
  GtkWidget *picture, *values;
  g_autofree char *count = NULL;
  g_autofree char *below = NULL;
  g_autofree char *above = NULL;
  g_autofree guint8 *pixels = NULL;
  gsize expected_red = 0, red = 0, bottom_differs = 0;
  int w, h, width;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "12-03", NULL);
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "output:result:differences"));
  ks_lesson_fixture_type_launch (f, "lesson-grid", "32");
  r = ks_lesson_window_get_report (f->window);
  g_assert_cmpuint (r->grid.x, ==, 32);
  g_assert_false (r->check.passed);
  out = report_array (f, "result");
  ev = r->check.expected_values;
  g_assert_cmpuint (out->length, ==, 256 * 256);
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "output:result"));

  /* The count, as the check counted. */
  count = g_strdup_printf ("%" G_GSIZE_FORMAT " of 65536 elements differ from the reference",
                           r->check.differing);
  g_assert_cmpstr (ks_lesson_fixture_label (f, "output:result:differences"), ==, count);
  g_assert_cmpuint (r->check.differing, >, 1000);

  /* Red exactly at the differing elements: one pixel each at this size. */
  picture = ks_lesson_window_get_result_widget (f->window, "output:result:heatmap");
  g_assert_nonnull (picture);
  g_assert_true (gtk_widget_is_drawable (picture));
  ks_lesson_fixture_scroll_to (f, "output:result:heatmap", 120);
  pixels = ks_ui_test_render_pixels (picture, &w, &h);
  g_assert_cmpint (w, ==, 256);
  g_assert_cmpint (h, ==, 256);
  for (gsize i = 0; i < out->length; i++)
    {
      gboolean d = gray_differs (ev, out, i);

      expected_red += d;
      if (i < 128 * 256)
        g_assert_false (d);
      else
        bottom_differs += d;
      if (is_difference_red (pixels + i * 4))
        {
          g_assert_true (d);
          red++;
        }
    }
  g_assert_cmpuint (expected_red, ==, r->check.differing);
  g_assert_cmpuint (red, ==, expected_red);
  g_assert_cmpuint (bottom_differs, ==, expected_red);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-differences.png");

  /* Hovering: a row of the unwritten half gives the value expected. */
  for (gsize col = 0; col < 256 && below == NULL; col++)
    if (gray_differs (ev, out, 200 * 256 + col))
      {
        g_autofree char *tip = ks_lesson_window_describe_heatmap (f->window,
                                                                  "output:result:heatmap",
                                                                  col + 0.5, 200.5);
        g_autofree char *where = g_strdup_printf ("[200, %" G_GSIZE_FORMAT "] = ", col);
        g_autofree char *e = ks_array_format_element (ev, 200 * 256 + col);
        g_autofree char *v = ks_array_format_element (out, 200 * 256 + col);

        below = g_strdup_printf ("expected %s, got %s", e, v);
        g_assert_true (g_str_has_prefix (tip, where));
        g_assert_nonnull (strstr (tip, below));
      }
  g_assert_nonnull (below);
  above = ks_lesson_window_describe_heatmap (f->window, "output:result:heatmap", 10.5, 20.5);
  g_assert_true (g_str_has_prefix (above, "[20, 10] = "));
  g_assert_nonnull (strstr (above, "Equals the reference"));
  g_assert_null (ks_lesson_window_describe_heatmap (f->window, "output:result:heatmap", 300,
                                                    20));

  /* The values again: no reference in what hovering says. */
  values = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), is_toggle_with_mnemonic,
                                            "_Values");
  g_assert_nonnull (values);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (values), TRUE);
  {
    g_autofree char *tip = ks_lesson_window_describe_heatmap (f->window,
                                                              "output:result:heatmap", 10.5,
                                                              200.5);

    g_assert_true (g_str_has_prefix (tip, "[200, 10] = "));
    g_assert_null (strstr (tip, "reference"));
  }

  /* Presenter mode draws it larger, with the type. */
  width = gtk_widget_get_width (picture);
  gtk_widget_add_css_class (GTK_WIDGET (f->parent), "ks-presenter");
  for (int i = 0; i < 20; i++)
    ks_ui_test_iterate ();
  g_assert_cmpint (gtk_widget_get_width (picture), >, width);
  gtk_widget_remove_css_class (GTK_WIDGET (f->parent), "ks-presenter");
  ks_ui_test_iterate ();
}

/* ---- 11-02 and screenshots ------------------------------------------------------------------ */

/* 11-02 on the CPU engine: the count the book prints for a machine without
 * an NVIDIA device, as printed, its host code for reading, and no launch. */
static void
test_device_properties (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;
  GtkWidget *view;
  GtkTextIter start, end;
  g_autofree char *shown = NULL;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-02", NULL);
  r = ks_lesson_window_get_report (f->window);
  g_assert_true (r->lesson->host_only);
  g_assert_true (r->check.passed);
  view = ks_lesson_window_get_result_widget (f->window, "printf");
  g_assert_nonnull (view);
  g_assert_true (gtk_widget_is_drawable (view));
  gtk_text_buffer_get_bounds (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), &start, &end);
  shown = gtk_text_iter_get_text (&start, &end);
  g_assert_cmpstr (shown, ==, "0 device(s) found.\n");
  /* Columns kept as printed: no wrapping. */
  g_assert_cmpint (gtk_text_view_get_wrap_mode (GTK_TEXT_VIEW (view)), ==, GTK_WRAP_NONE);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "What the script prints"));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "No kernel runs"));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Host code"));
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (
    ks_ui_test_find_widget (GTK_WIDGET (f->window), GTK_SOURCE_TYPE_VIEW))));
  g_assert_false (gtk_widget_is_drawable (
    ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), ks_lesson_fixture_entry_named,
                                     "lesson-grid")));
  /* No copies or launch to time. */
  g_assert_false (ks_ui_test_label_shows (ks_lesson_window_get_result_widget (f->window,
                                                                              "timings"),
                                          "Upload"));
  g_assert_nonnull (ks_lesson_window_get_result_widget (f->window, "notes"));

  /* The next lesson has its kernel, its launch and its editor back. */
  ks_lesson_fixture_run (f, "11-04", NULL);
  g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (
    ks_ui_test_find_widget (GTK_WIDGET (f->window), GTK_SOURCE_TYPE_VIEW))));
  g_assert_true (gtk_widget_is_drawable (
    ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), ks_lesson_fixture_entry_named,
                                     "lesson-grid")));
}

static gboolean
is_toggle_labelled (GtkWidget *widget, gconstpointer label)
{
  return GTK_IS_TOGGLE_BUTTON (widget)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static void
test_screenshots (Fixture *f, gconstpointer data)
{
  KsLessonCells *c;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-09", NULL);
  /* Show Threads: every cell names its block and thread. */
  c = ks_lesson_fixture_cells (f, "output:c");
  g_assert_false (ks_lesson_cells_get_show_owners (c));
  {
    GtkWidget *owners = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window),
                                                         is_toggle_labelled, "Show _Threads");

    g_assert_nonnull (owners);
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (owners), TRUE);
  }
  g_assert_true (ks_lesson_cells_get_show_owners (c));
  ks_lesson_fixture_scroll_to (f, "check", 12);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-matrix.png");

  ks_lesson_fixture_run (f, "11-06", NULL);
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "timing-why"), "one span"));
  ks_lesson_fixture_scroll_to (f, "timings", 12);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-timing.png");
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
  ks_ui_test_init_display (KS_UI_TEST_ADWAITA | KS_UI_TEST_APP_STYLE);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, ks_lesson_fixture_setup, func, ks_lesson_fixture_teardown)
  ADD ("/ks/ui/lesson-window/every-lesson", test_every_lesson);
  ADD ("/ks/ui/lesson-window/known-values", test_known_values);
  ADD ("/ks/ui/lesson-window/book-check-vacuous", test_book_check_vacuous);
  ADD ("/ks/ui/lesson-window/every-difference", test_every_difference);
  ADD ("/ks/ui/lesson-window/heatmap-differences", test_heatmap_differences);
  ADD ("/ks/ui/lesson-window/atomics", test_atomics);
  ADD ("/ks/ui/lesson-window/device-properties", test_device_properties);
  ADD ("/ks/ui/lesson-window/screenshots", test_screenshots);
#undef ADD
  return g_test_run ();
}
