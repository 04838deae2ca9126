/* kernelscope-cli bench-display: what showing a result costs per frame, on a
 * headless OpenGL context on the CUDA device.
 *
 * (a) interop: op, then the GL pixel buffer mapped, written device to device
 *     and unmapped, glTexSubImage2D from it (ks_interop_upload);
 * (b) copy:    op, then ks_engine_download (device → pinned staging → host
 *     image) and glTexSubImage2D from host memory, the path the view takes
 *     when interop is impossible;
 * (c) shared:  op into memory GL imported (ks_interop_share): its buffer
 *     texture is what a view samples, so nothing is mapped or copied.
 * Each frame ends with glFinish and is timed with the host clock around the
 * whole frame: CUDA events cannot see GL's share, and after glFinish the wall
 * time is the end-to-end cost. The CUDA parts are also timed with events. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <epoxy/gl.h>

#include "ks-cli.h"
#include "ks-egl.h"
#include "ks-interop.h"
#include "ks-op-registry.h"

#define DEFAULT_SIZES "1920x1080,3840x2160,7680x4320"
#define DEFAULT_FRAMES 100u
#define MIN_FRAMES 50u
/* At 4K the interop path must be at least this many times faster than the copy path. */
#define TARGET_RATIO 5.0
#define TARGET_WIDTH 3840u
#define TARGET_HEIGHT 2160u
/* The shared-memory path: a whole frame at 4K and at 8K at most this long,
 * and at 4K this many times faster than the copy path. */
#define TARGET_SHARED_4K_MS 0.2
#define TARGET_SHARED_8K_MS 0.5
#define TARGET_SHARED_RATIO 50.0

static void
size_result_clear (gpointer data)
{
  KsCliDisplaySize *r = data;

  ks_timing_clear (&r->interop_wall);
  ks_timing_clear (&r->copy_wall);
  ks_timing_clear (&r->kernel);
  ks_timing_clear (&r->interop_cuda);
  ks_timing_clear (&r->download);
  ks_timing_clear (&r->shared_wall);
}

typedef struct
{
  KsEngine *engine;        /* borrowed */
  const KsOp *op;
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;
  KsInterop *interop;      /* borrowed */
  GLuint textures[2];      /* (a), (b) */
  KsClock *host;           /* a frame ends on the host, after glFinish */
  KsInterop *shared;       /* borrowed; NULL: (c) does not run */
  KsBuffer *shared_output; /* (c)'s output, in memory GL imported */
  KsInteropShared view;    /* what (c)'s last frame gave to sample */
} Frame;

static gboolean
run_op_into (Frame *f, KsBuffer *output, double *kernel_ms, GError **error)
{
  KsRunRequest request;
  KsRunResult result;

  ks_run_request_init (&request, f->op);
  for (guint i = 0; i < f->op->n_inputs; i++)
    request.inputs[i] = f->inputs[i];
  request.output = output;
  if (!ks_engine_run (f->engine, &request, &result, error))
    return FALSE;
  *kernel_ms = result.kernel_ms;
  ks_run_result_clear (&result);
  return TRUE;
}

static gboolean
run_op (Frame *f, double *kernel_ms, GError **error)
{
  return run_op_into (f, f->output, kernel_ms, error);
}

/* The op writes the memory GL samples; ks_engine_run returns after its
 * kernel, so GL may draw from it at once. Nothing else happens: that is the point. */
static gboolean
frame_shared (Frame *f, double *wall_ms, double *kernel_ms, GError **error)
{
  ks_clock_start (f->host, NULL);
  if (!run_op_into (f, f->shared_output, kernel_ms, error)
      || !ks_interop_share (f->shared, f->shared_output, &f->view, NULL, error))
    return FALSE;
  glFinish ();
  ks_clock_stop (f->host, NULL);
  return ks_clock_elapsed (f->host, wall_ms, error);
}

