/* The Lessons window on the CPU engine, as a user drives it: Reset gives the
 * edited kernel back, and an edit runs as it is, its faults reported; a
 * launch typed under the kernel runs, and a wrong one
 * is refused; asking for runs while one is in flight runs one more, not a
 * backlog; Cancel (or Esc) stops a long run and keeps the results shown,
 * and leaving the lesson or closing the window stops it too; without CUDA
 * the compute-sanitizer button says why it cannot run; 12-04 runs its op on
 * the main window's camera, or says there is none; the window follows
 * presenter mode; and the main window opens one Lessons window. What a run
 * shows (the cells, the differences, the defects) is in
 * test-lesson-results.c. Needs a display: run under xvfb-run; without one
 * every test skips. */
#include "config.h"

#include <string.h>

#include "ks-camera.h"
#include "ks-lesson-window-fixture.h"
#include "ks-test-helpers.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-lessons.h"
#include "ks-window-private.h"
#include "ks-window.h"

typedef KsLessonFixture Fixture;


static gboolean
named_spin (GtkWidget *widget, gconstpointer name)
{
  return GTK_IS_SPIN_BUTTON (widget) && g_str_equal (gtk_widget_get_name (widget), name);
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
  ks_lesson_fixture_run (f, "11-04", NULL);
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

  /* On the CPU engine the edit runs as it is, like on a GPU. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  ks_lesson_fixture_wait (f->window);
  g_assert_true (ks_lesson_window_get_report (f->window)->edited);
  g_assert_true (ks_lesson_window_get_report (f->window)->check.passed);
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "faults"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.reset", NULL));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  after = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (after, ==, pristine);
  g_assert_false (ks_lesson_window_get_edited (f->window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  ks_lesson_fixture_wait (f->window);
  g_assert_false (ks_lesson_window_get_report (f->window)->edited);
}

/* An edit that reads past its array: the CPU engine runs it, the results
 * show what it computed, and the checks' findings are listed with the
 * thread, the block and the line. */
static void
test_edit_faults (Fixture *f, gconstpointer data)
{
  static const char edited[] =
    "__global__ void add_num (float *result, const float *a, const float *b, int n)\n"
    "{\n"
    "  int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "  if (i < n)\n"
    "    result[i] = a[i + 1] + b[i];\n"
    "}\n";
  GtkTextBuffer *buffer;
  const KsLessonReport *r;
  const char *faults;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-06", NULL);
  buffer = GTK_TEXT_BUFFER (ks_lesson_window_get_buffer (f->window));
  gtk_text_buffer_set_text (buffer, edited, -1);
  g_assert_true (ks_lesson_window_get_edited (f->window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  ks_lesson_fixture_wait (f->window);
  r = ks_lesson_window_get_report (f->window);
  g_assert_true (r->edited);
  /* result[i] = a[i + 1] + b[i]: wrong everywhere but the read past a. */
  g_assert_false (r->check.passed);
  g_assert_cmpuint (r->n_faults, ==, 1);
  faults = ks_lesson_fixture_label (f, "faults");
  g_assert_nonnull (strstr (faults, "found 1 problem"));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                         "Invalid __global__ read of size 4 bytes"));
  /* The millionth element's thread: 999 999 = 976 × 1024 + 575. */
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                         "by thread (575,0,0) in block (976,0,0)"));
  ks_lesson_fixture_scroll_to (f, "faults", 200);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "lesson-cpu-findings.png");
}

/* ---- another launch --------------------------------------------------------------------------- */

/* A grid typed under the launch runs: two blocks of a grid-stride loop still
 * add a million numbers; four threads adding one number reach past it, and
 * the window lists what the CPU engine refused; the lesson's launch comes back. */
