#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ks-error.h"
#include "ks-launch.h"

void
ks_dim3_format (const KsDim3 *d, char *buf, gsize len)
{
  if (d->z != 1)
    g_snprintf (buf, len, "%u×%u×%u", d->x, d->y, d->z);
  else
    g_snprintf (buf, len, "%u×%u", d->x, d->y);
}

gboolean
ks_dim3_parse (const char *text, KsDim3 *out, GError **error)
{
  guint v[3] = { 1, 1, 1 };
  const char *p = text;
  int n = 0;

  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  while (n < 3)
    {
      char *end = NULL;
      guint64 x;

      if (!g_ascii_isdigit (*p))
        break;
      errno = 0;
      x = g_ascii_strtoull (p, &end, 10);
      if (errno != 0 || x == 0 || x > G_MAXUINT32)
        break;
      v[n++] = (guint) x;
      p = end;
      if (*p == '\0')
        {
          out->x = v[0];
          out->y = v[1];
          out->z = v[2];
          return TRUE;
        }
      /* "×" too: what ks_dim3_format writes reads back. */
      if (g_str_has_prefix (p, "×"))
        p += strlen ("×");
      else if (*p == 'x' || *p == 'X' || *p == ',')
        p++;
      else
        break;
    }
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "“%s” is not a dimension: write one to three positive whole numbers such as "
               "16x16 or 256 or 32x8x1", text);
  return FALSE;
}

const char *
ks_launch_mode_to_string (KsLaunchMode mode)
{
  return mode == KS_LAUNCH_GRID_STRIDE ? "grid-stride" : "per-pixel";
}

gboolean
ks_launch_mode_from_string (const char *text, KsLaunchMode *mode)
{
  g_return_val_if_fail (text != NULL && mode != NULL, FALSE);
  if (g_str_equal (text, "per-pixel"))
    *mode = KS_LAUNCH_PER_PIXEL;
  else if (g_str_equal (text, "grid-stride"))
    *mode = KS_LAUNCH_GRID_STRIDE;
  else
    return FALSE;
  return TRUE;
}

void
ks_launch_config_init (KsLaunchConfig *config, guint bx, guint by)
{
  memset (config, 0, sizeof *config);
  config->block = (KsDim3) { bx, by, 1 };
  config->grid = (KsDim3) { 1, 1, 1 };
  config->auto_grid = TRUE;
  config->mode = KS_LAUNCH_PER_PIXEL;
  config->pixels_per_thread = 0;
}

static guint64
block_threads (const KsLaunchConfig *c)
{
  return (guint64) c->block.x * c->block.y * c->block.z;
}

/* Fills an automatic grid: enough blocks to cover the image, or, for the
 * grid-stride loop, at most blocks_per_sm on every multiprocessor (the loop
 * does the rest). */
static void
resolve_grid (KsLaunchConfig *config, guint width, guint height, guint64 blocks_per_sm,
              const KsDeviceLimits *limits)
{
  guint64 cols, gx, gy;

  cols = ks_ceil_div_u32 (width, config->pixels_per_thread);
  gx = (cols + config->block.x - 1) / config->block.x;
  gy = ((guint64) height + config->block.y - 1) / config->block.y;
  if (config->mode == KS_LAUNCH_GRID_STRIDE)
    {
      guint64 cap = MAX (1, (guint64) limits->sm_count * MAX (1, blocks_per_sm));
      gx = MIN (gx, cap);
      gy = MIN (gy, MAX (1, cap / gx));
    }
  config->grid.x = (guint) MIN (gx, MAX (1u, limits->max_grid_dim[0]));
  config->grid.y = (guint) MIN (gy, MAX (1u, limits->max_grid_dim[1]));
  config->grid.z = 1;
}

void
ks_launch_config_resolve (KsLaunchConfig *config, guint width, guint height,
                          guint default_pixels_per_thread, const KsDeviceLimits *limits)
{
  guint64 threads;

  if (config->pixels_per_thread == 0)
    config->pixels_per_thread = default_pixels_per_thread != 0 ? default_pixels_per_thread : 1;
  if (!config->auto_grid || config->block.x == 0 || config->block.y == 0 || config->block.z == 0)
    return;
  threads = block_threads (config);
  /* Before the kernel is known, the most blocks its threads allow. */
  resolve_grid (config, width, height,
                MIN (limits->max_blocks_per_sm, limits->max_threads_per_sm / MAX (1, threads)),
                limits);
}

