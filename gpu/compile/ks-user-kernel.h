/* ks-user-kernel.h: kernels the user writes, as source.
 *
 * Three modes:
 *  - expression: statements over one pixel, wrapped by Kernelscope into a
 *    bounds-checked kernel that walks the image like a built-in op (one pass
 *    per pixel or grid-stride, pixels per thread, coverage);
 *  - image: a whole __global__ function with the documented image signature
 *    (kernels/ks-user.cuh): (ks_image out, ks_image in[, ks_image in2][, ks_params p]);
 *  - any: a __global__ function with any signature (PyCUDA's SourceModule);
 *    its pointer arguments are bound to arrays (ks-array.h), its scalars to
 *    values.
 *
 * Annotations in comments declare parameters and defaults, one per line:
 *
 *   //@param float gain 1.0 [0, 4] "Gain"      a slider (float or int)
 *   //@param int radius 2 [1, 8] "Radius"
 *   //@param bool flip false "Flip"             a switch
 *   //@kernel add                               the entry point, when several
 *   //@inputs 2                                 expression and image modes
 *   //@output gray                              rgba (default) or gray
 *   //@block 16x16                              the default launch
 *   //@grid 8x8                                 (auto when absent)
 *   //@mode grid-stride                         per-pixel (default) or grid-stride
 *   //@pixels-per-thread 4                      expression mode: 1, 2, 4, 8, 16
 *   //@shared 4096                              dynamic shared memory per block, bytes
 *
 * Parameters reach the code as `p.NAME` in image kernels (a struct ks_params
 * generated from the annotations) and as plain names in expressions.
 */
#pragma once

#include <glib.h>

#include "ks-image.h"
#include "ks-launch.h"
#include "ks-nvrtc.h"
#include "ks-op.h"

G_BEGIN_DECLS

typedef enum
{
  KS_KERNEL_MODE_EXPRESSION,
  KS_KERNEL_MODE_IMAGE,
  KS_KERNEL_MODE_ANY,
} KsKernelMode;

const char   *ks_kernel_mode_name       (KsKernelMode mode);   /* "expression", "image", "any" */
gboolean      ks_kernel_mode_parse      (const char *name, KsKernelMode *mode);

/* Element types of kernel arguments and arrays. */
typedef enum
{
  KS_ELEM_INT8,
  KS_ELEM_UINT8,
  KS_ELEM_INT16,
  KS_ELEM_UINT16,
  KS_ELEM_INT32,
  KS_ELEM_UINT32,
  KS_ELEM_INT64,
  KS_ELEM_UINT64,
  KS_ELEM_FLOAT32,
  KS_ELEM_FLOAT64,
  KS_ELEM_OTHER,     /* a type Kernelscope cannot bind (a struct, a vector type) */
} KsElemType;

gsize         ks_elem_type_size         (KsElemType type);
/* The C spelling: "float", "unsigned int", "long long". */
const char   *ks_elem_type_c_name       (KsElemType type);
/* The short name used on the command line and in files: "f32", "u32", "i8". */
const char   *ks_elem_type_short_name   (KsElemType type);
/* A C type as written in a signature ("unsigned", "const float", "uint32_t",
 * "unsigned char", "size_t", "double") or a short name ("f32"). */
gboolean      ks_elem_type_parse        (const char *text, KsElemType *type);
gboolean      ks_elem_type_is_float     (KsElemType type);
gboolean      ks_elem_type_is_signed    (KsElemType type);

/* One argument of an entry point, as its signature declares it. */
typedef struct
{
  char *name;          /* "result" */
  char *type_text;     /* as written, normalised spaces: "const float *" */
  KsElemType type;     /* the pointee for pointers, the value type otherwise */
  gboolean pointer;
  gboolean is_const;   /* const pointee: the kernel only reads it */
  guint line;          /* where it is declared, in the user's text */
  guint column;
} KsKernelArg;

void          ks_kernel_arg_free        (KsKernelArg *arg);

typedef struct _KsKernelSource KsKernelSource;

/* Reads the user's text: annotations, and for the image and any modes the
 * entry point's signature. Never fails: problems become diagnostics at their
 * line (ks_kernel_source_get_diagnostics); a source with errors among them
 * cannot be compiled. file_name names the text in messages ("kernel.cu"). */
KsKernelSource *ks_kernel_source_new    (KsKernelMode mode, const char *file_name,
                                         const char *text);
KsKernelSource *ks_kernel_source_ref    (KsKernelSource *source);
void          ks_kernel_source_unref    (KsKernelSource *source);

