/* ks-camera.c: a GStreamer video source feeding the pipeline, one frame at
 * a time. Three kinds of thread meet here: GStreamer's streaming threads
 * (the appsink callback), short-lived GTask threads that open and release
 * the source, and the main loop, which alone touches the KsCamera's
 * properties and the KsPipeline.
 *
 * One piece because those threads share one Session, whose fields are
 * grouped by the thread that may write them, and one state_lock that makes
 * a start wait for every earlier release: which thread touches what is read
 * off that struct in this file, and a change to one thread's part (a frame
 * in flight, a counter, the release) changes what the others may assume. */
#include "config.h"

#include <glib/gi18n.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <string.h>

#include "ks-camera.h"

/* How often the rates are sampled: often enough to follow a camera that
 * changes its rate in low light, seldom enough that the numbers can be read. */
#define STATS_INTERVAL_MS 500

G_DEFINE_QUARK (ks-camera-error-quark, ks_camera_error)

GType
ks_camera_state_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    { KS_CAMERA_STOPPED, "KS_CAMERA_STOPPED", "stopped" },
    { KS_CAMERA_STARTING, "KS_CAMERA_STARTING", "starting" },
    { KS_CAMERA_RUNNING, "KS_CAMERA_RUNNING", "running" },
    { KS_CAMERA_STOPPING, "KS_CAMERA_STOPPING", "stopping" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("KsCameraState", values));
  return type;
}

/* One start of the source, from ks_camera_start_async to its release. The
 * streaming thread holds a reference through the appsink's callbacks, so it
 * never needs the KsCamera, which may go away on the main thread meanwhile. */
typedef struct
{
  gatomicrefcount ref;

  /* Written before the start thread runs, read-only afterwards. */
  char *description;            /* NULL: find a camera */
  guint width, height;
  GMainContext *context;        /* the main loop frames are handed to */

  /* Written by the start thread; read on the main loop once it returned, and
   * by the release thread under KsCamera.state_lock. */
  GstElement *element;          /* the GstPipeline */
  char *source_name;            /* the camera's or the source element's */

  /* Shared with the streaming thread. */
  GMutex lock;
  gboolean in_flight;           /* a frame is on its way to the pipeline */
  guint64 arrived;
  guint64 dropped;
  int stopping;                 /* atomic: the start thread must not start it */

  /* Main loop only. */
  KsCamera *camera;             /* borrowed; NULL once it is not the camera's current run */
  GCancellable *cancellable;    /* uploads not started yet when it stops */
  guint64 delivered;
  guint bus_watch;
} Session;

static Session *
session_ref (Session *s)
{
  g_atomic_ref_count_inc (&s->ref);
  return s;
}

static void
session_unref (gpointer data)
{
  Session *s = data;

  if (!g_atomic_ref_count_dec (&s->ref))
    return;
  /* Never still playing: every path that started it set it to NULL. */
  g_clear_object (&s->element);
  g_clear_object (&s->cancellable);
  g_main_context_unref (s->context);
  g_mutex_clear (&s->lock);
  g_free (s->description);
  g_free (s->source_name);
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Session, session_unref)

struct _KsCamera
{
  GObject parent_instance;

  /* owned references */
  KsPipeline *pipeline;
  char *description;
  Session *session;             /* the current run: starting or running */
  Session *last;                /* the last run that ended, for its counters and element */
  KsImage *last_frame;          /* what the camera last made input A */
  KsImage *replaced;            /* input A when it started: what its first frame replaces */
  char *name;
  char *error;

  guint width, height;
  KsCameraState state;
  double camera_fps, delivered_fps;
  guint64 last_arrived, last_delivered;
  gint64 last_sample_us;
  guint stats_source;

  /* Serialises opening and releasing the device across threads: a new run
   * waits until every earlier one has released it (a camera is busy while
   * another handle is open). */
  GMutex state_lock;
  GCond released_cond;
  guint releasing;
};

