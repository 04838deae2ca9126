/* test-cuda-worker.c: user kernels in the worker process on the GPU.
 *
 * Kernels of the "any" mode bound to arrays (the element-wise addition of a
 * million floats with a grid-stride loop, squaring a 5×5 matrix with a 5×5
 * block, a 3×3 matrix product) against CPU references; device printf
 * captured and counted; a buffer of this process's engine written through
 * CUDA IPC and through copies; and kernels that fault or never end: each
 * ends in its own error, the worker starts again, and this process's CUDA
 * (a built-in op on the CUDA engine, compared with the CPU engine) works
 * before and after.
 *
 * Without a usable GPU or NVRTC it prints a TAP plan of 0 and exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-test-helpers.h"
#include "ks-worker-private.h"

static KsEngine *cpu;
static KsEngine *gpu;
static KsWorker *worker;

static KsCompileResult *
compile_any (const char *file, const char *text)
{
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, file, text);
  g_autoptr (GError) error = NULL;
  KsCompileResult *result;
  KsLaunchConfig launch;

  ks_kernel_source_get_default_launch (source, &launch);
  result = ks_worker_compile (worker, source, &launch, FALSE, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      g_autofree char *line = ks_diagnostic_format (g_ptr_array_index (result->diagnostics, i));

      g_test_message ("%s", line);
    }
  g_assert_true (result->success);
  g_assert_cmpuint (result->kernels->len, ==, 1);
  return result;
}

static KsDim3
dim3_of (guint x, guint y)
{
  KsDim3 d = { x, y, 1 };

  return d;
}

static KsArray *
new_array (gsize length)
{
  g_autoptr (GError) error = NULL;
  KsArray *array = ks_array_new (KS_ELEM_FLOAT32, length, &error);

  g_assert_no_error (error);
  return array;
}

/* A built-in op on this process's CUDA engine equals the CPU engine's. */
static void
assert_own_cuda_works (const char *when)
{
  g_autoptr (KsImage) input = ks_test_random_image (KS_FORMAT_RGBA8, 129, 67,
                                                    g_test_rand_int ());
  g_autoptr (KsImage) expected = ks_test_run_simple (cpu, "invert", NULL, input, NULL);
  g_autoptr (KsImage) actual = ks_test_run_simple (gpu, "invert", NULL, input, NULL);
  g_autoptr (GError) error = NULL;

  ks_test_assert_images_equal (expected, actual, when);
  g_assert_true (ks_engine_check_usable (gpu, &error));
  g_assert_no_error (error);
  g_assert_null (ks_cuda_lost_reason ());
}

static const char vector_add[] =
  "__global__ void add (float *out, const float *a, const float *b, int n)\n"
  "{\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
  "    out[i] = a[i] + b[i];\n"
  "}\n";

/* Runs vector_add over n random floats; the sums must be the CPU's exactly
 * (one IEEE addition each, rounded the same on both). */
