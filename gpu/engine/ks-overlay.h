/* ks-overlay.h: the teaching overlays — every output pixel coloured by the
 * block, the thread or the warp that wrote it, or by how often it was
 * written, from a run's KsCoverage and the launch that ran.
 *
 * The image view's shader draws the same colours on the GPU
 * (resources/shaders/image-view.frag.glsl); the functions here are their
 * reference (tests compare the two) and what an exported overlay image is
 * made of. */
#pragma once

#include "ks-engine.h"

G_BEGIN_DECLS

typedef enum
{
  KS_OVERLAY_NONE = 0,
  KS_OVERLAY_BLOCK,     /* one colour a block, the block grid drawn as lines */
  KS_OVERLAY_THREAD,    /* threadIdx.x as red, threadIdx.y as green */
  KS_OVERLAY_WARP,      /* one colour a warp, its lanes shaded dark to light */
  KS_OVERLAY_COVERAGE,  /* never written, written once, written more than once */
} KsOverlayMode;

#define KS_OVERLAY_N_MODES (KS_OVERLAY_COVERAGE + 1)

/* "none", "block", "thread", "warp", "coverage". */
const char    *ks_overlay_mode_to_string   (KsOverlayMode mode);
/* FALSE for a name that is none of those. */
gboolean       ks_overlay_mode_from_string (const char *name, KsOverlayMode *mode);

/* The palette of the block and warp modes: index (bx + 3·by) mod 8 for a
 * block, so that no two blocks that touch share a colour; warp mod 8 for a
 * warp. Packed RGB (R in the low byte). */
#define KS_OVERLAY_PALETTE_SIZE 8
extern const guint32 ks_overlay_palette[KS_OVERLAY_PALETTE_SIZE];

/* The coverage colours. */
#define KS_OVERLAY_NEVER_RGB 0xff00ffu   /* magenta */
#define KS_OVERLAY_ONCE_RGB  0x40c040u   /* green */
#define KS_OVERLAY_TWICE_RGB 0x2020ffu   /* red: written more than once */
#define KS_OVERLAY_IDLE_RGB  0xa07850u   /* the launch's threads beyond the image */

/* Who wrote pixel (x, y), from the coverage of a run with this resolved
 * launch. */
typedef struct
{
  guint writes;            /* 0: no thread wrote it */
  KsDim3 block;            /* blockIdx of the last writer */
  KsDim3 thread;           /* threadIdx of the last writer */
  guint warp, lane;        /* its warp within the block and lane within the warp */
} KsPixelOwner;

gboolean       ks_overlay_pixel_owner      (const KsCoverage *coverage,
                                            const KsLaunchConfig *resolved,
                                            guint x, guint y, KsPixelOwner *owner);

/* The thread that covers pixel (x, y) with an automatic grid of the same
 * block and pixels per thread, one pass (the grid a pixel left unwritten
 * should have had). */
void           ks_overlay_auto_owner       (const KsLaunchConfig *resolved, guint x, guint y,
                                            KsDim3 *block, KsDim3 *thread);

/* The colour of one written or unwritten pixel in a mode, packed RGB. */
guint32        ks_overlay_color            (const KsCoverage *coverage,
                                            const KsLaunchConfig *resolved,
                                            KsOverlayMode mode, guint x, guint y);

/* The launch's full extent in pixels (grid × block × pixels per thread along
 * x, grid × block along y): larger than the image when threads fell outside. */
void           ks_overlay_launch_extent    (const KsLaunchConfig *resolved,
                                            guint64 *width, guint64 *height);

/* The overlay blended over an RGBA8 or GRAY8 result at opacity 0..1, as an
 * RGBA8 image of the result's size: what the view shows, at one image pixel
 * per screen pixel, with the block grid's lines on the pixels right of and
 * below a boundary. NULL with an error when the sizes differ. */
KsImage       *ks_overlay_compose          (const KsImage *result, const KsCoverage *coverage,
                                            const KsLaunchConfig *resolved,
                                            KsOverlayMode mode, double opacity, GError **error);

G_END_DECLS
