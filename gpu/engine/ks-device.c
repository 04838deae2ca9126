/* ks-device.c: KsDevice, what the engine can run on, and the process-wide
 * CUDA state behind it: whether CUDA works here (probed once), whether it
 * was lost (the sticky errors _ks_cuda_check watches for), the CPU device,
 * whose limits are an sm_90 multiprocessor's, and each CUDA device with the
 * deviceQuery rows the device panel shows.
 *
 * One piece because the devices and the CUDA state decide together what
 * this process may run on: the device list asks ks_cuda_available and the
 * probed count (under the cuda_state lock) before it builds a device,
 * _ks_cuda_check marks CUDA lost and the list then offers no GPU, and the
 * CPU device fills the same KsDeviceLimits the CUDA limit rows fill, so that
 * both engines validate a launch alike. The property table, a third of the
 * lines, is the constructor of one CUDA device, not a concept of its own. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-device.h"
#include "ks-engine-private.h"
#include "ks-error.h"

struct _KsDevice
{
  GObject parent_instance;

  KsDeviceKind kind;
  int ordinal;
  char *id;
  char *name;
  KsDeviceLimits limits;
  GArray *properties;   /* KsDeviceProperty */
  double peak_bandwidth_gbs;
  double peak_fp32_gflops;
};

G_DEFINE_FINAL_TYPE (KsDevice, ks_device, G_TYPE_OBJECT)

static void
property_clear (gpointer data)
{
  KsDeviceProperty *prop = data;
  g_clear_pointer (&prop->value, g_variant_unref);
}

static void
ks_device_finalize (GObject *object)
{
  KsDevice *self = KS_DEVICE (object);

  g_free (self->id);
  g_free (self->name);
  g_array_unref (self->properties);
  G_OBJECT_CLASS (ks_device_parent_class)->finalize (object);
}

static void
ks_device_class_init (KsDeviceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_device_finalize;
}

static void
ks_device_init (KsDevice *self)
{
  self->properties = g_array_new (FALSE, TRUE, sizeof (KsDeviceProperty));
  g_array_set_clear_func (self->properties, property_clear);
}

static void
add_prop (KsDevice *self, const char *group, const char *key, const char *label,
          GVariant *value, const char *unit)
{
  KsDeviceProperty prop = { group, key, label, g_variant_ref_sink (value), unit };
  g_array_append_val (self->properties, prop);
}

/* ---- CUDA state shared by the whole process ---------------------------- */

G_LOCK_DEFINE_STATIC (cuda_state);
static char *cuda_lost_reason;
static gboolean cuda_probed;
static char *cuda_unavailable_reason;
static int cuda_driver_version;
static int cuda_runtime_version;
static int cuda_device_count;

const char *
ks_cuda_lost_reason (void)
{
  const char *reason;

  G_LOCK (cuda_state);
  reason = cuda_lost_reason;
  G_UNLOCK (cuda_state);
  return reason;
}

void
_ks_cuda_mark_lost (const char *reason)
{
  G_LOCK (cuda_state);
  if (cuda_lost_reason == NULL)
    cuda_lost_reason = g_strdup (reason);
  G_UNLOCK (cuda_state);
  g_warning ("CUDA is unusable in this process from now on: %s", reason);
}

/* The errors after which no CUDA call of this process can succeed again
 * (cudaDeviceReset returns success, and every later call fails): the engine
 * marks its device lost on them, the worker process replies and exits. */
gboolean
ks_cuda_error_is_sticky (int code)
{
#if HAVE_CUDA
  switch (code)
    {
    /* The GPU's memory lost data: nothing it holds can be trusted. */
    case cudaErrorECCUncorrectable:
    /* A kernel's fault (an address outside any allocation, a trap, a bad
     * instruction, alignment or address space, a jump outside its code, a
     * stack overflow, a failed assert): the driver tears the context down. */
    case cudaErrorIllegalAddress:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    /* A kernel the display watchdog killed: its context goes with it. */
    case cudaErrorLaunchTimeout:
    /* The device was made unavailable to the context (exclusive to another
     * process, or prohibited). */
    case cudaErrorDevicesUnavailable:
      return TRUE;
    /* Not cudaErrorUnknown: registering a GL buffer where the display GPU is
     * not a CUDA GPU fails with it, and the process carries on through the
     * copy path (the worker, which has no such path, leaves on it too:
     * ks-worker-server-context.c). */
    default:
      return FALSE;
    }
#else
  (void) code;
  return FALSE;
#endif
}

