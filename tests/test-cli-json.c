/* test-cli-json.c: the JSON files kernelscope-cli writes read back with a
 * strict parser — names with quotes, control characters and non-ASCII letters
 * intact, unmeasured values as null (never "nan", which no JSON reader takes),
 * and the members the scripts in build-aux read where they look for them. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "ks-cli.h"
#include "ks-op-registry.h"

/* Curly quotes, a non-ASCII letter and a vertical tab (U+000B), which JSON
 * must escape. */
#define ODD_NAME "GPU “Zürich” \v"

static char *cli_path;
static char *tmp_dir;

/* ---- reading back ------------------------------------------------------- */

static JsonNode *
parse_file (const char *path)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_parser_steal_root (parser);
}

/* A member that must be present: a missing member is not a null one. */
static JsonNode *
member (JsonObject *object, const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    g_error ("member “%s” is missing", name);
  return node;
}

static void
assert_null (JsonObject *object, const char *name)
{
  g_assert_true (JSON_NODE_HOLDS_NULL (member (object, name)));
}

static void
assert_number (JsonObject *object, const char *name, double expected)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_DOUBLE
                 || json_node_get_value_type (node) == G_TYPE_INT64);
  /* Exact: nothing may be lost on the way through the file. */
  g_assert_cmpfloat (json_node_get_double (node), ==, expected);
}

static void
assert_int (JsonObject *object, const char *name, gint64 expected)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (node), ==, expected);
}

static void
assert_string (JsonObject *object, const char *name, const char *expected)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_STRING);
  g_assert_cmpstr (json_node_get_string (node), ==, expected);
}

static JsonObject *
object_member (JsonObject *object, const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_get_object (node);
}

static JsonArray *
array_member (JsonObject *object, const char *name)
{
  JsonNode *node = member (object, name);

  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_node_get_array (node);
}

