#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "ks-console-panel.h"
#include "ks-device-panel.h"
#include "ks-image-view.h"
#include "ks-kernel-panel.h"
#include "ks-panel-types.h"
#include "ks-camera.h"
#include "ks-sweep-window.h"
#include "ks-window-lessons.h"
#include "ks-timing-panel.h"
#include "ks-window-private.h"

#define KS_X_DECLARE(name) GType name##_get_type (void);
KS_PANEL_TYPES (KS_X_DECLARE)
#undef KS_X_DECLARE

#define SAMPLE_RESOURCE_DIR "/org/kernelscope/Kernelscope/samples/"

struct _KsWindow
{
  AdwApplicationWindow parent_instance;

  /* template widgets */
  AdwToastOverlay *toast_overlay;
  AdwWindowTitle *window_title;
  GtkToggleButton *left_toggle;
  GtkToggleButton *right_toggle;
  GtkRevealer *banner_revealer;
  GtkLabel *banner_label;
  GtkWidget *left_panel;
  GtkWidget *left_separator;
  GtkWidget *right_panel;
  GtkWidget *right_separator;
  KsImageView *view;
  GtkLabel *inspector_label;
  GtkAdjustment *split_adjustment;
  GtkLabel *zoom_label;
  GtkLabel *status_label;
  KsDevicePanel *device_panel;
  KsTimingPanel *timing_panel;
  GtkToggleButton *kernel_toggle;
  GtkWidget *kernel_pane;
  KsKernelPanel *kernel_panel;
  KsConsolePanel *console_panel;
  GMenu *recent_section;
  GtkWidget *header_bar;
  GtkDropDown *overlay_dropdown;
  GtkWidget *opacity_scale;
  GtkAdjustment *opacity_adjustment;
  GtkLabel *cost_label;
  GtkLabel *legend_label;

  /* owned */
  KsPipeline *pipeline;
  char *last_message;
  GSettings *settings;
  /* Where each input came from: a file, a bundled sample's name, or neither
   * (pasted, the test card). */
  GFile *input_files[2];
  char *input_samples[2];

  guint display_info_source;
  gboolean presenter;
  AdwColorScheme scheme_before_presenter;
  GtkWidget *sweep_window;      /* weak: the open Sweep Block Sizes window */
};

G_DEFINE_FINAL_TYPE (KsWindow, ks_window, ADW_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_PIPELINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GMenu *
_ks_window_get_recent_menu (KsWindow *self)
{
  return self->recent_section;
}

void
_ks_window_toast (KsWindow *self, const char *message)
{
  AdwToast *toast;

  g_free (self->last_message);
  self->last_message = g_strdup (message);
  toast = adw_toast_new (message);
  adw_toast_set_timeout (toast, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

const char *
ks_window_get_last_message (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->last_message;
}

GtkWidget *
ks_window_get_view (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->view);
}

KsPipeline *
ks_window_get_pipeline (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->pipeline;
}

static void
update_title (KsWindow *self)
{
  const char *name = ks_pipeline_get_input_name (self->pipeline, KS_INPUT_A);
  KsImage *a = ks_pipeline_get_input (self->pipeline, KS_INPUT_A);
  const KsOp *op = ks_pipeline_get_op (self->pipeline);
  g_autofree char *subtitle = NULL;

  if (a != NULL && ks_pipeline_get_user_kernel (self->pipeline) != NULL)
    subtitle = g_strdup_printf (_("%s — %u×%u — your kernel (%s)"), name, a->width, a->height,
                                ks_kernel_panel_get_title (self->kernel_panel));
  else if (a != NULL)
    subtitle = g_strdup_printf ("%s — %u×%u — %s", name, a->width, a->height, op->title);
  adw_window_title_set_subtitle (self->window_title, subtitle != NULL ? subtitle : "");
}

static void
update_status (KsWindow *self)
{
  KsEngine *engine = ks_pipeline_get_engine (self->pipeline);
  const char *path = ks_image_view_get_display_path (self->view);
  g_autofree char *text = NULL;

  text = g_strdup_printf (ks_engine_is_cuda (engine) ? _("CUDA on %s · %s")
                                                     : _("CPU engine on %s · %s"),
                          ks_device_get_name (ks_engine_get_device (engine)),
                          path != NULL && *path ? path : _("no frame shown yet"));
  gtk_label_set_text (self->status_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), text);
}

static void
update_zoom_label (KsWindow *self)
{
  g_autofree char *text = g_strdup_printf ("%.0f %%", ks_image_view_get_zoom (self->view) * 100);
  gtk_label_set_text (self->zoom_label, text);
}

static void
update_display_info (KsWindow *self)
{
  ks_device_panel_set_display_info (self->device_panel, ks_image_view_get_gl_renderer (self->view),
                                    ks_image_view_get_interop_status (self->view));
  update_status (self);
}

static gboolean
display_info_idle_cb (gpointer user_data)
{
  KsWindow *self = user_data;

  self->display_info_source = 0;
  update_zoom_label (self);
  update_display_info (self);
  return G_SOURCE_REMOVE;
}

static void
on_view_notify_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  KsWindow *self = user_data;

  /* The view notifies from its render and size-allocate callbacks, in the
   * middle of a frame: changing other widgets then would disturb its layout. */
  if (self->display_info_source == 0)
    self->display_info_source = g_idle_add (display_info_idle_cb, self);
}

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

