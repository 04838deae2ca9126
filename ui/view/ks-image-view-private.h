/* ks-image-view-private.h: what the files of the live view share: its
 * instance, its property and signal tables, and the functions one file
 * calls in another. ks-image-view.c (the type, its GL lifecycle and its
 * public functions) calls into input, display, gl and geometry; input and
 * display call geometry; none calls back up. */
#pragma once

#include <epoxy/gl.h>

#include "ks-image-view.h"
#include "ks-interop.h"

#define ZOOM_MIN (1.0 / 64.0)
#define ZOOM_MAX 256.0
#define ZOOM_STEP 1.25

G_BEGIN_DECLS

struct _KsImageView
{
  GtkGLArea parent_instance;

  /* owned references */
  KsPipeline *pipeline;
  GSignalGroup *pipeline_signals;
  KsInterop *interop;           /* GL-context bound: lives between realize and unrealize */
  KsInterop *shared_interop;    /* the same, in shared-memory mode: results sampled in place */
  KsEngine *interop_engine;     /* the engine interop was last tried for (a weak identity) */

  /* GL objects of the current context (0 outside realize … unrealize) */
  guint program;
  guint vao;
  guint input_tex;
  guint output_tex;
  guint coverage_tex;
  guint owner_tex;
  guint fbo;
  int u_view_size, u_image_size, u_center, u_zoom, u_scale, u_split_x;
  int u_has_input, u_has_output, u_has_coverage, u_input_gray, u_output_gray;
  int u_has_owner, u_overlay, u_opacity, u_grid, u_block, u_extent, u_block_lines;
  int u_output_shared, u_output_row, u_output_size, u_nearest;
  gboolean buffer_textures;     /* desktop OpenGL: the shader can sample a buffer texture */

  /* what the textures hold */
  gboolean input_dirty;
  gboolean have_input;
  gboolean input_gray;
  guint input_width, input_height;
  guint64 run_serial;           /* bumped on every "ran" */
  guint64 uploaded_serial;      /* the run whose output the texture holds */
  gboolean have_output;
  gboolean output_gray;
  guint output_width, output_height;
  gboolean have_coverage;
  gboolean have_owner;
  KsLaunchConfig owner_launch;  /* the launch whose ownership the texture holds */
  gboolean interop_dirty;       /* the engine changed: try interop again */
  char *interop_lost;           /* why the last interop upload failed, or NULL */
  char *shared_lost;            /* why results are not sampled in place, or NULL */
  gboolean output_shared;       /* the output is drawn from shared memory, not output_tex */
  KsInteropShared shared;       /* then: what to sample */
  gboolean host_buffer_texture; /* tests: host results also drawn through a buffer texture */
  guint host_buffer;            /* its GL buffer and texture */
  guint host_buffer_tex;

  /* view state */
  gboolean fit;
  double zoom;                  /* framebuffer pixels per image pixel when not fitting */
  double center_x, center_y;    /* the image point at the centre of the view */
  double split;
  gboolean show_coverage;
  KsOverlayMode overlay;
  double overlay_opacity;
  double drag_center_x, drag_center_y;
  double pinch_zoom, pinch_center_x, pinch_center_y;

  /* hover */
  gboolean pointer_inside;
  double pointer_x, pointer_y;  /* widget coordinates */
  gboolean hover_valid;
  guint hover_x, hover_y;
  gboolean hover_outside;       /* over the launch's extent beyond the image */
  guint64 outside_x, outside_y;

  /* frames presented with a new result, for the frame rate */
  GArray *frame_times;          /* gint64 frame clock times, oldest first, the last second */
  guint fps_tick;               /* the tick callback while frames are being produced */

  /* read-only properties */
  char *display_path;
  char *gl_renderer;
  char *interop_status;
};

enum
{
  PROP_0,
  PROP_PIPELINE,
  PROP_ZOOM,
  PROP_FIT,
  PROP_SPLIT,
  PROP_SHOW_COVERAGE,
  PROP_OVERLAY,
  PROP_OVERLAY_OPACITY,
  PROP_DISPLAY_PATH,
  PROP_GL_RENDERER,
  PROP_INTEROP_STATUS,
  N_PROPS
};

extern GParamSpec *_ks_image_view_properties[N_PROPS];

enum
{
  SIGNAL_HOVER_CHANGED,
  N_SIGNALS
};

extern guint _ks_image_view_signals[N_SIGNALS];

/* ks-image-view-geometry.c */
void     _ks_image_view_set_string_property (KsImageView *self, char **field, const char *value,
                                             guint prop);
double   _ks_image_view_scale               (KsImageView *self);
gboolean _ks_image_view_display_size        (KsImageView *self, double *width, double *height);
gboolean _ks_image_view_overlay_extent      (KsImageView *self, double *width, double *height);
double   _ks_image_view_current_zoom        (KsImageView *self);
void     _ks_image_view_current_center      (KsImageView *self, double *cx, double *cy);
void     _ks_image_view_widget_to_image     (KsImageView *self, double wx, double wy, double *ix,
                                             double *iy);

/* ks-image-view-input.c */
void     _ks_image_view_setup_input         (KsImageView *self);
void     _ks_image_view_update_hover        (KsImageView *self);
void     _ks_image_view_zoom_around_center  (KsImageView *self, double zoom);

/* ks-image-view-gl.c: with the view's context current */
guint    _ks_image_view_create_program      (gboolean use_es, GError **error);
guint    _ks_image_view_create_texture      (GLenum filter);
void     _ks_image_view_delete_gl_objects   (KsImageView *self);

/* ks-image-view-display.c: with the view's context current, but for
 * _ks_image_view_update_interop_status and _ks_image_view_stop_counting_frames */
void     _ks_image_view_update_interop_status (KsImageView *self);
void     _ks_image_view_ensure_interop      (KsImageView *self);
void     _ks_image_view_upload_input        (KsImageView *self);
void     _ks_image_view_upload_output       (KsImageView *self);
void     _ks_image_view_stop_counting_frames (KsImageView *self);
KsImage *_ks_image_view_read_output         (KsImageView *self, GError **error);

G_END_DECLS