G_DEFINE_FINAL_TYPE (KsCamera, ks_camera, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_PIPELINE,
  PROP_SOURCE,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_STATE,
  PROP_NAME,
  PROP_CAMERA_FPS,
  PROP_DELIVERED_FPS,
  PROP_FRAMES_ARRIVED,
  PROP_FRAMES_DELIVERED,
  PROP_FRAMES_DROPPED,
  PROP_ERROR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_ERROR,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- finding a camera (any thread but the main one) ------------------------------ */

/* PipeWire first: it shares the camera with other programs and applies the
 * desktop's permissions; v4l2src opens the device for itself alone. */
static int
factory_rank (GstElement *element)
{
  GstElementFactory *factory = gst_element_get_factory (element);
  const char *name = factory != NULL ? gst_plugin_feature_get_name (factory) : "";

  if (g_str_equal (name, "pipewiresrc"))
    return 0;
  if (g_str_equal (name, "v4l2src"))
    return 1;
  return 2;
}

#define N_RANKS 3

/* The cameras, best first; of one kind, in the monitor's order. */
static GPtrArray *
list_cameras (void)
{
  g_autoptr (GstDeviceMonitor) monitor = gst_device_monitor_new ();
  GPtrArray *by_rank[N_RANKS];
  GPtrArray *cameras = g_ptr_array_new_with_free_func (gst_object_unref);
  GList *devices;

  for (guint r = 0; r < N_RANKS; r++)
    by_rank[r] = g_ptr_array_new_with_free_func (gst_object_unref);
  gst_device_monitor_add_filter (monitor, "Video/Source", NULL);
  /* Without gst_device_monitor_start this probes each provider once. */
  devices = gst_device_monitor_get_devices (monitor);
  for (GList *l = devices; l != NULL; l = l->next)
    {
      g_autoptr (GstElement) element = gst_device_create_element (l->data, NULL);

      if (element != NULL)
        g_ptr_array_add (by_rank[factory_rank (gst_object_ref_sink (element))],
                         gst_object_ref (l->data));
    }
  g_list_free_full (devices, gst_object_unref);
  for (guint r = 0; r < N_RANKS; r++)
    g_ptr_array_extend_and_steal (cameras, by_rank[r]);
  return cameras;
}

static void
set_not_found (GError **error)
{
  g_set_error_literal (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_NOT_FOUND,
                       _("No camera found: neither PipeWire nor Video4Linux offers a video "
                         "source. Connect a camera, check that Kernelscope may use it, and try "
                         "again."));
}

static gboolean
init_gstreamer (GError **error)
{
  g_autoptr (GError) local = NULL;

  if (gst_init_check (NULL, NULL, &local))
    return TRUE;
  g_set_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED,
               _("GStreamer, which Kernelscope uses for cameras, could not start: %s"),
               local->message);
  return FALSE;
}

static GstElement *
find_camera (char **name, GError **error)
{
  g_autoptr (GPtrArray) cameras = list_cameras ();

  if (cameras->len == 0)
    {
      set_not_found (error);
      return NULL;
    }
  *name = gst_device_get_display_name (g_ptr_array_index (cameras, 0));
  return gst_device_create_element (g_ptr_array_index (cameras, 0), NULL);
}

static void
probe_thread (GTask *task, gpointer source_object, gpointer task_data,
              GCancellable *cancellable)
{
  g_autoptr (GPtrArray) cameras = NULL;
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  GError *error = NULL;

  if (!init_gstreamer (&error))
    {
      g_task_return_error (task, error);
      return;
    }
  cameras = list_cameras ();
  for (guint i = 0; i < cameras->len; i++)
    {
      g_autofree char *name = gst_device_get_display_name (g_ptr_array_index (cameras, i));

      g_strv_builder_add (names, name);
    }
  g_task_return_pointer (task, g_strv_builder_end (names), (GDestroyNotify) g_strfreev);
}

void
ks_camera_probe_async (GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, ks_camera_probe_async);
  g_task_run_in_thread (task, probe_thread);
}

GStrv
ks_camera_probe_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- the streaming thread ---------------------------------------------------------- */

typedef struct
{
  Session *session;
  KsImage *image;
} Frame;

static Frame *
frame_new (Session *s, KsImage *image)
{
  Frame *frame = g_new0 (Frame, 1);

  frame->session = session_ref (s);
  frame->image = image;
  return frame;
}

static void
frame_free (gpointer data)
{
  Frame *frame = data;

  session_unref (frame->session);
  g_clear_pointer (&frame->image, ks_image_unref);
  g_free (frame);
}

