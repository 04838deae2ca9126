/* test-worker.c: the kernel worker process without a GPU: it starts and
 * answers, compiles (good and broken sources, cached), survives a missing
 * NVRTC, is restarted after being killed, refuses runs without a GPU with
 * the plain reason, exits on a malformed message, and the compile watchdog
 * stops it; an array kernel's launch the device refuses is refused before
 * any GPU is needed. The compile tests skip where NVRTC cannot be loaded. */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "ks-array-run.h"
#include "ks-test-helpers.h"
#include "ks-worker-private.h"

static const char good_source[] =
  "__global__ void add (float *out, const float *a, const float *b, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    out[i] = a[i] + b[i];\n"
  "}\n";

/* The error is on line 4: an undeclared name. */
static const char broken_source[] =
  "__global__ void scale (float *out, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) out[i] = out[i] * gain_that_does_not_exist;\n"
  "}\n";

static KsCompileResult *
compile_text (KsWorker *worker, const char *file, const char *text, GError **error)
{
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, file, text);
  KsLaunchConfig launch;

  KsCompileResult *result;

  ks_kernel_source_get_default_launch (source, &launch);
  result = ks_worker_compile (worker, source, &launch, FALSE, NULL, error);
  for (guint i = 0; result != NULL && i < result->diagnostics->len; i++)
    {
      g_autofree char *line = ks_diagnostic_format (g_ptr_array_index (result->diagnostics, i));

      g_test_message ("%s", line);
    }
  return result;
}

/* How long a worker may take to end: a safety net against a hang, not a
 * timing (a loaded machine reaps slowly). */
#define PATIENCE_MS 60000

/* Until the process is gone and reaped (the test's own clock, not the worker's). */
static gboolean
wait_not_running (KsWorker *worker, guint ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) ms * 1000;

  while (ks_worker_is_running (worker) && g_get_monotonic_time () < deadline)
    g_usleep (5000);
  return !ks_worker_is_running (worker);
}

static void
test_start_stop (void)
{
  g_autoptr (KsWorker) worker = ks_worker_new (0);
  g_autoptr (GError) error = NULL;
  double ms = -1;
  GPid pid;

  g_assert_false (ks_worker_is_running (worker));
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 0);
  g_assert_true (ks_worker_start (worker, &ms, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, >, 0);
  g_test_message ("the worker answered %.1f ms after it was started", ms);
  g_assert_true (ks_worker_is_running (worker));
  pid = _ks_worker_get_pid (worker);
  g_assert_cmpint (pid, >, 0);
  g_assert_cmpint (pid, !=, getpid ());

  /* Running already: nothing is started again. */
  g_assert_true (ks_worker_start (worker, &ms, &error));
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 1);
  g_assert_cmpint (_ks_worker_get_pid (worker), ==, pid);

  ks_worker_stop (worker);
  g_assert_false (ks_worker_is_running (worker));
  g_assert_cmpint (_ks_worker_get_pid (worker), ==, 0);
  /* The process is gone for the system too, not only for the object. */
  g_assert_cmpint (kill (pid, 0), !=, 0);
}

static void
test_missing_program (void)
{
  g_autofree char *saved = g_strdup (g_getenv ("KS_WORKER_PATH"));
  g_autoptr (KsWorker) worker = ks_worker_new (0);
  g_autoptr (GError) error = NULL;

  g_setenv ("KS_WORKER_PATH", "/nonexistent/kernelscope-worker", TRUE);
  g_assert_false (ks_worker_start (worker, NULL, &error));
  if (saved != NULL)
    g_setenv ("KS_WORKER_PATH", saved, TRUE);
  else
    g_unsetenv ("KS_WORKER_PATH");
  g_assert_error (error, KS_ERROR, KS_ERROR_WORKER);
  ks_test_assert_message_has (error, "/nonexistent/kernelscope-worker", "KS_WORKER_PATH", NULL);
  g_assert_false (ks_worker_is_running (worker));
}

