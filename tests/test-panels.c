/* The side panels on a real pipeline (the CPU engine where there is no GPU):
 * what they show and what their widgets change. Needs a display: run under
 * xvfb-run; without one the program reports a skip. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "ks-device-panel.h"
#include "ks-histogram-panel.h"
#include "ks-histogram-view.h"
#include "ks-launch-panel.h"
#include "ks-op-panel.h"
#include "ks-param-editor.h"
#include "ks-pipeline.h"
#include "ks-timing-panel.h"
#include "ks-ui-test-helpers.h"
#include "ks-op-registry.h"

/* ---- helpers ------------------------------------------------------------------ */

static KsPipeline *
new_pipeline (void)
{
  g_autoptr (GError) error = NULL;
  KsPipeline *pipeline = ks_pipeline_new ();
  g_autoptr (KsImage) a = ks_image_new (KS_FORMAT_RGBA8, 160, 96, &error);
  g_autoptr (KsImage) b = NULL;

  g_assert_no_error (error);
  b = ks_image_new (KS_FORMAT_RGBA8, 160, 96, &error);
  g_assert_no_error (error);
  ks_image_fill_random (a, 1);
  ks_image_fill_random (b, 2);
  ks_ui_test_set_input (pipeline, KS_INPUT_A, a, "random A");
  ks_ui_test_set_input (pipeline, KS_INPUT_B, b, "random B");
  ks_ui_test_settle (pipeline);
  g_assert_nonnull (ks_pipeline_get_result (pipeline));
  return pipeline;
}

/* The panel in a window of its own, presented, as the user would see it. */
static GtkWindow *
show_in_window (GtkWidget *panel)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_widget_set_margin_start (panel, 12);
  gtk_widget_set_margin_end (panel, 12);
  gtk_widget_set_margin_top (panel, 12);
  gtk_widget_set_margin_bottom (panel, 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), panel);
  gtk_window_set_child (window, scroller);
  gtk_window_set_default_size (window, 420, 600);
  ks_ui_test_present (window, panel);
  return window;
}

/* Tests may look inside the panels' templates. */
static gpointer
child (gpointer panel, GType type, const char *name)
{
  return ks_ui_test_template_child (panel, type, name);
}

static void
click (gpointer button)
{
  g_signal_emit_by_name (button, "clicked");
  ks_ui_test_iterate ();
}

/* With KS_TEST_SCREENSHOTS=dir, each panel is saved as dir/<name>.png, as
 * tall as the panel, so that the picture shows all of it. */
static void
maybe_screenshot (GtkWindow *window, const char *name)
{
  const char *dir = g_getenv ("KS_TEST_SCREENSHOTS");
  g_autofree char *file = NULL;
  GtkWidget *scroller;
  int height = 0;

  if (dir == NULL)
    return;
  scroller = gtk_window_get_child (window);
  gtk_widget_measure (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller)),
                      GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (scroller), NULL, &height,
                      NULL, NULL);
  gtk_window_set_default_size (window, gtk_widget_get_width (GTK_WIDGET (window)), height);
  file = g_strconcat (name, ".png", NULL);
  ks_ui_test_save_screenshot_in (GTK_WIDGET (window), dir, file);
}

static void
finish (GtkWindow *window, KsPipeline *pipeline)
{
  ks_ui_test_settle (pipeline);
  gtk_window_destroy (window);
  ks_ui_test_iterate ();
  /* The panels dropped their references and handlers. */
  g_assert_finalize_object (pipeline);
}

/* ---- op panel -------------------------------------------------------------------- */

