/* ks-image-view-display.c: how a result reaches the live view's textures, and
 * what that costs. A CUDA result in memory shared with OpenGL is sampled in
 * place; another one is copied into the output texture on the GPU through
 * the interop's pixel buffer; without interop it is downloaded and uploaded
 * as a texture, and a CPU result is uploaded from host memory. Each path
 * is timed and reported to the pipeline with the reason it was taken (the
 * "display-path" and "interop-status" properties), and the frames that
 * show a new result give the frame rate. All of it runs with the view's
 * context current, from render or ks_image_view_read_output. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include <epoxy/gl.h>

#include "ks-image-view-private.h"

#define PATH_INTEROP N_("CUDA–OpenGL interop")
#define PATH_COPY N_("download and texture upload")
#define PATH_CPU N_("texture upload from the CPU engine")

/* The frame rate counts the frames of the last second; a second without a
 * new frame means none are being produced, and the rate is hidden. */
#define FPS_WINDOW_US G_USEC_PER_SEC

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

void
_ks_image_view_update_interop_status (KsImageView *self)
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
  _ks_image_view_set_string_property (self, &self->interop_status, status, PROP_INTEROP_STATUS);
}

/* With the context current: (re)creates the interop for the pipeline's engine
 * when that engine is CUDA. Failure is normal (the display GPU is not the
 * CUDA GPU, a remote display): the reason is kept and shown. */
void
_ks_image_view_ensure_interop (KsImageView *self)
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
  _ks_image_view_update_interop_status (self);
}

void
_ks_image_view_upload_input (KsImageView *self)
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

/* The view comes as user_data rather than as a cast of widget, which would
 * call back into ks-image-view.c for the type. */
static gboolean
fps_tick_cb (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  KsImageView *self = user_data;
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
    self->fps_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), fps_tick_cb, self, NULL);
}

void
_ks_image_view_stop_counting_frames (KsImageView *self)
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
  _ks_image_view_set_string_property (self, &self->display_path, path, PROP_DISPLAY_PATH);
  if (report && self->pipeline != NULL)
    ks_pipeline_report_display (self->pipeline, ms, path);
}

/* With the context current: brings the output texture up to the last run.
 * Only when a run happened since the last upload: drawing alone (zoom, pan,
 * hover) never copies the image again. */
void
_ks_image_view_upload_output (KsImageView *self)
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
          _ks_image_view_update_interop_status (self);
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
          _ks_image_view_update_interop_status (self);
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

/* ks_image_view_read_output, checked: what the output texture holds, with the
 * context made current here, outside render. */
KsImage *
_ks_image_view_read_output (KsImageView *self, GError **error)
{
  GtkGLArea *area;
  g_autoptr (KsImage) image = NULL;
  g_autofree guint8 *pixels = NULL;
  int previous_fbo = 0;
  GLenum status;
  guint w, h;

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
  _ks_image_view_ensure_interop (self);
  _ks_image_view_upload_output (self);
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
