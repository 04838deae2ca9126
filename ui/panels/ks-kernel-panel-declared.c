/* ks-kernel-panel-declared.c: the kernel panel's declared kernels
 * (ks-declared-kernel.h). A template from the "Declared" section fills the
 * declaration form above the editor; every change of the form regenerates
 * the CUDA source (after the debounce), which the editor shows read-only
 * and which compiles and runs on arrays like any kernel. A problem of the
 * declaration itself (a bad argument list, an unknown type) is listed with
 * its piece, line and column, as the compiler's messages about the pieces
 * are. "Edit as CUDA", another template or a file leaves the form: the
 * text stays, editable. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"

/* The templates: a declaration and the bindings its first run starts from. */
static const char *const axpy_bindings[] = { "a=2", NULL };
static const char *const cumsum_bindings[] = { "x=i32[1024]:const(1)", NULL };

static const struct
{
  const char *template_name;
  KsDeclaration declaration;
  const char *const *bindings;
} examples[] = {
  { "declared-axpy",
    { .kind = KS_DECLARED_ELEMENTWISE, .name = "axpy",
      .arguments = "float a, const float *x, const float *y, float *z",
      .operation = "z[i] = a*x[i] + y[i]" },
    axpy_bindings },
  { "declared-dot",
    { .kind = KS_DECLARED_REDUCTION, .name = "dot", .dtype = "float", .neutral = "0",
      .reduce_expr = "a+b", .map_expr = "x[i]*y[i]",
      .arguments = "const float *x, const float *y" },
    NULL },
  { "declared-cumsum",
    { .kind = KS_DECLARED_INCLUSIVE_SCAN, .name = "cumsum", .dtype = "int",
      .reduce_expr = "a+b" },
    cumsum_bindings },
};

static const char *
text_of (AdwEntryRow *row)
{
  return gtk_editable_get_text (GTK_EDITABLE (row));
}

static KsDeclaredKind
kind_of (KsKernelPanel *self)
{
  guint selected = adw_combo_row_get_selected (self->declared_kind_row);

  return selected <= KS_DECLARED_EXCLUSIVE_SCAN ? (KsDeclaredKind) selected
                                                : KS_DECLARED_ELEMENTWISE;
}

/* The form's fields as a declaration; the strings are the rows'. */
static void
read_form (KsKernelPanel *self, KsDeclaration *d)
{
  memset (d, 0, sizeof *d);
  d->kind = kind_of (self);
  d->name = text_of (self->declared_name_row);
  d->preamble = text_of (self->declared_preamble_row);
  d->reduce_expr = text_of (self->declared_combine_row);
  d->dtype = text_of (self->declared_dtype_row);
  if (d->kind == KS_DECLARED_ELEMENTWISE)
    {
      d->arguments = text_of (self->declared_arguments_row);
      d->operation = text_of (self->declared_operation_row);
    }
  else if (d->kind == KS_DECLARED_REDUCTION)
    {
      d->arguments = text_of (self->declared_arguments_row);
      d->map_expr = text_of (self->declared_map_row);
      d->neutral = text_of (self->declared_neutral_row);
    }
  else
    {
      if (d->kind == KS_DECLARED_EXCLUSIVE_SCAN)
        d->neutral = text_of (self->declared_neutral_row);
      d->out_of_place = gtk_switch_get_active (self->declared_out_of_place_switch);
    }
}

/* The rows a kind reads, titled in its own words. */
static void
show_rows (KsKernelPanel *self)
{
  KsDeclaredKind kind = kind_of (self);
  gboolean scan = kind == KS_DECLARED_INCLUSIVE_SCAN || kind == KS_DECLARED_EXCLUSIVE_SCAN;

  gtk_widget_set_visible (GTK_WIDGET (self->declared_arguments_row), !scan);
  gtk_widget_set_visible (GTK_WIDGET (self->declared_operation_row),
                          kind == KS_DECLARED_ELEMENTWISE);
  gtk_widget_set_visible (GTK_WIDGET (self->declared_map_row), kind == KS_DECLARED_REDUCTION);
  gtk_widget_set_visible (GTK_WIDGET (self->declared_combine_row),
                          kind != KS_DECLARED_ELEMENTWISE);
  gtk_widget_set_visible (GTK_WIDGET (self->declared_dtype_row), kind != KS_DECLARED_ELEMENTWISE);
  gtk_widget_set_visible (GTK_WIDGET (self->declared_neutral_row),
                          kind == KS_DECLARED_REDUCTION || kind == KS_DECLARED_EXCLUSIVE_SCAN);
  gtk_widget_set_visible (GTK_WIDGET (self->declared_out_of_place_row), scan);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->declared_combine_row),
                                 scan ? _("Scan: combine a and b (scan_expr)")
                                      : _("Reduce: combine a and b (reduce_expr)"));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->declared_dtype_row),
                                 scan ? _("Element type (dtype)")
                                      : _("Result type (dtype_out)"));
}

