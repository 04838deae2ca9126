/* ks-image-view.c: the live view (see ks-image-view.h).
 *
 * Every realize of a GtkGLArea brings a new GL context (removing the widget
 * and adding it again does it too), so the program, the textures and the CUDA
 * registration are created in realize and deleted in unrealize (with the
 * context current); setters and the pipeline's signals only mark state dirty
 * and queue a render; all GL work happens in render (and in
 * ks_image_view_read_output, which makes the context current itself). */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include <epoxy/gl.h>

#include "ks-image-view.h"
#include "ks-interop.h"

#define ZOOM_MIN (1.0 / 64.0)
#define ZOOM_MAX 256.0
#define ZOOM_STEP 1.25

#define PATH_INTEROP N_("CUDA–OpenGL interop")
#define PATH_COPY N_("download and texture upload")
#define PATH_CPU N_("texture upload from the CPU engine")

/* The frame rate counts the frames of the last second; a second without a
 * new frame means none are being produced, and the rate is hidden. */
#define FPS_WINDOW_US G_USEC_PER_SEC

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

G_DEFINE_FINAL_TYPE (KsImageView, ks_image_view, GTK_TYPE_GL_AREA)

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

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_HOVER_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- small helpers --------------------------------------------------------------------- */

static void
set_string_property (KsImageView *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static double
view_scale (KsImageView *self)
{
  return gtk_widget_get_scale_factor (GTK_WIDGET (self));
}

/* The geometry everything is drawn in: the output's size when there is an
 * output (an op may resize), else the input's. The input is sampled with
 * normalised coordinates, so both line up in the before/after split. */
static gboolean
display_size (KsImageView *self, double *width, double *height)
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
static gboolean
overlay_extent (KsImageView *self, double *width, double *height)
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

  if (!display_size (self, width, height))
    return FALSE;
  if (overlay_extent (self, &ew, &eh))
    {
      *width = MAX (*width, MIN (ew, 2 * *width));
      *height = MAX (*height, MIN (eh, 2 * *height));
    }
  return TRUE;
}

static double
fit_zoom (KsImageView *self)
{
  double scale = view_scale (self);
  double vw = gtk_widget_get_width (GTK_WIDGET (self)) * scale;
  double vh = gtk_widget_get_height (GTK_WIDGET (self)) * scale;
  double iw, ih;

  if (!frame_size (self, &iw, &ih) || vw <= 0 || vh <= 0)
    return 1.0;
  return CLAMP (MIN (vw / iw, vh / ih), ZOOM_MIN, ZOOM_MAX);
}

static double
current_zoom (KsImageView *self)
{
  return self->fit ? fit_zoom (self) : self->zoom;
}

static void
current_center (KsImageView *self, double *cx, double *cy)
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
static void
widget_to_image (KsImageView *self, double wx, double wy, double *ix, double *iy)
{
  double scale = view_scale (self);
  double zoom = current_zoom (self);
  double cx, cy;

  current_center (self, &cx, &cy);
  *ix = cx + (wx - gtk_widget_get_width (GTK_WIDGET (self)) / 2.0) * scale / zoom;
  *iy = cy + (wy - gtk_widget_get_height (GTK_WIDGET (self)) / 2.0) * scale / zoom;
}

static void
update_hover (KsImageView *self)
{
  gboolean valid = FALSE, outside = FALSE;
  guint hx = 0, hy = 0;
  guint64 ox = 0, oy = 0;
  double iw, ih, ew, eh;

  if (self->pointer_inside && display_size (self, &iw, &ih))
    {
      double ix, iy;

      widget_to_image (self, self->pointer_x, self->pointer_y, &ix, &iy);
      if (ix >= 0 && iy >= 0 && ix < iw && iy < ih)
        {
          valid = TRUE;
          hx = (guint) ix;
          hy = (guint) iy;
        }
      else if (ix >= 0 && iy >= 0 && overlay_extent (self, &ew, &eh) && ix < ew && iy < eh)
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
  g_signal_emit (self, signals[SIGNAL_HOVER_CHANGED], 0);
}

/* Sets an explicit zoom, keeping the image point under (wx, wy) where it is. */
static void
zoom_around (KsImageView *self, double zoom, double wx, double wy)
{
  double scale = view_scale (self);
  double ix, iy;

  zoom = CLAMP (zoom, ZOOM_MIN, ZOOM_MAX);
  widget_to_image (self, wx, wy, &ix, &iy);
  self->fit = FALSE;
  self->zoom = zoom;
  self->center_x = ix - (wx - gtk_widget_get_width (GTK_WIDGET (self)) / 2.0) * scale / zoom;
  self->center_y = iy - (wy - gtk_widget_get_height (GTK_WIDGET (self)) / 2.0) * scale / zoom;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIT]);
  update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