static KsImage *
image_from_sample (GstSample *sample)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  KsImage *image;
  const guint8 *pixels;
  gsize row_bytes;
  int stride;

  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_RGBA
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample), GST_MAP_READ))
    return NULL;
  image = ks_image_new (KS_FORMAT_RGBA8, GST_VIDEO_FRAME_WIDTH (&frame),
                        GST_VIDEO_FRAME_HEIGHT (&frame), NULL);
  if (image != NULL)
    {
      /* Both sides have strides of their own (GStreamer pads rows to 4
       * bytes and more): copy row by row. */
      pixels = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
      stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
      row_bytes = (gsize) image->width * 4;
      for (guint y = 0; y < image->height; y++)
        memcpy (ks_image_row (image, y), pixels + (gsize) y * stride, row_bytes);
    }
  gst_video_frame_unmap (&frame);
  return image;
}

static gboolean deliver_frame_cb (gpointer user_data);

static GstFlowReturn
on_new_sample_cb (GstAppSink *sink, gpointer user_data)
{
  Session *s = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  gboolean take;
  Frame *frame;
  GSource *idle;

  if (sample == NULL)
    return GST_FLOW_OK;
  g_mutex_lock (&s->lock);
  s->arrived++;
  take = !s->in_flight;
  if (take)
    s->in_flight = TRUE;
  else
    s->dropped++;
  g_mutex_unlock (&s->lock);
  if (!take)
    {
      gst_sample_unref (sample);
      return GST_FLOW_OK;
    }

  /* Copied here, not on the main loop: a 4K frame is 33 MB. */
  frame = frame_new (s, image_from_sample (sample));
  gst_sample_unref (sample);
  /* Only an idle source on the main loop's context: nothing of GTK, the
   * KsCamera or the KsPipeline is touched from this thread. */
  idle = g_idle_source_new ();
  /* Below input, layout and drawing: a camera never makes the window lag. */
  g_source_set_priority (idle, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (idle, deliver_frame_cb, frame, frame_free);
  g_source_set_static_name (idle, "[kernelscope] camera frame");
  g_source_attach (idle, s->context);
  g_source_unref (idle);
  return GST_FLOW_OK;
}

/* ---- starting and releasing (worker threads) ------------------------------------------- */

/* The name of the element that makes the frames, for the input's name. */
static char *
source_element_name (GstElement *pipeline)
{
  GstIterator *it = gst_bin_iterate_sources (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  char *name = NULL;

  if (gst_iterator_next (it, &item) == GST_ITERATOR_OK)
    {
      GstElementFactory *factory = gst_element_get_factory (g_value_get_object (&item));

      if (factory != NULL)
        name = g_strdup (gst_plugin_feature_get_name (factory));
      g_value_unset (&item);
    }
  gst_iterator_free (it);
  return name;
}

/* What follows the source, whatever it is. */
#define CONVERSION \
  "videoconvert name=ks-convert ! videoscale ! capsfilter name=ks-caps ! appsink name=ks-sink"

/* The source and the conversion as one pipeline: an explicit description is
 * parsed with them, so that it may end in caps ("v4l2src ! video/x-raw,…"). */
static GstElement *
parse_pipeline (Session *s, GError **error)
{
  g_autoptr (GError) parse_error = NULL;
  g_autofree char *description = NULL;
  g_autoptr (GstElement) pipeline = NULL;
  g_autoptr (GstElement) convert = NULL;
  GstElement *camera;

  if (s->description != NULL)
    {
      description = g_strdup_printf ("%s ! " CONVERSION, s->description);
      pipeline = gst_parse_launch_full (description, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
                                        &parse_error);
      if (pipeline == NULL || !GST_IS_PIPELINE (pipeline))
        {
          g_set_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_SOURCE,
                       _("“%s” is not a video source GStreamer can build: %s"), s->description,
                       parse_error != NULL ? parse_error->message : _("unknown error"));
          return NULL;
        }
      gst_object_ref_sink (pipeline);
      s->source_name = source_element_name (pipeline);
      if (s->source_name == NULL)
        s->source_name = g_strdup (s->description);
      return g_steal_pointer (&pipeline);
    }

  camera = find_camera (&s->source_name, error);
  if (camera == NULL)
    return NULL;
  pipeline = gst_parse_launch_full (CONVERSION, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &parse_error);
  if (pipeline == NULL)
    {
      gst_object_unref (gst_object_ref_sink (camera));
      g_set_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED,
                   _("GStreamer’s base plugins (videoconvert, videoscale, appsink) are not "
                     "installed: install gstreamer1.0-plugins-base (%s)"),
                   parse_error->message);
      return NULL;
    }
  gst_object_ref_sink (pipeline);
  gst_bin_add (GST_BIN (pipeline), camera);
  convert = gst_bin_get_by_name (GST_BIN (pipeline), "ks-convert");
  if (!gst_element_link (camera, convert))
    {
      g_set_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED,
                   _("The camera “%s” gives no video that can be converted to RGBA"),
                   s->source_name);
      return NULL;
    }
  return g_steal_pointer (&pipeline);
}

