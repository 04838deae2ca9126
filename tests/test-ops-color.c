/* test-ops-color.c: the colour ops on the CPU engine against independent
 * expectations — pixels computed by hand, properties (identities, inverses, a
 * flattened histogram) and reference formulas written here from the ops'
 * definitions — at odd sizes and under many launch geometries. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

#define PX(r, g, b, a) \
  ((guint32) (r) | (guint32) (g) << 8 | (guint32) (b) << 16 | (guint32) (a) << 24)
#define CH(p, c) (((p) >> (8 * (c))) & 0xffu)

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

static KsImage *
run_op (const char *op, const char *const *params, KsImage *in)
{
  KsImage *inputs[] = { in, NULL };
  KsTestRun spec = { op, params, NULL, FALSE, KS_TEST_POISON };
  KsRunResult result;
  KsImage *out = ks_test_run (engine, &spec, inputs, &result);

  ks_run_result_clear (&result);
  return out;
}

static void
assert_row (const KsImage *out, const guint32 *expected, guint n, const char *what)
{
  for (guint i = 0; i < n; i++)
    if (ks_image_get_rgba (out, i, 0) != expected[i])
      g_error ("%s: pixel %u is 0x%08x, expected 0x%08x (ABGR)", what, i,
               ks_image_get_rgba (out, i, 0), expected[i]);
}

/* ---- references, from the definitions -------------------------------------- */

static guint8
ref_level (double v)
{
  v = floor (v + 0.5);
  return v < 0 ? 0 : v > 255 ? 255 : (guint8) v;
}

/* lut[v] = round((cdf(v) − cdf_min) · 255 / (N − cdf_min)), in doubles: the
 * engine does it in integers. */
static void
ref_equalize_table (const guint64 *hist, guint64 n, guint8 *table)
{
  guint64 cdf = 0, cdf_min = 0;

  for (guint v = 0; v < 256; v++)
    if (cdf_min == 0)
      cdf_min = hist[v];
  for (guint v = 0; v < 256; v++)
    {
      cdf += hist[v];
      if (n == cdf_min)
        table[v] = v;
      else if (cdf < cdf_min)
        table[v] = 0;
      else
        table[v] = ref_level ((double) (cdf - cdf_min) * 255.0 / (double) (n - cdf_min));
    }
}

static guint
ref_luma (guint32 p)
{
  return ks_test_ref_gray (CH (p, 0), CH (p, 1), CH (p, 2), FALSE);
}

/* The expected output of op with params (name=value strings) on `in`. */
static KsImage *
ref_color (const char *op_id, const char *const *param_strings, const KsImage *in)
{
  const KsOp *op = ks_op_registry_lookup (op_id);
  KsImage *out = ks_image_copy (in);
  guint8 table[3][256];
  gboolean use_table = TRUE;
  gboolean luma_mode = FALSE;
  guint order[3] = { 0, 1, 2 };
  KsParams params;

  g_assert_nonnull (op);
  ks_params_init (&params, op);
  for (guint i = 0; param_strings != NULL && param_strings[i] != NULL; i++)
    g_assert_true (ks_params_parse_assignment (&params, op, param_strings[i], NULL));

  if (g_str_equal (op_id, "brightness_contrast"))
    {
      double b = ks_params_get (&params, op, "brightness");
      double c = ks_params_get (&params, op, "contrast");
      for (guint v = 0; v < 256; v++)
        table[0][v] = ref_level (c * ((int) v - 128) + b + 128);
    }
  else if (g_str_equal (op_id, "gamma"))
    {
      double g = ks_params_get (&params, op, "gamma");
      for (guint v = 0; v < 256; v++)
        table[0][v] = ref_level (255.0 * pow (v / 255.0, 1.0 / g));
    }
  else if (g_str_equal (op_id, "threshold"))
    {
      guint t = (guint) ks_params_get (&params, op, "level");
      guint mode = (guint) ks_params_get (&params, op, "mode");
      for (guint v = 0; v < 256; v++)
        {
          /* binary, binary_inv, trunc, tozero, tozero_inv */
          const guint results[] = { v > t ? 255 : 0, v > t ? 0 : 255, MIN (v, t), v > t ? v : 0,
                                    v > t ? 0 : v };
          table[0][v] = results[mode];
        }
    }
  else if (g_str_equal (op_id, "channel_swap"))
    {
      static const char *const names[] = { "bgr", "rbg", "grb", "gbr", "brg", "rgb" };
      const char *name = names[(guint) ks_params_get (&params, op, "order")];
      for (guint k = 0; k < 3; k++)
        order[k] = name[k] == 'r' ? 0 : name[k] == 'g' ? 1 : 2;
      use_table = FALSE;
    }
  else if (g_str_equal (op_id, "equalize"))
    {
      guint64 hist[4][256];
      guint64 n = (guint64) in->width * in->height;
      memset (hist, 0, sizeof hist);
      for (guint y = 0; y < in->height; y++)
        for (guint x = 0; x < in->width; x++)
          {
            guint32 p = ks_image_get_rgba (in, x, y);
            for (guint c = 0; c < 3; c++)
              hist[c][CH (p, c)]++;
            hist[3][ref_luma (p)]++;
          }
      luma_mode = ks_params_get (&params, op, "mode") == 0;
      for (guint c = 0; c < 3; c++)
        ref_equalize_table (hist[luma_mode ? 3 : c], n, table[c]);
    }
  else
    g_assert_not_reached ();

  if (!g_str_equal (op_id, "equalize"))
    for (guint c = 1; c < 3; c++)
      memcpy (table[c], table[0], 256);

  for (guint y = 0; y < in->height; y++)
    for (guint x = 0; x < in->width; x++)
      {
        guint32 p = ks_image_get_rgba (in, x, y);
        guint v[3];
        for (guint c = 0; c < 3; c++)
          {
            if (luma_mode)
              {
                int yl = (int) ref_luma (p);
                v[c] = CLAMP ((int) CH (p, c) + table[0][yl] - yl, 0, 255);
              }
            else if (use_table)
              v[c] = table[c][CH (p, c)];
            else
              v[c] = CH (p, order[c]);
          }
        ks_image_set_rgba (out, x, y, PX (v[0], v[1], v[2], CH (p, 3)));
      }
  return out;
}

