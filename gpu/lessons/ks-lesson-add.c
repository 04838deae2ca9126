/* ks-lesson-add.c: lessons 11-04 and 11-05, adding numbers with copies by
 * hand and with bindings, and 11-06, a million additions timed against a
 * C loop. */
#include "config.h"

#include <math.h>

#include "ks-error.h"
#include "ks-lesson-private.h"

/* ---- 11-04, 11-05 adding numbers ----------------------------------------- */

static gboolean
add_small_setup (KsLessonRun *run, GError **error)
{
  gboolean book = run->variant->book || g_str_equal (run->lesson->id, "11-04");
  guint n = run->size;

  if (g_str_equal (run->lesson->id, "11-04") && n != 1)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson 11-04 adds one number to one number: it takes no size");
      return FALSE;
    }
  _ks_lesson_arg_array (run, "result", _ks_lesson_new_array (KS_ELEM_FLOAT32, n, 0, 0),
                        KS_ARRAY_OUT,
                        g_str_equal (run->lesson->id, "11-04") ? "mem_alloc" : "drv.Out");
  _ks_lesson_arg_array (run, "a",
                        _ks_lesson_binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                                  (double) run->options.seed, 0, 1), KS_ARRAY_IN,
                        g_str_equal (run->lesson->id, "11-04") ? "memcpy_htod" : "drv.In");
  _ks_lesson_arg_array (run, "b",
                        _ks_lesson_binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                                  (double) run->options.seed + 1, 0, 1),
                        KS_ARRAY_IN,
                        g_str_equal (run->lesson->id, "11-04") ? "memcpy_htod" : "drv.In");
  if (book)
    {
      run->grid = _ks_lesson_dim3 (1, 1, 1);
      run->block = _ks_lesson_dim3 (n, 1, 1);
    }
  else
    {
      _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, n);
      run->block = _ks_lesson_dim3 (MIN (n, 256u), 1, 1);
      run->grid = _ks_lesson_dim3 ((n + run->block.x - 1) / run->block.x, 1, 1);
    }
  run->checked_arg = 0;
  return TRUE;
}

/* result = a + b */
static KsArray *
add_small_reference (const KsLessonRun *run)
{
  return _ks_lesson_sum_reference (run, 1, 2, INFINITY);
}

static void
add_small_finish (KsLessonRun *run)
{
  const KsArray *a = _ks_lesson_arg_data (run, 1), *b = _ks_lesson_arg_data (run, 2);
  const KsArray *c = _ks_lesson_result (run, 0);

  for (gsize i = 0; i < MIN (c->length, (gsize) 8); i++)
    _ks_lesson_note (run, "%.9g + %.9g = %.9g", _ks_lesson_f32 (a)[i], _ks_lesson_f32 (b)[i],
                     _ks_lesson_f32 (c)[i]);
  if (g_str_equal (run->lesson->id, "11-04"))
    _ks_lesson_note (run, "Stages: allocate three device buffers (mem_alloc), copy a and b to the "
                     "device (memcpy_htod, the upload time), launch one thread, copy the result "
                     "back (memcpy_dtoh, the download time).");
  else
    _ks_lesson_note (run, "drv.In copies an array to the device before the launch and drv.Out "
                     "copies one back after it: the same stages as 11-04, written by the binding.");
}

/* 11-05 adds N numbers, 5 by default (the book's one block: 1); 11-04 one. */
static gboolean
add_small_size (KsLessonRun *run, GError **error)
{
  guint size = run->options.size;

  if (g_str_equal (run->lesson->id, "11-05"))
    run->size = size != 0 ? size : (run->variant->book ? 1 : 5);
  else
    run->size = size != 0 ? size : 1;
  return TRUE;
}

/* ---- 11-06 a million additions ------------------------------------------- */

