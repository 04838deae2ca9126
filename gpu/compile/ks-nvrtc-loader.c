/* ks-nvrtc-loader.c: NVRTC loaded with dlopen on first use, its symbols
 * resolved into a KsNvrtcApi, its version and architectures asked once. */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "ks-error.h"
#include "ks-nvrtc-private.h"

/* Loaded once and never unloaded: the function pointers stay valid for
 * every thread that read them. A failure is remembered for the
 * KS_NVRTC_LIBRARY value it happened with, so that a corrected value is
 * tried again. */
static GMutex nvrtc_load_lock;
static KsNvrtcApi *nvrtc_api;
static char *nvrtc_failed_for;
static GError *nvrtc_failure;

#define KS_NVRTC_HOW_TO_GET \
  "user kernels need the CUDA 13 toolkit's runtime compiler (Debian/Ubuntu: the " \
  "cuda-nvrtc-13-0 package"

static const struct
{
  const char *name;
  gsize offset;
} nvrtc_symbols[] = {
  { "nvrtcGetErrorString", G_STRUCT_OFFSET (KsNvrtcApi, GetErrorString) },
  { "nvrtcVersion", G_STRUCT_OFFSET (KsNvrtcApi, Version) },
  { "nvrtcGetNumSupportedArchs", G_STRUCT_OFFSET (KsNvrtcApi, GetNumSupportedArchs) },
  { "nvrtcGetSupportedArchs", G_STRUCT_OFFSET (KsNvrtcApi, GetSupportedArchs) },
  { "nvrtcCreateProgram", G_STRUCT_OFFSET (KsNvrtcApi, CreateProgram) },
  { "nvrtcAddNameExpression", G_STRUCT_OFFSET (KsNvrtcApi, AddNameExpression) },
  { "nvrtcCompileProgram", G_STRUCT_OFFSET (KsNvrtcApi, CompileProgram) },
  { "nvrtcGetProgramLogSize", G_STRUCT_OFFSET (KsNvrtcApi, GetProgramLogSize) },
  { "nvrtcGetProgramLog", G_STRUCT_OFFSET (KsNvrtcApi, GetProgramLog) },
  { "nvrtcGetCUBINSize", G_STRUCT_OFFSET (KsNvrtcApi, GetCUBINSize) },
  { "nvrtcGetCUBIN", G_STRUCT_OFFSET (KsNvrtcApi, GetCUBIN) },
  { "nvrtcGetPTXSize", G_STRUCT_OFFSET (KsNvrtcApi, GetPTXSize) },
  { "nvrtcGetPTX", G_STRUCT_OFFSET (KsNvrtcApi, GetPTX) },
  { "nvrtcGetLoweredName", G_STRUCT_OFFSET (KsNvrtcApi, GetLoweredName) },
  { "nvrtcDestroyProgram", G_STRUCT_OFFSET (KsNvrtcApi, DestroyProgram) },
};

static void
nvrtc_api_free (KsNvrtcApi *api)
{
  if (api->handle != NULL)
    dlclose (api->handle);
  g_clear_pointer (&api->archs, g_array_unref);
  g_free (api->path);
  g_free (api);
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a;
  guint y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

/* Resolves the symbols of an opened library and asks its version and
 * architectures; takes the handle. */
static KsNvrtcApi *
nvrtc_api_new (void *handle, const char *path, GError **error)
{
  KsNvrtcApi *api = g_new0 (KsNvrtcApi, 1);
  int n_archs = 0;
  g_autofree int *archs = NULL;

  api->handle = handle;
  api->path = g_strdup (path);

  for (gsize i = 0; i < G_N_ELEMENTS (nvrtc_symbols); i++)
    {
      void *symbol = dlsym (handle, nvrtc_symbols[i].name);

      if (symbol == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "NVRTC at %s has no %s, so it is not the CUDA 13 runtime compiler: "
                       KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)",
                       path, nvrtc_symbols[i].name);
          nvrtc_api_free (api);
          return NULL;
        }
      /* POSIX makes a data pointer from dlsym valid as a function pointer;
       * memcpy avoids writing one type through a pointer to the other. */
      memcpy ((guint8 *) api + nvrtc_symbols[i].offset, &symbol, sizeof symbol);
    }

  if (api->Version (&api->major, &api->minor) != KS_NVRTC_SUCCESS
      || api->GetNumSupportedArchs (&n_archs) != KS_NVRTC_SUCCESS || n_archs <= 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "NVRTC at %s does not answer for its version and architectures: "
                   KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)", path);
      nvrtc_api_free (api);
      return NULL;
    }

  archs = g_new0 (int, n_archs);
  if (api->GetSupportedArchs (archs) != KS_NVRTC_SUCCESS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "NVRTC at %s does not list the architectures it compiles for: "
                   KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)", path);
      nvrtc_api_free (api);
      return NULL;
    }
  api->archs = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_archs);
  for (int i = 0; i < n_archs; i++)
    {
      guint arch = (guint) archs[i];

      g_array_append_val (api->archs, arch);
    }
  g_array_sort (api->archs, compare_guint);
  return api;
}