static void
test_launch (Fixture *f, gconstpointer data)
{
  const KsLessonReport *r;
  GtkWidget *grid;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-06", NULL);
  g_assert_cmpuint (ks_lesson_window_get_report (f->window)->grid.x, ==, 977);
  ks_lesson_fixture_type_launch (f, "lesson-grid", "2");
  r = ks_lesson_window_get_report (f->window);
  g_assert_cmpuint (r->grid.x, ==, 2);
  g_assert_true (r->check.passed);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Your launch: grid 2"));

  ks_lesson_fixture_type_launch (f, "lesson-grid", "0x3");
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "is not a dimension"));
  grid = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), ks_lesson_fixture_entry_named,
                                          "lesson-grid");
  g_assert_true (gtk_widget_has_css_class (grid, "error"));

  ks_lesson_fixture_run (f, "11-04", NULL);
  ks_lesson_fixture_type_launch (f, "lesson-block", "4");
  r = ks_lesson_window_get_report (f->window);
  g_assert_cmpuint (r->block.x, ==, 4);
  g_assert_cmpuint (r->n_faults, >, 0);
  g_assert_nonnull (ks_lesson_window_get_result_widget (f->window, "faults"));

  /* Another lesson starts from its own launch. */
  ks_lesson_fixture_run (f, "11-06", NULL);
  g_assert_cmpuint (ks_lesson_window_get_report (f->window)->grid.x, ==, 977);
}

/* ---- runs while one is in flight --------------------------------------------------------------- */

static void
test_run_in_flight (Fixture *f, gconstpointer data)
{
  guint before;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-06", NULL);
  before = ks_lesson_window_get_n_runs (f->window);
  /* A million additions on the CPU engine take far longer than these calls. */
  ks_lesson_window_run (f->window);
  g_assert_true (ks_lesson_window_get_running (f->window));
  for (int i = 0; i < 10; i++)
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  ks_lesson_fixture_wait (f->window);
  /* The one in flight and the newest request: no backlog of ten. */
  g_assert_cmpuint (ks_lesson_window_get_n_runs (f->window), ==, before + 2);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, "11-06");

  /* Another lesson chosen meanwhile: its result is what shows, never the old one's. */
  ks_lesson_window_run (f->window);
  g_assert_true (ks_lesson_window_select (f->window, "11-11"));
  ks_lesson_fixture_wait (f->window);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, "11-11");
  g_assert_cmpstr (ks_lesson_cells_get_text (ks_lesson_fixture_cells (f, "output:out"), 0), ==,
                   "30");
  g_assert_null (ks_lesson_window_get_result_widget (f->window, "input:a:values"));
}

/* ---- cancelling -------------------------------------------------------------------------------- */

static gboolean
is_button_labelled (GtkWidget *widget, gconstpointer label)
{
  return GTK_IS_BUTTON (widget) && !GTK_IS_TOGGLE_BUTTON (widget)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static GtkSpinButton *
repeats_spin (Fixture *f)
{
  GtkWidget *spin = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), named_spin,
                                                     "lesson-repeats");

  g_assert_nonnull (spin);
  return GTK_SPIN_BUTTON (spin);
}

/* 11-06 timed 100 000 times would take the CPU engine over an hour: starts
 * it and waits until it is under way. A run that did not stop when told to
 * would outlast every wait below (KS_UI_TEST_PATIENCE_S) by far, so those
 * waits show that it stopped among its repeats without timing how soon: a
 * loaded machine runs a repeat slowly. */
static void
start_long_run (Fixture *f)
{
  gtk_spin_button_set_value (repeats_spin (f), 100000);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  g_assert_true (ks_lesson_window_get_running (f->window));
  ks_ui_test_iterate_for (300);
  g_assert_true (ks_lesson_window_get_running (f->window));
}

