/* test-interop.c: CUDA–OpenGL interop on a headless EGL context that renders
 * on the CUDA device. Op results (invert, gray, add) on random images of odd
 * sizes go into GL textures through a registered pixel buffer and through a
 * registered texture; GL reads them back and they must equal the engine's
 * download of the same buffer, byte for byte. In shared-memory mode the ops
 * write GL's own memory: what a shader samples from it must equal the
 * download too, also after a second op into the same buffer. Then a resize (re-registration),
 * and a free that leaves no CUDA or GL error behind.
 *
 * Without CUDA, or without an EGL context on the CUDA device, it prints a TAP
 * plan of 0 with the reason and exits 77, which meson reports as skipped. */
#include "config.h"

#include <string.h>

#include <epoxy/gl.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-egl.h"
#include "ks-interop.h"
#include "ks-test-helpers.h"
#include "ks-op-registry.h"

static KsEngine *gpu;
static KsEglContext *egl;

/* Texture poison: neither the engine's output poison nor likely in a result,
 * so a texture the upload did not write cannot pass for one it did. */
#define TEXTURE_POISON 0x5A

static const guint sizes[][2] = { { 333, 197 }, { 1920, 1080 } };

static const char *const ops[] = { "invert", "gray", "add" };

static const char *
mode_name (KsInteropMode mode)
{
  return mode == KS_INTEROP_PIXEL_BUFFER ? "pixel buffer" : "texture";
}

static KsBuffer *
upload_random (KsFormat format, guint width, guint height, const char *what)
{
  g_autoptr (KsImage) image = ks_test_random_image (format, width, height,
                                                    ks_test_next_seed (what));
  g_autoptr (GError) error = NULL;
  KsBuffer *buffer = ks_engine_upload (gpu, image, NULL, &error);

  g_assert_no_error (error);
  return buffer;
}

/* Runs op on a (and b) into a new buffer poisoned first. */
static KsBuffer *
run_op (const char *op_id, KsBuffer *a, KsBuffer *b)
{
  const KsOp *op = ks_op_registry_lookup (op_id);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) output = NULL;
  KsRunRequest request;
  KsRunResult result;

  g_assert_nonnull (op);
  ks_run_request_init (&request, op);
  request.inputs[0] = a;
  request.inputs[1] = op->n_inputs > 1 ? b : NULL;
  output = ks_engine_new_buffer (gpu, op->output_format, ks_buffer_get_width (a),
                                 ks_buffer_get_height (a), &error);
  g_assert_no_error (error);
  g_assert_true (ks_engine_fill (gpu, output, KS_TEST_POISON, &error));
  g_assert_no_error (error);
  request.output = output;
  g_assert_true (ks_engine_run (gpu, &request, &result, &error));
  g_assert_no_error (error);
  ks_run_result_clear (&result);
  return g_steal_pointer (&output);
}

