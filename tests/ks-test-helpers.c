#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "ks-nvrtc.h"
#include "ks-test-helpers.h"
#include "ks-op-registry.h"

char *
ks_test_data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

char *
ks_test_sample_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "resources", "samples", name, NULL);
}

KsEngine *
ks_test_cpu_engine (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  KsEngine *engine = ks_engine_new (cpu, &error);

  g_assert_no_error (error);
  g_assert_nonnull (engine);
  g_assert_false (ks_engine_is_cuda (engine));
  return engine;
}

gboolean
ks_test_require_cuda (KsTestNeeds needs)
{
  g_autoptr (GError) error = NULL;

  if (!ks_cuda_available (&error))
    {
      g_print ("1..0 # SKIP CUDA is not available: %s\n", error->message);
      return FALSE;
    }
  if ((needs & KS_TEST_NEEDS_NVRTC) && !ks_nvrtc_load (&error))
    {
      g_print ("1..0 # SKIP NVRTC is not available: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
ks_test_have_nvrtc (void)
{
  g_autoptr (GError) error = NULL;

  if (ks_nvrtc_load (&error))
    return TRUE;
  g_test_skip_printf ("NVRTC is not available: %s", error->message);
  return FALSE;
}

gboolean
ks_test_have_toolkit_header (const char *header)
{
  const char *const roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"),
                                "/usr/local/cuda" };

  if (!ks_test_have_nvrtc ())
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      g_autofree char *include = NULL;
      g_autofree char *plain = NULL;
      g_autofree char *cccl = NULL;

      if (roots[i] == NULL || roots[i][0] == '\0')
        continue;
      include = g_build_filename (roots[i], "include", NULL);
      if (!g_file_test (include, G_FILE_TEST_IS_DIR))
        continue;
      plain = g_build_filename (include, header, NULL);
      cccl = g_build_filename (include, "cccl", header, NULL);
      if (g_file_test (plain, G_FILE_TEST_EXISTS) || g_file_test (cccl, G_FILE_TEST_EXISTS))
        return TRUE;
      g_test_skip_printf ("the CUDA toolkit's headers in %s have no %s (NVIDIA's cuda-toolkit "
                          "package has them all)", include, header);
      return FALSE;
    }
  g_test_skip_printf ("the CUDA toolkit's headers are not installed (no include folder under "
                      "$CUDA_HOME, $CUDA_PATH or /usr/local/cuda), which %s comes with", header);
  return FALSE;
}

KsEngine *
ks_test_cuda_engine (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsDevice) device = ks_device_get_cuda (0, &error);
  KsEngine *engine;

  g_assert_no_error (error);
  engine = ks_engine_new (device, &error);
  g_assert_no_error (error);
  return engine;
}

guint32
ks_test_next_seed (const char *what)
{
  guint32 seed = g_test_rand_int ();

  g_test_message ("%s: image seed %u", what, seed);
  return seed;
}

void
ks_test_life_steps (guint8 *board, guint w, guint h, guint steps)
{
  g_autofree guint8 *next = g_malloc (w * h);

  for (guint s = 0; s < steps; s++)
    {
      for (guint y = 0; y < h; y++)
        for (guint x = 0; x < w; x++)
          {
            guint n = 0;

            for (int dy = -1; dy <= 1; dy++)
              for (int dx = -1; dx <= 1; dx++)
                if (dx != 0 || dy != 0)
                  n += board[((y + h + dy) % h) * w + (x + w + dx) % w];
            next[y * w + x] = n == 3 || (board[y * w + x] && n == 2);
          }
      memcpy (board, next, w * h);
    }
}

KsImage *
ks_test_image_new (KsFormat format, guint width, guint height)
{
  g_autoptr (GError) error = NULL;
  KsImage *image = ks_image_new (format, width, height, &error);

  g_assert_no_error (error);
  g_assert_nonnull (image);
  return image;
}

