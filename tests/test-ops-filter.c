/* test-ops-filter.c: the neighbourhood filters on the CPU engine against
 * independent expectations — a direct two-dimensional reference of the
 * formulas in ks-filter.h written here, and properties (constant images,
 * impulses, step edges) — under many launch geometries. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

#define PX(r, g, b, a) \
  ((guint32) (r) | (guint32) (g) << 8 | (guint32) (b) << 16 | (guint32) (a) << 24)
#define MAX_TAPS 129

static KsEngine *engine;

/* ---- the reference ------------------------------------------------------ */

typedef struct
{
  int kind;            /* 0 blur, 1 unsharp, 2 Sobel */
  int radius;
  gint64 taps[MAX_TAPS];
  gint64 amount;       /* 8.8 */
  int mode;            /* Sobel: 0 horizontal, 1 vertical, 2 magnitude */
} Ref;

static void
ref_box (Ref *f, int r)
{
  memset (f, 0, sizeof *f);
  f->radius = r;
  for (int i = 0; i <= 2 * r; i++)
    f->taps[i] = 1;
}

/* Taps from the op's documented definition: radius ceil(3σ) (at most 64),
 * round(1024 g(i) / Σ g), the remainder to the centre. */
static void
ref_gaussian (Ref *f, double sigma)
{
  double g[MAX_TAPS], total = 0;
  gint64 sum = 0;
  int r = (int) ceil (3 * sigma);

  memset (f, 0, sizeof *f);
  r = CLAMP (r, 1, 64);
  f->radius = r;
  for (int i = -r; i <= r; i++)
    total += g[i + r] = exp (-(double) (i * i) / (2 * sigma * sigma));
  for (int i = 0; i <= 2 * r; i++)
    sum += f->taps[i] = llround (1024 * g[i] / total);
  f->taps[r] += 1024 - sum;
}

static guint32
pixel_at (const KsImage *a, gint64 x, gint64 y)
{
  x = CLAMP (x, 0, (gint64) a->width - 1);
  y = CLAMP (y, 0, (gint64) a->height - 1);
  return ks_image_get_rgba (a, (guint) x, (guint) y);
}

static gint64
luma (guint32 p)
{
  return (299 * (p & 0xff) + 587 * (p >> 8 & 0xff) + 114 * (p >> 16 & 0xff) + 500) / 1000;
}

static KsImage *
ref_filter (const Ref *f, const KsImage *a)
{
  KsImage *out = ks_test_image_new (f->kind == 2 ? KS_FORMAT_GRAY8 : KS_FORMAT_RGBA8, a->width,
                                    a->height);
  gint64 t = 0;

  for (int i = 0; i <= 2 * f->radius; i++)
    t += f->taps[i];
  for (gint64 y = 0; y < a->height; y++)
    for (gint64 x = 0; x < a->width; x++)
      {
        guint32 p = pixel_at (a, x, y), v = 0;

        if (f->kind == 2)
          {
            gint64 l[3][3], gx, gy, m;
            for (int j = 0; j < 3; j++)
              for (int i = 0; i < 3; i++)
                l[j][i] = luma (pixel_at (a, x + i - 1, y + j - 1));
            gx = l[0][2] + 2 * l[1][2] + l[2][2] - l[0][0] - 2 * l[1][0] - l[2][0];
            gy = l[2][0] + 2 * l[2][1] + l[2][2] - l[0][0] - 2 * l[0][1] - l[0][2];
            if (f->mode == 0)
              m = ABS (gy);
            else if (f->mode == 1)
              m = ABS (gx);
            else
              m = (gint64) floor (sqrt ((double) (gx * gx + gy * gy)));
            ks_image_row (out, (guint) y)[x] = (guint8) MIN (m, 255);
            continue;
          }
        for (int c = 0; c < 3; c++)
          {
            gint64 s = 0, b, ch = p >> (8 * c) & 0xff;
            for (int j = -f->radius; j <= f->radius; j++)
              for (int i = -f->radius; i <= f->radius; i++)
                s += f->taps[j + f->radius] * f->taps[i + f->radius]
                     * (pixel_at (a, x + i, y + j) >> (8 * c) & 0xff);
            b = (s + t * t / 2) / (t * t);
            if (f->kind == 1)
              {
                gint64 d = (ch - b) * f->amount;
                gint64 q = d >= 0 ? (d + 128) >> 8 : -((-d + 128) >> 8);
                b = CLAMP (ch + q, 0, 255);
              }
            v |= (guint32) b << (8 * c);
          }
        ks_image_set_rgba (out, (guint) x, (guint) y, v | (p & 0xff000000u));
      }
  return out;
}