void
ks_launch_config_fit_occupancy (KsLaunchConfig *config, guint width, guint height,
                                const KsDeviceLimits *limits, const KsKernelAttributes *attrs)
{
  KsOccupancy occupancy;

  if (!config->auto_grid || config->mode != KS_LAUNCH_GRID_STRIDE || config->block.x == 0
      || config->block.y == 0 || config->block.z == 0 || config->pixels_per_thread == 0)
    return;
  ks_launch_occupancy (config, limits, attrs, &occupancy);
  /* No block fits: validation says why; the grid stays as it was. */
  if (occupancy.active_blocks_per_sm == 0)
    return;
  resolve_grid (config, width, height, occupancy.active_blocks_per_sm, limits);
}

void
ks_launch_config_to_geometry (const KsLaunchConfig *config, guint width, guint height,
                              KsGeometry *geom)
{
  geom->grid = config->grid;
  geom->block = config->block;
  geom->mode = config->mode;
  geom->pixels_per_thread = config->pixels_per_thread;
  geom->width = width;
  geom->height = height;
}

/* Pixels reached along one axis by n threads each covering `per` pixels, with
 * the grid-stride loop wrapping when the threads are fewer than the pixels. */
static guint64
reached (guint64 n_threads, guint64 per, guint64 extent, gboolean stride)
{
  guint64 covered = n_threads * per;
  if (stride)
    return extent;
  return MIN (covered, extent);
}

void
ks_launch_totals (const KsLaunchConfig *c, guint width, guint height, KsLaunchTotals *t)
{
  guint64 tx = (guint64) c->grid.x * c->block.x;
  guint64 ty = (guint64) c->grid.y * c->block.y;
  guint64 tz = (guint64) c->grid.z * c->block.z;
  guint64 ppt = MAX (1, c->pixels_per_thread);
  gboolean stride = c->mode == KS_LAUNCH_GRID_STRIDE;
  guint64 busy_x = MIN (tx, (guint64) ks_ceil_div_u32 (width, (guint32) ppt));
  guint64 busy_y = MIN (ty, (guint64) height);

  t->threads = tx * ty * tz;
  t->blocks = (guint64) c->grid.x * c->grid.y * c->grid.z;
  t->pixels = (guint64) width * height;
  /* Only the z = 0 plane of threads maps onto the image. */
  t->idle_threads = t->threads - busy_x * busy_y * (tz > 0 ? 1 : 0);
  t->unreached_pixels = t->pixels
                        - reached (tx, ppt, width, stride) * reached (ty, 1, height, stride);
}

static gboolean
valid_ppt (guint ppt)
{
  return ppt == 1 || ppt == 2 || ppt == 4 || ppt == 8 || ppt == 16;
}

static guint64
regs_per_warp (guint regs_per_thread, guint warp_size)
{
  /* Registers are allocated per warp in units of 256. */
  return ((guint64) regs_per_thread * warp_size + 255) / 256 * 256;
}

static guint64
regs_per_block (guint regs_per_thread, guint64 threads, guint warp_size)
{
  return (threads + warp_size - 1) / warp_size * regs_per_warp (regs_per_thread, warp_size);
}

/* The register file is split between the multiprocessor's sub-partitions
 * (warp schedulers), each warp's registers in one of them: 4 on every GPU
 * Kernelscope runs on but compute capability 6.0, which has 2. */
static guint
sub_partitions (const KsDeviceLimits *l)
{
  return l->cc_major == 6 && l->cc_minor == 0 ? 2 : 4;
}

static char *
format_bytes (guint64 n)
{
  if (n >= 1024 && n % 1024 == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " KiB", n / 1024);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", n);
}

static const char axis[3] = { 'x', 'y', 'z' };

/* The pieces of the launch rule, each the first limit broken in plain words,
 * NULL when none: first_violation and ks_launch_config_check_limits put them
 * together, so that a launch judged with a kernel and one judged on its own
 * (restored from a file) meet the same limits with the same words. */
static char *
block_zero_violation (const KsLaunchConfig *c)
{
  const guint b[3] = { c->block.x, c->block.y, c->block.z };

  for (int i = 0; i < 3; i++)
    if (b[i] == 0)
      return g_strdup_printf ("A block needs at least one thread in each dimension; "
                              "%c is 0", axis[i]);
  return NULL;
}

