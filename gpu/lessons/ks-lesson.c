/* ks-lesson.c: the lessons' registry, their data and references, and the
 * runner for both engines (the CPU model is in ks-lesson-cpu.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ks-error.h"
#include "ks-json.h"
#include "ks-lesson-private.h"
#include "ks-lesson-resources.h"

#define RESOURCE_PREFIX "/org/kernelscope/lessons/"

/* ---- small helpers ------------------------------------------------------- */

static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static KsDim3
dim3 (guint x, guint y, guint z)
{
  KsDim3 d = { x, y, z };

  return d;
}

static KsArray *
new_array (KsElemType type, gsize length, gsize rows, gsize cols)
{
  KsArray *a = ks_array_new (type, length, NULL);

  g_assert (a != NULL);
  a->rows = rows != 0 ? rows : length;
  a->cols = cols;
  return a;
}

/* An array initialised as ks-array.h's bindings do it (normal, uniform). */
static KsArray *
binding_array (KsElemType type, gsize length, KsArrayInit init, double a, double b, double c)
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
static void
fill_randint (KsArray *a, guint64 seed, int lo, int hi)
{
  guint64 state = seed;

  for (gsize i = 0; i < a->length; i++)
    ks_array_set_double (a, i, lo + (int) (_ks_lesson_splitmix64 (&state)
                                           % (guint64) (hi - lo + 1)));
}

static float *
f32 (const KsArray *a)
{
  g_assert (a->type == KS_ELEM_FLOAT32);
  return (float *) a->data;
}

static gint32 *
i32 (const KsArray *a)
{
  g_assert (ks_elem_type_size (a->type) == 4 && !ks_elem_type_is_float (a->type));
  return (gint32 *) a->data;
}

static guint
arg_array (KsLessonRun *run, const char *name, KsArray *array, KsArrayDirection direction,
           const char *book_binding)
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

static void
arg_scalar (KsLessonRun *run, const char *name, KsElemType type, double value)
{
  KsLessonArg *a = g_new0 (KsLessonArg, 1);

  a->name = g_strdup (name);
  a->scalar_type = type;
  a->scalar = value;
  g_ptr_array_add (run->args, a);
}

static void
lesson_arg_free (KsLessonArg *a)
{
  g_free (a->name);
  g_clear_pointer (&a->array, ks_array_free);
  g_free (a);
}

/* An argument's data before the run (what the kernel reads). */
static const KsArray *
arg_data (const KsLessonRun *run, guint arg)
{
  const KsLessonArg *a = g_ptr_array_index (run->args, arg);

  g_assert (a->is_array);
  return a->array;
}

/* An argument's data after the run. */
static const KsArray *
result (const KsLessonRun *run, guint arg)
{
  const KsArray *a = g_ptr_array_index (run->results, arg);

  g_assert (a != NULL);
  return a;
}

static void
note (KsLessonRun *run, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
note (KsLessonRun *run, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (run->report->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
add_host_output (KsLessonRun *run, const char *name, KsArray *array)
{
  KsLessonArray *la = g_new0 (KsLessonArray, 1);

  la->name = g_strdup (name);
  la->role = g_strdup ("host");
  la->array = array;
  g_ptr_array_add (run->report->outputs, la);
}

static void
add_image (KsLessonRun *run, const char *name, KsImage *image)
{
  KsLessonImage *li = g_new0 (KsLessonImage, 1);

  li->name = g_strdup (name);
  li->image = image;
  g_ptr_array_add (run->report->images, li);
}

static void
add_step (KsLessonRun *run, char *title, KsArray *values)
{
  KsLessonStep *s = g_new0 (KsLessonStep, 1);

  s->title = title;
  s->values = values;
  g_ptr_array_add (run->report->steps, s);
}

/* The lesson's reference, once the run has computed it; NULL when none. */
static const KsArray *
reference (const KsLessonRun *run)
{
  return run->report->check.expected_values;
}

/* The check's verdict. `output`: the name of the output compared with the
 * reference (check.expected_values), or NULL for a check of something else. */
static void
set_check (KsLessonRun *run, gboolean passed, const char *against, const char *output,
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
static void
compare_check (KsLessonRun *run, const char *name, const KsArray *actual, const char *against)
{
  const KsArray *expected = reference (run);
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
    set_check (run, TRUE, against, name, n, 0, G_MAXSIZE, NAN, NAN,
               g_strdup_printf ("correct: all %" G_GSIZE_FORMAT " elements equal the reference%s",
                                n, run->abs_tol > 0 || run->rel_tol > 0
                                ? " within the tolerance" : ""));
  else
    set_check (run, FALSE, against, name, n, differing, first,
               ks_array_get_double (expected, first),
               ks_array_get_double (actual, first),
               g_strdup_printf ("wrong: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " elements "
                                "differ, the first at [%" G_GSIZE_FORMAT "] (%g, expected %g)",
                                differing, n, first, ks_array_get_double (actual, first),
                                ks_array_get_double (expected, first)));
}

/* The lessons' pictures, 256×256, from the bundle. */
static KsImage *
load_sample (const char *name)
{
  g_autofree char *path = g_strconcat (RESOURCE_PREFIX "samples/", name, NULL);
  g_autoptr (GBytes) bytes = g_resource_lookup_data (ks_lesson_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  KsImage *image;

  g_assert (bytes != NULL);
  image = ks_image_load_bytes (bytes, NULL);
  g_assert (image != NULL);
  return image;
}

/* One channel of an RGBA8 image (0 R, 1 G, 2 B) as floats. */
static KsArray *
channel_array (const KsImage *rgba, guint channel)
{
  KsArray *a = new_array (KS_ELEM_FLOAT32, (gsize) rgba->width * rgba->height, rgba->height,
                          rgba->width);

  for (guint y = 0; y < rgba->height; y++)
    for (guint x = 0; x < rgba->width; x++)
      f32 (a)[(gsize) y * rgba->width + x] = (float) ((ks_image_get_rgba (rgba, x, y)
                                                       >> (8 * channel)) & 0xFF);
  return a;
}

/* A rows × cols array of floats to a gray image the way the host casts
 * them: truncated and wrapped into 0..255 as numpy's astype(uint8) does for
 * values in range. */
static KsImage *
gray_image (const KsArray *a)
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

static gsize
count_equal (const KsArray *a, double value)
{
  gsize n = 0;

  for (gsize i = 0; i < a->length; i++)
    n += ks_array_get_double (a, i) == value;
  return n;
}

/* ---- for the lessons in other files (ks-lesson-private.h) ------------------ */

double
_ks_lesson_now_ms (void)
{
  return now_ms ();
}

KsArray *
_ks_lesson_new_array (KsElemType type, gsize length, gsize rows, gsize cols)
{
  return new_array (type, length, rows, cols);
}

guint
_ks_lesson_arg_array (KsLessonRun *run, const char *name, KsArray *array,
                      KsArrayDirection direction, const char *book_binding)
{
  return arg_array (run, name, array, direction, book_binding);
}

void
_ks_lesson_arg_scalar (KsLessonRun *run, const char *name, KsElemType type, double value)
{
  arg_scalar (run, name, type, value);
}

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
  add_host_output (run, name, array);
}

void
_ks_lesson_add_image (KsLessonRun *run, const char *name, KsImage *image)
{
  add_image (run, name, image);
}

void
_ks_lesson_set_check (KsLessonRun *run, gboolean passed, const char *against, const char *output,
                      gsize compared, gsize differing, gsize first, double expected,
                      double actual, char *summary)
{
  set_check (run, passed, against, output, compared, differing, first, expected, actual,
             summary);
}

void
_ks_lesson_compare_check (KsLessonRun *run, const char *name, const KsArray *actual,
                          const char *against)
{
  compare_check (run, name, actual, against);
}

KsImage *
_ks_lesson_load_sample (const char *name)
{
  return load_sample (name);
}

KsArray *
_ks_lesson_channel_array (const KsImage *rgba, guint channel)
{
  return channel_array (rgba, channel);
}

KsImage *
_ks_lesson_gray_image (const KsArray *a)
{
  return gray_image (a);
}

/* ---- 11-01 hello ---------------------------------------------------------- */

static gboolean
hello_setup (KsLessonRun *run, GError **error)
{
  run->grid = dim3 (1, 1, 1);
  run->block = dim3 (1, 1, 1);
  run->twin = run->variant->book ? _ks_twin_hello_book : _ks_twin_hello;
  return TRUE;
}

static void
hello_finish (KsLessonRun *run)
{
  const char *want = run->variant->book ? "Hello,PyCUDA!!!" : "Hello,PyCUDA!!!\n";
  const char *got = run->report->printf_output != NULL ? run->report->printf_output : "";
  gboolean ok = g_str_equal (got, want);

  set_check (run, ok, "the string the kernel prints", NULL, 1, ok ? 0 : 1, ok ? G_MAXSIZE : 0,
             NAN, NAN, g_strdup (ok ? "the device printed the line"
                                    : "the device printed other text"));
  if (run->variant->book)
    note (run, "No newline ends the text: a console that shows whole lines shows nothing until "
          "more output or the program's end flushes it.");
}

/* ---- 11-03 blocks in any order ------------------------------------------- */

static gboolean
blocks_setup (KsLessonRun *run, GError **error)
{
  run->grid = dim3 (10, 1, 1);
  run->block = dim3 (1, 1, 1);
  run->shuffle_blocks = TRUE;
  if (run->variant->book)
    run->twin = _ks_twin_blocks_book;
  else
    {
      run->twin = _ks_twin_blocks;
      arg_array (run, "order", new_array (KS_ELEM_INT32, 10, 0, 0), KS_ARRAY_OUT, NULL);
      arg_array (run, "next", new_array (KS_ELEM_INT32, 1, 0, 0), KS_ARRAY_INOUT, NULL);
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
      const KsArray *order = result (run, 0);

      for (guint k = 0; k < 10; k++)
        seen[k] = 0;
      for (gsize i = 0; i < order->length; i++)
        {
          gint32 k = i32 (order)[i];

          if (k >= 0 && k < 10)
            seen[k]++;
        }
      for (guint k = 0; k < 10; k++)
        bad += seen[k] != 1;
    }
  ok = bad == 0 && n_lines == 10;
  set_check (run, ok, "every block runs exactly once", NULL, 10, ok ? 0 : bad,
             ok ? G_MAXSIZE : 0, NAN, NAN,
             g_strdup_printf ("%s; the blocks printed in the order %s%s",
                              ok ? "each of the 10 blocks ran once" : "some block did not run "
                              "exactly once", printed->str,
                              in_order == n_lines ? " (index order, this time)" : ""));
  note (run, "The launch does not order its blocks: run it again (or with another --seed on "
        "the CPU engine, which draws a block order from it) and the lines come in another "
        "order. Results must not depend on it.");
}

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
  arg_array (run, "result", new_array (KS_ELEM_FLOAT32, n, 0, 0), KS_ARRAY_OUT,
             g_str_equal (run->lesson->id, "11-04") ? "mem_alloc" : "drv.Out");
  arg_array (run, "a", binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                      (double) run->options.seed, 0, 1), KS_ARRAY_IN,
             g_str_equal (run->lesson->id, "11-04") ? "memcpy_htod" : "drv.In");
  arg_array (run, "b", binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                      (double) run->options.seed + 1, 0, 1), KS_ARRAY_IN,
             g_str_equal (run->lesson->id, "11-04") ? "memcpy_htod" : "drv.In");
  if (book)
    {
      run->grid = dim3 (1, 1, 1);
      run->block = dim3 (n, 1, 1);
      run->twin = _ks_twin_add_thread;
    }
  else
    {
      arg_scalar (run, "n", KS_ELEM_INT32, n);
      run->block = dim3 (MIN (n, 256u), 1, 1);
      run->grid = dim3 ((n + run->block.x - 1) / run->block.x, 1, 1);
      run->twin = _ks_twin_add_checked;
    }
  run->checked_arg = 0;
  return TRUE;
}

/* x + y element by element in float, capped at `ceiling` (INFINITY: not
 * capped), with x's shape: the reference of every adding lesson. */
static KsArray *
sum_reference (const KsLessonRun *run, guint x_arg, guint y_arg, float ceiling)
{
  const KsArray *x = arg_data (run, x_arg), *y = arg_data (run, y_arg);
  KsArray *sum = new_array (KS_ELEM_FLOAT32, x->length, x->rows, x->cols);

  for (gsize i = 0; i < x->length; i++)
    {
      float v = f32 (x)[i] + f32 (y)[i];

      f32 (sum)[i] = v > ceiling ? ceiling : v;
    }
  return sum;
}

/* result = a + b */
static KsArray *
add_small_reference (const KsLessonRun *run)
{
  return sum_reference (run, 1, 2, INFINITY);
}

static void
add_small_finish (KsLessonRun *run)
{
  const KsArray *a = arg_data (run, 1), *b = arg_data (run, 2);
  const KsArray *c = result (run, 0);

  for (gsize i = 0; i < MIN (c->length, (gsize) 8); i++)
    note (run, "%.9g + %.9g = %.9g", f32 (a)[i], f32 (b)[i], f32 (c)[i]);
  if (g_str_equal (run->lesson->id, "11-04"))
    note (run, "Stages: allocate three device buffers (mem_alloc), copy a and b to the device "
          "(memcpy_htod, the upload time), launch one thread, copy the result back "
          "(memcpy_dtoh, the download time).");
  else
    note (run, "drv.In copies an array to the device before the launch and drv.Out copies one "
          "back after it: the same stages as 11-04, written by the binding.");
}

/* ---- 11-06 a million additions ------------------------------------------- */

static gboolean
million_setup (KsLessonRun *run, GError **error)
{
  const guint n = 1000000;

  arg_array (run, "result", new_array (KS_ELEM_FLOAT32, n, 0, 0), KS_ARRAY_OUT, "drv.Out");
  arg_array (run, "a", binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                      (double) run->options.seed, 0, 1), KS_ARRAY_IN, "drv.In");
  arg_array (run, "b", binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_NORMAL,
                                      (double) run->options.seed + 1, 0, 1), KS_ARRAY_IN, "drv.In");
  arg_scalar (run, "n", KS_ELEM_INT32, n);
  run->block = dim3 (1024, 1, 1);
  /* The book: ceil(N/1024 + 1) in Python 3's true division is 978; the
   * ceiling of N/1024 alone, 977, already covers N. */
  run->grid = dim3 (run->variant->book ? (guint) ceil (n / 1024.0 + 1) : (n + 1023) / 1024, 1, 1);
  run->twin = _ks_twin_add_stride;
  run->checked_arg = 0;
  return TRUE;
}