typedef struct
{
  const char *op;
  const char *params[3];
} ColorCase;

/* Every op and mode, with parameters away from the rounding ties where a
 * double formula and the engine's table could legitimately differ. */
static const ColorCase all_cases[] = {
  { "brightness_contrast", { NULL } },
  { "brightness_contrast", { "brightness=-37.25", "contrast=1.7", NULL } },
  { "brightness_contrast", { "brightness=90.13", "contrast=0.35", NULL } },
  { "gamma", { NULL } },
  { "gamma", { "gamma=0.45", NULL } },
  { "gamma", { "gamma=7.3", NULL } },
  { "threshold", { NULL } },
  { "threshold", { "level=77", "mode=binary_inv", NULL } },
  { "threshold", { "level=200", "mode=trunc", NULL } },
  { "threshold", { "level=0", "mode=tozero", NULL } },
  { "threshold", { "level=255", "mode=tozero_inv", NULL } },
  { "channel_swap", { NULL } },
  { "channel_swap", { "order=rbg", NULL } },
  { "channel_swap", { "order=grb", NULL } },
  { "channel_swap", { "order=gbr", NULL } },
  { "channel_swap", { "order=brg", NULL } },
  { "channel_swap", { "order=rgb", NULL } },
  { "equalize", { NULL } },
  { "equalize", { "mode=channels", NULL } },
};

static char *
case_name (const ColorCase *c)
{
  g_autofree char *p = g_strjoinv (" ", (char **) c->params);
  return g_strdup_printf ("%s %s", c->op, p);
}

/* ---- registry ----------------------------------------------------------- */

static void
test_registry (void)
{
  static const char *const ids[] = { "brightness_contrast", "gamma", "threshold", "channel_swap",
                                     "equalize" };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const KsOp *op = ks_op_registry_lookup (ids[i]);
      KsParams params;

      g_assert_nonnull (op);
      g_assert_cmpstr (op->group, ==, "Colour");
      g_assert_cmpuint (op->n_inputs, ==, 1);
      g_assert_cmpint (op->output_kind, ==, KS_OP_OUTPUT_IMAGE);
      g_assert_cmpint (op->output_format, ==, KS_FORMAT_RGBA8);
      g_assert_true (ks_op_accepts_format (op, KS_FORMAT_RGBA8));
      g_assert_false (ks_op_accepts_format (op, KS_FORMAT_GRAY8));
      g_assert_cmpuint (strlen (op->title), >, 0);
      g_assert_cmpuint (strlen (op->description), >, 20);
      g_assert_cmpuint (op->n_params, >=, 1);
      ks_params_init (&params, op);
      g_assert_true (ks_params_validate (&params, op, NULL));
      for (guint p = 0; p < op->n_params; p++)
        {
          const KsParamSpec *spec = &op->params[p];
          g_assert_cmpuint (strlen (spec->title), >, 0);
          g_assert_cmpuint (strlen (spec->description), >, 20);
          g_assert_cmpfloat (spec->min, <=, spec->default_value);
          g_assert_cmpfloat (spec->default_value, <=, spec->max);
          if (spec->type == KS_PARAM_CHOICE)
            {
              /* Every choice has a title, and the range is the choices'. */
              guint n = g_strv_length ((char **) spec->choices);
              g_assert_cmpuint (g_strv_length ((char **) spec->choice_titles), ==, n);
              g_assert_cmpfloat (spec->max, ==, n - 1);
            }
        }
    }
  /* The threshold level is a whole number of levels. */
  g_assert_cmpint (ks_op_registry_lookup ("threshold")->params[0].type, ==, KS_PARAM_INT);
}

static void
test_bytes_moved (void)
{
  /* Per pixel 4 bytes in and 4 out; equalisation reads its input twice. */
  g_assert_cmpuint (ks_op_bytes_moved (ks_op_registry_lookup ("gamma"), KS_FORMAT_RGBA8, 100, 10),
                    ==, 8000);
  g_assert_cmpuint (ks_op_bytes_moved (ks_op_registry_lookup ("channel_swap"), KS_FORMAT_RGBA8,
                                       100, 10), ==, 8000);
  g_assert_cmpuint (ks_op_bytes_moved (ks_op_registry_lookup ("equalize"), KS_FORMAT_RGBA8, 100,
                                       10), ==, 12000);
}

