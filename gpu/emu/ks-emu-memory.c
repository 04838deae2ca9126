/* ks-emu-memory.c: where an address goes, checked as compute-sanitizer
 * checks it: global addresses against the launch's buffers and the module's
 * variables, shared ones against the block's shared memory, local ones
 * against the thread's, every one against its access's alignment. A bad
 * access is reported and suppressed; the kernel goes on.
 *
 * Shared memory also has a shadow (KsEmuShadow, per byte) for racecheck and
 * initcheck: who wrote a byte last and in which barrier interval, who read
 * it since. Two accesses of one byte by different threads in one interval,
 * at least one a write and not both atomic, race — unless both threads are
 * of one warp and a __syncwarp() came between. Lanes of one warp in one
 * instruction are different threads too: s[0] += 1 from a whole warp is the
 * classic race, and it is reported. */
#include "config.h"

#include <stdio.h>

#include "ks-emu-private.h"

KsEmuSpace
_ks_emu_generic_space (guint64 address, guint64 *space_address)
{
  if (address - KS_EMU_SHARED_WINDOW < KS_EMU_WINDOW_SIZE)
    {
      *space_address = address - KS_EMU_SHARED_WINDOW;
      return KS_EMU_SPACE_SHARED;
    }
  if (address - KS_EMU_LOCAL_WINDOW < KS_EMU_WINDOW_SIZE)
    {
      *space_address = address - KS_EMU_LOCAL_WINDOW;
      return KS_EMU_SPACE_LOCAL;
    }
  if (address - KS_EMU_PARAM_WINDOW < KS_EMU_WINDOW_SIZE)
    {
      *space_address = address - KS_EMU_PARAM_WINDOW;
      return KS_EMU_SPACE_PARAM;
    }
  *space_address = address;
  return KS_EMU_SPACE_GLOBAL;
}

/* The allocation whose base is the highest at or below address (NULL: none). */
static const KsEmuAlloc *
alloc_below (const KsEmuRun *run, guint64 address)
{
  guint lo = 0, hi = run->n_allocs;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;

      if (run->allocs[mid].base <= address)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 ? &run->allocs[lo - 1] : NULL;
}

const KsEmuAlloc *
_ks_emu_find_alloc (const KsEmuRun *run, guint64 address)
{
  const KsEmuAlloc *a = alloc_below (run, address);

  return a != NULL && address - a->base < a->size ? a : NULL;
}

static const char *
access_word (KsEmuAccess access)
{
  return access == KS_EMU_ACCESS_READ ? "read" : access == KS_EMU_ACCESS_WRITE ? "write"
                                                                              : "atomic";
}

/* "Invalid __global__ read of size 4 bytes", where and who, and what the
 * address is; key 0 (every such access counts). */
static void
report (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, KsEmuFindingKind kind, KsEmuSpace space,
        KsEmuAccess access, guint size, guint64 address, const char *detail)
{
  KsEmuFinding *f = _ks_emu_finding_new (w, lane, insn, kind);
  g_autofree char *where = NULL;

  f->space = space;
  f->access = access;
  f->size = size;
  f->address = address;
  where = _ks_emu_finding_where (w->block->module, f);
  f->message = g_strdup_printf ("Invalid %s %s of size %u bytes\n%s\n    %s",
                                _ks_emu_space_name (space), access_word (access), size, where,
                                detail);
  _ks_emu_block_report (w->block, f, 0);
}

