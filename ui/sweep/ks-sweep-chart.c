/* ks-sweep-chart.c: a block-size sweep as a chart (see ks-sweep-chart.h).
 *
 * Shapes, gridlines and the occupancy scale with cairo (GTK 4.8 has no
 * GskPath), text with PangoLayouts appended to the snapshot, as in
 * ks-timing-chart.c. The geometry is computed by one function from the
 * widget's size, for drawing, hit tests and the position accessor alike, so
 * what a click hits is what was drawn there.
 *
 * That is why it is one file: the Layout compute_layout makes is read by
 * the drawing, the pointer and keyboard, the tooltip and the public
 * accessors, so a change to where a point sits changes all of them at
 * once; apart, each would have to agree on a Layout shared through a
 * private header. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "ks-sweep-chart.h"
#include "ks-ui-util.h"

#define PAD 8.0
#define GAP 4.0
#define DOT 5.0
#define SCALE_W 96.0
#define SCALE_H 8.0

typedef struct
{
  guint index;              /* in the array given */
  KsDim3 block;
  guint threads;
  char *refused;            /* why, or NULL: measured */
  double median_ms;
  double mad_ms;
  double min_ms;
  double max_ms;
  double gbs;
  guint runs;
  gboolean has_occupancy;
  KsOccupancy occupancy;
} ChartPoint;

struct _KsSweepChart
{
  GtkWidget parent_instance;

  GArray *points;           /* ChartPoint, owned, in axis order */
  int fastest;              /* index as given, or -1 */
  gboolean cuda;
  gboolean show_bandwidth;
  gboolean has_current;
  KsDim3 current;
  int hover;                /* a position on the axis, or -1 */
};

G_DEFINE_FINAL_TYPE (KsSweepChart, ks_sweep_chart, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SHOW_BANDWIDTH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_POINT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The limiters as ks_occupancy_limit_describe names them, marked here so
 * that the names it returns are translated where the chart and the launch
 * panel show them. */
static const char *const limiter_names[] G_GNUC_UNUSED = {
  N_("threads per multiprocessor"),
  N_("blocks per multiprocessor"),
  N_("registers"),
  N_("shared memory"),
  N_("none"),
};

/* The names of the two long limiters in a form for a bracket too narrow for
 * the whole one; NULL for the others, which are short already. */
static const char *
limiter_short_name (KsOccupancyLimit limiter)
{
  switch (limiter)
    {
    case KS_OCCUPANCY_LIMIT_WARPS: return _("threads per SM");
    case KS_OCCUPANCY_LIMIT_BLOCKS: return _("blocks per SM");
    default: return NULL;
    }
}

/* Viridis at five stops: even steps in lightness, readable by people with
 * the common colour-vision deficiencies, and in grey on a projector. */
static const double occupancy_stops[][3] = {
  { 0.267, 0.005, 0.329 },
  { 0.229, 0.322, 0.546 },
  { 0.128, 0.567, 0.551 },
  { 0.369, 0.789, 0.383 },
  { 0.993, 0.906, 0.144 },
};

static const GdkRGBA accent_color = { 0.21f, 0.52f, 0.89f, 1.0f };
static const GdkRGBA refused_color = { 0.88f, 0.11f, 0.14f, 1.0f };

/* ---- geometry --------------------------------------------------------------------- */

typedef struct
{
  double plot_x, plot_y, plot_w, plot_h;
  double step;              /* one column's width */
  double top;               /* the vertical axis maximum */
  double tick;              /* between gridlines */
  double legend_h;
  double strip_y, strip_h;  /* the limiters' row, above the plot; 0 high: none */
  int label_w, label_h;     /* the widest block label */
  gboolean vertical_labels; /* block labels do not fit across a column */
} Layout;

static void
point_clear (gpointer data)
{
  ChartPoint *p = data;

  g_free (p->refused);
}

static int
compare_points (gconstpointer a, gconstpointer b)
{
  const ChartPoint *p = a, *q = b;

  if (p->threads != q->threads)
    return p->threads < q->threads ? -1 : 1;
  /* Within the same number of threads, the widest first, as ks_sweep_blocks lists them. */
  if (p->block.x != q->block.x)
    return p->block.x > q->block.x ? -1 : 1;
  if (p->block.y != q->block.y)
    return p->block.y > q->block.y ? -1 : 1;
  if (p->block.z != q->block.z)
    return p->block.z > q->block.z ? -1 : 1;
  return 0;
}

static guint
n_points (KsSweepChart *self)
{
  return self->points != NULL ? self->points->len : 0;
}

static ChartPoint *
point_nth (KsSweepChart *self, guint pos)
{
  return &g_array_index (self->points, ChartPoint, pos);
}

/* The point's value on the vertical axis; NAN when it has none. */
static double
point_value (KsSweepChart *self, const ChartPoint *p)
{
  if (p->refused != NULL)
    return NAN;
  return self->show_bandwidth ? p->gbs : p->median_ms;
}

static char *
format_gbs (double gbs)
{
  if (!isfinite (gbs))
    return g_strdup ("—");
  if (gbs == 0)
    return g_strdup ("0");
  return g_strdup_printf (_("%.3g GB/s"), gbs);
}

static char *
format_value (KsSweepChart *self, double v)
{
  return self->show_bandwidth ? format_gbs (v) : ks_ui_format_ms_short (v);
}

static char *
block_text (const KsDim3 *block)
{
  char buf[64];

  ks_dim3_format (block, buf, sizeof buf);
  return g_strdup (buf);
}

static PangoLayout *
small_layout (GtkWidget *widget, const char *markup)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  g_autofree char *small = g_strconcat ("<small>", markup, "</small>", NULL);

  pango_layout_set_markup (layout, small, -1);
  return layout;
}

