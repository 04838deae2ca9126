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
 *    values; both may be of CUDA's vector types, complex types or structs
 *    the text declares (ks-value-type.h).
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
 *
 * Headers: the C and C++ standard headers a kernel may include (stdio.h,
 * math.h, cmath, stdint.h, assert.h, limits.h, float.h, …) and CUDA's
 * (cuda_runtime.h, math_constants.h, cuComplex.h, …) are served by
 * Kernelscope (kernels/standin/); the CUDA toolkit's device headers
 * (cuda_fp16.h, curand_kernel.h, cooperative_groups.h, mma.h, cuda/std/…,
 * cub, thrust) are the toolkit's own, where it is installed: the compiler
 * reads them from its include folders. The user's own headers are read
 * from the source's folder and the include folders (KsKernelSourceOptions)
 * when the source is made, so that a source is one snapshot: what compiles
 * is what was read, and a changed header makes another source.
 */
#pragma once

#include <glib.h>

#include "ks-image.h"
#include "ks-launch.h"
#include "ks-nvrtc.h"
#include "ks-op.h"
#include "ks-value-type.h"

G_BEGIN_DECLS

typedef enum
{
  KS_KERNEL_MODE_EXPRESSION,
  KS_KERNEL_MODE_IMAGE,
  KS_KERNEL_MODE_ANY,
} KsKernelMode;

const char   *ks_kernel_mode_name       (KsKernelMode mode);   /* "expression", "image", "any" */
gboolean      ks_kernel_mode_parse      (const char *name, KsKernelMode *mode);


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
  KsElemType type;     /* the pointee for pointers, the value type otherwise; a
                        * vector's or a complex number's components; KS_ELEM_OTHER
                        * for a struct and for types that cannot be bound */
  gboolean pointer;
  gboolean is_const;   /* const pointee: the kernel only reads it */
  guint line;          /* where it is declared, in the user's text */
  guint column;
  /* A vector, complex or struct type (of the pointee for pointers), with
   * its layout; NULL for the ten scalars and for types that cannot be bound. */
  KsValueType *value;
  /* Why the type cannot be bound, when the source says ("its member u is
   * a union"); NULL otherwise. */
  char *type_problem;
} KsKernelArg;

KsKernelArg  *ks_kernel_arg_copy        (const KsKernelArg *arg);
void          ks_kernel_arg_free        (KsKernelArg *arg);
/* The bytes and the alignment the argument takes as a parameter (a
 * pointer: 8); 0 for a type that cannot be bound. */
gsize         ks_kernel_arg_get_size    (const KsKernelArg *arg);
gsize         ks_kernel_arg_get_align   (const KsKernelArg *arg);
/* The type (the pointee's for a pointer) by name, for messages: "float3",
 * "Particle", "f32". */
const char   *ks_kernel_arg_get_type_name (const KsKernelArg *arg);

typedef struct _KsKernelSource KsKernelSource;

/* Reads the user's text: annotations, and for the image and any modes the
 * entry point's signature. Never fails: problems become diagnostics at their
 * line (ks_kernel_source_get_diagnostics); a source with errors among them
 * cannot be compiled. file_name names the text in messages ("kernel.cu"). */
KsKernelSource *ks_kernel_source_new    (KsKernelMode mode, const char *file_name,
                                         const char *text);
/* A header of the user's, as the text includes it. */
typedef struct
{
  char *name;      /* as the #include spells it: "helper.cuh", "util/math.cuh" */
  char *path;      /* where it was read, as messages name it: "inc/helper.cuh" */
  char *contents;  /* as the compiler gets it: `#line 1 "PATH"`, then the file's text */
} KsKernelHeader;

KsKernelHeader *ks_kernel_header_new    (const char *name, const char *path,
                                         const char *contents);
void          ks_kernel_header_free     (KsKernelHeader *header);

/* Where a source's headers come from and which kernel runs (all optional). */
typedef struct
{
  /* The entry to run, as //@kernel names it ("add", "scale<float>"), in
   * place of the text's //@kernel; NULL: the annotation's, or the only
   * __global__ function. */
  const char *kernel;
  /* The text's own folder: #include "…" looks here first. NULL: the text
   * is from no file. */
  const char *source_dir;
  /* Searched in order after source_dir, by #include "…" and by #include <…>
   * for what Kernelscope does not serve (PyCUDA's include_dirs). */
  const char *const *include_dirs;
  /* KsKernelHeader: headers read before (the worker's copy of a source);
   * used as they are, and nothing is read from disk. NULL: the includes
   * are read from the folders. */
  const GPtrArray *headers;
} KsKernelSourceOptions;

/* ks_kernel_source_new with options (NULL: none, and nothing is read from
 * disk: ks_kernel_source_new). Reading the includes never fails either: a
 * header that cannot be read is a diagnostic at its #include, and one that
 * is in no folder is reported by the compiler, with the folders searched. */
KsKernelSource *ks_kernel_source_new_full (KsKernelMode mode, const char *file_name,
                                           const char *text,
                                           const KsKernelSourceOptions *options);
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
/* Every __global__ function of the text, by name, in order (template
 * kernels by their name alone); NULL-terminated, empty for expressions. */
const char *const *ks_kernel_source_get_kernels (const KsKernelSource *source);
/* The options the source was made with: the kernel asked for (or NULL),
 * the text's folder (or NULL), the include folders (never NULL). */
const char   *ks_kernel_source_get_kernel_option (const KsKernelSource *source);
const char   *ks_kernel_source_get_source_dir (const KsKernelSource *source);
const char *const *ks_kernel_source_get_include_dirs (const KsKernelSource *source);
/* KsKernelHeader: the user's headers the text includes, in the order they
 * were found (an include's own includes after it). */
const GPtrArray *ks_kernel_source_get_headers (const KsKernelSource *source);
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
 * headers are Kernelscope's own (kernels/ks-user.cuh and what it includes,
 * the stand-ins for the standard headers) and the user's, to be passed to
 * ks_nvrtc_compile. */
typedef struct
{
  char *source;
  char *entry;        /* name expression: "add", "ks_expression_kernel<4, 1, false>" */
  KsCompileHeader *headers;  /* owned array; the names and contents are the
                              * bundle's and the source's: use it while the
                              * source lives */
  guint n_headers;
  /* NULL-terminated, owned: the request's extra_options. -default-device:
   * NVRTC refuses functions without an execution space, and the shared
   * headers hold host helpers (kernels/ks-geometry.cuh); the user's own
   * helpers need no __device__ either. Then -I for each of the CUDA
   * toolkit's include folders, searched after the headers given by name. */
  char **extra_options;
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

/* After a compilation of the any mode, whether the compiler laid out the
 * arguments' types as Kernelscope reads them from the source: every struct
 * an argument uses (its size, alignment and field offsets, from the tables
 * build_unit adds after the user's text), and each argument's bytes and
 * alignment as the entry's PTX declares its parameter. A mismatch is
 * KS_ERROR_INVALID_ARGUMENT naming the argument; a result without PTX, or
 * another mode, passes. */
gboolean      ks_kernel_source_check_layout (const KsKernelSource *source,
                                             const KsCompileResult *compiled, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsKernelSource, ks_kernel_source_unref)

G_END_DECLS