/* ---- presenter mode -------------------------------------------------------------------------- */

gboolean
_ks_window_get_presenter (KsWindow *self)
{
  return self->presenter;
}

/* Full screen, large type, the header bar gone and the dark style for a
 * projector's contrast; everything else as the teacher arranged it. */
void
_ks_window_set_presenter (KsWindow *self, gboolean presenter)
{
  AdwStyleManager *style = adw_style_manager_get_default ();

  presenter = !!presenter;
  if (self->presenter == presenter)
    return;
  self->presenter = presenter;
  gtk_widget_set_visible (self->header_bar, !presenter);
  if (presenter)
    {
      self->scheme_before_presenter = adw_style_manager_get_color_scheme (style);
      adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
      gtk_widget_add_css_class (GTK_WIDGET (self), "ks-presenter");
      gtk_window_fullscreen (GTK_WINDOW (self));
      _ks_window_toast (self, _("Presenter mode: press Esc or F11 to leave"));
    }
  else
    {
      adw_style_manager_set_color_scheme (style, self->scheme_before_presenter);
      gtk_widget_remove_css_class (GTK_WIDGET (self), "ks-presenter");
      gtk_window_unfullscreen (GTK_WINDOW (self));
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.leave-presenter", presenter);
}

static void
presenter_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsWindow *self = KS_WINDOW (widget);

  _ks_window_set_presenter (self, g_str_equal (action_name, "win.presenter")
                                    ? !self->presenter : FALSE);
}

static void
overlay_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsOverlayMode mode;

  if (ks_overlay_mode_from_string (g_variant_get_string (parameter, NULL), &mode))
    ks_image_view_set_overlay (KS_WINDOW (widget)->view, mode);
}

/* One sweep window a main window: a second activation brings it forward. */
static void
sweep_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  KsWindow *self = KS_WINDOW (widget);

  if (self->sweep_window == NULL)
    {
      self->sweep_window = ks_sweep_window_new (GTK_WINDOW (self), self->pipeline);
      g_object_add_weak_pointer (G_OBJECT (self->sweep_window), (gpointer *) &self->sweep_window);
    }
  gtk_window_present (GTK_WINDOW (self->sweep_window));
}

static void
on_split_changed_cb (GtkAdjustment *adjustment, gpointer user_data)
{
  KsWindow *self = user_data;
  ks_image_view_set_split (self->view, gtk_adjustment_get_value (adjustment));
}

static void
on_pipeline_changed_cb (KsPipeline *pipeline, gpointer user_data)
{
  KsWindow *self = user_data;
  update_title (self);
  update_status (self);
}

