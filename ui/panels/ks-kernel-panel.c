#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <adwaita.h>

#include "ks-array-view.h"
#include "ks-kernel-panel.h"
#include "ks-param-editor.h"
#include "ks-ui-util.h"

#define TEMPLATE_PATH "/org/kernelscope/Kernelscope/kernels/"
#define MESSAGE_KEY "ks-message"
#define DIAGNOSTIC_KEY "ks-diagnostic"

/* The bundled starting points (resources/kernels/), and the mode each is written in. */
static const struct
{
  const char *name;
  KsKernelMode mode;
} templates[] = {
  { "invert", KS_KERNEL_MODE_EXPRESSION },
  { "gray", KS_KERNEL_MODE_EXPRESSION },
  { "box-blur", KS_KERNEL_MODE_IMAGE },
  { "add-arrays", KS_KERNEL_MODE_ANY },
  { "histogram", KS_KERNEL_MODE_ANY },
};

struct _KsKernelPanel
{
  GtkWidget parent_instance;

  /* template widgets */
  GtkToggleButton *expression_button;
  GtkToggleButton *image_button;
  GtkToggleButton *any_button;
  GtkLabel *title_label;
  GtkSourceView *source_view;
  GtkStack *bottom_stack;
  GtkListBox *diagnostics_list;
  AdwPreferencesGroup *resources_group;
  AdwActionRow *registers_row;
  AdwActionRow *shared_row;
  AdwActionRow *local_row;
  AdwActionRow *spill_row;
  AdwActionRow *max_threads_row;
  AdwActionRow *arch_row;
  GtkLabel *no_params_label;
  KsParamEditor *params_group;
  GtkStackPage *arrays_page;
  GtkLabel *arrays_label;
  KsArrayView *array_view;
  GtkLabel *status_label;

  /* owned references */
  KsPipeline *pipeline;
  GSignalGroup *pipeline_signals;
  KsWorker *own_worker;         /* without a pipeline: compilation only */
  GtkSourceBuffer *buffer;
  GFile *file;
  char *name;                   /* the file's or the template's; NULL: after the mode */
  char *title;
  char *status;
  GCancellable *compile_cancellable;
  KsKernelSource *last_good;
  KsCompileResult *last_good_compiled;
  GPtrArray *diagnostics;       /* KsDiagnostic of the newest finished compile */
  GtkTextTag *error_tag;
  GtkTextTag *warning_tag;

  KsKernelMode mode;
  gboolean active;
  gboolean loading;             /* the text is being replaced: not an edit */
  gboolean syncing;             /* the mode buttons follow the mode: not the user */
  guint debounce_source;
  guint generation;             /* of the newest compile asked for */
  guint version;
  guint64 dynamic_shared;
};

G_DEFINE_FINAL_TYPE (KsKernelPanel, ks_kernel_panel, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_PIPELINE,
  PROP_ACTIVE,
  PROP_MODE,
  PROP_TITLE,
  PROP_STATUS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_ARRAYS_RAN,
  SIGNAL_ERROR,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void schedule_compile (KsKernelPanel *self);

/* GLib 2.74 has no g_set_str yet. */
static gboolean
set_str (char **where, const char *value)
{
  if (g_strcmp0 (*where, value) == 0)
    return FALSE;
  g_free (*where);
  *where = g_strdup (value);
  return TRUE;
}
static void apply_live (KsKernelPanel *self);

/* ---- title and status ------------------------------------------------------------- */

static void
set_status (KsKernelPanel *self, const char *text)
{
  if (!set_str (&self->status, text))
    return;
  gtk_label_set_label (self->status_label, text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
}

static const char *
file_name (KsKernelPanel *self)
{
  static const char *const names[] = { "expression.cu", "kernel.cu", "kernel.cu" };

  return self->name != NULL ? self->name : names[self->mode];
}

static void
update_title (KsKernelPanel *self)
{
  gboolean modified = gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (self->buffer));
  g_autofree char *title = g_strdup_printf ("%s%s", file_name (self), modified ? " •" : "");

  gtk_label_set_label (self->title_label, title);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_label),
                               modified ? _("Unsaved changes") : NULL);
  if (set_str (&self->title, title))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

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
  return d->line > 0 && (d->file == NULL || g_str_equal (d->file, file_name (self)));
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

