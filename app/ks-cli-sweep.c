/* kernelscope-cli sweep: one op over a set of block shapes, each measured
 * with the timing protocol, with occupancy and its limiter on CUDA. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ks-cli.h"
#include "ks-sweep.h"
#include "ks-op-registry.h"

static void
on_progress (guint done, guint total, const KsSweepPoint *point, gpointer user_data)
{
  /* Progress is for people watching a terminal, not for logs or tests. */
  if (!isatty (STDERR_FILENO))
    return;
  fprintf (stderr, "  [%u/%u] %ux%ux%u %s\n", done, total, point->block.x, point->block.y,
           point->block.z, point->refused != NULL ? "refused" : "measured");
}

static void
print_table (const KsSweepResult *r)
{
  ks_cli_print ("%s on %s (%s), %u×%u, medians of %u runs after a warm-up\n", r->op->id,
                r->device_name, r->cuda ? "CUDA" : "CPU engine", r->width, r->height,
                r->repeats);
  ks_cli_print ("  %-12s %7s %12s %10s %9s  %s\n", "block", "threads", "median (ms)", "GB/s",
                "occupancy", "limited by");
  for (guint i = 0; i < r->points->len; i++)
    {
      const KsSweepPoint *p = &g_array_index (r->points, KsSweepPoint, i);
      char block[64];

      ks_dim3_format (&p->block, block, sizeof block);
      if (p->refused != NULL)
        {
          ks_cli_print ("  %-12s %7u %12s  refused: %s\n", block,
                        p->block.x * p->block.y * p->block.z, "-", p->refused);
          continue;
        }
      if (p->has_occupancy)
        ks_cli_print ("%s %-12s %7u %12.4f %10.1f %8.0f%%  %s\n", (int) i == r->fastest ? "*" : " ",
                      block, p->block.x * p->block.y * p->block.z, p->timing.median_ms, p->gbs,
                      p->occupancy.occupancy * 100.0,
                      ks_occupancy_limit_describe (p->occupancy.limiter));
      else
        ks_cli_print ("%s %-12s %7u %12.4f %10.1f %9s  %s\n", (int) i == r->fastest ? "*" : " ",
                      block, p->block.x * p->block.y * p->block.z, p->timing.median_ms, p->gbs,
                      "-", "-");
    }
  if (r->fastest >= 0)
    {
      const KsSweepPoint *p = &g_array_index (r->points, KsSweepPoint, r->fastest);
      char block[64];

      ks_dim3_format (&p->block, block, sizeof block);
      ks_cli_print ("fastest (*): block %s, %.4f ms\n", block, p->timing.median_ms);
    }
}

