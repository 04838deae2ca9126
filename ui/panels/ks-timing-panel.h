/* ks-timing-panel.h: timings — the last run's stages, achieved bandwidth
 * against the device's peak, frames per second, a history chart, repeated
 * measurements with their spread, the CPU engine for comparison, and export
 * as CSV or JSON. Measure and Compare run on the pipeline's worker, with a
 * progress bar and Cancel; the frame rate shows only while frames are being
 * presented. */
#pragma once

#include <gtk/gtk.h>

#include "ks-panel.h"

G_BEGIN_DECLS

#define KS_TYPE_TIMING_PANEL (ks_timing_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsTimingPanel, ks_timing_panel, KS, TIMING_PANEL, KsPanel)

GtkWidget  *ks_timing_panel_new          (void);
/* KsPanel's "pipeline", with the panel's type checked (the tests call it). */
void        ks_timing_panel_set_pipeline (KsTimingPanel *self, KsPipeline *pipeline);
/* The timed runs of Measure and Compare (the window binds it to a setting). */
GtkAdjustment *ks_timing_panel_get_repeats_adjustment (KsTimingPanel *self);

/* Signal "error" (const char *message): a measurement or an export failed;
 * the panel also shows the message. The window may show it as a toast. */

G_END_DECLS