static GstElement *
build_pipeline (Session *s, GError **error)
{
  g_autoptr (GstElement) pipeline = parse_pipeline (s, error);
  g_autoptr (GstElement) filter = NULL;
  g_autoptr (GstElement) sink = NULL;
  g_autoptr (GstCaps) caps = NULL;
  GstAppSinkCallbacks callbacks = { NULL };

  if (pipeline == NULL)
    return NULL;
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "ks-caps");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "ks-sink");
  g_assert (filter != NULL && sink != NULL);
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGBA", NULL);
  if (s->width > 0 && s->height > 0)
    /* Square pixels: the op and the view treat every pixel as square. */
    gst_caps_set_simple (caps, "width", G_TYPE_INT, (int) s->width, "height", G_TYPE_INT,
                         (int) s->height, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
  g_object_set (filter, "caps", caps, NULL);
  /* One buffer, the newest: a slow op skips frames instead of lagging. No
   * sync: frames are shown when they arrive, not when the clock says. */
  g_object_set (sink, "max-buffers", 1u, "drop", TRUE, "sync", FALSE, "emit-signals", FALSE,
                NULL);
  callbacks.new_sample = on_new_sample_cb;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &callbacks, session_ref (s), session_unref);
  return g_steal_pointer (&pipeline);
}

/* GStreamer's message is generic ("Resource not found."); the last line of
 * its debug text names the cause ("No such file …"), and is worth adding. */
static char *
describe_error (const GError *cause, const char *debug)
{
  const char *detail = debug != NULL ? strrchr (debug, '\n') : NULL;
  g_autofree char *message = g_strdup (cause->message);
  gsize len = strlen (message);

  if (detail == NULL || detail[1] == '\0')
    return g_steal_pointer (&message);
  if (len > 0 && message[len - 1] == '.')
    message[len - 1] = '\0';
  return g_strdup_printf ("%s (%s)", message, detail + 1);
}

/* The first error the source posted, as a sentence; or a fallback. */
static void
set_error_from_bus (GstElement *pipeline, const char *prefix, GError **error)
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  g_autoptr (GstMessage) message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_autoptr (GError) cause = NULL;
  g_autofree char *debug = NULL;
  g_autofree char *reason = NULL;

  if (message == NULL)
    {
      g_set_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED, "%s: %s", prefix,
                   _("the video source refused to start"));
      return;
    }
  gst_message_parse_error (message, &cause, &debug);
  g_debug ("camera: %s (%s)", cause->message, debug != NULL ? debug : "");
  reason = describe_error (cause, debug);
  g_set_error (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED, "%s: %s", prefix, reason);
}

