/* test-kernel-math.c: the integer per-pixel math that the CUDA kernels and the
 * CPU engine share (ks-pixel.h, ks-filter.h, ks-resize.h), called directly and
 * compared with references written here from the documented definitions — in
 * doubles, by another integer route, or as the defining property — over every
 * input where the inputs are few and on random ones (reproducible with --seed)
 * otherwise. The engine tests cannot see a fault here in an op whose CPU rows
 * are vectorised separately; these can. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib.h>

#include "ks-filter.h"
#include "ks-image.h"
#include "ks-pixel.h"
#include "ks-resize.h"

/* Packing written here rather than taken from the header: R in the low byte. */
#define PX(r, g, b, a) \
  ((guint32) (r) | (guint32) (g) << 8 | (guint32) (b) << 16 | (guint32) (a) << 24)
#define CH(p, c) (((p) >> (8 * (c))) & 0xffu)

/* Assertions for tight loops: the inputs are named only when a value differs. */
#define CHECK_HEX(got, want, ...) \
  G_STMT_START \
  { \
    guint64 got_ = (got), want_ = (want); \
    if (G_UNLIKELY (got_ != want_)) \
      { \
        g_test_message (__VA_ARGS__); \
        g_assert_cmphex (got_, ==, want_); \
      } \
  } \
  G_STMT_END

#define CHECK_INT(got, want, ...) \
  G_STMT_START \
  { \
    gint64 got_ = (got), want_ = (want); \
    if (G_UNLIKELY (got_ != want_)) \
      { \
        g_test_message (__VA_ARGS__); \
        g_assert_cmpint (got_, ==, want_); \
      } \
  } \
  G_STMT_END

static guint32
rand_u32 (void)
{
  return (guint32) g_test_rand_int ();
}

/* A random integer in [lo, hi]. */
static gint32
rand_in (gint32 lo, gint32 hi)
{
  return (gint32) ((gint64) lo + (gint64) (rand_u32 () % ((guint64) hi - (guint64) lo + 1u)));
}

static void
fill_random_params (KsPixelParams *p)
{
  for (guint k = 0; k < G_N_ELEMENTS (p->i); k++)
    p->i[k] = (gint32) rand_u32 ();
  for (guint k = 0; k < G_N_ELEMENTS (p->f); k++)
    p->f[k] = (float) g_test_rand_double ();
  for (guint t = 0; t < 4; t++)
    for (guint v = 0; v < 256; v++)
      p->lut[t][v] = (guint8) rand_u32 ();
}

/* ==== ks-kernel-common.h ================================================== */

static void
test_common_clamp_u8 (void)
{
  static const gint32 extremes[] = { G_MININT32, G_MININT32 + 1, -65536, 65536, G_MAXINT32 };

  for (gint32 v = -2000; v <= 2000; v++)
    {
      guint want = v < 0 ? 0 : v > 255 ? 255 : (guint) v;
      CHECK_INT (ks_clamp_u8 (v), want, "ks_clamp_u8 (%d)", v);
    }
  for (guint i = 0; i < G_N_ELEMENTS (extremes); i++)
    CHECK_INT (ks_clamp_u8 (extremes[i]), extremes[i] < 0 ? 0 : 255, "ks_clamp_u8 (%d)",
               extremes[i]);
}

static void
test_common_ceil_div (void)
{
  for (guint32 b = 1; b <= 300; b++)
    for (guint32 a = 0; a <= 3000; a++)
      CHECK_INT (ks_ceil_div_u32 (a, b), (gint64) ceil ((double) a / b), "ceil_div (%u, %u)", a,
                 b);
  for (guint i = 0; i < 100000; i++)
    {
      guint32 a = rand_u32 () % (1u << 31), b = 1 + rand_u32 () % (1u << 20);
      guint64 q = ks_ceil_div_u32 (a, b);

      /* The least q with q·b ≥ a. */
      if (G_UNLIKELY (q * b < a || (q > 0 && (q - 1) * b >= a)))
        g_error ("ks_ceil_div_u32 (%u, %u) = %" G_GUINT64_FORMAT, a, b, q);
    }
}

/* ==== ks-pixel.h ========================================================== */

static void
test_pixel_channels (void)
{
  for (guint i = 0; i < 10000; i++)
    {
      guint r = rand_u32 () & 0xff, g = rand_u32 () & 0xff, b = rand_u32 () & 0xff;
      guint a = rand_u32 () & 0xff;
      guint32 p = PX (r, g, b, a);

      CHECK_HEX (KS_RGBA (r, g, b, a), p, "KS_RGBA (%u, %u, %u, %u)", r, g, b, a);
      CHECK_HEX (KS_R (p), r, "KS_R (0x%08x)", p);
      CHECK_HEX (KS_G (p), g, "KS_G (0x%08x)", p);
      CHECK_HEX (KS_B (p), b, "KS_B (0x%08x)", p);
      CHECK_HEX (KS_A (p), a, "KS_A (0x%08x)", p);
    }
}

/* BT.601 from its definition, 0.299 R + 0.587 G + 0.114 B, in doubles. The
 * exact value has three decimals, so 1e-6 absorbs the binary representation
 * error of the weights without reaching the next thousandth; rounding is to
 * nearest with halves up, truncation drops the fraction. */
static guint
ref_luma (guint r, guint g, guint b, gboolean truncate)
{
  double y = 0.299 * r + 0.587 * g + 0.114 * b;

  return (guint) floor (truncate ? y + 1e-6 : y + 0.5 + 1e-6);
}

