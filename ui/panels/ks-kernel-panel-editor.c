/* ks-kernel-panel-editor.c: the kernel panel's editor and its compile as you
 * type. An edit schedules a compile in the worker after the debounce; the
 * newest one wins, its diagnostics are marked on their lines and listed,
 * and a source that compiles becomes the new version: its cards and arrays
 * page are shown and, while the panel is active, it runs in the pipeline
 * in place of the op. The mode (expression, image kernel, any kernel)
 * decides what the text is compiled as. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"
#include "ks-ui-util.h"

#define MESSAGE_KEY "ks-message"
#define DIAGNOSTIC_KEY "ks-diagnostic"

static void schedule_compile (KsKernelPanel *self);

/* ---- diagnostics ------------------------------------------------------------------- */

static const char *
category_of (KsDiagnosticSeverity severity)
{
  return ks_diagnostic_severity_name (severity);
}

static void
clear_diagnostics (KsKernelPanel *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  GtkTextIter start, end;
  GtkWidget *row;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_source_buffer_remove_source_marks (self->buffer, &start, &end, NULL);
  gtk_text_buffer_remove_tag (buffer, self->error_tag, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->warning_tag, &start, &end);
  /* GTK 4.8 has no gtk_list_box_remove_all. */
  while ((row = gtk_widget_get_first_child (GTK_WIDGET (self->diagnostics_list))) != NULL)
    gtk_list_box_remove (self->diagnostics_list, row);
}

/* A diagnostic belongs on the user's text unless it names another file (the
 * prelude's headers). */
static gboolean
on_user_text (KsKernelPanel *self, const KsDiagnostic *d)
{
  return d->line > 0
         && (d->file == NULL || g_str_equal (d->file, _ks_kernel_panel_file_name (self)));
}

static gboolean
iter_at (KsKernelPanel *self, const KsDiagnostic *d, GtkTextIter *iter)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);

  if (!on_user_text (self, d) || (int) d->line > gtk_text_buffer_get_line_count (buffer))
    return FALSE;
  gtk_text_buffer_get_iter_at_line (buffer, iter, (int) d->line - 1);
  if (d->column > 1)
    {
      GtkTextIter line = *iter;

      /* Past the line's end (a tab counted as several columns) stays on the line. */
      if (!gtk_text_buffer_get_iter_at_line_offset (buffer, iter, (int) d->line - 1,
                                                    (int) d->column - 1))
        {
          *iter = line;
          if (!gtk_text_iter_ends_line (iter))
            gtk_text_iter_forward_to_line_end (iter);
        }
    }
  return TRUE;
}

static gboolean
is_word_char (gunichar c)
{
  return g_unichar_isalnum (c) || c == '_';
}

/* From the column to the end of the token there: a word, or one character. */
static void
underline (KsKernelPanel *self, const KsDiagnostic *d, const GtkTextIter *at)
{
  GtkTextTag *tag = d->severity == KS_DIAGNOSTIC_ERROR ? self->error_tag : self->warning_tag;
  GtkTextIter start = *at, end = *at;

  if (d->severity == KS_DIAGNOSTIC_NOTE)
    return;
  if (gtk_text_iter_ends_line (&start))
    {
      /* A message at the line's end (a missing ';') marks the last character. */
      if (gtk_text_iter_starts_line (&start))
        return;
      gtk_text_iter_backward_char (&start);
    }
  end = start;
  if (is_word_char (gtk_text_iter_get_char (&end)))
    while (!gtk_text_iter_ends_line (&end) && is_word_char (gtk_text_iter_get_char (&end)))
      gtk_text_iter_forward_char (&end);
  else
    gtk_text_iter_forward_char (&end);
  gtk_text_buffer_apply_tag (GTK_TEXT_BUFFER (self->buffer), tag, &start, &end);
}

/* "12:5 error: …", and the file first for a line in another file (one of
 * the user's headers). */
static GtkWidget *
diagnostic_row (KsKernelPanel *self, const KsDiagnostic *d)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *icon = gtk_image_new_from_icon_name (
    d->severity == KS_DIAGNOSTIC_ERROR     ? "dialog-error-symbolic"
    : d->severity == KS_DIAGNOSTIC_WARNING ? "dialog-warning-symbolic"
                                           : "dialog-information-symbolic");
  g_autofree char *text = NULL;
  GtkWidget *label;

  if (d->line > 0 && d->column > 0)
    text = g_strdup_printf ("%u:%u %s: %s", d->line, d->column,
                            ks_diagnostic_severity_name (d->severity), d->message);
  else if (d->line > 0)
    text = g_strdup_printf ("%u %s: %s", d->line, ks_diagnostic_severity_name (d->severity),
                            d->message);
  else
    text = g_strdup_printf ("%s: %s", ks_diagnostic_severity_name (d->severity), d->message);
  if (d->line > 0 && !on_user_text (self, d))
    {
      char *in_file = g_strdup_printf ("%s:%s", d->file, text);

      g_free (text);
      text = in_file;
    }
  label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), d->line > 0);
  g_object_set_data_full (G_OBJECT (row), DIAGNOSTIC_KEY, ks_diagnostic_copy (d),
                          (GDestroyNotify) ks_diagnostic_free);
  return row;
}

