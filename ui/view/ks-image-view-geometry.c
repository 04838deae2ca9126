/* ks-image-view-geometry.c: where the image lies in the live view: the size
 * everything is drawn in, the zoom and centre that "fit" or the user chose,
 * and widget coordinates turned into image coordinates.
 *
 * The view's property and signal tables live here too: the files that
 * notify or emit reach them here, in a file that calls none of theirs,
 * rather than in ks-image-view.c, whose class_init fills them and which
 * calls into all of them. */
#include "config.h"

#include "ks-image-view-private.h"

GParamSpec *_ks_image_view_properties[N_PROPS];

guint _ks_image_view_signals[N_SIGNALS];

void
_ks_image_view_set_string_property (KsImageView *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[prop]);
}

double
_ks_image_view_scale (KsImageView *self)
{
  return gtk_widget_get_scale_factor (GTK_WIDGET (self));
}

/* The geometry everything is drawn in: the output's size when there is an
 * output (an op may resize), else the input's. The input is sampled with
 * normalised coordinates, so both line up in the before/after split. */
gboolean
_ks_image_view_display_size (KsImageView *self, double *width, double *height)
{
  const KsRunResult *result = NULL;
  KsImage *input = NULL;

  if (self->pipeline != NULL)
    {
      result = ks_pipeline_get_result (self->pipeline);
      input = ks_pipeline_get_input (self->pipeline, KS_INPUT_A);
    }
  if (result != NULL && result->output != NULL)
    {
      *width = ks_buffer_get_width (result->output);
      *height = ks_buffer_get_height (result->output);
      return TRUE;
    }
  if (input != NULL)
    {
      *width = input->width;
      *height = input->height;
      return TRUE;
    }
  *width = *height = 1;
  return FALSE;
}

/* The launch's extent in image pixels while an overlay shows it: the run's
 * resolved launch when its coverage was recorded. FALSE otherwise. */
gboolean
_ks_image_view_overlay_extent (KsImageView *self, double *width, double *height)
{
  const KsRunResult *result;
  guint64 ew, eh;

  if (self->overlay == KS_OVERLAY_NONE || self->pipeline == NULL
      || ks_pipeline_get_ownership (self->pipeline) == NULL)
    return FALSE;
  result = ks_pipeline_get_result (self->pipeline);
  if (result == NULL || result->output == NULL)
    return FALSE;
  ks_overlay_launch_extent (&result->launch, &ew, &eh);
  *width = ew;
  *height = eh;
  return TRUE;
}

/* What "fit" keeps visible: the image, and with an overlay the launch's
 * threads beyond it, up to twice the image's size (a grid of a million
 * blocks would shrink the image to nothing). */
static gboolean
frame_size (KsImageView *self, double *width, double *height)
{
  double ew, eh;

  if (!_ks_image_view_display_size (self, width, height))
    return FALSE;
  if (_ks_image_view_overlay_extent (self, &ew, &eh))
    {
      *width = MAX (*width, MIN (ew, 2 * *width));
      *height = MAX (*height, MIN (eh, 2 * *height));
    }
  return TRUE;
}

static double
fit_zoom (KsImageView *self)
{
  double scale = _ks_image_view_scale (self);
  double vw = gtk_widget_get_width (GTK_WIDGET (self)) * scale;
  double vh = gtk_widget_get_height (GTK_WIDGET (self)) * scale;
  double iw, ih;

  if (!frame_size (self, &iw, &ih) || vw <= 0 || vh <= 0)
    return 1.0;
  return CLAMP (MIN (vw / iw, vh / ih), ZOOM_MIN, ZOOM_MAX);
}

double
_ks_image_view_current_zoom (KsImageView *self)
{
  return self->fit ? fit_zoom (self) : self->zoom;
}

void
_ks_image_view_current_center (KsImageView *self, double *cx, double *cy)
{
  if (self->fit)
    {
      double iw, ih;

      frame_size (self, &iw, &ih);
      *cx = iw / 2;
      *cy = ih / 2;
    }
  else
    {
      *cx = self->center_x;
      *cy = self->center_y;
    }
}

/* Widget coordinates to image coordinates (fractional pixels). */
void
_ks_image_view_widget_to_image (KsImageView *self, double wx, double wy, double *ix, double *iy)
{
  double scale = _ks_image_view_scale (self);
  double zoom = _ks_image_view_current_zoom (self);
  double cx, cy;

  _ks_image_view_current_center (self, &cx, &cy);
  *ix = cx + (wx - gtk_widget_get_width (GTK_WIDGET (self)) / 2.0) * scale / zoom;
  *iy = cy + (wy - gtk_widget_get_height (GTK_WIDGET (self)) / 2.0) * scale / zoom;
}
