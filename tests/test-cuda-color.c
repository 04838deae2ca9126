/* test-cuda-color.c: the colour ops on CUDA against the CPU engine, exact
 * (every table is built on the host, so there is nothing to round
 * differently), on fresh random images of odd sizes and on a real photo, with
 * outputs poisoned before every run, under the launch geometries that matter
 * to the LUT kernels' shared-memory copy: tiny and large blocks, 1 to 16
 * pixels per thread, per-pixel and grid-stride, and grids too small for the
 * image.
 *
 * Without a usable GPU it prints a TAP plan of 0 with the reason and exits 77,
 * which meson reports as skipped. */
#include "config.h"

#include <string.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static KsEngine *cpu;
static KsEngine *gpu;

static const guint odd_sizes[][2] = { { 1, 1 }, { 3, 5 }, { 333, 197 }, { 1921, 1081 },
                                      { 4097, 31 }, { 31, 4097 } };

typedef struct
{
  const char *op;
  const char *params[3];
} ColorCase;

/* Every op and every mode. */
static const ColorCase all_cases[] = {
  { "brightness_contrast", { NULL } },
  { "brightness_contrast", { "brightness=-37.5", "contrast=1.7", NULL } },
  { "brightness_contrast", { "brightness=90", "contrast=0.3", NULL } },
  { "gamma", { NULL } },
  { "gamma", { "gamma=0.45", NULL } },
  { "threshold", { NULL } },
  { "threshold", { "level=77", "mode=binary_inv", NULL } },
  { "threshold", { "level=200", "mode=trunc", NULL } },
  { "threshold", { "level=13", "mode=tozero", NULL } },
  { "threshold", { "level=250", "mode=tozero_inv", NULL } },
  { "channel_swap", { NULL } },
  { "channel_swap", { "order=rbg", NULL } },
  { "channel_swap", { "order=grb", NULL } },
  { "channel_swap", { "order=gbr", NULL } },
  { "channel_swap", { "order=brg", NULL } },
  { "channel_swap", { "order=rgb", NULL } },
  { "equalize", { NULL } },
  { "equalize", { "mode=channels", NULL } },
};

/* Runs spec on both engines over outputs poisoned with the same byte; the
 * outputs (poison included) and the coverage must be identical. */
static void
compare_engines (const KsTestRun *spec, KsImage *input, const char *what)
{
  KsImage *inputs[] = { input, NULL };
  KsRunResult rc, rg;
  g_autoptr (KsImage) oc = ks_test_run (cpu, spec, inputs, &rc);
  g_autoptr (KsImage) og = ks_test_run (gpu, spec, inputs, &rg);

  /* The same resolved launch ran on both, except that an automatic grid-stride
   * grid is sized to each device's multiprocessors. */
  if (!(rc.launch.auto_grid && rc.launch.mode == KS_LAUNCH_GRID_STRIDE))
    g_assert_cmpmem (&rc.launch, sizeof rc.launch, &rg.launch, sizeof rg.launch);
  ks_test_assert_images_equal (oc, og, what);
  if (spec->instrument)
    ks_test_assert_coverage_equal (rc.coverage, rg.coverage, what);
  ks_run_result_clear (&rc);
  ks_run_result_clear (&rg);
}

/* Whether the device takes this launch for the case: the CPU engine has no
 * registers to run out of, so a block the kernel's register count rules out
 * on this GPU is skipped, not compared. */
static gboolean
gpu_accepts (const ColorCase *c, KsImage *input, const KsLaunchConfig *launch,
             gboolean instrument)
{
  const KsOp *op = ks_op_registry_lookup (c->op);
  g_autoptr (KsBuffer) in = ks_engine_upload (gpu, input, NULL, NULL);
  g_autoptr (GError) error = NULL;
  KsRunRequest req;

  g_assert_nonnull (in);
  ks_run_request_init (&req, op);
  for (guint i = 0; c->params[i] != NULL; i++)
    g_assert_true (ks_params_parse_assignment (&req.params, op, c->params[i], NULL));
  req.inputs[0] = in;
  req.launch = *launch;
  req.instrument = instrument;
  if (ks_engine_validate (gpu, &req, NULL, NULL, &error))
    return TRUE;
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_test_message ("not on this device: %s", error->message);
  return FALSE;
}

