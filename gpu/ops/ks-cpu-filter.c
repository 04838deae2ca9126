/* ks-cpu-filter.c: the neighbourhood filters of ks-filter.h on the CPU, a
 * rectangle of output pixels at a time (the CPU engine's threads call it
 * concurrently).
 *
 * The separable filters work an output row at a time, in pieces of PIECE_W
 * pixels: the vertical pass first, straight from the source rows, then the
 * horizontal pass over its sums. Both run on 4 lanes per pixel, R, G, B and
 * alpha as they lie in memory (alpha computed and dropped: cheaper than
 * unpacking into planes), in plain loops over arrays that the compiler
 * vectorises. Taps that are zero at both ends are dropped. The sums are the
 * same integers as ks-filter.h's, only reached in another order. */
#include "config.h"

#include <string.h>

#include "ks-cpu-simd.h"
#include "ks-engine-private.h"
#include "ks-filter.h"
#include "ks-pixel.h"

#define CHUNK 256
#define PIECE_W 512
#define HALO_MAX (2 * KS_FILTER_MAX_RADIUS)

/* As in ks-cpu-engine.c: the hot loops also built for AVX2, chosen at load time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define KS_HOT __attribute__ ((target_clones ("avx2", "default"), optimize ("O3")))
#else
#define KS_HOT
#endif


static inline guint32
load_px (const guint8 *row, gint64 x)
{
  guint32 v;

  memcpy (&v, row + 4 * x, 4);
  return v;
}

static inline gint64
clamp64 (gint64 v, gint64 hi)
{
  return v < 0 ? 0 : (v > hi ? hi : v);
}

static const guint8 *
src_row (const KsBuffer *src, gint64 y)
{
  return (const guint8 *) src->data + (gsize) clamp64 (y, (gint64) src->height - 1) * src->pitch;
}

/* floor(x / d) for every 32-bit x, as a multiply and shifts (Granlund and
 * Montgomery, "Division by invariant integers using multiplication", fig. 4.1):
 * a division per channel and pixel is what kept the output loop scalar. */
typedef struct
{
  guint32 m;
  guint32 sh1;
  guint32 sh2;
} Divider;

static Divider
divider_new (guint32 d)
{
  Divider v;
  guint32 l = 0;

  g_assert (d >= 1);
  while (l < 32 && ((guint64) 1 << l) < d)
    l++;
  v.m = (guint32) ((((guint64) 1 << 32) * (((guint64) 1 << l) - d)) / d + 1);
  v.sh1 = MIN (l, 1u);
  v.sh2 = l > 0 ? l - 1 : 0;
  return v;
}

static inline guint32
divide (guint32 x, Divider v)
{
  guint32 t = (guint32) (((guint64) v.m * x) >> 32);
  return (t + ((x - t) >> v.sh1)) >> v.sh2;
}

/* The taps with the zero pairs at both ends dropped (radius e ≤ r): a zero
 * tap adds nothing whatever pixel it reads, so the sums are the same. σ 0.5's
 * "5 × 5" Gaussian is 0, 109, 806, 109, 0: three taps each way, not five. */
typedef struct
{
  guint e;
  gboolean symmetric;  /* w[t] = w[2e − t]: pairs of taps share a multiply */
  guint32 w[2 * KS_FILTER_MAX_RADIUS + 1];
} Taps;

static void
taps_trim (const KsFilterParams *p, Taps *t)
{
  guint r = (guint) p->radius, lo = 0;

  while (lo < r && p->taps[lo] == 0 && p->taps[2 * r - lo] == 0)
    lo++;
  t->e = r - lo;
  t->symmetric = TRUE;
  for (guint i = 0; i <= 2 * t->e; i++)
    {
      t->w[i] = (guint32) p->taps[lo + i];
      t->symmetric = t->symmetric && p->taps[lo + i] == p->taps[2 * r - lo - i];
    }
}

