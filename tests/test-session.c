/* test-session.c: sessions as a user meets them — a session saved and
 * opened again gives the same pixels, op, parameters, launch, view and
 * editor (its include folders, its pick among several kernels, a declared
 * kernel as its declaration); a pasted image travels inside it; a damaged,
 * foreign or newer file is refused and changes nothing; what only this
 * machine lacks, and what is wrong in the editor's additions, is left out
 * and named; the bundle holds the run's files; and the "Recent" menu offers
 * what was opened (the last session is test-last-session.c's). Runs on
 * the CPU engine, with the state and data folders (recent files) in a
 * temporary folder. Over a thousand lines as one piece: every test here goes
 * through the same helpers (waiting for the pipeline and the toasts,
 * saving, parsing the file written), each one a thing a user does with a
 * session file. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "ks-image-view.h"
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

static KsWindow *
open_window (gboolean sample)
{
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  if (sample)
    {
      ks_window_open_sample (window);
      ks_ui_test_wait_input_name (window, "astronaut.png");
    }
  ks_ui_test_wait_window_idle (window);
  return window;
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_root, name, NULL);
}

static KsImage *
output_of (KsWindow *window)
{
  g_autoptr (GError) error = NULL;
  KsImage *image;

  ks_ui_test_wait_window_idle (window);
  image = ks_pipeline_download_output (ks_window_get_pipeline (window), &error);
  g_assert_no_error (error);
  return image;
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

static GtkAdjustment *
split_adjustment (KsWindow *window)
{
  return GTK_ADJUSTMENT (gtk_widget_get_template_child (GTK_WIDGET (window), KS_TYPE_WINDOW,
                                                        "split_adjustment"));
}

static char *
kernel_text (KsWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (
    ks_window_get_kernel_panel (window)));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
}

static void
save_session (KsWindow *window, const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *expected = g_strdup_printf ("Saved the session %s", base);

  ks_session_save (window, file);
  g_assert_cmpstr (ks_ui_test_wait_message (window, expected), ==, expected);
}

static JsonObject *
parse_file (JsonParser *parser, const char *path)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* Everything a user set up comes back in another window: the same pixels,
 * op, parameters (an integer and a choice), launch, overlay, split and
 * editor; the file is the documented format. */
static void
test_round_trip (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *path = tmp_path ("round-trip" KS_SESSION_EXTENSION);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (KsImage) expected = NULL;
  g_autoptr (KsImage) restored = NULL;
  g_autofree char *text = NULL;
  KsWindow *a = open_window (TRUE), *b;
  KsPipeline *pa = ks_window_get_pipeline (a), *pb;
  KsLaunchConfig launch;
  const KsLaunchConfig *l;
  JsonObject *root, *inputs;

  ks_window_open_named_sample (a, "coffee");
  ks_ui_test_wait_input_name (a, "coffee.png");
  ks_pipeline_set_op (pa, ks_op_registry_lookup ("threshold"));
  set_param (pa, "level", 77);
  set_param (pa, "mode", 2);
  ks_launch_config_init (&launch, 8, 4);
  launch.mode = KS_LAUNCH_GRID_STRIDE;
  launch.pixels_per_thread = 2;
  ks_pipeline_set_launch (pa, &launch);
  ks_image_view_set_overlay (KS_IMAGE_VIEW (ks_window_get_view (a)), KS_OVERLAY_WARP);
  ks_image_view_set_overlay_opacity (KS_IMAGE_VIEW (ks_window_get_view (a)), 0.25);
  gtk_adjustment_set_value (split_adjustment (a), 0.375);
  ks_kernel_panel_set_mode (ks_window_get_kernel_panel (a), KS_KERNEL_MODE_EXPRESSION);
  ks_kernel_panel_set_text (ks_window_get_kernel_panel (a), "out = 255 - in; // from a session");
  expected = output_of (a);
  save_session (a, path);

  root = parse_file (parser, path);
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "kernelscope-session");
  g_assert_cmpint (json_object_get_int_member (root, "version"), ==, 1);
  inputs = json_object_get_object_member (root, "inputs");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (inputs, "a"),
                                                  "sample"), ==, "coffee");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "op"),
                                                  "id"), ==, "threshold");

  /* Another window, on the default op and the astronaut. */
  b = open_window (TRUE);
  pb = ks_window_get_pipeline (b);
  g_assert_cmpstr (ks_pipeline_get_op (pb)->id, ==, "invert");
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);

    ks_session_open (b, file, KS_SESSION_APPLY_ALL);
  }
  g_assert_cmpstr (ks_ui_test_wait_message (b, "Opened the session"), ==,
                   "Opened the session round-trip.kscope.json");
  ks_ui_test_wait_input_name (b, "coffee.png");
  g_assert_cmpstr (ks_pipeline_get_op (pb)->id, ==, "threshold");
  g_assert_cmpfloat (param (pb, "level"), ==, 77);
  g_assert_cmpfloat (param (pb, "mode"), ==, 2);
  l = ks_pipeline_get_launch (pb);
  g_assert_cmpuint (l->block.x, ==, 8);
  g_assert_cmpuint (l->block.y, ==, 4);
  g_assert_true (l->auto_grid);
  g_assert_cmpint (l->mode, ==, KS_LAUNCH_GRID_STRIDE);
  g_assert_cmpuint (l->pixels_per_thread, ==, 2);
  g_assert_cmpint (ks_image_view_get_overlay (KS_IMAGE_VIEW (ks_window_get_view (b))), ==,
                   KS_OVERLAY_WARP);
  g_assert_cmpfloat_with_epsilon (
    ks_image_view_get_overlay_opacity (KS_IMAGE_VIEW (ks_window_get_view (b))), 0.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (gtk_adjustment_get_value (split_adjustment (b)), 0.375, 1e-9);
  g_assert_cmpfloat_with_epsilon (ks_image_view_get_split (KS_IMAGE_VIEW (ks_window_get_view (b))),
                                  0.375, 1e-9);
  text = kernel_text (b);
  g_assert_cmpstr (text, ==, "out = 255 - in; // from a session");
  g_assert_cmpint (ks_kernel_panel_get_mode (ks_window_get_kernel_panel (b)), ==,
                   KS_KERNEL_MODE_EXPRESSION);
  g_assert_false (_ks_window_get_kernel_visible (b));
  restored = output_of (b);
  g_assert_true (ks_image_equal (expected, restored));

  ks_ui_test_close_window (b);
  ks_ui_test_close_window (a);
}

/* A pasted image has no file: it travels inside the session, exactly. */
/* The values of a kernel's //@param parameters go into the session, wait
 * there until the kernel is set again (as its compile sets it) and then come
 * before the values the window's kernel had; a save in between keeps them. */
