/* ks-lesson-window.c: "Lessons" (see ks-lesson-window.h).
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

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "ks-camera.h"
#include "ks-lesson-cells.h"
#include "ks-lesson-window.h"
#include "ks-ui-util.h"
#include "ks-op-registry.h"

/* Arrays up to this many elements are shown as cells (12-02's book variant
 * has 257 bins, the 257th its guard slot); longer ones as a summary and a
 * heatmap. */
#define CELL_LIMIT 320
/* Matrices wider than this are a heatmap even when small enough. */
#define CELL_COLS_LIMIT 32
/* The longest side of a heatmap, in pixels: each is the mean of its elements. */
#define HEATMAP_SIDE 256
/* Values a long array's summary lists at each end. */
#define SUMMARY_VALUES 6
/* The side a heatmap is drawn at when it has fewer pixels, and in presenter
 * mode (whose type is half as large again) the side of every heatmap. */
#define HEATMAP_MIN_SIDE 192
#define HEATMAP_PRESENTER_SCALE 1.5

/* ---- what the defects are, in words ------------------------------------------------------- */

static const struct
{
  const char *id;
  const char *text;
} defect_names[] = {
  { "P2", N_("P2: surplus threads read past the input before the bounds test") },
  { "P3", N_("P3: the output is never cleared, so results pile onto whatever it held") },
  { "P5", N_("P5: numpy.int is int64 on Linux, so the int kernel reads the pixels wrongly") },
  { "P6", N_("P6: the check compares two booleans and passes a wrong result") },
  { "P9", N_("P9: “if d_c == (d_a + d_b)” is true for any array, right or wrong") },
  { "P10", N_("P10: the 257th thread writes past the 256-entry table") },
  { "P11", N_("P11: one pixel per thread makes more global atomics than no shared memory at all") },
  { "P13", N_("P13: gray values are truncated instead of rounded") },
  { "P14", N_("P14: a hard-coded size breaks on any other size") },
  { "P15", N_("P15: one time around compilation, copies and kernel, against a Python-style loop") },
  { "P16", N_("P16: increments without atomics race, and updates are lost") },
  { "P18", N_("P18: device printf is unordered and shows only when the host waits") },
};

static char *
describe_defects (const char *defects)
{
  g_auto (GStrv) ids = g_strsplit (defects, " ", -1);
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; ids[i] != NULL; i++)
    {
      const char *text = ids[i];

      if (ids[i][0] == '\0')
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (defect_names); k++)
        if (g_str_equal (defect_names[k].id, ids[i]))
          text = _(defect_names[k].text);
      if (s->len > 0)
        g_string_append_c (s, '\n');
      g_string_append (s, text);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- a run on the runner ---------------------------------------------------------------------- */

/* A large array's heatmap, made on the runner: RGBA pixels, each the mean
 * of the f × f elements it covers (`per` of them), on a scale from lo to
 * hi. The checked output has a second picture, of its differences: red
 * where an element of the pixel differs from the reference, gray (lighter
 * for larger values) where they all equal it. */
typedef struct
{
  char *key;                 /* "input:a", "output:result" */
  GBytes *pixels;
  GBytes *diff_pixels;       /* the checked output's differences, or NULL */
  int width;
  int height;
  gsize rows;                /* the elements as laid out: vectors wrap into a square */
  gsize cols;
  gsize f;
  gsize per;
  double lo;
  double hi;
} Heatmap;

static void
heatmap_free (gpointer data)
{
  Heatmap *h = data;

  g_free (h->key);
  g_bytes_unref (h->pixels);
  g_clear_pointer (&h->diff_pixels, g_bytes_unref);
  g_free (h);
}

typedef struct
{
  char *name;
  GBytes *pixels;            /* RGBA8, tightly packed */
  int width;
  int height;
} ImagePixels;

static void
image_pixels_free (gpointer data)
{
  ImagePixels *p = data;

  g_free (p->name);
  g_bytes_unref (p->pixels);
  g_free (p);
}

typedef struct
{
  /* read-only once queued */
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  KsEngine *engine;
  KsWorker *worker;
  char *source;              /* the edited kernel, or NULL */
  gboolean edit_refused;     /* edited, but the CPU engine runs the pristine kernel */
  KsDim3 grid;               /* the user's launch; zeros: the lesson's */
  KsDim3 block;
  guint repeats;
  guint generation;

  /* written by the runner, read once the task returned */
  KsLessonReport *report;
  GError *error;
  GPtrArray *heatmaps;       /* Heatmap */
  GPtrArray *images;         /* ImagePixels */
  double tolerance;          /* the checked output's elements further than this differ */
} RunJob;

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

static gboolean
is_large (const KsArray *a)
{
  return a->length > CELL_LIMIT || a->cols > CELL_COLS_LIMIT;
}

/* The output the check compared with its reference, when something differs. */
static const KsLessonArray *
checked_output (const KsLessonReport *r)
{
  const KsLessonCheck *c = &r->check;

  if (c->passed || c->differing == 0 || c->output == NULL || c->expected_values == NULL)
    return NULL;
  return ks_lesson_report_find (r, c->output);
}

/* Whether element i differs from the reference, as the check decides it:
 * further than the tolerance, or NaN on either side. */
static gboolean
element_differs (const KsArray *expected, const KsArray *actual, gsize i, double tolerance)
{
  if (i >= expected->length || i >= actual->length)
    return FALSE;
  return !(fabs (ks_array_get_double (expected, i) - ks_array_get_double (actual, i))
           <= tolerance);
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
    if (element_differs (expected, actual, i, 0))
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

/* Viridis at five stops: ordered in lightness, so it reads in gray on a projector too. */
static void
colormap (double t, guint8 *rgba)
{
  static const guint8 stops[5][3] = {
    { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 },
  };
  double x = CLAMP (t, 0, 1) * 4;
  guint k = MIN ((guint) x, 3u);
  double f = x - k;

  for (guint c = 0; c < 3; c++)
    rgba[c] = (guint8) lround (stops[k][c] + f * (stops[k + 1][c] - stops[k][c]));
  rgba[3] = 255;
}

/* A light gray for an element equal to its reference, lighter for larger
 * values, and red for one that differs: they differ in lightness as much
 * as in hue, so the red stands out in gray on a projector too. */
static void
difference_color (double t, gboolean differs, guint8 *rgba)
{
  if (differs)
    {
      rgba[0] = 224;
      rgba[1] = 27;
      rgba[2] = 36;
    }
  else
    rgba[0] = rgba[1] = rgba[2] = (guint8) lround (150 + 90 * CLAMP (t, 0, 1));
  rgba[3] = 255;
}

/* expected: the reference of the checked output, for its differences; NULL otherwise. */
static Heatmap *
make_heatmap (const char *key, const KsArray *a, const KsArray *expected, double tolerance)
{
  gsize cols = a->cols > 0 ? a->cols : (gsize) ceil (sqrt ((double) a->length));
  gsize rows = (a->length + cols - 1) / cols;
  gsize f = 1, w, h;
  g_autofree double *sums = NULL;
  g_autofree guint *counts = NULL;
  g_autofree guint *differing = NULL;
  guint8 *pixels;
  double lo = INFINITY, hi = -INFINITY;
  Heatmap *heat;

  while ((cols + f - 1) / f > HEATMAP_SIDE || (rows + f - 1) / f > HEATMAP_SIDE)
    f++;
  w = (cols + f - 1) / f;
  h = (rows + f - 1) / f;
  sums = g_new0 (double, w * h);
  counts = g_new0 (guint, w * h);
  if (expected != NULL)
    differing = g_new0 (guint, w * h);
  for (gsize i = 0; i < a->length; i++)
    {
      double v = ks_array_get_double (a, i);
      gsize cell = (i / cols / f) * w + (i % cols) / f;

      if (differing != NULL && element_differs (expected, a, i, tolerance))
        differing[cell]++;
      if (isnan (v))
        continue;
      sums[cell] += v;
      counts[cell]++;
    }
  for (gsize c = 0; c < w * h; c++)
    if (counts[c] > 0)
      {
        sums[c] /= counts[c];
        lo = MIN (lo, sums[c]);
        hi = MAX (hi, sums[c]);
      }
  pixels = g_malloc0 (w * h * 4);
  for (gsize c = 0; c < w * h; c++)
    if (counts[c] > 0)
      colormap (hi > lo ? (sums[c] - lo) / (hi - lo) : 0.5, pixels + c * 4);
  heat = g_new0 (Heatmap, 1);
  heat->key = g_strdup (key);
  heat->pixels = g_bytes_new_take (pixels, w * h * 4);
  if (differing != NULL)
    {
      guint8 *diff = g_malloc0 (w * h * 4);

      for (gsize c = 0; c < w * h; c++)
        {
          double t = counts[c] > 0 && hi > lo ? (sums[c] - lo) / (hi - lo) : 0.5;

          if (counts[c] == 0 && differing[c] == 0)
            continue;
          difference_color (t, differing[c] > 0, diff + c * 4);
        }
      heat->diff_pixels = g_bytes_new_take (diff, w * h * 4);
    }
  heat->width = (int) w;
  heat->height = (int) h;
  heat->rows = rows;
  heat->cols = cols;
  heat->f = f;
  heat->per = f * f;
  heat->lo = lo;
  heat->hi = hi;
  return heat;
}

static void
add_heatmaps (RunJob *job, const GPtrArray *arrays, const char *prefix)
{
  const KsLessonArray *checked = checked_output (job->report);

  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);
      g_autofree char *key = NULL;

      if (!is_large (la->array))
        continue;
      key = g_strdup_printf ("%s:%s", prefix, la->name);
      g_ptr_array_add (job->heatmaps,
                       make_heatmap (key, la->array,
                                     la == checked ? job->report->check.expected_values : NULL,
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
  job->heatmaps = g_ptr_array_new_with_free_func (heatmap_free);
  job->images = g_ptr_array_new_with_free_func (image_pixels_free);
  if (job->report != NULL)
    {
      const KsLessonArray *checked = checked_output (job->report);

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

/* ---- the window ---------------------------------------------------------------------------- */

struct _KsLessonWindow
{
  AdwWindow parent_instance;

  /* template widgets */
  AdwWindowTitle *window_title;
  GtkButton *run_button;
  GtkSpinner *spinner;
  GtkButton *cancel_button;
  GtkListBox *lesson_list;
  GtkScrolledWindow *content_scroller;
  GtkLabel *title_label;
  GtkLabel *script_label;
  GtkLabel *explanation_label;
  GtkBox *variant_box;
  GtkLabel *variant_label;
  GtkLabel *defects_label;
  GtkWidget *sanitizer_box;
  GtkLabel *sanitizer_label;
  GtkButton *sanitize_button;
  GtkSpinner *sanitize_spinner;
  GtkButton *sanitize_cancel_button;
  GtkLabel *sanitize_status_label;
  GtkBox *sanitize_results_box;
  GtkButton *live_button;
  GtkLabel *source_heading;
  GtkLabel *source_name_label;
  GtkButton *reset_button;
  GtkSourceView *source_view;
  GtkLabel *edit_label;
  GtkLabel *launch_label;
  GtkEntry *grid_entry;
  GtkEntry *block_entry;
  GtkWidget *launch_reset;
  GtkWidget *launch_edit_box; /* the grid and block entries and their reset */
  GtkSpinButton *repeats_spin;
  KsDim3 grid;               /* the launch the user typed; zeros: the lesson's */
  KsDim3 block;
  GtkLabel *status_label;
  GtkToggleButton *owners_toggle;
  GtkBox *results_box;

  /* owned references */
  KsPipeline *pipeline;
  GtkSourceBuffer *buffer;
  KsLessonReport *report;     /* the one shown, or NULL */
  char *pristine;             /* the variant's own source */
  GHashTable *result_widgets; /* key → widget in results_box (borrowed) */
  GPtrArray *cells;           /* KsLessonCells in results_box (borrowed) */
  GPtrArray *heat_pictures;   /* the heatmaps' GtkPictures in results_box (borrowed) */
  GCancellable *cancellable;  /* the run in flight's, or NULL */
  GCancellable *sanitize_cancellable; /* compute-sanitizer's run in flight, or NULL */
  char *sanitize_message;     /* how its last run ended when it gave no report, or NULL */
  GCancellable *probe;        /* the camera probe under way, or NULL */
  char *camera;               /* the camera the probe found, or NULL */

  /* borrowed */
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  RunJob *job;                /* in flight (the task owns it), or NULL */

  guint generation;           /* of the lesson and variant shown */
  guint n_runs;
  gboolean pending;           /* a run was asked for while one was in flight */
  gboolean cancelling;        /* Cancel was pressed for the run in flight */
  gboolean cancelled;         /* the last run of what is shown was cancelled */
  gboolean probed;            /* the camera probe has answered */
  gboolean loading;           /* the editor's text is being replaced */
  gboolean syncing;           /* the variant controls follow the model */
  gboolean closed;
};

G_DEFINE_FINAL_TYPE (KsLessonWindow, ks_lesson_window, ADW_TYPE_WINDOW)

enum
{
  PROP_0,
  PROP_PIPELINE,
  PROP_RUNNING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void request_run (KsLessonWindow *self);

static char *
format_ms (double ms)
{
  if (!isfinite (ms) || ms < 0)
    return g_strdup ("—");
  if (ms >= 100)
    return g_strdup_printf ("%.0f ms", ms);
  if (ms >= 1)
    return g_strdup_printf ("%.2f ms", ms);
  if (ms >= 0.01)
    return g_strdup_printf ("%.3f ms", ms);
  return g_strdup_printf ("%.2f µs", ms * 1000);
}

static gboolean
engine_is_cuda (KsLessonWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);

  return engine != NULL && ks_engine_is_cuda (engine);
}

static char *
buffer_text (KsLessonWindow *self)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  return gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, FALSE);
}

static void
update_actions (KsLessonWindow *self)
{
  gboolean running = self->job != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.run", self->lesson != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.reset",
                                 self->lesson != NULL && ks_lesson_window_get_edited (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.cancel",
                                 running && !self->cancelling);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), running);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), running);
}

