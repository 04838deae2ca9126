/* What ks-window.c and ks-window-actions.c share. */
#pragma once

#include "ks-window.h"

G_BEGIN_DECLS

void _ks_window_class_init_actions (GtkWidgetClass *widget_class);
void _ks_window_setup_dnd         (KsWindow *self);
void _ks_window_toast              (KsWindow *self, const char *message);
void _ks_window_set_panels_visible (KsWindow *self, gboolean left, gboolean right);
gboolean _ks_window_get_left_visible (KsWindow *self);
gboolean _ks_window_get_right_visible (KsWindow *self);

G_END_DECLS