static gboolean
frame_interop (Frame *f, double *wall_ms, double *kernel_ms, double *copy_ms, GError **error)
{
  ks_clock_start (f->host, NULL);
  if (!run_op (f, kernel_ms, error)
      || !ks_interop_upload (f->interop, f->output, f->textures[0], copy_ms, error))
    return FALSE;
  glFinish ();
  ks_clock_stop (f->host, NULL);
  return ks_clock_elapsed (f->host, wall_ms, error);
}

static gboolean
frame_copy (Frame *f, double *wall_ms, double *kernel_ms, double *download_ms, GError **error)
{
  g_autoptr (KsImage) image = NULL;
  guint bpp;
  GLenum err;

  ks_clock_start (f->host, NULL);
  if (!run_op (f, kernel_ms, error))
    return FALSE;
  image = ks_engine_download (f->engine, f->output, download_ms, error);
  if (image == NULL)
    return FALSE;
  bpp = ks_format_bytes_per_pixel (image->format);
  glBindBuffer (GL_PIXEL_UNPACK_BUFFER, 0);
  glBindTexture (GL_TEXTURE_2D, f->textures[1]);
  glPixelStorei (GL_UNPACK_ROW_LENGTH, (GLint) (image->stride / bpp));
  glPixelStorei (GL_UNPACK_ALIGNMENT, 1);
  glTexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, (GLsizei) image->width, (GLsizei) image->height,
                   image->format == KS_FORMAT_GRAY8 ? GL_RED : GL_RGBA, GL_UNSIGNED_BYTE,
                   image->data);
  glPixelStorei (GL_UNPACK_ROW_LENGTH, 0);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glFinish ();
  ks_clock_stop (f->host, NULL);
  ks_clock_elapsed (f->host, wall_ms, NULL);
  err = glGetError ();
  if (err != GL_NO_ERROR)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "glTexSubImage2D from host memory (%u×%u) failed with GL error 0x%04x",
                   image->width, image->height, err);
      return FALSE;
    }
  return TRUE;
}

