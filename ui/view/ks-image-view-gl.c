/* ks-image-view-gl.c: the GL objects the live view draws with: its shader
 * program, built from the GLSL in the resources in the desktop GL or the
 * GLES dialect, its textures, and their deletion. Only realize and
 * unrealize (ks-image-view.c) call these, with the view's context current. */
#include "config.h"

#include <glib/gi18n.h>

#include <epoxy/gl.h>

#include "ks-gl.h"
#include "ks-image-view-private.h"

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

guint
_ks_image_view_create_program (gboolean use_es, GError **error)
{
  g_autofree char *vs_source = load_shader_source ("image-view.vert.glsl", use_es, error);
  g_autofree char *fs_source = NULL;
  g_autofree char *log = NULL;
  KsGlStage failed;
  guint program;

  if (vs_source == NULL)
    return 0;
  fs_source = load_shader_source ("image-view.frag.glsl", use_es, error);
  if (fs_source == NULL)
    return 0;
  {
    const char *const vertex[] = { vs_source, NULL };
    const char *const fragment[] = { fs_source, NULL };

    program = ks_gl_program_new (vertex, fragment, &failed, &log);
  }
  if (program != 0)
    return program;
  switch (failed)
    {
    case KS_GL_STAGE_VERTEX:
      g_set_error (error, GDK_GL_ERROR, GDK_GL_ERROR_COMPILATION_FAILED,
                   _("The vertex shader of the image view does not compile: %s"), log);
      break;
    case KS_GL_STAGE_FRAGMENT:
      g_set_error (error, GDK_GL_ERROR, GDK_GL_ERROR_COMPILATION_FAILED,
                   _("The fragment shader of the image view does not compile: %s"), log);
      break;
    case KS_GL_STAGE_LINK:
    default:
      g_set_error (error, GDK_GL_ERROR, GDK_GL_ERROR_LINK_FAILED,
                   _("The image view's shaders do not link: %s"), log);
      break;
    }
  return 0;
}

guint
_ks_image_view_create_texture (GLenum filter)
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

void
_ks_image_view_delete_gl_objects (KsImageView *self)
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
