/* ks-lesson-webcam.c: lesson 12-04, 12-03's gray kernel on a camera's frames.
 *
 * The engine has no camera (GStreamer lives in the window), so the frames
 * are made from the seed: a 320×240 view panning over the bundled colour
 * photo, wrapped at its edges, as a 4:3 camera would deliver it. Each is
 * resized to 256×256 as the book's cv2.resize (…, INTER_CUBIC) does, which
 * stretches 4:3 to a square, and then runs the variant's kernel with 12-03's
 * launch. The first frame goes through the lessons' whole protocol (the CPU
 * model, the worker, the timings); every frame then runs once more per way
 * of handling the buffers: the book's, which allocates and copies the four
 * buffers anew (drv.In and drv.Out), and with the buffers allocated once. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-error.h"
#include "ks-lesson-private.h"

#define CAMERA_WIDTH 320
#define CAMERA_HEIGHT 240
#define SIDE 256
#define PIXELS (SIDE * SIDE)
/* The pan between two frames, in photo pixels. */
#define STEP_X 5
#define STEP_Y 3

typedef struct
{
  guint n;                   /* frames */
  guint x0, y0;              /* where the first frame looks, from the seed */
  KsImage *photo;
  KsImage *camera0;          /* the first frame as the camera gives it */
  KsImage *frame0;           /* … and resized */
  KsArray *results;          /* the checked output, frame after frame */
  KsArray *reference;        /* the reference, the same way */
  KsArray *last;             /* the last frame's result */
  KsArray *book_ms;          /* per frame, the book's way */
  KsArray *once_ms;          /* per frame, the buffers allocated once */
  gsize darker;              /* the book: pixels one level below the rounded gray */
  gsize red_changed;         /* the book: pixels of the r plane the result overwrote */
  gsize cuda_differing;      /* CUDA: frames whose result is not the CPU engine's */
  char *cuda_difference;
} Webcam;

static void
webcam_free (gpointer data)
{
  Webcam *w = data;

  g_clear_pointer (&w->photo, ks_image_unref);
  g_clear_pointer (&w->camera0, ks_image_unref);
  g_clear_pointer (&w->frame0, ks_image_unref);
  g_clear_pointer (&w->results, ks_array_free);
  g_clear_pointer (&w->reference, ks_array_free);
  g_clear_pointer (&w->last, ks_array_free);
  g_clear_pointer (&w->book_ms, ks_array_free);
  g_clear_pointer (&w->once_ms, ks_array_free);
  g_free (w->cuda_difference);
  g_free (w);
}

/* ---- the frames ----------------------------------------------------------- */

/* Frame f as the camera gives it: the photo seen from (x0 + 5f, y0 + 3f). */
static KsImage *
camera_frame (const Webcam *w, guint f)
{
  KsImage *frame = ks_image_new (KS_FORMAT_RGBA8, CAMERA_WIDTH, CAMERA_HEIGHT, NULL);
  guint dx = (w->x0 + STEP_X * f) % w->photo->width;
  guint dy = (w->y0 + STEP_Y * f) % w->photo->height;

  g_assert (frame != NULL);
  for (guint y = 0; y < CAMERA_HEIGHT; y++)
    for (guint x = 0; x < CAMERA_WIDTH; x++)
      ks_image_set_rgba (frame, x, y, ks_image_get_rgba (w->photo, (x + dx) % w->photo->width,
                                                         (y + dy) % w->photo->height));
  return frame;
}

/* OpenCV's INTER_CUBIC kernel (a = -0.75) at offset t of the tap after the
 * sample point's floor. */
