/* ks-array-value.c: element types (their sizes, names and C spellings)
 * and the numbers an array holds: read from text, converted between types
 * with a check that they fit, written as text. What arrays
 * (ks-array.c), files (ks-array-file.c) and typed values (ks-value-type.c)
 * are made of. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-array-private.h"

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

/* For ks_array_save_npy, which asks only for the types it can write. */
const char *
_ks_array_npy_descr (KsElemType type)
{
  return elem_info[type].npy_descr;
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

/* Names that stand alone: the fixed-width typedefs, size_t, the short
 * unsigned names every user kernel has (kernels/ks-user.cuh) and the short
 * names. */
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
  { "uint", KS_ELEM_UINT32 },     { "ushort", KS_ELEM_UINT16 },
  { "ulong", KS_ELEM_UINT64 },    { "u_char", KS_ELEM_UINT8 },
  { "u_short", KS_ELEM_UINT16 },  { "u_int", KS_ELEM_UINT32 },
  { "u_long", KS_ELEM_UINT64 },
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

void
_ks_array_type_limits (KsElemType type, gint64 *min, guint64 *max)
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
  _ks_array_type_limits (type, &min, &max);
  return g_strdup_printf ("%" G_GINT64_FORMAT " to %" G_GUINT64_FORMAT, min, max);
}

Fit
_ks_array_value_fits (const Value *v, KsElemType type)
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

  _ks_array_type_limits (type, &min, &max);
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
void
_ks_array_value_store (const Value *v, KsElemType type, guint8 *dst)
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

void
_ks_array_value_load (const guint8 *src, KsElemType type, Value *v)
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

double
_ks_array_value_to_double (const Value *v)
{
  return v->kind == VALUE_SIGNED ? (double) v->i
       : v->kind == VALUE_UNSIGNED ? (double) v->u : v->d;
}

/* A whole token as a number: decimal integers exactly, anything else that
 * g_ascii_strtod reads completely ("2.5", "1e6", "nan", "-inf") as a double. */
gboolean
_ks_array_value_parse (const char *text, Value *v)
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
char *
_ks_array_fit_message (const char *text, Fit fit, KsElemType type, const char *type_name)
{
  g_autofree char *range = NULL;

  if (fit == FIT_NOT_WHOLE)
    return g_strdup_printf ("%s is not a whole number, which %s needs", text, type_name);
  range = type_range_text (type);
  return g_strdup_printf ("%s does not fit in %s (%s)", text, type_name, range);
}

char *
_ks_array_format_value (const Value *v, KsElemType type)
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
