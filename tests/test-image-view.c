/* The live view and the two charts on their own, under Xvfb: the view shows
 * exactly the engine's output (read back with GL), a grid that is too small
 * shows its unwritten pixels hatched on screen, the histogram view's
 * statistics, and the timing chart drawing without warnings.
 *
 * Without a display every test is skipped (GLib then exits 77, or reports the
 * skips in TAP under meson). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-histogram-view.h"
#include "ks-image-view.h"
#include "ks-timing-chart.h"
#include "ks-ui-test-helpers.h"
#include "ks-op-registry.h"

typedef struct
{
  GtkWidget *window;
  KsImageView *view;
  KsPipeline *pipeline;
} ViewFixture;

static void
view_fixture_setup (ViewFixture *f, gconstpointer data)
{
  g_autoptr (KsImage) input = NULL;
  g_autoptr (GError) error = NULL;

  if (!ks_ui_test_have_display ())
    return;

  f->pipeline = ks_pipeline_new ();
  input = ks_image_new (KS_FORMAT_RGBA8, 200, 150, &error);
  g_assert_no_error (error);
  ks_image_fill_random (input, 1234);
  ks_ui_test_set_input (f->pipeline, KS_INPUT_A, input, "random");
  ks_pipeline_set_op (f->pipeline, ks_op_registry_lookup ("invert"));

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 400, 300);
  f->view = KS_IMAGE_VIEW (ks_image_view_new ());
  ks_image_view_set_pipeline (f->view, f->pipeline);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->view));
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
view_fixture_teardown (ViewFixture *f, gconstpointer data)
{
  if (!ks_ui_test_have_display ())
    return;
  ks_ui_test_settle (f->pipeline);
  gtk_window_destroy (GTK_WINDOW (f->window));
  ks_ui_test_iterate_for (10);
  g_assert_finalize_object (f->pipeline);
}

/* Iterates until the view holds exactly the engine's latest output, or
 * KS_UI_TEST_PATIENCE_S pass (NULL then). */
static KsImage *
wait_for_output (ViewFixture *f, KsImage **expected_out)
{
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);

  for (int attempt = 0; g_get_monotonic_time () < deadline; attempt++)
    {
      g_autoptr (KsImage) expected = NULL;
      g_autoptr (KsImage) expected_rgba = NULL;
      g_autoptr (KsImage) shown = NULL;
      g_autoptr (GError) error = NULL;

      ks_ui_test_iterate_for (20);
      if (!gtk_widget_get_realized (GTK_WIDGET (f->view)))
        continue;
      expected = ks_pipeline_download_output (f->pipeline, NULL);
      shown = ks_image_view_read_output (f->view, &error);
      if (error != NULL && attempt % 50 == 49)
        g_test_message ("no output from the view yet: %s", error->message);
      if (expected == NULL || shown == NULL)
        continue;
      expected_rgba = ks_image_to_rgba (expected);
      if (ks_image_equal (shown, expected_rgba))
        {
          if (expected_out != NULL)
            *expected_out = g_steal_pointer (&expected_rgba);
          return g_steal_pointer (&shown);
        }
    }
  return NULL;
}

/* The widget as it is on screen, as cairo-ordered bytes (B, G, R, A
 * premultiplied on little-endian machines); with png_name, also a test
 * artifact where the build keeps its test output (a write that fails is
 * no failure of the view). */
static guint8 *
screenshot_widget (GtkWidget *widget, int *width, int *height, const char *png_name)
{
  g_autoptr (GdkTexture) texture = ks_ui_test_render (widget);

  if (png_name != NULL)
    ks_ui_test_write_png (texture, g_getenv ("G_TEST_BUILDDIR") != NULL
                                   ? g_getenv ("G_TEST_BUILDDIR") : g_get_tmp_dir (), png_name);
  return ks_ui_test_texture_pixels (texture, width, height);
}

static gboolean
is_magenta (const guint8 *bgra)
{
  return bgra[2] > 200 && bgra[1] < 60 && bgra[0] > 200;
}

/* Share of magenta pixels in a rectangle of the screenshot. */
static double
magenta_share (const guint8 *pixels, int stride_px, int x0, int y0, int x1, int y1)
{
  guint64 n = 0, m = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++, n++)
      m += is_magenta (pixels + ((gsize) y * stride_px + x) * 4);
  return n > 0 ? (double) m / n : 0;
}

