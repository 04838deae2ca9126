#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-param-editor.h"

struct _KsParamEditor
{
  AdwPreferencesGroup parent_instance;

  /* owned: copies of the specs the rows show, strings included, since a
   * kernel's specs go away with its source */
  KsParamSpec specs[KS_OP_MAX_PARAMS];
  guint n_specs;

  /* borrowed: the rows (children of the group) and the widgets in them */
  GtkWidget *rows[KS_OP_MAX_PARAMS];
  GtkWidget *widgets[KS_OP_MAX_PARAMS];
  GtkLabel *value_labels[KS_OP_MAX_PARAMS];

  gboolean show_names;
  /* Set while the widgets show values given to the editor, so that their
   * change signals are not taken for the user's. */
  gboolean syncing;
};

G_DEFINE_FINAL_TYPE (KsParamEditor, ks_param_editor, ADW_TYPE_PREFERENCES_GROUP)

enum
{
  PROP_0,
  PROP_SHOW_NAMES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_VALUE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

#define PARAM_INDEX_KEY "ks-param-index"

/* ---- the specs ------------------------------------------------------------------ */

static gboolean
strv_equal0 (const char *const *a, const char *const *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strv_equal (a, b);
}

static gboolean
spec_equal (const KsParamSpec *a, const KsParamSpec *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && g_strcmp0 (a->title, b->title) == 0
         && g_strcmp0 (a->description, b->description) == 0 && a->type == b->type
         && a->min == b->min && a->max == b->max && a->default_value == b->default_value
         && strv_equal0 (a->choices, b->choices)
         && strv_equal0 (a->choice_titles, b->choice_titles);
}

/* KsParamSpec's strings are const for the static tables of the op registry;
 * the editor's copies are its own, hence the casts. */
static void
spec_copy (KsParamSpec *dest, const KsParamSpec *src)
{
  *dest = *src;
  dest->name = g_strdup (src->name);
  dest->title = g_strdup (src->title);
  dest->description = g_strdup (src->description);
  dest->choices = (const char *const *) g_strdupv ((char **) src->choices);
  dest->choice_titles = (const char *const *) g_strdupv ((char **) src->choice_titles);
}

static void
spec_clear (KsParamSpec *spec)
{
  g_free ((char *) spec->name);
  g_free ((char *) spec->title);
  g_free ((char *) spec->description);
  g_strfreev ((char **) spec->choices);
  g_strfreev ((char **) spec->choice_titles);
  memset (spec, 0, sizeof *spec);
}

/* ---- the widgets ---------------------------------------------------------------- */

/* Enough decimals to move in about a hundredth of the range: 0..1 → 0.01 steps,
 * 0..2 → 0.01, 0..10 → 0.1, 0..255 → 1. */
static guint
digits_for_range (double min, double max)
{
  double range = max - min;

  if (range <= 0)
    return 2;
  return (guint) CLAMP (ceil (2.0 - log10 (range)), 0, 4);
}

static void
widget_changed (KsParamEditor *self, GtkWidget *widget, double value)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), PARAM_INDEX_KEY));

  if (self->syncing)
    return;
  g_signal_emit (self, signals[SIGNAL_VALUE_CHANGED], 0, index, value);
}

static void
update_value_label (KsParamEditor *self, guint index, double value)
{
  g_autofree char *text = NULL;

  if (self->value_labels[index] == NULL)
    return;
  /* As the command line and sessions write it. */
  text = ks_param_format_value (&self->specs[index], value);
  gtk_label_set_label (self->value_labels[index], text);
}

static void
on_scale_changed_cb (GtkRange *range, KsParamEditor *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (range), PARAM_INDEX_KEY));
  double value = gtk_range_get_value (range);

  update_value_label (self, index, value);
  widget_changed (self, GTK_WIDGET (range), value);
}

static void
on_spin_changed_cb (GtkSpinButton *spin, KsParamEditor *self)
{
  widget_changed (self, GTK_WIDGET (spin), gtk_spin_button_get_value_as_int (spin));
}

static void
on_switch_active_cb (GObject *object, GParamSpec *pspec, KsParamEditor *self)
{
  widget_changed (self, GTK_WIDGET (object),
                  gtk_switch_get_active (GTK_SWITCH (object)) ? 1.0 : 0.0);
}

static void
on_choice_selected_cb (GObject *object, GParamSpec *pspec, KsParamEditor *self)
{
  guint selected = gtk_drop_down_get_selected (GTK_DROP_DOWN (object));

  if (selected == GTK_INVALID_LIST_POSITION)
    return;
  widget_changed (self, GTK_WIDGET (object), selected);
}