gboolean
_ks_cuda_check (int err, const char *call, GError **error)
{
#if HAVE_CUDA
  cudaError_t e = (cudaError_t) err;

  if (e == cudaSuccess)
    return TRUE;
  if (ks_cuda_error_is_sticky (err))
    {
      g_autofree char *reason = g_strdup_printf ("%s failed with %s (%d): %s", call,
                                                 cudaGetErrorName (e), err,
                                                 cudaGetErrorString (e));
      _ks_cuda_mark_lost (reason);
      g_set_error (error, KS_ERROR, KS_ERROR_DEVICE_LOST,
                   "The GPU stopped working: %s. CUDA cannot be used again in this process",
                   reason);
    }
  else
    {
      /* Clear the non-sticky error so the next call does not report it again. */
      (void) cudaGetLastError ();
      g_set_error (error, KS_ERROR, KS_ERROR_CUDA, "%s failed with %s (%d): %s", call,
                   cudaGetErrorName (e), err, cudaGetErrorString (e));
    }
  return FALSE;
#else
  if (err == 0)
    return TRUE;
  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE, "%s: this build has no CUDA support", call);
  return FALSE;
#endif
}

static void
cuda_probe_locked (void)
{
  if (cuda_probed)
    return;
  cuda_probed = TRUE;
#if HAVE_CUDA
  {
    int count = 0; /* left unwritten when there is no driver */
    cudaError_t err;

    cudaRuntimeGetVersion (&cuda_runtime_version);
    if (cudaDriverGetVersion (&cuda_driver_version) != cudaSuccess)
      cuda_driver_version = 0;
    err = cudaGetDeviceCount (&count);
    if (err == cudaErrorInsufficientDriver && cuda_driver_version == 0)
      cuda_unavailable_reason = g_strdup ("No NVIDIA driver is installed (cudaGetDeviceCount: "
                                          "cudaErrorInsufficientDriver)");
    else if (err == cudaErrorInsufficientDriver)
      cuda_unavailable_reason =
        g_strdup_printf ("The NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d this "
                         "build needs (cudaErrorInsufficientDriver)",
                         cuda_driver_version / 1000, cuda_driver_version % 1000 / 10,
                         cuda_runtime_version / 1000, cuda_runtime_version % 1000 / 10);
    else if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
      cuda_unavailable_reason = g_strdup ("No CUDA-capable GPU is visible (cudaGetDeviceCount: "
                                          "cudaErrorNoDevice)");
    else if (err != cudaSuccess)
      cuda_unavailable_reason = g_strdup_printf ("cudaGetDeviceCount failed with %s (%d): %s",
                                                 cudaGetErrorName (err), (int) err,
                                                 cudaGetErrorString (err));
    else
      cuda_device_count = count;
    if (err != cudaSuccess)
      (void) cudaGetLastError ();
  }
#else
  cuda_unavailable_reason = g_strdup ("This build of Kernelscope has no CUDA support "
                                      "(nvcc was not found when it was built)");
#endif
}

gboolean
ks_cuda_available (GError **error)
{
  gboolean ok;

  G_LOCK (cuda_state);
  cuda_probe_locked ();
  if (cuda_lost_reason != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_DEVICE_LOST,
                   "The GPU stopped working earlier: %s", cuda_lost_reason);
      ok = FALSE;
    }
  else if (cuda_unavailable_reason != NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE, cuda_unavailable_reason);
      ok = FALSE;
    }
  else
    ok = TRUE;
  G_UNLOCK (cuda_state);
  return ok;
}

int
ks_cuda_driver_version (void)
{
  G_LOCK (cuda_state);
  cuda_probe_locked ();
  G_UNLOCK (cuda_state);
  return cuda_driver_version;
}

int
ks_cuda_runtime_version (void)
{
  G_LOCK (cuda_state);
  cuda_probe_locked ();
  G_UNLOCK (cuda_state);
  return cuda_runtime_version;
}

static int
cuda_count (void)
{
  int n;

  G_LOCK (cuda_state);
  cuda_probe_locked ();
  n = cuda_lost_reason == NULL ? cuda_device_count : 0;
  G_UNLOCK (cuda_state);
  return n;
}

