#pragma once

#include <glib-object.h>

#include "ks-device.h"
#include "ks-image.h"
#include "ks-launch.h"
#include "ks-op.h"
#include "ks-timing.h"

G_BEGIN_DECLS

/* An image that lives on an engine's device: device memory for CUDA (rows
 * 256-byte aligned), host memory for the CPU engine. Reference counted; it
 * keeps its engine alive. */
typedef struct _KsBuffer KsBuffer;

KsBuffer   *ks_buffer_ref          (KsBuffer *buffer);
void        ks_buffer_unref        (KsBuffer *buffer);
guint       ks_buffer_get_width    (const KsBuffer *buffer);
guint       ks_buffer_get_height   (const KsBuffer *buffer);
KsFormat    ks_buffer_get_format   (const KsBuffer *buffer);
gsize       ks_buffer_get_pitch    (const KsBuffer *buffer);
/* A device pointer for CUDA buffers, a host pointer for CPU buffers. */
gpointer    ks_buffer_get_data     (const KsBuffer *buffer);
/* TRUE for a buffer of ks_engine_new_shareable_buffer. */
gboolean    ks_buffer_is_shareable (const KsBuffer *buffer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsBuffer, ks_buffer_unref)

/* Where each output pixel came from, for the teaching overlays. Both engines. */
typedef struct
{
  guint width;
  guint height;
  guint32 *writes;        /* per pixel: times written (0 = never) */
  guint32 *owner_block;   /* per pixel: linear index of the block that wrote it last */
  guint32 *owner_thread;  /* per pixel: linear thread index within that block */
  guint64 idle_threads;   /* threads that fell outside the data */
  guint64 unwritten_pixels;
  guint64 multiply_written_pixels;
} KsCoverage;

void        ks_coverage_free       (KsCoverage *coverage);
/* White: written once; black: never; red: more than once. */
KsImage    *ks_coverage_to_image   (const KsCoverage *coverage);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsCoverage, ks_coverage_free)

/* Milliseconds per stage; negative when the stage did not happen. */
typedef struct
{
  double upload_ms;
  double kernel_ms;
  double download_ms;
} KsStageTimes;

typedef struct
{
  const KsOp *op;
  KsParams params;
  KsLaunchConfig launch;          /* as chosen; resolved by the engine */
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;               /* image ops: NULL lets the engine allocate one */
  gboolean instrument;            /* record a KsCoverage */
  /* Stops a CPU-engine run between bands of rows (G_IO_ERROR_CANCELLED);
   * NULL: a measurement uses its KsTimingOptions' cancellable. */
  GCancellable *cancellable;
} KsRunRequest;

typedef struct
{
  KsLaunchConfig launch;          /* resolved: the grid that really ran */
  KsBuffer *output;               /* image ops: a new reference */
  guint32 histogram[4][256];      /* histogram ops: R, G, B, luma (gray input: all four equal) */
  KsCoverage *coverage;           /* when instrumented */
  double kernel_ms;               /* this run */
  gboolean warmup;                /* first run of this op and configuration on this engine */
} KsRunResult;

void        ks_run_request_init    (KsRunRequest *request, const KsOp *op);
void        ks_run_result_clear    (KsRunResult *result);

#define KS_TYPE_ENGINE (ks_engine_get_type ())
G_DECLARE_FINAL_TYPE (KsEngine, ks_engine, KS, ENGINE, GObject)

/* An engine on a device: a CUDA stream and events, pinned staging memory, or
 * the CPU engine's worker threads. Fails when the device cannot be used. */
KsEngine   *ks_engine_new          (KsDevice *device, GError **error);
KsDevice   *ks_engine_get_device   (KsEngine *self);
gboolean    ks_engine_is_cuda      (KsEngine *self);
/* For CUDA engines: the cudaStream_t all work is ordered on. */
gpointer    ks_engine_get_stream   (KsEngine *self);
/* Number of worker threads of the CPU engine (the cores); 1 for CUDA. */
guint       ks_engine_get_n_workers (KsEngine *self);
void        ks_engine_set_n_workers (KsEngine *self, guint n_workers);

KsBuffer   *ks_engine_new_buffer   (KsEngine *self, KsFormat format, guint width, guint height,
                                    GError **error);
