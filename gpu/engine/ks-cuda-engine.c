/* The CUDA engine's host side: memory, transfers through pinned staging,
 * timing with events, and the calls into the kernels' launchers. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"

#if HAVE_CUDA

#include <cuda_runtime_api.h>

#include "ks-kernels.h"

#define CHECK(call, error) _ks_cuda_check ((int) (call), #call, error)

struct _KsCudaContext
{
  int device;
  cudaStream_t stream;
  guint8 *staging;        /* pinned host memory for uploads and downloads */
  gsize staging_size;
  /* Uploads come from the thread that runs the engine's work, downloads of
   * finished results from any thread (the view, saving): staging is theirs
   * in turn. */
  GMutex staging_lock;
  guint32 *bins;          /* device: the histogram counters' sets (KS_HIST_DEVICE_WORDS) */
  guint64 bins_generation; /* the next histogram launch's number on them */
  guint32 *bins_host;     /* pinned */
  void *flush;            /* scratch memory read or overwritten to evict the L2 cache */
  gsize flush_size;
  guint32 *flush_sink;    /* the eviction kernel's never-taken store */
  int sm_count;           /* sizes the eviction kernel's grid */
};

static gboolean
use_device (KsCudaContext *ctx, GError **error)
{
  return _ks_cuda_check (cudaSetDevice (ctx->device), "cudaSetDevice", error);
}

KsCudaContext *
_ks_cuda_context_new (int ordinal, GError **error)
{
  KsCudaContext *ctx = g_new0 (KsCudaContext, 1);

  ctx->device = ordinal;
  g_mutex_init (&ctx->staging_lock);
  if (!use_device (ctx, error)
      || !CHECK (cudaStreamCreateWithFlags (&ctx->stream, cudaStreamNonBlocking), error)
      || !CHECK (cudaMalloc ((void **) &ctx->bins, KS_HIST_DEVICE_WORDS * sizeof (guint32)), error)
      /* Every set starts zero; each launch then clears the next one's. */
      || !CHECK (cudaMemset (ctx->bins, 0, KS_HIST_DEVICE_WORDS * sizeof (guint32)), error)
      || !CHECK (cudaMallocHost ((void **) &ctx->bins_host, KS_HIST_SET_WORDS * sizeof (guint32)),
                 error))
    {
      _ks_cuda_context_free (ctx);
      return NULL;
    }
  return ctx;
}

void
_ks_cuda_context_free (KsCudaContext *ctx)
{
  if (ctx == NULL)
    return;
  /* After a sticky error every call fails; there is nothing left to release. */
  if (ks_cuda_lost_reason () == NULL)
    {
      cudaSetDevice (ctx->device);
      if (ctx->stream != NULL)
        cudaStreamSynchronize (ctx->stream);
      cudaFree (ctx->bins);
      cudaFree (ctx->flush);
      cudaFree (ctx->flush_sink);
      cudaFreeHost (ctx->bins_host);
      cudaFreeHost (ctx->staging);
      if (ctx->stream != NULL)
        cudaStreamDestroy (ctx->stream);
      (void) cudaGetLastError ();
    }
  g_mutex_clear (&ctx->staging_lock);
  g_free (ctx);
}

gpointer
_ks_cuda_context_stream (KsCudaContext *ctx)
{
  return ctx->stream;
}

gboolean
_ks_cuda_buffer_alloc (KsCudaContext *ctx, KsBuffer *buffer, GError **error)
{
  void *p = NULL;
  cudaError_t err;

  if (!use_device (ctx, error))
    return FALSE;
  err = cudaMalloc (&p, buffer->pitch * buffer->height);
  if (err == cudaErrorMemoryAllocation)
    {
      (void) cudaGetLastError ();
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "The GPU has not enough free memory for a %u×%u image (%.1f MiB): "
                   "cudaMalloc failed with cudaErrorMemoryAllocation",
                   buffer->width, buffer->height,
                   (double) buffer->pitch * buffer->height / (1024.0 * 1024.0));
      return FALSE;
    }
  if (!CHECK (err, error))
    return FALSE;
  buffer->data = p;
  return TRUE;
}

