/* ks-kernel-panel-files.c: where the kernel panel's text comes from and goes:
 * the bundled templates (each in its own mode), .cu files read in the
 * background, the text written atomically, and the file chooser of the
 * open, save and save-as actions. A failure keeps the editor's text and
 * says why through the panel's "error" signal. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-kernel-panel-private.h"

#define TEMPLATE_PATH "/org/kernelscope/Kernelscope/kernels/"

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

void
_ks_kernel_panel_set_text (KsKernelPanel *self, const char *text)
{
  /* Another text: the kernel chooser's pick was for the old one. */
  g_clear_pointer (&self->kernel, g_free);
  /* Text from anywhere but the declaration form leaves the form. */
  _ks_kernel_panel_leave_declared (self);
  self->loading = TRUE;
  gtk_text_buffer_begin_irreversible_action (GTK_TEXT_BUFFER (self->buffer));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), text, -1);
  gtk_text_buffer_end_irreversible_action (GTK_TEXT_BUFFER (self->buffer));
  self->loading = FALSE;
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
  _ks_kernel_panel_update_title (self);
  _ks_kernel_panel_compile_now (self);
}

gboolean
_ks_kernel_panel_load_template (KsKernelPanel *self, const char *name, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *text = NULL;

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
      _ks_kernel_panel_set_mode (self, templates[i].mode);
      self->loading = FALSE;
      _ks_kernel_panel_set_text (self, text);
      return TRUE;
    }
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               _("There is no template “%s”: choose invert, gray, box-blur, add-arrays, "
                 "histogram, declared-axpy, declared-dot or declared-cumsum"), name);
  return FALSE;
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
      _ks_kernel_panel_report_error (self, message);
      return;
    }
  if (!g_utf8_validate (contents, (gssize) length, NULL))
    {
      _ks_kernel_panel_report_error (self,
                                     _("That file is not UTF-8 text: the editor’s text stays."));
      return;
    }
  g_set_object (&self->file, file);
  g_free (self->name);
  self->name = g_file_get_basename (file);
  _ks_kernel_panel_set_text (self, contents);
}

void
_ks_kernel_panel_open_file (KsKernelPanel *self, GFile *file)
{
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
      _ks_kernel_panel_report_error (self, message);
    }
  else
    {
      g_autofree char *now = _ks_kernel_panel_buffer_text (self);

      g_set_object (&self->file, G_FILE (object));
      g_free (self->name);
      self->name = g_file_get_basename (self->file);
      /* Edits made while it was written are still unsaved. */
      if (g_str_equal (now, data->text))
        gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (self->buffer), FALSE);
      _ks_kernel_panel_update_title (self);
    }
  g_object_unref (data->panel);
  g_free (data->text);
  g_free (data);
}

void
_ks_kernel_panel_save_file (KsKernelPanel *self, GFile *file)
{
  SaveData *data;

  data = g_new0 (SaveData, 1);
  data->panel = g_object_ref (self);
  data->text = _ks_kernel_panel_buffer_text (self);
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
        _ks_kernel_panel_save_file (self, file);
      else if (file != NULL)
        _ks_kernel_panel_open_file (self, file);
    }
  g_object_unref (dialog);
}

void
_ks_kernel_panel_choose_file (KsKernelPanel *self, gboolean save)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    save ? _("Save Kernel") : _("Open Kernel"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
    save ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_OPEN,
    save ? _("_Save") : _("_Open"), _("_Cancel"));

  add_cu_filters (GTK_FILE_CHOOSER (dialog));
  if (save)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog),
                                       _ks_kernel_panel_file_name (self));
  g_signal_connect (dialog, "response", G_CALLBACK (on_chooser_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