static void
show_diagnostics (KsKernelPanel *self, const GPtrArray *diagnostics)
{
  clear_diagnostics (self);
  g_clear_pointer (&self->diagnostics, g_ptr_array_unref);
  self->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (diagnostics, i);
      GtkTextIter at;

      g_ptr_array_add (self->diagnostics, ks_diagnostic_copy (d));
      gtk_list_box_append (self->diagnostics_list, diagnostic_row (self, d));
      if (iter_at (self, d, &at))
        {
          GtkTextIter line_start = at;
          GtkSourceMark *mark;

          /* At the start of the line: the gutter draws only the marks there
           * (GtkSourceView 5.6); the underline carries the column. */
          gtk_text_iter_set_line_offset (&line_start, 0);
          mark = gtk_source_buffer_create_source_mark (self->buffer, NULL,
                                                       category_of (d->severity), &line_start);

          g_object_set_data_full (G_OBJECT (mark), MESSAGE_KEY, g_strdup (d->message), g_free);
          underline (self, d, &at);
        }
    }
}

static void
on_diagnostic_activated_cb (GtkListBox *box, GtkListBoxRow *row, KsKernelPanel *self)
{
  const KsDiagnostic *d = g_object_get_data (G_OBJECT (row), DIAGNOSTIC_KEY);
  GtkTextIter at;

  if (d == NULL || !iter_at (self, d, &at))
    return;
  gtk_text_buffer_place_cursor (GTK_TEXT_BUFFER (self->buffer), &at);
  gtk_text_view_scroll_to_iter (GTK_TEXT_VIEW (self->source_view), &at, 0.2, FALSE, 0, 0);
  gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
}

static char *
on_query_tooltip_text_cb (GtkSourceMarkAttributes *attributes, GtkSourceMark *mark,
                          gpointer user_data)
{
  return g_strdup (g_object_get_data (G_OBJECT (mark), MESSAGE_KEY));
}

static void
add_category (KsKernelPanel *self, const char *category, const char *icon, int priority)
{
  g_autoptr (GtkSourceMarkAttributes) attributes = gtk_source_mark_attributes_new ();

  gtk_source_mark_attributes_set_icon_name (attributes, icon);
  g_signal_connect (attributes, "query-tooltip-text", G_CALLBACK (on_query_tooltip_text_cb),
                    NULL);
  gtk_source_view_set_mark_attributes (self->source_view, category, attributes, priority);
}

/* ---- compiling ----------------------------------------------------------------------- */

typedef struct
{
  KsWorker *worker;
  KsKernelSource *source;
  KsLaunchConfig launch;
  guint generation;
} CompileJob;

static void
compile_job_free (gpointer data)
{
  CompileJob *job = data;

  g_object_unref (job->worker);
  ks_kernel_source_unref (job->source);
  g_free (job);
}

static void
compile_thread (GTask *task, gpointer source_object, gpointer task_data,
                GCancellable *cancellable)
{
  CompileJob *job = task_data;
  GError *error = NULL;
  KsCompileResult *result;

  /* The source's own errors (a bad annotation, no __global__) need no compiler. */
  if (ks_kernel_source_has_errors (job->source))
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  result = ks_worker_compile (job->worker, job->source, &job->launch, FALSE, cancellable,
                              &error);
  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) ks_compile_result_free);
}

static char *
compiled_words (const KsCompileResult *result)
{
  if (result->cached)
    return g_strdup (_("compiled before (cached)"));
  return g_strdup_printf (_("compiled in %.0f ms"), result->compile_ms);
}

