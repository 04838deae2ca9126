/* ks-cpu-filter.c: the neighbourhood filters of ks-filter.h on the CPU, a
 * rectangle of output pixels at a time (the CPU engine's threads call it
 * concurrently; what persists between calls lives in the calling thread's
 * scratch).
 *
 * The separable filters cut the rectangle's columns into pieces of PIECE_W
 * pixels. Down a piece, the rows pass of each source row (its pixels with the
 * halo, clamped to the edge, unpacked into planar R, G, B arrays and summed
 * along the taps) is computed once into a ring of 2r + 1 rows and reused by
 * the 2r + 1 output rows that need it; the columns pass then sums the ring.
 * All are plain loops over arrays that the compiler vectorises. The sums are
 * the same integers as ks-filter.h's, only reached in another order. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
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

typedef struct
{
  guint radius;
  guint32 *ring;  /* (2r + 1) × 3 × PIECE_W: rows pass of source rows, by row mod 2r + 1 */
} Scratch;

static Scratch *
scratch_get (gpointer *scratch, guint radius)
{
  Scratch *s = *scratch;

  if (s == NULL || s->radius != radius)
    {
      g_free (s);
      s = g_malloc (sizeof (Scratch) + sizeof (guint32) * 3 * PIECE_W * (2 * radius + 1));
      s->radius = radius;
      s->ring = (guint32 *) (s + 1);
      *scratch = s;
    }
  return s;
}

/* r_, g_, b_[0 .. n + 2r) = the channels of P(x0 − r … x0 + n + r − 1) of a row. */
KS_HOT static void
unpack_row (const guint8 *row, guint width, gint64 x0, guint n, guint radius, guint32 *r_,
            guint32 *g_, guint32 *b_)
{
  gint64 first = x0 - (gint64) radius, end = x0 + n + radius;
  gint64 lo = MAX (first, 0), hi = MIN (end, (gint64) width);
  guint32 v;

  for (gint64 x = first; x < lo; x++)
    {
      v = load_px (row, 0);
      r_[x - first] = KS_R (v);
      g_[x - first] = KS_G (v);
      b_[x - first] = KS_B (v);
    }
  {
    const guint8 *src = row + 4 * lo;
    guint32 *rr = r_ + (lo - first), *gg = g_ + (lo - first), *bb = b_ + (lo - first);
    guint m = (guint) (hi - lo);
    for (guint i = 0; i < m; i++)
      {
        memcpy (&v, src + 4 * i, 4);
        rr[i] = KS_R (v);
        gg[i] = KS_G (v);
        bb[i] = KS_B (v);
      }
  }
  for (gint64 x = hi; x < end; x++)
    {
      v = load_px (row, (gint64) width - 1);
      r_[x - first] = KS_R (v);
      g_[x - first] = KS_G (v);
      b_[x - first] = KS_B (v);
    }
}

/* out[c · PIECE_W + i] = Σ_t taps[t] · P(x0 + i + t − r) of one source row. */
KS_HOT static void
rows_pass (const guint8 *row, guint width, gint64 x0, guint n, const KsFilterParams *p,
           guint32 *out)
{
  guint32 r_[PIECE_W + HALO_MAX], g_[PIECE_W + HALO_MAX], b_[PIECE_W + HALO_MAX];
  guint radius = (guint) p->radius;
  guint32 *o0 = out, *o1 = out + PIECE_W, *o2 = out + 2 * PIECE_W;

  unpack_row (row, width, x0, n, radius, r_, g_, b_);
  for (gsize i = 0; i < n; i++)
    {
      guint32 w = (guint32) p->taps[0];
      o0[i] = w * r_[i];
      o1[i] = w * g_[i];
      o2[i] = w * b_[i];
    }
  for (guint t = 1; t <= 2 * radius; t++)
    {
      guint32 w = (guint32) p->taps[t];
      for (gsize i = 0; i < n; i++)
        {
          o0[i] += w * r_[i + t];
          o1[i] += w * g_[i + t];
          o2[i] += w * b_[i + t];
        }
    }
}

/* acc[c · PIECE_W + i] = Σ_j taps[j] · h_j, the ring's rows in window order. */
KS_HOT static void
columns_pass (guint32 *const *h, guint n, const KsFilterParams *p, guint32 *acc)
{
  guint k = 2 * (guint) p->radius + 1;

  for (guint c = 0; c < 3; c++)
    {
      guint32 *a = acc + c * PIECE_W;
      const guint32 *h0 = h[0] + c * PIECE_W;
      guint32 w0 = (guint32) p->taps[0];

      for (gsize i = 0; i < n; i++)
        a[i] = w0 * h0[i];
      for (guint j = 1; j < k; j++)
        {
          const guint32 *hj = h[j] + c * PIECE_W;
          guint32 w = (guint32) p->taps[j];
          for (gsize i = 0; i < n; i++)
            a[i] += w * hj[i];
        }
    }
}