/* ---- brightness and contrast -------------------------------------------- */

static void
test_bc_identity (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 37, 23, g_test_rand_int ());
  g_autoptr (KsImage) out = run_op ("brightness_contrast", NULL, a);
  const char *explicit_params[] = { "brightness=0", "contrast=1", NULL };
  g_autoptr (KsImage) out2 = run_op ("brightness_contrast", explicit_params, a);

  ks_test_assert_images_equal (a, out, "brightness 0, contrast 1");
  ks_test_assert_images_equal (a, out2, "brightness=0 contrast=1");
}

static void
test_bc_known (void)
{
  /* (v − 128) · 1.5 + 128 + 20 by hand:
   *   0 → −44 → 0;   100 → 106;   101 → 107.5 → 108;   128 → 148;
   *   200 → 256 → 255;   255 → 338.5 → 255;   90 → 91 */
  const guint32 in[] = { PX (0, 100, 101, 255), PX (128, 200, 255, 0), PX (90, 128, 0, 77) };
  const guint32 expected[] = { PX (0, 106, 108, 255), PX (148, 255, 255, 0),
                               PX (91, 148, 0, 77) };
  const char *params[] = { "brightness=20", "contrast=1.5", NULL };
  g_autoptr (KsImage) a = row_image (in, G_N_ELEMENTS (in));
  g_autoptr (KsImage) out = run_op ("brightness_contrast", params, a);

  assert_row (out, expected, G_N_ELEMENTS (in), "brightness 20, contrast 1.5");
}

static void
test_bc_extremes (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 61, 7, g_test_rand_int ());
  const char *flat[] = { "contrast=0", "brightness=-28", NULL };
  const char *black[] = { "brightness=-255", NULL };
  const char *white[] = { "brightness=255", NULL };
  g_autoptr (KsImage) o_flat = run_op ("brightness_contrast", flat, a);
  g_autoptr (KsImage) o_black = run_op ("brightness_contrast", black, a);
  g_autoptr (KsImage) o_white = run_op ("brightness_contrast", white, a);

  /* Contrast 0: every channel is 128 + brightness; ±255 saturates; alpha stays. */
  for (guint y = 0; y < a->height; y++)
    for (guint x = 0; x < a->width; x++)
      {
        guint alpha = CH (ks_image_get_rgba (a, x, y), 3);
        g_assert_cmpuint (ks_image_get_rgba (o_flat, x, y), ==, PX (100, 100, 100, alpha));
        g_assert_cmpuint (ks_image_get_rgba (o_black, x, y), ==, PX (0, 0, 0, alpha));
        g_assert_cmpuint (ks_image_get_rgba (o_white, x, y), ==, PX (255, 255, 255, alpha));
      }
}

/* ---- gamma -------------------------------------------------------------- */

static void
test_gamma_identity (void)
{
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 256, 3);
  const char *one[] = { "gamma=1", NULL };
  g_autoptr (KsImage) out = NULL;

  /* Every level in every channel. */
  for (guint v = 0; v < 256; v++)
    {
      ks_image_set_rgba (a, v, 0, PX (v, 255 - v, v ^ 0x55, v));
      ks_image_set_rgba (a, v, 1, PX (255 - v, v, v ^ 0xaa, 255 - v));
      ks_image_set_rgba (a, v, 2, PX (v ^ 0x0f, v ^ 0xf0, v, 200));
    }
  out = run_op ("gamma", one, a);
  ks_test_assert_images_equal (a, out, "gamma 1");
}

static void
test_gamma_known (void)
{
  /* 255 · (v / 255)^(1 / gamma) by hand:
   *   gamma 0.5 (v² / 255): 16 → 1.004 → 1; 128 → 64.25 → 64; 200 → 156.86 → 157
   *   gamma 2 (√):          1 → 15.97 → 16; 64 → 127.75 → 128; 128 → 180.67 → 181
   *   gamma 2.2 (default):  16 → 72.44 → 72; 200 → 228.34 → 228;
   *                         1 → 20.54 → 21; 64 → 136.03 → 136; 128 → 186.42 → 186
   * and 0 and 255 stay for every gamma. */
  const guint32 in[] = { PX (16, 128, 200, 3), PX (1, 64, 128, 250), PX (0, 255, 0, 255) };
  const guint32 e_half[] = { PX (1, 64, 157, 3), PX (0, 16, 64, 250), PX (0, 255, 0, 255) };
  const guint32 e_two[] = { PX (64, 181, 226, 3), PX (16, 128, 181, 250), PX (0, 255, 0, 255) };
  const guint32 e_default[] = { PX (72, 186, 228, 3), PX (21, 136, 186, 250),
                                PX (0, 255, 0, 255) };
  const char *half[] = { "gamma=0.5", NULL };
  const char *two[] = { "gamma=2", NULL };
  g_autoptr (KsImage) a = row_image (in, G_N_ELEMENTS (in));
  g_autoptr (KsImage) o_half = run_op ("gamma", half, a);
  g_autoptr (KsImage) o_two = run_op ("gamma", two, a);
  g_autoptr (KsImage) o_default = run_op ("gamma", NULL, a);

  assert_row (o_half, e_half, G_N_ELEMENTS (in), "gamma 0.5");
  assert_row (o_two, e_two, G_N_ELEMENTS (in), "gamma 2");
  assert_row (o_default, e_default, G_N_ELEMENTS (in), "gamma 2.2");
}

