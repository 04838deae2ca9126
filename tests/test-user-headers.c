/* test-user-headers.c: what a pasted kernel may include and which of its
 * kernels runs — the standard and CUDA headers Kernelscope serves, the
 * user's own headers from the file's folder and the include folders (read
 * into the source, errors inside them at their own file and line, a missing
 * one explained with the folders searched), the kernel picked among
 * several, and all of it carried to the worker process. Reading the text
 * needs nothing; compiling needs NVRTC (no GPU) and skips without it. */
#include "config.h"

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "ks-error.h"
#include "ks-test-helpers.h"
#include "ks-user-kernel.h"
#include "ks-worker.h"

static char *tmp_dir;

static char *
write_file (const char *relative, const char *text)
{
  char *path = g_build_filename (tmp_dir, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

static char *
diagnostics_text (const GPtrArray *diagnostics)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    {
      g_autofree char *line = ks_diagnostic_format (g_ptr_array_index (diagnostics, i));

      g_string_append_printf (s, "%s\n", line);
    }
  return g_string_free (s, FALSE);
}

static void
assert_clean (const KsKernelSource *source)
{
  g_autofree char *text = diagnostics_text (ks_kernel_source_get_diagnostics (source));

  g_assert_cmpstr (text, ==, "");
}

static KsCompileResult *
compile (const KsKernelSource *source)
{
  g_autoptr (GError) error = NULL;
  KsCompileResult *result = ks_kernel_source_compile (source, NULL, FALSE, 90, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

static void
assert_compiles (const KsKernelSource *source)
{
  g_autoptr (KsCompileResult) result = compile (source);
  g_autofree char *text = diagnostics_text (result->diagnostics);

  if (!result->success || ks_compile_result_count (result, KS_DIAGNOSTIC_WARNING) > 0)
    g_error ("%s did not compile cleanly:\n%s\n--- log ---\n%s",
             ks_kernel_source_get_file_name (source), text, result->log);
}

/* ---- the headers Kernelscope serves --------------------------------------------- */

/* Each header with a use of what it declares, compiled alone: that the
 * include does not fail, and that what a kernel takes it for is there. */
static const struct
{
  const char *header;
  const char *use;
} served[] = {
  { "stdio.h", "printf (\"%d\\n\", i); out[i] = EOF;" },
  { "cstdio", "printf (\"%d\\n\", i);" },
  { "math.h", "out[i] = sqrtf (fabsf (out[i])) + expf (0.0f) + (float) M_PI + (isinf (INFINITY) ? 1 : 0) + (isnan (NAN) ? 1 : 0) + (float) HUGE_VAL;" },
  { "cmath", "out[i] = std::sqrt (out[i]) + std::fmax (1.0f, out[i]) + std::abs (-2.0f) + (std::isnan (out[i]) ? 1.0f : 0.0f);" },
  { "stdlib.h", "int *p = (int *) malloc (4); if (p != NULL) { *p = abs (-i); out[i] = *p; free (p); } out[i] += EXIT_SUCCESS;" },
  { "cstdlib", "out[i] = (float) std::abs (-i) + EXIT_FAILURE;" },
  { "string.h", "float v = 1.5f; memcpy (&out[i], &v, sizeof v); memset (&v, 0, sizeof v);" },
  { "cstring", "float v = 2.5f; std::memcpy (&out[i], &v, sizeof v); std::memset (&v, 0, sizeof v);" },
  { "stdint.h", "uint32_t a = UINT32_MAX; int64_t b = INT64_MIN; uint8_t c = UINT8_MAX; out[i] = (float) (a + (uint32_t) c) + (float) b + (float) UINT64_C (3);" },
  { "cstdint", "std::uint16_t a = UINT16_MAX; std::int8_t b = INT8_MIN; out[i] = a + b;" },
  { "stddef.h", "struct two { int a; float b; }; constexpr size_t at = offsetof (two, b); static_assert (at == 4, \"offsetof\"); ptrdiff_t d = 1; out[i] = (float) (at + d) + (NULL == nullptr ? 1.0f : 0.0f);" },
  { "cstddef", "std::size_t n = 3; std::ptrdiff_t d = -1; std::nullptr_t z = nullptr; out[i] = (float) n + d + (z == nullptr ? 1.0f : 0.0f);" },
  { "assert.h", "assert (i >= 0); out[i] = 1.0f;" },
  { "cassert", "assert (i < 1 << 30); out[i] = 1.0f;" },
  { "limits.h", "static_assert (CHAR_BIT == 8 && INT_MAX == 2147483647 && UINT_MAX == 4294967295u && LLONG_MIN < 0 && SHRT_MAX == 32767 && ULONG_MAX == 18446744073709551615ul, \"limits\"); out[i] = INT_MIN + 0.0f;" },
  { "climits", "static_assert (UCHAR_MAX == 255 && LONG_MAX == 9223372036854775807l, \"limits\"); out[i] = SCHAR_MIN;" },
  { "float.h", "static_assert (FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53, \"float\"); out[i] = FLT_MAX + FLT_MIN + FLT_EPSILON + (float) DBL_EPSILON + FLT_TRUE_MIN;" },
  { "cfloat", "out[i] = FLT_EPSILON * (float) DBL_MAX_EXP;" },
  { "stdbool.h", "bool b = true; static_assert (__bool_true_false_are_defined, \"stdbool\"); out[i] = b;" },
  { "cuda.h", "static_assert (CUDA_VERSION >= 12000, \"version\"); out[i] = CUDA_VERSION;" },
  { "cuda_runtime.h", "static_assert (CUDART_VERSION == CUDA_VERSION, \"version\"); out[i] = (float) threadIdx.x + make_float2 (1, 2).y;" },
  { "cuda_runtime_api.h", "out[i] = CUDART_VERSION;" },
  { "device_launch_parameters.h", "out[i] = blockDim.x * gridDim.x;" },
  { "device_functions.h", "out[i] = __fdividef (1.0f, 3.0f) + __syncthreads_count (1);" },
  { "math_constants.h", "static_assert (CUDART_PI_F == (float) 3.14159265358979323846 && CUDART_PI == 3.14159265358979323846 && CUDART_LN2_F == (float) 0.69314718055994530942, \"pi\"); out[i] = CUDART_PI_F + CUDART_PIO2_F + (float) CUDART_PI + CUDART_SQRT_HALF_F + CUDART_L2E_F + CUDART_LN2_F + (isinf (CUDART_INF_F) ? 1.0f : 0.0f) + (isnan (CUDART_NAN_F) ? 1.0f : 0.0f);" },
  { "cuComplex.h", "cuFloatComplex z = cuCmulf (make_cuFloatComplex (1, 2), make_cuComplex (3, 4)); cuDoubleComplex w = cuCdiv (make_cuDoubleComplex (1, 2), cuComplexFloatToDouble (z)); out[i] = cuCabsf (cuCaddf (z, cuConjf (z))) + (float) cuCreal (w) + cuCimagf (cuCsubf (z, cuCfmaf (z, z, z))) + (float) cuCabs (cuCfma (w, w, w));" },
};

static void
test_served_headers (void)
{
  if (!ks_test_have_nvrtc ())
    return;

  for (guint i = 0; i < G_N_ELEMENTS (served); i++)
    {
      g_autofree char *text = NULL;
      g_autoptr (KsKernelSource) source = NULL;

      /* Twice, as headers are: each is safe to include again. */
      text = g_strdup_printf ("#include <%s>\n#include <%s>\n"
                              "__global__ void use (float *out)\n"
                              "{\n"
                              "  const int i = threadIdx.x;\n"
                              "  %s\n"
                              "}\n", served[i].header, served[i].header, served[i].use);
      g_test_message ("%s", served[i].header);
      source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "served.cu", text);
      assert_clean (source);
      assert_compiles (source);
    }
}

/* Every served header in one file, in both spellings (#include "…" finds
 * them too when no folder has a file of that name). */
static void
test_served_together (void)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (KsKernelSource) source = NULL;

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (served); i++)
    g_string_append_printf (text, i % 2 ? "#include <%s>\n" : "#include \"%s\"\n",
                            served[i].header);
  g_string_append (text, "__global__ void everything (float *out) { out[0] = CUDART_PI_F; }\n");
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "all.cu", text->str,
                                      &(KsKernelSourceOptions) { .source_dir = tmp_dir });
  assert_clean (source);
  g_assert_cmpuint (ks_kernel_source_get_headers (source)->len, ==, 0);
  assert_compiles (source);
}

