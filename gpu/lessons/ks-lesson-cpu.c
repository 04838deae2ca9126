/* ks-lesson-cpu.c: the CPU model of a launch; the lessons' kernel twins
 * that it runs are in ks-lesson-twins.c.
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
