/* test-user-kernel.c: the user kernel source model — annotations, entry
 * points and signatures, the translation unit, the parameters' bytes, and
 * (where NVRTC is there) real compilations of the units and the templates. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "ks-error.h"
#include "ks-test-helpers.h"
#include "ks-user-kernel.h"

static KsKernelSource *
source_new (KsKernelMode mode, const char *text)
{
  return ks_kernel_source_new (mode, "test.cu", text);
}

static char *
diagnostics_text (const KsKernelSource *source)
{
  const GPtrArray *diags = ks_kernel_source_get_diagnostics (source);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < diags->len; i++)
    {
      g_autofree char *line = ks_diagnostic_format (g_ptr_array_index (diags, i));
      g_string_append_printf (s, "%s\n", line);
    }
  return g_string_free (s, FALSE);
}

static void
assert_clean (const KsKernelSource *source)
{
  g_autofree char *text = diagnostics_text (source);

  g_assert_cmpstr (text, ==, "");
}

/* Exactly one diagnostic, an error at line:column whose message contains
 * `words`. */
static void
assert_one_error (const KsKernelSource *source, guint line, guint column, const char *words)
{
  const GPtrArray *diags = ks_kernel_source_get_diagnostics (source);
  const KsDiagnostic *d;
  g_autofree char *text = diagnostics_text (source);

  if (diags->len != 1)
    g_error ("expected one diagnostic, got:\n%s", text);
  d = g_ptr_array_index (diags, 0);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_ERROR);
  g_assert_cmpstr (d->file, ==, "test.cu");
  g_assert_cmpuint (d->line, ==, line);
  g_assert_cmpuint (d->column, ==, column);
  if (strstr (d->message, words) == NULL)
    g_error ("“%s” does not say “%s”", d->message, words);
  g_assert_true (ks_kernel_source_has_errors (source));
}

static void
test_modes (void)
{
  KsKernelMode mode = KS_KERNEL_MODE_EXPRESSION;

  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (ks_kernel_mode_parse (ks_kernel_mode_name ((KsKernelMode) i), &mode));
      g_assert_cmpint (mode, ==, i);
    }
  g_assert_cmpstr (ks_kernel_mode_name (KS_KERNEL_MODE_ANY), ==, "any");
  g_assert_false (ks_kernel_mode_parse ("kernel", &mode));
}

