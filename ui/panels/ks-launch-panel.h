/* ks-launch-panel.h: the launch configuration — block and grid editors, the
 * automatic grid, the thread-to-pixel mapping, presets — with the engine's
 * validation shown inline (and a one-click fix), threads against pixels and
 * the theoretical occupancy. */
#pragma once

#include <gtk/gtk.h>

#include "ks-panel.h"

G_BEGIN_DECLS

#define KS_TYPE_LAUNCH_PANEL (ks_launch_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsLaunchPanel, ks_launch_panel, KS, LAUNCH_PANEL, KsPanel)

GtkWidget  *ks_launch_panel_new          (void);
/* KsPanel's "pipeline", with the panel's type checked (the tests call it). */
void        ks_launch_panel_set_pipeline (KsLaunchPanel *self, KsPipeline *pipeline);

G_END_DECLS
