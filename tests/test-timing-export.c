/* The timing export as a user opens it elsewhere: JSON that any parser reads
 * back, whatever the device is called, with times that are not numbers as
 * null; and CSV with one row per run. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ks-timing-export.h"

/* Curly quotes, an umlaut and a real vertical tab (U+000B): the old export
 * wrote the tab as an octal escape, which JSON does not have. */
#define AWKWARD_NAME "GPU \u201cZ\u00fcrich\u201d \v"

static GArray *
sample_history (void)
{
  GArray *history = g_array_new (FALSE, TRUE, sizeof (KsTimingSample));
  KsTimingSample samples[] = {
    { 1000000, 0.25, -1, TRUE, TRUE },
    { 1500000, 0.125, 1.5, FALSE, TRUE },
    { 2000000, NAN, 2.0, FALSE, FALSE },
  };

  g_array_append_vals (history, samples, G_N_ELEMENTS (samples));
  return history;
}

static void
test_json_round_trip (void)
{
  g_autoptr (GArray) history = sample_history ();
  KsTimingExport data = { AWKWARD_NAME, TRUE, "invert", 640, 480, history };
  g_autofree char *json = ks_timing_export_json (&data);
  g_autofree char *path = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  int fd;
  JsonObject *root;
  JsonArray *samples;
  JsonObject *first, *second, *third;

  /* Written to a file and read back, as another program would. */
  fd = g_file_open_tmp ("ks-timings-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_close (fd, NULL);
  g_assert_true (g_file_set_contents (path, json, -1, &error));
  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  g_unlink (path);

  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "device"), ==, AWKWARD_NAME);
  g_assert_cmpstr (json_object_get_string_member (root, "engine"), ==, "cuda");
  g_assert_cmpstr (json_object_get_string_member (root, "op"), ==, "invert");
  g_assert_cmpint (json_object_get_int_member (root, "width"), ==, 640);
  g_assert_cmpint (json_object_get_int_member (root, "height"), ==, 480);

  samples = json_object_get_array_member (root, "samples");
  g_assert_cmpuint (json_array_get_length (samples), ==, 3);
  first = json_array_get_object_element (samples, 0);
  second = json_array_get_object_element (samples, 1);
  third = json_array_get_object_element (samples, 2);
  g_assert_cmpfloat (json_object_get_double_member (first, "time_s"), ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (first, "kernel_ms"), ==, 0.25);
  g_assert_true (json_object_get_null_member (first, "display_ms"));
  g_assert_true (json_object_get_boolean_member (first, "warmup"));
  g_assert_cmpfloat (json_object_get_double_member (second, "time_s"), ==, 0.5);
  g_assert_cmpfloat (json_object_get_double_member (second, "display_ms"), ==, 1.5);
  g_assert_false (json_object_get_boolean_member (second, "warmup"));
  /* NaN is not JSON: it is written as null. */
  g_assert_true (json_object_get_null_member (third, "kernel_ms"));
  g_assert_cmpstr (json_object_get_string_member (third, "engine"), ==, "cpu");
}

static void
test_json_without_image (void)
{
  g_autoptr (GArray) history = g_array_new (FALSE, TRUE, sizeof (KsTimingSample));
  KsTimingExport data = { "CPU", FALSE, "gray", 0, 0, history };
  g_autofree char *json = ks_timing_export_json (&data);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *root;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_false (json_object_has_member (root, "width"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "samples")), ==, 0);
}

static void
test_csv (void)
{
  g_autoptr (GArray) history = sample_history ();
  KsTimingExport data = { AWKWARD_NAME, TRUE, "invert", 640, 480, history };
  g_autofree char *csv = ks_timing_export_csv (&data);
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);

  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_assert_cmpstr (lines[0], ==, "time_s,kernel_ms,display_ms,warmup,engine");
  g_assert_cmpstr (lines[1], ==, "0.000000,0.250000,,1,cuda");
  g_assert_cmpstr (lines[2], ==, "0.500000,0.125000,1.500000,0,cuda");
  g_assert_cmpstr (lines[3], ==, "1.000000,,2.000000,0,cpu");
  g_assert_cmpstr (lines[4], ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ks/ui/timing-export/json-round-trip", test_json_round_trip);
  g_test_add_func ("/ks/ui/timing-export/json-without-image", test_json_without_image);
  g_test_add_func ("/ks/ui/timing-export/csv", test_csv);
  return g_test_run ();
}
