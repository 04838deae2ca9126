/* ks-timing-chart.c: kernel and display times over the last runs (see
 * ks-timing-chart.h). Lines and dots with cairo (GTK 4.8 has no GskPath),
 * text with PangoLayouts appended to the snapshot. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "ks-pipeline.h"
#include "ks-timing-chart.h"
#include "ks-ui-util.h"

#define PAD 6.0
#define DOT 2.5

struct _KsTimingChart
{
  GtkWidget parent_instance;

  GArray *samples;  /* KsTimingSample, owned copy */
};

G_DEFINE_FINAL_TYPE (KsTimingChart, ks_timing_chart, GTK_TYPE_WIDGET)

static const GdkRGBA kernel_color = { 0.21f, 0.52f, 0.89f, 1.0f };
static const GdkRGBA display_color = { 0.18f, 0.76f, 0.49f, 1.0f };
static const GdkRGBA warmup_color = { 1.0f, 0.47f, 0.0f, 1.0f };

static void
ks_timing_chart_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  KsTimingChart *self = KS_TIMING_CHART (widget);
  double w = gtk_widget_get_width (widget);
  double h = gtk_widget_get_height (widget);
  guint n = self->samples != NULL ? self->samples->len : 0;
  g_autoptr (PangoLayout) max_layout = NULL;
  g_autoptr (PangoLayout) legend = NULL;
  g_autofree char *max_text = NULL;
  g_autofree char *legend_markup = NULL;
  double top = 0, plot_x, plot_y, plot_w, plot_h, step;
  int lw, lh, gw, gh;
  GdkRGBA fg;
  cairo_t *cr;

  ks_ui_get_text_color (widget, &fg);

  for (guint i = 0; i < n; i++)
    {
      const KsTimingSample *s = &g_array_index (self->samples, KsTimingSample, i);

      top = MAX (top, s->kernel_ms);
      top = MAX (top, s->display_ms);
    }
  top = ks_ui_nice_ceiling (top);

  max_text = ks_ui_format_ms_short (top);
  max_layout = gtk_widget_create_pango_layout (widget, max_text);
  pango_layout_get_pixel_size (max_layout, &lw, &lh);
  legend = gtk_widget_create_pango_layout (widget, NULL);
  legend_markup = g_markup_printf_escaped ("<span foreground='#3584e4'>●</span> %s   "
                                           "<span foreground='#2ec27e'>●</span> %s   "
                                           "<span foreground='#ff7800'>○</span> %s",
                                           C_("timing chart", "kernel"),
                                           C_("timing chart", "display"),
                                           C_("timing chart", "warm-up"));
  pango_layout_set_markup (legend, legend_markup, -1);
  pango_layout_get_pixel_size (legend, &gw, &gh);

  /* The y-axis label left of the plot, the legend above it. */
  plot_x = PAD + lw + 4;
  plot_y = PAD + gh + 4;
  plot_w = w - plot_x - PAD;
  plot_h = h - plot_y - PAD;
  if (plot_w <= 4 || plot_h <= 4)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.3);
  ks_ui_chart_draw_axes (cr, plot_x, plot_y, plot_w, plot_h);
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.12);
  cairo_move_to (cr, plot_x, plot_y + 0.5);
  cairo_line_to (cr, plot_x + plot_w, plot_y + 0.5);
  cairo_move_to (cr, plot_x, plot_y + round (plot_h / 2) + 0.5);
  cairo_line_to (cr, plot_x + plot_w, plot_y + round (plot_h / 2) + 0.5);
  cairo_stroke (cr);

  /* A fixed horizontal scale over the pipeline's whole history: the newest
   * sample at the right edge, so the chart scrolls as runs come in. */
  step = plot_w / (KS_PIPELINE_HISTORY - 1);