static void
test_view_shows_engine_output (ViewFixture *f, gconstpointer data)
{
  g_autoptr (KsImage) shown = NULL;
  g_autoptr (KsImage) expected = NULL;
  g_autoptr (KsImage) shown_after = NULL;

  if (ks_ui_test_skip_without_display ())
    return;

  shown = wait_for_output (f, &expected);
  g_assert_nonnull (shown);
  /* The CPU path is an ordinary texture upload: exactly the engine's bytes. */
  g_assert_true (ks_image_equal (shown, expected));
  g_assert_cmpstr (ks_image_view_get_gl_renderer (f->view), !=, "");
  g_test_message ("GL renderer: %s", ks_image_view_get_gl_renderer (f->view));
  g_test_message ("display path: %s", ks_image_view_get_display_path (f->view));
  if (!ks_engine_is_cuda (ks_pipeline_get_engine (f->pipeline)))
    g_assert_nonnull (strstr (ks_image_view_get_display_path (f->view), "CPU engine"));
  g_assert_cmpstr (ks_pipeline_get_display_path (f->pipeline), ==,
                   ks_image_view_get_display_path (f->view));

  /* Another op changes what is displayed, in the next frames. */
  ks_pipeline_set_op (f->pipeline, ks_op_registry_lookup ("gray"));
  shown_after = wait_for_output (f, NULL);
  g_assert_nonnull (shown_after);
  g_assert_false (ks_image_equal (shown, shown_after));
  /* Gray outputs are shown gray: R = G = B. */
  for (guint x = 0; x < shown_after->width; x++)
    {
      const guint8 *p = ks_image_row (shown_after, 7) + 4 * x;

      g_assert_true (p[0] == p[1] && p[1] == p[2] && p[3] == 255);
    }
}

static void
test_view_hatches_unwritten_pixels (ViewFixture *f, gconstpointer data)
{
  KsLaunchConfig launch;
  g_autoptr (KsImage) shown = NULL;
  g_autofree guint8 *before = NULL;
  g_autofree guint8 *after = NULL;
  const KsCoverage *coverage;
  double zoom, ox, oy;
  int w, h;

  if (ks_ui_test_skip_without_display ())
    return;

  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  g_assert_null (ks_pipeline_get_coverage (f->pipeline));
  before = screenshot_widget (GTK_WIDGET (f->view), &w, &h, NULL);

  /* 2×2 blocks of 16×16 threads cover 32×32 of the 200×150 image. */
  ks_launch_config_init (&launch, 16, 16);
  launch.auto_grid = FALSE;
  launch.grid.x = 2;
  launch.grid.y = 2;
  launch.grid.z = 1;
  ks_pipeline_set_launch (f->pipeline, &launch);
  KS_UI_TEST_WAIT_FOR (ks_pipeline_get_coverage (f->pipeline) != NULL, KS_UI_TEST_PATIENCE_S);
  coverage = ks_pipeline_get_coverage (f->pipeline);
  g_assert_nonnull (coverage);
  g_assert_cmpuint (coverage->writes[10 * coverage->width + 10], !=, 0);
  g_assert_cmpuint (coverage->writes[100 * coverage->width + 150], ==, 0);
  g_clear_pointer (&shown, ks_image_unref);
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  ks_ui_test_iterate_for (100);

  after = screenshot_widget (GTK_WIDGET (f->view), &w, &h, "test-image-view-coverage.png");

  /* Where the image lies in the widget (fit, centred); the regions are taken
   * well inside the written 32×32 corner and the unwritten rest. */
  zoom = ks_image_view_get_zoom (f->view) / gtk_widget_get_scale_factor (GTK_WIDGET (f->view));
  ox = (w - 200 * zoom) / 2;
  oy = (h - 150 * zoom) / 2;
#define RX(ix) ((int) (ox + (ix) * zoom))
#define RY(iy) ((int) (oy + (iy) * zoom))
  g_assert_cmpfloat (magenta_share (after, w, RX (4), RY (4), RX (28), RY (28)), <, 0.05);
  g_assert_cmpfloat (magenta_share (after, w, RX (100), RY (60), RX (190), RY (140)), >, 0.3);
  /* And not before: the hatch is the coverage, not the image. */
  g_assert_cmpfloat (magenta_share (before, w, RX (100), RY (60), RX (190), RY (140)), <, 0.05);

  /* Switching the overlay off removes it. */
  ks_image_view_set_show_coverage (f->view, FALSE);
  ks_ui_test_iterate_for (100);
  g_clear_pointer (&after, g_free);
  after = screenshot_widget (GTK_WIDGET (f->view), &w, &h, NULL);
  g_assert_cmpfloat (magenta_share (after, w, RX (100), RY (60), RX (190), RY (140)), <, 0.05);
#undef RX
#undef RY
}

/* The largest difference of any channel between two screenshots of the
 * same size, and how many pixels differ at all. */
