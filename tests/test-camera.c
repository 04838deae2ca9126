/* test-camera.c: a live source as the input, with GStreamer's videotestsrc
 * standing in for a camera (a moving ball, 320×240 at 30 fps, live): its
 * frames reach the pipeline and the inverted output follows them, a busy
 * worker makes frames drop instead of queue, stopping releases the source,
 * a bad source or a failing one says why and leaves the pipeline working,
 * and in the window the camera gives way to an opened image and goes with
 * the window. Everything runs on the CPU engine. */
#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "ks-camera.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-private.h"
#include "ks-op-registry.h"

#define TEST_SOURCE \
  "videotestsrc pattern=ball is-live=true ! video/x-raw,width=320,height=240,framerate=30/1"

/* Generous: a loaded CI machine under a sanitizer is slow to start GStreamer. */
#define WAIT_S 30

/* Iterates the main loop until cond holds or WAIT_S pass (the steps are
 * bounded: a live source always has something pending). */
#define WAIT_FOR(cond) KS_UI_TEST_WAIT_FOR (cond, WAIT_S)

static KsPipeline *
cpu_pipeline (void)
{
  KsPipeline *pipeline = ks_pipeline_new ();
  g_autoptr (KsImage) card = ks_image_new_test_card (64, 48, NULL);

  ks_ui_test_use_cpu (pipeline);
  ks_pipeline_set_op (pipeline, ks_op_registry_lookup ("invert"));
  /* An image of its own before the camera: what a failing camera must keep. */
  ks_ui_test_set_input (pipeline, KS_INPUT_A, card, "card");
  WAIT_FOR (ks_pipeline_is_idle (pipeline));
  return pipeline;
}

static gboolean
start (KsCamera *camera, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  ks_camera_start_async (camera, NULL, ks_ui_test_on_done_cb, &result);
  WAIT_FOR (result != NULL);
  g_assert_nonnull (result);
  return ks_camera_start_finish (camera, result, error);
}

static void
stop_and_finalize (KsCamera *camera)
{
  ks_camera_stop (camera);
  WAIT_FOR (ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  ks_ui_test_iterate_for (20);
  g_assert_finalize_object (camera);
}

/* Once the pipeline has published the run of its current input: that
 * input, and the output the engine made of it. */
static KsImage *
settled_output (KsPipeline *pipeline, KsImage **input)
{
  g_autoptr (GError) error = NULL;
  KsImage *output;

  WAIT_FOR (ks_pipeline_is_idle (pipeline));
  g_assert_true (ks_pipeline_is_idle (pipeline));
  *input = ks_image_ref (ks_pipeline_get_input (pipeline, KS_INPUT_A));
  output = ks_pipeline_download_output (pipeline, &error);
  g_assert_no_error (error);
  g_assert_nonnull (output);
  return output;
}

static void
assert_inverted (const KsImage *input, const KsImage *output)
{
  g_assert_cmpuint (output->width, ==, input->width);
  g_assert_cmpuint (output->height, ==, input->height);
  for (guint y = 0; y < input->height; y++)
    for (guint x = 0; x < input->width; x++)
      g_assert_cmphex ((ks_image_get_rgba (input, x, y) ^ ks_image_get_rgba (output, x, y))
                         & 0xffffff, ==, 0xffffff);
}

/* The frames become the pipeline's input one after another, and the output
 * is the op applied to each: the ball moves on screen. */
static void
test_frames_reach_pipeline (void)
{
  g_autoptr (KsPipeline) pipeline = cpu_pipeline ();
  KsCamera *camera = ks_camera_new (pipeline, TEST_SOURCE, 320, 240);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) in1 = NULL, out1 = NULL, in2 = NULL, out2 = NULL;
  KsImage *a;
  guint64 delivered;

  start (camera, &error);
  g_assert_no_error (error);
  g_assert_true (ks_camera_get_running (camera));
  g_assert_cmpstr (ks_camera_get_name (camera), ==, "Camera: videotestsrc");

  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= 10);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), >=, 10);
  a = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  g_assert_cmpuint (a->width, ==, 320);
  g_assert_cmpuint (a->height, ==, 240);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==,
                   ks_camera_get_name (camera));

  out1 = settled_output (pipeline, &in1);
  assert_inverted (in1, out1);
  delivered = ks_camera_get_frames_delivered (camera);
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= delivered + 3);
  out2 = settled_output (pipeline, &in2);
  assert_inverted (in2, out2);
  g_assert_false (ks_image_equal (in1, in2));
  g_assert_false (ks_image_equal (out1, out2));

  /* Both rates are measured: frames arrive, and frames get through. */
  WAIT_FOR (ks_camera_get_camera_fps (camera) > 0 && ks_camera_get_delivered_fps (camera) > 0);
  g_assert_cmpfloat (ks_camera_get_camera_fps (camera), >, 0);
  g_assert_cmpfloat (ks_camera_get_delivered_fps (camera), >, 0);
  g_test_message ("camera %.1f fps, delivered %.1f fps, %" G_GUINT64_FORMAT " dropped",
                  ks_camera_get_camera_fps (camera), ks_camera_get_delivered_fps (camera),
                  ks_camera_get_frames_dropped (camera));
  stop_and_finalize (camera);
}

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean started;
  gboolean released;
  gboolean done;
} Blocker;

