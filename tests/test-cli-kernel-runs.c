/* test-cli-kernel-runs.c: `kernelscope-cli kernel` on array kernels beyond
 * one launch, on the CPU engine as a user runs it — --launches with --swap
 * (Game of Life, 100 steps, against a C reference cell for cell in the JSON
 * report), --const for __constant__ and __device__ variables and --save
 * reading them back, --shared for extern __shared__ memory — and the
 * messages and exit statuses of what cannot run (1) or is bad usage (2).
 * Compiling needs NVRTC but no GPU; those tests skip without it. */
#include "config.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "ks-nvrtc.h"
#include "ks-test-helpers.h"

static char *cli_path;
static char *tmp_dir;

static void
run_cli (KsTestProgramResult *r, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) "kernel");
  g_ptr_array_add (argv, (gpointer) "--engine");
  g_ptr_array_add (argv, (gpointer) "cpu");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  ks_test_run_program (r, cli_path, NULL, (const char *const *) argv->pdata);
}

#define RUN(r, ...) run_cli ((r), (const char *const[]) { __VA_ARGS__, NULL })

static char *
write_file (const char *name, const char *text)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

static JsonObject *
parse_report (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static const char life_source[] =
  "// One step of Conway's Game of Life on a w×h torus, a thread a cell.\n"
  "__global__ void life (const unsigned char *in, unsigned char *out, int w, int h)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= w * h)\n"
  "    return;\n"
  "  int x = i % w, y = i / w, n = 0;\n"
  "  for (int dy = -1; dy <= 1; dy++)\n"
  "    for (int dx = -1; dx <= 1; dx++)\n"
  "      if (dx != 0 || dy != 0)\n"
  "        n += in[((y + dy + h) % h) * w + (x + dx + w) % w];\n"
  "  out[i] = (n == 3 || (in[i] && n == 2)) ? 1 : 0;\n"
  "}\n";

/* A 20×12 board, a random soup with a glider: 100 steps with in and out
 * swapped between launches; `out` in the report is the board after the
 * 100th step, and every launch has its time. */
static void
test_life (void)
{
  const guint w = 20, h = 12, steps = 100;
  guint alive = 0;
  g_autofree char *path = NULL;
  g_autofree char *board_path = NULL;
  g_autofree char *in_arg = NULL;
  g_autofree guint8 *start = g_malloc0 (w * h);
  g_autofree guint8 *board = g_malloc0 (w * h);
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (ks_test_next_seed ("life soup"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) t = { 0 };
  JsonObject *root;
  JsonArray *out, *times;

  if (!ks_test_have_nvrtc ())
    return;
  /* A soup whose board is still alive after the steps (the C reference
   * says so before the kernel runs), so that the comparison says something:
   * a soup that dies out is drawn again. */
  for (guint attempt = 0; alive == 0; attempt++)
    {
      g_assert_cmpuint (attempt, <, 100);
      for (guint i = 0; i < w * h; i++)
        start[i] = g_rand_int_range (rand, 0, 3) == 0;
      memset (start, 0, w * 4);
      start[1] = start[w + 2] = start[2 * w] = start[2 * w + 1] = start[2 * w + 2] = 1;
      memcpy (board, start, w * h);
      ks_test_life_steps (board, w, h, steps);
      alive = 0;
      for (guint i = 0; i < w * h; i++)
        alive += board[i];
    }
  for (guint i = 0; i < w * h; i++)
    g_string_append_printf (csv, "%u%s", start[i], (i + 1) % w == 0 ? "\n" : ",");
  path = write_file ("life.cu", life_source);
  board_path = write_file ("board.csv", csv->str);
  in_arg = g_strdup_printf ("in=u8[%u]:file(%s)", w * h, board_path);

  RUN (&r, path, "--json", "--arg", in_arg, "--arg", "out=u8[240]:const(9)", "--arg", "w=20",
       "--arg", "h=12", "--block", "64", "--launches", "100", "--swap", "in,out");
  g_assert_cmpint (r.status, ==, 0);
  root = parse_report (parser, r.out);
  g_assert_cmpint (json_object_get_int_member (root, "launches"), ==, steps);
  times = json_object_get_array_member (root, "launch_ms");
  g_assert_cmpuint (json_array_get_length (times), ==, steps);
  g_assert_cmpfloat (json_object_get_double_member (root, "kernel_min_ms"), <=,
                     json_object_get_double_member (root, "kernel_ms"));
  g_assert_cmpfloat (json_object_get_double_member (root, "kernel_ms"), <=,
                     json_object_get_double_member (root, "kernel_max_ms"));

  out = json_object_get_array_member (json_object_get_object_member (root, "arrays"), "out");
  g_assert_cmpuint (json_array_get_length (out), ==, w * h);
  for (guint i = 0; i < w * h; i++)
    g_assert_cmpint (json_array_get_int_element (out, i), ==, board[i]);

  /* The report in words: the launches' median, min and max. */
  RUN (&t, path, "--arg", in_arg, "--arg", "out=u8[240]:zeros", "--arg", "w=20", "--arg",
       "h=12", "--block", "64", "--launches", "100", "--swap", "in,out");
  g_assert_cmpint (t.status, ==, 0);
  g_assert_nonnull (strstr (t.out, "kernel: 100 launches, "));
  g_assert_nonnull (strstr (t.out, " ms each (median; min "));
}

/* Ten launches of a kernel adding one give +10; --repeat keeps its meaning
 * (one launch timed again from the same inputs: +1). */
static void
test_add_one (void)
{
  static const char inc_source[] =
    "__global__ void inc (int *a, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    a[i] += 1;\n"
    "}\n";
  g_autofree char *path = write_file ("inc.cu", inc_source);
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) rep = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, path, "--arg", "a=i32[50]:range(-5,1)", "--arg", "n=50", "--block", "32",
       "--launches", "10");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "kernel: 10 launches"));
  g_assert_nonnull (strstr (r.out, "a (i32, 50 elements): [0] 5, [1] 6, [2] 7"));
  g_assert_nonnull (strstr (r.out, "[49] 54"));

  RUN (&rep, path, "--arg", "a=i32[50]:range(-5,1)", "--arg", "n=50", "--block", "32",
       "--repeat", "10");
  g_assert_cmpint (rep.status, ==, 0);
  g_assert_nonnull (strstr (rep.out, "a (i32, 50 elements): [0] -4, [1] -3"));
}

