/* ks-bench.c: the benchmark of every op (see ks-bench.h): which rows a
 * selection names, the inputs they share, and each row measured: our kernel
 * with the timing protocol, the shared histogram's limits, and NPP's
 * equivalent on the same device buffers, checked against ours.
 *
 * One piece because every row is measured against one BenchState (the
 * inputs uploaded once, the timing options, the NPP handle), and that is
 * what makes NPP's time and the limits comparable with ours: the selection
 * parser makes the BenchItems that measure_item consumes, and a change to
 * how a row is run changes how its NPP peer and its limits are run. */
#include "config.h"

#include "ks-bench.h"

#include <math.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"
#include "ks-npp.h"
#include "ks-op-registry.h"
#if HAVE_CUDA
# include "ks-kernels.h"
#endif

/* Fixed seeds: every run of the benchmark sees the same pixels. */
#define SEED_A 0x5eed0001u
#define SEED_B 0x5eed0002u

/* One row to measure: an op, one of its histogram methods, an input format. */
typedef struct
{
  const KsOp *op;
  const char *method;   /* a choice id of the op's "method" parameter, or NULL */
  KsFormat format;
} BenchItem;

/* What the benchmark shares between rows: inputs are uploaded once. */
typedef struct
{
  KsEngine *engine;
  guint width;
  guint height;
  guint repeats;
  const KsBenchOptions *options;
  KsBuffer *rgba[2];
  KsBuffer *gray;
  KsNpp *npp;
  KsTimingOptions timing;   /* ours and NPP's alike */
} BenchState;

void
ks_bench_options_init (KsBenchOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
}

static void
bench_npp_free (KsBenchNpp *npp)
{
  if (npp == NULL)
    return;
  g_free (npp->name);
  ks_timing_clear (&npp->timing);
  g_free (npp);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsBenchNpp, bench_npp_free)

static void
bench_row_clear (gpointer data)
{
  KsBenchRow *row = data;

  g_clear_pointer (&row->id, g_free);
  g_clear_pointer (&row->method, g_free);
  g_clear_pointer (&row->npp, bench_npp_free);
  g_clear_pointer (&row->npp_note, g_free);
  ks_timing_clear (&row->timing);
}

void
ks_bench_report_free (KsBenchReport *report)
{
  if (report == NULL)
    return;
  g_free (report->device_name);
  g_free (report->device_id);
  g_free (report->copy_note);
  g_free (report->npp_version);
  g_free (report->npp_note);
  ks_timing_clear (&report->copy_timing);
  g_clear_pointer (&report->rows, g_array_unref);
  g_free (report);
}

/* The op's "method" choice parameter, when it has one. */
static const KsParamSpec *
method_spec (const KsOp *op)
{
  const KsParamSpec *spec = ks_op_lookup_param (op, "method", NULL);

  return spec != NULL && spec->type == KS_PARAM_CHOICE && spec->choices != NULL ? spec : NULL;
}

/* Ops that take GRAY8 too (the histogram, Sobel) are also measured on it: the
 * format NPP's main histogram and its Sobel take. */
static gboolean
op_wants_gray_row (const KsOp *op)
{
  return ks_op_accepts_format (op, KS_FORMAT_GRAY8);
}

/* "op", then in brackets the method (or the tag) and "rgba8" for the RGBA row
 * of an op that also has a GRAY8 one. */
static char *
item_id (const BenchItem *item)
{
  gboolean tag_format = item->format == KS_FORMAT_RGBA8 && op_wants_gray_row (item->op);
  g_autofree char *format = g_ascii_strdown (ks_format_name (item->format), -1);
  const char *first = item->method != NULL ? item->method : item->op->impl->bench_tag;

  if (first != NULL && tag_format)
    return g_strdup_printf ("%s[%s,%s]", item->op->id, first, format);
  if (first != NULL)
    return g_strdup_printf ("%s[%s]", item->op->id, first);
  if (tag_format)
    return g_strdup_printf ("%s[%s]", item->op->id, format);
  return g_strdup (item->op->id);
}

static gboolean
format_from_name (const char *name, KsFormat *format)
{
  if (g_ascii_strcasecmp (name, "rgba8") == 0 || g_ascii_strcasecmp (name, "rgba") == 0)
    *format = KS_FORMAT_RGBA8;
  else if (g_ascii_strcasecmp (name, "gray8") == 0 || g_ascii_strcasecmp (name, "gray") == 0)
    *format = KS_FORMAT_GRAY8;
  else
    return FALSE;
  return TRUE;
}

