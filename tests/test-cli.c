/* test-cli.c: kernelscope-cli as a user runs it — exit codes 0 (done),
 * 1 (failed) and 2 (bad usage), one clear line on stderr for every bad input,
 * and outputs identical to the engine's. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static char *cli_path;
static char *tmp_dir;


static void
run_cli_v (KsTestProgramResult *r, const char *const *args)
{
  ks_test_run_program (r, cli_path, NULL, args);
}

static void
run_cli (KsTestProgramResult *r, const char *first, ...) G_GNUC_NULL_TERMINATED;

static void
run_cli (KsTestProgramResult *r, const char *first, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  va_list ap;

  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  run_cli_v (r, (const char *const *) args->pdata);
}

/* Exit status `status` and exactly one line on stderr, naming the program and
 * containing every needle. */
static void
assert_one_line_error (const KsTestProgramResult *r, int status, ...)
{
  const char *needle;
  const char *nl;
  va_list ap;

  g_assert_cmpint (r->status, ==, status);
  g_assert_true (g_str_has_prefix (r->err, "kernelscope-cli: "));
  nl = strchr (r->err, '\n');
  g_assert_nonnull (nl);
  g_assert_cmpstr (nl + 1, ==, "");
  va_start (ap, status);
  while ((needle = va_arg (ap, const char *)) != NULL)
    if (strstr (r->err, needle) == NULL)
      g_error ("stderr “%s” does not contain “%s”", r->err, needle);
  va_end (ap);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static char *
write_random_png (const char *name, guint w, guint h, guint32 seed)
{
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, w, h, seed);
  g_autoptr (GError) error = NULL;
  char *path = tmp_path (name);

  g_assert_true (ks_image_save (image, path, &error));
  g_assert_no_error (error);
  return path;
}

static KsImage *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  KsImage *image = ks_image_load (path, &error);

  g_assert_no_error (error);
  return image;
}

/* ---- usage errors (exit 2) ---------------------------------------------- */

static void
test_no_command (void)
{
  const char *const none[] = { NULL };
  g_auto (KsTestProgramResult) r;

  run_cli_v (&r, none);
  assert_one_line_error (&r, 2, "command", NULL);
}

