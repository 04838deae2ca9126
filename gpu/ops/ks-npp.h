/* ks-npp.h: NVIDIA's NPP, loaded at run time, as the benchmark's reference.
 *
 * NPP is never linked: the libraries are opened with dlopen on first use, so
 * Kernelscope starts and runs where NPP is missing. Every call works on
 * caller-supplied device pointers and is ordered on the engine's stream.
 */
#pragma once

#include <glib.h>

#include "ks-engine.h"

G_BEGIN_DECLS

typedef struct _KsNpp KsNpp;

typedef enum
{
  KS_NPP_NOT_8U_AC4R,             /* invert R, G, B; alpha kept */
  KS_NPP_RGB_TO_GRAY_8U_AC4C1R,   /* RGBA8 → GRAY8 */
  KS_NPP_ADD_8U_C4RSFS,           /* saturating add, scale factor 0 (alpha added too) */
  KS_NPP_HISTOGRAM_EVEN_8U_C1R,   /* 256 bins of a GRAY8 image */
  KS_NPP_HISTOGRAM_EVEN_8U_C4R,   /* 256 bins per channel of an RGBA8 image */
  KS_NPP_RESIZE_8U_C4R_LINEAR,    /* src_width × src_height → width × height, linear */
  KS_NPP_RESIZE_8U_C4R_NN,        /* the same, NPPI_INTER_NN */
  KS_NPP_FILTER_GAUSS_BORDER_8U_C4R, /* 5×5 mask, border replicate */
  KS_NPP_FILTER_BOX_BORDER_8U_C4R,   /* 5×5 mean, anchor at the centre, border replicate */
  KS_NPP_FILTER_SOBEL_HORIZ_BORDER_8U_C1R, /* GRAY8 → GRAY8, 3×3, border replicate */
  KS_NPP_SWAP_CHANNELS_8U_C4R,    /* dst channel i = src channel order[i] */
  KS_NPP_LUT_PALETTE_8U_AC4R,     /* R, G, B each through its own 256-entry table; alpha kept */
  KS_NPP_THRESHOLD_8U_AC4R_GT,    /* R, G, B above thresholds[c] become thresholds[c]; alpha kept */
  KS_NPP_N_FUNCTIONS
} KsNppFunction;

/* One call's operands, all in device memory of the engine's device. Pitches
 * are in bytes. Image functions use src/dst; the histograms use src[0], hist
 * (256 counters per channel: hist[0] for C1R, hist[0..3] for C4R) and a
 * scratch buffer of at least ks_npp_scratch_size bytes. The palette lookup
 * reads tables[0..2], 256 bytes each in device memory (NPP's documentation:
 * "Host pointer to an array of 3 device memory pointers"); the threshold's
 * three levels are plain values, held here on the host. */
typedef struct
{
  KsNppFunction function;
  guint width;
  guint height;
  const guint8 *src[2];
  gsize src_pitch[2];
  guint8 *dst;
  gsize dst_pitch;
  gint32 *hist[4];
  guint8 *scratch;
  gsize scratch_size;
  guint src_width;     /* resize: the source's size (width × height is the output's) */
  guint src_height;
  int order[4];        /* swap channels */
  const guint8 *tables[3]; /* palette lookup: R, G, B tables of 256 bytes, device memory */
  guint8 thresholds[3];    /* threshold: R, G, B levels */
} KsNppCall;

/* The process-wide NPP, loaded on the first call; owned by the library. NULL
 * with KS_ERROR_UNAVAILABLE when NPP (or CUDA in this build) is missing. */
KsNpp      *ks_npp_get               (GError **error);
/* "13.0.1"; "" when NPP does not say. */
const char *ks_npp_get_version       (KsNpp *npp);
/* Whether this NPP has the function: the filter, geometry, data-exchange and
 * threshold libraries (and the palette lookup) are optional, so that the rows
 * that need them fail alone. */
gboolean    ks_npp_has               (KsNpp *npp, KsNppFunction function);
/* "nppiNot_8u_AC4R" */
const char *ks_npp_function_name     (KsNppFunction function);

/* The scratch memory the histogram functions need for this size; 0 for the others. */
gboolean    ks_npp_scratch_size      (KsNpp *npp, KsEngine *engine, KsNppFunction function,
                                      guint width, guint height, gsize *bytes, GError **error);

/* The call measured under the timing protocol (ks-timing.h) on the engine's
 * stream, as the engine measures its own kernels. */
gboolean    ks_npp_time              (KsNpp *npp, KsEngine *engine, const KsNppCall *call,
                                      const KsTimingOptions *options, KsTiming *timing,
                                      GError **error);

G_END_DECLS
