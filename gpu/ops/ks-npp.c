/* ks-npp.c: NPP loaded at run time (ks-npp.h), each function it calls one
 * row of KS_NPP_FUNCTION_ROWS. One piece because NPP's ABI is declared here
 * (its headers are not needed to build), and the loader, the table of
 * entry points and the timed calls all use those declarations. */
#include "config.h"

#include "ks-npp.h"

#include <string.h>

#include "ks-engine-private.h"
#include "ks-error.h"

#if HAVE_CUDA
# include <dlfcn.h>
# include <cuda_runtime_api.h>
#endif

/* One row a function: its id, its name in reports, the entry point of KsNpp
 * it calls (NULL there: this NPP lacks it), what a call must carry
 * (NEEDS_*), and the function that converts the call's operands and calls
 * NPP (CUDA builds only). A new peer is one row here, its entry point and
 * its caller below. */
#define KS_NPP_FUNCTION_ROWS(X)                                                                   \
  X (KS_NPP_NOT_8U_AC4R, "nppiNot_8u_AC4R", not_ac4r, NEEDS_DST, run_not)                         \
  X (KS_NPP_RGB_TO_GRAY_8U_AC4C1R, "nppiRGBToGray_8u_AC4C1R", rgb_to_gray, NEEDS_DST,             \
     run_rgb_to_gray)                                                                             \
  X (KS_NPP_ADD_8U_C4RSFS, "nppiAdd_8u_C4RSfs", add_c4rsfs, NEEDS_DST | NEEDS_SRC1, run_add)      \
  X (KS_NPP_HISTOGRAM_EVEN_8U_C1R, "nppiHistogramEven_8u_C1R", hist_c1r,                          \
     NEEDS_HIST1 | NEEDS_SCRATCH, run_hist_c1r)                                                   \
  X (KS_NPP_HISTOGRAM_EVEN_8U_C4R, "nppiHistogramEven_8u_C4R", hist_c4r,                          \
     NEEDS_HIST4 | NEEDS_SCRATCH, run_hist_c4r)                                                   \
  X (KS_NPP_RESIZE_8U_C4R_LINEAR, "nppiResize_8u_C4R[linear]", resize_c4r,                        \
     NEEDS_DST | NEEDS_SRC_SIZE, run_resize)                                                      \
  X (KS_NPP_RESIZE_8U_C4R_NN, "nppiResize_8u_C4R[nn]", resize_c4r, NEEDS_DST | NEEDS_SRC_SIZE,    \
     run_resize)                                                                                  \
  X (KS_NPP_FILTER_GAUSS_BORDER_8U_C4R, "nppiFilterGaussBorder_8u_C4R", gauss_c4r, NEEDS_DST,     \
     run_gauss)                                                                                   \
  X (KS_NPP_FILTER_BOX_BORDER_8U_C4R, "nppiFilterBoxBorder_8u_C4R", box_c4r, NEEDS_DST, run_box)  \
  X (KS_NPP_FILTER_SOBEL_HORIZ_BORDER_8U_C1R, "nppiFilterSobelHorizBorder_8u_C1R",                \
     sobel_horiz_c1r, NEEDS_DST, run_sobel)                                                       \
  X (KS_NPP_SWAP_CHANNELS_8U_C4R, "nppiSwapChannels_8u_C4R", swap_c4r, NEEDS_DST, run_swap)       \
  X (KS_NPP_LUT_PALETTE_8U_AC4R, "nppiLUTPalette_8u_AC4R", lut_palette_ac4r,                      \
     NEEDS_DST | NEEDS_TABLES, run_lut_palette)                                                   \
  X (KS_NPP_THRESHOLD_8U_AC4R_GT, "nppiThreshold_8u_AC4R[gt]", threshold_ac4r, NEEDS_DST,         \
     run_threshold)

static const char *const function_names[KS_NPP_N_FUNCTIONS] = {
#define KS_X_NAME(id, name, entry, needs, run) [id] = name,
  KS_NPP_FUNCTION_ROWS (KS_X_NAME)
#undef KS_X_NAME
};

const char *
ks_npp_function_name (KsNppFunction function)
{
  g_return_val_if_fail (function < KS_NPP_N_FUNCTIONS, NULL);

  return function_names[function];
}