/* What the editor says under the kernel: whether an edit can run here. */
static void
update_edit_label (KsLessonWindow *self)
{
  gboolean edited = ks_lesson_window_get_edited (self);
  gboolean cuda = engine_is_cuda (self);
  const char *text;

  gtk_widget_remove_css_class (GTK_WIDGET (self->edit_label), "warning");
  gtk_widget_add_css_class (GTK_WIDGET (self->edit_label), "dim-label");
  if (self->lesson != NULL && self->lesson->host_only)
    text = _("The host’s code, for reading: this lesson runs no kernel, so there is nothing to "
             "edit and run.");
  else if (edited && !cuda)
    {
      text = _("Edited. Running an edited kernel needs CUDA, and this is the CPU engine: its C "
               "twins are the lesson’s own kernels, so Run runs the lesson’s own kernel, not "
               "your edit. Reset puts it back in the editor.");
      gtk_widget_remove_css_class (GTK_WIDGET (self->edit_label), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self->edit_label), "warning");
    }
  else if (edited)
    text = _("Edited: Run compiles your version with NVRTC and runs it in the worker process; "
             "keep the argument names. Reset puts the lesson’s own kernel back.");
  else if (!cuda)
    text = _("You can edit the kernel, but running an edit needs CUDA: the CPU engine runs the "
             "lesson’s own kernel, as its C twin with the same blocks, threads and index math.");
  else
    text = _("Edit the kernel and run it: it is compiled with NVRTC and runs in the worker "
             "process, beside its C twin on the CPU.");
  gtk_label_set_label (self->edit_label, text);
}

static void
update_status (KsLessonWindow *self, const char *failure)
{
  g_autoptr (GString) s = g_string_new (NULL);
  KsEngine *engine = self->job != NULL ? self->job->engine
                                       : ks_pipeline_get_engine (self->pipeline);
  g_autofree char *engine_name = NULL;

  if (engine == NULL)
    engine_name = g_strdup (_("no engine"));
  else if (ks_engine_is_cuda (engine))
    engine_name = g_strdup (ks_device_get_name (ks_engine_get_device (engine)));
  else
    engine_name = g_strdup (_("the CPU engine"));

  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  if (self->job != NULL && self->cancelling)
    g_string_append (s, _("Cancelling…"));
  else if (self->job != NULL && self->job->variant != &self->job->lesson->variants[0])
    /* TRANSLATORS: "Running 12-01 (As in the book) on the CPU engine…": the
     * lesson, its variant and the engine. */
    g_string_append_printf (s, _("Running %s (%s) on %s…"), self->job->lesson->id,
                            self->job->variant->title, engine_name);
  else if (self->job != NULL)
    /* TRANSLATORS: "Running 11-06 on the CPU engine…": the lesson and the engine. */
    g_string_append_printf (s, _("Running %s on %s…"), self->job->lesson->id, engine_name);
  else if (failure != NULL)
    {
      g_string_append_printf (s, _("The lesson could not run: %s"), failure);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
    }
  else if (self->cancelled && self->report != NULL)
    g_string_append (s, _("Cancelled. The results shown are those of the run before."));
  else if (self->cancelled)
    g_string_append (s, _("Cancelled."));
  else if (self->report != NULL)
    g_string_append_printf (s, _("Ran on: %s."), self->report->engine_name);
  else
    g_string_append_printf (s, _("Runs on %s."), engine_name);
  if (self->pending)
    {
      g_string_append_c (s, ' ');
      g_string_append (s, _("It runs again when this run ends."));
    }
  gtk_label_set_label (self->status_label, s->str);
}

static void
update_launch (KsLessonWindow *self)
{
  KsDim3 grid, block;
  guint64 shared;
  char g[48], b[48];
  guint64 threads;
  g_autofree char *n_threads = NULL;
  g_autofree char *n_shared = NULL;
  g_autofree char *text = NULL;

  KsLessonOptions options;
  gboolean own;

  if (self->lesson == NULL)
    {
      gtk_label_set_label (self->launch_label, "");
      return;
    }
  gtk_widget_set_visible (self->launch_edit_box, !self->lesson->host_only);
  if (self->lesson->host_only)
    {
      gtk_label_set_label (self->launch_label,
                           _("No kernel runs: the host asks the driver about the devices."));
      return;
    }
  ks_lesson_options_init (&options);
  options.grid = self->grid;
  options.block = self->block;
  ks_lesson_get_launch (self->lesson, self->variant, &options, &grid, &block, &shared);
  ks_dim3_format (&grid, g, sizeof g);
  ks_dim3_format (&block, b, sizeof b);
  threads = (guint64) grid.x * grid.y * grid.z * block.x * block.y * block.z;
  n_threads = g_strdup_printf ("%" G_GUINT64_FORMAT, threads);
  n_shared = g_strdup_printf ("%" G_GUINT64_FORMAT, shared);
  own = self->grid.x != 0 || self->block.x != 0;
  text = g_strdup_printf (own ? _("Your launch: grid %s × block %s = %s threads, %s bytes of "
                                  "dynamic shared memory")
                              : _("Launch: grid %s × block %s = %s threads, %s bytes of dynamic "
                                  "shared memory"),
                          g, b, n_threads, n_shared);
  gtk_label_set_label (self->launch_label, text);
  gtk_editable_set_text (GTK_EDITABLE (self->grid_entry), g);
  gtk_editable_set_text (GTK_EDITABLE (self->block_entry), b);
  gtk_widget_set_sensitive (self->launch_reset, own);
}

/* The grid and block typed under the launch: the lesson runs with them (the
 * data stays the lesson's, as when a launch is edited in the book's
 * script), and what breaks shows. */
static void
on_launch_activate_cb (GtkEntry *entry, KsLessonWindow *self)
{
  g_autoptr (GError) error = NULL;
  KsDim3 grid, block;

  if (!ks_dim3_parse (gtk_editable_get_text (GTK_EDITABLE (self->grid_entry)), &grid, &error)
      || !ks_dim3_parse (gtk_editable_get_text (GTK_EDITABLE (self->block_entry)), &block,
                         &error))
    {
      gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
      update_status (self, error->message);
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (self->grid_entry), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->block_entry), "error");
  self->grid = grid;
  self->block = block;
  update_launch (self);
  self->generation++;
  request_run (self);
}

static void
on_launch_reset_cb (GtkButton *button, KsLessonWindow *self)
{
  self->grid = self->block = (KsDim3) { 0, 0, 0 };
  gtk_widget_remove_css_class (GTK_WIDGET (self->grid_entry), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->block_entry), "error");
  update_launch (self);
  self->generation++;
  request_run (self);
}

/* The row of the grid and block entries, under the launch's label. */
static void
build_launch_row (KsLessonWindow *self)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self->launch_label));
  GtkWidget *repeats;
  KsLessonOptions options;

  self->grid_entry = GTK_ENTRY (gtk_entry_new ());
  self->block_entry = GTK_ENTRY (gtk_entry_new ());
  gtk_widget_set_name (GTK_WIDGET (self->grid_entry), "lesson-grid");
  gtk_widget_set_name (GTK_WIDGET (self->block_entry), "lesson-block");
  gtk_editable_set_width_chars (GTK_EDITABLE (self->grid_entry), 10);
  gtk_editable_set_width_chars (GTK_EDITABLE (self->block_entry), 10);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->grid_entry),
                               _("Blocks in the grid, such as 977 or 16x16: Enter runs it"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->block_entry),
                               _("Threads in a block, such as 1024 or 16x16: Enter runs it"));
  g_signal_connect (self->grid_entry, "activate", G_CALLBACK (on_launch_activate_cb), self);
  g_signal_connect (self->block_entry, "activate", G_CALLBACK (on_launch_activate_cb), self);
  self->launch_reset = gtk_button_new_with_mnemonic (_("_Lesson's Launch"));
  gtk_widget_set_tooltip_text (self->launch_reset, _("Run with the lesson's grid and block again"));
  g_signal_connect (self->launch_reset, "clicked", G_CALLBACK (on_launch_reset_cb), self);
  self->launch_edit_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_append (GTK_BOX (self->launch_edit_box), gtk_label_new (_("Grid")));
  gtk_box_append (GTK_BOX (self->launch_edit_box), GTK_WIDGET (self->grid_entry));
  gtk_box_append (GTK_BOX (self->launch_edit_box), gtk_label_new (_("Block")));
  gtk_box_append (GTK_BOX (self->launch_edit_box), GTK_WIDGET (self->block_entry));
  gtk_box_append (GTK_BOX (self->launch_edit_box), self->launch_reset);
  gtk_widget_set_margin_end (self->launch_edit_box, 12);
  gtk_box_append (GTK_BOX (row), self->launch_edit_box);

  /* How many timed runs the medians are of; the next Run takes it. */
  ks_lesson_options_init (&options);
  self->repeats_spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (1, 100000, 1));
  gtk_spin_button_set_value (self->repeats_spin, options.repeats);
  gtk_widget_set_name (GTK_WIDGET (self->repeats_spin), "lesson-repeats");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->repeats_spin),
                               _("Timed runs after the warm-up: the timings are their medians. "
                                 "The next Run takes it"));
  repeats = gtk_label_new_with_mnemonic (_("_Timed runs"));
  gtk_label_set_mnemonic_widget (GTK_LABEL (repeats), GTK_WIDGET (self->repeats_spin));
  gtk_box_append (GTK_BOX (row), repeats);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->repeats_spin));
  gtk_box_insert_child_after (GTK_BOX (parent), row, GTK_WIDGET (self->launch_label));
}

/* ---- the result area ------------------------------------------------------------------------ */

static void
clear_results (KsLessonWindow *self)
{
  GtkWidget *child;

  g_hash_table_remove_all (self->result_widgets);
  g_ptr_array_set_size (self->cells, 0);
  g_ptr_array_set_size (self->heat_pictures, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->results_box))) != NULL)
    gtk_box_remove (self->results_box, child);
}

