/* test-emu-math.c: CUDA's math library and fast intrinsics in the
 * emulator, against the C library, and the emulator's speed.
 *
 * NVRTC inlines CUDA's own implementations (libdevice) into the PTX, so the
 * emulator runs NVIDIA's algorithms with exact fma and IEEE arithmetic: a
 * result is what a GPU gives, except where an .approx instruction is used
 * (computed exactly here; see ks-emu-exec-float.c). The bounds are the CUDA
 * Programming Guide's maximum errors (sinf, cosf, expf 2 ulp; logf 1;
 * powf 4; sqrtf and division 0: IEEE, as nvcc's defaults make them; the
 * double functions 2 ulp, sqrt 0), plus one for the reference's own
 * rounding: the reference is the double result of the C library rounded to
 * float, the nearest float to the true value but in rare halfway cases. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-emu.h"

static const char math_source[] =
  "extern \"C\" __global__ void fmath(const float *x, float *o, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  float v = x[i], a = fabsf(v);\n"
  "  float *r = o + 10 * i;\n"
  "  r[0] = sinf(v);\n"
  "  r[1] = cosf(v);\n"
  "  r[2] = expf(v * 0.5f);\n"
  "  r[3] = logf(a);\n"
  "  r[4] = powf(a, 1.7f);\n"
  "  r[5] = sqrtf(a);\n"
  "  r[6] = v / (a + 3.f);\n"
  "  r[7] = __expf(v * 0.5f);\n"
  "  r[8] = __sinf(v);\n"
  "  r[9] = tanhf(v * 0.1f);\n"
  "}\n"
  "extern \"C\" __global__ void dmath(const double *x, double *o, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  double v = x[i];\n"
  "  double *r = o + 5 * i;\n"
  "  r[0] = sin(v);\n"
  "  r[1] = exp(v * 0.25);\n"
  "  r[2] = log(fabs(v));\n"
  "  r[3] = sqrt(fabs(v));\n"
  "  r[4] = v / (v * v + 1.0);\n"
  "}\n";

typedef struct
{
  const char *name;
  guint max_ulps;
} Bound;

static void
run_fmath (EmuProgram *p, const float *x, float *o, gint n)
{
  g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p->module, "fmath",
                                                     emu_dim3 ((n + 127) / 128, 1, 1),
                                                     emu_dim3 (128, 1, 1), 0);
  KsEmuResult result = { 0 };

  emu_param_buffer (launch, (gpointer) x, n * sizeof (float), "x");
  emu_param_buffer (launch, o, 10 * n * sizeof (float), "o");
  emu_param_int (launch, n);
  ks_emu_launch_set_time_limit (launch, 0);
  emu_run_clean (launch, &result);
  ks_emu_result_clear (&result);
}

static void
test_float_math (void)
{
  const char *const entries[] = { "fmath", "dmath", NULL };
  static const Bound bounds[] = {
    { "sinf", 2 + 1 }, { "cosf", 2 + 1 }, { "expf", 2 + 1 }, { "logf", 1 + 1 },
    { "powf", 4 + 1 }, { "sqrtf", 0 }, { "division", 0 },
  };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 4096;
  g_autofree float *x = emu_random_floats (n, -60, 60);
  g_autofree float *o = emu_poisoned (10 * n * sizeof (float));
  guint worst[G_N_ELEMENTS (bounds)] = { 0 };

  /* Small and large arguments too: the slow path of the trigonometric
   * range reduction (|x| > 105615) and subnormal-adjacent values. */
  x[0] = 1e-30f;
  x[1] = 123456.7f;
  x[2] = -3.0e7f;
  x[3] = 0.f;
  emu_compile (&p, math_source, entries);
  run_fmath (&p, x, o, n);
  for (gint i = 0; i < n; i++)
    {
      double v = x[i], a = fabs (v);
      float ref[7] = {
        (float) sin (v), (float) cos (v), (float) exp ((double) (x[i] * 0.5f)), (float) log (a),
        (float) pow (a, (double) 1.7f), sqrtf ((float) a), x[i] / (fabsf (x[i]) + 3.f),
      };

      for (guint k = 0; k < G_N_ELEMENTS (bounds); k++)
        {
          guint32 d = emu_ulps (ref[k], o[10 * i + k]);

          if (d > bounds[k].max_ulps)
            g_error ("%s(%.9g) = %.9g, %u ulp from %.9g (at most %u)", bounds[k].name, v,
                     o[10 * i + k], d, ref[k], bounds[k].max_ulps);
          worst[k] = MAX (worst[k], d);
        }
      /* __expf: 2 + floor(|1.173 x|) ulp; __sinf: 2^-21.41 absolute in [-π, π]. */
      g_assert_cmpuint (emu_ulps ((float) exp ((double) (x[i] * 0.5f)), o[10 * i + 7]), <=,
                        2 + (guint) floor (fabs (1.173 * x[i] * 0.5)));
      if (a <= G_PI)
        g_assert_cmpfloat (fabs (sin (v) - o[10 * i + 8]), <=, ldexp (1, -21) * 0.75);
      /* tanhf: 2 ulp. */
      g_assert_cmpuint (emu_ulps ((float) tanh ((double) (x[i] * 0.1f)), o[10 * i + 9]), <=, 3);
    }
  for (guint k = 0; k < G_N_ELEMENTS (bounds); k++)
    g_test_message ("%s: at most %u ulp from the C library", bounds[k].name, worst[k]);
}