static int
max_difference (const guint8 *a, const guint8 *b, int w, int h, guint *differing)
{
  int worst = 0;

  *differing = 0;
  for (gsize i = 0; i < (gsize) w * h; i++)
    {
      int d = 0;

      for (int c = 0; c < 4; c++)
        d = MAX (d, abs ((int) a[4 * i + c] - (int) b[4 * i + c]));
      worst = MAX (worst, d);
      *differing += d > 0;
    }
  return worst;
}

/* A CUDA result in memory shared with OpenGL is drawn from a buffer
 * texture, filtered in the shader. Here the CPU engine's result goes that
 * way too: on screen it must look as the 2-D texture does — the same bytes
 * where image pixels are squares (zoomed in: nearest), and within 2 of 255
 * where four are blended (zoomed out: the shader's bilinear weights are
 * floats, the texture unit's have 8 bits). */
static void
test_view_buffer_texture (ViewFixture *f, gconstpointer data)
{
  static const struct { double zoom; int tolerance; } cases[] = {
    { 2.0, 0 }, { 1.0, 0 }, { 0.6, 2 },
  };
  g_autoptr (KsImage) shown = NULL;

  if (ks_ui_test_skip_without_display ())
    return;
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree guint8 *texture = NULL;
      g_autofree guint8 *buffer = NULL;
      int w = 0, h = 0, w2 = 0, h2 = 0, worst;
      guint differing = 0;

      ks_image_view_set_host_buffer_texture (f->view, FALSE);
      ks_image_view_set_zoom (f->view, cases[i].zoom);
      ks_ui_test_iterate_for (100);
      g_assert_null (strstr (ks_image_view_get_display_path (f->view), "buffer texture"));
      texture = ks_ui_test_render_pixels (GTK_WIDGET (f->view), &w, &h);

      ks_image_view_set_host_buffer_texture (f->view, TRUE);
      ks_ui_test_iterate_for (100);
      g_assert_nonnull (strstr (ks_image_view_get_display_path (f->view), "buffer texture"));
      buffer = ks_ui_test_render_pixels (GTK_WIDGET (f->view), &w2, &h2);
      g_assert_cmpint (w, ==, w2);
      g_assert_cmpint (h, ==, h2);
      worst = max_difference (texture, buffer, w, h, &differing);
      g_test_message ("zoom %.1f: %u of %d pixels differ, by at most %d", cases[i].zoom,
                      differing, w * h, worst);
      g_assert_cmpint (worst, <=, cases[i].tolerance);
    }
  /* Read back through the buffer texture's path: the engine's bytes exactly. */
  g_clear_pointer (&shown, ks_image_unref);
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  ks_image_view_set_host_buffer_texture (f->view, FALSE);
}

static void
test_view_zoom_and_hover (ViewFixture *f, gconstpointer data)
{
  g_autoptr (KsImage) shown = NULL;
  double fit;

  if (ks_ui_test_skip_without_display ())
    return;

  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  g_assert_true (ks_image_view_get_fit (f->view));
  fit = ks_image_view_get_zoom (f->view);
  /* A 400×300 window fits a 200×150 image at about twice its size. */
  g_assert_cmpfloat (fit, >, 1.5);

  ks_image_view_zoom_1to1 (f->view);
  g_assert_false (ks_image_view_get_fit (f->view));
  g_assert_cmpfloat (ks_image_view_get_zoom (f->view), ==, 1.0);
  ks_image_view_zoom_in (f->view);
  g_assert_cmpfloat (ks_image_view_get_zoom (f->view), >, 1.0);
  ks_image_view_zoom_fit (f->view);
  g_assert_cmpfloat (ks_image_view_get_zoom (f->view), ==, fit);

  ks_image_view_set_split (f->view, 0.5);
  g_assert_cmpfloat (ks_image_view_get_split (f->view), ==, 0.5);
  ks_ui_test_iterate_for (50);
  /* The output texture is unaffected by how it is shown. */
  g_clear_pointer (&shown, ks_image_unref);
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);

  g_assert_false (ks_image_view_get_hover (f->view, NULL, NULL));
}

/* Sets the launch and waits for an instrumented run of it on screen. */
static void
run_instrumented (ViewFixture *f, guint gx, guint gy)
{
  KsLaunchConfig launch;
  g_autoptr (KsImage) shown = NULL;
  gint64 deadline;

  ks_launch_config_init (&launch, 16, 16);
  launch.auto_grid = FALSE;
  launch.grid.x = gx;
  launch.grid.y = gy;
  launch.grid.z = 1;
  launch.pixels_per_thread = 1;
  ks_pipeline_set_launch (f->pipeline, &launch);
  deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);
  for (;;)
    {
      const KsRunResult *r = ks_pipeline_get_result (f->pipeline);

      if (ks_pipeline_is_idle (f->pipeline) && ks_pipeline_get_ownership (f->pipeline) != NULL
          && r != NULL && r->launch.grid.x == gx && r->launch.grid.y == gy)
        break;
      if (!ks_ui_test_wait_step (deadline))
        break;
    }
  g_assert_nonnull (ks_pipeline_get_ownership (f->pipeline));
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  ks_ui_test_iterate_for (100);
}

