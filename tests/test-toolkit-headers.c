/* test-toolkit-headers.c: kernels that include the CUDA toolkit's device
 * headers as teaching material does (tests/data/toolkit: curand_kernel.h,
 * cooperative_groups.h and its reduce.h, mma.h, cuda_pipeline.h, CCCL's
 * cuda/std and cub, the standard headers before them) compile unchanged
 * through `kernelscope-cli kernel --check`, and run on the CPU engine with
 * known results: a cooperative-groups tile sum of 1000 ones is 1000, cuRAND's
 * XORWOW for subsequence 0 gives the numbers computed here from its
 * definition, and its uniform draws look uniform. A header the toolkit on
 * this machine lacks skips its case; with an NVRTC that has no toolkit
 * beside it the message names the header and the package it comes with.
 * No GPU is needed; without NVRTC the test skips. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ks-test-helpers.h"

static char *cli_path;
static char *data_dir;

/* The toolkit's include folder, where Kernelscope finds it when
 * KS_NVRTC_LIBRARY is not set; NULL when there is none. */
static char *
toolkit_include (void)
{
  const char *const roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"),
                                "/usr/local/cuda" };

  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      g_autofree char *include = NULL;

      if (roots[i] == NULL || roots[i][0] == '\0')
        continue;
      include = g_build_filename (roots[i], "include", NULL);
      if (g_file_test (include, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&include);
    }
  return NULL;
}

/* kernelscope-cli kernel ARGS…, the file first (in data_dir). */
static void
run_cli (KsTestProgramResult *r, char **envp, const char *file, ...) G_GNUC_NULL_TERMINATED;

static void
run_cli (KsTestProgramResult *r, char **envp, const char *file, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  const char *arg;
  va_list args;

  g_ptr_array_add (argv, g_strdup ("kernel"));
  g_ptr_array_add (argv, g_strdup ("--arch"));
  g_ptr_array_add (argv, g_strdup ("90"));
  g_ptr_array_add (argv, g_build_filename (data_dir, file, NULL));
  va_start (args, file);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  ks_test_run_program (r, cli_path, envp, (const char *const *) argv->pdata);
}

/* ---- compiling -------------------------------------------------------------------- */

typedef struct
{
  const char *file;
  const char *header;   /* the toolkit's header the case needs */
  const char *kernel;   /* the one to compile, of several */
} CheckCase;

static const CheckCase check_cases[] = {
  { "curand-uniform.cu", "curand_kernel.h", "monte_carlo_pi" },
  { "curand-uniform.cu", "curand_kernel.h", "xorwow_raw" },
  { "cg-tile-sum.cu", "cooperative_groups.h" },
  { "cg-reduce.cu", "cooperative_groups/reduce.h" },
  { "wmma-tile.cu", "mma.h" },
  { "cuda-std.cu", "cuda/std/complex" },
  { "pipeline-copy.cu", "cuda_pipeline.h" },
  { "cub-block-reduce.cu", "cub/block/block_reduce.cuh" },
  /* stdint.h, limits.h, math.h and stddef.h (Kernelscope's) before the
   * toolkit's headers, which define the same types and macros */
  { "standard-then-toolkit.cu", "cuda/std/cmath" },
};

static void
test_check (gconstpointer data)
{
  const CheckCase *c = data;
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_toolkit_header (c->header))
    return;
  if (c->kernel != NULL)
    run_cli (&r, NULL, c->file, "--check", "--kernel", c->kernel, NULL);
  else
    run_cli (&r, NULL, c->file, "--check", NULL);
  if (r.status != 0)
    {
      g_test_message ("%s does not compile (status %d):\n%s%s", c->file, r.status, r.out, r.err);
      g_test_fail ();
      return;
    }
  g_assert_nonnull (strstr (r.out, "compiled for sm_90"));
  /* clean: no warnings from Kernelscope's headers or the toolkit's */
  g_assert_null (strstr (r.err, "warning"));
  g_assert_null (strstr (r.err, "error"));
}

