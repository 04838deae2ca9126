/* test-cuda-sanitize.c: every built-in kernel of the CUDA engine, a few
 * times each on small images, for compute-sanitizer's four tools
 * (build-aux/gpu-check.sh --sanitize runs this program under memcheck,
 * racecheck, initcheck and synccheck).
 *
 * The ops come from the registry, so a new op is covered without a change
 * here. An op's settings are its defaults and each parameter changed on its
 * own: every choice, both values of a boolean, the ends of a numeric range.
 * In every input format the op accepts,
 *  - each distinct kernel that its settings select (each element-wise
 *    function, the histogram's shared and global methods, the filters'
 *    direct kernels of radius 1 to 3 and their tiled ones, the resize modes)
 *    runs under every launch case: 1 to 16 pixels per thread, per-pixel and
 *    grid-stride, plain and instrumented (the coverage kernels), which are
 *    the template parameters of every kernel family;
 *  - every setting runs with the op's default launch on 128×64 and with one
 *    of the launch cases on 61×37.
 * The engine's other device paths run once: uploads into new and existing
 * buffers, downloads, pixel reads, fills, engine-allocated outputs, the
 * timing protocol with both L2 evictions, and the copy bandwidth. OpenGL
 * interop is left to test-interop.
 *
 * The images are 61×37 (the last blocks hang over both edges) and 128×64,
 * sized for a run of a minute or two under memcheck, the slowest tool, where
 * the filter suite alone takes over ten minutes. Every run is held to the
 * CPU engine, exactly (both engines do integer arithmetic throughout), over
 * outputs poisoned before the run, with the same coverage when
 * instrumented: a clean sanitizer report on wrong pixels would prove little.
 *
 * Without a usable GPU it prints a TAP plan of 0 with the reason and exits 77,
 * which meson reports as skipped. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-test-helpers.h"
#include "ks-op-registry.h"

/* Outputs beyond this are left out (a resize to 16384 pixels tall runs from
 * the small input only): the tools' cost grows with the threads. */
#define MAX_OUTPUT_PIXELS (1u << 19)

static KsEngine *cpu;
static KsEngine *gpu;

/* For the summary after the run. */
static guint64 n_runs;
static guint64 n_launches;
static guint64 n_suggested;

static const guint odd_size[2] = { 61, 37 };
static const guint even_size[2] = { 128, 64 };
static const KsFormat formats[] = { KS_FORMAT_RGBA8, KS_FORMAT_GRAY8 };
static const guint ppts[] = { 1, 2, 4, 8, 16 };
#define N_LAUNCH_CASES (G_N_ELEMENTS (ppts) * 2 * 2)

/* Random inputs, uploaded once to both engines. */
typedef struct
{
  KsImage *images[KS_OP_MAX_INPUTS];
  KsBuffer *on_cpu[KS_OP_MAX_INPUTS];
  KsBuffer *on_gpu[KS_OP_MAX_INPUTS];
} Inputs;

static void
inputs_free (Inputs *in)
{
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    {
      g_clear_pointer (&in->images[i], ks_image_unref);
      g_clear_pointer (&in->on_cpu[i], ks_buffer_unref);
      g_clear_pointer (&in->on_gpu[i], ks_buffer_unref);
    }
  g_free (in);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Inputs, inputs_free)

static Inputs *
inputs_new (KsFormat format, const guint size[2])
{
  Inputs *in = g_new0 (Inputs, 1);

  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    {
      g_autoptr (GError) error = NULL;
      guint32 seed = g_test_rand_int ();

      g_test_message ("%s %u×%u input %u: seed %u", ks_format_name (format), size[0], size[1],
                      i, seed);
      in->images[i] = ks_test_random_image (format, size[0], size[1], seed);
      in->on_cpu[i] = ks_engine_upload (cpu, in->images[i], NULL, &error);
      g_assert_no_error (error);
      in->on_gpu[i] = ks_engine_upload (gpu, in->images[i], NULL, &error);
      g_assert_no_error (error);
    }
  return in;
}

/* Launch case i of N_LAUNCH_CASES. Per-pixel: 32×4 blocks on the automatic
 * grid, whose last blocks hang over the 61×37 image's right and bottom
 * edges. Grid-stride: a 2×2 grid of 24×3 blocks, each with a partial last
 * warp, that strides over the image several times. */
