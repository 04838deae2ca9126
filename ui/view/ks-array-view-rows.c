/* ks-array-view-rows.c: the array view's argument rows. One row per
 * argument of the signature, built from its binding: for a pointer, the
 * element type (a scalar, or the pointee's vector, complex or struct type
 * by its C name), length, initial data (and its parameters or file) and
 * direction; for a scalar, its value as text (a number, or a vector,
 * complex or struct value as the command line writes it: (1, 2, 3),
 * 1.5-2j, {pos=(1, 2, 3), mass=2}). What the user enters there is written
 * back into the binding, each row shows the check of its own binding, and
 * the summary the check of them all. The helpers for the view's file
 * dialogs are here too, for the data files chosen in a row and for the
 * results' "Save…". */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <adwaita.h>

#include "ks-array-view-private.h"

#define ARG_INDEX_KEY "ks-arg-index"
#define INIT_FIELD_KEY "ks-init-field"

guint _ks_array_view_signals[N_SIGNALS];

/* TRANSLATORS: which way an array is copied: to the GPU, back from it, or both. */
static const char *const direction_titles[] = { N_("in"), N_("out"), N_("in-out"), NULL };
/* In the order of KsArrayInit. */
static const char *const init_titles[] = {
  N_("Zeros"), N_("Range"), N_("Constant"), N_("Uniform random"), N_("Normal random"),
  N_("File"), NULL
};
static const char *const scalar_type_names[] = {
  "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", NULL
};
#define N_SCALAR_TYPES (G_N_ELEMENTS (scalar_type_names) - 1)

void
_ks_array_view_arg_row_free (gpointer data)
{
  ArgRow *row = data;

  g_free (row->declared);
  g_free (row);
}

const KsKernelArg *
_ks_array_view_get_arg (KsArrayView *self, guint index)
{
  return g_ptr_array_index (self->args, index);
}

KsBinding *
_ks_array_view_get_binding (KsArrayView *self, guint index)
{
  return g_ptr_array_index (self->bindings, index);
}

ArgRow *
_ks_array_view_get_row (KsArrayView *self, guint index)
{
  return g_ptr_array_index (self->rows, index);
}

/* "const float *a", "int n": the argument as the signature spells it. */
static char *
format_declared (const KsKernelArg *arg)
{
  const char *type = arg->type_text != NULL ? arg->type_text : "";
  gsize len = strlen (type);

  if (len == 0)
    return g_strdup (arg->name);
  if (type[len - 1] == '*' || type[len - 1] == '&')
    return g_strconcat (type, arg->name, NULL);
  return g_strconcat (type, " ", arg->name, NULL);
}

/* ---- element types ----------------------------------------------------------------- */

/* The vector, complex or struct type an array binding's elements have, by
 * name ("float4", "Particle"); NULL for scalars. */
static const char *
bound_value_name (const KsBinding *binding)
{
  return binding->element != NULL ? binding->element->name : binding->type_name;
}

static gboolean
binding_is_struct (const KsBinding *binding)
{
  return binding->type_name != NULL
         || (binding->element != NULL && binding->element->kind == KS_VALUE_STRUCT);
}

gboolean
_ks_array_view_has_pointee (const KsBinding *binding, const KsKernelArg *arg)
{
  const char *bound = bound_value_name (binding);

  if (arg->value != NULL)
    return bound != NULL && g_str_equal (bound, arg->value->name);
  return bound == NULL && binding->type == arg->type;
}

static void
set_value_type (KsBinding *binding, KsValueType *type)
{
  g_clear_pointer (&binding->element, ks_value_type_unref);
  g_clear_pointer (&binding->type_name, g_free);
  if (type->kind == KS_VALUE_STRUCT)
    {
      /* A struct's layout is the kernel's: the binding names it, and the
       * array is made with the argument's type. */
      binding->type = KS_ELEM_OTHER;
      binding->type_name = g_strdup (type->name);
      if (binding->init != KS_ARRAY_INIT_ZEROS && binding->init != KS_ARRAY_INIT_FILE)
        binding->init = KS_ARRAY_INIT_ZEROS;
    }
  else
    {
      binding->type = type->scalar;
      binding->element = ks_value_type_ref (type);
    }
}

