/* ks-lesson-util.c: what the lessons' files build their runs with: the
 * clock, arrays and their data, the kernel's arguments, the report's notes,
 * host outputs and images, the check (and the book's own), the references
 * and pictures several lessons share, the kernels' sources in the bundle, and
 * the look at the cancellable. Nothing here calls a lesson or the runner. */
#include "config.h"

#include <math.h>
#include <time.h>

#include "ks-lesson-private.h"
#include "ks-lesson-resources.h"

#define RESOURCE_PREFIX "/org/kernelscope/lessons/"

/* ---- the clock and arrays ------------------------------------------------- */

guint64
_ks_lesson_splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

double
_ks_lesson_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

KsArray *
_ks_lesson_new_array (KsElemType type, gsize length, gsize rows, gsize cols)
{
  KsArray *a = ks_array_new (type, length, NULL);

  g_assert (a != NULL);
  a->rows = rows != 0 ? rows : length;
  a->cols = cols;
  return a;
}

/* An array initialised as ks-array.h's bindings do it (normal, uniform). */
KsArray *
_ks_lesson_binding_array (KsElemType type, gsize length, KsArrayInit init, double a, double b,
                          double c)
{
  KsBinding binding = { 0 };
  KsArray *array;

  binding.name = (char *) "data";
  binding.is_array = TRUE;
  binding.type = type;
  binding.length = length;
  binding.init = init;
  binding.init_a = a;
  binding.init_b = b;
  binding.init_c = c;
  array = ks_binding_create_array (&binding, NULL);
  g_assert (array != NULL);
  return array;
}

/* Integers drawn uniformly from [lo, hi], as numpy.random.randint (lo, hi + 1). */
void
_ks_lesson_fill_randint (KsArray *a, guint64 seed, int lo, int hi)
{
  guint64 state = seed;

  for (gsize i = 0; i < a->length; i++)
    ks_array_set_double (a, i, lo + (int) (_ks_lesson_splitmix64 (&state)
                                           % (guint64) (hi - lo + 1)));
}

/* ---- the kernel's arguments ----------------------------------------------- */

guint
_ks_lesson_arg_array (KsLessonRun *run, const char *name, KsArray *array,
                      KsArrayDirection direction, const char *book_binding)
{
  KsLessonArg *a = g_new0 (KsLessonArg, 1);

  a->name = g_strdup (name);
  a->is_array = TRUE;
  a->array = array;
  a->direction = direction;
  a->book_binding = book_binding;
  g_ptr_array_add (run->args, a);
  return run->args->len - 1;
}

void
_ks_lesson_arg_scalar (KsLessonRun *run, const char *name, KsElemType type, double value)
{
  KsLessonArg *a = g_new0 (KsLessonArg, 1);

  a->name = g_strdup (name);
  a->scalar_type = type;
  a->scalar = value;
  g_ptr_array_add (run->args, a);
}

/* ---- the report ----------------------------------------------------------- */