/* The numbers only count if both paths show the same pixels. */
static gboolean
check_same_pixels (Frame *f, GError **error)
{
  guint w = ks_buffer_get_width (f->output), h = ks_buffer_get_height (f->output);
  KsFormat format = ks_buffer_get_format (f->output);
  g_autoptr (KsImage) a = ks_egl_read_texture (f->textures[0], format, w, h, error);
  g_autoptr (KsImage) b = NULL;
  g_autoptr (KsImage) expected = NULL;
  KsImageDiff diff_a, diff_b;

  if (a == NULL)
    return FALSE;
  b = ks_egl_read_texture (f->textures[1], format, w, h, error);
  if (b == NULL)
    return FALSE;
  expected = ks_engine_download (f->engine, f->output, NULL, error);
  if (expected == NULL || !ks_image_compare (expected, a, &diff_a, NULL, error)
      || !ks_image_compare (expected, b, &diff_b, NULL, error))
    return FALSE;
  if (diff_a.differing_pixels > 0 || diff_b.differing_pixels > 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "At %u×%u the textures differ from the op's output: %" G_GUINT64_FORMAT
                   " pixels through interop, %" G_GUINT64_FORMAT " through the copy path", w, h,
                   diff_a.differing_pixels, diff_b.differing_pixels);
      return FALSE;
    }
  if (f->shared != NULL)
    {
      /* What a shader samples from (c)'s memory, against (c)'s output. */
      g_autoptr (KsImage) c = NULL;
      g_autoptr (KsImage) expected_c = NULL;
      KsImageDiff diff_c;
      GLuint texture = 0;
      gboolean ok;

      glGenTextures (1, &texture);
      ok = ks_interop_resolve_shared (f->shared, &f->view, texture, error);
      if (ok)
        c = ks_egl_read_texture (texture, format, w, h, error);
      glDeleteTextures (1, &texture);
      if (!ok || c == NULL)
        return FALSE;
      expected_c = ks_engine_download (f->engine, f->shared_output, NULL, error);
      if (expected_c == NULL || !ks_image_compare (expected, expected_c, &diff_c, NULL, error))
        return FALSE;
      if (diff_c.differing_pixels > 0)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                       "At %u×%u the op's output in the shared memory, downloaded by CUDA, "
                       "differs from its output in ordinary device memory in %" G_GUINT64_FORMAT
                       " pixels (pixel 0, 0: 0x%08x against 0x%08x)", w, h,
                       diff_c.differing_pixels, ks_image_get_rgba (expected_c, 0, 0),
                       ks_image_get_rgba (expected, 0, 0));
          return FALSE;
        }
      if (!ks_image_compare (expected_c, c, &diff_c, NULL, error))
        return FALSE;
      if (diff_c.differing_pixels > 0)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                       "At %u×%u what OpenGL samples from the shared memory differs from the "
                       "op's output there in %" G_GUINT64_FORMAT " pixels (pixel 0, 0: OpenGL "
                       "0x%08x, CUDA 0x%08x)", w, h, diff_c.differing_pixels,
                       ks_image_get_rgba (c, 0, 0), ks_image_get_rgba (expected_c, 0, 0));
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
measure_size (KsEngine *engine, const KsOp *op, KsInterop *interop, KsInterop *shared,
              const GLuint textures[2], guint width, guint height, guint frames,
              KsCliDisplaySize *r, GError **error)
{
  g_autoptr (KsClock) host = ks_clock_new_host ();
  Frame f = { engine, op, { NULL, NULL }, NULL, interop, { textures[0], textures[1] }, host,
              shared, NULL, { 0 } };
  gboolean ok = FALSE;

  r->width = width;
  r->height = height;
  for (guint i = 0; i < op->n_inputs; i++)
    {
      g_autoptr (KsImage) image = ks_image_new (KS_FORMAT_RGBA8, width, height, error);

      if (image == NULL)
        goto out;
      ks_image_fill_random (image, 0x6b73u + i);
      f.inputs[i] = ks_engine_upload (engine, image, NULL, error);
      if (f.inputs[i] == NULL)
        goto out;
    }
  f.output = ks_engine_new_buffer (engine, op->output_format, width, height, error);
  if (f.output == NULL)
    goto out;
  r->have_shared = shared != NULL;

  /* (a)'s texture is allocated by the interop; (b)'s here, once, as a view would. */
  glBindTexture (GL_TEXTURE_2D, f.textures[1]);
  glTexImage2D (GL_TEXTURE_2D, 0, op->output_format == KS_FORMAT_GRAY8 ? GL_R8 : GL_RGBA8,
                (GLsizei) width, (GLsizei) height, 0,
                op->output_format == KS_FORMAT_GRAY8 ? GL_RED : GL_RGBA, GL_UNSIGNED_BYTE, NULL);
  if (glGetError () != GL_NO_ERROR)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "OpenGL cannot allocate a %u×%u texture", width, height);
      goto out;
    }

  ks_timing_begin (&r->interop_wall, frames);
  ks_timing_begin (&r->copy_wall, frames);
  ks_timing_begin (&r->kernel, 2 * frames);
  ks_timing_begin (&r->interop_cuda, frames);
  ks_timing_begin (&r->download, frames);
  ks_timing_begin (&r->shared_wall, frames);
  /* The timing protocol's warm-up (ks-timing.h), frame 0 of each path: it
   * registers the buffer for this size (a), allocates the staging memory
   * (b), allocates and imports the shared memory (c). Interleaved, and the
   * order turned every frame, so that drift in clocks or temperature falls
   * on every path alike. */
  for (guint i = 0; i <= frames; i++)
    {
      double wall[3], kernel[3], cuda[2];
      g_autoptr (KsClock) first = NULL;

      ok = TRUE;
      for (guint k = 0; ok && k < 3; k++)
        {
          guint path = (i + k) % 3;

          if (path == 0)
            ok = frame_interop (&f, &wall[0], &kernel[0], &cuda[0], error);
          else if (path == 1)
            ok = frame_copy (&f, &wall[1], &kernel[1], &cuda[1], error);
          else if (shared != NULL)
            {
              if (f.shared_output == NULL)
                {
                  /* (c)'s warm-up frame includes what a new size costs it:
                   * the allocation, and the import in its frame. */
                  first = ks_clock_new_host ();
                  ks_clock_start (first, NULL);
                  f.shared_output = ks_engine_new_shareable_buffer (engine, op->output_format,
                                                                    width, height, error);
                  ok = f.shared_output != NULL;
                }
              ok = ok && frame_shared (&f, &wall[2], &kernel[2], error);
              if (ok && first != NULL)
                {
                  ks_clock_stop (first, NULL);
                  ks_clock_elapsed (first, &wall[2], NULL);
                }
            }
        }
      if (!ok)
        goto out;
      ks_timing_add (&r->interop_wall, wall[0], i == 0);
      ks_timing_add (&r->copy_wall, wall[1], i == 0);
      ks_timing_add (&r->interop_cuda, cuda[0], i == 0);
      ks_timing_add (&r->download, cuda[1], i == 0);
      ks_timing_add (&r->kernel, kernel[0], i == 0);
      ks_timing_add (&r->kernel, kernel[1], i == 0);
      if (shared != NULL)
        ks_timing_add (&r->shared_wall, wall[2], i == 0);
    }
  ok = check_same_pixels (&f, error);
  ks_timing_compute (&r->interop_wall);
  ks_timing_compute (&r->copy_wall);
  ks_timing_compute (&r->kernel);
  ks_timing_compute (&r->interop_cuda);
  ks_timing_compute (&r->download);
  ks_timing_compute (&r->shared_wall);
  r->ratio = r->copy_wall.median_ms / r->interop_wall.median_ms;
  r->shared_ratio = shared != NULL ? r->copy_wall.median_ms / r->shared_wall.median_ms : NAN;

