/* The array bindings editor and results table: what a user sees in each
 * row after a signature arrives or a choice changes, and what the results
 * area shows and saves. Needs a display: run under xvfb-run; without one
 * the program reports a skip. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <adwaita.h>

#include "ks-array-run.h"
#include "ks-array-view.h"
#include "ks-error.h"
#include "ks-test-helpers.h"
#include "ks-ui-test-helpers.h"

/* ---- fixture: a view in a window ---------------------------------------------------- */

typedef struct
{
  GtkWindow *window;
  KsArrayView *view;
  guint changes;   /* "bindings-changed" emissions */
} Fixture;

static void
on_bindings_changed_cb (KsArrayView *view, Fixture *fixture)
{
  fixture->changes++;
}

static void
fixture_set_up (Fixture *fixture, gconstpointer data)
{
  if (!ks_ui_test_have_display ())
    return;
  fixture->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (fixture->window, 600, 800);
  fixture->view = KS_ARRAY_VIEW (ks_array_view_new ());
  g_signal_connect (fixture->view, "bindings-changed", G_CALLBACK (on_bindings_changed_cb),
                    fixture);
  gtk_window_set_child (fixture->window, GTK_WIDGET (fixture->view));
  gtk_window_present (fixture->window);
  ks_ui_test_iterate ();
}

static void
fixture_tear_down (Fixture *fixture, gconstpointer data)
{
  if (fixture->window == NULL)
    return;
  g_object_ref (fixture->view);
  gtk_window_destroy (fixture->window);
  ks_ui_test_iterate ();
  g_assert_finalize_object (fixture->view);
}

/* ---- helpers ------------------------------------------------------------------------ */

static KsKernelArg *
make_arg (const char *name, const char *type_text, KsElemType type, gboolean pointer,
          gboolean is_const, guint column)
{
  KsKernelArg *arg = g_new0 (KsKernelArg, 1);

  arg->name = g_strdup (name);
  arg->type_text = g_strdup (type_text);
  arg->type = type;
  arg->pointer = pointer;
  arg->is_const = is_const;
  arg->line = 1;
  arg->column = column;
  return arg;
}

static GPtrArray *
new_args (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_arg_free);
}

/* __global__ void add(float *result, const float *a, const float *b, int n) */
static GPtrArray *
add_signature (void)
{
  GPtrArray *args = new_args ();

  g_ptr_array_add (args, make_arg ("result", "float *", KS_ELEM_FLOAT32, TRUE, FALSE, 21));
  g_ptr_array_add (args, make_arg ("a", "const float *", KS_ELEM_FLOAT32, TRUE, TRUE, 36));
  g_ptr_array_add (args, make_arg ("b", "const float *", KS_ELEM_FLOAT32, TRUE, TRUE, 52));
  g_ptr_array_add (args, make_arg ("n", "int", KS_ELEM_INT32, FALSE, FALSE, 59));
  return args;
}

static const KsBinding *
find_binding (GPtrArray *bindings, const char *name)
{
  for (guint i = 0; i < bindings->len; i++)
    {
      const KsBinding *binding = g_ptr_array_index (bindings, i);

      if (g_str_equal (binding->name, name))
        return binding;
    }
  g_assert_not_reached ();
  return NULL;
}

static gboolean
match_name (GtkWidget *widget, gconstpointer data)
{
  return g_str_equal (gtk_widget_get_name (widget), data);
}

static gboolean
match_visible_icon (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_IMAGE (widget) && gtk_widget_get_visible (widget)
         && g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (widget)), data) == 0;
}

/* A dropdown whose first choice is `first` (the element types start with
 * "i8", the directions with "in"). */
static gboolean
match_dropdown (GtkWidget *widget, gconstpointer data)
{
  GListModel *model;
  g_autoptr (GtkStringObject) item = NULL;

  if (!GTK_IS_DROP_DOWN (widget))
    return FALSE;
  model = gtk_drop_down_get_model (GTK_DROP_DOWN (widget));
  if (model == NULL || g_list_model_get_n_items (model) == 0)
    return FALSE;
  item = g_list_model_get_item (model, 0);
  return GTK_IS_STRING_OBJECT (item)
         && g_str_equal (gtk_string_object_get_string (item), data);
}

static GtkWidget *
arg_row (Fixture *fixture, const char *name)
{
  GtkWidget *row = ks_ui_test_find_widget_matching (GTK_WIDGET (fixture->view), match_name,
                                                    name);

  g_assert_nonnull (row);
  return row;
}

static GtkDropDown *
type_dropdown (Fixture *fixture, const char *name)
{
  GtkWidget *dropdown = ks_ui_test_find_widget_matching (arg_row (fixture, name), match_dropdown,
                                                         "i8");

  g_assert_nonnull (dropdown);
  return GTK_DROP_DOWN (dropdown);
}

