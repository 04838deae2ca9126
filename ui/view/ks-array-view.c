#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <adwaita.h>

#include "ks-array-view.h"
#include "ks-error.h"

#define KS_ARRAY_VIEW_RESOURCE "/org/kernelscope/ui/ks-array-view.ui"

/* Matrices up to this size are shown as a grid of cells, which people read
 * row by row; larger ones as the index/value list, whose rows exist only
 * while they are on screen (a grid of 10^6 labels would take seconds to
 * build). */
#define MATRIX_GRID_MAX_CELLS 4096
#define MATRIX_GRID_MAX_COLS 64

#define ARG_INDEX_KEY "ks-arg-index"
#define INIT_FIELD_KEY "ks-init-field"

/* ---- the shown array as a list model ------------------------------------------------ */

/* Items (the element as text) are made when the view asks for them, so a
 * list of 10^6 elements costs only the rows on screen. */
#define KS_TYPE_ARRAY_ROWS (ks_array_rows_get_type ())
G_DECLARE_FINAL_TYPE (KsArrayRows, ks_array_rows, KS, ARRAY_ROWS, GObject)

struct _KsArrayRows
{
  GObject parent_instance;

  GPtrArray *owner;     /* owned: keeps array alive */
  const KsArray *array; /* borrowed from owner */
};

static GType
ks_array_rows_get_item_type (GListModel *model)
{
  return GTK_TYPE_STRING_OBJECT;
}

static guint
ks_array_rows_get_n_items (GListModel *model)
{
  KsArrayRows *self = KS_ARRAY_ROWS (model);

  return (guint) MIN (self->array->length, (gsize) G_MAXUINT);
}

static gpointer
ks_array_rows_get_item (GListModel *model, guint position)
{
  KsArrayRows *self = KS_ARRAY_ROWS (model);
  g_autofree char *value = NULL;

  if (position >= ks_array_rows_get_n_items (model))
    return NULL;
  value = ks_array_format_element (self->array, position);
  return gtk_string_object_new (value);
}

static void
ks_array_rows_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = ks_array_rows_get_item_type;
  iface->get_n_items = ks_array_rows_get_n_items;
  iface->get_item = ks_array_rows_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (KsArrayRows, ks_array_rows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      ks_array_rows_list_model_init))

static void
ks_array_rows_finalize (GObject *object)
{
  KsArrayRows *self = KS_ARRAY_ROWS (object);

  g_ptr_array_unref (self->owner);
  G_OBJECT_CLASS (ks_array_rows_parent_class)->finalize (object);
}

static void
ks_array_rows_class_init (KsArrayRowsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_array_rows_finalize;
}

static void
ks_array_rows_init (KsArrayRows *self)
{
}

static KsArrayRows *
ks_array_rows_new (GPtrArray *owner, const KsArray *array)
{
  KsArrayRows *self = g_object_new (KS_TYPE_ARRAY_ROWS, NULL);

  self->owner = g_ptr_array_ref (owner);
  self->array = array;
  return self;
}

/* ---- the view ------------------------------------------------------------------------ */

/* The widgets of one argument's row. */
typedef struct
{
  GtkWidget *row;              /* AdwExpanderRow (pointers) or AdwActionRow (scalars) */
  GtkImage *check_icon;
  char *declared;              /* "const float *a" */
  /* pointers */
  GtkDropDown *type_dropdown;
  GtkSpinButton *length_spin;
  GtkDropDown *init_dropdown;
  GtkWidget *start_row;
  GtkWidget *step_row;
  GtkWidget *value_row;
  GtkWidget *seed_row;
  GtkWidget *mean_row;
  GtkWidget *sd_row;
  GtkWidget *file_row;
  GtkSpinButton *start_spin;
  GtkSpinButton *step_spin;
  GtkSpinButton *value_spin;
  GtkSpinButton *seed_spin;
  GtkSpinButton *mean_spin;
  GtkSpinButton *sd_spin;
  GtkDropDown *direction_dropdown;
  /* scalars */
  GtkEditable *value_entry;
} ArgRow;

/* What an entry of the results' dropdown shows. */
typedef struct
{
  char *name;
  guint result;          /* index in results, or G_MAXUINT for an input */
  KsBinding *input;      /* inputs: what makes the array again */
} ArrayChoice;

