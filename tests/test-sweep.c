/* test-sweep.c: the block-size sweep on the CPU engine — the shape sets, the
 * list syntax and its bound, a refused shape reported as such, the fastest
 * marked, the JSON and CSV, cancellation. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-sweep.h"
#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static void
test_sets (void)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  const KsDeviceLimits *limits = ks_device_get_limits (cpu);
  g_autoptr (GArray) presets = ks_sweep_blocks (KS_SWEEP_PRESETS, limits);
  g_autoptr (GArray) powers = ks_sweep_blocks (KS_SWEEP_POWERS_OF_TWO, limits);
  guint expected = 0;

  g_assert_cmpuint (presets->len, ==, 5);
  g_assert_cmpuint (g_array_index (presets, KsDim3, 2).x, ==, 32);
  g_assert_cmpuint (g_array_index (presets, KsDim3, 2).y, ==, 8);
  /* Every 2^a × 2^b with 32 ≤ threads ≤ the limit: k + 1 shapes of 2^k threads. */
  for (guint k = 5; (1u << k) <= limits->max_threads_per_block; k++)
    expected += k + 1;
  g_assert_cmpuint (powers->len, ==, expected);
  for (guint i = 0; i < powers->len; i++)
    {
      const KsDim3 *d = &g_array_index (powers, KsDim3, i);
      guint threads = d->x * d->y;

      g_assert_cmpuint (threads, >=, 32);
      g_assert_cmpuint (threads, <=, limits->max_threads_per_block);
      g_assert_cmpuint (threads & (threads - 1), ==, 0);
      g_assert_cmpuint (d->z, ==, 1);
    }
}

static void
test_parse (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) empty = NULL;
  g_autoptr (GError) bad = NULL;
  g_autoptr (GArray) blocks = ks_sweep_parse_blocks ("32x8, 16x16,256,32x8", &error);
  g_autoptr (GString) many = g_string_new (NULL);
  g_autoptr (GArray) too_many = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (blocks->len, ==, 3);
  g_assert_cmpuint (g_array_index (blocks, KsDim3, 2).x, ==, 256);
  g_assert_cmpuint (g_array_index (blocks, KsDim3, 2).y, ==, 1);
  g_assert_null (ks_sweep_parse_blocks (" , ", &empty));
  g_assert_error (empty, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_null (ks_sweep_parse_blocks ("32x8,0x4", &bad));
  g_assert_nonnull (bad);
  for (guint i = 0; i <= KS_SWEEP_MAX_BLOCKS; i++)
    g_string_append_printf (many, "%s%u", i > 0 ? "," : "", i + 1);
  too_many = ks_sweep_parse_blocks (many->str, &error);
  g_assert_null (too_many);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_test_assert_message_has (error, "256", NULL);
}

static void
on_progress (guint done, guint total, const KsSweepPoint *point, gpointer user_data)
{
  guint *calls = user_data;

  g_assert_cmpuint (done, ==, *calls + 1);
  g_assert_cmpuint (total, ==, 3);
  (*calls)++;
}

/* Three shapes, one of them more threads than a block may have: two
 * measured, one refused with the device's reason; the fastest is one of the
 * measured; the JSON and CSV say the same. */
static void
test_run (void)
{
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 200, 120, 3);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) blocks = ks_sweep_parse_blocks ("32x8,2048,16x16", &error);
  g_autoptr (KsSweepResult) result = NULL;
  g_autoptr (KsBuffer) in = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *csv = NULL;
  g_auto (GStrv) lines = NULL;
  KsRunRequest request;
  JsonObject *o;
  JsonArray *points;
  guint calls = 0;

  in = ks_engine_upload (engine, image, NULL, &error);
  g_assert_no_error (error);
  ks_run_request_init (&request, ks_op_registry_lookup ("gaussian_blur"));
  request.inputs[0] = in;
  result = ks_sweep_run (engine, &request, blocks, 3, on_progress, &calls, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 3);
  g_assert_cmpuint (result->points->len, ==, 3);
  g_assert_null (g_array_index (result->points, KsSweepPoint, 0).refused);
  g_assert_nonnull (g_array_index (result->points, KsSweepPoint, 1).refused);
  g_assert_nonnull (strstr (g_array_index (result->points, KsSweepPoint, 1).refused, "1024"));
  g_assert_cmpuint (g_array_index (result->points, KsSweepPoint, 2).timing.n, ==, 3);
  g_assert_true (result->fastest == 0 || result->fastest == 2);
  g_assert_cmpuint (g_array_index (result->points, KsSweepPoint, 0).resolved.block.x, ==, 32);

  root = ks_sweep_to_json (result);
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "op"), ==, "gaussian_blur");
  g_assert_cmpint (json_object_get_int_member (o, "fastest"), ==, result->fastest);
  points = json_object_get_array_member (o, "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 3);
  g_assert_true (json_object_get_null_member (json_array_get_object_element (points, 0),
                                              "refused"));
  g_assert_nonnull (json_object_get_string_member (json_array_get_object_element (points, 1),
                                                   "refused"));
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (points, 2),
                                               "threads"), ==, 256);
  /* The launch that ran, as sessions write it: 32×8 blocks cover 64×48. */
  {
    JsonObject *ran = json_object_get_object_member (json_array_get_object_element (points, 0),
                                                     "launch");
    JsonArray *grid = json_object_get_array_member (ran, "grid");

    g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (ran, "block"), 0),
                     ==, 32);
    g_assert_cmpint (json_array_get_int_element (grid, 0), ==,
                     g_array_index (result->points, KsSweepPoint, 0).resolved.grid.x);
    g_assert_cmpint (json_array_get_int_element (grid, 1), ==,
                     g_array_index (result->points, KsSweepPoint, 0).resolved.grid.y);
    g_assert_nonnull (json_object_get_string_member (ran, "mode"));
    g_assert_false (json_object_has_member (json_array_get_object_element (points, 1), "launch"));
  }
  /* The CPU engine has no occupancy: null, not a number. */
  g_assert_true (json_object_get_null_member (json_array_get_object_element (points, 0),
                                              "occupancy"));

  csv = ks_sweep_to_csv (result);
  lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "block,threads,median_ms,mad_ms,gbs,occupancy,limiter,refused");
  g_assert_true (g_str_has_prefix (lines[1], "32x8x1,256,"));
  g_assert_true (g_str_has_prefix (lines[2], "2048x1x1,2048,,,,,,\""));
  g_assert_true (g_str_has_prefix (lines[3], "16x16x1,256,"));
  g_assert_cmpstr (lines[4], ==, "");
}

static void
test_cancelled (void)
{
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 64, 64, 3);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) blocks = ks_sweep_parse_blocks ("32x8,16x16", &error);
  g_autoptr (KsBuffer) in = NULL;
  KsRunRequest request;

  in = ks_engine_upload (engine, image, NULL, &error);
  ks_run_request_init (&request, ks_op_registry_lookup ("invert"));
  request.inputs[0] = in;
  g_cancellable_cancel (cancellable);
  g_assert_null (ks_sweep_run (engine, &request, blocks, 3, NULL, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ks/engine/sweep/sets", test_sets);
  g_test_add_func ("/ks/engine/sweep/parse", test_parse);
  g_test_add_func ("/ks/engine/sweep/run", test_run);
  g_test_add_func ("/ks/engine/sweep/cancelled", test_cancelled);
  return g_test_run ();
}
