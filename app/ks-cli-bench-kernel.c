#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ks-cli.h"
#include "ks-user-run.h"
#include "ks-worker-private.h"
#include "ks-op-registry.h"

/* `bench-kernel`: what working on your own kernel costs. Compiling needs
 * NVRTC only; the rest needs a GPU and is skipped, with a note, without one.
 *
 *  - cold compile: a 30-line kernel never compiled before (each sample gets
 *    a fresh comment, so no cache can answer), in the worker, as the
 *    editor's compile-as-you-type does it; the round trip and NVRTC's own
 *    time;
 *  - cached compile: the same source again;
 *  - edit to result: a changed expression compiled, loaded and run on the
 *    image until its result is in device memory;
 *  - restart after a fault: from the fault's report to the next good result,
 *    a new worker process included;
 *  - invert, yours and the built-in one, on the same 8K image with the same
 *    launch, timed with CUDA events (no L2 eviction for either: the 8K image
 *    is 2.5 times the H200's L2 each way). */

/* 30 lines: a 3×3 weighted blur as an image kernel, like a user's first. */
static const char blur_source[] =
  "//@param float weight 0.5 [0, 1] \"Centre weight\"\n"
  "// A 3×3 blur whose centre counts `weight` and the 8 neighbours share the rest.\n"
  "__device__ float channel (uchar4 v, int c)\n"
  "{\n"
  "  return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;\n"
  "}\n"
  "\n"
  "__global__ void blur3 (ks_image out, ks_image in, ks_params p)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x >= (int) out.width || y >= (int) out.height)\n"
  "    return;\n"
  "  float sum[4] = { 0, 0, 0, 0 };\n"
  "  for (int dy = -1; dy <= 1; dy++)\n"
  "    for (int dx = -1; dx <= 1; dx++)\n"
  "      {\n"
  "        int sx = min (max (x + dx, 0), (int) in.width - 1);\n"
  "        int sy = min (max (y + dy, 0), (int) in.height - 1);\n"
  "        uchar4 v = ks_rgba (in, sx, sy);\n"
  "        float w = dx == 0 && dy == 0 ? p.weight : (1.0f - p.weight) / 8.0f;\n"
  "        for (int c = 0; c < 4; c++)\n"
  "          sum[c] += w * channel (v, c);\n"
  "      }\n"
  "  ks_rgba (out, x, y) = make_uchar4 ((unsigned char) (sum[0] + 0.5f),\n"
  "                                    (unsigned char) (sum[1] + 0.5f),\n"
  "                                    (unsigned char) (sum[2] + 0.5f),\n"
  "                                    (unsigned char) (sum[3] + 0.5f));\n"
  "}\n";

static const char invert_expression[] =
  "out = make_uchar4 (255 - in.x, 255 - in.y, 255 - in.z, in.w);";

static const char fault_source[] =
  "__global__ void wild (ks_image out, ks_image in)\n"
  "{\n"
  "  *(volatile int *) (0x10ull + threadIdx.x) = 1;\n"
  "}\n";

typedef struct
{
  const char *key;
  const char *title;
  KsTiming timing;
  gboolean measured;
  const char *skipped;   /* why not measured */
} BenchRow;

enum
{
  ROW_COMPILE_COLD,
  ROW_COMPILE_NVRTC,
  ROW_COMPILE_CACHED,
  ROW_EDIT_TO_RESULT,
  ROW_RESTART,
  ROW_INVERT_USER,
  ROW_INVERT_USER_OWN,
  ROW_INVERT_BUILTIN,
  N_ROWS
};

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static KsKernelSource *
fresh_source (KsKernelMode mode, const char *name, const char *text, guint serial)
{
  g_autofree char *unique = g_strdup_printf ("%s\n// edit %u\n", text, serial);

  return ks_kernel_source_new (mode, name, unique);
}

