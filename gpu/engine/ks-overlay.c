/* ks-overlay.c: the teaching overlays' colours (see ks-overlay.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-error.h"
#include "ks-overlay.h"

/* Eight hues far enough apart to tell neighbours apart on a projector:
 * blue, orange, green, red, purple, brown, pink, teal. R in the low byte. */
const guint32 ks_overlay_palette[KS_OVERLAY_PALETTE_SIZE] = {
  0xb47a1fu, 0x0e7fffu, 0x2ca02cu, 0x2827d6u, 0xbd6794u, 0x4b568cu, 0xc277e3u, 0xcfbe17u,
};

#define LINE_RGB 0x1a1a1au

static const char *const mode_names[KS_OVERLAY_N_MODES] = {
  "none", "block", "thread", "warp", "coverage",
};

const char *
ks_overlay_mode_to_string (KsOverlayMode mode)
{
  return (guint) mode < KS_OVERLAY_N_MODES ? mode_names[mode] : "none";
}

gboolean
ks_overlay_mode_from_string (const char *name, KsOverlayMode *mode)
{
  for (guint i = 0; name != NULL && i < KS_OVERLAY_N_MODES; i++)
    if (g_str_equal (name, mode_names[i]))
      {
        *mode = (KsOverlayMode) i;
        return TRUE;
      }
  return FALSE;
}

static void
split_block (const KsLaunchConfig *l, guint32 linear, KsDim3 *block)
{
  guint64 gx = MAX (l->grid.x, 1u), gy = MAX (l->grid.y, 1u);

  block->x = (guint32) (linear % gx);
  block->y = (guint32) ((linear / gx) % gy);
  block->z = (guint32) (linear / (gx * gy));
}

static void
split_thread (const KsLaunchConfig *l, guint32 linear, KsDim3 *thread)
{
  guint32 bx = MAX (l->block.x, 1u), by = MAX (l->block.y, 1u);

  thread->x = linear % bx;
  thread->y = (linear / bx) % by;
  thread->z = linear / (bx * by);
}

gboolean
ks_overlay_pixel_owner (const KsCoverage *coverage, const KsLaunchConfig *resolved, guint x,
                        guint y, KsPixelOwner *owner)
{
  gsize i;

  memset (owner, 0, sizeof *owner);
  if (coverage == NULL || coverage->writes == NULL || x >= coverage->width
      || y >= coverage->height)
    return FALSE;
  i = (gsize) y * coverage->width + x;
  owner->writes = coverage->writes[i];
  if (owner->writes == 0)
    return TRUE;
  split_block (resolved, coverage->owner_block[i], &owner->block);
  split_thread (resolved, coverage->owner_thread[i], &owner->thread);
  /* Warps are formed from the linear thread index, x fastest. */
  owner->warp = coverage->owner_thread[i] / 32;
  owner->lane = coverage->owner_thread[i] % 32;
  return TRUE;
}

void
ks_overlay_auto_owner (const KsLaunchConfig *resolved, guint x, guint y, KsDim3 *block,
                       KsDim3 *thread)
{
  guint ppt = resolved->pixels_per_thread != 0 ? resolved->pixels_per_thread : 1;
  guint bx = MAX (resolved->block.x, 1u), by = MAX (resolved->block.y, 1u);
  guint gx = x / ppt;

  block->x = gx / bx;
  block->y = y / by;
  block->z = 0;
  thread->x = gx % bx;
  thread->y = y % by;
  thread->z = 0;
}

void
ks_overlay_launch_extent (const KsLaunchConfig *resolved, guint64 *width, guint64 *height)
{
  guint ppt = resolved->pixels_per_thread != 0 ? resolved->pixels_per_thread : 1;

  *width = (guint64) resolved->grid.x * resolved->block.x * ppt;
  *height = (guint64) resolved->grid.y * resolved->block.y;
}

static guint32
shade (guint32 rgb, double f)
{
  guint32 out = 0;

  for (guint c = 0; c < 3; c++)
    out |= (guint32) lround (((rgb >> (8 * c)) & 0xff) * f) << (8 * c);
  return out;
}

