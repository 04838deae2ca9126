/* ks-egl.h: a headless OpenGL context through EGL, with no window system, for
 * the interop tests and the display benchmark (the GUI uses GtkGLArea's).
 *
 * Where a CUDA device is asked for, only the EGL device platform will do: the
 * context must render on that GPU, which EGL_NV_device_cuda tells. Otherwise
 * any headless context: the device platform, Mesa's surfaceless platform, or
 * the default display. Desktop OpenGL (3.0 or later) is preferred, OpenGL ES 3
 * taken where it is all there is. No surface: the context is made current with
 * EGL_NO_SURFACE (EGL_KHR_surfaceless_context), a 1×1 pbuffer where that
 * extension is missing. */
#pragma once

#include <glib.h>

#include "ks-image.h"

G_BEGIN_DECLS

typedef struct _KsEglContext KsEglContext;

/* cuda_ordinal: the CUDA device the context must render on, or -1 for any.
 * The new context is current on the calling thread. Fails with
 * KS_ERROR_UNAVAILABLE and the reason (no libEGL, no EGL device for that CUDA
 * device, no OpenGL, …). */
KsEglContext *ks_egl_context_new          (int cuda_ordinal, GError **error);
/* Releases the context (and the display, when no other context uses it). */
void          ks_egl_context_free         (KsEglContext *self);
gboolean      ks_egl_context_make_current (KsEglContext *self, GError **error);
/* "EGL device platform (EGL device 0, CUDA device 0), OpenGL 4.6.0 NVIDIA …,
 * renderer NVIDIA H200/PCIe/SSE2" */
const char   *ks_egl_context_describe     (KsEglContext *self);
/* TRUE for an OpenGL ES context, FALSE for desktop OpenGL. */
gboolean      ks_egl_context_is_gles      (KsEglContext *self);

/* Reads a GL_RGBA8 (format RGBA8) or GL_R8 (format GRAY8) texture of the
 * current context back to the host through a framebuffer object, rows packed
 * (GL_PACK_ALIGNMENT 1). Works on desktop GL and on GLES 3. */
KsImage      *ks_egl_read_texture         (guint texture, KsFormat format, guint width,
                                           guint height, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsEglContext, ks_egl_context_free)

G_END_DECLS
