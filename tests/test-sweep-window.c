/* "Sweep Block Sizes" on the CPU engine with a small image, as a user sees
 * it: a sweep over a typed list finishes with every point measured and the
 * fastest marked, the chart draws the points where it says they are, a click
 * on one launches the pipeline with its block, a sweep cancelled at once ends
 * cancelled and leaves the pipeline working, a bad list is refused beside the
 * entry, and the exports read back. Needs a display: run under xvfb-run;
 * without one every test skips. */
#include "config.h"

#include <glib/gstdio.h>

#include <string.h>

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "ks-pipeline.h"
#include "ks-sweep-chart.h"
#include "ks-sweep-window.h"
#include "ks-ui-test-helpers.h"
#include "ks-op-registry.h"

/* The set row's entries, in the template's order. */
#define SET_POWERS 1
#define SET_CUSTOM 2

/* A pipeline with a size × size random image and the invert op: on the CPU
 * engine, or (cpu FALSE) on the engine it starts on, CUDA where there is a GPU. */
/* Puts the chart alone in the window at that size and waits until it has one. */
static void
show_chart (GtkWindow *window, KsSweepChart *chart, int width, int height)
{
  gtk_window_set_child (window, GTK_WIDGET (chart));
  gtk_window_set_default_size (window, width, height);
  gtk_window_present (window);
  KS_UI_TEST_WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (chart)) > 0, KS_UI_TEST_PATIENCE_S);
  ks_ui_test_iterate ();
}

static KsPipeline *
new_pipeline_on (guint size, gboolean cpu)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, size, size, &error);
  KsPipeline *pipeline = ks_pipeline_new ();

  g_assert_no_error (error);
  if (cpu)
    {
      ks_ui_test_use_cpu (pipeline);
      g_assert_false (ks_engine_is_cuda (ks_pipeline_get_engine (pipeline)));
    }
  ks_image_fill_random (image, 7);
  ks_ui_test_set_input (pipeline, KS_INPUT_A, image, "random");
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("invert"));
  ks_ui_test_settle (pipeline);
  g_assert_nonnull (ks_pipeline_get_result (pipeline));
  return pipeline;
}

static KsPipeline *
new_pipeline (guint size)
{
  return new_pipeline_on (size, TRUE);
}

static KsSweepWindow *
show_window (KsPipeline *pipeline)
{
  KsSweepWindow *window = KS_SWEEP_WINDOW (ks_sweep_window_new (NULL, pipeline));

  gtk_window_set_default_size (GTK_WINDOW (window), 960, 800);
  ks_ui_test_present (GTK_WINDOW (window), GTK_WIDGET (ks_sweep_window_get_chart (window)));
  return window;
}

static gpointer
child (KsSweepWindow *window, const char *name)
{
  return ks_ui_test_template_child (window, KS_TYPE_SWEEP_WINDOW, name);
}

/* Chooses the shapes as a user does: the set row, and the entry for a list. */
static void
choose_shapes (KsSweepWindow *window, guint set, const char *list, guint repeats)
{
  adw_combo_row_set_selected (child (window, "set_row"), set);
  if (list != NULL)
    gtk_editable_set_text (GTK_EDITABLE (child (window, "custom_row")), list);
  gtk_spin_button_set_value (child (window, "repeats_spin"), repeats);
  ks_ui_test_iterate ();
}

static void
press (KsSweepWindow *window, const char *button)
{
  GtkWidget *widget = child (window, button);

  g_assert_true (gtk_widget_is_sensitive (widget));
  g_signal_emit_by_name (widget, "clicked");
  ks_ui_test_iterate ();
}

static void
wait_while_running (KsSweepWindow *window)
{
  for (int i = 0; i < 60000 && ks_sweep_window_get_state (window) == KS_SWEEP_WINDOW_RUNNING;
       i++)
    ks_ui_test_iterate ();
  g_assert_cmpint (ks_sweep_window_get_state (window), !=, KS_SWEEP_WINDOW_RUNNING);
  ks_ui_test_iterate ();
}

static const char *
label_text (KsSweepWindow *window, const char *name)
{
  return gtk_label_get_text (child (window, name));
}

