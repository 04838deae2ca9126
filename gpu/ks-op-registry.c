#include "config.h"

#include <string.h>

#include "ks-engine-private.h"

/* The registry, in the order the op panel lists them within their groups: one
 * line per op (the README's "Adding an operation" tells the rest). */
#define KS_REGISTRY(X)                                                           \
  /* the tutorial's: ks-op-elementwise.c, ks-op-histogram.c */                   \
  X (invert) X (gray) X (add) X (blend) X (histogram)                            \
  /* colour: ks-ops-color.c */                                                   \
  X (brightness_contrast) X (gamma) X (threshold) X (channel_swap) X (equalize)  \
  /* filters: ks-op-filter.c */                                                 \
  X (box_blur) X (gaussian_blur) X (sobel) X (sharpen)                           \
  /* geometry: ks-op-resize.c */                                              \
  X (resize)

#define KS_X_DECLARE(name) extern const KsOp _ks_op_##name;
KS_REGISTRY (KS_X_DECLARE)
#undef KS_X_DECLARE

static const KsOp *const registry[] = {
#define KS_X_ENTRY(name) &_ks_op_##name,
  KS_REGISTRY (KS_X_ENTRY)
#undef KS_X_ENTRY
};

guint
ks_op_registry_count (void)
{
  return G_N_ELEMENTS (registry);
}

const KsOp *
ks_op_registry_get (guint index)
{
  g_return_val_if_fail (index < G_N_ELEMENTS (registry), NULL);
  return registry[index];
}

const KsOp *
ks_op_registry_lookup (const char *id)
{
  g_return_val_if_fail (id != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (registry); i++)
    if (g_str_equal (registry[i]->id, id))
      return registry[i];
  return NULL;
}

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
_ks_op_prepare (const KsOp *op, const KsParams *params, KsKernelRun *run)
{
  memset (&run->pixel_params, 0, sizeof run->pixel_params);
  memset (&run->filter, 0, sizeof run->filter);
  memset (&run->resize, 0, sizeof run->resize);
  run->kind = op->impl->kind;
  run->ew_id = op->impl->id;
  run->histogram_method = KS_HIST_SHARED;
  if (op->impl->prepare != NULL)
    op->impl->prepare (params, run);
}
