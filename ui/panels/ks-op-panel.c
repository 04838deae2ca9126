#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <adwaita.h>

#include "ks-op-panel.h"
#include "ks-param-editor.h"
#include "ks-op-registry.h"

struct _KsOpPanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkSearchEntry *search_entry;
  GtkListBox *op_list;
  GtkLabel *no_match_label;
  GtkLabel *title_label;
  GtkLabel *description_label;
  GtkLabel *inputs_label;
  AdwPreferencesGroup *second_group;
  AdwActionRow *second_row;
  KsParamEditor *params_group;

  /* owned references */
  char *query; /* casefolded search text, or NULL */

  /* borrowed: the op the panel shows */
  const KsOp *shown_op;

  /* Set while the op list's selection is updated from the pipeline, so that
   * it does not echo the same op back into it. */
  gboolean syncing;
};

G_DEFINE_FINAL_TYPE (KsOpPanel, ks_op_panel, KS_TYPE_PANEL)

#define OP_KEY "ks-op"

/* ---- the op list ----------------------------------------------------------- */

static const KsOp *
row_get_op (GtkListBoxRow *row)
{
  return g_object_get_data (G_OBJECT (row), OP_KEY);
}

static gboolean
text_matches (const char *text, const char *query)
{
  g_autofree char *folded = NULL;

  if (text == NULL)
    return FALSE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, query) != NULL;
}

static gboolean
op_matches (const KsOp *op, const char *query)
{
  if (query == NULL || *query == '\0')
    return TRUE;
  return text_matches (op->title, query) || text_matches (op->id, query)
         || text_matches (op->group, query) || text_matches (op->description, query);
}

static gboolean
filter_row (GtkListBoxRow *row, gpointer user_data)
{
  KsOpPanel *self = user_data;

  return op_matches (row_get_op (row), self->query);
}

/* A group title above the first visible op of each group. The rows are added
 * group by group, so comparing with the previous visible row is enough. */
static void
update_header (GtkListBoxRow *row, GtkListBoxRow *before, gpointer user_data)
{
  const KsOp *op = row_get_op (row);
  GtkWidget *header;

  if (before != NULL && g_strcmp0 (row_get_op (before)->group, op->group) == 0)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }

  header = gtk_list_box_row_get_header (row);
  if (header == NULL)
    {
      header = gtk_label_new (NULL);
      gtk_label_set_xalign (GTK_LABEL (header), 0);
      gtk_widget_set_margin_start (header, 6);
      gtk_widget_set_margin_top (header, before != NULL ? 12 : 0);
      gtk_widget_set_margin_bottom (header, 3);
      gtk_widget_add_css_class (header, "heading");
      gtk_widget_add_css_class (header, "dim-label");
      gtk_list_box_row_set_header (row, header);
    }
  gtk_label_set_label (GTK_LABEL (header), op->group);
}

static GtkWidget *
create_op_row (const KsOp *op)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *label = gtk_label_new (op->title);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
  gtk_widget_set_tooltip_text (row, op->description);
  g_object_set_data (G_OBJECT (row), OP_KEY, (gpointer) op);
  return row;
}

static void
populate_op_list (KsOpPanel *self)
{
  guint n_ops = ks_op_registry_count ();
  g_autoptr (GPtrArray) groups = g_ptr_array_new ();

  /* Groups in the order the registry introduces them, ops in registry order
   * within each group. */
  for (guint i = 0; i < n_ops; i++)
    {
      const char *group = ks_op_registry_get (i)->group;
      if (!g_ptr_array_find_with_equal_func (groups, group, g_str_equal, NULL))
        g_ptr_array_add (groups, (gpointer) group);
    }

  for (guint g = 0; g < groups->len; g++)
    for (guint i = 0; i < n_ops; i++)
      {
        const KsOp *op = ks_op_registry_get (i);
        if (g_str_equal (op->group, g_ptr_array_index (groups, g)))
          gtk_list_box_append (self->op_list, create_op_row (op));
      }
}

static GtkListBoxRow *
find_op_row (KsOpPanel *self, const KsOp *op)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->op_list));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_BOX_ROW (child) && row_get_op (GTK_LIST_BOX_ROW (child)) == op)
      return GTK_LIST_BOX_ROW (child);
  return NULL;
}

static void
update_query (KsOpPanel *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  g_clear_pointer (&self->query, g_free);
  if (text != NULL && *text != '\0')
    self->query = g_utf8_casefold (text, -1);
}

static void
on_search_changed_cb (GtkSearchEntry *entry, KsOpPanel *self)
{
  gboolean any = FALSE;

  update_query (self);
  gtk_list_box_invalidate_filter (self->op_list);
  gtk_list_box_invalidate_headers (self->op_list);

  for (guint i = 0; i < ks_op_registry_count () && !any; i++)
    any = op_matches (ks_op_registry_get (i), self->query);
  gtk_widget_set_visible (GTK_WIDGET (self->no_match_label), !any);
}

/* Enter picks the first match, so that typing a name and Enter chooses it.
 * "search-changed" comes after a delay: read the text afresh. */
static void
on_search_activate_cb (GtkSearchEntry *entry, KsOpPanel *self)
{
  update_query (self);
  for (guint i = 0; i < ks_op_registry_count (); i++)
    {
      const KsOp *op = ks_op_registry_get (i);
      GtkListBoxRow *row;

      if (!op_matches (op, self->query))
        continue;
      row = find_op_row (self, op);
      if (row != NULL)
        gtk_list_box_select_row (self->op_list, row);
      return;
    }
}

static void
on_op_selected_cb (GtkListBox *box, GtkListBoxRow *row, KsOpPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const KsOp *op;

  if (row == NULL || self->syncing || pipeline == NULL)
    return;
  op = row_get_op (row);
  if (op != ks_pipeline_get_op (pipeline))
    ks_pipeline_set_op (pipeline, op);
}

