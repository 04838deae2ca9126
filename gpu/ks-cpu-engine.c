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
/* Below this many pixels one thread is faster than starting another. */
#define MIN_PIXELS_PER_WORKER 65536
/* Pixels per piece of a row in the histogram and the vector rows. */
#define PIECE 256

/* The hot loops are compiled for AVX2 as well as the baseline, picked at
 * load time: SSE2 has no 32-bit multiply (pmulld), which the luma needs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define KS_HOT __attribute__ ((target_clones ("avx2", "default"), optimize ("O3")))
#else
#define KS_HOT
#endif


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
    for (gsize i = 0; i < n; i++)                                                                \
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

/* CPU-only rows of the hottest ops: the same integers as ks_px_gray,
 * ks_px_invert and ks_px_add (tests/test-ops-*.c hold them to independent
 * references), written without branches so that GCC vectorises them. */

/* ks_luma601: s / 1000 for s ≤ 255 500 is ((s >> 3) · 33555) >> 22 — exact
 * over that whole range (checked exhaustively), and the product stays below
 * 2^32, so the division becomes a 32-bit multiply and shifts. */
KS_HOT static void
luma_row (const guint8 *a, guint8 *out, guint n, guint32 bias)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 v = load32 (a + 4 * i);
      guint32 s = 299u * (v & 0xffu) + 587u * ((v >> 8) & 0xffu) + 114u * ((v >> 16) & 0xffu)
                  + bias;
      out[i] = (guint8) (((s >> 3) * 33555u) >> 22);
    }
}

static void
row_gray_fast (const guint8 *a, const guint8 *b, guint8 *out, guint n, const KsPixelParams *p)
{
  (void) b;
  luma_row (a, out, n, p->i[0] ? 0u : 500u);
}

KS_HOT static void
row_invert_fast (const guint8 *a, const guint8 *b, guint8 *out, guint n, const KsPixelParams *p)
{
  (void) b;
  (void) p;
  for (gsize i = 0; i < n; i++)
    {
      guint32 v = load32 (a + 4 * i) ^ 0x00ffffffu;
      memcpy (out + 4 * i, &v, 4);
    }
}

/* Saturating add of R, G and B within 32-bit words: the low seven bits of
 * each byte added without carries between bytes, the top bits put back by
 * xor; a byte overflowed where its carry-out (bit 7 of the majority of x, y
 * and not-sum) is set, and (c << 1) − (c >> 7) turns each such bit into 0xff.
 * Alpha is masked off before and taken from a after. */
KS_HOT static void
row_add_fast (const guint8 *a, const guint8 *b, guint8 *out, guint n, const KsPixelParams *p)
{
  (void) p;
  for (gsize i = 0; i < n; i++)
    {
      guint32 va = load32 (a + 4 * i), vb = load32 (b + 4 * i);
      guint32 x = va & 0x00ffffffu, y = vb & 0x00ffffffu;
      guint32 sum = ((x & 0x007f7f7fu) + (y & 0x007f7f7fu)) ^ ((x ^ y) & 0x00808080u);
      guint32 c = ((x & y) | ((x | y) & ~sum)) & 0x00808080u;
      guint32 v = (sum | ((c << 1) - (c >> 7))) | (va & 0xff000000u);
      memcpy (out + 4 * i, &v, 4);
    }
}

static const RowFunc row_funcs[KS_EW_N] = {
#define KS_X_TABLE(ID, name, fn, n_in, gray, lut) [KS_EW_##ID] = row_##name,
  KS_ELEMENTWISE_OPS (KS_X_TABLE)
#undef KS_X_TABLE
};

/* Where a CPU-only row exists, it replaces the generic one. */
static const RowFunc fast_row_funcs[KS_EW_N] = {
  [KS_EW_GRAY] = row_gray_fast,
  [KS_EW_INVERT] = row_invert_fast,
  [KS_EW_ADD] = row_add_fast,
};

