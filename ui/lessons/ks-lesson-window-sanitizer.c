/* ks-lesson-window-sanitizer.c: "Run under compute-sanitizer" in a
 * KsLessonWindow, for a variant whose defect only a sanitizer shows: the
 * variant runs once under the tool on the runner, with its own Cancel, and
 * its error count, findings and whole output are shown with the variant;
 * without CUDA or the tool, the line under the button says why not. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-lesson-window-private.h"

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

  if (!_ks_lesson_window_engine_is_cuda (self))
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
void
_ks_lesson_window_update_sanitizer (KsLessonWindow *self)
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
  label = _ks_lesson_window_new_label (count, r->errors > 0    ? "error"
                                              : r->errors == 0 ? "success"
                                                               : "warning");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (box, label);
  if (r->summary != NULL)
    gtk_box_append (box, _ks_lesson_window_new_label (r->summary, NULL));
  for (guint i = 0; i < r->findings->len; i++)
    gtk_box_append (box, _ks_lesson_window_new_label (g_ptr_array_index (r->findings, i),
                                                      "monospace"));
  if (r->run_error != NULL)
    {
      g_autofree char *ended = g_strdup_printf (_("How the run ended under the tool: %s"),
                                                r->run_error);

      gtk_box_append (box, _ks_lesson_window_new_label (ended, "warning"));
    }
  if (r->command_line != NULL)
    {
      label = _ks_lesson_window_new_label (r->command_line, "monospace");
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
                                 _ks_lesson_window_new_text_view (r->output != NULL ? r->output
                                                                                    : "",
                                                                  FALSE));
  gtk_widget_add_css_class (scroller, "card");
  gtk_expander_set_child (GTK_EXPANDER (expander), scroller);
  gtk_box_append (box, expander);
  if (r->output != NULL && r->output_length > strlen (r->output))
    {
      g_autofree char *kept = g_strdup_printf ("%" G_GSIZE_FORMAT, strlen (r->output));
      g_autofree char *all = g_strdup_printf ("%" G_GSIZE_FORMAT, r->output_length);
      g_autofree char *text = g_strdup_printf (_("The first %s bytes of %s are kept."), kept,
                                               all);

      gtk_box_append (box, _ks_lesson_window_new_label (text, "dim-label"));
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
  _ks_lesson_window_update_sanitizer (self);
}

void
_ks_lesson_window_start_sanitize (KsLessonWindow *self)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = NULL;
  SanitizeJob *job;
  GWeakRef *ref;

  if (self->variant == NULL || self->variant->sanitizer == NULL
      || self->sanitize_cancellable != NULL || !_ks_lesson_window_engine_is_cuda (self))
    return;
  text = _ks_lesson_window_buffer_text (self);
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
  _ks_lesson_window_update_sanitizer (self);
}

void
_ks_lesson_window_cancel_sanitize (KsLessonWindow *self)
{
  if (self->sanitize_cancellable != NULL)
    g_cancellable_cancel (self->sanitize_cancellable);
}

/* A variant left (or the window closed) takes its sanitizer run with it. */
void
_ks_lesson_window_drop_sanitizer (KsLessonWindow *self)
{
  _ks_lesson_window_cancel_sanitize (self);
  g_clear_object (&self->sanitize_cancellable);
  g_clear_pointer (&self->sanitize_message, g_free);
  clear_sanitizer_results (self);
}
