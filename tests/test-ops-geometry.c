/* test-ops-geometry.c: resize on the CPU engine against a reference written
 * here from the formulas of ks-resize.h (per channel, signed 64-bit, no shared
 * code), hand-computed pixels, and coverage over the output. */
#include "config.h"

#include <string.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

#define PX(r, g, b, a) \
  ((guint32) (r) | (guint32) (g) << 8 | (guint32) (b) << 16 | (guint32) (a) << 24)

static KsEngine *engine;

/* ---- the reference ------------------------------------------------------ */

typedef struct
{
  gint64 i0, i1, w;
} RefAxis;

static RefAxis
ref_axis (gint64 x, gint64 src, gint64 dst, gboolean nearest)
{
  RefAxis r = { 0, 0, 0 };
  gint64 f;

  if (nearest)
    {
      r.i0 = MIN (x * src / dst, src - 1);
      r.i1 = r.i0;
      return r;
    }
  /* Centres aligned: source coordinate (x + ½)·src/dst − ½, in 1/65536ths. */
  f = (2 * x + 1) * src * 32768 / dst - 32768;
  if (f < 0)
    return r;
  r.i0 = MIN (f / 65536, src - 1);
  r.i1 = MIN (r.i0 + 1, src - 1);
  r.w = (f % 65536) / 256;
  return r;
}

static KsImage *
ref_resize (const KsImage *in, guint w, guint h, gboolean nearest)
{
  KsImage *out = ks_test_image_new (KS_FORMAT_RGBA8, w, h);

  for (guint y = 0; y < h; y++)
    {
      RefAxis ay = ref_axis (y, in->height, h, nearest);
      for (guint x = 0; x < w; x++)
        {
          RefAxis ax = ref_axis (x, in->width, w, nearest);
          guint32 p00 = ks_image_get_rgba (in, ax.i0, ay.i0);
          guint32 p01 = ks_image_get_rgba (in, ax.i1, ay.i0);
          guint32 p10 = ks_image_get_rgba (in, ax.i0, ay.i1);
          guint32 p11 = ks_image_get_rgba (in, ax.i1, ay.i1);
          guint32 v = 0;

          for (guint c = 0; c < 4; c++)
            {
              gint64 a = (p00 >> (8 * c)) & 255, b = (p01 >> (8 * c)) & 255;
              gint64 d = (p10 >> (8 * c)) & 255, e = (p11 >> (8 * c)) & 255;
              gint64 top = a * (256 - ax.w) + b * ax.w;
              gint64 bottom = d * (256 - ax.w) + e * ax.w;
              gint64 o = (top * (256 - ay.w) + bottom * ay.w + 32768) / 65536;
              g_assert_cmpint (o, <=, 255);
              v |= (guint32) o << (8 * c);
            }
          ks_image_set_rgba (out, x, y, v);
        }
    }
  return out;
}

/* ---- running it --------------------------------------------------------- */

/* Like ks_test_try_run, with an output of the resized size, poisoned. */
static gboolean
try_resize (const char *const *params, const KsLaunchConfig *launch, gboolean instrument,
            const KsImage *in, KsImage **out, KsRunResult *result, GError **error)
{
  const KsOp *op = ks_op_registry_lookup ("resize");
  KsRunRequest request;
  KsBuffer *src = NULL, *dst = NULL;
  guint w, h;
  gboolean ok = FALSE;

  memset (result, 0, sizeof *result);
  *out = NULL;
  ks_run_request_init (&request, op);
  for (guint i = 0; params != NULL && params[i] != NULL; i++)
    if (!ks_params_parse_assignment (&request.params, op, params[i], error))
      return FALSE;
  if (launch != NULL)
    request.launch = *launch;
  request.instrument = instrument;
  ks_op_output_size (op, &request.params, in->width, in->height, &w, &h);

  src = ks_engine_upload (engine, in, NULL, error);
  if (src == NULL)
    goto out;
  request.inputs[0] = src;
  if (w <= KS_IMAGE_MAX_SIDE && h <= KS_IMAGE_MAX_SIDE)
    {
      dst = ks_engine_new_buffer (engine, KS_FORMAT_RGBA8, w, h, error);
      if (dst == NULL || !ks_engine_fill (engine, dst, KS_TEST_POISON, error))
        goto out;
      request.output = dst;
    }
  if (!ks_engine_run (engine, &request, result, error))
    goto out;
  *out = ks_engine_download (engine, dst, NULL, error);
  ok = *out != NULL;

out:
  g_clear_pointer (&src, ks_buffer_unref);
  g_clear_pointer (&dst, ks_buffer_unref);
  return ok;
}

