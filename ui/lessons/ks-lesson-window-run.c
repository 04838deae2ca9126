/* ks-lesson-window-run.c: a KsLessonWindow's runs.
 *
 * A run captures on the main thread what it needs — the lesson, the
 * variant, references to the pipeline's engine and (on CUDA) its worker,
 * and the editor's text when edited — and queues one task on the pipeline's
 * runner, where engine work belongs. Everything derived from a large array
 * (heatmaps, image textures' pixels) is made there too, so that the main
 * thread only builds widgets. The report then replaces the result area
 * wholesale: it is small, and a rebuilt area never shows half of one run and
 * half of another. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-lesson-window-private.h"

/* ---- a run on the runner ---------------------------------------------------------------------- */

static void
image_pixels_free (gpointer data)
{
  ImagePixels *p = data;

  g_free (p->name);
  g_bytes_unref (p->pixels);
  g_free (p);
}

static void
run_job_free (gpointer data)
{
  RunJob *job = data;

  g_clear_object (&job->engine);
  g_clear_object (&job->worker);
  g_free (job->source);
  g_clear_pointer (&job->report, ks_lesson_report_free);
  g_clear_error (&job->error);
  g_clear_pointer (&job->heatmaps, g_ptr_array_unref);
  g_clear_pointer (&job->images, g_ptr_array_unref);
  g_free (job);
}

static int
compare_descending (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? 1 : x > y ? -1 : 0;
}

/* The tolerance that makes exactly the check's `differing` elements differ.
 * The report gives how many differ, not the tolerance it allowed (an
 * absolute one, for the lessons whose floats may round either way): the
 * elements it counts are then the ones furthest from the reference, so the
 * tolerance is the largest distance it did not count. Most checks are
 * exact, and the first loop settles them. */
static double
difference_tolerance (const KsArray *expected, const KsArray *actual, gsize differing)
{
  gsize n = MIN (expected->length, actual->length);
  gsize exact = 0;
  g_autofree double *d = NULL;

  for (gsize i = 0; i < n; i++)
    if (_ks_lesson_window_element_differs (expected, actual, i, 0))
      exact++;
  if (exact == differing || differing >= n)
    return 0;
  d = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      double x = fabs (ks_array_get_double (expected, i) - ks_array_get_double (actual, i));

      d[i] = isnan (x) ? INFINITY : x;
    }
  qsort (d, n, sizeof (double), compare_descending);
  return d[differing];
}

static void
add_heatmaps (RunJob *job, const GPtrArray *arrays, const char *prefix)
{
  const KsLessonArray *checked = _ks_lesson_window_checked_output (job->report);

  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);
      g_autofree char *key = NULL;

      if (!_ks_lesson_window_is_large (la->array))
        continue;
      key = g_strdup_printf ("%s:%s", prefix, la->name);
      g_ptr_array_add (job->heatmaps,
                       _ks_lesson_window_make_heatmap (key, la->array,
                                                       la == checked
                                                         ? job->report->check.expected_values
                                                         : NULL,
                                                       job->tolerance));
    }
}

static void
run_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  RunJob *job = task_data;
  KsLessonOptions options;

  ks_lesson_options_init (&options);
  options.source = job->source;
  options.grid = job->grid;
  options.block = job->block;
  options.repeats = job->repeats;
  options.cancellable = cancellable;
  ks_lesson_run (job->lesson, job->variant, job->engine, job->worker, &options, &job->report,
                 &job->error);
  job->heatmaps = g_ptr_array_new_with_free_func (_ks_lesson_window_heatmap_free);
  job->images = g_ptr_array_new_with_free_func (image_pixels_free);
  if (job->report != NULL)
    {
      const KsLessonArray *checked = _ks_lesson_window_checked_output (job->report);

      if (checked != NULL)
        job->tolerance = difference_tolerance (job->report->check.expected_values,
                                               checked->array, job->report->check.differing);
      add_heatmaps (job, job->report->inputs, "input");
      add_heatmaps (job, job->report->outputs, "output");
      for (guint i = 0; i < job->report->images->len; i++)
        {
          const KsLessonImage *li = g_ptr_array_index (job->report->images, i);
          g_autoptr (KsImage) rgba = ks_image_to_rgba (li->image);
          ImagePixels *p = g_new0 (ImagePixels, 1);
          guint8 *packed = g_malloc ((gsize) rgba->width * rgba->height * 4);

          for (guint y = 0; y < rgba->height; y++)
            memcpy (packed + (gsize) y * rgba->width * 4, ks_image_row (rgba, y),
                    (gsize) rgba->width * 4);
          p->name = g_strdup (li->name);
          p->pixels = g_bytes_new_take (packed, (gsize) rgba->width * rgba->height * 4);
          p->width = (int) rgba->width;
          p->height = (int) rgba->height;
          g_ptr_array_add (job->images, p);
        }
    }
  g_task_return_boolean (task, TRUE);
}

