/* ks-lesson-cpu.c: the CPU model of a launch and the lessons' kernel twins.
 *
 * The model runs a grid block by block (or wave by wave, see
 * KS_LESSON_RACE_WAVE) and each block thread by thread, in statement order:
 * a twin runs one statement for every thread of its block before the next
 * one wherever the kernel has a __syncthreads or a race, which is what
 * lockstep execution does. Every global and shared access goes through a
 * checked accessor: one past the end is counted and described, and not
 * made (a read yields 0), so the model never touches memory it does not own.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ks-lesson-private.h"

struct _KsSim
{
  KsLessonRun *run;
  GPtrArray *arrays;         /* KsArray per arg (NULL for scalars): the model's device memory */
  gint32 **block_of;
  gint32 **thread_of;
  gboolean quiet;            /* timing: no faults, owners or printf recorded */
  guint threads_per_block;
  guint64 n_faults;
  GPtrArray *faults;
  guint64 global_atomics;
  guint64 shared_atomics;
  GString *printf_output;
};

/* ---- bookkeeping ---------------------------------------------------------- */

static void
fault (KsSim *sim, const KsSimThread *t, const char *what, const char *space, const char *name,
       gint64 i, gsize length)
{
  sim->n_faults++;
  if (sim->quiet || sim->faults->len >= KS_LESSON_MAX_LISTED_FAULTS)
    return;
  g_ptr_array_add (sim->faults,
                   g_strdup_printf ("thread (%u,%u,%u) of block (%u,%u,%u) %s %s %s[%" G_GINT64_FORMAT
                                    "], past its %" G_GSIZE_FORMAT " elements: refused%s",
                                    t->thread_idx.x, t->thread_idx.y, t->thread_idx.z,
                                    t->block_idx.x, t->block_idx.y, t->block_idx.z, what, space,
                                    name, i, length,
                                    g_str_equal (what, "read") ? " (the read yields 0)" : ""));
}

static guint8 *
global_at (KsSim *sim, const KsSimThread *t, guint arg, gint64 i, const char *what)
{
  const KsLessonArg *a = g_ptr_array_index (sim->run->args, arg);
  KsArray *array = g_ptr_array_index (sim->arrays, arg);
  gsize n;

  g_assert (a->is_array && array != NULL);
  /* The kernel reads 4-byte elements whatever the host's type (P5). */
  n = ks_array_get_bytes (array) / 4;
  if (i < 0 || (guint64) i >= n)
    {
      fault (sim, t, what, "global", a->name, i, n);
      return NULL;
    }
  if (!sim->quiet && g_str_equal (what, "read") == FALSE && sim->block_of[arg] != NULL)
    {
      sim->block_of[arg][i] = (gint32) t->block;
      sim->thread_of[arg][i] = (gint32) t->thread;
    }
  return array->data + (gsize) i * 4;
}

/* Floats travel as the bits of the 32-bit word that holds them: one checked
 * path for every element type the kernels read. */
static float
float_of (gint32 bits)
{
  float v;

  memcpy (&v, &bits, 4);
  return v;
}

static gint32
bits_of (float v)
{
  gint32 bits;

  memcpy (&bits, &v, 4);
  return bits;
}

gint32
_ks_sim_ldi (KsSim *sim, const KsSimThread *t, guint arg, gint64 i)
{
  guint8 *p = global_at (sim, t, arg, i, "read");
  gint32 v = 0;

  if (p != NULL)
    memcpy (&v, p, 4);
  return v;
}

void
_ks_sim_sti (KsSim *sim, const KsSimThread *t, guint arg, gint64 i, gint32 v)
{
  guint8 *p = global_at (sim, t, arg, i, "write");

  if (p != NULL)
    memcpy (p, &v, 4);
}

float
_ks_sim_ldf (KsSim *sim, const KsSimThread *t, guint arg, gint64 i)
{
  return float_of (_ks_sim_ldi (sim, t, arg, i));
}

void
_ks_sim_stf (KsSim *sim, const KsSimThread *t, guint arg, gint64 i, float v)
{
  _ks_sim_sti (sim, t, arg, i, bits_of (v));
}

