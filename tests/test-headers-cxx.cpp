// test-headers-cxx.cpp: the public gpu/ headers and the kernel headers that
// .cu files include, compiled as C++ and used through the C++ compiler.
#include "config.h"

#include <cstring>

#include "kernelscope.h"
#include "ks-kernel-common.h"
#include "ks-op-list.h"
#include "ks-pixel.h"
#ifdef KS_TEST_HAVE_CUDA
#include "ks-kernels.h"
#endif

static void
test_pixel_math (void)
{
  KsPixelParams params;
  std::memset (&params, 0, sizeof params);

  // Invert keeps alpha; R sits in the low byte.
  g_assert_cmphex (ks_px_invert (KS_RGBA (1, 128, 254, 77), 0, &params), ==,
                   KS_RGBA (254, 127, 1, 77));
  // BT.601: (0,255,0) is 149.685: 150 rounded, 149 truncated.
  g_assert_cmpuint (ks_luma601 (KS_RGBA (0, 255, 0, 255), 0), ==, 150);
  g_assert_cmpuint (ks_luma601 (KS_RGBA (0, 255, 0, 255), 1), ==, 149);
  for (uint32_t v = 0; v < 256; v++)
    g_assert_cmpuint (ks_luma601 (KS_RGBA (v, v, v, 0), 0), ==, v);
  // Saturating add.
  g_assert_cmphex (ks_px_add (KS_RGBA (200, 10, 0, 5), KS_RGBA (100, 20, 255, 9), &params), ==,
                   KS_RGBA (255, 30, 255, 5));
  // Blend with weights 0.5 and 0.5 in 16.16 fixed point.
  params.i[0] = 32768;
  params.i[1] = 32768;
  g_assert_cmphex (ks_px_blend (KS_RGBA (100, 0, 255, 7), KS_RGBA (200, 255, 255, 1), &params), ==,
                   KS_RGBA (150, 128, 255, 7));
  g_assert_cmpuint (ks_ceil_div_u32 (1001, 64), ==, 16);
  g_assert_cmpuint (ks_clamp_u8 (-3), ==, 0);
  g_assert_cmpuint (ks_clamp_u8 (300), ==, 255);
}

static void
test_engine_api (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, 3, 2, &error);
  KsLaunchConfig config;
  KsDim3 d;
  const KsOp *op = ks_op_registry_lookup ("invert");

  g_assert_no_error (error);
  ks_image_set_rgba (image, 2, 1, KS_RGBA (9, 8, 7, 6));
  g_assert_cmphex (ks_image_get_rgba (image, 2, 1), ==, KS_RGBA (9, 8, 7, 6));
  g_assert_true (ks_dim3_parse ("32x8", &d, &error));
  ks_launch_config_init (&config, d.x, d.y);
  g_assert_cmpuint (config.block.x * config.block.y, ==, 256);
  g_assert_nonnull (op);
  g_assert_cmpint (op->n_inputs, ==, 1);
  // The X-macro expands the same in C++: one enumerator per listed op.
  g_assert_cmpint (KS_EW_SWAP + 1, ==, KS_EW_N);
  g_assert_cmpint (KS_HIST_BINS, ==, 256);
  g_assert_true (g_error_matches (nullptr, KS_ERROR, KS_ERROR_FAILED) == FALSE);
#ifdef KS_TEST_HAVE_CUDA
  // The launchers are plain C entry points, callable from C++.
  g_assert_nonnull (reinterpret_cast<void *> (&ks_cuda_elementwise_launch));
  g_assert_nonnull (reinterpret_cast<void *> (&ks_cuda_histogram_launch));
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, nullptr);
  g_test_add_func ("/ks/headers/cxx/pixel-math", test_pixel_math);
  g_test_add_func ("/ks/headers/cxx/engine-api", test_engine_api);
  return g_test_run ();
}
