/* ks-engine.c: KsEngine, the front both backends sit behind: its buffers
 * and their transfers, coverage, and the path of a run (the request
 * checked, the launch resolved and fitted, buffers prepared, the backend
 * run between the clock's marks, warm-ups told apart), timed or not.
 *
 * One piece because it is the one place that chooses between the CPU engine
 * (ks-cpu-engine.c) and the CUDA one (ks-cuda-engine.c): each section is a
 * dispatch on self->cuda around the same checks (ks_engine_check_usable,
 * check_buffer_owner), and a run allocates its output and coverage with the
 * rules the public allocators use, so buffers and runs change together. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"

/* Coverage costs 12 bytes per pixel on the host and on the device. */
#define KS_COVERAGE_MAX_PIXELS (8192u * 8192u)

struct _KsEngine
{
  GObject parent_instance;

  /* owned */
  KsDevice *device;
  KsCudaContext *cuda;   /* NULL for the CPU engine */
  GHashTable *warm;      /* configurations that have run once: later runs are not warm-ups */
  GMutex lock;           /* warm: runs may come from any thread */

  guint n_workers;
};

G_DEFINE_FINAL_TYPE (KsEngine, ks_engine, G_TYPE_OBJECT)

static void
ks_engine_finalize (GObject *object)
{
  KsEngine *self = KS_ENGINE (object);

  g_clear_pointer (&self->cuda, _ks_cuda_context_free);
  g_clear_pointer (&self->warm, g_hash_table_unref);
  g_mutex_clear (&self->lock);
  g_clear_object (&self->device);
  G_OBJECT_CLASS (ks_engine_parent_class)->finalize (object);
}

static void
ks_engine_class_init (KsEngineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_engine_finalize;
}

static void
ks_engine_init (KsEngine *self)
{
  self->warm = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_mutex_init (&self->lock);
  self->n_workers = 1;
}

KsEngine *
ks_engine_new (KsDevice *device, GError **error)
{
  g_autoptr (KsEngine) self = NULL;

  g_return_val_if_fail (KS_IS_DEVICE (device), NULL);
  self = g_object_new (KS_TYPE_ENGINE, NULL);
  self->device = g_object_ref (device);
  if (ks_device_get_kind (device) == KS_DEVICE_KIND_CUDA)
    {
      if (!ks_cuda_available (error))
        return NULL;
      self->cuda = _ks_cuda_context_new (ks_device_get_ordinal (device), error);
      if (self->cuda == NULL)
        return NULL;
    }
  else
    self->n_workers = MAX (1, g_get_num_processors ());
  return g_steal_pointer (&self);
}

KsDevice *
ks_engine_get_device (KsEngine *self)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), NULL);
  return self->device;
}

gboolean
ks_engine_is_cuda (KsEngine *self)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), FALSE);
  return self->cuda != NULL;
}

gpointer
ks_engine_get_stream (KsEngine *self)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), NULL);
  return self->cuda != NULL ? _ks_cuda_context_stream (self->cuda) : NULL;
}

gpointer
_ks_engine_cuda_context (KsEngine *self)
{
  return self->cuda;
}

guint
ks_engine_get_n_workers (KsEngine *self)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), 1);
  return self->n_workers;
}

void
ks_engine_set_n_workers (KsEngine *self, guint n_workers)
{
  g_return_if_fail (KS_IS_ENGINE (self));
  if (self->cuda == NULL)
    self->n_workers = CLAMP (n_workers, 1, 1024);
}

gboolean
ks_engine_check_usable (KsEngine *self, GError **error)
{
  const char *lost;

  g_return_val_if_fail (KS_IS_ENGINE (self), FALSE);
  if (self->cuda == NULL)
    return TRUE;
  lost = ks_cuda_lost_reason ();
  if (lost != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_DEVICE_LOST,
                   "The GPU cannot be used any more in this process: %s", lost);
      return FALSE;
    }
  return TRUE;
}

/* ---- buffers ------------------------------------------------------------ */

KsBuffer *
ks_buffer_ref (KsBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, NULL);
  g_atomic_ref_count_inc (&buffer->ref_count);
  return buffer;
}

void
ks_buffer_unref (KsBuffer *buffer)
{
  if (buffer == NULL || !g_atomic_ref_count_dec (&buffer->ref_count))
    return;
  if (buffer->shared != NULL)
    _ks_cuda_shared_free (buffer, _ks_cuda_context_stream (buffer->engine->cuda));
  else if (buffer->engine->cuda != NULL)
    _ks_cuda_buffer_free (buffer->engine->cuda, buffer);
  else
    g_aligned_free (buffer->data);
  g_object_unref (buffer->engine);
  g_free (buffer);
}

