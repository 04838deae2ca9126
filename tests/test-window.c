/* The whole window under Xvfb, as a user sees it: the sample on screen, ops
 * and launches changing the displayed pixels (read back from the view), the
 * launch validation message, a corrupt file refused, histograms from the
 * engine, and a screenshot of it all. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-device-panel.h"
#include "ks-histogram-view.h"
#include "ks-image-view.h"
#include "ks-timing-panel.h"
#include "ks-ui-test-helpers.h"
#include "ks-window.h"
#include "ks-window-private.h"
#include "ks-op-registry.h"

/* Waits until the view shows exactly the engine's output (the next frame). */
static KsImage *
displayed_output (KsWindow *window)
{
  KsImageView *view = KS_IMAGE_VIEW (ks_window_get_view (window));
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);
  g_autoptr (KsImage) expected = NULL;

  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsImage) shown = NULL;
      g_autoptr (KsImage) rgba = NULL;

      ks_ui_test_iterate_for (20);
      g_clear_pointer (&expected, ks_image_unref);
      expected = ks_pipeline_download_output (pipeline, NULL);
      shown = ks_image_view_read_output (view, &error);
      if (expected == NULL || shown == NULL)
        continue;
      rgba = ks_image_to_rgba (expected);
      if (ks_image_equal (shown, rgba))
        return g_steal_pointer (&shown);
    }
  return NULL;
}

typedef struct
{
  KsWindow *window;
  gint64 created_us;
  gint64 first_frame_us;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->created_us = g_get_monotonic_time ();
  f->window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1440, 900);
  gtk_window_present (GTK_WINDOW (f->window));
  ks_window_open_sample (f->window);
  /* The view reports its first frame's display path to the pipeline. */
  for (int i = 0;
       i < 2000 && ks_pipeline_get_display_path (ks_window_get_pipeline (f->window)) == NULL;
       i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (500);
    }
  f->first_frame_us = g_get_monotonic_time ();
  ks_ui_test_iterate_for (300);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  ks_ui_test_close_window (f->window);
}

static void
test_opens_on_sample (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  KsImage *a = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  g_autoptr (KsImage) shown = NULL;

  g_assert_nonnull (a);
  /* Reported, not asserted: speed is for benchmarks. */
  g_test_message ("window created to first frame shown: %.0f ms (CPU engine, llvmpipe)",
                  (f->first_frame_us - f->created_us) / 1000.0);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==, "astronaut.png");
  g_assert_cmpuint (a->width, ==, 512);
  shown = displayed_output (f->window);
  g_assert_nonnull (shown);
  /* The default op is invert: the view shows 255 − the sample's red channel. */
  g_assert_cmpuint (ks_image_get_rgba (shown, 100, 100) & 0xff, ==,
                    255 - (ks_image_get_rgba (a, 100, 100) & 0xff));
}

static void
test_param_and_launch_change_pixels (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  KsImage *a = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  g_autoptr (KsImage) rounded = NULL;
  g_autoptr (KsImage) truncated = NULL;
  g_autoptr (KsImage) partial = NULL;
  KsLaunchConfig launch;
  guint64 differ = 0;

  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gray"));
  rounded = displayed_output (f->window);
  g_assert_nonnull (rounded);
  ks_pipeline_set_param (pipeline, 0, 1); /* truncate */
  truncated = displayed_output (f->window);
  g_assert_nonnull (truncated);
  for (guint y = 0; y < a->height; y++)
    for (guint x = 0; x < a->width; x++)
      {
        guint r = ks_image_get_rgba (rounded, x, y) & 0xff;
        guint t = ks_image_get_rgba (truncated, x, y) & 0xff;
        g_assert_true (r == t || r == t + 1);
        differ += r != t;
      }
  /* Truncation darkens about half of a photo's pixels by one level. */
  g_assert_cmpuint (differ, >, (guint64) a->width * a->height / 5);

  /* A 2×2 grid of 16×16 blocks writes only the top-left 64×32 pixels
   * (4 pixels per thread): everything else stays poisoned (0). */
  ks_launch_config_init (&launch, 16, 16);
  launch.auto_grid = FALSE;
  launch.grid = (KsDim3) { 2, 2, 1 };
  launch.pixels_per_thread = 4;
  ks_pipeline_set_launch (pipeline, &launch);
  partial = displayed_output (f->window);
  g_assert_nonnull (partial);
  g_assert_cmpuint (ks_image_get_rgba (partial, 10, 10), ==, ks_image_get_rgba (truncated, 10, 10));
  g_assert_cmpuint (ks_image_get_rgba (partial, 300, 300) & 0xff, ==, 0);
  g_assert_cmpuint (ks_image_get_rgba (truncated, 300, 300) & 0xff, !=, 0);
  g_assert_nonnull (ks_pipeline_get_coverage (pipeline));
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "window-undersized-grid.png");
}