static void
test_op_panel_run (void)
{
  KsPipeline *pipeline = new_pipeline ();
  KsOpPanel *panel = KS_OP_PANEL (ks_op_panel_new ());
  GtkWindow *window = show_in_window (GTK_WIDGET (panel));
  GtkWidget *params = child (panel, KS_TYPE_OP_PANEL, "params_group");
  GtkWidget *second = child (panel, KS_TYPE_OP_PANEL, "second_group");
  GtkWidget *search = child (panel, KS_TYPE_OP_PANEL, "search_entry");
  GtkWidget *sw;
  g_autoptr (GPtrArray) scales = g_ptr_array_new ();

  ks_op_panel_set_pipeline (panel, pipeline);

  /* Typing a name and Enter chooses the op, as a user would. */
  gtk_editable_set_text (GTK_EDITABLE (search), "grayscale");
  g_signal_emit_by_name (search, "activate");
  ks_ui_test_iterate ();
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gray");
  g_assert_cmpuint (ks_ui_test_count_widgets (params, GTK_TYPE_SWITCH), ==, 1);
  g_assert_cmpuint (ks_ui_test_count_widgets (params, GTK_TYPE_SCALE), ==, 0);
  g_assert_false (gtk_widget_get_visible (second));

  sw = ks_ui_test_find_widget (params, GTK_TYPE_SWITCH);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sw)));
  g_assert_cmpfloat (ks_pipeline_get_params (pipeline)->values[0], ==, 0);
  gtk_switch_set_active (GTK_SWITCH (sw), TRUE);
  ks_ui_test_iterate ();
  g_assert_cmpfloat (ks_pipeline_get_params (pipeline)->values[0], ==, 1);
  maybe_screenshot (window, "op-panel-gray");

  /* The panel follows the pipeline, too. */
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("blend"));
  ks_ui_test_iterate ();
  ks_ui_test_find_widgets (params, GTK_TYPE_SCALE, scales);
  g_assert_cmpuint (scales->len, ==, 2);
  g_assert_cmpuint (ks_ui_test_count_widgets (params, GTK_TYPE_SWITCH), ==, 0);
  g_assert_true (gtk_widget_get_visible (second));
  g_assert_cmpfloat (gtk_range_get_value (g_ptr_array_index (scales, 0)), ==, 0.5);

  gtk_range_set_value (g_ptr_array_index (scales, 1), 1.25);
  ks_ui_test_iterate ();
  g_assert_cmpfloat_with_epsilon (ks_pipeline_get_params (pipeline)->values[1], 1.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (ks_pipeline_get_params (pipeline)->values[0], 0.5, 1e-9);
  maybe_screenshot (window, "op-panel-blend");

  /* An op without parameters shows none. */
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("invert"));
  ks_ui_test_iterate ();
  g_assert_false (gtk_widget_get_visible (params));
  g_assert_cmpuint (ks_ui_test_count_widgets (params, GTK_TYPE_SCALE), ==, 0);

  finish (window, pipeline);
}

/* ---- parameter editor ------------------------------------------------------------ */

static const char *const test_choices[] = { "nearest", "linear", "cubic", NULL };
static const char *const test_choice_titles[] = { "Nearest", "Linear", "Cubic & more", NULL };

static const KsParamSpec test_specs[] = {
  { "gain", "Gain", "How much brighter", KS_PARAM_DOUBLE, 0, 4, 1.5, NULL, NULL },
  { "radius", "Radius", NULL, KS_PARAM_INT, 1, 10, 3, NULL, NULL },
  { "flip", "Flip <rows>", "Upside down", KS_PARAM_BOOL, 0, 1, 0, NULL, NULL },
  { "filter", "Filter", "Sampling", KS_PARAM_CHOICE, 0, 2, 1, test_choices, test_choice_titles },
};

typedef struct
{
  guint count;
  guint index;
  double value;
} Changes;

static void
on_editor_value_changed_cb (KsParamEditor *editor, guint index, double value, gpointer user_data)
{
  Changes *changes = user_data;

  changes->count++;
  changes->index = index;
  changes->value = value;
}

static GtkWidget *
only_descendant (GtkWidget *widget, GType type)
{
  g_assert_cmpuint (ks_ui_test_count_widgets (widget, type), ==, 1);
  return ks_ui_test_find_widget (widget, type);
}