static void
set_scalar_type (KsBinding *binding, KsElemType type)
{
  g_clear_pointer (&binding->element, ks_value_type_unref);
  g_clear_pointer (&binding->type_name, g_free);
  binding->type = type;
}

void
_ks_array_view_set_pointee (KsBinding *binding, const KsKernelArg *arg)
{
  if (arg->value != NULL)
    set_value_type (binding, arg->value);
  else if (arg->type != KS_ELEM_OTHER)
    set_scalar_type (binding, arg->type);
}

/* ---- checking ---------------------------------------------------------------------- */

static GPtrArray *
all_bindings (KsArrayView *self)
{
  GPtrArray *all = g_ptr_array_new ();

  for (guint i = 0; i < self->bindings->len; i++)
    g_ptr_array_add (all, g_ptr_array_index (self->bindings, i));
  for (guint i = 0; i < self->extra->len; i++)
    g_ptr_array_add (all, g_ptr_array_index (self->extra, i));
  return all;
}

static const char *
check_icon_name (KsBindingCheck check)
{
  switch (check)
    {
    case KS_BINDING_ERROR:
      return "dialog-error-symbolic";
    case KS_BINDING_WARNING:
      return "dialog-warning-symbolic";
    case KS_BINDING_OK:
    default:
      return "emblem-ok-symbolic";
    }
}

static void
set_check_style (GtkWidget *widget, KsBindingCheck check)
{
  gtk_widget_remove_css_class (widget, "error");
  gtk_widget_remove_css_class (widget, "warning");
  gtk_widget_remove_css_class (widget, "success");
  gtk_widget_add_css_class (widget, check == KS_BINDING_ERROR     ? "error"
                                    : check == KS_BINDING_WARNING ? "warning"
                                                                  : "success");
}

static char *
join_messages (const GPtrArray *messages)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < messages->len; i++)
    {
      const KsDiagnostic *diagnostic = g_ptr_array_index (messages, i);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, diagnostic->message);
    }
  return g_string_free (text, FALSE);
}

/* Each row is checked on its own, so that its findings are exactly those of
 * its argument; the summary comes from the check of everything together,
 * which also finds what no row owns (a binding for a name that is no
 * argument). */
static void
update_row_check (KsArrayView *self, guint index)
{
  const KsKernelArg *arg = _ks_array_view_get_arg (self, index);
  KsBinding *binding = _ks_array_view_get_binding (self, index);
  ArgRow *row = _ks_array_view_get_row (self, index);
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_autoptr (GPtrArray) bindings = g_ptr_array_new ();
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func (
    (GDestroyNotify) ks_diagnostic_free);
  g_autofree char *message_text = NULL;
  g_autofree char *subtitle = NULL;
  KsBindingCheck check;

  g_ptr_array_add (args, (gpointer) arg);
  g_ptr_array_add (bindings, binding);
  check = ks_bindings_check (args, bindings, messages);
  message_text = join_messages (messages);

  if (arg->pointer && binding->is_array)
    {
      g_autofree char *text = ks_binding_to_string (binding);
      const char *eq = strchr (text, '=');
      const char *spec = eq != NULL ? eq + 1 : text;

      subtitle = *message_text != '\0' ? g_strconcat (spec, "\n", message_text, NULL)
                                       : g_strdup (spec);
    }
  else
    subtitle = g_strdup (message_text);

  if (ADW_IS_EXPANDER_ROW (row->row))
    adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row->row), subtitle);
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row->row), subtitle);
  gtk_image_set_from_icon_name (row->check_icon, check_icon_name (check));
  gtk_widget_set_visible (GTK_WIDGET (row->check_icon), check != KS_BINDING_OK);
  /* A value that does not parse is marked where it was typed. */
  if (row->value_entry != NULL)
    {
      if (check == KS_BINDING_ERROR)
        gtk_widget_add_css_class (GTK_WIDGET (row->value_entry), "error");
      else
        gtk_widget_remove_css_class (GTK_WIDGET (row->value_entry), "error");
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->check_icon),
                               *message_text != '\0' ? message_text : NULL);
  set_check_style (GTK_WIDGET (row->check_icon), check);
}