static gboolean
bench_compile (KsWorker *worker, guint repeats, BenchRow *rows, GError **error)
{
  KsLaunchConfig launch;
  g_autoptr (KsKernelSource) warm = ks_kernel_source_new (KS_KERNEL_MODE_IMAGE, "blur3.cu",
                                                          blur_source);
  g_autoptr (KsCompileResult) first = NULL;

  ks_kernel_source_get_default_launch (warm, &launch);
  /* Starting the worker and loading NVRTC are paid once per session, not per edit. */
  first = ks_worker_compile (worker, warm, &launch, FALSE, NULL, error);
  if (first == NULL)
    return FALSE;
  if (!first->success)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_COMPILE,
                           "the benchmark's kernel does not compile");
      return FALSE;
    }

  ks_timing_begin (&rows[ROW_COMPILE_COLD].timing, repeats);
  ks_timing_begin (&rows[ROW_COMPILE_NVRTC].timing, repeats);
  ks_timing_begin (&rows[ROW_COMPILE_CACHED].timing, repeats);
  for (guint i = 0; i < repeats; i++)
    {
      g_autoptr (KsKernelSource) source = fresh_source (KS_KERNEL_MODE_IMAGE, "blur3.cu",
                                                        blur_source, i);
      g_autoptr (KsCompileResult) cold = NULL;
      g_autoptr (KsCompileResult) cached = NULL;
      double t0 = now_ms (), t1, t2;

      cold = ks_worker_compile (worker, source, &launch, FALSE, NULL, error);
      t1 = now_ms ();
      if (cold == NULL)
        return FALSE;
      cached = ks_worker_compile (worker, source, &launch, FALSE, NULL, error);
      t2 = now_ms ();
      if (cached == NULL)
        return FALSE;
      ks_timing_add (&rows[ROW_COMPILE_COLD].timing, t1 - t0, FALSE);
      ks_timing_add (&rows[ROW_COMPILE_NVRTC].timing, cold->compile_ms, FALSE);
      ks_timing_add (&rows[ROW_COMPILE_CACHED].timing, t2 - t1, FALSE);
    }
  for (guint r = ROW_COMPILE_COLD; r <= ROW_COMPILE_CACHED; r++)
    {
      ks_timing_compute (&rows[r].timing);
      rows[r].measured = TRUE;
    }
  return TRUE;
}

static gboolean
run_expression (KsWorker *worker, KsEngine *engine, KsKernelSource *source, KsBuffer *input,
                const KsLaunchConfig *launch, guint repeats, KsUserRunResult *result,
                GError **error)
{
  KsUserRunRequest request;

  ks_user_run_request_init (&request, source);
  request.inputs[0] = input;
  if (launch != NULL)
    request.launch = *launch;
  request.repeats = repeats;
  return ks_user_kernel_run (worker, engine, &request, result, NULL, error);
}