static void
test_help (void)
{
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;

  run_cli (&r, "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "run"));
  g_assert_nonnull (strstr (r.out, "devices"));
  run_cli (&r2, "run", "--help", NULL);
  g_assert_cmpint (r2.status, ==, 0);
  g_assert_nonnull (strstr (r2.out, "--block"));

  /* help COMMAND, help help and --version, for the tool and each command. */
  {
    const char *commands[] = { "devices", "ops", "run", "compare", "bench", "bench-display",
                               "kernel", "bench-kernel", "bench-cpu", "sweep", "lesson" };
    g_auto (KsTestProgramResult) help_help = { 0 };
    g_auto (KsTestProgramResult) version = { 0 };

    run_cli (&help_help, "help", "help", NULL);
    g_assert_cmpint (help_help.status, ==, 0);
    g_assert_nonnull (strstr (help_help.out, "Commands:"));
    run_cli (&version, "--version", NULL);
    g_assert_cmpint (version.status, ==, 0);
    g_assert_true (g_str_has_prefix (version.out, "kernelscope-cli " PACKAGE_VERSION "\n"));
    for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
      {
        g_auto (KsTestProgramResult) help = { 0 };
        g_auto (KsTestProgramResult) own = { 0 };
        g_autofree char *usage = g_strdup_printf ("kernelscope-cli %s [OPTION", commands[i]);

        run_cli (&help, "help", commands[i], NULL);
        g_assert_cmpint (help.status, ==, 0);
        g_assert_nonnull (strstr (help.out, usage));
        g_assert_cmpstr (help.err, ==, "");
        run_cli (&own, commands[i], "--version", NULL);
        g_assert_cmpint (own.status, ==, 0);
        g_assert_cmpstr (own.out, ==, version.out);
      }
  }
}

static void
test_unknown_command (void)
{
  g_auto (KsTestProgramResult) r;

  run_cli (&r, "frobnicate", NULL);
  assert_one_line_error (&r, 2, "unknown command", "frobnicate", NULL);
}

static void
test_unknown_op (void)
{
  g_autofree char *in = write_random_png ("in.png", 8, 8, 1);
  g_autofree char *out = tmp_path ("out.png");
  g_auto (KsTestProgramResult) r;

  run_cli (&r, "run", "sharpen-xyz", "--in", in, "--out", out, "--engine", "cpu", NULL);
  assert_one_line_error (&r, 2, "unknown op", "sharpen-xyz", NULL);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

static void
test_unknown_parameter (void)
{
  g_autofree char *in = write_random_png ("in.png", 8, 8, 1);
  g_autofree char *out = tmp_path ("out.png");
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;
  g_auto (KsTestProgramResult) r3;

  run_cli (&r, "run", "gray", "--in", in, "--out", out, "--param", "strength=2", "--engine", "cpu",
           NULL);
  assert_one_line_error (&r, 2, "strength", NULL);
  /* Out of range and of the wrong type. */
  run_cli (&r2, "run", "blend", "--in", in, "--in", in, "--out", out, "--param", "weight_a=9",
           "--engine", "cpu", NULL);
  assert_one_line_error (&r2, 2, "weight_a", NULL);
  run_cli (&r3, "run", "gray", "--in", in, "--out", out, "--param", "truncate=sometimes",
           "--engine", "cpu", NULL);
  assert_one_line_error (&r3, 2, "sometimes", NULL);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

static void
test_wrong_inputs (void)
{
  g_autofree char *in = write_random_png ("in.png", 8, 8, 1);
  g_autofree char *out = tmp_path ("out.png");
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;
  g_auto (KsTestProgramResult) r3;

  run_cli (&r, "run", "add", "--in", in, "--out", out, "--engine", "cpu", NULL);
  assert_one_line_error (&r, 2, "add", "2", NULL);
  /* Without --out the run is only timed: nothing is written. */
  run_cli (&r2, "run", "invert", "--in", in, "--engine", "cpu", NULL);
  g_assert_cmpint (r2.status, ==, 0);
  g_assert_nonnull (strstr (r2.out, "result not written"));
  run_cli (&r3, "run", "invert", "--in", in, "--out", out, "--engine", "gpu9000", NULL);
  assert_one_line_error (&r3, 2, "gpu9000", NULL);
}

/* ---- failures (exit 1) -------------------------------------------------- */

static void
test_missing_input (void)
{
  g_autofree char *in = tmp_path ("does-not-exist.png");
  g_autofree char *out = tmp_path ("out.png");
  g_auto (KsTestProgramResult) r;

  run_cli (&r, "run", "invert", "--in", in, "--out", out, "--engine", "cpu", NULL);
  assert_one_line_error (&r, 1, "does-not-exist.png", NULL);
}

static void
test_corrupt_input (void)
{
  g_autofree char *in = tmp_path ("corrupt.png");
  g_autofree char *out = tmp_path ("out.png");
  g_autofree char *absurd = ks_test_data_path ("absurd.png");
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;

  g_assert_true (g_file_set_contents (in, "\x89PNG\r\n\x1a\nthis is not an image at all", -1,
                                      NULL));
  run_cli (&r, "run", "invert", "--in", in, "--out", out, "--engine", "cpu", NULL);
  assert_one_line_error (&r, 1, "corrupt.png", NULL);
  run_cli (&r2, "run", "invert", "--in", absurd, "--out", out, "--engine", "cpu", NULL);
  assert_one_line_error (&r2, 1, "100000", NULL);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* "gray:INPUT" is the input's luma as a GRAY8 image: Sobel of it equals Sobel
 * of the colour image (whose luma Sobel takes), and an op that needs colour
 * refuses it in one line. */
static void
test_gray_input (void)
{
  g_autofree char *in = write_random_png ("in.png", 37, 23, 7);
  g_autofree char *gray_in = g_strconcat ("gray:", in, NULL);
  g_autofree char *a = tmp_path ("sobel-colour.png");
  g_autofree char *b = tmp_path ("sobel-gray.png");
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;
  g_auto (KsTestProgramResult) r3;
  g_autoptr (KsImage) from_colour = NULL;
  g_autoptr (KsImage) from_gray = NULL;

  run_cli (&r, "run", "sobel", "--in", in, "--out", a, "--engine", "cpu", NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_cli (&r2, "run", "sobel", "--in", gray_in, "--out", b, "--engine", "cpu", NULL);
  g_assert_cmpint (r2.status, ==, 0);
  from_colour = load (a);
  from_gray = load (b);
  g_assert_true (ks_image_equal (from_colour, from_gray));

  run_cli (&r3, "run", "invert", "--in", gray_in, "--engine", "cpu", NULL);
  assert_one_line_error (&r3, 1, "Invert", "gray8", NULL);
  g_remove (a);
  g_remove (b);
}

static void
test_size_mismatch (void)
{
  g_autofree char *a = write_random_png ("a.png", 8, 8, 1);
  g_autofree char *b = write_random_png ("b.png", 9, 8, 2);
  g_autofree char *out = tmp_path ("out.png");
  g_auto (KsTestProgramResult) r;

  run_cli (&r, "run", "add", "--in", a, "--in", b, "--out", out, "--engine", "cpu", NULL);
  g_assert_cmpint (r.status, !=, 0);
  assert_one_line_error (&r, r.status, "8×8", "9×8", NULL);
}

/* "… (try: --block 32x32)" → the options to paste back. */
static char **
suggested_options (const char *message)
{
  const char *start = strstr (message, "(try: ");
  const char *end;
  g_autofree char *opts = NULL;

  g_assert_nonnull (start);
  start += strlen ("(try: ");
  end = strchr (start, ')');
  g_assert_nonnull (end);
  opts = g_strndup (start, end - start);
  return g_strsplit (opts, " ", -1);
}

static void
test_impossible_block (void)
{
  g_autofree char *in = write_random_png ("in.png", 200, 100, 1);
  g_autofree char *out = tmp_path ("out.png");
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;
  g_auto (GStrv) fix = NULL;
  g_auto (KsTestProgramResult) r3;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  /* The newcomer: 64×32 is refused with the 1024-thread limit named. */
  run_cli (&r, "run", "gray", "--in", in, "--out", out, "--block", "64x32", "--engine", "cpu",
           NULL);
  assert_one_line_error (&r, 1, "2048", "1024", "--block", NULL);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  /* The suggested options work. */
  fix = suggested_options (r.err);
  g_ptr_array_add (argv, (gpointer) "run");
  g_ptr_array_add (argv, (gpointer) "gray");
  g_ptr_array_add (argv, (gpointer) "--in");
  g_ptr_array_add (argv, in);
  g_ptr_array_add (argv, (gpointer) "--out");
  g_ptr_array_add (argv, out);
  g_ptr_array_add (argv, (gpointer) "--engine");
  g_ptr_array_add (argv, (gpointer) "cpu");
  for (guint i = 0; fix[i] != NULL; i++)
    g_ptr_array_add (argv, fix[i]);
  g_ptr_array_add (argv, NULL);
  run_cli_v (&r3, (const char *const *) argv->pdata);
  g_assert_cmpint (r3.status, ==, 0);
  g_assert_true (g_file_test (out, G_FILE_TEST_EXISTS));
  g_remove (out);

  /* Grid y beyond 65535. */
  run_cli (&r2, "run", "invert", "--in", in, "--out", out, "--block", "1x1", "--grid", "1x65536",
           "--engine", "cpu", NULL);
  assert_one_line_error (&r2, 1, "65535", NULL);
}

static void
test_engine_choice (void)
{
  g_autofree char *in = write_random_png ("in.png", 31, 17, 1);
  g_autofree char *out = tmp_path ("out.png");
  g_autoptr (GError) why = NULL;
  g_auto (KsTestProgramResult) r;

  run_cli (&r, "run", "invert", "--in", in, "--out", out, "--engine", "cuda", NULL);
  if (!ks_cuda_available (&why))
    {
      /* No GPU here: the reason, and nothing written. */
      assert_one_line_error (&r, 1, "CUDA", why->message, NULL);
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
  else
    {
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "CUDA"));
      g_remove (out);
    }
}

/* ---- successful runs (exit 0) -------------------------------------------- */

static void
test_run_matches_engine (void)
{
  static const char *engines[] = { "cpu", "cuda" };
  static const struct { const char *op; const char *param; } cases[] = {
    { "invert", NULL }, { "gray", NULL }, { "gray", "truncate=true" }, { "add", NULL },
    { "blend", NULL }, { "blend", "weight_a=0.25" },
  };
  g_autofree char *a_path = write_random_png ("a.png", 37, 23, g_test_rand_int ());
  g_autofree char *b_path = write_random_png ("b.png", 37, 23, g_test_rand_int ());
  g_autofree char *out = tmp_path ("result.png");
  g_autoptr (KsImage) a = load (a_path);
  g_autoptr (KsImage) b = load (b_path);
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();

  for (guint e = 0; e < G_N_ELEMENTS (engines); e++)
    {
      if (e == 1 && !ks_cuda_available (NULL))
        break;
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          g_autoptr (KsImage) expected = ks_test_run_simple (engine, cases[i].op, cases[i].param,
                                                             a, b);
          g_autoptr (KsImage) expected_rgba = ks_image_to_rgba (expected);
          g_autoptr (KsImage) got = NULL;
          g_autoptr (GPtrArray) args = g_ptr_array_new ();
          g_auto (KsTestProgramResult) r;

          g_ptr_array_add (args, (gpointer) "run");
          g_ptr_array_add (args, (gpointer) cases[i].op);
          g_ptr_array_add (args, (gpointer) "--in");
          g_ptr_array_add (args, a_path);
          if (ks_op_registry_lookup (cases[i].op)->n_inputs == 2)
            {
              g_ptr_array_add (args, (gpointer) "--in");
              g_ptr_array_add (args, b_path);
            }
          if (cases[i].param != NULL)
            {
              g_ptr_array_add (args, (gpointer) "--param");
              g_ptr_array_add (args, (gpointer) cases[i].param);
            }
          g_ptr_array_add (args, (gpointer) "--out");
          g_ptr_array_add (args, out);
          g_ptr_array_add (args, (gpointer) "--engine");
          g_ptr_array_add (args, (gpointer) engines[e]);
          g_ptr_array_add (args, (gpointer) "--repeat");
          g_ptr_array_add (args, (gpointer) "2");
          g_ptr_array_add (args, NULL);
          run_cli_v (&r, (const char *const *) args->pdata);
          g_assert_cmpint (r.status, ==, 0);
          /* The stage timings are printed. */
          g_assert_nonnull (strstr (r.out, "upload"));
          g_assert_nonnull (strstr (r.out, "kernel"));
          g_assert_nonnull (strstr (r.out, "download"));
          /* The file holds the engine's output (gray saved as opaque gray). */
          got = load (out);
          ks_test_assert_images_equal (expected_rgba, got, cases[i].op);
          g_remove (out);
        }
    }
}

static void
test_run_gray_photo (void)
{
  g_autofree char *photo_path = ks_test_sample_path ("astronaut.png");
  g_autofree char *out = tmp_path ("gray.png");
  g_autoptr (KsImage) photo = ks_test_load_sample ();
  g_autoptr (KsImage) got = NULL;
  g_auto (KsTestProgramResult) r;

  run_cli (&r, "run", "gray", "--in", photo_path, "--out", out, "--engine", "cpu", NULL);
  g_assert_cmpint (r.status, ==, 0);
  got = load (out);
  g_assert_cmpuint (got->width, ==, photo->width);
  g_assert_cmpuint (got->height, ==, photo->height);
  /* Every pixel is BT.601 of the photo's, recomputed here, as opaque gray. */
  for (guint y = 0; y < photo->height; y++)
    for (guint x = 0; x < photo->width; x++)
      {
        guint32 p = ks_image_get_rgba (photo, x, y);
        guint v = ks_test_ref_gray (p & 0xff, (p >> 8) & 0xff, (p >> 16) & 0xff, FALSE);
        g_assert_cmpuint (ks_image_get_rgba (got, x, y), ==, v | v << 8 | v << 16 | 0xff000000u);
      }
  g_remove (out);
}

static void
test_run_histogram_csv (void)
{
  g_autofree char *in = write_random_png ("in.png", 61, 29, g_test_rand_int ());
  g_autofree char *csv = tmp_path ("hist.csv");
  g_autoptr (KsImage) image = load (in);
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 sums[4] = { 0 };
  guint32 expected_luma[256] = { 0 };
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;

  for (guint y = 0; y < image->height; y++)
    for (guint x = 0; x < image->width; x++)
      {
        guint32 p = ks_image_get_rgba (image, x, y);
        expected_luma[ks_test_ref_gray (p & 0xff, (p >> 8) & 0xff, (p >> 16) & 0xff, FALSE)]++;
      }
  run_cli (&r, "run", "histogram", "--in", in, "--out", csv, "--param", "method=global",
           "--engine", "cpu", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (csv, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "bin,r,g,b,luma");
  for (guint b = 0; b < 256; b++)
    {
      guint bin, v[4];
      g_assert_cmpint (sscanf (lines[b + 1], "%u,%u,%u,%u,%u", &bin, &v[0], &v[1], &v[2], &v[3]),
                       ==, 5);
      g_assert_cmpuint (bin, ==, b);
      for (guint c = 0; c < 4; c++)
        sums[c] += v[c];
      g_assert_cmpuint (v[3], ==, expected_luma[b]);
    }
  for (guint c = 0; c < 4; c++)
    g_assert_cmpuint (sums[c], ==, 61 * 29);

  /* A histogram goes to a .csv file only. */
  run_cli (&r2, "run", "histogram", "--in", in, "--out", "hist.png", "--engine", "cpu", NULL);
  assert_one_line_error (&r2, 2, "csv", NULL);
  g_remove (csv);
}

static void
test_run_coverage (void)
{
  g_autofree char *in = write_random_png ("in.png", 100, 60, 3);
  g_autofree char *out = tmp_path ("out.png");
  g_autofree char *map_path = tmp_path ("coverage.png");
  g_autoptr (KsImage) map = NULL;
  g_autoptr (KsImage) result = NULL;
  guint64 black = 0;
  g_auto (KsTestProgramResult) r;

  /* A 3×2 grid of 16×16 reaches 48×32 of 100×60. */
  run_cli (&r, "run", "invert", "--in", in, "--out", out, "--block", "16x16", "--grid", "3x2",
           "--ppt", "1", "--coverage", map_path, "--engine", "cpu", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "4464"));
  map = load (map_path);
  for (guint y = 0; y < 60; y++)
    for (guint x = 0; x < 100; x++)
      black += ks_image_get_rgba (map, x, y) == 0xff000000u;
  g_assert_cmpuint (black, ==, 6000 - 48 * 32);
  result = load (out);
  g_assert_cmpuint (result->width, ==, 100);
}

/* Every output is checked before any is written: a coverage map that cannot
 * be written fails the run before --out replaces the user's file. */
static void
test_outputs_checked_first (void)
{
  g_autofree char *out = tmp_path ("precious.png");
  g_autofree char *bad = tmp_path ("no-such-folder/coverage.png");
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gsize before_len = 0, after_len = 0;
  g_auto (KsTestProgramResult) r = { 0 };

  g_assert_true (g_file_set_contents (out, "the user's file", -1, NULL));
  g_assert_true (g_file_get_contents (out, &before, &before_len, NULL));
  run_cli (&r, "run", "invert", "--in", "random:64x48", "--out", out, "--coverage", bad,
           "--engine", "cpu", NULL);
  assert_one_line_error (&r, 1, "no-such-folder", "does not exist", NULL);
  g_assert_true (g_file_get_contents (out, &after, &after_len, NULL));
  g_assert_cmpmem (before, before_len, after, after_len);
}

static gboolean
has_temporary (const char *dir, const char *prefix)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      return TRUE;
  return FALSE;
}

/* SIGTERM while the result is being written: the old file is intact and the
 * temporary it was being written to is gone. */
static void
test_interrupted_save (void)
{
  g_autofree char *dir = tmp_path ("interrupted");
  g_autofree char *out = g_build_filename (dir, "big.png", NULL);
  g_autofree char *after = NULL;
  const char *argv[] = { cli_path, "run", "invert", "--in", "random:8192x8192", "--engine", "cpu",
                         "--repeat", "1", "--out", out, NULL };
  g_autoptr (GError) error = NULL;
  gboolean seen = FALSE;
  int wait_status = 0;
  GPid pid;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (out, "the user's file", -1, NULL));
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                | G_SPAWN_STDERR_TO_DEV_NULL,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  /* The 256 MiB PNG takes seconds to encode: kill it once its temporary is there. */
  for (int i = 0; i < 12000 && !seen; i++)
    {
      seen = has_temporary (dir, ".big.png.");
      if (!seen)
        g_usleep (5000);
    }
  if (seen)
    kill (pid, SIGTERM);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  if (!seen)
    {
      g_test_skip ("The save ended before it could be interrupted");
      return;
    }
  g_assert_true (WIFSIGNALED (wait_status));
  g_assert_cmpint (WTERMSIG (wait_status), ==, SIGTERM);
  g_assert_true (g_file_get_contents (out, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, "the user's file");
  g_assert_false (has_temporary (dir, ".big.png."));
  g_remove (out);
  g_rmdir (dir);
}

/* Sizes are digits within the limit: a negative side is not shown wrapped,
 * 2^32 + 1 does not become 1, and trailing junk is refused. */
static void
test_bad_sizes (void)
{
  const char *specs[] = { "random:-5x5", "random:4294967297x1", "random:64x48junk",
                          "testcard:0x10", "random:16385x2" };

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_auto (KsTestProgramResult) r = { 0 };

      run_cli (&r, "run", "invert", "--engine", "cpu", "--in", specs[i], NULL);
      assert_one_line_error (&r, 2, specs[i], "WIDTHxHEIGHT", "16384", NULL);
      g_assert_null (strstr (r.err, "4294967291"));
    }
}

/* --repeat has a bound, named when passed. */
static void
test_repeat_bound (void)
{
  g_auto (KsTestProgramResult) r = { 0 };

  run_cli (&r, "run", "invert", "--engine", "cpu", "--in", "random:8x8", "--repeat",
           "2000000000", NULL);
  assert_one_line_error (&r, 2, "--repeat", "10000", "2000000000", NULL);
}

/* A value just past a limit is shown as typed, not rounded to the limit. */
static void
test_param_just_outside (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) empty = { 0 };

  run_cli (&r, "run", "gaussian_blur", "--engine", "cpu", "--in", "random:8x8", "--param",
           "sigma=20.0001", NULL);
  assert_one_line_error (&r, 2, "between 0.5 and 20, not 20.0001", NULL);

  run_cli (&empty, "run", "invert", "--engine", "cpu", "--in", "", NULL);
  assert_one_line_error (&empty, 2, "--in needs a file name", NULL);
}