static char *
tmp_file (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

/* ---- bench -------------------------------------------------------------- */

static void
fill_timing (KsTiming *timing, guint n, double median)
{
  timing->n = n;
  timing->warmup_ms = 3.5;
  timing->median_ms = median;
  timing->min_ms = median - 0.25;
  timing->max_ms = median + 0.5;
  timing->mad_ms = 0.0625;
  timing->samples_ms = g_new0 (double, n);
}

static void
clear_row (gpointer data)
{
  KsBenchRow *row = data;

  g_free (row->id);
  g_free (row->method);
  g_free (row->npp_note);
  if (row->npp != NULL)
    {
      g_free (row->npp->name);
      ks_timing_clear (&row->npp->timing);
      g_free (row->npp);
    }
  ks_timing_clear (&row->timing);
}

/* Two rows: one without NPP and without a copy to compare with, one with an
 * NPP row whose ratio could not be computed. */
static KsBenchReport *
odd_report (void)
{
  KsBenchReport *report = g_new0 (KsBenchReport, 1);
  KsBenchRow row = { 0 };

  report->device_name = g_strdup (ODD_NAME);
  report->device_id = g_strdup ("cuda:0");
  report->is_cuda = TRUE;
  report->width = 64;
  report->height = 32;
  report->repeats = 7;
  report->peak_bandwidth_gbs = 0; /* unknown */
  report->copy_gbs = NAN;
  report->copy_note = g_strdup ("no copy: “\t” tab\nand newline");
  report->npp_version = g_strdup ("13.0.1");
  report->rows = g_array_new (FALSE, TRUE, sizeof (KsBenchRow));
  g_array_set_clear_func (report->rows, clear_row);

  row.id = g_strdup ("invert");
  row.op = ks_op_registry_lookup ("invert");
  row.input_format = KS_FORMAT_RGBA8;
  row.bytes = G_GUINT64_CONSTANT (1) << 33;
  row.launch = (KsLaunchConfig) { { 32, 8, 1 }, { 2, 4, 1 }, FALSE, KS_LAUNCH_PER_PIXEL, 4 };
  fill_timing (&row.timing, 7, 0.1234567);
  row.gbs = 412.75;
  row.share_of_copy = NAN;
  row.npp_note = g_strdup (ODD_NAME);
  g_array_append_val (report->rows, row);

  memset (&row, 0, sizeof row);
  row.id = g_strdup ("histogram[shared,rgba8]");
  row.op = ks_op_registry_lookup ("histogram");
  row.method = g_strdup ("shared");
  row.input_format = KS_FORMAT_RGBA8;
  row.bytes = 8192;
  row.launch = (KsLaunchConfig) { { 256, 1, 1 }, { 132, 1, 1 }, TRUE, KS_LAUNCH_GRID_STRIDE, 16 };
  fill_timing (&row.timing, 7, 2.0);
  row.gbs = INFINITY;
  row.share_of_copy = NAN;
  row.npp = g_new0 (KsBenchNpp, 1);
  row.npp->name = g_strdup ("nppiHistogramEven_8u_C4R");
  fill_timing (&row.npp->timing, 7, 1.5);
  row.npp->gbs = 10.5;
  row.npp->ratio = NAN;
  row.npp->agrees = TRUE;
  g_array_append_val (report->rows, row);
  return report;
}

static void
assert_timing_members (JsonObject *object, guint n, double median)
{
  assert_number (object, "median_ms", median);
  assert_number (object, "min_ms", median - 0.25);
  assert_number (object, "max_ms", median + 0.5);
  assert_number (object, "mad_ms", 0.0625);
  assert_number (object, "warmup_ms", 3.5);
  assert_int (object, "runs", n);
}

static void
test_bench_round_trip (void)
{
  g_autoptr (KsBenchReport) report = odd_report ();
  g_autofree char *path = tmp_file ("bench.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *top, *row, *launch, *npp;
  JsonArray *ops, *block;

  g_assert_true (ks_cli_bench_write_json (report, path, &error));
  g_assert_no_error (error);
  root = parse_file (path);
  top = json_node_get_object (root);

  assert_string (top, "kernelscope_version", PACKAGE_VERSION);
  assert_string (top, "device", ODD_NAME);
  assert_string (top, "device_id", "cuda:0");
  assert_string (top, "engine", "cuda");
  assert_int (top, "width", 64);
  assert_int (top, "height", 32);
  assert_int (top, "repeats", 7);
  assert_string (top, "l2_flush", "read");
  assert_null (top, "peak_bandwidth_gbs");
  assert_null (top, "copy_bandwidth_gbs");
  assert_null (top, "copy");
  assert_string (top, "copy_note", report->copy_note);
  assert_string (top, "npp_version", "13.0.1");
  assert_null (top, "npp_note");

  ops = array_member (top, "ops");
  g_assert_cmpuint (json_array_get_length (ops), ==, 2);

  row = json_array_get_object_element (ops, 0);
  assert_string (row, "id", "invert");
  assert_string (row, "op", "invert");
  assert_null (row, "method");
  assert_string (row, "input", ks_format_name (KS_FORMAT_RGBA8));
  assert_int (row, "bytes", (gint64) (G_GUINT64_CONSTANT (1) << 33));
  assert_timing_members (row, 7, 0.1234567);
  assert_number (row, "gbs", 412.75);
  assert_null (row, "share_of_copy");
  assert_null (row, "npp");
  assert_string (row, "npp_note", ODD_NAME);
  launch = object_member (row, "launch");
  block = array_member (launch, "block");
  g_assert_cmpuint (json_array_get_length (block), ==, 3);
  g_assert_cmpint (json_array_get_int_element (block, 0), ==, 32);
  g_assert_cmpint (json_array_get_int_element (block, 1), ==, 8);
  g_assert_cmpint (json_array_get_int_element (block, 2), ==, 1);
  g_assert_cmpint (json_array_get_int_element (array_member (launch, "grid"), 1), ==, 4);
  assert_int (launch, "pixels_per_thread", 4);
  assert_string (launch, "mode", "per-pixel");

  row = json_array_get_object_element (ops, 1);
  assert_string (row, "id", "histogram[shared,rgba8]");
  assert_string (row, "method", "shared");
  assert_string (object_member (row, "launch"), "mode", "grid-stride");
  /* Infinity is no more JSON than NaN. */
  assert_null (row, "gbs");
  npp = object_member (row, "npp");
  assert_string (npp, "name", "nppiHistogramEven_8u_C4R");
  assert_timing_members (npp, 7, 1.5);
  assert_number (npp, "gbs", 10.5);
  assert_null (npp, "ratio");
  g_assert_true (json_object_get_boolean_member (npp, "agrees"));
  assert_null (row, "npp_note");
  g_remove (path);
}

/* A measured copy is an object with its size and timing; the CPU engine has
 * no L2 flush to report. */
static void
test_bench_copy (void)
{
  g_autoptr (KsBenchReport) report = odd_report ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *path = tmp_file ("bench-copy.json");
  g_autoptr (GError) error = NULL;
  JsonObject *top, *copy;

  report->is_cuda = FALSE;
  report->peak_bandwidth_gbs = 4800.0;
  report->copy_gbs = 3900.5;
  report->copy_bytes = G_GUINT64_CONSTANT (1) << 30;
  fill_timing (&report->copy_timing, 50, 0.5);
  g_assert_true (ks_cli_bench_write_json (report, path, &error));
  g_assert_no_error (error);
  root = parse_file (path);
  top = json_node_get_object (root);

  assert_string (top, "engine", "cpu");
  assert_null (top, "l2_flush");
  assert_number (top, "peak_bandwidth_gbs", 4800.0);
  assert_number (top, "copy_bandwidth_gbs", 3900.5);
  copy = object_member (top, "copy");
  assert_int (copy, "bytes", G_GINT64_CONSTANT (1) << 30);
  assert_timing_members (copy, 50, 0.5);
  g_remove (path);
}

static void
test_bench_unwritable (void)
{
  g_autoptr (KsBenchReport) report = odd_report ();
  g_autofree char *path = g_build_filename (tmp_dir, "missing-dir", "bench.json", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (ks_cli_bench_write_json (report, path, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, path));
}

/* ---- bench-display ------------------------------------------------------ */

static void
clear_size (gpointer data)
{
  KsCliDisplaySize *size = data;

  ks_timing_clear (&size->interop_wall);
  ks_timing_clear (&size->copy_wall);
  ks_timing_clear (&size->kernel);
  ks_timing_clear (&size->interop_cuda);
  ks_timing_clear (&size->download);
  ks_timing_clear (&size->shared_wall);
}

static void
test_display_round_trip (void)
{
  g_autoptr (GArray) sizes = g_array_new (FALSE, TRUE, sizeof (KsCliDisplaySize));
  g_autofree char *path = tmp_file ("display.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) written = NULL;
  g_autoptr (JsonNode) root = NULL;
  KsCliDisplaySize size = { 0 };
  KsCliDisplayReport report = {
    .device_name = ODD_NAME,
    .device_id = "cuda:1",
    .op = "invert",
    .gl = "OpenGL 4.6 “core”",
    .interop = "pixel buffer\x01",
    .shared = "shared memory",
    .frames = 100,
    .warmup_frames = 10,
    .sizes = sizes,
  };
  JsonObject *top, *entry, *timing;
  JsonArray *list;

  g_array_set_clear_func (sizes, clear_size);
  size.width = 3840;
  size.height = 2160;
  fill_timing (&size.interop_wall, 100, 0.75);
  size.interop_wall.warmup_ms = NAN;
  fill_timing (&size.copy_wall, 100, 4.25);
  fill_timing (&size.kernel, 200, 0.125);
  fill_timing (&size.interop_cuda, 100, 0.375);
  /* A timing that never ran: every statistic NaN, no samples. */
  size.download.median_ms = size.download.min_ms = NAN;
  size.download.max_ms = size.download.mad_ms = size.download.warmup_ms = NAN;
  size.ratio = NAN;
  size.have_shared = TRUE;
  fill_timing (&size.shared_wall, 100, 0.0625);
  size.shared_wall.warmup_ms = 2.5;
  size.shared_ratio = 68.0;
  g_array_append_val (sizes, size);
  /* A size where the shared-memory path did not run has none of its members. */
  memset (&size, 0, sizeof size);
  size.width = 64;
  size.height = 47;
  size.ratio = 2.0;
  g_array_append_val (sizes, size);

  written = ks_cli_display_json (&report);
  g_assert_true (ks_json_write (written, path, &error));
  g_assert_no_error (error);
  root = parse_file (path);
  top = json_node_get_object (root);

  assert_string (top, "device", ODD_NAME);
  assert_string (top, "device_id", "cuda:1");
  assert_string (top, "op", "invert");
  assert_string (top, "gl", report.gl);
  assert_string (top, "interop", report.interop);
  assert_string (top, "shared", "shared memory");
  assert_int (top, "frames", 100);
  assert_int (top, "warmup_frames", 10);
  g_assert_nonnull (json_object_get_string_member (top, "frame_time"));

  list = array_member (top, "sizes");
  g_assert_cmpuint (json_array_get_length (list), ==, 2);
  entry = json_array_get_object_element (list, 0);
  assert_int (entry, "width", 3840);
  assert_int (entry, "height", 2160);
  timing = object_member (entry, "interop_frame");
  assert_number (timing, "median_ms", 0.75);
  assert_number (timing, "mad_ms", 0.0625);
  assert_number (timing, "min_ms", 0.5);
  assert_number (timing, "max_ms", 1.25);
  assert_null (timing, "warmup_ms");
  assert_int (timing, "n", 100);
  assert_number (object_member (entry, "copy_frame"), "median_ms", 4.25);
  assert_int (object_member (entry, "kernel"), "n", 200);
  assert_number (object_member (entry, "interop_cuda"), "median_ms", 0.375);
  timing = object_member (entry, "download_cuda");
  assert_null (timing, "median_ms");
  assert_null (timing, "mad_ms");
  assert_int (timing, "n", 0);
  assert_null (entry, "ratio_copy_over_interop");
  g_assert_true (json_object_get_boolean_member (entry, "same_pixels"));
  timing = object_member (entry, "shared_frame");
  assert_number (timing, "median_ms", 0.0625);
  assert_number (timing, "warmup_ms", 2.5);
  assert_number (entry, "ratio_copy_over_shared", 68.0);
  entry = json_array_get_object_element (list, 1);
  assert_int (entry, "width", 64);
  g_assert_false (json_object_has_member (entry, "shared_frame"));
  g_assert_false (json_object_has_member (entry, "ratio_copy_over_shared"));
  g_remove (path);
}

/* ---- device properties -------------------------------------------------- */

static JsonNode *
from_variant (GVariant *value)
{
  g_autoptr (GVariant) sunk = value != NULL ? g_variant_ref_sink (value) : NULL;

  return ks_json_from_variant (sunk);
}

static void
test_variant (void)
{
  g_autoptr (JsonNode) none = from_variant (NULL);
  g_autoptr (JsonNode) nan = from_variant (g_variant_new_double (NAN));
  g_autoptr (JsonNode) inf = from_variant (g_variant_new_double (-INFINITY));
  g_autoptr (JsonNode) d = from_variant (g_variant_new_double (3.35e3));
  g_autoptr (JsonNode) u = from_variant (g_variant_new_uint64 (G_GUINT64_CONSTANT (150) << 30));
  g_autoptr (JsonNode) huge = from_variant (g_variant_new_uint64 (G_MAXUINT64));
  g_autoptr (JsonNode) i = from_variant (g_variant_new_int32 (-3));
  g_autoptr (JsonNode) b = from_variant (g_variant_new_boolean (TRUE));
  g_autoptr (JsonNode) s = from_variant (g_variant_new_string (ODD_NAME));
  g_autoptr (JsonNode) tuple = from_variant (g_variant_new ("(uu)", 1024, 64));

  g_assert_true (JSON_NODE_HOLDS_NULL (none));
  g_assert_true (JSON_NODE_HOLDS_NULL (nan));
  g_assert_true (JSON_NODE_HOLDS_NULL (inf));
  g_assert_cmpfloat (json_node_get_double (d), ==, 3350.0);
  g_assert_true (json_node_get_value_type (u) == G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (u), ==, G_GINT64_CONSTANT (150) << 30);
  /* Past gint64, not wrapped to a negative number. */
  g_assert_cmpfloat (json_node_get_double (huge), >, 1.8e19);
  g_assert_cmpint (json_node_get_int (i), ==, -3);
  g_assert_true (json_node_get_boolean (b));
  g_assert_cmpstr (json_node_get_string (s), ==, ODD_NAME);
  g_assert_cmpstr (json_node_get_string (tuple), ==, "(1024, 64)");
}

/* ---- the commands, as a script runs them -------------------------------- */

static char *
run_cli (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, cli_path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &wait_status, &error));
  g_assert_no_error (error);
  g_test_message ("stdout: %s\nstderr: %s", out, err);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 0);
  return out;
}

static gboolean
have_cli (void)
{
  if (g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    return TRUE;
  g_test_skip ("kernelscope-cli was not built");
  return FALSE;
}

static void
test_devices_command (void)
{
  const char *const args[] = { "devices", "--json", NULL };
  g_autofree char *out = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *top, *cuda, *cpu = NULL;
  JsonArray *devices, *props;
  gboolean have_cores = FALSE;

  if (!have_cli ())
    return;
  out = run_cli (args);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  top = json_node_get_object (json_parser_get_root (parser));

  devices = array_member (top, "devices");
  for (guint i = 0; i < json_array_get_length (devices); i++)
    {
      JsonObject *device = json_array_get_object_element (devices, i);

      if (g_strcmp0 (json_object_get_string_member (device, "kind"), "cpu") == 0)
        cpu = device;
    }
  g_assert_nonnull (cpu);
  assert_string (cpu, "id", "cpu");
  assert_int (cpu, "ordinal", -1);
  props = array_member (cpu, "properties");
  for (guint i = 0; i < json_array_get_length (props); i++)
    {
      JsonObject *prop = json_array_get_object_element (props, i);

      member (prop, "group");
      member (prop, "label");
      member (prop, "unit");
      g_assert_nonnull (json_object_get_string_member (prop, "text"));
      /* The raw value next to its text: a count is a number, not "8". */
      if (g_strcmp0 (json_object_get_string_member (prop, "key"), "cores") == 0)
        {
          g_assert_true (json_node_get_value_type (member (prop, "value")) == G_TYPE_INT64);
          g_assert_cmpint (json_object_get_int_member (prop, "value"), >, 0);
          have_cores = TRUE;
        }
    }
  g_assert_true (have_cores);

  cuda = object_member (top, "cuda");
  g_assert_true (json_node_get_value_type (member (cuda, "available")) == G_TYPE_BOOLEAN);
  /* Unavailable CUDA says why; available CUDA has no reason to give. */
  g_assert_true (JSON_NODE_HOLDS_NULL (member (cuda, "reason"))
                 == json_object_get_boolean_member (cuda, "available"));
  member (cuda, "driver_version");
  member (cuda, "runtime_version");
  member (object_member (top, "npp"), "available");
  member (object_member (top, "npp"), "version");
  member (object_member (top, "npp"), "reason");
}

/* The CPU engine measures no copy bandwidth: the NaN it leaves must reach
 * the file as null. */
static void
test_bench_command (void)
{
  g_autofree char *path = tmp_file ("bench-cpu.json");
  const char *const args[] = { "bench", "--engine", "cpu", "--size", "64x48", "--repeat", "5",
                               "--ops", "invert,histogram[shared]", "--output", path, NULL };
  g_autofree char *out = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *top, *row;
  JsonArray *ops;

  if (!have_cli ())
    return;
  out = run_cli (args);
  root = parse_file (path);
  top = json_node_get_object (root);

  assert_string (top, "engine", "cpu");
  assert_string (top, "device_id", "cpu");
  assert_int (top, "width", 64);
  assert_int (top, "height", 48);
  assert_int (top, "repeats", 5);
  assert_null (top, "l2_flush");
  assert_null (top, "copy_bandwidth_gbs");
  assert_null (top, "copy");
  g_assert_nonnull (json_object_get_string_member (top, "copy_note"));
  ops = array_member (top, "ops");
  g_assert_cmpuint (json_array_get_length (ops), >=, 2);
  row = json_array_get_object_element (ops, 0);
  assert_string (row, "id", "invert");
  assert_int (row, "runs", 5);
  g_assert_cmpfloat (json_object_get_double_member (row, "median_ms"), >=, 0);
  assert_null (row, "share_of_copy");
  assert_null (row, "npp");
  g_remove (path);
}

/* bench --in: the ops read the given image at its own size; on the CPU
 * engine the shared-atomic limit is not measured. */
static void
test_bench_input (void)
{
  g_autofree char *path = tmp_file ("bench-input.json");
  const char *const args[] = { "bench", "--engine", "cpu", "--in", "testcard:40x30", "--repeat",
                               "5", "--ops", "histogram[shared]", "--output", path, NULL };
  g_autofree char *out = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *top, *row;

  if (!have_cli ())
    return;
  out = run_cli (args);
  g_assert_nonnull (strstr (out, "40×30 from the given image"));
  root = parse_file (path);
  top = json_node_get_object (root);
  assert_int (top, "width", 40);
  assert_int (top, "height", 30);
  assert_string (top, "input", "image");
  row = json_array_get_object_element (array_member (top, "ops"), 0);
  assert_string (row, "id", "histogram[shared]");
  assert_null (row, "atomics_limit_ms");
  assert_null (row, "share_of_atomics_limit");
  assert_null (row, "read_limit_ms");
  assert_null (row, "share_of_read_limit");
  g_remove (path);
}

static JsonObject *
parse_stdout (const char *out, JsonParser *parser)
{
  g_autoptr (GError) error = NULL;

  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

/* --json of every command that prints data: stdout holds one JSON document
 * and nothing else (the text report is left out), with the members a script
 * reads. */
static void
test_every_command (void)
{
  g_autofree char *png = tmp_file ("json-input.png");
  g_autofree char *out_png = tmp_file ("json-output.png");
  const char *const make[] = { "run", "invert", "-e", "cpu", "-i", "testcard:40x30", "-o", png,
                               NULL };
  const char *const ops[] = { "ops", "--json", NULL };
  const char *const run[] = { "run", "gaussian_blur", "-e", "cpu", "-i", png, "-o", out_png,
                              "-p", "sigma=2", "-r", "3", "--json", NULL };
  const char *const hist[] = { "run", "histogram", "-e", "cpu", "-i", png, "--json", NULL };
  const char *const compare[] = { "compare", png, out_png, "--json", NULL };
  const char *const bench[] = { "bench", "-e", "cpu", "--size", "32x16", "-r", "5", "--ops",
                                "invert", "--json", NULL };
  const char *const sweep[] = { "sweep", "invert", "-e", "cpu", "-i", png, "-b", "32x8,2048",
                                "-r", "2", "--json", NULL };
  g_autofree char *sweep_out = NULL;
  g_autoptr (JsonParser) p6 = json_parser_new ();
  JsonArray *points;
  g_autofree char *made = NULL;
  g_autofree char *ops_out = NULL, *run_out = NULL, *hist_out = NULL;
  g_autofree char *compare_out = NULL, *bench_out = NULL;
  g_autoptr (JsonParser) p1 = json_parser_new ();
  g_autoptr (JsonParser) p2 = json_parser_new ();
  g_autoptr (JsonParser) p3 = json_parser_new ();
  g_autoptr (JsonParser) p4 = json_parser_new ();
  g_autoptr (JsonParser) p5 = json_parser_new ();
  JsonObject *o, *params, *launch;
  JsonArray *bins;
  gint64 sum = 0;

  if (!have_cli ())
    return;
  made = run_cli (make);

  ops_out = run_cli (ops);
  o = parse_stdout (ops_out, p1);
  g_assert_cmpuint (json_array_get_length (array_member (o, "ops")), ==,
                    ks_op_registry_count ());

  run_out = run_cli (run);
  o = parse_stdout (run_out, p2);
  assert_string (o, "op", "gaussian_blur");
  assert_string (o, "engine", "cpu");
  assert_int (o, "width", 40);
  params = json_object_get_object_member (o, "params");
  g_assert_cmpfloat (json_object_get_double_member (params, "sigma"), ==, 2.0);
  launch = json_object_get_object_member (o, "launch");
  g_assert_cmpuint (json_array_get_length (array_member (launch, "grid")), ==, 3);
  assert_int (json_object_get_object_member (o, "kernel"), "runs", 3);
  assert_string (o, "output", out_png);

  hist_out = run_cli (hist);
  o = parse_stdout (hist_out, p3);
  bins = array_member (json_object_get_object_member (o, "histograms"), "luma");
  g_assert_cmpuint (json_array_get_length (bins), ==, 256);
  for (guint i = 0; i < 256; i++)
    sum += json_array_get_int_element (bins, i);
  g_assert_cmpint (sum, ==, 40 * 30);

  compare_out = run_cli (compare);
  o = parse_stdout (compare_out, p4);
  assert_int (o, "pixels", 40 * 30);
  g_assert_false (json_object_get_boolean_member (o, "identical"));

  bench_out = run_cli (bench);
  o = parse_stdout (bench_out, p5);
  assert_string (o, "engine", "cpu");
  g_assert_cmpuint (json_array_get_length (array_member (o, "ops")), ==, 1);

  sweep_out = run_cli (sweep);
  o = parse_stdout (sweep_out, p6);
  assert_string (o, "op", "invert");
  assert_int (o, "fastest", 0);
  points = array_member (o, "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 2);
  assert_null (json_array_get_object_element (points, 0), "refused");
  g_assert_nonnull (json_object_get_string_member (json_array_get_object_element (points, 1),
                                                   "refused"));
  g_remove (png);
  g_remove (out_png);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  tmp_dir = g_dir_make_tmp ("ks-test-cli-json-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/cli/json/bench/round-trip", test_bench_round_trip);
  g_test_add_func ("/ks/cli/json/bench/copy", test_bench_copy);
  g_test_add_func ("/ks/cli/json/bench/unwritable", test_bench_unwritable);
  g_test_add_func ("/ks/cli/json/bench-display/round-trip", test_display_round_trip);
  g_test_add_func ("/ks/cli/json/variant", test_variant);
  g_test_add_func ("/ks/cli/json/devices-command", test_devices_command);
  g_test_add_func ("/ks/cli/json/bench-command", test_bench_command);
  g_test_add_func ("/ks/cli/json/bench-input", test_bench_input);
  g_test_add_func ("/ks/cli/json/every-command", test_every_command);

  ret = g_test_run ();
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  g_free (cli_path);
  return ret;
}