void
_ks_array_view_update_summary (KsArrayView *self)
{
  g_autoptr (GPtrArray) all = all_bindings (self);
  g_autofree char *text = NULL;

  g_ptr_array_set_size (self->messages, 0);
  self->check = ks_bindings_check (self->args, all, self->messages);

  if (self->messages->len > 0)
    text = join_messages (self->messages);
  else if (self->args->len > 0)
    text = g_strdup (_("Every argument is bound: ready to run."));
  /* One finding a line, each cut to the panel's width (a wrapping label
   * beside the icon measures inconsistently in GTK 4.8): the whole text is
   * in the tooltip and under each row. */
  gtk_label_set_label (self->summary_label, text != NULL ? text : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->summary_label), text);
  gtk_image_set_from_icon_name (self->summary_icon, check_icon_name (self->check));
  set_check_style (GTK_WIDGET (self->summary_icon), self->check);
  gtk_widget_set_visible (self->summary_box, text != NULL);
}

void
_ks_array_view_update_checks (KsArrayView *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    update_row_check (self, i);
  _ks_array_view_update_summary (self);
}

/* ---- from the bindings to the widgets ---------------------------------------------- */

static void
show_init_params (ArgRow *row, KsArrayInit init)
{
  gtk_widget_set_visible (row->start_row, init == KS_ARRAY_INIT_RANGE);
  gtk_widget_set_visible (row->step_row, init == KS_ARRAY_INIT_RANGE);
  gtk_widget_set_visible (row->value_row, init == KS_ARRAY_INIT_CONST);
  gtk_widget_set_visible (row->seed_row,
                          init == KS_ARRAY_INIT_UNIFORM || init == KS_ARRAY_INIT_NORMAL);
  gtk_widget_set_visible (row->mean_row, init == KS_ARRAY_INIT_NORMAL);
  gtk_widget_set_visible (row->sd_row, init == KS_ARRAY_INIT_NORMAL);
  gtk_widget_set_visible (row->file_row, init == KS_ARRAY_INIT_FILE);
}

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

static void
set_list (GtkStringList *list, const char *const *names)
{
  if (!list_equals (list, names))
    gtk_string_list_splice (list, 0, g_list_model_get_n_items (G_LIST_MODEL (list)), names);
}

/* The element types a pointer's row offers: the ten scalars, then the
 * pointee's own when it is a vector, complex or struct type, and the
 * binding's when it is yet another one (as a binding's text may give);
 * the binding's selected. */
static void
sync_type_choices (ArgRow *row, const KsKernelArg *arg, const KsBinding *binding)
{
  const char *names[N_SCALAR_TYPES + 3];
  const char *bound = bound_value_name (binding);
  guint n = 0, selected = GTK_INVALID_LIST_POSITION;

  for (guint i = 0; i < N_SCALAR_TYPES; i++)
    names[n++] = scalar_type_names[i];
  if (arg->value != NULL)
    names[n++] = arg->value->name;
  if (bound != NULL && (arg->value == NULL || !g_str_equal (bound, arg->value->name)))
    names[n++] = bound;
  names[n] = NULL;
  set_list (row->type_names, names);

  if (bound != NULL)
    {
      for (guint i = N_SCALAR_TYPES; i < n; i++)
        if (g_str_equal (names[i], bound))
          selected = i;
    }
  else if (binding->type < N_SCALAR_TYPES)
    selected = binding->type;
  gtk_drop_down_set_selected (row->type_dropdown, selected);
}

/* The initial data a pointer's row offers: all of it, but for a struct's
 * array zeros or a file (its fields have no range or random numbers to
 * fill them with). */
static void
sync_init_choices (ArgRow *row, const KsBinding *binding)
{
  const char *titles[G_N_ELEMENTS (init_titles)];
  guint selected = GTK_INVALID_LIST_POSITION;

  row->n_inits = 0;
  for (guint i = 0; init_titles[i] != NULL; i++)
    if (!binding_is_struct (binding) || i == KS_ARRAY_INIT_ZEROS || i == KS_ARRAY_INIT_FILE)
      {
        row->inits[row->n_inits] = (KsArrayInit) i;
        titles[row->n_inits++] = _(init_titles[i]);
      }
  titles[row->n_inits] = NULL;
  set_list (row->init_names, titles);
  for (guint i = 0; i < row->n_inits; i++)
    if (row->inits[i] == binding->init)
      selected = i;
  gtk_drop_down_set_selected (row->init_dropdown, selected);
}