static char *
describe_nearest (const KsEmuRun *run, guint64 address, guint size)
{
  const KsEmuAlloc *below = alloc_below (run, address);
  const KsEmuAlloc *above = below != NULL ? below + 1 : run->allocs;
  const KsEmuAlloc *nearest = NULL;
  guint64 after = G_MAXUINT64, before = G_MAXUINT64;
  g_autofree char *name = NULL;

  if (below != NULL)
    after = address - below->base >= below->size ? address - (below->base + below->size) : 0;
  if (above < run->allocs + run->n_allocs)
    before = above->base - address;
  if (below == NULL && above >= run->allocs + run->n_allocs)
    return g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is out of bounds (the launch has "
                            "no memory there)", address);
  nearest = after <= before ? below : above;
  name = nearest->name != NULL ? g_strdup_printf (" “%s”", nearest->name) : g_strdup ("");
  if (nearest == below && address - below->base < below->size)
    return g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is out of bounds\n    and the "
                            "access of %u bytes ends past the allocation%s at 0x%"
                            G_GINT64_MODIFIER "x of size %" G_GUINT64_FORMAT " bytes",
                            address, size, name, nearest->base, nearest->size);
  return g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is out of bounds\n    and is %"
                          G_GUINT64_FORMAT " bytes %s the nearest allocation%s at 0x%"
                          G_GINT64_MODIFIER "x of size %" G_GUINT64_FORMAT " bytes",
                          address, nearest == below ? after : before,
                          nearest == below ? "after" : "before", name, nearest->base,
                          nearest->size);
}

guint8 *
_ks_emu_access (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, KsEmuSpace space,
                guint64 address, guint size, KsEmuAccess access)
{
  KsEmuBlock *b = w->block;
  const KsEmuRun *run = b->run;
  guint64 at = address;
  KsEmuSpace resolved = space;
  g_autofree char *detail = NULL;

  if (space == KS_EMU_SPACE_GENERIC)
    resolved = _ks_emu_generic_space (address, &at);
  if ((address & (size - 1)) != 0 && (size & (size - 1)) == 0)
    {
      detail = g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is misaligned (a %u-byte "
                                "access needs an address that is a multiple of %u)", address,
                                size, size);
      report (w, lane, insn, KS_EMU_FINDING_MISALIGNED, resolved, access, size, address, detail);
      return NULL;
    }
  switch (resolved)
    {
    case KS_EMU_SPACE_GLOBAL:
    case KS_EMU_SPACE_CONST:
      {
        const KsEmuAlloc *a = alloc_below (run, at);

        if (a != NULL && at - a->base < a->size && a->size - (at - a->base) >= size)
          {
            if (a->read_only && access != KS_EMU_ACCESS_READ)
              {
                detail = g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is in the "
                                          "read-only __constant__ variable “%s”", at, a->name);
                break;
              }
            if (a->block_of != NULL && access != KS_EMU_ACCESS_READ)
              {
                guint tid = w->index * KS_EMU_WARP_SIZE + lane;

                for (guint64 e = (at - a->base) / a->owner_elem;
                     e <= (at - a->base + size - 1) / a->owner_elem; e++)
                  {
                    a->block_of[e] = (gint32) b->linear;
                    a->thread_of[e] = (gint32) tid;
                  }
              }
            else
              w->last_alloc = a;
            return a->host + (at - a->base);
          }
        detail = describe_nearest (run, at, size);
        break;
      }
    case KS_EMU_SPACE_SHARED:
      if (at < b->shared_size && b->shared_size - at >= size)
        {
          if (b->shadow != NULL)
            _ks_emu_shadow_check (w, lane, insn, at, size, access);
          return b->shared + at;
        }
      detail = g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is out of bounds (the block "
                                "has %" G_GUINT64_FORMAT " bytes of shared memory)", address,
                                b->shared_size);
      break;
    case KS_EMU_SPACE_LOCAL:
      if (at < w->local_size[lane] && w->local_size[lane] - at >= size)
        return w->local[lane] + at;
      detail = g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is out of bounds (outside "
                                "the thread's %" G_GUINT64_FORMAT " bytes of local memory)",
                                address, w->local_size[lane]);
      break;
    case KS_EMU_SPACE_PARAM:
      if (access == KS_EMU_ACCESS_READ && at < run->params_size && run->params_size - at >= size)
        return run->params + at;
      detail = g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x is outside the kernel's "
                                "%u bytes of parameters%s", address, run->params_size,
                                access != KS_EMU_ACCESS_READ ? ", which are read-only" : "");
      break;
    case KS_EMU_SPACE_GENERIC:
    default:
      g_assert_not_reached ();
    }
  report (w, lane, insn, KS_EMU_FINDING_OUT_OF_BOUNDS, resolved, access, size, address, detail);
  return NULL;
}

