/* ks-sweep-window.c: "Sweep Block Sizes" (see ks-sweep-window.h).
 *
 * Start captures everything the sweep needs on the main thread — the op, a
 * copy of the parameters and the launch, references to the input buffers and
 * the engine — and queues one task on the pipeline's runner, where the
 * engine's work belongs; the worker never reads the pipeline. Points come
 * back through a queue that at most one idle in the main context drains, so
 * a fast sweep does not flood the main loop, and between two shapes the
 * worker runs the newest live run, so a change made meanwhile (a click on a
 * point) still reaches the screen.
 *
 * One piece because every section reads the window's record of the sweep:
 * the running job, its points, the last result and what they measured
 * (measured_op, _params, _launch). The status compares that record with the
 * pipeline to say it has moved on, a click on a point changes the block the
 * comparison leaves out, the pipeline's signals mark the inputs changed, the
 * export writes the last result, and set_state refreshes status, progress
 * and actions together. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "ks-file.h"
#include "ks-json.h"
#include "ks-sweep-window.h"
#include "ks-ui-util.h"

enum
{
  SET_PRESETS,
  SET_POWERS,
  SET_CUSTOM,
};

/* ---- the sweep on the runner ------------------------------------------------------ */

typedef struct
{
  gatomicrefcount ref;

  /* read-only once started */
  KsEngine *engine;
  KsRunner *runner;
  KsRunRequest request;       /* its input buffers are references */
  GArray *blocks;             /* KsDim3 */
  guint repeats;
  GMainContext *context;      /* where progress is shown */

  /* shared with the worker, under lock */
  GMutex lock;
  GArray *arrived;            /* KsSweepPoint copies not shown yet */
  gboolean posted;            /* an idle that drains `arrived` is waiting */

  /* main thread only */
  KsSweepWindow *window;      /* NULL once the window moved on */
} SweepJob;

static void
point_clear (gpointer data)
{
  KsSweepPoint *p = data;

  g_free (p->refused);
  ks_timing_clear (&p->timing);
}

static void
point_copy (const KsSweepPoint *from, KsSweepPoint *to)
{
  *to = *from;
  to->refused = g_strdup (from->refused);
  to->timing.samples_ms = from->timing.n > 0 && from->timing.samples_ms != NULL
                            ? g_memdup2 (from->timing.samples_ms,
                                         from->timing.n * sizeof (double))
                            : NULL;
}

static SweepJob *
sweep_job_ref (SweepJob *job)
{
  g_atomic_ref_count_inc (&job->ref);
  return job;
}

static void
sweep_job_unref (gpointer data)
{
  SweepJob *job = data;

  if (!g_atomic_ref_count_dec (&job->ref))
    return;
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    g_clear_pointer (&job->request.inputs[i], ks_buffer_unref);
  g_clear_object (&job->engine);
  g_clear_object (&job->runner);
  g_clear_pointer (&job->blocks, g_array_unref);
  g_main_context_unref (job->context);
  for (guint i = 0; i < job->arrived->len; i++)
    point_clear (&g_array_index (job->arrived, KsSweepPoint, i));
  g_array_unref (job->arrived);
  g_mutex_clear (&job->lock);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SweepJob, sweep_job_unref)

struct _KsSweepWindow
{
  AdwWindow parent_instance;

  /* template widgets */
  AdwToastOverlay *toast_overlay;
  AdwWindowTitle *window_title;
  GtkLabel *user_kernel_label;
  AdwComboRow *set_row;
  AdwEntryRow *custom_row;
  GtkLabel *custom_error_label;
  GtkSpinButton *repeats_spin;
  GtkButton *start_button;
  GtkProgressBar *progress_bar;
  GtkButton *cancel_button;
  GtkLabel *status_label;
  KsSweepChart *chart;

  /* owned references */
  KsPipeline *pipeline;
  GSignalGroup *pipeline_signals;
  SweepJob *job;              /* the sweep running, or NULL */
  GCancellable *cancellable;  /* its cancellable */
  GArray *points;             /* KsSweepPoint shown: the running sweep's or the last one's */
  KsSweepResult *result;      /* the last finished sweep, or NULL */
  GtkFileChooserNative *export_dialog;
  GCancellable *export_cancellable;

  /* what the points measured, to tell when the pipeline has moved on */
  const KsOp *measured_op;
  KsParams measured_params;
  KsLaunchConfig measured_launch;
  gboolean measured_cuda;
  guint measured_total;
  gboolean inputs_changed;
  char *failure;

  KsSweepWindowState state;
  gboolean export_json;
};