KsKernelMode  ks_kernel_source_get_mode (const KsKernelSource *source);
const char   *ks_kernel_source_get_text (const KsKernelSource *source);
const char   *ks_kernel_source_get_file_name (const KsKernelSource *source);
/* KsDiagnostic: Kernelscope's own findings (annotations, signature). */
const GPtrArray *ks_kernel_source_get_diagnostics (const KsKernelSource *source);
gboolean      ks_kernel_source_has_errors (const KsKernelSource *source);

/* The entry point's name as written ("add"); expression mode: NULL. */
const char   *ks_kernel_source_get_entry (const KsKernelSource *source);
/* KsKernelArg in order (image and any modes; empty for expressions). */
const GPtrArray *ks_kernel_source_get_args (const KsKernelSource *source);

/* The declared parameters as an op's (names, titles, ranges, defaults), so
 * that the window shows them with the same widgets. At most KS_OP_MAX_PARAMS. */
const KsParamSpec *ks_kernel_source_get_params (const KsKernelSource *source, guint *n_params);
/* A KsOp that carries only what ks_params_init, ks_params_set,
 * ks_params_parse_assignment, ks_params_validate, ks_params_get and
 * ks_op_lookup_param read (id: the file name, params, n_params, inputs,
 * output format, default launch), so that values for the source's
 * parameters are set and checked like an op's. It borrows the source's
 * specs: use it while the source lives. Not for the op registry's other
 * functions (it has no engine implementation). */
void          ks_kernel_source_init_params_op (const KsKernelSource *source, KsOp *op);
guint         ks_kernel_source_get_n_inputs (const KsKernelSource *source);  /* 1 or 2 */
KsFormat      ks_kernel_source_get_output_format (const KsKernelSource *source);
/* The launch the annotations ask for (KS_LAUNCH_PER_PIXEL, 16×16, auto grid,
 * one pixel per thread where they say nothing). */
void          ks_kernel_source_get_default_launch (const KsKernelSource *source,
                                                   KsLaunchConfig *launch);
/* The largest dynamic shared memory any supported device grants a block
 * (sm_90: 227 KB), for //@shared and what overrides it; the launch checks
 * the device's own limit. */
#define KS_USER_MAX_SHARED (227u * 1024u)
guint64       ks_kernel_source_get_dynamic_shared (const KsKernelSource *source);

/* What is compiled: the translation unit (prelude, the generated ks_params,
 * `#line 1 "FILE"`, the user's text, and the expression's wrapper) and the
 * entry to lower. For expressions the entry depends on the launch's mapping,
 * pixels per thread and instrumentation (one instantiation each). The
 * headers are Kernelscope's own (kernels/ks-user.cuh and what it includes),
 * to be passed to ks_nvrtc_compile. */
typedef struct
{
  char *source;
  char *entry;        /* name expression: "add", "ks_expression_kernel<4, 1, false>" */
  const KsCompileHeader *headers; /* static */
  guint n_headers;
  /* NULL-terminated, static: the request's extra_options. -default-device:
   * NVRTC refuses functions without an execution space, and the shared
   * headers hold host helpers (kernels/ks-geometry.cuh); the user's own
   * helpers need no __device__ either. */
  const char *const *extra_options;
} KsKernelUnit;

void          ks_kernel_unit_clear      (KsKernelUnit *unit);
gboolean      ks_kernel_source_build_unit (const KsKernelSource *source,
                                           const KsLaunchConfig *resolved_launch,
                                           gboolean instrumented,
                                           KsKernelUnit *unit, GError **error);

/* The kernel parameters' bytes as the generated struct ks_params lays them
 * out, from values in KsParams (NULL: the defaults): members in declaration
 * order, float as float, int as a 32-bit int, bool as one byte (0 or 1),
 * each at its natural alignment; the struct itself is aligned to 8 bytes
 * and its size is a multiple of 8. Without parameters the struct holds one
 * unused byte: 8 zero bytes. */
GBytes       *ks_kernel_source_pack_params (const KsKernelSource *source, const KsParams *params);

/* Compiles for sm_<arch> through NVRTC: build_unit + ks_nvrtc_compile, with
 * the source's own diagnostics first in the result. */
KsCompileResult *ks_kernel_source_compile (const KsKernelSource *source,
                                           const KsLaunchConfig *resolved_launch,
                                           gboolean instrumented, guint arch,
                                           GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsKernelSource, ks_kernel_source_unref)

G_END_DECLS
