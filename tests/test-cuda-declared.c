/* test-cuda-declared.c: declared kernels (ks-declared-kernel.h) run in the
 * worker on the GPU, each result held to a C reference computed here from
 * the same input arrays: an element-wise axpy (float and int), dot products
 * by reduction for n = 1, 255, 256, 1000 and 100000 and under odd launches
 * (non-power-of-two blocks, 2-D blocks, more blocks than take part), max
 * reductions from -INFINITY and INT_MIN, inclusive and exclusive scans for
 * n = 1, 1000 and 5000, in place and out of place. Integer results are
 * exact; float ones within the tolerance each test states. Outputs start
 * poisoned (inout arrays of a value no result has), so an element the
 * kernel never wrote shows.
 *
 * Built as test-declared-cpu (KS_TEST_DECLARED_ON_CPU), the same runs go to
 * the CPU engine's emulator instead, with its checks (no findings allowed),
 * and the generator's own tests join them: every kind's source compiles,
 * and bad declarations are refused at the right place.
 *
 * Without a usable GPU (or, on the CPU engine, NVRTC) it prints a TAP plan
 * of 0 and exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array-run.h"
#include "ks-declared-kernel.h"
#include "ks-test-helpers.h"

static KsEngine *engine;
static KsWorker *worker;

/* ---- running a declaration ------------------------------------------------ */

typedef struct
{
  GPtrArray *inputs;     /* KsArray, each binding's initial array (NULL for scalars) */
  GPtrArray *bindings;   /* KsBinding, with the generated kernel's n and result added */
  KsArrayRunResult run;
} DeclaredRun;

static void
declared_run_clear (DeclaredRun *r)
{
  g_clear_pointer (&r->inputs, g_ptr_array_unref);
  g_clear_pointer (&r->bindings, g_ptr_array_unref);
  ks_array_run_result_clear (&r->run);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DeclaredRun, declared_run_clear)

/* Generates, binds (texts as on the command line; n and result added as the
 * CLI adds them) and runs with the block and grid (0: the source's
 * defaults), asserting it ran cleanly. */