static void
test_kernel_params (void)
{
  static const char text[] = "//@param float gain 1.5 [0, 4] \"Gain\"\n"
                             "//@param int radius 2 [1, 8] \"Radius\"\n"
                             "out = min (255.0f, in * gain); // params";
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *path = tmp_path ("params" KS_SESSION_EXTENSION);
  g_autofree char *again_path = tmp_path ("params-again" KS_SESSION_EXTENSION);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (KS_KERNEL_MODE_EXPRESSION,
                                                            "kernel.cu", text);
  g_autoptr (KsKernelSource) compiled = ks_kernel_source_new (KS_KERNEL_MODE_EXPRESSION,
                                                              "kernel.cu", text);
  g_autoptr (KsKernelSource) edited = NULL;
  KsWindow *a = open_window (TRUE), *b;
  KsPipeline *pa = ks_window_get_pipeline (a), *pb;
  JsonObject *params;
  const KsParams *values;

  g_assert_false (ks_kernel_source_has_errors (source));
  ks_kernel_panel_set_mode (ks_window_get_kernel_panel (a), KS_KERNEL_MODE_EXPRESSION);
  ks_kernel_panel_set_text (ks_window_get_kernel_panel (a), text);
  ks_pipeline_set_user_kernel (pa, source);
  ks_pipeline_set_user_param (pa, 0, 3.25);
  ks_pipeline_set_user_param (pa, 1, 7);
  save_session (a, path);
  params = json_object_get_object_member (
    json_object_get_object_member (parse_file (parser, path), "kernel"), "parameters");
  g_assert_nonnull (params);
  g_assert_cmpfloat (json_object_get_double_member (params, "gain"), ==, 3.25);
  g_assert_cmpfloat (json_object_get_double_member (params, "radius"), ==, 7);

  /* Another window runs the same kernel at its defaults. */
  b = open_window (TRUE);
  pb = ks_window_get_pipeline (b);
  ks_pipeline_set_user_kernel (pb, source);
  g_assert_cmpfloat (ks_pipeline_get_user_params (pb)->values[0], ==, 1.5);
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);

    ks_session_open (b, file, KS_SESSION_APPLY_ALL);
  }
  ks_ui_test_wait_message (b, "Opened the session");

  /* Saved before the kernel compiled: the session's values, not the defaults. */
  save_session (b, again_path);
  params = json_object_get_object_member (
    json_object_get_object_member (parse_file (parser, again_path), "kernel"), "parameters");
  g_assert_nonnull (params);
  g_assert_cmpfloat (json_object_get_double_member (params, "gain"), ==, 3.25);

  ks_pipeline_set_user_kernel (pb, compiled);
  values = ks_pipeline_get_user_params (pb);
  g_assert_cmpfloat (values->values[0], ==, 3.25);
  g_assert_cmpfloat (values->values[1], ==, 7);

  /* Taken once: an edit keeps the values the user set since. */
  ks_pipeline_set_user_param (pb, 0, 0.5);
  edited = ks_kernel_source_new (KS_KERNEL_MODE_EXPRESSION, "kernel.cu",
                                 "//@param float gain 1.5 [0, 4] \"Gain\"\n"
                                 "out = min (255.0f, in * gain + 1.0f);");
  ks_pipeline_set_user_kernel (pb, edited);
  g_assert_cmpfloat (ks_pipeline_get_user_params (pb)->values[0], ==, 0.5);

  ks_pipeline_set_user_kernel (pb, NULL);
  ks_pipeline_set_user_kernel (pa, NULL);
  ks_ui_test_close_window (b);
  ks_ui_test_close_window (a);
}

static void
test_embedded_input (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *path = tmp_path ("embedded" KS_SESSION_EXTENSION);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (KsImage) pasted = ks_image_new (KS_FORMAT_RGBA8, 97, 61, NULL);
  g_autoptr (KsImage) expected = NULL;
  g_autoptr (KsImage) restored = NULL;
  KsWindow *a = open_window (TRUE), *b;
  JsonObject *input;

  ks_image_fill_random (pasted, 1234);
  ks_window_open_image (a, pasted, "Pasted image", KS_INPUT_A);
  ks_ui_test_wait_input_name (a, "Pasted image");
  ks_pipeline_set_op (ks_window_get_pipeline (a), ks_op_registry_lookup ("box_blur"));
  expected = output_of (a);
  save_session (a, path);
  input = json_object_get_object_member (
    json_object_get_object_member (parse_file (parser, path), "inputs"), "a");
  g_assert_true (json_object_has_member (input, "png"));
  g_assert_false (json_object_has_member (input, "path"));

  b = open_window (TRUE);
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);

    ks_session_open (b, file, KS_SESSION_APPLY_ALL);
  }
  ks_ui_test_wait_message (b, "Opened the session embedded.kscope.json");
  ks_ui_test_wait_input_name (b, "Pasted image");
  g_assert_true (ks_image_equal (ks_pipeline_get_input (ks_window_get_pipeline (b), KS_INPUT_A),
                                 pasted));
  restored = output_of (b);
  g_assert_true (ks_image_equal (expected, restored));
  ks_ui_test_close_window (b);
  ks_ui_test_close_window (a);
}

typedef struct
{
  char *op;
  double level;
  KsLaunchConfig launch;
  KsImage *input;
  char *input_name;
  KsOverlayMode overlay;
  double split;
  char *kernel;
} State;

static void
state_take (State *s, KsWindow *window)
{
  KsPipeline *pipeline = ks_window_get_pipeline (window);

  s->op = g_strdup (ks_pipeline_get_op (pipeline)->id);
  s->level = param (pipeline, "level");
  s->launch = *ks_pipeline_get_launch (pipeline);
  s->input = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  s->input_name = g_strdup (ks_pipeline_get_input_name (pipeline, KS_INPUT_A));
  s->overlay = ks_image_view_get_overlay (KS_IMAGE_VIEW (ks_window_get_view (window)));
  s->split = gtk_adjustment_get_value (split_adjustment (window));
  s->kernel = kernel_text (window);
}

static void
state_assert_same (const State *s, KsWindow *window)
{
  State now = { 0 };

  state_take (&now, window);
  g_assert_cmpstr (now.op, ==, s->op);
  g_assert_cmpfloat (now.level, ==, s->level);
  g_assert_cmpmem (&now.launch, sizeof now.launch, &s->launch, sizeof s->launch);
  g_assert_true (now.input == s->input);
  g_assert_cmpstr (now.input_name, ==, s->input_name);
  g_assert_cmpint (now.overlay, ==, s->overlay);
  g_assert_cmpfloat (now.split, ==, s->split);
  g_assert_cmpstr (now.kernel, ==, s->kernel);
  g_free (now.op);
  g_free (now.input_name);
  g_free (now.kernel);
}