static void
test_cancel (Fixture *f, gconstpointer data)
{
  const KsLessonReport *before;
  GtkWidget *timings, *cancel;
  guint runs;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-06", NULL);
  before = ks_lesson_window_get_report (f->window);
  timings = ks_lesson_window_get_result_widget (f->window, "timings");
  g_assert_nonnull (timings);

  start_long_run (f);
  runs = ks_lesson_window_get_n_runs (f->window);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                         "Running 11-06 on the CPU engine"));
  cancel = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), is_button_labelled,
                                            "_Cancel");
  g_assert_nonnull (cancel);
  g_assert_true (gtk_widget_is_drawable (cancel));
  g_assert_true (gtk_widget_is_sensitive (cancel));
  g_assert_true (gtk_widget_activate (cancel));
  /* Stopped among its repeats, and nothing ran after it. */
  KS_UI_TEST_WAIT_FOR (!ks_lesson_window_get_running (f->window), KS_UI_TEST_PATIENCE_S);
  g_assert_false (ks_lesson_window_get_running (f->window));
  g_assert_cmpuint (ks_lesson_window_get_n_runs (f->window), ==, runs);
  ks_ui_test_iterate ();
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Cancelled"));
  g_assert_false (gtk_widget_is_drawable (cancel));
  /* The results of the run before stay on screen. */
  g_assert_true (ks_lesson_window_get_report (f->window) == before);
  g_assert_true (ks_lesson_window_get_result_widget (f->window, "timings") == timings);
  g_assert_true (gtk_widget_is_drawable (timings));
  g_assert_nonnull (strstr (ks_lesson_fixture_label (f, "check"), before->check.summary));

  /* And the next run is a normal one, with the timed runs asked for. */
  gtk_spin_button_set_value (repeats_spin (f), 3);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.run", NULL));
  ks_lesson_fixture_wait (f->window);
  g_assert_cmpuint (ks_lesson_window_get_report (f->window)->timings.kernel.n, ==, 3);
  g_assert_true (ks_lesson_window_get_report (f->window)->check.passed);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Ran on: CPU engine"));
  g_assert_false (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Cancelled"));

  /* Another lesson chosen during a long run: the run stops, the new lesson
   * runs, once. */
  start_long_run (f);
  runs = ks_lesson_window_get_n_runs (f->window);
  g_assert_true (ks_lesson_window_select (f->window, "11-11"));
  KS_UI_TEST_WAIT_FOR (!ks_lesson_window_get_running (f->window), KS_UI_TEST_PATIENCE_S);
  g_assert_false (ks_lesson_window_get_running (f->window));
  g_assert_cmpuint (ks_lesson_window_get_n_runs (f->window), ==, runs + 1);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, "11-11");
  g_assert_false (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Cancelled"));

  /* Closing the window during a long run stops it: the runner is soon idle. */
  gtk_spin_button_set_value (repeats_spin (f), 1);
  ks_lesson_fixture_run (f, "11-06", NULL);
  start_long_run (f);
  gtk_window_destroy (GTK_WINDOW (f->window));
  f->window = NULL;
  KS_UI_TEST_WAIT_FOR (ks_pipeline_is_idle (f->pipeline), KS_UI_TEST_PATIENCE_S);
  g_assert_true (ks_pipeline_is_idle (f->pipeline));
}

/* Esc, as the window's key bindings deliver it. */
static void
press_escape (GtkWidget *window)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (window);
  gboolean pressed = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && !pressed; i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (controller)) && !pressed;
           k++)
        {
          g_autoptr (GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), k);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger)
              && gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == GDK_KEY_Escape
              && gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == 0)
            pressed = gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut),
                                                    GTK_SHORTCUT_ACTION_EXCLUSIVE, window,
                                                    gtk_shortcut_get_arguments (shortcut));
        }
    }
  g_assert_true (pressed);
}