static KsImage *
resize (const KsImage *in, guint w, guint h, const char *mode, const KsLaunchConfig *launch)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *pw = g_strdup_printf ("width=%u", w);
  g_autofree char *ph = g_strdup_printf ("height=%u", h);
  g_autofree char *pm = g_strdup_printf ("mode=%s", mode);
  const char *params[] = { pw, ph, pm, NULL };
  KsRunResult result;
  KsImage *out = NULL;

  try_resize (params, launch, FALSE, in, &out, &result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (out->width, ==, w);
  g_assert_cmpuint (out->height, ==, h);
  ks_run_result_clear (&result);
  return out;
}

static void
check_against_reference (guint sw, guint sh, guint dw, guint dh, const KsLaunchConfig *launch)
{
  static const char *const modes[] = { "nearest", "bilinear" };
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, sw, sh, g_test_rand_int ());

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr (KsImage) expected = ref_resize (in, dw, dh, m == 0);
      g_autoptr (KsImage) out = resize (in, dw, dh, modes[m], launch);
      g_autofree char *what = g_strdup_printf ("%s %u×%u → %u×%u", modes[m], sw, sh, dw, dh);

      ks_test_assert_images_equal (expected, out, what);
    }
}

/* ---- tests -------------------------------------------------------------- */

static void
test_registry (void)
{
  const KsOp *op = ks_op_registry_lookup ("resize");
  KsParams params;
  guint w, h;

  g_assert_nonnull (op);
  g_assert_cmpstr (op->group, ==, "Geometry");
  g_assert_cmpuint (op->n_inputs, ==, 1);
  g_assert_cmpint (op->output_kind, ==, KS_OP_OUTPUT_IMAGE);
  g_assert_cmpint (op->output_format, ==, KS_FORMAT_RGBA8);
  g_assert_false (ks_op_accepts_format (op, KS_FORMAT_GRAY8));

  /* Defaults: half the size, rounded to nearest, never below 1. */
  ks_op_output_size (op, NULL, 7680, 4320, &w, &h);
  g_assert_cmpuint (w, ==, 3840);
  g_assert_cmpuint (h, ==, 2160);
  ks_op_output_size (op, NULL, 5, 1, &w, &h);
  g_assert_cmpuint (w, ==, 3);
  g_assert_cmpuint (h, ==, 1);

  ks_params_init (&params, op);
  g_assert_true (ks_params_set (&params, op, "width", "100", NULL));
  g_assert_true (ks_params_set (&params, op, "scale", "2", NULL));
  ks_op_output_size (op, &params, 10, 7, &w, &h);
  g_assert_cmpuint (w, ==, 100);
  g_assert_cmpuint (h, ==, 14);

  /* Bytes: the input read once, the output written once. */
  g_assert_cmpuint (ks_op_bytes_moved_for (op, &params, KS_FORMAT_RGBA8, 10, 7), ==,
                    10 * 7 * 4 + 100 * 14 * 4);
  g_assert_cmpuint (ks_op_bytes_moved (op, KS_FORMAT_RGBA8, 7680, 4320), ==,
                    7680ull * 4320 * 4 + 3840ull * 2160 * 4);
}

static void
test_known_pixels (void)
{
  /* 2×1 → 4×1, bilinear, by hand from ks-resize.h (one row: wy = 0):
   * x = 0: f < 0 → p0;  x = 1: f = 16384 → w = 64 → (255·64 + 128) >> 8 = 64;
   * x = 2: f = 49152 → w = 192 → 191;  x = 3: x0 = x1 = 1 → p1. */
  g_autoptr (KsImage) in = ks_test_image_new (KS_FORMAT_RGBA8, 2, 1);
  g_autoptr (KsImage) up = NULL;
  g_autoptr (KsImage) near = NULL;

  ks_image_set_rgba (in, 0, 0, PX (0, 255, 10, 255));
  ks_image_set_rgba (in, 1, 0, PX (255, 0, 10, 0));
  up = resize (in, 4, 1, "bilinear", NULL);
  g_assert_cmpuint (ks_image_get_rgba (up, 0, 0), ==, PX (0, 255, 10, 255));
  g_assert_cmpuint (ks_image_get_rgba (up, 1, 0), ==, PX (64, 191, 10, 191));
  g_assert_cmpuint (ks_image_get_rgba (up, 2, 0), ==, PX (191, 64, 10, 64));
  g_assert_cmpuint (ks_image_get_rgba (up, 3, 0), ==, PX (255, 0, 10, 0));

  /* Nearest: sx = x·2/4. */
  near = resize (in, 4, 1, "nearest", NULL);
  g_assert_cmpuint (ks_image_get_rgba (near, 0, 0), ==, PX (0, 255, 10, 255));
  g_assert_cmpuint (ks_image_get_rgba (near, 1, 0), ==, PX (0, 255, 10, 255));
  g_assert_cmpuint (ks_image_get_rgba (near, 2, 0), ==, PX (255, 0, 10, 0));
  g_assert_cmpuint (ks_image_get_rgba (near, 3, 0), ==, PX (255, 0, 10, 0));
}

