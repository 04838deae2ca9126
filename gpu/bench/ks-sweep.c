#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-error.h"
#include "ks-json.h"
#include "ks-sweep.h"

static void
point_clear (gpointer data)
{
  KsSweepPoint *p = data;

  g_free (p->refused);
  ks_timing_clear (&p->timing);
}

void
ks_sweep_result_free (KsSweepResult *result)
{
  if (result == NULL)
    return;
  g_free (result->device_name);
  g_free (result->device_id);
  g_array_unref (result->points);
  g_free (result);
}

static void
add_unique (GArray *blocks, KsDim3 d)
{
  for (guint i = 0; i < blocks->len; i++)
    {
      const KsDim3 *b = &g_array_index (blocks, KsDim3, i);

      if (b->x == d.x && b->y == d.y && b->z == d.z)
        return;
    }
  g_array_append_val (blocks, d);
}

GArray *
ks_sweep_blocks (KsSweepSet set, const KsDeviceLimits *limits)
{
  static const KsDim3 presets[] = { { 8, 8, 1 }, { 16, 16, 1 }, { 32, 8, 1 }, { 32, 32, 1 },
                                    { 256, 1, 1 } };
  GArray *blocks = g_array_new (FALSE, FALSE, sizeof (KsDim3));

  g_return_val_if_fail (limits != NULL, blocks);
  if (set == KS_SWEEP_PRESETS)
    {
      for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
        if (presets[i].x * presets[i].y <= limits->max_threads_per_block)
          add_unique (blocks, presets[i]);
      return blocks;
    }
  /* From one warp up: smaller blocks leave lanes of every warp idle. By the
   * number of threads, then the widest first. */
  for (guint threads = MAX (limits->warp_size, 1); threads <= limits->max_threads_per_block;
       threads *= 2)
    for (guint x = threads; x >= 1; x /= 2)
      {
        KsDim3 d = { x, threads / x, 1 };

        if (d.x <= limits->max_block_dim[0] && d.y <= limits->max_block_dim[1])
          add_unique (blocks, d);
      }
  return blocks;
}

GArray *
ks_sweep_parse_blocks (const char *text, GError **error)
{
  g_auto (GStrv) words = NULL;
  g_autoptr (GArray) blocks = g_array_new (FALSE, FALSE, sizeof (KsDim3));
  guint n = 0;

  g_return_val_if_fail (text != NULL, NULL);
  words = g_strsplit (text, ",", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *word = g_strstrip (words[i]);
      KsDim3 d;

      if (*word == '\0')
        continue;
      if (++n > KS_SWEEP_MAX_BLOCKS)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "A sweep measures at most %u block shapes; the list has more",
                       KS_SWEEP_MAX_BLOCKS);
          return NULL;
        }
      if (!ks_dim3_parse (word, &d, error))
        return NULL;
      add_unique (blocks, d);
    }
  if (blocks->len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The list names no block shape (write them as 32x8,16x16,256)");
      return NULL;
    }
  return g_steal_pointer (&blocks);
}

KsSweepResult *
ks_sweep_run (KsEngine *engine, const KsRunRequest *base, const GArray *blocks, guint repeats,
              KsSweepProgress progress, gpointer user_data, GCancellable *cancellable,
              GError **error)
{
  g_autoptr (KsSweepResult) result = NULL;
  KsDevice *device;
  const KsBuffer *in;
  guint64 bytes;
  double best = INFINITY;

  g_return_val_if_fail (KS_IS_ENGINE (engine) && base != NULL && base->op != NULL, NULL);
  g_return_val_if_fail (blocks != NULL && base->inputs[0] != NULL, NULL);
  if (blocks->len == 0 || blocks->len > KS_SWEEP_MAX_BLOCKS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "A sweep measures 1 to %u block shapes, not %u", KS_SWEEP_MAX_BLOCKS,
                   blocks->len);
      return NULL;
    }
  device = ks_engine_get_device (engine);
  in = base->inputs[0];
  result = g_new0 (KsSweepResult, 1);
  result->op = base->op;
  result->device_name = g_strdup (ks_device_get_name (device));
  result->device_id = g_strdup (ks_device_get_id (device));
  result->cuda = ks_engine_is_cuda (engine);
  result->width = ks_buffer_get_width (in);
  result->height = ks_buffer_get_height (in);
  result->repeats = MAX (repeats, 1);
  result->points = g_array_sized_new (FALSE, TRUE, sizeof (KsSweepPoint), blocks->len);
  g_array_set_clear_func (result->points, point_clear);
  result->fastest = -1;
  bytes = ks_op_bytes_moved_for (base->op, &base->params, ks_buffer_get_format (in),
                                 result->width, result->height);

  for (guint i = 0; i < blocks->len; i++)
    {
      KsSweepPoint point = { 0 };
      KsRunRequest request = *base;
      KsLaunchConfig suggestion;
      KsTimingOptions options;
      KsRunResult run = { 0 };
      g_autoptr (GError) local = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      point.block = g_array_index (blocks, KsDim3, i);
      request.launch.block = point.block;
      if (!ks_engine_validate (engine, &request, &point.resolved, &suggestion, &local))
        {
          if (!g_error_matches (local, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return NULL;
            }
          point.refused = g_strdup (local->message);
        }
      else
        {
          ks_timing_options_init (&options, result->repeats);
          options.cancellable = cancellable;
          if (!ks_engine_measure (engine, &request, &options, &run, &point.timing, error))
            {
              point_clear (&point);
              return NULL;
            }
          ks_run_result_clear (&run);
          point.gbs = point.timing.median_ms > 0
                        ? (double) bytes / (point.timing.median_ms * 1e-3) / 1e9 : NAN;
          if (result->cuda)
            {
              KsKernelAttributes attrs;

              point.has_occupancy = ks_engine_kernel_attributes (engine, &request, &attrs, NULL);
              if (point.has_occupancy)
                ks_launch_occupancy (&point.resolved, ks_device_get_limits (device), &attrs,
                                     &point.occupancy);
            }
          if (point.timing.median_ms < best)
            {
              best = point.timing.median_ms;
              result->fastest = (int) result->points->len;
            }
        }
      g_array_append_val (result->points, point);
      if (progress != NULL)
        progress (i + 1, blocks->len,
                  &g_array_index (result->points, KsSweepPoint, result->points->len - 1),
                  user_data);
    }
  return g_steal_pointer (&result);
}

