/* test-cuda.c: the CUDA engine against the CPU engine, exact, on fresh random
 * images of odd sizes and on a real photo, with outputs poisoned before every
 * run; histograms; coverage; launch validation with the device's real limits;
 * and a deliberate fault that must leave the process alive.
 *
 * Without a usable GPU it prints a TAP plan of 0 with the reason and exits 77,
 * which meson reports as skipped. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-test-helpers.h"

#if HAVE_CUDA
#include "ks-kernels.h"
#include "ks-op-registry.h"
#endif

static KsEngine *cpu;
static KsEngine *gpu;

static const guint odd_sizes[][2] = { { 1, 1 }, { 3, 5 }, { 333, 197 }, { 1921, 1081 },
                                      { 4097, 31 }, { 31, 4097 } };

/* Runs spec on both engines over outputs poisoned with the same byte; the
 * outputs (poison included), histograms and coverage must be identical. */
static void
compare_engines (const KsTestRun *spec, KsImage *const *inputs, const char *what)
{
  KsRunResult rc, rg;
  g_autoptr (KsImage) oc = ks_test_run (cpu, spec, inputs, &rc);
  g_autoptr (KsImage) og = ks_test_run (gpu, spec, inputs, &rg);

  /* The same resolved launch ran on both, except that an automatic grid-stride
   * grid is sized to each device's multiprocessors. */
  if (!(rc.launch.auto_grid && rc.launch.mode == KS_LAUNCH_GRID_STRIDE))
    g_assert_cmpmem (&rc.launch, sizeof rc.launch, &rg.launch, sizeof rg.launch);
  g_assert_cmpuint (rc.launch.pixels_per_thread, ==, rg.launch.pixels_per_thread);
  if (oc != NULL)
    ks_test_assert_images_equal (oc, og, what);
  else
    g_assert_cmpmem (rc.histogram, sizeof rc.histogram, rg.histogram, sizeof rg.histogram);
  if (spec->instrument)
    {
      g_assert_false (rc.launch.auto_grid && rc.launch.mode == KS_LAUNCH_GRID_STRIDE);
      ks_test_assert_coverage_equal (rc.coverage, rg.coverage, what);
    }
  ks_run_result_clear (&rc);
  ks_run_result_clear (&rg);
}

typedef struct
{
  const char *op;
  const char *params[3];
} OpCase;

static const OpCase image_ops[] = {
  { "invert", { NULL } },
  { "gray", { NULL } },
  { "gray", { "truncate=true", NULL } },
  { "add", { NULL } },
  { "blend", { NULL } },
  { "blend", { "weight_a=0.7", "weight_b=0.3", NULL } },
  { "blend", { "weight_a=1.5", "weight_b=1.25", NULL } },
};

static void
compare_all_ops (KsImage *a, KsImage *b, const KsLaunchConfig *launch, gboolean instrument,
                 const char *what)
{
  KsImage *inputs[] = { a, b };

  for (guint i = 0; i < G_N_ELEMENTS (image_ops); i++)
    {
      KsTestRun spec = { image_ops[i].op, image_ops[i].params, launch, instrument, KS_TEST_POISON };
      g_autofree char *name = g_strdup_printf ("%s %s %s (%u×%u)", what, image_ops[i].op,
                                               image_ops[i].params[0] ? image_ops[i].params[0] : "",
                                               a->width, a->height);
      compare_engines (&spec, inputs, name);
    }
  for (guint m = 0; m < 2; m++)
    {
      const char *params[] = { m ? "method=global" : "method=shared", NULL };
      KsTestRun spec = { "histogram", params, launch, FALSE, -1 };
      compare_engines (&spec, inputs, what);
    }
}

