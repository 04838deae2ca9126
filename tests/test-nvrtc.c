#include "config.h"

#include <glib.h>
#include <string.h>

#include "ks-error.h"
#include "ks-nvrtc.h"
#include "ks-test-helpers.h"

/* Every compiled test targets the H200's architecture; NVRTC needs no GPU for it. */
#define TEST_ARCH 90

/* ---- the log parser, on text NVRTC 13.0 printed ---------------------------- */

/* A tab and spaces before the statement: NVRTC copies the tab into the caret
 * line, so the caret's byte offset is the column. */
static const char log_basic[] =
  "user.cu(4): error: identifier \"undefined_thing\" is undefined\n"
  "    \t  undefined_thing(); p[0]=1 }\n"
  "    \t  ^\n"
  "\n"
  "user.cu(4): error: expected a \";\"\n"
  "    \t  undefined_thing(); p[0]=1 }\n"
  "    \t                            ^\n"
  "\n"
  "user.cu(3): warning #177-D: variable \"unused\" was declared but never referenced\n"
  "  \tint unused;\n"
  "  \t    ^\n"
  "\n"
  "user.cu(8): remark #20200-D: #pragma message: \"hi\"\n"
  "  #pragma message(\"hi\")\n"
  "                       ^\n"
  "\n"
  "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
  "\n"
  "2 errors detected in the compilation of \"prog.cu\".\n";

static const KsDiagnostic *
diagnostic_at (GPtrArray *diagnostics, guint i)
{
  g_assert_cmpuint (i, <, diagnostics->len);
  return g_ptr_array_index (diagnostics, i);
}

static void
test_parse_log_basic (void)
{
  g_autoptr(GPtrArray) diagnostics = ks_nvrtc_parse_log (log_basic);
  const KsDiagnostic *d;

  /* The remark's summary and the error count are not diagnostics. */
  g_assert_cmpuint (diagnostics->len, ==, 4);

  d = diagnostic_at (diagnostics, 0);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpstr (d->file, ==, "user.cu");
  g_assert_cmpuint (d->line, ==, 4);
  g_assert_cmpuint (d->column, ==, 6); /* "  \t  undefined_thing": 2 spaces, a tab, 2 spaces */
  g_assert_null (d->code);
  g_assert_cmpstr (d->message, ==, "identifier \"undefined_thing\" is undefined");

  d = diagnostic_at (diagnostics, 1);
  g_assert_cmpuint (d->line, ==, 4);
  g_assert_cmpuint (d->column, ==, 32); /* the "}" where the ";" is missing */
  g_assert_cmpstr (d->message, ==, "expected a \";\"");

  d = diagnostic_at (diagnostics, 2);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_WARNING);
  g_assert_cmpuint (d->line, ==, 3);
  g_assert_cmpuint (d->column, ==, 6);
  g_assert_cmpstr (d->code, ==, "177-D");
  g_assert_cmpstr (d->message, ==, "variable \"unused\" was declared but never referenced");

  d = diagnostic_at (diagnostics, 3);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_NOTE);
  g_assert_cmpuint (d->line, ==, 8);
  g_assert_cmpuint (d->column, ==, 22); /* just after the line's last character */
  g_assert_cmpstr (d->code, ==, "20200-D");
}

static void
test_parse_log_continuations (void)
{
  static const char log[] =
    "user.cu(3): error: more than one instance of overloaded function \"f\" matches the "
    "argument list:\n"
    "            function \"f(int)\" (declared at line 1)\n"
    "            function \"f(float)\" (declared at line 2)\n"
    "            argument types are: (double)\n"
    "  __global__ void k(float *p){ p[0] = f(1.0); }\n"
    "                                      ^\n"
    "\n"
    "user.cu(4): error: expression must have class type but it has type \"float\"\n"
    "  template <typename T> __device__ T h(T x) { return x.nope; }\n"
    "                                                     ^\n"
    "          detected during:\n"
    "            instantiation of \"T h(T) [with T=float]\" at line 5\n"
    "            instantiation of \"T h2(T) [with T=float]\" at line 6 of \"other.cu\"\n"
    "\n"
    "user.cu(1): error: expression must have class type but it has type \"float\"\n"
    "  template <typename T> __device__ T f(T x) { return x.nope; }\n"
    "                                                     ^\n"
    "          detected during instantiation of \"T f(T) [with T=float]\" at line 2\n"
    "\n"
    "3 errors detected in the compilation of \"prog.cu\".\n";
  g_autoptr(GPtrArray) diagnostics = ks_nvrtc_parse_log (log);
  const KsDiagnostic *d;

  g_assert_cmpuint (diagnostics->len, ==, 6);

  /* The candidates belong to the message, not to the echoed line. */
  d = diagnostic_at (diagnostics, 0);
  g_assert_cmpuint (d->line, ==, 3);
  g_assert_cmpuint (d->column, ==, 37);
  g_assert_true (g_str_has_prefix (d->message, "more than one instance"));
  g_assert_nonnull (strstr (d->message, "\nfunction \"f(int)\" (declared at line 1)\n"));
  g_assert_true (g_str_has_suffix (d->message, "\nargument types are: (double)"));

  d = diagnostic_at (diagnostics, 1);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpuint (d->line, ==, 4);
  g_assert_cmpuint (d->column, ==, 52);

  /* Where the template was instantiated from: notes at those lines. */
  d = diagnostic_at (diagnostics, 2);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_NOTE);
  g_assert_cmpstr (d->file, ==, "user.cu");
  g_assert_cmpuint (d->line, ==, 5);
  g_assert_cmpstr (d->message, ==, "instantiation of \"T h(T) [with T=float]\"");
  d = diagnostic_at (diagnostics, 3);
  g_assert_cmpstr (d->file, ==, "other.cu");
  g_assert_cmpuint (d->line, ==, 6);

  d = diagnostic_at (diagnostics, 5);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_NOTE);
  g_assert_cmpuint (d->line, ==, 2);
  g_assert_cmpstr (d->message, ==, "instantiation of \"T f(T) [with T=float]\"");
}