static void
close_window (KsSweepWindow *window, KsPipeline *pipeline)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (GTK_WINDOW (window));
  KS_UI_TEST_WAIT_FOR (weak == NULL, KS_UI_TEST_PATIENCE_S);
  /* Nothing holds the window once it is closed, and it let go of the pipeline. */
  g_assert_null (weak);
  ks_ui_test_settle (pipeline);
  g_assert_finalize_object (pipeline);
}

static guint
pixel_distance (const guint8 *pixels, gsize stride, int x1, int y1, int x2, int y2)
{
  const guint8 *a = pixels + y1 * stride + x1 * 4;
  const guint8 *b = pixels + y2 * stride + x2 * 4;
  guint d = 0;

  for (int c = 0; c < 3; c++)
    d += (guint) ABS ((int) a[c] - (int) b[c]);
  return d;
}

/* ---- a sweep over a typed list ------------------------------------------------------- */

static void
export_to (KsSweepWindow *window, const char *path, gboolean json)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  ks_sweep_window_export_async (window, file, json, NULL, ks_ui_test_on_done_cb, &result);
  g_assert_true (ks_sweep_window_export_finish (window, ks_ui_test_wait_for_result (&result),
                                                &error));
  g_assert_no_error (error);
}

static void
check_exports (KsSweepWindow *window, const KsSweepResult *result)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-sweep-window-XXXXXX", &error);
  g_autofree char *csv_path = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *csv = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *points;
  guint n_lines = 0;

  g_assert_no_error (error);
  csv_path = g_build_filename (dir, "sweep.csv", NULL);
  json_path = g_build_filename (dir, "sweep.json", NULL);
  export_to (window, csv_path, FALSE);
  export_to (window, json_path, TRUE);

  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (csv, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      n_lines++;
  /* A header and one row a shape, each with the shape's eight columns. */
  g_assert_cmpuint (n_lines, ==, 4);
  g_assert_true (g_str_has_prefix (lines[0], "block,threads,median_ms"));
  for (guint i = 1; i < 4; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i], ",", -1);

      g_assert_cmpuint (g_strv_length (cells), ==, 8);
      g_assert_cmpstr (cells[2], !=, "");
      g_assert_cmpfloat (g_ascii_strtod (cells[2], NULL), >=, 0);
    }

  g_assert_true (json_parser_load_from_file (parser, json_path, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "op"), ==, "invert");
  g_assert_cmpstr (json_object_get_string_member (root, "engine"), ==, "cpu");
  points = json_object_get_array_member (root, "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 3);
  g_assert_cmpint (json_object_get_int_member (root, "fastest"), ==, result->fastest);

  g_assert_cmpint (g_remove (csv_path), ==, 0);
  g_assert_cmpint (g_remove (json_path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_custom_list_run (void)
{
  KsPipeline *pipeline = new_pipeline (64);
  KsSweepWindow *window = show_window (pipeline);
  KsSweepChart *chart = ks_sweep_window_get_chart (window);
  const KsSweepResult *result;
  const GArray *points;
  g_autofree guint8 *pixels = NULL;
  double xs[3], ys[3];
  int width, height, fastest, target = -1;
  gsize stride;

  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_IDLE);
  g_assert_false (gtk_widget_get_visible (child (window, "user_kernel_label")));
  g_assert_false (gtk_widget_is_sensitive (child (window, "cancel_button")));
  g_assert_cmpuint (ks_sweep_chart_get_n_points (chart), ==, 0);

  choose_shapes (window, SET_CUSTOM, "32x8, 16x16, 8x8", 3);
  g_assert_false (gtk_widget_get_visible (child (window, "custom_error_label")));
  press (window, "start_button");
  wait_while_running (window);

  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_FINISHED);
  result = ks_sweep_window_get_result (window);
  points = ks_sweep_window_get_points (window);
  g_assert_nonnull (result);
  g_assert_cmpuint (result->points->len, ==, 3);
  g_assert_cmpuint (points->len, ==, 3);
  g_assert_false (result->cuda);
  g_assert_cmpuint (result->width, ==, 64);
  g_assert_cmpuint (result->repeats, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const KsSweepPoint *p = &g_array_index (points, KsSweepPoint, i);

      g_assert_null (p->refused);
      g_assert_cmpuint (p->timing.n, ==, 3);
      /* The CPU engine's clock counts microseconds, and a 64×64 invert
       * can take less than one: a median of 0 is a measurement. */
      g_assert_cmpfloat (p->timing.median_ms, >=, 0);
      /* No occupancy on the CPU engine. */
      g_assert_false (p->has_occupancy);
    }
  g_assert_cmpuint (g_array_index (points, KsSweepPoint, 0).block.x, ==, 32);
  g_assert_cmpuint (g_array_index (points, KsSweepPoint, 0).block.y, ==, 8);
  fastest = ks_sweep_window_get_fastest (window);
  g_assert_cmpint (fastest, >=, 0);
  g_assert_cmpint (fastest, ==, result->fastest);
  /* The pick among the medians measured, whatever they came out as: the
   * first of the smallest (a 64×64 invert can tie at 0). It says nothing of
   * which shape is faster, which a loaded machine decides. */
  for (guint i = 0; i < 3; i++)
    {
      double best = g_array_index (points, KsSweepPoint, fastest).timing.median_ms;
      double median = g_array_index (points, KsSweepPoint, i).timing.median_ms;

      if (i < (guint) fastest)
        g_assert_cmpfloat (median, >, best);
      else
        g_assert_cmpfloat (median, >=, best);
    }
  g_assert_nonnull (strstr (label_text (window, "status_label"), "Fastest: "));
  g_assert_nonnull (strstr (gtk_progress_bar_get_text (child (window, "progress_bar")),
                            "3 of 3"));

  /* The chart has the three points, each drawn where it says: sorted by
   * threads (8×8 with 64 first), and painted over the card's background. */
  g_assert_cmpuint (ks_sweep_chart_get_n_points (chart), ==, 3);
  ks_ui_test_iterate ();
  pixels = ks_ui_test_render_pixels (GTK_WIDGET (chart), &width, &height);
  stride = (gsize) width * 4;
  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (ks_sweep_chart_get_point_position (chart, i, &xs[i], &ys[i]));
      g_assert_cmpfloat (xs[i], >, 0);
      g_assert_cmpfloat (xs[i], <, width);
      g_assert_cmpfloat (ys[i], >, 0);
      g_assert_cmpfloat (ys[i], <, height);
      g_assert_cmpint (ks_sweep_chart_point_at (chart, xs[i], ys[i]), ==, (int) i);
      /* The right margin is never drawn on: the card's own colour. */
      g_assert_cmpuint (pixel_distance (pixels, stride, (int) xs[i], (int) ys[i], width - 3,
                                        height / 2), >, 60);
    }
  g_assert_cmpfloat (xs[2], <, xs[0]);
  g_assert_cmpfloat (xs[2], <, xs[1]);
  g_assert_false (ks_sweep_chart_get_point_position (chart, 3, NULL, NULL));

  /* A click on a point whose block is not the one in use launches with it. */
  for (guint i = 0; i < 3 && target < 0; i++)
    {
      const KsDim3 *b = &g_array_index (points, KsSweepPoint, i).block;
      const KsDim3 *now = &ks_pipeline_get_launch (pipeline)->block;

      if (b->x != now->x || b->y != now->y)
        target = (int) i;
    }
  g_assert_cmpint (target, >=, 0);
  g_assert_true (ks_sweep_chart_click (chart, xs[target], ys[target]));
  {
    const KsDim3 *want = &g_array_index (points, KsSweepPoint, target).block;
    KsDim3 shaded;

    g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, ==, want->x);
    g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.y, ==, want->y);
    g_assert_true (ks_sweep_chart_get_current_block (chart, &shaded));
    g_assert_cmpuint (shaded.x, ==, want->x);
    g_assert_cmpuint (shaded.y, ==, want->y);
    /* And the live view runs it. */
    ks_ui_test_settle (pipeline);
    g_assert_cmpuint (ks_pipeline_get_result (pipeline)->launch.block.x, ==, want->x);
    g_assert_cmpuint (ks_pipeline_get_result (pipeline)->launch.block.y, ==, want->y);
  }
  /* A click beside the plot hits nothing and changes nothing. */
  g_assert_false (ks_sweep_chart_click (chart, 1, 1));
  /* Only the block changed: the sweep still describes the pipeline. */
  g_assert_null (strstr (label_text (window, "status_label"), "changed since"));

  check_exports (window, result);
  close_window (window, pipeline);
}

