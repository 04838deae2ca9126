/* test-image.c: host images and image files — every PNG flavour normalised to
 * RGBA8, vector images rendered under a budget, and corrupt, truncated, absurd
 * and missing files refused cleanly. */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <gdk-pixbuf/gdk-pixbuf.h>

#include "ks-test-helpers.h"

#define PX(r, g, b, a) \
  ((guint32) (r) | (guint32) (g) << 8 | (guint32) (b) << 16 | (guint32) (a) << 24)

static void
test_new_bad_sizes (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) ok = NULL;

  g_assert_null (ks_image_new (KS_FORMAT_RGBA8, 0, 10, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ks_image_new (KS_FORMAT_RGBA8, 10, 0, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ks_image_new (KS_FORMAT_RGBA8, KS_IMAGE_MAX_SIDE + 1, 1, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  g_clear_error (&error);
  g_assert_null (ks_image_new (KS_FORMAT_GRAY8, 1, KS_IMAGE_MAX_SIDE + 1, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  g_clear_error (&error);

  ok = ks_image_new (KS_FORMAT_GRAY8, KS_IMAGE_MAX_SIDE, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ok->width, ==, 16384);
}

static void
test_layout (void)
{
  g_autoptr (KsImage) rgba = ks_test_image_new (KS_FORMAT_RGBA8, 37, 23);
  g_autoptr (KsImage) gray = ks_test_image_new (KS_FORMAT_GRAY8, 37, 23);
  guint8 *p;

  g_assert_cmpuint (ks_format_bytes_per_pixel (KS_FORMAT_RGBA8), ==, 4);
  g_assert_cmpuint (ks_format_bytes_per_pixel (KS_FORMAT_GRAY8), ==, 1);
  g_assert_cmpuint (rgba->stride, >=, 37 * 4);
  g_assert_cmpuint (gray->stride, >=, 37);

  /* Packed pixels have R in the low byte: memory order R, G, B, A. */
  ks_image_fill (rgba, 0);
  ks_image_set_rgba (rgba, 36, 22, PX (1, 2, 3, 4));
  p = ks_image_row (rgba, 22) + 36 * 4;
  g_assert_cmpuint (p[0], ==, 1);
  g_assert_cmpuint (p[1], ==, 2);
  g_assert_cmpuint (p[2], ==, 3);
  g_assert_cmpuint (p[3], ==, 4);
  g_assert_cmpuint (ks_image_get_rgba (rgba, 36, 22), ==, PX (1, 2, 3, 4));
  g_assert_cmpuint (ks_image_get_rgba (rgba, 35, 22), ==, 0);

  /* A gray pixel reads back as an opaque gray RGBA pixel. */
  ks_image_fill (gray, 0);
  ks_image_set_rgba (gray, 5, 6, PX (77, 0, 0, 0));
  g_assert_cmpuint (ks_image_row (gray, 6)[5], ==, 77);
  g_assert_cmpuint (ks_image_get_rgba (gray, 5, 6), ==, PX (77, 77, 77, 255));
}

static void
test_copy_equal_ref (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 33, 17, 7);
  g_autoptr (KsImage) b = ks_image_copy (a);
  g_autoptr (KsImage) c = ks_test_random_image (KS_FORMAT_RGBA8, 33, 17, 7);
  g_autoptr (KsImage) d = ks_test_random_image (KS_FORMAT_RGBA8, 33, 17, 8);
  KsImage *ref;

  g_assert_true (a != b);
  g_assert_true (ks_image_equal (a, b));
  /* fill_random is deterministic for a seed, and seeds differ. */
  g_assert_true (ks_image_equal (a, c));
  g_assert_false (ks_image_equal (a, d));
  ks_image_set_rgba (b, 32, 16, ks_image_get_rgba (b, 32, 16) ^ 1);
  g_assert_false (ks_image_equal (a, b));

  ref = ks_image_ref (a);
  g_assert_true (ref == a);
  ks_image_unref (ref);
}

static void
test_to_rgba (void)
{
  g_autoptr (KsImage) gray = ks_test_image_new (KS_FORMAT_GRAY8, 256, 1);
  g_autoptr (KsImage) rgba = NULL;

  for (guint x = 0; x < 256; x++)
    ks_image_row (gray, 0)[x] = x;
  rgba = ks_image_to_rgba (gray);
  g_assert_cmpuint (rgba->format, ==, KS_FORMAT_RGBA8);
  for (guint x = 0; x < 256; x++)
    g_assert_cmpuint (ks_image_get_rgba (rgba, x, 0), ==, PX (x, x, x, 255));
}

static void
test_test_card (void)
{
  static const guint sizes[][2] = { { 1, 1 }, { 37, 23 }, { 640, 480 } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsImage) card = ks_image_new_test_card (sizes[i][0], sizes[i][1], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (card->width, ==, sizes[i][0]);
      g_assert_cmpuint (card->height, ==, sizes[i][1]);
      for (guint y = 0; y < card->height; y++)
        for (guint x = 0; x < card->width; x++)
          g_assert_cmpuint (ks_image_get_rgba (card, x, y) >> 24, ==, 255);
    }
}

/* Loads tests/data/NAME and compares with the expected RGBA8 pixels, row-major. */
static void
assert_loads_as (const char *name, guint width, guint height, const guint32 *expected)
{
  g_autofree char *path = ks_test_data_path (name);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (image);
  g_assert_cmpuint (image->format, ==, KS_FORMAT_RGBA8);
  g_assert_cmpuint (image->width, ==, width);
  g_assert_cmpuint (image->height, ==, height);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        guint32 got = ks_image_get_rgba (image, x, y);
        if (got != expected[y * width + x])
          g_error ("%s: pixel (%u, %u) is 0x%08x, expected 0x%08x", name, x, y, got,
                   expected[y * width + x]);
      }
}

static void
test_load_gray8 (void)
{
  const guint32 e[] = { PX (0, 0, 0, 255), PX (1, 1, 1, 255), PX (127, 127, 127, 255),
                        PX (128, 128, 128, 255), PX (200, 200, 200, 255), PX (254, 254, 254, 255),
                        PX (255, 255, 255, 255), PX (37, 37, 37, 255) };
  assert_loads_as ("gray8.png", 4, 2, e);
}

static void
test_load_gray1 (void)
{
  const guint32 w = PX (255, 255, 255, 255), k = PX (0, 0, 0, 255);
  const guint32 e[] = { k, w, k, w, w, k, k, w };
  assert_loads_as ("gray1.png", 8, 1, e);
}

static void
test_load_gray16 (void)
{
  const guint32 e[] = { PX (0, 0, 0, 255), PX (77, 77, 77, 255), PX (255, 255, 255, 255) };
  assert_loads_as ("gray16.png", 3, 1, e);
}

static void
test_load_gray_alpha (void)
{
  const guint32 e[] = { PX (10, 10, 10, 255), PX (200, 200, 200, 0) };
  assert_loads_as ("graya8.png", 2, 1, e);
}

static void
test_load_rgb8 (void)
{
  const guint32 e[] = { PX (255, 0, 0, 255), PX (0, 255, 0, 255), PX (0, 0, 255, 255),
                        PX (1, 2, 3, 255), PX (100, 150, 200, 255), PX (255, 255, 255, 255) };
  assert_loads_as ("rgb8.png", 3, 2, e);
}

static void
test_load_rgb16 (void)
{
  const guint32 e[] = { PX (10, 20, 30, 255), PX (250, 128, 1, 255) };
  assert_loads_as ("rgb16.png", 2, 1, e);
}

static void
test_load_rgba8 (void)
{
  const guint32 e[] = { PX (1, 2, 3, 4), PX (250, 251, 252, 253), PX (0, 0, 0, 0),
                        PX (255, 255, 255, 255) };
  assert_loads_as ("rgba8.png", 2, 2, e);
}

static void
test_load_palette (void)
{
  /* Palette entries 3, 2, 1, 0; entry 3 is half transparent (tRNS). */
  const guint32 e[] = { PX (10, 20, 30, 128), PX (0, 0, 255, 255), PX (0, 255, 0, 255),
                        PX (255, 0, 0, 255) };
  const guint32 e2[] = { PX (255, 0, 0, 255), PX (0, 255, 0, 255), PX (0, 0, 255, 255),
                         PX (10, 20, 30, 255) };
  assert_loads_as ("palette.png", 4, 1, e);
  assert_loads_as ("palette2.png", 4, 1, e2);
}

static void
test_load_bytes (void)
{
  g_autofree char *path = ks_test_data_path ("rgb8.png");
  g_autofree char *contents = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) a = NULL;
  g_autoptr (KsImage) b = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, &error));
  bytes = g_bytes_new (contents, len);
  a = ks_image_load_bytes (bytes, &error);
  g_assert_no_error (error);
  b = ks_image_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (ks_image_equal (a, b));
}

