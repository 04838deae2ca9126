/* test-cli-kernel.c: `kernelscope-cli kernel` as a user and an editor run
 * it — compile errors as FILE:LINE:COL lines, exit codes 0 (compiled or
 * ran), 1 (does not compile, cannot run) and 2 (bad usage), the JSON
 * report, and clear messages where NVRTC or the GPU is missing. Compiling
 * needs NVRTC but no GPU; those tests skip without it. */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ks-nvrtc.h"
#include "ks-test-helpers.h"

static char *cli_path;
static char *tmp_dir;


/* Runs `kernelscope-cli kernel ARGS…`; envp NULL inherits the environment. */
static void
run_cli_env (KsTestProgramResult *r, char **envp, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) "kernel");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  ks_test_run_program (r, cli_path, envp, (const char *const *) argv->pdata);
}

#define RUN(r, ...) run_cli_env ((r), NULL, (const char *const[]) { __VA_ARGS__, NULL })

static char *
write_source (const char *name, const char *text)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* The last line of stderr: the tool's one-line summary of the failure. */
static const char *
last_line (const char *text)
{
  const char *end = text + strlen (text);
  const char *p;

  if (end > text && end[-1] == '\n')
    end--;
  for (p = end; p > text && p[-1] != '\n'; p--)
    ;
  return p;
}

static const char add_source[] =
  "// The tutorial's addition, one thread per element.\n"
  "__global__ void add (float *result, const float *a, const float *b, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    result[i] = a[i] + b[i];\n"
  "}\n";

static void
test_check_good (void)
{
  g_autofree char *path = NULL;
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  path = write_source ("add.cu", add_source);
  RUN (&r, "--check", "--arch", "90", path);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "kernel add (sm_90)"));
  g_assert_nonnull (strstr (r.out, "registers per thread"));
  g_assert_nonnull (strstr (r.out, "compiled for sm_90"));
  g_assert_cmpstr (r.err, ==, "");
}

/* An error on line 5, column 14 (the undeclared identifier), in the form
 * editors jump to, and exit status 1. */
static void
test_check_error_location (void)
{
  static const char broken[] =
    "__global__ void add (float *result, const float *a, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    result[i] = bogus[i];\n"
    "}\n";
  g_autofree char *path = NULL;
  g_autofree char *expect = NULL;
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  path = write_source ("broken.cu", broken);
  RUN (&r, "--check", path);
  g_assert_cmpint (r.status, ==, 1);
  expect = g_strdup_printf ("%s:5:17: error: identifier \"bogus\" is undefined", path);
  g_assert_nonnull (strstr (r.err, expect));
  g_assert_true (g_str_has_prefix (last_line (r.err), "kernelscope-cli: "));
  g_assert_nonnull (strstr (last_line (r.err), "does not compile"));
}

/* Warnings are reported and do not fail the check. */
static void
test_check_warning (void)
{
  static const char warns[] =
    "__global__ void fill (int *out, int n)\n"
    "{\n"
    "  int unused;\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    out[i] = i;\n"
    "}\n";
  g_autofree char *path = NULL;
  g_autofree char *expect = NULL;
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  path = write_source ("warns.cu", warns);
  RUN (&r, "--check", path);
  g_assert_cmpint (r.status, ==, 0);
  expect = g_strdup_printf ("%s:3:7: warning:", path);
  g_assert_nonnull (strstr (r.err, expect));
  g_assert_null (strstr (r.err, ": error:"));
}

/* An expression is checked at its own lines: the prelude Kernelscope wraps
 * it in does not shift them. */
static void
test_check_expression (void)
{
  g_auto (KsTestProgramResult) good = { 0 };
  g_auto (KsTestProgramResult) bad = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&good, "--check", "--expr", "out = make_uchar4 (255 - in.x, 255 - in.y, 255 - in.z, in.w);");
  g_assert_cmpint (good.status, ==, 0);
  g_assert_nonnull (strstr (good.out, "compiled for sm_"));

  RUN (&bad, "--check", "--expr", "unsigned v = in.x;\nout = nope (v);");
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, "expression:2:7: error:"));
}

