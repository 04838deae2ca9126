/* ks-engine-private.h: what the engine's files share; not installed, not for ui/ or app/. */
#pragma once

#include "ks-engine.h"
#include "ks-op.h"
#include "ks-op-list.h"

G_BEGIN_DECLS

/* A clock on a CUDA stream (ks_clock_new makes one for an engine): flush
 * evicts the caches before a span when the clock is asked to (owner is its
 * first argument). */
typedef gboolean (*KsClockFlushFunc) (gpointer owner, KsCacheFlush flush, GError **error);
KsClock   *_ks_clock_new_stream       (int device, gpointer stream, KsClockFlushFunc flush,
                                       gpointer owner);

typedef struct _KsKernelRun KsKernelRun;
typedef struct _KsCpuWorker KsCpuWorker;
typedef struct _KsCudaContext KsCudaContext;
typedef struct _KsSharedAlloc KsSharedAlloc;
struct cudaFuncAttributes;

/* How the engines run one kind of op: element-wise, histogram, filter, … —
 * the only place either engine, the benchmark or the UI learns what a kind
 * does. A kind is one gpu/ops/ks-op-*.c file (this table, its ops, its CPU code)
 * and its kernels in kernels/. */
typedef struct _KsOpKind
{
  const char *name;
  /* The CPU engine's unit of work, from its worker threads: the output (or
   * the counts) of rows [y0, y0 + rows) × columns [x0, x0 + n). Instrumented
   * and plain runs call the same function; the engine records coverage. */
  void (*cpu_rect) (KsCpuWorker *worker, const KsKernelRun *run, guint x0, guint y0, guint n,
                    guint rows);
  /* Shared memory the kernel asks for at run->geom, which the CPU engine
   * reports too, so that launch validation agrees between engines; NULL: none. */
  void (*shared_memory) (const KsKernelRun *run, KsKernelAttributes *attrs);
  /* Work before the kernel on the same engine and clock, which counts in the
   * op's time (equalisation: the input's histograms, then its tables); NULL:
   * none. It may change what run holds for the kernel. */
  gboolean (*before_run) (KsEngine *engine, KsKernelRun *run, const KsParams *params,
                          KsClock *clock, GError **error);
  /* How many times a run reads its inputs (equalisation: twice); 0 means once. */
  guint input_passes;
  /* The CUDA kernel's attributes for run->geom and run->instrument, and its
   * launch on `stream` (coverage recorded when cov.writes is set): both
   * return a cudaError_t. NULL in builds without CUDA. */
  int (*cuda_attributes) (const KsKernelRun *run, struct cudaFuncAttributes *attrs);
  int (*cuda_launch) (const KsKernelRun *run, KsCoverageBuffers cov, gpointer stream);
  /* Blocks of that kernel per multiprocessor by the CUDA runtime's occupancy
   * calculator, with `shared` bytes of dynamic shared memory (cudaError_t). */
  int (*cuda_occupancy) (const KsKernelRun *run, gsize shared, int *blocks);
  const char *cuda_launcher;  /* named in errors: "ks_cuda_filter_launch" */
  /* Appends to key what, besides the op, its element-wise function and the
   * geometry, picks the kernel a run launches (the filter and its radius, a
   * histogram's method); NULL: nothing. Compiled kernels are warmed, and
   * tested, once per key. */
  void (*kernel_variant) (const KsKernelRun *run, GString *key);
} KsOpKind;

/* NPP's peer of an op, filled in for the benchmark (ks-npp.h). */
typedef struct _KsNppPeer
{
  int function;              /* KsNppFunction */
  int order[4];              /* channel swaps: source channel per output channel */
  guint8 thresholds[3];      /* thresholds: R, G, B levels */
} KsNppPeer;

/* One op's part: which kind runs it and how its parameters become the
 * kernel's; every registry entry points to one. */