/* acc[i] = Σ_t w[t] · in[t][i], i < m, for 8-bit inputs (the source rows, the
 * vertical pass) and 32-bit ones (the vertical sums, the horizontal pass): a
 * few taps per loop, so that each loop is a plain vectorisable one over the
 * lanes, the pairs of a symmetric kernel added before their one multiply. */
#define KS_DEFINE_PASSES(SUFFIX, T)                                                              \
  KS_HOT static void                                                                            \
  centre_##SUFFIX (guint32 *restrict acc, const T *restrict c, guint32 wc, gsize m)             \
  {                                                                                             \
    for (gsize i = 0; i < m; i++)                                                               \
      acc[i] = wc * c[i];                                                                       \
  }                                                                                             \
  KS_HOT static void                                                                            \
  tap_##SUFFIX (guint32 *restrict acc, const T *restrict a, guint32 w, gsize m)                 \
  {                                                                                             \
    for (gsize i = 0; i < m; i++)                                                               \
      acc[i] += w * a[i];                                                                       \
  }                                                                                             \
  KS_HOT static void                                                                            \
  centre_pair_##SUFFIX (guint32 *restrict acc, const T *restrict c, guint32 wc,                 \
                        const T *restrict a, const T *restrict b, guint32 w, gsize m)           \
  {                                                                                             \
    for (gsize i = 0; i < m; i++)                                                               \
      acc[i] = wc * c[i] + w * ((guint32) a[i] + b[i]);                                         \
  }                                                                                             \
  KS_HOT static void                                                                            \
  pair_##SUFFIX (guint32 *restrict acc, const T *restrict a, const T *restrict b, guint32 w,    \
                 gsize m)                                                                       \
  {                                                                                             \
    for (gsize i = 0; i < m; i++)                                                               \
      acc[i] += w * ((guint32) a[i] + b[i]);                                                    \
  }                                                                                             \
  KS_HOT static void                                                                            \
  two_pairs_##SUFFIX (guint32 *restrict acc, const T *restrict a, const T *restrict b,          \
                      guint32 w, const T *restrict a2, const T *restrict b2, guint32 w2,        \
                      gsize m)                                                                  \
  {                                                                                             \
    for (gsize i = 0; i < m; i++)                                                               \
      acc[i] += w * ((guint32) a[i] + b[i]) + w2 * ((guint32) a2[i] + b2[i]);                   \
  }                                                                                             \
  static void                                                                                   \
  weighted_sum_##SUFFIX (guint32 *acc, const T *const *in, const Taps *t, gsize m)              \
  {                                                                                             \
    guint e = t->e;                                                                             \
    gint s;                                                                                     \
                                                                                                \
    if (!t->symmetric)                                                                          \
      {                                                                                         \
        centre_##SUFFIX (acc, in[0], t->w[0], m);                                               \
        for (guint k = 1; k <= 2 * e; k++)                                                      \
          tap_##SUFFIX (acc, in[k], t->w[k], m);                                                \
        return;                                                                                 \
      }                                                                                         \
    if (e == 0)                                                                                 \
      {                                                                                         \
        centre_##SUFFIX (acc, in[0], t->w[0], m);                                               \
        return;                                                                                 \
      }                                                                                         \
    centre_pair_##SUFFIX (acc, in[e], t->w[e], in[e - 1], in[e + 1], t->w[e - 1], m);           \
    for (s = (gint) e - 2; s >= 1; s -= 2)                                                      \
      two_pairs_##SUFFIX (acc, in[s], in[2 * e - s], t->w[s], in[s - 1], in[2 * e - s + 1],     \
                          t->w[s - 1], m);                                                      \
    if (s == 0)                                                                                 \
      pair_##SUFFIX (acc, in[0], in[2 * e], t->w[0], m);                                        \
  }

KS_DEFINE_PASSES (u8, guint8)
KS_DEFINE_PASSES (u32, guint32)
#undef KS_DEFINE_PASSES

