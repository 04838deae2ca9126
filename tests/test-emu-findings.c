/* test-emu-findings.c: kernels with the bugs students write, run in the
 * emulator: each is reported as compute-sanitizer would (the kind, the
 * access, the thread and block, the source line), the run survives it, and
 * another kernel of the same module runs fine afterwards. Then the parser
 * and the launch against text and shapes that are wrong: refused with a
 * clear error, never a crash. */
#include "config.h"

#include <string.h>

#include "test-emu.h"

/* Line numbers below are the source's, from the #line: assert them exactly. */
static const char buggy_source[] =
  "#line 1 \"bugs.cu\"\n"
  "extern \"C\" __global__ void fine(int *out) { out[threadIdx.x] = threadIdx.x * 3; }\n"
  "extern \"C\" __global__ void oob(const float *in, float *out, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = in[i + 1];\n"                                           /* line 6 */
  "}\n"
  "extern \"C\" __global__ void misaligned(char *p)\n"
  "{\n"
  "  *(int *) (p + 2 + 8 * threadIdx.x) = 1;\n"                        /* line 10 */
  "}\n"
  "extern \"C\" __global__ void uninit(float *out)\n"
  "{\n"
  "  __shared__ float s[64];\n"
  "  if (threadIdx.x < 32) s[threadIdx.x] = 1.f;\n"
  "  __syncthreads();\n"
  "  out[threadIdx.x] = s[63 - threadIdx.x];\n"                        /* line 17 */
  "}\n"
  "extern \"C\" __global__ void race(int *out)\n"
  "{\n"
  "  __shared__ int s;\n"
  "  if (threadIdx.x == 0) s = 0;\n"
  "  __syncthreads();\n"
  "  s++;\n"                                                             /* line 24 */
  "  __syncthreads();\n"
  "  if (threadIdx.x == 0) out[0] = s;\n"
  "}\n"
  "extern \"C\" __global__ void divergent(int *out)\n"
  "{\n"
  "  if (threadIdx.x < 16)\n"
  "    __syncthreads();\n"                                               /* line 31 */
  "  out[threadIdx.x] = 1;\n"
  "}\n"
  "extern \"C\" __global__ void endless(volatile int *flag)\n"
  "{\n"
  "  while (flag[0] == 0)\n"
  "    ;\n"
  "}\n"
  "extern \"C\" __global__ void wild(int v)\n"
  "{\n"
  "  *(volatile int *) 0x1234 = v;\n"                                   /* line 41 */
  "}\n"
  "__device__ __noinline__ int down(int n, int *p)\n"
  "{\n"
  "  p[n & 7] = n;\n"
  "  return p[(n * 3) & 7] + down(n + 1, p) * 2;\n"
  "}\n"
  "extern \"C\" __global__ void deep(int *p) { p[0] = down(threadIdx.x, p); }\n"
  "extern \"C\" __device__ void __assertfail(const char *, const char *, unsigned,\n"
  "                                         const char *, unsigned long);\n"
  "#define assert(e) ((e) ? (void) 0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))\n"
  "extern \"C\" __global__ void checked(const int *v) { assert(v[threadIdx.x] < 5); }\n"
  "extern \"C\" __global__ void shfl_half(int *out)\n"
  "{\n"
  "  int v = threadIdx.x;\n"
  "  if (threadIdx.x < 16)\n"
  "    v = __shfl_sync(0xffffffff, v, 0);\n"                             /* line 57 */
  "  out[threadIdx.x] = v;\n"
  "}\n";

static const char *const buggy_entries[] = {
  "fine", "oob", "misaligned", "uninit", "race", "divergent", "endless", "wild", "deep",
  "checked", "shfl_half", NULL,
};

static KsEmuFinding *
finding_at (const KsEmuResult *result, guint i)
{
  g_assert_cmpuint (i, <, result->findings->len);
  return g_ptr_array_index (result->findings, i);
}

/* After a bug, the module is as good as before: a correct kernel runs. */
static void
assert_fine_runs (const EmuProgram *p)
{
  gint32 out[64];
  g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p->module, "fine", emu_dim3 (1, 1, 1),
                                                     emu_dim3 (64, 1, 1), 0);
  KsEmuResult result = { 0 };

  memset (out, EMU_POISON, sizeof out);
  emu_param_buffer (launch, out, sizeof out, "out");
  emu_run_clean (launch, &result);
  for (gint i = 0; i < 64; i++)
    g_assert_cmpint (out[i], ==, 3 * i);
  ks_emu_result_clear (&result);
}

