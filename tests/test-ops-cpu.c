/* test-ops-cpu.c: the tutorial's ops on the CPU engine against independent
 * expectations — hand-computed pixels, properties, and reference formulas
 * written here from the ops' definitions — under many launch geometries. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

#define PX(r, g, b, a) \
  ((guint32) (r) | (guint32) (g) << 8 | (guint32) (b) << 16 | (guint32) (a) << 24)

static KsEngine *engine;

/* An image holding the given pixels in one row. */
static KsImage *
row_image (const guint32 *pixels, guint n)
{
  KsImage *image = ks_test_image_new (KS_FORMAT_RGBA8, n, 1);

  for (guint i = 0; i < n; i++)
    ks_image_set_rgba (image, i, 0, pixels[i]);
  return image;
}

static guint8
gray_at (const KsImage *image, guint x, guint y)
{
  g_assert_cmpuint (image->format, ==, KS_FORMAT_GRAY8);
  return ks_image_row (image, y)[x];
}

/* ---- registry ----------------------------------------------------------- */

static void
test_registry (void)
{
  static const struct
  {
    const char *id;
    guint n_inputs;
    KsOpOutputKind kind;
    KsFormat fmt;
  } ops[] = {
    { "invert", 1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8 },
    { "gray", 1, KS_OP_OUTPUT_IMAGE, KS_FORMAT_GRAY8 },
    { "add", 2, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8 },
    { "blend", 2, KS_OP_OUTPUT_IMAGE, KS_FORMAT_RGBA8 },
    { "histogram", 1, KS_OP_OUTPUT_HISTOGRAM, 0 },
  };

  g_assert_cmpuint (ks_op_registry_count (), >=, G_N_ELEMENTS (ops));
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      const KsOp *op = ks_op_registry_lookup (ops[i].id);
      g_assert_nonnull (op);
      g_assert_cmpstr (op->id, ==, ops[i].id);
      g_assert_cmpuint (op->n_inputs, ==, ops[i].n_inputs);
      g_assert_cmpint (op->output_kind, ==, ops[i].kind);
      if (ops[i].kind == KS_OP_OUTPUT_IMAGE)
        g_assert_cmpint (op->output_format, ==, ops[i].fmt);
      g_assert_nonnull (op->title);
      g_assert_nonnull (op->description);
      g_assert_true (ks_op_accepts_format (op, KS_FORMAT_RGBA8));
    }
  for (guint i = 0; i < ks_op_registry_count (); i++)
    {
      const KsOp *op = ks_op_registry_get (i);
      KsParams params;
      g_assert_true (ks_op_registry_lookup (op->id) == op);
      /* The defaults are valid, and every parameter can be found by name. */
      ks_params_init (&params, op);
      g_assert_true (ks_params_validate (&params, op, NULL));
      for (guint p = 0; p < op->n_params; p++)
        {
          guint index = 99;
          g_assert_true (ks_op_lookup_param (op, op->params[p].name, &index) == &op->params[p]);
          g_assert_cmpuint (index, ==, p);
        }
    }
  g_assert_null (ks_op_registry_lookup ("no-such-op"));
  g_assert_true (ks_op_accepts_format (ks_op_registry_lookup ("histogram"), KS_FORMAT_GRAY8));
  g_assert_false (ks_op_accepts_format (ks_op_registry_lookup ("gray"), KS_FORMAT_GRAY8));

  /* Bytes moved once: invert on 100×10 reads and writes 4 bytes per pixel. */
  g_assert_cmpuint (ks_op_bytes_moved (ks_op_registry_lookup ("invert"), KS_FORMAT_RGBA8, 100, 10),
                    ==, 8000);
  g_assert_cmpuint (ks_op_bytes_moved (ks_op_registry_lookup ("add"), KS_FORMAT_RGBA8, 100, 10),
                    ==, 12000);
  g_assert_cmpuint (ks_op_bytes_moved (ks_op_registry_lookup ("gray"), KS_FORMAT_RGBA8, 100, 10),
                    ==, 5000);
}

/* ---- invert ------------------------------------------------------------- */

static void
test_invert_known (void)
{
  const guint32 in[] = { PX (0, 0, 0, 255), PX (255, 255, 255, 0), PX (1, 128, 254, 77),
                         PX (10, 20, 30, 40) };
  const guint32 expected[] = { PX (255, 255, 255, 255), PX (0, 0, 0, 0), PX (254, 127, 1, 77),
                               PX (245, 235, 225, 40) };
  g_autoptr (KsImage) a = row_image (in, G_N_ELEMENTS (in));
  g_autoptr (KsImage) out = ks_test_run_simple (engine, "invert", NULL, a, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    g_assert_cmpuint (ks_image_get_rgba (out, i, 0), ==, expected[i]);
}

static void
test_invert_twice (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 37, 23, g_test_rand_int ());
  g_autoptr (KsImage) once = ks_test_run_simple (engine, "invert", NULL, a, NULL);
  g_autoptr (KsImage) twice = ks_test_run_simple (engine, "invert", NULL, once, NULL);

  g_assert_false (ks_image_equal (a, once));
  ks_test_assert_images_equal (a, twice, "invert twice");
}

/* ---- gray --------------------------------------------------------------- */

static void
test_gray_of_gray (void)
{
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 256, 1);
  g_autoptr (KsImage) rounded = NULL;
  g_autoptr (KsImage) truncated = NULL;

  for (guint v = 0; v < 256; v++)
    ks_image_set_rgba (a, v, 0, PX (v, v, v, 255 - v));
  rounded = ks_test_run_simple (engine, "gray", NULL, a, NULL);
  truncated = ks_test_run_simple (engine, "gray", "truncate=true", a, NULL);
  g_assert_cmpuint (rounded->format, ==, KS_FORMAT_GRAY8);
  for (guint v = 0; v < 256; v++)
    {
      g_assert_cmpuint (gray_at (rounded, v, 0), ==, v);
      g_assert_cmpuint (gray_at (truncated, v, 0), ==, v);
    }
}