static void
test_parse_log_unlocated (void)
{
  static const char log[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas error   : Entry function '_Z3bigPf' uses too much shared data (0x61a80 bytes, "
    "0xc000 max)\n"
    "nvrtc: error: unrecognized option --bogus found\n"
    "error: a message without a place\n"
    "prog.cu(1): catastrophic error: #error directive: stop here\n"
    "  #error stop here\n"
    "   ^\n"
    "\n"
    "1 catastrophic error detected in the compilation of \"prog.cu\".\n"
    "Compilation terminated.\n";
  g_autoptr(GPtrArray) diagnostics = ks_nvrtc_parse_log (log);
  const KsDiagnostic *d;

  g_assert_cmpuint (diagnostics->len, ==, 4);
  d = diagnostic_at (diagnostics, 0);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpuint (d->line, ==, 0);
  g_assert_cmpuint (d->column, ==, 0);
  g_assert_cmpstr (d->message, ==,
                   "Entry function '_Z3bigPf' uses too much shared data (0x61a80 bytes, "
                   "0xc000 max)");
  d = diagnostic_at (diagnostics, 1);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpstr (d->message, ==, "unrecognized option --bogus found");
  d = diagnostic_at (diagnostics, 2);
  g_assert_cmpuint (d->line, ==, 0);
  g_assert_cmpstr (d->message, ==, "a message without a place");
  d = diagnostic_at (diagnostics, 3);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpstr (d->file, ==, "prog.cu");
  g_assert_cmpuint (d->line, ==, 1);
  g_assert_cmpuint (d->column, ==, 2);
  g_assert_cmpstr (d->message, ==, "#error directive: stop here");
}

static void
test_parse_log_utf8 (void)
{
  /* NVRTC puts a space per byte under "é"; an editor counts it as one column. */
  static const char log[] =
    "user.cu(1): error: identifier \"zzz\" is undefined\n"
    "  __global__ void k(){ /* \xc3\xa9\xc3\xa9\xc3\xa9 */ zzz; }\n"
    "                                    ^\n";
  g_autoptr(GPtrArray) diagnostics = ks_nvrtc_parse_log (log);

  g_assert_cmpuint (diagnostics->len, ==, 1);
  g_assert_cmpuint (diagnostic_at (diagnostics, 0)->column, ==, 32);

  g_clear_pointer (&diagnostics, g_ptr_array_unref);
  diagnostics = ks_nvrtc_parse_log ("");
  g_assert_cmpuint (diagnostics->len, ==, 0);
  g_clear_pointer (&diagnostics, g_ptr_array_unref);
  diagnostics = ks_nvrtc_parse_log ("ptxas info    : Used 8 registers, used 0 barriers\n");
  g_assert_cmpuint (diagnostics->len, ==, 0);
}

static void
test_diagnostic_format (void)
{
  g_autoptr(KsDiagnostic) d = ks_diagnostic_new (KS_DIAGNOSTIC_ERROR, "user.cu", 12, 5,
                                                 "identifier \"foo\" is undefined");
  g_autoptr(KsDiagnostic) w = ks_diagnostic_new (KS_DIAGNOSTIC_WARNING, "user.cu", 3, 0,
                                                 "unused");
  g_autoptr(KsDiagnostic) n = ks_diagnostic_new (KS_DIAGNOSTIC_NOTE, "prog.cu", 0, 0, "hm");
  g_autoptr(KsDiagnostic) copy = NULL;
  g_autofree char *text = ks_diagnostic_format (d);
  g_autofree char *wtext = ks_diagnostic_format (w);
  g_autofree char *ntext = ks_diagnostic_format (n);

  g_assert_cmpstr (text, ==, "user.cu:12:5: error: identifier \"foo\" is undefined");
  g_assert_cmpstr (wtext, ==, "user.cu:3: warning: unused");
  g_assert_cmpstr (ntext, ==, "prog.cu: note: hm");

  d->code = g_strdup ("20-D");
  copy = ks_diagnostic_copy (d);
  g_assert_cmpstr (copy->code, ==, "20-D");
  g_assert_cmpstr (copy->message, ==, d->message);
  g_assert_true (copy->message != d->message);
}

static const char ptxas_log[] =
  "user.cu(5): warning #177-D: variable \"q\" was declared but never referenced\n"
  "  __device__ int unusedfn(int a) { int q; return a; }\n"
  "                                       ^\n"
  "\n"
  "ptxas info    : 0 bytes gmem\n"
  "ptxas info    : Compiling entry function '_Z2k4Pf' for 'sm_90'\n"
  "ptxas info    : Function properties for _Z2k4Pf\n"
  "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
  "ptxas info    : Used 8 registers, used 0 barriers\n"
  "ptxas info    : Compile time = 1.864 ms\n"
  "ptxas info    : Function properties for _Z1gi\n"
  "ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
  "ptxas info    : Compiling entry function '_Z2k3Pf' for 'sm_90'\n"
  "ptxas info    : Function properties for _Z2k3Pf\n"
  "ptxas         .     4000 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
  "ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0], "
  "4000 bytes cumulative stack size\n"
  "ptxas info    : Compile time = 8.846 ms\n";

static void
test_parse_resources (void)
{
  KsKernelResources r = { 0 };

  g_assert_true (ks_nvrtc_parse_resources (ptxas_log, "_Z2k3Pf", &r));
  g_assert_cmpuint (r.num_regs, ==, 32);
  g_assert_cmpuint (r.barriers, ==, 1);
  g_assert_cmpuint (r.shared_static, ==, 1024);
  g_assert_cmpuint (r.const_bytes, ==, 360);
  g_assert_cmpuint (r.local_bytes, ==, 4000);
  g_assert_cmpuint (r.spill_stores, ==, 8);
  g_assert_cmpuint (r.spill_loads, ==, 12);

  /* Another entry's numbers do not leak into this one's, nor a device function's. */
  g_assert_true (ks_nvrtc_parse_resources (ptxas_log, "_Z2k4Pf", &r));
  g_assert_cmpuint (r.num_regs, ==, 8);
  g_assert_cmpuint (r.barriers, ==, 0);
  g_assert_cmpuint (r.shared_static, ==, 0);
  g_assert_cmpuint (r.local_bytes, ==, 0);
  g_assert_cmpuint (r.spill_stores, ==, 0);

  g_assert_false (ks_nvrtc_parse_resources (ptxas_log, "_Z2k3P", &r));
  g_assert_false (ks_nvrtc_parse_resources ("", "_Z2k3Pf", &r));
  g_assert_cmpuint (r.num_regs, ==, 0);
}

/* ---- loading ------------------------------------------------------------- */

static void
test_load_missing (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) again = NULL;
      g_autoptr(GArray) archs = NULL;
      KsCompileRequest request = { .source = "__global__ void k() {}", .arch = TEST_ARCH };

      g_setenv ("KS_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", TRUE);
      g_assert_false (ks_nvrtc_load (&error));
      g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "/nonexistent/libnvrtc.so.13"));
      g_assert_nonnull (strstr (error->message, "cuda-nvrtc-13-0"));
      g_assert_cmpint (ks_nvrtc_version (), ==, 0);

      /* Everything that needs NVRTC says the same, and nothing crashes. */
      g_assert_null (ks_nvrtc_compile (&request, &again));
      g_assert_error (again, KS_ERROR, KS_ERROR_UNAVAILABLE);
      g_assert_cmpstr (again->message, ==, error->message);
      g_clear_error (&again);
      archs = ks_nvrtc_supported_archs (&again);
      g_assert_null (archs);
      g_assert_error (again, KS_ERROR, KS_ERROR_UNAVAILABLE);

      /* A library that loads but is not NVRTC. */
      g_clear_error (&error);
      g_setenv ("KS_NVRTC_LIBRARY", "libm.so.6", TRUE);
      g_assert_false (ks_nvrtc_load (&error));
      g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "libm.so.6"));
      g_assert_nonnull (strstr (error->message, "nvrtcGetErrorString"));

      /* A failure is remembered only for the path it happened with. */
      g_clear_error (&error);
      g_unsetenv ("KS_NVRTC_LIBRARY");
      if (!ks_nvrtc_load (&error))
        {
          g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
          g_assert_null (strstr (error->message, "libm.so.6"));
          g_assert_nonnull (strstr (error->message, KS_NVRTC_LIBRARY_NAME));
        }
      else
        g_assert_cmpint (ks_nvrtc_version (), >=, 13000);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_supported_archs (void)
{
  g_autoptr(GArray) archs = NULL;
  g_autoptr(GError) error = NULL;
  gboolean has_75 = FALSE;
  gboolean has_90 = FALSE;

  if (!ks_test_have_nvrtc ())
    return;

  g_assert_cmpint (ks_nvrtc_version (), >=, 13000);
  archs = ks_nvrtc_supported_archs (&error);
  g_assert_no_error (error);
  g_assert_cmpuint (archs->len, >, 1);
  for (guint i = 0; i < archs->len; i++)
    {
      guint arch = g_array_index (archs, guint, i);

      if (i > 0)
        g_assert_cmpuint (g_array_index (archs, guint, i - 1), <, arch);
      has_75 |= arch == 75;
      has_90 |= arch == 90;
    }
  g_assert_true (has_75);
  g_assert_true (has_90);
}