/* The label above a point: "fastest" or "refused"; NULL: none. What limits
 * the occupancy is written once for each run of neighbours with the same
 * limiter, in the row above the plot (limiter_run_end). */
static char *
point_label_markup (KsSweepChart *self, const ChartPoint *p)
{
  if (p->refused != NULL)
    return g_markup_printf_escaped ("%s", C_("sweep chart", "refused"));
  if ((int) p->index == self->fastest)
    return g_markup_printf_escaped ("<b>%s</b>", C_("sweep chart", "fastest"));
  return NULL;
}

/* The run of neighbours from axis position `first` that share its occupancy
 * limiter: the position after its last. A refused shape, or one without
 * occupancy, is a run of its own that has no limiter (*has_limiter FALSE). */
static guint
limiter_run_end (KsSweepChart *self, guint first, gboolean *has_limiter)
{
  const ChartPoint *p = point_nth (self, first);
  guint end = first + 1;

  *has_limiter = p->refused == NULL && p->has_occupancy;
  if (!*has_limiter)
    return end;
  while (end < n_points (self))
    {
      const ChartPoint *q = point_nth (self, end);

      if (q->refused != NULL || !q->has_occupancy || q->occupancy.limiter != p->occupancy.limiter)
        break;
      end++;
    }
  return end;
}

/* The data's maximum, rounded up to a whole number of readable steps. */
static void
vertical_scale (KsSweepChart *self, double *top, double *tick)
{
  double max = 0;

  for (guint i = 0; i < n_points (self); i++)
    {
      const ChartPoint *p = point_nth (self, i);
      double v = point_value (self, p);

      if (!isfinite (v))
        continue;
      if (!self->show_bandwidth && isfinite (p->mad_ms))
        v += p->mad_ms;
      max = MAX (max, v);
    }
  if (max <= 0)
    {
      *tick = 0.25;
      *top = 1.0;
      return;
    }
  *tick = ks_ui_nice_ceiling (max / 4);
  *top = *tick * ceil (max / *tick - 1e-9);
}

static gboolean
compute_layout (KsSweepChart *self, Layout *l)
{
  GtkWidget *widget = GTK_WIDGET (self);
  double w = gtk_widget_get_width (widget);
  double h = gtk_widget_get_height (widget);
  g_autoptr (PangoLayout) probe = gtk_widget_create_pango_layout (widget, "0");
  int tick_w = 0, text_h, bottom;

  memset (l, 0, sizeof *l);
  pango_layout_get_pixel_size (probe, NULL, &text_h);
  vertical_scale (self, &l->top, &l->tick);
  for (double v = 0; v <= l->top * (1 + 1e-9); v += l->tick)
    {
      g_autofree char *text = format_value (self, v);
      int tw;

      pango_layout_set_text (probe, text, -1);
      pango_layout_get_pixel_size (probe, &tw, NULL);
      tick_w = MAX (tick_w, tw);
    }
  for (guint i = 0; i < n_points (self); i++)
    {
      g_autofree char *text = block_text (&point_nth (self, i)->block);
      int tw, th;

      pango_layout_set_text (probe, text, -1);
      pango_layout_get_pixel_size (probe, &tw, &th);
      l->label_w = MAX (l->label_w, tw);
      l->label_h = MAX (l->label_h, th);
    }
  if (l->label_h == 0)
    l->label_h = text_h;

  l->legend_h = MAX (text_h, SCALE_H);
  l->plot_x = PAD + tick_w + GAP;
  l->strip_y = PAD + l->legend_h + GAP;
  for (guint i = 0; i < n_points (self); i++)
    if (point_nth (self, i)->has_occupancy && point_nth (self, i)->refused == NULL)
      {
        g_autoptr (PangoLayout) small = small_layout (widget, "0");
        int sh;

        pango_layout_get_pixel_size (small, NULL, &sh);
        l->strip_h = sh + GAP;
        break;
      }
  l->plot_y = l->strip_y + l->strip_h + GAP + text_h / 2.0;
  l->plot_w = w - l->plot_x - PAD;
  l->step = l->plot_w / MAX (n_points (self), 1);
  l->vertical_labels = l->label_w + GAP > l->step;
  bottom = l->vertical_labels ? l->label_w : l->label_h;
  l->plot_h = h - l->plot_y - PAD - GAP - bottom;
  return l->plot_w > 4 * DOT && l->plot_h > 4 * DOT;
}