static void
test_device (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) dev = ks_device_get_cuda (0, &error);
  g_autoptr (GPtrArray) all = ks_devices_enumerate ();
  const KsDeviceLimits *l;

  g_assert_no_error (error);
  g_assert_cmpint (ks_device_get_kind (dev), ==, KS_DEVICE_KIND_CUDA);
  g_assert_cmpstr (ks_device_get_id (dev), ==, "cuda:0");
  g_assert_cmpint (ks_device_get_ordinal (dev), ==, 0);
  g_assert_nonnull (ks_device_get_name (dev));
  g_test_message ("device 0: %s", ks_device_get_name (dev));
  l = ks_device_get_limits (dev);
  g_assert_cmpuint (l->max_threads_per_block, ==, 1024);
  g_assert_cmpuint (l->max_grid_dim[1], ==, 65535);
  g_assert_cmpuint (l->max_grid_dim[2], ==, 65535);
  g_assert_cmpuint (l->warp_size, ==, 32);
  g_assert_cmpuint (l->sm_count, >, 0);
  g_assert_cmpuint (l->cc_major * 10 + l->cc_minor, >=, 75);
  g_assert_cmpuint (ks_device_get_properties (dev)->len, >, 10);
  g_assert_cmpfloat (ks_device_get_peak_bandwidth_gbs (dev), >, 0);
  g_assert_cmpfloat (ks_device_get_peak_fp32_gflops (dev), >, 0);
  g_assert_cmpint (ks_cuda_driver_version (), >=, 13000);
  g_assert_cmpint (ks_cuda_runtime_version (), >=, 13000);
  g_assert_null (ks_cuda_lost_reason ());
  /* The CPU device first, then the CUDA devices. */
  g_assert_cmpuint (all->len, >=, 2);
  g_assert_cmpint (ks_device_get_kind (g_ptr_array_index (all, 0)), ==, KS_DEVICE_KIND_CPU);
  g_assert_true (ks_engine_is_cuda (gpu));
  g_assert_nonnull (ks_engine_get_stream (gpu));
}

static void
test_ops_random_odd_sizes (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (odd_sizes); i++)
    {
      guint w = odd_sizes[i][0], h = odd_sizes[i][1];
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, w, h, ks_test_next_seed ("a"));
      g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, w, h, ks_test_next_seed ("b"));
      compare_all_ops (a, b, NULL, FALSE, "default launch");
    }
}

static void
test_ops_photo (void)
{
  g_autoptr (KsImage) photo = ks_test_load_sample ();
  g_autoptr (KsImage) noise = ks_test_random_image (KS_FORMAT_RGBA8, photo->width, photo->height,
                                                    ks_test_next_seed ("noise"));
  g_autoptr (KsImage) expected = ks_test_ref_image ("gray", FALSE, photo, NULL);
  g_autoptr (KsImage) out = ks_test_run_simple (gpu, "gray", NULL, photo, NULL);

  compare_all_ops (photo, noise, NULL, FALSE, "photo");
  /* And against the formula directly. */
  ks_test_assert_images_equal (expected, out, "CUDA gray of the photo");
}

static void
test_ops_launch_variants (void)
{
  static const guint blocks[][2] = { { 32, 8 }, { 16, 16 }, { 7, 13 }, { 1024, 1 }, { 1, 1024 },
                                     { 1, 1 } };
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, ks_test_next_seed ("a"));
  g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, ks_test_next_seed ("b"));

  for (guint bi = 0; bi < G_N_ELEMENTS (blocks); bi++)
    for (guint ppt = 1; ppt <= 16; ppt *= 2)
      for (guint mode = 0; mode < 2; mode++)
        {
          KsLaunchConfig c = ks_test_launch (blocks[bi][0], blocks[bi][1], 0, 0, mode, ppt);
          g_autofree char *what = g_strdup_printf ("block %u×%u ppt %u %s", blocks[bi][0],
                                                   blocks[bi][1], ppt,
                                                   mode ? "grid-stride" : "per-pixel");
          compare_all_ops (a, b, &c, FALSE, what);
        }
}

static void
test_ops_undersized_grids (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, ks_test_next_seed ("a"));
  g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, 333, 197, ks_test_next_seed ("b"));
  KsImage *inputs[] = { a, b };

  for (guint ppt = 1; ppt <= 16; ppt *= 2)
    {
      KsLaunchConfig pp = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_PER_PIXEL, ppt);
      KsLaunchConfig gs = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_GRID_STRIDE, ppt);
      KsTestRun spec = { "invert", NULL, &pp, FALSE, KS_TEST_POISON };
      KsRunResult r;
      g_autoptr (KsImage) out = ks_test_run (gpu, &spec, inputs, &r);
      guint reach_w = MIN (333u, 3 * 16 * ppt), reach_h = 40;

      /* The poison survives exactly outside the reached rectangle... */
      g_assert_cmpuint (ks_test_count_filled_pixels (out, KS_TEST_POISON), ==,
                        333 * 197 - reach_w * reach_h);
      ks_run_result_clear (&r);
      /* ...and exactly where the CPU engine leaves it. */
      compare_all_ops (a, b, &pp, FALSE, "undersized per-pixel");
      compare_all_ops (a, b, &gs, FALSE, "small grid-stride");
    }
}

