/* ks-lesson-window-editor.c: the kernel in a KsLessonWindow's editor (the
 * variant's pristine source, and the line under it saying whether an edit
 * can run here) and the launch under it: the lesson's grid and block, or
 * the ones typed in, which run at once, and the number of timed runs. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-lesson-window-private.h"

/* What the editor says under the kernel: whether an edit can run here. */
void
_ks_lesson_window_update_edit_label (KsLessonWindow *self)
{
  gboolean edited = _ks_lesson_window_is_edited (self);
  gboolean cuda = _ks_lesson_window_engine_is_cuda (self);
  const char *text;

  /* The CPU engine runs the lesson's kernel from the PTX NVRTC makes of it,
   * like the GPU: an edit runs on either. */

  gtk_widget_remove_css_class (GTK_WIDGET (self->edit_label), "warning");
  gtk_widget_add_css_class (GTK_WIDGET (self->edit_label), "dim-label");
  if (self->lesson != NULL && self->lesson->host_only)
    text = _("The host’s code, for reading: this lesson runs no kernel, so there is nothing to "
             "edit and run.");
  else if (edited && !cuda)
    text = _("Edited: Run compiles your version with NVRTC and runs it on the CPU engine, "
             "which checks every access; keep the argument names. Reset puts the lesson’s own "
             "kernel back.");
  else if (edited)
    text = _("Edited: Run compiles your version with NVRTC and runs it in the worker process; "
             "keep the argument names. Reset puts the lesson’s own kernel back.");
  else if (!cuda)
    text = _("Edit the kernel and run it: it is compiled with NVRTC and runs on the CPU engine "
             "with CUDA’s blocks, warps and threads, every access checked.");
  else
    text = _("Edit the kernel and run it: it is compiled with NVRTC and runs in the worker "
             "process, and on the CPU engine beside it.");
  gtk_label_set_label (self->edit_label, text);
}

void
_ks_lesson_window_load_source (KsLessonWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *source = ks_lesson_get_source (self->lesson, self->variant, &error);

  g_free (self->pristine);
  self->pristine = source != NULL ? g_strdup (source) : g_strdup ("");
  self->loading = TRUE;
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), self->pristine, -1);
  self->loading = FALSE;
  if (error != NULL)
    _ks_lesson_window_update_status (self, error->message);
  gtk_label_set_label (self->source_name_label, self->variant->source_name);
  /* 11-02's source is the host's code: read, not run. */
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->source_view), !self->lesson->host_only);
  gtk_label_set_label (self->source_heading,
                       self->lesson->host_only ? _("Host code") : _("Kernel"));
  _ks_lesson_window_update_edit_label (self);
}

void
_ks_lesson_window_update_launch (KsLessonWindow *self)
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
      _ks_lesson_window_update_status (self, error->message);
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (self->grid_entry), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->block_entry), "error");
  self->grid = grid;
  self->block = block;
  _ks_lesson_window_update_launch (self);
  self->generation++;
  _ks_lesson_window_request_run (self);
}

static void
on_launch_reset_cb (GtkButton *button, KsLessonWindow *self)
{
  self->grid = self->block = (KsDim3) { 0, 0, 0 };
  gtk_widget_remove_css_class (GTK_WIDGET (self->grid_entry), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->block_entry), "error");
  _ks_lesson_window_update_launch (self);
  self->generation++;
  _ks_lesson_window_request_run (self);
}

/* The row of the grid and block entries, under the launch's label. */
void
_ks_lesson_window_build_launch_row (KsLessonWindow *self)
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