G_DEFINE_FINAL_TYPE (KsSweepWindow, ks_sweep_window, ADW_TYPE_WINDOW)

G_DEFINE_ENUM_TYPE (KsSweepWindowState, ks_sweep_window_state,
                    G_DEFINE_ENUM_VALUE (KS_SWEEP_WINDOW_IDLE, "idle"),
                    G_DEFINE_ENUM_VALUE (KS_SWEEP_WINDOW_RUNNING, "running"),
                    G_DEFINE_ENUM_VALUE (KS_SWEEP_WINDOW_FINISHED, "finished"),
                    G_DEFINE_ENUM_VALUE (KS_SWEEP_WINDOW_CANCELLED, "cancelled"),
                    G_DEFINE_ENUM_VALUE (KS_SWEEP_WINDOW_FAILED, "failed"))

enum
{
  PROP_0,
  PROP_PIPELINE,
  PROP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- what the window says ------------------------------------------------------------ */

static char *
dim3_text (const KsDim3 *d)
{
  char buf[64];

  ks_dim3_format (d, buf, sizeof buf);
  return g_strdup (buf);
}

static char *
describe_engine (KsEngine *engine)
{
  if (engine == NULL)
    return g_strdup (_("no engine"));
  if (ks_engine_is_cuda (engine))
    return g_strdup (ks_device_get_name (ks_engine_get_device (engine)));
  return g_strdup (_("the CPU engine"));
}

static int
find_fastest (const GArray *points)
{
  double best = INFINITY;
  int fastest = -1;

  /* As ks_sweep_run picks it: the first of the smallest medians. */
  for (guint i = 0; i < points->len; i++)
    {
      const KsSweepPoint *p = &g_array_index (points, KsSweepPoint, i);

      if (p->refused == NULL && p->timing.median_ms < best)
        {
          best = p->timing.median_ms;
          fastest = (int) i;
        }
    }
  return fastest;
}

static guint
count_refused (const GArray *points)
{
  guint n = 0;

  for (guint i = 0; i < points->len; i++)
    if (g_array_index (points, KsSweepPoint, i).refused != NULL)
      n++;
  return n;
}

/* Whether the pipeline would measure something else now than the points did. */
static gboolean
pipeline_moved_on (KsSweepWindow *self)
{
  const KsLaunchConfig *launch = ks_pipeline_get_launch (self->pipeline);
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);

  if (self->measured_op == NULL)
    return FALSE;
  /* The block is what the sweep varies (and a click sets): it does not count. */
  return self->inputs_changed || self->measured_op != ks_pipeline_get_op (self->pipeline)
         || memcmp (&self->measured_params, ks_pipeline_get_params (self->pipeline),
                    sizeof self->measured_params) != 0
         || launch->mode != self->measured_launch.mode
         || launch->auto_grid != self->measured_launch.auto_grid
         || (!launch->auto_grid
             && memcmp (&launch->grid, &self->measured_launch.grid, sizeof launch->grid) != 0)
         || launch->pixels_per_thread != self->measured_launch.pixels_per_thread
         || (engine != NULL && ks_engine_is_cuda (engine) != self->measured_cuda);
}

static void
update_status (KsSweepWindow *self)
{
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = self->points->len;
  int fastest = find_fastest (self->points);
  guint refused = count_refused (self->points);

  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  switch (self->state)
    {
    case KS_SWEEP_WINDOW_IDLE:
      g_string_append (s, _("Choose the shapes and start the sweep."));
      break;
    case KS_SWEEP_WINDOW_RUNNING:
      g_string_append_printf (s, ngettext ("Measuring: %u of %u shape done",
                                           "Measuring: %u of %u shapes done",
                                           self->measured_total),
                              n, self->measured_total);
      break;
    case KS_SWEEP_WINDOW_FINISHED:
      g_string_append_printf (s, ngettext ("%u shape measured.", "%u shapes measured.",
                                           n - refused), n - refused);
      if (refused > 0)
        {
          g_string_append_c (s, ' ');
          g_string_append_printf (s, ngettext ("%u was refused by the device.",
                                               "%u were refused by the device.", refused),
                                  refused);
        }
      break;
    case KS_SWEEP_WINDOW_CANCELLED:
      g_string_append_printf (s, ngettext ("Cancelled after %u of %u shape: the points "
                                           "measured until then are shown, and only a "
                                           "finished sweep can be exported.",
                                           "Cancelled after %u of %u shapes: the points "
                                           "measured until then are shown, and only a "
                                           "finished sweep can be exported.",
                                           self->measured_total),
                              n, self->measured_total);
      break;
    case KS_SWEEP_WINDOW_FAILED:
      g_string_append_printf (s, _("The sweep failed: %s"), self->failure);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
      break;
    default:
      g_assert_not_reached ();
    }
  if (fastest >= 0 && self->state != KS_SWEEP_WINDOW_FAILED)
    {
      const KsSweepPoint *p = &g_array_index (self->points, KsSweepPoint, fastest);
      g_autofree char *block = dim3_text (&p->block);
      g_autofree char *median = ks_ui_format_ms (p->timing.median_ms);

      g_string_append_c (s, ' ');
      if (self->state == KS_SWEEP_WINDOW_FINISHED)
        g_string_append_printf (s, _("Fastest: %s, %s (%.1f GB/s)."), block, median, p->gbs);
      else
        g_string_append_printf (s, _("Fastest so far: %s, %s (%.1f GB/s)."), block, median,
                                p->gbs);
    }
  if ((self->state == KS_SWEEP_WINDOW_FINISHED || self->state == KS_SWEEP_WINDOW_CANCELLED)
      && pipeline_moved_on (self))
    {
      g_string_append_c (s, ' ');
      g_string_append (s, _("The pipeline has changed since: start again to measure what it "
                            "runs now."));
    }
  gtk_label_set_label (self->status_label, s->str);
}