/* The rounded blur, alpha from the centre pixel. */
KS_HOT static void
blur_out (const guint8 *centre, const guint32 *acc, guint n, guint32 half, Divider dv,
          guint8 *dst)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 px, v;
      memcpy (&px, centre + 4 * i, 4);
      v = divide (acc[i] + half, dv) | (divide (acc[PIECE_W + i] + half, dv) << 8)
          | (divide (acc[2 * PIECE_W + i] + half, dv) << 16) | (px & 0xff000000u);
      memcpy (dst + 4 * i, &v, 4);
    }
}

static void
unsharp_out (const guint8 *centre, const guint32 *acc, guint n, guint32 half, Divider dv,
             gint32 amount, guint8 *dst)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 px = load_px (centre, i);
      gint32 br = (gint32) divide (acc[i] + half, dv);
      gint32 bg = (gint32) divide (acc[PIECE_W + i] + half, dv);
      gint32 bb = (gint32) divide (acc[2 * PIECE_W + i] + half, dv);
      guint32 v = KS_RGBA (ks_unsharp_channel ((gint32) KS_R (px), br, amount),
                           ks_unsharp_channel ((gint32) KS_G (px), bg, amount),
                           ks_unsharp_channel ((gint32) KS_B (px), bb, amount), KS_A (px));
      memcpy (dst + 4 * i, &v, 4);
    }
}

/* Output pixels [x0, x0 + n) (n ≤ PIECE_W) of rows [y0, y0 + rows). */
static void
separable_piece (const KsKernelRun *run, gint64 x0, guint y0, guint n, guint rows,
                 Scratch *scratch)
{
  const KsFilterParams *p = &run->filter;
  const KsBuffer *src = run->inputs[0];
  const KsBuffer *out = run->output;
  guint radius = (guint) p->radius, k = 2 * radius + 1;
  guint32 acc[3 * PIECE_W];
  guint32 *window[2 * KS_FILTER_MAX_RADIUS + 1];
  Divider dv = divider_new ((guint32) p->divisor);
  guint32 half = (guint32) p->divisor / 2;
  /* Source rows by their unclamped index v ≥ y0 − r; row v lives in ring slot (v − y0 + r) mod k. */
  gint64 vbase = (gint64) y0 - radius;

  for (guint v = 0; v + 1 < k; v++)
    rows_pass (src_row (src, vbase + v), src->width, x0, n, p, scratch->ring + (gsize) v * 3 * PIECE_W);
  for (guint r = 0; r < rows; r++)
    {
      guint y = y0 + r;
      guint newest = r + k - 1;
      guint8 *dst = (guint8 *) out->data + (gsize) y * out->pitch + (gsize) x0 * 4;

      rows_pass (src_row (src, vbase + newest), src->width, x0, n, p,
                 scratch->ring + (gsize) (newest % k) * 3 * PIECE_W);
      for (guint j = 0; j < k; j++)
        window[j] = scratch->ring + (gsize) ((r + j) % k) * 3 * PIECE_W;
      columns_pass (window, n, p, acc);
      if (p->kind == KS_FILTER_UNSHARP)
        unsharp_out (src_row (src, y) + x0 * 4, acc, n, half, dv, p->amount, dst);
      else
        blur_out (src_row (src, y) + x0 * 4, acc, n, half, dv, dst);
    }
}

static void
sobel_piece (const KsKernelRun *run, gint64 x0, guint y, guint n, guint8 *dst)
{
  const KsBuffer *src = run->inputs[0];
  gint32 l[3][CHUNK + 2];

  for (guint k = 0; k < 3; k++)
    {
      const guint8 *row = src_row (src, (gint64) y + k - 1);
      for (guint i = 0; i < n + 2; i++)
        l[k][i] = (gint32) ks_luma601 (load_px (row, clamp64 (x0 + i - 1, (gint64) src->width - 1)),
                                       0);
    }
  for (gsize i = 0; i < n; i++)
    {
      gint32 gx = (l[0][i + 2] + 2 * l[1][i + 2] + l[2][i + 2]) - (l[0][i] + 2 * l[1][i] + l[2][i]);
      gint32 gy = (l[2][i] + 2 * l[2][i + 1] + l[2][i + 2])
                  - (l[0][i] + 2 * l[0][i + 1] + l[0][i + 2]);
      dst[i] = (guint8) ks_sobel_value (gx, gy, run->filter.sobel_mode);
    }
}

void
_ks_cpu_filter_rect (const KsKernelRun *run, guint x0, guint y0, guint n, guint rows,
                     gpointer *scratch)
{
  KsBuffer *out = run->output;

  g_assert (run->filter.radius >= 0 && run->filter.radius <= KS_FILTER_MAX_RADIUS);
  if (run->filter.kind == KS_FILTER_SOBEL)
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
    Scratch *s = scratch_get (scratch, (guint) run->filter.radius);
    for (guint done = 0; done < n; done += PIECE_W)
      separable_piece (run, (gint64) x0 + done, y0, MIN (PIECE_W, n - done), rows, s);
  }
}

void
_ks_cpu_filter_span (const KsKernelRun *run, guint x0, guint y, guint n)
{
  gpointer scratch = NULL;

  _ks_cpu_filter_rect (run, x0, y, n, 1, &scratch);
  g_free (scratch);
}
