/* ks-kernel-panel.c: the kernel editor panel (see ks-kernel-panel.h): the
 * widget, its template and actions, its pipeline, and its public functions.
 *
 * Every function that checks or casts the type is here, where the type is
 * defined, and hands the work to the file of its concern, which never calls
 * back: ks-kernel-panel-files.c (templates, open, save),
 * ks-kernel-panel-includes.c (include folders, the kernel chooser),
 * ks-kernel-panel-editor.c (the editor, compiling as the user types, the
 * mode, the kernel going live), ks-kernel-panel-arrays.c (binding and
 * running an "any" kernel), ks-kernel-panel-declared.c (the declaration
 * form of declared kernels), ks-kernel-panel-cards.c (resources and
 * parameters) and ks-kernel-panel-status.c (title, status, errors). */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"

G_DEFINE_FINAL_TYPE (KsKernelPanel, ks_kernel_panel, KS_TYPE_PANEL)

/* ---- actions ------------------------------------------------------------------------------ */

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_kernel_panel_choose_file (KS_KERNEL_PANEL (widget), FALSE);
}

static void
save_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (widget);

  if (self->file != NULL && g_str_equal (action_name, "kernel.save"))
    ks_kernel_panel_save_file (self, self->file);
  else
    _ks_kernel_panel_choose_file (self, TRUE);
}

static void
template_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (widget);
  g_autoptr (GError) error = NULL;

  if (!ks_kernel_panel_load_template (self, g_variant_get_string (parameter, NULL), &error))
    _ks_kernel_panel_report_error (self, error->message);
}

static void
run_arrays_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_kernel_panel_run_arrays (KS_KERNEL_PANEL (widget));
}

static void
compile_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_kernel_panel_compile_now (KS_KERNEL_PANEL (widget));
}

static void
add_include_dir_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_kernel_panel_choose_include_dir (KS_KERNEL_PANEL (widget));
}

static void
clear_include_dirs_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_kernel_panel_set_include_dirs (KS_KERNEL_PANEL (widget), NULL);
}

/* ---- the pipeline ------------------------------------------------------------------------- */

/* Whether the newest finished compile failed: its status line ("Does not
 * compile …") then stays, whatever an earlier version's run reports. */
static gboolean
newest_compile_failed (KsKernelPanel *self)
{
  for (guint i = 0; self->diagnostics != NULL && i < self->diagnostics->len; i++)
    if (((const KsDiagnostic *) g_ptr_array_index (self->diagnostics, i))->severity
        == KS_DIAGNOSTIC_ERROR)
      return TRUE;
  return FALSE;
}

static void
on_user_run_cb (KsPipeline *pipeline, gpointer data, KsKernelPanel *self)
{
  const KsUserRunReport *report = data;
  g_autofree char *status = NULL;

  /* The console has every report; the status line speaks of the newest. */
  if (report->source != self->last_good || newest_compile_failed (self))
    return;
  if (report->error == NULL)
    {
      g_autofree char *count = NULL;

      if (!report->emulated)
        return;
      if (report->n_findings == 0)
        {
          status = g_strdup_printf (_("Version %u is live on the CPU engine · every access "
                                      "checked, no errors"), self->version);
          _ks_kernel_panel_set_status (self, status);
          return;
        }
      count = g_strdup_printf ("%" G_GUINT64_FORMAT, report->n_findings);
      status = g_strdup_printf (ngettext ("Version %u ran; the CPU engine found %s error in it "
                                          "(the console has the report)",
                                          "Version %u ran; the CPU engine found %s errors in it "
                                          "(the console has the report)",
                                          report->n_findings), self->version, count);
    }
  else if (g_error_matches (report->error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
    status = g_strdup_printf (_("Version %u compiles, but cannot launch: %s"), self->version,
                              report->error->message);
  else
    status = g_strdup_printf (_("Version %u compiles. %s"), self->version,
                              report->error->message);
  _ks_kernel_panel_set_status (self, status);
}

static void
on_config_changed_cb (KsPipeline *pipeline, KsKernelPanel *self)
{
  _ks_kernel_panel_sync_param_values (self);
}

/* The last good kernel runs in the pipeline only while the panel has it. */
static void
ks_kernel_panel_pipeline_changed (KsPanel *panel, KsPipeline *old_pipeline, KsPipeline *pipeline)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (panel);

  if (old_pipeline != NULL && ks_pipeline_get_user_kernel (old_pipeline) == self->last_good)
    ks_pipeline_set_user_kernel (old_pipeline, NULL);
  _ks_kernel_panel_apply_live (self);
}

/* ---- public ------------------------------------------------------------------------------- */

void
ks_kernel_panel_set_active (KsKernelPanel *self, gboolean active)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));
  active = !!active;
  if (active == self->active)
    return;
  self->active = active;
  _ks_kernel_panel_apply_live (self);
  if (self->last_good != NULL && self->mode != KS_KERNEL_MODE_ANY)
    {
      g_autofree char *status = g_strdup_printf (active ? _("Version %u is live")
                                                        : _("Version %u is kept; the built-in "
                                                            "operation runs"),
                                                 self->version);
      _ks_kernel_panel_set_status (self, status);
    }
  g_object_notify_by_pspec (G_OBJECT (self), _ks_kernel_panel_properties[PROP_ACTIVE]);
}