guint
ks_buffer_get_width (const KsBuffer *buffer)
{
  return buffer->width;
}

guint
ks_buffer_get_height (const KsBuffer *buffer)
{
  return buffer->height;
}

KsFormat
ks_buffer_get_format (const KsBuffer *buffer)
{
  return buffer->format;
}

gsize
ks_buffer_get_pitch (const KsBuffer *buffer)
{
  return buffer->pitch;
}

gpointer
ks_buffer_get_data (const KsBuffer *buffer)
{
  return buffer->data;
}

static KsBuffer *
new_buffer (KsEngine *self, KsFormat format, guint width, guint height, gboolean shareable,
            GError **error)
{
  g_autofree KsBuffer *buffer = NULL;

  if (width == 0 || height == 0 || width > KS_IMAGE_MAX_SIDE || height > KS_IMAGE_MAX_SIDE)
    {
      g_set_error (error, KS_ERROR, width == 0 || height == 0 ? KS_ERROR_INVALID_ARGUMENT
                                                               : KS_ERROR_TOO_LARGE,
                   "A %u×%u image is outside the supported sizes (1×1 to %u×%u)", width, height,
                   KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return NULL;
    }
  if (!ks_engine_check_usable (self, error))
    return NULL;
  buffer = g_new0 (KsBuffer, 1);
  g_atomic_ref_count_init (&buffer->ref_count);
  buffer->format = format;
  buffer->width = width;
  buffer->height = height;
  /* 256-byte rows: every row start is aligned for 16-byte vector access. */
  buffer->pitch = ((gsize) width * ks_format_bytes_per_pixel (format) + 255) & ~(gsize) 255;
  if (shareable)
    {
      if (!_ks_cuda_shared_alloc (ks_device_get_ordinal (self->device), buffer, error))
        return NULL;
    }
  else if (self->cuda != NULL)
    {
      if (!_ks_cuda_buffer_alloc (self->cuda, buffer, error))
        return NULL;
    }
  else
    {
      /* g_aligned_alloc aborts when memory runs out; ask with malloc first. */
      gpointer probe = g_try_malloc (buffer->pitch * height + 256);
      if (probe == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                       "Not enough memory for a %u×%u image", width, height);
          return NULL;
        }
      g_free (probe);
      buffer->data = g_aligned_alloc (height, buffer->pitch, 256);
    }
  buffer->engine = g_object_ref (self);
  return g_steal_pointer (&buffer);
}

KsBuffer *
ks_engine_new_buffer (KsEngine *self, KsFormat format, guint width, guint height, GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), NULL);
  return new_buffer (self, format, width, height, FALSE, error);
}

KsBuffer *
ks_engine_new_shareable_buffer (KsEngine *self, KsFormat format, guint width, guint height,
                                GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), NULL);
  if (self->cuda == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "The CPU engine keeps its results in host memory: there is no GPU "
                           "memory to share with OpenGL");
      return NULL;
    }
  return new_buffer (self, format, width, height, TRUE, error);
}

gboolean
ks_buffer_is_shareable (const KsBuffer *buffer)
{
  g_return_val_if_fail (buffer != NULL, FALSE);
  return buffer->shared != NULL;
}

static gboolean
check_buffer_owner (KsEngine *self, const KsBuffer *buffer, GError **error)
{
  if (buffer->engine != self)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The buffer belongs to the engine on %s, not to this one on %s",
                   ks_device_get_id (buffer->engine->device), ks_device_get_id (self->device));
      return FALSE;
    }
  return TRUE;
}

/* An image into a buffer of its size (upload) or back, timed; on return the
 * copy is done and the staging memory free again. */
static gboolean
transfer (KsEngine *self, KsImage *image, KsBuffer *buffer, gboolean upload, double *ms,
          GError **error)
{
  g_autoptr (KsClock) clock = ks_clock_new (self, error);
  double elapsed = 0;

  if (clock == NULL)
    return FALSE;
  if (self->cuda != NULL)
    {
      if (!(upload ? _ks_cuda_upload (self->cuda, image, buffer, clock, error)
                   : _ks_cuda_download (self->cuda, buffer, image, clock, error)))
        return FALSE;
    }
  else
    {
      gsize row = (gsize) image->width * ks_format_bytes_per_pixel (image->format);

      ks_clock_start (clock, NULL);
      for (guint y = 0; y < image->height; y++)
        {
          guint8 *b = (guint8 *) buffer->data + y * buffer->pitch;

          if (upload)
            memcpy (b, ks_image_row (image, y), row);
          else
            memcpy (ks_image_row (image, y), b, row);
        }
      ks_clock_stop (clock, NULL);
    }
  if (!ks_clock_elapsed (clock, &elapsed, error))
    return FALSE;
  if (ms != NULL)
    *ms = elapsed;
  return TRUE;
}