static GtkWidget *
diagnostic_row (const KsDiagnostic *d)
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
      gtk_list_box_append (self->diagnostics_list, diagnostic_row (d));
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

/* ---- the resource card ------------------------------------------------------------- */

static char *
format_bytes (guint64 bytes)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, bytes);

  if (bytes < 1024)
    return g_strdup_printf (ngettext ("%s byte", "%s bytes", bytes), count);
  return g_strdup_printf (_("%.1f KiB (%s bytes)"), bytes / 1024.0, count);
}

/* Rows and groups read their text as Pango markup: a template argument
 * ("<4, 1, false>") must come through as written. */
static void
set_row (AdwActionRow *row, const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  adw_action_row_set_subtitle (row, escaped);
}

static void
show_resources (KsKernelPanel *self, const KsKernelResources *r)
{
  g_autofree char *regs = NULL, *shared = NULL, *stat = NULL, *dyn = NULL, *local = NULL;
  g_autofree char *spills = NULL, *threads = NULL, *arch = NULL;

  gtk_widget_set_sensitive (GTK_WIDGET (self->resources_group), r != NULL);
  if (r == NULL)
    {
      adw_preferences_group_set_description (self->resources_group,
                                             _("Shown once the source compiles"));
      return;
    }
  {
    g_autofree char *name = g_markup_escape_text (r->name != NULL ? r->name : "", -1);

    adw_preferences_group_set_description (self->resources_group, name);
  }
  regs = g_strdup_printf ("%u", r->num_regs);
  stat = format_bytes (r->shared_static);
  dyn = format_bytes (self->dynamic_shared);
  shared = g_strdup_printf (_("%s static, %s dynamic"), stat, dyn);
  local = format_bytes (r->local_bytes);
  if (r->spill_stores == 0 && r->spill_loads == 0)
    spills = g_strdup (_("None"));
  else
    {
      g_autofree char *stores = g_strdup_printf ("%" G_GUINT64_FORMAT, r->spill_stores);
      g_autofree char *loads = g_strdup_printf ("%" G_GUINT64_FORMAT, r->spill_loads);

      spills = g_strdup_printf (_("%s bytes stored, %s bytes loaded"), stores, loads);
    }
  if (r->launch_bounds > 0)
    threads = g_strdup_printf ("%u (__launch_bounds__ %u)", r->max_threads_per_block,
                               r->launch_bounds);
  else
    threads = g_strdup_printf ("%u", r->max_threads_per_block);
  arch = g_strdup_printf ("sm_%u", r->arch);
  set_row (self->registers_row, regs);
  set_row (self->shared_row, shared);
  set_row (self->local_row, local);
  set_row (self->spill_row, spills);
  set_row (self->max_threads_row, threads);
  set_row (self->arch_row, arch);
}

/* ---- parameters ---------------------------------------------------------------------- */

static void
on_param_changed_cb (KsParamEditor *editor, guint index, double value, KsKernelPanel *self)
{
  if (self->pipeline != NULL)
    ks_pipeline_set_user_param (self->pipeline, index, value);
}

static void
sync_param_values (KsKernelPanel *self)
{
  if (self->pipeline == NULL || ks_pipeline_get_user_kernel (self->pipeline) == NULL)
    return;
  ks_param_editor_set_values (self->params_group, ks_pipeline_get_user_params (self->pipeline));
}

static void
show_params (KsKernelPanel *self, KsKernelSource *source)
{
  guint n = 0;
  const KsParamSpec *specs = source != NULL ? ks_kernel_source_get_params (source, &n) : NULL;
  gboolean any;

  ks_param_editor_set_specs (self->params_group, specs, n);
  any = ks_param_editor_get_n_specs (self->params_group) > 0;
  gtk_widget_set_visible (GTK_WIDGET (self->no_params_label), !any);
  gtk_widget_set_visible (GTK_WIDGET (self->params_group), any);
  sync_param_values (self);
}