static void
poison_texture (GLuint texture)
{
  GLuint fbo = 0;

  glGenFramebuffers (1, &fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  g_assert_cmphex (glCheckFramebufferStatus (GL_FRAMEBUFFER), ==, GL_FRAMEBUFFER_COMPLETE);
  glClearColor (TEXTURE_POISON / 255.0f, TEXTURE_POISON / 255.0f, TEXTURE_POISON / 255.0f,
                TEXTURE_POISON / 255.0f);
  glClear (GL_COLOR_BUFFER_BIT);
  glBindFramebuffer (GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers (1, &fbo);
  g_assert_cmphex (glGetError (), ==, GL_NO_ERROR);
}

static void
assert_no_pending_errors (void)
{
  g_assert_cmphex (glGetError (), ==, GL_NO_ERROR);
#if HAVE_CUDA
  g_assert_cmpint (cudaPeekAtLastError (), ==, cudaSuccess);
#endif
}

/* Uploads buffer through interop into texture and compares what GL holds with
 * what the engine downloads. `poison`: the texture already has this size and
 * format (a previous upload made it), so poison it first. */
static void
check_upload (KsInterop *interop, GLuint texture, KsBuffer *buffer, gboolean poison,
              const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) expected = NULL;
  g_autoptr (KsImage) actual = NULL;
  guint w = ks_buffer_get_width (buffer), h = ks_buffer_get_height (buffer);
  KsFormat format = ks_buffer_get_format (buffer);
  double ms = -1;
  GLint binding = -1, row_length = -1;

  if (poison)
    poison_texture (texture);
  g_assert_true (ks_interop_upload (interop, buffer, texture, &ms, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ms, >, 0);
  g_test_message ("%s: %u×%u %s, map + copy + unmap %.3f ms", what, w, h,
                  ks_format_name (format), ms);

  /* The GL state a GtkGLArea relies on is as it was. */
  glGetIntegerv (GL_PIXEL_UNPACK_BUFFER_BINDING, &binding);
  glGetIntegerv (GL_UNPACK_ROW_LENGTH, &row_length);
  g_assert_cmpint (binding, ==, 0);
  g_assert_cmpint (row_length, ==, 0);

  expected = ks_engine_download (gpu, buffer, NULL, &error);
  g_assert_no_error (error);
  actual = ks_egl_read_texture (texture, format, w, h, &error);
  g_assert_no_error (error);
  ks_test_assert_images_equal (expected, actual, what);
  assert_no_pending_errors ();
}

static KsInterop *
new_interop (KsInteropMode mode)
{
  g_autoptr (GError) error = NULL;
  KsInterop *interop = ks_interop_new (gpu, mode, &error);

  g_assert_no_error (error);
  g_assert_nonnull (interop);
  return interop;
}

/* Every op at every size through one interop object and one texture: each
 * change of size or format re-registers. */
static void
test_ops (gconstpointer data)
{
  KsInteropMode mode = GPOINTER_TO_INT (data);
  g_autoptr (KsInterop) interop = new_interop (mode);
  GLuint texture = 0;
  guint last_w = 0, last_h = 0;
  KsFormat last_format = KS_FORMAT_RGBA8;

  glGenTextures (1, &texture);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint w = sizes[s][0], h = sizes[s][1];
      g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, w, h, "a");
      g_autoptr (KsBuffer) b = upload_random (KS_FORMAT_RGBA8, w, h, "b");

      for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
        {
          g_autoptr (KsBuffer) out = run_op (ops[o], a, b);
          g_autofree char *what = g_strdup_printf ("%s through the %s", ops[o], mode_name (mode));
          KsFormat format = ks_buffer_get_format (out);

          if (g_str_equal (ops[o], "gray"))
            g_assert_cmpint (format, ==, KS_FORMAT_GRAY8);
          /* Uploaded twice: into fresh storage, then over a poisoned texture of that size. */
          check_upload (interop, texture, out, last_w == w && last_h == h && last_format == format,
                        what);
          check_upload (interop, texture, out, TRUE, what);
          last_w = w;
          last_h = h;
          last_format = format;
        }
    }
  g_clear_pointer (&interop, ks_interop_free);
  glDeleteTextures (1, &texture);
  assert_no_pending_errors ();
}

/* New sizes through one interop, then back to the first one. */
static void
test_resize (gconstpointer data)
{
  static const guint steps[][2] = { { 333, 197 }, { 1920, 1080 }, { 64, 47 }, { 333, 197 } };
  KsInteropMode mode = GPOINTER_TO_INT (data);
  g_autoptr (KsInterop) interop = new_interop (mode);
  GLuint texture = 0;

  glGenTextures (1, &texture);
  for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
    {
      g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, steps[s][0], steps[s][1], "a");
      g_autoptr (KsBuffer) out = run_op ("invert", a, NULL);
      g_autofree char *what = g_strdup_printf ("resize step %u through the %s", s,
                                               mode_name (mode));

      check_upload (interop, texture, out, FALSE, what);
      check_upload (interop, texture, out, TRUE, what);
    }
  g_clear_pointer (&interop, ks_interop_free);
  glDeleteTextures (1, &texture);
  assert_no_pending_errors ();
}

/* Two interops, one per texture, alternately: each keeps its own registration. */
static void
test_two_views (gconstpointer data)
{
  KsInteropMode mode = GPOINTER_TO_INT (data);
  g_autoptr (KsInterop) first = new_interop (mode);
  g_autoptr (KsInterop) second = new_interop (mode);
  g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, 333, 197, "a");
  g_autoptr (KsBuffer) b = upload_random (KS_FORMAT_RGBA8, 333, 197, "b");
  g_autoptr (KsBuffer) inverted = run_op ("invert", a, NULL);
  g_autoptr (KsBuffer) gray = run_op ("gray", b, NULL);
  GLuint textures[2] = { 0, 0 };

  glGenTextures (2, textures);
  for (guint i = 0; i < 3; i++)
    {
      check_upload (first, textures[0], inverted, i > 0, "first view, invert");
      check_upload (second, textures[1], gray, i > 0, "second view, gray");
    }
  g_clear_pointer (&first, ks_interop_free);
  g_clear_pointer (&second, ks_interop_free);
  glDeleteTextures (2, textures);
  assert_no_pending_errors ();
}

