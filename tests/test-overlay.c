/* The teaching overlays' data on the CPU engine: who wrote each pixel of an
 * oversized launch, of one that leaves pixels out, and of pixels written
 * twice; the overlay colours and the composed overlay image at known
 * pixels, each checked against the launch's own arithmetic. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-overlay.h"
#include "ks-test-helpers.h"

static guint8
channel (guint32 rgb, guint c)
{
  return (rgb >> (8 * c)) & 0xff;
}

/* An instrumented invert of a random width × height image on the CPU engine
 * with this launch: the output (poisoned first) and the run's result. */
static KsImage *
run_recorded (guint width, guint height, guint32 seed, KsLaunchConfig launch,
              KsRunResult *result)
{
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();
  g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, width, height, seed);
  KsTestRun spec = { "invert", NULL, &launch, TRUE, KS_TEST_POISON };
  KsImage *inputs[] = { input };

  memset (result, 0, sizeof *result);
  return ks_test_run (engine, &spec, inputs, result);
}

/* 61×37 under a grid of 5×4 blocks of 16×16 threads, one pixel each: the
 * launch reaches 80×64 pixels, so 80·64 − 61·37 threads fall outside. */
static void
test_oversized_launch (void)
{
  KsRunResult result;
  g_autoptr (KsImage) out = run_recorded (61, 37, 7,
                                          ks_test_launch (16, 16, 5, 4, KS_LAUNCH_PER_PIXEL, 1),
                                          &result);
  const KsCoverage *cov = result.coverage;
  guint64 ew, eh;

  g_assert_nonnull (cov);
  g_assert_cmpuint (cov->unwritten_pixels, ==, 0);
  g_assert_cmpuint (cov->multiply_written_pixels, ==, 0);
  g_assert_cmpuint (cov->idle_threads, ==, 80 * 64 - 61 * 37);
  ks_overlay_launch_extent (&result.launch, &ew, &eh);
  g_assert_cmpuint (ew, ==, 80);
  g_assert_cmpuint (eh, ==, 64);

  /* Every pixel: block (x / 16, y / 16), thread (x % 16, y % 16). */
  for (guint y = 0; y < 37; y++)
    for (guint x = 0; x < 61; x++)
      {
        KsPixelOwner o;
        guint t = (x % 16) + 16 * (y % 16);

        g_assert_true (ks_overlay_pixel_owner (cov, &result.launch, x, y, &o));
        g_assert_cmpuint (o.writes, ==, 1);
        g_assert_cmpuint (o.block.x, ==, x / 16);
        g_assert_cmpuint (o.block.y, ==, y / 16);
        g_assert_cmpuint (o.thread.x, ==, x % 16);
        g_assert_cmpuint (o.thread.y, ==, y % 16);
        g_assert_cmpuint (o.warp, ==, t / 32);
        g_assert_cmpuint (o.lane, ==, t % 32);
      }

  /* Colours at known pixels. (40, 20) is in block (2, 1): palette (2 + 3) mod 8. */
  g_assert_cmphex (ks_overlay_color (cov, &result.launch, KS_OVERLAY_BLOCK, 40, 20), ==,
                   ks_overlay_palette[5]);
  /* Neighbouring blocks never share a colour. */
  for (guint by = 0; by < 3; by++)
    for (guint bx = 0; bx < 4; bx++)
      {
        guint32 c = ks_overlay_color (cov, &result.launch, KS_OVERLAY_BLOCK, bx * 16, by * 16);

        if (bx < 3)
          g_assert_cmphex (c, !=, ks_overlay_color (cov, &result.launch, KS_OVERLAY_BLOCK,
                                                    bx * 16 + 16, by * 16));
        if (by < 1)
          g_assert_cmphex (c, !=, ks_overlay_color (cov, &result.launch, KS_OVERLAY_BLOCK,
                                                    bx * 16, by * 16 + 16));
      }
  /* Thread (5, 9) of its block: red 5·255/15 = 85, green 9·255/15 = 153. */
  g_assert_cmphex (ks_overlay_color (cov, &result.launch, KS_OVERLAY_THREAD, 16 + 5, 9), ==,
                   85u | 153u << 8 | 0x40u << 16);
  /* Thread (3, 2) is linear 35: warp 1, lane 3. */
  {
    guint32 c = ks_overlay_color (cov, &result.launch, KS_OVERLAY_WARP, 3, 2);
    double f = 0.45 + 0.55 * 3 / 31.0;

    for (guint ch = 0; ch < 3; ch++)
      g_assert_cmpuint (channel (c, ch), ==, (guint) lround (channel (ks_overlay_palette[1], ch)
                                                             * f));
  }
  g_assert_cmphex (ks_overlay_color (cov, &result.launch, KS_OVERLAY_COVERAGE, 60, 36), ==,
                   KS_OVERLAY_ONCE_RGB);
  ks_run_result_clear (&result);
}

