/* ks-op-color.c: ops that change each pixel's colour on its own — tone
 * curves through lookup tables, thresholds, channel permutations and
 * histogram equalisation.
 *
 * Every table is built here, on the host, once per run: both engines then look
 * up the same bytes, so they agree to the bit whatever floating-point
 * functions a device would have used. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-npp.h"

/* Per-pixel ops: one 16-byte load and one store per thread, as the tutorial's. */
#define COLOR_LAUNCH { { 32, 8, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_PER_PIXEL, 0 }
/* The LUT ops (brightness/contrast, gamma, threshold, equalisation) copy their
 * tables into shared memory once per block (kernels/ks-elementwise.cu): a
 * per-pixel launch at 8K UHD repeats that copy and its barrier in 32 400
 * blocks of 1024 pixels, and measured 0.093 ms against invert's 0.067 ms
 * (68 % of the copy, H200). Grid-stride: the auto grid fills the device once
 * and each block copies once for about 30 times as many pixels; the default
 * 4 pixels per thread keeps the walk's prefetch (two 16-byte loads in flight
 * per thread). Not yet timed on the H200. */
#define LUT_LAUNCH { { 32, 8, 1 }, { 1, 1, 1 }, TRUE, KS_LAUNCH_GRID_STRIDE, 0 }

/* ---- brightness and contrast ---------------------------------------------- */

static const KsParamSpec brightness_contrast_params[] = {
  { "brightness", "Brightness",
    "Levels added to every colour channel after the contrast: −255 makes the image black, "
    "255 white",
    KS_PARAM_DOUBLE, -255, 255, 0, NULL, NULL },
  { "contrast", "Contrast",
    "Factor that stretches the levels away from the middle gray (128): 0 makes everything "
    "gray, 1 keeps the image, 2 doubles every distance from 128",
    KS_PARAM_DOUBLE, 0, 4, 1, NULL, NULL },
};

enum { BC_BRIGHTNESS, BC_CONTRAST };

static guint8
clamp_level (double v)
{
  /* round() first: half a level rounds away from zero, the same on every host. */
  v = round (v);
  return v < 0 ? 0 : v > 255 ? 255 : (guint8) v;
}

/* The same table for red, green and blue; alpha never goes through one. */
static void
fill_rgb_luts (KsKernelRun *run, const guint8 *table)
{
  for (guint c = 0; c < 3; c++)
    memcpy (run->pixel_params.lut[c], table, 256);
}

static void
prepare_brightness_contrast (const KsParams *params, KsKernelRun *run)
{
  double brightness = params->values[BC_BRIGHTNESS];
  double contrast = params->values[BC_CONTRAST];
  guint8 table[256];

  for (guint v = 0; v < 256; v++)
    table[v] = clamp_level (((double) v - 128.0) * contrast + 128.0 + brightness);
  fill_rgb_luts (run, table);
}

/* ---- gamma ---------------------------------------------------------------- */

static const KsParamSpec gamma_params[] = {
  { "gamma", "Gamma",
    "Each level v becomes 255 · (v / 255)^(1 / gamma): above 1 the midtones brighten, below 1 "
    "they darken; black and white stay where they are, and 1 changes nothing",
    KS_PARAM_DOUBLE, 0.1, 10, 2.2, NULL, NULL },
};

static void
prepare_gamma (const KsParams *params, KsKernelRun *run)
{
  double inv = 1.0 / params->values[0];
  guint8 table[256];

  for (guint v = 0; v < 256; v++)
    table[v] = clamp_level (255.0 * pow (v / 255.0, inv));
  fill_rgb_luts (run, table);
}

/* ---- threshold ------------------------------------------------------------ */

/* OpenCV's cv::threshold types, in its order, with 255 as the maximum. */
static const char *const threshold_modes[] = {
  "binary", "binary_inv", "trunc", "tozero", "tozero_inv", NULL,
};
static const char *const threshold_mode_titles[] = {
  "Binary (above: 255, else 0)", "Binary inverted (above: 0, else 255)",
  "Truncate (above: the level)", "To zero (at or below: 0)", "To zero inverted (above: 0)", NULL,
};

typedef enum
{
  THRESHOLD_BINARY,
  THRESHOLD_BINARY_INV,
  THRESHOLD_TRUNC,
  THRESHOLD_TOZERO,
  THRESHOLD_TOZERO_INV,
} ThresholdMode;

static const KsParamSpec threshold_params[] = {
  { "level", "Level",
    "The threshold: a channel counts as above it when its value is strictly greater",
    KS_PARAM_INT, 0, 255, 128, NULL, NULL },
  { "mode", "Mode",
    "What happens to each colour channel, as in OpenCV's threshold types: binary sets values "
    "above the level to 255 and the rest to 0, binary_inv the opposite; trunc caps values at the "
    "level; tozero keeps only the values above it, tozero_inv only those at or below it",
    KS_PARAM_CHOICE, 0, 4, THRESHOLD_BINARY, threshold_modes, threshold_mode_titles },
};