static void
update_progress (KsSweepWindow *self)
{
  guint total = self->measured_total;
  guint done = self->points->len;
  g_autofree char *text = NULL;

  if (self->state == KS_SWEEP_WINDOW_IDLE || total == 0)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      gtk_progress_bar_set_text (self->progress_bar, "");
      return;
    }
  text = g_strdup_printf (ngettext ("%u of %u shape", "%u of %u shapes", total), done, total);
  gtk_progress_bar_set_fraction (self->progress_bar, (double) done / total);
  gtk_progress_bar_set_text (self->progress_bar, text);
}

static void
update_chart (KsSweepWindow *self)
{
  ks_sweep_chart_set_points (self->chart, self->points, find_fastest (self->points),
                             self->measured_cuda);
}

/* Why Start cannot run now, or NULL. */
static char *
start_blocker (KsSweepWindow *self)
{
  const KsOp *op = ks_pipeline_get_op (self->pipeline);

  if (op == NULL)
    return g_strdup (_("Choose an operation first"));
  for (guint i = 0; i < op->n_inputs; i++)
    if (ks_pipeline_get_input_buffer (self->pipeline, i) == NULL)
      return g_strdup (_("Open an image first"));
  if (ks_pipeline_get_engine (self->pipeline) == NULL)
    return g_strdup (_("No engine is available"));
  return NULL;
}

static void
update_actions (KsSweepWindow *self)
{
  gboolean running = self->state == KS_SWEEP_WINDOW_RUNNING;
  g_autoptr (GArray) blocks = ks_sweep_window_get_blocks (self, NULL);
  g_autofree char *blocker = start_blocker (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "sweep.start",
                                 !running && blocks != NULL && blocker == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "sweep.cancel", running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "sweep.export", self->result != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->set_row), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->custom_row), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->repeats_spin), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->progress_bar), running);
  if (blocker != NULL && !running && self->state == KS_SWEEP_WINDOW_IDLE)
    gtk_label_set_label (self->status_label, blocker);
}

static void
set_state (KsSweepWindow *self, KsSweepWindowState state)
{
  if (self->state != state)
    {
      self->state = state;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
    }
  update_status (self);
  update_progress (self);
  update_actions (self);
}

/* The title's subtitle: what a sweep would measure now. */
static void
update_subtitle (KsSweepWindow *self)
{
  const KsOp *op = ks_pipeline_get_op (self->pipeline);
  KsBuffer *input = ks_pipeline_get_input_buffer (self->pipeline, KS_INPUT_A);
  g_autofree char *engine = describe_engine (ks_pipeline_get_engine (self->pipeline));
  g_autofree char *subtitle = NULL;
  g_autofree char *warning = NULL;

  if (op == NULL)
    subtitle = g_strdup ("");
  else if (input == NULL)
    /* TRANSLATORS: the sweep window's subtitle: an operation and where it runs. */
    subtitle = g_strdup_printf (_("%s on %s"), op->title, engine);
  else
    /* TRANSLATORS: the sweep window's subtitle: an operation, where it runs, the image size. */
    subtitle = g_strdup_printf (_("%s on %s, %u × %u"), op->title, engine,
                                ks_buffer_get_width (input), ks_buffer_get_height (input));
  adw_window_title_set_subtitle (self->window_title, subtitle);

  gtk_widget_set_visible (GTK_WIDGET (self->user_kernel_label),
                          ks_pipeline_get_user_kernel (self->pipeline) != NULL);
  if (op != NULL)
    {
      warning = g_strdup_printf (_("The sweep measures built-in operations only: it times "
                                   "“%s”, not the kernel from the editor that the window "
                                   "runs now."), op->title);
      gtk_label_set_label (self->user_kernel_label, warning);
    }
}

