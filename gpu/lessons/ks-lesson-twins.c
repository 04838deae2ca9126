/* ks-lesson-twins.c: the lessons' kernels written again in C for the CPU
 * model (ks-lesson-cpu.c), a twin per kernel source. Each runs the blocks
 * it is given thread by thread through the model's checked accessors, one
 * statement for every thread of its block before the next wherever the
 * kernel has a __syncthreads or a race. */
#include "config.h"

#include <math.h>

#include "ks-lesson-private.h"

/* ---- the twins -------------------------------------------------------------
 * Each mirrors the kernel source of the same name in resources/lessons/,
 * statement for statement; arguments are numbered as the kernel declares them. */

#define FOR_BLOCKS(b) for (guint b = first; b < first + n; b++)
#define FOR_THREADS(sim, b, t, k)                                                        \
  for (guint k = 0; k < _ks_sim_threads_per_block (sim); k++)                             \
    for (KsSimThread t, *t##_once = (_ks_sim_thread (sim, b, k, &t), &t); t##_once != NULL; \
         t##_once = NULL)

static guint
global_tid (const KsSim *sim, const KsSimThread *t)
{
  return t->thread_idx.x + t->block_idx.x * _ks_sim_get_run (sim)->block.x;
}

static guint
grid_threads (const KsSim *sim)
{
  const KsLessonRun *run = _ks_sim_get_run (sim);

  return run->block.x * run->grid.x;
}

/* out[i] = x[i] + y[i], capped at `ceiling` (INFINITY: not capped): the
 * statement of every adding kernel, whatever its argument order. */
static void
sum_at (KsSim *sim, const KsSimThread *t, guint out, guint x, guint y, gint64 i, float ceiling)
{
  float sum = _ks_sim_ldf (sim, t, x, i) + _ks_sim_ldf (sim, t, y, i);

  _ks_sim_stf (sim, t, out, i, sum > ceiling ? ceiling : sum);
}

/* The grid-stride loop of 11-06's add_num, 11-10's add and 12-05's
 * clamped add_num: for (i = global id; i < n; i += threads in the grid). */
static void
grid_stride_sum (KsSim *sim, guint first, guint n, guint out, guint x, guint y, guint count_arg,
                 float ceiling)
{
  gint64 count = _ks_sim_scalar (sim, count_arg);
  gint64 stride = grid_threads (sim);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      for (gint64 i = global_tid (sim, &t); i < count; i += stride)
        sum_at (sim, &t, out, x, y, i, ceiling);
}

void
_ks_twin_hello (KsSim *sim, guint first, guint n)
{
  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      _ks_sim_printf (sim, "Hello,PyCUDA!!!\n");
}

void
_ks_twin_hello_book (KsSim *sim, guint first, guint n)
{
  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      _ks_sim_printf (sim, "Hello,PyCUDA!!!");
}

/* blocks (int *order, int *next) */
void
_ks_twin_blocks (KsSim *sim, guint first, guint n)
{
  const KsLessonRun *run = _ks_sim_get_run (sim);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint32 slot = _ks_sim_atomic_addi (sim, &t, 1, 0, 1);

        if (slot < (gint32) run->grid.x)
          _ks_sim_sti (sim, &t, 0, slot, (gint32) t.block_idx.x);
        _ks_sim_printf (sim, "I am in block no: %u \n", t.block_idx.x);
      }
}

void
_ks_twin_blocks_book (KsSim *sim, guint first, guint n)
{
  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      _ks_sim_printf (sim, "I am in block no: %u \n", t.block_idx.x);
}

/* add_num (float *result, const float *a, const float *b): i = threadIdx.x */
void
_ks_twin_add_thread (KsSim *sim, guint first, guint n)
{
  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      sum_at (sim, &t, 0, 1, 2, t.thread_idx.x, INFINITY);
}

/* add_num (float *result, const float *a, const float *b, int n), bounds-checked */
void
_ks_twin_add_checked (KsSim *sim, guint first, guint n)
{
  gint64 count = _ks_sim_scalar (sim, 3);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 i = global_tid (sim, &t);

        if (i < count)
          sum_at (sim, &t, 0, 1, 2, i, INFINITY);
      }
}

