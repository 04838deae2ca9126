/* ks-lesson-reduce.c: lessons 11-11, a reduction, and 11-12, an inclusive
 * scan: one block in shared memory, every stage shown. */
#include "config.h"

#include <string.h>

#include "ks-lesson-private.h"

static void
add_step (KsLessonRun *run, char *title, KsArray *values)
{
  KsLessonStep *s = g_new0 (KsLessonStep, 1);

  s->title = title;
  s->values = values;
  g_ptr_array_add (run->report->steps, s);
}

/* ---- 11-11 reduction ------------------------------------------------------ */

static guint
pow2_at_least (guint n)
{
  guint p = 1;

  while (p < n)
    p *= 2;
  return p;
}

static guint
log2_of (guint p)
{
  guint l = 0;

  while ((1u << l) < p)
    l++;
  return l;
}

/* The last arguments and the launch of 11-11 and 11-12: one block of
 * `threads` threads with a word of shared memory each, writing `levels`
 * rows of `threads` values into `steps`, then the element count n. */
static void
one_block_with_steps (KsLessonRun *run, KsElemType type, guint threads, guint levels, guint n)
{
  _ks_lesson_arg_array (run, "steps",
                        _ks_lesson_new_array (type, (gsize) threads * levels, levels, threads),
                        KS_ARRAY_OUT, NULL);
  _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, n);
  run->block = _ks_lesson_dim3 (threads, 1, 1);
  run->grid = _ks_lesson_dim3 (1, 1, 1);
  run->shared = (guint64) threads * 4;
}

static gboolean
reduce_setup (KsLessonRun *run, GError **error)
{
  const guint n = 5;
  guint threads = MAX (2u, pow2_at_least (n));
  KsArray *a = _ks_lesson_binding_array (KS_ELEM_UINT32, n, KS_ARRAY_INIT_RANGE, 0, 1, 0);
  KsArray *b = _ks_lesson_binding_array (KS_ELEM_UINT32, n, KS_ARRAY_INIT_RANGE, 0, 1, 0);

  _ks_lesson_arg_array (run, "a", a, KS_ARRAY_IN, "gpuarray.arange");
  _ks_lesson_arg_array (run, "b", b, KS_ARRAY_IN, "gpuarray.arange");
  _ks_lesson_arg_array (run, "out", _ks_lesson_new_array (KS_ELEM_UINT32, 1, 0, 0), KS_ARRAY_OUT,
                        NULL);
  one_block_with_steps (run, KS_ELEM_UINT32, threads, log2_of (threads) + 1, n);
  run->checked_arg = 2;
  return TRUE;
}

static KsArray *
reduce_reference (const KsLessonRun *run)
{
  const KsArray *a = _ks_lesson_arg_data (run, 0), *b = _ks_lesson_arg_data (run, 1);
  KsArray *out = _ks_lesson_new_array (KS_ELEM_UINT32, 1, 0, 0);
  guint32 sum = 0;

  for (gsize i = 0; i < a->length; i++)
    sum += (guint32) _ks_lesson_i32 (a)[i] * (guint32) _ks_lesson_i32 (b)[i];
  ks_array_set_double (out, 0, sum);
  return out;
}

static void
steps_from (KsLessonRun *run, const KsArray *steps, gboolean reduction)
{
  gsize width = steps->cols;

  for (gsize level = 0; level < steps->rows; level++)
    {
      KsArray *row = _ks_lesson_new_array (steps->type, width, 0, 0);

      memcpy (row->data, steps->data + level * width * 4, width * 4);
      if (reduction)
        add_step (run, level == 0 ? g_strdup ("the products a[i]·b[i], padded with zeros")
                                  : g_strdup_printf ("after adding the upper %" G_GSIZE_FORMAT
                                                     " into the lower", width >> level), row);
      else
        add_step (run, g_strdup_printf ("after adding the element %u places before",
                                        1u << level), row);
    }
}

static void
reduce_finish (KsLessonRun *run)
{
  steps_from (run, _ks_lesson_result (run, 3), TRUE);
}

/* ---- 11-12 inclusive scan ------------------------------------------------- */

static gboolean
scan_setup (KsLessonRun *run, GError **error)
{
  const guint n = 10;
  guint threads = pow2_at_least (n);
  KsArray *data = _ks_lesson_new_array (KS_ELEM_INT32, n, 0, 0);

  _ks_lesson_fill_randint (data, run->options.seed, 1, 9);
  _ks_lesson_arg_array (run, "data", data, KS_ARRAY_INOUT, "gpuarray.to_gpu, scanned in place");
  one_block_with_steps (run, KS_ELEM_INT32, threads, log2_of (threads), n);
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
scan_reference (const KsLessonRun *run)
{
  const KsArray *data = _ks_lesson_arg_data (run, 0);
  KsArray *scanned = ks_array_copy (data);
  gint32 sum = 0;

  for (gsize i = 0; i < data->length; i++)
    _ks_lesson_i32 (scanned)[i] = (sum += _ks_lesson_i32 (data)[i]);
  return scanned;
}

static void
scan_finish (KsLessonRun *run)
{
  steps_from (run, _ks_lesson_result (run, 1), FALSE);
}

static const KsLessonImpl impl_reduce = { reduce_setup, reduce_reference, reduce_finish };
static const KsLessonImpl impl_scan = { scan_setup, scan_reference, scan_finish };

static const KsLessonVariant v_reduce[] = {
  KS_LESSON_FIXED ("11-11.cu", "Map a·b then a tree of additions in shared memory, every stage "
                   "shown."),
};
static const KsLessonVariant v_scan[] = {
  KS_LESSON_FIXED ("11-12.cu", "Hillis–Steele: log2(n) steps, every step shown, checked against a "
                   "running sum."),
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-11", "reduction", "Reduction", "Chapter11/11_gpu_reduction.py",
             "A reduction maps each element (a·b) and combines the results pairwise in shared "
             "memory, halving the active threads at every stage: [0 1 2 3 4]·[0 1 2 3 4] = 30.",
             v_reduce, impl_reduce),
  KS_LESSON ("11-12", "inclusive-scan", "Inclusive scan", "Chapter11/12_gpu_scan.py",
             "An inclusive scan gives every element the sum of all elements up to it. In log2(n) "
             "steps each element adds the one 1, 2, 4, … places before it.", v_scan, impl_scan),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_reduce[] = {
  &lessons[0],
  &lessons[1],
  NULL,
};