/* Every RGB triple, both modes, with alpha and the second input varying. */
static void
test_pixel_luma_gray (void)
{
  KsPixelParams round_p, trunc_p;
  guint32 salt = rand_u32 ();

  memset (&round_p, 0, sizeof round_p);
  memset (&trunc_p, 0, sizeof trunc_p);
  trunc_p.i[0] = 1;
  for (guint32 rgb = 0; rgb < (1u << 24); rgb++)
    {
      guint r = CH (rgb, 0), g = CH (rgb, 1), b = CH (rgb, 2);
      guint32 p = rgb | ((rgb * 2654435761u + salt) & 0xff000000u);
      guint32 other = rgb * 2246822519u + salt;
      guint yr = ref_luma (r, g, b, FALSE), yt = ref_luma (r, g, b, TRUE);

      CHECK_INT (ks_luma601 (p, 0), yr, "ks_luma601 (0x%08x, round)", p);
      CHECK_INT (ks_luma601 (p, 1), yt, "ks_luma601 (0x%08x, truncate)", p);
      CHECK_HEX (ks_px_gray (p, other, &round_p) & 0xffu, yr, "ks_px_gray (0x%08x)", p);
      CHECK_HEX (ks_px_gray (p, other, &trunc_p) & 0xffu, yt, "ks_px_gray (0x%08x, truncate)",
                 p);
    }
  /* The documented points: gray of (v, v, v) is v; (0, 255, 0) is 149.685. */
  for (guint v = 0; v < 256; v++)
    {
      CHECK_INT (ks_luma601 (PX (v, v, v, 255 - v), 0), v, "gray of %u", v);
      CHECK_INT (ks_luma601 (PX (v, v, v, v), 1), v, "truncated gray of %u", v);
    }
  g_assert_cmpuint (ks_luma601 (PX (0, 255, 0, 0), 0), ==, 150);
  g_assert_cmpuint (ks_luma601 (PX (0, 255, 0, 0), 1), ==, 149);
  g_assert_cmpuint (ks_luma601 (PX (255, 255, 255, 0), 0), ==, 255);
  g_assert_cmpuint (ks_luma601 (PX (0, 0, 0, 255), 0), ==, 0);
}

/* A pixel with v in channel c and random bytes in the others. */
static guint32
with_channel (guint c, guint v)
{
  guint32 p = rand_u32 ();

  return (p & ~(0xffu << (8 * c))) | (guint32) v << (8 * c);
}

static void
test_pixel_invert (void)
{
  KsPixelParams params;

  fill_random_params (&params);
  for (guint c = 0; c < 4; c++)
    for (guint v = 0; v < 256; v++)
      {
        guint32 a = with_channel (c, v);
        guint32 want = PX (255 - CH (a, 0), 255 - CH (a, 1), 255 - CH (a, 2), CH (a, 3));

        CHECK_HEX (ks_px_invert (a, rand_u32 (), &params), want, "invert (0x%08x)", a);
        CHECK_HEX (ks_px_invert (want, rand_u32 (), &params), a, "invert twice (0x%08x)", a);
      }
  for (guint i = 0; i < 100000; i++)
    {
      guint32 a = rand_u32 ();
      guint32 want = PX (255 - CH (a, 0), 255 - CH (a, 1), 255 - CH (a, 2), CH (a, 3));

      CHECK_HEX (ks_px_invert (a, rand_u32 (), &params), want, "invert (0x%08x)", a);
    }
  g_assert_cmphex (ks_px_invert (PX (0, 255, 0, 255), 0, &params), ==, PX (255, 0, 255, 255));
  g_assert_cmphex (ks_px_invert (PX (255, 0, 128, 0), 0, &params), ==, PX (0, 255, 127, 0));
}

/* Every pair of channel values in R (x + y), G (y + x) and B ((255 − x) + y). */
static void
test_pixel_add (void)
{
  KsPixelParams params;

  fill_random_params (&params);
  for (guint x = 0; x < 256; x++)
    for (guint y = 0; y < 256; y++)
      {
        guint alpha_a = rand_u32 () & 0xff, alpha_b = rand_u32 () & 0xff;
        guint32 a = PX (x, y, 255 - x, alpha_a), b = PX (y, x, y, alpha_b);
        guint32 want = PX (MIN (x + y, 255u), MIN (y + x, 255u), MIN (255 - x + y, 255u), alpha_a);

        CHECK_HEX (ks_px_add (a, b, &params), want, "add (0x%08x, 0x%08x)", a, b);
      }
  g_assert_cmphex (ks_px_add (0xffffffffu, 0xffffffffu, &params), ==, 0xffffffffu);
  g_assert_cmphex (ks_px_add (PX (0, 0, 0, 7), PX (0, 0, 0, 200), &params), ==, PX (0, 0, 0, 7));
  g_assert_cmphex (ks_px_add (PX (200, 10, 0, 5), PX (100, 20, 255, 9), &params), ==,
                   PX (255, 30, 255, 5));
}

/* a·wa + b·wb with the weights in 16.16 fixed point, rounded half up and
 * saturated: every term is an integer over 65536, exact in a double. */
static guint
ref_blend (guint a, guint b, gint32 wa, gint32 wb)
{
  double v = floor (((double) a * wa + (double) b * wb) / 65536.0 + 0.5);

  return v > 255 ? 255 : (guint) v;
}

/* The weights the op passes (0 to 2, lround(w · 65536)) and their neighbours. */
static const gint32 blend_weights[] = {
  0, 1, 255, 256, 32767, 32768, 32769, 49152, 65535, 65536, 65537, 98304, 131071, 131072,
};

