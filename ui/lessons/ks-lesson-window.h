/* ks-lesson-window.h: "Lessons" — the tutorial's examples (gpu/lessons/ks-lesson.h)
 * as lessons to run, see and break. A sidebar lists them by chapter; the
 * selected one shows its explanation, its variants (the fixed one and those
 * that reproduce the book's defects, named), its kernel in an editor (Reset
 * restores the pristine source), its launch, and after a run its data as
 * cells (inputs beside outputs, each cell naming the block and thread that
 * wrote it), images, device printf, steps, atomics, refused accesses, what a
 * sanitizer would report, the check against the CPU reference, and the
 * timings done right next to the book's single span. Where the check
 * fails, every element of the checked output that differs from the
 * reference is marked (hovering it gives the value expected) and counted; a
 * long output's heatmap has a view of its differences.
 *
 * Runs go to the pipeline's runner, on the pipeline's engine: selecting a
 * lesson or a variant runs it, and so does Run. One run is in flight at a
 * time; asking again meanwhile leaves one run waiting (the newest request),
 * never a backlog. While one runs, the status line says which and where,
 * and Cancel (or Esc) stops it at its next repeat, stage or block, keeping
 * the results shown. Leaving its lesson, variant or launch, or closing the
 * window, cancels it too.
 *
 * An edited kernel runs on either engine: the CPU engine runs its PTX as
 * the GPU would, checking every access.
 *
 * A variant with a sanitizer text has "Run under compute-sanitizer": on the
 * CUDA engine it runs the variant once under the tool (on the runner, with
 * its own Cancel) and shows the tool's error count, its findings and its
 * whole output; without CUDA or the tool the button is insensitive and the
 * line under it says why. A lesson with a live op (12-04) has "Run on the
 * Live Camera", which puts that op and the lesson's block on the pipeline
 * and opens the camera in the main window (win.open-camera), or says "No
 * Camera Found" as the main window's menu does. 11-02, which runs no
 * kernel, shows its host code for reading, what it prints with its columns
 * kept, and each device's attributes as a table of names and values.
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
/* What Cancel does: the run in flight stops, none waits behind it, and the
 * report shown stays. */
void                  ks_lesson_window_cancel         (KsLessonWindow *self);
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
 * values, and "…:NAME:heatmap", its GtkPicture), "output:NAME:differences"
 * (GtkLabel: how many elements of the checked output differ), "step:N"
 * (KsLessonCells), "image:NAME" (GtkPicture), "check", "book-check",
 * "atomics", "faults", "edit-refused", "timing-why" (GtkLabel), "printf"
 * (GtkTextView), "timings" (GtkGrid), "notes" (GtkBox). */
GtkWidget            *ks_lesson_window_get_result_widget (KsLessonWindow *self,
                                                          const char *key);
/* What hovering the heatmap "…:NAME:heatmap" at (x, y) of its picture says
 * (the element, its value, and in the view of differences the value
 * expected), or NULL off the heatmap; a new string. */
char                 *ks_lesson_window_describe_heatmap  (KsLessonWindow *self,
                                                          const char *key, double x,
                                                          double y);

G_END_DECLS