void
_ks_cuda_buffer_free (KsCudaContext *ctx, KsBuffer *buffer)
{
  if (buffer->data == NULL || ks_cuda_lost_reason () != NULL)
    return;
  cudaSetDevice (ctx->device);
  /* The stream may still read the buffer. */
  cudaStreamSynchronize (ctx->stream);
  cudaFree (buffer->data);
  (void) cudaGetLastError ();
}

static gboolean
ensure_staging (KsCudaContext *ctx, gsize size, GError **error)
{
  if (ctx->staging_size >= size)
    return TRUE;
  if (ctx->staging != NULL)
    {
      cudaFreeHost (ctx->staging);
      ctx->staging = NULL;
      ctx->staging_size = 0;
    }
  if (!CHECK (cudaMallocHost ((void **) &ctx->staging, size), error))
    return FALSE;
  ctx->staging_size = size;
  return TRUE;
}

gboolean
_ks_cuda_upload (KsCudaContext *ctx, const KsImage *image, KsBuffer *buffer, KsClock *clock,
                 GError **error)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&ctx->staging_lock);
  gsize row = (gsize) image->width * ks_format_bytes_per_pixel (image->format);

  if (!use_device (ctx, error) || !ensure_staging (ctx, row * image->height, error))
    return FALSE;
  /* The staging buffer may still feed an earlier copy. */
  if (!CHECK (cudaStreamSynchronize (ctx->stream), error))
    return FALSE;
  for (guint y = 0; y < image->height; y++)
    memcpy (ctx->staging + y * row, ks_image_row (image, y), row);
  /* Waits for the copy before the staging memory is another's. */
  return ks_clock_start (clock, error)
         && CHECK (cudaMemcpy2DAsync (buffer->data, buffer->pitch, ctx->staging, row, row,
                                      image->height, cudaMemcpyHostToDevice, ctx->stream), error)
         && ks_clock_stop (clock, error) && CHECK (cudaStreamSynchronize (ctx->stream), error);
}

gboolean
_ks_cuda_download (KsCudaContext *ctx, KsBuffer *buffer, KsImage *image, KsClock *clock,
                   GError **error)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&ctx->staging_lock);
  gsize row = (gsize) image->width * ks_format_bytes_per_pixel (image->format);

  if (!use_device (ctx, error) || !ensure_staging (ctx, row * image->height, error))
    return FALSE;
  if (!ks_clock_start (clock, error)
      || !CHECK (cudaMemcpy2DAsync (ctx->staging, row, buffer->data, buffer->pitch, row,
                                    image->height, cudaMemcpyDeviceToHost, ctx->stream), error)
      || !ks_clock_stop (clock, error)
      || !CHECK (cudaStreamSynchronize (ctx->stream), error))
    return FALSE;
  for (guint y = 0; y < image->height; y++)
    memcpy (ks_image_row (image, y), ctx->staging + y * row, row);
  return TRUE;
}

gboolean
_ks_cuda_read (KsCudaContext *ctx, const void *device_src, gsize bytes, void *host_dst,
               GError **error)
{
  return use_device (ctx, error)
         && CHECK (cudaMemcpyAsync (host_dst, device_src, bytes, cudaMemcpyDeviceToHost,
                                    ctx->stream), error)
         && CHECK (cudaStreamSynchronize (ctx->stream), error);
}

gboolean
_ks_cuda_fill (KsCudaContext *ctx, KsBuffer *buffer, guint8 value, GError **error)
{
  return use_device (ctx, error)
         && CHECK (cudaMemsetAsync (buffer->data, value, buffer->pitch * buffer->height,
                                    ctx->stream), error)
         && CHECK (cudaStreamSynchronize (ctx->stream), error);
}