/* uint, ushort, ulong and glibc's u_ names, as nvcc's host headers give
 * them: usable in the body and as arguments, and declared again by the
 * kernel itself without an error. */
static void
test_short_unsigned_names (void)
{
  static const char text[] =
    "typedef unsigned int uint;\n"
    "typedef unsigned long ulong;\n"
    "__global__ void fill (uint *out, ushort n, ulong scale)\n"
    "{\n"
    "  const uint i = threadIdx.x;\n"
    "  const u_char c = 1; const u_short s = 2; const u_int k = 3; const u_long l = 4;\n"
    "  if (i < n)\n"
    "    out[i] = (uint) (i * scale) + c + s + k + (uint) l;\n"
    "}\n";
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "uint.cu", text);
  const GPtrArray *args = ks_kernel_source_get_args (source);

  assert_clean (source);
  g_assert_cmpuint (args->len, ==, 3);
  g_assert_cmpint (((KsKernelArg *) g_ptr_array_index (args, 0))->type, ==, KS_ELEM_UINT32);
  g_assert_cmpint (((KsKernelArg *) g_ptr_array_index (args, 1))->type, ==, KS_ELEM_UINT16);
  g_assert_cmpint (((KsKernelArg *) g_ptr_array_index (args, 2))->type, ==, KS_ELEM_UINT64);
  if (ks_test_have_nvrtc ())
    assert_compiles (source);
}