/* ---- compiling ----------------------------------------------------------------------- */

static KsWorker *
worker_of (KsKernelPanel *self)
{
  if (self->pipeline != NULL)
    return ks_pipeline_get_worker (self->pipeline);
  if (self->own_worker == NULL)
    self->own_worker = ks_worker_new (-1);
  return self->own_worker;
}

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
show_arrays_page (KsKernelPanel *self, KsKernelSource *source)
{
  gboolean any = self->mode == KS_KERNEL_MODE_ANY;

  gtk_stack_page_set_visible (self->arrays_page, any);
  if (any && source != NULL)
    {
      const char *entry = ks_kernel_source_get_entry (source);
      g_autofree char *text = g_strdup_printf (_("Bind the arguments of %s to arrays and "
                                                 "values, then run it in the worker."),
                                               entry != NULL ? entry : _("the kernel"));

      ks_array_view_set_signature (self->array_view, ks_kernel_source_get_args (source));
      gtk_label_set_label (self->arrays_label, text);
    }
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
  show_resources (self, result->kernels != NULL && result->kernels->len > 0
                          ? g_ptr_array_index (result->kernels, 0)
                          : NULL);
  show_arrays_page (self, source);

  if (self->mode == KS_KERNEL_MODE_ANY)
    status = g_strdup_printf (_("Version %u compiled (%s): bind its arguments under Arrays and "
                                "run it"), self->version, words);
  else if (self->active && self->pipeline != NULL)
    status = g_strdup_printf (_("Version %u is live · %s"), self->version, words);
  else
    status = g_strdup_printf (_("Version %u compiled (%s); open the editor to run it"),
                              self->version, words);
  set_status (self, status);
  apply_live (self);
  show_params (self, source);
}

static void
did_not_compile (KsKernelPanel *self, const GPtrArray *diagnostics, const GError *error)
{
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
      && self->pipeline != NULL && ks_engine_is_cuda (ks_pipeline_get_engine (self->pipeline)))
    status = g_strdup_printf (_("Does not compile (%s) — version %u, the last that did, is "
                                "still running"), count, self->version);
  else if (self->version > 0)
    status = g_strdup_printf (_("Does not compile (%s) — version %u, the last that did, is "
                                "kept"), count, self->version);
  else
    status = g_strdup_printf (_("Does not compile: %s"), count);
  set_status (self, status);
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

static char *
buffer_text (KsKernelPanel *self)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  return gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, TRUE);
}

void
ks_kernel_panel_compile_now (KsKernelPanel *self)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *text = NULL;
  CompileJob *job;

  g_return_if_fail (KS_IS_KERNEL_PANEL (self));
  g_clear_handle_id (&self->debounce_source, g_source_remove);
  if (self->compile_cancellable != NULL)
    g_cancellable_cancel (self->compile_cancellable);
  g_clear_object (&self->compile_cancellable);
  self->compile_cancellable = g_cancellable_new ();

  text = buffer_text (self);
  job = g_new0 (CompileJob, 1);
  job->worker = g_object_ref (worker_of (self));
  job->source = ks_kernel_source_new (self->mode, file_name (self), text);
  job->generation = ++self->generation;
  /* Expressions compile per launch shape: compile the one that will run. */
  ks_kernel_source_get_default_launch (job->source, &job->launch);
  if (self->pipeline != NULL && ks_pipeline_get_user_kernel (self->pipeline) != NULL)
    job->launch = *ks_pipeline_get_launch (self->pipeline);
  task = g_task_new (NULL, self->compile_cancellable, on_compiled_cb, g_object_ref (self));
  g_task_set_task_data (task, job, compile_job_free);
  g_task_run_in_thread (task, compile_thread);
}