static void
test_gamma_monotonic (void)
{
  g_autoptr (KsImage) ramp = ks_test_image_new (KS_FORMAT_RGBA8, 256, 1);
  static const char *const gammas[] = { "gamma=0.1", "gamma=0.7", "gamma=3", "gamma=10" };

  for (guint v = 0; v < 256; v++)
    ks_image_set_rgba (ramp, v, 0, PX (v, v, v, 255));
  for (guint i = 0; i < G_N_ELEMENTS (gammas); i++)
    {
      const char *params[] = { gammas[i], NULL };
      g_autoptr (KsImage) out = run_op ("gamma", params, ramp);
      gboolean brighten = i >= 2;

      /* A tone curve never reverses the order of levels, keeps the ends, and
       * lies on one side of the identity. */
      g_assert_cmpuint (ks_image_get_rgba (out, 0, 0), ==, PX (0, 0, 0, 255));
      g_assert_cmpuint (ks_image_get_rgba (out, 255, 0), ==, PX (255, 255, 255, 255));
      for (guint v = 1; v < 256; v++)
        {
          guint o = CH (ks_image_get_rgba (out, v, 0), 0);
          g_assert_cmpuint (CH (ks_image_get_rgba (out, v - 1, 0), 0), <=, o);
          if (brighten)
            g_assert_cmpuint (o, >=, v);
          else
            g_assert_cmpuint (o, <=, v);
        }
    }
}

/* ---- threshold ---------------------------------------------------------- */

static void
test_threshold_modes (void)
{
  /* Level 100 on 0, 99, 100, 101 and 255 (only values strictly above count as above). */
  const guint32 in[] = { PX (0, 99, 100, 1), PX (101, 255, 0, 254) };
  static const struct { const char *mode; guint32 expected[2]; } modes[] = {
    { "mode=binary", { PX (0, 0, 0, 1), PX (255, 255, 0, 254) } },
    { "mode=binary_inv", { PX (255, 255, 255, 1), PX (0, 0, 255, 254) } },
    { "mode=trunc", { PX (0, 99, 100, 1), PX (100, 100, 0, 254) } },
    { "mode=tozero", { PX (0, 0, 0, 1), PX (101, 255, 0, 254) } },
    { "mode=tozero_inv", { PX (0, 99, 100, 1), PX (0, 0, 0, 254) } },
  };
  g_autoptr (KsImage) a = row_image (in, G_N_ELEMENTS (in));

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      const char *params[] = { "level=100", modes[m].mode, NULL };
      g_autoptr (KsImage) out = run_op ("threshold", params, a);
      assert_row (out, modes[m].expected, G_N_ELEMENTS (in), modes[m].mode);
    }
}

static void
test_threshold_default_and_ends (void)
{
  const guint32 in[] = { PX (128, 129, 0, 9), PX (255, 1, 127, 0) };
  const guint32 e_default[] = { PX (0, 255, 0, 9), PX (255, 0, 0, 0) };
  const guint32 e_zero[] = { PX (255, 255, 0, 9), PX (255, 255, 255, 0) };
  const char *zero[] = { "level=0", NULL };
  const char *top[] = { "level=255", NULL };
  g_autoptr (KsImage) a = row_image (in, G_N_ELEMENTS (in));
  g_autoptr (KsImage) o_default = run_op ("threshold", NULL, a);
  g_autoptr (KsImage) o_zero = run_op ("threshold", zero, a);
  g_autoptr (KsImage) o_top = run_op ("threshold", top, a);
  const guint32 e_top[] = { PX (0, 0, 0, 9), PX (0, 0, 0, 0) };

  /* The default is binary at 128. Level 0: all but 0 are above. Level 255: nothing is. */
  assert_row (o_default, e_default, G_N_ELEMENTS (in), "threshold defaults");
  assert_row (o_zero, e_zero, G_N_ELEMENTS (in), "threshold level 0");
  assert_row (o_top, e_top, G_N_ELEMENTS (in), "threshold level 255");
}

/* ---- channel swap ------------------------------------------------------- */

static void
test_swap_orders (void)
{
  static const struct { const char *order; guint32 expected; } orders[] = {
    { "order=bgr", PX (3, 2, 1, 4) }, { "order=rbg", PX (1, 3, 2, 4) },
    { "order=grb", PX (2, 1, 3, 4) }, { "order=gbr", PX (2, 3, 1, 4) },
    { "order=brg", PX (3, 1, 2, 4) }, { "order=rgb", PX (1, 2, 3, 4) },
  };
  const guint32 in[] = { PX (1, 2, 3, 4) };
  g_autoptr (KsImage) a = row_image (in, 1);
  g_autoptr (KsImage) o_default = run_op ("channel_swap", NULL, a);

  g_assert_cmpuint (ks_image_get_rgba (o_default, 0, 0), ==, PX (3, 2, 1, 4));
  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      const char *params[] = { orders[i].order, NULL };
      g_autoptr (KsImage) out = run_op ("channel_swap", params, a);
      assert_row (out, &orders[i].expected, 1, orders[i].order);
    }
}