/* ---- the CPU device ----------------------------------------------------- */

static char *
cpu_model_name (void)
{
  g_autofree char *info = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &info, NULL, NULL))
    {
      g_auto (GStrv) lines = g_strsplit (info, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        if (g_str_has_prefix (lines[i], "model name"))
          {
            const char *colon = strchr (lines[i], ':');
            if (colon != NULL)
              return g_strstrip (g_strdup (colon + 1));
          }
    }
  return g_strdup ("CPU");
}

/* The CPU engine runs the same launch geometry as CUDA, so it validates
 * against the limits of a CUDA device, those of one multiprocessor of sm_90:
 * lessons about "1024 threads per block" hold without a GPU, and a launch one
 * engine refuses for its shared memory the other refuses too. */
static const KsDeviceLimits cpu_limits = {
  .max_threads_per_block = 1024,
  .max_block_dim = { 1024, 1024, 64 },
  .max_grid_dim = { 2147483647u, 65535, 65535 },
  .shared_mem_per_block = 48 * 1024,
  .shared_mem_per_block_optin = 227 * 1024,
  .shared_mem_per_sm = 228 * 1024,
  .reserved_shared_mem_per_block = 1024,
  .regs_per_block = 65536,
  .regs_per_sm = 65536,
  .warp_size = 32,
  .max_threads_per_sm = 2048,
  .max_blocks_per_sm = 32,
  .sm_count = 1,
};

static KsDevice *
cpu_device_new (void)
{
  KsDevice *self = g_object_new (KS_TYPE_DEVICE, NULL);
  guint cores = g_get_num_processors ();
  long pages = sysconf (_SC_PHYS_PAGES), page_size = sysconf (_SC_PAGESIZE);

  self->kind = KS_DEVICE_KIND_CPU;
  self->ordinal = -1;
  self->id = g_strdup ("cpu");
  self->name = cpu_model_name ();
  self->limits = cpu_limits;
  self->limits.sm_count = cores;
  add_prop (self, "Compute", "name", "Name", g_variant_new_string (self->name), NULL);
  add_prop (self, "Compute", "engine", "Engine",
            g_variant_new_string ("CPU engine: blocks run in parallel on worker threads"), NULL);
  add_prop (self, "Compute", "cores", "Logical cores", g_variant_new_uint64 (cores), NULL);
  if (pages > 0 && page_size > 0)
    add_prop (self, "Memory", "total_memory", "System memory",
              g_variant_new_uint64 ((guint64) pages * page_size), "bytes");
  add_prop (self, "Limits", "max_threads_per_block", "Max threads per block",
            g_variant_new_uint64 (cpu_limits.max_threads_per_block), NULL);
  add_prop (self, "Limits", "max_block_dim", "Max block dimensions",
            g_variant_new_string ("1024 × 1024 × 64"), NULL);
  add_prop (self, "Limits", "max_grid_dim", "Max grid dimensions",
            g_variant_new_string ("2147483647 × 65535 × 65535"), NULL);
  add_prop (self, "Limits", "shared_mem_per_block", "Shared memory per block",
            g_variant_new_uint64 (cpu_limits.shared_mem_per_block), "bytes");
  add_prop (self, "Limits", "shared_mem_per_block_optin", "Shared memory per block (opt-in)",
            g_variant_new_uint64 (cpu_limits.shared_mem_per_block_optin), "bytes");
  add_prop (self, "Limits", "warp_size", "Warp size", g_variant_new_uint64 (32), NULL);
  return self;
}

/* ---- CUDA devices ------------------------------------------------------- */

#if HAVE_CUDA
static guint
cores_per_sm (int major, int minor)
{
  switch (major)
    {
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    default: return major >= 9 ? 128 : 0;
    }
}

static int
attr (enum cudaDeviceAttr a, int dev)
{
  int v = 0;
  if (cudaDeviceGetAttribute (&v, a, dev) != cudaSuccess)
    {
      (void) cudaGetLastError ();
      return 0;
    }
  return v;
}

static const char *
compute_mode_text (int mode)
{
  switch (mode)
    {
    case cudaComputeModeDefault: return "Default (several processes may use the device)";
    case cudaComputeModeProhibited: return "Prohibited (no process may use the device)";
    case cudaComputeModeExclusiveProcess: return "Exclusive process (one process at a time)";
    default: return "Unknown";
    }
}

