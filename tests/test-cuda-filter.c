/* test-cuda-filter.c: the neighbourhood filters on CUDA against the CPU
 * engine, exactly (integer filters), over poisoned outputs, with coverage.
 *
 * Without a usable GPU it prints a TAP plan of 0 with the reason and exits 77,
 * which meson reports as skipped. */
#include "config.h"

#include <string.h>

#include "ks-test-helpers.h"

static KsEngine *cpu;
static KsEngine *gpu;

typedef struct
{
  const char *op;
  const char *params[3];
} OpCase;

static const OpCase filter_ops[] = {
  { "box_blur", { "radius=1", NULL } },
  { "box_blur", { "radius=2", NULL } },
  { "box_blur", { "radius=9", NULL } },
  { "box_blur", { "radius=32", NULL } },
  { "gaussian_blur", { "sigma=0.5", NULL } },
  { "gaussian_blur", { "sigma=1", NULL } },
  { "gaussian_blur", { "sigma=1.5", NULL } },
  { "gaussian_blur", { "sigma=4.3", NULL } },
  { "gaussian_blur", { "sigma=20", NULL } },
  { "sobel", { "mode=horizontal", NULL } },
  { "sobel", { "mode=vertical", NULL } },
  { "sobel", { "mode=magnitude", NULL } },
  { "sharpen", { "amount=1", "radius=1", NULL } },
  { "sharpen", { "amount=3.7", "radius=6.5", NULL } },
  { "sharpen", { "amount=5", "radius=10", NULL } },
};

/* Runs spec on both engines over outputs poisoned with the same byte; the
 * outputs (poison included) and the coverage must be identical. */
/* Runs spec on both engines over outputs poisoned with the same byte; the
 * outputs (poison included) and the coverage must be identical. A launch that
 * asks for more shared memory than a block gets must be refused by both. */
static void
compare_engines (const KsTestRun *spec, KsImage *const *inputs, const char *what)
{
  KsRunResult rc, rg;
  g_autoptr (KsImage) oc = NULL;
  g_autoptr (KsImage) og = NULL;
  g_autoptr (GError) error = NULL;

  if (!ks_test_try_run (cpu, spec, inputs, &oc, &rc, &error))
    {
      g_autoptr (GError) gpu_error = NULL;

      g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      g_assert_false (ks_test_try_run (gpu, spec, inputs, &og, &rg, &gpu_error));
      g_assert_error (gpu_error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      g_test_message ("%s: refused by both: %s", what, error->message);
      return;
    }
  og = ks_test_run (gpu, spec, inputs, &rg);

  if (!(rc.launch.auto_grid && rc.launch.mode == KS_LAUNCH_GRID_STRIDE))
    g_assert_cmpmem (&rc.launch, sizeof rc.launch, &rg.launch, sizeof rg.launch);
  ks_test_assert_images_equal (oc, og, what);
  if (spec->instrument)
    ks_test_assert_coverage_equal (rc.coverage, rg.coverage, what);
  ks_run_result_clear (&rc);
  ks_run_result_clear (&rg);
}

/* Small radii, for large images: the CPU engine's cost grows with the
 * square of the radius. */
static const OpCase cheap_ops[] = {
  { "box_blur", { "radius=2", NULL } },
  { "gaussian_blur", { "sigma=1.5", NULL } },
  { "sobel", { "mode=magnitude", NULL } },
  { "sharpen", { "amount=1", "radius=1", NULL } },
};

static void
compare_list (KsImage *a, const OpCase *ops, guint n_ops, const KsLaunchConfig *launch,
              gboolean instrument, const char *what)
{
  KsImage *inputs[] = { a, NULL };

  for (guint i = 0; i < n_ops; i++)
    {
      KsTestRun spec = { ops[i].op, ops[i].params, launch, instrument, KS_TEST_POISON };
      g_autofree char *name = g_strdup_printf ("%s %s %s %s (%u×%u)", what, ops[i].op,
                                               ops[i].params[0],
                                               ops[i].params[1] ? ops[i].params[1] : "",
                                               a->width, a->height);
      compare_engines (&spec, inputs, name);
    }
}

static void
compare_all (KsImage *a, const KsLaunchConfig *launch, gboolean instrument, const char *what)
{
  compare_list (a, filter_ops, G_N_ELEMENTS (filter_ops), launch, instrument, what);
}

static void
test_odd_sizes (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 1, 37 }, { 41, 1 }, { 3, 5 }, { 333, 197 } };
  g_autoptr (KsImage) big = ks_test_random_image (KS_FORMAT_RGBA8, 1921, 1081, g_test_rand_int ());

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint32 seed = g_test_rand_int ();
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, sizes[s][0], sizes[s][1],
                                                    seed);
      g_test_message ("%u×%u: seed %u", sizes[s][0], sizes[s][1], seed);
      compare_all (a, NULL, FALSE, "default launch");
    }
  compare_list (big, cheap_ops, G_N_ELEMENTS (cheap_ops), NULL, FALSE, "default launch");
}

/* Sobel of GRAY8 input (the kernel's 4-byte word loads) against the CPU
 * engine: odd sizes and widths that are not multiples of four (the clamped
 * byte path at the right edge), every mode, per-pixel and grid-stride, every
 * pixels-per-thread setting, coverage on one launch. */