struct _KsArrayView
{
  GtkWidget parent_instance;

  /* template widgets */
  GtkListBox *args_list;
  GtkLabel *no_args_label;
  GtkWidget *summary_box;
  GtkImage *summary_icon;
  GtkLabel *summary_label;
  GtkWidget *results_box;
  GtkDropDown *array_dropdown;
  GtkLabel *shape_label;
  GtkStack *results_stack;
  GtkColumnView *column_view;
  GtkGrid *matrix_grid;
  GtkLabel *results_error_label;

  /* owned */
  GPtrArray *args;          /* KsKernelArg */
  GPtrArray *bindings;      /* KsBinding, one per argument, in order */
  GPtrArray *extra;         /* KsBinding set for names that are no argument */
  GPtrArray *rows;          /* ArgRow, one per argument */
  GPtrArray *messages;      /* KsDiagnostic of the last full check */
  KsBindingCheck check;
  GPtrArray *run_inputs;    /* KsBinding of the in arrays of the last create_arrays */
  GPtrArray *results;       /* KsArray, or NULL */
  GPtrArray *choices;       /* ArrayChoice */
  GPtrArray *shown_owner;   /* holds the shown array */
  const KsArray *shown;     /* borrowed from shown_owner */
  char *shown_name;
  GtkFileChooserNative *chooser;

  /* Set while widgets are updated from the bindings, so that their change
   * signals do not write the same values back. */
  gboolean syncing;
};

G_DEFINE_FINAL_TYPE (KsArrayView, ks_array_view, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_BINDINGS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* TRANSLATORS: which way an array is copied: to the GPU, back from it, or both. */
static const char *const direction_titles[] = { N_("in"), N_("out"), N_("in-out"), NULL };
static const char *const init_titles[] = {
  N_("Zeros"), N_("Range"), N_("Constant"), N_("Uniform random"), N_("Normal random"),
  N_("File"), NULL
};

static void
arg_row_free (gpointer data)
{
  ArgRow *row = data;

  g_free (row->declared);
  g_free (row);
}

static void
array_choice_free (gpointer data)
{
  ArrayChoice *choice = data;

  g_free (choice->name);
  g_clear_pointer (&choice->input, ks_binding_free);
  g_free (choice);
}

static KsKernelArg *
kernel_arg_copy (const KsKernelArg *arg)
{
  KsKernelArg *copy = g_new0 (KsKernelArg, 1);

  *copy = *arg;
  copy->name = g_strdup (arg->name);
  copy->type_text = g_strdup (arg->type_text);
  return copy;
}

static const KsKernelArg *
get_arg (KsArrayView *self, guint index)
{
  return g_ptr_array_index (self->args, index);
}

static KsBinding *
get_binding (KsArrayView *self, guint index)
{
  return g_ptr_array_index (self->bindings, index);
}

static ArgRow *
get_row (KsArrayView *self, guint index)
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
  const KsKernelArg *arg = get_arg (self, index);
  KsBinding *binding = get_binding (self, index);
  ArgRow *row = get_row (self, index);
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
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->check_icon),
                               *message_text != '\0' ? message_text : NULL);
  set_check_style (GTK_WIDGET (row->check_icon), check);
}

static void
update_summary (KsArrayView *self)
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