static void
test_pixel_blend_channel (void)
{
  KsPixelParams params;
  gint32 extra[2 * 8];

  fill_random_params (&params);
  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    extra[i] = rand_in (0, 131072);
  for (guint i = 0; i < G_N_ELEMENTS (blend_weights) + G_N_ELEMENTS (extra) / 2; i++)
    for (guint j = 0; j < G_N_ELEMENTS (blend_weights); j++)
      {
        gboolean fixed = i < G_N_ELEMENTS (blend_weights);
        gint32 wa = fixed ? blend_weights[i] : extra[2 * (i - G_N_ELEMENTS (blend_weights))];
        gint32 wb = fixed ? blend_weights[j] : extra[2 * (i - G_N_ELEMENTS (blend_weights)) + 1];

        params.i[0] = wa;
        params.i[1] = wb;
        for (guint ca = 0; ca < 256; ca++)
          for (guint cb = 0; cb < 256; cb++)
            CHECK_INT (ks_blend_channel (ca, cb, &params), ref_blend (ca, cb, wa, wb),
                       "blend_channel (%u, %u) with weights %d, %d", ca, cb, wa, wb);
      }
}

static void
test_pixel_blend (void)
{
  KsPixelParams params;
  const guint n_w = G_N_ELEMENTS (blend_weights);

  fill_random_params (&params);
  /* Every pair of the listed weights first, then random ones. */
  for (guint i = 0; i < 200000; i++)
    {
      guint32 a = rand_u32 (), b = rand_u32 ();
      gint32 wa = i < n_w * n_w ? blend_weights[i % n_w] : rand_in (0, 131072);
      gint32 wb = i < n_w * n_w ? blend_weights[i / n_w] : rand_in (0, 131072);
      guint32 want;

      params.i[0] = wa;
      params.i[1] = wb;
      want = PX (ref_blend (CH (a, 0), CH (b, 0), wa, wb), ref_blend (CH (a, 1), CH (b, 1), wa, wb),
                 ref_blend (CH (a, 2), CH (b, 2), wa, wb), CH (a, 3));
      CHECK_HEX (ks_px_blend (a, b, &params), want, "blend (0x%08x, 0x%08x) with %d, %d", a, b,
                 wa, wb);
    }
  /* Weights 0.5 and 0.5: (100 + 200) / 2, 255 / 2 rounded up; 2 and 2 saturate. */
  params.i[0] = params.i[1] = 32768;
  g_assert_cmphex (ks_px_blend (PX (100, 0, 255, 7), PX (200, 255, 255, 1), &params), ==,
                   PX (150, 128, 255, 7));
  params.i[0] = params.i[1] = 131072;
  g_assert_cmphex (ks_px_blend (0xffffffffu, 0xffffffffu, &params), ==, 0xffffffffu);
  params.i[0] = 65536;
  params.i[1] = 0;
  g_assert_cmphex (ks_px_blend (0x12345678u, 0xffffffffu, &params), ==, 0x12345678u);
}

static void
test_pixel_lut (void)
{
  KsPixelParams params;

  fill_random_params (&params);
  for (guint c = 0; c < 4; c++)
    for (guint v = 0; v < 256; v++)
      {
        guint32 a = with_channel (c, v);
        guint32 want = PX (params.lut[0][CH (a, 0)], params.lut[1][CH (a, 1)],
                           params.lut[2][CH (a, 2)], CH (a, 3));

        CHECK_HEX (ks_px_lut (a, rand_u32 (), &params), want, "lut (0x%08x)", a);
      }
  for (guint i = 0; i < 100000; i++)
    {
      guint32 a = rand_u32 ();
      guint32 want = PX (params.lut[0][CH (a, 0)], params.lut[1][CH (a, 1)],
                         params.lut[2][CH (a, 2)], CH (a, 3));

      CHECK_HEX (ks_px_lut (a, rand_u32 (), &params), want, "lut (0x%08x)", a);
    }
  /* The identity keeps every pixel. */
  for (guint t = 0; t < 3; t++)
    for (guint v = 0; v < 256; v++)
      params.lut[t][v] = (guint8) v;
  for (guint i = 0; i < 1000; i++)
    {
      guint32 a = rand_u32 ();
      CHECK_HEX (ks_px_lut (a, 0, &params), a, "identity lut (0x%08x)", a);
    }
}

/* c' = clamp(c + lut[Y] − Y) with Y the rounded luma; alpha kept. */
static guint32
ref_luma_lut (guint32 a, const guint8 *lut)
{
  gint y = (gint) ref_luma (CH (a, 0), CH (a, 1), CH (a, 2), FALSE);
  gint d = lut[y] - y;
  guint32 out = a & 0xff000000u;

  for (guint c = 0; c < 3; c++)
    out |= (guint32) CLAMP ((gint) CH (a, c) + d, 0, 255) << (8 * c);
  return out;
}

static void
test_pixel_luma_lut (void)
{
  KsPixelParams params;
  guint32 salt = rand_u32 ();

  fill_random_params (&params);
  for (guint32 rgb = 0; rgb < (1u << 24); rgb++)
    {
      guint32 a = rgb | ((rgb * 2654435761u + salt) & 0xff000000u);

      CHECK_HEX (ks_px_luma_lut (a, salt, &params), ref_luma_lut (a, params.lut[3]),
                 "luma_lut (0x%08x)", a);
    }
  /* (10, 200, 30) has luma 123.81, so 124: moved by +131 or −124, saturating. */
  memset (params.lut[3], 255, 256);
  g_assert_cmphex (ks_px_luma_lut (PX (10, 200, 30, 9), 0, &params), ==, PX (141, 255, 161, 9));
  memset (params.lut[3], 0, 256);
  g_assert_cmphex (ks_px_luma_lut (PX (10, 200, 30, 9), 0, &params), ==, PX (0, 76, 0, 9));
  /* The identity keeps every pixel. */
  for (guint v = 0; v < 256; v++)
    params.lut[3][v] = (guint8) v;
  for (guint i = 0; i < 1000; i++)
    {
      guint32 a = rand_u32 ();
      CHECK_HEX (ks_px_luma_lut (a, 0, &params), a, "identity luma lut (0x%08x)", a);
    }
}

