/* ks-pipeline.h: the model behind the window — images on the engine's device,
 * the chosen op, its parameters and launch configuration, and the last run.
 *
 * The engine work happens on the pipeline's runner (ks-runner.h), never on the
 * main thread: a setter changes the model at once and queues a run; uploads,
 * device switches, measurements and comparisons are queued in order; each
 * finished piece of work is published back on the main loop, where the
 * properties below change and notify. A published result is never written
 * again: the next run goes into another buffer.
 *
 * Properties (all notify; read-only unless marked):
 *   "devices" GListModel of KsDevice   "device" KsDevice   "engine" KsEngine
 *   "cpu-reason" string   "op" gpointer (const KsOp *; writable)
 *   "input-name", "second-name" string
 *   "valid" boolean, "validation-message" string: the current configuration
 *   "result" gpointer (const KsRunResult *): the last published run
 *   "display-path" string   "fps" double: frames presented per second, 0 when
 *   no frames are being produced (writable: the view reports it)
 *   "busy" boolean: a Measure or Compare is running; "progress" double 0..1
 *   "user-kernel" gpointer (KsKernelSource *): the user's kernel that runs in
 *   place of the op, or NULL
 *
 * Signals:
 *   "ran" ()                        after every published run
 *   "config-changed" ()             op, parameters, launch or device changed
 *   "inputs-changed" ()             an input image changed
 *   "run-failed" (GError *error)    engine work failed; the previous state stays
 *   "device-lost" (const char *reason)  the GPU failed for good; the pipeline
 *                                   has switched to the CPU engine and rerun
 *   "user-run" (const KsUserRunReport *)  after every launch of the user's
 *                                   kernel, run or not (the console)
 */
#pragma once

#include <gio/gio.h>

#include "kernelscope.h"
#include "ks-runner.h"
#include "ks-array-run.h"
#include "ks-user-run.h"

G_BEGIN_DECLS

typedef enum
{
  KS_INPUT_A = 0,
  KS_INPUT_B = 1,
} KsInputSlot;

/* One point of the timing history. */
typedef struct
{
  gint64 time_us;       /* g_get_monotonic_time () when it was published */
  double kernel_ms;
  double display_ms;    /* interop copy or download + upload; negative when not reported yet */
  gboolean warmup;
  gboolean cuda;
} KsTimingSample;

#define KS_PIPELINE_HISTORY 240

#define KS_TYPE_PIPELINE (ks_pipeline_get_type ())
G_DECLARE_FINAL_TYPE (KsPipeline, ks_pipeline, KS, PIPELINE, GObject)

/* Starts on the first CUDA device when CUDA is available, else on the CPU. */
KsPipeline        *ks_pipeline_new                  (void);
/* The worker that does this pipeline's engine work; other engine-adjacent
 * work (decoding a pasted image) may be queued there too. */
KsRunner          *ks_pipeline_get_runner           (KsPipeline *self);

/* ---- devices ------------------------------------------------------------ */
/* KsDevice items: the CPU device first, then every CUDA device. */
GListModel        *ks_pipeline_get_devices          (KsPipeline *self);
KsDevice          *ks_pipeline_get_device           (KsPipeline *self);
KsEngine          *ks_pipeline_get_engine           (KsPipeline *self);
/* Opens an engine on the device and uploads the inputs again, on the worker;
 * on failure the previous device stays. */
