/* ks-emu-finding.c: findings as a block collects them (capped, repeats of a
 * race or an uninitialized read counted once), the words they are told in,
 * after compute-sanitizer's (what, where in the source, which thread), and
 * the run's report merged from its blocks' in block order, so that it does
 * not depend on how many workers ran the blocks or when each finished. */
#include "config.h"

#include "ks-emu-private.h"

void
ks_emu_finding_free (KsEmuFinding *finding)
{
  if (finding == NULL)
    return;
  g_free (finding->file);
  g_free (finding->function);
  g_free (finding->message);
  g_free (finding);
}

const char *
ks_emu_finding_kind_name (KsEmuFindingKind kind)
{
  switch (kind)
    {
    case KS_EMU_FINDING_OUT_OF_BOUNDS: return "out-of-bounds";
    case KS_EMU_FINDING_MISALIGNED: return "misaligned";
    case KS_EMU_FINDING_UNINITIALIZED: return "uninitialized";
    case KS_EMU_FINDING_SHARED_RACE: return "shared-race";
    case KS_EMU_FINDING_DIVERGENT_BARRIER: return "divergent-barrier";
    case KS_EMU_FINDING_WARP_SYNC: return "warp-sync";
    case KS_EMU_FINDING_TRAP: return "trap";
    case KS_EMU_FINDING_TIME_LIMIT: return "time-limit";
    case KS_EMU_FINDING_STACK: return "stack";
    default: return "unknown";
    }
}

const char *
_ks_emu_space_name (KsEmuSpace space)
{
  switch (space)
    {
    case KS_EMU_SPACE_GLOBAL: return "__global__";
    case KS_EMU_SPACE_SHARED: return "__shared__";
    case KS_EMU_SPACE_LOCAL: return "__local__";
    case KS_EMU_SPACE_CONST: return "__constant__";
    case KS_EMU_SPACE_PARAM: return "__param__";
    case KS_EMU_SPACE_GENERIC:
    default: return "__generic__";
    }
}

const char *
_ks_emu_loc_file (const KsEmuModule *module, guint32 loc)
{
  const KsEmuLoc *l = &g_array_index (module->locs, KsEmuLoc, loc);

  if (l->file == 0 || l->file >= module->files->len)
    return NULL;
  return g_ptr_array_index (module->files, l->file);
}

guint
_ks_emu_loc_line (const KsEmuModule *module, guint32 loc)
{
  return g_array_index (module->locs, KsEmuLoc, loc).line;
}

KsDim3
_ks_emu_thread_of (const KsEmuBlock *block, guint tid)
{
  const KsDim3 *dim = &block->run->block_dim;
  KsDim3 t;

  t.x = tid % dim->x;
  t.y = (tid / dim->x) % dim->y;
  t.z = tid / (dim->x * dim->y);
  return t;
}

KsEmuFinding *
_ks_emu_finding_new (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, KsEmuFindingKind kind)
{
  const KsEmuModule *m = w->block->module;
  KsEmuFinding *f = g_new0 (KsEmuFinding, 1);
  const KsEmuFunc *func = g_ptr_array_index (m->funcs, insn->func);

  f->kind = kind;
  f->space = KS_EMU_SPACE_GENERIC;
  f->thread = _ks_emu_thread_of (w->block, w->index * KS_EMU_WARP_SIZE + lane);
  f->block = w->block->id;
  f->file = g_strdup (_ks_emu_loc_file (m, insn->loc));
  f->line = _ks_emu_loc_line (m, insn->loc);
  f->function = g_strdup (func->name);
  return f;
}

char *
_ks_emu_finding_where (const KsEmuModule *module, const KsEmuFinding *f)
{
  g_autofree char *place = NULL;

  if (f->line != 0)
    place = g_strdup_printf ("at %s:%u in %s", f->file != NULL ? f->file : "?", f->line,
                             f->function);
  else
    place = g_strdup_printf ("in %s (no source line: the PTX has no .loc here)", f->function);
  return g_strdup_printf ("    %s\n    by thread (%u,%u,%u) in block (%u,%u,%u)", place,
                          f->thread.x, f->thread.y, f->thread.z, f->block.x, f->block.y,
                          f->block.z);
}

void
_ks_emu_block_report (KsEmuBlock *block, KsEmuFinding *finding, guint64 key)
{
  if (key != 0)
    {
      if (block->seen_keys == NULL)
        block->seen_keys = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      if (g_hash_table_contains (block->seen_keys, &key))
        {
          ks_emu_finding_free (finding);
          return;
        }
      g_hash_table_add (block->seen_keys, g_memdup2 (&key, sizeof key));
    }
  block->n_findings++;
  if (block->findings->len >= KS_EMU_MAX_FINDINGS)
    {
      ks_emu_finding_free (finding);
      return;
    }
  g_ptr_array_add (block->findings, finding);
  g_array_append_val (block->finding_keys, key);
}

