/* ks-op-list.h: the element-wise ops that both engines instantiate.
 *
 * X (ID, name, pixel function, number of inputs, writes gray, reads the LUTs)
 * The README's "Adding an operation" says what else an op needs.
 */
#pragma once

#include <stddef.h>

#include "ks-pixel.h"

#define KS_ELEMENTWISE_OPS(X)                       \
  X (INVERT, invert, ks_px_invert, 1, 0, 0)         \
  X (GRAY, gray, ks_px_gray, 1, 1, 0)               \
  X (ADD, add, ks_px_add, 2, 0, 0)                  \
  X (BLEND, blend, ks_px_blend, 2, 0, 0)            \
  X (LUT, lut, ks_px_lut, 1, 0, 1)                  \
  X (LUMA_LUT, luma_lut, ks_px_luma_lut, 1, 0, 1)   \
  X (SWAP, swap, ks_px_swap, 1, 0, 0)

typedef enum
{
#define KS_X_ENUM(ID, name, fn, n_in, gray, lut) KS_EW_##ID,
  KS_ELEMENTWISE_OPS (KS_X_ENUM)
#undef KS_X_ENUM
  KS_EW_N
} KsElementwiseId;

typedef enum
{
  KS_HIST_GLOBAL_ATOMICS = 0, /* one global atomic per pixel and channel */
  KS_HIST_SHARED = 1          /* privatised per warp in shared memory, merged once per block */
} KsHistogramMethod;

#define KS_HIST_BINS 256
#define KS_HIST_CHANNELS 4 /* R, G, B, luma */

/* Privatised copies of the bins per block for the shared-memory histogram:
 * one per warp, as many as fit in 32 KiB (more would cut occupancy), at least one. */
KS_HD uint32_t
ks_histogram_copies (uint32_t channels, uint32_t threads_per_block)
{
  uint32_t warps = (threads_per_block + 31u) / 32u;
  uint32_t fit = 32768u / (channels * KS_HIST_BINS * 4u);
  uint32_t n = warps < fit ? warps : fit;
  return n > 0 ? n : 1u;
}

KS_HD size_t
ks_histogram_shared_bytes (KsHistogramMethod method, uint32_t channels, uint32_t threads_per_block)
{
  if (method != KS_HIST_SHARED)
    return 0;
  return (size_t) ks_histogram_copies (channels, threads_per_block) * channels * KS_HIST_BINS * 4u;
}