/* The same launch without an overlay: what the overlay is drawn over. */
static void
run_instrumented_plain (ViewFixture *f, guint gx, guint gy)
{
  KsLaunchConfig launch;
  g_autoptr (KsImage) shown = NULL;

  ks_launch_config_init (&launch, 16, 16);
  launch.auto_grid = FALSE;
  launch.grid.x = gx;
  launch.grid.y = gy;
  launch.grid.z = 1;
  launch.pixels_per_thread = 1;
  ks_pipeline_set_launch (f->pipeline, &launch);
  ks_ui_test_settle (f->pipeline);
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  ks_ui_test_iterate_for (100);
}

/* The screenshot's colour at image pixel (x, y), the view fitting a frame
 * centred on (cx, cy) at `zoom` widget pixels per image pixel. */
static guint32
shown_at (const guint8 *pixels, int w, int h, double zoom, double cx, double cy, guint x,
          guint y)
{
  int sx = (int) (w / 2.0 + (x + 0.5 - cx) * zoom);
  int sy = (int) (h / 2.0 + (y + 0.5 - cy) * zoom);
  const guint8 *p;

  g_assert_cmpint (sx, >=, 0);
  g_assert_cmpint (sy, >=, 0);
  g_assert_cmpint (sx, <, w);
  g_assert_cmpint (sy, <, h);
  p = pixels + ((gsize) sy * w + sx) * 4;
  return p[2] | p[1] << 8 | (guint32) p[0] << 16;
}

/* Within 2 of the blend of the result and the overlay colour at 0.6: the
 * shader blends in floats and the framebuffer rounds to 8 bits once. */
static void
assert_blend (guint32 shown, guint32 under, guint32 over, const char *what)
{
  for (guint c = 0; c < 3; c++)
    {
      double expected = ((under >> (8 * c)) & 0xff) * 0.4 + ((over >> (8 * c)) & 0xff) * 0.6;
      int got = (shown >> (8 * c)) & 0xff;

      if (fabs (got - expected) > 2.0)
        g_error ("%s: channel %u is %d on screen, %.1f expected (%06x over %06x)", what, c, got,
                 expected, over, under & 0xffffff);
    }
}

static gboolean
is_idle_color (guint32 rgb)
{
  return abs ((int) (rgb & 0xff) - 80) < 6 && abs ((int) ((rgb >> 8) & 0xff) - 120) < 6
         && abs ((int) ((rgb >> 16) & 0xff) - 160) < 6;
}

/* Each overlay draws the engine's ownership at known pixels: a grid of 5×4
 * blocks of 16×16 covers 80×64 of the 200×150 image; one of 15×12 blocks
 * reaches 240×192, past the image's edges. */