static void
cubic_weights (double t, double weights[4])
{
  const double a = -0.75;

  weights[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  weights[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  weights[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
  weights[3] = 1 - weights[0] - weights[1] - weights[2];
}

/* Where output pixel i samples the input, pixel centres aligned as OpenCV
 * does: the first of the four taps and their weights. */
static void
cubic_axis (guint i, guint in, guint out, int *first, double weights[4])
{
  double s = (i + 0.5) * in / out - 0.5;
  double f = floor (s);

  *first = (int) f - 1;
  cubic_weights (s - f, weights);
}

/* A bicubic resize with OpenCV's INTER_CUBIC kernel, edges replicated,
 * computed in double and rounded: OpenCV's own result comes from
 * fixed-point arithmetic and may differ from this by a level here and there. */
static KsImage *
resize_cubic (const KsImage *in, guint width, guint height)
{
  KsImage *out = ks_image_new (KS_FORMAT_RGBA8, width, height, NULL);

  g_assert (out != NULL);
  for (guint y = 0; y < height; y++)
    {
      int fy;
      double wy[4];

      cubic_axis (y, in->height, height, &fy, wy);
      for (guint x = 0; x < width; x++)
        {
          int fx;
          double wx[4], sum[3] = { 0, 0, 0 };
          guint32 rgba = 0xFF000000u;

          cubic_axis (x, in->width, width, &fx, wx);
          for (int j = 0; j < 4; j++)
            {
              guint sy = (guint) CLAMP (fy + j, 0, (int) in->height - 1);

              for (int i = 0; i < 4; i++)
                {
                  guint sx = (guint) CLAMP (fx + i, 0, (int) in->width - 1);
                  guint32 p = ks_image_get_rgba (in, sx, sy);

                  for (int c = 0; c < 3; c++)
                    sum[c] += wy[j] * wx[i] * ((p >> (8 * c)) & 0xFF);
                }
            }
          for (int c = 0; c < 3; c++)
            rgba |= (guint32) CLAMP ((int) lround (sum[c]), 0, 255) << (8 * c);
          ks_image_set_rgba (out, x, y, rgba);
        }
    }
  return out;
}

static KsImage *
frame_at (const Webcam *w, guint f)
{
  g_autoptr (KsImage) camera = NULL;

  if (f == 0)
    return ks_image_ref (w->frame0);
  camera = camera_frame (w, f);
  return resize_cubic (camera, SIDE, SIDE);
}

/* ---- the lesson --------------------------------------------------------------- */

static gboolean
webcam_setup (KsLessonRun *run, GError **error)
{
  Webcam *w = g_new0 (Webcam, 1);
  guint64 state = run->options.seed;
  gboolean book = run->variant->book;

  run->lesson_data = w;
  run->lesson_data_free = webcam_free;
  w->n = run->size;
  w->photo = _ks_lesson_load_sample ("lesson-photo-color.png");
  w->x0 = (guint) (_ks_lesson_splitmix64 (&state) % w->photo->width);
  w->y0 = (guint) (_ks_lesson_splitmix64 (&state) % w->photo->height);
  w->camera0 = camera_frame (w, 0);
  w->frame0 = resize_cubic (w->camera0, SIDE, SIDE);

  _ks_lesson_arg_array (run, "result", _ks_lesson_new_array (KS_ELEM_FLOAT32, PIXELS, SIDE, SIDE),
                        KS_ARRAY_OUT, book ? "drv.Out, the same array as r" : NULL);
  _ks_lesson_arg_array (run, "b", _ks_lesson_channel_array (w->frame0, 2), KS_ARRAY_IN,
                        book ? "drv.In" : NULL);
  _ks_lesson_arg_array (run, "g", _ks_lesson_channel_array (w->frame0, 1), KS_ARRAY_IN,
                        book ? "drv.In" : NULL);
  _ks_lesson_arg_array (run, "r", _ks_lesson_channel_array (w->frame0, 0), KS_ARRAY_IN,
                        book ? "drv.In" : NULL);
  run->block = (KsDim3) { 1024, 1, 1 };
  if (book)
    {
      /* 12-03's: 64 × 1024 threads, exactly one 256×256 frame. */
      run->grid = (KsDim3) { 64, 1, 1 };
      run->abs_tol = 1e-3;
    }
  else
    {
      _ks_lesson_arg_scalar (run, "n", KS_ELEM_INT32, PIXELS);
      run->grid = (KsDim3) { (PIXELS + 1023) / 1024, 1, 1 };
      run->abs_tol = 1.0;
    }
  run->checked_arg = -1;
  return TRUE;
}

static const KsArray *
arg_data (const KsLessonRun *run, guint arg)
{
  return ((const KsLessonArg *) g_ptr_array_index (run->args, arg))->array;
}

/* The gray of the planes b, g, r in integers: rounded, or truncated as the
 * book's astype(uint8) does. */
static void
gray_of (const KsArray *b, const KsArray *g, const KsArray *r, gboolean truncate, float *out)
{
  for (gsize i = 0; i < r->length; i++)
    {
      int sum = _ks_lesson_gray_thousandths (b, g, r, i);

      out[i] = (float) (truncate ? sum / 1000 : (sum + 500) / 1000);
    }
}

/* The first frame's reference (timed as the C loop). */
static KsArray *
webcam_reference (const KsLessonRun *run)
{
  KsArray *gray = _ks_lesson_new_array (KS_ELEM_FLOAT32, PIXELS, SIDE, SIDE);

  gray_of (arg_data (run, 1), arg_data (run, 2), arg_data (run, 3), run->variant->book,
           (float *) gray->data);
  return gray;
}

/* The arguments' data for frame `frame`: a copy of each array, the planes
 * the frame's (b, g, r), NULL for the scalar. */
static GPtrArray *
frame_data (const KsLessonRun *run, const KsImage *frame)
{
  GPtrArray *data = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);

  for (guint k = 0; k < run->args->len; k++)
    {
      const KsLessonArg *a = g_ptr_array_index (run->args, k);

      if (!a->is_array)
        g_ptr_array_add (data, NULL);
      else if (k == 0)
        g_ptr_array_add (data, ks_array_copy (a->array));
      else
        g_ptr_array_add (data, _ks_lesson_channel_array (frame, 3 - k));
    }
  return data;
}

/* A plane's bytes as an image the engine uploads: 1024 bytes a row. */
static KsImage *
bytes_image (const KsArray *a)
{
  gsize bytes = ks_array_get_bytes (a);
  KsImage *image = ks_image_new (KS_FORMAT_GRAY8, 1024, (guint) (bytes / 1024), NULL);

  g_assert (image != NULL && bytes % 1024 == 0);
  for (guint y = 0; y < image->height; y++)
    memcpy (ks_image_row (image, y), a->data + (gsize) y * 1024, 1024);
  return image;
}

/* The CPU engine: the model's memory is the device's. The book's way
 * allocates the four arrays, copies three in, runs, copies one out and frees
 * them; the other copies into arrays allocated before the first frame. */
static gboolean
cpu_frame (KsLessonRun *run, GPtrArray *frame, GPtrArray *once, KsArray *result, double *book_ms,
           double *once_ms, GError **error)
{
  double t0 = _ks_lesson_now_ms ();

  {
    g_autoptr (GPtrArray) fresh = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
    g_autoptr (KsArray) back = NULL;

    for (guint k = 0; k < frame->len; k++)
      {
        const KsArray *a = g_ptr_array_index (frame, k);

        g_ptr_array_add (fresh, a == NULL ? NULL
                                : k == 0 ? _ks_lesson_new_array (a->type, a->length, a->rows,
                                                                 a->cols)
                                         : ks_array_copy (a));
      }
    if (!_ks_lesson_run_in_place (run, run->cpu_worker, fresh, error))
      return FALSE;
    back = ks_array_copy (g_ptr_array_index (fresh, 0));
  }
  *book_ms = _ks_lesson_now_ms () - t0;

  t0 = _ks_lesson_now_ms ();
  for (guint k = 1; k < frame->len; k++)
    {
      const KsArray *a = g_ptr_array_index (frame, k);

      if (a != NULL)
        memcpy (((KsArray *) g_ptr_array_index (once, k))->data, a->data, ks_array_get_bytes (a));
    }
  if (!_ks_lesson_run_in_place (run, run->cpu_worker, once, error))
    return FALSE;
  memcpy (result->data, ((KsArray *) g_ptr_array_index (once, 0))->data,
          ks_array_get_bytes (result));
  *once_ms = _ks_lesson_now_ms () - t0;
  return TRUE;
}

/* CUDA: the kernel in the worker (its events time it), the buffers on the
 * application's engine: the book's way uploads into new buffers, makes the
 * result's and frees them all; the other uploads into buffers made before
 * the first frame. Both download the result. */
typedef struct
{
  KsBuffer *planes[3];
  KsBuffer *result;
} Buffers;

static void
buffers_clear (Buffers *b)
{
  for (guint i = 0; i < 3; i++)
    g_clear_pointer (&b->planes[i], ks_buffer_unref);
  g_clear_pointer (&b->result, ks_buffer_unref);
}

static gboolean
cuda_frame (KsLessonRun *run, KsEngine *engine, KsWorker *worker, GPtrArray *frame,
            Buffers *once, KsArray *result, double *book_ms, double *once_ms, GError **error)
{
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  KsImage *images[3] = { NULL, NULL, NULL };
  KsWorkerRunResult wr = { 0 };
  const KsArray *out;
  gboolean ok = FALSE;
  double t0, kernel_ms;

  if (!_ks_lesson_run_once (run, worker, frame, FALSE, results, &wr, error))
    goto out;
  kernel_ms = wr.kernel_ms;
  out = g_ptr_array_index (results, 0);
  if (out == NULL || out->length != result->length)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "the worker returned no result for a frame");
      goto out;
    }
  memcpy (result->data, out->data, ks_array_get_bytes (result));

  for (guint i = 0; i < 3; i++)
    images[i] = bytes_image (g_ptr_array_index (frame, i + 1));
  t0 = _ks_lesson_now_ms ();
  {
    Buffers fresh = { { NULL, NULL, NULL }, NULL };
    g_autoptr (KsImage) back = NULL;
    gboolean done = TRUE;

    for (guint i = 0; i < 3 && done; i++)
      done = (fresh.planes[i] = ks_engine_upload (engine, images[i], NULL, error)) != NULL;
    if (done)
      done = (fresh.result = ks_engine_new_buffer (engine, KS_FORMAT_GRAY8, images[0]->width,
                                                   images[0]->height, error)) != NULL;
    if (done)
      done = (back = ks_engine_download (engine, fresh.result, NULL, error)) != NULL;
    buffers_clear (&fresh);
    if (!done)
      goto out;
  }
  *book_ms = _ks_lesson_now_ms () - t0 + kernel_ms;

  t0 = _ks_lesson_now_ms ();
  {
    g_autoptr (KsImage) back = NULL;

    for (guint i = 0; i < 3; i++)
      if (!ks_engine_upload_into (engine, images[i], once->planes[i], NULL, error))
        goto out;
    back = ks_engine_download (engine, once->result, NULL, error);
    if (back == NULL)
      goto out;
  }
  *once_ms = _ks_lesson_now_ms () - t0 + kernel_ms;
  ok = TRUE;

out:
  for (guint i = 0; i < 3; i++)
    g_clear_pointer (&images[i], ks_image_unref);
  ks_worker_run_result_clear (&wr);
  return ok;
}

