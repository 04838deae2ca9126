/* ks-binding-signature.c: bindings against an entry's signature: the
 * checks of every argument's binding (bound once, an array for a pointer of
 * the same element type — a vector, complex or struct type laid out alike —,
 * a value in range for a scalar, a struct's fields by name), the bindings a
 * new source starts with, and a scalar's bytes for the launch. */
#include "config.h"

#include <string.h>

#include "ks-array-private.h"
#include "ks-error.h"

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

  if (text == NULL || !_ks_array_value_parse (text, &v))
    return g_strdup_printf ("“%s” is not a number", text != NULL ? text : "");
  fit = _ks_array_value_fits (&v, type);
  if (fit != FIT_OK)
    return _ks_array_fit_message (text, fit, type, ks_elem_type_c_name (type));
  _ks_array_value_store (&v, type, dst);
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

/* The name an array binding gives its elements: "float3", "Particle", "f32". */
static const char *
binding_type_name (const KsBinding *b)
{
  return b->element != NULL ? b->element->name
       : b->type_name != NULL ? b->type_name : ks_elem_type_short_name (b->type);
}

/* Vectors, complex numbers and structs: the array's elements are the
 * pointee's when they are laid out alike (float2 over c64 data too); a
 * struct's array names the pointee's struct. */
static void
check_value_pointee (Check *check, const KsKernelArg *arg, const KsBinding *b)
{
  const KsValueType *want = arg->value;
  const char *have = binding_type_name (b);

  if (want->kind == KS_VALUE_STRUCT)
    {
      if (b->type_name == NULL || !g_str_equal (b->type_name, want->name))
        report (check, KS_BINDING_ERROR, arg,
                "“%s” points to the struct %s but is bound to %s data: bind %s=%s[%"
                G_GSIZE_FORMAT "]:zeros or :file(PATH.npy)", arg->name, want->name, have,
                arg->name, want->name, b->length);
      return;
    }
  if (b->element == NULL || b->element->scalar != want->scalar
      || b->element->lanes != want->lanes || b->element->size != want->size)
    {
      report (check, KS_BINDING_ERROR, arg,
              "“%s” is %s %s pointer but is bound to %s data: the kernel reads %" G_GSIZE_FORMAT
              "-byte elements of %u %s components (bind %s=%s[%" G_GSIZE_FORMAT "]:…)",
              arg->name, article (want->name), want->name, have, want->size, want->lanes,
              ks_elem_type_short_name (want->scalar), arg->name, want->name, b->length);
      return;
    }
}

static void
check_one (Check *check, const KsKernelArg *arg, const KsBinding *b)
{
  if (arg->type_problem != NULL)
    {
      report (check, KS_BINDING_ERROR, arg, "“%s” has type %s, which cannot be bound: %s",
              arg->name, arg_type_text (arg), arg->type_problem);
      return;
    }
  if (arg->pointer)
    {
      if (arg->type == KS_ELEM_OTHER && arg->value == NULL)
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
      if (arg->value != NULL)
        check_value_pointee (check, arg, b);
      else if (b->element != NULL || b->type_name != NULL)
        report (check, KS_BINDING_ERROR, arg,
                "“%s” is %s %s pointer but is bound to %s data: bind %s data (%s=%s[%"
                G_GSIZE_FORMAT "]:…), or change the pointer to %s *", arg->name,
                article (arg_type_text (arg)), ks_elem_type_c_name (arg->type),
                binding_type_name (b), ks_elem_type_short_name (arg->type), arg->name,
                ks_elem_type_short_name (arg->type),
                b->element != NULL ? b->length * b->element->lanes : b->length,
                binding_type_name (b));
      else
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

  if (arg->type == KS_ELEM_OTHER && arg->value == NULL)
    {
      report (check, KS_BINDING_ERROR, arg,
              "“%s” has type %s, which cannot be passed: scalar arguments are integers, "
              "floats, vector types, complex numbers or structs the source declares",
              arg->name, arg_type_text (arg));
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
  if (arg->value != NULL)
    {
      g_autofree guint8 *bytes = g_malloc0 (arg->value->size);
      g_autofree char *warning = NULL;
      g_autofree char *why = ks_value_type_parse (arg->value, b->value, bytes, &warning);

      if (why != NULL)
        report (check, KS_BINDING_ERROR, arg, "“%s” (%s): %s", arg->name, arg->value->name, why);
      else if (warning != NULL)
        report (check, KS_BINDING_WARNING, arg, "“%s” (%s): %s", arg->name, arg->value->name,
                warning);
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
                    arg->value != NULL ? arg->value->name
                    : arg->type != KS_ELEM_OTHER ? ks_elem_type_short_name (arg->type) : "f32");
          else if (arg->value != NULL)
            {
              g_autofree guint8 *zero = g_malloc0 (arg->value->size);
              g_autofree char *example = ks_value_type_format (arg->value, zero);

              report (&check, KS_BINDING_ERROR, arg,
                      "“%s” has no value: give it one, for example %s=%s", arg->name, arg->name,
                      example);
            }
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
          gboolean is_struct = arg->value != NULL && arg->value->kind == KS_VALUE_STRUCT;

          b->is_array = TRUE;
          b->type = arg->type != KS_ELEM_OTHER || arg->value != NULL ? arg->type
                                                                     : KS_ELEM_FLOAT32;
          if (is_struct)
            b->type_name = g_strdup (arg->value->name);
          else if (arg->value != NULL)
            b->element = ks_value_type_ref (arg->value);
          b->length = length;
          b->direction = arg->is_const ? KS_ARRAY_IN : KS_ARRAY_INOUT;
          /* what a const pointer reads gets data worth looking at; what the
           * kernel may write starts from zeros (a struct's array always) */
          if (arg->is_const && !is_struct)
            {
              b->init = KS_ARRAY_INIT_UNIFORM;
              b->init_a = ++seed;
            }
          else
            b->init = KS_ARRAY_INIT_ZEROS;
        }
      else if (arg->value != NULL)
        {
          g_autofree guint8 *zero = g_malloc0 (arg->value->size);

          b->value = ks_value_type_format (arg->value, zero);
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
  if (arg->value != NULL && arg->type_problem == NULL)
    {
      guint8 *value = g_malloc0 (arg->value->size);

      why = ks_value_type_parse (arg->value, binding->value, value, NULL);
      if (why != NULL)
        {
          g_free (value);
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "“%s” (%s): %s", arg->name,
                       arg->value->name, why);
          return NULL;
        }
      return g_bytes_new_take (value, arg->value->size);
    }
  if (arg->type == KS_ELEM_OTHER)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” has type %s, which cannot be passed%s%s", arg->name, arg_type_text (arg),
                   arg->type_problem != NULL ? ": " : ": scalar arguments are integers, floats, "
                   "vector types, complex numbers or structs the source declares",
                   arg->type_problem != NULL ? arg->type_problem : "");
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
