/* ks-lesson-elementwise.c: lesson 11-10, an ElementwiseKernel's grid-stride
 * loop, and the book's test that is true for any array. */
#include "config.h"

#include <math.h>

#include "ks-lesson-private.h"

static gboolean
elementwise_setup (KsLessonRun *run, GError **error)
{
  const guint n = 1000000;

  _ks_lesson_arg_array (run, "d_a",
                        _ks_lesson_binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_UNIFORM,
                                                  (double) run->options.seed, 0, 0), KS_ARRAY_IN,
                        "curandom.rand");
  _ks_lesson_arg_array (run, "d_b",
                        _ks_lesson_binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_UNIFORM,
                                                  (double) run->options.seed + 1, 0, 0),
                        KS_ARRAY_IN, "curandom.rand");
  _ks_lesson_arg_array (run, "d_c", _ks_lesson_new_array (KS_ELEM_FLOAT32, n, 0, 0), KS_ARRAY_OUT,
                        "gpuarray.empty_like");
  _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, n);
  /* Like PyCUDA's splay: 128 threads per block and a bounded grid, each
   * thread looping over several elements. */
  run->block = _ks_lesson_dim3 (128, 1, 1);
  run->grid = _ks_lesson_dim3 (512, 1, 1);
  run->checked_arg = 2;
  return TRUE;
}

/* d_c = d_a + d_b */
static KsArray *
elementwise_reference (const KsLessonRun *run)
{
  return _ks_lesson_sum_reference (run, 0, 1, INFINITY);
}

static void
elementwise_finish (KsLessonRun *run)
{
  if (run->variant->book)
    {
      g_autoptr (KsArray) wrong = _ks_lesson_make_wrong (_ks_lesson_result (run, 2));

      /* `if d_c == (d_a + d_b):` takes the truth of an array of comparisons,
       * which PyCUDA 2017.1.1 reads as its length: true for any non-empty array. */
      _ks_lesson_book_check (run, "if d_c == (d_a + d_b): an element-wise array whose truth is "
                             "its length (PyCUDA 2017.1.1; PyCUDA 2022.2 and later raise "
                             "ValueError instead)",
                             _ks_lesson_result (run, 2)->length > 0, wrong->length > 0, wrong);
    }
}

static const KsLessonImpl impl_elementwise = { elementwise_setup, elementwise_reference,
                                               elementwise_finish };

static const KsLessonVariant v_elementwise[] = {
  KS_LESSON_FIXED ("11-10.cu", "The generated grid-stride kernel, checked element by element."),
  { "book", "As in the book", "The book's `if d_c == (d_a + d_b)` is true for any non-empty "
    "array: shown passing a deliberately wrong result.", TRUE, "P9", "11-10.cu", NULL, TRUE, NULL },
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-10", "elementwise-kernel", "An element-wise kernel",
             "Chapter11/10_element_wise_addition.py",
             "ElementwiseKernel wraps one statement over element i into a grid-stride kernel. "
             "Whether a result is right needs an element-wise comparison reduced to one answer; "
             "the book's test is true for any array.", v_elementwise, impl_elementwise),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_elementwise[] = {
  &lessons[0],
  NULL,
};