static void
test_invalid_block_refused (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  const KsRunResult *before;
  KsLaunchConfig launch;
  double kernel_before;

  ks_ui_test_iterate_for (100);
  before = ks_pipeline_get_result (pipeline);
  g_assert_nonnull (before);
  kernel_before = before->kernel_ms;
  ks_launch_config_init (&launch, 64, 32);
  ks_pipeline_set_launch (pipeline, &launch);
  ks_ui_test_iterate_for (300);
  g_assert_false (ks_pipeline_get_validation (pipeline, NULL, NULL));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                              "2048 threads per block; this device allows 1024"));
  /* Nothing was launched: the last result is the one from before. */
  g_assert_cmpfloat (ks_pipeline_get_result (pipeline)->kernel_ms, ==, kernel_before);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "window-invalid-block.png");
}

static void
test_corrupt_file_keeps_image (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  KsImage *before = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "ks-test-corrupt.png", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  guint8 junk[4096];

  for (guint i = 0; i < sizeof junk; i++)
    junk[i] = g_test_rand_int_range (0, 256);
  g_assert_true (g_file_set_contents (path, (const char *) junk, sizeof junk, NULL));
  ks_window_open_file (f->window, file, KS_INPUT_A);
  KS_UI_TEST_WAIT_FOR (ks_window_get_last_message (f->window) != NULL, KS_UI_TEST_PATIENCE_S);
  g_assert_nonnull (ks_window_get_last_message (f->window));
  g_assert_nonnull (strstr (ks_window_get_last_message (f->window), "ks-test-corrupt.png"));
  g_assert_true (ks_pipeline_get_input (pipeline, KS_INPUT_A) == before);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==, "astronaut.png");
  g_unlink (path);
}

static void
wait_for_input_name (KsPipeline *pipeline, const char *name)
{
  KS_UI_TEST_WAIT_FOR (g_strcmp0 (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), name) == 0,
                       KS_UI_TEST_PATIENCE_S);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==, name);
}

/* The menu's samples: both bundled photos and the test card (at the size of
 * the image before it); and the about window's troubleshooting text names
 * the display's renderer, interop status and path. */
static void
test_samples_and_debug_info (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  g_autofree char *debug = NULL;
  KsImage *a;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.open-sample", "s",
                                             "coffee"));
  wait_for_input_name (pipeline, "coffee.png");
  a = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  g_assert_cmpuint (a->width, ==, 600);
  g_assert_cmpuint (a->height, ==, 400);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.open-test-card", NULL));
  wait_for_input_name (pipeline, "Test card");
  a = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  g_assert_cmpuint (a->width, ==, 600);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.open-sample", "s",
                                             "astronaut"));
  wait_for_input_name (pipeline, "astronaut.png");

  debug = ks_window_get_debug_info (f->window);
  g_test_message ("%s", debug);
  g_assert_nonnull (strstr (debug, "Engine device: "));
  g_assert_nonnull (strstr (debug, "GL renderer: "));
  g_assert_null (strstr (debug, "GL renderer: (not realized)"));
  g_assert_nonnull (strstr (debug, "Interop: "));
  g_assert_nonnull (strstr (debug, "Display path: "));
}

