#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ks-cli.h"
#include "ks-op-registry.h"

/* As typed on the command line: "32x8", "256", "4x4x2". */
static char *
dim3_arg (const KsDim3 *d)
{
  if (d->z != 1)
    return g_strdup_printf ("%ux%ux%u", d->x, d->y, d->z);
  if (d->y != 1)
    return g_strdup_printf ("%ux%u", d->x, d->y);
  return g_strdup_printf ("%u", d->x);
}

/* The suggestion as options to paste back: the block always, the grid and
 * pixels per thread only where the user chose them (otherwise the defaults
 * already follow the new block). */
static char *
suggestion_args (const KsLaunchConfig *requested, const KsLaunchConfig *suggestion)
{
  g_autofree char *block = dim3_arg (&suggestion->block);
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "--block %s", block);
  if (!requested->auto_grid && suggestion->grid.x != 0)
    {
      g_autofree char *grid = dim3_arg (&suggestion->grid);

      g_string_append_printf (s, " --grid %s", grid);
    }
  if (suggestion->mode == KS_LAUNCH_GRID_STRIDE && requested->mode != KS_LAUNCH_GRID_STRIDE)
    g_string_append (s, " --stride");
  if (requested->pixels_per_thread != 0 && suggestion->pixels_per_thread != 0
      && suggestion->pixels_per_thread != requested->pixels_per_thread)
    g_string_append_printf (s, " --ppt %u", suggestion->pixels_per_thread);
  return g_string_free (s, FALSE);
}

/* "random:WxH" and "testcard:WxH" make an input without a file: benchmarks
 * and classroom demos at any size. "gray:" before any input gives its luma
 * as a GRAY8 image (for the ops that take one: histogram, Sobel). Anything
 * else is a path. */
KsImage *
ks_cli_load_input (const char *spec, guint index, GError **error)
{
  const char *size = NULL;
  gboolean random = FALSE;
  guint w = 0, h = 0;
  KsImage *image;

  if (g_str_has_prefix (spec, "gray:"))
    {
      g_autoptr (KsImage) colour = ks_cli_load_input (spec + strlen ("gray:"), index, error);

      return colour != NULL ? ks_image_to_gray (colour, error) : NULL;
    }
  if (g_str_has_prefix (spec, "random:"))
    {
      size = spec + strlen ("random:");
      random = TRUE;
    }
  else if (g_str_has_prefix (spec, "testcard:"))
    size = spec + strlen ("testcard:");
  else if (*spec == '\0')
    {
      ks_cli_usage_error (error, "--in needs a file name, random:WxH or testcard:WxH");
      return NULL;
    }
  else
    return ks_image_load (spec, error);
  /* Digits only, each side within the engine's limit: no wrapped negative
   * sizes, no overflow to a tiny image, no trailing junk. */
  if (!ks_cli_parse_size (size, &w, &h, error))
    {
      g_prefix_error (error, "“%s”: ", spec);
      return NULL;
    }
  if (!random)
    return ks_image_new_test_card (w, h, error);
  image = ks_image_new (KS_FORMAT_RGBA8, w, h, error);
  if (image != NULL)
    ks_image_fill_random (image, 0x5eed0001u + index);
  return image;
}

static gboolean
ends_with_csv (const char *path)
{
  gsize n = strlen (path);

  return n >= 4 && g_ascii_strcasecmp (path + n - 4, ".csv") == 0;
}

static void
print_ms (const char *label, double ms)
{
  if (ms >= 0 && isfinite (ms))
    ks_cli_print ("  %-9s %.4f ms\n", label, ms);
  else
    ks_cli_print ("  %-9s -\n", label);
}

static const char *const channel_names[4] = { "R", "G", "B", "luma" };

/* One character per 8 bins, the height of their fullest bin against the peak. */
static char *
sparkline (const guint32 *bins, guint32 peak)
{
  static const char *const levels[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < 256; i += 8)
    {
      guint32 top = 0;

      for (guint j = i; j < i + 8; j++)
        top = MAX (top, bins[j]);
      if (top == 0 || peak == 0)
        g_string_append_c (s, ' ');
      else
        g_string_append (s, levels[MIN ((guint64) top * 8 / ((guint64) peak + 1), 7)]);
    }
  return g_string_free (s, FALSE);
}