/* A bad annotation is refused at its line before anything is compiled. */
static void
test_check_bad_annotation (void)
{
  static const char text[] =
    "//@param float gain 9 [0, 4] \"Gain\"\n"
    "__global__ void k (ks_image out, ks_image in, ks_params p) { }\n";
  g_autofree char *path = NULL;
  g_autofree char *expect = NULL;
  g_auto (KsTestProgramResult) r = { 0 };

  path = write_source ("annotation.cu", text);
  RUN (&r, "--check", path);
  g_assert_cmpint (r.status, ==, 1);
  expect = g_strdup_printf ("%s:1:", path);
  g_assert_nonnull (strstr (r.err, expect));
  g_assert_nonnull (strstr (r.err, "error:"));
}

static void
test_check_json (void)
{
  static const char broken[] =
    "__global__ void k (int *out)\n"
    "{\n"
    "  out[0] = missing;\n"
    "}\n";
  g_autofree char *path = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *root, *first;
  JsonArray *diagnostics;
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  path = write_source ("json.cu", broken);
  RUN (&r, "--check", "--json", path);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_false (json_object_get_boolean_member (root, "compiled"));
  g_assert_false (json_object_get_boolean_member (root, "ran"));
  g_assert_cmpstr (json_object_get_string_member (root, "mode"), ==, "any");
  diagnostics = json_object_get_array_member (root, "diagnostics");
  g_assert_cmpuint (json_array_get_length (diagnostics), >=, 1);
  first = json_array_get_object_element (diagnostics, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "severity"), ==, "error");
  g_assert_cmpint (json_object_get_int_member (first, "line"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (first, "column"), ==, 12);
}

static void
test_usage (void)
{
  g_autofree char *path = write_source ("usage.cu", add_source);
  struct
  {
    const char *args[6];
    const char *needle;
  } cases[] = {
    { { NULL }, "needs a .cu file or --expr" },
    { { "--kind", "shader", path, NULL }, "--kind is expression, image or any" },
    { { "--expr", "out = in;", path, NULL }, "not both" },
    { { "--arch", "7", path, NULL }, "--arch" },
    { { "--timeout", "0", path, NULL }, "--timeout" },
    { { "--repeat", "0", path, NULL }, "--repeat" },
    { { path, path, NULL }, "one .cu file" },
    { { "--ppt", "3", "--expr", "out = in;", NULL }, "--ppt" },
    { { "--printf-buffer", "100", "--expr", "out = in;", NULL }, "--printf-buffer" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (KsTestProgramResult) r = { 0 };
      const char *args[8] = { NULL };

      for (guint k = 0; cases[i].args[k] != NULL; k++)
        args[k] = cases[i].args[k];
      run_cli_env (&r, NULL, args);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].needle));
      g_assert_true (g_str_has_prefix (r.err, "kernelscope-cli: "));
    }
}

static void
test_missing_file (void)
{
  g_autofree char *path = g_build_filename (tmp_dir, "nowhere.cu", NULL);
  g_auto (KsTestProgramResult) r = { 0 };

  RUN (&r, "--check", path);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "cannot read"));
  g_assert_nonnull (strstr (r.err, "nowhere.cu"));
}

/* NVRTC pointed at a file that does not exist: the message says what is
 * missing and how to get it; nothing crashes. */
static void
test_nvrtc_missing (void)
{
  g_autofree char *path = write_source ("nvrtc.cu", add_source);
  g_auto (GStrv) envp = g_get_environ ();
  g_auto (KsTestProgramResult) r = { 0 };

  envp = g_environ_setenv (envp, "KS_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", TRUE);
  run_cli_env (&r, envp, (const char *const[]) { "--check", path, NULL });
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "NVRTC"));
  g_assert_nonnull (strstr (r.err, "/nonexistent/libnvrtc.so.13"));
  g_assert_null (strstr (r.err, "CRITICAL"));
}

/* The CPU engine runs a kernel (--engine cpu, or by default without a GPU)
 * and says so; what its checks find is printed like compute-sanitizer's
 * report, and fails the command. */