/* Save writes the shown result to a PNG file, off the main thread, and says so. */
static void
test_save_result (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "ks-test-save.png", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (KsImage) expected = NULL;
  g_autoptr (KsImage) saved = NULL;
  g_autoptr (GError) error = NULL;

  ks_ui_test_iterate_for (100);
  expected = ks_pipeline_download_output (pipeline, &error);
  g_assert_no_error (error);
  g_unlink (path);
  ks_window_save_result (f->window, file);
  KS_UI_TEST_WAIT_FOR (g_strcmp0 (ks_window_get_last_message (f->window),
                                  "Saved ks-test-save.png") == 0, KS_UI_TEST_PATIENCE_S);
  g_assert_cmpstr (ks_window_get_last_message (f->window), ==, "Saved ks-test-save.png");
  saved = ks_image_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (ks_image_equal (expected, saved));
  g_unlink (path);

  /* A folder that does not exist: the reason in a toast, nothing saved. */
  {
    g_autoptr (GFile) bad = g_file_new_for_path ("/nonexistent-ks-dir/result.png");

    ks_window_save_result (f->window, bad);
    KS_UI_TEST_WAIT_FOR (g_strcmp0 (ks_window_get_last_message (f->window),
                                    "Saved ks-test-save.png") != 0, KS_UI_TEST_PATIENCE_S);
    g_assert_nonnull (strstr (ks_window_get_last_message (f->window), "nonexistent-ks-dir"));
  }
}

/* A panel's "error" reaches the window's toasts through the template alone. */
static void
test_panel_errors_reach_toasts (Fixture *f, gconstpointer data)
{
  const GType types[] = { KS_TYPE_TIMING_PANEL, KS_TYPE_DEVICE_PANEL };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr (GPtrArray) panels = g_ptr_array_new ();
      g_autofree char *message = g_strdup_printf ("panel %u could not export", i);

      ks_ui_test_find_widgets (GTK_WIDGET (f->window), types[i], panels);
      g_assert_cmpuint (panels->len, ==, 1);
      g_signal_emit_by_name (g_ptr_array_index (panels, 0), "error", message);
      g_assert_cmpstr (ks_window_get_last_message (f->window), ==, message);
    }
}

static void
test_histograms_from_engine (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  g_autoptr (GPtrArray) views = g_ptr_array_new ();
  gboolean found_input = FALSE;
  guint64 sum = 0;

  ks_ui_test_iterate_for (200);
  ks_ui_test_find_widgets (GTK_WIDGET (f->window), KS_TYPE_HISTOGRAM_VIEW, views);
  g_assert_cmpuint (views->len, >=, 2);
  for (guint i = 0; i < views->len; i++)
    {
      const guint32 *bins = ks_histogram_view_get_bins (g_ptr_array_index (views, i));
      if (bins != NULL
          && memcmp (bins, ks_pipeline_get_input_histogram (pipeline), 4 * 256 * 4) == 0)
        found_input = TRUE;
    }
  g_assert_true (found_input);
  for (guint i = 0; i < 256; i++)
    sum += ks_pipeline_get_input_histogram (pipeline)[3 * 256 + i];
  g_assert_cmpuint (sum, ==, 512 * 512);
}

/* Every op of the registry reaches the screen, the resize's smaller output too. */
static void
test_every_op_displays (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);

  for (guint i = 0; i < ks_op_registry_count (); i++)
    {
      const KsOp *op = ks_op_registry_get (i);
      g_autoptr (KsImage) shown = NULL;

      ks_pipeline_set_op (pipeline, op);
      if (op->output_kind != KS_OP_OUTPUT_IMAGE)
        continue;
      shown = displayed_output (f->window);
      g_assert_nonnull (shown);
      if (g_str_equal (op->id, "resize"))
        g_assert_cmpuint (shown->width, ==, 256);
      else
        g_assert_cmpuint (shown->width, ==, 512);
    }
}

static void
test_screenshot (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  g_autoptr (KsImage) shown = NULL;

  g_autoptr (GPtrArray) stacks = g_ptr_array_new ();
  gboolean switched = FALSE;

  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gray"));
  /* Before on the left, after on the right. */
  ks_image_view_set_split (KS_IMAGE_VIEW (ks_window_get_view (f->window)), 0.5);
  shown = displayed_output (f->window);
  g_assert_nonnull (shown);
  ks_ui_test_iterate_for (300);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "kernelscope-window.png");

  ks_ui_test_find_widgets (GTK_WIDGET (f->window), GTK_TYPE_STACK, stacks);
  for (guint i = 0; i < stacks->len; i++)
    if (gtk_stack_get_child_by_name (g_ptr_array_index (stacks, i), "histogram") != NULL)
      {
        gtk_stack_set_visible_child_name (g_ptr_array_index (stacks, i), "histogram");
        switched = TRUE;
      }
  g_assert_true (switched);
  ks_ui_test_iterate_for (300);
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "kernelscope-histogram.png");
}

