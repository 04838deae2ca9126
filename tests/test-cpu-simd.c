/* test-cpu-simd.c: every vector level of the CPU engine (ks-cpu-simd.c: the
 * portable loops, AVX2, AVX-512, as far as this processor goes) against
 * references written here from kernels/ks-pixel.h and kernels/ks-filter.h,
 * and against each other: the luma for every RGB triple, the filters' passes
 * at every length up to a few vectors (guard bytes around the output catch a
 * write past its end), the blurs and the sharpen through the engine on
 * random images of odd sizes and on a sample photo. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-cpu-simd.h"
#include "ks-engine-private.h"
#include "ks-test-helpers.h"

#define GUARD 64

static KsEngine *engine;

static const char *
level_name (KsCpuSimd level)
{
  return _ks_cpu_simd_name (level);
}

/* ---- luma ------------------------------------------------------------------ */

static void
test_luma_every_rgb (void)
{
  const guint n = 4093;  /* a prime: rows end at every phase of the vectors */
  g_autofree guint8 *px = g_malloc (4 * (gsize) n + 3);
  g_autofree guint8 *out = g_malloc (n + GUARD);
  g_autofree guint8 *ref = g_malloc (n);

  for (KsCpuSimd level = KS_CPU_SIMD_PORTABLE; level <= _ks_cpu_simd_supported (); level++)
    for (guint truncate = 0; truncate < 2; truncate++)
      {
        guint32 bias = truncate ? 0u : 500u;

        _ks_cpu_simd_force (level);
        for (guint32 first = 0; first < (1u << 24); first += n)
          {
            guint m = (guint) MIN ((guint32) n, (1u << 24) - first);
            /* one byte off word alignment: rows of an image need not be aligned */
            guint8 *a = px + 1;

            for (guint i = 0; i < m; i++)
              {
                guint32 rgb = first + i;
                a[4 * i] = (guint8) rgb;
                a[4 * i + 1] = (guint8) (rgb >> 8);
                a[4 * i + 2] = (guint8) (rgb >> 16);
                a[4 * i + 3] = (guint8) (rgb * 2654435761u >> 24);
                ref[i] = ks_test_ref_gray (rgb & 0xff, rgb >> 8 & 0xff, rgb >> 16, truncate);
              }
            memset (out, KS_TEST_POISON, m + GUARD);
            if (!_ks_cpu_simd_luma_row (a, out, m, bias))
              {
                /* No vector loop at this level: the engine's own row runs. */
                g_assert_cmpint (level, ==, KS_CPU_SIMD_PORTABLE);
                _ks_cpu_luma_row (a, out, m, bias);
              }
            if (memcmp (out, ref, m) != 0)
              for (guint i = 0; i < m; i++)
                if (out[i] != ref[i])
                  g_error ("%s, truncate %u: luma of 0x%06x is %u, not %u", level_name (level),
                           truncate, first + i, out[i], ref[i]);
            for (guint i = m; i < m + GUARD; i++)
              g_assert_cmpuint (out[i], ==, KS_TEST_POISON);
          }
      }
  _ks_cpu_simd_force (_ks_cpu_simd_supported ());
}

static void
test_luma_lengths (void)
{
  GRand *rand = g_rand_new_with_seed (7);
  guint8 px[4 * 200], out[200 + GUARD];

  for (guint i = 0; i < sizeof px; i++)
    px[i] = (guint8) g_rand_int (rand);
  for (KsCpuSimd level = KS_CPU_SIMD_AVX2; level <= _ks_cpu_simd_supported (); level++)
    {
      _ks_cpu_simd_force (level);
      for (guint n = 0; n <= 200; n++)
        {
          memset (out, KS_TEST_POISON, sizeof out);
          g_assert_true (_ks_cpu_simd_luma_row (px, out, n, 500));
          for (guint i = 0; i < n; i++)
            g_assert_cmpuint (out[i], ==,
                              ks_test_ref_gray (px[4 * i], px[4 * i + 1], px[4 * i + 2], FALSE));
          for (guint i = n; i < sizeof out; i++)
            g_assert_cmpuint (out[i], ==, KS_TEST_POISON);
        }
    }
  if (_ks_cpu_simd_supported () < KS_CPU_SIMD_AVX2)
    g_test_skip ("no AVX2 on this processor: only the portable loop runs");
  _ks_cpu_simd_force (_ks_cpu_simd_supported ());
  g_rand_free (rand);
}