static void
test_compile (void)
{
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsCompileResult) good = NULL;
  g_autoptr (KsCompileResult) again = NULL;
  g_autoptr (KsCompileResult) broken = NULL;
  const KsKernelResources *resources;
  KsKernelAttributes attrs;
  gboolean found = FALSE;

  if (!ks_test_have_nvrtc ())
    return;

  good = compile_text (worker, "add.cu", good_source, &error);
  g_assert_no_error (error);
  g_assert_nonnull (good);
  g_assert_true (good->success);
  g_assert_false (good->cached);
  g_assert_nonnull (good->cubin);
  g_assert_cmpuint (g_bytes_get_size (good->cubin), >, 0);
  g_assert_cmpuint (good->kernels->len, ==, 1);
  resources = g_ptr_array_index (good->kernels, 0);
  g_assert_nonnull (resources->lowered_name);
  g_assert_nonnull (strstr (resources->lowered_name, "add"));
  g_assert_cmpuint (resources->arch, ==, KS_WORKER_DEFAULT_ARCH);
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 1);

  /* Unchanged: from the client's cache, equal, and the worker is not asked. */
  again = compile_text (worker, "add.cu", good_source, &error);
  g_assert_no_error (error);
  g_assert_true (again->cached);
  g_assert_true (g_bytes_equal (good->cubin, again->cubin));
  /* The PTX, which the CPU engine runs, comes back from the worker with the
   * entry and the source's lines in it. */
  g_assert_nonnull (good->ptx);
  g_assert_nonnull (strstr (good->ptx, ".entry"));
  g_assert_nonnull (strstr (good->ptx, resources->lowered_name));
  g_assert_nonnull (strstr (good->ptx, ".loc"));
  g_assert_cmpstr (again->ptx, ==, good->ptx);
  g_assert_cmpstr (((KsKernelResources *) g_ptr_array_index (again->kernels, 0))->lowered_name,
                   ==, resources->lowered_name);

  /* Without a GPU the attributes are the compiler's. */
  g_assert_true (ks_worker_kernel_attributes (worker, good, 0, 256, &attrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (attrs.num_regs, ==, resources->num_regs);
  g_assert_cmpuint (attrs.shared_dynamic, ==, 256);
  g_assert_cmpuint (attrs.max_threads_per_block, >, 0);

  broken = compile_text (worker, "broken.cu", broken_source, &error);
  g_assert_no_error (error);
  g_assert_false (broken->success);
  g_assert_null (broken->cubin);
  g_assert_cmpuint (ks_compile_result_count (broken, KS_DIAGNOSTIC_ERROR), >, 0);
  for (guint i = 0; i < broken->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (broken->diagnostics, i);

      if (d->severity != KS_DIAGNOSTIC_ERROR)
        continue;
      g_test_message ("%s:%u: %s", d->file, d->line, d->message);
      if (d->line == 4 && g_strcmp0 (d->file, "broken.cu") == 0
          && strstr (d->message, "gain_that_does_not_exist") != NULL)
        found = TRUE;
    }
  g_assert_true (found);
  /* One process served all of it. */
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 1);
}

static void
test_nvrtc_missing (void)
{
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsCompileResult) result = NULL;

  _ks_worker_set_env (worker, "KS_NVRTC_LIBRARY", "/nonexistent/libnvrtc-missing.so.13");
  result = compile_text (worker, "add.cu", good_source, &error);
  g_assert_null (result);
  g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
  g_test_message ("%s", error->message);
  ks_test_assert_message_has (error, "NVRTC", "/nonexistent/libnvrtc-missing.so.13", NULL);
  /* A clear answer, not a crash: the same process is still there. */
  g_assert_true (ks_worker_is_running (worker));
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 1);
}

static void
test_killed_restarts (void)
{
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  GPid first, second;

  if (!ks_test_have_nvrtc ())
    return;
  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);
  first = _ks_worker_get_pid (worker);
  g_assert_cmpint (first, >, 0);

  g_assert_cmpint (kill (first, SIGKILL), ==, 0);
  g_assert_true (wait_not_running (worker, PATIENCE_MS));

  result = compile_text (worker, "restart.cu", good_source, &error);
  g_assert_no_error (error);
  g_assert_true (result->success);
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 2);
  second = _ks_worker_get_pid (worker);
  g_assert_cmpint (second, >, 0);
  g_assert_cmpint (second, !=, first);
}