#if HAVE_CUDA

/* NPP's ABI, declared here because NPP's headers are not needed to build
 * (and are absent on machines without the full toolkit). CUDA 13's NPP only
 * has the _Ctx entry points, which take the stream context by value. */
typedef int NppStatus; /* 0 success, < 0 error, > 0 warning */
typedef struct
{
  int width;
  int height;
} NppiSize;

typedef struct
{
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
} NppStreamContext;

typedef struct
{
  int major;
  int minor;
  int build;
} NppLibraryVersion;

typedef NppStatus (*NotAC4RFunc) (const guint8 *src, int src_step, guint8 *dst, int dst_step,
                                  NppiSize roi, NppStreamContext ctx);
typedef NppStatus (*RGBToGrayFunc) (const guint8 *src, int src_step, guint8 *dst, int dst_step,
                                    NppiSize roi, NppStreamContext ctx);
typedef NppStatus (*AddC4RSfsFunc) (const guint8 *a, int a_step, const guint8 *b, int b_step,
                                    guint8 *dst, int dst_step, NppiSize roi, int scale_factor,
                                    NppStreamContext ctx);
/* The size argument became size_t in CUDA 12 (it was int before): callers
 * pass a zeroed size_t, which reads right under either declaration on a
 * little-endian machine. */
typedef NppStatus (*HistBufSizeC1RFunc) (NppiSize roi, int n_levels, size_t *bytes,
                                         NppStreamContext ctx);
typedef NppStatus (*HistBufSizeC4RFunc) (NppiSize roi, int n_levels[4], size_t *bytes,
                                         NppStreamContext ctx);
typedef NppStatus (*HistEvenC1RFunc) (const guint8 *src, int src_step, NppiSize roi,
                                      gint32 *hist, int n_levels, gint32 lower, gint32 upper,
                                      guint8 *buffer, NppStreamContext ctx);
typedef NppStatus (*HistEvenC4RFunc) (const guint8 *src, int src_step, NppiSize roi,
                                      gint32 *hist[4], int n_levels[4], gint32 lower[4],
                                      gint32 upper[4], guint8 *buffer, NppStreamContext ctx);
typedef const NppLibraryVersion *(*GetLibVersionFunc) (void);

typedef struct
{
  int x;
  int y;
} NppiPoint;

typedef struct
{
  int x;
  int y;
  int width;
  int height;
} NppiRect;

/* nppdefs.h: NPPI_INTER_NN = 1, NPPI_INTER_LINEAR = 2; NPP_MASK_SIZE_5_X_5 =
 * 201 (NPP_MASK_SIZE_3_X_3 = 200, then 5×5); NPP_BORDER_REPLICATE = 2. Enums
 * are passed as int. */
#define NPP_INTER_NN 1
#define NPP_INTER_LINEAR 2
#define NPP_MASK_5_X_5 201
#define NPP_BORDER_REPLICATE 2
/* nppdefs.h's NppCmpOp: LESS, LESS_EQ, EQ, GREATER_EQ, GREATER, from 0. */
#define NPP_CMP_GREATER 4
/* Every bit of an 8-bit value indexes the palette: 256 entries. */
#define PALETTE_BITS 8

typedef NppStatus (*ResizeC4RFunc) (const guint8 *src, int src_step, NppiSize src_size,
                                    NppiRect src_roi, guint8 *dst, int dst_step,
                                    NppiSize dst_size, NppiRect dst_roi, int interpolation,
                                    NppStreamContext ctx);
typedef NppStatus (*GaussBorderFunc) (const guint8 *src, int src_step, NppiSize src_size,
                                      NppiPoint src_offset, guint8 *dst, int dst_step,
                                      NppiSize roi, int mask, int border, NppStreamContext ctx);
typedef NppStatus (*BoxBorderFunc) (const guint8 *src, int src_step, NppiSize src_size,
                                    NppiPoint src_offset, guint8 *dst, int dst_step,
                                    NppiSize roi, NppiSize mask, NppiPoint anchor, int border,
                                    NppStreamContext ctx);
typedef NppStatus (*SobelBorderFunc) (const guint8 *src, int src_step, NppiSize src_size,
                                      NppiPoint src_offset, guint8 *dst, int dst_step,
                                      NppiSize roi, int border, NppStreamContext ctx);