static void
run_vector_add (gsize n, KsDim3 grid, KsDim3 block, double *compile_to_result_ms)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (KsCompileResult) compiled = compile_any ("add.cu", vector_add);
  g_autoptr (KsArray) a = new_array (n);
  g_autoptr (KsArray) b = new_array (n);
  g_autoptr (KsArray) out = new_array (n);
  g_autoptr (KsArray) expected = new_array (n);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (GError) error = NULL;
  KsWorkerRunResult result;
  gint32 count = (gint32) n;
  gsize first = 0;
  float *fa = (float *) a->data, *fb = (float *) b->data, *fe = (float *) expected->data;

  for (gsize i = 0; i < n; i++)
    {
      fa[i] = (float) g_test_rand_double_range (-1000, 1000);
      fb[i] = (float) g_test_rand_double_range (-1, 1);
      fe[i] = fa[i] + fb[i];
    }
  /* Poisoned: an element the kernel skips cannot pass for a sum. */
  memset (out->data, 0xff, ks_array_get_bytes (out));

  launch = ks_worker_launch_new (compiled, 0, grid, block, 0);
  ks_worker_launch_add_array (launch, out, KS_ARRAY_INOUT);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_IN);
  ks_worker_launch_add_array (launch, b, KS_ARRAY_IN);
  ks_worker_launch_add_value (launch, &count, sizeof count, sizeof count);
  g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_no_error (error);
  if (compile_to_result_ms != NULL)
    *compile_to_result_ms = (g_get_monotonic_time () - t0) / 1000.0;

  g_assert_cmpuint (result.arrays->len, ==, 1);
  g_assert_true (ks_array_equal (g_ptr_array_index (result.arrays, 0), expected, 0, 0, &first));
  /* Both were measured. They are not compared: the kernel's time is CUDA
   * events in the worker, the round trip this process's clock, and on a
   * loaded machine either may be the one that was slowed. */
  g_assert_true (isfinite (result.kernel_ms));
  g_assert_cmpfloat (result.kernel_ms, >, 0);
  g_assert_true (isfinite (result.round_trip_ms));
  g_assert_cmpfloat (result.round_trip_ms, >, 0);
  /* One timed run: its median, minimum and maximum are that one time. */
  g_assert_cmpfloat (result.kernel_min_ms, ==, result.kernel_ms);
  g_assert_cmpfloat (result.kernel_max_ms, ==, result.kernel_ms);
  ks_worker_run_result_clear (&result);
}

static void
test_vector_add (void)
{
  double ms = 0;

  run_vector_add (1000000, dim3_of (256, 1), dim3_of (256, 1), &ms);
  g_test_message ("10^6 additions: %.1f ms from compiling to the result", ms);
  /* Cached now: the same again without NVRTC. */
  run_vector_add (1000000, dim3_of (256, 1), dim3_of (256, 1), &ms);
  g_test_message ("10^6 additions, compiled already: %.1f ms to the result", ms);
  /* A grid far smaller than the data: the loop strides over the rest. */
  run_vector_add (100003, dim3_of (3, 1), dim3_of (64, 1), NULL);
}

static void
test_square_matrix (void)
{
  g_autoptr (KsCompileResult) compiled = compile_any (
    "square.cu",
    "__global__ void square (float *a)\n"
    "{\n"
    "  int idx = threadIdx.x + threadIdx.y * 5;\n"
    "  a[idx] = a[idx] * a[idx];\n"
    "}\n");
  g_autoptr (KsArray) a = new_array (25);
  g_autoptr (KsArray) expected = new_array (25);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (GError) error = NULL;
  KsWorkerRunResult result;
  KsArray *back;

  a->rows = 5;
  a->cols = 5;
  for (guint i = 0; i < 25; i++)
    {
      float v = (float) g_test_rand_double_range (-10, 10);

      ((float *) a->data)[i] = v;
      ((float *) expected->data)[i] = v * v;
    }
  launch = ks_worker_launch_new (compiled, 0, dim3_of (1, 1), dim3_of (5, 5), 0);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_INOUT);
  g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.arrays->len, ==, 1);
  back = g_ptr_array_index (result.arrays, 0);
  g_assert_cmpuint (back->rows, ==, 5);
  g_assert_cmpuint (back->cols, ==, 5);
  g_assert_true (ks_array_equal (back, expected, 0, 0, NULL));
  ks_worker_run_result_clear (&result);
}