/* Every map from output channel to input channel (the op's orders among them). */
static void
test_pixel_swap (void)
{
  KsPixelParams params;

  fill_random_params (&params);
  for (guint map = 0; map < 256; map++)
    {
      guint src[4];

      for (guint k = 0; k < 4; k++)
        {
          src[k] = map >> (2 * k) & 3;
          params.i[k] = (gint32) src[k];
        }
      for (guint i = 0; i < 2000; i++)
        {
          guint32 a = rand_u32 ();
          guint8 in[4] = { CH (a, 0), CH (a, 1), CH (a, 2), CH (a, 3) };
          guint32 want = PX (in[src[0]], in[src[1]], in[src[2]], in[src[3]]);

          CHECK_HEX (ks_px_swap (a, rand_u32 (), &params), want, "swap %u%u%u%u (0x%08x)",
                     src[0], src[1], src[2], src[3], a);
        }
    }
  /* bgr, as the op sets it: alpha stays in place. */
  params.i[0] = 2;
  params.i[1] = 1;
  params.i[2] = 0;
  params.i[3] = 3;
  g_assert_cmphex (ks_px_swap (PX (1, 2, 3, 4), 0, &params), ==, PX (3, 2, 1, 4));
}

/* ==== ks-filter.h ========================================================= */

static void
test_filter_clamp (void)
{
  static const gint32 extremes[] = { G_MININT32, -1, 0, 1, G_MAXINT32 };

  for (guint i = 0; i < 200000; i++)
    {
      gint32 lo = (gint32) rand_u32 (), hi = (gint32) rand_u32 (), v = (gint32) rand_u32 ();
      gint64 want;

      if (lo > hi)
        {
          gint32 t = lo;
          lo = hi;
          hi = t;
        }
      if (i % 4 == 0)
        v = rand_in (lo, hi);
      want = (gint64) v < lo ? lo : (gint64) v > hi ? hi : v;
      CHECK_INT (ks_clamp_i32 (v, lo, hi), want, "clamp (%d, %d, %d)", v, lo, hi);
    }
  for (guint i = 0; i < G_N_ELEMENTS (extremes); i++)
    for (guint j = 0; j < G_N_ELEMENTS (extremes); j++)
      {
        gint32 v = extremes[i], lo = MIN (extremes[j], 0), hi = MAX (extremes[j], 0);
        gint64 want = v < lo ? lo : v > hi ? hi : v;
        CHECK_INT (ks_clamp_i32 (v, lo, hi), want, "clamp (%d, %d, %d)", v, lo, hi);
      }
}

/* The index of the pixel nearest to i in a row of n. */
static gint32
nearest_inside (gint32 i, gint32 n)
{
  gint32 best = 0;

  for (gint32 k = 1; k < n; k++)
    if (ABS (i - k) < ABS (i - best))
      best = k;
  return best;
}

/* Clamp to edge, as both engines read the neighbourhood: for 1×1 up to 9×9
 * images and offsets up to the largest radius either side, the pixel read is
 * the nearest inside, and inside the image it is the pixel itself. */
static void
test_filter_clamped_reads (void)
{
  for (gint32 h = 1; h <= 9; h++)
    for (gint32 w = 1; w <= 9; w++)
      {
        guint32 image[9][9];

        for (gint32 y = 0; y < h; y++)
          for (gint32 x = 0; x < w; x++)
            image[y][x] = rand_u32 ();
        for (gint32 y = -KS_FILTER_MAX_RADIUS - 1; y <= h + KS_FILTER_MAX_RADIUS; y++)
          for (gint32 x = -KS_FILTER_MAX_RADIUS - 1; x <= w + KS_FILTER_MAX_RADIUS; x++)
            {
              gint32 cx = ks_clamp_i32 (x, 0, w - 1), cy = ks_clamp_i32 (y, 0, h - 1);

              CHECK_INT (cx, nearest_inside (x, w), "column %d of %d", x, w);
              CHECK_INT (cy, nearest_inside (y, h), "row %d of %d", y, h);
              CHECK_HEX (image[cy][cx], image[nearest_inside (y, h)][nearest_inside (x, w)],
                         "read (%d, %d) of %d×%d", x, y, w, h);
            }
      }
}

/* floor(sqrt(v)) by its definition: r² ≤ v < (r + 1)². */
static void
check_isqrt (guint32 v)
{
  guint64 r = ks_isqrt_u32 (v);

  if (G_UNLIKELY (r * r > v || (r + 1) * (r + 1) <= v))
    g_error ("ks_isqrt_u32 (%u) = %" G_GUINT64_FORMAT, v, r);
}

static void
test_filter_isqrt (void)
{
  for (guint32 v = 0; v < (1u << 22); v++)
    check_isqrt (v);
  /* Every step of the result, at the top of the 32-bit range too. */
  for (guint64 k = 1; k < 65536; k++)
    {
      check_isqrt ((guint32) (k * k));
      check_isqrt ((guint32) (k * k - 1));
      check_isqrt ((guint32) (k * k + 1));
    }
  check_isqrt (G_MAXUINT32);
  check_isqrt (G_MAXUINT32 - 1);
  check_isqrt (1u << 31);
  check_isqrt (1u << 30);
  for (guint i = 0; i < 1000000; i++)
    check_isqrt (rand_u32 ());
  g_assert_cmpuint (ks_isqrt_u32 (G_MAXUINT32), ==, 65535);
  g_assert_cmpuint (ks_isqrt_u32 (0), ==, 0);
}

