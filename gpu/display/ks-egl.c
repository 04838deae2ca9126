/* A headless EGL + OpenGL context: see ks-egl.h. */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include "ks-egl.h"
#include "ks-error.h"
#include "ks-gl.h"

struct _KsEglContext
{
  EGLDisplay display;
  EGLContext context;
  EGLSurface surface;   /* EGL_NO_SURFACE, or a 1×1 pbuffer without surfaceless contexts */
  gboolean gles;
  char *description;
};

/* EGL displays are per process and per native display: two contexts on one
 * display share it, and eglTerminate would pull it from under the other. */
G_LOCK_DEFINE_STATIC (displays);
static GHashTable *display_users; /* EGLDisplay → number of contexts */

static void
display_ref (EGLDisplay display)
{
  G_LOCK (displays);
  if (display_users == NULL)
    display_users = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (display_users, display,
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (display_users,
                                                                                display)) + 1));
  G_UNLOCK (displays);
}

/* Terminates the display when nobody else holds it. */
static void
display_unref (EGLDisplay display)
{
  guint users;

  G_LOCK (displays);
  users = display_users != NULL
          ? GPOINTER_TO_UINT (g_hash_table_lookup (display_users, display)) : 0;
  if (users > 1)
    g_hash_table_insert (display_users, display, GUINT_TO_POINTER (users - 1));
  else if (display_users != NULL)
    g_hash_table_remove (display_users, display);
  G_UNLOCK (displays);
  if (users <= 1)
    eglTerminate (display);
}

static const char *
egl_error_name (EGLint err)
{
  switch (err)
    {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    case EGL_BAD_DEVICE_EXT: return "EGL_BAD_DEVICE_EXT";
    default: return "unknown EGL error";
    }
}

/* "eglInitialize failed with EGL_NOT_INITIALIZED (0x3001)" */
static char *
egl_failure (const char *call)
{
  EGLint err = eglGetError ();

  return g_strdup_printf ("%s failed with %s (0x%04x)", call, egl_error_name (err), (guint) err);
}

static gboolean
has_word (const char *list, const char *word)
{
  return list != NULL && epoxy_extension_in_string (list, word);
}

/* epoxy aborts the process when it cannot open a GL library; look first. The
 * names are the ones epoxy tries. */
static gboolean
library_loadable (const char *const *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      void *handle = dlopen (names[i], RTLD_LAZY | RTLD_LOCAL);

      if (handle != NULL)
        return TRUE; /* kept open: epoxy opens it again right away */
      (void) dlerror ();
    }
  return FALSE;
}

static const char *const desktop_gl_libs[] = { "libGL.so.1", "libOpenGL.so.0", NULL };
static const char *const gles_libs[] = { "libGLESv2.so.2", NULL };

typedef struct
{
  const char *name;        /* for messages */
  EGLenum api;
  EGLint renderable;
  const EGLint *attribs;   /* for eglCreateContext */
} ApiAttempt;