static void
update_checks (KsArrayView *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    update_row_check (self, i);
  update_summary (self);
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

static void
sync_row (KsArrayView *self, guint index)
{
  const KsKernelArg *arg = get_arg (self, index);
  const KsBinding *binding = get_binding (self, index);
  ArgRow *row = get_row (self, index);

  self->syncing = TRUE;
  if (row->type_dropdown != NULL && binding->is_array)
    {
      if (binding->type <= KS_ELEM_FLOAT64)
        gtk_drop_down_set_selected (row->type_dropdown, binding->type);
      gtk_spin_button_set_value (row->length_spin, (double) binding->length);
      gtk_drop_down_set_selected (row->init_dropdown, binding->init);
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
  update_summary (self);
  g_signal_emit (self, signals[SIGNAL_BINDINGS_CHANGED], 0);
}

/* The binding a user edits in a row is an array binding; a row whose
 * binding came from the command line as a value is turned into one. */
static KsBinding *
edited_array_binding (KsArrayView *self, guint index)
{
  KsBinding *binding = get_binding (self, index);

  if (!binding->is_array)
    {
      binding->is_array = TRUE;
      binding->type = get_arg (self, index)->type;
      binding->length = KS_ARRAY_VIEW_DEFAULT_LENGTH;
      binding->init = KS_ARRAY_INIT_ZEROS;
      g_clear_pointer (&binding->value, g_free);
    }
  return binding;
}

static void
on_type_selected_cb (GObject *object, GParamSpec *pspec, KsArrayView *self)
{
  guint index = widget_arg_index (object);
  guint selected = gtk_drop_down_get_selected (GTK_DROP_DOWN (object));
  KsBinding *binding;

  if (self->syncing || selected == GTK_INVALID_LIST_POSITION)
    return;
  binding = edited_array_binding (self, index);
  if (binding->type == (KsElemType) selected)
    return;
  binding->type = (KsElemType) selected;
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

  if (self->syncing || selected == GTK_INVALID_LIST_POSITION)
    return;
  binding = edited_array_binding (self, index);
  if (binding->init == (KsArrayInit) selected)
    return;
  binding->init = (KsArrayInit) selected;
  reset_init_params (binding, index);
  sync_row (self, index);
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
  binding = get_binding (self, index);
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
      sync_row (self, index);
      binding_changed (self, index);
    }
  if (self->chooser == GTK_FILE_CHOOSER_NATIVE (dialog))
    g_clear_object (&self->chooser);
}

static void
add_filter (GtkFileChooser *chooser, const char *title, const char *pattern)
{
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, title);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (chooser, filter);
}

static GtkWindow *
toplevel_window (KsArrayView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

static void
on_choose_file_clicked_cb (GtkButton *button, KsArrayView *self)
{
  guint index = widget_arg_index (button);
  g_autofree char *title = g_strdup_printf (_("Data for “%s”"), get_arg (self, index)->name);
  g_autoptr (GtkFileFilter) both = gtk_file_filter_new ();

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  self->chooser = gtk_file_chooser_native_new (title, toplevel_window (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL);
  gtk_file_filter_set_name (both, _("Arrays (.npy, .csv)"));
  gtk_file_filter_add_pattern (both, "*.npy");
  gtk_file_filter_add_pattern (both, "*.csv");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), both);
  add_filter (GTK_FILE_CHOOSER (self->chooser), _("NumPy arrays (.npy)"), "*.npy");
  add_filter (GTK_FILE_CHOOSER (self->chooser), _("Comma-separated values (.csv)"), "*.csv");
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
  static const char *const type_names[] = {
    "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", NULL
  };
  GtkWidget *length;
  GtkWidget *button;

  row->type_dropdown = new_dropdown (self, type_names, index, G_CALLBACK (on_type_selected_cb));
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

static ArgRow *
build_row (KsArrayView *self, guint index)
{
  const KsKernelArg *arg = get_arg (self, index);
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
      gtk_widget_set_valign (entry, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (entry,
                                   _("The scalar's value, as C writes it (400, 0.5, -3)"));
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
    gtk_list_box_remove (self->args_list, get_row (self, i)->row);
  g_ptr_array_set_size (self->rows, 0);
}

static void
rebuild_rows (KsArrayView *self)
{
  g_autoptr (GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           NULL);

  /* Editing the source rebuilds the rows: the ones the user opened stay open. */
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *widget = get_row (self, i)->row;

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
          && g_hash_table_contains (expanded, get_arg (self, i)->name))
        adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row->row), TRUE);
      sync_row (self, i);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->args_list), self->args->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->no_args_label), self->args->len == 0);
}

/* ---- signature and bindings -------------------------------------------------------- */

static gboolean
same_signature (const GPtrArray *a, const GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const KsKernelArg *x = g_ptr_array_index (a, i);
      const KsKernelArg *y = g_ptr_array_index (b, i);

      if (g_strcmp0 (x->name, y->name) != 0 || g_strcmp0 (x->type_text, y->type_text) != 0
          || x->type != y->type || x->pointer != y->pointer || x->is_const != y->is_const)
        return FALSE;
    }
  return TRUE;
}