gint32
_ks_sim_atomic_addi (KsSim *sim, const KsSimThread *t, guint arg, gint64 i, gint32 v)
{
  guint8 *p = global_at (sim, t, arg, i, "atomic add on");
  gint32 old = 0;

  sim->global_atomics++;
  if (p != NULL)
    {
      guint32 sum;

      memcpy (&old, p, 4);
      /* Wraps like the device's 32-bit add, without C's signed overflow. */
      sum = (guint32) old + (guint32) v;
      memcpy (p, &sum, 4);
    }
  return old;
}

void
_ks_sim_shared_init (KsSimShared *shared, const char *name, guint length)
{
  shared->name = name;
  shared->length = length;
  shared->words = g_new0 (gint32, length);
}

void
_ks_sim_shared_clear (KsSimShared *shared)
{
  g_clear_pointer (&shared->words, g_free);
}

static gint32 *
shared_at (KsSim *sim, const KsSimThread *t, KsSimShared *sh, gint64 i, const char *what)
{
  if (i < 0 || (guint64) i >= sh->length)
    {
      fault (sim, t, what, "shared", sh->name, i, sh->length);
      return NULL;
    }
  return &sh->words[i];
}

gint32
_ks_sim_sh_ldi (KsSim *sim, const KsSimThread *t, KsSimShared *sh, gint64 i)
{
  gint32 *p = shared_at (sim, t, sh, i, "read");

  return p != NULL ? *p : 0;
}

void
_ks_sim_sh_sti (KsSim *sim, const KsSimThread *t, KsSimShared *sh, gint64 i, gint32 v)
{
  gint32 *p = shared_at (sim, t, sh, i, "write");

  if (p != NULL)
    *p = v;
}

float
_ks_sim_sh_ldf (KsSim *sim, const KsSimThread *t, KsSimShared *sh, gint64 i)
{
  return float_of (_ks_sim_sh_ldi (sim, t, sh, i));
}

void
_ks_sim_sh_stf (KsSim *sim, const KsSimThread *t, KsSimShared *sh, gint64 i, float v)
{
  _ks_sim_sh_sti (sim, t, sh, i, bits_of (v));
}

gint32
_ks_sim_sh_atomic_addi (KsSim *sim, const KsSimThread *t, KsSimShared *sh, gint64 i, gint32 v)
{
  gint32 *p = shared_at (sim, t, sh, i, "atomic add on");
  gint32 old = 0;

  sim->shared_atomics++;
  if (p != NULL)
    {
      old = *p;
      *p = (gint32) ((guint32) old + (guint32) v);
    }
  return old;
}

void
_ks_sim_printf (KsSim *sim, const char *format, ...)
{
  va_list args;

  if (sim->quiet)
    return;
  va_start (args, format);
  g_string_append_vprintf (sim->printf_output, format, args);
  va_end (args);
}

guint
_ks_sim_threads_per_block (const KsSim *sim)
{
  return sim->threads_per_block;
}

const KsLessonRun *
_ks_sim_get_run (const KsSim *sim)
{
  return sim->run;
}

gint64
_ks_sim_scalar (const KsSim *sim, guint arg)
{
  const KsLessonArg *a = g_ptr_array_index (sim->run->args, arg);

  g_assert (!a->is_array);
  return (gint64) a->scalar;
}

double
_ks_sim_scalar_double (const KsSim *sim, guint arg)
{
  const KsLessonArg *a = g_ptr_array_index (sim->run->args, arg);

  g_assert (!a->is_array);
  return a->scalar;
}

void
_ks_sim_thread (const KsSim *sim, guint block, guint thread, KsSimThread *t)
{
  const KsDim3 *g = &sim->run->grid;
  const KsDim3 *b = &sim->run->block;

  t->block = block;
  t->thread = thread;
  t->block_idx.x = block % g->x;
  t->block_idx.y = (block / g->x) % g->y;
  t->block_idx.z = block / (g->x * g->y);
  t->thread_idx.x = thread % b->x;
  t->thread_idx.y = (thread / b->x) % b->y;
  t->thread_idx.z = thread / (b->x * b->y);
}

/* ---- running a grid ------------------------------------------------------- */