typedef NppStatus (*SwapChannelsFunc) (const guint8 *src, int src_step, guint8 *dst,
                                       int dst_step, NppiSize roi, const int order[4],
                                       NppStreamContext ctx);

/* nppi_color_conversion.h (libnppicc): "pTables Host pointer to an array of 3
 * device memory pointers, one per color CHANNEL, pointing to user defined
 * OUTPUT palette values"; nBitSize, 1 to 8, is how many low bits of each
 * source value index the table: 8 makes it a plain 256-entry lookup. Alpha
 * "is not processed". */
typedef NppStatus (*LUTPaletteAC4RFunc) (const guint8 *src, int src_step, guint8 *dst,
                                         int dst_step, NppiSize roi, const guint8 *tables[3],
                                         int bit_size, NppStreamContext ctx);
/* nppi_threshold_and_compare_operations.h (libnppitc): where (channel OP
 * threshold) holds the channel becomes the threshold, else it is copied;
 * only NPP_CMP_LESS and NPP_CMP_GREATER are valid. The thresholds are values,
 * not device memory. Alpha is not affected. */
typedef NppStatus (*ThresholdAC4RFunc) (const guint8 *src, int src_step, guint8 *dst,
                                        int dst_step, NppiSize roi, const guint8 thresholds[3],
                                        int comparison, NppStreamContext ctx);

/* 257 levels from 0 to 256: 256 bins of width one, one per 8-bit value. */
#define HIST_LEVELS 257
#define HIST_LOWER 0
#define HIST_UPPER 256

struct _KsNpp
{
  char version[32];
  NotAC4RFunc not_ac4r;
  RGBToGrayFunc rgb_to_gray;
  AddC4RSfsFunc add_c4rsfs;
  HistBufSizeC1RFunc hist_buf_c1r;
  HistBufSizeC4RFunc hist_buf_c4r;
  HistEvenC1RFunc hist_c1r;
  HistEvenC4RFunc hist_c4r;
  /* Optional (NULL when their library or symbol is missing). */
  ResizeC4RFunc resize_c4r;
  GaussBorderFunc gauss_c4r;
  BoxBorderFunc box_c4r;
  SobelBorderFunc sobel_horiz_c1r;
  SwapChannelsFunc swap_c4r;
  LUTPaletteAC4RFunc lut_palette_ac4r;
  ThresholdAC4RFunc threshold_ac4r;
};

typedef struct
{
  KsNpp *npp;
  GError *error;
} LoadResult;

/* Where NPP may live when the loader's own search does not find it: CUDA's
 * lib64 is often left out of the loader's configuration. */
static GPtrArray *
candidate_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *vars[] = { "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT" };

  g_ptr_array_add (dirs, NULL); /* the loader's search path */
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      const char *root = g_getenv (vars[i]);

      if (root != NULL && *root != '\0')
        g_ptr_array_add (dirs, g_build_filename (root, "lib64", NULL));
    }
  g_ptr_array_add (dirs, g_strdup ("/usr/local/cuda/lib64"));
  g_ptr_array_add (dirs, g_strdup ("/usr/local/cuda-13/lib64"));
  g_ptr_array_add (dirs, g_strdup ("/usr/local/cuda/targets/x86_64-linux/lib"));
  return dirs;
}

static gpointer
open_in (const char *dir, const char *soname)
{
  g_autofree char *path = dir != NULL ? g_build_filename (dir, soname, NULL) : g_strdup (soname);
  gpointer handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);

  if (handle == NULL)
    {
      const char *why = dlerror ();

      g_debug ("dlopen %s: %s", path, why != NULL ? why : "unknown error");
    }
  return handle;
}

static gboolean
lookup (gpointer handle, const char *soname, const char *symbol, gpointer *out, GError **error)
{
  /* POSIX: dlsym returns a data pointer; the conversion to a function pointer
   * goes through memcpy at the call sites' types. */
  *out = dlsym (handle, symbol);
  if (*out == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "NPP is incomplete: %s has no %s", soname, symbol);
      return FALSE;
    }
  return TRUE;
}