/* Waits for an instrumented run of the current launch to be on screen. */
static void
wait_for_ownership (KsWindow *window, guint grid_x)
{
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);
  g_autoptr (KsImage) shown = NULL;

  for (;;)
    {
      const KsRunResult *r = ks_pipeline_get_result (pipeline);

      if (ks_pipeline_is_idle (pipeline) && ks_pipeline_get_ownership (pipeline) != NULL
          && r != NULL && (grid_x == 0 || r->launch.grid.x == grid_x))
        break;
      if (!ks_ui_test_wait_step (deadline))
        break;
    }
  g_assert_nonnull (ks_pipeline_get_ownership (pipeline));
  shown = displayed_output (window);
  g_assert_nonnull (shown);
  ks_ui_test_iterate_for (200);
}

/* The overlays from the bottom bar's shortcuts, the pointer naming the
 * thread that wrote a pixel, and the legend and the cost of recording. */
static void
test_overlays_and_hover (Fixture *f, gconstpointer data)
{
  KsPipeline *pipeline = ks_window_get_pipeline (f->window);
  KsImageView *view = KS_IMAGE_VIEW (ks_window_get_view (f->window));
  GtkWidget *vw = GTK_WIDGET (view);
  GtkEventController *motion = ks_ui_test_find_controller (vw, GTK_TYPE_EVENT_CONTROLLER_MOTION);
  KsLaunchConfig launch;
  double zoom;

  g_assert_nonnull (motion);
  /* Teaching defaults: one pixel per thread, blocks of 16×16, an automatic grid. */
  ks_launch_config_init (&launch, 16, 16);
  launch.pixels_per_thread = 1;
  ks_pipeline_set_launch (pipeline, &launch);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.overlay", "s", "block"));
  g_assert_cmpint (ks_image_view_get_overlay (view), ==, KS_OVERLAY_BLOCK);
  wait_for_ownership (f->window, 32);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "a grid of 32×32 blocks"));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "recorded run"));
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "overlay-blocks.png");

  /* Pixel (21, 9) of the 512×512 sample, fitted and centred. */
  zoom = ks_image_view_get_zoom (view) / gtk_widget_get_scale_factor (vw);
  g_signal_emit_by_name (motion, "motion", gtk_widget_get_width (vw) / 2.0 + (21.5 - 256) * zoom,
                         gtk_widget_get_height (vw) / 2.0 + (9.5 - 256) * zoom);
  KS_UI_TEST_WAIT_FOR (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                               "block (1, 0), thread (5, 9)"),
                       KS_UI_TEST_PATIENCE_S);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "block (1, 0), thread (5, 9)"));
  /* Thread (5, 9) is linear 149: warp 4, lane 21. */
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "warp 4, lane 21"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.overlay", "s", "warp"));
  KS_UI_TEST_WAIT_FOR (ks_ui_test_label_shows (GTK_WIDGET (f->window), "one colour a warp"),
                       KS_UI_TEST_PATIENCE_S);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "one colour a warp"));
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "overlay-warps.png");

  /* A grid of 40×20 blocks: too wide (640 pixels) and too short (320). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.overlay", "s",
                                             "coverage"));
  launch.auto_grid = FALSE;
  launch.grid = (KsDim3) { 40, 20, 1 };
  ks_pipeline_set_launch (pipeline, &launch);
  wait_for_ownership (f->window, 40);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "never written (98304)"));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "threads beyond the image"));
  ks_ui_test_save_screenshot (GTK_WIDGET (f->window), "overlay-coverage.png");
  /* An unwritten pixel names the thread an automatic grid would give it. */
  zoom = ks_image_view_get_zoom (view) / gtk_widget_get_scale_factor (vw);
  g_signal_emit_by_name (motion, "motion", gtk_widget_get_width (vw) / 2.0 + (40.5 - 320) * zoom,
                         gtk_widget_get_height (vw) / 2.0 + (400.5 - 256) * zoom);
  KS_UI_TEST_WAIT_FOR (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                                               "no thread wrote this pixel"),
                       KS_UI_TEST_PATIENCE_S);
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window), "no thread wrote this pixel"));
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (f->window),
                              "an automatic grid: block (2, 25), thread (8, 0)"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.overlay", "s", "none"));
  ks_ui_test_iterate_for (100);
  g_assert_false (ks_pipeline_get_instrumented (pipeline));
  g_assert_false (ks_ui_test_label_shows (GTK_WIDGET (f->window), "recorded run"));
}