/* The set row's subtitle names the shapes the chosen set holds on this device. */
static void
update_set_subtitle (KsSweepWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);
  guint selected = adw_combo_row_get_selected (self->set_row);
  g_autoptr (GArray) blocks = NULL;
  g_autoptr (GString) s = g_string_new (NULL);
  const KsDeviceLimits *limits;

  if (selected == SET_CUSTOM || engine == NULL)
    {
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->set_row),
                                   selected == SET_CUSTOM
                                     ? _("Separated by commas; each as x, x×y or x×y×z") : "");
      return;
    }
  limits = ks_device_get_limits (ks_engine_get_device (engine));
  blocks = ks_sweep_blocks (selected == SET_POWERS ? KS_SWEEP_POWERS_OF_TWO : KS_SWEEP_PRESETS,
                            limits);
  if (selected == SET_PRESETS)
    {
      for (guint i = 0; i < blocks->len; i++)
        {
          g_autofree char *b = dim3_text (&g_array_index (blocks, KsDim3, i));

          if (i > 0)
            g_string_append (s, ", ");
          g_string_append (s, b);
        }
    }
  else
    g_string_append_printf (s, ngettext ("%u shape, from one warp to the device’s limit of "
                                         "%u threads per block",
                                         "%u shapes, from one warp to the device’s limit of "
                                         "%u threads per block", blocks->len),
                            blocks->len, limits->max_threads_per_block);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->set_row), s->str);
}

/* ---- the custom list ------------------------------------------------------------------ */

static gboolean
is_custom_cb (gpointer instance, guint selected)
{
  return selected == SET_CUSTOM;
}

static void
update_custom_error (KsSweepWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->custom_row));
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) blocks = NULL;
  gboolean custom = adw_combo_row_get_selected (self->set_row) == SET_CUSTOM;
  gboolean empty;

  if (!custom)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->custom_error_label), FALSE);
      gtk_widget_remove_css_class (GTK_WIDGET (self->custom_row), "error");
      return;
    }
  blocks = ks_sweep_parse_blocks (text, &error);
  empty = strspn (text, " \t,") == strlen (text);
  gtk_widget_set_visible (GTK_WIDGET (self->custom_error_label), blocks == NULL);
  if (blocks != NULL)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->custom_row), "error");
      return;
    }
  /* Nothing typed yet is a hint, not a mistake. */
  gtk_label_set_label (self->custom_error_label, error->message);
  if (empty)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->custom_row), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->custom_error_label), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->custom_error_label), "dim-label");
    }
  else
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->custom_row), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->custom_error_label), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self->custom_error_label), "error");
    }
}

static void
on_set_changed_cb (AdwComboRow *row, GParamSpec *pspec, KsSweepWindow *self)
{
  update_set_subtitle (self);
  update_custom_error (self);
  update_actions (self);
}

static void
on_custom_changed_cb (GtkEditable *editable, KsSweepWindow *self)
{
  update_custom_error (self);
  update_actions (self);
}

static void
on_custom_activated_cb (AdwEntryRow *row, KsSweepWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "sweep.start", NULL);
}

/* ---- running a sweep ----------------------------------------------------------------- */

/* Moves the points the worker has sent into the window's. */
static void
take_arrived (KsSweepWindow *self, SweepJob *job)
{
  guint before = self->points->len;

  g_mutex_lock (&job->lock);
  g_array_append_vals (self->points, job->arrived->data, job->arrived->len);
  /* The copies now belong to self->points: no clear function runs here. */
  g_array_set_size (job->arrived, 0);
  job->posted = FALSE;
  g_mutex_unlock (&job->lock);
  if (self->points->len == before)
    return;
  update_chart (self);
  update_progress (self);
  update_status (self);
}

static gboolean
progress_idle_cb (gpointer user_data)
{
  SweepJob *job = user_data;

  if (job->window != NULL)
    take_arrived (job->window, job);
  return G_SOURCE_REMOVE;
}

