/* ks-lesson-cells.h: a small array or matrix of a lesson as cells, each
 * with its value, and (hovered, or always with show-owners) the block and
 * the thread that wrote it. Cells nothing wrote are highlighted, and so is
 * every cell that differs from the reference the cells are compared with
 * (hovering one gives the value expected and the value got). Vectors wrap
 * into rows of KS_LESSON_CELLS_ROW cells, each row led by the index of its
 * first element.
 * The font follows the widget's, so presenter mode's large type applies.
 *
 * Properties:
 *   "show-owners" boolean: every cell names its block and thread
 */
#pragma once

#include <gtk/gtk.h>

#include "ks-array.h"
#include "ks-launch.h"

G_BEGIN_DECLS

/* Cells in a row of a wrapped vector. */
#define KS_LESSON_CELLS_ROW 16

typedef enum
{
  KS_LESSON_CELL_WRITTEN,    /* written (or not tracked) and not marked */
  KS_LESSON_CELL_UNWRITTEN,  /* the owner maps say no thread wrote it */
  KS_LESSON_CELL_DIFFERENT,  /* it differs from the reference (written or not) */
} KsLessonCellState;

#define KS_TYPE_LESSON_CELLS (ks_lesson_cells_get_type ())
G_DECLARE_FINAL_TYPE (KsLessonCells, ks_lesson_cells, KS, LESSON_CELLS, GtkWidget)

GtkWidget        *ks_lesson_cells_new             (void);
/* Copies the array and the owner maps (block_of and thread_of: one linear
 * index per element, -1 where nothing wrote it; both NULL when not tracked).
 * grid and block are the launch, to name blocks and threads by (x, y, z);
 * NULL names them by their linear index. */
void              ks_lesson_cells_set_array       (KsLessonCells *self, const KsArray *array,
                                                   const gint32 *block_of,
                                                   const gint32 *thread_of,
                                                   const KsDim3 *grid, const KsDim3 *block);
/* Compares the cells with a reference, element for element over its
 * length (it may be shorter than the array): a cell further from it than
 * `tolerance` (or NaN) differs. Copies the reference; NULL compares
 * nothing. Set it after the array: a new array drops it. */
void              ks_lesson_cells_set_reference   (KsLessonCells *self, const KsArray *expected,
                                                   double tolerance);
void              ks_lesson_cells_set_show_owners (KsLessonCells *self, gboolean show);
gboolean          ks_lesson_cells_get_show_owners (KsLessonCells *self);

gsize             ks_lesson_cells_get_n_cells     (KsLessonCells *self);
/* What a cell shows: its value, as ks_array_format_element writes it. */
const char       *ks_lesson_cells_get_text        (KsLessonCells *self, gsize index);
KsLessonCellState ks_lesson_cells_get_state       (KsLessonCells *self, gsize index);
/* What hovering the cell says ("block (0, 0, 0), thread (2, 1, 0)", and
 * where it differs "expected 30, got 28"); a new string. */
char             *ks_lesson_cells_describe        (KsLessonCells *self, gsize index);
/* The element under a point of the widget, or -1. */
gssize            ks_lesson_cells_index_at        (KsLessonCells *self, double x, double y);
/* The centre of an element's cell, in widget coordinates; FALSE when none. */
gboolean          ks_lesson_cells_get_cell_center (KsLessonCells *self, gsize index, double *x,
                                                   double *y);

G_END_DECLS