gboolean
ks_engine_upload_into (KsEngine *self, const KsImage *image, KsBuffer *buffer, double *ms,
                       GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (self) && image != NULL && buffer != NULL, FALSE);
  if (!check_buffer_owner (self, buffer, error))
    return FALSE;
  if (image->width != buffer->width || image->height != buffer->height
      || image->format != buffer->format)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "A %u×%u %s image does not fit a %u×%u %s buffer", image->width, image->height,
                   ks_format_name (image->format), buffer->width, buffer->height,
                   ks_format_name (buffer->format));
      return FALSE;
    }
  if (!ks_engine_check_usable (self, error))
    return FALSE;
  return transfer (self, (KsImage *) image, buffer, TRUE, ms, error);
}

KsBuffer *
ks_engine_upload (KsEngine *self, const KsImage *image, double *ms, GError **error)
{
  g_autoptr (KsBuffer) buffer = NULL;

  g_return_val_if_fail (KS_IS_ENGINE (self) && image != NULL, NULL);
  buffer = ks_engine_new_buffer (self, image->format, image->width, image->height, error);
  if (buffer == NULL || !ks_engine_upload_into (self, image, buffer, ms, error))
    return NULL;
  return g_steal_pointer (&buffer);
}

KsImage *
ks_engine_download (KsEngine *self, KsBuffer *buffer, double *ms, GError **error)
{
  g_autoptr (KsImage) image = NULL;

  g_return_val_if_fail (KS_IS_ENGINE (self) && buffer != NULL, NULL);
  if (!check_buffer_owner (self, buffer, error) || !ks_engine_check_usable (self, error))
    return NULL;
  image = ks_image_new (buffer->format, buffer->width, buffer->height, error);
  if (image == NULL)
    return NULL;
  if (!transfer (self, image, buffer, FALSE, ms, error))
    return NULL;
  return g_steal_pointer (&image);
}

gboolean
ks_engine_read_pixel (KsEngine *self, KsBuffer *buffer, guint x, guint y, guint32 *rgba,
                      GError **error)
{
  guint bpp;
  const guint8 *src;
  guint8 px[4] = { 0, 0, 0, 0 };

  g_return_val_if_fail (KS_IS_ENGINE (self) && buffer != NULL && rgba != NULL, FALSE);
  if (!check_buffer_owner (self, buffer, error) || !ks_engine_check_usable (self, error))
    return FALSE;
  if (x >= buffer->width || y >= buffer->height)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "Pixel (%u, %u) is outside the %u×%u image", x, y, buffer->width,
                   buffer->height);
      return FALSE;
    }
  bpp = ks_format_bytes_per_pixel (buffer->format);
  src = (const guint8 *) buffer->data + (gsize) y * buffer->pitch + (gsize) x * bpp;
  if (self->cuda != NULL)
    {
      if (!_ks_cuda_read (self->cuda, src, bpp, px, error))
        return FALSE;
    }
  else
    memcpy (px, src, bpp);
  if (bpp == 1)
    *rgba = px[0] | (guint32) px[0] << 8 | (guint32) px[0] << 16 | 0xff000000u;
  else
    *rgba = px[0] | (guint32) px[1] << 8 | (guint32) px[2] << 16 | (guint32) px[3] << 24;
  return TRUE;
}

gboolean
ks_engine_fill (KsEngine *self, KsBuffer *buffer, guint8 value, GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (self) && buffer != NULL, FALSE);
  if (!check_buffer_owner (self, buffer, error) || !ks_engine_check_usable (self, error))
    return FALSE;
  if (self->cuda != NULL)
    return _ks_cuda_fill (self->cuda, buffer, value, error);
  memset (buffer->data, value, buffer->pitch * buffer->height);
  return TRUE;
}

/* ---- coverage ----------------------------------------------------------- */