static void
remember (KsLessonWindow *self, const char *key, GtkWidget *widget)
{
  g_hash_table_insert (self->result_widgets, g_strdup (key), widget);
}

static GtkWidget *
new_label (const char *text, const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static GtkWidget *
new_section (GtkBox *parent, const char *title)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  gtk_box_append (GTK_BOX (box), new_label (title, "heading"));
  gtk_box_append (parent, box);
  return box;
}

static KsLessonCells *
add_cells (KsLessonWindow *self, GtkBox *box, const KsArray *array, const gint32 *block_of,
           const gint32 *thread_of, const KsDim3 *grid, const KsDim3 *block)
{
  GtkWidget *cells = ks_lesson_cells_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();

  ks_lesson_cells_set_array (KS_LESSON_CELLS (cells), array, block_of, thread_of, grid, block);
  ks_lesson_cells_set_show_owners (KS_LESSON_CELLS (cells),
                                   gtk_toggle_button_get_active (self->owners_toggle));
  /* A wide matrix scrolls sideways in its own place instead of widening the window. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), cells);
  gtk_box_append (box, scroller);
  g_ptr_array_add (self->cells, cells);
  return KS_LESSON_CELLS (cells);
}

static const Heatmap *
find_heatmap (RunJob *job, const char *key)
{
  for (guint i = 0; i < job->heatmaps->len; i++)
    {
      const Heatmap *h = g_ptr_array_index (job->heatmaps, i);

      if (g_str_equal (h->key, key))
        return h;
    }
  return NULL;
}

static GtkWidget *
new_picture (GBytes *pixels, int width, int height)
{
  g_autoptr (GdkTexture) texture = gdk_memory_texture_new (width, height,
                                                           GDK_MEMORY_R8G8B8A8, pixels,
                                                           (gsize) width * 4);
  GtkWidget *picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_halign (picture, GTK_ALIGN_START);
  return picture;
}

/* ---- heatmaps ---------------------------------------------------------------------------- */

/* What a heatmap's picture needs to say what lies under the pointer. The
 * values are looked up in the window's report when asked: the result area
 * is rebuilt whenever the report changes, so they are always the ones
 * drawn. */
typedef struct
{
  KsLessonWindow *window;    /* borrowed: the picture is in its result area */
  char *name;                /* the array, among the report's inputs or outputs */
  gboolean output;
  GdkTexture *values;
  GdkTexture *differences;   /* NULL: not the checked output */
  GtkLabel *caption;         /* borrowed: the picture's caption */
  char *values_caption;
  char *differences_caption;
  gsize rows;                /* the elements' layout, and the f × f each pixel covers */
  gsize cols;
  gsize f;
  int width;
  int height;
  double tolerance;
  gboolean show_differences;
} HeatView;

static void
heat_view_free (gpointer data)
{
  HeatView *hv = data;

  g_free (hv->name);
  g_clear_object (&hv->values);
  g_clear_object (&hv->differences);
  g_free (hv->values_caption);
  g_free (hv->differences_caption);
  g_free (hv);
}

static const KsArray *
heat_view_array (HeatView *hv)
{
  const KsLessonReport *r = hv->window->report;
  const GPtrArray *arrays;

  if (r == NULL)
    return NULL;
  arrays = hv->output ? r->outputs : r->inputs;
  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);

      if (g_str_equal (la->name, hv->name))
        return la->array;
    }
  return NULL;
}

/* "[2, 5]" in a matrix, "[37]" in a vector. */
static char *
element_position (const KsArray *a, gsize i)
{
  if (a->cols > 0)
    return g_strdup_printf ("[%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "]", i / a->cols,
                            i % a->cols);
  return g_strdup_printf ("[%" G_GSIZE_FORMAT "]", i);
}

static char *
heat_view_describe (HeatView *hv, GtkWidget *picture, double x, double y)
{
  const KsArray *a = heat_view_array (hv);
  const KsArray *expected = NULL;
  double w = gtk_widget_get_width (picture), h = gtk_widget_get_height (picture);
  double scale = MIN (w / hv->width, h / hv->height);
  double fx, fy, sum = 0;
  gsize r0, c0, r1, c1, n = 0, n_sum = 0, n_diff = 0, first = G_MAXSIZE, last = 0, lowest = 0;
  g_autoptr (GString) s = g_string_new (NULL);

  if (a == NULL || scale <= 0)
    return NULL;
  if (hv->show_differences && hv->window->report != NULL)
    expected = hv->window->report->check.expected_values;
  /* GtkPicture centres the scaled heatmap in its allocation. */
  fx = (x - (w - hv->width * scale) / 2) / scale;
  fy = (y - (h - hv->height * scale) / 2) / scale;
  if (fx < 0 || fy < 0 || fx >= hv->width || fy >= hv->height)
    return NULL;
  r0 = (gsize) fy * hv->f;
  c0 = (gsize) fx * hv->f;
  r1 = MIN (r0 + hv->f, hv->rows);
  c1 = MIN (c0 + hv->f, hv->cols);
  for (gsize r = r0; r < r1; r++)
    for (gsize c = c0; c < c1; c++)
      {
        gsize i = r * hv->cols + c;
        double v;

        if (i >= a->length)
          continue;
        if (n++ == 0)
          lowest = i;
        last = i;
        v = ks_array_get_double (a, i);
        if (!isnan (v))
          {
            sum += v;
            n_sum++;
          }
        if (expected != NULL && element_differs (expected, a, i, hv->tolerance))
          {
            n_diff++;
            if (first == G_MAXSIZE)
              first = i;
          }
      }
  if (n == 0)
    return NULL;

  if (n == 1)
    {
      g_autofree char *where = element_position (a, lowest);
      g_autofree char *value = ks_array_format_element (a, lowest);

      g_string_append_printf (s, "%s = %s", where, value);
    }
  else
    {
      g_autofree char *from = element_position (a, lowest);
      g_autofree char *to = element_position (a, last);
      g_autofree char *mean = g_strdup_printf ("%.6g", n_sum > 0 ? sum / n_sum : NAN);
      g_autofree char *count = g_strdup_printf ("%" G_GSIZE_FORMAT, n);

      /* TRANSLATORS: hovering a heatmap pixel that stands for several
       * elements: how many, the first and last of them, and their mean. */
      g_string_append_printf (s, ngettext ("%s element, %s to %s, mean %s",
                                           "%s elements, %s to %s, mean %s",
                                           (gulong) MIN (n, G_MAXULONG)),
                              count, from, to, mean);
    }
  if (expected == NULL)
    return g_string_free (g_steal_pointer (&s), FALSE);

  g_string_append_c (s, '\n');
  if (n_diff == 0)
    g_string_append (s, n == 1 ? _("Equals the reference")
                               : _("Every one of them equals the reference"));
  else
    {
      g_autofree char *e = ks_array_format_element (expected, first);
      g_autofree char *v = ks_array_format_element (a, first);

      if (n > 1)
        {
          g_autofree char *where = element_position (a, first);
          g_autofree char *k = g_strdup_printf ("%" G_GSIZE_FORMAT, n_diff);
          g_autofree char *of = g_strdup_printf ("%" G_GSIZE_FORMAT, n);

          g_string_append_printf (s, ngettext ("%s of %s differs; the first is %s",
                                               "%s of %s differ; the first is %s",
                                               (gulong) MIN (n_diff, G_MAXULONG)),
                                  k, of, where);
          g_string_append_c (s, '\n');
        }
      g_string_append_printf (s, _("Differs from the reference: expected %s, got %s"), e, v);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
on_heat_query_tooltip_cb (GtkWidget *picture, int x, int y, gboolean keyboard,
                          GtkTooltip *tooltip, gpointer user_data)
{
  g_autofree char *text = heat_view_describe (user_data, picture, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* Drawn at least HEATMAP_MIN_SIDE on its longest side (a 100-pixel one is
 * still seen), and larger in presenter mode, like the type. */
static void
size_heat_picture (KsLessonWindow *self, GtkWidget *picture)
{
  HeatView *hv = g_object_get_data (G_OBJECT (picture), "ks-heat-view");
  int longest = MAX (hv->width, hv->height);
  double side = MAX (longest, HEATMAP_MIN_SIDE);

  if (gtk_widget_has_css_class (GTK_WIDGET (self), "ks-presenter"))
    side *= HEATMAP_PRESENTER_SCALE;
  gtk_widget_set_size_request (picture, (int) lround (hv->width * side / longest),
                               (int) lround (hv->height * side / longest));
}

static void
heat_view_show (HeatView *hv, GtkWidget *picture, gboolean differences)
{
  hv->show_differences = differences && hv->differences != NULL;
  gtk_picture_set_paintable (GTK_PICTURE (picture),
                             GDK_PAINTABLE (hv->show_differences ? hv->differences
                                                                 : hv->values));
  gtk_label_set_label (hv->caption, hv->show_differences ? hv->differences_caption
                                                         : hv->values_caption);
}

static void
on_heat_mode_toggled_cb (GtkToggleButton *button, GtkWidget *picture)
{
  HeatView *hv = g_object_get_data (G_OBJECT (picture), "ks-heat-view");
  gboolean differences = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button),
                                                             "ks-differences"));

  if (gtk_toggle_button_get_active (button))
    heat_view_show (hv, picture, differences);
}

static GdkTexture *
heat_texture (const Heatmap *heat, GBytes *pixels)
{
  return gdk_memory_texture_new (heat->width, heat->height, GDK_MEMORY_R8G8B8A8, pixels,
                                 (gsize) heat->width * 4);
}

/* "Values" and "Differences", over the picture of the checked output. */
static GtkWidget *
new_heat_mode_switch (GtkWidget *picture)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *values = gtk_toggle_button_new_with_mnemonic (_("_Values"));
  GtkWidget *differences = gtk_toggle_button_new_with_mnemonic (_("_Differences"));

  gtk_widget_add_css_class (row, "linked");
  gtk_widget_set_halign (row, GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (values, _("The heatmap of the values"));
  gtk_widget_set_tooltip_text (differences,
                               _("Red where an element differs from the reference"));
  g_object_set_data (G_OBJECT (differences), "ks-differences", GINT_TO_POINTER (TRUE));
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (differences), GTK_TOGGLE_BUTTON (values));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (differences), TRUE);
  g_signal_connect_object (values, "toggled", G_CALLBACK (on_heat_mode_toggled_cb), picture,
                           G_CONNECT_DEFAULT);
  g_signal_connect_object (differences, "toggled", G_CALLBACK (on_heat_mode_toggled_cb),
                           picture, G_CONNECT_DEFAULT);
  gtk_box_append (GTK_BOX (row), values);
  gtk_box_append (GTK_BOX (row), differences);
  return row;
}

/* How many elements of the checked output differ, under its heading. */
static void
add_difference_count (KsLessonWindow *self, GtkBox *box, const char *key,
                      const KsLessonCheck *c)
{
  g_autofree char *k = g_strdup_printf ("%" G_GSIZE_FORMAT, c->differing);
  g_autofree char *n = g_strdup_printf ("%" G_GSIZE_FORMAT, c->compared);
  g_autofree char *text = NULL;
  g_autofree char *count_key = g_strconcat (key, ":differences", NULL);
  GtkWidget *label;

  /* TRANSLATORS: "3 of 25 elements differ from the reference". */
  text = g_strdup_printf (ngettext ("%s of %s element differs from the reference",
                                    "%s of %s elements differ from the reference",
                                    (gulong) MIN (c->differing, G_MAXULONG)),
                          k, n);
  label = new_label (text, "error");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (box, label);
  remember (self, count_key, label);
}

/* A long array: how long, its ends, its range and a heatmap; for the
 * checked output, its differences too. */
