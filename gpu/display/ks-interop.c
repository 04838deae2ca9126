/* CUDA–OpenGL interop for the display of results: see ks-interop.h.
 *
 * Pixel-buffer mode: a GL_PIXEL_UNPACK_BUFFER registered with CUDA; per frame
 * it is mapped on the engine's stream, the result copied in (device to
 * device), unmapped, and glTexSubImage2D sources the texture from it, so the
 * pixels never cross the host. Texture mode: the texture itself is registered
 * and written as a CUDA array. Registration costs about 1.5 ms for 1080p, so
 * it happens once per size and format, never per frame. Shared-memory mode
 * (ks-interop.h) copies nothing: GL imports the op's output memory and
 * samples it as a buffer texture.
 *
 * One piece because the three modes are one KsInterop: ks_interop_new checks
 * once that GL renders on the engine's CUDA device and, for shared memory,
 * probes with the same share and resolve functions a view then calls; the
 * registered resource, the pixel buffer and the imported buffers are fields
 * of one struct that ks_interop_free and every mode's upload keep in step;
 * and the builds without CUDA answer the same API in one #else. */
#include "config.h"

/* Before cuda_gl_interop.h, which includes <GL/gl.h> unless a GL header came first. */
#include <epoxy/gl.h>

#include <string.h>
#include <unistd.h>

#include "ks-engine-private.h"
#include "ks-error.h"
#include "ks-gl.h"
#include "ks-interop.h"
#include "ks-timing.h"

/* Buffers kept imported in shared-memory mode: a pipeline alternates two,
 * and a size change brings two more before the old ones are let go. */
#define MAX_SHARED 4

const char *
ks_interop_shared_unsupported (void)
{
  if (epoxy_is_desktop_gl () ? epoxy_gl_version () < 31
                             : epoxy_gl_version () < 32
                               && !epoxy_has_gl_extension ("GL_EXT_texture_buffer")
                               && !epoxy_has_gl_extension ("GL_OES_texture_buffer"))
    return "the OpenGL context has no buffer textures (desktop OpenGL 3.1 or OpenGL ES 3.2)";
  if (!epoxy_has_gl_extension ("GL_EXT_memory_object"))
    return "the OpenGL driver lacks GL_EXT_memory_object";
  if (!epoxy_has_gl_extension ("GL_EXT_memory_object_fd"))
    return "the OpenGL driver lacks GL_EXT_memory_object_fd";
  return NULL;
}

#if HAVE_CUDA

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#define CHECK(call, error) _ks_cuda_check ((int) (call), #call, error)

/* cudaGLGetDevices reports at most this many CUDA devices behind one context. */
#define MAX_GL_DEVICES 16

/* A buffer GL imported in shared-memory mode. */
typedef struct
{
  KsBuffer *buffer;        /* a reference: the memory stays while GL samples it */
  GLuint memory;           /* the memory object */
  GLuint gl_buffer;        /* its storage */
  GLuint texture;          /* GL_TEXTURE_BUFFER over gl_buffer */
} SharedEntry;

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

  /* Shared-memory mode: the buffers GL imported, the most recently shown first. */
  SharedEntry shared[MAX_SHARED];
  guint n_shared;
  GLuint resolve_program;  /* ks_interop_resolve_shared's, made on first use */
  GLuint sample_program;   /* verify_import's, made on first use */
  GLuint resolve_vao;
};

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
  ks_gl_drain_errors ();
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, KS_ERROR, err == GL_OUT_OF_MEMORY ? KS_ERROR_TOO_LARGE : KS_ERROR_FAILED,
               "%s failed with %s (0x%04x)", what, ks_gl_error_name (err), err);
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

  ks_gl_drain_errors ();
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

  ks_gl_drain_errors ();
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