void               ks_pipeline_set_device_async     (KsPipeline *self, KsDevice *device,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
gboolean           ks_pipeline_set_device_finish    (KsPipeline *self, GAsyncResult *result,
                                                     GError **error);
/* Why the CPU engine is in use although CUDA was wanted (no driver, lost GPU); or NULL. */
const char        *ks_pipeline_get_cpu_reason       (KsPipeline *self);

/* ---- inputs ------------------------------------------------------------- */
/* Uploads the image on the worker (it takes a reference). On failure (the GPU
 * has no memory left) the previous image stays. Inputs are RGBA8. */
void               ks_pipeline_set_input_async      (KsPipeline *self, KsInputSlot slot,
                                                     KsImage *image, const char *name,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
gboolean           ks_pipeline_set_input_finish     (KsPipeline *self, GAsyncResult *result,
                                                     GError **error);
KsImage           *ks_pipeline_get_input            (KsPipeline *self, KsInputSlot slot);
KsBuffer          *ks_pipeline_get_input_buffer     (KsPipeline *self, KsInputSlot slot);
const char        *ks_pipeline_get_input_name       (KsPipeline *self, KsInputSlot slot);

/* ---- op, parameters, launch ---------------------------------------------- */
const KsOp        *ks_pipeline_get_op               (KsPipeline *self);
/* Parameters go back to the op's defaults; the launch configuration is kept. */
void               ks_pipeline_set_op               (KsPipeline *self, const KsOp *op);
const KsParams    *ks_pipeline_get_params           (KsPipeline *self);
void               ks_pipeline_set_param            (KsPipeline *self, guint index, double value);
const KsLaunchConfig *ks_pipeline_get_launch        (KsPipeline *self);
void               ks_pipeline_set_launch           (KsPipeline *self,
                                                     const KsLaunchConfig *launch);

/* The validation of the current configuration (updated on every change):
 * TRUE when it can launch; otherwise *message says why in plain words and
 * *suggestion is a valid configuration (the one-click fix). */
gboolean           ks_pipeline_get_validation       (KsPipeline *self, const char **message,
                                                     KsLaunchConfig *suggestion);
/* The configuration that runs (auto grid resolved), threads against pixels,
 * and the theoretical occupancy (FALSE when unknown, e.g. the CPU engine). */
const KsLaunchConfig *ks_pipeline_get_resolved_launch (KsPipeline *self);
void               ks_pipeline_get_totals           (KsPipeline *self, KsLaunchTotals *totals);
gboolean           ks_pipeline_get_occupancy        (KsPipeline *self, KsOccupancy *occupancy,
                                                     KsKernelAttributes *attributes);

/* ---- results -------------------------------------------------------------- */
/* The last published run (output on the engine's device), or NULL. Image ops
 * have result->output; histogram ops have result->histogram. */
const KsRunResult *ks_pipeline_get_result           (KsPipeline *self);
/* The op and parameters the published run ran with. */
const KsOp        *ks_pipeline_get_result_op        (KsPipeline *self);
const KsParams    *ks_pipeline_get_result_params    (KsPipeline *self);
/* Per pixel: was it written? Only recorded when the grid leaves pixels out;
 * NULL when every pixel was written. The mask is the same as a GRAY8 image
 * (255 written, 0 not), built on the worker. */
const KsCoverage  *ks_pipeline_get_coverage         (KsPipeline *self);
KsImage           *ks_pipeline_get_coverage_mask    (KsPipeline *self);
/* "instrumented" (writable): record the coverage of every run, whatever
 * the grid (an overlay is on). The cost is measured: the last instrumented
 * kernel time against the last plain one of the same configuration (negative
 * when not known yet). */
/* Image outputs of CUDA runs in memory OpenGL can import and sample in
 * place (ks_engine_new_shareable_buffer): a view with a shared-memory
 * interop asks for it. Where such memory cannot be made, runs write an
 * ordinary buffer and get_shareable_refused says why (NULL otherwise). The
 * published output is never written again: the next run writes the spare. */
void               ks_pipeline_set_shareable_outputs (KsPipeline *self, gboolean shareable);
const char        *ks_pipeline_get_shareable_refused (KsPipeline *self);
void               ks_pipeline_set_instrumented     (KsPipeline *self, gboolean instrumented);
gboolean           ks_pipeline_get_instrumented     (KsPipeline *self);
void               ks_pipeline_get_instrument_cost  (KsPipeline *self, double *instrumented_ms,
                                                     double *plain_ms);
/* Of an instrumented run: two guint32 per output pixel, row by row — the
 * linear block that wrote it last, then its linear thread (low 16 bits) and
 * its write count saturated at 65535 (high 16 bits); NULL when the run was
 * not instrumented. Built on the worker for the view's overlay texture. */
const guint32     *ks_pipeline_get_ownership        (KsPipeline *self);
/* A host copy of the output image (to test, for the copy path). */
KsImage           *ks_pipeline_download_output      (KsPipeline *self, GError **error);
/* The published output image, downloaded and written to a PNG file in a
 * thread of its own: it reads a result no run writes again, so it waits for
 * no Measure. */
void               ks_pipeline_save_output_async    (KsPipeline *self, GFile *file,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
gboolean           ks_pipeline_save_output_finish   (KsPipeline *self, GAsyncResult *result,
                                                     GError **error);
/* The output pixel at (x, y) as packed RGBA (the pixel inspector). */
gboolean           ks_pipeline_read_output_pixel    (KsPipeline *self, guint x, guint y,
                                                     guint32 *rgba);
/* Histograms [4][256] (R, G, B, luma) of input A and of the output (for
 * histogram ops, the op's own result), from the engine's histogram kernel. */
const guint32     *ks_pipeline_get_input_histogram  (KsPipeline *self);
const guint32     *ks_pipeline_get_output_histogram (KsPipeline *self);

/* Stages of the last run: upload (the last upload of an input), kernel, and
 * the display copy the view reports with ks_pipeline_report_display. */
void               ks_pipeline_get_stage_times      (KsPipeline *self, KsStageTimes *times,
                                                     double *display_ms);
void               ks_pipeline_report_display       (KsPipeline *self, double display_ms,
                                                     const char *path);
/* How the result reaches the screen ("CUDA–OpenGL interop", "download and
 * texture upload", "texture upload from the CPU engine") and why. */
const char        *ks_pipeline_get_display_path     (KsPipeline *self);
/* KsTimingSample, oldest first, at most KS_PIPELINE_HISTORY. */
GArray            *ks_pipeline_get_history          (KsPipeline *self);
/* Frames presented per second, as the view's frame clock counts them. */
double             ks_pipeline_get_fps              (KsPipeline *self);
void               ks_pipeline_set_fps              (KsPipeline *self, double fps);
/* Achieved bytes per second of the last kernel (ks_op_bytes_moved / time), GB/s. */
double             ks_pipeline_get_achieved_gbs     (KsPipeline *self);

/* ---- user kernels ------------------------------------------------------------ */
/* The worker process that compiles and runs user kernels for the current
 * engine's device (-1, compilation only, on the CPU engine). Created on first
 * use; a device switch replaces it. */
KsWorker          *ks_pipeline_get_worker           (KsPipeline *self);
/* The worker's time limit for one run and its device printf buffer (0: the
 * defaults, 2 s and 1 MiB); the window takes them from its settings. */
void               ks_pipeline_set_kernel_limits    (KsPipeline *self, guint timeout_ms,
                                                     gsize printf_fifo);
/* Runs the user's kernel (expression or image mode, compiled) in place of the
 * op, on every change; NULL goes back to the op. Parameters of the same name
 * and type keep their values; the launch becomes the source's default when
 * its annotations ask for another one. Its launch is validated on the runner
 * with the compiled kernel's attributes ("valid", "validation-message"). A
 * user kernel's failure is never a lost device: the worker faulted, not the
 * application's CUDA. */
void               ks_pipeline_set_user_kernel      (KsPipeline *self, KsKernelSource *source);
KsKernelSource    *ks_pipeline_get_user_kernel      (KsPipeline *self);
/* Values in the order of ks_kernel_source_get_params. */
const KsParams    *ks_pipeline_get_user_params      (KsPipeline *self);
void               ks_pipeline_set_user_param       (KsPipeline *self, guint index, double value);
/* A value by parameter name for the next user kernel set (a session's, until
 * its kernel compiles): a parameter of that name takes it, within its range,
 * in place of the value the kernel before had. Taken once, by that kernel. */
void               ks_pipeline_remember_user_param  (KsPipeline *self, const char *name,
                                                     double value);
void               ks_pipeline_forget_user_params   (KsPipeline *self);
/* The values remembered and not yet taken: name → const double *, the
 * pipeline's; NULL: none. */
GHashTable        *ks_pipeline_get_remembered_user_params (KsPipeline *self);

/* Runs an "any" kernel on arrays bound to its arguments, on the runner after
 * the work queued before it: its launch (the block, and the grid unless
 * auto_grid) is validated with the current device's limits and the compiled
 * kernel's attributes first, as on the command line, so a launch the device
 * refuses fails with KS_ERROR_LAUNCH_CONFIG and never runs. bindings: the
 * KsBinding of every argument; arrays: a KsArray per pointer argument, in
 * order (references taken). */
void               ks_pipeline_run_arrays_async     (KsPipeline *self, KsKernelSource *source,
                                                     GPtrArray *bindings, GPtrArray *arrays,
                                                     const KsLaunchConfig *launch,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
/* *out is filled as far as the run got, on failure too (its launch is the
 * resolved one); ks_array_run_result_clear it either way. */
gboolean           ks_pipeline_run_arrays_finish    (KsPipeline *self, GAsyncResult *result,
                                                     KsArrayRunResult *out, GError **error);

/* One launch of the user's kernel, as the console shows it. */
typedef struct
{
  guint number;               /* 1, 2, … over the pipeline's life */
  KsKernelSource *source;     /* borrowed: what ran */
  KsLaunchConfig launch;      /* resolved */
  double kernel_ms;           /* negative when it did not run */
  const char *printf_output;  /* device printf, or NULL */
  guint64 printf_lines;
  guint64 printf_lines_lost;
  const GError *error;        /* why it did not run, or NULL */
  gboolean worker_restarted;  /* the worker process was started again after this launch */
  const char *engine;         /* which engine ran it: the GPU's name, or the CPU engine */
  gboolean emulated;          /* the CPU engine ran the kernel's PTX (ks-emu.h) */
  const GPtrArray *findings;  /* KsEmuFinding: what the CPU engine's checks found, or NULL */
  guint64 n_findings;         /* all of them (findings holds the first ones) */
} KsUserRunReport;

/* ---- runs ----------------------------------------------------------------- */
/* Runs the current configuration soon (setters call it). Runs queued before
 * an earlier one started replace it. */
void               ks_pipeline_queue_run            (KsPipeline *self);
/* Warm-up plus `repeats` timed runs of the current configuration. "busy" and
 * "progress" follow it; cancel through the cancellable. *timing always gets
 * the runs made (fewer than `repeats` when it failed or was cancelled). */
void               ks_pipeline_measure_async        (KsPipeline *self, guint repeats,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
gboolean           ks_pipeline_measure_finish       (KsPipeline *self, GAsyncResult *result,
                                                     KsTiming *timing, GError **error);
/* The same op on the same input on the CPU engine (and on the current engine):
 * both timings, and whether the outputs are identical. */
void               ks_pipeline_compare_async        (KsPipeline *self, guint repeats,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
gboolean           ks_pipeline_compare_finish       (KsPipeline *self, GAsyncResult *result,
                                                     KsTiming *current, KsTiming *cpu,
                                                     gboolean *identical, GError **error);
gboolean           ks_pipeline_get_busy             (KsPipeline *self);
/* Nothing queued, running or about to run: every change made so far is published. */
gboolean           ks_pipeline_is_idle              (KsPipeline *self);
double             ks_pipeline_get_progress         (KsPipeline *self);
/* Timings as CSV or JSON (history, last stages). */
char              *ks_pipeline_export_timings       (KsPipeline *self, gboolean json);

G_END_DECLS
