/* ks-lesson-window-fixture.c: the Lessons window opened on the CPU engine
 * for a test, and the few steps every Lessons window test takes. */
#include "config.h"

#include "ks-lesson-window-fixture.h"
#include "ks-ui-test-helpers.h"

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
void
ks_lesson_fixture_wait (KsLessonWindow *window)
{
  for (int i = 0; i < 60000 && ks_lesson_window_get_running (window); i++)
    ks_ui_test_iterate ();
  g_assert_false (ks_lesson_window_get_running (window));
  ks_ui_test_iterate ();
}

void
ks_lesson_fixture_setup (KsLessonFixture *f, gconstpointer data)
{
  if (!ks_ui_test_have_display ())
    return;
  f->pipeline = new_pipeline ();
  f->parent = GTK_WINDOW (gtk_window_new ());
  f->window = KS_LESSON_WINDOW (ks_lesson_window_new (f->parent, f->pipeline));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1280, 1000);
  gtk_window_present (GTK_WINDOW (f->window));
  KS_UI_TEST_WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (f->window)) > 0, KS_UI_TEST_PATIENCE_S);
  /* The first lesson is selected and runs at once. */
  ks_lesson_fixture_wait (f->window);
}

void
ks_lesson_fixture_teardown (KsLessonFixture *f, gconstpointer data)
{
  if (!ks_ui_test_have_display ())
    return;
  /* A test that closed the window itself leaves NULL. */
  if (f->window != NULL)
    gtk_window_destroy (GTK_WINDOW (f->window));
  gtk_window_destroy (f->parent);
  ks_ui_test_iterate ();
  /* The runner finishes what it holds before the pipeline goes. */
  for (int i = 0; i < 60000 && !ks_pipeline_is_idle (f->pipeline); i++)
    ks_ui_test_iterate ();
  g_assert_finalize_object (f->pipeline);
}

void
ks_lesson_fixture_run (KsLessonFixture *f, const char *id, const char *variant)
{
  g_assert_true (ks_lesson_window_select (f->window, id));
  if (variant != NULL)
    g_assert_true (ks_lesson_window_select_variant (f->window, variant));
  ks_lesson_fixture_wait (f->window);
  g_assert_nonnull (ks_lesson_window_get_report (f->window));
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->lesson->id, ==, id);
  g_assert_cmpstr (ks_lesson_window_get_report (f->window)->variant->id, ==,
                   variant != NULL ? variant : "fixed");
}

KsLessonCells *
ks_lesson_fixture_cells (KsLessonFixture *f, const char *key)
{
  GtkWidget *w = ks_lesson_window_get_result_widget (f->window, key);

  g_assert_nonnull (w);
  g_assert_true (KS_IS_LESSON_CELLS (w));
  g_assert_true (gtk_widget_is_drawable (w));
  return KS_LESSON_CELLS (w);
}

const char *
ks_lesson_fixture_label (KsLessonFixture *f, const char *key)
{
  GtkWidget *w = ks_lesson_window_get_result_widget (f->window, key);

  g_assert_nonnull (w);
  g_assert_true (GTK_IS_LABEL (w));
  g_assert_true (gtk_widget_is_drawable (w));
  return gtk_label_get_text (GTK_LABEL (w));
}

gboolean
ks_lesson_fixture_entry_named (GtkWidget *widget, gconstpointer name)
{
  return GTK_IS_ENTRY (widget) && g_str_equal (gtk_widget_get_name (widget), name);
}

void
ks_lesson_fixture_type_launch (KsLessonFixture *f, const char *name, const char *text)
{
  GtkWidget *entry = ks_ui_test_find_widget_matching (GTK_WIDGET (f->window),
                                                      ks_lesson_fixture_entry_named, name);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_signal_emit_by_name (entry, "activate");
  ks_lesson_fixture_wait (f->window);
}

/* Scrolls the lesson's page so that `key`'s widget is `above` pixels below the top. */
void
ks_lesson_fixture_scroll_to (KsLessonFixture *f, const char *key, double above)
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