/* cuda_fp16.h and cuda_bf16.h are the toolkit's: the compiler reads them
 * from its include folders where it is installed (they are not the user's
 * headers), otherwise the message says that they come with the toolkit. */
static void
test_toolkit_half (void)
{
  static const char text[] =
    "#include <cuda_bf16.h>\n"
    "#include <cuda_fp16.h>\n"
    "__global__ void half_it (__half *out, __nv_bfloat16 *b, const float *a)\n"
    "{\n"
    "  out[threadIdx.x] = __hmul (__float2half (a[threadIdx.x]), __float2half (0.5f));\n"
    "  b[threadIdx.x] = __float2bfloat16 (a[threadIdx.x]);\n"
    "}\n";
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsCompileResult) result = NULL;

  if (!ks_test_have_nvrtc ())
    return;
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "half.cu", text,
                                      &(KsKernelSourceOptions) { .source_dir = tmp_dir });
  assert_clean (source);
  g_assert_cmpuint (ks_kernel_source_get_headers (source)->len, ==, 0);
  result = compile (source);
  if (g_file_test ("/usr/local/cuda/include/cuda_fp16.h", G_FILE_TEST_EXISTS)
      || g_getenv ("CUDA_HOME") != NULL)
    {
      g_assert_true (result->success);
      g_assert_cmpuint (ks_compile_result_count (result, KS_DIAGNOSTIC_WARNING), ==, 0);
      return;
    }
  g_test_message ("the toolkit's headers are not here: %s", result->log);
  g_assert_false (result->success);
  g_assert_nonnull (strstr (((KsDiagnostic *) g_ptr_array_index (result->diagnostics, 0))->message,
                            "comes with the CUDA toolkit's headers"));
}

