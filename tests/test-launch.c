/* test-launch.c: launch configurations — parsing, auto grids, totals,
 * validation against every device limit with its message, occupancy. */
#include "config.h"

#include <string.h>

#include "ks-test-helpers.h"

static KsDeviceLimits cpu_limits;

static const KsDeviceLimits *
limits (void)
{
  return &cpu_limits;
}

static KsLaunchConfig
explicit_config (guint bx, guint by, guint bz, guint gx, guint gy, guint gz, guint ppt)
{
  KsLaunchConfig c;

  ks_launch_config_init (&c, bx, by);
  c.block.z = bz;
  c.auto_grid = FALSE;
  c.grid = (KsDim3) { gx, gy, gz };
  c.pixels_per_thread = ppt;
  return c;
}

/* Validation must fail with KS_ERROR_LAUNCH_CONFIG, a message naming the given
 * numbers, and (when check_suggestion) a suggestion that itself validates. */
static void
assert_invalid (const KsLaunchConfig *c, guint width, guint height, const KsDeviceLimits *l,
                const KsKernelAttributes *attrs, gboolean check_suggestion, const char *n1,
                const char *n2, const char *n3)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) error2 = NULL;
  KsLaunchConfig suggestion;
  gboolean ok;

  memset (&suggestion, 0, sizeof suggestion);
  ok = ks_launch_config_validate (c, width, height, l, attrs, &suggestion, &error);
  g_assert_false (ok);
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_test_message ("%s", error->message);
  ks_test_assert_message_has (error, n1, n2, n3, NULL);
  /* A single line a user can read: no newline, and it proposes something. */
  g_assert_null (strchr (error->message, '\n'));
  ks_test_assert_message_has (error, "Try a block of", NULL);
  if (check_suggestion)
    {
      ok = ks_launch_config_validate (&suggestion, width, height, l, attrs, NULL, &error2);
      g_assert_no_error (error2);
      g_assert_true (ok);
      g_assert_cmpuint ((guint64) suggestion.block.x * suggestion.block.y * suggestion.block.z,
                        <=, l->max_threads_per_block);
    }
}

static void
test_dim3_parse (void)
{
  static const char *bad[] = { "", "0", "0x4", "16x0", "abc", "16x", "x16", "1x2x3x4", "-4",
                               "16 x 16", "99999999999", "16×", "×16", "16××16" };
  KsDim3 d;

  g_assert_true (ks_dim3_parse ("16x16", &d, NULL));
  g_assert_cmpuint (d.x, ==, 16);
  g_assert_cmpuint (d.y, ==, 16);
  g_assert_cmpuint (d.z, ==, 1);
  g_assert_true (ks_dim3_parse ("256", &d, NULL));
  g_assert_cmpuint (d.x, ==, 256);
  g_assert_cmpuint (d.y, ==, 1);
  g_assert_cmpuint (d.z, ==, 1);
  g_assert_true (ks_dim3_parse ("32x8x2", &d, NULL));
  g_assert_cmpuint (d.x, ==, 32);
  g_assert_cmpuint (d.y, ==, 8);
  g_assert_cmpuint (d.z, ==, 2);
  /* What ks_dim3_format writes reads back. */
  g_assert_true (ks_dim3_parse ("1024×1", &d, NULL));
  g_assert_cmpuint (d.x, ==, 1024);
  g_assert_cmpuint (d.y, ==, 1);
  g_assert_true (ks_dim3_parse ("16×8×2", &d, NULL));
  g_assert_cmpuint (d.y, ==, 8);
  g_assert_cmpuint (d.z, ==, 2);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (ks_dim3_parse (bad[i], &d, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    }
}

static void
test_dim3_format (void)
{
  KsDim3 a = { 16, 16, 1 }, b = { 32, 8, 2 };
  char buf[64];

  ks_dim3_format (&a, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "16×16");
  ks_dim3_format (&b, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "32×8×2");
}

static void
test_resolve_auto_grid (void)
{
  KsLaunchConfig c;

  /* ceil(1920/16) × ceil(1080/16) */
  c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  ks_launch_config_resolve (&c, 1920, 1080, 1, limits ());
  g_assert_cmpuint (c.grid.x, ==, 120);
  g_assert_cmpuint (c.grid.y, ==, 68);
  g_assert_cmpuint (c.grid.z, ==, 1);

  /* 4 pixels per thread: ceil(1920/4/16) = 30 */
  c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 4);
  ks_launch_config_resolve (&c, 1920, 1080, 1, limits ());
  g_assert_cmpuint (c.grid.x, ==, 30);
  g_assert_cmpuint (c.grid.y, ==, 68);

  /* 4099×2161, 32×8, 8 per thread: ceil(ceil(4099/8)/32) = ceil(513/32) = 17, ceil(2161/8) = 271 */
  c = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 8);
  ks_launch_config_resolve (&c, 4099, 2161, 1, limits ());
  g_assert_cmpuint (c.grid.x, ==, 17);
  g_assert_cmpuint (c.grid.y, ==, 271);

  /* 1×1 image: one block. */
  c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1);
  ks_launch_config_resolve (&c, 1, 1, 1, limits ());
  g_assert_cmpuint (c.grid.x, ==, 1);
  g_assert_cmpuint (c.grid.y, ==, 1);

  /* pixels_per_thread 0 takes the op's default. */
  c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 0);
  ks_launch_config_resolve (&c, 640, 480, 4, limits ());
  g_assert_cmpuint (c.pixels_per_thread, ==, 4);
  g_assert_cmpuint (c.grid.x, ==, 10);

  /* An explicit grid is kept exactly, even when it is too small. */
  c = ks_test_launch (16, 16, 3, 2, KS_LAUNCH_PER_PIXEL, 1);
  ks_launch_config_resolve (&c, 1920, 1080, 1, limits ());
  g_assert_false (c.auto_grid);
  g_assert_cmpuint (c.grid.x, ==, 3);
  g_assert_cmpuint (c.grid.y, ==, 2);
}