/* add_num (float *result, const float *a, const float *b, int n), grid-stride */
void
_ks_twin_add_stride (KsSim *sim, guint first, guint n)
{
  grid_stride_sum (sim, first, n, 0, 1, 2, 3, INFINITY);
}

/* square (float *a, int width, int height) */
void
_ks_twin_square (KsSim *sim, guint first, guint n)
{
  const KsLessonRun *run = _ks_sim_get_run (sim);
  gint64 width = _ks_sim_scalar (sim, 1);
  gint64 height = _ks_sim_scalar (sim, 2);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 x = t.block_idx.x * run->block.x + t.thread_idx.x;
        gint64 y = t.block_idx.y * run->block.y + t.thread_idx.y;

        if (x < width && y < height)
          {
            float v = _ks_sim_ldf (sim, &t, 0, x + y * width);

            _ks_sim_stf (sim, &t, 0, x + y * width, v * v);
          }
      }
}

/* square (float *a): idx = threadIdx.x + threadIdx.y * 5. Threads of one
 * warp that share a cell (on any side other than 5) read it before any of
 * them writes, as lockstep lanes do: the cell is squared once, not twice. */
void
_ks_twin_square_book (KsSim *sim, guint first, guint n)
{
  guint threads = _ks_sim_threads_per_block (sim);

  FOR_BLOCKS (b)
    for (guint warp = 0; warp < threads; warp += 32)
      {
        float loaded[32];
        guint lanes = MIN (32u, threads - warp);

        for (guint lane = 0; lane < lanes; lane++)
          {
            KsSimThread t;

            _ks_sim_thread (sim, b, warp + lane, &t);
            loaded[lane] = _ks_sim_ldf (sim, &t, 0, t.thread_idx.x + t.thread_idx.y * 5);
          }
        for (guint lane = 0; lane < lanes; lane++)
          {
            KsSimThread t;

            _ks_sim_thread (sim, b, warp + lane, &t);
            _ks_sim_stf (sim, &t, 0, t.thread_idx.x + t.thread_idx.y * 5,
                         loaded[lane] * loaded[lane]);
          }
      }
}

/* gpu_dot (const float *a, const float *b, float *partial, int n), cache[512] */
void
_ks_twin_dot (KsSim *sim, guint first, guint n)
{
  gint64 count = _ks_sim_scalar (sim, 3);
  gint64 stride = grid_threads (sim);
  guint threads = _ks_sim_threads_per_block (sim);

  FOR_BLOCKS (b)
    {
      KsSimShared cache;

      _ks_sim_shared_init (&cache, "cache", 512);
      FOR_THREADS (sim, b, t, k)
        {
          float sum = 0.0f;

          for (gint64 i = global_tid (sim, &t); i < count; i += stride)
            sum += _ks_sim_ldf (sim, &t, 0, i) * _ks_sim_ldf (sim, &t, 1, i);
          _ks_sim_sh_stf (sim, &t, &cache, t.thread_idx.x, sum);
        }
      for (guint half = threads / 2; half > 0; half /= 2)
        FOR_THREADS (sim, b, t, k)
          if (t.thread_idx.x < half)
            _ks_sim_sh_stf (sim, &t, &cache, t.thread_idx.x,
                            _ks_sim_sh_ldf (sim, &t, &cache, t.thread_idx.x)
                            + _ks_sim_sh_ldf (sim, &t, &cache, t.thread_idx.x + half));
      FOR_THREADS (sim, b, t, k)
        if (t.thread_idx.x == 0)
          _ks_sim_stf (sim, &t, 2, t.block_idx.x, _ks_sim_sh_ldf (sim, &t, &cache, 0));
      _ks_sim_shared_clear (&cache);
    }
}