static void
test_param_editor_run (void)
{
  KsParamEditor *editor = KS_PARAM_EDITOR (ks_param_editor_new ());
  GtkWidget *widget = GTK_WIDGET (editor);
  GtkWindow *window = show_in_window (widget);
  KsParams values = { { 0.25, 7, 1, 2 } };
  Changes changes = { 0 };
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  GtkWidget *scale, *spin, *sw, *drop, *label = NULL;
  KsParamSpec changed[G_N_ELEMENTS (test_specs)];

  g_signal_connect (editor, "value-changed", G_CALLBACK (on_editor_value_changed_cb), &changes);

  /* One row per spec, titled and described as the spec says, showing its default. */
  ks_param_editor_set_specs (editor, test_specs, G_N_ELEMENTS (test_specs));
  ks_ui_test_iterate ();
  g_assert_cmpuint (ks_param_editor_get_n_specs (editor), ==, 4);
  ks_ui_test_find_widgets (widget, ADW_TYPE_ACTION_ROW, rows);
  g_assert_cmpuint (rows->len, ==, 4);
  g_assert_cmpstr (adw_preferences_row_get_title (g_ptr_array_index (rows, 0)), ==, "Gain");
  g_assert_cmpstr (adw_action_row_get_subtitle (g_ptr_array_index (rows, 0)), ==,
                   "How much brighter");
  /* Titles are plain text, escaped for the row's markup. */
  g_assert_cmpstr (adw_preferences_row_get_title (g_ptr_array_index (rows, 2)), ==,
                   "Flip &lt;rows&gt;");

  scale = only_descendant (widget, GTK_TYPE_SCALE);
  spin = only_descendant (widget, GTK_TYPE_SPIN_BUTTON);
  sw = only_descendant (widget, GTK_TYPE_SWITCH);
  drop = only_descendant (widget, GTK_TYPE_DROP_DOWN);
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==, 1.5);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)), ==, 3);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sw)));
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (drop)), ==, 1);
  g_assert_cmpstr (gtk_string_list_get_string (
                     GTK_STRING_LIST (gtk_drop_down_get_model (GTK_DROP_DOWN (drop))), 2),
                   ==, "Cubic & more");
  /* 0..4: steps of a hundredth; the value beside the slider, as the command line writes it. */
  g_assert_cmpint (gtk_scale_get_digits (GTK_SCALE (scale)), ==, 2);
  for (GtkWidget *w = gtk_widget_get_next_sibling (scale); w != NULL && label == NULL;
       w = gtk_widget_get_next_sibling (w))
    if (GTK_IS_LABEL (w))
      label = w;
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==, "1.5");
  g_assert_cmpuint (changes.count, ==, 0);

  /* Values from the model move the widgets without coming back as changes. */
  ks_param_editor_set_values (editor, &values);
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==, 0.25);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==, "0.25");
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin)), ==, 7);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (sw)));
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (drop)), ==, 2);
  g_assert_cmpuint (changes.count, ==, 0);

  /* The user's changes come out with the parameter's index. */
  gtk_range_set_value (GTK_RANGE (scale), 3.5);
  g_assert_cmpuint (changes.count, ==, 1);
  g_assert_cmpuint (changes.index, ==, 0);
  g_assert_cmpfloat (changes.value, ==, 3.5);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==, "3.5");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 9);
  g_assert_cmpuint (changes.count, ==, 2);
  g_assert_cmpuint (changes.index, ==, 1);
  g_assert_cmpfloat (changes.value, ==, 9);
  gtk_switch_set_active (GTK_SWITCH (sw), FALSE);
  g_assert_cmpuint (changes.count, ==, 3);
  g_assert_cmpuint (changes.index, ==, 2);
  g_assert_cmpfloat (changes.value, ==, 0);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (drop), 0);
  g_assert_cmpuint (changes.count, ==, 4);
  g_assert_cmpuint (changes.index, ==, 3);
  g_assert_cmpfloat (changes.value, ==, 0);
  maybe_screenshot (window, "param-editor");

  /* The same specs keep their widgets (a recompile while dragging); others replace them. */
  ks_param_editor_set_specs (editor, test_specs, G_N_ELEMENTS (test_specs));
  g_assert_true (ks_ui_test_find_widget (widget, GTK_TYPE_SCALE) == scale);
  memcpy (changed, test_specs, sizeof changed);
  changed[0].max = 40;
  ks_param_editor_set_specs (editor, changed, G_N_ELEMENTS (changed));
  g_assert_true (ks_ui_test_find_widget (widget, GTK_TYPE_SCALE) != scale);
  scale = only_descendant (widget, GTK_TYPE_SCALE);
  g_assert_cmpint (gtk_scale_get_digits (GTK_SCALE (scale)), ==, 1);
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==, 1.5);
  g_assert_cmpuint (changes.count, ==, 4);

  /* A kernel's rows name the parameter as its source does. */
  ks_param_editor_set_show_names (editor, TRUE);
  g_ptr_array_set_size (rows, 0);
  ks_ui_test_find_widgets (widget, ADW_TYPE_ACTION_ROW, rows);
  g_assert_cmpstr (adw_action_row_get_subtitle (g_ptr_array_index (rows, 0)), ==, "gain");
  g_assert_cmpstr (adw_action_row_get_subtitle (g_ptr_array_index (rows, 1)), ==, "radius");

  ks_param_editor_set_specs (editor, NULL, 0);
  g_assert_cmpuint (ks_param_editor_get_n_specs (editor), ==, 0);
  g_assert_cmpuint (ks_ui_test_count_widgets (widget, ADW_TYPE_ACTION_ROW), ==, 0);

  g_object_ref (editor);
  gtk_window_destroy (window);
  ks_ui_test_iterate ();
  g_assert_finalize_object (editor);
}