void
_ks_emu_block_fault (KsEmuBlock *block, KsEmuFinding *finding)
{
  if (block->fault_message == NULL)
    block->fault_message = g_strdup (finding->message);
  _ks_emu_block_report (block, finding, 0);
  block->stop = TRUE;
  g_atomic_int_compare_and_exchange (&block->run->stop, KS_EMU_STOP_NONE, KS_EMU_STOP_FAULT);
}

/* ---- a run's report, merged in block order ----------------------------------- */

typedef struct
{
  GPtrArray *findings;
  GArray *keys;
  guint64 n_findings;
  GString *printf_out;
  guint64 printf_lines;
  guint64 lane_insns;
  guint64 global_atomics, shared_atomics;
  char *fault_message;
} BlockResult;

struct _KsEmuCollector
{
  GMutex lock;
  GHashTable *pending;      /* block index (guint64 *) → BlockResult */
  guint64 next;             /* the next block to merge */
  KsEmuResult *result;
  GHashTable *seen;         /* keys of findings merged */
  GString *printf_out;
  char *fault_message;
};

static void
block_result_free (BlockResult *r)
{
  g_clear_pointer (&r->findings, g_ptr_array_unref);
  g_clear_pointer (&r->keys, g_array_unref);
  if (r->printf_out != NULL)
    g_string_free (r->printf_out, TRUE);
  g_free (r->fault_message);
  g_free (r);
}

static void
merge_one (KsEmuCollector *c, BlockResult *r)
{
  KsEmuResult *result = c->result;

  for (guint i = 0; i < r->findings->len; i++)
    {
      guint64 key = g_array_index (r->keys, guint64, i);

      if (key != 0)
        {
          if (g_hash_table_contains (c->seen, &key))
            continue;
          g_hash_table_add (c->seen, g_memdup2 (&key, sizeof key));
        }
      result->n_findings++;
      if (result->findings->len < KS_EMU_MAX_FINDINGS)
        g_ptr_array_add (result->findings, g_steal_pointer (&g_ptr_array_index (r->findings, i)));
    }
  /* Those the block counted but did not keep. */
  result->n_findings += r->n_findings - r->findings->len;
  if (r->printf_out != NULL)
    g_string_append_len (c->printf_out, r->printf_out->str, (gssize) r->printf_out->len);
  result->printf_lines += r->printf_lines;
  result->lane_instructions += r->lane_insns;
  result->global_atomics += r->global_atomics;
  result->shared_atomics += r->shared_atomics;
  if (c->fault_message == NULL && r->fault_message != NULL)
    c->fault_message = g_steal_pointer (&r->fault_message);
}

void
_ks_emu_collector_deliver (KsEmuCollector *c, KsEmuBlock *b)
{
  BlockResult *r = g_new0 (BlockResult, 1);
  /* Merged in the order the blocks started: blockIdx order, or the
   * launch's seeded order. */
  guint64 index = b->seq;

  r->findings = g_steal_pointer (&b->findings);
  r->keys = g_steal_pointer (&b->finding_keys);
  r->n_findings = b->n_findings;
  r->printf_out = g_steal_pointer (&b->printf_out);
  r->printf_lines = b->printf_lines;
  r->lane_insns = b->lane_insns;
  r->global_atomics = b->global_atomics;
  r->shared_atomics = b->shared_atomics;
  r->fault_message = g_steal_pointer (&b->fault_message);
  g_clear_pointer (&b->seen_keys, g_hash_table_unref);
  g_mutex_lock (&c->lock);
  g_hash_table_insert (c->pending, g_memdup2 (&index, sizeof index), r);
  for (;;)
    {
      BlockResult *next = g_hash_table_lookup (c->pending, &c->next);

      if (next == NULL)
        break;
      merge_one (c, next);
      g_hash_table_remove (c->pending, &c->next);
      c->next++;
    }
  g_mutex_unlock (&c->lock);
}

KsEmuCollector *
_ks_emu_collector_new (KsEmuResult *result)
{
  KsEmuCollector *c = g_new0 (KsEmuCollector, 1);

  g_mutex_init (&c->lock);
  c->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                      (GDestroyNotify) block_result_free);
  c->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c->printf_out = g_string_new (NULL);
  c->result = result;
  result->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_emu_finding_free);
  return c;
}

char *
_ks_emu_collector_finish (KsEmuCollector *c)
{
  char *fault = NULL;

  /* After a stop, blocks that never ran leave gaps: the rest in order. */
  while (g_hash_table_size (c->pending) > 0)
    {
      GHashTableIter iter;
      gpointer key, value;
      guint64 lowest = G_MAXUINT64;

      g_hash_table_iter_init (&iter, c->pending);
      while (g_hash_table_iter_next (&iter, &key, &value))
        lowest = MIN (lowest, *(guint64 *) key);
      merge_one (c, g_hash_table_lookup (c->pending, &lowest));
      g_hash_table_remove (c->pending, &lowest);
    }
  c->result->printf_output = g_string_free (g_steal_pointer (&c->printf_out), FALSE);
  fault = g_steal_pointer (&c->fault_message);
  g_hash_table_unref (c->pending);
  g_hash_table_unref (c->seen);
  g_mutex_clear (&c->lock);
  g_free (c);
  return fault;
}
