#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <adwaita.h>

#include "ks-launch-panel.h"

struct _KsLaunchPanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkWidget *error_box;
  GtkLabel *error_label;
  GtkButton *fix_button;
  GtkSpinButton *block_x_spin;
  GtkSpinButton *block_y_spin;
  GtkSpinButton *block_z_spin;
  GtkSwitch *auto_grid_switch;
  GtkSpinButton *grid_x_spin;
  GtkSpinButton *grid_y_spin;
  GtkSpinButton *grid_z_spin;
  GtkDropDown *mapping_dropdown;
  GtkDropDown *pixels_dropdown;
  AdwActionRow *mapping_row;
  AdwActionRow *threads_row;
  AdwActionRow *blocks_row;
  AdwActionRow *occupancy_row;
  AdwActionRow *resources_row;

  /* owned references */

  /* the engine's one-click fix for the current configuration */
  KsLaunchConfig suggestion;
  gboolean has_suggestion;

  /* Set while widgets are updated from the pipeline, so that their change
   * signals do not echo the same values back into it. */
  gboolean syncing;
};

G_DEFINE_FINAL_TYPE (KsLaunchPanel, ks_launch_panel, KS_TYPE_PANEL)

/* The pixels-per-thread choices in the order of the drop-down; 0 is Auto. */
static const guint pixels_per_thread_choices[] = { 0, 1, 2, 4, 8, 16 };

/* ---- formatting ---------------------------------------------------------------- */

/* Digits grouped by threes with a narrow no-break space, "2 457 600", which
 * reads the same in every language and never breaks across lines. */
static char *
format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (out, "\u202f");
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

static char *
format_dim3 (const KsDim3 *d)
{
  return g_strdup_printf ("%u × %u × %u", d->x, d->y, d->z);
}

/* One sentence each, so that a translation can order its words freely. */
static char *
format_resources (guint registers, guint64 shared)
{
  g_autofree char *count = NULL;

  if (shared == 0)
    return g_strdup_printf (_("%u registers per thread, no shared memory per block"), registers);
  if (shared % 1024 == 0)
    {
      count = g_strdup_printf ("%" G_GUINT64_FORMAT, shared / 1024);
      return g_strdup_printf (_("%u registers per thread, %s KiB of shared memory per block"),
                              registers, count);
    }
  count = g_strdup_printf ("%" G_GUINT64_FORMAT, shared);
  return g_strdup_printf (_("%u registers per thread, %s bytes of shared memory per block"),
                          registers, count);
}

/* ---- from the pipeline to the widgets ----------------------------------------- */

static void
set_spin (GtkSpinButton *spin, guint value)
{
  if ((guint) gtk_spin_button_get_value_as_int (spin) != value)
    gtk_spin_button_set_value (spin, value);
}

static guint
pixels_choice_index (guint pixels_per_thread)
{
  for (guint i = 0; i < G_N_ELEMENTS (pixels_per_thread_choices); i++)
    if (pixels_per_thread_choices[i] == pixels_per_thread)
      return i;
  return 0;
}

static void
sync_grid_spins (KsLaunchPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const KsLaunchConfig *launch = ks_pipeline_get_launch (pipeline);
  const KsLaunchConfig *shown = launch;

  /* With the automatic grid the spins show the grid that really runs, so
   * switching it off starts from a grid that covers the image. */
  if (launch->auto_grid)
    {
      const KsLaunchConfig *resolved = ks_pipeline_get_resolved_launch (pipeline);
      if (resolved != NULL)
        shown = resolved;
    }

  set_spin (self->grid_x_spin, shown->grid.x);
  set_spin (self->grid_y_spin, shown->grid.y);
  set_spin (self->grid_z_spin, shown->grid.z);
  gtk_widget_set_sensitive (GTK_WIDGET (self->grid_x_spin), !launch->auto_grid);
  gtk_widget_set_sensitive (GTK_WIDGET (self->grid_y_spin), !launch->auto_grid);
  gtk_widget_set_sensitive (GTK_WIDGET (self->grid_z_spin), !launch->auto_grid);
}

