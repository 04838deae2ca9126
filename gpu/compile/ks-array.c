/* ks-array.c: element types, host arrays, their files (.npy, .csv) and the
 * bindings of a kernel's arguments to them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ks-array.h"
#include "ks-file.h"
#include "ks-error.h"

/* ---- element types ------------------------------------------------------ */

typedef struct
{
  const char *short_name;
  const char *c_name;
  gsize size;
  gboolean is_float;
  gboolean is_signed;
  /* numpy's dtype string for a little-endian host */
  const char *npy_descr;
} ElemInfo;

/* In KsElemType order. */
static const ElemInfo elem_info[] = {
  { "i8", "signed char", 1, FALSE, TRUE, "|i1" },
  { "u8", "unsigned char", 1, FALSE, FALSE, "|u1" },
  { "i16", "short", 2, FALSE, TRUE, "<i2" },
  { "u16", "unsigned short", 2, FALSE, FALSE, "<u2" },
  { "i32", "int", 4, FALSE, TRUE, "<i4" },
  { "u32", "unsigned int", 4, FALSE, FALSE, "<u4" },
  { "i64", "long long", 8, FALSE, TRUE, "<i8" },
  { "u64", "unsigned long long", 8, FALSE, FALSE, "<u8" },
  { "f32", "float", 4, TRUE, TRUE, "<f4" },
  { "f64", "double", 8, TRUE, TRUE, "<f8" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (elem_info) == KS_ELEM_OTHER);

static const ElemInfo *
elem (KsElemType type)
{
  if ((guint) type >= G_N_ELEMENTS (elem_info))
    return NULL;
  return &elem_info[type];
}

gsize
ks_elem_type_size (KsElemType type)
{
  const ElemInfo *info = elem (type);

  return info != NULL ? info->size : 0;
}

/* KS_ELEM_OTHER has no spelling of its own: "other" keeps messages readable. */
const char *
ks_elem_type_c_name (KsElemType type)
{
  const ElemInfo *info = elem (type);

  return info != NULL ? info->c_name : "other";
}

const char *
ks_elem_type_short_name (KsElemType type)
{
  const ElemInfo *info = elem (type);

  return info != NULL ? info->short_name : "other";
}

gboolean
ks_elem_type_is_float (KsElemType type)
{
  const ElemInfo *info = elem (type);

  return info != NULL && info->is_float;
}

gboolean
ks_elem_type_is_signed (KsElemType type)
{
  const ElemInfo *info = elem (type);

  return info != NULL && info->is_signed;
}

/* Names that stand alone: the fixed-width typedefs, size_t and the short names. */
static const struct
{
  const char *name;
  KsElemType type;
} elem_names[] = {
  { "int8_t", KS_ELEM_INT8 },     { "uint8_t", KS_ELEM_UINT8 },
  { "int16_t", KS_ELEM_INT16 },   { "uint16_t", KS_ELEM_UINT16 },
  { "int32_t", KS_ELEM_INT32 },   { "uint32_t", KS_ELEM_UINT32 },
  { "int64_t", KS_ELEM_INT64 },   { "uint64_t", KS_ELEM_UINT64 },
  { "size_t", KS_ELEM_UINT64 },
  { "i8", KS_ELEM_INT8 },         { "u8", KS_ELEM_UINT8 },
  { "i16", KS_ELEM_INT16 },       { "u16", KS_ELEM_UINT16 },
  { "i32", KS_ELEM_INT32 },       { "u32", KS_ELEM_UINT32 },
  { "i64", KS_ELEM_INT64 },       { "u64", KS_ELEM_UINT64 },
  { "f32", KS_ELEM_FLOAT32 },     { "f64", KS_ELEM_FLOAT64 },
};

/* The C rules for combining specifiers, in any order ("long unsigned int"):
 * the count of each keyword decides. Plain char is signed, as on x86-64 Linux
 * and in CUDA device code; long is 64 bits (LP64). */
gboolean
ks_elem_type_parse (const char *text, KsElemType *type)
{
  g_auto (GStrv) tokens = NULL;
  guint n_signed = 0, n_unsigned = 0, n_char = 0, n_short = 0, n_int = 0, n_long = 0;
  guint n_float = 0, n_double = 0, n_words = 0;
  const char *name = NULL;
  KsElemType result;

  g_return_val_if_fail (text != NULL, FALSE);

  tokens = g_strsplit_set (text, " \t\r\n", -1);
  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *t = tokens[i];

      if (*t == '\0' || g_str_equal (t, "const") || g_str_equal (t, "volatile")
          || g_str_equal (t, "__restrict__") || g_str_equal (t, "__restrict")
          || g_str_equal (t, "restrict"))
        continue;
      n_words++;
      if (g_str_equal (t, "signed"))
        n_signed++;
      else if (g_str_equal (t, "unsigned"))
        n_unsigned++;
      else if (g_str_equal (t, "char"))
        n_char++;
      else if (g_str_equal (t, "short"))
        n_short++;
      else if (g_str_equal (t, "int"))
        n_int++;
      else if (g_str_equal (t, "long"))
        n_long++;
      else if (g_str_equal (t, "float"))
        n_float++;
      else if (g_str_equal (t, "double"))
        n_double++;
      else if (name == NULL)
        name = t;
      else
        return FALSE;
    }

  if (name != NULL)
    {
      if (n_words != 1)
        return FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (elem_names); i++)
        if (g_str_equal (name, elem_names[i].name))
          {
            if (type != NULL)
              *type = elem_names[i].type;
            return TRUE;
          }
      return FALSE;
    }

  if (n_words == 0 || n_signed + n_unsigned > 1 || n_char > 1 || n_short > 1 || n_int > 1
      || n_long > 2 || n_float > 1 || n_double > 1)
    return FALSE;

  if (n_float || n_double)
    {
      if (n_words != 1)
        return FALSE;   /* "long double", "unsigned float" */
      result = n_float ? KS_ELEM_FLOAT32 : KS_ELEM_FLOAT64;
    }
  else if (n_char)
    {
      if (n_short || n_int || n_long)
        return FALSE;
      result = n_unsigned ? KS_ELEM_UINT8 : KS_ELEM_INT8;
    }
  else if (n_short)
    {
      if (n_long)
        return FALSE;
      result = n_unsigned ? KS_ELEM_UINT16 : KS_ELEM_INT16;
    }
  else if (n_long)
    result = n_unsigned ? KS_ELEM_UINT64 : KS_ELEM_INT64;
  else
    result = n_unsigned ? KS_ELEM_UINT32 : KS_ELEM_INT32;

  if (type != NULL)
    *type = result;
  return TRUE;
}

/* ---- values ------------------------------------------------------------- */

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

static void
type_limits (KsElemType type, gint64 *min, guint64 *max)
{
  switch (type)
    {
    case KS_ELEM_INT8:   *min = G_MININT8;  *max = G_MAXINT8; break;
    case KS_ELEM_UINT8:  *min = 0;          *max = G_MAXUINT8; break;
    case KS_ELEM_INT16:  *min = G_MININT16; *max = G_MAXINT16; break;
    case KS_ELEM_UINT16: *min = 0;          *max = G_MAXUINT16; break;
    case KS_ELEM_INT32:  *min = G_MININT32; *max = G_MAXINT32; break;
    case KS_ELEM_UINT32: *min = 0;          *max = G_MAXUINT32; break;
    case KS_ELEM_INT64:  *min = G_MININT64; *max = G_MAXINT64; break;
    case KS_ELEM_UINT64: *min = 0;          *max = G_MAXUINT64; break;
    case KS_ELEM_FLOAT32:
    case KS_ELEM_FLOAT64:
    case KS_ELEM_OTHER:
    default:
      g_assert_not_reached ();
    }
}

/* "0 to 255", "±3.4028235e+38": the range a message names. */
static char *
type_range_text (KsElemType type)
{
  gint64 min;
  guint64 max;

  if (type == KS_ELEM_FLOAT32)
    return g_strdup ("±3.40282347e+38");
  if (type == KS_ELEM_FLOAT64)
    return g_strdup ("±1.7976931348623157e+308");
  type_limits (type, &min, &max);
  return g_strdup_printf ("%" G_GINT64_FORMAT " to %" G_GUINT64_FORMAT, min, max);
}