/* Options as a user types them: a short option glued to its value, "--"
 * ending the options, and text that is not ASCII under LANG=C named by its
 * option instead of a conversion error. */
static void
test_options_as_typed (void)
{
  g_auto (GStrv) env_c = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  g_autofree char *png = write_random_png ("typed.png", 9, 7, 5);
  g_auto (KsTestProgramResult) glued = { 0 };
  g_auto (KsTestProgramResult) dashes = { 0 };
  g_auto (KsTestProgramResult) compare = { 0 };
  g_auto (KsTestProgramResult) bytes = { 0 };
  g_auto (KsTestProgramResult) digit = { 0 };
  const char *bad_bytes[] = { "run", "invert", "-ecpu", "-irandom:8x8", "--param",
                              "x=\xff", NULL };
  const char *arabic_digit[] = { "run", "invert", "-ecpu", "-irandom:8x8", "--repeat",
                                 "\xd9\xa3", NULL };

  run_cli (&glued, "run", "invert", "-ecpu", "-irandom:8x8", "-sb8x8", "-r1", NULL);
  g_assert_cmpint (glued.status, ==, 0);
  g_assert_nonnull (strstr (glued.out, "block 8×8"));
  g_assert_nonnull (strstr (glued.out, "grid-stride"));

  run_cli (&dashes, "run", "-e", "cpu", "-i", png, "--", "invert", NULL);
  g_assert_cmpint (dashes.status, ==, 0);
  g_assert_nonnull (strstr (dashes.out, "invert"));
  run_cli (&compare, "compare", "--expect-equal", png, "--", png, NULL);
  g_assert_cmpint (compare.status, ==, 0);

  ks_test_run_program (&bytes, cli_path, env_c, bad_bytes);
  assert_one_line_error (&bytes, 2, "--param", "not UTF-8", NULL);
  ks_test_run_program (&digit, cli_path, env_c, arabic_digit);
  assert_one_line_error (&digit, 2, "--repeat", "\xd9\xa3", NULL);
}