static void
start_thread (GTask *task, gpointer source_object, gpointer task_data,
              GCancellable *cancellable)
{
  KsCamera *self = source_object;
  Session *s = task_data;
  g_autoptr (GstElement) pipeline = NULL;
  GError *error = NULL;
  GstStateChangeReturn ret;

  if (!init_gstreamer (&error))
    {
      g_task_return_error (task, error);
      return;
    }
  pipeline = build_pipeline (s, &error);
  if (pipeline == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  g_mutex_lock (&self->state_lock);
  while (self->releasing > 0)
    g_cond_wait (&self->released_cond, &self->state_lock);
  if (g_atomic_int_get (&s->stopping))
    {
      g_mutex_unlock (&self->state_lock);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The camera was stopped before it started"));
      return;
    }
  s->element = gst_object_ref (pipeline);
  /* A live source goes to PLAYING without prerolling; a device that is busy
   * or gone fails here, with the reason on the bus. */
  ret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  if (ret == GST_STATE_CHANGE_FAILURE)
    {
      set_error_from_bus (pipeline, _("Could not start the camera"), &error);
      gst_element_set_state (pipeline, GST_STATE_NULL);
    }
  g_mutex_unlock (&self->state_lock);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
release_thread (GTask *task, gpointer source_object, gpointer task_data,
                GCancellable *cancellable)
{
  KsCamera *self = source_object;
  Session *s = task_data;

  g_mutex_lock (&self->state_lock);
  /* Joins the streaming thread: after this no callback of this run comes. */
  if (s->element != NULL)
    gst_element_set_state (s->element, GST_STATE_NULL);
  self->releasing--;
  g_cond_broadcast (&self->released_cond);
  g_mutex_unlock (&self->state_lock);
  g_task_return_boolean (task, TRUE);
}

/* ---- the main loop ------------------------------------------------------------------ */

static void
set_state (KsCamera *self, KsCameraState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* GLib 2.74 has no g_set_str yet. */
static gboolean
set_string (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static void
set_error (KsCamera *self, const char *message)
{
  if (set_string (&self->error, message))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
set_rate (KsCamera *self, double *field, double value, guint prop)
{
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static Session *
counted_session (KsCamera *self)
{
  return self->session != NULL ? self->session : self->last;
}

/* One of the counters that the streaming thread updates under the session's lock. */
static guint64
locked_count (Session *s, const guint64 *counter)
{
  guint64 n;

  g_mutex_lock (&s->lock);
  n = *counter;
  g_mutex_unlock (&s->lock);
  return n;
}

static void
sample_stats (KsCamera *self)
{
  Session *s = self->session;
  gint64 now = g_get_monotonic_time ();
  double seconds = (now - self->last_sample_us) / 1e6;
  guint64 arrived = locked_count (s, &s->arrived);

  if (seconds > 0)
    {
      set_rate (self, &self->camera_fps, (arrived - self->last_arrived) / seconds,
                PROP_CAMERA_FPS);
      set_rate (self, &self->delivered_fps, (s->delivered - self->last_delivered) / seconds,
                PROP_DELIVERED_FPS);
    }
  self->last_arrived = arrived;
  self->last_delivered = s->delivered;
  self->last_sample_us = now;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAMES_ARRIVED]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAMES_DELIVERED]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAMES_DROPPED]);
}

static gboolean
on_stats_tick_cb (gpointer user_data)
{
  sample_stats (user_data);
  return G_SOURCE_CONTINUE;
}

static void
on_released_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  KsCamera *self = KS_CAMERA (object);

  /* A newer run may be starting already; it owns the state then. */
  if (self->session == NULL)
    set_state (self, KS_CAMERA_STOPPED);
}

/* The run stops being the camera's: no frame of it reaches the pipeline any
 * more, and the device is released on another thread. */
static void
end_session (KsCamera *self)
{
  g_autoptr (Session) s = g_steal_pointer (&self->session);
  g_autoptr (GTask) task = NULL;

  if (s == NULL)
    return;
  g_clear_handle_id (&s->bus_watch, g_source_remove);
  g_clear_handle_id (&self->stats_source, g_source_remove);
  g_cancellable_cancel (s->cancellable);
  g_atomic_int_set (&s->stopping, TRUE);
  s->camera = NULL;
  set_rate (self, &self->camera_fps, 0, PROP_CAMERA_FPS);
  set_rate (self, &self->delivered_fps, 0, PROP_DELIVERED_FPS);
  g_clear_pointer (&self->last, session_unref);
  self->last = session_ref (s);
  g_clear_pointer (&self->last_frame, ks_image_unref);
  g_clear_pointer (&self->replaced, ks_image_unref);

  g_mutex_lock (&self->state_lock);
  self->releasing++;
  g_mutex_unlock (&self->state_lock);
  set_state (self, KS_CAMERA_STOPPING);
  task = g_task_new (self, NULL, on_released_cb, NULL);
  g_task_set_source_tag (task, end_session);
  g_task_set_task_data (task, session_ref (s), session_unref);
  g_task_run_in_thread (task, release_thread);
}

/* The running source failed or ended: the camera stops and says why. */
static void
fail (KsCamera *self, GError *error)
{
  set_error (self, error->message);
  end_session (self);
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, error);
}