static void
million_finish (KsLessonRun *run)
{
  guint64 threads = (guint64) run->grid.x * run->block.x;

  note (run, "%u blocks of 1024 threads: %" G_GUINT64_FORMAT " threads for 1000000 elements, "
        "%" G_GUINT64_FORMAT " of them with nothing to do.", run->grid.x, threads,
        threads - 1000000);
  if (run->variant->book)
    note (run, "The book prints one GPU time that covers allocation, 8 MB up, the kernel, 4 MB "
          "down and the wait (book_total_ms), against a pure-Python loop on the CPU. Here the "
          "stages are timed apart after a warm-up, and the CPU side is a C loop on the same "
          "data (timings.reference).");
}

/* ---- 11-07 squaring a matrix ----------------------------------------------- */

static gboolean
square_setup (KsLessonRun *run, GError **error)
{
  guint side = run->size;
  KsArray *a = new_array (KS_ELEM_FLOAT32, (gsize) side * side, side, side);

  if (side > 32)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson 11-07 squares matrices up to 32×32 (one block), not %u×%u", side, side);
      ks_array_free (a);
      return FALSE;
    }
  fill_randint (a, run->options.seed, 1, 4);
  arg_array (run, "a", a, KS_ARRAY_INOUT, "drv.InOut");
  run->block = dim3 (side, side, 1);
  run->grid = dim3 (1, 1, 1);
  if (run->variant->book)
    run->twin = _ks_twin_square_book;
  else
    {
      arg_scalar (run, "width", KS_ELEM_INT32, side);
      arg_scalar (run, "height", KS_ELEM_INT32, side);
      run->twin = _ks_twin_square;
    }
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
square_reference (const KsLessonRun *run)
{
  const KsArray *a = arg_data (run, 0);
  KsArray *squares = ks_array_copy (a);

  for (gsize i = 0; i < a->length; i++)
    f32 (squares)[i] = f32 (a)[i] * f32 (a)[i];
  return squares;
}

static void
square_finish (KsLessonRun *run)
{
  guint side = run->size;
  gsize unwritten = 0, shared = 0;
  g_autoptr (GString) cells = g_string_new (NULL);

  if (!run->variant->book)
    return;
  /* Which cells the hard-coded width maps threads to, from the index math
   * itself (not from the result, where a value of 1 hides its square). */
  {
    g_autofree guint *hits = g_new0 (guint, (gsize) side * side);

    for (guint y = 0; y < side; y++)
      for (guint x = 0; x < side; x++)
        if (x + y * 5 < side * side)
          hits[x + y * 5]++;
    for (gsize i = 0; i < (gsize) side * side; i++)
      {
        unwritten += hits[i] == 0;
        shared += hits[i] > 1;
        if (hits[i] != 1 && cells->len < 200)
          g_string_append_printf (cells, "%s(%" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT ")%s",
                                  cells->len > 0 ? " " : "", i / side, i % side,
                                  hits[i] == 0 ? " never" : " twice");
      }
  }
  if (side == 5)
    note (run, "On the book's own 5×5 the width 5 in the index is right: every cell is "
          "squared once.");
  else
    note (run, "On %u×%u the index x + 5·y is not the cell (x, y): %" G_GSIZE_FORMAT " cells "
          "are never touched and %" G_GSIZE_FORMAT " are claimed by two threads (row, column): "
          "%s. Try --size 5 to see it right.", side, side, unwritten, shared, cells->str);
}

/* ---- 11-08 dot product ---------------------------------------------------- */

static gboolean
dot_setup (KsLessonRun *run, GError **error)
{
  const guint n = 1024;
  KsArray *a = new_array (KS_ELEM_FLOAT32, n, 0, 0);
  KsArray *b = new_array (KS_ELEM_FLOAT32, n, 0, 0);

  for (guint i = 0; i < n; i++)
    {
      f32 (a)[i] = (float) i;
      f32 (b)[i] = 2.0f;
    }
  run->block = dim3 (512, 1, 1);
  run->grid = dim3 (MIN (32u, (n + 511) / 512), 1, 1);
  arg_array (run, "a", a, KS_ARRAY_IN, NULL);
  arg_array (run, "b", b, KS_ARRAY_IN, NULL);
  arg_array (run, "partial", new_array (KS_ELEM_FLOAT32, run->grid.x, 0, 0), KS_ARRAY_OUT, NULL);
  arg_scalar (run, "n", KS_ELEM_INT32, n);
  run->twin = _ks_twin_dot;
  run->checked_arg = -1;
  return TRUE;
}

static void
dot_finish (KsLessonRun *run)
{
  const KsArray *partial = result (run, 2);
  KsArray *dot = new_array (KS_ELEM_FLOAT64, 1, 0, 0);
  double sum = 0, loop = 0, closed = 1023.0 * 1024.0;
  const KsArray *a = arg_data (run, 0), *b = arg_data (run, 1);
  KsArray *expected = new_array (KS_ELEM_FLOAT64, 1, 0, 0);

  for (gsize i = 0; i < partial->length; i++)
    sum += f32 (partial)[i];
  for (gsize i = 0; i < a->length; i++)
    loop += (double) f32 (a)[i] * f32 (b)[i];
  ks_array_set_double (dot, 0, sum);
  ks_array_set_double (expected, 0, loop);
  add_host_output (run, "dot", dot);
  g_clear_pointer (&run->report->check.expected_values, ks_array_free);
  run->report->check.expected_values = expected;
  set_check (run, sum == loop && loop == closed, "a C loop over the products, and x(x+1) with "
             "x = 1023", "dot", 1, sum == loop ? 0 : 1, sum == loop ? G_MAXSIZE : 0, loop, sum,
             g_strdup_printf ("%s: the host's sum of the %" G_GSIZE_FORMAT " block partials is "
                              "%.17g, the loop gives %.17g, x(x+1) = %.17g",
                              sum == loop ? "correct" : "wrong", partial->length, sum, loop,
                              closed));
  note (run, "The book's gpuarray.dot of two 10×10 matrices is this sum of products over all "
        "elements, not a matrix product; its CPU side times a*b without the sum, so the two "
        "times measure different work.");
}

/* ---- 11-09 matrix product ------------------------------------------------- */

static gboolean
matmul_setup (KsLessonRun *run, GError **error)
{
  gboolean tiled = g_str_has_prefix (run->variant->id, "tiled");
  guint w = tiled ? (run->options.size != 0 ? run->options.size : 4) : run->size;
  KsArray *a = new_array (KS_ELEM_FLOAT32, (gsize) w * w, w, w);
  KsArray *b = new_array (KS_ELEM_FLOAT32, (gsize) w * w, w, w);
  KsArray *c = new_array (KS_ELEM_FLOAT32, (gsize) w * w, w, w);

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
            f32 (a)[i * w + j] = (float) i;
            f32 (b)[i * w + j] = (float) j;
          }
      run->block = dim3 (2, 2, 1);
      run->grid = dim3 ((w + 1) / 2, (w + 1) / 2, 1);
      run->twin = g_str_equal (run->variant->id, "tiled") ? _ks_twin_matmul_tiled
                                                         : _ks_twin_matmul_tiled_book;
      if (run->variant->book)
        memset (c->data, KS_LESSON_POISON_BYTE, ks_array_get_bytes (c));
    }
  else
    {
      fill_randint (a, run->options.seed, 1, 4);
      fill_randint (b, run->options.seed + 1, 1, 4);
      run->block = dim3 (w, w, 1);
      run->grid = dim3 (1, 1, 1);
      run->twin = run->variant->book ? _ks_twin_matmul_book : _ks_twin_matmul;
    }
  arg_array (run, "a", a, KS_ARRAY_IN, "gpuarray.to_gpu");
  arg_array (run, "b", b, KS_ARRAY_IN, "gpuarray.to_gpu");
  arg_array (run, "c", c, KS_ARRAY_OUT, tiled ? "cudaMalloc, never cleared" : "gpuarray.empty");
  if (!g_str_equal (run->variant->id, "book"))
    arg_scalar (run, "width", KS_ELEM_INT32, w);
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
  const KsArray *a = arg_data (run, 0), *b = arg_data (run, 1);
  gsize w = a->rows;
  KsArray *c = new_array (KS_ELEM_FLOAT32, w * w, w, w);

  for (gsize i = 0; i < w; i++)
    for (gsize j = 0; j < w; j++)
      {
        double s = 0;

        for (gsize k = 0; k < w; k++)
          s += (double) f32 (a)[i * w + k] * f32 (b)[k * w + j];
        f32 (c)[i * w + j] = (float) s;
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
book_check (KsLessonRun *run, const char *description, gboolean on_result, gboolean on_wrong,
            const KsArray *wrong)
{
  KsLessonBookCheck *bc = &run->report->book_check;
  gsize first = 0;

  bc->present = TRUE;
  bc->description = g_strdup (description);
  bc->says_correct_on_result = on_result;
  bc->says_correct_on_wrong = on_wrong;
  bc->wrong_description = g_strdup ("the result with its middle element increased by 1");
  bc->real_check_catches_wrong = !ks_array_equal (reference (run), wrong, run->abs_tol,
                                                  run->rel_tol, &first);
  note (run, "The book's check says %s for this result and %s for a deliberately wrong one "
        "(%s); the element-wise comparison %s it.", on_result ? "“correct”" : "“wrong”",
        on_wrong ? "“correct”" : "“wrong”", bc->wrong_description,
        bc->real_check_catches_wrong ? "catches" : "misses");
}

static KsArray *
make_wrong (const KsArray *a)
{
  KsArray *wrong = ks_array_copy (a);

  ks_array_set_double (wrong, a->length / 2, ks_array_get_double (a, a->length / 2) + 1);
  return wrong;
}

static void
matmul_finish (KsLessonRun *run)
{
  const KsArray *c = result (run, 2);

  if (g_str_equal (run->variant->id, "book"))
    {
      g_autoptr (KsArray) wrong = make_wrong (c);

      book_check (run, "cpu.all() == gpu.all(): whether both have no zero, compared as two "
                  "booleans", book_all_equal (reference (run), c),
                  book_all_equal (reference (run), wrong), wrong);
    }
  else if (g_str_equal (run->variant->id, "tiled-book"))
    {
      guint32 poison;
      float poison_f;

      memset (&poison, KS_LESSON_POISON_BYTE, 4);
      memcpy (&poison_f, &poison, 4);
      note (run, "C was never cleared, so every cell is its product added to what the buffer "
            "held before: here each cell started as %g (bytes 0x%02X, made visible). A fresh "
            "cudaMalloc happened to read as zeros when measured, so the book's run looks "
            "right; compute-sanitizer --tool initcheck reports the read of uninitialised "
            "memory.", poison_f, KS_LESSON_POISON_BYTE);
    }
  if (g_str_has_prefix (run->variant->id, "tiled"))
    note (run, "Each block loads 2×2 tiles of A and B into shared memory per step: every "
          "element is read from global memory %u times instead of %u.", (run->size + 1) / 2,
          run->size);
}

/* ---- 11-10 element-wise kernel ------------------------------------------- */

static gboolean
elementwise_setup (KsLessonRun *run, GError **error)
{
  const guint n = 1000000;

  arg_array (run, "d_a", binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_UNIFORM,
                                        (double) run->options.seed, 0, 0), KS_ARRAY_IN,
             "curandom.rand");
  arg_array (run, "d_b", binding_array (KS_ELEM_FLOAT32, n, KS_ARRAY_INIT_UNIFORM,
                                        (double) run->options.seed + 1, 0, 0), KS_ARRAY_IN,
             "curandom.rand");
  arg_array (run, "d_c", new_array (KS_ELEM_FLOAT32, n, 0, 0), KS_ARRAY_OUT,
             "gpuarray.empty_like");
  arg_scalar (run, "n", KS_ELEM_INT32, n);
  /* Like PyCUDA's splay: 128 threads per block and a bounded grid, each
   * thread looping over several elements. */
  run->block = dim3 (128, 1, 1);
  run->grid = dim3 (512, 1, 1);
  run->twin = _ks_twin_elementwise_add;
  run->checked_arg = 2;
  return TRUE;
}

