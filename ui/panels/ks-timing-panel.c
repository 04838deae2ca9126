#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <adwaita.h>

#include "ks-timing-chart.h"
#include "ks-timing-panel.h"
#include "ks-ui-util.h"

struct _KsTimingPanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkLabel *engine_label;
  GtkLabel *upload_label;
  GtkLabel *warmup_label;
  GtkLabel *kernel_label;
  GtkWidget *download_row;
  GtkLabel *download_label;
  GtkLabel *display_label;
  AdwActionRow *bandwidth_row;
  GtkLevelBar *bandwidth_bar;
  GtkWidget *fps_row;
  GtkLabel *fps_label;
  KsTimingChart *chart;
  GtkSpinButton *repeats_spin;
  GtkButton *measure_button;
  GtkButton *compare_button;
  GtkProgressBar *progress_bar;
  GtkButton *cancel_button;
  GtkLabel *error_label;
  GtkWidget *measure_group;
  GtkLabel *median_label;
  GtkLabel *spread_label;
  GtkLabel *range_label;
  GtkLabel *warmup_time_label;
  GtkWidget *compare_group;
  AdwActionRow *current_row;
  GtkLabel *current_label;
  GtkLabel *cpu_label;
  AdwActionRow *ratio_row;
  AdwActionRow *identical_row;

  /* owned references */
  GCancellable *cancellable;        /* the Measure or Compare running, or NULL */
  GtkFileChooserNative *export_dialog;
  gboolean export_json;
};

G_DEFINE_FINAL_TYPE (KsTimingPanel, ks_timing_panel, KS_TYPE_PANEL)

