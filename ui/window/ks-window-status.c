/* ks-window-status.c: what the window says about its pipeline and its
 * view — the title's subtitle (the input, its size, the op), the status
 * line (the engine and the path frames take to the screen), the zoom, the
 * display info of the device panel, the banner when the GPU is lost, and
 * toasts for failed runs and the panels' errors. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-window-private.h"

void
_ks_window_update_title (KsWindow *self)
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
on_pipeline_changed_cb (KsPipeline *pipeline, gpointer user_data)
{
  KsWindow *self = user_data;
  _ks_window_update_title (self);
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
on_user_kernel_notify_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  _ks_window_update_title (user_data);
}

static void
on_banner_dismiss_cb (GtkButton *button, KsWindow *self)
{
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
}

void
_ks_window_refresh_status (KsWindow *self)
{
  update_zoom_label (self);
  update_display_info (self);
  _ks_window_update_title (self);
}

void
_ks_window_setup_status (KsWindow *self)
{
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
}

void
_ks_window_class_init_status (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_banner_dismiss_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_error_cb);
}