static gboolean probe_shared (KsInterop *self, GError **error);

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
  g_return_val_if_fail (mode == KS_INTEROP_PIXEL_BUFFER || mode == KS_INTEROP_TEXTURE
                        || mode == KS_INTEROP_SHARED_MEMORY, NULL);

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

  if (mode == KS_INTEROP_SHARED_MEMORY && ks_interop_shared_unsupported () != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "OpenGL cannot sample CUDA's memory in place: %s",
                   ks_interop_shared_unsupported ());
      return NULL;
    }

  self = g_new0 (KsInterop, 1);
  self->engine = g_object_ref (engine);
  self->mode = mode;
  self->device = ordinal;
  self->description = g_strdup_printf ("CUDA–OpenGL interop (%s) on %s",
                                       mode == KS_INTEROP_PIXEL_BUFFER ? "pixel buffer"
                                       : mode == KS_INTEROP_TEXTURE ? "texture"
                                       : "shared memory, no copy",
                                       ks_device_get_name (device));
  self->clock = ks_clock_new (engine, error);
  if (self->clock == NULL || (mode == KS_INTEROP_SHARED_MEMORY && !probe_shared (self, error)))
    {
      ks_interop_free (self);
      return NULL;
    }
  return self;
}

/* GL keeps its own reference to imported memory until the objects are gone
 * and its draws are done, so the buffer can be let go right after. */
static void
drop_shared (KsInterop *self, guint i)
{
  glDeleteTextures (1, &self->shared[i].texture);
  glDeleteBuffers (1, &self->shared[i].gl_buffer);
  glDeleteMemoryObjectsEXT (1, &self->shared[i].memory);
  /* On the H200 an import that closely follows a deletion could read zeros
   * (verify_import); letting GL finish the deletion first avoids that. */
  glFinish ();
  g_clear_pointer (&self->shared[i].buffer, ks_buffer_unref);
  memmove (&self->shared[i], &self->shared[i + 1], (self->n_shared - i - 1) * sizeof self->shared[0]);
  self->n_shared--;
  memset (&self->shared[self->n_shared], 0, sizeof self->shared[0]);
}

void
ks_interop_free (KsInterop *self)
{
  if (self == NULL)
    return;
  while (self->n_shared > 0)
    drop_shared (self, self->n_shared - 1);
  if (self->resolve_program != 0)
    glDeleteProgram (self->resolve_program);
  if (self->sample_program != 0)
    glDeleteProgram (self->sample_program);
  if (self->resolve_vao != 0)
    glDeleteVertexArrays (1, &self->resolve_vao);
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

  if (self->mode == KS_INTEROP_SHARED_MEMORY)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "A shared-memory interop copies nothing: ks_interop_share gives the "
                           "texture to sample");
      return FALSE;
    }
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
      ks_gl_drain_errors ();
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

#define VERIFY_TEXELS 16

static gboolean verify_import (KsInterop *self, KsBuffer *buffer, GLuint buffer_texture,
                               guint *bad, guint32 *seen, guint32 *want, GError **error);

