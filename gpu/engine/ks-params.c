#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-error.h"
#include "ks-op.h"

const KsParamSpec *
ks_op_lookup_param (const KsOp *op, const char *name, guint *index)
{
  g_return_val_if_fail (op != NULL && name != NULL, NULL);
  for (guint i = 0; i < op->n_params; i++)
    if (g_str_equal (op->params[i].name, name))
      {
        if (index != NULL)
          *index = i;
        return &op->params[i];
      }
  return NULL;
}

void
ks_params_init (KsParams *params, const KsOp *op)
{
  memset (params, 0, sizeof *params);
  for (guint i = 0; i < op->n_params && i < KS_OP_MAX_PARAMS; i++)
    params->values[i] = op->params[i].default_value;
}

static char *
known_params (const KsOp *op)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < op->n_params; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", op->params[i].name);
  return g_string_free (s, FALSE);
}

static char *
known_choices (const KsParamSpec *spec)
{
  g_autofree char *joined = g_strjoinv (", ", (char **) spec->choices);
  return g_steal_pointer (&joined);
}

/* as_written: the value as the user typed it, for the message (a value just
 * past a limit, formatted, would read as the limit itself); NULL: formatted
 * with every digit it needs. */
static gboolean
check_range (const KsOp *op, const KsParamSpec *spec, double v, const char *as_written,
             GError **error)
{
  if (isnan (v) || v < spec->min || v > spec->max)
    {
      g_autofree char *lo = ks_param_format_value (spec, spec->min);
      g_autofree char *hi = ks_param_format_value (spec, spec->max);
      g_autofree char *val = as_written != NULL ? g_strdup (as_written)
                                                : g_strdup_printf ("%.17g", v);
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” must be between %s and %s, not %s", op->id, spec->name, lo,
                   hi, val);
      return FALSE;
    }
  if (spec->type == KS_PARAM_INT && v != floor (v))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: parameter “%s” takes a whole number", op->id, spec->name);
      return FALSE;
    }
  return TRUE;
}

gboolean
ks_params_set (KsParams *params, const KsOp *op, const char *name, const char *value,
               GError **error)
{
  const KsParamSpec *spec;
  guint index = 0;
  double v = 0;

  g_return_val_if_fail (params != NULL && op != NULL && name != NULL && value != NULL, FALSE);
  spec = ks_op_lookup_param (op, name, &index);
  if (spec == NULL)
    {
      g_autofree char *known = known_params (op);
      if (op->n_params == 0)
        g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                     "%s has no parameter “%s”: it takes no parameters", op->id, name);
      else
        g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                     "%s has no parameter “%s” (its parameters: %s)", op->id, name, known);
      return FALSE;
    }
  switch (spec->type)
    {
    case KS_PARAM_BOOL:
      if (g_ascii_strcasecmp (value, "true") == 0 || g_ascii_strcasecmp (value, "yes") == 0
          || g_ascii_strcasecmp (value, "on") == 0 || g_str_equal (value, "1"))
        v = 1;
      else if (g_ascii_strcasecmp (value, "false") == 0 || g_ascii_strcasecmp (value, "no") == 0
               || g_ascii_strcasecmp (value, "off") == 0 || g_str_equal (value, "0"))
        v = 0;
      else
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s: parameter “%s” is true or false, not “%s”", op->id, name, value);
          return FALSE;
        }
      break;
    case KS_PARAM_CHOICE:
      {
        gboolean found = FALSE;
        for (guint i = 0; spec->choices[i] != NULL; i++)
          if (g_ascii_strcasecmp (spec->choices[i], value) == 0)
            {
              v = i;
              found = TRUE;
            }
        if (!found)
          {
            g_autofree char *known = known_choices (spec);
            g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                         "%s: parameter “%s” is one of %s, not “%s”", op->id, name, known, value);
            return FALSE;
          }
      }
      break;
    case KS_PARAM_INT:
    case KS_PARAM_DOUBLE:
    default:
      {
        char *end = NULL;
        v = g_ascii_strtod (value, &end);
        if (end == value || *end != '\0' || !isfinite (v))
          {
            g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                         "%s: parameter “%s” takes a number, not “%s”", op->id, name, value);
            return FALSE;
          }
        if (!check_range (op, spec, v, value, error))
          return FALSE;
      }
      break;
    }
  params->values[index] = v;
  return TRUE;
}

gboolean
ks_params_parse_assignment (KsParams *params, const KsOp *op, const char *assignment,
                            GError **error)
{
  const char *eq = strchr (assignment, '=');
  g_autofree char *name = NULL;

  if (eq == NULL || eq == assignment)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” is not a parameter assignment: write name=value", assignment);
      return FALSE;
    }
  name = g_strndup (assignment, eq - assignment);
  return ks_params_set (params, op, name, eq + 1, error);
}

gboolean
ks_params_validate (const KsParams *params, const KsOp *op, GError **error)
{
  for (guint i = 0; i < op->n_params; i++)
    {
      const KsParamSpec *spec = &op->params[i];
      double v = params->values[i];
      if (spec->type == KS_PARAM_BOOL && v != 0 && v != 1)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s: parameter “%s” is true or false", op->id, spec->name);
          return FALSE;
        }
      if (spec->type == KS_PARAM_CHOICE
          && (v < 0 || v != floor (v) || v >= g_strv_length ((char **) spec->choices)))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s: parameter “%s” has no choice %g", op->id, spec->name, v);
          return FALSE;
        }
      if ((spec->type == KS_PARAM_INT || spec->type == KS_PARAM_DOUBLE)
          && !check_range (op, spec, v, NULL, error))
        return FALSE;
    }
  return TRUE;
}

double
ks_params_get (const KsParams *params, const KsOp *op, const char *name)
{
  guint index;

  if (ks_op_lookup_param (op, name, &index) == NULL)
    return NAN;
  return params->values[index];
}

char *
ks_param_format_value (const KsParamSpec *spec, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (spec->type)
    {
    case KS_PARAM_BOOL:
      return g_strdup (value != 0 ? "true" : "false");
    case KS_PARAM_CHOICE:
      if (value >= 0 && value < g_strv_length ((char **) spec->choices))
        return g_strdup (spec->choices[(guint) value]);
      return g_strdup_printf ("%g", value);
    case KS_PARAM_INT:
      return g_strdup_printf ("%.0f", value);
    case KS_PARAM_DOUBLE:
    default:
      return g_strdup (g_ascii_formatd (buf, sizeof buf, "%g", value));
    }
}
