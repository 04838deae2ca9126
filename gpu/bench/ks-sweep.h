/* ks-sweep.h: an op over a set of block shapes, each measured with the
 * timing protocol (ks-timing.h) — what the window's "Sweep block sizes" and
 * `kernelscope-cli sweep` share. */
#pragma once

#include <json-glib/json-glib.h>

#include "ks-engine.h"

G_BEGIN_DECLS

/* The most block shapes one sweep measures: each costs a warm-up and its
 * timed runs, and the chart of more would not be read. */
#define KS_SWEEP_MAX_BLOCKS 256

typedef enum
{
  KS_SWEEP_PRESETS,        /* the launch panel's: 8×8, 16×16, 32×8, 32×32, 256×1 */
  KS_SWEEP_POWERS_OF_TWO,  /* every 2^a × 2^b from one warp to the device's limit */
} KsSweepSet;

typedef struct
{
  KsDim3 block;
  KsLaunchConfig resolved;   /* the launch that ran */
  char *refused;             /* why the device would not run it; NULL: measured */
  KsTiming timing;           /* the kernel's time */
  double gbs;                /* bytes read and written once ÷ the median */
  gboolean has_occupancy;    /* CUDA: theoretical occupancy of the kernel there */
  KsOccupancy occupancy;
} KsSweepPoint;

typedef struct
{
  const KsOp *op;
  char *device_name;
  char *device_id;
  gboolean cuda;
  guint width, height;
  guint repeats;
  GArray *points;            /* KsSweepPoint */
  int fastest;               /* index of the smallest median; -1: none measured */
} KsSweepResult;

void           ks_sweep_result_free (KsSweepResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsSweepResult, ks_sweep_result_free)

/* The block shapes of a set for a device (KsDim3 each). */
GArray        *ks_sweep_blocks      (KsSweepSet set, const KsDeviceLimits *limits);
/* "32x8,16x16,256": at most KS_SWEEP_MAX_BLOCKS shapes, each as
 * ks_dim3_parse reads it; duplicates are kept once. */
GArray        *ks_sweep_parse_blocks (const char *text, GError **error);

typedef void (*KsSweepProgress) (guint done, guint total, const KsSweepPoint *point,
                                 gpointer user_data);

/* Measures base (its op, inputs, parameters; its launch's mode, grid and
 * pixels per thread) with each block of blocks. A shape the device refuses is
 * a point with `refused` set, not a failure; a cancellation is
 * (G_IO_ERROR_CANCELLED). */
KsSweepResult *ks_sweep_run         (KsEngine *engine, const KsRunRequest *base,
                                     const GArray *blocks, guint repeats,
                                     KsSweepProgress progress, gpointer user_data,
                                     GCancellable *cancellable, GError **error);

JsonNode      *ks_sweep_to_json     (const KsSweepResult *result);
/* block,threads,median_ms,mad_ms,gbs,occupancy,limiter,refused — one row a shape. */
char          *ks_sweep_to_csv      (const KsSweepResult *result);

G_END_DECLS
