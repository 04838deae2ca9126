#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ks-bench.h"
#include "ks-cli.h"

/* "invert,histogram[global,rgba8],gray": commas inside brackets belong to the op. */
static GStrv
split_ops (const char *text)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr (GString) current = g_string_new (NULL);
  int depth = 0;

  for (const char *p = text;; p++)
    {
      if (*p == '\0' || (*p == ',' && depth == 0))
        {
          g_strstrip (current->str);
          if (current->str[0] != '\0')
            g_strv_builder_add (builder, current->str);
          g_string_truncate (current, 0);
          if (*p == '\0')
            break;
          continue;
        }
      if (*p == '[')
        depth++;
      else if (*p == ']' && depth > 0)
        depth--;
      g_string_append_c (current, *p);
    }
  return g_strv_builder_end (builder);
}

static void
on_progress (const KsBenchRow *row, guint index, guint n_rows, gpointer user_data)
{
  (void) user_data;
  /* Progress is for people watching a terminal, not for logs or tests. */
  if (!isatty (STDERR_FILENO))
    return;
  fprintf (stderr, "  [%u/%u] %-24s %.4f ms\n", index + 1, n_rows, row->id,
           row->timing.median_ms);
}

int
ks_cli_cmd_bench (int argc, char **argv)
{
  g_autofree char *size = NULL;
  g_autofree char *ops = NULL;
  g_autofree char *engine_name = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *block = NULL;
  g_autofree char *input_spec = NULL;
  g_autoptr (KsImage) input = NULL;
  int repeat = 0, device = -1, ppt = 0;
  gboolean json = FALSE;
  gboolean no_npp = FALSE, help = FALSE, stride = FALSE, per_pixel = FALSE, dirty = FALSE;
  const GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "Image size (default 7680x4320)", "WxH" },
    { "in", 'i', 0, G_OPTION_ARG_STRING, &input_spec,
      "An image every op reads instead of random data, at its own size (a file, testcard:WxH, "
      "random:WxH)", "INPUT" },
    { "ops", 0, 0, G_OPTION_ARG_STRING, &ops,
      "Ops to measure (default: all): op, op[method] or op[method,rgba8]", "a,b,…" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
      "Timed runs per op after the warm-up (default 100 on CUDA, at least 50; 10 on the CPU, "
      "at least 5)", "N" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &engine_name,
      "cuda or cpu (default: cuda when available)", "ENGINE" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, "CUDA device ordinal (default 0)", "N" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the results as JSON on stdout instead of the table", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &json_path, "Also write the results as JSON to FILE",
      "FILE" },
    { "no-npp", 0, 0, G_OPTION_ARG_NONE, &no_npp, "Do not measure NPP", NULL },
    { "dirty-flush", 0, 0, G_OPTION_ARG_NONE, &dirty,
      "Evict L2 by overwriting a buffer instead of reading one: every timed kernel then also "
      "writes back the dirty lines left behind", NULL },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &block,
      "Block size of every op (default: each op's own)", "X[xY[xZ]]" },
    { "ppt", 0, 0, G_OPTION_ARG_INT, &ppt,
      "Pixels per thread of every op: 1, 2, 4, 8 or 16 (default: each op's own)", "N" },
    { "stride", 's', 0, G_OPTION_ARG_NONE, &stride, "Grid-stride loop for every op", NULL },
    { "per-pixel", 0, 0, G_OPTION_ARG_NONE, &per_pixel,
      "One pass, a span per thread, for every op", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_auto (GStrv) args = NULL;
  g_auto (GStrv) op_list = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsBenchReport) report = NULL;
  g_autofree char *table = NULL;
  KsBenchOptions options;

  g_option_context_set_summary (
    context, "Measures each op on random images (or on --in): median kernel time after a warm-up, "
             "effective GB/s (bytes read and written counted once), its share of the "
             "device-to-device copy bandwidth measured in the same run, and NPP's time on the "
             "same buffers where NPP has an equivalent. On CUDA the shared-memory histogram "
             "also gets its two limits with the same launch: as many shared atomics alone, "
             "and reading the image alone.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (json);
  /* Checked now, not after minutes of measuring. */
  if (json_path != NULL && !ks_file_check_writable (json_path, &error))
    return ks_cli_report_error (error);
  if (g_strv_length (args) > 1)
    {
      ks_cli_usage_error (&error, "bench takes no arguments, got “%s” (ops go in --ops)",
                          args[1]);
      return ks_cli_report_error (error);
    }

  ks_bench_options_init (&options);
  if (size != NULL && !ks_cli_parse_size (size, &options.width, &options.height, &error))
    return ks_cli_report_error (error);
  if (size != NULL && input_spec != NULL)
    {
      ks_cli_usage_error (&error, "--size and --in exclude each other: an input is measured at "
                          "its own size");
      return ks_cli_report_error (error);
    }
  if (repeat < 0 || repeat > 100000)
    {
      ks_cli_usage_error (&error, "--repeat must be between 1 and 100000 (0: the default), "
                          "not %d", repeat);
      return ks_cli_report_error (error);
    }
  options.repeats = (guint) repeat;
  options.skip_npp = no_npp;
  options.dirty_flush = dirty;
  if (block != NULL && !ks_dim3_parse (block, &options.block, &error))
    {
      g_prefix_error (&error, "--block %s: ", block);
      error->domain = KS_CLI_ERROR;
      error->code = KS_CLI_ERROR_USAGE;
      return ks_cli_report_error (error);
    }
  if (ppt != 0 && ppt != 1 && ppt != 2 && ppt != 4 && ppt != 8 && ppt != 16)
    {
      ks_cli_usage_error (&error, "--ppt must be 1, 2, 4, 8 or 16, not %d", ppt);
      return ks_cli_report_error (error);
    }
  options.pixels_per_thread = (guint) ppt;
  if (stride && per_pixel)
    {
      ks_cli_usage_error (&error, "--stride and --per-pixel exclude each other");
      return ks_cli_report_error (error);
    }
  options.mapping = stride ? KS_BENCH_MAPPING_GRID_STRIDE
                    : per_pixel ? KS_BENCH_MAPPING_PER_PIXEL : KS_BENCH_MAPPING_OP;
  if (ops != NULL)
    {
      op_list = split_ops (ops);
      if (op_list[0] == NULL)
        {
          ks_cli_usage_error (&error, "--ops names no op");
          return ks_cli_report_error (error);
        }
      options.ops = (const char *const *) op_list;
    }

  /* Read before the engine starts, as run does. */
  if (input_spec != NULL)
    {
      g_autoptr (KsImage) loaded = ks_cli_load_input (input_spec, 0, &error);

      if (loaded == NULL)
        return ks_cli_report_error (error);
      input = ks_image_to_rgba (loaded);
      options.input = input;
    }

  engine = ks_cli_open_engine (engine_name, device, &error);
  if (engine == NULL)
    return ks_cli_report_error (error);

  report = ks_bench_run (engine, &options, on_progress, NULL, NULL, &error);
  if (report == NULL)
    {
      /* A bad --ops or --repeat is the command line's fault, not the device's. */
      if (g_error_matches (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT))
        {
          error->domain = KS_CLI_ERROR;
          error->code = KS_CLI_ERROR_USAGE;
        }
      return ks_cli_report_error (error);
    }

  table = ks_cli_bench_table (report);
  ks_cli_print ("%s", table);
  if (json || json_path != NULL)
    {
      g_autoptr (JsonNode) root = ks_cli_bench_json (report);

      if (!ks_cli_emit_json (root, json, json_path, &error))
        return ks_cli_report_error (error);
      if (json_path != NULL)
        ks_cli_print ("\nwrote %s\n", json_path);
    }
  return KS_CLI_EXIT_OK;
}
