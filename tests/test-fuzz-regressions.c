/* test-fuzz-regressions.c: inputs the fuzzers (tests/fuzz) found or grew,
 * fed through the functions their harnesses call. Each is refused with a
 * clear error, or read as it should be; none prints a warning (the tests run
 * with G_DEBUG=fatal-warnings, so a critical from a library fails them).
 * The files are in tests/data/fuzz-regressions. */
#include "config.h"

#include <string.h>

#include "ks-array.h"
#include "ks-cli.h"
#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static char *
regression_path (const char *name)
{
  g_autofree char *file = g_build_filename ("fuzz-regressions", name, NULL);

  return ks_test_data_path (file);
}

static char *
regression_text (const char *name)
{
  g_autofree char *path = regression_path (name);
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* ---- images (fuzz-image) --------------------------------------------------- */

static void
assert_image_refused (const char *name, const char *needle)
{
  g_autofree char *path = regression_path (name);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_load (path, &error);

  g_assert_null (image);
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  ks_test_assert_message_has (error, name, needle, NULL);
}

/* gdk-pixbuf 2.42's gdk_pixbuf_get_file_info asserts width > 0 && height > 0
 * on a GIF whose logical screen is 8×0: refused before gdk-pixbuf sees it. */
static void
test_gif_zero_height_screen (void)
{
  assert_image_refused ("gif-zero-height-screen.gif", "8×0 pixels");
}

/* A frame 0 pixels wide in an 8×6 GIF: the GIF loader's rowstride assertion. */
static void
test_gif_zero_width_frame (void)
{
  assert_image_refused ("gif-zero-width-frame.gif", "0×");
}

/* The same behind bytes that start no GIF block, which the GIF loader skips. */
static void
test_gif_stray_bytes_zero_frame (void)
{
  assert_image_refused ("gif-stray-bytes-zero-frame.gif", "0×");
}

/* A frame at (0, 10) on an 8×6 screen: the GIF loader's copy_area assertion. */
static void
test_gif_frame_outside_screen (void)
{
  assert_image_refused ("gif-frame-outside-screen.gif", "does not fit its 8×6 screen");
}

/* A BMP whose info header claims to be 4 GiB long: gdk-pixbuf asks for a
 * buffer that size before finding the file short. The file is still refused
 * (the fuzzer raises its malloc limit for this). */
static void
test_bmp_huge_header_size (void)
{
  g_autofree char *path = regression_path ("bmp-huge-header-size.bmp");
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_load (path, &error);

  g_assert_null (image);
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
}

/* Every seed of fuzz-image opens as the picture it is: PNG, JPEG, BMP (24,
 * 32, 8-bit, RLE8, 1-bit), GIF, PNM P1–P6, TIFF both byte orders, TGA,
 * ICO, XPM, XBM. absurd.png stays refused for its size. */
static void
test_image_seeds (void)
{
  g_autofree char *dir_path = g_test_build_filename (G_TEST_DIST, "fuzz", "seeds", "fuzz-image",
                                                     NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, &error);
  const char *name;
  guint n = 0;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autoptr (KsImage) image = ks_image_load (path, &error);

      if (g_str_equal (name, "absurd.png"))
        {
          g_assert_null (image);
          g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
          g_clear_error (&error);
          continue;
        }
      if (image == NULL)
        g_error ("%s: %s", name, error->message);
      g_assert_cmpuint (image->format, ==, KS_FORMAT_RGBA8);
      g_assert_cmpuint (image->width, >=, 1);
      g_assert_cmpuint (image->width, <=, 8);
      g_assert_cmpuint (image->height, >=, 1);
      g_assert_cmpuint (image->height, <=, 6);
      n++;
    }
  g_assert_cmpuint (n, >=, 25);
}

/* ---- kernel sources (fuzz-kernel-source) ----------------------------------- */

/* "Ма" in a signature: the lexer cut it inside its UTF-8 bytes, and the
 * message quoting the signature was not UTF-8 (GTK refuses such text). */
static void
test_kernel_non_ascii_signature (void)
{
  g_autofree char *text = regression_text ("kernel-non-ascii-signature.cu");
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_IMAGE, "kernel.cu",
                                                            text);
  const GPtrArray *diagnostics = ks_kernel_source_get_diagnostics (source);
  gboolean quoted = FALSE;

  g_assert_true (ks_kernel_source_has_errors (source));
  g_assert_cmpuint (diagnostics->len, >, 0);
  for (guint i = 0; i < diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (diagnostics, i);
      g_autofree char *line = ks_diagnostic_format (d);

      g_assert_true (g_utf8_validate (line, -1, NULL));
      quoted |= strstr (d->message, "М") != NULL && strstr (d->message, "а") != NULL;
    }
  g_assert_true (quoted);
}

/* Two arguments named bins: bindings could not tell them apart, and the
 * bindings a new source starts with were refused ("bound 2 times"). */
