/* ks-window-private.h: what the files of KsWindow share — its instance
 * struct, the accessors of that shared state, and what each file of a
 * concern offers the others.
 *
 * The calls between these files go one way, down: each calls only files
 * listed below it, so that no two of them call each other, directly or
 * through others (tests/check-layers.py finds such circles):
 *
 *   ks-session.c          ks-session.h's functions that take a window: they
 *                         check it, and hand on to the session files
 *   ks-window.c           the type: G_DEFINE_FINAL_TYPE, class_init, init,
 *                         dispose, and every entry point that checks a
 *                         KsWindow; it calls into each concern
 *   ks-window-actions.c   actions, shortcuts, drag and drop, the recent
 *                         files; they open the preferences, the sweep
 *                         window and the sessions
 *   ks-window-camera.c    the camera
 *   ks-window-lessons.c   the Lessons window
 *   ks-session-*.c        sessions and bundles (ks-session-private.h)
 *   ks-window-view.c      the view's readouts and controls
 *   ks-window-panes.c     the side panels, the kernel pane, presenter mode
 *   ks-window-inputs.c    where the inputs come from
 *   ks-window-status.c    the title, the status line, the banner
 *   ks-window-settings.c  GSettings (it takes the settings and the pipeline)
 *   this header           the struct and static inline accessors
 *
 * Why the type is on top, and how the concerns still get a checked window:
 * KS_WINDOW () and KS_IS_WINDOW () call ks_window_get_type (), which
 * G_DEFINE_FINAL_TYPE defines in the file of the class_init, and the
 * class_init installs every concern's actions. A concern that checked a
 * window would call back up into the file that calls it, and a plain cast
 * ((KsWindow *) widget) would lose the check. So no concern checks one:
 * ks-window.c (and for ks-session.h, ks-session.c) does, at every way in.
 *
 *   - Actions: each concern lists its own in a NULL-terminated
 *     KsWindowActionEntry table, whose handlers take the KsWindow.
 *     ks-window.c installs every entry with one GtkWidget callback of the
 *     exact GtkWidgetActionActivateFunc signature, which checks and casts
 *     the widget (KS_WINDOW) and runs the handler of that action's name:
 *     exact signatures at both ends, no function pointer cast, the check
 *     kept. Key bindings, template callbacks and signal handlers stay with
 *     their concern (_ks_window_class_init_* and _ks_window_setup_*, which
 *     the class_init and init call).
 *   - Public functions that check their window (ks_window_open_file,
 *     ks_session_open, …) are thin wrappers, in ks-window.c or ks-session.c,
 *     over the unchecked _ks_ function that the concerns call among
 *     themselves with a window already checked.
 *   - The concerns read the struct's fields (self->pipeline, self->view)
 *     rather than the public, checking getters.
 *   - _ks_window_get_camera, which only the tests call, checks the nearest
 *     type its file may: AdwApplicationWindow.
 */
#pragma once

#include "ks-camera.h"
#include "ks-console-panel.h"
#include "ks-device-panel.h"
#include "ks-image-view.h"
#include "ks-kernel-panel.h"
#include "ks-timing-panel.h"
#include "ks-ui-util.h"
#include "ks-window.h"

G_BEGIN_DECLS

struct _KsWindow
{
  AdwApplicationWindow parent_instance;