static void
test_run_on_cpu (void)
{
  static const char unguarded[] =
    "__global__ void twice (float *out, const float *a)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  out[i] = 2.0f * a[i];\n"
    "}\n";
  g_autofree char *path = write_source ("run.cu", add_source);
  g_autofree char *bad = write_source ("unguarded.cu", unguarded);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) j = { 0 };
  g_auto (KsTestProgramResult) f = { 0 };
  JsonObject *root, *finding;
  JsonArray *findings;

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, path, "--engine", "cpu", "--arg", "result=f32[40]:zeros:out", "--arg",
       "a=f32[40]:range", "--arg", "b=f32[40]:const(1)", "--arg", "n=40", "--block", "32");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "engine: CPU engine"));
  g_assert_nonnull (strstr (r.out, "ERROR SUMMARY: 0 errors"));
  g_assert_nonnull (strstr (r.out, "[0] 1, [1] 2, [2] 3"));
  g_assert_nonnull (strstr (r.out, "[39] 40"));

  /* 30 elements, a block of 32: threads 30 and 31 read and write past both
   * arrays, four reports naming the array, the thread and the line. */
  RUN (&f, bad, "--engine", "cpu", "--arg", "out=f32[30]:zeros:out", "--arg", "a=f32[30]:range",
       "--block", "32");
  g_assert_cmpint (f.status, ==, 1);
  g_assert_nonnull (strstr (f.out, "========= Invalid __global__ write of size 4 bytes"));
  g_assert_nonnull (strstr (f.out, "unguarded.cu:4 in _Z5twicePfPKf"));
  g_assert_nonnull (strstr (f.out, "by thread (31,0,0) in block (0,0,0)"));
  g_assert_nonnull (strstr (f.out, "nearest allocation “out”"));
  g_assert_nonnull (strstr (f.out, "ERROR SUMMARY: 4 errors"));
  g_assert_nonnull (strstr (f.err, "found 4 problems"));
  /* The 30 elements that exist are right all the same. */
  g_assert_nonnull (strstr (f.out, "[29] 58"));

  RUN (&j, bad, "--engine", "cpu", "--json", "--arg", "out=f32[30]:zeros:out", "--arg",
       "a=f32[30]:range", "--block", "32");
  g_assert_cmpint (j.status, ==, 1);
  g_assert_true (json_parser_load_from_data (parser, j.out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "engine"), ==,
                   "CPU engine (PTX emulator)");
  g_assert_true (json_object_get_boolean_member (root, "ran"));
  g_assert_cmpint (json_object_get_int_member (root, "findings_total"), ==, 4);
  findings = json_object_get_array_member (root, "findings");
  g_assert_cmpuint (json_array_get_length (findings), ==, 4);
  finding = json_array_get_object_element (findings, 3);
  g_assert_cmpstr (json_object_get_string_member (finding, "kind"), ==, "out-of-bounds");
  g_assert_cmpstr (json_object_get_string_member (finding, "access"), ==, "write");
  g_assert_cmpint (json_object_get_int_member (finding, "line"), ==, 4);
  g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (finding, "thread"),
                                               0), ==, 31);
}

/* --check reads the bindings against the signature as a run would: a
 * missing one fails at the argument's line, with no GPU and no run. */
static void
test_check_bindings (void)
{
  g_autofree char *path = NULL;
  g_autofree char *where = NULL;
  g_auto (KsTestProgramResult) ok = { 0 };
  g_auto (KsTestProgramResult) missing = { 0 };
  g_auto (KsTestProgramResult) wrong = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  path = write_source ("check-args.cu", add_source);
  RUN (&ok, "--check", "--arch", "90", path, "--arg", "result=f32[8]", "--arg",
       "a=f32[8]:random(1, 0, 255)", "--arg", "b=f32[8]:random(2, -1, 1)", "--arg", "n=8");
  g_assert_cmpint (ok.status, ==, 0);
  g_assert_nonnull (strstr (ok.out, "compiled for sm_90"));

  RUN (&missing, "--check", "--arch", "90", path, "--arg", "a=f32[8]", "--arg", "b=f32[8]",
       "--arg", "n=8");
  g_assert_cmpint (missing.status, ==, 2);
  where = g_strdup_printf ("%s:2:29: error: “result” is not bound", path);
  g_assert_nonnull (strstr (missing.err, where));
  g_assert_null (strstr (missing.out, "compiled for"));

  /* a struct the compiler packs otherwise than C's rules say: --check
   * refuses it as a run would, before any GPU is asked */
  {
    g_autofree char *packed = write_source ("packed.cu",
                                            "struct __attribute__((packed)) S { char c; int x; };\n"
                                            "__global__ void k (S *out, S s) { out[0] = s; }\n");
    g_auto (KsTestProgramResult) p = { 0 };

    RUN (&p, "--check", "--arch", "90", packed);
    g_assert_cmpint (p.status, ==, 1);
    g_assert_nonnull (strstr (p.err, "The compiler lays out S in 5 bytes aligned to 1"));
    g_assert_null (strstr (p.out, "compiled for"));
  }

  /* a size mismatch: f64 data for a float pointer */
  RUN (&wrong, "--check", "--arch", "90", path, "--arg", "result=f64[8]", "--arg", "a=f32[8]",
       "--arg", "b=f32[8]", "--arg", "n=8");
  g_assert_cmpint (wrong.status, ==, 2);
  g_assert_nonnull (strstr (wrong.err, "result"));
}

