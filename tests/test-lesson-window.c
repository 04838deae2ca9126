/* The Lessons window on the CPU engine, as a user sees it: every lesson runs
 * and its result cells hold the report's values (and the values the
 * tutorial gives: 11-11 → 30, 11-04 a + b, 11-07 the squares, 11-09 A·B);
 * the book's 11-09 shows its check passing a wrong product; 12-01 and 12-02
 * show their atomics; the book's 12-02 its refused accesses; Reset gives the
 * edited kernel back; asking for runs while one is in flight runs one more,
 * not a backlog; the window follows presenter mode; and screenshots of a
 * matrix, a defect and the timings. Needs a display: run under xvfb-run;
 * without one every test skips. */
#include "config.h"

#include <glib/gstdio.h>

#include <math.h>
#include <string.h>

#include <adwaita.h>

#include "ks-lesson-cells.h"
#include "ks-lesson-window.h"
#include "ks-pipeline.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-lessons.h"
#include "ks-window.h"

/* A pipeline on the CPU engine: what a laptop without an NVIDIA GPU has. */
static KsPipeline *
new_pipeline (void)
{
  KsPipeline *pipeline = ks_pipeline_new ();

  ks_ui_test_use_cpu (pipeline);
  g_assert_false (ks_engine_is_cuda (ks_pipeline_get_engine (pipeline)));
  return pipeline;
}

/* At most about a minute: a safety net, not a timing. */
static void
wait_for_run (KsLessonWindow *window)
{
  for (int i = 0; i < 60000 && ks_lesson_window_get_running (window); i++)
    ks_ui_test_iterate ();
  g_assert_false (ks_lesson_window_get_running (window));
  ks_ui_test_iterate ();
}

typedef struct
{
  KsPipeline *pipeline;
  GtkWindow *parent;
  KsLessonWindow *window;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  if (!ks_ui_test_have_display ())
    return;
  f->pipeline = new_pipeline ();
  f->parent = GTK_WINDOW (gtk_window_new ());
  f->window = KS_LESSON_WINDOW (ks_lesson_window_new (f->parent, f->pipeline));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1280, 1000);
  gtk_window_present (GTK_WINDOW (f->window));
  for (int i = 0; i < 2000 && gtk_widget_get_width (GTK_WIDGET (f->window)) == 0; i++)
    ks_ui_test_iterate ();
  /* The first lesson is selected and runs at once. */
  wait_for_run (f->window);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  if (!ks_ui_test_have_display ())
    return;
  gtk_window_destroy (GTK_WINDOW (f->window));
  gtk_window_destroy (f->parent);
  ks_ui_test_iterate ();
  /* The runner finishes what it holds before the pipeline goes. */
  for (int i = 0; i < 60000 && !ks_pipeline_is_idle (f->pipeline); i++)
    ks_ui_test_iterate ();
  g_assert_finalize_object (f->pipeline);
}

static void
run_lesson (Fixture *f, const char *id, const char *variant)
{
  g_assert_true (ks_lesson_window_select (f->window, id));
  if (variant != NULL)
    g_assert_true (ks_lesson_window_select_variant (f->window, variant));
  wait_for_run (f->window);
  g_assert_nonnull (ks_lesson_window_get_report (f->window));
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, id);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->variant->id, ==,
                   variant != NULL ? variant : "fixed");
}

static KsLessonCells *
cells (Fixture *f, const char *key)
{
  GtkWidget *w = ks_lesson_window_get_result_widget (f->window, key);

  g_assert_nonnull (w);
  g_assert_true (KS_IS_LESSON_CELLS (w));
  g_assert_true (gtk_widget_is_drawable (w));
  return KS_LESSON_CELLS (w);
}

static const char *
label (Fixture *f, const char *key)
{
  GtkWidget *w = ks_lesson_window_get_result_widget (f->window, key);

  g_assert_nonnull (w);
  g_assert_true (GTK_IS_LABEL (w));
  g_assert_true (gtk_widget_is_drawable (w));
  return gtk_label_get_text (GTK_LABEL (w));
}

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

            g_assert_nonnull (strstr (label (f, values_key), first));
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