static void
test_kernel_duplicate_argument (void)
{
  g_autofree char *text = regression_text ("kernel-duplicate-argument.cu");
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "kernel.cu",
                                                            text);
  const GPtrArray *diagnostics = ks_kernel_source_get_diagnostics (source);
  g_autoptr (GError) error = NULL;
  KsKernelUnit unit;
  const KsDiagnostic *d;

  g_assert_true (ks_kernel_source_has_errors (source));
  g_assert_cmpuint (diagnostics->len, ==, 1);
  d = g_ptr_array_index (diagnostics, 0);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpuint (d->line, ==, 2);
  g_assert_nonnull (strstr (d->message, "“bins” names two arguments of histogram"));
  g_assert_false (ks_kernel_source_build_unit (source, NULL, FALSE, &unit, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_COMPILE);
}

/* const(-0e30) is written back as const(-0), which reads as the same zero. */
static void
test_binding_negative_zero (void)
{
  g_autofree char *text = regression_text ("binding-negative-zero.txt");
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBinding) binding = ks_binding_parse (g_strstrip (text), &error);
  g_autoptr (KsBinding) again = NULL;
  g_autofree char *written = NULL;

  g_assert_no_error (error);
  g_assert_true (binding->is_array);
  g_assert_cmpint (binding->init, ==, KS_ARRAY_INIT_CONST);
  g_assert_cmpfloat (binding->init_a, ==, 0);
  written = ks_binding_to_string (binding);
  again = ks_binding_parse (written, &error);
  g_assert_no_error (error);
  g_assert_cmpint (again->type, ==, KS_ELEM_INT32);
  g_assert_cmpuint (again->length, ==, 4);
  g_assert_cmpint (again->init, ==, KS_ARRAY_INIT_CONST);
  g_assert_cmpfloat (again->init_a, ==, 0);
}

/* ---- sizes and launches (fuzz-size-launch) --------------------------------- */

static void
test_size_edges (void)
{
  static const char *const refused[] = {
    "", "x", "0x5", "5x0", "16385x1", "1x16385", "4294967297x1", "1x1x1", "-1x5", "+5x5",
    " 5x5", "5x5 ", "0x10x10",
  };
  guint w = 0, h = 0;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_false (ks_cli_parse_size (refused[i], &w, &h, &error));
      g_assert_error (error, KS_CLI_ERROR, KS_CLI_ERROR_USAGE);
    }
  g_assert_true (ks_cli_parse_size ("16384X16384", &w, &h, NULL));
  g_assert_cmpuint (w, ==, 16384);
  g_assert_cmpuint (h, ==, 16384);
  g_assert_true (ks_cli_parse_size ("1x1", &w, &h, NULL));
  g_assert_cmpuint (w, ==, 1);
}

