#pragma once

#include <adwaita.h>

#include "ks-pipeline.h"

G_BEGIN_DECLS

#define KS_TYPE_WINDOW (ks_window_get_type ())
G_DECLARE_FINAL_TYPE (KsWindow, ks_window, KS, WINDOW, AdwApplicationWindow)

KsWindow   *ks_window_new             (GtkApplication *application);
KsPipeline *ks_window_get_pipeline    (KsWindow *self);
/* Loads a file in a worker thread; on failure a toast says why and the
 * current images stay. */
void        ks_window_open_file       (KsWindow *self, GFile *file, KsInputSlot slot);
/* Writes the result to a PNG file off the main thread; a toast says when it
 * is done, or why it failed. */
void        ks_window_save_result     (KsWindow *self, GFile *file);
/* Uploads it on the pipeline's worker; on failure a toast says why and the
 * current image stays. */
void        ks_window_open_image      (KsWindow *self, KsImage *image, const char *name,
                                       KsInputSlot slot);
void        ks_window_open_sample     (KsWindow *self);
/* One of the bundled photos: "astronaut" or "coffee". */
void        ks_window_open_named_sample (KsWindow *self, const char *name);
/* What a bug report needs about this window's display: the GL renderer, the
 * interop status and the path results take to the screen. */
char       *ks_window_get_debug_info  (KsWindow *self);
/* The last message shown in a toast (tests). */
const char *ks_window_get_last_message (KsWindow *self);
GtkWidget  *ks_window_get_view        (KsWindow *self);

G_END_DECLS