void
ks_coverage_free (KsCoverage *coverage)
{
  if (coverage == NULL)
    return;
  g_free (coverage->writes);
  g_free (coverage->owner_block);
  g_free (coverage->owner_thread);
  g_free (coverage);
}

KsCoverage *
_ks_coverage_new (guint width, guint height, GError **error)
{
  gsize n = (gsize) width * height;
  KsCoverage *c;

  if (n > KS_COVERAGE_MAX_PIXELS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "Coverage is recorded for images of up to %u pixels; this one has %"
                   G_GSIZE_FORMAT,
                   KS_COVERAGE_MAX_PIXELS, n);
      return NULL;
    }
  c = g_new0 (KsCoverage, 1);
  c->width = width;
  c->height = height;
  c->writes = g_try_malloc0_n (n, sizeof (guint32));
  c->owner_block = g_try_malloc0_n (n, sizeof (guint32));
  c->owner_thread = g_try_malloc0_n (n, sizeof (guint32));
  if (c->writes == NULL || c->owner_block == NULL || c->owner_thread == NULL)
    {
      ks_coverage_free (c);
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to record coverage");
      return NULL;
    }
  return c;
}

void
_ks_coverage_summarise (KsCoverage *c)
{
  gsize n = (gsize) c->width * c->height;

  c->unwritten_pixels = 0;
  c->multiply_written_pixels = 0;
  for (gsize i = 0; i < n; i++)
    {
      c->unwritten_pixels += c->writes[i] == 0;
      c->multiply_written_pixels += c->writes[i] > 1;
    }
}

KsImage *
ks_coverage_to_image (const KsCoverage *coverage)
{
  KsImage *image;

  g_return_val_if_fail (coverage != NULL, NULL);
  image = ks_image_new (KS_FORMAT_RGBA8, coverage->width, coverage->height, NULL);
  if (image == NULL)
    return NULL;
  for (guint y = 0; y < coverage->height; y++)
    for (guint x = 0; x < coverage->width; x++)
      {
        guint32 w = coverage->writes[(gsize) y * coverage->width + x];
        ks_image_set_rgba (image, x, y, w == 0 ? 0xff000000u : w == 1 ? 0xffffffffu : 0xff0000ffu);
      }
  return image;
}

/* ---- runs --------------------------------------------------------------- */

void
ks_run_request_init (KsRunRequest *request, const KsOp *op)
{
  memset (request, 0, sizeof *request);
  request->op = op;
  if (op != NULL)
    {
      ks_params_init (&request->params, op);
      request->launch = op->default_launch;
    }
  else
    ks_launch_config_init (&request->launch, 16, 16);
}

void
ks_run_result_clear (KsRunResult *result)
{
  g_clear_pointer (&result->output, ks_buffer_unref);
  g_clear_pointer (&result->coverage, ks_coverage_free);
  memset (result, 0, sizeof *result);
}

/* Checks the request and fills `run` for the backends (no buffers allocated). */
static gboolean
prepare (KsEngine *self, const KsRunRequest *request, KsKernelRun *run, KsLaunchConfig *resolved,
         guint *channels, GError **error)
{
  const KsOp *op = request->op;
  KsBuffer *in0;
  guint default_ppt, out_w, out_h;

  if (op == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "No operation was chosen");
      return FALSE;
    }
  if (!ks_engine_check_usable (self, error))
    return FALSE;
  for (guint i = 0; i < op->n_inputs; i++)
    {
      KsBuffer *in = request->inputs[i];
      if (in == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s needs %u input images; input %u is missing", op->title, op->n_inputs,
                       i + 1);
          return FALSE;
        }
      if (!check_buffer_owner (self, in, error))
        return FALSE;
      if (!ks_op_accepts_format (op, in->format))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s works on colour (RGBA) images, not on %s ones", op->title,
                       ks_format_name (in->format));
          return FALSE;
        }
      if (i > 0 && (in->width != request->inputs[0]->width
                    || in->height != request->inputs[0]->height
                    || in->format != request->inputs[0]->format))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s needs two images of the same size: the first is %u×%u, the second "
                       "%u×%u", op->title, request->inputs[0]->width, request->inputs[0]->height,
                       in->width, in->height);
          return FALSE;
        }
    }
  if (!ks_params_validate (&request->params, op, error))
    return FALSE;

  in0 = request->inputs[0];
  memset (run, 0, sizeof *run);
  run->op = op;
  for (guint i = 0; i < op->n_inputs; i++)
    run->inputs[i] = request->inputs[i];
  _ks_op_prepare (op, &request->params, in0->width, in0->height, run);
  *channels = in0->format == KS_FORMAT_GRAY8 ? 1 : KS_HIST_CHANNELS;
  ks_op_output_size (op, &request->params, in0->width, in0->height, &out_w, &out_h);
  if (out_w == 0 || out_h == 0 || out_w > KS_IMAGE_MAX_SIDE || out_h > KS_IMAGE_MAX_SIDE)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s would make a %u×%u image; sizes go from 1×1 to %u×%u", op->title, out_w,
                   out_h, KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return FALSE;
    }

  /* Sixteen bytes per thread by default: one vector load per input. */
  default_ppt = op->default_pixels_per_thread != 0 ? op->default_pixels_per_thread
                                                   : 16 / ks_format_bytes_per_pixel (in0->format);
  /* The threads cover the output. */
  *resolved = request->launch;
  ks_launch_config_resolve (resolved, out_w, out_h, default_ppt,
                            ks_device_get_limits (self->device));
  ks_launch_config_to_geometry (resolved, out_w, out_h, &run->geom);
  return TRUE;
}