static void
test_matrix_product (void)
{
  g_autoptr (KsCompileResult) compiled = compile_any (
    "matmul.cu",
    "__global__ void matmul (const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "  int row = threadIdx.y, col = threadIdx.x;\n"
    "  if (row < n && col < n)\n"
    "    {\n"
    "      float sum = 0.0f;\n"
    "      for (int k = 0; k < n; k++)\n"
    "        sum += a[row * n + k] * b[k * n + col];\n"
    "      c[row * n + col] = sum;\n"
    "    }\n"
    "}\n");
  g_autoptr (KsArray) a = new_array (9);
  g_autoptr (KsArray) b = new_array (9);
  g_autoptr (KsArray) c = new_array (9);
  g_autoptr (KsArray) expected = new_array (9);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (GError) error = NULL;
  KsWorkerRunResult result;
  gint32 n = 3;
  float *fa = (float *) a->data, *fb = (float *) b->data;

  /* Small integers: every product and sum is exact in float, fused or not. */
  for (guint i = 0; i < 9; i++)
    {
      fa[i] = (float) g_test_rand_int_range (-8, 9);
      fb[i] = (float) g_test_rand_int_range (-8, 9);
    }
  for (guint r = 0; r < 3; r++)
    for (guint col = 0; col < 3; col++)
      {
        float sum = 0;

        for (guint k = 0; k < 3; k++)
          sum += fa[r * 3 + k] * fb[k * 3 + col];
        ((float *) expected->data)[r * 3 + col] = sum;
      }
  launch = ks_worker_launch_new (compiled, 0, dim3_of (1, 1), dim3_of (3, 3), 0);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_IN);
  ks_worker_launch_add_array (launch, b, KS_ARRAY_IN);
  ks_worker_launch_add_array (launch, c, KS_ARRAY_OUT);
  ks_worker_launch_add_value (launch, &n, sizeof n, sizeof n);
  ks_worker_launch_set_repeats (launch, 5);
  g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_assert_true (ks_array_equal (g_ptr_array_index (result.arrays, 0), expected, 0, 0, NULL));
  g_assert_cmpfloat (result.kernel_min_ms, <=, result.kernel_ms);
  g_assert_cmpfloat (result.kernel_ms, <=, result.kernel_max_ms);
  ks_worker_run_result_clear (&result);
}

static void
test_printf (void)
{
  g_autoptr (KsCompileResult) compiled = compile_any (
    "hello.cu",
    "__global__ void hello (int tag)\n"
    "{\n"
    "  printf (\"tag %d block %d thread %d\\n\", tag, (int) blockIdx.x, (int) threadIdx.x);\n"
    "}\n");
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  KsWorkerRunResult result;
  gint32 tag = 42;

  launch = ks_worker_launch_new (compiled, 0, dim3_of (4, 1), dim3_of (8, 1), 0);
  ks_worker_launch_add_value (launch, &tag, sizeof tag, sizeof tag);
  g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_test_message ("printf: %" G_GUINT64_FORMAT " lines, %" G_GUINT64_FORMAT " lost",
                  result.printf_lines, result.printf_lines_lost);
  g_assert_cmpuint (result.printf_lines, ==, 32);
  g_assert_cmpuint (result.printf_lines_lost, ==, 0);
  for (guint b = 0; b < 4; b++)
    for (guint t = 0; t < 8; t++)
      {
        g_autofree char *line = g_strdup_printf ("tag 42 block %u thread %u\n", b, t);
        const char *at = strstr (result.printf_output, line);

        /* Each exactly once. */
        g_assert_nonnull (at);
        g_assert_null (strstr (at + 1, line));
      }
  lines = g_strsplit (result.printf_output, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 33);
  ks_worker_run_result_clear (&result);

  /* The next run gets only its own output. */
  g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.printf_lines, ==, 32);
  ks_worker_run_result_clear (&result);
}

