/* ks-emu-launch.c: a launch and its run: the shape and the parameters
 * checked, the launch's memory laid out (the buffers, 256-byte aligned with
 * unmapped space between them, and a copy of the module's variables), the
 * blocks run on worker threads (each takes the next block, in index order
 * or the launch's seeded order), and what the blocks report merged in the
 * order they started, so that a run's findings and output do not depend on
 * how many workers ran it.
 *
 * Inside a block the warps take turns of KS_EMU_WARP_SLICE instructions,
 * lowest warp first; with several resident blocks a worker interleaves
 * them an instruction at a time. A barrier lets its warps go when every
 * warp that has not exited waits at it (or, with a thread count, when that
 * many have arrived).
 *
 * One piece, over 800 lines, because it is one lifecycle: the run's memory
 * layout, the worker's block slots and the run loop that uses both are read
 * together; the pieces apart from it (memory checks, findings, warps'
 * instructions) are files of their own. */
#include "config.h"

#include <gio/gio.h>

#include "ks-error.h"
#include "ks-emu-private.h"

typedef struct
{
  guint8 *host;
  gsize size;
  char *name;
  guint64 base;
  gint32 *block_of, *thread_of;
  gsize owner_elem;
} Buffer;

struct _KsEmuLaunch
{
  const KsEmuModule *module;
  char *entry;
  KsDim3 grid, block;
  guint64 dynamic_shared;
  GArray *buffers;          /* Buffer */
  guint64 next_base;
  GByteArray *param_bytes;
  GArray *param_sizes;      /* gsize */
  guint time_limit_ms;
  guint n_threads;
  gboolean shared_checks;
  guint64 order_seed;
  guint resident;
  KsEmuGlobals *globals;    /* borrowed, or NULL: a copy of the module's initial values */
};

struct _KsEmuGlobals
{
  const KsEmuModule *module;
  guint8 *data;             /* the module's .global/.const image */
};

/* ---- the launch ------------------------------------------------------------- */

KsEmuLaunch *
ks_emu_launch_new (const KsEmuModule *module, const char *entry, KsDim3 grid, KsDim3 block,
                   guint64 dynamic_shared)
{
  KsEmuLaunch *launch;

  g_return_val_if_fail (module != NULL, NULL);
  g_return_val_if_fail (entry != NULL, NULL);

  launch = g_new0 (KsEmuLaunch, 1);
  launch->module = module;
  launch->entry = g_strdup (entry);
  launch->grid = grid;
  launch->block = block;
  launch->dynamic_shared = dynamic_shared;
  launch->buffers = g_array_new (FALSE, FALSE, sizeof (Buffer));
  launch->next_base = KS_EMU_GLOBAL_BASE;
  launch->param_bytes = g_byte_array_new ();
  launch->param_sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  launch->time_limit_ms = 2000;
  launch->shared_checks = TRUE;
  launch->resident = 1;
  return launch;
}

void
ks_emu_launch_free (KsEmuLaunch *launch)
{
  if (launch == NULL)
    return;
  for (guint i = 0; i < launch->buffers->len; i++)
    g_free (g_array_index (launch->buffers, Buffer, i).name);
  g_array_unref (launch->buffers);
  g_byte_array_unref (launch->param_bytes);
  g_array_unref (launch->param_sizes);
  g_free (launch->entry);
  g_free (launch);
}

guint64
ks_emu_launch_add_buffer (KsEmuLaunch *launch, gpointer data, gsize size, const char *name)
{
  Buffer buffer;

  g_return_val_if_fail (launch != NULL, 0);
  g_return_val_if_fail (data != NULL || size == 0, 0);

  memset (&buffer, 0, sizeof buffer);
  buffer.host = data;
  buffer.size = size;
  buffer.name = g_strdup (name);
  buffer.base = launch->next_base;
  g_array_append_val (launch->buffers, buffer);
  launch->next_base = ((buffer.base + size + 255) & ~G_GUINT64_CONSTANT (255)) + KS_EMU_BUFFER_GAP;
  return buffer.base;
}