/* thrust/complex.h includes host headers whatever the compiler: the
 * message says so, at the toolkit's line, rather than asking the user for
 * an include folder. */
static void
test_thrust_complex (void)
{
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_toolkit_header ("thrust/complex.h"))
    return;
  run_cli (&r, NULL, "thrust-complex.cu", "--check", NULL);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "thrust/complex.h includes: it is a host C++ header"));
  g_assert_null (strstr (r.err, "--include-dir"));
}

/* An NVRTC with no toolkit beside it (a machine with only libnvrtc): the
 * header is named, with the package it comes with. */
static void
test_toolkit_missing (void)
{
  g_autofree char *tmp = NULL;
  g_autofree char *lib_dir = NULL;
  g_autofree char *include = toolkit_include ();
  g_autofree char *real_lib_dir = NULL;
  g_autofree char *nvrtc = NULL;
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = NULL;
  g_auto (KsTestProgramResult) r = { 0 };
  const char *name;

  if (!ks_test_have_nvrtc ())
    {
      g_test_skip ("NVRTC is not available");
      return;
    }
  real_lib_dir = include != NULL ? g_build_filename (include, "..", "lib64", NULL) : NULL;
  nvrtc = real_lib_dir != NULL ? g_build_filename (real_lib_dir, "libnvrtc.so.13", NULL) : NULL;
  if (nvrtc == NULL || !g_file_test (nvrtc, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no libnvrtc.so.13 in the toolkit's lib64 folder to copy links to");
      return;
    }
  /* Links to NVRTC and its built-ins in a folder with no include/ beside it. */
  tmp = g_dir_make_tmp ("ks-toolkit-XXXXXX", &error);
  g_assert_no_error (error);
  lib_dir = g_build_filename (tmp, "lib64", NULL);
  g_assert_cmpint (g_mkdir (lib_dir, 0700), ==, 0);
  dir = g_dir_open (real_lib_dir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "libnvrtc"))
      {
        g_autofree char *target = g_build_filename (real_lib_dir, name, NULL);
        g_autofree char *link = g_build_filename (lib_dir, name, NULL);

        g_assert_cmpint (symlink (target, link), ==, 0);
      }
  g_free (nvrtc);
  nvrtc = g_build_filename (lib_dir, "libnvrtc.so.13", NULL);
  envp = g_environ_setenv (g_get_environ (), "KS_NVRTC_LIBRARY", nvrtc, TRUE);

  run_cli (&r, envp, "curand-uniform.cu", "--check", "--kernel", "monte_carlo_pi", NULL);
  ks_test_remove_tree (tmp);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "cannot open “curand_kernel.h”: it comes with the CUDA "
                                   "toolkit's headers (NVIDIA's package libcurand-dev"));
  g_assert_nonnull (strstr (r.err, "which are not installed here"));
  g_assert_null (strstr (r.err, "--include-dir"));
}

/* ---- running on the CPU engine ----------------------------------------------------- */

static JsonObject *
run_json (JsonParser *parser, KsTestProgramResult *r, const char *file, ...)
  G_GNUC_NULL_TERMINATED;

static JsonObject *
run_json (JsonParser *parser, KsTestProgramResult *r, const char *file, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  JsonObject *root;
  const char *arg;
  va_list args;

  g_ptr_array_add (argv, g_strdup ("kernel"));
  g_ptr_array_add (argv, g_strdup ("--engine"));
  g_ptr_array_add (argv, g_strdup ("cpu"));
  g_ptr_array_add (argv, g_strdup ("--json"));
  g_ptr_array_add (argv, g_build_filename (data_dir, file, NULL));
  va_start (args, file);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, g_strdup (arg));
  va_end (args);
  g_ptr_array_add (argv, NULL);
  ks_test_run_program (r, cli_path, NULL, (const char *const *) argv->pdata);
  if (r->status != 0)
    g_test_message ("%s did not run (status %d):\n%s%s", file, r->status, r->out, r->err);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, r->out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  /* no finding of the emulator's checks: a clean kernel */
  g_assert_cmpint (json_object_get_int_member (root, "findings_total"), ==, 0);
  return root;
}