static void
test_view_overlays (ViewFixture *f, gconstpointer data)
{
  static const guint points[][2] = { { 20, 5 }, { 37, 40 }, { 70, 60 }, { 150, 100 }, { 5, 100 } };
  g_autoptr (KsImage) shown = NULL;
  g_autofree guint8 *plain = NULL;
  const KsRunResult *result;
  const KsCoverage *cov;
  double zoom, scale;
  int w, h;

  if (ks_ui_test_skip_without_display ())
    return;

  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  g_assert_false (ks_pipeline_get_instrumented (f->pipeline));
  /* What is under the overlay: the result over the checkerboard (the random
   * input has random alpha), without the hatch of unwritten pixels. */
  ks_image_view_set_show_coverage (f->view, FALSE);
  run_instrumented_plain (f, 5, 4);
  plain = screenshot_widget (GTK_WIDGET (f->view), &w, &h, NULL);

  ks_image_view_set_overlay (f->view, KS_OVERLAY_BLOCK);
  g_assert_true (ks_pipeline_get_instrumented (f->pipeline));
  g_assert_cmpfloat (ks_image_view_get_overlay_opacity (f->view), ==, 0.6);
  run_instrumented (f, 5, 4);
  result = ks_pipeline_get_result (f->pipeline);
  cov = ks_pipeline_get_coverage (f->pipeline);
  g_assert_nonnull (cov);
  g_assert_cmpuint (cov->unwritten_pixels, ==, 200 * 150 - 80 * 64);
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (f->view));
  zoom = ks_image_view_get_zoom (f->view) / scale;

  for (KsOverlayMode mode = KS_OVERLAY_BLOCK; mode <= KS_OVERLAY_COVERAGE; mode++)
    {
      g_autofree guint8 *pixels = NULL;
      g_autofree char *png = g_strdup_printf ("test-image-view-overlay-%s.png",
                                              ks_overlay_mode_to_string (mode));

      ks_image_view_set_overlay (f->view, mode);
      ks_ui_test_iterate_for (100);
      g_assert_true (ks_pipeline_is_idle (f->pipeline));
      pixels = screenshot_widget (GTK_WIDGET (f->view), &w, &h, png);
      for (guint i = 0; i < G_N_ELEMENTS (points); i++)
        {
          guint x = points[i][0], y = points[i][1];
          g_autofree char *what = g_strdup_printf ("%s overlay at (%u, %u)",
                                                   ks_overlay_mode_to_string (mode), x, y);

          assert_blend (shown_at (pixels, w, h, zoom, 100, 75, x, y),
                        shown_at (plain, w, h, zoom, 100, 75, x, y),
                        ks_overlay_color (cov, &result->launch, mode, x, y), what);
        }
    }

  /* Off: the result again, exactly. */
  ks_image_view_set_overlay (f->view, KS_OVERLAY_NONE);
  g_assert_false (ks_pipeline_get_instrumented (f->pipeline));
  g_clear_pointer (&shown, ks_image_unref);
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);

  /* The oversized grid: its threads beyond the image are drawn, and fit
   * keeps them in view (the frame is 240×192 now, centred on (120, 96)). */
  ks_image_view_set_overlay (f->view, KS_OVERLAY_COVERAGE);
  run_instrumented (f, 15, 12);
  cov = ks_pipeline_get_coverage (f->pipeline);
  g_assert_cmpuint (cov->unwritten_pixels, ==, 0);
  g_assert_cmpuint (cov->idle_threads, ==, 240 * 192 - 200 * 150);
  zoom = ks_image_view_get_zoom (f->view) / scale;
  g_assert_cmpfloat (fabs (zoom - MIN (400.0 / 240, 300.0 / 192)), <, 0.02);
  {
    g_autofree guint8 *pixels = screenshot_widget (GTK_WIDGET (f->view), &w, &h,
                                                   "test-image-view-overlay-oversized.png");
    guint idle = 0, n = 0;

    guint32 shown_once = shown_at (pixels, w, h, zoom, 120, 96, 100, 70);

    /* Written once: tinted green (what is under it differs at this zoom). */
    g_assert_cmpuint ((shown_once >> 8) & 0xff, >, shown_once & 0xff);
    /* Right of the image and below it: striped in the idle colour, about
     * half of it (the stripes), never elsewhere. */
    for (guint y = 10; y < 140; y += 3)
      for (guint x = 205; x < 238; x += 3, n++)
        idle += is_idle_color (shown_at (pixels, w, h, zoom, 120, 96, x, y));
    g_assert_cmpfloat ((double) idle / n, >, 0.3);
    idle = n = 0;
    for (guint y = 155; y < 190; y += 3)
      for (guint x = 10; x < 190; x += 5, n++)
        idle += is_idle_color (shown_at (pixels, w, h, zoom, 120, 96, x, y));
    g_assert_cmpfloat ((double) idle / n, >, 0.3);
    idle = n = 0;
    for (guint y = 10; y < 140; y += 5)
      for (guint x = 10; x < 190; x += 5, n++)
        idle += is_idle_color (shown_at (pixels, w, h, zoom, 120, 96, x, y));
    g_assert_cmpuint (idle, ==, 0);
  }
}

/* Over the launch's extent beyond the image the view reports the point. */
static void
test_view_hover_outside (ViewFixture *f, gconstpointer data)
{
  GtkEventController *motion;
  guint64 ox, oy;
  double zoom;

  if (ks_ui_test_skip_without_display ())
    return;

  ks_image_view_set_overlay (f->view, KS_OVERLAY_COVERAGE);
  run_instrumented (f, 15, 12);
  motion = ks_ui_test_find_controller (GTK_WIDGET (f->view), GTK_TYPE_EVENT_CONTROLLER_MOTION);
  zoom = ks_image_view_get_zoom (f->view) / gtk_widget_get_scale_factor (GTK_WIDGET (f->view));
  /* Image point (220.5, 30.5): beyond the right edge, inside the extent. */
  g_signal_emit_by_name (motion, "motion",
                         gtk_widget_get_width (GTK_WIDGET (f->view)) / 2.0 + (220.5 - 120) * zoom,
                         gtk_widget_get_height (GTK_WIDGET (f->view)) / 2.0 + (30.5 - 96) * zoom);
  g_assert_false (ks_image_view_get_hover (f->view, NULL, NULL));
  g_assert_true (ks_image_view_get_hover_outside (f->view, &ox, &oy));
  g_assert_cmpuint (ox, ==, 220);
  g_assert_cmpuint (oy, ==, 30);
  /* Without an overlay there is nothing beyond the image to name. */
  ks_image_view_set_overlay (f->view, KS_OVERLAY_NONE);
  g_assert_false (ks_image_view_get_hover_outside (f->view, &ox, &oy));
}