static gboolean
bench_gpu (KsWorker *worker, KsEngine *engine, guint width, guint height, guint repeats,
           BenchRow *rows, GError **error)
{
  g_autoptr (KsImage) image = NULL;
  g_autoptr (KsBuffer) input = NULL;
  g_autoptr (KsKernelSource) invert = NULL;
  g_autoptr (KsKernelSource) wild = NULL;
  const KsOp *builtin = ks_op_registry_lookup ("invert");
  KsUserRunResult result = { 0 };
  KsLaunchConfig launch;
  KsTimingOptions options;
  KsRunRequest request;
  KsRunResult run = { 0 };

  image = ks_image_new (KS_FORMAT_RGBA8, width, height, error);
  if (image == NULL)
    return FALSE;
  ks_image_fill_random (image, 0x5eedu);
  input = ks_engine_upload (engine, image, NULL, error);
  if (input == NULL)
    return FALSE;

  /* Edit to result: each sample a new expression, compiled, loaded, run. */
  ks_timing_begin (&rows[ROW_EDIT_TO_RESULT].timing, repeats);
  for (guint i = 0; i < repeats; i++)
    {
      g_autoptr (KsKernelSource) edit = fresh_source (KS_KERNEL_MODE_EXPRESSION, "expression",
                                                      invert_expression, 1000 + i);
      double t0 = now_ms ();

      if (!run_expression (worker, engine, edit, input, NULL, 1, &result, error))
        return FALSE;
      ks_timing_add (&rows[ROW_EDIT_TO_RESULT].timing, now_ms () - t0, FALSE);
      ks_user_run_result_clear (&result);
    }
  ks_timing_compute (&rows[ROW_EDIT_TO_RESULT].timing);
  rows[ROW_EDIT_TO_RESULT].measured = TRUE;

  /* Yours against the built-in, same image, same launch. */
  /* The launch the built-in op resolves to (its block, pixels per thread and
   * grid) is the one both run. */
  invert = ks_kernel_source_new (KS_KERNEL_MODE_EXPRESSION, "invert", invert_expression);
  ks_run_request_init (&request, builtin);
  request.inputs[0] = input;
  if (!ks_engine_validate (engine, &request, &launch, NULL, error))
    return FALSE;
  if (!run_expression (worker, engine, invert, input, &launch, 1, &result, error))
    return FALSE;
  ks_user_run_result_clear (&result);
  if (!run_expression (worker, engine, invert, input, &launch, repeats, &result, error))
    return FALSE;
  {
    g_autofree char *text = ks_cli_describe_launch (&result.launch, 1, TRUE);

    ks_cli_print ("your invert: %s\n", text);
  }
  ks_timing_begin (&rows[ROW_INVERT_USER].timing, 1);
  ks_timing_add (&rows[ROW_INVERT_USER].timing, result.run.kernel_ms, FALSE);
  ks_timing_compute (&rows[ROW_INVERT_USER].timing);
  rows[ROW_INVERT_USER].timing.min_ms = result.run.kernel_min_ms;
  rows[ROW_INVERT_USER].timing.max_ms = result.run.kernel_max_ms;
  rows[ROW_INVERT_USER].timing.n = repeats;
  rows[ROW_INVERT_USER].measured = TRUE;
  ks_user_run_result_clear (&result);

  /* The same kernel on buffers the worker allocates itself (the buffers
   * travel in the messages): whether memory opened through IPC costs the
   * kernel anything. */
  _ks_worker_set_ipc_disabled (worker, TRUE);
  /* Copies of 8K images travel through the socket: more than the run's 2 s. */
  ks_worker_set_timeout_ms (worker, 60000);
  if (!run_expression (worker, engine, invert, input, &launch, repeats, &result, error))
    {
      _ks_worker_set_ipc_disabled (worker, FALSE);
      ks_worker_set_timeout_ms (worker, KS_WORKER_DEFAULT_TIMEOUT_MS);
      return FALSE;
    }
  _ks_worker_set_ipc_disabled (worker, FALSE);
  ks_worker_set_timeout_ms (worker, KS_WORKER_DEFAULT_TIMEOUT_MS);
  ks_timing_begin (&rows[ROW_INVERT_USER_OWN].timing, 1);
  ks_timing_add (&rows[ROW_INVERT_USER_OWN].timing, result.run.kernel_ms, FALSE);
  ks_timing_compute (&rows[ROW_INVERT_USER_OWN].timing);
  rows[ROW_INVERT_USER_OWN].timing.min_ms = result.run.kernel_min_ms;
  rows[ROW_INVERT_USER_OWN].timing.max_ms = result.run.kernel_max_ms;
  rows[ROW_INVERT_USER_OWN].timing.n = repeats;
  rows[ROW_INVERT_USER_OWN].measured = TRUE;
  ks_user_run_result_clear (&result);

  request.launch = launch;
  ks_timing_options_init (&options, repeats);
  options.flush = KS_CACHE_FLUSH_NONE;
  if (!ks_engine_measure (engine, &request, &options, &run, &rows[ROW_INVERT_BUILTIN].timing,
                          error))
    return FALSE;
  {
    g_autofree char *text = ks_cli_describe_launch (&run.launch, 1, TRUE);

    ks_cli_print ("built-in invert: %s\n", text);
  }
  ks_run_result_clear (&run);
  rows[ROW_INVERT_BUILTIN].measured = TRUE;

  /* A fault, then the time until the next good result. */
  wild = ks_kernel_source_new (KS_KERNEL_MODE_IMAGE, "wild.cu", fault_source);
  ks_timing_begin (&rows[ROW_RESTART].timing, repeats);
  for (guint i = 0; i < repeats; i++)
    {
      g_autoptr (GError) fault = NULL;
      double t0;

      if (run_expression (worker, engine, wild, input, NULL, 1, &result, &fault))
        {
          g_set_error_literal (error, KS_ERROR, KS_ERROR_FAILED,
                               "the faulting kernel did not fault");
          ks_user_run_result_clear (&result);
          return FALSE;
        }
      if (!g_error_matches (fault, KS_ERROR, KS_ERROR_KERNEL_FAULT))
        {
          g_propagate_error (error, g_steal_pointer (&fault));
          return FALSE;
        }
      t0 = now_ms ();
      if (!run_expression (worker, engine, invert, input, NULL, 1, &result, error))
        return FALSE;
      ks_timing_add (&rows[ROW_RESTART].timing, now_ms () - t0, FALSE);
      ks_user_run_result_clear (&result);
    }
  ks_timing_compute (&rows[ROW_RESTART].timing);
  rows[ROW_RESTART].measured = TRUE;
  return TRUE;
}