zoom_around_center (KsImageView *self, double zoom)
{
  zoom_around (self, zoom, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
               gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

/* ---- GL resources ---------------------------------------------------------------------- */

static char *
load_shader_source (const char *name, gboolean use_es, GError **error)
{
  g_autofree char *path = g_strconcat ("/org/kernelscope/Kernelscope/shaders/", name, NULL);
  g_autoptr (GBytes) bytes = g_resources_lookup_data (path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  /* GLSL 1.50 has buffer textures; ES 3.0 has not, and there the output is always a 2-D texture. */
  const char *header = use_es ? "#version 300 es\nprecision highp float;\n"
                              : "#version 150\n#define KS_BUFFER_TEXTURES 1\n";

  if (bytes == NULL)
    return NULL;
  return g_strdup_printf ("%s%.*s", header, (int) g_bytes_get_size (bytes),
                          (const char *) g_bytes_get_data (bytes, NULL));
}

static guint
compile_shader (GLenum type, const char *source, GError **error)
{
  guint shader = glCreateShader (type);
  int status;

  glShaderSource (shader, 1, &source, NULL);
  glCompileShader (shader);
  glGetShaderiv (shader, GL_COMPILE_STATUS, &status);
  if (status == GL_FALSE)
    {
      int len = 0;
      g_autofree char *log = NULL;

      glGetShaderiv (shader, GL_INFO_LOG_LENGTH, &len);
      log = g_malloc0 (MAX (len, 1));
      glGetShaderInfoLog (shader, len, NULL, log);
      g_set_error (error, GDK_GL_ERROR, GDK_GL_ERROR_COMPILATION_FAILED,
                   type == GL_VERTEX_SHADER
                     ? _("The vertex shader of the image view does not compile: %s")
                     : _("The fragment shader of the image view does not compile: %s"),
                   log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

static guint
create_program (gboolean use_es, GError **error)
{
  g_autofree char *vs_source = load_shader_source ("image-view.vert.glsl", use_es, error);
  g_autofree char *fs_source = NULL;
  guint vs = 0, fs = 0, program = 0;
  int status;

  if (vs_source == NULL)
    return 0;
  fs_source = load_shader_source ("image-view.frag.glsl", use_es, error);
  if (fs_source == NULL)
    return 0;
  vs = compile_shader (GL_VERTEX_SHADER, vs_source, error);
  if (vs == 0)
    return 0;
  fs = compile_shader (GL_FRAGMENT_SHADER, fs_source, error);
  if (fs == 0)
    {
      glDeleteShader (vs);
      return 0;
    }

  program = glCreateProgram ();
  glAttachShader (program, vs);
  glAttachShader (program, fs);
  glLinkProgram (program);
  glGetProgramiv (program, GL_LINK_STATUS, &status);
  if (status == GL_FALSE)
    {
      int len = 0;
      g_autofree char *log = NULL;

      glGetProgramiv (program, GL_INFO_LOG_LENGTH, &len);
      log = g_malloc0 (MAX (len, 1));
      glGetProgramInfoLog (program, len, NULL, log);
      g_set_error (error, GDK_GL_ERROR, GDK_GL_ERROR_LINK_FAILED,
                   _("The image view's shaders do not link: %s"), log);
      glDeleteProgram (program);
      program = 0;
    }
  else
    {
      glDetachShader (program, vs);
      glDetachShader (program, fs);
    }
  glDeleteShader (vs);
  glDeleteShader (fs);
  return program;
}

static guint
create_texture (GLenum filter)
{
  guint tex;

  glGenTextures (1, &tex);
  glBindTexture (GL_TEXTURE_2D, tex);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return tex;
}

/* Uploads host pixels (RGBA8 → GL_RGBA8, GRAY8 → GL_R8) into `tex`, rows
 * `stride` bytes apart, reallocating the texture when the size changes. */
static void
upload_host_pixels (guint tex, KsFormat format, guint width, guint height, gsize stride,
                    const guint8 *data, gboolean realloc)
{
  guint bpp = ks_format_bytes_per_pixel (format);
  GLenum internal = format == KS_FORMAT_GRAY8 ? GL_R8 : GL_RGBA8;
  GLenum gl_format = format == KS_FORMAT_GRAY8 ? GL_RED : GL_RGBA;

  glBindTexture (GL_TEXTURE_2D, tex);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 1);
  if (realloc)
    glTexImage2D (GL_TEXTURE_2D, 0, internal, width, height, 0, gl_format, GL_UNSIGNED_BYTE, NULL);
  if (stride % bpp == 0)
    {
      /* Pitched buffers (CPU engine, staging images) go up in one call. */
      glPixelStorei (GL_UNPACK_ROW_LENGTH, stride / bpp);
      glTexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, width, height, gl_format, GL_UNSIGNED_BYTE, data);
      glPixelStorei (GL_UNPACK_ROW_LENGTH, 0);
    }
  else
    {
      for (guint y = 0; y < height; y++)
        glTexSubImage2D (GL_TEXTURE_2D, 0, 0, y, width, 1, gl_format, GL_UNSIGNED_BYTE,
                         data + y * stride);
    }
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
}

static void
update_interop_status (KsImageView *self)
{
  KsEngine *engine = self->pipeline != NULL ? ks_pipeline_get_engine (self->pipeline) : NULL;
  g_autofree char *status = NULL;

  if (engine == NULL)
    status = g_strdup ("");
  else if (!ks_engine_is_cuda (engine))
    status = g_strdup (_("Not used: the CPU engine computes in host memory"));
  else if (self->shared_interop != NULL)
    status = g_strdup (ks_interop_describe (self->shared_interop));
  else if (self->interop != NULL)
    status = g_strdup (ks_interop_describe (self->interop));
  else if (self->interop_lost != NULL)
    status = g_strdup_printf (_("Unavailable: %s"), self->interop_lost);
  else
    status = g_strdup (_("Unavailable"));
  set_string_property (self, &self->interop_status, status, PROP_INTEROP_STATUS);
}

/* With the context current: (re)creates the interop for the pipeline's engine
 * when that engine is CUDA. Failure is normal (the display GPU is not the
 * CUDA GPU, a remote display): the reason is kept and shown. */
static void
ensure_interop (KsImageView *self)
{
  KsEngine *engine = self->pipeline != NULL ? ks_pipeline_get_engine (self->pipeline) : NULL;

  if (!self->interop_dirty && engine == self->interop_engine)
    return;
  self->interop_dirty = FALSE;
  self->interop_engine = engine;
  g_clear_pointer (&self->interop, ks_interop_free);
  g_clear_pointer (&self->shared_interop, ks_interop_free);
  g_clear_pointer (&self->interop_lost, g_free);
  g_clear_pointer (&self->shared_lost, g_free);
  self->output_shared = FALSE;

  if (engine != NULL && ks_engine_is_cuda (engine))
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GError) shared_error = NULL;

      self->interop = ks_interop_new (engine, KS_INTEROP_PIXEL_BUFFER, &error);
      if (self->interop == NULL)
        {
          g_debug ("CUDA–OpenGL interop unavailable: %s", error->message);
          self->interop_lost = g_strdup (error->message);
        }
      /* Best of all the op writes what GL samples; the pixel buffer stays
       * for results that are not in shared memory (a user's kernel). */
      else if (!self->buffer_textures)
        self->shared_lost = g_strdup (_("OpenGL ES 3.0 has no buffer textures"));
      else if ((self->shared_interop = ks_interop_new (engine, KS_INTEROP_SHARED_MEMORY,
                                                       &shared_error)) == NULL)
        self->shared_lost = g_strdup (shared_error->message);
    }
  if (self->pipeline != NULL)
    ks_pipeline_set_shareable_outputs (self->pipeline, self->shared_interop != NULL);
  /* The output texture may have been allocated by the other path: reallocate. */
  self->uploaded_serial = 0;
  self->have_output = FALSE;
  update_interop_status (self);
}

static void
upload_input (KsImageView *self)
{
  KsImage *input = self->pipeline != NULL ? ks_pipeline_get_input (self->pipeline, KS_INPUT_A)
                                          : NULL;

  self->input_dirty = FALSE;
  self->have_input = input != NULL;
  if (input == NULL)
    return;
  upload_host_pixels (self->input_tex, input->format, input->width, input->height, input->stride,
                      input->data, TRUE);
  self->input_gray = input->format == KS_FORMAT_GRAY8;
  self->input_width = input->width;
  self->input_height = input->height;
}

static void
upload_coverage (KsImageView *self)
{
  /* Built on the pipeline's worker: converting a mask of 8K × 8K pixels here
   * would hold up the frame. */
  KsImage *mask = self->pipeline != NULL ? ks_pipeline_get_coverage_mask (self->pipeline) : NULL;

  self->have_coverage = mask != NULL;
  if (mask != NULL)
    upload_host_pixels (self->coverage_tex, mask->format, mask->width, mask->height,
                        mask->stride, mask->data, TRUE);
}

/* The overlay's ownership data, with the launch that produced it. */
static void
upload_ownership (KsImageView *self)
{
  const guint32 *owner = self->pipeline != NULL ? ks_pipeline_get_ownership (self->pipeline)
                                                : NULL;
  const KsRunResult *result = self->pipeline != NULL ? ks_pipeline_get_result (self->pipeline)
                                                     : NULL;
  const KsCoverage *cov = self->pipeline != NULL ? ks_pipeline_get_coverage (self->pipeline)
                                                 : NULL;

  self->have_owner = owner != NULL && result != NULL && cov != NULL;
  if (!self->have_owner)
    return;
  self->owner_launch = result->launch;
  glBindTexture (GL_TEXTURE_2D, self->owner_tex);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_RG32UI, cov->width, cov->height, 0, GL_RG_INTEGER,
                GL_UNSIGNED_INT, owner);
}

/* ---- frames per second ------------------------------------------------------------------ */

static void
forget_old_frames (KsImageView *self, gint64 now)
{
  guint old = 0;

  while (old < self->frame_times->len
         && g_array_index (self->frame_times, gint64, old) < now - FPS_WINDOW_US)
    old++;
  g_array_remove_range (self->frame_times, 0, old);
}

static gboolean
fps_tick_cb (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  KsImageView *self = KS_IMAGE_VIEW (widget);
  guint n;
  double fps = 0;

  forget_old_frames (self, gdk_frame_clock_get_frame_time (clock));
  n = self->frame_times->len;
  if (n >= 2)
    {
      gint64 span = g_array_index (self->frame_times, gint64, n - 1)
                    - g_array_index (self->frame_times, gint64, 0);
      fps = span > 0 ? (n - 1) * (double) G_USEC_PER_SEC / span : 0;
    }
  if (self->pipeline != NULL)
    ks_pipeline_set_fps (self->pipeline, fps);
  if (n > 0)
    return G_SOURCE_CONTINUE;
  self->fps_tick = 0;
  return G_SOURCE_REMOVE;
}

/* A frame with a new result is being painted: its time is the frame clock's. */
static void
count_frame (KsImageView *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  gint64 now;

  if (clock == NULL)
    return;
  now = gdk_frame_clock_get_frame_time (clock);
  g_array_append_val (self->frame_times, now);
  if (self->fps_tick == 0)
    self->fps_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), fps_tick_cb, NULL, NULL);
}