static void
test_annotations_good (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  const KsParamSpec *specs;
  KsLaunchConfig launch;
  guint n = 0;

  source = source_new (KS_KERNEL_MODE_EXPRESSION,
                       "// a comment\n"
                       "//@param float gain 1.5 [0, 4] \"Gain\"\n"
                       "  //@param int radius 2 [1, 8] \"Radius\" \"Half the window\"\n"
                       "//@param bool flip false \"Flip\"\n"
                       "//@param float bias -0.25 [-1, 1e0]\n"
                       "//@inputs 2\n"
                       "//@output gray\n"
                       "//@block 32x8\n"
                       "//@grid 4x2\n"
                       "//@mode grid-stride\n"
                       "//@pixels-per-thread 4\n"
                       "//@shared 4096\n"
                       "out = gain * in.x;\n");
  assert_clean (source);
  g_assert_false (ks_kernel_source_has_errors (source));

  specs = ks_kernel_source_get_params (source, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpstr (specs[0].name, ==, "gain");
  g_assert_cmpstr (specs[0].title, ==, "Gain");
  g_assert_cmpint (specs[0].type, ==, KS_PARAM_DOUBLE);
  g_assert_cmpfloat (specs[0].default_value, ==, 1.5);
  g_assert_cmpfloat (specs[0].min, ==, 0);
  g_assert_cmpfloat (specs[0].max, ==, 4);
  g_assert_cmpstr (specs[1].name, ==, "radius");
  g_assert_cmpint (specs[1].type, ==, KS_PARAM_INT);
  g_assert_cmpfloat (specs[1].default_value, ==, 2);
  g_assert_cmpfloat (specs[1].min, ==, 1);
  g_assert_cmpfloat (specs[1].max, ==, 8);
  g_assert_cmpstr (specs[1].description, ==, "Half the window");
  g_assert_cmpstr (specs[2].name, ==, "flip");
  g_assert_cmpint (specs[2].type, ==, KS_PARAM_BOOL);
  g_assert_cmpfloat (specs[2].default_value, ==, 0);
  g_assert_cmpstr (specs[2].title, ==, "Flip");
  /* no title: the name stands in */
  g_assert_cmpstr (specs[3].title, ==, "bias");
  g_assert_cmpfloat (specs[3].default_value, ==, -0.25);
  g_assert_cmpfloat (specs[3].min, ==, -1);
  g_assert_cmpfloat (specs[3].max, ==, 1);

  g_assert_cmpuint (ks_kernel_source_get_n_inputs (source), ==, 2);
  g_assert_cmpint (ks_kernel_source_get_output_format (source), ==, KS_FORMAT_GRAY8);
  ks_kernel_source_get_default_launch (source, &launch);
  g_assert_cmpuint (launch.block.x, ==, 32);
  g_assert_cmpuint (launch.block.y, ==, 8);
  g_assert_cmpuint (launch.block.z, ==, 1);
  g_assert_false (launch.auto_grid);
  g_assert_cmpuint (launch.grid.x, ==, 4);
  g_assert_cmpuint (launch.grid.y, ==, 2);
  g_assert_cmpint (launch.mode, ==, KS_LAUNCH_GRID_STRIDE);
  g_assert_cmpuint (launch.pixels_per_thread, ==, 4);
  g_assert_cmpuint (ks_kernel_source_get_dynamic_shared (source), ==, 4096);
  g_assert_null (ks_kernel_source_get_entry (source));
  g_assert_cmpuint (ks_kernel_source_get_args (source)->len, ==, 0);
}

static void
test_annotations_defaults (void)
{
  g_autoptr (KsKernelSource) source = source_new (KS_KERNEL_MODE_EXPRESSION, "out = in;");
  KsLaunchConfig launch;
  guint n = 7;

  assert_clean (source);
  ks_kernel_source_get_params (source, &n);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpuint (ks_kernel_source_get_n_inputs (source), ==, 1);
  g_assert_cmpint (ks_kernel_source_get_output_format (source), ==, KS_FORMAT_RGBA8);
  ks_kernel_source_get_default_launch (source, &launch);
  g_assert_cmpuint (launch.block.x, ==, 16);
  g_assert_cmpuint (launch.block.y, ==, 16);
  g_assert_true (launch.auto_grid);
  g_assert_cmpint (launch.mode, ==, KS_LAUNCH_PER_PIXEL);
  g_assert_cmpuint (launch.pixels_per_thread, ==, 1);
  g_assert_cmpuint (ks_kernel_source_get_dynamic_shared (source), ==, 0);
}

typedef struct
{
  const char *annotation;  /* on line 2, after two spaces */
  guint column;            /* of the offending token */
  const char *words;       /* what the message must say */
} BadAnnotation;

static void
test_annotations_bad (void)
{
  /* Columns count from the line's start: "  //@" is 5 characters. */
  static const BadAnnotation cases[] = {
    { "paramz float a 1 [0, 2]", 6, "unknown annotation" },
    { "param double a 1 [0, 2]", 12, "float, int or bool" },
    { "param float 2a 1 [0, 2]", 18, "not a valid parameter name" },
    { "param float x 1 [0, 2]", 18, "cannot name a parameter" },
    { "param int in 1 [0, 2]", 16, "cannot name a parameter" },
    { "param float out 1 [0, 2]", 18, "cannot name a parameter" },
    { "param float ks_gain 1 [0, 2]", 18, "cannot name a parameter" },
    { "param float a one [0, 2]", 20, "must be a number" },
    { "param int a 1.5 [0, 2]", 18, "whole number" },
    { "param float a 1", 21, "needs a range" },
    { "param float a 1 \"A\"", 22, "needs a range" },
    { "param float a 3 [0, 2] \"A\"", 20, "outside its range" },
    { "param float a 1 [2, 0] \"A\"", 23, "is empty" },
    { "param float a 1 [0 2] \"A\"", 25, "comma" },
    { "param float a 1 [0, 2 \"A\"", 28, "must end with ]" },
    { "param bool a maybe \"A\"", 19, "true or false" },
    { "param bool a true [0, 1] \"A\"", 24, "takes no range" },
    { "param float a 1 [0, 2] \"A", 29, "closing quote" },
    { "param float a 1 [0, 2] Gain", 29, "unexpected text" },
    { "inputs 3", 13, "1 or 2" },
    { "output yuv", 13, "rgba or gray" },
    { "block 0x16", 12, "positive whole numbers" },
    { "grid 8 8", 13, "one value" },
    { "mode diagonal", 11, "per-pixel or grid-stride" },
    { "pixels-per-thread 3", 24, "1, 2, 4, 8 or 16" },
    { "shared lots", 13, "number of bytes" },
    { "shared 1000000", 13, "at most" },
    { "block", 6, "needs a value" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("out = in;\n  //@%s\n", cases[i].annotation);
      g_autoptr (KsKernelSource) source = source_new (KS_KERNEL_MODE_EXPRESSION, text);

      g_test_message ("//@%s", cases[i].annotation);
      assert_one_error (source, 2, cases[i].column, cases[i].words);
    }
}

static void
test_annotations_duplicates (void)
{
  g_autoptr (KsKernelSource) twice = NULL;
  g_autoptr (KsKernelSource) many = NULL;
  g_autoptr (KsKernelSource) block_twice = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  guint n = 0;

  twice = source_new (KS_KERNEL_MODE_EXPRESSION,
                      "//@param float a 1 [0, 2] \"A\"\n"
                      "//@param int a 1 [0, 2] \"A again\"\n");
  assert_one_error (twice, 2, 14, "already declared");
  ks_kernel_source_get_params (twice, &n);
  g_assert_cmpuint (n, ==, 1);

  for (guint i = 0; i < KS_OP_MAX_PARAMS + 1; i++)
    g_string_append_printf (text, "//@param int p%u 0 [0, 1]\n", i);
  many = source_new (KS_KERNEL_MODE_EXPRESSION, text->str);
  assert_one_error (many, KS_OP_MAX_PARAMS + 1, 4, "at most 8");
  ks_kernel_source_get_params (many, &n);
  g_assert_cmpuint (n, ==, KS_OP_MAX_PARAMS);

  block_twice = source_new (KS_KERNEL_MODE_EXPRESSION, "//@block 16x16\n//@block 32x8\n");
  assert_one_error (block_twice, 2, 4, "first is on line 1");
}

/* An annotation that means nothing in a mode is a warning, not an error:
 * the kernel still compiles. Annotations inside block comments and strings
 * are not annotations. */
static void
test_annotations_context (void)
{
  g_autoptr (KsKernelSource) any = NULL;
  g_autoptr (KsKernelSource) hidden = NULL;
  const KsDiagnostic *d;
  guint n = 7;

  any = source_new (KS_KERNEL_MODE_ANY, "//@output gray\n__global__ void k (int *a) { }\n");
  g_assert_cmpuint (ks_kernel_source_get_diagnostics (any)->len, ==, 1);
  d = g_ptr_array_index (ks_kernel_source_get_diagnostics (any), 0);
  g_assert_cmpint (d->severity, ==, KS_DIAGNOSTIC_WARNING);
  g_assert_cmpuint (d->line, ==, 1);
  g_assert_false (ks_kernel_source_has_errors (any));

  hidden = source_new (KS_KERNEL_MODE_EXPRESSION,
                       "/*\n//@param float a 1 [0, 2]\n*/\n"
                       "const char *s = \"//@bogus\";\n");
  assert_clean (hidden);
  ks_kernel_source_get_params (hidden, &n);
  g_assert_cmpuint (n, ==, 0);
}

/* The specs work with the op registry's parameter functions through the
 * source's KsOp. */
static void
test_params_op (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (GError) error = NULL;
  KsParams params;
  KsOp op;

  source = source_new (KS_KERNEL_MODE_EXPRESSION,
                       "//@param float gain 1.5 [0, 4] \"Gain\"\n"
                       "//@param int radius 2 [1, 8] \"Radius\"\n"
                       "//@param bool flip true \"Flip\"\n");
  ks_kernel_source_init_params_op (source, &op);
  ks_params_init (&params, &op);
  g_assert_cmpfloat (params.values[0], ==, 1.5);
  g_assert_cmpfloat (params.values[1], ==, 2);
  g_assert_cmpfloat (params.values[2], ==, 1);

  g_assert_true (ks_params_set (&params, &op, "radius", "5", &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ks_params_get (&params, &op, "radius"), ==, 5);
  g_assert_false (ks_params_set (&params, &op, "gain", "5", &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "between 0 and 4"));
  g_clear_error (&error);
  g_assert_false (ks_params_set (&params, &op, "radius", "2.5", &error));
  g_clear_error (&error);
  g_assert_true (ks_params_parse_assignment (&params, &op, "flip=false", &error));
  g_assert_cmpfloat (params.values[2], ==, 0);
  g_assert_false (ks_params_set (&params, &op, "bogus", "1", &error));
  g_assert_nonnull (strstr (error->message, "test.cu"));
}

static const KsKernelArg *
arg_at (const KsKernelSource *source, guint i)
{
  return g_ptr_array_index (ks_kernel_source_get_args (source), i);
}

static void
test_signature_add (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  const KsKernelArg *a;

  source = source_new (KS_KERNEL_MODE_ANY,
                       "// the tutorial's kernel\n"
                       "__global__ void\n"
                       "add(float *result, const float *a, float *b, int n)\n"
                       "{\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "  if (i < n) result[i] = a[i] + b[i];\n"
                       "}\n");
  assert_clean (source);
  g_assert_cmpstr (ks_kernel_source_get_entry (source), ==, "add");
  g_assert_cmpuint (ks_kernel_source_get_args (source)->len, ==, 4);

  a = arg_at (source, 0);
  g_assert_cmpstr (a->name, ==, "result");
  g_assert_cmpstr (a->type_text, ==, "float *");
  g_assert_cmpint (a->type, ==, KS_ELEM_FLOAT32);
  g_assert_true (a->pointer);
  g_assert_false (a->is_const);
  g_assert_cmpuint (a->line, ==, 3);
  g_assert_cmpuint (a->column, ==, 12);

  a = arg_at (source, 1);
  g_assert_cmpstr (a->name, ==, "a");
  g_assert_cmpstr (a->type_text, ==, "const float *");
  g_assert_cmpint (a->type, ==, KS_ELEM_FLOAT32);
  g_assert_true (a->pointer);
  g_assert_true (a->is_const);
  g_assert_cmpuint (a->column, ==, 33);

  a = arg_at (source, 2);
  g_assert_cmpstr (a->name, ==, "b");
  g_assert_true (a->pointer);
  g_assert_false (a->is_const);

  a = arg_at (source, 3);
  g_assert_cmpstr (a->name, ==, "n");
  g_assert_cmpstr (a->type_text, ==, "int");
  g_assert_cmpint (a->type, ==, KS_ELEM_INT32);
  g_assert_false (a->pointer);
}

static void
test_signature_types (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  static const struct
  {
    const char *name;
    KsElemType type;
    gboolean pointer;
    gboolean is_const;
  } expected[] = {
    { "a", KS_ELEM_UINT32, TRUE, TRUE },
    { "b", KS_ELEM_UINT8, TRUE, FALSE },
    { "c", KS_ELEM_INT64, FALSE, FALSE },
    { "d", KS_ELEM_UINT64, FALSE, TRUE },
    { "e", KS_ELEM_INT16, TRUE, FALSE },
    { "f", KS_ELEM_FLOAT64, TRUE, FALSE },
    { "g2", KS_ELEM_UINT32, FALSE, FALSE },
    { "h", KS_ELEM_INT8, TRUE, TRUE },
    { "s", KS_ELEM_OTHER, FALSE, FALSE },     /* a struct: its type in value */
    { "v", KS_ELEM_FLOAT32, TRUE, FALSE },    /* float4: f32 components */
    { "pp", KS_ELEM_OTHER, TRUE, FALSE },
  };

  source = source_new (KS_KERNEL_MODE_ANY,
                       "struct S { int k; };\n"
                       "extern \"C\" __global__ void __launch_bounds__(256, 2)\n"
                       "mix (const unsigned *__restrict__ a, uint8_t *b, long long c,\n"
                       "     const size_t d, short *e, double *__restrict__ f,\n"
                       "     uint32_t g2, const char *const h, S s, float4 *v, float **pp)\n"
                       "{\n}\n");
  assert_clean (source);
  g_assert_cmpstr (ks_kernel_source_get_entry (source), ==, "mix");
  g_assert_cmpuint (ks_kernel_source_get_args (source)->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const KsKernelArg *a = arg_at (source, i);
      g_test_message ("argument %s: %s", a->name, a->type_text);
      g_assert_cmpstr (a->name, ==, expected[i].name);
      g_assert_cmpint (a->type, ==, expected[i].type);
      g_assert_cmpint (a->pointer, ==, expected[i].pointer);
      g_assert_cmpint (a->is_const, ==, expected[i].is_const);
    }
  g_assert_cmpstr (arg_at (source, 0)->type_text, ==, "const unsigned *__restrict__");
  g_assert_cmpstr (arg_at (source, 7)->type_text, ==, "const char *const");
  /* the struct of the source and the vector type, with their layouts */
  g_assert_nonnull (arg_at (source, 8)->value);
  g_assert_cmpint (arg_at (source, 8)->value->kind, ==, KS_VALUE_STRUCT);
  g_assert_cmpstr (arg_at (source, 8)->value->name, ==, "S");
  g_assert_cmpuint (arg_at (source, 8)->value->size, ==, 4);
  g_assert_nonnull (arg_at (source, 9)->value);
  g_assert_cmpint (arg_at (source, 9)->value->kind, ==, KS_VALUE_VECTOR);
  g_assert_cmpuint (arg_at (source, 9)->value->lanes, ==, 4);
  g_assert_cmpuint (arg_at (source, 9)->value->align, ==, 16);
  g_assert_null (arg_at (source, 10)->value);
  g_assert_null (arg_at (source, 0)->value);
}

/* `__global__` in comments, strings and preprocessor lines is no kernel; a
 * declaration and the definition are one kernel. */
static void
test_signature_hidden (void)
{
  g_autoptr (KsKernelSource) source = NULL;

  source = source_new (KS_KERNEL_MODE_ANY,
                       "// __global__ void fake1 (int a)\n"
                       "/* __global__ void fake2 (int a) */\n"
                       "#define KERNEL __global__ void fake3 (int a)\n"
                       "#define LONG_ONE \\\n  __global__ void fake4 (int a)\n"
                       "__device__ const char *text = \"__global__ void fake5 (int a)\";\n"
                       "__global__ void scale (float *v, float k, int n);\n"
                       "__global__ void scale (float *values, float k, int n)\n"
                       "{\n  if (threadIdx.x < n) values[threadIdx.x] *= k;\n}\n");
  assert_clean (source);
  g_assert_cmpstr (ks_kernel_source_get_entry (source), ==, "scale");
  g_assert_cmpuint (ks_kernel_source_get_args (source)->len, ==, 3);
  /* the definition's names */
  g_assert_cmpstr (arg_at (source, 0)->name, ==, "values");
  g_assert_cmpuint (arg_at (source, 0)->line, ==, 8);
}

static void
test_signature_several (void)
{
  g_autoptr (KsKernelSource) several = NULL;
  g_autoptr (KsKernelSource) chosen = NULL;
  g_autoptr (KsKernelSource) missing = NULL;
  g_autoptr (KsKernelSource) none = NULL;
  const char *two = "__global__ void first (int *a) { }\n"
                    "__global__ void second (float *b, int n) { }\n";
  g_autofree char *with_kernel = g_strconcat ("//@kernel second\n", two, NULL);
  g_autofree char *with_missing = g_strconcat ("//@kernel third\n", two, NULL);
  const KsDiagnostic *d;

  several = source_new (KS_KERNEL_MODE_ANY, two);
  assert_one_error (several, 2, 17, "several __global__ functions (first, second)");
  g_assert_null (ks_kernel_source_get_entry (several));

  chosen = source_new (KS_KERNEL_MODE_ANY, with_kernel);
  assert_clean (chosen);
  g_assert_cmpstr (ks_kernel_source_get_entry (chosen), ==, "second");
  g_assert_cmpuint (ks_kernel_source_get_args (chosen)->len, ==, 2);
  g_assert_cmpstr (arg_at (chosen, 0)->name, ==, "b");

  missing = source_new (KS_KERNEL_MODE_ANY, with_missing);
  assert_one_error (missing, 1, 11, "no __global__ function of that name");
  d = g_ptr_array_index (ks_kernel_source_get_diagnostics (missing), 0);
  g_assert_nonnull (strstr (d->message, "first, second"));

  none = source_new (KS_KERNEL_MODE_ANY, "__device__ int twice (int a) { return 2 * a; }\n");
  assert_one_error (none, 0, 0, "no __global__ function");
}

static void
test_signature_templates (void)
{
  g_autoptr (KsKernelSource) bare = NULL;
  g_autoptr (KsKernelSource) named = NULL;
  g_autoptr (KsKernelSource) wrong = NULL;
  const char *text = "template <typename T, int N>\n"
                     "__global__ void fill (T *data, T value)\n"
                     "{\n  data[threadIdx.x % N] = value;\n}\n";
  g_autofree char *named_text = g_strconcat ("//@kernel fill<float, 4>\n", text, NULL);
  g_autofree char *wrong_text = g_strconcat ("//@kernel fill\n", text, NULL);

  bare = source_new (KS_KERNEL_MODE_ANY, text);
  assert_one_error (bare, 2, 17, "is a template");

  named = source_new (KS_KERNEL_MODE_ANY, named_text);
  assert_clean (named);
  g_assert_cmpstr (ks_kernel_source_get_entry (named), ==, "fill<float, 4>");
  g_assert_cmpuint (ks_kernel_source_get_args (named)->len, ==, 2);
  g_assert_cmpstr (arg_at (named, 0)->type_text, ==, "T *");
  g_assert_cmpint (arg_at (named, 0)->type, ==, KS_ELEM_OTHER);

  wrong = source_new (KS_KERNEL_MODE_ANY, wrong_text);
  assert_one_error (wrong, 1, 11, "fill<float>");
}

static void
test_signature_image (void)
{
  g_autoptr (KsKernelSource) one = NULL;
  g_autoptr (KsKernelSource) two = NULL;
  g_autoptr (KsKernelSource) bad = NULL;
  g_autoptr (KsKernelSource) short_one = NULL;
  g_autoptr (KsKernelSource) contradicts = NULL;

  one = source_new (KS_KERNEL_MODE_IMAGE,
                    "__global__ void flip (ks_image dst, const ks_image src) { }\n");
  assert_clean (one);
  g_assert_cmpuint (ks_kernel_source_get_n_inputs (one), ==, 1);
  g_assert_cmpuint (ks_kernel_source_get_args (one)->len, ==, 2);

  two = source_new (KS_KERNEL_MODE_IMAGE,
                    "//@param float mix 0.5 [0, 1] \"Mix\"\n"
                    "__global__ void blend (ks_image out, ks_image a, ks_image b, ks_params p)"
                    " { }\n");
  assert_clean (two);
  g_assert_cmpuint (ks_kernel_source_get_n_inputs (two), ==, 2);
  g_assert_cmpstr (arg_at (two, 3)->type_text, ==, "ks_params");

  bad = source_new (KS_KERNEL_MODE_IMAGE,
                    "\n__global__ void  wrong (float *out, int n) { }\n");
  assert_one_error (bad, 2, 18, "(ks_image out, ks_image in[, ks_image in2][, ks_params p])");
  g_assert_nonnull (strstr (((KsDiagnostic *) g_ptr_array_index (
                              ks_kernel_source_get_diagnostics (bad), 0))->message,
                            "(float *out, int n)"));

  short_one = source_new (KS_KERNEL_MODE_IMAGE, "__global__ void k (ks_image out) { }\n");
  assert_one_error (short_one, 1, 17, "an image kernel takes");

  contradicts = source_new (KS_KERNEL_MODE_IMAGE,
                            "//@inputs 2\n__global__ void k (ks_image out, ks_image in) { }\n");
  assert_one_error (contradicts, 1, 4, "@inputs says 2");
}

/* float at 0, bool at 4, int at 8 (aligned), padded to 16. */
static void
test_pack_params (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsKernelSource) empty = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GBytes) defaults = NULL;
  g_autoptr (GBytes) none = NULL;
  KsParams params = { { 0 } };
  const guint8 *data;
  gsize size = 0;
  float f;
  gint32 k;

  source = source_new (KS_KERNEL_MODE_IMAGE,
                       "//@param float gain 1 [0, 4] \"Gain\"\n"
                       "//@param bool flip false \"Flip\"\n"
                       "//@param int radius 3 [-8, 8] \"Radius\"\n"
                       "__global__ void k (ks_image out, ks_image in, ks_params p) { }\n");
  assert_clean (source);
  params.values[0] = 2.5;
  params.values[1] = 1;
  params.values[2] = -7;
  bytes = ks_kernel_source_pack_params (source, &params);
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, 16);
  memcpy (&f, data + 0, 4);
  g_assert_cmpfloat (f, ==, 2.5f);
  g_assert_cmpuint (data[4], ==, 1);
  g_assert_cmpuint (data[5], ==, 0);
  memcpy (&k, data + 8, 4);
  g_assert_cmpint (k, ==, -7);

  defaults = ks_kernel_source_pack_params (source, NULL);
  data = g_bytes_get_data (defaults, &size);
  memcpy (&f, data + 0, 4);
  g_assert_cmpfloat (f, ==, 1.0f);
  g_assert_cmpuint (data[4], ==, 0);
  memcpy (&k, data + 8, 4);
  g_assert_cmpint (k, ==, 3);

  empty = source_new (KS_KERNEL_MODE_EXPRESSION, "out = in;\n");
  none = ks_kernel_source_pack_params (empty, &params);
  data = g_bytes_get_data (none, &size);
  g_assert_cmpuint (size, ==, 8);
  for (gsize i = 0; i < size; i++)
    g_assert_cmpuint (data[i], ==, 0);
}

