/* ks-timing.h: how Kernelscope times work — one protocol for engine runs,
 * Measure and Compare, the benchmark (ours and NPP's) and the display paths.
 *
 * A measurement is one warm-up run and then `repeats` timed runs. The warm-up
 * pays what only the first run pays (the kernel module loading lazily, first
 * touches of memory, cold caches, interop registration): its time is kept in
 * warmup_ms, flagged, and never enters the statistics. Before each timed span
 * the L2 cache may be evicted, outside the span. A run is timed with
 * CUDA events on the engine's stream, or with the monotonic clock on the CPU
 * engine, whose work is synchronous; never a host clock around asynchronous
 * work. The statistics are the median, the median absolute deviation, the
 * minimum and the maximum of the timed runs.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _KsEngine KsEngine;

/* The samples of a measurement and their statistics. */
typedef struct
{
  guint n;            /* timed runs after the warm-up */
  double warmup_ms;   /* the warm-up's time; NAN when there was none */
  double median_ms;
  double min_ms;
  double max_ms;
  double mad_ms;      /* median absolute deviation: the spread */
  double *samples_ms; /* n values, in run order */
} KsTiming;

void        ks_timing_clear        (KsTiming *timing);
/* Empties timing and makes room for `repeats` samples. */
void        ks_timing_begin        (KsTiming *timing, guint repeats);
/* Adds one run's time: the warm-up's when `warmup`, else a sample. */
void        ks_timing_add          (KsTiming *timing, double ms, gboolean warmup);
/* Fills median, min, max and mad from the samples. */
void        ks_timing_compute      (KsTiming *timing);

/* Evicting the L2 cache before a timed span, so that repeated runs read their
 * input from device memory and not from L2 (an 8K gray image fits in an
 * H200's L2). CUDA only. READ reads a scratch buffer twice the L2's size: L2
 * is left holding clean lines, and the timed run moves only its own bytes.
 * WRITE overwrites it (a memset, as some benchmark harnesses do): L2 is left
 * full of dirty lines, which the timed run writes back as it evicts them, a
 * fixed cost of up to the L2's size in writes. */
typedef enum
{
  KS_CACHE_FLUSH_NONE = 0,
  KS_CACHE_FLUSH_READ,
  KS_CACHE_FLUSH_WRITE,
} KsCacheFlush;

/* Marks on an engine's timeline: CUDA events on its stream, or the monotonic
 * clock for the CPU engine. Up to four start/stop spans add up to one time. */
typedef struct _KsClock KsClock;

KsClock    *ks_clock_new           (KsEngine *engine, GError **error);
void        ks_clock_free          (KsClock *clock);
/* The host's monotonic clock whatever the engine: for work that is the
 * host's own (a whole displayed frame, with its waits). */
KsClock    *ks_clock_new_host      (void);
/* Evict the L2 cache before every span (CUDA clocks only). */
void        ks_clock_set_flush     (KsClock *clock, KsCacheFlush flush);
gboolean    ks_clock_start         (KsClock *clock, GError **error);
gboolean    ks_clock_stop          (KsClock *clock, GError **error);
/* Waits for the last stop mark; the milliseconds inside the spans since the
 * last call. */
gboolean    ks_clock_elapsed       (KsClock *clock, double *ms, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsClock, ks_clock_free)

/* One run of the work being measured. It enqueues the work and brackets
 * what is timed with ks_clock_start and ks_clock_stop (set-up before a start
 * mark and read-back after a stop mark are not timed). */
typedef gboolean (*KsTimedFunc) (KsClock *clock, gpointer user_data, GError **error);

/* After each run: `done` of `total` runs (the warm-up included). Called from
 * the thread that measures. */
typedef void (*KsProgressFunc) (guint done, guint total, gpointer user_data);

typedef struct
{
  guint repeats;              /* timed runs after the warm-up; at least 1 */
  KsCacheFlush flush;         /* before every span, outside it (ks_clock_set_flush) */
  GCancellable *cancellable;  /* checked before every run: G_IO_ERROR_CANCELLED */
  KsProgressFunc progress;
  gpointer progress_data;
} KsTimingOptions;

void        ks_timing_options_init (KsTimingOptions *options, guint repeats);

/* The protocol: the warm-up, then options->repeats timed runs of func, with
 * the statistics in *timing. On failure or cancellation *timing holds the
 * runs made so far, with statistics. */
gboolean    ks_timing_measure      (KsEngine *engine, const KsTimingOptions *options,
                                    KsTimedFunc func, gpointer user_data, KsTiming *timing,
                                    GError **error);
/* The same protocol on a clock of the caller's (ks_timing_measure makes one
 * on the engine: ks-engine.c). */
gboolean    ks_timing_measure_clock (KsClock *clock, const KsTimingOptions *options,
                                     KsTimedFunc func, gpointer user_data, KsTiming *timing,
                                     GError **error);

G_END_DECLS
