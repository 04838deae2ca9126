/* ks-array-view-results.c: the array view's results area. It shows one
 * array at a time, chosen among the run's out and inout arrays and the
 * inputs it was given (made again from their bindings): a small matrix as
 * a grid of cells, anything else as an index/value list whose rows exist
 * only while on screen — an array of vectors, complex numbers or structs
 * one item a row, written as the command line prints it ((1, 2, 3),
 * 1.5-2j, {pos=(1, 2, 3), mass=2}); and it saves the shown array as .csv
 * or .npy. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-array-view-private.h"
#include "ks-error.h"

/* Matrices up to this size are shown as a grid of cells, which people read
 * row by row; larger ones as the index/value list, whose rows exist only
 * while they are on screen (a grid of 10^6 labels would take seconds to
 * build). */
#define MATRIX_GRID_MAX_CELLS 4096

#define MATRIX_GRID_MAX_COLS 64

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

/* One row per item: an element, or a vector's, complex number's or
 * struct's item as a whole. */
static guint
ks_array_rows_get_n_items (GListModel *model)
{
  KsArrayRows *self = KS_ARRAY_ROWS (model);

  return (guint) MIN (ks_array_get_count (self->array), (gsize) G_MAXUINT);
}

static gpointer
ks_array_rows_get_item (GListModel *model, guint position)
{
  KsArrayRows *self = KS_ARRAY_ROWS (model);
  g_autofree char *value = NULL;

  if (position >= ks_array_rows_get_n_items (model))
    return NULL;
  value = ks_array_format_item (self->array, position);
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

/* ---- results ------------------------------------------------------------------------- */

static void
array_choice_free (gpointer data)
{
  ArrayChoice *choice = data;

  g_free (choice->name);
  g_clear_pointer (&choice->input, ks_binding_free);
  g_clear_pointer (&choice->arg, ks_kernel_arg_free);
  g_free (choice);
}

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

  /* A large matrix is listed element by element: its row and column too
   * (an array of vectors, complex numbers or structs item by item). */
  if (self->shown != NULL && self->shown->cols > 0 && self->shown->element == NULL)
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
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));

  /* Numbers line up at the right; items of several numbers read from the left. */
  gtk_label_set_xalign (label, self->shown != NULL && self->shown->element != NULL ? 0 : 1);
  gtk_label_set_label (label, gtk_string_object_get_string (value));
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

void
_ks_array_view_set_list_model (KsArrayView *self, GListModel *model)
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
  _ks_array_view_set_list_model (self, NULL);
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
      KsArray *made = ks_binding_create_array_for (choice->input, choice->arg, &error);

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

  if (array->element != NULL)
    {
      gsize count = ks_array_get_count (array);
      g_autofree char *length = g_strdup_printf ("%" G_GSIZE_FORMAT, count);

      /* TRANSLATORS: "1024 items of float4", "8 items of Particle". */
      shape = g_strdup_printf (choice->input != NULL
                                 ? ngettext ("%s item of %s, as the run was given it",
                                             "%s items of %s, as the run was given it", count)
                                 : ngettext ("%s item of %s", "%s items of %s", count),
                               length, ks_array_get_type_name (array));
    }
  else if (array->cols > 0)
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

  if (array->element == NULL && array->cols > 0 && array->cols <= MATRIX_GRID_MAX_COLS
      && array->rows * array->cols <= MATRIX_GRID_MAX_CELLS)
    {
      fill_grid (self, array);
      gtk_stack_set_visible_child_name (self->results_stack, "grid");
    }
  else
    {
      g_autoptr (KsArrayRows) rows = ks_array_rows_new (self->shown_owner, array);

      _ks_array_view_set_list_model (self, G_LIST_MODEL (rows));
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
_ks_array_view_set_results (KsArrayView *self, GPtrArray *arrays, const char *const *names)
{
  g_autoptr (GtkStringList) titles = gtk_string_list_new (NULL);
  g_autofree char *previous = NULL;
  guint selected = 0;

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
          choice->arg = ks_kernel_arg_copy (g_ptr_array_index (self->run_input_args, i));
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
_ks_array_view_show_array (KsArrayView *self, const char *name)
{
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
_ks_array_view_save_shown (KsArrayView *self, GFile *file, GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *folded = NULL;

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

      if (!_ks_array_view_save_shown (self, file, &error))
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

  self->chooser = gtk_file_chooser_native_new (_("Save Array"),
                                               _ks_array_view_toplevel_window (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  _ks_array_view_add_filter (GTK_FILE_CHOOSER (self->chooser),
                             _("Comma-separated values (.csv)"), "*.csv");
  _ks_array_view_add_filter (GTK_FILE_CHOOSER (self->chooser), _("NumPy arrays (.npy)"), "*.npy");
  /* A .csv holds numbers only: an array of structs goes to .npy. */
  name = g_strconcat (self->shown_name != NULL ? self->shown_name : "array",
                      self->shown->element != NULL
                          && self->shown->element->kind == KS_VALUE_STRUCT ? ".npy" : ".csv",
                      NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (on_save_chosen_cb), self,
                           G_CONNECT_DEFAULT);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* The template's handlers of the results area, bound by ks_array_view_class_init. */
void
_ks_array_view_class_init_results (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_array_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_save_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_cell_setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_index_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_value_bind_cb);
}
