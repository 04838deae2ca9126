/* CUDA–OpenGL interop for the display of results: see ks-interop.h.
 *
 * Pixel-buffer mode: a GL_PIXEL_UNPACK_BUFFER registered with CUDA; per frame
 * it is mapped on the engine's stream, the result copied in (device to
 * device), unmapped, and glTexSubImage2D sources the texture from it, so the
 * pixels never cross the host. Texture mode: the texture itself is registered
 * and written as a CUDA array. Registration costs about 1.5 ms for 1080p, so
 * it happens once per size and format, never per frame. */
#include "config.h"

/* Before cuda_gl_interop.h, which includes <GL/gl.h> unless a GL header came first. */
#include <epoxy/gl.h>

#include "ks-engine-private.h"
#include "ks-error.h"
#include "ks-interop.h"

#if HAVE_CUDA

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#define CHECK(call, error) _ks_cuda_check ((int) (call), #call, error)

/* cudaGLGetDevices reports at most this many CUDA devices behind one context. */
#define MAX_GL_DEVICES 16

struct _KsInterop
{
  KsEngine *engine;        /* owned */
  KsInteropMode mode;
  int device;              /* the engine's CUDA ordinal */
  char *description;
  KsClock *clock;         /* times the CUDA part of each upload */

  /* What is registered now; resource is NULL before the first upload and
   * after a failed re-registration. */
  struct cudaGraphicsResource *resource;
  GLuint pbo;              /* pixel-buffer mode: our buffer, 0 until needed */
  gsize pbo_pitch;         /* bytes between rows in the pixel buffer */
  GLuint texture;          /* the caller's texture, allocated by us at this size */
  KsFormat format;
  guint width;
  guint height;
};

static const char *
gl_error_name (GLenum err)
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

/* Errors queued before our calls belong to someone else (the toolkit, the
 * caller): drop them so they are not blamed on us. A lost context repeats its
 * error forever, hence the bound. */
static void
drain_gl_errors (void)
{
  for (guint i = 0; i < 64; i++)
    {
      GLenum err = glGetError ();

      if (err == GL_NO_ERROR)
        return;
      g_debug ("an earlier GL error was pending: %s (0x%04x)", gl_error_name (err), err);
    }
}

static gboolean
check_gl (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
check_gl (GError **error, const char *format, ...)
{
  GLenum err = glGetError ();
  g_autofree char *what = NULL;
  va_list args;

  if (err == GL_NO_ERROR)
    return TRUE;
  drain_gl_errors ();
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, KS_ERROR, err == GL_OUT_OF_MEMORY ? KS_ERROR_TOO_LARGE : KS_ERROR_FAILED,
               "%s failed with %s (0x%04x)", what, gl_error_name (err), err);
  return FALSE;
}

static gboolean
use_device (KsInterop *self, GError **error)
{
  return _ks_cuda_check (cudaSetDevice (self->device), "cudaSetDevice", error);
}

/* After a sticky error every CUDA call fails: nothing can be unregistered. */
static void
unregister (KsInterop *self)
{
  if (self->resource == NULL)
    return;
  if (ks_cuda_lost_reason () == NULL)
    {
      g_autoptr (GError) local = NULL;

      if (!use_device (self, &local)
          || !CHECK (cudaGraphicsUnregisterResource (self->resource), &local))
        g_warning ("Unregistering the %s from CUDA: %s",
                   self->mode == KS_INTEROP_PIXEL_BUFFER ? "pixel buffer" : "texture",
                   local->message);
    }
  self->resource = NULL;
}

typedef struct
{
  GLint unpack_buffer;
  GLint row_length;
  GLint alignment;
  GLint texture;
} UnpackState;