/* ---- the user's own headers -------------------------------------------------------- */

static void
test_include_dirs (void)
{
  g_autofree char *helper = write_file ("inc/helper.cuh",
                                        "#pragma once\n"
                                        "#include \"detail/scale.cuh\"\n"
                                        "__device__ float twice (float x) { return scale (x, 2.0f); }\n");
  g_autofree char *detail = write_file ("inc/detail/scale.cuh",
                                        "#pragma once\n"
                                        "#include <stdint.h>\n"
                                        "__device__ float scale (float x, float by) { return x * by; }\n");
  g_autofree char *other = write_file ("other/extra.h", "#define EXTRA 3.0f\n");
  g_autofree char *inc = g_build_filename (tmp_dir, "inc", NULL);
  g_autofree char *other_dir = g_build_filename (tmp_dir, "other", NULL);
  static const char text[] =
    "#include \"helper.cuh\"\n"
    "/* #include \"commented-out.h\" */\n"
    "// #include \"also-commented.h\"\n"
    "#include <extra.h>\n"
    "#if 0\n"
    "#include \"never-opened.h\"\n"
    "#endif\n"
    "__global__ void use (float *out) { out[threadIdx.x] = twice (EXTRA); }\n";
  const char *dirs[] = { inc, other_dir, NULL };
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsKernelSource) without = NULL;
  const GPtrArray *headers;
  const KsKernelHeader *h;

  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "use.cu", text,
                                      &(KsKernelSourceOptions) { .source_dir = tmp_dir,
                                                                 .include_dirs = dirs });
  assert_clean (source);
  g_assert_true (g_strv_equal (ks_kernel_source_get_include_dirs (source), dirs));
  g_assert_cmpstr (ks_kernel_source_get_source_dir (source), ==, tmp_dir);
  headers = ks_kernel_source_get_headers (source);
  g_assert_cmpuint (headers->len, ==, 3);
  h = g_ptr_array_index (headers, 0);
  g_assert_cmpstr (h->name, ==, "helper.cuh");
  g_assert_cmpstr (h->path, ==, helper);
  g_assert_true (g_str_has_prefix (h->contents, "#line 1 \""));
  g_assert_nonnull (strstr (h->contents, "twice (float x)"));
  /* a header's own "…" include starts in its own folder */
  h = g_ptr_array_index (headers, 1);
  g_assert_cmpstr (h->name, ==, "detail/scale.cuh");
  g_assert_cmpstr (h->path, ==, detail);
  h = g_ptr_array_index (headers, 2);
  g_assert_cmpstr (h->name, ==, "extra.h");
  g_assert_cmpstr (h->path, ==, other);

  /* Without options nothing is read. */
  without = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "use.cu", text);
  g_assert_cmpuint (ks_kernel_source_get_headers (without)->len, ==, 0);

  if (ks_test_have_nvrtc ())
    assert_compiles (source);
}

/* The first folder that has the file wins: the text's own folder, then the
 * include folders in order. */