/* d_c = d_a + d_b */
static KsArray *
elementwise_reference (const KsLessonRun *run)
{
  return sum_reference (run, 0, 1, INFINITY);
}

static void
elementwise_finish (KsLessonRun *run)
{
  if (run->variant->book)
    {
      g_autoptr (KsArray) wrong = make_wrong (result (run, 2));

      /* `if d_c == (d_a + d_b):` takes the truth of an array of comparisons,
       * which PyCUDA 2017.1.1 reads as its length: true for any non-empty array. */
      book_check (run, "if d_c == (d_a + d_b): an element-wise array whose truth is its length "
                  "(PyCUDA 2017.1.1; PyCUDA 2022.2 and later raise ValueError instead)",
                  result (run, 2)->length > 0, wrong->length > 0, wrong);
    }
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
one_block_with_steps (KsLessonRun *run, KsElemType type, guint threads, guint levels, guint n,
                      KsSimTwin twin)
{
  arg_array (run, "steps", new_array (type, (gsize) threads * levels, levels, threads),
             KS_ARRAY_OUT, NULL);
  arg_scalar (run, "n", KS_ELEM_INT32, n);
  run->block = dim3 (threads, 1, 1);
  run->grid = dim3 (1, 1, 1);
  run->shared = (guint64) threads * 4;
  run->twin = twin;
}

static gboolean
reduce_setup (KsLessonRun *run, GError **error)
{
  const guint n = 5;
  guint threads = MAX (2u, pow2_at_least (n));
  KsArray *a = binding_array (KS_ELEM_UINT32, n, KS_ARRAY_INIT_RANGE, 0, 1, 0);
  KsArray *b = binding_array (KS_ELEM_UINT32, n, KS_ARRAY_INIT_RANGE, 0, 1, 0);

  arg_array (run, "a", a, KS_ARRAY_IN, "gpuarray.arange");
  arg_array (run, "b", b, KS_ARRAY_IN, "gpuarray.arange");
  arg_array (run, "out", new_array (KS_ELEM_UINT32, 1, 0, 0), KS_ARRAY_OUT, NULL);
  one_block_with_steps (run, KS_ELEM_UINT32, threads, log2_of (threads) + 1, n, _ks_twin_reduce);
  run->checked_arg = 2;
  return TRUE;
}

static KsArray *
reduce_reference (const KsLessonRun *run)
{
  const KsArray *a = arg_data (run, 0), *b = arg_data (run, 1);
  KsArray *out = new_array (KS_ELEM_UINT32, 1, 0, 0);
  guint32 sum = 0;

  for (gsize i = 0; i < a->length; i++)
    sum += (guint32) i32 (a)[i] * (guint32) i32 (b)[i];
  ks_array_set_double (out, 0, sum);
  return out;
}

static void
steps_from (KsLessonRun *run, const KsArray *steps, gboolean reduction)
{
  gsize width = steps->cols;

  for (gsize level = 0; level < steps->rows; level++)
    {
      KsArray *row = new_array (steps->type, width, 0, 0);

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
  steps_from (run, result (run, 3), TRUE);
}

/* ---- 11-12 inclusive scan ------------------------------------------------- */

static gboolean
scan_setup (KsLessonRun *run, GError **error)
{
  const guint n = 10;
  guint threads = pow2_at_least (n);
  KsArray *data = new_array (KS_ELEM_INT32, n, 0, 0);

  fill_randint (data, run->options.seed, 1, 9);
  arg_array (run, "data", data, KS_ARRAY_INOUT, "gpuarray.to_gpu, scanned in place");
  one_block_with_steps (run, KS_ELEM_INT32, threads, log2_of (threads), n, _ks_twin_scan);
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
scan_reference (const KsLessonRun *run)
{
  const KsArray *data = arg_data (run, 0);
  KsArray *scanned = ks_array_copy (data);
  gint32 sum = 0;

  for (gsize i = 0; i < data->length; i++)
    i32 (scanned)[i] = (sum += i32 (data)[i]);
  return scanned;
}

static void
scan_finish (KsLessonRun *run)
{
  steps_from (run, result (run, 1), FALSE);
}

/* ---- 12-01, 12-02 histograms ---------------------------------------------- */

static KsArray *
photo_gray_pixels (KsElemType type)
{
  g_autoptr (KsImage) photo = load_sample ("lesson-photo-gray.png");
  KsArray *a = new_array (type, (gsize) photo->width * photo->height, photo->height, photo->width);

  for (guint y = 0; y < photo->height; y++)
    for (guint x = 0; x < photo->width; x++)
      ks_array_set_double (a, (gsize) y * photo->width + x, ks_image_get_rgba (photo, x, y) & 0xFF);
  return a;
}

static gboolean
hist_setup (KsLessonRun *run, GError **error)
{
  gboolean shared = g_str_equal (run->lesson->id, "12-02");
  const char *v = run->variant->id;
  KsArray *bins;
  guint size, k;

  if (g_str_equal (v, "race"))
    {
      /* The C twin's data: 1000 values i % 16 into 16 bins, <<<63, 16>>>. */
      KsArray *input = new_array (KS_ELEM_INT32, 1000, 0, 0);

      for (guint i = 0; i < 1000; i++)
        i32 (input)[i] = (gint32) (i % 16);
      arg_array (run, "bins", new_array (KS_ELEM_INT32, 16, 0, 0), KS_ARRAY_OUT,
                 "cudaMemcpy of host zeros");
      arg_array (run, "input", input, KS_ARRAY_IN, "cudaMemcpy");
      arg_scalar (run, "size", KS_ELEM_INT32, 1000);
      run->grid = dim3 ((1000 + 16 - 1) / 16, 1, 1);
      run->block = dim3 (16, 1, 1);
      run->twin = _ks_twin_hist_race;
      run->wave = KS_LESSON_RACE_WAVE;
      run->checked_arg = 0;
      return TRUE;
    }

  if (g_str_equal (v, "int64"))
    {
      /* numpy.int is int64: each pixel is 8 bytes, low word first; the
       * kernel's int* sees them as 4-byte values, twice as many. */
      g_autoptr (KsArray) pixels = photo_gray_pixels (KS_ELEM_INT64);
      KsArray *words = new_array (KS_ELEM_INT32, pixels->length * 2, 0, 0);

      memcpy (words->data, pixels->data, ks_array_get_bytes (pixels));
      size = (guint) pixels->length;
      /* 256 int64 zeros on the host: 2048 bytes, 512 of the kernel's ints. */
      bins = new_array (KS_ELEM_INT32, 512, 0, 0);
      arg_array (run, "bins", bins, KS_ARRAY_OUT, "drv.Out of numpy.zeros(256).astype(numpy.int)");
      arg_array (run, "pixels", words, KS_ARRAY_IN, "drv.In of img.astype(numpy.int)");
    }
  else
    {
      KsArray *pixels = photo_gray_pixels (KS_ELEM_INT32);

      size = (guint) pixels->length;
      /* The book variant of 12-02 gets one guard slot past the 256 bins, so
       * that thread 256's atomicAdd (&bins[256], …) lands in memory of the
       * run's own, where it is seen, on either engine. */
      bins = new_array (KS_ELEM_INT32, shared && run->variant->book ? 257 : 256, 0, 0);
      if (!shared && run->variant->book)
        memset (bins->data, KS_LESSON_POISON_BYTE, ks_array_get_bytes (bins));
      k = arg_array (run, "bins", bins, KS_ARRAY_OUT, run->variant->book ? "drv.Out" : NULL);
      /* Under compute-sanitizer the book's own 256 bins, without the guard. */
      ((KsLessonArg *) g_ptr_array_index (run->args, k))->book_length = 256;
      arg_array (run, "pixels", pixels, KS_ARRAY_IN, "drv.In");
    }
  arg_scalar (run, "size", KS_ELEM_INT32, size);
  if (run->variant->book)
    {
      /* n_threads = ceil((SIZE + NUM_BIN - 1) / NUM_BIN) = 257 with true division. */
      run->grid = dim3 (256, 1, 1);
      run->block = dim3 ((guint) ceil ((size + 256 - 1) / 256.0), 1, 1);
      run->shared = shared ? 1024 : 0;
      run->twin = shared ? _ks_twin_hist_shared_book : _ks_twin_hist_book;
    }
  else if (shared)
    {
      /* Few blocks, many pixels each: that is when privatising pays. */
      run->grid = dim3 (32, 1, 1);
      run->block = dim3 (256, 1, 1);
      run->twin = _ks_twin_hist_shared;
    }
  else
    {
      run->block = dim3 (256, 1, 1);
      run->grid = dim3 ((size + 255) / 256, 1, 1);
      run->twin = _ks_twin_hist;
    }
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
hist_reference (const KsLessonRun *run)
{
  const KsArray *input = arg_data (run, 1), *bins = arg_data (run, 0);
  KsArray *counts = new_array (KS_ELEM_INT32, MIN (bins->length, (gsize) 256), 0, 0);

  if (g_str_equal (run->variant->id, "int64"))
    {
      /* What the pixels count to when each is read as the 8-byte value it is. */
      const gint64 *p = (const gint64 *) input->data;

      for (gsize i = 0; i < input->length / 2; i++)
        i32 (counts)[p[i]]++;
    }
  else
    for (gsize i = 0; i < input->length; i++)
      i32 (counts)[i32 (input)[i]]++;
  return counts;
}

static void
hist_finish (KsLessonRun *run)
{
  const KsArray *bins = result (run, 0);
  const char *v = run->variant->id;
  gboolean shared = g_str_equal (run->lesson->id, "12-02");
  guint64 threads = (guint64) run->grid.x * run->block.x;
  gint64 sum = 0;

  run->report->atomics.counted = TRUE;
  for (gsize i = 0; i < MIN (bins->length, (gsize) 256); i++)
    sum += i32 (bins)[i];
  if (g_str_equal (v, "race"))
    {
      note (run, "Without atomics the bins hold %" G_GINT64_FORMAT " counts for 1000 values: %"
            G_GINT64_FORMAT " increments were lost (correct: 63 in bins 0–7, 62 in bins 8–15). "
            "The CPU model runs %u blocks at a time, every thread of them loading its bin "
            "before any stores it back, so each wave adds one per bin it touches; on a GPU "
            "the loss differs from run to run.", sum, 1000 - sum, KS_LESSON_RACE_WAVE);
      run->report->atomics.counted = FALSE;
    }
  else if (g_str_equal (v, "int64"))
    {
      /* The host reads its 256 int64 bins: the kernel's ints two by two. */
      KsArray *host = new_array (KS_ELEM_INT64, 256, 0, 0);
      const guint32 *w = (const guint32 *) bins->data;

      for (gsize i = 0; i < 256; i++)
        ((gint64 *) host->data)[i] = (gint64) ((guint64) w[2 * i] | ((guint64) w[2 * i + 1] << 32));
      note (run, "Each 8-byte pixel reads as its value and a 0: the kernel counts the first "
            "half of the image (rows 0–127) plus 32768 zeros, so its bin 0 is %d. The host "
            "then reads the 256 ints as 128 int64 pairs (the first is %" G_GINT64_FORMAT ") and "
            "128 values the kernel never wrote.", i32 (bins)[0], ((gint64 *) host->data)[0]);
      add_host_output (run, "bins as the host reads them (int64)", host);
    }
  else if (run->variant->book && !shared)
    {
      gint32 poison;

      memset (&poison, KS_LESSON_POISON_BYTE, 4);
      note (run, "The bins were never cleared (drv.Out only allocates): each count was added "
            "to the %d the buffer held (bytes 0x%02X, made visible). Subtract it and the "
            "histogram is right: the atomics worked, the start did not. A fresh cudaMalloc "
            "happened to read as zeros when measured, so the book's run looks right.", poison,
            KS_LESSON_POISON_BYTE);
      note (run, "The pixel is loaded before the bounds test: the %" G_GUINT64_FORMAT " surplus "
            "threads read past the 65536 pixels (the CPU model refuses those reads, see "
            "faults). Optimised builds move the load below the test, so it does not show on "
            "the GPU.", threads - 65536);
    }
  else if (run->variant->book && shared)
    {
      note (run, "257 threads per block for a 256-entry table: thread 256 of every block "
            "writes cache[256] and reads it back (the CPU model refuses both, see faults; on "
            "the GPU they land in the 1 KiB of dynamic shared memory the launch requests and "
            "never uses) and adds it to bins[256], the guard slot past the table (here %d).",
            i32 (bins)[256]);
      note (run, "256 × 257 threads for 65536 pixels: each thread counts at most one pixel, so "
            "the merge costs 256 × 257 = 65792 global atomics, more than the 65536 of 12-01, "
            "on top of 65536 shared ones. Privatising pays with few blocks and many pixels "
            "per thread (the fixed variant: %u global atomics).", 32 * 256);
    }
  if (run->report->atomics.counted)
    run->report->atomics.how =
      g_strdup_printf ("counted by the CPU model as the kernel runs: %" G_GUINT64_FORMAT
                       " threads, %s", threads,
                       shared ? "one shared atomic per pixel and one global atomic per bin and "
                                "thread of the merge"
                              : "one global atomic per pixel");
}

/* ---- 12-03 gray ---------------------------------------------------------------- */

static gboolean
gray_setup (KsLessonRun *run, GError **error)
{
  g_autoptr (KsImage) photo = load_sample ("lesson-photo-color.png");
  gsize n = (gsize) photo->width * photo->height;

  arg_array (run, "result", new_array (KS_ELEM_FLOAT32, n, photo->height, photo->width),
             KS_ARRAY_OUT, "drv.Out, the same array as r");
  arg_array (run, "b", channel_array (photo, 2), KS_ARRAY_IN, "drv.In");
  arg_array (run, "g", channel_array (photo, 1), KS_ARRAY_IN, "drv.In");
  arg_array (run, "r", channel_array (photo, 0), KS_ARRAY_IN, "drv.In");
  run->block = dim3 (1024, 1, 1);
  run->grid = dim3 (64, 1, 1);
  if (run->variant->book)
    {
      run->twin = _ks_twin_gray_book;
      /* The GPU may fuse the double multiply-adds; the stored floats then
       * differ in the last bits, never across an integer for these inputs. */
      run->abs_tol = 1e-3;
    }
  else
    {
      arg_scalar (run, "n", KS_ELEM_INT32, (double) n);
      run->grid = dim3 ((guint) ((n + 1023) / 1024), 1, 1);
      run->twin = _ks_twin_gray;
      /* A sum exactly halfway between two levels may round either way in
       * float; at most one level then. */
      run->abs_tol = 1.0;
    }
  /* The book's result is what astype(uint8) makes of it: checked in finish. */
  run->checked_arg = run->variant->book ? -1 : 0;
  return TRUE;
}

int
_ks_lesson_gray_thousandths (const KsArray *b, const KsArray *g, const KsArray *r, gsize i)
{
  return 299 * (int) f32 (r)[i] + 587 * (int) f32 (g)[i] + 114 * (int) f32 (b)[i];
}

/* Pixel i's gray value in BT.601's integer thousandths: exact. */
static int
gray_thousandths (const KsLessonRun *run, gsize i)
{
  return _ks_lesson_gray_thousandths (arg_data (run, 1), arg_data (run, 2), arg_data (run, 3), i);
}

static KsArray *
gray_reference (const KsLessonRun *run)
{
  const KsArray *r = arg_data (run, 3);
  KsArray *gray = new_array (KS_ELEM_FLOAT32, r->length, r->rows, r->cols);

  for (gsize i = 0; i < r->length; i++)
    {
      int sum = gray_thousandths (run, i);

      f32 (gray)[i] = (float) (run->variant->book ? sum / 1000 : (sum + 500) / 1000);
    }
  return gray;
}

static void
gray_finish (KsLessonRun *run)
{
  const KsArray *gray = result (run, 0);

  add_image (run, "input", load_sample ("lesson-photo-color.png"));
  add_image (run, "result", gray_image (gray));
  if (run->variant->book)
    {
      gsize darker = 0;
      KsArray *cast = new_array (KS_ELEM_UINT8, gray->length, gray->rows, gray->cols);

      for (gsize i = 0; i < gray->length; i++)
        cast->data[i] = (guint8) CLAMP ((int) f32 (gray)[i], 0, 255);
      add_host_output (run, "gray (astype(uint8))", cast);
      compare_check (run, "gray (astype(uint8))", cast,
                     "BT.601 in integers, truncated as astype(uint8) does");
      for (gsize i = 0; i < gray->length; i++)
        darker += (int) f32 (gray)[i] != (gray_thousandths (run, i) + 500) / 1000;
      note (run, "astype(uint8) truncates: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " pixels "
            "(%.1f %%) are one level darker than rounding gives.", darker, gray->length,
            100.0 * darker / gray->length);
      note (run, "64 blocks × 1024 threads and the width 256 in the index cover exactly one "
            "256×256 image; the result array is the r array itself on the host, overwritten.");
    }
}

/* ---- 12-05 addition, 12-06 inversion -------------------------------------- */

static gboolean
image_add_setup (KsLessonRun *run, GError **error)
{
  KsArray *photo = photo_gray_pixels (KS_ELEM_FLOAT32);
  g_autoptr (KsImage) circles = load_sample ("lesson-circles.png");
  KsArray *c = channel_array (circles, 0);
  gsize n = photo->length;

  arg_array (run, "result", new_array (KS_ELEM_FLOAT32, n, photo->rows, photo->cols),
             KS_ARRAY_OUT, "drv.Out, the same array as the first image");
  arg_array (run, "a", photo, KS_ARRAY_IN, "drv.In");
  arg_array (run, "b", c, KS_ARRAY_IN, "drv.In");
  arg_scalar (run, "n", KS_ELEM_INT32, (double) n);
  run->block = dim3 (1024, 1, 1);
  run->grid = dim3 (64, 1, 1);
  run->twin = _ks_twin_add_clamp;
  run->checked_arg = 0;
  return TRUE;
}

/* result = min (a + b, 255) */
static KsArray *
image_add_reference (const KsLessonRun *run)
{
  return sum_reference (run, 1, 2, 255.0f);
}

static void
image_add_finish (KsLessonRun *run)
{
  const KsArray *a = arg_data (run, 1), *b = arg_data (run, 2);
  const KsArray *out = result (run, 0);
  gsize clamped = 0;

  for (gsize i = 0; i < a->length; i++)
    clamped += f32 (a)[i] + f32 (b)[i] > 255.0f;
  add_image (run, "photo", gray_image (a));
  add_image (run, "circles", gray_image (b));
  add_image (run, "result", gray_image (out));
  note (run, "%" G_GSIZE_FORMAT " sums passed 255 and were clamped; the circles have %"
        G_GSIZE_FORMAT " white pixels, and everywhere they are white the result is 255.",
        clamped, count_equal (b, 255));
}

static gboolean
invert_setup (KsLessonRun *run, GError **error)
{
  g_autoptr (KsImage) circles = load_sample ("lesson-circles.png");
  KsArray *x = channel_array (circles, 0);
  gsize n = x->length;

  arg_array (run, "z", new_array (KS_ELEM_FLOAT32, n, x->rows, x->cols), KS_ARRAY_OUT,
             "the GPUArray 255 - x returns");
  arg_array (run, "x", x, KS_ARRAY_IN, "gpuarray.to_gpu");
  arg_scalar (run, "a", KS_ELEM_FLOAT32, -1);
  arg_scalar (run, "b", KS_ELEM_FLOAT32, 255);
  arg_scalar (run, "n", KS_ELEM_INT32, (double) n);
  run->block = dim3 (1024, 1, 1);
  run->grid = dim3 (64, 1, 1);
  run->twin = _ks_twin_axpbz;
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
invert_reference (const KsLessonRun *run)
{
  const KsArray *x = arg_data (run, 1);
  KsArray *z = new_array (KS_ELEM_FLOAT32, x->length, x->rows, x->cols);

  for (gsize i = 0; i < x->length; i++)
    f32 (z)[i] = 255.0f - f32 (x)[i];
  return z;
}

static void
invert_finish (KsLessonRun *run)
{
  const KsArray *x = arg_data (run, 1);
  const KsArray *z = result (run, 0);

  add_image (run, "circles", gray_image (x));
  add_image (run, "result", gray_image (z));
  note (run, "%" G_GSIZE_FORMAT " pixels are white after the inversion (%" G_GSIZE_FORMAT
        " were black).", count_equal (z, 255), count_equal (x, 0));
}

/* ---- the registry ---------------------------------------------------------- */

static const KsLessonImpl impl_hello = { hello_setup, NULL, hello_finish };
static const KsLessonImpl impl_blocks = { blocks_setup, NULL, blocks_finish };
static const KsLessonImpl impl_add_small = { add_small_setup, add_small_reference,
                                             add_small_finish };
static const KsLessonImpl impl_million = { million_setup, add_small_reference, million_finish };
static const KsLessonImpl impl_square = { square_setup, square_reference, square_finish };
static const KsLessonImpl impl_dot = { dot_setup, NULL, dot_finish };
static const KsLessonImpl impl_matmul = { matmul_setup, matmul_reference, matmul_finish };
static const KsLessonImpl impl_elementwise = { elementwise_setup, elementwise_reference,
                                               elementwise_finish };
static const KsLessonImpl impl_reduce = { reduce_setup, reduce_reference, reduce_finish };
static const KsLessonImpl impl_scan = { scan_setup, scan_reference, scan_finish };
static const KsLessonImpl impl_hist = { hist_setup, hist_reference, hist_finish };
static const KsLessonImpl impl_gray = { gray_setup, gray_reference, gray_finish };
static const KsLessonImpl impl_image_add = { image_add_setup, image_add_reference,
                                             image_add_finish };
static const KsLessonImpl impl_invert = { invert_setup, invert_reference, invert_finish };

#define FIXED(src, desc) { "fixed", "Fixed", desc, FALSE, "", src, NULL, TRUE, NULL }

static const KsLessonVariant v_hello[] = {
  FIXED ("11-01.cu", "The line ends with a newline, and the run waits for the kernel, so the "
         "text arrives whole."),
  { "book", "As in the book", "No newline and no wait: the text shows only when the printf "
    "buffer is flushed.", TRUE, "P18", "11-01-book.cu", NULL, TRUE, NULL },
};
/* Not FIXED (): the order the blocks ran in is the lesson, and on a GPU it
 * differs from run to run, so only the check's verdict is compared. */
static const KsLessonVariant v_blocks[] = {
  { "fixed", "Fixed", "Each block also records when it ran in an array, so the order is data, "
    "not just console text.", FALSE, "", "11-03.cu", NULL, FALSE, NULL },
  { "book", "As in the book", "Ten blocks print their index; the lines come in whatever order "
    "the blocks ran.", TRUE, "P18", "11-03-book.cu", NULL, FALSE, NULL },
};
static const KsLessonVariant v_add1[] = {
  FIXED ("11-04.cu", "Explicit allocation and copies around a one-thread launch."),
};
static const KsLessonVariant v_add_n[] = {
  FIXED ("11-05.cu", "A grid covering N with a bounds check: any N works (--size N)."),
  { "book", "As in the book", "One block of N threads indexed by threadIdx.x: try --size 2000 "
    "and the launch is refused (a block holds at most 1024 threads).", TRUE, "P14",
    "11-05-book.cu", NULL, TRUE, NULL },
};
static const KsLessonVariant v_million[] = {
  FIXED ("11-06.cu", "977 blocks, stages timed apart after a warm-up, against a C loop on the "
         "same data."),
  { "book", "As in the book", "978 blocks, and the book's one time around everything (see "
    "book_total_ms) next to the fair numbers.", TRUE, "P15", "11-06-book.cu", NULL, TRUE, NULL },
};
static const KsLessonVariant v_square[] = {
  FIXED ("11-07.cu", "The width is a parameter and every thread checks its cell."),
  { "book", "As in the book", "The width 5 is in the index. Run on 6×6 by default to show the "
    "wrong cells (--size 5: the book's own size, right).", TRUE, "P14", "11-07-book.cu", NULL,
    TRUE, NULL },
};
static const KsLessonVariant v_dot[] = {
  FIXED ("11-08.cu", "Partial sums per thread, a shared-memory tree per block, the host adds "
         "the blocks: 1024 values i·2 make 1 047 552."),
};
static const KsLessonVariant v_matmul[] = {
  FIXED ("11-09.cu", "One thread per cell, the size a parameter, checked element by element "
         "with a tolerance."),
  { "tiled", "Tiled", "The C twin's shared-memory tiles (TILE 2) on A[i][j] = i, B[i][j] = j, "
    "with the sum started at zero.", FALSE, "", "11-09-tiled.cu", NULL, TRUE, NULL },
  { "book", "As in the book", "The book's check, cpu.all() == gpu.all(), shown to say "
    "“correct” for a deliberately wrong product.", TRUE, "P6", "11-09-book.cu", NULL, TRUE, NULL },
  { "tiled-book", "Tiled, as in the C twin", "+= into a C nobody cleared: the old contents "
    "(poisoned here) end up in the product.", TRUE, "P3", "11-09-tiled-book.cu",
    "compute-sanitizer --tool initcheck reports “Uninitialized __global__ memory read” for c",
    TRUE, "initcheck" },
};
static const KsLessonVariant v_elementwise[] = {
  FIXED ("11-10.cu", "The generated grid-stride kernel, checked element by element."),
  { "book", "As in the book", "The book's `if d_c == (d_a + d_b)` is true for any non-empty "
    "array: shown passing a deliberately wrong result.", TRUE, "P9", "11-10.cu", NULL, TRUE, NULL },
};
static const KsLessonVariant v_reduce[] = {
  FIXED ("11-11.cu", "Map a·b then a tree of additions in shared memory, every stage shown."),
};
static const KsLessonVariant v_scan[] = {
  FIXED ("11-12.cu", "Hillis–Steele: log2(n) steps, every step shown, checked against a "
         "running sum."),
};
static const KsLessonVariant v_hist[] = {
  FIXED ("12-01.cu", "One atomicAdd per pixel into cleared bins, the bounds test before the "
         "load."),
  { "book", "As in the book", "256 × 257 threads, the load before the bounds test, and bins "
    "never cleared (poisoned here): every bin is off by the garbage.", TRUE, "P2 P3",
    "12-01-book.cu", "memcheck on a -G build reports “Invalid __global__ read” for pixels (only "
    "when nothing follows it in memory); initcheck reports the uninitialised bins", TRUE,
    "initcheck" },
  { "int64", "As in the book, on Linux", "numpy.int is int64 there: the int kernel sees half "
    "the image and as many zeros, and the host reads its bins as pairs.", TRUE, "P5",
    "12-01-int64.cu", NULL, TRUE, NULL },
  { "race", "The C twin without atomics", "bins[item]++ from many threads at once: increments "
    "are lost.", TRUE, "P16", "12-01-race.cu", "racecheck does not see global-memory races; the "
    "count simply varies from run to run", FALSE, "racecheck" },
};
static const KsLessonVariant v_hist_shared[] = {
  FIXED ("12-02.cu", "Block-private bins in shared memory, strided clear and merge, 32 blocks: "
         "8192 global atomics instead of 65 536."),
  { "book", "As in the book", "257 threads for 256 table entries, and 256 × 257 threads: no "
    "gain from privatising.", TRUE, "P10 P11", "12-02-book.cu", "memcheck reports “Invalid "
    "__global__ atomic” for bins[256] (the shared write lands in the unused dynamic shared "
    "memory and is not flagged)", TRUE, "memcheck" },
};
static const KsLessonVariant v_gray[] = {
  FIXED ("12-03.cu", "n as a parameter, a bounds check, and the gray value rounded."),
  { "book", "As in the book", "The 256 width in the index, 64 × 1024 threads, and the result "
    "truncated by astype(uint8).", TRUE, "P13 P14", "12-03-book.cu", NULL, TRUE, NULL },
};
static const KsLessonVariant v_device[] = {
  FIXED ("11-02.cu", "What the book prints: the count, then for each device its name, compute "
         "capability, memory in whole GB by floor division and the 84 attributes of PyCUDA "
         "2017.1.1, two per line; on the CPU engine, the count of a machine without one."),
};
static const KsLessonVariant v_webcam[] = {
  { "fixed", "Fixed", "12-03's fixed kernel on every frame, with the four buffers allocated "
    "once, the result in a buffer of its own and the gray rounded.", FALSE, "", "12-03.cu",
    NULL, TRUE, NULL },
  { "book", "As in the book", "Every frame allocates and copies four device buffers through In "
    "and Out, the result overwrites the r plane, and astype(uint8) truncates.", TRUE, "P12 P13",
    "12-03-book.cu", NULL, TRUE, NULL },
};
static const KsLessonVariant v_image_add[] = {
  FIXED ("12-05.cu", "The photo plus the circles, clamped at 255, on the book's 64 × 1024 "
         "threads."),
};
static const KsLessonVariant v_invert[] = {
  FIXED ("12-06.cu", "255 − x as gpuarray runs it: −1·x + 255 element by element."),
};

#define LESSON(id, slug, title, script, text, variants, impl) \
  { id, slug, title, script, text, variants, G_N_ELEMENTS (variants), FALSE, NULL, { 0, 0, 0 }, \
    &impl }

static const KsLesson lessons[] = {
  LESSON ("11-01", "hello", "Hello from the GPU", "Chapter11/01_hello_pycuda.py",
          "A kernel is compiled from a source string at run time and launched on one thread. "
          "Device printf goes to a buffer that the host reads when it synchronises, not "
          "straight to the console.", v_hello, impl_hello),
  { "11-02", "device-properties", "Device properties", "Chapter11/02_device_properties.py",
    "The host asks the driver how many devices there are and, for each, its name, compute "
    "capability, memory and every attribute PyCUDA knows: the limits a launch must respect. "
    "No kernel runs.", v_device, G_N_ELEMENTS (v_device), TRUE, NULL, { 0, 0, 0 },
    &_ks_lesson_impl_device },
  LESSON ("11-03", "blocks-in-any-order", "Blocks run in any order",
          "Chapter11/03_thread_execution.py",
          "Ten blocks of one thread each print their index. Nothing orders the blocks of a "
          "launch, so a result must never depend on which block runs first.", v_blocks,
          impl_blocks),
  LESSON ("11-04", "add-two-numbers", "Adding two numbers, copies by hand",
          "Chapter11/04_add_num.py",
          "The host allocates device memory, copies the inputs there, launches, and copies the "
          "result back. Each of those stages costs time of its own, shown apart here.",
          v_add1, impl_add_small),
  LESSON ("11-05", "add-with-bindings", "Adding with In and Out bindings",
          "Chapter11/05_add_num_drv.py",
          "drv.In and drv.Out do the copies of 11-04 for you: In before the launch, Out after "
          "it. A single block of N threads limits N to the largest block.", v_add_n,
          impl_add_small),
  LESSON ("11-06", "million-additions", "A million additions, GPU against CPU",
          "Chapter11/06_add_number.py",
          "A grid-stride loop adds two arrays of a million floats. Timed fairly (compile, "
          "copies and kernel apart, warm-up excluded, medians) against a C loop, the GPU's "
          "kernel is fast and the copies dominate; the book's single time hides that.",
          v_million, impl_million),
  LESSON ("11-07", "square-matrix", "Squaring a matrix in place", "Chapter11/07_square.py",
          "A 5×5 block squares a 5×5 matrix, one thread per cell with a 2-D index. The book "
          "writes the row width into the index, which breaks on any other size.", v_square,
          impl_square),
  LESSON ("11-08", "dot-product", "The dot product: a sum of products",
          "Chapter11/08_gpu_dot.py",
          "Each thread sums products, then each block halves its partial sums in shared "
          "memory with __syncthreads between steps. The book's gpuarray.dot of two matrices "
          "is this sum over all elements, not a matrix product.", v_dot, impl_dot),
  LESSON ("11-09", "matrix-multiplication", "Matrix product, naive and tiled",
          "Chapter11/09_matrix_multiplication.py",
          "One thread per cell of C walks a row of A and a column of B; the tiled version "
          "shares 2×2 tiles through shared memory. The book's check compares two booleans and "
          "passes a wrong product.", v_matmul, impl_matmul),
  LESSON ("11-10", "elementwise-kernel", "An element-wise kernel",
          "Chapter11/10_element_wise_addition.py",
          "ElementwiseKernel wraps one statement over element i into a grid-stride kernel. "
          "Whether a result is right needs an element-wise comparison reduced to one answer; "
          "the book's test is true for any array.", v_elementwise, impl_elementwise),
  LESSON ("11-11", "reduction", "Reduction", "Chapter11/11_gpu_reduction.py",
          "A reduction maps each element (a·b) and combines the results pairwise in shared "
          "memory, halving the active threads at every stage: [0 1 2 3 4]·[0 1 2 3 4] = 30.",
          v_reduce, impl_reduce),
  LESSON ("11-12", "inclusive-scan", "Inclusive scan", "Chapter11/12_gpu_scan.py",
          "An inclusive scan gives every element the sum of all elements up to it. In log2(n) "
          "steps each element adds the one 1, 2, 4, … places before it.", v_scan, impl_scan),
  LESSON ("12-01", "histogram", "Histogram with global atomics",
          "Chapter12/01_histogram_without_shared.py",
          "One thread per pixel adds one to its bin with atomicAdd, so concurrent increments "
          "of one bin are not lost. Without the atomic they are; and bins must start at zero.",
          v_hist, impl_hist),
  LESSON ("12-02", "histogram-shared", "Histogram in shared memory",
          "Chapter12/02_histogram_with_shared.py",
          "Each block counts into its own bins in fast shared memory and merges them once. "
          "That pays only when each thread handles many pixels; the book's launch gives each "
          "at most one, and one thread too many for the table.", v_hist_shared, impl_hist),
  LESSON ("12-03", "gray", "Colour to gray", "Chapter12/03_bgr2gray.py",
          "One thread per pixel weighs red, green and blue (BT.601) into a gray value. The "
          "book's launch and index fit exactly one 256×256 image, and its cast truncates.",
          v_gray, impl_gray),
  { "12-04", "webcam-gray", "Live webcam grayscale", "Chapter12/04_bgr2gray_webcam.py",
    "12-03's kernel and launch on every frame of a camera, resized to 256×256. Here the frames "
    "are made from the seed (the window can run the same op on the live camera); the book's "
    "loop allocates and copies four buffers per frame and truncates the gray.", v_webcam,
    G_N_ELEMENTS (v_webcam), FALSE, "gray", { 1024, 1, 1 }, &_ks_lesson_impl_webcam },
  LESSON ("12-05", "image-addition", "Adding two images", "Chapter12/05_image_addition.py",
          "Two gray images are added pixel by pixel and clamped at 255, so white stays white. "
          "The sum saturates exactly where the circles are white.", v_image_add,
          impl_image_add),
  LESSON ("12-06", "image-inversion", "Inverting an image", "Chapter12/06_image_inversion.py",
          "255 − x on a GPUArray runs a generated element-wise kernel, −1·x + 255. Black and "
          "white swap.", v_invert, impl_invert),
};

static const KsLesson *lesson_pointers[G_N_ELEMENTS (lessons)];

const KsLesson *const *
ks_lesson_registry (guint *n)
{
  for (guint i = 0; i < G_N_ELEMENTS (lessons); i++)
    lesson_pointers[i] = &lessons[i];
  if (n != NULL)
    *n = G_N_ELEMENTS (lessons);
  return lesson_pointers;
}

const KsLesson *
ks_lesson_lookup (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (lessons); i++)
    if (g_ascii_strcasecmp (lessons[i].id, name) == 0
        || g_ascii_strcasecmp (lessons[i].slug, name) == 0)
      return &lessons[i];
  return NULL;
}

const KsLessonVariant *
ks_lesson_lookup_variant (const KsLesson *lesson, const char *id)
{
  g_return_val_if_fail (lesson != NULL, NULL);
  if (id == NULL || *id == '\0')
    return &lesson->variants[0];
  for (guint i = 0; i < lesson->n_variants; i++)
    if (g_str_equal (lesson->variants[i].id, id))
      return &lesson->variants[i];
  return NULL;
}

const KsLessonVariant *
ks_lesson_get_book_variant (const KsLesson *lesson)
{
  g_return_val_if_fail (lesson != NULL, NULL);
  for (guint i = 0; i < lesson->n_variants; i++)
    if (lesson->variants[i].book)
      return &lesson->variants[i];
  return NULL;
}

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

void
ks_lesson_options_init (KsLessonOptions *options)
{
  memset (options, 0, sizeof *options);
  options->repeats = 5;
  options->seed = 1;
}

/* The size a lesson runs on: the option, else the variant's default. */
static gboolean
resolve_size (KsLessonRun *run, GError **error)
{
  const char *id = run->lesson->id;
  guint size = run->options.size;

  if (g_str_equal (id, "11-05"))
    run->size = size != 0 ? size : (run->variant->book ? 1 : 5);
  else if (g_str_equal (id, "11-07"))
    run->size = size != 0 ? size : (run->variant->book ? 6 : 5);
  else if (g_str_equal (id, "11-09"))
    run->size = size != 0 ? size : 3;
  else if (g_str_equal (id, "11-04"))
    run->size = size != 0 ? size : 1;
  else if (g_str_equal (id, "12-04"))
    {
      run->size = size != 0 ? size : KS_LESSON_DEFAULT_FRAMES;
      if (run->size > KS_LESSON_MAX_FRAMES)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "lesson 12-04 runs at most %u frames, not %u", KS_LESSON_MAX_FRAMES,
                       run->size);
          return FALSE;
        }
    }
  else if (size != 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson %s runs on the tutorial's data: it takes no size (only 11-05, 11-07, "
                   "11-09 and 12-04, its frames, do)", id);
      return FALSE;
    }
  if (run->size > 1u << 24)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "size %u is too large", run->size);
      return FALSE;
    }
  return TRUE;
}