/* The caller's GL state (GtkGLArea's, the view's) is left as we found it. */
static void
save_unpack_state (UnpackState *state)
{
  glGetIntegerv (GL_PIXEL_UNPACK_BUFFER_BINDING, &state->unpack_buffer);
  glGetIntegerv (GL_UNPACK_ROW_LENGTH, &state->row_length);
  glGetIntegerv (GL_UNPACK_ALIGNMENT, &state->alignment);
  glGetIntegerv (GL_TEXTURE_BINDING_2D, &state->texture);
}

static void
restore_unpack_state (const UnpackState *state)
{
  glBindTexture (GL_TEXTURE_2D, (GLuint) state->texture);
  glPixelStorei (GL_UNPACK_ALIGNMENT, state->alignment);
  glPixelStorei (GL_UNPACK_ROW_LENGTH, state->row_length);
  glBindBuffer (GL_PIXEL_UNPACK_BUFFER, (GLuint) state->unpack_buffer);
}

static void
gl_formats (KsFormat format, GLint *internal, GLenum *pixel_format)
{
  *internal = format == KS_FORMAT_GRAY8 ? GL_R8 : GL_RGBA8;
  *pixel_format = format == KS_FORMAT_GRAY8 ? GL_RED : GL_RGBA;
}

/* (Re)allocates the texture (and the pixel buffer) for the buffer's size and
 * format and registers them, unless that is already done. A registered object
 * must not be re-specified, so the old registration goes first. */
static gboolean
ensure_registered (KsInterop *self, const KsBuffer *buffer, GLuint texture, GError **error)
{
  guint bpp = ks_format_bytes_per_pixel (buffer->format);
  UnpackState state;
  GLint internal;
  GLenum pixel_format;
  cudaError_t err;

  if (self->resource != NULL && self->texture == texture && self->width == buffer->width
      && self->height == buffer->height && self->format == buffer->format)
    return TRUE;

  unregister (self);
  self->texture = 0;

  gl_formats (buffer->format, &internal, &pixel_format);
  /* Rows 256-byte aligned like the engine's: a whole number of pixels, so
   * GL_UNPACK_ROW_LENGTH can describe them. */
  self->pbo_pitch = ((gsize) buffer->width * bpp + 255) & ~(gsize) 255;

  drain_gl_errors ();
  save_unpack_state (&state);
  /* Unbound: with a pixel buffer bound, glTexImage2D's NULL would be an offset into it. */
  glBindBuffer (GL_PIXEL_UNPACK_BUFFER, 0);
  glBindTexture (GL_TEXTURE_2D, texture);
  glTexImage2D (GL_TEXTURE_2D, 0, internal, (GLsizei) buffer->width, (GLsizei) buffer->height, 0,
                pixel_format, GL_UNSIGNED_BYTE, NULL);
  /* Without mipmaps the default minification filter leaves the texture incomplete for sampling. */
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  if (self->mode == KS_INTEROP_PIXEL_BUFFER)
    {
      if (self->pbo == 0)
        glGenBuffers (1, &self->pbo);
      glBindBuffer (GL_PIXEL_UNPACK_BUFFER, self->pbo);
      glBufferData (GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr) (self->pbo_pitch * buffer->height), NULL,
                    GL_STREAM_DRAW);
    }
  restore_unpack_state (&state);
  if (!check_gl (error, "Allocating the %u×%u %s texture%s for the display", buffer->width,
                 buffer->height, internal == GL_R8 ? "GL_R8" : "GL_RGBA8",
                 self->mode == KS_INTEROP_PIXEL_BUFFER ? " and its pixel buffer" : ""))
    return FALSE;

  if (!use_device (self, error))
    return FALSE;
  if (self->mode == KS_INTEROP_PIXEL_BUFFER)
    err = cudaGraphicsGLRegisterBuffer (&self->resource, self->pbo,
                                        cudaGraphicsRegisterFlagsWriteDiscard);
  else
    err = cudaGraphicsGLRegisterImage (&self->resource, texture, GL_TEXTURE_2D,
                                       cudaGraphicsRegisterFlagsWriteDiscard);
  if (err != cudaSuccess)
    {
      self->resource = NULL;
      return _ks_cuda_check (err, self->mode == KS_INTEROP_PIXEL_BUFFER
                                  ? "cudaGraphicsGLRegisterBuffer" : "cudaGraphicsGLRegisterImage",
                             error);
    }
  self->texture = texture;
  self->width = buffer->width;
  self->height = buffer->height;
  self->format = buffer->format;
  return TRUE;
}

