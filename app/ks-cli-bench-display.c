/* kernelscope-cli bench-display: what showing a result costs per frame, on a
 * headless OpenGL context on the CUDA device.
 *
 * (a) interop: op, then the GL pixel buffer mapped, written device to device
 *     and unmapped, glTexSubImage2D from it (ks_interop_upload);
 * (b) copy:    op, then ks_engine_download (device → pinned staging → host
 *     image) and glTexSubImage2D from host memory, the path the view takes
 *     when interop is impossible.
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

#define DEFAULT_SIZES "1920x1080,3840x2160,7680x4320"
#define DEFAULT_FRAMES 100u
#define MIN_FRAMES 50u
#define WARMUP_FRAMES 10u
/* Issue 3: at 4K the interop path must be at least this many times faster. */
#define TARGET_RATIO 5.0
#define TARGET_WIDTH 3840u
#define TARGET_HEIGHT 2160u

typedef struct
{
  guint width;
  guint height;
  KsTiming interop_wall;   /* (a) whole frame, host clock, after glFinish */
  KsTiming copy_wall;      /* (b) */
  KsTiming kernel;         /* the op, CUDA events, in both paths' frames */
  KsTiming interop_cuda;   /* (a) map + copy + unmap, CUDA events */
  KsTiming download;       /* (b) device → pinned staging, CUDA events */
  double ratio;            /* (b) median / (a) median */
} SizeResult;

static void
size_result_clear (gpointer data)
{
  SizeResult *r = data;

  ks_timing_clear (&r->interop_wall);
  ks_timing_clear (&r->copy_wall);
  ks_timing_clear (&r->kernel);
  ks_timing_clear (&r->interop_cuda);
  ks_timing_clear (&r->download);
}

typedef struct
{
  KsEngine *engine;        /* borrowed */
  const KsOp *op;
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;
  KsInterop *interop;      /* borrowed */
  GLuint textures[2];      /* (a), (b) */
} Frame;

static void
timing_alloc (KsTiming *t, guint n)
{
  t->n = n;
  t->samples_ms = g_new0 (double, n);
}

static gboolean
run_op (Frame *f, double *kernel_ms, GError **error)
{
  KsRunRequest request;
  KsRunResult result;

  ks_run_request_init (&request, f->op);
  for (guint i = 0; i < f->op->n_inputs; i++)
    request.inputs[i] = f->inputs[i];
  request.output = f->output;
  if (!ks_engine_run (f->engine, &request, &result, error))
    return FALSE;
  *kernel_ms = result.kernel_ms;
  ks_run_result_clear (&result);
  return TRUE;
}

static gboolean
frame_interop (Frame *f, double *wall_ms, double *kernel_ms, double *copy_ms, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();

  if (!run_op (f, kernel_ms, error)
      || !ks_interop_upload (f->interop, f->output, f->textures[0], copy_ms, error))
    return FALSE;
  glFinish ();
  *wall_ms = (double) (g_get_monotonic_time () - t0) / 1000.0;
  return TRUE;
}

static gboolean
frame_copy (Frame *f, double *wall_ms, double *kernel_ms, double *download_ms, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (KsImage) image = NULL;
  guint bpp;
  GLenum err;

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
  *wall_ms = (double) (g_get_monotonic_time () - t0) / 1000.0;
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
  return TRUE;
}

static gboolean
measure_size (KsEngine *engine, const KsOp *op, KsInterop *interop, const GLuint textures[2],
              guint width, guint height, guint frames, SizeResult *r, GError **error)
{
  Frame f = { engine, op, { NULL, NULL }, NULL, interop, { textures[0], textures[1] } };
  gboolean ok = FALSE;
  double wall, kernel, part;

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

  /* Warm-up: registration (once per size), first-touch allocations, clocks. */
  for (guint i = 0; i < WARMUP_FRAMES; i++)
    if (!frame_interop (&f, &wall, &kernel, &part, error)
        || !frame_copy (&f, &wall, &kernel, &part, error))
      goto out;

  timing_alloc (&r->interop_wall, frames);
  timing_alloc (&r->copy_wall, frames);
  timing_alloc (&r->kernel, 2 * frames);
  timing_alloc (&r->interop_cuda, frames);
  timing_alloc (&r->download, frames);
  /* Interleaved, and the order swapped every frame, so that drift in clocks
   * or temperature falls on both paths alike. */
  for (guint i = 0; i < frames; i++)
    {
      double *k = r->kernel.samples_ms + 2 * i;

      if (i % 2 == 0)
        ok = frame_interop (&f, &r->interop_wall.samples_ms[i], &k[0],
                            &r->interop_cuda.samples_ms[i], error)
             && frame_copy (&f, &r->copy_wall.samples_ms[i], &k[1], &r->download.samples_ms[i],
                            error);
      else
        ok = frame_copy (&f, &r->copy_wall.samples_ms[i], &k[1], &r->download.samples_ms[i],
                         error)
             && frame_interop (&f, &r->interop_wall.samples_ms[i], &k[0],
                               &r->interop_cuda.samples_ms[i], error);
      if (!ok)
        goto out;
    }
  ok = check_same_pixels (&f, error);
  ks_timing_compute (&r->interop_wall);
  ks_timing_compute (&r->copy_wall);
  ks_timing_compute (&r->kernel);
  ks_timing_compute (&r->interop_cuda);
  ks_timing_compute (&r->download);
  r->ratio = r->copy_wall.median_ms / r->interop_wall.median_ms;

out:
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    g_clear_pointer (&f.inputs[i], ks_buffer_unref);
  g_clear_pointer (&f.output, ks_buffer_unref);
  return ok;
}

