/* ks-sweep-window.h: "Sweep Block Sizes" — the pipeline's current op, on its
 * current inputs, parameters and launch (mode, grid, pixels per thread),
 * measured under each of a set of block shapes: the presets, every power of
 * two up to the device's limit, or a list the user types. Each shape is timed
 * with the timing protocol on the pipeline's runner, so the sweep takes turns
 * with the live view; the points are charted as they arrive (ks-sweep-chart.h),
 * a click on one launches the pipeline with its block, and a finished sweep
 * exports as CSV or JSON.
 *
 * A cancelled sweep keeps the points measured until then on the chart and
 * says that it was cancelled; only a finished sweep is exported, so that a
 * file never passes a partial sweep off as a whole one.
 *
 * With a user kernel in the editor the sweep still measures the built-in op,
 * and the window says so: ks_sweep_run times built-in ops only.
 *
 * Properties:
 *   "pipeline" KsPipeline (construct-only)
 *   "state" KsSweepWindowState (read-only, notifies)
 */
#pragma once

#include <adwaita.h>

#include "ks-pipeline.h"
#include "ks-sweep-chart.h"
#include "ks-sweep.h"

G_BEGIN_DECLS

typedef enum
{
  KS_SWEEP_WINDOW_IDLE,       /* nothing measured yet */
  KS_SWEEP_WINDOW_RUNNING,
  KS_SWEEP_WINDOW_FINISHED,   /* every shape measured or refused: see get_result */
  KS_SWEEP_WINDOW_CANCELLED,  /* stopped; the points measured until then stay */
  KS_SWEEP_WINDOW_FAILED,     /* the engine failed; the window shows why */
} KsSweepWindowState;

GType ks_sweep_window_state_get_type (void) G_GNUC_CONST;
#define KS_TYPE_SWEEP_WINDOW_STATE (ks_sweep_window_state_get_type ())

#define KS_TYPE_SWEEP_WINDOW (ks_sweep_window_get_type ())
G_DECLARE_FINAL_TYPE (KsSweepWindow, ks_sweep_window, KS, SWEEP_WINDOW, AdwWindow)

/* Transient for parent (not modal: the main window shows what a click on a
 * point changes). */
GtkWidget          *ks_sweep_window_new          (GtkWindow *parent, KsPipeline *pipeline);
KsPipeline         *ks_sweep_window_get_pipeline (KsSweepWindow *self);

/* The block shapes the window's controls name now (KsDim3), or NULL with the
 * reason, as shown beside the list. */
GArray             *ks_sweep_window_get_blocks   (KsSweepWindow *self, GError **error);
/* What Start does: captures the pipeline's configuration and measures it
 * under those shapes. FALSE, with the reason (also shown in the window),
 * when there is nothing to measure or the list is not valid. */
gboolean            ks_sweep_window_start        (KsSweepWindow *self, GError **error);
void                ks_sweep_window_cancel       (KsSweepWindow *self);
KsSweepWindowState  ks_sweep_window_get_state    (KsSweepWindow *self);

/* The points on the chart (KsSweepPoint, in sweep order): all of a finished
 * sweep, or those measured so far. */
const GArray       *ks_sweep_window_get_points   (KsSweepWindow *self);
/* The index in get_points of the smallest median; -1: none measured. */
int                 ks_sweep_window_get_fastest  (KsSweepWindow *self);
/* The finished sweep, or NULL (none yet, cancelled, failed, or running). */
const KsSweepResult *ks_sweep_window_get_result  (KsSweepWindow *self);
KsSweepChart       *ks_sweep_window_get_chart    (KsSweepWindow *self);

/* Writes the finished sweep to file as JSON or CSV, atomically, off the main
 * thread: what the export dialog does once a file is chosen. */
void                ks_sweep_window_export_async (KsSweepWindow *self, GFile *file,
                                                  gboolean json, GCancellable *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer user_data);
gboolean            ks_sweep_window_export_finish (KsSweepWindow *self, GAsyncResult *result,
                                                   GError **error);

G_END_DECLS
