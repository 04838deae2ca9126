/* fuzz-size-launch.c: image sizes and launch configurations as the command
 * line and the launch panel give them — ks_cli_parse_size, ks_dim3_parse —
 * and what the engine does with the result: resolve, fit to the occupancy,
 * validate with a suggestion, count the threads.
 *
 * The input is lines:
 *   0 size ("1920x1080")      4 pixels per thread ("4"; empty: the default)
 *   1 block ("32x8")          5 the op's default pixels per thread
 *   2 grid ("60x135"; empty: auto)
 *   3 mode ("stride": grid-stride, else per pixel)
 *   6 the kernel's needs: "REGS SHARED_STATIC SHARED_DYNAMIC MAX_THREADS
 *     SHARED_PER_THREAD", each kept in the range a real kernel reports
 *   7 the device: "gpu" for the limits of a large GPU, else the CPU device's */
#include "config.h"

#include <string.h>

#include "ks-cli.h"
#include "ks-fuzz.h"

enum
{
  F_SIZE, F_BLOCK, F_GRID, F_MODE, F_PPT, F_DEFAULT_PPT, F_ATTRS, F_DEVICE, N_FIELDS
};

/* sm_90 as cudaGetDeviceProperties reports it. */
static const KsDeviceLimits gpu_limits = {
  .max_threads_per_block = 1024,
  .max_block_dim = { 1024, 1024, 64 },
  .max_grid_dim = { 2147483647u, 65535, 65535 },
  .shared_mem_per_block = 48 * 1024,
  .shared_mem_per_block_optin = 227 * 1024,
  .shared_mem_per_sm = 228 * 1024,
  .reserved_shared_mem_per_block = 1024,
  .regs_per_block = 65536,
  .regs_per_sm = 65536,
  .warp_size = 32,
  .max_threads_per_sm = 2048,
  .max_blocks_per_sm = 32,
  .sm_count = 132,
  .cc_major = 9,
  .cc_minor = 0,
};

static KsDevice *cpu_device;

typedef struct
{
  KsKernelAttributes base;
  guint64 shared_per_thread;  /* bytes of dynamic shared memory per thread and pixel */
} Needs;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ks_fuzz_init_logging ();
  cpu_device = ks_device_get_cpu ();
  return 0;
}

static guint64
block_threads (const KsLaunchConfig *c)
{
  return (guint64) c->block.x * c->block.y * c->block.z;
}

static void
needs_for (const Needs *needs, const KsLaunchConfig *c, KsKernelAttributes *attrs)
{
  *attrs = needs->base;
  attrs->shared_dynamic += needs->shared_per_thread * block_threads (c)
                           * MAX (1, c->pixels_per_thread);
}

static gboolean
attrs_cb (const KsLaunchConfig *candidate, KsKernelAttributes *attrs, gpointer user_data)
{
  needs_for (user_data, candidate, attrs);
  return TRUE;
}

static guint64
number (const char *text, guint64 fallback)
{
  guint64 v;

  if (text[0] == '\0' || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT, &v, NULL))
    return fallback;
  return v;
}

static void
parse_needs (const char *text, Needs *needs)
{
  g_auto (GStrv) words = g_strsplit (text, " ", 5);
  guint64 v[5] = { 0, 0, 0, 0, 0 };

  for (guint i = 0; words[i] != NULL && i < 5; i++)
    v[i] = g_ascii_strtoull (words[i], NULL, 10);
  memset (needs, 0, sizeof *needs);
  needs->base.num_regs = (guint) (v[0] % 256);
  needs->base.shared_static = v[1] % (48 * 1024 + 1);
  needs->base.shared_dynamic = v[2] % (227 * 1024 + 1);
  needs->base.max_threads_per_block = (guint) (v[3] % 1025);
  needs->shared_per_thread = v[4] % 65;
}

