/* ks-console-panel.h: what the user's kernel printed and what happened to
 * each launch — a header per launch (its number, grid, block and time), the
 * device printf text, lines the printf buffer lost, faults, time-outs and
 * worker restarts in plain words. The text is selectable; Clear empties it. */
#pragma once

#include <gtk/gtk.h>

#include "ks-panel.h"

G_BEGIN_DECLS

#define KS_TYPE_CONSOLE_PANEL (ks_console_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsConsolePanel, ks_console_panel, KS, CONSOLE_PANEL, KsPanel)

GtkWidget  *ks_console_panel_new            (void);

/* One launch; the same failure as the previous launch's replaces it, so that
 * typing in the editor does not fill the console with one message. */
void        ks_console_panel_add_report     (KsConsolePanel *self, const KsUserRunReport *report);
/* A line of Kernelscope's own (the worker started, a compile-only note). */
void        ks_console_panel_add_note       (KsConsolePanel *self, const char *text);
void        ks_console_panel_clear          (KsConsolePanel *self);
/* Everything shown, as plain text. */
char       *ks_console_panel_get_text       (KsConsolePanel *self);

G_END_DECLS