static void
add_summary (KsLessonWindow *self, GtkBox *box, const KsLessonArray *la, const char *key,
             RunJob *job, gboolean checked)
{
  const KsArray *a = la->array;
  const Heatmap *heat = find_heatmap (job, key);
  g_autoptr (GString) ends = g_string_new (NULL);
  g_autofree char *first = NULL;
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;
  g_autofree char *values_key = g_strconcat (key, ":values", NULL);
  g_autofree char *heat_key = g_strconcat (key, ":heatmap", NULL);
  g_autofree char *shape = NULL;
  GtkWidget *label, *picture, *caption;
  HeatView *hv;
  gsize n = MIN (a->length, (gsize) SUMMARY_VALUES);

  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *v = ks_array_format_element (a, i);

      g_string_append_printf (ends, "%s%s", i > 0 ? "  " : "", v);
    }
  g_string_append (ends, "  …");
  for (gsize i = a->length - n; i < a->length; i++)
    {
      g_autofree char *v = ks_array_format_element (a, i);

      g_string_append_printf (ends, "  %s", v);
    }
  if (a->cols > 0)
    shape = g_strdup_printf ("%" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT, a->rows, a->cols);
  else
    shape = g_strdup_printf ("%" G_GSIZE_FORMAT, a->length);
  first = g_strdup_printf (_("%s elements: too many for cells, so the first and last values "
                             "and a heatmap"), shape);
  gtk_box_append (box, new_label (first, "dim-label"));
  label = new_label (ends->str, "monospace");
  gtk_box_append (box, label);
  remember (self, values_key, label);
  if (checked)
    add_difference_count (self, box, key, &job->report->check);
  if (heat == NULL)
    return;

  hv = g_new0 (HeatView, 1);
  hv->window = self;
  hv->name = g_strdup (la->name);
  hv->output = g_str_has_prefix (key, "output:");
  hv->values = heat_texture (heat, heat->pixels);
  hv->rows = heat->rows;
  hv->cols = heat->cols;
  hv->f = heat->f;
  hv->width = heat->width;
  hv->height = heat->height;
  hv->tolerance = job->tolerance;
  lo = g_strdup_printf ("%.6g", heat->lo);
  hi = g_strdup_printf ("%.6g", heat->hi);
  if (heat->per > 1)
    hv->values_caption = g_strdup_printf (_("Each pixel is the mean of %u elements; dark "
                                            "violet is %s, yellow %s. Hover a pixel for its "
                                            "elements."), (guint) heat->per, lo, hi);
  else
    hv->values_caption = g_strdup_printf (_("One pixel per element; dark violet is %s, yellow "
                                            "%s. Hover a pixel for its element."), lo, hi);
  if (checked && heat->diff_pixels != NULL)
    {
      hv->differences = heat_texture (heat, heat->diff_pixels);
      if (heat->per > 1)
        hv->differences_caption = g_strdup_printf (_("Red: a pixel of %u elements where at "
                                                     "least one differs from the reference; "
                                                     "gray where all equal it (lighter for "
                                                     "larger values). Hover a pixel for the "
                                                     "values expected."), (guint) heat->per);
      else
        hv->differences_caption = g_strdup (_("Red: an element that differs from the "
                                              "reference; gray where it equals it (lighter "
                                              "for larger values). Hover a pixel for the "
                                              "value expected."));
    }

  picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_halign (picture, GTK_ALIGN_START);
  gtk_widget_set_has_tooltip (picture, TRUE);
  g_object_set_data_full (G_OBJECT (picture), "ks-heat-view", hv, heat_view_free);
  g_signal_connect (picture, "query-tooltip", G_CALLBACK (on_heat_query_tooltip_cb), hv);
  caption = new_label (NULL, "dim-label");
  hv->caption = GTK_LABEL (caption);
  if (hv->differences != NULL)
    gtk_box_append (box, new_heat_mode_switch (picture));
  gtk_box_append (box, picture);
  gtk_box_append (box, caption);
  heat_view_show (hv, picture, TRUE);
  size_heat_picture (self, picture);
  g_ptr_array_add (self->heat_pictures, picture);
  remember (self, heat_key, picture);
}

/* ---- 11-02's attributes ------------------------------------------------------------------ */

/* 11-02's arrays: a device's 84 attributes in the order printed, or per
 * device (a row each) its compute capability, memory and then those 84.
 * The number of leading values, or -1 for another array. */
static int
attribute_lead (const KsLessonReport *r, const KsArray *a)
{
  guint n = 0;

  ks_lesson_device_attributes (&n);
  if (!r->lesson->host_only || a->type != KS_ELEM_INT64)
    return -1;
  if (a->length == n)
    return 0;
  if (a->cols == n + 3)
    return 3;
  return -1;
}

/* One name and its value in an attribute table; the value red with what
 * was expected where it differs from the check's reference. */
static void
attach_attribute (GtkGrid *grid, int column, int row, const char *name, const char *tooltip,
                  const KsArray *a, gsize i, const KsArray *expected, double tolerance)
{
  gint64 v = (gint64) ks_array_get_double (a, i);
  g_autofree char *text = v < 0 ? g_strdup ("—") : ks_array_format_element (a, i);
  GtkWidget *name_label = new_label (name, "monospace");
  GtkWidget *value_label = new_label (text, "monospace");

  gtk_label_set_wrap (GTK_LABEL (name_label), FALSE);
  gtk_label_set_xalign (GTK_LABEL (value_label), 1);
  gtk_widget_set_tooltip_text (name_label, tooltip);
  if (v < 0)
    gtk_widget_set_tooltip_text (value_label,
                                 _("Not printed: the device does not report this attribute"));
  if (expected != NULL && element_differs (expected, a, i, tolerance))
    {
      g_autofree char *e = ks_array_format_element (expected, i);
      g_autofree char *says = g_strdup_printf (_("Differs from the reference: expected %s, "
                                                 "got %s"), e, text);

      gtk_widget_add_css_class (value_label, "error");
      gtk_widget_set_tooltip_text (value_label, says);
    }
  gtk_grid_attach (grid, name_label, column, row, 1, 1);
  gtk_grid_attach (grid, value_label, column + 1, row, 1, 1);
}

/* The attributes by name and value in two pairs of columns, read down
 * (the names sorted as the book prints them); the leading values of a
 * device's row first. */
static GtkWidget *
new_attribute_table (const KsArray *a, gsize offset, int lead, const KsArray *expected,
                     double tolerance)
{
  const char *const lead_names[3] = { N_("Compute capability, major"),
                                      N_("Compute capability, minor"),
                                      N_("Total memory, GB (rounded down)") };
  guint n = 0;
  const KsLessonDeviceAttribute *attributes = ks_lesson_device_attributes (&n);
  guint total = n + (guint) lead;
  guint half = (total + 1) / 2;
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  gtk_grid_set_column_spacing (grid, 12);
  gtk_grid_set_row_spacing (grid, 2);
  for (guint k = 0; k < total; k++)
    {
      int column = k < half ? 0 : 3;
      int row = (int) (k % half);

      if (k < (guint) lead)
        attach_attribute (grid, column, row, _(lead_names[k]), NULL, a, offset + k, expected,
                          tolerance);
      else
        {
          const KsLessonDeviceAttribute *at = &attributes[k - lead];
          g_autofree char *tip = g_strdup_printf (_("%s in the CUDA runtime, attribute %d"),
                                                  at->cuda_name, at->attribute);

          attach_attribute (grid, column, row, at->name, tip, a, offset + k, expected,
                            tolerance);
        }
    }
  /* A gap between the two pairs of columns. */
  gtk_grid_attach (grid, gtk_separator_new (GTK_ORIENTATION_VERTICAL), 2, 0, 1, (int) half);
  return GTK_WIDGET (grid);
}

static void
add_attribute_tables (KsLessonWindow *self, GtkBox *box, const KsLessonArray *la, int lead,
                      const char *key, RunJob *job, gboolean checked)
{
  const KsArray *a = la->array;
  const KsArray *expected = checked ? job->report->check.expected_values : NULL;
  gsize rows = lead == 0 ? 1 : a->rows;
  GtkWidget *tables = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  for (gsize d = 0; d < rows; d++)
    {
      GtkWidget *table = new_attribute_table (a, d * (a->cols > 0 && lead > 0 ? a->cols : 0),
                                              lead, expected, job->tolerance);

      if (rows > 1)
        {
          g_autofree char *title = g_strdup_printf (_("Device #%u"), (guint) d);

          gtk_box_append (GTK_BOX (tables), new_label (title, "heading"));
        }
      gtk_box_append (GTK_BOX (tables), table);
    }
  if (checked)
    add_difference_count (self, box, key, &job->report->check);
  if (lead > 0)
    {
      /* The text read back is the same table again: folded unless it is wrong. */
      GtkWidget *expander = gtk_expander_new_with_mnemonic (_("_Table"));

      gtk_expander_set_child (GTK_EXPANDER (expander), tables);
      gtk_expander_set_expanded (GTK_EXPANDER (expander), checked);
      gtk_box_append (box, expander);
    }
  else
    gtk_box_append (box, tables);
  remember (self, key, tables);
}

static void
add_arrays (KsLessonWindow *self, GtkBox *column, const GPtrArray *arrays, const char *prefix,
            RunJob *job)
{
  const KsLessonReport *r = job->report;
  const KsLessonArray *checked = g_str_equal (prefix, "output") ? checked_output (r) : NULL;

  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);
      const KsArray *a = la->array;
      g_autofree char *key = g_strdup_printf ("%s:%s", prefix, la->name);
      g_autofree char *heading = NULL;
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);

      if (a->cols > 0)
        heading = g_strdup_printf ("%s  (%s, %s, %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT ")",
                                   la->name, la->role, ks_elem_type_short_name (a->type),
                                   a->rows, a->cols);
      else
        heading = g_strdup_printf ("%s  (%s, %s, %" G_GSIZE_FORMAT ")", la->name, la->role,
                                   ks_elem_type_short_name (a->type), a->length);
      gtk_box_append (GTK_BOX (box), new_label (heading, "monospace"));
      if (attribute_lead (r, a) >= 0)
        add_attribute_tables (self, GTK_BOX (box), la, attribute_lead (r, a), key, job,
                              la == checked);
      else if (is_large (a))
        add_summary (self, GTK_BOX (box), la, key, job, la == checked);
      else
        {
          KsLessonCells *cells;

          if (la == checked)
            add_difference_count (self, GTK_BOX (box), key, &r->check);
          cells = add_cells (self, GTK_BOX (box), a, la->block_of, la->thread_of, &r->grid,
                             &r->block);
          if (la == checked)
            ks_lesson_cells_set_reference (cells, r->check.expected_values, job->tolerance);
          remember (self, key, GTK_WIDGET (cells));
        }
      gtk_box_append (column, box);
    }
}

static void
add_data (KsLessonWindow *self, RunJob *job)
{
  const KsLessonReport *r = job->report;
  const GPtrArray *lists[2] = { r->inputs, r->outputs };
  const char *const prefixes[2] = { "input", "output" };
  const char *const titles[2] = { _("Inputs"), _("Outputs") };
  GtkWidget *flow;

  if (r->inputs->len == 0 && r->outputs->len == 0)
    return;
  /* Inputs beside outputs while the window is wide enough, one above the other when not. */
  flow = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 2);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (flow), 24);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (flow), 12);
  gtk_widget_set_can_focus (flow, FALSE);
  for (guint k = 0; k < 2; k++)
    {
      GtkWidget *column;

      if (lists[k]->len == 0)
        continue;
      column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
      gtk_widget_set_valign (column, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (column), new_label (titles[k], "heading"));
      add_arrays (self, GTK_BOX (column), lists[k], prefixes[k], job);
      gtk_flow_box_append (GTK_FLOW_BOX (flow), column);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (flow); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    gtk_widget_set_can_focus (c, FALSE);
  gtk_box_append (self->results_box, flow);
}