/* Map, copy, unmap on the engine's stream; unmapped whatever happened, or GL
 * could not use the object again. */
static gboolean
copy_into_resource (KsInterop *self, const KsBuffer *buffer, cudaStream_t stream, GError **error)
{
  gsize row = (gsize) buffer->width * ks_format_bytes_per_pixel (buffer->format);
  gboolean ok;

  if (!CHECK (cudaGraphicsMapResources (1, &self->resource, stream), error))
    return FALSE;

  if (self->mode == KS_INTEROP_PIXEL_BUFFER)
    {
      void *pixels = NULL;
      size_t size = 0;

      ok = CHECK (cudaGraphicsResourceGetMappedPointer (&pixels, &size, self->resource), error);
      if (ok && size < self->pbo_pitch * buffer->height)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                       "The mapped pixel buffer has %" G_GSIZE_FORMAT " bytes, fewer than the "
                       "%" G_GSIZE_FORMAT " a %u×%u image needs", (gsize) size,
                       self->pbo_pitch * buffer->height, buffer->width, buffer->height);
          ok = FALSE;
        }
      ok = ok && CHECK (cudaMemcpy2DAsync (pixels, self->pbo_pitch, buffer->data, buffer->pitch,
                                           row, buffer->height, cudaMemcpyDeviceToDevice, stream),
                        error);
    }
  else
    {
      cudaArray_t array = NULL;

      ok = CHECK (cudaGraphicsSubResourceGetMappedArray (&array, self->resource, 0, 0), error)
           && CHECK (cudaMemcpy2DToArrayAsync (array, 0, 0, buffer->data, buffer->pitch, row,
                                               buffer->height, cudaMemcpyDeviceToDevice, stream),
                     error);
    }

  if (ok)
    return CHECK (cudaGraphicsUnmapResources (1, &self->resource, stream), error);
  /* The first error is the one to report. */
  if (ks_cuda_lost_reason () == NULL)
    {
      (void) cudaGraphicsUnmapResources (1, &self->resource, stream);
      (void) cudaGetLastError ();
    }
  return FALSE;
}

/* Registers a small GL buffer with CUDA and lets it go again. */
static gboolean
probe_registration (int ordinal, GError **error)
{
  struct cudaGraphicsResource *resource = NULL;
  GLint old_buffer = 0;
  GLuint buffer = 0;
  gboolean ok;

  drain_gl_errors ();
  glGetIntegerv (GL_PIXEL_UNPACK_BUFFER_BINDING, &old_buffer);
  glGenBuffers (1, &buffer);
  glBindBuffer (GL_PIXEL_UNPACK_BUFFER, buffer);
  glBufferData (GL_PIXEL_UNPACK_BUFFER, 4096, NULL, GL_STREAM_DRAW);
  glBindBuffer (GL_PIXEL_UNPACK_BUFFER, (GLuint) old_buffer);
  ok = check_gl (error, "Allocating a GL buffer to test CUDA registration")
       && _ks_cuda_check (cudaSetDevice (ordinal), "cudaSetDevice", error)
       && _ks_cuda_check (cudaGraphicsGLRegisterBuffer (&resource, buffer,
                                                        cudaGraphicsRegisterFlagsNone),
                          "cudaGraphicsGLRegisterBuffer", error)
       && _ks_cuda_check (cudaGraphicsUnregisterResource (resource),
                          "cudaGraphicsUnregisterResource", error);
  glDeleteBuffers (1, &buffer);
  return ok;
}

