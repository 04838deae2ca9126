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
} KsInteropMode;

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

/* "CUDA–OpenGL interop (pixel buffer) on NVIDIA H200" */
const char *ks_interop_describe        (KsInterop *interop);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsInterop, ks_interop_free)

G_END_DECLS
