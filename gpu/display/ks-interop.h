/* ks-interop.h: CUDA–OpenGL interop for the display of results.
 *
 * All calls need the GL context current (the view's, or a headless EGL one).
 * The buffer (or texture) is created and registered with CUDA per size, and
 * mapped, written and unmapped once per frame on the engine's stream. Register
 * our own objects only, never the toolkit's. After any failure the caller can
 * take the copy path (ks_engine_download + glTexSubImage2D): errors of
 * registration (no CUDA device behind the GL context: 304, 999) are not sticky. */
#pragma once

#include <glib.h>

#include "ks-engine.h"

G_BEGIN_DECLS

typedef struct _KsInterop KsInterop;

typedef enum
{
  KS_INTEROP_PIXEL_BUFFER, /* GL_PIXEL_UNPACK_BUFFER → glTexSubImage2D */
  KS_INTEROP_TEXTURE,      /* the texture registered as a CUDA array */
  KS_INTEROP_SHARED_MEMORY, /* the result's own memory, sampled by GL: no copy, no map */
} KsInteropMode;

/* Shared-memory mode: the op's output buffer (ks_engine_new_shareable_buffer)
 * is imported once into GL (GL_EXT_memory_object_fd) as the storage of a GL
 * buffer, and a buffer texture (GL_TEXTURE_BUFFER) over it is what the
 * caller samples, with texelFetch at y * row_texels + x. Per frame nothing is
 * mapped, copied or uploaded: the kernel's writes are the displayed pixels.
 *
 * Ordering. There are no shared semaphores to order CUDA and GL here: GL can
 * import semaphores but not make exportable ones, and CUDA makes none; only a
 * third API (Vulkan) could. So the order is the host's: the buffer must hold
 * a finished result when it is shared (ks_engine_run returns after its
 * kernel; the pipeline publishes only finished runs), and a buffer is not
 * written while GL may still draw from it (the pipeline writes the spare
 * buffer, never the one shown; the display benchmark ends each frame with
 * glFinish). */
typedef struct
{
  guint texture;           /* GL_TEXTURE_BUFFER, texels GL_RGBA8 or GL_R8 */
  guint row_texels;        /* texels from one row to the next: pitch / bytes per pixel */
  guint width;
  guint height;
  KsFormat format;
  gboolean imported;       /* this call imported the buffer (the first time it was shown) */
} KsInteropShared;

/* Checks that the current GL context renders on the engine's CUDA device
 * (cudaGLGetDevices); fails with KS_ERROR_UNAVAILABLE and the reason when it
 * does not or the engine is the CPU engine. */
KsInterop  *ks_interop_new             (KsEngine *engine, KsInteropMode mode, GError **error);
/* Unregisters and deletes the GL objects; the GL context must be current.
 * Free it before deleting a texture it wrote: texture mode registers the
 * texture, and a new texture that reuses the name would be taken for the old
 * one, already allocated. */
void        ks_interop_free            (KsInterop *interop);

/* Copies `buffer` (RGBA8 or GRAY8, of the interop's engine) into `texture`,
 * which this call (re)allocates as GL_RGBA8 or GL_R8 of the buffer's size
 * (minification filter GL_LINEAR) when the size, format or texture changes,
 * and re-registers then. The GL state it touches (unpack buffer and
 * alignment, row length, texture binding) is restored. *ms: GPU time of the
 * CUDA part measured with events (map, copy, unmap); NULL allowed, and then
 * the call does not wait for the copy. */
gboolean    ks_interop_upload          (KsInterop *interop, KsBuffer *buffer, guint texture,
                                        double *ms, GError **error);

/* Shared-memory mode: what to sample for `buffer`, imported on its first
 * call (about 1.4 ms at 4K on the H200) and kept, with a reference to the
 * buffer, for the next calls; the last few buffers stay imported (a
 * pipeline alternates two). *ms: the host time of the call. Errors:
 * KS_ERROR_INVALID_ARGUMENT for a buffer that is not shareable or another
 * engine's; the import's GL errors. */
gboolean    ks_interop_share           (KsInterop *interop, KsBuffer *buffer,
                                        KsInteropShared *shared, double *ms, GError **error);
/* Draws a shared buffer's pixels into `texture` (allocated here as GL_RGBA8
 * or GL_R8 of its size) through a shader that reads it as the view does
 * (texelFetch): for tests and read-backs, not for display. */
gboolean    ks_interop_resolve_shared  (KsInterop *interop, const KsInteropShared *shared,
                                        guint texture, GError **error);

/* Whether the current GL context can take the shared-memory mode: NULL if
 * it can, else why not ("GL_EXT_memory_object_fd is missing"). */
const char *ks_interop_shared_unsupported (void);

/* "CUDA–OpenGL interop (pixel buffer) on NVIDIA H200" */
const char *ks_interop_describe        (KsInterop *interop);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsInterop, ks_interop_free)

G_END_DECLS
