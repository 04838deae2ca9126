/* test-cuda-user.c: the templates a user starts from — invert and gray as
 * expressions, the box blur as an image kernel with a shared-memory tile —
 * compiled with NVRTC, run in the worker on the application's device
 * buffers (CUDA IPC), and compared pixel for pixel with the built-in ops on
 * the CPU engine: on random odd sizes, a photo, and odd launches, with the
 * output poisoned before each run. The expression's coverage equals the
 * built-in op's (the same walk over the pixels). A pasted kernel with
 * standard headers and a helper from an include folder equals its C
 * reference.
 *
 * Built as test-user-cpu (KS_TEST_USER_ON_CPU), the same user kernels run on
 * the CPU engine's emulator instead, on its host buffers, and must give the
 * same pixels and the same coverage records as the built-in ops: no GPU
 * needed, NVRTC only.
 *
 * Kernels of the any mode with typed arguments — a float3 and a double2
 * scalar, float4 arrays, complex numbers, an array and a value of a struct
 * the source declares — run on both and are compared with the results
 * computed here, exactly (the values are small integers and halves); a
 * struct whose layout Kernelscope would misread is refused before the run.
 * Kernels that include the CUDA toolkit's headers run too: a
 * cooperative-groups tile sum, exact, and cuRAND's XORWOW, exact against
 * its definition for subsequence 0 and uniform-looking on 1024 threads.
 *
 * Without a usable GPU (or, on the CPU engine, NVRTC) it prints a TAP plan
 * of 0 and exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ks-array-run.h"
#include "ks-test-helpers.h"
#include "ks-user-run.h"

static KsEngine *engine;
static KsEngine *cpu;
static KsWorker *worker;

static KsKernelSource *
load_template (const char *name, KsKernelMode mode)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "resources", "kernels", name,
                                                 NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  KsKernelSource *source;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  source = ks_kernel_source_new (mode, name, text);
  g_assert_false (ks_kernel_source_has_errors (source));
  return source;
}

/* Runs the user kernel on the engine with a poisoned output, downloads it. */
static KsImage *
run_user (KsKernelSource *source, KsImage *input, const KsLaunchConfig *launch,
          const char *param, double value, gboolean instrument, KsCoverage **coverage)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) in = NULL;
  g_autoptr (KsBuffer) out = NULL;
  KsUserRunRequest request;
  KsUserRunResult result = { 0 };
  KsImage *image;

  ks_user_run_request_init (&request, source);
  if (launch != NULL)
    request.launch = *launch;
  if (param != NULL)
    {
      guint n = 0;
      const KsParamSpec *specs = ks_kernel_source_get_params (source, &n);
      gboolean found = FALSE;

      for (guint i = 0; i < n; i++)
        if (g_str_equal (specs[i].name, param))
          {
            request.params.values[i] = value;
            found = TRUE;
          }
      g_assert_true (found);
    }
  request.instrument = instrument;
  in = ks_engine_upload (engine, input, NULL, &error);
  g_assert_no_error (error);
  out = ks_engine_new_buffer (engine, ks_kernel_source_get_output_format (source), input->width,
                              input->height, &error);
  g_assert_no_error (error);
  g_assert_true (ks_engine_fill (engine, out, KS_TEST_POISON, &error));
  request.inputs[0] = in;
  request.output = out;
  ks_user_kernel_run (worker, engine, &request, &result, NULL, &error);
  g_assert_no_error (error);
  image = ks_engine_download (engine, result.output, NULL, &error);
  g_assert_no_error (error);
  if (coverage != NULL)
    *coverage = g_steal_pointer (&result.coverage);
  ks_user_run_result_clear (&result);
  return image;
}

/* The built-in op on the CPU engine under the same launch, poisoned. */
static KsImage *
run_builtin (const char *op, KsImage *input, const KsLaunchConfig *launch, const char *param,
             gboolean instrument, KsCoverage **coverage)
{
  const char *params[] = { param, NULL };
  KsTestRun spec = { .op = op, .params = param != NULL ? params : NULL, .launch = launch,
                     .instrument = instrument, .poison = KS_TEST_POISON };
  KsImage *inputs[] = { input, NULL };
  KsRunResult result = { 0 };
  KsImage *image = ks_test_run (cpu, &spec, inputs, &result);

  if (coverage != NULL)
    *coverage = g_steal_pointer (&result.coverage);
  ks_run_result_clear (&result);
  return image;
}