enum
{
  SIGNAL_ERROR,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- formatting ------------------------------------------------------------------ */

static void
set_ms (GtkLabel *label, double ms)
{
  g_autofree char *text = ks_ui_format_ms (ms);
  gtk_label_set_label (label, text);
}

static char *
describe_engine (KsEngine *engine)
{
  KsDevice *device;

  if (engine == NULL)
    return g_strdup (_("None"));
  device = ks_engine_get_device (engine);
  if (ks_engine_is_cuda (engine))
    return g_strdup_printf (_("CUDA on %s"), ks_device_get_name (device));
  return g_strdup_printf (ngettext ("CPU engine, %u thread", "CPU engine, %u threads",
                                    ks_engine_get_n_workers (engine)),
                          ks_engine_get_n_workers (engine));
}

static void
show_error (KsTimingPanel *self, const char *message)
{
  gtk_label_set_label (self->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, message);
}

/* ---- the last run ----------------------------------------------------------------- */

static void
update_last_run (KsTimingPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  KsStageTimes times = { -1, -1, -1 };
  double display_ms = -1;
  const KsRunResult *result = ks_pipeline_get_result (pipeline);
  KsEngine *engine = ks_pipeline_get_engine (pipeline);
  KsDevice *device = ks_pipeline_get_device (pipeline);
  double gbs = ks_pipeline_get_achieved_gbs (pipeline);
  double peak = device != NULL ? ks_device_get_peak_bandwidth_gbs (device) : 0;
  g_autofree char *engine_text = describe_engine (engine);
  g_autofree char *bandwidth = NULL;

  gtk_label_set_label (self->engine_label, engine_text);

  ks_pipeline_get_stage_times (pipeline, &times, &display_ms);
  set_ms (self->upload_label, times.upload_ms);
  set_ms (self->kernel_label, times.kernel_ms);
  set_ms (self->download_label, times.download_ms);
  gtk_widget_set_visible (self->download_row, times.download_ms >= 0);
  set_ms (self->display_label, display_ms);
  gtk_widget_set_visible (GTK_WIDGET (self->warmup_label), result != NULL && result->warmup);

  if (gbs <= 0)
    bandwidth = g_strdup ("—");
  else if (peak > 0)
    bandwidth = g_strdup_printf (_("%.1f GB/s of the device’s %.0f GB/s peak (%.0f %%)"), gbs,
                                 peak, 100.0 * gbs / peak);
  else
    bandwidth = g_strdup_printf (_("%.1f GB/s (this device has no known peak)"), gbs);
  adw_action_row_set_subtitle (self->bandwidth_row, bandwidth);
  gtk_widget_set_visible (GTK_WIDGET (self->bandwidth_bar), peak > 0);
  gtk_level_bar_set_value (self->bandwidth_bar, peak > 0 ? CLAMP (gbs / peak, 0, 1) : 0);
}

static gboolean
fps_visible_cb (gpointer instance, double fps)
{
  return fps > 0;
}

static char *
format_fps_cb (gpointer instance, double fps)
{
  return fps > 0 ? g_strdup_printf ("%.1f", fps) : g_strdup ("—");
}

static void
on_ran_cb (KsPipeline *pipeline, KsTimingPanel *self)
{
  update_last_run (self);
  ks_timing_chart_set_samples (self->chart, ks_pipeline_get_history (pipeline));
}

static void
on_config_changed_cb (KsPipeline *pipeline, KsTimingPanel *self)
{
  /* Earlier measurements belong to another configuration. */
  gtk_widget_set_visible (self->measure_group, FALSE);
  gtk_widget_set_visible (self->compare_group, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  update_last_run (self);
}

static void
on_device_lost_cb (KsPipeline *pipeline, const char *reason, KsTimingPanel *self)
{
  on_config_changed_cb (pipeline, self);
}

static void
update_sensitivity (KsTimingPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  gboolean have = pipeline != NULL;
  gboolean busy = have && ks_pipeline_get_busy (pipeline);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timing.measure", have && !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timing.compare", have && !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timing.cancel", busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "timing.export", have);
}

static void
on_busy_changed_cb (KsPipeline *pipeline, GParamSpec *pspec, KsTimingPanel *self)
{
  update_sensitivity (self);
}

/* ---- Measure and Compare, on the pipeline's worker ---------------------------------- */

static void
end_long_work (KsTimingPanel *self, gboolean comparison, GError *error)
{
  g_clear_object (&self->cancellable);
  if (error == NULL)
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      gtk_label_set_label (self->error_label, _("Cancelled: the runs made so far are discarded"));
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
    }
  else
    {
      g_autofree char *message = g_strdup_printf (comparison ? _("The comparison failed: %s")
                                                             : _("The measurement failed: %s"),
                                                  error->message);
      show_error (self, message);
    }
}

static void
on_measured_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsTimingPanel) self = user_data;
  g_autoptr (GError) error = NULL;
  KsTiming timing = { 0 };
  g_autofree char *median = NULL;
  g_autofree char *spread = NULL;
  g_autofree char *min = NULL;
  g_autofree char *max = NULL;
  g_autofree char *range = NULL;
  gboolean ok = ks_pipeline_measure_finish (KS_PIPELINE (object), result, &timing, &error);

  end_long_work (self, FALSE, error);
  if (ok && KS_PIPELINE (object) == ks_panel_get_pipeline (KS_PANEL (self)))
    {
      median = ks_ui_format_ms (timing.median_ms);
      spread = ks_ui_format_ms (timing.mad_ms);
      min = ks_ui_format_ms (timing.min_ms);
      max = ks_ui_format_ms (timing.max_ms);
      range = g_strdup_printf (_("%s to %s"), min, max);
      gtk_label_set_label (self->median_label, median);
      gtk_label_set_label (self->spread_label, spread);
      gtk_label_set_label (self->range_label, range);
      set_ms (self->warmup_time_label, timing.warmup_ms);
    }
  gtk_widget_set_visible (self->measure_group, ok);
  ks_timing_clear (&timing);
}