static gboolean
webcam_frames (KsLessonRun *run, KsEngine *engine, KsWorker *worker, GError **error)
{
  Webcam *w = run->lesson_data;
  gboolean book = run->variant->book;
  gboolean cuda = engine != NULL && ks_engine_is_cuda (engine);
  g_autoptr (GPtrArray) once = NULL;
  Buffers buffers = { { NULL, NULL, NULL }, NULL };
  g_autoptr (KsArray) result = _ks_lesson_new_array (KS_ELEM_FLOAT32, PIXELS, SIDE, SIDE);
  g_autofree float *expected = g_new (float, PIXELS);
  g_autofree float *rounded = g_new (float, PIXELS);
  gboolean ok = FALSE;

  w->results = _ks_lesson_new_array (book ? KS_ELEM_UINT8 : KS_ELEM_FLOAT32,
                                     (gsize) w->n * PIXELS, (gsize) w->n * SIDE, SIDE);
  w->reference = _ks_lesson_new_array (KS_ELEM_FLOAT32, (gsize) w->n * PIXELS,
                                       (gsize) w->n * SIDE, SIDE);
  w->book_ms = _ks_lesson_new_array (KS_ELEM_FLOAT64, w->n, 0, 0);
  w->once_ms = _ks_lesson_new_array (KS_ELEM_FLOAT64, w->n, 0, 0);
  if (cuda)
    {
      g_autoptr (KsImage) plane = bytes_image (arg_data (run, 1));

      for (guint i = 0; i < 3; i++)
        if ((buffers.planes[i] = ks_engine_upload (engine, plane, NULL, error)) == NULL)
          goto out;
      buffers.result = ks_engine_new_buffer (engine, KS_FORMAT_GRAY8, plane->width,
                                             plane->height, error);
      if (buffers.result == NULL)
        goto out;
    }
  else
    {
      g_autoptr (KsImage) frame = ks_image_ref (w->frame0);

      once = frame_data (run, frame);
    }

  for (guint f = 0; f < w->n; f++)
    {
      g_autoptr (KsImage) frame = frame_at (w, f);
      g_autoptr (GPtrArray) data = frame_data (run, frame);
      const KsArray *b = g_ptr_array_index (data, 1), *g = g_ptr_array_index (data, 2);
      const KsArray *r = g_ptr_array_index (data, 3);
      double book_ms = 0, once_ms = 0;

      if (_ks_lesson_cancelled (run, error))
        goto out;
      if (cuda)
        {
          if (!cuda_frame (run, engine, worker, data, &buffers, result, &book_ms, &once_ms,
                           error))
            goto out;
          if (!run->options.skip_cpu_run)
            {
              /* The CPU engine on the same frame, for the comparison. */
              g_autoptr (GPtrArray) model = frame_data (run, frame);
              gsize at = 0;

              if (!_ks_lesson_run_in_place (run, run->cpu_worker, model, error))
                goto out;
              if (!ks_array_equal (g_ptr_array_index (model, 0), result, run->abs_tol,
                                   run->rel_tol, &at))
                {
                  w->cuda_differing++;
                  if (w->cuda_difference == NULL)
                    w->cuda_difference =
                      g_strdup_printf ("frame %u, result[%" G_GSIZE_FORMAT "]: CUDA %g, CPU "
                                       "engine %g", f, at, ks_array_get_double (result, at),
                                       ks_array_get_double (g_ptr_array_index (model, 0), at));
                }
            }
        }
      else if (!cpu_frame (run, data, once, result, &book_ms, &once_ms, error))
        goto out;
      ((double *) w->book_ms->data)[f] = book_ms;
      ((double *) w->once_ms->data)[f] = once_ms;

      gray_of (b, g, r, book, expected);
      memcpy ((float *) w->reference->data + (gsize) f * PIXELS, expected, PIXELS * sizeof (float));
      if (book)
        {
          const float *v = (const float *) result->data;
          guint8 *cast = w->results->data + (gsize) f * PIXELS;

          gray_of (b, g, r, FALSE, rounded);
          for (gsize i = 0; i < PIXELS; i++)
            {
              cast[i] = (guint8) CLAMP ((int) v[i], 0, 255);
              w->darker += cast[i] != rounded[i];
              /* Out(r) and In(r) are one array: after the frame r holds this. */
              w->red_changed += v[i] != ((const float *) r->data)[i];
            }
        }
      else
        memcpy ((float *) w->results->data + (gsize) f * PIXELS, result->data,
                ks_array_get_bytes (result));
      if (f + 1 == w->n)
        w->last = ks_array_copy (result);
    }
  ok = TRUE;

out:
  buffers_clear (&buffers);
  return ok;
}