static KsLaunchConfig
launch_case (guint i, gboolean *instrument)
{
  guint ppt = ppts[i % G_N_ELEMENTS (ppts)];
  gboolean stride = (i / G_N_ELEMENTS (ppts)) % 2;

  *instrument = (i / (2 * G_N_ELEMENTS (ppts))) % 2;
  return stride ? ks_test_launch (24, 3, 2, 2, KS_LAUNCH_GRID_STRIDE, ppt)
                : ks_test_launch (32, 4, 0, 0, KS_LAUNCH_PER_PIXEL, ppt);
}

static char *
describe_launch (const KsLaunchConfig *c, gboolean instrument)
{
  char block[32], grid[32], ppt[16];

  ks_dim3_format (&c->block, block, sizeof block);
  ks_dim3_format (&c->grid, grid, sizeof grid);
  if (c->pixels_per_thread == 0)
    g_strlcpy (ppt, "the op's", sizeof ppt);
  else
    g_snprintf (ppt, sizeof ppt, "%u", c->pixels_per_thread);
  return g_strdup_printf ("block %s, grid %s, %s pixels per thread, %s%s", block,
                          c->auto_grid ? "auto" : grid, ppt,
                          c->mode == KS_LAUNCH_GRID_STRIDE ? "grid-stride" : "per-pixel",
                          instrument ? ", instrumented" : "");
}

/* Runs request on engine with these inputs, into an output poisoned with
 * KS_TEST_POISON; *out gets the output downloaded (NULL for histograms). */
static void
run_on (KsEngine *engine, const KsRunRequest *base, KsBuffer *const *inputs, KsImage **out,
        KsRunResult *result)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBuffer) output = NULL;
  KsRunRequest request = *base;
  const KsOp *op = request.op;
  gboolean ok;

  *out = NULL;
  for (guint i = 0; i < op->n_inputs; i++)
    request.inputs[i] = inputs[i];
  if (op->output_kind == KS_OP_OUTPUT_IMAGE)
    {
      guint w, h;

      ks_op_output_size (op, &request.params, ks_buffer_get_width (inputs[0]),
                         ks_buffer_get_height (inputs[0]), &w, &h);
      output = ks_engine_new_buffer (engine, op->output_format, w, h, &error);
      g_assert_no_error (error);
      ok = ks_engine_fill (engine, output, KS_TEST_POISON, &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      request.output = output;
    }
  ok = ks_engine_run (engine, &request, result, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  if (output != NULL)
    {
      g_assert_true (result->output == output);
      *out = ks_engine_download (engine, output, NULL, &error);
      g_assert_no_error (error);
    }
}

/* Runs the request on both engines and holds CUDA to the CPU engine: the
 * same resolved launch (but for an automatic grid-stride grid, which each
 * sizes to its own device), the same bytes, poison included, the same
 * histograms, and the same coverage, which must reach every pixel once. A
 * launch that the device refuses for this kernel (its registers) runs as the
 * device's suggestion on both engines. */
static void
compare (const KsRunRequest *base, const Inputs *in, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) oc = NULL;
  g_autoptr (KsImage) og = NULL;
  KsRunRequest request = *base;
  const KsOp *op = request.op;
  KsLaunchConfig suggestion;
  gboolean suggested = FALSE;
  KsRunResult rc, rg;

  for (guint i = 0; i < op->n_inputs; i++)
    request.inputs[i] = in->on_gpu[i];
  if (!ks_engine_validate (gpu, &request, NULL, &suggestion, &error))
    {
      g_assert_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG);
      g_test_message ("%s: %s; running the suggested launch", what, error->message);
      request.launch = suggestion;
      suggested = TRUE;
      n_suggested++;
    }
  run_on (gpu, &request, in->on_gpu, &og, &rg);
  run_on (cpu, &request, in->on_cpu, &oc, &rc);
  n_runs++;
  /* Kinds with a pass before the kernel (equalisation) launch the histogram first. */
  n_launches += op->impl->kind->before_run != NULL ? 2 : 1;

  if (!(rc.launch.auto_grid && rc.launch.mode == KS_LAUNCH_GRID_STRIDE))
    g_assert_cmpmem (&rc.launch, sizeof rc.launch, &rg.launch, sizeof rg.launch);
  if (oc != NULL)
    ks_test_assert_images_equal (oc, og, what);
  else
    g_assert_cmpmem (rc.histogram, sizeof rc.histogram, rg.histogram, sizeof rg.histogram);
  if (request.instrument)
    {
      g_assert_false (rc.launch.auto_grid && rc.launch.mode == KS_LAUNCH_GRID_STRIDE);
      ks_test_assert_coverage_equal (rc.coverage, rg.coverage, what);
      if (!suggested)
        {
          g_assert_cmpuint (rg.coverage->unwritten_pixels, ==, 0);
          g_assert_cmpuint (rg.coverage->multiply_written_pixels, ==, 0);
        }
    }
  ks_run_result_clear (&rc);
  ks_run_result_clear (&rg);
}