static void
sync_widgets (KsLaunchPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  const KsLaunchConfig *launch;

  if (pipeline == NULL)
    return;
  launch = ks_pipeline_get_launch (pipeline);
  if (launch == NULL)
    return;

  self->syncing = TRUE;
  set_spin (self->block_x_spin, launch->block.x);
  set_spin (self->block_y_spin, launch->block.y);
  set_spin (self->block_z_spin, launch->block.z);
  gtk_switch_set_active (self->auto_grid_switch, launch->auto_grid);
  gtk_drop_down_set_selected (self->mapping_dropdown,
                              launch->mode == KS_LAUNCH_GRID_STRIDE ? 1 : 0);
  gtk_drop_down_set_selected (self->pixels_dropdown,
                              pixels_choice_index (launch->pixels_per_thread));
  sync_grid_spins (self);
  self->syncing = FALSE;
}

static void
update_validation (KsLaunchPanel *self)
{
  const char *message = NULL;
  gboolean valid;

  valid = ks_pipeline_get_validation (ks_panel_get_pipeline (KS_PANEL (self)), &message,
                                      &self->suggestion);
  self->has_suggestion = !valid;

  gtk_label_set_label (self->error_label, valid || message == NULL ? "" : message);
  gtk_widget_set_visible (self->error_box, !valid);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "launch.fix", !valid);

  if (!valid)
    {
      g_autofree char *block = format_dim3 (&self->suggestion.block);
      g_autofree char *grid = format_dim3 (&self->suggestion.grid);
      g_autofree char *tip = NULL;

      if (self->suggestion.auto_grid)
        tip = g_strdup_printf (_("Use blocks of %s threads and an automatic grid"), block);
      else
        tip = g_strdup_printf (_("Use blocks of %s threads and a grid of %s blocks"), block,
                               grid);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->fix_button), tip);
    }
}

/* How the threads that run find their pixels, in words a student can check
 * against a grid computed by hand: the pixels per thread the op chose and
 * the number of passes are said, never implied. */
static char *
describe_mapping (const KsLaunchConfig *resolved, guint width, guint height)
{
  guint ppt = resolved->pixels_per_thread != 0 ? resolved->pixels_per_thread : 1;
  guint64 sx = (guint64) resolved->grid.x * resolved->block.x * ppt;
  guint64 sy = (guint64) resolved->grid.y * resolved->block.y;

  if (resolved->mode == KS_LAUNCH_PER_PIXEL)
    {
      if (ppt == 1)
        return g_strdup (_("One pass: the thread at (x, y) of the grid writes pixel (x, y)"));
      return g_strdup_printf (_("One pass: each thread writes %u neighbouring pixels along x, "
                                "so the thread at (x, y) writes pixels %u·x to %u·x + %u of row y"),
                              ppt, ppt, ppt, ppt - 1);
    }
  if (sx == 0 || sy == 0 || width == 0 || height == 0)
    return g_strdup (_("Grid-stride loop"));
  {
    guint64 passes = ((width + sx - 1) / sx) * ((height + sy - 1) / sy);
    g_autofree char *right = format_count (sx);
    g_autofree char *down = format_count (sy);
    g_autofree char *count = format_count (passes);

    return g_strdup_printf (ngettext ("Grid-stride loop: each thread writes %u pixels along x, then "
                                      "steps %s pixels right and %s down; %s pass",
                                      "Grid-stride loop: each thread writes %u pixels along x, then "
                                      "steps %s pixels right and %s down; %s passes",
                                      passes),
                            ppt, right, down, count);
  }
}