/* matrix_mul (const float *a, const float *b, float *c, int width) */
void
_ks_twin_matmul (KsSim *sim, guint first, guint n)
{
  const KsLessonRun *run = _ks_sim_get_run (sim);
  gint64 width = _ks_sim_scalar (sim, 3);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 col = t.block_idx.x * run->block.x + t.thread_idx.x;
        gint64 row = t.block_idx.y * run->block.y + t.thread_idx.y;

        if (row < width && col < width)
          {
            float sum = 0.0f;

            for (gint64 j = 0; j < width; j++)
              sum += _ks_sim_ldf (sim, &t, 0, row * width + j)
                     * _ks_sim_ldf (sim, &t, 1, j * width + col);
            _ks_sim_stf (sim, &t, 2, row * width + col, sum);
          }
      }
}

/* matrix_mul (const float *a, const float *b, float *c), MATRIX_SIZE 3 */
void
_ks_twin_matmul_book (KsSim *sim, guint first, guint n)
{
  const gint64 size = 3;

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 tx = t.thread_idx.x, ty = t.thread_idx.y;
        float sum = 0.0f;

        for (gint64 j = 0; j < size; j++)
          sum += _ks_sim_ldf (sim, &t, 0, ty * size + j) * _ks_sim_ldf (sim, &t, 1, j * size + tx);
        _ks_sim_stf (sim, &t, 2, ty * size + tx, sum);
      }
}

#define TILE 2

/* matrix_mul_tiled (const float *a, const float *b, float *c, int width) */
void
_ks_twin_matmul_tiled (KsSim *sim, guint first, guint n)
{
  gint64 width = _ks_sim_scalar (sim, 3);
  guint threads = _ks_sim_threads_per_block (sim);

  FOR_BLOCKS (b)
    {
      KsSimShared ta, tb;
      g_autofree float *sum = g_new0 (float, threads);

      _ks_sim_shared_init (&ta, "tile_a", TILE * TILE);
      _ks_sim_shared_init (&tb, "tile_b", TILE * TILE);
      for (gint64 s = 0; s < (width + TILE - 1) / TILE; s++)
        {
          FOR_THREADS (sim, b, t, k)
            {
              gint64 col = TILE * t.block_idx.x + t.thread_idx.x;
              gint64 row = TILE * t.block_idx.y + t.thread_idx.y;
              gint64 ak = s * TILE + t.thread_idx.x, bk = s * TILE + t.thread_idx.y;
              gint64 cell = t.thread_idx.y * TILE + t.thread_idx.x;

              _ks_sim_sh_stf (sim, &t, &ta, cell, row < width && ak < width
                              ? _ks_sim_ldf (sim, &t, 0, row * width + ak) : 0.0f);
              _ks_sim_sh_stf (sim, &t, &tb, cell, bk < width && col < width
                              ? _ks_sim_ldf (sim, &t, 1, bk * width + col) : 0.0f);
            }
          FOR_THREADS (sim, b, t, k)
            for (gint64 j = 0; j < TILE; j++)
              sum[k] += _ks_sim_sh_ldf (sim, &t, &ta, t.thread_idx.y * TILE + j)
                        * _ks_sim_sh_ldf (sim, &t, &tb, j * TILE + t.thread_idx.x);
        }
      FOR_THREADS (sim, b, t, k)
        {
          gint64 col = TILE * t.block_idx.x + t.thread_idx.x;
          gint64 row = TILE * t.block_idx.y + t.thread_idx.y;

          if (row < width && col < width)
            _ks_sim_stf (sim, &t, 2, row * width + col, sum[k]);
        }
      _ks_sim_shared_clear (&ta);
      _ks_sim_shared_clear (&tb);
    }
}