/* ---- cancelled at once ----------------------------------------------------------------- */

static void
test_cancel_run (void)
{
  /* 256×256: one run takes tens of microseconds on the CPU engine, so that
   * 10 000 runs of each of the many shapes take far longer than a Cancel. */
  KsPipeline *pipeline = new_pipeline (256);
  KsSweepWindow *window = show_window (pipeline);
  KsSweepChart *chart = ks_sweep_window_get_chart (window);
  const KsOp *gray = ks_op_registry_lookup ("gray");
  g_autoptr (GFile) file = g_file_new_for_path ("never-written.csv");
  g_autoptr (GArray) blocks = NULL;
  const GArray *points;

  choose_shapes (window, SET_POWERS, NULL, 10000);
  blocks = ks_sweep_window_get_blocks (window, NULL);
  g_assert_nonnull (blocks);
  g_assert_cmpuint (blocks != NULL ? blocks->len : 0, >, 10);

  /* Cancelled at once, before the main loop runs again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "sweep.start", NULL));
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_RUNNING);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "sweep.cancel", NULL));
  wait_while_running (window);
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_CANCELLED);
  g_assert_null (ks_sweep_window_get_result (window));
  g_assert_cmpuint (ks_sweep_window_get_points (window)->len, <, blocks->len);
  g_assert_nonnull (strstr (label_text (window, "status_label"), "Cancelled"));

  /* Cancelled once the first point is in: the points measured stay on the chart. */
  press (window, "start_button");
  for (int i = 0; i < 60000 && ks_sweep_window_get_points (window)->len == 0
                  && ks_sweep_window_get_state (window) == KS_SWEEP_WINDOW_RUNNING; i++)
    ks_ui_test_iterate ();
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_RUNNING);
  press (window, "cancel_button");
  wait_while_running (window);
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_CANCELLED);
  g_assert_null (ks_sweep_window_get_result (window));
  points = ks_sweep_window_get_points (window);
  g_assert_cmpuint (points->len, >=, 1);
  g_assert_cmpuint (points->len, <, blocks->len);
  g_assert_cmpuint (ks_sweep_chart_get_n_points (chart), ==, points->len);
  g_assert_true (ks_sweep_chart_get_point_position (chart, 0, NULL, NULL));
  g_assert_nonnull (strstr (label_text (window, "status_label"), "Cancelled"));
  g_assert_false (gtk_widget_is_sensitive (child (window, "cancel_button")));
  g_assert_true (gtk_widget_is_sensitive (child (window, "start_button")));

  /* Nothing to export from a cancelled sweep. */
  {
    g_autoptr (GAsyncResult) exported = NULL;
    g_autoptr (GError) error = NULL;

    ks_sweep_window_export_async (window, file, FALSE, NULL, ks_ui_test_on_done_cb, &exported);
    g_assert_false (ks_sweep_window_export_finish (window, ks_ui_test_wait_for_result (&exported),
                                                   &error));
    g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    g_assert_false (g_file_query_exists (file, NULL));
  }

  /* The pipeline still publishes runs... */
  ks_pipeline_set_op (pipeline, gray);
  ks_ui_test_settle (pipeline);
  g_assert_true (ks_pipeline_get_result_op (pipeline) == gray);
  g_assert_nonnull (strstr (label_text (window, "status_label"), "changed since"));
  /* ...and the next sweep runs to the end. */
  choose_shapes (window, SET_CUSTOM, "16x16", 2);
  press (window, "start_button");
  wait_while_running (window);
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_FINISHED);
  g_assert_cmpuint (ks_sweep_window_get_points (window)->len, ==, 1);
  g_assert_true (ks_sweep_window_get_result (window)->op == gray);
  g_assert_null (strstr (label_text (window, "status_label"), "changed since"));

  close_window (window, pipeline);
}