KsInterop *
ks_interop_new (KsEngine *engine, KsInteropMode mode, GError **error)
{
  KsInterop *self;
  KsDevice *device;
  g_autoptr (GError) local = NULL;
  int ordinal;
  unsigned int count = 0;
  int devices[MAX_GL_DEVICES];
  const char *renderer;
  gboolean found = FALSE;
  cudaError_t err;

  g_return_val_if_fail (KS_IS_ENGINE (engine), NULL);
  g_return_val_if_fail (mode == KS_INTEROP_PIXEL_BUFFER || mode == KS_INTEROP_TEXTURE, NULL);

  if (!ks_engine_is_cuda (engine))
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "The CPU engine keeps its results in host memory: there is no GPU "
                           "buffer to share with OpenGL, so they are uploaded as a texture");
      return NULL;
    }
  if (!ks_engine_check_usable (engine, error))
    return NULL;
  device = ks_engine_get_device (engine);
  ordinal = ks_device_get_ordinal (device);
  if (!_ks_cuda_check (cudaSetDevice (ordinal), "cudaSetDevice", error))
    return NULL;

  renderer = (const char *) glGetString (GL_RENDERER);
  if (renderer == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "CUDA–OpenGL interop needs a current OpenGL context, and there is none");
      return NULL;
    }

  /* A context on another GPU (or on Mesa, or remote) makes registration fail
   * later with 304 or 999; asking first gives the reason in plain words. */
  err = cudaGLGetDevices (&count, devices, MAX_GL_DEVICES, cudaGLDeviceListAll);
  if (err != cudaSuccess)
    {
      g_autoptr (GError) probe_error = NULL;

      /* Names the call and clears the error, which is not sticky. */
      _ks_cuda_check (err, "cudaGLGetDevices", &local);
      if (g_error_matches (local, KS_ERROR, KS_ERROR_DEVICE_LOST))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      /* The query can fail where registration works (it is less used with
       * EGL contexts than with GLX ones): registration decides. */
      if (!probe_registration (ordinal, &probe_error))
        {
          if (g_error_matches (probe_error, KS_ERROR, KS_ERROR_DEVICE_LOST))
            {
              g_propagate_error (error, g_steal_pointer (&probe_error));
              return NULL;
            }
          g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "OpenGL renders on a device that is not the CUDA device (OpenGL renderer "
                       "“%s”, CUDA device %d: %s), so they cannot share memory: %s; %s", renderer,
                       ordinal, ks_device_get_name (device), local->message, probe_error->message);
          return NULL;
        }
      g_debug ("%s, but a GL buffer registers with CUDA device %d: interop is possible",
               local->message, ordinal);
      count = 1;
      devices[0] = ordinal;
    }
  for (guint i = 0; i < MIN (count, (guint) MAX_GL_DEVICES); i++)
    found = found || devices[i] == ordinal;
  if (!found)
    {
      g_autoptr (GString) list = g_string_new (NULL);

      for (guint i = 0; i < MIN (count, (guint) MAX_GL_DEVICES); i++)
        g_string_append_printf (list, "%s%d", i > 0 ? ", " : "", devices[i]);
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "OpenGL renders on a device that is not the CUDA device (OpenGL renderer “%s” "
                   "is on CUDA device %s, the engine on CUDA device %d: %s), so they cannot share "
                   "memory", renderer, count > 0 ? list->str : "none", ordinal,
                   ks_device_get_name (device));
      return NULL;
    }

  self = g_new0 (KsInterop, 1);
  self->engine = g_object_ref (engine);
  self->mode = mode;
  self->device = ordinal;
  self->description = g_strdup_printf ("CUDA–OpenGL interop (%s) on %s",
                                       mode == KS_INTEROP_PIXEL_BUFFER ? "pixel buffer" : "texture",
                                       ks_device_get_name (device));
  self->clock = ks_clock_new (engine, error);
  if (self->clock == NULL)
    {
      ks_interop_free (self);
      return NULL;
    }
  return self;
}