static gboolean
debounce_cb (gpointer user_data)
{
  KsKernelPanel *self = user_data;

  self->debounce_source = 0;
  ks_kernel_panel_compile_now (self);
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
  update_title (self);
}

gboolean
ks_kernel_panel_is_compiling (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), FALSE);
  return self->debounce_source != 0 || self->compile_cancellable != NULL;
}

/* ---- live in the pipeline -------------------------------------------------------------- */

static void
apply_live (KsKernelPanel *self)
{
  gboolean runs;

  if (self->pipeline == NULL)
    return;
  runs = self->active && self->last_good != NULL
         && ks_kernel_source_get_mode (self->last_good) != KS_KERNEL_MODE_ANY;
  ks_pipeline_set_user_kernel (self->pipeline, runs ? self->last_good : NULL);
}

static void
on_user_run_cb (KsPipeline *pipeline, gpointer data, KsKernelPanel *self)
{
  const KsUserRunReport *report = data;
  g_autofree char *status = NULL;

  if (report->error == NULL || report->source != self->last_good)
    return;
  if (g_error_matches (report->error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
    status = g_strdup_printf (_("Version %u compiles, but cannot launch: %s"), self->version,
                              report->error->message);
  else
    status = g_strdup_printf (_("Version %u compiles. %s"), self->version,
                              report->error->message);
  set_status (self, status);
}

static void
on_config_changed_cb (KsPipeline *pipeline, KsKernelPanel *self)
{
  sync_param_values (self);
}

/* ---- text, files and templates ----------------------------------------------------------- */

void
ks_kernel_panel_set_text (KsKernelPanel *self, const char *text)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && text != NULL);
  self->loading = TRUE;
  gtk_text_buffer_begin_irreversible_action (GTK_TEXT_BUFFER (self->buffer));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), text, -1);
  gtk_text_buffer_end_irreversible_action (GTK_TEXT_BUFFER (self->buffer));
  self->loading = FALSE;
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
  update_title (self);
  ks_kernel_panel_compile_now (self);
}

gboolean
ks_kernel_panel_load_template (KsKernelPanel *self, const char *name, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self) && name != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (templates); i++)
    {
      if (!g_str_equal (templates[i].name, name))
        continue;
      path = g_strconcat (TEMPLATE_PATH, name, ".cu", NULL);
      bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
      if (bytes == NULL)
        return FALSE;
      text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
      g_clear_object (&self->file);
      g_free (self->name);
      self->name = g_strconcat (name, ".cu", NULL);
      self->loading = TRUE;
      ks_kernel_panel_set_mode (self, templates[i].mode);
      self->loading = FALSE;
      ks_kernel_panel_set_text (self, text);
      return TRUE;
    }
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               _("There is no template “%s”: choose invert, gray, box-blur, add-arrays or "
                 "histogram"), name);
  return FALSE;
}

static void
report_error (KsKernelPanel *self, const char *message)
{
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, message);
}

static void
on_loaded_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsKernelPanel) self = user_data;
  GFile *file = G_FILE (object);
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  if (!g_file_load_contents_finish (file, result, &contents, &length, NULL, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not open the kernel: %s. The "
                                                    "editor’s text stays."), error->message);
      report_error (self, message);
      return;
    }
  if (!g_utf8_validate (contents, (gssize) length, NULL))
    {
      report_error (self, _("That file is not UTF-8 text: the editor’s text stays."));
      return;
    }
  g_set_object (&self->file, file);
  g_free (self->name);
  self->name = g_file_get_basename (file);
  ks_kernel_panel_set_text (self, contents);
}

void
ks_kernel_panel_open_file (KsKernelPanel *self, GFile *file)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && G_IS_FILE (file));
  g_file_load_contents_async (file, NULL, on_loaded_cb, g_object_ref (self));
}

typedef struct
{
  KsKernelPanel *panel;
  char *text;
} SaveData;