static const char poly_source[] =
  "__constant__ float coeffs[3];\n"
  "__device__ unsigned int counter;\n"
  "__global__ void poly (float *y, const float *x, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    {\n"
  "      y[i] = coeffs[0] + x[i] * (coeffs[1] + x[i] * coeffs[2]);\n"
  "      atomicAdd (&counter, 1u);\n"
  "    }\n"
  "}\n";

/* --const sets the coefficients the kernel reads (1 + 2x + 3x² on 0, 1,
 * 2 …) and the counter's start; --save writes the counter and the
 * coefficients after four launches. */
static void
test_const_and_save (void)
{
  g_autofree char *path = write_file ("poly.cu", poly_source);
  g_autofree char *counter_csv = g_build_filename (tmp_dir, "counter.csv", NULL);
  g_autofree char *coeffs_csv = g_build_filename (tmp_dir, "coeffs.csv", NULL);
  g_autofree char *save_counter = g_strdup_printf ("counter=%s", counter_csv);
  g_autofree char *save_coeffs = g_strdup_printf ("coeffs=%s", coeffs_csv);
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) j = { 0 };
  JsonObject *root, *globals;

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, path, "--arg", "y=f32[6]:const(-1)", "--arg", "x=f32[6]:range", "--arg", "n=6",
       "--block", "32", "--const", "coeffs=f32[3]:range(1,1)", "--const", "counter=100",
       "--launches", "4", "--save", save_counter, "--save", save_coeffs);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "y (f32, 6 elements): [0] 1, [1] 6, [2] 17, [3] 34, [4] 57, "
                                   "[5] 86"));
  g_assert_nonnull (strstr (r.out, "counter (u32, 1 elements): [0] 124"));
  g_assert_true (g_file_get_contents (counter_csv, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "index,value\n0,124\n");
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (coeffs_csv, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "index,value\n0,1\n1,2\n2,3\n");

  RUN (&j, path, "--json", "--arg", "y=f32[6]:zeros", "--arg", "x=f32[6]:range", "--arg", "n=6",
       "--block", "32", "--save", save_counter);
  g_assert_cmpint (j.status, ==, 0);
  root = parse_report (parser, j.out);
  globals = json_object_get_object_member (root, "globals");
  /* A fresh run starts the counter from the module's 0. */
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (globals, "counter"),
                                               0), ==, 6);
}

/* --shared gives the extern __shared__ tile its bytes; without them the CPU
 * engine's checks find the accesses outside the block's shared memory. */
static void
test_shared (void)
{
  static const char reverse_source[] =
    "__global__ void reverse (int *out, const int *in, int n)\n"
    "{\n"
    "  extern __shared__ int tile[];\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  tile[threadIdx.x] = i < n ? in[i] : 0;\n"
    "  __syncthreads ();\n"
    "  if (i < n)\n"
    "    out[i] = tile[blockDim.x - 1 - threadIdx.x];\n"
    "}\n";
  g_autofree char *path = write_file ("reverse.cu", reverse_source);
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) none = { 0 };
  g_auto (KsTestProgramResult) big = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, path, "--arg", "out=i32[8]:zeros", "--arg", "in=i32[8]:range", "--arg", "n=8",
       "--block", "4", "--shared", "16");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "[0] 3, [1] 2, [2] 1, [3] 0, [4] 7, [5] 6, [6] 5, [7] 4"));

  RUN (&none, path, "--arg", "out=i32[8]:zeros", "--arg", "in=i32[8]:range", "--arg", "n=8",
       "--block", "4");
  g_assert_cmpint (none.status, ==, 1);
  g_assert_nonnull (strstr (none.out, "Invalid __shared__ write"));

  RUN (&big, path, "--arg", "out=i32[8]:zeros", "--arg", "in=i32[8]:range", "--arg", "n=8",
       "--block", "4", "--shared", "232449");
  g_assert_cmpint (big.status, ==, 2);
  g_assert_nonnull (strstr (big.err, "--shared 232449 is more shared memory than any GPU"));
}

