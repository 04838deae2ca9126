/* test-emu-memory.c: the emulator's memory and its warps: block reductions
 * in static and dynamic shared memory with barriers, shared and global
 * atomics (exact counts, with blocks on two workers at once), warp
 * shuffles and votes, local arrays indexed at run time, and device printf.
 * Every kernel here is correct: racecheck and initcheck must find nothing. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "test-emu.h"

/* ---- shared memory ------------------------------------------------------------ */

static const char shared_source[] =
  "extern \"C\" __global__ void reduce(const float *in, float *out, int n)\n"
  "{\n"
  "  __shared__ float s[256];\n"
  "  int t = threadIdx.x;\n"
  "  int i = blockIdx.x * blockDim.x + t;\n"
  "  s[t] = i < n ? in[i] : 0.f;\n"
  "  __syncthreads();\n"
  "  for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
  "    if (t < k) s[t] += s[t + k];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (t == 0) out[blockIdx.x] = s[0];\n"
  "}\n"
  "extern \"C\" __global__ void reverse(const int *in, int *out)\n"
  "{\n"
  "  extern __shared__ int d[];\n"
  "  int t = threadIdx.x, base = blockIdx.x * blockDim.x;\n"
  "  d[t] = in[base + t];\n"
  "  __syncthreads();\n"
  "  out[base + t] = d[blockDim.x - 1 - t] + (int) (blockDim.x * 1000);\n"
  "}\n"
  "extern \"C\" __global__ void bvotes(const int *v, int *out)\n"
  "{\n"
  "  int x = v[blockIdx.x * blockDim.x + threadIdx.x];\n"
  "  int c = __syncthreads_count(x & 1);\n"
  "  int a = __syncthreads_and(x >= 0);\n"
  "  int o = __syncthreads_or(x > 1000);\n"
  "  if (threadIdx.x == 0) {\n"
  "    out[3 * blockIdx.x] = c;\n"
  "    out[3 * blockIdx.x + 1] = a;\n"
  "    out[3 * blockIdx.x + 2] = o;\n"
  "  }\n"
  "}\n";

