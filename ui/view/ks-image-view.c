/* ks-image-view.c: the live view (see ks-image-view.h): the type, its GL
 * lifecycle (realize, unrealize, render) and its public functions.
 *
 * Every realize of a GtkGLArea brings a new GL context (removing the widget
 * and adding it again does it too), so the program, the textures and the CUDA
 * registration are created in realize and deleted in unrealize (with the
 * context current); setters and the pipeline's signals only mark state dirty
 * and queue a render; all GL work happens in render (and in
 * ks_image_view_read_output, which makes the context current itself).
 *
 * Every function that checks or casts the type is here, where the type is
 * defined; the rest of the view takes a KsImageView checked here and never
 * calls back: ks-image-view-input.c (zoom, pan, hover),
 * ks-image-view-display.c (how a result reaches the textures, its cost, the
 * frame rate), ks-image-view-gl.c (the program and textures) and
 * ks-image-view-geometry.c (where the image lies; the property tables). */
#include "config.h"

#include <glib/gi18n.h>

#include <epoxy/gl.h>

#include "ks-image-view-private.h"

G_DEFINE_FINAL_TYPE (KsImageView, ks_image_view, GTK_TYPE_GL_AREA)

/* GtkGLArea in GTK 4.8 asks for desktop GL only (or GLES only, with
 * use-es): allow both and let GDK pick what the display offers, desktop GL
 * first. The shaders come in both dialects (see _ks_image_view_create_program). */
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

  self->program = _ks_image_view_create_program (use_es, &error);
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
  self->input_tex = _ks_image_view_create_texture (GL_LINEAR);
  self->output_tex = _ks_image_view_create_texture (GL_LINEAR);
  /* The mask is looked up per image pixel: never blend written and unwritten. */
  self->coverage_tex = _ks_image_view_create_texture (GL_NEAREST);
  /* Integer textures are never filtered. */
  self->owner_tex = _ks_image_view_create_texture (GL_NEAREST);
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
  _ks_image_view_ensure_interop (self);

  _ks_image_view_set_string_property (self, &self->gl_renderer,
                                      (const char *) glGetString (GL_RENDERER), PROP_GL_RENDERER);
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
      _ks_image_view_delete_gl_objects (self);
    }
  self->interop_engine = NULL;
  self->have_input = self->have_output = self->have_coverage = self->have_owner = FALSE;
  _ks_image_view_stop_counting_frames (self);

  GTK_WIDGET_CLASS (ks_image_view_parent_class)->unrealize (widget);
}

static gboolean
ks_image_view_render (GtkGLArea *area, GdkGLContext *context)
{
  KsImageView *self = KS_IMAGE_VIEW (area);
  double scale = _ks_image_view_scale (self);
  int vw = gtk_widget_get_width (GTK_WIDGET (self)) * scale;
  int vh = gtk_widget_get_height (GTK_WIDGET (self)) * scale;
  double iw, ih, cx, cy, zoom;
  GLenum filter;

  if (self->program == 0)
    return FALSE;

  _ks_image_view_ensure_interop (self);
  if (self->input_dirty)
    _ks_image_view_upload_input (self);
  _ks_image_view_upload_output (self);

  _ks_image_view_display_size (self, &iw, &ih);
  zoom = _ks_image_view_current_zoom (self);
  _ks_image_view_current_center (self, &cx, &cy);

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
    g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_ZOOM]);
}

/* ---- pipeline signals ---------------------------------------------------------------- */

static void
on_pipeline_result_cb (KsPipeline *pipeline, GParamSpec *pspec, KsImageView *self)
{
  self->run_serial++;
  /* A new launch can change the extent that "fit" keeps in view. */
  if (self->fit && self->overlay != KS_OVERLAY_NONE)
    g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_ZOOM]);
  _ks_image_view_update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

static void
on_pipeline_inputs_changed_cb (KsPipeline *pipeline, KsImageView *self)
{
  self->input_dirty = TRUE;
  _ks_image_view_update_hover (self);
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
        ks_image_view_set_zoom (self, _ks_image_view_current_zoom (self));
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

  _ks_image_view_properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, ZOOM_MIN, ZOOM_MAX, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_FIT] =
    g_param_spec_boolean ("fit", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_SPLIT] =
    g_param_spec_double ("split", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_SHOW_COVERAGE] =
    g_param_spec_boolean ("show-coverage", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_OVERLAY] =
    g_param_spec_int ("overlay", NULL, NULL, KS_OVERLAY_NONE, KS_OVERLAY_N_MODES - 1,
                      KS_OVERLAY_NONE,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_OVERLAY_OPACITY] =
    g_param_spec_double ("overlay-opacity", NULL, NULL, 0.0, 1.0, 0.6,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_DISPLAY_PATH] =
    g_param_spec_string ("display-path", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_GL_RENDERER] =
    g_param_spec_string ("gl-renderer", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  _ks_image_view_properties[PROP_INTEROP_STATUS] =
    g_param_spec_string ("interop-status", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, _ks_image_view_properties);

  _ks_image_view_signals[SIGNAL_HOVER_CHANGED] =
    g_signal_new ("hover-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_css_name (widget_class, "ks-image-view");
}

static void
ks_image_view_init (KsImageView *self)
{
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

  _ks_image_view_setup_input (self);
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
  _ks_image_view_stop_counting_frames (self);
  if (self->pipeline != NULL && self->overlay != KS_OVERLAY_NONE)
    ks_pipeline_set_instrumented (self->pipeline, FALSE);
  g_set_object (&self->pipeline, pipeline);
  g_signal_group_set_target (self->pipeline_signals, pipeline);
  if (pipeline != NULL && self->overlay != KS_OVERLAY_NONE)
    ks_pipeline_set_instrumented (pipeline, TRUE);

  self->input_dirty = TRUE;
  self->interop_dirty = TRUE;
  self->run_serial++;
  _ks_image_view_update_interop_status (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_PIPELINE]);
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
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_FIT]);
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_ZOOM]);
  _ks_image_view_update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
}

void
ks_image_view_zoom_1to1 (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  _ks_image_view_zoom_around_center (self, 1.0);
}

void
ks_image_view_zoom_in (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  _ks_image_view_zoom_around_center (self, _ks_image_view_current_zoom (self) * ZOOM_STEP);
}

void
ks_image_view_zoom_out (KsImageView *self)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  _ks_image_view_zoom_around_center (self, _ks_image_view_current_zoom (self) / ZOOM_STEP);
}

/* Sets an explicit zoom around the centre of the view; leaves "fit". */
void
ks_image_view_set_zoom (KsImageView *self, double zoom)
{
  g_return_if_fail (KS_IS_IMAGE_VIEW (self));
  _ks_image_view_zoom_around_center (self, zoom);
}

double
ks_image_view_get_zoom (KsImageView *self)
{
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), 1.0);
  return _ks_image_view_current_zoom (self);
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
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_SPLIT]);
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
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_SHOW_COVERAGE]);
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
    g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_ZOOM]);
  _ks_image_view_update_hover (self);
  gtk_gl_area_queue_render (GTK_GL_AREA (self));
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_OVERLAY]);
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
  g_object_notify_by_pspec (G_OBJECT (self), _ks_image_view_properties[PROP_OVERLAY_OPACITY]);
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
  g_return_val_if_fail (KS_IS_IMAGE_VIEW (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _ks_image_view_read_output (self, error);
}