static gint
find_binding (const GPtrArray *bindings, const char *name)
{
  for (guint i = 0; i < bindings->len; i++)
    {
      const KsBinding *binding = g_ptr_array_index (bindings, i);

      if (g_strcmp0 (binding->name, name) == 0)
        return (gint) i;
    }
  return -1;
}

static const KsKernelArg *
find_arg (const GPtrArray *args, const char *name)
{
  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);

      if (g_strcmp0 (arg->name, name) == 0)
        return arg;
    }
  return NULL;
}

/* The binding an argument keeps across a new signature, or NULL. */
static KsBinding *
kept_binding (KsArrayView *self, const KsKernelArg *arg)
{
  const KsKernelArg *old_arg = find_arg (self->args, arg->name);
  gint i;

  if (old_arg != NULL)
    {
      KsBinding *binding;

      if (old_arg->pointer != arg->pointer)
        return NULL;
      i = find_binding (self->bindings, arg->name);
      if (i < 0)
        return NULL;
      binding = ks_binding_copy (g_ptr_array_index (self->bindings, i));
      /* An array that had the pointee's type follows it: "float *" edited to
       * "double *" means the data should be doubles now. */
      if (arg->pointer && binding->is_array && binding->type == old_arg->type
          && arg->type != KS_ELEM_OTHER)
        binding->type = arg->type;
      return binding;
    }

  i = find_binding (self->extra, arg->name);
  if (i >= 0)
    {
      const KsBinding *extra = g_ptr_array_index (self->extra, i);

      if (extra->is_array == arg->pointer)
        return ks_binding_copy (extra);
    }
  return NULL;
}

void
ks_array_view_set_signature (KsArrayView *self, const GPtrArray *args)
{
  g_autoptr (GPtrArray) new_args = NULL;
  g_autoptr (GPtrArray) new_bindings = NULL;
  g_autoptr (GPtrArray) defaults = NULL;
  g_autoptr (GPtrArray) kept = NULL;
  gsize length = 0;

  g_return_if_fail (KS_IS_ARRAY_VIEW (self));
  g_return_if_fail (args != NULL);

  new_args = g_ptr_array_new_full (args->len, (GDestroyNotify) ks_kernel_arg_free);
  for (guint i = 0; i < args->len; i++)
    g_ptr_array_add (new_args, kernel_arg_copy (g_ptr_array_index (args, i)));

  /* The same arguments (the user edited the body): only their places moved. */
  if (same_signature (self->args, new_args))
    {
      g_ptr_array_unref (self->args);
      self->args = g_steal_pointer (&new_args);
      update_checks (self);
      return;
    }

  kept = g_ptr_array_new_full (args->len, NULL);
  for (guint i = 0; i < new_args->len; i++)
    {
      KsBinding *binding = kept_binding (self, g_ptr_array_index (new_args, i));

      g_ptr_array_add (kept, binding);
      if (binding != NULL && binding->is_array && length == 0)
        length = binding->length;
    }

  defaults = ks_bindings_default (new_args, length > 0 ? length : KS_ARRAY_VIEW_DEFAULT_LENGTH);
  new_bindings = g_ptr_array_new_full (new_args->len, (GDestroyNotify) ks_binding_free);
  for (guint i = 0; i < new_args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (new_args, i);
      KsBinding *binding = g_ptr_array_index (kept, i);

      if (binding == NULL)
        {
          gint d = find_binding (defaults, arg->name);

          if (d >= 0)
            binding = ks_binding_copy (g_ptr_array_index (defaults, d));
          else
            {
              /* ks_bindings_default binds every argument; this keeps a row
               * usable should it ever leave one out. */
              binding = g_new0 (KsBinding, 1);
              binding->name = g_strdup (arg->name);
              binding->is_array = arg->pointer;
              binding->type = arg->type;
              binding->length = KS_ARRAY_VIEW_DEFAULT_LENGTH;
              binding->value = arg->pointer ? NULL : g_strdup ("0");
            }
        }
      g_ptr_array_add (new_bindings, binding);
    }

  /* Extras that now bind an argument are no longer extra. */
  for (guint i = self->extra->len; i > 0; i--)
    {
      const KsBinding *extra = g_ptr_array_index (self->extra, i - 1);

      if (find_arg (new_args, extra->name) != NULL)
        g_ptr_array_remove_index (self->extra, i - 1);
    }

  g_ptr_array_unref (self->args);
  self->args = g_steal_pointer (&new_args);
  g_ptr_array_unref (self->bindings);
  self->bindings = g_steal_pointer (&new_bindings);

  rebuild_rows (self);
  update_checks (self);
}