static void
test_gray_known (void)
{
  /* 0.299 R + 0.587 G + 0.114 B by hand:
   *   (255,0,0)     76.245  → 76 / 76
   *   (0,255,0)    149.685  → 150 / 149
   *   (0,0,255)     29.07   → 29 / 29
   *   (100,150,200) 140.75  → 141 / 140
   *   (255,255,0)  225.93   → 226 / 225
   *   (1,1,2)        1.114  → 1 / 1
   *   (0,1,0)        0.587  → 1 / 0
   *   (3,0,0)        0.897  → 1 / 0
   *   (200,100,50)  124.2   → 124 / 124  */
  const guint32 in[] = { PX (255, 0, 0, 255), PX (0, 255, 0, 255), PX (0, 0, 255, 255),
                         PX (100, 150, 200, 255), PX (255, 255, 0, 255), PX (1, 1, 2, 0),
                         PX (0, 1, 0, 9), PX (3, 0, 0, 255), PX (200, 100, 50, 255) };
  const guint8 round_e[] = { 76, 150, 29, 141, 226, 1, 1, 1, 124 };
  const guint8 trunc_e[] = { 76, 149, 29, 140, 225, 1, 0, 0, 124 };
  g_autoptr (KsImage) a = row_image (in, G_N_ELEMENTS (in));
  g_autoptr (KsImage) rounded = ks_test_run_simple (engine, "gray", NULL, a, NULL);
  g_autoptr (KsImage) truncated = ks_test_run_simple (engine, "gray", "truncate=true", a, NULL);
  g_autoptr (KsImage) explicit_round =
    ks_test_run_simple (engine, "gray", "truncate=false", a, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    {
      g_assert_cmpuint (gray_at (rounded, i, 0), ==, round_e[i]);
      g_assert_cmpuint (gray_at (explicit_round, i, 0), ==, round_e[i]);
      g_assert_cmpuint (gray_at (truncated, i, 0), ==, trunc_e[i]);
    }
}

static void
test_gray_random (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, g_test_rand_int ());
  g_autoptr (KsImage) e_round = ks_test_ref_image ("gray", FALSE, a, NULL);
  g_autoptr (KsImage) e_trunc = ks_test_ref_image ("gray", TRUE, a, NULL);
  g_autoptr (KsImage) rounded = ks_test_run_simple (engine, "gray", NULL, a, NULL);
  g_autoptr (KsImage) truncated = ks_test_run_simple (engine, "gray", "truncate=1", a, NULL);
  guint64 lower = 0;

  ks_test_assert_images_equal (e_round, rounded, "gray rounded");
  ks_test_assert_images_equal (e_trunc, truncated, "gray truncated");
  /* Truncation is never above rounding and at most one level below. */
  for (guint y = 0; y < a->height; y++)
    for (guint x = 0; x < a->width; x++)
      {
        guint r = gray_at (rounded, x, y), t = gray_at (truncated, x, y);
        g_assert_cmpuint (t, <=, r);
        g_assert_cmpuint (r - t, <=, 1);
        lower += r != t;
      }
  /* About half of random pixels round up (the tutorial's 50.1 %). */
  g_assert_cmpfloat ((double) lower / (333 * 197), >, 0.4);
  g_assert_cmpfloat ((double) lower / (333 * 197), <, 0.6);
}

/* ---- add ---------------------------------------------------------------- */

static void
test_add_known (void)
{
  const guint32 in_a[] = { PX (10, 20, 30, 40), PX (200, 100, 255, 255), PX (255, 0, 128, 1),
                           PX (0, 0, 0, 0) };
  const guint32 in_b[] = { PX (1, 2, 3, 4), PX (100, 155, 1, 7), PX (255, 0, 127, 200),
                           PX (255, 255, 255, 255) };
  const guint32 expected[] = { PX (11, 22, 33, 40), PX (255, 255, 255, 255), PX (255, 0, 255, 1),
                               PX (255, 255, 255, 0) };
  g_autoptr (KsImage) a = row_image (in_a, G_N_ELEMENTS (in_a));
  g_autoptr (KsImage) b = row_image (in_b, G_N_ELEMENTS (in_b));
  g_autoptr (KsImage) out = ks_test_run_simple (engine, "add", NULL, a, b);

  for (guint i = 0; i < G_N_ELEMENTS (in_a); i++)
    g_assert_cmpuint (ks_image_get_rgba (out, i, 0), ==, expected[i]);
}

static void
test_add_saturates (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 129, 65, g_test_rand_int ());
  g_autoptr (KsImage) white = ks_test_image_new (KS_FORMAT_RGBA8, 129, 65);
  g_autoptr (KsImage) out = NULL;

  ks_image_fill (white, 255);
  out = ks_test_run_simple (engine, "add", NULL, a, white);
  for (guint y = 0; y < a->height; y++)
    for (guint x = 0; x < a->width; x++)
      g_assert_cmpuint (ks_image_get_rgba (out, x, y), ==,
                        0x00ffffffu | (ks_image_get_rgba (a, x, y) & 0xff000000u));
}

static void
test_add_random (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 211, 77, g_test_rand_int ());
  g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, 211, 77, g_test_rand_int ());
  g_autoptr (KsImage) e = ks_test_ref_image ("add", FALSE, a, b);
  g_autoptr (KsImage) out = ks_test_run_simple (engine, "add", NULL, a, b);

  ks_test_assert_images_equal (e, out, "add");
}

/* ---- blend -------------------------------------------------------------- */

static KsImage *
run_blend (KsImage *a, KsImage *b, const char *wa, const char *wb)
{
  g_autofree char *pa = g_strdup_printf ("weight_a=%s", wa);
  g_autofree char *pb = g_strdup_printf ("weight_b=%s", wb);
  const char *params[] = { pa, pb, NULL };
  KsImage *inputs[] = { a, b };
  KsTestRun spec = { "blend", params, NULL, FALSE, KS_TEST_POISON };
  KsRunResult result;
  KsImage *out = ks_test_run (engine, &spec, inputs, &result);

  ks_run_result_clear (&result);
  return out;
}