#define LOOKUP(handle, soname, name, field)                                   \
  G_STMT_START                                                                \
  {                                                                           \
    gpointer sym_;                                                            \
    if (!lookup ((handle), (soname), (name), &sym_, error))                   \
      return NULL;                                                            \
    memcpy (&npp->field, &sym_, sizeof npp->field);                           \
  }                                                                           \
  G_STMT_END

/* A function of an optional library: left NULL, with a debug message, when
 * absent, so that only the rows that need it say so. */
static void
optional (const char *dir, const char *soname, const char *symbol, gpointer field, gsize size)
{
  gpointer handle = open_in (dir, soname);
  gpointer sym = handle != NULL ? dlsym (handle, symbol) : NULL;

  if (sym == NULL)
    g_debug ("NPP: no %s in %s", symbol, soname);
  else
    memcpy (field, &sym, size);
}

static KsNpp *
load_npp (GError **error)
{
  g_autofree KsNpp *npp = g_new0 (KsNpp, 1);
  g_autoptr (GPtrArray) dirs = candidate_dirs ();
  const char *dir = NULL;
  gpointer core = NULL, ial = NULL, icc, ist;

  /* The first folder that has libnppial holds the rest. libnppc goes first
   * so that the others find it there by its soname; the handles stay open
   * for the life of the process. */
  for (guint i = 0; i < dirs->len && ial == NULL; i++)
    {
      dir = g_ptr_array_index (dirs, i);
      core = open_in (dir, "libnppc.so.13");
      ial = open_in (dir, "libnppial.so.13");
      if (ial == NULL && core != NULL)
        g_clear_pointer (&core, dlclose);
    }
  if (ial == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "NPP is not installed (libnppial.so.13 not found)");
      return NULL;
    }
  icc = open_in (dir, "libnppicc.so.13");
  ist = open_in (dir, "libnppist.so.13");
  if (icc == NULL || ist == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE, "NPP is not installed (%s not found)",
                   icc == NULL ? "libnppicc.so.13" : "libnppist.so.13");
      return NULL;
    }

  LOOKUP (ial, "libnppial.so.13", "nppiNot_8u_AC4R_Ctx", not_ac4r);
  LOOKUP (ial, "libnppial.so.13", "nppiAdd_8u_C4RSfs_Ctx", add_c4rsfs);
  LOOKUP (icc, "libnppicc.so.13", "nppiRGBToGray_8u_AC4C1R_Ctx", rgb_to_gray);
  LOOKUP (ist, "libnppist.so.13", "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx", hist_buf_c1r);
  LOOKUP (ist, "libnppist.so.13", "nppiHistogramEvenGetBufferSize_8u_C4R_Ctx", hist_buf_c4r);
  LOOKUP (ist, "libnppist.so.13", "nppiHistogramEven_8u_C1R_Ctx", hist_c1r);
  LOOKUP (ist, "libnppist.so.13", "nppiHistogramEven_8u_C4R_Ctx", hist_c4r);

  optional (dir, "libnppig.so.13", "nppiResize_8u_C4R_Ctx", &npp->resize_c4r,
            sizeof npp->resize_c4r);
  optional (dir, "libnppif.so.13", "nppiFilterGaussBorder_8u_C4R_Ctx", &npp->gauss_c4r,
            sizeof npp->gauss_c4r);
  optional (dir, "libnppif.so.13", "nppiFilterBoxBorder_8u_C4R_Ctx", &npp->box_c4r,
            sizeof npp->box_c4r);
  optional (dir, "libnppif.so.13", "nppiFilterSobelHorizBorder_8u_C1R_Ctx", &npp->sobel_horiz_c1r,
            sizeof npp->sobel_horiz_c1r);
  optional (dir, "libnppidei.so.13", "nppiSwapChannels_8u_C4R_Ctx", &npp->swap_c4r,
            sizeof npp->swap_c4r);
  optional (dir, "libnppicc.so.13", "nppiLUTPalette_8u_AC4R_Ctx", &npp->lut_palette_ac4r,
            sizeof npp->lut_palette_ac4r);
  optional (dir, "libnppitc.so.13", "nppiThreshold_8u_AC4R_Ctx", &npp->threshold_ac4r,
            sizeof npp->threshold_ac4r);

  /* The version is only for reports: its absence is not an error. */
  if (core != NULL)
    {
      gpointer sym = dlsym (core, "nppGetLibVersion");
      GetLibVersionFunc get_version;

      if (sym != NULL)
        {
          const NppLibraryVersion *v;

          memcpy (&get_version, &sym, sizeof get_version);
          v = get_version ();
          if (v != NULL)
            g_snprintf (npp->version, sizeof npp->version, "%d.%d.%d", v->major, v->minor,
                        v->build);
        }
    }

  return g_steal_pointer (&npp);
}