/* On the worker, after every shape. */
static void
on_sweep_progress (guint done, guint total, const KsSweepPoint *point, gpointer user_data)
{
  SweepJob *job = user_data;
  KsSweepPoint copy;
  gboolean post;

  point_copy (point, &copy);
  g_mutex_lock (&job->lock);
  g_array_append_val (job->arrived, copy);
  post = !job->posted;
  job->posted = TRUE;
  g_mutex_unlock (&job->lock);
  if (post)
    {
      /* An idle in the window's context, never g_main_context_invoke: that
       * would run the update here, on the worker, whenever the main thread
       * does not hold the context at this moment. */
      g_autoptr (GSource) idle = g_idle_source_new ();

      g_source_set_priority (idle, G_PRIORITY_DEFAULT);
      g_source_set_callback (idle, progress_idle_cb, sweep_job_ref (job), sweep_job_unref);
      g_source_attach (idle, job->context);
    }
  ks_runner_run_pending_live (job->runner);
}

static void
sweep_result_free (gpointer data)
{
  ks_sweep_result_free (data);
}

static void
sweep_thread (GTask *task, gpointer source_object, gpointer task_data,
              GCancellable *cancellable)
{
  SweepJob *job = task_data;
  GError *error = NULL;
  KsSweepResult *result;

  result = ks_sweep_run (job->engine, &job->request, job->blocks, job->repeats,
                         on_sweep_progress, job, cancellable, &error);
  if (result != NULL)
    g_task_return_pointer (task, result, sweep_result_free);
  else
    g_task_return_error (task, error);
}

static void
on_sweep_done_cb (GObject *object, GAsyncResult *res, gpointer user_data)
{
  g_autoptr (KsSweepWindow) self = user_data;
  SweepJob *job = g_task_get_task_data (G_TASK (res));
  g_autoptr (GError) error = NULL;
  KsSweepResult *result = g_task_propagate_pointer (G_TASK (res), &error);

  /* A sweep the window has moved on from (closed, or started another). */
  if (job != self->job)
    {
      g_clear_pointer (&result, ks_sweep_result_free);
      return;
    }
  take_arrived (self, job);
  job->window = NULL;
  g_clear_pointer (&self->job, sweep_job_unref);
  g_clear_object (&self->cancellable);

  if (result != NULL)
    {
      /* The points on the chart are the result's; its copies replace them so
       * that what is exported is exactly what is shown. */
      g_clear_pointer (&self->result, ks_sweep_result_free);
      self->result = result;
      g_array_set_size (self->points, 0);
      for (guint i = 0; i < result->points->len; i++)
        {
          KsSweepPoint copy;

          point_copy (&g_array_index (result->points, KsSweepPoint, i), &copy);
          g_array_append_val (self->points, copy);
        }
      update_chart (self);
      set_state (self, KS_SWEEP_WINDOW_FINISHED);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    set_state (self, KS_SWEEP_WINDOW_CANCELLED);
  else
    {
      g_free (self->failure);
      self->failure = g_strdup (error->message);
      set_state (self, KS_SWEEP_WINDOW_FAILED);
    }
}

GArray *
ks_sweep_window_get_blocks (KsSweepWindow *self, GError **error)
{
  KsEngine *engine;

  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), NULL);
  switch (adw_combo_row_get_selected (self->set_row))
    {
    case SET_CUSTOM:
      return ks_sweep_parse_blocks (gtk_editable_get_text (GTK_EDITABLE (self->custom_row)),
                                    error);
    case SET_POWERS:
    case SET_PRESETS:
      engine = ks_pipeline_get_engine (self->pipeline);
      if (engine == NULL)
        {
          g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("No engine is available"));
          return NULL;
        }
      return ks_sweep_blocks (adw_combo_row_get_selected (self->set_row) == SET_POWERS
                                ? KS_SWEEP_POWERS_OF_TWO : KS_SWEEP_PRESETS,
                              ks_device_get_limits (ks_engine_get_device (engine)));
    default:
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           _("Choose a set of shapes"));
      return NULL;
    }
}