static void
state_clear (State *s)
{
  g_free (s->op);
  g_free (s->input_name);
  g_free (s->kernel);
}

/* Valid members up front (an op, a launch, the split, an image): a file is
 * refused whole, never applied up to its first mistake. */
#define GOOD_PREFIX \
  "{\"format\": \"kernelscope-session\", \"version\": 1," \
  " \"op\": {\"id\": \"gray\", \"parameters\": {\"truncate\": true}}," \
  " \"launch\": {\"block\": [32, 2, 1], \"grid\": [1, 1, 1], \"auto_grid\": true," \
  " \"mode\": \"per-pixel\", \"pixels_per_thread\": 1}," \
  " \"inputs\": {\"b\": {\"sample\": \"coffee\"}}," \
  " \"view\": {\"split\": 0.9, \"overlay\": \"block\"},"

static const struct
{
  const char *name;
  const char *text;    /* NULL: a good file cut in half */
  const char *reason;  /* in the toast */
} bad_files[] = {
  { "corrupt", "{ this is not JSON at all", "not valid JSON" },
  { "truncated", NULL, "not valid JSON" },
  { "empty", "", "empty" },
  { "array", "[1, 2, 3]", "not a Kernelscope session" },
  { "other-format", "{\"format\": \"photo-editor-project\", \"version\": 1}",
    "not a Kernelscope session" },
  { "no-format", "{\"version\": 1, \"op\": {\"id\": \"gray\"}}", "not a Kernelscope session" },
  { "version-2", "{\"format\": \"kernelscope-session\", \"version\": 2, \"op\": {\"id\": \"gray\"}}",
    "newer Kernelscope" },
  { "version-string", "{\"format\": \"kernelscope-session\", \"version\": \"1\"}", "“version”" },
  { "version-0", "{\"format\": \"kernelscope-session\", \"version\": 0}", "“version”" },
  { "op-string", "{\"format\": \"kernelscope-session\", \"version\": 1, \"op\": \"gray\"}",
    "“op” must be an object" },
  { "block-string", GOOD_PREFIX " \"kernel\": {\"source\": \"x\", \"mode\": \"image\"},"
    " \"engine\": {\"device\": \"cpu\"}, \"launch\": {\"block\": \"16x16\", \"grid\": [1, 1, 1],"
    " \"auto_grid\": true, \"mode\": \"per-pixel\", \"pixels_per_thread\": 1}}", "launch.block" },
  { "param-array", GOOD_PREFIX " \"op\": {\"id\": \"threshold\", \"parameters\": {\"level\": [1]}}}",
    "op.parameters.level" },
  { "block-huge", "{\"format\": \"kernelscope-session\", \"version\": 1, \"launch\": {\"block\":"
    " [1000000000000, 1, 1], \"grid\": [1, 1, 1], \"auto_grid\": true, \"mode\": \"per-pixel\","
    " \"pixels_per_thread\": 1}}", "launch.block" },
  { "block-negative", "{\"format\": \"kernelscope-session\", \"version\": 1, \"launch\":"
    " {\"block\": [-16, 16, 1], \"grid\": [1, 1, 1], \"auto_grid\": true, \"mode\": \"per-pixel\","
    " \"pixels_per_thread\": 1}}", "launch.block" },
  { "grid-zero", "{\"format\": \"kernelscope-session\", \"version\": 1, \"launch\":"
    " {\"block\": [16, 16, 1], \"grid\": [0, 4, 1], \"auto_grid\": false, \"mode\": \"per-pixel\","
    " \"pixels_per_thread\": 1}}", "launch.grid" },
  { "ppt-3", "{\"format\": \"kernelscope-session\", \"version\": 1, \"launch\":"
    " {\"block\": [16, 16, 1], \"grid\": [1, 1, 1], \"auto_grid\": true, \"mode\": \"per-pixel\","
    " \"pixels_per_thread\": 3}}", "launch.pixels_per_thread" },
  { "opacity-huge", GOOD_PREFIX " \"view\": {\"overlay_opacity\": 1e300}}", "view.overlay_opacity" },
  { "overlay-unknown", GOOD_PREFIX " \"view\": {\"overlay\": \"sparkles\"}}", "view.overlay" },
  { "zoom-negative", GOOD_PREFIX " \"view\": {\"zoom\": -2}}", "view.zoom" },
  { "kernel-mode", GOOD_PREFIX " \"kernel\": {\"source\": \"x\", \"mode\": \"fortran\"}}",
    "kernel.mode" },
  { "kernel-params-list", GOOD_PREFIX " \"kernel\": {\"source\": \"x\", \"mode\": \"expression\","
    " \"parameters\": [1, 2]}}", "kernel.parameters" },
  { "kernel-param-text", GOOD_PREFIX " \"kernel\": {\"source\": \"x\", \"mode\": \"expression\","
    " \"parameters\": {\"gain\": \"loud\"}}}", "kernel.parameters.gain" },
  { "two-sources", GOOD_PREFIX " \"inputs\": {\"a\": {\"sample\": \"coffee\", \"path\": \"/x.png\"}}}",
    "inputs.a" },
  /* "GIF89a…" in base64: an image, but not the PNG the format asks for. */
  { "not-png", GOOD_PREFIX " \"inputs\": {\"a\": {\"png\": \"R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=\"}}}",
    "not a PNG image" },
  /* The PNG signature, then nothing of a PNG. */
  { "broken-png", GOOD_PREFIX " \"inputs\": {\"a\": {\"png\": \"iVBORw0KGgpub3QgYW4gaW1hZ2U=\"}}}",
    "could not be read" },
  { "not-base64", GOOD_PREFIX " \"inputs\": {\"a\": {\"png\": \"%%% not base64 %%%\"}}}",
    "not a PNG image" },
};

