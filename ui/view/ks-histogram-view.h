/* ks-histogram-view.h: one 256-bin histogram chart (R, G, B and luma curves),
 * drawn with GtkSnapshot; hover shows the bin and its counts. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  KS_HISTOGRAM_RED = 1 << 0,
  KS_HISTOGRAM_GREEN = 1 << 1,
  KS_HISTOGRAM_BLUE = 1 << 2,
  KS_HISTOGRAM_LUMA = 1 << 3,
} KsHistogramChannels;

#define KS_TYPE_HISTOGRAM_VIEW (ks_histogram_view_get_type ())
G_DECLARE_FINAL_TYPE (KsHistogramView, ks_histogram_view, KS, HISTOGRAM_VIEW, GtkWidget)

GtkWidget *ks_histogram_view_new          (void);
/* bins: [4][256] counts (R, G, B, luma), copied; NULL clears the chart. */
void       ks_histogram_view_set_bins     (KsHistogramView *self, const guint32 *bins);
const guint32 *ks_histogram_view_get_bins (KsHistogramView *self);
/* Properties "channels" (KsHistogramChannels mask, default all) and "log-scale". */
void       ks_histogram_view_set_channels (KsHistogramView *self, guint channels);
guint      ks_histogram_view_get_channels (KsHistogramView *self);
void       ks_histogram_view_set_log_scale (KsHistogramView *self, gboolean log_scale);
gboolean   ks_histogram_view_get_log_scale (KsHistogramView *self);
/* The bin under the pointer, or -1. */
int        ks_histogram_view_get_hover_bin (KsHistogramView *self);

/* Statistics of one channel (0 = R … 3 = luma): mean, median, min and max
 * value present; FALSE when the histogram is empty. */
gboolean   ks_histogram_stats             (const guint32 *bins, guint channel, double *mean,
                                           guint *median, guint *min, guint *max);

G_END_DECLS