static void
stop_counting_frames (KsImageView *self)
{
  if (self->fps_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->fps_tick);
  self->fps_tick = 0;
  g_array_set_size (self->frame_times, 0);
  if (self->pipeline != NULL)
    ks_pipeline_set_fps (self->pipeline, 0);
}

/* Tests of the shader's buffer-texture path, which shared memory takes on
 * a CUDA device: the same host pixels as a GL buffer and a buffer texture
 * over it, drawn as a shared result would be. */
static void
upload_host_buffer_texture (KsImageView *self, KsBuffer *buffer)
{
  gsize bytes = ks_buffer_get_pitch (buffer) * ks_buffer_get_height (buffer);
  KsFormat format = ks_buffer_get_format (buffer);

  if (self->host_buffer == 0)
    {
      glGenBuffers (1, &self->host_buffer);
      glGenTextures (1, &self->host_buffer_tex);
    }
  glBindBuffer (GL_TEXTURE_BUFFER, self->host_buffer);
  glBufferData (GL_TEXTURE_BUFFER, (GLsizeiptr) bytes, ks_buffer_get_data (buffer), GL_STREAM_DRAW);
  glBindBuffer (GL_TEXTURE_BUFFER, 0);
  glBindTexture (GL_TEXTURE_BUFFER, self->host_buffer_tex);
  glTexBuffer (GL_TEXTURE_BUFFER, format == KS_FORMAT_GRAY8 ? GL_R8 : GL_RGBA8, self->host_buffer);
  glBindTexture (GL_TEXTURE_BUFFER, 0);
  self->shared.texture = self->host_buffer_tex;
  self->shared.row_texels = (guint) (ks_buffer_get_pitch (buffer)
                                     / ks_format_bytes_per_pixel (format));
  self->shared.width = ks_buffer_get_width (buffer);
  self->shared.height = ks_buffer_get_height (buffer);
  self->shared.format = format;
  self->output_shared = TRUE;
}

static void
set_display_path (KsImageView *self, const char *path, double ms, gboolean report)
{
  set_string_property (self, &self->display_path, path, PROP_DISPLAY_PATH);
  if (report && self->pipeline != NULL)
    ks_pipeline_report_display (self->pipeline, ms, path);
}

/* With the context current: brings the output texture up to the last run.
 * Only when a run happened since the last upload: drawing alone (zoom, pan,
 * hover) never copies the image again. */
