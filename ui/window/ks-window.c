/* ks-window.c: the KsWindow type — its G_DEFINE_FINAL_TYPE, class_init,
 * init and dispose, which call into each concern's file, and every entry
 * point that checks that it was given a KsWindow: the public functions of
 * ks-window.h and the one callback of all the window's actions.
 * ks-window-private.h says why the checks live here and nowhere else. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-panel-types.h"
#include "ks-window-lessons.h"
#include "ks-window-private.h"

#define KS_X_DECLARE(name) GType name##_get_type (void);
KS_PANEL_TYPES (KS_X_DECLARE)
#undef KS_X_DECLARE

G_DEFINE_FINAL_TYPE (KsWindow, ks_window, ADW_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_PIPELINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

const char *
ks_window_get_last_message (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->last_message;
}

GtkWidget *
ks_window_get_view (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->view);
}

KsPipeline *
ks_window_get_pipeline (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->pipeline;
}

KsKernelPanel *
ks_window_get_kernel_panel (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->kernel_panel;
}

KsConsolePanel *
ks_window_get_console_panel (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->console_panel;
}

void
ks_window_open_image (KsWindow *self, KsImage *image, const char *name, KsInputSlot slot)
{
  g_return_if_fail (KS_IS_WINDOW (self) && image != NULL);
  _ks_window_open_image (self, image, name, slot);
}

void
ks_window_open_file (KsWindow *self, GFile *file, KsInputSlot slot)
{
  g_return_if_fail (KS_IS_WINDOW (self) && G_IS_FILE (file));
  _ks_window_open_file (self, file, slot);
}

void
ks_window_save_result (KsWindow *self, GFile *file)
{
  g_return_if_fail (KS_IS_WINDOW (self) && G_IS_FILE (file));
  _ks_window_save_result (self, file);
}

char *
ks_window_get_debug_info (KsWindow *self)
{
  const char *renderer, *interop, *path, *why = NULL;
  KsDevice *device = NULL;
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  renderer = ks_image_view_get_gl_renderer (self->view);
  interop = ks_image_view_get_interop_status (self->view);
  path = ks_image_view_get_display_path (self->view);
  if (self->pipeline != NULL)
    {
      device = ks_pipeline_get_device (self->pipeline);
      why = ks_pipeline_get_cpu_reason (self->pipeline);
    }
  g_string_append_printf (s, "Engine device: %s (%s)\n",
                          device != NULL ? ks_device_get_name (device) : "(none)",
                          device != NULL ? ks_device_get_id (device) : "-");
  if (why != NULL)
    g_string_append_printf (s, "CPU engine because: %s\n", why);
  g_string_append_printf (s, "GL renderer: %s\n", renderer != NULL ? renderer : "(not realized)");
  g_string_append_printf (s, "Interop: %s\n", interop != NULL ? interop : "(unknown)");
  g_string_append_printf (s, "Display path: %s\n", path != NULL ? path : "(nothing shown yet)");
  return g_string_free (s, FALSE);
}

/* ---- actions ----------------------------------------------------------------------------- */

/* Every action of the window, each in the file of its concern. */
static const KsWindowActionEntry *const action_tables[] = {
  _ks_window_actions,
  _ks_window_camera_actions,
  _ks_window_lessons_actions,
  _ks_window_view_actions,
  _ks_window_panes_actions,
};

/* The callback of every action: GTK calls it with the widget whose class
 * installed the action, checked and cast here before the handler of the
 * action's name runs. */
static void
activate_cb (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsWindow *self = KS_WINDOW (widget);

  for (guint t = 0; t < G_N_ELEMENTS (action_tables); t++)
    for (const KsWindowActionEntry *entry = action_tables[t]; entry->name != NULL; entry++)
      if (g_str_equal (entry->name, action_name))
        {
          entry->activate (self, action_name, parameter);
          return;
        }
  g_assert_not_reached ();
}

/* ---- the type ---------------------------------------------------------------------------- */

static void
ks_window_dispose (GObject *object)
{
  KsWindow *self = KS_WINDOW (object);

  g_clear_handle_id (&self->display_info_source, g_source_remove);
  /* The forced dark style is the application's: give it back with the window. */
  if (self->presenter)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                          self->scheme_before_presenter);
      self->presenter = FALSE;
    }
  if (self->sweep_window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->sweep_window),
                                  (gpointer *) &self->sweep_window);
  self->sweep_window = NULL;
  if (self->pipeline != NULL)
    g_signal_handlers_disconnect_by_data (self->pipeline, self);
  if (self->settings != NULL)
    {
      int width, height;

      g_signal_handlers_disconnect_by_data (self->settings, self);
      gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
      g_settings_set (self->settings, "window-size", "(ii)", width, height);
      g_settings_set_boolean (self->settings, "window-maximized",
                              gtk_window_is_maximized (GTK_WINDOW (self)));
      g_settings_set_boolean (self->settings, "show-left-panel",
                              _ks_window_get_left_visible (self));
      g_settings_set_boolean (self->settings, "show-right-panel",
                              _ks_window_get_right_visible (self));
    }
  _ks_window_session_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_WINDOW);
  g_clear_object (&self->settings);
  g_clear_object (&self->pipeline);
  G_OBJECT_CLASS (ks_window_parent_class)->dispose (object);
}