static void
test_histogram_methods (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (odd_sizes); i++)
    for (guint f = 0; f < 2; f++)
      {
        KsFormat fmt = f ? KS_FORMAT_GRAY8 : KS_FORMAT_RGBA8;
        g_autoptr (KsImage) img = ks_test_random_image (fmt, odd_sizes[i][0], odd_sizes[i][1],
                                                        ks_test_next_seed ("histogram"));
        KsImage *inputs[] = { img, NULL };
        guint32 h[2][4][256];
        guint64 sum = 0;

        for (guint m = 0; m < 2; m++)
          {
            const char *params[] = { m ? "method=global" : "method=shared", NULL };
            KsTestRun spec = { "histogram", params, NULL, FALSE, -1 };
            KsRunResult r;
            g_autoptr (KsImage) none = ks_test_run (gpu, &spec, inputs, &r);
            g_assert_null (none);  /* histograms, not an image */
            memcpy (h[m], r.histogram, sizeof h[m]);
            ks_run_result_clear (&r);
            compare_engines (&spec, inputs, "histogram");
          }
        g_assert_cmpmem (h[0], sizeof h[0], h[1], sizeof h[1]);
        for (guint v = 0; v < 256; v++)
          sum += h[0][3][v];
        g_assert_cmpuint (sum, ==, (guint64) odd_sizes[i][0] * odd_sizes[i][1]);
      }
}

/* The counters live in sets used in turn, each launch clearing the next
 * launch's set: launches one after the other, gray and four-channel, with
 * either method and an impossible launch among them, each exactly where the
 * CPU engine puts it. A set left uncleared, or cleared only as far as a gray
 * histogram reaches, or only in the copies that a launch of fewer blocks
 * writes (the images grow, and with them the grids), shows as counts of an
 * earlier image. */
static void
test_histogram_sets_in_turn (void)
{
  static const char *const methods[] = { "method=shared", "method=global" };

  for (guint i = 0; i < 11; i++)
    {
      KsFormat fmt = i % 3 == 1 ? KS_FORMAT_GRAY8 : KS_FORMAT_RGBA8;
      g_autoptr (KsImage) img = ks_test_random_image (fmt, 97 + 31 * i, 41 + 7 * i,
                                                      ks_test_next_seed ("sets"));
      KsImage *inputs[] = { img, NULL };
      const char *params[] = { methods[i % 2 == 0 || i == 5], NULL };
      KsTestRun spec = { "histogram", params, NULL, FALSE, -1 };

      compare_engines (&spec, inputs, "histogram launches in turn");
      if (i == 4)
        {
          /* A launch the engine refuses runs nothing and takes no set. */
          KsLaunchConfig c = ks_test_launch (2048, 1, 0, 0, 0, 0);
          KsTestRun bad = { "histogram", params, &c, FALSE, -1 };
          KsRunResult r;
          GError *error = NULL;

          g_assert_false (ks_test_try_run (gpu, &bad, inputs, NULL, &r, &error));
          g_assert_nonnull (error);
          g_clear_error (&error);
          ks_run_result_clear (&r);
        }
    }
}

static void
test_histogram_launches (void)
{
  g_autoptr (KsImage) img = ks_test_random_image (KS_FORMAT_RGBA8, 1921, 1081,
                                                  ks_test_next_seed ("h"));
  g_autoptr (KsImage) photo = ks_test_load_sample ();
  KsImage *inputs[] = { img, NULL };
  KsImage *photo_inputs[] = { photo, NULL };
  static const guint blocks[][2] = { { 1024, 1 }, { 32, 32 }, { 256, 1 }, { 33, 3 }, { 1, 1 } };

  for (guint bi = 0; bi < G_N_ELEMENTS (blocks); bi++)
    for (guint m = 0; m < 2; m++)
      for (guint mode = 0; mode < 2; mode++)
        {
          const char *params[] = { m ? "method=global" : "method=shared", NULL };
          KsLaunchConfig c = ks_test_launch (blocks[bi][0], blocks[bi][1], 0, 0, mode, 0);
          KsTestRun spec = { "histogram", params, &c, FALSE, -1 };
          compare_engines (&spec, inputs, "histogram launches");
          compare_engines (&spec, photo_inputs, "histogram of the photo");
        }
}

/* The gray histogram in grid-stride mode, where each thread keeps spans loaded
 * ahead (ks_walk_spans): grids of one or a few blocks give each thread
 * thousands of spans to queue, and odd blocks leave partial warps. A flat
 * image sends every count of a warp to one bin, runs of 300 equal pixels
 * straddle spans and rows; a span counted twice or dropped would show. */