static void
upload_output (KsImageView *self)
{
  const KsRunResult *result;
  KsEngine *engine;
  KsBuffer *buffer;
  gboolean realloc;
  g_autofree char *path = NULL;
  double ms = -1;

  if (self->pipeline == NULL || self->uploaded_serial == self->run_serial)
    return;
  self->uploaded_serial = self->run_serial;

  upload_coverage (self);
  upload_ownership (self);
  result = ks_pipeline_get_result (self->pipeline);
  if (result == NULL)
    {
      /* Nothing published yet (a new engine, a new image): the input shows. */
      self->have_output = FALSE;
      return;
    }
  if (result->output == NULL)
    {
      /* Histogram ops: nothing to show but the input. */
      self->have_output = FALSE;
      set_display_path (self, _("No output image: the op's result is a histogram"), -1, FALSE);
      return;
    }

  buffer = result->output;
  engine = ks_pipeline_get_engine (self->pipeline);
  realloc = !self->have_output || self->output_width != ks_buffer_get_width (buffer)
            || self->output_height != ks_buffer_get_height (buffer)
            || self->output_gray != (ks_buffer_get_format (buffer) == KS_FORMAT_GRAY8);

  self->output_shared = FALSE;
  if (ks_engine_is_cuda (engine) && self->shared_interop != NULL && ks_buffer_is_shareable (buffer))
    {
      g_autoptr (GError) error = NULL;

      if (ks_interop_share (self->shared_interop, buffer, &self->shared, &ms, &error))
        {
          self->output_shared = TRUE;
          path = g_strdup_printf (_("%s: the kernel writes the memory OpenGL draws from, so "
                                    "nothing is copied (%s)"), _(PATH_INTEROP),
                                  ks_interop_describe (self->shared_interop));
        }
      else
        {
          /* Sampling in place failed (an import error): copy from now on, and say why. */
          g_message ("Drawing the result in place failed, copying it instead: %s",
                     error->message);
          g_clear_pointer (&self->shared_interop, ks_interop_free);
          g_clear_pointer (&self->shared_lost, g_free);
          self->shared_lost = g_strdup (error->message);
          ks_pipeline_set_shareable_outputs (self->pipeline, FALSE);
          update_interop_status (self);
        }
    }
  if (path == NULL && ks_engine_is_cuda (engine) && self->interop != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (ks_interop_upload (self->interop, buffer, self->output_tex, &ms, &error))
        {
          const char *why = self->shared_lost;

          if (self->shared_interop != NULL)
            why = ks_pipeline_get_shareable_refused (self->pipeline) != NULL
                  ? ks_pipeline_get_shareable_refused (self->pipeline)
                  : _("this result is not in memory shared with OpenGL");
          if (why != NULL)
            path = g_strdup_printf (_("%s: the kernel's result is copied into the texture on "
                                      "the GPU (%s); not drawn in place: %s"), _(PATH_INTEROP),
                                    ks_interop_describe (self->interop), why);
          else
            path = g_strdup_printf (_("%s: the kernel's result is copied into the texture on "
                                      "the GPU (%s)"), _(PATH_INTEROP),
                                    ks_interop_describe (self->interop));
        }
      else
        {
          /* Registration errors (no CUDA device behind this GL context: 304,
           * 999) are not sticky: drop interop for this context, say why, and
           * take the copy path from now on. */
          g_message ("CUDA–OpenGL interop failed, taking the copy path: %s", error->message);
          g_clear_pointer (&self->interop, ks_interop_free);
          g_clear_pointer (&self->interop_lost, g_free);
          self->interop_lost = g_strdup (error->message);
          update_interop_status (self);
          /* The texture may be half-allocated by the failed call. */
          realloc = TRUE;
        }
    }

  if (path == NULL)
    {
      /* Host work that ends with glFinish: the host's clock (ks-timing.h). */
      g_autoptr (KsClock) clock = ks_clock_new_host ();
      g_autoptr (KsImage) host = NULL;
      gboolean cpu = !ks_engine_is_cuda (engine);

      ks_clock_start (clock, NULL);
      if (cpu)
        {
          /* The CPU engine's buffer is host memory already: an ordinary texture upload. */
          upload_host_pixels (self->output_tex, ks_buffer_get_format (buffer),
                              ks_buffer_get_width (buffer), ks_buffer_get_height (buffer),
                              ks_buffer_get_pitch (buffer), ks_buffer_get_data (buffer), realloc);
          if (self->host_buffer_texture && self->buffer_textures)
            upload_host_buffer_texture (self, buffer);
        }
      else
        {
          g_autoptr (GError) error = NULL;

          host = ks_pipeline_download_output (self->pipeline, &error);
          if (host == NULL)
            {
              /* The pipeline reports engine failures (and a lost GPU) itself. */
              g_debug ("Cannot show the result: %s", error->message);
              self->have_output = FALSE;
              return;
            }
          upload_host_pixels (self->output_tex, host->format, host->width, host->height,
                              host->stride, host->data, realloc);
        }
      /* The download is synchronous and glTexSubImage2D may only queue the
       * copy: wait for it so that the number is the copy's cost and not that
       * of queuing it. Only on frames with a new result. */
      glFinish ();
      ks_clock_stop (clock, NULL);
      ks_clock_elapsed (clock, &ms, NULL);

      if (cpu)
        path = g_strdup_printf (self->output_shared
                                ? _("%s: its results are in host memory, drawn through a buffer "
                                    "texture")
                                : _("%s: its results are in host memory"), _(PATH_CPU));
      else
        path = g_strdup_printf (_("%s (copy path): %s"), _(PATH_COPY),
                                self->interop_lost != NULL
                                  ? self->interop_lost
                                  : _("CUDA–OpenGL interop is unavailable"));
    }

  self->have_output = TRUE;
  self->output_width = ks_buffer_get_width (buffer);
  self->output_height = ks_buffer_get_height (buffer);
  self->output_gray = ks_buffer_get_format (buffer) == KS_FORMAT_GRAY8;
  set_display_path (self, path, ms, TRUE);
  count_frame (self);
}

static void
delete_gl_objects (KsImageView *self)
{
  g_clear_pointer (&self->interop, ks_interop_free);
  g_clear_pointer (&self->shared_interop, ks_interop_free);
  self->output_shared = FALSE;
  if (self->host_buffer != 0)
    {
      glDeleteTextures (1, &self->host_buffer_tex);
      glDeleteBuffers (1, &self->host_buffer);
      self->host_buffer = self->host_buffer_tex = 0;
    }
  if (self->program != 0)
    glDeleteProgram (self->program);
  if (self->vao != 0)
    glDeleteVertexArrays (1, &self->vao);
  if (self->input_tex != 0)
    glDeleteTextures (1, &self->input_tex);
  if (self->output_tex != 0)
    glDeleteTextures (1, &self->output_tex);
  if (self->coverage_tex != 0)
    glDeleteTextures (1, &self->coverage_tex);
  if (self->owner_tex != 0)
    glDeleteTextures (1, &self->owner_tex);
  if (self->fbo != 0)
    glDeleteFramebuffers (1, &self->fbo);
  self->program = self->vao = self->input_tex = self->output_tex = 0;
  self->coverage_tex = self->owner_tex = self->fbo = 0;
}

/* GtkGLArea in GTK 4.8 asks for desktop GL only (or GLES only, with
 * use-es): allow both and let GDK pick what the display offers, desktop GL
 * first. The shaders come in both dialects (see create_program). */