/* ---- compiling ------------------------------------------------------------- */

static KsCompileResult *
compile (const char *source, const char *const *entries, const char *const *options)
{
  KsCompileRequest request = {
    .source = source,
    .program_name = "prog.cu",
    .arch = TEST_ARCH,
    .entries = entries,
    .extra_options = options,
  };
  g_autoptr(GError) error = NULL;
  KsCompileResult *result = ks_nvrtc_compile (&request, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_nonnull (result->diagnostics);
  g_assert_nonnull (result->kernels);
  g_assert_nonnull (result->log);
  return result;
}

/* The first error of a source that must not compile. */
static const KsDiagnostic *
first_error (const KsCompileResult *result)
{
  g_assert_false (result->success);
  g_assert_null (result->cubin);
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (d->severity == KS_DIAGNOSTIC_ERROR)
        return d;
    }
  g_assert_not_reached ();
  return NULL;
}

typedef struct
{
  const char *what;
  const char *source;
  guint line;
  guint column;
  const char *message_has;
} BrokenKernel;

static void
test_compile_errors (void)
{
  static const BrokenKernel broken[] = {
    { "undefined identifier",
      "#line 1 \"user.cu\"\n"
      "__global__ void k(float *p)\n"
      "{\n"
      "\tp[0] = undefined_thing;\n"
      "}\n",
      3, 9, "\"undefined_thing\" is undefined" },
    { "missing semicolon: at the next token, as NVRTC says",
      "#line 1 \"user.cu\"\n"
      "__global__ void k(float *p)\n"
      "{\n"
      "  float x = 1.0f\n"
      "    p[0] = x;\n"
      "}\n",
      4, 5, "expected a \";\"" },
    { "type error",
      "#line 1 \"user.cu\"\n"
      "__global__ void k(float *p)\n"
      "{\n"
      "  int *q = 1.5f;\n"
      "  p[0] = *q;\n"
      "}\n",
      3, 12, "cannot be used to initialize" },
    { "wrong argument count",
      "#line 1 \"user.cu\"\n"
      "__device__ int g(int a, int b) { return a + b; }\n"
      "__global__ void k(float *p)\n"
      "{\n"
      "\t  p[1] = g(1);\n"
      "}\n",
      4, 14, "too few arguments" }, /* at the ")" */
  };

  if (!ks_test_have_nvrtc ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(KsCompileResult) result = compile (broken[i].source, NULL, NULL);
      const KsDiagnostic *d = first_error (result);

      g_test_message ("%s: %s:%u:%u: %s", broken[i].what, d->file, d->line, d->column,
                      d->message);
      g_assert_cmpstr (d->file, ==, "user.cu");
      g_assert_cmpuint (d->line, ==, broken[i].line);
      g_assert_cmpuint (d->column, ==, broken[i].column);
      g_assert_nonnull (strstr (d->message, broken[i].message_has));
      g_assert_cmpuint (result->kernels->len, ==, 0);
    }
}