static void
on_saved_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SaveData *data = user_data;
  KsKernelPanel *self = data->panel;
  g_autoptr (GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not save the kernel: %s"),
                                                  error->message);
      report_error (self, message);
    }
  else
    {
      g_autofree char *now = buffer_text (self);

      g_set_object (&self->file, G_FILE (object));
      g_free (self->name);
      self->name = g_file_get_basename (self->file);
      /* Edits made while it was written are still unsaved. */
      if (g_str_equal (now, data->text))
        gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
      update_title (self);
    }
  g_object_unref (data->panel);
  g_free (data->text);
  g_free (data);
}

void
ks_kernel_panel_save_file (KsKernelPanel *self, GFile *file)
{
  SaveData *data;

  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && G_IS_FILE (file));
  data = g_new0 (SaveData, 1);
  data->panel = g_object_ref (self);
  data->text = buffer_text (self);
  /* Written to a temporary file and renamed over the old one: a crash
   * halfway leaves the old file whole. */
  g_file_replace_contents_async (file, data->text, strlen (data->text), NULL, FALSE,
                                 G_FILE_CREATE_NONE, NULL, on_saved_cb, data);
}

static void
add_cu_filters (GtkFileChooser *chooser)
{
  g_autoptr (GtkFileFilter) cu = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();

  gtk_file_filter_set_name (cu, _("CUDA sources"));
  gtk_file_filter_add_pattern (cu, "*.cu");
  gtk_file_filter_add_pattern (cu, "*.cuh");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (chooser, cu);
  gtk_file_chooser_add_filter (chooser, all);
}

static void
on_chooser_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  g_autoptr (KsKernelPanel) self = user_data;
  gboolean saving = gtk_file_chooser_get_action (GTK_FILE_CHOOSER (dialog))
                    == GTK_FILE_CHOOSER_ACTION_SAVE;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL && saving)
        ks_kernel_panel_save_file (self, file);
      else if (file != NULL)
        ks_kernel_panel_open_file (self, file);
    }
  g_object_unref (dialog);
}

static void
choose_file (KsKernelPanel *self, gboolean save)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    save ? _("Save Kernel") : _("Open Kernel"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
    save ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_OPEN,
    save ? _("_Save") : _("_Open"), _("_Cancel"));

  add_cu_filters (GTK_FILE_CHOOSER (dialog));
  if (save)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), file_name (self));
  g_signal_connect (dialog, "response", G_CALLBACK (on_chooser_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  choose_file (KS_KERNEL_PANEL (widget), FALSE);
}

static void
save_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (widget);

  if (self->file != NULL && g_str_equal (action_name, "kernel.save"))
    ks_kernel_panel_save_file (self, self->file);
  else
    choose_file (self, TRUE);
}

static void
template_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (widget);
  g_autoptr (GError) error = NULL;

  if (!ks_kernel_panel_load_template (self, g_variant_get_string (parameter, NULL), &error))
    report_error (self, error->message);
}

/* ---- running an "any" kernel on arrays --------------------------------------------------- */

typedef struct
{
  KsWorker *worker;
  KsKernelSource *source;
  KsCompileResult *compiled;
  GPtrArray *bindings;          /* KsBinding, one per argument */
  GPtrArray *arrays;            /* KsArray, one per pointer argument */
  KsLaunchConfig launch;
  KsDim3 grid, block;
  guint64 dynamic_shared;
  KsWorkerRunResult run;
  GPtrArray *result_names;      /* of run.arrays */
} ArraysJob;

static void
arrays_job_free (gpointer data)
{
  ArraysJob *job = data;

  ks_worker_run_result_clear (&job->run);
  g_ptr_array_unref (job->bindings);
  g_ptr_array_unref (job->arrays);
  g_ptr_array_unref (job->result_names);
  g_clear_pointer (&job->compiled, ks_compile_result_free);
  ks_kernel_source_unref (job->source);
  g_object_unref (job->worker);
  g_free (job);
}

