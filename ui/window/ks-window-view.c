/* ks-window-view.c: the readouts and controls around the window's view —
 * the pixel inspector under the pointer (a pixel's values in and out, and
 * which thread wrote it), the overlay's menu, opacity, legend and the cost
 * of recording it (win.overlay, Alt+0 … Alt+4), and the split slider. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-window-private.h"

static void
format_rgba (GString *s, guint32 p)
{
  g_string_append_printf (s, "%3u %3u %3u %3u", p & 0xff, (p >> 8) & 0xff, (p >> 16) & 0xff,
                          p >> 24);
}

/* Who wrote the pixel, when the run recorded it: a class's "which thread
 * wrote this?" answered under the pointer. */
static void
append_owner (KsWindow *self, GString *s, guint x, guint y)
{
  const KsCoverage *cov = ks_pipeline_get_coverage (self->pipeline);
  const KsRunResult *result = ks_pipeline_get_result (self->pipeline);
  KsPixelOwner o;

  if (cov == NULL || result == NULL
      || !ks_overlay_pixel_owner (cov, &result->launch, x, y, &o))
    return;
  if (o.writes == 0)
    {
      KsDim3 block, thread;

      ks_overlay_auto_owner (&result->launch, x, y, &block, &thread);
      g_string_append_printf (s, "\n%s", _("no thread wrote this pixel"));
      g_string_append_printf (s, "\n");
      g_string_append_printf (s, _("an automatic grid: block (%u, %u), thread (%u, %u)"),
                              block.x, block.y, thread.x, thread.y);
      return;
    }
  g_string_append_printf (s, "\n");
  g_string_append_printf (s, _("block (%u, %u), thread (%u, %u)"), o.block.x, o.block.y,
                          o.thread.x, o.thread.y);
  g_string_append_printf (s, "\n");
  g_string_append_printf (s, _("warp %u, lane %u"), o.warp, o.lane);
  if (o.writes > 1)
    {
      g_string_append_printf (s, "\n");
      g_string_append_printf (s, ngettext ("written %u time, by this thread last",
                                           "written %u times, by this thread last", o.writes),
                              o.writes);
    }
}

/* The pointer over the launch's threads beyond the image: which thread it
 * is, and that it reached no pixel. */
static gboolean
append_outside (KsWindow *self, GString *s)
{
  const KsRunResult *result = ks_pipeline_get_result (self->pipeline);
  guint64 x, y;
  guint ppt, bx, by;
  guint64 gx;

  if (result == NULL || !ks_image_view_get_hover_outside (self->view, &x, &y))
    return FALSE;
  ppt = result->launch.pixels_per_thread != 0 ? result->launch.pixels_per_thread : 1;
  bx = MAX (result->launch.block.x, 1u);
  by = MAX (result->launch.block.y, 1u);
  gx = x / ppt;
  {
    g_autofree char *block_x = g_strdup_printf ("%" G_GUINT64_FORMAT, gx / bx);
    g_autofree char *block_y = g_strdup_printf ("%" G_GUINT64_FORMAT, y / by);

    g_string_append_printf (s, _("beyond the image: block (%s, %s), thread (%u, %u)"), block_x,
                            block_y, (guint) (gx % bx), (guint) (y % by));
  }
  g_string_append_printf (s, "\n%s", _("this thread reached no pixel"));
  return TRUE;
}

static void
on_view_hover_changed_cb (KsImageView *view, gpointer user_data)
{
  KsWindow *self = user_data;
  KsImage *a = ks_pipeline_get_input (self->pipeline, KS_INPUT_A);
  g_autoptr (GString) s = g_string_new (NULL);
  guint x, y;
  guint32 out;

  if (a != NULL && append_outside (self, s))
    {
      gtk_label_set_text (self->inspector_label, s->str);
      gtk_widget_set_visible (GTK_WIDGET (self->inspector_label), TRUE);
      return;
    }
  if (a == NULL || !ks_image_view_get_hover (view, &x, &y) || x >= a->width || y >= a->height)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->inspector_label), FALSE);
      return;
    }
  /* The labels pad to five columns, so that the two rows of values line up. */
  g_string_append_printf (s, "x %u  y %u\n%-5s", x, y, C_("pixel inspector", "in"));
  format_rgba (s, ks_image_get_rgba (a, x, y));
  if (ks_pipeline_read_output_pixel (self->pipeline, x, y, &out))
    {
      g_string_append_printf (s, "\n%-5s", C_("pixel inspector", "out"));
      format_rgba (s, out);
      append_owner (self, s, x, y);
    }
  gtk_label_set_text (self->inspector_label, s->str);
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_label), TRUE);
}

