/* test-cuda-occupancy.c: the occupancy calculator of ks-launch.h (what the
 * launch panel, the sweep and `run` show) against the CUDA runtime's own,
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, for every op's kernels
 * (plain and instrumented) under every block shape of the sweep's sets. Both
 * must give the same number of resident blocks per multiprocessor; a shape
 * the device refuses is counted, not compared. Exits 77 without a GPU. */
#include "config.h"

#include <string.h>

#include "ks-sweep.h"
#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static KsEngine *engine;

typedef struct
{
  guint compared;
  guint refused;
  guint mismatched;
} Counts;

static void
compare_op (const KsOp *op, const GArray *blocks, gboolean instrument, Counts *counts)
{
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 1920, 1080, 11);
  g_autoptr (KsBuffer) in0 = NULL;
  g_autoptr (KsBuffer) in1 = NULL;
  g_autoptr (GError) error = NULL;
  const KsDeviceLimits *limits = ks_device_get_limits (ks_engine_get_device (engine));

  in0 = ks_engine_upload (engine, image, NULL, &error);
  g_assert_no_error (error);
  if (op->n_inputs > 1)
    {
      in1 = ks_engine_upload (engine, image, NULL, &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < blocks->len; i++)
    {
      KsRunRequest request;
      KsLaunchConfig resolved, suggestion;
      KsKernelAttributes attrs;
      KsOccupancy ours;
      g_autoptr (GError) local = NULL;
      guint theirs = 0;

      ks_run_request_init (&request, op);
      request.inputs[0] = in0;
      request.inputs[1] = in1;
      request.instrument = instrument;
      request.launch.block = g_array_index (blocks, KsDim3, i);
      if (!ks_engine_validate (engine, &request, &resolved, &suggestion, &local))
        {
          g_assert_error (local, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
          counts->refused++;
          continue;
        }
      g_assert_true (ks_engine_kernel_attributes (engine, &request, &attrs, &local));
      g_assert_no_error (local);
      ks_launch_occupancy (&resolved, limits, &attrs, &ours);
      g_assert_true (ks_engine_cuda_active_blocks (engine, &request, &theirs, &local));
      g_assert_no_error (local);
      counts->compared++;
      if (ours.active_blocks_per_sm != theirs)
        {
          counts->mismatched++;
          g_test_message ("%s%s block %u×%u×%u: ours %u blocks per SM (%s, %u registers, "
                          "%" G_GUINT64_FORMAT " B shared), the runtime's %u", op->id,
                          instrument ? " (instrumented)" : "", request.launch.block.x,
                          request.launch.block.y, request.launch.block.z,
                          ours.active_blocks_per_sm, ks_occupancy_limit_describe (ours.limiter),
                          attrs.num_regs, attrs.shared_static + attrs.shared_dynamic, theirs);
        }
    }
}

static void
test_every_op (void)
{
  const KsDeviceLimits *limits = ks_device_get_limits (ks_engine_get_device (engine));
  g_autoptr (GArray) blocks = ks_sweep_blocks (KS_SWEEP_POWERS_OF_TWO, limits);
  g_autoptr (GArray) presets = ks_sweep_blocks (KS_SWEEP_PRESETS, limits);
  /* Shapes that are no power of two, and ones below a warp. */
  static const KsDim3 odd[] = { { 24, 3, 1 }, { 13, 7, 1 }, { 96, 5, 1 }, { 17, 1, 1 },
                                { 8, 2, 1 }, { 1000, 1, 1 }, { 8, 8, 4 } };
  Counts counts = { 0, 0, 0 };

  g_array_append_vals (blocks, presets->data, presets->len);
  g_array_append_vals (blocks, odd, G_N_ELEMENTS (odd));
  for (guint i = 0; i < ks_op_registry_count (); i++)
    for (int instrument = 0; instrument <= 1; instrument++)
      compare_op (ks_op_registry_get (i), blocks, instrument, &counts);
  g_test_message ("%u op × block pairs compared with cudaOccupancyMaxActiveBlocksPerMultiprocessor"
                  " (%u shapes, every op plain and instrumented): %u differ; %u refused by the "
                  "device", counts.compared, blocks->len, counts.mismatched, counts.refused);
  g_assert_cmpuint (counts.compared, >, 0);
  g_assert_cmpuint (counts.mismatched, ==, 0);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) device = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_cuda_available (&error)
      || (device = ks_device_get_cuda (0, &error)) == NULL
      || (engine = ks_engine_new (device, &error)) == NULL)
    {
      g_print ("1..0 # SKIP CUDA is not available: %s\n", error->message);
      return 77;
    }
  g_test_add_func ("/ks/cuda/occupancy/every-op-every-block", test_every_op);
  ret = g_test_run ();
  g_object_unref (engine);
  return ret;
}