/* A result as the compiler would give it, but without PTX, so that runs can
 * be asked for without NVRTC; the worker refuses them before it reads the
 * code. */
static KsCompileResult *
fake_compiled (void)
{
  KsCompileResult *r = g_new0 (KsCompileResult, 1);
  KsKernelResources *k = g_new0 (KsKernelResources, 1);

  r->success = TRUE;
  r->cubin = g_bytes_new_static ("not a cubin", 11);
  r->log = g_strdup ("");
  r->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  r->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_resources_free);
  k->name = g_strdup ("add");
  k->lowered_name = g_strdup ("_Z3addPfPKfS1_i");
  k->arch = 90;
  k->num_regs = 12;
  k->max_threads_per_block = 1024;
  g_ptr_array_add (r->kernels, k);
  return r;
}

/* out[i] = a[i] + b[i] for n = 40 elements, launched as 2 blocks of 32: on a
 * worker without a GPU the CPU engine runs it. With `short_out` the output
 * array has only 32 elements, so threads 32..39 write past it. */
static gboolean
run_add (KsWorker *worker, const KsCompileResult *compiled, gboolean short_out,
         KsWorkerRunResult *result, GError **error)
{
  g_autoptr (KsWorkerLaunch) launch = NULL;
  g_autoptr (KsArray) out = ks_array_new (KS_ELEM_FLOAT32, short_out ? 32 : 40, NULL);
  g_autoptr (KsArray) a = ks_array_new (KS_ELEM_FLOAT32, 40, NULL);
  g_autoptr (KsArray) b = ks_array_new (KS_ELEM_FLOAT32, 40, NULL);
  KsDim3 grid = { 2, 1, 1 }, block = { 32, 1, 1 };
  gint32 n = 40;

  for (guint i = 0; i < 40; i++)
    {
      ((float *) a->data)[i] = (float) i;
      ((float *) b->data)[i] = 0.5f * (float) i;
    }
  launch = ks_worker_launch_new (compiled, 0, grid, block, 0);
  ks_worker_launch_add_array (launch, out, KS_ARRAY_OUT);
  ks_worker_launch_add_array (launch, a, KS_ARRAY_IN);
  ks_worker_launch_add_array (launch, b, KS_ARRAY_IN);
  ks_worker_launch_add_value (launch, &n, sizeof n, sizeof n);
  return ks_worker_run (worker, launch, NULL, result, error);
}