static char *
grid_zero_violation (const KsLaunchConfig *c)
{
  const guint g[3] = { c->grid.x, c->grid.y, c->grid.z };

  for (int i = 0; i < 3; i++)
    if (g[i] == 0)
      return g_strdup_printf ("A grid needs at least one block in each dimension; %c is 0",
                              axis[i]);
  return NULL;
}

/* 0 is the op's own number, allowed before the launch is resolved. */
static char *
ppt_violation (guint ppt, gboolean allow_default)
{
  if (valid_ppt (ppt) || (allow_default && ppt == 0))
    return NULL;
  return g_strdup_printf ("Each thread can handle 1, 2, 4, 8 or 16 pixels, not %u", ppt);
}

static char *
block_limits_violation (const KsLaunchConfig *c, const KsDeviceLimits *l)
{
  const guint b[3] = { c->block.x, c->block.y, c->block.z };
  guint64 threads = block_threads (c);
  char bs[64];

  ks_dim3_format (&c->block, bs, sizeof bs);
  for (int i = 0; i < 3; i++)
    if (b[i] > l->max_block_dim[i])
      return g_strdup_printf ("A block of %s has %u threads in %c; this device allows at most %u "
                              "in %c", bs, b[i], axis[i], l->max_block_dim[i], axis[i]);
  if (threads > l->max_threads_per_block)
    return g_strdup_printf ("%s = %" G_GUINT64_FORMAT " threads per block; this device allows %u",
                            bs, threads, l->max_threads_per_block);
  return NULL;
}

static char *
grid_limits_violation (const KsLaunchConfig *c, const KsDeviceLimits *l)
{
  const guint g[3] = { c->grid.x, c->grid.y, c->grid.z };

  for (int i = 0; i < 3; i++)
    if (g[i] > l->max_grid_dim[i])
      return g_strdup_printf ("A grid of %u blocks in %c is too large; this device allows at most "
                              "%u in %c", g[i], axis[i], l->max_grid_dim[i], axis[i]);
  return NULL;
}

/* The first limit the configuration breaks, in plain words; NULL when valid. */
static char *
first_violation (const KsLaunchConfig *c, const KsDeviceLimits *l, const KsKernelAttributes *a)
{
  guint64 threads = block_threads (c);
  char *problem;
  char bs[64];

  ks_dim3_format (&c->block, bs, sizeof bs);
  if ((problem = block_zero_violation (c)) != NULL
      || (problem = grid_zero_violation (c)) != NULL
      || (problem = ppt_violation (c->pixels_per_thread, FALSE)) != NULL
      || (problem = block_limits_violation (c, l)) != NULL)
    return problem;
  if (a != NULL && a->max_threads_per_block > 0 && threads > a->max_threads_per_block)
    return g_strdup_printf ("%s = %" G_GUINT64_FORMAT " threads per block; this kernel can run at "
                            "most %u per block (it uses %u registers per thread)",
                            bs, threads, a->max_threads_per_block, a->num_regs);
  if (a != NULL && a->num_regs > 0)
    {
      guint64 regs = regs_per_block (a->num_regs, threads, MAX (1, l->warp_size));
      if (regs > l->regs_per_block)
        return g_strdup_printf ("%s threads × %u registers = %" G_GUINT64_FORMAT " registers per "
                                "block; this device has %u per block",
                                bs, a->num_regs, regs, l->regs_per_block);
    }
  if (a != NULL)
    {
      /* Every launcher opts in past the limit without opt-in. */
      guint64 shared = a->shared_static + a->shared_dynamic;
      if (shared > l->shared_mem_per_block_optin)
        {
          g_autofree char *need = format_bytes (shared);
          g_autofree char *have = format_bytes (l->shared_mem_per_block_optin);
          return g_strdup_printf ("With a block of %s this kernel needs %s of shared memory per "
                                  "block; this device allows %s", bs, need, have);
        }
    }
  return grid_limits_violation (c, l);
}

gboolean
ks_launch_config_check_limits (const KsLaunchConfig *config, const KsDeviceLimits *limits,
                               const char **field, GError **error)
{
  g_autofree char *problem = NULL;
  const char *where = NULL;

  g_return_val_if_fail (config != NULL, FALSE);
  /* An automatic grid is derived later: the manual one it keeps may be anything. */
  if ((problem = block_zero_violation (config)) != NULL)
    where = "block";
  else if (!config->auto_grid && (problem = grid_zero_violation (config)) != NULL)
    where = "grid";
  else if ((problem = ppt_violation (config->pixels_per_thread, TRUE)) != NULL)
    where = "pixels_per_thread";
  else if (limits != NULL && (problem = block_limits_violation (config, limits)) != NULL)
    where = "block";
  else if (limits != NULL && !config->auto_grid
           && (problem = grid_limits_violation (config, limits)) != NULL)
    where = "grid";
  if (field != NULL)
    *field = where;
  if (problem == NULL)
    return TRUE;
  g_set_error_literal (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG, problem);
  return FALSE;
}