/* Each bad file: a toast that says why in one sentence, and nothing changed. */
static void
test_refused (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *good_path = tmp_path ("good" KS_SESSION_EXTENSION);
  g_autofree char *good = NULL;
  gsize good_length = 0;
  KsWindow *window = open_window (TRUE);
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  State before = { 0 };

  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("threshold"));
  set_param (pipeline, "level", 99);
  ks_kernel_panel_set_text (ks_window_get_kernel_panel (window), "/* mine */");
  gtk_adjustment_set_value (split_adjustment (window), 0.125);
  save_session (window, good_path);
  g_assert_true (g_file_get_contents (good_path, &good, &good_length, NULL));
  ks_ui_test_wait_window_idle (window);
  state_take (&before, window);

  for (guint i = 0; i < G_N_ELEMENTS (bad_files); i++)
    {
      g_autofree char *name = g_strdup_printf ("bad-%s" KS_SESSION_EXTENSION, bad_files[i].name);
      g_autofree char *path = tmp_path (name);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (GError) error = NULL;
      g_autoptr (KsSession) session = NULL;
      const char *text = bad_files[i].text;
      gsize length = text != NULL ? strlen (text) : good_length / 2;
      const char *message;

      g_test_message ("bad file: %s", bad_files[i].name);
      g_assert_true (g_file_set_contents (path, text != NULL ? text : good, length, NULL));
      session = ks_session_load_file (file, NULL, &error);
      g_assert_null (session);
      g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
      g_test_message ("  %s", error->message);

      ks_session_open (window, file, KS_SESSION_APPLY_ALL);
      message = ks_ui_test_wait_message (window, name);
      g_assert_true (g_str_has_prefix (message, "Could not open the session"));
      g_assert_nonnull (strstr (message, "nothing changed"));
      g_assert_nonnull (strstr (message, bad_files[i].reason));
      /* One sentence, on one line. */
      g_assert_null (strchr (message, '\n'));
      g_assert_null (strstr (message, ". "));
      ks_ui_test_iterate_for (100);
      ks_ui_test_wait_window_idle (window);
      state_assert_same (&before, window);
    }
  /* The good file still opens: the refusals were the files' fault. */
  {
    g_autoptr (GFile) file = g_file_new_for_path (good_path);

    ks_session_open (window, file, KS_SESSION_APPLY_ALL);
    ks_ui_test_wait_message (window, "Opened the session good.kscope.json");
  }
  state_clear (&before);
  ks_ui_test_close_window (window);
}

/* What this machine lacks is left out on its own, named, and the rest applies. */
static void
test_partly_applied (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *path = tmp_path ("partly" KS_SESSION_EXTENSION);
  g_autofree char *path2 = tmp_path ("sigma" KS_SESSION_EXTENSION);
  g_autofree char *path3 = tmp_path ("block" KS_SESSION_EXTENSION);
  KsWindow *window = open_window (TRUE);
  KsLaunchConfig before;
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  KsImage *input = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  const char *message;

  g_assert_true (g_file_set_contents (path,
    "{\"format\": \"kernelscope-session\", \"version\": 1,"
    " \"inputs\": {\"a\": {\"path\": \"/nonexistent-ks-dir/photo.png\"}},"
    " \"op\": {\"id\": \"no_such_op\", \"parameters\": {\"level\": 3}},"
    " \"launch\": {\"block\": [32, 4, 1], \"grid\": [1, 1, 1], \"auto_grid\": true,"
    " \"mode\": \"grid-stride\", \"pixels_per_thread\": 4},"
    " \"engine\": {\"device\": \"cuda:7\"},"
    " \"view\": {\"split\": 0.5}, \"future_member\": {\"ignored\": true}}", -1, NULL));
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);

    ks_session_open (window, file, KS_SESSION_APPLY_ALL);
  }
  message = ks_ui_test_wait_message (window, "partly.kscope.json");
  g_test_message ("%s", message);
  g_assert_true (g_str_has_prefix (message, "Opened the session partly.kscope.json, except"));
  g_assert_nonnull (strstr (message, "no_such_op"));
  g_assert_nonnull (strstr (message, "/nonexistent-ks-dir/photo.png"));
  g_assert_nonnull (strstr (message, "cuda:7"));
  ks_ui_test_wait_window_idle (window);
  /* The launch and the split applied; the op, the image and the engine stayed. */
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, ==, 32);
  g_assert_cmpint (ks_pipeline_get_launch (pipeline)->mode, ==, KS_LAUNCH_GRID_STRIDE);
  g_assert_cmpfloat (gtk_adjustment_get_value (split_adjustment (window)), ==, 0.5);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "invert");
  g_assert_true (ks_pipeline_get_input (pipeline, KS_INPUT_A) == input);
  g_assert_cmpstr (ks_device_get_id (ks_pipeline_get_device (pipeline)), ==, "cpu");

  /* A parameter out of its range keeps its default; the op and the others apply. */
  g_assert_true (g_file_set_contents (path2,
    "{\"format\": \"kernelscope-session\", \"version\": 1,"
    " \"op\": {\"id\": \"sharpen\", \"parameters\": {\"amount\": 1000000, \"radius\": 2.5,"
    " \"no_such_parameter\": 1}}}", -1, NULL));
  {
    g_autoptr (GFile) file = g_file_new_for_path (path2);

    ks_session_open (window, file, KS_SESSION_APPLY_ALL);
  }
  message = ks_ui_test_wait_message (window, "sigma.kscope.json");
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "“amount”"));
  g_assert_nonnull (strstr (message, "“no_such_parameter”"));
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "sharpen");
  g_assert_cmpfloat (param (pipeline, "amount"), ==, 1);
  g_assert_cmpfloat (param (pipeline, "radius"), ==, 2.5);

  /* A block the launch panel accepts but no device can run (past CUDA's 1024
   * threads a block): the launch stays, with the device's rule as the
   * reason, and the rest of the file applies. */
  before = *ks_pipeline_get_launch (pipeline);
  g_assert_true (g_file_set_contents (path3,
    "{\"format\": \"kernelscope-session\", \"version\": 1, \"op\": {\"id\": \"gray\"},"
    " \"launch\": {\"block\": [2048, 1, 1], \"grid\": [1, 1, 1], \"auto_grid\": true,"
    " \"mode\": \"per-pixel\", \"pixels_per_thread\": 1}}", -1, NULL));
  {
    g_autoptr (GFile) file = g_file_new_for_path (path3);

    ks_session_open (window, file, KS_SESSION_APPLY_ALL);
  }
  message = ks_ui_test_wait_message (window, "block.kscope.json");
  g_test_message ("%s", message);
  g_assert_true (g_str_has_prefix (message, "Opened the session block.kscope.json, except"));
  g_assert_nonnull (strstr (message, "“launch.block”"));
  g_assert_nonnull (strstr (message, "at most 1024"));
  ks_ui_test_wait_window_idle (window);
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gray");
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.x, ==, before.block.x);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.y, ==, before.block.y);
  g_assert_cmpuint (ks_pipeline_get_launch (pipeline)->block.z, ==, before.block.z);
  ks_ui_test_close_window (window);
}

static GPtrArray *
folder_entries (const char *dir)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  return names;
}

