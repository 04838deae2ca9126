#pragma once

#include <glib.h>

#include "ks-device.h"
#include "ks-kernel-common.h"

G_BEGIN_DECLS

typedef KsMapMode KsLaunchMode;
#define KS_LAUNCH_PER_PIXEL KS_MAP_PER_PIXEL
#define KS_LAUNCH_GRID_STRIDE KS_MAP_GRID_STRIDE

/* A launch configuration as the user chose it. With auto_grid the grid is
 * derived from the data (ks_launch_config_resolve); otherwise `grid` is used
 * exactly, and a grid that is too small leaves pixels unwritten. */
typedef struct
{
  KsDim3 block;
  KsDim3 grid;
  gboolean auto_grid;
  KsLaunchMode mode;
  guint pixels_per_thread; /* 1, 2, 4, 8 or 16 consecutive pixels along x; 0: the op's default */
} KsLaunchConfig;

/* What the compiled kernel needs per block (from cudaFuncGetAttributes on CUDA). */
typedef struct
{
  guint num_regs;            /* per thread */
  guint64 shared_static;     /* bytes per block */
  guint64 shared_dynamic;    /* bytes per block requested at launch */
  guint64 local_bytes;       /* per thread */
  guint max_threads_per_block; /* the kernel's own limit (launch bounds, registers) */
} KsKernelAttributes;

typedef enum
{
  KS_OCCUPANCY_LIMIT_NONE,
  KS_OCCUPANCY_LIMIT_WARPS,      /* threads (warps) per multiprocessor */
  KS_OCCUPANCY_LIMIT_BLOCKS,     /* blocks per multiprocessor */
  KS_OCCUPANCY_LIMIT_REGISTERS,
  KS_OCCUPANCY_LIMIT_SHARED_MEMORY,
} KsOccupancyLimit;

typedef struct
{
  guint active_blocks_per_sm;
  guint active_warps_per_sm;
  guint max_warps_per_sm;
  double occupancy;          /* active / max warps, 0..1 */
  KsOccupancyLimit limiter;
} KsOccupancy;

/* Totals of a resolved configuration over a width × height image. */
typedef struct
{
  guint64 threads;
  guint64 blocks;
  guint64 pixels;
  guint64 idle_threads;  /* threads that reach no pixel (geometry only) */
  guint64 unreached_pixels; /* pixels no thread reaches */
} KsLaunchTotals;

void         ks_dim3_format              (const KsDim3 *d, char *buf, gsize len);
/* "16x16", "256", "32x8x1": 1 to 3 positive integers. */
gboolean     ks_dim3_parse               (const char *text, KsDim3 *out, GError **error);

/* A mapping's name in every file Kernelscope writes: "per-pixel", "grid-stride". */
const char  *ks_launch_mode_to_string    (KsLaunchMode mode);
gboolean     ks_launch_mode_from_string  (const char *text, KsLaunchMode *mode);

void         ks_launch_config_init       (KsLaunchConfig *config, guint bx, guint by);
/* Fills in the grid (when auto) and pixels_per_thread (when 0) for the image. */
void         ks_launch_config_resolve    (KsLaunchConfig *config, guint width, guint height,
                                          guint default_pixels_per_thread,
                                          const KsDeviceLimits *limits);
/* An automatic grid-stride grid, once the kernel is known: no more blocks
 * than stay resident together (its occupancy), so that the whole grid runs as
 * one wave. A second, partial wave would leave most multiprocessors idle
 * while it drains. Other configurations are left as they are. */
void         ks_launch_config_fit_occupancy (KsLaunchConfig *config, guint width, guint height,
                                             const KsDeviceLimits *limits,
                                             const KsKernelAttributes *attrs);
void         ks_launch_config_to_geometry (const KsLaunchConfig *config, guint width, guint height,
                                           KsGeometry *geom);
void         ks_launch_totals            (const KsLaunchConfig *resolved, guint width, guint height,
                                          KsLaunchTotals *totals);

/* Checks a resolved configuration against the device's limits and the kernel's
 * needs. On failure: KS_ERROR_LAUNCH_CONFIG, a message naming the limit with
 * the numbers, and a valid configuration in *suggestion (when not NULL). */
gboolean     ks_launch_config_validate   (const KsLaunchConfig *resolved,
                                          guint width, guint height,
                                          const KsDeviceLimits *limits,
                                          const KsKernelAttributes *attrs,
                                          KsLaunchConfig *suggestion,
                                          GError **error);

/* The launch rule for a configuration that is not resolved and has no kernel
 * (one restored from a session or the settings, a lesson's): a block of at
 * least one thread in each dimension within the device's block dimensions and
 * threads per block, a manual grid of at least one block in each dimension
 * within its grid dimensions, and 0 (the op's own) or 1, 2, 4, 8 or 16 pixels
 * per thread. The same limits, in the same words, as ks_launch_config_validate.
 * Code without a device at hand passes the CPU device's limits, which are
 * CUDA's; limits NULL checks the shape alone (no zero side, a valid number
 * of pixels per thread): what any launch must be, whatever the device. On
 * failure: KS_ERROR_LAUNCH_CONFIG, and in *field (when not NULL) the member at
 * fault: "block", "grid" or "pixels_per_thread"; NULL when valid. */
gboolean     ks_launch_config_check_limits (const KsLaunchConfig *config,
                                            const KsDeviceLimits *limits,
                                            const char **field,
                                            GError **error);

/* The kernel's needs for another configuration (shared memory can depend on
 * the block and the pixels per thread). */
typedef gboolean (*KsKernelAttributesFunc) (const KsLaunchConfig *candidate,
                                            KsKernelAttributes *attrs, gpointer user_data);

/* As ks_launch_config_validate, but the suggestion is checked against the
 * kernel's needs for the suggested configuration itself, and shrunk (pixels
 * per thread first, then the block) until it fits. */
gboolean     ks_launch_config_validate_full (const KsLaunchConfig *resolved,
                                             guint width, guint height,
                                             const KsDeviceLimits *limits,
                                             const KsKernelAttributes *attrs,
                                             KsKernelAttributesFunc attrs_func,
                                             gpointer user_data,
                                             KsLaunchConfig *suggestion,
                                             GError **error);

/* Theoretical occupancy of a valid configuration. */
void         ks_launch_occupancy         (const KsLaunchConfig *resolved,
                                          const KsDeviceLimits *limits,
                                          const KsKernelAttributes *attrs,
                                          KsOccupancy *occupancy);
const char  *ks_occupancy_limit_describe (KsOccupancyLimit limit);

G_END_DECLS
