/* ks-value-type.h: the types a kernel argument or an array element may have
 * beyond the ten scalars: CUDA's vector types (float3, int4, …), complex
 * numbers (cuFloatComplex, thrust::complex<double>, numpy's complex64) and
 * structs declared in the kernel's source; their size, alignment and fields
 * as the compiler lays them out, and their values as text.
 *
 * Values are written
 *
 *   2.5                             a scalar
 *   (1.5, 2, 3)   float3(1.5, 2, 3) a vector (one number per component)
 *   1.5-2j   2j   (1.5, -2)         a complex number (real, imaginary)
 *   {pos=(1, 2, 3), mass=2, id=7}   a struct, fields by name; Particle{…} too;
 *                                   a field left out is zero
 *   (1, 2, 3)                       a fixed-size array member: m=(1, 2, 3)
 *
 * and printed the same way.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Element types of kernel arguments and arrays: the scalars, and the
 * components of the vector and complex types. */
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
  KS_ELEM_OTHER,     /* not one scalar: a struct, or a type Kernelscope cannot bind */
} KsElemType;

typedef enum
{
  KS_VALUE_SCALAR,
  KS_VALUE_VECTOR,   /* CUDA's char1 … double4: lanes components x, y, z, w */
  KS_VALUE_COMPLEX,  /* two components: real, imaginary */
  KS_VALUE_STRUCT,
} KsValueKind;

typedef struct _KsValueType KsValueType;

typedef struct
{
  char *name;
  gsize offset;
  guint count;            /* a fixed-size array member's elements (float m[3]: 3); else 1 */
  KsValueType *type;
} KsValueField;

/* Immutable once made; reference-counted. */
struct _KsValueType
{
  gint ref_count;
  KsValueKind kind;
  char *name;             /* as the kernel spells it: "float3", "cuFloatComplex", "Particle" */
  KsElemType scalar;      /* the components' type; a struct: KS_ELEM_OTHER */
  guint lanes;            /* components: a scalar 1, a vector 1 to 4, a complex 2; a struct 0 */
  gsize size;
  gsize align;
  KsValueField *fields;   /* a struct's, in declaration order */
  guint n_fields;
};

KsValueType  *ks_value_type_ref         (KsValueType *type);
void          ks_value_type_unref       (KsValueType *type);

/* A scalar (KS_ELEM_OTHER: NULL). */
KsValueType  *ks_value_type_new_scalar  (KsElemType scalar);
/* The types every kernel knows: the vector types ("float3", "uchar4",
 * "double4_32a", …; long is 8 bytes as on Linux) and the complex ones
 * ("cuFloatComplex", "cuDoubleComplex", "cuComplex", "c64", "c128",
 * "complex64", "complex128", and complex<float> / complex<double> in any
 * namespace: thrust::, cuda::std::, pycuda::, std::). Spaces do not matter.
 * NULL for another name. */
KsValueType  *ks_value_type_lookup     (const char *name);

/* A struct built field by field with C's rules: each field at the next
 * multiple of its alignment (or of member_align when larger), the struct
 * aligned to its widest field (or to struct_align, from __align__(N)) and
 * its size a multiple of that. */
KsValueType  *ks_value_type_new_struct  (const char *name);
void          ks_value_type_add_field   (KsValueType *strukt, const char *name, KsValueType *type,
                                         guint count, gsize member_align);
void          ks_value_type_end_struct  (KsValueType *strukt, gsize struct_align);

/* Same layout and the same kind of components everywhere (names aside). */
gboolean      ks_value_type_equal       (const KsValueType *a, const KsValueType *b);
/* "float3", "Particle"; a scalar: its short name ("f32"). */
const char   *ks_value_type_get_name    (const KsValueType *type);

/* One value as text (see above); integers exactly, floats as
 * ks_array_format_element writes them. */
char         *ks_value_type_format      (const KsValueType *type, const guint8 *bytes);
/* Reads text as a value of type into dst (type->size bytes, zeroed first).
 * NULL when it fits, else what is wrong; *warning (when not NULL) gets a
 * note on fields left out, which are zero. */
char         *ks_value_type_parse       (const KsValueType *type, const char *text, guint8 *dst,
                                         char **warning);
/* Whether text is written as a value at all (a number, a tuple, a complex
 * number or a struct), before its type is known: NULL, or what is wrong. */
char         *ks_value_text_check       (const char *text);

/* numpy's dtype string for the type: "<f4", "<c8", or a structured dtype
 * "[('pos', '<f4', (3,)), ('mass', '<f4'), ('', '|V4')]" with padding as
 * void fields, as numpy writes an aligned dtype. A vector as a field is a
 * subarray of its components. */
char         *ks_value_type_npy_descr   (const KsValueType *type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsValueType, ks_value_type_unref)

G_END_DECLS
