/* ks-camera.h: a live camera, or any GStreamer video source, as the
 * pipeline's first input.
 *
 * The frames go through `SOURCE ! videoconvert ! videoscale !
 * video/x-raw,format=RGBA[,width,height] ! appsink`. The appsink keeps one
 * buffer and drops older ones and does not wait for the clock, so a slow op
 * never builds a backlog. Each frame is copied into a KsImage on the
 * streaming thread and handed to the main loop, which uploads it with
 * ks_pipeline_set_input_async. At most one frame is on its way at a time:
 * while one is uploading, or while the pipeline still has other work queued
 * or its last run is not published yet, arriving frames are dropped and
 * counted. The image on screen is therefore always the newest frame the op
 * could keep up with.
 *
 * The source is an explicit element description ("videotestsrc is-live=true")
 * or, with none, the first camera GstDeviceMonitor lists as a Video/Source:
 * pipewiresrc where PipeWire offers one, else v4l2src, else any other.
 *
 * GStreamer's state changes (opening and releasing the device) and the
 * search for a camera run on other threads; the properties change and
 * notify on the main loop only.
 *
 * Properties (read-only, all notify):
 *   "pipeline" KsPipeline (construct-only)
 *   "source" string (construct-only): the element description, or NULL to find a camera
 *   "width", "height" uint (construct-only): the size frames are scaled to; 0 keeps the camera's
 *   "state" KsCameraState
 *   "name" string: the input name its frames carry, known once it has started
 *   "camera-fps" double: frames arriving from the source per second
 *   "delivered-fps" double: frames reaching the pipeline per second
 *   "frames-arrived", "frames-delivered", "frames-dropped" uint64
 *   "error" string: why it could not start or stopped on its own; NULL otherwise
 * The rates and counters are sampled twice a second.
 *
 * Signals:
 *   "error" (GError *error)  the running source failed (device busy or
 *                            unplugged, end of stream); the camera stops.
 */
#pragma once

#include <gst/gst.h>
#include <gtk/gtk.h>

#include "ks-pipeline.h"

G_BEGIN_DECLS

#define KS_CAMERA_ERROR (ks_camera_error_quark ())

typedef enum
{
  KS_CAMERA_ERROR_NOT_FOUND,  /* no camera is connected (or none may be used) */
  KS_CAMERA_ERROR_SOURCE,     /* the element description cannot be built into a video source */
  KS_CAMERA_ERROR_FAILED,     /* the source failed to start or while running */
} KsCameraError;

GQuark ks_camera_error_quark (void);

typedef enum
{
  KS_CAMERA_STOPPED,   /* nothing is open; the device, if any, is released */
  KS_CAMERA_STARTING,  /* finding and opening the source */
  KS_CAMERA_RUNNING,   /* frames reach the pipeline */
  KS_CAMERA_STOPPING,  /* no more frames reach the pipeline; the device is being released */
} KsCameraState;

GType ks_camera_state_get_type (void);
#define KS_TYPE_CAMERA_STATE (ks_camera_state_get_type ())

#define KS_TYPE_CAMERA (ks_camera_get_type ())
G_DECLARE_FINAL_TYPE (KsCamera, ks_camera, KS, CAMERA, GObject)

/* source: an element description, or NULL to find a camera. width and
 * height: the size of the frames the pipeline gets, or 0 for the source's. */
KsCamera     *ks_camera_new                (KsPipeline *pipeline, const char *source,
                                            guint width, guint height);
/* Finds (or builds) the source and starts it off the main thread; a camera
 * already running is stopped first. Fails with KS_CAMERA_ERROR_NOT_FOUND
 * when there is no camera, and G_IO_ERROR_CANCELLED when stopped first. */
void          ks_camera_start_async        (KsCamera *self, GCancellable *cancellable,
                                            GAsyncReadyCallback callback, gpointer user_data);
gboolean      ks_camera_start_finish       (KsCamera *self, GAsyncResult *result,
                                            GError **error);
/* Returns at once: no frame reaches the pipeline after it (an upload already
 * under way still finishes), and the source goes to the NULL state on
 * another thread, which releases the device; "state" then becomes
 * KS_CAMERA_STOPPED. A camera dropped while running releases its device on
 * the calling thread. */
void          ks_camera_stop               (KsCamera *self);

KsCameraState ks_camera_get_state          (KsCamera *self);
gboolean      ks_camera_get_running        (KsCamera *self);
const char   *ks_camera_get_name           (KsCamera *self);
const char   *ks_camera_get_error          (KsCamera *self);
double        ks_camera_get_camera_fps     (KsCamera *self);
double        ks_camera_get_delivered_fps  (KsCamera *self);
/* Live counts of the current (or last) run, read at the moment of the call. */
guint64       ks_camera_get_frames_arrived   (KsCamera *self);
guint64       ks_camera_get_frames_delivered (KsCamera *self);
guint64       ks_camera_get_frames_dropped   (KsCamera *self);
/* The GstPipeline of the current or last run, or NULL (tests and debugging:
 * its state says whether the device is held). */
GstElement   *ks_camera_get_element        (KsCamera *self);

/* The names of the connected cameras, the one a camera without a source
 * description would open first; an empty list when there is none. Probes
 * the devices off the main thread. */
void          ks_camera_probe_async        (GCancellable *cancellable,
                                            GAsyncReadyCallback callback, gpointer user_data);
GStrv         ks_camera_probe_finish       (GAsyncResult *result, GError **error);

G_END_DECLS