static void
count_cb (gpointer object, guint *count)
{
  (*count)++;
}

/* The pointer names the image pixel under it, and the wheel zooms around
 * that pixel (events delivered straight to the view's controllers: Xvfb has
 * no pointer to move). */
static void
test_view_hover_and_wheel (ViewFixture *f, gconstpointer data)
{
  g_autoptr (KsImage) shown = NULL;
  GtkEventController *motion, *scroll;
  guint changes = 0, hx, hy, hx2, hy2;
  gboolean handled = FALSE;
  double zoom;

  if (ks_ui_test_skip_without_display ())
    return;

  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
  motion = ks_ui_test_find_controller (GTK_WIDGET (f->view), GTK_TYPE_EVENT_CONTROLLER_MOTION);
  scroll = ks_ui_test_find_controller (GTK_WIDGET (f->view), GTK_TYPE_EVENT_CONTROLLER_SCROLL);
  g_assert_nonnull (motion);
  g_assert_nonnull (scroll);
  g_signal_connect (f->view, "hover-changed", G_CALLBACK (count_cb), &changes);

  /* Fit: the 200×150 image fills the 400×300 view at 2×. */
  zoom = ks_image_view_get_zoom (f->view) / gtk_widget_get_scale_factor (GTK_WIDGET (f->view));
  g_signal_emit_by_name (motion, "motion", gtk_widget_get_width (GTK_WIDGET (f->view)) / 2.0 + 0.5,
                         gtk_widget_get_height (GTK_WIDGET (f->view)) / 2.0 + 0.5);
  g_assert_true (ks_image_view_get_hover (f->view, &hx, &hy));
  g_assert_cmpuint (hx, ==, 100);
  g_assert_cmpuint (hy, ==, 75);
  g_assert_cmpuint (changes, ==, 1);

  /* 7 image pixels right and 3 down. */
  g_signal_emit_by_name (motion, "motion", gtk_widget_get_width (GTK_WIDGET (f->view)) / 2.0
                                           + 7.5 * zoom,
                         gtk_widget_get_height (GTK_WIDGET (f->view)) / 2.0 + 3.5 * zoom);
  g_assert_true (ks_image_view_get_hover (f->view, &hx, &hy));
  g_assert_cmpuint (hx, ==, 107);
  g_assert_cmpuint (hy, ==, 78);
  g_assert_cmpuint (changes, ==, 2);

  /* Wheel up: zoom in around the pointer, which stays on the same pixel. */
  g_signal_emit_by_name (scroll, "scroll", 0.0, -1.0, &handled);
  g_assert_true (handled);
  g_assert_false (ks_image_view_get_fit (f->view));
  g_assert_cmpfloat (ks_image_view_get_zoom (f->view), >, zoom);
  g_assert_true (ks_image_view_get_hover (f->view, &hx2, &hy2));
  g_assert_cmpuint (hx2, ==, hx);
  g_assert_cmpuint (hy2, ==, hy);

  g_signal_emit_by_name (motion, "leave");
  g_assert_false (ks_image_view_get_hover (f->view, NULL, NULL));
  g_assert_cmpuint (changes, ==, 3);
}

static void
test_view_survives_rerealize (ViewFixture *f, gconstpointer data)
{
  g_autoptr (KsImage) shown = NULL;

  if (ks_ui_test_skip_without_display ())
    return;

  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);

  /* Removing and re-adding the widget brings a new GL context. */
  g_object_ref (f->view);
  gtk_window_set_child (GTK_WINDOW (f->window), NULL);
  ks_ui_test_iterate_for (20);
  g_assert_false (gtk_widget_get_realized (GTK_WIDGET (f->view)));
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->view));
  g_object_unref (f->view);
  g_clear_pointer (&shown, ks_image_unref);
  shown = wait_for_output (f, NULL);
  g_assert_nonnull (shown);
}

/* Frames per second are frames presented: while results keep coming the
 * rate shows, and once they stop it goes back to none. */