GPtrArray *
ks_array_view_get_bindings (KsArrayView *self)
{
  GPtrArray *bindings;

  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), NULL);

  bindings = g_ptr_array_new_full (self->bindings->len + self->extra->len,
                                   (GDestroyNotify) ks_binding_free);
  for (guint i = 0; i < self->bindings->len; i++)
    g_ptr_array_add (bindings, ks_binding_copy (g_ptr_array_index (self->bindings, i)));
  for (guint i = 0; i < self->extra->len; i++)
    g_ptr_array_add (bindings, ks_binding_copy (g_ptr_array_index (self->extra, i)));
  return bindings;
}

gboolean
ks_array_view_set_bindings (KsArrayView *self, const char *const *texts, GError **error)
{
  g_autoptr (GPtrArray) parsed = g_ptr_array_new_with_free_func (
    (GDestroyNotify) ks_binding_free);

  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      KsBinding *binding = ks_binding_parse (texts[i], error);

      if (binding == NULL)
        return FALSE;
      g_ptr_array_add (parsed, binding);
    }

  /* Every text parsed: from here on the bindings move into the view. */
  g_ptr_array_set_free_func (parsed, NULL);
  for (guint i = 0; i < parsed->len; i++)
    {
      KsBinding *binding = g_ptr_array_index (parsed, i);
      gint at = find_binding (self->bindings, binding->name);

      if (at >= 0)
        {
          ks_binding_free (g_ptr_array_index (self->bindings, at));
          g_ptr_array_index (self->bindings, at) = binding;
          sync_row (self, (guint) at);
          continue;
        }
      at = find_binding (self->extra, binding->name);
      if (at >= 0)
        g_ptr_array_remove_index (self->extra, (guint) at);
      g_ptr_array_add (self->extra, binding);
    }

  update_checks (self);
  return TRUE;
}

KsBindingCheck
ks_array_view_get_check (KsArrayView *self)
{
  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), KS_BINDING_ERROR);
  return self->check;
}

GPtrArray *
ks_array_view_get_messages (KsArrayView *self)
{
  GPtrArray *messages;

  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), NULL);

  messages = g_ptr_array_new_full (self->messages->len, (GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; i < self->messages->len; i++)
    g_ptr_array_add (messages, ks_diagnostic_copy (g_ptr_array_index (self->messages, i)));
  return messages;
}

GPtrArray *
ks_array_view_create_arrays (KsArrayView *self, GError **error)
{
  g_autoptr (GPtrArray) arrays = NULL;
  g_autoptr (GPtrArray) inputs = NULL;

  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  update_summary (self);
  if (self->check == KS_BINDING_ERROR)
    {
      for (guint i = 0; i < self->messages->len; i++)
        {
          const KsDiagnostic *diagnostic = g_ptr_array_index (self->messages, i);

          if (diagnostic->severity == KS_DIAGNOSTIC_ERROR)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           _("The arguments cannot be bound as they are: %s"),
                           diagnostic->message);
              return NULL;
            }
        }
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           _("The arguments cannot be bound as they are"));
      return NULL;
    }

  arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  for (guint i = 0; i < self->args->len; i++)
    {
      const KsKernelArg *arg = get_arg (self, i);
      const KsBinding *binding = get_binding (self, i);
      KsArray *array;

      if (!arg->pointer)
        continue;
      array = ks_binding_create_array (binding, error);
      if (array == NULL)
        {
          g_prefix_error (error, _("Argument “%s”: "), arg->name);
          return NULL;
        }
      g_ptr_array_add (arrays, array);
      if (ks_binding_resolve_direction (binding, arg) == KS_ARRAY_IN)
        g_ptr_array_add (inputs, ks_binding_copy (binding));
    }

  g_clear_pointer (&self->run_inputs, g_ptr_array_unref);
  self->run_inputs = g_steal_pointer (&inputs);
  return g_steal_pointer (&arrays);
}

