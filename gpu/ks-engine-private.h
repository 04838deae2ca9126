/* ks-engine-private.h: what the engine's files share; not installed, not for ui/ or app/. */
#pragma once

#include "ks-engine.h"
#include "ks-op.h"
#include "ks-op-list.h"

G_BEGIN_DECLS

typedef enum
{
  KS_IMPL_ELEMENTWISE = 1, /* impl_id: KsElementwiseId */
  KS_IMPL_HISTOGRAM = 2,   /* method from the op's "method" parameter */
} KsImplKind;

struct _KsBuffer
{
  gatomicrefcount ref_count;
  KsEngine *engine;   /* owned */
  KsFormat format;
  guint width;
  guint height;
  gsize pitch;        /* bytes between rows */
  gpointer data;      /* device memory (CUDA) or host memory (CPU) */
};

/* What one run of an op needs, after the engine resolved and validated it. */
typedef struct
{
  const KsOp *op;
  KsPixelParams pixel_params;
  KsHistogramMethod histogram_method;
  KsGeometry geom;
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;               /* image ops */
  guint32 (*histogram)[256];      /* histogram ops: [4][256] on the host */
  gboolean instrument;            /* run the instrumented kernel variant */
  KsCoverage *coverage;           /* when instrumenting: allocated by the engine, arrays zeroed */
} KsKernelRun;

/* ks-op-registry.c */
void       _ks_op_pixel_params        (const KsOp *op, const KsParams *params, KsPixelParams *out);
KsHistogramMethod _ks_op_histogram_method (const KsOp *op, const KsParams *params);

/* ks-cpu-engine.c: runs blocks in parallel on n_workers threads. */
gboolean   _ks_cpu_run                (guint n_workers, const KsKernelRun *run, GError **error);

/* ks-cuda-engine.c: one per KsEngine on a CUDA device. */
typedef struct _KsCudaContext KsCudaContext;

KsCudaContext *_ks_cuda_context_new   (int ordinal, GError **error);
void       _ks_cuda_context_free      (KsCudaContext *ctx);
gpointer   _ks_cuda_context_stream    (KsCudaContext *ctx);
gboolean   _ks_cuda_buffer_alloc      (KsCudaContext *ctx, KsBuffer *buffer, GError **error);
void       _ks_cuda_buffer_free       (KsCudaContext *ctx, KsBuffer *buffer);
gboolean   _ks_cuda_upload            (KsCudaContext *ctx, const KsImage *image, KsBuffer *buffer,
                                       double *ms, GError **error);
gboolean   _ks_cuda_download          (KsCudaContext *ctx, KsBuffer *buffer, KsImage *image,
                                       double *ms, GError **error);
gboolean   _ks_cuda_read              (KsCudaContext *ctx, const void *device_src, gsize bytes,
                                       void *host_dst, GError **error);
gboolean   _ks_cuda_fill              (KsCudaContext *ctx, KsBuffer *buffer, guint8 value,
                                       GError **error);
gboolean   _ks_cuda_attributes        (KsCudaContext *ctx, const KsKernelRun *run,
                                       KsKernelAttributes *attrs, GError **error);
gboolean   _ks_cuda_run               (KsCudaContext *ctx, const KsKernelRun *run,
                                       double *kernel_ms, GError **error);
gboolean   _ks_cuda_flush_caches      (KsCudaContext *ctx, GError **error);
void       _ks_cuda_set_flush_before_run (KsCudaContext *ctx, gboolean flush);
gboolean   _ks_cuda_copy_bandwidth    (KsCudaContext *ctx, guint64 bytes, guint repeats,
                                       KsTiming *timing, GError **error);
/* Launches a kernel that faults on purpose (tests only). */
gboolean   _ks_cuda_debug_fault       (KsCudaContext *ctx, GError **error);

/* ks-device.c */
void       _ks_cuda_mark_lost         (const char *reason);
/* Converts a CUDA error code into a GError naming the call; marks the device
 * lost on sticky errors. Returns FALSE when err is not success. */
gboolean   _ks_cuda_check             (int err, const char *call, GError **error);

/* ks-engine.c: for tests that need the fault path. */
gboolean   _ks_engine_debug_fault     (KsEngine *self, GError **error);
gpointer   _ks_engine_cuda_context    (KsEngine *self);

G_END_DECLS