static void
test_view_counts_presented_frames (ViewFixture *f, gconstpointer data)
{
  double fps_while_running = 0;

  if (ks_ui_test_skip_without_display ())
    return;

  ks_pipeline_set_op (f->pipeline, ks_op_registry_lookup ("brightness_contrast"));
  for (guint i = 1; i <= 20; i++)
    {
      g_autoptr (KsImage) shown = NULL;

      ks_pipeline_set_param (f->pipeline, 0, i);
      shown = wait_for_output (f, NULL);
      g_assert_nonnull (shown);
      fps_while_running = MAX (fps_while_running, ks_pipeline_get_fps (f->pipeline));
    }
  g_test_message ("frames per second while results came: %.1f", fps_while_running);
  g_assert_cmpfloat (fps_while_running, >, 0);

  /* No new result: no frames produced, no rate (a safety cap, not a timing). */
  KS_UI_TEST_WAIT_FOR (ks_pipeline_get_fps (f->pipeline) == 0, KS_UI_TEST_PATIENCE_S);
  g_assert_cmpfloat (ks_pipeline_get_fps (f->pipeline), ==, 0);
}

static void
test_histogram_stats (void)
{
  g_autofree guint32 *bins = g_new0 (guint32, 4 * 256);
  double mean;
  guint median, min, max;

  g_assert_false (ks_histogram_stats (bins, 0, &mean, &median, &min, &max));

  /* Red: 10 at 10, 30 at 20, 60 at 200. */
  bins[10] = 10;
  bins[20] = 30;
  bins[200] = 60;
  g_assert_true (ks_histogram_stats (bins, 0, &mean, &median, &min, &max));
  g_assert_cmpfloat_with_epsilon (mean, (10 * 10 + 20 * 30 + 200 * 60) / 100.0, 1e-9);
  g_assert_cmpuint (median, ==, 200);
  g_assert_cmpuint (min, ==, 10);
  g_assert_cmpuint (max, ==, 200);

  /* Luma: one value. */
  bins[3 * 256 + 77] = 5;
  g_assert_true (ks_histogram_stats (bins, 3, &mean, &median, &min, &max));
  g_assert_cmpfloat (mean, ==, 77);
  g_assert_cmpuint (median, ==, 77);
  g_assert_cmpuint (min, ==, 77);
  g_assert_cmpuint (max, ==, 77);

  /* Even split: the lower median. */
  bins[256 + 1] = 2;
  bins[256 + 3] = 2;
  g_assert_true (ks_histogram_stats (bins, 1, &mean, &median, &min, &max));
  g_assert_cmpfloat (mean, ==, 2);
  g_assert_cmpuint (median, ==, 1);
}