static Fit
value_fits (const Value *v, KsElemType type)
{
  gint64 min;
  guint64 max;

  if (type == KS_ELEM_FLOAT64)
    return FIT_OK;
  if (type == KS_ELEM_FLOAT32)
    {
      /* Infinities and NaN are values of a float too; only finite numbers
       * beyond the largest float are lost. */
      if (v->kind == VALUE_FLOAT && isfinite (v->d) && fabs (v->d) > G_MAXFLOAT)
        return FIT_OUT_OF_RANGE;
      return FIT_OK;
    }

  type_limits (type, &min, &max);
  switch (v->kind)
    {
    case VALUE_SIGNED:
      if (v->i < min || (v->i >= 0 && (guint64) v->i > max))
        return FIT_OUT_OF_RANGE;
      return FIT_OK;
    case VALUE_UNSIGNED:
      return v->u > max ? FIT_OUT_OF_RANGE : FIT_OK;
    case VALUE_FLOAT:
    default:
      if (isnan (v->d))
        return FIT_NOT_WHOLE;
      if (isinf (v->d))
        return FIT_OUT_OF_RANGE;
      if (floor (v->d) != v->d)
        return FIT_NOT_WHOLE;
      if (type == KS_ELEM_INT64)
        return v->d >= -TWO_POW_63 && v->d < TWO_POW_63 ? FIT_OK : FIT_OUT_OF_RANGE;
      if (type == KS_ELEM_UINT64)
        return v->d >= 0 && v->d < TWO_POW_64 ? FIT_OK : FIT_OUT_OF_RANGE;
      return v->d >= (double) min && v->d <= (double) max ? FIT_OK : FIT_OUT_OF_RANGE;
    }
}

/* Writes v (which fits) as one element of type at dst. */
static void
value_store (const Value *v, KsElemType type, guint8 *dst)
{
  guint64 bits;

  if (type == KS_ELEM_FLOAT32 || type == KS_ELEM_FLOAT64)
    {
      double d = v->kind == VALUE_SIGNED ? (double) v->i
               : v->kind == VALUE_UNSIGNED ? (double) v->u : v->d;

      if (type == KS_ELEM_FLOAT32)
        {
          float f = (float) d;
          memcpy (dst, &f, 4);
        }
      else
        memcpy (dst, &d, 8);
      return;
    }

  /* Two's complement: the low bytes of the 64-bit pattern are the element. */
  if (v->kind == VALUE_SIGNED)
    bits = (guint64) v->i;
  else if (v->kind == VALUE_UNSIGNED)
    bits = v->u;
  else if (v->d < 0)
    bits = (guint64) (gint64) v->d;
  else
    bits = (guint64) v->d;

  switch (type)
    {
    case KS_ELEM_INT8:
    case KS_ELEM_UINT8:
      *dst = (guint8) bits;
      break;
    case KS_ELEM_INT16:
    case KS_ELEM_UINT16:
      {
        guint16 x = (guint16) bits;
        memcpy (dst, &x, 2);
      }
      break;
    case KS_ELEM_INT32:
    case KS_ELEM_UINT32:
      {
        guint32 x = (guint32) bits;
        memcpy (dst, &x, 4);
      }
      break;
    case KS_ELEM_INT64:
    case KS_ELEM_UINT64:
      memcpy (dst, &bits, 8);
      break;
    case KS_ELEM_FLOAT32:
    case KS_ELEM_FLOAT64:
    case KS_ELEM_OTHER:
    default:
      g_assert_not_reached ();
    }
}

static void
value_load (const guint8 *src, KsElemType type, Value *v)
{
  memset (v, 0, sizeof *v);
  switch (type)
    {
    case KS_ELEM_INT8:
      v->kind = VALUE_SIGNED;
      v->i = *(const gint8 *) src;
      break;
    case KS_ELEM_UINT8:
      v->kind = VALUE_UNSIGNED;
      v->u = *src;
      break;
    case KS_ELEM_INT16:
      {
        gint16 x;
        memcpy (&x, src, 2);
        v->kind = VALUE_SIGNED;
        v->i = x;
      }
      break;
    case KS_ELEM_UINT16:
      {
        guint16 x;
        memcpy (&x, src, 2);
        v->kind = VALUE_UNSIGNED;
        v->u = x;
      }
      break;
    case KS_ELEM_INT32:
      {
        gint32 x;
        memcpy (&x, src, 4);
        v->kind = VALUE_SIGNED;
        v->i = x;
      }
      break;
    case KS_ELEM_UINT32:
      {
        guint32 x;
        memcpy (&x, src, 4);
        v->kind = VALUE_UNSIGNED;
        v->u = x;
      }
      break;
    case KS_ELEM_INT64:
      v->kind = VALUE_SIGNED;
      memcpy (&v->i, src, 8);
      break;
    case KS_ELEM_UINT64:
      v->kind = VALUE_UNSIGNED;
      memcpy (&v->u, src, 8);
      break;
    case KS_ELEM_FLOAT32:
      {
        float f;
        memcpy (&f, src, 4);
        v->kind = VALUE_FLOAT;
        v->d = f;
      }
      break;
    case KS_ELEM_FLOAT64:
      v->kind = VALUE_FLOAT;
      memcpy (&v->d, src, 8);
      break;
    case KS_ELEM_OTHER:
    default:
      g_assert_not_reached ();
    }
}

static double
value_to_double (const Value *v)
{
  return v->kind == VALUE_SIGNED ? (double) v->i
       : v->kind == VALUE_UNSIGNED ? (double) v->u : v->d;
}

/* A whole token as a number: decimal integers exactly, anything else that
 * g_ascii_strtod reads completely ("2.5", "1e6", "nan", "-inf") as a double. */
static gboolean
value_parse (const char *text, Value *v)
{
  char *end = NULL;

  memset (v, 0, sizeof *v);
  if (text == NULL || *text == '\0' || g_ascii_isspace (*text))
    return FALSE;

  errno = 0;
  if (*text == '-')
    {
      gint64 i = g_ascii_strtoll (text, &end, 10);

      if (errno == 0 && end != text && *end == '\0')
        {
          v->kind = VALUE_SIGNED;
          v->i = i;
          return TRUE;
        }
    }
  else if (g_ascii_isdigit (*text) || (*text == '+' && g_ascii_isdigit (text[1])))
    {
      guint64 u = g_ascii_strtoull (text, &end, 10);

      /* "0x1f" stops at the x: left to strtod below, which reads hex. */
      if (errno == 0 && end != text && *end == '\0')
        {
          v->kind = VALUE_UNSIGNED;
          v->u = u;
          return TRUE;
        }
    }

  errno = 0;
  v->kind = VALUE_FLOAT;
  v->d = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0')
    return FALSE;
  /* ERANGE for an overflow leaves ±HUGE_VAL: a value no type holds but
   * f64's infinity, which is what the text asked for in effect. Underflow
   * (1e-400) is a zero, which is fine. */
  return TRUE;
}

/* "300 does not fit in u8 (0 to 255)", "2.5 is not a whole number". */
static char *
fit_message (const char *text, Fit fit, KsElemType type, const char *type_name)
{
  g_autofree char *range = NULL;

  if (fit == FIT_NOT_WHOLE)
    return g_strdup_printf ("%s is not a whole number, which %s needs", text, type_name);
  range = type_range_text (type);
  return g_strdup_printf ("%s does not fit in %s (%s)", text, type_name, range);
}

/* ---- arrays ------------------------------------------------------------- */

/* The most data one array may hold: a device buffer that large is already
 * past what a test input is for, and byte counts stay in 32 bits' reach. */
#define MAX_ARRAY_BYTES ((guint64) 2 << 30)

static gboolean
check_array_size (KsElemType type, guint64 length, GError **error)
{
  gsize size = ks_elem_type_size (type);

  if (length == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "An array needs at least one element; the length given is 0");
      return FALSE;
    }
  if (length > MAX_ARRAY_BYTES / size)
    {
      g_autofree char *bytes = g_format_size_full (length > G_MAXUINT64 / size
                                                   ? G_MAXUINT64 : length * size,
                                                   G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "An array of %" G_GUINT64_FORMAT " %s elements would hold %s; "
                   "the limit is 2 GiB (%" G_GUINT64_FORMAT " elements of %s)",
                   length, ks_elem_type_short_name (type), bytes,
                   MAX_ARRAY_BYTES / size, ks_elem_type_short_name (type));
      return FALSE;
    }
  return TRUE;
}

KsArray *
ks_array_new (KsElemType type, gsize length, GError **error)
{
  g_autoptr (KsArray) array = NULL;

  g_return_val_if_fail ((guint) type < KS_ELEM_OTHER, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_array_size (type, length, error))
    return NULL;

  array = g_new0 (KsArray, 1);
  array->type = type;
  array->length = length;
  array->rows = length;
  array->cols = 0;
  array->data = g_try_malloc0 (length * ks_elem_type_size (type));
  if (array->data == NULL)
    {
      g_autofree char *bytes = g_format_size_full (length * ks_elem_type_size (type),
                                                   G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "Not enough memory for an array of %s (%" G_GSIZE_FORMAT " %s elements)",
                   bytes, length, ks_elem_type_short_name (type));
      return NULL;
    }
  return g_steal_pointer (&array);
}

void
ks_array_free (KsArray *array)
{
  if (array == NULL)
    return;
  g_free (array->data);
  g_free (array);
}

KsArray *
ks_array_copy (const KsArray *array)
{
  KsArray *copy;

  g_return_val_if_fail (array != NULL, NULL);

  copy = g_new0 (KsArray, 1);
  *copy = *array;
  copy->data = g_memdup2 (array->data, ks_array_get_bytes (array));
  return copy;
}

gsize
ks_array_get_bytes (const KsArray *array)
{
  g_return_val_if_fail (array != NULL, 0);

  return array->length * ks_elem_type_size (array->type);
}