void
ks_emu_launch_track_writers (KsEmuLaunch *launch, guint64 address, gsize elem_size,
                             gint32 *block_of, gint32 *thread_of)
{
  g_return_if_fail (launch != NULL);
  g_return_if_fail (elem_size > 0 && block_of != NULL && thread_of != NULL);

  for (guint i = 0; i < launch->buffers->len; i++)
    {
      Buffer *buffer = &g_array_index (launch->buffers, Buffer, i);

      if (buffer->base == address)
        {
          buffer->block_of = block_of;
          buffer->thread_of = thread_of;
          buffer->owner_elem = elem_size;
          return;
        }
    }
  g_return_if_reached ();
}

/* ---- the module's variables ------------------------------------------------ */

KsEmuGlobals *
ks_emu_globals_new (const KsEmuModule *module)
{
  KsEmuGlobals *globals;

  g_return_val_if_fail (module != NULL, NULL);

  globals = g_new0 (KsEmuGlobals, 1);
  globals->module = module;
  globals->data = g_memdup2 (module->global_image, MAX (module->global_size, 1));
  return globals;
}

void
ks_emu_globals_free (KsEmuGlobals *globals)
{
  if (globals == NULL)
    return;
  g_free (globals->data);
  g_free (globals);
}

guint8 *
ks_emu_globals_lookup (KsEmuGlobals *globals, const char *name, gsize *size)
{
  const KsEmuModule *m;

  g_return_val_if_fail (globals != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  m = globals->module;
  for (guint i = 0; i < m->vars->len; i++)
    {
      const KsEmuVar *var = g_ptr_array_index (m->vars, i);

      if (var->kind == KS_EMU_VAR_GLOBAL && var->func < 0 && g_strcmp0 (var->name, name) == 0)
        {
          if (size != NULL)
            *size = var->size;
          return globals->data + (var->address - KS_EMU_MODULE_BASE);
        }
    }
  return NULL;
}

void
ks_emu_launch_set_globals (KsEmuLaunch *launch, KsEmuGlobals *globals)
{
  g_return_if_fail (launch != NULL);
  g_return_if_fail (globals == NULL || globals->module == launch->module);
  launch->globals = globals;
}

void
ks_emu_launch_set_block_order (KsEmuLaunch *launch, guint64 seed)
{
  g_return_if_fail (launch != NULL);
  launch->order_seed = seed;
}

void
ks_emu_launch_set_resident_blocks (KsEmuLaunch *launch, guint n_blocks)
{
  g_return_if_fail (launch != NULL);
  launch->resident = CLAMP (n_blocks, 1, KS_EMU_MAX_RESIDENT_BLOCKS);
}

void
ks_emu_launch_add_param (KsEmuLaunch *launch, gconstpointer data, gsize size)
{
  g_return_if_fail (launch != NULL);
  g_return_if_fail (data != NULL || size == 0);

  g_byte_array_append (launch->param_bytes, data, (guint) size);
  g_array_append_val (launch->param_sizes, size);
}

void
ks_emu_launch_set_time_limit (KsEmuLaunch *launch, guint ms)
{
  g_return_if_fail (launch != NULL);
  launch->time_limit_ms = ms;
}

void
ks_emu_launch_set_threads (KsEmuLaunch *launch, guint n_threads)
{
  g_return_if_fail (launch != NULL);
  launch->n_threads = n_threads;
}

void
ks_emu_launch_set_shared_checks (KsEmuLaunch *launch, gboolean on)
{
  g_return_if_fail (launch != NULL);
  launch->shared_checks = on;
}

void
ks_emu_result_clear (KsEmuResult *result)
{
  g_clear_pointer (&result->findings, g_ptr_array_unref);
  g_clear_pointer (&result->printf_output, g_free);
  memset (result, 0, sizeof *result);
}

/* ---- checking the launch ---------------------------------------------------- */

static gboolean
check_shape (const KsEmuLaunch *launch, const KsEmuFunc *f, GError **error)
{
  KsDim3 g = launch->grid, b = launch->block;
  guint64 threads = (guint64) b.x * b.y * b.z;

  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "A launch of %u×%u×%u blocks of %u×%u×%u threads has nothing to run: no "
                   "dimension may be 0", g.x, g.y, g.z, b.x, b.y, b.z);
      return FALSE;
    }
  if (threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "A block of %u×%u×%u threads is too large: at most 1024 threads, "
                   "1024×1024×64", b.x, b.y, b.z);
      return FALSE;
    }
  if (g.x > G_MAXINT32 || g.y > 65535 || g.z > 65535)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "A grid of %u×%u×%u blocks is too large: at most 2147483647×65535×65535",
                   g.x, g.y, g.z);
      return FALSE;
    }
  if (f->reqntid[0] != 0
      && (b.x != f->reqntid[0] || b.y != MAX (f->reqntid[1], 1u) || b.z != MAX (f->reqntid[2], 1u)))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "The kernel “%s” requires blocks of %u×%u×%u threads (.reqntid), not "
                   "%u×%u×%u", f->name, f->reqntid[0], MAX (f->reqntid[1], 1u),
                   MAX (f->reqntid[2], 1u), b.x, b.y, b.z);
      return FALSE;
    }
  if (f->maxntid[0] != 0
      && threads > (guint64) f->maxntid[0] * MAX (f->maxntid[1], 1u) * MAX (f->maxntid[2], 1u))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "The kernel “%s” allows at most %u threads a block (__launch_bounds__), "
                   "not %" G_GUINT64_FORMAT, f->name,
                   f->maxntid[0] * MAX (f->maxntid[1], 1u) * MAX (f->maxntid[2], 1u), threads);
      return FALSE;
    }
  /* sm_90: 227 KiB of shared memory a block, with the opt-in. */
  if (f->dynamic_offset + launch->dynamic_shared > 227 * 1024)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "The kernel “%s” would have %" G_GUINT64_FORMAT " bytes of shared memory a "
                   "block (%" G_GUINT64_FORMAT " static and %" G_GUINT64_FORMAT " dynamic); "
                   "a block may have at most 232448", f->name,
                   f->dynamic_offset + launch->dynamic_shared, f->shared_static,
                   launch->dynamic_shared);
      return FALSE;
    }
  return TRUE;
}