static double
x_of (const Layout *l, guint pos)
{
  return l->plot_x + (pos + 0.5) * l->step;
}

static double
y_of (const Layout *l, double v)
{
  if (!isfinite (v))
    v = 0;
  return l->plot_y + l->plot_h - l->plot_h * CLAMP (v / l->top, 0.0, 1.0);
}

/* Where a point is drawn: a refused one, or one with no value, on the axis. */
static void
point_center (KsSweepChart *self, const Layout *l, guint pos, double *x, double *y)
{
  const ChartPoint *p = point_nth (self, pos);
  double v = point_value (self, p);

  *x = x_of (l, pos);
  if (p->refused != NULL || !isfinite (v))
    *y = l->plot_y + l->plot_h - DOT - 2;
  else
    *y = y_of (l, v);
}

static int
column_at (KsSweepChart *self, const Layout *l, double x, double y)
{
  int pos;

  if (n_points (self) == 0 || x < l->plot_x || x >= l->plot_x + l->plot_w)
    return -1;
  /* The whole column down to its label: targets a pointer can hit, with
   * dozens of shapes on a laptop's screen. */
  if (y < l->plot_y - GAP || y > gtk_widget_get_height (GTK_WIDGET (self)) - PAD)
    return -1;
  pos = (int) floor ((x - l->plot_x) / l->step);
  return pos >= 0 && (guint) pos < n_points (self) ? pos : -1;
}

static int
position_of_index (KsSweepChart *self, guint index)
{
  for (guint i = 0; i < n_points (self); i++)
    if (point_nth (self, i)->index == index)
      return (int) i;
  return -1;
}

/* ---- drawing ---------------------------------------------------------------------- */

static void
occupancy_color (double occupancy, GdkRGBA *color)
{
  double t = CLAMP (occupancy, 0.0, 1.0) * (G_N_ELEMENTS (occupancy_stops) - 1);
  guint i = MIN ((guint) floor (t), G_N_ELEMENTS (occupancy_stops) - 2);
  double f = t - i;

  color->red = (float) (occupancy_stops[i][0] * (1 - f) + occupancy_stops[i + 1][0] * f);
  color->green = (float) (occupancy_stops[i][1] * (1 - f) + occupancy_stops[i + 1][1] * f);
  color->blue = (float) (occupancy_stops[i][2] * (1 - f) + occupancy_stops[i + 1][2] * f);
  color->alpha = 1.0f;
}

/* Text reading upwards, (x, y) the bottom-left corner of its box. */
static void
append_text_up (GtkSnapshot *snapshot, PangoLayout *layout, double x, double y,
                const GdkRGBA *color)
{
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y));
  gtk_snapshot_rotate (snapshot, -90);
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

static void
draw_grid (KsSweepChart *self, cairo_t *cr, const Layout *l, const GdkRGBA *fg)
{
  /* Shading behind the column of the block in use and the one under the pointer. */
  for (guint i = 0; i < n_points (self); i++)
    {
      const ChartPoint *p = point_nth (self, i);
      gboolean current = self->has_current && p->block.x == self->current.x
                         && p->block.y == self->current.y && p->block.z == self->current.z;

      if (current)
        {
          ks_ui_cairo_set_color (cr, &accent_color, 0.14);
          cairo_rectangle (cr, l->plot_x + i * l->step, l->plot_y, l->step, l->plot_h);
          cairo_fill (cr);
        }
      if ((int) i == self->hover)
        {
          ks_ui_cairo_set_color (cr, fg, 0.07);
          cairo_rectangle (cr, l->plot_x + i * l->step, l->plot_y, l->step, l->plot_h);
          cairo_fill (cr);
        }
    }

  cairo_set_line_width (cr, 1);
  ks_ui_cairo_set_color (cr, fg, 0.12);
  for (double v = l->tick; v <= l->top * (1 + 1e-9); v += l->tick)
    {
      double y = round (y_of (l, v)) + 0.5;

      cairo_move_to (cr, l->plot_x, y);
      cairo_line_to (cr, l->plot_x + l->plot_w, y);
    }
  cairo_stroke (cr);
  ks_ui_cairo_set_color (cr, fg, 0.3);
  ks_ui_chart_draw_axes (cr, l->plot_x, l->plot_y, l->plot_w, l->plot_h);
}