enum { THRESHOLD_LEVEL, THRESHOLD_MODE };

static void
prepare_threshold (const KsParams *params, KsKernelRun *run)
{
  guint level = (guint) params->values[THRESHOLD_LEVEL];
  ThresholdMode mode = (ThresholdMode) params->values[THRESHOLD_MODE];
  guint8 table[256];

  for (guint v = 0; v < 256; v++)
    {
      gboolean above = v > level;
      guint out = v;

      switch (mode)
        {
        case THRESHOLD_BINARY:
          out = above ? 255 : 0;
          break;
        case THRESHOLD_BINARY_INV:
          out = above ? 0 : 255;
          break;
        case THRESHOLD_TRUNC:
          out = above ? level : v;
          break;
        case THRESHOLD_TOZERO:
          out = above ? v : 0;
          break;
        case THRESHOLD_TOZERO_INV:
          out = above ? 0 : v;
          break;
        default:
          g_assert_not_reached ();
        }
      table[v] = (guint8) out;
    }
  fill_rgb_luts (run, table);
}

/* ---- channel swap --------------------------------------------------------- */

/* Each id names, in output order, the input channel that lands in the output's
 * red, green and blue: "gbr" puts the input's green in red. */
static const char *const swap_orders[] = { "bgr", "rbg", "grb", "gbr", "brg", "rgb", NULL };
static const char *const swap_order_titles[] = {
  "BGR (swap red and blue)", "RBG (swap green and blue)", "GRB (swap red and green)",
  "GBR (rotate left)", "BRG (rotate right)", "RGB (unchanged)", NULL,
};

static const KsParamSpec channel_swap_params[] = {
  { "order", "Order",
    "Which input channel each output channel takes, read as output red, green, blue: bgr "
    "turns RGB into BGR (and back), gbr moves green into red, blue into green and red into "
    "blue; alpha stays in place",
    KS_PARAM_CHOICE, 0, 5, 0, swap_orders, swap_order_titles },
};

static void
prepare_channel_swap (const KsParams *params, KsKernelRun *run)
{
  const char *order = swap_orders[(guint) params->values[0]];

  /* Source channel per output channel, 0 red … 3 alpha (ks_px_swap). */
  for (guint k = 0; k < 3; k++)
    run->pixel_params.i[k] = order[k] == 'r' ? 0 : order[k] == 'g' ? 1 : 2;
  run->pixel_params.i[3] = 3;
}

/* ---- histogram equalisation ----------------------------------------------- */

static const char *const equalize_modes[] = { "luma", "channels", NULL };
static const char *const equalize_mode_titles[] = {
  "Luma (keeps the colours)", "Each channel on its own", NULL,
};

typedef enum
{
  EQUALIZE_LUMA,
  EQUALIZE_CHANNELS,
} EqualizeMode;

static const KsParamSpec equalize_params[] = {
  { "mode", "Equalise",
    "Luma: one mapping from the brightness histogram, and each pixel's red, green and blue "
    "move by the change of its luma, so hues stay. Channels: red, green and blue each "
    "equalised from their own histogram, which spreads every channel but shifts the colours",
    KS_PARAM_CHOICE, 0, 1, EQUALIZE_LUMA, equalize_modes, equalize_mode_titles },
};

static void
prepare_equalize (const KsParams *params, KsKernelRun *run)
{
  /* The engine validates the launch before the histogram exists: it must
   * already query the kernel that the second pass will run. */
  run->ew_id = params->values[0] == EQUALIZE_CHANNELS ? KS_EW_LUT : KS_EW_LUMA_LUT;
}

/* The classic mapping: lut[v] = round((cdf(v) − cdf_min) · 255 / (N − cdf_min)),
 * cdf_min being the count of the darkest level present, which so maps to 0
 * while the brightest maps to 255. Integers throughout: N · 255 fits 64 bits
 * for any image up to 16384², and ties round up. An image of a single level
 * (N == cdf_min) has nothing to spread and keeps its values. */
static void
equalize_table (const guint32 *histogram, guint64 pixels, guint8 *table)
{
  guint64 cdf = 0, cdf_min = 0, range;

  for (guint v = 0; v < 256 && cdf_min == 0; v++)
    cdf_min = histogram[v];
  range = pixels > cdf_min ? pixels - cdf_min : 0;
  for (guint v = 0; v < 256; v++)
    {
      cdf += histogram[v];
      if (range == 0)
        table[v] = (guint8) v;
      else if (cdf < cdf_min)
        table[v] = 0;
      else
        table[v] = (guint8) MIN (255, ((cdf - cdf_min) * 510 + range) / (2 * range));
    }
}

static void
equalize_luts (const KsParams *params, guint32 (*histogram)[256], guint64 pixels,
               KsKernelRun *run)
{
  if (params->values[0] == EQUALIZE_CHANNELS)
    {
      for (guint c = 0; c < 3; c++)
        equalize_table (histogram[c], pixels, run->pixel_params.lut[c]);
      run->ew_id = KS_EW_LUT;
    }
  else
    {
      equalize_table (histogram[3], pixels, run->pixel_params.lut[3]);
      run->ew_id = KS_EW_LUMA_LUT;
    }
}