gboolean
_ks_cuda_flush_caches (KsCudaContext *ctx, KsCacheFlush flush, GError **error)
{
  if (ctx->flush == NULL)
    {
      int l2 = 0;
      if (!CHECK (cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, ctx->device), error)
          || !CHECK (cudaDeviceGetAttribute (&ctx->sm_count, cudaDevAttrMultiProcessorCount,
                                             ctx->device), error))
        return FALSE;
      ctx->flush_size = MAX ((gsize) 2 * l2, (gsize) 64 << 20);
      if (!CHECK (cudaMalloc (&ctx->flush, ctx->flush_size), error))
        {
          ctx->flush = NULL;
          return FALSE;
        }
      if (!CHECK (cudaMalloc ((void **) &ctx->flush_sink, sizeof (guint32)), error)
          || !CHECK (cudaMemsetAsync (ctx->flush, 0, ctx->flush_size, ctx->stream), error))
        {
          cudaFree (ctx->flush);
          cudaFree (ctx->flush_sink);
          ctx->flush = NULL;
          ctx->flush_sink = NULL;
          return FALSE;
        }
    }
  if (flush == KS_CACHE_FLUSH_WRITE)
    return CHECK (cudaMemsetAsync (ctx->flush, 0, ctx->flush_size, ctx->stream), error);
  return CHECK (ks_cuda_evict_launch (ctx->flush, ctx->flush_size, ctx->flush_sink,
                                      ctx->sm_count, ctx->stream), error);
}

gboolean
_ks_cuda_attributes (KsCudaContext *ctx, const KsKernelRun *run, KsKernelAttributes *attrs,
                     GError **error)
{
  struct cudaFuncAttributes fa;

  memset (&fa, 0, sizeof fa);
  memset (attrs, 0, sizeof *attrs);
  if (!use_device (ctx, error)
      || !_ks_cuda_check (run->kind->cuda_attributes (run, &fa), "cudaFuncGetAttributes", error))
    return FALSE;
  if (run->kind->shared_memory != NULL)
    run->kind->shared_memory (run, attrs);
  /* The kernel's own static shared memory, as compiled. */
  attrs->num_regs = fa.numRegs;
  attrs->shared_static = fa.sharedSizeBytes;
  attrs->local_bytes = fa.localSizeBytes;
  attrs->max_threads_per_block = fa.maxThreadsPerBlock;
  return TRUE;
}

gboolean
_ks_cuda_active_blocks (KsCudaContext *ctx, const KsKernelRun *run, guint *blocks,
                        GError **error)
{
  KsKernelAttributes attrs;
  int n = 0;

  memset (&attrs, 0, sizeof attrs);
  if (run->kind->cuda_occupancy == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "%s has no occupancy query", run->kind->name);
      return FALSE;
    }
  if (run->kind->shared_memory != NULL)
    run->kind->shared_memory (run, &attrs);
  if (!use_device (ctx, error)
      || !_ks_cuda_check (run->kind->cuda_occupancy (run, attrs.shared_dynamic, &n),
                          "cudaOccupancyMaxActiveBlocksPerMultiprocessor", error))
    return FALSE;
  *blocks = (guint) MAX (n, 0);
  return TRUE;
}

typedef struct
{
  KsCoverageBuffers dev;
  gsize n;
} DeviceCoverage;

static void
device_coverage_free (DeviceCoverage *c)
{
  if (ks_cuda_lost_reason () != NULL)
    return;
  cudaFree (c->dev.writes);
  cudaFree (c->dev.owner_block);
  cudaFree (c->dev.owner_thread);
  cudaFree (c->dev.idle_threads);
  (void) cudaGetLastError ();
}

static gboolean
device_coverage_alloc (KsCudaContext *ctx, DeviceCoverage *c, gsize n, GError **error)
{
  memset (c, 0, sizeof *c);
  c->n = n;
  return CHECK (cudaMalloc ((void **) &c->dev.writes, n * 4), error)
         && CHECK (cudaMalloc ((void **) &c->dev.owner_block, n * 4), error)
         && CHECK (cudaMalloc ((void **) &c->dev.owner_thread, n * 4), error)
         && CHECK (cudaMalloc ((void **) &c->dev.idle_threads, 8), error)
         && CHECK (cudaMemsetAsync (c->dev.writes, 0, n * 4, ctx->stream), error)
         && CHECK (cudaMemsetAsync (c->dev.owner_block, 0, n * 4, ctx->stream), error)
         && CHECK (cudaMemsetAsync (c->dev.owner_thread, 0, n * 4, ctx->stream), error)
         && CHECK (cudaMemsetAsync (c->dev.idle_threads, 0, 8, ctx->stream), error);
}

