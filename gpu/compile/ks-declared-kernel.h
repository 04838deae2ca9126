/* ks-declared-kernel.h: kernels declared rather than written, in the
 * declaration language of PyCUDA's ElementwiseKernel, ReductionKernel and
 * InclusiveScanKernel/ExclusiveScanKernel, turned into the CUDA source of
 * an "any" kernel (ks-user-kernel.h). Everything after the generation — the
 * compile, the bindings, the run, the CPU engine's findings, the window —
 * is the "any" kernel's path; the generated text is the source the user
 * can read (and what the window's editor shows).
 *
 * The declaration, as PyCUDA spells it:
 *
 *   element-wise  arguments "float a, float *x, float *y, float *z"
 *                 operation "z[i] = a*x[i] + y[i]"
 *     the operation runs once for every i < n, in a grid-stride loop, so
 *     any grid covers all n; n (unsigned long) is added to the arguments
 *     and is the arrays' length unless bound otherwise;
 *   reduction     dtype_out "float", neutral "0", reduce_expr "a+b",
 *                 map_expr "x[i]*y[i]", arguments "float *x, float *y"
 *     map_expr of every i < n combined by reduce_expr (a function of a and
 *     b, associative and commutative) starting from neutral; the result is
 *     written to result[0], an added `dtype_out *result` argument. One
 *     launch: each block reduces its share of the elements in shared
 *     memory, and the block that finishes last (a ticket counter taken
 *     after a __threadfence) reduces the blocks' partial results. The order
 *     of the combining depends only on the launch's shape, so a float
 *     reduction gives the same bits on every run of the same launch. At
 *     most KS_DECLARED_MAX_BLOCKS blocks take part; those beyond it return
 *     at once and the others stride over their elements;
 *   scans         dtype "int", scan_expr "a+b", neutral "0" (the exclusive
 *                 scan only)
 *     x[i] becomes x[0] ⊕ … ⊕ x[i] (inclusive) or neutral ⊕ x[0] ⊕ … ⊕
 *     x[i-1] (exclusive), ⊕ being scan_expr (associative; it need not
 *     commute): in place over `dtype *x`, or out of place from `const
 *     dtype *x` into `dtype *y`. One block scans the whole array, a block
 *     of elements at a time, carrying the total of those before into the
 *     next; the other blocks of a bigger grid return at once. Right for
 *     any n, but one block's pace: meant for teaching sizes.
 *
 * Arguments are scalars and pointers of the element types ks-array.h binds
 * (char … long long and their unsigned forms, int8_t … uint64_t, size_t,
 * float, double), optionally const and __restrict__. The optional preamble
 * holds helper functions, placed before the kernel. The names i, n, result
 * (reductions) and anything starting with ks_ belong to the generated code.
 *
 * Every piece of the user's text is pasted behind a `#line 1 "PIECE"`, so
 * that a compile error in it names the piece, its line and column:
 * "operation:1:14: error: identifier "w" is undefined". The pieces are
 * named arguments, operation, map_expr, reduce_expr, scan_expr, neutral and
 * preamble. Problems found before compiling (a syntax error in the
 * arguments, an unknown type, a reserved name) are reported the same way. */
#pragma once

#include <glib.h>

#include "ks-nvrtc.h"
#include "ks-user-kernel.h"

G_BEGIN_DECLS

/* The most blocks a generated reduction combines (its partial results live
 * in a __device__ array of this many elements). */
#define KS_DECLARED_MAX_BLOCKS 1024

typedef enum
{
  KS_DECLARED_ELEMENTWISE,
  KS_DECLARED_REDUCTION,
  KS_DECLARED_INCLUSIVE_SCAN,
  KS_DECLARED_EXCLUSIVE_SCAN,
} KsDeclaredKind;

/* "elementwise", "reduction", "inclusive-scan", "exclusive-scan". */
const char   *ks_declared_kind_name      (KsDeclaredKind kind);
gboolean      ks_declared_kind_parse     (const char *name, KsDeclaredKind *kind);

typedef struct
{
  KsDeclaredKind kind;
  const char *name;          /* the kernel's; NULL or "": after the kind ("elementwise") */
  const char *arguments;     /* element-wise and reduction */
  const char *operation;     /* element-wise */
  const char *map_expr;      /* reduction */
  const char *reduce_expr;   /* reduction: "a+b"; scans: the scan_expr */
  const char *neutral;       /* reduction and exclusive scan */
  const char *dtype;         /* reduction: dtype_out; scans: the elements' type ("float", "f32") */
  const char *preamble;      /* helpers placed before the kernel; may be NULL */
  gboolean out_of_place;     /* scans: from x into y instead of x in place */
} KsDeclaration;

/* The argument a reduction writes its result to. */
#define KS_DECLARED_RESULT "result"
/* The length argument every declared kernel takes. */
#define KS_DECLARED_LENGTH "n"

/* The generated CUDA source. A problem of the declaration's own: NULL, and
 * KS_ERROR_INVALID_ARGUMENT with the message "PIECE:LINE:COL: error: …";
 * *diagnostic (when not NULL) gets the same as a KsDiagnostic. */
char         *ks_declaration_generate_text (const KsDeclaration *declaration,
                                            KsDiagnostic **diagnostic, GError **error);
/* The generated source as an "any" kernel named NAME.cu. */
KsKernelSource *ks_declaration_generate  (const KsDeclaration *declaration,
                                          KsDiagnostic **diagnostic, GError **error);
/* The kernel's name as generated (the declaration's, or after the kind). */
const char   *ks_declaration_get_name    (const KsDeclaration *declaration);

/* The bindings a generated kernel's (source's, of that kind) added arguments take when
 * the user binds them not: n the length of the first array bound to one of the
 * declaration's pointers, for a reduction result a one-element out array
 * of dtype_out, for a scan out of place y an out array like x. Appends to bindings (KsBinding); a name already bound
 * is left as it is. FALSE with KS_ERROR_INVALID_ARGUMENT when n is unbound
 * and no array gives its length. */
gboolean      ks_declaration_complete_bindings (KsDeclaredKind kind,
                                                const KsKernelSource *source,
                                                GPtrArray *bindings, GError **error);

G_END_DECLS