static JsonArray *
array_of (JsonObject *root, const char *name)
{
  return json_object_get_array_member (json_object_get_object_member (root, "arrays"), name);
}

/* 1000 ones summed by warp-sized tiles with shfl_down and one atomicAdd per
 * tile: 1000, exactly (every partial sum is an integer below 2^24). The
 * total starts poisoned at 0 by --arg …:zeros, the sum's identity. */
static void
test_cg_tile_sum (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (KsTestProgramResult) r = { 0 };
  JsonObject *root;

  if (!ks_test_have_toolkit_header ("cooperative_groups.h"))
    return;
  root = run_json (parser, &r, "cg-tile-sum.cu", "--arg", "in=f32[1000]:const(1)", "--arg",
                   "total=f32[1]:zeros:out", "--arg", "n=1000", "--block", "256", NULL);
  g_assert_cmpfloat (json_array_get_double_element (array_of (root, "total"), 0), ==, 1000.0);
}

/* cg::reduce within tiles, then over the tiles' sums: each block's sum of
 * 0 … 999, exactly. */
static void
test_cg_reduce (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (KsTestProgramResult) r = { 0 };
  JsonArray *out;
  JsonObject *root;

  if (!ks_test_have_toolkit_header ("cooperative_groups/reduce.h"))
    return;
  root = run_json (parser, &r, "cg-reduce.cu", "--arg", "in=i32[1000]:range", "--arg",
                   "out=i32[4]:const(-1):out", "--arg", "n=1000", "--block", "256", "--grid", "4",
                   NULL);
  out = array_of (root, "out");
  for (guint b = 0; b < 4; b++)
    {
      gint64 expected = 0;

      for (guint i = b * 256; i < MIN ((b + 1) * 256, 1000); i++)
        expected += i;
      g_assert_cmpint (json_array_get_int_element (out, b), ==, expected);
    }
}

/* curand_init (seed, 0, 0) and curand (), from cuRAND's definition of
 * XORWOW: the seed's halves salted and mixed into the five words and the
 * Weyl sequence d; each number is the shifted-xor of the oldest word into
 * the newest, plus d. Subsequence 0 needs no skip-ahead. */
static void
xorwow_reference (guint64 seed, guint32 *out, guint count)
{
  guint32 s0 = (guint32) seed ^ 0xaad26b49u;
  guint32 s1 = (guint32) (seed >> 32) ^ 0xf7dcefddu;
  guint32 t0 = 1099087573u * s0;
  guint32 t1 = 2591861531u * s1;
  guint32 v[5] = { 123456789u + t0, 362436069u ^ t0, 521288629u + t1, 88675123u ^ t1,
                   5783321u + t0 };
  guint32 d = 6615241u + t1 + t0;

  for (guint k = 0; k < count; k++)
    {
      guint32 t = v[0] ^ (v[0] >> 2);

      memmove (v, v + 1, 4 * sizeof v[0]);
      v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
      d += 362437u;
      out[k] = v[4] + d;
    }
}

static void
test_curand_xorwow (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (KsTestProgramResult) r = { 0 };
  guint32 expected[16];
  JsonArray *out;
  JsonObject *root;

  if (!ks_test_have_toolkit_header ("curand_kernel.h"))
    return;
  /* A seed with both halves set, so that both words of the seeding count. */
  xorwow_reference (G_GUINT64_CONSTANT (0x123456789abcdef), expected, G_N_ELEMENTS (expected));
  root = run_json (parser, &r, "curand-uniform.cu", "--kernel", "xorwow_raw", "--arg",
                   "seed=81985529216486895", "--arg", "out=u32[16]:zeros:out", "--arg",
                   "count=16", "--block", "1", NULL);
  out = array_of (root, "out");
  g_assert_cmpuint (json_array_get_length (out), ==, G_N_ELEMENTS (expected));
  for (guint k = 0; k < G_N_ELEMENTS (expected); k++)
    g_assert_cmpint (json_array_get_int_element (out, k), ==, expected[k]);
}

