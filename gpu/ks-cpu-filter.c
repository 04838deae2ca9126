/* ks-cpu-filter.c: the neighbourhood filters of ks-filter.h on the CPU, one
 * span of an output row at a time (the CPU engine's threads call it
 * concurrently, so everything lives on the stack).
 *
 * A span is cut into pieces of CHUNK pixels. For each source row of the
 * window, the piece's source pixels with their halo (clamped to the edge) are
 * unpacked into planar R, G, B arrays; the rows pass and the columns pass are
 * then plain loops over arrays that the compiler vectorises. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-pixel.h"

#define CHUNK 256
#define HALO_MAX (2 * KS_FILTER_MAX_RADIUS)

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

/* out[c][0 .. n) = Σ_t taps[t] · P(x0 + i + t − r) of one source row. */
static void
rows_pass (const guint8 *row, guint width, gint64 x0, guint n, const KsFilterParams *p,
           guint32 out[3][CHUNK])
{
  guint32 r_[CHUNK + HALO_MAX], g_[CHUNK + HALO_MAX], b_[CHUNK + HALO_MAX];
  guint radius = (guint) p->radius;
  guint m = n + 2 * radius;

  for (guint i = 0; i < m; i++)
    {
      guint32 v = load_px (row, clamp64 (x0 + i - (gint64) radius, (gint64) width - 1));
      r_[i] = KS_R (v);
      g_[i] = KS_G (v);
      b_[i] = KS_B (v);
    }
  memset (out, 0, sizeof (guint32) * 3 * CHUNK);
  for (guint t = 0; t <= 2 * radius; t++)
    {
      guint32 w = (guint32) p->taps[t];
      for (guint i = 0; i < n; i++)
        {
          out[0][i] += w * r_[i + t];
          out[1][i] += w * g_[i + t];
          out[2][i] += w * b_[i + t];
        }
    }
}

static void
separable_piece (const KsKernelRun *run, gint64 x0, guint y, guint n, guint8 *dst)
{
  const KsFilterParams *p = &run->filter;
  const KsBuffer *src = run->inputs[0];
  const guint8 *centre = src_row (src, y);
  guint32 acc[3][CHUNK], h[3][CHUNK];
  guint32 d = (guint32) p->divisor, half = d / 2;

  memset (acc, 0, sizeof acc);
  for (gint32 j = 0; j <= 2 * p->radius; j++)
    {
      guint32 w = (guint32) p->taps[j];

      rows_pass (src_row (src, (gint64) y + j - p->radius), src->width, x0, n, p, h);
      for (guint i = 0; i < n; i++)
        {
          acc[0][i] += w * h[0][i];
          acc[1][i] += w * h[1][i];
          acc[2][i] += w * h[2][i];
        }
    }

  for (guint i = 0; i < n; i++)
    {
      guint32 px = load_px (centre, x0 + i);
      guint32 br = (acc[0][i] + half) / d, bg = (acc[1][i] + half) / d;
      guint32 bb = (acc[2][i] + half) / d;
      guint32 v;

      if (p->kind == KS_FILTER_UNSHARP)
        v = KS_RGBA (ks_unsharp_channel ((gint32) KS_R (px), (gint32) br, p->amount),
                     ks_unsharp_channel ((gint32) KS_G (px), (gint32) bg, p->amount),
                     ks_unsharp_channel ((gint32) KS_B (px), (gint32) bb, p->amount), KS_A (px));
      else
        v = KS_RGBA (br, bg, bb, KS_A (px));
      memcpy (dst + 4 * i, &v, 4);
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
  for (guint i = 0; i < n; i++)
    {
      gint32 gx = (l[0][i + 2] + 2 * l[1][i + 2] + l[2][i + 2]) - (l[0][i] + 2 * l[1][i] + l[2][i]);
      gint32 gy = (l[2][i] + 2 * l[2][i + 1] + l[2][i + 2])
                  - (l[0][i] + 2 * l[0][i + 1] + l[0][i + 2]);
      dst[i] = (guint8) ks_sobel_value (gx, gy, run->filter.sobel_mode);
    }
}

void
_ks_cpu_filter_span (const KsKernelRun *run, guint x0, guint y, guint n)
{
  KsBuffer *out = run->output;
  guint bpp = run->filter.kind == KS_FILTER_SOBEL ? 1 : 4;
  guint8 *dst = (guint8 *) out->data + (gsize) y * out->pitch + (gsize) x0 * bpp;

  g_assert (run->filter.radius >= 0 && run->filter.radius <= KS_FILTER_MAX_RADIUS);
  for (guint done = 0; done < n; done += CHUNK)
    {
      guint m = MIN (CHUNK, n - done);

      if (run->filter.kind == KS_FILTER_SOBEL)
        sobel_piece (run, (gint64) x0 + done, y, m, dst + done);
      else
        separable_piece (run, (gint64) x0 + done, y, m, dst + (gsize) done * 4);
    }
}