/* The C twin's tiled product: += into c, no bounds checks. */
void
_ks_twin_matmul_tiled_book (KsSim *sim, guint first, guint n)
{
  gint64 width = _ks_sim_scalar (sim, 3);

  FOR_BLOCKS (b)
    {
      KsSimShared ta, tb;

      _ks_sim_shared_init (&ta, "tile_a", TILE * TILE);
      _ks_sim_shared_init (&tb, "tile_b", TILE * TILE);
      for (gint64 s = 0; s < width / TILE; s++)
        {
          FOR_THREADS (sim, b, t, k)
            {
              gint64 col = TILE * t.block_idx.x + t.thread_idx.x;
              gint64 row = TILE * t.block_idx.y + t.thread_idx.y;
              gint64 cell = t.thread_idx.y * TILE + t.thread_idx.x;

              _ks_sim_sh_stf (sim, &t, &ta, cell,
                              _ks_sim_ldf (sim, &t, 0, row * width + s * TILE + t.thread_idx.x));
              _ks_sim_sh_stf (sim, &t, &tb, cell,
                              _ks_sim_ldf (sim, &t, 1, (s * TILE + t.thread_idx.y) * width + col));
            }
          FOR_THREADS (sim, b, t, k)
            {
              gint64 col = TILE * t.block_idx.x + t.thread_idx.x;
              gint64 row = TILE * t.block_idx.y + t.thread_idx.y;

              for (gint64 j = 0; j < TILE; j++)
                {
                  float c = _ks_sim_ldf (sim, &t, 2, row * width + col);

                  c += _ks_sim_sh_ldf (sim, &t, &ta, t.thread_idx.y * TILE + j)
                       * _ks_sim_sh_ldf (sim, &t, &tb, j * TILE + t.thread_idx.x);
                  _ks_sim_stf (sim, &t, 2, row * width + col, c);
                }
            }
        }
      _ks_sim_shared_clear (&ta);
      _ks_sim_shared_clear (&tb);
    }
}

/* add (const float *d_a, const float *d_b, float *d_c, int n), grid-stride */
void
_ks_twin_elementwise_add (KsSim *sim, guint first, guint n)
{
  grid_stride_sum (sim, first, n, 2, 0, 1, 3, INFINITY);
}

/* dot_reduce (const unsigned *a, const unsigned *b, unsigned *out, unsigned *steps, int n) */
void
_ks_twin_reduce (KsSim *sim, guint first, guint n)
{
  gint64 count = _ks_sim_scalar (sim, 4);
  guint threads = _ks_sim_threads_per_block (sim);

  FOR_BLOCKS (b)
    {
      KsSimShared partial;
      gint64 level = 0;

      _ks_sim_shared_init (&partial, "partial", (guint) (_ks_sim_get_run (sim)->shared / 4));
      FOR_THREADS (sim, b, t, k)
        {
          guint32 v = (gint64) k < count ? (guint32) _ks_sim_ldi (sim, &t, 0, k)
                                             * (guint32) _ks_sim_ldi (sim, &t, 1, k) : 0u;

          _ks_sim_sh_sti (sim, &t, &partial, k, (gint32) v);
        }
      FOR_THREADS (sim, b, t, k)
        _ks_sim_sti (sim, &t, 3, k, _ks_sim_sh_ldi (sim, &t, &partial, k));
      for (guint half = threads / 2; half > 0; half /= 2)
        {
          FOR_THREADS (sim, b, t, k)
            if (k < half)
              _ks_sim_sh_sti (sim, &t, &partial, k,
                              (gint32) ((guint32) _ks_sim_sh_ldi (sim, &t, &partial, k)
                                        + (guint32) _ks_sim_sh_ldi (sim, &t, &partial, k + half)));
          level++;
          FOR_THREADS (sim, b, t, k)
            _ks_sim_sti (sim, &t, 3, level * threads + k, _ks_sim_sh_ldi (sim, &t, &partial, k));
        }
      FOR_THREADS (sim, b, t, k)
        if (k == 0)
          _ks_sim_sti (sim, &t, 2, 0, _ks_sim_sh_ldi (sim, &t, &partial, 0));
      _ks_sim_shared_clear (&partial);
    }
}