static GtkWidget *
create_widget (KsParamEditor *self, guint index, AdwActionRow *row)
{
  const KsParamSpec *spec = &self->specs[index];
  GtkWidget *widget = NULL;

  switch (spec->type)
    {
    case KS_PARAM_DOUBLE:
      {
        guint digits = digits_for_range (spec->min, spec->max);
        GtkWidget *label = gtk_label_new (NULL);

        widget = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, spec->min, spec->max,
                                           pow (10.0, -(double) digits));
        gtk_scale_set_digits (GTK_SCALE (widget), (int) digits);
        gtk_range_set_round_digits (GTK_RANGE (widget), (int) digits);
        gtk_scale_set_draw_value (GTK_SCALE (widget), FALSE);
        /* A mark at the default shows where the parameter starts from. */
        gtk_scale_add_mark (GTK_SCALE (widget), spec->default_value, GTK_POS_BOTTOM, NULL);
        gtk_widget_set_size_request (widget, 140, -1);
        g_signal_connect_object (widget, "value-changed", G_CALLBACK (on_scale_changed_cb),
                                 self, G_CONNECT_DEFAULT);

        gtk_label_set_width_chars (GTK_LABEL (label), 5);
        gtk_label_set_xalign (GTK_LABEL (label), 1);
        gtk_widget_add_css_class (label, "numeric");
        self->value_labels[index] = GTK_LABEL (label);
        adw_action_row_add_suffix (row, widget);
        adw_action_row_add_suffix (row, label);
        break;
      }

    case KS_PARAM_INT:
      widget = gtk_spin_button_new_with_range (spec->min, spec->max, 1);
      gtk_widget_set_valign (widget, GTK_ALIGN_CENTER);
      g_signal_connect_object (widget, "value-changed", G_CALLBACK (on_spin_changed_cb), self,
                               G_CONNECT_DEFAULT);
      adw_action_row_add_suffix (row, widget);
      break;

    case KS_PARAM_BOOL:
      widget = gtk_switch_new ();
      gtk_widget_set_valign (widget, GTK_ALIGN_CENTER);
      g_signal_connect_object (widget, "notify::active", G_CALLBACK (on_switch_active_cb), self,
                               G_CONNECT_DEFAULT);
      adw_action_row_add_suffix (row, widget);
      adw_action_row_set_activatable_widget (row, widget);
      break;

    case KS_PARAM_CHOICE:
      {
        const char *const *titles = spec->choice_titles != NULL ? spec->choice_titles
                                                                : spec->choices;
        g_autoptr (GtkStringList) model = gtk_string_list_new (titles);

        widget = gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&model)), NULL);
        gtk_widget_set_valign (widget, GTK_ALIGN_CENTER);
        g_signal_connect_object (widget, "notify::selected", G_CALLBACK (on_choice_selected_cb),
                                 self, G_CONNECT_DEFAULT);
        adw_action_row_add_suffix (row, widget);
        break;
      }

    default:
      g_warning ("Parameter “%s” has an unknown type %d", spec->name, spec->type);
      return NULL;
    }

  g_object_set_data (G_OBJECT (widget), PARAM_INDEX_KEY, GUINT_TO_POINTER (index));
  return widget;
}

/* Rows take markup; names, titles and descriptions are plain text. */
static void
update_subtitle (KsParamEditor *self, guint index)
{
  const KsParamSpec *spec = &self->specs[index];
  const char *text = self->show_names ? spec->name : spec->description;
  g_autofree char *escaped = g_markup_escape_text (text != NULL ? text : "", -1);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->rows[index]), escaped);
}

static GtkWidget *
create_row (KsParamEditor *self, guint index)
{
  const KsParamSpec *spec = &self->specs[index];
  GtkWidget *row = adw_action_row_new ();
  g_autofree char *title = g_markup_escape_text (spec->title != NULL ? spec->title : spec->name,
                                                 -1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  self->rows[index] = row;
  update_subtitle (self, index);
  self->widgets[index] = create_widget (self, index, ADW_ACTION_ROW (row));
  return row;
}

static void
clear_rows (KsParamEditor *self)
{
  for (guint i = 0; i < self->n_specs; i++)
    {
      adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self), self->rows[i]);
      spec_clear (&self->specs[i]);
    }
  memset (self->rows, 0, sizeof self->rows);
  memset (self->widgets, 0, sizeof self->widgets);
  memset (self->value_labels, 0, sizeof self->value_labels);
  self->n_specs = 0;
}

/* ---- public --------------------------------------------------------------------- */

