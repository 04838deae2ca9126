/* ks-op-impl.h: the registry's entries, defined next to their conversions in
 * the gpu/ks-ops-*.c files. Adding an op: its kernel in kernels/, its KsOp
 * (with its KsOpImpl) in a ks-ops-*.c file, and one line here and in the
 * registry's list (ks-op-registry.c). */
#pragma once

#include "ks-engine-private.h"

G_BEGIN_DECLS

/* The tutorial's ops (ks-op-registry.c) */
extern const KsOp _ks_op_invert;
extern const KsOp _ks_op_gray;
extern const KsOp _ks_op_add;
extern const KsOp _ks_op_blend;
extern const KsOp _ks_op_histogram;

/* Colour ops (ks-ops-color.c) */
extern const KsOp _ks_op_brightness_contrast;
extern const KsOp _ks_op_gamma;
extern const KsOp _ks_op_threshold;
extern const KsOp _ks_op_channel_swap;
extern const KsOp _ks_op_equalize;

/* Filters (ks-ops-filter.c) */
extern const KsOp _ks_op_box_blur;
extern const KsOp _ks_op_gaussian_blur;
extern const KsOp _ks_op_sobel;
extern const KsOp _ks_op_sharpen;

/* Geometry (ks-ops-geometry.c) */
extern const KsOp _ks_op_resize;

G_END_DECLS
