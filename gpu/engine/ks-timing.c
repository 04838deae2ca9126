#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median_of_sorted (const double *v, guint n)
{
  if (n == 0)
    return NAN;
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void
ks_timing_clear (KsTiming *timing)
{
  g_clear_pointer (&timing->samples_ms, g_free);
  memset (timing, 0, sizeof *timing);
}

void
ks_timing_begin (KsTiming *timing, guint repeats)
{
  ks_timing_clear (timing);
  timing->warmup_ms = NAN;
  timing->samples_ms = g_new0 (double, MAX (1, repeats));
  timing->median_ms = timing->min_ms = timing->max_ms = timing->mad_ms = NAN;
}

void
ks_timing_add (KsTiming *timing, double ms, gboolean warmup)
{
  if (warmup)
    {
      timing->warmup_ms = ms;
      return;
    }
  g_return_if_fail (timing->samples_ms != NULL);
  timing->samples_ms[timing->n++] = ms;
}

void
ks_timing_compute (KsTiming *timing)
{
  g_autofree double *sorted = NULL;
  guint n = timing->n;

  if (n == 0 || timing->samples_ms == NULL)
    {
      timing->median_ms = timing->min_ms = timing->max_ms = timing->mad_ms = NAN;
      return;
    }
  sorted = g_memdup2 (timing->samples_ms, n * sizeof (double));
  qsort (sorted, n, sizeof (double), cmp_double);
  timing->min_ms = sorted[0];
  timing->max_ms = sorted[n - 1];
  timing->median_ms = median_of_sorted (sorted, n);
  for (guint i = 0; i < n; i++)
    sorted[i] = fabs (sorted[i] - timing->median_ms);
  qsort (sorted, n, sizeof (double), cmp_double);
  timing->mad_ms = median_of_sorted (sorted, n);
}

/* ---- clocks --------------------------------------------------------------- */

/* Spans between ks_clock_elapsed calls: equalisation times two kernels with a
 * host round trip between them, which must not count. */
#define MAX_SPANS 4

struct _KsClock
{
  KsClockFlushFunc flush_func;     /* NULL for the host's clock */
  gpointer flush_owner;            /* borrowed: the engine that made the clock */
  KsCacheFlush flush;              /* before every span */
  gpointer stream;                 /* cudaStream_t; NULL: the monotonic clock */
  gpointer events[2 * MAX_SPANS];  /* cudaEvent_t, created on first use */
  guint n_marks;
  gint64 start_us;
  double host_ms;                  /* the host's finished spans */
  int device;
};

KsClock *
ks_clock_new_host (void)
{
  return g_new0 (KsClock, 1);
}

static gboolean
unbalanced (GError **error)
{
  g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
               "A clock takes up to %u spans, each started before it is stopped", MAX_SPANS);
  return FALSE;
}

static gboolean
check_mark (KsClock *clock, gboolean start, GError **error)
{
  if ((clock->n_marks % 2 == 0) != start || clock->n_marks == 2 * MAX_SPANS)
    return unbalanced (error);
  return TRUE;
}

#if HAVE_CUDA
#define CHECK(call, error) _ks_cuda_check ((int) (call), #call, error)
#endif

KsClock *
_ks_clock_new_stream (int device, gpointer stream, KsClockFlushFunc flush, gpointer owner)
{
  KsClock *clock = ks_clock_new_host ();

  clock->device = device;
  clock->stream = stream;
  clock->flush_func = flush;
  clock->flush_owner = owner;
  return clock;
}

void
ks_clock_free (KsClock *clock)
{
  if (clock == NULL)
    return;
#if HAVE_CUDA
  /* After a sticky error every call fails; there is nothing left to release. */
  if (clock->stream != NULL && ks_cuda_lost_reason () == NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (clock->events); i++)
        if (clock->events[i] != NULL)
          cudaEventDestroy ((cudaEvent_t) clock->events[i]);
      (void) cudaGetLastError ();
    }
#endif
  g_free (clock);
}

/* An event on the stream for CUDA clocks (created on first use). */
static gboolean
record (KsClock *clock, GError **error)
{
#if HAVE_CUDA
  gpointer *event = &clock->events[clock->n_marks];