static void
test_sobel_gray (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 3, 5 }, { 41, 1 }, { 333, 197 }, { 1923, 77 } };
  static const OpCase sobel_ops[] = {
    { "sobel", { "mode=horizontal", NULL } },
    { "sobel", { "mode=vertical", NULL } },
    { "sobel", { "mode=magnitude", NULL } },
  };
  static const guint ppts[] = { 1, 2, 4, 8, 16 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint32 seed = g_test_rand_int ();
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_GRAY8, sizes[s][0], sizes[s][1],
                                                    seed);
      g_test_message ("gray %u×%u: seed %u", sizes[s][0], sizes[s][1], seed);
      compare_list (a, sobel_ops, G_N_ELEMENTS (sobel_ops), NULL, FALSE, "gray, default launch");
      for (guint p = 0; p < G_N_ELEMENTS (ppts); p++)
        {
          KsLaunchConfig pp = ks_test_launch (16, 4, 0, 0, KS_LAUNCH_PER_PIXEL, ppts[p]);
          KsLaunchConfig gs = ks_test_launch (32, 2, 3, 2, KS_LAUNCH_GRID_STRIDE, ppts[p]);
          compare_list (a, sobel_ops, G_N_ELEMENTS (sobel_ops), &pp, FALSE, "gray, per-pixel");
          compare_list (a, sobel_ops, G_N_ELEMENTS (sobel_ops), &gs, s == 3 && p == 2,
                        "gray, grid-stride");
        }
    }
}

static void
test_photo (void)
{
  g_autoptr (KsImage) photo = ks_test_load_sample ();

  compare_list (photo, cheap_ops, G_N_ELEMENTS (cheap_ops), NULL, FALSE, "photo");
}

static void
test_launch_variants (void)
{
  static const guint blocks[][2] = { { 1, 1 }, { 7, 3 }, { 32, 8 }, { 256, 1 } };
  static const guint ppts[] = { 1, 2, 4, 8, 16 };
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 157, 93, g_test_rand_int ());
  g_autoptr (KsImage) wide = ks_test_random_image (KS_FORMAT_RGBA8, 1031, 29, g_test_rand_int ());

  for (guint b = 0; b < G_N_ELEMENTS (blocks); b++)
    for (guint p = 0; p < G_N_ELEMENTS (ppts); p++)
      for (guint mode = 0; mode < 2; mode++)
        {
          KsLaunchConfig c = mode == 0
                               ? ks_test_launch (blocks[b][0], blocks[b][1], 0, 0,
                                                 KS_LAUNCH_PER_PIXEL, ppts[p])
                               : ks_test_launch (blocks[b][0], blocks[b][1], 3, 2,
                                                 KS_LAUNCH_GRID_STRIDE, ppts[p]);
          g_autofree char *what = g_strdup_printf ("block %u×%u ppt %u %s", blocks[b][0],
                                                   blocks[b][1], ppts[p],
                                                   mode ? "grid-stride 3×2" : "per-pixel");
          compare_all (blocks[b][0] * ppts[p] >= 512 ? wide : a, &c, TRUE, what);
        }
}

static void
test_undersized_grid (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 100, 60, g_test_rand_int ());
  KsLaunchConfig c = ks_test_launch (8, 4, 3, 2, KS_LAUNCH_PER_PIXEL, 2);

  compare_all (a, &c, TRUE, "undersized 3×2 of 8×4");
  c = ks_test_launch (16, 16, 2, 2, KS_LAUNCH_PER_PIXEL, 4);
  compare_all (a, &c, TRUE, "undersized 2×2 of 16×16");
}

static void
test_too_much_shared (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 64, 64, 1);
  KsImage *inputs[] = { a, NULL };
  const char *p[] = { "radius=32", NULL };
  KsLaunchConfig c = ks_test_launch (1024, 1, 0, 0, KS_LAUNCH_PER_PIXEL, 16);
  KsTestRun spec = { "box_blur", p, &c, FALSE, -1 };
  KsEngine *engines[] = { cpu, gpu };

  for (guint e = 0; e < 2; e++)
    {
      g_autoptr (GError) error = NULL;
      KsImage *out = NULL;
      KsRunResult result;

      g_assert_false (ks_test_try_run (engines[e], &spec, inputs, &out, &result, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      g_assert_null (out);
    }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_test_require_cuda (KS_TEST_NEEDS_CUDA))
    return KS_TEST_SKIPPED;

  gpu = ks_test_cuda_engine ();
  cpu = ks_test_cpu_engine ();

  g_test_add_func ("/ks/cuda/filter/odd-sizes", test_odd_sizes);
  g_test_add_func ("/ks/cuda/filter/photo", test_photo);
  g_test_add_func ("/ks/cuda/filter/sobel-gray", test_sobel_gray);
  g_test_add_func ("/ks/cuda/filter/launch-variants", test_launch_variants);
  g_test_add_func ("/ks/cuda/filter/undersized-grid", test_undersized_grid);
  g_test_add_func ("/ks/cuda/filter/too-much-shared-memory", test_too_much_shared);

  ret = g_test_run ();
  g_clear_object (&gpu);
  g_clear_object (&cpu);
  return ret;
}