static void
assert_gpu_usable (void)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = ks_engine_check_usable (gpu, &error);

  g_assert_no_error (error);
  g_assert_true (ok);
}

/* ---- the op's settings ------------------------------------------------------- */

typedef struct
{
  KsParams params;
  char *name;
} Variant;

static void
variant_clear (gpointer data)
{
  Variant *v = data;

  g_free (v->name);
}

static void
add_variant (GArray *variants, const KsParams *defaults, const KsParamSpec *spec, guint index,
             double value)
{
  g_autofree char *text = NULL;
  Variant v;

  if (value == defaults->values[index])
    return;
  /* Once per value: the ends of a short range can meet. */
  for (guint i = 1; i < variants->len; i++)
    {
      const Variant *w = &g_array_index (variants, Variant, i);
      if (w->params.values[index] == value)
        return;
    }
  v.params = *defaults;
  v.params.values[index] = value;
  text = ks_param_format_value (spec, value);
  v.name = g_strdup_printf ("%s=%s", spec->name, text);
  g_array_append_val (variants, v);
}

/* The defaults, then each parameter changed on its own: every choice, both
 * values of a boolean, the ends of a numeric range and, for an integer, the
 * two values above its minimum (box blurs of radius 1, 2 and 3 each have a
 * direct kernel of their own, larger radii the tiled one). */
static GArray *
op_variants (const KsOp *op)
{
  GArray *variants = g_array_new (FALSE, TRUE, sizeof (Variant));
  KsParams defaults;
  Variant first;

  g_array_set_clear_func (variants, variant_clear);
  ks_params_init (&defaults, op);
  first.params = defaults;
  first.name = g_strdup ("defaults");
  g_array_append_val (variants, first);
  for (guint p = 0; p < op->n_params; p++)
    {
      const KsParamSpec *spec = &op->params[p];

      switch (spec->type)
        {
        case KS_PARAM_BOOL:
          add_variant (variants, &defaults, spec, p, 0);
          add_variant (variants, &defaults, spec, p, 1);
          break;
        case KS_PARAM_CHOICE:
          for (guint c = 0; spec->choices[c] != NULL; c++)
            add_variant (variants, &defaults, spec, p, c);
          break;
        case KS_PARAM_INT:
          for (guint k = 0; k < 3; k++)
            add_variant (variants, &defaults, spec, p, MIN (spec->min + k, spec->max));
          add_variant (variants, &defaults, spec, p, spec->max);
          break;
        case KS_PARAM_DOUBLE:
        default:
          add_variant (variants, &defaults, spec, p, spec->min);
          add_variant (variants, &defaults, spec, p, spec->max);
          break;
        }
    }
  return variants;
}

static guint
registry_index (const KsOp *op)
{
  guint i = 0;

  while (i < ks_op_registry_count () && ks_op_registry_get (i) != op)
    i++;
  g_assert_cmpuint (i, <, ks_op_registry_count ());
  return i;
}

/* What picks the kernel of a prepared run (_ks_run_kernel_key: the kind,
 * the element-wise function, the kind's variant: the histogram's method,
 * the filter and its radius, the resize mode). Settings that differ only in
 * other ways (a table, a weight, a threshold, a Sobel mode read at run time)
 * run the same kernels. */