static void
notify_count_cb (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

static void
test_histogram_view (void)
{
  g_autofree guint32 *bins = g_new0 (guint32, 4 * 256);
  GtkWidget *window, *view;
  g_autofree guint8 *pixels = NULL;
  guint notifies = 0;
  int w, h;

  if (ks_ui_test_skip_without_display ())
    return;

  for (guint c = 0; c < 4; c++)
    for (guint v = 0; v < 256; v++)
      bins[c * 256 + v] = (v * (c + 1) * 37) % 1000;

  window = gtk_window_new ();
  view = ks_histogram_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_set_default_size (GTK_WINDOW (window), 300, 140);
  g_signal_connect (view, "notify::log-scale", G_CALLBACK (notify_count_cb), &notifies);
  g_signal_connect (view, "notify::channels", G_CALLBACK (notify_count_cb), &notifies);

  g_assert_null (ks_histogram_view_get_bins (KS_HISTOGRAM_VIEW (view)));
  ks_histogram_view_set_bins (KS_HISTOGRAM_VIEW (view), bins);
  bins[5] = 123456;   /* the view keeps its own copy */
  g_assert_cmpuint (ks_histogram_view_get_bins (KS_HISTOGRAM_VIEW (view))[5], ==, 185);
  g_assert_cmpint (ks_histogram_view_get_hover_bin (KS_HISTOGRAM_VIEW (view)), ==, -1);

  ks_histogram_view_set_log_scale (KS_HISTOGRAM_VIEW (view), TRUE);
  ks_histogram_view_set_log_scale (KS_HISTOGRAM_VIEW (view), TRUE);
  ks_histogram_view_set_channels (KS_HISTOGRAM_VIEW (view), KS_HISTOGRAM_RED | KS_HISTOGRAM_LUMA);
  g_assert_cmpuint (notifies, ==, 2);
  g_assert_true (ks_histogram_view_get_log_scale (KS_HISTOGRAM_VIEW (view)));
  g_assert_cmpuint (ks_histogram_view_get_channels (KS_HISTOGRAM_VIEW (view)), ==,
                    KS_HISTOGRAM_RED | KS_HISTOGRAM_LUMA);

  gtk_window_present (GTK_WINDOW (window));
  ks_ui_test_iterate_for (200);
  pixels = screenshot_widget (view, &w, &h, "test-histogram-view.png");
  /* Something red was drawn: the red curve. */
  {
    guint64 red = 0;

    for (gsize i = 0; i < (gsize) w * h; i++)
      red += pixels[4 * i + 2] > 150 && pixels[4 * i + 1] < 100 && pixels[4 * i + 0] < 100;
    g_assert_cmpuint (red, >, 50);
  }

  ks_histogram_view_set_bins (KS_HISTOGRAM_VIEW (view), NULL);
  g_assert_null (ks_histogram_view_get_bins (KS_HISTOGRAM_VIEW (view)));
  ks_ui_test_iterate_for (50);
  gtk_window_destroy (GTK_WINDOW (window));
  ks_ui_test_iterate_for (10);
}

static void
test_timing_chart (void)
{
  g_autoptr (GArray) samples = g_array_new (FALSE, TRUE, sizeof (KsTimingSample));
  GtkWidget *window, *chart;
  g_autofree guint8 *pixels = NULL;
  int w, h;

  if (ks_ui_test_skip_without_display ())
    return;

  for (guint i = 0; i < 60; i++)
    {
      KsTimingSample s = { 0 };

      s.time_us = i * 16000;
      s.kernel_ms = i == 0 ? 4.0 : 0.5 + 0.1 * (i % 5);
      s.display_ms = i % 7 == 0 ? -1 : 0.3;
      s.warmup = i == 0;
      g_array_append_val (samples, s);
    }

  window = gtk_window_new ();
  chart = ks_timing_chart_new ();
  gtk_window_set_child (GTK_WINDOW (window), chart);
  gtk_window_set_default_size (GTK_WINDOW (window), 420, 160);
  gtk_window_present (GTK_WINDOW (window));
  ks_ui_test_iterate_for (100);
  /* Empty first, then the samples (G_DEBUG=fatal-warnings catches any warning). */
  ks_timing_chart_set_samples (KS_TIMING_CHART (chart), samples);
  g_array_set_size (samples, 0);
  ks_ui_test_iterate_for (200);
  pixels = screenshot_widget (chart, &w, &h, "test-timing-chart.png");
  /* The kernel series is blue, the warm-up dot orange. */
  {
    guint64 blue = 0, orange = 0;

    for (gsize i = 0; i < (gsize) w * h; i++)
      {
        const guint8 *p = pixels + 4 * i;

        blue += p[0] > 180 && p[1] > 100 && p[1] < 160 && p[2] < 90;
        orange += p[2] > 220 && p[1] > 80 && p[1] < 150 && p[0] < 60;
      }
    g_assert_cmpuint (blue, >, 50);
    g_assert_cmpuint (orange, >, 5);
  }

  ks_timing_chart_set_samples (KS_TIMING_CHART (chart), NULL);
  ks_ui_test_iterate_for (50);
  gtk_window_destroy (GTK_WINDOW (window));
  ks_ui_test_iterate_for (10);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* GTK's own style: the colours the pixel checks look for are chosen against it. */
  ks_ui_test_init_display (KS_UI_TEST_GTK);

  g_test_add ("/ks/ui/image-view/shows-engine-output", ViewFixture, NULL, view_fixture_setup,
              test_view_shows_engine_output, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/hatches-unwritten-pixels", ViewFixture, NULL,
              view_fixture_setup, test_view_hatches_unwritten_pixels, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/buffer-texture", ViewFixture, NULL, view_fixture_setup,
              test_view_buffer_texture, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/zoom-and-split", ViewFixture, NULL, view_fixture_setup,
              test_view_zoom_and_hover, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/hover-and-wheel", ViewFixture, NULL, view_fixture_setup,
              test_view_hover_and_wheel, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/new-context-on-realize", ViewFixture, NULL, view_fixture_setup,
              test_view_survives_rerealize, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/counts-presented-frames", ViewFixture, NULL,
              view_fixture_setup, test_view_counts_presented_frames, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/overlays", ViewFixture, NULL, view_fixture_setup,
              test_view_overlays, view_fixture_teardown);
  g_test_add ("/ks/ui/image-view/hover-outside", ViewFixture, NULL, view_fixture_setup,
              test_view_hover_outside, view_fixture_teardown);
  g_test_add_func ("/ks/ui/histogram-view/stats", test_histogram_stats);
  g_test_add_func ("/ks/ui/histogram-view/draws", test_histogram_view);
  g_test_add_func ("/ks/ui/timing-chart/draws", test_timing_chart);

  return g_test_run ();
}