static gboolean
layout_params (const KsEmuLaunch *launch, const KsEmuFunc *f, KsEmuRun *run, GError **error)
{
  gsize from = 0;

  if (launch->param_sizes->len != f->params->len)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                   "The kernel “%s” has %u parameters; the launch gives %u", f->name,
                   f->params->len, launch->param_sizes->len);
      return FALSE;
    }
  run->params_size = f->param_size;
  run->params = g_malloc0 (MAX (f->param_size, 1u));
  for (guint i = 0; i < f->params->len; i++)
    {
      const KsEmuVar *var = g_ptr_array_index (f->params, i);
      gsize size = g_array_index (launch->param_sizes, gsize, i);

      if (size != var->size)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                       "Parameter %u of the kernel “%s” is %" G_GUINT64_FORMAT " bytes; the "
                       "launch gives %" G_GSIZE_FORMAT, i + 1, f->name, var->size, size);
          return FALSE;
        }
      memcpy (run->params + var->address, launch->param_bytes->data + from, size);
      from += size;
    }
  return TRUE;
}

static gint
compare_allocs (gconstpointer a, gconstpointer b)
{
  guint64 x = ((const KsEmuAlloc *) a)->base, y = ((const KsEmuAlloc *) b)->base;

  return x < y ? -1 : x > y;
}

static void
layout_memory (const KsEmuLaunch *launch, KsEmuRun *run)
{
  const KsEmuModule *m = launch->module;
  GArray *allocs = g_array_new (FALSE, FALSE, sizeof (KsEmuAlloc));

  run->module_data = launch->globals != NULL ? launch->globals->data
                                             : g_memdup2 (m->global_image,
                                                          MAX (m->global_size, 1));
  for (guint i = 0; i < launch->buffers->len; i++)
    {
      const Buffer *buffer = &g_array_index (launch->buffers, Buffer, i);
      KsEmuAlloc a = { buffer->base, buffer->size, buffer->host, buffer->name, FALSE, FALSE,
                       buffer->block_of, buffer->thread_of, buffer->owner_elem };

      if (buffer->size > 0)
        g_array_append_val (allocs, a);
    }
  for (guint i = 0; i < m->vars->len; i++)
    {
      const KsEmuVar *var = g_ptr_array_index (m->vars, i);
      KsEmuAlloc a;

      if (var->kind != KS_EMU_VAR_GLOBAL || var->size == 0)
        continue;
      a.base = var->address;
      a.size = var->size;
      a.host = run->module_data + (var->address - KS_EMU_MODULE_BASE);
      a.name = var->name;
      a.is_variable = TRUE;
      a.read_only = var->space == KS_EMU_SPACE_CONST;
      a.block_of = a.thread_of = NULL;
      a.owner_elem = 0;
      g_array_append_val (allocs, a);
    }
  g_array_sort (allocs, compare_allocs);
  run->n_allocs = allocs->len;
  run->allocs = (KsEmuAlloc *) (void *) g_array_free (allocs, FALSE);
}

