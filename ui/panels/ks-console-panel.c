#include "config.h"

#include <glib/gi18n.h>

#include "ks-console-panel.h"

/* Enough for a long session of printf without the text view slowing down:
 * older launches are dropped first. */
#define MAX_CHARS (4 * 1024 * 1024)

struct _KsConsolePanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkLabel *summary_label;
  GtkScrolledWindow *scroller;
  GtkTextView *text_view;

  /* owned references */
  char *last_failure;       /* the message of the last entry when it was a failure */

  /* borrowed: marks in the view's buffer */
  GtkTextMark *entry_start; /* where the last entry begins */
  guint n_launches;
};

G_DEFINE_FINAL_TYPE (KsConsolePanel, ks_console_panel, KS_TYPE_PANEL)

static GtkTextBuffer *
buffer_of (KsConsolePanel *self)
{
  return gtk_text_view_get_buffer (self->text_view);
}

static void
insert (KsConsolePanel *self, const char *text, const char *tag)
{
  GtkTextBuffer *buffer = buffer_of (self);
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  if (tag != NULL)
    gtk_text_buffer_insert_with_tags_by_name (buffer, &end, text, -1, tag, NULL);
  else
    gtk_text_buffer_insert (buffer, &end, text, -1);
}

static void
scroll_to_end (KsConsolePanel *self)
{
  GtkTextBuffer *buffer = buffer_of (self);
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_move_mark (buffer, gtk_text_buffer_get_insert (buffer), &end);
  gtk_text_view_scroll_mark_onscreen (self->text_view, gtk_text_buffer_get_insert (buffer));
}

static void
trim (KsConsolePanel *self)
{
  GtkTextBuffer *buffer = buffer_of (self);
  int excess = gtk_text_buffer_get_char_count (buffer) - MAX_CHARS;
  GtkTextIter start, cut;

  if (excess <= 0)
    return;
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_get_iter_at_offset (buffer, &cut, excess);
  gtk_text_iter_forward_line (&cut);
  gtk_text_buffer_delete (buffer, &start, &cut);
}

/* Starts an entry; the previous one goes when it was the same failure. */
static void
begin_entry (KsConsolePanel *self, const char *failure)
{
  GtkTextBuffer *buffer = buffer_of (self);
  GtkTextIter start, end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  if (failure != NULL && g_strcmp0 (failure, self->last_failure) == 0)
    {
      gtk_text_buffer_get_iter_at_mark (buffer, &start, self->entry_start);
      gtk_text_buffer_delete (buffer, &start, &end);
    }
  else
    gtk_text_buffer_move_mark (buffer, self->entry_start, &end);
  g_free (self->last_failure);
  self->last_failure = g_strdup (failure);
}

static void
update_summary (KsConsolePanel *self)
{
  g_autofree char *text = NULL;

  if (self->n_launches == 0)
    text = g_strdup (_("Device printf of your kernel appears here"));
  else
    text = g_strdup_printf (ngettext ("%u launch", "%u launches", self->n_launches),
                            self->n_launches);
  gtk_label_set_label (self->summary_label, text);
}

static char *
format_dim3 (const KsDim3 *d)
{
  return g_strdup_printf ("%u×%u×%u", d->x, d->y, d->z);
}

/* What the user can do about it, after the cause the worker named. */
static char *
describe_failure (const GError *error, gboolean emulated)
{
  if (emulated && error->domain == KS_ERROR && (error->code == KS_ERROR_KERNEL_FAULT
                                                || error->code == KS_ERROR_TIMED_OUT))
    /* TRANSLATORS: the CPU engine's message, a full stop where it has none, and what happened. */
    return g_strdup_printf (_("%s%s Your text and the last good result are kept."),
                            error->message, g_str_has_suffix (error->message, ".") ? "" : ".");
  if (error->domain == KS_ERROR && (error->code == KS_ERROR_KERNEL_FAULT
                                    || error->code == KS_ERROR_TIMED_OUT
                                    || error->code == KS_ERROR_WORKER))
    /* TRANSLATORS: the worker's message, a full stop where it has none, and what happened. */
    return g_strdup_printf (_("%s%s The worker was restarted; your text and the last good "
                              "result are kept."), error->message,
                            g_str_has_suffix (error->message, ".") ? "" : ".");
  return g_strdup (error->message);
}

/* What the CPU engine's checks found, in compute-sanitizer's form, and how
 * many; nothing found is said too, since the checks ran. */
static void
insert_findings (KsConsolePanel *self, const KsUserRunReport *report)
{
  g_autofree char *summary = NULL;
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, report->n_findings);

  for (guint i = 0; report->findings != NULL && i < report->findings->len; i++)
    {
      const KsEmuFinding *f = g_ptr_array_index (report->findings, i);

      insert (self, f->message, "error");
      insert (self, "\n", "error");
    }
  if (report->findings != NULL && report->n_findings > report->findings->len)
    {
      g_autofree char *more = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                               report->n_findings - report->findings->len);
      g_autofree char *text = g_strdup_printf (_("… and %s more\n"), more);

      insert (self, text, "error");
    }
  if (report->n_findings == 0)
    summary = g_strdup (_("The CPU engine checked every access: no errors.\n"));
  else
    summary = g_strdup_printf (ngettext ("The CPU engine’s checks found %s error.\n",
                                         "The CPU engine’s checks found %s errors.\n",
                                         report->n_findings), count);
  insert (self, summary, report->n_findings == 0 ? "note" : "error");
}