static void
test_compile_prelude (void)
{
  g_autoptr(GString) source = g_string_new (NULL);
  g_autoptr(KsCompileResult) result = NULL;
  const KsDiagnostic *d;

  if (!ks_test_have_nvrtc ())
    return;

  /* What Kernelscope puts before the user's text, hidden behind #line. */
  for (guint i = 0; i < 20; i++)
    g_string_append_printf (source, "__device__ inline int prelude_%u (int x) { return x + %u; }\n",
                            i, i);
  g_string_append (source,
                   "#line 1 \"invert.cu\"\n"
                   "__global__ void invert(unsigned char *p, int n)\n"
                   "{\n"
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) p[i] = 255 - p[i] + prelude_3 (i) + missing_fn (i);\n"
                   "}\n");
  result = compile (source->str, NULL, NULL);
  d = first_error (result);
  g_assert_cmpstr (d->file, ==, "invert.cu");
  g_assert_cmpuint (d->line, ==, 4);
  g_assert_cmpuint (d->column, ==, 50);
  g_assert_nonnull (strstr (d->message, "missing_fn"));
  g_assert_cmpuint (ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR), ==, 1);
}

static void
test_compile_warning_and_notes (void)
{
  static const char source[] =
    "#line 1 \"user.cu\"\n"
    "template <typename T> __device__ T twice (T x) { return x + x; }\n"
    "__global__ void k(float *p)\n"
    "{\n"
    "  int unused;\n"
    "#pragma message(\"tuned for sm_90\")\n"
    "  p[threadIdx.x] = twice (p[threadIdx.x]);\n"
    "}\n";
  const char *const entries[] = { "k", NULL };
  g_autoptr(KsCompileResult) result = NULL;
  const KsDiagnostic *warning = NULL;
  const KsDiagnostic *note = NULL;

  if (!ks_test_have_nvrtc ())
    return;

  result = compile (source, entries, NULL);
  /* A warning does not fail the compilation, and is not an error. */
  g_assert_true (result->success);
  g_assert_nonnull (result->cubin);
  g_assert_cmpuint (g_bytes_get_size (result->cubin), >, 0);
  /* The PTX on the way, kept for the CPU engine, with line info. */
  g_assert_nonnull (result->ptx);
  g_assert_nonnull (strstr (result->ptx, ".visible .entry"));
  g_assert_nonnull (strstr (result->ptx, ".loc"));
  g_assert_cmpuint (ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR), ==, 0);
  g_assert_cmpuint (ks_compile_result_count (result, KS_DIAGNOSTIC_WARNING), ==, 1);
  g_assert_cmpuint (ks_compile_result_count (result, KS_DIAGNOSTIC_NOTE), ==, 1);
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (d->severity == KS_DIAGNOSTIC_WARNING)
        warning = d;
      else if (d->severity == KS_DIAGNOSTIC_NOTE)
        note = d;
    }
  g_assert_nonnull (warning);
  g_assert_nonnull (note);
  if (warning == NULL || note == NULL)
    return;
  g_assert_cmpuint (warning->line, ==, 4);
  g_assert_cmpuint (warning->column, ==, 7);
  g_assert_cmpstr (warning->code, ==, "177-D");
  g_assert_nonnull (strstr (warning->message, "\"unused\""));
  g_assert_cmpuint (note->line, ==, 5);
  g_assert_nonnull (strstr (note->message, "tuned for sm_90"));
  g_assert_cmpuint (result->kernels->len, ==, 1);
}