/* ---- running ---------------------------------------------------------------------------------- */

static void start_run (KsLessonWindow *self);

static void
on_run_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GWeakRef) ref = user_data;
  g_autoptr (KsLessonWindow) self = g_weak_ref_get (ref);
  RunJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  gboolean current, cancelled;

  /* A task cancelled before the runner started it never ran. */
  if (!g_task_propagate_boolean (G_TASK (result), &error) && job->error == NULL)
    job->error = g_steal_pointer (&error);
  if (self == NULL || self->closed)
    return;
  g_assert (job == self->job);
  self->job = NULL;
  g_clear_object (&self->cancellable);
  current = job->generation == self->generation;
  /* A report that arrived although Cancel was pressed is shown: it is whole. */
  cancelled = job->report == NULL
              && g_error_matches (job->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  if (current && cancelled)
    /* What was shown stays, and says it is the run before's. */
    self->cancelled = TRUE;
  else if (current)
    {
      self->cancelled = FALSE;
      _ks_lesson_window_clear_results (self);
      g_clear_pointer (&self->report, ks_lesson_report_free);
      if (job->report != NULL)
        {
          _ks_lesson_window_show_report (self, job);
          self->report = g_steal_pointer (&job->report);
        }
    }
  self->cancelling = FALSE;
  if (self->pending)
    {
      self->pending = FALSE;
      start_run (self);
    }
  else
    g_object_notify_by_pspec (G_OBJECT (self), _ks_lesson_window_properties[PROP_RUNNING]);
  _ks_lesson_window_update_actions (self);
  _ks_lesson_window_update_status (self, current && !cancelled && job->error != NULL
                                           ? job->error->message
                                           : NULL);
}

static void
start_run (KsLessonWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = _ks_lesson_window_buffer_text (self);
  gboolean was_running = self->job != NULL;
  GWeakRef *ref;
  RunJob *job;

  g_assert (self->job == NULL);
  job = g_new0 (RunJob, 1);
  job->lesson = self->lesson;
  job->variant = self->variant;
  job->generation = self->generation;
  job->grid = self->grid;
  job->block = self->block;
  job->repeats = (guint) gtk_spin_button_get_value_as_int (self->repeats_spin);
  if (engine != NULL)
    job->engine = g_object_ref (engine);
  /* The pipeline's worker: the GPU's, or on the CPU engine one without a
   * device, which compiles for the CPU engine's runs. */
  if (engine != NULL)
    job->worker = g_object_ref (ks_pipeline_get_worker (self->pipeline));
  if (g_strcmp0 (text, self->pristine) != 0)
    job->source = g_steal_pointer (&text);
  self->job = job;
  self->cancellable = g_cancellable_new ();
  self->n_runs++;
  /* The task has no source object and holds the window only weakly: a
   * closed window goes at once, and its dispose cancels the run (the
   * runner may drop the task's last reference on its own thread, and a
   * window must not be released there). */
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  task = g_task_new (NULL, self->cancellable, on_run_done_cb, ref);
  g_task_set_task_data (task, job, run_job_free);
  ks_runner_queue (ks_pipeline_get_runner (self->pipeline), task, run_thread);
  if (!was_running)
    g_object_notify_by_pspec (G_OBJECT (self), _ks_lesson_window_properties[PROP_RUNNING]);
  _ks_lesson_window_update_actions (self);
  _ks_lesson_window_update_status (self, NULL);
}

void
_ks_lesson_window_request_run (KsLessonWindow *self)
{
  if (self->lesson == NULL || self->closed)
    return;
  /* One run at a time, and at most one waiting: the newest request. A run
   * of something no longer shown (another lesson, variant or launch) would
   * only be dropped when it ends, so it stops now. */
  if (self->job != NULL)
    {
      if (self->job->generation != self->generation)
        g_cancellable_cancel (self->cancellable);
      self->pending = TRUE;
      _ks_lesson_window_update_status (self, NULL);
      return;
    }
  start_run (self);
}

/* What Cancel (and Esc) does: the run in flight stops at its next repeat,
 * stage or block, nothing waits behind it, and the results shown stay. */
void
_ks_lesson_window_cancel_run (KsLessonWindow *self)
{
  if (self->job == NULL || self->cancelling)
    return;
  self->cancelling = TRUE;
  self->pending = FALSE;
  g_cancellable_cancel (self->cancellable);
  _ks_lesson_window_update_actions (self);
  _ks_lesson_window_update_status (self, NULL);
}
