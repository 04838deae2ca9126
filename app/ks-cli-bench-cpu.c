#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-array-run.h"
#include "ks-cli.h"
#include "ks-lesson.h"
#include "ks-user-run.h"

/* `bench-cpu`: how fast the CPU engine runs your kernels, which it does by
 * interpreting their PTX (gpu/emu). Needs NVRTC, never a GPU.
 *
 *  - an expression over a 256×256 image, and a 3×3 blur as an image kernel
 *    over a 1920×1080 one, through the same calls as the window's;
 *  - every lesson at its default size: the kernel's median and the whole
 *    run (compile cached, data, every stage, the checks);
 *  - how the time grows: a kernel of K dependent additions per thread over
 *    T threads, T doubled at a fixed K and K doubled at a fixed T, with the
 *    lane-instructions each run executed.
 *
 * Every figure is the median of --repeat samples from this one run. */

static const char blur_source[] =
  "__global__ void blur3 (ks_image out, ks_image in)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x >= (int) out.width || y >= (int) out.height)\n"
  "    return;\n"
  "  int sum[4] = { 0, 0, 0, 0 };\n"
  "  for (int dy = -1; dy <= 1; dy++)\n"
  "    for (int dx = -1; dx <= 1; dx++)\n"
  "      {\n"
  "        uchar4 v = ks_rgba (in, min (max (x + dx, 0), (int) in.width - 1),\n"
  "                            min (max (y + dy, 0), (int) in.height - 1));\n"
  "        sum[0] += v.x; sum[1] += v.y; sum[2] += v.z; sum[3] += v.w;\n"
  "      }\n"
  "  ks_rgba (out, x, y) = make_uchar4 (sum[0] / 9, sum[1] / 9, sum[2] / 9, sum[3] / 9);\n"
  "}\n";

static const char invert_expression[] =
  "out = make_uchar4 (255 - in.x, 255 - in.y, 255 - in.z, in.w);";

/* K dependent multiply-adds per thread: the instructions grow with k. */
static const char growth_source[] =
  "__global__ void chain (float *out, const float *in, int n, int k)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n)\n"
  "    return;\n"
  "  float v = in[i];\n"
  "  for (int j = 0; j < k; j++)\n"
  "    v = v * 0.999f + 0.5f;\n"
  "  out[i] = v;\n"
  "}\n";

typedef struct
{
  char *key;
  char *title;
  KsTiming timing;           /* ms */
  double whole_ms;           /* lessons: the median of the whole run; else NAN */
  guint64 threads;
  guint64 lane_instructions; /* of one run; 0 where not known */
} Row;

static void
row_free (Row *row)
{
  g_free (row->key);
  g_free (row->title);
  ks_timing_clear (&row->timing);
  g_free (row);
}

static Row *
row_new (GPtrArray *rows, const char *key, const char *title, guint repeats)
{
  Row *row = g_new0 (Row, 1);

  row->key = g_strdup (key);
  row->title = g_strdup (title);
  row->whole_ms = NAN;
  ks_timing_begin (&row->timing, repeats);
  g_ptr_array_add (rows, row);
  return row;
}

/* An expression or image kernel on an image of the CPU engine, `repeats`
 * times after a warm-up: the kernel's time as the emulator measured it. */
static gboolean
bench_image (KsEngine *engine, KsWorker *worker, GPtrArray *rows, const char *key,
             const char *title, KsKernelMode mode, const char *text, guint width, guint height,
             guint repeats, GError **error)
{
  g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, width, height, error);
  g_autoptr (KsBuffer) input = NULL;
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (mode, key, text);
  Row *row;

  if (image == NULL)
    return FALSE;
  ks_image_fill_random (image, 0x5eedu);
  input = ks_engine_upload (engine, image, NULL, error);
  if (input == NULL)
    return FALSE;
  row = row_new (rows, key, title, repeats);
  row->threads = (guint64) width * height;
  for (guint r = 0; r <= repeats; r++)
    {
      KsUserRunRequest request;
      KsUserRunResult result = { 0 };

      ks_user_run_request_init (&request, source);
      ks_kernel_source_get_default_launch (source, &request.launch);
      request.inputs[0] = input;
      if (!ks_user_kernel_run (worker, engine, &request, &result, NULL, error))
        {
          ks_user_run_result_clear (&result);
          return FALSE;
        }
      ks_timing_add (&row->timing, result.run.kernel_ms, r == 0);
      row->lane_instructions = result.run.lane_instructions;
      ks_user_run_result_clear (&result);
    }
  ks_timing_compute (&row->timing);
  return TRUE;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Every lesson with a kernel, every variant, at its default size. */