/* Shrinks the block until it fits the device and the kernel, then lets the
 * grid follow the data. */
static void
make_suggestion (const KsLaunchConfig *c, guint width, guint height, const KsDeviceLimits *l,
                 const KsKernelAttributes *a, KsLaunchConfig *s)
{
  guint *dims[3];
  guint64 max_threads = l->max_threads_per_block;

  *s = *c;
  dims[0] = &s->block.x;
  dims[1] = &s->block.y;
  dims[2] = &s->block.z;
  if (!valid_ppt (s->pixels_per_thread))
    s->pixels_per_thread = 4;
  for (int i = 0; i < 3; i++)
    *dims[i] = CLAMP (*dims[i], 1u, MAX (1u, l->max_block_dim[i]));
  if (a != NULL && a->max_threads_per_block > 0)
    max_threads = MIN (max_threads, a->max_threads_per_block);
  for (;;)
    {
      guint64 threads = block_threads (s);
      gboolean fits = threads <= max_threads;
      if (fits && a != NULL)
        {
          fits = (a->num_regs == 0
                  || regs_per_block (a->num_regs, threads, MAX (1, l->warp_size))
                       <= l->regs_per_block)
                 && a->shared_static + a->shared_dynamic <= l->shared_mem_per_block_optin;
        }
      if (fits || threads == 1)
        break;
      /* Halve the largest dimension, z first on ties: z rarely helps images. */
      if (s->block.z >= s->block.y && s->block.z >= s->block.x && s->block.z > 1)
        s->block.z = (s->block.z + 1) / 2;
      else if (s->block.y >= s->block.x && s->block.y > 1)
        s->block.y = (s->block.y + 1) / 2;
      else
        s->block.x = (s->block.x + 1) / 2;
    }
  s->auto_grid = TRUE;
  if (s->grid.z > l->max_grid_dim[2] || s->grid.y > l->max_grid_dim[1]
      || s->grid.x > l->max_grid_dim[0])
    s->mode = KS_LAUNCH_GRID_STRIDE;
  ks_launch_config_resolve (s, width, height, s->pixels_per_thread, l);
}

/* Shrinks a suggestion until the kernel's needs for it fit the device. */
static void
refine_suggestion (KsLaunchConfig *s, guint width, guint height, const KsDeviceLimits *limits,
                   KsKernelAttributesFunc attrs_func, gpointer user_data)
{
  for (int i = 0; i < 32; i++)
    {
      KsKernelAttributes a;
      g_autofree char *problem = NULL;

      memset (&a, 0, sizeof a);
      if (!attrs_func (s, &a, user_data))
        return;
      problem = first_violation (s, limits, &a);
      if (problem == NULL)
        return;
      if (s->pixels_per_thread > 1)
        s->pixels_per_thread /= 2;
      else if (s->block.x * s->block.y * s->block.z == 1)
        return;
      else if (s->block.y > s->block.x)
        s->block.y = (s->block.y + 1) / 2;
      else if (s->block.x > 1)
        s->block.x = (s->block.x + 1) / 2;
      else
        s->block.z = (s->block.z + 1) / 2;
      s->auto_grid = TRUE;
      ks_launch_config_resolve (s, width, height, s->pixels_per_thread, limits);
    }
}

gboolean
ks_launch_config_validate (const KsLaunchConfig *resolved, guint width, guint height,
                           const KsDeviceLimits *limits, const KsKernelAttributes *attrs,
                           KsLaunchConfig *suggestion, GError **error)
{
  return ks_launch_config_validate_full (resolved, width, height, limits, attrs, NULL, NULL,
                                         suggestion, error);
}

