/* ks-window-lessons.h: the main window's "Lessons" action (ks-window-lessons.c). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Installs "win.lessons" (Ctrl+L): presents the window's one Lessons
 * window, making it on first use. Call from ks_window_class_init. */
void _ks_window_class_init_lessons (GtkWidgetClass *widget_class);

G_END_DECLS