typedef struct _KsOpImpl
{
  const KsOpKind *kind;
  int id;                  /* KsElementwiseId for element-wise passes */
  gboolean accepts_gray;   /* GRAY8 inputs too (the histogram, Sobel) */
  /* Converts the typed parameters for the kernels (run->pixel_params, the
   * kind's KS_RUN_PARAMS, ew_id), for the input run->in_width ×
   * run->in_height; NULL when there is nothing to convert. */
  void (*prepare) (const KsParams *params, KsKernelRun *run);
  /* The output size; NULL: the input's. */
  void (*output_size) (const KsParams *params, guint in_width, guint in_height,
                       guint *out_width, guint *out_height);
  /* Equalisation: the lookup tables (run->pixel_params.lut, run->ew_id) from
   * the input's histograms [4][256] of `pixels` pixels. */
  void (*equalize) (const KsParams *params, guint32 (*histogram)[256], guint64 pixels,
                    KsKernelRun *run);
  /* The benchmark: the settings it runs the op in ("mode=trunc,level=128"),
   * named in the row's id by bench_tag; NULL: the defaults. */
  const char *bench_settings;
  const char *bench_tag;
  /* NPP's equivalent: npp where it is fixed, npp_peer where it depends on
   * the parameters or the input's format (FALSE: none); neither: none. */
  const KsNppPeer *npp;
  gboolean (*npp_peer) (const KsOp *op, const KsParams *params, KsFormat format,
                        KsNppPeer *peer);
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
  KsSharedAlloc *shared; /* memory OpenGL can import (ks-shared-memory.c), or NULL */
};

/* Room for a kind's parameters in a run; KS_RUN_PARAMS refuses to compile
 * for a type that does not fit. Type is const for a const run. */
#define KS_KIND_PARAMS_BYTES 1024
#define KS_RUN_PARAMS(run, Type) \
  (G_STATIC_ASSERT_EXPR (sizeof (Type) <= KS_KIND_PARAMS_BYTES), (Type *) (run)->kind_params.bytes)

/* What one run of an op needs, after the engine resolved and validated it. */
struct _KsKernelRun
{
  const KsOp *op;
  const KsOpKind *kind;           /* op->impl->kind, or what a pass of it runs */
  int ew_id;                      /* element-wise passes: KsElementwiseId */
  guint in_width, in_height;      /* the first input's size */
  KsPixelParams pixel_params;
  /* The kind's own parameters (KsFilterParams, …), which its ops' prepare
   * writes and its launchers read: KS_RUN_PARAMS (run, Type). */
  union
  {
    guint64 align_u64;
    double align_double;
    gpointer align_pointer;
    guint8 bytes[KS_KIND_PARAMS_BYTES];
  } kind_params;
  KsGeometry geom;                /* covers the output */
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;               /* image ops */
  guint32 (*histogram)[256];      /* histogram ops: [4][256] on the host */
  guint32 *device_bins;           /* histogram ops on CUDA: the counters' sets on the device */
  guint64 *bins_generation;       /* and the number of the next launch on them, which a
                                   * launch that ran advances (ks_cuda_histogram_launch) */
  gboolean instrument;            /* run the instrumented kernel variant */
  KsCoverage *coverage;           /* when instrumenting: allocated by the engine, arrays zeroed */
  GCancellable *cancellable;      /* the CPU engine checks it between units of work */
};

/* ks-op-registry.c: fills the op-specific part of run from the parameters. */
void       _ks_op_prepare             (const KsOp *op, const KsParams *params, guint in_width,
                                       guint in_height, KsKernelRun *run);
/* What picks the kernel of a prepared run: the kind, its element-wise
 * function and its kernel_variant ("filter/0/0/3"). */
char      *_ks_run_kernel_key         (const KsKernelRun *run);

/* The kinds that ops of other files use (ks-op-elementwise.c; the colour
 * ops of ks-op-color.c); the others are their own files' only. */
extern const KsOpKind _ks_kind_elementwise;
extern const KsOpKind _ks_kind_equalize;
/* The histogram op (gpu/ops/ks-op-histogram.c), whose kernel equalisation runs first. */
extern const KsOp _ks_op_histogram;

/* ks-cpu-engine.c: runs blocks in parallel on n_workers threads. */
gboolean   _ks_cpu_run                (guint n_workers, const KsKernelRun *run, GError **error);

/* Copies of each channel's bins that a CPU worker counts into in turn: runs
 * of equal values (flat image areas) would otherwise make every increment
 * wait for the store of the previous one. */
#define KS_CPU_HIST_COPIES 4

/* One CPU worker thread's own state, merged by the engine after the run. */
struct _KsCpuWorker
{
  gpointer job;                                    /* the engine's */
  guint32 hist[KS_CPU_HIST_COPIES][4][256];        /* histogram ops' counts */
  guint64 idle;                                    /* threads outside the data */
};

/* ks-op-elementwise.c: the rounded BT.601 luma of n RGBA8 pixels (plus
 * `bias`: 500 rounds, 0 truncates), vectorised; the histogram counts it too. */
