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
