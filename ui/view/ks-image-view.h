/* ks-image-view.h: the live view, a GtkGLArea that draws the pipeline's input
 * and output. A CUDA result reaches its texture through a pixel buffer
 * registered with CUDA (gpu/display/ks-interop.h); when interop is impossible, through
 * a download and a texture upload; a CPU result through a texture upload. */
#pragma once

#include <gtk/gtk.h>

#include "ks-overlay.h"
#include "ks-pipeline.h"

G_BEGIN_DECLS

#define KS_TYPE_IMAGE_VIEW (ks_image_view_get_type ())
G_DECLARE_FINAL_TYPE (KsImageView, ks_image_view, KS, IMAGE_VIEW, GtkGLArea)

GtkWidget  *ks_image_view_new            (void);
void        ks_image_view_set_pipeline   (KsImageView *self, KsPipeline *pipeline);
KsPipeline *ks_image_view_get_pipeline   (KsImageView *self);

/* Zoom: "zoom" property (1.0 = one image pixel per screen pixel); "fit" keeps
 * the whole image visible as the widget resizes. Wheel, pinch and drag work too. */
void        ks_image_view_zoom_fit       (KsImageView *self);
void        ks_image_view_zoom_1to1      (KsImageView *self);
void        ks_image_view_zoom_in        (KsImageView *self);
void        ks_image_view_zoom_out       (KsImageView *self);
double      ks_image_view_get_zoom       (KsImageView *self);
/* An explicit zoom around the centre of the view (leaves fit; "fit" property). */
void        ks_image_view_set_zoom       (KsImageView *self, double zoom);
gboolean    ks_image_view_get_fit        (KsImageView *self);

/* "split" property, 0..1: the output is shown right of this fraction of the
 * view's width, the input left of it (the before/after slider). 0 = all output. */
void        ks_image_view_set_split      (KsImageView *self, double split);
double      ks_image_view_get_split      (KsImageView *self);

/* "show-coverage": hatch the pixels that no thread wrote (default TRUE). */
void        ks_image_view_set_show_coverage (KsImageView *self, gboolean show);
gboolean    ks_image_view_get_show_coverage (KsImageView *self);

/* "overlay" (KsOverlayMode as an int): the block, thread, warp or coverage
 * overlay over the output, drawn by the shader from the run's ownership data
 * (the pipeline instruments every run while one is on); "overlay-opacity"
 * 0..1 (default 0.6). */
void          ks_image_view_set_overlay         (KsImageView *self, KsOverlayMode mode);
KsOverlayMode ks_image_view_get_overlay         (KsImageView *self);
void          ks_image_view_set_overlay_opacity (KsImageView *self, double opacity);
double        ks_image_view_get_overlay_opacity (KsImageView *self);

/* Read-only properties, notified when they change:
 *   "display-path"  how the last result reached the screen, and why
 *   "gl-renderer"   GL_RENDERER of the view's context ("" before realize)
 *   "interop-status" "CUDA–OpenGL interop active on …" or why it is not */
const char *ks_image_view_get_display_path   (KsImageView *self);
const char *ks_image_view_get_gl_renderer    (KsImageView *self);
const char *ks_image_view_get_interop_status (KsImageView *self);

/* The image pixel under the pointer, or FALSE when it is outside the image.
 * Signal "hover-changed" () is emitted when it changes. */
gboolean    ks_image_view_get_hover      (KsImageView *self, guint *x, guint *y);
/* With an overlay on: the point under the pointer when it is beyond the
 * image but inside the launch's extent (threads that reached no pixel). */
gboolean    ks_image_view_get_hover_outside (KsImageView *self, guint64 *x, guint64 *y);

/* What the output texture holds, read back with GL (tests and screenshots):
 * an RGBA8 image of the output's size, or NULL with an error. */
KsImage    *ks_image_view_read_output    (KsImageView *self, GError **error);
/* For tests: results in host memory (the CPU engine's) are also drawn
 * through the buffer-texture path that CUDA results in shared memory take,
 * so that the shader's sampling of it can be compared with the texture's. */
void        ks_image_view_set_host_buffer_texture (KsImageView *self, gboolean enable);

G_END_DECLS