/* ---- the registry entries ------------------------------------------------- */

/* NPP looks up the op's own tables with its palette: the time of a lookup
 * does not depend on the table. */
static const KsNppPeer npp_palette = { KS_NPP_LUT_PALETTE_8U_AC4R };

/* In trunc mode nppiThreshold_8u_AC4R with NPP_CMP_GREATER computes the same;
 * the other modes are lookups like any table. */
static gboolean
npp_threshold (const KsOp *op, const KsParams *params, KsFormat format,
               KsNppPeer *peer)
{
  double level = params->values[THRESHOLD_LEVEL];

  if (params->values[THRESHOLD_MODE] != THRESHOLD_TRUNC)
    {
      *peer = npp_palette;
      return TRUE;
    }
  peer->function = KS_NPP_THRESHOLD_8U_AC4R_GT;
  for (guint c = 0; c < 3; c++)
    peer->thresholds[c] = (guint8) CLAMP (level, 0, 255);
  return TRUE;
}

/* nppiSwapChannels takes the source channel of each output channel, as we do. */
static gboolean
npp_channel_swap (const KsOp *op, const KsParams *params, KsFormat format,
                  KsNppPeer *peer)
{
  KsKernelRun run;

  memset (&run, 0, sizeof run);
  prepare_channel_swap (params, &run);
  peer->function = KS_NPP_SWAP_CHANNELS_8U_C4R;
  for (guint k = 0; k < 4; k++)
    peer->order[k] = run.pixel_params.i[k];
  return TRUE;
}

/* Brightness/contrast's defaults make the identity table, which would check
 * nothing against NPP: the benchmark uses a table that moves most levels. */
static const KsOpImpl brightness_contrast_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_LUT, .prepare = prepare_brightness_contrast,
  .bench_settings = "brightness=10,contrast=1.5", .npp = &npp_palette,
};
static const KsOpImpl gamma_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_LUT, .prepare = prepare_gamma,
  .npp = &npp_palette,
};
static const KsOpImpl threshold_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_LUT, .prepare = prepare_threshold,
  .bench_settings = "mode=trunc", .bench_tag = "trunc", .npp_peer = npp_threshold,
};
static const KsOpImpl channel_swap_impl = {
  .kind = &_ks_kind_elementwise, .id = KS_EW_SWAP, .prepare = prepare_channel_swap,
  .npp_peer = npp_channel_swap,
};
static const KsOpImpl equalize_impl = {
  .kind = &_ks_kind_equalize, .id = KS_EW_LUMA_LUT, .prepare = prepare_equalize,
  .equalize = equalize_luts,
};

static const KsOp op_brightness_contrast = {
  "brightness_contrast", "Brightness and contrast", "Colour",
  "Each colour channel v becomes (v − 128) × contrast + 128 + brightness, rounded and "
  "clamped to 0–255: one lookup table of 256 entries, computed once per run; alpha is kept",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, brightness_contrast_params,
  G_N_ELEMENTS (brightness_contrast_params), LUT_LAUNCH, 0, &brightness_contrast_impl,
};

static const KsOp op_gamma = {
  "gamma", "Gamma", "Colour",
  "A power curve on each colour channel, 255 · (v / 255)^(1 / gamma), rounded and looked up "
  "in a table of 256 entries; alpha is kept",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, gamma_params, G_N_ELEMENTS (gamma_params),
  LUT_LAUNCH, 0, &gamma_impl,
};

static const KsOp op_threshold = {
  "threshold", "Threshold", "Colour",
  "Compares each colour channel with a level and replaces it as OpenCV's threshold does "
  "(maximum 255); the channels are thresholded one by one, alpha is kept",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, threshold_params, G_N_ELEMENTS (threshold_params),
  LUT_LAUNCH, 0, &threshold_impl,
};

static const KsOp op_channel_swap = {
  "channel_swap", "Channel swap", "Colour",
  "Reorders red, green and blue, for example RGB to BGR for code that expects BGR; alpha is "
  "kept. Pure data movement: the speed of a copy",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, channel_swap_params, G_N_ELEMENTS (channel_swap_params),
  COLOR_LAUNCH, 0, &channel_swap_impl,
};

static const KsOp op_equalize = {
  "equalize", "Histogram equalisation", "Colour",
  "Spreads the levels so that each is about equally common: two kernels, the input's "
  "histogram and then a lookup table from its cumulative counts (the darkest level present "
  "becomes 0, the brightest 255); alpha is kept",
  1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8, equalize_params, G_N_ELEMENTS (equalize_params),
  LUT_LAUNCH, 0, &equalize_impl,
};

/* This file's ops, for the registry. */
const KsOp *const _ks_ops_color[] = {
  &op_brightness_contrast,
  &op_gamma,
  &op_threshold,
  &op_channel_swap,
  &op_equalize,
  NULL,
};