static void
draw_points (KsSweepChart *self, cairo_t *cr, const Layout *l, const GdkRGBA *fg)
{
  for (guint i = 0; i < n_points (self); i++)
    {
      const ChartPoint *p = point_nth (self, i);
      double x, y;
      GdkRGBA fill;

      point_center (self, l, i, &x, &y);
      cairo_new_path (cr);
      if (p->refused != NULL)
        {
          ks_ui_cairo_set_color (cr, &refused_color, 1.0);
          cairo_set_line_width (cr, 2);
          cairo_move_to (cr, x - DOT, y - DOT);
          cairo_line_to (cr, x + DOT, y + DOT);
          cairo_move_to (cr, x + DOT, y - DOT);
          cairo_line_to (cr, x - DOT, y + DOT);
          cairo_stroke (cr);
          continue;
        }
      /* The spread of the runs, so that a difference inside it is not read as one. */
      if (!self->show_bandwidth && p->mad_ms > 0)
        {
          ks_ui_cairo_set_color (cr, fg, 0.45);
          cairo_set_line_width (cr, 1);
          cairo_move_to (cr, round (x) + 0.5, y_of (l, p->median_ms - p->mad_ms));
          cairo_line_to (cr, round (x) + 0.5, y_of (l, p->median_ms + p->mad_ms));
          cairo_stroke (cr);
        }
      if (p->has_occupancy)
        occupancy_color (p->occupancy.occupancy, &fill);
      else
        fill = (GdkRGBA) { fg->red, fg->green, fg->blue, 0.55f };
      cairo_arc (cr, x, y, (int) i == self->hover ? DOT + 1.5 : DOT, 0, 2 * G_PI);
      ks_ui_cairo_set_color (cr, &fill, 1.0);
      cairo_fill_preserve (cr);
      /* An outline keeps the light end of the scale visible on a light background. */
      ks_ui_cairo_set_color (cr, fg, 0.35);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      if ((int) p->index == self->fastest)
        {
          cairo_new_path (cr);
          cairo_arc (cr, x, y, DOT + 4, 0, 2 * G_PI);
          ks_ui_cairo_set_color (cr, &accent_color, 1.0);
          cairo_set_line_width (cr, 2);
          cairo_stroke (cr);
        }
    }
}

/* The occupancy scale, right-aligned in the legend row; its left edge in *left. */
static void
draw_scale (KsSweepChart *self, GtkSnapshot *snapshot, const Layout *l, const GdkRGBA *fg,
            double *left)
{
  GtkWidget *widget = GTK_WIDGET (self);
  double w = gtk_widget_get_width (widget);
  g_autoptr (PangoLayout) caption = NULL;
  g_autoptr (PangoLayout) zero = NULL;
  g_autoptr (PangoLayout) hundred = NULL;
  cairo_pattern_t *pattern;
  cairo_t *cr;
  int cw, ch, zw, hw;
  double x;

  if (!self->cuda)
    {
      caption = small_layout (widget, _("No occupancy on the CPU engine: points are not "
                                        "coloured"));
      pango_layout_get_pixel_size (caption, &cw, &ch);
      *left = w - PAD - cw;
      ks_ui_append_layout (snapshot, caption, *left, PAD + (l->legend_h - ch) / 2, fg);
      return;
    }
  caption = small_layout (widget, _("theoretical occupancy"));
  zero = small_layout (widget, "0 %");
  hundred = small_layout (widget, "100 %");
  pango_layout_get_pixel_size (caption, &cw, &ch);
  pango_layout_get_pixel_size (zero, &zw, NULL);
  pango_layout_get_pixel_size (hundred, &hw, NULL);

  x = w - PAD - hw;
  ks_ui_append_layout (snapshot, hundred, x, PAD + (l->legend_h - ch) / 2, fg);
  x -= GAP + SCALE_W;
  cr = gtk_snapshot_append_cairo (snapshot,
                                  &GRAPHENE_RECT_INIT (x, PAD, SCALE_W, l->legend_h));
  pattern = cairo_pattern_create_linear (x, 0, x + SCALE_W, 0);
  for (guint i = 0; i < G_N_ELEMENTS (occupancy_stops); i++)
    cairo_pattern_add_color_stop_rgb (pattern, (double) i / (G_N_ELEMENTS (occupancy_stops) - 1),
                                      occupancy_stops[i][0], occupancy_stops[i][1],
                                      occupancy_stops[i][2]);
  cairo_rectangle (cr, x, PAD + (l->legend_h - SCALE_H) / 2, SCALE_W, SCALE_H);
  cairo_set_source (cr, pattern);
  cairo_fill (cr);
  cairo_pattern_destroy (pattern);
  cairo_destroy (cr);
  x -= GAP + zw;
  ks_ui_append_layout (snapshot, zero, x, PAD + (l->legend_h - ch) / 2, fg);
  x -= 2 * GAP + cw;
  ks_ui_append_layout (snapshot, caption, x, PAD + (l->legend_h - ch) / 2, fg);
  *left = x;
}

/* The name of a run's limiter, whole or in its short form where it has one. */
static PangoLayout *
limiter_layout (GtkWidget *widget, KsOccupancyLimit limiter, gboolean short_form)
{
  const char *name = short_form ? limiter_short_name (limiter) : NULL;

  return small_layout (widget, name != NULL ? name : _(ks_occupancy_limit_describe (limiter)));
}