/* The limits launch validation and occupancy read, one attribute each. */
static const struct
{
  gsize offset;  /* in KsDeviceLimits */
  gboolean wide; /* a guint64 there, else a guint */
  enum cudaDeviceAttr attribute;
} limit_rows[] = {
#define LIMIT(field, a) { G_STRUCT_OFFSET (KsDeviceLimits, field), FALSE, a }
#define LIMIT64(field, a) { G_STRUCT_OFFSET (KsDeviceLimits, field), TRUE, a }
  LIMIT (max_threads_per_block, cudaDevAttrMaxThreadsPerBlock),
  LIMIT (max_block_dim[0], cudaDevAttrMaxBlockDimX),
  LIMIT (max_block_dim[1], cudaDevAttrMaxBlockDimY),
  LIMIT (max_block_dim[2], cudaDevAttrMaxBlockDimZ),
  LIMIT (max_grid_dim[0], cudaDevAttrMaxGridDimX),
  LIMIT (max_grid_dim[1], cudaDevAttrMaxGridDimY),
  LIMIT (max_grid_dim[2], cudaDevAttrMaxGridDimZ),
  LIMIT64 (shared_mem_per_block, cudaDevAttrMaxSharedMemoryPerBlock),
  LIMIT64 (shared_mem_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin),
  LIMIT64 (shared_mem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor),
  LIMIT64 (reserved_shared_mem_per_block, cudaDevAttrReservedSharedMemoryPerBlock),
  LIMIT (regs_per_block, cudaDevAttrMaxRegistersPerBlock),
  LIMIT (regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor),
  LIMIT (warp_size, cudaDevAttrWarpSize),
  LIMIT (max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor),
  LIMIT (max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor),
  LIMIT (sm_count, cudaDevAttrMultiProcessorCount),
  LIMIT (cc_major, cudaDevAttrComputeCapabilityMajor),
  LIMIT (cc_minor, cudaDevAttrComputeCapabilityMinor),
#undef LIMIT
#undef LIMIT64
};

/* What a property row reads its value from. */
typedef struct
{
  KsDevice *self;
  const struct cudaDeviceProp *prop;
  int dev;
} PropSource;

typedef enum
{
  PROP_COUNT,    /* attributes[0] × scale, a number */
  PROP_FLAG,     /* attributes[0] != 0 */
  PROP_DIMS,     /* attributes as "a × b × c" */
  PROP_LAYERED,  /* the last attribute is the number of layers: "a × b, n layers" */
  PROP_COMPUTED, /* value () */
} PropHow;

typedef struct
{
  const char *group, *key, *label, *unit;
  PropHow how;
  enum cudaDeviceAttr attributes[3];
  guint n_attributes;
  guint scale;
  GVariant *(*value) (const PropSource *src);
} PropRow;

static GVariant *
prop_name (const PropSource *src)
{
  return g_variant_new_string (src->prop->name);
}

static GVariant *
prop_compute_capability (const PropSource *src)
{
  const KsDeviceLimits *l = &src->self->limits;

  return g_variant_new_take_string (g_strdup_printf ("%u.%u", l->cc_major, l->cc_minor));
}

static GVariant *
prop_cuda_cores (const PropSource *src)
{
  const KsDeviceLimits *l = &src->self->limits;

  return g_variant_new_uint64 ((guint64) l->sm_count * cores_per_sm (l->cc_major, l->cc_minor));
}

static GVariant *
prop_compute_mode (const PropSource *src)
{
  return g_variant_new_string (compute_mode_text (attr (cudaDevAttrComputeMode, src->dev)));
}

static GVariant *
prop_global_memory (const PropSource *src)
{
  return g_variant_new_uint64 (src->prop->totalGlobalMem);
}

static GVariant *
prop_max_pitch (const PropSource *src)
{
  return g_variant_new_uint64 ((guint64) src->prop->memPitch);
}

static GVariant *
prop_pci_location (const PropSource *src)
{
  return g_variant_new_take_string (
    g_strdup_printf ("%04x:%02x:%02x", attr (cudaDevAttrPciDomainId, src->dev),
                     attr (cudaDevAttrPciBusId, src->dev), attr (cudaDevAttrPciDeviceId, src->dev)));
}