static void
test_compile_instantiation_notes (void)
{
  static const char source[] =
    "#line 1 \"user.cu\"\n"
    "template <typename T> __device__ T field (T x) { return x.nope; }\n"
    "__global__ void k(float *p)\n"
    "{\n"
    "  p[0] = field (p[1]);\n"
    "}\n";
  g_autoptr(KsCompileResult) result = NULL;
  const KsDiagnostic *d;
  const KsDiagnostic *note = NULL;

  if (!ks_test_have_nvrtc ())
    return;

  result = compile (source, NULL, NULL);
  d = first_error (result);
  g_assert_cmpuint (d->line, ==, 1);
  g_assert_cmpuint (d->column, ==, 57);
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *n = g_ptr_array_index (result->diagnostics, i);

      if (n->severity == KS_DIAGNOSTIC_NOTE)
        note = n;
    }
  /* The line that asked for the instantiation is marked too. */
  g_assert_nonnull (note);
  g_assert_cmpstr (note->file, ==, "user.cu");
  g_assert_cmpuint (note->line, ==, 4);
  g_assert_nonnull (strstr (note->message, "with T=float"));
}

static const KsKernelResources *
kernel_at (const KsCompileResult *result, guint i)
{
  g_assert_cmpuint (i, <, result->kernels->len);
  return g_ptr_array_index (result->kernels, i);
}

static void
test_compile_resources (void)
{
  static const char source[] =
    "#line 1 \"user.cu\"\n"
    "__global__ void reverse (float *out, const float *in)\n"
    "{\n"
    "  __shared__ float s[256];\n"
    "  s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];\n"
    "  __syncthreads ();\n"
    "  out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];\n"
    "}\n"
    "__global__ void __launch_bounds__(128) bounded (float *p)\n"
    "{\n"
    "  p[threadIdx.x] *= 2.0f;\n"
    "}\n"
    "__global__ void on_stack (float *p, int k)\n"
    "{\n"
    "  float big[1000];\n"
    "  for (int i = 0; i < 1000; i++)\n"
    "    big[i] = p[i] * i;\n"
    "  p[threadIdx.x] = big[k];\n"
    "}\n";
  const char *const entries[] = { "reverse", "bounded", "on_stack", NULL };
  g_autoptr(KsCompileResult) result = NULL;
  const KsKernelResources *r;

  if (!ks_test_have_nvrtc ())
    return;

  result = compile (source, entries, NULL);
  g_assert_true (result->success);
  g_assert_cmpuint (result->kernels->len, ==, 3);

  r = kernel_at (result, 0);
  g_test_message ("reverse: %u registers, %" G_GUINT64_FORMAT " bytes shared, %u threads",
                  r->num_regs, r->shared_static, r->max_threads_per_block);
  g_assert_cmpstr (r->name, ==, "reverse");
  g_assert_cmpuint (r->arch, ==, TEST_ARCH);
  g_assert_cmpuint (r->shared_static, ==, 256 * sizeof (float));
  g_assert_cmpuint (r->num_regs, >=, 4);
  g_assert_cmpuint (r->num_regs, <=, 32);
  g_assert_cmpuint (r->spill_stores, ==, 0);
  g_assert_cmpuint (r->spill_loads, ==, 0);
  g_assert_cmpuint (r->local_bytes, ==, 0);
  g_assert_cmpuint (r->barriers, ==, 1);
  g_assert_cmpuint (r->launch_bounds, ==, 0);
  g_assert_cmpuint (r->max_threads_per_block, ==, 1024);

  r = kernel_at (result, 1);
  g_assert_cmpuint (r->launch_bounds, ==, 128);
  g_assert_cmpuint (r->max_threads_per_block, <=, 128);
  g_assert_cmpuint (r->max_threads_per_block, >, 0);
  g_assert_cmpuint (r->shared_static, ==, 0);

  r = kernel_at (result, 2);
  g_test_message ("on_stack: %" G_GUINT64_FORMAT " bytes of stack", r->local_bytes);
  g_assert_cmpuint (r->local_bytes, >=, 1000 * sizeof (float));
  g_assert_cmpuint (r->launch_bounds, ==, 0);
}