guint64
_ks_lesson_splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* The blocks in the order the model runs them: 0, 1, 2, … or, where the
 * lesson is about the order (11-03), a permutation drawn from the seed, so
 * that "any order" shows and is the same for the same seed. */
static guint *
block_order (const KsLessonRun *run, guint n_blocks)
{
  guint *order = g_new (guint, n_blocks);
  guint64 state = run->options.seed;

  for (guint i = 0; i < n_blocks; i++)
    order[i] = i;
  if (run->shuffle_blocks)
    for (guint i = n_blocks; i > 1; i--)
      {
        guint j = (guint) (_ks_lesson_splitmix64 (&state) % i);
        guint tmp = order[i - 1];

        order[i - 1] = order[j];
        order[j] = tmp;
      }
  return order;
}

/* Cancellation is looked at between waves. A wave is one block (or
 * KS_LESSON_RACE_WAVE small ones): the model runs 11-06's 977 blocks of 1024
 * threads in about 45 ms, so a cancelled run stops within a fraction of a
 * millisecond, and the look itself costs nothing measurable. */
static gboolean
sim_execute (KsSim *sim, GError **error)
{
  KsLessonRun *run = sim->run;
  GCancellable *cancellable = run->options.cancellable;
  guint n_blocks = run->grid.x * run->grid.y * run->grid.z;
  g_autofree guint *order = block_order (run, n_blocks);
  /* Twins see consecutive block numbers; a shuffled grid runs its blocks
   * one at a time, each under its own number. */
  guint wave = run->shuffle_blocks ? 1 : MAX (run->wave, 1);

  sim->threads_per_block = run->block.x * run->block.y * run->block.z;
  for (guint first = 0; first < n_blocks; first += wave)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (run->shuffle_blocks)
        run->twin (sim, order[first], 1);
      else
        run->twin (sim, first, MIN (wave, n_blocks - first));
    }
  return TRUE;
}

gboolean
_ks_lesson_sim_run_quiet (KsLessonRun *run, GPtrArray *arrays, GError **error)
{
  KsSim sim = { 0 };
  g_autofree gint32 **none = g_new0 (gint32 *, run->args->len);

  sim.run = run;
  sim.arrays = arrays;
  sim.block_of = none;
  sim.thread_of = none;
  sim.quiet = TRUE;
  sim.faults = NULL;
  return sim_execute (&sim, error);
}

gboolean
_ks_lesson_sim_run (KsLessonRun *run, GError **error)
{
  KsSim sim = { 0 };
  KsLessonReport *report = run->report;

  sim.run = run;
  sim.arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_array_free);
  run->block_of = g_new0 (gint32 *, run->args->len);
  run->thread_of = g_new0 (gint32 *, run->args->len);
  for (guint i = 0; i < run->args->len; i++)
    {
      const KsLessonArg *a = g_ptr_array_index (run->args, i);
      KsArray *copy = a->is_array ? ks_array_copy (a->array) : NULL;

      g_ptr_array_add (sim.arrays, copy);
      if (copy != NULL && a->direction != KS_ARRAY_IN && copy->length <= KS_LESSON_OWNER_LIMIT)
        {
          gsize words = ks_array_get_bytes (copy) / 4;

          run->block_of[i] = g_new (gint32, words);
          run->thread_of[i] = g_new (gint32, words);
          for (gsize k = 0; k < words; k++)
            run->block_of[i][k] = run->thread_of[i][k] = -1;
        }
    }
  sim.block_of = run->block_of;
  sim.thread_of = run->thread_of;
  sim.faults = report->faults;
  sim.printf_output = g_string_new (NULL);
  if (!sim_execute (&sim, error))
    {
      g_ptr_array_unref (sim.arrays);
      g_string_free (sim.printf_output, TRUE);
      return FALSE;
    }

  report->n_faults = sim.n_faults;
  report->atomics.global = sim.global_atomics;
  report->atomics.shared = sim.shared_atomics;
  g_free (report->printf_output);
  report->printf_output = g_string_free (sim.printf_output, FALSE);
  run->results = sim.arrays;
  return TRUE;
}

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
