/* ks-nvrtc-private.h: what the files behind ks-nvrtc.h share: NVRTC's entry
 * points as loaded (ks-nvrtc-loader.c), the compile cache (ks-nvrtc-cache.c)
 * and the resource card's readers (ks-nvrtc-resources.c), which ks-nvrtc.c
 * puts together. */
#pragma once

#include <glib.h>

#include "ks-nvrtc.h"

G_BEGIN_DECLS

/* NVRTC's own types, declared here so that the engine builds without the
 * CUDA headers: nvrtcResult is an int enum, nvrtcProgram an opaque pointer. */
typedef int KsNvrtcResult;
typedef struct _KsNvrtcProgramImpl *KsNvrtcProgram;

enum
{
  KS_NVRTC_SUCCESS = 0,
  KS_NVRTC_ERROR_INVALID_OPTION = 5,
  KS_NVRTC_ERROR_COMPILATION = 6,
};

typedef struct
{
  void *handle;
  char *path;
  int major;
  int minor;
  GArray *archs; /* guint, ascending */

  const char *  (*GetErrorString)       (KsNvrtcResult result);
  KsNvrtcResult (*Version)              (int *major, int *minor);
  KsNvrtcResult (*GetNumSupportedArchs) (int *n);
  KsNvrtcResult (*GetSupportedArchs)    (int *archs);
  KsNvrtcResult (*CreateProgram)        (KsNvrtcProgram *program, const char *source,
                                         const char *name, int n_headers,
                                         const char *const *headers,
                                         const char *const *include_names);
  KsNvrtcResult (*AddNameExpression)    (KsNvrtcProgram program, const char *const expression);
  KsNvrtcResult (*CompileProgram)       (KsNvrtcProgram program, int n_options,
                                         const char *const *options);
  KsNvrtcResult (*GetProgramLogSize)    (KsNvrtcProgram program, size_t *size);
  KsNvrtcResult (*GetProgramLog)        (KsNvrtcProgram program, char *log);
  KsNvrtcResult (*GetCUBINSize)         (KsNvrtcProgram program, size_t *size);
  KsNvrtcResult (*GetCUBIN)             (KsNvrtcProgram program, char *cubin);
  KsNvrtcResult (*GetPTXSize)           (KsNvrtcProgram program, size_t *size);
  KsNvrtcResult (*GetPTX)               (KsNvrtcProgram program, char *ptx);
  KsNvrtcResult (*GetLoweredName)       (KsNvrtcProgram program, const char *const expression,
                                         const char **lowered_name);
  KsNvrtcResult (*DestroyProgram)       (KsNvrtcProgram *program);
} KsNvrtcApi;

/* ks-nvrtc-loader.c: the library, loaded on first use (KS_NVRTC_LIBRARY, then
 * the loader's path and the toolkits' folders); NULL with why it is missing. */
KsNvrtcApi      *_ks_nvrtc_get                    (GError **error);

/* ks-nvrtc-cache.c: the key of a request (hex SHA-256 of everything that
 * shapes the result, the compiler included); a copy of the result stored
 * under a key (cached = TRUE), or NULL; storing a copy, the oldest going. */
char            *_ks_nvrtc_request_key            (const KsCompileRequest *request,
                                                   const KsNvrtcApi *api);
KsCompileResult *_ks_nvrtc_cache_lookup           (const char *key);
void             _ks_nvrtc_cache_insert           (const char *key,
                                                   const KsCompileResult *result);

/* ks-nvrtc-resources.c: __launch_bounds__ as the PTX records it (0: none),
 * and the largest block the registers and the bounds allow. */
guint            _ks_nvrtc_launch_bounds_from_ptx (const char *ptx, const char *lowered_name);
guint            _ks_nvrtc_max_threads_for        (guint num_regs, guint launch_bounds);

G_END_DECLS