static GVariant *
prop_uuid (const PropSource *src)
{
  char uuid[33];

  for (int i = 0; i < 16; i++)
    g_snprintf (uuid + 2 * i, 3, "%02x", (guint8) src->prop->uuid.bytes[i]);
  return g_variant_new_string (uuid);
}

static GVariant *
prop_peak_bandwidth (const PropSource *src)
{
  return g_variant_new_double (src->self->peak_bandwidth_gbs);
}

static GVariant *
prop_peak_fp32 (const PropSource *src)
{
  return g_variant_new_double (src->self->peak_fp32_gflops);
}

static GVariant *
version_variant (int version)
{
  return g_variant_new_take_string (g_strdup_printf ("%d.%d", version / 1000,
                                                     version % 1000 / 10));
}

static GVariant *
prop_driver_version (const PropSource *src)
{
  return version_variant (ks_cuda_driver_version ());
}

static GVariant *
prop_runtime_version (const PropSource *src)
{
  return version_variant (ks_cuda_runtime_version ());
}

/* Everything deviceQuery shows, in the device panel's order: through
 * cudaDeviceGetAttribute wherever an attribute exists, since CUDA 13 removed
 * several of cudaDeviceProp's fields. */
static const PropRow prop_rows[] = {
#define COUNT(g, k, label, a, unit) { g, k, label, unit, PROP_COUNT, { a }, 1, 1, NULL }
#define SCALED(g, k, label, a, s, unit) { g, k, label, unit, PROP_COUNT, { a }, 1, s, NULL }
#define FLAG(g, k, label, a) { g, k, label, NULL, PROP_FLAG, { a }, 1, 1, NULL }
#define DIMS(g, k, label, n, ...) { g, k, label, NULL, PROP_DIMS, { __VA_ARGS__ }, n, 1, NULL }
#define LAYERED(g, k, label, n, ...) \
  { g, k, label, NULL, PROP_LAYERED, { __VA_ARGS__ }, n, 1, NULL }
#define COMPUTED(g, k, label, f, unit) { g, k, label, unit, PROP_COMPUTED, { 0 }, 0, 1, f }
  COMPUTED ("Compute", "name", "Name", prop_name, NULL),
  COMPUTED ("Compute", "compute_capability", "Compute capability", prop_compute_capability, NULL),
  COUNT ("Compute", "multiprocessors", "Multiprocessors", cudaDevAttrMultiProcessorCount, NULL),
  COMPUTED ("Compute", "cuda_cores", "CUDA cores", prop_cuda_cores, NULL),
  SCALED ("Compute", "clock_rate", "GPU max clock", cudaDevAttrClockRate, 1000, "Hz"),
  COUNT ("Compute", "warp_size", "Warp size", cudaDevAttrWarpSize, NULL),
  COUNT ("Compute", "max_threads_per_multiprocessor", "Max threads per multiprocessor",
         cudaDevAttrMaxThreadsPerMultiProcessor, NULL),
  COUNT ("Compute", "max_blocks_per_multiprocessor", "Max blocks per multiprocessor",
         cudaDevAttrMaxBlocksPerMultiprocessor, NULL),
  COUNT ("Compute", "registers_per_block", "Registers per block", cudaDevAttrMaxRegistersPerBlock,
         NULL),
  COUNT ("Compute", "registers_per_multiprocessor", "Registers per multiprocessor",
         cudaDevAttrMaxRegistersPerMultiprocessor, NULL),
  COUNT ("Compute", "async_engine_count", "Copy engines", cudaDevAttrAsyncEngineCount, NULL),
  FLAG ("Compute", "concurrent_kernels", "Concurrent kernels", cudaDevAttrConcurrentKernels),
  FLAG ("Compute", "kernel_exec_timeout", "Run-time limit on kernels",
        cudaDevAttrKernelExecTimeout),
  COMPUTED ("Compute", "compute_mode", "Compute mode", prop_compute_mode, NULL),
  FLAG ("Compute", "integrated", "Integrated GPU sharing host memory", cudaDevAttrIntegrated),

  COMPUTED ("Memory", "total_global_memory", "Global memory", prop_global_memory, "bytes"),
  SCALED ("Memory", "memory_clock_rate", "Memory clock", cudaDevAttrMemoryClockRate, 1000, "Hz"),
  COUNT ("Memory", "memory_bus_width", "Memory bus width", cudaDevAttrGlobalMemoryBusWidth,
         "bits"),
  COUNT ("Memory", "l2_cache_size", "L2 cache", cudaDevAttrL2CacheSize, "bytes"),
  COUNT ("Memory", "max_persisting_l2_cache_size", "Max persisting L2",
         cudaDevAttrMaxPersistingL2CacheSize, "bytes"),
  COUNT ("Memory", "shared_memory_per_block", "Shared memory per block",
         cudaDevAttrMaxSharedMemoryPerBlock, "bytes"),
  COUNT ("Memory", "shared_memory_per_block_optin", "Shared memory per block (opt-in)",
         cudaDevAttrMaxSharedMemoryPerBlockOptin, "bytes"),
  COUNT ("Memory", "shared_memory_per_multiprocessor", "Shared memory per multiprocessor",
         cudaDevAttrMaxSharedMemoryPerMultiprocessor, "bytes"),
  COUNT ("Memory", "reserved_shared_memory_per_block", "Reserved shared memory per block",
         cudaDevAttrReservedSharedMemoryPerBlock, "bytes"),
  COUNT ("Memory", "total_constant_memory", "Constant memory", cudaDevAttrTotalConstantMemory,
         "bytes"),
  FLAG ("Memory", "ecc_enabled", "ECC", cudaDevAttrEccEnabled),
  FLAG ("Memory", "unified_addressing", "Unified addressing", cudaDevAttrUnifiedAddressing),
  FLAG ("Memory", "managed_memory", "Managed memory", cudaDevAttrManagedMemory),
  FLAG ("Memory", "can_map_host_memory", "Maps host page-locked memory",
        cudaDevAttrCanMapHostMemory),
  FLAG ("Memory", "pageable_memory_access", "Pageable memory access",
        cudaDevAttrPageableMemoryAccess),
  FLAG ("Memory", "memory_pools_supported", "Memory pools", cudaDevAttrMemoryPoolsSupported),

  COUNT ("Limits", "max_threads_per_block", "Max threads per block",
         cudaDevAttrMaxThreadsPerBlock, NULL),
  DIMS ("Limits", "max_block_dim", "Max block dimensions", 3, cudaDevAttrMaxBlockDimX,
        cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ),
  DIMS ("Limits", "max_grid_dim", "Max grid dimensions", 3, cudaDevAttrMaxGridDimX,
        cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ),
  COUNT ("Limits", "max_texture_1d", "Max texture 1D", cudaDevAttrMaxTexture1DWidth, NULL),
  DIMS ("Limits", "max_texture_2d", "Max texture 2D", 2, cudaDevAttrMaxTexture2DWidth,
        cudaDevAttrMaxTexture2DHeight),
  DIMS ("Limits", "max_texture_3d", "Max texture 3D", 3, cudaDevAttrMaxTexture3DWidth,
        cudaDevAttrMaxTexture3DHeight, cudaDevAttrMaxTexture3DDepth),
  LAYERED ("Limits", "max_texture_1d_layered", "Max layered texture 1D", 2,
           cudaDevAttrMaxTexture1DLayeredWidth, cudaDevAttrMaxTexture1DLayeredLayers),
  LAYERED ("Limits", "max_texture_2d_layered", "Max layered texture 2D", 3,
           cudaDevAttrMaxTexture2DLayeredWidth, cudaDevAttrMaxTexture2DLayeredHeight,
           cudaDevAttrMaxTexture2DLayeredLayers),
  COMPUTED ("Limits", "max_pitch", "Max memory pitch", prop_max_pitch, "bytes"),
  COUNT ("Limits", "texture_alignment", "Texture alignment", cudaDevAttrTextureAlignment,
         "bytes"),
  COUNT ("Limits", "surface_alignment", "Surface alignment", cudaDevAttrSurfaceAlignment,
         "bytes"),

  FLAG ("Features", "cooperative_launch", "Cooperative launch", cudaDevAttrCooperativeLaunch),
  FLAG ("Features", "concurrent_managed_access", "Concurrent managed access",
        cudaDevAttrConcurrentManagedAccess),
  FLAG ("Features", "compute_preemption", "Compute preemption",
        cudaDevAttrComputePreemptionSupported),
  FLAG ("Features", "host_native_atomics", "Host native atomics",
        cudaDevAttrHostNativeAtomicSupported),
  FLAG ("Features", "global_l1_cache", "Caches globals in L1", cudaDevAttrGlobalL1CacheSupported),
  FLAG ("Features", "stream_priorities", "Stream priorities",
        cudaDevAttrStreamPrioritiesSupported),
  COMPUTED ("Features", "pci_location", "PCI domain:bus:device", prop_pci_location, NULL),
  COMPUTED ("Features", "uuid", "UUID", prop_uuid, NULL),

  COMPUTED ("Derived", "peak_memory_bandwidth", "Peak memory bandwidth", prop_peak_bandwidth,
            "GB/s"),
  COMPUTED ("Derived", "peak_fp32", "Peak FP32 rate", prop_peak_fp32, "GFLOP/s"),

  COMPUTED ("Software", "driver_version", "CUDA driver version", prop_driver_version, NULL),
  COMPUTED ("Software", "runtime_version", "CUDA runtime version", prop_runtime_version, NULL),
#undef COUNT
#undef SCALED
#undef FLAG
#undef DIMS
#undef LAYERED
#undef COMPUTED
};