/* out = clamp(P + (P − B) · amount / 256 rounded half away from zero, 0, 255). */
static guint
ref_unsharp (gint p, gint blurred, gint amount)
{
  double q = round ((double) (p - blurred) * amount / 256.0);

  return (guint) CLAMP ((double) p + q, 0.0, 255.0);
}

static void
test_filter_unsharp (void)
{
  /* 8.8 fixed point, 0 to 5 as the op allows, and the halves that round. */
  static const gint32 amounts[] = { 0, 1, 2, 127, 128, 129, 255, 256, 257, 384, 512, 640, 1024,
                                    1279, 1280 };

  for (guint i = 0; i < G_N_ELEMENTS (amounts) + 16; i++)
    {
      gint32 amount = i < G_N_ELEMENTS (amounts) ? amounts[i] : rand_in (0, 1280);

      for (gint p = 0; p < 256; p++)
        for (gint b = 0; b < 256; b++)
          CHECK_INT (ks_unsharp_channel (p, b, amount), ref_unsharp (p, b, amount),
                     "unsharp (%d, %d, amount %d)", p, b, amount);
    }
  /* Nothing to add back where the blur equals the pixel; amount 1 doubles the detail. */
  for (gint p = 0; p < 256; p++)
    CHECK_INT (ks_unsharp_channel (p, p, 1280), p, "unsharp of a flat %d", p);
  g_assert_cmpuint (ks_unsharp_channel (100, 90, 256), ==, 110);
  g_assert_cmpuint (ks_unsharp_channel (100, 110, 256), ==, 90);
  g_assert_cmpuint (ks_unsharp_channel (250, 0, 1280), ==, 255);
  g_assert_cmpuint (ks_unsharp_channel (5, 255, 1280), ==, 0);
  /* ±0.5 rounds away from zero: 1 · 128 / 256 and −1 · 128 / 256. */
  g_assert_cmpuint (ks_unsharp_channel (100, 99, 128), ==, 101);
  g_assert_cmpuint (ks_unsharp_channel (100, 101, 128), ==, 99);
}

/* Gradients of 8-bit luma under the 3×3 Sobel masks lie in [−1020, 1020]. */
static void
test_filter_sobel_value (void)
{
  for (gint32 gy = -1020; gy <= 1020; gy++)
    for (gint32 gx = -1020; gx <= 1020; gx++)
      {
        gint64 m = (gint64) floor (sqrt ((double) gx * gx + (double) gy * gy));

        CHECK_INT (ks_sobel_value (gx, gy, KS_SOBEL_HORIZONTAL), MIN (ABS (gy), 255),
                   "horizontal (%d, %d)", gx, gy);
        CHECK_INT (ks_sobel_value (gx, gy, KS_SOBEL_VERTICAL), MIN (ABS (gx), 255),
                   "vertical (%d, %d)", gx, gy);
        CHECK_INT (ks_sobel_value (gx, gy, KS_SOBEL_MAGNITUDE), MIN (m, 255),
                   "magnitude (%d, %d)", gx, gy);
      }
  g_assert_cmpuint (ks_sobel_value (3, 4, KS_SOBEL_MAGNITUDE), ==, 5);
  g_assert_cmpuint (ks_sobel_value (-180, 180, KS_SOBEL_MAGNITUDE), ==, 254);
  g_assert_cmpuint (ks_sobel_value (-181, 181, KS_SOBEL_MAGNITUDE), ==, 255);
}

/* n rounded up to a multiple of four, by division. */
static guint64
up4 (guint64 n)
{
  return (n / 4 + (n % 4 != 0)) * 4;
}

/* Words per source row: the left halo padded to four words, then the
 * interior and the right halo, rounded up to four words. */
static guint64
ref_tile_stride (guint32 r, guint32 cols)
{
  return up4 (up4 (r) + cols + r);
}

/* The chunk of rows plus the rows pass's R, G and B sums per output column. */
static guint64
ref_chunk_bytes (guint32 r, guint32 cols, guint32 rows)
{
  return 4 * (guint64) rows * (ref_tile_stride (r, cols) + 3 * (guint64) cols);
}

static void
test_filter_tile_stride (void)
{
  for (guint32 r = 0; r <= KS_FILTER_MAX_RADIUS; r++)
    for (guint32 cols = 1; cols <= 4096; cols++)
      {
        guint64 s = ks_filter_tile_stride (r, cols);

        CHECK_INT (s, ref_tile_stride (r, cols), "tile stride (r %u, %u columns)", r, cols);
        for (guint32 rows = 1; rows <= 144; rows += 13)
          CHECK_INT (ks_filter_chunk_bytes (r, cols, rows), ref_chunk_bytes (r, cols, rows),
                     "chunk bytes (r %u, %u columns, %u rows)", r, cols, rows);
      }
  /* The largest block, 1024 threads in a row at 16 pixels each. */
  g_assert_cmpuint (ks_filter_tile_stride (64, 16384), ==, 64 + 16384 + 64);
  g_assert_cmpuint (ks_filter_tile_stride (1, 1), ==, 8);
  g_assert_cmpuint (ks_filter_tile_stride (0, 5), ==, 8);
}

/* All source rows when they fit in max(16, block.y) and in 48 KB; else
 * max(16, block.y) rows if those fit in 48 KB; else block.y rows. */
static guint32
ref_chunk_rows (guint32 r, guint32 bx, guint32 by, guint32 ppt)
{
  guint32 need = by + 2 * r, cap = MAX (16u, by);
  guint32 rows = need <= cap ? need : cap;

  if (rows != by && ref_chunk_bytes (r, bx * ppt, rows) > 48 * 1024)
    return by;
  return rows;
}