static JsonNode *
bench_json (const BenchRow *rows, guint width, guint height, guint arch, const char *device)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "device");
  ks_json_add_string (b, device);
  json_builder_set_member_name (b, "arch");
  json_builder_add_int_value (b, arch);
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, width);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, height);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint r = 0; r < N_ROWS; r++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "key");
      ks_json_add_string (b, rows[r].key);
      json_builder_set_member_name (b, "title");
      ks_json_add_string (b, rows[r].title);
      if (rows[r].measured)
        ks_json_add_timing (b, &rows[r].timing, "runs");
      else
        {
          json_builder_set_member_name (b, "skipped");
          ks_json_add_string (b, rows[r].skipped);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (rows[ROW_INVERT_USER].measured && rows[ROW_INVERT_BUILTIN].measured)
    {
      json_builder_set_member_name (b, "invert_user_over_builtin");
      ks_json_add_number (b, rows[ROW_INVERT_USER].timing.median_ms
                               / rows[ROW_INVERT_BUILTIN].timing.median_ms);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

int
ks_cli_cmd_bench_kernel (int argc, char **argv)
{
  g_autofree char *size = NULL;
  g_autofree char *json_path = NULL;
  int repeat = 9, arch = 0;
  gboolean help = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Samples per measurement (default 9)", "N" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size,
      "Image size for the GPU measurements (default 7680x4320)", "WxH" },
    { "arch", 0, 0, G_OPTION_ARG_INT, &arch, "Compile for sm_N without a GPU (default 90)", "N" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the results as JSON on stdout instead of the table", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &json_path, "Also write the results as JSON to FILE",
      "FILE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) why = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsWorker) worker = NULL;
  BenchRow rows[N_ROWS] = {
    [ROW_COMPILE_COLD] = { "compile_cold", "Cold compile of a 30-line kernel (round trip)" },
    [ROW_COMPILE_NVRTC] = { "compile_nvrtc", "  of which NVRTC in the worker" },
    [ROW_COMPILE_CACHED] = { "compile_cached", "Compile of an unchanged source (cached)" },
    [ROW_EDIT_TO_RESULT] = { "edit_to_result", "Edit to result in device memory (cold)" },
    [ROW_RESTART] = { "restart_after_fault", "Fault to the next good result (restart)" },
    [ROW_INVERT_USER] = { "invert_user", "Invert as your expression (kernel)" },
    [ROW_INVERT_USER_OWN] = { "invert_user_own_buffers",
                              "  the same on the worker's own buffers (no IPC)" },
    [ROW_INVERT_BUILTIN] = { "invert_builtin", "Invert, built in (kernel)" },
  };
  guint width = 7680, height = 4320;
  const char *device_name = "no GPU";
  int status = KS_CLI_EXIT_FAILED;

  g_option_context_set_summary (context,
                                "Measures what writing your own kernel costs: compiling cold "
                                "and cached, an edit to its result, a restart after a fault, "
                                "and your invert against the built-in one. Medians of --repeat "
                                "samples from one run.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (json);
  if (json_path != NULL && !ks_file_check_writable (json_path, &error))
    return ks_cli_report_error (error);
  if (repeat < 1 || repeat > 1000)
    {
      ks_cli_usage_error (&error, "--repeat must be between 1 and 1000, not %d", repeat);
      return ks_cli_report_error (error);
    }
  if (size != NULL && !ks_cli_parse_size (size, &width, &height, &error))
    return ks_cli_report_error (error);

  if (ks_cuda_available (&why))
    {
      engine = ks_cli_open_engine ("cuda", 0, &error);
      if (engine == NULL)
        goto out;
      device_name = ks_device_get_name (ks_engine_get_device (engine));
      worker = ks_worker_new (ks_device_get_ordinal (ks_engine_get_device (engine)));
    }
  else
    worker = ks_worker_new (-1);
  if (arch > 0)
    ks_worker_set_arch (worker, (guint) arch);

  if (!bench_compile (worker, (guint) repeat, rows, &error))
    goto out;
  if (engine != NULL)
    {
      if (!bench_gpu (worker, engine, width, height, (guint) repeat, rows, &error))
        goto out;
    }
  else
    for (guint r = ROW_EDIT_TO_RESULT; r < N_ROWS; r++)
      rows[r].skipped = "no GPU";

  ks_cli_print ("user kernels, sm_%u, %s; medians of %d samples\n", ks_worker_get_arch (worker),
                device_name, repeat);
  for (guint r = 0; r < N_ROWS; r++)
    {
      if (rows[r].measured)
        ks_cli_print ("  %-48s %9.3f ms  (min %.3f, max %.3f)\n", rows[r].title,
                      rows[r].timing.median_ms, rows[r].timing.min_ms, rows[r].timing.max_ms);
      else
        ks_cli_print ("  %-48s %9s     (%s)\n", rows[r].title, "-", rows[r].skipped);
    }
  if (rows[ROW_INVERT_USER].measured && rows[ROW_INVERT_BUILTIN].measured)
    ks_cli_print ("  invert at %u×%u: yours takes %.3f× the built-in one's time\n", width, height,
                  rows[ROW_INVERT_USER].timing.median_ms
                    / rows[ROW_INVERT_BUILTIN].timing.median_ms);
  if (json || json_path != NULL)
    {
      g_autoptr (JsonNode) root = bench_json (rows, width, height, ks_worker_get_arch (worker),
                                              device_name);

      if (!ks_cli_emit_json (root, json, json_path, &error))
        goto out;
    }
  status = KS_CLI_EXIT_OK;

out:
  for (guint r = 0; r < N_ROWS; r++)
    ks_timing_clear (&rows[r].timing);
  if (error != NULL)
    status = ks_cli_report_error (error);
  return status;
}