static gboolean
bench_lessons (KsWorker *worker, GPtrArray *rows, guint repeats, GError **error)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  for (guint i = 0; i < n; i++)
    for (guint v = 0; v < lessons[i]->n_variants; v++)
      {
        const KsLesson *lesson = lessons[i];
        const KsLessonVariant *variant = &lesson->variants[v];
        g_autofree char *key = g_strdup_printf ("lesson %s %s", lesson->id, variant->id);
        g_autofree char *title = g_strdup_printf ("%s %s (%s)", lesson->id, lesson->title,
                                                  variant->title);
        g_autofree double *whole = g_new (double, repeats);
        KsTiming timing = { 0 };
        Row *row;

        if (lesson->host_only)
          continue;
        row = row_new (rows, key, title, 0);
        ks_timing_clear (&row->timing);
        for (guint r = 0; r < repeats; r++)
          {
            g_autoptr (KsLessonReport) report = NULL;
            KsLessonOptions options;
            gint64 t0 = g_get_monotonic_time ();

            ks_lesson_options_init (&options);
            options.repeats = 1;
            if (!ks_lesson_run (lesson, variant, NULL, worker, &options, &report, error))
              return FALSE;
            whole[r] = (double) (g_get_monotonic_time () - t0) / 1000.0;
            if (r == 0)
              {
                ks_timing_begin (&timing, repeats);
                row->threads = report->threads;
              }
            /* The lesson's kernel stage: its one timed run after its warm-up. */
            ks_timing_add (&timing, report->timings.kernel.median_ms, FALSE);
          }
        ks_timing_compute (&timing);
        row->timing = timing;
        qsort (whole, repeats, sizeof whole[0], compare_doubles);
        row->whole_ms = repeats % 2 == 1 ? whole[repeats / 2]
                                         : (whole[repeats / 2 - 1] + whole[repeats / 2]) / 2;
      }
  return TRUE;
}

/* The chain kernel over `threads` threads with `k` steps: the emulator's
 * time of one run, and the instructions it executed. */
static gboolean
bench_chain (KsWorker *worker, GPtrArray *rows, guint threads, guint k, guint repeats,
             GError **error)
{
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "chain.cu",
                                                            growth_source);
  g_autoptr (GPtrArray) bindings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autofree char *key = g_strdup_printf ("chain T=%u K=%u", threads, k);
  g_autofree char *title = g_strdup_printf ("%u threads × %u multiply-adds", threads, k);
  const char *texts[4];
  g_autofree char *out = g_strdup_printf ("out=f32[%u]:zeros:out", threads);
  g_autofree char *in = g_strdup_printf ("in=f32[%u]:range", threads);
  g_autofree char *n_text = g_strdup_printf ("n=%u", threads);
  g_autofree char *k_text = g_strdup_printf ("k=%u", k);
  Row *row = row_new (rows, key, title, repeats);

  texts[0] = out;
  texts[1] = in;
  texts[2] = n_text;
  texts[3] = k_text;
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      KsBinding *b = ks_binding_parse (texts[i], error);

      if (b == NULL)
        return FALSE;
      g_ptr_array_add (bindings, b);
    }
  row->threads = threads;
  for (guint r = 0; r <= repeats; r++)
    {
      KsArrayRunRequest request;
      KsArrayRunResult result = { 0 };

      ks_array_run_request_init (&request, source);
      request.bindings = bindings;
      request.launch.block = (KsDim3) { 256, 1, 1 };
      request.launch.auto_grid = TRUE;
      if (!ks_array_kernel_run (worker, ks_device_get_limits (cpu), &request, &result, NULL,
                                error))
        {
          ks_array_run_result_clear (&result);
          return FALSE;
        }
      ks_timing_add (&row->timing, result.run.kernel_ms, r == 0);
      row->lane_instructions = result.run.lane_instructions;
      ks_array_run_result_clear (&result);
    }
  ks_timing_compute (&row->timing);
  return TRUE;
}