double
ks_array_get_double (const KsArray *array, gsize index)
{
  Value v;

  g_return_val_if_fail (array != NULL, 0);
  g_return_val_if_fail (index < array->length, 0);

  value_load (array->data + index * ks_elem_type_size (array->type), array->type, &v);
  return value_to_double (&v);
}

void
ks_array_set_double (KsArray *array, gsize index, double value)
{
  Value v = { VALUE_FLOAT, 0, 0, value };

  g_return_if_fail (array != NULL);
  g_return_if_fail (index < array->length);

  if (!ks_elem_type_is_float (array->type))
    {
      gint64 min;
      guint64 max;

      /* Integers: the nearest, saturated at the type's limits; NaN is 0.
       * 2^63 and 2^64 are compared as doubles, which hold them exactly. */
      type_limits (array->type, &min, &max);
      v.d = isnan (value) ? 0 : round (value);
      if (v.d <= (double) min)
        {
          v.kind = VALUE_SIGNED;
          v.i = min;
        }
      else if ((array->type == KS_ELEM_UINT64 && v.d >= TWO_POW_64)
               || (array->type == KS_ELEM_INT64 && v.d >= TWO_POW_63)
               || (array->type != KS_ELEM_UINT64 && array->type != KS_ELEM_INT64
                   && v.d >= (double) max))
        {
          v.kind = VALUE_UNSIGNED;
          v.u = max;
        }
    }
  value_store (&v, array->type, array->data + index * ks_elem_type_size (array->type));
}

static char *
format_value (const Value *v, KsElemType type)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (v->kind)
    {
    case VALUE_SIGNED:
      return g_strdup_printf ("%" G_GINT64_FORMAT, v->i);
    case VALUE_UNSIGNED:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, v->u);
    case VALUE_FLOAT:
    default:
      return g_strdup (g_ascii_formatd (buf, sizeof buf,
                                        type == KS_ELEM_FLOAT32 ? "%.9g" : "%.17g", v->d));
    }
}

char *
ks_array_format_element (const KsArray *array, gsize index)
{
  Value v;

  g_return_val_if_fail (array != NULL, NULL);
  g_return_val_if_fail (index < array->length, NULL);

  value_load (array->data + index * ks_elem_type_size (array->type), array->type, &v);
  return format_value (&v, array->type);
}

static gboolean
values_equal (const Value *a, const Value *b, double abs_tol, double rel_tol)
{
  double x, y;

  if (a->kind != VALUE_FLOAT && b->kind != VALUE_FLOAT)
    {
      if (a->kind == b->kind)
        return a->kind == VALUE_SIGNED ? a->i == b->i : a->u == b->u;
      /* one signed, one unsigned: equal only when both are the same non-negative number */
      if (a->kind == VALUE_SIGNED)
        return a->i >= 0 && (guint64) a->i == b->u;
      return b->i >= 0 && (guint64) b->i == a->u;
    }

  x = value_to_double (a);
  y = value_to_double (b);
  if (isnan (x) || isnan (y))
    return isnan (x) && isnan (y);
  if (x == y)
    return TRUE;
  /* an infinity is only itself: the tolerance, scaled by |inf|, would take anything */
  if (isinf (x) || isinf (y))
    return FALSE;
  return fabs (x - y) <= abs_tol + fabs (y) * rel_tol;
}

gboolean
ks_array_equal (const KsArray *a, const KsArray *b, double abs_tol, double rel_tol,
                gsize *first_difference)
{
  gsize n;
  gsize sa, sb;

  g_return_val_if_fail (a != NULL, FALSE);
  g_return_val_if_fail (b != NULL, FALSE);

  n = MIN (a->length, b->length);
  sa = ks_elem_type_size (a->type);
  sb = ks_elem_type_size (b->type);
  for (gsize i = 0; i < n; i++)
    {
      Value va, vb;

      value_load (a->data + i * sa, a->type, &va);
      value_load (b->data + i * sb, b->type, &vb);
      if (!values_equal (&va, &vb, abs_tol, rel_tol))
        {
          if (first_difference != NULL)
            *first_difference = i;
          return FALSE;
        }
    }
  if (first_difference != NULL)
    *first_difference = n;
  return a->length == b->length;
}

/* ---- files -------------------------------------------------------------- */

/* Larger files are not read at all: no array they could hold is allowed. A
 * .csv spends up to ~25 characters per value, hence the margin. */
#define MAX_FILE_BYTES ((guint64) 8 << 30)

static gboolean
read_file (const char *path, char **contents, gsize *length, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *display = ks_file_display_name (path);
  GStatBuf st;

  if (g_stat (path, &st) == 0 && (guint64) st.st_size > MAX_FILE_BYTES)
    {
      g_autofree char *size = g_format_size_full (st.st_size, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "“%s” is %s; arrays are read from files of at most 8 GiB", display, size);
      return FALSE;
    }
  if (!g_file_get_contents (path, contents, length, &local))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "Could not read “%s”: %s",
                   display, local->message);
      return FALSE;
    }
  return TRUE;
}

/* Converts src (of src's type) into a new array of type, every element
 * checked; the message names the first one that does not fit. */
static KsArray *
convert_array (const KsArray *src, KsElemType type, const char *display, GError **error)
{
  g_autoptr (KsArray) dst = NULL;
  gsize ss = ks_elem_type_size (src->type), ds = ks_elem_type_size (type);

  if (src->type == type)
    return ks_array_copy (src);

  dst = ks_array_new (type, src->length, error);
  if (dst == NULL)
    return NULL;
  dst->rows = src->rows;
  dst->cols = src->cols;
  for (gsize i = 0; i < src->length; i++)
    {
      Value v;
      Fit fit;

      value_load (src->data + i * ss, src->type, &v);
      fit = value_fits (&v, type);
      if (fit != FIT_OK)
        {
          g_autofree char *text = format_value (&v, src->type);
          g_autofree char *why = fit_message (text, fit, type, ks_elem_type_short_name (type));

          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s” holds %s values that are read as %s, but element %" G_GSIZE_FORMAT
                       " does not convert: %s", display, ks_elem_type_short_name (src->type),
                       ks_elem_type_short_name (type), i, why);
          return NULL;
        }
      value_store (&v, type, dst->data + i * ds);
    }
  return g_steal_pointer (&dst);
}

/* .npy: the header is a Python dict literal, e.g.
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * read here with a small tokenizer rather than by position, since writers
 * differ in key order and spacing. */
typedef struct
{
  const char *p;
  const char *end;
} Cursor;

static void
skip_space (Cursor *c)
{
  while (c->p < c->end && g_ascii_isspace (*c->p))
    c->p++;
}

static gboolean
expect_char (Cursor *c, char ch)
{
  skip_space (c);
  if (c->p < c->end && *c->p == ch)
    {
      c->p++;
      return TRUE;
    }
  return FALSE;
}