static gpointer
load_once (gpointer data)
{
  LoadResult *result = g_new0 (LoadResult, 1);

  (void) data;
  result->npp = load_npp (&result->error);
  return result;
}

KsNpp *
ks_npp_get (GError **error)
{
  static GOnce once = G_ONCE_INIT;
  LoadResult *result = g_once (&once, load_once, NULL);

  if (result->npp == NULL)
    {
      g_propagate_error (error, g_error_copy (result->error));
      return NULL;
    }
  return result->npp;
}

const char *
ks_npp_get_version (KsNpp *npp)
{
  g_return_val_if_fail (npp != NULL, "");

  return npp->version;
}

static gboolean
check_status (NppStatus status, KsNppFunction function, GError **error)
{
  if (status < 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "%s_Ctx failed with NPP status %d",
                   function_names[function], status);
      return FALSE;
    }
  if (status > 0)
    g_debug ("%s_Ctx: NPP warning %d", function_names[function], status);
  return TRUE;
}

/* The device's properties as NPP wants them, for the engine's own stream. */
static gboolean
fill_context (KsEngine *engine, NppStreamContext *ctx, GError **error)
{
  int ordinal, current = -1, value;
  unsigned int flags = 0;
  cudaStream_t stream;

  if (!ks_engine_is_cuda (engine))
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                           "NPP runs on CUDA engines only");
      return FALSE;
    }
  if (!ks_engine_check_usable (engine, error))
    return FALSE;

  memset (ctx, 0, sizeof *ctx);
  ordinal = ks_device_get_ordinal (ks_engine_get_device (engine));
  stream = (cudaStream_t) ks_engine_get_stream (engine);

  if (!_ks_cuda_check (cudaGetDevice (&current), "cudaGetDevice", error))
    return FALSE;
  /* NPP launches on the current device: make it the engine's. */
  if (current != ordinal && !_ks_cuda_check (cudaSetDevice (ordinal), "cudaSetDevice", error))
    return FALSE;

  ctx->hStream = stream;
  ctx->nCudaDeviceId = ordinal;

#define ATTR(attr, field)                                                                 \
  G_STMT_START                                                                            \
  {                                                                                       \
    if (!_ks_cuda_check (cudaDeviceGetAttribute (&value, (attr), ordinal),                \
                         "cudaDeviceGetAttribute", error))                                \
      return FALSE;                                                                       \
    ctx->field = value;                                                                   \
  }                                                                                       \
  G_STMT_END

  ATTR (cudaDevAttrMultiProcessorCount, nMultiProcessorCount);
  ATTR (cudaDevAttrMaxThreadsPerMultiProcessor, nMaxThreadsPerMultiProcessor);
  ATTR (cudaDevAttrMaxThreadsPerBlock, nMaxThreadsPerBlock);
  ATTR (cudaDevAttrMaxSharedMemoryPerBlock, nSharedMemPerBlock);
  ATTR (cudaDevAttrComputeCapabilityMajor, nCudaDevAttrComputeCapabilityMajor);
  ATTR (cudaDevAttrComputeCapabilityMinor, nCudaDevAttrComputeCapabilityMinor);
#undef ATTR

  if (!_ks_cuda_check (cudaStreamGetFlags (stream, &flags), "cudaStreamGetFlags", error))
    return FALSE;
  ctx->nStreamFlags = flags;
  return TRUE;
}

static gboolean
to_roi (guint width, guint height, NppiSize *roi, GError **error)
{
  if (width == 0 || height == 0 || width > G_MAXINT || height > G_MAXINT)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "NPP cannot process a %u×%u image", width, height);
      return FALSE;
    }
  roi->width = (int) width;
  roi->height = (int) height;
  return TRUE;
}