static void
test_include_order (void)
{
  g_autofree char *own = write_file ("order/kernel-dir/pick.h", "#define PICKED 1\n");
  g_autofree char *first = write_file ("order/first/pick.h", "#define PICKED 2\n");
  g_autofree char *second = write_file ("order/second/pick.h", "#define PICKED 3\n");
  g_autofree char *kernel_dir = g_path_get_dirname (own);
  g_autofree char *first_dir = g_path_get_dirname (first);
  g_autofree char *second_dir = g_path_get_dirname (second);
  const char *dirs[] = { first_dir, second_dir, NULL };
  const char *swapped[] = { second_dir, first_dir, NULL };
  const char *text = "#include \"pick.h\"\n__global__ void k (int *o) { o[0] = PICKED; }\n";
  const char *angle = "#include <pick.h>\n__global__ void k (int *o) { o[0] = PICKED; }\n";
  g_autoptr (KsKernelSource) a = NULL;
  g_autoptr (KsKernelSource) b = NULL;
  g_autoptr (KsKernelSource) c = NULL;

  a = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", text,
                                 &(KsKernelSourceOptions) { .source_dir = kernel_dir,
                                                            .include_dirs = dirs });
  g_assert_cmpstr (((KsKernelHeader *) g_ptr_array_index (ks_kernel_source_get_headers (a),
                                                          0))->path, ==, own);
  /* <…> does not look in the text's folder */
  b = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", angle,
                                 &(KsKernelSourceOptions) { .source_dir = kernel_dir,
                                                            .include_dirs = dirs });
  g_assert_cmpstr (((KsKernelHeader *) g_ptr_array_index (ks_kernel_source_get_headers (b),
                                                          0))->path, ==, first);
  c = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", angle,
                                 &(KsKernelSourceOptions) { .source_dir = kernel_dir,
                                                            .include_dirs = swapped });
  g_assert_cmpstr (((KsKernelHeader *) g_ptr_array_index (ks_kernel_source_get_headers (c),
                                                          0))->path, ==, second);
}

/* An error inside a header lands at the header's file and line. */
static void
test_error_in_header (void)
{
  g_autofree char *bad = write_file ("broken/bad.cuh",
                                     "#pragma once\n"
                                     "\n"
                                     "__device__ float twice (float x) { return 2.0f * x + oops; }\n");
  g_autofree char *dir = g_path_get_dirname (bad);
  const char *dirs[] = { dir, NULL };
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  const KsDiagnostic *d;

  if (!ks_test_have_nvrtc ())
    return;
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu",
                                      "#include \"bad.cuh\"\n"
                                      "__global__ void k (float *o) { o[0] = twice (1.0f); }\n",
                                      &(KsKernelSourceOptions) { .include_dirs = dirs });
  assert_clean (source);
  result = compile (source);
  g_assert_false (result->success);
  g_assert_cmpuint (ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR), ==, 1);
  d = g_ptr_array_index (result->diagnostics, 0);
  g_assert_cmpstr (d->file, ==, bad);
  g_assert_cmpuint (d->line, ==, 3);
  g_assert_cmpuint (d->column, ==, 54);
  g_assert_nonnull (strstr (d->message, "\"oops\" is undefined"));
}

/* A missing include: the compiler's words replaced by the folders searched
 * and what to do; a folder or an unreadable file is Kernelscope's own
 * error at the #include. */
static void
test_missing_include (void)
{
  g_autofree char *sub = g_build_filename (tmp_dir, "missing", "folder.h", NULL);
  g_autofree char *inc = g_build_filename (tmp_dir, "missing", NULL);
  const char *dirs[] = { inc, NULL };
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsKernelSource) angle = NULL;
  g_autoptr (KsKernelSource) folder = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  g_autoptr (KsCompileResult) angled = NULL;
  const KsDiagnostic *d;
  g_autofree char *expect = NULL;

  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  folder = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu",
                                      "\n#include \"folder.h\"\n__global__ void k (int *o) { }\n",
                                      &(KsKernelSourceOptions) { .include_dirs = dirs });
  g_assert_true (ks_kernel_source_has_errors (folder));
  d = g_ptr_array_index (ks_kernel_source_get_diagnostics (folder), 0);
  g_assert_cmpstr (d->file, ==, "k.cu");
  g_assert_cmpuint (d->line, ==, 2);
  g_assert_cmpuint (d->column, ==, 11);
  g_assert_nonnull (strstr (d->message, "is a folder, not a header file"));

  if (!ks_test_have_nvrtc ())
    return;
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu",
                                      "#include \"nowhere.cuh\"\n"
                                      "__global__ void k (int *o) { }\n",
                                      &(KsKernelSourceOptions) { .source_dir = tmp_dir,
                                                                 .include_dirs = dirs });
  result = compile (source);
  g_assert_false (result->success);
  d = g_ptr_array_index (result->diagnostics, 0);
  g_assert_cmpstr (d->file, ==, "k.cu");
  g_assert_cmpuint (d->line, ==, 1);
  expect = g_strdup_printf ("cannot open “nowhere.cuh”: it is not in %s and %s, and it is not "
                            "one of the standard headers Kernelscope serves; add the folder "
                            "that holds it to the include folders", tmp_dir, inc);
  g_assert_true (g_str_has_prefix (d->message, expect));

  angle = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu",
                                     "#include <vector>\n__global__ void k (int *o) { }\n",
                                     &(KsKernelSourceOptions) { 0 });
  angled = compile (angle);
  d = g_ptr_array_index (angled->diagnostics, 0);
  g_assert_true (g_str_has_prefix (d->message, "cannot open “vector”: the kernel is from no "
                                               "file and has no include folders"));
}

