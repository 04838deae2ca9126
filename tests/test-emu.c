/* test-emu.c: CUDA kernels compiled by NVRTC and run in the CPU emulator
 * (gpu/emu/ks-emu.h) on fresh random inputs, held to independent C
 * references: bit-exact where CUDA's arithmetic is IEEE's, within CUDA's
 * documented error for the math library and the fast intrinsics. Outputs
 * are poisoned with 0xCD bytes before a run, so that unwritten elements
 * show. Ends with a benchmark-ish print of the emulator's speed.
 *
 * NVRTC needs no GPU; where it cannot be loaded the program exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "test-emu.h"

/* ---- arithmetic, bit-exact -------------------------------------------------- */

static const char vadd_source[] =
  "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    c[i] = a[i] + b[i];\n"
  "}\n"
  "extern \"C\" __global__ void saxpy(float k, const float *x, float *y, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    y[i] = k * x[i] + y[i];\n"
  "}\n";

static void
test_vector_add (void)
{
  const char *const entries[] = { "vadd", "saxpy", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 10007, tail = 64;
  g_autofree float *a = emu_random_floats (n, -1e4, 1e4);
  g_autofree float *b = emu_random_floats (n, -1e4, 1e4);
  g_autofree float *c = emu_poisoned ((n + tail) * sizeof (float));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  emu_compile (&p, vadd_source, entries);
  g_assert_cmpuint (ks_emu_module_n_entries (p.module), ==, 2);
  launch = ks_emu_launch_new (p.module, "vadd", emu_dim3 ((n + 255) / 256, 1, 1),
                              emu_dim3 (256, 1, 1), 0);
  emu_param_buffer (launch, a, n * sizeof (float), "a");
  emu_param_buffer (launch, b, n * sizeof (float), "b");
  emu_param_buffer (launch, c, (n + tail) * sizeof (float), "c");
  emu_param_int (launch, n);
  emu_run_clean (launch, &result);
  for (gint i = 0; i < n; i++)
    emu_assert_same_float (a[i] + b[i], c[i], (gsize) i);
  for (gint i = n; i < n + tail; i++)
    g_assert_cmphex (emu_bits (c[i]), ==, 0xcdcdcdcd);
  g_assert_cmpuint (result.lane_instructions, >, (guint64) n * 10);
  ks_emu_result_clear (&result);
}

static void
test_saxpy (void)
{
  const char *const entries[] = { "vadd", "saxpy", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 5000;
  g_autofree float *x = emu_random_floats (n, -100, 100);
  g_autofree float *y = emu_random_floats (n, -100, 100);
  g_autofree float *y0 = g_memdup2 (y, n * sizeof (float));
  float k = (float) g_test_rand_double_range (-3, 3);
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  emu_compile (&p, vadd_source, entries);
  launch = ks_emu_launch_new (p.module, "saxpy", emu_dim3 ((n + 127) / 128, 1, 1),
                              emu_dim3 (128, 1, 1), 0);
  emu_param_float (launch, k);
  emu_param_buffer (launch, x, n * sizeof (float), "x");
  emu_param_buffer (launch, y, n * sizeof (float), "y");
  emu_param_int (launch, n);
  emu_run_clean (launch, &result);
  /* NVVM contracts k * x + y into one fma: rounded once. */
  for (gint i = 0; i < n; i++)
    emu_assert_same_float (fmaf (k, x[i], y0[i]), y[i], (gsize) i);
  ks_emu_result_clear (&result);
}

static const char ints_source[] =
  "extern \"C\" __global__ void ints(const long long *a, const long long *b,\n"
  "                                  const unsigned *u, const int *s, long long *out, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  long long x = a[i], y = b[i];\n"
  "  unsigned p = u[i], q = u[(i + 1) % n];\n"
  "  int si = s[i], sj = s[(i + 1) % n];\n"
  "  long long *o = out + 16 * i;\n"
  "  o[0] = x * y;\n"
  "  o[1] = __mul64hi(x, y);\n"
  "  o[2] = (long long) __umul64hi((unsigned long long) x, (unsigned long long) y);\n"
  "  o[3] = __umulhi(p, q);\n"
  "  o[4] = __mulhi(si, sj);\n"
  "  o[5] = x / y;\n"
  "  o[6] = x % y;\n"
  "  o[7] = si / sj;\n"
  "  o[8] = si % sj;\n"
  "  o[9] = (x >> (p & 63)) ^ (long long) ((unsigned long long) x >> (q & 63))\n"
  "         ^ (long long) ((unsigned long long) x << (p & 31));\n"
  "  o[10] = __clz(si) + 64 * __popc(p) + 4096 * __clzll(x) + 262144LL * __popcll(y);\n"
  "  o[11] = __brev(p) | ((long long) __ffs(si) << 32) | ((long long) __ffsll(y) << 40);\n"
  "  o[12] = min(si, sj) + (long long) max(p, q) * 3 + llmin(x, y);\n"
  "  o[13] = __byte_perm(p, q, 0x5140 + (i & 0x2222))\n"
  "          + ((long long) __funnelshift_l(p, q, si & 31) << 32);\n"
  "  o[14] = (long long) (si * sj) + (long long) (p * q) * 7 + (long long) abs(si);\n"
  "  o[15] = __sad(si, sj, p) + ((long long) __usad(p, q, 1u) << 33)\n"
  "          + (long long) (short) si * (unsigned char) q;\n"
  "}\n";

static guint32
ref_brev (guint32 v)
{
  guint32 r = 0;

  for (guint i = 0; i < 32; i++)
    r |= ((v >> i) & 1) << (31 - i);
  return r;
}

static guint32
ref_byte_perm (guint32 x, guint32 y, guint32 s)
{
  guint64 bytes = ((guint64) y << 32) | x;
  guint32 r = 0;

  for (guint n = 0; n < 4; n++)
    r |= (guint32) ((bytes >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return r;
}

static void
ref_ints (const gint64 *a, const gint64 *b, const guint32 *u, const gint32 *s, gint i, gint n,
          gint64 *o)
{
  gint64 x = a[i], y = b[i];
  guint32 p = u[i], q = u[(i + 1) % n];
  gint32 si = s[i], sj = s[(i + 1) % n];
  guint32 sad;

  o[0] = (gint64) ((guint64) x * (guint64) y);
  o[1] = (gint64) (((__int128) x * y) >> 64);
  o[2] = (gint64) (guint64) (((unsigned __int128) (guint64) x * (guint64) y) >> 64);
  o[3] = (guint32) (((guint64) p * q) >> 32);
  o[4] = (gint32) (((gint64) si * sj) >> 32);
  o[5] = x / y;
  o[6] = x % y;
  o[7] = si / sj;
  o[8] = si % sj;
  o[9] = (x >> (p & 63)) ^ (gint64) ((guint64) x >> (q & 63)) ^ (gint64) ((guint64) x << (p & 31));
  o[10] = (si == 0 ? 32 : __builtin_clz ((guint32) si)) + 64 * __builtin_popcount (p)
          + 4096 * (x == 0 ? 64 : __builtin_clzll ((guint64) x))
          + 262144LL * __builtin_popcountll ((guint64) y);
  o[11] = (gint64) ((guint64) ref_brev (p) | ((guint64) __builtin_ffs (si) << 32)
                    | ((guint64) __builtin_ffsll (y) << 40));
  o[12] = MIN (si, sj) + (gint64) MAX (p, q) * 3 + MIN (x, y);
  o[13] = (gint64) ref_byte_perm (p, q, 0x5140 + ((guint32) i & 0x2222))
          + (gint64) ((guint64) (guint32) ((((guint64) q << 32) | p) << (si & 31) >> 32) << 32);
  o[14] = (gint64) (gint32) ((guint32) si * (guint32) sj) + (gint64) (guint32) (p * q) * 7
          + (gint64) ABS (si);
  sad = (si > sj ? (guint32) si - (guint32) sj : (guint32) sj - (guint32) si) + p;
  o[15] = (gint64) sad + (gint64) ((guint64) ((p > q ? p - q : q - p) + 1u) << 33)
          + (gint64) (gint16) si * (guint8) q;
}

static gint64
random_i64 (void)
{
  guint64 v = ((guint64) g_test_rand_int () << 32) ^ (guint32) g_test_rand_int ();

  /* Small values too: they reach the 32-bit fast paths of the division. */
  return g_test_rand_bit () ? (gint64) v : (gint64) (v >> g_test_rand_int_range (20, 63));
}

static void
test_integer (void)
{
  const char *const entries[] = { "ints", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 777;
  g_autofree gint64 *a = g_new (gint64, n);
  g_autofree gint64 *b = g_new (gint64, n);
  g_autofree guint32 *u = g_new (guint32, n);
  g_autofree gint32 *s = g_new (gint32, n);
  g_autofree gint64 *out = emu_poisoned (16 * n * sizeof (gint64));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    {
      a[i] = random_i64 ();
      do
        b[i] = random_i64 ();
      while (b[i] == 0 || b[i] == -1);
      u[i] = (guint32) g_test_rand_int ();
      do
        s[i] = g_test_rand_int_range (-2000000, 2000000);
      while (s[i] == 0);
    }
  emu_compile (&p, ints_source, entries);
  launch = ks_emu_launch_new (p.module, "ints", emu_dim3 ((n + 63) / 64, 1, 1),
                              emu_dim3 (64, 1, 1), 0);
  emu_param_buffer (launch, a, n * sizeof (gint64), "a");
  emu_param_buffer (launch, b, n * sizeof (gint64), "b");
  emu_param_buffer (launch, u, n * sizeof (guint32), "u");
  emu_param_buffer (launch, s, n * sizeof (gint32), "s");
  emu_param_buffer (launch, out, 16 * n * sizeof (gint64), "out");
  emu_param_int (launch, n);
  emu_run_clean (launch, &result);
  for (gint i = 0; i < n; i++)
    {
      gint64 ref[16];

      ref_ints (a, b, u, s, i, n, ref);
      for (guint k = 0; k < 16; k++)
        if (ref[k] != out[16 * i + k])
          g_error ("element %d, o[%u]: %" G_GINT64_FORMAT " expected, %" G_GINT64_FORMAT
                   " computed (x=%" G_GINT64_FORMAT " y=%" G_GINT64_FORMAT " p=%u si=%d)",
                   i, k, ref[k], out[16 * i + k], a[i], b[i], u[i], s[i]);
    }
  ks_emu_result_clear (&result);
}

/* ---- the shape of a launch ---------------------------------------------------- */

static const char shape_source[] =
  "extern \"C\" __global__ void invert(unsigned char *img, int w, int h, int pitch)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x >= w || y >= h) return;\n"
  "  uchar4 *px = (uchar4 *) (img + y * pitch) + x;\n"
  "  uchar4 v = *px;\n"
  "  *px = make_uchar4(255 - v.x, 255 - v.y, 255 - v.z, v.w);\n"
  "}\n"
  "extern \"C\" __global__ void coords(int *out, int w, int h)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < w && y < h)\n"
  "    out[y * w + x] = (blockIdx.y << 24) | (blockIdx.x << 16) | (threadIdx.y << 8)\n"
  "                     | threadIdx.x;\n"
  "}\n"
  "extern \"C\" __global__ void stride(float *o, int n)\n"
  "{\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
  "    o[i] = o[i] * 2.f + 1.f;\n"
  "}\n";

static void
test_image_2d (void)
{
  const char *const entries[] = { "invert", "coords", "stride", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint w = 123, h = 77, pitch = 512;
  g_autofree guint8 *img = g_malloc (pitch * h);
  g_autofree guint8 *ref = NULL;
  g_autofree gint32 *co = emu_poisoned (w * h * sizeof (gint32));
  g_autoptr(KsEmuLaunch) launch = NULL;
  g_autoptr(KsEmuLaunch) launch2 = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < pitch * h; i++)
    img[i] = (guint8) g_test_rand_int ();
  ref = g_memdup2 (img, pitch * h);
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      for (gint c = 0; c < 3; c++)
        ref[y * pitch + 4 * x + c] = 255 - ref[y * pitch + 4 * x + c];
  emu_compile (&p, shape_source, entries);
  launch = ks_emu_launch_new (p.module, "invert", emu_dim3 ((w + 15) / 16, (h + 7) / 8, 1),
                              emu_dim3 (16, 8, 1), 0);
  emu_param_buffer (launch, img, pitch * h, "img");
  emu_param_int (launch, w);
  emu_param_int (launch, h);
  emu_param_int (launch, pitch);
  emu_run_clean (launch, &result);
  g_assert_cmpmem (img, pitch * h, ref, pitch * h);
  ks_emu_result_clear (&result);

  launch2 = ks_emu_launch_new (p.module, "coords", emu_dim3 ((w + 31) / 32, (h + 3) / 4, 1),
                               emu_dim3 (32, 4, 1), 0);
  emu_param_buffer (launch2, co, w * h * sizeof (gint32), "out");
  emu_param_int (launch2, w);
  emu_param_int (launch2, h);
  ks_emu_launch_set_threads (launch2, 2);
  emu_run_clean (launch2, &result);
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      g_assert_cmphex (co[y * w + x], ==, ((y / 4) << 24) | ((x / 32) << 16) | ((y % 4) << 8)
                                          | (x % 32));
  ks_emu_result_clear (&result);
}

static void
test_grid_stride (void)
{
  const char *const entries[] = { "invert", "coords", "stride", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 100003;
  g_autofree float *o = emu_random_floats (n, -10, 10);
  g_autofree float *o0 = g_memdup2 (o, n * sizeof (float));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  emu_compile (&p, shape_source, entries);
  launch = ks_emu_launch_new (p.module, "stride", emu_dim3 (7, 1, 1), emu_dim3 (96, 1, 1), 0);
  emu_param_buffer (launch, o, n * sizeof (float), "o");
  emu_param_int (launch, n);
  emu_run_clean (launch, &result);
  for (gint i = 0; i < n; i++)
    emu_assert_same_float (fmaf (o0[i], 2.f, 1.f), o[i], (gsize) i);
  ks_emu_result_clear (&result);
}

/* ---- templates and device functions ---------------------------------------- */

static const char template_source[] =
  "template <typename T>\n"
  "__global__ void scale(T *o, const T *a, T k, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) o[i] = a[i] * k;\n"
  "}\n";

static void
test_template (void)
{
  const char *const entries[] = { "scale<float>", "scale<int>", "scale<double>", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 300;
  g_autofree float *af = emu_random_floats (n, -5, 5);
  g_autofree float *of = emu_poisoned (n * sizeof (float));
  g_autofree double *ad = g_new (double, n);
  g_autofree double *od = emu_poisoned (n * sizeof (double));
  g_autofree gint32 *ai = g_new (gint32, n);
  g_autofree gint32 *oi = emu_poisoned (n * sizeof (gint32));
  float kf = 1.5f;
  double kd = -0.37;
  gint32 ki = -7;
  gsize sizes[4], aligns[4];
  guint n_params;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    {
      ad[i] = g_test_rand_double_range (-1e3, 1e3);
      ai[i] = g_test_rand_int_range (-100000, 100000);
    }
  emu_compile (&p, template_source, entries);
  g_assert_cmpuint (ks_emu_module_n_entries (p.module), ==, 3);
  g_assert_true (ks_emu_module_entry_params (p.module, emu_entry (&p, 2), &n_params, sizes,
                                             aligns, 4));
  g_assert_cmpuint (n_params, ==, 4);
  g_assert_cmpuint (sizes[2], ==, 8);
  g_assert_cmpuint (sizes[3], ==, 4);
  g_assert_false (ks_emu_module_entry_params (p.module, "scale", &n_params, NULL, NULL, 0));
  for (guint t = 0; t < 3; t++)
    {
      g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p.module, emu_entry (&p, t),
                                                         emu_dim3 (3, 1, 1),
                                                         emu_dim3 (128, 1, 1), 0);
      gsize size = t == 2 ? 8 : 4;

      emu_param_buffer (launch, t == 0 ? (gpointer) of : t == 1 ? (gpointer) oi : (gpointer) od,
                    n * size, "o");
      emu_param_buffer (launch, t == 0 ? (gpointer) af : t == 1 ? (gpointer) ai : (gpointer) ad,
                    n * size, "a");
      ks_emu_launch_add_param (launch, t == 0 ? (gconstpointer) &kf : t == 1
                               ? (gconstpointer) &ki : (gconstpointer) &kd, size);
      emu_param_int (launch, n);
      emu_run_clean (launch, &result);
      ks_emu_result_clear (&result);
    }
  for (gint i = 0; i < n; i++)
    {
      emu_assert_same_float (af[i] * kf, of[i], (gsize) i);
      g_assert_cmpint (oi[i], ==, ai[i] * ki);
      g_assert_true (od[i] == ad[i] * kd);
    }
}

static const char function_source[] =
  "__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
  "__device__ __noinline__ float2 poly(float2 v, int k)\n"
  "{\n"
  "  return make_float2(v.x * k + v.y, v.y - v.x * 0.5f);\n"
  "}\n"
  "extern \"C\" __global__ void funcs(int *o, float2 *f, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  o[i] = fib(i % 13);\n"
  "  f[i] = poly(f[i], i & 7);\n"
  "}\n";

static gint
ref_fib (gint n)
{
  return n < 2 ? n : ref_fib (n - 1) + ref_fib (n - 2);
}

static void
test_device_function (void)
{
  const char *const entries[] = { "funcs", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 100;
  g_autofree gint32 *o = emu_poisoned (n * sizeof (gint32));
  g_autofree float *f = emu_random_floats (2 * n, -10, 10);
  g_autofree float *f0 = g_memdup2 (f, 2 * n * sizeof (float));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  emu_compile (&p, function_source, entries);
  launch = ks_emu_launch_new (p.module, "funcs", emu_dim3 (2, 1, 1), emu_dim3 (64, 1, 1), 0);
  emu_param_buffer (launch, o, n * sizeof (gint32), "o");
  emu_param_buffer (launch, f, 2 * n * sizeof (float), "f");
  emu_param_int (launch, n);
  emu_run_clean (launch, &result);
  for (gint i = 0; i < n; i++)
    {
      g_assert_cmpint (o[i], ==, ref_fib (i % 13));
      emu_assert_same_float (fmaf (f0[2 * i], (float) (i & 7), f0[2 * i + 1]), f[2 * i], (gsize) i);
      emu_assert_same_float (fmaf (-f0[2 * i], 0.5f, f0[2 * i + 1]), f[2 * i + 1], (gsize) i);
    }
  ks_emu_result_clear (&result);
}

/* ---- half precision, through PTX's f16 instructions ----------------------- */

static const char half_source[] =
  "__device__ unsigned short f2h(float f)\n"
  "{ unsigned short h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
  "__device__ float h2f(unsigned short h)\n"
  "{ float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
  "extern \"C\" __global__ void halfs(const float *a, const float *b, unsigned short *o,\n"
  "                                   float *back, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  unsigned short x = f2h(a[i]), y = f2h(b[i]), r, s, t;\n"
  "  unsigned pair, sq;\n"
  "  asm(\"add.f16 %0, %1, %2;\" : \"=h\"(r) : \"h\"(x), \"h\"(y));\n"
  "  asm(\"mul.f16 %0, %1, %2;\" : \"=h\"(s) : \"h\"(x), \"h\"(y));\n"
  "  asm(\"fma.rn.f16 %0, %1, %2, %1;\" : \"=h\"(t) : \"h\"(x), \"h\"(y));\n"
  "  asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(pair) : \"f\"(b[i]), \"f\"(a[i]));\n"
  "  asm(\"mul.f16x2 %0, %1, %1;\" : \"=r\"(sq) : \"r\"(pair));\n"
  "  o[5 * i + 0] = r;\n"
  "  o[5 * i + 1] = s;\n"
  "  o[5 * i + 2] = t;\n"
  "  o[5 * i + 3] = sq & 0xffff;\n"
  "  o[5 * i + 4] = sq >> 16;\n"
  "  back[i] = h2f(x);\n"
  "}\n";

static guint16
half_bits (_Float16 h)
{
  guint16 u;

  memcpy (&u, &h, sizeof u);
  return u;
}

static void
test_half (void)
{
  const char *const entries[] = { "halfs", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 1000;
  g_autofree float *a = emu_random_floats (n, -100, 100);
  g_autofree float *b = emu_random_floats (n, -100, 100);
  g_autofree guint16 *o = emu_poisoned (5 * n * sizeof (guint16));
  g_autofree float *back = emu_poisoned (n * sizeof (float));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  a[0] = 1e-6f;    /* a subnormal half */
  b[0] = 70000.f;  /* past the largest half: infinity */
  emu_compile (&p, half_source, entries);
  launch = ks_emu_launch_new (p.module, "halfs", emu_dim3 ((n + 127) / 128, 1, 1),
                              emu_dim3 (128, 1, 1), 0);
  emu_param_buffer (launch, a, n * sizeof (float), "a");
  emu_param_buffer (launch, b, n * sizeof (float), "b");
  emu_param_buffer (launch, o, 5 * n * sizeof (guint16), "o");
  emu_param_buffer (launch, back, n * sizeof (float), "back");
  emu_param_int (launch, n);
  emu_run_clean (launch, &result);
  /* The reference: GCC's _Float16, converted from the exact double result
   * (sums and products of halves are exact in double): rounded once. */
  for (gint i = 0; i < n; i++)
    {
      _Float16 x = (_Float16) a[i], y = (_Float16) b[i];

      g_assert_cmphex (o[5 * i], ==, half_bits ((_Float16) ((double) x + (double) y)));
      g_assert_cmphex (o[5 * i + 1], ==, half_bits ((_Float16) ((double) x * (double) y)));
      /* fma: exact in __float128 (113 bits hold x * y + x), then rounded once. */
      g_assert_cmphex (o[5 * i + 2], ==,
                       half_bits ((_Float16) ((__float128) x * (__float128) y + x)));
      g_assert_cmphex (o[5 * i + 3], ==, half_bits ((_Float16) ((double) x * (double) x)));
      g_assert_cmphex (o[5 * i + 4], ==, half_bits ((_Float16) ((double) y * (double) y)));
      emu_assert_same_float ((float) x, back[i], (gsize) i);
    }
  ks_emu_result_clear (&result);
}

/* Parameters of any size and alignment read with vector loads, as a kernel
 * taking float4 and double2 by value may be lowered: ld.param.v4.f32 and
 * ld.param.v2.f64 from 16-byte parameters after a 12-byte one (float3),
 * whose padding the launch's layout supplies. Hand-written, since NVRTC
 * chooses its loads itself. */
static void
test_vector_params (void)
{
  static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry vparams (.param .u64 out, .param .align 4 .b8 s[12],\n"
    "                         .param .align 16 .b8 f[16], .param .align 16 .b8 d[16])\n"
    "{\n"
    "  .reg .b64 %rd<2>;\n  .reg .f32 %f<8>;\n  .reg .f64 %fd<3>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.v4.f32 {%f1, %f2, %f3, %f4}, [f];\n"
    "  ld.param.v2.f64 {%fd1, %fd2}, [d];\n"
    "  ld.param.f32 %f5, [s+8];\n"
    "  add.f64 %fd1, %fd1, %fd2;\n"
    "  cvt.rn.f32.f64 %f6, %fd1;\n"
    "  add.f32 %f4, %f4, %f6;\n"
    "  add.f32 %f1, %f1, %f5;\n"
    "  st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};\n"
    "  ret;\n"
    "}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEmuModule) module = ks_emu_module_new (ptx, &error);
  g_autoptr (KsEmuLaunch) launch = NULL;
  g_autofree float *out = emu_poisoned (4 * sizeof (float));
  const float s[3] = { 1, 2, 3 };
  const float f[4] = { 10, 20, 30, 40 };
  const double d[2] = { 0.25, 0.5 };
  KsEmuResult result = { 0 };

  g_assert_no_error (error);
  launch = ks_emu_launch_new (module, "vparams", emu_dim3 (1, 1, 1), emu_dim3 (1, 1, 1), 0);
  emu_param_buffer (launch, out, 4 * sizeof (float), "out");
  ks_emu_launch_add_param (launch, s, sizeof s);
  ks_emu_launch_add_param (launch, f, sizeof f);
  ks_emu_launch_add_param (launch, d, sizeof d);
  emu_run_clean (launch, &result);
  g_assert_cmpfloat (out[0], ==, 13);
  g_assert_cmpfloat (out[1], ==, 20);
  g_assert_cmpfloat (out[2], ==, 30);
  g_assert_cmpfloat (out[3], ==, 40.75);
  ks_emu_result_clear (&result);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!emu_have_nvrtc ())
    return KS_TEST_SKIPPED;
  g_test_add_func ("/ks/emu/arith/vector-add", test_vector_add);
  g_test_add_func ("/ks/emu/arith/saxpy-fma", test_saxpy);
  g_test_add_func ("/ks/emu/arith/integer", test_integer);
  g_test_add_func ("/ks/emu/arith/half", test_half);
  g_test_add_func ("/ks/emu/shape/image-2d", test_image_2d);
  g_test_add_func ("/ks/emu/shape/grid-stride", test_grid_stride);
  g_test_add_func ("/ks/emu/code/template", test_template);
  g_test_add_func ("/ks/emu/code/device-function", test_device_function);
  g_test_add_func ("/ks/emu/params/vector-loads", test_vector_params);
  return g_test_run ();
}