static void
check_dim3 (const char *text, KsDim3 *out, gboolean *parsed)
{
  g_autoptr (GError) error = NULL;
  KsDim3 d = { 0, 0, 0 }, again = { 0, 0, 0 };
  char buf[64];

  *parsed = ks_dim3_parse (text, &d, &error);
  if (!*parsed)
    {
      ks_fuzz_check (error != NULL && g_error_matches (error, KS_ERROR,
                                                       KS_ERROR_INVALID_ARGUMENT),
                     "ks_dim3_parse (“%s”) failed without KS_ERROR_INVALID_ARGUMENT", text);
      return;
    }
  ks_fuzz_check (error == NULL, "ks_dim3_parse succeeded with an error");
  ks_fuzz_check (d.x >= 1 && d.y >= 1 && d.z >= 1, "“%s” parsed as %u×%u×%u", text, d.x, d.y,
                 d.z);
  /* The display form, with "×" typed as "x", reads back as the same size. */
  ks_dim3_format (&d, buf, sizeof buf);
  {
    g_auto (GStrv) parts = g_strsplit (buf, "×", -1);
    g_autofree char *typed = g_strjoinv ("x", parts);

    ks_fuzz_check (ks_dim3_parse (typed, &again, NULL), "ks_dim3_format wrote “%s”, not parsed",
                   buf);
    ks_fuzz_check (again.x == d.x && again.y == d.y && again.z == d.z,
                   "“%s” read back as %u×%u×%u", buf, again.x, again.y, again.z);
  }
  *out = d;
}

/* Whether one thread fits: then a suggestion can be valid. */
static gboolean
fits_one_thread (const KsDeviceLimits *limits, const KsKernelAttributes *attrs)
{
  guint64 regs = ((guint64) attrs->num_regs * limits->warp_size + 255) / 256 * 256;

  return attrs->shared_static + attrs->shared_dynamic <= limits->shared_mem_per_block_optin
         && regs <= limits->regs_per_block;
}

/* The same for needs that follow the configuration: one thread, one pixel. */
static gboolean
feasible (const KsDeviceLimits *limits, const Needs *needs)
{
  KsLaunchConfig one;
  KsKernelAttributes attrs;

  ks_launch_config_init (&one, 1, 1);
  one.pixels_per_thread = 1;
  needs_for (needs, &one, &attrs);
  return fits_one_thread (limits, &attrs);
}

static void
check_totals (const KsLaunchConfig *c, guint width, guint height)
{
  KsLaunchTotals t;
  guint64 tx, ty, tz, txy, threads;

  ks_launch_totals (c, width, height, &t);
  tx = (guint64) c->grid.x * c->block.x;
  ty = (guint64) c->grid.y * c->block.y;
  tz = (guint64) c->grid.z * c->block.z;
  if (__builtin_mul_overflow (tx, ty, &txy) || __builtin_mul_overflow (txy, tz, &threads))
    return;
  ks_fuzz_check (t.pixels == (guint64) width * height, "pixels");
  ks_fuzz_check (t.threads == threads, "threads");
  ks_fuzz_check (t.idle_threads <= t.threads, "%" G_GUINT64_FORMAT " idle of %" G_GUINT64_FORMAT
                 " threads", t.idle_threads, t.threads);
  ks_fuzz_check (t.unreached_pixels <= t.pixels, "%" G_GUINT64_FORMAT " unreached of %"
                 G_GUINT64_FORMAT " pixels", t.unreached_pixels, t.pixels);
}

