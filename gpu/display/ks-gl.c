/* ks-gl.c: see ks-gl.h. */
#include "config.h"

#include "ks-error.h"
#include "ks-gl.h"

const char *
ks_gl_error_name (GLenum err)
{
  switch (err)
    {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
    }
}

void
ks_gl_drain_errors (void)
{
  for (guint i = 0; i < 64; i++)
    {
      GLenum err = glGetError ();

      if (err == GL_NO_ERROR)
        return;
      g_debug ("an earlier GL error was pending: %s (0x%04x)", ks_gl_error_name (err), err);
    }
}

gboolean
ks_gl_read_texture_rgba (GLuint texture, guint width, guint height, guint8 *rgba, GError **error)
{
  GLint old_fbo = 0, old_pack_buffer = 0, old_alignment = 4, old_row_length = 0;
  GLuint fbo = 0;
  GLenum status, err;

  g_return_val_if_fail (texture != 0 && rgba != NULL, FALSE);

  ks_gl_drain_errors ();
  glGetIntegerv (GL_FRAMEBUFFER_BINDING, &old_fbo);
  glGetIntegerv (GL_PIXEL_PACK_BUFFER_BINDING, &old_pack_buffer);
  glGetIntegerv (GL_PACK_ALIGNMENT, &old_alignment);
  glGetIntegerv (GL_PACK_ROW_LENGTH, &old_row_length);

  glGenFramebuffers (1, &fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  status = glCheckFramebufferStatus (GL_FRAMEBUFFER);
  if (status == GL_FRAMEBUFFER_COMPLETE)
    {
      glBindBuffer (GL_PIXEL_PACK_BUFFER, 0);
      glPixelStorei (GL_PACK_ALIGNMENT, 1);
      glPixelStorei (GL_PACK_ROW_LENGTH, 0);
      glReadBuffer (GL_COLOR_ATTACHMENT0);
      glReadPixels (0, 0, (GLsizei) width, (GLsizei) height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }
  err = glGetError ();

  glPixelStorei (GL_PACK_ALIGNMENT, old_alignment);
  glPixelStorei (GL_PACK_ROW_LENGTH, old_row_length);
  glBindBuffer (GL_PIXEL_PACK_BUFFER, (GLuint) old_pack_buffer);
  glBindFramebuffer (GL_FRAMEBUFFER, (GLuint) old_fbo);
  glDeleteFramebuffers (1, &fbo);

  if (status != GL_FRAMEBUFFER_COMPLETE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "Texture %u (%u×%u) cannot be read back: its framebuffer is incomplete "
                   "(status 0x%04x)", texture, width, height, status);
      return FALSE;
    }
  if (err != GL_NO_ERROR)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "Reading texture %u (%u×%u) back failed: glReadPixels: %s (0x%04x)",
                   texture, width, height, ks_gl_error_name (err), err);
      return FALSE;
    }
  return TRUE;
}

static char *
shader_log (GLuint shader)
{
  GLint length = 0;
  char *log;

  glGetShaderiv (shader, GL_INFO_LOG_LENGTH, &length);
  log = g_malloc0 (MAX (length, 1));
  if (length > 0)
    glGetShaderInfoLog (shader, length, NULL, log);
  return log;
}

static GLuint
compile_shader (GLenum type, const char *const *pieces, char **log)
{
  GLuint shader = glCreateShader (type);
  GLint n = 0, ok = GL_FALSE;

  while (pieces[n] != NULL)
    n++;
  glShaderSource (shader, n, (const GLchar *const *) pieces, NULL);
  glCompileShader (shader);
  glGetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (ok)
    return shader;
  *log = shader_log (shader);
  glDeleteShader (shader);
  return 0;
}

GLuint
ks_gl_program_new (const char *const *vertex, const char *const *fragment, KsGlStage *failed,
                   char **log)
{
  GLuint vs, fs, program;
  GLint ok = GL_FALSE, length = 0;

  g_return_val_if_fail (vertex != NULL && fragment != NULL && failed != NULL && log != NULL, 0);
  *log = NULL;
  *failed = KS_GL_STAGE_VERTEX;
  if ((vs = compile_shader (GL_VERTEX_SHADER, vertex, log)) == 0)
    return 0;
  *failed = KS_GL_STAGE_FRAGMENT;
  if ((fs = compile_shader (GL_FRAGMENT_SHADER, fragment, log)) == 0)
    {
      glDeleteShader (vs);
      return 0;
    }
  program = glCreateProgram ();
  glAttachShader (program, vs);
  glAttachShader (program, fs);
  glLinkProgram (program);
  glGetProgramiv (program, GL_LINK_STATUS, &ok);
  if (ok)
    {
      glDetachShader (program, vs);
      glDetachShader (program, fs);
    }
  else
    {
      *failed = KS_GL_STAGE_LINK;
      glGetProgramiv (program, GL_INFO_LOG_LENGTH, &length);
      *log = g_malloc0 (MAX (length, 1));
      if (length > 0)
        glGetProgramInfoLog (program, length, NULL, *log);
      glDeleteProgram (program);
      program = 0;
    }
  glDeleteShader (vs);
  glDeleteShader (fs);
  return program;
}
