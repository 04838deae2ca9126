#include "config.h"

#include <string.h>

#include "ks-array.h"
#include "ks-cli-kernel-declared.h"
#include "ks-cli.h"
#include "ks-error.h"
#include "ks-json.h"

/* `kernel`'s declared kernels: PyCUDA's ElementwiseKernel, ReductionKernel
 * and InclusiveScanKernel/ExclusiveScanKernel as options. Which options
 * belong to which kind is one table, so that a stray one (--map without
 * --reduce) is named with the option it goes with. */

void
ks_cli_declared_clear (KsCliDeclared *d)
{
  g_free (d->elementwise);
  g_free (d->operation);
  g_free (d->reduce);
  g_free (d->map);
  g_free (d->arguments);
  g_free (d->dtype_out);
  g_free (d->scan);
  g_free (d->dtype);
  g_free (d->neutral);
  g_free (d->preamble);
  g_free (d->name);
  g_free (d->preamble_text);
  memset (d, 0, sizeof *d);
}

enum
{
  ELEMENTWISE = 1 << 0,
  REDUCE = 1 << 1,
  SCAN = 1 << 2,
  EXCLUSIVE = 1 << 3,   /* an exclusive scan: the kinds' masks say SCAN | EXCLUSIVE */
  ALL = ELEMENTWISE | REDUCE | SCAN | EXCLUSIVE,
};

#define TEXT_OPTION(field) G_STRUCT_OFFSET (KsCliDeclared, field), TRUE
#define FLAG_OPTION(field) G_STRUCT_OFFSET (KsCliDeclared, field), FALSE

static const struct
{
  const char *name;
  gssize offset;
  gboolean text;
  guint allowed;      /* the kinds it belongs to */
  guint required;     /* the kinds that need it */
  const char *description;
  const char *arg_description;
} options[] = {
  { "elementwise", TEXT_OPTION (elementwise), ELEMENTWISE, ELEMENTWISE,
    "Declare an element-wise kernel (PyCUDA's ElementwiseKernel) with these arguments, "
    "e.g. \"float a, float *x, float *y, float *z\"; n, their length, is added", "ARGUMENTS" },
  { "operation", TEXT_OPTION (operation), ELEMENTWISE, ELEMENTWISE,
    "The element-wise kernel's operation on element i, e.g. \"z[i] = a*x[i] + y[i]\"",
    "STATEMENTS" },
  { "reduce", TEXT_OPTION (reduce), REDUCE, REDUCE,
    "Declare a reduction (PyCUDA's ReductionKernel) combining a and b, e.g. \"a+b\"; the result "
    "is written to result[0]", "EXPR" },
  { "map", TEXT_OPTION (map), REDUCE, REDUCE,
    "The reduction's value of element i, e.g. \"x[i]*y[i]\"", "EXPR" },
  { "arguments", TEXT_OPTION (arguments), REDUCE, REDUCE,
    "The reduction's arguments, e.g. \"float *x, float *y\"; n and result are added",
    "ARGUMENTS" },
  { "dtype-out", TEXT_OPTION (dtype_out), REDUCE, REDUCE,
    "The reduction's result type, e.g. float or f32", "TYPE" },
  { "scan", TEXT_OPTION (scan), SCAN | EXCLUSIVE, SCAN | EXCLUSIVE,
    "Declare a scan of x (PyCUDA's InclusiveScanKernel or ExclusiveScanKernel) combining a and "
    "b, e.g. \"a+b\"", "EXPR" },
  { "dtype", TEXT_OPTION (dtype), SCAN | EXCLUSIVE, SCAN | EXCLUSIVE,
    "The scan's element type, e.g. int or i32", "TYPE" },
  { "inclusive", FLAG_OPTION (inclusive), SCAN, 0,
    "The scan is inclusive: x[i] = x[0] ⊕ … ⊕ x[i] (the default)", NULL },
  { "exclusive", FLAG_OPTION (exclusive), SCAN | EXCLUSIVE, 0,
    "The scan is exclusive: x[i] = neutral ⊕ x[0] ⊕ … ⊕ x[i-1]", NULL },
  { "out-of-place", FLAG_OPTION (out_of_place), SCAN | EXCLUSIVE, 0,
    "The scan reads const x and writes y, instead of x in place", NULL },
  { "neutral", TEXT_OPTION (neutral), REDUCE | EXCLUSIVE, REDUCE | EXCLUSIVE,
    "The reduction's or exclusive scan's neutral value, e.g. 0 or -INFINITY", "VALUE" },
  { "preamble", TEXT_OPTION (preamble), ALL, 0,
    "Helper functions placed before a declared kernel (@FILE reads them from a file)",
    "TEXT" },
  { "name", TEXT_OPTION (name), ALL, 0,
    "The declared kernel's name (default: elementwise, reduction, inclusive_scan or "
    "exclusive_scan)", "NAME" },
  { "emit-source", FLAG_OPTION (emit_source), ALL, 0,
    "Print the CUDA source a declaration generates, and nothing else", NULL },
};