/* Inputs saved to files run the kernel to the same result: --save-inputs
 * writes each in and inout array and the options that read them back, the
 * JSON names every binding and its seed, and --save writes an in array as
 * the kernel read it. An array kernel's default block is a row of 256. */
static void
test_save_inputs (void)
{
  g_autofree char *path = write_source ("save.cu", add_source);
  g_autofree char *dir = g_build_filename (tmp_dir, "inputs", NULL);
  g_autofree char *a_npy = g_build_filename (dir, "a.npy", NULL);
  g_autofree char *b_csv = g_build_filename (tmp_dir, "b.csv", NULL);
  g_autofree char *a_file = NULL;
  g_autofree char *b_file = NULL;
  g_autofree char *b_text = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_auto (KsTestProgramResult) first = { 0 };
  g_auto (KsTestProgramResult) again = { 0 };
  g_auto (KsTestProgramResult) j = { 0 };
  const char *first_result, *again_result;
  JsonObject *root, *a;
  JsonArray *bindings;

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&first, path, "--engine", "cpu", "--arg", "result=f32[300]:zeros:out", "--arg",
       "a=f32[300]:random(4, 0, 255)", "--arg", "b=f32[300]:normal(5)", "--arg", "n=300",
       "--save-inputs", dir, "--save", "b=" , "--show", "300");
  /* an empty FILE is a usage error, after the run: nothing is half written */
  g_assert_cmpint (first.status, ==, 2);
  ks_test_program_result_clear (&first);

  RUN (&first, path, "--engine", "cpu", "--arg", "result=f32[300]:zeros:out", "--arg",
       "a=f32[300]:random(4, 0, 255)", "--arg", "b=f32[300]:normal(5)", "--arg", "n=300",
       "--save-inputs", dir, "--save", b_csv, "--show", "300");
  g_assert_cmpint (first.status, ==, 2);   /* --save needs NAME=FILE */
  ks_test_program_result_clear (&first);

  b_text = g_strconcat ("b=", b_csv, NULL);
  RUN (&first, path, "--engine", "cpu", "--arg", "result=f32[300]:zeros:out", "--arg",
       "a=f32[300]:random(4, 0, 255)", "--arg", "b=f32[300]:normal(5)", "--arg", "n=300",
       "--save-inputs", dir, "--save", b_text, "--show", "300");
  g_assert_cmpint (first.status, ==, 0);
  g_assert_nonnull (strstr (first.out, "launch: grid 2×1, block 256×1"));
  g_assert_true (g_file_test (a_npy, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (b_csv, G_FILE_TEST_EXISTS));
  /* out arrays hold nothing before the run: not saved */
  g_assert_null (strstr (first.out, "saved the input result"));
  a_file = g_strdup_printf ("a=f32[300]:file(%s)", a_npy);
  b_file = g_strdup_printf ("b=f32[300]:file(%s):in", b_csv);
  g_assert_nonnull (strstr (first.out, a_file));

  RUN (&again, path, "--engine", "cpu", "--arg", "result=f32[300]:zeros:out", "--arg", a_file,
       "--arg", b_file, "--arg", "n=300", "--show", "300");
  g_assert_cmpint (again.status, ==, 0);
  first_result = strstr (first.out, "result (f32");
  again_result = strstr (again.out, "result (f32");
  g_assert_nonnull (first_result);
  g_assert_nonnull (again_result);
  /* the .npy keeps every bit; the .csv prints floats with %.9g, which reads back exactly */
  {
    g_autofree char *line1 = g_strndup (first_result, strcspn (first_result, "\n"));
    g_autofree char *line2 = g_strndup (again_result, strcspn (again_result, "\n"));

    g_assert_cmpstr (line2, ==, line1);
  }

  RUN (&j, path, "--engine", "cpu", "--json", "--arg", "result=f32[4]:zeros:out", "--arg",
       "a=f32[4]:random(4, 0, 255)", "--arg", "b=f32[4]:normal(5)", "--arg", "n=4");
  g_assert_cmpint (j.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, j.out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  bindings = json_object_get_array_member (root, "bindings");
  g_assert_cmpuint (json_array_get_length (bindings), ==, 4);
  a = json_array_get_object_element (bindings, 1);
  g_assert_cmpstr (json_object_get_string_member (a, "name"), ==, "a");
  g_assert_cmpstr (json_object_get_string_member (a, "binding"), ==, "a=f32[4]:random(4, 0, 255)");
  g_assert_cmpstr (json_object_get_string_member (a, "init"), ==, "random");
  g_assert_cmpint (json_object_get_int_member (a, "seed"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (bindings, 2),
                                               "seed"), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (bindings, 3),
                                                  "value"), ==, "4");
}

