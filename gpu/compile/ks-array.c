/* ks-array.c: host arrays: made, copied, their elements as doubles and as
 * text (items of a vector, complex or struct type too), and their
 * comparison within a tolerance. The numbers in them are ks-array-value.c's. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-array-private.h"
#include "ks-error.h"

/* ---- arrays ------------------------------------------------------------- */

gboolean
_ks_array_check_size (KsElemType type, guint64 length, GError **error)
{
  gsize size = ks_elem_type_size (type);

  if (length == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "An array needs at least one element; the length given is 0");
      return FALSE;
    }
  if (length > KS_ARRAY_MAX_BYTES / size)
    {
      g_autofree char *bytes = g_format_size_full (length > G_MAXUINT64 / size
                                                   ? G_MAXUINT64 : length * size,
                                                   G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "An array of %" G_GUINT64_FORMAT " %s elements would hold %s; "
                   "the limit is 2 GiB (%" G_GUINT64_FORMAT " elements of %s)",
                   length, ks_elem_type_short_name (type), bytes,
                   KS_ARRAY_MAX_BYTES / size, ks_elem_type_short_name (type));
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

  if (!_ks_array_check_size (type, length, error))
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

KsArray *
ks_array_new_of (KsValueType *element, gsize count, GError **error)
{
  g_autoptr (KsArray) array = NULL;
  KsElemType type;
  gsize per_item;

  g_return_val_if_fail (element != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (element->kind == KS_VALUE_SCALAR)
    return ks_array_new (element->scalar, count, error);
  /* structs as their bytes; vectors and complex numbers as their
   * components, which they hold without padding */
  type = element->kind == KS_VALUE_STRUCT ? KS_ELEM_UINT8 : element->scalar;
  per_item = element->kind == KS_VALUE_STRUCT ? element->size : element->lanes;
  if (count == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "An array needs at least one element; the length given is 0");
      return NULL;
    }
  if (count > KS_ARRAY_MAX_BYTES / element->size)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "An array of %" G_GSIZE_FORMAT " %s elements would hold more than 2 GiB; "
                   "the limit is %" G_GUINT64_FORMAT " elements of %s", count, element->name,
                   KS_ARRAY_MAX_BYTES / element->size, element->name);
      return NULL;
    }
  array = ks_array_new (type, count * per_item, error);
  if (array == NULL)
    return NULL;
  array->rows = count;
  array->cols = per_item;
  array->element = ks_value_type_ref (element);
  return g_steal_pointer (&array);
}

void
ks_array_free (KsArray *array)
{
  if (array == NULL)
    return;
  g_clear_pointer (&array->element, ks_value_type_unref);
  g_free (array->data);
  g_free (array);
}

gsize
ks_array_get_count (const KsArray *array)
{
  g_return_val_if_fail (array != NULL, 0);
  return array->element != NULL ? array->rows : array->length;
}

const char *
ks_array_get_type_name (const KsArray *array)
{
  g_return_val_if_fail (array != NULL, NULL);
  return array->element != NULL ? array->element->name : ks_elem_type_short_name (array->type);
}

char *
ks_array_format_item (const KsArray *array, gsize index)
{
  g_return_val_if_fail (array != NULL, NULL);

  if (array->element == NULL)
    return ks_array_format_element (array, index);
  g_return_val_if_fail (index < array->rows, NULL);
  return ks_value_type_format (array->element, array->data + index * array->element->size);
}

KsArray *
ks_array_copy (const KsArray *array)
{
  KsArray *copy;

  g_return_val_if_fail (array != NULL, NULL);

  copy = g_new0 (KsArray, 1);
  *copy = *array;
  copy->data = g_memdup2 (array->data, ks_array_get_bytes (array));
  if (array->element != NULL)
    copy->element = ks_value_type_ref (array->element);
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

  _ks_array_value_load (array->data + index * ks_elem_type_size (array->type), array->type, &v);
  return _ks_array_value_to_double (&v);
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
      _ks_array_type_limits (array->type, &min, &max);
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
  _ks_array_value_store (&v, array->type, array->data + index * ks_elem_type_size (array->type));
}

char *
ks_array_format_element (const KsArray *array, gsize index)
{
  Value v;

  g_return_val_if_fail (array != NULL, NULL);
  g_return_val_if_fail (index < array->length, NULL);

  _ks_array_value_load (array->data + index * ks_elem_type_size (array->type), array->type, &v);
  return _ks_array_format_value (&v, array->type);
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

  x = _ks_array_value_to_double (a);
  y = _ks_array_value_to_double (b);
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

      _ks_array_value_load (a->data + i * sa, a->type, &va);
      _ks_array_value_load (b->data + i * sb, b->type, &vb);
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