/* The columns of the run of limiters from first to end (exclusive). */
static void
limiter_run_span (const Layout *l, guint first, guint end, double *x0, double *x1)
{
  *x0 = l->plot_x + first * l->step + 2;
  *x1 = l->plot_x + end * l->step - 2;
}

/* Each run of neighbours with the same limiter: a bracket over its columns,
 * the limiter's name centred on it, left out over a column too narrow for a
 * word. Where a whole name does not fit its bracket, every run takes the
 * short form (one chart, one way of naming), and a name that still does not
 * fit is shortened to the bracket (the tooltip has it whole). */
static void
draw_limiters (KsSweepChart *self, GtkSnapshot *snapshot, const Layout *l, const GdkRGBA *fg)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkRGBA dim = { fg->red, fg->green, fg->blue, fg->alpha * 0.75f };
  double line_y = round (l->strip_y + l->strip_h) - 0.5;
  gboolean short_form = FALSE;
  cairo_t *cr;

  if (l->strip_h <= 0)
    return;
  for (guint first = 0, end; first < n_points (self) && !short_form; first = end)
    {
      gboolean has_limiter;
      double x0, x1;
      KsOccupancyLimit limiter = point_nth (self, first)->occupancy.limiter;
      g_autoptr (PangoLayout) layout = NULL;
      int tw, th;

      end = limiter_run_end (self, first, &has_limiter);
      limiter_run_span (l, first, end, &x0, &x1);
      if (!has_limiter || x1 - x0 < 24 || limiter_short_name (limiter) == NULL)
        continue;
      layout = limiter_layout (widget, limiter, FALSE);
      pango_layout_get_pixel_size (layout, &tw, &th);
      short_form = tw > x1 - x0;
    }

  cr = gtk_snapshot_append_cairo (snapshot,
                                  &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                       gtk_widget_get_height (widget)));
  cairo_set_line_width (cr, 1);
  ks_ui_cairo_set_color (cr, fg, 0.35);
  for (guint first = 0, end; first < n_points (self); first = end)
    {
      gboolean has_limiter;
      double x0, x1, room;
      const ChartPoint *p = point_nth (self, first);
      g_autoptr (PangoLayout) layout = NULL;
      int tw, th;

      end = limiter_run_end (self, first, &has_limiter);
      if (!has_limiter)
        continue;
      limiter_run_span (l, first, end, &x0, &x1);
      cairo_move_to (cr, round (x0) + 0.5, line_y - 3);
      cairo_line_to (cr, round (x0) + 0.5, line_y);
      cairo_line_to (cr, round (x1) - 0.5, line_y);
      cairo_line_to (cr, round (x1) - 0.5, line_y - 3);
      room = x1 - x0;
      if (room < 24)
        continue;
      layout = limiter_layout (widget, p->occupancy.limiter, short_form);
      pango_layout_get_pixel_size (layout, &tw, &th);
      if (tw > room)
        {
          pango_layout_set_width (layout, (int) (room * PANGO_SCALE));
          pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
          pango_layout_get_pixel_size (layout, &tw, &th);
        }
      ks_ui_append_layout (snapshot, layout, (x0 + x1 - tw) / 2, line_y - 1 - th, &dim);
    }
  cairo_stroke (cr);
  cairo_destroy (cr);
}

guint
ks_sweep_chart_get_n_limiter_runs (KsSweepChart *self)
{
  guint runs = 0;

  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), 0);
  for (guint first = 0, end; first < n_points (self); first = end)
    {
      gboolean has_limiter;

      end = limiter_run_end (self, first, &has_limiter);
      runs += has_limiter;
    }
  return runs;
}