static const guint32 block_x[] = { 1, 2, 8, 16, 32, 64, 128, 256, 512, 1024 };
static const guint32 ppts[] = { 1, 2, 4, 8, 16 };

static void
test_filter_chunk_rows (void)
{
  KsFilterParams f;

  memset (&f, 0, sizeof f);
  f.kind = KS_FILTER_SEPARABLE;
  for (gint32 r = 1; r <= KS_FILTER_MAX_RADIUS; r++)
    for (guint i = 0; i < G_N_ELEMENTS (block_x); i++)
      for (guint32 by = 1; block_x[i] * by <= 1024; by++)
        for (guint k = 0; k < G_N_ELEMENTS (ppts); k++)
          {
            KsDim3 block = { block_x[i], by, 1 };
            guint32 rows;

            f.radius = r;
            rows = ks_filter_chunk_rows (&f, block, ppts[k]);
            CHECK_INT (rows, ref_chunk_rows ((guint32) r, block_x[i], by, ppts[k]),
                       "chunk rows (r %d, %u×%u, %u per thread)", r, block_x[i], by, ppts[k]);
            /* Every thread busy, never more rows than the tile needs. */
            g_assert_cmpuint (rows, >=, by);
            g_assert_cmpuint (rows, <=, by + 2u * (guint32) r);
          }
  /* The documented case: 32×8 at 4 pixels per thread and radius 64 needs 40 KB. */
  f.radius = 64;
  g_assert_cmpuint (ks_filter_shared_bytes (&f, (KsDim3) { 32, 8, 1 }, 4), ==, 40 * 1024);
  /* Radius 1 under 32×8: all ten rows in one chunk. */
  f.radius = 1;
  g_assert_cmpuint (ks_filter_chunk_rows (&f, (KsDim3) { 32, 8, 1 }, 4), ==, 10);
}

/* Direct: not Sobel, 4 or 8 pixels per thread, radius 1 to 3, taps symmetric
 * about the centre. */
static gboolean
ref_uses_direct (const KsFilterParams *f, guint32 ppt)
{
  if (f->kind == KS_FILTER_SOBEL || !(ppt == 4 || ppt == 8) || f->radius < 1 || f->radius > 3)
    return FALSE;
  for (gint32 d = 1; d <= f->radius; d++)
    if (f->taps[f->radius - d] != f->taps[f->radius + d])
      return FALSE;
  return TRUE;
}

/* Symmetric random taps over [0, 2r], random beyond; then each tap in turn
 * made different from its mirror. */
static void
for_each_taps (gint32 r, void (*fn) (const KsFilterParams *f, gpointer data), gpointer data)
{
  KsFilterParams f;

  memset (&f, 0, sizeof f);
  for (guint i = 0; i < G_N_ELEMENTS (f.taps); i++)
    f.taps[i] = rand_in (0, 1024);
  f.radius = r;
  for (gint32 d = 0; d <= r && 2 * r < (gint32) G_N_ELEMENTS (f.taps); d++)
    f.taps[r + d] = f.taps[r - d];
  for (gint32 kind = KS_FILTER_SEPARABLE; kind <= KS_FILTER_SOBEL; kind++)
    {
      f.kind = kind;
      fn (&f, data);
      for (gint32 t = 0; t <= 2 * r && t < (gint32) G_N_ELEMENTS (f.taps); t++)
        {
          KsFilterParams g = f;
          g.taps[t] += 1;
          fn (&g, data);
        }
    }
}

static void
check_uses_direct (const KsFilterParams *f, gpointer data)
{
  for (guint32 ppt = 0; ppt <= 17; ppt++)
    CHECK_INT (ks_filter_uses_direct (f, ppt) != 0, ref_uses_direct (f, ppt),
               "uses_direct (kind %d, r %d, %u per thread)", f->kind, f->radius, ppt);
}

static void
test_filter_uses_direct (void)
{
  KsFilterParams f;

  for (gint32 r = -1; r <= 8; r++)
    for (guint i = 0; i < 4; i++)
      for_each_taps (r, check_uses_direct, NULL);
  /* The ops' masks: box blurs up to 7×7 and small Gaussians, not Sobel. */
  memset (&f, 0, sizeof f);
  f.radius = 3;
  for (guint i = 0; i < 7; i++)
    f.taps[i] = 1;
  g_assert_true (ks_filter_uses_direct (&f, 4));
  g_assert_true (ks_filter_uses_direct (&f, 8));
  g_assert_false (ks_filter_uses_direct (&f, 2));
  f.radius = 4;
  f.taps[7] = f.taps[8] = 1;
  g_assert_false (ks_filter_uses_direct (&f, 4));
  f.radius = 1;
  f.kind = KS_FILTER_SOBEL;
  g_assert_false (ks_filter_uses_direct (&f, 4));
}

typedef struct
{
  KsDim3 block;
  guint32 ppt;
} Launch;

/* Separable and unsharp: the chunk; Sobel: block.y + 2 rows of luma bytes,
 * a word for every four output columns and one word each side; direct: none. */
static void
check_shared_bytes (const KsFilterParams *f, gpointer data)
{
  const Launch *l = data;
  guint64 cols = (guint64) l->block.x * l->ppt, want;

  if (f->radius < 1 || f->radius > KS_FILTER_MAX_RADIUS
      || (f->kind == KS_FILTER_SOBEL && f->radius != 1))
    return;
  if (ref_uses_direct (f, l->ppt))
    want = 0;
  else if (f->kind == KS_FILTER_SOBEL)
    want = (l->block.y + 2) * (4 + up4 (cols) + 4);
  else
    want = ref_chunk_bytes ((guint32) f->radius, (guint32) cols,
                            ref_chunk_rows ((guint32) f->radius, l->block.x, l->block.y, l->ppt));
  CHECK_INT (ks_filter_shared_bytes (f, l->block, l->ppt), want,
             "shared bytes (kind %d, r %d, %u×%u, %u per thread)", f->kind, f->radius,
             l->block.x, l->block.y, l->ppt);
}