static char *
kernel_key (const KsOp *op, const KsParams *params)
{
  KsKernelRun run;

  memset (&run, 0, sizeof run);
  run.op = op;
  _ks_op_prepare (op, params, 61, 37, &run);
  return _ks_run_kernel_key (&run);
}

/* Every launch case for each kernel the op's settings select, in each
 * format, on the 61×37 image. */
static void
test_launches (gconstpointer data)
{
  const KsOp *op = data;
  g_autoptr (GArray) variants = op_variants (op);
  g_autoptr (GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GString) names = g_string_new (NULL);
  guint64 runs = n_runs, launches = n_launches;

  for (guint v = 0; v < variants->len; v++)
    {
      const Variant *variant = &g_array_index (variants, Variant, v);
      guint w, h;

      ks_op_output_size (op, &variant->params, odd_size[0], odd_size[1], &w, &h);
      if (!ks_params_validate (&variant->params, op, NULL) || (guint64) w * h > MAX_OUTPUT_PIXELS
          || !g_hash_table_add (keys, kernel_key (op, &variant->params)))
        continue;
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", variant->name);
      for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
        {
          g_autoptr (Inputs) in = NULL;

          if (!ks_op_accepts_format (op, formats[f]))
            continue;
          in = inputs_new (formats[f], odd_size);
          for (guint i = 0; i < N_LAUNCH_CASES; i++)
            {
              KsRunRequest request;
              g_autofree char *launch = NULL;
              g_autofree char *what = NULL;

              ks_run_request_init (&request, op);
              request.params = variant->params;
              request.launch = launch_case (i, &request.instrument);
              launch = describe_launch (&request.launch, request.instrument);
              what = g_strdup_printf ("%s %s, %s, %u×%u, %s", op->id, variant->name,
                                      ks_format_name (formats[f]), odd_size[0], odd_size[1],
                                      launch);
              compare (&request, in, what);
            }
        }
    }
  g_test_message ("%s: %u kernel selections (%s), %" G_GUINT64_FORMAT " runs, %"
                  G_GUINT64_FORMAT " kernel launches", op->id, g_hash_table_size (keys),
                  names->str, n_runs - runs, n_launches - launches);
  assert_gpu_usable ();
}

/* Each variant in each format: once with the op's default launch on the
 * 128×64 image, once on the 61×37 image with one of the launch cases, which
 * the variants take in turn (7 is prime to their number, so an op's
 * variants spread over all of them, and each op starts elsewhere). */
static void
test_variants (gconstpointer data)
{
  const KsOp *op = data;
  g_autoptr (GArray) variants = op_variants (op);
  guint64 runs = n_runs, launches = n_launches;
  guint next = registry_index (op);

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autoptr (Inputs) even = NULL;
      g_autoptr (Inputs) odd = NULL;

      if (!ks_op_accepts_format (op, formats[f]))
        continue;
      even = inputs_new (formats[f], even_size);
      odd = inputs_new (formats[f], odd_size);
      for (guint v = 0; v < variants->len; v++)
        {
          const Variant *variant = &g_array_index (variants, Variant, v);
          g_autoptr (GError) error = NULL;

          if (!ks_params_validate (&variant->params, op, &error))
            {
              g_test_message ("%s %s: not a valid setting: %s", op->id, variant->name,
                              error->message);
              continue;
            }
          for (guint s = 0; s < 2; s++)
            {
              const guint *size = s == 0 ? even_size : odd_size;
              KsRunRequest request;
              g_autofree char *launch = NULL;
              g_autofree char *what = NULL;
              guint w, h;

              ks_run_request_init (&request, op);
              request.params = variant->params;
              if (s == 1)
                {
                  request.launch = launch_case (next % N_LAUNCH_CASES, &request.instrument);
                  next += 7;
                }
              launch = describe_launch (&request.launch, request.instrument);
              what = g_strdup_printf ("%s %s, %s, %u×%u, %s", op->id, variant->name,
                                      ks_format_name (formats[f]), size[0], size[1], launch);
              ks_op_output_size (op, &request.params, size[0], size[1], &w, &h);
              if ((guint64) w * h > MAX_OUTPUT_PIXELS)
                {
                  g_test_message ("%s: left out, the output is %u×%u", what, w, h);
                  continue;
                }
              compare (&request, s == 0 ? even : odd, what);
            }
        }
    }
  {
    g_autoptr (GString) names = g_string_new (NULL);

    for (guint v = 0; v < variants->len; v++)
      g_string_append_printf (names, "%s%s", v ? ", " : "",
                              g_array_index (variants, Variant, v).name);
    g_test_message ("%s: %u settings (%s), %" G_GUINT64_FORMAT " runs, %" G_GUINT64_FORMAT
                    " kernel launches", op->id, variants->len, names->str, n_runs - runs,
                    n_launches - launches);
  }
  assert_gpu_usable ();
}