static void
run_free (KsLessonRun *run)
{
  if (run->lesson_data_free != NULL)
    run->lesson_data_free (run->lesson_data);
  if (run->block_of != NULL)
    for (guint i = 0; i < run->args->len; i++)
      {
        g_free (run->block_of[i]);
        g_free (run->thread_of[i]);
      }
  g_ptr_array_unref (run->args);
  g_clear_pointer (&run->results, g_ptr_array_unref);
  g_free (run->block_of);
  g_free (run->thread_of);
  g_clear_pointer (&run->compiled, ks_compile_result_free);
  g_clear_pointer (&run->source, ks_kernel_source_unref);
  g_free (run);
}

static KsLessonRun *
run_new (const KsLesson *lesson, const KsLessonVariant *variant, const KsLessonOptions *options)
{
  KsLessonRun *run = g_new0 (KsLessonRun, 1);

  run->lesson = lesson;
  run->variant = variant;
  if (options != NULL)
    run->options = *options;
  else
    ks_lesson_options_init (&run->options);
  run->args = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_arg_free);
  run->checked_arg = -1;
  run->wave = 1;
  return run;
}

static gboolean
dim3_given (KsDim3 d)
{
  return d.x != 0 && d.y != 0 && d.z != 0;
}

/* The options' launch in place of the lesson's, where they give one. */
static void
apply_launch (KsLessonRun *run)
{
  if (dim3_given (run->options.grid))
    run->grid = run->options.grid;
  if (dim3_given (run->options.block))
    run->block = run->options.block;
}

