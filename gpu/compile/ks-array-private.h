/* ks-array-private.h: what the files behind ks-array.h share: one number
 * on its way between text, a file's element type and an array's
 * (ks-array-value.c), the arrays' size limit, numpy's name of a type, and the
 * scalars a vector, complex or struct type is made of (ks-value-type.c). */
#pragma once

#include <glib.h>

#include "ks-array.h"

G_BEGIN_DECLS

/* One number on its way between text, a file's type and an array's type:
 * integers stay exact (64-bit values do not survive a double), floats are
 * doubles. */
typedef enum
{
  VALUE_SIGNED,    /* i */
  VALUE_UNSIGNED,  /* u */
  VALUE_FLOAT,     /* d */
} ValueKind;

typedef struct
{
  ValueKind kind;
  gint64 i;
  guint64 u;
  double d;
} Value;

typedef enum
{
  FIT_OK,
  FIT_NOT_WHOLE,
  FIT_OUT_OF_RANGE,
} Fit;

/* 2^63 and 2^64, exactly representable as doubles. */
#define TWO_POW_63 9223372036854775808.0
#define TWO_POW_64 18446744073709551616.0

/* An integer type's smallest and largest value. */
void         _ks_array_type_limits     (KsElemType type, gint64 *min, guint64 *max);

/* The most data one array may hold: a device buffer that large is already
 * past what a test input is for, and byte counts stay in 32 bits' reach. */
#define KS_ARRAY_MAX_BYTES ((guint64) 2 << 30)

/* A whole token as a number: decimal integers exactly, anything else that
 * g_ascii_strtod reads completely ("2.5", "1e6", "nan", "-inf") as a double. */
gboolean     _ks_array_value_parse     (const char *text, Value *v);
Fit          _ks_array_value_fits      (const Value *v, KsElemType type);
/* Writes v (which fits) as one element of type at dst. */
void         _ks_array_value_store     (const Value *v, KsElemType type, guint8 *dst);
void         _ks_array_value_load      (const guint8 *src, KsElemType type, Value *v);
double       _ks_array_value_to_double (const Value *v);
/* Integers exactly, floats with %.9g (f32) or %.17g. */
char        *_ks_array_format_value    (const Value *v, KsElemType type);
/* "300 does not fit in u8 (0 to 255)", "2.5 is not a whole number". */
char        *_ks_array_fit_message     (const char *text, Fit fit, KsElemType type,
                                        const char *type_name);
/* At least one element and at most KS_ARRAY_MAX_BYTES of them. */
gboolean     _ks_array_check_size      (KsElemType type, guint64 length, GError **error);
/* numpy's dtype string for a little-endian host ("<f4"). */
const char  *_ks_array_npy_descr       (KsElemType type);

/* One scalar inside a value: its path (".pos.x", ".m[2]", ".real"; "" for
 * a plain scalar), type and byte offset. */
typedef struct
{
  char *path;
  KsElemType type;
  gsize offset;
} ValueLeaf;

/* An empty GArray of ValueLeaf that frees their paths. */
GArray      *_ks_value_leaves_new      (void);
/* The type's scalars in memory order. */
GArray      *_ks_value_type_leaves     (const KsValueType *type);
/* A path in the form both sides of a file compare: ".x" and ".real" become
 * "[0]", ".y" and ".imag" "[1]", ".z" "[2]", ".w" "[3]". */
char        *_ks_value_leaf_key        (const char *path);

G_END_DECLS