static char *
read_string (Cursor *c)
{
  char quote;
  const char *start;

  skip_space (c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return NULL;
  quote = *c->p++;
  start = c->p;
  while (c->p < c->end && *c->p != quote)
    c->p++;
  if (c->p >= c->end)
    return NULL;
  return g_strndup (start, c->p++ - start);
}

static gboolean
read_word (Cursor *c, const char *word)
{
  gsize n = strlen (word);

  skip_space (c);
  if ((gsize) (c->end - c->p) >= n && strncmp (c->p, word, n) == 0)
    {
      c->p += n;
      return TRUE;
    }
  return FALSE;
}

/* (3,) or (3, 4) or (): at most 3 dimensions are read, so that a 3-D file
 * gets a message of its own. */
static gboolean
read_shape (Cursor *c, guint64 *dims, guint *n_dims)
{
  *n_dims = 0;
  if (!expect_char (c, '('))
    return FALSE;
  for (;;)
    {
      guint64 d = 0;
      gboolean any = FALSE;

      skip_space (c);
      if (c->p < c->end && *c->p == ')')
        {
          c->p++;
          return TRUE;
        }
      while (c->p < c->end && g_ascii_isdigit (*c->p))
        {
          if (d > (G_MAXUINT64 - 9) / 10)
            return FALSE;
          d = d * 10 + (guint64) (*c->p++ - '0');
          any = TRUE;
        }
      if (!any)
        return FALSE;
      if (c->p < c->end && *c->p == 'L')   /* Python 2's long literals */
        c->p++;
      if (*n_dims < 3)
        dims[*n_dims] = d;
      (*n_dims)++;
      skip_space (c);
      if (c->p < c->end && *c->p == ',')
        c->p++;
      else if (c->p >= c->end || *c->p != ')')
        return FALSE;
    }
}

static gboolean
npy_descr_type (const char *descr, KsElemType *type, char **why)
{
  static const struct
  {
    const char *descr;
    KsElemType type;
  } known[] = {
    { "<f4", KS_ELEM_FLOAT32 }, { "<f8", KS_ELEM_FLOAT64 },
    { "|i1", KS_ELEM_INT8 },    { "<i1", KS_ELEM_INT8 },
    { "|u1", KS_ELEM_UINT8 },   { "<u1", KS_ELEM_UINT8 },
    { "<i2", KS_ELEM_INT16 },   { "<u2", KS_ELEM_UINT16 },
    { "<i4", KS_ELEM_INT32 },   { "<u4", KS_ELEM_UINT32 },
    { "<i8", KS_ELEM_INT64 },   { "<u8", KS_ELEM_UINT64 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (g_str_equal (descr, known[i].descr))
      {
        *type = known[i].type;
        return TRUE;
      }

  if (g_str_equal (descr, "|b1"))
    *why = g_strdup ("it holds booleans (|b1), which kernels cannot be bound to; "
                     "save it as uint8 (numpy: a.astype(np.uint8))");
  else if (descr[0] == '>')
    *why = g_strdup_printf ("it is big-endian (%s); save it little-endian "
                            "(numpy: a.astype(a.dtype.newbyteorder('<')))", descr);
  else
    *why = g_strdup_printf ("its type %s is not one of <f4 <f8 <i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8",
                            descr);
  return FALSE;
}

static KsArray *
npy_fail (GError **error, const char *display, const char *format, ...) G_GNUC_PRINTF (3, 4);

static KsArray *
npy_fail (GError **error, const char *display, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "“%s” cannot be read as .npy: %s",
               display, what);
  return NULL;
}

static KsArray *
load_npy (const char *path, const char *display, KsElemType type, GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *descr = NULL;
  g_autoptr (KsArray) raw = NULL;
  gsize size;
  guint major;
  guint64 header_len, data_start, dims[3] = { 0 }, length, needed;
  guint n_dims = 0;
  gboolean have_fortran = FALSE, fortran = FALSE, have_shape = FALSE;
  KsElemType file_type;
  Cursor c;

  if (!read_file (path, &contents, &size, error))
    return NULL;

  if (size < 10 || memcmp (contents, "\x93NUMPY", 6) != 0)
    return npy_fail (error, display, "it does not start with the .npy signature (\\x93NUMPY)");
  major = (guint8) contents[6];
  if (major == 1)
    {
      header_len = (guint8) contents[8] | (guint) (guint8) contents[9] << 8;
      data_start = 10 + header_len;
    }
  else if (major == 2 || major == 3)
    {
      if (size < 12)
        return npy_fail (error, display, "the file ends inside its header");
      header_len = (guint64) (guint8) contents[8] | (guint64) (guint8) contents[9] << 8
                   | (guint64) (guint8) contents[10] << 16 | (guint64) (guint8) contents[11] << 24;
      data_start = 12 + header_len;
    }
  else
    return npy_fail (error, display, "its format version %u.%u is not 1, 2 or 3", major,
                     (guint8) contents[7]);
  if (data_start > size)
    return npy_fail (error, display, "its header is %" G_GUINT64_FORMAT " bytes long but the "
                     "file has only %" G_GSIZE_FORMAT " bytes", header_len, size);

  c.p = contents + data_start - header_len;
  c.end = contents + data_start;
  if (!expect_char (&c, '{'))
    return npy_fail (error, display, "its header is not a dictionary");
  for (;;)
    {
      g_autofree char *key = NULL;

      if (expect_char (&c, '}'))
        break;
      key = read_string (&c);
      if (key == NULL || !expect_char (&c, ':'))
        return npy_fail (error, display, "its header is damaged");
      if (g_str_equal (key, "descr"))
        {
          g_clear_pointer (&descr, g_free);
          descr = read_string (&c);
          if (descr == NULL)
            return npy_fail (error, display, "the header's descr is not a type string "
                             "(structured arrays are not supported)");
        }
      else if (g_str_equal (key, "fortran_order"))
        {
          have_fortran = TRUE;
          if (read_word (&c, "True"))
            fortran = TRUE;
          else if (read_word (&c, "False"))
            fortran = FALSE;
          else
            return npy_fail (error, display, "the header's fortran_order is not True or False");
        }
      else if (g_str_equal (key, "shape"))
        {
          have_shape = TRUE;
          if (!read_shape (&c, dims, &n_dims))
            return npy_fail (error, display, "the header's shape is not a tuple of integers");
        }
      else
        return npy_fail (error, display, "its header has an unknown key “%s”", key);
      if (!expect_char (&c, ','))
        {
          if (expect_char (&c, '}'))
            break;
          return npy_fail (error, display, "its header is damaged");
        }
    }
  if (descr == NULL || !have_fortran || !have_shape)
    return npy_fail (error, display, "its header lacks %s",
                     descr == NULL ? "descr" : !have_fortran ? "fortran_order" : "shape");

  {
    g_autofree char *why = NULL;

    if (!npy_descr_type (descr, &file_type, &why))
      return npy_fail (error, display, "%s", why);
  }
  if (fortran && n_dims > 1)
    return npy_fail (error, display, "it is in Fortran (column-major) order; save it in C order "
                     "(numpy: np.save(path, np.ascontiguousarray(a)))");
  if (n_dims == 0 || n_dims > 2)
    return npy_fail (error, display, "it holds a %u-D array; arrays here are 1-D or 2-D", n_dims);
  if (n_dims == 2 && dims[1] != 0 && dims[0] > G_MAXUINT64 / dims[1])
    return npy_fail (error, display, "its shape is too large");
  length = n_dims == 2 ? dims[0] * dims[1] : dims[0];
  if (length == 0)
    return npy_fail (error, display, "it holds no elements");
  if (!check_array_size (file_type, length, error))
    {
      g_prefix_error (error, "“%s”: ", display);
      return NULL;
    }
  needed = length * ks_elem_type_size (file_type);
  if (size - data_start != needed)
    return npy_fail (error, display, "its header describes %" G_GUINT64_FORMAT " %s elements "
                     "(%" G_GUINT64_FORMAT " bytes), but %" G_GUINT64_FORMAT " bytes of data "
                     "follow it", length, descr, needed, (guint64) (size - data_start));

  raw = ks_array_new (file_type, length, error);
  if (raw == NULL)
    return NULL;
  memcpy (raw->data, contents + data_start, needed);
  if (n_dims == 2)
    {
      raw->rows = dims[0];
      raw->cols = dims[1];
    }
  if (type == KS_ELEM_OTHER || type == file_type)
    return g_steal_pointer (&raw);
  return convert_array (raw, type, display, error);
}

/* A line's values: separated by commas and/or whitespace; a single comma at
 * the end of a line is tolerated, an empty value between two commas is not. */
static GPtrArray *
split_csv_line (const char *line, gboolean *empty_field)
{
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  gboolean after_comma = FALSE;
  const char *p = line;

  *empty_field = FALSE;
  for (;;)
    {
      const char *start;

      while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
      if (*p == '\0')
        break;
      if (*p == ',')
        {
          if (tokens->len == 0 || after_comma)
            {
              *empty_field = TRUE;
              return NULL;
            }
          after_comma = TRUE;
          p++;
          continue;
        }
      start = p;
      while (*p != '\0' && *p != ',' && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
      g_ptr_array_add (tokens, g_strndup (start, p - start));
      after_comma = FALSE;
    }
  return g_steal_pointer (&tokens);
}

/* A header names columns: a word that is not a number (nan and inf are). */
static gboolean
is_header_line (const char *line)
{
  g_autoptr (GPtrArray) tokens = NULL;
  gboolean empty_field;

  for (const char *p = line; *p != '\0'; p++)
    if (g_ascii_isalpha (*p) || *p == '"' || *p == '\'')
      {
        tokens = split_csv_line (line, &empty_field);
        if (tokens == NULL)
          return TRUE;
        for (guint i = 0; i < tokens->len; i++)
          {
            Value v;

            if (!value_parse (g_ptr_array_index (tokens, i), &v))
              return TRUE;
          }
        return FALSE;
      }
  return FALSE;
}

static KsArray *
load_csv (const char *path, const char *display, KsElemType type, GError **error)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  g_autoptr (KsArray) array = NULL;
  gsize size, elem_size;
  guint64 rows = 0, cols = 0;
  gboolean seen_first = FALSE, index_value = FALSE;
  guint first_line = 0;

  if (type == KS_ELEM_OTHER)
    type = KS_ELEM_FLOAT64;
  elem_size = ks_elem_type_size (type);
  if (!read_file (path, &contents, &size, error))
    return NULL;
  if (memchr (contents, '\0', size) != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” cannot be read as .csv: it is not text", display);
      return NULL;
    }

  lines = g_strsplit (contents, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      g_autoptr (GPtrArray) tokens = NULL;
      gboolean empty_field;
      guint first_value;

      if (*g_strstrip (lines[l]) == '\0')
        continue;
      if (!seen_first)
        {
          seen_first = TRUE;
          first_line = l + 1;
          if (is_header_line (lines[l]))
            {
              g_autoptr (GString) compact = g_string_new (NULL);

              /* what ks_array_save_csv writes for a vector, in any case and spacing */
              for (const char *p = lines[l]; *p != '\0'; p++)
                if (!g_ascii_isspace (*p))
                  g_string_append_c (compact, g_ascii_tolower (*p));
              index_value = g_str_equal (compact->str, "index,value");
              continue;
            }
        }

      tokens = split_csv_line (lines[l], &empty_field);
      if (tokens == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s”, line %u: a value is missing between two commas", display, l + 1);
          return NULL;
        }
      if (cols == 0)
        {
          cols = tokens->len;
          if (index_value && cols != 2)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”, line %u: the header is “index,value” but the line has %u "
                           "values instead of 2", display, l + 1, tokens->len);
              return NULL;
            }
        }
      else if (tokens->len != cols)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s”, line %u has %u values, but the rows before it have %" G_GUINT64_FORMAT
                       "; every row needs the same number", display, l + 1, tokens->len, cols);
          return NULL;
        }

      first_value = index_value ? 1 : 0;
      for (guint t = first_value; t < tokens->len; t++)
        {
          const char *text = g_ptr_array_index (tokens, t);
          guint8 elem_bytes[8];
          Value v;
          Fit fit;

          if (!value_parse (text, &v))
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”, line %u, value %u: “%s” is not a number", display, l + 1,
                           t + 1, text);
              return NULL;
            }
          fit = value_fits (&v, type);
          if (fit != FIT_OK)
            {
              g_autofree char *why = fit_message (text, fit, type, ks_elem_type_short_name (type));

              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”, line %u, value %u: %s", display, l + 1, t + 1, why);
              return NULL;
            }
          if (bytes->len + elem_size > MAX_ARRAY_BYTES)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                           "“%s” holds more than 2 GiB of %s values (line %u); the limit is "
                           "2 GiB", display, ks_elem_type_short_name (type), l + 1);
              return NULL;
            }
          value_store (&v, type, elem_bytes);
          g_byte_array_append (bytes, elem_bytes, elem_size);
        }
      rows++;
    }

  if (bytes->len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” holds no numbers%s", display,
                   first_line != 0 ? " (only a header line)" : "");
      return NULL;
    }

  array = ks_array_new (type, bytes->len / elem_size, error);
  if (array == NULL)
    return NULL;
  memcpy (array->data, bytes->data, bytes->len);
  if (!index_value && rows > 1 && cols > 1)
    {
      array->rows = rows;
      array->cols = cols;
    }
  return g_steal_pointer (&array);
}