static gboolean
to_step (gsize pitch, int *step, GError **error)
{
  if (pitch == 0 || pitch > G_MAXINT)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "NPP cannot use a row pitch of %" G_GSIZE_FORMAT " bytes", pitch);
      return FALSE;
    }
  *step = (int) pitch;
  return TRUE;
}

/* What a call must carry besides src[0]. */
enum
{
  NEEDS_DST = 1 << 0,      /* dst, dst_pitch */
  NEEDS_SRC1 = 1 << 1,     /* src[1], src_pitch[1] */
  NEEDS_HIST1 = 1 << 2,    /* hist[0] */
  NEEDS_HIST4 = 1 << 3,    /* hist[0..3] */
  NEEDS_SCRATCH = 1 << 4,  /* scratch */
  NEEDS_SRC_SIZE = 1 << 5, /* src_width × src_height */
  NEEDS_TABLES = 1 << 6,   /* tables[0..2] */
};

/* A call's operands as NPP takes them. */
typedef struct
{
  NppiSize roi;
  int s0, s1, sd; /* the steps of src[0], src[1] and dst */
} Operands;

/* Each enqueues only: the timed loop calls them between two events, so they
 * do nothing but convert arguments and call NPP. */
typedef gboolean (*RunFunc) (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call,
                             const Operands *o, NppStatus *status, GError **error);

static gboolean
run_not (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
         NppStatus *status, GError **error)
{
  *status = npp->not_ac4r (call->src[0], o->s0, call->dst, o->sd, o->roi, *ctx);
  return TRUE;
}

static gboolean
run_rgb_to_gray (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call,
                 const Operands *o, NppStatus *status, GError **error)
{
  *status = npp->rgb_to_gray (call->src[0], o->s0, call->dst, o->sd, o->roi, *ctx);
  return TRUE;
}

static gboolean
run_add (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
         NppStatus *status, GError **error)
{
  *status = npp->add_c4rsfs (call->src[0], o->s0, call->src[1], o->s1, call->dst, o->sd, o->roi,
                             0, *ctx);
  return TRUE;
}

static gboolean
run_hist_c1r (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
              NppStatus *status, GError **error)
{
  *status = npp->hist_c1r (call->src[0], o->s0, o->roi, call->hist[0], HIST_LEVELS, HIST_LOWER,
                           HIST_UPPER, call->scratch, *ctx);
  return TRUE;
}

static gboolean
run_hist_c4r (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
              NppStatus *status, GError **error)
{
  gint32 *hist[4] = { call->hist[0], call->hist[1], call->hist[2], call->hist[3] };
  int levels[4] = { HIST_LEVELS, HIST_LEVELS, HIST_LEVELS, HIST_LEVELS };
  gint32 lower[4] = { HIST_LOWER, HIST_LOWER, HIST_LOWER, HIST_LOWER };
  gint32 upper[4] = { HIST_UPPER, HIST_UPPER, HIST_UPPER, HIST_UPPER };

  *status = npp->hist_c4r (call->src[0], o->s0, o->roi, hist, levels, lower, upper,
                           call->scratch, *ctx);
  return TRUE;
}

static gboolean
run_resize (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
            NppStatus *status, GError **error)
{
  NppiSize src_size;
  NppiRect src_roi, dst_roi = { 0, 0, o->roi.width, o->roi.height };

  if (!to_roi (call->src_width, call->src_height, &src_size, error))
    return FALSE;
  src_roi = (NppiRect) { 0, 0, src_size.width, src_size.height };
  *status = npp->resize_c4r (call->src[0], o->s0, src_size, src_roi, call->dst, o->sd, o->roi,
                             dst_roi, call->function == KS_NPP_RESIZE_8U_C4R_NN
                                        ? NPP_INTER_NN : NPP_INTER_LINEAR, *ctx);
  return TRUE;
}

static gboolean
run_gauss (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
           NppStatus *status, GError **error)
{
  *status = npp->gauss_c4r (call->src[0], o->s0, o->roi, (NppiPoint) { 0, 0 }, call->dst, o->sd,
                            o->roi, NPP_MASK_5_X_5, NPP_BORDER_REPLICATE, *ctx);
  return TRUE;
}