static void
on_run_failed_cb (KsPipeline *pipeline, GError *error, gpointer user_data)
{
  KsWindow *self = user_data;

  /* Invalid launches are shown in the launch panel, not as toasts. */
  if (g_error_matches (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
    return;
  if (g_strcmp0 (self->last_message, error->message) != 0)
    _ks_window_toast (self, error->message);
}

static void
on_device_lost_cb (KsPipeline *pipeline, const char *reason, gpointer user_data)
{
  KsWindow *self = user_data;
  g_autofree char *text = g_strdup_printf (
    _("The GPU stopped working: %s. Kernelscope switched to the CPU engine; your images and "
      "settings are kept. Restart Kernelscope to use the GPU again."), reason);

  gtk_label_set_text (self->banner_label, text);
  gtk_revealer_set_reveal_child (self->banner_revealer, TRUE);
  update_status (self);
}

static void
on_panel_error_cb (GtkWidget *panel, const char *message, KsWindow *self)
{
  _ks_window_toast (self, message);
}

static void
on_arrays_ran_cb (KsKernelPanel *panel, gpointer report, KsWindow *self)
{
  ks_console_panel_add_report (self->console_panel, report);
}

void
_ks_window_set_kernel_visible (KsWindow *self, gboolean visible)
{
  gtk_widget_set_visible (self->kernel_pane, visible);
  gtk_toggle_button_set_active (self->kernel_toggle, visible);
  /* Shown, the last good kernel runs in place of the op; hidden, the op does. */
  ks_kernel_panel_set_active (self->kernel_panel, visible);
  if (visible && ks_kernel_panel_get_version (self->kernel_panel) == 0
      && !ks_kernel_panel_is_compiling (self->kernel_panel)
      && gtk_text_buffer_get_char_count (
           GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (self->kernel_panel))) == 0)
    ks_kernel_panel_load_template (self->kernel_panel, "invert", NULL);
  update_title (self);
}

gboolean
_ks_window_get_kernel_visible (KsWindow *self)
{
  return gtk_widget_get_visible (self->kernel_pane);
}

static void
on_kernel_toggled_cb (GtkToggleButton *button, KsWindow *self)
{
  if (gtk_toggle_button_get_active (button) != _ks_window_get_kernel_visible (self))
    _ks_window_set_kernel_visible (self, gtk_toggle_button_get_active (button));
}

static void
on_user_kernel_notify_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  update_title (user_data);
}

KsKernelPanel *
ks_window_get_kernel_panel (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->kernel_panel;
}

KsConsolePanel *
ks_window_get_console_panel (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  return self->console_panel;
}

static void
on_banner_dismiss_cb (GtkButton *button, KsWindow *self)
{
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
}

void
_ks_window_set_panels_visible (KsWindow *self, gboolean left, gboolean right)
{
  gtk_widget_set_visible (self->left_panel, left);
  gtk_widget_set_visible (self->left_separator, left);
  gtk_widget_set_visible (self->right_panel, right);
  gtk_widget_set_visible (self->right_separator, right);
  gtk_toggle_button_set_active (self->left_toggle, left);
  gtk_toggle_button_set_active (self->right_toggle, right);
}

gboolean
_ks_window_get_left_visible (KsWindow *self)
{
  return gtk_widget_get_visible (self->left_panel);
}

gboolean
_ks_window_get_right_visible (KsWindow *self)
{
  return gtk_widget_get_visible (self->right_panel);
}

static void
on_panel_toggled_cb (GtkToggleButton *button, KsWindow *self)
{
  _ks_window_set_panels_visible (self, gtk_toggle_button_get_active (self->left_toggle),
                                 gtk_toggle_button_get_active (self->right_toggle));
}

typedef struct
{
  KsWindow *window;
  KsInputSlot slot;
  GFile *file;
  char *sample;
} InputSetData;

static void
input_set_data_free (InputSetData *d)
{
  g_object_unref (d->window);
  g_clear_object (&d->file);
  g_free (d->sample);
  g_free (d);
}

static void
on_input_set_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  InputSetData *d = user_data;
  KsWindow *self = d->window;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_input_finish (KS_PIPELINE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf (_("%s The current image stays."),
                                                  error->message);
      _ks_window_toast (self, message);
    }
  else
    {
      g_set_object (&self->input_files[d->slot], d->file);
      g_free (self->input_samples[d->slot]);
      self->input_samples[d->slot] = g_strdup (d->sample);
      if (d->file != NULL)
        {
          g_autofree char *uri = g_file_get_uri (d->file);
          gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
        }
    }
  input_set_data_free (d);
}

static void
open_image_from (KsWindow *self, KsImage *image, const char *name, KsInputSlot slot,
                 GFile *file, const char *sample)
{
  InputSetData *d = g_new0 (InputSetData, 1);

  d->window = g_object_ref (self);
  d->slot = slot;
  d->file = file != NULL ? g_object_ref (file) : NULL;
  d->sample = g_strdup (sample);
  ks_pipeline_set_input_async (self->pipeline, slot, image, name, NULL, on_input_set_cb, d);
}

void
ks_window_open_image (KsWindow *self, KsImage *image, const char *name, KsInputSlot slot)
{
  g_return_if_fail (KS_IS_WINDOW (self) && image != NULL);
  open_image_from (self, image, name, slot, NULL, NULL);
}