/* What the module has not, or not of that size, fails with status 1 and
 * says what it has; what does not go together is bad usage (2). */
static void
test_refusals (void)
{
  g_autofree char *path = write_file ("refuse.cu", poly_source);
  const struct
  {
    const char *args[6];
    int status;
    const char *needle;
  } cases[] = {
    { { "--const", "coefs=f32[3]:zeros" }, 1,
      "Cannot set “coefs”: the module has no __device__ or __constant__ variable of that name "
      "(it has: coeffs (12 bytes), counter (4 bytes))" },
    { { "--const", "coeffs=f32[4]:zeros" }, 1,
      "Cannot set “coeffs” (float[3], 12 bytes) to f32[4] (16 bytes): give f32[3]" },
    { { "--const", "coeffs=1.5" }, 1, "coeffs=f32[3]:const(1.5)" },
    { { "--save", "nothing=/dev/null" }, 1, "Cannot read back “nothing”" },
    { { "--const", "coeffs=f32[3]:bogus" }, 2, "--const coeffs=f32[3]:bogus" },
    { { "--launches", "3", "--repeat", "3" }, 2, "give one or the other" },
    { { "--swap", "y,x" }, 2, "--swap trades arrays between launches: give --launches N" },
    { { "--swap", "y", "--launches", "2" }, 2, "--swap y: name two pointer arguments" },
    { { "--swap", "y,n", "--launches", "2" }, 1, "Cannot swap “n”: it is a value" },
    { { "--launches", "0" }, 2, "--launches must be between 1 and 1000000, not 0" },
    { { "--launches", "-2" }, 2, "--launches must be between 1 and" },
    { { "--shared", "lots" }, 2, "--shared takes a number of bytes" },
  };

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (KsTestProgramResult) r = { 0 };
      const char *args[16] = { path, "--arg", "y=f32[4]:zeros", "--arg", "x=f32[4]:range",
                               "--arg", "n=4", "--block", "32", NULL };
      guint n = 9;

      for (guint k = 0; k < G_N_ELEMENTS (cases[i].args) && cases[i].args[k] != NULL; k++)
        args[n++] = cases[i].args[k];
      run_cli (&r, args);
      g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, ==, cases[i].status);
      g_assert_nonnull (strstr (r.err, cases[i].needle));
    }
}

/* The options are in the help, and image kernels refuse them. */
static void
test_help_and_images (void)
{
  static const char image_source[] =
    "__global__ void copy (ks_image in, ks_image out)\n"
    "{\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (ks_inside (out, x, y))\n"
    "    ks_rgba (out, x, y) = ks_rgba (in, x, y);\n"
    "}\n";
  g_autofree char *path = write_file ("copy.cu", image_source);
  g_auto (KsTestProgramResult) help = { 0 };
  g_auto (KsTestProgramResult) image = { 0 };
  const char *const options[] = { "--launches", "--swap", "--const", "--shared", NULL };

  RUN (&help, "--help");
  g_assert_cmpint (help.status, ==, 0);
  for (guint i = 0; options[i] != NULL; i++)
    g_assert_nonnull (strstr (help.out, options[i]));

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&image, path, "--in", "random:16x16", "--launches", "4");
  g_assert_cmpint (image.status, ==, 2);
  g_assert_nonnull (strstr (image.err, "apply to kernels on arrays"));
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  if (!g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("1..0 # SKIP %s was not built\n", cli_path);
      return 77;
    }
  tmp_dir = g_dir_make_tmp ("ks-test-cli-kernel-runs-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/cli/kernel/runs/life", test_life);
  g_test_add_func ("/ks/cli/kernel/runs/add-one", test_add_one);
  g_test_add_func ("/ks/cli/kernel/runs/const-and-save", test_const_and_save);
  g_test_add_func ("/ks/cli/kernel/runs/shared", test_shared);
  g_test_add_func ("/ks/cli/kernel/runs/refusals", test_refusals);
  g_test_add_func ("/ks/cli/kernel/runs/help-and-images", test_help_and_images);

  ret = g_test_run ();
  ks_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (cli_path);
  return ret;
}