void
ks_interop_free (KsInterop *self)
{
  if (self == NULL)
    return;
  unregister (self);
  g_clear_pointer (&self->clock, ks_clock_free);
  if (self->pbo != 0)
    glDeleteBuffers (1, &self->pbo);
  g_clear_object (&self->engine);
  g_free (self->description);
  g_free (self);
}

gboolean
ks_interop_upload (KsInterop *self, KsBuffer *buffer, guint texture, double *ms, GError **error)
{
  cudaStream_t stream;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (buffer != NULL, FALSE);
  g_return_val_if_fail (texture != 0, FALSE);

  if (buffer->engine != self->engine)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The %u×%u buffer belongs to another engine (%s), not to the one this interop "
                   "was made for (%s)", buffer->width, buffer->height,
                   ks_device_get_id (ks_engine_get_device (buffer->engine)),
                   ks_device_get_id (ks_engine_get_device (self->engine)));
      return FALSE;
    }
  if (!ks_engine_check_usable (self->engine, error) || !use_device (self, error)
      || !ensure_registered (self, buffer, texture, error))
    return FALSE;

  stream = (cudaStream_t) ks_engine_get_stream (self->engine);
  if (ms != NULL && !ks_clock_start (self->clock, error))
    return FALSE;
  if (!copy_into_resource (self, buffer, stream, error))
    return FALSE;
  if (ms != NULL)
    {
      if (!ks_clock_stop (self->clock, error) || !ks_clock_elapsed (self->clock, ms, error))
        return FALSE;
    }

  if (self->mode == KS_INTEROP_PIXEL_BUFFER)
    {
      guint bpp = ks_format_bytes_per_pixel (buffer->format);
      UnpackState state;
      GLint internal;
      GLenum pixel_format;

      gl_formats (buffer->format, &internal, &pixel_format);
      drain_gl_errors ();
      save_unpack_state (&state);
      /* The unmap above orders this after the copy: GL waits for the stream. */
      glBindBuffer (GL_PIXEL_UNPACK_BUFFER, self->pbo);
      glPixelStorei (GL_UNPACK_ROW_LENGTH, (GLint) (self->pbo_pitch / bpp));
      glPixelStorei (GL_UNPACK_ALIGNMENT, 1);
      glBindTexture (GL_TEXTURE_2D, texture);
      glTexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, (GLsizei) buffer->width, (GLsizei) buffer->height,
                       pixel_format, GL_UNSIGNED_BYTE, (const void *) 0);
      restore_unpack_state (&state);
      if (!check_gl (error, "glTexSubImage2D from the pixel buffer (%u×%u %s)", buffer->width,
                     buffer->height, ks_format_name (buffer->format)))
        return FALSE;
    }
  return TRUE;
}

const char *
ks_interop_describe (KsInterop *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->description;
}

#else /* !HAVE_CUDA */

KsInterop *
ks_interop_new (KsEngine *engine, KsInteropMode mode, GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (engine), NULL);
  (void) mode;
  g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       ks_engine_is_cuda (engine)
                       ? "This build of Kernelscope has no CUDA–OpenGL interop"
                       : "The CPU engine keeps its results in host memory: there is no GPU buffer "
                         "to share with OpenGL, so they are uploaded as a texture");
  return NULL;
}

void
ks_interop_free (KsInterop *self)
{
  /* ks_interop_new never returns one without CUDA. */
  g_return_if_fail (self == NULL);
}

gboolean
ks_interop_upload (KsInterop *self, KsBuffer *buffer, guint texture, double *ms, GError **error)
{
  (void) buffer;
  (void) texture;
  (void) ms;
  (void) error;
  g_return_val_if_fail (self != NULL, FALSE);
  return FALSE;
}

const char *
ks_interop_describe (KsInterop *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return NULL;
}

#endif /* HAVE_CUDA */
