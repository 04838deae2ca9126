/* ks-lesson-image.c: lessons 12-05 and 12-06, adding two images clamped
 * at 255 and inverting one, as gpuarray runs them. */
#include "config.h"

#include "ks-lesson-private.h"

static gsize
count_equal (const KsArray *a, double value)
{
  gsize n = 0;

  for (gsize i = 0; i < a->length; i++)
    n += ks_array_get_double (a, i) == value;
  return n;
}

/* ---- 12-05 addition, 12-06 inversion -------------------------------------- */

static gboolean
image_add_setup (KsLessonRun *run, GError **error)
{
  KsArray *photo = _ks_lesson_photo_gray_pixels (KS_ELEM_FLOAT32);
  g_autoptr (KsImage) circles = _ks_lesson_load_sample ("lesson-circles.png");
  KsArray *c = _ks_lesson_channel_array (circles, 0);
  gsize n = photo->length;

  _ks_lesson_arg_array (run, "result",
                        _ks_lesson_new_array (KS_ELEM_FLOAT32, n, photo->rows, photo->cols),
                        KS_ARRAY_OUT, "drv.Out, the same array as the first image");
  _ks_lesson_arg_array (run, "a", photo, KS_ARRAY_IN, "drv.In");
  _ks_lesson_arg_array (run, "b", c, KS_ARRAY_IN, "drv.In");
  _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, (double) n);
  run->block = _ks_lesson_dim3 (1024, 1, 1);
  run->grid = _ks_lesson_dim3 (64, 1, 1);
  run->checked_arg = 0;
  return TRUE;
}

/* result = min (a + b, 255) */
static KsArray *
image_add_reference (const KsLessonRun *run)
{
  return _ks_lesson_sum_reference (run, 1, 2, 255.0f);
}

static void
image_add_finish (KsLessonRun *run)
{
  const KsArray *a = _ks_lesson_arg_data (run, 1), *b = _ks_lesson_arg_data (run, 2);
  const KsArray *out = _ks_lesson_result (run, 0);
  gsize clamped = 0;

  for (gsize i = 0; i < a->length; i++)
    clamped += _ks_lesson_f32 (a)[i] + _ks_lesson_f32 (b)[i] > 255.0f;
  _ks_lesson_add_image (run, "photo", _ks_lesson_gray_image (a));
  _ks_lesson_add_image (run, "circles", _ks_lesson_gray_image (b));
  _ks_lesson_add_image (run, "result", _ks_lesson_gray_image (out));
  _ks_lesson_note (run, "%" G_GSIZE_FORMAT " sums passed 255 and were clamped; the circles have %"
                   G_GSIZE_FORMAT " white pixels, and everywhere they are white the result is 255.",
                   clamped, count_equal (b, 255));
}

static gboolean
invert_setup (KsLessonRun *run, GError **error)
{
  g_autoptr (KsImage) circles = _ks_lesson_load_sample ("lesson-circles.png");
  KsArray *x = _ks_lesson_channel_array (circles, 0);
  gsize n = x->length;

  _ks_lesson_arg_array (run, "z", _ks_lesson_new_array (KS_ELEM_FLOAT32, n, x->rows, x->cols),
                        KS_ARRAY_OUT, "the GPUArray 255 - x returns");
  _ks_lesson_arg_array (run, "x", x, KS_ARRAY_IN, "gpuarray.to_gpu");
  _ks_lesson_arg_scalar (run, "a", KS_ELEM_FLOAT32, -1);
  _ks_lesson_arg_scalar (run, "b", KS_ELEM_FLOAT32, 255);
  _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, (double) n);
  run->block = _ks_lesson_dim3 (1024, 1, 1);
  run->grid = _ks_lesson_dim3 (64, 1, 1);
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
invert_reference (const KsLessonRun *run)
{
  const KsArray *x = _ks_lesson_arg_data (run, 1);
  KsArray *z = _ks_lesson_new_array (KS_ELEM_FLOAT32, x->length, x->rows, x->cols);

  for (gsize i = 0; i < x->length; i++)
    _ks_lesson_f32 (z)[i] = 255.0f - _ks_lesson_f32 (x)[i];
  return z;
}

static void
invert_finish (KsLessonRun *run)
{
  const KsArray *x = _ks_lesson_arg_data (run, 1);
  const KsArray *z = _ks_lesson_result (run, 0);

  _ks_lesson_add_image (run, "circles", _ks_lesson_gray_image (x));
  _ks_lesson_add_image (run, "result", _ks_lesson_gray_image (z));
  _ks_lesson_note (run, "%" G_GSIZE_FORMAT " pixels are white after the inversion (%" G_GSIZE_FORMAT
                   " were black).", count_equal (z, 255), count_equal (x, 0));
}

static const KsLessonImpl impl_image_add = { image_add_setup, image_add_reference,
                                             image_add_finish };
static const KsLessonImpl impl_invert = { invert_setup, invert_reference, invert_finish };

static const KsLessonVariant v_image_add[] = {
  KS_LESSON_FIXED ("12-05.cu", "The photo plus the circles, clamped at 255, on the book's 64 × "
                   "1024 threads."),
};
static const KsLessonVariant v_invert[] = {
  KS_LESSON_FIXED ("12-06.cu", "255 − x as gpuarray runs it: −1·x + 255 element by element."),
};

static const KsLesson lessons[] = {
  KS_LESSON ("12-05", "image-addition", "Adding two images", "Chapter12/05_image_addition.py",
             "Two gray images are added pixel by pixel and clamped at 255, so white stays white. "
             "The sum saturates exactly where the circles are white.", v_image_add,
             impl_image_add),
  KS_LESSON ("12-06", "image-inversion", "Inverting an image", "Chapter12/06_image_inversion.py",
             "255 − x on a GPUArray runs a generated element-wise kernel, −1·x + 255. Black and "
             "white swap.", v_invert, impl_invert),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_image[] = {
  &lessons[0],
  &lessons[1],
  NULL,
};