/* Esc during a run stops it and leaves the window open; without one it closes it. */
static void
test_escape (Fixture *f, gconstpointer data)
{
  const KsLessonReport *before;
  guint runs;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-06", NULL);
  before = ks_lesson_window_get_report (f->window);
  start_long_run (f);
  runs = ks_lesson_window_get_n_runs (f->window);
  press_escape (GTK_WIDGET (f->window));
  /* Stopped among its repeats (start_long_run), and nothing ran after it. */
  KS_UI_TEST_WAIT_FOR (!ks_lesson_window_get_running (f->window), KS_UI_TEST_PATIENCE_S);
  g_assert_false (ks_lesson_window_get_running (f->window));
  g_assert_cmpuint (ks_lesson_window_get_n_runs (f->window), ==, runs);
  ks_ui_test_iterate ();
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window)));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Cancelled"));
  g_assert_true (ks_lesson_window_get_report (f->window) == before);

  {
    GWeakRef ref;

    g_weak_ref_init (&ref, f->window);
    press_escape (GTK_WIDGET (f->window));
    for (int i = 0; i < 20; i++)
      ks_ui_test_iterate ();
    /* Closed, and gone. */
    g_assert_null (g_weak_ref_get (&ref));
    g_weak_ref_clear (&ref);
    f->window = NULL;
  }
}

/* ---- compute-sanitizer, 11-02 and the live camera ----------------------------------------- */

static gboolean
is_button_with_label (GtkWidget *widget, gconstpointer label)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_is_drawable (widget)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

/* Here there is no CUDA (nor in CI): the button is there for a variant the
 * sanitizer shows, cannot be pressed, and says why, in its tooltip and
 * under it. */
static void
test_sanitizer_unavailable (Fixture *f, gconstpointer data)
{
  GtkWidget *button;
  const char *why;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "12-01", NULL);
  g_assert_null (ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), is_button_with_label,
                                                  "Run under compute-_sanitizer"));

  ks_lesson_fixture_run (f, "12-01", "book");
  g_assert_nonnull (ks_lesson_window_get_variant (f->window)->sanitizer);
  button = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), is_button_with_label,
                                            "Run under compute-_sanitizer");
  g_assert_nonnull (button);
  g_assert_false (gtk_widget_is_sensitive (button));
  why = gtk_widget_get_tooltip_text (button);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "CPU engine"));
  /* The same reason, in a line the user sees without hovering. */
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), why));
  /* The action refuses as the button does. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "lesson.sanitize", NULL));
  ks_ui_test_iterate ();
  g_assert_false (ks_ui_test_label_shows (GTK_WIDGET (f->window), "Running 12-01 under"));

  /* 12-02's book variant, whose sanitizer text is its own. */
  ks_lesson_fixture_run (f, "12-02", "book");
  button = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window), is_button_with_label,
                                            "Run under compute-_sanitizer");
  g_assert_nonnull (button);
  g_assert_false (gtk_widget_is_sensitive (button));
}

static gboolean
is_live_button (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_BUTTON (widget)
         && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)),
                       "lesson.live-camera") == 0;
}

/* 12-04 from the main window: the button says whether there is a camera,
 * as the main window's menu does, and pressing it puts the lesson's op and
 * block on the main window's pipeline and opens the camera there. */