static void
test_swap_twice (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 41, 19, g_test_rand_int ());
  g_autoptr (KsImage) once = run_op ("channel_swap", NULL, a);
  g_autoptr (KsImage) twice = run_op ("channel_swap", NULL, once);
  const char *left[] = { "order=gbr", NULL };
  const char *right[] = { "order=brg", NULL };
  g_autoptr (KsImage) rotated = run_op ("channel_swap", left, a);
  g_autoptr (KsImage) back = run_op ("channel_swap", right, rotated);

  g_assert_false (ks_image_equal (a, once));
  ks_test_assert_images_equal (a, twice, "bgr twice");
  g_assert_false (ks_image_equal (a, rotated));
  ks_test_assert_images_equal (a, back, "gbr then brg");
}

/* ---- equalisation ------------------------------------------------------- */

static void
test_equalize_known_gray (void)
{
  /* Ten gray pixels: 2 × 50, 3 × 100, 4 × 150, 1 × 200. N = 10, cdf = 2, 5, 9,
   * 10, cdf_min = 2: 50 → 0, 100 → 3 · 255 / 8 = 95.6 → 96, 150 → 7 · 255 / 8 =
   * 223.1 → 223, 200 → 255. Gray pixels have luma = value, so both modes agree. */
  static const guint levels[] = { 150, 50, 100, 150, 200, 100, 150, 50, 100, 150 };
  static const guint mapped[256] = { [50] = 0, [100] = 96, [150] = 223, [200] = 255 };
  static const char *const modes[] = { "mode=luma", "mode=channels" };
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 5, 2);

  for (guint i = 0; i < 10; i++)
    ks_image_set_rgba (a, i % 5, i / 5, PX (levels[i], levels[i], levels[i], 10 * i));
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      const char *params[] = { modes[m], NULL };
      g_autoptr (KsImage) out = run_op ("equalize", params, a);
      for (guint i = 0; i < 10; i++)
        {
          guint v = mapped[levels[i]];
          g_assert_cmpuint (ks_image_get_rgba (out, i % 5, i / 5), ==, PX (v, v, v, 10 * i));
        }
    }
}

static void
test_equalize_known_luma (void)
{
  /* (v + 10, v, v − 10) has luma (1000 v + 1850 + 500) / 1000 = v + 2. With v in
   * 48, 98, 148, 198 the lumas are the gray test's levels, so the table is
   * 50 → 0, 100 → 96, 150 → 223, 200 → 255, and each channel moves by
   * lut[Y] − Y, clamped:
   *   v = 48:  d = −50: (58, 48, 38)    → (8, 0, 0)
   *   v = 98:  d = −4:  (108, 98, 88)   → (104, 94, 84)
   *   v = 148: d = 73:  (158, 148, 138) → (231, 221, 211)
   *   v = 198: d = 55:  (208, 198, 188) → (255, 253, 243) */
  static const guint vs[] = { 148, 48, 98, 148, 198, 98, 148, 48, 98, 148 };
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 10, 1);
  g_autoptr (KsImage) out = NULL;

  for (guint i = 0; i < 10; i++)
    ks_image_set_rgba (a, i, 0, PX (vs[i] + 10, vs[i], vs[i] - 10, 255 - i));
  out = run_op ("equalize", NULL, a);
  for (guint i = 0; i < 10; i++)
    {
      guint32 e = vs[i] == 48    ? PX (8, 0, 0, 255 - i)
                  : vs[i] == 98  ? PX (104, 94, 84, 255 - i)
                  : vs[i] == 148 ? PX (231, 221, 211, 255 - i)
                                 : PX (255, 253, 243, 255 - i);
      g_assert_cmpuint (ks_image_get_rgba (out, i, 0), ==, e);
    }
}

static void
test_equalize_known_channels (void)
{
  /* Red: the gray test's levels (50 → 0, 100 → 96, 150 → 223, 200 → 255).
   * Green: one level, 7: nothing to spread, it stays 7.
   * Blue: 1 × 10, 1 × 20, 8 × 30: cdf 1, 2, 10, cdf_min 1: 10 → 0,
   * 20 → 255 / 9 = 28.3 → 28, 30 → 255. */
  static const guint reds[] = { 150, 50, 100, 150, 200, 100, 150, 50, 100, 150 };
  static const guint blues[] = { 30, 30, 10, 30, 30, 20, 30, 30, 30, 30 };
  static const guint red_map[256] = { [50] = 0, [100] = 96, [150] = 223, [200] = 255 };
  static const guint blue_map[256] = { [10] = 0, [20] = 28, [30] = 255 };
  const char *params[] = { "mode=channels", NULL };
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 2, 5);
  g_autoptr (KsImage) out = NULL;

  for (guint i = 0; i < 10; i++)
    ks_image_set_rgba (a, i % 2, i / 2, PX (reds[i], 7, blues[i], i));
  out = run_op ("equalize", params, a);
  for (guint i = 0; i < 10; i++)
    g_assert_cmpuint (ks_image_get_rgba (out, i % 2, i / 2), ==,
                      PX (red_map[reds[i]], 7, blue_map[blues[i]], i));
}

