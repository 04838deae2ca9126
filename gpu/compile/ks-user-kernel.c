/* ks-user-kernel.c: the kernel source model: modes, arguments, the
 * diagnostics the readers add at the user's lines, and KsKernelSource's
 * reference count and accessors. The readers fill it in:
 * ks_kernel_source_new (ks-user-kernel-signature.c) lexes the text
 * (ks-user-kernel-lexer.c), reads its annotations
 * (ks-user-kernel-annotations.c), then its entry's signature; the
 * translation unit is built in ks-user-kernel-unit.c. */
#include "config.h"

#include <string.h>

#include "ks-user-kernel-private.h"

/* ---- modes and arguments -------------------------------------------------- */

static const char *const mode_names[] = { "expression", "image", "any" };

const char *
ks_kernel_mode_name (KsKernelMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), NULL);
  return mode_names[mode];
}

gboolean
ks_kernel_mode_parse (const char *name, KsKernelMode *mode)
{
  g_return_val_if_fail (name != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_ascii_strcasecmp (name, mode_names[i]) == 0)
      {
        if (mode != NULL)
          *mode = (KsKernelMode) i;
        return TRUE;
      }
  return FALSE;
}

KsKernelArg *
ks_kernel_arg_copy (const KsKernelArg *arg)
{
  KsKernelArg *copy;

  g_return_val_if_fail (arg != NULL, NULL);
  copy = g_new0 (KsKernelArg, 1);
  *copy = *arg;
  copy->name = g_strdup (arg->name);
  copy->type_text = g_strdup (arg->type_text);
  copy->value = arg->value != NULL ? ks_value_type_ref (arg->value) : NULL;
  copy->type_problem = g_strdup (arg->type_problem);
  return copy;
}

void
ks_kernel_arg_free (KsKernelArg *arg)
{
  if (arg == NULL)
    return;
  g_free (arg->name);
  g_free (arg->type_text);
  g_clear_pointer (&arg->value, ks_value_type_unref);
  g_free (arg->type_problem);
  g_free (arg);
}

/* ---- diagnostics ---------------------------------------------------------- */

void
_ks_user_kernel_add_diagnostic (KsKernelSource *self, KsDiagnosticSeverity severity, guint line,
                                guint column, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->diagnostics,
                   ks_diagnostic_new (severity, self->file_name, line, column, message));
}

/* ---- the source ----------------------------------------------------------- */

KsKernelSource *
ks_kernel_source_ref (KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  g_atomic_int_inc (&source->ref_count);
  return source;
}

void
ks_kernel_source_unref (KsKernelSource *source)
{
  if (source == NULL || !g_atomic_int_dec_and_test (&source->ref_count))
    return;
  g_free (source->file_name);
  g_free (source->text);
  g_free (source->entry);
  g_free (source->kernel_option);
  g_strfreev (source->kernels);
  g_free (source->source_dir);
  g_strfreev (source->include_dirs);
  g_ptr_array_unref (source->headers);
  g_ptr_array_unref (source->diagnostics);
  g_ptr_array_unref (source->args);
  g_ptr_array_unref (source->strings);
  g_hash_table_unref (source->types);
  g_free (source);
}

KsKernelMode
ks_kernel_source_get_mode (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, KS_KERNEL_MODE_EXPRESSION);
  return source->mode;
}

const char *
ks_kernel_source_get_text (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->text;
}

const char *
ks_kernel_source_get_file_name (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->file_name;
}

const GPtrArray *
ks_kernel_source_get_diagnostics (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->diagnostics;
}

gboolean
ks_kernel_source_has_errors (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, TRUE);
  for (guint i = 0; i < source->diagnostics->len; i++)
    if (((const KsDiagnostic *) g_ptr_array_index (source->diagnostics, i))->severity
        == KS_DIAGNOSTIC_ERROR)
      return TRUE;
  return FALSE;
}

const char *
ks_kernel_source_get_entry (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->entry;
}

const char *const *
ks_kernel_source_get_kernels (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return (const char *const *) source->kernels;
}

const char *
ks_kernel_source_get_kernel_option (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->kernel_option;
}

const char *
ks_kernel_source_get_source_dir (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->source_dir;
}

const char *const *
ks_kernel_source_get_include_dirs (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return (const char *const *) source->include_dirs;
}

const GPtrArray *
ks_kernel_source_get_headers (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->headers;
}

const GPtrArray *
ks_kernel_source_get_args (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->args;
}

const KsParamSpec *
ks_kernel_source_get_params (const KsKernelSource *source, guint *n_params)
{
  g_return_val_if_fail (source != NULL, NULL);
  if (n_params != NULL)
    *n_params = source->n_params;
  return source->params;
}

void
ks_kernel_source_init_params_op (const KsKernelSource *source, KsOp *op)
{
  g_return_if_fail (source != NULL && op != NULL);
  memset (op, 0, sizeof *op);
  op->id = source->file_name;
  op->title = source->file_name;
  op->group = "User";
  op->n_inputs = source->n_inputs;
  op->output_kind = KS_OP_OUTPUT_IMAGE;
  op->output_format = source->output_format;
  op->params = source->params;
  op->n_params = source->n_params;
  op->default_launch = source->launch;
  op->default_pixels_per_thread = source->launch.pixels_per_thread;
}

guint
ks_kernel_source_get_n_inputs (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, 1);
  return source->n_inputs;
}

KsFormat
ks_kernel_source_get_output_format (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, KS_FORMAT_RGBA8);
  return source->output_format;
}

void
ks_kernel_source_get_default_launch (const KsKernelSource *source, KsLaunchConfig *launch)
{
  g_return_if_fail (source != NULL && launch != NULL);
  *launch = source->launch;
}

guint64
ks_kernel_source_get_dynamic_shared (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, 0);
  return source->dynamic_shared;
}