static void
compare_all_cases (KsImage *a, const KsLaunchConfig *launch, gboolean instrument, const char *what)
{
  for (guint i = 0; i < G_N_ELEMENTS (all_cases); i++)
    {
      const ColorCase *c = &all_cases[i];
      KsTestRun spec = { c->op, c->params, launch, instrument, KS_TEST_POISON };
      g_autofree char *params = g_strjoinv (" ", (char **) c->params);
      g_autofree char *name = g_strdup_printf ("%s: %s %s (%u×%u)", what, c->op, params, a->width,
                                               a->height);

      if (launch != NULL && !gpu_accepts (c, a, launch, instrument))
        continue;
      compare_engines (&spec, a, name);
    }
}

static void
test_random_odd_sizes (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (odd_sizes); i++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, odd_sizes[i][0],
                                                    odd_sizes[i][1], ks_test_next_seed ("a"));
      compare_all_cases (a, NULL, FALSE, "default launch");
    }
}

static void
test_photo (void)
{
  g_autoptr (KsImage) photo = ks_test_load_sample ();

  compare_all_cases (photo, NULL, FALSE, "photo");
}

static void
test_launch_variants (void)
{
  static const guint blocks[][2] = { { 32, 8 }, { 7, 13 }, { 1024, 1 }, { 1, 1 } };
  static const guint ppts[] = { 1, 4, 8, 16 };

  for (guint bi = 0; bi < G_N_ELEMENTS (blocks); bi++)
    for (guint pi = 0; pi < G_N_ELEMENTS (ppts); pi++)
      for (guint mode = 0; mode < 2; mode++)
        {
          /* Fresh pixels and an odd size for every geometry. */
          g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197,
                                                        ks_test_next_seed ("a"));
          KsLaunchConfig c = ks_test_launch (blocks[bi][0], blocks[bi][1], 0, 0, mode, ppts[pi]);
          g_autofree char *what = g_strdup_printf ("block %u×%u ppt %u %s", blocks[bi][0],
                                                   blocks[bi][1], ppts[pi],
                                                   mode ? "grid-stride" : "per-pixel");
          compare_all_cases (a, &c, FALSE, what);
        }
}

static void
test_undersized_grids (void)
{
  static const guint ppts[] = { 1, 4, 8, 16 };

  for (guint pi = 0; pi < G_N_ELEMENTS (ppts); pi++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197,
                                                    ks_test_next_seed ("a"));
      KsLaunchConfig pp = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_PER_PIXEL, ppts[pi]);
      KsLaunchConfig gs = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_GRID_STRIDE, ppts[pi]);
      guint reach_w = MIN (333u, 3 * 16 * ppts[pi]), reach_h = 40;

      for (guint i = 0; i < G_N_ELEMENTS (all_cases); i++)
        {
          KsImage *inputs[] = { a, NULL };
          KsTestRun spec = { all_cases[i].op, all_cases[i].params, &pp, FALSE, KS_TEST_POISON };
          KsRunResult r;
          g_autoptr (KsImage) out = ks_test_run (gpu, &spec, inputs, &r);

          /* The poison survives exactly outside the reached rectangle... */
          g_assert_cmpuint (ks_test_count_filled_pixels (out, KS_TEST_POISON), ==,
                            333 * 197 - reach_w * reach_h);
          ks_run_result_clear (&r);
        }
      /* ...and exactly where the CPU engine leaves it. */
      compare_all_cases (a, &pp, FALSE, "undersized per-pixel");
      compare_all_cases (a, &gs, FALSE, "small grid-stride");
    }
}