/* Work that holds the pipeline's worker until the test lets it go: an op
 * far slower than the camera. */
static void
block_thread (GTask *task, gpointer source_object, gpointer task_data,
              GCancellable *cancellable)
{
  Blocker *b = task_data;

  g_mutex_lock (&b->lock);
  b->started = TRUE;
  while (!b->released)
    g_cond_wait (&b->cond, &b->lock);
  g_mutex_unlock (&b->lock);
  g_task_return_boolean (task, TRUE);
}

static void
on_blocker_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Blocker *b = user_data;

  b->done = TRUE;
}

static gboolean
blocker_started (Blocker *b)
{
  gboolean started;

  g_mutex_lock (&b->lock);
  started = b->started;
  g_mutex_unlock (&b->lock);
  return started;
}

static void
on_inputs_changed_count_cb (KsPipeline *pipeline, gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* While the worker is busy the camera keeps sending; those frames are
 * dropped, not queued: once the worker is free the screen shows the newest
 * frame at once instead of replaying the backlog. */
static void
test_drops_when_busy (void)
{
  g_autoptr (KsPipeline) pipeline = cpu_pipeline ();
  KsCamera *camera = ks_camera_new (pipeline, TEST_SOURCE, 320, 240);
  g_autoptr (GError) error = NULL;
  g_autoptr (GTask) task = NULL;
  Blocker b = { 0 };
  guint64 delivered, dropped, arrived;
  guint uploads = 0;
  gulong handler;

  g_mutex_init (&b.lock);
  g_cond_init (&b.cond);
  g_assert_true (start (camera, &error));
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= 3);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), >=, 3);

  task = g_task_new (NULL, NULL, on_blocker_done_cb, &b);
  g_task_set_task_data (task, &b, NULL);
  ks_runner_queue (ks_pipeline_get_runner (pipeline), task, block_thread);
  WAIT_FOR (blocker_started (&b));
  g_assert_true (blocker_started (&b));
  /* A frame that was already uploading when the worker got stuck lands before. */
  ks_ui_test_iterate_for (100);
  delivered = ks_camera_get_frames_delivered (camera);
  dropped = ks_camera_get_frames_dropped (camera);

  ks_ui_test_iterate_for (1500);
  arrived = ks_camera_get_frames_arrived (camera);
  g_test_message ("while blocked: %" G_GUINT64_FORMAT " dropped",
                  ks_camera_get_frames_dropped (camera) - dropped);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), ==, delivered);
  g_assert_cmpuint (ks_camera_get_frames_dropped (camera), >=, dropped + 5);
  /* Every frame that arrived was delivered or dropped, but one on its way. */
  g_assert_cmpuint (arrived - ks_camera_get_frames_delivered (camera)
                      - ks_camera_get_frames_dropped (camera), <=, 1);

  handler = g_signal_connect (pipeline, "inputs-changed", G_CALLBACK (on_inputs_changed_count_cb),
                              &uploads);
  g_mutex_lock (&b.lock);
  b.released = TRUE;
  g_cond_signal (&b.cond);
  g_mutex_unlock (&b.lock);
  WAIT_FOR (b.done && ks_pipeline_is_idle (pipeline));
  g_assert_true (b.done && ks_pipeline_is_idle (pipeline));
  g_signal_handler_disconnect (pipeline, handler);
  g_assert_cmpuint (uploads, <=, 1);

  /* And frames flow again. */
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= delivered + 3);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), >=, delivered + 3);
  stop_and_finalize (camera);
  g_mutex_clear (&b.lock);
  g_cond_clear (&b.cond);
}

/* Stopped, the source is in the NULL state (a camera's device is closed)
 * and nothing more reaches the pipeline. */