static void
check_launch (char **f, guint width, guint height)
{
  const KsDeviceLimits *limits = g_str_equal (f[F_DEVICE], "gpu")
                                   ? &gpu_limits : ks_device_get_limits (cpu_device);
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  KsLaunchConfig config, resolved, suggestion;
  KsKernelAttributes attrs;
  KsOccupancy occupancy;
  KsGeometry geom;
  gboolean parsed, ok;
  Needs needs;
  guint default_ppt = (guint) number (f[F_DEFAULT_PPT], 0);

  ks_launch_config_init (&config, 16, 16);
  check_dim3 (f[F_BLOCK], &config.block, &parsed);
  if (f[F_GRID][0] != '\0')
    {
      check_dim3 (f[F_GRID], &config.grid, &parsed);
      if (parsed)
        config.auto_grid = FALSE;
    }
  if (g_str_equal (f[F_MODE], "stride"))
    config.mode = KS_LAUNCH_GRID_STRIDE;
  config.pixels_per_thread = (guint) number (f[F_PPT], 0);
  parse_needs (f[F_ATTRS], &needs);

  before = ks_cli_describe_launch (&config, default_ppt, FALSE);
  ks_fuzz_check (g_utf8_validate (before, -1, NULL), "description not UTF-8");

  resolved = config;
  ks_launch_config_resolve (&resolved, width, height, default_ppt, limits);
  ks_fuzz_check (resolved.pixels_per_thread != 0, "unresolved pixels per thread");
  if (resolved.auto_grid)
    ks_fuzz_check (resolved.grid.x >= 1 && resolved.grid.y >= 1 && resolved.grid.z >= 1,
                   "an automatic grid of %u×%u×%u", resolved.grid.x, resolved.grid.y,
                   resolved.grid.z);
  needs_for (&needs, &resolved, &attrs);
  ks_launch_config_fit_occupancy (&resolved, width, height, limits, &attrs);
  ks_launch_config_to_geometry (&resolved, width, height, &geom);
  after = ks_cli_describe_launch (&resolved, default_ppt, TRUE);

  needs_for (&needs, &resolved, &attrs);
  ok = ks_launch_config_validate (&resolved, width, height, limits, &attrs, &suggestion,
                                  &error);
  if (ok)
    {
      ks_fuzz_check (error == NULL, "valid with an error");
      ks_fuzz_check (memcmp (&suggestion, &resolved, sizeof suggestion) == 0,
                     "a valid configuration's suggestion differs from it");
      ks_launch_occupancy (&resolved, limits, &attrs, &occupancy);
      ks_fuzz_check (occupancy.occupancy >= 0 && occupancy.occupancy <= 1, "occupancy %g",
                     occupancy.occupancy);
      check_totals (&resolved, width, height);
    }
  else
    {
      ks_fuzz_check (g_error_matches (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG),
                     "invalid without KS_ERROR_LAUNCH_CONFIG");
      ks_fuzz_check (g_utf8_validate (error->message, -1, NULL), "message not UTF-8");
      /* "a valid configuration in *suggestion" (ks-launch.h) */
      if (fits_one_thread (limits, &attrs))
        {
          g_autoptr (GError) again = NULL;

          ks_fuzz_check (ks_launch_config_validate (&suggestion, width, height, limits, &attrs,
                                                    NULL, &again),
                         "the suggestion for “%s” is invalid: %s", error->message,
                         again->message);
        }
    }

  g_clear_error (&error);
  ok = ks_launch_config_validate_full (&resolved, width, height, limits, &attrs, attrs_cb,
                                       &needs, &suggestion, &error);
  ks_fuzz_check (ok == (error == NULL), "validate_full: result and error disagree");
  if (!ok && feasible (limits, &needs))
    {
      g_autoptr (GError) again = NULL;

      needs_for (&needs, &suggestion, &attrs);
      ks_fuzz_check (ks_launch_config_validate (&suggestion, width, height, limits, &attrs, NULL,
                                                &again),
                     "the full suggestion for “%s” is invalid: %s", error->message,
                     again->message);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_auto (GStrv) f = ks_fuzz_split (data, size, '\n', N_FIELDS);
  g_autoptr (GError) error = NULL;
  guint width = 0, height = 0;

  if (g_strv_length (f) < N_FIELDS)
    {
      /* Fewer lines: the rest empty. */
      guint n = g_strv_length (f);
      f = g_renew (char *, f, N_FIELDS + 1);
      for (guint i = n; i < N_FIELDS; i++)
        f[i] = g_strdup ("");
      f[N_FIELDS] = NULL;
    }

  if (ks_cli_parse_size (f[F_SIZE], &width, &height, &error))
    {
      ks_fuzz_check (error == NULL, "a size and an error");
      ks_fuzz_check (width >= 1 && height >= 1 && width <= KS_IMAGE_MAX_SIDE
                     && height <= KS_IMAGE_MAX_SIDE, "size %u×%u", width, height);
    }
  else
    {
      ks_fuzz_check (g_error_matches (error, KS_CLI_ERROR, KS_CLI_ERROR_USAGE),
                     "ks_cli_parse_size failed without a usage error");
      width = 1920;
      height = 1080;
    }
  check_launch (f, width, height);
  return 0;
}
