/* ks-binding.c: the bindings of a kernel's arguments: "NAME=TYPE[LENGTH]:
 * INIT[:DIRECTION]" and "NAME=VALUE" read and written back, and the array a
 * binding starts from. What INIT may be is the table in ks-binding-init.c;
 * an array of vectors or complex numbers is filled as the plain array of
 * its components, so that every INIT fills every component. */
#include "config.h"

#include <string.h>

#include "ks-array-private.h"
#include "ks-binding-private.h"
#include "ks-error.h"
#include "ks-file.h"

void
ks_binding_free (KsBinding *binding)
{
  if (binding == NULL)
    return;
  g_free (binding->name);
  g_free (binding->path);
  g_free (binding->value);
  g_clear_pointer (&binding->element, ks_value_type_unref);
  g_free (binding->type_name);
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
  copy->element = binding->element != NULL ? ks_value_type_ref (binding->element) : NULL;
  copy->type_name = g_strdup (binding->type_name);
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

/* "f33", "u7": a short type name mistyped rather than a struct's name. */
static gboolean
looks_like_short_name (const char *s)
{
  if (strchr ("iufc", s[0]) == NULL || !g_ascii_isdigit (s[1]))
    return FALSE;
  for (s++; *s != '\0'; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

/* A vector or complex array as the plain array of its components: a
 * shallow copy that owns nothing, for the INIT table. */
static KsBinding
flat_binding (const KsBinding *b)
{
  KsBinding flat = *b;

  if (b->element != NULL)
    flat.length = b->length * b->element->lanes;
  flat.element = NULL;
  flat.type_name = NULL;
  return flat;
}

/* The INIT table's check, on the components; a struct's array starts from
 * zeros or from a file. */
static char *
check_init (const KsBinding *b)
{
  KsBinding flat;

  if (b->type_name != NULL || (b->element != NULL && b->element->kind == KS_VALUE_STRUCT))
    {
      if (b->init != KS_ARRAY_INIT_ZEROS && b->init != KS_ARRAY_INIT_FILE)
        return g_strdup_printf ("an array of the struct %s starts from zeros or from a .npy "
                                "file with fields of the same names: :zeros or :file(PATH)",
                                b->type_name != NULL ? b->type_name : b->element->name);
      return NULL;
    }
  flat = flat_binding (b);
  return _ks_binding_check_init (&flat);
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

      if (!_ks_array_value_parse (rhs, &v))
        {
          g_autofree char *why = NULL;
          g_autoptr (KsValueType) named = NULL;

          if (ks_elem_type_parse (rhs, NULL) || (named = ks_value_type_lookup (rhs)) != NULL)
            return parse_fail (error, text, "an array needs a length: %s=%s[LENGTH]:zeros",
                               b->name, rhs);
          /* a vector, a complex number or a struct: its type decides at bind time */
          why = ks_value_text_check (rhs);
          if (why != NULL)
            {
              if (strpbrk (rhs, "(){}") != NULL || g_str_has_suffix (rhs, "j"))
                return parse_fail (error, text, "%s", why);
              return parse_fail (error, text, "the value must be a number, not “%s”", rhs);
            }
        }
      b->value = g_steal_pointer (&rhs);
      return g_steal_pointer (&b);
    }

  b->is_array = TRUE;
  {
    g_autofree char *type_text = g_strstrip (g_strndup (rhs, open - rhs));

    if (!ks_elem_type_parse (type_text, &b->type)
        && (b->element = ks_value_type_lookup (type_text)) != NULL)
      b->type = b->element->scalar;
    else if (b->element == NULL && !ks_elem_type_parse (type_text, NULL)
             && is_identifier (type_text) && !looks_like_short_name (type_text))
      {
        /* a struct of the kernel's source, laid out when it is bound */
        b->type = KS_ELEM_OTHER;
        b->type_name = g_steal_pointer (&type_text);
      }
    else if (b->element == NULL && !ks_elem_type_parse (type_text, NULL))
      return parse_fail (error, text, "“%s” is not an element type (i8 u8 i16 u16 i32 u32 i64 "
                         "u64 f32 f64, a vector type such as float3, c64, c128, or a struct "
                         "of the kernel)", type_text);
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
    if (length > G_MAXSIZE
        || (b->type_name == NULL
            && !_ks_array_check_size (b->type,
                                      b->element != NULL
                                      && length <= G_MAXUINT64 / b->element->lanes
                                      ? length * b->element->lanes : length,
                                      error)))
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
    if (_ks_binding_init_takes_path (init))
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
    why = _ks_binding_parse_init (b, init);
    if (why == NULL)
      why = check_init (b);
    if (why != NULL)
      return parse_fail (error, text, "%s", why);
  }
  return g_steal_pointer (&b);
}

char *
ks_binding_to_string (const KsBinding *b)
{
  g_autoptr (GString) s = NULL;

  g_return_val_if_fail (b != NULL, NULL);

  s = g_string_new (b->name);
  g_string_append_c (s, '=');
  if (!b->is_array)
    {
      g_string_append (s, b->value != NULL ? b->value : "0");
      return g_string_free (g_steal_pointer (&s), FALSE);
    }

  g_string_append_printf (s, "%s[%" G_GSIZE_FORMAT "]:",
                          b->element != NULL ? b->element->name
                          : b->type_name != NULL ? b->type_name
                                                 : ks_elem_type_short_name (b->type),
                          b->length);
  _ks_binding_format_init (b, s);
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

/* The element type of a binding's array: its vector or complex type, or
 * the struct it names, which the argument it binds must point at. */
static gboolean
binding_element (const KsBinding *b, const KsKernelArg *arg, const char *text,
                 KsValueType **element, GError **error)
{
  *element = NULL;
  if (b->type_name == NULL)
    {
      *element = b->element;
      return TRUE;
    }
  if (arg == NULL || arg->value == NULL || arg->value->kind != KS_VALUE_STRUCT)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: %s is not a type Kernelscope knows here: a struct's layout comes from "
                   "the kernel's source, for an argument that points to it (%s *%s)", text,
                   b->type_name, b->type_name, b->name);
      return FALSE;
    }
  if (!g_str_equal (arg->value->name, b->type_name))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: the kernel's “%s” points to %s, not %s", text, b->name, arg->value->name,
                   b->type_name);
      return FALSE;
    }
  *element = arg->value;
  return TRUE;
}