/* Free unregisters: no error left behind, the engine still works, and the
 * same texture can be registered again by a new interop. */
static void
test_free (gconstpointer data)
{
  KsInteropMode mode = GPOINTER_TO_INT (data);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, 333, 197, "a");
  g_autoptr (KsBuffer) out = run_op ("invert", a, NULL);
  g_autoptr (KsImage) image = NULL;
  GLuint texture = 0;

  glGenTextures (1, &texture);
  for (guint round = 0; round < 3; round++)
    {
      KsInterop *interop = new_interop (mode);

      check_upload (interop, texture, out, round > 0, "before free");
      ks_interop_free (interop);
      assert_no_pending_errors ();
      g_assert_true (ks_engine_check_usable (gpu, &error));
      g_assert_no_error (error);
    }
#if HAVE_CUDA
  g_assert_cmpint (cudaGetLastError (), ==, cudaSuccess);
  g_assert_cmpint (cudaDeviceSynchronize (), ==, cudaSuccess);
#endif
  image = ks_engine_download (gpu, out, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (image);
  glDeleteTextures (1, &texture);
  assert_no_pending_errors ();
}

static void
test_describe (void)
{
  const char *device = ks_device_get_name (ks_engine_get_device (gpu));
  g_autoptr (KsInterop) pbo = new_interop (KS_INTEROP_PIXEL_BUFFER);
  g_autoptr (KsInterop) tex = new_interop (KS_INTEROP_TEXTURE);

  g_test_message ("GL: %s", ks_egl_context_describe (egl));
  g_test_message ("%s; %s", ks_interop_describe (pbo), ks_interop_describe (tex));
  g_assert_nonnull (strstr (ks_interop_describe (pbo), "pixel buffer"));
  g_assert_nonnull (strstr (ks_interop_describe (pbo), device));
  g_assert_nonnull (strstr (ks_interop_describe (tex), "texture"));
  g_assert_nonnull (strstr (ks_interop_describe (tex), device));
}

static void
test_cpu_engine_unavailable (void)
{
  g_autoptr (KsEngine) cpu = ks_test_cpu_engine ();
  g_autoptr (GError) error = NULL;
  KsInterop *interop = ks_interop_new (cpu, KS_INTEROP_PIXEL_BUFFER, &error);

  g_assert_null (interop);
  g_assert_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE);
  ks_test_assert_message_has (error, "CPU engine", NULL);
}

