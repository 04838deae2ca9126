/* test-last-session.c: the last session, the one place a window's last
 * state is kept — written when a window closes (its engine left out where
 * the CPU engine was no choice), it brings the window back at the next
 * start, all of it or all but its inputs; without one (the first start) or
 * with restore-last off the window starts on the sample and the default op;
 * a damaged one is named in a toast and does not stop the start. Runs on the
 * CPU engine, with the state and data folders in a temporary folder. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "ks-session.h"
#include "ks-test-helpers.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-private.h"
#include "ks-op-registry.h"

static char *tmp_root;

static GSettings *
fresh_settings (void)
{
  static const char *const keys[] = { "restore-last", "launch-defaults", NULL };

  return ks_ui_test_fresh_settings (keys);
}

static double
param (KsPipeline *pipeline, const char *name)
{
  return ks_params_get (ks_pipeline_get_params (pipeline), ks_pipeline_get_op (pipeline), name);
}

static void
set_param (KsPipeline *pipeline, const char *name, double value)
{
  guint index;

  g_assert_nonnull (ks_op_lookup_param (ks_pipeline_get_op (pipeline), name, &index));
  ks_pipeline_set_param (pipeline, index, value);
}

/* The engine the last session names: the CPU engine chosen (the tests'
 * default-engine), left out where it was the only one, on a machine
 * without CUDA, so that a GPU installed later is not kept off. */
static void
check_last_engine (const char *path)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonObject *top, *engine;
  const char *device = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  top = json_node_get_object (json_parser_get_root (parser));
  engine = json_object_has_member (top, "engine")
             ? json_object_get_object_member (top, "engine") : NULL;
  if (engine != NULL && json_object_has_member (engine, "device"))
    device = json_object_get_string_member (engine, "device");
  if (ks_cuda_available (NULL))
    g_assert_cmpstr (device, ==, "cpu");
  else
    g_assert_null (device);
}

/* A window that closes leaves its session in the state folder; the next
 * one starts from it — from all of it without images on the command line,
 * from all but its inputs with them; with restore-last off, from the sample. */
static void
test_last_session (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autoptr (GFile) last = ks_session_get_last_file ();
  g_autofree char *expected_path = g_build_filename (tmp_root, "state", "kernelscope",
                                                     "last-session.kscope.json", NULL);
  g_autofree char *last_path = g_file_get_path (last);
  KsWindow *window;
  KsPipeline *pipeline;
  KsLaunchConfig launch;

  g_assert_cmpstr (last_path, ==, expected_path);
  g_unlink (last_path);

  /* No last session yet (the first start): the sample, the default op. */
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  ks_session_start_window (window, NULL, FALSE);
  ks_ui_test_wait_input_name (window, "astronaut.png");
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "invert");
  g_assert_null (ks_window_get_last_message (window));
  ks_window_open_named_sample (window, "coffee");
  ks_ui_test_wait_input_name (window, "coffee.png");
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gamma"));
  set_param (pipeline, "gamma", 0.75);
  ks_launch_config_init (&launch, 64, 2);
  ks_pipeline_set_launch (pipeline, &launch);
  ks_ui_test_wait_window_idle (window);
  ks_ui_test_close_window (window);
  KS_UI_TEST_WAIT_FOR (g_file_test (last_path, G_FILE_TEST_EXISTS), KS_UI_TEST_PATIENCE_S);
  g_assert_true (g_file_test (last_path, G_FILE_TEST_EXISTS));
  check_last_engine (last_path);

  /* Only the session brings these back: the settings have no keys for them. */
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  ks_session_start_window (window, NULL, FALSE);
  ks_ui_test_wait_input_name (window, "coffee.png");
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gamma");
  g_assert_cmpfloat (param (pipeline, "gamma"), ==, 0.75);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, ==, 64);
  ks_ui_test_wait_window_idle (window);
  ks_ui_test_close_window (window);
  for (int i = 0; i < 100; i++)
    ks_ui_test_iterate_for (10);

  /* Images on the command line win over the session's inputs. */
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  ks_session_start_window (window, NULL, TRUE);
  pipeline = ks_window_get_pipeline (window);
  KS_UI_TEST_WAIT_FOR (g_strcmp0 (ks_pipeline_get_op (pipeline)->id, "gamma") == 0,
                       KS_UI_TEST_PATIENCE_S);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gamma");
  ks_ui_test_iterate_for (200);
  g_assert_null (ks_pipeline_get_input (pipeline, KS_INPUT_A));
  ks_ui_test_close_window (window);
  ks_ui_test_iterate_for (200);

  /* restore-last off: the sample and the default op. */
  g_settings_set_boolean (settings, "restore-last", FALSE);
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  ks_session_start_window (window, NULL, FALSE);
  ks_ui_test_wait_input_name (window, "astronaut.png");
  ks_ui_test_iterate_for (200);
  g_assert_cmpstr (ks_pipeline_get_op (ks_window_get_pipeline (window))->id, ==, "invert");
  ks_ui_test_close_window (window);
  ks_ui_test_iterate_for (200);
  g_settings_reset (settings, "restore-last");
}

static gboolean
session_file_valid (GFile *file)
{
  g_autoptr (KsSession) session = ks_session_load_file (file, NULL, NULL);

  return session != NULL;
}

/* A last session that is damaged does not stop the start: a toast names
 * it, and the window starts as on the first start, on the sample and the
 * default op. */
static void
test_last_session_refused (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autoptr (GFile) last = ks_session_get_last_file ();
  g_autofree char *last_path = g_file_get_path (last);
  g_autofree char *folder = g_path_get_dirname (last_path);
  KsWindow *window;
  KsPipeline *pipeline;
  const char *message;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  g_assert_true (g_file_set_contents (last_path, "{\"format\": \"kernelscope-session\", \"ver",
                                      -1, NULL));
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  ks_session_start_window (window, NULL, FALSE);
  message = ks_ui_test_wait_message (window, "Could not open the session last-session.kscope.json");
  g_test_message ("%s", message);
  ks_ui_test_wait_input_name (window, "astronaut.png");
  pipeline = ks_window_get_pipeline (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "invert");
  ks_ui_test_wait_window_idle (window);
  ks_ui_test_close_window (window);
  /* The window's close writes a good one over it. */
  KS_UI_TEST_WAIT_FOR (session_file_valid (last), KS_UI_TEST_PATIENCE_S);
  g_assert_true (session_file_valid (last));
}

int
main (int argc, char *argv[])
{
  g_autofree char *schemas = NULL;
  g_autofree char *state = NULL;
  g_autofree char *data = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  /* Before anything reads them (GLib caches the folders): the last session
   * and the recent files go to a folder of the test's own. */
  tmp_root = g_dir_make_tmp ("ks-test-last-session-XXXXXX", NULL);
  g_assert_nonnull (tmp_root);
  state = g_build_filename (tmp_root, "state", NULL);
  data = g_build_filename (tmp_root, "data", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  schemas = ks_ui_test_use_build_schemas ();
  if (!ks_ui_test_require_display (KS_UI_TEST_ADWAITA))
    return 0;
  if (!ks_ui_test_have_build_schemas (schemas))
    return 77;

  g_test_add_func ("/ks/ui/last-session/comes-back", test_last_session);
  g_test_add_func ("/ks/ui/last-session/refused", test_last_session_refused);
  status = g_test_run ();
  /* Kept when a test failed, to look at. */
  if (status == 0)
    ks_test_remove_tree (tmp_root);
  return status;
}