static GVariant *
prop_row_value (const PropRow *row, const PropSource *src)
{
  int v[3] = { 0, 0, 0 };

  for (guint i = 0; i < row->n_attributes; i++)
    v[i] = attr (row->attributes[i], src->dev);
  switch (row->how)
    {
    case PROP_COUNT:
      return g_variant_new_uint64 ((guint64) (guint) v[0] * row->scale);
    case PROP_FLAG:
      return g_variant_new_boolean (v[0] != 0);
    case PROP_DIMS:
      return g_variant_new_take_string (row->n_attributes == 3
                                          ? g_strdup_printf ("%d × %d × %d", v[0], v[1], v[2])
                                          : g_strdup_printf ("%d × %d", v[0], v[1]));
    case PROP_LAYERED:
      return g_variant_new_take_string (
        row->n_attributes == 3 ? g_strdup_printf ("%d × %d, %d layers", v[0], v[1], v[2])
                               : g_strdup_printf ("%d, %d layers", v[0], v[1]));
    case PROP_COMPUTED:
    default:
      return row->value (src);
    }
}

static KsDevice *
cuda_device_new (int dev, GError **error)
{
  g_autoptr (KsDevice) self = g_object_new (KS_TYPE_DEVICE, NULL);
  struct cudaDeviceProp prop;
  KsDeviceLimits *l = &self->limits;
  PropSource src = { self, &prop, dev };
  int mem_clock_khz, bus_width, clock_khz;

  if (!_ks_cuda_check (cudaGetDeviceProperties (&prop, dev), "cudaGetDeviceProperties", error))
    return NULL;

  self->kind = KS_DEVICE_KIND_CUDA;
  self->ordinal = dev;
  self->id = g_strdup_printf ("cuda:%d", dev);
  self->name = g_strdup (prop.name);
  for (guint i = 0; i < G_N_ELEMENTS (limit_rows); i++)
    {
      guint v = (guint) attr (limit_rows[i].attribute, dev);

      if (limit_rows[i].wide)
        G_STRUCT_MEMBER (guint64, l, limit_rows[i].offset) = v;
      else
        G_STRUCT_MEMBER (guint, l, limit_rows[i].offset) = v;
    }

  mem_clock_khz = attr (cudaDevAttrMemoryClockRate, dev);
  bus_width = attr (cudaDevAttrGlobalMemoryBusWidth, dev);
  clock_khz = attr (cudaDevAttrClockRate, dev);
  /* Double data rate: two transfers per memory clock. */
  self->peak_bandwidth_gbs = 2.0 * mem_clock_khz * 1e3 * (bus_width / 8.0) / 1e9;
  /* One fused multiply-add (two operations) per core per clock. */
  self->peak_fp32_gflops = 2.0 * l->sm_count * cores_per_sm (l->cc_major, l->cc_minor)
                           * clock_khz * 1e3 / 1e9;

  for (guint i = 0; i < G_N_ELEMENTS (prop_rows); i++)
    add_prop (self, prop_rows[i].group, prop_rows[i].key, prop_rows[i].label,
              prop_row_value (&prop_rows[i], &src), prop_rows[i].unit);
  return g_steal_pointer (&self);
}
#endif