/* Imports the buffer's memory as a GL buffer and a buffer texture over it. */
static gboolean
import_once (KsBuffer *buffer, GLuint *memory_out, GLuint *gl_buffer_out, GLuint *texture_out,
             GError **error)
{
  gsize bytes = buffer->pitch * buffer->height;
  GLint old_texture = 0, old_buffer = 0;
  GLuint memory = 0, gl_buffer = 0, texture = 0;
  gsize size = 0;
  int fd;

  fd = _ks_buffer_export_fd (buffer, &size, error);
  if (fd < 0)
    return FALSE;

  glCreateMemoryObjectsEXT (1, &memory);
  /* A successful import owns the descriptor; a failed one leaves it ours. */
  glImportMemoryFdEXT (memory, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
  if (!check_gl (error, "Importing the %u×%u result's GPU memory into OpenGL "
                        "(glImportMemoryFdEXT, %" G_GSIZE_FORMAT " bytes)",
                 buffer->width, buffer->height, size))
    {
      close (fd);
      glDeleteMemoryObjectsEXT (1, &memory);
      return FALSE;
    }

  glGetIntegerv (GL_TEXTURE_BUFFER_BINDING, &old_buffer);
  glGetIntegerv (GL_TEXTURE_BINDING_BUFFER, &old_texture);
  glGenBuffers (1, &gl_buffer);
  glBindBuffer (GL_TEXTURE_BUFFER, gl_buffer);
  glBufferStorageMemEXT (GL_TEXTURE_BUFFER, (GLsizeiptr) bytes, memory, 0);
  glGenTextures (1, &texture);
  glBindTexture (GL_TEXTURE_BUFFER, texture);
  glTexBuffer (GL_TEXTURE_BUFFER, buffer->format == KS_FORMAT_GRAY8 ? GL_R8 : GL_RGBA8, gl_buffer);
  glBindTexture (GL_TEXTURE_BUFFER, (GLuint) old_texture);
  glBindBuffer (GL_TEXTURE_BUFFER, (GLuint) old_buffer);
  if (!check_gl (error, "Making a buffer texture of the %u×%u result's memory", buffer->width,
                 buffer->height))
    {
      glDeleteTextures (1, &texture);
      glDeleteBuffers (1, &gl_buffer);
      glDeleteMemoryObjectsEXT (1, &memory);
      return FALSE;
    }
  *memory_out = memory;
  *gl_buffer_out = gl_buffer;
  *texture_out = texture;
  return TRUE;
}

/* Imports the buffer, checks that GL sees its pixels (verify_import) and
 * puts it first in the cache. An import whose pixels read back wrong is
 * let go, GL finishes, and the buffer is imported once more; a second wrong
 * one is an error (KS_ERROR_UNAVAILABLE), so that the caller copies instead
 * of showing pixels that are not the result. */
static gboolean
import_shared (KsInterop *self, KsBuffer *buffer, GError **error)
{
  guint bpp = ks_format_bytes_per_pixel (buffer->format);
  guint64 texels = buffer->pitch * buffer->height / bpp;
  GLint max_texels = 0;
  GLuint memory = 0, gl_buffer = 0, texture = 0;
  guint bad = 0;
  guint32 seen = 0, want = 0;

  ks_gl_drain_errors ();
  glGetIntegerv (GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
  if (texels > (guint64) MAX (max_texels, 0))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "A %u×%u image is %" G_GUINT64_FORMAT " texels, more than the %d an OpenGL "
                   "buffer texture can have here", buffer->width, buffer->height, texels,
                   max_texels);
      return FALSE;
    }

  for (guint attempt = 0; attempt < 2; attempt++)
    {
      if (!import_once (buffer, &memory, &gl_buffer, &texture, error))
        return FALSE;
      if (!verify_import (self, buffer, texture, &bad, &seen, &want, error))
        bad = G_MAXUINT;
      if (bad == 0)
        break;
      glDeleteTextures (1, &texture);
      glDeleteBuffers (1, &gl_buffer);
      glDeleteMemoryObjectsEXT (1, &memory);
      if (bad == G_MAXUINT)
        return FALSE;
      g_debug ("OpenGL read %u of %d sampled pixels of the imported %u×%u result wrong "
               "(0x%08x where CUDA holds 0x%08x)%s", bad, VERIFY_TEXELS, buffer->width,
               buffer->height, seen, want, attempt == 0 ? "; importing it again" : "");
      glFinish ();
    }
  if (bad != 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "OpenGL does not see what CUDA wrote into the %u×%u result it imported: %u of "
                   "%d pixels sampled differ (0x%08x where CUDA holds 0x%08x), also when "
                   "imported again", buffer->width, buffer->height, bad, VERIFY_TEXELS, seen, want);
      return FALSE;
    }

  if (self->n_shared == MAX_SHARED)
    drop_shared (self, MAX_SHARED - 1);
  memmove (&self->shared[1], &self->shared[0], self->n_shared * sizeof self->shared[0]);
  self->shared[0].buffer = ks_buffer_ref (buffer);
  self->shared[0].memory = memory;
  self->shared[0].gl_buffer = gl_buffer;
  self->shared[0].texture = texture;
  self->n_shared++;
  return TRUE;
}