static gboolean
attributes_for (KsEngine *self, const KsKernelRun *run, guint channels, KsKernelAttributes *attrs,
                GError **error)
{
  memset (attrs, 0, sizeof *attrs);
  if (self->cuda != NULL)
    return _ks_cuda_attributes (self->cuda, run, attrs, error);
  /* The CPU engine has no registers to run out of, but it asks for the same
   * shared memory as the CUDA kernel so validation agrees between engines. */
  attrs->max_threads_per_block = ks_device_get_limits (self->device)->max_threads_per_block;
  if (run->kind->shared_memory != NULL)
    run->kind->shared_memory (run, attrs);
  return TRUE;
}

gboolean
ks_engine_kernel_attributes (KsEngine *self, const KsRunRequest *request,
                             KsKernelAttributes *attrs, GError **error)
{
  KsKernelRun run;
  KsLaunchConfig resolved;
  guint channels;

  g_return_val_if_fail (KS_IS_ENGINE (self) && request != NULL && attrs != NULL, FALSE);
  if (!prepare (self, request, &run, &resolved, &channels, error))
    return FALSE;
  run.instrument = request->instrument;
  return attributes_for (self, &run, channels, attrs, error);
}

gboolean
ks_engine_cuda_active_blocks (KsEngine *self, const KsRunRequest *request, guint *blocks,
                              GError **error)
{
  KsKernelRun run;
  KsLaunchConfig resolved;
  guint channels;

  g_return_val_if_fail (KS_IS_ENGINE (self) && request != NULL && blocks != NULL, FALSE);
  if (self->cuda == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "The CPU engine has no CUDA occupancy calculator");
      return FALSE;
    }
  if (!prepare (self, request, &run, &resolved, &channels, error))
    return FALSE;
  run.instrument = request->instrument;
  return _ks_cuda_active_blocks (self->cuda, &run, blocks, error);
}

typedef struct
{
  KsEngine *engine;
  const KsKernelRun *run;
  guint channels;
} CandidateData;

static gboolean
candidate_attributes (const KsLaunchConfig *candidate, KsKernelAttributes *attrs,
                      gpointer user_data)
{
  CandidateData *d = user_data;
  KsKernelRun run = *d->run;

  ks_launch_config_to_geometry (candidate, run.geom.width, run.geom.height, &run.geom);
  return attributes_for (d->engine, &run, d->channels, attrs, NULL);
}

static gboolean
validate_run (KsEngine *self, const KsRunRequest *request, KsKernelRun *run,
              KsLaunchConfig *resolved, KsLaunchConfig *suggestion, guint *channels,
              GError **error)
{
  KsKernelAttributes attrs;
  CandidateData data;

  if (!prepare (self, request, run, resolved, channels, error))
    return FALSE;
  run->instrument = request->instrument;
  if (!attributes_for (self, run, *channels, &attrs, error))
    return FALSE;
  ks_launch_config_fit_occupancy (resolved, run->geom.width, run->geom.height,
                                  ks_device_get_limits (self->device), &attrs);
  ks_launch_config_to_geometry (resolved, run->geom.width, run->geom.height, &run->geom);
  data.engine = self;
  data.run = run;
  data.channels = *channels;
  return ks_launch_config_validate_full (resolved, run->geom.width, run->geom.height,
                                         ks_device_get_limits (self->device), &attrs,
                                         candidate_attributes, &data, suggestion, error);
}