/* ---- overlays ---------------------------------------------------------------------------- */

static char *
swatch (guint32 rgb)
{
  return g_strdup_printf ("<span foreground=\"#%02x%02x%02x\">■</span>", rgb & 0xff,
                          (rgb >> 8) & 0xff, (rgb >> 16) & 0xff);
}

/* What the colours of the overlay mean, for the launch that ran. */
static void
update_legend (KsWindow *self)
{
  KsOverlayMode mode = ks_image_view_get_overlay (self->view);
  const KsRunResult *result = ks_pipeline_get_result (self->pipeline);
  gboolean recorded = ks_pipeline_get_ownership (self->pipeline) != NULL;
  g_autofree char *never = swatch (KS_OVERLAY_NEVER_RGB);
  g_autofree char *text = NULL;

  if (mode == KS_OVERLAY_NONE)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->legend_label), FALSE);
      return;
    }
  if (result == NULL || !recorded)
    {
      KsKernelSource *user = ks_pipeline_get_user_kernel (self->pipeline);
      const char *why = user != NULL
                            && ks_kernel_source_get_mode (user) != KS_KERNEL_MODE_EXPRESSION
                          ? _("Overlays need an expression kernel: an image kernel writes "
                              "wherever it likes, and who wrote what is not recorded.")
                        : result != NULL && result->output == NULL
                          ? _("This op's result is a histogram: there are no output pixels "
                              "to colour.")
                          : _("Recording who wrote each pixel…");
      text = g_markup_escape_text (why, -1);
    }
  else
    {
      const KsLaunchConfig *l = &result->launch;
      g_autofree char *idle = swatch (KS_OVERLAY_IDLE_RGB);
      guint64 ew, eh;
      g_autofree char *beyond = NULL;

      ks_overlay_launch_extent (l, &ew, &eh);
      if (ks_buffer_get_width (result->output) < ew || ks_buffer_get_height (result->output) < eh)
        beyond = g_strdup_printf (_("%s threads beyond the image"), idle);
      switch (mode)
        {
        case KS_OVERLAY_BLOCK:
          {
            g_autofree char *a = swatch (ks_overlay_palette[0]);
            g_autofree char *b = swatch (ks_overlay_palette[1]);
            g_autofree char *c = swatch (ks_overlay_palette[3]);

            text = g_strdup_printf (_("%s%s%s one colour a block of %u×%u threads, a grid of "
                                      "%u×%u blocks; lines are block edges · %s not written"),
                                    a, b, c, l->block.x, l->block.y, l->grid.x, l->grid.y,
                                    never);
            break;
          }
        case KS_OVERLAY_THREAD:
          text = g_strdup_printf (_("red: threadIdx.x from 0 to %u · green: threadIdx.y from 0 "
                                    "to %u · %s not written"),
                                  l->block.x - 1, l->block.y - 1, never);
          break;
        case KS_OVERLAY_WARP:
          {
            g_autofree char *a = swatch (ks_overlay_palette[0]);
            g_autofree char *b = swatch (ks_overlay_palette[1]);

            text = g_strdup_printf (_("%s%s one colour a warp of 32 threads, its lanes from dark "
                                      "(lane 0) to light (lane 31) · %s not written"),
                                    a, b, never);
            break;
          }
        case KS_OVERLAY_COVERAGE:
        default:
          {
            const KsCoverage *cov = ks_pipeline_get_coverage (self->pipeline);
            g_autofree char *once = swatch (KS_OVERLAY_ONCE_RGB);
            g_autofree char *twice = swatch (KS_OVERLAY_TWICE_RGB);
            /* Counts as text: xgettext cannot read G_GUINT64_FORMAT. */
            g_autofree char *unwritten = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                          cov->unwritten_pixels);
            g_autofree char *multiple = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                         cov->multiply_written_pixels);
            g_autofree char *idle_threads = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                             cov->idle_threads);

            text = g_strdup_printf (_("%s never written (%s) · %s written once · %s written "
                                      "more than once (%s) · %s idle threads"),
                                    never, unwritten, once, twice, multiple, idle_threads);
            break;
          }
        }
      if (beyond != NULL)
        {
          char *with = g_strdup_printf ("%s · %s", text, beyond);
          g_free (text);
          text = with;
        }
    }
  gtk_label_set_markup (self->legend_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->legend_label), TRUE);
}