/* Scrolls the lesson's page so that `key`'s widget is `above` pixels below the top. */
static void
scroll_to (Fixture *f, const char *key, double above)
{
  GtkWidget *w = ks_lesson_window_get_result_widget (f->window, key);
  GtkWidget *scroller = gtk_widget_get_ancestor (w, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adj;
  graphene_point_t p;

  /* Cells sit in a scroller of their own that never scrolls vertically:
   * the page's is further up. */
  for (;;)
    {
      GtkPolicyType h, v;

      g_assert_nonnull (scroller);
      gtk_scrolled_window_get_policy (GTK_SCROLLED_WINDOW (scroller), &h, &v);
      if (v != GTK_POLICY_NEVER)
        break;
      scroller = gtk_widget_get_ancestor (gtk_widget_get_parent (scroller),
                                          GTK_TYPE_SCROLLED_WINDOW);
    }
  for (int i = 0; i < 50; i++)
    ks_ui_test_iterate ();
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_true (gtk_widget_compute_point (w, gtk_scrolled_window_get_child (
                                                GTK_SCROLLED_WINDOW (scroller)),
                                           &GRAPHENE_POINT_INIT (0, 0), &p));
  gtk_adjustment_set_value (adj, p.y - above);
  for (int i = 0; i < 20; i++)
    ks_ui_test_iterate ();
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

      run_lesson (f, lessons[i]->id, NULL);
      r = ks_lesson_window_get_report (f->window);
      g_test_message ("%s: %s", lessons[i]->id, r->check.summary);
      /* The fixed variants are right, and the window says so. */
      g_assert_true (r->check.passed);
      g_assert_nonnull (strstr (label (f, "check"), r->check.summary));
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
          KsLessonCells *c = cells (f, key);

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
  run_lesson (f, "11-11", NULL);
  g_assert_cmpstr (ks_lesson_cells_get_text (cells (f, "output:out"), 0), ==, "30");
  c = cells (f, "step:3");
  g_assert_cmpstr (ks_lesson_cells_get_text (c, 0), ==, "30");
  g_assert_cmpstr (ks_lesson_cells_get_text (cells (f, "step:0"), 4), ==, "16");

  /* 11-04: a + b. */
  run_lesson (f, "11-04", NULL);
  a = report_array (f, "a");
  b = report_array (f, "b");
  assert_cell_f32 (cells (f, "output:result"), 0,
                   (float) ks_array_get_double (a, 0) + (float) ks_array_get_double (b, 0));
  /* Hovering the cell names the one thread that wrote it. */
  {
    g_autofree char *tip = ks_lesson_cells_describe (cells (f, "output:result"), 0);

    g_assert_nonnull (strstr (tip, "block (0, 0, 0), thread (0, 0, 0)"));
  }

  /* 11-07: each cell squared in place, by the thread at its (x, y). */
  run_lesson (f, "11-07", NULL);
  a = report_array (f, "a");
  c = cells (f, "output:a");
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
  run_lesson (f, "11-09", NULL);
  a = report_array (f, "a");
  b = report_array (f, "b");
  c = cells (f, "output:c");
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
  run_lesson (f, "11-09", "book");
  r = ks_lesson_window_get_report (f->window);
  g_assert_true (r->book_check.present);
  g_assert_true (r->book_check.says_correct_on_wrong);
  /* The book's check passes the deliberately wrong product, and the window says so. */
  g_assert_nonnull (strstr (label (f, "book-check"), "passes a wrong result"));
  g_assert_nonnull (strstr (label (f, "book-check"), r->book_check.wrong_description));
  g_assert_nonnull (strstr (label (f, "book-check"), "catches the wrong one"));
  g_assert_true (gtk_widget_has_css_class (ks_lesson_window_get_result_widget (f->window,
                                                                               "book-check"),
                                           "ks-error-box"));
  /* The variant's defect is named. */
  g_assert_cmpstr (ks_lesson_window_get_variant (f->window)->defects, ==, "P6");

  /* The hard-coded width: 11-07's book on 6×6 leaves cells unwritten and
   * marks the first wrong one. */
  run_lesson (f, "11-07", "book");
  r = ks_lesson_window_get_report (f->window);
  g_assert_false (r->check.passed);
  g_assert_nonnull (strstr (label (f, "check"), "✗"));
  g_assert_cmpint (ks_lesson_cells_get_state (cells (f, "output:a"), r->check.first_difference),
                   ==, KS_LESSON_CELL_DIFFERENT);
  g_assert_cmpint (ks_lesson_cells_get_state (cells (f, "output:a"), 35), ==,
                   KS_LESSON_CELL_UNWRITTEN);
  assert_cells_match_report (f);
}

static void
test_atomics (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;

  if (ks_ui_test_skip_without_display ())
    return;
  run_lesson (f, "12-01", NULL);
  g_assert_nonnull (strstr (label (f, "atomics"), "65536 on global memory"));
  run_lesson (f, "12-02", NULL);
  g_assert_nonnull (strstr (label (f, "atomics"), "8192 on global memory"));
  g_assert_nonnull (strstr (label (f, "atomics"), "65536 on shared memory"));
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "faults"));

  /* The book's 257 threads: more global atomics than 12-01, the 257th
   * thread's accesses refused and listed, bins[256] the guard slot. */
  run_lesson (f, "12-02", "book");
  r = ks_lesson_window_get_report (f->window);
  g_assert_nonnull (strstr (label (f, "atomics"), "65792 on global memory"));
  g_assert_cmpuint (r->n_faults, >, 0);
  g_assert_nonnull (strstr (label (f, "faults"), "refused 512 accesses"));
  g_assert_cmpuint (ks_lesson_cells_get_n_cells (cells (f, "output:bins")), ==, 257);
  g_assert_cmpstr (ks_lesson_cells_get_text (cells (f, "output:bins"), 256), ==, "0");
  assert_cells_match_report (f);
  /* The guard slot's row of bins, the atomics and the refused accesses. */
  scroll_to (f, "atomics", 90);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-defect.png");

  /* The racing histogram loses updates: the check says where. */
  run_lesson (f, "12-01", "race");
  r = ks_lesson_window_get_report (f->window);
  g_assert_false (r->check.passed);
  g_assert_nonnull (strstr (label (f, "check"), r->check.summary));
}