/* The toast that names a bundle in `parent` (an earlier one names another). */
static char *
wait_bundle (KsWindow *window, const char *parent)
{
  const char *prefix = "Exported the bundle to ";
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);
  g_autofree char *name = NULL;
  g_autoptr (GPtrArray) entries = NULL;

  while (name == NULL)
    {
      const char *message = ks_window_get_last_message (window);
      g_autofree char *path = NULL;

      if (message != NULL && g_str_has_prefix (message, prefix))
        {
          path = g_build_filename (parent, message + strlen (prefix), NULL);
          if (g_file_test (path, G_FILE_TEST_IS_DIR))
            name = g_strdup (message + strlen (prefix));
        }
      if (name == NULL && !ks_ui_test_wait_step (deadline))
        break;
    }
  g_assert_nonnull (name);
  entries = folder_entries (parent);

  /* Only the bundle is left in the folder: no temporaries. */
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (entries, 0), ==, name);
  return g_build_filename (parent, name, NULL);
}

/* The bundle holds the published result, its overlay, the timings and the
 * session; a histogram op its bins; a folder that cannot be written, a toast. */
static void
test_bundle (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *parent = tmp_path ("bundles");
  g_autofree char *parent2 = tmp_path ("bundles-histogram");
  g_autoptr (GFile) folder = g_file_new_for_path (parent);
  g_autoptr (GFile) folder2 = g_file_new_for_path (parent2);
  g_autoptr (KsImage) output = NULL;
  g_autoptr (KsImage) rgba = NULL;
  g_autoptr (KsImage) result = NULL;
  g_autoptr (KsImage) overlay = NULL;
  g_autoptr (KsImage) expected_overlay = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (KsSession) session = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *dir2 = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *base = NULL;
  KsWindow *window = open_window (TRUE);
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  KsImageView *view = KS_IMAGE_VIEW (ks_window_get_view (window));
  KsLaunchConfig launch;

  g_mkdir_with_parents (parent, 0755);
  g_mkdir_with_parents (parent2, 0755);
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("gray"));
  /* 3×3 blocks of 16×16 over 512×512: most pixels are never written. */
  ks_launch_config_init (&launch, 16, 16);
  launch.auto_grid = FALSE;
  launch.grid = (KsDim3) { 3, 3, 1 };
  launch.pixels_per_thread = 1;
  ks_pipeline_set_launch (pipeline, &launch);
  ks_image_view_set_overlay (view, KS_OVERLAY_COVERAGE);
  ks_image_view_set_overlay_opacity (view, 0.5);
  /* Exported straight after the change: the bundle waits for its run. */
  ks_session_export_bundle (window, folder);
  dir = wait_bundle (window, parent);
  base = g_path_get_basename (dir);
  g_assert_true (g_str_has_prefix (base, "kernelscope-gray-"));

  output = ks_pipeline_download_output (pipeline, &error);
  g_assert_no_error (error);
  rgba = ks_image_to_rgba (output);
  {
    g_autofree char *p = g_build_filename (dir, "result.png", NULL);

    result = ks_image_load (p, &error);
    g_assert_no_error (error);
    g_assert_true (ks_image_equal (result, rgba));
  }
  g_assert_nonnull (ks_pipeline_get_coverage (pipeline));
  expected_overlay = ks_overlay_compose (rgba, ks_pipeline_get_coverage (pipeline),
                                         &ks_pipeline_get_result (pipeline)->launch,
                                         KS_OVERLAY_COVERAGE, 0.5, &error);
  g_assert_no_error (error);
  {
    g_autofree char *p = g_build_filename (dir, "overlay.png", NULL);

    overlay = ks_image_load (p, &error);
    g_assert_no_error (error);
    g_assert_true (ks_image_equal (overlay, expected_overlay));
    g_assert_false (ks_image_equal (overlay, rgba));
  }
  {
    g_autofree char *p = g_build_filename (dir, "timings.csv", NULL);

    g_assert_true (g_file_get_contents (p, &csv, NULL, NULL));
    g_assert_true (strlen (csv) > 10);
  }
  {
    g_autofree char *p = g_build_filename (dir, "timings.json", NULL);

    g_assert_true (json_parser_load_from_file (parser, p, &error));
    g_assert_no_error (error);
  }
  {
    g_autofree char *p = g_build_filename (dir, "session.kscope.json", NULL);
    g_autoptr (GFile) f = g_file_new_for_path (p);

    session = ks_session_load_file (f, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ks_session_get_op_id (session), ==, "gray");
  }
  {
    g_autofree char *p = g_build_filename (dir, "README.txt", NULL);

    g_assert_true (g_file_get_contents (p, &readme, NULL, NULL));
    g_assert_nonnull (strstr (readme, "Grayscale"));
    g_assert_nonnull (strstr (readme, "overlay.png"));
  }

  /* A histogram op: its bins, no images. */
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("histogram"));
  ks_session_export_bundle (window, folder2);
  dir2 = wait_bundle (window, parent2);
  {
    g_autofree char *hist = g_build_filename (dir2, "histogram.csv", NULL);
    g_autofree char *png = g_build_filename (dir2, "result.png", NULL);
    g_autofree char *text = NULL;
    g_auto (GStrv) lines = NULL;

    g_assert_true (g_file_get_contents (hist, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", -1);
    g_assert_cmpstr (lines[0], ==, "bin,r,g,b,luma");
    g_assert_cmpuint (g_strv_length (lines), ==, 258);
    g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
  }

  /* A folder that is not there: the reason, and nothing made. */
  {
    g_autoptr (GFile) missing = g_file_new_for_path ("/nonexistent-ks-dir");

    ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("invert"));
    ks_session_export_bundle (window, missing);
    ks_ui_test_wait_message (window, "Could not export the bundle");
    g_assert_false (g_file_test ("/nonexistent-ks-dir", G_FILE_TEST_EXISTS));
  }
  ks_ui_test_close_window (window);
}

static gboolean
menu_has (GMenuModel *menu, const char *uri, char **label)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autoptr (GVariant) target = g_menu_model_get_item_attribute_value (
        menu, i, G_MENU_ATTRIBUTE_TARGET, G_VARIANT_TYPE_STRING);

      if (target != NULL && g_str_equal (g_variant_get_string (target, NULL), uri))
        {
          if (label != NULL)
            g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", label);
          return TRUE;
        }
    }
  return FALSE;
}

static void
wait_menu_has (GMenuModel *menu, const char *uri)
{
  KS_UI_TEST_WAIT_FOR (menu_has (menu, uri, NULL), KS_UI_TEST_PATIENCE_S);
  g_assert_true (menu_has (menu, uri, NULL));
}

/* Saved sessions and opened images appear in the "Recent" menu, marked
 * apart; choosing one opens it; one that has gone says so. */