  /* template widgets */
  AdwToastOverlay *toast_overlay;
  AdwWindowTitle *window_title;
  GtkToggleButton *left_toggle;
  GtkToggleButton *right_toggle;
  GtkRevealer *banner_revealer;
  GtkLabel *banner_label;
  GtkWidget *left_panel;
  GtkWidget *left_separator;
  GtkWidget *right_panel;
  GtkWidget *right_separator;
  KsImageView *view;
  GtkLabel *inspector_label;
  GtkAdjustment *split_adjustment;
  GtkLabel *zoom_label;
  GtkLabel *status_label;
  KsDevicePanel *device_panel;
  KsTimingPanel *timing_panel;
  GtkToggleButton *kernel_toggle;
  GtkWidget *kernel_pane;
  KsKernelPanel *kernel_panel;
  KsConsolePanel *console_panel;
  GMenu *recent_section;
  GMenu *camera_section;        /* bound and filled by ks-window-camera.c */
  GtkWidget *header_bar;
  GtkDropDown *overlay_dropdown;
  GtkWidget *opacity_scale;
  GtkAdjustment *opacity_adjustment;
  GtkLabel *cost_label;
  GtkLabel *legend_label;

  /* owned */
  KsPipeline *pipeline;
  char *last_message;
  GSettings *settings;
  /* Where each input came from: a file, a bundled sample's name, or neither
   * (pasted, the test card). */
  GFile *input_files[2];
  char *input_samples[2];

  guint display_info_source;
  gboolean presenter;
  AdwColorScheme scheme_before_presenter;
  GtkWidget *sweep_window;      /* weak: the open Sweep Block Sizes window */
};

/* One action of the window, as the file of its concern implements it: the
 * handler gets the window that ks-window.c checked. */
typedef struct
{
  const char *name;             /* "win.open" */
  const char *parameter_type;   /* a GVariant type string, or NULL */
  void (*activate) (KsWindow *self, const char *action_name, GVariant *parameter);
} KsWindowActionEntry;

/* ---- the shared state ------------------------------------------------------ */

