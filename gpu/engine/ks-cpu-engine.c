/* The CPU engine: the same ops with the same launch geometry as the CUDA
 * kernels, parallel across the cores.
 *
 * Instrumented runs walk the grid block by block and thread by thread, as the
 * GPU does, recording for every pixel the block and thread that wrote it and
 * counting the threads that fell outside the data; inside a block the threads
 * of one row cover consecutive pixels, so a block row is one span (one loop
 * the compiler can vectorise).
 *
 * Uninstrumented runs compute the same pixels with the same values faster: the
 * pixels a launch writes always form a rectangle from the origin (the whole
 * image for a grid-stride loop; the grid's extent clipped to the image for one
 * thread per pixel), each written once, so workers take bands of its rows. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"

#define BLOCKS_PER_CHUNK 64
/* Uninstrumented runs hand out bands of whole rows: a band per worker and
 * then some, so that a worker that falls behind does not hold up the run,
 * yet each band stays long enough that the filters' halo rows (computed by
 * both neighbours of a band boundary) cost little. */
#define BANDS_PER_WORKER 8
#define MIN_BAND_ROWS 8
/* …and no longer than this, so that a cancelled run stops within about a
 * band's time even on the largest images with the widest filters. */
#define MAX_BAND_ROWS 256
/* Below this many pixels one thread is faster than starting another. */
#define MIN_PIXELS_PER_WORKER 65536

typedef struct
{
  const KsKernelRun *run;
  guint64 n_blocks;
  /* Uninstrumented runs: the rectangle the grid writes, in bands of rows. */
  guint rect_width;
  guint rect_height;
  guint band_rows;
  guint64 n_units;       /* blocks or bands */
  gsize next_chunk;      /* atomic */
  guint64 idle_threads;  /* atomic adds at the end of each worker */
  GMutex lock;
  guint32 hist[4][256];  /* merged under lock */
} Job;

typedef KsCpuWorker Worker;

/* The work of rows [y0, y0 + rows) × pixels [x0, x0 + n): the kind's. */
static void
do_rect (Worker *w, guint x0, guint y0, guint n, guint rows)
{
  const KsKernelRun *run = ((const Job *) w->job)->run;

  run->kind->cpu_rect (w, run, x0, y0, n, rows);
}

/* Coverage of pixels [x0, x0 + n) of rows [y0, y0 + rows), handled by the
 * threads tx0, tx0 + 1, … of rows ty0, ty0 + 1, … of block bid. */
static void
record_coverage (Worker *w, guint x0, guint y0, guint n, guint rows, guint64 bid, guint ty0)
{
  const KsGeometry *g = &((const Job *) w->job)->run->geom;
  KsCoverage *c = ((const Job *) w->job)->run->coverage;
  guint ppt = g->pixels_per_thread;

  for (guint r = 0; r < rows; r++)
    {
      gsize base = (gsize) (y0 + r) * g->width + x0;
      for (gsize i = 0; i < n; i++)
        {
          c->writes[base + i]++;
          c->owner_block[base + i] = (guint32) bid;
          c->owner_thread[base + i] = i / ppt + g->block.x * (ty0 + r);
        }
    }
}

/* Instrumented runs walk the blocks as the GPU would, so that coverage names
 * the block and thread that own each pixel and counts the idle threads. */
static void
do_block (Worker *w, guint64 bid)
{
  const KsGeometry *g = &((const Job *) w->job)->run->geom;
  guint64 bx = bid % g->grid.x;
  guint64 by = (bid / g->grid.x) % g->grid.y;
  guint64 bz = bid / ((guint64) g->grid.x * g->grid.y);
  guint64 bdx = g->block.x, bdy = g->block.y, bdz = g->block.z, ppt = g->pixels_per_thread;
  guint64 cols = ks_ceil_div_u32 (g->width, (guint32) ppt);
  guint64 first_col = bx * bdx;
  guint64 busy_x = first_col < cols ? MIN (bdx, cols - first_col) : 0;
  guint64 rows = 0;

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
              {
                guint n = (guint) MIN (bdx * ppt, g->width - x0);
                do_rect (w, (guint) x0, (guint) y, n, 1);
                record_coverage (w, (guint) x0, (guint) y, n, 1, bid, (guint) ty);
              }
        }
      else
        rows++;
    }

  /* Per pixel: the block's busy rows are rows by·bdy … by·bdy + rows − 1, one
   * span each, all of the same columns; run them as one rectangle. */
  if (rows > 0)
    {
      guint64 x0 = first_col * ppt;
      guint n = (guint) MIN (busy_x * ppt, g->width - x0);
      do_rect (w, (guint) x0, (guint) (by * bdy), n, (guint) rows);
      record_coverage (w, (guint) x0, (guint) (by * bdy), n, (guint) rows, bid, 0);
    }
}