/* The line of the unit on which the user's text starts (after #line 1). */
static guint
user_first_line (const char *unit_source, const char *file)
{
  g_auto (GStrv) lines = g_strsplit (unit_source, "\n", -1);
  g_autofree char *directive = g_strdup_printf ("#line 1 \"%s\"", file);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_equal (lines[i], directive))
      return i + 2;
  return 0;
}

static void
assert_unit_keeps_lines (const KsKernelUnit *unit, const char *user_text)
{
  g_auto (GStrv) lines = g_strsplit (unit->source, "\n", -1);
  g_auto (GStrv) user = g_strsplit (user_text, "\n", -1);
  guint first = user_first_line (unit->source, "test.cu");

  g_assert_cmpuint (first, >, 1);
  for (guint i = 0; user[i] != NULL && user[i + 1] != NULL; i++)
    g_assert_cmpstr (lines[first - 1 + i], ==, user[i]);
}

static void
test_unit_expression (void)
{
  const char *text = "//@param float gain 1 [0, 2] \"Gain\"\n"
                     "out.x = min (255.0f, in.x * gain);\n"
                     "out.y = in.y;\n";
  g_autoptr (KsKernelSource) source = source_new (KS_KERNEL_MODE_EXPRESSION, text);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  KsKernelUnit unit = { 0 };
  KsLaunchConfig launch;
  gboolean saw_line_back = FALSE;

  ks_launch_config_init (&launch, 16, 16);
  launch.pixels_per_thread = 4;
  launch.mode = KS_LAUNCH_GRID_STRIDE;
  g_assert_true (ks_kernel_source_build_unit (source, &launch, FALSE, &unit, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (unit.entry, ==, "ks_expression_kernel<4, 1, false>");
  g_assert_nonnull (strstr (unit.source, "#include \"ks-user.cuh\""));
  g_assert_nonnull (strstr (unit.source, "float gain;"));
  g_assert_nonnull (strstr (unit.source,
                            "ks_expression_kernel (KsGeometry g, ks_image out, ks_image in, "
                            "ks_image in2, ks_params p,"));
  assert_unit_keeps_lines (&unit, text);
  g_assert_cmpuint (unit.n_headers, >=, 3);
  g_assert_cmpstr (unit.headers[0].name, ==, "ks-user.cuh");
  g_assert_nonnull (strstr (unit.headers[0].contents, "typedef KsUserImage ks_image;"));

  /* after the user's text, lines are numbered as they are in the unit */
  lines = g_strsplit (unit.source, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "#line ") && strstr (lines[i], "ks-generated.cu") != NULL)
      {
        g_assert_cmpuint (g_ascii_strtoull (lines[i] + 6, NULL, 10), ==, i + 2);
        saw_line_back = TRUE;
      }
  g_assert_true (saw_line_back);
  ks_kernel_unit_clear (&unit);

  /* pixels per thread 0: the source's own (1); instrumented */
  launch.pixels_per_thread = 0;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  g_assert_true (ks_kernel_source_build_unit (source, &launch, TRUE, &unit, &error));
  g_assert_cmpstr (unit.entry, ==, "ks_expression_kernel<1, 0, true>");
  ks_kernel_unit_clear (&unit);

  launch.pixels_per_thread = 3;
  g_assert_false (ks_kernel_source_build_unit (source, &launch, FALSE, &unit, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_assert_null (unit.source);
}

static void
test_unit_image (void)
{
  const char *text = "\n__global__ void copy (ks_image out, ks_image in)\n"
                     "{\n  ks_rgba (out, 0, 0) = ks_rgba (in, 0, 0);\n}";
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsKernelSource) any = NULL;
  g_autoptr (GError) error = NULL;
  KsKernelUnit unit = { 0 };

  source = ks_kernel_source_new (KS_KERNEL_MODE_IMAGE, "test.cu", text);
  g_assert_true (ks_kernel_source_build_unit (source, NULL, FALSE, &unit, &error));
  g_assert_cmpstr (unit.entry, ==, "copy");
  g_assert_nonnull (strstr (unit.source, "struct alignas (8) ks_params"));
  assert_unit_keeps_lines (&unit, text);
  /* a text without a final newline gets one before anything follows */
  g_assert_true (g_str_has_suffix (unit.source, "}\n"));
  ks_kernel_unit_clear (&unit);

  any = source_new (KS_KERNEL_MODE_ANY, "__global__ void k (int *a) { a[0] = 1; }\n");
  g_assert_true (ks_kernel_source_build_unit (any, NULL, FALSE, &unit, &error));
  g_assert_null (strstr (unit.source, "ks_params"));
  ks_kernel_unit_clear (&unit);
}

/* A source with errors of its own is not compiled: build_unit says why, and
 * compile returns them as a failed result without asking NVRTC. */
static void
test_unit_refused (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  g_autoptr (GError) error = NULL;
  KsKernelUnit unit = { 0 };
  const KsDiagnostic *d;

  source = source_new (KS_KERNEL_MODE_EXPRESSION, "//@param float a 9 [0, 1]\nout = in;\n");
  g_assert_false (ks_kernel_source_build_unit (source, NULL, FALSE, &unit, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_COMPILE);
  g_assert_nonnull (strstr (error->message, "test.cu:1:"));
  g_clear_error (&error);

  result = ks_kernel_source_compile (source, NULL, FALSE, 90, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_false (result->success);
  g_assert_null (result->cubin);
  g_assert_cmpuint (result->diagnostics->len, ==, 1);
  d = g_ptr_array_index (result->diagnostics, 0);
  g_assert_cmpuint (d->line, ==, 1);
  g_assert_nonnull (strstr (d->message, "outside its range"));
}

/* ---- with NVRTC ----------------------------------------------------------- */

static char *
result_text (const KsCompileResult *result)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; result->diagnostics != NULL && i < result->diagnostics->len; i++)
    {
      g_autofree char *line = ks_diagnostic_format (g_ptr_array_index (result->diagnostics, i));
      g_string_append_printf (s, "%s\n", line);
    }
  if (result->log != NULL)
    g_string_append_printf (s, "--- log ---\n%s", result->log);
  return g_string_free (s, FALSE);
}

/* Compiles for sm_90 and insists on no errors and no warnings. */
static KsCompileResult *
compile_clean (const KsKernelSource *source, const KsLaunchConfig *launch, gboolean instrumented)
{
  g_autoptr (GError) error = NULL;
  KsCompileResult *result = ks_kernel_source_compile (source, launch, instrumented, 90, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (result);
  text = result_text (result);
  if (!result->success || ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR) != 0
      || ks_compile_result_count (result, KS_DIAGNOSTIC_WARNING) != 0)
    g_error ("%s did not compile cleanly:\n%s", ks_kernel_source_get_file_name (source), text);
  g_assert_nonnull (result->cubin);
  g_assert_cmpuint (result->kernels->len, ==, 1);
  return result;
}

/* The first error of a failed compilation. */
static const KsDiagnostic *
first_error (const KsCompileResult *result)
{
  g_autofree char *text = NULL;

  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);
      if (d->severity == KS_DIAGNOSTIC_ERROR)
        return d;
    }
  text = result_text (result);
  g_error ("no error among the diagnostics:\n%s", text);
}