/* Blocks of 8×8, a grid of 2×1: only 16×8 of the 30×20 image is written. */
static void
test_undersized_launch (void)
{
  KsRunResult result;
  g_autoptr (KsImage) out = run_recorded (30, 20, 8,
                                          ks_test_launch (8, 8, 2, 1, KS_LAUNCH_PER_PIXEL, 1),
                                          &result);
  const KsCoverage *cov = result.coverage;
  KsPixelOwner o;
  KsDim3 block, thread;

  g_assert_nonnull (cov);
  g_assert_cmpuint (cov->unwritten_pixels, ==, 30 * 20 - 16 * 8);
  g_assert_true (ks_overlay_pixel_owner (cov, &result.launch, 25, 15, &o));
  g_assert_cmpuint (o.writes, ==, 0);
  for (KsOverlayMode m = KS_OVERLAY_BLOCK; m <= KS_OVERLAY_COVERAGE; m++)
    g_assert_cmphex (ks_overlay_color (cov, &result.launch, m, 25, 15), ==,
                     KS_OVERLAY_NEVER_RGB);
  /* An automatic grid of the same blocks would have given (25, 15) to
   * block (3, 1), thread (1, 7). */
  ks_overlay_auto_owner (&result.launch, 25, 15, &block, &thread);
  g_assert_cmpuint (block.x, ==, 3);
  g_assert_cmpuint (block.y, ==, 1);
  g_assert_cmpuint (thread.x, ==, 1);
  g_assert_cmpuint (thread.y, ==, 7);
  /* Outside the image and outside the data: no owner. */
  g_assert_false (ks_overlay_pixel_owner (cov, &result.launch, 30, 0, &o));
  ks_run_result_clear (&result);
}

/* Four pixels per thread along x, blocks of 4×2: thread x covers 4·x … 4·x+3. */
static void
test_pixels_per_thread (void)
{
  KsRunResult result;
  g_autoptr (KsImage) out = run_recorded (40, 6, 9,
                                          ks_test_launch (4, 2, 0, 0, KS_LAUNCH_PER_PIXEL, 4),
                                          &result);
  KsPixelOwner o;
  KsDim3 block, thread;

  g_assert_nonnull (result.coverage);
  /* Pixel 23 is thread 5 overall (23 / 4): block 1, thread 1; row 5 is block 2, thread 1. */
  g_assert_true (ks_overlay_pixel_owner (result.coverage, &result.launch, 23, 5, &o));
  g_assert_cmpuint (o.block.x, ==, 1);
  g_assert_cmpuint (o.thread.x, ==, 1);
  g_assert_cmpuint (o.block.y, ==, 2);
  g_assert_cmpuint (o.thread.y, ==, 1);
  ks_overlay_auto_owner (&result.launch, 23, 5, &block, &thread);
  g_assert_cmpuint (block.x, ==, o.block.x);
  g_assert_cmpuint (thread.x, ==, o.thread.x);
  ks_run_result_clear (&result);
}

/* Pixels written by two threads: the built-in ops never overlap, a user's
 * kernel can. The record keeps the count and the last writer. */