static const EGLint attribs_default[] = { EGL_NONE };
static const EGLint attribs_core33[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                         EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
static const EGLint attribs_es3[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };

/* Desktop GL first: its glReadPixels and texture formats are the simplest. A
 * compatibility context of the driver's highest version (NVIDIA: 4.6), then a
 * 3.3 core one for drivers whose default is older, then GLES 3. Every path
 * needs GL 3.0 / ES 3.0: pixel buffers, GL_R8, framebuffer objects,
 * GL_UNPACK_ROW_LENGTH. */
static const ApiAttempt api_attempts[] = {
  { "OpenGL", EGL_OPENGL_API, EGL_OPENGL_BIT, attribs_default },
  { "OpenGL 3.3 core", EGL_OPENGL_API, EGL_OPENGL_BIT, attribs_core33 },
  { "OpenGL ES 3", EGL_OPENGL_ES_API, EGL_OPENGL_ES3_BIT, attribs_es3 },
};

static gboolean
choose_config (EGLDisplay display, const ApiAttempt *attempt, gboolean need_pbuffer,
               EGLConfig *config)
{
  /* EGL_SURFACE_TYPE defaults to EGL_WINDOW_BIT, which a headless display may
   * not offer: ask for pbuffers (the fallback needs them), then for anything. */
  EGLint attribs[] = { EGL_RENDERABLE_TYPE, attempt->renderable, EGL_SURFACE_TYPE,
                       EGL_PBUFFER_BIT, EGL_NONE };
  EGLint n = 0;

  if (eglChooseConfig (display, attribs, config, 1, &n) && n > 0)
    return TRUE;
  (void) eglGetError ();
  if (need_pbuffer)
    return FALSE;
  attribs[3] = 0;
  if (eglChooseConfig (display, attribs, config, 1, &n) && n > 0)
    return TRUE;
  (void) eglGetError ();
  if (has_word (eglQueryString (display, EGL_EXTENSIONS), "EGL_KHR_no_config_context"))
    {
      *config = EGL_NO_CONFIG_KHR;
      return TRUE;
    }
  return FALSE;
}

/* Creates a context on an initialised display and makes it current; appends
 * why not to `why`. */
static gboolean
make_context (KsEglContext *self, const ApiAttempt *attempt, GString *why)
{
  const char *exts = eglQueryString (self->display, EGL_EXTENSIONS);
  const char *apis = eglQueryString (self->display, EGL_CLIENT_APIS);
  gboolean surfaceless = has_word (exts, "EGL_KHR_surfaceless_context");
  gboolean gles = attempt->api == EGL_OPENGL_ES_API;
  EGLConfig config = NULL;
  int version;

  if (!has_word (apis, gles ? "OpenGL_ES" : "OpenGL"))
    {
      g_string_append_printf (why, "; %s: not among the display's client APIs (%s)",
                              attempt->name, apis != NULL ? apis : "none");
      return FALSE;
    }
  if (!library_loadable (gles ? gles_libs : desktop_gl_libs))
    {
      g_string_append_printf (why, "; %s: %s cannot be loaded (install the glvnd loader %s)",
                              attempt->name,
                              gles ? "libGLESv2.so.2" : "libGL.so.1 or libOpenGL.so.0",
                              gles ? "libgles2" : "libopengl0 or libgl1");
      return FALSE;
    }
  if (!eglBindAPI (attempt->api))
    {
      g_autofree char *f = egl_failure ("eglBindAPI");
      g_string_append_printf (why, "; %s: %s", attempt->name, f);
      return FALSE;
    }
  if (!choose_config (self->display, attempt, !surfaceless, &config))
    {
      g_string_append_printf (why, "; %s: no EGL config%s", attempt->name,
                              surfaceless ? "" : " with pbuffers (and no surfaceless contexts)");
      return FALSE;
    }
  self->context = eglCreateContext (self->display, config, EGL_NO_CONTEXT, attempt->attribs);
  if (self->context == EGL_NO_CONTEXT)
    {
      g_autofree char *f = egl_failure ("eglCreateContext");
      g_string_append_printf (why, "; %s: %s", attempt->name, f);
      return FALSE;
    }
  if (!surfaceless)
    {
      const EGLint pbuffer_attribs[] = { EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE };

      self->surface = eglCreatePbufferSurface (self->display, config, pbuffer_attribs);
      if (self->surface == EGL_NO_SURFACE)
        {
          g_autofree char *f = egl_failure ("eglCreatePbufferSurface");
          g_string_append_printf (why, "; %s: %s", attempt->name, f);
          goto fail;
        }
    }
  if (!eglMakeCurrent (self->display, self->surface, self->surface, self->context))
    {
      g_autofree char *f = egl_failure ("eglMakeCurrent");
      g_string_append_printf (why, "; %s: %s", attempt->name, f);
      goto fail;
    }
  version = epoxy_gl_version ();
  if (version < 30)
    {
      g_string_append_printf (why, "; %s: version %s is older than 3.0", attempt->name,
                              (const char *) glGetString (GL_VERSION));
      eglMakeCurrent (self->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      goto fail;
    }
  self->gles = gles;
  return TRUE;

fail:
  if (self->surface != EGL_NO_SURFACE)
    eglDestroySurface (self->display, self->surface);
  eglDestroyContext (self->display, self->context);
  self->surface = EGL_NO_SURFACE;
  self->context = EGL_NO_CONTEXT;
  return FALSE;
}

/* Initialises `display` and makes a context on it; on failure the display is
 * released and `why` says what went wrong, prefixed with `platform`. */
static gboolean
try_display (KsEglContext *self, EGLDisplay display, const char *platform, GString *why)
{
  EGLint major = 0, minor = 0;
  g_autoptr (GString) reasons = g_string_new (NULL);

  if (display == EGL_NO_DISPLAY)
    {
      g_autofree char *f = egl_failure ("eglGetPlatformDisplay");
      g_string_append_printf (why, "%s%s: %s", why->len > 0 ? "; " : "", platform, f);
      return FALSE;
    }
  if (!eglInitialize (display, &major, &minor))
    {
      g_autofree char *f = egl_failure ("eglInitialize");
      g_string_append_printf (why, "%s%s: %s", why->len > 0 ? "; " : "", platform, f);
      return FALSE;
    }
  display_ref (display);
  self->display = display;
  for (guint i = 0; i < G_N_ELEMENTS (api_attempts); i++)
    if (make_context (self, &api_attempts[i], reasons))
      {
        const char *vendor = eglQueryString (display, EGL_VENDOR);

        /* GLES version strings say "OpenGL ES 3.2 …" themselves; desktop ones only "4.6.0 …". */
        self->description = g_strdup_printf ("%s, EGL %d.%d (%s), %s%s, renderer %s", platform,
                                             major, minor, vendor != NULL ? vendor : "unknown",
                                             self->gles ? "" : "OpenGL ",
                                             (const char *) glGetString (GL_VERSION),
                                             (const char *) glGetString (GL_RENDERER));
        return TRUE;
      }
  /* reasons starts with "; " */
  g_string_append_printf (why, "%s%s: no usable context (%s)", why->len > 0 ? "; " : "", platform,
                          reasons->str + 2);
  self->display = EGL_NO_DISPLAY;
  display_unref (display);
  return FALSE;
}

/* The EGL devices, with the CUDA device each one is (-1: not a CUDA device). */
static gboolean
try_devices (KsEglContext *self, int cuda_ordinal, GString *why, GString *seen)
{
  EGLint n = 0;
  g_autofree EGLDeviceEXT *devices = NULL;
  gboolean listed = eglQueryDevicesEXT (0, NULL, &n);

  if (!listed || n <= 0)
    {
      g_autofree char *f = listed ? g_strdup ("it lists no devices")
                                  : egl_failure ("eglQueryDevicesEXT");
      g_string_append_printf (why, "%sEGL device platform: %s", why->len > 0 ? "; " : "", f);
      return FALSE;
    }
  devices = g_new0 (EGLDeviceEXT, n);
  if (!eglQueryDevicesEXT (n, devices, &n))
    {
      g_autofree char *f = egl_failure ("eglQueryDevicesEXT");
      g_string_append_printf (why, "%sEGL device platform: %s", why->len > 0 ? "; " : "", f);
      return FALSE;
    }
  for (EGLint i = 0; i < n; i++)
    {
      const char *exts = eglQueryDeviceStringEXT (devices[i], EGL_EXTENSIONS);
      EGLAttrib cuda = -1;
      g_autofree char *name = NULL;
      g_autofree char *platform = NULL;

      if (has_word (exts, "EGL_NV_device_cuda")
          && !eglQueryDeviceAttribEXT (devices[i], EGL_CUDA_DEVICE_NV, &cuda))
        {
          (void) eglGetError ();
          cuda = -1;
        }
      if (cuda >= 0)
        name = g_strdup_printf ("EGL device %d, CUDA device %d", (int) i, (int) cuda);
      else if (has_word (exts, "EGL_MESA_device_software"))
        name = g_strdup_printf ("EGL device %d, Mesa software renderer", (int) i);
      else if (has_word (exts, "EGL_EXT_device_drm"))
        {
          const char *node = eglQueryDeviceStringEXT (devices[i], EGL_DRM_DEVICE_FILE_EXT);
          name = g_strdup_printf ("EGL device %d, %s, not a CUDA device", (int) i,
                                  node != NULL ? node : "DRM");
        }
      else
        name = g_strdup_printf ("EGL device %d, not a CUDA device", (int) i);
      (void) eglGetError ();
      g_string_append_printf (seen, "%s%s", seen->len > 0 ? "; " : "", name);

      if (cuda_ordinal >= 0 && cuda != cuda_ordinal)
        continue;
      platform = g_strdup_printf ("EGL device platform (%s)", name);
      if (try_display (self,
                       eglGetPlatformDisplayEXT (EGL_PLATFORM_DEVICE_EXT, devices[i], NULL),
                       platform, why))
        return TRUE;
    }
  return FALSE;
}

KsEglContext *
ks_egl_context_new (int cuda_ordinal, GError **error)
{
  g_autoptr (KsEglContext) self = g_new0 (KsEglContext, 1);
  g_autoptr (GString) why = g_string_new (NULL);
  g_autoptr (GString) seen = g_string_new (NULL);
  const char *client;
  gboolean device_platform;

  self->display = EGL_NO_DISPLAY;
  self->context = EGL_NO_CONTEXT;
  self->surface = EGL_NO_SURFACE;

  if (!epoxy_has_egl ())
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "No EGL: libEGL.so.1 cannot be loaded (install the glvnd EGL loader, "
                           "libegl1, and a vendor library: the NVIDIA driver's or Mesa's)");
      return NULL;
    }

  /* Client extensions (EGL_EXT_client_extensions); NULL on EGL 1.4 without them. */
  client = eglQueryString (EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (client == NULL)
    (void) eglGetError ();
  device_platform = has_word (client, "EGL_EXT_platform_base")
                    && has_word (client, "EGL_EXT_platform_device")
                    && (has_word (client, "EGL_EXT_device_enumeration")
                        || has_word (client, "EGL_EXT_device_base"));

  if (device_platform && try_devices (self, cuda_ordinal, why, seen))
    return g_steal_pointer (&self);

  if (cuda_ordinal >= 0)
    {
      /* Only a context on the CUDA device can share its memory: no fallback. */
      if (!device_platform)
        g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                     "No OpenGL context can be made on CUDA device %d without a window system: "
                     "EGL has no device platform (client extensions: %s). The NVIDIA EGL library "
                     "provides it; glvnd finds it through 10_nvidia.json in "
                     "/usr/share/glvnd/egl_vendor.d (or __EGL_VENDOR_LIBRARY_FILENAMES)",
                     cuda_ordinal, client != NULL ? client : "none");
      else if (why->len == 0)
        g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                     "No OpenGL context can be made on CUDA device %d without a window system: "
                     "no EGL device is that CUDA device (EGL_NV_device_cuda). EGL devices: %s. "
                     "Is the NVIDIA EGL library installed and listed in "
                     "/usr/share/glvnd/egl_vendor.d (10_nvidia.json)?",
                     cuda_ordinal, seen->len > 0 ? seen->str : "none");
      else
        g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                     "No OpenGL context can be made on CUDA device %d without a window system: %s",
                     cuda_ordinal, why->str);
      return NULL;
    }

  if (has_word (client, "EGL_EXT_platform_base")
      && has_word (client, "EGL_MESA_platform_surfaceless")
      && try_display (self,
                      eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                                NULL),
                      "Mesa surfaceless platform", why))
    return g_steal_pointer (&self);

  if (try_display (self, eglGetDisplay (EGL_DEFAULT_DISPLAY), "EGL default display", why))
    return g_steal_pointer (&self);

  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
               "No headless OpenGL context could be made through EGL: %s", why->str);
  return NULL;
}