/* ---- the filters' passes, called directly ------------------------------------ */

/* Symmetric taps of radius e: a Gaussian's shape, and the largest values
 * Σ taps ≤ 1024 allows, so that the sums reach their widest. */
static void
make_taps (guint e, gboolean widest, guint32 *w)
{
  static const guint32 shapes[4][7] = {
    { 0 },
    { 109, 806, 109 },
    { 6, 192, 628, 192, 6 },
    { 4, 54, 242, 424, 242, 54, 4 },
  };

  for (guint k = 0; k <= 2 * e; k++)
    w[k] = widest ? (k == e ? 1024 - 2 * e : 1) : shapes[e][k];
}

static void
test_passes_lengths (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  guint8 src[7][4 * 80];
  guint32 v[4 * 80 + 6 * 4 + GUARD], w[7];
  guint8 centre[4 * 80], dst[4 * 80 + GUARD];
  const guint8 *rows[7];

  for (guint k = 0; k < 7; k++)
    {
      for (guint i = 0; i < sizeof src[k]; i++)
        src[k][i] = (guint8) g_rand_int (rand);
      rows[k] = src[k];
    }
  for (guint i = 0; i < sizeof centre; i++)
    centre[i] = (guint8) g_rand_int (rand);

  for (KsCpuSimd level = KS_CPU_SIMD_AVX2; level <= _ks_cpu_simd_supported (); level++)
    for (guint e = 1; e <= 3; e++)
      for (guint widest = 0; widest < 2; widest++)
        {
          _ks_cpu_simd_force (level);
          make_taps (e, widest, w);
          /* vertical: m lanes, any count (the edge columns make it any) */
          for (gsize m = 0; m <= 4 * 64 + 3; m++)
            {
              for (guint i = 0; i < G_N_ELEMENTS (v); i++)
                v[i] = 0xa5a5a5a5u;
              g_assert_true (_ks_cpu_simd_vsum_u8 (v, rows, w, e, m));
              for (gsize i = 0; i < m; i++)
                {
                  guint64 s = 0;
                  for (guint k = 0; k <= 2 * e; k++)
                    s += (guint64) w[k] * rows[k][i];
                  g_assert_cmpuint (v[i], ==, s);
                }
              for (gsize i = m; i < G_N_ELEMENTS (v); i++)
                g_assert_cmpuint (v[i], ==, 0xa5a5a5a5u);
            }
          /* horizontal: n pixels from n + 2e columns of sums of full range */
          for (guint i = 0; i < G_N_ELEMENTS (v); i++)
            v[i] = g_rand_int_range (rand, 0, 255 * 1024 + 1);
          for (guint n = 0; n <= 70; n++)
            {
              memset (dst, KS_TEST_POISON, sizeof dst);
              g_assert_true (_ks_cpu_simd_hsum_shift (dst, v, w, e, n, 1u << 19, 20, centre));
              for (gsize j = 0; j < 4 * (gsize) n; j++)
                {
                  guint64 s = 0;
                  guint expected;

                  for (guint k = 0; k <= 2 * e; k++)
                    s += (guint64) w[k] * v[j + 4 * k];
                  /* alpha lanes are the centre's; the others the low byte, as the cast */
                  expected = (j & 3) == 3 ? centre[j] : (guint8) ((s + (1u << 19)) >> 20);
                  g_assert_cmpuint (dst[j], ==, expected);
                }
              for (gsize j = 4 * (gsize) n; j < sizeof dst; j++)
                g_assert_cmpuint (dst[j], ==, KS_TEST_POISON);
            }
        }
  /* What no vector loop takes: the caller's portable loops run. */
  _ks_cpu_simd_force (KS_CPU_SIMD_PORTABLE);
  make_taps (2, FALSE, w);
  g_assert_false (_ks_cpu_simd_vsum_u8 (v, rows, w, 2, 16));
  g_assert_false (_ks_cpu_simd_hsum_shift (dst, v, w, 2, 4, 1u << 19, 20, centre));
  _ks_cpu_simd_force (_ks_cpu_simd_supported ());
  g_assert_false (_ks_cpu_simd_vsum_u8 (v, rows, w, 4, 16));
  g_assert_false (_ks_cpu_simd_hsum_shift (dst, v, w, 0, 4, 1u << 19, 20, centre));
  if (_ks_cpu_simd_supported () < KS_CPU_SIMD_AVX2)
    g_test_skip ("no AVX2 on this processor: only the portable loops run");
  g_rand_free (rand);
}

