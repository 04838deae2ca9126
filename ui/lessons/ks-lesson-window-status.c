/* ks-lesson-window-status.c: the state of a KsLessonWindow that all its
 * parts read (the engine, the editor's text and whether it is edited), and
 * what the header bar and the status line say of it: which actions are
 * enabled, and the run in flight, the last run or why it failed. The
 * bottom of the window's files: it calls none of the others. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-lesson-window-private.h"

GParamSpec *_ks_lesson_window_properties[N_PROPS];

gboolean
_ks_lesson_window_engine_is_cuda (KsLessonWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);

  return engine != NULL && ks_engine_is_cuda (engine);
}

char *
_ks_lesson_window_buffer_text (KsLessonWindow *self)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  return gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, FALSE);
}

gboolean
_ks_lesson_window_is_edited (KsLessonWindow *self)
{
  g_autofree char *text = NULL;

  if (self->pristine == NULL || self->buffer == NULL)
    return FALSE;
  text = _ks_lesson_window_buffer_text (self);
  return g_strcmp0 (text, self->pristine) != 0;
}

void
_ks_lesson_window_update_actions (KsLessonWindow *self)
{
  gboolean running = self->job != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.run", self->lesson != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.reset",
                                 self->lesson != NULL && _ks_lesson_window_is_edited (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.cancel",
                                 running && !self->cancelling);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), running);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), running);
}

void
_ks_lesson_window_update_status (KsLessonWindow *self, const char *failure)
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

void
_ks_lesson_window_weak_ref_free (GWeakRef *ref)
{
  g_weak_ref_clear (ref);
  g_free (ref);
}