static void
test_reduce (void)
{
  const char *const entries[] = { "reduce", "reverse", "bvotes", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
  g_autofree float *in = emu_random_floats (n, -1, 1);
  g_autofree float *out = emu_poisoned (blocks * sizeof (float));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  emu_compile (&p, shared_source, entries);
  g_assert_cmpuint (ks_emu_module_entry_shared (p.module, "reduce"), ==, 1024);
  g_assert_cmpuint (ks_emu_module_entry_shared (p.module, "reverse"), ==, 0);
  launch = ks_emu_launch_new (p.module, "reduce", emu_dim3 (blocks, 1, 1),
                              emu_dim3 (threads, 1, 1), 0);
  emu_param_buffer (launch, in, n * sizeof (float), "in");
  emu_param_buffer (launch, out, blocks * sizeof (float), "out");
  emu_param_int (launch, n);
  ks_emu_launch_set_threads (launch, 2);
  emu_run_clean (launch, &result);
  /* The same tree of additions, in float: the same bits. */
  for (gint b = 0; b < blocks; b++)
    {
      float s[256];

      for (gint t = 0; t < threads; t++)
        s[t] = b * threads + t < n ? in[b * threads + t] : 0.f;
      for (gint k = threads / 2; k > 0; k >>= 1)
        for (gint t = 0; t < k; t++)
          s[t] += s[t + k];
      emu_assert_same_float (s[0], out[b], (gsize) b);
    }
  ks_emu_result_clear (&result);
}

static void
test_dynamic_shared (void)
{
  const char *const entries[] = { "reduce", "reverse", "bvotes", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint threads = 96, blocks = 5, n = threads * blocks;
  g_autofree gint32 *in = g_new (gint32, n);
  g_autofree gint32 *out = emu_poisoned (n * sizeof (gint32));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    in[i] = g_test_rand_int ();
  emu_compile (&p, shared_source, entries);
  launch = ks_emu_launch_new (p.module, "reverse", emu_dim3 (blocks, 1, 1),
                              emu_dim3 (threads, 1, 1), threads * sizeof (gint32));
  emu_param_buffer (launch, in, n * sizeof (gint32), "in");
  emu_param_buffer (launch, out, n * sizeof (gint32), "out");
  emu_run_clean (launch, &result);
  for (gint b = 0; b < blocks; b++)
    for (gint t = 0; t < threads; t++)
      g_assert_cmpint (out[b * threads + t], ==,
                       (gint32) ((guint32) in[b * threads + threads - 1 - t] + threads * 1000));
  ks_emu_result_clear (&result);
}

/* __syncthreads_count/and/or: bar.red, a barrier that also sums. */
static void
test_barrier_reduction (void)
{
  const char *const entries[] = { "reduce", "reverse", "bvotes", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint threads = 128, blocks = 6, n = threads * blocks;
  g_autofree gint32 *v = g_new (gint32, n);
  g_autofree gint32 *out = emu_poisoned (3 * blocks * sizeof (gint32));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    v[i] = g_test_rand_int_range (i / threads == 2 ? 0 : -5, i / threads == 3 ? 1000 : 1010);
  emu_compile (&p, shared_source, entries);
  launch = ks_emu_launch_new (p.module, "bvotes", emu_dim3 (blocks, 1, 1),
                              emu_dim3 (threads, 1, 1), 0);
  emu_param_buffer (launch, v, n * sizeof (gint32), "v");
  emu_param_buffer (launch, out, 3 * blocks * sizeof (gint32), "out");
  emu_run_clean (launch, &result);
  for (gint b = 0; b < blocks; b++)
    {
      gint count = 0, all = 1, any = 0;

      for (gint t = 0; t < threads; t++)
        {
          gint32 x = v[b * threads + t];

          count += x & 1;
          all &= x >= 0;
          any |= x > 1000;
        }
      g_assert_cmpint (out[3 * b], ==, count);
      g_assert_cmpint (out[3 * b + 1] != 0, ==, all);
      g_assert_cmpint (out[3 * b + 2] != 0, ==, any);
    }
  ks_emu_result_clear (&result);
}

/* ---- atomics ------------------------------------------------------------------ */

static const char atomic_source[] =
  "extern \"C\" __global__ void hist(const unsigned char *data, unsigned *bins, int n)\n"
  "{\n"
  "  __shared__ unsigned h[256];\n"
  "  for (int j = threadIdx.x; j < 256; j += blockDim.x) h[j] = 0;\n"
  "  __syncthreads();\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
  "    atomicAdd(&h[data[i]], 1u);\n"
  "  __syncthreads();\n"
  "  for (int j = threadIdx.x; j < 256; j += blockDim.x) atomicAdd(&bins[j], h[j]);\n"
  "}\n"
  "extern \"C\" __global__ void atomics(const float *f, const int *v, int n, float *fmax,\n"
  "                                     int *mn, int *mx, int *exch,\n"
  "                                     unsigned long long *sum)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  int *addr = (int *) fmax;\n"
  "  int old = *addr, assumed;\n"
  "  do {\n"
  "    assumed = old;\n"
  "    old = atomicCAS(addr, assumed, __float_as_int(fmaxf(f[i], __int_as_float(assumed))));\n"
  "  } while (assumed != old);\n"
  "  atomicMin(mn, v[i]);\n"
  "  atomicMax(mx, v[i]);\n"
  "  atomicExch(exch, i);\n"
  "  atomicAdd(sum, (unsigned long long) (unsigned) v[i] * 4096ull);\n"
  "}\n";

static void
test_histogram (void)
{
  const char *const entries[] = { "hist", "atomics", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 100000;
  g_autofree guint8 *data = g_malloc (n);
  guint32 bins[256] = { 0 }, ref[256] = { 0 };
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    {
      /* Skewed, so that many lanes of a warp hit one bin at once. */
      data[i] = g_test_rand_bit () ? (guint8) g_test_rand_int_range (0, 8)
                                   : (guint8) g_test_rand_int ();
      ref[data[i]]++;
    }
  emu_compile (&p, atomic_source, entries);
  launch = ks_emu_launch_new (p.module, "hist", emu_dim3 (13, 1, 1), emu_dim3 (192, 1, 1), 0);
  emu_param_buffer (launch, data, n, "data");
  emu_param_buffer (launch, bins, sizeof bins, "bins");
  emu_param_int (launch, n);
  ks_emu_launch_set_threads (launch, 2);
  emu_run_clean (launch, &result);
  g_assert_cmpmem (bins, sizeof bins, ref, sizeof ref);
  /* One atomic per element, wherever the kernel made it. */
  g_assert_cmpuint (result.global_atomics + result.shared_atomics, >=, (guint64) n);
  ks_emu_result_clear (&result);
}

/* ---- who wrote what, and the blocks' order ---------------------------------- */

static const char owner_source[] =
  "extern \"C\" __global__ void mark(int *out, int *order, int *next, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) out[i] = 7;\n"
  "  if (threadIdx.x == 0) order[atomicAdd(next, 1)] = blockIdx.x;\n"
  "}\n"
  "extern \"C\" __global__ void count(int *bins, const int *data, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) bins[data[i]]++;\n"
  "}\n";

/* Every element of out has its writer recorded (block, thread in it), the
 * atomics are counted, and a seeded block order is a permutation that the
 * same seed repeats. */
static void
test_writers_and_order (void)
{
  const char *const entries[] = { "mark", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 1000, threads = 96, blocks = (n + threads - 1) / threads;
  gint32 first[16], second[16];

  emu_compile (&p, owner_source, entries);
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autofree gint32 *out = emu_poisoned ((gsize) n * 4);
      g_autofree gint32 *block_of = g_new (gint32, n);
      g_autofree gint32 *thread_of = g_new (gint32, n);
      gint32 *order = pass == 0 ? first : second;
      gint32 next = 0;
      g_autoptr(KsEmuLaunch) launch = NULL;
      KsEmuResult result = { 0 };
      gboolean seen[16] = { FALSE }, shuffled = FALSE;
      guint64 out_at;

      for (gint i = 0; i < n; i++)
        block_of[i] = thread_of[i] = -1;
      launch = ks_emu_launch_new (p.module, "mark", emu_dim3 (blocks, 1, 1),
                                  emu_dim3 (threads, 1, 1), 0);
      out_at = ks_emu_launch_add_buffer (launch, out, (gsize) n * 4, "out");
      ks_emu_launch_add_param (launch, &out_at, sizeof out_at);
      emu_param_buffer (launch, order, blocks * 4, "order");
      emu_param_buffer (launch, &next, 4, "next");
      emu_param_int (launch, n);
      ks_emu_launch_track_writers (launch, out_at, 4, block_of, thread_of);
      ks_emu_launch_set_threads (launch, 1);
      ks_emu_launch_set_block_order (launch, 7);
      emu_run_clean (launch, &result);
      g_assert_cmpuint (result.global_atomics, ==, (guint64) blocks);
      g_assert_cmpuint (result.shared_atomics, ==, 0);
      for (gint i = 0; i < n; i++)
        {
          g_assert_cmpint (out[i], ==, 7);
          g_assert_cmpint (block_of[i], ==, i / threads);
          g_assert_cmpint (thread_of[i], ==, i % threads);
        }
      for (gint b = 0; b < blocks; b++)
        {
          g_assert_cmpint (order[b], >=, 0);
          g_assert_cmpint (order[b], <, blocks);
          g_assert_false (seen[order[b]]);
          seen[order[b]] = TRUE;
          shuffled = shuffled || order[b] != b;
        }
      g_assert_true (shuffled);
      ks_emu_result_clear (&result);
    }
  g_assert_cmpmem (first, (gsize) blocks * 4, second, (gsize) blocks * 4);
}

/* bins[data[i]]++ without atomics, 16 threads a block, one bin each: a
 * block alone loses nothing, but blocks that run at once do, the same
 * counts for the same order. */
static gint32
race_total (const EmuProgram *p, guint resident, gint32 *bins)
{
  const gint n = 1000;
  gint32 data[1000];
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };
  gint32 total = 0;

  for (gint i = 0; i < n; i++)
    data[i] = i % 16;
  memset (bins, 0, 16 * sizeof (gint32));
  launch = ks_emu_launch_new (p->module, "count", emu_dim3 ((n + 15) / 16, 1, 1),
                              emu_dim3 (16, 1, 1), 0);
  emu_param_buffer (launch, bins, 16 * sizeof (gint32), "bins");
  emu_param_buffer (launch, data, sizeof data, "data");
  emu_param_int (launch, n);
  ks_emu_launch_set_threads (launch, 1);
  ks_emu_launch_set_block_order (launch, 3);
  ks_emu_launch_set_resident_blocks (launch, resident);
  emu_run_clean (launch, &result);
  ks_emu_result_clear (&result);
  for (guint k = 0; k < 16; k++)
    total += bins[k];
  return total;
}

static void
test_block_race (void)
{
  const char *const entries[] = { "mark", "count", NULL };
  g_auto(EmuProgram) p = { 0 };
  gint32 one[16], many[16], again[16];

  emu_compile (&p, owner_source, entries);
  g_assert_cmpint (race_total (&p, 1, one), ==, 1000);
  g_assert_cmpint (race_total (&p, 32, many), <, 1000);
  g_test_message ("32 blocks at once: %d of 1000 counts kept", race_total (&p, 32, again));
  g_assert_cmpmem (many, sizeof many, again, sizeof again);
}

static void
test_atomics (void)
{
  const char *const entries[] = { "hist", "atomics", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 20000;
  g_autofree float *f = emu_random_floats (n, -1e6, 1e6);
  g_autofree gint32 *v = g_new (gint32, n);
  float fmax = -INFINITY, ref_fmax = -INFINITY;
  gint32 mn = G_MAXINT32, mx = G_MININT32, exch = -1, ref_mn = G_MAXINT32, ref_mx = G_MININT32;
  guint64 sum = G_GUINT64_CONSTANT (1) << 62, ref_sum = sum;
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    {
      v[i] = g_test_rand_int ();
      ref_fmax = MAX (ref_fmax, f[i]);
      ref_mn = MIN (ref_mn, v[i]);
      ref_mx = MAX (ref_mx, v[i]);
      ref_sum += (guint64) (guint32) v[i] * 4096;
    }
  emu_compile (&p, atomic_source, entries);
  launch = ks_emu_launch_new (p.module, "atomics", emu_dim3 ((n + 127) / 128, 1, 1),
                              emu_dim3 (128, 1, 1), 0);
  emu_param_buffer (launch, f, n * sizeof (float), "f");
  emu_param_buffer (launch, v, n * sizeof (gint32), "v");
  emu_param_int (launch, n);
  emu_param_buffer (launch, &fmax, sizeof fmax, "fmax");
  emu_param_buffer (launch, &mn, sizeof mn, "mn");
  emu_param_buffer (launch, &mx, sizeof mx, "mx");
  emu_param_buffer (launch, &exch, sizeof exch, "exch");
  emu_param_buffer (launch, &sum, sizeof sum, "sum");
  ks_emu_launch_set_threads (launch, 2);
  emu_run_clean (launch, &result);
  emu_assert_same_float (ref_fmax, fmax, 0);
  g_assert_cmpint (mn, ==, ref_mn);
  g_assert_cmpint (mx, ==, ref_mx);
  g_assert_cmpint (exch, >=, 0);
  g_assert_cmpint (exch, <, n);
  g_assert_cmpuint (sum, ==, ref_sum);
  ks_emu_result_clear (&result);
}

/* ---- warps -------------------------------------------------------------------- */

static const char warp_source[] =
  "extern \"C\" __global__ void warp(const int *in, unsigned *out)\n"
  "{\n"
  "  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;\n"
  "  int v = in[g];\n"
  "  int s = v;\n"
  "  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);\n"
  "  unsigned b = __ballot_sync(0xffffffff, v & 1);\n"
  "  unsigned *o = out + 10 * g;\n"
  "  o[0] = s;\n"
  "  o[1] = __shfl_xor_sync(0xffffffff, v, 5);\n"
  "  o[2] = __popc(b);\n"
  "  o[3] = b;\n"
  "  o[4] = __any_sync(0xffffffff, v > 900) + 2 * __all_sync(0xffffffff, v >= 0)\n"
  "         + 4 * __all_sync(0xffffffff, v > 10);\n"
  "  o[5] = (t & 1) ? __activemask() : __activemask() + 1;\n"
  "  o[6] = __shfl_up_sync(0xffffffff, v, 3);\n"
  "  o[7] = __shfl_sync(0xffffffff, v, (t * 7) & 31);\n"
  "  o[8] = __shfl_down_sync(0xffffffff, v, 2, 8);\n"
  "  o[9] = __reduce_add_sync(0xffffffff, v) + __match_any_sync(0xffffffff, v & 3);\n"
  "}\n"
  "extern \"C\" __global__ void local(const int *idx, int *out, int k)\n"
  "{\n"
  "  int a[32];\n"
  "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  for (int j = 0; j < 32; j++) a[j] = j * k + t;\n"
  "  a[idx[t] & 31] += 1000;\n"
  "  out[t] = a[idx[t] & 31] + a[(idx[t] * 3) & 31];\n"
  "}\n";

static void
test_warp (void)
{
  const char *const entries[] = { "warp", "local", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint threads = 64, blocks = 3, n = threads * blocks;
  g_autofree gint32 *in = g_new (gint32, n);
  g_autofree guint32 *out = emu_poisoned (10 * n * sizeof (guint32));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    in[i] = g_test_rand_int_range (0, 1000);
  emu_compile (&p, warp_source, entries);
  launch = ks_emu_launch_new (p.module, "warp", emu_dim3 (blocks, 1, 1),
                              emu_dim3 (threads, 1, 1), 0);
  emu_param_buffer (launch, in, n * sizeof (gint32), "in");
  emu_param_buffer (launch, out, 10 * n * sizeof (guint32), "out");
  emu_run_clean (launch, &result);
  for (gint w = 0; w < n / 32; w++)
    {
      const gint32 *v = in + 32 * w;
      gint32 s[32];
      guint32 ballot = 0, any = 0, all = 1, all10 = 1, sum = 0;

      memcpy (s, v, sizeof s);
      for (gint o = 16; o > 0; o >>= 1)
        {
          gint32 next[32];

          /* A lane past the end reads its own value, as shfl.down does. */
          for (gint l = 0; l < 32; l++)
            next[l] = s[l] + (l + o < 32 ? s[l + o] : s[l]);
          memcpy (s, next, sizeof s);
        }
      for (gint l = 0; l < 32; l++)
        {
          ballot |= (guint32) (v[l] & 1) << l;
          any |= v[l] > 900;
          all &= v[l] >= 0;
          all10 &= v[l] > 10;
          sum += (guint32) v[l];
        }
      for (gint l = 0; l < 32; l++)
        {
          const guint32 *o = out + 10 * (32 * w + l);
          guint32 match = 0;

          for (gint m = 0; m < 32; m++)
            match |= (guint32) ((v[m] & 3) == (v[l] & 3)) << m;
          g_assert_cmpint ((gint32) o[0], ==, s[l]);
          g_assert_cmpint ((gint32) o[1], ==, v[l ^ 5]);
          g_assert_cmpuint (o[2], ==, (guint) __builtin_popcount (ballot));
          g_assert_cmphex (o[3], ==, ballot);
          g_assert_cmpuint (o[4], ==, any + 2 * all + 4 * all10);
          /* The branches of (t & 1) run one after the other: each sees its half. */
          g_assert_cmphex (o[5], ==, (l & 1) ? 0xaaaaaaaau : 0x55555555u + 1);
          g_assert_cmpint ((gint32) o[6], ==, l >= 3 ? v[l - 3] : v[l]);
          g_assert_cmpint ((gint32) o[7], ==, v[(l * 7) & 31]);
          g_assert_cmpint ((gint32) o[8], ==, (l % 8) + 2 < 8 ? v[l + 2] : v[l]);
          g_assert_cmpuint (o[9], ==, sum + match);
        }
    }
  ks_emu_result_clear (&result);
}

static void
test_local_array (void)
{
  const char *const entries[] = { "warp", "local", NULL };
  g_auto(EmuProgram) p = { 0 };
  const gint n = 200;
  const gint32 k = g_test_rand_int_range (-50, 50);
  g_autofree gint32 *idx = g_new (gint32, n);
  g_autofree gint32 *out = emu_poisoned (n * sizeof (gint32));
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  for (gint i = 0; i < n; i++)
    idx[i] = g_test_rand_int_range (0, 1 << 20);
  emu_compile (&p, warp_source, entries);
  launch = ks_emu_launch_new (p.module, "local", emu_dim3 (n / 40, 1, 1), emu_dim3 (40, 1, 1), 0);
  emu_param_buffer (launch, idx, n * sizeof (gint32), "idx");
  emu_param_buffer (launch, out, n * sizeof (gint32), "out");
  emu_param_int (launch, k);
  emu_run_clean (launch, &result);
  for (gint t = 0; t < n; t++)
    {
      gint32 a[32];

      for (gint j = 0; j < 32; j++)
        a[j] = j * k + t;
      a[idx[t] & 31] += 1000;
      g_assert_cmpint (out[t], ==, a[idx[t] & 31] + a[(idx[t] * 3) & 31]);
    }
  ks_emu_result_clear (&result);
}

/* ---- printf ------------------------------------------------------------------- */

static const char printf_source[] =
  "extern \"C\" __global__ void hello(int x, float f)\n"
  "{\n"
  "  printf(\"block %d thread %d: x=%d f=%.3f hex=%#x s=%s c=%c ll=%lld u=%u e=%e g=%g "
  "w=%5.1f|%-4d|%%\\n\",\n"
  "         blockIdx.x, threadIdx.x, x, f, x, \"str\", 'A' + threadIdx.x,\n"
  "         (long long) x * 1000000000LL, (unsigned) -x, (double) f, 0.5, 3.14159,\n"
  "         threadIdx.x);\n"
  "}\n";

static void
test_printf (void)
{
  const char *const entries[] = { "hello", NULL };
  g_auto(EmuProgram) p = { 0 };
  gint32 x = g_test_rand_int_range (-100000, 100000);
  float f = (float) g_test_rand_double_range (-100, 100);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autoptr(KsEmuLaunch) launch = NULL;
  KsEmuResult result = { 0 };

  emu_compile (&p, printf_source, entries);
  launch = ks_emu_launch_new (p.module, "hello", emu_dim3 (3, 1, 1), emu_dim3 (4, 1, 1), 0);
  emu_param_int (launch, x);
  emu_param_float (launch, f);
  /* Blocks on two workers: the output is in blockIdx order all the same. */
  ks_emu_launch_set_threads (launch, 2);
  emu_run_clean (launch, &result);
  for (gint b = 0; b < 3; b++)
    for (gint t = 0; t < 4; t++)
      g_string_append_printf (expected,
                              "block %d thread %d: x=%d f=%.3f hex=%#x s=%s c=%c ll=%lld u=%u "
                              "e=%e g=%g w=%5.1f|%-4d|%%\n",
                              b, t, x, f, x, "str", 'A' + t, (long long) x * 1000000000LL,
                              (unsigned) -x, (double) f, 0.5, 3.14159, t);
  g_assert_cmpstr (result.printf_output, ==, expected->str);
  g_assert_cmpuint (result.printf_lines, ==, 12);
  ks_emu_result_clear (&result);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!emu_have_nvrtc ())
    return KS_TEST_SKIPPED;
  g_test_add_func ("/ks/emu/shared/reduce", test_reduce);
  g_test_add_func ("/ks/emu/shared/dynamic", test_dynamic_shared);
  g_test_add_func ("/ks/emu/shared/barrier-reduction", test_barrier_reduction);
  g_test_add_func ("/ks/emu/atomic/histogram", test_histogram);
  g_test_add_func ("/ks/emu/atomic/cas-min-max-exch-add64", test_atomics);
  g_test_add_func ("/ks/emu/owners/writers-and-block-order", test_writers_and_order);
  g_test_add_func ("/ks/emu/owners/race-between-blocks", test_block_race);
  g_test_add_func ("/ks/emu/warp/shuffle-vote", test_warp);
  g_test_add_func ("/ks/emu/local/dynamic-index", test_local_array);
  g_test_add_func ("/ks/emu/printf/format", test_printf);
  return g_test_run ();
}
