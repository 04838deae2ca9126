#include "config.h"

#include <math.h>

#include "ks-json.h"
#include "ks-timing-export.h"

static gint64
first_time (const KsTimingExport *data)
{
  if (data->history == NULL || data->history->len == 0)
    return 0;
  return g_array_index (data->history, KsTimingSample, 0).time_us;
}

static void
append_csv_number (GString *s, double value, gboolean present)
{
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  if (present && isfinite (value))
    g_string_append (s, g_ascii_formatd (num, sizeof num, "%.6f", value));
}

char *
ks_timing_export_csv (const KsTimingExport *data)
{
  GString *s = g_string_new ("time_s,kernel_ms,display_ms,warmup,engine\n");
  gint64 t0;

  g_return_val_if_fail (data != NULL, NULL);
  t0 = first_time (data);
  for (guint i = 0; data->history != NULL && i < data->history->len; i++)
    {
      const KsTimingSample *t = &g_array_index (data->history, KsTimingSample, i);

      append_csv_number (s, (t->time_us - t0) / 1e6, TRUE);
      g_string_append_c (s, ',');
      append_csv_number (s, t->kernel_ms, TRUE);
      g_string_append_c (s, ',');
      append_csv_number (s, t->display_ms, t->display_ms >= 0);
      g_string_append_printf (s, ",%d,%s\n", t->warmup, t->cuda ? "cuda" : "cpu");
    }
  return g_string_free (s, FALSE);
}

static void
add_number (JsonBuilder *builder, const char *name, double value, gboolean present)
{
  json_builder_set_member_name (builder, name);
  ks_json_add_number (builder, present ? value : NAN);
}

char *
ks_timing_export_json (const KsTimingExport *data)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  gint64 t0;

  g_return_val_if_fail (data != NULL, NULL);
  t0 = first_time (data);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "device");
  ks_json_add_string (builder, data->device_name);
  json_builder_set_member_name (builder, "engine");
  json_builder_add_string_value (builder, data->cuda ? "cuda" : "cpu");
  json_builder_set_member_name (builder, "op");
  ks_json_add_string (builder, data->op_id);
  if (data->width > 0)
    {
      json_builder_set_member_name (builder, "width");
      json_builder_add_int_value (builder, data->width);
      json_builder_set_member_name (builder, "height");
      json_builder_add_int_value (builder, data->height);
    }
  json_builder_set_member_name (builder, "samples");
  json_builder_begin_array (builder);
  for (guint i = 0; data->history != NULL && i < data->history->len; i++)
    {
      const KsTimingSample *t = &g_array_index (data->history, KsTimingSample, i);

      json_builder_begin_object (builder);
      add_number (builder, "time_s", (t->time_us - t0) / 1e6, TRUE);
      add_number (builder, "kernel_ms", t->kernel_ms, TRUE);
      add_number (builder, "display_ms", t->display_ms, t->display_ms >= 0);
      json_builder_set_member_name (builder, "warmup");
      json_builder_add_boolean_value (builder, t->warmup);
      json_builder_set_member_name (builder, "engine");
      json_builder_add_string_value (builder, t->cuda ? "cuda" : "cpu");
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return ks_json_to_data (root);
}