static void
test_blend_known (void)
{
  const guint32 in_a[] = { PX (100, 0, 255, 77), PX (100, 40, 0, 3), PX (200, 100, 7, 255),
                           PX (10, 20, 30, 0) };
  const guint32 in_b[] = { PX (200, 255, 255, 9), PX (40, 100, 255, 250), PX (100, 200, 9, 0),
                           PX (90, 80, 70, 255) };
  g_autoptr (KsImage) a = row_image (in_a, G_N_ELEMENTS (in_a));
  g_autoptr (KsImage) b = row_image (in_b, G_N_ELEMENTS (in_b));
  g_autoptr (KsImage) half = run_blend (a, b, "0.5", "0.5");
  g_autoptr (KsImage) quarter = run_blend (a, b, "0.25", "0.75");
  g_autoptr (KsImage) sum = run_blend (a, b, "1", "1");
  g_autoptr (KsImage) doubled = run_blend (a, b, "2", "0");
  g_autoptr (KsImage) nothing = run_blend (a, b, "0", "0");

  /* (a + b) / 2: 150, 127.5 → 128, 255; alpha from a. */
  g_assert_cmpuint (ks_image_get_rgba (half, 0, 0), ==, PX (150, 128, 255, 77));
  g_assert_cmpuint (ks_image_get_rgba (half, 1, 0), ==, PX (70, 70, 128, 3));
  g_assert_cmpuint (ks_image_get_rgba (half, 2, 0), ==, PX (150, 150, 8, 255));
  g_assert_cmpuint (ks_image_get_rgba (half, 3, 0), ==, PX (50, 50, 50, 0));
  /* a/4 + 3b/4: 25 + 30 = 55, 10 + 75 = 85, 0 + 191.25 → 191. */
  g_assert_cmpuint (ks_image_get_rgba (quarter, 1, 0), ==, PX (55, 85, 191, 3));
  /* 50 + 75 = 125, 25 + 150 = 175, 1.75 + 6.75 = 8.5 → 9. */
  g_assert_cmpuint (ks_image_get_rgba (quarter, 2, 0), ==, PX (125, 175, 9, 255));
  /* Weights 1 and 1 saturate like add. */
  g_assert_cmpuint (ks_image_get_rgba (sum, 0, 0), ==, PX (255, 255, 255, 77));
  g_assert_cmpuint (ks_image_get_rgba (sum, 3, 0), ==, PX (100, 100, 100, 0));
  /* 2a saturates at 255. */
  g_assert_cmpuint (ks_image_get_rgba (doubled, 0, 0), ==, PX (200, 0, 255, 77));
  g_assert_cmpuint (ks_image_get_rgba (doubled, 2, 0), ==, PX (255, 200, 14, 255));
  for (guint i = 0; i < G_N_ELEMENTS (in_a); i++)
    g_assert_cmpuint (ks_image_get_rgba (nothing, i, 0), ==, in_a[i] & 0xff000000u);
}

/* round(a·wa + b·wb), clamped; the half-way cases round up. *ambiguous is set
 * where the exact value is half-way, and *other then holds the value below. */
static guint
ref_blend_channel (guint a, guint b, double wa, double wb, gboolean *ambiguous, guint *other)
{
  double v = a * wa + b * wb;
  double frac = v - floor (v);

  *ambiguous = fabs (frac - 0.5) < 1e-6;
  *other = (guint) CLAMP (floor (v), 0.0, 255.0);
  return (guint) CLAMP (floor (v + 0.5 + 1e-6), 0.0, 255.0);
}

static void
check_blend_random (double wa, double wb, gboolean allow_half_way_ties)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 97, 61, g_test_rand_int ());
  g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, 97, 61, g_test_rand_int ());
  char sa[32], sb[32];
  g_autoptr (KsImage) out = NULL;

  g_ascii_dtostr (sa, sizeof sa, wa);
  g_ascii_dtostr (sb, sizeof sb, wb);
  out = run_blend (a, b, sa, sb);
  for (guint y = 0; y < a->height; y++)
    for (guint x = 0; x < a->width; x++)
      {
        guint32 pa = ks_image_get_rgba (a, x, y), pb = ks_image_get_rgba (b, x, y);
        guint32 po = ks_image_get_rgba (out, x, y);
        g_assert_cmpuint (po >> 24, ==, pa >> 24);
        for (guint s = 0; s < 24; s += 8)
          {
            gboolean ambiguous;
            guint below;
            guint e = ref_blend_channel ((pa >> s) & 0xff, (pb >> s) & 0xff, wa, wb, &ambiguous,
                                         &below);
            guint got = (po >> s) & 0xff;
            /* With weights that are not exact in 16.16 fixed point, an exact
             * half-way value may land on either side. */
            if (got == e || (ambiguous && allow_half_way_ties && got == below))
              continue;
            g_error ("blend %g/%g: (%u, %u) channel %u: %u·%g + %u·%g gave %u, expected %u", wa,
                     wb, x, y, s / 8, (pa >> s) & 0xff, wa, (pb >> s) & 0xff, wb, got, e);
          }
      }
}

static void
test_blend_random (void)
{
  /* Weights exact in binary: every value, half-way ones included, is unambiguous. */
  check_blend_random (0.5, 0.5, FALSE);
  check_blend_random (0.25, 0.75, FALSE);
  check_blend_random (1.5, 0.125, FALSE);
  /* The tutorial's addWeighted weights. */
  check_blend_random (0.7, 0.3, TRUE);
}

/* ---- histogram ---------------------------------------------------------- */

static void
run_histogram (KsImage *image, const char *method, const KsLaunchConfig *launch,
               guint32 hist[4][256])
{
  g_autofree char *param = g_strdup_printf ("method=%s", method);
  const char *params[] = { param, NULL };
  KsImage *inputs[] = { image, NULL };
  KsTestRun spec = { "histogram", params, launch, FALSE, -1 };
  KsRunResult result;
  g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);

  g_assert_null (out);
  memcpy (hist, result.histogram, sizeof result.histogram);
  ks_run_result_clear (&result);
}