/* ---- helpers ------------------------------------------------------------ */

typedef struct
{
  const char *op;
  const char *params[3];
  Ref ref;
} Case;

static void
make_cases (Case *cases, guint *n)
{
  static const int box_r[] = { 1, 2, 7, 32 };
  static const double sigmas[] = { 0.5, 1.5, 5, 20 };
  guint k = 0;

  for (guint i = 0; i < G_N_ELEMENTS (box_r); i++)
    {
      cases[k].op = "box_blur";
      cases[k].params[0] = g_strdup_printf ("radius=%d", box_r[i]);
      ref_box (&cases[k].ref, box_r[i]);
      k++;
    }
  for (guint i = 0; i < G_N_ELEMENTS (sigmas); i++)
    {
      cases[k].op = "gaussian_blur";
      cases[k].params[0] = g_strdup_printf ("sigma=%g", sigmas[i]);
      ref_gaussian (&cases[k].ref, sigmas[i]);
      k++;
    }
  for (int m = 0; m < 3; m++)
    {
      static const char *const modes[] = { "horizontal", "vertical", "magnitude" };
      cases[k].op = "sobel";
      cases[k].params[0] = g_strdup_printf ("mode=%s", modes[m]);
      memset (&cases[k].ref, 0, sizeof cases[k].ref);
      cases[k].ref.kind = 2;
      cases[k].ref.mode = m;
      k++;
    }
  cases[k].op = "sharpen";
  cases[k].params[0] = g_strdup ("amount=1.5");
  cases[k].params[1] = g_strdup ("radius=2");
  ref_gaussian (&cases[k].ref, 2);
  cases[k].ref.kind = 1;
  cases[k].ref.amount = 384;
  k++;
  cases[k].op = "sharpen";
  cases[k].params[0] = g_strdup ("amount=5");
  cases[k].params[1] = g_strdup ("radius=10");
  ref_gaussian (&cases[k].ref, 10);
  cases[k].ref.kind = 1;
  cases[k].ref.amount = 1280;
  k++;
  *n = k;
}

static void
free_cases (Case *cases, guint n)
{
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < G_N_ELEMENTS (cases[i].params); j++)
      g_free ((char *) cases[i].params[j]);
}

static KsImage *
run_filter (const char *op, const char *const *params, const KsLaunchConfig *launch, KsImage *a,
            KsRunResult *result, gboolean instrument)
{
  KsImage *inputs[] = { a, NULL };
  KsTestRun spec = { op, params, launch, instrument, KS_TEST_POISON };
  KsRunResult local;
  KsImage *out = ks_test_run (engine, &spec, inputs, result != NULL ? result : &local);

  if (result == NULL)
    ks_run_result_clear (&local);
  return out;
}

/* ---- tests -------------------------------------------------------------- */

static void
test_registry (void)
{
  static const char *const ids[] = { "box_blur", "gaussian_blur", "sobel", "sharpen" };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const KsOp *op = ks_op_registry_lookup (ids[i]);
      g_assert_nonnull (op);
      g_assert_cmpstr (op->group, ==, "Filters");
      g_assert_cmpuint (op->n_inputs, ==, 1);
      g_assert_cmpint (op->output_format, ==,
                       g_str_equal (ids[i], "sobel") ? KS_FORMAT_GRAY8 : KS_FORMAT_RGBA8);
      /* Sobel works on the luma, so a gray image is input enough. */
      g_assert_true (ks_op_accepts_format (op, KS_FORMAT_GRAY8) == g_str_equal (ids[i], "sobel"));
    }
}

/* Sobel of a gray image is Sobel of the colour image whose channels all hold
 * its levels (their luma is the level itself), pixel for pixel, in every
 * mode, at odd sizes and launches, per-pixel and grid-stride. */