static void
run_declared (DeclaredRun *r, const KsDeclaration *d, const char *const *texts, guint block_x,
              guint block_y, guint grid_x)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsKernelSource) source = ks_declaration_generate (d, NULL, &error);
  KsArrayRunRequest request;

  g_assert_no_error (error);
  g_assert_nonnull (source);
  g_assert_false (ks_kernel_source_has_errors (source));

  memset (r, 0, sizeof *r);
  r->bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  r->inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  for (guint i = 0; texts[i] != NULL; i++)
    {
      KsBinding *b = ks_binding_parse (texts[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (r->bindings, b);
    }
  g_assert_true (ks_declaration_complete_bindings (d->kind, source, r->bindings, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < r->bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (r->bindings, i);

      g_ptr_array_add (r->inputs, b->is_array ? ks_binding_create_array (b, &error) : NULL);
      g_assert_no_error (error);
    }

  ks_array_run_request_init (&request, source);
  request.bindings = r->bindings;
  if (block_x > 0)
    request.launch.block = (KsDim3) { block_x, MAX (block_y, 1), 1 };
  if (grid_x > 0)
    {
      request.launch.grid = (KsDim3) { grid_x, 1, 1 };
      request.launch.auto_grid = FALSE;
    }
  if (!ks_array_kernel_run (worker, ks_device_get_limits (ks_engine_get_device (engine)),
                            &request, &r->run, NULL, &error))
    g_error ("%s did not run: %s", ks_declaration_get_name (d), error->message);
  g_assert_cmpuint (r->run.run.n_findings, ==, 0);
}

static const KsArray *
input_of (const DeclaredRun *r, const char *name)
{
  for (guint i = 0; i < r->bindings->len; i++)
    if (g_str_equal (((const KsBinding *) g_ptr_array_index (r->bindings, i))->name, name))
      return g_ptr_array_index (r->inputs, i);
  g_error ("no binding %s", name);
  return NULL;
}

static const KsArray *
output_of (const DeclaredRun *r, const char *name)
{
  for (guint i = 0; i < r->run.out_names->len; i++)
    if (g_str_equal (g_ptr_array_index (r->run.out_names, i), name))
      return g_ptr_array_index (r->run.run.arrays, i);
  g_error ("no output %s", name);
  return NULL;
}

/* ---- element-wise --------------------------------------------------------- */

static void
test_axpy (void)
{
  const guint lengths[] = { 1, 1000, 100000 };
  const KsDeclaration f = {
    .kind = KS_DECLARED_ELEMENTWISE,
    .name = "axpy",
    .arguments = "float a, const float *x, const float *y, float *z",
    .operation = "z[i] = a*x[i] + y[i]",
  };
  const KsDeclaration k = {
    .kind = KS_DECLARED_ELEMENTWISE,
    .name = "axpy_int",
    .arguments = "int a, const int *x, const int *y, int *z",
    .operation = "z[i] = a*x[i] + y[i];",
  };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    {
      const guint n = lengths[l];
      g_autofree char *x = g_strdup_printf ("x=f32[%u]:random(%u)", n, ks_test_next_seed ("x"));
      g_autofree char *y = g_strdup_printf ("y=f32[%u]:normal(%u)", n, ks_test_next_seed ("y"));
      g_autofree char *z = g_strdup_printf ("z=f32[%u]:const(-1e30):inout", n);
      const char *texts[] = { "a=2.5", x, y, z, NULL };
      g_autofree char *xi = g_strdup_printf ("x=i32[%u]:random(%u)", n, ks_test_next_seed ("x"));
      g_autofree char *yi = g_strdup_printf ("y=i32[%u]:normal(%u, 0, 1000)", n,
                                             ks_test_next_seed ("y"));
      g_autofree char *zi = g_strdup_printf ("z=i32[%u]:const(-7777777):inout", n);
      const char *int_texts[] = { "a=-3", xi, yi, zi, NULL };
      g_auto (DeclaredRun) r = { 0 };
      g_auto (DeclaredRun) ri = { 0 };

      run_declared (&r, &f, texts, 0, 0, 0);
      {
        const float *xs = (const float *) input_of (&r, "x")->data;
        const float *ys = (const float *) input_of (&r, "y")->data;
        const float *zs = (const float *) output_of (&r, "z")->data;

        g_assert_cmpuint (output_of (&r, "z")->length, ==, n);
        /* One rounding of a*x + y (the compiler fuses it) or two: within
         * 2 ulp of the exact value. */
        for (guint i = 0; i < n; i++)
          {
            double exact = 2.5 * xs[i] + ys[i];

            if (fabs (zs[i] - exact) > 2 * 1.2e-7 * fabs (exact) + 1e-37)
              g_error ("axpy n=%u: z[%u] = %.9g, expected %.9g", n, i, zs[i], exact);
          }
      }

      run_declared (&ri, &k, int_texts, 0, 0, 0);
      {
        const gint32 *xs = (const gint32 *) input_of (&ri, "x")->data;
        const gint32 *ys = (const gint32 *) input_of (&ri, "y")->data;
        const gint32 *zs = (const gint32 *) output_of (&ri, "z")->data;

        for (guint i = 0; i < n; i++)
          g_assert_cmpint (zs[i], ==, -3 * xs[i] + ys[i]);
      }
    }
}

/* ---- reductions ----------------------------------------------------------- */

static const KsDeclaration dot_int = {
  .kind = KS_DECLARED_REDUCTION,
  .name = "dot",
  .dtype = "int",
  .neutral = "0",
  .reduce_expr = "a+b",
  .map_expr = "x[i]*y[i]",
  .arguments = "const int *x, const int *y",
};

static const KsDeclaration dot_float = {
  .kind = KS_DECLARED_REDUCTION,
  .name = "dot_f32",
  .dtype = "float",
  .neutral = "0",
  .reduce_expr = "a+b",
  .map_expr = "x[i]*y[i]",
  .arguments = "const float *x, const float *y",
};

static gint64
ref_dot_int (const KsArray *x, const KsArray *y)
{
  gint64 sum = 0;

  for (gsize i = 0; i < x->length; i++)
    sum += (gint64) ((const gint32 *) x->data)[i] * ((const gint32 *) y->data)[i];
  return sum;
}

static double
ref_dot_float (const KsArray *x, const KsArray *y)
{
  double sum = 0;

  for (gsize i = 0; i < x->length; i++)
    sum += (double) ((const float *) x->data)[i] * ((const float *) y->data)[i];
  return sum;
}

/* The result starts as a value no dot product here has. */
static const char poisoned_int_result[] = "result=i32[1]:const(-123456789):inout";
static const char poisoned_float_result[] = "result=f32[1]:const(-1e30):inout";

static void
check_dots (guint n, guint block_x, guint block_y, guint grid_x)
{
  g_autofree char *x = g_strdup_printf ("x=i32[%u]:random(%u)", n, ks_test_next_seed ("x"));
  g_autofree char *y = g_strdup_printf ("y=i32[%u]:random(%u)", n, ks_test_next_seed ("y"));
  const char *texts[] = { x, y, poisoned_int_result, NULL };
  g_autofree char *xf = g_strdup_printf ("x=f32[%u]:random(%u)", n, ks_test_next_seed ("x"));
  g_autofree char *yf = g_strdup_printf ("y=f32[%u]:random(%u)", n, ks_test_next_seed ("y"));
  const char *float_texts[] = { xf, yf, poisoned_float_result, NULL };
  g_auto (DeclaredRun) r = { 0 };
  g_auto (DeclaredRun) rf = { 0 };
  g_auto (DeclaredRun) again = { 0 };
  double ref, got;

  g_test_message ("dot n=%u, block %u×%u, grid %u", n, block_x, MAX (block_y, 1), grid_x);
  /* Values below 100: n * 100 * 100 stays within int. */
  run_declared (&r, &dot_int, texts, block_x, block_y, grid_x);
  g_assert_cmpuint (output_of (&r, "result")->length, ==, 1);
  g_assert_cmpint (((const gint32 *) output_of (&r, "result")->data)[0], ==,
                   ref_dot_int (input_of (&r, "x"), input_of (&r, "y")));

  /* Float sums in another order than the reference's: within n·ε of the
   * sum of the terms, which are all positive. */
  run_declared (&rf, &dot_float, float_texts, block_x, block_y, grid_x);
  ref = ref_dot_float (input_of (&rf, "x"), input_of (&rf, "y"));
  got = ((const float *) output_of (&rf, "result")->data)[0];
  if (fabs (got - ref) > 1e-5 * ref + 1e-6)
    g_error ("float dot n=%u: %.9g, expected %.9g", n, got, ref);

  /* The same launch gives the same bits. */
  run_declared (&again, &dot_float, float_texts, block_x, block_y, grid_x);
  g_assert_cmpmem (output_of (&again, "result")->data, 4, output_of (&rf, "result")->data, 4);
}

static void
test_dot (void)
{
  const guint lengths[] = { 1, 255, 256, 1000, 100000 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    check_dots (lengths[l], 0, 0, 0);
}

static void
test_dot_launches (void)
{
  /* A block that is no power of two, a 2-D block, one block for many
   * elements, and more blocks than take part (KS_DECLARED_MAX_BLOCKS). */
  check_dots (1000, 100, 1, 3);
  check_dots (5000, 16, 16, 0);
  check_dots (100000, 1024, 1, 1);
  check_dots (3000, 32, 1, KS_DECLARED_MAX_BLOCKS + 300);
}

static void
test_max (void)
{
  const KsDeclaration max_float = {
    .kind = KS_DECLARED_REDUCTION,
    .name = "max_f32",
    .dtype = "f32",
    .neutral = "-INFINITY",
    .reduce_expr = "fmaxf(a, b)",
    .map_expr = "x[i]",
    .arguments = "const float *x",
  };
  const KsDeclaration max_int = {
    .kind = KS_DECLARED_REDUCTION,
    .name = "max_i32",
    .dtype = "int",
    .neutral = "INT_MIN",
    .reduce_expr = "max(a, b)",
    .map_expr = "x[i]",
    .arguments = "const int *x",
  };
  const guint lengths[] = { 1, 1000, 100000 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    {
      const guint n = lengths[l];
      /* All negative: a neutral of 0 would show. */
      g_autofree char *xf = g_strdup_printf ("x=f32[%u]:normal(%u, -50, 10)", n,
                                             ks_test_next_seed ("x"));
      g_autofree char *xi = g_strdup_printf ("x=i32[%u]:normal(%u, -5000, 100)", n,
                                             ks_test_next_seed ("x"));
      const char *float_texts[] = { xf, poisoned_float_result, NULL };
      const char *int_texts[] = { xi, poisoned_int_result, NULL };
      g_auto (DeclaredRun) rf = { 0 };
      g_auto (DeclaredRun) ri = { 0 };
      float ref_f = -INFINITY;
      gint32 ref_i = G_MININT32;

      run_declared (&rf, &max_float, float_texts, 0, 0, 0);
      for (guint i = 0; i < n; i++)
        ref_f = MAX (ref_f, ((const float *) input_of (&rf, "x")->data)[i]);
      g_assert_cmpfloat (((const float *) output_of (&rf, "result")->data)[0], ==, ref_f);

      run_declared (&ri, &max_int, int_texts, 0, 0, 0);
      for (guint i = 0; i < n; i++)
        ref_i = MAX (ref_i, ((const gint32 *) input_of (&ri, "x")->data)[i]);
      g_assert_cmpint (((const gint32 *) output_of (&ri, "result")->data)[0], ==, ref_i);
      g_assert_cmpint (ref_i, <, 0);
    }
}

/* ---- scans ---------------------------------------------------------------- */

static void
check_int_scan (const KsDeclaration *d, guint n, guint block_x, guint block_y)
{
  const gboolean exclusive = d->kind == KS_DECLARED_EXCLUSIVE_SCAN;
  g_autofree char *x = g_strdup_printf ("x=i32[%u]:normal(%u, 0, 50)", n,
                                        ks_test_next_seed ("x"));
  g_autofree char *y = g_strdup_printf ("y=i32[%u]:const(-7777777):inout", n);
  const char *texts[] = { x, d->out_of_place ? y : NULL, NULL };
  g_auto (DeclaredRun) r = { 0 };
  const gint32 *in, *out;
  gint32 sum = 0;

  g_test_message ("%s n=%u, block %u×%u", ks_declaration_get_name (d), n, block_x,
                  MAX (block_y, 1));
  run_declared (&r, d, texts, block_x, block_y, 0);
  in = (const gint32 *) input_of (&r, "x")->data;
  out = (const gint32 *) output_of (&r, d->out_of_place ? "y" : "x")->data;
  g_assert_cmpuint (output_of (&r, d->out_of_place ? "y" : "x")->length, ==, n);
  for (guint i = 0; i < n; i++)
    {
      if (!exclusive)
        sum += in[i];
      if (out[i] != sum)
        g_error ("%s n=%u: [%u] = %d, expected %d", ks_declaration_get_name (d), n, i, out[i],
                 sum);
      if (exclusive)
        sum += in[i];
    }
}

static void
test_scans (void)
{
  const KsDeclaration inclusive = {
    .kind = KS_DECLARED_INCLUSIVE_SCAN, .dtype = "int", .reduce_expr = "a+b",
  };
  const KsDeclaration exclusive = {
    .kind = KS_DECLARED_EXCLUSIVE_SCAN, .dtype = "i32", .reduce_expr = "a + b", .neutral = "0",
  };
  const KsDeclaration inclusive_into = {
    .kind = KS_DECLARED_INCLUSIVE_SCAN, .name = "cumsum", .dtype = "int", .reduce_expr = "a+b",
    .out_of_place = TRUE,
  };
  const KsDeclaration exclusive_into = {
    .kind = KS_DECLARED_EXCLUSIVE_SCAN, .name = "offsets", .dtype = "int",
    .reduce_expr = "a+b", .neutral = "0", .out_of_place = TRUE,
  };
  const guint lengths[] = { 1, 1000, 5000 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    {
      check_int_scan (&inclusive, lengths[l], 0, 0);
      check_int_scan (&exclusive, lengths[l], 0, 0);
      check_int_scan (&inclusive_into, lengths[l], 0, 0);
      check_int_scan (&exclusive_into, lengths[l], 0, 0);
    }
  /* Blocks that are no power of two, or 2-D. */
  check_int_scan (&inclusive, 1000, 100, 1);
  check_int_scan (&exclusive_into, 5000, 8, 8);
}

/* An operation that is associative but does not commute: "the later one".
 * Inclusive, it leaves every element as it was; exclusive from -1, it
 * shifts them right by one. A scan that swapped its operands would show. */
static void
test_scan_order (void)
{
  const KsDeclaration last = {
    .kind = KS_DECLARED_INCLUSIVE_SCAN, .dtype = "int", .reduce_expr = "b",
  };
  const KsDeclaration previous = {
    .kind = KS_DECLARED_EXCLUSIVE_SCAN, .dtype = "int", .reduce_expr = "b", .neutral = "-1",
    .out_of_place = TRUE,
  };
  const char *texts[] = { "x=i32[3000]:range(5, 3)", NULL };
  const char *into[] = { "x=i32[3000]:range(5, 3)", "y=i32[3000]:const(-7777777):inout", NULL };
  g_auto (DeclaredRun) r = { 0 };
  g_auto (DeclaredRun) s = { 0 };

  run_declared (&r, &last, texts, 0, 0, 0);
  run_declared (&s, &previous, into, 0, 0, 0);
  for (guint i = 0; i < 3000; i++)
    {
      g_assert_cmpint (((const gint32 *) output_of (&r, "x")->data)[i], ==, 5 + 3 * (gint) i);
      g_assert_cmpint (((const gint32 *) output_of (&s, "y")->data)[i], ==,
                       i == 0 ? -1 : 5 + 3 * ((gint) i - 1));
    }
}

static void
test_float_scan (void)
{
  const KsDeclaration d = {
    .kind = KS_DECLARED_INCLUSIVE_SCAN, .dtype = "float", .reduce_expr = "a+b",
  };
  g_autofree char *x = g_strdup_printf ("x=f32[5000]:random(%u)", ks_test_next_seed ("x"));
  const char *texts[] = { x, NULL };
  g_auto (DeclaredRun) r = { 0 };
  const float *in, *out;
  double sum = 0;

  run_declared (&r, &d, texts, 0, 0, 0);
  in = (const float *) input_of (&r, "x")->data;
  out = (const float *) output_of (&r, "x")->data;
  /* Positive terms summed in another order: within 1e-5 of the sum. */
  for (guint i = 0; i < 5000; i++)
    {
      sum += in[i];
      if (fabs (out[i] - sum) > 1e-5 * sum + 1e-6)
        g_error ("float scan: x[%u] = %.9g, expected %.9g", i, out[i], sum);
    }
}

#if KS_TEST_DECLARED_ON_CPU

/* ---- the generator (no run needed) ---------------------------------------- */

static void
test_generated_compiles (void)
{
  const KsDeclaration declarations[] = {
    { .kind = KS_DECLARED_ELEMENTWISE, .arguments = "float a, float *x, float *y, float *z",
      .operation = "z[i] = a*x[i] + y[i]" },
    { .kind = KS_DECLARED_ELEMENTWISE, .name = "clamped",
      .arguments = "const double *__restrict__ x, unsigned char *y, size_t limit",
      .operation = "// a helper and a comment\ny[i] = clamp_to (x[i], limit)",
      .preamble = "__device__ unsigned char clamp_to (double v, size_t m)\n"
                  "{\n  return v > m ? m : v < 0 ? 0 : (unsigned char) v;\n}\n" },
    { .kind = KS_DECLARED_REDUCTION, .dtype = "double", .neutral = "DBL_MAX",
      .reduce_expr = "fmin(a, b)", .map_expr = "fabs(x[i])", .arguments = "const double *x" },
    { .kind = KS_DECLARED_REDUCTION, .dtype = "unsigned long long", .neutral = "0",
      .reduce_expr = "a | b", .map_expr = "1ull << (x[i] & 63)",
      .arguments = "const unsigned char *x" },
    { .kind = KS_DECLARED_INCLUSIVE_SCAN, .dtype = "double", .reduce_expr = "a*b" },
    { .kind = KS_DECLARED_EXCLUSIVE_SCAN, .dtype = "short", .reduce_expr = "a+b",
      .neutral = "0", .out_of_place = TRUE },
  };
  const char *entries[] = { "elementwise", "clamped", "reduction", "reduction",
                            "inclusive_scan", "exclusive_scan" };
  const char *const args[][6] = {
    { "a", "x", "y", "z", "n", NULL },
    { "x", "y", "limit", "n", NULL },
    { "x", "result", "n", NULL },
    { "x", "result", "n", NULL },
    { "x", "n", NULL },
    { "x", "y", "n", NULL },
  };

  if (!ks_test_have_nvrtc ())
    return;
  for (guint k = 0; k < G_N_ELEMENTS (declarations); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsKernelSource) source = NULL;
      KsCompileResult *result;
      const GPtrArray *kargs;
      guint n_args = 0;

      source = ks_declaration_generate (&declarations[k], NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (ks_kernel_source_get_entry (source), ==, entries[k]);
      kargs = ks_kernel_source_get_args (source);
      while (args[k][n_args] != NULL)
        n_args++;
      g_assert_cmpuint (kargs->len, ==, n_args);
      for (guint i = 0; i < n_args; i++)
        g_assert_cmpstr (((const KsKernelArg *) g_ptr_array_index (kargs, i))->name, ==,
                         args[k][i]);
      result = ks_kernel_source_compile (source, NULL, FALSE, 90, &error);
      g_assert_no_error (error);
      if (!result->success)
        g_error ("%s does not compile:\n%s\n%s", entries[k], result->log,
                 ks_kernel_source_get_text (source));
      ks_compile_result_free (result);
    }
}

/* A declaration's problem found before compiling: its message, exactly. */
static void
assert_refused (const KsDeclaration *d, const char *message)
{
  g_autoptr (GError) error = NULL;
  KsDiagnostic *diagnostic = NULL;
  g_autofree char *text = ks_declaration_generate_text (d, &diagnostic, &error);

  g_assert_null (text);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, message);
  g_assert_nonnull (diagnostic);
  {
    g_autofree char *formatted = ks_diagnostic_format (diagnostic);

    g_assert_cmpstr (formatted, ==, message);
  }
  ks_diagnostic_free (diagnostic);
}

static void
test_bad_declarations (void)
{
  KsDeclaration d = { .kind = KS_DECLARED_ELEMENTWISE, .operation = "z[i] = x[i]" };

  d.arguments = "float *x, flaot *z";
  assert_refused (&d, "arguments:1:11: error: unknown type “flaot”: the arguments take char, "
                  "short, int, long, long long (signed or unsigned), int8_t … uint64_t, size_t, "
                  "float and double, as values or pointers");
  d.arguments = "float *x float *z";
  assert_refused (&d, "arguments:1:9: error: a comma is missing after “x”");
  d.arguments = "float *x,\n  float z[]";
  assert_refused (&d, "arguments:2:10: error: “[” cannot stand in an argument: write TYPE NAME "
                  "or TYPE *NAME, separated by commas (an array is a pointer: TYPE *NAME)");
  d.arguments = "float *x, ";
  assert_refused (&d, "arguments:1:10: error: an argument is missing after this comma");
  d.arguments = "float *x, float *x";
  assert_refused (&d, "arguments:1:18: error: “x” is declared twice");
  d.arguments = "float *x, int n";
  assert_refused (&d, "arguments:1:15: error: “n” is the generated loop's length (n, added to "
                  "the arguments); choose another name");
  d.arguments = "float **x";
  assert_refused (&d, "arguments:1:8: error: a pointer to a pointer cannot be bound to an "
                  "array: pass the data as TYPE *NAME");
  d.arguments = "const u8 *x, float *z";
  assert_refused (&d, "arguments:1:7: error: “u8” is a binding's short name; the arguments are "
                  "C: write unsigned char");
  d.arguments = "float *x, float";
  assert_refused (&d, "arguments:1:16: error: the argument has no name: write float NAME");
  d.arguments = "";
  assert_refused (&d, "arguments:1:1: error: no arguments: declare the arrays and values the "
                  "kernel works on, for example “float a, float *x, float *y”");
  d.arguments = "float *x, float *z";
  d.operation = " ";
  assert_refused (&d, "operation:1:1: error: operation is empty: write what happens to element "
                  "i, for example “z[i] = a*x[i] + y[i]”");
  d.operation = "z[i] = x[i]";
  d.name = "ks_mine";
  assert_refused (&d, "name:1:1: error: “ks_mine”: names starting with ks_ belong to the "
                  "generated code; choose another name");

  {
    KsDeclaration r = { .kind = KS_DECLARED_REDUCTION, .dtype = "flt", .neutral = "0",
                        .reduce_expr = "a+b", .map_expr = "x[i]", .arguments = "float *x" };

    assert_refused (&r, "dtype_out:1:1: error: unknown type “flt”: dtype_out is char, short, "
                    "int, long, long long (signed or unsigned), int8_t … uint64_t, size_t, "
                    "float or double (or f32, i32, …)");
    r.dtype = "float";
    r.arguments = "float *x, float *result";
    assert_refused (&r, "arguments:1:18: error: “result” is the argument the reduction writes "
                    "its result to (added to the arguments); choose another name");
    r.arguments = "float *x";
    r.neutral = NULL;
    assert_refused (&r, "neutral:1:1: error: neutral is empty: the value that changes nothing, "
                    "0 for a+b, -INFINITY for fmaxf(a, b)");
  }
  {
    KsDeclaration s = { .kind = KS_DECLARED_EXCLUSIVE_SCAN, .dtype = "int", .reduce_expr = "a+b" };

    assert_refused (&s, "neutral:1:1: error: neutral is empty: the value the exclusive scan "
                    "starts from, 0 for a+b");
    s.kind = KS_DECLARED_INCLUSIVE_SCAN;
    s.neutral = "0";
    assert_refused (&s, "neutral:1:1: error: an inclusive scan starts from x[0] and takes no "
                    "neutral value (the exclusive scan does)");
  }
}

/* The compiler's messages about the user's pieces land in the piece, at
 * the line and column of the user's text. */
static void
assert_compile_error (const KsDeclaration *d, const char *file, guint line, guint column,
                      const char *message_part)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsKernelSource) source = ks_declaration_generate (d, NULL, &error);
  KsCompileResult *result;
  const KsDiagnostic *first = NULL;

  g_assert_no_error (error);
  result = ks_kernel_source_compile (source, NULL, FALSE, 90, &error);
  g_assert_no_error (error);
  g_assert_false (result->success);
  for (guint i = 0; i < result->diagnostics->len && first == NULL; i++)
    if (((const KsDiagnostic *) g_ptr_array_index (result->diagnostics, i))->severity
        == KS_DIAGNOSTIC_ERROR)
      first = g_ptr_array_index (result->diagnostics, i);
  if (first == NULL)
    g_error ("no error among the diagnostics:\n%s", result->log);
  g_test_message ("%s:%u:%u: %s", first->file, first->line, first->column, first->message);
  g_assert_cmpstr (first->file, ==, file);
  g_assert_cmpuint (first->line, ==, line);
  g_assert_cmpuint (first->column, ==, column);
  g_assert_nonnull (strstr (first->message, message_part));
  ks_compile_result_free (result);
}

static void
test_compile_errors_at_user_text (void)
{
  KsDeclaration e = { .kind = KS_DECLARED_ELEMENTWISE, .arguments = "float *x, float *z",
                      .operation = "z[i] = x[i] + w[i]" };
  KsDeclaration r = { .kind = KS_DECLARED_REDUCTION, .dtype = "float", .neutral = "0",
                      .reduce_expr = "a+", .map_expr = "x[i]", .arguments = "const float *x" };

  if (!ks_test_have_nvrtc ())
    return;
  assert_compile_error (&e, "operation", 1, 15, "identifier \"w\" is undefined");
  e.operation = "float t = x[i];\nz[i] = t * k;";
  assert_compile_error (&e, "operation", 2, 12, "identifier \"k\" is undefined");
  assert_compile_error (&r, "reduce_expr", 1, 4, "expected an expression");
  r.reduce_expr = "a+b";
  r.map_expr = "x[i] * q";
  assert_compile_error (&r, "map_expr", 1, 8, "identifier \"q\" is undefined");
  r.map_expr = "x[i]";
  r.neutral = "NEGATIVE_INFINITY";
  assert_compile_error (&r, "neutral", 1, 1, "identifier \"NEGATIVE_INFINITY\" is undefined");
  r.neutral = "0";
  r.preamble = "__device__ float twice (float v) { return 2 * u; }";
  assert_compile_error (&r, "preamble", 1, 47, "identifier \"u\" is undefined");
}

static void
test_complete_bindings (void)
{
  const KsDeclaration d = { .kind = KS_DECLARED_REDUCTION, .dtype = "double", .neutral = "0",
                            .reduce_expr = "a+b", .map_expr = "a * x[i]",
                            .arguments = "double a, const float *x" };
  g_autoptr (GError) error = NULL;
  g_autoptr (KsKernelSource) source = ks_declaration_generate (&d, NULL, &error);
  g_autoptr (GPtrArray) bindings =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (GPtrArray) messages =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);

  g_assert_no_error (error);
  g_ptr_array_add (bindings, ks_binding_parse ("a=2", &error));
  /* Without an array n has no length to take. */
  g_assert_false (ks_declaration_complete_bindings (d.kind, source, bindings, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_test_assert_message_has (error, "n is not bound and no array gives the length", NULL);
  g_clear_error (&error);

  g_ptr_array_add (bindings, ks_binding_parse ("x=f32[777]:range", &error));
  g_assert_true (ks_declaration_complete_bindings (d.kind, source, bindings, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (bindings->len, ==, 4);
  {
    g_autofree char *result = ks_binding_to_string (g_ptr_array_index (bindings, 2));
    g_autofree char *n = ks_binding_to_string (g_ptr_array_index (bindings, 3));

    g_assert_cmpstr (result, ==, "result=f64[1]:zeros:out");
    g_assert_cmpstr (n, ==, "n=777");
  }
  g_assert_cmpint (ks_bindings_check (ks_kernel_source_get_args (source), bindings, messages), ==,
                   KS_BINDING_OK);
  /* What is bound stays as it is. */
  g_assert_true (ks_declaration_complete_bindings (d.kind, source, bindings, &error));
  g_assert_cmpuint (bindings->len, ==, 4);
}

#endif

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
#if KS_TEST_DECLARED_ON_CPU
  if (!ks_nvrtc_load (NULL))
    {
      g_print ("1..0 # SKIP NVRTC is not available\n");
      return KS_TEST_SKIPPED;
    }
  engine = ks_test_cpu_engine ();
  worker = ks_worker_new (-1);
  /* Equality, not speed: the emulator under a sanitizer is slow. */
  ks_worker_set_timeout_ms (worker, 600000);
  g_test_add_func ("/ks/declared/generate/compiles", test_generated_compiles);
  g_test_add_func ("/ks/declared/generate/bad-declarations", test_bad_declarations);
  g_test_add_func ("/ks/declared/generate/compile-errors", test_compile_errors_at_user_text);
  g_test_add_func ("/ks/declared/generate/complete-bindings", test_complete_bindings);
#else
  if (!ks_test_require_cuda (KS_TEST_NEEDS_NVRTC))
    return KS_TEST_SKIPPED;
  engine = ks_test_cuda_engine ();
  worker = ks_worker_new (ks_device_get_ordinal (ks_engine_get_device (engine)));
#endif

  g_test_add_func ("/ks/declared/elementwise/axpy", test_axpy);
  g_test_add_func ("/ks/declared/reduction/dot", test_dot);
  g_test_add_func ("/ks/declared/reduction/dot-launches", test_dot_launches);
  g_test_add_func ("/ks/declared/reduction/max", test_max);
  g_test_add_func ("/ks/declared/scan/int", test_scans);
  g_test_add_func ("/ks/declared/scan/operand-order", test_scan_order);
  g_test_add_func ("/ks/declared/scan/float", test_float_scan);

  ret = g_test_run ();
  g_clear_object (&worker);
  g_clear_object (&engine);
  return ret;
}