static void
test_stop_releases (void)
{
  g_autoptr (KsPipeline) pipeline = cpu_pipeline ();
  KsCamera *camera = ks_camera_new (pipeline, TEST_SOURCE, 320, 240);
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) element = NULL;
  GstState state = GST_STATE_VOID_PENDING;
  KsImage *input;
  guint64 arrived, delivered;

  g_assert_true (start (camera, &error));
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= 3);
  element = gst_object_ref (ks_camera_get_element (camera));
  g_assert_cmpint (gst_element_get_state (element, &state, NULL, 0), !=,
                   GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (state, ==, GST_STATE_PLAYING);

  ks_camera_stop (camera);
  g_assert_false (ks_camera_get_running (camera));
  WAIT_FOR (ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  gst_element_get_state (element, &state, NULL, 0);
  g_assert_cmpint (state, ==, GST_STATE_NULL);
  g_assert_cmpfloat (ks_camera_get_camera_fps (camera), ==, 0);

  /* An upload under way when it stopped may still land; after it, nothing. */
  WAIT_FOR (ks_pipeline_is_idle (pipeline));
  input = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  arrived = ks_camera_get_frames_arrived (camera);
  delivered = ks_camera_get_frames_delivered (camera);
  ks_ui_test_iterate_for (500);
  g_assert_true (ks_pipeline_get_input (pipeline, KS_INPUT_A) == input);
  g_assert_cmpuint (ks_camera_get_frames_arrived (camera), ==, arrived);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), ==, delivered);
  stop_and_finalize (camera);
}

/* A description GStreamer cannot build, and a source that fails as it
 * starts, each say why; the image stays, and a good source works after. */
static void
test_bad_source (void)
{
  g_autoptr (KsPipeline) pipeline = cpu_pipeline ();
  KsImage *before = ks_pipeline_get_input (pipeline, KS_INPUT_A);
  KsCamera *camera = ks_camera_new (pipeline, "kernelscope-no-such-element", 0, 0);
  g_autoptr (GError) error = NULL;

  g_assert_false (start (camera, &error));
  g_assert_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_SOURCE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "kernelscope-no-such-element"));
  g_assert_cmpstr (ks_camera_get_error (camera), ==, error->message);
  g_assert_false (ks_camera_get_running (camera));
  stop_and_finalize (camera);
  g_clear_error (&error);

  camera = ks_camera_new (pipeline, "filesrc location=/nonexistent/kernelscope-camera", 0, 0);
  g_assert_false (start (camera, &error));
  g_assert_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED);
  g_test_message ("%s", error->message);
  /* GStreamer's words, and the cause from its debug text. */
  g_assert_true (g_str_has_prefix (error->message, "Could not start the camera: "));
  g_assert_nonnull (strstr (error->message, "/nonexistent/kernelscope-camera"));
  stop_and_finalize (camera);

  ks_ui_test_iterate_for (200);
  g_assert_true (ks_pipeline_get_input (pipeline, KS_INPUT_A) == before);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==, "card");

  camera = ks_camera_new (pipeline, TEST_SOURCE, 320, 240);
  g_clear_error (&error);
  g_assert_true (start (camera, &error));
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= 2);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), >=, 2);
  stop_and_finalize (camera);
}

static void
on_camera_error_cb (KsCamera *camera, GError *error, gpointer user_data)
{
  GError **out = user_data;

  g_clear_error (out);
  *out = g_error_copy (error);
}

/* A device that fails while running (busy, unplugged) posts an error on
 * the bus: the camera says why and stops cleanly; the last frame stays. */
static void
test_error_while_running (void)
{
  g_autoptr (KsPipeline) pipeline = cpu_pipeline ();
  KsCamera *camera = ks_camera_new (pipeline, TEST_SOURCE, 320, 240);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) reported = NULL;
  g_autoptr (GError) cause = g_error_new_literal (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
                                                  "Device '/dev/video0' is busy");
  g_autoptr (GstElement) element = NULL;
  GstState state = GST_STATE_VOID_PENDING;

  g_signal_connect (camera, "error", G_CALLBACK (on_camera_error_cb), &reported);
  g_assert_true (start (camera, &error));
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= 2);
  WAIT_FOR (ks_pipeline_is_idle (pipeline));
  element = gst_object_ref (ks_camera_get_element (camera));
  /* As v4l2src words it: a generic message, the cause on the debug's last line. */
  gst_element_post_message (element, gst_message_new_error (
                                       GST_OBJECT (element), cause,
                                       "v4l2src.c(42): start (): /GstPipeline:ks-camera:\n"
                                       "Another program has the device open"));
  WAIT_FOR (reported != NULL && ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_nonnull (reported);
  g_assert_cmpstr (reported->message, ==,
                   "The camera stopped: Device '/dev/video0' is busy "
                   "(Another program has the device open)");
  g_assert_cmpstr (ks_camera_get_error (camera), ==, reported->message);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  gst_element_get_state (element, &state, NULL, 0);
  g_assert_cmpint (state, ==, GST_STATE_NULL);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==,
                   ks_camera_get_name (camera));
  g_assert_nonnull (ks_pipeline_get_result (pipeline));
  stop_and_finalize (camera);
}