static void
print_histograms (const guint32 histogram[4][256])
{
  ks_cli_print ("histograms (256 bins; sparkline: 8 bins per character):\n");
  for (guint c = 0; c < 4; c++)
    {
      guint64 sum = 0;
      int first = -1, last = -1;
      guint peak_bin = 0;
      g_autofree char *line = NULL;

      for (guint b = 0; b < 256; b++)
        {
          sum += histogram[c][b];
          if (histogram[c][b] != 0)
            {
              if (first < 0)
                first = (int) b;
              last = (int) b;
            }
          if (histogram[c][b] > histogram[c][peak_bin])
            peak_bin = b;
        }
      line = sparkline (histogram[c], histogram[c][peak_bin]);
      if (first < 0)
        ks_cli_print ("  %-4s  sum 0, every bin empty\n", channel_names[c]);
      else
        ks_cli_print ("  %-4s  sum %" G_GUINT64_FORMAT ", bins %d to %d non-empty, peak %u at %u"
                      "  |%s|\n", channel_names[c], sum, first, last, histogram[c][peak_bin],
                      peak_bin, line);
    }
}

static gboolean
write_histogram_csv (const guint32 histogram[4][256], const char *path, GError **error)
{
  g_autoptr (GString) s = g_string_new ("bin,r,g,b,luma\n");

  for (guint b = 0; b < 256; b++)
    g_string_append_printf (s, "%u,%u,%u,%u,%u\n", b, histogram[0][b], histogram[1][b],
                            histogram[2][b], histogram[3][b]);
  return ks_file_replace_contents (path, s->str, s->len, error);
}

static void
print_engine (KsEngine *engine, JsonBuilder *jb)
{
  KsDevice *device = ks_engine_get_device (engine);

  json_builder_set_member_name (jb, "engine");
  json_builder_add_string_value (jb, ks_engine_is_cuda (engine) ? "cuda" : "cpu");
  json_builder_set_member_name (jb, "device");
  ks_json_add_string (jb, ks_device_get_name (device));
  json_builder_set_member_name (jb, "device_id");
  ks_json_add_string (jb, ks_device_get_id (device));
  if (!ks_engine_is_cuda (engine))
    {
      json_builder_set_member_name (jb, "cpu_threads");
      json_builder_add_int_value (jb, ks_engine_get_n_workers (engine));
    }

  if (ks_engine_is_cuda (engine))
    ks_cli_print ("engine: CUDA on %s (%s)\n", ks_device_get_name (device),
                  ks_device_get_id (device));
  else
    ks_cli_print ("engine: CPU, %u worker thread%s\n", ks_engine_get_n_workers (engine),
                  ks_engine_get_n_workers (engine) == 1 ? "" : "s");
}