/* A pasted kernel with standard headers, a helper header from --include-dir,
 * complex arithmetic and two kernels, picked with --kernel: the numbers the
 * CPU engine computes, exactly (small integers in floats). */
static void
test_headers_and_kernels (void)
{
  static const char pasted[] =
    "#include <stdio.h>\n"
    "#include <math.h>\n"
    "#include <cuComplex.h>\n"
    "#include <math_constants.h>\n"
    "#include \"helper.cuh\"\n"
    "typedef unsigned int uint;\n"
    "\n"
    "/* z = (a + i)(2 + a i) = a + (a² + 2) i; out = 2 re + im + |3 + 4i| */\n"
    "__global__ void mul (float *out, const float *a, uint n)\n"
    "{\n"
    "  uint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    {\n"
    "      cuFloatComplex z = cuCmulf (make_cuFloatComplex (a[i], 1.0f),\n"
    "                                  make_cuFloatComplex (2.0f, a[i]));\n"
    "      out[i] = twice (cuCrealf (z)) + cuCimagf (z) + cuCabsf (make_cuFloatComplex (3, 4));\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void quotient (float *out, const float *a, uint n)\n"
    "{\n"
    "  uint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  /* (a² - 1 + 2a i) / (a + i) = a + i */\n"
    "  cuDoubleComplex num = make_cuDoubleComplex (a[i] * a[i] - 1.0, 2.0 * a[i]);\n"
    "  if (i < n)\n"
    "    out[i] = (float) cuCreal (cuCdiv (num, make_cuDoubleComplex (a[i], 1.0)))\n"
    "             + 10.0f * (float) cuCimag (cuCdiv (num, make_cuDoubleComplex (a[i], 1.0)));\n"
    "}\n";
  g_autofree char *inc = g_build_filename (tmp_dir, "inc", NULL);
  g_autofree char *helper = g_build_filename (inc, "helper.cuh", NULL);
  g_autofree char *path = write_source ("pasted.cu", pasted);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_auto (KsTestProgramResult) several = { 0 };
  g_auto (KsTestProgramResult) mul = { 0 };
  g_auto (KsTestProgramResult) quotient = { 0 };
  g_auto (KsTestProgramResult) unknown = { 0 };
  g_auto (KsTestProgramResult) missing = { 0 };
  g_auto (KsTestProgramResult) bad_dir = { 0 };
  g_auto (KsTestProgramResult) json = { 0 };
  g_autofree char *expect = NULL;
  JsonObject *root;
  JsonArray *functions, *headers;

  g_assert_cmpint (g_mkdir_with_parents (inc, 0700), ==, 0);
  g_assert_true (g_file_set_contents (helper, "#pragma once\n"
                                      "__device__ float twice (float x) { return 2.0f * x; }\n",
                                      -1, &error));
  g_assert_no_error (error);

  RUN (&bad_dir, "--check", "--include-dir", "/nonexistent/ks-include", path);
  g_assert_cmpint (bad_dir.status, ==, 2);
  g_assert_nonnull (strstr (bad_dir.err, "--include-dir /nonexistent/ks-include: no such folder"));

  if (!ks_test_have_nvrtc ())
    return;

  /* Several kernels and no choice: the error names them. */
  RUN (&several, "--check", "-I", inc, path);
  g_assert_cmpint (several.status, ==, 1);
  g_assert_nonnull (strstr (several.err, "several __global__ functions (mul, quotient)"));

  RUN (&mul, path, "--engine", "cpu", "--include-dir", inc, "--kernel", "mul", "--arg",
       "out=f32[5]:const(-1):out", "--arg", "a=f32[5]:range", "--arg", "n=5", "--block", "8");
  g_assert_cmpint (mul.status, ==, 0);
  g_assert_nonnull (strstr (mul.out, "kernel mul (sm_90)"));
  g_assert_nonnull (strstr (mul.out, "out (f32, 5 elements): [0] 7, [1] 10, [2] 15, [3] 22, [4] 31"));

  RUN (&quotient, path, "--engine", "cpu", "-I", inc, "--kernel", "quotient", "--arg",
       "out=f32[4]:const(-1):out", "--arg", "a=f32[4]:range", "--arg", "n=4", "--block", "4");
  g_assert_cmpint (quotient.status, ==, 0);
  g_assert_nonnull (strstr (quotient.out, "[0] 10, [1] 11, [2] 12, [3] 13"));

  RUN (&unknown, "--check", "-I", inc, "--kernel", "nope", path);
  g_assert_cmpint (unknown.status, ==, 1);
  g_assert_nonnull (strstr (unknown.err, "“nope”, but there is no __global__ function of that "
                                         "name (the source has mul, quotient)"));

  /* Without the include folder: the helper is missing, and the message
   * names the folder searched and the option. */
  RUN (&missing, "--check", "--kernel", "mul", path);
  g_assert_cmpint (missing.status, ==, 1);
  expect = g_strdup_printf ("%s:5:22: error: cannot open “helper.cuh”: it is not in %s", path,
                            tmp_dir);
  g_assert_nonnull (strstr (missing.err, expect));
  g_assert_nonnull (strstr (missing.err, "--include-dir DIR"));

  RUN (&json, "--check", "--json", "-I", inc, "--kernel", "quotient", path);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, json.out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "entry"), ==, "quotient");
  functions = json_object_get_array_member (root, "functions");
  g_assert_cmpuint (json_array_get_length (functions), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (functions, 0), ==, "mul");
  g_assert_cmpstr (json_array_get_string_element (functions, 1), ==, "quotient");
  headers = json_object_get_array_member (root, "headers");
  g_assert_cmpuint (json_array_get_length (headers), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (headers, 0),
                                                  "path"), ==, helper);
}