JsonNode *
ks_sweep_to_json (const KsSweepResult *result)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (result != NULL, NULL);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "op");
  ks_json_add_string (b, result->op->id);
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, result->cuda ? "cuda" : "cpu");
  json_builder_set_member_name (b, "device");
  ks_json_add_string (b, result->device_name);
  json_builder_set_member_name (b, "device_id");
  ks_json_add_string (b, result->device_id);
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, result->width);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, result->height);
  json_builder_set_member_name (b, "repeats");
  json_builder_add_int_value (b, result->repeats);
  json_builder_set_member_name (b, "fastest");
  if (result->fastest >= 0)
    json_builder_add_int_value (b, result->fastest);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (guint i = 0; i < result->points->len; i++)
    {
      const KsSweepPoint *p = &g_array_index (result->points, KsSweepPoint, i);

      json_builder_begin_object (b);
      ks_json_add_dim3 (b, "block", &p->block);
      json_builder_set_member_name (b, "threads");
      json_builder_add_int_value (b, (gint64) p->block.x * p->block.y * p->block.z);
      json_builder_set_member_name (b, "refused");
      ks_json_add_string (b, p->refused);
      if (p->refused == NULL)
        {
          ks_json_add_launch (b, "launch", &p->resolved, KS_JSON_LAUNCH_NONE);
          ks_json_add_timing (b, &p->timing, "runs");
          json_builder_set_member_name (b, "gbs");
          ks_json_add_number (b, p->gbs);
        }
      json_builder_set_member_name (b, "occupancy");
      if (p->has_occupancy)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "theoretical");
          ks_json_add_number (b, p->occupancy.occupancy);
          json_builder_set_member_name (b, "active_blocks_per_sm");
          json_builder_add_int_value (b, p->occupancy.active_blocks_per_sm);
          json_builder_set_member_name (b, "active_warps_per_sm");
          json_builder_add_int_value (b, p->occupancy.active_warps_per_sm);
          json_builder_set_member_name (b, "limited_by");
          ks_json_add_string (b, ks_occupancy_limit_describe (p->occupancy.limiter));
          json_builder_end_object (b);
        }
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

char *
ks_sweep_to_csv (const KsSweepResult *result)
{
  GString *s = g_string_new ("block,threads,median_ms,mad_ms,gbs,occupancy,limiter,refused\n");

  g_return_val_if_fail (result != NULL, NULL);
  for (guint i = 0; i < result->points->len; i++)
    {
      const KsSweepPoint *p = &g_array_index (result->points, KsSweepPoint, i);

      g_string_append_printf (s, "%ux%ux%u,%u,", p->block.x, p->block.y, p->block.z,
                              p->block.x * p->block.y * p->block.z);
      if (p->refused != NULL)
        {
          /* The reason, quoted, its quotes doubled (RFC 4180). */
          g_auto (GStrv) parts = g_strsplit (p->refused, "\"", -1);
          g_autofree char *reason = g_strjoinv ("\"\"", parts);

          g_string_append_printf (s, ",,,,,\"%s\"\n", reason);
          continue;
        }
      g_string_append_printf (s, "%.6f,%.6f,%.3f,", p->timing.median_ms, p->timing.mad_ms,
                              p->gbs);
      if (p->has_occupancy)
        g_string_append_printf (s, "%.4f,\"%s\",\n", p->occupancy.occupancy,
                                ks_occupancy_limit_describe (p->occupancy.limiter));
      else
        g_string_append (s, ",,\n");
    }
  return g_string_free (s, FALSE);
}
