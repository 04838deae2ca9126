/* ks-launch-panel.h: the launch configuration — block and grid editors, the
 * automatic grid, the thread-to-pixel mapping, presets — with the engine's
 * validation shown inline (and a one-click fix), threads against pixels and
 * the theoretical occupancy. */
#pragma once

#include <gtk/gtk.h>

#include "ks-pipeline.h"

G_BEGIN_DECLS

#define KS_TYPE_LAUNCH_PANEL (ks_launch_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsLaunchPanel, ks_launch_panel, KS, LAUNCH_PANEL, GtkWidget)

GtkWidget  *ks_launch_panel_new          (void);
/* Property "pipeline". */
void        ks_launch_panel_set_pipeline (KsLaunchPanel *self, KsPipeline *pipeline);
KsPipeline *ks_launch_panel_get_pipeline (KsLaunchPanel *self);

G_END_DECLS