/* The output's levels fall about equally into the four quarters of 0–255,
 * where the input's all lay in 100–140: within two of the input's largest
 * bins, the steps that no mapping of whole bins can split. */
static void
assert_flat (const guint64 *counts, guint64 n, double max_bin, const char *what)
{
  guint64 quarters[4] = { 0 };

  for (guint v = 0; v < 256; v++)
    quarters[v / 64] += counts[v];
  for (guint q = 0; q < 4; q++)
    {
      double share = (double) quarters[q] / n;
      g_test_message ("%s: quarter %u holds %.3f", what, q, share);
      if (fabs (share - 0.25) > 2 * max_bin)
        g_error ("%s: quarter %u holds %.3f of the pixels; expected 0.25 ± %.3f", what, q, share,
                 2 * max_bin);
    }
}

static void
test_equalize_flattens (void)
{
  const guint w = 256, h = 64;
  const guint64 n = (guint64) w * h;
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, w, h);
  const char *channels[] = { "mode=channels", NULL };
  g_autoptr (KsImage) o_channels = NULL;
  g_autoptr (KsImage) o_luma = NULL;
  guint64 in_hist[4][256], out_hist[4][256];
  double max_bin[4] = { 0 };

  memset (in_hist, 0, sizeof in_hist);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint32 p = PX (g_test_rand_int_range (100, 141), g_test_rand_int_range (100, 141),
                        g_test_rand_int_range (100, 141), g_test_rand_int_range (0, 256));
        ks_image_set_rgba (a, x, y, p);
        for (guint c = 0; c < 3; c++)
          in_hist[c][CH (p, c)]++;
        in_hist[3][ref_luma (p)]++;
      }
  for (guint c = 0; c < 4; c++)
    for (guint v = 0; v < 256; v++)
      max_bin[c] = MAX (max_bin[c], (double) in_hist[c][v] / n);

  o_channels = run_op ("equalize", channels, a);
  o_luma = run_op ("equalize", NULL, a);
  memset (out_hist, 0, sizeof out_hist);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint32 pc = ks_image_get_rgba (o_channels, x, y);
        guint32 pl = ks_image_get_rgba (o_luma, x, y);
        for (guint c = 0; c < 3; c++)
          out_hist[c][CH (pc, c)]++;
        out_hist[3][ref_luma (pl)]++;
        g_assert_cmpuint (CH (pc, 3), ==, CH (ks_image_get_rgba (a, x, y), 3));
        g_assert_cmpuint (CH (pl, 3), ==, CH (ks_image_get_rgba (a, x, y), 3));
      }
  assert_flat (out_hist[0], n, max_bin[0], "channels: red");
  assert_flat (out_hist[1], n, max_bin[1], "channels: green");
  assert_flat (out_hist[2], n, max_bin[2], "channels: blue");
  assert_flat (out_hist[3], n, max_bin[3], "luma: the output's luma");
  /* The darkest level present maps to 0 and the brightest to 255. */
  for (guint c = 0; c < 4; c++)
    {
      g_assert_cmpuint (out_hist[c][0], >, 0);
      g_assert_cmpuint (out_hist[c][255], >, 0);
    }
}

static void
test_equalize_single_level (void)
{
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 13, 7);
  g_autoptr (KsImage) gray = ks_test_image_new (KS_FORMAT_RGBA8, 13, 7);
  g_autoptr (KsImage) one = ks_test_random_image (KS_FORMAT_RGBA8, 1, 1, g_test_rand_int ());
  const char *channels[] = { "mode=channels", NULL };

  /* One colour everywhere: each channel, and the luma, has a single level. */
  for (guint y = 0; y < 7; y++)
    for (guint x = 0; x < 13; x++)
      {
        ks_image_set_rgba (a, x, y, PX (200, 30, 90, x * 7 + y));
        ks_image_set_rgba (gray, x, y, PX (77, 77, 77, 255));
      }
  {
    g_autoptr (KsImage) o1 = run_op ("equalize", channels, a);
    g_autoptr (KsImage) o2 = run_op ("equalize", NULL, a);
    g_autoptr (KsImage) o3 = run_op ("equalize", NULL, gray);
    g_autoptr (KsImage) o4 = run_op ("equalize", channels, one);
    g_autoptr (KsImage) o5 = run_op ("equalize", NULL, one);
    ks_test_assert_images_equal (a, o1, "channels on one colour");
    ks_test_assert_images_equal (a, o2, "luma on one colour");
    ks_test_assert_images_equal (gray, o3, "luma on one gray");
    ks_test_assert_images_equal (one, o4, "channels on 1×1");
    ks_test_assert_images_equal (one, o5, "luma on 1×1");
  }
}

/* ---- every op at odd sizes and launch geometries --------------------------- */