static gboolean
device_coverage_download (KsCudaContext *ctx, DeviceCoverage *c, KsCoverage *out, GError **error)
{
  unsigned long long idle = 0;

  if (!CHECK (cudaMemcpyAsync (out->writes, c->dev.writes, c->n * 4, cudaMemcpyDeviceToHost,
                               ctx->stream), error)
      || !CHECK (cudaMemcpyAsync (out->owner_block, c->dev.owner_block, c->n * 4,
                                  cudaMemcpyDeviceToHost, ctx->stream), error)
      || !CHECK (cudaMemcpyAsync (out->owner_thread, c->dev.owner_thread, c->n * 4,
                                  cudaMemcpyDeviceToHost, ctx->stream), error)
      || !CHECK (cudaMemcpyAsync (&idle, c->dev.idle_threads, 8, cudaMemcpyDeviceToHost,
                                  ctx->stream), error)
      || !CHECK (cudaStreamSynchronize (ctx->stream), error))
    return FALSE;
  out->idle_threads = idle;
  return TRUE;
}

gboolean
_ks_cuda_run (KsCudaContext *ctx, const KsKernelRun *run, KsClock *clock, GError **error)
{
  DeviceCoverage cov;
  KsCoverageBuffers none = { NULL, NULL, NULL, NULL };
  KsKernelRun r = *run;
  gboolean instrumented = run->coverage != NULL;
  int channels = run->inputs[0]->format == KS_FORMAT_GRAY8 ? 1 : KS_HIST_CHANNELS;
  gboolean ok = FALSE;

  memset (&cov, 0, sizeof cov);
  if (!use_device (ctx, error))
    return FALSE;
  if (instrumented
      && !device_coverage_alloc (ctx, &cov, (gsize) run->geom.width * run->geom.height, error))
    goto out;

  r.device_bins = ctx->bins;
  r.bins_generation = &ctx->bins_generation;
  if (!ks_clock_start (clock, error)
      || !_ks_cuda_check (run->kind->cuda_launch (&r, instrumented ? cov.dev : none, ctx->stream),
                          run->kind->cuda_launcher, error)
      || !ks_clock_stop (clock, error))
    goto out;

  if (run->histogram != NULL)
    {
      /* The launch just made advanced the generation past its own. */
      const guint32 *counters = ctx->bins + ks_histogram_set_offset (ctx->bins_generation - 1);

      const gsize used = (gsize) channels * KS_HIST_BINS * sizeof (guint32);

      /* The used channels of every copy, one after the other; their sum is
       * the histogram. */
      if (!CHECK (cudaMemcpy2DAsync (ctx->bins_host, used, counters,
                                     KS_HIST_COPY_WORDS * sizeof (guint32), used, KS_HIST_COPIES,
                                     cudaMemcpyDeviceToHost, ctx->stream), error)
          || !CHECK (cudaStreamSynchronize (ctx->stream), error))
        goto out;
      for (int c = 0; c < channels; c++)
        for (guint v = 0; v < KS_HIST_BINS; v++)
          {
            guint32 sum = 0;

            for (guint k = 0; k < KS_HIST_COPIES; k++)
              sum += ctx->bins_host[k * channels * KS_HIST_BINS + c * KS_HIST_BINS + v];
            run->histogram[c][v] = sum;
          }
    }
  if (instrumented && !device_coverage_download (ctx, &cov, run->coverage, error))
    goto out;
  ok = TRUE;
out:
  if (instrumented)
    device_coverage_free (&cov);
  return ok;
}