/* ---- whole filters through the engine ---------------------------------------- */

/* ks-filter.h's definition as a direct double sum, clamp to edge. */
static KsImage *
ref_separable (const KsImage *a, const gint64 *taps, int r, gint64 amount)
{
  KsImage *out = ks_test_image_new (KS_FORMAT_RGBA8, a->width, a->height);
  gint64 t = 0;

  for (int i = 0; i <= 2 * r; i++)
    t += taps[i];
  for (gint64 y = 0; y < a->height; y++)
    for (gint64 x = 0; x < a->width; x++)
      {
        guint32 p = ks_image_get_rgba (a, (guint) x, (guint) y), v = p & 0xff000000u;

        for (int c = 0; c < 3; c++)
          {
            gint64 s = 0, b, ch = p >> (8 * c) & 0xff;

            for (int j = -r; j <= r; j++)
              for (int i = -r; i <= r; i++)
                s += taps[j + r] * taps[i + r]
                     * (ks_image_get_rgba (a, (guint) CLAMP (x + i, 0, (gint64) a->width - 1),
                                           (guint) CLAMP (y + j, 0, (gint64) a->height - 1))
                          >> (8 * c)
                        & 0xff);
            b = (s + t * t / 2) / (t * t);
            if (amount >= 0)
              {
                gint64 d = (ch - b) * amount;
                gint64 q = d >= 0 ? (d + 128) >> 8 : -((-d + 128) >> 8);
                b = CLAMP (ch + q, 0, 255);
              }
            v |= (guint32) b << (8 * c);
          }
        ks_image_set_rgba (out, (guint) x, (guint) y, v);
      }
  return out;
}

/* The op's taps, as ks-op-filter.c documents them. */
static int
gaussian_taps (double sigma, gint64 *taps)
{
  double g[129], total = 0;
  gint64 sum = 0;
  int r = CLAMP ((int) ceil (3 * sigma), 1, 64);

  for (int i = -r; i <= r; i++)
    total += g[i + r] = exp (-(double) (i * i) / (2 * sigma * sigma));
  for (int i = 0; i <= 2 * r; i++)
    sum += taps[i] = llround (1024 * g[i] / total);
  taps[r] += 1024 - sum;
  return r;
}

typedef struct
{
  const char *op;
  const char *params[3];
  double sigma;   /* Gaussian or sharpen radius; 0: box */
  int box_r;
  gint64 amount;  /* sharpen, 8.8; −1: a blur */
} FilterCase;

/* Radius 1 to 3 after trimming (the vector loops), a power-of-two divisor
 * and not (box: vertical pass only), one too wide for them (σ 1.5), and the
 * sharpen, whose horizontal pass feeds the unsharp step. */
static const FilterCase filter_cases[] = {
  { "gaussian_blur", { "sigma=0.5" }, 0.5, 0, -1 },
  { "gaussian_blur", { "sigma=0.65" }, 0.65, 0, -1 },
  { "gaussian_blur", { "sigma=1" }, 1.0, 0, -1 },
  { "gaussian_blur", { "sigma=1.5" }, 1.5, 0, -1 },
  { "box_blur", { "radius=1" }, 0, 1, -1 },
  { "box_blur", { "radius=3" }, 0, 3, -1 },
  { "sharpen", { "amount=1.5", "radius=0.65" }, 0.65, 0, 384 },
};