static gboolean
million_setup (KsLessonRun *run, GError **error)
{
  const guint n = 1000000;

  _ks_lesson_arg_array (run, "result", _ks_lesson_new_array (KS_ELEM_FLOAT32, n, 0, 0),
                        KS_ARRAY_OUT, "drv.Out");
  _ks_lesson_arg_array (run, "a",
                        _ks_lesson_binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                                  (double) run->options.seed, 0, 1), KS_ARRAY_IN,
                        "drv.In");
  _ks_lesson_arg_array (run, "b",
                        _ks_lesson_binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                                  (double) run->options.seed + 1, 0, 1),
                        KS_ARRAY_IN, "drv.In");
  _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, n);
  run->block = _ks_lesson_dim3 (1024, 1, 1);
  /* The book: ceil(N/1024 + 1) in Python 3's true division is 978; the
   * ceiling of N/1024 alone, 977, already covers N. */
  run->grid = _ks_lesson_dim3 (run->variant->book ? (guint) ceil (n / 1024.0 + 1)
                                                  : (n + 1023) / 1024, 1, 1);
  run->checked_arg = 0;
  return TRUE;
}

static void
million_finish (KsLessonRun *run)
{
  guint64 threads = (guint64) run->grid.x * run->block.x;

  _ks_lesson_note (run, "%u blocks of 1024 threads: %" G_GUINT64_FORMAT " threads for 1000000 "
                   "elements, %" G_GUINT64_FORMAT " of them with nothing to do.", run->grid.x,
                   threads, threads - 1000000);
  if (run->variant->book)
    _ks_lesson_note (run, "The book prints one GPU time that covers allocation, 8 MB up, the "
                     "kernel, 4 MB down and the wait (book_total_ms), against a pure-Python loop "
                     "on the CPU. Here the stages are timed apart after a warm-up, and the CPU "
                     "side is a C loop on the same data (timings.reference).");
}

static const KsLessonImpl impl_add_small = {
  .setup = add_small_setup, .reference = add_small_reference, .finish = add_small_finish,
  .size = add_small_size,
};
static const KsLessonImpl impl_million = {
  .setup = million_setup, .reference = add_small_reference, .finish = million_finish,
  .against = "a C loop adding the same arrays",
};

static const KsLessonVariant v_add1[] = {
  KS_LESSON_FIXED ("11-04.cu", "Explicit allocation and copies around a one-thread launch."),
};
static const KsLessonVariant v_add_n[] = {
  KS_LESSON_FIXED ("11-05.cu", "A grid covering N with a bounds check: any N works (--size N)."),
  { "book", "As in the book", "One block of N threads indexed by threadIdx.x: try --size 2000 "
    "and the launch is refused (a block holds at most 1024 threads).", TRUE, "P14",
    "11-05-book.cu", NULL, TRUE, NULL },
};
static const KsLessonVariant v_million[] = {
  KS_LESSON_FIXED ("11-06.cu", "977 blocks, stages timed apart after a warm-up, against a C "
                   "loop on the same data."),
  { "book", "As in the book", "978 blocks, and the book's one time around everything (see "
    "book_total_ms) next to the fair numbers.", TRUE, "P15", "11-06-book.cu", NULL, TRUE, NULL },
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-04", "add-two-numbers", "Adding two numbers, copies by hand",
             "Chapter11/04_add_num.py",
             "The host allocates device memory, copies the inputs there, launches, and copies the "
             "result back. Each of those stages costs time of its own, shown apart here.",
             v_add1, impl_add_small),
  KS_LESSON ("11-05", "add-with-bindings", "Adding with In and Out bindings",
             "Chapter11/05_add_num_drv.py",
             "drv.In and drv.Out do the copies of 11-04 for you: In before the launch, Out after "
             "it. A single block of N threads limits N to the largest block.", v_add_n,
             impl_add_small),
  KS_LESSON ("11-06", "million-additions", "A million additions, GPU against CPU",
             "Chapter11/06_add_number.py",
             "A grid-stride loop adds two arrays of a million floats. Timed fairly (compile, "
             "copies and kernel apart, warm-up excluded, medians) against a C loop, the GPU's "
             "kernel is fast and the copies dominate; the book's single time hides that.",
             v_million, impl_million),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_add[] = {
  &lessons[0],
  &lessons[1],
  &lessons[2],
  NULL,
};