const guint8 *
_ks_emu_host_span (KsEmuWarp *w, guint lane, guint64 address, gsize *avail)
{
  KsEmuBlock *b = w->block;
  guint64 at;

  *avail = 0;
  switch (_ks_emu_generic_space (address, &at))
    {
    case KS_EMU_SPACE_GLOBAL:
      {
        const KsEmuAlloc *a = _ks_emu_find_alloc (b->run, at);

        if (a == NULL)
          return NULL;
        *avail = a->size - (at - a->base);
        return a->host + (at - a->base);
      }
    case KS_EMU_SPACE_SHARED:
      if (at >= b->shared_size)
        return NULL;
      *avail = b->shared_size - at;
      return b->shared + at;
    case KS_EMU_SPACE_LOCAL:
      if (at >= w->local_size[lane])
        return NULL;
      *avail = w->local_size[lane] - at;
      return w->local[lane] + at;
    case KS_EMU_SPACE_PARAM:
      if (at >= b->run->params_size)
        return NULL;
      *avail = b->run->params_size - at;
      return b->run->params + at;
    case KS_EMU_SPACE_CONST:
    case KS_EMU_SPACE_GENERIC:
    default:
      return NULL;
    }
}

char *
_ks_emu_read_string (KsEmuWarp *w, guint lane, guint64 address, gsize max)
{
  gsize avail;
  const guint8 *p = _ks_emu_host_span (w, lane, address, &avail);

  if (p == NULL)
    return NULL;
  return g_strndup ((const char *) p, MIN (avail, max));
}

/* ---- racecheck and initcheck ----------------------------------------------- */

static void
report_race (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, guint64 offset, KsEmuAccess access,
             KsEmuAccess other_access, guint other_tid, guint32 other_pc, guint size)
{
  KsEmuBlock *b = w->block;
  const KsEmuModule *m = b->module;
  const KsEmuInsn *other = &m->code[other_pc];
  KsEmuFinding *f = _ks_emu_finding_new (w, lane, insn, KS_EMU_FINDING_SHARED_RACE);
  guint32 pc = (guint32) (insn - m->code);
  guint32 lo = MIN (pc, other_pc), hi = MAX (pc, other_pc);
  g_autofree char *where = NULL;
  const char *other_file;
  g_autofree char *other_place = NULL;

  f->space = KS_EMU_SPACE_SHARED;
  f->access = access;
  f->size = size;
  f->address = KS_EMU_SHARED_WINDOW + offset;
  f->other_access = other_access;
  f->other_thread = _ks_emu_thread_of (b, other_tid);
  f->other_line = _ks_emu_loc_line (m, other->loc);
  where = _ks_emu_finding_where (m, f);
  other_file = _ks_emu_loc_file (m, other->loc);
  other_place = f->other_line != 0 ? g_strdup_printf ("%s:%u", other_file != NULL ? other_file
                                                                                  : "?",
                                                      f->other_line)
                                   : g_strdup ("an instruction without a line");
  f->message = g_strdup_printf ("Race reported between %s access by this thread and an "
                                "earlier %s access by thread (%u,%u,%u) at %s, to shared "
                                "memory at offset %" G_GUINT64_FORMAT ", with no barrier "
                                "between them\n%s",
                                access == KS_EMU_ACCESS_READ ? "Read" : "Write",
                                access_word (other_access), f->other_thread.x,
                                f->other_thread.y, f->other_thread.z, other_place, offset,
                                where);
  /* Once for each pair of instructions. */
  _ks_emu_block_report (b, f, ((guint64) 1 << 62) | ((guint64) lo << 31) | hi);
}