static void
update_facts (KsLaunchPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  KsLaunchTotals totals = { 0 };
  KsOccupancy occupancy = { 0 };
  KsKernelAttributes attributes = { 0 };
  const KsLaunchConfig *resolved = ks_pipeline_get_resolved_launch (pipeline);
  KsEngine *engine = ks_pipeline_get_engine (pipeline);
  gboolean cuda = engine != NULL && ks_engine_is_cuda (engine);
  g_autofree char *threads = NULL;
  g_autofree char *pixels = NULL;
  g_autofree char *idle = NULL;
  g_autofree char *unreached = NULL;
  g_autofree char *unreached_text = NULL;
  g_autofree char *blocks = NULL;
  g_autofree char *text = NULL;

  ks_pipeline_get_totals (pipeline, &totals);
  threads = format_count (totals.threads);
  pixels = format_count (totals.pixels);
  idle = format_count (totals.idle_threads);
  unreached = format_count (totals.unreached_pixels);
  unreached_text = g_strdup_printf (ngettext ("%s pixel unreached", "%s pixels unreached",
                                              totals.unreached_pixels), unreached);
  if (totals.unreached_pixels > 0)
    text = g_strdup_printf (_("%s threads for %s pixels; %s idle; %s (the grid is too small)"),
                            threads, pixels, idle, unreached_text);
  else
    text = g_strdup_printf (_("%s threads for %s pixels; %s idle; %s"), threads, pixels, idle,
                            unreached_text);
  adw_action_row_set_subtitle (self->threads_row, text);
  g_clear_pointer (&text, g_free);

  if (resolved != NULL)
    {
      /* The walk is over the output (an op may resize); before the first
       * run, over the input it will have. */
      const KsRunResult *result = ks_pipeline_get_result (pipeline);
      KsImage *a = ks_pipeline_get_input (pipeline, KS_INPUT_A);
      guint w = a != NULL ? a->width : 0, h = a != NULL ? a->height : 0;

      if (result != NULL && result->output != NULL)
        {
          w = ks_buffer_get_width (result->output);
          h = ks_buffer_get_height (result->output);
        }
      text = describe_mapping (resolved, w, h);
      adw_action_row_set_subtitle (self->mapping_row, text);
      g_clear_pointer (&text, g_free);
    }

  blocks = format_count (totals.blocks);
  if (resolved != NULL)
    {
      g_autofree char *grid = format_dim3 (&resolved->grid);
      g_autofree char *per_block = format_count ((guint64) resolved->block.x * resolved->block.y
                                                 * resolved->block.z);
      text = g_strdup_printf (ngettext ("%s block of %s threads (a grid of %s)",
                                        "%s blocks of %s threads (a grid of %s)", totals.blocks),
                              blocks, per_block, grid);
    }
  else
    text = g_strdup_printf (ngettext ("%s block", "%s blocks", totals.blocks), blocks);
  adw_action_row_set_subtitle (self->blocks_row, text);
  g_clear_pointer (&text, g_free);

  if (ks_pipeline_get_occupancy (pipeline, &occupancy, &attributes))
    {
      text = g_strdup_printf (_("%.0f %% (%u of %u warps per multiprocessor); limited by %s"),
                              occupancy.occupancy * 100.0, occupancy.active_warps_per_sm,
                              occupancy.max_warps_per_sm,
                              _(ks_occupancy_limit_describe (occupancy.limiter)));
      adw_action_row_set_subtitle (self->occupancy_row, text);
      g_clear_pointer (&text, g_free);

      text = format_resources (attributes.num_regs,
                               attributes.shared_static + attributes.shared_dynamic);
      adw_action_row_set_subtitle (self->resources_row, text);
    }
  else
    {
      const char *na = cuda ? _("Not known for this configuration") : _("n/a on the CPU engine");

      adw_action_row_set_subtitle (self->occupancy_row, na);
      adw_action_row_set_subtitle (self->resources_row, na);
    }
}

static void
update_all (KsLaunchPanel *self)
{
  if (ks_panel_get_pipeline (KS_PANEL (self)) == NULL)
    return;
  sync_widgets (self);
  update_validation (self);
  update_facts (self);
}

static void
on_pipeline_changed_cb (KsPipeline *pipeline, KsLaunchPanel *self)
{
  update_all (self);
}

static void
on_run_failed_cb (KsPipeline *pipeline, GError *error, KsLaunchPanel *self)
{
  update_all (self);
}

static void
on_device_lost_cb (KsPipeline *pipeline, const char *reason, KsLaunchPanel *self)
{
  update_all (self);
}

/* ---- from the widgets to the pipeline ------------------------------------------- */

static void
apply_widgets (KsLaunchPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  KsLaunchConfig launch;
  guint pixels;

  if (self->syncing || pipeline == NULL || ks_pipeline_get_launch (pipeline) == NULL)
    return;

  launch = *ks_pipeline_get_launch (pipeline);
  launch.block.x = gtk_spin_button_get_value_as_int (self->block_x_spin);
  launch.block.y = gtk_spin_button_get_value_as_int (self->block_y_spin);
  launch.block.z = gtk_spin_button_get_value_as_int (self->block_z_spin);
  launch.auto_grid = gtk_switch_get_active (self->auto_grid_switch);
  /* With the automatic grid the spins only show the resolved grid. */
  if (!launch.auto_grid)
    {
      launch.grid.x = gtk_spin_button_get_value_as_int (self->grid_x_spin);
      launch.grid.y = gtk_spin_button_get_value_as_int (self->grid_y_spin);
      launch.grid.z = gtk_spin_button_get_value_as_int (self->grid_z_spin);
    }
  launch.mode = gtk_drop_down_get_selected (self->mapping_dropdown) == 1 ? KS_LAUNCH_GRID_STRIDE
                                                                          : KS_LAUNCH_PER_PIXEL;
  pixels = gtk_drop_down_get_selected (self->pixels_dropdown);
  launch.pixels_per_thread = pixels < G_N_ELEMENTS (pixels_per_thread_choices)
                               ? pixels_per_thread_choices[pixels]
                               : 0;

  ks_pipeline_set_launch (pipeline, &launch);
}