/* The CUDA rule, written out again from its definition: registers per warp
 * rounded to 256, warps counted in fours per block of 65536 registers. */
static guint
expected_max_threads (guint regs)
{
  guint per_warp = (regs * 32 + 255) / 256 * 256;
  guint warps = 0;

  while (warps < 32 && ((warps + 1 + 3) / 4 * 4) * per_warp <= 65536)
    warps++;
  return warps * 32;
}

static void
test_compile_register_limit (void)
{
  /* Many values alive at once: far more than 64 registers. */
  static const char source[] =
    "#define N 160\n"
    "__global__ void heavy (const float *in, float *out)\n"
    "{\n"
    "  float v[N];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < N; i++)\n"
    "    v[i] = in[threadIdx.x + i * 1024];\n"
    "  float acc = 0.0f;\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < N; i++)\n"
    "    acc += v[i] * v[N - 1 - i];\n"
    "#pragma unroll\n"
    "  for (int i = 0; i < N; i++)\n"
    "    out[threadIdx.x + i * 1024] = v[i] * acc;\n"
    "}\n";
  const char *const entries[] = { "heavy", NULL };
  const char *const capped[] = { "-maxrregcount=96", NULL };
  g_autoptr(KsCompileResult) result = NULL;
  const KsKernelResources *r;

  if (!ks_test_have_nvrtc ())
    return;

  g_assert_cmpuint (expected_max_threads (96), ==, 640);
  g_assert_cmpuint (expected_max_threads (255), ==, 256);
  g_assert_cmpuint (expected_max_threads (64), ==, 1024);

  result = compile (source, entries, NULL);
  g_assert_true (result->success);
  r = kernel_at (result, 0);
  g_test_message ("heavy: %u registers, at most %u threads a block", r->num_regs,
                  r->max_threads_per_block);
  g_assert_cmpuint (r->num_regs, >, 64);
  g_assert_cmpuint (r->max_threads_per_block, <, 1024);
  g_assert_cmpuint (r->max_threads_per_block, ==, expected_max_threads (r->num_regs));

  /* Capped at 96 registers (and spilling the rest): 640 threads, as the
   * driver says on an H200 (65536 / 3072 alone would allow 672). */
  g_clear_pointer (&result, ks_compile_result_free);
  result = compile (source, entries, capped);
  g_assert_true (result->success);
  r = kernel_at (result, 0);
  g_assert_cmpuint (r->num_regs, <=, 96);
  g_assert_cmpuint (r->num_regs, >, 88);
  g_assert_cmpuint (r->max_threads_per_block, ==, 640);
  g_assert_cmpuint (r->local_bytes, >, 0);
}

static void
test_compile_lowered_names (void)
{
  static const char source[] =
    "__global__ void add (float *a, const float *b, const float *c, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i] = b[i] + c[i];\n"
    "}\n"
    "template <int N, bool FAST> __global__ void ks_expression (float *p)\n"
    "{\n"
    "  p[threadIdx.x] = FAST ? N : -N;\n"
    "}\n";
  const char *const entries[] = { "add", "ks_expression<4, true>", "ks_expression<1,false>",
                                  NULL };
  g_autoptr(KsCompileResult) result = NULL;

  if (!ks_test_have_nvrtc ())
    return;

  result = compile (source, entries, NULL);
  g_assert_true (result->success);
  g_assert_cmpuint (result->kernels->len, ==, 3);
  g_assert_cmpstr (kernel_at (result, 0)->name, ==, "add");
  g_assert_cmpstr (kernel_at (result, 0)->lowered_name, ==, "_Z3addPfPKfS1_i");
  g_assert_cmpstr (kernel_at (result, 1)->name, ==, "ks_expression<4, true>");
  g_assert_cmpstr (kernel_at (result, 1)->lowered_name, ==, "_Z13ks_expressionILi4ELb1EEvPf");
  g_assert_cmpstr (kernel_at (result, 2)->lowered_name, ==, "_Z13ks_expressionILi1ELb0EEvPf");
  /* Their cards come from their own ptxas lines. */
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (kernel_at (result, i)->num_regs, >, 0);
}