/* ---- the device list ---------------------------------------------------- */

G_LOCK_DEFINE_STATIC (devices);
static KsDevice *cpu_device;
#if HAVE_CUDA
static GPtrArray *cuda_devices; /* NULL entries until first asked for */
#endif

KsDevice *
ks_device_get_cpu (void)
{
  KsDevice *dev;

  G_LOCK (devices);
  if (cpu_device == NULL)
    cpu_device = cpu_device_new ();
  dev = g_object_ref (cpu_device);
  G_UNLOCK (devices);
  return dev;
}

KsDevice *
ks_device_get_cuda (int ordinal, GError **error)
{
#if HAVE_CUDA
  KsDevice *dev = NULL;
  int n;

  if (!ks_cuda_available (error))
    return NULL;
  n = cuda_count ();
  if (ordinal < 0 || ordinal >= n)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "There is no CUDA device %d: this machine has %d (0 to %d)", ordinal, n, n - 1);
      return NULL;
    }
  G_LOCK (devices);
  if (cuda_devices == NULL)
    {
      cuda_devices = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_set_size (cuda_devices, n);
    }
  if (g_ptr_array_index (cuda_devices, ordinal) == NULL)
    g_ptr_array_index (cuda_devices, ordinal) = cuda_device_new (ordinal, error);
  dev = g_ptr_array_index (cuda_devices, ordinal);
  if (dev != NULL)
    g_object_ref (dev);
  G_UNLOCK (devices);
  return dev;