static GdkGLContext *
ks_image_view_create_context (GtkGLArea *area)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (area));
  g_autoptr (GdkGLContext) context = NULL;
  g_autoptr (GError) error = NULL;

  context = gdk_surface_create_gl_context (gtk_native_get_surface (native), &error);
  if (context == NULL)
    {
      gtk_gl_area_set_error (area, error);
      return NULL;
    }
  gdk_gl_context_set_allowed_apis (context, GDK_GL_API_GL | GDK_GL_API_GLES);
  /* GLES 3.0 for texelFetch-era GLSL and GL_R8; desktop GL gets GTK's own
   * minimum, a 3.2 core profile, anyway. */
  gdk_gl_context_set_required_version (context, 3, 0);
  if (!gdk_gl_context_realize (context, &error))
    {
      gtk_gl_area_set_error (area, error);
      return NULL;
    }
  return g_steal_pointer (&context);
}

static void
ks_image_view_realize (GtkWidget *widget)
{
  KsImageView *self = KS_IMAGE_VIEW (widget);
  GtkGLArea *area = GTK_GL_AREA (widget);
  GdkGLContext *context;
  g_autoptr (GError) error = NULL;
  gboolean use_es;
  int major, minor;

  GTK_WIDGET_CLASS (ks_image_view_parent_class)->realize (widget);

  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) != NULL)
    return;

  context = gtk_gl_area_get_context (area);
  use_es = gdk_gl_context_get_use_es (context);
  gdk_gl_context_get_version (context, &major, &minor);
  if (use_es && major < 3)
    {
      g_autoptr (GError) es_error = g_error_new (GDK_GL_ERROR, GDK_GL_ERROR_NOT_AVAILABLE,
                                                 _("The image view needs OpenGL ES 3.0; this "
                                                   "context is OpenGL ES %d.%d"), major, minor);

      gtk_gl_area_set_error (area, es_error);
      return;
    }

  self->program = create_program (use_es, &error);
  if (self->program == 0)
    {
      gtk_gl_area_set_error (area, error);
      return;
    }
  self->u_view_size = glGetUniformLocation (self->program, "u_view_size");
  self->u_image_size = glGetUniformLocation (self->program, "u_image_size");
  self->u_center = glGetUniformLocation (self->program, "u_center");
  self->u_zoom = glGetUniformLocation (self->program, "u_zoom");
  self->u_scale = glGetUniformLocation (self->program, "u_scale");
  self->u_split_x = glGetUniformLocation (self->program, "u_split_x");
  self->u_has_input = glGetUniformLocation (self->program, "u_has_input");
  self->u_has_output = glGetUniformLocation (self->program, "u_has_output");
  self->u_has_coverage = glGetUniformLocation (self->program, "u_has_coverage");
  self->u_input_gray = glGetUniformLocation (self->program, "u_input_gray");
  self->u_output_gray = glGetUniformLocation (self->program, "u_output_gray");
  self->u_has_owner = glGetUniformLocation (self->program, "u_has_owner");
  self->u_overlay = glGetUniformLocation (self->program, "u_overlay");
  self->u_opacity = glGetUniformLocation (self->program, "u_opacity");
  self->u_grid = glGetUniformLocation (self->program, "u_grid");
  self->u_block = glGetUniformLocation (self->program, "u_block");
  self->u_extent = glGetUniformLocation (self->program, "u_extent");
  self->u_block_lines = glGetUniformLocation (self->program, "u_block_lines");
  self->u_output_shared = glGetUniformLocation (self->program, "u_output_shared");
  self->u_output_row = glGetUniformLocation (self->program, "u_output_row");
  self->u_output_size = glGetUniformLocation (self->program, "u_output_size");
  self->u_nearest = glGetUniformLocation (self->program, "u_nearest");
  self->buffer_textures = !use_es;
  glUseProgram (self->program);
  glUniform1i (glGetUniformLocation (self->program, "u_input"), 0);
  glUniform1i (glGetUniformLocation (self->program, "u_output"), 1);
  glUniform1i (glGetUniformLocation (self->program, "u_coverage"), 2);
  glUniform1i (glGetUniformLocation (self->program, "u_owner"), 3);
  if (self->buffer_textures)
    glUniform1i (glGetUniformLocation (self->program, "u_output_buffer"), 4);
  {
    float palette[3 * KS_OVERLAY_PALETTE_SIZE];

    for (guint i = 0; i < KS_OVERLAY_PALETTE_SIZE; i++)
      for (guint c = 0; c < 3; c++)
        palette[3 * i + c] = ((ks_overlay_palette[i] >> (8 * c)) & 0xff) / 255.0f;
    glUniform3fv (glGetUniformLocation (self->program, "u_palette"), KS_OVERLAY_PALETTE_SIZE,
                  palette);
  }
  glUseProgram (0);

  /* Core profiles draw nothing without a bound vertex array, even an empty one. */
  glGenVertexArrays (1, &self->vao);
  self->input_tex = create_texture (GL_LINEAR);
  self->output_tex = create_texture (GL_LINEAR);
  /* The mask is looked up per image pixel: never blend written and unwritten. */
  self->coverage_tex = create_texture (GL_NEAREST);
  /* Integer textures are never filtered. */
  self->owner_tex = create_texture (GL_NEAREST);
  glGenFramebuffers (1, &self->fbo);

  /* A new context: nothing it holds is current. */
  self->input_dirty = TRUE;
  self->have_input = FALSE;
  self->have_output = FALSE;
  self->have_coverage = FALSE;
  self->have_owner = FALSE;
  self->uploaded_serial = 0;
  if (self->run_serial == 0)
    self->run_serial = 1;
  self->interop_dirty = TRUE;
  ensure_interop (self);

  set_string_property (self, &self->gl_renderer, (const char *) glGetString (GL_RENDERER),
                       PROP_GL_RENDERER);
}

static void
ks_image_view_unrealize (GtkWidget *widget)
{
  KsImageView *self = KS_IMAGE_VIEW (widget);

  /* A context exists even when realize failed in our shaders; it does not
   * when GTK could not create one, and then nothing was created either. */
  if (gtk_gl_area_get_context (GTK_GL_AREA (widget)) != NULL)
    {
      gtk_gl_area_make_current (GTK_GL_AREA (widget));
      delete_gl_objects (self);
    }
  self->interop_engine = NULL;
  self->have_input = self->have_output = self->have_coverage = self->have_owner = FALSE;
  stop_counting_frames (self);

  GTK_WIDGET_CLASS (ks_image_view_parent_class)->unrealize (widget);
}