gboolean
ks_engine_validate (KsEngine *self, const KsRunRequest *request, KsLaunchConfig *resolved,
                    KsLaunchConfig *suggestion, GError **error)
{
  KsKernelRun run;
  KsLaunchConfig r;
  guint channels;

  g_return_val_if_fail (KS_IS_ENGINE (self) && request != NULL, FALSE);
  if (!validate_run (self, request, &run, &r, suggestion, &channels, error))
    return FALSE;
  if (resolved != NULL)
    *resolved = r;
  return TRUE;
}

/* The kernel between the clock's marks (the CPU engine's work is synchronous). */
static gboolean
run_backend (KsEngine *self, const KsKernelRun *run, KsClock *clock, GError **error)
{
  if (self->cuda != NULL)
    return _ks_cuda_run (self->cuda, run, clock, error);
  if (run->coverage != NULL)
    {
      gsize n = (gsize) run->geom.width * run->geom.height;

      /* Each run records its own coverage, as on the device. */
      memset (run->coverage->writes, 0, n * sizeof (guint32));
      memset (run->coverage->owner_block, 0, n * sizeof (guint32));
      memset (run->coverage->owner_thread, 0, n * sizeof (guint32));
    }
  return ks_clock_start (clock, error) && _ks_cpu_run (self->n_workers, run, error)
         && ks_clock_stop (clock, error);
}

gboolean
_ks_engine_run_pass (KsEngine *self, const KsOp *op, KsBuffer *input, guint32 (*histogram)[256],
                     KsClock *clock, GError **error)
{
  KsKernelRun pass;
  KsLaunchConfig launch = op->default_launch;
  KsKernelAttributes attrs;
  KsParams params;
  guint channels = input->format == KS_FORMAT_GRAY8 ? 1 : KS_HIST_CHANNELS;

  memset (&pass, 0, sizeof pass);
  pass.op = op;
  ks_params_init (&params, op);
  _ks_op_prepare (op, &params, input->width, input->height, &pass);
  pass.inputs[0] = input;
  pass.histogram = histogram;
  ks_launch_config_resolve (&launch, input->width, input->height,
                            16 / ks_format_bytes_per_pixel (input->format),
                            ks_device_get_limits (self->device));
  ks_launch_config_to_geometry (&launch, input->width, input->height, &pass.geom);
  if (!attributes_for (self, &pass, channels, &attrs, error))
    return FALSE;
  ks_launch_config_fit_occupancy (&launch, input->width, input->height,
                                  ks_device_get_limits (self->device), &attrs);
  ks_launch_config_to_geometry (&launch, input->width, input->height, &pass.geom);
  if (!run_backend (self, &pass, clock, error))
    return FALSE;
  if (channels == 1)
    for (guint c = 1; c < 4; c++)
      memcpy (histogram[c], histogram[0], sizeof histogram[0]);
  return TRUE;
}

static char *
warm_key (const KsKernelRun *run, gboolean instrument)
{
  const KsGeometry *g = &run->geom;
  g_autofree char *kernel = _ks_run_kernel_key (run);

  return g_strdup_printf ("%s/%s/%u/%u/%ux%ux%u/%ux%ux%u/%ux%u/%d", run->op->id, kernel, g->mode,
                          g->pixels_per_thread, g->block.x, g->block.y, g->block.z, g->grid.x,
                          g->grid.y, g->grid.z, g->width, g->height, instrument);
}

/* A validated request with its buffers, ready to run any number of times. */
typedef struct
{
  KsEngine *engine;
  const KsRunRequest *request;
  KsKernelRun run;
  KsLaunchConfig resolved;
  guint channels;
  KsBuffer *output;               /* owned */
  KsCoverage *coverage;           /* owned */
  guint32 hist[4][256];
} Prepared;

static void
prepared_clear (Prepared *p)
{
  g_clear_pointer (&p->output, ks_buffer_unref);
  g_clear_pointer (&p->coverage, ks_coverage_free);
}