#else
  ks_cuda_available (error);
  return NULL;
#endif
}

GPtrArray *
ks_devices_enumerate (void)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (g_object_unref);
  int n = cuda_count ();

  g_ptr_array_add (list, ks_device_get_cpu ());
  for (int i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      KsDevice *dev = ks_device_get_cuda (i, &error);
      if (dev != NULL)
        g_ptr_array_add (list, dev);
      else
        g_warning ("CUDA device %d cannot be used: %s", i, error->message);
    }
  return list;
}

KsDeviceKind
ks_device_get_kind (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), KS_DEVICE_KIND_CPU);
  return self->kind;
}

int
ks_device_get_ordinal (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), -1);
  return self->ordinal;
}

const char *
ks_device_get_name (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), NULL);
  return self->name;
}

const char *
ks_device_get_id (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), NULL);
  return self->id;
}

const KsDeviceLimits *
ks_device_get_limits (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), NULL);
  return &self->limits;
}

const GArray *
ks_device_get_properties (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), NULL);
  return self->properties;
}

const KsDeviceProperty *
ks_device_lookup_property (KsDevice *self, const char *key)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), NULL);
  for (guint i = 0; i < self->properties->len; i++)
    {
      const KsDeviceProperty *p = &g_array_index (self->properties, KsDeviceProperty, i);
      if (g_str_equal (p->key, key))
        return p;
    }
  return NULL;
}

double
ks_device_get_peak_bandwidth_gbs (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), 0);
  return self->peak_bandwidth_gbs;
}

double
ks_device_get_peak_fp32_gflops (KsDevice *self)
{
  g_return_val_if_fail (KS_IS_DEVICE (self), 0);
  return self->peak_fp32_gflops;
}

char *
ks_device_property_format (const KsDeviceProperty *prop)
{
  GVariant *v = prop->value;
  const char *unit = prop->unit != NULL ? prop->unit : "";

  if (g_variant_is_of_type (v, G_VARIANT_TYPE_BOOLEAN))
    return g_strdup (g_variant_get_boolean (v) ? "Yes" : "No");
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_STRING))
    return g_variant_dup_string (v, NULL);
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_DOUBLE))
    return g_strdup_printf ("%.1f %s", g_variant_get_double (v), unit);
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT64))
    {
      guint64 n = g_variant_get_uint64 (v);
      if (g_str_equal (unit, "bytes"))
        {
          g_autofree char *size = g_format_size_full (n, G_FORMAT_SIZE_IEC_UNITS);
          return n >= 1024 ? g_strdup_printf ("%s (%" G_GUINT64_FORMAT " bytes)", size, n)
                           : g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", n);
        }
      if (g_str_equal (unit, "Hz"))
        return n >= 1000000000 ? g_strdup_printf ("%.2f GHz", n / 1e9)
                               : g_strdup_printf ("%.0f MHz", n / 1e6);
      return g_strdup_printf ("%" G_GUINT64_FORMAT "%s%s", n, *unit ? " " : "", unit);
    }
  return g_variant_print (v, FALSE);
}
