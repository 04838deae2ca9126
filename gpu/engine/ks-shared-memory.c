/* CUDA buffers whose memory OpenGL can use as its own (ks_engine_new_shareable_buffer).
 *
 * cudaMalloc's memory cannot leave CUDA. Memory made with the virtual memory
 * management calls (cuMemCreate with a POSIX file descriptor as its handle
 * type, mapped at an address of our own reservation) can be exported as a
 * file descriptor, which GL_EXT_memory_object_fd imports as the storage of a
 * GL buffer: the two then read and write the same bytes. The calls are the
 * driver's; they are reached through the runtime (cudaGetDriverEntryPointByVersion)
 * so that nothing links libcuda. The allocation is rounded up to the
 * device's granularity (2 MiB on the H200), which is why only display
 * buffers are made this way. */
#include "config.h"

#include <unistd.h>

#include "ks-engine-private.h"
#include "ks-error.h"

#if HAVE_CUDA

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

/* The driver ABI version the function pointers below are declared for. */
#define ENTRY_POINT_VERSION 12000

struct _KsSharedAlloc
{
  int device;
  CUmemGenericAllocationHandle handle;
  CUdeviceptr address;
  gsize size;                /* reserved, mapped and exported: a multiple of the granularity */
};

typedef struct
{
  gboolean loaded;
  char *missing;             /* why the calls cannot be used, or NULL */
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute;
  PFN_cuMemGetAllocationGranularity_v10020 get_granularity;
  PFN_cuMemCreate_v10020 create;
  PFN_cuMemRelease_v10020 release;
  PFN_cuMemAddressReserve_v10020 reserve;
  PFN_cuMemAddressFree_v10020 address_free;
  PFN_cuMemMap_v10020 map;
  PFN_cuMemUnmap_v10020 unmap;
  PFN_cuMemSetAccess_v10020 set_access;
  PFN_cuMemExportToShareableHandle_v10020 export_handle;
} DriverCalls;

static DriverCalls driver;
static GMutex driver_lock;

static gboolean
load_one (const char *symbol, void **fn, GString *missing)
{
  enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  cudaError_t err = cudaGetDriverEntryPointByVersion (symbol, fn, ENTRY_POINT_VERSION,
                                                      cudaEnableDefault, &status);

  if (err == cudaSuccess && status == cudaDriverEntryPointSuccess && *fn != NULL)
    return TRUE;
  (void) cudaGetLastError ();
  *fn = NULL;
  g_string_append_printf (missing, "%s%s", missing->len > 0 ? ", " : "", symbol);
  return FALSE;
}

static const DriverCalls *
driver_calls (GError **error)
{
  g_mutex_lock (&driver_lock);
  if (!driver.loaded)
    {
      g_autoptr (GString) missing = g_string_new (NULL);

      load_one ("cuDeviceGetAttribute", (void **) &driver.device_get_attribute, missing);
      load_one ("cuMemGetAllocationGranularity", (void **) &driver.get_granularity, missing);
      load_one ("cuMemCreate", (void **) &driver.create, missing);
      load_one ("cuMemRelease", (void **) &driver.release, missing);
      load_one ("cuMemAddressReserve", (void **) &driver.reserve, missing);
      load_one ("cuMemAddressFree", (void **) &driver.address_free, missing);
      load_one ("cuMemMap", (void **) &driver.map, missing);
      load_one ("cuMemUnmap", (void **) &driver.unmap, missing);
      load_one ("cuMemSetAccess", (void **) &driver.set_access, missing);
      load_one ("cuMemExportToShareableHandle", (void **) &driver.export_handle, missing);
      if (missing->len > 0)
        driver.missing = g_strdup_printf ("the CUDA driver does not provide %s", missing->str);
      driver.loaded = TRUE;
    }
  g_mutex_unlock (&driver_lock);
  if (driver.missing != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "GPU memory cannot be shared with OpenGL: %s", driver.missing);
      return NULL;
    }
  return &driver;
}

static gboolean
check_driver (CUresult result, const char *call, GError **error)
{
  if (result == CUDA_SUCCESS)
    return TRUE;
  g_set_error (error, KS_ERROR,
               result == CUDA_ERROR_OUT_OF_MEMORY ? KS_ERROR_TOO_LARGE : KS_ERROR_FAILED,
               "%s failed with CUDA driver error %d", call, (int) result);
  return FALSE;
}

static void
alloc_free (const DriverCalls *d, KsSharedAlloc *a)
{
  if (a->address != 0)
    {
      (void) d->unmap (a->address, a->size);
      (void) d->address_free (a->address, a->size);
    }
  if (a->handle != 0)
    (void) d->release (a->handle);
  g_free (a);
}