static void
test_sobel_gray_input (void)
{
  static const char *const modes[] = { "mode=horizontal", "mode=vertical", "mode=magnitude" };
  static const guint sizes[][2] = { { 1, 1 }, { 2, 9 }, { 37, 23 }, { 130, 7 } };

  for (guint si = 0; si < G_N_ELEMENTS (sizes); si++)
    {
      const guint w = sizes[si][0], h = sizes[si][1];
      g_autoptr (KsImage) gray = ks_test_random_image (KS_FORMAT_GRAY8, w, h, 0x5eed + si);
      g_autoptr (KsImage) rgba = ks_test_image_new (KS_FORMAT_RGBA8, w, h);

      for (guint y = 0; y < h; y++)
        for (guint x = 0; x < w; x++)
          {
            guint v = ks_image_row (gray, y)[x];
            ks_image_set_rgba (rgba, x, y, PX (v, v, v, 255 - v));
          }
      for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
        for (guint l = 0; l < 2; l++)
          {
            const char *p[] = { modes[m], NULL };
            KsLaunchConfig c = ks_test_launch (l ? 8 : 32, l ? 3 : 4, l ? 2 : 0, l ? 1 : 0,
                                               l ? KS_LAUNCH_GRID_STRIDE : KS_LAUNCH_PER_PIXEL,
                                               l ? 2 : 8);
            g_autoptr (KsImage) from_gray = run_filter ("sobel", p, &c, gray, NULL, FALSE);
            g_autoptr (KsImage) from_rgba = run_filter ("sobel", p, &c, rgba, NULL, FALSE);
            g_autofree char *what = g_strdup_printf ("sobel %s of gray %u×%u", modes[m], w, h);

            ks_test_assert_images_equal (from_rgba, from_gray, what);
          }
    }
}

static void
test_random_sizes (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 1, 17 }, { 19, 1 }, { 5, 3 }, { 37, 23 },
                                     { 70, 9 } };
  Case cases[16];
  guint n_cases;

  memset (cases, 0, sizeof cases);
  make_cases (cases, &n_cases);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, sizes[s][0], sizes[s][1],
                                                    g_test_rand_int ());
      for (guint c = 0; c < n_cases; c++)
        {
          g_autoptr (KsImage) expected = ref_filter (&cases[c].ref, a);
          g_autoptr (KsImage) out = run_filter (cases[c].op, cases[c].params, NULL, a, NULL, FALSE);
          g_autofree char *what = g_strdup_printf ("%s %s %s on %u×%u", cases[c].op,
                                                   cases[c].params[0],
                                                   cases[c].params[1] ? cases[c].params[1] : "",
                                                   sizes[s][0], sizes[s][1]);
          ks_test_assert_images_equal (expected, out, what);
        }
    }
  free_cases (cases, n_cases);
}

static void
test_constant_stays_constant (void)
{
  static const char *const params[][2] = {
    { "box_blur", "radius=1" }, { "box_blur", "radius=13" }, { "box_blur", "radius=32" },
    { "gaussian_blur", "sigma=0.5" }, { "gaussian_blur", "sigma=1.7" },
    { "gaussian_blur", "sigma=20" }, { "sharpen", "radius=3" }, { "sharpen", "radius=10" },
  };
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 41, 29);

  for (guint y = 0; y < 29; y++)
    for (guint x = 0; x < 41; x++)
      ks_image_set_rgba (a, x, y, PX (200, 17, 99, 123));
  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    {
      const char *p[] = { params[i][1], NULL };
      g_autoptr (KsImage) out = run_filter (params[i][0], p, NULL, a, NULL, FALSE);
      ks_test_assert_images_equal (a, out, params[i][0]);
    }
}

static void
test_box_impulse (void)
{
  for (int r = 1; r <= 5; r += 2)
    {
      g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 31, 27);
      g_autofree char *param = g_strdup_printf ("radius=%d", r);
      const char *p[] = { param, NULL };
      guint64 lit = 0;

      for (guint y = 0; y < 27; y++)
        for (guint x = 0; x < 31; x++)
          ks_image_set_rgba (a, x, y, PX (0, 0, 0, 255));
      ks_image_set_rgba (a, 15, 13, PX (255, 255, 255, 255));
      {
        g_autoptr (KsImage) out = run_filter ("box_blur", p, NULL, a, NULL, FALSE);
        for (guint y = 0; y < 27; y++)
          for (guint x = 0; x < 31; x++)
            {
              guint32 v = ks_image_get_rgba (out, x, y);
              gboolean inside = ABS ((int) x - 15) <= r && ABS ((int) y - 13) <= r;
              g_assert_cmpuint (v >> 24, ==, 255);
              g_assert_cmpint ((v & 0xffffff) != 0, ==, inside);
              lit += (v & 0xffffff) != 0;
            }
      }
      g_assert_cmpuint (lit, ==, (guint64) (2 * r + 1) * (2 * r + 1));
    }
}