static gboolean
prepare_buffers (KsEngine *self, const KsRunRequest *request, Prepared *p, GError **error)
{
  memset (p, 0, sizeof *p);
  p->engine = self;
  p->request = request;
  if (!validate_run (self, request, &p->run, &p->resolved, NULL, &p->channels, error))
    return FALSE;
  p->run.cancellable = request->cancellable;

  if (request->op->output_kind == KS_OP_OUTPUT_IMAGE)
    {
      if (request->output != NULL)
        {
          KsBuffer *o = request->output;
          if (!check_buffer_owner (self, o, error))
            return FALSE;
          if (o->width != p->run.geom.width || o->height != p->run.geom.height
              || o->format != request->op->output_format)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "The output buffer is %u×%u %s; %s writes %u×%u %s", o->width,
                           o->height, ks_format_name (o->format), request->op->title,
                           p->run.geom.width, p->run.geom.height,
                           ks_format_name (request->op->output_format));
              return FALSE;
            }
          p->output = ks_buffer_ref (o);
        }
      else
        {
          p->output = ks_engine_new_buffer (self, request->op->output_format, p->run.geom.width,
                                            p->run.geom.height, error);
          if (p->output == NULL)
            return FALSE;
        }
      p->run.output = p->output;
    }
  else
    p->run.histogram = p->hist;
  if (request->instrument)
    {
      p->coverage = _ks_coverage_new (p->run.geom.width, p->run.geom.height, error);
      if (p->coverage == NULL)
        return FALSE;
      p->run.coverage = p->coverage;
    }
  return TRUE;
}

/* One run of a prepared request: KsTimedFunc. */
static gboolean
run_prepared (KsClock *clock, gpointer user_data, GError **error)
{
  Prepared *p = user_data;
  KsKernelRun run = p->run;

  memset (p->hist, 0, sizeof p->hist);
  if (run.kind->before_run != NULL
      && !run.kind->before_run (p->engine, &run, &p->request->params, clock, error))
    return FALSE;
  return run_backend (p->engine, &run, clock, error);
}

/* The result of the prepared request's last run. */
static void
prepared_result (Prepared *p, double kernel_ms, KsRunResult *result)
{
  memset (result, 0, sizeof *result);
  result->launch = p->resolved;
  result->kernel_ms = kernel_ms;
  g_mutex_lock (&p->engine->lock);
  result->warmup = g_hash_table_add (p->engine->warm, warm_key (&p->run, p->request->instrument));
  g_mutex_unlock (&p->engine->lock);
  if (p->output != NULL)
    result->output = g_steal_pointer (&p->output);
  else
    {
      if (p->channels == 1)
        for (guint c = 1; c < 4; c++)
          memcpy (p->hist[c], p->hist[0], sizeof p->hist[0]);
      memcpy (result->histogram, p->hist, sizeof p->hist);
    }
  if (p->coverage != NULL)
    {
      _ks_coverage_summarise (p->coverage);
      result->coverage = g_steal_pointer (&p->coverage);
    }
}

gboolean
ks_engine_run (KsEngine *self, const KsRunRequest *request, KsRunResult *result, GError **error)
{
  g_autoptr (KsClock) clock = NULL;
  Prepared p;
  double ms = 0;
  gboolean ok;

  g_return_val_if_fail (KS_IS_ENGINE (self) && request != NULL && result != NULL, FALSE);
  ok = prepare_buffers (self, request, &p, error) && (clock = ks_clock_new (self, error)) != NULL
       && run_prepared (clock, &p, error) && ks_clock_elapsed (clock, &ms, error);
  if (ok)
    prepared_result (&p, ms, result);
  prepared_clear (&p);
  return ok;
}

gboolean
ks_engine_measure (KsEngine *self, const KsRunRequest *request, const KsTimingOptions *options,
                   KsRunResult *result, KsTiming *timing, GError **error)
{
  KsTiming local = { 0 };
  KsTiming *t = timing != NULL ? timing : &local;
  Prepared p;
  gboolean ok;

  g_return_val_if_fail (KS_IS_ENGINE (self) && request != NULL && result != NULL, FALSE);
  g_return_val_if_fail (options != NULL, FALSE);
  ok = prepare_buffers (self, request, &p, error);
  if (ok && p.run.cancellable == NULL)
    p.run.cancellable = options->cancellable;
  ok = ok && ks_timing_measure (self, options, run_prepared, &p, t, error);
  if (ok)
    prepared_result (&p, t->samples_ms[t->n - 1], result);
  prepared_clear (&p);
  ks_timing_clear (&local);
  return ok;
}