static void
draw_labels (KsSweepChart *self, GtkSnapshot *snapshot, const Layout *l, const GdkRGBA *fg)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkRGBA dim = { fg->red, fg->green, fg->blue, fg->alpha * 0.75f };
  double bottom = l->plot_y + l->plot_h;

  for (double v = 0; v <= l->top * (1 + 1e-9); v += l->tick)
    {
      g_autofree char *text = format_value (self, v);
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
      int tw, th;

      pango_layout_get_pixel_size (layout, &tw, &th);
      ks_ui_append_layout (snapshot, layout, l->plot_x - GAP - tw, y_of (l, v) - th / 2.0, &dim);
    }

  for (guint i = 0; i < n_points (self); i++)
    {
      const ChartPoint *p = point_nth (self, i);
      g_autofree char *text = block_text (&p->block);
      g_autofree char *markup = point_label_markup (self, p);
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
      double cx = x_of (l, i), cy, extent_top, extent_bottom;
      const GdkRGBA *color = (int) i == self->hover ? fg : &dim;
      int tw, th;

      pango_layout_get_pixel_size (layout, &tw, &th);
      if (l->vertical_labels)
        append_text_up (snapshot, layout, cx - th / 2.0, bottom + GAP + tw, color);
      else
        ks_ui_append_layout (snapshot, layout, cx - tw / 2.0, bottom + GAP, color);

      if (markup == NULL)
        continue;
      g_clear_object (&layout);
      layout = small_layout (widget, markup);
      pango_layout_get_pixel_size (layout, &tw, &th);
      point_center (self, l, i, &cx, &cy);
      extent_top = cy - DOT - 4;
      extent_bottom = cy + DOT + 4;
      if (p->refused == NULL && !self->show_bandwidth && p->mad_ms > 0)
        {
          extent_top = MIN (extent_top, y_of (l, p->median_ms + p->mad_ms));
          extent_bottom = MAX (extent_bottom, y_of (l, p->median_ms - p->mad_ms));
        }
      color = p->refused != NULL ? &refused_color : &dim;
      /* Wide columns take a long label on two lines rather than on its side. */
      if (tw + GAP > l->step && l->step >= 72)
        {
          pango_layout_set_width (layout, (int) ((l->step - GAP) * PANGO_SCALE));
          pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
          pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
          pango_layout_get_pixel_size (layout, &tw, &th);
        }
      /* Above the point where there is room, else below it; where neither
       * side has room, shortened on the roomier one (the tooltip has it all). */
      if (tw + GAP > l->step)
        {
          double above = extent_top - GAP - l->plot_y;
          double below = l->plot_y + l->plot_h - extent_bottom - GAP;
          gboolean up = tw <= above || (tw > below && above >= below);

          if (tw > (up ? above : below))
            {
              pango_layout_set_width (layout, (int) (MAX (up ? above : below, 0) * PANGO_SCALE));
              pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
              pango_layout_get_pixel_size (layout, &tw, &th);
            }
          if (up)
            append_text_up (snapshot, layout, cx - th / 2.0, extent_top - GAP, color);
          else
            append_text_up (snapshot, layout, cx - th / 2.0, extent_bottom + GAP + tw, color);
        }
      else
        {
          if (extent_top - GAP - th >= l->plot_y)
            ks_ui_append_layout (snapshot, layout, cx - tw / 2.0, extent_top - GAP - th, color);
          else
            ks_ui_append_layout (snapshot, layout, cx - tw / 2.0, extent_bottom + GAP, color);
        }
    }
}

static void
ks_sweep_chart_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  KsSweepChart *self = KS_SWEEP_CHART (widget);
  g_autoptr (PangoLayout) caption = NULL;
  Layout l;
  GdkRGBA fg;
  double scale_left;
  int cw, ch;
  cairo_t *cr;

  ks_ui_get_text_color (widget, &fg);
  if (!compute_layout (self, &l))
    return;

  cr = gtk_snapshot_append_cairo (snapshot,
                                  &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                       gtk_widget_get_height (widget)));
  draw_grid (self, cr, &l, &fg);
  draw_points (self, cr, &l, &fg);
  cairo_destroy (cr);

  /* Labels are clipped to the widget: a long one must not paint over its neighbours. */
  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                         gtk_widget_get_height (widget)));
  draw_labels (self, snapshot, &l, &fg);
  draw_limiters (self, snapshot, &l, &fg);
  draw_scale (self, snapshot, &l, &fg, &scale_left);
  caption = small_layout (widget, self->show_bandwidth
                                    ? _("Effective bandwidth (bytes read and written once)")
                                    : _("Median kernel time, with the spread of the runs"));
  pango_layout_get_pixel_size (caption, &cw, &ch);
  if (PAD + cw + 2 * GAP <= scale_left)
    ks_ui_append_layout (snapshot, caption, PAD, PAD + (l.legend_h - ch) / 2, &fg);
  if (n_points (self) == 0)
    ks_ui_chart_append_placeholder (widget, snapshot, _("No measurements yet: start a sweep"),
                                    l.plot_x, l.plot_y, l.plot_w, l.plot_h, &fg);
  gtk_snapshot_pop (snapshot);
}

/* ---- pointer and keyboard ------------------------------------------------------------ */

static void
set_hover (KsSweepChart *self, int pos)
{
  const ChartPoint *p;

  if (self->hover == pos)
    return;
  self->hover = pos;
  p = pos >= 0 ? point_nth (self, pos) : NULL;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self),
                                   p != NULL && p->refused == NULL ? "pointer" : NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion_cb (GtkEventControllerMotion *controller, double x, double y, KsSweepChart *self)
{
  Layout l;

  set_hover (self, compute_layout (self, &l) ? column_at (self, &l, x, y) : -1);
}

static void
on_leave_cb (GtkEventControllerMotion *controller, KsSweepChart *self)
{
  set_hover (self, -1);
}