/* A source whose stream ends stops the camera with a sentence saying so. */
static void
test_stream_end_stops (void)
{
  g_autoptr (KsPipeline) pipeline = cpu_pipeline ();
  KsCamera *camera = ks_camera_new (pipeline, "videotestsrc is-live=true num-buffers=10", 64, 48);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) reported = NULL;

  g_signal_connect (camera, "error", G_CALLBACK (on_camera_error_cb), &reported);
  g_assert_true (start (camera, &error));
  WAIT_FOR (ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  g_assert_nonnull (reported);
  g_assert_cmpstr (reported->message, ==, "The camera stopped: its video stream ended");
  g_assert_cmpuint (ks_camera_get_frames_arrived (camera), ==, 10);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), >=, 1);
  stop_and_finalize (camera);
}

/* ---- in the window ------------------------------------------------------------------- */

static char *
camera_menu_label (KsWindow *window)
{
  GMenuModel *section = G_MENU_MODEL (
    gtk_widget_get_template_child (GTK_WIDGET (window), KS_TYPE_WINDOW, "camera_section"));
  char *label = NULL;

  g_assert_nonnull (section);
  g_assert_cmpint (g_menu_model_get_n_items (section), ==, 1);
  g_assert_true (g_menu_model_get_item_attribute (section, 0, G_MENU_ATTRIBUTE_LABEL, "s",
                                                  &label));
  return label;
}

static gboolean
menu_says (KsWindow *window, const char *text)
{
  g_autofree char *label = camera_menu_label (window);

  return g_strcmp0 (label, text) == 0;
}

static const char *
header_title (KsWindow *window)
{
  return adw_window_title_get_title (ADW_WINDOW_TITLE (
    gtk_widget_get_template_child (GTK_WIDGET (window), KS_TYPE_WINDOW, "window_title")));
}

static KsCamera *
open_test_camera (KsWindow *window)
{
  KsCamera *camera;

  if (!gtk_widget_activate_action (GTK_WIDGET (window), "win.open-camera", "s", TEST_SOURCE))
    g_error ("The window has no win.open-camera: its class_init must call "
             "_ks_window_class_init_camera");
  camera = _ks_window_get_camera (window);
  g_assert_nonnull (camera);
  WAIT_FOR (ks_camera_get_frames_delivered (camera) >= 3);
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), >=, 3);
  return g_object_ref (camera);
}

/* The header bar gives the camera's rates; opening an image stops the
 * camera, the image stays on screen and the title is the window's again. */
static void
test_window_image_stops_camera (void)
{
  KsWindow *window = ks_ui_test_open_window ();
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  const char *title = header_title (window);
  g_autofree char *original = g_strdup (title);
  g_autoptr (KsCamera) camera = open_test_camera (window);
  g_autofree char *running_label = camera_menu_label (window);
  g_autofree char *stopped_label = NULL;
  guint64 delivered;

  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==,
                   ks_camera_get_name (camera));
  g_assert_cmpstr (running_label, ==, "Stop _Camera");
  WAIT_FOR (strstr (header_title (window), "fps") != NULL);
  g_test_message ("title: %s", header_title (window));
  g_assert_true (g_str_has_prefix (header_title (window), "Camera "));
  g_assert_nonnull (strstr (header_title (window), "dropped"));
  /* Measured, not a placeholder: by the first measurement frames have arrived. */
  g_assert_false (g_str_has_prefix (header_title (window), "Camera 0.0 fps"));

  ks_window_open_sample (window);
  WAIT_FOR (ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  WAIT_FOR (ks_pipeline_is_idle (pipeline));
  delivered = ks_camera_get_frames_delivered (camera);
  ks_ui_test_iterate_for (500);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==, "astronaut.png");
  g_assert_cmpuint (ks_camera_get_frames_delivered (camera), ==, delivered);
  g_assert_cmpstr (header_title (window), ==, original);
  stopped_label = camera_menu_label (window);
  g_assert_cmpstr (stopped_label, !=, "Stop _Camera");

  ks_ui_test_close_window (window);
}

