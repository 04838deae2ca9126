/* ks-kernel-panel-cards.c: the kernel panel's cards for the newest source
 * that compiled: its resources (registers, shared and local memory, spills,
 * threads a block, architecture) and the parameters its annotations
 * declare, as widgets whose values go to the pipeline. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"

/* ---- the resource card ------------------------------------------------------------- */

static char *
format_bytes (guint64 bytes)
{
  g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, bytes);

  if (bytes < 1024)
    return g_strdup_printf (ngettext ("%s byte", "%s bytes", bytes), count);
  return g_strdup_printf (_("%.1f KiB (%s bytes)"), bytes / 1024.0, count);
}

/* Rows and groups read their text as Pango markup: a template argument
 * ("<4, 1, false>") must come through as written. */
static void
set_row (AdwActionRow *row, const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  adw_action_row_set_subtitle (row, escaped);
}

void
_ks_kernel_panel_show_resources (KsKernelPanel *self, const KsKernelResources *r)
{
  g_autofree char *regs = NULL, *shared = NULL, *stat = NULL, *dyn = NULL, *local = NULL;
  g_autofree char *spills = NULL, *threads = NULL, *arch = NULL;

  gtk_widget_set_sensitive (GTK_WIDGET (self->resources_group), r != NULL);
  if (r == NULL)
    {
      adw_preferences_group_set_description (self->resources_group,
                                             _("Shown once the source compiles"));
      return;
    }
  {
    g_autofree char *name = g_markup_escape_text (r->name != NULL ? r->name : "", -1);

    adw_preferences_group_set_description (self->resources_group, name);
  }
  regs = g_strdup_printf ("%u", r->num_regs);
  stat = format_bytes (r->shared_static);
  dyn = format_bytes (self->dynamic_shared);
  shared = g_strdup_printf (_("%s static, %s dynamic"), stat, dyn);
  local = format_bytes (r->local_bytes);
  if (r->spill_stores == 0 && r->spill_loads == 0)
    spills = g_strdup (_("None"));
  else
    {
      g_autofree char *stores = g_strdup_printf ("%" G_GUINT64_FORMAT, r->spill_stores);
      g_autofree char *loads = g_strdup_printf ("%" G_GUINT64_FORMAT, r->spill_loads);

      spills = g_strdup_printf (_("%s bytes stored, %s bytes loaded"), stores, loads);
    }
  if (r->launch_bounds > 0)
    threads = g_strdup_printf ("%u (__launch_bounds__ %u)", r->max_threads_per_block,
                               r->launch_bounds);
  else
    threads = g_strdup_printf ("%u", r->max_threads_per_block);
  arch = g_strdup_printf ("sm_%u", r->arch);
  set_row (self->registers_row, regs);
  set_row (self->shared_row, shared);
  set_row (self->local_row, local);
  set_row (self->spill_row, spills);
  set_row (self->max_threads_row, threads);
  set_row (self->arch_row, arch);
}

/* ---- parameters ---------------------------------------------------------------------- */

static void
on_param_changed_cb (KsParamEditor *editor, guint index, double value, KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));

  if (pipeline != NULL)
    ks_pipeline_set_user_param (pipeline, index, value);
}

void
_ks_kernel_panel_sync_param_values (KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));

  if (pipeline == NULL || ks_pipeline_get_user_kernel (pipeline) == NULL)
    return;
  ks_param_editor_set_values (self->params_group, ks_pipeline_get_user_params (pipeline));
}

void
_ks_kernel_panel_show_params (KsKernelPanel *self, KsKernelSource *source)
{
  guint n = 0;
  const KsParamSpec *specs = source != NULL ? ks_kernel_source_get_params (source, &n) : NULL;
  gboolean any;

  ks_param_editor_set_specs (self->params_group, specs, n);
  any = ks_param_editor_get_n_specs (self->params_group) > 0;
  gtk_widget_set_visible (GTK_WIDGET (self->no_params_label), !any);
  gtk_widget_set_visible (GTK_WIDGET (self->params_group), any);
  _ks_kernel_panel_sync_param_values (self);
}

/* The template's handler of the parameters card, bound by ks_kernel_panel_class_init. */
void
_ks_kernel_panel_class_init_cards (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_param_changed_cb);
}
