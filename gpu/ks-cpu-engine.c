/* The CPU engine: the same ops with the same launch geometry as the CUDA
 * kernels. Blocks are handed out to worker threads; inside a block the threads
 * of one row cover consecutive pixels, so a block row is processed as one span
 * (one loop the compiler can vectorise) while coverage still names the thread
 * that owns each pixel. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"

#define BLOCKS_PER_CHUNK 64

typedef void (*RowFunc) (const guint8 *a, const guint8 *b, guint8 *out, guint n,
                         const KsPixelParams *p);

static inline guint32
load32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return v;
}

#define KS_X_ROW(ID, name, fn, n_in, gray, lut)                                                       \
  static void row_##name (const guint8 *a, const guint8 *b, guint8 *out, guint n,                \
                          const KsPixelParams *p)                                                \
  {                                                                                              \
    for (guint i = 0; i < n; i++)                                                                \
      {                                                                                          \
        guint32 v = fn (load32 (a + 4 * i), (n_in) > 1 ? load32 (b + 4 * i) : 0u, p);          \
        if (gray)                                                                                \
          out[i] = (guint8) v;                                                                   \
        else                                                                                     \
          memcpy (out + 4 * i, &v, 4);                                                           \
      }                                                                                          \
  }
KS_ELEMENTWISE_OPS (KS_X_ROW)
#undef KS_X_ROW

static const RowFunc row_funcs[KS_EW_N] = {
#define KS_X_TABLE(ID, name, fn, n_in, gray, lut) [KS_EW_##ID] = row_##name,
  KS_ELEMENTWISE_OPS (KS_X_TABLE)
#undef KS_X_TABLE
};

typedef struct
{
  const KsKernelRun *run;
  RowFunc row;
  guint in_bpp;
  guint out_bpp;
  guint channels;
  guint64 n_blocks;
  gsize next_chunk;      /* atomic */
  guint64 idle_threads;  /* atomic adds at the end of each worker */
  GMutex lock;
  guint32 hist[4][256];  /* merged under lock */
} Job;

typedef struct
{
  Job *job;
  guint32 hist[4][256];
  guint64 idle;
} Worker;

static void
histogram_span (Worker *w, const guint8 *src, guint n)
{
  if (w->job->channels == 1)
    {
      for (guint i = 0; i < n; i++)
        w->hist[0][src[i]]++;
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      guint32 p = load32 (src + 4 * i);
      w->hist[0][KS_R (p)]++;
      w->hist[1][KS_G (p)]++;
      w->hist[2][KS_B (p)]++;
      w->hist[3][ks_luma601 (p, 0)]++;
    }
}

/* Pixels [x0, x0 + n) of row y, handled by the threads tx0, tx0 + 1, … of the block. */
static void
do_span (Worker *w, guint x0, guint y, guint n, guint64 bid, guint ty)
{
  const Job *job = w->job;
  const KsKernelRun *run = job->run;
  const KsGeometry *g = &run->geom;
  const guint8 *a;

  /* Filters and resampling read around and away from (x0, y): they find their
   * own source pixels. */
  if (run->kind == KS_IMPL_FILTER)
    _ks_cpu_filter_span (run, x0, y, n);
  else if (run->kind == KS_IMPL_RESIZE)
    _ks_cpu_resize_span (run, x0, y, n);
  else if (run->kind == KS_IMPL_HISTOGRAM)
    {
      a = (const guint8 *) run->inputs[0]->data + (gsize) y * run->inputs[0]->pitch
          + (gsize) x0 * job->in_bpp;
      histogram_span (w, a, n);
    }
  else
    {
      const guint8 *b = run->inputs[1] != NULL
                          ? (const guint8 *) run->inputs[1]->data + (gsize) y * run->inputs[1]->pitch
                              + (gsize) x0 * job->in_bpp
                          : NULL;
      guint8 *out = (guint8 *) run->output->data + (gsize) y * run->output->pitch
                    + (gsize) x0 * job->out_bpp;
      a = (const guint8 *) run->inputs[0]->data + (gsize) y * run->inputs[0]->pitch
          + (gsize) x0 * job->in_bpp;
      job->row (a, b, out, n, &run->pixel_params);
    }

  if (run->coverage != NULL)
    {
      KsCoverage *c = run->coverage;
      guint ppt = g->pixels_per_thread;
      gsize base = (gsize) y * g->width + x0;
      for (guint i = 0; i < n; i++)
        {
          c->writes[base + i]++;
          c->owner_block[base + i] = (guint32) bid;
          c->owner_thread[base + i] = i / ppt + g->block.x * ty;
        }
    }
}