/* ---- which kernel runs ----------------------------------------------------------- */

static void
test_kernel_option (void)
{
  static const char text[] =
    "//@kernel first\n"
    "__global__ void first (int *a) { a[0] = 1; }\n"
    "__global__ void second (float *b, int n) { if (n > 0) b[0] = 2.0f; }\n"
    "template <typename T> __global__ void third (T *c) { c[0] = T (3); }\n"
    "template __global__ void third<float> (float *);\n";
  const char *expected[] = { "first", "second", "third", NULL };
  g_autoptr (KsKernelSource) annotated = NULL;
  g_autoptr (KsKernelSource) picked = NULL;
  g_autoptr (KsKernelSource) templ = NULL;
  g_autoptr (KsKernelSource) bare = NULL;
  g_autoptr (KsKernelSource) unknown = NULL;
  g_autoptr (KsKernelSource) expression = NULL;
  const KsDiagnostic *d;

  annotated = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "k.cu", text);
  assert_clean (annotated);
  g_assert_cmpstr (ks_kernel_source_get_entry (annotated), ==, "first");
  g_assert_true (g_strv_equal (ks_kernel_source_get_kernels (annotated), expected));
  g_assert_null (ks_kernel_source_get_kernel_option (annotated));

  /* the option wins over //@kernel */
  picked = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", text,
                                      &(KsKernelSourceOptions) { .kernel = "second" });
  assert_clean (picked);
  g_assert_cmpstr (ks_kernel_source_get_entry (picked), ==, "second");
  g_assert_cmpstr (ks_kernel_source_get_kernel_option (picked), ==, "second");
  g_assert_cmpuint (ks_kernel_source_get_args (picked)->len, ==, 2);

  templ = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", text,
                                     &(KsKernelSourceOptions) { .kernel = "third<float>" });
  assert_clean (templ);
  g_assert_cmpstr (ks_kernel_source_get_entry (templ), ==, "third<float>");

  bare = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", text,
                                    &(KsKernelSourceOptions) { .kernel = "third" });
  d = g_ptr_array_index (ks_kernel_source_get_diagnostics (bare), 0);
  g_assert_cmpuint (d->line, ==, 0);
  g_assert_nonnull (strstr (d->message, "“third” is a template: name the instantiation to "
                                        "run, for example third<float>"));

  unknown = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "k.cu", text,
                                       &(KsKernelSourceOptions) { .kernel = "fourth" });
  d = g_ptr_array_index (ks_kernel_source_get_diagnostics (unknown), 0);
  g_assert_cmpstr (d->message, ==, "the kernel asked for is “fourth”, but there is no "
                                   "__global__ function of that name (the source has first, "
                                   "second, third)");

  expression = ks_kernel_source_new (KS_KERNEL_MODE_EXPRESSION, "e.cu", "out = in;\n");
  g_assert_null (ks_kernel_source_get_kernels (expression)[0]);

  if (!ks_test_have_nvrtc ())
    return;
  {
    g_autoptr (KsCompileResult) result = compile (picked);
    g_autoptr (KsCompileResult) t = compile (templ);

    g_assert_true (result->success);
    g_assert_cmpstr (((KsKernelResources *) g_ptr_array_index (result->kernels, 0))->name, ==,
                     "second");
    g_assert_true (t->success);
  }
}