static void
test_sobel_step (void)
{
  static const char *const modes[] = { "horizontal", "vertical", "magnitude" };
  g_autoptr (KsImage) a = ks_test_image_new (KS_FORMAT_RGBA8, 20, 9);

  /* Dark columns 0..9, bright 10..19: the edge lies between 9 and 10. */
  for (guint y = 0; y < 9; y++)
    for (guint x = 0; x < 20; x++)
      ks_image_set_rgba (a, x, y, x < 10 ? PX (10, 10, 10, 255) : PX (240, 240, 240, 255));
  for (guint m = 0; m < 3; m++)
    {
      g_autofree char *param = g_strdup_printf ("mode=%s", modes[m]);
      const char *p[] = { param, NULL };
      g_autoptr (KsImage) out = run_filter ("sobel", p, NULL, a, NULL, FALSE);

      for (guint y = 0; y < 9; y++)
        for (guint x = 0; x < 20; x++)
          {
            guint8 v = ks_image_row (out, y)[x];
            gboolean beside = x == 9 || x == 10;
            if (m == 0)
              g_assert_cmpuint (v, ==, 0);
            else
              g_assert_cmpuint (v, ==, beside ? 255 : 0);
          }
    }
}

static void
test_sharpen_amount_zero (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 45, 17, g_test_rand_int ());
  const char *p[] = { "amount=0", "radius=4", NULL };
  g_autoptr (KsImage) out = run_filter ("sharpen", p, NULL, a, NULL, FALSE);

  ks_test_assert_images_equal (a, out, "sharpen with amount 0");
}

static void
test_geometries_agree (void)
{
  static const guint ppts[] = { 1, 2, 4, 8, 16 };
  static const char *const ops[][3] = {
    { "box_blur", "radius=3", NULL }, { "gaussian_blur", "sigma=2.2", NULL },
    { "sobel", "mode=magnitude", NULL }, { "sharpen", "amount=2", "radius=1.5" },
  };
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 77, 41, g_test_rand_int ());

  for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
    {
      const char *p[] = { ops[o][1], ops[o][2], NULL };
      KsLaunchConfig c = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
      g_autoptr (KsImage) first = run_filter (ops[o][0], p, &c, a, NULL, FALSE);

      for (guint i = 0; i < G_N_ELEMENTS (ppts); i++)
        for (guint mode = 0; mode < 2; mode++)
          {
            KsLaunchConfig l = mode == 0
                                 ? ks_test_launch (7, 3, 0, 0, KS_LAUNCH_PER_PIXEL, ppts[i])
                                 : ks_test_launch (8, 4, 2, 3, KS_LAUNCH_GRID_STRIDE, ppts[i]);
            g_autoptr (KsImage) out = run_filter (ops[o][0], p, &l, a, NULL, FALSE);
            ks_test_assert_images_equal (first, out, ops[o][0]);
          }
    }
}

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