gboolean
ks_sweep_window_start (KsSweepWindow *self, GError **error)
{
  g_autoptr (GArray) blocks = NULL;
  g_autofree char *blocker = NULL;
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) local = NULL;
  SweepJob *job;
  const KsOp *op;

  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), FALSE);
  if (self->state == KS_SWEEP_WINDOW_RUNNING)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING,
                           _("A sweep is running already"));
      return FALSE;
    }
  blocker = start_blocker (self);
  if (blocker != NULL)
    {
      gtk_label_set_label (self->status_label, blocker);
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, blocker);
      return FALSE;
    }
  blocks = ks_sweep_window_get_blocks (self, &local);
  if (blocks == NULL)
    {
      update_custom_error (self);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }

  op = ks_pipeline_get_op (self->pipeline);
  job = g_new0 (SweepJob, 1);
  g_atomic_ref_count_init (&job->ref);
  g_mutex_init (&job->lock);
  job->arrived = g_array_new (FALSE, FALSE, sizeof (KsSweepPoint));
  job->engine = g_object_ref (ks_pipeline_get_engine (self->pipeline));
  job->runner = g_object_ref (ks_pipeline_get_runner (self->pipeline));
  job->context = g_main_context_ref_thread_default ();
  job->blocks = g_steal_pointer (&blocks);
  job->repeats = gtk_spin_button_get_value_as_int (self->repeats_spin);
  ks_run_request_init (&job->request, op);
  job->request.params = *ks_pipeline_get_params (self->pipeline);
  job->request.launch = *ks_pipeline_get_launch (self->pipeline);
  for (guint i = 0; i < op->n_inputs; i++)
    job->request.inputs[i] = ks_buffer_ref (ks_pipeline_get_input_buffer (self->pipeline, i));
  job->window = self;

  self->measured_op = op;
  self->measured_params = job->request.params;
  self->measured_launch = job->request.launch;
  self->measured_cuda = ks_engine_is_cuda (job->engine);
  self->measured_total = job->blocks->len;
  self->inputs_changed = FALSE;
  g_clear_pointer (&self->result, ks_sweep_result_free);
  g_array_set_size (self->points, 0);
  update_chart (self);

  self->job = job;
  self->cancellable = g_cancellable_new ();
  /* The task has no source object and the window rides in user_data: the
   * runner may drop its last reference to the task on the worker, and a
   * window must only ever be released on the main thread. */
  task = g_task_new (NULL, self->cancellable, on_sweep_done_cb, g_object_ref (self));
  g_task_set_source_tag (task, ks_sweep_window_start);
  g_task_set_task_data (task, sweep_job_ref (job), sweep_job_unref);
  ks_runner_queue (job->runner, task, sweep_thread);
  set_state (self, KS_SWEEP_WINDOW_RUNNING);
  return TRUE;
}

void
ks_sweep_window_cancel (KsSweepWindow *self)
{
  g_return_if_fail (KS_IS_SWEEP_WINDOW (self));
  g_cancellable_cancel (self->cancellable);
}

static void
start_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_sweep_window_start (KS_SWEEP_WINDOW (widget), NULL);
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_sweep_window_cancel (KS_SWEEP_WINDOW (widget));
}

/* ---- a click on a point ---------------------------------------------------------------- */