static const struct
{
  guint w, h;
} odd_sizes[] = { { 1, 1 }, { 333, 77 }, { 1021, 3 }, { 17, 509 } };

static void
check_expression (const char *template_name, const char *op)
{
  g_autoptr (KsKernelSource) source = load_template (template_name, KS_KERNEL_MODE_EXPRESSION);
  KsLaunchConfig launches[] = {
    ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1),
    ks_test_launch (13, 7, 0, 0, KS_LAUNCH_PER_PIXEL, 4),
    ks_test_launch (32, 4, 3, 2, KS_LAUNCH_GRID_STRIDE, 16),
    ks_test_launch (64, 1, 0, 0, KS_LAUNCH_GRID_STRIDE, 2),
  };

  for (guint s = 0; s < G_N_ELEMENTS (odd_sizes); s++)
    for (guint l = 0; l < G_N_ELEMENTS (launches); l++)
      {
        g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, odd_sizes[s].w,
                                                          odd_sizes[s].h, 0x1234u + s * 17 + l);
        g_autoptr (KsImage) ours = run_user (source, input, &launches[l], NULL, 0, FALSE, NULL);
        g_autoptr (KsImage) ref = run_builtin (op, input, &launches[l], NULL, FALSE, NULL);
        g_autofree char *what = g_strdup_printf ("%s %u×%u launch %u", template_name,
                                                 odd_sizes[s].w, odd_sizes[s].h, l);

        ks_test_assert_images_equal (ref, ours, what);
      }

  {
    g_autoptr (KsImage) photo = ks_test_load_sample ();
    g_autoptr (KsImage) ours = run_user (source, photo, NULL, NULL, 0, FALSE, NULL);
    g_autoptr (KsImage) ref = run_builtin (op, photo, NULL, NULL, FALSE, NULL);

    ks_test_assert_images_equal (ref, ours, template_name);
  }
}

static void
test_invert (void)
{
  check_expression ("invert.cu", "invert");
}

static void
test_gray (void)
{
  check_expression ("gray.cu", "gray");
}

/* The image kernel decides which pixel each thread writes; any block must
 * give the built-in blur exactly, at each radius the template allows. */
static void
test_box_blur (void)
{
  g_autoptr (KsKernelSource) source = load_template ("box-blur.cu", KS_KERNEL_MODE_IMAGE);
  KsLaunchConfig launches[] = {
    ks_test_launch (16, 16, 0, 0, KS_LAUNCH_PER_PIXEL, 1),
    ks_test_launch (13, 7, 0, 0, KS_LAUNCH_PER_PIXEL, 1),
    ks_test_launch (32, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 1),
  };
  guint n_params = 0;
  const KsParamSpec *specs = ks_kernel_source_get_params (source, &n_params);
  const KsParamSpec *radius = NULL;

  for (guint i = 0; i < n_params; i++)
    if (g_str_equal (specs[i].name, "radius"))
      radius = &specs[i];
  g_assert_nonnull (radius);

  for (guint s = 0; s < G_N_ELEMENTS (odd_sizes); s++)
    for (guint l = 0; l < G_N_ELEMENTS (launches); l++)
      for (guint r = (guint) radius->min; r <= (guint) radius->max; r += 2)
        {
          g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, odd_sizes[s].w,
                                                            odd_sizes[s].h, 0x77u + s * 5 + l);
          g_autofree char *param = g_strdup_printf ("radius=%u", r);
          g_autoptr (KsImage) ours = run_user (source, input, &launches[l], "radius", r, FALSE,
                                               NULL);
          g_autoptr (KsImage) ref = run_builtin ("box_blur", input, NULL, param, FALSE, NULL);
          g_autofree char *what = g_strdup_printf ("box blur r%u %u×%u launch %u", r,
                                                   odd_sizes[s].w, odd_sizes[s].h, l);

          ks_test_assert_images_equal (ref, ours, what);
        }

  {
    g_autoptr (KsImage) photo = ks_test_load_sample ();
    g_autoptr (KsImage) ours = run_user (source, photo, NULL, "radius", 2, FALSE, NULL);
    g_autoptr (KsImage) ref = run_builtin ("box_blur", photo, NULL, "radius=2", FALSE, NULL);

    ks_test_assert_images_equal (ref, ours, "box blur photo");
  }
}