static void
compile_buggy (EmuProgram *p)
{
  emu_compile (p, buggy_source, buggy_entries);
}

/* Runs a kernel with one buffer parameter (or none); the run's outcome. */
static gboolean
run_one (const EmuProgram *p, const char *entry, guint threads, gpointer buffer, gsize size,
         guint time_limit, KsEmuResult *result, GError **error)
{
  g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p->module, entry, emu_dim3 (1, 1, 1),
                                                     emu_dim3 (threads, 1, 1), 0);

  if (buffer != NULL)
    emu_param_buffer (launch, buffer, size, "buf");
  ks_emu_launch_set_time_limit (launch, time_limit);
  return ks_emu_launch_run (launch, NULL, result, error);
}

static void
test_out_of_bounds (void)
{
  g_auto(EmuProgram) p = { 0 };
  const gint n = 256;
  g_autofree float *in = emu_random_floats (n, -1, 1);
  g_autofree float *out = emu_poisoned (n * sizeof (float));
  g_autoptr(KsEmuLaunch) launch = NULL;
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;
  guint64 in_address;

  compile_buggy (&p);
  launch = ks_emu_launch_new (p.module, "oob", emu_dim3 (2, 1, 1), emu_dim3 (128, 1, 1), 0);
  in_address = ks_emu_launch_add_buffer (launch, in, n * sizeof (float), "in");
  ks_emu_launch_add_param (launch, &in_address, sizeof in_address);
  emu_param_buffer (launch, out, n * sizeof (float), "out");
  emu_param_int (launch, n);
  g_assert_true (ks_emu_launch_run (launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, ==, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_OUT_OF_BOUNDS);
  g_assert_cmpint (f->space, ==, KS_EMU_SPACE_GLOBAL);
  g_assert_cmpint (f->access, ==, KS_EMU_ACCESS_READ);
  g_assert_cmpuint (f->size, ==, 4);
  g_assert_cmphex (f->address, ==, in_address + n * sizeof (float));
  g_assert_cmpuint (f->thread.x, ==, 127);
  g_assert_cmpuint (f->thread.y, ==, 0);
  g_assert_cmpuint (f->block.x, ==, 1);
  g_assert_cmpstr (f->file, ==, "bugs.cu");
  g_assert_cmpuint (f->line, ==, 6);
  g_assert_cmpstr (f->function, ==, "oob");
  g_assert_cmpstr (ks_emu_finding_kind_name (f->kind), ==, "out-of-bounds");
  g_assert_nonnull (strstr (f->message, "Invalid __global__ read of size 4 bytes"));
  g_assert_nonnull (strstr (f->message, "at bugs.cu:6 in oob"));
  g_assert_nonnull (strstr (f->message, "by thread (127,0,0) in block (1,0,0)"));
  g_assert_nonnull (strstr (f->message, "is 0 bytes after the nearest allocation “in”"));
  /* The read gave 0 and the others read what they should. */
  g_assert_cmpfloat (out[n - 1], ==, 0.f);
  for (gint i = 0; i < n - 1; i++)
    emu_assert_same_float (in[i + 1], out[i], (gsize) i);
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_misaligned (void)
{
  g_auto(EmuProgram) p = { 0 };
  guint8 buf[64];
  guint8 untouched[64];
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  memset (buf, EMU_POISON, sizeof buf);
  memcpy (untouched, buf, sizeof buf);
  compile_buggy (&p);
  g_assert_true (run_one (&p, "misaligned", 4, buf, sizeof buf, 2000, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      f = finding_at (&result, i);
      g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_MISALIGNED);
      g_assert_cmpint (f->access, ==, KS_EMU_ACCESS_WRITE);
      g_assert_cmpuint (f->size, ==, 4);
      g_assert_cmpuint (f->thread.x, ==, i);
      g_assert_cmpuint (f->line, ==, 10);
      g_assert_nonnull (strstr (f->message, "is misaligned"));
    }
  /* The writes did not happen. */
  g_assert_cmpmem (buf, sizeof buf, untouched, sizeof untouched);
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_uninitialized (void)
{
  g_auto(EmuProgram) p = { 0 };
  float out[64];
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  compile_buggy (&p);
  g_assert_true (run_one (&p, "uninit", 64, out, sizeof out, 2000, &result, &error));
  g_assert_no_error (error);
  /* 32 threads read unwritten words: once for the instruction. */
  g_assert_cmpuint (result.n_findings, ==, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_UNINITIALIZED);
  g_assert_cmpint (f->space, ==, KS_EMU_SPACE_SHARED);
  g_assert_cmpuint (f->size, ==, 4);
  g_assert_cmpuint (f->line, ==, 17);
  g_assert_cmpuint (f->thread.x, ==, 0);
  g_assert_nonnull (strstr (f->message, "Uninitialized __shared__ memory read of size 4 bytes"));
  for (gint i = 32; i < 64; i++)
    g_assert_cmpfloat (out[i], ==, 1.f);
  ks_emu_result_clear (&result);

  /* Without the shared checks, nothing is found. */
  {
    g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p.module, "uninit", emu_dim3 (1, 1, 1),
                                                       emu_dim3 (64, 1, 1), 0);

    emu_param_buffer (launch, out, sizeof out, "out");
    ks_emu_launch_set_shared_checks (launch, FALSE);
    emu_run_clean (launch, &result);
    ks_emu_result_clear (&result);
  }
  assert_fine_runs (&p);
}

static void
test_shared_race (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 out = -1;
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };

  compile_buggy (&p);
  g_assert_true (run_one (&p, "race", 256, &out, sizeof out, 2000, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, >=, 1);
  for (guint i = 0; i < result.findings->len; i++)
    {
      const KsEmuFinding *f = finding_at (&result, i);

      g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_SHARED_RACE);
      g_assert_cmpuint (f->line, ==, 24);
      g_assert_cmpuint (f->other_line, ==, 24);
      g_assert_true (f->other_thread.x != f->thread.x);
      g_assert_nonnull (strstr (f->message, "Race reported between"));
    }
  /* The count is lost as on the GPU: in lockstep the 32 lanes of a warp all
   * load, then all store, so each of the 8 warps adds one. */
  g_assert_cmpint (out, ==, 256 / 32);
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_divergent_barrier (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 out[32];
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  compile_buggy (&p);
  g_assert_false (run_one (&p, "divergent", 32, out, sizeof out, 2000, &result, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_KERNEL_FAULT);
  g_assert_cmpuint (result.n_findings, ==, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_DIVERGENT_BARRIER);
  g_assert_cmpuint (f->line, ==, 31);
  g_assert_nonnull (strstr (f->message, "Divergent thread(s) in warp"));
  g_assert_nonnull (strstr (error->message, "Divergent"));
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_endless_loop (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 flag = 0;
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  compile_buggy (&p);
  g_assert_false (run_one (&p, "endless", 64, &flag, sizeof flag, 200, &result, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_TIMED_OUT);
  g_assert_cmpuint (result.n_findings, ==, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_TIME_LIMIT);
  g_assert_nonnull (strstr (f->message, "200 ms"));
  g_assert_cmpfloat (result.ms, >=, 200);
  g_assert_cmpfloat (result.ms, <, 1500);
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_wild_pointer (void)
{
  g_auto(EmuProgram) p = { 0 };
  g_autoptr(KsEmuLaunch) launch = NULL;
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  compile_buggy (&p);
  launch = ks_emu_launch_new (p.module, "wild", emu_dim3 (1, 1, 1), emu_dim3 (1, 1, 1), 0);
  emu_param_int (launch, 7);
  g_assert_true (ks_emu_launch_run (launch, NULL, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, ==, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_OUT_OF_BOUNDS);
  g_assert_cmpint (f->access, ==, KS_EMU_ACCESS_WRITE);
  g_assert_cmphex (f->address, ==, 0x1234);
  g_assert_cmpuint (f->line, ==, 41);
  g_assert_nonnull (strstr (f->message, "Address 0x1234 is out of bounds"));
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_stack_overflow (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 buf[8] = { 0 };
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  compile_buggy (&p);
  g_assert_false (run_one (&p, "deep", 32, buf, sizeof buf, 5000, &result, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_KERNEL_FAULT);
  g_assert_cmpuint (result.n_findings, >=, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_STACK);
  g_assert_nonnull (strstr (f->message, "Stack overflow"));
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_assert (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 v[32];
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  for (gint i = 0; i < 32; i++)
    v[i] = i < 5 ? 0 : i; /* threads 5… fail */
  compile_buggy (&p);
  g_assert_false (run_one (&p, "checked", 32, v, sizeof v, 2000, &result, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_KERNEL_FAULT);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_TRAP);
  g_assert_cmpuint (f->thread.x, ==, 5);
  g_assert_nonnull (strstr (f->message, "Assertion `v[threadIdx.x] < 5` failed."));
  g_assert_nonnull (strstr (f->message, "bugs.cu:52"));
  ks_emu_result_clear (&result);
  assert_fine_runs (&p);
}

static void
test_warp_sync (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 out[32];
  g_autoptr(GError) error = NULL;
  KsEmuResult result = { 0 };
  const KsEmuFinding *f;

  compile_buggy (&p);
  g_assert_true (run_one (&p, "shfl_half", 32, out, sizeof out, 2000, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, ==, 1);
  f = finding_at (&result, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_WARP_SYNC);
  g_assert_cmpuint (f->line, ==, 57);
  for (gint i = 0; i < 16; i++)
    g_assert_cmpint (out[i], ==, 0);
  for (gint i = 16; i < 32; i++)
    g_assert_cmpint (out[i], ==, i);
  ks_emu_result_clear (&result);
}

/* Many findings: the first KS_EMU_MAX_FINDINGS kept, all counted, in block
 * order whatever the number of workers. */
static void
test_cap_and_order (void)
{
  g_auto(EmuProgram) p = { 0 };
  const gint n = 64 * 40;
  g_autofree float *in = emu_random_floats (1, -1, 1);
  g_autofree float *out = emu_poisoned (n * sizeof (float));
  g_autoptr(GPtrArray) first = NULL;

  compile_buggy (&p);
  for (guint workers = 1; workers <= 2; workers++)
    {
      g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p.module, "oob", emu_dim3 (40, 1, 1),
                                                         emu_dim3 (64, 1, 1), 0);
      g_autoptr(GError) error = NULL;
      KsEmuResult result = { 0 };

      emu_param_buffer (launch, in, sizeof (float), "in");
      emu_param_buffer (launch, out, n * sizeof (float), "out");
      emu_param_int (launch, n);
      ks_emu_launch_set_threads (launch, workers);
      g_assert_true (ks_emu_launch_run (launch, NULL, &result, &error));
      g_assert_cmpuint (result.n_findings, ==, n);
      g_assert_cmpuint (result.findings->len, ==, KS_EMU_MAX_FINDINGS);
      for (guint i = 0; i < result.findings->len; i++)
        {
          const KsEmuFinding *f = finding_at (&result, i);

          g_assert_cmpuint (f->block.x * 64 + f->thread.x, ==, i);
          if (first != NULL)
            g_assert_cmpstr (f->message, ==, g_ptr_array_index (first, i));
        }
      if (first == NULL)
        {
          first = g_ptr_array_new_with_free_func (g_free);
          for (guint i = 0; i < result.findings->len; i++)
            g_ptr_array_add (first, g_strdup (finding_at (&result, i)->message));
        }
      ks_emu_result_clear (&result);
    }
}

/* ---- what is refused ------------------------------------------------------- */

static void
test_launch_config (void)
{
  g_auto(EmuProgram) p = { 0 };
  gint32 out[64];
  gint64 wrong = 0;
  struct { KsDim3 grid, block; } shapes[] = {
    { { 1, 1, 1 }, { 2048, 1, 1 } },
    { { 1, 1, 1 }, { 32, 32, 2 } },
    { { 0, 1, 1 }, { 32, 1, 1 } },
    { { 1, 70000, 1 }, { 32, 1, 1 } },
  };

  compile_buggy (&p);
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p.module, "fine", shapes[i].grid,
                                                         shapes[i].block, 0);
      g_autoptr(GError) error = NULL;
      KsEmuResult result = { 0 };

      emu_param_buffer (launch, out, sizeof out, "out");
      g_assert_false (ks_emu_launch_run (launch, NULL, &result, &error));
      g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      ks_emu_result_clear (&result);
    }
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p.module, i == 2 ? "nothing" : "fine",
                                                         emu_dim3 (1, 1, 1),
                                                         emu_dim3 (32, 1, 1), 0);
      g_autoptr(GError) error = NULL;
      KsEmuResult result = { 0 };
      gint code = i == 2 ? KS_ERROR_INVALID_ARGUMENT : KS_ERROR_LAUNCH_CONFIG;

      /* No parameter, one of the wrong size, a kernel that is not there. */
      if (i == 1)
        ks_emu_launch_add_param (launch, &wrong, 4);
      g_assert_false (ks_emu_launch_run (launch, NULL, &result, &error));
      g_assert_error (error, KS_ERROR, code);
      ks_emu_result_clear (&result);
    }
  {
    g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (p.module, "fine", emu_dim3 (1, 1, 1),
                                                       emu_dim3 (64, 1, 1), 0);
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    KsEmuResult result = { 0 };

    emu_param_buffer (launch, out, sizeof out, "out");
    g_cancellable_cancel (cancellable);
    g_assert_false (ks_emu_launch_run (launch, cancellable, &result, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    ks_emu_result_clear (&result);
  }
}

static void
test_unsupported_instruction (void)
{
  static const char ptx[] =
    ".version 9.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 p)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  mov.u32 %r1, 1;\n"
    "  frobnicate.b32 %r2, %r1;\n"
    "  ret;\n"
    "}\n";
  g_autoptr(GError) error = NULL;
  KsEmuModule *module = ks_emu_module_new (ptx, &error);

  g_assert_null (module);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "frobnicate.b32"));
  g_assert_nonnull (strstr (error->message, "line 8"));
  g_clear_error (&error);
  g_assert_null (ks_emu_module_new ("int main() { return 0; }", &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ks_emu_module_new ("", &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
}

/* Truncated and garbled PTX: an error or a module, never a crash; a module
 * that comes out of it runs (briefly) without one too. */
static void
try_ptx (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsEmuModule) module = ks_emu_module_new (text, &error);
  gint32 out[64] = { 0 };

  g_assert_true ((module == NULL) == (error != NULL));
  if (module == NULL)
    return;
  for (guint i = 0; i < ks_emu_module_n_entries (module); i++)
    {
      const char *name = ks_emu_module_entry_name (module, i);
      g_autoptr(KsEmuLaunch) launch = ks_emu_launch_new (module, name, emu_dim3 (1, 1, 1),
                                                         emu_dim3 (32, 1, 1), 0);
      gsize sizes[8];
      guint n_params = 0;
      KsEmuResult result = { 0 };
      g_autoptr(GError) run_error = NULL;

      g_assert_true (ks_emu_module_entry_params (module, name, &n_params, sizes, NULL, 8));
      for (guint k = 0; k < n_params && k < 8; k++)
        {
          guint64 zeros[8] = { 0 };

          if (sizes[k] == 8)
            emu_param_buffer (launch, out, sizeof out, "out");
          else
            ks_emu_launch_add_param (launch, zeros, MIN (sizes[k], sizeof zeros));
        }
      ks_emu_launch_set_time_limit (launch, 50);
      ks_emu_launch_run (launch, NULL, &result, &run_error);
      ks_emu_result_clear (&result);
    }
}

static void
test_fuzz_ptx (void)
{
  KsCompileRequest request = {
    .source = buggy_source,
    .program_name = "bugs.cu",
    .arch = 90,
    .entries = buggy_entries,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsCompileResult) compiled = ks_nvrtc_compile (&request, &error);
  gsize len;

  g_assert_no_error (error);
  g_assert_true (compiled->success);
  len = strlen (compiled->ptx);
  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *cut = g_strndup (compiled->ptx, len * i / 150);

      try_ptx (cut);
    }
  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *garbled = g_strdup (compiled->ptx);
      guint flips = (guint) g_test_rand_int_range (1, 6);

      for (guint k = 0; k < flips; k++)
        {
          gsize at = (gsize) g_test_rand_int_range (0, (gint32) len);
          static const char junk[] = "{}[]();,.%@!|-+0123456789abcxyz_$ \n";

          garbled[at] = junk[g_test_rand_int_range (0, sizeof junk - 1)];
        }
      try_ptx (garbled);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!emu_have_nvrtc ())
    return KS_TEST_SKIPPED;
  g_test_add_func ("/ks/emu/findings/out-of-bounds", test_out_of_bounds);
  g_test_add_func ("/ks/emu/findings/misaligned", test_misaligned);
  g_test_add_func ("/ks/emu/findings/uninitialized", test_uninitialized);
  g_test_add_func ("/ks/emu/findings/shared-race", test_shared_race);
  g_test_add_func ("/ks/emu/findings/divergent-barrier", test_divergent_barrier);
  g_test_add_func ("/ks/emu/findings/endless-loop", test_endless_loop);
  g_test_add_func ("/ks/emu/findings/wild-pointer", test_wild_pointer);
  g_test_add_func ("/ks/emu/findings/stack-overflow", test_stack_overflow);
  g_test_add_func ("/ks/emu/findings/assert", test_assert);
  g_test_add_func ("/ks/emu/findings/warp-sync", test_warp_sync);
  g_test_add_func ("/ks/emu/findings/cap-and-order", test_cap_and_order);
  g_test_add_func ("/ks/emu/refused/launch-config", test_launch_config);
  g_test_add_func ("/ks/emu/refused/unsupported-instruction", test_unsupported_instruction);
  g_test_add_func ("/ks/emu/refused/fuzz", test_fuzz_ptx);
  return g_test_run ();
}
