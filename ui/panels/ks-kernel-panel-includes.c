/* ks-kernel-panel-includes.c: what the editor's text is compiled with
 * besides itself: the include folders (#include "…" looks in the opened
 * file's folder first, then in them, in order; chosen with a folder
 * chooser), and the kernel chooser, shown when the text has several
 * __global__ functions, whose pick runs in place of the text's //@kernel.
 * A change of either compiles again, through the panel's kernel.compile. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-kernel-panel-private.h"

/* ---- the source --------------------------------------------------------------------- */

static gboolean
names_kernel (KsKernelSource *source, const char *kernel)
{
  const char *const *kernels = ks_kernel_source_get_kernels (source);
  const char *lt = strchr (kernel, '<');
  g_autofree char *base = g_strndup (kernel, lt != NULL ? (gsize) (lt - kernel) : strlen (kernel));

  return g_strv_contains (kernels, base);
}

/* The editor's text as a source: the opened file's folder and the include
 * folders for its headers, and the chooser's pick while the text still has
 * a kernel of that name. */
KsKernelSource *
_ks_kernel_panel_new_source (KsKernelPanel *self, const char *text)
{
  g_autoptr (GFile) parent = self->file != NULL ? g_file_get_parent (self->file) : NULL;
  g_autofree char *folder = parent != NULL ? g_file_get_path (parent) : NULL;
  KsKernelSourceOptions options = { 0 };
  KsKernelSource *source;

  options.source_dir = folder;
  options.include_dirs = (const char *const *) self->include_dirs;
  options.kernel = self->kernel;
  source = ks_kernel_source_new_full (self->mode, _ks_kernel_panel_file_name (self), text,
                                      &options);
  if (self->kernel != NULL && !names_kernel (source, self->kernel))
    {
      /* Renamed or deleted: the text decides again. */
      g_clear_pointer (&self->kernel, g_free);
      ks_kernel_source_unref (source);
      options.kernel = NULL;
      source = ks_kernel_source_new_full (self->mode, _ks_kernel_panel_file_name (self), text,
                                          &options);
    }
  return source;
}

/* ---- the kernel chooser ------------------------------------------------------------- */

static gboolean
list_equals (GtkStringList *list, const char *const *names)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (list));

  if (n != g_strv_length ((char **) names))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (gtk_string_list_get_string (list, i), names[i]) != 0)
      return FALSE;
  return TRUE;
}

/* Shown for two kernels or more, with the one that runs selected (none
 * while the text does not say which). */
void
_ks_kernel_panel_show_kernels (KsKernelPanel *self, KsKernelSource *source)
{
  const char *const *kernels = ks_kernel_source_get_kernels (source);
  const char *entry = ks_kernel_source_get_entry (source);
  guint n = g_strv_length ((char **) kernels);
  guint selected = GTK_INVALID_LIST_POSITION;

  self->syncing_kernels = TRUE;
  if (!list_equals (self->kernel_list, kernels))
    gtk_string_list_splice (self->kernel_list, 0,
                            g_list_model_get_n_items (G_LIST_MODEL (self->kernel_list)),
                            kernels);
  for (guint i = 0; entry != NULL && i < n; i++)
    {
      gsize len = strlen (kernels[i]);

      if (strncmp (entry, kernels[i], len) == 0 && (entry[len] == '\0' || entry[len] == '<'))
        selected = i;
    }
  gtk_drop_down_set_selected (self->kernel_dropdown, selected);
  gtk_widget_set_visible (GTK_WIDGET (self->kernel_dropdown), n > 1);
  self->syncing_kernels = FALSE;
}

static void
on_kernel_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, KsKernelPanel *self)
{
  guint selected = gtk_drop_down_get_selected (dropdown);
  const char *name;

  if (self->syncing_kernels || selected == GTK_INVALID_LIST_POSITION)
    return;
  name = gtk_string_list_get_string (self->kernel_list, selected);
  if (name != NULL)
    _ks_kernel_panel_set_kernel (self, name);
}

void
_ks_kernel_panel_set_kernel (KsKernelPanel *self, const char *kernel)
{
  if (g_strcmp0 (kernel, self->kernel) == 0)
    return;
  g_free (self->kernel);
  self->kernel = g_strdup (kernel);
  gtk_widget_activate_action (GTK_WIDGET (self), "kernel.compile", NULL);
}

/* ---- include folders ---------------------------------------------------------------- */

static void
update_include_label (KsKernelPanel *self)
{
  g_autoptr (GString) text = NULL;

  if (self->include_dirs[0] == NULL)
    {
      gtk_label_set_label (self->include_label,
                           _("No include folders: #include \"…\" looks in the kernel file’s "
                             "folder only. Kernelscope serves the standard headers (stdio.h, "
                             "math.h, stdint.h, cuComplex.h, …) itself."));
      return;
    }
  text = g_string_new (_("#include looks in the kernel file’s folder, then in:"));
  for (guint i = 0; self->include_dirs[i] != NULL; i++)
    g_string_append_printf (text, "\n%s", self->include_dirs[i]);
  gtk_label_set_label (self->include_label, text->str);
}

void
_ks_kernel_panel_set_include_dirs (KsKernelPanel *self, const char *const *dirs)
{
  static const char *const none[] = { NULL };

  if (dirs == NULL)
    dirs = none;
  if (self->include_dirs != NULL
      && g_strv_equal ((const char *const *) self->include_dirs, dirs))
    return;
  g_strfreev (self->include_dirs);
  self->include_dirs = g_strdupv ((char **) dirs);
  update_include_label (self);
  if (!self->loading)
    gtk_widget_activate_action (GTK_WIDGET (self), "kernel.compile", NULL);
}

static void
on_folder_chosen_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  g_autoptr (KsKernelPanel) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

      if (path == NULL)
        _ks_kernel_panel_report_error (self, _("That folder is not on this computer’s file "
                                               "system: choose a local folder"));
      else if (!g_strv_contains ((const char *const *) self->include_dirs, path))
        {
          g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
          g_auto (GStrv) dirs = NULL;

          g_strv_builder_addv (builder, (const char **) self->include_dirs);
          g_strv_builder_add (builder, path);
          dirs = g_strv_builder_end (builder);
          _ks_kernel_panel_set_include_dirs (self, (const char *const *) dirs);
        }
    }
  g_object_unref (dialog);
}

/* GTK 4.8 has no GtkFileDialog: the native chooser, selecting a folder. */
void
_ks_kernel_panel_choose_include_dir (KsKernelPanel *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    _("Add Include Folder"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
    GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Add"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_folder_chosen_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* The template's handler of the chooser, bound by ks_kernel_panel_class_init. */
void
_ks_kernel_panel_class_init_includes (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_kernel_selected_cb);
}