static KsImage *
run_case (const FilterCase *c, KsImage *a)
{
  KsImage *inputs[] = { a, NULL };
  KsTestRun spec = { c->op, c->params, NULL, FALSE, KS_TEST_POISON };
  KsRunResult result;
  KsImage *out = ks_test_run (engine, &spec, inputs, &result);

  ks_run_result_clear (&result);
  return out;
}

static KsImage *
ref_case (const FilterCase *c, const KsImage *a)
{
  gint64 taps[129];
  int r;

  if (c->sigma > 0)
    r = gaussian_taps (c->sigma, taps);
  else
    {
      r = c->box_r;
      for (int i = 0; i <= 2 * r; i++)
        taps[i] = 1;
    }
  return ref_separable (a, taps, r, c->amount);
}

static void
test_filters_random_sizes (void)
{
  /* 1 and 2 columns (every pixel an edge), rows longer than a piece of the
   * filter (512) and ending at odd phases of the vectors. */
  static const guint sizes[][2] = { { 1, 1 }, { 2, 3 }, { 5, 1 }, { 17, 9 },
                                    { 37, 23 }, { 515, 6 }, { 1029, 3 } };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, sizes[s][0], sizes[s][1],
                                                    100 + s);

      for (guint i = 0; i < G_N_ELEMENTS (filter_cases); i++)
        {
          g_autoptr (KsImage) ref = ref_case (&filter_cases[i], a);

          for (KsCpuSimd level = KS_CPU_SIMD_PORTABLE; level <= _ks_cpu_simd_supported ();
               level++)
            {
              g_autofree char *what = g_strdup_printf ("%s %s, %u×%u, %s", filter_cases[i].op,
                                                       filter_cases[i].params[0], sizes[s][0],
                                                       sizes[s][1], level_name (level));
              g_autoptr (KsImage) out = NULL;

              _ks_cpu_simd_force (level);
              out = run_case (&filter_cases[i], a);
              ks_test_assert_images_equal (ref, out, what);
            }
        }
    }
  _ks_cpu_simd_force (_ks_cpu_simd_supported ());
}

/* A photo: smooth areas and edges, where random pixels have neither. The
 * portable loops' output (held to the reference above) is the expectation. */
static void
test_filters_sample_photo (void)
{
  g_autoptr (KsImage) a = ks_test_load_sample ();

  for (guint i = 0; i < G_N_ELEMENTS (filter_cases); i++)
    {
      g_autoptr (KsImage) expected = NULL;

      _ks_cpu_simd_force (KS_CPU_SIMD_PORTABLE);
      expected = run_case (&filter_cases[i], a);
      for (KsCpuSimd level = KS_CPU_SIMD_AVX2; level <= _ks_cpu_simd_supported (); level++)
        {
          g_autofree char *what = g_strdup_printf ("%s %s on the sample, %s", filter_cases[i].op,
                                                   filter_cases[i].params[0], level_name (level));
          g_autoptr (KsImage) out = NULL;

          _ks_cpu_simd_force (level);
          out = run_case (&filter_cases[i], a);
          ks_test_assert_images_equal (expected, out, what);
        }
    }
  _ks_cpu_simd_force (_ks_cpu_simd_supported ());
  if (_ks_cpu_simd_supported () < KS_CPU_SIMD_AVX2)
    g_test_skip ("no AVX2 on this processor: only the portable loops run");
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  engine = ks_test_cpu_engine ();
  g_test_message ("vector level of this processor: %s",
                  level_name (_ks_cpu_simd_supported ()));

  g_test_add_func ("/ks/engine/cpu-simd/luma-every-rgb", test_luma_every_rgb);
  g_test_add_func ("/ks/engine/cpu-simd/luma-row-lengths", test_luma_lengths);
  g_test_add_func ("/ks/engine/cpu-simd/filter-passes-lengths", test_passes_lengths);
  g_test_add_func ("/ks/engine/cpu-simd/filters-random-sizes-match-reference",
                   test_filters_random_sizes);
  g_test_add_func ("/ks/engine/cpu-simd/filters-sample-photo-levels-agree",
                   test_filters_sample_photo);

  ret = g_test_run ();
  g_clear_object (&engine);
  return ret;
}