static const char *
row_subtitle (GtkWidget *row)
{
  if (ADW_IS_EXPANDER_ROW (row))
    return adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row));
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
}

static KsArray *
make_array (KsElemType type, gsize length, double scale)
{
  g_autoptr (GError) error = NULL;
  KsArray *array = ks_array_new (type, length, &error);

  g_assert_no_error (error);
  for (gsize i = 0; i < length; i++)
    ks_array_set_double (array, i, (double) i * scale);
  return array;
}

static GPtrArray *
one_result (KsArray *array)
{
  GPtrArray *results = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);

  g_ptr_array_add (results, array);
  return results;
}

static GListModel *
column_view_model (Fixture *fixture)
{
  GtkWidget *view = ks_ui_test_find_widget (GTK_WIDGET (fixture->view), GTK_TYPE_COLUMN_VIEW);

  g_assert_nonnull (view);
  return G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
}

/* With KS_TEST_SCREENSHOTS=DIR, a picture of the window in DIR/NAME.png. */
static void
maybe_screenshot (Fixture *fixture, const char *name)
{
  const char *dir = g_getenv ("KS_TEST_SCREENSHOTS");
  g_autofree char *file = NULL;

  if (dir == NULL)
    return;
  file = g_strconcat (name, ".png", NULL);
  ks_ui_test_save_screenshot_in (GTK_WIDGET (fixture->window), dir, file);
}

/* ---- the tests ---------------------------------------------------------------------- */

static void
test_defaults (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GPtrArray) args = NULL;
  g_autoptr (GPtrArray) bindings = NULL;
  const KsBinding *result, *a, *b, *n;
  g_autofree char *n_text = NULL;
  GtkWidget *row;

  if (ks_ui_test_skip_without_display ())
    return;
  args = add_signature ();
  ks_array_view_set_signature (fixture->view, args);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpuint (bindings->len, ==, 4);

  result = find_binding (bindings, "result");
  a = find_binding (bindings, "a");
  b = find_binding (bindings, "b");
  n = find_binding (bindings, "n");

  g_assert_true (result->is_array);
  g_assert_cmpint (result->init, ==, KS_ARRAY_INIT_ZEROS);
  /* The kernel writes result: it comes back after the run (out or in-out). */
  g_assert_true (!result->direction_given || result->direction != KS_ARRAY_IN);
  g_assert_cmpint (result->type, ==, KS_ELEM_FLOAT32);
  for (guint i = 0; i < 2; i++)
    {
      const KsBinding *in = i == 0 ? a : b;

      g_assert_true (in->is_array);
      g_assert_cmpint (in->type, ==, KS_ELEM_FLOAT32);
      g_assert_cmpint (in->init, ==, KS_ARRAY_INIT_UNIFORM);
      g_assert_true (!in->direction_given || in->direction == KS_ARRAY_IN);
      g_assert_cmpuint (in->length, ==, result->length);
    }
  g_assert_cmpfloat (a->init_a, !=, b->init_a);   /* two different random arrays */
  g_assert_false (n->is_array);
  n_text = g_strdup_printf ("%" G_GSIZE_FORMAT, result->length);
  g_assert_cmpstr (n->value, ==, n_text);
  g_assert_cmpuint (result->length, ==, KS_ARRAY_VIEW_DEFAULT_LENGTH);

  /* The rows: the argument as declared, and what it is bound to. */
  row = arg_row (fixture, "a");
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==,
                   "const float *a");
  g_assert_nonnull (strstr (row_subtitle (row), "f32[1024]:random("));
  row = arg_row (fixture, "n");
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "int n");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);
  g_assert_null (ks_ui_test_find_widget_matching (GTK_WIDGET (fixture->view), match_visible_icon,
                                                  "dialog-warning-symbolic"));
  g_assert_null (ks_ui_test_find_widget_matching (GTK_WIDGET (fixture->view), match_visible_icon,
                                                  "dialog-error-symbolic"));
  g_assert_cmpuint (fixture->changes, ==, 0);
}

