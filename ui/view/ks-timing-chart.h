/* ks-timing-chart.h: the history of kernel and display times, drawn with
 * GtkSnapshot (newest on the right; warm-up runs marked). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define KS_TYPE_TIMING_CHART (ks_timing_chart_get_type ())
G_DECLARE_FINAL_TYPE (KsTimingChart, ks_timing_chart, KS, TIMING_CHART, GtkWidget)

GtkWidget *ks_timing_chart_new          (void);
/* samples: KsTimingSample (ks-pipeline.h); copied. */
void       ks_timing_chart_set_samples  (KsTimingChart *self, GArray *samples);

G_END_DECLS