static void
test_compare (void)
{
  g_autofree char *a = write_random_png ("a.png", 20, 10, 1);
  g_autofree char *b = write_random_png ("b.png", 20, 10, 2);
  g_autofree char *diff = tmp_path ("diff.png");
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;
  g_auto (KsTestProgramResult) r3;

  run_cli (&r, "compare", a, a, "--expect-equal", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "inf"));
  run_cli (&r2, "compare", a, b, "--diff", diff, NULL);
  g_assert_cmpint (r2.status, ==, 0);
  g_assert_true (g_file_test (diff, G_FILE_TEST_EXISTS));
  run_cli (&r3, "compare", a, b, "--expect-equal", NULL);
  assert_one_line_error (&r3, 1, "differ", NULL);
  g_remove (diff);
}

static void
test_listings (void)
{
  static const char *ops[] = { "invert", "gray", "add", "blend", "histogram", "truncate",
                               "weight_a", "method" };
  g_auto (KsTestProgramResult) r;
  g_auto (KsTestProgramResult) r2;

  run_cli (&r, "ops", NULL);
  g_assert_cmpint (r.status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    g_assert_nonnull (strstr (r.out, ops[i]));
  run_cli (&r2, "devices", "--json", NULL);
  g_assert_cmpint (r2.status, ==, 0);
  g_assert_nonnull (strstr (r2.out, "\"cpu\""));
}

/* Output that cannot be written is a failure: stdout on /dev/full (every
 * write fails with ENOSPC) exits with status 1 and says why. */
static void
test_write_error (void)
{
  g_autofree char *cli = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli",
                                                NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "/bin/sh", "-c", "exec \"$0\" ops > /dev/full", cli, NULL };
  int status = 0;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full here");
      return;
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_nonnull (strstr (err, "could not write the output"));
}

