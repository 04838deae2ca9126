/* ks-sweep-chart.h: a block-size sweep drawn with GtkSnapshot — the median
 * kernel time (or the effective GB/s) of every block shape, on a categorical
 * axis sorted by threads per block and then by shape, widest first. Each
 * point is coloured by its theoretical occupancy (a 0–100 % scale in the
 * legend; neutral on the CPU engine, which has none) and labelled with what
 * limits it; refused shapes are crosses on the axis, the fastest is ringed,
 * the pipeline's current block is shaded. Hovering a column shows its numbers;
 * clicking a measured point emits "point-activated".
 *
 * Signals:
 *   "point-activated" (guint index)   index into the points last given
 */
#pragma once

#include <gtk/gtk.h>

#include "ks-sweep.h"

G_BEGIN_DECLS

#define KS_TYPE_SWEEP_CHART (ks_sweep_chart_get_type ())
G_DECLARE_FINAL_TYPE (KsSweepChart, ks_sweep_chart, KS, SWEEP_CHART, GtkWidget)

GtkWidget *ks_sweep_chart_new                (void);
/* points: KsSweepPoint, in sweep order (copied); fastest: an index into
 * them or -1; cuda: whether occupancy applies (else the points are neutral). */
void       ks_sweep_chart_set_points         (KsSweepChart *self, const GArray *points,
                                              int fastest, gboolean cuda);
guint      ks_sweep_chart_get_n_points       (KsSweepChart *self);
/* Property "show-bandwidth": GB/s on the vertical axis instead of time. */
void       ks_sweep_chart_set_show_bandwidth (KsSweepChart *self, gboolean show_bandwidth);
gboolean   ks_sweep_chart_get_show_bandwidth (KsSweepChart *self);
/* The block the pipeline launches with now (shaded when it is a point); NULL: none. */
void       ks_sweep_chart_set_current_block  (KsSweepChart *self, const KsDim3 *block);
gboolean   ks_sweep_chart_get_current_block  (KsSweepChart *self, KsDim3 *block);

/* Where point `index` (as given) is drawn at the widget's current size, in
 * widget coordinates; a refused shape's cross sits on the horizontal axis.
 * FALSE when there is no such point or no room to draw. */
gboolean   ks_sweep_chart_get_point_position (KsSweepChart *self, guint index, double *x,
                                              double *y);
/* The runs of neighbouring shapes with the same occupancy limiter, each
 * named once in the row above the plot. */
guint      ks_sweep_chart_get_n_limiter_runs (KsSweepChart *self);
/* The point whose column holds (x, y), or -1. */
int        ks_sweep_chart_point_at           (KsSweepChart *self, double x, double y);
/* What a click at (x, y) does: "point-activated" for a measured point.
 * TRUE when it hit one. */
gboolean   ks_sweep_chart_click              (KsSweepChart *self, double x, double y);

G_END_DECLS