void
_ks_array_view_sync_row (KsArrayView *self, guint index)
{
  const KsKernelArg *arg = _ks_array_view_get_arg (self, index);
  const KsBinding *binding = _ks_array_view_get_binding (self, index);
  ArgRow *row = _ks_array_view_get_row (self, index);

  self->syncing = TRUE;
  if (row->type_dropdown != NULL && binding->is_array)
    {
      sync_type_choices (row, arg, binding);
      gtk_spin_button_set_value (row->length_spin, (double) binding->length);
      sync_init_choices (row, binding);
      switch (binding->init)
        {
        case KS_ARRAY_INIT_RANGE:
          gtk_spin_button_set_value (row->start_spin, binding->init_a);
          gtk_spin_button_set_value (row->step_spin, binding->init_b);
          break;
        case KS_ARRAY_INIT_CONST:
          gtk_spin_button_set_value (row->value_spin, binding->init_a);
          break;
        case KS_ARRAY_INIT_UNIFORM:
          gtk_spin_button_set_value (row->seed_spin, binding->init_a);
          break;
        case KS_ARRAY_INIT_NORMAL:
          gtk_spin_button_set_value (row->seed_spin, binding->init_a);
          gtk_spin_button_set_value (row->mean_spin, binding->init_b);
          gtk_spin_button_set_value (row->sd_spin, binding->init_c);
          break;
        case KS_ARRAY_INIT_ZEROS:
        case KS_ARRAY_INIT_FILE:
        default:
          break;
        }
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row->file_row),
                                   binding->path != NULL ? binding->path : _("No file chosen"));
      show_init_params (row, binding->init);
      gtk_drop_down_set_selected (row->direction_dropdown,
                                  ks_binding_resolve_direction (binding, arg));
    }
  else if (row->value_entry != NULL)
    {
      const char *value = binding->value != NULL ? binding->value : "";

      if (g_strcmp0 (gtk_editable_get_text (row->value_entry), value) != 0)
        gtk_editable_set_text (row->value_entry, value);
    }
  self->syncing = FALSE;
}

/* ---- from the widgets to the bindings ---------------------------------------------- */

static guint
widget_arg_index (gpointer widget)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), ARG_INDEX_KEY));
}

static void
binding_changed (KsArrayView *self, guint index)
{
  update_row_check (self, index);
  _ks_array_view_update_summary (self);
  g_signal_emit (self, _ks_array_view_signals[SIGNAL_BINDINGS_CHANGED], 0);
}

/* The binding a user edits in a row is an array binding; a row whose
 * binding came from the command line as a value is turned into one. */
static KsBinding *
edited_array_binding (KsArrayView *self, guint index)
{
  KsBinding *binding = _ks_array_view_get_binding (self, index);

  if (!binding->is_array)
    {
      binding->is_array = TRUE;
      binding->type = KS_ELEM_FLOAT32;
      binding->length = KS_ARRAY_VIEW_DEFAULT_LENGTH;
      binding->init = KS_ARRAY_INIT_ZEROS;
      g_clear_pointer (&binding->value, g_free);
      _ks_array_view_set_pointee (binding, _ks_array_view_get_arg (self, index));
    }
  return binding;
}