/* ---- a list that is not one ------------------------------------------------------------- */

static void
test_bad_list_run (void)
{
  KsPipeline *pipeline = new_pipeline (64);
  KsSweepWindow *window = show_window (pipeline);
  GtkWidget *error_label = child (window, "custom_error_label");
  GtkWidget *entry = child (window, "custom_row");
  g_autoptr (GError) error = NULL;

  choose_shapes (window, SET_CUSTOM, "32x8, banana", 3);
  g_assert_true (gtk_widget_get_visible (entry));
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (error_label)), !=, "");
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  g_assert_false (gtk_widget_is_sensitive (child (window, "start_button")));
  g_assert_false (ks_sweep_window_start (window, &error));
  g_assert_nonnull (error);
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_IDLE);
  g_assert_cmpuint (ks_sweep_window_get_points (window)->len, ==, 0);
  g_clear_error (&error);

  /* A zero-sized block is no block either. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "0x8");
  ks_ui_test_iterate ();
  g_assert_true (gtk_widget_get_visible (error_label));
  g_assert_false (gtk_widget_is_sensitive (child (window, "start_button")));

  /* Fixed, the message goes and Start comes back. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "32x8");
  ks_ui_test_iterate ();
  g_assert_false (gtk_widget_get_visible (error_label));
  g_assert_false (gtk_widget_has_css_class (entry, "error"));
  g_assert_true (gtk_widget_is_sensitive (child (window, "start_button")));

  /* The presets need no list: the entry and its message go away. */
  adw_combo_row_set_selected (child (window, "set_row"), 0);
  gtk_editable_set_text (GTK_EDITABLE (entry), "banana");
  ks_ui_test_iterate ();
  g_assert_false (gtk_widget_get_visible (entry));
  g_assert_false (gtk_widget_get_visible (error_label));
  g_assert_true (gtk_widget_is_sensitive (child (window, "start_button")));

  close_window (window, pipeline);
}

