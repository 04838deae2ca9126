/* What ks-window.c and ks-window-actions.c share. */
#pragma once

#include "ks-console-panel.h"
#include "ks-kernel-panel.h"
#include "ks-window.h"

G_BEGIN_DECLS

void _ks_window_class_init_actions (GtkWidgetClass *widget_class);
void _ks_window_setup_dnd         (KsWindow *self);
void _ks_window_toast              (KsWindow *self, const char *message);
void _ks_window_set_panels_visible (KsWindow *self, gboolean left, gboolean right);
gboolean _ks_window_get_left_visible (KsWindow *self);
gboolean _ks_window_get_right_visible (KsWindow *self);
/* The kernel editor's pane: shown, the editor's last good kernel runs. */
void _ks_window_set_kernel_visible (KsWindow *self, gboolean visible);
gboolean _ks_window_get_kernel_visible (KsWindow *self);
/* The editor and its console (tests reach them here). */
KsKernelPanel  *ks_window_get_kernel_panel  (KsWindow *self);
KsConsolePanel *ks_window_get_console_panel (KsWindow *self);

G_END_DECLS