/* ---- launch panel ---------------------------------------------------------------- */

static void
test_launch_panel_run (void)
{
  KsPipeline *pipeline = new_pipeline ();
  KsLaunchPanel *panel = KS_LAUNCH_PANEL (ks_launch_panel_new ());
  GtkWindow *window = show_in_window (GTK_WIDGET (panel));
  GtkWidget *error_box = child (panel, KS_TYPE_LAUNCH_PANEL, "error_box");
  GtkLabel *error_label = child (panel, KS_TYPE_LAUNCH_PANEL, "error_label");
  GtkSpinButton *block_x = child (panel, KS_TYPE_LAUNCH_PANEL, "block_x_spin");
  GtkSpinButton *block_y = child (panel, KS_TYPE_LAUNCH_PANEL, "block_y_spin");
  GtkSpinButton *grid_x = child (panel, KS_TYPE_LAUNCH_PANEL, "grid_x_spin");
  GtkSpinButton *grid_y = child (panel, KS_TYPE_LAUNCH_PANEL, "grid_y_spin");
  GtkSwitch *auto_grid = child (panel, KS_TYPE_LAUNCH_PANEL, "auto_grid_switch");
  AdwActionRow *threads_row = child (panel, KS_TYPE_LAUNCH_PANEL, "threads_row");
  const KsLaunchConfig *launch;

  ks_launch_panel_set_pipeline (panel, pipeline);
  ks_ui_test_iterate ();
  g_assert_false (gtk_widget_get_visible (error_box));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (threads_row), "0 pixels unreached"));

  /* 64 × 32 = 2048 threads: more than a block may have. */
  gtk_spin_button_set_value (block_x, 64);
  gtk_spin_button_set_value (block_y, 32);
  ks_ui_test_iterate ();
  g_assert_false (ks_pipeline_get_validation (pipeline, NULL, NULL));
  g_assert_true (gtk_widget_get_visible (error_box));
  g_assert_nonnull (strstr (gtk_label_get_label (error_label), "1024"));
  maybe_screenshot (window, "launch-panel-invalid");

  click (child (panel, KS_TYPE_LAUNCH_PANEL, "fix_button"));
  g_assert_true (ks_pipeline_get_validation (pipeline, NULL, NULL));
  g_assert_false (gtk_widget_get_visible (error_box));
  launch = ks_pipeline_get_launch (pipeline);
  g_assert_cmpuint (launch->block.x * launch->block.y * launch->block.z, <=, 1024);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (block_x), ==, launch->block.x);

  /* Presets set the block. */
  gtk_widget_activate_action (GTK_WIDGET (panel), "launch.preset", "s", "16x16");
  ks_ui_test_iterate ();
  launch = ks_pipeline_get_launch (pipeline);
  g_assert_cmpuint (launch->block.x, ==, 16);
  g_assert_cmpuint (launch->block.y, ==, 16);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (block_y), ==, 16);

  /* The automatic grid shows what runs: 160 × 96 pixels in 16 × 16 blocks. */
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (grid_x)));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (grid_x), ==,
                   ks_pipeline_get_resolved_launch (pipeline)->grid.x);

  /* A grid too small leaves pixels out, and the panel says so. */
  gtk_switch_set_active (auto_grid, FALSE);
  ks_ui_test_iterate ();
  g_assert_false (ks_pipeline_get_launch (pipeline)->auto_grid);
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (grid_x)));
  gtk_spin_button_set_value (grid_x, 1);
  gtk_spin_button_set_value (grid_y, 1);
  ks_ui_test_iterate ();
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->grid.x, ==, 1);
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (threads_row), "the grid is too small"));
  maybe_screenshot (window, "launch-panel");

  finish (window, pipeline);
}