static gboolean
print_launch (KsEngine *engine, const KsRunRequest *request, const KsLaunchConfig *resolved,
              guint width, guint height, JsonBuilder *jb, GError **error)
{
  g_autofree char *launch = ks_cli_describe_launch (resolved,
                                                     request->op->default_pixels_per_thread, TRUE);
  KsLaunchTotals totals;

  ks_launch_totals (resolved, width, height, &totals);
  ks_cli_json_add_launch (jb, "launch", resolved, request->op->default_pixels_per_thread, TRUE);
  json_builder_set_member_name (jb, "totals");
  json_builder_begin_object (jb);
  json_builder_set_member_name (jb, "blocks");
  json_builder_add_int_value (jb, (gint64) totals.blocks);
  json_builder_set_member_name (jb, "threads");
  json_builder_add_int_value (jb, (gint64) totals.threads);
  json_builder_set_member_name (jb, "pixels");
  json_builder_add_int_value (jb, (gint64) totals.pixels);
  json_builder_set_member_name (jb, "idle_threads");
  json_builder_add_int_value (jb, (gint64) totals.idle_threads);
  json_builder_set_member_name (jb, "unreached_pixels");
  json_builder_add_int_value (jb, (gint64) totals.unreached_pixels);
  json_builder_end_object (jb);
  ks_cli_print ("launch: %s\n", launch);
  ks_cli_print ("  %" G_GUINT64_FORMAT " blocks, %" G_GUINT64_FORMAT " threads for %"
                G_GUINT64_FORMAT " pixels; %" G_GUINT64_FORMAT " idle threads, %" G_GUINT64_FORMAT
                " pixels no thread reaches\n",
                totals.blocks, totals.threads, totals.pixels, totals.idle_threads,
                totals.unreached_pixels);

  if (ks_engine_is_cuda (engine))
    {
      KsKernelAttributes attrs;
      KsOccupancy occupancy;

      if (!ks_engine_kernel_attributes (engine, request, &attrs, error))
        return FALSE;
      ks_launch_occupancy (resolved, ks_device_get_limits (ks_engine_get_device (engine)), &attrs,
                           &occupancy);
      json_builder_set_member_name (jb, "occupancy");
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "theoretical");
      ks_json_add_number (jb, occupancy.occupancy);
      json_builder_set_member_name (jb, "active_warps_per_sm");
      json_builder_add_int_value (jb, occupancy.active_warps_per_sm);
      json_builder_set_member_name (jb, "max_warps_per_sm");
      json_builder_add_int_value (jb, occupancy.max_warps_per_sm);
      json_builder_set_member_name (jb, "active_blocks_per_sm");
      json_builder_add_int_value (jb, occupancy.active_blocks_per_sm);
      json_builder_set_member_name (jb, "limited_by");
      ks_json_add_string (jb, ks_occupancy_limit_describe (occupancy.limiter));
      json_builder_set_member_name (jb, "registers_per_thread");
      json_builder_add_int_value (jb, attrs.num_regs);
      json_builder_set_member_name (jb, "shared_bytes_per_block");
      json_builder_add_int_value (jb, (gint64) (attrs.shared_static + attrs.shared_dynamic));
      json_builder_set_member_name (jb, "local_bytes_per_thread");
      json_builder_add_int_value (jb, (gint64) attrs.local_bytes);
      json_builder_end_object (jb);
      ks_cli_print ("occupancy: %.0f%% (%u of %u warps per multiprocessor, %u blocks), "
                    "limited by %s\n",
                    occupancy.occupancy * 100.0, occupancy.active_warps_per_sm,
                    occupancy.max_warps_per_sm, occupancy.active_blocks_per_sm,
                    ks_occupancy_limit_describe (occupancy.limiter));
      ks_cli_print ("  kernel: %u registers per thread, %" G_GUINT64_FORMAT " bytes of shared "
                    "memory per block, %" G_GUINT64_FORMAT " bytes of local memory per thread\n",
                    attrs.num_regs, attrs.shared_static + attrs.shared_dynamic, attrs.local_bytes);
    }
  return TRUE;
}

/* The coverage map of the run, from an instrumented run of its own after the
 * timed ones (instrumented kernels are slower); *summary gets its counts. */
static KsImage *
coverage_map (KsEngine *engine, const KsRunRequest *timed, KsCoverage *summary, GError **error)
{
  KsRunRequest request = *timed;
  KsRunResult result = { 0 };
  KsImage *map = NULL;

  request.instrument = TRUE;
  if (!ks_engine_run (engine, &request, &result, error))
    return NULL;
  if (result.coverage == NULL)
    g_set_error_literal (error, KS_ERROR, KS_ERROR_FAILED, "the engine recorded no coverage");
  else
    {
      map = ks_coverage_to_image (result.coverage);
      *summary = *result.coverage;
      summary->writes = summary->owner_block = summary->owner_thread = NULL;
    }
  ks_run_result_clear (&result);
  return map;
}

/* Options of `run`, parsed. */
typedef struct
{
  char **inputs;
  char *output;
  char **params;
  char *block;
  char *grid;
  gboolean stride;
  int ppt;
  char *engine;
  int device;
  int repeat;
  char *coverage;
  gboolean json;
} RunOptions;

static void
run_options_clear (RunOptions *o)
{
  g_strfreev (o->inputs);
  g_free (o->output);
  g_strfreev (o->params);
  g_free (o->block);
  g_free (o->grid);
  g_free (o->engine);
  g_free (o->coverage);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunOptions, run_options_clear)