static void
test_fast_math (void)
{
  const char *const entries[] = { "fmath", "dmath", NULL };
  const char *const options[] = { "--use_fast_math", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 2048;
  g_autofree float *x = emu_random_floats (n, -10, 10);
  g_autofree float *o = emu_poisoned (10 * n * sizeof (float));

  emu_compile_with (&p, math_source, entries, options);
  run_fmath (&p, x, o, n);
  /* The fast forms' bounds, loosely: sin and cos 2^-21.41 absolute in
   * [-π, π]; the rest within a relative 2^-16 of the C library. */
  for (gint i = 0; i < n; i++)
    {
      double v = x[i], a = fabs (v);
      double ref[6] = { sin (v), cos (v), exp (v * 0.5), log (a), pow (a, 1.7), sqrt (a) };

      for (guint k = 0; k < 6; k++)
        {
          double err = fabs (ref[k] - o[10 * i + k]);

          if (k < 2)
            {
              if (a <= G_PI)
                g_assert_cmpfloat (err, <=, ldexp (1, -21) * 0.75);
            }
          else if (err > fabs (ref[k]) * ldexp (1, -16) + 1e-30)
            g_error ("fast-math function %u of %.9g: %.9g for %.9g", k, v, o[10 * i + k], ref[k]);
        }
    }
}

static void
test_double_math (void)
{
  const char *const entries[] = { "fmath", "dmath", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 2000;
  g_autofree double *x = g_new (double, n);
  g_autofree double *o = emu_poisoned (5 * n * sizeof (double));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    x[i] = g_test_rand_double_range (-700, 700);
  emu_compile (&p, math_source, entries);
  launch = ks_emu_launch_new (p.module, "dmath", emu_dim3 ((n + 63) / 64, 1, 1),
                              emu_dim3 (64, 1, 1), 0);
  emu_param_buffer (launch, x, n * sizeof (double), "x");
  emu_param_buffer (launch, o, 5 * n * sizeof (double), "o");
  emu_param_int (launch, n);
  ks_emu_launch_set_time_limit (launch, 0);
  emu_run_clean (launch, &result);
  for (gint i = 0; i < n; i++)
    {
      double v = x[i];

      g_assert_cmpuint (emu_ulps64 (sin (v), o[5 * i]), <=, 2 + 1);
      g_assert_cmpuint (emu_ulps64 (exp (v * 0.25), o[5 * i + 1]), <=, 1 + 1);
      g_assert_cmpuint (emu_ulps64 (log (fabs (v)), o[5 * i + 2]), <=, 1 + 1);
      g_assert_true (sqrt (fabs (v)) == o[5 * i + 3]);
      /* NVVM contracts v * v + 1.0 into an fma. */
      g_assert_true (o[5 * i + 4] == v / fma (v, v, 1.0) || o[5 * i + 4] == v / (v * v + 1.0));
    }
  ks_emu_result_clear (&result);
}

/* ---- speed --------------------------------------------------------------------- */

static const char speed_source[] =
  "extern \"C\" __global__ void invert(uchar4 *img, int w, int h)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x >= w || y >= h) return;\n"
  "  uchar4 p = img[y * w + x];\n"
  "  img[y * w + x] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);\n"
  "}\n"
  "extern \"C\" __global__ void expr(const uchar4 *in, uchar4 *out, int w, int h, float t)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x >= w || y >= h) return;\n"
  "  uchar4 p = in[y * w + x];\n"
  "  float r = p.x / 255.f, g = p.y / 255.f, b = p.z / 255.f;\n"
  "  float v = 0.5f + 0.5f * sinf(10.f * r + t) * g - b * b;\n"
  "  float u = fminf(fmaxf(v, 0.f), 1.f) * 255.f;\n"
  "  out[y * w + x] = make_uchar4((unsigned char) u, (unsigned char) (255.f - u), p.z, 255);\n"
  "}\n";

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Runs a launch `runs` times; the median wall time, and the instructions. */
static double
median_ms (KsEmuLaunch *launch, guint runs, guint64 *lane_instructions)
{
  double ms[8];

  g_assert_cmpuint (runs, <=, G_N_ELEMENTS (ms));
  for (guint i = 0; i < runs; i++)
    {
      KsEmuResult result = { 0 };

      emu_run_clean (launch, &result);
      ms[i] = result.ms;
      *lane_instructions = result.lane_instructions;
      ks_emu_result_clear (&result);
    }
  qsort (ms, runs, sizeof ms[0], compare_doubles);
  return ms[runs / 2];
}

static void
test_speed_invert (void)
{
  const char *const entries[] = { "invert", "expr", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint w = 1920, h = 1080;
  g_autofree guint8 *img = g_malloc ((gsize) w * h * 4);
  g_autofree guint8 *ref = NULL;
  g_autoptr(KsEmuLaunch) launch = NULL;
  guint64 insns = 0;
  double ms;

  for (gsize i = 0; i < (gsize) w * h * 4; i++)
    img[i] = (guint8) g_test_rand_int ();
  ref = g_memdup2 (img, (gsize) w * h * 4);
  emu_compile (&p, speed_source, entries);
  launch = ks_emu_launch_new (p.module, "invert", emu_dim3 ((w + 15) / 16, (h + 15) / 16, 1),
                              emu_dim3 (16, 16, 1), 0);
  emu_param_buffer (launch, img, (gsize) w * h * 4, "img");
  emu_param_int (launch, w);
  emu_param_int (launch, h);
  ks_emu_launch_set_time_limit (launch, 0);
  /* Three runs: an odd number inverts the image once. */
  ms = median_ms (launch, 3, &insns);
  for (gsize i = 0; i < (gsize) w * h * 4; i++)
    if ((i & 3) != 3)
      ref[i] = 255 - ref[i];
  g_assert_cmpmem (img, (gsize) w * h * 4, ref, (gsize) w * h * 4);
  g_test_message ("invert, 1920x1080 RGBA (%u workers): %.1f ms, %.0f M lane-instructions/s "
                  "(%" G_GUINT64_FORMAT " lane-instructions)", g_get_num_processors (), ms,
                  insns / ms / 1000.0, insns);
}

static void
test_speed_expression (void)
{
  const char *const entries[] = { "invert", "expr", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint w = 256, h = 256;
  g_autofree guint8 *in = g_malloc (w * h * 4);
  g_autofree guint8 *out = emu_poisoned (w * h * 4);
  g_autoptr(KsEmuLaunch) launch = NULL;
  guint64 insns = 0;
  double ms;

  for (gint i = 0; i < w * h * 4; i++)
    in[i] = (guint8) g_test_rand_int ();
  emu_compile (&p, speed_source, entries);
  launch = ks_emu_launch_new (p.module, "expr", emu_dim3 (w / 16, h / 16, 1),
                              emu_dim3 (16, 16, 1), 0);
  emu_param_buffer (launch, in, w * h * 4, "in");
  emu_param_buffer (launch, out, w * h * 4, "out");
  emu_param_int (launch, w);
  emu_param_int (launch, h);
  emu_param_float (launch, 0.25f);
  ks_emu_launch_set_time_limit (launch, 0);
  ms = median_ms (launch, 5, &insns);
  for (gint i = 0; i < w * h; i++)
    {
      g_assert_cmpuint (out[4 * i + 2], ==, in[4 * i + 2]);
      g_assert_cmpuint (out[4 * i + 3], ==, 255);
      g_assert_cmpuint ((guint) out[4 * i] + out[4 * i + 1], >=, 254);
      g_assert_cmpuint ((guint) out[4 * i] + out[4 * i + 1], <=, 255);
    }
  g_test_message ("expression, 256x256 RGBA: %.1f ms, %.0f M lane-instructions/s "
                  "(%" G_GUINT64_FORMAT " lane-instructions)", ms, insns / ms / 1000.0, insns);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!emu_have_nvrtc ())
    return KS_TEST_SKIPPED;
  g_test_add_func ("/ks/emu/math/float", test_float_math);
  g_test_add_func ("/ks/emu/math/fast-math", test_fast_math);
  g_test_add_func ("/ks/emu/math/double", test_double_math);
  g_test_add_func ("/ks/emu/speed/invert-1080p", test_speed_invert);
  g_test_add_func ("/ks/emu/speed/expression-256", test_speed_expression);
  return g_test_run ();
}