static void
on_type_selected_cb (GObject *object, GParamSpec *pspec, KsArrayView *self)
{
  guint index = widget_arg_index (object);
  guint selected = gtk_drop_down_get_selected (GTK_DROP_DOWN (object));
  const KsKernelArg *arg = _ks_array_view_get_arg (self, index);
  ArgRow *row = _ks_array_view_get_row (self, index);
  const char *name;
  KsBinding *binding;

  if (self->syncing || selected == GTK_INVALID_LIST_POSITION)
    return;
  binding = edited_array_binding (self, index);
  if (selected < N_SCALAR_TYPES)
    {
      if (bound_value_name (binding) == NULL && binding->type == (KsElemType) selected)
        return;
      set_scalar_type (binding, (KsElemType) selected);
    }
  else
    {
      name = gtk_string_list_get_string (row->type_names, selected);
      /* Past the scalars: the pointee's type, or the binding's own. */
      if (name == NULL || g_strcmp0 (name, bound_value_name (binding)) == 0)
        return;
      if (arg->value == NULL || !g_str_equal (name, arg->value->name))
        return;
      set_value_type (binding, arg->value);
    }
  /* A struct's array offers other initial data than a scalar's. */
  _ks_array_view_sync_row (self, index);
  binding_changed (self, index);
}

static void
on_length_changed_cb (GtkSpinButton *spin, KsArrayView *self)
{
  guint index = widget_arg_index (spin);
  gsize length = (gsize) gtk_spin_button_get_value (spin);
  KsBinding *binding;

  if (self->syncing)
    return;
  binding = edited_array_binding (self, index);
  if (binding->length == length)
    return;
  binding->length = length;
  binding_changed (self, index);
}

/* Each kind of initial data starts from its own parameters: the fields are
 * shared (init_a is a range's start and a generator's seed), so what one
 * kind left there means nothing to the next. */
static void
reset_init_params (KsBinding *binding, guint index)
{
  switch (binding->init)
    {
    case KS_ARRAY_INIT_RANGE:
      binding->init_a = 0;
      binding->init_b = 1;
      break;
    case KS_ARRAY_INIT_CONST:
      binding->init_a = 1;
      break;
    case KS_ARRAY_INIT_UNIFORM:
      binding->init_a = index + 1;
      break;
    case KS_ARRAY_INIT_NORMAL:
      binding->init_a = index + 1;
      binding->init_b = 0;
      binding->init_c = 1;
      break;
    case KS_ARRAY_INIT_ZEROS:
    case KS_ARRAY_INIT_FILE:
    default:
      break;
    }
}

static void
on_init_selected_cb (GObject *object, GParamSpec *pspec, KsArrayView *self)
{
  guint index = widget_arg_index (object);
  guint selected = gtk_drop_down_get_selected (GTK_DROP_DOWN (object));
  KsBinding *binding;

  if (self->syncing || selected == GTK_INVALID_LIST_POSITION
      || selected >= _ks_array_view_get_row (self, index)->n_inits)
    return;
  binding = edited_array_binding (self, index);
  if (binding->init == _ks_array_view_get_row (self, index)->inits[selected])
    return;
  binding->init = _ks_array_view_get_row (self, index)->inits[selected];
  reset_init_params (binding, index);
  _ks_array_view_sync_row (self, index);
  binding_changed (self, index);
}

static void
on_init_param_changed_cb (GtkSpinButton *spin, KsArrayView *self)
{
  guint index = widget_arg_index (spin);
  char field = (char) GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spin), INIT_FIELD_KEY));
  double value = gtk_spin_button_get_value (spin);
  KsBinding *binding;
  double *target;

  if (self->syncing)
    return;
  binding = edited_array_binding (self, index);
  target = field == 'a' ? &binding->init_a : field == 'b' ? &binding->init_b : &binding->init_c;
  if (*target == value)
    return;
  *target = value;
  binding_changed (self, index);
}

static void
on_direction_selected_cb (GObject *object, GParamSpec *pspec, KsArrayView *self)
{
  guint index = widget_arg_index (object);
  guint selected = gtk_drop_down_get_selected (GTK_DROP_DOWN (object));
  KsBinding *binding;

  if (self->syncing || selected == GTK_INVALID_LIST_POSITION)
    return;
  binding = edited_array_binding (self, index);
  if (binding->direction_given && binding->direction == (KsArrayDirection) selected)
    return;
  binding->direction = (KsArrayDirection) selected;
  binding->direction_given = TRUE;
  binding_changed (self, index);
}

