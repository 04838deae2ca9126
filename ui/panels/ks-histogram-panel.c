#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>

#include "ks-histogram-panel.h"
#include "ks-histogram-view.h"

struct _KsHistogramPanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkToggleButton *red_toggle;
  GtkToggleButton *green_toggle;
  GtkToggleButton *blue_toggle;
  GtkToggleButton *luma_toggle;
  GtkSwitch *log_switch;
  KsHistogramView *input_view;
  GtkLabel *input_stats_label;
  AdwPreferencesGroup *output_group;
  KsHistogramView *output_view;
  GtkLabel *output_stats_label;

  /* owned references */
};

G_DEFINE_FINAL_TYPE (KsHistogramPanel, ks_histogram_panel, KS_TYPE_PANEL)

static const char *const channel_names[] = { N_("Red"), N_("Green"), N_("Blue"), N_("Luma") };

static guint
shown_channels (KsHistogramPanel *self)
{
  guint channels = 0;

  if (gtk_toggle_button_get_active (self->red_toggle))
    channels |= KS_HISTOGRAM_RED;
  if (gtk_toggle_button_get_active (self->green_toggle))
    channels |= KS_HISTOGRAM_GREEN;
  if (gtk_toggle_button_get_active (self->blue_toggle))
    channels |= KS_HISTOGRAM_BLUE;
  if (gtk_toggle_button_get_active (self->luma_toggle))
    channels |= KS_HISTOGRAM_LUMA;
  return channels;
}

/* One line per shown channel: "Red   mean 127.4 · median 128 · 0 to 255". */
static void
update_stats (KsHistogramPanel *self, GtkLabel *label, const guint32 *bins)
{
  guint channels = shown_channels (self);
  g_autoptr (GString) text = g_string_new (NULL);

  if (bins == NULL)
    {
      gtk_label_set_label (label, _("No histogram yet"));
      return;
    }
  if (channels == 0)
    {
      gtk_label_set_label (label, _("Choose a channel above to see its statistics"));
      return;
    }

  for (guint c = 0; c < G_N_ELEMENTS (channel_names); c++)
    {
      double mean;
      guint median, min, max;

      if ((channels & (1u << c)) == 0)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      if (ks_histogram_stats (bins, c, &mean, &median, &min, &max))
        g_string_append_printf (text, _("%s: mean %.1f · median %u · %u to %u"),
                                _(channel_names[c]), mean, median, min, max);
      else
        g_string_append_printf (text, _("%s: no pixels"), _(channel_names[c]));
    }
  gtk_label_set_label (label, text->str);
}

static void
update_histograms (KsHistogramPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const guint32 *input = NULL;
  const guint32 *output = NULL;
  const KsOp *op = NULL;

  if (pipeline != NULL)
    {
      input = ks_pipeline_get_input_histogram (pipeline);
      output = ks_pipeline_get_output_histogram (pipeline);
      op = ks_pipeline_get_op (pipeline);
    }

  ks_histogram_view_set_bins (self->input_view, input);
  ks_histogram_view_set_bins (self->output_view, output);
  update_stats (self, self->input_stats_label, input);
  update_stats (self, self->output_stats_label, output);

  adw_preferences_group_set_description (self->output_group,
                                         op != NULL && op->output_kind == KS_OP_OUTPUT_HISTOGRAM
                                           ? _("Counted by the operation’s own histogram kernel")
                                           : NULL);
}

static void
on_channel_toggled_cb (GtkToggleButton *button, KsHistogramPanel *self)
{
  guint channels = shown_channels (self);
  const guint32 *input = ks_histogram_view_get_bins (self->input_view);
  const guint32 *output = ks_histogram_view_get_bins (self->output_view);

  ks_histogram_view_set_channels (self->input_view, channels);
  ks_histogram_view_set_channels (self->output_view, channels);
  update_stats (self, self->input_stats_label, input);
  update_stats (self, self->output_stats_label, output);
}

static void
on_pipeline_changed_cb (KsPipeline *pipeline, KsHistogramPanel *self)
{
  update_histograms (self);
}

static void
on_device_lost_cb (KsPipeline *pipeline, const char *reason, KsHistogramPanel *self)
{
  update_histograms (self);
}

static void
ks_histogram_panel_pipeline_changed (KsPanel *panel, KsPipeline *old_pipeline,
                                     KsPipeline *pipeline)
{
  KsHistogramPanel *self = KS_HISTOGRAM_PANEL (panel);

  update_histograms (self);
}

void
ks_histogram_panel_set_pipeline (KsHistogramPanel *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_HISTOGRAM_PANEL (self));
  ks_panel_set_pipeline (KS_PANEL (self), pipeline);
}

GtkWidget *
ks_histogram_panel_new (void)
{
  return g_object_new (KS_TYPE_HISTOGRAM_PANEL, NULL);
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
ks_histogram_panel_dispose (GObject *object)
{
  KsHistogramPanel *self = KS_HISTOGRAM_PANEL (object);


  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_HISTOGRAM_PANEL);

  G_OBJECT_CLASS (ks_histogram_panel_parent_class)->dispose (object);
}

static void
ks_histogram_panel_class_init (KsHistogramPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  KsPanelClass *panel_class = KS_PANEL_CLASS (klass);

  object_class->dispose = ks_histogram_panel_dispose;
  panel_class->pipeline_changed = ks_histogram_panel_pipeline_changed;

  g_type_ensure (KS_TYPE_HISTOGRAM_VIEW);
  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-histogram-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, red_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, green_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, blue_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, luma_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, log_switch);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, input_view);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, input_stats_label);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, output_group);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, output_view);
  gtk_widget_class_bind_template_child (widget_class, KsHistogramPanel, output_stats_label);
  gtk_widget_class_bind_template_callback (widget_class, on_channel_toggled_cb);

}

static void
ks_histogram_panel_init (KsHistogramPanel *self)
{
  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "ran",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "inputs-changed",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "device-lost",
                                 G_CALLBACK (on_device_lost_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));

  ks_histogram_view_set_channels (self->input_view, shown_channels (self));
  ks_histogram_view_set_channels (self->output_view, shown_channels (self));
  update_histograms (self);
}
