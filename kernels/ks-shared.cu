/* ks-shared.cu: lets a kernel launch with more dynamic shared memory than a
 * block gets without asking. */

#include "ks-kernels.h"

extern "C" cudaError_t
ks_cuda_allow_shared (const void *kernel, size_t dynamic)
{
  struct cudaFuncAttributes attr;
  int device = 0, optin = 0;
  cudaError_t err = cudaFuncGetAttributes (&attr, kernel);

  if (err != cudaSuccess)
    return err;
  /* Within what the kernel may have already (48 KiB with its static shared
   * memory, unless it opted in before). */
  if (dynamic <= (size_t) attr.maxDynamicSharedSizeBytes)
    return cudaSuccess;
  err = cudaGetDevice (&device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute (&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err != cudaSuccess)
    return err;
  if (attr.sharedSizeBytes + dynamic > (size_t) optin)
    return cudaErrorInvalidValue;
  /* The most the device allows, whatever this launch asks for: the same value
   * from every caller, so that two threads launching the kernel with
   * different sizes cannot lower it under each other's launch. */
  return cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               optin - (int) attr.sharedSizeBytes);
}