gboolean
ks_kernel_panel_get_active (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), FALSE);
  return self->active;
}

void
ks_kernel_panel_set_mode (KsKernelPanel *self, KsKernelMode mode)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && mode <= KS_KERNEL_MODE_ANY);

  _ks_kernel_panel_set_mode (self, mode);
}

KsKernelMode
ks_kernel_panel_get_mode (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), KS_KERNEL_MODE_EXPRESSION);
  return self->mode;
}

GtkSourceBuffer *
ks_kernel_panel_get_buffer (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->buffer;
}

void
ks_kernel_panel_set_text (KsKernelPanel *self, const char *text)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && text != NULL);

  _ks_kernel_panel_set_text (self, text);
}

gboolean
ks_kernel_panel_load_template (KsKernelPanel *self, const char *name, GError **error)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self) && name != NULL, FALSE);

  if (_ks_kernel_panel_load_declared (self, name))
    return TRUE;
  return _ks_kernel_panel_load_template (self, name, error);
}

void
ks_kernel_panel_open_file (KsKernelPanel *self, GFile *file)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && G_IS_FILE (file));

  _ks_kernel_panel_open_file (self, file);
}

void
ks_kernel_panel_save_file (KsKernelPanel *self, GFile *file)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self) && G_IS_FILE (file));

  _ks_kernel_panel_save_file (self, file);
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

gboolean
ks_kernel_panel_is_compiling (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), FALSE);
  return self->debounce_source != 0 || self->declared_debounce != 0
         || self->compile_cancellable != NULL;
}

void
ks_kernel_panel_set_include_dirs (KsKernelPanel *self, const char *const *dirs)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));

  _ks_kernel_panel_set_include_dirs (self, dirs);
}

const char *const *
ks_kernel_panel_get_include_dirs (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return (const char *const *) self->include_dirs;
}

const char *
ks_kernel_panel_get_kernel (KsKernelPanel *self)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), NULL);
  return self->kernel;
}

void
ks_kernel_panel_set_kernel (KsKernelPanel *self, const char *kernel)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));

  _ks_kernel_panel_set_kernel (self, kernel);
}

gboolean
ks_kernel_panel_get_declaration (KsKernelPanel *self, KsDeclaration *declaration)
{
  g_return_val_if_fail (KS_IS_KERNEL_PANEL (self), FALSE);
  g_return_val_if_fail (declaration != NULL, FALSE);

  return _ks_kernel_panel_get_declaration (self, declaration);
}

void
ks_kernel_panel_set_declaration (KsKernelPanel *self, const KsDeclaration *declaration)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));
  g_return_if_fail (declaration != NULL);
  g_return_if_fail (declaration->kind <= KS_DECLARED_EXCLUSIVE_SCAN);

  _ks_kernel_panel_set_declaration (self, declaration, NULL);
}

