/* test-cuda-array-runs.c: runs of "any" kernels beyond one launch, through
 * the worker on the GPU — sequences of launches on their own output (Game
 * of Life, 100 steps, ping-pong buffers swapped between launches, against a
 * C reference cell for cell), __constant__ and __device__ variables set
 * before a run and read back after it, dynamic shared memory given with the
 * request — and the clear refusals of what cannot run.
 *
 * Built as test-array-runs-cpu (KS_TEST_ARRAY_RUNS_ON_CPU), the same runs go
 * through a worker without a device, the CPU engine's emulator, with the
 * CPU engine's limits: no GPU needed, NVRTC only.
 *
 * Without a usable GPU (or, on the CPU engine, NVRTC) it prints a TAP plan
 * of 0 and exits 77. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array-run.h"
#include "ks-test-helpers.h"

static KsWorker *worker;
static KsDevice *device;

/* The out and inout arrays and the variables of one run, by name. */
typedef struct
{
  KsArrayRunResult result;
  GError *error;
} Run;

static void
run_clear (Run *r)
{
  ks_array_run_result_clear (&r->result);
  g_clear_error (&r->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Arguments' bindings, or with globals the module variables' (names may be
 * qualified). */
static GPtrArray *
parse_texts (const char *const *texts, gboolean globals)
{
  GPtrArray *bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);

  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      KsBinding *b = globals ? ks_binding_parse_global (texts[i], &error)
                             : ks_binding_parse (texts[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (bindings, b);
    }
  return bindings;
}

/* Runs source with its bindings as the request (filled by the caller)
 * asks; TRUE when it ran. */
static gboolean
run_kernel (Run *r, const char *source_text, const char *const *bindings,
            KsArrayRunRequest *request_in, guint block)
{
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "runs.cu",
                                                            source_text);
  g_autoptr (GPtrArray) parsed = parse_texts (bindings, FALSE);
  KsArrayRunRequest request;
  gboolean ok;

  g_assert_false (ks_kernel_source_has_errors (source));
  if (request_in != NULL)
    request = *request_in;
  else
    memset (&request, 0, sizeof request);
  {
    KsArrayRunRequest defaults;

    ks_array_run_request_init (&defaults, source);
    request.source = source;
    request.launch = defaults.launch;
    if (request.repeats == 0)
      request.repeats = 1;
  }
  request.bindings = parsed;
  request.launch.block = (KsDim3) { block, 1, 1 };
  request.launch.auto_grid = TRUE;
  ok = ks_array_kernel_run (worker, ks_device_get_limits (device), &request, &r->result, NULL,
                            &r->error);
  if (r->error != NULL)
    g_test_message ("%s", r->error->message);
  return ok;
}

static const KsArray *
out_array (const Run *r, const char *name)
{
  for (guint i = 0; r->result.out_names != NULL && i < r->result.out_names->len; i++)
    if (g_str_equal (g_ptr_array_index (r->result.out_names, i), name))
      return g_ptr_array_index (r->result.run.arrays, i);
  g_error ("no out array “%s”", name);
  return NULL;
}

static const KsArray *
global_array (const Run *r, const char *name)
{
  for (guint i = 0; r->result.global_names != NULL && i < r->result.global_names->len; i++)
    if (g_str_equal (g_ptr_array_index (r->result.global_names, i), name))
      return g_ptr_array_index (r->result.run.globals, i);
  g_error ("no variable “%s” read back", name);
  return NULL;
}

/* ---- Game of Life, 100 steps ------------------------------------------------ */

static const char life_source[] =
  "// One step of Conway's Game of Life on a w×h torus, a thread a cell.\n"
  "__global__ void life (const unsigned char *in, unsigned char *out, int w, int h)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= w * h)\n"
  "    return;\n"
  "  int x = i % w, y = i / w, n = 0;\n"
  "  for (int dy = -1; dy <= 1; dy++)\n"
  "    for (int dx = -1; dx <= 1; dx++)\n"
  "      if (dx != 0 || dy != 0)\n"
  "        n += in[((y + dy + h) % h) * w + (x + dx + w) % w];\n"
  "  out[i] = (n == 3 || (in[i] && n == 2)) ? 1 : 0;\n"
  "}\n";

/* A random board, a glider and a blinker on a 37×23 torus (odd sizes, and
 * more cells than one block), 100 steps and 7: the reported `out` is the
 * board after the last step whichever buffer holds it; the poison the out
 * buffer starts with (7) is gone everywhere. */
static void
test_life (void)
{
  const guint w = 37, h = 23;
  const guint steps[] = { 100, 7 };
  guint32 seed = ks_test_next_seed ("life board");
  g_autofree guint8 *start = g_malloc0 (w * h);
  g_autofree char *dir = g_dir_make_tmp ("ks-test-array-runs-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "board.csv", NULL);
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GError) error = NULL;

  if (!ks_test_have_nvrtc ())
    return;
  /* A soup still alive after the longest run by the C reference, so that
   * the comparison says something: one that dies out is drawn again. */
  for (guint attempt = 0, alive = 0; alive == 0; attempt++)
    {
      g_autofree guint8 *probe = NULL;

      g_assert_cmpuint (attempt, <, 100);
      for (guint i = 0; i < w * h; i++)
        start[i] = g_rand_int_range (rand, 0, 4) == 0;
      /* A glider in the corner, crossing the torus' edges, and a blinker. */
      memset (start, 0, w * 5);
      start[0 * w + 1] = start[1 * w + 2] = start[2 * w + 0] = start[2 * w + 1]
        = start[2 * w + 2] = 1;
      start[3 * w + 20] = start[3 * w + 21] = start[3 * w + 22] = 1;
      probe = g_memdup2 (start, w * h);
      ks_test_life_steps (probe, w, h, steps[0]);
      for (guint i = 0; i < w * h; i++)
        alive += probe[i];
    }
  for (guint i = 0; i < w * h; i++)
    g_string_append_printf (csv, "%u%s", start[i], i + 1 < w * h ? "," : "\n");
  g_assert_true (g_file_set_contents (path, csv->str, -1, &error));
  g_assert_no_error (error);

  for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
    {
      g_autofree char *in_text = g_strdup_printf ("in=u8[%u]:file(%s)", w * h, path);
      g_autofree char *out_text = g_strdup_printf ("out=u8[%u]:const(7)", w * h);
      g_autofree char *w_text = g_strdup_printf ("w=%u", w);
      g_autofree char *h_text = g_strdup_printf ("h=%u", h);
      const char *bindings[] = { in_text, out_text, w_text, h_text, NULL };
      const char *swaps[] = { "in", "out", NULL };
      g_autofree guint8 *ref = g_memdup2 (start, w * h);
      g_auto (Run) r = { 0 };
      KsArrayRunRequest request = { 0 };
      const KsArray *out;
      guint differ = 0, alive = 0;

      request.launches = steps[s];
      request.swaps = swaps;
      g_assert_true (run_kernel (&r, life_source, bindings, &request, 128));
      ks_test_life_steps (ref, w, h, steps[s]);
      out = out_array (&r, "out");
      g_assert_cmpuint (out->length, ==, w * h);
      for (guint i = 0; i < w * h; i++)
        {
          differ += out->data[i] != ref[i];
          alive += ref[i];
        }
      g_assert_cmpuint (differ, ==, 0);
      /* Not a board that died out: the cells say something. */
      g_assert_cmpuint (alive, >, 0);
      g_assert_cmpuint (r.result.run.n_findings, ==, 0);
      /* Every launch timed, the median between the extremes. */
      g_assert_nonnull (r.result.run.launch_ms);
      g_assert_cmpuint (r.result.run.launch_ms->len, ==, steps[s]);
      g_assert_cmpuint (r.result.run.launches_run, ==, steps[s]);
      g_assert_cmpfloat (r.result.run.kernel_min_ms, <=, r.result.run.kernel_ms);
      g_assert_cmpfloat (r.result.run.kernel_ms, <=, r.result.run.kernel_max_ms);
      for (guint i = 0; i < steps[s]; i++)
        g_assert_cmpfloat (g_array_index (r.result.run.launch_ms, double, i), >=, 0);
    }
  ks_test_remove_tree (dir);
}

/* Two inout arrays swapped: each name reports what the last launch bound to
 * it, `next` the last step's output (start + N) and `cur` the one before
 * (start + N - 1), for an odd and an even number of launches. */
static void
test_swap_rule (void)
{
  static const char step_source[] =
    "__global__ void step (int *cur, int *next, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    next[i] = cur[i] + 1;\n"
    "}\n";
  const char *bindings[] = { "cur=i32[300]:range", "next=i32[300]:const(-99)", "n=300", NULL };
  const char *swaps[] = { "next", "cur", NULL };

  if (!ks_test_have_nvrtc ())
    return;
  for (guint launches = 5; launches <= 6; launches++)
    {
      g_auto (Run) r = { 0 };
      KsArrayRunRequest request = { 0 };
      const KsArray *cur, *next;

      request.launches = launches;
      request.swaps = swaps;
      g_assert_true (run_kernel (&r, step_source, bindings, &request, 64));
      cur = out_array (&r, "cur");
      next = out_array (&r, "next");
      for (guint i = 0; i < 300; i++)
        {
          g_assert_cmpint (((const gint32 *) next->data)[i], ==, (gint32) (i + launches));
          g_assert_cmpint (((const gint32 *) cur->data)[i], ==, (gint32) (i + launches - 1));
        }
    }
}

/* ---- sequences on their own output ------------------------------------------ */

static const char inc_source[] =
  "__global__ void inc (int *a, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    a[i] += 1;\n"
  "}\n";

/* Ten launches add ten; ten repeats time one launch from the same input
 * and add one. */
static void
test_add_one_ten_times (void)
{
  const char *bindings[] = { "a=i32[1000]:range", "n=1000", NULL };
  g_auto (Run) seq = { 0 };
  g_auto (Run) rep = { 0 };
  KsArrayRunRequest request = { 0 };
  const KsArray *a;

  if (!ks_test_have_nvrtc ())
    return;
  request.launches = 10;
  g_assert_true (run_kernel (&seq, inc_source, bindings, &request, 128));
  a = out_array (&seq, "a");
  for (guint i = 0; i < 1000; i++)
    g_assert_cmpint (((const gint32 *) a->data)[i], ==, (gint32) i + 10);
  g_assert_cmpuint (seq.result.run.launch_ms->len, ==, 10);

  memset (&request, 0, sizeof request);
  request.repeats = 10;
  g_assert_true (run_kernel (&rep, inc_source, bindings, &request, 128));
  a = out_array (&rep, "a");
  for (guint i = 0; i < 1000; i++)
    g_assert_cmpint (((const gint32 *) a->data)[i], ==, (gint32) i + 1);
  g_assert_null (rep.result.run.launch_ms);
}

/* ---- module variables ------------------------------------------------------- */

static const char poly_source[] =
  "__constant__ float coeffs[4];\n"
  "__device__ unsigned int counter;\n"
  "namespace sim { __device__ int bias = 5; }\n"
  "__global__ void poly (float *y, const float *x, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n)\n"
  "    {\n"
  "      float v = x[i];\n"
  "      y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3])) + sim::bias;\n"
  "      atomicAdd (&counter, 1u);\n"
  "    }\n"
  "}\n";

/* A __constant__ array set before the run, used by every thread; a
 * __device__ counter every thread adds to over three launches, read back;
 * a variable in a namespace set by its qualified name. */
static void
test_constant_and_counter (void)
{
  const char *bindings[] = { "y=f32[500]:const(-1)", "x=f32[500]:range(-1,0.004)", "n=500",
                             NULL };
  const char *reads[] = { "counter", "coeffs", "sim::bias", NULL };
  g_autoptr (GPtrArray) globals = NULL;
  const float c[4] = { 0.5f, -1.25f, 2.0f, 0.75f };
  g_auto (Run) r = { 0 };
  KsArrayRunRequest request = { 0 };
  const KsArray *y, *counter, *coeffs, *bias;

  if (!ks_test_have_nvrtc ())
    return;
  /* The coefficients as a .csv, the way a user hands them over. */
  {
    g_autofree char *dir = g_dir_make_tmp ("ks-test-array-runs-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "c.csv", NULL);
    g_autofree char *text = g_strdup_printf ("0.5,-1.25,2,0.75\n");
    g_autofree char *binding = g_strdup_printf ("coeffs=f32[4]:file(%s)", path);
    g_autoptr (GError) error = NULL;

    g_assert_true (g_file_set_contents (path, text, -1, &error));
    g_assert_no_error (error);
    globals = parse_texts ((const char *[]) { binding, "sim::bias=-2", NULL }, TRUE);
    request.globals = globals;
    request.read_globals = reads;
    request.launches = 3;
    g_assert_true (run_kernel (&r, poly_source, bindings, &request, 128));
    ks_test_remove_tree (dir);
  }
  y = out_array (&r, "y");
  counter = global_array (&r, "counter");
  coeffs = global_array (&r, "coeffs");
  bias = global_array (&r, "sim::bias");
  for (guint i = 0; i < 500; i++)
    {
      double xv = -1.0 + 0.004 * i;
      double ref = c[0] + xv * (c[1] + xv * (c[2] + xv * c[3])) - 2.0;
      double got = ((const float *) y->data)[i];

      g_assert_cmpfloat (fabs (got - ref), <=, 1e-5 + fabs (ref) * 1e-5);
    }
  g_assert_cmpuint (counter->type, ==, KS_ELEM_UINT32);
  g_assert_cmpuint (counter->length, ==, 1);
  g_assert_cmpuint (((const guint32 *) counter->data)[0], ==, 3 * 500);
  g_assert_cmpuint (coeffs->type, ==, KS_ELEM_FLOAT32);
  g_assert_cmpuint (coeffs->length, ==, 4);
  g_assert_cmpmem (coeffs->data, 16, c, 16);
  g_assert_cmpint (((const gint32 *) bias->data)[0], ==, -2);
}

/* Every run starts from the module's initial values: what one run set or
 * counted is not the next one's start, on either engine. */
static void
test_variables_fresh_per_run (void)
{
  const char *bindings[] = { "y=f32[64]:zeros", "x=f32[64]:const(1)", "n=64", NULL };
  const char *reads[] = { "counter", "coeffs", "sim::bias", NULL };
  g_autoptr (GPtrArray) globals = parse_texts ((const char *[]) {
    "coeffs=f32[4]:const(1)", "counter=1000", NULL }, TRUE);

  if (!ks_test_have_nvrtc ())
    return;
  for (guint pass = 0; pass < 3; pass++)
    {
      g_auto (Run) r = { 0 };
      KsArrayRunRequest request = { 0 };
      const KsArray *y, *counter, *coeffs;
      gboolean set = pass == 1;

      request.globals = set ? globals : NULL;
      request.read_globals = reads;
      g_assert_true (run_kernel (&r, poly_source, bindings, &request, 32));
      y = out_array (&r, "y");
      counter = global_array (&r, "counter");
      coeffs = global_array (&r, "coeffs");
      /* Set: 1 + 1 + 1 + 1 + bias 5; else zeros + 5. */
      g_assert_cmpfloat (((const float *) y->data)[63], ==, set ? 9.0f : 5.0f);
      g_assert_cmpuint (((const guint32 *) counter->data)[0], ==, set ? 1064 : 64);
      g_assert_cmpfloat (((const float *) coeffs->data)[3], ==, set ? 1.0f : 0.0f);
      g_assert_cmpint (((const gint32 *) global_array (&r, "sim::bias")->data)[0], ==, 5);
    }
}

/* Names and sizes that do not match the module are refused before the
 * run, naming what the module has. */
static void
test_variable_refusals (void)
{
  const struct
  {
    const char *set;
    const char *read;
    const char *message[3];
  } cases[] = {
    { "coefs=f32[4]:zeros", NULL,
      { "Cannot set “coefs”", "no __device__ or __constant__ variable",
        "coeffs (16 bytes), counter (4 bytes), sim::bias (4 bytes)" } },
    { "coeffs=f32[8]:zeros", NULL,
      { "Cannot set “coeffs” (float[4], 16 bytes) to f32[8] (32 bytes)", "give f32[4]", NULL } },
    { "coeffs=i32[4]:zeros", NULL, { "to i32[4] (16 bytes)", "give f32[4]", NULL } },
    { "coeffs=2.5", NULL, { "Cannot set “coeffs” (float[4], 16 bytes) to a value",
                            "coeffs=f32[4]:const(2.5)", NULL } },
    { "counter=-1", NULL, { "does not fit in unsigned int", NULL, NULL } },
    { "coeffs=f32[4]:zeros:in", NULL, { "a variable has no direction", NULL, NULL } },
    { NULL, "nothing", { "Cannot read back “nothing”", "it has: coeffs", NULL } },
    { NULL, "sim::nothing", { "Cannot read back “sim::nothing”", NULL, NULL } },
  };
  const char *bindings[] = { "y=f32[8]:zeros", "x=f32[8]:range", "n=8", NULL };

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GPtrArray) globals =
        parse_texts ((const char *[]) { cases[i].set, NULL }, TRUE);
      const char *reads[] = { cases[i].read, NULL };
      g_auto (Run) r = { 0 };
      KsArrayRunRequest request = { 0 };

      request.globals = globals;
      request.read_globals = reads;
      g_assert_false (run_kernel (&r, poly_source, bindings, &request, 32));
      g_assert_error (r.error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
      for (guint m = 0; m < G_N_ELEMENTS (cases[i].message) && cases[i].message[m] != NULL; m++)
        ks_test_assert_message_has (r.error, cases[i].message[m], NULL);
      g_assert_null (r.result.run.arrays);
    }
}

/* ---- dynamic shared memory -------------------------------------------------- */

static const char reverse_source[] =
  "// Reverses each block's slice through dynamic shared memory.\n"
  "__global__ void reverse (int *out, const int *in, int n)\n"
  "{\n"
  "  extern __shared__ int tile[];\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  tile[threadIdx.x] = i < n ? in[i] : -1;\n"
  "  __syncthreads ();\n"
  "  if (i < n)\n"
  "    out[i] = tile[blockDim.x - 1 - threadIdx.x];\n"
  "}\n";

/* The request's dynamic shared memory reaches the launch: each block of 64
 * reverses its slice. Past the device's limit it is refused before the
 * run, saying how much it may have. */
static void
test_dynamic_shared (void)
{
  const char *bindings[] = { "out=i32[256]:const(-7)", "in=i32[256]:range", "n=256", NULL };
  g_auto (Run) r = { 0 };
  g_auto (Run) big = { 0 };
  KsArrayRunRequest request = { 0 };
  const KsArray *out;
  guint64 limit = ks_device_get_limits (device)->shared_mem_per_block_optin;

  if (!ks_test_have_nvrtc ())
    return;
  request.dynamic_shared = 64 * sizeof (gint32);
  request.dynamic_shared_set = TRUE;
  g_assert_true (run_kernel (&r, reverse_source, bindings, &request, 64));
  out = out_array (&r, "out");
  for (guint i = 0; i < 256; i++)
    g_assert_cmpint (((const gint32 *) out->data)[i], ==, (gint32) ((i / 64) * 64 + 63 - i % 64));
  g_assert_cmpuint (r.result.run.n_findings, ==, 0);

  request.dynamic_shared = limit + 1;
  g_assert_false (run_kernel (&big, reverse_source, bindings, &request, 64));
  g_assert_error (big.error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
  ks_test_assert_message_has (big.error, "bytes of dynamic shared memory asked for",
                              "ask for at most", NULL);
}

#if KS_TEST_ARRAY_RUNS_ON_CPU
/* Given as 0 over the kernel's need, the CPU engine's checks find every
 * thread's shared access out of bounds, and a sequence stops after the
 * launch that had findings. */
static void
test_no_shared_found (void)
{
  const char *bindings[] = { "out=i32[64]:zeros", "in=i32[64]:range", "n=64", NULL };
  g_auto (Run) r = { 0 };
  KsArrayRunRequest request = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  request.dynamic_shared_set = TRUE;
  request.launches = 5;
  g_assert_true (run_kernel (&r, reverse_source, bindings, &request, 64));
  g_assert_cmpuint (r.result.run.n_findings, >, 0);
  g_assert_cmpuint (r.result.run.launches_run, ==, 1);
  g_assert_cmpuint (r.result.run.launch_ms->len, ==, 1);
}
#endif

/* ---- what does not go together ---------------------------------------------- */

static void
test_refused_combinations (void)
{
  static const char pair_source[] =
    "__global__ void pair (float *a, float *b, double *c, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) { b[i] = a[i]; c[i] = a[i]; }\n"
    "}\n";
  const char *bindings[] = { "a=f32[16]:range", "b=f32[16]:zeros", "c=f64[16]:zeros", "n=16",
                             NULL };
  const struct
  {
    guint repeats, launches;
    const char *swaps[5];
    const char *message;
  } cases[] = {
    { 3, 3, { NULL }, "repeats time one launch" },
    { 1, 1, { "a", "b", NULL }, "swap between launches, and the run has one" },
    { 1, 4, { "a", "c", NULL }, "ping-pong arrays have the same type and length" },
    { 1, 4, { "a", "n", NULL }, "Cannot swap “n”: it is a value" },
    { 1, 4, { "a", "z", NULL }, "Cannot swap “z”: the kernel has no argument" },
    { 1, 4, { "a", "a", NULL }, "cannot swap with itself" },
    { 1, 4, { "a", "b", "b", "a" }, "is in two swaps" },
  };

  if (!ks_test_have_nvrtc ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Run) r = { 0 };
      KsArrayRunRequest request = { 0 };

      request.repeats = cases[i].repeats;
      request.launches = cases[i].launches;
      request.swaps = cases[i].swaps[0] != NULL ? cases[i].swaps : NULL;
      g_assert_false (run_kernel (&r, pair_source, bindings, &request, 32));
      g_assert_error (r.error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
      ks_test_assert_message_has (r.error, cases[i].message, NULL);
      g_assert_null (r.result.run.arrays);
    }
}

/* ---- the module's variables in PTX ------------------------------------------ */

static void
test_ptx_globals (void)
{
  static const char ptx[] =
    ".version 8.8\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    ".extern .func (.param .b32 func_retval0) vprintf\n"
    ".global .align 8 .u64 ks_printf_lines;\n"
    ".const .align 4 .b8 coeffs[64];\n"
    ".global .align 4 .u32 counter;\n"
    ".visible .global .align 8 .f64 rate = 0d3FE0000000000000;\n"
    ".global .align 4 .b8 _ZN2ns4gridE[12] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64};\n"
    ".global .align 16 .v4 .f32 vec;\n"
    ".extern .global .align 4 .b8 elsewhere[];\n"
    ".global .texref tex;\n"
    "\n"
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0\n"
    ")\n"
    "{\n"
    "\t.local .align 4 .b8 __local_depot0[16];\n"
    "\tld.const.f32 %f1, [coeffs+4];\n"
    "}\n";
  const struct
  {
    const char *symbol;
    gsize size;
    gboolean constant, is_array;
    KsElemType type;
  } expect[] = {
    { "coeffs", 64, TRUE, TRUE, KS_ELEM_OTHER },
    { "counter", 4, FALSE, FALSE, KS_ELEM_UINT32 },
    { "rate", 8, FALSE, FALSE, KS_ELEM_FLOAT64 },
    { "_ZN2ns4gridE", 12, FALSE, TRUE, KS_ELEM_OTHER },
    { "vec", 16, FALSE, TRUE, KS_ELEM_OTHER },
  };
  g_autoptr (GPtrArray) globals = ks_module_globals_from_ptx (ptx);

  g_assert_cmpuint (globals->len, ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      const KsModuleGlobal *g = g_ptr_array_index (globals, i);

      g_assert_cmpstr (g->symbol, ==, expect[i].symbol);
      g_assert_cmpuint (g->size, ==, expect[i].size);
      g_assert_cmpint (g->constant, ==, expect[i].constant);
      g_assert_cmpint (g->is_array, ==, expect[i].is_array);
      g_assert_cmpint (g->type, ==, expect[i].type);
    }
}

int
main (int argc, char **argv)
{
  g_autoptr (KsEngine) engine = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
#if KS_TEST_ARRAY_RUNS_ON_CPU
  if (!ks_nvrtc_load (NULL))
    {
      g_print ("1..0 # SKIP NVRTC is not available\n");
      return KS_TEST_SKIPPED;
    }
  device = ks_device_get_cpu ();
  worker = ks_worker_new (-1);
  /* Equality, not speed: 100 steps on the emulator under a sanitizer take
   * longer than the default limit of 2 s. */
  ks_worker_set_timeout_ms (worker, 600000);
#else
  if (!ks_test_require_cuda (KS_TEST_NEEDS_NVRTC))
    return KS_TEST_SKIPPED;
  engine = ks_test_cuda_engine ();
  device = g_object_ref (ks_engine_get_device (engine));
  worker = ks_worker_new (ks_device_get_ordinal (device));
#endif

  g_test_add_func ("/ks/cuda/array-runs/life-100-steps", test_life);
  g_test_add_func ("/ks/cuda/array-runs/swap-rule", test_swap_rule);
  g_test_add_func ("/ks/cuda/array-runs/add-one-ten-times", test_add_one_ten_times);
  g_test_add_func ("/ks/cuda/array-runs/constant-and-counter", test_constant_and_counter);
  g_test_add_func ("/ks/cuda/array-runs/variables-fresh-per-run", test_variables_fresh_per_run);
  g_test_add_func ("/ks/cuda/array-runs/variable-refusals", test_variable_refusals);
  g_test_add_func ("/ks/cuda/array-runs/dynamic-shared", test_dynamic_shared);
#if KS_TEST_ARRAY_RUNS_ON_CPU
  g_test_add_func ("/ks/cuda/array-runs/no-shared-found", test_no_shared_found);
#endif
  g_test_add_func ("/ks/cuda/array-runs/refused-combinations", test_refused_combinations);
  g_test_add_func ("/ks/cuda/array-runs/ptx-globals", test_ptx_globals);

  ret = g_test_run ();
  g_clear_object (&worker);
  g_clear_object (&device);
  return ret;
}