static void
test_run_on_cpu (void)
{
  g_autoptr (KsCompileResult) fake = fake_compiled ();
  g_autoptr (KsCompileResult) compiled = NULL;
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GError) error = NULL;
  KsWorkerRunResult result = { 0 };
  const KsEmuFinding *f;
  const KsArray *out;

  /* Code without PTX cannot run on the CPU engine: said plainly. */
  g_assert_false (run_add (worker, fake, FALSE, &result, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
  ks_test_assert_message_has (error, "no PTX", "CPU engine", NULL);
  g_assert_null (result.arrays);
  g_clear_error (&error);

  if (!ks_test_have_nvrtc ())
    return;
  compiled = compile_text (worker, "add.cu", good_source, &error);
  g_assert_no_error (error);
  g_assert_true (compiled->success);
  g_assert_nonnull (compiled->ptx);

  g_assert_true (run_add (worker, compiled, FALSE, &result, &error));
  g_assert_no_error (error);
  g_assert_true (result.emulated);
  g_assert_cmpuint (result.n_findings, ==, 0);
  g_assert_cmpuint (result.lane_instructions, >, 0);
  g_assert_cmpuint (result.arrays->len, ==, 1);
  out = g_ptr_array_index (result.arrays, 0);
  for (guint i = 0; i < 40; i++)
    g_assert_cmpfloat (((const float *) out->data)[i], ==, 1.5f * (float) i);
  ks_worker_run_result_clear (&result);

  /* Eight threads write past a 32-element output: each write is reported
   * with its thread and block, nothing outside the array is touched, and
   * the 32 elements that exist are right. */
  g_assert_true (run_add (worker, compiled, TRUE, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, ==, 8);
  f = g_ptr_array_index (result.findings, 0);
  g_assert_cmpint (f->kind, ==, KS_EMU_FINDING_OUT_OF_BOUNDS);
  g_assert_cmpint (f->access, ==, KS_EMU_ACCESS_WRITE);
  g_assert_cmpuint (f->size, ==, 4);
  g_assert_cmpuint (f->block.x, ==, 1);
  g_assert_cmpuint (f->thread.x, ==, 0);
  g_assert_cmpuint (f->line, ==, 5);
  g_assert_nonnull (strstr (f->message, "Invalid __global__ write of size 4 bytes"));
  out = g_ptr_array_index (result.arrays, 0);
  for (guint i = 0; i < 32; i++)
    g_assert_cmpfloat (((const float *) out->data)[i], ==, 1.5f * (float) i);
  ks_worker_run_result_clear (&result);

  /* And the next run is clean again. */
  g_assert_true (run_add (worker, compiled, FALSE, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.n_findings, ==, 0);
  ks_worker_run_result_clear (&result);

  /* Attributes come from the compiled kernel, GPU or not. */
  {
    KsKernelAttributes attrs;

    g_assert_true (ks_worker_kernel_attributes (worker, fake, 0, 1024, &attrs, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (attrs.num_regs, ==, 12);
    g_assert_cmpuint (attrs.max_threads_per_block, ==, 1024);
    g_assert_cmpuint (attrs.shared_dynamic, ==, 1024);
    g_assert_false (ks_worker_kernel_attributes (worker, fake, 1, 0, &attrs, &error));
    g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  }
}

/* A block of 2048 threads exceeds every device's 1024: the array-run
 * service refuses it with the device's limit and a fix, on a compile-only
 * worker, where a launch that fits goes on to run on the CPU engine. */
static void
test_array_run_refuses_launch (void)
{
  const char *texts[] = { "out=f32[5000]:zeros:out", "a=f32[5000]:range", "b=f32[5000]:range",
                          "n=5000" };
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autoptr (KsKernelSource) source =
    ks_kernel_source_new (KS_KERNEL_MODE_ANY, "add.cu", good_source);
  g_autoptr (GPtrArray) bindings =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (GError) error = NULL;
  KsArrayRunRequest request;
  KsArrayRunResult result = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      KsBinding *b = ks_binding_parse (texts[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (bindings, b);
    }
  ks_array_run_request_init (&request, source);
  request.bindings = bindings;
  request.launch.block = (KsDim3) { 2048, 1, 1 };
  request.launch.auto_grid = TRUE;
  g_assert_false (ks_array_kernel_run (worker, ks_device_get_limits (cpu), &request, &result,
                                       NULL, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (error, "A block of 2048×1 has 2048 threads in x",
                              "this device allows at most 1024 in x", "Try a block of", NULL);
  /* Resolved for the arrays: one thread per element. */
  g_assert_cmpuint (result.launch.grid.x, ==, 3);
  g_assert_nonnull (result.compiled);
  g_assert_true (result.compiled->success);
  g_assert_null (result.run.arrays);
  ks_array_run_result_clear (&result);
  g_clear_error (&error);

  request.launch.block = (KsDim3) { 256, 1, 1 };
  g_assert_true (ks_array_kernel_run (worker, ks_device_get_limits (cpu), &request, &result,
                                      NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (result.launch.grid.x, ==, 20);
  /* A launch that fits runs on the CPU engine: out = range + range. */
  g_assert_true (result.run.emulated);
  g_assert_cmpuint (result.run.n_findings, ==, 0);
  {
    const KsArray *out = g_ptr_array_index (result.run.arrays, 0);

    g_assert_cmpuint (out->length, ==, 5000);
    for (guint i = 0; i < 5000; i++)
      g_assert_cmpfloat (((const float *) out->data)[i], ==, 2.0f * (float) i);
  }
  ks_array_run_result_clear (&result);
}

static void
assert_bad_bytes_end_worker (const void *data, gsize size)
{
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (_ks_worker_send_raw (worker, data, size, &error));
  g_assert_no_error (error);
  /* It exits by itself with its protocol status: no signal, no crash. */
  g_assert_true (_ks_worker_wait_exit (worker, PATIENCE_MS, &status));
  g_assert_cmpint (status, ==, KS_WORKER_EXIT_PROTOCOL);

  /* And the next request gets a new one. */
  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 2);
}

static void
test_bad_message (void)
{
  /* A length in range over bytes that are no (sa{sv}) in normal form. */
  guint8 junk[4 + 24];
  guint32 length = GUINT32_TO_LE (24);
  /* A length past the limit ("this" read as a number). */
  static const char text[] = "this is not a message";
  /* Well formed, but a request nobody knows. */
  g_autoptr (GVariant) unknown = _ks_worker_message_new ("format-the-disk", NULL);
  gsize unknown_size = g_variant_get_size (unknown);
  g_autofree guint8 *unknown_bytes = g_malloc (4 + unknown_size);
  guint32 unknown_length = GUINT32_TO_LE ((guint32) unknown_size);

  memcpy (junk, &length, 4);
  memset (junk + 4, 0xff, 24);
  assert_bad_bytes_end_worker (junk, sizeof junk);
  assert_bad_bytes_end_worker (text, sizeof text - 1);

  memcpy (unknown_bytes, &unknown_length, 4);
  memcpy (unknown_bytes + 4, g_variant_get_data (unknown), unknown_size);
  assert_bad_bytes_end_worker (unknown_bytes, 4 + unknown_size);
}

/* Unrolled transcendental work that takes NVRTC far longer than the limit. */
static const char heavy_source[] =
  "__global__ void heavy (float *out, int n)\n"
  "{\n"
  "  float x = threadIdx.x;\n"
  "#pragma unroll\n"
  "  for (int i = 0; i < 4000; i++)\n"
  "    x = sinf (x) * cosf (x + i) + expf (-x * i);\n"
  "  out[threadIdx.x] = x;\n"
  "}\n";

static void
test_compile_watchdog (void)
{
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsCompileResult) heavy = NULL;
  g_autoptr (KsCompileResult) good = NULL;
  gint64 t0;

  if (!ks_test_have_nvrtc ())
    return;
  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);

  ks_worker_set_compile_timeout_ms (worker, 5);
  t0 = g_get_monotonic_time ();
  heavy = compile_text (worker, "heavy.cu", heavy_source, &error);
  g_assert_null (heavy);
  g_assert_error (error, KS_ERROR, KS_ERROR_TIMED_OUT);
  g_test_message ("%s (after %.0f ms)", error->message, (g_get_monotonic_time () - t0) / 1e3);
  ks_test_assert_message_has (error, "5 ms", "time limit", NULL);
  g_assert_false (ks_worker_is_running (worker));
  g_clear_error (&error);

  ks_worker_set_compile_timeout_ms (worker, KS_WORKER_DEFAULT_COMPILE_TIMEOUT_MS);
  good = compile_text (worker, "after.cu", good_source, &error);
  g_assert_no_error (error);
  g_assert_true (good->success);
  g_assert_cmpuint (ks_worker_get_starts (worker), ==, 2);
}

static void
test_cancelled (void)
{
  g_autoptr (KsWorker) worker = ks_worker_new (-1);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "cancel.cu",
                                                            good_source);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  KsLaunchConfig launch;

  g_assert_true (ks_worker_start (worker, NULL, &error));
  g_assert_no_error (error);
  ks_kernel_source_get_default_launch (source, &launch);
  g_cancellable_cancel (cancellable);
  result = ks_worker_compile (worker, source, &launch, FALSE, cancellable, &error);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* Whatever it was doing is stopped with it. */
  g_assert_false (ks_worker_is_running (worker));
}

static void
test_result_round_trip (void)
{
  g_autoptr (KsCompileResult) r = fake_compiled ();
  g_autoptr (GVariant) v = NULL;
  g_autoptr (KsCompileResult) back = NULL;
  g_autoptr (GError) error = NULL;
  KsDiagnostic *d = ks_diagnostic_new (KS_DIAGNOSTIC_WARNING, "k.cu", 7, 3, "unused \"x\"");
  const KsDiagnostic *bd;
  const KsKernelResources *bk;

  d->code = g_strdup ("177-D");
  g_ptr_array_add (r->diagnostics, d);
  g_ptr_array_add (r->diagnostics, ks_diagnostic_new (KS_DIAGNOSTIC_NOTE, NULL, 0, 0, "no file"));
  r->compile_ms = 12.5;
  v = g_variant_ref_sink (_ks_compile_result_to_variant (r));
  back = _ks_compile_result_from_variant (v, &error);
  g_assert_no_error (error);
  g_assert_true (back->success);
  g_assert_true (g_bytes_equal (back->cubin, r->cubin));
  g_assert_cmpfloat (back->compile_ms, ==, 12.5);
  g_assert_cmpuint (back->diagnostics->len, ==, 2);
  bd = g_ptr_array_index (back->diagnostics, 0);
  g_assert_cmpint (bd->severity, ==, KS_DIAGNOSTIC_WARNING);
  g_assert_cmpstr (bd->file, ==, "k.cu");
  g_assert_cmpuint (bd->line, ==, 7);
  g_assert_cmpuint (bd->column, ==, 3);
  g_assert_cmpstr (bd->code, ==, "177-D");
  g_assert_cmpstr (bd->message, ==, "unused \"x\"");
  bd = g_ptr_array_index (back->diagnostics, 1);
  g_assert_null (bd->file);
  g_assert_null (bd->code);
  bk = g_ptr_array_index (back->kernels, 0);
  g_assert_cmpstr (bk->lowered_name, ==, "_Z3addPfPKfS1_i");
  g_assert_cmpuint (bk->num_regs, ==, 12);
  g_assert_cmpuint (bk->max_threads_per_block, ==, 1024);
}

static void
test_describe_fault (void)
{
  g_assert_nonnull (strstr (ks_worker_describe_fault (700), "address outside any allocation"));
  g_assert_nonnull (strstr (ks_worker_describe_fault (716), "not aligned"));
  g_assert_nonnull (strstr (ks_worker_describe_fault (710), "assert"));
  g_assert_nonnull (strstr (ks_worker_describe_fault (719), "__trap()"));
  g_assert_cmpstr (ks_worker_describe_fault (700), !=, ks_worker_describe_fault (716));
  g_assert_nonnull (ks_worker_describe_fault (12345));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ks/worker/start-stop", test_start_stop);
  g_test_add_func ("/ks/worker/missing-program", test_missing_program);
  g_test_add_func ("/ks/worker/compile/good-broken-cached", test_compile);
  g_test_add_func ("/ks/worker/compile/nvrtc-missing", test_nvrtc_missing);
  g_test_add_func ("/ks/worker/compile/watchdog", test_compile_watchdog);
  g_test_add_func ("/ks/worker/compile/cancelled", test_cancelled);
  g_test_add_func ("/ks/worker/killed-restarts", test_killed_restarts);
  g_test_add_func ("/ks/worker/run/on-cpu", test_run_on_cpu);
  g_test_add_func ("/ks/worker/array-run/refuses-launch", test_array_run_refuses_launch);
  g_test_add_func ("/ks/worker/protocol/bad-message-ends-worker", test_bad_message);
  g_test_add_func ("/ks/worker/protocol/compile-result-round-trip", test_result_round_trip);
  g_test_add_func ("/ks/worker/describe-fault", test_describe_fault);
  return g_test_run ();
}