static void
test_histogram_grid_stride_gray (void)
{
  static const guint blocks[][2] = { { 32, 4 }, { 160, 1 }, { 33, 3 }, { 17, 5 }, { 1, 1 },
                                     { 8, 4 } };
  static const guint grids[][2] = { { 0, 0 }, { 1, 1 }, { 3, 2 } };
  static const guint ppts[] = { 1, 4, 16 };
  g_autoptr (KsImage) noise = ks_test_random_image (KS_FORMAT_GRAY8, 1001, 517,
                                                    ks_test_next_seed ("grid-stride gray"));
  g_autoptr (KsImage) flat = ks_test_image_new (KS_FORMAT_GRAY8, 777, 301);
  g_autoptr (KsImage) ramp = ks_test_image_new (KS_FORMAT_GRAY8, 4099, 9);
  KsImage *const images[] = { noise, flat, ramp };

  for (guint y = 0; y < flat->height; y++)
    memset (flat->data + y * flat->stride, 200, flat->width);
  for (guint y = 0; y < ramp->height; y++)
    for (guint x = 0; x < ramp->width; x++)
      ramp->data[y * ramp->stride + x] = (guint8) (x / 300 * 17 + y);

  for (guint im = 0; im < G_N_ELEMENTS (images); im++)
    for (guint bi = 0; bi < G_N_ELEMENTS (blocks); bi++)
      for (guint gi = 0; gi < G_N_ELEMENTS (grids); gi++)
        for (guint pi = 0; pi < G_N_ELEMENTS (ppts); pi++)
          {
            KsImage *inputs[] = { images[im], NULL };
            const char *params[] = { "method=shared", NULL };
            KsLaunchConfig c = ks_test_launch (blocks[bi][0], blocks[bi][1], grids[gi][0],
                                               grids[gi][1], KS_LAUNCH_GRID_STRIDE, ppts[pi]);
            /* Coverage on the explicit grids only: an automatic grid-stride
             * grid differs between the engines. */
            KsTestRun spec = { "histogram", params, &c, gi > 0 && pi == 1, -1 };
            g_autofree char *what = g_strdup_printf ("grid-stride gray histogram, image %u, "
                                                     "block %u×%u, grid %u×%u, ppt %u", im,
                                                     blocks[bi][0], blocks[bi][1], grids[gi][0],
                                                     grids[gi][1], ppts[pi]);
            compare_engines (&spec, inputs, what);
          }

  /* The flat image, exactly: every pixel in bin 200, the other bins empty. */
  {
    KsImage *inputs[] = { flat, NULL };
    const char *params[] = { "method=shared", NULL };
    KsLaunchConfig c = ks_test_launch (32, 4, 1, 1, KS_LAUNCH_GRID_STRIDE, 16);
    KsTestRun spec = { "histogram", params, &c, FALSE, -1 };
    KsRunResult r;
    g_autoptr (KsImage) none = ks_test_run (gpu, &spec, inputs, &r);

    g_assert_null (none);  /* histograms, not an image */
    for (guint v = 0; v < 256; v++)
      g_assert_cmpuint (r.histogram[0][v], ==, v == 200 ? (guint64) flat->width * flat->height : 0);
    ks_run_result_clear (&r);
  }
}

#if HAVE_CUDA
/* What ks_cuda_histogram_read_launch folds: every word of every span, the
 * spans of a row PPT pixels from its start, a partial span padded with
 * zeros (ks_load_rgba, ks_load_gray). */
static guint32
fold_image (const KsImage *im, guint ppt)
{
  const guint bpp = im->format == KS_FORMAT_GRAY8 ? 1 : 4;
  guint32 folded = 0;

  for (guint y = 0; y < im->height; y++)
    for (guint x0 = 0; x0 < im->width; x0 += ppt)
      {
        guint8 span[64] = { 0 };
        guint n = MIN (ppt, im->width - x0);

        memcpy (span, im->data + (gsize) y * im->stride + (gsize) x0 * bpp, (gsize) n * bpp);
        for (guint i = 0; i < (ppt * bpp + 3) / 4; i++)
          {
            guint32 w;
            memcpy (&w, span + 4 * i, 4);
            folded ^= w;
          }
      }
  return folded;
}

/* The read limit's kernel with one thread that walks the whole image: it
 * stores its fold only when the fold is the constant it looks for, so an
 * image made to fold to that constant shows that it read every word (the
 * sink, poisoned, is written), and the same image with one pixel changed that
 * nothing is stored otherwise. Gray and RGBA, widths with a partial span. */