static void
test_dim3_edges (void)
{
  static const char *const refused[] = {
    "", "0", "1x0", "4294967296", "1x", "x1", "1x1x1x1", "16 x16", "-1", "1.5",
  };
  KsDim3 d;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_false (ks_dim3_parse (refused[i], &d, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    }
  g_assert_true (ks_dim3_parse ("4294967295,1,65536", &d, NULL));
  g_assert_cmpuint (d.x, ==, G_MAXUINT32);
  g_assert_cmpuint (d.z, ==, 65536);
}

/* Blocks past every limit get a suggestion that is itself valid. */
static void
test_launch_suggestion_valid (void)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  const KsDeviceLimits *limits = ks_device_get_limits (cpu);
  static const char *const blocks[] = { "2048x1", "1x1x65536", "1024x1024x64", "4294967295" };
  KsKernelAttributes attrs = { .num_regs = 255, .max_threads_per_block = 256 };

  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      g_autoptr (GError) error = NULL;
      KsLaunchConfig config, suggestion;

      ks_launch_config_init (&config, 16, 16);
      g_assert_true (ks_dim3_parse (blocks[i], &config.block, NULL));
      config.mode = i % 2 ? KS_LAUNCH_GRID_STRIDE : KS_LAUNCH_PER_PIXEL;
      ks_launch_config_resolve (&config, 16384, 16384, 4, limits);
      ks_launch_config_fit_occupancy (&config, 16384, 16384, limits, &attrs);
      g_assert_false (ks_launch_config_validate (&config, 16384, 16384, limits, &attrs,
                                                 &suggestion, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      g_clear_error (&error);
      g_assert_true (ks_launch_config_validate (&suggestion, 16384, 16384, limits, &attrs, NULL,
                                                &error));
      g_assert_no_error (error);
    }
}

/* An op's default of 4294967295 pixels per thread (line 6; the other lines
 * fall back to fuzz-size-launch's defaults: 1920×1080, block 16×16, auto
 * grid): ks_ceil_div_u32 wrapped to 0 columns, the automatic grid came out
 * 0 blocks wide, and validation blamed the grid, not the pixels per thread. */
static void
test_launch_huge_default_ppt (void)
{
  g_autofree char *text = regression_text ("launch-huge-default-ppt.txt");
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  const KsDeviceLimits *limits = ks_device_get_limits (cpu);
  g_autoptr (GError) error = NULL;
  KsLaunchConfig config;
  KsLaunchTotals totals;
  guint64 default_ppt = 0;
  guint w = 0, h = 0;

  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  g_assert_false (ks_cli_parse_size (lines[0], &w, &h, NULL));
  g_assert_true (g_ascii_string_to_unsigned (lines[5], 10, 0, G_MAXUINT, &default_ppt, NULL));
  g_assert_cmpuint (ks_ceil_div_u32 (1920, (guint32) default_ppt), ==, 1);
  g_assert_cmpuint (ks_ceil_div_u32 (G_MAXUINT32, G_MAXUINT32), ==, 1);
  g_assert_cmpuint (ks_ceil_div_u32 (G_MAXUINT32, 2), ==, 2147483648u);

  ks_launch_config_init (&config, 16, 16);
  ks_launch_config_resolve (&config, 1920, 1080, (guint) default_ppt, limits);
  g_assert_cmpuint (config.pixels_per_thread, ==, G_MAXUINT32);
  g_assert_cmpuint (config.grid.x, ==, 1);
  g_assert_cmpuint (config.grid.y, ==, 68);
  ks_launch_totals (&config, 1920, 1080, &totals);
  g_assert_cmpuint (totals.idle_threads, ==, totals.threads - 1080);
  g_assert_false (ks_launch_config_validate (&config, 1920, 1080, limits, NULL, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (error, "1, 2, 4, 8 or 16 pixels, not 4294967295", NULL);
}

/* ---- parameters (fuzz-params) ---------------------------------------------- */

static void
assert_assignment_refused (const char *op_id, const char *assignment)
{
  const KsOp *op = ks_op_registry_lookup (op_id);
  g_autoptr (GError) error = NULL;
  KsParams params, before;

  g_assert_nonnull (op);
  ks_params_init (&params, op);
  before = params;
  g_assert_false (ks_params_parse_assignment (&params, op, assignment, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_true (memcmp (&params, &before, sizeof params) == 0);
}

static void
test_params_edges (void)
{
  const KsOp *resize = ks_op_registry_lookup ("resize");
  KsParams params;
  guint w = 0, h = 0;

  assert_assignment_refused ("gaussian_blur", "sigma=nan");
  assert_assignment_refused ("gaussian_blur", "sigma=inf");
  assert_assignment_refused ("box_blur", "radius=1e400");
  assert_assignment_refused ("box_blur", "radius=1.5");
  assert_assignment_refused ("gray", "truncate=2");
  assert_assignment_refused ("gray", "=true");
  assert_assignment_refused ("invert", "x=1");
  assert_assignment_refused ("resize", "width=16385");
  assert_assignment_refused ("resize", "scale=0x1p-1074");

  /* The smallest scale on a small image: at least one pixel a side. */
  g_assert_nonnull (resize);
  ks_params_init (&params, resize);
  g_assert_true (ks_params_parse_assignment (&params, resize, "scale=0.05", NULL));
  g_assert_true (ks_params_validate (&params, resize, NULL));
  ks_op_output_size (resize, &params, 16, 4, &w, &h);
  g_assert_cmpuint (w, ==, 1);
  g_assert_cmpuint (h, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ks/engine/fuzz/image/gif-zero-height-screen", test_gif_zero_height_screen);
  g_test_add_func ("/ks/engine/fuzz/image/gif-zero-width-frame", test_gif_zero_width_frame);
  g_test_add_func ("/ks/engine/fuzz/image/gif-stray-bytes-zero-frame",
                   test_gif_stray_bytes_zero_frame);
  g_test_add_func ("/ks/engine/fuzz/image/gif-frame-outside-screen",
                   test_gif_frame_outside_screen);
  g_test_add_func ("/ks/engine/fuzz/image/bmp-huge-header-size", test_bmp_huge_header_size);
  g_test_add_func ("/ks/engine/fuzz/image/seeds", test_image_seeds);
  g_test_add_func ("/ks/engine/fuzz/kernel/non-ascii-signature",
                   test_kernel_non_ascii_signature);
  g_test_add_func ("/ks/engine/fuzz/kernel/duplicate-argument", test_kernel_duplicate_argument);
  g_test_add_func ("/ks/engine/fuzz/binding/negative-zero", test_binding_negative_zero);
  g_test_add_func ("/ks/engine/fuzz/size/edges", test_size_edges);
  g_test_add_func ("/ks/engine/fuzz/dim3/edges", test_dim3_edges);
  g_test_add_func ("/ks/engine/fuzz/launch/suggestion-valid", test_launch_suggestion_valid);
  g_test_add_func ("/ks/engine/fuzz/launch/huge-default-ppt", test_launch_huge_default_ppt);
  g_test_add_func ("/ks/engine/fuzz/params/edges", test_params_edges);
  return g_test_run ();
}