/* ---- the chart with occupancy, as on CUDA ------------------------------------------------ */

static void
on_point_activated_cb (KsSweepChart *chart, guint index, gpointer user_data)
{
  int *activated = user_data;

  *activated = (int) index;
}

static KsSweepPoint
synthetic_point (guint bx, guint by, double median_ms, double gbs, double occupancy,
                 KsOccupancyLimit limiter)
{
  KsSweepPoint p = { 0 };

  p.block = (KsDim3) { bx, by, 1 };
  p.timing.n = 20;
  p.timing.median_ms = median_ms;
  p.timing.min_ms = median_ms * 0.9;
  p.timing.max_ms = median_ms * 1.2;
  p.timing.mad_ms = median_ms * 0.05;
  p.gbs = gbs;
  p.has_occupancy = TRUE;
  p.occupancy.occupancy = occupancy;
  p.occupancy.max_warps_per_sm = 64;
  p.occupancy.active_warps_per_sm = (guint) (occupancy * 64);
  p.occupancy.active_blocks_per_sm = 2;
  p.occupancy.limiter = limiter;
  return p;
}

static void
test_chart_occupancy_run (void)
{
  g_autoptr (GArray) points = g_array_new (FALSE, TRUE, sizeof (KsSweepPoint));
  KsSweepChart *chart = KS_SWEEP_CHART (ks_sweep_chart_new ());
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  KsSweepPoint quarter, full, refused = { 0 };
  g_autofree guint8 *pixels = NULL;
  double x[3], y[3], by0, by1;
  int width, height, activated = -1;
  gsize stride;
  const guint8 *px;

  /* A quarter occupancy limited by registers, a full one (the fastest), and
   * a shape the device refuses. */
  quarter = synthetic_point (32, 8, 1.0, 50, 0.25, KS_OCCUPANCY_LIMIT_REGISTERS);
  full = synthetic_point (16, 16, 0.5, 100, 1.0, KS_OCCUPANCY_LIMIT_WARPS);
  g_array_append_val (points, quarter);
  g_array_append_val (points, full);
  refused.block = (KsDim3) { 64, 32, 1 };
  refused.refused = (char *) "2048 threads per block, the device allows 1024";
  g_array_append_val (points, refused);
  ks_sweep_chart_set_points (chart, points, 1, TRUE);
  g_signal_connect (chart, "point-activated", G_CALLBACK (on_point_activated_cb), &activated);

  show_chart (window, chart, 640, 360);

  for (guint i = 0; i < 3; i++)
    g_assert_true (ks_sweep_chart_get_point_position (chart, i, &x[i], &y[i]));
  /* Sorted by threads, the widest first; the slower point higher; the refused
   * one on the axis, below both. */
  g_assert_cmpfloat (x[0], <, x[1]);
  g_assert_cmpfloat (x[1], <, x[2]);
  g_assert_cmpfloat (y[0], <, y[1]);
  g_assert_cmpfloat (y[2], >, y[1]);

  pixels = ks_ui_test_render_pixels (GTK_WIDGET (chart), &width, &height);
  stride = (gsize) width * 4;
  if (g_getenv ("KS_TEST_SCREENSHOTS") != NULL)
    ks_ui_test_save_screenshot_in (GTK_WIDGET (chart), g_getenv ("KS_TEST_SCREENSHOTS"),
                                   "sweep-chart-occupancy.png");
  /* B, G, R: full occupancy is the scale's yellow end, a quarter is blue, a
   * refused shape a red cross. */
  px = pixels + (gsize) y[1] * stride + (gsize) x[1] * 4;
  g_assert_cmpuint (px[2], >, 200);
  g_assert_cmpuint (px[1], >, 180);
  g_assert_cmpuint (px[0], <, 100);
  px = pixels + (gsize) y[0] * stride + (gsize) x[0] * 4;
  g_assert_cmpuint (px[0], >, px[2]);
  px = pixels + (gsize) y[2] * stride + (gsize) x[2] * 4;
  g_assert_cmpuint (px[2], >, 150);
  g_assert_cmpuint (px[1], <, 100);

  /* A refused shape cannot be launched; a measured one can. */
  g_assert_false (ks_sweep_chart_click (chart, x[2], y[2]));
  g_assert_cmpint (activated, ==, -1);
  g_assert_true (ks_sweep_chart_click (chart, x[0], y[0]));
  g_assert_cmpint (activated, ==, 0);
  g_assert_cmpint (ks_sweep_chart_point_at (chart, width - 1, y[0]), ==, -1);

  /* Hovering a column asks for its tooltip: one for each point, none beside the plot. */
  {
    GtkWidgetClass *klass = GTK_WIDGET_GET_CLASS (chart);
    g_autoptr (GObject) tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);

    for (guint i = 0; i < 3; i++)
      g_assert_true (klass->query_tooltip (GTK_WIDGET (chart), (int) x[i], (int) y[i], FALSE,
                                           GTK_TOOLTIP (tooltip)));
    g_assert_false (klass->query_tooltip (GTK_WIDGET (chart), width - 1, (int) y[0], FALSE,
                                          GTK_TOOLTIP (tooltip)));
  }

  /* In GB/s the faster point is the higher one. */
  ks_sweep_chart_set_show_bandwidth (chart, TRUE);
  g_assert_true (ks_sweep_chart_get_point_position (chart, 0, NULL, &by0));
  g_assert_true (ks_sweep_chart_get_point_position (chart, 1, NULL, &by1));
  g_assert_cmpfloat (by1, <, by0);

  gtk_window_destroy (window);
  ks_ui_test_iterate ();
}

