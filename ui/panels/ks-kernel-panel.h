/* ks-kernel-panel.h: the kernel editor — CUDA C in a GtkSourceView, compiled
 * as the user types (in the pipeline's worker, ~300 ms after the last
 * change), its diagnostics marked on their lines and listed, the compiled
 * entry's resources, its declared parameters as widgets, and, while the
 * panel is active, the last source that compiled running in the pipeline in
 * place of the op. The text is never lost: a failed compile, a worker crash
 * or a fault keeps it, and the last good version keeps running. */
#pragma once

#include <gtksourceview/gtksource.h>

#include "ks-declared-kernel.h"
#include "ks-panel.h"

G_BEGIN_DECLS

/* Compile this long after the last change. */
#define KS_KERNEL_PANEL_DEBOUNCE_MS 300

#define KS_TYPE_KERNEL_PANEL (ks_kernel_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsKernelPanel, ks_kernel_panel, KS, KERNEL_PANEL, KsPanel)

GtkWidget       *ks_kernel_panel_new            (void);
/* Property "active": while TRUE the last good image kernel runs in the
 * pipeline; FALSE gives the pipeline back to the built-in op. */
void             ks_kernel_panel_set_active     (KsKernelPanel *self, gboolean active);
gboolean         ks_kernel_panel_get_active     (KsKernelPanel *self);

/* Property "mode" (KsKernelMode as an int): a change recompiles. */
void             ks_kernel_panel_set_mode       (KsKernelPanel *self, KsKernelMode mode);
KsKernelMode     ks_kernel_panel_get_mode       (KsKernelPanel *self);
GtkSourceBuffer *ks_kernel_panel_get_buffer     (KsKernelPanel *self);
/* Replaces the text (not an unsaved change when from a file or a template). */
void             ks_kernel_panel_set_text       (KsKernelPanel *self, const char *text);
/* The bundled templates: "invert", "gray", "box-blur", "add-arrays",
 * "histogram"; each sets its mode. "declared-axpy", "declared-dot" and
 * "declared-cumsum" fill the declaration form (ks-declared-kernel.h)
 * instead, whose generated source the editor shows read-only. */
gboolean         ks_kernel_panel_load_template  (KsKernelPanel *self, const char *name,
                                                 GError **error);
/* Reads a .cu file in the background; on failure the text stays. */
void             ks_kernel_panel_open_file      (KsKernelPanel *self, GFile *file);
/* Writes the text atomically (g_file_replace_contents) in the background. */
void             ks_kernel_panel_save_file      (KsKernelPanel *self, GFile *file);

/* Property "title": the file's name, with " •" while there are unsaved changes. */
const char      *ks_kernel_panel_get_title      (KsKernelPanel *self);
/* Property "status": "Version 7 is live · compiled in 212 ms (cached)". */
const char      *ks_kernel_panel_get_status     (KsKernelPanel *self);
/* Successful compiles so far; the newest one's source (or NULL). */
guint            ks_kernel_panel_get_version    (KsKernelPanel *self);
KsKernelSource  *ks_kernel_panel_get_last_good  (KsKernelPanel *self);
/* The newest finished compilation's diagnostics (KsDiagnostic), in order. */
const GPtrArray *ks_kernel_panel_get_diagnostics (KsKernelPanel *self);
/* A compile is waiting for the debounce or running. */
gboolean         ks_kernel_panel_is_compiling   (KsKernelPanel *self);
/* Where #include "…" and <…> look after the opened file's folder, in
 * order (NULL: nowhere else); a change compiles again. Never NULL. */
void             ks_kernel_panel_set_include_dirs (KsKernelPanel *self,
                                                   const char *const *dirs);
const char *const *ks_kernel_panel_get_include_dirs (KsKernelPanel *self);
/* The kernel chooser's pick among the text's __global__ functions, which
 * runs in place of its //@kernel; NULL while the user has picked none. A
 * pick compiles again; one the text has no kernel of is dropped then. */
const char      *ks_kernel_panel_get_kernel     (KsKernelPanel *self);
void             ks_kernel_panel_set_kernel     (KsKernelPanel *self, const char *kernel);
/* While the declaration form shows (a declared kernel): TRUE, and the
 * form's declaration in *declaration, its strings the form's own (valid
 * until the form changes). FALSE for a kernel written as CUDA. */
gboolean         ks_kernel_panel_get_declaration (KsKernelPanel *self,
                                                  KsDeclaration *declaration);
/* Opens the declaration form with this declaration (the "any" mode), whose
 * generated source the editor shows and compiles; a problem of the
 * declaration's own is listed as the form lists it. */
void             ks_kernel_panel_set_declaration (KsKernelPanel *self,
                                                  const KsDeclaration *declaration);
/* Compiles now instead of after the debounce. */
void             ks_kernel_panel_compile_now    (KsKernelPanel *self);

G_END_DECLS