static void
print_row (const Row *row)
{
  if (!isnan (row->whole_ms))
    ks_cli_print ("  %-58s %9.2f ms  (whole run %.1f ms)\n", row->title, row->timing.median_ms,
                  row->whole_ms);
  else if (row->lane_instructions > 0)
    ks_cli_print ("  %-58s %9.2f ms  (%.1f M lane-instructions, %.0f M/s)\n", row->title,
                  row->timing.median_ms, row->lane_instructions / 1e6,
                  row->lane_instructions / row->timing.median_ms / 1000.0);
  else
    ks_cli_print ("  %-58s %9.2f ms\n", row->title, row->timing.median_ms);
}

static JsonNode *
rows_json (const GPtrArray *rows, guint repeats)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "engine");
  ks_json_add_string (b, "CPU engine (PTX emulator)");
  json_builder_set_member_name (b, "cores");
  json_builder_add_int_value (b, g_get_num_processors ());
  json_builder_set_member_name (b, "repeats");
  json_builder_add_int_value (b, repeats);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = g_ptr_array_index (rows, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "key");
      ks_json_add_string (b, row->key);
      json_builder_set_member_name (b, "title");
      ks_json_add_string (b, row->title);
      json_builder_set_member_name (b, "threads");
      json_builder_add_int_value (b, (gint64) row->threads);
      ks_json_add_timing (b, &row->timing, "kernel");
      if (!isnan (row->whole_ms))
        {
          json_builder_set_member_name (b, "whole_run_ms");
          ks_json_add_number (b, row->whole_ms);
        }
      if (row->lane_instructions > 0)
        {
          json_builder_set_member_name (b, "lane_instructions");
          json_builder_add_int_value (b, (gint64) row->lane_instructions);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

int
ks_cli_cmd_bench_cpu (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("— the CPU engine's speed");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsWorker) worker = NULL;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  g_autofree char *json_path = NULL;
  gboolean json = FALSE, help = FALSE, skip_lessons = FALSE;
  int repeat = 5;
  const GOptionEntry entries[] = {
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Samples per figure (default 5)", "N" },
    { "no-lessons", 0, 0, G_OPTION_ARG_NONE, &skip_lessons, "Leave the lessons out", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the figures as JSON", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &json_path, "Write the JSON to FILE", "FILE" },
    { NULL }
  };
  const guint threads[] = { 1u << 14, 1u << 16, 1u << 18, 1u << 20 };
  const guint steps[] = { 16, 64, 256, 1024 };

  g_option_context_set_summary (context,
                                "Measures the CPU engine, which runs kernels by interpreting "
                                "the PTX that NVRTC makes of them: an expression over 256×256, "
                                "an image kernel over 1080p, every lesson at its default size, "
                                "and how the time grows with threads and with instructions. "
                                "Medians of --repeat samples from one run; needs NVRTC, not a "
                                "GPU.");
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

  engine = ks_cli_open_engine ("cpu", -1, &error);
  if (engine == NULL)
    return ks_cli_report_error (error);
  worker = ks_worker_new (-1);
  /* The figures are the emulator's, not the worker's time limit's. */
  ks_worker_set_timeout_ms (worker, 600000);

  if (!bench_image (engine, worker, rows, "expression 256x256",
                    "expression (invert) over 256×256", KS_KERNEL_MODE_EXPRESSION,
                    invert_expression, 256, 256, (guint) repeat, &error)
      || !bench_image (engine, worker, rows, "image kernel 1920x1080",
                       "image kernel (3×3 blur) over 1920×1080", KS_KERNEL_MODE_IMAGE,
                       blur_source, 1920, 1080, (guint) repeat, &error))
    return ks_cli_report_error (error);
  if (!skip_lessons && !bench_lessons (worker, rows, (guint) repeat, &error))
    return ks_cli_report_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    if (!bench_chain (worker, rows, threads[i], 64, (guint) repeat, &error))
      return ks_cli_report_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (steps[i] != 64 && !bench_chain (worker, rows, 1u << 16, steps[i], (guint) repeat, &error))
      return ks_cli_report_error (error);

  ks_cli_print ("the CPU engine (%u cores); medians of %d samples\n", g_get_num_processors (),
                repeat);
  for (guint i = 0; i < rows->len; i++)
    print_row (g_ptr_array_index (rows, i));
  if (json || json_path != NULL)
    {
      g_autoptr (JsonNode) root = rows_json (rows, (guint) repeat);

      if (!ks_cli_emit_json (root, json, json_path, &error))
        return ks_cli_report_error (error);
    }
  return KS_CLI_EXIT_OK;
}
