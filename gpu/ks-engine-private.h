/* ks-engine-private.h: what the engine's files share; not installed, not for ui/ or app/. */
#pragma once

#include "ks-engine.h"
#include "ks-op.h"
#include "ks-filter.h"
#include "ks-op-list.h"
#include "ks-resize.h"

G_BEGIN_DECLS

typedef enum
{
  KS_IMPL_ELEMENTWISE = 1, /* one pass of ks_cuda_elementwise_launch; id: KsElementwiseId */
  KS_IMPL_HISTOGRAM = 2,   /* method from the op's "method" parameter */
  KS_IMPL_EQUALIZE = 3,    /* a histogram of the input, then an element-wise LUT pass */
  KS_IMPL_FILTER = 4,      /* a neighbourhood filter (ks-filter.h) */
  KS_IMPL_RESIZE = 5,      /* resampling to the size in the parameters (ks-resize.h) */
} KsImplKind;

typedef struct _KsKernelRun KsKernelRun;

/* How the engines run an op; every registry entry points to one. */
typedef struct _KsOpImpl
{
  KsImplKind kind;
  int id;                  /* KsElementwiseId for element-wise ops */
  gboolean accepts_gray;   /* GRAY8 inputs too (the histogram, Sobel) */
  /* Converts the typed parameters for the kernels (run->pixel_params, filter,
   * resize, histogram_method, ew_id); NULL when there is nothing to convert. */
  void (*prepare) (const KsParams *params, KsKernelRun *run);
  /* The output size; NULL: the input's. */
  void (*output_size) (const KsParams *params, guint in_width, guint in_height,
                       guint *out_width, guint *out_height);
  /* KS_IMPL_EQUALIZE: the lookup tables (run->pixel_params.lut, run->ew_id)
   * from the input's histograms [4][256] of `pixels` pixels. */
  void (*equalize) (const KsParams *params, guint32 (*histogram)[256], guint64 pixels,
                    KsKernelRun *run);
} KsOpImpl;

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
struct _KsKernelRun
{
  const KsOp *op;
  KsImplKind kind;                /* op->impl->kind, or what a pass of it runs */
  int ew_id;                      /* element-wise passes: KsElementwiseId */
  KsPixelParams pixel_params;
  KsHistogramMethod histogram_method;
  KsFilterParams filter;
  KsResizeParams resize;
  KsGeometry geom;                /* covers the output */
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;               /* image ops */
  guint32 (*histogram)[256];      /* histogram ops: [4][256] on the host */
  gboolean instrument;            /* run the instrumented kernel variant */
  KsCoverage *coverage;           /* when instrumenting: allocated by the engine, arrays zeroed */
};

/* ks-op-registry.c: fills the op-specific part of run from the parameters. */
void       _ks_op_prepare             (const KsOp *op, const KsParams *params, KsKernelRun *run);

/* ks-cpu-engine.c: runs blocks in parallel on n_workers threads. */
gboolean   _ks_cpu_run                (guint n_workers, const KsKernelRun *run, GError **error);
/* Output pixels [x0, x0 + n) of row y of a filter or a resize (the spans the
 * CPU engine's threads own; ks-cpu-filter.c, ks-cpu-resize.c). */
void       _ks_cpu_filter_span        (const KsKernelRun *run, guint x0, guint y, guint n);
void       _ks_cpu_resize_span        (const KsKernelRun *run, guint x0, guint y, guint n);
/* A filter over `rows` rows of n pixels from (x0, y0), a row at a time:
 * the columns pass straight from the source rows, then the rows pass. */
void       _ks_cpu_filter_rect        (const KsKernelRun *run, guint x0, guint y0, guint n,
                                       guint rows);

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
void       _ks_cuda_set_flush_before_run (KsCudaContext *ctx, KsCacheFlush flush);
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