static void
add_check (KsLessonWindow *self, const KsLessonReport *r)
{
  const KsLessonCheck *c = &r->check;
  g_autofree char *text = NULL;
  GtkWidget *label;

  if (c->summary == NULL)
    return;
  if (c->passed)
    text = g_strdup_printf (_("✓ Checked against %s: %s"), c->against, c->summary);
  else
    text = g_strdup_printf (_("✗ Checked against %s: %s"), c->against, c->summary);
  label = new_label (text, c->passed ? "success" : "error");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (self->results_box, label);
  remember (self, "check", label);
  if (checked_output (r) != NULL)
    gtk_box_append (self->results_box,
                    new_label (_("Every element that differs from the reference is red: hover "
                                 "it for the value expected. Cells no thread wrote are "
                                 "orange."), "dim-label"));

  if (r->book_check.present)
    {
      const KsLessonBookCheck *b = &r->book_check;
      g_autoptr (GString) s = g_string_new (NULL);

      g_string_append_printf (s, _("The book’s check, %s, says “%s” on this result"),
                              b->description,
                              b->says_correct_on_result ? _("correct") : _("wrong"));
      g_string_append_printf (s, _(", and “%s” on a deliberately wrong one (%s)."),
                              b->says_correct_on_wrong ? _("correct") : _("wrong"),
                              b->wrong_description);
      if (b->says_correct_on_wrong)
        {
          g_string_append_c (s, ' ');
          g_string_append (s, _("It passes a wrong result: the check is vacuous."));
        }
      if (b->real_check_catches_wrong)
        {
          g_string_append_c (s, ' ');
          g_string_append (s, _("The element-wise comparison catches the wrong one."));
        }
      label = new_label (s->str, b->says_correct_on_wrong ? "ks-error-box" : NULL);
      gtk_box_append (self->results_box, label);
      remember (self, "book-check", label);
    }
  if (r->cuda)
    {
      g_autofree char *cmp = NULL;

      if (r->matches_cpu)
        cmp = g_strdup (_("CUDA and the CPU engine’s twin give the same outputs."));
      else
        cmp = g_strdup_printf (_("CUDA and the CPU engine’s twin differ: %s"),
                               r->cpu_difference != NULL ? r->cpu_difference : "");
      gtk_box_append (self->results_box, new_label (cmp, r->matches_cpu ? NULL : "warning"));
    }
}

static void
add_images (KsLessonWindow *self, RunJob *job)
{
  GtkWidget *section, *row;

  if (job->images->len == 0)
    return;
  section = new_section (self->results_box, _("Images"));
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 18);
  for (guint i = 0; i < job->images->len; i++)
    {
      const ImagePixels *p = g_ptr_array_index (job->images, i);
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      GtkWidget *picture = new_picture (p->pixels, p->width, p->height);
      g_autofree char *key = g_strdup_printf ("image:%s", p->name);

      gtk_box_append (GTK_BOX (box), picture);
      gtk_box_append (GTK_BOX (box), new_label (p->name, "monospace"));
      gtk_box_append (GTK_BOX (row), box);
      remember (self, key, picture);
    }
  /* Side by side; a narrow window scrolls them. */
  {
    GtkWidget *scroller = gtk_scrolled_window_new ();

    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                    GTK_POLICY_NEVER);
    gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), row);
    gtk_box_append (GTK_BOX (section), scroller);
  }
}

static GtkWidget *
new_text_view (const char *text, gboolean wrap)
{
  GtkWidget *view = gtk_text_view_new ();

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), wrap ? GTK_WRAP_WORD_CHAR : GTK_WRAP_NONE);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 6);
  return view;
}

/* A text in columns (11-02's two attributes a line) keeps them: it scrolls
 * sideways in its own place instead of wrapping. */
static GtkWidget *
new_unwrapped_text (GtkWidget *view)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  return scroller;
}

static void
add_printf (KsLessonWindow *self, const KsLessonReport *r)
{
  gboolean host = r->lesson->host_only;
  GtkWidget *section, *view, *shown;

  if (r->printf_output == NULL || r->printf_output[0] == '\0')
    return;
  section = new_section (self->results_box, host ? _("What the script prints")
                                                 : _("Device printf"));
  view = new_text_view (r->printf_output, !host);
  shown = host ? new_unwrapped_text (view) : view;
  gtk_widget_add_css_class (shown, "card");
  gtk_box_append (GTK_BOX (section), shown);
  remember (self, "printf", view);
}

static void
add_steps (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section;

  if (r->steps->len == 0)
    return;
  section = new_section (self->results_box, _("Step by step"));
  for (guint i = 0; i < r->steps->len; i++)
    {
      const KsLessonStep *step = g_ptr_array_index (r->steps, i);
      g_autofree char *title = g_strdup_printf (_("Step %u: %s"), i, step->title);
      g_autofree char *key = g_strdup_printf ("step:%u", i);
      KsLessonCells *cells;

      gtk_box_append (GTK_BOX (section), new_label (title, NULL));
      cells = add_cells (self, GTK_BOX (section), step->values, NULL, NULL, NULL, NULL);
      remember (self, key, GTK_WIDGET (cells));
    }
}

static void
add_atomics_and_faults (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section, *label;

  if (r->atomics.counted)
    {
      g_autofree char *global = g_strdup_printf ("%" G_GUINT64_FORMAT, r->atomics.global);
      g_autofree char *shared = g_strdup_printf ("%" G_GUINT64_FORMAT, r->atomics.shared);
      g_autofree char *text = NULL;

      section = new_section (self->results_box, _("Atomic operations"));
      text = g_strdup_printf (_("%s on global memory, %s on shared memory"), global, shared);
      label = new_label (text, "title-4");
      gtk_box_append (GTK_BOX (section), label);
      remember (self, "atomics", label);
      if (r->atomics.how != NULL)
        gtk_box_append (GTK_BOX (section), new_label (r->atomics.how, "dim-label"));
    }
  if (r->n_faults > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, r->n_faults);
      g_autofree char *text = NULL;
      g_autoptr (GString) list = g_string_new (NULL);

      section = new_section (self->results_box, _("Accesses out of range"));
      text = g_strdup_printf (ngettext ("The CPU model refused %s access past an array or a "
                                        "shared table (on a GPU it would have happened):",
                                        "The CPU model refused %s accesses past an array or a "
                                        "shared table (on a GPU they would have happened):",
                                        (gulong) MIN (r->n_faults, G_MAXULONG)),
                              count);
      label = new_label (text, "warning");
      gtk_box_append (GTK_BOX (section), label);
      remember (self, "faults", label);
      for (guint i = 0; i < r->faults->len; i++)
        g_string_append_printf (list, "%s%s", i > 0 ? "\n" : "",
                                (const char *) g_ptr_array_index (r->faults, i));
      if (r->n_faults > r->faults->len)
        {
          g_autofree char *more = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                   r->n_faults - r->faults->len);

          g_string_append_c (list, '\n');
          g_string_append_printf (list, _("… and %s more"), more);
        }
      gtk_box_append (GTK_BOX (section), new_label (list->str, "monospace"));
    }
}

static void
add_notes (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section = NULL;

  /* The sanitizer's findings are shown with the variant, not among the notes. */
  for (guint i = 0; i < r->notes->len; i++)
    {
      const char *note = g_ptr_array_index (r->notes, i);

      if (section == NULL)
        {
          section = new_section (self->results_box, _("What the run shows"));
          remember (self, "notes", section);
        }
      gtk_box_append (GTK_BOX (section), new_label (note, NULL));
    }
}

/* One row of the timing table: what, median, the spread, and a bar to the scale. */
static void
add_timing_row (GtkGrid *grid, int row, const char *what, const char *detail, double ms,
                const KsTiming *t, double scale)
{
  g_autofree char *median = format_ms (ms);
  g_autofree char *spread = NULL;
  GtkWidget *bar = gtk_progress_bar_new ();
  GtkWidget *value = new_label (median, "monospace");
  GtkWidget *name = new_label (what, NULL);

  if (t != NULL && t->n > 0)
    {
      g_autofree char *lo = format_ms (t->min_ms);
      g_autofree char *hi = format_ms (t->max_ms);
      g_autofree char *warm = format_ms (t->warmup_ms);

      if (isfinite (t->warmup_ms))
        spread = g_strdup_printf (_("median of %u, %s – %s; warm-up %s, not counted"), t->n, lo,
                                  hi, warm);
      else
        spread = g_strdup_printf (_("median of %u, %s – %s"), t->n, lo, hi);
    }
  gtk_label_set_xalign (GTK_LABEL (value), 1);
  gtk_widget_set_tooltip_text (name, detail);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (bar),
                                 scale > 0 && isfinite (ms) ? CLAMP (ms / scale, 0, 1) : 0);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (bar, 160, -1);
  gtk_grid_attach (grid, name, 0, row, 1, 1);
  gtk_grid_attach (grid, value, 1, row, 1, 1);
  gtk_grid_attach (grid, bar, 2, row, 1, 1);
  if (spread != NULL)
    gtk_grid_attach (grid, new_label (spread, "dim-label"), 3, row, 1, 1);
}

static double
median_or_nan (const KsTiming *t)
{
  return t->n > 0 ? t->median_ms : NAN;
}

static void
add_timings (KsLessonWindow *self, const KsLessonReport *r)
{
  const KsLessonTimings *t = &r->timings;
  GtkWidget *section = new_section (self->results_box, _("Timings, done right"));
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  double upload = median_or_nan (&t->upload), kernel = median_or_nan (&t->kernel);
  double download = median_or_nan (&t->download), cpu = median_or_nan (&t->cpu_kernel);
  double reference = median_or_nan (&t->reference);
  const double all[6] = { t->compile_ms, upload, kernel, download, cpu, reference };
  double scale = 0, parts = 0;
  int row = 0;
  g_autoptr (GString) why = g_string_new (NULL);
  /* 11-02 runs no kernel: it has no copies or launch to show. */
  gboolean host = r->lesson->host_only;

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (isfinite (all[i]))
      scale = MAX (scale, all[i]);
  if (isfinite (t->book_total_ms))
    scale = MAX (scale, t->book_total_ms);

  gtk_grid_set_column_spacing (grid, 18);
  gtk_grid_set_row_spacing (grid, 6);
  if (isfinite (t->compile_ms))
    add_timing_row (grid, row++, t->compile_cached ? _("Compile (NVRTC, cached)")
                                                   : _("Compile (NVRTC)"),
                    _("Compiling the kernel in the worker process, once"), t->compile_ms, NULL,
                    scale);
  if (!host)
    {
      add_timing_row (grid, row++, _("Upload"),
                      r->cuda ? _("Host to device: the in and in-out arrays")
                              : _("Into the CPU model’s memory: the in and in-out arrays"),
                      upload, &t->upload, scale);
      add_timing_row (grid, row++, r->cuda ? _("Kernel") : _("Kernel (the CPU engine’s twin)"),
                      _("The launch alone, without copies"), kernel, &t->kernel, scale);
      add_timing_row (grid, row++, _("Download"),
                      r->cuda ? _("Device to host: the out and in-out arrays")
                              : _("Out of the CPU model’s memory: the out and in-out arrays"),
                      download, &t->download, scale);
    }
  if (r->cuda && isfinite (cpu))
    add_timing_row (grid, row++, _("CPU engine, same data"),
                    _("The kernel’s C twin on the CPU, block by block and thread by thread"),
                    cpu, &t->cpu_kernel, scale);
  if (!host)
    add_timing_row (grid, row++, _("C reference loop"),
                    _("A plain C loop computing the same result: the fair CPU baseline, not an "
                      "interpreted Python loop"), reference, &t->reference, scale);
  else if (t->reference.n > 0)
    add_timing_row (grid, row++, _("The check’s own query"),
                    _("The devices asked again, by other calls, for the check"), reference,
                    &t->reference, scale);
  if (isfinite (t->book_total_ms))
    {
      GtkWidget *separator = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);

      gtk_grid_attach (grid, separator, 0, row++, 4, 1);
      add_timing_row (grid, row++, _("The book’s way: one span"), t->book_total_covers,
                      t->book_total_ms, NULL, scale);
    }
  gtk_box_append (GTK_BOX (section), GTK_WIDGET (grid));
  remember (self, "timings", GTK_WIDGET (grid));

  /* Why the book's figure differs, with this run's numbers. */
  for (guint i = 1; i < 4; i++)
    if (isfinite (all[i]))
      parts += all[i];
  if (!host && isfinite (t->book_total_ms) && t->book_total_ms > 0)
    {
      g_autofree char *book = format_ms (t->book_total_ms);
      g_autofree char *k = format_ms (kernel);

      g_string_append_printf (why, _("The book times one run as one span, with no warm-up: %s "
                                     "(%s). Of that, the kernel is %s, %.0f %%. "),
                              book, t->book_total_covers, k,
                              isfinite (kernel) ? 100 * kernel / t->book_total_ms : 0.0);
      if (t->book_total_ms > parts)
        {
          g_autofree char *rest = format_ms (t->book_total_ms - parts);

          g_string_append_printf (why, _("%s more than upload, kernel and download measured "
                                         "apart: what only a first run pays (allocation, "
                                         "first-use compilation, cold memory). "), rest);
        }
    }
  if (isfinite (kernel) && isfinite (reference) && reference > 0)
    {
      g_autofree char *k = format_ms (kernel);
      g_autofree char *c = format_ms (reference);

      g_string_append_printf (why, _("Fairly compared, on the same data and both warm: the "
                                     "kernel takes %s and the C loop %s."), k, c);
    }
  if (why->len > 0)
    {
      GtkWidget *label = new_label (why->str, NULL);

      gtk_box_append (GTK_BOX (section), label);
      remember (self, "timing-why", label);
    }
  if (t->method != NULL)
    gtk_box_append (GTK_BOX (section), new_label (t->method, "dim-label"));
}