guint
ks_cli_declared_n_entries (void)
{
  return G_N_ELEMENTS (options);
}

void
ks_cli_declared_get_entries (KsCliDeclared *d, GOptionEntry *entries)
{
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      GOptionEntry e = { options[i].name, 0, 0,
                         options[i].text ? G_OPTION_ARG_STRING : G_OPTION_ARG_NONE,
                         G_STRUCT_MEMBER_P (d, options[i].offset), options[i].description,
                         options[i].arg_description };

      entries[i] = e;
    }
}

static gboolean
is_given (const KsCliDeclared *d, guint i)
{
  if (options[i].text)
    return G_STRUCT_MEMBER (char *, d, options[i].offset) != NULL;
  return G_STRUCT_MEMBER (gboolean, d, options[i].offset);
}

static const char *
kind_option (guint kind)
{
  return kind == ELEMENTWISE ? "--elementwise" : kind == REDUCE ? "--reduce" : "--scan";
}

/* The options a kind needs but misses, those it has but does not take. */
static gboolean
check_options (const KsCliDeclared *d, guint kind, GError **error)
{
  /* An exclusive scan is a scan that also takes what EXCLUSIVE marks. */
  const guint bit = kind & EXCLUSIVE ? EXCLUSIVE : kind;

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      if (is_given (d, i) && (options[i].allowed & bit) == 0)
        {
          guint owner = options[i].allowed & ELEMENTWISE ? ELEMENTWISE
                        : options[i].allowed & REDUCE    ? REDUCE
                                                         : SCAN;

          if ((kind & SCAN) && (options[i].allowed & EXCLUSIVE))
            ks_cli_usage_error (error, "--%s belongs to an exclusive scan (--scan … "
                                "--exclusive)", options[i].name);
          else
            ks_cli_usage_error (error, "--%s belongs to %s, not to %s", options[i].name,
                                kind_option (owner), kind_option (kind & ~EXCLUSIVE));
          return FALSE;
        }
      if (!is_given (d, i) && (options[i].required & bit) != 0)
        {
          ks_cli_usage_error (error, "%s%s needs --%s %s", kind_option (kind & ~EXCLUSIVE),
                              kind & EXCLUSIVE ? " --exclusive" : "", options[i].name,
                              options[i].arg_description);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ks_cli_declared_read (KsCliDeclared *d, gboolean file_or_expr, gboolean kind, GError **error)
{
  guint kinds = (d->elementwise != NULL) + (d->reduce != NULL) + (d->scan != NULL);
  guint which;

  d->declared = FALSE;
  if (kinds == 0)
    {
      for (guint i = 0; i < G_N_ELEMENTS (options); i++)
        if (is_given (d, i))
          {
            ks_cli_usage_error (error, "--%s belongs to a declared kernel (--elementwise, "
                                "--reduce or --scan)", options[i].name);
            return FALSE;
          }
      return TRUE;
    }
  if (kinds > 1)
    {
      ks_cli_usage_error (error, "declare one kernel: --elementwise, --reduce or --scan");
      return FALSE;
    }
  if (file_or_expr)
    {
      ks_cli_usage_error (error, "give a .cu file, --expr or a declaration (--elementwise, "
                          "--reduce, --scan), not several");
      return FALSE;
    }
  if (kind)
    {
      ks_cli_usage_error (error, "--kind does not apply to a declared kernel (it runs on arrays, "
                          "as an “any” kernel)");
      return FALSE;
    }
  if (d->inclusive && d->exclusive)
    {
      ks_cli_usage_error (error, "a scan is --inclusive or --exclusive, not both");
      return FALSE;
    }
  which = d->elementwise != NULL ? ELEMENTWISE : d->reduce != NULL ? REDUCE
          : d->exclusive ? SCAN | EXCLUSIVE : SCAN;
  if (!check_options (d, which, error))
    return FALSE;

  if (d->preamble != NULL && d->preamble[0] == '@')
    {
      g_autoptr (GError) local = NULL;

      if (!g_file_get_contents (d->preamble + 1, &d->preamble_text, NULL, &local))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "--preamble: cannot read %s: %s",
                       d->preamble + 1, local->message);
          return FALSE;
        }
      if (!g_utf8_validate (d->preamble_text, -1, NULL))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "--preamble: %s is not UTF-8 text", d->preamble + 1);
          return FALSE;
        }
    }
  else
    d->preamble_text = g_strdup (d->preamble);

  d->declared = TRUE;
  d->declaration.kind = which == ELEMENTWISE ? KS_DECLARED_ELEMENTWISE
                        : which == REDUCE    ? KS_DECLARED_REDUCTION
                        : d->exclusive       ? KS_DECLARED_EXCLUSIVE_SCAN
                                             : KS_DECLARED_INCLUSIVE_SCAN;
  d->declaration.name = d->name;
  d->declaration.arguments = which == ELEMENTWISE ? d->elementwise : d->arguments;
  d->declaration.operation = d->operation;
  d->declaration.map_expr = d->map;
  d->declaration.reduce_expr = which == REDUCE ? d->reduce : d->scan;
  d->declaration.neutral = d->neutral;
  d->declaration.dtype = which == REDUCE ? d->dtype_out : d->dtype;
  d->declaration.preamble = d->preamble_text;
  d->declaration.out_of_place = d->out_of_place;
  return TRUE;
}

