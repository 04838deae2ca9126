/* ks-bench.h: the benchmark, for the CLI and the GUI.
 *
 * Per op: random inputs (or a given image) uploaded once, a warm-up, the median kernel time of
 * many runs (CUDA events), effective GB/s (bytes read and written counted
 * once), its share of the device-to-device copy bandwidth measured in the
 * same run, and NPP's equivalent on the same device buffers where there is one.
 */
#pragma once

#include <gio/gio.h>

#include "ks-engine.h"

G_BEGIN_DECLS

#define KS_BENCH_DEFAULT_WIDTH 7680u
#define KS_BENCH_DEFAULT_HEIGHT 4320u
#define KS_BENCH_DEFAULT_REPEATS 100u
#define KS_BENCH_MIN_REPEATS_CUDA 50u
#define KS_BENCH_DEFAULT_REPEATS_CPU 10u
#define KS_BENCH_MIN_REPEATS_CPU 5u
#define KS_BENCH_DEFAULT_COPY_BYTES (G_GUINT64_CONSTANT (1) << 30)
#define KS_BENCH_COPY_REPEATS 50u

typedef enum
{
  KS_BENCH_MAPPING_OP = 0,      /* the op's own */
  KS_BENCH_MAPPING_PER_PIXEL,
  KS_BENCH_MAPPING_GRID_STRIDE,
} KsBenchMapping;

typedef struct
{
  guint width;              /* 0: KS_BENCH_DEFAULT_WIDTH */
  guint height;             /* 0: KS_BENCH_DEFAULT_HEIGHT */
  /* NULL: every op of the registry. "histogram" selects both methods,
   * "histogram[shared]" one of them. */
  const char *const *ops;
  guint repeats;            /* 0: 100 on CUDA, 10 on the CPU engine */
  guint64 copy_bytes;       /* 0: 1 GiB */
  gboolean skip_npp;
  /* Evict L2 before each timed run by overwriting a buffer, not by reading
   * it (KS_CACHE_FLUSH_WRITE): the timed kernels then also write back
   * the dirty lines the flush left. */
  gboolean dirty_flush;
  /* The launch of every op, for sweeps; zeros keep each op's own. */
  KsDim3 block;             /* {0, 0, 0}: the op's block */
  guint pixels_per_thread;  /* 0: the op's */
  KsBenchMapping mapping;
  /* An RGBA8 image every op reads instead of random data (the second input
   * of two-input ops stays random; gray ops read its luma); its size is the
   * benchmark's. NULL: random inputs of width × height. */
  const KsImage *input;
} KsBenchOptions;

void ks_bench_options_init (KsBenchOptions *options);

typedef struct
{
  char *name;               /* "nppiNot_8u_AC4R" */
  KsTiming timing;
  double gbs;
  double ratio;             /* ours / NPP, median over median: below 1 means faster */
  gboolean agrees;          /* NPP's output matched ours (gray: within 1) */
} KsBenchNpp;

typedef struct
{
  char *id;                 /* "invert", "histogram[shared]", "histogram[shared,rgba8]" */
  const KsOp *op;
  char *method;             /* the histogram's "method" choice, or NULL */
  KsFormat input_format;
  guint64 bytes;            /* ks_op_bytes_moved */
  KsLaunchConfig launch;    /* resolved: the launch that was timed */
  KsTiming timing;
  double gbs;
  double share_of_copy;     /* gbs / copy bandwidth; NAN without a copy measurement */
  KsBenchNpp *npp;          /* NULL: no equivalent, NPP missing, or skipped */
  char *npp_note;           /* why npp is NULL when NPP has an equivalent; or NULL */
  /* The shared histogram on CUDA, its two limits with the row's launch: the
   * time as many shared-memory atomics take as the image has pixels and
   * channels, at the bins uniformly random pixels meet and with nothing else
   * done (ks_cuda_shared_atomics_launch), and the time the kernel's walk and
   * loads take over the same image with nothing counted
   * (ks_cuda_histogram_read_launch); each with the row's time against it
   * (1: at the limit). NAN when not measured. */
  double atomics_limit_ms;
  double share_of_atomics_limit;
  double read_limit_ms;
  double share_of_read_limit;
} KsBenchRow;

typedef struct
{
  char *device_name;
  char *device_id;          /* "cuda:0", "cpu" */
  gboolean is_cuda;
  guint width;
  guint height;
  guint repeats;
  gboolean dirty_flush;       /* L2 was evicted by writing, not by reading */
  double peak_bandwidth_gbs;  /* the device's theoretical peak; 0 when unknown */
  double copy_gbs;            /* NAN when not measured */
  KsTiming copy_timing;
  guint64 copy_bytes;
  char *copy_note;            /* why the copy was not measured, or NULL */
  char *npp_version;          /* NULL when NPP was not used */
  char *npp_note;             /* why NPP was not used, or NULL */
  gboolean random_input;      /* FALSE: options->input was read */
  GArray *rows;               /* KsBenchRow */
} KsBenchReport;

/* Called after each row is measured (from the calling thread). */
typedef void (*KsBenchProgressFunc) (const KsBenchRow *row, guint index, guint n_rows,
                                     gpointer user_data);

KsBenchReport *ks_bench_run          (KsEngine *engine, const KsBenchOptions *options,
                                      KsBenchProgressFunc progress, gpointer user_data,
                                      GCancellable *cancellable, GError **error);
void           ks_bench_report_free  (KsBenchReport *report);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsBenchReport, ks_bench_report_free)

G_END_DECLS