typedef struct
{
  const KsKernelRun *run;
  RowFunc row;
  guint in_bpp;
  guint out_bpp;
  guint channels;
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

/* Four copies of each channel's bins, used in turn by consecutive pixels:
 * runs of equal values (flat image areas) would otherwise make every
 * increment wait for the store of the previous one. */
#define HIST_COPIES 4

typedef struct
{
  Job *job;
  guint32 hist[HIST_COPIES][4][256];
  guint64 idle;
} Worker;

/* One pixel into copy h of the bins: R, G, B and its luma y. */
static inline void
count_pixel (guint32 (*h)[256], guint32 p, guint y)
{
  h[0][KS_R (p)]++;
  h[1][KS_G (p)]++;
  h[2][KS_B (p)]++;
  h[3][y]++;
}

static void
histogram_span (Worker *w, const guint8 *src, guint n)
{
  guint32 (*h)[4][256] = w->hist;
  guint8 luma[PIECE];
  guint i = 0;

  G_STATIC_ASSERT (HIST_COPIES == 4);
  if (w->job->channels == 1)
    {
      for (; i + HIST_COPIES <= n; i += HIST_COPIES)
        {
          h[0][0][src[i]]++;
          h[1][0][src[i + 1]]++;
          h[2][0][src[i + 2]]++;
          h[3][0][src[i + 3]]++;
        }
      for (; i < n; i++)
        h[0][0][src[i]]++;
      return;
    }
  for (guint done = 0; done < n; done += PIECE)
    {
      guint m = MIN (PIECE, n - done);
      const guint8 *s = src + 4 * (gsize) done;

      /* The rounded luma of ks_luma601 (p, 0), a piece at a time in vectors. */
      luma_row (s, luma, m, 500u);
      /* Four pixels a step, each into its own copy, fixed: the copy's address
       * is a constant offset, not worked out per pixel. */
      for (i = 0; i + 4 <= m; i += 4)
        {
          count_pixel (h[0], load32 (s + 4 * i), luma[i]);
          count_pixel (h[1], load32 (s + 4 * i + 4), luma[i + 1]);
          count_pixel (h[2], load32 (s + 4 * i + 8), luma[i + 2]);
          count_pixel (h[3], load32 (s + 4 * i + 12), luma[i + 3]);
        }
      for (; i < m; i++)
        count_pixel (h[i % HIST_COPIES], load32 (s + 4 * i), luma[i]);
    }
}

/* The work of rows [y0, y0 + rows) × pixels [x0, x0 + n). */
static void
do_rect (Worker *w, guint x0, guint y0, guint n, guint rows)
{
  const Job *job = w->job;
  const KsKernelRun *run = job->run;

  /* Filters and resampling read around and away from (x0, y): they find their
   * own source pixels. */
  if (run->kind == KS_IMPL_FILTER)
    {
      _ks_cpu_filter_rect (run, x0, y0, n, rows);
      return;
    }
  for (guint y = y0; y < y0 + rows; y++)
    {
      const guint8 *a = (const guint8 *) run->inputs[0]->data + (gsize) y * run->inputs[0]->pitch
                        + (gsize) x0 * job->in_bpp;

      if (run->kind == KS_IMPL_RESIZE)
        _ks_cpu_resize_span (run, x0, y, n);
      else if (run->kind == KS_IMPL_HISTOGRAM)
        histogram_span (w, a, n);
      else
        {
          const guint8 *b = run->inputs[1] != NULL
                              ? (const guint8 *) run->inputs[1]->data
                                  + (gsize) y * run->inputs[1]->pitch + (gsize) x0 * job->in_bpp
                              : NULL;
          guint8 *out = (guint8 *) run->output->data + (gsize) y * run->output->pitch
                        + (gsize) x0 * job->out_bpp;
          job->row (a, b, out, n, &run->pixel_params);
        }
    }
}

/* Coverage of pixels [x0, x0 + n) of rows [y0, y0 + rows), handled by the
 * threads tx0, tx0 + 1, … of rows ty0, ty0 + 1, … of block bid. */
static void
record_coverage (Worker *w, guint x0, guint y0, guint n, guint rows, guint64 bid, guint ty0)
{
  const KsGeometry *g = &w->job->run->geom;
  KsCoverage *c = w->job->run->coverage;
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
  const KsGeometry *g = &w->job->run->geom;
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

      if (start >= job->n_units)
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
    for (guint k = 0; k < HIST_COPIES; k++)
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
      job.row = fast_row_funcs[run->ew_id] != NULL ? fast_row_funcs[run->ew_id]
                                                   : row_funcs[run->ew_id];
    }
  g_mutex_init (&job.lock);
  n_workers = MAX (1, n_workers);

  if (run->coverage != NULL)
    {
      job.n_units = job.n_blocks;
      /* No more workers than chunks of blocks: tiny grids run on the caller's thread. */
      n = (guint) MIN ((guint64) n_workers, (job.n_blocks + BLOCKS_PER_CHUNK - 1) / BLOCKS_PER_CHUNK);
    }
  else
    {
      guint64 pixels;

      plan_rect (&job);
      pixels = (guint64) job.rect_width * job.rect_height;
      n = (guint) MIN ((guint64) n_workers, pixels / MIN_PIXELS_PER_WORKER);
      n = MAX (n, 1);
      job.band_rows = MAX (MIN_BAND_ROWS, ks_ceil_div_u32 (job.rect_height, n * BANDS_PER_WORKER));
      job.n_units = job.rect_width == 0 ? 0 : ks_ceil_div_u32 (job.rect_height, job.band_rows);
    }
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
          job.n_units = 0;
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