static void
report_uninitialized (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, guint64 offset, guint size)
{
  KsEmuBlock *b = w->block;
  KsEmuFinding *f = _ks_emu_finding_new (w, lane, insn, KS_EMU_FINDING_UNINITIALIZED);
  g_autofree char *where = NULL;

  f->space = KS_EMU_SPACE_SHARED;
  f->access = KS_EMU_ACCESS_READ;
  f->size = size;
  f->address = KS_EMU_SHARED_WINDOW + offset;
  where = _ks_emu_finding_where (b->module, f);
  f->message = g_strdup_printf ("Uninitialized __shared__ memory read of size %u bytes\n%s\n"
                                "    Address 0x%" G_GINT64_MODIFIER "x (offset %"
                                G_GUINT64_FORMAT ") was not written by any thread of the block "
                                "before", size, where, f->address, offset);
  /* Once for each instruction. */
  _ks_emu_block_report (b, f, ((guint64) 2 << 60) | (guint64) (insn - b->module->code));
}

void
_ks_emu_shadow_check (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, guint64 offset, guint size,
                      KsEmuAccess access)
{
  KsEmuBlock *b = w->block;
  guint16 tid = (guint16) (w->index * KS_EMU_WARP_SIZE + lane);
  guint16 warp = (guint16) w->index;
  guint16 wsync = (guint16) w->wsync;
  guint32 pc = (guint32) (insn - b->module->code);
  guint32 interval = b->interval;
  gboolean atomic = access == KS_EMU_ACCESS_ATOMIC;
  gboolean raced = FALSE, uninit = FALSE;

  for (guint i = 0; i < size; i++)
    {
      KsEmuShadow *s = &b->shadow[offset + i];
      gboolean written_here = s->w_interval == interval && s->w_tid != tid
                              && !(atomic && s->w_atomic)
                              /* a __syncwarp() between two lanes of one warp orders them */
                              && !(s->w_tid / KS_EMU_WARP_SIZE == warp && s->w_wsync != wsync);

      if (access == KS_EMU_ACCESS_READ)
        {
          if (s->w_interval < b->first_interval && !uninit)
            {
              uninit = TRUE;
              report_uninitialized (w, lane, insn, offset, size);
            }
          if (written_here && !raced)
            {
              raced = TRUE;
              report_race (w, lane, insn, offset, KS_EMU_ACCESS_READ,
                           s->w_atomic ? KS_EMU_ACCESS_ATOMIC : KS_EMU_ACCESS_WRITE, s->w_tid,
                           s->w_pc, size);
            }
          if (s->r_interval != interval)
            {
              s->r_tid = tid;
              s->r_other = KS_EMU_NONE;
              s->r_warp = warp;
              s->r_pc = pc;
              s->r_interval = interval;
            }
          else if (s->r_tid != tid)
            {
              s->r_other = tid;
              if (s->r_warp != warp)
                s->r_warp = KS_EMU_MANY;
            }
          s->r_wsync = wsync;
          continue;
        }
      /* A write (or an atomic): after another thread's write or read in this interval. */
      if (!raced && written_here)
        {
          raced = TRUE;
          report_race (w, lane, insn, offset, KS_EMU_ACCESS_WRITE,
                       s->w_atomic ? KS_EMU_ACCESS_ATOMIC : KS_EMU_ACCESS_WRITE, s->w_tid, s->w_pc,
                       size);
        }
      if (!raced && s->r_interval == interval
          && (s->r_tid != tid || (s->r_other != KS_EMU_NONE && s->r_other != tid))
          && !(s->r_warp == warp && s->r_wsync != wsync))
        {
          raced = TRUE;
          report_race (w, lane, insn, offset, KS_EMU_ACCESS_WRITE, KS_EMU_ACCESS_READ,
                       s->r_tid != tid ? s->r_tid : s->r_other, s->r_pc, size);
        }
      s->w_interval = interval;
      s->w_tid = tid;
      s->w_pc = pc;
      s->w_wsync = wsync;
      s->w_atomic = (guint8) atomic;
      s->r_interval = 0;
    }
}