static void
test_histogram_read_limit_kernel (void)
{
  static const guint32 wanted = KS_HIST_READ_MARK;
  static const KsFormat formats[] = { KS_FORMAT_GRAY8, KS_FORMAT_RGBA8 };
  /* Gray spans of one or two pixels fold words with zero high bytes, which
   * never equal the constant. */
  static const guint ppts[] = { 1, 4, 16 };
  g_autoptr (GError) error = NULL;

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint p = formats[f] == KS_FORMAT_GRAY8 ? 1 : 0; p < G_N_ELEMENTS (ppts); p++)
      for (guint changed = 0; changed < 2; changed++)
        {
          g_autoptr (KsImage) im = ks_test_random_image (formats[f], 203, 37,
                                                         ks_test_next_seed ("read limit"));
          const int channels = formats[f] == KS_FORMAT_GRAY8 ? 1 : KS_HIST_CHANNELS;
          g_autoptr (KsBuffer) src = NULL, sink = NULL;
          g_autoptr (KsImage) back = NULL;
          KsLaunchConfig c = ks_test_launch (1, 1, 1, 1, KS_LAUNCH_GRID_STRIDE, ppts[p]);
          KsGeometry geom;
          guint32 fix, got;

          /* The first word of the image enters the fold once and as itself. */
          fix = fold_image (im, ppts[p]) ^ wanted;
          for (guint i = 0; i < 4; i++)
            im->data[i] ^= (guint8) (fix >> (8 * i));
          g_assert_cmphex (fold_image (im, ppts[p]), ==, wanted);
          if (changed)
            im->data[(gsize) (im->height - 1) * im->stride + im->width - 1] ^= 0x40;

          src = ks_engine_upload (gpu, im, NULL, &error);
          g_assert_no_error (error);
          sink = ks_engine_new_buffer (gpu, KS_FORMAT_RGBA8, 1, 1, &error);
          g_assert_no_error (error);
          g_assert_true (ks_engine_fill (gpu, sink, 0xab, &error));
          ks_launch_config_to_geometry (&c, im->width, im->height, &geom);
          g_assert_cmpint (ks_cuda_histogram_read_launch (geom, channels, ks_buffer_get_data (src),
                                                          ks_buffer_get_pitch (src),
                                                          ks_buffer_get_data (sink),
                                                          ks_engine_get_stream (gpu)),
                           ==, cudaSuccess);
          back = ks_engine_download (gpu, sink, NULL, &error);
          g_assert_no_error (error);
          memcpy (&got, back->data, 4);
          g_assert_cmphex (got, ==, changed ? 0xababababu : wanted);
        }

  /* Not a kernel it has: two channels, three pixels a thread, no sink. */
  {
    KsGeometry geom = { 0 };
    KsLaunchConfig c = ks_test_launch (32, 1, 1, 1, KS_LAUNCH_GRID_STRIDE, 4);
    guint32 *none = NULL;

    ks_launch_config_to_geometry (&c, 64, 1, &geom);
    g_assert_cmpint (ks_cuda_histogram_read_launch (geom, 2, (const guint8 *) 0x1000, 256,
                                                    (guint32 *) 0x1000, NULL),
                     ==, cudaErrorInvalidValue);
    g_assert_cmpint (ks_cuda_histogram_read_launch (geom, 1, (const guint8 *) 0x1000, 256, none,
                                                    NULL),
                     ==, cudaErrorInvalidValue);
    geom.pixels_per_thread = 3;
    g_assert_cmpint (ks_cuda_histogram_read_launch (geom, 1, (const guint8 *) 0x1000, 256,
                                                    (guint32 *) 0x1000, NULL),
                     ==, cudaErrorInvalidValue);
  }
}

/* The atomic limit's kernel takes whole groups of atomics a thread and
 * nothing else; a launch of it leaves each block's word in the sink. */
static void
test_histogram_atomics_limit_kernel (void)
{
  const KsDim3 grid = { 3, 1, 1 }, block = { 64, 2, 1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) sink = ks_engine_new_buffer (gpu, KS_FORMAT_RGBA8, 3, 1, &error);
  g_autoptr (KsImage) back = NULL;

  g_assert_no_error (error);
  for (int channels = 1; channels <= KS_HIST_CHANNELS; channels += KS_HIST_CHANNELS - 1)
    {
      g_assert_cmpint (ks_cuda_shared_atomics_launch (channels, grid, block,
                                                      KS_SHARED_ATOMICS_GROUP / 2,
                                                      ks_buffer_get_data (sink),
                                                      ks_engine_get_stream (gpu)),
                       ==, cudaErrorInvalidValue);
      g_assert_cmpint (ks_cuda_shared_atomics_launch (channels, grid, block, 0,
                                                      ks_buffer_get_data (sink),
                                                      ks_engine_get_stream (gpu)),
                       ==, cudaErrorInvalidValue);
      g_assert_true (ks_engine_fill (gpu, sink, 0xff, &error));
      g_assert_cmpint (ks_cuda_shared_atomics_launch (channels, grid, block,
                                                      2 * KS_SHARED_ATOMICS_GROUP,
                                                      ks_buffer_get_data (sink),
                                                      ks_engine_get_stream (gpu)),
                       ==, cudaSuccess);
      back = ks_engine_download (gpu, sink, NULL, &error);
      g_assert_no_error (error);
      /* A block's word counts its lanes' atomics into bin 0 of column 0: at
       * most all the atomics of the lanes of that column, never the poison. */
      for (guint b = 0; b < grid.x; b++)
        {
          guint32 word;
          memcpy (&word, back->data + 4 * b, 4);
          g_assert_cmpuint (word, <=, 2 * KS_SHARED_ATOMICS_GROUP * block.x * block.y);
        }
      g_clear_pointer (&back, ks_image_unref);
    }
}
#endif

