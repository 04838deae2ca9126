/* ks-ui-test-helpers.h: what the ui test programs share — the display, the
 * main loop run for a while or until something holds, pipelines set up and
 * waited for, widgets found in a window's tree, and widgets rendered to
 * pixels and screenshots. */
#pragma once

#include <gtk/gtk.h>

#include "ks-pipeline.h"
#include "ks-window.h"

G_BEGIN_DECLS

/* ---- the display ------------------------------------------------------------------ */

typedef enum
{
  KS_UI_TEST_GTK = 0,
  /* adw_init: the application's widgets are libadwaita's. Left out where a
   * test's pixels were chosen against GTK's own style. */
  KS_UI_TEST_ADWAITA = 1 << 0,
  /* The application's style sheet, which the application loads itself (as
   * AdwApplication's resource base path): a window made without the
   * application needs it to look like the application in screenshots. */
  KS_UI_TEST_APP_STYLE = 1 << 1,
} KsUiTestDisplay;

/* After g_test_init: opens the display and sets up `what` on it. FALSE
 * without a display (outside xvfb-run). */
gboolean    ks_ui_test_init_display          (KsUiTestDisplay what);
/* For a program whose every test needs the display: the same, and without
 * one prints a TAP plan of no tests, skipped, with the reason; main then
 * returns 0 before g_test_run. */
gboolean    ks_ui_test_require_display       (KsUiTestDisplay what);
/* For a test that needs the display in a program that also has tests that
 * do not: TRUE (and the test is marked skipped) when there is none. */
gboolean    ks_ui_test_skip_without_display  (void);
gboolean    ks_ui_test_have_display          (void);

/* Settings from the schema compiled in the build tree (build/resources),
 * kept in memory: before anything reads settings. Returns the folder. */
char       *ks_ui_test_use_build_schemas     (void);
/* Whether that folder exists; without it, prints a TAP plan of no tests,
 * skipped, with the reason (main then returns 77). */
gboolean    ks_ui_test_have_build_schemas    (const char *dir);

/* ---- the main loop ---------------------------------------------------------------- */

/* How long a wait may last before the test fails: a safety net against a
 * hang, not a timing (CI machines under a sanitizer are slow). */
#define KS_UI_TEST_PATIENCE_S 60

/* Dispatches what is pending now, three times a millisecond apart: GTK 4
 * delivers a button's "clicked" after its activation from a timeout, and a
 * change reaches the widgets over a few idle callbacks. It drains the loop
 * each time, so it is only for programs without a live source (a camera, a
 * source that is always ready), which would keep it from returning. */
void        ks_ui_test_iterate               (void);
/* One step of waiting: at most a batch of dispatches, then a millisecond's
 * sleep. The batch is bounded because with a live source and a window
 * drawing the loop always has something pending; draining it first would
 * never come back to the condition or the clock. */
void        ks_ui_test_iterate_some          (void);
/* Runs the main loop for `ms` milliseconds, in steps of
 * ks_ui_test_iterate_some, so that the time is honoured whatever is live. */
void        ks_ui_test_iterate_for           (guint ms);

/* The monotonic time `seconds` from now, and one step of a wait towards it
 * (FALSE once it has passed): what KS_UI_TEST_WAIT_FOR is made of. */
gint64      ks_ui_test_deadline              (guint seconds);
gboolean    ks_ui_test_wait_step             (gint64 deadline_us);

/* Iterates the main loop until `cond` (an expression, evaluated between
 * steps) holds or `seconds` pass. It asserts nothing: the caller asserts
 * `cond` after it, so that the failure names what did not happen. Threads
 * may change what `cond` reads without waking the main loop: the steps
 * sleep a millisecond, never block. */
#define KS_UI_TEST_WAIT_FOR(cond, seconds)                                     \
  G_STMT_START                                                                 \
  {                                                                            \
    const gint64 ks_ui_test_deadline_ = ks_ui_test_deadline (seconds);         \
    while (!(cond) && ks_ui_test_wait_step (ks_ui_test_deadline_))             \
      ;                                                                        \
  }                                                                            \
  G_STMT_END

typedef gboolean (*KsUiTestCondition) (gpointer data);

/* The same with a function: returns whether cond (data) holds at the end. */
gboolean    ks_ui_test_wait_until            (KsUiTestCondition cond, gpointer data,
                                              guint seconds);

/* ---- pipelines -------------------------------------------------------------------- */

/* A GAsyncReadyCallback that keeps a reference to the result in
 * *(GAsyncResult **) user_data, for the test to finish the call with. */
void        ks_ui_test_on_done_cb            (GObject *object, GAsyncResult *result,
                                              gpointer user_data);