/* 1024 threads, each its own subsequence (curand_init's skip-ahead through
 * the precomputed tables), 64 points each: every first draw in (0, 1], no
 * two threads alike, their mean within 0.5 ± 0.05 (its standard deviation
 * is 0.009), and 4 × the share inside the quarter circle within 0.05 of π
 * (the estimate's deviation is 0.006). The first draws start poisoned at
 * 2, outside the range. */
static void
test_curand_uniform (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (KsTestProgramResult) r = { 0 };
  g_autoptr (GHashTable) distinct = g_hash_table_new (g_direct_hash, g_direct_equal);
  const guint n = 1024, samples = 64;
  JsonArray *first, *inside;
  JsonObject *root;
  double sum = 0.0;
  guint64 hits = 0;

  if (!ks_test_have_toolkit_header ("curand_kernel.h"))
    return;
  root = run_json (parser, &r, "curand-uniform.cu", "--kernel", "monte_carlo_pi", "--arg",
                   "seed=1234", "--arg", "first=f32[1024]:const(2):out", "--arg",
                   "inside=u32[1024]:const(4294967295):out", "--arg", "samples=64", "--arg",
                   "n=1024", "--block", "256", NULL);
  first = array_of (root, "first");
  inside = array_of (root, "inside");
  g_assert_cmpuint (json_array_get_length (first), ==, n);
  for (guint i = 0; i < n; i++)
    {
      double x = json_array_get_double_element (first, i);
      float f = (float) x;
      guint32 bits;

      g_assert_cmpfloat (x, >, 0.0);
      g_assert_cmpfloat (x, <=, 1.0);
      memcpy (&bits, &f, sizeof bits);
      g_hash_table_add (distinct, GUINT_TO_POINTER (bits));
      sum += x;
      g_assert_cmpint (json_array_get_int_element (inside, i), <=, samples);
      hits += (guint64) json_array_get_int_element (inside, i);
    }
  g_assert_cmpuint (g_hash_table_size (distinct), >, n - 4);
  g_assert_cmpfloat (fabs (sum / n - 0.5), <, 0.05);
  g_assert_cmpfloat (fabs (4.0 * (double) hits / ((double) n * samples) - G_PI), <, 0.05);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  if (!g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("1..0 # SKIP %s was not built\n", cli_path);
      return 77;
    }
  data_dir = g_test_build_filename (G_TEST_DIST, "data", "toolkit", NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (check_cases); i++)
    {
      g_autofree char *name = g_strdelimit (g_strdup (check_cases[i].file), ".", '-');
      g_autofree char *path = g_strconcat ("/ks/toolkit/check/", name,
                                           check_cases[i].kernel != NULL ? "-" : "",
                                           check_cases[i].kernel, NULL);

      g_test_add_data_func (path, &check_cases[i], test_check);
    }
  g_test_add_func ("/ks/toolkit/check/thrust-complex-refused", test_thrust_complex);
  g_test_add_func ("/ks/toolkit/missing-names-the-package", test_toolkit_missing);
  g_test_add_func ("/ks/toolkit/cpu/cg-tile-sum", test_cg_tile_sum);
  g_test_add_func ("/ks/toolkit/cpu/cg-reduce", test_cg_reduce);
  g_test_add_func ("/ks/toolkit/cpu/curand-xorwow", test_curand_xorwow);
  g_test_add_func ("/ks/toolkit/cpu/curand-uniform", test_curand_uniform);
  return g_test_run ();
}