/* ---- results ------------------------------------------------------------------------- */

static void
on_cell_setup_cb (GtkSignalListItemFactory *factory, GtkListItem *item, KsArrayView *self)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
on_index_bind_cb (GtkSignalListItemFactory *factory, GtkListItem *item, KsArrayView *self)
{
  guint position = gtk_list_item_get_position (item);
  g_autofree char *text = NULL;

  /* A large matrix is listed element by element: its row and column too. */
  if (self->shown != NULL && self->shown->cols > 0)
    text = g_strdup_printf ("%u  (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT ")", position,
                            position / self->shown->cols, position % self->shown->cols);
  else
    text = g_strdup_printf ("%u", position);
  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static void
on_value_bind_cb (GtkSignalListItemFactory *factory, GtkListItem *item, KsArrayView *self)
{
  GtkStringObject *value = gtk_list_item_get_item (item);

  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)),
                       gtk_string_object_get_string (value));
}

static void
clear_grid (KsArrayView *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->matrix_grid))) != NULL)
    gtk_grid_remove (self->matrix_grid, child);
}

static GtkWidget *
grid_label (const char *text, gboolean header)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_add_css_class (label, "numeric");
  if (header)
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  return label;
}

/* Cells at (col + 1, row + 1): the first row and column hold the indices. */
static void
fill_grid (KsArrayView *self, const KsArray *array)
{
  clear_grid (self);
  for (gsize c = 0; c < array->cols; c++)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GSIZE_FORMAT, c);

      gtk_grid_attach (self->matrix_grid, grid_label (text, TRUE), (int) c + 1, 0, 1, 1);
    }
  for (gsize r = 0; r < array->rows; r++)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GSIZE_FORMAT, r);

      gtk_grid_attach (self->matrix_grid, grid_label (text, TRUE), 0, (int) r + 1, 1, 1);
      for (gsize c = 0; c < array->cols && r * array->cols + c < array->length; c++)
        {
          g_autofree char *value = ks_array_format_element (array, r * array->cols + c);

          gtk_grid_attach (self->matrix_grid, grid_label (value, FALSE), (int) c + 1,
                           (int) r + 1, 1, 1);
        }
    }
}

static void
show_error (KsArrayView *self, const char *message)
{
  gtk_label_set_label (self->results_error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->results_error_label), message != NULL);
}

static void
set_list_model (KsArrayView *self, GListModel *model)
{
  GtkNoSelection *selection = gtk_no_selection_new (model != NULL ? g_object_ref (model) : NULL);

  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
}

static void
show_choice (KsArrayView *self, guint position)
{
  const ArrayChoice *choice;
  g_autoptr (GPtrArray) owner = NULL;
  g_autofree char *shape = NULL;
  const KsArray *array;

  show_error (self, NULL);
  g_clear_pointer (&self->shown_owner, g_ptr_array_unref);
  g_clear_pointer (&self->shown_name, g_free);
  self->shown = NULL;
  set_list_model (self, NULL);
  clear_grid (self);
  gtk_label_set_label (self->shape_label, "");

  if (self->choices == NULL || position >= self->choices->len)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->results_stack), FALSE);
      return;
    }
  choice = g_ptr_array_index (self->choices, position);

  if (choice->input == NULL)
    {
      owner = g_ptr_array_ref (self->results);
      array = g_ptr_array_index (self->results, choice->result);
    }
  else
    {
      g_autoptr (GError) error = NULL;
      KsArray *made = ks_binding_create_array (choice->input, &error);

      if (made == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("The input “%s” cannot be shown: %s"),
                                                      choice->name, error->message);
          show_error (self, message);
          return;
        }
      owner = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
      g_ptr_array_add (owner, made);
      array = made;
    }

  self->shown = array;
  self->shown_name = g_strdup (choice->name);
  self->shown_owner = g_steal_pointer (&owner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->results_stack), TRUE);

  if (array->cols > 0)
    {
      g_autofree char *rows = g_strdup_printf ("%" G_GSIZE_FORMAT, array->rows);
      g_autofree char *cols = g_strdup_printf ("%" G_GSIZE_FORMAT, array->cols);

      shape = g_strdup_printf (choice->input != NULL
                                 ? _("%s × %s matrix of %s, as the run was given it")
                                 : _("%s × %s matrix of %s"),
                               rows, cols, ks_elem_type_short_name (array->type));
    }
  else
    {
      g_autofree char *length = g_strdup_printf ("%" G_GSIZE_FORMAT, array->length);

      shape = g_strdup_printf (choice->input != NULL
                                 ? ngettext ("%s element of %s, as the run was given it",
                                             "%s elements of %s, as the run was given it",
                                             array->length)
                                 : ngettext ("%s element of %s", "%s elements of %s",
                                             array->length),
                               length, ks_elem_type_short_name (array->type));
    }
  gtk_label_set_label (self->shape_label, shape);

  if (array->cols > 0 && array->cols <= MATRIX_GRID_MAX_COLS
      && array->rows * array->cols <= MATRIX_GRID_MAX_CELLS)
    {
      fill_grid (self, array);
      gtk_stack_set_visible_child_name (self->results_stack, "grid");
    }
  else
    {
      g_autoptr (KsArrayRows) rows = ks_array_rows_new (self->shown_owner, array);

      set_list_model (self, G_LIST_MODEL (rows));
      gtk_stack_set_visible_child_name (self->results_stack, "list");
    }
}