static void
ks_window_finalize (GObject *object)
{
  KsWindow *self = KS_WINDOW (object);

  g_free (self->last_message);
  for (guint i = 0; i < G_N_ELEMENTS (self->input_files); i++)
    {
      g_clear_object (&self->input_files[i]);
      g_free (self->input_samples[i]);
    }
  G_OBJECT_CLASS (ks_window_parent_class)->finalize (object);
}

static void
ks_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsWindow *self = KS_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_window_class_init (KsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_window_dispose;
  object_class->finalize = ks_window_finalize;
  object_class->get_property = ks_window_get_property;

  /* The panels in ks-window.ui bind their own "pipeline" to it. */
  properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The template's own classes: the view and every panel of ui/meson.build. */
  g_type_ensure (KS_TYPE_IMAGE_VIEW);
#define KS_X_ENSURE(name) g_type_ensure (name##_get_type ());
  KS_PANEL_TYPES (KS_X_ENSURE)
#undef KS_X_ENSURE

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kernelscope/Kernelscope/ui/ks-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, left_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, right_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, left_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, left_separator);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, right_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, right_separator);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, view);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, inspector_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, split_adjustment);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, zoom_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, device_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, timing_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, kernel_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, kernel_pane);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, kernel_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, console_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, overlay_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, opacity_scale);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, opacity_adjustment);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, cost_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, legend_label);
  _ks_window_class_init_status (widget_class);

  for (guint t = 0; t < G_N_ELEMENTS (action_tables); t++)
    for (const KsWindowActionEntry *entry = action_tables[t]; entry->name != NULL; entry++)
      gtk_widget_class_install_action (widget_class, entry->name, entry->parameter_type,
                                       activate_cb);
  _ks_window_class_init_actions (widget_class);
  _ks_window_class_init_camera (widget_class);
  _ks_window_class_init_lessons (widget_class);
  _ks_window_class_init_view (widget_class);
  _ks_window_class_init_panes (widget_class);
}

static GSettings *
settings_if_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  /* Run from the build tree without the compiled schema: no persistence, no abort. */
  if (source == NULL)
    return NULL;
  schema = g_settings_schema_source_lookup (source, "org.kernelscope.Kernelscope", TRUE);
  return schema != NULL ? g_settings_new ("org.kernelscope.Kernelscope") : NULL;
}

/* The worker's limits follow the settings, also when they change. */
static void
on_kernel_settings_changed_cb (GSettings *settings, const char *key, KsWindow *self)
{
  ks_pipeline_set_kernel_limits (self->pipeline,
                                 g_settings_get_uint (settings, "kernel-time-limit"),
                                 g_settings_get_uint (settings, "printf-buffer"));
}

static void
on_start_device_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_device_finish (KS_PIPELINE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not start on the preferred device: "
                                                    "%s"), error->message);
      _ks_window_toast (self, message);
    }
}

/* The engine of the preferences, where it is not the one the pipeline chose
 * itself; a last session applied later may move it to the last window's. */
static void
start_on_preferred_device (KsWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) device = _ks_window_settings_start_device (self->settings, &error);
  KsDevice *current = ks_pipeline_get_device (self->pipeline);

  if (device == NULL)
    {
      if (error != NULL)
        {
          g_autofree char *message = g_strdup_printf (_("Could not start on the preferred "
                                                        "device: %s"), error->message);
          _ks_window_toast (self, message);
        }
      return;
    }
  if (current != NULL && g_str_equal (ks_device_get_id (current), ks_device_get_id (device)))
    return;
  ks_pipeline_set_device_async (self->pipeline, device, NULL, on_start_device_cb,
                                g_object_ref (self));
}

static void
ks_window_init (KsWindow *self)
{
  /* Before the template: its bindings hand the pipeline to every panel. */
  self->pipeline = ks_pipeline_new ();
  gtk_widget_init_template (GTK_WIDGET (self));

  _ks_window_setup_status (self);
  _ks_window_setup_view (self);
  _ks_window_setup_panes (self);
  _ks_window_setup_dnd (self);

  self->settings = settings_if_installed ();
  if (self->settings != NULL)
    {
      int width = 0, height = 0;
      g_settings_get (self->settings, "window-size", "(ii)", &width, &height);
      if (width > 0 && height > 0)
        gtk_window_set_default_size (GTK_WINDOW (self), width, height);
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      _ks_window_set_panels_visible (self,
                                     g_settings_get_boolean (self->settings, "show-left-panel"),
                                     g_settings_get_boolean (self->settings, "show-right-panel"));
      g_signal_connect (self->settings, "changed::kernel-time-limit",
                        G_CALLBACK (on_kernel_settings_changed_cb), self);
      g_signal_connect (self->settings, "changed::printf-buffer",
                        G_CALLBACK (on_kernel_settings_changed_cb), self);
      on_kernel_settings_changed_cb (self->settings, NULL, self);
      g_settings_bind (self->settings, "measure-repeats",
                       ks_timing_panel_get_repeats_adjustment (self->timing_panel), "value",
                       G_SETTINGS_BIND_DEFAULT);
      _ks_window_settings_follow_style (self->settings, self);
      _ks_window_settings_apply_launch_defaults (self->settings, self->pipeline);
      _ks_window_settings_follow_launch_defaults (self->settings, self->pipeline);
      start_on_preferred_device (self);
    }
  _ks_window_setup_recent (self);
  _ks_window_setup_camera (self);
  _ks_window_refresh_status (self);
}

KsWindow *
ks_window_new (GtkApplication *application)
{
  return g_object_new (KS_TYPE_WINDOW, "application", application, NULL);
}