KsImage *
ks_test_random_image (KsFormat format, guint width, guint height, guint32 seed)
{
  KsImage *image = ks_test_image_new (format, width, height);

  ks_image_fill_random (image, seed);
  return image;
}

KsImage *
ks_test_load_sample (void)
{
  g_autofree char *path = ks_test_sample_path ("astronaut.png");
  g_autoptr (GError) error = NULL;
  KsImage *image = ks_image_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (image);
  return image;
}

KsLaunchConfig
ks_test_launch (guint bx, guint by, guint gx, guint gy, KsLaunchMode mode, guint pixels_per_thread)
{
  KsLaunchConfig config;

  ks_launch_config_init (&config, bx, by);
  config.block.z = 1;
  config.mode = mode;
  config.pixels_per_thread = pixels_per_thread;
  if (gx != 0 || gy != 0)
    {
      config.auto_grid = FALSE;
      config.grid.x = gx;
      config.grid.y = gy;
      config.grid.z = 1;
    }
  else
    config.auto_grid = TRUE;
  return config;
}

gboolean
ks_test_try_run (KsEngine *engine, const KsTestRun *spec, KsImage *const *inputs, KsImage **out,
                 KsRunResult *result, GError **error)
{
  const KsOp *op = ks_op_registry_lookup (spec->op);
  KsBuffer *buffers[KS_OP_MAX_INPUTS] = { NULL, NULL };
  g_autoptr (KsBuffer) output = NULL;
  KsRunRequest request;
  gboolean ok = FALSE;

  g_assert_nonnull (op);
  memset (result, 0, sizeof *result);
  if (out != NULL)
    *out = NULL;
  ks_run_request_init (&request, op);
  for (guint i = 0; spec->params != NULL && spec->params[i] != NULL; i++)
    if (!ks_params_parse_assignment (&request.params, op, spec->params[i], error))
      return FALSE;
  if (spec->launch != NULL)
    request.launch = *spec->launch;
  request.instrument = spec->instrument;

  for (guint i = 0; i < op->n_inputs; i++)
    {
      g_assert_nonnull (inputs[i]);
      buffers[i] = ks_engine_upload (engine, inputs[i], NULL, error);
      if (buffers[i] == NULL)
        goto out;
      request.inputs[i] = buffers[i];
    }
  if (op->output_kind == KS_OP_OUTPUT_IMAGE)
    {
      output = ks_engine_new_buffer (engine, op->output_format, inputs[0]->width,
                                     inputs[0]->height, error);
      if (output == NULL)
        goto out;
      if (spec->poison >= 0 && !ks_engine_fill (engine, output, (guint8) spec->poison, error))
        goto out;
      request.output = output;
    }

  if (!ks_engine_run (engine, &request, result, error))
    goto out;

  if (op->output_kind == KS_OP_OUTPUT_IMAGE && out != NULL)
    {
      KsBuffer *written = result->output != NULL ? result->output : output;

      g_assert_true (written == output);
      *out = ks_engine_download (engine, written, NULL, error);
      if (*out == NULL)
        goto out;
    }
  ok = TRUE;

out:
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    g_clear_pointer (&buffers[i], ks_buffer_unref);
  return ok;
}

KsImage *
ks_test_run (KsEngine *engine, const KsTestRun *spec, KsImage *const *inputs, KsRunResult *result)
{
  g_autoptr (GError) error = NULL;
  KsImage *out = NULL;
  gboolean ok = ks_test_try_run (engine, spec, inputs, &out, result, &error);

  g_assert_no_error (error);
  g_assert_true (ok);
  return out;
}

KsImage *
ks_test_run_simple (KsEngine *engine, const char *op, const char *param, KsImage *a, KsImage *b)
{
  const char *params[] = { param, NULL };
  KsImage *inputs[] = { a, b };
  KsTestRun spec = { op, params, NULL, FALSE, -1 };
  KsRunResult result;
  KsImage *out = ks_test_run (engine, &spec, inputs, &result);

  ks_run_result_clear (&result);
  return out;
}