static void
check_all_cases (KsImage *a, const KsLaunchConfig *launch, const char *what)
{
  KsImage *inputs[] = { a, NULL };

  for (guint i = 0; i < G_N_ELEMENTS (all_cases); i++)
    {
      KsTestRun spec = { all_cases[i].op, all_cases[i].params, launch, FALSE, KS_TEST_POISON };
      g_autoptr (KsImage) expected = ref_color (all_cases[i].op, all_cases[i].params, a);
      g_autofree char *name = case_name (&all_cases[i]);
      g_autofree char *full = g_strdup_printf ("%s: %s", what, name);
      KsRunResult result;
      g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);

      ks_test_assert_images_equal (expected, out, full);
      ks_run_result_clear (&result);
    }
}

static void
test_sizes (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 2, 1 }, { 1, 2 }, { 3, 5 }, { 37, 23 },
                                    { 1023, 1 }, { 1, 1023 }, { 1025, 3 }, { 333, 197 } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, sizes[i][0], sizes[i][1],
                                                    g_test_rand_int ());
      g_autofree char *what = g_strdup_printf ("%u×%u", sizes[i][0], sizes[i][1]);
      check_all_cases (a, NULL, what);
    }
}

static void
test_launch_variants (void)
{
  static const guint blocks[][2] = { { 1, 1 }, { 32, 8 }, { 7, 13 }, { 1024, 1 } };
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 61, 29, g_test_rand_int ());
  g_autoptr (KsImage) big = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, g_test_rand_int ());

  for (guint bi = 0; bi < G_N_ELEMENTS (blocks); bi++)
    for (guint ppt = 1; ppt <= 16; ppt *= 2)
      for (guint mode = 0; mode < 2; mode++)
        {
          KsLaunchConfig c = ks_test_launch (blocks[bi][0], blocks[bi][1], 0, 0, mode, ppt);
          g_autofree char *what = g_strdup_printf ("block %u×%u ppt %u %s", blocks[bi][0],
                                                   blocks[bi][1], ppt,
                                                   mode ? "grid-stride" : "per-pixel");
          check_all_cases (a, &c, what);
        }
  /* Grid-stride with grids far smaller than the image still covers it. */
  for (guint ppt = 1; ppt <= 16; ppt *= 4)
    {
      KsLaunchConfig c = ks_test_launch (8, 8, 3, 2, KS_LAUNCH_GRID_STRIDE, ppt);
      check_all_cases (big, &c, "small grid-stride");
    }
}

/* An undersized per-pixel grid writes exactly the rectangle it reaches, with
 * the op's values; the poison stays everywhere else. */
static void
test_undersized_grid (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, g_test_rand_int ());
  KsImage *inputs[] = { a, NULL };

  for (guint ppt = 1; ppt <= 16; ppt *= 4)
    for (guint i = 0; i < G_N_ELEMENTS (all_cases); i++)
      {
        KsLaunchConfig c = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_PER_PIXEL, ppt);
        KsTestRun spec = { all_cases[i].op, all_cases[i].params, &c, FALSE, KS_TEST_POISON };
        g_autoptr (KsImage) expected = ref_color (all_cases[i].op, all_cases[i].params, a);
        KsRunResult result;
        g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);
        guint reach_w = MIN (333u, 3 * 16 * ppt), reach_h = 40;

        for (guint y = 0; y < a->height; y++)
          for (guint x = 0; x < a->width; x++)
            {
              guint32 e = x < reach_w && y < reach_h ? ks_image_get_rgba (expected, x, y)
                                                     : 0xA5A5A5A5u;
              if (ks_image_get_rgba (out, x, y) != e)
                {
                  g_autofree char *name = case_name (&all_cases[i]);
                  g_error ("undersized %s ppt %u: pixel (%u, %u) is 0x%08x, expected 0x%08x",
                           name, ppt, x, y, ks_image_get_rgba (out, x, y), e);
                }
            }
        ks_run_result_clear (&result);
      }
}

/* Equalisation runs two kernels; the coverage shown is the LUT pass's, under
 * the user's launch (the histogram pass has its own). */
static void
test_equalize_coverage (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, g_test_rand_int ());
  const char *params[] = { "mode=channels", NULL };
  g_autoptr (KsImage) expected = ref_color ("equalize", params, a);
  KsLaunchConfig c = ks_test_launch (8, 8, 2, 2, KS_LAUNCH_GRID_STRIDE, 4);
  KsImage *inputs[] = { a, NULL };
  KsTestRun spec = { "equalize", params, &c, TRUE, KS_TEST_POISON };
  KsRunResult result;
  g_autoptr (KsImage) out = ks_test_run (engine, &spec, inputs, &result);

  ks_test_assert_images_equal (expected, out, "equalize with a small grid-stride launch");
  /* Coverage is the LUT pass's: every pixel once. */
  g_assert_nonnull (result.coverage);
  g_assert_cmpuint (result.coverage->unwritten_pixels, ==, 0);
  g_assert_cmpuint (result.coverage->multiply_written_pixels, ==, 0);
  g_assert_cmpuint (result.launch.grid.x, ==, 2);
  ks_run_result_clear (&result);
}

/* ---- refusals ----------------------------------------------------------- */

