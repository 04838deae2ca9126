/* ks-device-panel.h: the device — which one runs (the CPU engine is its own
 * entry), every property the engine reports in groups, the derived peaks, and
 * how the result reaches the screen. */
#pragma once

#include <gtk/gtk.h>

#include "ks-panel.h"

G_BEGIN_DECLS

#define KS_TYPE_DEVICE_PANEL (ks_device_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsDevicePanel, ks_device_panel, KS, DEVICE_PANEL, KsPanel)

GtkWidget  *ks_device_panel_new              (void);
/* KsPanel's "pipeline", with the panel's type checked (the tests call it). */
void        ks_device_panel_set_pipeline     (KsDevicePanel *self, KsPipeline *pipeline);
/* What the window knows about the display: the GL renderer string and the
 * interop status ("CUDA–OpenGL interop active", or why not). NULL: unknown. */
void        ks_device_panel_set_display_info (KsDevicePanel *self, const char *gl_renderer,
                                              const char *interop_status);

/* Signal "error" (const char *message): switching devices failed; the panel
 * also shows the message and stays on the previous device. The window may
 * show it as a toast. */

G_END_DECLS
