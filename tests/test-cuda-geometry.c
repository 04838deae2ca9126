/* test-cuda-geometry.c: resize on CUDA against the CPU engine, exact, with
 * both outputs poisoned before the run: both modes, up and down, odd sizes,
 * every pixels-per-thread and both mappings, and the coverage of the output.
 *
 * Without a usable GPU it prints a TAP plan of 0 with the reason and exits 77,
 * which meson reports as skipped. */
#include "config.h"

#include <string.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static KsEngine *cpu;
static KsEngine *gpu;

static const char *const modes[] = { "nearest", "bilinear" };

/* The image and coverage of one resize on `engine` into a poisoned output. */
static KsImage *
run_resize (KsEngine *engine, const KsImage *in, guint w, guint h, const char *mode,
            const KsLaunchConfig *launch, gboolean instrument, KsRunResult *result)
{
  const KsOp *op = ks_op_registry_lookup ("resize");
  g_autoptr (GError) error = NULL;
  g_autofree char *pw = g_strdup_printf ("width=%u", w);
  g_autofree char *ph = g_strdup_printf ("height=%u", h);
  g_autofree char *pm = g_strdup_printf ("mode=%s", mode);
  const char *params[] = { pw, ph, pm };
  KsRunRequest request;
  KsBuffer *src, *dst;
  KsImage *out;

  g_assert_nonnull (op);
  ks_run_request_init (&request, op);
  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    {
      ks_params_parse_assignment (&request.params, op, params[i], &error);
      g_assert_no_error (error);
    }
  if (launch != NULL)
    request.launch = *launch;
  request.instrument = instrument;
  src = ks_engine_upload (engine, in, NULL, &error);
  g_assert_no_error (error);
  dst = ks_engine_new_buffer (engine, KS_FORMAT_RGBA8, w, h, &error);
  g_assert_no_error (error);
  ks_engine_fill (engine, dst, KS_TEST_POISON, &error);
  g_assert_no_error (error);
  request.inputs[0] = src;
  request.output = dst;
  memset (result, 0, sizeof *result);
  ks_engine_run (engine, &request, result, &error);
  g_assert_no_error (error);
  out = ks_engine_download (engine, dst, NULL, &error);
  g_assert_no_error (error);
  ks_buffer_unref (src);
  ks_buffer_unref (dst);
  return out;
}

static void
compare (const KsImage *in, guint w, guint h, const KsLaunchConfig *launch, gboolean instrument)
{
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *what = g_strdup_printf ("%s %u×%u → %u×%u, %u px/thread, %s", modes[m],
                                               in->width, in->height, w, h,
                                               launch != NULL ? launch->pixels_per_thread : 0,
                                               launch != NULL && launch->mode
                                                 == KS_LAUNCH_GRID_STRIDE ? "grid-stride"
                                                                          : "per pixel");
      KsRunResult rc, rg;
      g_autoptr (KsImage) oc = run_resize (cpu, in, w, h, modes[m], launch, instrument, &rc);
      g_autoptr (KsImage) og = run_resize (gpu, in, w, h, modes[m], launch, instrument, &rg);

      ks_test_assert_images_equal (oc, og, what);
      if (instrument)
        ks_test_assert_coverage_equal (rc.coverage, rg.coverage, what);
      ks_run_result_clear (&rc);
      ks_run_result_clear (&rg);
    }
}

static void
test_sizes (void)
{
  static const guint sizes[][4] = {
    { 1, 1, 16, 9 },       { 16, 9, 1, 1 },         { 333, 197, 333, 197 },
    { 1921, 1081, 960, 540 }, { 1921, 1081, 641, 359 }, { 37, 23, 1111, 691 },
    { 4097, 31, 300, 77 }, { 31, 4097, 77, 300 },   { 7, 5, 16384, 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, sizes[i][0], sizes[i][1],
                                                     g_test_rand_int ());
      compare (in, sizes[i][2], sizes[i][3], NULL, FALSE);
    }
}

static void
test_launches (void)
{
  static const guint ppts[] = { 1, 4, 8, 16, 2 };
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, 301, 157, g_test_rand_int ());

  for (guint i = 0; i < G_N_ELEMENTS (ppts); i++)
    {
      KsLaunchConfig pp = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, ppts[i]);
      KsLaunchConfig gs = ks_test_launch (64, 2, 3, 5, KS_LAUNCH_GRID_STRIDE, ppts[i]);
      compare (in, 437, 211, &pp, FALSE);
      compare (in, 123, 77, &pp, FALSE);
      compare (in, 437, 211, &gs, FALSE);
      compare (in, 123, 77, &gs, FALSE);
    }
}

static void
test_coverage (void)
{
  /* An undersized per-pixel grid and a grid-stride one: the same pixels,
   * owners and idle threads as the CPU engine, the rest still poisoned. */
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, 99, 61, g_test_rand_int ());
  KsLaunchConfig under = ks_test_launch (16, 16, 2, 2, KS_LAUNCH_PER_PIXEL, 4);
  KsLaunchConfig gs = ks_test_launch (8, 8, 3, 2, KS_LAUNCH_GRID_STRIDE, 8);

  compare (in, 201, 77, &under, TRUE);
  compare (in, 201, 77, &gs, TRUE);
  compare (in, 13, 7, &under, TRUE);
}

static void
test_large (void)
{
  /* 8K UHD down by half and 4K up to 8K UHD: the sizes the benchmark uses. */
  g_autoptr (KsImage) big = ks_test_random_image (KS_FORMAT_RGBA8, 7680, 4320, g_test_rand_int ());
  g_autoptr (KsImage) small = ks_test_random_image (KS_FORMAT_RGBA8, 3840, 2160,
                                                    g_test_rand_int ());

  compare (big, 3840, 2160, NULL, FALSE);
  compare (small, 7680, 4320, NULL, FALSE);
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

  g_test_add_func ("/ks/cuda/resize/sizes", test_sizes);
  g_test_add_func ("/ks/cuda/resize/launches", test_launches);
  g_test_add_func ("/ks/cuda/resize/coverage", test_coverage);
  g_test_add_func ("/ks/cuda/resize/large", test_large);

  ret = g_test_run ();
  g_clear_object (&gpu);
  g_clear_object (&cpu);
  return ret;
}