out:
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    g_clear_pointer (&f.inputs[i], ks_buffer_unref);
  g_clear_pointer (&f.output, ks_buffer_unref);
  g_clear_pointer (&f.shared_output, ks_buffer_unref);
  return ok;
}

static void
add_timing (JsonBuilder *b, const char *name, const KsTiming *timing)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  ks_json_add_timing (b, timing, "n");
  json_builder_end_object (b);
}

JsonNode *
ks_cli_display_json (const KsCliDisplayReport *report)
{
  g_autoptr (JsonBuilder) b = NULL;

  g_return_val_if_fail (report != NULL, NULL);
  g_return_val_if_fail (report->sizes != NULL, NULL);

  b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "device");
  ks_json_add_string (b, report->device_name);
  json_builder_set_member_name (b, "device_id");
  ks_json_add_string (b, report->device_id);
  json_builder_set_member_name (b, "op");
  ks_json_add_string (b, report->op);
  json_builder_set_member_name (b, "gl");
  ks_json_add_string (b, report->gl);
  json_builder_set_member_name (b, "interop");
  ks_json_add_string (b, report->interop);
  json_builder_set_member_name (b, "shared");
  ks_json_add_string (b, report->shared);
  json_builder_set_member_name (b, "frames");
  json_builder_add_int_value (b, report->frames);
  json_builder_set_member_name (b, "warmup_frames");
  json_builder_add_int_value (b, report->warmup_frames);
  json_builder_set_member_name (b, "frame_time");
  json_builder_add_string_value (b, "host wall clock around the whole frame, after glFinish");
  json_builder_set_member_name (b, "sizes");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->sizes->len; i++)
    {
      const KsCliDisplaySize *r = &g_array_index (report->sizes, KsCliDisplaySize, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "width");
      json_builder_add_int_value (b, r->width);
      json_builder_set_member_name (b, "height");
      json_builder_add_int_value (b, r->height);
      add_timing (b, "interop_frame", &r->interop_wall);
      add_timing (b, "copy_frame", &r->copy_wall);
      add_timing (b, "kernel", &r->kernel);
      add_timing (b, "interop_cuda", &r->interop_cuda);
      add_timing (b, "download_cuda", &r->download);
      json_builder_set_member_name (b, "ratio_copy_over_interop");
      ks_json_add_number (b, r->ratio);
      if (r->have_shared)
        {
          /* Its warmup_ms is a new size's cost: the allocation, the import and a frame. */
          add_timing (b, "shared_frame", &r->shared_wall);
          json_builder_set_member_name (b, "ratio_copy_over_shared");
          ks_json_add_number (b, r->shared_ratio);
        }
      /* Only sizes whose two textures matched the op's output get here. */
      json_builder_set_member_name (b, "same_pixels");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
print_table (const GArray *results)
{
  ks_cli_print ("\n%-11s %22s %22s %22s %8s %8s %9s %11s %10s\n", "", "(a) interop frame",
                "(b) copy frame", "(c) shared frame", "", "", "op", "(a) CUDA", "(b) CUDA");
  /* %s pads bytes, and "±" takes two: one more for the columns that show it. */
  ks_cli_print ("%-11s %23s %23s %23s %8s %8s %9s %11s %10s\n", "size", "median ± MAD (ms)",
                "median ± MAD (ms)", "median ± MAD (ms)", "b / a", "b / c", "kernel",
                "map+copy", "download");
  for (guint i = 0; i < results->len; i++)
    {
      const KsCliDisplaySize *r = &g_array_index (results, KsCliDisplaySize, i);
      g_autofree char *size = g_strdup_printf ("%ux%u", r->width, r->height);

      ks_cli_print ("%-11s %13.3f ± %6.3f %13.3f ± %6.3f %13.3f ± %6.3f %7.1f× %7.1f× %9.3f "
                    "%11.3f %10.3f\n", size, r->interop_wall.median_ms, r->interop_wall.mad_ms,
                    r->copy_wall.median_ms, r->copy_wall.mad_ms,
                    r->have_shared ? r->shared_wall.median_ms : NAN,
                    r->have_shared ? r->shared_wall.mad_ms : NAN, r->ratio,
                    r->have_shared ? r->shared_ratio : NAN, r->kernel.median_ms,
                    r->interop_cuda.median_ms, r->download.median_ms);
    }
  ks_cli_print ("(frame: min–max in the JSON; op, map+copy, download: CUDA-event medians)\n");
  ks_cli_print ("\nA new size, its first frame (ms): (a) registers the pixel buffer, (c) allocates "
                "and imports the memory\n");
  for (guint i = 0; i < results->len; i++)
    {
      const KsCliDisplaySize *r = &g_array_index (results, KsCliDisplaySize, i);

      ks_cli_print ("  %ux%u: (a) %.3f, (c) %.3f\n", r->width, r->height,
                    r->interop_wall.warmup_ms, r->have_shared ? r->shared_wall.warmup_ms : NAN);
    }
  for (guint i = 0; i < results->len; i++)
    {
      const KsCliDisplaySize *r = &g_array_index (results, KsCliDisplaySize, i);
      gboolean is_4k = r->width == TARGET_WIDTH && r->height == TARGET_HEIGHT;
      gboolean is_8k = r->width == 2 * TARGET_WIDTH && r->height == 2 * TARGET_HEIGHT;

      if (is_4k)
        ks_cli_print ("\nAt %ux%u the interop path is %.1f× faster than download + upload "
                      "(target: at least %.0f×, %s).\n", r->width, r->height, r->ratio,
                      TARGET_RATIO, r->ratio >= TARGET_RATIO ? "met" : "NOT met");
      if (!r->have_shared || (!is_4k && !is_8k))
        continue;
      ks_cli_print ("At %ux%u a shared-memory frame takes %.3f ms (target: at most %.1f ms, %s)",
                    r->width, r->height, r->shared_wall.median_ms,
                    is_4k ? TARGET_SHARED_4K_MS : TARGET_SHARED_8K_MS,
                    r->shared_wall.median_ms <= (is_4k ? TARGET_SHARED_4K_MS : TARGET_SHARED_8K_MS)
                      ? "met" : "NOT met");
      if (is_4k)
        ks_cli_print (", %.1f× faster than download + upload (target: at least %.0f×, %s)",
                      r->shared_ratio, TARGET_SHARED_RATIO,
                      r->shared_ratio >= TARGET_SHARED_RATIO ? "met" : "NOT met");
      ks_cli_print (".\n");
    }
}

int
ks_cli_cmd_bench_display (int argc, char **argv)
{
  g_autofree char *sizes_text = NULL;
  g_autofree char *op_name = NULL;
  g_autofree char *json_path = NULL;
  int repeat = 0, device = -1;
  gboolean help = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_text,
      "Image sizes (default " DEFAULT_SIZES ")", "WxH,…" },
    { "op", 0, 0, G_OPTION_ARG_STRING, &op_name, "The op run each frame (default invert)", "OP" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
      "Timed frames per path and size after the warm-up (default 100, at least 50)", "N" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, "CUDA device ordinal (default 0)", "N" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the results as JSON on stdout instead of the table", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &json_path, "Also write the results as JSON to FILE",
      "FILE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_auto (GStrv) args = NULL;
  g_auto (GStrv) size_list = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsEglContext) egl = NULL;
  g_autoptr (KsInterop) interop = NULL;
  g_autoptr (KsInterop) shared = NULL;
  g_autoptr (GError) shared_error = NULL;
  g_autofree char *shared_text = NULL;
  g_autoptr (GArray) results = NULL;
  g_autofree guint *widths = NULL;
  g_autofree guint *heights = NULL;
  const KsOp *op;
  guint frames, n_sizes;
  /* Kept for every size: the interop allocates (a)'s and must not see it deleted under it. */
  GLuint textures[2] = { 0, 0 };
  int ret = KS_CLI_EXIT_FAILED;

  g_option_context_set_summary (
    context, "Measures the per-frame cost of showing an op's result on a headless OpenGL context "
             "on the CUDA device: (a) through CUDA–OpenGL interop (a registered pixel buffer), "
             "(b) ks_engine_download and glTexSubImage2D from host memory, and (c) the op "
             "writing memory that OpenGL imported and samples in place. Frames end with "
             "glFinish and are timed with the host clock around the whole frame.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (json);
  /* Checked now, not after minutes of measuring. */
  if (json_path != NULL && !ks_file_check_writable (json_path, &error))
    return ks_cli_report_error (error);
  if (g_strv_length (args) > 1)
    {
      ks_cli_usage_error (&error, "bench-display takes no arguments, got “%s”", args[1]);
      return ks_cli_report_error (error);
    }
  if (repeat < 0 || (repeat > 0 && (guint) repeat < MIN_FRAMES))
    {
      ks_cli_usage_error (&error, "--repeat must be at least %u (medians of fewer frames are "
                          "noise), not %d", MIN_FRAMES, repeat);
      return ks_cli_report_error (error);
    }
  frames = repeat > 0 ? (guint) repeat : DEFAULT_FRAMES;

  op = ks_op_registry_lookup (op_name != NULL ? op_name : "invert");
  if (op == NULL || op->output_kind != KS_OP_OUTPUT_IMAGE)
    {
      ks_cli_usage_error (&error, "“%s” is %s (see kernelscope-cli ops)",
                          op_name != NULL ? op_name : "invert",
                          op == NULL ? "not an op" : "not an op with an image result");
      return ks_cli_report_error (error);
    }

  size_list = g_strsplit (sizes_text != NULL ? sizes_text : DEFAULT_SIZES, ",", -1);
  n_sizes = g_strv_length (size_list);
  if (n_sizes == 0)
    {
      ks_cli_usage_error (&error, "--sizes names no size");
      return ks_cli_report_error (error);
    }
  widths = g_new0 (guint, n_sizes);
  heights = g_new0 (guint, n_sizes);
  for (guint i = 0; i < n_sizes; i++)
    if (!ks_cli_parse_size (g_strstrip (size_list[i]), &widths[i], &heights[i], &error))
      return ks_cli_report_error (error);

  engine = ks_cli_open_engine ("cuda", device, &error);
  if (engine == NULL)
    {
      g_prefix_error (&error, "bench-display needs CUDA: ");
      return ks_cli_report_error (error);
    }
  egl = ks_egl_context_new (ks_device_get_ordinal (ks_engine_get_device (engine)), &error);
  if (egl == NULL)
    return ks_cli_report_error (error);
  interop = ks_interop_new (engine, KS_INTEROP_PIXEL_BUFFER, &error);
  if (interop == NULL)
    return ks_cli_report_error (error);
  /* (c) is measured where it is possible; where not, the reason is printed. */
  shared = ks_interop_new (engine, KS_INTEROP_SHARED_MEMORY, &shared_error);
  shared_text = shared != NULL ? g_strdup (ks_interop_describe (shared))
                               : g_strdup_printf ("not measured: %s", shared_error->message);

  ks_cli_print ("Display path: %s on %s (%s), %u frames per path and size after a warm-up frame\n",
                op->id, ks_device_get_name (ks_engine_get_device (engine)),
                ks_device_get_id (ks_engine_get_device (engine)), frames);
  ks_cli_print ("OpenGL:  %s\n", ks_egl_context_describe (egl));
  ks_cli_print ("Interop: %s\n", ks_interop_describe (interop));
  ks_cli_print ("Shared:  %s\n", shared_text);
  ks_cli_print (
    "(a) interop: op → map the GL pixel buffer, cudaMemcpy2DAsync device to device, unmap\n"
    "             → glTexSubImage2D from the pixel buffer → glFinish\n"
    "(b) copy:    op → ks_engine_download (device → pinned staging → new host image)\n"
    "             → glTexSubImage2D from host memory → glFinish\n"
    "(c) shared:  op into memory GL imported (its buffer texture is what a view samples)\n"
    "             → glFinish; nothing mapped, copied or uploaded\n"
    "Frame times are the host's monotonic clock around the whole frame,\n"
    "read after glFinish: the honest end-to-end cost of a frame, op included. CUDA events\n"
    "cannot see GL's share; they time only the CUDA parts, shown on the right.\n");
  fflush (stdout);

  glGenTextures (2, textures);
  results = g_array_new (FALSE, TRUE, sizeof (KsCliDisplaySize));
  g_array_set_clear_func (results, size_result_clear);
  for (guint i = 0; i < n_sizes; i++)
    {
      KsCliDisplaySize r;

      memset (&r, 0, sizeof r);
      if (!measure_size (engine, op, interop, shared, textures, widths[i], heights[i], frames,
                         &r, &error))
        {
          size_result_clear (&r);
          g_prefix_error (&error, "at %ux%u: ", widths[i], heights[i]);
          goto out;
        }
      g_array_append_val (results, r);
    }

  print_table (results);
  if (json || json_path != NULL)
    {
      KsDevice *dev = ks_engine_get_device (engine);
      KsCliDisplayReport report = {
        .device_name = ks_device_get_name (dev),
        .device_id = ks_device_get_id (dev),
        .op = op->id,
        .gl = ks_egl_context_describe (egl),
        .interop = ks_interop_describe (interop),
        .shared = shared_text,
        .frames = frames,
        .warmup_frames = 1,
        .sizes = results,
      };
      g_autoptr (JsonNode) root = ks_cli_display_json (&report);

      if (!ks_cli_emit_json (root, json, json_path, &error))
        goto out;
      if (json_path != NULL)
        ks_cli_print ("\nwrote %s\n", json_path);
    }
  ret = KS_CLI_EXIT_OK;

out:
  /* GL objects go while the context is still current; the context last. */
  g_clear_pointer (&interop, ks_interop_free);
  g_clear_pointer (&shared, ks_interop_free);
  glDeleteTextures (2, textures);
  g_clear_pointer (&egl, ks_egl_context_free);
  if (ret != KS_CLI_EXIT_OK)
    return ks_cli_report_error (error);
  return ret;
}