/* A buffer of this process's CUDA engine, written by the worker. */
static void
run_fill (gboolean ipc)
{
  g_autoptr (KsCompileResult) compiled = compile_any (
    "fill.cu",
    "__global__ void fill (unsigned char *p, unsigned long long pitch, int w, int h)\n"
    "{\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x < w && y < h)\n"
    "    p[y * pitch + x] = (unsigned char) (x + 3 * y);\n"
    "}\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) buffer = ks_engine_new_buffer (gpu, KS_FORMAT_GRAY8, 77, 35, &error);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (KsImage) back = NULL;
  KsWorkerRunResult result;
  gpointer placeholder = NULL;
  guint64 pitch;
  gint32 w = 77, h = 35 - 2;
  KsWorkerPointer pointer = { 0, 0, 0 };
  guint index;

  g_assert_no_error (error);
  pitch = ks_buffer_get_pitch (buffer);
  g_assert_true (ks_engine_fill (gpu, buffer, KS_TEST_POISON, &error));
  g_assert_no_error (error);

  _ks_worker_set_ipc_disabled (worker, !ipc);
  launch = ks_worker_launch_new (compiled, 0, dim3_of (3, 3), dim3_of (32, 16), 0);
  index = ks_worker_launch_share (launch, ks_buffer_get_data (buffer), pitch * 35, "image");
  /* From row 2: the pointer's offset is honoured. */
  pointer.buffer = index;
  pointer.offset = 2 * pitch;
  ks_worker_launch_add_value_with_pointers (launch, &placeholder, sizeof placeholder,
                                            sizeof placeholder, &pointer, 1);
  ks_worker_launch_add_value (launch, &pitch, sizeof pitch, sizeof pitch);
  ks_worker_launch_add_value (launch, &w, sizeof w, sizeof w);
  ks_worker_launch_add_value (launch, &h, sizeof h, sizeof h);
  ks_worker_launch_set_stream (launch, ks_engine_get_stream (gpu));
  g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_test_message ("shared buffer through %s",
                  _ks_worker_last_run_used_ipc (worker) ? "CUDA IPC" : "copies");
  if (!ipc)
    g_assert_false (_ks_worker_last_run_used_ipc (worker));
  ks_worker_run_result_clear (&result);
  _ks_worker_set_ipc_disabled (worker, FALSE);

  back = ks_engine_download (gpu, buffer, NULL, &error);
  g_assert_no_error (error);
  for (guint y = 0; y < 35; y++)
    for (guint x = 0; x < 77; x++)
      {
        guint8 v = ks_image_row (back, y)[x];

        if (y < 2)
          g_assert_cmpuint (v, ==, KS_TEST_POISON);
        else
          g_assert_cmpuint (v, ==, (guint8) (x + 3 * (y - 2)));
      }
}

static void
test_shared_buffer (void)
{
  run_fill (TRUE);
  run_fill (FALSE);
}

static void
test_attributes_and_refused_launch (void)
{
  g_autoptr (KsCompileResult) compiled = compile_any ("add.cu", vector_add);
  g_autoptr (KsArray) a = new_array (16);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (GError) error = NULL;
  KsKernelAttributes attrs;
  KsWorkerRunResult result;
  guint starts;
  gint32 n = 16;

  g_assert_true (ks_worker_kernel_attributes (worker, compiled, 0, 0, &attrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (attrs.num_regs, >, 0);
  g_assert_cmpuint (attrs.max_threads_per_block, >, 0);
  g_assert_cmpuint (attrs.max_threads_per_block, <=, 1024);

  /* 2048 threads per block: CUDA refuses it, and the worker stays. */
  starts = ks_worker_get_starts (worker);
  launch = ks_worker_launch_new (compiled, 0, dim3_of (1, 1), dim3_of (2048, 1), 0);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_OUT);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_IN);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_IN);
  ks_worker_launch_add_value (launch, &n, sizeof n, sizeof n);
  g_assert_false (ks_worker_run (worker, launch, NULL, &result, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  g_test_message ("%s", error->message);
  g_assert_true (ks_worker_is_running (worker));
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, starts);
  run_vector_add (1000, dim3_of (4, 1), dim3_of (128, 1), NULL);
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, starts);
}

/* Dynamic shared memory next to 1 KiB of static: every word of it written,
 * then read back in reverse order by other threads. */