/* inclusive_scan (int *data, int *steps, int n) */
void
_ks_twin_scan (KsSim *sim, guint first, guint n)
{
  gint64 count = _ks_sim_scalar (sim, 2);
  guint threads = _ks_sim_threads_per_block (sim);

  FOR_BLOCKS (b)
    {
      KsSimShared buf;
      g_autofree gint32 *add = g_new0 (gint32, threads);
      gint64 level = 0;

      _ks_sim_shared_init (&buf, "buf", (guint) (_ks_sim_get_run (sim)->shared / 4));
      FOR_THREADS (sim, b, t, k)
        _ks_sim_sh_sti (sim, &t, &buf, k, (gint64) k < count ? _ks_sim_ldi (sim, &t, 0, k) : 0);
      for (guint offset = 1; offset < threads; offset *= 2)
        {
          FOR_THREADS (sim, b, t, k)
            add[k] = k >= offset ? _ks_sim_sh_ldi (sim, &t, &buf, k - offset) : 0;
          FOR_THREADS (sim, b, t, k)
            _ks_sim_sh_sti (sim, &t, &buf, k, _ks_sim_sh_ldi (sim, &t, &buf, k) + add[k]);
          FOR_THREADS (sim, b, t, k)
            _ks_sim_sti (sim, &t, 1, level * threads + k, _ks_sim_sh_ldi (sim, &t, &buf, k));
          level++;
        }
      FOR_THREADS (sim, b, t, k)
        if ((gint64) k < count)
          _ks_sim_sti (sim, &t, 0, k, _ks_sim_sh_ldi (sim, &t, &buf, k));
      _ks_sim_shared_clear (&buf);
    }
}

/* atomic_hist (int *bins, const int *pixels, int size), checked before the load */
void
_ks_twin_hist (KsSim *sim, guint first, guint n)
{
  gint64 size = _ks_sim_scalar (sim, 2);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 tid = global_tid (sim, &t);

        if (tid < size)
          _ks_sim_atomic_addi (sim, &t, 0, _ks_sim_ldi (sim, &t, 1, tid), 1);
      }
}

/* As in the book: the load before the test. */
void
_ks_twin_hist_book (KsSim *sim, guint first, guint n)
{
  gint64 size = _ks_sim_scalar (sim, 2);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 tid = global_tid (sim, &t);
        gint32 value = _ks_sim_ldi (sim, &t, 1, tid);

        if (tid < size)
          _ks_sim_atomic_addi (sim, &t, 0, value, 1);
      }
}

/* bins[item]++ without atomics. The wave's threads all load their bin, then
 * all store it plus one: within a wave, every increment of one bin but the
 * last is lost. */
void
_ks_twin_hist_race (KsSim *sim, guint first, guint n)
{
  gint64 size = _ks_sim_scalar (sim, 2);
  guint threads = _ks_sim_threads_per_block (sim);
  g_autofree gint32 *item = g_new (gint32, (gsize) n * threads);
  g_autofree gint32 *loaded = g_new (gint32, (gsize) n * threads);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gsize slot = (gsize) (b - first) * threads + k;
        gint64 tid = global_tid (sim, &t);

        item[slot] = _ks_sim_ldi (sim, &t, 1, tid);
        if (tid < size)
          loaded[slot] = _ks_sim_ldi (sim, &t, 0, item[slot]);
      }
  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gsize slot = (gsize) (b - first) * threads + k;

        if ((gint64) global_tid (sim, &t) < size)
          _ks_sim_sti (sim, &t, 0, item[slot], loaded[slot] + 1);
      }
}

/* shared_hist, fixed: strided clear and merge, grid-stride counting. */
void
_ks_twin_hist_shared (KsSim *sim, guint first, guint n)
{
  gint64 size = _ks_sim_scalar (sim, 2);
  guint threads = _ks_sim_threads_per_block (sim);
  gint64 stride = grid_threads (sim);

  FOR_BLOCKS (b)
    {
      KsSimShared cache;

      _ks_sim_shared_init (&cache, "cache", 256);
      FOR_THREADS (sim, b, t, k)
        for (gint64 i = k; i < 256; i += threads)
          _ks_sim_sh_sti (sim, &t, &cache, i, 0);
      FOR_THREADS (sim, b, t, k)
        for (gint64 i = global_tid (sim, &t); i < size; i += stride)
          _ks_sim_sh_atomic_addi (sim, &t, &cache, _ks_sim_ldi (sim, &t, 1, i), 1);
      FOR_THREADS (sim, b, t, k)
        for (gint64 i = k; i < 256; i += threads)
          _ks_sim_atomic_addi (sim, &t, 0, i, _ks_sim_sh_ldi (sim, &t, &cache, i));
      _ks_sim_shared_clear (&cache);
    }
}