typedef struct
{
  KsCudaContext *ctx;
  void *a;
  void *b;
  guint64 bytes;
  guint i;
} CopyRun;

static gboolean
copy_once (KsClock *clock, gpointer user_data, GError **error)
{
  CopyRun *c = user_data;
  /* Alternate the direction so no copy reads what the previous one left in L2. */
  void *src = c->i % 2 ? c->b : c->a, *dst = c->i % 2 ? c->a : c->b;

  c->i++;
  return ks_clock_start (clock, error)
         && CHECK (cudaMemcpyAsync (dst, src, c->bytes, cudaMemcpyDeviceToDevice,
                                    c->ctx->stream), error)
         && ks_clock_stop (clock, error);
}

gboolean
_ks_cuda_copy_bandwidth (KsCudaContext *ctx, KsClock *clock, guint64 bytes, guint repeats,
                         KsTiming *timing, GError **error)
{
  CopyRun c = { ctx, NULL, NULL, bytes, 0 };
  KsTimingOptions options;
  gboolean ok = FALSE;

  ks_timing_options_init (&options, repeats);
  if (!use_device (ctx, error) || !CHECK (cudaMalloc (&c.a, bytes), error)
      || !CHECK (cudaMalloc (&c.b, bytes), error)
      || !CHECK (cudaMemsetAsync (c.a, 0x5a, bytes, ctx->stream), error)
      || !CHECK (cudaStreamSynchronize (ctx->stream), error))
    goto out;
  ok = ks_timing_measure_clock (clock, &options, copy_once, &c, timing, error);
out:
  if (ks_cuda_lost_reason () == NULL)
    {
      cudaFree (c.a);
      cudaFree (c.b);
      (void) cudaGetLastError ();
    }
  return ok;
}

gboolean
_ks_cuda_debug_fault (KsCudaContext *ctx, GError **error)
{
  if (!use_device (ctx, error)
      || !_ks_cuda_check (ks_cuda_debug_fault_launch (ctx->stream), "ks_cuda_debug_fault_launch",
                          error))
    return FALSE;
  return CHECK (cudaStreamSynchronize (ctx->stream), error);
}

#else /* !HAVE_CUDA */

static gboolean
unavailable (GError **error)
{
  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
               "This build of Kernelscope has no CUDA support");
  return FALSE;
}

KsCudaContext *
_ks_cuda_context_new (int ordinal, GError **error)
{
  unavailable (error);
  return NULL;
}

void
_ks_cuda_context_free (KsCudaContext *ctx)
{
}

gpointer
_ks_cuda_context_stream (KsCudaContext *ctx)
{
  return NULL;
}

gboolean
_ks_cuda_buffer_alloc (KsCudaContext *ctx, KsBuffer *buffer, GError **error)
{
  return unavailable (error);
}

void
_ks_cuda_buffer_free (KsCudaContext *ctx, KsBuffer *buffer)
{
}

gboolean
_ks_cuda_upload (KsCudaContext *ctx, const KsImage *image, KsBuffer *buffer, KsClock *clock,
                 GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_download (KsCudaContext *ctx, KsBuffer *buffer, KsImage *image, KsClock *clock,
                   GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_fill (KsCudaContext *ctx, KsBuffer *buffer, guint8 value, GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_read (KsCudaContext *ctx, const void *device_src, gsize bytes, void *host_dst,
               GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_attributes (KsCudaContext *ctx, const KsKernelRun *run, KsKernelAttributes *attrs,
                     GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_active_blocks (KsCudaContext *ctx, const KsKernelRun *run, guint *blocks,
                        GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_run (KsCudaContext *ctx, const KsKernelRun *run, KsClock *clock, GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_copy_bandwidth (KsCudaContext *ctx, KsClock *clock, guint64 bytes, guint repeats,
                         KsTiming *timing, GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_debug_fault (KsCudaContext *ctx, GError **error)
{
  return unavailable (error);
}

gboolean
_ks_cuda_flush_caches (KsCudaContext *ctx, KsCacheFlush flush, GError **error)
{
  return unavailable (error);
}

#endif