KsArray *
ks_binding_create_array_for (const KsBinding *b, const KsKernelArg *arg, GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char *why = NULL;
  g_autoptr (KsArray) array = NULL;
  KsValueType *element;
  KsBinding flat;

  g_return_val_if_fail (b != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  text = ks_binding_to_string (b);
  if (!b->is_array)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: “%s” is bound to a value, not to an array", text, b->name);
      return NULL;
    }
  if (!binding_element (b, arg, text, &element, error))
    return NULL;
  if (element == NULL && (guint) b->type >= KS_ELEM_OTHER)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: the array has no element type", text);
      return NULL;
    }
  why = check_init (b);
  if (why != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s: %s", text, why);
      return NULL;
    }
  if (element == NULL)
    return _ks_binding_make_array (b, text, error);

  if (b->init == KS_ARRAY_INIT_FILE)
    {
      array = ks_array_load_of (b->path != NULL ? b->path : "", element, error);
      if (array == NULL)
        return NULL;
      if (ks_array_get_count (array) != b->length)
        {
          g_autofree char *display = ks_file_display_name (b->path);

          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” holds %" G_GSIZE_FORMAT " values of %s, but the binding asks "
                       "for %" G_GSIZE_FORMAT " (write %s=%s[%" G_GSIZE_FORMAT "]:file(%s))",
                       text, display, ks_array_get_count (array), element->name, b->length,
                       b->name, element->name, ks_array_get_count (array), b->path);
          return NULL;
        }
      return g_steal_pointer (&array);
    }
  if (element->kind == KS_VALUE_STRUCT)
    return ks_array_new_of (element, b->length, error);

  flat = flat_binding (b);
  array = _ks_binding_make_array (&flat, text, error);
  if (array == NULL)
    return NULL;
  array->rows = b->length;
  array->cols = element->lanes;
  array->element = ks_value_type_ref (element);
  return g_steal_pointer (&array);
}

KsArray *
ks_binding_create_array (const KsBinding *b, GError **error)
{
  return ks_binding_create_array_for (b, NULL, error);
}
