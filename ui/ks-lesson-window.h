/* ks-lesson-window.h: "Lessons" — the tutorial's examples (gpu/ks-lesson.h)
 * as lessons to run, see and break. A sidebar lists them by chapter; the
 * selected one shows its explanation, its variants (the fixed one and those
 * that reproduce the book's defects, named), its kernel in an editor (Reset
 * restores the pristine source), its launch, and after a run its data as
 * cells (inputs beside outputs, each cell naming the block and thread that
 * wrote it), images, device printf, steps, atomics, refused accesses, what a
 * sanitizer would report, the check against the CPU reference, and the
 * timings done right next to the book's single span.
 *
 * Runs go to the pipeline's runner, on the pipeline's engine: selecting a
 * lesson or a variant runs it, and so does Run. One run is in flight at a
 * time; asking again meanwhile leaves one run waiting (the newest request),
 * never a backlog. ks_lesson_run cannot be interrupted, so there is no
 * Cancel: a run whose lesson was left is dropped when it ends.
 *
 * An edited kernel needs CUDA (the CPU twins are the pristine kernels'):
 * on the CPU engine the window says so and runs the lesson's own kernel.
 *
 * The window follows the presenter mode of the window it is transient for
 * (the "ks-presenter" CSS class: large type).
 *
 * Properties:
 *   "pipeline" KsPipeline (construct-only)
 *   "running" boolean (read-only, notifies)
 */
#pragma once

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "ks-lesson.h"
#include "ks-pipeline.h"

G_BEGIN_DECLS

#define KS_TYPE_LESSON_WINDOW (ks_lesson_window_get_type ())
G_DECLARE_FINAL_TYPE (KsLessonWindow, ks_lesson_window, KS, LESSON_WINDOW, AdwWindow)

/* Transient for parent, not modal. */
GtkWidget            *ks_lesson_window_new            (GtkWindow *parent, KsPipeline *pipeline);
KsPipeline           *ks_lesson_window_get_pipeline   (KsLessonWindow *self);

/* Selects a lesson (by id or slug) and its fixed variant, and runs it.
 * FALSE when there is no such lesson. */
gboolean              ks_lesson_window_select         (KsLessonWindow *self, const char *name);
const KsLesson       *ks_lesson_window_get_lesson     (KsLessonWindow *self);
/* Selects a variant of the shown lesson by id, and runs it. */
gboolean              ks_lesson_window_select_variant (KsLessonWindow *self, const char *id);
const KsLessonVariant *ks_lesson_window_get_variant   (KsLessonWindow *self);

/* What Run does. */
void                  ks_lesson_window_run            (KsLessonWindow *self);
/* A run is in flight (or waiting behind one). */
gboolean              ks_lesson_window_get_running    (KsLessonWindow *self);
/* The report shown (of the selected lesson and variant), or NULL. */
const KsLessonReport *ks_lesson_window_get_report     (KsLessonWindow *self);
/* Runs started since the window opened. */
guint                 ks_lesson_window_get_n_runs     (KsLessonWindow *self);

/* The kernel editor's buffer, and whether it differs from the pristine source. */
GtkSourceBuffer      *ks_lesson_window_get_buffer     (KsLessonWindow *self);
gboolean              ks_lesson_window_get_edited     (KsLessonWindow *self);
/* What Reset does: the variant's pristine source back in the editor. */
void                  ks_lesson_window_reset_source   (KsLessonWindow *self);

/* A part of the result area by what it shows, as the user sees it (NULL
 * when the report has none): "input:NAME" and "output:NAME" (KsLessonCells,
 * or for a long array "…:NAME:values", the label with its first and last
 * values), "step:N" (KsLessonCells), "image:NAME" (GtkPicture), "check",
 * "book-check", "atomics", "faults", "edit-refused", "timing-why"
 * (GtkLabel), "printf" (GtkTextView), "timings" (GtkGrid), "notes" (GtkBox). */
GtkWidget            *ks_lesson_window_get_result_widget (KsLessonWindow *self,
                                                          const char *key);

G_END_DECLS