/* Appends the rows of one op: every method (or only `method`), on GRAY8 and
 * RGBA8 where the op takes both (or only `format`). */
static void
add_items (GArray *items, const KsOp *op, const char *method, const KsFormat *format)
{
  const KsParamSpec *spec = method_spec (op);
  KsFormat formats[2];
  guint n_formats = 0;

  if (op_wants_gray_row (op))
    formats[n_formats++] = KS_FORMAT_GRAY8;
  formats[n_formats++] = KS_FORMAT_RGBA8;

  for (guint f = 0; f < n_formats; f++)
    {
      if (format != NULL && formats[f] != *format)
        continue;
      if (spec == NULL)
        {
          BenchItem item = { op, NULL, formats[f] };

          g_array_append_val (items, item);
          continue;
        }
      for (guint c = 0; spec->choices[c] != NULL; c++)
        {
          BenchItem item = { op, spec->choices[c], formats[f] };

          if (method != NULL && strcmp (method, spec->choices[c]) != 0)
            continue;
          g_array_append_val (items, item);
        }
    }
}

static char *
known_ops (void)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < ks_op_registry_count (); i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", ks_op_registry_get (i)->id);
  return g_string_free (s, FALSE);
}

/* "histogram", "histogram[shared]", "histogram[global,rgba8]", "invert". */
static gboolean
parse_selection (const char *text, GArray *items, GError **error)
{
  g_autofree char *id = g_strstrip (g_strdup (text));
  char *bracket = strchr (id, '[');
  const char *method = NULL;
  KsFormat format;
  gboolean have_format = FALSE;
  const KsOp *op;

  if (bracket != NULL)
    {
      char *end = strchr (bracket, ']');
      g_auto (GStrv) tokens = NULL;

      if (end == NULL || end[1] != '\0')
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s” is not an op: write op or op[method] or op[method,rgba8]", text);
          return FALSE;
        }
      *bracket = '\0';
      *end = '\0';
      tokens = g_strsplit (bracket + 1, ",", -1);
      op = ks_op_registry_lookup (id);
      if (op == NULL)
        goto unknown_op;
      for (guint i = 0; tokens[i] != NULL; i++)
        {
          const KsParamSpec *spec = method_spec (op);
          const char *token = g_strstrip (tokens[i]);
          gboolean is_method = FALSE;

          if (format_from_name (token, &format))
            {
              have_format = TRUE;
              continue;
            }
          /* "threshold[trunc]", the row's own id, selects the row. */
          if (op->impl->bench_tag != NULL && strcmp (token, op->impl->bench_tag) == 0)
            continue;
          for (guint c = 0; spec != NULL && spec->choices[c] != NULL; c++)
            if (strcmp (spec->choices[c], token) == 0)
              {
                method = spec->choices[c];
                is_method = TRUE;
              }
          if (!is_method)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "%s has no method or format “%s”", op->id, token);
              return FALSE;
            }
        }
    }
  else
    {
      op = ks_op_registry_lookup (id);
      if (op == NULL)
        goto unknown_op;
    }

  if (have_format && !ks_op_accepts_format (op, format))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s does not accept %s input",
                   op->id, ks_format_name (format));
      return FALSE;
    }
  if (have_format && format == KS_FORMAT_GRAY8 && !op_wants_gray_row (op))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s is benchmarked on RGBA8 input only", op->id);
      return FALSE;
    }
  add_items (items, op, method, have_format ? &format : NULL);
  return TRUE;

unknown_op:
  {
    g_autofree char *known = known_ops ();

    g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "unknown op “%s” (known: %s)", id,
                 known);
    return FALSE;
  }
}

static GArray *
select_items (const char *const *ops, GError **error)
{
  g_autoptr (GArray) items = g_array_new (FALSE, TRUE, sizeof (BenchItem));

  if (ops == NULL)
    {
      for (guint i = 0; i < ks_op_registry_count (); i++)
        add_items (items, ks_op_registry_get (i), NULL, NULL);
    }
  else
    {
      for (guint i = 0; ops[i] != NULL; i++)
        if (!parse_selection (ops[i], items, error))
          return NULL;
    }

  if (items->len == 0)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "no op to benchmark");
      return NULL;
    }
  return g_steal_pointer (&items);
}