/* A buffer of another engine is refused with the reason, nothing touched. */
static void
test_foreign_buffer (void)
{
  g_autoptr (KsEngine) cpu = ks_test_cpu_engine ();
  g_autoptr (KsInterop) interop = new_interop (KS_INTEROP_PIXEL_BUFFER);
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 33, 17, 7);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) host = ks_engine_upload (cpu, image, NULL, &error);
  GLuint texture = 0;

  g_assert_no_error (error);
  glGenTextures (1, &texture);
  g_assert_false (ks_interop_upload (interop, host, texture, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_test_assert_message_has (error, "another engine", NULL);
  glDeleteTextures (1, &texture);
  assert_no_pending_errors ();
}

/* ---- shared-memory mode ------------------------------------------------- */

static KsInterop *
new_shared_interop (void)
{
  g_autoptr (GError) error = NULL;
  KsInterop *interop = ks_interop_new (gpu, KS_INTEROP_SHARED_MEMORY, &error);

  if (interop == NULL)
    g_test_message ("shared-memory interop: %s", error->message);
  g_assert_no_error (error);
  return interop;
}

/* Runs op into `output`, poisoned first. */
static void
run_op_into (const char *op_id, KsBuffer *a, KsBuffer *b, KsBuffer *output)
{
  const KsOp *op = ks_op_registry_lookup (op_id);
  g_autoptr (GError) error = NULL;
  KsRunRequest request;
  KsRunResult result;

  g_assert_nonnull (op);
  ks_run_request_init (&request, op);
  request.inputs[0] = a;
  request.inputs[1] = op->n_inputs > 1 ? b : NULL;
  g_assert_true (ks_engine_fill (gpu, output, KS_TEST_POISON, &error));
  g_assert_no_error (error);
  request.output = output;
  g_assert_true (ks_engine_run (gpu, &request, &result, &error));
  g_assert_no_error (error);
  ks_run_result_clear (&result);
}

static KsBuffer *
new_shareable (KsFormat format, guint width, guint height)
{
  g_autoptr (GError) error = NULL;
  KsBuffer *buffer = ks_engine_new_shareable_buffer (gpu, format, width, height, &error);

  g_assert_no_error (error);
  g_assert_true (ks_buffer_is_shareable (buffer));
  return buffer;
}

/* What GL samples from the shared buffer, drawn into a poisoned texture and
 * read back, equals the engine's download of the buffer. */
static void
check_shared (KsInterop *interop, KsBuffer *buffer, gboolean expect_import, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) expected = NULL;
  g_autoptr (KsImage) actual = NULL;
  KsInteropShared shared = { 0 };
  GLint texture_binding = -1, buffer_binding = -1;
  GLuint texture = 0;
  double ms = -1;

  g_assert_true (ks_interop_share (interop, buffer, &shared, &ms, &error));
  g_assert_no_error (error);
  g_test_message ("%s: %u×%u %s, %s in %.3f ms", what, shared.width, shared.height,
                  ks_format_name (shared.format), shared.imported ? "imported" : "already there",
                  ms);
  g_assert_cmpint (shared.imported, ==, expect_import);
  g_assert_cmpuint (shared.width, ==, ks_buffer_get_width (buffer));
  g_assert_cmpuint (shared.height, ==, ks_buffer_get_height (buffer));
  g_assert_cmpuint (shared.row_texels, ==,
                    ks_buffer_get_pitch (buffer)
                      / ks_format_bytes_per_pixel (ks_buffer_get_format (buffer)));
  glGetIntegerv (GL_TEXTURE_BINDING_BUFFER, &texture_binding);
  glGetIntegerv (GL_TEXTURE_BUFFER_BINDING, &buffer_binding);
  g_assert_cmpint (texture_binding, ==, 0);
  g_assert_cmpint (buffer_binding, ==, 0);

  glGenTextures (1, &texture);
  g_assert_true (ks_interop_resolve_shared (interop, &shared, texture, &error));
  g_assert_no_error (error);
  expected = ks_engine_download (gpu, buffer, NULL, &error);
  g_assert_no_error (error);
  actual = ks_egl_read_texture (texture, shared.format, shared.width, shared.height, &error);
  g_assert_no_error (error);
  ks_test_assert_images_equal (expected, actual, what);
  glDeleteTextures (1, &texture);
  assert_no_pending_errors ();
}

/* Every op at both sizes; then another op into the same buffer: no new
 * import, and GL sees the new pixels, so nothing was copied. */
static void
test_shared_ops (void)
{
  g_autoptr (KsInterop) interop = new_shared_interop ();

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint w = sizes[s][0], h = sizes[s][1];
      g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, w, h, "a");
      g_autoptr (KsBuffer) b = upload_random (KS_FORMAT_RGBA8, w, h, "b");
      g_autoptr (KsBuffer) rgba = new_shareable (KS_FORMAT_RGBA8, w, h);
      g_autoptr (KsBuffer) gray = new_shareable (KS_FORMAT_GRAY8, w, h);

      run_op_into ("invert", a, NULL, rgba);
      check_shared (interop, rgba, TRUE, "invert, shared");
      run_op_into ("add", a, b, rgba);
      check_shared (interop, rgba, FALSE, "add into the same shared buffer");
      run_op_into ("gray", b, NULL, gray);
      check_shared (interop, gray, TRUE, "gray, shared");
      run_op_into ("gray", a, NULL, gray);
      check_shared (interop, gray, FALSE, "gray of another input, same buffer");
    }
  g_clear_pointer (&interop, ks_interop_free);
  assert_no_pending_errors ();
}

/* A pipeline's two buffers alternating stay imported; a fifth buffer evicts
 * the least recently shown, which is imported again when it comes back. */
