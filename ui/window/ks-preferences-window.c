/* The preferences: each row bound to its GSettings key, so that a change
 * takes effect and is kept at once; the choices of a combo row are the key's
 * string choices, in the order of the row's model. */
#include "config.h"

#include <glib/gi18n.h>

#include "kernelscope.h"
#include "ks-preferences-window.h"

struct _KsPreferencesWindow
{
  AdwPreferencesWindow parent_instance;

  AdwComboRow *engine_row;
  AdwActionRow *device_row;
  GtkSpinButton *device_spin;
  AdwComboRow *launch_row;
  GtkSpinButton *repeats_spin;
  GtkSwitch *restore_switch;
  AdwComboRow *style_row;
  GtkSpinButton *time_limit_spin;
  GtkSpinButton *printf_spin;

  GSettings *settings;
};

G_DEFINE_FINAL_TYPE (KsPreferencesWindow, ks_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static const char *const engine_choices[] = { "auto", "cuda", "cpu", NULL };
static const char *const launch_choices[] = { "fastest", "teaching", NULL };
static const char *const style_choices[] = { "default", "light", "dark", NULL };

/* A string key ↔ a combo row's "selected": user_data is the choices. */
static gboolean
choice_to_selected (GValue *value, GVariant *variant, gpointer user_data)
{
  const char *const *choices = user_data;
  const char *s = g_variant_get_string (variant, NULL);

  for (guint i = 0; choices[i] != NULL; i++)
    if (g_str_equal (choices[i], s))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
selected_to_choice (const GValue *value, const GVariantType *type, gpointer user_data)
{
  const char *const *choices = user_data;
  guint selected = g_value_get_uint (value);

  if (selected >= g_strv_length ((char **) choices))
    return NULL;
  return g_variant_new_string (choices[selected]);
}

static void
bind_choice (KsPreferencesWindow *self, const char *key, AdwComboRow *row,
             const char *const *choices)
{
  g_settings_bind_with_mapping (self->settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                choice_to_selected, selected_to_choice, (gpointer) choices, NULL);
}

/* The device row names the CUDA devices this machine has. */
static void
describe_devices (KsPreferencesWindow *self)
{
  g_autoptr (GPtrArray) devices = ks_devices_enumerate ();
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      KsDevice *device = g_ptr_array_index (devices, i);

      if (ks_device_get_kind (device) != KS_DEVICE_KIND_CUDA)
        continue;
      g_string_append_printf (s, "%s%d: %s", s->len > 0 ? ", " : "",
                              ks_device_get_ordinal (device), ks_device_get_name (device));
    }
  adw_action_row_set_subtitle (self->device_row,
                               s->len > 0 ? s->str : _("No CUDA device on this machine"));
}

static void
ks_preferences_window_dispose (GObject *object)
{
  KsPreferencesWindow *self = KS_PREFERENCES_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (ks_preferences_window_parent_class)->dispose (object);
}

static void
ks_preferences_window_class_init (KsPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_preferences_window_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kernelscope/Kernelscope/ui/"
                                               "ks-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, engine_row);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, device_row);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, device_spin);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, launch_row);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, repeats_spin);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, restore_switch);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, style_row);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, time_limit_spin);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, printf_spin);
}

static void
ks_preferences_window_init (KsPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

KsPreferencesWindow *
ks_preferences_window_new (GtkWindow *parent, GSettings *settings)
{
  KsPreferencesWindow *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  self = g_object_new (KS_TYPE_PREFERENCES_WINDOW, "transient-for", parent,
                       "modal", parent != NULL, NULL);
  self->settings = g_object_ref (settings);
  bind_choice (self, "default-engine", self->engine_row, engine_choices);
  bind_choice (self, "launch-defaults", self->launch_row, launch_choices);
  bind_choice (self, "color-scheme", self->style_row, style_choices);
  g_settings_bind (settings, "default-device", gtk_spin_button_get_adjustment (self->device_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "measure-repeats",
                   gtk_spin_button_get_adjustment (self->repeats_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "restore-last", self->restore_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "kernel-time-limit",
                   gtk_spin_button_get_adjustment (self->time_limit_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "printf-buffer", gtk_spin_button_get_adjustment (self->printf_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  describe_devices (self);
  return self;
}