static void
test_resolve_grid_stride (void)
{
  KsLaunchConfig c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_GRID_STRIDE, 1);
  KsLaunchTotals t;

  /* Grid-stride needs no more blocks than the per-pixel mapping, and the
   * loop still reaches every pixel. */
  ks_launch_config_resolve (&c, 7680, 4320, 1, limits ());
  g_assert_cmpuint (c.grid.x, >=, 1);
  g_assert_cmpuint (c.grid.y, >=, 1);
  g_assert_cmpuint (c.grid.x, <=, 480);
  g_assert_cmpuint (c.grid.y, <=, 270);
  ks_launch_totals (&c, 7680, 4320, &t);
  g_assert_cmpuint (t.unreached_pixels, ==, 0);
  g_assert_true (ks_launch_config_validate (&c, 7680, 4320, limits (), NULL, NULL, NULL));
}

/* An automatic grid-stride grid, once the kernel is known, holds no more
 * blocks than stay resident together: one wave. The CPU device has one
 * multiprocessor: 2048 threads, 228 KiB of shared memory, 1 KiB of it
 * reserved for each block. */
static void
test_fit_occupancy (void)
{
  KsKernelAttributes attrs = { 0 };
  KsLaunchConfig c = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_GRID_STRIDE, 4);
  KsLaunchConfig per_pixel = ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 4);
  KsLaunchConfig fixed = ks_test_launch (32, 8, 5, 3, KS_LAUNCH_GRID_STRIDE, 4);
  KsDeviceLimits one = cpu_limits;
  KsLaunchTotals t;

  one.sm_count = 1;

  /* Before: as many blocks as the threads allow, 2048 / 256 = 8. */
  ks_launch_config_resolve (&c, 7680, 4320, 4, &one);
  g_assert_cmpuint ((guint64) c.grid.x * c.grid.y, ==, 8);

  /* 60000 bytes of shared memory a block (60032 allocated, + 1024): 3 fit, so
   * 3 blocks. */
  attrs.num_regs = 16;
  attrs.shared_dynamic = 60000;
  ks_launch_config_fit_occupancy (&c, 7680, 4320, &one, &attrs);
  g_assert_cmpuint ((guint64) c.grid.x * c.grid.y, ==, 3);
  ks_launch_totals (&c, 7680, 4320, &t);
  g_assert_cmpuint (t.unreached_pixels, ==, 0);

  /* 128 registers a thread: 2 blocks. */
  attrs.shared_dynamic = 0;
  attrs.num_regs = 128;
  ks_launch_config_fit_occupancy (&c, 7680, 4320, &one, &attrs);
  g_assert_cmpuint ((guint64) c.grid.x * c.grid.y, ==, 2);

  /* A block that does not fit at all keeps its grid (validation says why). */
  attrs.num_regs = 16;
  attrs.shared_dynamic = 240000;
  ks_launch_config_fit_occupancy (&c, 7680, 4320, &one, &attrs);
  g_assert_cmpuint ((guint64) c.grid.x * c.grid.y, ==, 2);

  /* Per-pixel grids and grids the user gave are left alone. */
  attrs.shared_dynamic = 20000;
  ks_launch_config_resolve (&per_pixel, 7680, 4320, 4, &one);
  ks_launch_config_fit_occupancy (&per_pixel, 7680, 4320, &one, &attrs);
  g_assert_cmpuint (per_pixel.grid.x, ==, 60);
  g_assert_cmpuint (per_pixel.grid.y, ==, 540);
  ks_launch_config_resolve (&fixed, 7680, 4320, 4, &one);
  ks_launch_config_fit_occupancy (&fixed, 7680, 4320, &one, &attrs);
  g_assert_cmpuint (fixed.grid.x, ==, 5);
  g_assert_cmpuint (fixed.grid.y, ==, 3);
}