static gboolean
arrays_run (ArraysJob *job, GCancellable *cancellable, GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (job->source);
  g_autoptr (KsWorkerLaunch) launch = NULL;

  /* The worker client caches compilations: this one returns at once. */
  job->compiled = ks_worker_compile (job->worker, job->source, &job->launch, FALSE, cancellable,
                                     error);
  if (job->compiled == NULL)
    return FALSE;
  if (!job->compiled->success)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_COMPILE, _("The kernel does not compile"));
      return FALSE;
    }
  launch = ks_worker_launch_new (job->compiled, 0, job->grid, job->block, job->dynamic_shared);
  if (!ks_worker_launch_bind (launch, args, job->bindings, job->arrays, job->result_names, error))
    return FALSE;
  g_ptr_array_add (job->result_names, NULL);
  return ks_worker_run (job->worker, launch, cancellable, &job->run, error);
}

static void
arrays_thread (GTask *task, gpointer source_object, gpointer task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;

  if (arrays_run (task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_arrays_ran_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsKernelPanel) self = user_data;
  ArraysJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  KsUserRunReport report = { 0 };
  static guint launches;

  report.number = ++launches;
  report.source = job->source;
  report.launch.grid = job->grid;
  report.launch.block = job->block;
  report.kernel_ms = -1;
  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      report.kernel_ms = job->run.kernel_ms;
      report.printf_output = job->run.printf_output;
      report.printf_lines = job->run.printf_lines;
      report.printf_lines_lost = job->run.printf_lines_lost;
      if (self->array_view != NULL && job->run.arrays != NULL)
        ks_array_view_set_results (self->array_view, job->run.arrays,
                                   (const char *const *) job->result_names->pdata);
    }
  report.error = error;
  if (error != NULL)
    {
      g_autofree char *status = g_strdup_printf (_("Version %u compiles. %s"), self->version,
                                                 error->message);
      set_status (self, status);
    }
  g_signal_emit (self, signals[SIGNAL_ARRAYS_RAN], 0, &report);
}

static void
run_arrays_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (widget);
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  KsLaunchConfig launch;
  ArraysJob *job;

  if (self->last_good == NULL || ks_kernel_source_get_mode (self->last_good) != KS_KERNEL_MODE_ANY)
    {
      report_error (self, _("Compile a kernel in the “Any kernel” mode first"));
      return;
    }
  job = g_new0 (ArraysJob, 1);
  job->worker = g_object_ref (worker_of (self));
  job->source = ks_kernel_source_ref (self->last_good);
  job->bindings = ks_array_view_get_bindings (self->array_view);
  job->arrays = ks_array_view_create_arrays (self->array_view, &error);
  job->result_names = g_ptr_array_new_with_free_func (g_free);
  if (job->arrays == NULL)
    {
      job->arrays = g_ptr_array_new ();
      arrays_job_free (job);
      report_error (self, error->message);
      return;
    }
  /* The block and grid of the launch panel, as for image kernels; the
   * source's //@block and //@grid when there is no pipeline. */
  if (self->pipeline != NULL)
    launch = *ks_pipeline_get_launch (self->pipeline);
  else
    ks_kernel_source_get_default_launch (job->source, &launch);
  job->launch = launch;
  job->block = launch.block;
  job->grid = launch.grid;
  if (launch.auto_grid || job->grid.x == 0)
    job->grid = ks_worker_auto_grid (&job->block, job->arrays);
  job->dynamic_shared = ks_kernel_source_get_dynamic_shared (job->source);
  task = g_task_new (NULL, NULL, on_arrays_ran_cb, g_object_ref (self));
  g_task_set_task_data (task, job, arrays_job_free);
  g_task_run_in_thread (task, arrays_thread);
}

/* ---- mode, style -------------------------------------------------------------------------- */

static void
sync_mode_buttons (KsKernelPanel *self)
{
  GtkToggleButton *buttons[] = { self->expression_button, self->image_button, self->any_button };

  self->syncing = TRUE;
  gtk_toggle_button_set_active (buttons[self->mode], TRUE);
  self->syncing = FALSE;
}