/* Turns the command line into a request. Every failure here is a usage error. */
static gboolean
build_request (const RunOptions *o, char **args, KsRunRequest *request, GError **error)
{
  const KsOp *op;
  guint n_inputs = o->inputs != NULL ? g_strv_length (o->inputs) : 0;
  guint n_args = g_strv_length (args);

  if (n_args < 2)
    {
      ks_cli_usage_error (error, "run needs an op, for example “run gray --in photo.png --out "
                          "gray.png” (see %s ops)", g_get_prgname ());
      return FALSE;
    }
  if (n_args > 2)
    {
      ks_cli_usage_error (error, "run takes one op, got “%s” too (inputs go after --in)",
                          args[2]);
      return FALSE;
    }
  op = ks_op_registry_lookup (args[1]);
  if (op == NULL)
    {
      ks_cli_usage_error (error, "unknown op “%s” (see %s ops)", args[1], g_get_prgname ());
      return FALSE;
    }
  if (n_inputs != op->n_inputs)
    {
      ks_cli_usage_error (error, "%s takes %u input image%s (--in FILE), got %u", op->id,
                          op->n_inputs, op->n_inputs == 1 ? "" : "s", n_inputs);
      return FALSE;
    }
  if (op->output_kind == KS_OP_OUTPUT_HISTOGRAM && o->output != NULL
      && !ends_with_csv (o->output))
    {
      ks_cli_usage_error (error, "%s computes histograms: --out must name a .csv file, not “%s”",
                          op->id, o->output);
      return FALSE;
    }
  /* An image's format follows its extension: one that none writes is the
   * command line's mistake, found before any work. */
  if ((op->output_kind == KS_OP_OUTPUT_IMAGE && o->output != NULL
       && !ks_image_check_save_path (o->output, error))
      || (o->coverage != NULL && !ks_image_check_save_path (o->coverage, error)))
    {
      (*error)->domain = KS_CLI_ERROR;
      (*error)->code = KS_CLI_ERROR_USAGE;
      return FALSE;
    }
  /* Every run's time is kept: the bound keeps memory and time in reason. */
  if (o->repeat < 1 || o->repeat > 10000)
    {
      ks_cli_usage_error (error, "--repeat must be between 1 and 10000, not %d", o->repeat);
      return FALSE;
    }
  if (o->ppt != 0 && o->ppt != 1 && o->ppt != 2 && o->ppt != 4 && o->ppt != 8 && o->ppt != 16)
    {
      ks_cli_usage_error (error, "--ppt must be 1, 2, 4, 8 or 16, not %d", o->ppt);
      return FALSE;
    }

  ks_run_request_init (request, op);
  for (guint i = 0; o->params != NULL && o->params[i] != NULL; i++)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_params_parse_assignment (&request->params, op, o->params[i], &local))
        {
          ks_cli_usage_error (error, "--param %s: %s", o->params[i], local->message);
          return FALSE;
        }
    }
  if (o->block != NULL)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_dim3_parse (o->block, &request->launch.block, &local))
        {
          ks_cli_usage_error (error, "--block %s: %s", o->block, local->message);
          return FALSE;
        }
    }
  if (o->grid != NULL)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_dim3_parse (o->grid, &request->launch.grid, &local))
        {
          ks_cli_usage_error (error, "--grid %s: %s", o->grid, local->message);
          return FALSE;
        }
      request->launch.auto_grid = FALSE;
    }
  if (o->stride)
    request->launch.mode = KS_LAUNCH_GRID_STRIDE;
  if (o->ppt != 0)
    request->launch.pixels_per_thread = (guint) o->ppt;
  return TRUE;
}