static void
test_type_mismatch (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GPtrArray) args = new_args ();
  g_autoptr (GPtrArray) bindings = NULL;
  g_autoptr (GPtrArray) arrays = NULL;
  g_autoptr (GPtrArray) messages = NULL;
  g_autoptr (GError) error = NULL;
  GtkWidget *row;

  if (ks_ui_test_skip_without_display ())
    return;
  /* __global__ void scale(int *counts, float *x) */
  g_ptr_array_add (args, make_arg ("counts", "int *", KS_ELEM_INT32, TRUE, FALSE, 23));
  g_ptr_array_add (args, make_arg ("x", "float *", KS_ELEM_FLOAT32, TRUE, FALSE, 38));
  ks_array_view_set_signature (fixture->view, args);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);

  /* u32 data for an `int *`: same size, other signedness, runs but warns. */
  gtk_drop_down_set_selected (type_dropdown (fixture, "counts"), KS_ELEM_UINT32);
  g_assert_cmpuint (fixture->changes, ==, 1);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpint (find_binding (bindings, "counts")->type, ==, KS_ELEM_UINT32);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_WARNING);
  row = arg_row (fixture, "counts");
  g_assert_nonnull (ks_ui_test_find_widget_matching (row, match_visible_icon,
                                                     "dialog-warning-symbolic"));
  g_assert_nonnull (strchr (row_subtitle (row), '\n'));   /* the message under the binding */
  g_assert_null (ks_ui_test_find_widget_matching (arg_row (fixture, "x"), match_visible_icon,
                                                  "dialog-warning-symbolic"));
  messages = ks_array_view_get_messages (fixture->view);
  g_assert_cmpuint (messages->len, ==, 1);
  g_assert_cmpint (((KsDiagnostic *) g_ptr_array_index (messages, 0))->severity, ==,
                   KS_DIAGNOSTIC_WARNING);
  arrays = ks_array_view_create_arrays (fixture->view, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (arrays->len, ==, 2);
  g_clear_pointer (&arrays, g_ptr_array_unref);

  /* f64 data for a `float *`: a different size, cannot run. */
  gtk_drop_down_set_selected (type_dropdown (fixture, "x"), KS_ELEM_FLOAT64);
  g_assert_cmpuint (fixture->changes, ==, 2);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_ERROR);
  g_assert_nonnull (ks_ui_test_find_widget_matching (arg_row (fixture, "x"), match_visible_icon,
                                                     "dialog-error-symbolic"));
  arrays = ks_array_view_create_arrays (fixture->view, &error);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_null (arrays);
  g_clear_error (&error);

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (arg_row (fixture, "x")), TRUE);
  maybe_screenshot (fixture, "array-view-error");

  /* Back to f32: nothing left to report. */
  gtk_drop_down_set_selected (type_dropdown (fixture, "x"), KS_ELEM_FLOAT32);
  gtk_drop_down_set_selected (type_dropdown (fixture, "counts"), KS_ELEM_INT32);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);
  g_assert_null (ks_ui_test_find_widget_matching (GTK_WIDGET (fixture->view), match_visible_icon,
                                                  "dialog-error-symbolic"));
}

static void
test_matrix (Fixture *fixture, gconstpointer data)
{
  KsArray *matrix = make_array (KS_ELEM_FLOAT32, 25, 0.5);
  g_autoptr (GPtrArray) results = one_result (matrix);
  const char *const names[] = { "c", NULL };
  GtkWidget *grid;
  guint cells = 0;

  if (ks_ui_test_skip_without_display ())
    return;
  matrix->rows = 5;
  matrix->cols = 5;
  ks_array_view_set_results (fixture->view, results, names);
  ks_ui_test_iterate ();

  grid = ks_ui_test_find_widget_matching (GTK_WIDGET (fixture->view), match_name,
                                          "matrix-grid");
  g_assert_nonnull (grid);
  g_assert_true (gtk_widget_is_drawable (grid));
  for (guint r = 0; r < 5; r++)
    for (guint c = 0; c < 5; c++)
      {
        GtkWidget *cell = gtk_grid_get_child_at (GTK_GRID (grid), (int) c + 1, (int) r + 1);
        g_autofree char *expected = g_strdup_printf ("%g", (r * 5 + c) * 0.5);

        g_assert_true (GTK_IS_LABEL (cell));
        g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (cell)), ==, expected);
        cells++;
      }
  g_assert_cmpuint (cells, ==, 25);
  maybe_screenshot (fixture, "array-view-matrix");
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (grid), 6, 1));
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (grid), 1, 6));
}

static void
test_large_vector (Fixture *fixture, gconstpointer data)
{
  const gsize length = 1000000;
  g_autoptr (GPtrArray) results = one_result (make_array (KS_ELEM_INT32, length, 3));
  const char *const names[] = { "result", NULL };
  g_autoptr (GObject) last = NULL;
  g_autoptr (GObject) first = NULL;
  GListModel *model;
  GtkWidget *label;
  guint labels;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_array_view_set_results (fixture->view, results, names);
  ks_ui_test_iterate ();
  model = column_view_model (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, length);

  label = ks_ui_test_find_widget (GTK_WIDGET (fixture->view), GTK_TYPE_COLUMN_VIEW);
  g_assert_true (gtk_widget_is_drawable (label));
  /* Only the rows on screen (and a few hundred GTK keeps around them)
   * exist, which is what makes 10^6 elements cheap to show: counted in the
   * cells' labels, two a row (index and value) beside the headers', and not
   * timed, since a loaded machine lays out slowly. A view that made every
   * row would hold two million. */
  labels = ks_ui_test_count_widgets (label, GTK_TYPE_LABEL);
  g_test_message ("labels in the column view of 10^6 rows: %u", labels);
  g_assert_cmpuint (labels, >=, 4);
  g_assert_cmpuint (labels, <, length / 100);

  first = g_list_model_get_item (model, 1);
  last = g_list_model_get_item (model, length - 1);
  g_assert_cmpstr (gtk_string_object_get_string (GTK_STRING_OBJECT (first)), ==, "3");
  g_assert_cmpstr (gtk_string_object_get_string (GTK_STRING_OBJECT (last)), ==, "2999997");
  g_assert_null (g_list_model_get_item (model, length));
}