static void
on_array_selected_cb (GObject *object, GParamSpec *pspec, KsArrayView *self)
{
  if (self->syncing)
    return;
  show_choice (self, gtk_drop_down_get_selected (self->array_dropdown));
}

void
ks_array_view_set_results (KsArrayView *self, GPtrArray *arrays, const char *const *names)
{
  g_autoptr (GtkStringList) titles = gtk_string_list_new (NULL);
  g_autofree char *previous = NULL;
  guint selected = 0;

  g_return_if_fail (KS_IS_ARRAY_VIEW (self));
  g_return_if_fail (arrays == NULL || names != NULL);
  g_return_if_fail (arrays == NULL || g_strv_length ((char **) names) >= arrays->len);

  previous = g_strdup (self->shown_name);
  g_clear_pointer (&self->results, g_ptr_array_unref);
  g_clear_pointer (&self->choices, g_ptr_array_unref);

  if (arrays != NULL)
    {
      self->results = g_ptr_array_ref (arrays);
      self->choices = g_ptr_array_new_with_free_func (array_choice_free);
      for (guint i = 0; i < arrays->len; i++)
        {
          ArrayChoice *choice = g_new0 (ArrayChoice, 1);

          choice->name = g_strdup (names[i]);
          choice->result = i;
          g_ptr_array_add (self->choices, choice);
          gtk_string_list_append (titles, names[i]);
        }
      for (guint i = 0; self->run_inputs != NULL && i < self->run_inputs->len; i++)
        {
          const KsBinding *input = g_ptr_array_index (self->run_inputs, i);
          ArrayChoice *choice = g_new0 (ArrayChoice, 1);
          g_autofree char *title = g_strdup_printf (_("%s (input)"), input->name);

          choice->name = g_strdup (input->name);
          choice->result = G_MAXUINT;
          choice->input = ks_binding_copy (input);
          g_ptr_array_add (self->choices, choice);
          gtk_string_list_append (titles, title);
        }
      /* A new run shows the array the user was looking at. */
      for (guint i = 0; previous != NULL && i < self->choices->len; i++)
        if (g_str_equal (((ArrayChoice *) g_ptr_array_index (self->choices, i))->name, previous))
          {
            selected = i;
            break;
          }
    }

  self->syncing = TRUE;
  gtk_drop_down_set_model (self->array_dropdown, G_LIST_MODEL (titles));
  gtk_drop_down_set_selected (self->array_dropdown, selected);
  self->syncing = FALSE;

  gtk_widget_set_visible (self->results_box, self->choices != NULL && self->choices->len > 0);
  show_choice (self, selected);
}

gboolean
ks_array_view_show_array (KsArrayView *self, const char *name)
{
  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; self->choices != NULL && i < self->choices->len; i++)
    if (g_str_equal (((ArrayChoice *) g_ptr_array_index (self->choices, i))->name, name))
      {
        gtk_drop_down_set_selected (self->array_dropdown, i);
        if (g_strcmp0 (self->shown_name, name) != 0)
          show_choice (self, i);
        return TRUE;
      }
  return FALSE;
}