static void
test_compile_headers (void)
{
  static const char source[] =
    "#include \"ks-test.cuh\"\n"
    "__global__ void k (float *p) { p[0] = KS_TEST_VALUE; }\n";
  const KsCompileHeader headers[] = {
    { "ks-test.cuh", "#pragma once\n#define KS_TEST_VALUE 42.0f\n" },
  };
  const char *const entries[] = { "k", NULL };
  KsCompileRequest request = {
    .source = source, .program_name = "prog.cu", .arch = TEST_ARCH, .entries = entries,
    .headers = headers, .n_headers = 1,
  };
  g_autoptr(KsCompileResult) result = NULL;
  g_autoptr(KsCompileResult) without = NULL;
  g_autoptr(GError) error = NULL;

  if (!ks_test_have_nvrtc ())
    return;

  result = ks_nvrtc_compile (&request, &error);
  g_assert_no_error (error);
  g_assert_true (result->success);

  /* Without the header: a catastrophic error, at the #include. */
  request.n_headers = 0;
  request.headers = NULL;
  without = ks_nvrtc_compile (&request, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (first_error (without)->line, ==, 1);
  g_assert_nonnull (strstr (first_error (without)->message, "ks-test.cuh"));
}

static void
test_compile_ptxas_error (void)
{
  /* Too much static shared memory: only ptxas notices, after the front end. */
  static const char source[] =
    "__global__ void big (float *p)\n"
    "{\n"
    "  __shared__ float s[100000];\n"
    "  s[threadIdx.x] = p[threadIdx.x];\n"
    "  __syncthreads ();\n"
    "  p[threadIdx.x] = s[threadIdx.x + 1];\n"
    "}\n";
  const char *const entries[] = { "big", NULL };
  g_autoptr(KsCompileResult) result = NULL;
  const KsDiagnostic *d;

  if (!ks_test_have_nvrtc ())
    return;

  result = compile (source, entries, NULL);
  d = first_error (result);
  g_test_message ("%s", d->message);
  g_assert_cmpuint (d->line, ==, 0);
  g_assert_cmpstr (d->file, ==, "prog.cu");
  g_assert_nonnull (strstr (d->message, "too much shared data"));
}

static void
test_compile_invalid_requests (void)
{
  const char *const bogus[] = { "--no-such-option", NULL };
  KsCompileRequest request = { .source = "__global__ void k () {}", .arch = 52 };
  g_autoptr(GError) error = NULL;
  KsCompileResult *result;

  if (!ks_test_have_nvrtc ())
    return;

  result = ks_nvrtc_compile (&request, &error);
  g_assert_null (result);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "sm_52"));
  g_assert_nonnull (strstr (error->message, "sm_75"));
  g_clear_error (&error);

  request.arch = TEST_ARCH;
  request.extra_options = bogus;
  result = ks_nvrtc_compile (&request, &error);
  g_assert_null (result);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "--no-such-option"));
}

/* A 30-line kernel of the kind the editor compiles. */
static char *
thirty_line_kernel (guint variant)
{
  GString *s = g_string_new ("#line 1 \"user.cu\"\n");

  g_string_append_printf (s, "#define VARIANT %u\n", variant);
  g_string_append (s,
                   "struct pixel { unsigned char r, g, b, a; };\n"
                   "__device__ float luma (pixel p)\n"
                   "{\n"
                   "  return 0.2126f * p.r + 0.7152f * p.g + 0.0722f * p.b;\n"
                   "}\n"
                   "__device__ unsigned char clamp_byte (float v)\n"
                   "{\n"
                   "  return (unsigned char) fminf (fmaxf (v, 0.0f), 255.0f);\n"
                   "}\n"
                   "__global__ void sharpen (const pixel *in, pixel *out, int width,\n"
                   "                         int height, float amount)\n"
                   "{\n"
                   "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                   "  if (x <= 0 || y <= 0 || x >= width - 1 || y >= height - 1)\n"
                   "    return;\n"
                   "  float centre = luma (in[y * width + x]);\n"
                   "  float around = luma (in[y * width + x - 1]) + luma (in[y * width + x + 1])\n"
                   "                 + luma (in[(y - 1) * width + x])\n"
                   "                 + luma (in[(y + 1) * width + x]);\n"
                   "  float edge = centre - 0.25f * around;\n"
                   "  pixel p = in[y * width + x];\n"
                   "  p.r = clamp_byte (p.r + amount * edge * VARIANT);\n"
                   "  p.g = clamp_byte (p.g + amount * edge);\n"
                   "  p.b = clamp_byte (p.b + amount * edge);\n"
                   "  out[y * width + x] = p;\n"
                   "}\n");
  return g_string_free (s, FALSE);
}