/* ---- device panel ------------------------------------------------------------------ */

static gboolean
has_row_titled (GtkWidget *root, const char *title)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();

  ks_ui_test_find_widgets (root, ADW_TYPE_ACTION_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    if (g_strcmp0 (adw_preferences_row_get_title (g_ptr_array_index (rows, i)), title) == 0)
      return TRUE;
  return FALSE;
}

static void
test_device_panel_run (void)
{
  KsPipeline *pipeline = new_pipeline ();
  KsDevicePanel *panel = KS_DEVICE_PANEL (ks_device_panel_new ());
  GtkWindow *window = show_in_window (GTK_WIDGET (panel));
  GtkWidget *properties_box = child (panel, KS_TYPE_DEVICE_PANEL, "properties_box");
  GtkDropDown *dropdown = child (panel, KS_TYPE_DEVICE_PANEL, "device_dropdown");
  AdwActionRow *renderer_row = child (panel, KS_TYPE_DEVICE_PANEL, "gl_renderer_row");
  GtkWidget *reason_box = child (panel, KS_TYPE_DEVICE_PANEL, "cpu_reason_box");
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GAsyncResult) switched = NULL;
  const GArray *props;

  ks_device_panel_set_pipeline (panel, pipeline);

  /* On the CPU engine (always available), every property is listed. */
  ks_pipeline_set_device_async (pipeline, cpu, NULL, ks_ui_test_on_done_cb, &switched);
  g_assert_true (ks_pipeline_set_device_finish (pipeline, ks_ui_test_wait_for_result (&switched),
                                                &error));
  g_assert_no_error (error);
  /* The result holds its source, the pipeline, which must go at the end. */
  g_clear_object (&switched);
  ks_ui_test_settle (pipeline);
  g_assert_true (gtk_drop_down_get_selected_item (dropdown) == (gpointer) cpu);
  props = ks_device_get_properties (cpu);
  g_assert_cmpuint (props->len, >, 0);
  for (guint i = 0; i < props->len; i++)
    {
      const KsDeviceProperty *prop = &g_array_index (props, KsDeviceProperty, i);
      g_assert_true (has_row_titled (properties_box, prop->label));
    }
  g_assert_cmpuint (ks_ui_test_count_widgets (properties_box, ADW_TYPE_PREFERENCES_GROUP), >=, 2);

  g_assert_cmpint (gtk_widget_get_visible (reason_box), ==,
                   ks_pipeline_get_cpu_reason (pipeline) != NULL);
  if (ks_pipeline_get_cpu_reason (pipeline) != NULL)
    g_assert_true (g_str_has_prefix (gtk_label_get_label (child (panel, KS_TYPE_DEVICE_PANEL,
                                                                 "cpu_reason_label")),
                                     "Running on the CPU engine: "));

  ks_device_panel_set_display_info (panel, "llvmpipe (LLVM 15.0.6, 256 bits)",
                                    "Not used: results come from the CPU engine");
  g_assert_cmpstr (adw_action_row_get_subtitle (renderer_row), ==,
                   "llvmpipe (LLVM 15.0.6, 256 bits)");
  maybe_screenshot (window, "device-panel");

  finish (window, pipeline);
}