static void
test_compile_expression (void)
{
  static const guint ppts[] = { 1, 2, 4, 8, 16 };
  g_autoptr (KsKernelSource) invert = NULL;
  g_autoptr (KsKernelSource) blend = NULL;
  g_autoptr (KsKernelSource) gray = NULL;
  g_autoptr (KsCompileResult) blended = NULL;
  g_autoptr (KsCompileResult) grayed = NULL;
  KsLaunchConfig launch;

  if (!ks_test_have_nvrtc ())
    return;

  invert = source_new (KS_KERNEL_MODE_EXPRESSION,
                       "out.x = 255 - in.x;\nout.y = 255 - in.y;\nout.z = 255 - in.z;\n");
  ks_launch_config_init (&launch, 16, 16);
  for (guint i = 0; i < G_N_ELEMENTS (ppts); i++)
    for (guint mode = 0; mode < 2; mode++)
      for (guint instrumented = 0; instrumented < 2; instrumented++)
        {
          g_autoptr (KsCompileResult) result = NULL;
          const KsKernelResources *res;

          launch.pixels_per_thread = ppts[i];
          launch.mode = (KsLaunchMode) mode;
          result = compile_clean (invert, &launch, instrumented);
          res = g_ptr_array_index (result->kernels, 0);
          g_test_message ("invert ppt %u mode %u instrumented %u: %u registers, %" G_GUINT64_FORMAT
                          " bytes of stack", ppts[i], mode, instrumented, res->num_regs,
                          res->local_bytes);
          g_assert_cmpuint (res->spill_stores, ==, 0);
          /* the same walk as the built-in ops: no per-pixel stack traffic */
          g_assert_cmpuint (res->local_bytes, ==, 0);
          g_assert_cmpuint (res->num_regs, <=, 64);
        }

  blend = source_new (KS_KERNEL_MODE_EXPRESSION,
                      "//@inputs 2\n"
                      "//@param float mix 0.5 [0, 1] \"Mix\"\n"
                      "//@param bool swap false \"Swap\"\n"
                      "//@param int offset 0 [-255, 255] \"Offset\"\n"
                      "const uchar4 a = swap ? in2 : in, b = swap ? in : in2;\n"
                      "out.x = min (255, max (0, (int) (a.x * (1 - mix) + b.x * mix) + offset));\n"
                      "if (x == width / 2 && y == height / 2) printf (\"centre %d\\n\", out.x);\n");
  launch.pixels_per_thread = 4;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  blended = compile_clean (blend, &launch, FALSE);

  gray = source_new (KS_KERNEL_MODE_EXPRESSION,
                     "//@output gray\n"
                     "out = (299u * in.x + 587u * in.y + 114u * in.z + 500u) / 1000u;\n");
  launch.pixels_per_thread = 16;
  grayed = compile_clean (gray, &launch, TRUE);
}

