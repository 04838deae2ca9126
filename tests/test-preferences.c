/* test-preferences.c: what the window takes from the settings — not its
 * last state, which only the last session keeps (test-last-session.c), but the
 * defaults a window starts from — and the preferences window's rows change
 * the settings the window follows (style, timed runs, teaching launches).
 * Settings live in GLib's memory backend, with the schema compiled in the
 * build tree. */
#include "config.h"

#include <adwaita.h>

#include "ks-preferences-window.h"
#include "ks-timing-panel.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-private.h"
#include "ks-op-registry.h"

/* What the tests set: reset before each. */
static const char *const keys[] = { "restore-last", "launch-defaults", "measure-repeats",
                                    "color-scheme", "default-engine", NULL };

static double
param (KsPipeline *pipeline, const char *name)
{
  return ks_params_get (ks_pipeline_get_params (pipeline), ks_pipeline_get_op (pipeline), name);
}

/* The last state is the last session's alone (test-last-session.c): the
 * settings have no key for it, and a window that closes leaves nothing in
 * them for the next, which starts on the default op with its own defaults. */
static void
test_no_last_state (void)
{
  static const char *const gone[] = { "last-op", "last-params", "last-launch", "last-engine" };
  g_autoptr (GSettings) settings = ks_ui_test_fresh_settings (keys);
  g_autoptr (GSettingsSchema) schema = NULL;
  const KsOp *op;
  KsParams defaults;
  KsWindow *window;
  KsPipeline *pipeline;
  KsLaunchConfig l;

  g_object_get (settings, "settings-schema", &schema, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (gone); i++)
    g_assert_false (g_settings_schema_has_key (schema, gone[i]));
  g_assert_true (g_settings_get_boolean (settings, "restore-last"));

  window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (window);
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gaussian_blur"));
  ks_pipeline_set_param (pipeline, 0, 3.5);
  l = *ks_pipeline_get_launch (pipeline);
  l.block.x = 8;
  l.block.y = 8;
  ks_pipeline_set_launch (pipeline, &l);
  ks_ui_test_close_window (window);

  window = ks_ui_test_open_window ();
  pipeline = ks_window_get_pipeline (window);
  op = ks_pipeline_get_op (pipeline);
  g_assert_nonnull (op);
  g_assert_cmpstr (op->id, ==, "invert");
  ks_params_init (&defaults, op);
  for (guint p = 0; p < op->n_params; p++)
    g_assert_cmpfloat (ks_pipeline_get_params (pipeline)->values[p], ==, defaults.values[p]);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, !=, 8);
  g_assert_false (ks_engine_is_cuda (ks_pipeline_get_engine (pipeline)));
  /* Nor does the blur's sigma of the window before come back with the op. */
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gaussian_blur"));
  g_assert_cmpfloat (param (pipeline, "sigma"), ==, 1.5);
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

  g_test_add_func ("/ks/ui/preferences/no-last-state", test_no_last_state);
  g_test_add_func ("/ks/ui/preferences/teaching-launch", test_teaching_launch);
  g_test_add_func ("/ks/ui/preferences/rows", test_preferences_rows);
  return g_test_run ();
}