static gboolean
has_suffix_ci (const char *path, const char *suffix)
{
  gsize n = strlen (path), m = strlen (suffix);

  return n >= m && g_ascii_strcasecmp (path + n - m, suffix) == 0;
}

KsArray *
ks_array_load (const char *path, KsElemType type, GError **error)
{
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail ((guint) type <= KS_ELEM_OTHER, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  display = ks_file_display_name (path);
  if (has_suffix_ci (path, ".npy"))
    return load_npy (path, display, type, error);
  if (has_suffix_ci (path, ".csv"))
    return load_csv (path, display, type, error);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "“%s” is neither a .npy nor a .csv file: arrays are read from those two formats",
               display);
  return NULL;
}

/* The head and the body as one file, atomically (ks-file.h): a reader never
 * sees half a file, and a failed or interrupted save keeps the old one. */
static gboolean
write_atomically (const char *path, const void *head, gsize head_len, const void *body,
                  gsize body_len, GError **error)
{
  KsAtomicFile *file = ks_atomic_file_open (path, error);

  if (file == NULL)
    return FALSE;
  if (!ks_atomic_file_write (file, head, head_len, error)
      || !ks_atomic_file_write (file, body, body_len, error))
    {
      ks_atomic_file_abort (file);
      return FALSE;
    }
  return ks_atomic_file_commit (file, error);
}

gboolean
ks_array_save_npy (const KsArray *array, const char *path, GError **error)
{
  /* the signature, version 1.0, and the header's length (set below) */
  g_autoptr (GString) header = g_string_new_len ("\x93NUMPY\x01\x00\x00\x00", 10);
  const gsize dict_start = 10;

  g_return_val_if_fail (array != NULL, FALSE);
  g_return_val_if_fail ((guint) array->type < KS_ELEM_OTHER, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_string_append_printf (header, "{'descr': '%s', 'fortran_order': False, 'shape': ",
                          elem_info[array->type].npy_descr);
  if (array->cols > 0 && array->rows * array->cols == array->length)
    g_string_append_printf (header, "(%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "), }",
                            array->rows, array->cols);
  else
    g_string_append_printf (header, "(%" G_GSIZE_FORMAT ",), }", array->length);
  /* numpy pads with spaces and ends with a newline so that the data starts
   * at a multiple of 64 bytes (aligned for any type, and for mmap). */
  while ((header->len + 1) % 64 != 0)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');
  header->str[8] = (char) ((header->len - dict_start) & 0xff);
  header->str[9] = (char) ((header->len - dict_start) >> 8);

  return write_atomically (path, header->str, header->len, array->data,
                           ks_array_get_bytes (array), error);
}

