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

#include "ks-lesson-cells.h"
#include "ks-lesson-window.h"
#include "ks-ui-util.h"

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
 * of `per` elements, on a scale from lo to hi. */
typedef struct
{
  char *key;                 /* "input:a", "output:result" */
  GBytes *pixels;
  int width;
  int height;
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
  guint generation;

  /* written by the runner, read once the task returned */
  KsLessonReport *report;
  GError *error;
  GPtrArray *heatmaps;       /* Heatmap */
  GPtrArray *images;         /* ImagePixels */
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

static Heatmap *
make_heatmap (const char *key, const KsArray *a)
{
  gsize cols = a->cols > 0 ? a->cols : (gsize) ceil (sqrt ((double) a->length));
  gsize rows = (a->length + cols - 1) / cols;
  gsize f = 1, w, h;
  g_autofree double *sums = NULL;
  g_autofree guint *counts = NULL;
  guint8 *pixels;
  double lo = INFINITY, hi = -INFINITY;
  Heatmap *heat;

  while ((cols + f - 1) / f > HEATMAP_SIDE || (rows + f - 1) / f > HEATMAP_SIDE)
    f++;
  w = (cols + f - 1) / f;
  h = (rows + f - 1) / f;
  sums = g_new0 (double, w * h);
  counts = g_new0 (guint, w * h);
  for (gsize i = 0; i < a->length; i++)
    {
      double v = ks_array_get_double (a, i);
      gsize cell = (i / cols / f) * w + (i % cols) / f;

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
  heat->width = (int) w;
  heat->height = (int) h;
  heat->per = f * f;
  heat->lo = lo;
  heat->hi = hi;
  return heat;
}

static void
add_heatmaps (GPtrArray *heatmaps, const GPtrArray *arrays, const char *prefix)
{
  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);
      g_autofree char *key = NULL;

      if (!is_large (la->array))
        continue;
      key = g_strdup_printf ("%s:%s", prefix, la->name);
      g_ptr_array_add (heatmaps, make_heatmap (key, la->array));
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
  ks_lesson_run (job->lesson, job->variant, job->engine, job->worker, &options, &job->report,
                 &job->error);
  job->heatmaps = g_ptr_array_new_with_free_func (heatmap_free);
  job->images = g_ptr_array_new_with_free_func (image_pixels_free);
  if (job->report != NULL)
    {
      add_heatmaps (job->heatmaps, job->report->inputs, "input");
      add_heatmaps (job->heatmaps, job->report->outputs, "output");
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
  GtkListBox *lesson_list;
  GtkScrolledWindow *content_scroller;
  GtkLabel *title_label;
  GtkLabel *script_label;
  GtkLabel *explanation_label;
  GtkBox *variant_box;
  GtkLabel *variant_label;
  GtkLabel *defects_label;
  GtkLabel *sanitizer_label;
  GtkLabel *source_name_label;
  GtkButton *reset_button;
  GtkSourceView *source_view;
  GtkLabel *edit_label;
  GtkLabel *launch_label;
  GtkEntry *grid_entry;
  GtkEntry *block_entry;
  GtkWidget *launch_reset;
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

  /* borrowed */
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  RunJob *job;                /* in flight (the task owns it), or NULL */

  guint generation;           /* of the lesson and variant shown */
  guint n_runs;
  gboolean pending;           /* a run was asked for while one was in flight */
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
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), running);
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
  if (edited && !cuda)
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
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);
  g_autofree char *engine_name = NULL;

  if (engine == NULL)
    engine_name = g_strdup (_("no engine"));
  else if (ks_engine_is_cuda (engine))
    engine_name = g_strdup (ks_device_get_name (ks_engine_get_device (engine)));
  else
    engine_name = g_strdup (_("the CPU engine"));

  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  if (self->job != NULL)
    g_string_append_printf (s, _("Running on %s…"), engine_name);
  else if (failure != NULL)
    {
      g_string_append_printf (s, _("The lesson could not run: %s"), failure);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
    }
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
  gtk_box_append (GTK_BOX (row), gtk_label_new (_("Grid")));
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->grid_entry));
  gtk_box_append (GTK_BOX (row), gtk_label_new (_("Block")));
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->block_entry));
  gtk_box_append (GTK_BOX (row), self->launch_reset);
  gtk_box_insert_child_after (GTK_BOX (parent), row, GTK_WIDGET (self->launch_label));
}