  if (*event == NULL)
    {
      cudaEvent_t e;

      if (!CHECK (cudaSetDevice (clock->device), error) || !CHECK (cudaEventCreate (&e), error))
        return FALSE;
      *event = e;
    }
  return CHECK (cudaEventRecord ((cudaEvent_t) *event, (cudaStream_t) clock->stream), error);
#else
  g_assert_not_reached ();
  return FALSE;
#endif
}

/* The spans' milliseconds, once the last event has happened. */
static gboolean
cuda_spans (KsClock *clock, guint n, double *ms, GError **error)
{
#if HAVE_CUDA
  double total = 0;

  if (n > 0 && !CHECK (cudaEventSynchronize ((cudaEvent_t) clock->events[n - 1]), error))
    return FALSE;
  for (guint i = 0; i < n; i += 2)
    {
      float f = 0;

      if (!CHECK (cudaEventElapsedTime (&f, (cudaEvent_t) clock->events[i],
                                        (cudaEvent_t) clock->events[i + 1]), error))
        return FALSE;
      total += f;
    }
  *ms = total;
  return TRUE;
#else
  g_assert_not_reached ();
  return FALSE;
#endif
}

static gboolean
mark (KsClock *clock, gboolean start, GError **error)
{
  if (!check_mark (clock, start, error))
    return FALSE;
  if (clock->stream != NULL)
    {
      if (!record (clock, error))
        return FALSE;
    }
  else if (start)
    clock->start_us = g_get_monotonic_time ();
  else
    clock->host_ms += (double) (g_get_monotonic_time () - clock->start_us) / 1000.0;
  clock->n_marks++;
  return TRUE;
}

gboolean
ks_clock_elapsed (KsClock *clock, double *ms, GError **error)
{
  guint n = clock->n_marks;

  clock->n_marks = 0;
  if (n % 2 != 0)
    return unbalanced (error);
  if (clock->stream != NULL)
    return cuda_spans (clock, n, ms, error);
  *ms = clock->host_ms;
  clock->host_ms = 0;
  return TRUE;
}

void
ks_clock_set_flush (KsClock *clock, KsCacheFlush flush)
{
  g_return_if_fail (clock != NULL);
  clock->flush = clock->flush_func != NULL ? flush : KS_CACHE_FLUSH_NONE;
}

gboolean
ks_clock_start (KsClock *clock, GError **error)
{
  /* The eviction is queued before the start mark: it is not timed, and it
   * keeps the GPU busy up to the mark, so that no span also times the host
   * launching the work that follows the mark. */
  if (clock->flush != KS_CACHE_FLUSH_NONE && clock->n_marks % 2 == 0
      && !clock->flush_func (clock->flush_owner, clock->flush, error))
    return FALSE;
  return mark (clock, TRUE, error);
}

gboolean
ks_clock_stop (KsClock *clock, GError **error)
{
  return mark (clock, FALSE, error);
}

/* ---- the protocol ---------------------------------------------------------- */

void
ks_timing_options_init (KsTimingOptions *options, guint repeats)
{
  memset (options, 0, sizeof *options);
  options->repeats = MAX (1, repeats);
}

gboolean
ks_timing_measure_clock (KsClock *clock, const KsTimingOptions *options, KsTimedFunc func,
                         gpointer user_data, KsTiming *timing, GError **error)
{
  guint repeats, total;
  gboolean ok = TRUE;

  g_return_val_if_fail (clock != NULL && options != NULL && func != NULL, FALSE);
  g_return_val_if_fail (timing != NULL, FALSE);
  repeats = MAX (1, options->repeats);
  total = repeats + 1;
  ks_timing_begin (timing, repeats);
  ks_clock_set_flush (clock, options->flush);
  for (guint i = 0; i < total && ok; i++)
    {
      double ms = 0;

      ok = !g_cancellable_set_error_if_cancelled (options->cancellable, error)
           && func (clock, user_data, error) && ks_clock_elapsed (clock, &ms, error);
      if (!ok)
        break;
      ks_timing_add (timing, ms, i == 0);
      if (options->progress != NULL)
        options->progress (i + 1, total, options->progress_data);
    }
  ks_timing_compute (timing);
  return ok;
}