/* What recording costs: the instrumented kernel against a plain run of the
 * same configuration. */
static void
update_cost (KsWindow *self)
{
  double with, without;
  g_autofree char *text = NULL;

  ks_pipeline_get_instrument_cost (self->pipeline, &with, &without);
  if (ks_image_view_get_overlay (self->view) == KS_OVERLAY_NONE || with < 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->cost_label), FALSE);
      return;
    }
  if (ks_pipeline_get_result (self->pipeline)->warmup)
    text = g_strdup_printf (_("recorded run %.3f ms (its first, a warm-up)"), with);
  else if (without > 0)
    text = g_strdup_printf (_("recorded run %.3f ms, plain %.3f ms"), with, without);
  else
    text = g_strdup_printf (_("recorded run %.3f ms"), with);
  gtk_label_set_text (self->cost_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->cost_label),
                               _("Recording which thread wrote each pixel makes the kernel "
                                 "slower: this is its time with the recording, and without"));
  gtk_widget_set_visible (GTK_WIDGET (self->cost_label), TRUE);
}

static void
on_overlay_notify_cb (GObject *object, GParamSpec *pspec, KsWindow *self)
{
  KsOverlayMode mode = ks_image_view_get_overlay (self->view);

  if (gtk_drop_down_get_selected (self->overlay_dropdown) != (guint) mode)
    gtk_drop_down_set_selected (self->overlay_dropdown, mode);
  gtk_widget_set_visible (self->opacity_scale, mode != KS_OVERLAY_NONE);
  update_legend (self);
  update_cost (self);
  on_view_hover_changed_cb (self->view, self);
}

static void
on_overlay_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, KsWindow *self)
{
  guint selected = gtk_drop_down_get_selected (dropdown);

  if (selected < KS_OVERLAY_N_MODES)
    ks_image_view_set_overlay (self->view, selected);
}

static void
on_pipeline_ran_cb (KsPipeline *pipeline, KsWindow *self)
{
  if (ks_image_view_get_overlay (self->view) == KS_OVERLAY_NONE)
    return;
  update_legend (self);
  update_cost (self);
  on_view_hover_changed_cb (self->view, self);
}

void
_ks_window_set_overlay (KsWindow *self, KsOverlayMode mode)
{
  ks_image_view_set_overlay (self->view, mode);
}

static void
overlay_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  KsOverlayMode mode;

  if (ks_overlay_mode_from_string (g_variant_get_string (parameter, NULL), &mode))
    ks_image_view_set_overlay (self->view, mode);
}

static void
on_split_changed_cb (GtkAdjustment *adjustment, gpointer user_data)
{
  KsWindow *self = user_data;
  ks_image_view_set_split (self->view, gtk_adjustment_get_value (adjustment));
}

const KsWindowActionEntry _ks_window_view_actions[] = {
  { "win.overlay", "s", overlay_action },
  { NULL },
};

void
_ks_window_setup_view (KsWindow *self)
{
  g_signal_connect (self->view, "hover-changed", G_CALLBACK (on_view_hover_changed_cb), self);
  g_signal_connect (self->view, "notify::overlay", G_CALLBACK (on_overlay_notify_cb), self);
  g_signal_connect (self->overlay_dropdown, "notify::selected",
                    G_CALLBACK (on_overlay_selected_cb), self);
  g_signal_connect (self->pipeline, "ran", G_CALLBACK (on_pipeline_ran_cb), self);
  g_object_bind_property (self->opacity_adjustment, "value", self->view, "overlay-opacity",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_signal_connect (self->split_adjustment, "value-changed", G_CALLBACK (on_split_changed_cb),
                    self);
  ks_image_view_set_split (self->view, 0);
}

void
_ks_window_class_init_view (GtkWidgetClass *widget_class)
{
  for (guint m = 0; m < KS_OVERLAY_N_MODES; m++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0 + m, GDK_ALT_MASK, "win.overlay",
                                         "s", ks_overlay_mode_to_string (m));
}
