/* ks-cpu-resize.c: the CPU engine's resampling, the formulas of ks-resize.h
 * applied as they stand so that it agrees with the CUDA kernel to the bit. */
#include "config.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-resize.h"

static inline guint32
load_px (const guint8 *row, guint x)
{
  guint32 p;

  /* memcpy: rows of a host buffer need not be 4-byte aligned. */
  memcpy (&p, row + (gsize) x * 4, sizeof p);
  return p;
}

void
_ks_cpu_resize_span (const KsKernelRun *run, guint x0, guint y, guint n)
{
  const KsResizeParams *rp = KS_RUN_PARAMS (run, const KsResizeParams);
  const KsBuffer *src = run->inputs[0];
  const KsBuffer *dst = run->output;
  const guint8 *base = (const guint8 *) src->data;
  guint8 *out = (guint8 *) dst->data + (gsize) y * dst->pitch + (gsize) x0 * 4;
  guint32 y0, y1, wy;
  const guint8 *r0, *r1;

  ks_resize_axis (y, rp->src_height, dst->height, rp->mode, &y0, &y1, &wy);
  r0 = base + (gsize) y0 * src->pitch;
  r1 = base + (gsize) y1 * src->pitch;

  if (rp->mode == KS_RESIZE_NEAREST)
    {
      for (guint i = 0; i < n; i++)
        {
          guint32 sx, sx1, w, p;
          ks_resize_axis (x0 + i, rp->src_width, dst->width, rp->mode, &sx, &sx1, &w);
          p = load_px (r0, sx);
          memcpy (out + 4 * i, &p, sizeof p);
        }
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      guint32 xa, xb, wx, p;
      ks_resize_axis (x0 + i, rp->src_width, dst->width, rp->mode, &xa, &xb, &wx);
      p = ks_resize_blend (load_px (r0, xa), load_px (r0, xb), load_px (r1, xa), load_px (r1, xb),
                           wx, wy);
      memcpy (out + 4 * i, &p, sizeof p);
    }
}