static void
on_point_activated_cb (KsSweepChart *chart, guint index, KsSweepWindow *self)
{
  const KsSweepPoint *p;
  KsLaunchConfig launch;
  g_autofree char *block = NULL;
  g_autofree char *message = NULL;
  AdwToast *toast;

  if (index >= self->points->len)
    return;
  p = &g_array_index (self->points, KsSweepPoint, index);
  if (p->refused != NULL)
    return;
  /* The launch as it is now, with the point's block: whatever else changed
   * since the sweep stays as the user set it. */
  launch = *ks_pipeline_get_launch (self->pipeline);
  launch.block = p->block;
  ks_pipeline_set_launch (self->pipeline, &launch);
  ks_sweep_chart_set_current_block (self->chart, &p->block);

  block = dim3_text (&p->block);
  message = g_strdup_printf (_("The pipeline now launches with blocks of %s"), block);
  toast = ks_ui_toast_new (message);
  adw_toast_set_timeout (toast, 3);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* ---- export ----------------------------------------------------------------------------- */

typedef struct
{
  GFile *file;
  GBytes *contents;
} ExportJob;

static void
export_job_free (gpointer data)
{
  ExportJob *job = data;

  g_object_unref (job->file);
  g_bytes_unref (job->contents);
  g_free (job);
}

static void
export_thread (GTask *task, gpointer source_object, gpointer task_data,
               GCancellable *cancellable)
{
  ExportJob *job = task_data;
  g_autofree char *path = g_file_get_path (job->file);
  gsize size;
  const char *data = g_bytes_get_data (job->contents, &size);
  GError *error = NULL;
  gboolean ok;

  /* A local file goes through a temporary renamed over it; a file of
   * another kind of location (a portal's) through GIO's own replace, which
   * also keeps the old one until the new one is complete. */
  if (path != NULL)
    ok = ks_file_replace_contents (path, data, size, &error);
  else
    ok = g_file_replace_contents (job->file, data, size, NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, cancellable, &error);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_export_written_cb (GObject *object, GAsyncResult *res, gpointer user_data)
{
  g_autoptr (GTask) outer = user_data;
  GError *error = NULL;

  if (g_task_propagate_boolean (G_TASK (res), &error))
    g_task_return_boolean (outer, TRUE);
  else
    g_task_return_error (outer, error);
}

void
ks_sweep_window_export_async (KsSweepWindow *self, GFile *file, gboolean json,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  g_autoptr (GTask) inner = NULL;
  ExportJob *job;
  char *text;

  g_return_if_fail (KS_IS_SWEEP_WINDOW (self) && G_IS_FILE (file));
  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ks_sweep_window_export_async);
  if (self->result == NULL)
    {
      g_task_return_new_error (outer, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               _("There is no finished sweep to export"));
      return;
    }
  if (json)
    {
      g_autoptr (JsonNode) root = ks_sweep_to_json (self->result);

      text = ks_json_to_data (root);
    }
  else
    text = ks_sweep_to_csv (self->result);
  job = g_new0 (ExportJob, 1);
  job->file = g_object_ref (file);
  job->contents = g_bytes_new_take (text, strlen (text));
  /* As for the sweep: the thread may release the inner task; the window,
   * through the outer one, is released on the main thread. */
  inner = g_task_new (NULL, cancellable, on_export_written_cb, g_object_ref (outer));
  g_task_set_task_data (inner, job, export_job_free);
  g_task_run_in_thread (inner, export_thread);
}

gboolean
ks_sweep_window_export_finish (KsSweepWindow *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_exported_cb (GObject *object, GAsyncResult *res, gpointer user_data)
{
  g_autoptr (GFile) file = user_data;
  KsSweepWindow *self = KS_SWEEP_WINDOW (object);
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *message = NULL;

  if (ks_sweep_window_export_finish (self, res, &error))
    message = g_strdup_printf (_("Saved the sweep as “%s”"), name);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  else
    message = g_strdup_printf (_("Could not save the sweep: %s"), error->message);
  adw_toast_overlay_add_toast (self->toast_overlay, ks_ui_toast_new (message));
}

static void
on_export_response_cb (GtkNativeDialog *dialog, int response, KsSweepWindow *self)
{
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  if (file != NULL)
    ks_sweep_window_export_async (self, file, self->export_json, self->export_cancellable,
                                  on_exported_cb, g_object_ref (file));
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->export_dialog);
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsSweepWindow *self = KS_SWEEP_WINDOW (widget);
  gboolean json = g_str_equal (g_variant_get_string (parameter, NULL), "json");
  g_autofree char *name = NULL;

  if (self->result == NULL)
    return;
  if (self->export_dialog != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_dialog));
  g_clear_object (&self->export_dialog);

  self->export_json = json;
  name = g_strdup_printf ("kernelscope-sweep-%s.%s", self->result->op->id,
                          json ? "json" : "csv");
  self->export_dialog = ks_ui_export_dialog_new (GTK_WINDOW (self),
                                                 json ? _("Export the Sweep as JSON")
                                                      : _("Export the Sweep as CSV"),
                                                 name, json);
  g_signal_connect_object (self->export_dialog, "response", G_CALLBACK (on_export_response_cb),
                           self, G_CONNECT_DEFAULT);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->export_dialog));
}

/* ---- following the pipeline ------------------------------------------------------------- */

static void
on_config_changed_cb (KsPipeline *pipeline, KsSweepWindow *self)
{
  ks_sweep_chart_set_current_block (self->chart, &ks_pipeline_get_launch (pipeline)->block);
  update_subtitle (self);
  update_set_subtitle (self);
  if (self->state != KS_SWEEP_WINDOW_RUNNING)
    update_status (self);
  update_actions (self);
}

static void
on_inputs_changed_cb (KsPipeline *pipeline, KsSweepWindow *self)
{
  if (self->measured_op != NULL && self->state != KS_SWEEP_WINDOW_RUNNING)
    self->inputs_changed = TRUE;
  on_config_changed_cb (pipeline, self);
}

static void
on_pipeline_notify_cb (KsPipeline *pipeline, GParamSpec *pspec, KsSweepWindow *self)
{
  on_config_changed_cb (pipeline, self);
}

/* ---- GObject ----------------------------------------------------------------------------- */

static void
ks_sweep_window_constructed (GObject *object)
{
  KsSweepWindow *self = KS_SWEEP_WINDOW (object);

  G_OBJECT_CLASS (ks_sweep_window_parent_class)->constructed (object);
  g_return_if_fail (KS_IS_PIPELINE (self->pipeline));
  g_signal_group_set_target (self->pipeline_signals, self->pipeline);
  on_config_changed_cb (self->pipeline, self);
  update_custom_error (self);
  set_state (self, KS_SWEEP_WINDOW_IDLE);
}