static void
show_report (KsLessonWindow *self, RunJob *job)
{
  const KsLessonReport *r = job->report;

  clear_results (self);
  if (job->edit_refused)
    {
      GtkWidget *label = new_label (_("Your edit did not run: an edited kernel needs CUDA, and "
                                      "the CPU engine ran the lesson’s own kernel (its C twin). "
                                      "These are that kernel’s results."), "ks-error-box");

      gtk_box_append (self->results_box, label);
      remember (self, "edit-refused", label);
    }
  add_check (self, r);
  add_data (self, job);
  add_images (self, job);
  add_steps (self, r);
  add_printf (self, r);
  add_atomics_and_faults (self, r);
  add_notes (self, r);
  add_timings (self, r);
}

/* ---- running ---------------------------------------------------------------------------------- */

static void start_run (KsLessonWindow *self);

static void
weak_ref_free (GWeakRef *ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GWeakRef, weak_ref_free)

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
      clear_results (self);
      g_clear_pointer (&self->report, ks_lesson_report_free);
      if (job->report != NULL)
        {
          show_report (self, job);
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
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  update_actions (self);
  update_status (self, current && !cancelled && job->error != NULL ? job->error->message
                                                                   : NULL);
}

static void
start_run (KsLessonWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = buffer_text (self);
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
  if (engine != NULL && ks_engine_is_cuda (engine))
    job->worker = g_object_ref (ks_pipeline_get_worker (self->pipeline));
  if (g_strcmp0 (text, self->pristine) != 0)
    {
      if (job->worker != NULL)
        job->source = g_steal_pointer (&text);
      else
        job->edit_refused = TRUE;
    }
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
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  update_actions (self);
  update_status (self, NULL);
}

static void
request_run (KsLessonWindow *self)
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
      update_status (self, NULL);
      return;
    }
  start_run (self);
}

/* What Cancel (and Esc) does: the run in flight stops at its next repeat,
 * stage or block, nothing waits behind it, and the results shown stay. */
static void
cancel_run (KsLessonWindow *self)
{
  if (self->job == NULL || self->cancelling)
    return;
  self->cancelling = TRUE;
  self->pending = FALSE;
  g_cancellable_cancel (self->cancellable);
  update_actions (self);
  update_status (self, NULL);
}

/* ---- compute-sanitizer -------------------------------------------------------------------- */

typedef struct
{
  /* read-only once queued */
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  KsEngine *engine;
  char *source;              /* the edited kernel, or NULL */
  KsDim3 grid;
  KsDim3 block;

  /* written by the runner, read once the task returned */
  KsLessonSanitizerReport *report;
  GError *error;
} SanitizeJob;

static void
sanitize_job_free (gpointer data)
{
  SanitizeJob *job = data;

  g_clear_object (&job->engine);
  g_free (job->source);
  g_clear_pointer (&job->report, ks_lesson_sanitizer_report_free);
  g_clear_error (&job->error);
  g_free (job);
}

/* On the runner, like a run: the lesson's data and copies go through the
 * engine. The tool's own worker process does the kernel. */
static void
sanitize_thread (GTask *task, gpointer source_object, gpointer task_data,
                 GCancellable *cancellable)
{
  SanitizeJob *job = task_data;
  KsLessonOptions options;

  ks_lesson_options_init (&options);
  options.source = job->source;
  options.grid = job->grid;
  options.block = job->block;
  options.cancellable = cancellable;
  ks_lesson_sanitize (job->lesson, job->variant, job->engine, &options, &job->report,
                      &job->error);
  g_task_return_boolean (task, TRUE);
}

/* Appends a sentence, with its full stop where the text has none (an
 * error's message often ends without one). */
static void
append_sentence (GString *s, const char *sentence)
{
  gsize n = strlen (sentence);

  if (n == 0)
    return;
  if (s->len > 0)
    g_string_append_c (s, ' ');
  g_string_append (s, sentence);
  if (strchr (".!?", sentence[n - 1]) == NULL && !g_str_has_suffix (sentence, "…"))
    g_string_append_c (s, '.');
}

/* Why compute-sanitizer cannot run here, in sentences; NULL when it can. */
static char *
sanitizer_unavailable (KsLessonWindow *self)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *why_not = NULL;

  if (!engine_is_cuda (self))
    {
      const char *reason = ks_pipeline_get_cpu_reason (self->pipeline);

      append_sentence (s, _("compute-sanitizer checks the kernel on an NVIDIA GPU with CUDA, "
                            "and the lessons run on the CPU engine here."));
      if (reason != NULL)
        append_sentence (s, reason);
    }
  if (!ks_lesson_find_sanitizer (NULL, &why_not))
    append_sentence (s, why_not != NULL ? why_not : _("compute-sanitizer was not found."));
  return s->len > 0 ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

/* The button, its tooltip and the line under it, from what the machine has. */
static void
update_sanitizer (KsLessonWindow *self)
{
  const KsLessonVariant *v = self->variant;
  gboolean running = self->sanitize_cancellable != NULL;
  g_autofree char *why_not = NULL;
  g_autofree char *tip = NULL;

  gtk_widget_set_visible (self->sanitizer_box, v != NULL && v->sanitizer != NULL);
  if (v == NULL || v->sanitizer == NULL)
    {
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.sanitize", FALSE);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.cancel-sanitize", FALSE);
      return;
    }
  why_not = sanitizer_unavailable (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.sanitize",
                                 why_not == NULL && !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.cancel-sanitize", running);
  gtk_spinner_set_spinning (self->sanitize_spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->sanitize_spinner), running);
  gtk_widget_set_visible (GTK_WIDGET (self->sanitize_cancel_button), running);
  if (why_not != NULL)
    {
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->sanitize_button), why_not);
      gtk_label_set_label (self->sanitize_status_label, why_not);
      return;
    }
  tip = g_strdup_printf (_("Runs this variant once under compute-sanitizer’s %s, in a worker "
                           "process of its own: seconds to minutes"),
                         ks_lesson_get_sanitizer_tool (self->lesson, v));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->sanitize_button), tip);
  if (running)
    {
      g_autofree char *text = g_strdup_printf (_("Running %s under compute-sanitizer’s %s…"),
                                               self->lesson->id,
                                               ks_lesson_get_sanitizer_tool (self->lesson, v));

      gtk_label_set_label (self->sanitize_status_label, text);
    }
  else
    gtk_label_set_label (self->sanitize_status_label,
                         self->sanitize_message != NULL ? self->sanitize_message : "");
}

static void
clear_sanitizer_results (KsLessonWindow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sanitize_results_box))) != NULL)
    gtk_box_remove (self->sanitize_results_box, child);
}

/* What the tool counted and said: the count, the findings, how the run
 * ended, the command, and the whole log folded. */
static void
show_sanitizer_report (KsLessonWindow *self, const KsLessonSanitizerReport *r)
{
  GtkBox *box = self->sanitize_results_box;
  g_autofree char *count = NULL;
  GtkWidget *label, *expander, *scroller;

  clear_sanitizer_results (self);
  if (r->errors < 0)
    count = g_strdup_printf (_("%s printed no summary: see its output"), r->tool);
  else
    {
      g_autofree char *n = g_strdup_printf ("%" G_GINT64_FORMAT, r->errors);

      /* TRANSLATORS: "memcheck: 2 errors" — compute-sanitizer's tool and its count. */
      count = g_strdup_printf (ngettext ("%s: %s error", "%s: %s errors",
                                         (gulong) MIN (r->errors, (gint64) G_MAXULONG)),
                               r->tool, n);
      if (r->warnings > 0)
        {
          g_autofree char *w = g_strdup_printf ("%" G_GINT64_FORMAT, r->warnings);
          g_autofree char *more = g_strdup_printf (ngettext (", %s warning", ", %s warnings",
                                                             (gulong) MIN (r->warnings,
                                                                           (gint64) G_MAXULONG)),
                                                   w);
          char *both = g_strconcat (count, more, NULL);

          g_free (count);
          count = both;
        }
    }
  label = new_label (count, r->errors > 0 ? "error" : r->errors == 0 ? "success" : "warning");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (box, label);
  if (r->summary != NULL)
    gtk_box_append (box, new_label (r->summary, NULL));
  for (guint i = 0; i < r->findings->len; i++)
    gtk_box_append (box, new_label (g_ptr_array_index (r->findings, i), "monospace"));
  if (r->run_error != NULL)
    {
      g_autofree char *ended = g_strdup_printf (_("How the run ended under the tool: %s"),
                                                r->run_error);

      gtk_box_append (box, new_label (ended, "warning"));
    }
  if (r->command_line != NULL)
    {
      label = new_label (r->command_line, "monospace");
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (box, label);
    }
  expander = gtk_expander_new_with_mnemonic (_("The tool’s whole _output"));
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 120);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 420);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller),
                                 new_text_view (r->output != NULL ? r->output : "", FALSE));
  gtk_widget_add_css_class (scroller, "card");
  gtk_expander_set_child (GTK_EXPANDER (expander), scroller);
  gtk_box_append (box, expander);
  if (r->output != NULL && r->output_length > strlen (r->output))
    {
      g_autofree char *kept = g_strdup_printf ("%" G_GSIZE_FORMAT, strlen (r->output));
      g_autofree char *all = g_strdup_printf ("%" G_GSIZE_FORMAT, r->output_length);
      g_autofree char *text = g_strdup_printf (_("The first %s bytes of %s are kept."), kept,
                                               all);

      gtk_box_append (box, new_label (text, "dim-label"));
    }
}