static void
test_coverage_equal (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 37, 23 }, { 1025, 3 } };
  KsLaunchConfig configs[4];

  configs[0] = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 4);
  configs[1] = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_PER_PIXEL, 2);   /* undersized */
  configs[2] = ks_test_launch (64, 4, 40, 80, KS_LAUNCH_PER_PIXEL, 1); /* oversized */
  configs[3] = ks_test_launch (8, 8, 5, 3, KS_LAUNCH_GRID_STRIDE, 8);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, sizes[i][0], sizes[i][1],
                                                    ks_test_next_seed ("coverage"));
      for (guint c = 0; c < G_N_ELEMENTS (configs); c++)
        compare_all_cases (a, &configs[c], TRUE, "coverage");
    }
}

/* The LUT kernels keep their tables in static shared memory, and the engine
 * reports it; the channel swap reads no table and asks for none. */
static void
test_lut_shared_memory (void)
{
  static const char *const lut_ops[] = { "brightness_contrast", "gamma", "threshold", "equalize" };
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 1920, 1080, 1);
  g_autoptr (KsBuffer) ba = ks_engine_upload (gpu, a, NULL, NULL);
  g_autoptr (GError) error = NULL;
  KsKernelAttributes attrs;
  KsRunRequest req;

  for (guint i = 0; i < G_N_ELEMENTS (lut_ops); i++)
    for (guint m = 0; m < 2; m++)
      {
        ks_run_request_init (&req, ks_op_registry_lookup (lut_ops[i]));
        req.inputs[0] = ba;
        if (m == 1 && g_str_equal (lut_ops[i], "equalize"))
          g_assert_true (ks_params_parse_assignment (&req.params, req.op, "mode=channels", NULL));
        req.launch = ks_test_launch (1024, 1, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
        g_assert_true (ks_engine_kernel_attributes (gpu, &req, &attrs, &error));
        g_assert_no_error (error);
        g_test_message ("%s: %u registers, %" G_GUINT64_FORMAT " bytes of static shared memory",
                        lut_ops[i], attrs.num_regs, attrs.shared_static);
        g_assert_cmpuint (attrs.shared_static, >=, 4 * 256);
        g_assert_cmpuint (attrs.shared_dynamic, ==, 0);
        /* A whole 1024-thread block still fits. */
        g_assert_true (ks_engine_validate (gpu, &req, NULL, NULL, &error));
        g_assert_no_error (error);
      }
  ks_run_request_init (&req, ks_op_registry_lookup ("channel_swap"));
  req.inputs[0] = ba;
  g_assert_true (ks_engine_kernel_attributes (gpu, &req, &attrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (attrs.shared_static, ==, 0);
}

/* Equalisation at 8K UHD, the benchmark's size: the histogram pass on the
 * device and the tables from its counts agree with the CPU engine's. */
static void
test_equalize_8k (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 7680, 4320,
                                                ks_test_next_seed ("8K"));
  static const char *const luma[] = { NULL };
  static const char *const channels[] = { "mode=channels", NULL };
  KsTestRun s1 = { "equalize", luma, NULL, FALSE, KS_TEST_POISON };
  KsTestRun s2 = { "equalize", channels, NULL, FALSE, KS_TEST_POISON };

  compare_engines (&s1, a, "equalize luma 8K");
  compare_engines (&s2, a, "equalize channels 8K");
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

  g_test_add_func ("/ks/cuda/colour/random-odd-sizes", test_random_odd_sizes);
  g_test_add_func ("/ks/cuda/colour/photo", test_photo);
  g_test_add_func ("/ks/cuda/colour/launch-variants", test_launch_variants);
  g_test_add_func ("/ks/cuda/colour/undersized-grids", test_undersized_grids);
  g_test_add_func ("/ks/cuda/colour/coverage-equal-to-cpu", test_coverage_equal);
  g_test_add_func ("/ks/cuda/colour/lut-in-shared-memory", test_lut_shared_memory);
  g_test_add_func ("/ks/cuda/colour/equalize-8k", test_equalize_8k);

  ret = g_test_run ();
  g_clear_object (&gpu);
  g_clear_object (&cpu);
  return ret;
}