static void
test_live_camera (void)
{
  KsWindow *main_window;
  KsPipeline *pipeline;
  GtkWindow *lessons = NULL;
  GtkWidget *button;
  GAsyncResult *result = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) cameras = NULL;
  const char *expected;
  const KsLaunchConfig *launch;
  GList *toplevels;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_camera_probe_async (NULL, ks_ui_test_on_done_cb, &result);
  KS_UI_TEST_WAIT_FOR (result != NULL, KS_UI_TEST_PATIENCE_S);
  g_assert_nonnull (result);
  cameras = ks_camera_probe_finish (result, &error);
  g_clear_object (&result);
  g_assert_no_error (error);

  main_window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (main_window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (main_window), "win.lessons", NULL));
  ks_ui_test_iterate ();
  toplevels = gtk_window_list_toplevels ();
  for (GList *l = toplevels; l != NULL; l = l->next)
    if (KS_IS_LESSON_WINDOW (l->data))
      lessons = l->data;
  g_list_free (toplevels);
  g_assert_nonnull (lessons);
  ks_lesson_fixture_wait (KS_LESSON_WINDOW (lessons));

  /* Only the lesson that has a live op offers it. */
  button = ks_ui_test_find_widget_matching (GTK_WIDGET (lessons), is_live_button, NULL);
  g_assert_nonnull (button);
  g_assert_false (gtk_widget_is_drawable (button));
  g_assert_true (ks_lesson_window_select (KS_LESSON_WINDOW (lessons), "12-04"));
  ks_lesson_fixture_wait (KS_LESSON_WINDOW (lessons));
  g_assert_cmpstr (ks_lesson_window_get_lesson (KS_LESSON_WINDOW (lessons))->live_op, ==,
                   "gray");
  expected = cameras[0] != NULL ? "Run on the _Live Camera" : "No Camera Found";
  KS_UI_TEST_WAIT_FOR (g_strcmp0 (gtk_button_get_label (GTK_BUTTON (button)), expected) == 0,
                       KS_UI_TEST_PATIENCE_S);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, expected);
  g_assert_true (gtk_widget_is_drawable (button));
  g_assert_true (gtk_widget_is_sensitive (button));
  if (cameras[0] != NULL)
    g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (button), cameras[0]));

  /* Pressed: the lesson's op, with the book's block and a grid covering the frame. */
  g_assert_true (gtk_widget_activate (button));
  KS_UI_TEST_WAIT_FOR (g_str_equal (ks_pipeline_get_op (pipeline)->id, "gray"),
                       KS_UI_TEST_PATIENCE_S);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gray");
  launch = ks_pipeline_get_launch (pipeline);
  g_assert_cmpuint (launch->block.x, ==, 1024);
  g_assert_cmpuint (launch->block.y, ==, 1);
  g_assert_true (launch->auto_grid);
  /* With a camera it runs in the main window; with none, the main window says so. */
  if (cameras[0] == NULL)
    {
      KS_UI_TEST_WAIT_FOR (ks_window_get_last_message (main_window) != NULL
                             && strstr (ks_window_get_last_message (main_window),
                                        "No camera found") != NULL,
                           KS_UI_TEST_PATIENCE_S);
      g_assert_nonnull (strstr (ks_window_get_last_message (main_window), "No camera found"));
    }
  else
    g_assert_nonnull (_ks_window_get_camera (main_window));

  gtk_window_destroy (lessons);
  ks_ui_test_close_window (main_window);
}

/* ---- presenter mode -------------------------------------------------------------------------- */

static void
test_presenter (Fixture *f, gconstpointer data)
{
  KsLessonCells *c;
  int width;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_lesson_fixture_run (f, "11-09", NULL);
  c = ks_lesson_fixture_cells (f, "output:c");
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
  ks_lesson_fixture_wait (KS_LESSON_WINDOW (lessons));
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
  /* Every test here runs lessons' kernels, which NVRTC compiles. */
  if (!ks_nvrtc_load (NULL))
    {
      g_print ("1..0 # SKIP NVRTC is not available\n");
      return KS_TEST_SKIPPED;
    }
  ks_ui_test_init_display (KS_UI_TEST_ADWAITA | KS_UI_TEST_APP_STYLE);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, ks_lesson_fixture_setup, func, ks_lesson_fixture_teardown)
  ADD ("/ks/ui/lesson-window/reset", test_reset);
  ADD ("/ks/ui/lesson-window/edit-faults", test_edit_faults);
  ADD ("/ks/ui/lesson-window/launch", test_launch);
  ADD ("/ks/ui/lesson-window/run-in-flight", test_run_in_flight);
  ADD ("/ks/ui/lesson-window/cancel", test_cancel);
  ADD ("/ks/ui/lesson-window/escape", test_escape);
  ADD ("/ks/ui/lesson-window/sanitizer-unavailable", test_sanitizer_unavailable);
  ADD ("/ks/ui/lesson-window/presenter", test_presenter);
#undef ADD
  g_test_add_func ("/ks/ui/lesson-window/window-action", test_window_action);
  g_test_add_func ("/ks/ui/lesson-window/live-camera", test_live_camera);
  return g_test_run ();
}