gboolean
ks_interop_share (KsInterop *self, KsBuffer *buffer, KsInteropShared *shared, double *ms,
                  GError **error)
{
  g_autoptr (KsClock) clock = ks_clock_new_host ();
  gboolean imported = FALSE;
  guint i;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (buffer != NULL, FALSE);
  g_return_val_if_fail (shared != NULL, FALSE);

  if (self->mode != KS_INTEROP_SHARED_MEMORY)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "This interop copies results (ks_interop_upload); only a "
                           "shared-memory one samples them in place");
      return FALSE;
    }
  if (buffer->engine != self->engine || buffer->shared == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The %u×%u buffer %s", buffer->width, buffer->height,
                   buffer->engine != self->engine
                   ? "belongs to another engine than the one this interop was made for"
                   : "was not made to be shared with OpenGL (ks_engine_new_shareable_buffer)");
      return FALSE;
    }
  if (!ks_engine_check_usable (self->engine, error))
    return FALSE;

  ks_clock_start (clock, NULL);
  for (i = 0; i < self->n_shared && self->shared[i].buffer != buffer; i++)
    ;
  if (i == self->n_shared)
    {
      if (!import_shared (self, buffer, error))
        return FALSE;
      imported = TRUE;
    }
  else if (i > 0)
    {
      /* The most recently shown first: eviction takes the oldest. */
      SharedEntry entry = self->shared[i];

      memmove (&self->shared[1], &self->shared[0], i * sizeof self->shared[0]);
      self->shared[0] = entry;
    }
  ks_clock_stop (clock, NULL);
  if (ms != NULL)
    ks_clock_elapsed (clock, ms, NULL);

  shared->texture = self->shared[0].texture;
  shared->row_texels = (guint) (buffer->pitch / ks_format_bytes_per_pixel (buffer->format));
  shared->width = buffer->width;
  shared->height = buffer->height;
  shared->format = buffer->format;
  shared->imported = imported;
  return TRUE;
}

static const char resolve_vertex[] =
  "void main () {\n"
  "  vec2 p = vec2 (float ((gl_VertexID & 1) * 4 - 1), float ((gl_VertexID & 2) * 2 - 1));\n"
  "  gl_Position = vec4 (p, 0.0, 1.0);\n"
  "}\n";
static const char resolve_fragment[] =
  "uniform highp samplerBuffer u_pixels;\n"
  "uniform int u_row;\n"
  "out vec4 frag_color;\n"
  "void main () {\n"
  "  ivec2 p = ivec2 (gl_FragCoord.xy);\n"
  "  frag_color = texelFetch (u_pixels, p.y * u_row + p.x);\n"
  "}\n";

static const char sample_fragment[] =
  "uniform highp samplerBuffer u_pixels;\n"
  "uniform int u_index[16];\n"
  "out vec4 frag_color;\n"
  "void main () {\n"
  "  frag_color = texelFetch (u_pixels, u_index[int (gl_FragCoord.x)]);\n"
  "}\n";

static GLuint
link_program (const char *fragment, GError **error)
{
  const char *header = epoxy_is_desktop_gl ()
                       ? "#version 140\n"
                       : "#version 320 es\nprecision highp float;\nprecision highp int;\n";
  const char *const vertex_pieces[] = { header, resolve_vertex, NULL };
  const char *const fragment_pieces[] = { header, fragment, NULL };
  g_autofree char *log = NULL;
  KsGlStage failed;
  GLuint program = ks_gl_program_new (vertex_pieces, fragment_pieces, &failed, &log);

  if (program == 0)
    g_set_error (error, KS_ERROR, KS_ERROR_FAILED, failed == KS_GL_STAGE_LINK
                   ? "The buffer texture's read-back shader does not link: %s"
                   : "The buffer texture's read-back shader does not compile: %s", log);
  return program;
}