static void
test_histogram_known (void)
{
  /* 15 pixels: 6 × (255,0,0), 5 × (0,255,0), 4 × (100,150,200). */
  g_autoptr (KsImage) image = ks_test_image_new (KS_FORMAT_RGBA8, 5, 3);
  const char *methods[] = { "global", "shared" };

  for (guint i = 0; i < 15; i++)
    ks_image_set_rgba (image, i % 5, i / 5,
                       i < 6    ? PX (255, 0, 0, 255)
                       : i < 11 ? PX (0, 255, 0, 9)
                                : PX (100, 150, 200, 0));
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
    {
      guint32 h[4][256];
      guint64 sums[4] = { 0 };
      run_histogram (image, methods[m], NULL, h);
      for (guint c = 0; c < 4; c++)
        for (guint v = 0; v < 256; v++)
          sums[c] += h[c][v];
      for (guint c = 0; c < 4; c++)
        g_assert_cmpuint (sums[c], ==, 15);
      g_assert_cmpuint (h[0][255], ==, 6);
      g_assert_cmpuint (h[0][0], ==, 5);
      g_assert_cmpuint (h[0][100], ==, 4);
      g_assert_cmpuint (h[1][0], ==, 6);
      g_assert_cmpuint (h[1][255], ==, 5);
      g_assert_cmpuint (h[1][150], ==, 4);
      g_assert_cmpuint (h[2][0], ==, 11);
      g_assert_cmpuint (h[2][200], ==, 4);
      /* Luma, rounded: 76, 150, 141. */
      g_assert_cmpuint (h[3][76], ==, 6);
      g_assert_cmpuint (h[3][150], ==, 5);
      g_assert_cmpuint (h[3][141], ==, 4);
    }
}

static void
test_histogram_random (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 3, 5 }, { 333, 197 }, { 1023, 1 }, { 1, 1023 } };
  const char *methods[] = { "global", "shared" };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint w = sizes[s][0], hgt = sizes[s][1];
      g_autoptr (KsImage) image =
        ks_test_random_image (KS_FORMAT_RGBA8, w, hgt, g_test_rand_int ());
      guint32 expected[4][256];
      guint32 got[2][4][256];

      memset (expected, 0, sizeof expected);
      for (guint y = 0; y < hgt; y++)
        for (guint x = 0; x < w; x++)
          {
            guint32 p = ks_image_get_rgba (image, x, y);
            expected[0][p & 0xff]++;
            expected[1][(p >> 8) & 0xff]++;
            expected[2][(p >> 16) & 0xff]++;
            expected[3][ks_test_ref_gray (p & 0xff, (p >> 8) & 0xff, (p >> 16) & 0xff, FALSE)]++;
          }
      for (guint m = 0; m < 2; m++)
        {
          run_histogram (image, methods[m], NULL, got[m]);
          g_assert_cmpmem (got[m], sizeof got[m], expected, sizeof expected);
        }
    }
}

static void
test_histogram_gray8 (void)
{
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_GRAY8, 301, 7, g_test_rand_int ());
  guint32 expected[256] = { 0 };
  const char *methods[] = { "global", "shared" };

  for (guint y = 0; y < image->height; y++)
    for (guint x = 0; x < image->width; x++)
      expected[ks_image_row (image, y)[x]]++;
  for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
    {
      guint32 h[4][256];
      run_histogram (image, methods[m], NULL, h);
      /* A gray input: all four histograms are the one channel's. */
      for (guint c = 0; c < 4; c++)
        g_assert_cmpmem (h[c], sizeof h[c], expected, sizeof expected);
    }
}

static void
test_histogram_launches (void)
{
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 200, 120, g_test_rand_int ());
  guint32 reference[4][256], h[4][256];
  KsLaunchConfig c;
  guint64 sum = 0;

  run_histogram (image, "global", NULL, reference);
  /* Every geometry that reaches all pixels gives the same bins. */
  for (guint ppt = 1; ppt <= 8; ppt *= 2)
    for (guint mode = 0; mode < 2; mode++)
      {
        c = ks_test_launch (64, 4, 0, 0, mode, ppt);
        run_histogram (image, "shared", &c, h);
        g_assert_cmpmem (h, sizeof h, reference, sizeof reference);
        c = ks_test_launch (32, 8, 2, 3, KS_LAUNCH_GRID_STRIDE, ppt);
        run_histogram (image, "global", &c, h);
        g_assert_cmpmem (h, sizeof h, reference, sizeof reference);
      }

  /* An undersized per-pixel grid counts only the pixels it reaches: 2×3 blocks
   * of 16×16 reach 32×48 pixels. */
  c = ks_test_launch (16, 16, 2, 3, KS_LAUNCH_PER_PIXEL, 1);
  run_histogram (image, "shared", &c, h);
  for (guint v = 0; v < 256; v++)
    sum += h[0][v];
  g_assert_cmpuint (sum, ==, 32 * 48);
}

/* ---- sizes and launch geometries ----------------------------------------- */

static void
check_all_ops (guint w, guint h, const KsLaunchConfig *launch)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  KsImage *inputs[] = { a, b };
  static const char *ops[] = { "invert", "gray", "add" };
  static const char *truncate_params[] = { "truncate=true", NULL };

  for (guint i = 0; i < G_N_ELEMENTS (ops) + 1; i++)
    {
      gboolean truncate = i == G_N_ELEMENTS (ops);
      const char *op = truncate ? "gray" : ops[i];
      KsTestRun spec = { op, truncate ? truncate_params : NULL, launch, FALSE, KS_TEST_POISON };
      KsRunResult result;
      g_autoptr (KsImage) expected = ks_test_ref_image (op, truncate, a, b);
      g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);
      g_autofree char *what = g_strdup_printf ("%s%s on %u×%u", op, truncate ? " (truncate)" : "",
                                               w, h);
      ks_test_assert_images_equal (expected, out, what);
      ks_run_result_clear (&result);
    }
}

static void
test_sizes (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 2, 1 }, { 1, 2 }, { 3, 5 }, { 37, 23 },
                                    { 1023, 1 }, { 1, 1023 }, { 1025, 3 }, { 4099, 2161 } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    check_all_ops (sizes[i][0], sizes[i][1], NULL);
}

