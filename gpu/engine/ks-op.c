#include "config.h"

#include <string.h>

#include "ks-engine-private.h"

/* The op interface: what the engines, the benchmark and the window ask of
 * any op, answered from its tables (KsOpImpl, KsOpKind). Which ops there are
 * is the registry's (gpu/ops/ks-op-registry.c). */

gboolean
ks_op_accepts_format (const KsOp *op, KsFormat format)
{
  return format == KS_FORMAT_RGBA8 || op->impl->accepts_gray;
}

void
ks_op_output_size (const KsOp *op, const KsParams *params, guint width, guint height,
                   guint *out_width, guint *out_height)
{
  *out_width = width;
  *out_height = height;
  if (op->impl->output_size != NULL)
    {
      KsParams defaults;
      if (params == NULL)
        {
          ks_params_init (&defaults, op);
          params = &defaults;
        }
      op->impl->output_size (params, width, height, out_width, out_height);
    }
}

guint64
ks_op_bytes_moved_for (const KsOp *op, const KsParams *params, KsFormat input_format, guint width,
                       guint height)
{
  guint64 in = (guint64) width * height * ks_format_bytes_per_pixel (input_format) * op->n_inputs;
  guint out_w, out_h;

  if (op->output_kind == KS_OP_OUTPUT_HISTOGRAM)
    return in;
  ks_op_output_size (op, params, width, height, &out_w, &out_h);
  in *= MAX (1, op->impl->kind->input_passes);
  return in + (guint64) out_w * out_h * ks_format_bytes_per_pixel (op->output_format);
}

guint64
ks_op_bytes_moved (const KsOp *op, KsFormat input_format, guint width, guint height)
{
  return ks_op_bytes_moved_for (op, NULL, input_format, width, height);
}

void
_ks_op_prepare (const KsOp *op, const KsParams *params, guint in_width, guint in_height,
                KsKernelRun *run)
{
  memset (&run->pixel_params, 0, sizeof run->pixel_params);
  memset (&run->kind_params, 0, sizeof run->kind_params);
  run->kind = op->impl->kind;
  run->ew_id = op->impl->id;
  run->in_width = in_width;
  run->in_height = in_height;
  if (op->impl->prepare != NULL)
    op->impl->prepare (params, run);
}

char *
_ks_run_kernel_key (const KsKernelRun *run)
{
  GString *key = g_string_new (run->kind->name);

  g_string_append_printf (key, "/%d", run->ew_id);
  if (run->kind->kernel_variant != NULL)
    {
      g_string_append_c (key, '/');
      run->kind->kernel_variant (run, key);
    }
  return g_string_free (key, FALSE);
}
