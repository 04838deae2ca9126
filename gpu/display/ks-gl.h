/* ks-gl.h: what the interop, the headless EGL context and the image view
 * share of OpenGL: errors by name, a texture read back into host memory, a
 * program built from its shaders' sources. The caller's context must be
 * current. */
#pragma once

#include <epoxy/gl.h>
#include <glib.h>

G_BEGIN_DECLS

/* "GL_INVALID_OPERATION", …; "unknown GL error" for codes it does not name. */
const char *ks_gl_error_name (GLenum err);

/* Drops the errors queued before the caller's calls: they belong to someone
 * else (the toolkit, an earlier caller). A lost context repeats its error
 * forever, hence a bound. */
void        ks_gl_drain_errors (void);

/* Reads level 0 of the 2D texture, width × height, into rgba (4 bytes a
 * pixel, row 0 first, rows packed) through a framebuffer of its own, as
 * GL_RGBA / GL_UNSIGNED_BYTE, the one pair GLES guarantees: a GL_R8 texture
 * reads as (r, 0, 0, 255). The framebuffer, pixel-pack buffer and pack
 * alignment and row length the caller had are restored. Fails with
 * KS_ERROR_FAILED when the framebuffer is incomplete or glReadPixels fails. */
gboolean    ks_gl_read_texture_rgba (GLuint texture, guint width, guint height, guint8 *rgba,
                                     GError **error);

typedef enum
{
  KS_GL_STAGE_VERTEX,
  KS_GL_STAGE_FRAGMENT,
  KS_GL_STAGE_LINK,
} KsGlStage;

/* Compiles a vertex and a fragment shader, each from its pieces (a
 * NULL-terminated list, joined in order: a version header, then the body),
 * and links them into a program. 0 on failure, with the stage that failed
 * and the driver's log (to g_free; "" when it gave none) for the caller's own
 * message. */
GLuint      ks_gl_program_new       (const char *const *vertex, const char *const *fragment,
                                     KsGlStage *failed, char **log);

G_END_DECLS
