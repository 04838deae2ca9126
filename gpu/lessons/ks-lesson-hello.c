/* ks-lesson-hello.c: lesson 11-01, a kernel that prints from the GPU. */
#include "config.h"

#include <math.h>

#include "ks-lesson-private.h"

static gboolean
hello_setup (KsLessonRun *run, GError **error)
{
  run->grid = _ks_lesson_dim3 (1, 1, 1);
  run->block = _ks_lesson_dim3 (1, 1, 1);
  return TRUE;
}

static void
hello_finish (KsLessonRun *run)
{
  const char *want = run->variant->book ? "Hello,PyCUDA!!!" : "Hello,PyCUDA!!!\n";
  const char *got = run->report->printf_output != NULL ? run->report->printf_output : "";
  gboolean ok = g_str_equal (got, want);

  _ks_lesson_set_check (run, ok, "the string the kernel prints", NULL, 1, ok ? 0 : 1,
                        ok ? G_MAXSIZE : 0, NAN, NAN,
                        g_strdup (ok ? "the device printed the line"
                                     : "the device printed other text"));
  if (run->variant->book)
    _ks_lesson_note (run, "No newline ends the text: a console that shows whole lines shows "
                     "nothing until more output or the program's end flushes it.");
}

static const KsLessonImpl impl_hello = { hello_setup, NULL, hello_finish };

static const KsLessonVariant v_hello[] = {
  KS_LESSON_FIXED ("11-01.cu", "The line ends with a newline, and the run waits for the kernel, "
                   "so the text arrives whole."),
  { "book", "As in the book", "No newline and no wait: the text shows only when the printf "
    "buffer is flushed.", TRUE, "P18", "11-01-book.cu", NULL, TRUE, NULL },
};

static const KsLesson lessons[] = {
  KS_LESSON ("11-01", "hello", "Hello from the GPU", "Chapter11/01_hello_pycuda.py",
             "A kernel is compiled from a source string at run time and launched on one thread. "
             "Device printf goes to a buffer that the host reads when it synchronises, not "
             "straight to the console.", v_hello, impl_hello),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_hello[] = {
  &lessons[0],
  NULL,
};