/* ---- the picture for the README ------------------------------------------------------------ */

static void
test_screenshot_run (void)
{
  /* Large enough that the shapes' times differ by more than the clock's
   * tick; on the GPU where there is one, so that the points carry their
   * occupancy. */
  KsPipeline *pipeline = new_pipeline_on (512, FALSE);
  KsSweepWindow *window = show_window (pipeline);
  gboolean cuda = ks_engine_is_cuda (ks_pipeline_get_engine (pipeline));
  const GArray *points;

  choose_shapes (window, SET_POWERS, NULL, 5);
  press (window, "start_button");
  wait_while_running (window);
  g_assert_cmpint (ks_sweep_window_get_state (window), ==, KS_SWEEP_WINDOW_FINISHED);
  points = ks_sweep_window_get_points (window);
  g_assert_cmpuint (points->len, ==,
                    ks_sweep_chart_get_n_points (ks_sweep_window_get_chart (window)));
  for (guint i = 0; i < points->len; i++)
    {
      const KsSweepPoint *p = &g_array_index (points, KsSweepPoint, i);

      if (p->refused == NULL)
        g_assert_true (p->has_occupancy == cuda);
    }
  ks_ui_test_iterate ();
  ks_ui_test_save_screenshot (GTK_WIDGET (window), "sweep-window.png");
  close_window (window, pipeline);
}