gboolean
ks_array_save_csv (const KsArray *array, const char *path, GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  gboolean matrix;

  g_return_val_if_fail (array != NULL, FALSE);
  g_return_val_if_fail ((guint) array->type < KS_ELEM_OTHER, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  matrix = array->cols > 0 && array->rows * array->cols == array->length;
  if (!matrix)
    g_string_append (text, "index,value\n");
  for (gsize i = 0; i < array->length; i++)
    {
      g_autofree char *value = ks_array_format_element (array, i);

      if (!matrix)
        g_string_append_printf (text, "%" G_GSIZE_FORMAT ",%s\n", i, value);
      else
        {
          g_string_append (text, value);
          g_string_append_c (text, (i + 1) % array->cols == 0 ? '\n' : ',');
        }
    }
  return write_atomically (path, text->str, text->len, NULL, 0, error);
}

/* ---- generated data ----------------------------------------------------- */

/* SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by the
 * golden-ratio increment and a fixed mix. Written out here so that a seed
 * gives the same array on every machine and with every GLib (GRand promises
 * no stable sequence); it passes BigCrush, plenty for test inputs. */
typedef struct
{
  guint64 state;
} Rng;

static guint64
rng_next (Rng *rng)
{
  guint64 z = (rng->state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* [0, 1) with 53 random bits */
static double
rng_double (Rng *rng)
{
  return (double) (rng_next (rng) >> 11) * 0x1.0p-53;
}

static void
fill_uniform (KsArray *array, guint64 seed)
{
  Rng rng = { seed };
  gsize size = ks_elem_type_size (array->type);

  for (gsize i = 0; i < array->length; i++)
    {
      guint64 x = rng_next (&rng);
      guint8 *dst = array->data + i * size;

      if (array->type == KS_ELEM_FLOAT32)
        {
          /* 24 bits, exactly a float's precision: rounding a 53-bit double
           * could give 1.0f, outside [0, 1). */
          float f = (float) (x >> 40) * 0x1.0p-24f;
          memcpy (dst, &f, 4);
        }
      else if (array->type == KS_ELEM_FLOAT64)
        {
          double d = (double) (x >> 11) * 0x1.0p-53;
          memcpy (dst, &d, 8);
        }
      else
        {
          /* [0, 100) by a multiply of the high 32 bits rather than a modulo;
           * the bias, under 100 / 2^32, is far below any test's notice. */
          Value v = { VALUE_UNSIGNED, 0, ((x >> 32) * 100) >> 32, 0 };
          value_store (&v, array->type, dst);
        }
    }
}

/* Box–Muller: two uniforms give two independent normal values. Integers get
 * the nearest value, saturated at the type's limits. */
static void
fill_normal (KsArray *array, guint64 seed, double mean, double sd)
{
  Rng rng = { seed };

  for (gsize i = 0; i < array->length; i += 2)
    {
      double u1 = 1.0 - rng_double (&rng);   /* (0, 1]: log(u1) is finite */
      double u2 = rng_double (&rng);
      double r = sqrt (-2.0 * log (u1));

      ks_array_set_double (array, i, mean + sd * r * cos (2 * G_PI * u2));
      if (i + 1 < array->length)
        ks_array_set_double (array, i + 1, mean + sd * r * sin (2 * G_PI * u2));
    }
}

/* ---- bindings ----------------------------------------------------------- */

/* Seeds are whole numbers a double holds exactly. */
#define MAX_SEED 9007199254740992.0   /* 2^53 */

void
ks_binding_free (KsBinding *binding)
{
  if (binding == NULL)
    return;
  g_free (binding->name);
  g_free (binding->path);
  g_free (binding->value);
  g_free (binding);
}

KsBinding *
ks_binding_copy (const KsBinding *binding)
{
  KsBinding *copy;

  g_return_val_if_fail (binding != NULL, NULL);

  copy = g_new0 (KsBinding, 1);
  *copy = *binding;
  copy->name = g_strdup (binding->name);
  copy->path = g_strdup (binding->path);
  copy->value = g_strdup (binding->value);
  return copy;
}

static gboolean
is_identifier (const char *s)
{
  if (!(g_ascii_isalpha (*s) || *s == '_'))
    return FALSE;
  for (s++; *s != '\0'; s++)
    if (!(g_ascii_isalnum (*s) || *s == '_'))
      return FALSE;
  return TRUE;
}

static KsBinding *
parse_fail (GError **error, const char *text, const char *format, ...) G_GNUC_PRINTF (3, 4);

static KsBinding *
parse_fail (GError **error, const char *text, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s: %s", text, what);
  return NULL;
}

/* "name(a, b)": the arguments as numbers; FALSE with *bad the first that is
 * not one. */
static gboolean
parse_call_args (const char *args_text, double *out, guint max_args, guint *n_args, char **bad)
{
  g_auto (GStrv) parts = g_strsplit (args_text, ",", -1);

  *n_args = 0;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = g_strstrip (parts[i]);
      Value v;

      if (*n_args == max_args)
        {
          *n_args = max_args + 1;
          return TRUE;
        }
      if (!value_parse (part, &v))
        {
          *bad = g_strdup (part);
          return FALSE;
        }
      out[(*n_args)++] = value_to_double (&v);
    }
  return TRUE;
}

static gboolean
check_seed (double seed)
{
  return seed >= 0 && seed <= MAX_SEED && floor (seed) == seed;
}

/* The values a generated array holds fit its type: const's value, and a
 * range's first and last element (the others lie between). */
static char *
check_generated_values (const KsBinding *b)
{
  Value v = { VALUE_FLOAT, 0, 0, 0 };
  g_autofree char *text = NULL;
  Fit fit;

  if (b->init == KS_ARRAY_INIT_CONST)
    {
      v.d = b->init_a;
      fit = value_fits (&v, b->type);
      if (fit == FIT_OK)
        return NULL;
      text = format_value (&v, KS_ELEM_FLOAT64);
      return fit_message (text, fit, b->type, ks_elem_type_short_name (b->type));
    }
  if (b->init == KS_ARRAY_INIT_RANGE)
    {
      for (guint end = 0; end < 2; end++)
        {
          g_autofree char *why = NULL;
          gsize index = end == 0 ? 0 : b->length - 1;

          v.d = b->init_a + (double) index * b->init_b;
          fit = value_fits (&v, b->type);
          if (fit == FIT_OK)
            continue;
          text = format_value (&v, KS_ELEM_FLOAT64);
          why = fit_message (text, fit, b->type, ks_elem_type_short_name (b->type));
          return g_strdup_printf ("element %" G_GSIZE_FORMAT " of the range is %s", index, why);
        }
    }
  if (b->init == KS_ARRAY_INIT_NORMAL && (!isfinite (b->init_b) || !isfinite (b->init_c)
                                          || b->init_c < 0))
    return g_strdup ("the mean must be a finite number and the standard deviation a finite "
                     "number of at least 0");
  return NULL;
}

static gboolean
parse_init (KsBinding *b, const char *init, const char *text, GError **error)
{
  g_autofree char *name = NULL;
  g_autofree char *bad = NULL;
  const char *open = strchr (init, '(');
  double a[4] = { 0 };
  guint n = 0;
  static const char *const usage = "zeros, range, range(START, STEP), const(V), random(SEED), "
                                   "normal(SEED, MEAN, SD) or file(PATH)";

  b->init_a = 0;
  b->init_b = 0;
  b->init_c = 0;
  if (g_str_equal (init, "zeros"))
    {
      b->init = KS_ARRAY_INIT_ZEROS;
      return TRUE;
    }
  if (g_str_equal (init, "range"))
    {
      b->init = KS_ARRAY_INIT_RANGE;
      b->init_b = 1;
      return TRUE;
    }
  if (open == NULL || !g_str_has_suffix (init, ")"))
    {
      parse_fail (error, text, "“%s” is not a way to fill an array (%s)", init, usage);
      return FALSE;
    }

  name = g_strstrip (g_strndup (init, open - init));
  if (g_str_equal (name, "file"))
    {
      b->init = KS_ARRAY_INIT_FILE;
      b->path = g_strstrip (g_strndup (open + 1, strlen (open + 1) - 1));
      if (*b->path == '\0')
        {
          parse_fail (error, text, "file() needs the path of a .npy or .csv file");
          return FALSE;
        }
      return TRUE;
    }

  {
    g_autofree char *args = g_strndup (open + 1, strlen (open + 1) - 1);

    if (!parse_call_args (args, a, 3, &n, &bad))
      {
        parse_fail (error, text, "%s() takes numbers, and “%s” is not one", name, bad);
        return FALSE;
      }
  }

  if (g_str_equal (name, "range") && (n == 1 || n == 2))
    {
      b->init = KS_ARRAY_INIT_RANGE;
      b->init_a = a[0];
      b->init_b = n == 2 ? a[1] : 1;
    }
  else if (g_str_equal (name, "const") && n == 1)
    {
      b->init = KS_ARRAY_INIT_CONST;
      b->init_a = a[0];
    }
  else if ((g_str_equal (name, "random") && n == 1)
           || (g_str_equal (name, "normal") && n >= 1 && n <= 3))
    {
      if (!check_seed (a[0]))
        {
          parse_fail (error, text, "the seed must be a whole number from 0 to 2^53, not %g", a[0]);
          return FALSE;
        }
      b->init = g_str_equal (name, "random") ? KS_ARRAY_INIT_UNIFORM : KS_ARRAY_INIT_NORMAL;
      b->init_a = a[0];
      b->init_b = n >= 2 ? a[1] : 0;
      b->init_c = n >= 3 ? a[2] : 1;
    }
  else if (g_str_equal (name, "range") || g_str_equal (name, "const")
           || g_str_equal (name, "random") || g_str_equal (name, "normal"))
    {
      const char *form = g_str_equal (name, "range") ? "range(START, STEP)"
                       : g_str_equal (name, "const") ? "const(V)"
                       : g_str_equal (name, "random") ? "random(SEED)" : "normal(SEED, MEAN, SD)";

      parse_fail (error, text, "%s() was given %u numbers; write it %s", name, n, form);
      return FALSE;
    }
  else
    {
      parse_fail (error, text, "“%s” is not a way to fill an array (%s)", init, usage);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_direction (const char *text, KsArrayDirection *direction)
{
  if (g_str_equal (text, "in"))
    *direction = KS_ARRAY_IN;
  else if (g_str_equal (text, "out"))
    *direction = KS_ARRAY_OUT;
  else if (g_str_equal (text, "inout"))
    *direction = KS_ARRAY_INOUT;
  else
    return FALSE;
  return TRUE;
}

static const char *
direction_name (KsArrayDirection direction)
{
  switch (direction)
    {
    case KS_ARRAY_IN:
      return "in";
    case KS_ARRAY_OUT:
      return "out";
    case KS_ARRAY_INOUT:
    default:
      return "inout";
    }
}

KsBinding *
ks_binding_parse (const char *text_in, GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char *name = NULL;
  g_autofree char *rhs = NULL;
  g_autoptr (KsBinding) b = NULL;
  const char *eq, *open, *close;

  g_return_val_if_fail (text_in != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  text = g_strstrip (g_strdup (text_in));
  eq = strchr (text, '=');
  if (eq == NULL)
    return parse_fail (error, text, "a binding is NAME=TYPE[LENGTH]:INIT or NAME=VALUE, "
                       "for example a=f32[1024]:random(1) or n=1024");
  name = g_strstrip (g_strndup (text, eq - text));
  if (!is_identifier (name))
    return parse_fail (error, text, "“%s” is not an argument name (letters, digits and _, "
                       "not starting with a digit)", name);
  rhs = g_strstrip (g_strdup (eq + 1));
  if (*rhs == '\0')
    return parse_fail (error, text, "nothing follows the =; give an array "
                       "(%s=f32[1024]:zeros) or a value (%s=1024)", name, name);

  b = g_new0 (KsBinding, 1);
  b->name = g_steal_pointer (&name);
  b->direction = KS_ARRAY_INOUT;

  open = strchr (rhs, '[');
  if (open == NULL)
    {
      Value v;

      if (!value_parse (rhs, &v))
        {
          if (ks_elem_type_parse (rhs, NULL))
            return parse_fail (error, text, "an array needs a length: %s=%s[LENGTH]:zeros",
                               b->name, rhs);
          return parse_fail (error, text, "the value must be a number, not “%s”", rhs);
        }
      b->value = g_steal_pointer (&rhs);
      return g_steal_pointer (&b);
    }

  b->is_array = TRUE;
  {
    g_autofree char *type_text = g_strstrip (g_strndup (rhs, open - rhs));

    if (!ks_elem_type_parse (type_text, &b->type))
      return parse_fail (error, text, "“%s” is not an element type "
                         "(i8 u8 i16 u16 i32 u32 i64 u64 f32 f64)", type_text);
  }

  close = strchr (open, ']');
  if (close == NULL)
    return parse_fail (error, text, "the length has no closing ]");
  {
    g_autofree char *length_text = g_strstrip (g_strndup (open + 1, close - open - 1));
    guint64 length = 0;
    gboolean ok = *length_text != '\0';

    for (const char *p = length_text; ok && *p != '\0'; p++)
      {
        if (!g_ascii_isdigit (*p) || length > (G_MAXUINT64 - 9) / 10)
          ok = FALSE;
        else
          length = length * 10 + (guint64) (*p - '0');
      }
    if (!ok || length == 0)
      return parse_fail (error, text, "the length must be a positive integer, not “%s”",
                         length_text);
    if (length > G_MAXSIZE || !check_array_size (b->type, length, error))
      {
        g_prefix_error (error, "%s: ", text);
        return NULL;
      }
    b->length = length;
  }

  {
    g_autofree char *rest = g_strstrip (g_strdup (close + 1));
    g_autofree char *init = NULL;
    g_autofree char *why = NULL;
    const char *direction = NULL;

    if (*rest == '\0')
      {
        /* no INIT: zeros, the natural start of an output */
        b->init = KS_ARRAY_INIT_ZEROS;
        return g_steal_pointer (&b);
      }
    if (*rest != ':')
      return parse_fail (error, text, "expected “:” and how to fill the array after “]”, "
                         "not “%s”", rest);

    /* A file's path may hold colons: it runs to the last ')'. */
    init = g_strstrip (g_strdup (rest + 1));
    if (g_str_has_prefix (init, "file") && strchr (init, '(') != NULL)
      {
        char *last = strrchr (init, ')');

        if (last != NULL && last[1] != '\0')
          {
            char *colon = last + 1;

            while (g_ascii_isspace (*colon))
              colon++;
            if (*colon == ':')
              {
                last[1] = '\0';
                direction = colon + 1;
              }
          }
      }
    else
      {
        char *colon = strchr (init, ':');

        if (colon != NULL)
          {
            *colon = '\0';
            direction = colon + 1;
          }
      }
    g_strstrip (init);
    if (direction != NULL)
      {
        g_autofree char *dir = g_strstrip (g_strdup (direction));

        if (!parse_direction (dir, &b->direction))
          return parse_fail (error, text, "“%s” is not a direction (in, out or inout)", dir);
        b->direction_given = TRUE;
      }
    if (!parse_init (b, init, text, error))
      return NULL;
    why = check_generated_values (b);
    if (why != NULL)
      return parse_fail (error, text, "%s", why);
  }
  return g_steal_pointer (&b);
}

/* The shortest text that reads back as the same double. */
static char *
format_number (double d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.15g", d);
  if (g_ascii_strtod (buf, NULL) != d)
    g_ascii_formatd (buf, sizeof buf, "%.17g", d);
  return g_strdup (buf);
}

char *
ks_binding_to_string (const KsBinding *b)
{
  g_autoptr (GString) s = NULL;
  g_autofree char *a = NULL;
  g_autofree char *bb = NULL;
  g_autofree char *c = NULL;

  g_return_val_if_fail (b != NULL, NULL);

  s = g_string_new (b->name);
  g_string_append_c (s, '=');
  if (!b->is_array)
    {
      g_string_append (s, b->value != NULL ? b->value : "0");
      return g_string_free (g_steal_pointer (&s), FALSE);
    }

  a = format_number (b->init_a);
  bb = format_number (b->init_b);
  c = format_number (b->init_c);
  g_string_append_printf (s, "%s[%" G_GSIZE_FORMAT "]:", ks_elem_type_short_name (b->type),
                          b->length);
  switch (b->init)
    {
    case KS_ARRAY_INIT_ZEROS:
      g_string_append (s, "zeros");
      break;
    case KS_ARRAY_INIT_RANGE:
      if (b->init_a == 0 && b->init_b == 1)
        g_string_append (s, "range");
      else
        g_string_append_printf (s, "range(%s, %s)", a, bb);
      break;
    case KS_ARRAY_INIT_CONST:
      g_string_append_printf (s, "const(%s)", a);
      break;
    case KS_ARRAY_INIT_UNIFORM:
      g_string_append_printf (s, "random(%s)", a);
      break;
    case KS_ARRAY_INIT_NORMAL:
      if (b->init_b == 0 && b->init_c == 1)
        g_string_append_printf (s, "normal(%s)", a);
      else
        g_string_append_printf (s, "normal(%s, %s, %s)", a, bb, c);
      break;
    case KS_ARRAY_INIT_FILE:
    default:
      g_string_append_printf (s, "file(%s)", b->path != NULL ? b->path : "");
      break;
    }
  if (b->direction_given)
    g_string_append_printf (s, ":%s", direction_name (b->direction));
  return g_string_free (g_steal_pointer (&s), FALSE);
}

KsArrayDirection
ks_binding_resolve_direction (const KsBinding *binding, const KsKernelArg *arg)
{
  g_return_val_if_fail (binding != NULL, KS_ARRAY_INOUT);

  if (binding->direction_given)
    return binding->direction;
  return arg != NULL && arg->is_const ? KS_ARRAY_IN : KS_ARRAY_INOUT;
}

KsArray *
ks_binding_create_array (const KsBinding *b, GError **error)
{
  g_autoptr (KsArray) array = NULL;
  g_autofree char *text = NULL;
  g_autofree char *why = NULL;

  g_return_val_if_fail (b != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  text = ks_binding_to_string (b);
  if (!b->is_array)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: “%s” is bound to a value, not to an array", text, b->name);
      return NULL;
    }
  if ((guint) b->type >= KS_ELEM_OTHER)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: the array has no element type", text);
      return NULL;
    }
  why = check_generated_values (b);
  if (why != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s: %s", text, why);
      return NULL;
    }
  if ((b->init == KS_ARRAY_INIT_UNIFORM || b->init == KS_ARRAY_INIT_NORMAL)
      && !check_seed (b->init_a))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: the seed must be a whole number from 0 to 2^53", text);
      return NULL;
    }

  if (b->init == KS_ARRAY_INIT_FILE)
    {
      array = ks_array_load (b->path != NULL ? b->path : "", b->type, error);
      if (array == NULL)
        return NULL;
      if (array->length != b->length)
        {
          g_autofree char *display = ks_file_display_name (b->path);

          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” holds %" G_GSIZE_FORMAT " values, but the binding asks for %"
                       G_GSIZE_FORMAT " (write %s=%s[%" G_GSIZE_FORMAT "]:file(%s))", text,
                       display, array->length, b->length, b->name,
                       ks_elem_type_short_name (b->type), array->length, b->path);
          return NULL;
        }
      return g_steal_pointer (&array);
    }

  array = ks_array_new (b->type, b->length, error);
  if (array == NULL)
    return NULL;
  switch (b->init)
    {
    case KS_ARRAY_INIT_ZEROS:
      break;
    case KS_ARRAY_INIT_RANGE:
      /* start + i·step in double: exact for whole numbers below 2^53 */
      for (gsize i = 0; i < b->length; i++)
        ks_array_set_double (array, i, b->init_a + (double) i * b->init_b);
      break;
    case KS_ARRAY_INIT_CONST:
      for (gsize i = 0; i < b->length; i++)
        ks_array_set_double (array, i, b->init_a);
      break;
    case KS_ARRAY_INIT_UNIFORM:
      fill_uniform (array, (guint64) b->init_a);
      break;
    case KS_ARRAY_INIT_NORMAL:
      fill_normal (array, (guint64) b->init_a, b->init_b, b->init_c);
      break;
    case KS_ARRAY_INIT_FILE:
    default:
      g_assert_not_reached ();
    }
  return g_steal_pointer (&array);
}

/* ---- bindings against a signature --------------------------------------- */

static const char *
article (const char *word)
{
  return strchr ("aeiouAEIOU", word[0]) != NULL ? "an" : "a";
}

static const char *
arg_type_text (const KsKernelArg *arg)
{
  if (arg->type_text != NULL && *arg->type_text != '\0')
    return arg->type_text;
  return ks_elem_type_c_name (arg->type);
}

/* Parses a scalar's text for its argument's type into dst (the element's
 * bytes); NULL, or what is wrong for a message. */
static char *
scalar_value (const char *text, KsElemType type, guint8 *dst)
{
  Value v;
  Fit fit;

  if (text == NULL || !value_parse (text, &v))
    return g_strdup_printf ("“%s” is not a number", text != NULL ? text : "");
  fit = value_fits (&v, type);
  if (fit != FIT_OK)
    return fit_message (text, fit, type, ks_elem_type_c_name (type));
  value_store (&v, type, dst);
  return NULL;
}

typedef struct
{
  const GPtrArray *args;
  GPtrArray *messages;
  KsBindingCheck worst;
} Check;

static void
report (Check *check, KsBindingCheck level, const KsKernelArg *arg, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static void
report (Check *check, KsBindingCheck level, const KsKernelArg *arg, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  check->worst = MAX (check->worst, level);
  if (check->messages == NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (check->messages,
                   ks_diagnostic_new (level == KS_BINDING_ERROR ? KS_DIAGNOSTIC_ERROR
                                                                : KS_DIAGNOSTIC_WARNING,
                                      NULL, arg != NULL ? arg->line : 0,
                                      arg != NULL ? arg->column : 0, message));
}

/* An array of the pointee's type passes; one of another size cannot work;
 * the same size with another meaning runs, reading the bits differently. */
static void
check_pointee (Check *check, const KsKernelArg *arg, const KsBinding *b)
{
  const char *kernel_c = ks_elem_type_c_name (arg->type);
  const char *data_c = ks_elem_type_c_name (b->type);
  const char *kernel_short = ks_elem_type_short_name (arg->type);
  const char *data_short = ks_elem_type_short_name (b->type);
  gsize kernel_size = ks_elem_type_size (arg->type), data_size = ks_elem_type_size (b->type);

  if (arg->type == b->type)
    return;
  if (kernel_size != data_size)
    {
      report (check, KS_BINDING_ERROR, arg,
              "“%s” is %s %s pointer but is bound to %s data: the kernel reads %" G_GSIZE_FORMAT
              "-byte elements from an array of %" G_GSIZE_FORMAT "-byte ones, %s "
              "(bind %s data, or change the pointer to %s *)",
              arg->name, article (kernel_c), kernel_c, data_short, kernel_size, data_size,
              kernel_size > data_size ? "so it would run past the array's end"
                                      : "so every value would be wrong",
              kernel_short, data_c);
      return;
    }
  {
    gboolean kernel_float = ks_elem_type_is_float (arg->type);
    gboolean data_float = ks_elem_type_is_float (b->type);
    const char *data_word, *kernel_word;

    if (!kernel_float && !data_float)
      {
        data_word = ks_elem_type_is_signed (b->type) ? "signed" : "unsigned";
        kernel_word = ks_elem_type_is_signed (arg->type) ? "signed" : "unsigned";
      }
    else
      {
        data_word = data_float ? "float" : "integer";
        kernel_word = kernel_float ? "floats" : "integers";
      }
    report (check, KS_BINDING_WARNING, arg,
            "“%s” is %s %s pointer but is bound to %s data: the kernel will read the bits of "
            "%s values as %s (bind %s data, or change the pointer to %s *)",
            arg->name, article (kernel_c), kernel_c, data_short, data_word, kernel_word,
            kernel_short, data_c);
  }
}

static void
check_one (Check *check, const KsKernelArg *arg, const KsBinding *b)
{
  if (arg->pointer)
    {
      if (arg->type == KS_ELEM_OTHER)
        {
          report (check, KS_BINDING_ERROR, arg,
                  "“%s” is a pointer of type %s, which cannot be bound: arrays hold "
                  "i8 u8 i16 u16 i32 u32 i64 u64 f32 or f64 elements", arg->name,
                  arg_type_text (arg));
          return;
        }
      if (!b->is_array)
        {
          report (check, KS_BINDING_ERROR, arg,
                  "“%s” is a pointer (%s) but is bound to the value %s: bind it to an array, "
                  "for example %s=%s[1024]:zeros", arg->name, arg_type_text (arg),
                  b->value != NULL ? b->value : "", arg->name,
                  ks_elem_type_short_name (arg->type));
          return;
        }
      check_pointee (check, arg, b);
      if (arg->is_const && b->direction_given && b->direction == KS_ARRAY_OUT)
        report (check, KS_BINDING_ERROR, arg,
                "“%s” is a const pointer, so the kernel only reads it, but it is bound as out: "
                "nothing would be uploaded and nothing written (bind it as in)", arg->name);
      else if (arg->is_const && b->direction_given && b->direction == KS_ARRAY_INOUT)
        report (check, KS_BINDING_WARNING, arg,
                "“%s” is a const pointer, so the kernel only reads it, but it is bound as "
                "inout: it will be copied back unchanged (bind it as in)", arg->name);
      return;
    }

  if (arg->type == KS_ELEM_OTHER)
    {
      report (check, KS_BINDING_ERROR, arg,
              "“%s” has type %s, which cannot be passed: scalar arguments are integers or "
              "floats", arg->name, arg_type_text (arg));
      return;
    }
  if (b->is_array)
    {
      report (check, KS_BINDING_ERROR, arg,
              "“%s” is %s %s value but is bound to an array: bind it to a value, for example "
              "%s=1024", arg->name, article (arg_type_text (arg)), arg_type_text (arg),
              arg->name);
      return;
    }
  {
    guint8 bytes[8];
    g_autofree char *why = scalar_value (b->value, arg->type, bytes);

    if (why != NULL)
      report (check, KS_BINDING_ERROR, arg, "“%s”: %s", arg->name, why);
  }
}

KsBindingCheck
ks_bindings_check (const GPtrArray *args, const GPtrArray *bindings, GPtrArray *messages)
{
  Check check = { args, messages, KS_BINDING_OK };

  g_return_val_if_fail (args != NULL, KS_BINDING_ERROR);
  g_return_val_if_fail (bindings != NULL, KS_BINDING_ERROR);

  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index ((GPtrArray *) args, i);
      const KsBinding *found = NULL;
      guint count = 0;

      for (guint j = 0; j < bindings->len; j++)
        {
          const KsBinding *b = g_ptr_array_index ((GPtrArray *) bindings, j);

          if (g_strcmp0 (b->name, arg->name) == 0)
            {
              if (found == NULL)
                found = b;
              count++;
            }
        }
      if (found == NULL)
        {
          if (arg->pointer)
            report (&check, KS_BINDING_ERROR, arg,
                    "“%s” is not bound: give it an array, for example %s=%s[1024]:zeros",
                    arg->name, arg->name,
                    arg->type != KS_ELEM_OTHER ? ks_elem_type_short_name (arg->type) : "f32");
          else
            report (&check, KS_BINDING_ERROR, arg,
                    "“%s” has no value: give it one, for example %s=1024", arg->name, arg->name);
          continue;
        }
      if (count > 1)
        report (&check, KS_BINDING_ERROR, arg,
                "“%s” is bound %u times: bind each argument once", arg->name, count);
      check_one (&check, arg, found);
    }

  for (guint j = 0; j < bindings->len; j++)
    {
      const KsBinding *b = g_ptr_array_index ((GPtrArray *) bindings, j);
      gboolean known = FALSE;

      for (guint i = 0; i < args->len && !known; i++)
        known = g_strcmp0 (((const KsKernelArg *) g_ptr_array_index ((GPtrArray *) args,
                                                                     i))->name, b->name) == 0;
      if (!known)
        {
          g_autoptr (GString) names = g_string_new (NULL);

          for (guint i = 0; i < args->len; i++)
            g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                                    ((const KsKernelArg *) g_ptr_array_index ((GPtrArray *) args,
                                                                              i))->name);
          report (&check, KS_BINDING_ERROR, NULL,
                  "“%s” is bound, but the kernel has no argument of that name (%s%s)", b->name,
                  args->len > 0 ? "its arguments: " : "it takes no arguments", names->str);
        }
    }
  return check.worst;
}

static gboolean
is_length_name (const char *name)
{
  return g_str_equal (name, "n") || g_str_equal (name, "N") || g_str_equal (name, "size")
         || g_str_equal (name, "count");
}

GPtrArray *
ks_bindings_default (const GPtrArray *args, gsize length)
{
  GPtrArray *bindings;
  guint seed = 0;

  g_return_val_if_fail (args != NULL, NULL);
  g_return_val_if_fail (length > 0, NULL);

  bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index ((GPtrArray *) args, i);
      KsBinding *b = g_new0 (KsBinding, 1);

      b->name = g_strdup (arg->name);
      if (arg->pointer)
        {
          b->is_array = TRUE;
          b->type = arg->type != KS_ELEM_OTHER ? arg->type : KS_ELEM_FLOAT32;
          b->length = length;
          b->direction = arg->is_const ? KS_ARRAY_IN : KS_ARRAY_INOUT;
          /* what a const pointer reads gets data worth looking at; what the
           * kernel may write starts from zeros */
          if (arg->is_const)
            {
              b->init = KS_ARRAY_INIT_UNIFORM;
              b->init_a = ++seed;
            }
          else
            b->init = KS_ARRAY_INIT_ZEROS;
        }
      else
        b->value = is_length_name (arg->name) ? g_strdup_printf ("%" G_GSIZE_FORMAT, length)
                                              : g_strdup ("0");
      g_ptr_array_add (bindings, b);
    }
  return bindings;
}

GBytes *
ks_binding_pack_scalar (const KsBinding *binding, const KsKernelArg *arg, GError **error)
{
  guint8 bytes[8] = { 0 };
  g_autofree char *why = NULL;

  g_return_val_if_fail (binding != NULL, NULL);
  g_return_val_if_fail (arg != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (binding->is_array || arg->pointer)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” is %s, but a value is packed only for a scalar bound to a value",
                   arg->name, arg->pointer ? "a pointer" : "bound to an array");
      return NULL;
    }
  if (arg->type == KS_ELEM_OTHER)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” has type %s, which cannot be passed: scalar arguments are integers or "
                   "floats", arg->name, arg_type_text (arg));
      return NULL;
    }
  why = scalar_value (binding->value, arg->type, bytes);
  if (why != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "“%s”: %s", arg->name, why);
      return NULL;
    }
  return g_bytes_new (bytes, ks_elem_type_size (arg->type));
}