void
ks_kernel_panel_set_mode (KsKernelPanel *self, KsKernelMode mode)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && mode <= KS_KERNEL_MODE_ANY);
  if (mode == self->mode)
    return;
  self->mode = mode;
  sync_mode_buttons (self);
  show_arrays_page (self, NULL);
  update_title (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODE]);
  if (!self->loading)
    ks_kernel_panel_compile_now (self);
}

KsKernelMode
ks_kernel_panel_get_mode (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), KS_KERNEL_MODE_EXPRESSION);
  return self->mode;
}

static void
on_mode_toggled_cb (GtkToggleButton *button, KsKernelPanel *self)
{
  if (self->syncing || !gtk_toggle_button_get_active (button))
    return;
  ks_kernel_panel_set_mode (self, button == self->expression_button ? KS_KERNEL_MODE_EXPRESSION
                                  : button == self->image_button    ? KS_KERNEL_MODE_IMAGE
                                                                    : KS_KERNEL_MODE_ANY);
}

/* ---- public ------------------------------------------------------------------------------- */

void
ks_kernel_panel_set_pipeline (KsKernelPanel *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));
  g_return_if_fail (pipeline == NULL || KS_IS_PIPELINE (pipeline));

  if (self->pipeline == pipeline)
    return;
  if (self->pipeline != NULL && ks_pipeline_get_user_kernel (self->pipeline) == self->last_good)
    ks_pipeline_set_user_kernel (self->pipeline, NULL);
  g_set_object (&self->pipeline, pipeline);
  g_signal_group_set_target (self->pipeline_signals, pipeline);
  apply_live (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PIPELINE]);
}

KsPipeline *
ks_kernel_panel_get_pipeline (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->pipeline;
}

void
ks_kernel_panel_set_active (KsKernelPanel *self, gboolean active)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));
  active = !!active;
  if (active == self->active)
    return;
  self->active = active;
  apply_live (self);
  if (self->last_good != NULL && self->mode != KS_KERNEL_MODE_ANY)
    {
      g_autofree char *status = g_strdup_printf (active ? _("Version %u is live")
                                                        : _("Version %u is kept; the built-in "
                                                            "operation runs"),
                                                 self->version);
      set_status (self, status);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

gboolean
ks_kernel_panel_get_active (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), FALSE);
  return self->active;
}

GtkSourceBuffer *
ks_kernel_panel_get_buffer (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->buffer;
}

const char *
ks_kernel_panel_get_title (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->title;
}

const char *
ks_kernel_panel_get_status (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->status;
}

guint
ks_kernel_panel_get_version (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), 0);
  return self->version;
}

KsKernelSource *
ks_kernel_panel_get_last_good (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->last_good;
}

const GPtrArray *
ks_kernel_panel_get_diagnostics (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->diagnostics;
}

GtkWidget *
ks_kernel_panel_new (void)
{
  return g_object_new (KS_TYPE_KERNEL_PANEL, NULL);
}

/* ---- GObject ------------------------------------------------------------------------------- */

static void
ks_kernel_panel_dispose (GObject *object)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (object);
  GtkWidget *child;

  g_clear_handle_id (&self->debounce_source, g_source_remove);
  if (self->compile_cancellable != NULL)
    g_cancellable_cancel (self->compile_cancellable);
  g_clear_object (&self->compile_cancellable);
  g_signal_group_set_target (self->pipeline_signals, NULL);
  g_clear_object (&self->pipeline);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_KERNEL_PANEL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->buffer);
  g_clear_object (&self->own_worker);
  g_clear_object (&self->file);
  G_OBJECT_CLASS (ks_kernel_panel_parent_class)->dispose (object);
}

static void
ks_kernel_panel_finalize (GObject *object)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (object);

  g_clear_pointer (&self->last_good, ks_kernel_source_unref);
  g_clear_pointer (&self->last_good_compiled, ks_compile_result_free);
  g_clear_pointer (&self->diagnostics, g_ptr_array_unref);
  g_free (self->name);
  g_free (self->title);
  g_free (self->status);
  g_object_unref (self->pipeline_signals);
  G_OBJECT_CLASS (ks_kernel_panel_parent_class)->finalize (object);
}