static void
test_save_csv (Fixture *fixture, gconstpointer data)
{
  KsArray *array = make_array (KS_ELEM_FLOAT32, 100, 0.25);
  g_autoptr (GPtrArray) results = one_result (array);
  const char *const names[] = { "result", NULL };
  g_autofree char *dir = NULL;
  g_autofree char *csv_path = NULL;
  g_autofree char *npy_path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr (GFile) csv = NULL;
  g_autoptr (GFile) npy = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) loaded = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_lines;

  if (ks_ui_test_skip_without_display ())
    return;

  /* Nothing shown yet: nothing to save, and the reason says so. */
  dir = g_dir_make_tmp ("ks-array-view-XXXXXX", &error);
  g_assert_no_error (error);
  csv_path = g_build_filename (dir, "result.csv", NULL);
  npy_path = g_build_filename (dir, "result.NPY", NULL);
  csv = g_file_new_for_path (csv_path);
  npy = g_file_new_for_path (npy_path);
  g_assert_false (ks_array_view_save_shown (fixture->view, csv, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  ks_array_view_set_results (fixture->view, results, names);
  g_assert_true (ks_array_view_save_shown (fixture->view, csv, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (csv_path, &contents, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (contents, "\n", -1);
  n_lines = g_strv_length (lines);
  if (n_lines > 0 && lines[n_lines - 1][0] == '\0')
    n_lines--;
  g_assert_cmpuint (n_lines, ==, 101);
  g_assert_cmpstr (lines[0], ==, "index,value");
  for (guint i = 0; i < 100; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i + 1], ",", -1);

      g_assert_cmpuint (g_strv_length (fields), ==, 2);
      g_assert_cmpuint (g_ascii_strtoull (fields[0], NULL, 10), ==, i);
      g_assert_cmpfloat (g_ascii_strtod (fields[1], NULL), ==, ks_array_get_double (array, i));
    }

  /* By extension: .npy (in any case) is NumPy's format. */
  g_assert_true (ks_array_view_save_shown (fixture->view, npy, &error));
  g_assert_no_error (error);
  loaded = ks_array_load (npy_path, KS_ELEM_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_true (ks_array_equal (loaded, array, 0, 0, NULL));

  g_unlink (csv_path);
  g_unlink (npy_path);
  g_rmdir (dir);
}

static void
test_bindings_kept (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GPtrArray) args = add_signature ();
  g_autoptr (GPtrArray) same = add_signature ();
  g_autoptr (GPtrArray) more = add_signature ();
  g_autoptr (GPtrArray) bindings = NULL;
  GtkWidget *length;
  const KsBinding *a;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_array_view_set_signature (fixture->view, args);

  /* The user makes a 400 normal-random doubles... of float: a's length and data. */
  length = ks_ui_test_find_widget (arg_row (fixture, "a"), GTK_TYPE_SPIN_BUTTON);
  g_assert_nonnull (length);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (length), 400);
  g_assert_cmpuint (fixture->changes, ==, 1);

  /* The same arguments again (the body was edited): nothing changes. */
  ks_array_view_set_signature (fixture->view, same);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpuint (find_binding (bindings, "a")->length, ==, 400);
  g_assert_cmpuint (find_binding (bindings, "b")->length, ==, KS_ARRAY_VIEW_DEFAULT_LENGTH);
  g_clear_pointer (&bindings, g_ptr_array_unref);

  /* A new argument and b's type edited to double: a keeps its choices, b
   * follows its pointee, the new scalar gets a default. */
  g_ptr_array_add (more, make_arg ("gain", "float", KS_ELEM_FLOAT32, FALSE, FALSE, 66));
  {
    KsKernelArg *b = g_ptr_array_index (more, 2);

    g_free (b->type_text);
    b->type_text = g_strdup ("const double *");
    b->type = KS_ELEM_FLOAT64;
  }
  ks_array_view_set_signature (fixture->view, more);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpuint (bindings->len, ==, 5);
  a = find_binding (bindings, "a");
  g_assert_cmpuint (a->length, ==, 400);
  g_assert_cmpint (find_binding (bindings, "b")->type, ==, KS_ELEM_FLOAT64);
  g_assert_false (find_binding (bindings, "gain")->is_array);
  g_assert_cmpstr (find_binding (bindings, "gain")->value, ==, "0");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);
  /* The rebuilt row shows the kept length. */
  length = ks_ui_test_find_widget (arg_row (fixture, "a"), GTK_TYPE_SPIN_BUTTON);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (length)), ==, 400);
  g_assert_cmpuint (fixture->changes, ==, 1);
}