static gboolean
on_bus_message_cb (GstBus *bus, GstMessage *message, gpointer user_data)
{
  Session *s = user_data;
  KsCamera *self = s->camera;
  g_autoptr (GError) cause = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *debug = NULL;
  g_autofree char *reason = NULL;

  if (self == NULL)
    return G_SOURCE_REMOVE;
  switch (GST_MESSAGE_TYPE (message))
    {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (message, &cause, &debug);
      g_debug ("camera: %s (%s)", cause->message, debug != NULL ? debug : "");
      reason = describe_error (cause, debug);
      error = g_error_new (KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED, _("The camera stopped: %s"),
                           reason);
      break;
    case GST_MESSAGE_EOS:
      error = g_error_new_literal (KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED,
                                   _("The camera stopped: its video stream ended"));
      break;
    default:
      return G_SOURCE_CONTINUE;
    }
  /* end_session removes this watch: its id must not be removed twice. */
  s->bus_watch = 0;
  fail (self, error);
  return G_SOURCE_REMOVE;
}

static void
frame_done (Session *s, gboolean dropped)
{
  g_mutex_lock (&s->lock);
  s->in_flight = FALSE;
  if (dropped)
    s->dropped++;
  g_mutex_unlock (&s->lock);
}

static void
on_frame_uploaded_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Frame *frame = user_data;
  Session *s = frame->session;
  KsCamera *self = s->camera;
  g_autoptr (GError) error = NULL;
  gboolean ok = ks_pipeline_set_input_finish (KS_PIPELINE (object), result, &error);

  frame_done (s, !ok);
  if (ok)
    {
      s->delivered++;
      if (self != NULL)
        {
          g_clear_pointer (&self->last_frame, ks_image_unref);
          self->last_frame = ks_image_ref (frame->image);
        }
    }
  else if (self != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autoptr (GError) stopped = g_error_new (KS_CAMERA_ERROR, KS_CAMERA_ERROR_FAILED,
                                                _("The camera stopped: %s"), error->message);
      fail (self, stopped);
    }
  frame_free (frame);
}

static gboolean
deliver_frame_cb (gpointer user_data)
{
  Frame *frame = user_data;
  Session *s = frame->session;
  KsCamera *self = s->camera;
  KsImage *current;

  if (self == NULL || frame->image == NULL)
    {
      frame_done (s, TRUE);
      return G_SOURCE_REMOVE;
    }
  /* Someone opened another image since the camera's last frame (or since
   * it started): that one stays, and the camera gives way. */
  current = ks_pipeline_get_input (self->pipeline, KS_INPUT_A);
  if (current != (self->last_frame != NULL ? self->last_frame : self->replaced))
    {
      frame_done (s, TRUE);
      ks_camera_stop (self);
      return G_SOURCE_REMOVE;
    }
  /* Other work queued, or the last frame's run not published yet: this
   * frame would wait behind it, so it is dropped and the next one taken. */
  if (!ks_pipeline_is_idle (self->pipeline))
    {
      frame_done (s, TRUE);
      return G_SOURCE_REMOVE;
    }
  ks_pipeline_set_input_async (self->pipeline, KS_INPUT_A, frame->image, self->name,
                               s->cancellable, on_frame_uploaded_cb,
                               frame_new (s, ks_image_ref (frame->image)));
  return G_SOURCE_REMOVE;
}

static void
on_started_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) outer = user_data;
  KsCamera *self = g_task_get_source_object (outer);
  Session *s = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_autoptr (GstBus) bus = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (self->session == s)
        {
          set_error (self, error->message);
          /* Nothing plays; the release only keeps the order of the runs. */
          end_session (self);
        }
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }
  if (self->session != s)
    {
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The camera was stopped before it started"));
      return;
    }
  /* TRANSLATORS: the input's name while a camera is the input; %s is the
   * camera's name ("Integrated Webcam") or the GStreamer element's. */
  name = g_strdup_printf (_("Camera: %s"), s->source_name);
  if (set_string (&self->name, name))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
  /* Messages posted before now wait on the bus. */
  bus = gst_element_get_bus (s->element);
  s->bus_watch = gst_bus_add_watch_full (bus, G_PRIORITY_DEFAULT, on_bus_message_cb,
                                         session_ref (s), session_unref);
  self->last_arrived = 0;
  self->last_delivered = 0;
  self->last_sample_us = g_get_monotonic_time ();
  self->stats_source = g_timeout_add (STATS_INTERVAL_MS, on_stats_tick_cb, self);
  set_state (self, KS_CAMERA_RUNNING);
  g_task_return_boolean (outer, TRUE);
}