static gboolean
run_box (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
         NppStatus *status, GError **error)
{
  *status = npp->box_c4r (call->src[0], o->s0, o->roi, (NppiPoint) { 0, 0 }, call->dst, o->sd,
                          o->roi, (NppiSize) { 5, 5 }, (NppiPoint) { 2, 2 },
                          NPP_BORDER_REPLICATE, *ctx);
  return TRUE;
}

static gboolean
run_sobel (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
           NppStatus *status, GError **error)
{
  *status = npp->sobel_horiz_c1r (call->src[0], o->s0, o->roi, (NppiPoint) { 0, 0 }, call->dst,
                                  o->sd, o->roi, NPP_BORDER_REPLICATE, *ctx);
  return TRUE;
}

static gboolean
run_swap (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
          NppStatus *status, GError **error)
{
  *status = npp->swap_c4r (call->src[0], o->s0, call->dst, o->sd, o->roi, call->order, *ctx);
  return TRUE;
}

static gboolean
run_lut_palette (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call,
                 const Operands *o, NppStatus *status, GError **error)
{
  /* The array is on the host, what it points to on the device. */
  const guint8 *tables[3] = { call->tables[0], call->tables[1], call->tables[2] };

  *status = npp->lut_palette_ac4r (call->src[0], o->s0, call->dst, o->sd, o->roi, tables,
                                   PALETTE_BITS, *ctx);
  return TRUE;
}

static gboolean
run_threshold (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, const Operands *o,
               NppStatus *status, GError **error)
{
  *status = npp->threshold_ac4r (call->src[0], o->s0, call->dst, o->sd, o->roi, call->thresholds,
                                 NPP_CMP_GREATER, *ctx);
  return TRUE;
}

static const struct
{
  gsize entry; /* of the function pointer in KsNpp */
  guint needs;
  RunFunc run;
} function_rows[KS_NPP_N_FUNCTIONS] = {
#define KS_X_ROW(id, name, field, needs_, run_) \
  [id] = { G_STRUCT_OFFSET (KsNpp, field), needs_, run_ },
  KS_NPP_FUNCTION_ROWS (KS_X_ROW)
#undef KS_X_ROW
};

gboolean
ks_npp_has (KsNpp *npp, KsNppFunction function)
{
  g_return_val_if_fail (npp != NULL, FALSE);

  /* The entry points NPP's core libraries must have are never NULL once
   * loaded; the optional ones are where their library or symbol is. */
  return function < KS_NPP_N_FUNCTIONS
         && G_STRUCT_MEMBER (gpointer, npp, function_rows[function].entry) != NULL;
}

static gboolean
check_call (KsNpp *npp, const KsNppCall *call, GError **error)
{
  guint needs;
  gboolean ok;

  if (call->function >= KS_NPP_N_FUNCTIONS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "unknown NPP function %d",
                   (int) call->function);
      return FALSE;
    }
  needs = function_rows[call->function].needs;
  ok = call->src[0] != NULL
       && (!(needs & NEEDS_DST) || call->dst != NULL)
       && (!(needs & NEEDS_SRC1) || call->src[1] != NULL)
       && (!(needs & NEEDS_SCRATCH) || call->scratch != NULL)
       && (!(needs & (NEEDS_HIST1 | NEEDS_HIST4)) || call->hist[0] != NULL)
       && (!(needs & NEEDS_HIST4)
           || (call->hist[1] != NULL && call->hist[2] != NULL && call->hist[3] != NULL))
       && (!(needs & NEEDS_SRC_SIZE) || (call->src_width != 0 && call->src_height != 0))
       && (!(needs & NEEDS_TABLES)
           || (call->tables[0] != NULL && call->tables[1] != NULL && call->tables[2] != NULL));
  if (ok && !ks_npp_has (npp, call->function))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE, "this NPP has no %s_Ctx",
                   function_names[call->function]);
      return FALSE;
    }
  if (!ok)
    g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s: a device pointer is missing",
                 function_names[call->function]);
  return ok;
}

/* Enqueues only: the timed loop calls this between two events. */
static gboolean
run_call (KsNpp *npp, const NppStreamContext *ctx, const KsNppCall *call, GError **error)
{
  guint needs = function_rows[call->function].needs;
  Operands o = { { 0, 0 }, 0, 0, 0 };
  NppStatus status = -1;

  if (!to_roi (call->width, call->height, &o.roi, error)
      || !to_step (call->src_pitch[0], &o.s0, error)
      || ((needs & NEEDS_SRC1) && !to_step (call->src_pitch[1], &o.s1, error))
      || ((needs & NEEDS_DST) && !to_step (call->dst_pitch, &o.sd, error))
      || !function_rows[call->function].run (npp, ctx, call, &o, &status, error))
    return FALSE;
  return check_status (status, call->function, error);
}