static void
compiled (KsKernelPanel *self, KsKernelSource *source, KsCompileResult *result)
{
  g_autofree char *words = compiled_words (result);
  g_autofree char *status = NULL;

  self->version++;
  g_clear_pointer (&self->last_good, ks_kernel_source_unref);
  g_clear_pointer (&self->last_good_compiled, ks_compile_result_free);
  self->last_good = ks_kernel_source_ref (source);
  self->last_good_compiled = result;
  self->dynamic_shared = ks_kernel_source_get_dynamic_shared (source);
  _ks_kernel_panel_show_resources (self, result->kernels != NULL && result->kernels->len > 0
                                           ? g_ptr_array_index (result->kernels, 0)
                                           : NULL);
  _ks_kernel_panel_show_arrays_page (self, source);

  if (self->mode == KS_KERNEL_MODE_ANY)
    status = g_strdup_printf (_("Version %u compiled (%s): bind its arguments under Arrays and "
                                "run it"), self->version, words);
  else if (self->active && ks_panel_get_pipeline (KS_PANEL (self)) != NULL)
    status = g_strdup_printf (_("Version %u is live · %s"), self->version, words);
  else
    status = g_strdup_printf (_("Version %u compiled (%s); open the editor to run it"),
                              self->version, words);
  _ks_kernel_panel_set_status (self, status);
  _ks_kernel_panel_apply_live (self);
  _ks_kernel_panel_show_params (self, source);
}

static void
did_not_compile (KsKernelPanel *self, const GPtrArray *diagnostics, const GError *error)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  guint errors = 0;
  g_autofree char *status = NULL;
  g_autofree char *count = NULL;

  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    if (((KsDiagnostic *) g_ptr_array_index (diagnostics, i))->severity == KS_DIAGNOSTIC_ERROR)
      errors++;
  if (error != NULL)
    count = g_strdup (error->message);
  else
    count = g_strdup_printf (ngettext ("%u error", "%u errors", errors), errors);

  if (g_error_matches (error, KS_ERROR, KS_ERROR_UNAVAILABLE))
    status = g_strdup_printf (_("Cannot compile here: %s"), error->message);
  else if (self->version > 0 && self->mode != KS_KERNEL_MODE_ANY && self->active
           && pipeline != NULL)
    status = g_strdup_printf (_("Does not compile (%s) — version %u, the last that did, is "
                                "still running"), count, self->version);
  else if (self->version > 0)
    status = g_strdup_printf (_("Does not compile (%s) — version %u, the last that did, is "
                                "kept"), count, self->version);
  else
    status = g_strdup_printf (_("Does not compile: %s"), count);
  _ks_kernel_panel_set_status (self, status);
}

/* A problem found before there is a source to compile (a declaration's):
 * listed as a compile's would be, and a compile still on its way for older
 * text is dropped. */
void
_ks_kernel_panel_show_problem (KsKernelPanel *self, const KsDiagnostic *diagnostic)
{
  g_autoptr (GPtrArray) diagnostics =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);

  g_clear_handle_id (&self->debounce_source, g_source_remove);
  if (self->compile_cancellable != NULL)
    g_cancellable_cancel (self->compile_cancellable);
  g_clear_object (&self->compile_cancellable);
  self->generation++;
  g_ptr_array_add (diagnostics, ks_diagnostic_copy (diagnostic));
  show_diagnostics (self, diagnostics);
  did_not_compile (self, diagnostics, NULL);
}

static void
on_compiled_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsKernelPanel) self = user_data;
  CompileJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  KsCompileResult *compile = g_task_propagate_pointer (G_TASK (result), &error);

  /* The newest edit wins: a result for older text is dropped. */
  if (job->generation != self->generation || self->buffer == NULL
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_pointer (&compile, ks_compile_result_free);
      return;
    }
  g_clear_object (&self->compile_cancellable);

  if (compile == NULL)
    {
      /* The source's own diagnostics, or the compiler could not run at all. */
      show_diagnostics (self, ks_kernel_source_get_diagnostics (job->source));
      did_not_compile (self, ks_kernel_source_get_diagnostics (job->source), error);
      return;
    }
  show_diagnostics (self, compile->diagnostics);
  if (compile->success)
    compiled (self, job->source, compile);
  else
    {
      did_not_compile (self, compile->diagnostics, NULL);
      ks_compile_result_free (compile);
    }
}

void
_ks_kernel_panel_compile_now (KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = NULL;
  CompileJob *job;

  g_clear_handle_id (&self->debounce_source, g_source_remove);
  if (self->compile_cancellable != NULL)
    g_cancellable_cancel (self->compile_cancellable);
  g_clear_object (&self->compile_cancellable);
  self->compile_cancellable = g_cancellable_new ();

  text = _ks_kernel_panel_buffer_text (self);
  job = g_new0 (CompileJob, 1);
  job->worker = g_object_ref (_ks_kernel_panel_worker_of (self));
  job->source = _ks_kernel_panel_new_source (self, text);
  _ks_kernel_panel_show_kernels (self, job->source);
  job->generation = ++self->generation;
  /* Expressions compile per launch shape: compile the one that will run. */
  ks_kernel_source_get_default_launch (job->source, &job->launch);
  if (pipeline != NULL && ks_pipeline_get_user_kernel (pipeline) != NULL)
    job->launch = *ks_pipeline_get_launch (pipeline);
  task = g_task_new (NULL, self->compile_cancellable, on_compiled_cb, g_object_ref (self));
  g_task_set_task_data (task, job, compile_job_free);
  g_task_run_in_thread (task, compile_thread);
}

