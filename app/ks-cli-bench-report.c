/* ks-cli-bench-report.c: the benchmark's results for people (a table) and for
 * scripts (JSON). build-aux/gpu-check.sh reads the JSON, so its member names
 * and nesting are an interface. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-cli.h"

/* ---- table -------------------------------------------------------------- */

static void
append_ms (GString *s, double ms, int width)
{
  if (isfinite (ms))
    g_string_append_printf (s, " %*.4f", width, ms);
  else
    g_string_append_printf (s, " %*s", width, "-");
}

static void
append_number (GString *s, double value, int width, int precision, const char *suffix)
{
  if (isfinite (value))
    g_string_append_printf (s, " %*.*f%s", width, precision, value, suffix);
  else
    g_string_append_printf (s, " %*s%*s", width, "-", (int) strlen (suffix), "");
}

/* "32x8 ppt4 stride": the block, the pixels per thread and the mapping. */
static char *
launch_label (const KsLaunchConfig *launch)
{
  return g_strdup_printf ("%ux%u%s ppt%u%s", launch->block.x, launch->block.y,
                          launch->block.z > 1 ? "x…" : "", launch->pixels_per_thread,
                          launch->mode == KS_LAUNCH_GRID_STRIDE ? " stride" : "");
}

char *
ks_cli_bench_table (const KsBenchReport *report)
{
  GString *s;
  gboolean any_npp = FALSE;

  g_return_val_if_fail (report != NULL, NULL);

  s = g_string_new (NULL);
  g_string_append_printf (s, "Benchmark on %s (%s), %u×%u%s, median of %u runs after a "
                             "warm-up\n",
                          report->device_name, report->device_id, report->width, report->height,
                          report->random_input ? " random" : " from the given image",
                          report->repeats);
  if (report->is_cuda)
    g_string_append_printf (s, "L2 evicted before every timed run by %s\n",
                            report->dirty_flush ? "overwriting a buffer (dirty lines left)"
                                                : "reading a buffer (clean lines left)");
  if (isfinite (report->copy_gbs))
    g_string_append_printf (s, "Device-to-device copy: %.1f GB/s (%.3f ms for %.2f GiB, ±%.3f)",
                            report->copy_gbs, report->copy_timing.median_ms,
                            (double) report->copy_bytes / (1024.0 * 1024.0 * 1024.0),
                            report->copy_timing.mad_ms);
  else
    g_string_append_printf (s, "Device-to-device copy: not measured (%s)",
                            report->copy_note != NULL ? report->copy_note : "unknown");
  if (report->peak_bandwidth_gbs > 0)
    g_string_append_printf (s, "; theoretical peak %.0f GB/s", report->peak_bandwidth_gbs);
  g_string_append_c (s, '\n');
  if (report->npp_version != NULL)
    g_string_append_printf (s, "NPP %s\n", report->npp_version[0] != '\0' ? report->npp_version
                                                                          : "(version unknown)");
  else
    g_string_append_printf (s, "NPP: %s\n", report->npp_note != NULL ? report->npp_note : "-");

  for (guint i = 0; i < report->rows->len; i++)
    if (g_array_index (report->rows, KsBenchRow, i).npp != NULL)
      any_npp = TRUE;

  g_string_append_printf (s, "\n%-24s %-5s %-18s %10s %8s %8s %7s", "op", "input", "launch",
                          "median ms", "±MAD", "GB/s", "of copy");
  if (any_npp)
    g_string_append_printf (s, "  %-24s %10s %8s %8s %8s %5s", "NPP", "median ms", "±MAD", "GB/s",
                            "ours/NPP", "same");
  g_string_append_c (s, '\n');

  for (guint i = 0; i < report->rows->len; i++)
    {
      const KsBenchRow *row = &g_array_index (report->rows, KsBenchRow, i);

      g_autofree char *launch = launch_label (&row->launch);

      g_string_append_printf (s, "%-24s %-5s %-18s", row->id, ks_format_name (row->input_format),
                              launch);
      append_ms (s, row->timing.median_ms, 10);
      append_ms (s, row->timing.mad_ms, 8);
      append_number (s, row->gbs, 8, 1, "");
      append_number (s, row->share_of_copy * 100.0, 6, 1, "%");
      if (row->npp != NULL)
        {
          g_string_append_printf (s, "  %-24s", row->npp->name);
          append_ms (s, row->npp->timing.median_ms, 10);
          append_ms (s, row->npp->timing.mad_ms, 8);
          append_number (s, row->npp->gbs, 8, 1, "");
          append_number (s, row->npp->ratio, 8, 2, "");
          g_string_append_printf (s, " %5s", row->npp->agrees ? "yes" : "NO");
        }
      else if (row->npp_note != NULL)
        {
          g_string_append_printf (s, "  NPP: %s", row->npp_note);
        }
      if (isfinite (row->atomics_limit_ms))
        g_string_append_printf (s, "\n%-24s as many shared atomics at random bins: %.4f ms "
                                   "(the row at %.0f %% of that limit)",
                                "", row->atomics_limit_ms, 100.0 * row->share_of_atomics_limit);
      if (isfinite (row->read_limit_ms))
        g_string_append_printf (s, "\n%-24s reading the image alone: %.4f ms "
                                   "(the row at %.0f %% of that limit)",
                                "", row->read_limit_ms, 100.0 * row->share_of_read_limit);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

/* ---- JSON --------------------------------------------------------------- */

static void
add_npp (JsonBuilder *b, const KsBenchNpp *npp)
{
  json_builder_set_member_name (b, "npp");
  if (npp == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  ks_json_add_string (b, npp->name);
  ks_json_add_timing (b, &npp->timing, "runs");
  json_builder_set_member_name (b, "gbs");
  ks_json_add_number (b, npp->gbs);
  json_builder_set_member_name (b, "ratio");
  ks_json_add_number (b, npp->ratio);
  json_builder_set_member_name (b, "agrees");
  json_builder_add_boolean_value (b, npp->agrees);
  json_builder_end_object (b);
}

static void
add_row (JsonBuilder *b, const KsBenchRow *row)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  ks_json_add_string (b, row->id);
  json_builder_set_member_name (b, "op");
  ks_json_add_string (b, row->op->id);
  json_builder_set_member_name (b, "method");
  ks_json_add_string (b, row->method);
  json_builder_set_member_name (b, "input");
  ks_json_add_string (b, ks_format_name (row->input_format));
  json_builder_set_member_name (b, "bytes");
  json_builder_add_int_value (b, (gint64) row->bytes);
  ks_json_add_launch (b, "launch", &row->launch, KS_JSON_LAUNCH_NONE);
  /* The row's timing sits among its members: scripts read row["median_ms"]. */
  ks_json_add_timing (b, &row->timing, "runs");
  json_builder_set_member_name (b, "gbs");
  ks_json_add_number (b, row->gbs);
  json_builder_set_member_name (b, "share_of_copy");
  ks_json_add_number (b, row->share_of_copy);
  add_npp (b, row->npp);
  json_builder_set_member_name (b, "npp_note");
  ks_json_add_string (b, row->npp_note);
  json_builder_set_member_name (b, "atomics_limit_ms");
  ks_json_add_number (b, row->atomics_limit_ms);
  json_builder_set_member_name (b, "share_of_atomics_limit");
  ks_json_add_number (b, row->share_of_atomics_limit);
  json_builder_set_member_name (b, "read_limit_ms");
  ks_json_add_number (b, row->read_limit_ms);
  json_builder_set_member_name (b, "share_of_read_limit");
  ks_json_add_number (b, row->share_of_read_limit);
  json_builder_end_object (b);
}

JsonNode *
ks_cli_bench_json (const KsBenchReport *report)
{
  g_autoptr (JsonBuilder) b = NULL;

  g_return_val_if_fail (report != NULL, NULL);

  b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kernelscope_version");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "device");
  ks_json_add_string (b, report->device_name);
  json_builder_set_member_name (b, "device_id");
  ks_json_add_string (b, report->device_id);
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, report->is_cuda ? "cuda" : "cpu");
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, report->width);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, report->height);
  json_builder_set_member_name (b, "repeats");
  json_builder_add_int_value (b, report->repeats);
  json_builder_set_member_name (b, "input");
  json_builder_add_string_value (b, report->random_input ? "random" : "image");
  /* The CPU engine has no L2 eviction to speak of. */
  json_builder_set_member_name (b, "l2_flush");
  ks_json_add_string (b, !report->is_cuda ? NULL : report->dirty_flush ? "write" : "read");
  json_builder_set_member_name (b, "peak_bandwidth_gbs");
  ks_json_add_number (b, report->peak_bandwidth_gbs > 0 ? report->peak_bandwidth_gbs : NAN);
  json_builder_set_member_name (b, "copy_bandwidth_gbs");
  ks_json_add_number (b, report->copy_gbs);
  json_builder_set_member_name (b, "copy");
  if (isfinite (report->copy_gbs))
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) report->copy_bytes);
      ks_json_add_timing (b, &report->copy_timing, "runs");
      json_builder_end_object (b);
    }
  else
    {
      json_builder_add_null_value (b);
    }
  json_builder_set_member_name (b, "copy_note");
  ks_json_add_string (b, report->copy_note);
  json_builder_set_member_name (b, "npp_version");
  ks_json_add_string (b, report->npp_version);
  json_builder_set_member_name (b, "npp_note");
  ks_json_add_string (b, report->npp_note);
  json_builder_set_member_name (b, "ops");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->rows->len; i++)
    add_row (b, &g_array_index (report->rows, KsBenchRow, i));
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

gboolean
ks_cli_bench_write_json (const KsBenchReport *report, const char *path, GError **error)
{
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (report != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  root = ks_cli_bench_json (report);
  return ks_json_write (root, path, error);
}
