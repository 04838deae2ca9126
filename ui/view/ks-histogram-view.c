/* ks-histogram-view.c: one 256-bin histogram chart (see ks-histogram-view.h).
 *
 * GTK 4.8 has no GskPath (4.14), so the curves are drawn with cairo through
 * gtk_snapshot_append_cairo: one translucent filled area and one stroked line
 * per channel. The hover readout is drawn in the chart and also set as the
 * tooltip. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "ks-histogram-view.h"
#include "ks-ui-util.h"

#define N_BINS 256
#define N_CHANNELS 4
#define ALL_CHANNELS (KS_HISTOGRAM_RED | KS_HISTOGRAM_GREEN | KS_HISTOGRAM_BLUE | KS_HISTOGRAM_LUMA)
#define PAD 4.0

struct _KsHistogramView
{
  GtkWidget parent_instance;

  guint32 *bins;       /* [4][256], owned; NULL when empty */
  guint channels;
  gboolean log_scale;
  int hover_bin;
};

G_DEFINE_FINAL_TYPE (KsHistogramView, ks_histogram_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_CHANNELS,
  PROP_LOG_SCALE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const struct
{
  const char *name;
  double r, g, b;
} channel_styles[N_CHANNELS] = {
  /* TRANSLATORS: the channels in a histogram bin's tooltip: red, green, blue, luma. */
  { N_("R"), 0.89, 0.11, 0.14 },
  { N_("G"), 0.18, 0.76, 0.49 },
  { N_("B"), 0.21, 0.52, 0.89 },
  { N_("luma"), 0.60, 0.60, 0.60 },
};

gboolean
ks_histogram_stats (const guint32 *bins, guint channel, double *mean, guint *median, guint *min,
                    guint *max)
{
  const guint32 *h;
  guint64 total = 0, weighted = 0, half, seen = 0;
  guint lo = N_BINS, hi = 0, med = 0;

  g_return_val_if_fail (channel < N_CHANNELS, FALSE);

  if (bins == NULL)
    return FALSE;
  h = bins + (gsize) channel * N_BINS;
  for (guint v = 0; v < N_BINS; v++)
    {
      if (h[v] == 0)
        continue;
      total += h[v];
      weighted += (guint64) h[v] * v;
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
  if (total == 0)
    return FALSE;

  /* The lower median: the smallest value with at least half of the samples at or below it. */
  half = (total + 1) / 2;
  for (guint v = 0; v < N_BINS; v++)
    {
      seen += h[v];
      if (seen >= half)
        {
          med = v;
          break;
        }
    }

  if (mean != NULL)
    *mean = (double) weighted / (double) total;
  if (median != NULL)
    *median = med;
  if (min != NULL)
    *min = lo;
  if (max != NULL)
    *max = hi;
  return TRUE;
}

static char *
describe_bin (KsHistogramView *self, int bin)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, _("bin %d:"), bin);
  for (guint c = 0; c < N_CHANNELS; c++)
    if (self->channels & (1u << c))
      g_string_append_printf (text, " %s %u", _(channel_styles[c].name),
                              self->bins[(gsize) c * N_BINS + bin]);
  return g_string_free (text, FALSE);
}

static double
scaled (KsHistogramView *self, guint32 count, double top)
{
  if (top <= 0)
    return 0;
  /* log1p keeps empty bins at zero and single counts visible. */
  return self->log_scale ? log1p (count) / log1p (top) : count / top;
}