static double
median_of (const KsArray *a)
{
  g_autofree double *v = g_memdup2 (a->data, ks_array_get_bytes (a));
  gsize n = a->length;

  /* Insertion sort: a few hundred values at most. */
  for (gsize i = 1; i < n; i++)
    for (gsize j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        double t = v[j];

        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
webcam_finish (KsLessonRun *run)
{
  Webcam *w = run->lesson_data;
  KsLessonReport *report = run->report;
  gboolean book = run->variant->book;
  const char *name = book ? "gray (astype(uint8)), frame by frame" : "gray, frame by frame";
  double book_median = median_of (w->book_ms), once_median = median_of (w->once_ms);
  gsize all = (gsize) w->n * PIXELS;
  g_autofree char *against = NULL;

  g_clear_pointer (&report->check.expected_values, ks_array_free);
  report->check.expected_values = g_steal_pointer (&w->reference);
  against = g_strdup_printf ("BT.601 in integers, %s, on each of the %u frames",
                             book ? "truncated as astype(uint8) does" : "rounded", w->n);
  _ks_lesson_compare_check (run, name, w->results, against);
  _ks_lesson_add_host_output (run, name, g_steal_pointer (&w->results));
  _ks_lesson_add_host_output (run, "ms per frame, the book's way", g_steal_pointer (&w->book_ms));
  _ks_lesson_add_host_output (run, "ms per frame, buffers allocated once",
                              g_steal_pointer (&w->once_ms));

  _ks_lesson_add_image (run, "camera frame 0", ks_image_ref (w->camera0));
  _ks_lesson_add_image (run, "frame 0", ks_image_ref (w->frame0));
  _ks_lesson_add_image (run, "gray, frame 0",
                        _ks_lesson_gray_image (ks_lesson_report_find (report, "result")->array));
  if (w->last != NULL)
    {
      g_autofree char *title = g_strdup_printf ("gray, frame %u", w->n - 1);

      _ks_lesson_add_image (run, title, _ks_lesson_gray_image (w->last));
    }

  _ks_lesson_note (run, "%u frames of %u×%u, panning over the bundled photo from (%u, %u) by "
                   "(%d, %d) a frame, each resized to %u×%u by a bicubic resize with OpenCV's "
                   "INTER_CUBIC kernel (computed in floating point, so not OpenCV's fixed-point "
                   "result bit for bit): 4:3 becomes a square, %.2f× narrower and %.2f× taller, "
                   "as in the book.", w->n, CAMERA_WIDTH, CAMERA_HEIGHT, w->x0, w->y0, STEP_X,
                   STEP_Y, SIDE, SIDE, (double) CAMERA_WIDTH / SIDE, (double) SIDE / CAMERA_HEIGHT);
  _ks_lesson_note (run, "Per frame, median of %u: %.3f ms the book's way (four buffers "
                   "allocated, three planes copied in, one copied out and all freed again, as "
                   "drv.In and drv.Out do), %.3f ms with the buffers allocated once: %.3f ms a "
                   "frame goes to allocating%s.", w->n, book_median, once_median,
                   book_median - once_median,
                   report->cuda ? " (the kernel's time from the worker's events is in both; "
                                  "the buffers are timed on the application's engine)"
                                : " (on the CPU engine the model's memory is the device's)");
  if (book)
    {
      _ks_lesson_note (run, "astype(uint8) truncates: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                       " pixels over all frames (%.1f %%) are one level darker than rounding "
                       "gives.", w->darker, all, 100.0 * w->darker / all);
      _ks_lesson_note (run, "The result is bound as drv.Out(r) after drv.In(r): one array. It "
                       "works because In copies before the launch and Out after it, and it "
                       "leaves the frame's red plane overwritten with the gray on the host: %"
                       G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " red values changed over all "
                       "frames.", w->red_changed, all);
    }
  _ks_lesson_note (run, "The book does not check read()'s ret flag, so a failed grab crashes in "
                   "resize; there is no camera in the engine to fail. The Lessons window can "
                   "run the same op (%s) on the live camera, frames dropped rather than "
                   "queued.", run->lesson->live_op);
  if (report->cuda && w->cuda_differing > 0)
    {
      report->matches_cpu = FALSE;
      if (report->cpu_difference == NULL)
        report->cpu_difference = g_strdup_printf ("%" G_GSIZE_FORMAT " frames differ, the "
                                                  "first at %s", w->cuda_differing,
                                                  w->cuda_difference);
    }
}

/* The frames, KS_LESSON_DEFAULT_FRAMES by default and at most KS_LESSON_MAX_FRAMES. */
static gboolean
webcam_size (KsLessonRun *run, GError **error)
{
  guint size = run->options.size;

  run->size = size != 0 ? size : KS_LESSON_DEFAULT_FRAMES;
  if (run->size > KS_LESSON_MAX_FRAMES)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "lesson 12-04 runs at most %u frames, not %u", KS_LESSON_MAX_FRAMES,
                   run->size);
      return FALSE;
    }
  return TRUE;
}

