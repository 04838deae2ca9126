/* ks-array.h: host arrays and the bindings of a kernel's arguments to them.
 *
 * A kernel in the "any" mode (ks-user-kernel.h) takes pointers and scalars.
 * Each pointer is bound to an array: its element type, its length, its
 * direction and its initial data; each scalar to a value. On the command
 * line and in files a binding is written
 *
 *   NAME=TYPE[LENGTH]:INIT[:DIRECTION]     a = f32[1000000]:random(7)
 *   NAME=VALUE                             n = 1000000
 *
 * INIT: zeros, range (0, 1, 2, …), range(START, STEP), const(V), random(SEED)
 * (uniform in [0, 1) for floats, the whole numbers [0, 100) for integers),
 * random(SEED, LOW, HIGH) (uniform in [LOW, HIGH); for integers the whole
 * numbers LOW … HIGH - 1, as numpy's randint), normal(SEED[, MEAN, SD]),
 * file(PATH) (.npy or .csv). DIRECTION: in, out or inout; by default in for
 * const pointers, inout otherwise. TYPE: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64
 * (C spellings such as float or unsigned int are read too). ":INIT" may be
 * left out: zeros. random and normal use SplitMix64 seeded with SEED (the
 * same array on every machine; normal by Box–Muller); integer arrays get the
 * nearest normal value, saturated at the type's limits. Spaces around =, the
 * numbers and the colons are allowed; a file's PATH may contain colons.
 *
 * TYPE may also be a CUDA vector type (float3, uchar4, double2, …), a
 * complex type (c64 or cuFloatComplex, c128 or cuDoubleComplex) or a struct
 * the kernel's source declares (Particle): v=float3[1000]:random(7) fills
 * every component; a struct array starts from zeros or a file. A scalar of
 * such a type is a value as ks-value-type.h writes it: p=(1.5, 2, 3),
 * z=1.5-2j, s={pos=(1, 2, 3), mass=2, id=7}.
 */
#pragma once

#include <glib.h>

#include "ks-user-kernel.h"

G_BEGIN_DECLS

/* A host array: length elements of one type, contiguous. Matrices are arrays
 * with a shape for display (rows × cols = length); a vector has rows = length
 * and cols = 0.
 *
 * An array of vectors, complex numbers or structs has an element type: its
 * items are rows, and its scalars the columns. A float3 array of n items is
 * n × 3 f32 (type: the components', length 3n), a c64 array n × 2 f32, a
 * struct array n × size u8 (its bytes, padding included), so that whatever
 * reads scalars reads it too. */
typedef struct
{
  KsElemType type;
  gsize length;
  gsize rows;
  gsize cols;
  guint8 *data;  /* length * ks_elem_type_size (type) bytes */
  KsValueType *element;  /* NULL: items are the scalars of type */
} KsArray;

/* length 0: KS_ERROR_INVALID_ARGUMENT; more than 2 GiB of data (or not enough
 * memory): KS_ERROR_TOO_LARGE. The data starts as zeros. */
KsArray      *ks_array_new              (KsElemType type, gsize length, GError **error);
/* count items of element (a scalar type gives a plain array). */
KsArray      *ks_array_new_of           (KsValueType *element, gsize count, GError **error);
void          ks_array_free             (KsArray *array);
/* Items: rows for an array with an element type, else length. */
gsize         ks_array_get_count        (const KsArray *array);
/* "float3", "Particle", or the scalar's short name ("f32"). */
const char   *ks_array_get_type_name    (const KsArray *array);
/* One item as text: a scalar as ks_array_format_element, a vector "(1, 2, 3)",
 * a complex number "1.5-2j", a struct "{pos=(1, 2, 3), mass=2}". */
char         *ks_array_format_item      (const KsArray *array, gsize index);
KsArray      *ks_array_copy             (const KsArray *array);
gsize         ks_array_get_bytes        (const KsArray *array);
/* 64-bit integers beyond 2^53 come back rounded to the nearest double. */
double        ks_array_get_double       (const KsArray *array, gsize index);
/* Integer arrays get the nearest value, saturated at the type's limits (NaN: 0). */
void          ks_array_set_double       (KsArray *array, gsize index, double value);
/* One element as people read it: integers exactly, floats with %.9g (f32) or %.17g (f64). */
char         *ks_array_format_element   (const KsArray *array, gsize index);
/* Equal element by element within abs_tol + |b|·rel_tol (exactly when both
 * are integer arrays; the types may differ, the values are compared). NaN
 * equals NaN (a kernel that writes NaN where the reference has NaN agrees
 * with it) and nothing else; an infinity equals only the same infinity. The
 * shapes are not compared, the lengths are. *first_difference gets the first
 * index that differs, or the shorter length when all shared elements agree
 * (when not NULL). */
gboolean      ks_array_equal            (const KsArray *a, const KsArray *b, double abs_tol,
                                         double rel_tol, gsize *first_difference);

/* .npy (versions 1, 2 and 3, little-endian, C order, 1-D or 2-D, dtypes
 * <f4 <f8 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8) and .csv (numbers separated by
 * commas and/or whitespace, one row per line, a first line that is not
 * numeric skipped; one row or one column is a vector, else the rows become
 * the shape; "index,value" as the header reads the second column as a
 * vector, as ks_array_save_csv writes it). The extension decides, in any
 * case. The array has the type asked for: a file's values are converted,
 * and one that does not fit (300 for u8, 2.5 for i32) is an error naming
 * it. KS_ELEM_OTHER asks for the file's own type (.csv: f64). Errors:
 * KS_ERROR_INVALID_ARGUMENT (KS_ERROR_TOO_LARGE past 2 GiB) naming the file. */