/* Closing the window releases the camera. */
static void
test_window_close_stops_camera (void)
{
  KsWindow *window = ks_ui_test_open_window ();
  g_autoptr (KsCamera) camera = open_test_camera (window);
  g_autoptr (GstElement) element = gst_object_ref (ks_camera_get_element (camera));
  GstState state = GST_STATE_VOID_PENDING;

  gtk_window_destroy (GTK_WINDOW (window));
  WAIT_FOR (ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  gst_element_get_state (element, &state, NULL, 0);
  g_assert_cmpint (state, ==, GST_STATE_NULL);
}

/* Stop Camera stops it; the window keeps the last frame. */
static void
test_window_stop_action (void)
{
  KsWindow *window = ks_ui_test_open_window ();
  g_autoptr (KsCamera) camera = open_test_camera (window);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop-camera", NULL));
  WAIT_FOR (ks_camera_get_state (camera) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (camera), ==, KS_CAMERA_STOPPED);
  g_assert_cmpstr (ks_pipeline_get_input_name (ks_window_get_pipeline (window), KS_INPUT_A), ==,
                   ks_camera_get_name (camera));
  ks_ui_test_close_window (window);
}

/* Where no camera is connected, the menu item says so and opening it says
 * what was looked for. */
static void
test_window_no_camera (void)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) cameras = NULL;
  KsWindow *window;
  g_autofree char *label = NULL;
  g_autofree char *input = NULL;

  ks_camera_probe_async (NULL, ks_ui_test_on_done_cb, &result);
  WAIT_FOR (result != NULL);
  cameras = ks_camera_probe_finish (result, &error);
  g_assert_no_error (error);
  if (cameras[0] != NULL)
    {
      g_test_skip_printf ("a camera is connected here (%s)", cameras[0]);
      return;
    }

  window = ks_ui_test_open_window ();
  input = g_strdup (ks_pipeline_get_input_name (ks_window_get_pipeline (window), KS_INPUT_A));
  /* The window probes for cameras off the main thread as it opens. */
  WAIT_FOR (menu_says (window, "No Camera Found"));
  label = camera_menu_label (window);
  g_assert_cmpstr (label, ==, "No Camera Found");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-camera", "s", ""));
  WAIT_FOR (g_str_has_prefix (ks_window_get_last_message (window) != NULL
                              ? ks_window_get_last_message (window) : "",
                              "No camera found: "));
  g_test_message ("toast: %s", ks_window_get_last_message (window));
  g_assert_true (g_str_has_prefix (ks_window_get_last_message (window), "No camera found: "));
  /* Nothing else changed: the window goes on with what it showed. */
  WAIT_FOR (ks_camera_get_state (_ks_window_get_camera (window)) == KS_CAMERA_STOPPED);
  g_assert_cmpint (ks_camera_get_state (_ks_window_get_camera (window)), ==, KS_CAMERA_STOPPED);
  g_assert_cmpstr (ks_pipeline_get_input_name (ks_window_get_pipeline (window), KS_INPUT_A), ==,
                   input);
  ks_ui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  if (!ks_ui_test_require_display (KS_UI_TEST_ADWAITA))
    return 0;

  g_test_add_func ("/ks/ui/camera/frames-reach-pipeline", test_frames_reach_pipeline);
  g_test_add_func ("/ks/ui/camera/drops-when-busy", test_drops_when_busy);
  g_test_add_func ("/ks/ui/camera/stop-releases", test_stop_releases);
  g_test_add_func ("/ks/ui/camera/bad-source", test_bad_source);
  g_test_add_func ("/ks/ui/camera/error-while-running", test_error_while_running);
  g_test_add_func ("/ks/ui/camera/stream-end-stops", test_stream_end_stops);
  g_test_add_func ("/ks/ui/camera/window/image-stops-camera", test_window_image_stops_camera);
  g_test_add_func ("/ks/ui/camera/window/close-stops-camera", test_window_close_stops_camera);
  g_test_add_func ("/ks/ui/camera/window/stop-action", test_window_stop_action);
  g_test_add_func ("/ks/ui/camera/window/no-camera", test_window_no_camera);
  return g_test_run ();
}