static void
test_written_twice (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsCoverage) cov = _ks_coverage_new (4, 2, &error);
  KsLaunchConfig launch = ks_test_launch (2, 1, 2, 2, KS_LAUNCH_PER_PIXEL, 1);
  KsPixelOwner o;

  g_assert_no_error (error);
  for (guint i = 0; i < 8; i++)
    {
      cov->writes[i] = 1;
      cov->owner_block[i] = (i % 4) / 2 + 2 * (i / 4);
      cov->owner_thread[i] = i % 2;
    }
  /* Pixel (1, 1) written again, last by block (0, 0), thread 0. */
  cov->writes[5] = 2;
  cov->owner_block[5] = 0;
  cov->owner_thread[5] = 0;
  _ks_coverage_summarise (cov);
  g_assert_cmpuint (cov->multiply_written_pixels, ==, 1);
  g_assert_cmpuint (cov->unwritten_pixels, ==, 0);
  g_assert_true (ks_overlay_pixel_owner (cov, &launch, 1, 1, &o));
  g_assert_cmpuint (o.writes, ==, 2);
  g_assert_cmpuint (o.block.x, ==, 0);
  g_assert_cmpuint (o.block.y, ==, 0);
  g_assert_cmphex (ks_overlay_color (cov, &launch, KS_OVERLAY_COVERAGE, 1, 1), ==,
                   KS_OVERLAY_TWICE_RGB);
  g_assert_cmphex (ks_overlay_color (cov, &launch, KS_OVERLAY_COVERAGE, 0, 1), ==,
                   KS_OVERLAY_ONCE_RGB);
}

/* The composed image: the overlay over the result at the opacity, the block
 * grid's lines on the first pixel of every block but the first. */
static void
test_compose (void)
{
  KsRunResult result;
  g_autoptr (KsImage) out = run_recorded (20, 12, 10,
                                          ks_test_launch (8, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 1),
                                          &result);
  g_autoptr (KsImage) composed = NULL;
  g_autoptr (KsImage) wrong = ks_test_image_new (KS_FORMAT_RGBA8, 3, 3);
  g_autoptr (GError) error = NULL;
  guint32 under, c;

  composed = ks_overlay_compose (out, result.coverage, &result.launch, KS_OVERLAY_BLOCK, 0.5,
                                 &error);
  g_assert_no_error (error);
  g_assert_cmpuint (composed->width, ==, 20);
  /* (3, 3), inside block (0, 0): half the result, half the block's colour. */
  under = ks_image_get_rgba (out, 3, 3);
  c = ks_image_get_rgba (composed, 3, 3);
  for (guint ch = 0; ch < 3; ch++)
    g_assert_cmpuint (channel (c, ch), ==,
                      (guint) lround (channel (under, ch) * 0.5
                                      + channel (ks_overlay_palette[0], ch) * 0.5));
  g_assert_cmpuint (c >> 24, ==, 255);
  /* (8, 3) starts block (1, 0) and (3, 8) block (0, 1): lines. */
  g_assert_cmphex (ks_image_get_rgba (composed, 8, 3) & 0xffffff, ==, 0x1a1a1a);
  g_assert_cmphex (ks_image_get_rgba (composed, 3, 8) & 0xffffff, ==, 0x1a1a1a);
  g_assert_cmphex (ks_image_get_rgba (composed, 9, 3) & 0xffffff, !=, 0x1a1a1a);
  /* Opacity 0 is the result itself (opaque: the overlay image has no holes). */
  g_clear_pointer (&composed, ks_image_unref);
  composed = ks_overlay_compose (out, result.coverage, &result.launch, KS_OVERLAY_THREAD, 0.0,
                                 &error);
  g_assert_no_error (error);
  g_assert_cmphex (ks_image_get_rgba (composed, 5, 5) & 0xffffff, ==,
                   ks_image_get_rgba (out, 5, 5) & 0xffffff);
  /* A result of another size is refused. */
  g_clear_pointer (&composed, ks_image_unref);
  composed = ks_overlay_compose (wrong, result.coverage, &result.launch, KS_OVERLAY_BLOCK, 0.5,
                                 &error);
  g_assert_null (composed);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_run_result_clear (&result);
}

static void
test_mode_names (void)
{
  KsOverlayMode m;

  for (guint i = 0; i < KS_OVERLAY_N_MODES; i++)
    {
      g_assert_true (ks_overlay_mode_from_string (ks_overlay_mode_to_string (i), &m));
      g_assert_cmpuint (m, ==, i);
    }
  g_assert_false (ks_overlay_mode_from_string ("blocks", &m));
  g_assert_false (ks_overlay_mode_from_string (NULL, &m));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ks/overlay/oversized-launch", test_oversized_launch);
  g_test_add_func ("/ks/overlay/undersized-launch", test_undersized_launch);
  g_test_add_func ("/ks/overlay/pixels-per-thread", test_pixels_per_thread);
  g_test_add_func ("/ks/overlay/written-twice", test_written_twice);
  g_test_add_func ("/ks/overlay/compose", test_compose);
  g_test_add_func ("/ks/overlay/mode-names", test_mode_names);
  return g_test_run ();
}