static void
test_one_pixel_up (void)
{
  g_autoptr (KsImage) in = ks_test_image_new (KS_FORMAT_RGBA8, 1, 1);
  const char *modes[] = { "nearest", "bilinear" };

  ks_image_set_rgba (in, 0, 0, PX (12, 200, 77, 3));
  for (guint m = 0; m < 2; m++)
    {
      g_autoptr (KsImage) out = resize (in, 16, 9, modes[m], NULL);
      for (guint y = 0; y < 9; y++)
        for (guint x = 0; x < 16; x++)
          g_assert_cmpuint (ks_image_get_rgba (out, x, y), ==, PX (12, 200, 77, 3));
    }
}

static void
test_to_one_pixel (void)
{
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, 16, 9, g_test_rand_int ());
  g_autoptr (KsImage) near = resize (in, 1, 1, "nearest", NULL);
  g_autoptr (KsImage) lin = resize (in, 1, 1, "bilinear", NULL);
  guint32 a = ks_image_get_rgba (in, 7, 4), b = ks_image_get_rgba (in, 8, 4), e = 0;

  g_assert_cmpuint (ks_image_get_rgba (near, 0, 0), ==, ks_image_get_rgba (in, 0, 0));
  /* The centre: x = 7.5 (pixels 7 and 8, half each), y = 4 exactly. */
  for (guint c = 0; c < 32; c += 8)
    e |= ((((a >> c) & 255) * 128 + ((b >> c) & 255) * 128) * 256 + 32768) >> 16 << c;
  g_assert_cmpuint (ks_image_get_rgba (lin, 0, 0), ==, e);
}

static void
test_identity (void)
{
  /* Equal sizes: f = x·2^16 exactly, so w = 0 and every pixel is its source. */
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, 37, 23, g_test_rand_int ());
  g_autoptr (KsImage) near = resize (in, 37, 23, "nearest", NULL);
  g_autoptr (KsImage) lin = resize (in, 37, 23, "bilinear", NULL);

  ks_test_assert_images_equal (in, near, "nearest identity");
  ks_test_assert_images_equal (in, lin, "bilinear identity");
}