GFile *
_ks_window_get_input_file (KsWindow *self, KsInputSlot slot)
{
  return self->input_files[slot];
}

const char *
_ks_window_get_input_sample (KsWindow *self, KsInputSlot slot)
{
  return self->input_samples[slot];
}

typedef struct
{
  GFile *file;
  KsInputSlot slot;
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *d = data;
  g_object_unref (d->file);
  g_free (d);
}

static void
image_unref (gpointer image)
{
  ks_image_unref (image);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadData *d = task_data;
  g_autofree char *path = g_file_get_path (d->file);
  GError *error = NULL;
  KsImage *image;

  if (path == NULL)
    {
      /* Not on a local file system (for example a remote location): read it through GIO. */
      g_autoptr (GBytes) bytes = g_file_load_bytes (d->file, cancellable, NULL, &error);
      image = bytes != NULL ? ks_image_load_bytes (bytes, &error) : NULL;
    }
  else
    image = ks_image_load (path, &error);
  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, image_unref);
}

static void
on_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  LoadData *d = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *name = g_file_get_basename (d->file);

  if (image == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("%s The current image stays."),
                                                  error->message);
      _ks_window_toast (self, message);
      return;
    }
  open_image_from (self, image, name, d->slot, d->file, NULL);
}

void
ks_window_open_file (KsWindow *self, GFile *file, KsInputSlot slot)
{
  g_autoptr (GTask) task = NULL;
  LoadData *d;

  g_return_if_fail (KS_IS_WINDOW (self) && G_IS_FILE (file));
  d = g_new0 (LoadData, 1);
  d->file = g_object_ref (file);
  d->slot = slot;
  task = g_task_new (NULL, NULL, on_loaded_cb, g_object_ref (self));
  g_task_set_task_data (task, d, load_data_free);
  g_task_run_in_thread (task, load_thread);
}

GSettings *
_ks_window_get_settings (KsWindow *self)
{
  return self->settings;
}

char *
ks_window_get_debug_info (KsWindow *self)
{
  const char *renderer, *interop, *path, *why = NULL;
  KsDevice *device = NULL;
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);
  renderer = ks_image_view_get_gl_renderer (self->view);
  interop = ks_image_view_get_interop_status (self->view);
  path = ks_image_view_get_display_path (self->view);
  if (self->pipeline != NULL)
    {
      device = ks_pipeline_get_device (self->pipeline);
      why = ks_pipeline_get_cpu_reason (self->pipeline);
    }
  g_string_append_printf (s, "Engine device: %s (%s)\n",
                          device != NULL ? ks_device_get_name (device) : "(none)",
                          device != NULL ? ks_device_get_id (device) : "-");
  if (why != NULL)
    g_string_append_printf (s, "CPU engine because: %s\n", why);
  g_string_append_printf (s, "GL renderer: %s\n", renderer != NULL ? renderer : "(not realized)");
  g_string_append_printf (s, "Interop: %s\n", interop != NULL ? interop : "(unknown)");
  g_string_append_printf (s, "Display path: %s\n", path != NULL ? path : "(nothing shown yet)");
  return g_string_free (s, FALSE);
}

void
ks_window_open_sample (KsWindow *self)
{
  ks_window_open_named_sample (self, "astronaut");
}

