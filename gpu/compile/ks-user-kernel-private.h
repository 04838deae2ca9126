/* ks-user-kernel-private.h: what the files behind ks-user-kernel.h share:
 * the source's fields; the lexer's tokens and annotation comments
 * (ks-user-kernel-lexer.c); the annotations' reader and what it keeps for
 * the signature's checks (ks-user-kernel-annotations.c); the user's own
 * headers, read from the folders (ks-user-kernel-includes.c); the structs
 * and typedefs the text declares (ks-user-kernel-types.c) and the check of
 * their layout by the compiler (ks-user-kernel-layout.c); diagnostics added
 * at a line (ks-user-kernel.c). */
#pragma once

#include <glib.h>

#include "ks-user-kernel.h"

G_BEGIN_DECLS

struct _KsKernelSource
{
  gint ref_count;
  KsKernelMode mode;
  char *file_name;
  char *text;

  GPtrArray *diagnostics;   /* KsDiagnostic */
  GPtrArray *args;          /* KsKernelArg */
  char *entry;
  char *kernel_option;      /* the entry the caller picked (--kernel), or NULL */
  GStrv kernels;            /* every __global__ function's name, in order */

  char *source_dir;         /* the text's own folder, or NULL */
  GStrv include_dirs;       /* searched after it, in order; never NULL */
  GPtrArray *headers;       /* KsKernelHeader: what the text includes from the folders */
  GHashTable *types;        /* name → SourceType: the text's structs and typedefs */

  KsParamSpec params[KS_OP_MAX_PARAMS];
  guint n_params;
  GPtrArray *strings;       /* the specs' names and titles */

  guint n_inputs;
  KsFormat output_format;
  KsLaunchConfig launch;
  guint64 dynamic_shared;
};

/* ---- the lexer (ks-user-kernel-lexer.c) ----------------------------------- */

typedef enum
{
  TOK_IDENT,
  TOK_NUMBER,
  TOK_STRING,
  TOK_CHAR,
  TOK_PUNCT,
} TokKind;

typedef struct
{
  TokKind kind;
  const char *start;
  gsize len;
  guint line;
  guint column;
} Token;

typedef struct
{
  const char *start;   /* the text after "//@" */
  gsize len;
  guint line;
  guint column;        /* of the first character after "//@" */
} Annotation;

typedef struct
{
  const char *text;
  const char *p;
  const char *line_start;
  guint line;
  gboolean line_has_code;   /* something other than blanks before p on this line */
  GArray *tokens;           /* Token */
  GArray *annotations;      /* Annotation */
} Lexer;

/* Tokens and annotations of text, which must outlive lx; comments, literals'
 * insides and preprocessor lines give no tokens. */
void     _ks_user_kernel_lex           (Lexer *lx, const char *text);
void     _ks_user_kernel_lexer_clear   (Lexer *lx);
/* Letters, digits and _, not starting with a digit. */
gboolean _ks_user_kernel_is_identifier (const char *s);

/* ---- annotations (ks-user-kernel-annotations.c) --------------------------- */

typedef enum
{
  ANN_PARAM,
  ANN_KERNEL,
  ANN_INPUTS,
  ANN_OUTPUT,
  ANN_BLOCK,
  ANN_GRID,
  ANN_MODE,
  ANN_PPT,
  ANN_SHARED,
  N_ANN,
} AnnotationKind;

typedef struct
{
  guint seen_line[N_ANN];   /* 0: not seen */
  char *kernel;             /* //@kernel's name, as written */
  guint kernel_line;
  guint kernel_column;
  guint inputs_line;
  guint inputs_column;
} Annotations;

/* One //@ line into the source's parameters, inputs, output, launch and
 * shared memory, or a diagnostic; found keeps what the signature checks. */
void     _ks_user_kernel_parse_annotation (KsKernelSource *self, const Annotation *a,
                                           Annotations *found);

/* ---- the user's headers (ks-user-kernel-includes.c) ------------------------ */

/* Reads what the text includes, and what those files include in turn, from
 * the source's folder and include folders into self->headers;
 * a file that exists but cannot be read, or too much, is a diagnostic at
 * the #include. Names the stand-ins or the prelude serve are not looked
 * for on disk by <…> includes. */
void     _ks_user_kernel_read_includes  (KsKernelSource *self);
/* Kernelscope's prelude and its stand-ins for the standard and CUDA
 * headers (kernels/standin/), from the bundle; static. */
const KsCompileHeader *_ks_user_kernel_bundle_headers (guint *n_headers);
/* The CUDA toolkit's include folders (include/ and CUDA 13's include/cccl/)
 * of the toolkit the NVRTC belongs to: beside KS_NVRTC_LIBRARY's file when
 * it is set, else the first of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda
 * that has one; absolute, NULL-terminated; NULL when there is none. */
GStrv    _ks_user_kernel_toolkit_dirs   (void);
/* NVRTC's "cannot open source file" as Kernelscope says it: which folders
 * were searched and what to do, or, for the toolkit's headers, which part
 * of the toolkit to install; other diagnostics are left alone. */
void     _ks_user_kernel_explain_missing (const KsKernelSource *self, KsDiagnostic *d);
/* ---- types the text declares (ks-user-kernel-types.c) ---------------------- */

/* A struct, or a typedef's or using's target: its type, or why it cannot be
 * bound ("its member u is a union"). */
typedef struct
{
  KsValueType *type;   /* NULL with problem */
  char *problem;
} SourceType;

void     _ks_source_type_free          (SourceType *t);
/* The structs, unions, typedefs and usings at file scope into self->types. */
void     _ks_user_kernel_read_types    (KsKernelSource *self, const GArray *tokens);
/* A type as a signature or a member writes it, its qualifiers gone ("float",
 * "unsigned int", "float3", "thrust::complex<float>", "Particle"): a scalar
 * (*type), a vector, complex or struct (*value, a new reference; *type its
 * components', or KS_ELEM_OTHER for a struct), or FALSE with *problem when
 * the source says why it cannot be bound (*problem NULL: an unknown type). */
gboolean _ks_user_kernel_resolve_type  (GHashTable *types, const char *base, KsElemType *type,
                                        KsValueType **value, char **problem);

/* ---- the compiler's layout (ks-user-kernel-layout.c) ----------------------- */

/* After the user's text in the any mode: for every struct an argument
 * uses, a __device__ table of its fields' addresses in an object of it and
 * one of its size and alignment, which the PTX then spells out. */
void     _ks_user_kernel_append_layout_probe (const KsKernelSource *self, GString *s);

/* ---- diagnostics (ks-user-kernel.c) --------------------------------------- */

void     _ks_user_kernel_add_diagnostic (KsKernelSource *self, KsDiagnosticSeverity severity,
                                         guint line, guint column, const char *format,
                                         ...) G_GNUC_PRINTF (5, 6);

G_END_DECLS