static void
ks_histogram_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  KsHistogramView *self = KS_HISTOGRAM_VIEW (widget);
  double w = gtk_widget_get_width (widget);
  double h = gtk_widget_get_height (widget);
  double pw = w - 2 * PAD, ph = h - 2 * PAD;
  guint32 top = 0;
  cairo_t *cr;

  if (pw <= 0 || ph <= 0)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));

  /* The frame and quarter lines, faint, so the chart reads on light and dark themes. */
  cairo_set_line_width (cr, 1);
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.35);
  cairo_rectangle (cr, PAD - 0.5, PAD - 0.5, pw + 1, ph + 1);
  cairo_stroke (cr);
  for (int i = 1; i < 4; i++)
    {
      double x = PAD + round (pw * i / 4.0) + 0.5;

      cairo_move_to (cr, x, PAD);
      cairo_line_to (cr, x, PAD + ph);
    }
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.15);
  cairo_stroke (cr);

  if (self->bins != NULL)
    {
      for (guint c = 0; c < N_CHANNELS; c++)
        if (self->channels & (1u << c))
          for (guint v = 0; v < N_BINS; v++)
            top = MAX (top, self->bins[(gsize) c * N_BINS + v]);

      for (guint c = 0; c < N_CHANNELS; c++)
        {
          const guint32 *bins = self->bins + (gsize) c * N_BINS;

          if (!(self->channels & (1u << c)))
            continue;

          /* A step curve: each bin a flat top one bin wide. */
          cairo_new_path (cr);
          cairo_move_to (cr, PAD, PAD + ph);
          for (guint v = 0; v < N_BINS; v++)
            {
              double y = PAD + ph - ph * scaled (self, bins[v], top);

              cairo_line_to (cr, PAD + pw * v / N_BINS, y);
              cairo_line_to (cr, PAD + pw * (v + 1) / N_BINS, y);
            }
          cairo_line_to (cr, PAD + pw, PAD + ph);
          cairo_close_path (cr);
          cairo_set_source_rgba (cr, channel_styles[c].r, channel_styles[c].g,
                                 channel_styles[c].b, 0.25);
          cairo_fill_preserve (cr);
          cairo_set_source_rgba (cr, channel_styles[c].r, channel_styles[c].g,
                                 channel_styles[c].b, 0.9);
          cairo_set_line_width (cr, 1.2);
          cairo_stroke (cr);
        }

      if (self->hover_bin >= 0)
        {
          cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.35);
          cairo_rectangle (cr, PAD + pw * self->hover_bin / N_BINS, PAD, MAX (pw / N_BINS, 1), ph);
          cairo_fill (cr);
        }
    }
  cairo_destroy (cr);

  if (self->bins != NULL && self->hover_bin >= 0)
    {
      g_autofree char *text = describe_bin (self, self->hover_bin);
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
      int lw, lh;

      pango_layout_get_pixel_size (layout, &lw, &lh);
      gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0, 0, 0, 0.6 },
                                 &GRAPHENE_RECT_INIT (PAD + 2, PAD + 2, lw + 6, lh + 2));
      ks_ui_append_layout (snapshot, layout, PAD + 5, PAD + 3, &(GdkRGBA) { 1, 1, 1, 1 });
    }
}

static void
ks_histogram_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                           int *minimum, int *natural, int *minimum_baseline,
                           int *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 128;
      *natural = N_BINS + 2 * (int) PAD;
    }
  else
    {
      *minimum = 64;
      *natural = 120;
    }
}