static void
on_sanitize_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GWeakRef) ref = user_data;
  g_autoptr (KsLessonWindow) self = g_weak_ref_get (ref);
  SanitizeJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error) && job->error == NULL)
    job->error = g_steal_pointer (&error);
  /* A variant left meanwhile cancelled it, and a newer run may be in flight. */
  if (self == NULL || self->closed
      || g_task_get_cancellable (G_TASK (result)) != self->sanitize_cancellable)
    return;
  g_clear_object (&self->sanitize_cancellable);
  g_clear_pointer (&self->sanitize_message, g_free);
  if (job->report != NULL)
    show_sanitizer_report (self, job->report);
  else if (g_error_matches (job->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    self->sanitize_message = g_strdup (_("Cancelled."));
  else
    self->sanitize_message = g_strdup_printf (_("compute-sanitizer could not run: %s"),
                                              job->error != NULL ? job->error->message : "");
  update_sanitizer (self);
}

static void
start_sanitize (KsLessonWindow *self)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = NULL;
  SanitizeJob *job;
  GWeakRef *ref;

  if (self->variant == NULL || self->variant->sanitizer == NULL
      || self->sanitize_cancellable != NULL || !engine_is_cuda (self))
    return;
  text = buffer_text (self);
  job = g_new0 (SanitizeJob, 1);
  job->lesson = self->lesson;
  job->variant = self->variant;
  job->engine = g_object_ref (ks_pipeline_get_engine (self->pipeline));
  job->grid = self->grid;
  job->block = self->block;
  if (g_strcmp0 (text, self->pristine) != 0)
    job->source = g_steal_pointer (&text);
  g_clear_pointer (&self->sanitize_message, g_free);
  self->sanitize_cancellable = g_cancellable_new ();
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  task = g_task_new (NULL, self->sanitize_cancellable, on_sanitize_done_cb, ref);
  g_task_set_task_data (task, job, sanitize_job_free);
  ks_runner_queue (ks_pipeline_get_runner (self->pipeline), task, sanitize_thread);
  update_sanitizer (self);
}

static void
cancel_sanitize (KsLessonWindow *self)
{
  if (self->sanitize_cancellable != NULL)
    g_cancellable_cancel (self->sanitize_cancellable);
}

/* A variant left (or the window closed) takes its sanitizer run with it. */
static void
drop_sanitizer (KsLessonWindow *self)
{
  cancel_sanitize (self);
  g_clear_object (&self->sanitize_cancellable);
  g_clear_pointer (&self->sanitize_message, g_free);
  clear_sanitizer_results (self);
}

/* ---- the live camera ------------------------------------------------------------------------ */

/* The main window: the one the lessons were opened from, which made this
 * window its transient (ui/window/ks-window-lessons.c); it has the camera. */
static GtkWindow *
main_window (KsLessonWindow *self)
{
  return gtk_window_get_transient_for (GTK_WINDOW (self));
}

/* The button says whether there is a camera, as the main window's menu does. */
static void
update_live (KsLessonWindow *self)
{
  const KsLesson *l = self->lesson;
  g_autofree char *tip = NULL;
  char block[48];

  gtk_widget_set_visible (GTK_WIDGET (self->live_button), l != NULL && l->live_op != NULL);
  if (l == NULL || l->live_op == NULL)
    {
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.live-camera", FALSE);
      return;
    }
  ks_dim3_format (&l->live_block, block, sizeof block);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.live-camera",
                                 main_window (self) != NULL);
  if (self->probed && self->camera == NULL)
    {
      /* Still a button: a camera plugged in since is found, and the main
       * window says what was looked for. */
      gtk_button_set_label (self->live_button, _("No Camera Found"));
      tip = g_strdup (_("No camera was found. Click to look again: a camera found opens in "
                        "the main window"));
    }
  else
    {
      gtk_button_set_label (self->live_button, _("Run on the _Live Camera"));
      if (self->camera != NULL)
        tip = g_strdup_printf (_("Opens %s in the main window, running the op “%s” with "
                                 "blocks of %s, as this lesson’s kernel does"),
                               self->camera, l->live_op, block);
      else
        tip = g_strdup_printf (_("Opens the camera in the main window, running the op “%s” "
                                 "with blocks of %s, as this lesson’s kernel does"),
                               l->live_op, block);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->live_button),
                               main_window (self) != NULL
                                 ? tip
                                 : _("The camera opens in the main window, and this window "
                                     "belongs to none"));
}

static void
on_probed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GWeakRef) ref = user_data;
  g_autoptr (KsLessonWindow) self = g_weak_ref_get (ref);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = ks_camera_probe_finish (result, &error);

  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->probe);
  if (names == NULL)
    g_debug ("camera probe: %s", error->message);
  self->probed = TRUE;
  g_free (self->camera);
  self->camera = names != NULL && names[0] != NULL ? g_strdup (names[0]) : NULL;
  update_live (self);
}

static void
probe_camera (KsLessonWindow *self)
{
  GWeakRef *ref;

  if (self->probe != NULL)
    return;
  self->probe = g_cancellable_new ();
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  ks_camera_probe_async (self->probe, on_probed_cb, ref);
}

/* The lesson's op on the main window's pipeline, launched as the lesson's
 * kernel is (its block, a grid covering the frame, a pixel a thread; the
 * book's variant truncates as astype(uint8) does), and the camera as its
 * input. */
static void
live_camera_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (widget);
  GtkWindow *window = main_window (self);
  const KsOp *op;
  KsLaunchConfig launch;
  guint truncate;

  if (window == NULL || self->lesson == NULL || self->lesson->live_op == NULL)
    return;
  op = ks_op_registry_lookup (self->lesson->live_op);
  if (op == NULL)
    {
      g_warning ("lesson %s: no op “%s”", self->lesson->id, self->lesson->live_op);
      return;
    }
  ks_pipeline_set_op (self->pipeline, op);
  if (ks_op_lookup_param (op, "truncate", &truncate) != NULL)
    ks_pipeline_set_param (self->pipeline, truncate, self->variant->book ? 1 : 0);
  launch = *ks_pipeline_get_launch (self->pipeline);
  launch.block = self->lesson->live_block;
  launch.auto_grid = TRUE;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  launch.pixels_per_thread = 1;
  ks_pipeline_set_launch (self->pipeline, &launch);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-camera", "s", "");
  gtk_window_present (window);
  /* Whether it found one shows in the main window; the button follows the
   * next probe. */
  probe_camera (self);
}

/* ---- lessons and variants ---------------------------------------------------------------------- */

static void
load_source (KsLessonWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *source = ks_lesson_get_source (self->lesson, self->variant, &error);

  g_free (self->pristine);
  self->pristine = source != NULL ? g_strdup (source) : g_strdup ("");
  self->loading = TRUE;
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), self->pristine, -1);
  self->loading = FALSE;
  if (error != NULL)
    update_status (self, error->message);
  gtk_label_set_label (self->source_name_label, self->variant->source_name);
  /* 11-02's source is the host's code: read, not run. */
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->source_view), !self->lesson->host_only);
  gtk_label_set_label (self->source_heading,
                       self->lesson->host_only ? _("Host code") : _("Kernel"));
  update_edit_label (self);
}

static void
show_variant (KsLessonWindow *self)
{
  const KsLessonVariant *v = self->variant;
  g_autofree char *defects = describe_defects (v->defects);

  gtk_label_set_label (self->variant_label, v->description);
  gtk_label_set_label (self->defects_label, defects);
  gtk_widget_set_visible (GTK_WIDGET (self->defects_label), defects[0] != '\0');
  if (v->sanitizer != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("This defect shows only under a sanitizer on "
                                                 "CUDA. compute-sanitizer reports: %s."),
                                               v->sanitizer);

      gtk_label_set_label (self->sanitizer_label, text);
    }
  drop_sanitizer (self);
  update_sanitizer (self);
  load_source (self);
  /* Another lesson or variant starts from its own launch. */
  self->grid = self->block = (KsDim3) { 0, 0, 0 };
  update_launch (self);
  self->generation++;
  self->cancelled = FALSE;
  clear_results (self);
  g_clear_pointer (&self->report, ks_lesson_report_free);
  update_actions (self);
  request_run (self);
  update_status (self, NULL);
}

static void
set_variant (KsLessonWindow *self, const KsLessonVariant *variant)
{
  if (variant == self->variant)
    return;
  self->variant = variant;
  show_variant (self);
}

static void
on_variant_toggled_cb (GtkToggleButton *button, KsLessonWindow *self)
{
  if (self->syncing || !gtk_toggle_button_get_active (button))
    return;
  set_variant (self, g_object_get_data (G_OBJECT (button), "ks-variant"));
}

static void
on_variant_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, KsLessonWindow *self)
{
  guint selected = gtk_drop_down_get_selected (dropdown);

  if (self->syncing || self->lesson == NULL || selected >= self->lesson->n_variants)
    return;
  set_variant (self, &self->lesson->variants[selected]);
}

/* Two variants are a switch (Fixed / As in the book); more are a dropdown. */
static void
build_variant_controls (KsLessonWindow *self)
{
  const KsLesson *l = self->lesson;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->variant_box))) != NULL)
    gtk_box_remove (self->variant_box, child);
  self->syncing = TRUE;
  if (l->n_variants == 1)
    gtk_box_append (self->variant_box,
                    new_label (_("Fixed: the book’s example has no defect to show here"),
                               "dim-label"));
  else if (l->n_variants == 2)
    {
      GtkWidget *first = NULL;

      for (guint i = 0; i < 2; i++)
        {
          GtkWidget *button = gtk_toggle_button_new_with_label (l->variants[i].title);

          g_object_set_data (G_OBJECT (button), "ks-variant", (gpointer) &l->variants[i]);
          gtk_widget_set_name (button, l->variants[i].id);
          if (first != NULL)
            gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), GTK_TOGGLE_BUTTON (first));
          else
            first = button;
          gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button),
                                        &l->variants[i] == self->variant);
          g_signal_connect_object (button, "toggled", G_CALLBACK (on_variant_toggled_cb), self,
                                   G_CONNECT_DEFAULT);
          gtk_box_append (self->variant_box, button);
        }
    }
  else
    {
      GtkStringList *titles = gtk_string_list_new (NULL);
      GtkWidget *dropdown;

      for (guint i = 0; i < l->n_variants; i++)
        gtk_string_list_append (titles, l->variants[i].title);
      dropdown = gtk_drop_down_new (G_LIST_MODEL (titles), NULL);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown),
                                  (guint) (self->variant - l->variants));
      g_signal_connect_object (dropdown, "notify::selected",
                               G_CALLBACK (on_variant_selected_cb), self, G_CONNECT_DEFAULT);
      gtk_box_append (self->variant_box, dropdown);
    }
  self->syncing = FALSE;
}

static void
sync_variant_controls (KsLessonWindow *self)
{
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->variant_box));

  self->syncing = TRUE;
  for (; child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_TOGGLE_BUTTON (child))
        gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (child),
                                      g_object_get_data (G_OBJECT (child), "ks-variant")
                                        == self->variant);
      else if (GTK_IS_DROP_DOWN (child))
        gtk_drop_down_set_selected (GTK_DROP_DOWN (child),
                                    (guint) (self->variant - self->lesson->variants));
    }
  self->syncing = FALSE;
}

static void
show_lesson (KsLessonWindow *self, const KsLesson *lesson)
{
  g_autofree char *script = NULL;
  g_autofree char *subtitle = NULL;

  self->lesson = lesson;
  self->variant = &lesson->variants[0];
  subtitle = g_strdup_printf ("%s · %s", lesson->id, lesson->title);
  adw_window_title_set_subtitle (self->window_title, subtitle);
  gtk_label_set_label (self->title_label, lesson->title);
  script = g_strdup_printf (_("Lesson %s, from the tutorial’s %s"), lesson->id, lesson->script);
  gtk_label_set_label (self->script_label, script);
  gtk_label_set_label (self->explanation_label, lesson->explanation);
  build_variant_controls (self);
  if (lesson->live_op != NULL && !self->probed)
    probe_camera (self);
  update_live (self);
  show_variant (self);
}

static void
on_lesson_selected_cb (GtkListBox *box, GtkListBoxRow *row, KsLessonWindow *self)
{
  const KsLesson *lesson;

  if (row == NULL)
    return;
  lesson = g_object_get_data (G_OBJECT (row), "ks-lesson");
  if (lesson != NULL && lesson != self->lesson)
    show_lesson (self, lesson);
}