void
ks_console_panel_add_report (KsConsolePanel *self, const KsUserRunReport *report)
{
  g_autofree char *grid = NULL;
  g_autofree char *block = NULL;
  g_autofree char *header = NULL;
  g_autofree char *failure = NULL;

  g_return_if_fail (KS_IS_CONSOLE_PANEL (self) && report != NULL);

  failure = report->error != NULL ? describe_failure (report->error, report->emulated) : NULL;
  begin_entry (self, failure);
  self->n_launches++;

  grid = format_dim3 (&report->launch.grid);
  block = format_dim3 (&report->launch.block);
  if (report->kernel_ms >= 0)
    /* TRANSLATORS: the launch's number, the engine that ran it, grid, block, time. */
    header = g_strdup_printf (_("Launch %u · %s · grid %s · block %s · %.3f ms\n"),
                              report->number, report->engine != NULL ? report->engine : "",
                              grid, block, report->kernel_ms);
  else
    header = g_strdup_printf (_("Launch %u · %s · grid %s · block %s · did not run\n"),
                              report->number, report->engine != NULL ? report->engine : "",
                              grid, block);
  insert (self, header, "header");
  if (report->emulated)
    insert_findings (self, report);

  if (report->printf_output != NULL && *report->printf_output != '\0')
    {
      insert (self, report->printf_output, "output");
      if (!g_str_has_suffix (report->printf_output, "\n"))
        insert (self, "\n", "output");
    }
  else if (report->error == NULL)
    insert (self, _("The kernel printed nothing.\n"), "note");

  if (report->printf_lines_lost > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, report->printf_lines_lost);
      g_autofree char *lost = g_strdup_printf (
        ngettext ("%s line was lost: the device’s printf buffer overflowed\n",
                  "%s lines were lost: the device’s printf buffer overflowed\n",
                  report->printf_lines_lost),
        count);
      insert (self, lost, "warning");
    }
  if (failure != NULL)
    {
      insert (self, failure, "error");
      insert (self, "\n", "error");
    }
  else if (report->worker_restarted)
    insert (self, _("The worker process was started again.\n"), "note");
  insert (self, "\n", NULL);

  trim (self);
  update_summary (self);
  scroll_to_end (self);
}

void
ks_console_panel_add_note (KsConsolePanel *self, const char *text)
{
  g_return_if_fail (KS_IS_CONSOLE_PANEL (self) && text != NULL);
  begin_entry (self, NULL);
  insert (self, text, "note");
  insert (self, "\n\n", NULL);
  trim (self);
  scroll_to_end (self);
}

void
ks_console_panel_clear (KsConsolePanel *self)
{
  g_return_if_fail (KS_IS_CONSOLE_PANEL (self));
  gtk_text_buffer_set_text (buffer_of (self), "", 0);
  g_clear_pointer (&self->last_failure, g_free);
  self->n_launches = 0;
  update_summary (self);
}

char *
ks_console_panel_get_text (KsConsolePanel *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (KS_IS_CONSOLE_PANEL (self), NULL);
  gtk_text_buffer_get_bounds (buffer_of (self), &start, &end);
  return gtk_text_buffer_get_text (buffer_of (self), &start, &end, FALSE);
}

static void
on_clear_clicked_cb (GtkButton *button, KsConsolePanel *self)
{
  ks_console_panel_clear (self);
}

static void
on_user_run_cb (KsPipeline *pipeline, gpointer report, KsConsolePanel *self)
{
  ks_console_panel_add_report (self, report);
}

GtkWidget *
ks_console_panel_new (void)
{
  return g_object_new (KS_TYPE_CONSOLE_PANEL, NULL);
}

static void
ks_console_panel_dispose (GObject *object)
{
  KsConsolePanel *self = KS_CONSOLE_PANEL (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_CONSOLE_PANEL);
  G_OBJECT_CLASS (ks_console_panel_parent_class)->dispose (object);
}

static void
ks_console_panel_finalize (GObject *object)
{
  KsConsolePanel *self = KS_CONSOLE_PANEL (object);

  g_free (self->last_failure);
  G_OBJECT_CLASS (ks_console_panel_parent_class)->finalize (object);
}

static void
ks_console_panel_class_init (KsConsolePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_console_panel_dispose;
  object_class->finalize = ks_console_panel_finalize;

  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-console-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsConsolePanel, summary_label);
  gtk_widget_class_bind_template_child (widget_class, KsConsolePanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, KsConsolePanel, text_view);
  gtk_widget_class_bind_template_callback (widget_class, on_clear_clicked_cb);

}

static void
ks_console_panel_init (KsConsolePanel *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start;

  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "user-run",
                                 G_CALLBACK (on_user_run_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));

  buffer = buffer_of (self);
  gtk_text_buffer_create_tag (buffer, "header", "weight", PANGO_WEIGHT_BOLD, NULL);
  gtk_text_buffer_create_tag (buffer, "output", "family", "Monospace", NULL);
  gtk_text_buffer_create_tag (buffer, "note", "style", PANGO_STYLE_ITALIC, NULL);
  gtk_text_buffer_create_tag (buffer, "warning", "foreground", "#c64600", NULL);
  gtk_text_buffer_create_tag (buffer, "error", "foreground", "#c01c28", NULL);
  gtk_text_buffer_get_start_iter (buffer, &start);
  self->entry_start = gtk_text_buffer_create_mark (buffer, NULL, &start, TRUE);
  update_summary (self);
}