gboolean
ks_array_view_save_shown (KsArrayView *self, GFile *file, GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *folded = NULL;

  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->shown == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           _("There is no array to save: run the kernel first"));
      return FALSE;
    }
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   _("Arrays are saved to local files only, not to %s"), uri);
      return FALSE;
    }
  folded = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (folded, ".npy"))
    return ks_array_save_npy (self->shown, path, error);
  return ks_array_save_csv (self->shown, path, error);
}

static void
on_save_chosen_cb (GtkNativeDialog *dialog, int response, KsArrayView *self)
{
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT
      && (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (!ks_array_view_save_shown (self, file, &error))
        show_error (self, error->message);
      else
        show_error (self, NULL);
    }
  if (self->chooser == GTK_FILE_CHOOSER_NATIVE (dialog))
    g_clear_object (&self->chooser);
}

static void
on_save_clicked_cb (GtkButton *button, KsArrayView *self)
{
  g_autofree char *name = NULL;

  if (self->shown == NULL)
    return;
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);

  self->chooser = gtk_file_chooser_native_new (_("Save Array"), toplevel_window (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  add_filter (GTK_FILE_CHOOSER (self->chooser), _("Comma-separated values (.csv)"), "*.csv");
  add_filter (GTK_FILE_CHOOSER (self->chooser), _("NumPy arrays (.npy)"), "*.npy");
  name = g_strconcat (self->shown_name != NULL ? self->shown_name : "array", ".csv", NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (on_save_chosen_cb), self,
                           G_CONNECT_DEFAULT);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* ---- GObject ------------------------------------------------------------------------- */

GtkWidget *
ks_array_view_new (void)
{
  return g_object_new (KS_TYPE_ARRAY_VIEW, NULL);
}

static void
ks_array_view_dispose (GObject *object)
{
  KsArrayView *self = KS_ARRAY_VIEW (object);
  GtkWidget *child;

  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  if (self->column_view != NULL)
    set_list_model (self, NULL);

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_ARRAY_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  /* The rows were children of the list just disposed. */
  g_ptr_array_set_size (self->rows, 0);

  G_OBJECT_CLASS (ks_array_view_parent_class)->dispose (object);
}

static void
ks_array_view_finalize (GObject *object)
{
  KsArrayView *self = KS_ARRAY_VIEW (object);

  g_ptr_array_unref (self->args);
  g_ptr_array_unref (self->bindings);
  g_ptr_array_unref (self->extra);
  g_ptr_array_unref (self->rows);
  g_ptr_array_unref (self->messages);
  g_clear_pointer (&self->run_inputs, g_ptr_array_unref);
  g_clear_pointer (&self->results, g_ptr_array_unref);
  g_clear_pointer (&self->choices, g_ptr_array_unref);
  g_clear_pointer (&self->shown_owner, g_ptr_array_unref);
  g_free (self->shown_name);

  G_OBJECT_CLASS (ks_array_view_parent_class)->finalize (object);
}

static void
ks_array_view_class_init (KsArrayViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_array_view_dispose;
  object_class->finalize = ks_array_view_finalize;

  /* The user changed a binding (not emitted for set_signature or
   * set_bindings, whose caller knows). */
  signals[SIGNAL_BINDINGS_CHANGED] =
    g_signal_new ("bindings-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, KS_ARRAY_VIEW_RESOURCE);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, args_list);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, no_args_label);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, summary_box);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, summary_icon);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, summary_label);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, results_box);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, array_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, shape_label);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, results_stack);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, column_view);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, matrix_grid);
  gtk_widget_class_bind_template_child (widget_class, KsArrayView, results_error_label);
  gtk_widget_class_bind_template_callback (widget_class, on_array_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_save_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_cell_setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_index_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_value_bind_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_array_view_init (KsArrayView *self)
{
  self->args = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_arg_free);
  self->bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  self->extra = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  self->rows = g_ptr_array_new_with_free_func (arg_row_free);
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  self->check = KS_BINDING_OK;

  gtk_widget_init_template (GTK_WIDGET (self));
  rebuild_rows (self);
  update_summary (self);
  ks_array_view_set_results (self, NULL, NULL);
}