/* A permutation of the blocks drawn from seed (Fisher–Yates on splitmix64). */
static guint64 *
block_order (guint64 n_blocks, guint64 seed)
{
  guint64 *order = g_new (guint64, MAX (n_blocks, 1));
  guint64 state = seed;

  for (guint64 i = 0; i < n_blocks; i++)
    order[i] = i;
  for (guint64 i = n_blocks; i > 1; i--)
    {
      guint64 z = (state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
      guint64 j, tmp;

      z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
      z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
      j = (z ^ (z >> 31)) % i;
      tmp = order[i - 1];
      order[i - 1] = order[j];
      order[j] = tmp;
    }
  return order;
}

/* ---- workers ---------------------------------------------------------------- */

typedef struct
{
  KsEmuRun *run;
  KsEmuCollector *collector;
  KsEmuBlock *blocks;       /* run->resident slots */
  guint64 since_check;
} Worker;

/* One slot for a block: its warps, registers, shared and local memory. */
static void
block_init (Worker *wk, KsEmuBlock *b)
{
  KsEmuRun *run = wk->run;
  const KsEmuModule *m = run->module;
  const KsEmuFunc *entry = run->entry;
  guint threads = run->block_dim.x * run->block_dim.y * run->block_dim.z;

  b->run = run;
  b->module = m;
  b->n_threads = threads;
  b->n_warps = (threads + KS_EMU_WARP_SIZE - 1) / KS_EMU_WARP_SIZE;
  b->warps = g_new0 (KsEmuWarp, b->n_warps);
  b->shared_size = run->shared_size;
  b->shared = g_malloc0 (MAX (run->shared_size, 1));
  if (run->shared_checks && run->shared_size > 0)
    b->shadow = g_new0 (KsEmuShadow, run->shared_size);
  for (guint i = 0; i < b->n_warps; i++)
    {
      KsEmuWarp *w = &b->warps[i];
      guint64 *regs;

      w->block = b;
      w->code = m->code;
      w->index = i;
      w->regs = regs = g_new0 (guint64, (gsize) m->n_slots * KS_EMU_WARP_SIZE);
      w->preds = g_new0 (guint32, MAX (m->n_preds, 1));
      w->fparams = g_malloc0 (MAX ((gsize) m->fparam_size * KS_EMU_WARP_SIZE, 1));
      for (guint l = 0; l < KS_EMU_WARP_SIZE; l++)
        {
          guint tid = i * KS_EMU_WARP_SIZE + l;
          KsDim3 t = _ks_emu_thread_of (b, tid);

          if (tid < threads)
            w->alive |= 1u << l;
          if (entry->stack_bytes > 0 && tid < threads)
            {
              w->local[l] = g_malloc0 (entry->stack_bytes);
              w->local_size[l] = entry->stack_bytes;
            }
#define SET(sr, v) regs[(sr) * KS_EMU_WARP_SIZE + l] = (v)
          SET (KS_EMU_SR_TID_X, t.x);
          SET (KS_EMU_SR_TID_Y, t.y);
          SET (KS_EMU_SR_TID_Z, t.z);
          SET (KS_EMU_SR_NTID_X, run->block_dim.x);
          SET (KS_EMU_SR_NTID_Y, run->block_dim.y);
          SET (KS_EMU_SR_NTID_Z, run->block_dim.z);
          SET (KS_EMU_SR_NCTAID_X, run->grid.x);
          SET (KS_EMU_SR_NCTAID_Y, run->grid.y);
          SET (KS_EMU_SR_NCTAID_Z, run->grid.z);
          SET (KS_EMU_SR_LANEID, l);
          SET (KS_EMU_SR_WARPID, i);
          SET (KS_EMU_SR_NWARPID, 64); /* warp slots of an sm_90 multiprocessor */
          SET (KS_EMU_SR_LANEMASK_EQ, 1u << l);
          SET (KS_EMU_SR_LANEMASK_LT, (1u << l) - 1);
          SET (KS_EMU_SR_LANEMASK_LE, (guint32) ((G_GUINT64_CONSTANT (2) << l) - 1));
          SET (KS_EMU_SR_LANEMASK_GT, (guint32) ~((G_GUINT64_CONSTANT (2) << l) - 1));
          SET (KS_EMU_SR_LANEMASK_GE, (guint32) ~((1u << l) - 1));
          SET (KS_EMU_SR_SMID, 0);
          SET (KS_EMU_SR_NSMID, 1);
          SET (KS_EMU_SR_GRIDID, 1);
          SET (KS_EMU_SR_DYNAMIC_SMEM, run->dynamic_shared);
          SET (KS_EMU_SR_TOTAL_SMEM, run->shared_size);
          SET (KS_EMU_SR_ZERO, 0);
          SET (KS_EMU_SR_ONE, 1);
#undef SET
        }
      for (guint c = 0; c < m->consts->len; c++)
        {
          const KsEmuSlotValue *sv = &g_array_index (m->consts, KsEmuSlotValue, c);

          for (guint l = 0; l < KS_EMU_WARP_SIZE; l++)
            regs[sv->slot * KS_EMU_WARP_SIZE + l] = sv->value;
        }
      for (guint c = 0; c < entry->shared_slots->len; c++)
        {
          const KsEmuSlotValue *sv = &g_array_index (entry->shared_slots, KsEmuSlotValue, c);

          for (guint l = 0; l < KS_EMU_WARP_SIZE; l++)
            regs[sv->slot * KS_EMU_WARP_SIZE + l] = sv->value;
        }
    }
}

static void
block_clear (KsEmuBlock *b)
{
  for (guint i = 0; i < b->n_warps; i++)
    {
      KsEmuWarp *w = &b->warps[i];

      g_free (w->regs);
      g_free (w->preds);
      g_free (w->fparams);
      for (guint l = 0; l < KS_EMU_WARP_SIZE; l++)
        {
          g_free (w->local[l]);
          g_clear_pointer (&w->stacks[l].frames, g_array_unref);
          g_clear_pointer (&w->stacks[l].saved, g_byte_array_unref);
        }
    }
  g_free (b->warps);
  g_free (b->shared);
  g_free (b->shadow);
}

static void
worker_init (Worker *wk)
{
  wk->blocks = g_new0 (KsEmuBlock, wk->run->resident);
  for (guint i = 0; i < wk->run->resident; i++)
    block_init (wk, &wk->blocks[i]);
}

static void
worker_clear (Worker *wk)
{
  for (guint i = 0; i < wk->run->resident; i++)
    block_clear (&wk->blocks[i]);
  g_free (wk->blocks);
}

/* Whether the run goes on: the clock, the cancellable, the others' faults. */
static gboolean
keep_going (Worker *wk)
{
  KsEmuRun *run = wk->run;

  wk->since_check = 0;
  if (g_atomic_int_get (&run->stop) != KS_EMU_STOP_NONE)
    return FALSE;
  if (run->deadline != 0 && g_get_monotonic_time () > run->deadline)
    g_atomic_int_compare_and_exchange (&run->stop, KS_EMU_STOP_NONE, KS_EMU_STOP_TIMEOUT);
  else if (run->cancellable != NULL && g_cancellable_is_cancelled (run->cancellable))
    g_atomic_int_compare_and_exchange (&run->stop, KS_EMU_STOP_NONE, KS_EMU_STOP_CANCELLED);
  return g_atomic_int_get (&run->stop) == KS_EMU_STOP_NONE;
}

/* Lets the warps of each barrier that is complete go on; whether any did. */
static gboolean
release_barriers (KsEmuBlock *b)
{
  guint live = 0;
  gboolean released = FALSE;

  for (guint i = 0; i < b->n_warps; i++)
    live += b->warps[i].state != KS_EMU_WARP_EXITED;
  for (guint id = 0; id < G_N_ELEMENTS (b->bar_arrived); id++)
    {
      guint32 expected = b->bar_expected[id] != 0 ? b->bar_expected[id]
                                                  : live * KS_EMU_WARP_SIZE;

      if (b->bar_arrived[id] == 0 || b->bar_arrived[id] < expected)
        continue;
      for (guint i = 0; i < b->n_warps; i++)
        {
          KsEmuWarp *w = &b->warps[i];

          if (w->state == KS_EMU_WARP_BARRIER && _ks_emu_bar_id (w) == id)
            _ks_emu_bar_release (w, id);
        }
      b->bar_arrived[id] = 0;
      b->bar_expected[id] = 0;
      /* A new interval between barriers: accesses on either side no longer race. */
      b->interval = ++b->next_interval;
      released = TRUE;
    }
  return released;
}

static void
report_deadlock (KsEmuBlock *b)
{
  for (guint i = 0; i < b->n_warps; i++)
    {
      KsEmuWarp *w = &b->warps[i];

      if (w->state == KS_EMU_WARP_BARRIER)
        {
          KsEmuFinding *f = _ks_emu_finding_new (w, (guint) __builtin_ctz (w->bar_mask),
                                                 w->bar_insn, KS_EMU_FINDING_DIVERGENT_BARRIER);
          g_autofree char *where = _ks_emu_finding_where (b->module, f);

          f->message = g_strdup_printf ("Barrier error detected: barrier %u never completes "
                                        "(it waits for more threads than arrive)\n%s",
                                        _ks_emu_bar_id (w), where);
          _ks_emu_block_fault (b, f);
          return;
        }
    }
}

/* Puts block `index` in the slot b, its warps at the entry. */
static void
block_start (Worker *wk, KsEmuBlock *b, guint64 seq)
{
  guint64 index = wk->run->block_order != NULL ? wk->run->block_order[seq] : seq;
  KsEmuRun *run = wk->run;
  const KsEmuModule *m = run->module;
  gboolean ctaid = (m->specials_used & (7u << KS_EMU_SR_CTAID_X)) != 0;

  b->id.x = (guint32) (index % run->grid.x);
  b->id.y = (guint32) ((index / run->grid.x) % run->grid.y);
  b->id.z = (guint32) (index / ((guint64) run->grid.x * run->grid.y));
  b->linear = index;
  b->seq = seq;
  b->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_emu_finding_free);
  b->finding_keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  b->n_findings = 0;
  b->printf_out = NULL;
  b->printf_lines = 0;
  b->lane_insns = 0;
  b->global_atomics = b->shared_atomics = 0;
  b->stop = FALSE;
  b->first_interval = b->interval = ++b->next_interval;
  memset (b->bar_arrived, 0, sizeof b->bar_arrived);
  memset (b->bar_expected, 0, sizeof b->bar_expected);
  for (guint i = 0; i < b->n_warps; i++)
    {
      KsEmuWarp *w = &b->warps[i];

      w->exited = 0;
      w->state = w->alive != 0 ? KS_EMU_WARP_RUNNING : KS_EMU_WARP_EXITED;
      w->pc = run->entry->start;
      w->mask = w->alive;
      w->other_min = G_MAXUINT32;
      w->wsync = 0;
      w->bar_insn = NULL;
      w->lane_insns = 0;
      w->insns = 0;
      for (guint l = 0; l < KS_EMU_WARP_SIZE; l++)
        {
          if (ctaid)
            {
              w->regs[KS_EMU_SR_CTAID_X * KS_EMU_WARP_SIZE + l] = b->id.x;
              w->regs[KS_EMU_SR_CTAID_Y * KS_EMU_WARP_SIZE + l] = b->id.y;
              w->regs[KS_EMU_SR_CTAID_Z * KS_EMU_WARP_SIZE + l] = b->id.z;
            }
          w->regs[KS_EMU_SR_FRAME * KS_EMU_WARP_SIZE + l] = 0;
          if (w->stacks[l].frames != NULL)
            {
              g_array_set_size (w->stacks[l].frames, 0);
              g_byte_array_set_size (w->stacks[l].saved, 0);
            }
        }
    }
}