/* ---- parameters ---------------------------------------------------------------- */

static void
on_param_changed_cb (KsParamEditor *editor, guint index, double value, KsOpPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const KsParams *params;

  if (pipeline == NULL)
    return;
  params = ks_pipeline_get_params (pipeline);
  if (params != NULL && params->values[index] == value)
    return;
  ks_pipeline_set_param (pipeline, index, value);
}

static void
sync_param_values (KsOpPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const KsParams *params;

  if (pipeline == NULL || self->shown_op == NULL)
    return;
  params = ks_pipeline_get_params (pipeline);
  if (params != NULL)
    ks_param_editor_set_values (self->params_group, params);
}

static void
update_second_input (KsOpPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  gboolean two = self->shown_op != NULL && self->shown_op->n_inputs >= 2;
  g_autofree char *subtitle = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->second_group), two);
  if (!two || pipeline == NULL)
    return;

  /* Without a second image the pipeline uses the test card in its place. */
  if (ks_pipeline_get_input (pipeline, KS_INPUT_B) == NULL)
    subtitle = g_strdup_printf (_("%s, until you choose an image"),
                                ks_pipeline_get_input_name (pipeline, KS_INPUT_B));
  else
    subtitle = g_strdup (ks_pipeline_get_input_name (pipeline, KS_INPUT_B));
  adw_action_row_set_subtitle (self->second_row, subtitle);
}

static void
show_op (KsOpPanel *self, const KsOp *op)
{
  GtkListBoxRow *row;

  self->shown_op = op;

  gtk_label_set_label (self->title_label, op != NULL ? op->title : _("No operation"));
  gtk_label_set_label (self->description_label, op != NULL ? op->description : "");
  if (op == NULL)
    gtk_label_set_label (self->inputs_label, "");
  else
    {
      const char *output = op->output_kind == KS_OP_OUTPUT_HISTOGRAM
                             ? _("The result is a histogram.")
                             : _("The result is an image.");
      g_autofree char *text = g_strdup_printf ("%s %s",
                                               op->n_inputs >= 2
                                                 ? _("Takes two images of the same size (A and B).")
                                                 : _("Takes one image."),
                                               output);
      gtk_label_set_label (self->inputs_label, text);
    }

  ks_param_editor_set_specs (self->params_group, op != NULL ? op->params : NULL,
                             op != NULL ? op->n_params : 0);
  gtk_widget_set_visible (GTK_WIDGET (self->params_group),
                          ks_param_editor_get_n_specs (self->params_group) > 0);
  update_second_input (self);
  sync_param_values (self);

  self->syncing = TRUE;
  row = op != NULL ? find_op_row (self, op) : NULL;
  if (row != NULL)
    gtk_list_box_select_row (self->op_list, row);
  else
    gtk_list_box_unselect_all (self->op_list);
  self->syncing = FALSE;
}

/* ---- the pipeline ------------------------------------------------------------ */

static void
on_config_changed_cb (KsPipeline *pipeline, KsOpPanel *self)
{
  const KsOp *op = ks_pipeline_get_op (pipeline);

  if (op != self->shown_op)
    show_op (self, op);
  else
    sync_param_values (self);
}

static void
on_inputs_changed_cb (KsPipeline *pipeline, KsOpPanel *self)
{
  update_second_input (self);
}

static void
ks_op_panel_pipeline_changed (KsPanel *panel, KsPipeline *old_pipeline,
                              KsPipeline *pipeline)
{
  KsOpPanel *self = KS_OP_PANEL (panel);

  show_op (self, pipeline != NULL ? ks_pipeline_get_op (pipeline) : NULL);
}

void
ks_op_panel_set_pipeline (KsOpPanel *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_OP_PANEL (self));
  ks_panel_set_pipeline (KS_PANEL (self), pipeline);
}

GtkWidget *
ks_op_panel_new (void)
{
  return g_object_new (KS_TYPE_OP_PANEL, NULL);
}

/* ---- GObject ------------------------------------------------------------------ */

static void
ks_op_panel_dispose (GObject *object)
{
  KsOpPanel *self = KS_OP_PANEL (object);

  self->shown_op = NULL;

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_OP_PANEL);

  G_OBJECT_CLASS (ks_op_panel_parent_class)->dispose (object);
}

static void
ks_op_panel_finalize (GObject *object)
{
  KsOpPanel *self = KS_OP_PANEL (object);

  g_free (self->query);

  G_OBJECT_CLASS (ks_op_panel_parent_class)->finalize (object);
}

static void
ks_op_panel_class_init (KsOpPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  KsPanelClass *panel_class = KS_PANEL_CLASS (klass);

  object_class->dispose = ks_op_panel_dispose;
  object_class->finalize = ks_op_panel_finalize;
  panel_class->pipeline_changed = ks_op_panel_pipeline_changed;

  g_type_ensure (KS_TYPE_PARAM_EDITOR);
  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-op-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, op_list);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, no_match_label);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, title_label);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, description_label);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, inputs_label);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, second_group);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, second_row);
  gtk_widget_class_bind_template_child (widget_class, KsOpPanel, params_group);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_op_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_param_changed_cb);

}

static void
ks_op_panel_init (KsOpPanel *self)
{
  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "config-changed",
                                 G_CALLBACK (on_config_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "inputs-changed",
                                 G_CALLBACK (on_inputs_changed_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_list_box_set_filter_func (self->op_list, filter_row, self, NULL);
  gtk_list_box_set_header_func (self->op_list, update_header, NULL, NULL);
  populate_op_list (self);
  show_op (self, NULL);
}
