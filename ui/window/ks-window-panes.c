/* ks-window-panes.c: which parts of the window show — the side panels and
 * their toggles, the kernel editor's pane (and the console its runs of
 * arrays report to), and presenter mode (win.presenter, F11; Esc leaves). */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-window-private.h"

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
presenter_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  _ks_window_set_presenter (self, g_str_equal (action_name, "win.presenter")
                                    ? !self->presenter : FALSE);
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
  _ks_window_update_title (self);
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

const KsWindowActionEntry _ks_window_panes_actions[] = {
  { "win.presenter", NULL, presenter_action },
  { "win.leave-presenter", NULL, presenter_action },
  { NULL },
};

void
_ks_window_setup_panes (KsWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.leave-presenter", FALSE);
}

void
_ks_window_class_init_panes (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_kernel_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_arrays_ran_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_toggled_cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F11, 0, "win.presenter", NULL);
  /* Enabled only while presenting, so that Esc keeps its meaning elsewhere. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.leave-presenter",
                                       NULL);
}