static const char big_shared[] =
  "__global__ void reverse (unsigned *out, unsigned n)\n"
  "{\n"
  "  extern __shared__ unsigned s[];\n"
  "  __shared__ unsigned fixed[256];\n"
  "  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)\n"
  "    fixed[i] = i * 7u;\n"
  "  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    s[i] = i * 2654435761u + blockIdx.x;\n"
  "  __syncthreads ();\n"
  "  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)\n"
  "    out[blockIdx.x * n + i] = s[n - 1 - i] ^ fixed[i % 256];\n"
  "}\n";

/* Past 48 KiB with the static shared memory the kernel must opt in: at 48 KiB
 * of dynamic memory (49 KiB in all, though the dynamic part alone is within
 * the 48 KiB) and at 200 KiB it runs and fills all of it; past the device's
 * opt-in limit it is refused as a launch configuration, and the worker
 * stays. */
static void
test_large_dynamic_shared (void)
{
  g_autoptr (KsCompileResult) compiled = compile_any ("reverse.cu", big_shared);
  const KsDeviceLimits *l = ks_device_get_limits (ks_engine_get_device (gpu));
  const guint64 sizes[] = { 48 * 1024, 200 * 1024, l->shared_mem_per_block_optin };
  const guint blocks = 3;
  guint starts = ks_worker_get_starts (worker);

  for (guint c = 0; c < G_N_ELEMENTS (sizes); c++)
    {
      guint32 n = (guint32) (sizes[c] / 4);
      g_autoptr (GError) error = NULL;
      g_autoptr (KsArray) out = ks_array_new (KS_ELEM_UINT32, (gsize) n * blocks, &error);
      g_autoptr (KsWorkerLaunch) launch = NULL;
      KsWorkerRunResult result;
      const guint32 *got;

      g_assert_no_error (error);
      memset (out->data, 0xa5, ks_array_get_bytes (out));
      launch = ks_worker_launch_new (compiled, 0, dim3_of (blocks, 1), dim3_of (256, 1), sizes[c]);
      ks_worker_launch_add_array (launch, out, KS_ARRAY_INOUT);
      ks_worker_launch_add_value (launch, &n, sizeof n, sizeof n);
      if (c == 2)
        {
          /* With the 1 KiB of static memory, one KiB past the limit. */
          g_assert_false (ks_worker_run (worker, launch, NULL, &result, &error));
          g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
          g_test_message ("%s", error->message);
          g_assert_true (ks_worker_is_running (worker));
          continue;
        }
      g_assert_true (ks_worker_run (worker, launch, NULL, &result, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (result.arrays->len, ==, 1);
      got = (const guint32 *) ((KsArray *) g_ptr_array_index (result.arrays, 0))->data;
      for (guint b = 0; b < blocks; b++)
        for (guint32 i = 0; i < n; i++)
          {
            guint32 want = ((n - 1 - i) * 2654435761u + b) ^ (i % 256 * 7u);

            if (got[(gsize) b * n + i] != want)
              g_error ("%" G_GUINT64_FORMAT " bytes, block %u, word %u: %08x, expected %08x",
                       sizes[c], b, i, got[(gsize) b * n + i], want);
          }
      ks_worker_run_result_clear (&result);
    }
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, starts);
  run_vector_add (1000, dim3_of (4, 1), dim3_of (128, 1), NULL);
}

typedef struct
{
  const char *name;
  const char *source;
  guint timeout_ms;     /* 0: the default */
  int code;             /* KsError */
  const char *needle;   /* in the message */
} FaultCase;

static const FaultCase fault_cases[] = {
  { "illegal-address",
    "__global__ void wild (int *p)\n"
    "{\n"
    "  p[(1ull << 40) + threadIdx.x] = 1;\n"
    "}\n",
    0, KS_ERROR_KERNEL_FAULT, "cudaErrorIllegalAddress" },
  { "misaligned",
    "__global__ void odd (int *p)\n"
    "{\n"
    "  /* A 4-byte store one byte into the array. */\n"
    "  *(volatile int *) ((char *) p + 1 + 4 * threadIdx.x) = 1;\n"
    "}\n",
    0, KS_ERROR_KERNEL_FAULT, "cudaErrorMisalignedAddress" },
  { "trap",
    "__global__ void stop (int *p)\n"
    "{\n"
    "  if (threadIdx.x == 0)\n"
    "    __trap ();\n"
    "  p[threadIdx.x] = 1;\n"
    "}\n",
    0, KS_ERROR_KERNEL_FAULT, "CUDA error" },
  { "endless-loop",
    "__global__ void spin (volatile int *p)\n"
    "{\n"
    "  while (p[0] == 0)\n"
    "    ;\n"
    "}\n",
    500, KS_ERROR_TIMED_OUT, "500 ms" },
};

static void
test_fault (gconstpointer data)
{
  const FaultCase *c = data;
  g_autoptr (KsCompileResult) compiled = compile_any ("fault.cu", c->source);
  g_autoptr (KsArray) zeros = new_array (64);
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (GError) error = NULL;
  KsWorkerRunResult result;
  guint starts;
  double restart_ms = 0;
  gint64 t0;

  assert_own_cuda_works ("before the fault");
  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);
  starts = ks_worker_get_starts (worker);

  memset (zeros->data, 0, ks_array_get_bytes (zeros));
  launch = ks_worker_launch_new (compiled, 0, dim3_of (1, 1), dim3_of (32, 1), 0);
  ks_worker_launch_add_array (launch, zeros, KS_ARRAY_INOUT);
  if (c->timeout_ms != 0)
    ks_worker_set_timeout_ms (worker, c->timeout_ms);
  t0 = g_get_monotonic_time ();
  g_assert_false (ks_worker_run (worker, launch, NULL, &result, &error));
  ks_worker_set_timeout_ms (worker, KS_WORKER_DEFAULT_TIMEOUT_MS);
  g_test_message ("%s: %s (after %.0f ms)", c->name, error->message,
                  (g_get_monotonic_time () - t0) / 1000.0);
  g_assert_error (error, KS_ERROR, c->code);
  ks_test_assert_message_has (error, c->needle, NULL);
  g_assert_null (result.arrays);
  g_assert_false (ks_worker_is_running (worker));

  /* A new worker, this process untouched, and the next good kernel runs. */
  assert_own_cuda_works ("after the fault");
  g_clear_error (&error);
  g_assert_true (ks_worker_start (worker, &restart_ms, &error));
  g_assert_no_error (error);
  g_test_message ("the worker restarted in %.1f ms", restart_ms);
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, starts + 1);
  run_vector_add (4096, dim3_of (8, 1), dim3_of (128, 1), NULL);
  assert_own_cuda_works ("after the restart");
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_test_require_cuda (KS_TEST_NEEDS_NVRTC))
    return KS_TEST_SKIPPED;

  gpu = ks_test_cuda_engine ();
  cpu = ks_test_cpu_engine ();
  worker = ks_worker_new (0);

  g_test_add_func ("/ks/cuda/worker/any/vector-add", test_vector_add);
  g_test_add_func ("/ks/cuda/worker/any/square-matrix", test_square_matrix);
  g_test_add_func ("/ks/cuda/worker/any/matrix-product", test_matrix_product);
  g_test_add_func ("/ks/cuda/worker/printf", test_printf);
  g_test_add_func ("/ks/cuda/worker/shared-buffer", test_shared_buffer);
  g_test_add_func ("/ks/cuda/worker/attributes-refused-launch",
                   test_attributes_and_refused_launch);
  g_test_add_func ("/ks/cuda/worker/large-dynamic-shared", test_large_dynamic_shared);
  for (guint i = 0; i < G_N_ELEMENTS (fault_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ks/cuda/worker/fault/%s", fault_cases[i].name);

      g_test_add_data_func (path, &fault_cases[i], test_fault);
    }

  ret = g_test_run ();
  g_clear_object (&worker);
  g_clear_object (&gpu);
  g_clear_object (&cpu);
  return ret;
}