/* Iterates until ks_ui_test_on_done_cb has stored the result; returns it. */
GAsyncResult *ks_ui_test_wait_for_result     (GAsyncResult **result);
/* The pipeline works on its own thread: iterates until everything changed
 * so far is published and the pipeline idle, then once more for the
 * widgets to follow what it published. */
void        ks_ui_test_settle                (KsPipeline *pipeline);
/* Switches the pipeline to the CPU engine and waits for it: the same pixels
 * on every machine, with or without a GPU. */
void        ks_ui_test_use_cpu               (KsPipeline *pipeline);
/* Opens image as the pipeline's input in `slot` and waits for the upload. */
void        ks_ui_test_set_input             (KsPipeline *pipeline, KsInputSlot slot,
                                              KsImage *image, const char *name);

/* ---- the main window -------------------------------------------------------------- */

/* Settings as a first start has them for `keys` (NULL-terminated), with the
 * CPU engine to start on: the same pixels on every machine. */
GSettings  *ks_ui_test_fresh_settings        (const char *const *keys);
/* A main window of its own (no application), presented, a tenth of a
 * second into its start. */
KsWindow   *ks_ui_test_open_window           (void);
/* The window's pipeline idle three checks in a row (an upload's completion
 * queues the run after it); fails the test if it never is. */
void        ks_ui_test_wait_window_idle      (KsWindow *window);
/* Waits for a toast that contains `text`, and returns it. */
const char *ks_ui_test_wait_message          (KsWindow *window, const char *text);
/* Waits until input A carries this name. */
void        ks_ui_test_wait_input_name       (KsWindow *window, const char *name);
/* Destroys a window and runs the loop a while for what it held to let go. */
void        ks_ui_test_close_window          (gpointer window);

/* ---- widgets ---------------------------------------------------------------------- */

/* Appends to `found` every widget of `type` in root's tree, root included,
 * parents before their children and children in order. */
void        ks_ui_test_find_widgets          (GtkWidget *root, GType type, GPtrArray *found);
guint       ks_ui_test_count_widgets         (GtkWidget *root, GType type);
/* The first of them, or NULL. */
GtkWidget  *ks_ui_test_find_widget           (GtkWidget *root, GType type);

typedef gboolean (*KsUiTestWidgetMatch) (GtkWidget *widget, gconstpointer data);

/* The first widget of root's tree, in the same order, that `match` accepts. */
GtkWidget  *ks_ui_test_find_widget_matching  (GtkWidget *root, KsUiTestWidgetMatch match,
                                              gconstpointer data);
/* Presents the window and waits until it is mapped and `laid_out` has a
 * width: mapping goes through the X server, and the first layout comes
 * after it. */
void        ks_ui_test_present               (GtkWindow *window, GtkWidget *laid_out);
/* Whether a label the user can see (drawable) in root's tree contains text. */
gboolean    ks_ui_test_label_shows           (GtkWidget *root, const char *text);
/* The widget's first event controller of `type`, or NULL: events are
 * delivered straight to the controllers, since Xvfb has no pointer to move. */
GtkEventController *ks_ui_test_find_controller (GtkWidget *widget, GType type);
/* The template child `name` of `widget`'s class `type`; it must exist. */
gpointer    ks_ui_test_template_child        (gpointer widget, GType type, const char *name);

/* ---- pixels and screenshots ------------------------------------------------------- */

/* The widget as drawn, rendered by its window's renderer: once the changes
 * made so far are laid out (one ks_ui_test_iterate), and once it has drawn
 * its first frame (before it, its paintable gives no node: more of them, for
 * up to KS_UI_TEST_PATIENCE_S). */
GdkTexture *ks_ui_test_render                (GtkWidget *widget);
/* The texture's pixels as B, G, R, A bytes (premultiplied, as cairo and the
 * little-endian machines these tests run on order them), rows of
 * width × 4 bytes; g_free them. */
guint8     *ks_ui_test_texture_pixels        (GdkTexture *texture, int *width, int *height);
/* Both: the widget as drawn, in those bytes. */
guint8     *ks_ui_test_render_pixels         (GtkWidget *widget, int *width, int *height);
/* Writes the texture to dir/name (PNG), making dir first; says where in the
 * test's log. Returns whether the file was written. */
gboolean    ks_ui_test_write_png             (GdkTexture *texture, const char *dir,
                                              const char *name);

/* The folder of the screenshots the documentation shows: $KS_SCREENSHOT_DIR,
 * or tests/screenshots in the build tree. */
char       *ks_ui_test_screenshot_dir        (void);
/* Renders the widget into dir/name; writing it must succeed. */
void        ks_ui_test_save_screenshot_in    (GtkWidget *widget, const char *dir,
                                              const char *name);
/* The same into ks_ui_test_screenshot_dir. */
void        ks_ui_test_save_screenshot       (GtkWidget *widget, const char *name);

G_END_DECLS