static void
do_band (Worker *w, guint64 band)
{
  const Job *job = w->job;
  guint y0 = (guint) band * job->band_rows;

  do_rect (w, 0, y0, job->rect_width, MIN (job->band_rows, job->rect_height - y0));
}

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;
  Job *job = w->job;
  gboolean blocks = job->run->coverage != NULL;
  guint64 per_chunk = blocks ? BLOCKS_PER_CHUNK : 1;

  for (;;)
    {
      guint64 start = (guint64) (gsize) g_atomic_pointer_add (&job->next_chunk, per_chunk);
      guint64 end;

      if (start >= job->n_units || g_cancellable_is_cancelled (job->run->cancellable))
        break;
      end = MIN (start + per_chunk, job->n_units);
      for (guint64 u = start; u < end; u++)
        if (blocks)
          do_block (w, u);
        else
          do_band (w, u);
    }

  g_mutex_lock (&job->lock);
  job->idle_threads += w->idle;
  if (job->run->histogram != NULL)
    for (guint k = 0; k < KS_CPU_HIST_COPIES; k++)
      for (guint c = 0; c < 4; c++)
        for (guint i = 0; i < 256; i++)
          job->hist[c][i] += w->hist[k][c][i];
  g_mutex_unlock (&job->lock);
  return NULL;
}

/* Without coverage to record, the order of the work is free: what the grid
 * writes is a rectangle from the origin — every pixel in grid-stride mode,
 * the grid's extent clipped to the image per pixel — each of its pixels
 * written once, and that is all a run's result depends on. */
static void
plan_rect (Job *job)
{
  const KsGeometry *g = &job->run->geom;
  guint64 w = g->width, h = g->height;

  if (g->mode != KS_MAP_GRID_STRIDE)
    {
      w = MIN (w, (guint64) g->grid.x * g->block.x * g->pixels_per_thread);
      h = MIN (h, (guint64) g->grid.y * g->block.y);
    }
  job->rect_width = (guint) w;
  job->rect_height = (guint) h;
}

/* Helper threads kept from one run to the next. Starting and joining a
 * thread per run cost more than the work of a small image: a 1080p gray run
 * (0.3 ms) spent more time in the kernel creating and tearing down its one
 * helper than the helper spent on pixels, and the caller's thread did five
 * sixths of the bands. A run takes the pool when nobody else holds it; a run
 * that finds it busy (another engine, another thread) starts its own threads
 * as before. Statics of GLib's lock types need no initialisation. */
typedef struct
{
  GMutex busy;     /* held by the run that uses the helpers */
  GMutex lock;     /* guards what follows */
  GCond wake;      /* a slot was offered */
  GCond finished;  /* the last slot was done */
  guint n_threads;
  Worker *workers; /* slots 1 … n_wanted of the current run */
  guint n_wanted;
  guint n_taken;
  guint n_done;
} Pool;

static Pool pool;

static gpointer
helper_main (gpointer data)
{
  (void) data;
  g_mutex_lock (&pool.lock);
  for (;;)
    {
      Worker *w;

      while (pool.n_taken >= pool.n_wanted)
        g_cond_wait (&pool.wake, &pool.lock);
      w = &pool.workers[++pool.n_taken];
      g_mutex_unlock (&pool.lock);
      worker_main (w);
      g_mutex_lock (&pool.lock);
      if (++pool.n_done == pool.n_wanted)
        g_cond_signal (&pool.finished);
    }
  return NULL;
}

/* Workers 1 … n − 1 on the pool's helpers, worker 0 on the caller's thread.
 * FALSE, without running anything, when no helper could be started. */