static void
test_set_bindings (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GPtrArray) args = add_signature ();
  g_autoptr (GPtrArray) bindings = NULL;
  g_autoptr (GError) error = NULL;
  const char *const good[] = { "a=f32[16]:range(0, 2)", "n=16", NULL };
  const char *const bad[] = { "b=f32[16]:zeros", "result=f99[3]:zeros", NULL };
  const char *const stray[] = { "c=f32[16]:zeros", NULL };
  g_autofree char *a_text = NULL;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_array_view_set_signature (fixture->view, args);

  g_assert_true (ks_array_view_set_bindings (fixture->view, good, &error));
  g_assert_no_error (error);
  bindings = ks_array_view_get_bindings (fixture->view);
  a_text = ks_binding_to_string (find_binding (bindings, "a"));
  g_assert_cmpstr (a_text, ==, "a=f32[16]:range(0, 2)");
  g_assert_cmpstr (find_binding (bindings, "n")->value, ==, "16");
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "a")), "range(0, 2)"));
  g_clear_pointer (&bindings, g_ptr_array_unref);

  /* One text wrong: nothing changes, and the error names it. */
  g_assert_false (ks_array_view_set_bindings (fixture->view, bad, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpint (find_binding (bindings, "b")->init, ==, KS_ARRAY_INIT_UNIFORM);
  g_clear_pointer (&bindings, g_ptr_array_unref);

  /* A name that is no argument: kept, and reported. */
  g_assert_true (ks_array_view_set_bindings (fixture->view, stray, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_ERROR);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpuint (bindings->len, ==, 5);
  g_assert_cmpint (fixture->changes, ==, 0);
}

/* After a run the inputs can be looked at too, as the run was given them. */
static void
test_inputs_shown (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GPtrArray) args = add_signature ();
  g_autoptr (GPtrArray) arrays = NULL;
  g_autoptr (GPtrArray) results = NULL;
  g_autoptr (GError) error = NULL;
  const char *const names[] = { "result", NULL };
  const char *const small[] = { "result=f32[8]:zeros:out", "a=f32[8]:range(1, 1)",
                                "b=f32[8]:const(2)", "n=8", NULL };
  const KsArray *a;
  GListModel *model;

  if (ks_ui_test_skip_without_display ())
    return;
  ks_array_view_set_signature (fixture->view, args);
  g_assert_true (ks_array_view_set_bindings (fixture->view, small, &error));
  g_assert_no_error (error);
  arrays = ks_array_view_create_arrays (fixture->view, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (arrays->len, ==, 3);   /* the pointers only, in order */
  a = g_ptr_array_index (arrays, 1);
  g_assert_cmpuint (a->length, ==, 8);
  g_assert_cmpfloat (ks_array_get_double (a, 3), ==, 4);

  results = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  g_ptr_array_add (results, ks_array_copy (a));
  ks_array_view_set_results (fixture->view, results, names);
  g_assert_true (ks_array_view_show_array (fixture->view, "b"));
  g_assert_false (ks_array_view_show_array (fixture->view, "n"));
  model = column_view_model (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 8);
  maybe_screenshot (fixture, "array-view-inputs");
  for (guint i = 0; i < 8; i++)
    {
      g_autoptr (GtkStringObject) item = g_list_model_get_item (model, i);

      g_assert_cmpstr (gtk_string_object_get_string (item), ==, "2");
    }
}

/* ---- vector, complex and struct types --------------------------------------------------- */

static const char typed_source[] =
  "#include <cuComplex.h>\n"
  "struct Particle { float3 pos; float mass; int id; };\n"
  "__global__ void drift (float4 *v, const float4 *dv, Particle *p, float3 shift,\n"
  "                       Particle base, cuFloatComplex w, unsigned n)\n"
  "{\n"
  "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n)\n"
  "    return;\n"
  "  float4 a = v[i], b = dv[i];\n"
  "  v[i] = make_float4 (a.x + b.x * shift.x, a.y + b.y * shift.y, a.z + b.z * shift.z,\n"
  "                      a.w + w.x);\n"
  "  p[i].pos = make_float3 (base.pos.x + i, base.pos.y, base.pos.z * w.y);\n"
  "  p[i].mass = base.mass * 2;\n"
  "  p[i].id = base.id + (int) i;\n"
  "}\n";

static KsKernelSource *
typed_kernel (void)
{
  KsKernelSource *source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "drift.cu", typed_source);

  g_assert_false (ks_kernel_source_has_errors (source));
  return source;
}

static const char *
selected_string (GtkDropDown *dropdown)
{
  GObject *item = gtk_drop_down_get_selected_item (dropdown);

  g_assert_true (GTK_IS_STRING_OBJECT (item));
  return gtk_string_object_get_string (GTK_STRING_OBJECT (item));
}

static GtkDropDown *
init_dropdown (Fixture *fixture, const char *name)
{
  GtkWidget *dropdown = ks_ui_test_find_widget_matching (arg_row (fixture, name), match_dropdown,
                                                         "Zeros");

  g_assert_nonnull (dropdown);
  return GTK_DROP_DOWN (dropdown);
}

static GtkEditable *
value_entry (Fixture *fixture, const char *name)
{
  GtkWidget *entry = ks_ui_test_find_widget (arg_row (fixture, name), GTK_TYPE_ENTRY);

  g_assert_nonnull (entry);
  return GTK_EDITABLE (entry);
}

static gboolean
match_label_prefix (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), data);
}