static void
do_block (Worker *w, guint64 bid)
{
  const KsGeometry *g = &w->job->run->geom;
  guint64 bx = bid % g->grid.x;
  guint64 by = (bid / g->grid.x) % g->grid.y;
  guint64 bz = bid / ((guint64) g->grid.x * g->grid.y);
  guint64 bdx = g->block.x, bdy = g->block.y, bdz = g->block.z, ppt = g->pixels_per_thread;
  guint64 cols = ks_ceil_div_u32 (g->width, (guint32) ppt);
  guint64 first_col = bx * bdx;
  guint64 busy_x = first_col < cols ? MIN (bdx, cols - first_col) : 0;

  /* Only threads with a global z of 0 map onto the image. */
  w->idle += bdx * bdy * (bz == 0 ? bdz - 1 : bdz);
  if (bz != 0)
    return;

  for (guint64 ty = 0; ty < bdy; ty++)
    {
      guint64 gy = by * bdy + ty;

      if (gy >= g->height || busy_x == 0)
        {
          w->idle += bdx;
          continue;
        }
      w->idle += bdx - busy_x;
      if (g->mode == KS_MAP_GRID_STRIDE)
        {
          guint64 sx = (guint64) g->grid.x * bdx * ppt, sy = (guint64) g->grid.y * bdy;
          for (guint64 y = gy; y < g->height; y += sy)
            for (guint64 x0 = first_col * ppt; x0 < g->width; x0 += sx)
              do_span (w, (guint) x0, (guint) y, (guint) MIN (bdx * ppt, g->width - x0), bid,
                       (guint) ty);
        }
      else
        {
          guint64 x0 = first_col * ppt;
          do_span (w, (guint) x0, (guint) gy, (guint) MIN (busy_x * ppt, g->width - x0), bid,
                   (guint) ty);
        }
    }
}

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;
  Job *job = w->job;

  for (;;)
    {
      guint64 start = (guint64) (gsize) g_atomic_pointer_add (&job->next_chunk, BLOCKS_PER_CHUNK);
      guint64 end;

      if (start >= job->n_blocks)
        break;
      end = MIN (start + BLOCKS_PER_CHUNK, job->n_blocks);
      for (guint64 b = start; b < end; b++)
        do_block (w, b);
    }

  g_mutex_lock (&job->lock);
  job->idle_threads += w->idle;
  if (job->run->histogram != NULL)
    for (guint c = 0; c < 4; c++)
      for (guint i = 0; i < 256; i++)
        job->hist[c][i] += w->hist[c][i];
  g_mutex_unlock (&job->lock);
  return NULL;
}

gboolean
_ks_cpu_run (guint n_workers, const KsKernelRun *run, GError **error)
{
  const KsGeometry *g = &run->geom;
  Job job;
  g_autofree Worker *workers = NULL;
  g_autofree GThread **threads = NULL;
  guint n;

  memset (&job, 0, sizeof job);
  job.run = run;
  job.in_bpp = ks_format_bytes_per_pixel (run->inputs[0]->format);
  job.out_bpp = run->output != NULL ? ks_format_bytes_per_pixel (run->output->format) : 0;
  job.channels = run->inputs[0]->format == KS_FORMAT_GRAY8 ? 1 : 4;
  job.n_blocks = (guint64) g->grid.x * g->grid.y * g->grid.z;
  if (run->kind == KS_IMPL_ELEMENTWISE || run->kind == KS_IMPL_EQUALIZE)
    {
      g_assert (run->ew_id >= 0 && run->ew_id < KS_EW_N);
      job.row = row_funcs[run->ew_id];
    }
  g_mutex_init (&job.lock);

  /* No more workers than chunks of blocks: tiny grids run on the caller's thread. */
  n = (guint) MIN ((guint64) MAX (1, n_workers),
                   (job.n_blocks + BLOCKS_PER_CHUNK - 1) / BLOCKS_PER_CHUNK);
  n = MAX (n, 1);
  workers = g_new0 (Worker, n);
  threads = g_new0 (GThread *, n);
  for (guint i = 0; i < n; i++)
    workers[i].job = &job;
  for (guint i = 1; i < n; i++)
    {
      threads[i] = g_thread_try_new ("ks-cpu-worker", worker_main, &workers[i], error);
      if (threads[i] == NULL)
        {
          /* Let the workers already started finish their share, then fail. */
          job.n_blocks = 0;
          for (guint j = 1; j < i; j++)
            g_thread_join (threads[j]);
          g_mutex_clear (&job.lock);
          return FALSE;
        }
    }
  worker_main (&workers[0]);
  for (guint i = 1; i < n; i++)
    g_thread_join (threads[i]);
  g_mutex_clear (&job.lock);

  if (run->coverage != NULL)
    run->coverage->idle_threads = job.idle_threads;
  if (run->histogram != NULL)
    memcpy (run->histogram, job.hist, sizeof job.hist);
  return TRUE;
}