static void
on_value_changed_cb (GtkEditable *editable, KsArrayView *self)
{
  guint index = widget_arg_index (editable);
  const char *text = gtk_editable_get_text (editable);
  KsBinding *binding;

  if (self->syncing)
    return;
  binding = _ks_array_view_get_binding (self, index);
  if (binding->is_array)
    {
      /* A pointer's row has no value entry; a scalar's binding that came as
       * an array is turned into a value. */
      binding->is_array = FALSE;
      g_clear_pointer (&binding->path, g_free);
    }
  if (g_strcmp0 (binding->value, text) == 0)
    return;
  g_free (binding->value);
  binding->value = g_strdup (text);
  binding_changed (self, index);
}

static void
on_file_chosen_cb (GtkNativeDialog *dialog, int response, KsArrayView *self)
{
  guint index = widget_arg_index (dialog);
  g_autoptr (GFile) file = NULL;
  KsBinding *binding;
  char *path;

  if (response == GTK_RESPONSE_ACCEPT && index < self->bindings->len
      && (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL
      && (path = g_file_get_path (file)) != NULL)
    {
      binding = edited_array_binding (self, index);
      g_free (binding->path);
      binding->path = path;
      binding->init = KS_ARRAY_INIT_FILE;
      _ks_array_view_sync_row (self, index);
      binding_changed (self, index);
    }
  if (self->chooser == GTK_FILE_CHOOSER_NATIVE (dialog))
    g_clear_object (&self->chooser);
}

void
_ks_array_view_add_filter (GtkFileChooser *chooser, const char *title, const char *pattern)
{
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, title);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (chooser, filter);
}

GtkWindow *
_ks_array_view_toplevel_window (KsArrayView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

static void
on_choose_file_clicked_cb (GtkButton *button, KsArrayView *self)
{
  guint index = widget_arg_index (button);
  g_autofree char *title = g_strdup_printf (_("Data for “%s”"),
                                            _ks_array_view_get_arg (self, index)->name);
  g_autoptr (GtkFileFilter) both = gtk_file_filter_new ();

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  self->chooser = gtk_file_chooser_native_new (title, _ks_array_view_toplevel_window (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL);
  gtk_file_filter_set_name (both, _("Arrays (.npy, .csv)"));
  gtk_file_filter_add_pattern (both, "*.npy");
  gtk_file_filter_add_pattern (both, "*.csv");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), both);
  _ks_array_view_add_filter (GTK_FILE_CHOOSER (self->chooser), _("NumPy arrays (.npy)"), "*.npy");
  _ks_array_view_add_filter (GTK_FILE_CHOOSER (self->chooser),
                             _("Comma-separated values (.csv)"), "*.csv");
  g_object_set_data (G_OBJECT (self->chooser), ARG_INDEX_KEY, GUINT_TO_POINTER (index));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (on_file_chosen_cb), self,
                           G_CONNECT_DEFAULT);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* ---- building the rows ------------------------------------------------------------- */

static void
tag_widget (gpointer widget, guint index)
{
  g_object_set_data (G_OBJECT (widget), ARG_INDEX_KEY, GUINT_TO_POINTER (index));
}

static AdwActionRow *
add_sub_row (ArgRow *row, const char *title, GtkWidget *suffix)
{
  GtkWidget *sub = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (sub), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (sub), title);
  if (suffix != NULL)
    {
      gtk_widget_set_valign (suffix, GTK_ALIGN_CENTER);
      adw_action_row_add_suffix (ADW_ACTION_ROW (sub), suffix);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (sub), suffix);
    }
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row->row), sub);
  return ADW_ACTION_ROW (sub);
}

static GtkDropDown *
new_dropdown (KsArrayView *self, const char *const *titles, guint index, GCallback callback)
{
  GtkStringList *list = gtk_string_list_new (NULL);
  GtkWidget *dropdown;

  /* The titles as the user reads them (the element types have no translation). */
  for (guint i = 0; titles[i] != NULL; i++)
    gtk_string_list_append (list, _(titles[i]));
  dropdown = gtk_drop_down_new (G_LIST_MODEL (list), NULL);

  tag_widget (dropdown, index);
  g_signal_connect_object (dropdown, "notify::selected", callback, self, G_CONNECT_DEFAULT);
  return GTK_DROP_DOWN (dropdown);
}