gboolean
_ks_cuda_shared_alloc (int device, KsBuffer *buffer, GError **error)
{
  const DriverCalls *d = driver_calls (error);
  g_autofree KsSharedAlloc *a = NULL;
  CUmemAllocationProp prop = { 0 };
  CUmemAccessDesc access = { 0 };
  size_t granularity = 0;
  int vmm = 0, fd_export = 0;
  gsize bytes = buffer->pitch * buffer->height;
  gboolean ok;

  if (d == NULL || !_ks_cuda_check (cudaSetDevice (device), "cudaSetDevice", error))
    return FALSE;
  if (d->device_get_attribute (&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                               device) != CUDA_SUCCESS
      || d->device_get_attribute (&fd_export,
                                  CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                                  device) != CUDA_SUCCESS
      || !vmm || !fd_export)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "GPU memory cannot be shared with OpenGL: CUDA device %d %s", device,
                   !vmm ? "does not support virtual memory management"
                        : "cannot export memory as a file descriptor");
      return FALSE;
    }

  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  if (!check_driver (d->get_granularity (&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                     "cuMemGetAllocationGranularity", error))
    return FALSE;
  granularity = MAX (granularity, (size_t) 1);

  a = g_new0 (KsSharedAlloc, 1);
  a->device = device;
  a->size = (bytes + granularity - 1) / granularity * granularity;
  ok = check_driver (d->create (&a->handle, a->size, &prop, 0), "cuMemCreate", error);
  if (!ok && g_error_matches (*error, KS_ERROR, KS_ERROR_TOO_LARGE))
    {
      g_clear_error (error);
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "The GPU has not enough free memory for a %u×%u image (%.1f MiB): "
                   "cuMemCreate failed with CUDA_ERROR_OUT_OF_MEMORY", buffer->width,
                   buffer->height, (double) a->size / (1024.0 * 1024.0));
    }
  if (ok)
    ok = check_driver (d->reserve (&a->address, a->size, granularity, 0, 0),
                       "cuMemAddressReserve", error);
  if (ok)
    {
      ok = check_driver (d->map (a->address, a->size, 0, a->handle, 0), "cuMemMap", error);
      if (!ok)
        {
          /* Reserved but not mapped: only the reservation goes. */
          (void) d->address_free (a->address, a->size);
          a->address = 0;
        }
    }
  if (ok)
    {
      access.location = prop.location;
      access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      ok = check_driver (d->set_access (a->address, a->size, &access, 1), "cuMemSetAccess", error);
    }
  if (!ok)
    {
      alloc_free (d, g_steal_pointer (&a));
      return FALSE;
    }
  buffer->data = (gpointer) (guintptr) a->address;
  buffer->shared = g_steal_pointer (&a);
  return TRUE;
}

void
_ks_cuda_shared_free (KsBuffer *buffer, gpointer stream)
{
  const DriverCalls *d;

  if (buffer->shared == NULL)
    return;
  d = driver_calls (NULL);
  if (d != NULL && ks_cuda_lost_reason () == NULL)
    {
      cudaSetDevice (buffer->shared->device);
      /* The stream may still write the buffer. OpenGL keeps its own
       * reference to the memory it imported, so what it still draws stays. */
      cudaStreamSynchronize ((cudaStream_t) stream);
      (void) cudaGetLastError ();
      alloc_free (d, buffer->shared);
    }
  else
    {
      g_free (buffer->shared);
    }
  buffer->shared = NULL;
  buffer->data = NULL;
}

int
_ks_buffer_export_fd (const KsBuffer *buffer, gsize *size, GError **error)
{
  const DriverCalls *d;
  int fd = -1;

  if (buffer->shared == NULL)
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "The buffer's memory was not made to be shared with OpenGL");
      return -1;
    }
  d = driver_calls (error);
  if (d == NULL
      || !check_driver (d->export_handle (&fd, buffer->shared->handle,
                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                        "cuMemExportToShareableHandle", error))
    return -1;
  *size = buffer->shared->size;
  return fd;
}

#else /* !HAVE_CUDA */

gboolean
_ks_cuda_shared_alloc (int device, KsBuffer *buffer, GError **error)
{
  (void) device;
  (void) buffer;
  g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "This build of Kernelscope has no CUDA engine");
  return FALSE;
}

void
_ks_cuda_shared_free (KsBuffer *buffer, gpointer stream)
{
  (void) stream;
  g_free (buffer->shared);
  buffer->shared = NULL;
}

int
_ks_buffer_export_fd (const KsBuffer *buffer, gsize *size, GError **error)
{
  (void) buffer;
  (void) size;
  g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "This build of Kernelscope has no CUDA engine");
  return -1;
}

#endif /* HAVE_CUDA */
