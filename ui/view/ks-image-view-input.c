/* ks-image-view-input.c: the live view's zoom, pan and hover: the wheel, drag
 * and pinch gestures, the explicit zoom around a point, and the image pixel
 * (or, with an overlay, the launch's point beyond the image) under the
 * pointer, announced by "hover-changed". */
#include "config.h"

#include <math.h>

#include "ks-image-view-private.h"

void
_ks_image_view_update_hover (KsImageView *self)
{
  gboolean valid = FALSE, outside = FALSE;
  guint hx = 0, hy = 0;
  guint64 ox = 0, oy = 0;
  double iw, ih, ew, eh;

  if (self->pointer_inside && _ks_image_view_display_size (self, &iw, &ih))
    {
      double ix, iy;

      _ks_image_view_widget_to_image (self, self->pointer_x, self->pointer_y, &ix, &iy);
      if (ix >= 0 && iy >= 0 && ix < iw && iy < ih)
        {
          valid = TRUE;
          hx = (guint) ix;
          hy = (guint) iy;
        }
      else if (ix >= 0 && iy >= 0 && _ks_image_view_overlay_extent (self, &ew, &eh) && ix < ew
               && iy < eh)
        {
          outside = TRUE;
          ox = (guint64) ix;
          oy = (guint64) iy;
        }
    }

  if (valid == self->hover_valid && outside == self->hover_outside
      && (!valid || (hx == self->hover_x && hy == self->hover_y))
      && (!outside || (ox == self->outside_x && oy == self->outside_y)))
    return;
  self->hover_valid = valid;
  self->hover_x = hx;
  self->hover_y = hy;
  self->hover_outside = outside;
  self->outside_x = ox;
  self->outside_y = oy;
  g_signal_emit (self, _ks_image_view_signals[SIGNAL_HOVER_CHANGED], 0);
}

/* Sets an explicit zoom, keeping the image point under (wx, wy) where it is. */
static void
zoom_around (KsImageView *self, double zoom, double wx, double wy)
{
  double scale = _ks_image_view_scale (self);
  double ix, iy;

  zoom = CLAMP (zoom, ZOOM_MIN, ZOOM_MAX);
  _ks_image_view_widget_to_image (self, wx, wy, &ix, &iy);
  self->fit = FALSE;
  self->zoom = zoom;
  self->center_x = ix - (wx - gtk_widget_get_width (GTK_WIDGET (self)) / 2.0) * scale / zoom;
  self->center_y = iy - (wy - gtk_widget_get_height (GTK_WIDGET (self)) / 2.0) * scale / zoom;
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_ZOOM]);
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_FIT]);
  _ks_image_view_update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

void
_ks_image_view_zoom_around_center (KsImageView *self, double zoom)
{
  zoom_around (self, zoom, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
               gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

/* ---- input ----------------------------------------------------------------------------- */

static gboolean
on_scroll_cb (GtkEventControllerScroll *controller, double dx, double dy, KsImageView *self)
{
  double factor;

  if (dy == 0)
    return FALSE;
  /* A wheel notch is ±1; touchpads send fractions: zoom continuously, but
   * never more than a few steps for one event. */
  factor = pow (ZOOM_STEP, -CLAMP (dy, -4.0, 4.0));
  if (self->pointer_inside)
    zoom_around (self, _ks_image_view_current_zoom (self) * factor, self->pointer_x,
                 self->pointer_y);
  else
    _ks_image_view_zoom_around_center (self, _ks_image_view_current_zoom (self) * factor);
  return TRUE;
}

static void
on_drag_begin_cb (GtkGestureDrag *gesture, double x, double y, KsImageView *self)
{
  _ks_image_view_current_center (self, &self->drag_center_x, &self->drag_center_y);
}

static void
on_drag_update_cb (GtkGestureDrag *gesture, double ox, double oy, KsImageView *self)
{
  double zoom = _ks_image_view_current_zoom (self);
  double scale = _ks_image_view_scale (self);

  if (self->fit)
    {
      self->fit = FALSE;
      self->zoom = zoom;
      g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_FIT]);
    }
  self->center_x = self->drag_center_x - ox * scale / zoom;
  self->center_y = self->drag_center_y - oy * scale / zoom;
  _ks_image_view_update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
on_zoom_begin_cb (GtkGesture *gesture, GdkEventSequence *sequence, KsImageView *self)
{
  self->pinch_zoom = _ks_image_view_current_zoom (self);
  gtk_gesture_get_bounding_box_center (gesture, &self->pinch_center_x, &self->pinch_center_y);
}

static void
on_zoom_scale_changed_cb (GtkGestureZoom *gesture, double scale, KsImageView *self)
{
  zoom_around (self, self->pinch_zoom * scale, self->pinch_center_x, self->pinch_center_y);
}

static void
on_motion_cb (GtkEventControllerMotion *controller, double x, double y, KsImageView *self)
{
  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  _ks_image_view_update_hover (self);
}

static void
on_leave_cb (GtkEventControllerMotion *controller, KsImageView *self)
{
  self->pointer_inside = FALSE;
  _ks_image_view_update_hover (self);
}

/* The gestures and the pointer's motion, added by ks_image_view_init. */
void
_ks_image_view_setup_input (KsImageView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin_cb), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_zoom_begin_cb), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_zoom_scale_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "enter", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}