/* ---- the engine's other device paths ---------------------------------------- */

/* Uploads into new and existing buffers, downloads, single pixels and fills,
 * in both formats and at both sizes. */
static void
test_transfers (void)
{
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint s = 0; s < 2; s++)
      {
        const guint *size = s == 0 ? even_size : odd_size;
        guint w = size[0], h = size[1];
        g_autoptr (KsImage) a = ks_test_random_image (formats[f], w, h, g_test_rand_int ());
        g_autoptr (KsImage) b = ks_test_random_image (formats[f], w, h, g_test_rand_int ());
        g_autoptr (KsImage) back = NULL;
        g_autoptr (KsImage) filled = NULL;
        g_autoptr (KsBuffer) buffer = NULL;
        g_autoptr (GError) error = NULL;
        const guint points[][2] = { { 0, 0 }, { w - 1, 0 }, { 0, h - 1 }, { w - 1, h - 1 },
                                    { w / 2, h / 2 } };
        double ms = -1;
        gboolean ok;

        buffer = ks_engine_upload (gpu, a, &ms, &error);
        g_assert_no_error (error);
        g_assert_cmpfloat (ms, >=, 0);
        g_assert_cmpuint (ks_buffer_get_pitch (buffer) % 256, ==, 0);
        back = ks_engine_download (gpu, buffer, &ms, &error);
        g_assert_no_error (error);
        ks_test_assert_images_equal (a, back, "download of an upload");
        for (guint p = 0; p < G_N_ELEMENTS (points); p++)
          {
            guint32 rgba = 0;

            ok = ks_engine_read_pixel (gpu, buffer, points[p][0], points[p][1], &rgba, &error);
            g_assert_no_error (error);
            g_assert_true (ok);
            g_assert_cmphex (rgba, ==, ks_image_get_rgba (a, points[p][0], points[p][1]));
          }

        ok = ks_engine_upload_into (gpu, b, buffer, &ms, &error);
        g_assert_no_error (error);
        g_assert_true (ok);
        g_clear_pointer (&back, ks_image_unref);
        back = ks_engine_download (gpu, buffer, NULL, &error);
        g_assert_no_error (error);
        ks_test_assert_images_equal (b, back, "download after an upload into the buffer");

        ok = ks_engine_fill (gpu, buffer, KS_TEST_POISON, &error);
        g_assert_no_error (error);
        g_assert_true (ok);
        filled = ks_engine_download (gpu, buffer, NULL, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (ks_test_count_filled_pixels (filled, KS_TEST_POISON), ==,
                          (guint64) w * h);
      }
  assert_gpu_usable ();
}

/* An output the engine allocates; the timing protocol (warm-up and timed
 * runs, through ks_engine_process) with the L2 evicted by reading and by
 * overwriting before every run; the eviction on its own; the device copy. */