static void
begin_long_work (KsTimingPanel *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

static void
measure_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsTimingPanel *self = KS_TIMING_PANEL (widget);
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  guint repeats = gtk_spin_button_get_value_as_int (self->repeats_spin);

  if (pipeline == NULL)
    return;
  begin_long_work (self);
  ks_pipeline_measure_async (pipeline, repeats, self->cancellable, on_measured_cb,
                             g_object_ref (self));
}

static char *
describe_ratio (KsEngine *engine, const KsTiming *current, const KsTiming *cpu)
{
  if (engine == NULL || !ks_engine_is_cuda (engine))
    return g_strdup (_("Both ran on the CPU engine; choose a GPU in the device panel to "
                       "compare"));
  if (current->median_ms <= 0 || cpu->median_ms <= 0)
    return g_strdup (_("Too fast to compare"));
  if (cpu->median_ms >= current->median_ms)
    return g_strdup_printf (_("The GPU is %.1f× faster than the CPU"),
                            cpu->median_ms / current->median_ms);
  return g_strdup_printf (_("The GPU is %.1f× slower than the CPU"),
                          current->median_ms / cpu->median_ms);
}

static void
on_compared_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsTimingPanel) self = user_data;
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  g_autoptr (GError) error = NULL;
  KsTiming current = { 0 };
  KsTiming cpu = { 0 };
  gboolean identical = FALSE;
  gboolean ok = ks_pipeline_compare_finish (KS_PIPELINE (object), result, &current, &cpu,
                                            &identical, &error);

  end_long_work (self, TRUE, error);
  if (ok && KS_PIPELINE (object) == pipeline)
    {
      KsEngine *engine = ks_pipeline_get_engine (pipeline);
      g_autofree char *engine_text = describe_engine (engine);
      g_autofree char *ratio = describe_ratio (engine, &current, &cpu);

      adw_action_row_set_subtitle (self->current_row, engine_text);
      set_ms (self->current_label, current.median_ms);
      set_ms (self->cpu_label, cpu.median_ms);
      adw_action_row_set_subtitle (self->ratio_row, ratio);
      adw_action_row_set_subtitle (self->identical_row,
                                   identical ? _("Yes, every value matches")
                                             : _("No, the outputs differ"));
    }
  gtk_widget_set_visible (self->compare_group, ok);
  ks_timing_clear (&current);
  ks_timing_clear (&cpu);
}

static void
compare_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsTimingPanel *self = KS_TIMING_PANEL (widget);
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  guint repeats = gtk_spin_button_get_value_as_int (self->repeats_spin);

  if (pipeline == NULL)
    return;
  begin_long_work (self);
  ks_pipeline_compare_async (pipeline, repeats, self->cancellable, on_compared_cb,
                             g_object_ref (self));
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_cancellable_cancel (KS_TIMING_PANEL (widget)->cancellable);
}

static void
on_export_response_cb (GtkNativeDialog *dialog, int response, KsTimingPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;

  if (response == GTK_RESPONSE_ACCEPT && pipeline != NULL)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

  if (file != NULL)
    {
      contents = ks_pipeline_export_timings (pipeline, self->export_json);
      if (contents == NULL)
        show_error (self, _("There are no timings to export yet"));
      else if (!g_file_replace_contents (file, contents, strlen (contents), NULL, FALSE,
                                         G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, &error))
        {
          g_autofree char *message = g_strdup_printf (_("Could not save the timings: %s"),
                                                      error->message);
          show_error (self, message);
        }
    }

  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->export_dialog);
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsTimingPanel *self = KS_TIMING_PANEL (widget);
  gboolean json = g_str_equal (g_variant_get_string (parameter, NULL), "json");
  GtkRoot *root = gtk_widget_get_root (widget);

  if (ks_panel_get_pipeline (KS_PANEL (self)) == NULL)
    return;
  if (self->export_dialog != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_dialog));
  g_clear_object (&self->export_dialog);

  self->export_json = json;
  self->export_dialog = ks_ui_export_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                 json ? _("Export Timings as JSON")
                                                      : _("Export Timings as CSV"),
                                                 json ? "kernelscope-timings.json"
                                                      : "kernelscope-timings.csv",
                                                 json);
  g_signal_connect_object (self->export_dialog, "response", G_CALLBACK (on_export_response_cb),
                           self, G_CONNECT_DEFAULT);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_dialog));
}

