/* ks-lesson-dot.c: lesson 11-08, the dot product as partial sums per block
 * that the host adds. */
#include "config.h"

#include "ks-lesson-private.h"

static gboolean
dot_setup (KsLessonRun *run, GError **error)
{
  const guint n = 1024;
  KsArray *a = _ks_lesson_new_array (KS_ELEM_FLOAT32, n, 0, 0);
  KsArray *b = _ks_lesson_new_array (KS_ELEM_FLOAT32, n, 0, 0);

  for (guint i = 0; i < n; i++)
    {
      _ks_lesson_f32 (a)[i] = (float) i;
      _ks_lesson_f32 (b)[i] = 2.0f;
    }
  run->block = _ks_lesson_dim3 (512, 1, 1);
  run->grid = _ks_lesson_dim3 (MIN (32u, (n + 511) / 512), 1, 1);
  _ks_lesson_arg_array (run, "a", a, KS_ARRAY_IN, NULL);
  _ks_lesson_arg_array (run, "b", b, KS_ARRAY_IN, NULL);
  _ks_lesson_arg_array (run, "partial", _ks_lesson_new_array (KS_ELEM_FLOAT32, run->grid.x, 0, 0),
                        KS_ARRAY_OUT, NULL);
  _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, n);
  run->checked_arg = -1;
  return TRUE;
}

static void
dot_finish (KsLessonRun *run)
{
  const KsArray *partial = _ks_lesson_result (run, 2);
  KsArray *dot = _ks_lesson_new_array (KS_ELEM_FLOAT64, 1, 0, 0);
  double sum = 0, loop = 0, closed = 1023.0 * 1024.0;
  const KsArray *a = _ks_lesson_arg_data (run, 0), *b = _ks_lesson_arg_data (run, 1);
  KsArray *expected = _ks_lesson_new_array (KS_ELEM_FLOAT64, 1, 0, 0);

  for (gsize i = 0; i < partial->length; i++)
    sum += _ks_lesson_f32 (partial)[i];
  for (gsize i = 0; i < a->length; i++)
    loop += (double) _ks_lesson_f32 (a)[i] * _ks_lesson_f32 (b)[i];
  ks_array_set_double (dot, 0, sum);
  ks_array_set_double (expected, 0, loop);
  _ks_lesson_add_host_output (run, "dot", dot);
  g_clear_pointer (&run->report->check.expected_values, ks_array_free);
  run->report->check.expected_values = expected;
  _ks_lesson_set_check (run, sum == loop && loop == closed, "a C loop over the products, and "
                        "x(x+1) with x = 1023", "dot", 1, sum == loop ? 0 : 1,
                        sum == loop ? G_MAXSIZE : 0, loop, sum,
                        g_strdup_printf ("%s: the host's sum of the %" G_GSIZE_FORMAT " block "
                                         "partials is %.17g, the loop gives %.17g, x(x+1) = %.17g",
                                         sum == loop ? "correct" : "wrong", partial->length, sum,
                                         loop, closed));
  _ks_lesson_note (run, "The book's gpuarray.dot of two 10×10 matrices is this sum of products "
                   "over all elements, not a matrix product; its CPU side times a*b without the "
                   "sum, so the two times measure different work.");
}

static const KsLessonImpl impl_dot = { dot_setup, NULL, dot_finish };

static const KsLessonVariant v_dot[] = {
  KS_LESSON_FIXED ("11-08.cu", "Partial sums per thread, a shared-memory tree per block, the "
                   "host adds the blocks: 1024 values i·2 make 1 047 552."),
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-08", "dot-product", "The dot product: a sum of products",
             "Chapter11/08_gpu_dot.py",
             "Each thread sums products, then each block halves its partial sums in shared "
             "memory with __syncthreads between steps. The book's gpuarray.dot of two matrices "
             "is this sum over all elements, not a matrix product.", v_dot, impl_dot),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_dot[] = {
  &lessons[0],
  NULL,
};