/* shared_hist as in the book: cache[threadIdx.x] for 257 threads. */
void
_ks_twin_hist_shared_book (KsSim *sim, guint first, guint n)
{
  gint64 size = _ks_sim_scalar (sim, 2);
  gint64 stride = grid_threads (sim);

  FOR_BLOCKS (b)
    {
      KsSimShared cache;

      _ks_sim_shared_init (&cache, "cache", 256);
      FOR_THREADS (sim, b, t, k)
        _ks_sim_sh_sti (sim, &t, &cache, t.thread_idx.x, 0);
      FOR_THREADS (sim, b, t, k)
        for (gint64 i = global_tid (sim, &t); i < size; i += stride)
          _ks_sim_sh_atomic_addi (sim, &t, &cache, _ks_sim_ldi (sim, &t, 1, i), 1);
      FOR_THREADS (sim, b, t, k)
        _ks_sim_atomic_addi (sim, &t, 0, t.thread_idx.x,
                             _ks_sim_sh_ldi (sim, &t, &cache, t.thread_idx.x));
      _ks_sim_shared_clear (&cache);
    }
}

/* bgr2gray (float *result, const float *b, const float *g, const float *r, int n):
 * float multiplies and adds each rounded, as __fmul_rn and __fadd_rn are. */
void
_ks_twin_gray (KsSim *sim, guint first, guint n)
{
  gint64 count = _ks_sim_scalar (sim, 4);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        gint64 idx = global_tid (sim, &t);

        if (idx < count)
          {
            volatile float r = 0.299f * _ks_sim_ldf (sim, &t, 3, idx);
            volatile float g = 0.587f * _ks_sim_ldf (sim, &t, 2, idx);
            volatile float bl = 0.114f * _ks_sim_ldf (sim, &t, 1, idx);
            volatile float y = r + g;

            y = y + bl;
            _ks_sim_stf (sim, &t, 0, idx, floorf (y + 0.5f));
          }
      }
}

/* The book's: 256 wide, no check, double weights stored as float. */
void
_ks_twin_gray_book (KsSim *sim, guint first, guint n)
{
  const KsLessonRun *run = _ks_sim_get_run (sim);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      {
        guint idx = t.thread_idx.x + t.block_idx.x * (run->block.x * run->block.y);
        gint64 at = (gint64) (idx / 256) * 256 + idx % 256;
        double y = 0.299 * _ks_sim_ldf (sim, &t, 3, at) + 0.587 * _ks_sim_ldf (sim, &t, 2, at)
                   + 0.114 * _ks_sim_ldf (sim, &t, 1, at);

        _ks_sim_stf (sim, &t, 0, at, (float) y);
      }
}

/* add_num with the clamp (12-05), grid-stride. */
void
_ks_twin_add_clamp (KsSim *sim, guint first, guint n)
{
  grid_stride_sum (sim, first, n, 0, 1, 2, 3, 255.0f);
}

/* axpbz (float *z, const float *x, float a, float b, int n) */
void
_ks_twin_axpbz (KsSim *sim, guint first, guint n)
{
  float a = (float) _ks_sim_scalar_double (sim, 2);
  float bias = (float) _ks_sim_scalar_double (sim, 3);
  gint64 count = _ks_sim_scalar (sim, 4);
  gint64 stride = grid_threads (sim);

  FOR_BLOCKS (b)
    FOR_THREADS (sim, b, t, k)
      for (gint64 i = global_tid (sim, &t); i < count; i += stride)
        _ks_sim_stf (sim, &t, 0, i, a * _ks_sim_ldf (sim, &t, 1, i) + bias);
}