static KsBuffer *
random_buffer (BenchState *state, KsFormat format, guint32 seed, GError **error)
{
  g_autoptr (KsImage) image = NULL;

  /* The given image is the first input, as RGBA or as its luma. */
  if (state->options->input != NULL && seed == SEED_A)
    {
      if (format == KS_FORMAT_GRAY8)
        {
          image = ks_image_to_gray (state->options->input, error);
          if (image == NULL)
            return NULL;
          return ks_engine_upload (state->engine, image, NULL, error);
        }
      return ks_engine_upload (state->engine, state->options->input, NULL, error);
    }
  image = ks_image_new (format, state->width, state->height, error);
  if (image == NULL)
    return NULL;
  ks_image_fill_random (image, seed);
  return ks_engine_upload (state->engine, image, NULL, error);
}

/* The uploaded input `index` in `format`, uploaded on first use. */
static KsBuffer *
input_buffer (BenchState *state, KsFormat format, guint index, GError **error)
{
  KsBuffer **slot = format == KS_FORMAT_GRAY8 ? &state->gray : &state->rgba[index];

  if (format == KS_FORMAT_GRAY8 && index > 0)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "two-input ops are benchmarked on RGBA8 only");
      return NULL;
    }
  if (*slot == NULL)
    *slot = random_buffer (state, format, index == 0 ? SEED_A : SEED_B, error);
  return *slot;
}

static double
gbs_of (guint64 bytes, double ms)
{
  return ms > 0 ? (double) bytes / (ms * 1e6) : NAN;
}

/* Device memory of at least `bytes`, through the engine so it is freed with the
 * buffer: rows of a buffer are one allocation, so pitch × height is contiguous. */
static KsBuffer *
linear_buffer (KsEngine *engine, gsize bytes, GError **error)
{
  const guint row = KS_IMAGE_MAX_SIDE;
  gsize height = MAX ((bytes + row - 1) / row, 1);

  if (height > KS_IMAGE_MAX_SIDE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "NPP wants %" G_GSIZE_FORMAT " bytes of scratch memory", bytes);
      return NULL;
    }
  return ks_engine_new_buffer (engine, KS_FORMAT_GRAY8, row, (guint) height, error);
}

/* The settings the op runs in for the benchmark (KsOpImpl.bench_settings):
 * those that make it comparable with NPP's equivalent. */
static gboolean
bench_params (const KsOp *op, KsParams *params, GError **error)
{
  g_auto (GStrv) settings = NULL;

  if (op->impl->bench_settings == NULL)
    return TRUE;
  settings = g_strsplit (op->impl->bench_settings, ",", -1);
  for (guint i = 0; settings[i] != NULL; i++)
    if (!ks_params_parse_assignment (params, op, settings[i], error))
      return FALSE;
  return TRUE;
}

/* The op's R, G and B tables, as the engines build them (the op's prepare),
 * uploaded for NPP's palette: one row of 256 bytes per channel. */
static KsBuffer *
lut_tables (BenchState *state, const KsOp *op, const KsParams *params, GError **error)
{
  KsKernelRun run;
  g_autoptr (KsImage) image = NULL;

  memset (&run, 0, sizeof run);
  _ks_op_prepare (op, params, 0, 0, &run); /* tables: for any input */
  image = ks_image_new (KS_FORMAT_GRAY8, 256, 3, error);
  if (image == NULL)
    return NULL;
  for (guint c = 0; c < 3; c++)
    memcpy (ks_image_row (image, c), run.pixel_params.lut[c], 256);
  return ks_engine_upload (state->engine, image, NULL, error);
}

/* Whether NPP computed what we did. NPP's AC4 functions leave the destination's
 * alpha alone and its Add saturates alpha too, so only colour channels count;
 * its gray rounds its own way, so within one. */