gboolean
ks_engine_process (KsEngine *self, const KsRunRequest *request, KsImage *const *inputs,
                   const KsTimingOptions *options, KsImage **output, KsRunResult *result,
                   KsStageTimes *times, KsTiming *timing, GError **error)
{
  KsRunRequest req;
  KsStageTimes t = { 0, -1, -1 };
  KsBuffer *buffers[KS_OP_MAX_INPUTS] = { NULL, NULL };
  gboolean ok = FALSE;

  g_return_val_if_fail (KS_IS_ENGINE (self) && request != NULL && request->op != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);
  req = *request;
  for (guint i = 0; i < request->op->n_inputs; i++)
    {
      double ms = 0;
      if (inputs[i] == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "%s needs %u input images; input %u is missing", request->op->title,
                       request->op->n_inputs, i + 1);
          goto out;
        }
      buffers[i] = ks_engine_upload (self, inputs[i], &ms, error);
      if (buffers[i] == NULL)
        goto out;
      t.upload_ms += ms;
      req.inputs[i] = buffers[i];
    }
  if (options != NULL)
    ok = ks_engine_measure (self, &req, options, result, timing, error);
  else
    ok = ks_engine_run (self, &req, result, error);
  if (!ok)
    goto out;
  t.kernel_ms = result->kernel_ms;
  if (output != NULL && result->output != NULL)
    {
      double ms = 0;
      *output = ks_engine_download (self, result->output, &ms, error);
      if (*output == NULL)
        {
          ok = FALSE;
          goto out;
        }
      t.download_ms = ms;
    }
out:
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    g_clear_pointer (&buffers[i], ks_buffer_unref);
  if (times != NULL)
    *times = t;
  return ok;
}

gboolean
ks_engine_measure_copy_bandwidth (KsEngine *self, guint64 bytes, guint repeats, double *gbs,
                                  KsTiming *timing, GError **error)
{
  KsTiming local = { 0 };
  KsTiming *t = timing != NULL ? timing : &local;
  gboolean ok;

  g_return_val_if_fail (KS_IS_ENGINE (self), FALSE);
  if (self->cuda == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "The device-to-device copy bandwidth is measured on CUDA devices only");
      return FALSE;
    }
  if (!ks_engine_check_usable (self, error))
    return FALSE;
  {
    g_autoptr (KsClock) clock = ks_clock_new (self, error);

    ok = clock != NULL
         && _ks_cuda_copy_bandwidth (self->cuda, clock, bytes, MAX (1, repeats), t, error);
  }
  if (ok && gbs != NULL)
    *gbs = 2.0 * (double) bytes / (t->median_ms * 1e-3) / 1e9;
  ks_timing_clear (&local);
  return ok;
}

gboolean
ks_engine_flush_caches (KsEngine *self, KsCacheFlush flush, GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), FALSE);
  if (self->cuda == NULL || flush == KS_CACHE_FLUSH_NONE)
    return TRUE;
  return ks_engine_check_usable (self, error) && _ks_cuda_flush_caches (self->cuda, flush, error);
}

static gboolean
flush_for_clock (gpointer owner, KsCacheFlush flush, GError **error)
{
  return ks_engine_flush_caches (owner, flush, error);
}

/* The clock of ks-timing.c on this engine's timeline: CUDA events on its
 * stream, which evict the caches through it; the host's clock for the CPU
 * engine, whose work is synchronous. */
KsClock *
ks_clock_new (KsEngine *engine, GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (engine), NULL);
  if (!ks_engine_is_cuda (engine))
    return ks_clock_new_host ();
  if (!ks_engine_check_usable (engine, error))
    return NULL;
  return _ks_clock_new_stream (ks_device_get_ordinal (engine->device), ks_engine_get_stream (engine),
                               flush_for_clock, engine);
}

gboolean
ks_timing_measure (KsEngine *engine, const KsTimingOptions *options, KsTimedFunc func,
                   gpointer user_data, KsTiming *timing, GError **error)
{
  g_autoptr (KsClock) clock = NULL;

  g_return_val_if_fail (KS_IS_ENGINE (engine) && options != NULL && func != NULL, FALSE);
  g_return_val_if_fail (timing != NULL, FALSE);
  clock = ks_clock_new (engine, error);
  if (clock == NULL)
    {
      ks_timing_begin (timing, MAX (1, options->repeats));
      return FALSE;
    }
  return ks_timing_measure_clock (clock, options, func, user_data, timing, error);
}

gboolean
_ks_engine_debug_fault (KsEngine *self, GError **error)
{
  g_return_val_if_fail (KS_IS_ENGINE (self), FALSE);
  if (self->cuda == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE, "Faults are only simulated on CUDA");
      return FALSE;
    }
  return _ks_cuda_debug_fault (self->cuda, error);
}