static void
test_coverage_equal (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 37, 23 }, { 333, 197 }, { 1025, 3 } };
  KsLaunchConfig configs[6];

  configs[0] = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  configs[1] = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 4);
  configs[2] = ks_test_launch (16, 8, 3, 5, KS_LAUNCH_PER_PIXEL, 2);   /* undersized */
  configs[3] = ks_test_launch (64, 4, 40, 80, KS_LAUNCH_PER_PIXEL, 1); /* oversized */
  configs[4] = ks_test_launch (16, 16, 2, 3, KS_LAUNCH_GRID_STRIDE, 1);
  configs[5] = ks_test_launch (8, 8, 5, 3, KS_LAUNCH_GRID_STRIDE, 8);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, sizes[i][0], sizes[i][1],
                                                    ks_test_next_seed ("coverage"));
      for (guint c = 0; c < G_N_ELEMENTS (configs); c++)
        {
          KsImage *inputs[] = { a, a };
          KsTestRun inv = { "invert", NULL, &configs[c], TRUE, KS_TEST_POISON };
          KsTestRun gray = { "gray", NULL, &configs[c], TRUE, KS_TEST_POISON };
          KsTestRun add = { "add", NULL, &configs[c], TRUE, KS_TEST_POISON };
          compare_engines (&inv, inputs, "coverage invert");
          compare_engines (&gray, inputs, "coverage gray");
          compare_engines (&add, inputs, "coverage add");
        }
    }
}

