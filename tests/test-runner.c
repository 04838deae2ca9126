/* The window never blocks: a Measure of 10 000 repeats on the CPU engine runs
 * on the pipeline's worker while the main loop keeps iterating, a parameter
 * changed meanwhile reaches the view before the Measure ends, and Cancel ends
 * the Measure long before its repeats would have. No timing is asserted; the
 * longest main-loop stall is reported as a figure.
 *
 * Needs a display: run under xvfb-run; without one the program reports a skip. */
#include "config.h"

#include <gtk/gtk.h>

#include "ks-image-view.h"
#include "ks-pipeline.h"
#include "ks-ui-test-helpers.h"
#include "ks-op-registry.h"

/* 16 M pixels: one run of the CPU engine takes milliseconds, so 10 000 take
 * minutes, far longer than this test runs. */
#define SIDE 4096
#define REPEATS 10000
#define LEVEL 100
#define BRIGHTER 50

/* Every iteration of the main loop that reaches idle priority. */
typedef struct
{
  guint ticks;
  gint64 last_us;
  gint64 max_gap_us;
} Ticker;

static gboolean
tick_cb (gpointer user_data)
{
  Ticker *t = user_data;
  gint64 now = g_get_monotonic_time ();

  if (t->ticks > 0)
    t->max_gap_us = MAX (t->max_gap_us, now - t->last_us);
  t->last_us = now;
  t->ticks++;
  return G_SOURCE_CONTINUE;
}

/* The waits iterate the main loop without ever blocking it, so that the
 * ticker's idle source runs all along; about two minutes at most, a safety
 * net rather than a timing. */
#define WAIT_S 120

static gboolean
wait_until (KsUiTestCondition cond, gpointer data)
{
  return ks_ui_test_wait_until (cond, data, WAIT_S);
}

static gboolean
is_idle (gpointer data)
{
  return ks_pipeline_is_idle (data);
}

