/* fuzz-kernel-source.c: the user's kernel text as the editor and
 * `kernelscope-cli kernel` hand it over — the lexer, the `//@` annotations,
 * the entry point's signature, the generated translation unit (no NVRTC) —
 * and array bindings (ks_binding_parse) checked against the signature.
 *
 * The input: byte 0 picks the mode (modulo 3); then the source text, up to a
 * NUL byte; after it, binding specs, one per line. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "kernelscope.h"
#include "ks-array.h"
#include "ks-fuzz.h"

#define MAX_BINDINGS 16
#define MAX_ARRAY_LENGTH 4096

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ks_fuzz_init_logging ();
  return 0;
}

static void
check_diagnostics (const KsKernelSource *source, const char *text)
{
  const GPtrArray *diagnostics = ks_kernel_source_get_diagnostics (source);
  guint n_lines = 1;
  gboolean errors = FALSE;

  for (const char *p = text; *p != '\0'; p++)
    n_lines += *p == '\n';
  for (guint i = 0; i < diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (diagnostics, i);
      g_autofree char *line = ks_diagnostic_format (d);

      ks_fuzz_check (d->message != NULL && d->message[0] != '\0', "a diagnostic without text");
      ks_fuzz_check (g_utf8_validate (line, -1, NULL), "diagnostic not UTF-8: %s", line);
      ks_fuzz_check (d->line <= n_lines, "a diagnostic at line %u of %u: %s", d->line, n_lines,
                     line);
      errors |= d->severity == KS_DIAGNOSTIC_ERROR;
    }
  ks_fuzz_check (errors == ks_kernel_source_has_errors (source), "has_errors disagrees");
}

/* The declared parameters behave like an op's: their defaults validate,
 * each is found by its name, and each default written out is read back. */
static void
check_params (const KsKernelSource *source)
{
  const KsParamSpec *specs;
  guint n = 0;
  KsOp op;
  KsParams params;
  g_autoptr (GBytes) packed = NULL;
  g_autoptr (GError) error = NULL;

  specs = ks_kernel_source_get_params (source, &n);
  ks_fuzz_check (n <= KS_OP_MAX_PARAMS, "%u parameters", n);
  ks_kernel_source_init_params_op (source, &op);
  ks_fuzz_check (op.n_params == n && op.params == specs, "the params op");
  ks_params_init (&params, &op);
  ks_fuzz_check (ks_params_validate (&params, &op, &error), "defaults invalid: %s",
                 error->message);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *value = ks_param_format_value (&specs[i], params.values[i]);
      g_autofree char *assignment = g_strdup_printf ("%s=%s", specs[i].name, value);
      guint index = G_MAXUINT;

      ks_fuzz_check (ks_op_lookup_param (&op, specs[i].name, &index) == &specs[i] && index == i,
                     "parameter “%s” is declared twice", specs[i].name);
      ks_fuzz_check (ks_params_parse_assignment (&params, &op, assignment, &error),
                     "“%s” refused: %s", assignment, error->message);
    }
  packed = ks_kernel_source_pack_params (source, &params);
  ks_fuzz_check (g_bytes_get_size (packed) >= 8 && g_bytes_get_size (packed) % 8 == 0,
                 "packed parameters of %" G_GSIZE_FORMAT " bytes", g_bytes_get_size (packed));
}

static void
check_unit (const KsKernelSource *source)
{
  KsLaunchConfig launch;
  KsKernelUnit unit;
  g_autoptr (GError) error = NULL;
  gboolean ok;

  ks_kernel_source_get_default_launch (source, &launch);
  ok = ks_kernel_source_build_unit (source, NULL, FALSE, &unit, &error);
  ks_fuzz_check (ok != ks_kernel_source_has_errors (source), "build_unit: %s",
                 error != NULL ? error->message : "built with errors");
  if (ok)
    {
      ks_fuzz_check (unit.source != NULL && unit.headers != NULL, "an empty unit");
      ks_fuzz_check ((unit.entry != NULL)
                       == (ks_kernel_source_get_mode (source) == KS_KERNEL_MODE_EXPRESSION
                           || ks_kernel_source_get_entry (source) != NULL),
                     "the unit's entry");
      ks_kernel_unit_clear (&unit);
      ok = ks_kernel_source_build_unit (source, &launch, TRUE, &unit, &error);
      ks_fuzz_check (ok, "build_unit with the default launch: %s", error->message);
      ks_kernel_unit_clear (&unit);
    }
  else
    {
      ks_fuzz_check (g_error_matches (error, KS_ERROR, KS_ERROR_COMPILE), "build_unit's error");
    }
}

static const KsKernelArg *
find_arg (const GPtrArray *args, const char *name)
{
  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);
      if (g_strcmp0 (arg->name, name) == 0)
        return arg;
    }
  return NULL;
}

static gboolean
same_number (double a, double b)
{
  /* -0 and 0 are one value; the text may write either. */
  return a == b || (isnan (a) && isnan (b));
}

/* What the text says, read back from what ks_binding_to_string wrote. */
static gboolean
same_binding (const KsBinding *a, const KsBinding *b)
{
  if (g_strcmp0 (a->name, b->name) != 0 || a->is_array != b->is_array)
    return FALSE;
  if (!a->is_array)
    return g_strcmp0 (a->value, b->value) == 0;
  return a->type == b->type && a->length == b->length && a->direction == b->direction
         && a->direction_given == b->direction_given && a->init == b->init
         && same_number (a->init_a, b->init_a) && same_number (a->init_b, b->init_b)
         && same_number (a->init_c, b->init_c) && g_strcmp0 (a->path, b->path) == 0;
}