guint32
ks_overlay_color (const KsCoverage *coverage, const KsLaunchConfig *resolved,
                  KsOverlayMode mode, guint x, guint y)
{
  KsPixelOwner o;

  if (!ks_overlay_pixel_owner (coverage, resolved, x, y, &o) || o.writes == 0)
    return KS_OVERLAY_NEVER_RGB;

  switch (mode)
    {
    case KS_OVERLAY_BLOCK:
      return ks_overlay_palette[(o.block.x + 3u * o.block.y) % KS_OVERLAY_PALETTE_SIZE];
    case KS_OVERLAY_THREAD:
      {
        /* threadIdx.x from black to red, threadIdx.y from black to green, so
         * that the thread's place in its block reads as a 2-D gradient. */
        guint r = resolved->block.x > 1 ? lround (o.thread.x * 255.0 / (resolved->block.x - 1)) : 0;
        guint g = resolved->block.y > 1 ? lround (o.thread.y * 255.0 / (resolved->block.y - 1)) : 0;

        return r | g << 8 | 0x40u << 16;
      }
    case KS_OVERLAY_WARP:
      /* Lane 0 darkest, lane 31 the full colour: a warp's 32 lanes in a row. */
      return shade (ks_overlay_palette[o.warp % KS_OVERLAY_PALETTE_SIZE],
                    0.45 + 0.55 * o.lane / 31.0);
    case KS_OVERLAY_COVERAGE:
      return o.writes == 1 ? KS_OVERLAY_ONCE_RGB : KS_OVERLAY_TWICE_RGB;
    case KS_OVERLAY_NONE:
    default:
      return 0;
    }
}

static guint32
linear_owner (const KsCoverage *c, guint x, guint y)
{
  gsize i = (gsize) y * c->width + x;

  /* An unwritten pixel is a region of its own. */
  return c->writes[i] == 0 ? G_MAXUINT32 : c->owner_block[i];
}

static guint8
blend (guint8 under, guint8 over, double opacity)
{
  return (guint8) lround (under * (1.0 - opacity) + over * opacity);
}

KsImage *
ks_overlay_compose (const KsImage *result, const KsCoverage *coverage,
                    const KsLaunchConfig *resolved, KsOverlayMode mode, double opacity,
                    GError **error)
{
  g_autoptr (KsImage) rgba = NULL;

  g_return_val_if_fail (result != NULL && resolved != NULL, NULL);
  if (coverage == NULL || coverage->writes == NULL || coverage->width != result->width
      || coverage->height != result->height)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The overlay needs the ownership data of a run of the result's size");
      return NULL;
    }
  rgba = ks_image_to_rgba (result);
  if (rgba == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory for the overlay");
      return NULL;
    }
  if (mode == KS_OVERLAY_NONE)
    return g_steal_pointer (&rgba);
  opacity = CLAMP (opacity, 0.0, 1.0);

  for (guint y = 0; y < rgba->height; y++)
    {
      guint8 *row = ks_image_row (rgba, y);

      for (guint x = 0; x < rgba->width; x++)
        {
          guint8 *p = row + 4 * (gsize) x;
          guint32 c = ks_overlay_color (coverage, resolved, mode, x, y);
          gboolean line = mode == KS_OVERLAY_BLOCK
                          && ((x > 0 && linear_owner (coverage, x - 1, y)
                                          != linear_owner (coverage, x, y))
                              || (y > 0 && linear_owner (coverage, x, y - 1)
                                             != linear_owner (coverage, x, y)));

          if (line)
            {
              /* The block grid is drawn opaque, like the view's lines. */
              p[0] = LINE_RGB & 0xff;
              p[1] = (LINE_RGB >> 8) & 0xff;
              p[2] = (LINE_RGB >> 16) & 0xff;
            }
          else
            {
              p[0] = blend (p[0], c & 0xff, opacity);
              p[1] = blend (p[1], (c >> 8) & 0xff, opacity);
              p[2] = blend (p[2], (c >> 16) & 0xff, opacity);
            }
          p[3] = 255;
        }
    }
  return g_steal_pointer (&rgba);
}