/* Presenter mode: large type and no header bar until Esc. */
static void
test_presenter_mode (Fixture *f, gconstpointer data)
{
  GtkWidget *w = GTK_WIDGET (f->window);
  AdwStyleManager *style = adw_style_manager_get_default ();
  AdwColorScheme before = adw_style_manager_get_color_scheme (style);
  KsWindow *other;

  g_assert_false (_ks_window_get_presenter (f->window));
  g_assert_cmpint (before, !=, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_true (gtk_widget_activate_action (w, "win.presenter", NULL));
  ks_ui_test_iterate_for (300);
  g_assert_true (_ks_window_get_presenter (f->window));
  g_assert_true (gtk_widget_has_css_class (w, "ks-presenter"));
  g_assert_true (adw_style_manager_get_dark (adw_style_manager_get_default ()));
  g_assert_true (ks_ui_test_label_shows (w, "press Esc or F11 to leave"));
  gtk_widget_activate_action (w, "win.overlay", "s", "block");
  ks_ui_test_iterate_for (500);
  ks_ui_test_save_screenshot (w, "presenter-mode.png");
  gtk_widget_activate_action (w, "win.overlay", "s", "none");
  g_assert_true (gtk_widget_activate_action (w, "win.leave-presenter", NULL));
  ks_ui_test_iterate_for (100);
  g_assert_false (_ks_window_get_presenter (f->window));
  g_assert_false (gtk_widget_has_css_class (w, "ks-presenter"));
  g_assert_cmpint (adw_style_manager_get_color_scheme (style), ==, before);

  /* A window closed while presenting gives the application its style back. */
  other = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (other));
  _ks_window_set_presenter (other, TRUE);
  g_assert_cmpint (adw_style_manager_get_color_scheme (style), ==, ADW_COLOR_SCHEME_FORCE_DARK);
  gtk_window_destroy (GTK_WINDOW (other));
  ks_ui_test_iterate_for (100);
  g_assert_cmpint (adw_style_manager_get_color_scheme (style), ==, before);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  if (!ks_ui_test_require_display (KS_UI_TEST_ADWAITA | KS_UI_TEST_APP_STYLE))
    return 0;

  g_test_add ("/ks/ui/window/opens-on-sample", Fixture, NULL, fixture_setup, test_opens_on_sample,
              fixture_teardown);
  g_test_add ("/ks/ui/window/param-and-launch-change-pixels", Fixture, NULL, fixture_setup,
              test_param_and_launch_change_pixels, fixture_teardown);
  g_test_add ("/ks/ui/window/invalid-block-refused", Fixture, NULL, fixture_setup,
              test_invalid_block_refused, fixture_teardown);
  g_test_add ("/ks/ui/window/corrupt-file-keeps-image", Fixture, NULL, fixture_setup,
              test_corrupt_file_keeps_image, fixture_teardown);
  g_test_add ("/ks/ui/window/save-result", Fixture, NULL, fixture_setup, test_save_result,
              fixture_teardown);
  g_test_add ("/ks/ui/window/panel-errors-reach-toasts", Fixture, NULL, fixture_setup,
              test_panel_errors_reach_toasts, fixture_teardown);
  g_test_add ("/ks/ui/window/histograms-from-engine", Fixture, NULL, fixture_setup,
              test_histograms_from_engine, fixture_teardown);
  g_test_add ("/ks/ui/window/every-op-displays", Fixture, NULL, fixture_setup,
              test_every_op_displays, fixture_teardown);
  g_test_add ("/ks/ui/window/screenshot", Fixture, NULL, fixture_setup, test_screenshot,
              fixture_teardown);
  g_test_add ("/ks/ui/window/samples-and-debug-info", Fixture, NULL, fixture_setup,
              test_samples_and_debug_info, fixture_teardown);
  g_test_add ("/ks/ui/window/overlays-and-hover", Fixture, NULL, fixture_setup,
              test_overlays_and_hover, fixture_teardown);
  g_test_add ("/ks/ui/window/presenter-mode", Fixture, NULL, fixture_setup, test_presenter_mode,
              fixture_teardown);
  return g_test_run ();
}