static gboolean
ks_image_view_render (GtkGLArea *area, GdkGLContext *context)
{
  KsImageView *self = KS_IMAGE_VIEW (area);
  double scale = view_scale (self);
  int vw = gtk_widget_get_width (GTK_WIDGET (self)) * scale;
  int vh = gtk_widget_get_height (GTK_WIDGET (self)) * scale;
  double iw, ih, cx, cy, zoom;
  GLenum filter;

  if (self->program == 0)
    return FALSE;

  ensure_interop (self);
  if (self->input_dirty)
    upload_input (self);
  upload_output (self);

  display_size (self, &iw, &ih);
  zoom = current_zoom (self);
  current_center (self, &cx, &cy);

  glViewport (0, 0, vw, vh);
  glDisable (GL_BLEND);
  glClearColor (0.16f, 0.16f, 0.17f, 1.0f);
  glClear (GL_COLOR_BUFFER_BIT);

  /* Past 1:1 every image pixel is a visible square: nearest, not smoothed. */
  filter = zoom >= 1.0 ? GL_NEAREST : GL_LINEAR;
  glActiveTexture (GL_TEXTURE0);
  glBindTexture (GL_TEXTURE_2D, self->input_tex);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glActiveTexture (GL_TEXTURE1);
  glBindTexture (GL_TEXTURE_2D, self->output_tex);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glActiveTexture (GL_TEXTURE2);
  glBindTexture (GL_TEXTURE_2D, self->coverage_tex);
  glActiveTexture (GL_TEXTURE3);
  glBindTexture (GL_TEXTURE_2D, self->owner_tex);
  if (self->buffer_textures)
    {
      glActiveTexture (GL_TEXTURE4);
      glBindTexture (GL_TEXTURE_BUFFER, self->output_shared ? self->shared.texture : 0);
    }
  glActiveTexture (GL_TEXTURE0);

  glUseProgram (self->program);
  glUniform2f (self->u_view_size, vw, vh);
  glUniform2f (self->u_image_size, iw, ih);
  glUniform2f (self->u_center, cx, cy);
  glUniform1f (self->u_zoom, zoom);
  glUniform1f (self->u_scale, scale);
  glUniform1f (self->u_split_x, self->have_output && self->have_input ? self->split * vw : 0);
  glUniform1i (self->u_has_input, self->have_input);
  glUniform1i (self->u_has_output, self->have_output);
  glUniform1i (self->u_has_coverage,
               self->have_coverage && self->have_output && self->show_coverage);
  glUniform1i (self->u_input_gray, self->input_gray);
  glUniform1i (self->u_output_gray, self->output_gray);
  if (self->buffer_textures)
    {
      glUniform1i (self->u_output_shared, self->output_shared);
      glUniform1i (self->u_output_row, (GLint) self->shared.row_texels);
      glUniform2i (self->u_output_size, (GLint) self->output_width, (GLint) self->output_height);
      glUniform1i (self->u_nearest, filter == GL_NEAREST);
    }
  {
    const KsLaunchConfig *l = &self->owner_launch;
    gboolean owner = self->have_owner && self->have_output && self->overlay != KS_OVERLAY_NONE;
    guint ppt = l->pixels_per_thread != 0 ? l->pixels_per_thread : 1;
    guint64 ew = 0, eh = 0;

    if (owner)
      ks_overlay_launch_extent (l, &ew, &eh);
    glUniform1i (self->u_has_owner, owner);
    glUniform1i (self->u_overlay, owner ? (int) self->overlay : 0);
    glUniform1f (self->u_opacity, self->overlay_opacity);
    glUniform2i (self->u_grid, (int) MIN (MAX (l->grid.x, 1u), (guint) G_MAXINT),
                 (int) MIN (MAX (l->grid.y, 1u), (guint) G_MAXINT));
    glUniform2i (self->u_block, (int) MAX (l->block.x, 1u), (int) MAX (l->block.y, 1u));
    glUniform2f (self->u_extent, (float) ew, (float) eh);
    /* Lines closer than six widget pixels would hide the colours. */
    glUniform1i (self->u_block_lines,
                 zoom / scale * MIN ((double) l->block.x * ppt, (double) l->block.y) >= 6.0);
  }

  glBindVertexArray (self->vao);
  glDrawArrays (GL_TRIANGLES, 0, 3);
  glBindVertexArray (0);
  glUseProgram (0);
  if (self->buffer_textures)
    {
      glActiveTexture (GL_TEXTURE4);
      glBindTexture (GL_TEXTURE_BUFFER, 0);
      glActiveTexture (GL_TEXTURE0);
    }
  for (int unit = 3; unit >= 0; unit--)
    {
      glActiveTexture (GL_TEXTURE0 + unit);
      glBindTexture (GL_TEXTURE_2D, 0);
    }

  return TRUE;
}