static void
test_totals (void)
{
  KsLaunchConfig c;
  KsLaunchTotals t;

  /* 100×60 under a 3×2 grid of 16×16: only 48×32 pixels are reached. */
  c = explicit_config (16, 16, 1, 3, 2, 1, 1);
  ks_launch_totals (&c, 100, 60, &t);
  g_assert_cmpuint (t.threads, ==, 6 * 256);
  g_assert_cmpuint (t.blocks, ==, 6);
  g_assert_cmpuint (t.pixels, ==, 6000);
  g_assert_cmpuint (t.idle_threads, ==, 0);
  g_assert_cmpuint (t.unreached_pixels, ==, 6000 - 48 * 32);

  /* The same grid with a grid-stride loop reaches everything. */
  c.mode = KS_LAUNCH_GRID_STRIDE;
  ks_launch_totals (&c, 100, 60, &t);
  g_assert_cmpuint (t.unreached_pixels, ==, 0);
  g_assert_cmpuint (t.idle_threads, ==, 0);

  /* 10×10 under 2×2 blocks of 16×16: 1024 threads, 100 busy. */
  c = explicit_config (16, 16, 1, 2, 2, 1, 1);
  ks_launch_totals (&c, 10, 10, &t);
  g_assert_cmpuint (t.threads, ==, 1024);
  g_assert_cmpuint (t.idle_threads, ==, 924);
  g_assert_cmpuint (t.unreached_pixels, ==, 0);

  /* 4 pixels per thread on 10×10, one 16×16 block: 3 columns × 10 rows busy. */
  c = explicit_config (16, 16, 1, 1, 1, 1, 4);
  ks_launch_totals (&c, 10, 10, &t);
  g_assert_cmpuint (t.threads, ==, 256);
  g_assert_cmpuint (t.idle_threads, ==, 256 - 30);
  g_assert_cmpuint (t.unreached_pixels, ==, 0);

  /* 4 pixels per thread, 1×1 grid of 2×2 on 20×5: 8×2 pixels reached. */
  c = explicit_config (2, 2, 1, 1, 1, 1, 4);
  ks_launch_totals (&c, 20, 5, &t);
  g_assert_cmpuint (t.unreached_pixels, ==, 100 - 16);
  g_assert_cmpuint (t.idle_threads, ==, 0);
}