void
ks_lesson_get_launch (const KsLesson *lesson, const KsLessonVariant *variant,
                      const KsLessonOptions *options, KsDim3 *grid, KsDim3 *block,
                      guint64 *dynamic_shared)
{
  KsLessonRun run = { 0 };
  KsLessonReport report = { 0 };
  KsLessonOptions defaults;

  g_return_if_fail (lesson != NULL && variant != NULL);
  if (options == NULL)
    {
      ks_lesson_options_init (&defaults);
      options = &defaults;
    }
  run.lesson = lesson;
  run.variant = variant;
  run.options = *options;
  run.report = &report;
  run.args = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_arg_free);
  report.notes = g_ptr_array_new_with_free_func (g_free);
  if (resolve_size (&run, NULL) && lesson->impl->setup (&run, NULL))
    {
      apply_launch (&run);
      *grid = run.grid;
      *block = run.block;
      *dynamic_shared = run.shared;
    }
  else
    {
      *grid = dim3 (0, 0, 0);
      *block = dim3 (0, 0, 0);
      *dynamic_shared = 0;
    }
  /* What the set-up made beside the arguments (12-04's frames). */
  if (run.lesson_data_free != NULL)
    run.lesson_data_free (run.lesson_data);
  g_ptr_array_unref (run.args);
  g_ptr_array_unref (report.notes);
}