static gboolean
ensure_resolve_program (KsInterop *self, GError **error)
{
  if (self->resolve_program == 0 && (self->resolve_program = link_program (resolve_fragment, error)) == 0)
    return FALSE;
  if (self->resolve_vao == 0)
    glGenVertexArrays (1, &self->resolve_vao);
  return TRUE;
}

/* Whether what GL samples from a buffer it just imported is what CUDA holds
 * there: VERIFY_TEXELS pixels spread over the image, fetched by a shader and
 * read back, against the engine's reads of the same pixels. About 0.3 ms,
 * once per import. *bad: how many differ; the first as *seen and *want
 * (packed RGBA; gray as v, v, v, 255 on both sides). */
static gboolean
verify_import (KsInterop *self, KsBuffer *buffer, GLuint buffer_texture, guint *bad,
               guint32 *seen, guint32 *want, GError **error)
{
  GLint index[VERIFY_TEXELS];
  guint32 expected[VERIFY_TEXELS];
  guint8 got[VERIFY_TEXELS * 4];
  guint row = (guint) (buffer->pitch / ks_format_bytes_per_pixel (buffer->format));
  GLint old_fbo = 0, old_program = 0, old_vao = 0, old_texture = 0, old_active = 0;
  GLint old_pack_buffer = 0, old_alignment = 4;
  GLint old_viewport[4];
  GLuint target = 0, fbo = 0;
  GLenum status;

  for (guint k = 0; k < VERIFY_TEXELS; k++)
    {
      guint x = (buffer->width - 1) * (k * 7 % VERIFY_TEXELS) / (VERIFY_TEXELS - 1);
      guint y = (buffer->height - 1) * k / (VERIFY_TEXELS - 1);

      index[k] = (GLint) (y * row + x);
      if (!ks_engine_read_pixel (self->engine, buffer, x, y, &expected[k], error))
        return FALSE;
    }
  if (!ensure_resolve_program (self, error))
    return FALSE;
  if (self->sample_program == 0 && (self->sample_program = link_program (sample_fragment, error)) == 0)
    return FALSE;

  ks_gl_drain_errors ();
  glGetIntegerv (GL_FRAMEBUFFER_BINDING, &old_fbo);
  glGetIntegerv (GL_CURRENT_PROGRAM, &old_program);
  glGetIntegerv (GL_VERTEX_ARRAY_BINDING, &old_vao);
  glGetIntegerv (GL_ACTIVE_TEXTURE, &old_active);
  glGetIntegerv (GL_VIEWPORT, old_viewport);
  glGetIntegerv (GL_PIXEL_PACK_BUFFER_BINDING, &old_pack_buffer);
  glGetIntegerv (GL_PACK_ALIGNMENT, &old_alignment);
  glActiveTexture (GL_TEXTURE0);
  glGetIntegerv (GL_TEXTURE_BINDING_2D, &old_texture);

  glGenTextures (1, &target);
  glBindTexture (GL_TEXTURE_2D, target);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_RGBA8, VERIFY_TEXELS, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glBindTexture (GL_TEXTURE_2D, (GLuint) old_texture);
  glGenFramebuffers (1, &fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target, 0);
  status = glCheckFramebufferStatus (GL_FRAMEBUFFER);
  memset (got, 0, sizeof got);
  if (status == GL_FRAMEBUFFER_COMPLETE)
    {
      glViewport (0, 0, VERIFY_TEXELS, 1);
      glUseProgram (self->sample_program);
      glUniform1i (glGetUniformLocation (self->sample_program, "u_pixels"), 0);
      glUniform1iv (glGetUniformLocation (self->sample_program, "u_index"), VERIFY_TEXELS, index);
      glBindTexture (GL_TEXTURE_BUFFER, buffer_texture);
      glBindVertexArray (self->resolve_vao);
      glDrawArrays (GL_TRIANGLES, 0, 3);
      glBindTexture (GL_TEXTURE_BUFFER, 0);
      glBindBuffer (GL_PIXEL_PACK_BUFFER, 0);
      glPixelStorei (GL_PACK_ALIGNMENT, 1);
      glReadPixels (0, 0, VERIFY_TEXELS, 1, GL_RGBA, GL_UNSIGNED_BYTE, got);
    }
  glPixelStorei (GL_PACK_ALIGNMENT, old_alignment);
  glBindBuffer (GL_PIXEL_PACK_BUFFER, (GLuint) old_pack_buffer);
  glBindVertexArray ((GLuint) old_vao);
  glUseProgram ((GLuint) old_program);
  glViewport (old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  glBindFramebuffer (GL_FRAMEBUFFER, (GLuint) old_fbo);
  glDeleteFramebuffers (1, &fbo);
  glDeleteTextures (1, &target);
  glActiveTexture ((GLenum) old_active);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "Cannot read back the imported result "
                   "(framebuffer status 0x%04x)", status);
      return FALSE;
    }
  if (!check_gl (error, "Reading back the imported %u×%u result", buffer->width, buffer->height))
    return FALSE;

  *bad = 0;
  for (guint k = 0; k < VERIFY_TEXELS; k++)
    {
      const guint8 *g = got + 4 * k;
      /* A GL_R8 texel reads as (r, 0, 0, 1); the engine gives gray as v, v, v, 255. */
      guint32 v = buffer->format == KS_FORMAT_GRAY8
                  ? (guint32) g[0] * 0x010101u | 0xff000000u
                  : (guint32) g[0] | (guint32) g[1] << 8 | (guint32) g[2] << 16 | (guint32) g[3] << 24;

      if (v != expected[k] && (*bad)++ == 0)
        {
          *seen = v;
          *want = expected[k];
        }
    }
  return TRUE;
}