static void
check_coverage (const char *op, const char *const *params, const Ref *ref, guint w, guint h,
                const KsLaunchConfig *launch, guint reach_w, guint reach_h, guint64 idle)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  g_autoptr (KsImage) e = ref_filter (ref, a);
  KsRunResult result;
  g_autoptr (KsImage) out = run_filter (op, params, launch, a, &result, TRUE);
  const KsCoverage *cov = result.coverage;
  guint bpp = ref->kind == 2 ? 1 : 4;

  g_assert_nonnull (cov);
  g_assert_cmpuint (cov->unwritten_pixels, ==, (guint64) w * h - (guint64) reach_w * reach_h);
  g_assert_cmpuint (cov->multiply_written_pixels, ==, 0);
  g_assert_cmpuint (cov->idle_threads, ==, idle);
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        gsize i = (gsize) y * w + x;
        const guint8 *o = ks_image_row (out, y) + (gsize) x * bpp;
        const guint8 *ex = ks_image_row (e, y) + (gsize) x * bpp;
        if (x < reach_w && y < reach_h)
          {
            guint32 block, thread;
            expected_owner (&result.launch, x, y, &block, &thread);
            g_assert_cmpuint (cov->writes[i], ==, 1);
            g_assert_cmpmem (o, bpp, ex, bpp);
            g_assert_cmpuint (cov->owner_block[i], ==, block);
            g_assert_cmpuint (cov->owner_thread[i], ==, thread);
          }
        else
          {
            g_assert_cmpuint (cov->writes[i], ==, 0);
            for (guint b = 0; b < bpp; b++)
              g_assert_cmpuint (o[b], ==, KS_TEST_POISON);
          }
      }
  ks_run_result_clear (&result);
}

static void
test_coverage (void)
{
  const char *box[] = { "radius=4", NULL };
  const char *sobel[] = { "mode=vertical", NULL };
  Ref rb, rs;
  KsLaunchConfig c;

  ref_box (&rb, 4);
  memset (&rs, 0, sizeof rs);
  rs.kind = 2;
  rs.mode = 1;
  /* Undersized: 3×2 blocks of 8×4 with 2 pixels per thread reach 48×8 of 100×60. */
  c = ks_test_launch (8, 4, 3, 2, KS_LAUNCH_PER_PIXEL, 2);
  check_coverage ("box_blur", box, &rb, 100, 60, &c, 48, 8, 0);
  check_coverage ("sobel", sobel, &rs, 100, 60, &c, 48, 8, 0);
  /* Oversized: 10×10 under 2×2 blocks of 16×16, 4 pixels per thread: 30 busy threads. */
  c = ks_test_launch (16, 16, 2, 2, KS_LAUNCH_PER_PIXEL, 4);
  check_coverage ("box_blur", box, &rb, 10, 10, &c, 10, 10, 1024 - 30);
  /* Grid-stride: a 2×3 grid of 8×4 loops over an odd size. */
  c = ks_test_launch (8, 4, 2, 3, KS_LAUNCH_GRID_STRIDE, 4);
  check_coverage ("box_blur", box, &rb, 133, 57, &c, 133, 57, 0);
  check_coverage ("sobel", sobel, &rs, 133, 57, &c, 133, 57, 0);
  /* A block of one thread. */
  c = ks_test_launch (1, 1, 5, 4, KS_LAUNCH_GRID_STRIDE, 1);
  check_coverage ("box_blur", box, &rb, 23, 11, &c, 23, 11, 0);
}