/* bench-cpu measures the CPU engine without a GPU: each row ran and
 * executed instructions, and twice the threads execute twice the
 * lane-instructions (counts, not times, are compared). */
static void
test_bench_cpu (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonArray *rows;
  gint64 small = 0, large = 0;

  if (!ks_test_have_nvrtc ())
    return;
  run_cli (&r, "bench-cpu", "--repeat", "1", "--no-lessons", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, &error));
  g_assert_no_error (error);
  rows = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                       "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 2 + 4 + 3);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      const char *key = json_object_get_string_member (row, "key");

      g_assert_cmpint (json_object_get_int_member (row, "lane_instructions"), >, 0);
      if (g_str_equal (key, "chain T=16384 K=64"))
        small = json_object_get_int_member (row, "lane_instructions");
      if (g_str_equal (key, "chain T=65536 K=64"))
        large = json_object_get_int_member (row, "lane_instructions");
    }
  g_assert_cmpint (large, ==, 4 * small);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* Next to this program: build/tests/../app/kernelscope-cli. */
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  if (!g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("1..0 # SKIP %s was not built\n", cli_path);
      return 77;
    }
  tmp_dir = g_dir_make_tmp ("ks-test-cli-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/cli/usage/no-command", test_no_command);
  g_test_add_func ("/ks/cli/usage/help", test_help);
  g_test_add_func ("/ks/cli/usage/unknown-command", test_unknown_command);
  g_test_add_func ("/ks/cli/usage/unknown-op", test_unknown_op);
  g_test_add_func ("/ks/cli/usage/bad-parameter", test_unknown_parameter);
  g_test_add_func ("/ks/cli/usage/wrong-inputs", test_wrong_inputs);
  g_test_add_func ("/ks/cli/failed/missing-input", test_missing_input);
  g_test_add_func ("/ks/cli/failed/corrupt-input", test_corrupt_input);
  g_test_add_func ("/ks/cli/failed/size-mismatch", test_size_mismatch);
  g_test_add_func ("/ks/cli/failed/impossible-block", test_impossible_block);
  g_test_add_func ("/ks/cli/failed/engine-cuda", test_engine_choice);
  g_test_add_func ("/ks/cli/run/matches-engine", test_run_matches_engine);
  g_test_add_func ("/ks/cli/run/gray-photo-formula", test_run_gray_photo);
  g_test_add_func ("/ks/cli/run/histogram-csv", test_run_histogram_csv);
  g_test_add_func ("/ks/cli/run/coverage-map", test_run_coverage);
  g_test_add_func ("/ks/cli/compare", test_compare);
  g_test_add_func ("/ks/cli/failed/outputs-checked-first", test_outputs_checked_first);
  g_test_add_func ("/ks/cli/usage/bad-sizes", test_bad_sizes);
  g_test_add_func ("/ks/cli/usage/repeat-bound", test_repeat_bound);
  g_test_add_func ("/ks/cli/usage/param-just-outside", test_param_just_outside);
  g_test_add_func ("/ks/cli/run/interrupted-save", test_interrupted_save);
  g_test_add_func ("/ks/cli/run/gray-input", test_gray_input);
  g_test_add_func ("/ks/cli/usage/options-as-typed", test_options_as_typed);
  g_test_add_func ("/ks/cli/listings", test_listings);
  g_test_add_func ("/ks/cli/bench-cpu", test_bench_cpu);
  g_test_add_func ("/ks/cli/failed/write-error", test_write_error);

  ret = g_test_run ();
  ks_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (cli_path);
  return ret;
}
