/* test-cuda-emu.c: the same kernels on the GPU and on the CPU engine (the
 * emulator of gpu/emu, ks-emu.h), on fresh random data, through the same
 * array-run service: integer work equal to the bit; float and double work
 * equal to the bit where the PTX has only IEEE-rounded instructions (fma,
 * add, mul, div.rn, sqrt.rn, the libdevice algorithms built from them), and
 * within stated ULPs where it has the approximate ones (ex2.approx,
 * lg2.approx, sin.approx, cos.approx, rcp.approx), whose GPU results the
 * PTX ISA only bounds. Shared memory, barriers, atomics and warp
 * intrinsics give the same results too. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array-run.h"
#include "test-emu.h"

static KsWorker *gpu_worker;
static KsWorker *cpu_worker;
static KsDevice *gpu_device;

/* Runs `source` with `bindings` on one worker; the out arrays by name. */
static KsArrayRunResult *
run_on (KsWorker *worker, const char *source, const char *const *bindings, guint block)
{
  g_autoptr (KsKernelSource) ks = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "both.cu", source);
  g_autoptr (GPtrArray) parsed = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (GError) error = NULL;
  KsArrayRunResult *result = g_new0 (KsArrayRunResult, 1);
  KsArrayRunRequest request;

  for (guint i = 0; bindings[i] != NULL; i++)
    {
      KsBinding *b = ks_binding_parse (bindings[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (parsed, b);
    }
  ks_array_run_request_init (&request, ks);
  request.bindings = parsed;
  request.launch.block = (KsDim3) { block, 1, 1 };
  request.launch.auto_grid = TRUE;
  if (!ks_array_kernel_run (worker, ks_device_get_limits (gpu_device), &request, result, NULL,
                            &error))
    g_error ("%s: %s", worker == cpu_worker ? "CPU engine" : "GPU", error->message);
  if (worker == cpu_worker)
    {
      g_assert_true (result->run.emulated);
      g_assert_cmpuint (result->run.n_findings, ==, 0);
    }
  return result;
}

static void
free_result (KsArrayRunResult *r)
{
  ks_array_run_result_clear (r);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsArrayRunResult, free_result)

static const KsArray *
out_array (const KsArrayRunResult *r, const char *name)
{
  for (guint i = 0; i < r->out_names->len; i++)
    if (g_str_equal (g_ptr_array_index (r->out_names, i), name))
      return g_ptr_array_index (r->run.arrays, i);
  g_error ("no output %s", name);
  return NULL;
}

/* Both engines' `name`: equal bytes (max_ulps 0), floats within max_ulps,
 * or with max_abs > 0 floats within max_abs of each other. */
static void
assert_close (const char *what, const char *source, const char *const *bindings, guint block,
              const char *name, guint64 max_ulps, double max_abs)
{
  g_autoptr (KsArrayRunResult) g = run_on (gpu_worker, source, bindings, block);
  g_autoptr (KsArrayRunResult) c = run_on (cpu_worker, source, bindings, block);
  const KsArray *ga = out_array (g, name), *ca = out_array (c, name);
  guint64 worst = 0;
  double worst_abs = 0;
  gsize differing = 0;

  g_assert_cmpuint (ga->length, ==, ca->length);
  g_assert_cmpint (ga->type, ==, ca->type);
  for (gsize i = 0; i < ga->length; i++)
    {
      guint64 d;

      if (ga->type == KS_ELEM_FLOAT32)
        d = emu_ulps (((const float *) ga->data)[i], ((const float *) ca->data)[i]);
      else if (ga->type == KS_ELEM_FLOAT64)
        d = emu_ulps64 (((const double *) ga->data)[i], ((const double *) ca->data)[i]);
      else
        d = memcmp ((const guint8 *) ga->data + i * ks_elem_type_size (ga->type),
                    (const guint8 *) ca->data + i * ks_elem_type_size (ca->type),
                    ks_elem_type_size (ga->type)) != 0;
      differing += d > 0;
      worst = MAX (worst, d);
      if (max_abs > 0)
        {
          double e = fabs (ks_array_get_double (ga, i) - ks_array_get_double (ca, i));

          worst_abs = MAX (worst_abs, e);
          if (e > max_abs)
            g_error ("%s: %s[%" G_GSIZE_FORMAT "] GPU %.9g, CPU engine %.9g: %g apart, at most "
                     "%g allowed", what, name, i, ks_array_get_double (ga, i),
                     ks_array_get_double (ca, i), e, max_abs);
        }
      else if (d > max_ulps)
        g_error ("%s: %s[%" G_GSIZE_FORMAT "] GPU %g, CPU engine %g: %" G_GUINT64_FORMAT
                 " apart, at most %" G_GUINT64_FORMAT " allowed", what, name, i,
                 ks_array_get_double (ga, i), ks_array_get_double (ca, i), d, max_ulps);
    }
  if (max_abs > 0)
    g_test_message ("%s: %" G_GSIZE_FORMAT " elements, %" G_GSIZE_FORMAT " not bit-equal, at "
                    "most %.3g apart; kernel %.3f ms on the GPU, %.1f ms on the CPU engine",
                    what, ga->length, differing, worst_abs, g->run.kernel_ms, c->run.kernel_ms);
  else
    g_test_message ("%s: %" G_GSIZE_FORMAT " elements, %" G_GSIZE_FORMAT " not bit-equal, worst "
                    "%" G_GUINT64_FORMAT "%s; kernel %.3f ms on the GPU, %.1f ms on the CPU "
                    "engine", what, ga->length, differing, worst,
                    ga->type == KS_ELEM_FLOAT32 || ga->type == KS_ELEM_FLOAT64 ? " ULP" : "",
                    g->run.kernel_ms, c->run.kernel_ms);
}

static void
assert_same (const char *what, const char *source, const char *const *bindings, guint block,
             const char *name, guint64 max_ulps)
{
  assert_close (what, source, bindings, block, name, max_ulps, 0);
}

/* A fresh seed per run, printed, so that a failure can be repeated. */
static char *
random_binding (const char *name, const char *type, guint n)
{
  guint32 seed = g_test_rand_int_range (1, G_MAXINT32);

  return g_strdup_printf ("%s=%s[%u]:random(%u)", name, type, n, seed);
}

static void
test_integer (void)
{
  static const char source[] =
    "__global__ void mix (unsigned *out, const unsigned *x, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  unsigned v = x[i] * 2654435761u;\n"
    "  unsigned r = (v ^ (v >> 13)) + __popc (v) * 7u + __clz (v | 1u) + __brev (v);\n"
    "  r += (unsigned) (((long long) (int) v * 31) >> 9) + __byte_perm (v, r, 0x5140);\n"
    "  r ^= __umulhi (v, 0x9e3779b9u) + (v % 97u) + (unsigned) ((int) v / -5);\n"
    "  out[i] = r + __ffs (v) + min (v, 12345u) - max ((int) v, -7);\n"
    "}\n";
  g_autofree char *x = random_binding ("x", "u32", 100000);
  const char *bindings[] = { "out=u32[100000]:zeros:out", x, "n=100000", NULL };

  assert_same ("integer and bit operations", source, bindings, 256, "out", 0);
}

static void
test_float_ieee (void)
{
  static const char source[] =
    "__global__ void ieee (float *out, const float *x, const float *y, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float a = x[i] * 200.0f - 100.0f, b = y[i] + 0.25f;\n"
    "  out[i] = fmaf (a, b, 1.5f) + a / b - sqrtf (b) + (float) (int) a + floorf (a * 0.3f)\n"
    "           + fminf (a, b) * rintf (b * 7.0f) + (float) (double) b * 3.0f;\n"
    "}\n";
  g_autofree char *x = random_binding ("x", "f32", 100000);
  g_autofree char *y = random_binding ("y", "f32", 100000);
  const char *bindings[] = { "out=f32[100000]:zeros:out", x, y, "n=100000", NULL };

  /* Only IEEE-rounded operations: the same bits. */
  assert_same ("float: fma, division, sqrt, conversions", source, bindings, 256, "out", 0);
}

static void
test_float_library (void)
{
  static const char source[] =
    "__global__ void lib (float *out, const float *x, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float a = x[i] * 20.0f - 10.0f;\n"
    "  out[i] = sinf (a) + cosf (a) * 0.5f + expf (a * 0.3f) + logf (fabsf (a) + 1.0f)\n"
    "           + powf (fabsf (a) + 0.5f, 1.7f) + tanhf (a) + atan2f (a, 3.0f) + erff (a);\n"
    "}\n";
  g_autofree char *x = random_binding ("x", "f32", 100000);
  const char *bindings[] = { "out=f32[100000]:zeros:out", x, "n=100000", NULL };

  /* libdevice's algorithms, some of them seeded by ex2.approx and
   * lg2.approx (within 2 ULP of the exact result each by the PTX ISA), so
   * a function's result may differ in its last bits. The largest terms are
   * powf's (up to 10.5^1.7 ≈ 54, an ulp of 2^-18) and expf's (up to e^3 ≈
   * 20, 2^-19): a few ulp of them is below 3e-5; 1e-4 is allowed. ULPs of
   * the sum mean nothing where it comes near 0. */
  assert_close ("float: the math library", source, bindings, 256, "out", 0, 1e-4);
}

static void
test_fast_math (void)
{
  static const char source[] =
    "__global__ void fast (float *out, const float *x, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float a = x[i] * 6.0f - 3.0f;\n"
    "  out[i] = __sinf (a) + __cosf (a) + __expf (a) + __logf (a + 4.0f)\n"
    "           + __fdividef (a, a + 5.0f) + rsqrtf (a + 4.0f);\n"
    "}\n";
  g_autofree char *x = random_binding ("x", "f32", 100000);
  const char *bindings[] = { "out=f32[100000]:zeros:out", x, "n=100000", NULL };

  /* The approximate instructions themselves, whose GPU results the PTX ISA
   * bounds absolutely or relatively, not to the bit (the emulator computes
   * them exactly and rounds once): sin.approx and cos.approx 2^-20.5
   * absolute each on [-π, π], __expf 2 ulp of up to e^3 ≈ 20 (2^-18.7),
   * __logf and rsqrtf below 2^-21, and the rounding of the five additions
   * of values up to about 25 (2^-19 each) — below 1.2e-5 together; 2e-5 is
   * allowed. ULPs mean nothing here: the sum comes near 0 for some inputs. */
  assert_close ("float: the fast intrinsics", source, bindings, 256, "out", 0, 2e-5);
}

static void
test_double (void)
{
  static const char source[] =
    "__global__ void dbl (double *out, const double *x, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  double a = x[i] * 10.0 - 5.0;\n"
    "  out[i] = fma (a, a, 0.5) / (a + 7.0) + sqrt (fabs (a)) + exp (a * 0.1) + log1p (fabs (a))\n"
    "           + sin (a);\n"
    "}\n";
  g_autofree char *x = random_binding ("x", "f64", 50000);
  const char *bindings[] = { "out=f64[50000]:zeros:out", x, "n=50000", NULL };

  /* Double precision has no approximate instructions in these: the bits. */
  assert_same ("double: fma, division, the math library", source, bindings, 128, "out", 0);
}

static void
test_shared_atomics_warps (void)
{
  static const char source[] =
    "__global__ void blocky (int *hist, float *sums, int *votes, const int *v, const float *f,\n"
    "                        int n)\n"
    "{\n"
    "  __shared__ float part[256];\n"
    "  __shared__ int local[64];\n"
    "  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
    "  if (t < 64) local[t] = 0;\n"
    "  part[t] = i < n ? f[i] : 0.0f;\n"
    "  __syncthreads ();\n"
    "  if (i < n) atomicAdd (&local[v[i] & 63], 1);\n"
    "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "    if (t < k) part[t] += part[t + k];\n"
    "    __syncthreads ();\n"
    "  }\n"
    "  if (t == 0) sums[blockIdx.x] = part[0];\n"
    "  if (t < 64) atomicAdd (&hist[t], local[t]);\n"
    "  int x = i < n ? v[i] : 0, s = x;\n"
    "  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync (0xffffffffu, s, o);\n"
    "  unsigned b = __ballot_sync (0xffffffffu, x & 1);\n"
    "  int m = __reduce_max_sync (0xffffffffu, x & 1023);\n"
    "  int any = __any_sync (0xffffffffu, x > 90);\n"
    "  if ((t & 31) == 0 && i < n) {\n"
    "    votes[3 * (i / 32)] = s;\n"
    "    votes[3 * (i / 32) + 1] = (int) b;\n"
    "    votes[3 * (i / 32) + 2] = m + any * 1000;\n"
    "  }\n"
    "}\n";
  g_autofree char *v = random_binding ("v", "i32", 65536);
  g_autofree char *f = random_binding ("f", "f32", 65536);
  const char *bindings[] = { "hist=i32[64]:zeros:out", "sums=f32[256]:zeros:out",
                             "votes=i32[6144]:zeros:out", v, f, "n=65536", NULL };

  assert_same ("shared-memory atomics into a global histogram", source, bindings, 256, "hist", 0);
  assert_same ("a block's tree reduction in shared memory", source, bindings, 256, "sums", 0);
  assert_same ("warp shuffles, ballots, reductions and votes", source, bindings, 256, "votes", 0);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_test_require_cuda (KS_TEST_NEEDS_NVRTC))
    return KS_TEST_SKIPPED;
  gpu_device = ks_device_get_cuda (0, &error);
  g_assert_no_error (error);
  gpu_worker = ks_worker_new (0);
  cpu_worker = ks_worker_new (-1);

  g_test_add_func ("/ks/cuda/emu/integer", test_integer);
  g_test_add_func ("/ks/cuda/emu/float-ieee", test_float_ieee);
  g_test_add_func ("/ks/cuda/emu/float-library", test_float_library);
  g_test_add_func ("/ks/cuda/emu/fast-math", test_fast_math);
  g_test_add_func ("/ks/cuda/emu/double", test_double);
  g_test_add_func ("/ks/cuda/emu/shared-atomics-warps", test_shared_atomics_warps);

  ret = g_test_run ();
  g_clear_object (&gpu_worker);
  g_clear_object (&cpu_worker);
  g_clear_object (&gpu_device);
  return ret;
}
