#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-engine.h"

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