static const KsLessonImpl impl_webcam = {
  .setup = webcam_setup,
  .reference = webcam_reference,
  .finish = webcam_finish,
  .more = webcam_frames,
  .size = webcam_size,
};

static const KsLessonVariant v_webcam[] = {
  { "fixed", "Fixed", "12-03's fixed kernel on every frame, with the four buffers allocated "
    "once, the result in a buffer of its own and the gray rounded.", FALSE, "", "12-03.cu",
    NULL, TRUE, NULL },
  { "book", "As in the book", "Every frame allocates and copies four device buffers through In "
    "and Out, the result overwrites the r plane, and astype(uint8) truncates.", TRUE, "P12 P13",
    "12-03-book.cu", NULL, TRUE, NULL },
};

static const KsLesson lessons[] = {
  { "12-04", "webcam-gray", "Live webcam grayscale", "Chapter12/04_bgr2gray_webcam.py",
    "12-03's kernel and launch on every frame of a camera, resized to 256×256. Here the frames "
    "are made from the seed (the window can run the same op on the live camera); the book's "
    "loop allocates and copies four buffers per frame and truncates the gray.", v_webcam,
    G_N_ELEMENTS (v_webcam), FALSE, "gray", { 1024, 1, 1 }, &impl_webcam },
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_webcam[] = {
  &lessons[0],
  NULL,
};