static void
ks_kernel_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    case PROP_ACTIVE:
      g_value_set_boolean (value, self->active);
      break;
    case PROP_MODE:
      g_value_set_int (value, self->mode);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_STATUS:
      g_value_set_string (value, self->status);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_kernel_panel_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      ks_kernel_panel_set_pipeline (self, g_value_get_object (value));
      break;
    case PROP_ACTIVE:
      ks_kernel_panel_set_active (self, g_value_get_boolean (value));
      break;
    case PROP_MODE:
      ks_kernel_panel_set_mode (self, (KsKernelMode) g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define RW (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
#define RO (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)

static void
ks_kernel_panel_class_init (KsKernelPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_kernel_panel_dispose;
  object_class->finalize = ks_kernel_panel_finalize;
  object_class->get_property = ks_kernel_panel_get_property;
  object_class->set_property = ks_kernel_panel_set_property;

  properties[PROP_PIPELINE] = g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE, RW);
  properties[PROP_ACTIVE] = g_param_spec_boolean ("active", NULL, NULL, FALSE, RW);
  properties[PROP_MODE] = g_param_spec_int ("mode", NULL, NULL, KS_KERNEL_MODE_EXPRESSION,
                                            KS_KERNEL_MODE_ANY, KS_KERNEL_MODE_EXPRESSION, RW);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, RO);
  properties[PROP_STATUS] = g_param_spec_string ("status", NULL, NULL, NULL, RO);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A run of an "any" kernel (const KsUserRunReport *): the console shows it. */
  signals[SIGNAL_ARRAYS_RAN] = g_signal_new ("arrays-ran", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* A message for a toast: a file that could not be read or written. */
  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "kernel.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "kernel.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "kernel.save-as", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "kernel.template", "s", template_action);
  gtk_widget_class_install_action (widget_class, "kernel.run-arrays", NULL, run_arrays_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "kernel.save",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "kernel.save-as",
                                       NULL);

  /* Languages, style schemes and types; the application calls it too, and
   * a second call does nothing. */
  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  g_type_ensure (KS_TYPE_ARRAY_VIEW);
  g_type_ensure (KS_TYPE_PARAM_EDITOR);
  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-kernel-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, expression_button);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, image_button);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, any_button);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, title_label);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, source_view);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, bottom_stack);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, diagnostics_list);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, resources_group);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, registers_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, shared_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, local_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, spill_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, max_threads_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, arch_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, no_params_label);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, params_group);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, arrays_page);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, arrays_label);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, array_view);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, status_label);
  gtk_widget_class_bind_template_callback (widget_class, on_mode_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_diagnostic_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_param_changed_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

#undef RW
#undef RO

static void
add_category (KsKernelPanel *self, const char *category, const char *icon, int priority)
{
  g_autoptr (GtkSourceMarkAttributes) attributes = gtk_source_mark_attributes_new ();

  gtk_source_mark_attributes_set_icon_name (attributes, icon);
  g_signal_connect (attributes, "query-tooltip-text", G_CALLBACK (on_query_tooltip_text_cb),
                    NULL);
  gtk_source_view_set_mark_attributes (self->source_view, category, attributes, priority);
}

static void
ks_kernel_panel_init (KsKernelPanel *self)
{
  GdkRGBA red = { 0.88, 0.11, 0.14, 1 }, orange = { 0.90, 0.50, 0.0, 1 };

  self->pipeline_signals = g_signal_group_new (KS_TYPE_PIPELINE);
  g_signal_group_connect_object (self->pipeline_signals, "user-run",
                                 G_CALLBACK (on_user_run_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (self->pipeline_signals, "config-changed",
                                 G_CALLBACK (on_config_changed_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));

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

  self->mode = KS_KERNEL_MODE_EXPRESSION;
  sync_mode_buttons (self);
  show_resources (self, NULL);
  show_params (self, NULL);
  update_title (self);
  set_status (self, _("Type an expression or choose a template"));
}