/* ---- timing panel --------------------------------------------------------------------- */

static void
test_timing_panel_run (void)
{
  KsPipeline *pipeline = new_pipeline ();
  KsTimingPanel *panel = KS_TIMING_PANEL (ks_timing_panel_new ());
  GtkWindow *window = show_in_window (GTK_WIDGET (panel));
  GtkLabel *median = child (panel, KS_TYPE_TIMING_PANEL, "median_label");
  GtkLabel *kernel = child (panel, KS_TYPE_TIMING_PANEL, "kernel_label");
  GtkWidget *measure_group = child (panel, KS_TYPE_TIMING_PANEL, "measure_group");
  GtkWidget *compare_group = child (panel, KS_TYPE_TIMING_PANEL, "compare_group");
  AdwActionRow *identical_row = child (panel, KS_TYPE_TIMING_PANEL, "identical_row");
  GtkSpinButton *repeats = child (panel, KS_TYPE_TIMING_PANEL, "repeats_spin");
  GtkProgressBar *progress = child (panel, KS_TYPE_TIMING_PANEL, "progress_bar");
  GtkButton *cancel = child (panel, KS_TYPE_TIMING_PANEL, "cancel_button");
  GtkWidget *fps_row = child (panel, KS_TYPE_TIMING_PANEL, "fps_row");
  GtkLabel *fps_label = child (panel, KS_TYPE_TIMING_PANEL, "fps_label");

  ks_timing_panel_set_pipeline (panel, pipeline);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (repeats), ==, 100);
  g_assert_true (g_str_has_suffix (gtk_label_get_label (kernel), " ms"));

  gtk_spin_button_set_value (repeats, 10);
  g_assert_false (gtk_widget_get_visible (measure_group));
  g_assert_cmpstr (gtk_label_get_label (median), ==, "");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (progress)));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (cancel)));
  click (child (panel, KS_TYPE_TIMING_PANEL, "measure_button"));
  ks_ui_test_settle (pipeline);
  g_assert_true (gtk_widget_get_visible (measure_group));
  g_assert_true (g_str_has_suffix (gtk_label_get_label (median), " ms"));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (cancel)));

  click (child (panel, KS_TYPE_TIMING_PANEL, "compare_button"));
  ks_ui_test_settle (pipeline);
  g_assert_true (gtk_widget_get_visible (compare_group));
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (identical_row), "Yes"));
  maybe_screenshot (window, "timing-panel");

  /* The frame rate shows only while frames are being produced. */
  ks_pipeline_set_fps (pipeline, 30);
  ks_ui_test_iterate ();
  g_assert_true (gtk_widget_get_visible (fps_row));
  g_assert_cmpstr (gtk_label_get_label (fps_label), ==, "30.0");
  ks_pipeline_set_fps (pipeline, 0);
  ks_ui_test_iterate ();
  g_assert_false (gtk_widget_get_visible (fps_row));

  /* A new configuration makes the old measurement stale. */
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gray"));
  ks_ui_test_settle (pipeline);
  g_assert_false (gtk_widget_get_visible (measure_group));

  finish (window, pipeline);
}

