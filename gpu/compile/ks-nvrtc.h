/* ks-nvrtc.h: run-time compilation of CUDA C with NVRTC.
 *
 * NVRTC is loaded with dlopen on first use, so Kernelscope starts where it is
 * missing; it needs no GPU: code is compiled for an explicit architecture. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The library loaded unless KS_NVRTC_LIBRARY names another file. */
#define KS_NVRTC_LIBRARY_NAME "libnvrtc.so.13"

typedef enum
{
  KS_DIAGNOSTIC_ERROR,
  KS_DIAGNOSTIC_WARNING,
  KS_DIAGNOSTIC_NOTE,
} KsDiagnosticSeverity;

/* One message of the compiler (or of Kernelscope's own checks of the
 * source), placed at the user's line: the prelude Kernelscope adds before the
 * user's text is hidden behind `#line`. */
typedef struct
{
  KsDiagnosticSeverity severity;
  char *file;     /* the file the line belongs to, as #line named it ("invert.cu") */
  guint line;     /* 1-based; 0 when the message names no line */
  guint column;   /* 1-based, in characters of the line (a tab is one); 0 when unknown */
  char *code;     /* NVRTC's number ("177-D"), or NULL */
  char *message;  /* "identifier \"foo\" is undefined" */
} KsDiagnostic;

KsDiagnostic *ks_diagnostic_new         (KsDiagnosticSeverity severity, const char *file,
                                         guint line, guint column, const char *message);
KsDiagnostic *ks_diagnostic_copy        (const KsDiagnostic *diagnostic);
void          ks_diagnostic_free        (KsDiagnostic *diagnostic);
const char   *ks_diagnostic_severity_name (KsDiagnosticSeverity severity); /* "error" */
/* "FILE:LINE:COL: error: MESSAGE" (LINE and COL left out when unknown), the
 * form editors jump to. */
char         *ks_diagnostic_format      (const KsDiagnostic *diagnostic);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsDiagnostic, ks_diagnostic_free)

/* What the compiler reports for one entry point (the resource card). */
typedef struct
{
  char *name;            /* as asked for: "add", "ks_expression<4, 1, false>" */
  char *lowered_name;    /* the symbol in the cubin: "_Z3addPfS_S_i" */
  guint arch;            /* 90 for sm_90 */
  guint num_regs;        /* per thread */
  guint64 shared_static; /* bytes per block (__shared__ arrays) */
  guint64 local_bytes;   /* stack frame per thread */
  guint64 spill_stores;  /* bytes */
  guint64 spill_loads;   /* bytes */
  guint64 const_bytes;   /* cmem[0] */
  guint barriers;
  guint launch_bounds;   /* __launch_bounds__'s maximum threads per block; 0 when not given */
  /* The most threads a block may have: the launch bounds, 1024, and what the
   * registers allow with 65536 registers per block, allocated per warp in
   * units of 256, the block's warps counted in fours (one per SM
   * sub-partition), as on sm_75 and newer: 96 registers allow 640 threads. */
  guint max_threads_per_block;
} KsKernelResources;

void          ks_kernel_resources_free  (KsKernelResources *resources);
KsKernelResources *ks_kernel_resources_copy (const KsKernelResources *resources);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsKernelResources, ks_kernel_resources_free)

/* A header the source may #include by name, given as text. */
typedef struct
{
  const char *name;      /* "ks-user.cuh" */
  const char *contents;
} KsCompileHeader;

typedef struct
{
  const char *source;                  /* the whole translation unit */
  const char *program_name;            /* NVRTC's name for it; messages outside #line use it */
  guint arch;                          /* sm_<arch>: 75 … 90, and what newer NVRTC knows */
  const char *const *entries;          /* NULL-terminated name expressions to keep and lower */
  const KsCompileHeader *headers;
  guint n_headers;
  const char *const *extra_options;    /* NULL-terminated, passed after Kernelscope's own */
} KsCompileRequest;

typedef struct
{
  gboolean success;        /* compiled: cubin is set */
  GBytes *cubin;
  char *ptx;               /* the PTX NVRTC produced on the way (with .loc lines), which
                            * the CPU engine runs (ks-emu.h); NULL when there is none */
  char *log;               /* NVRTC's log as it printed it (with ptxas' lines) */
  GPtrArray *diagnostics;  /* KsDiagnostic, in the log's order: errors, warnings, notes */
  GPtrArray *kernels;      /* KsKernelResources, one per entry, in the request's order;
                            * empty when the source did not compile */
  double compile_ms;       /* wall time of nvrtcCompileProgram and the cubin's retrieval */
  gboolean cached;         /* served from the compile cache */
} KsCompileResult;

void          ks_compile_result_free    (KsCompileResult *result);
guint         ks_compile_result_count   (const KsCompileResult *result,
                                         KsDiagnosticSeverity severity);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsCompileResult, ks_compile_result_free)

/* Loads NVRTC once: the file KS_NVRTC_LIBRARY names (only that one, when
 * set), else KS_NVRTC_LIBRARY_NAME through the loader's path, then under
 * $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (lib64/). FALSE with
 * KS_ERROR_UNAVAILABLE and a message saying what is missing and how to get it
 * (the CUDA toolkit's NVRTC package); a failure is tried again when
 * KS_NVRTC_LIBRARY changes. */
gboolean      ks_nvrtc_load             (GError **error);
/* NVRTC's version as 13000 for 13.0 (after a successful load), 0 otherwise. */
int           ks_nvrtc_version          (void);
/* The architectures this NVRTC can compile for, ascending (75, 80, …), as guint. */
GArray       *ks_nvrtc_supported_archs  (GError **error);

/* Compiles. A source that does not compile is a result with success FALSE and
 * its diagnostics, not an error; NULL (with *error) only when NVRTC could
 * not be used at all (KS_ERROR_UNAVAILABLE) or the request is invalid
 * (KS_ERROR_INVALID_ARGUMENT: an architecture NVRTC does not know, an
 * option it refuses). Diagnostics without a file get program_name's
 * ("kernel.cu" when it is NULL). Results are cached in memory
 * by everything that shapes them (source, headers, arch, entries, options),
 * so recompiling an unchanged source returns at once with cached = TRUE.
 * Thread-safe. */
KsCompileResult *ks_nvrtc_compile       (const KsCompileRequest *request, GError **error);
void          ks_nvrtc_clear_cache      (void);

/* Parses NVRTC's log ("file(12): error: …" with the source line and caret
 * after it) into KsDiagnostic, exposed for tests. */
GPtrArray    *ks_nvrtc_parse_log        (const char *log);
/* Parses ptxas' verbose lines in the log for the entry whose symbol is
 * lowered_name into the registers, barriers, shared, local, spill and
 * constant fields (zeroed first; the others are left alone); FALSE when the
 * lines are absent. */
gboolean      ks_nvrtc_parse_resources  (const char *log, const char *lowered_name,
                                         KsKernelResources *resources);

G_END_DECLS