static void
on_launch_spin_changed_cb (GtkSpinButton *spin, KsLaunchPanel *self)
{
  apply_widgets (self);
}

static void
on_auto_grid_active_cb (GtkSwitch *sw, GParamSpec *pspec, KsLaunchPanel *self)
{
  apply_widgets (self);
}

static void
on_dropdown_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, KsLaunchPanel *self)
{
  apply_widgets (self);
}

static void
preset_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsLaunchPanel *self = KS_LAUNCH_PANEL (widget);
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  g_autoptr (GError) error = NULL;
  KsLaunchConfig launch;
  KsDim3 block;

  if (pipeline == NULL)
    return;
  if (!ks_dim3_parse (g_variant_get_string (parameter, NULL), &block, &error))
    {
      g_warning ("Launch preset: %s", error->message);
      return;
    }
  launch = *ks_pipeline_get_launch (pipeline);
  launch.block = block;
  ks_pipeline_set_launch (pipeline, &launch);
}

static void
fix_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsLaunchPanel *self = KS_LAUNCH_PANEL (widget);
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));

  if (pipeline == NULL || !self->has_suggestion)
    return;
  ks_pipeline_set_launch (pipeline, &self->suggestion);
}

/* ---- public ---------------------------------------------------------------------- */

static void
ks_launch_panel_pipeline_changed (KsPanel *panel, KsPipeline *old_pipeline,
                                  KsPipeline *pipeline)
{
  KsLaunchPanel *self = KS_LAUNCH_PANEL (panel);

  self->has_suggestion = FALSE;

  if (pipeline != NULL)
    update_all (self);
  else
    {
      gtk_widget_set_visible (self->error_box, FALSE);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "launch.fix", FALSE);
    }
}

void
ks_launch_panel_set_pipeline (KsLaunchPanel *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_LAUNCH_PANEL (self));
  ks_panel_set_pipeline (KS_PANEL (self), pipeline);
}

GtkWidget *
ks_launch_panel_new (void)
{
  return g_object_new (KS_TYPE_LAUNCH_PANEL, NULL);
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
ks_launch_panel_dispose (GObject *object)
{
  KsLaunchPanel *self = KS_LAUNCH_PANEL (object);


  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_LAUNCH_PANEL);

  G_OBJECT_CLASS (ks_launch_panel_parent_class)->dispose (object);
}

static void
ks_launch_panel_class_init (KsLaunchPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  KsPanelClass *panel_class = KS_PANEL_CLASS (klass);

  object_class->dispose = ks_launch_panel_dispose;
  panel_class->pipeline_changed = ks_launch_panel_pipeline_changed;

  /* "launch.preset" takes a block shape as ks_dim3_parse reads it ("32x8"). */
  gtk_widget_class_install_action (widget_class, "launch.preset", "s", preset_action);
  gtk_widget_class_install_action (widget_class, "launch.fix", NULL, fix_action);

  gtk_widget_class_set_template_from_resource (
    widget_class, "/org/kernelscope/Kernelscope/ui/ks-launch-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, error_box);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, error_label);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, fix_button);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, block_x_spin);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, block_y_spin);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, block_z_spin);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, auto_grid_switch);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, grid_x_spin);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, grid_y_spin);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, grid_z_spin);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, mapping_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, pixels_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, mapping_row);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, threads_row);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, blocks_row);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, occupancy_row);
  gtk_widget_class_bind_template_child (widget_class, KsLaunchPanel, resources_row);
  gtk_widget_class_bind_template_callback (widget_class, on_launch_spin_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_auto_grid_active_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_dropdown_selected_cb);

}

static void
ks_launch_panel_init (KsLaunchPanel *self)
{
  GSignalGroup *pipeline_signals = ks_panel_get_signals (KS_PANEL (self));

  g_signal_group_connect_object (pipeline_signals, "config-changed",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "inputs-changed",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "ran",
                                 G_CALLBACK (on_pipeline_changed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "run-failed",
                                 G_CALLBACK (on_run_failed_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (pipeline_signals, "device-lost",
                                 G_CALLBACK (on_device_lost_cb), self, G_CONNECT_DEFAULT);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "launch.fix", FALSE);
}