static gboolean
has_result (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

typedef struct
{
  KsPipeline *pipeline;
  KsImageView *view;
  Ticker *ticker;
  guint8 level;
} Shown;

/* The view's texture holds a published result made with the wanted
 * brightness, and its first pixel is `level`. */
static gboolean
view_shows (gpointer data)
{
  Shown *s = data;
  const KsParams *params = ks_pipeline_get_result_params (s->pipeline);
  g_autoptr (KsImage) shown = NULL;

  if (params == NULL || params->values[0] != s->level - LEVEL)
    return FALSE;
  shown = ks_image_view_read_output (s->view, NULL);
  /* Reading the texture back is the test's own work, not a stall of the
   * window's: the gap starts after it. */
  s->ticker->last_us = g_get_monotonic_time ();
  return shown != NULL && (ks_image_get_rgba (shown, 0, 0) & 0xff) == s->level;
}

typedef struct
{
  KsPipeline *pipeline;
  GAsyncResult **measured;
} Measuring;

/* Some runs are done, or the Measure ended (then the test fails and says why). */
static gboolean
progress_started (gpointer data)
{
  Measuring *m = data;

  return ks_pipeline_get_progress (m->pipeline) > 0 || *m->measured != NULL;
}

static void
assert_still_measuring (KsPipeline *pipeline, GAsyncResult *measured)
{
  g_autoptr (GError) error = NULL;
  KsTiming timing = { 0 };

  if (measured != NULL && !ks_pipeline_measure_finish (pipeline, measured, &timing, &error))
    g_error ("The Measure ended early: %s", error->message);
  g_assert_null (measured);
}

static void
test_measure_keeps_window_live_run (void)
{
  g_autoptr (KsPipeline) pipeline = ks_pipeline_new ();
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, SIDE, SIDE, NULL);
  g_autoptr (GAsyncResult) step = NULL;
  g_autoptr (GAsyncResult) measured = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  KsTiming timing = { 0 };
  Ticker ticker = { 0 };
  GtkWindow *window;
  KsImageView *view;
  Shown shown;
  Measuring measuring;
  guint idle_id, ticks_before, runs_at_cancel;

  g_assert_nonnull (image);
  ks_image_fill (image, LEVEL);
  ks_pipeline_set_device_async (pipeline, cpu, NULL, ks_ui_test_on_done_cb, &step);
  g_assert_true (wait_until (has_result, &step));
  g_assert_true (ks_pipeline_set_device_finish (pipeline, step, &error));
  g_assert_no_error (error);
  g_clear_object (&step);
  ks_pipeline_set_input_async (pipeline, KS_INPUT_A, image, "flat", NULL, ks_ui_test_on_done_cb, &step);
  g_assert_true (wait_until (has_result, &step));
  g_assert_true (ks_pipeline_set_input_finish (pipeline, step, &error));
  g_assert_no_error (error);
  g_clear_object (&step);
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("brightness_contrast"));

  window = GTK_WINDOW (gtk_window_new ());
  view = KS_IMAGE_VIEW (ks_image_view_new ());
  ks_image_view_set_pipeline (view, pipeline);
  gtk_window_set_child (window, GTK_WIDGET (view));
  gtk_window_set_default_size (window, 320, 240);
  gtk_window_present (window);
  shown = (Shown) { pipeline, view, &ticker, LEVEL };
  g_assert_true (wait_until (is_idle, pipeline));
  g_assert_true (wait_until (view_shows, &shown));

  idle_id = g_idle_add (tick_cb, &ticker);
  ks_pipeline_measure_async (pipeline, REPEATS, cancellable, ks_ui_test_on_done_cb, &measured);
  g_assert_true (ks_pipeline_get_busy (pipeline));
  measuring = (Measuring) { pipeline, &measured };
  g_assert_true (wait_until (progress_started, &measuring));
  assert_still_measuring (pipeline, measured);
  ticks_before = ticker.ticks;

  /* A change while the Measure runs reaches the screen before it ends. */
  ks_pipeline_set_param (pipeline, 0, BRIGHTER);
  shown.level = LEVEL + BRIGHTER;
  g_assert_true (wait_until (view_shows, &shown));
  assert_still_measuring (pipeline, measured);
  g_assert_true (ks_pipeline_get_busy (pipeline));
  /* And the main loop kept going all along. */
  g_assert_cmpuint (ticker.ticks, >, ticks_before + 100);

  runs_at_cancel = (guint) (ks_pipeline_get_progress (pipeline) * (REPEATS + 1));
  g_test_message ("runs done when cancelled: %u of %u", runs_at_cancel, REPEATS + 1);
  g_assert_cmpuint (runs_at_cancel, <, REPEATS / 2);
  g_cancellable_cancel (cancellable);
  g_assert_true (wait_until (has_result, &measured));
  g_assert_false (ks_pipeline_measure_finish (pipeline, measured, &timing, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (timing.n, <, REPEATS / 2);
  g_assert_false (ks_pipeline_get_busy (pipeline));
  g_test_message ("samples when the Measure ended: %u", timing.n);
  g_test_message ("longest main-loop stall during the Measure: %.1f ms over %u iterations",
                  ticker.max_gap_us / 1000.0, ticker.ticks);
  g_source_remove (idle_id);
  ks_timing_clear (&timing);

  g_clear_object (&measured);
  g_assert_true (wait_until (is_idle, pipeline));
  gtk_window_destroy (window);
  ks_ui_test_iterate_some ();
  g_assert_finalize_object (g_steal_pointer (&pipeline));
}

/* Holds the worker until the test lets it go. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean released;
} Gate;

static void
gate_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  Gate *gate = task_data;

  g_mutex_lock (&gate->lock);
  while (!gate->released)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
  g_task_return_boolean (task, TRUE);
}

/* Runs queued while the worker is busy replace one another: of 100 changes,
 * only the newest runs and is published. */
static void
test_live_runs_coalesce (void)
{
  g_autoptr (KsPipeline) pipeline = ks_pipeline_new ();
  g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, 256, 256, NULL);
  g_autoptr (GAsyncResult) step = NULL;
  g_autoptr (GAsyncResult) gated = NULL;
  g_autoptr (GTask) gate_task = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) output = NULL;
  Gate gate = { 0 };
  guint before;

  ks_image_fill (image, LEVEL);
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("brightness_contrast"));
  ks_pipeline_set_input_async (pipeline, KS_INPUT_A, image, "flat", NULL, ks_ui_test_on_done_cb, &step);
  g_assert_true (wait_until (has_result, &step));
  g_assert_true (ks_pipeline_set_input_finish (pipeline, step, &error));
  g_assert_no_error (error);
  g_clear_object (&step);
  g_assert_true (wait_until (is_idle, pipeline));
  before = ks_pipeline_get_history (pipeline)->len;

  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  gate_task = g_task_new (NULL, NULL, ks_ui_test_on_done_cb, &gated);
  g_task_set_task_data (gate_task, &gate, NULL);
  ks_runner_queue (ks_pipeline_get_runner (pipeline), gate_task, gate_thread);
  for (guint i = 1; i <= 100; i++)
    {
      ks_pipeline_set_param (pipeline, 0, i);
      ks_ui_test_iterate_some ();
    }
  g_mutex_lock (&gate.lock);
  gate.released = TRUE;
  g_cond_signal (&gate.cond);
  g_mutex_unlock (&gate.lock);

  g_assert_true (wait_until (has_result, &gated));
  g_assert_true (wait_until (is_idle, pipeline));
  g_assert_cmpuint (ks_pipeline_get_history (pipeline)->len, ==, before + 1);
  g_assert_cmpfloat (ks_pipeline_get_result_params (pipeline)->values[0], ==, 100);
  output = ks_pipeline_download_output (pipeline, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ks_image_get_rgba (output, 0, 0) & 0xff, ==, LEVEL + 100);
  g_clear_object (&gated);
  g_clear_object (&gate_task);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  g_assert_finalize_object (g_steal_pointer (&pipeline));
}

static void
test_measure_keeps_window_live (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_measure_keeps_window_live_run ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ks_ui_test_init_display (KS_UI_TEST_GTK);

  g_test_add_func ("/ks/ui/runner/measure-keeps-window-live", test_measure_keeps_window_live);
  g_test_add_func ("/ks/ui/runner/live-runs-coalesce", test_live_runs_coalesce);
  return g_test_run ();
}
