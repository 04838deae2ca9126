/* ks-lesson-blocks.c: lesson 11-03, ten blocks that run in any order. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "ks-lesson-private.h"

static gboolean
blocks_setup (KsLessonRun *run, GError **error)
{
  run->grid = _ks_lesson_dim3 (10, 1, 1);
  run->block = _ks_lesson_dim3 (1, 1, 1);
  if (!run->variant->book)
    {
      _ks_lesson_arg_array (run, "order", _ks_lesson_new_array (KS_ELEM_INT32, 10, 0, 0),
                            KS_ARRAY_OUT, NULL);
      _ks_lesson_arg_array (run, "next", _ks_lesson_new_array (KS_ELEM_INT32, 1, 0, 0),
                            KS_ARRAY_INOUT, NULL);
    }
  return TRUE;
}

static void
blocks_finish (KsLessonRun *run)
{
  g_auto (GStrv) lines = g_strsplit (run->report->printf_output != NULL
                                     ? run->report->printf_output : "", "\n", -1);
  guint seen[10] = { 0 };
  guint n_lines = 0, in_order = 0, last = G_MAXUINT, bad = 0;
  g_autoptr (GString) printed = g_string_new (NULL);
  gboolean ok;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint k;

      if (sscanf (lines[i], "I am in block no: %u", &k) != 1)
        continue;
      n_lines++;
      if (k < 10)
        seen[k]++;
      else
        bad++;
      in_order += last == G_MAXUINT || k == last + 1;
      last = k;
      g_string_append_printf (printed, "%s%u", printed->len > 0 ? " " : "", k);
    }
  for (guint k = 0; k < 10; k++)
    bad += seen[k] != 1;
  if (!run->variant->book)
    {
      const KsArray *order = _ks_lesson_result (run, 0);

      for (guint k = 0; k < 10; k++)
        seen[k] = 0;
      for (gsize i = 0; i < order->length; i++)
        {
          gint32 k = _ks_lesson_i32 (order)[i];

          if (k >= 0 && k < 10)
            seen[k]++;
        }
      for (guint k = 0; k < 10; k++)
        bad += seen[k] != 1;
    }
  ok = bad == 0 && n_lines == 10;
  _ks_lesson_set_check (run, ok, "every block runs exactly once", NULL, 10, ok ? 0 : bad,
                        ok ? G_MAXSIZE : 0, NAN, NAN,
                        g_strdup_printf ("%s; the blocks printed in the order %s%s",
                                         ok ? "each of the 10 blocks ran once"
                                            : "some block did not run exactly once",
                                         printed->str,
                                         in_order == n_lines ? " (index order, this time)" : ""));
  _ks_lesson_note (run, "The launch does not order its blocks: run it again (or with another "
                   "--seed on the CPU engine, which draws a block order from it) and the lines "
                   "come in another order. Results must not depend on it.");
}

static const KsLessonImpl impl_blocks = { blocks_setup, NULL, blocks_finish };

/* Not KS_LESSON_FIXED (): the order the blocks ran in is the lesson, and on a GPU it
 * differs from run to run, so only the check's verdict is compared. */
static const KsLessonVariant v_blocks[] = {
  { "fixed", "Fixed", "Each block also records when it ran in an array, so the order is data, "
    "not just console text.", FALSE, "", "11-03.cu", NULL, FALSE, NULL },
  { "book", "As in the book", "Ten blocks print their index; the lines come in whatever order "
    "the blocks ran.", TRUE, "P18", "11-03-book.cu", NULL, FALSE, NULL },
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-03", "blocks-in-any-order", "Blocks run in any order",
             "Chapter11/03_thread_execution.py",
             "Ten blocks of one thread each print their index. Nothing orders the blocks of a "
             "launch, so a result must never depend on which block runs first.", v_blocks,
             impl_blocks),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_blocks[] = {
  &lessons[0],
  NULL,
};