static void
ks_image_view_resize (GtkGLArea *area, int width, int height)
{
  KsImageView *self = KS_IMAGE_VIEW (area);

  if (GTK_GL_AREA_CLASS (ks_image_view_parent_class)->resize != NULL)
    GTK_GL_AREA_CLASS (ks_image_view_parent_class)->resize (area, width, height);
  if (self->fit)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

/* ---- pipeline signals ---------------------------------------------------------------- */

static void
on_pipeline_result_cb (KsPipeline *pipeline, GParamSpec *pspec, KsImageView *self)
{
  self->run_serial++;
  /* A new launch can change the extent that "fit" keeps in view. */
  if (self->fit && self->overlay != KS_OVERLAY_NONE)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
on_pipeline_inputs_changed_cb (KsPipeline *pipeline, KsImageView *self)
{
  self->input_dirty = TRUE;
  update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
on_pipeline_config_changed_cb (KsPipeline *pipeline, KsImageView *self)
{
  /* The device may have changed: interop is per engine. */
  if (ks_pipeline_get_engine (pipeline) != self->interop_engine)
    self->interop_dirty = TRUE;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
on_pipeline_device_lost_cb (KsPipeline *pipeline, const char *reason, KsImageView *self)
{
  /* The pipeline is on the CPU engine now; its rerun brings "ran". */
  self->interop_dirty = TRUE;
  self->run_serial++;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
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
    zoom_around (self, current_zoom (self) * factor, self->pointer_x, self->pointer_y);
  else
    zoom_around_center (self, current_zoom (self) * factor);
  return TRUE;
}

static void
on_drag_begin_cb (GtkGestureDrag *gesture, double x, double y, KsImageView *self)
{
  current_center (self, &self->drag_center_x, &self->drag_center_y);
}

static void
on_drag_update_cb (GtkGestureDrag *gesture, double ox, double oy, KsImageView *self)
{
  double zoom = current_zoom (self);
  double scale = view_scale (self);

  if (self->fit)
    {
      self->fit = FALSE;
      self->zoom = zoom;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIT]);
    }
  self->center_x = self->drag_center_x - ox * scale / zoom;
  self->center_y = self->drag_center_y - oy * scale / zoom;
  update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
on_zoom_begin_cb (GtkGesture *gesture, GdkEventSequence *sequence, KsImageView *self)
{
  self->pinch_zoom = current_zoom (self);
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
  update_hover (self);
}

static void
on_leave_cb (GtkEventControllerMotion *controller, KsImageView *self)
{
  self->pointer_inside = FALSE;
  update_hover (self);
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
ks_image_view_dispose (GObject *object)
{
  KsImageView *self = KS_IMAGE_VIEW (object);

  g_signal_group_set_target (self->pipeline_signals, NULL);
  g_clear_object (&self->pipeline);

  G_OBJECT_CLASS (ks_image_view_parent_class)->dispose (object);
}

static void
ks_image_view_finalize (GObject *object)
{
  KsImageView *self = KS_IMAGE_VIEW (object);

  g_object_unref (self->pipeline_signals);
  g_array_unref (self->frame_times);
  g_free (self->interop_lost);
  g_free (self->shared_lost);
  g_free (self->display_path);
  g_free (self->gl_renderer);
  g_free (self->interop_status);

  G_OBJECT_CLASS (ks_image_view_parent_class)->finalize (object);
}

static void
ks_image_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsImageView *self = KS_IMAGE_VIEW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, ks_image_view_get_zoom (self));
      break;
    case PROP_FIT:
      g_value_set_boolean (value, self->fit);
      break;
    case PROP_SPLIT:
      g_value_set_double (value, self->split);
      break;
    case PROP_SHOW_COVERAGE:
      g_value_set_boolean (value, self->show_coverage);
      break;
    case PROP_OVERLAY:
      g_value_set_int (value, self->overlay);
      break;
    case PROP_OVERLAY_OPACITY:
      g_value_set_double (value, self->overlay_opacity);
      break;
    case PROP_DISPLAY_PATH:
      g_value_set_string (value, ks_image_view_get_display_path (self));
      break;
    case PROP_GL_RENDERER:
      g_value_set_string (value, ks_image_view_get_gl_renderer (self));
      break;
    case PROP_INTEROP_STATUS:
      g_value_set_string (value, ks_image_view_get_interop_status (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_image_view_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  KsImageView *self = KS_IMAGE_VIEW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      ks_image_view_set_pipeline (self, g_value_get_object (value));
      break;
    case PROP_ZOOM:
      ks_image_view_set_zoom (self, g_value_get_double (value));
      break;
    case PROP_FIT:
      if (g_value_get_boolean (value))
        ks_image_view_zoom_fit (self);
      else if (self->fit)
        ks_image_view_set_zoom (self, current_zoom (self));
      break;
    case PROP_SPLIT:
      ks_image_view_set_split (self, g_value_get_double (value));
      break;
    case PROP_SHOW_COVERAGE:
      ks_image_view_set_show_coverage (self, g_value_get_boolean (value));
      break;
    case PROP_OVERLAY:
      ks_image_view_set_overlay (self, g_value_get_int (value));
      break;
    case PROP_OVERLAY_OPACITY:
      ks_image_view_set_overlay_opacity (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_image_view_class_init (KsImageViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkGLAreaClass *area_class = GTK_GL_AREA_CLASS (klass);

  object_class->dispose = ks_image_view_dispose;
  object_class->finalize = ks_image_view_finalize;
  object_class->get_property = ks_image_view_get_property;
  object_class->set_property = ks_image_view_set_property;
  widget_class->realize = ks_image_view_realize;
  widget_class->unrealize = ks_image_view_unrealize;
  area_class->render = ks_image_view_render;
  area_class->resize = ks_image_view_resize;
  area_class->create_context = ks_image_view_create_context;

  properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, ZOOM_MIN, ZOOM_MAX, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FIT] =
    g_param_spec_boolean ("fit", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SPLIT] =
    g_param_spec_double ("split", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_COVERAGE] =
    g_param_spec_boolean ("show-coverage", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_OVERLAY] =
    g_param_spec_int ("overlay", NULL, NULL, KS_OVERLAY_NONE, KS_OVERLAY_N_MODES - 1,
                      KS_OVERLAY_NONE,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_OVERLAY_OPACITY] =
    g_param_spec_double ("overlay-opacity", NULL, NULL, 0.0, 1.0, 0.6,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DISPLAY_PATH] =
    g_param_spec_string ("display-path", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_GL_RENDERER] =
    g_param_spec_string ("gl-renderer", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INTEROP_STATUS] =
    g_param_spec_string ("interop-status", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_HOVER_CHANGED] =
    g_signal_new ("hover-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_css_name (widget_class, "ks-image-view");
}

static void
ks_image_view_init (KsImageView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->fit = TRUE;
  self->zoom = 1.0;
  self->show_coverage = TRUE;
  self->overlay_opacity = 0.6;
  self->display_path = g_strdup ("");
  self->gl_renderer = g_strdup ("");
  self->interop_status = g_strdup ("");
  self->frame_times = g_array_new (FALSE, FALSE, sizeof (gint64));

  self->pipeline_signals = g_signal_group_new (KS_TYPE_PIPELINE);
  g_signal_group_connect_object (self->pipeline_signals, "notify::result",
                                 G_CALLBACK (on_pipeline_result_cb), self, G_CONNECT_DEFAULT);
  g_signal_group_connect_object (self->pipeline_signals, "inputs-changed",
                                 G_CALLBACK (on_pipeline_inputs_changed_cb), self,
                                 G_CONNECT_DEFAULT);
  g_signal_group_connect_object (self->pipeline_signals, "config-changed",
                                 G_CALLBACK (on_pipeline_config_changed_cb), self,
                                 G_CONNECT_DEFAULT);
  g_signal_group_connect_object (self->pipeline_signals, "device-lost",
                                 G_CALLBACK (on_pipeline_device_lost_cb), self,
                                 G_CONNECT_DEFAULT);

  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);

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

/* ---- public API ------------------------------------------------------------------------ */

GtkWidget *
ks_image_view_new (void)
{
  return g_object_new (KS_TYPE_IMAGE_VIEW, NULL);
}

void
ks_image_view_set_pipeline (KsImageView *self, KsPipeline *pipeline)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  g_return_if_fail (pipeline == NULL || KS_IS_PIPELINE (pipeline));

  if (self->pipeline == pipeline)
    return;
  stop_counting_frames (self);
  if (self->pipeline != NULL && self->overlay != KS_OVERLAY_NONE)
    ks_pipeline_set_instrumented (self->pipeline, FALSE);
  g_set_object (&self->pipeline, pipeline);
  g_signal_group_set_target (self->pipeline_signals, pipeline);
  if (pipeline != NULL && self->overlay != KS_OVERLAY_NONE)
    ks_pipeline_set_instrumented (pipeline, TRUE);

  self->input_dirty = TRUE;
  self->interop_dirty = TRUE;
  self->run_serial++;
  update_interop_status (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PIPELINE]);
}

KsPipeline *
ks_image_view_get_pipeline (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), NULL);
  return self->pipeline;
}

void
ks_image_view_zoom_fit (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));

  if (self->fit)
    return;
  self->fit = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

void
ks_image_view_zoom_1to1 (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  zoom_around_center (self, 1.0);
}

void
ks_image_view_zoom_in (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  zoom_around_center (self, current_zoom (self) * ZOOM_STEP);
}

void
ks_image_view_zoom_out (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  zoom_around_center (self, current_zoom (self) / ZOOM_STEP);
}

/* Sets an explicit zoom around the centre of the view; leaves "fit". */
void
ks_image_view_set_zoom (KsImageView *self, double zoom)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  zoom_around_center (self, zoom);
}