/* ---- through the worker ------------------------------------------------------------ */

/* The worker makes the same source from the request: the headers the
 * client read (the worker reads no file), and the kernel asked for. A
 * changed header is another compilation, not the cached one. */
static void
test_worker_carries_headers (void)
{
  g_autofree char *helper = write_file ("worker/helper.cuh",
                                        "#pragma once\n__device__ int value () { return 1; }\n");
  g_autofree char *dir = g_path_get_dirname (helper);
  const char *dirs[] = { dir, NULL };
  static const char text[] =
    "#include \"helper.cuh\"\n"
    "__global__ void one (int *o) { o[0] = value (); }\n"
    "__global__ void two (int *o) { o[0] = 2 * value (); }\n";
  KsKernelSourceOptions options = { .kernel = "two", .include_dirs = dirs };
  g_autoptr (KsWorker) worker = NULL;
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsKernelSource) changed = NULL;
  g_autoptr (KsKernelSource) broken = NULL;
  g_autoptr (KsCompileResult) first = NULL;
  g_autoptr (KsCompileResult) again = NULL;
  g_autoptr (KsCompileResult) second = NULL;
  g_autoptr (KsCompileResult) failed = NULL;
  g_autoptr (GError) error = NULL;
  KsLaunchConfig launch;
  const KsDiagnostic *d;

  if (!ks_test_have_nvrtc ())
    return;
  worker = ks_worker_new (-1);
  ks_launch_config_init (&launch, 32, 1);
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "two.cu", text, &options);
  assert_clean (source);
  first = ks_worker_compile (worker, source, &launch, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (first->success);
  g_assert_cmpstr (((KsKernelResources *) g_ptr_array_index (first->kernels, 0))->name, ==,
                   "two");
  again = ks_worker_compile (worker, source, &launch, FALSE, NULL, &error);
  g_assert_true (again->cached);

  g_free (write_file ("worker/helper.cuh", "#pragma once\n__device__ int value () { return 7; }\n"));
  changed = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "two.cu", text, &options);
  second = ks_worker_compile (worker, changed, &launch, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (second->success);
  g_assert_false (second->cached);

  g_free (write_file ("worker/helper.cuh", "#pragma once\n__device__ int value () { return x; }\n"));
  broken = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, "two.cu", text, &options);
  failed = ks_worker_compile (worker, broken, &launch, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (failed->success);
  d = g_ptr_array_index (failed->diagnostics, 0);
  g_assert_cmpstr (d->file, ==, helper);
  g_assert_cmpuint (d->line, ==, 2);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-test-user-headers-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/user-headers/served", test_served_headers);
  g_test_add_func ("/ks/user-headers/served-together", test_served_together);
  g_test_add_func ("/ks/user-headers/short-unsigned-names", test_short_unsigned_names);
  g_test_add_func ("/ks/user-headers/toolkit-half", test_toolkit_half);
  g_test_add_func ("/ks/user-headers/include-dirs", test_include_dirs);
  g_test_add_func ("/ks/user-headers/include-order", test_include_order);
  g_test_add_func ("/ks/user-headers/error-in-header", test_error_in_header);
  g_test_add_func ("/ks/user-headers/missing-include", test_missing_include);
  g_test_add_func ("/ks/user-headers/kernel-option", test_kernel_option);
  g_test_add_func ("/ks/user-headers/worker", test_worker_carries_headers);
  ret = g_test_run ();
  ks_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
