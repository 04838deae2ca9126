#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  KS_DEVICE_KIND_CPU,
  KS_DEVICE_KIND_CUDA,
} KsDeviceKind;

/* The limits launch validation and occupancy need. The CPU device reports the
 * limits of one multiprocessor of an sm_90 device (1024 threads per block,
 * 227 KiB of shared memory a block with opt-in, …) so that lessons and
 * validation behave the same on both engines. */
typedef struct
{
  guint max_threads_per_block;
  guint max_block_dim[3];
  guint max_grid_dim[3];
  guint64 shared_mem_per_block;         /* without opt-in */
  guint64 shared_mem_per_block_optin;
  guint64 shared_mem_per_sm;
  guint64 reserved_shared_mem_per_block;
  guint regs_per_block;
  guint regs_per_sm;
  guint warp_size;
  guint max_threads_per_sm;
  guint max_blocks_per_sm;
  guint sm_count;
  guint cc_major;
  guint cc_minor;
} KsDeviceLimits;

/* One row of the device panel: a group ("Compute", "Memory", "Limits",
 * "Features", "Derived", "Software"), a stable key, a label, a value
 * (GVariant of type int64, uint64, double, boolean or string) and a unit. */
typedef struct
{
  const char *group;
  const char *key;
  const char *label;
  GVariant *value;
  const char *unit;
} KsDeviceProperty;

#define KS_TYPE_DEVICE (ks_device_get_type ())
G_DECLARE_FINAL_TYPE (KsDevice, ks_device, KS, DEVICE, GObject)

/* The CPU device first, then every CUDA device. Never empty. Element type: KsDevice. */
GPtrArray            *ks_devices_enumerate            (void);

/* Whether CUDA can be used in this process. FALSE with the reason (no driver,
 * driver too old, no device, a build without CUDA, device lost). Probed once. */
gboolean              ks_cuda_available               (GError **error);
/* Driver and runtime versions as 13000 for 13.0; 0 when unknown. */
int                   ks_cuda_driver_version          (void);
int                   ks_cuda_runtime_version         (void);
/* The sticky error that made CUDA unusable in this process, or NULL. */
const char           *ks_cuda_lost_reason             (void);
/* Whether a cudaError_t leaves the context corrupt: every later CUDA call
 * fails, and only a new process can use the GPU again (cudaDeviceReset does
 * not help). FALSE for every code in a build without CUDA. */
gboolean              ks_cuda_error_is_sticky         (int code);

KsDevice             *ks_device_get_cpu               (void);
KsDevice             *ks_device_get_cuda              (int ordinal, GError **error);

KsDeviceKind          ks_device_get_kind              (KsDevice *self);
/* -1 for the CPU device. */
int                   ks_device_get_ordinal           (KsDevice *self);
const char           *ks_device_get_name              (KsDevice *self);
/* "cpu" or "cuda:N". */
const char           *ks_device_get_id                (KsDevice *self);
const KsDeviceLimits *ks_device_get_limits            (KsDevice *self);
/* Element type: KsDeviceProperty, owned by the device. */
const GArray         *ks_device_get_properties        (KsDevice *self);
const KsDeviceProperty *ks_device_lookup_property     (KsDevice *self, const char *key);
/* Derived peaks; 0 when unknown. */
double                ks_device_get_peak_bandwidth_gbs (KsDevice *self);
double                ks_device_get_peak_fp32_gflops  (KsDevice *self);

/* A value formatted for people ("80 GiB", "1.98 GHz", "Yes"). */
char                 *ks_device_property_format       (const KsDeviceProperty *prop);

G_END_DECLS