static void
assert_param_error (const char *op_id, const char *assignment, const char *needle)
{
  const KsOp *op = ks_op_registry_lookup (op_id);
  g_autoptr (GError) error = NULL;
  KsParams params;

  g_assert_nonnull (op);
  ks_params_init (&params, op);
  g_assert_false (ks_params_parse_assignment (&params, op, assignment, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  if (needle != NULL)
    ks_test_assert_message_has (error, needle, NULL);
}

static void
test_bad_params (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 9, 4, 1);
  g_autoptr (KsImage) g8 = ks_test_random_image (KS_FORMAT_GRAY8, 9, 4, 2);
  static const char *const ids[] = { "brightness_contrast", "gamma", "threshold", "channel_swap",
                                     "equalize" };

  assert_param_error ("brightness_contrast", "brightness=256", "brightness");
  assert_param_error ("brightness_contrast", "brightness=-255.5", "brightness");
  assert_param_error ("brightness_contrast", "contrast=-0.1", "contrast");
  assert_param_error ("brightness_contrast", "contrast=4.01", "contrast");
  assert_param_error ("brightness_contrast", "contrast=nan", "contrast");
  assert_param_error ("brightness_contrast", "contrast=lots", "lots");
  assert_param_error ("gamma", "gamma=0", "gamma");
  assert_param_error ("gamma", "gamma=0.09", "gamma");
  assert_param_error ("gamma", "gamma=10.5", "gamma");
  assert_param_error ("gamma", "gamma=inf", "gamma");
  assert_param_error ("threshold", "level=256", "level");
  assert_param_error ("threshold", "level=-1", "level");
  assert_param_error ("threshold", "level=12.5", "whole number");
  assert_param_error ("threshold", "mode=otsu", "otsu");
  assert_param_error ("threshold", "threshold=3", "threshold");
  assert_param_error ("channel_swap", "order=rgba", "rgba");
  assert_param_error ("channel_swap", "order=bbb", "bbb");
  assert_param_error ("equalize", "mode=hsv", "hsv");

  /* Values broken by hand are refused by the engine, and so are gray inputs. */
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const KsOp *op = ks_op_registry_lookup (ids[i]);
      g_autoptr (KsBuffer) in = ks_engine_upload (engine, a, NULL, NULL);
      g_autoptr (KsBuffer) gray_in = ks_engine_upload (engine, g8, NULL, NULL);
      g_autoptr (GError) error = NULL;
      KsRunResult result = { 0 };
      KsRunRequest req;

      ks_run_request_init (&req, op);
      req.inputs[0] = in;
      req.params.values[0] = op->params[0].max + 1;
      g_assert_false (ks_engine_run (engine, &req, &result, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
      g_assert_null (result.output);
      g_clear_error (&error);

      ks_run_request_init (&req, op);
      req.inputs[0] = gray_in;
      g_assert_false (ks_engine_run (engine, &req, &result, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
      ks_test_assert_message_has (error, "RGBA", NULL);
    }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  engine = ks_test_cpu_engine ();

  g_test_add_func ("/ks/engine/colour/registry", test_registry);
  g_test_add_func ("/ks/engine/colour/bytes-moved", test_bytes_moved);
  g_test_add_func ("/ks/engine/brightness-contrast/defaults-are-identity", test_bc_identity);
  g_test_add_func ("/ks/engine/brightness-contrast/known-pixels", test_bc_known);
  g_test_add_func ("/ks/engine/brightness-contrast/flat-black-white", test_bc_extremes);
  g_test_add_func ("/ks/engine/gamma/one-is-identity", test_gamma_identity);
  g_test_add_func ("/ks/engine/gamma/known-pixels", test_gamma_known);
  g_test_add_func ("/ks/engine/gamma/monotonic-ends-fixed", test_gamma_monotonic);
  g_test_add_func ("/ks/engine/threshold/modes-known-pixels", test_threshold_modes);
  g_test_add_func ("/ks/engine/threshold/default-and-end-levels", test_threshold_default_and_ends);
  g_test_add_func ("/ks/engine/channel-swap/orders-known-pixels", test_swap_orders);
  g_test_add_func ("/ks/engine/channel-swap/twice-is-identity", test_swap_twice);
  g_test_add_func ("/ks/engine/equalize/known-gray-histogram", test_equalize_known_gray);
  g_test_add_func ("/ks/engine/equalize/luma-known-pixels", test_equalize_known_luma);
  g_test_add_func ("/ks/engine/equalize/channels-known-pixels", test_equalize_known_channels);
  g_test_add_func ("/ks/engine/equalize/flattens-histogram", test_equalize_flattens);
  g_test_add_func ("/ks/engine/equalize/single-level-is-identity", test_equalize_single_level);
  g_test_add_func ("/ks/engine/equalize/coverage-is-the-lut-pass", test_equalize_coverage);
  g_test_add_func ("/ks/engine/colour/sizes-match-formulas", test_sizes);
  g_test_add_func ("/ks/engine/colour/launch-variants", test_launch_variants);
  g_test_add_func ("/ks/engine/colour/undersized-grid", test_undersized_grid);
  g_test_add_func ("/ks/engine/colour/bad-params", test_bad_params);

  ret = g_test_run ();
  g_clear_object (&engine);
  return ret;
}