static void
test_compile_image (void)
{
  g_autoptr (KsKernelSource) invert = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  const KsKernelResources *res;

  if (!ks_test_have_nvrtc ())
    return;

  invert = source_new (KS_KERNEL_MODE_IMAGE,
                       "//@param bool alpha false \"Invert alpha too\"\n"
                       "__global__ void\n"
                       "invert (ks_image out, ks_image in, ks_params p)\n"
                       "{\n"
                       "  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                       "  if (!ks_inside (in, x, y))\n"
                       "    return;\n"
                       "  const uchar4 v = ks_rgba (in, x, y);\n"
                       "  ks_rgba (out, x, y) = make_uchar4 (255 - v.x, 255 - v.y, 255 - v.z,\n"
                       "                                     p.alpha ? 255 - v.w : v.w);\n"
                       "}\n");
  result = compile_clean (invert, NULL, FALSE);
  res = g_ptr_array_index (result->kernels, 0);
  g_assert_cmpstr (res->name, ==, "invert");
  g_assert_nonnull (strstr (res->lowered_name, "invert"));
}

/* NVRTC's messages land on the user's lines and columns, not the unit's. */
static void
test_compile_error_lines (void)
{
  g_autoptr (KsKernelSource) expression = NULL;
  g_autoptr (KsKernelSource) image = NULL;
  g_autoptr (KsCompileResult) r1 = NULL;
  g_autoptr (KsCompileResult) r2 = NULL;
  g_autoptr (GError) error = NULL;
  const KsDiagnostic *d;

  if (!ks_test_have_nvrtc ())
    return;

  expression = source_new (KS_KERNEL_MODE_EXPRESSION,
                           "//@param float gain 1 [0, 2] \"Gain\"\n"
                           "out.x = in.x;\n"
                           "out.y = bogus_name + in.y;\n");
  r1 = ks_kernel_source_compile (expression, NULL, FALSE, 90, &error);
  g_assert_no_error (error);
  g_assert_false (r1->success);
  d = first_error (r1);
  g_assert_cmpstr (d->file, ==, "test.cu");
  g_assert_cmpuint (d->line, ==, 3);
  g_assert_cmpuint (d->column, ==, 9);
  g_assert_nonnull (strstr (d->message, "bogus_name"));

  image = source_new (KS_KERNEL_MODE_IMAGE,
                      "__global__ void k (ks_image out, ks_image in)\n"
                      "{\n"
                      "  ks_rgba (out, 0, 0) = undefined_thing;\n"
                      "}\n");
  r2 = ks_kernel_source_compile (image, NULL, FALSE, 90, &error);
  g_assert_no_error (error);
  g_assert_false (r2->success);
  d = first_error (r2);
  g_assert_cmpstr (d->file, ==, "test.cu");
  g_assert_cmpuint (d->line, ==, 3);
  g_assert_cmpuint (d->column, ==, 25);
}