static void
test_launch_validation (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 1920, 1080, 1);
  g_autoptr (KsBuffer) ba = ks_engine_upload (gpu, a, NULL, NULL);
  const KsDeviceLimits *l = ks_device_get_limits (ks_engine_get_device (gpu));
  g_autoptr (GError) error = NULL;
  KsLaunchConfig resolved, suggestion;
  KsKernelAttributes attrs;
  KsRunRequest req;

  /* The example on the real device. */
  ks_run_request_init (&req, ks_op_registry_lookup ("gray"));
  req.inputs[0] = ba;
  req.launch = ks_test_launch (64, 32, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  g_assert_false (ks_engine_validate (gpu, &req, &resolved, &suggestion, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (error, "2048", "1024", NULL);
  g_clear_error (&error);
  req.launch = suggestion;
  g_assert_true (ks_engine_validate (gpu, &req, &resolved, NULL, &error));
  g_assert_no_error (error);

  /* The kernels' own attributes are real. */
  req.launch = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 4);
  g_assert_true (ks_engine_kernel_attributes (gpu, &req, &attrs, &error));
  g_assert_no_error (error);
  g_test_message ("gray: %u registers, %u max threads", attrs.num_regs,
                  attrs.max_threads_per_block);
  g_assert_cmpuint (attrs.num_regs, >, 0);
  g_assert_cmpuint (attrs.max_threads_per_block, >=, 256);

  /* The shared-memory histogram with a 1024-thread block is valid: its 64 KiB
   * of copies are past the limit without opt-in, within the one with it, and
   * the runtime counts its blocks (it counts none of a kernel that has not
   * opted in). */
  ks_run_request_init (&req, ks_op_registry_lookup ("histogram"));
  req.inputs[0] = ba;
  req.launch = ks_test_launch (1024, 1, 0, 0, KS_LAUNCH_GRID_STRIDE, 0);
  g_assert_true (ks_engine_kernel_attributes (gpu, &req, &attrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (attrs.shared_static + attrs.shared_dynamic, >, l->shared_mem_per_block);
  g_assert_cmpuint (attrs.shared_static + attrs.shared_dynamic, <=, l->shared_mem_per_block_optin);
  g_assert_true (ks_engine_validate (gpu, &req, &resolved, NULL, &error));
  g_assert_no_error (error);
  {
    guint blocks = 0;

    g_assert_true (ks_engine_cuda_active_blocks (gpu, &req, &blocks, &error));
    g_assert_no_error (error);
    g_test_message ("RGBA histogram, 1024 threads: %u blocks a multiprocessor", blocks);
    g_assert_cmpuint (blocks, >=, 1);
  }

  /* Registers: a kernel with 255 registers cannot run 1024 threads on this device. */
  memset (&attrs, 0, sizeof attrs);
  attrs.num_regs = 255;
  resolved = ks_test_launch (1024, 1, 1, 1, KS_LAUNCH_PER_PIXEL, 1);
  g_assert_false (ks_launch_config_validate (&resolved, 1024, 1, l, &attrs, &suggestion, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (error, "255 registers", NULL);
  g_clear_error (&error);
  g_assert_true (ks_launch_config_validate (&suggestion, 1024, 1, l, &attrs, NULL, &error));
  g_assert_no_error (error);

  /* Grid y beyond 65535 on the device. */
  resolved = ks_test_launch (1, 1, 1, 65536, KS_LAUNCH_PER_PIXEL, 1);
  g_assert_false (ks_launch_config_validate (&resolved, 1, 65536, l, NULL, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (error, "65535", NULL);
}

static void
test_large_image (void)
{
  const guint side = KS_IMAGE_MAX_SIDE;
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, side, side,
                                                ks_test_next_seed ("16K"));
  g_autoptr (KsImage) out = ks_test_run_simple (gpu, "invert", NULL, a, NULL);
  const guint rows[] = { 0, 1, 4095, 8192, 12345, side - 2, side - 1 };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    for (guint x = 0; x < side; x++)
      {
        guint32 e = ks_test_ref_invert (ks_image_get_rgba (a, x, rows[i]));
        guint32 got = ks_image_get_rgba (out, x, rows[i]);
        if (e != got)
          g_error ("16384² invert: pixel (%u, %u) is 0x%08x, expected 0x%08x", x, rows[i], got, e);
      }
  /* The last column of every row too. */
  for (guint y = 0; y < side; y += 1)
    g_assert_cmpuint (ks_image_get_rgba (out, side - 1, y), ==,
                      ks_test_ref_invert (ks_image_get_rgba (a, side - 1, y)));
}

static void
test_copy_bandwidth (void)
{
  g_autoptr (GError) error = NULL;
  KsTiming timing = { 0 };
  double gbs = 0;

  g_assert_true (ks_engine_measure_copy_bandwidth (gpu, 64u << 20, 10, &gbs, &timing, &error));
  g_assert_no_error (error);
  g_test_message ("device-to-device copy: %.0f GB/s", gbs);
  /* Ten copies timed, and the bandwidth is theirs: the bytes read and
   * written over the median. No floor on it: a GPU shared with other work
   * copies slowly. */
  ks_test_assert_timing (&timing, 10);
  g_assert_cmpfloat (timing.median_ms, >, 0);
  g_assert_true (isfinite (gbs));
  g_assert_cmpfloat (gbs, >, 0);
  g_assert_cmpfloat_with_epsilon (gbs, 2.0 * (64u << 20) / (timing.median_ms * 1e-3) / 1e9,
                                  gbs * 1e-12);
  ks_timing_clear (&timing);
}

/* Uploads on one thread (the runner's) while another downloads a finished
 * result (the view, saving): both pass through the engine's staging memory,
 * and neither may see the other's pixels. */
typedef struct
{
  KsBuffer *buffer;
  KsImage *images[2];
  guint rounds;
  gboolean failed;
} Uploader;

static gpointer
upload_rounds (gpointer data)
{
  Uploader *u = data;

  for (guint i = 0; i < u->rounds && !u->failed; i++)
    u->failed = !ks_engine_upload_into (gpu, u->images[i % 2], u->buffer, NULL, NULL);
  return NULL;
}

static void
test_concurrent_transfers (void)
{
  const guint w = 1021, h = 767;
  g_autoptr (KsImage) shown = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  g_autoptr (KsImage) b = ks_test_random_image (KS_FORMAT_RGBA8, w, h, g_test_rand_int ());
  g_autoptr (KsBuffer) result = NULL;
  g_autoptr (KsBuffer) input = NULL;
  g_autoptr (GError) error = NULL;
  Uploader u = { NULL, { a, b }, 200, FALSE };
  GThread *thread;

  result = ks_engine_upload (gpu, shown, NULL, &error);
  g_assert_no_error (error);
  input = ks_engine_new_buffer (gpu, KS_FORMAT_RGBA8, w, h, &error);
  g_assert_no_error (error);
  u.buffer = input;
  thread = g_thread_new ("ks-test-uploader", upload_rounds, &u);
  for (guint i = 0; i < 200; i++)
    {
      g_autoptr (KsImage) back = ks_engine_download (gpu, result, NULL, &error);

      g_assert_no_error (error);
      ks_test_assert_images_equal (shown, back, "download during uploads");
    }
  g_thread_join (thread);
  g_assert_false (u.failed);
}

/* A kernel that faults: the device is lost for this process, the process lives on. */
static void
test_fault (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsDevice) dev = ks_device_get_cuda (0, &error);
      g_autoptr (KsEngine) e = NULL;
      g_autoptr (KsEngine) c = ks_test_cpu_engine ();
      g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 64, 32, 7);
      g_autoptr (KsImage) expected = ks_test_ref_image ("invert", FALSE, a, NULL);
      g_autoptr (KsImage) after = NULL;
      g_autoptr (KsBuffer) in = NULL;
      g_autoptr (KsBuffer) out = NULL;
      KsRunRequest req;
      KsRunResult result = { 0 };

      g_assert_no_error (error);
      e = ks_engine_new (dev, &error);
      g_assert_no_error (error);
      in = ks_engine_upload (e, a, NULL, &error);
      g_assert_no_error (error);
      out = ks_engine_new_buffer (e, KS_FORMAT_RGBA8, 64, 32, &error);
      g_assert_no_error (error);

      /* The engine logs the loss once; any other warning stays fatal. */
      g_test_expect_message ("Kernelscope-GPU", G_LOG_LEVEL_WARNING,
                             "CUDA is unusable in this process*");
      g_assert_false (_ks_engine_debug_fault (e, &error));
      g_test_assert_expected_messages ();
      g_assert_nonnull (error);
      g_printerr ("fault: %s\n", error->message);
      g_clear_error (&error);

      ks_run_request_init (&req, ks_op_registry_lookup ("invert"));
      req.inputs[0] = in;
      req.output = out;
      g_assert_false (ks_engine_run (e, &req, &result, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_DEVICE_LOST);
      g_printerr ("after: %s\n", error->message);
      g_clear_error (&error);
      g_assert_nonnull (ks_cuda_lost_reason ());
      g_assert_false (ks_engine_check_usable (e, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_DEVICE_LOST);
      g_clear_error (&error);
      g_assert_false (ks_cuda_available (&error));
      g_assert_nonnull (error);
      g_clear_error (&error);
      g_assert_null (ks_engine_upload (e, a, NULL, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_DEVICE_LOST);
      g_clear_error (&error);

      /* The CPU engine in the same process still works. */
      after = ks_test_run_simple (c, "invert", NULL, a, NULL);
      ks_test_assert_images_equal (expected, after, "CPU after the GPU was lost");
      g_print ("alive\n");
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*alive*");
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_test_require_cuda (KS_TEST_NEEDS_CUDA))
    return KS_TEST_SKIPPED;

  g_test_add_func ("/ks/cuda/fault/device-lost-process-alive", test_fault);
  if (g_test_subprocess ())
    return g_test_run ();

  gpu = ks_test_cuda_engine ();
  cpu = ks_test_cpu_engine ();

  g_test_add_func ("/ks/cuda/device", test_device);
  g_test_add_func ("/ks/cuda/ops/random-odd-sizes", test_ops_random_odd_sizes);
  g_test_add_func ("/ks/cuda/ops/photo", test_ops_photo);
  g_test_add_func ("/ks/cuda/ops/launch-variants", test_ops_launch_variants);
  g_test_add_func ("/ks/cuda/ops/undersized-grids", test_ops_undersized_grids);
  g_test_add_func ("/ks/cuda/histogram/methods-agree", test_histogram_methods);
  g_test_add_func ("/ks/cuda/histogram/launches", test_histogram_launches);
  g_test_add_func ("/ks/cuda/histogram/sets-in-turn", test_histogram_sets_in_turn);
  g_test_add_func ("/ks/cuda/histogram/grid-stride-gray", test_histogram_grid_stride_gray);
#if HAVE_CUDA
  g_test_add_func ("/ks/cuda/histogram/read-limit-kernel", test_histogram_read_limit_kernel);
  g_test_add_func ("/ks/cuda/histogram/atomics-limit-kernel", test_histogram_atomics_limit_kernel);
#endif
  g_test_add_func ("/ks/cuda/coverage/equal-to-cpu", test_coverage_equal);
  g_test_add_func ("/ks/cuda/launch/validation", test_launch_validation);
  g_test_add_func ("/ks/cuda/large/16384-invert", test_large_image);
  g_test_add_func ("/ks/cuda/copy-bandwidth", test_copy_bandwidth);
  g_test_add_func ("/ks/cuda/engine/concurrent-transfers", test_concurrent_transfers);

  ret = g_test_run ();
  g_clear_object (&gpu);
  g_clear_object (&cpu);
  return ret;
}
