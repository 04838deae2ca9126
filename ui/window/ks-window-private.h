/* What ks-window.c and ks-window-actions.c share. */
#pragma once

#include "ks-camera.h"
#include "ks-console-panel.h"
#include "ks-kernel-panel.h"
#include "ks-window.h"

G_BEGIN_DECLS

void _ks_window_class_init_actions (GtkWidgetClass *widget_class);
void _ks_window_setup_dnd         (KsWindow *self);
void _ks_window_toast              (KsWindow *self, const char *message);
/* The primary menu's "Recent" submenu, filled from GtkRecentManager. */
GMenu *_ks_window_get_recent_menu  (KsWindow *self);
/* The view's overlay (the Alt+0 … Alt+4 shortcuts and the bottom bar's menu). */
void _ks_window_set_overlay        (KsWindow *self, KsOverlayMode mode);
/* Presenter mode: full screen, large type, high contrast; F11 or Esc leave. */
void     _ks_window_set_presenter  (KsWindow *self, gboolean presenter);
gboolean _ks_window_get_presenter  (KsWindow *self);
/* Where an input came from: the file it was read from, or the name of the
 * bundled sample ("astronaut"); both NULL for a pasted image or the test card. */
GFile      *_ks_window_get_input_file   (KsWindow *self, KsInputSlot slot);
const char *_ks_window_get_input_sample (KsWindow *self, KsInputSlot slot);
void _ks_window_set_panels_visible (KsWindow *self, gboolean left, gboolean right);
gboolean _ks_window_get_left_visible (KsWindow *self);
gboolean _ks_window_get_right_visible (KsWindow *self);
/* The kernel editor's pane: shown, the editor's last good kernel runs. */
void _ks_window_set_kernel_visible (KsWindow *self, gboolean visible);
gboolean _ks_window_get_kernel_visible (KsWindow *self);
/* The editor and its console (tests reach them here). */
KsKernelPanel  *ks_window_get_kernel_panel  (KsWindow *self);
KsConsolePanel *ks_window_get_console_panel (KsWindow *self);

/* ks-window-actions.c: the "Recent" submenu, filled with the images and
 * sessions Kernelscope opened or saved, and kept up to date. */
void _ks_window_setup_recent (KsWindow *self);
/* ks-session.c: a window that ks_session_start_window set up writes its
 * session to the last session file (off the main thread). */
void _ks_window_session_dispose (KsWindow *self);

/* The application's settings; NULL where the schema is not installed. */
GSettings *_ks_window_get_settings (KsWindow *self);

/* ks-window-settings.c: the last op, parameters, launch and engine, saved
 * when the window closes and given back when one opens (restore-last); the
 * device a new window starts on (NULL: the pipeline's own choice); the style
 * following color-scheme for as long as owner lives. */
void      _ks_window_settings_save         (GSettings *settings, KsPipeline *pipeline);
void      _ks_window_settings_restore      (GSettings *settings, KsPipeline *pipeline);
KsDevice *_ks_window_settings_start_device (GSettings *settings, GError **error);
void      _ks_window_settings_follow_style (GSettings *settings, gpointer owner);
/* The launch follows a change of launch-defaults while the pipeline lives. */
void      _ks_window_settings_follow_launch_defaults (GSettings *settings, KsPipeline *pipeline);

/* ---- the window's camera (ks-window-camera.c) ------------------------------ */
/* Installs win.open-camera ("s": an element description, "" to find a
 * camera) and win.stop-camera, and binds the primary menu's
 * "camera_section", which it fills. Call after the template is set. */
void          _ks_window_class_init_camera (GtkWidgetClass *widget_class);
/* Looks for cameras for the menu and follows the window's inputs and life. */
void          _ks_window_setup_camera      (KsWindow *self);
/* The window's camera (running or last run), or NULL. */
KsCamera     *_ks_window_get_camera        (KsWindow *self);

G_END_DECLS