/* ---- the editor ------------------------------------------------------------------------------ */

static void
test_reset (Fixture *f, gconstpointer data)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *pristine = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  const KsLesson *lesson;

  if (ks_ui_test_skip_without_display ())
    return;
  run_lesson (f, "11-04", NULL);
  lesson = ks_lesson_window_get_lesson (f->window);
  pristine = ks_lesson_get_source (lesson, &lesson->variants[0], NULL);
  buffer = GTK_TEXT_BUFFER (ks_lesson_window_get_buffer (f->window));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  before = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (before, ==, pristine);
  g_assert_false (ks_lesson_window_get_edited (f->window));

  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_insert (buffer, &start, "// a student's edit\n", -1);
  g_assert_true (ks_lesson_window_get_edited (f->window));

  /* On the CPU engine the edit cannot run: the window says so and runs the lesson's own. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  wait_for_run (f->window);
  g_assert_nonnull (strstr (label (f, "edit-refused"), "needs CUDA"));
  g_assert_false (ks_lesson_window_get_report (f->window)->edited);
  g_assert_true (ks_lesson_window_get_report (f->window)->check.passed);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.reset", NULL));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  after = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (after, ==, pristine);
  g_assert_false (ks_lesson_window_get_edited (f->window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  wait_for_run (f->window);
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "edit-refused"));
}

/* ---- another launch --------------------------------------------------------------------------- */

static gboolean
named (GtkWidget *widget, gconstpointer name)
{
  return GTK_IS_ENTRY (widget) && g_str_equal (gtk_widget_get_name (widget), name);
}

static void
type_launch (Fixture *f, const char *name, const char *text)
{
  GtkWidget *entry = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), named, name);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_signal_emit_by_name (entry, "activate");
  wait_for_run (f->window);
}

/* A grid typed under the launch runs: two blocks of a grid-stride loop still
 * add a million numbers; four threads adding one number reach past it, and
 * the window lists what the CPU model refused; the lesson's launch comes back. */
static void
test_launch (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;
  GtkWidget *grid;

  if (ks_ui_test_skip_without_display ())
    return;
  run_lesson (f, "11-06", NULL);
  g_assert_cmpuint (ks_lesson_window_get_report (f->window)->grid.x, ==, 977);
  type_launch (f, "lesson-grid", "2");
  r = ks_lesson_window_get_report (f->window);
  g_assert_cmpuint (r->grid.x, ==, 2);
  g_assert_true (r->check.passed);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Your launch: grid 2"));

  type_launch (f, "lesson-grid", "0x3");
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "is not a dimension"));
  grid = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), named, "lesson-grid");
  g_assert_true (gtk_widget_has_css_class (grid, "error"));

  run_lesson (f, "11-04", NULL);
  type_launch (f, "lesson-block", "4");
  r = ks_lesson_window_get_report (f->window);
  g_assert_cmpuint (r->block.x, ==, 4);
  g_assert_cmpuint (r->n_faults, >, 0);
  g_assert_nonnull (ks_lesson_window_get_result_widget (f->window, "faults"));

  /* Another lesson starts from its own launch. */
  run_lesson (f, "11-06", NULL);
  g_assert_cmpuint (ks_lesson_window_get_report (f->window)->grid.x, ==, 977);
}

/* ---- runs while one is in flight --------------------------------------------------------------- */

static void
test_run_in_flight (Fixture *f, gconstpointer data)
{
  guint before;

  if (ks_ui_test_skip_without_display ())
    return;
  run_lesson (f, "11-06", NULL);
  before = ks_lesson_window_get_n_runs (f->window);
  /* A million additions in the CPU model take far longer than these calls. */
  ks_lesson_window_run (f->window);
  g_assert_true (ks_lesson_window_get_running (f->window));
  for (int i = 0; i < 10; i++)
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  wait_for_run (f->window);
  /* The one in flight and the newest request: no backlog of ten. */
  g_assert_cmpuint (ks_lesson_window_get_n_runs (f->window), ==, before + 2);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, "11-06");

  /* Another lesson chosen meanwhile: its result is what shows, never the old one's. */
  ks_lesson_window_run (f->window);
  g_assert_true (ks_lesson_window_select (f->window, "11-11"));
  wait_for_run (f->window);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, "11-11");
  g_assert_cmpstr (ks_lesson_cells_get_text (cells (f, "output:out"), 0), ==, "30");
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "input:a:values"));
}