static int
run_op (const RunOptions *o, KsRunRequest *request)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsImage) output = NULL;
  g_autoptr (KsImage) map = NULL;
  /* The report --json prints, built beside the text. */
  g_autoptr (JsonBuilder) jb = json_builder_new ();
  KsCoverage coverage = { 0 };
  KsImage *images[KS_OP_MAX_INPUTS] = { NULL, NULL };
  KsRunResult result = { 0 };
  KsTiming timing = { 0 };
  KsTimingOptions options;
  KsLaunchConfig resolved, suggestion;
  const KsOp *op = request->op;
  double upload_ms = 0, download_ms = -1;
  guint width = 0, height = 0;
  int status = KS_CLI_EXIT_FAILED;

  /* Every output is checked before any is written: a bad path for one must
   * not fail the run after another was already replaced. */
  if ((o->output != NULL && !ks_file_check_writable (o->output, &error))
      || (o->coverage != NULL && !ks_file_check_writable (o->coverage, &error)))
    goto out;
  if (o->output != NULL && o->coverage != NULL && g_str_equal (o->output, o->coverage))
    {
      ks_cli_usage_error (&error, "--out and --coverage name the same file, “%s”", o->output);
      goto out;
    }

  /* The inputs are read before the engine starts, so that a bad file is the
   * only thing said; each host copy goes once it is on the engine, so a
   * large image is held at most twice (ks-image.h states the peak). */
  for (guint i = 0; i < op->n_inputs; i++)
    {
      images[i] = ks_cli_load_input (o->inputs[i], i, &error);
      if (images[i] == NULL)
        goto out;
    }
  width = images[0]->width;
  height = images[0]->height;
  engine = ks_cli_open_engine (o->engine, o->device, &error);
  if (engine == NULL)
    goto out;
  for (guint i = 0; i < op->n_inputs; i++)
    {
      double ms = 0;

      request->inputs[i] = ks_engine_upload (engine, images[i], &ms, &error);
      if (request->inputs[i] == NULL)
        goto out;
      g_clear_pointer (&images[i], ks_image_unref);
      upload_ms += ms;
    }

  json_builder_begin_object (jb);
  print_engine (engine, jb);
  ks_cli_print ("op: %s — %s on %u×%u", op->id, op->title, width, height);
  json_builder_set_member_name (jb, "op");
  ks_json_add_string (jb, op->id);
  json_builder_set_member_name (jb, "width");
  json_builder_add_int_value (jb, width);
  json_builder_set_member_name (jb, "height");
  json_builder_add_int_value (jb, height);
  json_builder_set_member_name (jb, "params");
  json_builder_begin_object (jb);
  for (guint p = 0; p < op->n_params; p++)
    {
      g_autofree char *value = ks_param_format_value (&op->params[p], request->params.values[p]);

      ks_cli_print ("%s%s=%s", p == 0 ? ", " : " ", op->params[p].name, value);
      json_builder_set_member_name (jb, op->params[p].name);
      ks_cli_json_add_param (jb, &op->params[p], request->params.values[p]);
    }
  json_builder_end_object (jb);
  ks_cli_print ("\n");

  if (!ks_engine_validate (engine, request, &resolved, &suggestion, &error))
    {
      if (g_error_matches (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
        {
          g_autofree char *fix = suggestion_args (&request->launch, &suggestion);
          g_autofree char *message = g_strdup_printf ("%s (try: %s)", error->message, fix);

          g_free (error->message);
          error->message = g_steal_pointer (&message);
        }
      goto out;
    }
  if (!print_launch (engine, request, &resolved, width, height, jb, &error))
    goto out;

  ks_timing_options_init (&options, (guint) o->repeat);
  if (!ks_engine_measure (engine, request, &options, &result, &timing, &error))
    goto out;

  /* Everything to write is computed before the first file is written. */
  if (o->coverage != NULL && (map = coverage_map (engine, request, &coverage, &error)) == NULL)
    goto out;
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    g_clear_pointer (&request->inputs[i], ks_buffer_unref);
  if (op->output_kind == KS_OP_OUTPUT_IMAGE)
    {
      output = ks_engine_download (engine, result.output, &download_ms, &error);
      if (output == NULL)
        goto out;
      g_clear_pointer (&result.output, ks_buffer_unref);
    }
  /* Without --out the run is only timed. */
  if (op->output_kind == KS_OP_OUTPUT_IMAGE && o->output != NULL
      && !ks_image_save (output, o->output, &error))
    goto out;

  ks_cli_print ("timings:\n");
  print_ms ("upload", upload_ms);
  ks_cli_print ("  %-9s %.4f ms median of %u run%s (±%.4f MAD, min %.4f, max %.4f); "
                "warm-up %.4f ms, not counted\n",
                "kernel", timing.median_ms, timing.n, timing.n == 1 ? "" : "s", timing.mad_ms,
                timing.min_ms, timing.max_ms, timing.warmup_ms);
  print_ms ("download", download_ms);
  json_builder_set_member_name (jb, "upload_ms");
  ks_json_add_number (jb, upload_ms);
  json_builder_set_member_name (jb, "kernel");
  json_builder_begin_object (jb);
  ks_json_add_timing (jb, &timing, "runs");
  json_builder_end_object (jb);
  json_builder_set_member_name (jb, "download_ms");
  ks_json_add_number (jb, download_ms >= 0 ? download_ms : NAN);
  json_builder_set_member_name (jb, "output");
  ks_json_add_string (jb, o->output);

  if (op->output_kind == KS_OP_OUTPUT_HISTOGRAM)
    {
      print_histograms ((const guint32 (*)[256]) result.histogram);
      json_builder_set_member_name (jb, "histograms");
      json_builder_begin_object (jb);
      for (guint c = 0; c < 4; c++)
        {
          json_builder_set_member_name (jb, c < 3 ? (const char *[]) { "r", "g", "b" }[c]
                                                  : "luma");
          json_builder_begin_array (jb);
          for (guint bin = 0; bin < 256; bin++)
            json_builder_add_int_value (jb, result.histogram[c][bin]);
          json_builder_end_array (jb);
        }
      json_builder_end_object (jb);
      if (o->output != NULL)
        {
          if (!write_histogram_csv ((const guint32 (*)[256]) result.histogram, o->output, &error))
            goto out;
          ks_cli_print ("wrote %s\n", o->output);
        }
    }
  else
    {
      if (o->output != NULL)
        ks_cli_print ("wrote %s (%s, %u×%u)\n", o->output, ks_format_name (output->format),
                      output->width, output->height);
      else
        ks_cli_print ("result not written (no --out)\n");
    }

  if (map != NULL)
    {
      if (!ks_image_save (map, o->coverage, &error))
        goto out;
      ks_cli_print ("coverage: %" G_GUINT64_FORMAT " pixels never written, %" G_GUINT64_FORMAT
                    " written more than once, %" G_GUINT64_FORMAT " idle threads → %s\n",
                    coverage.unwritten_pixels, coverage.multiply_written_pixels,
                    coverage.idle_threads, o->coverage);
      json_builder_set_member_name (jb, "coverage");
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "file");
      ks_json_add_string (jb, o->coverage);
      json_builder_set_member_name (jb, "unwritten_pixels");
      json_builder_add_int_value (jb, (gint64) coverage.unwritten_pixels);
      json_builder_set_member_name (jb, "multiply_written_pixels");
      json_builder_add_int_value (jb, (gint64) coverage.multiply_written_pixels);
      json_builder_set_member_name (jb, "idle_threads");
      json_builder_add_int_value (jb, (gint64) coverage.idle_threads);
      json_builder_end_object (jb);
    }
  json_builder_end_object (jb);
  if (o->json)
    {
      g_autoptr (JsonNode) root = json_builder_get_root (jb);

      ks_cli_emit_json (root, TRUE, NULL, NULL);
    }
  status = KS_CLI_EXIT_OK;

out:
  if (error != NULL)
    status = ks_cli_report_error (error);
  ks_timing_clear (&timing);
  ks_run_result_clear (&result);
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    {
      g_clear_pointer (&request->inputs[i], ks_buffer_unref);
      g_clear_pointer (&images[i], ks_image_unref);
    }
  return status;
}