static KsBinding *
check_binding (const char *text, const GPtrArray *args)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBinding) binding = ks_binding_parse (text, &error);
  g_autoptr (KsBinding) again = NULL;
  g_autoptr (KsBinding) copy = NULL;
  g_autofree char *written = NULL;
  g_autofree char *rewritten = NULL;
  const KsKernelArg *arg;

  (void) ks_elem_type_parse (text, NULL);
  if (binding == NULL)
    {
      /* KS_ERROR_TOO_LARGE: an array of more than 2 GiB. */
      ks_fuzz_check (g_error_matches (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT)
                       || g_error_matches (error, KS_ERROR, KS_ERROR_TOO_LARGE),
                     "“%s” refused without KS_ERROR_INVALID_ARGUMENT", text);
      return NULL;
    }
  ks_fuzz_check (error == NULL, "a binding and an error");
  written = ks_binding_to_string (binding);
  again = ks_binding_parse (written, &error);
  ks_fuzz_check (again != NULL, "“%s” was written back as “%s”, which is refused: %s", text,
                 written, error->message);
  rewritten = ks_binding_to_string (again);
  ks_fuzz_check (same_binding (binding, again), "“%s” → “%s” → “%s”", text, written,
                 rewritten);
  copy = ks_binding_copy (binding);
  ks_binding_free (g_steal_pointer (&copy));

  arg = find_arg (args, binding->name);
  if (!binding->is_array && arg != NULL && !arg->pointer)
    {
      g_autoptr (GBytes) bytes = ks_binding_pack_scalar (binding, arg, &error);
      if (bytes != NULL)
        ks_fuzz_check (g_bytes_get_size (bytes) == ks_elem_type_size (arg->type),
                       "a scalar of %" G_GSIZE_FORMAT " bytes for %s",
                       g_bytes_get_size (bytes), arg->type_text);
      g_clear_error (&error);
    }
  (void) ks_binding_resolve_direction (binding, arg);
  if (binding->is_array && binding->init != KS_ARRAY_INIT_FILE
      && binding->length <= MAX_ARRAY_LENGTH)
    {
      g_autoptr (KsArray) array = ks_binding_create_array (binding, &error);
      ks_fuzz_check (array != NULL, "“%s”: %s", text, error->message);
      ks_fuzz_check (array->length == binding->length && array->type == binding->type,
                     "the array of “%s”", text);
      for (gsize i = 0; i < MIN (array->length, 4); i++)
        g_free (ks_array_format_element (array, i));
    }
  return g_steal_pointer (&binding);
}

static void
check_bindings (char **lines, const GPtrArray *args, gboolean source_ok)
{
  g_autoptr (GPtrArray) bindings = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   ks_binding_free);
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   ks_diagnostic_free);
  g_autoptr (GPtrArray) defaults = NULL;
  gboolean bindable;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      KsBinding *b = check_binding (lines[i], args);
      if (b != NULL)
        g_ptr_array_add (bindings, b);
    }
  (void) ks_bindings_check (args, bindings, messages);
  for (guint i = 0; i < messages->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (messages, i);
      ks_fuzz_check (d->message != NULL && d->message[0] != '\0', "a message without text");
    }

  /* What a new source starts with runs, where the source has no errors and
   * every argument has a type Kernelscope binds. */
  bindable = source_ok;
  for (guint i = 0; i < args->len; i++)
    bindable &= ((const KsKernelArg *) g_ptr_array_index (args, i))->type != KS_ELEM_OTHER;
  defaults = ks_bindings_default (args, 16);
  g_ptr_array_set_size (messages, 0);
  if (bindable)
    {
      KsBindingCheck check = ks_bindings_check (args, defaults, messages);
      const KsDiagnostic *first = messages->len > 0 ? g_ptr_array_index (messages, 0) : NULL;

      ks_fuzz_check (check != KS_BINDING_ERROR, "the default bindings are refused: %s",
                     first != NULL ? first->message : "no message");
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (KsKernelSource) source = NULL;
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  KsKernelMode mode;
  const uint8_t *nul;

  if (size < 1)
    return 0;
  mode = (KsKernelMode) (data[0] % 3);
  text = ks_fuzz_string (data + 1, size - 1);
  nul = memchr (data + 1, '\0', size - 1);
  if (nul != NULL)
    lines = ks_fuzz_split (nul + 1, size - (gsize) (nul + 1 - data), '\n', MAX_BINDINGS);
  else
    lines = g_new0 (char *, 1);

  source = ks_kernel_source_new (mode, "kernel.cu", text);
  ks_fuzz_check (source != NULL, "no source");
  ks_fuzz_check (ks_kernel_source_get_mode (source) == mode, "mode");
  check_diagnostics (source, text);
  if (!ks_kernel_source_has_errors (source))
    check_params (source);
  check_unit (source);
  {
    guint n_inputs = ks_kernel_source_get_n_inputs (source);
    ks_fuzz_check (n_inputs == 1 || n_inputs == 2, "%u inputs", n_inputs);
  }
  check_bindings (lines, ks_kernel_source_get_args (source),
                  !ks_kernel_source_has_errors (source));
  return 0;
}