static void
test_filter_shared_bytes (void)
{
  for (guint n = 0; n < 3000; n++)
    {
      Launch l;
      guint32 bx = block_x[rand_u32 () % G_N_ELEMENTS (block_x)];

      l.block = (KsDim3) { bx, (guint32) rand_in (1, (gint32) (1024 / bx)), 1 };
      l.ppt = ppts[rand_u32 () % G_N_ELEMENTS (ppts)];
      for_each_taps (n % 8 == 0 ? 1 : rand_in (1, KS_FILTER_MAX_RADIUS), check_shared_bytes, &l);
    }
}

/* ==== ks-resize.h ========================================================= */

static void
check_nearest (guint32 x, guint32 src, guint32 dst)
{
  guint32 i0 = G_MAXUINT32, i1 = G_MAXUINT32, w = G_MAXUINT32;

  ks_resize_axis (x, src, dst, KS_RESIZE_NEAREST, &i0, &i1, &w);
  /* The source cell that holds the output pixel's corner x · src / dst. */
  if (G_UNLIKELY ((guint64) i0 * dst > (guint64) x * src
                  || ((guint64) i0 + 1) * dst <= (guint64) x * src || i0 >= src || i1 != i0
                  || w != 0))
    g_error ("nearest %u of %u from %u: %u, %u, weight %u", x, dst, src, i0, i1, w);
}

/* Centres aligned: the output centre x + ½ sits at u = (x + ½) · src / dst − ½
 * = N / (2 dst) with N = (2x + 1) · src − dst. Left of the first centre
 * (N < 0) the first pixel alone; else x0 = floor(u) (at most src − 1), x1 the
 * next pixel clamped to the edge, and the weight the fraction's top 8 bits,
 * floor(256 · u) mod 256 = floor(128 N / dst) mod 256. */
static void
check_bilinear (guint32 x, guint32 src, guint32 dst)
{
  gint64 n = (2 * (gint64) x + 1) * src - dst;
  guint32 i0 = G_MAXUINT32, i1 = G_MAXUINT32, w = G_MAXUINT32;
  guint32 e0 = 0, e1 = 0, ew = 0;

  if (n >= 0)
    {
      e0 = (guint32) MIN (n / (2 * (gint64) dst), (gint64) src - 1);
      e1 = MIN (e0 + 1, src - 1);
      ew = (guint32) ((128 * n / dst) % 256);
    }
  ks_resize_axis (x, src, dst, KS_RESIZE_BILINEAR, &i0, &i1, &w);
  if (G_UNLIKELY (i0 != e0 || i1 != e1 || w != ew))
    g_error ("bilinear %u of %u from %u: %u, %u, weight %u; expected %u, %u, weight %u", x, dst,
             src, i0, i1, w, e0, e1, ew);
}

static void
test_resize_axis (void)
{
  for (guint32 src = 1; src <= 64; src++)
    for (guint32 dst = 1; dst <= 64; dst++)
      for (guint32 x = 0; x < dst; x++)
        {
          check_nearest (x, src, dst);
          check_bilinear (x, src, dst);
        }
  for (guint i = 0; i < 200000; i++)
    {
      guint32 src = (guint32) rand_in (1, KS_IMAGE_MAX_SIDE);
      guint32 dst = (guint32) rand_in (1, KS_IMAGE_MAX_SIDE);
      guint32 x = i % 4 == 0 ? dst - 1 : i % 4 == 1 ? 0 : (guint32) rand_in (0, (gint32) dst - 1);

      check_nearest (x, src, dst);
      check_bilinear (x, src, dst);
    }
}

/* Properties a user sees: the same size copies, half the size samples between
 * pixel pairs, a one-pixel source gives its pixel everywhere. */
static void
test_resize_axis_cases (void)
{
  guint32 i0, i1, w;

  for (guint32 x = 0; x < 1000; x++)
    {
      ks_resize_axis (x, 1000, 1000, KS_RESIZE_BILINEAR, &i0, &i1, &w);
      CHECK_INT (i0, x, "bilinear identity at %u", x);
      CHECK_INT (w, 0, "bilinear identity weight at %u", x);
      ks_resize_axis (x, 1000, 1000, KS_RESIZE_NEAREST, &i0, &i1, &w);
      CHECK_INT (i0, x, "nearest identity at %u", x);
      ks_resize_axis (x, 2000, 1000, KS_RESIZE_BILINEAR, &i0, &i1, &w);
      CHECK_INT (i0, 2 * x, "halving at %u", x);
      CHECK_INT (i1, 2 * x + 1, "halving at %u", x);
      CHECK_INT (w, 128, "halving weight at %u", x);
      ks_resize_axis (x, 2000, 1000, KS_RESIZE_NEAREST, &i0, &i1, &w);
      CHECK_INT (i0, 2 * x, "nearest halving at %u", x);
      ks_resize_axis (x, 1, 1000, KS_RESIZE_BILINEAR, &i0, &i1, &w);
      CHECK_INT (i0 | i1, 0, "one-pixel source at %u", x);
      ks_resize_axis (x, 1, 1000, KS_RESIZE_NEAREST, &i0, &i1, &w);
      CHECK_INT (i0 | i1, 0, "nearest one-pixel source at %u", x);
    }
  /* Doubling: output 0 lies left of the first centre; output 1 at u = 0.25. */
  ks_resize_axis (0, 10, 20, KS_RESIZE_BILINEAR, &i0, &i1, &w);
  g_assert_cmpuint (i0, ==, 0);
  g_assert_cmpuint (i1, ==, 0);
  g_assert_cmpuint (w, ==, 0);
  ks_resize_axis (1, 10, 20, KS_RESIZE_BILINEAR, &i0, &i1, &w);
  g_assert_cmpuint (i0, ==, 0);
  g_assert_cmpuint (i1, ==, 1);
  g_assert_cmpuint (w, ==, 64);
  /* The last output of an upscale sits right of the last centre: the edge pixel twice. */
  ks_resize_axis (19, 10, 20, KS_RESIZE_BILINEAR, &i0, &i1, &w);
  g_assert_cmpuint (i0, ==, 9);
  g_assert_cmpuint (i1, ==, 9);
  /* 1×1 to 1×1. */
  ks_resize_axis (0, 1, 1, KS_RESIZE_BILINEAR, &i0, &i1, &w);
  g_assert_cmpuint (i0 | i1 | w, ==, 0);
  ks_resize_axis (0, 1, 1, KS_RESIZE_NEAREST, &i0, &i1, &w);
  g_assert_cmpuint (i0 | i1 | w, ==, 0);
}