void
ks_window_open_named_sample (KsWindow *self, const char *name)
{
  g_autofree char *file = g_strdup_printf ("%s.png", name);
  g_autofree char *path = g_strconcat (SAMPLE_RESOURCE_DIR, file, NULL);
  g_autoptr (GBytes) bytes = g_resources_lookup_data (path, 0, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = NULL;

  if (bytes != NULL)
    image = ks_image_load_bytes (bytes, &error);
  if (image == NULL)
    image = ks_image_new_test_card (1024, 768, NULL);
  if (image == NULL)
    {
      _ks_window_toast (self, _("Not enough memory for the sample image"));
      return;
    }
  open_image_from (self, image, bytes != NULL ? file : _("Test card"), KS_INPUT_A, NULL,
                   bytes != NULL ? name : NULL);
}

static void
ks_window_dispose (GObject *object)
{
  KsWindow *self = KS_WINDOW (object);

  g_clear_handle_id (&self->display_info_source, g_source_remove);
  /* The forced dark style is the application's: give it back with the window. */
  if (self->presenter)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                          self->scheme_before_presenter);
      self->presenter = FALSE;
    }
  if (self->sweep_window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->sweep_window),
                                  (gpointer *) &self->sweep_window);
  self->sweep_window = NULL;
  if (self->pipeline != NULL)
    g_signal_handlers_disconnect_by_data (self->pipeline, self);
  if (self->settings != NULL)
    {
      int width, height;

      g_signal_handlers_disconnect_by_data (self->settings, self);
      gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
      g_settings_set (self->settings, "window-size", "(ii)", width, height);
      g_settings_set_boolean (self->settings, "window-maximized",
                              gtk_window_is_maximized (GTK_WINDOW (self)));
      g_settings_set_boolean (self->settings, "show-left-panel",
                              _ks_window_get_left_visible (self));
      g_settings_set_boolean (self->settings, "show-right-panel",
                              _ks_window_get_right_visible (self));
      if (self->pipeline != NULL)
        _ks_window_settings_save (self->settings, self->pipeline);
    }
  _ks_window_session_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_WINDOW);
  g_clear_object (&self->settings);
  g_clear_object (&self->pipeline);
  G_OBJECT_CLASS (ks_window_parent_class)->dispose (object);
}

static void
ks_window_finalize (GObject *object)
{
  KsWindow *self = KS_WINDOW (object);

  g_free (self->last_message);
  for (guint i = 0; i < G_N_ELEMENTS (self->input_files); i++)
    {
      g_clear_object (&self->input_files[i]);
      g_free (self->input_samples[i]);
    }
  G_OBJECT_CLASS (ks_window_parent_class)->finalize (object);
}

static void
ks_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsWindow *self = KS_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_window_class_init (KsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_window_dispose;
  object_class->finalize = ks_window_finalize;
  object_class->get_property = ks_window_get_property;

  /* The panels in ks-window.ui bind their own "pipeline" to it. */
  properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The template's own classes: the view and every panel of ui/meson.build. */
  g_type_ensure (KS_TYPE_IMAGE_VIEW);
#define KS_X_ENSURE(name) g_type_ensure (name##_get_type ());
  KS_PANEL_TYPES (KS_X_ENSURE)
#undef KS_X_ENSURE

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kernelscope/Kernelscope/ui/ks-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, left_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, right_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, left_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, left_separator);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, right_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, right_separator);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, view);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, inspector_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, split_adjustment);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, zoom_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, device_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, timing_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, kernel_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, kernel_pane);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, kernel_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, console_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, overlay_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, opacity_scale);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, opacity_adjustment);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, cost_label);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, legend_label);
  gtk_widget_class_bind_template_callback (widget_class, on_kernel_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_arrays_ran_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_dismiss_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_error_cb);

  _ks_window_class_init_actions (widget_class);
  _ks_window_class_init_camera (widget_class);
  _ks_window_class_init_lessons (widget_class);

  gtk_widget_class_install_action (widget_class, "win.overlay", "s", overlay_action);
  for (guint m = 0; m < KS_OVERLAY_N_MODES; m++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0 + m, GDK_ALT_MASK, "win.overlay",
                                         "s", ks_overlay_mode_to_string (m));
  gtk_widget_class_install_action (widget_class, "win.presenter", NULL, presenter_action);
  gtk_widget_class_install_action (widget_class, "win.leave-presenter", NULL, presenter_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F11, 0, "win.presenter", NULL);
  /* Enabled only while presenting, so that Esc keeps its meaning elsewhere. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.leave-presenter",
                                       NULL);
  gtk_widget_class_install_action (widget_class, "win.sweep", NULL, sweep_action);
}

static GSettings *
settings_if_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  /* Run from the build tree without the compiled schema: no persistence, no abort. */
  if (source == NULL)
    return NULL;
  schema = g_settings_schema_source_lookup (source, "org.kernelscope.Kernelscope", TRUE);
  return schema != NULL ? g_settings_new ("org.kernelscope.Kernelscope") : NULL;
}

/* The worker's limits follow the settings, also when they change. */
static void
on_kernel_settings_changed_cb (GSettings *settings, const char *key, KsWindow *self)
{
  ks_pipeline_set_kernel_limits (self->pipeline,
                                 g_settings_get_uint (settings, "kernel-time-limit"),
                                 g_settings_get_uint (settings, "printf-buffer"));
}

static void
on_start_device_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_device_finish (KS_PIPELINE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not start on the preferred device: "
                                                    "%s"), error->message);
      _ks_window_toast (self, message);
    }
}

