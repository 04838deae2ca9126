/* test-preferences.c: what the window keeps between starts — the last op,
 * its parameters, launch and engine come back, a value that does not fit is
 * skipped on its own — and the preferences window's rows change the settings
 * the window follows (style, timed runs, teaching launches). Settings live in
 * GLib's memory backend, with the schema compiled in the build tree. */
#include "config.h"

#include <adwaita.h>

#include "ks-preferences-window.h"
#include "ks-timing-panel.h"
#include "ks-window-private.h"

static const char *const keys[] = { "last-op", "last-params", "last-launch", "last-engine",
                                    "restore-last", "launch-defaults", "measure-repeats",
                                    "color-scheme", "default-engine", NULL };

static void
iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
}

static GSettings *
fresh_settings (void)
{
  GSettings *settings = g_settings_new ("org.kernelscope.Kernelscope");

  for (guint i = 0; keys[i] != NULL; i++)
    g_settings_reset (settings, keys[i]);
  /* The CPU engine everywhere: the same pixels on every machine. */
  g_settings_set_string (settings, "default-engine", "cpu");
  return settings;
}

static KsWindow *
open_window (void)
{
  KsWindow *window = ks_window_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  iterate_for (100);
  return window;
}

static void
close_window (KsWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  iterate_for (50);
}

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
  g_autoptr (GSettings) settings = fresh_settings ();
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

  window = open_window ();
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
  close_window (window);
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
  g_autoptr (GSettings) settings = fresh_settings ();
  GVariantBuilder params;
  KsWindow *window;
  KsPipeline *pipeline;
  const KsOp *op;

  g_settings_set_string (settings, "last-op", "no-such-op");
  window = open_window ();
  pipeline = ks_window_get_pipeline (window);
  op = ks_pipeline_get_op (pipeline);
  g_assert_nonnull (op);
  g_assert_cmpstr (op->id, !=, "no-such-op");
  close_window (window);

  g_variant_builder_init (&params, G_VARIANT_TYPE ("a{sd}"));
  g_variant_builder_add (&params, "{sd}", "sigma", 999.0);
  g_settings_set_string (settings, "last-op", "gaussian_blur");
  g_settings_set_value (settings, "last-params", g_variant_builder_end (&params));
  g_settings_set (settings, "last-launch", "(uuuuuubbu)", 0, 8, 1, 0, 0, 0, TRUE, FALSE, 3);
  window = open_window ();
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gaussian_blur");
  g_assert_cmpfloat (param (pipeline, "sigma"), ==, 1.5);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, !=, 0);
  close_window (window);
}

/* Teaching defaults: a window that restores nothing launches one pixel per
 * thread in one pass. */
static void
test_teaching_launch (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  KsWindow *window;
  const KsLaunchConfig *l;

  g_settings_set_boolean (settings, "restore-last", FALSE);
  g_settings_set_string (settings, "launch-defaults", "teaching");
  window = open_window ();
  l = ks_pipeline_get_launch (ks_window_get_pipeline (window));
  g_assert_cmpuint (l->pixels_per_thread, ==, 1);
  g_assert_cmpint (l->mode, ==, KS_LAUNCH_PER_PIXEL);
  close_window (window);
}

/* The rows change the settings, and the window follows them at once. */
static void
test_preferences_rows (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  KsWindow *window = open_window ();
  KsPreferencesWindow *prefs;
  AdwComboRow *style, *launch, *engine;
  GtkSpinButton *repeats;
  GtkAdjustment *measure;
  g_autofree char *defaults = NULL;
  g_autofree char *start = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.preferences", NULL));
  iterate_for (50);
  prefs = ks_preferences_window_new (GTK_WINDOW (window), settings);
  gtk_window_present (GTK_WINDOW (prefs));
  iterate_for (50);
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
  iterate_for (20);
  g_assert_cmpint (adw_style_manager_get_color_scheme (adw_style_manager_get_default ()), ==,
                   ADW_COLOR_SCHEME_FORCE_DARK);
  adw_combo_row_set_selected (style, 0);
  iterate_for (20);
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
  close_window (window);
}

int
main (int argc, char *argv[])
{
  g_autofree char *schemas = NULL;

  g_test_init (&argc, &argv, NULL);
  /* The schema compiled in the build tree: build/resources. */
  schemas = g_test_build_filename (G_TEST_BUILT, "..", "resources", NULL);
  g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  if (!gtk_init_check ())
    {
      g_print ("1..0 # SKIP no display (run the ui suite under xvfb-run)\n");
      return 0;
    }
  adw_init ();
  if (!g_file_test (schemas, G_FILE_TEST_IS_DIR))
    {
      g_print ("1..0 # SKIP the compiled schema is not in %s\n", schemas);
      return 77;
    }

  g_test_add_func ("/ks/ui/preferences/restores-last", test_restores_last);
  g_test_add_func ("/ks/ui/preferences/corrupt-values-skipped", test_corrupt_values_skipped);
  g_test_add_func ("/ks/ui/preferences/teaching-launch", test_teaching_launch);
  g_test_add_func ("/ks/ui/preferences/rows", test_preferences_rows);
  return g_test_run ();
}