void
_ks_lesson_note (KsLessonRun *run, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (run->report->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

void
_ks_lesson_add_host_output (KsLessonRun *run, const char *name, KsArray *array)
{
  KsLessonArray *la = g_new0 (KsLessonArray, 1);

  la->name = g_strdup (name);
  la->role = g_strdup ("host");
  la->array = array;
  g_ptr_array_add (run->report->outputs, la);
}

void
_ks_lesson_add_image (KsLessonRun *run, const char *name, KsImage *image)
{
  KsLessonImage *li = g_new0 (KsLessonImage, 1);

  li->name = g_strdup (name);
  li->image = image;
  g_ptr_array_add (run->report->images, li);
}

/* The lesson's reference, once the run has computed it; NULL when none. */
const KsArray *
_ks_lesson_reference (const KsLessonRun *run)
{
  return run->report->check.expected_values;
}

/* The check's verdict. `output`: the name of the output compared with the
 * reference (check.expected_values), or NULL for a check of something else. */
void
_ks_lesson_set_check (KsLessonRun *run, gboolean passed, const char *against, const char *output,
                      gsize compared, gsize differing, gsize first, double expected, double actual,
                      char *summary)
{
  KsLessonCheck *c = &run->report->check;

  c->passed = passed;
  g_free (c->against);
  c->against = g_strdup (against);
  g_free (c->output);
  c->output = g_strdup (output);
  if (output == NULL)
    g_clear_pointer (&c->expected_values, ks_array_free);
  c->compared = compared;
  c->differing = differing;
  c->first_difference = first;
  c->expected = expected;
  c->actual = actual;
  g_free (c->summary);
  c->summary = summary;
}

/* Compares the output `name` with the reference element by element; the
 * check's fields from it. */
void
_ks_lesson_compare_check (KsLessonRun *run, const char *name, const KsArray *actual,
                          const char *against)
{
  const KsArray *expected = _ks_lesson_reference (run);
  gsize differing = 0, first = G_MAXSIZE;
  gsize n;

  g_assert (expected != NULL);
  n = MIN (expected->length, actual->length);

  for (gsize i = 0; i < n; i++)
    {
      double e = ks_array_get_double (expected, i), v = ks_array_get_double (actual, i);

      if (!(fabs (e - v) <= run->abs_tol + fabs (e) * run->rel_tol))
        {
          if (first == G_MAXSIZE)
            first = i;
          differing++;
        }
    }
  if (differing == 0)
    _ks_lesson_set_check (run, TRUE, against, name, n, 0, G_MAXSIZE, NAN, NAN,
                          g_strdup_printf ("correct: all %" G_GSIZE_FORMAT " elements equal the "
                                           "reference%s", n,
                                           run->abs_tol > 0 || run->rel_tol > 0
                                           ? " within the tolerance" : ""));
  else
    _ks_lesson_set_check (run, FALSE, against, name, n, differing, first,
                          ks_array_get_double (expected, first),
                          ks_array_get_double (actual, first),
                          g_strdup_printf ("wrong: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                                           " elements differ, the first at [%" G_GSIZE_FORMAT "] "
                                           "(%g, expected %g)", differing, n, first,
                                           ks_array_get_double (actual, first),
                                           ks_array_get_double (expected, first)));
}

/* ---- references and checks that several lessons share --------------------- */

/* x + y element by element in float, capped at `ceiling` (INFINITY: not
 * capped), with x's shape: the reference of every adding lesson. */
KsArray *
_ks_lesson_sum_reference (const KsLessonRun *run, guint x_arg, guint y_arg, float ceiling)
{
  const KsArray *x = _ks_lesson_arg_data (run, x_arg), *y = _ks_lesson_arg_data (run, y_arg);
  KsArray *sum = _ks_lesson_new_array (KS_ELEM_FLOAT32, x->length, x->rows, x->cols);

  for (gsize i = 0; i < x->length; i++)
    {
      float v = _ks_lesson_f32 (x)[i] + _ks_lesson_f32 (y)[i];

      _ks_lesson_f32 (sum)[i] = v > ceiling ? ceiling : v;
    }
  return sum;
}

void
_ks_lesson_book_check (KsLessonRun *run, const char *description, gboolean on_result,
                       gboolean on_wrong, const KsArray *wrong)
{
  KsLessonBookCheck *bc = &run->report->book_check;
  gsize first = 0;

  bc->present = TRUE;
  bc->description = g_strdup (description);
  bc->says_correct_on_result = on_result;
  bc->says_correct_on_wrong = on_wrong;
  bc->wrong_description = g_strdup ("the result with its middle element increased by 1");
  bc->real_check_catches_wrong = !ks_array_equal (_ks_lesson_reference (run), wrong, run->abs_tol,
                                                  run->rel_tol, &first);
  _ks_lesson_note (run, "The book's check says %s for this result and %s for a deliberately "
                   "wrong one (%s); the element-wise comparison %s it.",
                   on_result ? "“correct”" : "“wrong”", on_wrong ? "“correct”" : "“wrong”",
                   bc->wrong_description, bc->real_check_catches_wrong ? "catches" : "misses");
}

KsArray *
_ks_lesson_make_wrong (const KsArray *a)
{
  KsArray *wrong = ks_array_copy (a);

  ks_array_set_double (wrong, a->length / 2, ks_array_get_double (a, a->length / 2) + 1);
  return wrong;
}

/* ---- the bundle: the kernels' sources and the pictures --------------------- */

char *
ks_lesson_get_source (const KsLesson *lesson, const KsLessonVariant *variant, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GBytes) bytes = NULL;

  g_return_val_if_fail (lesson != NULL && variant != NULL, NULL);
  path = g_strconcat (RESOURCE_PREFIX, variant->source_name, NULL);
  bytes = g_resource_lookup_data (ks_lesson_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return NULL;
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/* The lessons' pictures, 256×256, from the bundle. */
KsImage *
_ks_lesson_load_sample (const char *name)
{
  g_autofree char *path = g_strconcat (RESOURCE_PREFIX "samples/", name, NULL);
  g_autoptr (GBytes) bytes = g_resource_lookup_data (ks_lesson_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  KsImage *image;

  g_assert (bytes != NULL);
  image = ks_image_load_bytes (bytes, NULL);
  g_assert (image != NULL);
  return image;
}

KsArray *
_ks_lesson_photo_gray_pixels (KsElemType type)
{
  g_autoptr (KsImage) photo = _ks_lesson_load_sample ("lesson-photo-gray.png");
  KsArray *a = _ks_lesson_new_array (type, (gsize) photo->width * photo->height, photo->height,
                                     photo->width);

  for (guint y = 0; y < photo->height; y++)
    for (guint x = 0; x < photo->width; x++)
      ks_array_set_double (a, (gsize) y * photo->width + x, ks_image_get_rgba (photo, x, y) & 0xFF);
  return a;
}

/* One channel of an RGBA8 image (0 R, 1 G, 2 B) as floats. */
KsArray *
_ks_lesson_channel_array (const KsImage *rgba, guint channel)
{
  KsArray *a = _ks_lesson_new_array (KS_ELEM_FLOAT32, (gsize) rgba->width * rgba->height,
                                     rgba->height, rgba->width);

  for (guint y = 0; y < rgba->height; y++)
    for (guint x = 0; x < rgba->width; x++)
      _ks_lesson_f32 (a)[(gsize) y * rgba->width + x] = (float) ((ks_image_get_rgba (rgba, x, y)
                                                                  >> (8 * channel)) & 0xFF);
  return a;
}

/* A rows × cols array of floats to a gray image the way the host casts
 * them: truncated and wrapped into 0..255 as numpy's astype(uint8) does for
 * values in range. */
KsImage *
_ks_lesson_gray_image (const KsArray *a)
{
  guint width = (guint) a->cols, height = (guint) a->rows;
  KsImage *image = ks_image_new (KS_FORMAT_GRAY8, width, height, NULL);

  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        double v = ks_array_get_double (a, (gsize) y * width + x);

        ks_image_row (image, y)[x] = (guint8) CLAMP ((int) v, 0, 255);
      }
  return image;
}

/* ---- cancellation ----------------------------------------------------------- */

gboolean
_ks_lesson_cancelled (const KsLessonRun *run, GError **error)
{
  return g_cancellable_set_error_if_cancelled (run->options.cancellable, error);
}