gboolean
ks_interop_resolve_shared (KsInterop *self, const KsInteropShared *shared, guint texture,
                           GError **error)
{
  GLint old_fbo = 0, old_program = 0, old_vao = 0, old_texture = 0, old_active = 0;
  GLint old_viewport[4];
  GLint internal;
  GLenum pixel_format, status;
  GLuint fbo = 0;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (shared != NULL && shared->texture != 0, FALSE);
  g_return_val_if_fail (texture != 0, FALSE);

  ks_gl_drain_errors ();
  if (!ensure_resolve_program (self, error))
    return FALSE;
  gl_formats (shared->format, &internal, &pixel_format);

  glGetIntegerv (GL_FRAMEBUFFER_BINDING, &old_fbo);
  glGetIntegerv (GL_CURRENT_PROGRAM, &old_program);
  glGetIntegerv (GL_VERTEX_ARRAY_BINDING, &old_vao);
  glGetIntegerv (GL_ACTIVE_TEXTURE, &old_active);
  glGetIntegerv (GL_VIEWPORT, old_viewport);
  glActiveTexture (GL_TEXTURE0);
  glGetIntegerv (GL_TEXTURE_BINDING_2D, &old_texture);

  glBindTexture (GL_TEXTURE_2D, texture);
  glTexImage2D (GL_TEXTURE_2D, 0, internal, (GLsizei) shared->width, (GLsizei) shared->height, 0,
                pixel_format, GL_UNSIGNED_BYTE, NULL);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glBindTexture (GL_TEXTURE_2D, (GLuint) old_texture);
  glGenFramebuffers (1, &fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  status = glCheckFramebufferStatus (GL_FRAMEBUFFER);
  if (status == GL_FRAMEBUFFER_COMPLETE)
    {
      glViewport (0, 0, (GLsizei) shared->width, (GLsizei) shared->height);
      glUseProgram (self->resolve_program);
      glUniform1i (glGetUniformLocation (self->resolve_program, "u_pixels"), 0);
      glUniform1i (glGetUniformLocation (self->resolve_program, "u_row"),
                   (GLint) shared->row_texels);
      glBindTexture (GL_TEXTURE_BUFFER, shared->texture);
      glBindVertexArray (self->resolve_vao);
      glDrawArrays (GL_TRIANGLES, 0, 3);
      glBindTexture (GL_TEXTURE_BUFFER, 0);
    }
  glBindVertexArray ((GLuint) old_vao);
  glUseProgram ((GLuint) old_program);
  glViewport (old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  glBindFramebuffer (GL_FRAMEBUFFER, (GLuint) old_fbo);
  glDeleteFramebuffers (1, &fbo);
  glActiveTexture ((GLenum) old_active);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "Cannot draw the shared %u×%u result into a texture (framebuffer status "
                   "0x%04x)", shared->width, shared->height, status);
      return FALSE;
    }
  return check_gl (error, "Drawing the shared %u×%u result into a texture", shared->width,
                   shared->height);
}