#define X_OF(i) (plot_x + plot_w - (double) (n - 1 - (i)) * step)
#define Y_OF(ms) (plot_y + plot_h - plot_h * MIN ((ms) / top, 1.0))

  for (int series = 0; series < 2; series++)
    {
      gboolean started = FALSE;

      cairo_new_path (cr);
      for (guint i = 0; i < n; i++)
        {
          const KsTimingSample *s = &g_array_index (self->samples, KsTimingSample, i);
          double ms = series == 0 ? s->kernel_ms : s->display_ms;

          if (ms < 0 || X_OF (i) < plot_x)
            {
              started = FALSE;
              continue;
            }
          if (started)
            cairo_line_to (cr, X_OF (i), Y_OF (ms));
          else
            cairo_move_to (cr, X_OF (i), Y_OF (ms));
          started = TRUE;
        }
      ks_ui_cairo_set_color (cr, series == 0 ? &kernel_color : &display_color, 1.0);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);

      for (guint i = 0; i < n; i++)
        {
          const KsTimingSample *s = &g_array_index (self->samples, KsTimingSample, i);
          double ms = series == 0 ? s->kernel_ms : s->display_ms;

          if (ms < 0 || X_OF (i) < plot_x)
            continue;
          cairo_new_path (cr);
          if (s->warmup && series == 0)
            {
              /* Warm-up runs pay for first-use costs: hollow, so nobody reads them as typical. */
              cairo_arc (cr, X_OF (i), Y_OF (ms), DOT + 1.5, 0, 2 * G_PI);
              ks_ui_cairo_set_color (cr, &warmup_color, 1.0);
              cairo_set_line_width (cr, 1.5);
              cairo_stroke (cr);
            }
          else
            {
              cairo_arc (cr, X_OF (i), Y_OF (ms), DOT, 0, 2 * G_PI);
              ks_ui_cairo_set_color (cr, series == 0 ? &kernel_color : &display_color, 1.0);
              cairo_fill (cr);
            }
        }
    }
#undef X_OF
#undef Y_OF
  cairo_destroy (cr);

  ks_ui_append_layout (snapshot, max_layout, PAD, plot_y - lh / 2.0, &fg);
  ks_ui_append_layout (snapshot, legend, MAX (plot_x, w - PAD - gw), PAD, &fg);
  if (n == 0)
    ks_ui_chart_append_placeholder (widget, snapshot, _("No runs yet"), plot_x, plot_y, plot_w,
                                    plot_h, &fg);
}

static void
ks_timing_chart_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                         int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 160;
      *natural = 320;
    }
  else
    {
      *minimum = 80;
      *natural = 140;
    }
}

static void
ks_timing_chart_finalize (GObject *object)
{
  KsTimingChart *self = KS_TIMING_CHART (object);

  g_clear_pointer (&self->samples, g_array_unref);

  G_OBJECT_CLASS (ks_timing_chart_parent_class)->finalize (object);
}

static void
ks_timing_chart_class_init (KsTimingChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ks_timing_chart_finalize;
  widget_class->snapshot = ks_timing_chart_snapshot;
  widget_class->measure = ks_timing_chart_measure;

  gtk_widget_class_set_css_name (widget_class, "ks-timing-chart");
}

static void
ks_timing_chart_init (KsTimingChart *self)
{
}

GtkWidget *
ks_timing_chart_new (void)
{
  return g_object_new (KS_TYPE_TIMING_CHART, NULL);
}

void
ks_timing_chart_set_samples (KsTimingChart *self, GArray *samples)
{
  g_return_if_fail (KS_IS_TIMING_CHART (self));
  g_return_if_fail (samples == NULL
                    || g_array_get_element_size (samples) == sizeof (KsTimingSample));

  g_clear_pointer (&self->samples, g_array_unref);
  if (samples != NULL)
    {
      self->samples = g_array_sized_new (FALSE, FALSE, sizeof (KsTimingSample), samples->len);
      g_array_append_vals (self->samples, samples->data, samples->len);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
