/* ks-lesson-square.c: lesson 11-07, squaring a matrix in place with a 2-D
 * index, and the book's width written into it. */
#include "config.h"

#include "ks-error.h"
#include "ks-lesson-private.h"

static gboolean
square_setup (KsLessonRun *run, GError **error)
{
  guint side = run->size;
  KsArray *a = _ks_lesson_new_array (KS_ELEM_FLOAT32, (gsize) side * side, side, side);

  if (side > 32)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson 11-07 squares matrices up to 32×32 (one block), not %u×%u", side, side);
      ks_array_free (a);
      return FALSE;
    }
  _ks_lesson_fill_randint (a, run->options.seed, 1, 4);
  _ks_lesson_arg_array (run, "a", a, KS_ARRAY_INOUT, "drv.InOut");
  run->block = _ks_lesson_dim3 (side, side, 1);
  run->grid = _ks_lesson_dim3 (1, 1, 1);
  if (!run->variant->book)
    {
      _ks_lesson_arg_scalar (run, "width", KS_ELEM_INT32, side);
      _ks_lesson_arg_scalar (run, "height", KS_ELEM_INT32, side);
    }
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
square_reference (const KsLessonRun *run)
{
  const KsArray *a = _ks_lesson_arg_data (run, 0);
  KsArray *squares = ks_array_copy (a);

  for (gsize i = 0; i < a->length; i++)
    _ks_lesson_f32 (squares)[i] = _ks_lesson_f32 (a)[i] * _ks_lesson_f32 (a)[i];
  return squares;
}

static void
square_finish (KsLessonRun *run)
{
  guint side = run->size;
  gsize unwritten = 0, shared = 0;
  g_autoptr (GString) cells = g_string_new (NULL);

  if (!run->variant->book)
    return;
  /* Which cells the hard-coded width maps threads to, from the index math
   * itself (not from the result, where a value of 1 hides its square). */
  {
    g_autofree guint *hits = g_new0 (guint, (gsize) side * side);

    for (guint y = 0; y < side; y++)
      for (guint x = 0; x < side; x++)
        if (x + y * 5 < side * side)
          hits[x + y * 5]++;
    for (gsize i = 0; i < (gsize) side * side; i++)
      {
        unwritten += hits[i] == 0;
        shared += hits[i] > 1;
        if (hits[i] != 1 && cells->len < 200)
          g_string_append_printf (cells, "%s(%" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT ")%s",
                                  cells->len > 0 ? " " : "", i / side, i % side,
                                  hits[i] == 0 ? " never" : " twice");
      }
  }
  if (side == 5)
    _ks_lesson_note (run, "On the book's own 5×5 the width 5 in the index is right: every cell is "
                     "squared once.");
  else
    _ks_lesson_note (run, "On %u×%u the index x + 5·y is not the cell (x, y): %" G_GSIZE_FORMAT
                     " cells are never touched and %" G_GSIZE_FORMAT " are claimed by two threads "
                     "(row, column): %s. Try --size 5 to see it right.", side, side, unwritten,
                     shared, cells->str);
}

/* The side, 5 by default; the book's on 6×6 by default, to show the wrong cells. */
static gboolean
square_size (KsLessonRun *run, GError **error)
{
  guint size = run->options.size;

  run->size = size != 0 ? size : (run->variant->book ? 6 : 5);
  return TRUE;
}

static const KsLessonImpl impl_square = {
  .setup = square_setup, .reference = square_reference, .finish = square_finish,
  .size = square_size,
};

static const KsLessonVariant v_square[] = {
  KS_LESSON_FIXED ("11-07.cu", "The width is a parameter and every thread checks its cell."),
  { "book", "As in the book", "The width 5 is in the index. Run on 6×6 by default to show the "
    "wrong cells (--size 5: the book's own size, right).", TRUE, "P14", "11-07-book.cu", NULL,
    TRUE, NULL },
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-07", "square-matrix", "Squaring a matrix in place", "Chapter11/07_square.py",
             "A 5×5 block squares a 5×5 matrix, one thread per cell with a 2-D index. The book "
             "writes the row width into the index, which breaks on any other size.", v_square,
             impl_square),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_square[] = {
  &lessons[0],
  NULL,
};