/* ---- the templates -------------------------------------------------------- */

typedef struct
{
  const char *file;
  KsKernelMode mode;
  const char *entry;
  guint n_args;
} Template;

static const Template templates[] = {
  { "invert.cu", KS_KERNEL_MODE_EXPRESSION, NULL, 0 },
  { "gray.cu", KS_KERNEL_MODE_EXPRESSION, NULL, 0 },
  { "box-blur.cu", KS_KERNEL_MODE_IMAGE, "box_blur", 3 },
  { "add-arrays.cu", KS_KERNEL_MODE_ANY, "add", 4 },
  { "histogram.cu", KS_KERNEL_MODE_ANY, "histogram", 3 },
};

static KsKernelSource *
template_load (const Template *t)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "resources", "kernels",
                                                 t->file, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return ks_kernel_source_new (t->mode, t->file, text);
}

static void
test_templates_parse (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (templates); i++)
    {
      g_autoptr (KsKernelSource) source = template_load (&templates[i]);
      g_autofree char *text = diagnostics_text (source);

      g_test_message ("%s", templates[i].file);
      g_assert_cmpstr (text, ==, "");
      g_assert_cmpstr (ks_kernel_source_get_entry (source), ==, templates[i].entry);
      g_assert_cmpuint (ks_kernel_source_get_args (source)->len, ==, templates[i].n_args);
    }
}