static gboolean
run_on_pool (Worker *workers, guint n, GError **error)
{
  g_mutex_lock (&pool.lock);
  while (pool.n_threads < n - 1)
    {
      g_autoptr (GError) local_error = NULL;
      GThread *t = g_thread_try_new ("ks-cpu-worker", helper_main, NULL, &local_error);

      if (t == NULL)
        {
          /* Fewer helpers still do every slot, one after another. */
          if (pool.n_threads > 0)
            break;
          g_mutex_unlock (&pool.lock);
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      g_thread_unref (t);
      pool.n_threads++;
    }
  pool.workers = workers;
  pool.n_taken = 0;
  pool.n_done = 0;
  pool.n_wanted = n - 1;
  g_cond_broadcast (&pool.wake);
  g_mutex_unlock (&pool.lock);

  worker_main (&workers[0]);

  g_mutex_lock (&pool.lock);
  while (pool.n_done < pool.n_wanted)
    g_cond_wait (&pool.finished, &pool.lock);
  pool.n_wanted = 0;
  pool.n_taken = 0;
  pool.workers = NULL;
  g_mutex_unlock (&pool.lock);
  return TRUE;
}

/* Threads of this run's own, when the pool is taken. */
static gboolean
run_on_own_threads (Job *job, Worker *workers, guint n, GError **error)
{
  g_autofree GThread **threads = g_new0 (GThread *, n);

  for (guint i = 1; i < n; i++)
    {
      threads[i] = g_thread_try_new ("ks-cpu-worker", worker_main, &workers[i], error);
      if (threads[i] == NULL)
        {
          /* Let the workers already started finish their share, then fail. */
          job->n_units = 0;
          for (guint j = 1; j < i; j++)
            g_thread_join (threads[j]);
          return FALSE;
        }
    }
  worker_main (&workers[0]);
  for (guint i = 1; i < n; i++)
    g_thread_join (threads[i]);
  return TRUE;
}

gboolean
_ks_cpu_run (guint n_workers, const KsKernelRun *run, GError **error)
{
  const KsGeometry *g = &run->geom;
  Job job;
  g_autofree Worker *workers = NULL;
  guint n;

  memset (&job, 0, sizeof job);
  job.run = run;
  job.n_blocks = (guint64) g->grid.x * g->grid.y * g->grid.z;
  g_mutex_init (&job.lock);
  n_workers = MAX (1, n_workers);

  if (run->coverage != NULL)
    {
      job.n_units = job.n_blocks;
      /* No more workers than chunks of blocks: tiny grids run on the caller's thread. */
      n = (guint) MIN ((guint64) n_workers,
                       (job.n_blocks + BLOCKS_PER_CHUNK - 1) / BLOCKS_PER_CHUNK);
    }
  else
    {
      guint64 pixels;

      plan_rect (&job);
      pixels = (guint64) job.rect_width * job.rect_height;
      n = (guint) MIN ((guint64) n_workers, pixels / MIN_PIXELS_PER_WORKER);
      n = MAX (n, 1);
      job.band_rows = CLAMP (ks_ceil_div_u32 (job.rect_height, n * BANDS_PER_WORKER),
                             MIN_BAND_ROWS, MAX_BAND_ROWS);
      job.n_units = job.rect_width == 0 ? 0 : ks_ceil_div_u32 (job.rect_height, job.band_rows);
    }
  n = MAX (n, 1);
  workers = g_new0 (Worker, n);
  for (guint i = 0; i < n; i++)
    workers[i].job = &job;
  if (n == 1)
    worker_main (&workers[0]);
  else if (g_mutex_trylock (&pool.busy))
    {
      gboolean ok = run_on_pool (workers, n, error);

      g_mutex_unlock (&pool.busy);
      if (!ok)
        {
          g_mutex_clear (&job.lock);
          return FALSE;
        }
    }
  else if (!run_on_own_threads (&job, workers, n, error))
    {
      g_mutex_clear (&job.lock);
      return FALSE;
    }
  g_mutex_clear (&job.lock);

  /* A cancelled run's output is partly written: the caller discards it. */
  if (g_cancellable_set_error_if_cancelled (run->cancellable, error))
    return FALSE;
  if (run->coverage != NULL)
    run->coverage->idle_threads = job.idle_threads;
  if (run->histogram != NULL)
    memcpy (run->histogram, job.hist, sizeof job.hist);
  return TRUE;
}