/* What any CUDA device refuses; checked before either engine runs, so that
 * the CPU engine teaches the same limits. */
static gboolean
check_launch (const KsLessonRun *run, GError **error)
{
  guint64 threads = (guint64) run->block.x * run->block.y * run->block.z;
  guint64 total = threads * run->grid.x * run->grid.y * run->grid.z;

  if (threads == 0 || run->grid.x == 0 || run->grid.y == 0 || run->grid.z == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG, "the launch has no threads");
      return FALSE;
    }
  if (threads > 1024 || run->block.x > 1024 || run->block.y > 1024 || run->block.z > 64)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "a block of %u×%u×%u = %" G_GUINT64_FORMAT " threads cannot run: a block "
                   "holds at most 1024 threads (x and y up to 1024, z up to 64); use a grid of "
                   "several blocks", run->block.x, run->block.y, run->block.z, threads);
      return FALSE;
    }
  if (run->grid.y > 65535 || run->grid.z > 65535)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "a grid's y and z are at most 65535, not %u and %u", run->grid.y, run->grid.z);
      return FALSE;
    }
  if (total > KS_LESSON_MAX_THREADS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "%" G_GUINT64_FORMAT " threads: the CPU model runs at most %" G_GUINT64_FORMAT
                   " in a lesson (it runs them one by one)", total, KS_LESSON_MAX_THREADS);
      return FALSE;
    }
  if (run->shared > 48 * 1024)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "%" G_GUINT64_FORMAT " bytes of dynamic shared memory: at most 49152 without "
                   "opting in", run->shared);
      return FALSE;
    }
  return TRUE;
}

static KsLessonArray *
lesson_array_new (const char *name, const char *role, KsArray *array)
{
  KsLessonArray *la = g_new0 (KsLessonArray, 1);

  la->name = g_strdup (name);
  la->role = g_strdup (role);
  la->array = array;
  return la;
}

static void
lesson_array_free (KsLessonArray *la)
{
  g_free (la->name);
  g_free (la->role);
  g_clear_pointer (&la->array, ks_array_free);
  g_free (la->block_of);
  g_free (la->thread_of);
  g_free (la);
}

static void
lesson_image_free (KsLessonImage *li)
{
  g_free (li->name);
  g_clear_pointer (&li->image, ks_image_unref);
  g_free (li);
}

static void
lesson_step_free (KsLessonStep *s)
{
  g_free (s->title);
  g_clear_pointer (&s->values, ks_array_free);
  g_free (s);
}

/* The report's timings as a table: one list for creating, freeing and
 * writing them, in the order the JSON gives them. */
static const struct
{
  const char *name;
  gsize offset;
} timing_members[] = {
  { "upload", G_STRUCT_OFFSET (KsLessonTimings, upload) },
  { "kernel", G_STRUCT_OFFSET (KsLessonTimings, kernel) },
  { "download", G_STRUCT_OFFSET (KsLessonTimings, download) },
  { "cpu_kernel", G_STRUCT_OFFSET (KsLessonTimings, cpu_kernel) },
  { "reference", G_STRUCT_OFFSET (KsLessonTimings, reference) },
};

static KsTiming *
timing_member (KsLessonTimings *timings, guint k)
{
  return G_STRUCT_MEMBER_P (timings, timing_members[k].offset);
}

void
ks_lesson_report_free (KsLessonReport *report)
{
  if (report == NULL)
    return;
  g_free (report->engine_name);
  g_ptr_array_unref (report->inputs);
  g_ptr_array_unref (report->outputs);
  g_ptr_array_unref (report->images);
  g_ptr_array_unref (report->steps);
  g_ptr_array_unref (report->faults);
  g_ptr_array_unref (report->notes);
  g_free (report->printf_output);
  g_free (report->check.against);
  g_free (report->check.summary);
  g_free (report->check.output);
  g_clear_pointer (&report->check.expected_values, ks_array_free);
  g_free (report->book_check.description);
  g_free (report->book_check.wrong_description);
  g_free (report->atomics.how);
  g_free (report->cpu_difference);
  for (guint k = 0; k < G_N_ELEMENTS (timing_members); k++)
    ks_timing_clear (timing_member (&report->timings, k));
  g_free (report->timings.book_total_covers);
  g_free (report->timings.method);
  g_free (report);
}

const KsLessonArray *
ks_lesson_report_find (const KsLessonReport *report, const char *name)
{
  GPtrArray *lists[] = { report->outputs, report->inputs };

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; i < lists[l]->len; i++)
      {
        const KsLessonArray *la = g_ptr_array_index (lists[l], i);

        if (g_str_equal (la->name, name))
          return la;
      }
  return NULL;
}

static KsLessonReport *
report_new (const KsLesson *lesson, const KsLessonVariant *variant)
{
  KsLessonReport *r = g_new0 (KsLessonReport, 1);

  r->lesson = lesson;
  r->variant = variant;
  r->inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_array_free);
  r->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_array_free);
  r->images = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_image_free);
  r->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_step_free);
  r->faults = g_ptr_array_new_with_free_func (g_free);
  r->notes = g_ptr_array_new_with_free_func (g_free);
  r->check.first_difference = G_MAXSIZE;
  r->timings.compile_ms = NAN;
  r->timings.book_total_ms = NAN;
  for (guint k = 0; k < G_N_ELEMENTS (timing_members); k++)
    ks_timing_begin (timing_member (&r->timings, k), 0);
  r->timings.cpu_kernel.median_ms = NAN;
  r->timings.reference.median_ms = NAN;
  return r;
}

static GPtrArray *
copy_arrays (const KsLessonRun *run)
{
  GPtrArray *arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);

  for (guint i = 0; i < run->args->len; i++)
    {
      const KsLessonArg *a = g_ptr_array_index (run->args, i);

      g_ptr_array_add (arrays, a->is_array ? ks_array_copy (a->array) : NULL);
    }
  return arrays;
}

static gboolean
cancelled (const KsLessonRun *run, GError **error)
{
  return g_cancellable_set_error_if_cancelled (run->options.cancellable, error);
}

gboolean
_ks_lesson_cancelled (const KsLessonRun *run, GError **error)
{
  return cancelled (run, error);
}

/* The CPU engine under the timing protocol: the first run is the book's
 * single span (allocation and copies into the model's memory, the kernel,
 * the copies back), then `repeats` runs with each stage timed apart. */
static gboolean
time_cpu (KsLessonRun *run, KsLessonTimings *t, gboolean engine_is_cpu, GError **error)
{
  guint repeats = MAX (run->options.repeats, 1);
  KsTiming upload = { 0 }, kernel = { 0 }, download = { 0 };
  KsTiming *stages[] = { &upload, &kernel, &download };

  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    ks_timing_begin (stages[k], repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      double t0, t1, t2, t3;
      g_autoptr (GPtrArray) arrays = NULL;
      g_autoptr (GPtrArray) back = NULL;

      if (cancelled (run, error))
        goto fail;
      t0 = now_ms ();
      arrays = copy_arrays (run);
      back = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
      t1 = now_ms ();
      if (!_ks_lesson_sim_run_quiet (run, arrays, error))
        goto fail;
      t2 = now_ms ();
      for (guint i = 0; i < arrays->len; i++)
        {
          const KsLessonArg *a = g_ptr_array_index (run->args, i);

          if (a->is_array && a->direction != KS_ARRAY_IN)
            g_ptr_array_add (back, ks_array_copy (g_ptr_array_index (arrays, i)));
        }
      t3 = now_ms ();
      if (r == 0 && engine_is_cpu)
        t->book_total_ms = t3 - t0;
      ks_timing_add (&upload, t1 - t0, r == 0);
      ks_timing_add (&kernel, t2 - t1, r == 0);
      ks_timing_add (&download, t3 - t2, r == 0);
    }
  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    ks_timing_compute (stages[k]);
  if (engine_is_cpu)
    {
      ks_timing_clear (&t->upload);
      ks_timing_clear (&t->download);
      ks_timing_clear (&t->kernel);
      t->upload = upload;
      t->download = download;
      t->kernel = kernel;
      ks_timing_clear (&t->cpu_kernel);
      t->cpu_kernel = kernel;
      t->cpu_kernel.samples_ms = g_memdup2 (kernel.samples_ms, sizeof (double) * kernel.n);
    }
  else
    {
      ks_timing_clear (&upload);
      ks_timing_clear (&download);
      ks_timing_clear (&t->cpu_kernel);
      t->cpu_kernel = kernel;
    }
  return TRUE;

fail:
  for (guint k = 0; k < G_N_ELEMENTS (stages); k++)
    ks_timing_clear (stages[k]);
  return FALSE;
}

/* The reference, timed: what the last run computes is the check's. */
static gboolean
time_reference (KsLessonRun *run, GError **error)
{
  KsLessonCheck *check = &run->report->check;
  KsTiming *timing = &run->report->timings.reference;
  guint repeats = MAX (run->options.repeats, 1);

  if (run->lesson->impl->reference == NULL)
    return TRUE;
  ks_timing_clear (timing);
  ks_timing_begin (timing, repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      double t0;

      if (cancelled (run, error))
        return FALSE;
      g_clear_pointer (&check->expected_values, ks_array_free);
      t0 = now_ms ();
      check->expected_values = run->lesson->impl->reference (run);
      ks_timing_add (timing, now_ms () - t0, r == 0);
    }
  ks_timing_compute (timing);
  return TRUE;
}

/* ---- the CUDA path ---------------------------------------------------------- */

/* Whether the book's binding of an output allocates it without writing it:
 * drv.Out, mem_alloc, cudaMalloc and gpuarray.empty leave whatever the
 * allocator returns. */
static gboolean
binding_leaves_garbage (const char *book_binding)
{
  static const char *const uncleared[] = { "drv.Out", "mem_alloc", "cudaMalloc", "gpuarray.empty" };

  for (guint i = 0; book_binding != NULL && i < G_N_ELEMENTS (uncleared); i++)
    if (g_str_has_prefix (book_binding, uncleared[i]))
      return TRUE;
  return FALSE;
}

/* The elements an argument has on the device: under the sanitizer what the
 * book allocates (12-02's 256 bins, without the guard slot), else all. */
static gsize
device_length (const KsLessonRun *run, const KsLessonArg *a)
{
  if (run->sanitize && a->book_length != 0 && a->book_length < a->array->length)
    return a->book_length;
  return a->array->length;
}

static KsBinding *
binding_for (const KsLessonRun *run, const KsLessonArg *a)
{
  KsBinding *b = g_new0 (KsBinding, 1);

  b->name = g_strdup (a->name);
  b->is_array = a->is_array;
  if (a->is_array)
    {
      b->type = a->array->type;
      b->length = device_length (run, a);
      /* Outputs go in with their starting contents (zeros, or the poison of
       * a book variant), so both engines start from the same bytes. */
      b->direction = a->direction == KS_ARRAY_IN ? KS_ARRAY_IN : KS_ARRAY_INOUT;
      b->direction_given = TRUE;
      b->init = KS_ARRAY_INIT_ZEROS;
    }
  else
    b->value = g_strdup_printf ("%.17g", a->scalar);
  return b;
}

/* The index of the lesson's argument of that name (names are unique in a
 * lesson); -1 when none. */
static int
arg_named (const KsLessonRun *run, const char *name)
{
  for (guint k = 0; k < run->args->len; k++)
    if (g_str_equal (((const KsLessonArg *) g_ptr_array_index (run->args, k))->name, name))
      return (int) k;
  return -1;
}

/* A launch of the compiled kernel on the lesson's arguments, with their data
 * (data: a KsArray per argument, NULL for scalars, or NULL for the
 * arguments' own). out_names gets the out and inout arrays' names in the
 * order the run returns them. Under the sanitizer, an output the book never
 * clears reaches the kernel uncleared. */