static gboolean
debounce_cb (gpointer user_data)
{
  KsKernelPanel *self = user_data;

  self->debounce_source = 0;
  _ks_kernel_panel_compile_now (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_compile (KsKernelPanel *self)
{
  g_clear_handle_id (&self->debounce_source, g_source_remove);
  self->debounce_source = g_timeout_add (KS_KERNEL_PANEL_DEBOUNCE_MS, debounce_cb, self);
}

static void
on_buffer_changed_cb (GtkTextBuffer *buffer, KsKernelPanel *self)
{
  if (self->loading)
    return;
  schedule_compile (self);
}

static void
on_modified_changed_cb (GtkTextBuffer *buffer, KsKernelPanel *self)
{
  _ks_kernel_panel_update_title (self);
}

/* The editor's buffer, its underline tags and mark categories, and the
 * handlers that compile after an edit; ks_kernel_panel_init calls it once
 * the template is built. */
void
_ks_kernel_panel_setup_editor (KsKernelPanel *self)
{
  GdkRGBA red = { 0.88, 0.11, 0.14, 1 }, orange = { 0.90, 0.50, 0.0, 1 };

  self->buffer = g_object_ref (GTK_SOURCE_BUFFER (
    gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view))));
  ks_ui_source_buffer_init_cuda (self->buffer);
  self->error_tag = gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (self->buffer), "ks-error",
                                                "underline", PANGO_UNDERLINE_ERROR,
                                                "underline-rgba", &red, NULL);
  self->warning_tag = gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (self->buffer), "ks-warning",
                                                  "underline", PANGO_UNDERLINE_ERROR,
                                                  "underline-rgba", &orange, NULL);
  add_category (self, "error", "dialog-error-symbolic", 30);
  add_category (self, "warning", "dialog-warning-symbolic", 20);
  add_category (self, "note", "dialog-information-symbolic", 10);
  g_signal_connect_object (self->buffer, "changed", G_CALLBACK (on_buffer_changed_cb), self,
                           G_CONNECT_DEFAULT);
  g_signal_connect_object (self->buffer, "modified-changed", G_CALLBACK (on_modified_changed_cb),
                           self, G_CONNECT_DEFAULT);
}

/* ---- live in the pipeline -------------------------------------------------------------- */

void
_ks_kernel_panel_apply_live (KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  gboolean runs;

  if (pipeline == NULL)
    return;
  runs = self->active && self->last_good != NULL
         && ks_kernel_source_get_mode (self->last_good) != KS_KERNEL_MODE_ANY;
  ks_pipeline_set_user_kernel (pipeline, runs ? self->last_good : NULL);
}

/* ---- mode, style -------------------------------------------------------------------------- */

void
_ks_kernel_panel_sync_mode_buttons (KsKernelPanel *self)
{
  GtkToggleButton *buttons[] = { self->expression_button, self->image_button, self->any_button };

  self->syncing = TRUE;
  gtk_toggle_button_set_active (buttons[self->mode], TRUE);
  self->syncing = FALSE;
}

void
_ks_kernel_panel_set_mode (KsKernelPanel *self, KsKernelMode mode)
{
  /* A declared kernel is an "any" kernel. */
  if (mode != KS_KERNEL_MODE_ANY)
    _ks_kernel_panel_leave_declared (self);
  if (mode == self->mode)
    return;
  self->mode = mode;
  _ks_kernel_panel_sync_mode_buttons (self);
  _ks_kernel_panel_show_arrays_page (self, NULL);
  _ks_kernel_panel_update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), _ks_kernel_panel_properties[PROP_MODE]);
  if (!self->loading)
    _ks_kernel_panel_compile_now (self);
}

static void
on_mode_toggled_cb (GtkToggleButton *button, KsKernelPanel *self)
{
  if (self->syncing || !gtk_toggle_button_get_active (button))
    return;
  _ks_kernel_panel_set_mode (self, button == self->expression_button ? KS_KERNEL_MODE_EXPRESSION
                                   : button == self->image_button    ? KS_KERNEL_MODE_IMAGE
                                                                     : KS_KERNEL_MODE_ANY);
}

/* The template's handlers of the editor, bound by ks_kernel_panel_class_init. */
void
_ks_kernel_panel_class_init_editor (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_mode_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_diagnostic_activated_cb);
}