/* Each running warp of the block for up to `slice` instructions, then the
 * barriers; whether the block has more to run. */
static gboolean
block_step (Worker *wk, KsEmuBlock *b, guint slice)
{
  gboolean ran = FALSE, all_exited = TRUE;

  for (guint i = 0; i < b->n_warps && !b->stop; i++)
    {
      KsEmuWarp *w = &b->warps[i];
      guint64 before = w->insns;

      if (w->state == KS_EMU_WARP_RUNNING)
        {
          _ks_emu_warp_run (w, slice);
          ran = TRUE;
          wk->since_check += w->insns - before;
        }
      all_exited &= w->state == KS_EMU_WARP_EXITED;
    }
  if (b->stop || all_exited)
    return FALSE;
  if (!release_barriers (b) && !ran)
    {
      report_deadlock (b);
      return FALSE;
    }
  return TRUE;
}

/* The block's counts and findings to the collector. */
static void
block_finish (Worker *wk, KsEmuBlock *b)
{
  for (guint i = 0; i < b->n_warps; i++)
    b->lane_insns += b->warps[i].lane_insns;
  _ks_emu_collector_deliver (wk->collector, b);
}

/* The next block's place in the start order, or FALSE when none is left. */
static gboolean
next_block (KsEmuRun *run, guint64 *seq)
{
  *seq = __atomic_fetch_add (&run->next_block, 1, __ATOMIC_RELAXED);
  return *seq < run->n_blocks;
}