double
ks_image_view_get_zoom (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), 1.0);
  return current_zoom (self);
}

gboolean
ks_image_view_get_fit (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), TRUE);
  return self->fit;
}

void
ks_image_view_set_split (KsImageView *self, double split)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));

  split = CLAMP (split, 0.0, 1.0);
  if (self->split == split)
    return;
  self->split = split;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SPLIT]);
}

double
ks_image_view_get_split (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), 0.0);
  return self->split;
}

void
ks_image_view_set_show_coverage (KsImageView *self, gboolean show)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));

  show = !!show;
  if (self->show_coverage == show)
    return;
  self->show_coverage = show;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_COVERAGE]);
}

void
ks_image_view_set_overlay (KsImageView *self, KsOverlayMode mode)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  g_return_if_fail ((guint) mode < KS_OVERLAY_N_MODES);

  if (self->overlay == mode)
    return;
  self->overlay = mode;
  /* Every run records who wrote what while an overlay is on, whatever the grid. */
  if (self->pipeline != NULL)
    ks_pipeline_set_instrumented (self->pipeline, mode != KS_OVERLAY_NONE);
  if (self->fit)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OVERLAY]);
}

KsOverlayMode
ks_image_view_get_overlay (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), KS_OVERLAY_NONE);
  return self->overlay;
}

void
ks_image_view_set_overlay_opacity (KsImageView *self, double opacity)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));

  opacity = CLAMP (opacity, 0.0, 1.0);
  if (self->overlay_opacity == opacity)
    return;
  self->overlay_opacity = opacity;
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OVERLAY_OPACITY]);
}

double
ks_image_view_get_overlay_opacity (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), 0.6);
  return self->overlay_opacity;
}

gboolean
ks_image_view_get_hover_outside (KsImageView *self, guint64 *x, guint64 *y)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), FALSE);

  *x = self->hover_outside ? self->outside_x : 0;
  *y = self->hover_outside ? self->outside_y : 0;
  return self->hover_outside;
}

gboolean
ks_image_view_get_show_coverage (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), FALSE);
  return self->show_coverage;
}

const char *
ks_image_view_get_display_path (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), NULL);
  return self->display_path;
}

const char *
ks_image_view_get_gl_renderer (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), NULL);
  return self->gl_renderer;
}

const char *
ks_image_view_get_interop_status (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), NULL);
  return self->interop_status;
}

gboolean
ks_image_view_get_hover (KsImageView *self, guint *x, guint *y)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), FALSE);

  if (x != NULL)
    *x = self->hover_valid ? self->hover_x : 0;
  if (y != NULL)
    *y = self->hover_valid ? self->hover_y : 0;
  return self->hover_valid;
}

void
ks_image_view_set_host_buffer_texture (KsImageView *self, gboolean enable)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  self->host_buffer_texture = !!enable;
  /* Shown again through the other path. */
  self->uploaded_serial = 0;
  self->output_shared = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

KsImage *
ks_image_view_read_output (KsImageView *self, GError **error)
{
  GtkGLArea *area;
  g_autoptr (KsImage) image = NULL;
  g_autofree guint8 *pixels = NULL;
  int previous_fbo = 0;
  GLenum status;
  guint w, h;

  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  area = GTK_GL_AREA (self);
  if (!gtk_widget_get_realized (GTK_WIDGET (self)))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                           "The image view is not on screen yet");
      return NULL;
    }
  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) != NULL)
    {
      g_propagate_error (error, g_error_copy (gtk_gl_area_get_error (area)));
      return NULL;
    }
  if (self->program == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                           "The image view has no GL resources");
      return NULL;
    }

  /* What the next frame would show: a run may have happened since the last render. */
  ensure_interop (self);
  upload_output (self);
  if (!self->have_output)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "The view shows no output image (no run yet, or the op has none)");
      return NULL;
    }

  w = self->output_width;
  h = self->output_height;
  image = ks_image_new (KS_FORMAT_RGBA8, w, h, error);
  if (image == NULL)
    return NULL;
  /* Drawn from shared memory: bring those pixels into the output texture
   * the way the view's shader reads them, then read that. */
  if (self->output_shared && self->shared_interop != NULL
      && !ks_interop_resolve_shared (self->shared_interop, &self->shared, self->output_tex, error))
    return NULL;

  glGetIntegerv (GL_FRAMEBUFFER_BINDING, &previous_fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, self->fbo);
  glFramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, self->output_tex,
                          0);
  status = glCheckFramebufferStatus (GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    {
      glBindFramebuffer (GL_FRAMEBUFFER, previous_fbo);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "Cannot read the output texture back (framebuffer status 0x%x)", status);
      return NULL;
    }

  /* GL_RGBA / GL_UNSIGNED_BYTE is the one readback every GL and GLES accepts;
   * an R8 texture reads back as (v, 0, 0, 255). */
  pixels = g_malloc ((gsize) w * h * 4);
  glPixelStorei (GL_PACK_ALIGNMENT, 4);
  glReadPixels (0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  glFramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
  glBindFramebuffer (GL_FRAMEBUFFER, previous_fbo);

  for (guint y = 0; y < h; y++)
    {
      const guint8 *src = pixels + (gsize) y * w * 4;
      guint8 *dst = ks_image_row (image, y);

      if (self->output_gray)
        {
          for (guint x = 0; x < w; x++)
            {
              dst[4 * x + 0] = dst[4 * x + 1] = dst[4 * x + 2] = src[4 * x];
              dst[4 * x + 3] = 255;
            }
        }
      else
        {
          memcpy (dst, src, (gsize) w * 4);
        }
    }
  return g_steal_pointer (&image);
}
