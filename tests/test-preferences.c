/* test-preferences.c: what the window keeps between starts — the last op,
 * its parameters, launch and engine come back, a value that does not fit is
 * skipped on its own — and the preferences window's rows change the settings
 * the window follows (style, timed runs, teaching launches). Settings live in
 * GLib's memory backend, with the schema compiled in the build tree. */
#include "config.h"

#include <adwaita.h>

#include "ks-preferences-window.h"
#include "ks-timing-panel.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-private.h"
#include "ks-op-registry.h"

/* What the tests set: reset before each. */
static const char *const keys[] = { "last-op", "last-params", "last-launch", "last-engine",
                                    "restore-last", "launch-defaults", "measure-repeats",
                                    "color-scheme", "default-engine", NULL };

static double
param (KsPipeline *pipeline, const char *name)
{
  return ks_params_get (ks_pipeline_get_params (pipeline), ks_pipeline_get_op (pipeline), name);
}

/* What one window had, the next one starts with; what it changed is saved
 * when it closes. */
static void
test_restores_last (void)
{
  g_autoptr (GSettings) settings = ks_ui_test_fresh_settings (keys);
  GVariantBuilder params;
  KsWindow *window;
  KsPipeline *pipeline;
  const KsLaunchConfig *l;
  g_autofree char *op = NULL;
  double sigma = 0;

  g_variant_builder_init (&params, G_VARIANT_TYPE ("a{sd}"));
  g_variant_builder_add (&params, "{sd}", "sigma", 3.5);
  g_variant_builder_add (&params, "{sd}", "no-such-parameter", 1.0);
  g_settings_set_string (settings, "last-op", "gaussian_blur");
  g_settings_set_value (settings, "last-params", g_variant_builder_end (&params));
  g_settings_set (settings, "last-launch", "(uuuuuubbu)", 8, 8, 1, 0, 0, 0, TRUE, TRUE, 2);

  window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gaussian_blur");
  g_assert_cmpfloat (param (pipeline, "sigma"), ==, 3.5);
  l = ks_pipeline_get_launch (pipeline);
  g_assert_cmpuint (l->block.x, ==, 8);
  g_assert_cmpuint (l->block.y, ==, 8);
  g_assert_true (l->auto_grid);
  g_assert_cmpint (l->mode, ==, KS_LAUNCH_GRID_STRIDE);
  g_assert_cmpuint (l->pixels_per_thread, ==, 2);
  g_assert_false (ks_engine_is_cuda (ks_pipeline_get_engine (pipeline)));

  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("box_blur"));
  ks_pipeline_set_param (pipeline, 0, 7);
  ks_ui_test_close_window (window);
  op = g_settings_get_string (settings, "last-op");
  g_assert_cmpstr (op, ==, "box_blur");
  g_assert_true (g_variant_lookup (g_settings_get_value (settings, "last-params"), "radius", "d",
                                   &sigma));
  g_assert_cmpfloat (sigma, ==, 7);
}

/* An op that is gone, a parameter out of its range and a launch no device
 * runs are each left out; the window starts on the defaults for them. */
static void
test_corrupt_values_skipped (void)
{
  g_autoptr (GSettings) settings = ks_ui_test_fresh_settings (keys);
  GVariantBuilder params;
  KsWindow *window;
  KsPipeline *pipeline;
  const KsOp *op;

  g_settings_set_string (settings, "last-op", "no-such-op");
  window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (window);
  op = ks_pipeline_get_op (pipeline);
  g_assert_nonnull (op);
  g_assert_cmpstr (op->id, !=, "no-such-op");
  ks_ui_test_close_window (window);

  g_variant_builder_init (&params, G_VARIANT_TYPE ("a{sd}"));
  g_variant_builder_add (&params, "{sd}", "sigma", 999.0);
  g_settings_set_string (settings, "last-op", "gaussian_blur");
  g_settings_set_value (settings, "last-params", g_variant_builder_end (&params));
  g_settings_set (settings, "last-launch", "(uuuuuubbu)", 0, 8, 1, 0, 0, 0, TRUE, FALSE, 3);
  window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gaussian_blur");
  g_assert_cmpfloat (param (pipeline, "sigma"), ==, 1.5);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, !=, 0);
  ks_ui_test_close_window (window);

  /* Past CUDA's 1024 threads a block: refused as a session refuses it. */
  g_settings_set (settings, "last-launch", "(uuuuuubbu)", 2048, 1, 1, 0, 0, 0, TRUE, FALSE, 1);
  window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, !=, 2048);
  ks_ui_test_close_window (window);
}

/* Teaching defaults: a window that restores nothing launches one pixel per
 * thread in one pass. */