int
ks_cli_cmd_sweep (int argc, char **argv)
{
  g_auto (GStrv) inputs = NULL;
  g_auto (GStrv) params = NULL;
  g_autofree char *blocks_text = NULL;
  g_autofree char *grid = NULL;
  g_autofree char *engine_name = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *csv_path = NULL;
  int ppt = 0, device = -1, repeat = 0;
  gboolean stride = FALSE, json = FALSE, help = FALSE;
  const GOptionEntry entries[] = {
    { "in", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &inputs,
      "Input image (twice for two-input ops), or random:WxH or testcard:WxH", "FILE" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &params, "Set a parameter (repeatable)",
      "NAME=VALUE" },
    { "blocks", 'b', 0, G_OPTION_ARG_STRING, &blocks_text,
      "presets (default), powers (every power-of-two shape from one warp to the device's "
      "limit) or a list such as 32x8,16x16,256", "SET" },
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &grid,
      "Grid size, used exactly (default: enough blocks to cover the image)", "X[xY[xZ]]" },
    { "stride", 's', 0, G_OPTION_ARG_NONE, &stride, "Grid-stride loop instead of one pass",
      NULL },
    { "ppt", 0, 0, G_OPTION_ARG_INT, &ppt, "Consecutive pixels per thread: 1, 2, 4, 8 or 16",
      "N" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &engine_name,
      "cuda or cpu (default: cuda when available)", "ENGINE" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, "CUDA device ordinal (default 0)", "N" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
      "Timed runs per shape after the warm-up (default 50 on CUDA, 5 on the CPU)", "N" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the results as JSON on stdout instead of the table", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &json_path, "Also write the results as JSON to FILE",
      "FILE" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path, "Also write the results as CSV to FILE",
      "FILE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("OP --in FILE [--in FILE]");
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (GArray) blocks = NULL;
  g_autoptr (KsSweepResult) result = NULL;
  KsImage *images[KS_OP_MAX_INPUTS] = { NULL, NULL };
  KsRunRequest request;
  const KsOp *op;
  guint n_inputs;
  int status = KS_CLI_EXIT_FAILED;

  g_option_context_set_summary (context,
                                "Measures an op under each of a set of block shapes, the rest of "
                                "the launch fixed: median kernel time, effective GB/s and, on "
                                "CUDA, theoretical occupancy and what limits it. The fastest is "
                                "marked.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (json);

  if (g_strv_length (args) != 2)
    {
      ks_cli_usage_error (&error, "sweep takes one op, for example “sweep gray --in photo.png” "
                          "(see %s ops)", g_get_prgname ());
      return ks_cli_report_error (error);
    }
  op = ks_op_registry_lookup (args[1]);
  if (op == NULL)
    {
      ks_cli_usage_error (&error, "unknown op “%s” (see %s ops)", args[1], g_get_prgname ());
      return ks_cli_report_error (error);
    }
  n_inputs = inputs != NULL ? g_strv_length (inputs) : 0;
  if (n_inputs != op->n_inputs)
    {
      ks_cli_usage_error (&error, "%s takes %u input image%s (--in FILE), got %u", op->id,
                          op->n_inputs, op->n_inputs == 1 ? "" : "s", n_inputs);
      return ks_cli_report_error (error);
    }
  if (repeat < 0 || repeat > 10000)
    {
      ks_cli_usage_error (&error, "--repeat must be between 1 and 10000 (0: the default), not %d",
                          repeat);
      return ks_cli_report_error (error);
    }
  if (ppt != 0 && ppt != 1 && ppt != 2 && ppt != 4 && ppt != 8 && ppt != 16)
    {
      ks_cli_usage_error (&error, "--ppt must be 1, 2, 4, 8 or 16, not %d", ppt);
      return ks_cli_report_error (error);
    }
  if ((json_path != NULL && !ks_file_check_writable (json_path, &error))
      || (csv_path != NULL && !ks_file_check_writable (csv_path, &error)))
    return ks_cli_report_error (error);

  ks_run_request_init (&request, op);
  for (guint i = 0; params != NULL && params[i] != NULL; i++)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_params_parse_assignment (&request.params, op, params[i], &local))
        {
          ks_cli_usage_error (&error, "--param %s: %s", params[i], local->message);
          return ks_cli_report_error (error);
        }
    }
  if (grid != NULL)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_dim3_parse (grid, &request.launch.grid, &local))
        {
          ks_cli_usage_error (&error, "--grid %s: %s", grid, local->message);
          return ks_cli_report_error (error);
        }
      request.launch.auto_grid = FALSE;
    }
  if (stride)
    request.launch.mode = KS_LAUNCH_GRID_STRIDE;
  if (ppt != 0)
    request.launch.pixels_per_thread = (guint) ppt;
  if (blocks_text != NULL && !g_str_equal (blocks_text, "presets")
      && !g_str_equal (blocks_text, "powers"))
    {
      g_autoptr (GError) local = NULL;

      blocks = ks_sweep_parse_blocks (blocks_text, &local);
      if (blocks == NULL)
        {
          ks_cli_usage_error (&error, "--blocks %s: %s", blocks_text, local->message);
          return ks_cli_report_error (error);
        }
    }

  for (guint i = 0; i < op->n_inputs; i++)
    if ((images[i] = ks_cli_load_input (inputs[i], i, &error)) == NULL)
      goto out;
  engine = ks_cli_open_engine (engine_name, device, &error);
  if (engine == NULL)
    goto out;
  for (guint i = 0; i < op->n_inputs; i++)
    {
      request.inputs[i] = ks_engine_upload (engine, images[i], NULL, &error);
      if (request.inputs[i] == NULL)
        goto out;
      g_clear_pointer (&images[i], ks_image_unref);
    }
  if (blocks == NULL)
    blocks = ks_sweep_blocks (blocks_text != NULL && g_str_equal (blocks_text, "powers")
                                ? KS_SWEEP_POWERS_OF_TWO : KS_SWEEP_PRESETS,
                              ks_device_get_limits (ks_engine_get_device (engine)));
  if (repeat == 0)
    repeat = ks_engine_is_cuda (engine) ? 50 : 5;

  result = ks_sweep_run (engine, &request, blocks, (guint) repeat, on_progress, NULL, NULL,
                         &error);
  if (result == NULL)
    goto out;
  print_table (result);
  if (csv_path != NULL)
    {
      g_autofree char *csv = ks_sweep_to_csv (result);

      if (!ks_file_replace_contents (csv_path, csv, strlen (csv), &error))
        goto out;
      ks_cli_print ("wrote %s\n", csv_path);
    }
  if (json || json_path != NULL)
    {
      g_autoptr (JsonNode) root = ks_sweep_to_json (result);

      if (!ks_cli_emit_json (root, json, json_path, &error))
        goto out;
      if (json_path != NULL)
        ks_cli_print ("wrote %s\n", json_path);
    }
  status = KS_CLI_EXIT_OK;

out:
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    {
      g_clear_pointer (&request.inputs[i], ks_buffer_unref);
      g_clear_pointer (&images[i], ks_image_unref);
    }
  if (error != NULL)
    status = ks_cli_report_error (error);
  return status;
}