KsArray      *ks_array_load             (const char *path, KsElemType type, GError **error);
/* An array of items of element: from .npy, a 2-D array of its components
 * (shape n × 3 for float3), complex numbers (<c8, <c16) or a structured
 * array whose fields match the struct's by name (vectors as subarrays or as
 * fields x, y, z, w; padding anywhere); from .csv, one row of components per
 * item (not for structs). Values are converted and checked as above. */
KsArray      *ks_array_load_of          (const char *path, KsValueType *element, GError **error);
gboolean      ks_array_save_npy         (const KsArray *array, const char *path, GError **error);
/* Both replace path atomically (a temporary file renamed over it). The .npy
 * is version 1.0 with the data at a multiple of 64 bytes, as numpy writes it;
 * vectors as an n × lanes array, complex numbers as <c8 or <c16, structs as
 * a structured array with the struct's offsets (padding as void fields).
 * The .csv holds no structs.
 * The .csv has a header line "index,value" and one "i,v" line per element for
 * vectors, plain comma-separated rows for matrices; values as
 * ks_array_format_element writes them. */
gboolean      ks_array_save_csv         (const KsArray *array, const char *path, GError **error);

typedef enum
{
  KS_ARRAY_IN,
  KS_ARRAY_OUT,
  KS_ARRAY_INOUT,
} KsArrayDirection;

typedef enum
{
  KS_ARRAY_INIT_ZEROS,
  KS_ARRAY_INIT_RANGE,
  KS_ARRAY_INIT_CONST,
  KS_ARRAY_INIT_UNIFORM,
  KS_ARRAY_INIT_NORMAL,
  KS_ARRAY_INIT_FILE,
} KsArrayInit;

typedef struct
{
  char *name;                /* the kernel argument it binds */
  gboolean is_array;
  /* arrays */
  KsElemType type;
  gsize length;
  KsArrayDirection direction;
  gboolean direction_given;  /* FALSE: from the pointer's constness */
  KsArrayInit init;
  double init_a;             /* range: start; const: value; random: seed; normal: seed */
  double init_b;             /* range: step; normal: mean; random: LOW */
  double init_c;             /* normal: standard deviation; random: HIGH (LOW = HIGH = 0:
                              * the type's default range) */
  char *path;                /* file */
  /* scalars: the value as written, converted for the argument's type at bind time */
  char *value;
  /* arrays of vectors or complex numbers: their type (type holds the
   * components'); NULL otherwise */
  KsValueType *element;
  /* arrays of a struct of the source: its name as written (type is
   * KS_ELEM_OTHER), resolved with the kernel's arguments; NULL otherwise */
  char *type_name;
} KsBinding;

void          ks_binding_free           (KsBinding *binding);
/* in, out or inout: as given, else from the pointer's constness (arg may be NULL: inout). */
KsArrayDirection ks_binding_resolve_direction (const KsBinding *binding, const KsKernelArg *arg);
KsBinding    *ks_binding_copy           (const KsBinding *binding);
/* Parses "NAME=…" as above; usage-style messages naming the part that is wrong. */
KsBinding    *ks_binding_parse          (const char *text, GError **error);
/* The same text back ("a=f32[1000000]:random(7):in"). */
char         *ks_binding_to_string      (const KsBinding *binding);
/* The array a binding starts from (zeros, range, …, a file). A struct's
 * array needs its argument (arg: the pointer it binds, or NULL). */
KsArray      *ks_binding_create_array   (const KsBinding *binding, GError **error);
KsArray      *ks_binding_create_array_for (const KsBinding *binding, const KsKernelArg *arg,
                                           GError **error);

typedef enum
{
  KS_BINDING_OK,
  KS_BINDING_WARNING,   /* runs, but probably not what was meant */
  KS_BINDING_ERROR,     /* cannot run */
} KsBindingCheck;

/* Checks bindings against an entry's arguments: every argument bound once,
 * nothing bound that is not an argument, arrays for pointers and values for
 * scalars, element types equal (a mismatch of size is an error; of
 * signedness or int/float with the same size, e.g. `int *` over u32 data, a
 * warning), scalar values in range for their type, a const pointer not bound
 * as out. Returns the worst finding and appends a message per finding to
 * *messages (KsDiagnostic, at the argument's line in the source). */
KsBindingCheck ks_bindings_check        (const GPtrArray *args, const GPtrArray *bindings,
                                         GPtrArray *messages);

/* Bindings a new source starts with: each pointer an f32-or-its-type array of
 * `length` elements (in: random(1), random(2), …; out: zeros), each scalar
 * named n/N/size/count the length, other scalars 0. */
GPtrArray    *ks_bindings_default       (const GPtrArray *args, gsize length);

/* A scalar's bytes for its argument (the value parsed and range-checked),
 * as many as the argument's type has (ks_kernel_arg_get_size). */
GBytes       *ks_binding_pack_scalar    (const KsBinding *binding, const KsKernelArg *arg,
                                         GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsArray, ks_array_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsBinding, ks_binding_free)

G_END_DECLS