static void
header_func (GtkListBoxRow *row, GtkListBoxRow *before, gpointer user_data)
{
  const KsLesson *lesson = g_object_get_data (G_OBJECT (row), "ks-lesson");
  const KsLesson *previous = before != NULL ? g_object_get_data (G_OBJECT (before), "ks-lesson")
                                            : NULL;
  GtkWidget *header;

  if (previous != NULL && strncmp (previous->id, lesson->id, 2) == 0)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  header = new_label (g_str_has_prefix (lesson->id, "11")
                        ? _("Chapter 11: PyCUDA basics")
                        : _("Chapter 12: image processing"),
                      "heading");
  gtk_label_set_selectable (GTK_LABEL (header), FALSE);
  gtk_widget_set_margin_top (header, before != NULL ? 12 : 6);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_widget_set_margin_start (header, 12);
  gtk_list_box_row_set_header (row, header);
}

static void
fill_sidebar (KsLessonWindow *self)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  gtk_list_box_set_header_func (self->lesson_list, header_func, NULL, NULL);
  for (guint i = 0; i < n; i++)
    {
      const KsLesson *l = lessons[i];
      GtkWidget *row = gtk_list_box_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (l->title);
      g_autoptr (GString) sub = g_string_new (l->id);

      for (guint k = 0; k < l->n_variants; k++)
        if (l->variants[k].defects[0] != '\0')
          g_string_append_printf (sub, " · %s", l->variants[k].defects);
      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_wrap (GTK_LABEL (title), TRUE);
      gtk_box_append (GTK_BOX (box), title);
      gtk_box_append (GTK_BOX (box), new_label (sub->str, "dim-label"));
      gtk_label_set_selectable (GTK_LABEL (gtk_widget_get_last_child (box)), FALSE);
      gtk_widget_add_css_class (gtk_widget_get_last_child (box), "caption");
      gtk_widget_set_margin_top (box, 4);
      gtk_widget_set_margin_bottom (box, 4);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data (G_OBJECT (row), "ks-lesson", (gpointer) l);
      gtk_widget_set_name (row, l->id);
      gtk_list_box_append (self->lesson_list, row);
    }
}

/* ---- editor, presenter mode, engine -------------------------------------------------------- */

static void
on_buffer_changed_cb (GtkTextBuffer *buffer, KsLessonWindow *self)
{
  if (self->loading)
    return;
  update_edit_label (self);
  update_actions (self);
}

/* The teacher's projector: large type while the main window is in presenter mode. */
static void
on_parent_classes_cb (GtkWidget *parent, GParamSpec *pspec, KsLessonWindow *self)
{
  if (gtk_widget_has_css_class (parent, "ks-presenter"))
    gtk_widget_add_css_class (GTK_WIDGET (self), "ks-presenter");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "ks-presenter");
  for (guint i = 0; i < self->heat_pictures->len; i++)
    size_heat_picture (self, g_ptr_array_index (self->heat_pictures, i));
}

static void
on_engine_changed_cb (KsPipeline *pipeline, GParamSpec *pspec, KsLessonWindow *self)
{
  update_edit_label (self);
  update_status (self, NULL);
  update_sanitizer (self);
}

static void
on_owners_toggled_cb (GtkToggleButton *button, KsLessonWindow *self)
{
  gboolean show = gtk_toggle_button_get_active (button);

  for (guint i = 0; i < self->cells->len; i++)
    ks_lesson_cells_set_show_owners (g_ptr_array_index (self->cells, i), show);
}

static void
run_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_lesson_window_run (KS_LESSON_WINDOW (widget));
}

static void
reset_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_lesson_window_reset_source (KS_LESSON_WINDOW (widget));
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_lesson_window_cancel (KS_LESSON_WINDOW (widget));
}

static void
sanitize_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  start_sanitize (KS_LESSON_WINDOW (widget));
}

static void
cancel_sanitize_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  cancel_sanitize (KS_LESSON_WINDOW (widget));
}

/* Esc stops a run in flight, else compute-sanitizer's; with neither, it
 * closes the window as before. (Presenter mode's Esc belongs to the main
 * window, not to this one.) */
static gboolean
escape_cb (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (widget);

  if (self->job != NULL)
    cancel_run (self);
  else if (self->sanitize_cancellable != NULL)
    cancel_sanitize (self);
  else
    gtk_window_close (GTK_WINDOW (self));
  return TRUE;
}

/* ---- GObject ----------------------------------------------------------------------------------- */

static void
ks_lesson_window_constructed (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);
  GtkWindow *parent;
  GtkListBoxRow *first;

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->constructed (object);
  g_return_if_fail (KS_IS_PIPELINE (self->pipeline));
  g_signal_connect_object (self->pipeline, "notify::engine", G_CALLBACK (on_engine_changed_cb),
                           self, G_CONNECT_DEFAULT);
  parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  if (parent != NULL)
    {
      g_signal_connect_object (parent, "notify::css-classes", G_CALLBACK (on_parent_classes_cb),
                               self, G_CONNECT_DEFAULT);
      on_parent_classes_cb (GTK_WIDGET (parent), NULL, self);
    }
  fill_sidebar (self);
  first = gtk_list_box_get_row_at_index (self->lesson_list, 0);
  if (first != NULL)
    gtk_list_box_select_row (self->lesson_list, first);
  update_actions (self);
}

static void
ks_lesson_window_dispose (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  /* A run in flight stops at its next repeat, stage or block; its callback
   * finds the window gone. */
  self->closed = TRUE;
  self->job = NULL;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  cancel_sanitize (self);
  g_clear_object (&self->sanitize_cancellable);
  if (self->probe != NULL)
    g_cancellable_cancel (self->probe);
  g_clear_object (&self->probe);
  g_clear_object (&self->pipeline);
  g_clear_object (&self->buffer);
  if (self->result_widgets != NULL)
    g_hash_table_remove_all (self->result_widgets);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
  if (self->heat_pictures != NULL)
    g_ptr_array_set_size (self->heat_pictures, 0);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_LESSON_WINDOW);

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->dispose (object);
}

static void
ks_lesson_window_finalize (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  g_clear_pointer (&self->report, ks_lesson_report_free);
  g_free (self->pristine);
  g_free (self->camera);
  g_free (self->sanitize_message);
  g_hash_table_unref (self->result_widgets);
  g_ptr_array_unref (self->cells);
  g_ptr_array_unref (self->heat_pictures);

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->finalize (object);
}

static void
ks_lesson_window_get_property (GObject *object, guint prop_id, GValue *value,
                               GParamSpec *pspec)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, ks_lesson_window_get_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_lesson_window_set_property (GObject *object, guint prop_id, const GValue *value,
                               GParamSpec *pspec)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      self->pipeline = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_lesson_window_class_init (KsLessonWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ks_lesson_window_constructed;
  object_class->dispose = ks_lesson_window_dispose;
  object_class->finalize = ks_lesson_window_finalize;
  object_class->get_property = ks_lesson_window_get_property;
  object_class->set_property = ks_lesson_window_set_property;

  properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Languages and style schemes; a second call does nothing. */
  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kernelscope/Kernelscope/ui/"
                                               "ks-lesson-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, lesson_list);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, content_scroller);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, script_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, variant_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, variant_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, defects_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitizer_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitizer_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_spinner);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_status_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_results_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, live_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, source_heading);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, source_name_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, reset_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, source_view);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, edit_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, launch_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, owners_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, results_box);
  gtk_widget_class_bind_template_callback (widget_class, on_lesson_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_owners_toggled_cb);

  gtk_widget_class_install_action (widget_class, "lesson.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "lesson.reset", NULL, reset_action);
  gtk_widget_class_install_action (widget_class, "lesson.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "lesson.sanitize", NULL, sanitize_action);
  gtk_widget_class_install_action (widget_class, "lesson.cancel-sanitize", NULL,
                                   cancel_sanitize_action);
  gtk_widget_class_install_action (widget_class, "lesson.live-camera", NULL,
                                   live_camera_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "lesson.run", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "lesson.run",
                                       NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Escape, 0, escape_cb, NULL);
}

static void
ks_lesson_window_init (KsLessonWindow *self)
{
  self->result_widgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cells = g_ptr_array_new ();
  self->heat_pictures = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  build_launch_row (self);

  self->buffer = g_object_ref (GTK_SOURCE_BUFFER (
    gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view))));
  ks_ui_source_buffer_init_cuda (self->buffer);
  g_signal_connect_object (self->buffer, "changed", G_CALLBACK (on_buffer_changed_cb), self,
                           G_CONNECT_DEFAULT);
}

/* ---- public ----------------------------------------------------------------------------------- */

GtkWidget *
ks_lesson_window_new (GtkWindow *parent, KsPipeline *pipeline)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (KS_IS_PIPELINE (pipeline), NULL);
  return g_object_new (KS_TYPE_LESSON_WINDOW, "transient-for", parent, "pipeline", pipeline,
                       NULL);
}

KsPipeline *
ks_lesson_window_get_pipeline (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->pipeline;
}

gboolean
ks_lesson_window_select (KsLessonWindow *self, const char *name)
{
  const KsLesson *lesson;
  GtkListBoxRow *row;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  lesson = ks_lesson_lookup (name);
  if (lesson == NULL)
    return FALSE;
  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->lesson_list, i)) != NULL; i++)
    if (g_object_get_data (G_OBJECT (row), "ks-lesson") == lesson)
      {
        gtk_list_box_select_row (self->lesson_list, row);
        break;
      }
  /* Selecting the lesson shown goes back to its fixed variant. */
  if (self->lesson == lesson && self->variant != &lesson->variants[0])
    {
      self->variant = &lesson->variants[0];
      sync_variant_controls (self);
      show_variant (self);
    }
  return self->lesson == lesson;
}

const KsLesson *
ks_lesson_window_get_lesson (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->lesson;
}

gboolean
ks_lesson_window_select_variant (KsLessonWindow *self, const char *id)
{
  const KsLessonVariant *variant;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  if (self->lesson == NULL)
    return FALSE;
  variant = ks_lesson_lookup_variant (self->lesson, id);
  if (variant == NULL)
    return FALSE;
  if (variant != self->variant)
    {
      self->variant = variant;
      sync_variant_controls (self);
      show_variant (self);
    }
  return TRUE;
}

const KsLessonVariant *
ks_lesson_window_get_variant (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->variant;
}

void
ks_lesson_window_run (KsLessonWindow *self)
{
  g_return_if_fail (KS_IS_LESSON_WINDOW (self));
  request_run (self);
}

void
ks_lesson_window_cancel (KsLessonWindow *self)
{
  g_return_if_fail (KS_IS_LESSON_WINDOW (self));
  cancel_run (self);
}

gboolean
ks_lesson_window_get_running (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  return self->job != NULL;
}

const KsLessonReport *
ks_lesson_window_get_report (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->report;
}

guint
ks_lesson_window_get_n_runs (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), 0);
  return self->n_runs;
}

GtkSourceBuffer *
ks_lesson_window_get_buffer (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->buffer;
}

gboolean
ks_lesson_window_get_edited (KsLessonWindow *self)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  if (self->pristine == NULL || self->buffer == NULL)
    return FALSE;
  text = buffer_text (self);
  return g_strcmp0 (text, self->pristine) != 0;
}

void
ks_lesson_window_reset_source (KsLessonWindow *self)
{
  g_return_if_fail (KS_IS_LESSON_WINDOW (self));
  if (self->lesson == NULL)
    return;
  self->loading = TRUE;
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), self->pristine, -1);
  self->loading = FALSE;
  update_edit_label (self);
  update_actions (self);
}

GtkWidget *
ks_lesson_window_get_result_widget (KsLessonWindow *self, const char *key)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return g_hash_table_lookup (self->result_widgets, key);
}

char *
ks_lesson_window_describe_heatmap (KsLessonWindow *self, const char *key, double x, double y)
{
  GtkWidget *picture;
  HeatView *hv;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  picture = g_hash_table_lookup (self->result_widgets, key);
  hv = picture != NULL ? g_object_get_data (G_OBJECT (picture), "ks-heat-view") : NULL;
  return hv != NULL ? heat_view_describe (hv, picture, x, y) : NULL;
}