KsKernelSource *
ks_cli_declared_open (const KsCliDeclared *d, GError **error)
{
  g_return_val_if_fail (d->declared, NULL);

  if (d->emit_source)
    {
      g_autofree char *text = ks_declaration_generate_text (&d->declaration, NULL, error);

      if (text == NULL)
        return NULL;
      ks_cli_print ("%s", text);
    }
  return ks_declaration_generate (&d->declaration, NULL, error);
}

void
ks_cli_declared_add_json (JsonBuilder *b, const KsCliDeclared *d, KsKernelSource *source,
                          const GPtrArray *out_names, const GPtrArray *arrays)
{
  if (!d->declared)
    return;
  json_builder_set_member_name (b, "declared");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kind");
  ks_json_add_string (b, ks_declared_kind_name (d->declaration.kind));
  json_builder_set_member_name (b, "name");
  ks_json_add_string (b, ks_declaration_get_name (&d->declaration));
  json_builder_set_member_name (b, "source");
  ks_json_add_string (b, ks_kernel_source_get_file_name (source));
  json_builder_set_member_name (b, "text");
  ks_json_add_string (b, ks_kernel_source_get_text (source));
  json_builder_end_object (b);

  for (guint i = 0; d->declaration.kind == KS_DECLARED_REDUCTION && out_names != NULL
                    && arrays != NULL && i < out_names->len && i < arrays->len; i++)
    if (g_str_equal (g_ptr_array_index ((GPtrArray *) out_names, i), KS_DECLARED_RESULT))
      {
        const KsArray *a = g_ptr_array_index ((GPtrArray *) arrays, i);

        json_builder_set_member_name (b, "result");
        ks_json_add_number (b, ks_array_get_double (a, 0));
      }
}