static void
test_teaching_launch (void)
{
  g_autoptr (GSettings) settings = ks_ui_test_fresh_settings (keys);
  KsWindow *window;
  const KsLaunchConfig *l;

  g_settings_set_boolean (settings, "restore-last", FALSE);
  g_settings_set_string (settings, "launch-defaults", "teaching");
  window = ks_ui_test_open_window ();
  l = ks_pipeline_get_launch (ks_window_get_pipeline (window));
  g_assert_cmpuint (l->pixels_per_thread, ==, 1);
  g_assert_cmpint (l->mode, ==, KS_LAUNCH_PER_PIXEL);

  /* Changed while the window is open, the launch follows at once: the
   * fastest gives the op its own pixels per thread back, teaching one. */
  g_settings_set_string (settings, "launch-defaults", "fastest");
  l = ks_pipeline_get_launch (ks_window_get_pipeline (window));
  g_assert_cmpuint (l->pixels_per_thread, ==, 0);
  g_settings_set_string (settings, "launch-defaults", "teaching");
  l = ks_pipeline_get_launch (ks_window_get_pipeline (window));
  g_assert_cmpuint (l->pixels_per_thread, ==, 1);
  g_assert_cmpint (l->mode, ==, KS_LAUNCH_PER_PIXEL);
  ks_ui_test_close_window (window);
}

/* The rows change the settings, and the window follows them at once. */
static void
test_preferences_rows (void)
{
  g_autoptr (GSettings) settings = ks_ui_test_fresh_settings (keys);
  KsWindow *window = ks_ui_test_open_window ();
  KsPreferencesWindow *prefs;
  AdwComboRow *style, *launch, *engine;
  GtkSpinButton *repeats;
  GtkAdjustment *measure;
  g_autofree char *defaults = NULL;
  g_autofree char *start = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.preferences", NULL));
  ks_ui_test_iterate_for (50);
  prefs = ks_preferences_window_new (GTK_WINDOW (window), settings);
  gtk_window_present (GTK_WINDOW (prefs));
  ks_ui_test_iterate_for (50);
  style = ADW_COMBO_ROW (gtk_widget_get_template_child (GTK_WIDGET (prefs),
                                                        KS_TYPE_PREFERENCES_WINDOW, "style_row"));
  launch = ADW_COMBO_ROW (gtk_widget_get_template_child (GTK_WIDGET (prefs),
                                                         KS_TYPE_PREFERENCES_WINDOW,
                                                         "launch_row"));
  engine = ADW_COMBO_ROW (gtk_widget_get_template_child (GTK_WIDGET (prefs),
                                                         KS_TYPE_PREFERENCES_WINDOW,
                                                         "engine_row"));
  repeats = GTK_SPIN_BUTTON (gtk_widget_get_template_child (GTK_WIDGET (prefs),
                                                            KS_TYPE_PREFERENCES_WINDOW,
                                                            "repeats_spin"));
  /* The rows show the settings as they are. */
  g_assert_cmpuint (adw_combo_row_get_selected (engine), ==, 2);
  g_assert_cmpfloat (gtk_spin_button_get_value (repeats), ==, 100);

  adw_combo_row_set_selected (style, 2);
  ks_ui_test_iterate_for (20);
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==,
                   ADW_COLOR_SCHEME_FORCE_DARK);
  adw_combo_row_set_selected (style, 0);
  ks_ui_test_iterate_for (20);
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==,
                   ADW_COLOR_SCHEME_DEFAULT);

  adw_combo_row_set_selected (launch, 1);
  defaults = g_settings_get_string (settings, "launch-defaults");
  g_assert_cmpstr (defaults, ==, "teaching");
  adw_combo_row_set_selected (engine, 0);
  start = g_settings_get_string (settings, "default-engine");
  g_assert_cmpstr (start, ==, "auto");

  gtk_spin_button_set_value (repeats, 37);
  measure = ks_timing_panel_get_repeats_adjustment (KS_TIMING_PANEL (
    gtk_widget_get_template_child (GTK_WIDGET (window), KS_TYPE_WINDOW, "timing_panel")));
  g_assert_cmpuint (g_settings_get_uint (settings, "measure-repeats"), ==, 37);
  g_assert_cmpfloat (gtk_adjustment_get_value (measure), ==, 37);

  gtk_window_destroy (GTK_WINDOW (prefs));
  ks_ui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  g_autofree char *schemas = NULL;

  g_test_init (&argc, &argv, NULL);
  schemas = ks_ui_test_use_build_schemas ();
  if (!ks_ui_test_require_display (KS_UI_TEST_ADWAITA))
    return 0;
  if (!ks_ui_test_have_build_schemas (schemas))
    return 77;

  g_test_add_func ("/ks/ui/preferences/restores-last", test_restores_last);
  g_test_add_func ("/ks/ui/preferences/corrupt-values-skipped", test_corrupt_values_skipped);
  g_test_add_func ("/ks/ui/preferences/teaching-launch", test_teaching_launch);
  g_test_add_func ("/ks/ui/preferences/rows", test_preferences_rows);
  return g_test_run ();
}