static void
set_hover_bin (KsHistogramView *self, int bin)
{
  g_autofree char *text = NULL;

  if (self->bins == NULL)
    bin = -1;
  if (bin == self->hover_bin)
    return;
  self->hover_bin = bin;
  if (bin >= 0)
    text = describe_bin (self, bin);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion_cb (GtkEventControllerMotion *controller, double x, double y, KsHistogramView *self)
{
  double pw = gtk_widget_get_width (GTK_WIDGET (self)) - 2 * PAD;
  int bin = -1;

  if (pw > 0 && x >= PAD && x < PAD + pw)
    bin = CLAMP ((int) ((x - PAD) / pw * N_BINS), 0, N_BINS - 1);
  set_hover_bin (self, bin);
}

static void
on_leave_cb (GtkEventControllerMotion *controller, KsHistogramView *self)
{
  set_hover_bin (self, -1);
}

static void
ks_histogram_view_finalize (GObject *object)
{
  KsHistogramView *self = KS_HISTOGRAM_VIEW (object);

  g_free (self->bins);

  G_OBJECT_CLASS (ks_histogram_view_parent_class)->finalize (object);
}

static void
ks_histogram_view_get_property (GObject *object, guint prop_id, GValue *value,
                                GParamSpec *pspec)
{
  KsHistogramView *self = KS_HISTOGRAM_VIEW (object);

  switch (prop_id)
    {
    case PROP_CHANNELS:
      g_value_set_uint (value, self->channels);
      break;
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, self->log_scale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_histogram_view_set_property (GObject *object, guint prop_id, const GValue *value,
                                GParamSpec *pspec)
{
  KsHistogramView *self = KS_HISTOGRAM_VIEW (object);

  switch (prop_id)
    {
    case PROP_CHANNELS:
      ks_histogram_view_set_channels (self, g_value_get_uint (value));
      break;
    case PROP_LOG_SCALE:
      ks_histogram_view_set_log_scale (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_histogram_view_class_init (KsHistogramViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ks_histogram_view_finalize;
  object_class->get_property = ks_histogram_view_get_property;
  object_class->set_property = ks_histogram_view_set_property;
  widget_class->snapshot = ks_histogram_view_snapshot;
  widget_class->measure = ks_histogram_view_measure;

  properties[PROP_CHANNELS] =
    g_param_spec_uint ("channels", NULL, NULL, 0, ALL_CHANNELS, ALL_CHANNELS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOG_SCALE] =
    g_param_spec_boolean ("log-scale", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "ks-histogram-view");
}

static void
ks_histogram_view_init (KsHistogramView *self)
{
  GtkEventController *controller;

  self->channels = ALL_CHANNELS;
  self->hover_bin = -1;

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "enter", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

GtkWidget *
ks_histogram_view_new (void)
{
  return g_object_new (KS_TYPE_HISTOGRAM_VIEW, NULL);
}

void
ks_histogram_view_set_bins (KsHistogramView *self, const guint32 *bins)
{
  g_return_if_fail (KS_IS_HISTOGRAM_VIEW (self));

  if (bins == NULL)
    {
      g_clear_pointer (&self->bins, g_free);
      set_hover_bin (self, -1);
    }
  else
    {
      if (self->bins == NULL)
        self->bins = g_new (guint32, N_CHANNELS * N_BINS);
      memcpy (self->bins, bins, sizeof (guint32) * N_CHANNELS * N_BINS);
      if (self->hover_bin >= 0)
        {
          g_autofree char *text = describe_bin (self, self->hover_bin);

          gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
        }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const guint32 *
ks_histogram_view_get_bins (KsHistogramView *self)
{
  g_return_val_if_fail (KS_IS_HISTOGRAM_VIEW (self), NULL);
  return self->bins;
}

void
ks_histogram_view_set_channels (KsHistogramView *self, guint channels)
{
  g_return_if_fail (KS_IS_HISTOGRAM_VIEW (self));

  channels &= ALL_CHANNELS;
  if (self->channels == channels)
    return;
  self->channels = channels;
  if (self->hover_bin >= 0 && self->bins != NULL)
    {
      g_autofree char *text = describe_bin (self, self->hover_bin);

      gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHANNELS]);
}

guint
ks_histogram_view_get_channels (KsHistogramView *self)
{
  g_return_val_if_fail (KS_IS_HISTOGRAM_VIEW (self), 0);
  return self->channels;
}

void
ks_histogram_view_set_log_scale (KsHistogramView *self, gboolean log_scale)
{
  g_return_if_fail (KS_IS_HISTOGRAM_VIEW (self));

  log_scale = !!log_scale;
  if (self->log_scale == log_scale)
    return;
  self->log_scale = log_scale;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_SCALE]);
}

gboolean
ks_histogram_view_get_log_scale (KsHistogramView *self)
{
  g_return_val_if_fail (KS_IS_HISTOGRAM_VIEW (self), FALSE);
  return self->log_scale;
}

int
ks_histogram_view_get_hover_bin (KsHistogramView *self)
{
  g_return_val_if_fail (KS_IS_HISTOGRAM_VIEW (self), -1);
  return self->hover_bin;
}