static void
test_validate_valid (void)
{
  g_autoptr (GError) error = NULL;
  KsLaunchConfig c = ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1), s;

  ks_launch_config_resolve (&c, 1920, 1080, 1, limits ());
  g_assert_true (ks_launch_config_validate (&c, 1920, 1080, limits (), NULL, &s, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (&s, sizeof s, &c, sizeof c);

  /* The largest block and the largest legal grid axes are accepted. */
  c = explicit_config (1024, 1, 1, 2147483647u, 65535, 65535, 1);
  g_assert_true (ks_launch_config_validate (&c, 64, 64, limits (), NULL, NULL, &error));
  g_assert_no_error (error);
  c = explicit_config (1, 1, 64, 1, 1, 1, 16);
  g_assert_true (ks_launch_config_validate (&c, 64, 64, limits (), NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
test_validate_threads_per_block (void)
{
  KsLaunchConfig c = ks_test_launch (64, 32, 0, 0, KS_LAUNCH_PER_PIXEL, 1);

  ks_launch_config_resolve (&c, 1920, 1080, 1, limits ());
  /* The issue's own example. */
  assert_invalid (&c, 1920, 1080, limits (), NULL, TRUE, "64×32 = 2048 threads per block",
                  "this device allows 1024", "2048");

  c = explicit_config (32, 32, 2, 1, 1, 1, 1);
  assert_invalid (&c, 100, 100, limits (), NULL, TRUE, "2048", "1024", "32×32×2");
}

static void
test_validate_block_dims (void)
{
  KsDeviceLimits narrow = cpu_limits;
  KsLaunchConfig c;

  /* x beyond its own limit while the thread count is fine. */
  narrow.max_block_dim[0] = 512;
  narrow.max_block_dim[1] = 256;
  c = explicit_config (600, 1, 1, 1, 1, 1, 1);
  assert_invalid (&c, 600, 1, &narrow, NULL, TRUE, "600", "512", " x");
  c = explicit_config (1, 300, 1, 1, 1, 1, 1);
  assert_invalid (&c, 1, 300, &narrow, NULL, TRUE, "300", "256", " y");

  /* The CPU device's real limits: x and y 1024, z 64. */
  c = explicit_config (1025, 1, 1, 1, 1, 1, 1);
  assert_invalid (&c, 2000, 1, limits (), NULL, TRUE, "1025", "1024", "x");
  c = explicit_config (1, 1025, 1, 1, 1, 1, 1);
  assert_invalid (&c, 1, 2000, limits (), NULL, TRUE, "1025", "1024", "y");
  c = explicit_config (1, 1, 65, 1, 1, 1, 1);
  assert_invalid (&c, 10, 10, limits (), NULL, TRUE, "65", "64", "z");
}

static void
test_validate_grid_dims (void)
{
  KsLaunchConfig c;

  c = explicit_config (16, 16, 1, 1, 65536, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "65536", "65535", "y");
  c = explicit_config (16, 16, 1, 1, 1, 65536, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "65536", "65535", "z");
  c = explicit_config (1, 1, 1, 2147483648u, 1, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "2147483648", "2147483647", "x");
}

static void
test_validate_zero (void)
{
  KsLaunchConfig c;

  c = explicit_config (0, 16, 1, 1, 1, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "block", "0", "x");
  c = explicit_config (16, 0, 1, 1, 1, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "block", "0", "y");
  c = explicit_config (16, 16, 0, 1, 1, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "block", "0", "z");
  c = explicit_config (16, 16, 1, 0, 1, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "grid", "0", "x");
  c = explicit_config (16, 16, 1, 1, 0, 1, 1);
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "grid", "0", "y");
}

static void
test_validate_pixels_per_thread (void)
{
  KsLaunchConfig c = explicit_config (16, 16, 1, 1, 1, 1, 3);

  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "3", "pixels", "16");
  c.pixels_per_thread = 32;
  assert_invalid (&c, 16, 16, limits (), NULL, TRUE, "32", "pixels", "8");
}

static void
test_validate_shared_memory (void)
{
  KsKernelAttributes attrs = { 0 };
  KsLaunchConfig c = explicit_config (256, 1, 1, 4, 1, 1, 1);

  /* 16 KiB static + 212 KiB dynamic = 228 KiB > 227 KiB, the limit with
   * opt-in (every launcher opts in past the 48 KiB without). */
  g_assert_cmpuint (cpu_limits.shared_mem_per_block, ==, 48 * 1024);
  g_assert_cmpuint (cpu_limits.shared_mem_per_block_optin, ==, 227 * 1024);
  attrs.shared_static = 16 * 1024;
  attrs.shared_dynamic = 212 * 1024;
  assert_invalid (&c, 1024, 1, limits (), &attrs, FALSE, "228 KiB", "227 KiB", "shared memory");

  /* Past 48 KiB, up to exactly the limit, is fine. */
  attrs.shared_dynamic = 40 * 1024;
  g_assert_true (ks_launch_config_validate (&c, 1024, 1, limits (), &attrs, NULL, NULL));
  attrs.shared_dynamic = 211 * 1024;
  g_assert_true (ks_launch_config_validate (&c, 1024, 1, limits (), &attrs, NULL, NULL));
  /* One byte more is not. */
  attrs.shared_dynamic++;
  assert_invalid (&c, 1024, 1, limits (), &attrs, FALSE, "232449", "227 KiB", "shared memory");
}

static void
test_validate_registers (void)
{
  KsKernelAttributes attrs = { 0 };
  KsLaunchConfig c = explicit_config (1024, 1, 1, 1, 1, 1, 1);

  /* 64 registers × 1024 threads = 65536: exactly the device's registers per block. */
  attrs.num_regs = 64;
  g_assert_true (ks_launch_config_validate (&c, 1024, 1, limits (), &attrs, NULL, NULL));

  /* 255 registers × 1024 threads ≥ 261120 > 65536. */
  attrs.num_regs = 255;
  assert_invalid (&c, 1024, 1, limits (), &attrs, TRUE, "255 registers", "65536", "1024");

  /* 128 registers: 1024 threads fail, 512 fit. */
  attrs.num_regs = 128;
  assert_invalid (&c, 1024, 1, limits (), &attrs, TRUE, "128 registers", "131072", "65536");
  c.block.x = 512;
  g_assert_true (ks_launch_config_validate (&c, 1024, 1, limits (), &attrs, NULL, NULL));
}

static void
test_validate_kernel_max_threads (void)
{
  KsKernelAttributes attrs = { 0 };
  KsLaunchConfig c = explicit_config (32, 16, 1, 1, 1, 1, 1);

  attrs.num_regs = 40;
  attrs.max_threads_per_block = 256;
  assert_invalid (&c, 100, 100, limits (), &attrs, TRUE, "512", "256", "this kernel");
}

/* Every invalid block of a sweep gets a suggestion that validates and covers the image. */
static void
test_validate_suggestions_sweep (void)
{
  static const guint sizes[] = { 0, 1, 3, 64, 1000, 1025, 4096, 70000 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (guint j = 0; j < G_N_ELEMENTS (sizes); j++)
      for (guint m = 0; m < 2; m++)
        {
          g_autoptr (GError) error = NULL;
          KsLaunchConfig c = ks_test_launch (sizes[i], sizes[j], 0, 0, m, 1), s;
          KsLaunchTotals t;

          ks_launch_config_resolve (&c, 1920, 1080, 1, limits ());
          if (ks_launch_config_validate (&c, 1920, 1080, limits (), NULL, &s, &error))
            continue;
          g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
          g_clear_error (&error);
          g_assert_true (ks_launch_config_validate (&s, 1920, 1080, limits (), NULL, NULL, &error));
          g_assert_no_error (error);
          ks_launch_totals (&s, 1920, 1080, &t);
          g_assert_cmpuint (t.unreached_pixels, ==, 0);
        }
}

static void
test_occupancy (void)
{
  KsKernelAttributes attrs = { 0 };
  KsLaunchConfig c = explicit_config (256, 1, 1, 1, 1, 1, 1);
  KsOccupancy o;

  /* Hand-computed for the CPU device's limits: 2048 threads (64 warps), 32 blocks,
   * 65536 registers and 228 KiB of shared memory per multiprocessor, 1 KiB of
   * it reserved for each block. */

  /* 256 threads, 32 registers: 8 blocks of 8 warps, all 64 warps. */
  attrs.num_regs = 32;
  ks_launch_occupancy (&c, limits (), &attrs, &o);
  g_assert_cmpuint (o.max_warps_per_sm, ==, 64);
  g_assert_cmpuint (o.active_blocks_per_sm, ==, 8);
  g_assert_cmpuint (o.active_warps_per_sm, ==, 64);
  g_assert_cmpfloat_with_epsilon (o.occupancy, 1.0, 1e-9);

  /* 32-thread blocks: at most 32 blocks, 32 of 64 warps. */
  c.block.x = 32;
  attrs.num_regs = 16;
  ks_launch_occupancy (&c, limits (), &attrs, &o);
  g_assert_cmpuint (o.active_blocks_per_sm, ==, 32);
  g_assert_cmpuint (o.active_warps_per_sm, ==, 32);
  g_assert_cmpfloat_with_epsilon (o.occupancy, 0.5, 1e-9);
  g_assert_cmpint (o.limiter, ==, KS_OCCUPANCY_LIMIT_BLOCKS);

  /* 256 threads × 128 registers = 32768 per block: 2 blocks, 16 warps. */
  c.block.x = 256;
  attrs.num_regs = 128;
  ks_launch_occupancy (&c, limits (), &attrs, &o);
  g_assert_cmpuint (o.active_blocks_per_sm, ==, 2);
  g_assert_cmpuint (o.active_warps_per_sm, ==, 16);
  g_assert_cmpfloat_with_epsilon (o.occupancy, 0.25, 1e-9);
  g_assert_cmpint (o.limiter, ==, KS_OCCUPANCY_LIMIT_REGISTERS);

  /* Registers by sub-partition: 40 a thread is 1280 a warp, 12 warps in each
   * quarter of 65536, 48 in all: 24 blocks of 64 threads (the whole file
   * would seem to hold 51 warps, 25 blocks), 16 of 72 threads (3 warps). */
  c.block.x = 64;
  attrs.num_regs = 40;
  ks_launch_occupancy (&c, limits (), &attrs, &o);
  g_assert_cmpuint (o.active_blocks_per_sm, ==, 24);
  g_assert_cmpint (o.limiter, ==, KS_OCCUPANCY_LIMIT_REGISTERS);
  c.block.x = 72;
  ks_launch_occupancy (&c, limits (), &attrs, &o);
  g_assert_cmpuint (o.active_blocks_per_sm, ==, 16);
  c.block.x = 256;

  /* 40000 bytes of static and 20000 of dynamic shared memory per block: 60032
   * allocated, 61056 with the reserved KiB, 3 blocks in 228 KiB, 24 warps. */
  attrs.num_regs = 16;
  attrs.shared_static = 40000;
  attrs.shared_dynamic = 20000;
  ks_launch_occupancy (&c, limits (), &attrs, &o);
  g_assert_cmpuint (o.active_blocks_per_sm, ==, 3);
  g_assert_cmpuint (o.active_warps_per_sm, ==, 24);
  g_assert_cmpint (o.limiter, ==, KS_OCCUPANCY_LIMIT_SHARED_MEMORY);
  g_assert_cmpstr (ks_occupancy_limit_describe (o.limiter), !=, NULL);
}

static void
test_geometry (void)
{
  KsLaunchConfig c = explicit_config (32, 8, 1, 5, 7, 1, 4);
  KsGeometry g;

  c.mode = KS_LAUNCH_GRID_STRIDE;
  ks_launch_config_to_geometry (&c, 333, 197, &g);
  g_assert_cmpuint (g.block.x, ==, 32);
  g_assert_cmpuint (g.block.y, ==, 8);
  g_assert_cmpuint (g.grid.x, ==, 5);
  g_assert_cmpuint (g.grid.y, ==, 7);
  g_assert_cmpuint (g.mode, ==, KS_MAP_GRID_STRIDE);
  g_assert_cmpuint (g.pixels_per_thread, ==, 4);
  g_assert_cmpuint (g.width, ==, 333);
  g_assert_cmpuint (g.height, ==, 197);
}

static void
test_cpu_device_limits (void)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();

  g_assert_cmpint (ks_device_get_kind (cpu), ==, KS_DEVICE_KIND_CPU);
  g_assert_cmpstr (ks_device_get_id (cpu), ==, "cpu");
  g_assert_cmpint (ks_device_get_ordinal (cpu), ==, -1);
  /* The lessons' numbers hold without a GPU. */
  g_assert_cmpuint (cpu_limits.max_threads_per_block, ==, 1024);
  g_assert_cmpuint (cpu_limits.max_grid_dim[1], ==, 65535);
  g_assert_cmpuint (cpu_limits.max_grid_dim[2], ==, 65535);
  g_assert_cmpuint (cpu_limits.warp_size, ==, 32);
}

/* The rule for a launch restored without a device (sessions, settings,
 * lessons): the same limits and words as validation, the member at fault. */
static void
test_check_limits (void)
{
  static const struct
  {
    KsDim3 block, grid;
    gboolean auto_grid;
    guint ppt;
    const char *field, *says;
  } cases[] = {
    { { 16, 16, 1 }, { 0, 0, 0 }, TRUE, 0, NULL, NULL },
    { { 1024, 1, 1 }, { 2147483647u, 65535, 65535 }, FALSE, 16, NULL, NULL },
    { { 2048, 1, 1 }, { 1, 1, 1 }, TRUE, 1, "block", "this device allows at most 1024 in x" },
    { { 64, 32, 1 }, { 1, 1, 1 }, TRUE, 1, "block", "2048 threads per block" },
    { { 1, 1, 65 }, { 1, 1, 1 }, TRUE, 1, "block", "at most 64 in z" },
    { { 0, 8, 1 }, { 1, 1, 1 }, TRUE, 1, "block", "x is 0" },
    { { 16, 16, 1 }, { 0, 4, 1 }, FALSE, 1, "grid", "x is 0" },
    { { 16, 16, 1 }, { 1, 65536, 1 }, FALSE, 1, "grid", "at most 65535 in y" },
    { { 16, 16, 1 }, { 1, 1, 1 }, TRUE, 3, "pixels_per_thread", "not 3" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      const char *field = "unset";
      KsLaunchConfig c;
      gboolean ok;

      ks_launch_config_init (&c, 1, 1);
      c.block = cases[i].block;
      c.grid = cases[i].grid;
      c.auto_grid = cases[i].auto_grid;
      c.pixels_per_thread = cases[i].ppt;
      ok = ks_launch_config_check_limits (&c, limits (), &field, &error);
      g_assert_cmpstr (field, ==, cases[i].field);
      if (cases[i].field == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          continue;
        }
      g_assert_false (ok);
      g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      g_assert_nonnull (strstr (error->message, cases[i].says));
    }
}

int
main (int argc, char **argv)
{
  g_autoptr (KsDevice) cpu = NULL;

  g_test_init (&argc, &argv, NULL);
  cpu = ks_device_get_cpu ();
  cpu_limits = *ks_device_get_limits (cpu);

  g_test_add_func ("/ks/launch/dim3/parse", test_dim3_parse);
  g_test_add_func ("/ks/launch/dim3/format", test_dim3_format);
  g_test_add_func ("/ks/launch/resolve/auto-grid", test_resolve_auto_grid);
  g_test_add_func ("/ks/launch/resolve/grid-stride", test_resolve_grid_stride);
  g_test_add_func ("/ks/launch/resolve/fit-occupancy", test_fit_occupancy);
  g_test_add_func ("/ks/launch/totals", test_totals);
  g_test_add_func ("/ks/launch/validate/valid", test_validate_valid);
  g_test_add_func ("/ks/launch/validate/threads-per-block", test_validate_threads_per_block);
  g_test_add_func ("/ks/launch/validate/block-dims", test_validate_block_dims);
  g_test_add_func ("/ks/launch/validate/grid-dims", test_validate_grid_dims);
  g_test_add_func ("/ks/launch/validate/zero-dims", test_validate_zero);
  g_test_add_func ("/ks/launch/validate/pixels-per-thread", test_validate_pixels_per_thread);
  g_test_add_func ("/ks/launch/validate/shared-memory", test_validate_shared_memory);
  g_test_add_func ("/ks/launch/validate/registers", test_validate_registers);
  g_test_add_func ("/ks/launch/validate/kernel-max-threads", test_validate_kernel_max_threads);
  g_test_add_func ("/ks/launch/validate/suggestions-sweep", test_validate_suggestions_sweep);
  g_test_add_func ("/ks/launch/occupancy", test_occupancy);
  g_test_add_func ("/ks/launch/geometry", test_geometry);
  g_test_add_func ("/ks/launch/cpu-device-limits", test_cpu_device_limits);
  g_test_add_func ("/ks/launch/check-limits", test_check_limits);

  return g_test_run ();
}