/* ---- the result area ------------------------------------------------------------------------ */

static void
clear_results (KsLessonWindow *self)
{
  GtkWidget *child;

  g_hash_table_remove_all (self->result_widgets);
  g_ptr_array_set_size (self->cells, 0);
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
new_picture (GBytes *pixels, int width, int height, int side)
{
  g_autoptr (GdkTexture) texture = gdk_memory_texture_new (width, height,
                                                           GDK_MEMORY_R8G8B8A8, pixels,
                                                           (gsize) width * 4);
  GtkWidget *picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
  int longest = MAX (width, height);

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_halign (picture, GTK_ALIGN_START);
  /* Small heatmaps drawn larger, so that a 100-pixel one is still seen. */
  if (longest < side)
    gtk_widget_set_size_request (picture, width * side / longest, height * side / longest);
  return picture;
}

/* A long array: how long, its ends, its range and a heatmap. */
static void
add_summary (KsLessonWindow *self, GtkBox *box, const KsLessonArray *la, const char *key,
             RunJob *job)
{
  const KsArray *a = la->array;
  const Heatmap *heat = find_heatmap (job, key);
  g_autoptr (GString) ends = g_string_new (NULL);
  g_autofree char *first = NULL;
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;
  g_autofree char *values_key = g_strconcat (key, ":values", NULL);
  g_autofree char *shape = NULL;
  GtkWidget *label;
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
  if (heat != NULL)
    {
      g_autofree char *caption = NULL;

      lo = g_strdup_printf ("%.6g", heat->lo);
      hi = g_strdup_printf ("%.6g", heat->hi);
      if (heat->per > 1)
        caption = g_strdup_printf (_("Each pixel is the mean of %u elements; dark violet is %s, "
                                     "yellow %s"), (guint) heat->per, lo, hi);
      else
        caption = g_strdup_printf (_("One pixel per element; dark violet is %s, yellow %s"), lo,
                                   hi);
      gtk_box_append (box, new_picture (heat->pixels, heat->width, heat->height, 192));
      gtk_box_append (box, new_label (caption, "dim-label"));
    }
}

/* The output the check's first difference is in, as the report names it. */
static const KsLessonArray *
checked_output (const KsLessonReport *r)
{
  const KsLessonCheck *c = &r->check;

  if (c->passed || c->first_difference == G_MAXSIZE || c->output == NULL)
    return NULL;
  return ks_lesson_report_find (r, c->output);
}

static void
add_arrays (KsLessonWindow *self, GtkBox *column, const GPtrArray *arrays, const char *prefix,
            RunJob *job)
{
  const KsLessonReport *r = job->report;
  const KsLessonArray *checked = checked_output (r);

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
      if (is_large (a))
        add_summary (self, GTK_BOX (box), la, key, job);
      else
        {
          KsLessonCells *cells = add_cells (self, GTK_BOX (box), a, la->block_of, la->thread_of,
                                            &r->grid, &r->block);

          if (la == checked)
            ks_lesson_cells_set_marked (cells, r->check.first_difference);
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
  if (!c->passed && checked_output (r) != NULL)
    gtk_box_append (self->results_box,
                    new_label (_("The first differing element is outlined in red; cells no "
                                 "thread wrote are orange."), "dim-label"));

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
      GtkWidget *picture = new_picture (p->pixels, p->width, p->height, 0);
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

static void
add_printf (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section, *view;
  GtkTextBuffer *buffer;

  if (r->printf_output == NULL || r->printf_output[0] == '\0')
    return;
  section = new_section (self->results_box, _("Device printf"));
  view = gtk_text_view_new ();
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  gtk_text_buffer_set_text (buffer, r->printf_output, -1);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_widget_add_css_class (view, "card");
  gtk_box_append (GTK_BOX (section), view);
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
  if (r->cuda && isfinite (cpu))
    add_timing_row (grid, row++, _("CPU engine, same data"),
                    _("The kernel’s C twin on the CPU, block by block and thread by thread"),
                    cpu, &t->cpu_kernel, scale);
  add_timing_row (grid, row++, _("C reference loop"),
                  _("A plain C loop computing the same result: the fair CPU baseline, not an "
                    "interpreted Python loop"), reference, &t->reference, scale);
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
  if (isfinite (t->book_total_ms) && t->book_total_ms > 0)
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
on_run_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsLessonWindow) self = user_data;
  RunJob *job = g_task_get_task_data (G_TASK (result));
  gboolean current;

  if (self->closed)
    return;
  g_assert (job == self->job);
  self->job = NULL;
  current = job->generation == self->generation;
  if (current)
    {
      g_clear_pointer (&self->report, ks_lesson_report_free);
      if (job->report != NULL)
        {
          show_report (self, job);
          self->report = g_steal_pointer (&job->report);
        }
      else
        clear_results (self);
    }
  if (self->pending)
    {
      self->pending = FALSE;
      start_run (self);
    }
  else
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  update_actions (self);
  update_status (self, current && job->error != NULL ? job->error->message : NULL);
}

static void
start_run (KsLessonWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = buffer_text (self);
  gboolean was_running = self->job != NULL;
  RunJob *job;

  g_assert (self->job == NULL);
  job = g_new0 (RunJob, 1);
  job->lesson = self->lesson;
  job->variant = self->variant;
  job->generation = self->generation;
  job->grid = self->grid;
  job->block = self->block;
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
  self->n_runs++;
  /* The task has no source object: the runner may drop its last reference
   * on its own thread, and the window must only be released here. */
  task = g_task_new (NULL, NULL, on_run_done_cb, g_object_ref (self));
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
  /* One run at a time, and at most one waiting: the newest request. */
  if (self->job != NULL)
    {
      self->pending = TRUE;
      update_status (self, NULL);
      return;
    }
  start_run (self);
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
  gtk_widget_set_visible (GTK_WIDGET (self->sanitizer_label), v->sanitizer != NULL);
  load_source (self);
  /* Another lesson or variant starts from its own launch. */
  self->grid = self->block = (KsDim3) { 0, 0, 0 };
  update_launch (self);
  self->generation++;
  g_clear_pointer (&self->report, ks_lesson_report_free);
  clear_results (self);
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
}

static void
on_engine_changed_cb (KsPipeline *pipeline, GParamSpec *pspec, KsLessonWindow *self)
{
  update_edit_label (self);
  update_status (self, NULL);
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

  /* A run in flight ends on the runner (it cannot be stopped); its callback
   * finds the window closed and drops it. */
  self->closed = TRUE;
  self->job = NULL;
  g_clear_object (&self->pipeline);
  g_clear_object (&self->buffer);
  if (self->result_widgets != NULL)
    g_hash_table_remove_all (self->result_widgets);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_LESSON_WINDOW);

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->dispose (object);
}

static void
ks_lesson_window_finalize (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  g_clear_pointer (&self->report, ks_lesson_report_free);
  g_free (self->pristine);
  g_hash_table_unref (self->result_widgets);
  g_ptr_array_unref (self->cells);

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
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, lesson_list);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, content_scroller);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, script_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, variant_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, variant_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, defects_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitizer_label);
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
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "lesson.run", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "lesson.run",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ks_lesson_window_init (KsLessonWindow *self)
{
  self->result_widgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cells = g_ptr_array_new ();
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