/* A kernel of float4 and struct arrays and vector, struct and complex
 * values: each row shows its type by the C name, starts from data that
 * binds, offers the initial data that applies, and takes a value as the
 * command line writes it, a mistake shown at its row. */
static void
test_typed_rows (Fixture *fixture, gconstpointer data)
{
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (GPtrArray) bindings = NULL;
  GtkDropDown *init;
  GtkWidget *row;
  const KsBinding *v, *dv, *p;

  if (ks_ui_test_skip_without_display ())
    return;
  source = typed_kernel ();
  ks_array_view_set_signature (fixture->view, ks_kernel_source_get_args (source));
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);
  bindings = ks_array_view_get_bindings (fixture->view);
  v = find_binding (bindings, "v");
  dv = find_binding (bindings, "dv");
  p = find_binding (bindings, "p");
  g_assert_nonnull (v->element);
  g_assert_cmpstr (v->element->name, ==, "float4");
  g_assert_cmpint (v->init, ==, KS_ARRAY_INIT_ZEROS);
  g_assert_cmpint (dv->init, ==, KS_ARRAY_INIT_UNIFORM);   /* read by the kernel: data */
  g_assert_cmpstr (p->type_name, ==, "Particle");
  g_assert_cmpint (p->init, ==, KS_ARRAY_INIT_ZEROS);
  g_assert_cmpstr (find_binding (bindings, "shift")->value, ==, "(0, 0, 0)");
  g_assert_cmpstr (find_binding (bindings, "base")->value, ==, "{pos=(0, 0, 0), mass=0, id=0}");
  g_assert_cmpstr (find_binding (bindings, "w")->value, ==, "0+0j");

  /* The types by their C names; a struct's array from zeros or a file only. */
  g_assert_cmpstr (selected_string (type_dropdown (fixture, "v")), ==, "float4");
  g_assert_cmpstr (selected_string (type_dropdown (fixture, "p")), ==, "Particle");
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "p")), "Particle[1024]:zeros"));
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "dv")), "float4[1024]:random(1)"));
  init = init_dropdown (fixture, "p");
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (init)), ==, 2);
  g_assert_cmpstr (selected_string (init), ==, "Zeros");
  {
    g_autoptr (GtkStringObject) file = g_list_model_get_item (gtk_drop_down_get_model (init), 1);

    g_assert_cmpstr (gtk_string_object_get_string (file), ==, "File");
  }
  init = init_dropdown (fixture, "v");
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (init)), ==, 6);

  /* Every component of a float4 array is filled: a range over them all. */
  gtk_drop_down_set_selected (init, KS_ARRAY_INIT_RANGE);
  g_assert_cmpuint (fixture->changes, ==, 1);
  g_clear_pointer (&bindings, g_ptr_array_unref);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpint (find_binding (bindings, "v")->init, ==, KS_ARRAY_INIT_RANGE);
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "v")), "float4[1024]:range"));

  /* f32 for a float4 pointer cannot run; float4 again can. */
  gtk_drop_down_set_selected (type_dropdown (fixture, "v"), KS_ELEM_FLOAT32);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_ERROR);
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "v")),
                            "“v” is a float4 pointer but is bound to f32 data"));
  gtk_drop_down_set_selected (type_dropdown (fixture, "v"), 10);
  g_assert_cmpstr (selected_string (type_dropdown (fixture, "v")), ==, "float4");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);

  /* A struct's array made f32 offers every kind of data; made Particle
   * again it starts from zeros, not from the random numbers chosen meanwhile. */
  gtk_drop_down_set_selected (type_dropdown (fixture, "p"), KS_ELEM_FLOAT32);
  init = init_dropdown (fixture, "p");
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (init)), ==, 6);
  gtk_drop_down_set_selected (init, KS_ARRAY_INIT_UNIFORM);
  gtk_drop_down_set_selected (type_dropdown (fixture, "p"), 10);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (init)), ==, 2);
  g_assert_cmpstr (selected_string (init), ==, "Zeros");
  g_clear_pointer (&bindings, g_ptr_array_unref);
  bindings = ks_array_view_get_bindings (fixture->view);
  g_assert_cmpint (find_binding (bindings, "p")->init, ==, KS_ARRAY_INIT_ZEROS);
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);

  /* Values as text: a mistake is shown at the row and marks the entry. */
  row = arg_row (fixture, "shift");
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==,
                   "float3 shift");
  gtk_editable_set_text (value_entry (fixture, "shift"), "(1, 2");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_ERROR);
  g_test_message ("shift (1, 2: %s", row_subtitle (row));
  g_assert_nonnull (strstr (row_subtitle (row), "“shift” (float3): "));
  g_assert_nonnull (strstr (row_subtitle (row), "no closing )"));
  g_assert_nonnull (ks_ui_test_find_widget_matching (row, match_visible_icon,
                                                     "dialog-error-symbolic"));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (value_entry (fixture, "shift")), "error"));
  maybe_screenshot (fixture, "array-view-typed-error");
  gtk_editable_set_text (value_entry (fixture, "shift"), "(1, 2, 3)");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (value_entry (fixture, "shift")),
                                            "error"));
  gtk_editable_set_text (value_entry (fixture, "base"), "{pos=(1, 2, 3), mass=2, id=7}");
  gtk_editable_set_text (value_entry (fixture, "w"), "1.5-2j");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);
  g_assert_cmpstr (row_subtitle (arg_row (fixture, "base")), ==, "");

  /* A struct value with a field left out runs (it is zero), and says so. */
  gtk_editable_set_text (value_entry (fixture, "base"), "{pos=(1, 2, 3), id=7}");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_WARNING);
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "base")), "mass is not given"));

  /* A complex number that is no number. */
  gtk_editable_set_text (value_entry (fixture, "w"), "1.5-2i");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_ERROR);
  g_assert_nonnull (strstr (row_subtitle (arg_row (fixture, "w")), "“w” (cuFloatComplex): "));
}