static KsWorkerLaunch *
cuda_launch_new (const KsLessonRun *run, const GPtrArray *data, GPtrArray *out_names,
                 GError **error)
{
  g_autoptr (GPtrArray) bindings =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  const GPtrArray *args = ks_kernel_source_get_args (run->source);
  g_autoptr (GArray) uncleared = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *ka = g_ptr_array_index (args, i);
      int k = arg_named (run, ka->name);
      const KsLessonArg *la = k >= 0 ? g_ptr_array_index (run->args, k) : NULL;

      if (la == NULL || la->is_array != ka->pointer)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "the kernel's argument “%s” is not one of the lesson's data: an edited "
                       "kernel keeps the lesson's argument names and kinds", ka->name);
          return NULL;
        }
      g_ptr_array_add (bindings, binding_for (run, la));
      if (la->is_array)
        {
          const KsArray *from = data != NULL ? g_ptr_array_index (data, k) : la->array;
          gsize n = device_length (run, la);
          KsArray *copy;

          if (n == from->length)
            copy = ks_array_copy (from);
          else
            {
              copy = new_array (from->type, n, 0, 0);
              memcpy (copy->data, from->data, ks_array_get_bytes (copy));
            }
          g_ptr_array_add (arrays, copy);
          if (run->sanitize && la->direction == KS_ARRAY_OUT
              && binding_leaves_garbage (la->book_binding))
            g_array_append_val (uncleared, i);
        }
    }
  launch = ks_worker_launch_new (run->compiled, 0, run->grid, run->block, run->shared);
  if (!ks_worker_launch_bind (launch, args, bindings, arrays, out_names, error))
    return NULL;
  for (guint i = 0; i < uncleared->len; i++)
    _ks_worker_launch_set_uncleared (launch, g_array_index (uncleared, guint, i));
  return g_steal_pointer (&launch);
}

/* Bytes the kernel's arrays carry to the device (in, inout) and back (out,
 * inout): those of the arguments the source declares. */
static void
count_bytes (const KsLessonRun *run, gsize *bytes_in, gsize *bytes_out)
{
  const GPtrArray *args = ks_kernel_source_get_args (run->source);

  *bytes_in = *bytes_out = 0;
  for (guint i = 0; i < args->len; i++)
    {
      int k = arg_named (run, ((const KsKernelArg *) g_ptr_array_index (args, i))->name);
      const KsLessonArg *la = k >= 0 ? g_ptr_array_index (run->args, k) : NULL;

      if (la == NULL || !la->is_array)
        continue;
      *bytes_in += ks_array_get_bytes (la->array);
      if (la->direction != KS_ARRAY_IN)
        *bytes_out += ks_array_get_bytes (la->array);
    }
}

/* Host ↔ device copies of `bytes`, timed with CUDA events on the
 * application's engine: repeats runs after a warm-up. */
static gboolean
time_copies (const KsLessonRun *run, KsEngine *engine, gsize bytes, KsTiming *up,
             KsTiming *down, GError **error)
{
  guint repeats = MAX (run->options.repeats, 1);
  guint width = (guint) MIN (bytes, (gsize) 4096);
  guint height = (guint) ((bytes + width - 1) / width);
  g_autoptr (KsImage) image = NULL;

  if (bytes == 0)
    return TRUE;
  image = ks_image_new (KS_FORMAT_GRAY8, width, height, error);
  if (image == NULL)
    return FALSE;
  ks_timing_begin (up, repeats);
  ks_timing_begin (down, repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      double ms_up = 0, ms_down = 0;
      g_autoptr (KsBuffer) buffer = NULL;
      g_autoptr (KsImage) back = NULL;

      if (cancelled (run, error))
        return FALSE;
      buffer = ks_engine_upload (engine, image, &ms_up, error);
      if (buffer == NULL)
        return FALSE;
      back = ks_engine_download (engine, buffer, &ms_down, error);
      if (back == NULL)
        return FALSE;
      ks_timing_add (up, ms_up, r == 0);
      ks_timing_add (down, ms_down, r == 0);
    }
  ks_timing_compute (up);
  ks_timing_compute (down);
  return TRUE;
}

/* Compiles the run's kernel in the worker (run->source and run->compiled).
 * A source that does not compile: KS_ERROR_COMPILE, the diagnostics in the
 * report's notes. */
static gboolean
cuda_compile (KsLessonRun *run, KsWorker *worker, const char *text, GError **error)
{
  KsLaunchConfig launch;

  run->source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, run->variant->source_name, text);
  ks_kernel_source_get_default_launch (run->source, &launch);
  launch.block = run->block;
  launch.grid = run->grid;
  launch.auto_grid = FALSE;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  launch.pixels_per_thread = 1;
  if (!ks_kernel_source_has_errors (run->source))
    {
      run->compiled = ks_worker_compile (worker, run->source, &launch, FALSE,
                                         run->options.cancellable, error);
      if (run->compiled == NULL)
        return FALSE;
    }
  if (run->compiled == NULL || !run->compiled->success)
    {
      const GPtrArray *diags = run->compiled != NULL
                               ? run->compiled->diagnostics
                               : ks_kernel_source_get_diagnostics (run->source);

      for (guint i = 0; diags != NULL && i < diags->len; i++)
        g_ptr_array_add (run->report->notes, ks_diagnostic_format (g_ptr_array_index (diags, i)));
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE, "the kernel %s does not compile",
                   run->variant->source_name);
      return FALSE;
    }
  return TRUE;
}

gboolean
_ks_lesson_cuda_run_once (KsLessonRun *run, KsWorker *worker, const GPtrArray *data,
                          GPtrArray *results, KsWorkerRunResult *result, GError **error)
{
  g_autoptr (GPtrArray) out_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (KsWorkerLaunch) launch = NULL;

  g_assert (run->compiled != NULL);
  launch = cuda_launch_new (run, data, out_names, error);
  if (launch == NULL)
    return FALSE;
  ks_worker_launch_set_repeats (launch, 1);
  if (cancelled (run, error)
      || !ks_worker_run (worker, launch, run->options.cancellable, result, error))
    return FALSE;
  /* The outputs by argument, with the shapes the lesson gave them. */
  g_ptr_array_set_size (results, 0);
  for (guint i = 0; i < run->args->len; i++)
    g_ptr_array_add (results, NULL);
  for (guint i = 0; i < result->arrays->len && i < out_names->len; i++)
    {
      int k = arg_named (run, g_ptr_array_index (out_names, i));
      const KsLessonArg *la;
      KsArray *a;

      if (k < 0)
        continue;
      la = g_ptr_array_index (run->args, k);
      a = ks_array_copy (g_ptr_array_index (result->arrays, i));
      if (a->length == la->array->length)
        {
          a->rows = la->array->rows;
          a->cols = la->array->cols;
        }
      g_ptr_array_index (results, k) = a;
    }
  return TRUE;
}

static gboolean
run_cuda (KsLessonRun *run, KsEngine *engine, KsWorker *worker, const char *text,
          GError **error)
{
  KsLessonReport *report = run->report;
  g_autoptr (GPtrArray) cuda_results =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  g_autoptr (GPtrArray) out_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (KsWorkerLaunch) timed = NULL;
  KsWorkerRunResult first_run = { 0 }, timed_run = { 0 };
  gsize bytes_in = 0, bytes_out = 0;
  guint repeats = MAX (run->options.repeats, 1);
  double t0;
  gboolean ok = FALSE;

  t0 = now_ms ();
  if (!cuda_compile (run, worker, text, error))
    return FALSE;
  report->timings.compile_ms = run->compiled->compile_ms;
  report->timings.compile_cached = run->compiled->cached;
  count_bytes (run, &bytes_in, &bytes_out);

  /* First use, as the book times it: compiled above, then one launch that
   * allocates, copies in, runs and copies out. */
  if (!_ks_lesson_cuda_run_once (run, worker, NULL, cuda_results, &first_run, error))
    goto out;
  report->timings.book_total_ms = now_ms () - t0;
  report->timings.book_total_covers =
    g_strdup_printf ("the host clock from compiling (%s) through the worker's first run: "
                     "allocation, %" G_GSIZE_FORMAT " bytes up, the kernel, %" G_GSIZE_FORMAT
                     " bytes down, the wait", run->compiled->cached
                     ? "found in the compile cache" : "NVRTC", bytes_in, bytes_out);
  g_free (report->printf_output);
  report->printf_output = g_strdup (first_run.printf_output != NULL ? first_run.printf_output
                                                                    : "");
  if (run->sanitize)
    {
      /* One run is what the tool checks. */
      g_clear_pointer (&run->results, g_ptr_array_unref);
      run->results = g_steal_pointer (&cuda_results);
      ok = TRUE;
      goto out;
    }

  /* The kernel alone: the worker's CUDA events, repeats after its warm-up. */
  timed = cuda_launch_new (run, NULL, out_names, error);
  if (timed == NULL)
    goto out;
  ks_worker_launch_set_repeats (timed, repeats);
  if (cancelled (run, error)
      || !ks_worker_run (worker, timed, run->options.cancellable, &timed_run, error))
    goto out;
  ks_timing_clear (&report->timings.kernel);
  ks_timing_begin (&report->timings.kernel, 0);
  report->timings.kernel.n = repeats;
  report->timings.kernel.median_ms = timed_run.kernel_ms;
  report->timings.kernel.min_ms = timed_run.kernel_min_ms;
  report->timings.kernel.max_ms = timed_run.kernel_max_ms;
  report->timings.kernel.mad_ms = NAN;
  report->timings.kernel.warmup_ms = first_run.kernel_ms;
  ks_timing_clear (&report->timings.upload);
  ks_timing_clear (&report->timings.download);
  if (!time_copies (run, engine, bytes_in, &report->timings.upload, &report->timings.download,
                    error))
    goto out;
  if (bytes_out != bytes_in && bytes_out > 0)
    {
      KsTiming ignored = { 0 };
      gboolean timed_down;

      ks_timing_clear (&report->timings.download);
      timed_down = time_copies (run, engine, bytes_out, &ignored, &report->timings.download,
                                error);
      ks_timing_clear (&ignored);
      if (!timed_down)
        goto out;
    }

  /* The first run's outputs, compared with the CPU twin's, then kept. */
  report->matches_cpu = TRUE;
  for (guint k = 0; k < run->args->len; k++)
    {
      const KsArray *cpu = run->results != NULL ? g_ptr_array_index (run->results, k) : NULL;
      const KsArray *gpu = g_ptr_array_index (cuda_results, k);
      const KsLessonArg *la = g_ptr_array_index (run->args, k);
      gsize at = 0;

      if (!la->is_array || la->direction == KS_ARRAY_IN || gpu == NULL)
        continue;
      if (cpu != NULL && !ks_array_equal (cpu, gpu, run->abs_tol, run->rel_tol, &at))
        {
          report->matches_cpu = FALSE;
          if (report->cpu_difference == NULL)
            report->cpu_difference =
              g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]: CUDA %g, CPU engine %g", la->name, at,
                               ks_array_get_double (gpu, at), ks_array_get_double (cpu, at));
        }
    }
  if (run->results == NULL)
    report->matches_cpu = FALSE;
  g_clear_pointer (&run->results, g_ptr_array_unref);
  run->results = g_steal_pointer (&cuda_results);
  report->timings.method =
    g_strdup_printf ("compile: NVRTC in the worker (%s); kernel: CUDA events in the worker, the "
                     "median of %u runs after a warm-up; upload and download: CUDA events on "
                     "the application's engine for the same bytes (pageable host memory, "
                     "rounded up to whole 4096-byte rows); cpu_kernel: the CPU model on the "
                     "same data; reference: the plain C loop", run->compiled->cached ? "cached"
                     : "compiled now", repeats);
  ok = TRUE;

out:
  ks_worker_run_result_clear (&first_run);
  ks_worker_run_result_clear (&timed_run);
  return ok;
}

/* ---- running ----------------------------------------------------------------- */

static void
collect_arrays (KsLessonRun *run)
{
  KsLessonReport *report = run->report;

  for (guint i = 0; i < run->args->len; i++)
    {
      const KsLessonArg *a = g_ptr_array_index (run->args, i);
      KsLessonArray *la;

      if (!a->is_array)
        continue;
      if (a->direction != KS_ARRAY_OUT)
        g_ptr_array_add (report->inputs, lesson_array_new (a->name, a->direction == KS_ARRAY_IN
                                                           ? "input" : "inout",
                                                           ks_array_copy (a->array)));
      if (a->direction == KS_ARRAY_IN || g_ptr_array_index (run->results, i) == NULL)
        continue;
      la = lesson_array_new (a->name, a->direction == KS_ARRAY_OUT ? "output" : "inout",
                             ks_array_copy (g_ptr_array_index (run->results, i)));
      if (run->block_of != NULL && run->block_of[i] != NULL)
        {
          la->block_of = g_steal_pointer (&run->block_of[i]);
          la->thread_of = g_steal_pointer (&run->thread_of[i]);
        }
      g_ptr_array_add (report->outputs, la);
    }
}

/* What a lesson without a kernel (11-02) refuses: an edit of its host code,
 * another launch. */
static gboolean
check_host_only (const KsLessonRun *run, GError **error)
{
  if (run->report->edited)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson %s runs no kernel: its text is the host's code, shown for reading, "
                   "and does not run (Reset restores it)", run->lesson->id);
      return FALSE;
    }
  if (dim3_given (run->options.grid) || dim3_given (run->options.block))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson %s launches no kernel: it takes no grid or block", run->lesson->id);
      return FALSE;
    }
  return TRUE;
}

/* Everything before a run: the report, the source, the options, the
 * lesson's data and launch. *pristine gets the lesson's source. */