void
ks_test_assert_images_equal (const KsImage *expected, const KsImage *actual, const char *what)
{
  g_assert_nonnull (expected);
  g_assert_nonnull (actual);
  g_assert_cmpuint (expected->format, ==, actual->format);
  g_assert_cmpuint (expected->width, ==, actual->width);
  g_assert_cmpuint (expected->height, ==, actual->height);
  for (guint y = 0; y < expected->height; y++)
    for (guint x = 0; x < expected->width; x++)
      {
        guint32 e = ks_image_get_rgba (expected, x, y), a = ks_image_get_rgba (actual, x, y);
        if (e != a)
          {
            g_autofree char *msg = g_strdup_printf (
                "%s: %u×%u %s: pixel (%u, %u) is 0x%08x, expected 0x%08x (ABGR)",
                what != NULL ? what : "images", expected->width, expected->height,
                ks_format_name (expected->format), x, y, a, e);
            g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, msg);
          }
      }
}

guint64
ks_test_count_filled_pixels (const KsImage *image, guint8 value)
{
  guint bpp = ks_format_bytes_per_pixel (image->format);
  guint64 n = 0;

  for (guint y = 0; y < image->height; y++)
    {
      const guint8 *row = ks_image_row (image, y);
      for (guint x = 0; x < image->width; x++)
        {
          gboolean all = TRUE;
          for (guint c = 0; c < bpp; c++)
            all = all && row[x * bpp + c] == value;
          n += all;
        }
    }
  return n;
}

void
ks_test_assert_message_has (const GError *error, ...)
{
  va_list ap;
  const char *needle;

  g_assert_nonnull (error);
  va_start (ap, error);
  while ((needle = va_arg (ap, const char *)) != NULL)
    if (strstr (error->message, needle) == NULL)
      {
        g_autofree char *msg = g_strdup_printf ("error message “%s” does not contain “%s”",
                                                error->message, needle);
        va_end (ap);
        g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, msg);
        return;
      }
  va_end (ap);
}

void
ks_test_assert_timing (const KsTiming *timing, guint n)
{
  g_assert_nonnull (timing);
  g_assert_cmpuint (timing->n, ==, n);
  if (n == 0)
    return;
  g_assert_nonnull (timing->samples_ms);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (isfinite (timing->samples_ms[i]));
      g_assert_cmpfloat (timing->samples_ms[i], >=, 0);
      g_assert_cmpfloat (timing->samples_ms[i], >=, timing->min_ms);
      g_assert_cmpfloat (timing->samples_ms[i], <=, timing->max_ms);
    }
  g_assert_true (isfinite (timing->min_ms) && isfinite (timing->max_ms));
  g_assert_cmpfloat (timing->min_ms, <=, timing->median_ms);
  g_assert_cmpfloat (timing->median_ms, <=, timing->max_ms);
  g_assert_true (isfinite (timing->mad_ms));
  g_assert_cmpfloat (timing->mad_ms, >=, 0);
  /* No spread is wider than the samples' range. */
  g_assert_cmpfloat (timing->mad_ms, <=, timing->max_ms - timing->min_ms);
}

/* BT.601 luma, 0.299 R + 0.587 G + 0.114 B, in thousandths so that the
 * rounding is exact: round half up, or truncate as the tutorial's cast does. */
guint8
ks_test_ref_gray (guint r, guint g, guint b, gboolean truncate)
{
  guint thousandths = 299 * r + 587 * g + 114 * b;

  if (truncate)
    return thousandths / 1000;
  return (thousandths + 500) / 1000;
}

guint32
ks_test_ref_invert (guint32 rgba)
{
  guint r = rgba & 0xff, g = (rgba >> 8) & 0xff, b = (rgba >> 16) & 0xff, a = rgba >> 24;

  return (255 - r) | (255 - g) << 8 | (255 - b) << 16 | a << 24;
}