/* The engine of the preferences (or of the last window), where it is not
 * the one the pipeline chose itself. */
static void
start_on_preferred_device (KsWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) device = _ks_window_settings_start_device (self->settings, &error);
  KsDevice *current = ks_pipeline_get_device (self->pipeline);

  if (device == NULL)
    {
      if (error != NULL)
        {
          g_autofree char *message = g_strdup_printf (_("Could not start on the preferred "
                                                        "device: %s"), error->message);
          _ks_window_toast (self, message);
        }
      return;
    }
  if (current != NULL && g_str_equal (ks_device_get_id (current), ks_device_get_id (device)))
    return;
  ks_pipeline_set_device_async (self->pipeline, device, NULL, on_start_device_cb,
                                g_object_ref (self));
}

static void
ks_window_init (KsWindow *self)
{
  /* Before the template: its bindings hand the pipeline to every panel. */
  self->pipeline = ks_pipeline_new ();
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect (self->pipeline, "config-changed", G_CALLBACK (on_pipeline_changed_cb), self);
  g_signal_connect (self->pipeline, "inputs-changed", G_CALLBACK (on_pipeline_changed_cb), self);
  g_signal_connect (self->pipeline, "run-failed", G_CALLBACK (on_run_failed_cb), self);
  g_signal_connect (self->pipeline, "device-lost", G_CALLBACK (on_device_lost_cb), self);
  g_signal_connect (self->pipeline, "notify::user-kernel", G_CALLBACK (on_user_kernel_notify_cb),
                    self);
  g_signal_connect (self->view, "notify::zoom", G_CALLBACK (on_view_notify_cb), self);
  g_signal_connect (self->view, "notify::display-path", G_CALLBACK (on_view_notify_cb), self);
  g_signal_connect (self->view, "notify::gl-renderer", G_CALLBACK (on_view_notify_cb), self);
  g_signal_connect (self->view, "notify::interop-status", G_CALLBACK (on_view_notify_cb), self);
  g_signal_connect (self->view, "hover-changed", G_CALLBACK (on_view_hover_changed_cb), self);
  g_signal_connect (self->view, "notify::overlay", G_CALLBACK (on_overlay_notify_cb), self);
  g_signal_connect (self->overlay_dropdown, "notify::selected",
                    G_CALLBACK (on_overlay_selected_cb), self);
  g_signal_connect (self->pipeline, "ran", G_CALLBACK (on_pipeline_ran_cb), self);
  g_object_bind_property (self->opacity_adjustment, "value", self->view, "overlay-opacity",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.leave-presenter", FALSE);
  g_signal_connect (self->split_adjustment, "value-changed", G_CALLBACK (on_split_changed_cb),
                    self);
  ks_image_view_set_split (self->view, 0);
  _ks_window_setup_dnd (self);

  self->settings = settings_if_installed ();
  if (self->settings != NULL)
    {
      int width = 0, height = 0;
      g_settings_get (self->settings, "window-size", "(ii)", &width, &height);
      if (width > 0 && height > 0)
        gtk_window_set_default_size (GTK_WINDOW (self), width, height);
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      _ks_window_set_panels_visible (self,
                                     g_settings_get_boolean (self->settings, "show-left-panel"),
                                     g_settings_get_boolean (self->settings, "show-right-panel"));
      g_signal_connect (self->settings, "changed::kernel-time-limit",
                        G_CALLBACK (on_kernel_settings_changed_cb), self);
      g_signal_connect (self->settings, "changed::printf-buffer",
                        G_CALLBACK (on_kernel_settings_changed_cb), self);
      on_kernel_settings_changed_cb (self->settings, NULL, self);
      g_settings_bind (self->settings, "measure-repeats",
                       ks_timing_panel_get_repeats_adjustment (self->timing_panel), "value",
                       G_SETTINGS_BIND_DEFAULT);
      _ks_window_settings_follow_style (self->settings, self);
      _ks_window_settings_restore (self->settings, self->pipeline);
      _ks_window_settings_follow_launch_defaults (self->settings, self->pipeline);
      start_on_preferred_device (self);
    }
  _ks_window_setup_recent (self);
  _ks_window_setup_camera (self);
  update_zoom_label (self);
  update_display_info (self);
  update_title (self);
}

KsWindow *
ks_window_new (GtkApplication *application)
{
  return g_object_new (KS_TYPE_WINDOW, "application", application, NULL);
}
