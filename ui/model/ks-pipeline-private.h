/* What the ks-pipeline*.c files share: the instance struct, the data the
 * engine works from and a published run, and the `_ks_pipeline_*` functions
 * one file gives the others.
 *
 * Calls go one way, so that no two files call each other:
 *
 *   ks-pipeline-kernel.c  ks-pipeline-arrays.c  ks-pipeline-measure.c
 *   ks-pipeline-results.c
 *        (the kernel panel, its runs on arrays, Measure and Compare, the
 *         results: public API)
 *                          |
 *                    ks-pipeline.c  (the model: GObject, setters)
 *                          |
 *                    ks-pipeline-run.c  (the runner side: live runs, uploads,
 *                          |             device switches)
 *                    ks-pipeline-kernel-run.c  (the user kernel's live runs)
 *                          |
 *          ks-pipeline-request.c, ks-pipeline-publish.c, ks-pipeline-source.c
 *
 * The files below ks-pipeline.c never use KS_PIPELINE () or KS_IS_PIPELINE
 * (): those call ks_pipeline_get_type (), defined with the model. Their public
 * functions keep the checks in a public function of ks-pipeline.c that calls
 * the `_ks_pipeline_*` one.
 */
#pragma once

#include "ks-pipeline.h"

G_BEGIN_DECLS

/* Instrumenting costs three words per pixel: only up to 8K × 8K. */
#define MAX_INSTRUMENTED_PIXELS (8192u * 8192u)

/* ---- what the engine works from ------------------------------------------------- */

/* The device, its engine, the host inputs and their copies on the device.
 * Built on the worker, never changed once built, shared with the main loop. */
typedef struct
{
  gatomicrefcount ref;
  KsDevice *device;
  KsEngine *engine;
  KsImage *inputs[2];
  char *names[2];
  KsBuffer *buffers[2];
  double upload_ms;
  guint32 histogram[4][256];    /* of input A */
} Source;

/* ---- a published run -------------------------------------------------------------- */

typedef struct
{
  Source *source;
  const KsOp *op;
  KsParams params;
  KsRunResult result;
  guint32 histogram[4][256];    /* of the output, or the histogram op's result */
  KsImage *coverage_mask;
  /* When instrumented: per pixel the last writer's linear block, and its
   * linear thread with the write count (saturated) above it — what the
   * view's overlay texture holds, packed on the worker. */
  guint32 *ownership;
  double plain_ms;              /* a plain run of the same configuration; negative: none made */
  char *shareable_refused;      /* why the output is not in memory shared with OpenGL, or NULL */
} Outcome;

struct _KsPipeline
{
  GObject parent_instance;

  /* owned */
  KsRunner *runner;
  GMainContext *context;      /* where work is published: the creator's */
  GListStore *devices;
  Source *source;             /* published */
  Outcome *outcome;           /* published, or NULL */
  KsBuffer *spare;            /* an output no longer published: the next run writes it */
  char *cpu_reason;
  char *validation_message;
  char *display_path;
  GArray *history;            /* KsTimingSample */

  /* the model */
  const KsOp *op;
  KsParams params;
  KsLaunchConfig launch;
  KsLaunchConfig resolved;
  KsLaunchConfig suggestion;
  gboolean valid;
  gboolean have_occupancy;
  KsOccupancy occupancy;
  KsKernelAttributes attributes;
  double display_ms;
  double fps;
  guint n_long;               /* Measures and Compares not finished */
  guint n_tasks;              /* tasks on the runner whose callback has not run */
  double progress;
  guint run_source;
  GTask *live_task;             /* the newest live run's, until it is done */
  gboolean instrumented;        /* every run records its coverage (an overlay is on) */
  gboolean shareable_outputs;   /* image outputs in memory OpenGL can import (a view asks) */
  char *shareable_refused;      /* the last run's reason it could not, or NULL */
  char *plain_key;              /* the configuration plain_ms was measured for */
  double plain_ms;

  /* the user's kernel, when it runs in place of the op */
  KsWorker *worker;           /* created on first use, for the current device */
  guint kernel_timeout_ms;    /* the worker's watchdog */
  gsize printf_fifo;          /* the worker's printf buffer */
  KsKernelSource *user_kernel;
  KsParams user_params;
  GHashTable *remembered_params; /* name → double *: for the next user kernel set; NULL: none */
  guint user_launches;