static void
test_launch_variants (void)
{
  static const guint blocks[][2] = { { 1, 1 }, { 32, 8 }, { 7, 13 }, { 1024, 1 }, { 1, 1024 },
                                     { 16, 16 } };

  for (guint bi = 0; bi < G_N_ELEMENTS (blocks); bi++)
    for (guint ppt = 1; ppt <= 16; ppt *= 2)
      for (guint mode = 0; mode < 2; mode++)
        {
          KsLaunchConfig c = ks_test_launch (blocks[bi][0], blocks[bi][1], 0, 0, mode, ppt);
          check_all_ops (61, 29, &c);
        }
  /* Grid-stride with grids far smaller than the image still covers it. */
  for (guint ppt = 1; ppt <= 8; ppt *= 2)
    {
      KsLaunchConfig c = ks_test_launch (32, 4, 1, 1, KS_LAUNCH_GRID_STRIDE, ppt);
      check_all_ops (333, 197, &c);
      c = ks_test_launch (8, 8, 3, 2, KS_LAUNCH_GRID_STRIDE, ppt);
      check_all_ops (333, 197, &c);
    }
}

static void
test_per_pixel_vs_grid_stride (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 517, 211, g_test_rand_int ());
  KsImage *inputs[] = { a, NULL };
  KsLaunchConfig pp = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  KsLaunchConfig gs = ks_test_launch (32, 8, 4, 3, KS_LAUNCH_GRID_STRIDE, 1);
  KsTestRun s1 = { "invert", NULL, &pp, FALSE, KS_TEST_POISON };
  KsTestRun s2 = { "invert", NULL, &gs, FALSE, 0x5A };
  KsRunResult r1, r2;
  g_autoptr (KsImage) o1 = ks_test_run (engine, &s1, inputs, &r1);
  g_autoptr (KsImage) o2 = ks_test_run (engine, &s2, inputs, &r2);

  ks_test_assert_images_equal (o1, o2, "per-pixel vs grid-stride");
  g_assert_cmpuint (r2.launch.grid.x, ==, 4);
  g_assert_cmpuint (r2.launch.grid.y, ==, 3);
  ks_run_result_clear (&r1);
  ks_run_result_clear (&r2);
}

static void
test_pixels_per_thread (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 1001, 33, g_test_rand_int ());
  KsImage *inputs[] = { a, NULL };
  g_autoptr (KsImage) reference = NULL;

  for (guint ppt = 1; ppt <= 8; ppt *= 2)
    {
      KsLaunchConfig c = ks_test_launch (64, 2, 0, 0, KS_LAUNCH_PER_PIXEL, ppt);
      KsTestRun spec = { "gray", NULL, &c, FALSE, KS_TEST_POISON };
      KsRunResult result;
      g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);
      g_assert_cmpuint (result.launch.pixels_per_thread, ==, ppt);
      /* The auto grid shrinks with more pixels per thread. */
      g_assert_cmpuint (result.launch.grid.x, ==, (1001 / ppt + (1001 % ppt != 0) + 63) / 64);
      if (reference == NULL)
        reference = ks_image_copy (out);
      else
        ks_test_assert_images_equal (reference, out, "pixels per thread");
      ks_run_result_clear (&result);
    }
}

/* ---- coverage ----------------------------------------------------------- */

/* Which block and thread (CUDA's linear indices) writes pixel (x, y). */
static void
expected_owner (const KsLaunchConfig *c, guint x, guint y, guint32 *block, guint32 *thread)
{
  guint64 col = x / c->pixels_per_thread, row = y;

  if (c->mode == KS_LAUNCH_GRID_STRIDE)
    {
      col %= (guint64) c->grid.x * c->block.x;
      row %= (guint64) c->grid.y * c->block.y;
    }
  *block = (guint32) ((row / c->block.y) * c->grid.x + col / c->block.x);
  *thread = (guint32) ((row % c->block.y) * c->block.x + col % c->block.x);
}

/* Runs invert instrumented over a poisoned output and checks every pixel:
 * written once with the right owner inside the reached rectangle, never and
 * still poisoned outside it. */
static void
check_coverage (guint w, guint h, const KsLaunchConfig *launch, guint reach_w, guint reach_h,
                guint64 idle)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  g_autoptr (KsImage) e = ks_test_ref_image ("invert", FALSE, a, NULL);
  KsImage *inputs[] = { a, NULL };
  KsTestRun spec = { "invert", NULL, launch, TRUE, KS_TEST_POISON };
  KsRunResult result;
  g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);
  const KsCoverage *cov = result.coverage;
  guint64 outside = (guint64) w * h - (guint64) reach_w * reach_h;

  g_assert_nonnull (cov);
  g_assert_cmpuint (cov->width, ==, w);
  g_assert_cmpuint (cov->height, ==, h);
  g_assert_cmpuint (cov->unwritten_pixels, ==, outside);
  g_assert_cmpuint (cov->multiply_written_pixels, ==, 0);
  g_assert_cmpuint (cov->idle_threads, ==, idle);
  g_assert_cmpuint (ks_test_count_filled_pixels (out, KS_TEST_POISON), ==, outside);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        gsize i = (gsize) y * w + x;
        if (x < reach_w && y < reach_h)
          {
            guint32 block, thread;
            expected_owner (&result.launch, x, y, &block, &thread);
            g_assert_cmpuint (cov->writes[i], ==, 1);
            g_assert_cmpuint (ks_image_get_rgba (out, x, y), ==, ks_image_get_rgba (e, x, y));
            if (cov->owner_block[i] != block || cov->owner_thread[i] != thread)
              g_error ("pixel (%u, %u): written by block %u thread %u, expected block %u thread %u",
                       x, y, cov->owner_block[i], cov->owner_thread[i], block, thread);
          }
        else
          {
            g_assert_cmpuint (cov->writes[i], ==, 0);
            g_assert_cmpuint (ks_image_get_rgba (out, x, y), ==, 0xA5A5A5A5u);
          }
      }
  ks_run_result_clear (&result);
}