static void
test_bad_params (void)
{
  static const char *const bad[][2] = {
    { "box_blur", "radius=0" }, { "box_blur", "radius=33" }, { "gaussian_blur", "sigma=0.4" },
    { "gaussian_blur", "sigma=21" }, { "sobel", "mode=diagonal" }, { "sharpen", "amount=-1" },
    { "sharpen", "radius=11" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const KsOp *op = ks_op_registry_lookup (bad[i][0]);
      g_autoptr (GError) error = NULL;
      KsParams params;

      ks_params_init (&params, op);
      g_assert_false (ks_params_parse_assignment (&params, op, bad[i][1], &error));
      g_assert_nonnull (error);
    }

  /* A 1024-wide block of 16 pixels asks for more shared memory than a block gets. */
  {
    g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 64, 64, 1);
    g_autoptr (KsImage) gray = ks_test_random_image (KS_FORMAT_GRAY8, 64, 64, 1);
    KsImage *inputs[] = { a, NULL };
    KsImage *gray_inputs[] = { gray, NULL };
    const char *p[] = { "radius=32", NULL };
    KsLaunchConfig c = ks_test_launch (1024, 1, 0, 0, KS_LAUNCH_PER_PIXEL, 16);
    KsTestRun spec = { "box_blur", p, &c, FALSE, -1 };
    KsTestRun gray_spec = { "gaussian_blur", NULL, NULL, FALSE, -1 };
    KsImage *out = NULL;
    KsRunResult result;
    g_autoptr (GError) error = NULL;
    g_autoptr (GError) gray_error = NULL;

    g_assert_false (ks_test_try_run (engine, &spec, inputs, &out, &result, &error));
    g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
    ks_test_assert_message_has (error, "shared memory", NULL);
    g_assert_null (out);
    g_assert_false (ks_test_try_run (engine, &gray_spec, gray_inputs, &out, &result, &gray_error));
    g_assert_error (gray_error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    g_assert_null (out);
  }
}

static gpointer
cancel_soon (gpointer data)
{
  g_usleep (2000);
  g_cancellable_cancel (data);
  return NULL;
}

/* A long CPU run stops when cancelled, between bands of rows: already
 * cancelled it writes nothing; cancelled while it runs (an 8192² Gaussian at
 * σ 20 takes seconds on a few cores, the cancel comes after 2 ms) it fails
 * with G_IO_ERROR_CANCELLED instead of finishing. */
static void
test_cancelled (void)
{
  const KsOp *op = ks_op_registry_lookup ("gaussian_blur");
  g_autoptr (KsImage) small = ks_test_random_image (KS_FORMAT_RGBA8, 300, 200, 7);
  g_autoptr (KsImage) large = ks_test_image_new (KS_FORMAT_RGBA8, 8192, 8192);
  g_autoptr (GCancellable) before = g_cancellable_new ();
  g_autoptr (GCancellable) during = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) late = NULL;
  g_autoptr (KsBuffer) in = NULL;
  g_autoptr (KsBuffer) out = NULL;
  g_autoptr (KsImage) untouched = NULL;
  KsRunRequest request;
  KsRunResult result = { 0 };
  GThread *thread;

  in = ks_engine_upload (engine, small, NULL, &error);
  out = ks_engine_new_buffer (engine, KS_FORMAT_RGBA8, 300, 200, &error);
  g_assert_no_error (error);
  g_assert_true (ks_engine_fill (engine, out, 0xa5, &error));
  ks_run_request_init (&request, op);
  g_assert_true (ks_params_parse_assignment (&request.params, op, "sigma=20", &error));
  request.inputs[0] = in;
  request.output = out;
  request.cancellable = before;
  g_cancellable_cancel (before);
  g_assert_false (ks_engine_run (engine, &request, &result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  untouched = ks_engine_download (engine, out, NULL, NULL);
  for (guint y = 0; y < untouched->height; y++)
    for (guint x = 0; x < untouched->width; x++)
      g_assert_cmphex (ks_image_get_rgba (untouched, x, y), ==, 0xa5a5a5a5);

  g_clear_pointer (&in, ks_buffer_unref);
  ks_image_fill (large, 40);
  in = ks_engine_upload (engine, large, NULL, &late);
  g_assert_no_error (late);
  request.inputs[0] = in;
  request.output = NULL;
  request.cancellable = during;
  thread = g_thread_new ("cancel", cancel_soon, during);
  g_assert_false (ks_engine_run (engine, &request, &result, &late));
  g_assert_error (late, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_thread_join (thread);
  ks_run_result_clear (&result);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  engine = ks_test_cpu_engine ();

  g_test_add_func ("/ks/engine/filter/registry", test_registry);
  g_test_add_func ("/ks/engine/filter/sobel-gray-input", test_sobel_gray_input);
  g_test_add_func ("/ks/engine/filter/random-sizes-match-reference", test_random_sizes);
  g_test_add_func ("/ks/engine/filter/constant-stays-constant", test_constant_stays_constant);
  g_test_add_func ("/ks/engine/filter/box-impulse-spreads-to-window", test_box_impulse);
  g_test_add_func ("/ks/engine/filter/sobel-step-edge", test_sobel_step);
  g_test_add_func ("/ks/engine/filter/sharpen-amount-zero-is-identity", test_sharpen_amount_zero);
  g_test_add_func ("/ks/engine/filter/geometries-agree", test_geometries_agree);
  g_test_add_func ("/ks/engine/filter/coverage", test_coverage);
  g_test_add_func ("/ks/engine/filter/bad-params-refused", test_bad_params);
  g_test_add_func ("/ks/engine/filter/cancelled", test_cancelled);

  ret = g_test_run ();
  g_clear_object (&engine);
  return ret;
}