void
ks_egl_context_free (KsEglContext *self)
{
  if (self == NULL)
    return;
  if (self->display != EGL_NO_DISPLAY)
    {
      if (self->context != EGL_NO_CONTEXT && eglGetCurrentContext () == self->context)
        eglMakeCurrent (self->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (self->surface != EGL_NO_SURFACE)
        eglDestroySurface (self->display, self->surface);
      if (self->context != EGL_NO_CONTEXT)
        eglDestroyContext (self->display, self->context);
      display_unref (self->display);
      eglReleaseThread ();
    }
  g_free (self->description);
  g_free (self);
}

gboolean
ks_egl_context_make_current (KsEglContext *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!eglMakeCurrent (self->display, self->surface, self->surface, self->context))
    {
      g_autofree char *f = egl_failure ("eglMakeCurrent");
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "The OpenGL context cannot be made current: %s", f);
      return FALSE;
    }
  return TRUE;
}

const char *
ks_egl_context_describe (KsEglContext *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->description;
}

gboolean
ks_egl_context_is_gles (KsEglContext *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->gles;
}

KsImage *
ks_egl_read_texture (guint texture, KsFormat format, guint width, guint height, GError **error)
{
  g_autoptr (KsImage) image = NULL;
  g_autofree guint8 *rgba = NULL;

  g_return_val_if_fail (texture != 0, NULL);

  image = ks_image_new (format, width, height, error);
  if (image == NULL)
    return NULL;
  rgba = g_malloc ((gsize) width * height * 4);
  if (!ks_gl_read_texture_rgba (texture, width, height, rgba, error))
    return NULL;

  /* Row 0 of a texture is row 0 of the image: glTexSubImage2D stored it there,
   * and glReadPixels returns it first. A GL_R8 texture's red is its value. */
  for (guint y = 0; y < height; y++)
    {
      const guint8 *src = rgba + (gsize) y * width * 4;
      guint8 *dst = ks_image_row (image, y);

      if (format == KS_FORMAT_RGBA8)
        memcpy (dst, src, (gsize) width * 4);
      else
        for (guint x = 0; x < width; x++)
          dst[x] = src[x * 4];
    }
  return g_steal_pointer (&image);
}