/* Bilinear interpolation with weights wx/256 and wy/256, rounded half up:
 * every product is an integer over 65536, exact in a double. */
static guint32
ref_resize_blend (const guint32 q[4], guint32 wx, guint32 wy)
{
  double ax = wx / 256.0, ay = wy / 256.0;
  guint32 out = 0;

  for (guint c = 0; c < 4; c++)
    {
      double v = (1 - ax) * (1 - ay) * CH (q[0], c) + ax * (1 - ay) * CH (q[1], c)
                 + (1 - ax) * ay * CH (q[2], c) + ax * ay * CH (q[3], c);
      out |= (guint32) floor (v + 0.5) << (8 * c);
    }
  return out;
}

static void
test_resize_blend (void)
{
  for (guint32 wy = 0; wy < 256; wy++)
    for (guint32 wx = 0; wx < 256; wx++)
      for (guint i = 0; i < 8; i++)
        {
          guint32 q[4] = { rand_u32 (), rand_u32 (), rand_u32 (), rand_u32 () };
          guint32 got;

          if (i == 0)
            q[0] = q[1] = q[2] = q[3] = 0xffffffffu;
          else if (i == 1)
            q[1] = q[2] = q[3] = q[0];
          got = ks_resize_blend (q[0], q[1], q[2], q[3], wx, wy);
          CHECK_HEX (got, ref_resize_blend (q, wx, wy),
                     "blend 0x%08x 0x%08x 0x%08x 0x%08x at %u, %u", q[0], q[1], q[2], q[3], wx,
                     wy);
          /* Four equal pixels give that pixel, whatever the weights. */
          if (i <= 1)
            CHECK_HEX (got, q[0], "blend of four 0x%08x at %u, %u", q[0], wx, wy);
        }
  g_assert_cmphex (ks_resize_blend (0x11223344u, 0xffffffffu, 0, 0xffffffffu, 0, 0), ==,
                   0x11223344u);
  g_assert_cmphex (ks_resize_blend (0, 0xff000000u, 0, 0xff000000u, 128, 0), ==, 0x80000000u);
  g_assert_cmphex (ks_resize_blend (0, 0, 0x000000ffu, 0x000000ffu, 0, 64), ==, 0x00000040u);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ks/math/common/clamp-u8", test_common_clamp_u8);
  g_test_add_func ("/ks/math/common/ceil-div", test_common_ceil_div);

  g_test_add_func ("/ks/math/pixel/channels", test_pixel_channels);
  g_test_add_func ("/ks/math/pixel/luma-gray", test_pixel_luma_gray);
  g_test_add_func ("/ks/math/pixel/invert", test_pixel_invert);
  g_test_add_func ("/ks/math/pixel/add", test_pixel_add);
  g_test_add_func ("/ks/math/pixel/blend-channel", test_pixel_blend_channel);
  g_test_add_func ("/ks/math/pixel/blend", test_pixel_blend);
  g_test_add_func ("/ks/math/pixel/lut", test_pixel_lut);
  g_test_add_func ("/ks/math/pixel/luma-lut", test_pixel_luma_lut);
  g_test_add_func ("/ks/math/pixel/swap", test_pixel_swap);

  g_test_add_func ("/ks/math/filter/clamp", test_filter_clamp);
  g_test_add_func ("/ks/math/filter/clamped-reads", test_filter_clamped_reads);
  g_test_add_func ("/ks/math/filter/isqrt", test_filter_isqrt);
  g_test_add_func ("/ks/math/filter/unsharp", test_filter_unsharp);
  g_test_add_func ("/ks/math/filter/sobel-value", test_filter_sobel_value);
  g_test_add_func ("/ks/math/filter/tile-stride", test_filter_tile_stride);
  g_test_add_func ("/ks/math/filter/chunk-rows", test_filter_chunk_rows);
  g_test_add_func ("/ks/math/filter/uses-direct", test_filter_uses_direct);
  g_test_add_func ("/ks/math/filter/shared-bytes", test_filter_shared_bytes);

  g_test_add_func ("/ks/math/resize/axis", test_resize_axis);
  g_test_add_func ("/ks/math/resize/axis-cases", test_resize_axis_cases);
  g_test_add_func ("/ks/math/resize/blend", test_resize_blend);

  return g_test_run ();
}
