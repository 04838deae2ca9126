#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>

#include "ks-device-panel.h"

struct _KsDevicePanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkWidget *cpu_reason_box;
  GtkLabel *cpu_reason_label;
  GtkDropDown *device_dropdown;
  GtkLabel *error_label;
  GtkBox *properties_box;
  AdwActionRow *display_path_row;
  AdwActionRow *gl_renderer_row;
  AdwActionRow *interop_row;

  /* owned references */
  KsDevice *shown_device; /* whose properties are shown */
  char *gl_renderer;
  char *interop_status;

  /* Set while the drop-down follows the pipeline, so that it does not switch
   * devices back. */
  gboolean syncing;
};

G_DEFINE_FINAL_TYPE (KsDevicePanel, ks_device_panel, KS_TYPE_PANEL)

enum
{
  SIGNAL_ERROR,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- rows --------------------------------------------------------------------- */

static GtkWidget *
create_value_row (const char *title, const char *value)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (value);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  /* Values are meant to be copied into notes and bug reports. */
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  /* Short values stay on one line; long ones wrap between words rather
   * than squeezing the title. */
  if (g_utf8_strlen (value, -1) > 24)
    {
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD);
      gtk_label_set_width_chars (GTK_LABEL (label), 16);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 24);
    }
  gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_RIGHT);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  return row;
}

static AdwPreferencesGroup *
ensure_group (GHashTable *groups, GtkBox *box, const char *title)
{
  AdwPreferencesGroup *group = g_hash_table_lookup (groups, title);

  if (group == NULL)
    {
      group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
      adw_preferences_group_set_title (group, title);
      gtk_box_append (box, GTK_WIDGET (group));
      g_hash_table_insert (groups, (gpointer) title, group);
    }
  return group;
}

static char *
format_cuda_version (int version)
{
  if (version <= 0)
    return g_strdup (_("Unknown"));
  return g_strdup_printf ("CUDA %d.%d", version / 1000, version % 1000 / 10);
}

static void
show_device_properties (KsDevicePanel *self, KsDevice *device)
{
  g_autoptr (GHashTable) groups = g_hash_table_new (g_str_hash, g_str_equal);
  const GArray *props;
  GtkWidget *child;

  g_set_object (&self->shown_device, device);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->properties_box))) != NULL)
    gtk_box_remove (self->properties_box, child);

  if (device == NULL)
    return;

  /* Groups appear in the order the engine first reports them. */
  props = ks_device_get_properties (device);
  for (guint i = 0; props != NULL && i < props->len; i++)
    {
      const KsDeviceProperty *prop = &g_array_index (props, KsDeviceProperty, i);
      g_autofree char *value = ks_device_property_format (prop);
      AdwPreferencesGroup *group = ensure_group (groups, self->properties_box,
                                                 prop->group != NULL ? prop->group : "Other");

      adw_preferences_group_add (group, create_value_row (prop->label, value));
    }

  /* The engine reports derived peaks and software versions as properties of
   * CUDA devices; fill them in where a device leaves them out. */
  if (ks_device_get_kind (device) == KS_DEVICE_KIND_CUDA)
    {
      if (!g_hash_table_contains (groups, "Derived"))
        {
          double bandwidth = ks_device_get_peak_bandwidth_gbs (device);
          double fp32 = ks_device_get_peak_fp32_gflops (device);
          AdwPreferencesGroup *group = ensure_group (groups, self->properties_box, "Derived");

          if (bandwidth > 0)
            {
              g_autofree char *text = g_strdup_printf ("%.0f GB/s", bandwidth);
              adw_preferences_group_add (group, create_value_row ("Peak memory bandwidth", text));
            }
          if (fp32 > 0)
            {
              g_autofree char *text = g_strdup_printf ("%.0f GFLOP/s", fp32);
              adw_preferences_group_add (group, create_value_row ("Peak FP32 rate", text));
            }
        }
      if (!g_hash_table_contains (groups, "Software"))
        {
          AdwPreferencesGroup *group = ensure_group (groups, self->properties_box, "Software");
          g_autofree char *driver = format_cuda_version (ks_cuda_driver_version ());
          g_autofree char *runtime = format_cuda_version (ks_cuda_runtime_version ());

          adw_preferences_group_add (group, create_value_row ("Driver supports", driver));
          adw_preferences_group_add (group, create_value_row ("Runtime", runtime));
        }
    }
}

static void
set_row_value (AdwActionRow *row, const char *value)
{
  adw_action_row_set_subtitle (row, value != NULL && *value != '\0' ? value : _("Not known yet"));
}

static void
update_display (KsDevicePanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const char *reason = pipeline != NULL ? ks_pipeline_get_cpu_reason (pipeline)
                                              : NULL;

  gtk_widget_set_visible (self->cpu_reason_box, reason != NULL);
  if (reason != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Running on the CPU engine: %s"), reason);
      gtk_label_set_label (self->cpu_reason_label, text);
    }

  set_row_value (self->display_path_row,
                 pipeline != NULL ? ks_pipeline_get_display_path (pipeline) : NULL);
  set_row_value (self->gl_renderer_row, self->gl_renderer);
  set_row_value (self->interop_row, self->interop_status);
}

/* ---- the device list ---------------------------------------------------------- */

static char *
device_title (KsDevice *device, gpointer user_data)
{
  if (device == NULL)
    return NULL;
  if (ks_device_get_kind (device) == KS_DEVICE_KIND_CPU)
    return g_strdup (_("CPU engine"));
  return g_strdup_printf ("%s (%s)", ks_device_get_name (device), ks_device_get_id (device));
}