  /* the worker's own: touched only by tasks on the runner */
  Source *worker_source;

  /* from the worker to the main loop */
  gint progress_done;
  gint progress_total;
  gint progress_posted;
};

enum
{
  PROP_0,
  PROP_DEVICES,
  PROP_DEVICE,
  PROP_ENGINE,
  PROP_CPU_REASON,
  PROP_OP,
  PROP_INPUT_NAME,
  PROP_SECOND_NAME,
  PROP_VALID,
  PROP_VALIDATION_MESSAGE,
  PROP_RESULT,
  PROP_DISPLAY_PATH,
  PROP_FPS,
  PROP_BUSY,
  PROP_PROGRESS,
  PROP_USER_KERNEL,
  PROP_INSTRUMENTED,
  N_PROPS
};

enum
{
  SIGNAL_RAN,
  SIGNAL_CONFIG_CHANGED,
  SIGNAL_INPUTS_CHANGED,
  SIGNAL_RUN_FAILED,
  SIGNAL_DEVICE_LOST,
  SIGNAL_USER_RUN,
  N_SIGNALS
};

/* ks-pipeline-source.c: sources and outcomes; on the worker, uploads,
 * histograms and what a run's coverage is turned into for the view. */
Source  *_ks_pipeline_source_new        (KsDevice *device, KsEngine *engine);
Source  *_ks_pipeline_source_ref        (Source *s);
void     _ks_pipeline_source_unref      (gpointer data);
Source  *_ks_pipeline_source_derive     (const Source *base, KsDevice *device, KsEngine *engine);
void     _ks_pipeline_outcome_free      (gpointer data);
KsImage *_ks_pipeline_second_input_for  (const Source *s);
gboolean _ks_pipeline_run_histogram     (KsEngine *engine, KsBuffer *buffer, guint32 out[4][256],
                                         GError **error);
gboolean _ks_pipeline_upload_inputs     (Source *s, GError **error);
guint32 *_ks_pipeline_pack_ownership    (const KsCoverage *coverage);
KsImage *_ks_pipeline_coverage_mask     (const KsCoverage *coverage);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Source, _ks_pipeline_source_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Outcome, _ks_pipeline_outcome_free)

/* ks-pipeline-publish.c: the property and signal tables (ks-pipeline.c's
 * class_init fills them) and what every file publishes with. */
extern GParamSpec *_ks_pipeline_properties[N_PROPS];
extern guint _ks_pipeline_signals[N_SIGNALS];

void _ks_pipeline_notify         (KsPipeline *self, guint prop);
void _ks_pipeline_clear_outcome  (KsPipeline *self);
void _ks_pipeline_record_sample  (KsPipeline *self);

/* ks-pipeline-request.c: what a run is built from, taken from the model, and
 * whether the current launch can run. */
void  _ks_pipeline_build_request (KsPipeline *self, const Source *s, KsRunRequest *request);
void  _ks_pipeline_revalidate    (KsPipeline *self);
void  _ks_pipeline_output_size   (KsPipeline *self, guint *width, guint *height);
char *_ks_pipeline_config_key    (KsPipeline *self, guint width, guint height);

/* ks-pipeline-kernel-run.c: the user kernel's live run, and its worker. */
void      _ks_pipeline_submit_user_live (KsPipeline *self);
KsWorker *_ks_pipeline_get_worker       (KsPipeline *self);

/* ks-pipeline-run.c: work queued on the runner. The public functions of the
 * same names, less the underscore, check their arguments and call these. */
void _ks_pipeline_queue_inner       (KsPipeline *self, GTask *outer, gpointer data,
                                     GDestroyNotify destroy, GTaskThreadFunc func,
                                     GAsyncReadyCallback done);
void _ks_pipeline_report_failure    (KsPipeline *self, GError *error);
void _ks_pipeline_set_device_async  (KsPipeline *self, KsDevice *device,
                                     GCancellable *cancellable, GAsyncReadyCallback callback,
                                     gpointer user_data);
void _ks_pipeline_set_input_async   (KsPipeline *self, KsInputSlot slot, KsImage *image,
                                     const char *name, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);
void _ks_pipeline_queue_run         (KsPipeline *self);

/* ks-pipeline.c: revalidates, says so and queues a run. */
void _ks_pipeline_config_changed    (KsPipeline *self);

G_END_DECLS