static void
test_templates_details (void)
{
  g_autoptr (KsKernelSource) gray = template_load (&templates[1]);
  g_autoptr (KsKernelSource) blur = template_load (&templates[2]);
  g_autoptr (KsKernelSource) add = template_load (&templates[3]);
  g_autoptr (KsKernelSource) hist = template_load (&templates[4]);
  const KsParamSpec *specs;
  guint n = 0;

  g_assert_cmpint (ks_kernel_source_get_output_format (gray), ==, KS_FORMAT_GRAY8);

  /* the template's radius: 1 to 16 (its tile's border), 2 by default like the built-in */
  specs = ks_kernel_source_get_params (blur, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (specs[0].name, ==, "radius");
  g_assert_cmpint (specs[0].type, ==, KS_PARAM_INT);
  g_assert_cmpfloat (specs[0].min, ==, 1);
  g_assert_cmpfloat (specs[0].max, ==, 16);
  g_assert_cmpfloat (specs[0].default_value, ==, 2);

  g_assert_cmpstr (arg_at (add, 0)->name, ==, "result");
  g_assert_cmpint (arg_at (add, 1)->type, ==, KS_ELEM_FLOAT32);
  g_assert_cmpint (arg_at (add, 3)->type, ==, KS_ELEM_INT32);

  g_assert_cmpint (arg_at (hist, 0)->type, ==, KS_ELEM_UINT32);
  g_assert_false (arg_at (hist, 0)->is_const);
  g_assert_cmpint (arg_at (hist, 1)->type, ==, KS_ELEM_UINT8);
  g_assert_true (arg_at (hist, 1)->is_const);
}

static void
test_templates_compile (void)
{
  if (!ks_test_have_nvrtc ())
    return;

  for (guint i = 0; i < G_N_ELEMENTS (templates); i++)
    {
      g_autoptr (KsKernelSource) source = template_load (&templates[i]);
      g_autoptr (KsCompileResult) result = NULL;
      KsLaunchConfig launch;

      g_test_message ("%s", templates[i].file);
      ks_kernel_source_get_default_launch (source, &launch);
      result = compile_clean (source, &launch, FALSE);
      if (i == 2)
        {
          const KsKernelResources *res = g_ptr_array_index (result->kernels, 0);
          /* the tile: (32 + 2·16)² RGBA pixels */
          g_assert_cmpuint (res->shared_static, ==, 64 * 64 * 4);
        }
    }
}

/* Structs of the source as argument types: laid out with C's rules
 * (nested structs, array members, __align__, typedefs), and the reason
 * when one cannot be bound. */
static void
test_signature_structs (void)
{
  g_autoptr (KsKernelSource) source = NULL;
  const KsKernelArg *a;

  source = source_new (KS_KERNEL_MODE_ANY,
                       "struct Inner { double d; char c; };\n"
                       "typedef struct { char a; Inner in; short m[3][2]; } Outer;\n"
                       "struct __align__(16) Wide { float x; };\n"
                       "typedef Outer Alias;\n"
                       "using Real = double;\n"
                       "struct Methods { float v; __device__ float get () const { return v; } "
                       "static const int k = 3; };\n"
                       "union U { int i; float f; };\n"
                       "struct HasU { U u; };\n"
                       "struct Ptr { float *p; };\n"
                       "struct Bits { int a : 3; };\n"
                       "__global__ void k (Alias o, Wide *w, Real r, Methods m, HasU h, Ptr p,\n"
                       "                   Bits b, thrust::complex<double> *z)\n"
                       "{\n}\n");
  assert_clean (source);
  a = arg_at (source, 0);
  g_assert_nonnull (a->value);
  g_assert_cmpstr (a->value->name, ==, "Outer");
  /* a at 0, in (16 bytes, aligned 8) at 8, m (12 bytes) at 24: 36, padded to 40 */
  g_assert_cmpuint (a->value->size, ==, 40);
  g_assert_cmpuint (a->value->align, ==, 8);
  g_assert_cmpuint (a->value->fields[1].offset, ==, 8);
  g_assert_cmpuint (a->value->fields[2].offset, ==, 24);
  g_assert_cmpuint (a->value->fields[2].count, ==, 6);
  a = arg_at (source, 1);
  g_assert_cmpuint (a->value->size, ==, 16);
  g_assert_cmpuint (a->value->align, ==, 16);
  a = arg_at (source, 2);
  g_assert_null (a->value);
  g_assert_cmpint (a->type, ==, KS_ELEM_FLOAT64);
  a = arg_at (source, 3);
  g_assert_cmpuint (a->value->size, ==, 4);
  g_assert_cmpuint (a->value->n_fields, ==, 1);
  g_assert_cmpstr (arg_at (source, 4)->type_problem, ==,
                   "its member u has type U: it is a union, which Kernelscope cannot lay out");
  g_assert_cmpstr (arg_at (source, 5)->type_problem, ==,
                   "its member p is a pointer, which has no value to bind");
  g_assert_cmpstr (arg_at (source, 6)->type_problem, ==,
                   "its member a is a bit-field, which Kernelscope cannot lay out");
  a = arg_at (source, 7);
  g_assert_cmpint (a->value->kind, ==, KS_VALUE_COMPLEX);
  g_assert_cmpuint (a->value->size, ==, 16);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ks/user-kernel/modes", test_modes);
  g_test_add_func ("/ks/user-kernel/annotations/good", test_annotations_good);
  g_test_add_func ("/ks/user-kernel/annotations/defaults", test_annotations_defaults);
  g_test_add_func ("/ks/user-kernel/annotations/bad", test_annotations_bad);
  g_test_add_func ("/ks/user-kernel/annotations/duplicates", test_annotations_duplicates);
  g_test_add_func ("/ks/user-kernel/annotations/context", test_annotations_context);
  g_test_add_func ("/ks/user-kernel/params-op", test_params_op);
  g_test_add_func ("/ks/user-kernel/signature/add", test_signature_add);
  g_test_add_func ("/ks/user-kernel/signature/types", test_signature_types);
  g_test_add_func ("/ks/user-kernel/signature/structs", test_signature_structs);
  g_test_add_func ("/ks/user-kernel/signature/hidden", test_signature_hidden);
  g_test_add_func ("/ks/user-kernel/signature/several", test_signature_several);
  g_test_add_func ("/ks/user-kernel/signature/templates", test_signature_templates);
  g_test_add_func ("/ks/user-kernel/signature/image", test_signature_image);
  g_test_add_func ("/ks/user-kernel/pack-params", test_pack_params);
  g_test_add_func ("/ks/user-kernel/unit/expression", test_unit_expression);
  g_test_add_func ("/ks/user-kernel/unit/image", test_unit_image);
  g_test_add_func ("/ks/user-kernel/unit/refused", test_unit_refused);
  g_test_add_func ("/ks/user-kernel/compile/expression", test_compile_expression);
  g_test_add_func ("/ks/user-kernel/compile/image", test_compile_image);
  g_test_add_func ("/ks/user-kernel/compile/error-lines", test_compile_error_lines);
  g_test_add_func ("/ks/user-kernel/templates/parse", test_templates_parse);
  g_test_add_func ("/ks/user-kernel/templates/details", test_templates_details);
  g_test_add_func ("/ks/user-kernel/templates/compile", test_templates_compile);

  return g_test_run ();
}