static void
ks_sweep_window_dispose (GObject *object)
{
  KsSweepWindow *self = KS_SWEEP_WINDOW (object);

  /* A sweep nobody will see stops at its next run; its callback finds the
   * window has moved on. */
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->export_cancellable);
  if (self->job != NULL)
    self->job->window = NULL;
  g_clear_pointer (&self->job, sweep_job_unref);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->export_cancellable);
  if (self->export_dialog != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->export_dialog));
  g_clear_object (&self->export_dialog);
  if (self->pipeline_signals != NULL)
    g_signal_group_set_target (self->pipeline_signals, NULL);
  g_clear_object (&self->pipeline_signals);
  g_clear_object (&self->pipeline);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_SWEEP_WINDOW);

  G_OBJECT_CLASS (ks_sweep_window_parent_class)->dispose (object);
}

static void
ks_sweep_window_finalize (GObject *object)
{
  KsSweepWindow *self = KS_SWEEP_WINDOW (object);

  g_array_unref (self->points);
  g_clear_pointer (&self->result, ks_sweep_result_free);
  g_free (self->failure);

  G_OBJECT_CLASS (ks_sweep_window_parent_class)->finalize (object);
}

static void
ks_sweep_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsSweepWindow *self = KS_SWEEP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_sweep_window_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  KsSweepWindow *self = KS_SWEEP_WINDOW (object);

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
ks_sweep_window_class_init (KsSweepWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ks_sweep_window_constructed;
  object_class->dispose = ks_sweep_window_dispose;
  object_class->finalize = ks_sweep_window_finalize;
  object_class->get_property = ks_sweep_window_get_property;
  object_class->set_property = ks_sweep_window_set_property;

  properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, KS_TYPE_SWEEP_WINDOW_STATE, KS_SWEEP_WINDOW_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (KS_TYPE_SWEEP_CHART);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kernelscope/Kernelscope/ui/"
                                               "ks-sweep-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, user_kernel_label);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, set_row);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, custom_row);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, custom_error_label);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, repeats_spin);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, start_button);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsSweepWindow, chart);
  gtk_widget_class_bind_template_callback (widget_class, is_custom_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_set_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_custom_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_custom_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_point_activated_cb);

  gtk_widget_class_install_action (widget_class, "sweep.start", NULL, start_action);
  gtk_widget_class_install_action (widget_class, "sweep.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "sweep.export", "s", export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ks_sweep_window_init (KsSweepWindow *self)
{
  self->points = g_array_new (FALSE, TRUE, sizeof (KsSweepPoint));
  g_array_set_clear_func (self->points, point_clear);
  self->export_cancellable = g_cancellable_new ();

  gtk_widget_init_template (GTK_WIDGET (self));

  self->pipeline_signals = g_signal_group_new (KS_TYPE_PIPELINE);
  g_signal_group_connect (self->pipeline_signals, "config-changed",
                          G_CALLBACK (on_config_changed_cb), self);
  g_signal_group_connect (self->pipeline_signals, "inputs-changed",
                          G_CALLBACK (on_inputs_changed_cb), self);
  g_signal_group_connect (self->pipeline_signals, "notify::engine",
                          G_CALLBACK (on_pipeline_notify_cb), self);
  g_signal_group_connect (self->pipeline_signals, "notify::user-kernel",
                          G_CALLBACK (on_pipeline_notify_cb), self);
}

/* ---- public ------------------------------------------------------------------------------ */

GtkWidget *
ks_sweep_window_new (GtkWindow *parent, KsPipeline *pipeline)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (KS_IS_PIPELINE (pipeline), NULL);
  return g_object_new (KS_TYPE_SWEEP_WINDOW, "transient-for", parent, "pipeline", pipeline,
                       NULL);
}

KsPipeline *
ks_sweep_window_get_pipeline (KsSweepWindow *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), NULL);
  return self->pipeline;
}

KsSweepWindowState
ks_sweep_window_get_state (KsSweepWindow *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), KS_SWEEP_WINDOW_IDLE);
  return self->state;
}

const GArray *
ks_sweep_window_get_points (KsSweepWindow *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), NULL);
  return self->points;
}

int
ks_sweep_window_get_fastest (KsSweepWindow *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), -1);
  return find_fastest (self->points);
}

const KsSweepResult *
ks_sweep_window_get_result (KsSweepWindow *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), NULL);
  return self->result;
}

KsSweepChart *
ks_sweep_window_get_chart (KsSweepWindow *self)
{
  g_return_val_if_fail (KS_IS_SWEEP_WINDOW (self), NULL);
  return self->chart;
}