static void
test_recent (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *session_path = tmp_path ("recent_one" KS_SESSION_EXTENSION);
  g_autofree char *image_path = tmp_path ("recent-image.png");
  g_autoptr (GFile) session_file = g_file_new_for_path (session_path);
  g_autoptr (GFile) image_file = g_file_new_for_path (image_path);
  g_autofree char *session_uri = g_file_get_uri (session_file);
  g_autofree char *image_uri = g_file_get_uri (image_file);
  g_autofree char *label = NULL;
  g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, 40, 30, NULL);
  KsWindow *window = open_window (TRUE);
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  GMenuModel *menu = G_MENU_MODEL (_ks_window_get_recent_menu (window));

  ks_image_fill_random (image, 77);
  g_assert_true (ks_image_save (image, image_path, NULL));
  ks_window_open_file (window, image_file, KS_INPUT_A);
  ks_ui_test_wait_input_name (window, "recent-image.png");
  wait_menu_has (menu, image_uri);
  g_assert_true (menu_has (menu, image_uri, &label));
  g_assert_cmpstr (label, ==, "recent-image.png");
  g_clear_pointer (&label, g_free);

  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("sobel"));
  save_session (window, session_path);
  wait_menu_has (menu, session_uri);
  g_assert_true (menu_has (menu, session_uri, &label));
  /* The file's own underscore is not a mnemonic. */
  g_assert_cmpstr (label, ==, "recent__one.kscope.json (session)");
  g_assert_cmpint (g_menu_model_get_n_items (menu), <=, 8);

  /* Choosing the session opens it. */
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("invert"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-recent", "s",
                                             session_uri));
  ks_ui_test_wait_message (window, "Opened the session recent_one.kscope.json");
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "sobel");

  /* The image, after another one. */
  ks_window_open_sample (window);
  ks_ui_test_wait_input_name (window, "astronaut.png");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-recent", "s",
                                             image_uri));
  ks_ui_test_wait_input_name (window, "recent-image.png");
  g_assert_true (ks_image_equal (ks_pipeline_get_input (pipeline, KS_INPUT_A), image));

  /* Gone: a toast, and it leaves the menu. */
  g_unlink (session_path);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-recent", "s",
                                             session_uri));
  ks_ui_test_wait_message (window, "is not there any more");
  KS_UI_TEST_WAIT_FOR (!menu_has (menu, session_uri, NULL), KS_UI_TEST_PATIENCE_S);
  g_assert_false (menu_has (menu, session_uri, NULL));
  ks_ui_test_close_window (window);
}

/* ---- the kernel editor's include folders, pick and declared kernels ---------------- */

static void
wait_compiled (KsKernelPanel *panel)
{
  ks_ui_test_iterate_for (20);
  for (int i = 0; i < 3000 && ks_kernel_panel_is_compiling (panel); i++)
    ks_ui_test_iterate_for (10);
  g_assert_false (ks_kernel_panel_is_compiling (panel));
}

/* text with every `from` replaced by `to`; `from` must occur. */
static char *
replace_text (const char *text, const char *from, const char *to)
{
  g_auto (GStrv) parts = g_strsplit (text, from, -1);

  g_assert_cmpuint (g_strv_length (parts), >, 1);
  return g_strjoinv (to, parts);
}

static void
open_session (KsWindow *window, const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);

  ks_session_open (window, file, KS_SESSION_APPLY_ALL);
}

/* A text of two kernels, one of them picked in the chooser, and a header
 * from an include folder: all three come back, and the picked kernel is
 * the one that compiles. */