static void
test_load_missing (void)
{
  g_autofree char *path = ks_test_data_path ("no-such-image.png");
  g_autoptr (GError) error = NULL;

  g_assert_null (ks_image_load (path, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  ks_test_assert_message_has (error, "no-such-image.png", NULL);
}

static char *
write_temp (const char *name, const guint8 *data, gsize len)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-test-image-XXXXXX", &error);
  char *path;

  g_assert_no_error (error);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, (const char *) data, len, &error));
  g_assert_no_error (error);
  return path;
}

static void
remove_temp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_remove (path);
  g_rmdir (dir);
}

static void
test_load_corrupt (void)
{
  guint8 junk[4096];
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (1234);

  for (gsize i = 0; i < sizeof junk; i++)
    junk[i] = g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  path = write_temp ("random.png", junk, sizeof junk);
  g_assert_null (ks_image_load (path, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  ks_test_assert_message_has (error, "random.png", NULL);
  remove_temp (path);
}

static void
test_load_empty (void)
{
  g_autofree char *path = write_temp ("empty.png", (const guint8 *) "", 0);
  g_autoptr (GError) error = NULL;

  g_assert_null (ks_image_load (path, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  remove_temp (path);
}

static void
test_load_truncated (void)
{
  g_autoptr (KsImage) noise = ks_test_random_image (KS_FORMAT_RGBA8, 64, 64, 99);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-test-image-XXXXXX", &error);
  g_autofree char *full = g_build_filename (dir, "full.png", NULL);
  g_autofree char *half = g_build_filename (dir, "half.png", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (KsImage) back = NULL;
  gsize len;

  g_assert_no_error (error);
  g_assert_true (ks_image_save (noise, full, &error));
  g_assert_no_error (error);
  back = ks_image_load (full, &error);
  g_assert_no_error (error);
  g_assert_true (ks_image_equal (noise, back));

  g_assert_true (g_file_get_contents (full, &contents, &len, &error));
  g_assert_cmpuint (len, >, 10000); /* noise does not compress */
  g_assert_true (g_file_set_contents (half, contents, len / 2, &error));
  g_assert_null (ks_image_load (half, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  ks_test_assert_message_has (error, "half.png", NULL);

  g_remove (full);
  g_remove (half);
  g_rmdir (dir);
}

/* JPEG and BMP decoders recover from a file cut short (gray or black where
 * the data ended, no error): such files are refused by what their format
 * promises — the JPEG end-of-image marker, the BMP's row data. Padding after
 * a JPEG's end is fine. */
static void
test_load_truncated_lossy (void)
{
  g_autoptr (KsImage) noise = ks_test_random_image (KS_FORMAT_RGBA8, 96, 64, 7);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-test-image-XXXXXX", &error);
  const char *formats[] = { "jpg", "bmp" };

  g_assert_no_error (error);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autofree char *name = g_strdup_printf ("full.%s", formats[f]);
      g_autofree char *full = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      gsize len;
      const double keep[] = { 0.5, 0.9 };

      g_assert_true (ks_image_save (noise, full, &error));
      g_assert_no_error (error);
      {
        g_autoptr (KsImage) back = ks_image_load (full, &error);

        g_assert_no_error (error);
        g_assert_cmpuint (back->width, ==, 96);
      }
      g_assert_true (g_file_get_contents (full, &contents, &len, &error));
      for (guint k = 0; k <= G_N_ELEMENTS (keep); k++)
        {
          /* Half, 90 %, and all but the last two bytes (a JPEG's end marker). */
          gsize cut = k < G_N_ELEMENTS (keep) ? (gsize) (len * keep[k]) : len - 2;
          g_autofree char *cut_name = g_strdup_printf ("cut-%u.%s", k, formats[f]);
          g_autofree char *cut_path = g_build_filename (dir, cut_name, NULL);
          g_autoptr (KsImage) none = NULL;

          g_assert_true (g_file_set_contents (cut_path, contents, cut, &error));
          none = ks_image_load (cut_path, &error);
          if (none != NULL)
            g_error ("%s cut to %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes was accepted",
                     formats[f], cut, len);
          g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
          ks_test_assert_message_has (error, cut_name, "truncated", NULL);
          g_clear_error (&error);
          g_remove (cut_path);
        }
      if (f == 0)
        {
          /* Zeros after the end marker, as some writers leave. */
          g_autofree char *padded = g_build_filename (dir, "padded.jpg", NULL);
          g_autofree char *data = g_malloc0 (len + 100);
          g_autoptr (KsImage) back = NULL;

          memcpy (data, contents, len);
          g_assert_true (g_file_set_contents (padded, data, len + 100, &error));
          back = ks_image_load (padded, &error);
          g_assert_no_error (error);
          g_remove (padded);
        }
      g_remove (full);
    }
  g_rmdir (dir);
}

/* The same refusals through ks_image_load_bytes (paste, drag and drop). */
static gboolean
have_svg_loader (void)
{
  g_autoptr (GSList) formats = gdk_pixbuf_get_formats ();

  for (GSList *l = formats; l != NULL; l = l->next)
    if (gdk_pixbuf_format_is_scalable (l->data))
      return TRUE;
  return FALSE;
}

/* A vector image renders in the worker program: a plain SVG gives its
 * pixels; one whose filter would render for minutes is stopped at the time
 * budget with a message saying so; a damaged one is refused by name. */
static void
test_load_svg (void)
{
  static const char plain[] =
    "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='30'>"
    "<rect width='40' height='30' fill='#ff0000'/>"
    "<rect x='20' y='0' width='20' height='30' fill='#0000ff'/></svg>";
  static const char blur[] =
    "<svg xmlns='http://www.w3.org/2000/svg' width='8000' height='8000'>"
    "<filter id='f' x='-50%' y='-50%' width='200%' height='200%'>"
    "<feGaussianBlur stdDeviation='2000'/></filter><g filter='url(#f)'>"
    "<rect width='8000' height='8000' fill='red'/>"
    "<rect x='100' width='8000' height='8000' fill='blue' filter='url(#f)'/></g></svg>";
  static const char damaged[] = "<svg xmlns='http://www.w3.org/2000/svg' width='9' height='9'>"
                                "<rect width='9' height='9' fill='red'/><rect";
  g_autofree char *plain_path = NULL;
  g_autofree char *blur_path = NULL;
  g_autofree char *damaged_path = NULL;
  g_autoptr (KsImage) image = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) slow = NULL;
  g_autoptr (GError) bad = NULL;

  if (!have_svg_loader ())
    {
      g_test_skip ("gdk-pixbuf has no SVG loader here");
      return;
    }
  plain_path = write_temp ("plain.svg", (const guint8 *) plain, strlen (plain));
  image = ks_image_load (plain_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (image->width, ==, 40);
  g_assert_cmpuint (image->height, ==, 30);
  g_assert_cmphex (ks_image_get_rgba (image, 5, 15), ==, 0xff0000ff);
  g_assert_cmphex (ks_image_get_rgba (image, 35, 15), ==, 0xffff0000);
  remove_temp (plain_path);

  blur_path = write_temp ("blur.svg", (const guint8 *) blur, strlen (blur));
  g_assert_null (ks_image_load (blur_path, &slow));
  /* Stopped by its time budget (the renderer's SIGXCPU or SIGALRM): the
   * error says so, and not the memory budget's or a renderer's failure. The
   * time it took is not asserted; the suite's timeout guards against a hang. */
  g_assert_error (slow, KS_ERROR, KS_ERROR_TOO_LARGE);
  ks_test_assert_message_has (slow, "blur.svg", "takes more than 10 s to render", NULL);
  remove_temp (blur_path);

  damaged_path = write_temp ("damaged.svg", (const guint8 *) damaged, strlen (damaged));
  g_assert_null (ks_image_load (damaged_path, &bad));
  g_assert_error (bad, KS_ERROR, KS_ERROR_IMAGE);
  ks_test_assert_message_has (bad, "damaged.svg", NULL);
  remove_temp (damaged_path);
}

static void
test_load_bytes_bad (void)
{
  g_autoptr (KsImage) noise = ks_test_random_image (KS_FORMAT_RGBA8, 64, 64, 99);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-test-image-XXXXXX", &error);
  g_autofree char *full = g_build_filename (dir, "full.png", NULL);
  g_autofree char *absurd_path = ks_test_data_path ("absurd.png");
  g_autofree char *contents = NULL;
  g_autofree char *absurd = NULL;
  g_autoptr (GBytes) half = NULL;
  g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr (GBytes) junk = g_bytes_new_static ("\x89PNG\r\n\x1a\nnot an image", 20);
  g_autoptr (GBytes) huge = NULL;
  gsize len, absurd_len;

  g_assert_no_error (error);
  g_assert_true (ks_image_save (noise, full, &error));
  g_assert_true (g_file_get_contents (full, &contents, &len, &error));
  g_assert_true (g_file_get_contents (absurd_path, &absurd, &absurd_len, &error));
  g_remove (full);
  g_rmdir (dir);

  g_assert_null (ks_image_load_bytes (empty, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  g_clear_error (&error);
  g_assert_null (ks_image_load_bytes (junk, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
  g_clear_error (&error);
  huge = g_bytes_new (absurd, absurd_len);
  g_assert_null (ks_image_load_bytes (huge, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  g_clear_error (&error);
  half = g_bytes_new (contents, len / 2);
  g_assert_null (ks_image_load_bytes (half, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);
}

static void
test_load_absurd (void)
{
  g_autofree char *path = ks_test_data_path ("absurd.png");
  g_autoptr (GError) error = NULL;

  /* The header claims 100000×100000 (30 GB of RGB): refused from the header,
   * whose check is the one that words it so (an image allocated first would
   * be refused as one too large to allocate), and not timed. */
  g_assert_null (ks_image_load (path, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  ks_test_assert_message_has (error, "is 100000×100000 pixels",
                              "Kernelscope opens images up to 16384×16384", NULL);
}

static void
test_load_one_past_limit (void)
{
  g_autofree char *path = ks_test_data_path ("huge-side.png");
  g_autoptr (GError) error = NULL;

  g_assert_null (ks_image_load (path, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  ks_test_assert_message_has (error, "16385", NULL);
}

static void
test_save_round_trip (void)
{
  g_autoptr (KsImage) rgba = ks_test_random_image (KS_FORMAT_RGBA8, 37, 23, 5);
  g_autoptr (KsImage) gray = ks_test_random_image (KS_FORMAT_GRAY8, 37, 23, 6);
  g_autoptr (KsImage) gray_rgba = ks_image_to_rgba (gray);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-test-image-XXXXXX", &error);
  g_autofree char *p1 = g_build_filename (dir, "rgba.png", NULL);
  g_autofree char *p2 = g_build_filename (dir, "gray.png", NULL);
  g_autofree char *p3 = g_build_filename (dir, "nowhere", "x.png", NULL);
  g_autoptr (KsImage) back1 = NULL;
  g_autoptr (KsImage) back2 = NULL;

  g_assert_no_error (error);
  /* Every byte, alpha included, survives a PNG round trip. */
  g_assert_true (ks_image_save (rgba, p1, &error));
  g_assert_no_error (error);
  back1 = ks_image_load (p1, &error);
  g_assert_no_error (error);
  ks_test_assert_images_equal (rgba, back1, "rgba round trip");

  /* Gray is saved as opaque gray and reads back as (v, v, v, 255). */
  g_assert_true (ks_image_save (gray, p2, &error));
  g_assert_no_error (error);
  back2 = ks_image_load (p2, &error);
  g_assert_no_error (error);
  ks_test_assert_images_equal (gray_rgba, back2, "gray round trip");

  g_assert_false (ks_image_save (rgba, p3, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_IMAGE);

  g_remove (p1);
  g_remove (p2);
  g_rmdir (dir);
}

static void
test_compare (void)
{
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, 20, 10, 3);
  g_autoptr (KsImage) b = ks_image_copy (a);
  g_autoptr (KsImage) c = ks_test_random_image (KS_FORMAT_RGBA8, 10, 20, 3);
  g_autoptr (KsImage) diff_image = NULL;
  g_autoptr (GError) error = NULL;
  KsImageDiff diff;
  guint32 p;

  g_assert_true (ks_image_compare (a, b, &diff, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (diff.max_abs_diff, ==, 0);
  g_assert_cmpuint (diff.differing_pixels, ==, 0);
  g_assert_true (diff.psnr > 1000.0);

  /* One channel of one pixel off by 7. */
  p = ks_image_get_rgba (a, 4, 5) & ~0xffu;
  ks_image_set_rgba (a, 4, 5, p | 100);
  ks_image_set_rgba (b, 4, 5, p | 107);
  g_assert_true (ks_image_compare (a, b, &diff, &diff_image, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (diff.max_abs_diff, ==, 7);
  g_assert_cmpuint (diff.differing_pixels, ==, 1);
  g_assert_true (diff.psnr > 30.0 && diff.psnr < 1000.0);
  g_assert_nonnull (diff_image);

  g_assert_false (ks_image_compare (a, c, &diff, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
}

static void
test_load_sample_photo (void)
{
  g_autoptr (KsImage) photo = ks_test_load_sample ();

  g_assert_cmpuint (photo->width, ==, 512);
  g_assert_cmpuint (photo->height, ==, 512);
  g_assert_cmpuint (photo->format, ==, KS_FORMAT_RGBA8);
  for (guint y = 0; y < photo->height; y += 7)
    for (guint x = 0; x < photo->width; x += 5)
      g_assert_cmpuint (ks_image_get_rgba (photo, x, y) >> 24, ==, 255);
}

/* Runs a file-loading test in a child process: a decoder that crashes or warns
 * (fatal under G_DEBUG=fatal-warnings) fails that test alone, not the program. */
typedef struct
{
  void (*func) (void);
} Isolated;

static void
run_isolated (gconstpointer data)
{
  const Isolated *test = data;

  if (g_test_subprocess ())
    {
      test->func ();
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDOUT
                                                     | G_TEST_SUBPROCESS_INHERIT_STDERR);
  if (!g_test_trap_has_passed ())
    g_test_fail_printf ("the test failed in its child process (see its output above)");
}

#define ADD_ISOLATED(path, fn)                                                                  \
  G_STMT_START                                                                                  \
  {                                                                                             \
    static const Isolated fn##_isolated = { fn };                                               \
    g_test_add_data_func (path, &fn##_isolated, run_isolated);                                  \
  }                                                                                             \
  G_STMT_END

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ks/image/new/bad-sizes", test_new_bad_sizes);
  g_test_add_func ("/ks/image/layout", test_layout);
  g_test_add_func ("/ks/image/copy-equal-ref", test_copy_equal_ref);
  g_test_add_func ("/ks/image/to-rgba", test_to_rgba);
  g_test_add_func ("/ks/image/test-card", test_test_card);
  ADD_ISOLATED ("/ks/image/load/gray8", test_load_gray8);
  ADD_ISOLATED ("/ks/image/load/gray1", test_load_gray1);
  ADD_ISOLATED ("/ks/image/load/gray16", test_load_gray16);
  ADD_ISOLATED ("/ks/image/load/gray-alpha", test_load_gray_alpha);
  ADD_ISOLATED ("/ks/image/load/rgb8", test_load_rgb8);
  ADD_ISOLATED ("/ks/image/load/rgb16", test_load_rgb16);
  ADD_ISOLATED ("/ks/image/load/rgba8", test_load_rgba8);
  ADD_ISOLATED ("/ks/image/load/palette", test_load_palette);
  ADD_ISOLATED ("/ks/image/load/bytes", test_load_bytes);
  ADD_ISOLATED ("/ks/image/load/sample-photo", test_load_sample_photo);
  ADD_ISOLATED ("/ks/image/load/missing", test_load_missing);
  ADD_ISOLATED ("/ks/image/load/corrupt", test_load_corrupt);
  ADD_ISOLATED ("/ks/image/load/empty", test_load_empty);
  ADD_ISOLATED ("/ks/image/load/truncated", test_load_truncated);
  ADD_ISOLATED ("/ks/image/load/truncated-jpeg-bmp", test_load_truncated_lossy);
  ADD_ISOLATED ("/ks/image/load/absurd-dimensions", test_load_absurd);
  ADD_ISOLATED ("/ks/image/load/bytes-refusals", test_load_bytes_bad);
  ADD_ISOLATED ("/ks/image/load/one-past-limit", test_load_one_past_limit);
  ADD_ISOLATED ("/ks/image/load/svg-budget", test_load_svg);
  g_test_add_func ("/ks/image/save/round-trip", test_save_round_trip);
  g_test_add_func ("/ks/image/compare", test_compare);

  return g_test_run ();
}