/* Whether GL sees what CUDA writes into memory they share: a small shareable
 * buffer filled with a pattern on the GPU, imported, drawn and read back.
 * Once per interop, about a millisecond. The NVIDIA driver on the H200 gets
 * into a state where the import succeeds and GL reads only zeros: after a
 * GPU fault (Xid 31 or 13 in the kernel log), until it is reloaded; a view
 * must then copy through the pixel buffer instead of showing zeros. */
static gboolean
probe_shared (KsInterop *self, GError **error)
{
  enum { PROBE_W = 64, PROBE_H = 4, PATTERN = 0xA5 };
  g_autoptr (KsBuffer) buffer = NULL;
  KsInteropShared shared = { 0 };
  guint8 seen[PROBE_W * PROBE_H * 4];
  GLuint texture = 0;
  guint bad = 0, first_bad = 0;
  gboolean ok;

  buffer = ks_engine_new_shareable_buffer (self->engine, KS_FORMAT_RGBA8, PROBE_W, PROBE_H, error);
  if (buffer == NULL || !ks_engine_fill (self->engine, buffer, PATTERN, error)
      || !ks_interop_share (self, buffer, &shared, NULL, error))
    return FALSE;
  glGenTextures (1, &texture);
  ok = ks_interop_resolve_shared (self, &shared, texture, error);
  if (ok)
    {
      memset (seen, 0, sizeof seen);
      ok = ks_gl_read_texture_rgba (texture, PROBE_W, PROBE_H, seen, error);
      if (!ok)
        g_prefix_error (error, "Reading back the shared-memory probe: ");
    }
  glDeleteTextures (1, &texture);
  /* The probe's buffer leaves the cache: it is never shown. */
  drop_shared (self, 0);
  if (!ok)
    return FALSE;

  for (guint i = 0; i < sizeof seen; i++)
    if (seen[i] != PATTERN && bad++ == 0)
      first_bad = i;
  if (bad > 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "OpenGL does not see what CUDA writes into the memory they share: %u of %u "
                   "bytes read back wrong (0x%02x where CUDA wrote 0x%02x). The NVIDIA driver "
                   "gets into this state after a GPU fault (Xid 31 or 13 in the kernel log) "
                   "until it is reloaded", bad, (guint) sizeof seen, seen[first_bad], PATTERN);
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

gboolean
ks_interop_share (KsInterop *self, KsBuffer *buffer, KsInteropShared *shared, double *ms,
                  GError **error)
{
  (void) buffer;
  (void) shared;
  (void) ms;
  (void) error;
  g_return_val_if_fail (self != NULL, FALSE);
  return FALSE;
}

gboolean
ks_interop_resolve_shared (KsInterop *self, const KsInteropShared *shared, guint texture,
                           GError **error)
{
  (void) shared;
  (void) texture;
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