static GtkSpinButton *
new_param_spin (KsArrayView *self, guint index, char field, double min, double max,
                double step, guint digits)
{
  GtkWidget *spin = gtk_spin_button_new_with_range (min, max, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  tag_widget (spin, index);
  g_object_set_data (G_OBJECT (spin), INIT_FIELD_KEY, GINT_TO_POINTER ((int) field));
  g_signal_connect_object (spin, "value-changed", G_CALLBACK (on_init_param_changed_cb), self,
                           G_CONNECT_DEFAULT);
  return GTK_SPIN_BUTTON (spin);
}

static void
build_pointer_rows (KsArrayView *self, ArgRow *row, guint index)
{
  const KsKernelArg *arg = _ks_array_view_get_arg (self, index);
  GtkWidget *length;
  GtkWidget *button;

  /* The element types are C's and CUDA's names, which have no translation;
   * sync_type_choices adds the pointee's vector, complex or struct type. */
  row->type_dropdown = new_dropdown (self, scalar_type_names, index,
                                     G_CALLBACK (on_type_selected_cb));
  row->type_names = GTK_STRING_LIST (gtk_drop_down_get_model (row->type_dropdown));
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->type_dropdown),
                               _("The type of the array's elements: it should be the "
                                 "pointer's"));
  add_sub_row (row, _("Element type"), GTK_WIDGET (row->type_dropdown));

  length = gtk_spin_button_new_with_range (1, KS_ARRAY_VIEW_MAX_LENGTH, 1);
  gtk_spin_button_set_increments (GTK_SPIN_BUTTON (length), 1, 1024);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (length), TRUE);
  gtk_editable_set_width_chars (GTK_EDITABLE (length), 10);
  row->length_spin = GTK_SPIN_BUTTON (length);
  tag_widget (length, index);
  g_signal_connect_object (length, "value-changed", G_CALLBACK (on_length_changed_cb), self,
                           G_CONNECT_DEFAULT);
  add_sub_row (row, _("Length"), length);

  row->init_dropdown = new_dropdown (self, (const char *const *) init_titles, index,
                                     G_CALLBACK (on_init_selected_cb));
  row->init_names = GTK_STRING_LIST (gtk_drop_down_get_model (row->init_dropdown));
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->init_dropdown),
                               arg->value != NULL && arg->value->kind == KS_VALUE_STRUCT
                                 ? _("What the array holds before the run: an array of "
                                     "structs starts from zeros or from a .npy file whose "
                                     "fields have the struct's names")
                                 : arg->value != NULL
                                 ? _("What the array holds before the run: every component "
                                     "of every item is filled")
                                 : _("What the array holds before the run"));
  add_sub_row (row, _("Initial data"), GTK_WIDGET (row->init_dropdown));

  row->start_spin = new_param_spin (self, index, 'a', -1e15, 1e15, 1, 3);
  row->start_row = GTK_WIDGET (add_sub_row (row, _("Start"), GTK_WIDGET (row->start_spin)));
  row->step_spin = new_param_spin (self, index, 'b', -1e15, 1e15, 1, 3);
  row->step_row = GTK_WIDGET (add_sub_row (row, _("Step"), GTK_WIDGET (row->step_spin)));
  row->value_spin = new_param_spin (self, index, 'a', -1e15, 1e15, 1, 3);
  row->value_row = GTK_WIDGET (add_sub_row (row, _("Value"), GTK_WIDGET (row->value_spin)));
  row->seed_spin = new_param_spin (self, index, 'a', 0, G_MAXUINT32, 1, 0);
  row->seed_row = GTK_WIDGET (add_sub_row (row, _("Seed"), GTK_WIDGET (row->seed_spin)));
  row->mean_spin = new_param_spin (self, index, 'b', -1e15, 1e15, 0.1, 3);
  row->mean_row = GTK_WIDGET (add_sub_row (row, _("Mean"), GTK_WIDGET (row->mean_spin)));
  row->sd_spin = new_param_spin (self, index, 'c', 0, 1e15, 0.1, 3);
  row->sd_row = GTK_WIDGET (add_sub_row (row, _("Standard deviation"),
                                         GTK_WIDGET (row->sd_spin)));

  button = gtk_button_new_with_label (_("Choose…"));
  gtk_widget_set_tooltip_text (button, _("A .npy file, or a .csv file of numbers"));
  tag_widget (button, index);
  g_signal_connect_object (button, "clicked", G_CALLBACK (on_choose_file_clicked_cb), self,
                           G_CONNECT_DEFAULT);
  row->file_row = GTK_WIDGET (add_sub_row (row, _("File"), button));

  row->direction_dropdown = new_dropdown (self, direction_titles, index,
                                          G_CALLBACK (on_direction_selected_cb));
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->direction_dropdown),
                               _("in: copied to the GPU before the run; out: copied back after "
                                 "it; in-out: both"));
  add_sub_row (row, _("Direction"), GTK_WIDGET (row->direction_dropdown));
}