static void
test_kernel_includes_and_pick (void)
{
  static const char text[] =
    "#include \"scale.cuh\"\n"
    "__global__ void first (float *out, unsigned n) { if (threadIdx.x < n) out[threadIdx.x] = 1; }\n"
    "__global__ void second (float *out, unsigned n)\n"
    "{\n"
    "  if (threadIdx.x < n) out[threadIdx.x] = scale (2.0f);\n"
    "}\n";
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *path = tmp_path ("includes" KS_SESSION_EXTENSION);
  g_autofree char *inc = tmp_path ("inc");
  g_autofree char *header = g_build_filename (inc, "scale.cuh", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  KsWindow *a = open_window (FALSE), *b;
  KsKernelPanel *pa = ks_window_get_kernel_panel (a), *pb;
  const char *dirs[] = { inc, NULL };
  const char *message;
  JsonObject *kernel;
  JsonArray *saved_dirs;

  g_assert_cmpint (g_mkdir_with_parents (inc, 0755), ==, 0);
  g_assert_true (g_file_set_contents (header,
                                      "__device__ float scale (float x) { return 3 * x; }\n", -1,
                                      NULL));
  ks_kernel_panel_set_mode (pa, KS_KERNEL_MODE_ANY);
  ks_kernel_panel_set_include_dirs (pa, dirs);
  ks_kernel_panel_set_text (pa, text);
  ks_kernel_panel_set_kernel (pa, "second");
  wait_compiled (pa);
  save_session (a, path);

  kernel = json_object_get_object_member (parse_file (parser, path), "kernel");
  saved_dirs = json_object_get_array_member (kernel, "include_dirs");
  g_assert_cmpuint (json_array_get_length (saved_dirs), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (saved_dirs, 0), ==, inc);
  g_assert_cmpstr (json_object_get_string_member (kernel, "entry"), ==, "second");
  g_assert_false (json_object_has_member (kernel, "declared"));

  b = open_window (FALSE);
  pb = ks_window_get_kernel_panel (b);
  g_assert_null (ks_kernel_panel_get_include_dirs (pb)[0]);
  open_session (b, path);
  message = ks_ui_test_wait_message (b, "includes.kscope.json");
  g_assert_cmpstr (message, ==, "Opened the session includes.kscope.json");
  g_assert_true (g_strv_equal (ks_kernel_panel_get_include_dirs (pb), dirs));
  g_assert_cmpstr (ks_kernel_panel_get_kernel (pb), ==, "second");
  {
    g_autofree char *restored = kernel_text (b);

    g_assert_cmpstr (restored, ==, text);
  }
  if (ks_test_have_nvrtc ())
    {
      /* The header is found in the folder, and the pick is what compiled. */
      wait_compiled (pb);
      g_assert_nonnull (ks_kernel_panel_get_last_good (pb));
      g_assert_cmpstr (ks_kernel_source_get_entry (ks_kernel_panel_get_last_good (pb)), ==,
                       "second");
    }

  /* A pick the text no longer has: the text decides, and the toast says so. */
  {
    g_autofree char *edited = NULL;
    g_autofree char *renamed = tmp_path ("renamed" KS_SESSION_EXTENSION);
    g_autofree char *contents = NULL;

    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    edited = replace_text (contents, "\"second\"", "\"third\"");
    g_assert_true (g_file_set_contents (renamed, edited, -1, NULL));
    open_session (b, renamed);
    message = ks_ui_test_wait_message (b, "renamed.kscope.json");
    g_test_message ("%s", message);
    g_assert_true (g_str_has_prefix (message, "Opened the session renamed.kscope.json, except"));
    g_assert_nonnull (strstr (message, "no kernel “third”"));
    g_assert_null (ks_kernel_panel_get_kernel (pb));
    g_assert_true (g_strv_equal (ks_kernel_panel_get_include_dirs (pb), dirs));
  }
  ks_ui_test_close_window (b);
  ks_ui_test_close_window (a);
  g_unlink (header);
  g_rmdir (inc);
}

static void
assert_declaration (const KsDeclaration *d, KsDeclaredKind kind, const char *name,
                    const char *arguments, const char *map_expr, const char *reduce_expr,
                    const char *neutral, const char *dtype, const char *preamble)
{
  g_assert_cmpint (d->kind, ==, kind);
  g_assert_cmpstr (d->name, ==, name);
  if (arguments != NULL)
    g_assert_cmpstr (d->arguments, ==, arguments);
  if (map_expr != NULL)
    g_assert_cmpstr (d->map_expr, ==, map_expr);
  g_assert_cmpstr (d->reduce_expr, ==, reduce_expr);
  g_assert_cmpstr (d->neutral, ==, neutral);
  g_assert_cmpstr (d->dtype, ==, dtype);
  g_assert_cmpstr (d->preamble, ==, preamble);
}

/* A declared kernel comes back as its declaration — the form with its
 * kind and pieces, the source generated from it — not as the text it
 * generated; a reduction and an exclusive scan out of place. */
static void
test_declared_kernel (void)
{
  static const KsDeclaration reduction = {
    .kind = KS_DECLARED_REDUCTION, .name = "norm2", .dtype = "double", .neutral = "0",
    .reduce_expr = "a+b", .map_expr = "square (x[i])", .arguments = "const double *x",
    .preamble = "__device__ double square (double v) { return v * v; }",
  };
  static const KsDeclaration scan = {
    .kind = KS_DECLARED_EXCLUSIVE_SCAN, .name = "prefix_max", .dtype = "int",
    .reduce_expr = "max (a, b)", .neutral = "-2147483647", .out_of_place = TRUE,
  };
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *path = tmp_path ("declared" KS_SESSION_EXTENSION);
  g_autofree char *scan_path = tmp_path ("scan" KS_SESSION_EXTENSION);
  g_autoptr (JsonParser) parser = json_parser_new ();
  KsWindow *a = open_window (FALSE), *b;
  KsKernelPanel *pa = ks_window_get_kernel_panel (a), *pb;
  g_autofree char *generated = NULL;
  g_autofree char *restored = NULL;
  KsDeclaration d;
  JsonObject *declared;

  ks_kernel_panel_set_declaration (pa, &reduction);
  wait_compiled (pa);
  generated = kernel_text (a);
  g_assert_nonnull (strstr (generated, "square (x[i])"));
  save_session (a, path);

  declared = json_object_get_object_member (
    json_object_get_object_member (parse_file (parser, path), "kernel"), "declared");
  g_assert_nonnull (declared);
  g_assert_cmpstr (json_object_get_string_member (declared, "kind"), ==, "reduction");
  g_assert_cmpstr (json_object_get_string_member (declared, "name"), ==, "norm2");
  g_assert_cmpstr (json_object_get_string_member (declared, "map_expr"), ==, "square (x[i])");
  g_assert_cmpstr (json_object_get_string_member (declared, "reduce_expr"), ==, "a+b");
  g_assert_cmpstr (json_object_get_string_member (declared, "dtype_out"), ==, "double");
  g_assert_cmpstr (json_object_get_string_member (declared, "neutral"), ==, "0");
  g_assert_cmpstr (json_object_get_string_member (declared, "arguments"), ==, "const double *x");
  g_assert_false (json_object_has_member (declared, "operation"));
  g_assert_false (json_object_has_member (declared, "out_of_place"));

  b = open_window (FALSE);
  pb = ks_window_get_kernel_panel (b);
  ks_kernel_panel_set_text (pb, "/* mine */");
  g_assert_false (ks_kernel_panel_get_declaration (pb, &d));
  open_session (b, path);
  g_assert_cmpstr (ks_ui_test_wait_message (b, "declared.kscope.json"), ==,
                   "Opened the session declared.kscope.json");
  wait_compiled (pb);
  g_assert_true (ks_kernel_panel_get_declaration (pb, &d));
  assert_declaration (&d, KS_DECLARED_REDUCTION, "norm2", "const double *x", "square (x[i])",
                      "a+b", "0", "double", reduction.preamble);
  g_assert_cmpint (ks_kernel_panel_get_mode (pb), ==, KS_KERNEL_MODE_ANY);
  restored = kernel_text (b);
  g_assert_cmpstr (restored, ==, generated);
  /* Generated, so not the user's to edit: the form is where it changes. */
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (
    ks_ui_test_find_widget (GTK_WIDGET (pb), GTK_SOURCE_TYPE_VIEW))));

  /* A scan writes scan_expr and dtype, in place or not. */
  ks_kernel_panel_set_declaration (pa, &scan);
  wait_compiled (pa);
  save_session (a, scan_path);
  declared = json_object_get_object_member (
    json_object_get_object_member (parse_file (parser, scan_path), "kernel"), "declared");
  g_assert_cmpstr (json_object_get_string_member (declared, "kind"), ==, "exclusive-scan");
  g_assert_cmpstr (json_object_get_string_member (declared, "scan_expr"), ==, "max (a, b)");
  g_assert_cmpstr (json_object_get_string_member (declared, "dtype"), ==, "int");
  g_assert_true (json_object_get_boolean_member (declared, "out_of_place"));
  g_assert_false (json_object_has_member (declared, "arguments"));
  g_assert_false (json_object_has_member (declared, "preamble"));
  open_session (b, scan_path);
  ks_ui_test_wait_message (b, "Opened the session scan.kscope.json");
  wait_compiled (pb);
  g_assert_true (ks_kernel_panel_get_declaration (pb, &d));
  assert_declaration (&d, KS_DECLARED_EXCLUSIVE_SCAN, "prefix_max", NULL, NULL, "max (a, b)",
                      "-2147483647", "int", "");
  g_assert_true (d.out_of_place);
  g_free (restored);
  restored = kernel_text (b);
  g_free (generated);
  generated = kernel_text (a);
  g_assert_cmpstr (restored, ==, generated);

  /* A session of plain text leaves the form. */
  ks_kernel_panel_set_text (pa, "/* written by hand */");
  save_session (a, path);
  open_session (b, path);
  ks_ui_test_wait_message (b, "Opened the session declared.kscope.json");
  g_assert_false (ks_kernel_panel_get_declaration (pb, &d));
  g_free (restored);
  restored = kernel_text (b);
  g_assert_cmpstr (restored, ==, "/* written by hand */");
  ks_ui_test_close_window (b);
  ks_ui_test_close_window (a);
}

