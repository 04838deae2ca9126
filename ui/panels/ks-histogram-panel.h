/* ks-histogram-panel.h: histograms of input A and of the output, as the
 * engine's histogram kernel counts them, with channel toggles, a log scale and
 * per-channel statistics. */
#pragma once

#include <gtk/gtk.h>

#include "ks-panel.h"

G_BEGIN_DECLS

#define KS_TYPE_HISTOGRAM_PANEL (ks_histogram_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsHistogramPanel, ks_histogram_panel, KS, HISTOGRAM_PANEL, KsPanel)

GtkWidget  *ks_histogram_panel_new          (void);
/* KsPanel's "pipeline", with the panel's type checked (the tests call it). */
void        ks_histogram_panel_set_pipeline (KsHistogramPanel *self, KsPipeline *pipeline);

G_END_DECLS