static void
test_coverage_undersized (void)
{
  /* 100×60 under 3×2 blocks of 16×16: 48×32 written, 4464 pixels never. */
  KsLaunchConfig c = ks_test_launch (16, 16, 3, 2, KS_LAUNCH_PER_PIXEL, 1);
  check_coverage (100, 60, &c, 48, 32, 0);

  /* 2 pixels per thread: 3×2 blocks of 8×4 reach 48×8. */
  c = ks_test_launch (8, 4, 3, 2, KS_LAUNCH_PER_PIXEL, 2);
  check_coverage (100, 60, &c, 48, 8, 0);

  /* The tutorial's bgr2gray geometry on a larger image: 64 blocks of 1024×1
   * threads reach the first 64 rows... of a 1024-wide image. */
  c = ks_test_launch (1024, 1, 1, 64, KS_LAUNCH_PER_PIXEL, 1);
  check_coverage (1024, 100, &c, 1024, 64, 0);
}

static void
test_coverage_oversized (void)
{
  /* 10×10 under 2×2 blocks of 16×16: 1024 threads, 924 idle. */
  KsLaunchConfig c = ks_test_launch (16, 16, 2, 2, KS_LAUNCH_PER_PIXEL, 1);
  check_coverage (10, 10, &c, 10, 10, 924);

  /* 4 pixels per thread, one 16×16 block: 3 × 10 busy threads. */
  c = ks_test_launch (16, 16, 1, 1, KS_LAUNCH_PER_PIXEL, 4);
  check_coverage (10, 10, &c, 10, 10, 256 - 30);

  /* An odd size with the auto grid: 37×23 with 16×16 → 3×2 blocks, 1536 − 851 idle. */
  c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  check_coverage (37, 23, &c, 37, 23, 1536 - 37 * 23);
}

static void
test_coverage_grid_stride (void)
{
  /* A 2×1 grid of 16×16 loops over 100×60: every pixel exactly once. */
  KsLaunchConfig c = ks_test_launch (16, 16, 2, 1, KS_LAUNCH_GRID_STRIDE, 1);
  check_coverage (100, 60, &c, 100, 60, 0);
  c = ks_test_launch (8, 8, 3, 2, KS_LAUNCH_GRID_STRIDE, 4);
  check_coverage (333, 197, &c, 333, 197, 0);
  /* More threads than pixels in grid-stride mode: the extra ones idle. */
  c = ks_test_launch (16, 16, 2, 2, KS_LAUNCH_GRID_STRIDE, 1);
  check_coverage (10, 10, &c, 10, 10, 924);
}

static void
test_coverage_image (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 40, 20, 1);
  KsImage *inputs[] = { a, NULL };
  KsLaunchConfig c = ks_test_launch (8, 8, 2, 1, KS_LAUNCH_PER_PIXEL, 1);
  KsTestRun spec = { "invert", NULL, &c, TRUE, -1 };
  KsRunResult result;
  g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);
  g_autoptr (KsImage) map = ks_coverage_to_image (result.coverage);

  g_assert_nonnull (out);
  /* White where written once, black where never. */
  g_assert_cmpuint (ks_image_get_rgba (map, 0, 0), ==, 0xffffffffu);
  g_assert_cmpuint (ks_image_get_rgba (map, 15, 7), ==, 0xffffffffu);
  g_assert_cmpuint (ks_image_get_rgba (map, 16, 0), ==, 0xff000000u);
  g_assert_cmpuint (ks_image_get_rgba (map, 0, 8), ==, 0xff000000u);
  ks_run_result_clear (&result);
}

/* ---- bad requests --------------------------------------------------------- */