static void
on_released_cb (GtkGestureClick *gesture, int n_press, double x, double y, KsSweepChart *self)
{
  if (ks_sweep_chart_click (self, x, y))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static gboolean
activate_hover (KsSweepChart *self)
{
  const ChartPoint *p;

  if (self->hover < 0 || (guint) self->hover >= n_points (self))
    return FALSE;
  p = point_nth (self, self->hover);
  if (p->refused != NULL)
    return FALSE;
  g_signal_emit (self, signals[SIGNAL_POINT_ACTIVATED], 0, p->index);
  return TRUE;
}

/* Left and Right walk the columns, Enter applies one: the chart works without a pointer. */
static gboolean
on_key_pressed_cb (GtkEventControllerKey *controller, guint keyval, guint keycode,
                   GdkModifierType state, KsSweepChart *self)
{
  int n = (int) n_points (self);

  if (n == 0)
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      set_hover (self, self->hover <= 0 ? 0 : self->hover - 1);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      set_hover (self, self->hover < 0 ? 0 : MIN (self->hover + 1, n - 1));
      return TRUE;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_space:
      return activate_hover (self);
    default:
      return FALSE;
    }
}

static char *
describe_point (KsSweepChart *self, const ChartPoint *p)
{
  g_autofree char *block = block_text (&p->block);
  g_autofree char *median = ks_ui_format_ms_short (p->median_ms);
  g_autofree char *mad = ks_ui_format_ms_short (p->mad_ms);
  g_autofree char *min = ks_ui_format_ms_short (p->min_ms);
  g_autofree char *max = ks_ui_format_ms_short (p->max_ms);
  g_autofree char *gbs = format_gbs (p->gbs);
  GString *s = g_string_new (NULL);
  g_autofree char *head = NULL;

  head = g_markup_printf_escaped (ngettext ("<b>Block %s</b>, %u thread",
                                            "<b>Block %s</b>, %u threads", p->threads),
                                  block, p->threads);
  g_string_append (s, head);
  if (p->refused != NULL)
    {
      g_autofree char *line = g_markup_printf_escaped (_("Refused: %s"), p->refused);

      g_string_append_printf (s, "\n%s", line);
      return g_string_free (s, FALSE);
    }
  g_string_append_c (s, '\n');
  g_string_append_printf (s, ngettext ("Median %s ± %s over %u run",
                                       "Median %s ± %s over %u runs", p->runs),
                          median, mad, p->runs);
  g_string_append_c (s, '\n');
  g_string_append_printf (s, _("Fastest %s, slowest %s"), min, max);
  g_string_append_c (s, '\n');
  g_string_append_printf (s, _("Effective bandwidth %s"), gbs);
  g_string_append_c (s, '\n');
  if (p->has_occupancy)
    {
      g_autofree char *line =
        g_markup_printf_escaped (_("Theoretical occupancy %.0f %% (%u blocks, %u of %u warps "
                                   "per multiprocessor), limited by %s"),
                                 p->occupancy.occupancy * 100.0, p->occupancy.active_blocks_per_sm,
                                 p->occupancy.active_warps_per_sm, p->occupancy.max_warps_per_sm,
                                 _(ks_occupancy_limit_describe (p->occupancy.limiter)));

      g_string_append (s, line);
    }
  else
    g_string_append (s, _("No occupancy on the CPU engine"));
  if ((int) p->index == self->fastest)
    g_string_append_printf (s, "\n<b>%s</b>", _("The fastest shape of this sweep"));
  g_string_append_printf (s, "\n<i>%s</i>", _("Click to launch with this block"));
  return g_string_free (s, FALSE);
}

static gboolean
ks_sweep_chart_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard_mode,
                              GtkTooltip *tooltip)
{
  KsSweepChart *self = KS_SWEEP_CHART (widget);
  g_autofree char *markup = NULL;
  Layout l;
  int pos;

  if (!compute_layout (self, &l))
    return FALSE;
  pos = keyboard_mode ? self->hover : column_at (self, &l, x, y);
  if (pos < 0)
    return FALSE;
  markup = describe_point (self, point_nth (self, pos));
  gtk_tooltip_set_markup (tooltip, markup);
  /* A new tooltip for every column, not one that follows the pointer across them. */
  gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) { (int) floor (l.plot_x + pos * l.step),
                                                       (int) l.plot_y, (int) ceil (l.step),
                                                       (int) l.plot_h });
  return TRUE;
}

/* ---- GObject ----------------------------------------------------------------------- */

static void
ks_sweep_chart_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                        int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 320;
      *natural = 720;
    }
  else
    {
      *minimum = 220;
      *natural = 360;
    }
}