/* A float4 array and a struct array bound in the view, run on the CPU
 * engine, and the results as the command line prints them: one row per
 * item. */
static void
test_typed_run (Fixture *fixture, gconstpointer data)
{
  const char *const texts[] = { "v=float4[37]:range", "dv=float4[37]:const(0.5)",
                                "p=Particle[37]:zeros", "n=37", NULL };
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsWorker) worker = NULL;
  g_autoptr (KsDevice) cpu = NULL;
  g_autoptr (GPtrArray) bindings = NULL;
  g_autoptr (GPtrArray) arrays = NULL;
  g_autoptr (GError) error = NULL;
  KsArrayRunRequest request;
  KsArrayRunResult result = { 0 };
  GListModel *model;
  GtkWidget *shape;

  if (ks_ui_test_skip_without_display () || !ks_test_have_nvrtc ())
    return;
  source = typed_kernel ();
  ks_array_view_set_signature (fixture->view, ks_kernel_source_get_args (source));
  g_assert_true (ks_array_view_set_bindings (fixture->view, texts, &error));
  g_assert_no_error (error);
  gtk_editable_set_text (value_entry (fixture, "shift"), "(1, 2, 3)");
  gtk_editable_set_text (value_entry (fixture, "base"), "Particle{pos=(1, 2, 3), mass=2, id=7}");
  gtk_editable_set_text (value_entry (fixture, "w"), "1.5-2j");
  g_assert_cmpint (ks_array_view_get_check (fixture->view), ==, KS_BINDING_OK);

  bindings = ks_array_view_get_bindings (fixture->view);
  arrays = ks_array_view_create_arrays (fixture->view, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (arrays->len, ==, 3);
  g_assert_cmpuint (ks_array_get_bytes (g_ptr_array_index (arrays, 2)), ==, 37 * 20);
  /* Poisoned: what the kernel does not write shows. */
  memset (((KsArray *) g_ptr_array_index (arrays, 2))->data, 0xff, 37 * 20);

  worker = ks_worker_new (-1);
  cpu = ks_device_get_cpu ();
  ks_array_run_request_init (&request, source);
  request.bindings = bindings;
  request.arrays = arrays;
  request.launch.block = (KsDim3) { 32, 1, 1 };
  request.launch.auto_grid = TRUE;
  g_assert_true (ks_array_kernel_run (worker, ks_device_get_limits (cpu), &request, &result, NULL,
                                      &error));
  g_assert_no_error (error);
  g_assert_true (result.run.emulated);
  g_assert_cmpuint (result.run.n_findings, ==, 0);
  g_ptr_array_add (result.out_names, NULL);
  ks_array_view_set_results (fixture->view, result.run.arrays,
                             (const char *const *) result.out_names->pdata);
  ks_ui_test_iterate ();

  /* v: one row per float4, x + 0.5·1, y + 0.5·2, z + 0.5·3, w + 1.5. */
  g_assert_true (ks_array_view_show_array (fixture->view, "v"));
  ks_ui_test_iterate ();
  shape = ks_ui_test_find_widget_matching (GTK_WIDGET (fixture->view), match_label_prefix, "37 ");
  g_assert_nonnull (shape);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (shape)), ==, "37 items of float4");
  model = column_view_model (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 37);
  for (guint i = 0; i < 37; i++)
    {
      g_autoptr (GtkStringObject) item = g_list_model_get_item (model, i);
      g_autofree char *expected = g_strdup_printf ("(%g, %g, %g, %g)", 4.0 * i + 0.5,
                                                   4.0 * i + 2, 4.0 * i + 3.5, 4.0 * i + 4.5);

      g_assert_cmpstr (gtk_string_object_get_string (item), ==, expected);
    }
  maybe_screenshot (fixture, "array-view-float4");
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (fixture->view), "(4.5, 6, 7.5, 8.5)"));

  /* p: every struct written, as {…}. */
  g_assert_true (ks_array_view_show_array (fixture->view, "p"));
  ks_ui_test_iterate ();
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (shape)), ==, "37 items of Particle");
  model = column_view_model (fixture);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 37);
  for (guint i = 0; i < 37; i++)
    {
      g_autoptr (GtkStringObject) item = g_list_model_get_item (model, i);
      g_autofree char *expected = g_strdup_printf ("{pos=(%u, 2, -6), mass=4, id=%u}", 1 + i,
                                                   7 + i);

      g_assert_cmpstr (gtk_string_object_get_string (item), ==, expected);
    }
  g_assert_true (ks_ui_test_label_shows (GTK_WIDGET (fixture->view),
                                         "{pos=(3, 2, -6), mass=4, id=9}"));
  maybe_screenshot (fixture, "array-view-struct");

  /* The input as the run was given it, made again from its binding. */
  g_assert_true (ks_array_view_show_array (fixture->view, "dv"));
  ks_ui_test_iterate ();
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (shape)), ==,
                   "37 items of float4, as the run was given it");
  model = column_view_model (fixture);
  {
    g_autoptr (GtkStringObject) item = g_list_model_get_item (model, 36);

    g_assert_cmpstr (gtk_string_object_get_string (item), ==, "(0.5, 0.5, 0.5, 0.5)");
  }

  /* A struct's array saves as .npy (a .csv holds numbers only). */
  {
    g_autofree char *dir = g_dir_make_tmp ("ks-array-view-XXXXXX", NULL);
    g_autofree char *npy = g_build_filename (dir, "p.npy", NULL);
    g_autofree char *csv = g_build_filename (dir, "p.csv", NULL);
    g_autoptr (GFile) npy_file = g_file_new_for_path (npy);
    g_autoptr (GFile) csv_file = g_file_new_for_path (csv);
    g_autoptr (KsArray) loaded = NULL;
    const KsKernelArg *p_arg = g_ptr_array_index ((GPtrArray *) ks_kernel_source_get_args (source),
                                                  2);

    g_assert_true (ks_array_view_show_array (fixture->view, "p"));
    g_assert_true (ks_array_view_save_shown (fixture->view, npy_file, &error));
    g_assert_no_error (error);
    loaded = ks_array_load_of (npy, p_arg->value, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (ks_array_get_count (loaded), ==, 37);
    {
      g_autofree char *item = ks_array_format_item (loaded, 36);

      g_assert_cmpstr (item, ==, "{pos=(37, 2, -6), mass=4, id=43}");
    }
    g_assert_false (ks_array_view_save_shown (fixture->view, csv_file, &error));
    g_assert_nonnull (error);
    g_test_message ("a struct array as .csv: %s", error->message);
    g_clear_error (&error);
    g_unlink (npy);
    g_rmdir (dir);
  }
  ks_array_run_result_clear (&result);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ks_ui_test_init_display (KS_UI_TEST_ADWAITA);

#define ADD(path, func) \
  g_test_add ("/ks/ui/array-view/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("defaults", test_defaults);
  ADD ("type-mismatch", test_type_mismatch);
  ADD ("matrix", test_matrix);
  ADD ("large-vector", test_large_vector);
  ADD ("save-csv", test_save_csv);
  ADD ("bindings-kept", test_bindings_kept);
  ADD ("set-bindings", test_set_bindings);
  ADD ("inputs-shown", test_inputs_shown);
  ADD ("typed-rows", test_typed_rows);
  ADD ("typed-run", test_typed_run);
#undef ADD
  return g_test_run ();
}