static void
test_random_sizes (void)
{
  static const guint sizes[][4] = {
    { 100, 60, 50, 30 },   /* exactly half */
    { 37, 23, 111, 69 },   /* three times, odd */
    { 333, 197, 101, 45 }, /* uneven down */
    { 31, 17, 97, 13 },    /* up in x, down in y */
    { 1, 40, 7, 3 },
    { 64, 1, 5, 9 },
    { 1921, 9, 640, 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    check_against_reference (sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3], NULL);
}

static void
test_launches (void)
{
  static const guint ppts[] = { 1, 2, 4, 8, 16 };

  for (guint i = 0; i < G_N_ELEMENTS (ppts); i++)
    {
      KsLaunchConfig pp = ks_test_launch (16, 8, 0, 0, KS_LAUNCH_PER_PIXEL, ppts[i]);
      KsLaunchConfig gs = ks_test_launch (8, 4, 3, 2, KS_LAUNCH_GRID_STRIDE, ppts[i]);
      check_against_reference (45, 31, 67, 29, &pp);
      check_against_reference (45, 31, 67, 29, &gs);
    }
}

static void
test_coverage (void)
{
  /* 40×20 out of a 13×11 input; one 16×16 block, 4 pixels per thread, per
   * pixel: 10 busy columns of threads × 16 rows reach 40×16 of the OUTPUT. */
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, 13, 11, g_test_rand_int ());
  g_autoptr (KsImage) expected = ref_resize (in, 40, 20, FALSE);
  g_autoptr (GError) error = NULL;
  const char *params[] = { "width=40", "height=20", NULL };
  KsLaunchConfig c = ks_test_launch (16, 16, 1, 1, KS_LAUNCH_PER_PIXEL, 4);
  KsLaunchConfig gs = ks_test_launch (8, 8, 2, 1, KS_LAUNCH_GRID_STRIDE, 2);
  KsRunResult result;
  g_autoptr (KsImage) out = NULL;
  g_autoptr (KsImage) out2 = NULL;
  const KsCoverage *cov;

  try_resize (params, &c, TRUE, in, &out, &result, &error);
  g_assert_no_error (error);
  cov = result.coverage;
  g_assert_nonnull (cov);
  g_assert_cmpuint (cov->width, ==, 40);
  g_assert_cmpuint (cov->height, ==, 20);
  g_assert_cmpuint (cov->unwritten_pixels, ==, 40 * 4);
  g_assert_cmpuint (cov->multiply_written_pixels, ==, 0);
  g_assert_cmpuint (cov->idle_threads, ==, 6 * 16);
  for (guint y = 0; y < 20; y++)
    for (guint x = 0; x < 40; x++)
      {
        gsize i = (gsize) y * 40 + x;
        if (y < 16)
          {
            g_assert_cmpuint (cov->writes[i], ==, 1);
            g_assert_cmpuint (cov->owner_block[i], ==, 0);
            g_assert_cmpuint (cov->owner_thread[i], ==, y * 16 + x / 4);
            g_assert_cmpuint (ks_image_get_rgba (out, x, y), ==,
                              ks_image_get_rgba (expected, x, y));
          }
        else
          {
            g_assert_cmpuint (cov->writes[i], ==, 0);
            g_assert_cmpuint (ks_image_get_rgba (out, x, y), ==, 0xA5A5A5A5u);
          }
      }
  ks_run_result_clear (&result);

  /* Grid-stride: 2×1 blocks of 8×8 loop over the whole output, once each. */
  try_resize (params, &gs, TRUE, in, &out2, &result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (result.coverage->unwritten_pixels, ==, 0);
  g_assert_cmpuint (result.coverage->multiply_written_pixels, ==, 0);
  g_assert_cmpuint (result.coverage->idle_threads, ==, 0);
  ks_test_assert_images_equal (expected, out2, "grid-stride coverage run");
  ks_run_result_clear (&result);
}

static void
test_bad_sizes (void)
{
  const KsOp *op = ks_op_registry_lookup ("resize");
  g_autoptr (KsImage) in = ks_test_random_image (KS_FORMAT_RGBA8, 4096, 2, 1);
  const char *too_big[] = { "scale=8", NULL };
  KsParams params;
  KsRunResult result;
  KsImage *out = NULL;
  GError *error = NULL;

  ks_params_init (&params, op);
  g_assert_false (ks_params_set (&params, op, "width", "16385", NULL));
  g_assert_false (ks_params_set (&params, op, "height", "-1", NULL));
  g_assert_false (ks_params_set (&params, op, "scale", "0.01", NULL));
  g_assert_false (ks_params_set (&params, op, "scale", "9", NULL));
  g_assert_false (ks_params_set (&params, op, "mode", "bicubic", NULL));

  /* 4096 × 8 = 32768 columns: past the largest image, refused with the size. */
  g_assert_false (try_resize (too_big, NULL, FALSE, in, &out, &result, &error));
  g_assert_nonnull (error);
  ks_test_assert_message_has (error, "32768", NULL);
  g_assert_null (out);
  g_clear_error (&error);
  ks_run_result_clear (&result);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  engine = ks_test_cpu_engine ();

  g_test_add_func ("/ks/engine/resize/registry", test_registry);
  g_test_add_func ("/ks/engine/resize/known-pixels", test_known_pixels);
  g_test_add_func ("/ks/engine/resize/1x1-to-16x9", test_one_pixel_up);
  g_test_add_func ("/ks/engine/resize/16x9-to-1x1", test_to_one_pixel);
  g_test_add_func ("/ks/engine/resize/identity", test_identity);
  g_test_add_func ("/ks/engine/resize/random-sizes", test_random_sizes);
  g_test_add_func ("/ks/engine/resize/launches", test_launches);
  g_test_add_func ("/ks/engine/resize/coverage", test_coverage);
  g_test_add_func ("/ks/engine/resize/bad-sizes", test_bad_sizes);

  ret = g_test_run ();
  g_clear_object (&engine);
  return ret;
}