static gboolean
images_agree (const KsImage *ours, const KsImage *theirs, KsNppFunction function)
{
  guint bpp = ks_format_bytes_per_pixel (ours->format);
  guint channels = bpp == 4 ? 3 : 1;
  guint tolerance;

  /* Same definition, own rounding: within one. Resampling and the 5×5 masks
   * are NPP's own (its bilinear weights, its fixed Gaussian taps), and Sobel
   * runs on a gray image where ours reads RGBA: those only need the same
   * size and a close image, so within a few levels for resize, and the
   * others are not compared at all (see the row's note). The palette lookup
   * (with the op's own tables) and the threshold are exact: 0. */
  switch (function)
    {
    case KS_NPP_RGB_TO_GRAY_8U_AC4C1R:
    case KS_NPP_FILTER_BOX_BORDER_8U_C4R:
      tolerance = 1;
      break;
    case KS_NPP_RESIZE_8U_C4R_LINEAR:
    case KS_NPP_RESIZE_8U_C4R_NN:
      tolerance = 8;
      break;
    case KS_NPP_FILTER_GAUSS_BORDER_8U_C4R:
    case KS_NPP_FILTER_SOBEL_HORIZ_BORDER_8U_C1R:
      tolerance = 255;
      break;
    default:
      tolerance = 0;
      break;
    }

  if (ours->width != theirs->width || ours->height != theirs->height
      || ours->format != theirs->format)
    return FALSE;
  for (guint y = 0; y < ours->height; y++)
    {
      const guint8 *a = ks_image_row (ours, y);
      const guint8 *b = ks_image_row (theirs, y);

      for (guint x = 0; x < ours->width; x++)
        for (guint c = 0; c < channels; c++)
          if ((guint) ABS ((int) a[x * bpp + c] - (int) b[x * bpp + c]) > tolerance)
            return FALSE;
    }
  return TRUE;
}

