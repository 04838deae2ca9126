/* ks-array-view.c: the array view (see ks-array-view.h): the widget, its
 * template and its public functions.
 *
 * Every function that checks or casts the type is here, where the type is
 * defined, and hands the work to the file of its concern, which never calls
 * back: ks-array-view-bindings.c (signatures, bindings and the arrays made
 * from them), ks-array-view-rows.c (the argument rows the user edits, their
 * checks) and ks-array-view-results.c (the arrays a run produced). */
#include "config.h"

#include "ks-array-view-private.h"

#define KS_ARRAY_VIEW_RESOURCE "/org/kernelscope/ui/ks-array-view.ui"

G_DEFINE_FINAL_TYPE (KsArrayView, ks_array_view, GTK_TYPE_WIDGET)

/* ---- bindings ---------------------------------------------------------------------- */

void
ks_array_view_set_signature (KsArrayView *self, const GPtrArray *args)
{
  g_return_if_fail (KS_IS_ARRAY_VIEW (self));
  g_return_if_fail (args != NULL);

  _ks_array_view_set_signature (self, args);
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
  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return _ks_array_view_set_bindings (self, texts, error);
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
  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _ks_array_view_create_arrays (self, error);
}

/* ---- results ------------------------------------------------------------------------- */

void
ks_array_view_set_results (KsArrayView *self, GPtrArray *arrays, const char *const *names)
{
  g_return_if_fail (KS_IS_ARRAY_VIEW (self));
  g_return_if_fail (arrays == NULL || names != NULL);
  g_return_if_fail (arrays == NULL || g_strv_length ((char **) names) >= arrays->len);

  _ks_array_view_set_results (self, arrays, names);
}

gboolean
ks_array_view_show_array (KsArrayView *self, const char *name)
{
  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  return _ks_array_view_show_array (self, name);
}

gboolean
ks_array_view_save_shown (KsArrayView *self, GFile *file, GError **error)
{
  g_return_val_if_fail (KS_IS_ARRAY_VIEW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return _ks_array_view_save_shown (self, file, error);
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
    _ks_array_view_set_list_model (self, NULL);

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
  g_clear_pointer (&self->run_input_args, g_ptr_array_unref);
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
  _ks_array_view_signals[SIGNAL_BINDINGS_CHANGED] =
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
  _ks_array_view_class_init_results (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_array_view_init (KsArrayView *self)
{
  self->args = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_arg_free);
  self->bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  self->extra = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  self->rows = g_ptr_array_new_with_free_func (_ks_array_view_arg_row_free);
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  self->check = KS_BINDING_OK;

  gtk_widget_init_template (GTK_WIDGET (self));
  _ks_array_view_rebuild_rows (self);
  _ks_array_view_update_summary (self);
  ks_array_view_set_results (self, NULL, NULL);
}