/* ---- public ------------------------------------------------------------------------------ */

static void
ks_timing_panel_pipeline_changed (KsPanel *panel, KsPipeline *old_pipeline,
                                  KsPipeline *pipeline)
{
  KsTimingPanel *self = KS_TIMING_PANEL (panel);

  /* A measurement of the previous pipeline is of no use here. */
  g_cancellable_cancel (self->cancellable);

  gtk_widget_set_visible (self->measure_group, FALSE);
  gtk_widget_set_visible (self->compare_group, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  update_sensitivity (self);

  if (pipeline != NULL)
    on_ran_cb (pipeline, self);
  else
    {
      g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (KsTimingSample));
      ks_timing_chart_set_samples (self->chart, none);
    }
}

void
ks_timing_panel_set_pipeline (KsTimingPanel *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_TIMING_PANEL (self));
  ks_panel_set_pipeline (KS_PANEL (self), pipeline);
}

GtkAdjustment *
ks_timing_panel_get_repeats_adjustment (KsTimingPanel *self)
{
  g_return_val_if_fail (KS_IS_TIMING_PANEL (self), NULL);
  return gtk_spin_button_get_adjustment (self->repeats_spin);
}

GtkWidget *
ks_timing_panel_new (void)
{
  return g_object_new (KS_TYPE_TIMING_PANEL, NULL);
}

/* ---- GObject --------------------------------------------------------------------------------- */

static void
ks_timing_panel_dispose (GObject *object)
{
  KsTimingPanel *self = KS_TIMING_PANEL (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->export_dialog != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->export_dialog, self);
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_dialog));
      g_clear_object (&self->export_dialog);
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_TIMING_PANEL);

  G_OBJECT_CLASS (ks_timing_panel_parent_class)->dispose (object);
}

static void
ks_timing_panel_class_init (KsTimingPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  KsPanelClass *panel_class = KS_PANEL_CLASS (klass);

  object_class->dispose = ks_timing_panel_dispose;
  panel_class->pipeline_changed = ks_timing_panel_pipeline_changed;

  signals[SIGNAL_ERROR] =
    g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "timing.measure", NULL, measure_action);
  gtk_widget_class_install_action (widget_class, "timing.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "timing.cancel", NULL, cancel_action);
  /* "timing.export" takes "csv" or "json". */
  gtk_widget_class_install_action (widget_class, "timing.export", "s", export_action);

  g_type_ensure (KS_TYPE_TIMING_CHART);
  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-timing-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, engine_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, upload_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, warmup_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, kernel_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, download_row);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, download_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, display_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, bandwidth_row);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, bandwidth_bar);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, fps_row);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, fps_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, chart);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, repeats_spin);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, measure_button);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, compare_button);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, error_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, measure_group);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, median_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, spread_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, range_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, warmup_time_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, compare_group);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, current_row);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, current_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, cpu_label);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, ratio_row);
  gtk_widget_class_bind_template_child (widget_class, KsTimingPanel, identical_row);

  gtk_widget_class_bind_template_callback (widget_class, fps_visible_cb);
  gtk_widget_class_bind_template_callback (widget_class, format_fps_cb);

}

static void
ks_timing_panel_init (KsTimingPanel *self)
{
  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "ran", G_CALLBACK (on_ran_cb), self,
                                 G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "config-changed",
                                 G_CALLBACK (on_config_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "inputs-changed",
                                 G_CALLBACK (on_config_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "device-lost",
                                 G_CALLBACK (on_device_lost_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "notify::busy",
                                 G_CALLBACK (on_busy_changed_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));
  update_sensitivity (self);
}