/* dst[i] = round(acc[i] / divisor): a shift for the Gaussians' 2^20, the
 * Divider for the boxes' (2r + 1)². Every lane of a 4-channel row, alpha
 * too, in one plain loop; keep_alpha then puts the centre's alpha back
 * (faster than selecting the lanes inside the loop). */
KS_HOT static void
round_shift (const guint32 *restrict acc, gsize m, guint32 half, guint sh, guint8 *restrict dst)
{
  for (gsize i = 0; i < m; i++)
    dst[i] = (guint8) ((acc[i] + half) >> sh);
}

KS_HOT static void
round_divide (const guint32 *restrict acc, gsize m, guint32 half, Divider dv, guint8 *restrict dst)
{
  for (gsize i = 0; i < m; i++)
    dst[i] = (guint8) divide (acc[i] + half, dv);
}

KS_HOT static void
keep_alpha (const guint8 *restrict centre, guint n, guint8 *restrict dst)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 c, v;
      memcpy (&c, centre + 4 * i, 4);
      memcpy (&v, dst + 4 * i, 4);
      v = (v & 0x00ffffffu) | (c & 0xff000000u);
      memcpy (dst + 4 * i, &v, 4);
    }
}

/* The filter's parameters in a prepared run. */
static inline const KsFilterParams *
params_of (const KsKernelRun *run)
{
  return KS_RUN_PARAMS (run, const KsFilterParams);
}

/* Alpha lanes included; keep_alpha restores them afterwards. */
KS_HOT static void
unsharp_lanes (const guint8 *restrict centre, const guint8 *restrict blurred, gsize m,
               gint32 amount, guint8 *restrict dst)
{
  for (gsize i = 0; i < m; i++)
    dst[i] = (guint8) ks_unsharp_channel ((gint32) centre[i], (gint32) blurred[i], amount);
}

typedef struct
{
  Taps taps;
  guint32 half;
  gboolean pow2;  /* divisor = 2^shift */
  guint shift;
  Divider dv;
} Plan;

static void
plan_init (const KsFilterParams *p, Plan *pl)
{
  guint32 d = (guint32) p->divisor;

  taps_trim (p, &pl->taps);
  pl->half = d / 2;
  pl->pow2 = (d & (d - 1)) == 0;
  pl->shift = (guint) g_bit_nth_lsf (d, -1);
  pl->dv = divider_new (d);
}

/* Output pixels [x0, x0 + n) (n ≤ PIECE_W) of row y. The vertical pass first,
 * straight from the 2e + 1 source rows (in cache from the rows above) into
 * 4 lanes per pixel, alpha included, over the columns inside the image; the
 * clamped columns of the halo are copies of the edge ones, as a column's
 * vertical sum only depends on the column. Then the horizontal pass over
 * lanes 4 apart and the rounding. */