static void
select_current_device (KsDevicePanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  GListModel *devices;
  KsDevice *current;
  guint n;

  if (pipeline == NULL)
    return;
  devices = ks_pipeline_get_devices (pipeline);
  current = ks_pipeline_get_device (pipeline);
  n = devices != NULL ? g_list_model_get_n_items (devices) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (KsDevice) device = g_list_model_get_item (devices, i);

      if (device == current)
        {
          self->syncing = TRUE;
          gtk_drop_down_set_selected (self->device_dropdown, i);
          self->syncing = FALSE;
          return;
        }
    }
}

static void
on_device_switched_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsDevicePanel) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *message = NULL;
  KsDevice *wanted;

  if (ks_pipeline_set_device_finish (KS_PIPELINE (object), result, &error))
    return;
  /* Still the device the user chose: the drop-down only follows successes. */
  wanted = gtk_drop_down_get_selected_item (self->device_dropdown);
  message = g_strdup_printf (_("Could not switch to %s: %s"),
                             wanted != NULL ? ks_device_get_name (wanted) : _("that device"),
                             error->message);
  gtk_label_set_label (self->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
  select_current_device (self);
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, message);
}

static void
on_device_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, KsDevicePanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  KsDevice *device;

  if (self->syncing || pipeline == NULL)
    return;
  device = gtk_drop_down_get_selected_item (dropdown);
  if (device == NULL || device == ks_pipeline_get_device (pipeline))
    return;

  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  /* Opening an engine and uploading the images again happen on the worker;
   * the panel follows when the pipeline's "device" changes. */
  ks_pipeline_set_device_async (pipeline, device, NULL, on_device_switched_cb,
                                g_object_ref (self));
}

/* ---- the pipeline ----------------------------------------------------------------- */

static void
update_all (KsDevicePanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  KsDevice *device = pipeline != NULL ? ks_pipeline_get_device (pipeline) : NULL;

  select_current_device (self);
  if (device != self->shown_device)
    show_device_properties (self, device);
  update_display (self);
}

static void
on_pipeline_changed_cb (KsPipeline *pipeline, KsDevicePanel *self)
{
  update_all (self);
}

static void
on_device_lost_cb (KsPipeline *pipeline, const char *reason, KsDevicePanel *self)
{
  update_all (self);
}

static void
ks_device_panel_pipeline_changed (KsPanel *panel, KsPipeline *old_pipeline,
                                  KsPipeline *pipeline)
{
  KsDevicePanel *self = KS_DEVICE_PANEL (panel);

  self->syncing = TRUE;
  gtk_drop_down_set_model (self->device_dropdown,
                           pipeline != NULL ? ks_pipeline_get_devices (pipeline) : NULL);
  self->syncing = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);

  update_all (self);
}

void
ks_device_panel_set_pipeline (KsDevicePanel *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_DEVICE_PANEL (self));
  ks_panel_set_pipeline (KS_PANEL (self), pipeline);
}

void
ks_device_panel_set_display_info (KsDevicePanel *self, const char *gl_renderer,
                                  const char *interop_status)
{
  g_return_if_fail (KS_IS_DEVICE_PANEL (self));

  /* g_set_str () needs GLib 2.76; the project pins 2.74. */
  g_free (self->gl_renderer);
  self->gl_renderer = g_strdup (gl_renderer);
  g_free (self->interop_status);
  self->interop_status = g_strdup (interop_status);
  update_display (self);
}

GtkWidget *
ks_device_panel_new (void)
{
  return g_object_new (KS_TYPE_DEVICE_PANEL, NULL);
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
ks_device_panel_dispose (GObject *object)
{
  KsDevicePanel *self = KS_DEVICE_PANEL (object);

  g_clear_object (&self->shown_device);

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_DEVICE_PANEL);

  G_OBJECT_CLASS (ks_device_panel_parent_class)->dispose (object);
}

static void
ks_device_panel_finalize (GObject *object)
{
  KsDevicePanel *self = KS_DEVICE_PANEL (object);

  g_free (self->gl_renderer);
  g_free (self->interop_status);

  G_OBJECT_CLASS (ks_device_panel_parent_class)->finalize (object);
}

static void
ks_device_panel_class_init (KsDevicePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  KsPanelClass *panel_class = KS_PANEL_CLASS (klass);

  object_class->dispose = ks_device_panel_dispose;
  object_class->finalize = ks_device_panel_finalize;
  panel_class->pipeline_changed = ks_device_panel_pipeline_changed;

  signals[SIGNAL_ERROR] =
    g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-device-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, cpu_reason_box);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, cpu_reason_label);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, device_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, error_label);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, properties_box);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, display_path_row);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, gl_renderer_row);
  gtk_widget_class_bind_template_child (widget_class, KsDevicePanel, interop_row);
  gtk_widget_class_bind_template_callback (widget_class, on_device_selected_cb);

}

static void
ks_device_panel_init (KsDevicePanel *self)
{
  g_autoptr (GtkExpression) title = NULL;

  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "config-changed",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "ran",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "device-lost",
                                 G_CALLBACK (on_device_lost_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));

  title = gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 0, NULL, G_CALLBACK (device_title),
                                       NULL, NULL);
  gtk_drop_down_set_expression (self->device_dropdown, title);
  update_display (self);
}