static gboolean
histograms_agree (const KsRunResult *ours, const KsImage *theirs, KsNppFunction function)
{
  /* C1R: one channel, which our gray histogram repeats in all four; C4R: R, G,
   * B match ours, NPP's fourth is alpha where ours is luma. */
  guint channels = function == KS_NPP_HISTOGRAM_EVEN_8U_C1R ? 1 : 3;

  for (guint c = 0; c < channels; c++)
    {
      const guint8 *row = ks_image_row (theirs, c);

      for (guint bin = 0; bin < 256; bin++)
        {
          gint32 count;

          memcpy (&count, row + bin * sizeof count, sizeof count);
          if ((guint32) count != ours->histogram[c][bin])
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
npp_peer_of (const BenchItem *item, const KsParams *params, KsNppPeer *peer)
{
  const KsOpImpl *impl = item->op->impl;

  if (impl->npp_peer != NULL)
    return impl->npp_peer (item->op, params, item->format, peer);
  if (impl->npp != NULL)
    *peer = *impl->npp;
  return impl->npp != NULL;
}

/* NPP on the row's device buffers. FALSE only when the device is lost; any
 * other failure (NPP itself, memory for its outputs) becomes the row's note. */
static gboolean
measure_npp (BenchState *state, const BenchItem *item, const KsRunRequest *request,
             const KsRunResult *ours, KsBenchRow *row, GError **error)
{
  KsNppFunction function;
  KsNppPeer peer = { 0 };
  KsNppCall call = { 0 };
  g_autoptr (KsBuffer) dst = NULL;
  g_autoptr (KsBuffer) hist = NULL;
  g_autoptr (KsBuffer) scratch = NULL;
  g_autoptr (KsBuffer) tables = NULL;
  g_autoptr (KsImage) theirs = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (KsBenchNpp) npp = NULL;
  guint width = state->width, height = state->height;

  if (state->npp == NULL || !npp_peer_of (item, &request->params, &peer))
    return TRUE;
  function = (KsNppFunction) peer.function;

  /* Resize writes the output's size; everything else the input's. */
  ks_op_output_size (item->op, &request->params, state->width, state->height, &width, &height);
  call.function = function;
  call.width = width;
  call.height = height;
  call.src_width = state->width;
  call.src_height = state->height;
  for (guint i = 0; i < item->op->n_inputs; i++)
    {
      call.src[i] = ks_buffer_get_data (request->inputs[i]);
      call.src_pitch[i] = ks_buffer_get_pitch (request->inputs[i]);
    }
  if (function == KS_NPP_FILTER_SOBEL_HORIZ_BORDER_8U_C1R && item->format != KS_FORMAT_GRAY8)
    {
      /* NPP's Sobel has no RGBA-to-edges form: it runs on the gray image of
       * the same size, a quarter of our input bytes. */
      KsBuffer *gray = input_buffer (state, KS_FORMAT_GRAY8, 0, &local);

      if (gray == NULL)
        goto npp_failed;
      call.src[0] = ks_buffer_get_data (gray);
      call.src_pitch[0] = ks_buffer_get_pitch (gray);
      row->npp_note = g_strdup ("NPP reads GRAY8 (1 byte per pixel), ours RGBA8");
    }
  memcpy (call.order, peer.order, sizeof call.order);
  memcpy (call.thresholds, peer.thresholds, sizeof call.thresholds);
  if (function == KS_NPP_LUT_PALETTE_8U_AC4R)
    {
      if (!ks_npp_has (state->npp, function))
        {
          row->npp_note = g_strdup ("this NPP has no nppiLUTPalette_8u_AC4R_Ctx (libnppicc)");
          return TRUE;
        }
      tables = lut_tables (state, item->op, &request->params, &local);
      if (tables == NULL)
        goto npp_failed;
      for (guint c = 0; c < 3; c++)
        call.tables[c] = (const guint8 *) ks_buffer_get_data (tables)
                         + c * ks_buffer_get_pitch (tables);
      row->npp_note = g_strdup ("NPP looks up the op's own 256-entry tables (nBitSize 8)");
    }
  if (function == KS_NPP_THRESHOLD_8U_AC4R_GT)
    {
      if (!ks_npp_has (state->npp, function))
        {
          row->npp_note = g_strdup ("this NPP has no nppiThreshold_8u_AC4R_Ctx (libnppitc)");
          return TRUE;
        }
      row->npp_note = g_strdup_printf ("ours in trunc mode, level %u: NPP_CMP_GREATER",
                                       peer.thresholds[0]);
    }

  if (function == KS_NPP_HISTOGRAM_EVEN_8U_C1R || function == KS_NPP_HISTOGRAM_EVEN_8U_C4R)
    {
      guint n_hist = function == KS_NPP_HISTOGRAM_EVEN_8U_C1R ? 1 : 4;
      gsize bytes = 0;

      if (!ks_npp_scratch_size (state->npp, state->engine, function, width, height, &bytes,
                                &local))
        goto npp_failed;
      scratch = linear_buffer (state->engine, bytes, &local);
      if (scratch == NULL)
        goto npp_failed;
      /* 256 counters of 4 bytes per channel, one channel per row. */
      hist = ks_engine_new_buffer (state->engine, KS_FORMAT_GRAY8, 256 * sizeof (gint32), n_hist,
                                   &local);
      if (hist == NULL)
        goto npp_failed;
      call.scratch = ks_buffer_get_data (scratch);
      call.scratch_size = ks_buffer_get_pitch (scratch) * ks_buffer_get_height (scratch);
      for (guint c = 0; c < n_hist; c++)
        call.hist[c] = (gint32 *) ((guint8 *) ks_buffer_get_data (hist)
                                   + c * ks_buffer_get_pitch (hist));
    }
  else
    {
      KsFormat out_format = function == KS_NPP_RGB_TO_GRAY_8U_AC4C1R
                                || function == KS_NPP_FILTER_SOBEL_HORIZ_BORDER_8U_C1R
                              ? KS_FORMAT_GRAY8
                              : KS_FORMAT_RGBA8;

      dst = ks_engine_new_buffer (state->engine, out_format, width, height, &local);
      if (dst == NULL)
        goto npp_failed;
      call.dst = ks_buffer_get_data (dst);
      call.dst_pitch = ks_buffer_get_pitch (dst);
    }

  npp = g_new0 (KsBenchNpp, 1);
  if (!ks_npp_time (state->npp, state->engine, &call, &state->timing, &npp->timing, &local))
    goto npp_failed;
  npp->name = g_strdup (ks_npp_function_name (function));
  npp->gbs = gbs_of (row->bytes, npp->timing.median_ms);
  npp->ratio = npp->timing.median_ms > 0 ? row->timing.median_ms / npp->timing.median_ms : NAN;

  theirs = ks_engine_download (state->engine, dst != NULL ? dst : hist, NULL, &local);
  if (theirs == NULL)
    goto npp_failed;
  if (dst != NULL)
    {
      g_autoptr (KsImage) mine = ks_engine_download (state->engine, ours->output, NULL, &local);

      if (mine == NULL)
        goto npp_failed;
      npp->agrees = images_agree (mine, theirs, function);
      if (function == KS_NPP_FILTER_GAUSS_BORDER_8U_C4R)
        row->npp_note = g_strdup ("NPP's 5×5 Gaussian has its own fixed taps: outputs differ");
    }
  else
    {
      npp->agrees = histograms_agree (ours, theirs, function);
    }
  row->npp = g_steal_pointer (&npp);
  return TRUE;

npp_failed:
  /* After a sticky error nothing else can run: stop with the reason. */
  if (!ks_engine_check_usable (state->engine, NULL))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  g_free (row->npp_note);
  row->npp_note = g_strdup (local->message);
  return TRUE;
}

#if HAVE_CUDA
/* One of the shared histogram's limits, launched on the engine's stream:
 * shared atomics (grid, block, per_thread) or reading the image (geom, src,
 * pitch). */
typedef struct
{
  KsEngine *engine;
  int channels;
  gboolean read;
  KsDim3 grid;
  KsDim3 block;
  guint32 per_thread;
  KsGeometry geom;
  const guint8 *src;
  gsize pitch;
  guint32 *sink;
} LimitRun;

static gboolean
limit_run (KsClock *clock, gpointer user_data, GError **error)
{
  LimitRun *r = user_data;
  cudaStream_t stream = ks_engine_get_stream (r->engine);
  cudaError_t status;

  if (!ks_clock_start (clock, error))
    return FALSE;
  status = r->read ? ks_cuda_histogram_read_launch (r->geom, r->channels, r->src, r->pitch,
                                                    r->sink, stream)
                   : ks_cuda_shared_atomics_launch (r->channels, r->grid, r->block,
                                                    r->per_thread, r->sink, stream);
  if (!_ks_cuda_check ((int) status,
                       r->read ? "ks_cuda_histogram_read_launch" : "ks_cuda_shared_atomics_launch",
                       error))
    return FALSE;
  return ks_clock_stop (clock, error);
}
#endif

#if HAVE_CUDA
/* The median of the limit r describes, timed with the row's protocol. */
static gboolean
time_limit (BenchState *state, LimitRun *r, double *median_ms, GError **error)
{
  KsTiming timing = { 0 };
  gboolean ok = ks_timing_measure (state->engine, &state->timing, limit_run, r, &timing, error);

  *median_ms = timing.median_ms;
  ks_timing_clear (&timing);
  return ok;
}
#endif

/* The shared histogram's limits with the row's launch (KsBenchRow): as many
 * shared-memory atomics as its image has pixels and channels, and its walk
 * and loads over the row's input with nothing counted. */
static gboolean
measure_histogram_limits (BenchState *state, const BenchItem *item, const KsBuffer *input,
                          KsBenchRow *row, GError **error)
{
#if HAVE_CUDA
  LimitRun r = { 0 };
  g_autoptr (KsBuffer) sink = NULL;
  guint64 threads, blocks, atomics, each, issued;
  double atomics_ms, read_ms;

  r.engine = state->engine;
  r.channels = item->format == KS_FORMAT_GRAY8 ? 1 : KS_HIST_CHANNELS;
  r.grid = row->launch.grid;
  r.block = row->launch.block;
  blocks = (guint64) r.grid.x * r.grid.y * r.grid.z;
  threads = blocks * r.block.x * r.block.y * r.block.z;
  atomics = (guint64) state->width * state->height * (guint64) r.channels;
  if (threads == 0 || row->timing.median_ms <= 0)
    return TRUE;
  /* Whole groups per thread: the count is scaled back to the image's. */
  each = (atomics + threads - 1) / threads;
  r.per_thread = (guint32) MAX ((each + KS_SHARED_ATOMICS_GROUP - 1) / KS_SHARED_ATOMICS_GROUP
                                  * KS_SHARED_ATOMICS_GROUP,
                                KS_SHARED_ATOMICS_GROUP);
  issued = threads * r.per_thread;
  ks_launch_config_to_geometry (&row->launch, state->width, state->height, &r.geom);
  r.src = ks_buffer_get_data (input);
  r.pitch = ks_buffer_get_pitch (input);
  sink = linear_buffer (state->engine, (gsize) blocks * sizeof (guint32), error);
  if (sink == NULL)
    return FALSE;
  r.sink = ks_buffer_get_data (sink);

  if (!time_limit (state, &r, &atomics_ms, error))
    return FALSE;
  r.read = TRUE;
  if (!time_limit (state, &r, &read_ms, error))
    return FALSE;
  row->atomics_limit_ms = atomics_ms * (double) atomics / (double) issued;
  row->share_of_atomics_limit = row->atomics_limit_ms / row->timing.median_ms;
  row->read_limit_ms = read_ms;
  row->share_of_read_limit = read_ms / row->timing.median_ms;
  return TRUE;
#else
  (void) state;
  (void) item;
  (void) input;
  (void) row;
  (void) error;
  return TRUE;
#endif
}

/* The options' launch over the op's own, field by field. */
static void
apply_launch (const KsBenchOptions *options, KsLaunchConfig *launch)
{
  if (options->block.x != 0 && options->block.y != 0 && options->block.z != 0)
    launch->block = options->block;
  if (options->pixels_per_thread != 0)
    launch->pixels_per_thread = options->pixels_per_thread;
  if (options->mapping == KS_BENCH_MAPPING_PER_PIXEL)
    launch->mode = KS_LAUNCH_PER_PIXEL;
  else if (options->mapping == KS_BENCH_MAPPING_GRID_STRIDE)
    launch->mode = KS_LAUNCH_GRID_STRIDE;
}

static gboolean
measure_item (BenchState *state, const BenchItem *item, KsBenchRow *row, GError **error)
{
  KsRunRequest request;
  KsRunResult result = { 0 };
  g_autoptr (KsBuffer) output = NULL;
  gboolean ok = FALSE;

  ks_run_request_init (&request, item->op);
  if (!bench_params (item->op, &request.params, error))
    return FALSE;
  apply_launch (state->options, &request.launch);
  if (item->method != NULL
      && !ks_params_set (&request.params, item->op, "method", item->method, error))
    return FALSE;
  for (guint i = 0; i < item->op->n_inputs; i++)
    {
      request.inputs[i] = input_buffer (state, item->format, i, error);
      if (request.inputs[i] == NULL)
        return FALSE;
    }
  /* One output for all the runs: allocation stays out of the timed loop. */
  if (item->op->output_kind == KS_OP_OUTPUT_IMAGE)
    {
      guint out_w, out_h;

      ks_op_output_size (item->op, &request.params, state->width, state->height, &out_w,
                         &out_h);
      output = ks_engine_new_buffer (state->engine, item->op->output_format, out_w, out_h,
                                     error);
      if (output == NULL)
        return FALSE;
      request.output = output;
    }

  row->id = item_id (item);
  row->op = item->op;
  row->method = g_strdup (item->method);
  row->input_format = item->format;
  row->bytes = ks_op_bytes_moved_for (item->op, &request.params, item->format, state->width,
                                      state->height);

  if (!ks_engine_measure (state->engine, &request, &state->timing, &result, &row->timing, error))
    goto out;
  row->gbs = gbs_of (row->bytes, row->timing.median_ms);
  row->launch = result.launch;
  row->atomics_limit_ms = NAN;
  row->share_of_atomics_limit = NAN;
  row->read_limit_ms = NAN;
  row->share_of_read_limit = NAN;
  if (ks_engine_is_cuda (state->engine) && item->op->output_kind == KS_OP_OUTPUT_HISTOGRAM
      && g_strcmp0 (item->method, "shared") == 0
      && !measure_histogram_limits (state, item, request.inputs[0], row, error))
    goto out;

  if (ks_engine_is_cuda (state->engine) && !measure_npp (state, item, &request, &result, row,
                                                        error))
    goto out;
  ok = TRUE;

out:
  ks_run_result_clear (&result);
  return ok;
}

static void
bench_state_clear (BenchState *state)
{
  g_clear_pointer (&state->rgba[0], ks_buffer_unref);
  g_clear_pointer (&state->rgba[1], ks_buffer_unref);
  g_clear_pointer (&state->gray, ks_buffer_unref);
}

KsBenchReport *
ks_bench_run (KsEngine *engine, const KsBenchOptions *options, KsBenchProgressFunc progress,
              gpointer user_data, GCancellable *cancellable, GError **error)
{
  KsBenchOptions defaults;
  g_autoptr (KsBenchReport) report = NULL;
  g_autoptr (GArray) items = NULL;
  g_autoptr (GError) local = NULL;
  BenchState state = { 0 };
  KsDevice *device;
  gboolean cuda;
  guint min_repeats;
  KsBenchReport *ret = NULL;

  g_return_val_if_fail (KS_IS_ENGINE (engine), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);

  if (options == NULL)
    {
      ks_bench_options_init (&defaults);
      options = &defaults;
    }

  cuda = ks_engine_is_cuda (engine);
  device = ks_engine_get_device (engine);
  state.engine = engine;
  state.options = options;
  state.width = options->width != 0 ? options->width : KS_BENCH_DEFAULT_WIDTH;
  state.height = options->height != 0 ? options->height : KS_BENCH_DEFAULT_HEIGHT;
  if (options->input != NULL)
    {
      if (options->input->format != KS_FORMAT_RGBA8)
        {
          g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                               "the benchmark's input image must be RGBA8");
          return NULL;
        }
      state.width = options->input->width;
      state.height = options->input->height;
    }
  state.repeats = options->repeats;
  if (state.repeats == 0)
    state.repeats = cuda ? KS_BENCH_DEFAULT_REPEATS : KS_BENCH_DEFAULT_REPEATS_CPU;
  /* A median of fewer runs says little on a GPU, where one run takes
   * microseconds; the CPU engine is slow enough that CI needs fewer. */
  min_repeats = cuda ? KS_BENCH_MIN_REPEATS_CUDA : KS_BENCH_MIN_REPEATS_CPU;
  if (state.repeats < min_repeats)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "the benchmark needs at least %u runs on the %s engine, not %u", min_repeats,
                   cuda ? "CUDA" : "CPU", state.repeats);
      return NULL;
    }
  if (state.width > KS_IMAGE_MAX_SIDE || state.height > KS_IMAGE_MAX_SIDE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "%u×%u is larger than the largest image (%u×%u)", state.width, state.height,
                   KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return NULL;
    }

  /* Inputs of every size are read from device memory, not from L2. */
  ks_timing_options_init (&state.timing, state.repeats);
  state.timing.flush = !cuda ? KS_CACHE_FLUSH_NONE
                       : options->dirty_flush ? KS_CACHE_FLUSH_WRITE
                                              : KS_CACHE_FLUSH_READ;
  state.timing.cancellable = cancellable;
  items = select_items (options->ops, error);
  if (items == NULL)
    return NULL;
  if (!ks_engine_check_usable (engine, error))
    return NULL;

  report = g_new0 (KsBenchReport, 1);
  report->device_name = g_strdup (ks_device_get_name (device));
  report->device_id = g_strdup (ks_device_get_id (device));
  report->is_cuda = cuda;
  report->width = state.width;
  report->height = state.height;
  report->repeats = state.repeats;
  report->dirty_flush = options->dirty_flush;
  report->random_input = options->input == NULL;
  report->peak_bandwidth_gbs = ks_device_get_peak_bandwidth_gbs (device);
  report->copy_gbs = NAN;
  report->copy_bytes = options->copy_bytes != 0 ? options->copy_bytes
                                                : KS_BENCH_DEFAULT_COPY_BYTES;
  report->rows = g_array_sized_new (FALSE, TRUE, sizeof (KsBenchRow), items->len);
  g_array_set_clear_func (report->rows, bench_row_clear);

  /* The copy first: the yardstick every op is held against, on the same
   * device in the same process. */
  if (!ks_engine_measure_copy_bandwidth (engine, report->copy_bytes, KS_BENCH_COPY_REPEATS,
                                         &report->copy_gbs, &report->copy_timing, &local))
    {
      if (g_error_matches (local, KS_ERROR, KS_ERROR_DEVICE_LOST))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      report->copy_gbs = NAN;
      report->copy_note = g_strdup (local->message);
      g_clear_error (&local);
    }

  if (!cuda)
    {
      report->npp_note = g_strdup ("NPP runs on CUDA engines only");
    }
  else if (options->skip_npp)
    {
      report->npp_note = g_strdup ("NPP skipped");
    }
  else
    {
      state.npp = ks_npp_get (&local);
      if (state.npp == NULL)
        {
          report->npp_note = g_strdup (local->message);
          g_clear_error (&local);
        }
      else
        {
          report->npp_version = g_strdup (ks_npp_get_version (state.npp));
        }
    }

  for (guint i = 0; i < items->len; i++)
    {
      const BenchItem *item = &g_array_index (items, BenchItem, i);
      KsBenchRow row = { 0 };

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;
      if (!measure_item (&state, item, &row, error))
        {
          bench_row_clear (&row);
          goto out;
        }
      row.share_of_copy = isfinite (report->copy_gbs) && report->copy_gbs > 0
                            ? row.gbs / report->copy_gbs
                            : NAN;
      g_array_append_val (report->rows, row);
      if (progress != NULL)
        progress (&g_array_index (report->rows, KsBenchRow, report->rows->len - 1), i,
                  items->len, user_data);
    }
  ret = g_steal_pointer (&report);

out:
  bench_state_clear (&state);
  return ret;
}