gboolean
ks_npp_scratch_size (KsNpp *npp, KsEngine *engine, KsNppFunction function, guint width,
                     guint height, gsize *bytes, GError **error)
{
  NppStreamContext ctx;
  NppiSize roi;
  size_t size = 0;
  NppStatus status;

  g_return_val_if_fail (npp != NULL, FALSE);
  g_return_val_if_fail (KS_IS_ENGINE (engine), FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  *bytes = 0;
  if (function != KS_NPP_HISTOGRAM_EVEN_8U_C1R && function != KS_NPP_HISTOGRAM_EVEN_8U_C4R)
    return TRUE;
  if (!to_roi (width, height, &roi, error) || !fill_context (engine, &ctx, error))
    return FALSE;

  if (function == KS_NPP_HISTOGRAM_EVEN_8U_C1R)
    {
      status = npp->hist_buf_c1r (roi, HIST_LEVELS, &size, ctx);
    }
  else
    {
      int levels[4] = { HIST_LEVELS, HIST_LEVELS, HIST_LEVELS, HIST_LEVELS };

      status = npp->hist_buf_c4r (roi, levels, &size, ctx);
    }
  if (status < 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "%sGetBufferSize_Ctx failed with NPP status %d",
                   function == KS_NPP_HISTOGRAM_EVEN_8U_C1R ? "nppiHistogramEven_8u_C1R"
                                                            : "nppiHistogramEven_8u_C4R",
                   status);
      return FALSE;
    }
  *bytes = size;
  return TRUE;
}

typedef struct
{
  KsNpp *npp;
  NppStreamContext ctx;
  const KsNppCall *call;
} TimedCall;

static gboolean
call_once (KsClock *clock, gpointer user_data, GError **error)
{
  TimedCall *t = user_data;

  return ks_clock_start (clock, error) && run_call (t->npp, &t->ctx, t->call, error)
         && ks_clock_stop (clock, error);
}

gboolean
ks_npp_time (KsNpp *npp, KsEngine *engine, const KsNppCall *call, const KsTimingOptions *options,
             KsTiming *timing, GError **error)
{
  TimedCall t = { npp, { 0 }, call };

  g_return_val_if_fail (npp != NULL, FALSE);
  g_return_val_if_fail (KS_IS_ENGINE (engine), FALSE);
  g_return_val_if_fail (call != NULL && options != NULL && timing != NULL, FALSE);

  if (!check_call (npp, call, error) || !fill_context (engine, &t.ctx, error))
    return FALSE;
  /* Whatever the engine queued before must not land inside the warm-up. */
  if (!_ks_cuda_check (cudaStreamSynchronize (t.ctx.hStream), "cudaStreamSynchronize", error))
    return FALSE;
  return ks_timing_measure (engine, options, call_once, &t, timing, error);
}

#else /* !HAVE_CUDA */

static gboolean
no_cuda (GError **error)
{
  g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "NPP is unavailable: this build has no CUDA support");
  return FALSE;
}

KsNpp *
ks_npp_get (GError **error)
{
  no_cuda (error);
  return NULL;
}

const char *
ks_npp_get_version (KsNpp *npp)
{
  return "";
}

gboolean
ks_npp_scratch_size (KsNpp *npp, KsEngine *engine, KsNppFunction function, guint width,
                     guint height, gsize *bytes, GError **error)
{
  if (bytes != NULL)
    *bytes = 0;
  return no_cuda (error);
}

gboolean
ks_npp_has (KsNpp *npp, KsNppFunction function)
{
  return FALSE;
}

gboolean
ks_npp_time (KsNpp *npp, KsEngine *engine, const KsNppCall *call, const KsTimingOptions *options,
             KsTiming *timing, GError **error)
{
  if (timing != NULL)
    memset (timing, 0, sizeof *timing);
  return no_cuda (error);
}

#endif /* HAVE_CUDA */