/* ---- histogram panel ---------------------------------------------------------------------- */

static void
test_histogram_panel_run (void)
{
  KsPipeline *pipeline = new_pipeline ();
  KsHistogramPanel *panel = KS_HISTOGRAM_PANEL (ks_histogram_panel_new ());
  GtkWindow *window = show_in_window (GTK_WIDGET (panel));
  KsHistogramView *input_view = child (panel, KS_TYPE_HISTOGRAM_PANEL, "input_view");
  KsHistogramView *output_view = child (panel, KS_TYPE_HISTOGRAM_PANEL, "output_view");
  GtkLabel *input_stats = child (panel, KS_TYPE_HISTOGRAM_PANEL, "input_stats_label");
  const gsize size = 4 * 256 * sizeof (guint32);

  ks_histogram_panel_set_pipeline (panel, pipeline);
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("invert"));
  ks_ui_test_settle (pipeline);

  g_assert_nonnull (ks_histogram_view_get_bins (input_view));
  g_assert_nonnull (ks_pipeline_get_input_histogram (pipeline));
  g_assert_cmpmem (ks_histogram_view_get_bins (input_view), size,
                   ks_pipeline_get_input_histogram (pipeline), size);
  g_assert_cmpmem (ks_histogram_view_get_bins (output_view), size,
                   ks_pipeline_get_output_histogram (pipeline), size);
  /* Inverting mirrors the red histogram: the panel shows the new output. */
  g_assert_cmpuint (ks_histogram_view_get_bins (output_view)[0 * 256 + 255], ==,
                    ks_histogram_view_get_bins (input_view)[0 * 256 + 0]);
  g_assert_true (g_str_has_prefix (gtk_label_get_label (input_stats), "Red: mean "));

  gtk_toggle_button_set_active (child (panel, KS_TYPE_HISTOGRAM_PANEL, "red_toggle"), FALSE);
  g_assert_cmpuint (ks_histogram_view_get_channels (input_view) & KS_HISTOGRAM_RED, ==, 0);
  g_assert_cmpuint (ks_histogram_view_get_channels (output_view),
                    ==, KS_HISTOGRAM_GREEN | KS_HISTOGRAM_BLUE | KS_HISTOGRAM_LUMA);
  g_assert_true (g_str_has_prefix (gtk_label_get_label (input_stats), "Green: mean "));

  gtk_switch_set_active (child (panel, KS_TYPE_HISTOGRAM_PANEL, "log_switch"), TRUE);
  g_assert_true (ks_histogram_view_get_log_scale (input_view));
  g_assert_true (ks_histogram_view_get_log_scale (output_view));
  maybe_screenshot (window, "histogram-panel");

  finish (window, pipeline);
}

static void
test_op_panel (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_op_panel_run ();
}

static void
test_param_editor (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_param_editor_run ();
}

static void
test_launch_panel (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_launch_panel_run ();
}

static void
test_device_panel (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_device_panel_run ();
}

static void
test_timing_panel (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_timing_panel_run ();
}

static void
test_histogram_panel (void)
{
  if (!ks_ui_test_skip_without_display ())
    test_histogram_panel_run ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ks_ui_test_init_display (KS_UI_TEST_ADWAITA);

  g_test_add_func ("/ks/ui/panels/op", test_op_panel);
  g_test_add_func ("/ks/ui/panels/param-editor", test_param_editor);
  g_test_add_func ("/ks/ui/panels/launch", test_launch_panel);
  g_test_add_func ("/ks/ui/panels/device", test_device_panel);
  g_test_add_func ("/ks/ui/panels/timing", test_timing_panel);
  g_test_add_func ("/ks/ui/panels/histogram", test_histogram_panel);
  return g_test_run ();
}