static void
test_shared_alternate (void)
{
  g_autoptr (KsInterop) interop = new_shared_interop ();
  g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, 333, 197, "a");
  g_autoptr (KsBuffer) b = upload_random (KS_FORMAT_RGBA8, 333, 197, "b");
  KsBuffer *out[5];

  for (guint i = 0; i < G_N_ELEMENTS (out); i++)
    out[i] = new_shareable (KS_FORMAT_RGBA8, 333, 197);
  for (guint round = 0; round < 6; round++)
    {
      KsBuffer *target = out[round % 2];

      run_op_into (round % 3 == 0 ? "invert" : "add", a, b, target);
      check_shared (interop, target, round < 2, "alternating buffers");
    }
  /* Shown order now: out[1], out[0]; then 2, 3, 4 make five: out[0] goes. */
  for (guint i = 2; i < 5; i++)
    {
      run_op_into ("invert", b, NULL, out[i]);
      check_shared (interop, out[i], TRUE, "more buffers");
    }
  check_shared (interop, out[1], FALSE, "still imported");
  check_shared (interop, out[0], TRUE, "evicted, imported again");
  /* The interop keeps what it imported alive: the buffer goes after it. */
  for (guint i = 0; i < G_N_ELEMENTS (out); i++)
    ks_buffer_unref (out[i]);
  g_clear_pointer (&interop, ks_interop_free);
  assert_no_pending_errors ();
#if HAVE_CUDA
  g_assert_cmpint (cudaDeviceSynchronize (), ==, cudaSuccess);
#endif
}

/* Buffers that cannot be shared, and calls for the other modes, are refused
 * with the reason; nothing is left behind. */
static void
test_shared_refused (void)
{
  g_autoptr (KsInterop) shared_interop = new_shared_interop ();
  g_autoptr (KsInterop) pbo = new_interop (KS_INTEROP_PIXEL_BUFFER);
  g_autoptr (KsBuffer) a = upload_random (KS_FORMAT_RGBA8, 64, 47, "a");
  g_autoptr (KsBuffer) plain = run_op ("invert", a, NULL);
  g_autoptr (KsBuffer) shareable = new_shareable (KS_FORMAT_RGBA8, 64, 47);
  g_autoptr (GError) error = NULL;
  KsInteropShared shared = { 0 };
  GLuint texture = 0;

  g_assert_false (ks_buffer_is_shareable (plain));
  g_assert_false (ks_interop_share (shared_interop, plain, &shared, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  ks_test_assert_message_has (error, "not made to be shared", NULL);
  g_clear_error (&error);

  glGenTextures (1, &texture);
  g_assert_false (ks_interop_upload (shared_interop, shareable, texture, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ks_interop_share (pbo, shareable, &shared, NULL, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* A shareable buffer also takes the copying paths. */
  run_op_into ("invert", a, NULL, shareable);
  check_upload (pbo, texture, shareable, FALSE, "shareable buffer through the pixel buffer");
  glDeleteTextures (1, &texture);
  assert_no_pending_errors ();
}

static void
add_mode_tests (const char *path, GTestDataFunc func)
{
  g_autofree char *pbo = g_strdup_printf ("/ks/interop/pixel-buffer/%s", path);
  g_autofree char *tex = g_strdup_printf ("/ks/interop/texture/%s", path);

  g_test_add_data_func (pbo, GINT_TO_POINTER (KS_INTEROP_PIXEL_BUFFER), func);
  g_test_add_data_func (tex, GINT_TO_POINTER (KS_INTEROP_TEXTURE), func);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_test_require_cuda (KS_TEST_NEEDS_CUDA))
    return KS_TEST_SKIPPED;
  egl = ks_egl_context_new (0, &error);
  if (egl == NULL)
    {
      g_print ("1..0 # SKIP no headless OpenGL context on CUDA device 0: %s\n", error->message);
      return KS_TEST_SKIPPED;
    }
  g_print ("# GL: %s\n", ks_egl_context_describe (egl));

  gpu = ks_test_cuda_engine ();

  g_test_add_func ("/ks/interop/cpu-engine-unavailable", test_cpu_engine_unavailable);
  g_test_add_func ("/ks/interop/describe", test_describe);
  g_test_add_func ("/ks/interop/foreign-buffer", test_foreign_buffer);
  add_mode_tests ("ops", test_ops);
  add_mode_tests ("resize", test_resize);
  add_mode_tests ("two-views", test_two_views);
  add_mode_tests ("free-unregisters", test_free);
  if (ks_interop_shared_unsupported () == NULL)
    {
      g_test_add_func ("/ks/interop/shared/ops", test_shared_ops);
      g_test_add_func ("/ks/interop/shared/alternate", test_shared_alternate);
      g_test_add_func ("/ks/interop/shared/refused", test_shared_refused);
    }
  else
    {
      g_print ("# shared-memory mode not tested: %s\n", ks_interop_shared_unsupported ());
    }

  ret = g_test_run ();
  g_clear_object (&gpu);
  g_clear_pointer (&egl, ks_egl_context_free);
  return ret;
}