/* A CUDA buffer whose memory OpenGL can import and sample without a copy
 * (ks-interop.h, KS_INTEROP_SHARED_MEMORY): made with CUDA's virtual memory
 * management calls, exportable as a file descriptor, rounded up to the
 * device's allocation granularity (2 MiB on the H200). Used like any other
 * buffer. KS_ERROR_UNAVAILABLE on the CPU engine, or where the device or
 * driver cannot export memory. */
KsBuffer   *ks_engine_new_shareable_buffer (KsEngine *self, KsFormat format, guint width,
                                            guint height, GError **error);
/* Through pinned staging memory; *ms gets the transfer time (CUDA events). */
KsBuffer   *ks_engine_upload       (KsEngine *self, const KsImage *image, double *ms,
                                    GError **error);
gboolean    ks_engine_upload_into  (KsEngine *self, const KsImage *image, KsBuffer *buffer,
                                    double *ms, GError **error);
KsImage    *ks_engine_download     (KsEngine *self, KsBuffer *buffer, double *ms, GError **error);
/* One pixel as packed RGBA (R in the low byte; gray as v, v, v, 255): the pixel inspector. */
gboolean    ks_engine_read_pixel   (KsEngine *self, KsBuffer *buffer, guint x, guint y,
                                    guint32 *rgba, GError **error);
/* Sets every byte: poison outputs before a run so unwritten pixels show. */
gboolean    ks_engine_fill         (KsEngine *self, KsBuffer *buffer, guint8 value, GError **error);

/* The kernel's attributes for this request (registers, shared memory). */
gboolean    ks_engine_kernel_attributes (KsEngine *self, const KsRunRequest *request,
                                         KsKernelAttributes *attrs, GError **error);
/* CUDA engine: blocks of the request's kernel per multiprocessor by the CUDA
 * runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor), to check
 * ks_launch_occupancy against. */
gboolean    ks_engine_cuda_active_blocks (KsEngine *self, const KsRunRequest *request,
                                          guint *blocks, GError **error);
/* Resolves the request's launch for its inputs and validates it against the
 * device and the kernel; *resolved gets the launch that would run. */
gboolean    ks_engine_validate     (KsEngine *self, const KsRunRequest *request,
                                    KsLaunchConfig *resolved, KsLaunchConfig *suggestion,
                                    GError **error);

/* Runs the op once, after validating everything. Nothing is launched when the
 * request is invalid. On success *result is written from scratch (it may be
 * uninitialised; one that still holds a run must be cleared first, or its
 * references leak); on failure it is left alone. */
gboolean    ks_engine_run          (KsEngine *self, const KsRunRequest *request,
                                    KsRunResult *result, GError **error);
/* Times the request's kernel with the timing protocol (ks-timing.h): a
 * warm-up, then options->repeats timed runs; result holds the last run. Only
 * the kernel is timed: the launch is validated once, before the warm-up. */
gboolean    ks_engine_measure      (KsEngine *self, const KsRunRequest *request,
                                    const KsTimingOptions *options, KsRunResult *result,
                                    KsTiming *timing, GError **error);

/* Host images in, host image out: upload, run, download, each stage timed.
 * With options, the kernel is measured (ks_engine_measure); NULL runs it once. */
gboolean    ks_engine_process      (KsEngine *self, const KsRunRequest *request,
                                    KsImage *const *inputs, const KsTimingOptions *options,
                                    KsImage **output, KsRunResult *result,
                                    KsStageTimes *times, KsTiming *timing, GError **error);

/* Device-to-device copy bandwidth in GB/s (bytes read plus written), median of
 * `repeats` copies of `bytes`. CUDA engines only. */
gboolean    ks_engine_measure_copy_bandwidth (KsEngine *self, guint64 bytes, guint repeats,
                                              double *gbs, KsTiming *timing, GError **error);

/* Enqueues one eviction of the L2 cache (ks-timing.h) on the engine's
 * stream now; nothing on the CPU engine. */
gboolean    ks_engine_flush_caches (KsEngine *self, KsCacheFlush flush, GError **error);

/* Whether this engine can still run work; FALSE with the reason after a
 * sticky CUDA error. */
gboolean    ks_engine_check_usable (KsEngine *self, GError **error);

G_END_DECLS