static void
separable_piece (const KsKernelRun *run, const Plan *pl, gint64 x0, guint y, guint n)
{
  const KsBuffer *src = run->inputs[0];
  guint e = pl->taps.e;
  gint64 first = x0 - (gint64) e, end = x0 + n + e;
  gint64 lo = MAX (first, 0), hi = MIN (end, (gint64) src->width);
  guint32 v[4 * (PIECE_W + HALO_MAX)], acc[4 * PIECE_W];
  guint8 blurred[4 * PIECE_W];
  const guint8 *rows[HALO_MAX + 1];
  const guint32 *cols[HALO_MAX + 1];
  const guint8 *centre = src_row (src, y) + 4 * x0;
  guint8 *dst = (guint8 *) run->output->data + (gsize) y * run->output->pitch + (gsize) x0 * 4;
  guint8 *out = params_of (run)->kind == KS_FILTER_UNSHARP ? blurred : dst;

  for (guint k = 0; k <= 2 * e; k++)
    rows[k] = src_row (src, (gint64) y - e + k) + 4 * lo;
  if (!pl->taps.symmetric
      || !_ks_cpu_simd_vsum_u8 (v + 4 * (lo - first), rows, pl->taps.w, e, 4 * (gsize) (hi - lo)))
    weighted_sum_u8 (v + 4 * (lo - first), rows, &pl->taps, 4 * (gsize) (hi - lo));
  for (gint64 x = first; x < lo; x++)
    memcpy (v + 4 * (x - first), v + 4 * (lo - first), 16);
  for (gint64 x = hi; x < end; x++)
    memcpy (v + 4 * (x - first), v + 4 * (hi - 1 - first), 16);

  /* The vector loop rounds and puts the centre's alpha back as it goes. */
  if (pl->taps.symmetric && pl->pow2
      && _ks_cpu_simd_hsum_shift (out, v, pl->taps.w, e, n, pl->half, pl->shift, centre))
    {
      if (params_of (run)->kind != KS_FILTER_UNSHARP)
        return;
    }
  else
    {
      for (guint k = 0; k <= 2 * e; k++)
        cols[k] = v + 4 * k;
      weighted_sum_u32 (acc, cols, &pl->taps, 4 * (gsize) n);
      if (pl->pow2)
        round_shift (acc, 4 * (gsize) n, pl->half, pl->shift, out);
      else
        round_divide (acc, 4 * (gsize) n, pl->half, pl->dv, out);
    }
  if (params_of (run)->kind == KS_FILTER_UNSHARP)
    unsharp_lanes (centre, blurred, 4 * (gsize) n, params_of (run)->amount, dst);
  keep_alpha (centre, n, dst);
}

static void
sobel_piece (const KsKernelRun *run, gint64 x0, guint y, guint n, guint8 *dst)
{
  const KsBuffer *src = run->inputs[0];
  gint32 l[3][CHUNK + 2];

  for (guint k = 0; k < 3; k++)
    {
      const guint8 *row = src_row (src, (gint64) y + k - 1);
      /* A gray image is its own luma: ks_luma601 of (v, v, v) is v. */
      if (src->format == KS_FORMAT_GRAY8)
        for (guint i = 0; i < n + 2; i++)
          l[k][i] = row[clamp64 (x0 + i - 1, (gint64) src->width - 1)];
      else
        for (guint i = 0; i < n + 2; i++)
          l[k][i] = (gint32) ks_luma601 (
            load_px (row, clamp64 (x0 + i - 1, (gint64) src->width - 1)), 0);
    }
  for (gsize i = 0; i < n; i++)
    {
      gint32 gx = (l[0][i + 2] + 2 * l[1][i + 2] + l[2][i + 2]) - (l[0][i] + 2 * l[1][i] + l[2][i]);
      gint32 gy = (l[2][i] + 2 * l[2][i + 1] + l[2][i + 2])
                  - (l[0][i] + 2 * l[0][i + 1] + l[0][i + 2]);
      dst[i] = (guint8) ks_sobel_value (gx, gy, params_of (run)->sobel_mode);
    }
}

void
_ks_cpu_filter_rect (const KsKernelRun *run, guint x0, guint y0, guint n, guint rows)
{
  KsBuffer *out = run->output;

  g_assert (params_of (run)->radius >= 0 && params_of (run)->radius <= KS_FILTER_MAX_RADIUS);
  if (params_of (run)->kind == KS_FILTER_SOBEL)
    {
      for (guint y = y0; y < y0 + rows; y++)
        {
          guint8 *dst = (guint8 *) out->data + (gsize) y * out->pitch + x0;
          for (guint done = 0; done < n; done += CHUNK)
            sobel_piece (run, (gint64) x0 + done, y, MIN (CHUNK, n - done), dst + done);
        }
      return;
    }
  {
    Plan pl;

    plan_init (params_of (run), &pl);
    for (guint y = y0; y < y0 + rows; y++)
      for (guint done = 0; done < n; done += PIECE_W)
        separable_piece (run, &pl, (gint64) x0 + done, y, MIN (PIECE_W, n - done));
  }
}
