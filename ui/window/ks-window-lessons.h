/* ks-window-lessons.h: the main window's "Lessons" action (ks-window-lessons.c). */
#pragma once

#include "ks-window-private.h"

G_BEGIN_DECLS

/* "win.lessons": presents the window's one Lessons window, making it on
 * first use. */
extern const KsWindowActionEntry _ks_window_lessons_actions[];
/* Its shortcut, Ctrl+L. Call from ks_window_class_init. */
void _ks_window_class_init_lessons (GtkWidgetClass *widget_class);

G_END_DECLS
