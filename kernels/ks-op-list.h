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
  KS_HIST_SHARED = 1          /* privatised in shared memory, a copy per lane, merged once per block */
} KsHistogramMethod;

#define KS_HIST_BINS 256
#define KS_HIST_CHANNELS 4 /* R, G, B, luma */

/* The shared-memory histogram keeps, per block, `columns` copies of the bins
 * interleaved word by word: bin b of channel c has its copies at words
 * (c * 256 + b) * columns + k, and lane l of every warp counts into copy
 * l % columns. With 32 columns (gray) lane l always hits bank l, so a warp's
 * atomics never meet in a bank, whatever the values; with 16 (four channels)
 * lanes l and l + 16 share a column. A power of two, no more than a warp's
 * lanes nor than the block has threads (rounded up), 64 KiB in all, at
 * least one.
 *
 * 64 KiB is past the 48 KiB a kernel may have without opting in; the
 * launchers opt in, and ks_launch_config_validate holds every kernel to the
 * device's opt-in limit. Measured at 8K on the H200 with 32×16 blocks, four
 * channels: 8 copies in 32 KiB took 0.0573 ms on the photo and 0.0628 on
 * uniform random pixels, 16 copies 0.0516 and 0.0521, though three blocks of
 * 65 KiB fit a multiprocessor where four of 33 KiB did. Gray with 64 copies
 * (the second 32 for odd warps, a count's address one byte permute away
 * from the pixel) was slower: 0.0141 ms against 0.0133. */
#define KS_HIST_SHARED_BUDGET 65536u
#define KS_HIST_MOST_COLUMNS 32u

KS_HD uint32_t
ks_histogram_columns (uint32_t channels, uint32_t threads_per_block)
{
  uint32_t fit = KS_HIST_SHARED_BUDGET / (channels * KS_HIST_BINS * 4u);
  uint32_t n = 1;

  while (n < KS_HIST_MOST_COLUMNS && n < fit && n < threads_per_block)
    n *= 2u;
  return n;
}

/* A histogram's device buffer holds KS_HIST_SETS sets of counters, used in
 * turn: launch g counts into set g % KS_HIST_SETS and clears set g + 1 for the
 * next launch. No launch needs the counters cleared before it (a memset is a
 * second command on the stream, 1.4 us at 8K on the H200), no block waits for
 * another, and the result of launch g stays readable until launch g + 2 clears
 * it.
 *
 * A set holds KS_HIST_COPIES copies of the four channels' counters, which the
 * reader adds up: block b of a shared-memory launch adds its sums into copy
 * b % KS_HIST_COPIES (global atomics count into copy 0). With one copy, the
 * blocks' sums met at the same counters as the blocks finished together, one
 * atomic after the other at each: at 8K on the H200, 525 blocks of the gray
 * kernel took 0.0160 ms with those atomics and 0.0135 ms without them; with
 * the copies, the 390 blocks of a 32×16 launch took 0.0133 ms. */
#define KS_HIST_SETS 3u
#define KS_HIST_COPIES 16u
#define KS_HIST_COPY_WORDS (KS_HIST_CHANNELS * KS_HIST_BINS)
#define KS_HIST_SET_WORDS (KS_HIST_COPIES * KS_HIST_COPY_WORDS)

/* The 32-bit words of a histogram's device buffer, all zero when allocated. */
#define KS_HIST_DEVICE_WORDS (KS_HIST_SETS * KS_HIST_SET_WORDS)

/* Where launch `generation` counts: its set's first word in the buffer. */
KS_HD uint32_t
ks_histogram_set_offset (uint64_t generation)
{
  return (uint32_t) (generation % KS_HIST_SETS) * KS_HIST_SET_WORDS;
}

KS_HD size_t
ks_histogram_shared_bytes (KsHistogramMethod method, uint32_t channels, uint32_t threads_per_block)
{
  if (method != KS_HIST_SHARED)
    return 0;
  return (size_t) ks_histogram_columns (channels, threads_per_block) * channels * KS_HIST_BINS * 4u;
}
