/* The timing protocol (gpu/engine/ks-timing.h) on the CPU engine: the warm-up is
 * flagged and never a sample, progress counts every run, cancellation stops
 * between runs, and a clock adds up its spans. */
#include "config.h"

#include <math.h>

#include "ks-test-helpers.h"
#include "ks-op-registry.h"

typedef struct
{
  guint calls;
  guint progress_calls;
  guint last_done;
  guint last_total;
  guint cancel_after;        /* 0: never */
  GCancellable *cancellable;
} Counter;

static gboolean
count_run (KsClock *clock, gpointer user_data, GError **error)
{
  Counter *c = user_data;

  c->calls++;
  return ks_clock_start (clock, error) && ks_clock_stop (clock, error);
}

static void
on_progress (guint done, guint total, gpointer user_data)
{
  Counter *c = user_data;

  c->progress_calls++;
  c->last_done = done;
  c->last_total = total;
  if (c->cancel_after != 0 && done == c->cancel_after)
    g_cancellable_cancel (c->cancellable);
}

static void
test_protocol_warmup (void)
{
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();
  g_autoptr (GError) error = NULL;
  KsTimingOptions options;
  KsTiming timing = { 0 };
  Counter c = { 0 };

  ks_timing_options_init (&options, 7);
  options.progress = on_progress;
  options.progress_data = &c;
  g_assert_true (ks_timing_measure (engine, &options, count_run, &c, &timing, &error));
  g_assert_no_error (error);
  /* One warm-up and seven samples: the warm-up is kept apart. */
  g_assert_cmpuint (c.calls, ==, 8);
  g_assert_cmpuint (timing.n, ==, 7);
  g_assert_false (isnan (timing.warmup_ms));
  g_assert_cmpuint (c.progress_calls, ==, 8);
  g_assert_cmpuint (c.last_done, ==, 8);
  g_assert_cmpuint (c.last_total, ==, 8);
  g_assert_cmpfloat (timing.min_ms, <=, timing.median_ms);
  g_assert_cmpfloat (timing.median_ms, <=, timing.max_ms);
  ks_timing_clear (&timing);
}

static void
test_protocol_cancel (void)
{
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  KsTimingOptions options;
  KsTiming timing = { 0 };
  Counter c = { 0 };

  c.cancel_after = 4;
  c.cancellable = cancellable;
  ks_timing_options_init (&options, 1000);
  options.cancellable = cancellable;
  options.progress = on_progress;
  options.progress_data = &c;
  g_assert_false (ks_timing_measure (engine, &options, count_run, &c, &timing, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* Stopped before the fifth run; the runs made so far keep their statistics. */
  g_assert_cmpuint (c.calls, ==, 4);
  g_assert_cmpuint (timing.n, ==, 3);
  g_assert_false (isnan (timing.median_ms));
  ks_timing_clear (&timing);
}

static void
test_clock_spans (void)
{
  g_autoptr (KsClock) clock = ks_clock_new_host ();
  g_autoptr (GError) error = NULL;
  double ms = -1;

  /* Two spans of at least 2 ms each, with a pause between them that must not count. */
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (ks_clock_start (clock, &error));
      g_usleep (2000);
      g_assert_true (ks_clock_stop (clock, &error));
      g_usleep (1000);
    }
  g_assert_true (ks_clock_elapsed (clock, &ms, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, >=, 4.0);
  /* The spans are gone once read. */
  g_assert_true (ks_clock_elapsed (clock, &ms, &error));
  g_assert_cmpfloat (ms, ==, 0.0);
  /* A stop without a start is a mistake the clock names. */
  g_assert_false (ks_clock_stop (clock, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_FAILED);
}

static void
test_measure_run (void)
{
  g_autoptr (KsEngine) engine = ks_test_cpu_engine ();
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 67, 31, g_test_rand_int ());
  g_autoptr (KsBuffer) input = NULL;
  g_autoptr (GError) error = NULL;
  KsRunRequest request;
  KsRunResult result = { 0 };
  KsTimingOptions options;
  KsTiming timing = { 0 };

  input = ks_engine_upload (engine, image, NULL, &error);
  g_assert_no_error (error);
  ks_run_request_init (&request, ks_op_registry_lookup ("equalize"));
  request.inputs[0] = input;
  ks_timing_options_init (&options, 5);
  g_assert_true (ks_engine_measure (engine, &request, &options, &result, &timing, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (timing.n, ==, 5);
  g_assert_nonnull (result.output);
  /* The result's time is its own run's, one of the samples. */
  g_assert_cmpfloat (result.kernel_ms, ==, timing.samples_ms[4]);
  ks_run_result_clear (&result);
  ks_timing_clear (&timing);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ks/timing/protocol/warmup-apart", test_protocol_warmup);
  g_test_add_func ("/ks/timing/protocol/cancel", test_protocol_cancel);
  g_test_add_func ("/ks/timing/clock/spans", test_clock_spans);
  g_test_add_func ("/ks/timing/engine/measure", test_measure_run);
  return g_test_run ();
}