static void
json_number (GString *s, const char *key, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (s, "\"%s\": %s", key,
                          isfinite (value) ? g_ascii_formatd (buf, sizeof buf, "%.6g", value)
                                           : "null");
}

static void
json_timing (GString *s, const char *key, const KsTiming *t)
{
  g_string_append_printf (s, "\"%s\": {", key);
  json_number (s, "median_ms", t->median_ms);
  g_string_append (s, ", ");
  json_number (s, "mad_ms", t->mad_ms);
  g_string_append (s, ", ");
  json_number (s, "min_ms", t->min_ms);
  g_string_append (s, ", ");
  json_number (s, "max_ms", t->max_ms);
  g_string_append_printf (s, ", \"n\": %u}", t->n);
}

static char *
to_json (KsEngine *engine, const char *op, const char *gl, const char *interop, guint frames,
         const GArray *results)
{
  GString *s = g_string_new ("{\n  \"device\": ");
  KsDevice *device = ks_engine_get_device (engine);

  ks_cli_json_string (s, ks_device_get_name (device));
  g_string_append (s, ",\n  \"device_id\": ");
  ks_cli_json_string (s, ks_device_get_id (device));
  g_string_append (s, ",\n  \"op\": ");
  ks_cli_json_string (s, op);
  g_string_append (s, ",\n  \"gl\": ");
  ks_cli_json_string (s, gl);
  g_string_append (s, ",\n  \"interop\": ");
  ks_cli_json_string (s, interop);
  g_string_append_printf (s, ",\n  \"frames\": %u,\n  \"warmup_frames\": %u,\n", frames,
                          WARMUP_FRAMES);
  g_string_append (s, "  \"frame_time\": \"host wall clock around the whole frame, after "
                      "glFinish\",\n  \"sizes\": [");
  for (guint i = 0; i < results->len; i++)
    {
      const SizeResult *r = &g_array_index (results, SizeResult, i);

      g_string_append_printf (s, "%s\n    {\"width\": %u, \"height\": %u, ", i > 0 ? "," : "",
                              r->width, r->height);
      json_timing (s, "interop_frame", &r->interop_wall);
      g_string_append (s, ",\n     ");
      json_timing (s, "copy_frame", &r->copy_wall);
      g_string_append (s, ",\n     ");
      json_timing (s, "kernel", &r->kernel);
      g_string_append (s, ",\n     ");
      json_timing (s, "interop_cuda", &r->interop_cuda);
      g_string_append (s, ",\n     ");
      json_timing (s, "download_cuda", &r->download);
      g_string_append (s, ",\n     ");
      json_number (s, "ratio_copy_over_interop", r->ratio);
      g_string_append (s, ", \"same_pixels\": true}");
    }
  g_string_append (s, "\n  ]\n}\n");
  return g_string_free (s, FALSE);
}