static void
assert_param_error (const char *op_id, const char *assignment, const char *needle)
{
  const KsOp *op = ks_op_registry_lookup (op_id);
  g_autoptr (GError) error = NULL;
  KsParams params;

  ks_params_init (&params, op);
  g_assert_false (ks_params_parse_assignment (&params, op, assignment, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  if (needle != NULL)
    ks_test_assert_message_has (error, needle, NULL);
}

static void
test_bad_params (void)
{
  const KsOp *blend = ks_op_registry_lookup ("blend");
  const KsOp *gray = ks_op_registry_lookup ("gray");
  g_autoptr (GError) error = NULL;
  KsParams params;

  /* Out of range, unknown, wrong type, malformed. */
  assert_param_error ("blend", "weight_a=3", "weight_a");
  assert_param_error ("blend", "weight_b=-0.5", "weight_b");
  assert_param_error ("blend", "weight_a=nan", "weight_a");
  assert_param_error ("blend", "weight_a=abc", "abc");
  assert_param_error ("blend", "weight_a=", "weight_a");
  assert_param_error ("blend", "strength=1", "strength");
  assert_param_error ("gray", "truncate=maybe", "maybe");
  assert_param_error ("gray", "truncate", NULL);
  assert_param_error ("invert", "amount=1", "amount");
  assert_param_error ("histogram", "method=magic", "magic");

  /* Good values are accepted and read back. */
  ks_params_init (&params, blend);
  g_assert_true (ks_params_parse_assignment (&params, blend, "weight_a=0.7", &error));
  g_assert_no_error (error);
  g_assert_true (ks_params_set (&params, blend, "weight_b", "2", &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ks_params_get (&params, blend, "weight_a"), ==, 0.7);
  g_assert_cmpfloat (ks_params_get (&params, blend, "weight_b"), ==, 2.0);
  ks_params_init (&params, gray);
  g_assert_true (ks_params_set (&params, gray, "truncate", "true", &error));
  g_assert_cmpfloat (ks_params_get (&params, gray, "truncate"), ==, 1.0);

  /* A hand-broken value is caught by validate. */
  ks_params_init (&params, blend);
  params.values[0] = 5.0;
  g_assert_false (ks_params_validate (&params, blend, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
}

/* A request the engine refuses leaves the output as it was. */
static void
assert_run_refused (KsRunRequest *request, KsBuffer *output, gint code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) after = NULL;
  KsRunResult result = { 0 };

  request->output = output;
  g_assert_false (ks_engine_run (engine, request, &result, &error));
  g_assert_error (error, KS_ERROR, code);
  g_test_message ("refused: %s", error->message);
  g_assert_null (result.output);
  after = ks_engine_download (engine, output, NULL, NULL);
  g_assert_cmpuint (ks_test_count_filled_pixels (after, KS_TEST_POISON), ==,
                    (guint64) after->width * after->height);
}

static void
test_bad_requests (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 10, 10, 1);
  g_autoptr (KsImage) tall = ks_test_random_image (KS_FORMAT_RGBA8, 10, 11, 2);
  g_autoptr (KsImage) g8 = ks_test_random_image (KS_FORMAT_GRAY8, 10, 10, 3);
  g_autoptr (KsBuffer) ba = ks_engine_upload (engine, a, NULL, NULL);
  g_autoptr (KsBuffer) btall = ks_engine_upload (engine, tall, NULL, NULL);
  g_autoptr (KsBuffer) bg8 = ks_engine_upload (engine, g8, NULL, NULL);
  g_autoptr (KsBuffer) out = ks_engine_new_buffer (engine, KS_FORMAT_RGBA8, 10, 10, NULL);
  g_autoptr (KsBuffer) gout = ks_engine_new_buffer (engine, KS_FORMAT_GRAY8, 10, 10, NULL);
  KsRunRequest req;

  g_assert_true (ks_engine_fill (engine, out, KS_TEST_POISON, NULL));
  g_assert_true (ks_engine_fill (engine, gout, KS_TEST_POISON, NULL));

  /* Two inputs of different sizes. */
  ks_run_request_init (&req, ks_op_registry_lookup ("add"));
  req.inputs[0] = ba;
  req.inputs[1] = btall;
  assert_run_refused (&req, out, KS_ERROR_INVALID_ARGUMENT);

  /* A missing second input. */
  req.inputs[1] = NULL;
  assert_run_refused (&req, out, KS_ERROR_INVALID_ARGUMENT);

  /* An out-of-range parameter set behind the registry's back. */
  ks_run_request_init (&req, ks_op_registry_lookup ("blend"));
  req.inputs[0] = ba;
  req.inputs[1] = ba;
  req.params.values[1] = -1;
  assert_run_refused (&req, out, KS_ERROR_INVALID_ARGUMENT);

  /* A gray input where colour is needed. */
  ks_run_request_init (&req, ks_op_registry_lookup ("gray"));
  req.inputs[0] = bg8;
  assert_run_refused (&req, gout, KS_ERROR_INVALID_ARGUMENT);

  /* An output of the wrong format. */
  req.inputs[0] = ba;
  assert_run_refused (&req, out, KS_ERROR_INVALID_ARGUMENT);

  /* An impossible launch: nothing runs. */
  ks_run_request_init (&req, ks_op_registry_lookup ("invert"));
  req.inputs[0] = ba;
  req.launch = ks_test_launch (64, 32, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  assert_run_refused (&req, out, KS_ERROR_LAUNCH_CONFIG);
}

static void
test_validate_request (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 1920, 1080, 1);
  g_autoptr (KsBuffer) ba = ks_engine_upload (engine, a, NULL, NULL);
  g_autoptr (GError) error = NULL;
  KsLaunchConfig resolved, suggestion;
  KsKernelAttributes attrs;
  KsRunRequest req;

  ks_run_request_init (&req, ks_op_registry_lookup ("invert"));
  req.inputs[0] = ba;
  req.launch = ks_test_launch (64, 32, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  g_assert_false (ks_engine_validate (engine, &req, &resolved, &suggestion, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (error, "2048", "1024", NULL);
  g_clear_error (&error);

  /* The suggestion runs. */
  req.launch = suggestion;
  g_assert_true (ks_engine_validate (engine, &req, &resolved, NULL, &error));
  g_assert_no_error (error);

  /* The shared-memory histogram asks for shared memory, within the limit, even with 1024
   * threads. */
  ks_run_request_init (&req, ks_op_registry_lookup ("histogram"));
  req.inputs[0] = ba;
  req.launch = ks_test_launch (1024, 1, 0, 0, KS_LAUNCH_GRID_STRIDE, 0);
  g_assert_true (ks_engine_kernel_attributes (engine, &req, &attrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (attrs.shared_static + attrs.shared_dynamic, >, 0);
  g_assert_true (ks_engine_validate (engine, &req, &resolved, NULL, &error));
  g_assert_no_error (error);
}

/* ---- runs, timings, the photo -------------------------------------------- */

static void
test_timing_compute (void)
{
  KsTiming t = { 0 };
  const double odd[] = { 5, 1, 3, 2, 4 };
  const double even[] = { 1, 2, 3, 10 };

  t.n = G_N_ELEMENTS (odd);
  t.samples_ms = g_memdup2 (odd, sizeof odd);
  ks_timing_compute (&t);
  g_assert_cmpfloat (t.median_ms, ==, 3);
  g_assert_cmpfloat (t.min_ms, ==, 1);
  g_assert_cmpfloat (t.max_ms, ==, 5);
  g_assert_cmpfloat (t.mad_ms, ==, 1);
  ks_timing_clear (&t);
  g_assert_null (t.samples_ms);

  t.n = G_N_ELEMENTS (even);
  t.samples_ms = g_memdup2 (even, sizeof even);
  ks_timing_compute (&t);
  g_assert_cmpfloat (t.median_ms, ==, 2.5);
  g_assert_cmpfloat (t.mad_ms, ==, 1.0);
  ks_timing_clear (&t);
}

static void
test_process_repeat (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 640, 480, g_test_rand_int ());
  g_autoptr (KsImage) expected = ks_test_ref_image ("gray", FALSE, a, NULL);
  g_autoptr (KsImage) out = NULL;
  g_autoptr (GError) error = NULL;
  KsImage *inputs[] = { a, NULL };
  KsRunRequest req;
  KsRunResult result = { 0 };
  KsStageTimes times;
  KsTiming timing = { 0 };
  KsTimingOptions options;

  ks_run_request_init (&req, ks_op_registry_lookup ("gray"));
  ks_timing_options_init (&options, 5);
  g_assert_true (ks_engine_process (engine, &req, inputs, &options, &out, &result, &times,
                                    &timing, &error));
  g_assert_no_error (error);
  ks_test_assert_images_equal (expected, out, "process gray");
  g_assert_cmpuint (timing.n, ==, 5);
  g_assert_nonnull (timing.samples_ms);
  g_assert_cmpfloat (timing.min_ms, <=, timing.median_ms);
  g_assert_cmpfloat (timing.median_ms, <=, timing.max_ms);
  g_assert_cmpfloat (timing.warmup_ms, >=, 0);
  g_assert_cmpfloat (times.upload_ms, >=, 0);
  g_assert_cmpfloat (times.kernel_ms, >=, 0);
  g_assert_cmpfloat (times.download_ms, >=, 0);
  g_assert_cmpuint (result.launch.grid.x, >, 0);
  ks_run_result_clear (&result);
  ks_timing_clear (&timing);
}

static void
test_warmup_flag (void)
{
  g_autoptr (KsEngine) fresh = ks_test_cpu_engine ();
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 31, 17, 1);
  KsImage *inputs[] = { a, NULL };
  KsTestRun spec = { "invert", NULL, NULL, FALSE, -1 };
  KsRunResult r1, r2;
  g_autoptr (KsImage) o1 = ks_test_run (fresh, &spec, inputs, &r1);
  g_autoptr (KsImage) o2 = ks_test_run (fresh, &spec, inputs, &r2);

  g_assert_true (ks_image_equal (o1, o2));
  /* The first run of a configuration is the warm-up; the next is not. */
  g_assert_true (r1.warmup);
  g_assert_false (r2.warmup);
  ks_run_result_clear (&r1);
  ks_run_result_clear (&r2);
}

static void
test_workers (void)
{
  g_autoptr (KsEngine) e = ks_test_cpu_engine ();
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 1000, 300, g_test_rand_int ());
  g_autoptr (KsImage) expected = ks_test_ref_image ("invert", FALSE, a, NULL);
  const guint counts[] = { 1, 3, 16 };

  g_assert_cmpuint (ks_engine_get_n_workers (e), >=, 1);
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    {
      g_autoptr (KsImage) out = NULL;
      ks_engine_set_n_workers (e, counts[i]);
      g_assert_cmpuint (ks_engine_get_n_workers (e), ==, counts[i]);
      out = ks_test_run_simple (e, "invert", NULL, a, NULL);
      ks_test_assert_images_equal (expected, out, "workers");
    }
}

static void
test_photo (void)
{
  g_autoptr (KsImage) photo = ks_test_load_sample ();
  static const char *ops[] = { "invert", "gray", "add" };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autoptr (KsImage) expected = ks_test_ref_image (ops[i], FALSE, photo, photo);
      g_autoptr (KsImage) out = ks_test_run_simple (engine, ops[i], NULL, photo, photo);
      ks_test_assert_images_equal (expected, out, ops[i]);
    }
}

/* Only CUDA memory can be shared with OpenGL: the CPU engine says why not. */
static void
test_no_shareable_buffers (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) plain = ks_engine_new_buffer (engine, KS_FORMAT_RGBA8, 16, 16, &error);
  KsBuffer *shared;

  g_assert_no_error (error);
  g_assert_false (ks_buffer_is_shareable (plain));
  shared = ks_engine_new_shareable_buffer (engine, KS_FORMAT_RGBA8, 16, 16, &error);
  g_assert_null (shared);
  g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
  ks_test_assert_message_has (error, "CPU engine", "host memory", NULL);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  engine = ks_test_cpu_engine ();

  g_test_add_func ("/ks/engine/registry", test_registry);
  g_test_add_func ("/ks/engine/no-shareable-buffers", test_no_shareable_buffers);
  g_test_add_func ("/ks/engine/invert/known-pixels", test_invert_known);
  g_test_add_func ("/ks/engine/invert/twice-is-identity", test_invert_twice);
  g_test_add_func ("/ks/engine/gray/gray-of-gray-is-itself", test_gray_of_gray);
  g_test_add_func ("/ks/engine/gray/known-pixels-round-and-truncate", test_gray_known);
  g_test_add_func ("/ks/engine/gray/random-matches-formula", test_gray_random);
  g_test_add_func ("/ks/engine/add/known-pixels", test_add_known);
  g_test_add_func ("/ks/engine/add/saturates", test_add_saturates);
  g_test_add_func ("/ks/engine/add/random-matches-formula", test_add_random);
  g_test_add_func ("/ks/engine/blend/known-pixels", test_blend_known);
  g_test_add_func ("/ks/engine/blend/random-matches-formula", test_blend_random);
  g_test_add_func ("/ks/engine/histogram/known-counts", test_histogram_known);
  g_test_add_func ("/ks/engine/histogram/random-both-methods", test_histogram_random);
  g_test_add_func ("/ks/engine/histogram/gray8-input", test_histogram_gray8);
  g_test_add_func ("/ks/engine/histogram/launches", test_histogram_launches);
  g_test_add_func ("/ks/engine/sizes", test_sizes);
  g_test_add_func ("/ks/engine/launch/variants", test_launch_variants);
  g_test_add_func ("/ks/engine/launch/per-pixel-vs-grid-stride", test_per_pixel_vs_grid_stride);
  g_test_add_func ("/ks/engine/launch/pixels-per-thread", test_pixels_per_thread);
  g_test_add_func ("/ks/engine/coverage/undersized-grid", test_coverage_undersized);
  g_test_add_func ("/ks/engine/coverage/oversized-grid", test_coverage_oversized);
  g_test_add_func ("/ks/engine/coverage/grid-stride", test_coverage_grid_stride);
  g_test_add_func ("/ks/engine/coverage/image", test_coverage_image);
  g_test_add_func ("/ks/engine/params/bad-values", test_bad_params);
  g_test_add_func ("/ks/engine/run/bad-requests", test_bad_requests);
  g_test_add_func ("/ks/engine/run/validate", test_validate_request);
  g_test_add_func ("/ks/engine/run/timing-statistics", test_timing_compute);
  g_test_add_func ("/ks/engine/run/process-repeat", test_process_repeat);
  g_test_add_func ("/ks/engine/run/warmup-flag", test_warmup_flag);
  g_test_add_func ("/ks/engine/run/workers", test_workers);
  g_test_add_func ("/ks/engine/photo/ops-match-formulas", test_photo);

  ret = g_test_run ();
  g_clear_object (&engine);
  return ret;
}