/* How a scalar's value is written, by its kind. */
static const char *
value_tooltip (const KsKernelArg *arg)
{
  switch (arg->value != NULL ? arg->value->kind : KS_VALUE_SCALAR)
    {
    case KS_VALUE_VECTOR:
      return _("The vector, one number per component: (1, 2, 3)");
    case KS_VALUE_COMPLEX:
      return _("The complex number: 1.5-2j, 2j, or (1.5, -2) for its real and imaginary "
               "parts");
    case KS_VALUE_STRUCT:
      return _("The struct, its fields by name: {pos=(1, 2, 3), mass=2}; a field left out is "
               "zero");
    case KS_VALUE_SCALAR:
    default:
      return _("The scalar's value, as C writes it (400, 0.5, -3)");
    }
}

static ArgRow *
build_row (KsArrayView *self, guint index)
{
  const KsKernelArg *arg = _ks_array_view_get_arg (self, index);
  ArgRow *row = g_new0 (ArgRow, 1);
  GtkWidget *icon = gtk_image_new ();

  row->declared = format_declared (arg);
  row->check_icon = GTK_IMAGE (icon);
  gtk_widget_set_valign (icon, GTK_ALIGN_CENTER);
  gtk_widget_set_visible (icon, FALSE);

  if (arg->pointer)
    {
      row->row = adw_expander_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row->row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->row), row->declared);
      adw_expander_row_add_prefix (ADW_EXPANDER_ROW (row->row), icon);
      build_pointer_rows (self, row, index);
    }
  else
    {
      GtkWidget *entry = gtk_entry_new ();

      row->row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row->row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->row), row->declared);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row->row), icon);
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 12);
      /* A vector's or a struct's text is long: the entry takes the row's room. */
      gtk_widget_set_hexpand (entry, arg->value != NULL);
      gtk_widget_set_valign (entry, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (entry, value_tooltip (arg));
      row->value_entry = GTK_EDITABLE (entry);
      tag_widget (entry, index);
      g_signal_connect_object (entry, "changed", G_CALLBACK (on_value_changed_cb), self,
                               G_CONNECT_DEFAULT);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row->row), entry);
    }
  gtk_widget_set_name (row->row, arg->name);
  return row;
}

static void
clear_rows (KsArrayView *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    gtk_list_box_remove (self->args_list, _ks_array_view_get_row (self, i)->row);
  g_ptr_array_set_size (self->rows, 0);
}

void
_ks_array_view_rebuild_rows (KsArrayView *self)
{
  g_autoptr (GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           NULL);

  /* Editing the source rebuilds the rows: the ones the user opened stay open. */
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *widget = _ks_array_view_get_row (self, i)->row;

      if (ADW_IS_EXPANDER_ROW (widget) && adw_expander_row_get_expanded (ADW_EXPANDER_ROW (widget)))
        g_hash_table_add (expanded, g_strdup (gtk_widget_get_name (widget)));
    }
  clear_rows (self);

  for (guint i = 0; i < self->args->len; i++)
    {
      ArgRow *row = build_row (self, i);

      g_ptr_array_add (self->rows, row);
      gtk_list_box_append (self->args_list, row->row);
      if (ADW_IS_EXPANDER_ROW (row->row)
          && g_hash_table_contains (expanded, _ks_array_view_get_arg (self, i)->name))
        adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row->row), TRUE);
      _ks_array_view_sync_row (self, i);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->args_list), self->args->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->no_args_label), self->args->len == 0);
}
