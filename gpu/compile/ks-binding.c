/* ks-binding.c: the bindings of a kernel's arguments: "NAME=TYPE[LENGTH]:
 * INIT[:DIRECTION]" and "NAME=VALUE" read and written back, and the array a
 * binding starts from. What INIT may be is the table in ks-binding-init.c. */
#include "config.h"

#include <string.h>

#include "ks-array-private.h"
#include "ks-binding-private.h"
#include "ks-error.h"

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

      if (!_ks_array_value_parse (rhs, &v))
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
    if (length > G_MAXSIZE || !_ks_array_check_size (b->type, length, error))
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
      why = _ks_binding_check_init (b);
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

  g_string_append_printf (s, "%s[%" G_GSIZE_FORMAT "]:", ks_elem_type_short_name (b->type),
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

KsArray *
ks_binding_create_array (const KsBinding *b, GError **error)
{
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
  why = _ks_binding_check_init (b);
  if (why != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s: %s", text, why);
      return NULL;
    }
  return _ks_binding_make_array (b, text, error);
}