static inline void
_ks_window_toast (KsWindow *self, const char *message)
{
  AdwToast *toast;

  g_free (self->last_message);
  self->last_message = g_strdup (message);
  toast = ks_ui_toast_new (message);
  adw_toast_set_timeout (toast, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* The primary menu's "Recent" submenu, filled from GtkRecentManager. */
static inline GMenu *
_ks_window_get_recent_menu (KsWindow *self)
{
  return self->recent_section;
}

/* The application's settings; NULL where the schema is not installed. */
static inline GSettings *
_ks_window_get_settings (KsWindow *self)
{
  return self->settings;
}

/* Where an input came from: the file it was read from, or the name of the
 * bundled sample ("astronaut"); both NULL for a pasted image or the test card. */
static inline GFile *
_ks_window_get_input_file (KsWindow *self, KsInputSlot slot)
{
  return self->input_files[slot];
}

static inline const char *
_ks_window_get_input_sample (KsWindow *self, KsInputSlot slot)
{
  return self->input_samples[slot];
}

/* ---- ks-window.c: the type ------------------------------------------------- */

/* The editor and its console (tests reach them here). */
KsKernelPanel  *ks_window_get_kernel_panel  (KsWindow *self);
KsConsolePanel *ks_window_get_console_panel (KsWindow *self);

/* ---- ks-window-status.c ----------------------------------------------------- */

/* Binds the template callbacks of the banner and the panels' errors. */
void _ks_window_class_init_status (GtkWidgetClass *widget_class);
/* Follows the pipeline and the view: the title, the status line, the zoom,
 * the display info, the banner when the GPU is lost, failed runs. */
void _ks_window_setup_status      (KsWindow *self);
/* The zoom, the display info, the status line and the title as they are now. */
void _ks_window_refresh_status    (KsWindow *self);
void _ks_window_update_title      (KsWindow *self);

/* ---- ks-window-view.c ------------------------------------------------------- */

/* win.overlay ("s": an overlay's name) */
extern const KsWindowActionEntry _ks_window_view_actions[];
/* The Alt+0 … Alt+4 shortcuts. */
void _ks_window_class_init_view (GtkWidgetClass *widget_class);
/* The pixel inspector, the overlay's menu, opacity, legend and cost, and
 * the split slider follow the view and the pipeline. */
void _ks_window_setup_view      (KsWindow *self);
/* The view's overlay (the Alt+0 … Alt+4 shortcuts and the bottom bar's menu). */
void _ks_window_set_overlay     (KsWindow *self, KsOverlayMode mode);

/* ---- ks-window-panes.c ------------------------------------------------------ */

/* win.presenter and win.leave-presenter */
extern const KsWindowActionEntry _ks_window_panes_actions[];
/* F11 and Esc, and the template callbacks of the panes' toggles. */
void _ks_window_class_init_panes (GtkWidgetClass *widget_class);
void _ks_window_setup_panes      (KsWindow *self);
/* Presenter mode: full screen, large type, high contrast; F11 or Esc leave. */
void     _ks_window_set_presenter  (KsWindow *self, gboolean presenter);
gboolean _ks_window_get_presenter  (KsWindow *self);
void _ks_window_set_panels_visible (KsWindow *self, gboolean left, gboolean right);
gboolean _ks_window_get_left_visible (KsWindow *self);
gboolean _ks_window_get_right_visible (KsWindow *self);
/* The kernel editor's pane: shown, the editor's last good kernel runs. */
void _ks_window_set_kernel_visible (KsWindow *self, gboolean visible);
gboolean _ks_window_get_kernel_visible (KsWindow *self);

/* ---- ks-window-inputs.c ----------------------------------------------------- */

/* ks_window_open_file and ks_window_open_image, for a window already checked. */
void _ks_window_open_file  (KsWindow *self, GFile *file, KsInputSlot slot);
void _ks_window_open_image (KsWindow *self, KsImage *image, const char *name,
                            KsInputSlot slot);

/* ---- ks-window-actions.c ---------------------------------------------------- */

/* Opening, pasting and saving images, zoom, run, the panes, the sessions,
 * the recent files, the preferences and the sweep window. */
extern const KsWindowActionEntry _ks_window_actions[];
/* Their keyboard shortcuts. */
void _ks_window_class_init_actions (GtkWidgetClass *widget_class);
void _ks_window_setup_dnd         (KsWindow *self);
/* The "Recent" submenu, filled with the images and sessions Kernelscope
 * opened or saved, and kept up to date. */
void _ks_window_setup_recent (KsWindow *self);
/* ks_window_save_result, for a window already checked. */
void _ks_window_save_result  (KsWindow *self, GFile *file);

/* ---- ks-session-window.c ---------------------------------------------------- */

/* A window that ks_session_start_window set up writes its session to the
 * last session file (off the main thread). */
void _ks_window_session_dispose (KsWindow *self);

/* ---- ks-window-settings.c --------------------------------------------------- */

/* The launch a new window starts with (launch-defaults); the device it
 * starts on (default-engine; NULL: the pipeline's own choice); the style
 * following color-scheme for as long as owner lives. The last state comes
 * from the last session (ks-session-window.c), not from here. */
void      _ks_window_settings_apply_launch_defaults (GSettings *settings, KsPipeline *pipeline);
KsDevice *_ks_window_settings_start_device (GSettings *settings, GError **error);
void      _ks_window_settings_follow_style (GSettings *settings, gpointer owner);
/* The launch follows a change of launch-defaults while the pipeline lives. */
void      _ks_window_settings_follow_launch_defaults (GSettings *settings, KsPipeline *pipeline);

/* ---- the window's camera (ks-window-camera.c) ------------------------------ */

/* win.open-camera ("s": an element description, "" to find a camera) and
 * win.stop-camera. */
extern const KsWindowActionEntry _ks_window_camera_actions[];
/* Binds the primary menu's "camera_section", which it fills. */
void          _ks_window_class_init_camera (GtkWidgetClass *widget_class);
/* Looks for cameras for the menu and follows the window's inputs and life. */
void          _ks_window_setup_camera      (KsWindow *self);
/* The window's camera (running or last run), or NULL. */
KsCamera     *_ks_window_get_camera        (KsWindow *self);

G_END_DECLS
