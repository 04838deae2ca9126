/* ks-kernel-panel-status.c: what the kernel panel tells, and what all its
 * parts read. The title (the file's name, marked while there are unsaved
 * changes), the status line and the error messages for a toast go out
 * through the panel's property and signal tables, which live here, under
 * every file that notifies or emits; the editor's text and the worker that
 * compiles and runs are read by the editor, the arrays and the files alike,
 * and the declaration form is left from here by whichever puts other text
 * in. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"

GParamSpec *_ks_kernel_panel_properties[N_PROPS];

guint _ks_kernel_panel_signals[N_SIGNALS];

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

/* ---- title and status ------------------------------------------------------------- */

void
_ks_kernel_panel_set_status (KsKernelPanel *self, const char *text)
{
  if (!set_str (&self->status, text))
    return;
  gtk_label_set_label (self->status_label, text);
  g_object_notify_by_pspec (G_OBJECT (self), _ks_kernel_panel_properties[PROP_STATUS]);
}

const char *
_ks_kernel_panel_file_name (KsKernelPanel *self)
{
  static const char *const names[] = { "expression.cu", "kernel.cu", "kernel.cu" };

  return self->name != NULL ? self->name : names[self->mode];
}

void
_ks_kernel_panel_leave_declared (KsKernelPanel *self)
{
  if (self->filling || !self->declared)
    return;
  self->declared = FALSE;
  self->declared_example = NULL;
  g_clear_handle_id (&self->declared_debounce, g_source_remove);
  gtk_widget_set_visible (self->declaration_box, FALSE);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->source_view), TRUE);
}

void
_ks_kernel_panel_update_title (KsKernelPanel *self)
{
  gboolean modified = gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (self->buffer));
  g_autofree char *title = g_strdup_printf ("%s%s", _ks_kernel_panel_file_name (self),
                                            modified ? " •" : "");

  gtk_label_set_label (self->title_label, title);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_label),
                               modified ? _("Unsaved changes") : NULL);
  if (set_str (&self->title, title))
    g_object_notify_by_pspec (G_OBJECT (self), _ks_kernel_panel_properties[PROP_TITLE]);
}

void
_ks_kernel_panel_report_error (KsKernelPanel *self, const char *message)
{
  g_signal_emit (self, _ks_kernel_panel_signals[SIGNAL_ERROR], 0, message);
}

KsWorker *
_ks_kernel_panel_worker_of (KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));

  if (pipeline != NULL)
    return ks_pipeline_get_worker (pipeline);
  if (self->own_worker == NULL)
    self->own_worker = ks_worker_new (-1);
  return self->own_worker;
}

char *
_ks_kernel_panel_buffer_text (KsKernelPanel *self)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (self->buffer), &start, &end);
  return gtk_text_buffer_get_text (GTK_TEXT_BUFFER (self->buffer), &start, &end, TRUE);
}