void       _ks_cpu_luma_row           (const guint8 *a, guint8 *out, guint n, guint32 bias);
/* ks-cpu-filter.c, ks-cpu-resize.c: the filters' and the resize's CPU rects. */
void       _ks_cpu_filter_rect        (const KsKernelRun *run, guint x0, guint y0, guint n,
                                       guint rows);
void       _ks_cpu_resize_span        (const KsKernelRun *run, guint x0, guint y, guint n);

/* ks-engine.c: one pass of a kernel on the engine, for kinds that run
 * another kind's kernel first (the op's time includes it). */
gboolean   _ks_engine_run_pass        (KsEngine *self, const KsOp *op, KsBuffer *input,
                                       guint32 (*histogram)[256], KsClock *clock,
                                       GError **error);

/* ks-shared-memory.c: buffers whose memory OpenGL can import. The
 * allocation sets buffer->data and buffer->shared; the free waits for
 * `stream` first. The exported descriptor is the caller's to close (an
 * import into GL takes it over); *size: the bytes it covers, a multiple of
 * the device's granularity. */
gboolean   _ks_cuda_shared_alloc      (int device, KsBuffer *buffer, GError **error);
void       _ks_cuda_shared_free       (KsBuffer *buffer, gpointer stream);
int        _ks_buffer_export_fd       (const KsBuffer *buffer, gsize *size, GError **error);

/* ks-cuda-engine.c: one per KsEngine on a CUDA device. */

KsCudaContext *_ks_cuda_context_new   (int ordinal, GError **error);
void       _ks_cuda_context_free      (KsCudaContext *ctx);
gpointer   _ks_cuda_context_stream    (KsCudaContext *ctx);
gboolean   _ks_cuda_buffer_alloc      (KsCudaContext *ctx, KsBuffer *buffer, GError **error);
void       _ks_cuda_buffer_free       (KsCudaContext *ctx, KsBuffer *buffer);
/* The copies between the clock's marks. */
gboolean   _ks_cuda_upload            (KsCudaContext *ctx, const KsImage *image, KsBuffer *buffer,
                                       KsClock *clock, GError **error);
gboolean   _ks_cuda_download          (KsCudaContext *ctx, KsBuffer *buffer, KsImage *image,
                                       KsClock *clock, GError **error);
gboolean   _ks_cuda_read              (KsCudaContext *ctx, const void *device_src, gsize bytes,
                                       void *host_dst, GError **error);
gboolean   _ks_cuda_fill              (KsCudaContext *ctx, KsBuffer *buffer, guint8 value,
                                       GError **error);
gboolean   _ks_cuda_attributes        (KsCudaContext *ctx, const KsKernelRun *run,
                                       KsKernelAttributes *attrs, GError **error);
gboolean   _ks_cuda_active_blocks     (KsCudaContext *ctx, const KsKernelRun *run, guint *blocks,
                                       GError **error);
/* The kernel between the clock's marks; coverage and histograms read back after. */
gboolean   _ks_cuda_run               (KsCudaContext *ctx, const KsKernelRun *run,
                                       KsClock *clock, GError **error);
gboolean   _ks_cuda_flush_caches      (KsCudaContext *ctx, KsCacheFlush flush, GError **error);
/* Device-to-device copies of `bytes` under the timing protocol. */
gboolean   _ks_cuda_copy_bandwidth    (KsCudaContext *ctx, KsClock *clock, guint64 bytes,
                                       guint repeats, KsTiming *timing, GError **error);
/* Launches a kernel that faults on purpose (tests only). */
gboolean   _ks_cuda_debug_fault       (KsCudaContext *ctx, GError **error);

/* ks-device.c */
void       _ks_cuda_mark_lost         (const char *reason);
/* Converts a CUDA error code into a GError naming the call; marks the device
 * lost on sticky errors. Returns FALSE when err is not success. */
/* Host coverage for a width × height output (refused beyond
 * KS_COVERAGE_MAX_PIXELS), and its counts once writes[] is filled in. */
KsCoverage *_ks_coverage_new          (guint width, guint height, GError **error);
void       _ks_coverage_summarise     (KsCoverage *coverage);

gboolean   _ks_cuda_check             (int err, const char *call, GError **error);

/* ks-engine.c: for tests that need the fault path. */
gboolean   _ks_engine_debug_fault     (KsEngine *self, GError **error);
gpointer   _ks_engine_cuda_context    (KsEngine *self);

G_END_DECLS