/* The form's source into the editor, compiled at once; or its problem listed. */
static void
regenerate (KsKernelPanel *self)
{
  KsDeclaration d;
  KsDiagnostic *problem = NULL;
  g_autofree char *text = NULL;

  g_clear_handle_id (&self->declared_debounce, g_source_remove);
  if (!self->declared)
    return;
  read_form (self, &d);
  text = ks_declaration_generate_text (&d, &problem, NULL);
  if (text == NULL)
    {
      _ks_kernel_panel_show_problem (self, problem);
      ks_diagnostic_free (problem);
      return;
    }
  g_free (self->name);
  self->name = g_strconcat (ks_declaration_get_name (&d), ".cu", NULL);
  self->declared_kind = d.kind;
  self->filling = TRUE;
  _ks_kernel_panel_set_text (self, text);
  self->filling = FALSE;
}

static gboolean
regenerate_cb (gpointer user_data)
{
  KsKernelPanel *self = user_data;

  self->declared_debounce = 0;
  regenerate (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_regenerate (KsKernelPanel *self)
{
  if (self->filling || !self->declared)
    return;
  g_clear_handle_id (&self->declared_debounce, g_source_remove);
  self->declared_debounce = g_timeout_add (KS_KERNEL_PANEL_DEBOUNCE_MS, regenerate_cb, self);
}

static void
on_declared_changed_cb (GtkEditable *editable, KsKernelPanel *self)
{
  schedule_regenerate (self);
}

static void
on_declared_switch_cb (GtkSwitch *button, GParamSpec *pspec, KsKernelPanel *self)
{
  schedule_regenerate (self);
}

static void
on_declared_kind_cb (AdwComboRow *row, GParamSpec *pspec, KsKernelPanel *self)
{
  show_rows (self);
  schedule_regenerate (self);
}

static void
on_declared_detach_cb (GtkButton *button, KsKernelPanel *self)
{
  _ks_kernel_panel_leave_declared (self);
  _ks_kernel_panel_set_status (self, _("The generated source is yours now: edit it as any "
                                       "kernel"));
}

static void
set_row (AdwEntryRow *row, const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (row), text != NULL ? text : "");
}

void
_ks_kernel_panel_set_declaration (KsKernelPanel *self, const KsDeclaration *d,
                                  const char *const *bindings)
{
  self->filling = TRUE;
  adw_combo_row_set_selected (self->declared_kind_row, d->kind);
  set_row (self->declared_name_row, d->name);
  set_row (self->declared_arguments_row, d->arguments);
  set_row (self->declared_operation_row, d->operation);
  set_row (self->declared_map_row, d->map_expr);
  set_row (self->declared_combine_row, d->reduce_expr);
  set_row (self->declared_dtype_row, d->dtype);
  set_row (self->declared_neutral_row, d->neutral);
  set_row (self->declared_preamble_row, d->preamble);
  gtk_switch_set_active (self->declared_out_of_place_switch, d->out_of_place);
  show_rows (self);
  g_clear_object (&self->file);
  self->loading = TRUE;
  _ks_kernel_panel_set_mode (self, KS_KERNEL_MODE_ANY);
  self->loading = FALSE;
  self->filling = FALSE;

  self->declared = TRUE;
  self->declared_example = bindings;
  gtk_widget_set_visible (self->declaration_box, TRUE);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->source_view), FALSE);
  regenerate (self);
}

gboolean
_ks_kernel_panel_get_declaration (KsKernelPanel *self, KsDeclaration *declaration)
{
  if (!self->declared)
    return FALSE;
  read_form (self, declaration);
  return TRUE;
}

gboolean
_ks_kernel_panel_load_declared (KsKernelPanel *self, const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (examples); i++)
    if (g_str_equal (examples[i].template_name, name))
      {
        _ks_kernel_panel_set_declaration (self, &examples[i].declaration, examples[i].bindings);
        return TRUE;
      }
  return FALSE;
}

/* The template's children and handlers of the form, bound by ks_kernel_panel_class_init. */
void
_ks_kernel_panel_class_init_declared (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declaration_box);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_kind_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_name_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_arguments_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_operation_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_map_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_combine_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_dtype_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_neutral_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_preamble_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel, declared_out_of_place_row);
  gtk_widget_class_bind_template_child (widget_class, KsKernelPanel,
                                        declared_out_of_place_switch);
  gtk_widget_class_bind_template_callback (widget_class, on_declared_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_declared_switch_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_declared_kind_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_declared_detach_cb);
}