static void
ks_sweep_chart_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsSweepChart *self = KS_SWEEP_CHART (object);

  switch (prop_id)
    {
    case PROP_SHOW_BANDWIDTH:
      g_value_set_boolean (value, self->show_bandwidth);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_sweep_chart_set_property (GObject *object, guint prop_id, const GValue *value,
                             GParamSpec *pspec)
{
  KsSweepChart *self = KS_SWEEP_CHART (object);

  switch (prop_id)
    {
    case PROP_SHOW_BANDWIDTH:
      ks_sweep_chart_set_show_bandwidth (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_sweep_chart_finalize (GObject *object)
{
  KsSweepChart *self = KS_SWEEP_CHART (object);

  g_clear_pointer (&self->points, g_array_unref);

  G_OBJECT_CLASS (ks_sweep_chart_parent_class)->finalize (object);
}

static void
ks_sweep_chart_class_init (KsSweepChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = ks_sweep_chart_get_property;
  object_class->set_property = ks_sweep_chart_set_property;
  object_class->finalize = ks_sweep_chart_finalize;
  widget_class->snapshot = ks_sweep_chart_snapshot;
  widget_class->measure = ks_sweep_chart_measure;
  widget_class->query_tooltip = ks_sweep_chart_query_tooltip;

  properties[PROP_SHOW_BANDWIDTH] =
    g_param_spec_boolean ("show-bandwidth", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_POINT_ACTIVATED] =
    g_signal_new ("point-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_css_name (widget_class, "ks-sweep-chart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ks_sweep_chart_init (KsSweepChart *self)
{
  GtkEventController *controller;
  GtkGesture *click;

  self->fastest = -1;
  self->hover = -1;
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "enter", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "released", G_CALLBACK (on_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (on_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

/* ---- public ----------------------------------------------------------------------- */

GtkWidget *
ks_sweep_chart_new (void)
{
  return g_object_new (KS_TYPE_SWEEP_CHART, NULL);
}

void
ks_sweep_chart_set_points (KsSweepChart *self, const GArray *points, int fastest, gboolean cuda)
{
  g_return_if_fail (KS_IS_SWEEP_CHART (self));
  g_return_if_fail (points == NULL
                    || g_array_get_element_size ((GArray *) points) == sizeof (KsSweepPoint));

  g_clear_pointer (&self->points, g_array_unref);
  self->points = g_array_new (FALSE, TRUE, sizeof (ChartPoint));
  g_array_set_clear_func (self->points, point_clear);
  for (guint i = 0; points != NULL && i < points->len; i++)
    {
      const KsSweepPoint *sp = &g_array_index (points, KsSweepPoint, i);
      ChartPoint p = { 0 };

      p.index = i;
      p.block = sp->block;
      p.threads = sp->block.x * sp->block.y * sp->block.z;
      p.refused = g_strdup (sp->refused);
      p.median_ms = sp->timing.median_ms;
      p.mad_ms = sp->timing.mad_ms;
      p.min_ms = sp->timing.min_ms;
      p.max_ms = sp->timing.max_ms;
      p.runs = sp->timing.n;
      p.gbs = sp->gbs;
      p.has_occupancy = cuda && sp->has_occupancy;
      p.occupancy = sp->occupancy;
      g_array_append_val (self->points, p);
    }
  g_array_sort (self->points, compare_points);
  self->fastest = points != NULL && fastest >= 0 && (guint) fastest < points->len ? fastest : -1;
  self->cuda = cuda;
  self->hover = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ks_sweep_chart_get_n_points (KsSweepChart *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), 0);
  return n_points (self);
}

void
ks_sweep_chart_set_show_bandwidth (KsSweepChart *self, gboolean show_bandwidth)
{
  g_return_if_fail (KS_IS_SWEEP_CHART (self));

  show_bandwidth = !!show_bandwidth;
  if (self->show_bandwidth == show_bandwidth)
    return;
  self->show_bandwidth = show_bandwidth;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_BANDWIDTH]);
}

gboolean
ks_sweep_chart_get_show_bandwidth (KsSweepChart *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), FALSE);
  return self->show_bandwidth;
}

void
ks_sweep_chart_set_current_block (KsSweepChart *self, const KsDim3 *block)
{
  g_return_if_fail (KS_IS_SWEEP_CHART (self));

  if (block == NULL ? !self->has_current
                    : self->has_current && self->current.x == block->x
                        && self->current.y == block->y && self->current.z == block->z)
    return;
  self->has_current = block != NULL;
  if (block != NULL)
    self->current = *block;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ks_sweep_chart_get_current_block (KsSweepChart *self, KsDim3 *block)
{
  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), FALSE);
  if (self->has_current && block != NULL)
    *block = self->current;
  return self->has_current;
}

gboolean
ks_sweep_chart_get_point_position (KsSweepChart *self, guint index, double *x, double *y)
{
  Layout l;
  int pos;
  double px, py;

  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), FALSE);
  pos = position_of_index (self, index);
  if (pos < 0 || !compute_layout (self, &l))
    return FALSE;
  point_center (self, &l, pos, &px, &py);
  if (x != NULL)
    *x = px;
  if (y != NULL)
    *y = py;
  return TRUE;
}

int
ks_sweep_chart_point_at (KsSweepChart *self, double x, double y)
{
  Layout l;
  int pos;

  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), -1);
  if (!compute_layout (self, &l))
    return -1;
  pos = column_at (self, &l, x, y);
  return pos >= 0 ? (int) point_nth (self, pos)->index : -1;
}

gboolean
ks_sweep_chart_click (KsSweepChart *self, double x, double y)
{
  Layout l;

  g_return_val_if_fail (KS_IS_SWEEP_CHART (self), FALSE);
  if (!compute_layout (self, &l))
    return FALSE;
  set_hover (self, column_at (self, &l, x, y));
  return activate_hover (self);
}