/* An error inside an included header, at the header's FILE:LINE:COL. */
static void
test_error_in_header (void)
{
  g_autofree char *inc = g_build_filename (tmp_dir, "broken-inc", NULL);
  g_autofree char *helper = g_build_filename (inc, "helper.cuh", NULL);
  g_autofree char *path = write_source ("uses-broken.cu",
                                        "#include <helper.cuh>\n"
                                        "__global__ void k (float *o) { o[0] = twice (1); }\n");
  g_autoptr (GError) error = NULL;
  g_autofree char *expect = NULL;
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  g_assert_cmpint (g_mkdir_with_parents (inc, 0700), ==, 0);
  g_assert_true (g_file_set_contents (helper, "#pragma once\n\n"
                                      "__device__ float twice (float x) { return x + oops; }\n",
                                      -1, &error));
  RUN (&r, "--check", "-I", inc, path);
  g_assert_cmpint (r.status, ==, 1);
  expect = g_strdup_printf ("%s:3:47: error: identifier \"oops\" is undefined", helper);
  g_assert_nonnull (strstr (r.err, expect));
}

/* Declared kernels: the generated source, a run with n and result bound by
 * themselves, the JSON report, errors at the user's piece and usage. */
static void
test_declared (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_auto (KsTestProgramResult) s = { 0 };
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) j = { 0 };
  g_auto (KsTestProgramResult) c = { 0 };
  g_auto (KsTestProgramResult) u = { 0 };
  g_auto (KsTestProgramResult) m = { 0 };
  JsonObject *root, *declared;

  RUN (&s, "--elementwise", "float a, float *x, float *y, float *z", "--operation",
       "z[i] = a*x[i] + y[i]", "--name", "axpy", "--emit-source");
  g_assert_cmpint (s.status, ==, 0);
  g_assert_nonnull (strstr (s.out, "__global__ void\naxpy (float a, float *x, float *y, float *z, "
                            "unsigned long n)\n"));
  g_assert_nonnull (strstr (s.out, "#line 1 \"operation\"\nz[i] = a*x[i] + y[i] ;\n"));

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, "--engine", "cpu", "--elementwise", "float a, const float *x, float *z",
       "--operation", "z[i] = a*x[i]", "--arg", "a=3", "--arg", "x=f32[2000]:range", "--arg",
       "z=f32[2000]:zeros:out");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "launch: grid 8×1, block 256×1"));
  g_assert_nonnull (strstr (r.out, "z (f32, 2000 elements): [0] 0, [1] 3, [2] 6"));
  g_assert_nonnull (strstr (r.out, "[1999] 5997"));

  /* 1000 × 999 / 2 exactly. */
  RUN (&j, "--engine", "cpu", "--json", "--reduce", "a+b", "--map", "x[i]", "--arguments",
       "const int *x", "--dtype-out", "int", "--neutral", "0", "--name", "total", "--arg",
       "x=i32[1000]:range");
  g_assert_cmpint (j.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, j.out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "file"), ==, "total.cu");
  declared = json_object_get_object_member (root, "declared");
  g_assert_cmpstr (json_object_get_string_member (declared, "kind"), ==, "reduction");
  g_assert_cmpstr (json_object_get_string_member (declared, "source"), ==, "total.cu");
  g_assert_nonnull (strstr (json_object_get_string_member (declared, "text"),
                            "#line 1 \"map_expr\"\nx[i] ));"));
  g_assert_cmpfloat (json_object_get_double_member (root, "result"), ==, 499500);

  RUN (&c, "--check", "--scan", "a+q", "--dtype", "int");
  g_assert_cmpint (c.status, ==, 1);
  g_assert_nonnull (strstr (c.err, "scan_expr:1:3: error: identifier \"q\" is undefined"));

  RUN (&u, "--reduce", "a+b", "--map", "x[i]", "--arguments", "float *x", "--neutral",
       "0");
  g_assert_cmpint (u.status, ==, 2);
  g_assert_nonnull (strstr (u.err, "--reduce needs --dtype-out TYPE"));
  RUN (&m, "--elementwise", "float *x", "--operation", "x[i] = 0", "--map", "x[i]");
  g_assert_cmpint (m.status, ==, 2);
  g_assert_nonnull (strstr (m.err, "--map belongs to --reduce, not to --elementwise"));
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
  tmp_dir = g_dir_make_tmp ("ks-test-cli-kernel-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/cli/kernel/check/good", test_check_good);
  g_test_add_func ("/ks/cli/kernel/check/error-location", test_check_error_location);
  g_test_add_func ("/ks/cli/kernel/check/warning", test_check_warning);
  g_test_add_func ("/ks/cli/kernel/check/expression", test_check_expression);
  g_test_add_func ("/ks/cli/kernel/check/bad-annotation", test_check_bad_annotation);
  g_test_add_func ("/ks/cli/kernel/check/json", test_check_json);
  g_test_add_func ("/ks/cli/kernel/usage", test_usage);
  g_test_add_func ("/ks/cli/kernel/missing-file", test_missing_file);
  g_test_add_func ("/ks/cli/kernel/nvrtc-missing", test_nvrtc_missing);
  g_test_add_func ("/ks/cli/kernel/run/cpu", test_run_on_cpu);
  g_test_add_func ("/ks/cli/kernel/check/bindings", test_check_bindings);
  g_test_add_func ("/ks/cli/kernel/run/save-inputs", test_save_inputs);
  g_test_add_func ("/ks/cli/kernel/headers-and-kernels", test_headers_and_kernels);
  g_test_add_func ("/ks/cli/kernel/error-in-header", test_error_in_header);
  g_test_add_func ("/ks/cli/kernel/declared", test_declared);

  ret = g_test_run ();
  ks_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (cli_path);
  return ret;
}