static gpointer
worker_main (gpointer data)
{
  Worker *wk = data;
  KsEmuRun *run = wk->run;
  guint64 index;

  worker_init (wk);
  if (run->resident == 1)
    {
      /* Each block to its end, in turns of KS_EMU_WARP_SLICE instructions
       * a warp. */
      KsEmuBlock *b = &wk->blocks[0];

      while (keep_going (wk) && next_block (run, &index))
        {
          block_start (wk, b, index);
          while (block_step (wk, b, KS_EMU_WARP_SLICE))
            if (wk->since_check >= KS_EMU_CHECK_INTERVAL && !keep_going (wk))
              break;
          block_finish (wk, b);
        }
    }
  else
    {
      /* Several blocks at once, their warps taking turns an instruction at
       * a time, as a multiprocessor interleaves its resident blocks; a slot
       * that finishes takes the next block. */
      g_autofree gboolean *busy = g_new0 (gboolean, run->resident);
      guint n_busy = 0;

      for (guint i = 0; i < run->resident && next_block (run, &index); i++)
        {
          block_start (wk, &wk->blocks[i], index);
          busy[i] = TRUE;
          n_busy++;
        }
      while (n_busy > 0
             && (wk->since_check < KS_EMU_CHECK_INTERVAL || keep_going (wk)))
        for (guint i = 0; i < run->resident; i++)
          {
            if (!busy[i] || block_step (wk, &wk->blocks[i], 1))
              continue;
            block_finish (wk, &wk->blocks[i]);
            busy[i] = FALSE;
            n_busy--;
            if (next_block (run, &index))
              {
                block_start (wk, &wk->blocks[i], index);
                busy[i] = TRUE;
                n_busy++;
              }
          }
      /* Stopped early: what the blocks under way found still counts. */
      for (guint i = 0; i < run->resident; i++)
        if (busy[i])
          block_finish (wk, &wk->blocks[i]);
    }
  worker_clear (wk);
  return NULL;
}