void
ks_camera_start_async (KsCamera *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  g_autoptr (GTask) outer = NULL;
  g_autoptr (GTask) inner = NULL;
  KsImage *current;
  Session *s;

  g_return_if_fail (KS_IS_CAMERA (self));
  end_session (self);
  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ks_camera_start_async);

  s = g_new0 (Session, 1);
  g_atomic_ref_count_init (&s->ref);
  g_mutex_init (&s->lock);
  s->description = g_strdup (self->description);
  s->width = self->width;
  s->height = self->height;
  s->context = g_main_context_ref_thread_default ();
  s->cancellable = g_cancellable_new ();
  s->camera = self;
  self->session = s;
  current = ks_pipeline_get_input (self->pipeline, KS_INPUT_A);
  self->replaced = current != NULL ? ks_image_ref (current) : NULL;
  set_error (self, NULL);
  set_state (self, KS_CAMERA_STARTING);

  inner = g_task_new (self, NULL, on_started_cb, g_steal_pointer (&outer));
  g_task_set_source_tag (inner, start_thread);
  g_task_set_task_data (inner, session_ref (s), session_unref);
  g_task_run_in_thread (inner, start_thread);
}

gboolean
ks_camera_start_finish (KsCamera *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
ks_camera_stop (KsCamera *self)
{
  g_return_if_fail (KS_IS_CAMERA (self));
  end_session (self);
}

KsCameraState
ks_camera_get_state (KsCamera *self)
{
  g_return_val_if_fail (KS_IS_CAMERA (self), KS_CAMERA_STOPPED);
  return self->state;
}

gboolean
ks_camera_get_running (KsCamera *self)
{
  g_return_val_if_fail (KS_IS_CAMERA (self), FALSE);
  return self->state == KS_CAMERA_RUNNING;
}

const char *
ks_camera_get_name (KsCamera *self)
{
  g_return_val_if_fail (KS_IS_CAMERA (self), NULL);
  return self->name;
}

const char *
ks_camera_get_error (KsCamera *self)
{
  g_return_val_if_fail (KS_IS_CAMERA (self), NULL);
  return self->error;
}

double
ks_camera_get_camera_fps (KsCamera *self)
{
  g_return_val_if_fail (KS_IS_CAMERA (self), 0);
  return self->camera_fps;
}

double
ks_camera_get_delivered_fps (KsCamera *self)
{
  g_return_val_if_fail (KS_IS_CAMERA (self), 0);
  return self->delivered_fps;
}

guint64
ks_camera_get_frames_arrived (KsCamera *self)
{
  Session *s;

  g_return_val_if_fail (KS_IS_CAMERA (self), 0);
  s = counted_session (self);
  return s != NULL ? locked_count (s, &s->arrived) : 0;
}

guint64
ks_camera_get_frames_delivered (KsCamera *self)
{
  Session *s;

  g_return_val_if_fail (KS_IS_CAMERA (self), 0);
  s = counted_session (self);
  return s != NULL ? s->delivered : 0;
}

guint64
ks_camera_get_frames_dropped (KsCamera *self)
{
  Session *s;

  g_return_val_if_fail (KS_IS_CAMERA (self), 0);
  s = counted_session (self);
  return s != NULL ? locked_count (s, &s->dropped) : 0;
}

GstElement *
ks_camera_get_element (KsCamera *self)
{
  Session *s;

  g_return_val_if_fail (KS_IS_CAMERA (self), NULL);
  s = counted_session (self);
  return s != NULL ? s->element : NULL;
}

/* ---- GObject ------------------------------------------------------------------------ */

KsCamera *
ks_camera_new (KsPipeline *pipeline, const char *source, guint width, guint height)
{
  g_return_val_if_fail (KS_IS_PIPELINE (pipeline), NULL);
  return g_object_new (KS_TYPE_CAMERA, "pipeline", pipeline, "source", source, "width", width,
                       "height", height, NULL);
}

static void
ks_camera_dispose (GObject *object)
{
  KsCamera *self = KS_CAMERA (object);

  /* No thread holds a reference now (they all do while they run), so a
   * run still going is released here, on this thread. */
  if (self->session != NULL)
    {
      g_autoptr (Session) s = g_steal_pointer (&self->session);

      g_clear_handle_id (&s->bus_watch, g_source_remove);
      g_cancellable_cancel (s->cancellable);
      g_atomic_int_set (&s->stopping, TRUE);
      s->camera = NULL;
      if (s->element != NULL)
        gst_element_set_state (s->element, GST_STATE_NULL);
    }
  g_clear_handle_id (&self->stats_source, g_source_remove);
  g_clear_pointer (&self->last, session_unref);
  g_clear_pointer (&self->last_frame, ks_image_unref);
  g_clear_pointer (&self->replaced, ks_image_unref);
  g_clear_object (&self->pipeline);
  G_OBJECT_CLASS (ks_camera_parent_class)->dispose (object);
}

static void
ks_camera_finalize (GObject *object)
{
  KsCamera *self = KS_CAMERA (object);

  g_free (self->description);
  g_free (self->name);
  g_free (self->error);
  g_mutex_clear (&self->state_lock);
  g_cond_clear (&self->released_cond);
  G_OBJECT_CLASS (ks_camera_parent_class)->finalize (object);
}

static void
ks_camera_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsCamera *self = KS_CAMERA (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    case PROP_SOURCE:
      g_value_set_string (value, self->description);
      break;
    case PROP_WIDTH:
      g_value_set_uint (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_uint (value, self->height);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_CAMERA_FPS:
      g_value_set_double (value, self->camera_fps);
      break;
    case PROP_DELIVERED_FPS:
      g_value_set_double (value, self->delivered_fps);
      break;
    case PROP_FRAMES_ARRIVED:
      g_value_set_uint64 (value, ks_camera_get_frames_arrived (self));
      break;
    case PROP_FRAMES_DELIVERED:
      g_value_set_uint64 (value, ks_camera_get_frames_delivered (self));
      break;
    case PROP_FRAMES_DROPPED:
      g_value_set_uint64 (value, ks_camera_get_frames_dropped (self));
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_camera_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  KsCamera *self = KS_CAMERA (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      self->pipeline = g_value_dup_object (value);
      break;
    case PROP_SOURCE:
      self->description = g_value_dup_string (value);
      break;
    case PROP_WIDTH:
      self->width = g_value_get_uint (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_camera_class_init (KsCameraClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags co = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = ks_camera_dispose;
  object_class->finalize = ks_camera_finalize;
  object_class->get_property = ks_camera_get_property;
  object_class->set_property = ks_camera_set_property;

  properties[PROP_PIPELINE] = g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE, co);
  properties[PROP_SOURCE] = g_param_spec_string ("source", NULL, NULL, NULL, co);
  properties[PROP_WIDTH] = g_param_spec_uint ("width", NULL, NULL, 0, KS_IMAGE_MAX_SIDE, 0, co);
  properties[PROP_HEIGHT] = g_param_spec_uint ("height", NULL, NULL, 0, KS_IMAGE_MAX_SIDE, 0, co);
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, KS_TYPE_CAMERA_STATE,
                                              KS_CAMERA_STOPPED, ro);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);
  properties[PROP_CAMERA_FPS] = g_param_spec_double ("camera-fps", NULL, NULL, 0, G_MAXDOUBLE,
                                                     0, ro);
  properties[PROP_DELIVERED_FPS] = g_param_spec_double ("delivered-fps", NULL, NULL, 0,
                                                        G_MAXDOUBLE, 0, ro);
  properties[PROP_FRAMES_ARRIVED] = g_param_spec_uint64 ("frames-arrived", NULL, NULL, 0,
                                                         G_MAXUINT64, 0, ro);
  properties[PROP_FRAMES_DELIVERED] = g_param_spec_uint64 ("frames-delivered", NULL, NULL, 0,
                                                           G_MAXUINT64, 0, ro);
  properties[PROP_FRAMES_DROPPED] = g_param_spec_uint64 ("frames-dropped", NULL, NULL, 0,
                                                         G_MAXUINT64, 0, ro);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
ks_camera_init (KsCamera *self)
{
  g_mutex_init (&self->state_lock);
  g_cond_init (&self->released_cond);
}