int
ks_cli_cmd_run (int argc, char **argv)
{
  g_auto (RunOptions) o = { .device = -1, .repeat = 5 };
  gboolean help = FALSE;
  const GOptionEntry entries[] = {
    { "in", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.inputs,
      "Input image (twice for two-input ops), or random:WxH or testcard:WxH; gray:INPUT for its "
      "luma as a gray image",
      "FILE" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
      "Output image; for histogram ops a .csv file (optional)", "FILE" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o.params, "Set a parameter (repeatable)",
      "NAME=VALUE" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &o.block, "Block size (default: the op's)",
      "X[xY[xZ]]" },
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &o.grid,
      "Grid size, used exactly (default: enough blocks to cover the image)", "X[xY[xZ]]" },
    { "stride", 's', 0, G_OPTION_ARG_NONE, &o.stride, "Grid-stride loop instead of one pass",
      NULL },
    { "ppt", 0, 0, G_OPTION_ARG_INT, &o.ppt, "Consecutive pixels per thread: 1, 2, 4, 8 or 16",
      "N" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &o.engine,
      "cuda or cpu (default: cuda when available)", "ENGINE" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &o.device, "CUDA device ordinal (default 0)", "N" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &o.repeat,
      "Timed kernel runs after the warm-up (default 5)", "N" },
    { "coverage", 'c', 0, G_OPTION_ARG_FILENAME, &o.coverage,
      "Write the coverage map: white once, black never, red more than once", "FILE.png" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &o.json,
      "Print the launch, occupancy, timings (and histograms) as JSON on stdout", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("OP --in FILE [--in FILE] --out FILE");
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  KsRunRequest request;

  g_option_context_set_summary (context,
                                "Runs an op on image files under a launch configuration and "
                                "prints the launch, its occupancy and the stage timings.\n"
                                "Histogram ops print their four histograms; --out FILE.csv "
                                "writes them.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (o.json);
  if (!build_request (&o, args, &request, &error))
    return ks_cli_report_error (error);
  return run_op (&o, &request);
}

/* ---- compare ------------------------------------------------------------ */

int
ks_cli_cmd_compare (int argc, char **argv)
{
  g_autofree char *diff_path = NULL;
  gboolean expect_equal = FALSE, help = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "diff", 0, 0, G_OPTION_ARG_FILENAME, &diff_path, "Write an image of the differences",
      "FILE.png" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print the comparison as JSON on stdout", NULL },
    { "expect-equal", 0, 0, G_OPTION_ARG_NONE, &expect_equal,
      "Fail (exit status 1) when the images differ", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("A B");
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) a = NULL;
  g_autoptr (KsImage) b = NULL;
  g_autoptr (KsImage) diff_image = NULL;
  KsImageDiff diff;
  guint64 pixels;

  g_option_context_set_summary (context, "Compares two images of the same size: largest "
                                "difference of a channel, PSNR, number of differing pixels.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (json);
  if (g_strv_length (args) != 3)
    {
      ks_cli_usage_error (&error, "compare takes two images, got %u", g_strv_length (args) - 1);
      return ks_cli_report_error (error);
    }
  if (diff_path != NULL && !ks_image_check_save_path (diff_path, &error))
    return ks_cli_report_error (error);

  a = ks_image_load (args[1], &error);
  if (a == NULL)
    return ks_cli_report_error (error);
  b = ks_image_load (args[2], &error);
  if (b == NULL)
    return ks_cli_report_error (error);
  if (!ks_image_compare (a, b, &diff, diff_path != NULL ? &diff_image : NULL, &error))
    return ks_cli_report_error (error);

  pixels = (guint64) a->width * a->height;
  ks_cli_print ("size: %u×%u\n", a->width, a->height);
  ks_cli_print ("max abs difference: %u\n", diff.max_abs_diff);
  if (isinf (diff.psnr))
    ks_cli_print ("PSNR: inf (identical)\n");
  else
    ks_cli_print ("PSNR: %.2f dB\n", diff.psnr);
  ks_cli_print ("differing pixels: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " (%.4f%%)\n",
                diff.differing_pixels, pixels,
                pixels > 0 ? 100.0 * (double) diff.differing_pixels / (double) pixels : 0.0);

  if (diff_path != NULL && diff_image != NULL)
    {
      if (!ks_image_save (diff_image, diff_path, &error))
        return ks_cli_report_error (error);
      ks_cli_print ("wrote %s\n", diff_path);
    }
  if (json)
    {
      g_autoptr (JsonBuilder) jb = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;

      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "width");
      json_builder_add_int_value (jb, a->width);
      json_builder_set_member_name (jb, "height");
      json_builder_add_int_value (jb, a->height);
      json_builder_set_member_name (jb, "format");
      json_builder_add_string_value (jb, ks_format_name (a->format));
      json_builder_set_member_name (jb, "max_abs_difference");
      json_builder_add_int_value (jb, diff.max_abs_diff);
      /* Identical images have an infinite PSNR: null, as JSON has no infinity. */
      json_builder_set_member_name (jb, "psnr_db");
      ks_json_add_number (jb, diff.psnr);
      json_builder_set_member_name (jb, "identical");
      json_builder_add_boolean_value (jb, diff.differing_pixels == 0);
      json_builder_set_member_name (jb, "differing_pixels");
      json_builder_add_int_value (jb, (gint64) diff.differing_pixels);
      json_builder_set_member_name (jb, "pixels");
      json_builder_add_int_value (jb, (gint64) pixels);
      json_builder_set_member_name (jb, "diff");
      ks_json_add_string (jb, diff_path);
      json_builder_end_object (jb);
      root = json_builder_get_root (jb);
      ks_cli_emit_json (root, TRUE, NULL, NULL);
    }

  if (expect_equal && diff.differing_pixels > 0)
    {
      g_set_error (&error, KS_ERROR, KS_ERROR_FAILED,
                   "the images differ: %" G_GUINT64_FORMAT " pixels, by up to %u",
                   diff.differing_pixels, diff.max_abs_diff);
      return ks_cli_report_error (error);
    }
  return KS_CLI_EXIT_OK;
}