/* ---- the run ---------------------------------------------------------------- */

static void
add_time_limit_finding (KsEmuResult *result, const KsEmuRun *run)
{
  KsEmuFinding *f = g_new0 (KsEmuFinding, 1);

  f->kind = KS_EMU_FINDING_TIME_LIMIT;
  f->function = g_strdup (run->entry->name);
  f->message = g_strdup_printf ("The kernel ran past its time limit of %u ms and was stopped "
                                "(an endless loop, or a grid too large for the emulator)",
                                run->time_limit_ms);
  result->n_findings++;
  if (result->findings->len < KS_EMU_MAX_FINDINGS)
    g_ptr_array_add (result->findings, f);
  else
    ks_emu_finding_free (f);
}

gboolean
ks_emu_launch_run (KsEmuLaunch *launch, GCancellable *cancellable, KsEmuResult *result,
                   GError **error)
{
  const KsEmuModule *m;
  const KsEmuFunc *entry;
  KsEmuRun run = { 0 };
  KsEmuCollector *collector;
  g_autofree char *fault = NULL;
  g_autofree Worker *workers = NULL;
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_workers;
  gint stop;
  guint32 entry_index;

  g_return_val_if_fail (launch != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (result, 0, sizeof *result);
  m = launch->module;
  entry = _ks_emu_module_find (m, launch->entry, &entry_index);
  if (entry == NULL || !entry->is_entry || !entry->defined)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The module has no kernel “%s”", launch->entry);
      g_free (_ks_emu_collector_finish (_ks_emu_collector_new (result)));
      return FALSE;
    }
  if (!check_shape (launch, entry, error) || !layout_params (launch, entry, &run, error))
    {
      g_free (run.params);
      g_free (_ks_emu_collector_finish (_ks_emu_collector_new (result)));
      return FALSE;
    }

  run.module = m;
  run.entry = entry;
  run.entry_index = entry_index;
  run.grid = launch->grid;
  run.block_dim = launch->block;
  run.n_blocks = (guint64) launch->grid.x * launch->grid.y * launch->grid.z;
  run.dynamic_shared = launch->dynamic_shared;
  run.shared_size = entry->dynamic_offset + launch->dynamic_shared;
  if (launch->dynamic_shared == 0)
    run.shared_size = entry->shared_static;
  run.shared_checks = launch->shared_checks;
  run.resident = (guint) MIN ((guint64) launch->resident, MAX (run.n_blocks, 1));
  run.time_limit_ms = launch->time_limit_ms;
  run.cancellable = cancellable;
  run.start_us = g_get_monotonic_time ();
  run.deadline = launch->time_limit_ms != 0 ? run.start_us + (gint64) launch->time_limit_ms * 1000
                                            : 0;
  layout_memory (launch, &run);
  if (launch->order_seed != 0)
    run.block_order = block_order (run.n_blocks, launch->order_seed);

  collector = _ks_emu_collector_new (result);

  n_workers = launch->n_threads != 0 ? launch->n_threads : g_get_num_processors ();
  n_workers = (guint) MAX (MIN ((guint64) n_workers, run.n_blocks), 1);
  workers = g_new0 (Worker, n_workers);
  for (guint i = 0; i < n_workers; i++)
    {
      workers[i].run = &run;
      workers[i].collector = collector;
    }
  for (guint i = 1; i < n_workers; i++)
    g_ptr_array_add (threads, g_thread_new ("ks-emu-worker", worker_main, &workers[i]));
  worker_main (&workers[0]);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));

  fault = _ks_emu_collector_finish (collector);
  result->ms = (double) (g_get_monotonic_time () - run.start_us) / 1000.0;
  stop = g_atomic_int_get (&run.stop);
  if (stop == KS_EMU_STOP_TIMEOUT)
    {
      add_time_limit_finding (result, &run);
      g_set_error (error, KS_ERROR, KS_ERROR_TIMED_OUT,
                   "The kernel “%s” ran past its time limit of %u ms", entry->name,
                   launch->time_limit_ms);
    }
  else if (stop == KS_EMU_STOP_CANCELLED)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The run of “%s” was cancelled",
                 entry->name);
  else if (stop == KS_EMU_STOP_FAULT)
    {
      /* The finding's first line; the rest (where, who) is in the finding. */
      g_auto(GStrv) lines = g_strsplit (fault != NULL ? fault : "a fault", "\n", 2);

      g_set_error (error, KS_ERROR, KS_ERROR_KERNEL_FAULT, "The kernel “%s” stopped: %s",
                   entry->name, lines[0] != NULL ? lines[0] : "a fault");
    }

  g_free (run.block_order);
  g_free (run.allocs);
  if (launch->globals == NULL)
    g_free (run.module_data);
  g_free (run.params);
  return stop == KS_EMU_STOP_NONE;
}