static void
test_compile_cache (void)
{
  const char *const entries[] = { "sharpen", NULL };
  g_autofree char *source = thirty_line_kernel (1);
  g_autofree char *changed = thirty_line_kernel (2);
  g_autoptr(KsCompileResult) cold = NULL;
  g_autoptr(KsCompileResult) warm = NULL;
  g_autoptr(KsCompileResult) other = NULL;
  g_autoptr(KsCompileResult) after_clear = NULL;
  gint64 start;
  double warm_ms;

  if (!ks_test_have_nvrtc ())
    return;

  ks_nvrtc_clear_cache ();
  start = g_get_monotonic_time ();
  cold = compile (source, entries, NULL);
  g_test_message ("cold compile of a 30-line kernel: %.1f ms (NVRTC's part %.1f ms)",
                  (g_get_monotonic_time () - start) / 1000.0, cold->compile_ms);
  g_assert_true (cold->success);
  g_assert_false (cold->cached);
  g_assert_cmpfloat (cold->compile_ms, >, 0.0);

  start = g_get_monotonic_time ();
  warm = compile (source, entries, NULL);
  warm_ms = (g_get_monotonic_time () - start) / 1000.0;
  g_test_message ("cached re-compile: %.3f ms", warm_ms);
  g_assert_true (warm->cached);
  g_assert_true (warm->success);
  g_assert_true (g_bytes_equal (warm->cubin, cold->cubin));
  g_assert_cmpstr (warm->log, ==, cold->log);
  g_assert_cmpuint (warm->kernels->len, ==, 1);
  g_assert_cmpstr (kernel_at (warm, 0)->lowered_name, ==, kernel_at (cold, 0)->lowered_name);
  g_assert_cmpuint (kernel_at (warm, 0)->num_regs, ==, kernel_at (cold, 0)->num_regs);
  /* A deep copy: the caller may change its result without touching the cache's. */
  g_assert_true (kernel_at (warm, 0) != kernel_at (cold, 0));

  other = compile (changed, entries, NULL);
  g_assert_false (other->cached);
  g_assert_true (other->success);

  ks_nvrtc_clear_cache ();
  after_clear = compile (source, entries, NULL);
  g_assert_false (after_clear->cached);
}

static void
test_compile_cache_failures (void)
{
  static const char source[] = "__global__ void k (float *p) { p[0] = nope; }\n";
  g_autoptr(KsCompileResult) first = NULL;
  g_autoptr(KsCompileResult) second = NULL;
  const char *const fast[] = { "--use_fast_math", NULL };
  g_autoptr(KsCompileResult) options_differ = NULL;

  if (!ks_test_have_nvrtc ())
    return;

  /* A broken source typed again is answered from the cache, diagnostics and all. */
  first = compile (source, NULL, NULL);
  second = compile (source, NULL, NULL);
  g_assert_true (second->cached);
  g_assert_false (second->success);
  g_assert_cmpuint (second->diagnostics->len, ==, first->diagnostics->len);
  g_assert_cmpuint (first_error (second)->column, ==, first_error (first)->column);

  options_differ = compile (source, NULL, fast);
  g_assert_false (options_differ->cached);
}

typedef struct
{
  const char *source;
  guint failures;
} ThreadJob;

static gpointer
compile_in_thread (gpointer data)
{
  const char *const entries[] = { "sharpen", NULL };
  ThreadJob *job = data;

  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(KsCompileResult) result = compile (job->source, entries, NULL);

      if (!result->success || result->kernels->len != 1)
        job->failures++;
    }
  return NULL;
}

static void
test_compile_threads (void)
{
  g_autofree char *a = thirty_line_kernel (3);
  g_autofree char *b = thirty_line_kernel (4);
  ThreadJob jobs[4] = { { a, 0 }, { b, 0 }, { a, 0 }, { b, 0 } };
  GThread *threads[G_N_ELEMENTS (jobs)];

  if (!ks_test_have_nvrtc ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (jobs); i++)
    threads[i] = g_thread_new ("compile", compile_in_thread, &jobs[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (jobs); i++)
    {
      g_thread_join (threads[i]);
      g_assert_cmpuint (jobs[i].failures, ==, 0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ks/nvrtc/parse-log/basic", test_parse_log_basic);
  g_test_add_func ("/ks/nvrtc/parse-log/continuations", test_parse_log_continuations);
  g_test_add_func ("/ks/nvrtc/parse-log/unlocated", test_parse_log_unlocated);
  g_test_add_func ("/ks/nvrtc/parse-log/utf8", test_parse_log_utf8);
  g_test_add_func ("/ks/nvrtc/diagnostic-format", test_diagnostic_format);
  g_test_add_func ("/ks/nvrtc/parse-resources", test_parse_resources);
  g_test_add_func ("/ks/nvrtc/load/missing", test_load_missing);
  g_test_add_func ("/ks/nvrtc/supported-archs", test_supported_archs);
  g_test_add_func ("/ks/nvrtc/compile/errors", test_compile_errors);
  g_test_add_func ("/ks/nvrtc/compile/prelude", test_compile_prelude);
  g_test_add_func ("/ks/nvrtc/compile/warning-and-notes", test_compile_warning_and_notes);
  g_test_add_func ("/ks/nvrtc/compile/instantiation-notes", test_compile_instantiation_notes);
  g_test_add_func ("/ks/nvrtc/compile/resources", test_compile_resources);
  g_test_add_func ("/ks/nvrtc/compile/register-limit", test_compile_register_limit);
  g_test_add_func ("/ks/nvrtc/compile/lowered-names", test_compile_lowered_names);
  g_test_add_func ("/ks/nvrtc/compile/headers", test_compile_headers);
  g_test_add_func ("/ks/nvrtc/compile/ptxas-error", test_compile_ptxas_error);
  g_test_add_func ("/ks/nvrtc/compile/invalid-requests", test_compile_invalid_requests);
  g_test_add_func ("/ks/nvrtc/compile/cache", test_compile_cache);
  g_test_add_func ("/ks/nvrtc/compile/cache-failures", test_compile_cache_failures);
  g_test_add_func ("/ks/nvrtc/compile/threads", test_compile_threads);
  return g_test_run ();
}