static void
test_custom_list (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_custom_list_run ();
}

static void
test_cancel (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_cancel_run ();
}

static void
test_bad_list (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_bad_list_run ();
}

/* Fifty-one shapes, as "every power of two" sweeps on a GPU: the limiter is
 * named once for each run of neighbours that share it (a refused shape
 * breaks a run), not once for each shape. */
static void
test_chart_limiter_runs_run (void)
{
  g_autoptr (GArray) points = g_array_new (FALSE, TRUE, sizeof (KsSweepPoint));
  KsSweepChart *chart = KS_SWEEP_CHART (ks_sweep_chart_new ());
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  KsSweepPoint refused = { 0 };
  guint n = 0;

  /* Blocks of 32 to 1024 threads, each number of threads as 1024×1 … 1×N. */
  for (guint t = 32; t <= 1024; t *= 2)
    for (guint bx = t; bx >= 1 && n < 50; bx /= 2, n++)
      {
        KsOccupancyLimit limiter = t <= 64    ? KS_OCCUPANCY_LIMIT_BLOCKS
                                   : t <= 512 ? KS_OCCUPANCY_LIMIT_WARPS
                                              : KS_OCCUPANCY_LIMIT_REGISTERS;
        KsSweepPoint p = synthetic_point (bx, t / bx, 0.5 + 0.01 * (n % 7), 80,
                                          t <= 64 ? 0.5 : t <= 512 ? 1.0 : 0.5, limiter);

        g_array_append_val (points, p);
      }
  ks_sweep_chart_set_points (chart, points, 20, TRUE);
  g_assert_cmpuint (ks_sweep_chart_get_n_limiter_runs (chart), ==, 3);

  /* A shape the device refuses, among the 256-thread ones: the run of
   * "threads per multiprocessor" is cut in two. */
  refused.block = (KsDim3) { 256, 1, 1 };
  refused.refused = (char *) "too many registers for the device";
  g_array_append_val (points, refused);
  ks_sweep_chart_set_points (chart, points, 20, TRUE);
  g_assert_cmpuint (ks_sweep_chart_get_n_points (chart), ==, 51);
  g_assert_cmpuint (ks_sweep_chart_get_n_limiter_runs (chart), ==, 4);

  show_chart (window, chart, 900, 380);
  if (g_getenv ("KS_TEST_SCREENSHOTS") != NULL)
    ks_ui_test_save_screenshot_in (GTK_WIDGET (chart), g_getenv ("KS_TEST_SCREENSHOTS"),
                                   "sweep-chart-limiters.png");

  /* On the CPU engine there is no occupancy, so no limiter either. */
  ks_sweep_chart_set_points (chart, points, 20, FALSE);
  for (guint i = 0; i < points->len; i++)
    g_array_index (points, KsSweepPoint, i).has_occupancy = FALSE;
  ks_sweep_chart_set_points (chart, points, 20, FALSE);
  g_assert_cmpuint (ks_sweep_chart_get_n_limiter_runs (chart), ==, 0);
  gtk_window_destroy (window);
}

static void
test_chart_limiter_runs (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_chart_limiter_runs_run ();
}

static void
test_chart_occupancy (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_chart_occupancy_run ();
}

static void
test_screenshot (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_screenshot_run ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ks_ui_test_init_display (KS_UI_TEST_ADWAITA);

  g_test_add_func ("/ks/ui/sweep-window/custom-list", test_custom_list);
  g_test_add_func ("/ks/ui/sweep-window/cancel", test_cancel);
  g_test_add_func ("/ks/ui/sweep-window/bad-list", test_bad_list);
  g_test_add_func ("/ks/ui/sweep-window/chart-occupancy", test_chart_occupancy);
  g_test_add_func ("/ks/ui/sweep-window/chart-limiter-runs", test_chart_limiter_runs);
  g_test_add_func ("/ks/ui/sweep-window/screenshot", test_screenshot);
  return g_test_run ();
}
