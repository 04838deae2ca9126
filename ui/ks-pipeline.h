/* ks-pipeline.h: the model behind the window — images on the engine's device,
 * the chosen op, its parameters and launch configuration, and the last run.
 *
 * Every setter queues one run (coalesced in an idle callback), so a change
 * reaches the screen in the next frame. The widgets observe the signals below
 * and never talk to the engine themselves. */
#pragma once

#include <gio/gio.h>

#include "kernelscope.h"

G_BEGIN_DECLS

typedef enum
{
  KS_INPUT_A = 0,
  KS_INPUT_B = 1,
} KsInputSlot;

/* One point of the timing history. */
typedef struct
{
  gint64 time_us;       /* g_get_monotonic_time () when it ran */
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

/* ---- devices ------------------------------------------------------------ */
/* KsDevice items: the CPU device first, then every CUDA device. */
GListModel        *ks_pipeline_get_devices          (KsPipeline *self);
KsDevice          *ks_pipeline_get_device           (KsPipeline *self);
KsEngine          *ks_pipeline_get_engine           (KsPipeline *self);
/* Switches engines; the host copies of the inputs are uploaded again. */
gboolean           ks_pipeline_set_device           (KsPipeline *self, KsDevice *device,
                                                     GError **error);
/* Why the CPU engine is in use although CUDA was wanted (no driver, lost GPU); or NULL. */
const char        *ks_pipeline_get_cpu_reason       (KsPipeline *self);

/* ---- inputs ------------------------------------------------------------- */
/* Takes a reference. On failure (for example the GPU has no memory left) the
 * previous image stays. */
gboolean           ks_pipeline_set_input            (KsPipeline *self, KsInputSlot slot,
                                                     KsImage *image, const char *name,
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
void               ks_pipeline_set_launch           (KsPipeline *self, const KsLaunchConfig *launch);

/* The validation of the current configuration (updated before every run):
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
/* The last successful run (output on the engine's device), or NULL. Image ops
 * have result->output; histogram ops have result->histogram. */
const KsRunResult *ks_pipeline_get_result           (KsPipeline *self);
/* Per pixel: was it written? Only recorded when the grid leaves pixels out;
 * NULL when every pixel was written. */
const KsCoverage  *ks_pipeline_get_coverage         (KsPipeline *self);
/* A host copy of the output image (to save, to test, for the copy path). */
KsImage           *ks_pipeline_download_output      (KsPipeline *self, GError **error);
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
double             ks_pipeline_get_fps              (KsPipeline *self);
/* Achieved bytes per second of the last kernel (ks_op_bytes_moved / time), GB/s. */
double             ks_pipeline_get_achieved_gbs     (KsPipeline *self);

/* ---- runs ----------------------------------------------------------------- */
void               ks_pipeline_queue_run            (KsPipeline *self);
gboolean           ks_pipeline_run_now              (KsPipeline *self, GError **error);
/* Warm-up plus `repeats` timed runs of the current configuration. */
gboolean           ks_pipeline_measure              (KsPipeline *self, guint repeats,
                                                     KsTiming *timing, GError **error);
/* The same op on the same input on the CPU engine (and on the current CUDA
 * engine): both timings, and whether the outputs are identical. */
gboolean           ks_pipeline_compare_engines      (KsPipeline *self, guint repeats,
                                                     KsTiming *current, KsTiming *cpu,
                                                     gboolean *identical, GError **error);
/* Timings as CSV or JSON (history, last stages, last measurement). */
char              *ks_pipeline_export_timings       (KsPipeline *self, gboolean json);

/* Signals:
 *   "ran" ()                        after every successful run
 *   "config-changed" ()             op, parameters, launch or device changed
 *   "inputs-changed" ()             an input image changed
 *   "run-failed" (GError *error)    a run failed; the previous result stays
 *   "device-lost" (const char *reason)  the GPU failed for good; the pipeline
 *                                   has switched to the CPU engine and rerun
 */

G_END_DECLS