/* An expression walks the pixels as the built-in ops do: the same pixels
 * written as often, by the same block and thread, and as many idle threads —
 * also where the grid is too small and pixels stay unwritten. */
static void
test_expression_coverage (void)
{
  g_autoptr (KsKernelSource) source = load_template ("invert.cu", KS_KERNEL_MODE_EXPRESSION);
  g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, 203, 61, 99);
  KsLaunchConfig launches[] = {
    ks_test_launch (16, 16, 4, 2, KS_LAUNCH_PER_PIXEL, 1),   /* too small: pixels unwritten */
    ks_test_launch (8, 8, 0, 0, KS_LAUNCH_PER_PIXEL, 4),
    ks_test_launch (32, 2, 3, 5, KS_LAUNCH_GRID_STRIDE, 8),
  };

  for (guint l = 0; l < G_N_ELEMENTS (launches); l++)
    {
      g_autoptr (KsCoverage) user_cov = NULL;
      g_autoptr (KsCoverage) ref_cov = NULL;
      g_autoptr (KsImage) ours = run_user (source, input, &launches[l], NULL, 0, TRUE, &user_cov);
      g_autoptr (KsImage) ref = run_builtin ("invert", input, &launches[l], NULL, TRUE, &ref_cov);
      g_autofree char *what = g_strdup_printf ("invert coverage, launch %u", l);

      g_assert_nonnull (user_cov);
      g_assert_nonnull (ref_cov);
      ks_test_assert_images_equal (ref, ours, what);
      ks_test_assert_coverage_equal (ref_cov, user_cov, what);
      if (l == 0)
        g_assert_cmpuint (user_cov->unwritten_pixels, >, 0);
    }
}

/* A pasted image kernel with standard headers (stdint.h, limits.h,
 * cuComplex.h) and a helper header from an include folder: every pixel as
 * the C reference computes it, the output poisoned before the run. */
static void
test_headers_and_include_dir (void)
{
  static const char text[] =
    "#include <stdint.h>\n"
    "#include <limits.h>\n"
    "#include <cuComplex.h>\n"
    "#include \"pixel-helpers.cuh\"\n"
    "__global__ void mix (ks_image out, ks_image in)\n"
    "{\n"
    "  const uint x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  const uint y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (!ks_inside (in, x, y))\n"
    "    return;\n"
    "  const uchar4 p = ks_rgba (in, x, y);\n"
    "  /* |3 + 4i| is 5 exactly */\n"
    "  const uint8_t five = (uint8_t) cuCabsf (make_cuFloatComplex (3.0f, 4.0f));\n"
    "  ks_rgba (out, x, y) = make_uchar4 (ks_test_boost (p.x), UCHAR_MAX - p.y,\n"
    "                                     (uint8_t) (p.z + five), p.w);\n"
    "}\n";
  g_autofree char *dir = g_dir_make_tmp ("ks-test-user-inc-XXXXXX", NULL);
  g_autofree char *helper = g_build_filename (dir, "pixel-helpers.cuh", NULL);
  const char *dirs[] = { dir, NULL };
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (helper,
                                      "#pragma once\n"
                                      "#include <stdint.h>\n"
                                      "/* 1.5 v, saturated */\n"
                                      "__device__ uint8_t ks_test_boost (uint8_t v)\n"
                                      "{\n"
                                      "  return (uint8_t) min (255u, (v * 3u) / 2u);\n"
                                      "}\n", -1, &error));
  g_assert_no_error (error);
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_IMAGE, "mix.cu", text,
                                      &(KsKernelSourceOptions) { .include_dirs = dirs });
  g_assert_false (ks_kernel_source_has_errors (source));
  g_assert_cmpuint (ks_kernel_source_get_headers (source)->len, ==, 1);

  for (guint s = 0; s < G_N_ELEMENTS (odd_sizes); s++)
    {
      g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, odd_sizes[s].w,
                                                        odd_sizes[s].h, 0x4d1u + s);
      g_autoptr (KsImage) ours = run_user (source, input, NULL, NULL, 0, FALSE, NULL);
      g_autoptr (KsImage) ref = ks_image_new (KS_FORMAT_RGBA8, input->width, input->height,
                                              &error);
      g_autofree char *what = g_strdup_printf ("mix.cu %u×%u", input->width, input->height);

      g_assert_no_error (error);
      for (guint y = 0; y < input->height; y++)
        for (guint x = 0; x < input->width; x++)
          {
            const guint8 *p = input->data + (gsize) y * input->stride + x * 4;
            guint8 *q = ref->data + (gsize) y * ref->stride + x * 4;

            q[0] = (guint8) MIN (255u, (p[0] * 3u) / 2u);
            q[1] = (guint8) (255u - p[1]);
            q[2] = (guint8) (p[2] + 5u);
            q[3] = p[3];
          }
      ks_test_assert_images_equal (ref, ours, what);
    }
  g_unlink (helper);
  g_rmdir (dir);
}

