/* ks-lesson-matmul.c: lesson 11-09, the matrix product, one thread per
 * cell and in shared-memory tiles, and the book's check that passes a wrong
 * product. */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-lesson-private.h"

static gboolean
matmul_setup (KsLessonRun *run, GError **error)
{
  gboolean tiled = g_str_has_prefix (run->variant->id, "tiled");
  guint w = tiled ? (run->options.size != 0 ? run->options.size : 4) : run->size;
  KsArray *a = _ks_lesson_new_array (KS_ELEM_FLOAT32, (gsize) w * w, w, w);
  KsArray *b = _ks_lesson_new_array (KS_ELEM_FLOAT32, (gsize) w * w, w, w);
  KsArray *c = _ks_lesson_new_array (KS_ELEM_FLOAT32, (gsize) w * w, w, w);

  if (g_str_equal (run->variant->id, "book") && w != 3)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "the book's 11-09 kernel has MATRIX_SIZE 3 in its source: it takes no size");
      goto fail;
    }
  if (w > 32 || (g_str_equal (run->variant->id, "tiled-book") && w % 2 != 0))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "lesson 11-09 takes sizes up to "
                   "32%s, not %u", g_str_equal (run->variant->id, "tiled-book")
                   ? " that are multiples of the tile (2)" : "", w);
      goto fail;
    }
  if (tiled)
    {
      /* The C twin's data: A[i][j] = i, B[i][j] = j, so C[i][j] = w·i·j. */
      for (guint i = 0; i < w; i++)
        for (guint j = 0; j < w; j++)
          {
            _ks_lesson_f32 (a)[i * w + j] = (float) i;
            _ks_lesson_f32 (b)[i * w + j] = (float) j;
          }
      run->block = _ks_lesson_dim3 (2, 2, 1);
      run->grid = _ks_lesson_dim3 ((w + 1) / 2, (w + 1) / 2, 1);
      if (run->variant->book)
        memset (c->data, KS_LESSON_POISON_BYTE, ks_array_get_bytes (c));
    }
  else
    {
      _ks_lesson_fill_randint (a, run->options.seed, 1, 4);
      _ks_lesson_fill_randint (b, run->options.seed + 1, 1, 4);
      run->block = _ks_lesson_dim3 (w, w, 1);
      run->grid = _ks_lesson_dim3 (1, 1, 1);
    }
  _ks_lesson_arg_array (run, "a", a, KS_ARRAY_IN, "gpuarray.to_gpu");
  _ks_lesson_arg_array (run, "b", b, KS_ARRAY_IN, "gpuarray.to_gpu");
  _ks_lesson_arg_array (run, "c", c, KS_ARRAY_OUT,
                        tiled ? "cudaMalloc, never cleared" : "gpuarray.empty");
  if (!g_str_equal (run->variant->id, "book"))
    _ks_lesson_arg_scalar (run, "width", KS_ELEM_INT32, w);
  run->size = w;
  run->checked_arg = 2;
  return TRUE;

fail:
  ks_array_free (a);
  ks_array_free (b);
  ks_array_free (c);
  return FALSE;
}

static KsArray *
matmul_reference (const KsLessonRun *run)
{
  const KsArray *a = _ks_lesson_arg_data (run, 0), *b = _ks_lesson_arg_data (run, 1);
  gsize w = a->rows;
  KsArray *c = _ks_lesson_new_array (KS_ELEM_FLOAT32, w * w, w, w);

  for (gsize i = 0; i < w; i++)
    for (gsize j = 0; j < w; j++)
      {
        double s = 0;

        for (gsize k = 0; k < w; k++)
          s += (double) _ks_lesson_f32 (a)[i * w + k] * _ks_lesson_f32 (b)[k * w + j];
        _ks_lesson_f32 (c)[i * w + j] = (float) s;
      }
  return c;
}

/* The book's verdict: cpu.all() == gpu.all(), two booleans ("no zero anywhere"). */
static gboolean
book_all_equal (const KsArray *cpu, const KsArray *gpu)
{
  gboolean cpu_all = TRUE, gpu_all = TRUE;

  for (gsize i = 0; i < cpu->length; i++)
    cpu_all = cpu_all && ks_array_get_double (cpu, i) != 0;
  for (gsize i = 0; i < gpu->length; i++)
    gpu_all = gpu_all && ks_array_get_double (gpu, i) != 0;
  return cpu_all == gpu_all;
}

static void
matmul_finish (KsLessonRun *run)
{
  const KsArray *c = _ks_lesson_result (run, 2);

  if (g_str_equal (run->variant->id, "book"))
    {
      g_autoptr (KsArray) wrong = _ks_lesson_make_wrong (c);

      _ks_lesson_book_check (run, "cpu.all() == gpu.all(): whether both have no zero, "
                             "compared as two booleans",
                             book_all_equal (_ks_lesson_reference (run), c),
                             book_all_equal (_ks_lesson_reference (run), wrong), wrong);
    }
  else if (g_str_equal (run->variant->id, "tiled-book"))
    {
      guint32 poison;
      float poison_f;

      memset (&poison, KS_LESSON_POISON_BYTE, 4);
      memcpy (&poison_f, &poison, 4);
      _ks_lesson_note (run, "C was never cleared, so every cell is its product added to what "
                       "the buffer held before: here each cell started as %g (bytes 0x%02X, made "
                       "visible). A fresh cudaMalloc happened to read as zeros when measured, so "
                       "the book's run looks right; compute-sanitizer --tool initcheck reports "
                       "the read of uninitialised memory.", poison_f, KS_LESSON_POISON_BYTE);
    }
  if (g_str_has_prefix (run->variant->id, "tiled"))
    _ks_lesson_note (run, "Each block loads 2×2 tiles of A and B into shared memory per step: "
                     "every element is read from global memory %u times instead of %u.",
                     (run->size + 1) / 2, run->size);
}

/* The side, 3 by default (the book's MATRIX_SIZE). */
static gboolean
matmul_size (KsLessonRun *run, GError **error)
{
  guint size = run->options.size;

  run->size = size != 0 ? size : 3;
  return TRUE;
}

static const KsLessonImpl impl_matmul = {
  .setup = matmul_setup, .reference = matmul_reference, .finish = matmul_finish,
  .size = matmul_size,
};

static const KsLessonVariant v_matmul[] = {
  KS_LESSON_FIXED ("11-09.cu", "One thread per cell, the size a parameter, checked element by "
                   "element with a tolerance."),
  { "tiled", "Tiled", "The C twin's shared-memory tiles (TILE 2) on A[i][j] = i, B[i][j] = j, "
    "with the sum started at zero.", FALSE, "", "11-09-tiled.cu", NULL, TRUE, NULL },
  { "book", "As in the book", "The book's check, cpu.all() == gpu.all(), shown to say "
    "“correct” for a deliberately wrong product.", TRUE, "P6", "11-09-book.cu", NULL, TRUE, NULL },
  { "tiled-book", "Tiled, as in the C twin", "+= into a C nobody cleared: the old contents "
    "(poisoned here) end up in the product.", TRUE, "P3", "11-09-tiled-book.cu",
    "compute-sanitizer --tool initcheck reports “Uninitialized __global__ memory read” for c",
    TRUE, "initcheck" },
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-09", "matrix-multiplication", "Matrix product, naive and tiled",
             "Chapter11/09_matrix_multiplication.py",
             "One thread per cell of C walks a row of A and a column of B; the tiled version "
             "shares 2×2 tiles through shared memory. The book's check compares two booleans and "
             "passes a wrong product.", v_matmul, impl_matmul),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_matmul[] = {
  &lessons[0],
  NULL,
};
