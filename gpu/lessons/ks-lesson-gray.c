/* ks-lesson-gray.c: lesson 12-03, colour to gray (BT.601), one thread per
 * pixel, and the book's launch, index and cast. */
#include "config.h"

#include "ks-lesson-private.h"

static gboolean
gray_setup (KsLessonRun *run, GError **error)
{
  g_autoptr (KsImage) photo = _ks_lesson_load_sample ("lesson-photo-color.png");
  gsize n = (gsize) photo->width * photo->height;

  _ks_lesson_arg_array (run, "result",
                        _ks_lesson_new_array (KS_ELEM_FLOAT32, n, photo->height, photo->width),
                        KS_ARRAY_OUT, "drv.Out, the same array as r");
  _ks_lesson_arg_array (run, "b", _ks_lesson_channel_array (photo, 2), KS_ARRAY_IN, "drv.In");
  _ks_lesson_arg_array (run, "g", _ks_lesson_channel_array (photo, 1), KS_ARRAY_IN, "drv.In");
  _ks_lesson_arg_array (run, "r", _ks_lesson_channel_array (photo, 0), KS_ARRAY_IN, "drv.In");
  run->block = _ks_lesson_dim3 (1024, 1, 1);
  run->grid = _ks_lesson_dim3 (64, 1, 1);
  if (run->variant->book)
    {
      /* The GPU may fuse the double multiply-adds; the stored floats then
       * differ in the last bits, never across an integer for these inputs. */
      run->abs_tol = 1e-3;
    }
  else
    {
      _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, (double) n);
      run->grid = _ks_lesson_dim3 ((guint) ((n + 1023) / 1024), 1, 1);
      /* A sum exactly halfway between two levels may round either way in
       * float; at most one level then. */
      run->abs_tol = 1.0;
    }
  /* The book's result is what astype(uint8) makes of it: checked in finish. */
  run->checked_arg = run->variant->book ? -1 : 0;
  return TRUE;
}

static int
gray_thousandths (const KsLessonRun *run, gsize i)
{
  return _ks_lesson_gray_thousandths (_ks_lesson_arg_data (run, 1), _ks_lesson_arg_data (run, 2),
                                      _ks_lesson_arg_data (run, 3), i);
}

static KsArray *
gray_reference (const KsLessonRun *run)
{
  const KsArray *r = _ks_lesson_arg_data (run, 3);
  KsArray *gray = _ks_lesson_new_array (KS_ELEM_FLOAT32, r->length, r->rows, r->cols);

  for (gsize i = 0; i < r->length; i++)
    {
      int sum = gray_thousandths (run, i);

      _ks_lesson_f32 (gray)[i] = (float) (run->variant->book ? sum / 1000 : (sum + 500) / 1000);
    }
  return gray;
}

static void
gray_finish (KsLessonRun *run)
{
  const KsArray *gray = _ks_lesson_result (run, 0);

  _ks_lesson_add_image (run, "input", _ks_lesson_load_sample ("lesson-photo-color.png"));
  _ks_lesson_add_image (run, "result", _ks_lesson_gray_image (gray));
  if (run->variant->book)
    {
      gsize darker = 0;
      KsArray *cast = _ks_lesson_new_array (KS_ELEM_UINT8, gray->length, gray->rows, gray->cols);

      for (gsize i = 0; i < gray->length; i++)
        cast->data[i] = (guint8) CLAMP ((int) _ks_lesson_f32 (gray)[i], 0, 255);
      _ks_lesson_add_host_output (run, "gray (astype(uint8))", cast);
      _ks_lesson_compare_check (run, "gray (astype(uint8))", cast,
                                "BT.601 in integers, truncated as astype(uint8) does");
      for (gsize i = 0; i < gray->length; i++)
        darker += (int) _ks_lesson_f32 (gray)[i] != (gray_thousandths (run, i) + 500) / 1000;
      _ks_lesson_note (run, "astype(uint8) truncates: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                       " pixels (%.1f %%) are one level darker than rounding gives.", darker,
                       gray->length, 100.0 * darker / gray->length);
      _ks_lesson_note (run, "64 blocks × 1024 threads and the width 256 in the index cover exactly "
                       "one 256×256 image; the result array is the r array itself on the host, "
                       "overwritten.");
    }
}

static const KsLessonImpl impl_gray = { gray_setup, gray_reference, gray_finish };

static const KsLessonVariant v_gray[] = {
  KS_LESSON_FIXED ("12-03.cu", "n as a parameter, a bounds check, and the gray value rounded."),
  { "book", "As in the book", "The 256 width in the index, 64 × 1024 threads, and the result "
    "truncated by astype(uint8).", TRUE, "P13 P14", "12-03-book.cu", NULL, TRUE, NULL },
};

static const KsLesson lessons[] = {
  KS_LESSON ("12-03", "gray", "Colour to gray", "Chapter12/03_bgr2gray.py",
             "One thread per pixel weighs red, green and blue (BT.601) into a gray value. The "
             "book's launch and index fit exactly one 256×256 image, and its cast truncates.",
             v_gray, impl_gray),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_gray[] = {
  &lessons[0],
  NULL,
};