guint32
ks_test_ref_add (guint32 pa, guint32 pb)
{
  guint32 out = pa & 0xff000000u;

  for (guint shift = 0; shift < 24; shift += 8)
    out |= MIN (((pa >> shift) & 0xff) + ((pb >> shift) & 0xff), 255u) << shift;
  return out;
}

KsImage *
ks_test_ref_image (const char *op, gboolean truncate, const KsImage *a, const KsImage *b)
{
  gboolean gray = g_str_equal (op, "gray");
  KsImage *out = ks_test_image_new (gray ? KS_FORMAT_GRAY8 : KS_FORMAT_RGBA8, a->width, a->height);

  for (guint y = 0; y < a->height; y++)
    for (guint x = 0; x < a->width; x++)
      {
        guint32 pa = ks_image_get_rgba (a, x, y), v;

        if (gray)
          v = ks_test_ref_gray (pa & 0xff, (pa >> 8) & 0xff, (pa >> 16) & 0xff, truncate);
        else if (g_str_equal (op, "invert"))
          v = ks_test_ref_invert (pa);
        else if (g_str_equal (op, "add"))
          v = ks_test_ref_add (pa, ks_image_get_rgba (b, x, y));
        else
          g_assert_not_reached ();
        ks_image_set_rgba (out, x, y, v);
      }
  return out;
}

void
ks_test_assert_coverage_equal (const KsCoverage *a, const KsCoverage *b, const char *what)
{
  gsize n;

  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpuint (a->width, ==, b->width);
  g_assert_cmpuint (a->height, ==, b->height);
  n = (gsize) a->width * a->height;
  g_assert_cmpuint (a->idle_threads, ==, b->idle_threads);
  g_assert_cmpuint (a->unwritten_pixels, ==, b->unwritten_pixels);
  g_assert_cmpuint (a->multiply_written_pixels, ==, b->multiply_written_pixels);
  g_assert_cmpmem (a->writes, n * 4, b->writes, n * 4);
  /* Owners mean something only where a pixel was written. */
  for (gsize i = 0; i < n; i++)
    if (a->writes[i] != 0
        && (a->owner_block[i] != b->owner_block[i] || a->owner_thread[i] != b->owner_thread[i]))
      g_error ("%s: pixel %" G_GSIZE_FORMAT ": CPU says block %u thread %u, CUDA block %u "
               "thread %u", what, i, a->owner_block[i], a->owner_thread[i], b->owner_block[i],
               b->owner_thread[i]);
}

void
ks_test_program_result_clear (KsTestProgramResult *result)
{
  g_clear_pointer (&result->out, g_free);
  g_clear_pointer (&result->err, g_free);
}

void
ks_test_run_program (KsTestProgramResult *result, const char *program, char **envp,
                     const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, (gpointer) program);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  memset (result, 0, sizeof *result);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               &result->out, &result->err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  result->status = WEXITSTATUS (wait_status);
  g_test_message ("exit %d\nstdout: %s\nstderr: %s", result->status, result->out, result->err);
}

void
ks_test_remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      GStatBuf st;

      /* Into folders, never through a link to one. */
      if (g_lstat (p, &st) == 0 && S_ISDIR (st.st_mode))
        ks_test_remove_tree (p);
      else
        g_remove (p);
    }
  g_rmdir (dir);
}

KsLessonReport *
ks_test_run_lesson (const char *name, const char *variant, guint size)
{
  g_autoptr (GError) error = NULL;
  const KsLesson *lesson = ks_lesson_lookup (name);
  KsLessonReport *report = NULL;
  KsLessonOptions options;

  g_assert_nonnull (lesson);
  ks_lesson_options_init (&options);
  options.repeats = 2;
  options.size = size;
  g_assert_true (ks_lesson_run (lesson, ks_lesson_lookup_variant (lesson, variant), NULL, NULL,
                                &options, &report, &error));
  g_assert_no_error (error);
  g_assert_nonnull (report);
  return report;
}