/* A launch the kernel cannot run is refused before anything runs, with a
 * suggestion that can. */
static void
test_launch_refused (void)
{
  g_autoptr (KsKernelSource) source = load_template ("invert.cu", KS_KERNEL_MODE_EXPRESSION);
  g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, 64, 64, 5);
  g_autoptr (KsBuffer) in = NULL;
  g_autoptr (KsCompileResult) compiled = NULL;
  g_autoptr (GError) error = NULL;
  KsUserRunRequest request;
  KsLaunchConfig resolved, suggestion;

  in = ks_engine_upload (engine, input, NULL, &error);
  g_assert_no_error (error);
  ks_user_run_request_init (&request, source);
  request.inputs[0] = in;
  request.launch = ks_test_launch (64, 32, 0, 0, KS_LAUNCH_PER_PIXEL, 1); /* 2048 threads */
  g_assert_false (ks_user_kernel_prepare (worker, engine, &request, &resolved, &compiled, NULL,
                                          &suggestion, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_assert_cmpuint (suggestion.block.x * suggestion.block.y * suggestion.block.z, <=, 1024);
}

/* ---- typed arguments of the any mode ------------------------------------- */

static const char typed_kernel[] =
  "typedef float2 cuFloatComplex;\n"
  "struct Particle { float3 pos; float mass; int id; };\n"
  "__global__ void typed (float4 *out, const float4 *in, float3 s, double2 d,\n"
  "                       cuFloatComplex *z, Particle *p, Particle q, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n)\n"
  "    return;\n"
  "  float4 v = in[i];\n"
  "  out[i] = make_float4 (v.x * s.x, v.y * s.y, v.z * s.z, v.w + (float) (d.x + d.y));\n"
  "  cuFloatComplex c = z[i];\n"
  "  z[i] = make_float2 (c.x * c.x - c.y * c.y, 2.0f * c.x * c.y);\n"
  "  p[i].pos.x += q.pos.x;\n"
  "  p[i].pos.y += q.pos.y;\n"
  "  p[i].pos.z += q.pos.z;\n"
  "  p[i].mass = q.mass * i;\n"
  "  p[i].id = q.id + i;\n"
  "}\n";

typedef struct
{
  float pos[3];
  float mass;
  gint32 id;
} Particle;

G_STATIC_ASSERT (sizeof (Particle) == 20);

static GPtrArray *
parse_bindings (const char *const *texts)
{
  GPtrArray *bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);

  for (guint i = 0; texts[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      KsBinding *b = ks_binding_parse (texts[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (bindings, b);
    }
  return bindings;
}

static const KsArray *
result_array (const KsArrayRunResult *result, const char *name)
{
  for (guint i = 0; i < result->out_names->len; i++)
    if (g_str_equal (g_ptr_array_index (result->out_names, i), name))
      return g_ptr_array_index (result->run.arrays, i);
  g_assert_not_reached ();
  return NULL;
}

static void
test_typed_args (void)
{
  /* 37 items: two blocks of 32, the second partly idle */
  const char *const texts[] = {
    "out=float4[37]:const(-777):inout", "in=float4[37]:range", "s=float3(1.5, 2, 3)",
    "d=(0.25, 0.5)", "z=c64[37]:range", "p=Particle[37]:zeros",
    "q=Particle{pos=(1, -2, 0.5), mass=2.5, id=7}", "n=37", NULL,
  };
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "typed.cu",
                                                            typed_kernel);
  g_autoptr (GPtrArray) bindings = parse_bindings (texts);
  g_autoptr (GPtrArray) messages =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  g_autoptr (GError) error = NULL;
  KsArrayRunRequest request;
  KsArrayRunResult result = { 0 };
  const KsArray *out, *z, *p;

  g_assert_false (ks_kernel_source_has_errors (source));
  g_assert_cmpint (ks_bindings_check (ks_kernel_source_get_args (source), bindings, messages), ==,
                   KS_BINDING_OK);
  ks_array_run_request_init (&request, source);
  request.bindings = bindings;
  request.launch.block = (KsDim3) { 32, 1, 1 };
  request.launch.auto_grid = TRUE;
  ks_array_kernel_run (worker, ks_device_get_limits (ks_engine_get_device (engine)), &request,
                       &result, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (result.launch.grid.x, ==, 2);

  out = result_array (&result, "out");
  z = result_array (&result, "z");
  p = result_array (&result, "p");
  g_assert_cmpstr (ks_array_get_type_name (out), ==, "float4");
  g_assert_cmpuint (ks_array_get_count (out), ==, 37);
  g_assert_cmpuint (ks_array_get_count (z), ==, 37);
  g_assert_cmpuint (ks_array_get_count (p), ==, 37);
  for (guint i = 0; i < 37; i++)
    {
      const float *o = (const float *) out->data + 4 * i;
      const float *c = (const float *) z->data + 2 * i;
      Particle got;
      double re = 2.0 * i, im = 2.0 * i + 1;

      g_assert_cmpfloat (o[0], ==, 4.0 * i * 1.5);
      g_assert_cmpfloat (o[1], ==, (4.0 * i + 1) * 2);
      g_assert_cmpfloat (o[2], ==, (4.0 * i + 2) * 3);
      g_assert_cmpfloat (o[3], ==, 4.0 * i + 3 + 0.75);
      g_assert_cmpfloat (c[0], ==, re * re - im * im);
      g_assert_cmpfloat (c[1], ==, 2 * re * im);
      memcpy (&got, p->data + i * sizeof got, sizeof got);
      g_assert_cmpfloat (got.pos[0], ==, 1);
      g_assert_cmpfloat (got.pos[1], ==, -2);
      g_assert_cmpfloat (got.pos[2], ==, 0.5);
      g_assert_cmpfloat (got.mass, ==, 2.5 * i);
      g_assert_cmpint (got.id, ==, 7 + (gint) i);
    }
  {
    g_autofree char *first = ks_array_format_item (p, 1);
    g_autofree char *vec = ks_array_format_item (out, 1);
    g_autofree char *cx = ks_array_format_item (z, 1);

    g_assert_cmpstr (first, ==, "{pos=(1, -2, 0.5), mass=2.5, id=8}");
    g_assert_cmpstr (vec, ==, "(6, 10, 18, 7.75)");
    g_assert_cmpstr (cx, ==, "-5+12j");
  }
  ks_array_run_result_clear (&result);
}

/* A kernel of tests/data/toolkit, which includes the CUDA toolkit's
 * headers: the compiler reads them from the toolkit's include folders. */
static KsKernelSource *
load_toolkit_kernel (const char *file, const char *kernel)
{
  g_autofree char *path = ks_test_data_path ("toolkit");
  g_autofree char *full = g_build_filename (path, file, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  KsKernelSource *source;

  g_assert_true (g_file_get_contents (full, &text, NULL, &error));
  g_assert_no_error (error);
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, file, text,
                                      &(KsKernelSourceOptions) { .kernel = kernel,
                                                                 .source_dir = path });
  g_assert_false (ks_kernel_source_has_errors (source));
  return source;
}

static void
run_toolkit_kernel (KsKernelSource *source, const char *const *texts, guint block,
                    KsArrayRunResult *result)
{
  g_autoptr (GPtrArray) bindings = parse_bindings (texts);
  g_autoptr (GPtrArray) messages =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  g_autoptr (GError) error = NULL;
  KsArrayRunRequest request;

  g_assert_cmpint (ks_bindings_check (ks_kernel_source_get_args (source), bindings, messages), ==,
                   KS_BINDING_OK);
  ks_array_run_request_init (&request, source);
  request.bindings = bindings;
  request.launch.block = (KsDim3) { block, 1, 1 };
  request.launch.auto_grid = TRUE;
  ks_array_kernel_run (worker, ks_device_get_limits (ks_engine_get_device (engine)), &request,
                       result, NULL, &error);
  g_assert_no_error (error);
}

/* cooperative_groups.h: tiles of 32 summing with shfl_down, one atomicAdd
 * a tile. 1000 ones give 1000, and 0 … 999 give 499500, exactly: every
 * partial sum is an integer below 2^24. The total starts at 0, the
 * identity, and the items past n read nothing. */
static void
test_toolkit_cooperative_groups (void)
{
  const char *const ones[] = { "in=f32[1000]:const(1)", "total=f32[1]:zeros:out", "n=1000",
                               NULL };
  const char *const range[] = { "in=f32[1000]:range", "total=f32[1]:zeros:out", "n=1000", NULL };
  g_autoptr (KsKernelSource) source = NULL;
  KsArrayRunResult result = { 0 };

  if (!ks_test_have_toolkit_header ("cooperative_groups.h"))
    return;
  source = load_toolkit_kernel ("cg-tile-sum.cu", NULL);
  run_toolkit_kernel (source, ones, 256, &result);
  g_assert_cmpuint (result.launch.grid.x, ==, 4);
  g_assert_cmpfloat (*(const float *) result_array (&result, "total")->data, ==, 1000.0f);
  ks_array_run_result_clear (&result);
  run_toolkit_kernel (source, range, 256, &result);
  g_assert_cmpfloat (*(const float *) result_array (&result, "total")->data, ==, 499500.0f);
  ks_array_run_result_clear (&result);
}

/* curand_kernel.h: curand_init (seed, 0, 0) and curand () give XORWOW as
 * cuRAND defines it (seed halves salted and mixed into five words and a
 * Weyl sequence; computed here for subsequence 0, which skips nothing);
 * 1024 threads on their own subsequences (curand_init's skip-ahead through
 * cuRAND's precomputed tables) draw uniform values in (0, 1], nearly all
 * distinct, with a mean within 0.05 of 0.5 (its deviation is 0.009), and
 * estimate π within 0.05 (deviation 0.006). Outputs start poisoned outside
 * the results' range. */
static void
test_toolkit_curand (void)
{
  const char *const raw_texts[] = { "seed=81985529216486895", "out=u32[16]:zeros:out",
                                    "count=16", NULL };
  const char *const pi_texts[] = { "seed=1234", "first=f32[1024]:const(2):out",
                                   "inside=u32[1024]:const(4294967295):out", "samples=64",
                                   "n=1024", NULL };
  const guint64 seed = G_GUINT64_CONSTANT (81985529216486895);
  g_autoptr (KsKernelSource) raw = NULL;
  g_autoptr (KsKernelSource) pi = NULL;
  g_autoptr (GHashTable) distinct = g_hash_table_new (g_direct_hash, g_direct_equal);
  KsArrayRunResult result = { 0 };
  guint32 s0 = (guint32) seed ^ 0xaad26b49u, s1 = (guint32) (seed >> 32) ^ 0xf7dcefddu;
  guint32 t0 = 1099087573u * s0, t1 = 2591861531u * s1;
  guint32 v[5] = { 123456789u + t0, 362436069u ^ t0, 521288629u + t1, 88675123u ^ t1,
                   5783321u + t0 };
  guint32 d = 6615241u + t1 + t0;
  const guint32 *out;
  const float *first;
  const guint32 *inside;
  double sum = 0.0;
  guint64 hits = 0;

  if (!ks_test_have_toolkit_header ("curand_kernel.h"))
    return;
  raw = load_toolkit_kernel ("curand-uniform.cu", "xorwow_raw");
  run_toolkit_kernel (raw, raw_texts, 1, &result);
  out = (const guint32 *) result_array (&result, "out")->data;
  for (guint k = 0; k < 16; k++)
    {
      guint32 t = v[0] ^ (v[0] >> 2);

      memmove (v, v + 1, 4 * sizeof v[0]);
      v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
      d += 362437u;
      g_assert_cmpuint (out[k], ==, v[4] + d);
    }
  ks_array_run_result_clear (&result);

  pi = load_toolkit_kernel ("curand-uniform.cu", "monte_carlo_pi");
  run_toolkit_kernel (pi, pi_texts, 256, &result);
  first = (const float *) result_array (&result, "first")->data;
  inside = (const guint32 *) result_array (&result, "inside")->data;
  for (guint i = 0; i < 1024; i++)
    {
      guint32 bits;

      g_assert_cmpfloat (first[i], >, 0.0f);
      g_assert_cmpfloat (first[i], <=, 1.0f);
      g_assert_cmpuint (inside[i], <=, 64);
      memcpy (&bits, &first[i], sizeof bits);
      g_hash_table_add (distinct, GUINT_TO_POINTER (bits));
      sum += first[i];
      hits += inside[i];
    }
  g_assert_cmpuint (g_hash_table_size (distinct), >, 1020);
  g_assert_cmpfloat (fabs (sum / 1024 - 0.5), <, 0.05);
  g_assert_cmpfloat (fabs (4.0 * (double) hits / (1024.0 * 64) - G_PI), <, 0.05);
  ks_array_run_result_clear (&result);
}

/* A packed struct: Kernelscope lays it out with C's rules (8 bytes), the
 * compiler packs it (5): refused before anything runs, naming the struct. */
static void
test_typed_layout_refused (void)
{
  const char *const texts[] = { "p=S[4]:zeros", "q={c=1, x=2}", NULL };
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (GPtrArray) bindings = parse_bindings (texts);
  g_autoptr (GError) error = NULL;
  KsArrayRunRequest request;
  KsArrayRunResult result = { 0 };

  source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "packed.cu",
                                 "struct __attribute__((packed)) S { char c; int x; };\n"
                                 "__global__ void k (S *p, S q) { p[threadIdx.x] = q; }\n");
  g_assert_false (ks_kernel_source_has_errors (source));
  ks_array_run_request_init (&request, source);
  request.bindings = bindings;
  g_assert_false (ks_array_kernel_run (worker, ks_device_get_limits (ks_engine_get_device (engine)),
                                       &request, &result, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "The compiler lays out S in 5 bytes aligned to 1"));
  g_assert_null (result.run.arrays);
  ks_array_run_result_clear (&result);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
#if KS_TEST_USER_ON_CPU
  if (!ks_nvrtc_load (NULL))
    {
      g_print ("1..0 # SKIP NVRTC is not available\n");
      return KS_TEST_SKIPPED;
    }
  engine = ks_test_cpu_engine ();
  worker = ks_worker_new (-1);
  /* Equality, not speed: the emulator under a sanitizer takes longer than
   * the default limit of 2 s on the photo. */
  ks_worker_set_timeout_ms (worker, 600000);
#else
  if (!ks_test_require_cuda (KS_TEST_NEEDS_NVRTC))
    return KS_TEST_SKIPPED;
  engine = ks_test_cuda_engine ();
  worker = ks_worker_new (ks_device_get_ordinal (ks_engine_get_device (engine)));
#endif
  cpu = ks_test_cpu_engine ();

  g_test_add_func ("/ks/cuda/user/invert-equals-builtin", test_invert);
  g_test_add_func ("/ks/cuda/user/gray-equals-builtin", test_gray);
  g_test_add_func ("/ks/cuda/user/box-blur-equals-builtin", test_box_blur);
  g_test_add_func ("/ks/cuda/user/expression-coverage", test_expression_coverage);
  g_test_add_func ("/ks/cuda/user/launch-refused", test_launch_refused);
  g_test_add_func ("/ks/cuda/user/headers-and-include-dir", test_headers_and_include_dir);
  g_test_add_func ("/ks/cuda/user/typed-args", test_typed_args);
  g_test_add_func ("/ks/cuda/user/typed-layout-refused", test_typed_layout_refused);
  g_test_add_func ("/ks/cuda/user/toolkit-cooperative-groups", test_toolkit_cooperative_groups);
  g_test_add_func ("/ks/cuda/user/toolkit-curand", test_toolkit_curand);

  ret = g_test_run ();
  g_clear_object (&worker);
  g_clear_object (&engine);
  g_clear_object (&cpu);
  return ret;
}