static void
test_engine_paths (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) a = ks_test_random_image (KS_FORMAT_RGBA8, odd_size[0], odd_size[1],
                                                g_test_rand_int ());
  KsImage *inputs[] = { a, NULL };
  const char *const ops[] = { "gray", "histogram" };
  const KsCacheFlush flushes[] = { KS_CACHE_FLUSH_READ, KS_CACHE_FLUSH_WRITE };
  double gbs = 0;
  KsTiming timing = { 0 };
  gboolean ok;

  /* No output buffer in the request: the engine allocates it. */
  {
    g_autoptr (KsBuffer) in_gpu = NULL;
    g_autoptr (KsBuffer) in_cpu = NULL;
    g_autoptr (KsImage) og = NULL;
    g_autoptr (KsImage) oc = NULL;
    KsRunRequest request;
    KsRunResult rg, rc;

    in_gpu = ks_engine_upload (gpu, a, NULL, &error);
    g_assert_no_error (error);
    in_cpu = ks_engine_upload (cpu, a, NULL, &error);
    g_assert_no_error (error);
    ks_run_request_init (&request, ks_op_registry_lookup ("invert"));
    request.inputs[0] = in_gpu;
    ok = ks_engine_run (gpu, &request, &rg, &error);
    g_assert_no_error (error);
    g_assert_true (ok);
    request.inputs[0] = in_cpu;
    ok = ks_engine_run (cpu, &request, &rc, &error);
    g_assert_no_error (error);
    g_assert_true (ok);
    n_runs++;
    n_launches++;
    og = ks_engine_download (gpu, rg.output, NULL, &error);
    g_assert_no_error (error);
    oc = ks_engine_download (cpu, rc.output, NULL, &error);
    g_assert_no_error (error);
    ks_test_assert_images_equal (oc, og, "invert into an output the engine allocated");
    ks_run_result_clear (&rg);
    ks_run_result_clear (&rc);
  }

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autoptr (KsImage) og = NULL;
      g_autoptr (KsImage) oc = NULL;
      KsTimingOptions options;
      KsStageTimes times;
      KsRunRequest request;
      KsRunResult rg, rc;

      ks_run_request_init (&request, ks_op_registry_lookup (ops[i]));
      ks_timing_options_init (&options, 2);
      options.flush = flushes[i];
      ok = ks_engine_process (gpu, &request, inputs, &options, &og, &rg, &times, &timing,
                              &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      g_assert_cmpuint (timing.n, ==, 2);
      g_assert_cmpfloat (times.upload_ms, >=, 0);
      g_assert_cmpfloat (times.kernel_ms, >=, 0);
      ok = ks_engine_process (cpu, &request, inputs, NULL, &oc, &rc, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      /* The warm-up and two timed runs. */
      n_runs++;
      n_launches += 3;
      if (oc != NULL)
        ks_test_assert_images_equal (oc, og, "measured through ks_engine_process");
      else
        g_assert_cmpmem (rc.histogram, sizeof rc.histogram, rg.histogram, sizeof rg.histogram);
      ks_run_result_clear (&rg);
      ks_run_result_clear (&rc);
      ks_timing_clear (&timing);
    }

  for (guint i = 0; i < G_N_ELEMENTS (flushes); i++)
    {
      ok = ks_engine_flush_caches (gpu, flushes[i], &error);
      g_assert_no_error (error);
      g_assert_true (ok);
    }

  ok = ks_engine_measure_copy_bandwidth (gpu, 1u << 20, 2, &gbs, &timing, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (timing.n, ==, 2);
  g_assert_cmpfloat (gbs, >, 0);
  ks_timing_clear (&timing);
  assert_gpu_usable ();
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!ks_test_require_cuda (KS_TEST_NEEDS_CUDA))
    return KS_TEST_SKIPPED;

  gpu = ks_test_cuda_engine ();
  cpu = ks_test_cpu_engine ();

  g_test_add_func ("/ks/cuda/sanitize/engine/transfers", test_transfers);
  g_test_add_func ("/ks/cuda/sanitize/engine/paths", test_engine_paths);
  for (guint i = 0; i < ks_op_registry_count (); i++)
    {
      const KsOp *op = ks_op_registry_get (i);
      g_autofree char *launches = g_strdup_printf ("/ks/cuda/sanitize/%s/launches", op->id);
      g_autofree char *variants = g_strdup_printf ("/ks/cuda/sanitize/%s/variants", op->id);

      g_test_add_data_func (launches, op, test_launches);
      g_test_add_data_func (variants, op, test_variants);
    }

  ret = g_test_run ();
  g_print ("# %" G_GUINT64_FORMAT " runs on each engine, %" G_GUINT64_FORMAT
           " kernel launches of the ops on CUDA, %" G_GUINT64_FORMAT
           " launches the device refused and ran as its suggestion\n",
           n_runs, n_launches, n_suggested);
  /* Every device allocation is freed before the process exits, for memcheck's
   * leak check. */
  g_clear_object (&gpu);
  g_clear_object (&cpu);
  return ret;
}