static void
print_table (const GArray *results)
{
  printf ("\n%-11s %22s %22s %8s %9s %11s %10s\n", "", "(a) interop frame", "(b) copy frame",
          "", "op", "(a) CUDA", "(b) CUDA");
  /* %s pads bytes, and "±" takes two: one more for the columns that show it. */
  printf ("%-11s %23s %23s %8s %9s %11s %10s\n", "size", "median ± MAD (ms)", "median ± MAD (ms)",
          "b / a", "kernel", "map+copy", "download");
  for (guint i = 0; i < results->len; i++)
    {
      const SizeResult *r = &g_array_index (results, SizeResult, i);
      g_autofree char *size = g_strdup_printf ("%ux%u", r->width, r->height);

      printf ("%-11s %13.3f ± %6.3f %13.3f ± %6.3f %7.1f× %9.3f %11.3f %10.3f\n", size,
              r->interop_wall.median_ms, r->interop_wall.mad_ms, r->copy_wall.median_ms,
              r->copy_wall.mad_ms, r->ratio, r->kernel.median_ms, r->interop_cuda.median_ms,
              r->download.median_ms);
    }
  printf ("(frame: min–max in the JSON; op, map+copy, download: CUDA-event medians)\n");
  for (guint i = 0; i < results->len; i++)
    {
      const SizeResult *r = &g_array_index (results, SizeResult, i);

      if (r->width == TARGET_WIDTH && r->height == TARGET_HEIGHT)
        printf ("\nAt %ux%u the interop path is %.1f× faster than download + upload "
                "(target: at least %.0f×, %s).\n", r->width, r->height, r->ratio, TARGET_RATIO,
                r->ratio >= TARGET_RATIO ? "met" : "NOT met");
    }
}

int
ks_cli_cmd_bench_display (int argc, char **argv)
{
  g_autofree char *sizes_text = NULL;
  g_autofree char *op_name = NULL;
  g_autofree char *json_path = NULL;
  int repeat = 0, device = -1;
  gboolean help = FALSE;
  const GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_text,
      "Image sizes (default " DEFAULT_SIZES ")", "WxH,…" },
    { "op", 0, 0, G_OPTION_ARG_STRING, &op_name, "The op run each frame (default invert)", "OP" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
      "Timed frames per path and size after the warm-up (default 100, at least 50)", "N" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, "CUDA device ordinal (default 0)", "N" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json_path, "Also write the results as JSON", "FILE" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_auto (GStrv) args = NULL;
  g_auto (GStrv) size_list = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsEglContext) egl = NULL;
  g_autoptr (KsInterop) interop = NULL;
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
             "against (b) ks_engine_download and glTexSubImage2D from host memory. Frames end "
             "with glFinish and are timed with the host clock around the whole frame.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!ks_cli_parse_options (context, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
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

  printf ("Display path: %s on %s (%s), %u frames per path and size after %u warm-up frames\n",
          op->id, ks_device_get_name (ks_engine_get_device (engine)),
          ks_device_get_id (ks_engine_get_device (engine)), frames, WARMUP_FRAMES);
  printf ("OpenGL:  %s\n", ks_egl_context_describe (egl));
  printf ("Interop: %s\n", ks_interop_describe (interop));
  printf ("(a) interop: op → map the GL pixel buffer, cudaMemcpy2DAsync device to device, unmap\n"
          "             → glTexSubImage2D from the pixel buffer → glFinish\n"
          "(b) copy:    op → ks_engine_download (device → pinned staging → new host image)\n"
          "             → glTexSubImage2D from host memory → glFinish\n"
          "Frame times are host wall-clock time (g_get_monotonic_time) around the whole frame,\n"
          "read after glFinish: the honest end-to-end cost of a frame, op included. CUDA events\n"
          "cannot see GL's share; they time only the CUDA parts, shown on the right.\n");
  fflush (stdout);

  glGenTextures (2, textures);
  results = g_array_new (FALSE, TRUE, sizeof (SizeResult));
  g_array_set_clear_func (results, size_result_clear);
  for (guint i = 0; i < n_sizes; i++)
    {
      SizeResult r;

      memset (&r, 0, sizeof r);
      if (!measure_size (engine, op, interop, textures, widths[i], heights[i], frames, &r,
                         &error))
        {
          size_result_clear (&r);
          g_prefix_error (&error, "at %ux%u: ", widths[i], heights[i]);
          goto out;
        }
      g_array_append_val (results, r);
    }

  print_table (results);
  if (json_path != NULL)
    {
      g_autofree char *json = to_json (engine, op->id, ks_egl_context_describe (egl),
                                       ks_interop_describe (interop), frames, results);

      if (!g_file_set_contents (json_path, json, -1, &error))
        goto out;
      printf ("\nwrote %s\n", json_path);
    }
  ret = KS_CLI_EXIT_OK;

out:
  /* GL objects go while the context is still current; the context last. */
  g_clear_pointer (&interop, ks_interop_free);
  glDeleteTextures (2, textures);
  g_clear_pointer (&egl, ks_egl_context_free);
  if (ret != KS_CLI_EXIT_OK)
    return ks_cli_report_error (error);
  return ret;
}