gboolean
ks_launch_config_validate_full (const KsLaunchConfig *resolved, guint width, guint height,
                                const KsDeviceLimits *limits, const KsKernelAttributes *attrs,
                                KsKernelAttributesFunc attrs_func, gpointer user_data,
                                KsLaunchConfig *suggestion, GError **error)
{
  g_autofree char *problem = NULL;
  KsLaunchConfig s;
  char bs[64], gs[64];

  g_return_val_if_fail (resolved != NULL && limits != NULL, FALSE);
  problem = first_violation (resolved, limits, attrs);
  if (problem == NULL)
    {
      if (suggestion != NULL)
        *suggestion = *resolved;
      return TRUE;
    }
  if (attrs_func != NULL && attrs != NULL)
    {
      /* Shared memory follows the block: the refinement below asks for it
       * again at each size, so the first cut looks at threads and registers. */
      KsKernelAttributes threads_only = *attrs;
      threads_only.shared_static = threads_only.shared_dynamic = 0;
      make_suggestion (resolved, width, height, limits, &threads_only, &s);
      refine_suggestion (&s, width, height, limits, attrs_func, user_data);
    }
  else
    make_suggestion (resolved, width, height, limits, attrs, &s);
  if (suggestion != NULL)
    *suggestion = s;
  ks_dim3_format (&s.block, bs, sizeof bs);
  ks_dim3_format (&s.grid, gs, sizeof gs);
  g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG, "%s. Try a block of %s with a grid of %s%s",
               problem, bs, gs, s.mode == KS_LAUNCH_GRID_STRIDE ? " (grid-stride)" : "");
  return FALSE;
}

void
ks_launch_occupancy (const KsLaunchConfig *c, const KsDeviceLimits *l, const KsKernelAttributes *a,
                     KsOccupancy *o)
{
  guint warp = MAX (1, l->warp_size);
  guint64 threads = block_threads (c);
  guint64 warps_per_block = MAX (1, (threads + warp - 1) / warp);
  guint64 max_warps = l->max_threads_per_sm / warp;
  guint64 by_warps = max_warps / warps_per_block;
  guint64 by_blocks = l->max_blocks_per_sm;
  guint64 by_regs = G_MAXUINT64, by_shared = G_MAXUINT64, active;

  memset (o, 0, sizeof *o);
  o->max_warps_per_sm = (guint) max_warps;
  if (a != NULL && a->num_regs > 0)
    {
      /* Whole warps per sub-partition, then whole blocks of those warps: 40
       * registers a thread fit 12 warps in a quarter of 65536, so 24 blocks
       * of 64 threads, where the whole file alone would seem to hold 25. */
      guint parts = sub_partitions (l);
      guint64 per_warp = regs_per_warp (a->num_regs, warp);
      guint64 warps = per_warp > 0 ? l->regs_per_sm / parts / per_warp * parts : G_MAXUINT64;

      by_regs = warps / warps_per_block;
    }
  if (a != NULL && a->shared_static + a->shared_dynamic > 0)
    {
      /* Shared memory is allocated in 128-byte units, plus the per-block reservation. */
      guint64 per_block = (a->shared_static + a->shared_dynamic + 127) / 128 * 128
                          + l->reserved_shared_mem_per_block;
      by_shared = l->shared_mem_per_sm / per_block;
    }
  active = MIN (MIN (by_warps, by_blocks), MIN (by_regs, by_shared));
  o->active_blocks_per_sm = (guint) active;
  o->active_warps_per_sm = (guint) MIN (active * warps_per_block, max_warps);
  o->occupancy = max_warps > 0 ? (double) o->active_warps_per_sm / max_warps : 0;
  if (active == by_warps)
    o->limiter = KS_OCCUPANCY_LIMIT_WARPS;
  else if (active == by_blocks)
    o->limiter = KS_OCCUPANCY_LIMIT_BLOCKS;
  else if (active == by_regs)
    o->limiter = KS_OCCUPANCY_LIMIT_REGISTERS;
  else
    o->limiter = KS_OCCUPANCY_LIMIT_SHARED_MEMORY;
}

const char *
ks_occupancy_limit_describe (KsOccupancyLimit limit)
{
  switch (limit)
    {
    case KS_OCCUPANCY_LIMIT_WARPS: return "threads per multiprocessor";
    case KS_OCCUPANCY_LIMIT_BLOCKS: return "blocks per multiprocessor";
    case KS_OCCUPANCY_LIMIT_REGISTERS: return "registers";
    case KS_OCCUPANCY_LIMIT_SHARED_MEMORY: return "shared memory";
    case KS_OCCUPANCY_LIMIT_NONE:
    default: return "none";
    }
}