/* A session written before the editor kept its folders, pick and
 * declaration opens as before; wrong values there are left out on their
 * own, named, and everything else applies. */
static void
test_kernel_additions_left_out (void)
{
  g_autoptr (GSettings) settings = fresh_settings ();
  g_autofree char *old_path = tmp_path ("old" KS_SESSION_EXTENSION);
  g_autofree char *bad_path = tmp_path ("bad-editor" KS_SESSION_EXTENSION);
  g_autofree char *gone_path = tmp_path ("gone" KS_SESSION_EXTENSION);
  g_autofree char *number_path = tmp_path ("number" KS_SESSION_EXTENSION);
  g_autofree char *inc = tmp_path ("kept-inc");
  KsWindow *window = open_window (FALSE);
  KsKernelPanel *panel = ks_window_get_kernel_panel (window);
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  const char *dirs[] = { inc, NULL };
  const char *message;
  KsDeclaration d;

  g_assert_cmpint (g_mkdir_with_parents (inc, 0755), ==, 0);
  ks_kernel_panel_set_include_dirs (panel, dirs);

  g_assert_true (g_file_set_contents (old_path,
    "{\"format\": \"kernelscope-session\", \"version\": 1,"
    " \"kernel\": {\"source\": \"out = in / 2;\", \"mode\": \"expression\", \"visible\": false}}",
    -1, NULL));
  open_session (window, old_path);
  g_assert_cmpstr (ks_ui_test_wait_message (window, "old.kscope.json"), ==,
                   "Opened the session old.kscope.json");
  g_assert_true (g_strv_equal (ks_kernel_panel_get_include_dirs (panel), dirs));
  g_assert_null (ks_kernel_panel_get_kernel (panel));
  g_assert_false (ks_kernel_panel_get_declaration (panel, &d));
  {
    g_autofree char *text = kernel_text (window);

    g_assert_cmpstr (text, ==, "out = in / 2;");
  }

  g_assert_true (g_file_set_contents (bad_path,
    "{\"format\": \"kernelscope-session\", \"version\": 1, \"op\": {\"id\": \"gray\"},"
    " \"kernel\": {\"source\": \"/* generated */\", \"mode\": \"any\", \"visible\": false,"
    " \"include_dirs\": \"inc\", \"entry\": 5,"
    " \"declared\": {\"kind\": \"fold\", \"name\": \"f\"}}}", -1, NULL));
  open_session (window, bad_path);
  message = ks_ui_test_wait_message (window, "bad-editor.kscope.json");
  g_test_message ("%s", message);
  g_assert_true (g_str_has_prefix (message, "Opened the session bad-editor.kscope.json, except"));
  g_assert_nonnull (strstr (message, "“kernel.include_dirs” must be a list of folders"));
  g_assert_nonnull (strstr (message, "“kernel.entry” must be a kernel’s name"));
  g_assert_nonnull (strstr (message, "“kernel.declared.kind” must be one of elementwise, "
                                     "reduction, inclusive-scan, exclusive-scan"));
  g_assert_null (strchr (message, '\n'));
  ks_ui_test_wait_window_idle (window);
  /* The rest applied: the op, the mode, the text; the folders stayed. */
  g_assert_cmpstr (ks_pipeline_get_op (pipeline)->id, ==, "gray");
  g_assert_cmpint (ks_kernel_panel_get_mode (panel), ==, KS_KERNEL_MODE_ANY);
  g_assert_true (g_strv_equal (ks_kernel_panel_get_include_dirs (panel), dirs));
  g_assert_false (ks_kernel_panel_get_declaration (panel, &d));
  {
    g_autofree char *text = kernel_text (window);

    g_assert_cmpstr (text, ==, "/* generated */");
  }

  /* A folder that has gone, a piece of the wrong type. */
  g_assert_true (g_file_set_contents (gone_path,
    "{\"format\": \"kernelscope-session\", \"version\": 1,"
    " \"kernel\": {\"source\": \"x\", \"mode\": \"any\","
    " \"include_dirs\": [\"/nonexistent-ks-dir/inc\"],"
    " \"declared\": {\"kind\": \"elementwise\", \"operation\": [\"z[i] = 0\"]}}}", -1, NULL));
  open_session (window, gone_path);
  message = ks_ui_test_wait_message (window, "gone.kscope.json");
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "include folder /nonexistent-ks-dir/inc is not there"));
  g_assert_nonnull (strstr (message, "“kernel.declared.operation” must be a string"));
  g_assert_null (ks_kernel_panel_get_include_dirs (panel)[0]);

  /* A list with a number in it. */
  g_assert_true (g_file_set_contents (number_path,
    "{\"format\": \"kernelscope-session\", \"version\": 1,"
    " \"kernel\": {\"source\": \"x\", \"mode\": \"any\", \"include_dirs\": [\"/tmp\", 3]}}",
    -1, NULL));
  ks_kernel_panel_set_include_dirs (panel, dirs);
  open_session (window, number_path);
  message = ks_ui_test_wait_message (window, "number.kscope.json");
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "(item 2)"));
  g_assert_true (g_strv_equal (ks_kernel_panel_get_include_dirs (panel), dirs));
  ks_ui_test_close_window (window);
  g_rmdir (inc);
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
  tmp_root = g_dir_make_tmp ("ks-test-session-XXXXXX", NULL);
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

  g_test_add_func ("/ks/ui/session/round-trip", test_round_trip);
  g_test_add_func ("/ks/ui/session/kernel-params", test_kernel_params);
  g_test_add_func ("/ks/ui/session/embedded-input", test_embedded_input);
  g_test_add_func ("/ks/ui/session/refused", test_refused);
  g_test_add_func ("/ks/ui/session/partly-applied", test_partly_applied);
  g_test_add_func ("/ks/ui/session/kernel-includes-and-pick", test_kernel_includes_and_pick);
  g_test_add_func ("/ks/ui/session/declared-kernel", test_declared_kernel);
  g_test_add_func ("/ks/ui/session/kernel-additions-left-out", test_kernel_additions_left_out);
  g_test_add_func ("/ks/ui/session/bundle", test_bundle);
  g_test_add_func ("/ks/ui/session/recent", test_recent);
  status = g_test_run ();
  /* Kept when a test failed, to look at. */
  if (status == 0)
    ks_test_remove_tree (tmp_root);
  return status;
}