void
ks_kernel_panel_compile_now (KsKernelPanel *self)
{
  g_return_if_fail (KS_IS_KERNEL_PANEL (self));

  _ks_kernel_panel_compile_now (self);
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

  g_clear_handle_id (&self->debounce_source, g_source_remove);
  g_clear_handle_id (&self->declared_debounce, g_source_remove);
  if (self->compile_cancellable != NULL)
    g_cancellable_cancel (self->compile_cancellable);
  g_clear_object (&self->compile_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_KERNEL_PANEL);
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
  g_strfreev (self->include_dirs);
  g_free (self->kernel);
  g_free (self->name);
  g_free (self->title);
  g_free (self->status);
  G_OBJECT_CLASS (ks_kernel_panel_parent_class)->finalize (object);
}

static void
ks_kernel_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsKernelPanel *self = KS_KERNEL_PANEL (object);

  switch (prop_id)
    {
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
  KsPanelClass *panel_class = KS_PANEL_CLASS (klass);

  object_class->dispose = ks_kernel_panel_dispose;
  object_class->finalize = ks_kernel_panel_finalize;
  object_class->get_property = ks_kernel_panel_get_property;
  object_class->set_property = ks_kernel_panel_set_property;
  panel_class->pipeline_changed = ks_kernel_panel_pipeline_changed;

  _ks_kernel_panel_properties[PROP_ACTIVE] = g_param_spec_boolean ("active", NULL, NULL, FALSE, RW);
  _ks_kernel_panel_properties[PROP_MODE] =
    g_param_spec_int ("mode", NULL, NULL, KS_KERNEL_MODE_EXPRESSION, KS_KERNEL_MODE_ANY,
                      KS_KERNEL_MODE_EXPRESSION, RW);
  _ks_kernel_panel_properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, RO);
  _ks_kernel_panel_properties[PROP_STATUS] = g_param_spec_string ("status", NULL, NULL, NULL, RO);
  g_object_class_install_properties (object_class, N_PROPS, _ks_kernel_panel_properties);

  /* A run of an "any" kernel (const KsUserRunReport *): the console shows it. */
  _ks_kernel_panel_signals[SIGNAL_ARRAYS_RAN] =
    g_signal_new ("arrays-ran", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* A message for a toast: a file that could not be read or written. */
  _ks_kernel_panel_signals[SIGNAL_ERROR] =
    g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "kernel.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "kernel.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "kernel.save-as", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "kernel.template", "s", template_action);
  gtk_widget_class_install_action (widget_class, "kernel.run-arrays", NULL, run_arrays_action);
  gtk_widget_class_install_action (widget_class, "kernel.compile", NULL, compile_action);
  gtk_widget_class_install_action (widget_class, "kernel.add-include-dir", NULL,
                                   add_include_dir_action);
  gtk_widget_class_install_action (widget_class, "kernel.clear-include-dirs", NULL,
                                   clear_include_dirs_action);
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
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, kernel_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, kernel_list);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, include_label);
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
  _ks_kernel_panel_class_init_editor (widget_class);
  _ks_kernel_panel_class_init_cards (widget_class);
  _ks_kernel_panel_class_init_includes (widget_class);
  _ks_kernel_panel_class_init_declared (widget_class);
}

#undef RW

#undef RO

static void
ks_kernel_panel_init (KsKernelPanel *self)
{
  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "user-run",
                                 G_CALLBACK (on_user_run_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "config-changed",
                                 G_CALLBACK (on_config_changed_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));

  _ks_kernel_panel_setup_editor (self);
  self->loading = TRUE;
  _ks_kernel_panel_set_include_dirs (self, NULL);
  self->loading = FALSE;

  self->mode = KS_KERNEL_MODE_EXPRESSION;
  _ks_kernel_panel_sync_mode_buttons (self);
  _ks_kernel_panel_show_resources (self, NULL);
  _ks_kernel_panel_show_params (self, NULL);
  _ks_kernel_panel_update_title (self);
  _ks_kernel_panel_set_status (self, _("Type an expression or choose a template"));
}