static gboolean
prepare (KsLessonRun *run, KsEngine *engine, char **pristine, GError **error)
{
  const KsLesson *lesson = run->lesson;
  gboolean cuda = engine != NULL && ks_engine_is_cuda (engine);
  KsLessonReport *report;

  *pristine = ks_lesson_get_source (lesson, run->variant, error);
  if (*pristine == NULL)
    return FALSE;
  report = run->report = report_new (lesson, run->variant);
  report->cuda = cuda;
  report->edited = run->options.source != NULL && !g_str_equal (run->options.source, *pristine);
  report->engine_name = g_strdup (cuda ? ks_device_get_name (ks_engine_get_device (engine))
                                       : "CPU engine");
  if (lesson->host_only)
    return check_host_only (run, error) && resolve_size (run, error)
           && lesson->impl->setup (run, error);
  if (report->edited && !cuda)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "running an edited kernel needs an NVIDIA GPU with CUDA: the CPU engine runs "
                   "only the lessons' own kernels, whose CPU twins are written in C (Reset "
                   "restores the lesson's kernel)");
      return FALSE;
    }
  if (!resolve_size (run, error) || !lesson->impl->setup (run, error))
    return FALSE;
  apply_launch (run);
  if (!check_launch (run, error))
    return FALSE;
  report->grid = run->grid;
  report->block = run->block;
  report->dynamic_shared = run->shared;
  report->threads = (guint64) run->grid.x * run->grid.y * run->grid.z
                    * run->block.x * run->block.y * run->block.z;
  return TRUE;
}

gboolean
ks_lesson_run (const KsLesson *lesson, const KsLessonVariant *variant, KsEngine *engine,
               KsWorker *worker, const KsLessonOptions *options, KsLessonReport **report_out,
               GError **error)
{
  KsLessonRun *run;
  KsLessonReport *report;
  g_autofree char *pristine = NULL;
  GError *local = NULL;
  gboolean cuda = engine != NULL && ks_engine_is_cuda (engine);
  gboolean ok = FALSE;

  g_return_val_if_fail (lesson != NULL && variant != NULL, FALSE);
  g_return_val_if_fail (report_out != NULL && *report_out == NULL, FALSE);
  g_return_val_if_fail (!cuda || worker != NULL, FALSE);

  if (options != NULL && g_cancellable_set_error_if_cancelled (options->cancellable, error))
    return FALSE;
  run = run_new (lesson, variant, options);
  if (!prepare (run, engine, &pristine, &local))
    goto out;
  report = run->report;
  if (lesson->host_only)
    {
      ok = lesson->impl->host (run, engine, &local);
      goto out;
    }

  /* Each stage looks at the cancellable before each of its repeats. */
  if (!time_reference (run, &local))
    goto out;
  if ((!cuda || !run->options.skip_cpu_twin)
      && (!_ks_lesson_sim_run (run, &local) || !time_cpu (run, &report->timings, !cuda, &local)))
    goto out;
  if (!cuda)
    {
      report->timings.method =
        g_strdup_printf ("CPU engine, the monotonic clock: upload and download are the copies "
                         "into and out of the model's memory, kernel the CPU model, each the "
                         "median of %u runs after a warm-up; reference: the plain C loop",
                         MAX (run->options.repeats, 1));
      report->timings.book_total_covers =
        g_strdup ("the first run as one span: allocation and copies into the model's memory, "
                  "the model, the copies back (nothing to compile on the CPU engine)");
    }
  if (cuda && !run_cuda (run, engine, worker, report->edited ? run->options.source : pristine,
                         &local))
    goto out;
  if (cuda && run->options.skip_cpu_twin)
    {
      /* Owners and faults come from the CPU model: without it there are none. */
      report->matches_cpu = FALSE;
    }
  if (cancelled (run, &local))
    goto out;

  collect_arrays (run);
  if (lesson->impl->more != NULL && !lesson->impl->more (run, engine, worker, &local))
    goto out;
  if (run->checked_arg >= 0 && reference (run) != NULL)
    {
      const KsLessonArg *checked = g_ptr_array_index (run->args, run->checked_arg);

      compare_check (run, checked->name, result (run, (guint) run->checked_arg),
                     g_str_equal (lesson->id, "11-06") ? "a C loop adding the same arrays"
                                                      : "an independent C reference");
    }
  if (lesson->impl->finish != NULL)
    lesson->impl->finish (run);
  if (report->atomics.counted && cuda)
    {
      char *how = g_strconcat (report->atomics.how != NULL ? report->atomics.how : "",
                               "; on CUDA the same code path runs, so the counts are computed, "
                               "not measured", NULL);

      g_free (report->atomics.how);
      report->atomics.how = how;
    }
  if (cuda && !variant->cuda_deterministic)
    note (run, "On the GPU this variant's result depends on timing, so it may differ from the "
          "CPU model's from run to run.");
  ok = TRUE;

out:
  /* A kernel that does not compile still has its report: the diagnostics. */
  if (run->report != NULL && (ok || g_error_matches (local, KS_ERROR, KS_ERROR_COMPILE)))
    *report_out = run->report;
  else
    g_clear_pointer (&run->report, ks_lesson_report_free);
  run_free (run);
  if (local != NULL)
    g_propagate_error (error, local);
  return ok;
}

gboolean
_ks_lesson_run_for_sanitizer (const KsLesson *lesson, const KsLessonVariant *variant,
                              KsEngine *engine, KsWorker *worker,
                              const KsLessonOptions *options, GError **error)
{
  KsLessonRun *run = run_new (lesson, variant, options);
  g_autofree char *pristine = NULL;
  gboolean ok;

  g_assert (engine != NULL && ks_engine_is_cuda (engine) && worker != NULL);
  run->sanitize = TRUE;
  run->options.repeats = 1;
  ok = prepare (run, engine, &pristine, error)
       && run_cuda (run, engine, worker, run->report->edited ? run->options.source : pristine,
                    error);
  g_clear_pointer (&run->report, ks_lesson_report_free);
  run_free (run);
  return ok;
}

/* ---- JSON ------------------------------------------------------------------- */

/* Members of the object being built, name and value in one call. */
static void
member_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  ks_json_add_string (b, value);
}

static void
member_number (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  ks_json_add_number (b, value);
}

static void
member_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
member_bool (JsonBuilder *b, const char *name, gboolean value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

static void
member_ints (JsonBuilder *b, const char *name, const gint32 *values, gsize n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (gsize i = 0; i < n; i++)
    json_builder_add_int_value (b, values[i]);
  json_builder_end_array (b);
}

static gsize
values_shown (const KsArray *a, gsize max_values)
{
  return max_values != 0 ? MIN (a->length, max_values) : a->length;
}

static void
json_array_values (JsonBuilder *b, const KsArray *a, gsize max_values)
{
  gsize n = values_shown (a, max_values);

  member_string (b, "type", ks_elem_type_short_name (a->type));
  member_int (b, "length", (gint64) a->length);
  json_builder_set_member_name (b, "shape");
  json_builder_begin_array (b);
  json_builder_add_int_value (b, (gint64) a->rows);
  if (a->cols != 0)
    json_builder_add_int_value (b, (gint64) a->cols);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "values");
  json_builder_begin_array (b);
  for (gsize i = 0; i < n; i++)
    ks_json_add_number (b, ks_array_get_double (a, i));
  json_builder_end_array (b);
}

static void
json_lesson_arrays (JsonBuilder *b, const char *name, const GPtrArray *list, gsize max_values)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (list, i);
      gsize n = values_shown (la->array, max_values);

      json_builder_begin_object (b);
      member_string (b, "name", la->name);
      member_string (b, "role", la->role);
      json_array_values (b, la->array, max_values);
      if (la->block_of != NULL)
        {
          member_ints (b, "block_of", la->block_of, n);
          member_ints (b, "thread_of", la->thread_of, n);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
json_strings (JsonBuilder *b, const char *name, const GPtrArray *list)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    ks_json_add_string (b, g_ptr_array_index (list, i));
  json_builder_end_array (b);
}

JsonNode *
ks_lesson_registry_to_json (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (lessons); i++)
    {
      const KsLesson *l = &lessons[i];

      json_builder_begin_object (b);
      member_string (b, "id", l->id);
      member_string (b, "slug", l->slug);
      member_string (b, "title", l->title);
      member_string (b, "explanation", l->explanation);
      member_bool (b, "host_only", l->host_only);
      if (l->live_op != NULL)
        {
          json_builder_set_member_name (b, "live");
          json_builder_begin_object (b);
          member_string (b, "op", l->live_op);
          ks_json_add_dim3 (b, "block", &l->live_block);
          json_builder_end_object (b);
        }
      json_builder_set_member_name (b, "variants");
      json_builder_begin_array (b);
      for (guint k = 0; k < l->n_variants; k++)
        {
          const KsLessonVariant *v = &l->variants[k];

          json_builder_begin_object (b);
          member_string (b, "id", v->id);
          member_bool (b, "book", v->book);
          member_string (b, "defects", v->defects);
          member_string (b, "description", v->description);
          member_string (b, "sanitizer_tool", ks_lesson_get_sanitizer_tool (l, v));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

static void
json_check (JsonBuilder *b, const KsLessonCheck *c, gsize max_values)
{
  json_builder_set_member_name (b, "check");
  json_builder_begin_object (b);
  member_bool (b, "passed", c->passed);
  member_string (b, "against", c->against);
  member_int (b, "compared", (gint64) c->compared);
  member_int (b, "differing", (gint64) c->differing);
  json_builder_set_member_name (b, "first_difference");
  if (c->first_difference == G_MAXSIZE)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, (gint64) c->first_difference);
  member_number (b, "expected", c->expected);
  member_number (b, "actual", c->actual);
  member_string (b, "summary", c->summary);
  member_string (b, "output", c->output);
  json_builder_set_member_name (b, "expected_values");
  if (c->expected_values != NULL)
    {
      json_builder_begin_object (b);
      json_array_values (b, c->expected_values, max_values);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

static void
json_timings (JsonBuilder *b, const KsLessonTimings *t)
{
  json_builder_set_member_name (b, "timings");
  json_builder_begin_object (b);
  member_number (b, "compile_ms", t->compile_ms);
  member_bool (b, "compile_cached", t->compile_cached);
  for (guint k = 0; k < G_N_ELEMENTS (timing_members); k++)
    {
      json_builder_set_member_name (b, timing_members[k].name);
      json_builder_begin_object (b);
      ks_json_add_timing (b, timing_member ((KsLessonTimings *) t, k), "runs");
      json_builder_end_object (b);
    }
  member_number (b, "book_total_ms", t->book_total_ms);
  member_string (b, "book_total_covers", t->book_total_covers);
  member_string (b, "method", t->method);
  json_builder_end_object (b);
}

JsonNode *
ks_lesson_report_to_json (const KsLessonReport *r, gsize max_values)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (r != NULL, NULL);
  json_builder_begin_object (b);
  member_string (b, "lesson", r->lesson->id);
  member_string (b, "slug", r->lesson->slug);
  member_string (b, "title", r->lesson->title);
  member_string (b, "variant", r->variant->id);
  member_bool (b, "book", r->variant->book);
  member_string (b, "defects", r->variant->defects);
  member_string (b, "sanitizer", r->variant->sanitizer);
  member_string (b, "engine", r->cuda ? "cuda" : "cpu");
  member_string (b, "device", r->engine_name);
  member_bool (b, "edited", r->edited);
  json_builder_set_member_name (b, "launch");
  json_builder_begin_object (b);
  ks_json_add_dim3 (b, "grid", &r->grid);
  ks_json_add_dim3 (b, "block", &r->block);
  member_int (b, "dynamic_shared_bytes", (gint64) r->dynamic_shared);
  member_int (b, "threads", (gint64) r->threads);
  json_builder_end_object (b);
  json_lesson_arrays (b, "inputs", r->inputs, max_values);
  json_lesson_arrays (b, "outputs", r->outputs, max_values);
  member_string (b, "printf", r->printf_output != NULL ? r->printf_output : "");
  json_check (b, &r->check, max_values);

  if (r->book_check.present)
    {
      const KsLessonBookCheck *bc = &r->book_check;

      json_builder_set_member_name (b, "book_check");
      json_builder_begin_object (b);
      member_string (b, "description", bc->description);
      member_bool (b, "says_correct_on_result", bc->says_correct_on_result);
      member_string (b, "wrong_result", bc->wrong_description);
      member_bool (b, "says_correct_on_wrong", bc->says_correct_on_wrong);
      member_bool (b, "real_check_catches_wrong", bc->real_check_catches_wrong);
      json_builder_end_object (b);
    }
  if (r->atomics.counted)
    {
      json_builder_set_member_name (b, "atomics");
      json_builder_begin_object (b);
      member_int (b, "global", (gint64) r->atomics.global);
      member_int (b, "shared", (gint64) r->atomics.shared);
      member_string (b, "how", r->atomics.how);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->steps->len; i++)
    {
      const KsLessonStep *s = g_ptr_array_index (r->steps, i);

      json_builder_begin_object (b);
      member_string (b, "title", s->title);
      json_array_values (b, s->values, 0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  member_int (b, "out_of_range_accesses", (gint64) r->n_faults);
  json_strings (b, "faults", r->faults);
  if (r->cuda)
    {
      member_bool (b, "matches_cpu", r->matches_cpu);
      if (r->cpu_difference != NULL)
        member_string (b, "cpu_difference", r->cpu_difference);
    }
  json_timings (b, &r->timings);
  json_strings (b, "notes", r->notes);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