void
ks_param_editor_set_specs (KsParamEditor *self, const KsParamSpec *specs, guint n_specs)
{
  KsParams defaults = { { 0 } };
  gboolean same;

  g_return_if_fail (KS_IS_PARAM_EDITOR (self));
  g_return_if_fail (specs != NULL || n_specs == 0);

  n_specs = MIN (n_specs, KS_OP_MAX_PARAMS);
  same = n_specs == self->n_specs;
  for (guint i = 0; i < n_specs && same; i++)
    same = spec_equal (&specs[i], &self->specs[i]);
  if (same)
    return;

  clear_rows (self);
  for (guint i = 0; i < n_specs; i++)
    {
      spec_copy (&self->specs[i], &specs[i]);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self), create_row (self, i));
      self->n_specs = i + 1;
      defaults.values[i] = specs[i].default_value;
    }
  ks_param_editor_set_values (self, &defaults);
}

guint
ks_param_editor_get_n_specs (KsParamEditor *self)
{
  g_return_val_if_fail (KS_IS_PARAM_EDITOR (self), 0);
  return self->n_specs;
}

void
ks_param_editor_set_values (KsParamEditor *self, const KsParams *values)
{
  g_return_if_fail (KS_IS_PARAM_EDITOR (self));
  g_return_if_fail (values != NULL);

  self->syncing = TRUE;
  for (guint i = 0; i < self->n_specs; i++)
    {
      GtkWidget *widget = self->widgets[i];
      double value = values->values[i];

      if (widget == NULL)
        continue;
      switch (self->specs[i].type)
        {
        case KS_PARAM_DOUBLE:
          gtk_range_set_value (GTK_RANGE (widget), value);
          /* The scale does not signal a value it already has. */
          update_value_label (self, i, value);
          break;
        case KS_PARAM_INT:
          gtk_spin_button_set_value (GTK_SPIN_BUTTON (widget), value);
          break;
        case KS_PARAM_BOOL:
          gtk_switch_set_active (GTK_SWITCH (widget), value != 0);
          break;
        case KS_PARAM_CHOICE:
          gtk_drop_down_set_selected (GTK_DROP_DOWN (widget), (guint) value);
          break;
        default:
          break;
        }
    }
  self->syncing = FALSE;
}

void
ks_param_editor_set_show_names (KsParamEditor *self, gboolean show_names)
{
  g_return_if_fail (KS_IS_PARAM_EDITOR (self));

  show_names = !!show_names;
  if (show_names == self->show_names)
    return;
  self->show_names = show_names;
  for (guint i = 0; i < self->n_specs; i++)
    update_subtitle (self, i);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_NAMES]);
}

gboolean
ks_param_editor_get_show_names (KsParamEditor *self)
{
  g_return_val_if_fail (KS_IS_PARAM_EDITOR (self), FALSE);
  return self->show_names;
}

GtkWidget *
ks_param_editor_new (void)
{
  return g_object_new (KS_TYPE_PARAM_EDITOR, NULL);
}

/* ---- GObject -------------------------------------------------------------------- */

static void
ks_param_editor_dispose (GObject *object)
{
  KsParamEditor *self = KS_PARAM_EDITOR (object);

  /* The group disposes the rows; only the pointers into them go here. */
  memset (self->rows, 0, sizeof self->rows);
  memset (self->widgets, 0, sizeof self->widgets);
  memset (self->value_labels, 0, sizeof self->value_labels);

  G_OBJECT_CLASS (ks_param_editor_parent_class)->dispose (object);
}

static void
ks_param_editor_finalize (GObject *object)
{
  KsParamEditor *self = KS_PARAM_EDITOR (object);

  for (guint i = 0; i < self->n_specs; i++)
    spec_clear (&self->specs[i]);

  G_OBJECT_CLASS (ks_param_editor_parent_class)->finalize (object);
}

static void
ks_param_editor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsParamEditor *self = KS_PARAM_EDITOR (object);

  switch (prop_id)
    {
    case PROP_SHOW_NAMES:
      g_value_set_boolean (value, self->show_names);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_param_editor_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  KsParamEditor *self = KS_PARAM_EDITOR (object);

  switch (prop_id)
    {
    case PROP_SHOW_NAMES:
      ks_param_editor_set_show_names (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_param_editor_class_init (KsParamEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_param_editor_dispose;
  object_class->finalize = ks_param_editor_finalize;
  object_class->get_property = ks_param_editor_get_property;
  object_class->set_property = ks_param_editor_set_property;

  properties[PROP_SHOW_NAMES] =
    g_param_spec_boolean ("show-names", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_VALUE_CHANGED] =
    g_signal_new ("value-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_DOUBLE);
}

static void
ks_param_editor_init (KsParamEditor *self)
{
}