/* ---- presenter mode and screenshots ----------------------------------------------------------- */

static void
test_presenter (Fixture *f, gconstpointer data)
{
  KsLessonCells *c;
  int width;

  if (ks_ui_test_skip_without_display ())
    return;
  run_lesson (f, "11-09", NULL);
  c = cells (f, "output:c");
  for (int i = 0; i < 20; i++)
    ks_ui_test_iterate ();
  width = gtk_widget_get_width (GTK_WIDGET (c));
  gtk_widget_add_css_class (GTK_WIDGET (f->parent), "ks-presenter");
  for (int i = 0; i < 20; i++)
    ks_ui_test_iterate ();
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (f->window), "ks-presenter"));
  /* Large type: the cells grow with it. */
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (c)), >, width);
  gtk_widget_remove_css_class (GTK_WIDGET (f->parent), "ks-presenter");
  ks_ui_test_iterate ();
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (f->window), "ks-presenter"));
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
  run_lesson (f, "11-09", NULL);
  /* Show Threads: every cell names its block and thread. */
  c = cells (f, "output:c");
  g_assert_false (ks_lesson_cells_get_show_owners (c));
  {
    GtkWidget *owners = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window),
                                                         is_toggle_labelled, "Show _Threads");

    g_assert_nonnull (owners);
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (owners), TRUE);
  }
  g_assert_true (ks_lesson_cells_get_show_owners (c));
  scroll_to (f, "check", 12);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-matrix.png");

  run_lesson (f, "11-06", NULL);
  g_assert_nonnull (strstr (label (f, "timing-why"), "one span"));
  scroll_to (f, "timings", 12);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-timing.png");
}

/* ---- the main window's action ------------------------------------------------------------------ */

static void
test_window_action (void)
{
  KsWindow *main_window;
  GList *before, *after;
  GtkWindow *lessons = NULL;

  if (ks_ui_test_skip_without_display ())
    return;
  main_window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (main_window));
  ks_ui_test_iterate ();
  before = gtk_window_list_toplevels ();
  if (!gtk_widget_activate_action (GTK_WIDGET (main_window), "win.lessons", NULL))
    {
      g_list_free (before);
      gtk_window_destroy (GTK_WINDOW (main_window));
      g_test_skip ("The main window does not install win.lessons yet");
      return;
    }
  ks_ui_test_iterate ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (main_window), "win.lessons", NULL));
  ks_ui_test_iterate ();
  after = gtk_window_list_toplevels ();
  /* One Lessons window, transient for the main window, however often it is asked for. */
  for (GList *l = after; l != NULL; l = l->next)
    if (KS_IS_LESSON_WINDOW (l->data))
      {
        g_assert_null (lessons);
        lessons = l->data;
      }
  g_assert_nonnull (lessons);
  g_assert_true (gtk_window_get_transient_for (lessons) == GTK_WINDOW (main_window));
  g_assert_false (gtk_window_get_modal (lessons));
  g_assert_cmpuint (g_list_length (after), ==, g_list_length (before) + 1);
  wait_for_run (KS_LESSON_WINDOW (lessons));
  g_list_free (before);
  g_list_free (after);
  gtk_window_destroy (lessons);
  gtk_window_destroy (GTK_WINDOW (main_window));
  ks_ui_test_iterate ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ks_ui_test_init_display (KS_UI_TEST_ADWAITA | KS_UI_TEST_APP_STYLE);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/ks/ui/lesson-window/every-lesson", test_every_lesson);
  ADD ("/ks/ui/lesson-window/known-values", test_known_values);
  ADD ("/ks/ui/lesson-window/book-check-vacuous", test_book_check_vacuous);
  ADD ("/ks/ui/lesson-window/atomics", test_atomics);
  ADD ("/ks/ui/lesson-window/reset", test_reset);
  ADD ("/ks/ui/lesson-window/launch", test_launch);
  ADD ("/ks/ui/lesson-window/run-in-flight", test_run_in_flight);
  ADD ("/ks/ui/lesson-window/presenter", test_presenter);
  ADD ("/ks/ui/lesson-window/screenshots", test_screenshots);
#undef ADD
  g_test_add_func ("/ks/ui/lesson-window/window-action", test_window_action);
  return g_test_run ();
}