/* The candidates when KS_NVRTC_LIBRARY is not set: the loader's path first
 * (ldconfig or LD_LIBRARY_PATH), then where toolkits install themselves. */
static GPtrArray *
nvrtc_default_candidates (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *const roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"),
                                "/usr/local/cuda" };

  g_ptr_array_add (paths, g_strdup (KS_NVRTC_LIBRARY_NAME));
  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    if (roots[i] != NULL && roots[i][0] != '\0')
      g_ptr_array_add (paths, g_build_filename (roots[i], "lib64", KS_NVRTC_LIBRARY_NAME, NULL));
  return paths;
}

static KsNvrtcApi *
nvrtc_open (const char *wanted, GError **error)
{
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GString) looked = g_string_new (NULL);
  g_autofree char *first_reason = NULL;

  if (wanted != NULL)
    {
      paths = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (paths, g_strdup (wanted));
    }
  else
    paths = nvrtc_default_candidates ();

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      void *handle;

      /* RTLD_LOCAL: NVRTC's symbols must not interpose on anyone else's. */
      handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
      if (handle != NULL)
        return nvrtc_api_new (handle, path, error);

      if (first_reason == NULL)
        first_reason = g_strdup (dlerror ());
      if (i > 0)
        g_string_append (looked, ", ");
      g_string_append (looked, path);
    }

  if (wanted != NULL)
    g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                 "NVRTC could not be loaded from %s, the file KS_NVRTC_LIBRARY names (%s): "
                 KS_NVRTC_HOW_TO_GET "; set KS_NVRTC_LIBRARY to the path of its "
                 KS_NVRTC_LIBRARY_NAME ", or unset it)",
                 wanted, first_reason != NULL ? first_reason : "it could not be loaded");
  else
    g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                 "NVRTC (" KS_NVRTC_LIBRARY_NAME ") was not found (looked for %s): "
                 KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)",
                 looked->str);
  return NULL;
}

KsNvrtcApi *
_ks_nvrtc_get (GError **error)
{
  KsNvrtcApi *api = g_atomic_pointer_get (&nvrtc_api);
  const char *wanted;

  if (api != NULL)
    return api;

  g_mutex_lock (&nvrtc_load_lock);
  api = nvrtc_api;
  if (api == NULL)
    {
      wanted = g_getenv ("KS_NVRTC_LIBRARY");
      if (wanted != NULL && wanted[0] == '\0')
        wanted = NULL;

      if (nvrtc_failure != NULL && g_strcmp0 (nvrtc_failed_for, wanted) == 0)
        {
          if (error != NULL)
            *error = g_error_copy (nvrtc_failure);
        }
      else
        {
          g_autoptr(GError) local_error = NULL;

          api = nvrtc_open (wanted, &local_error);
          g_clear_error (&nvrtc_failure);
          g_clear_pointer (&nvrtc_failed_for, g_free);
          if (api != NULL)
            g_atomic_pointer_set (&nvrtc_api, api);
          else
            {
              nvrtc_failed_for = g_strdup (wanted);
              nvrtc_failure = g_error_copy (local_error);
              g_propagate_error (error, g_steal_pointer (&local_error));
            }
        }
    }
  g_mutex_unlock (&nvrtc_load_lock);
  return api;
}

gboolean
ks_nvrtc_load (GError **error)
{
  return _ks_nvrtc_get (error) != NULL;
}

int
ks_nvrtc_version (void)
{
  KsNvrtcApi *api = g_atomic_pointer_get (&nvrtc_api);

  /* CUDA's own convention: 13000 for 13.0, 12080 for 12.8. */
  return api != NULL ? api->major * 1000 + api->minor * 10 : 0;
}

GArray *
ks_nvrtc_supported_archs (GError **error)
{
  KsNvrtcApi *api = _ks_nvrtc_get (error);
  GArray *copy;

  if (api == NULL)
    return NULL;
  copy = g_array_sized_new (FALSE, FALSE, sizeof (guint), api->archs->len);
  g_array_append_vals (copy, api->archs->data, api->archs->len);
  return copy;
}
