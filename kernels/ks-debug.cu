/* ks-debug.cu: a kernel that faults on purpose.
 *
 * An illegal address is a sticky error: every later CUDA call in the process
 * fails, and only a new process can use the device again. The engine must then
 * mark the device lost, report it, and keep the application (and its CPU
 * engine) running. Real kernels should never fault, so the tests that check
 * that path need one that always does.
 */

#include "ks-kernels.h"

namespace {

/* The address comes in as an argument rather than as a constant in the kernel:
 * the compiler may treat a store through a constant null-page pointer as
 * undefined and drop it or turn it into a trap, which is a different error. */
__global__ void
ks_debug_fault_kernel (volatile uint32_t *target)
{
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *target = 0xdeadbeefu;
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_debug_fault_launch (cudaStream_t stream)
{
  /* The first page of the device's virtual address space is never mapped, so
   * this aligned store is an illegal address (cudaErrorIllegalAddress at the
   * next synchronisation), not a misaligned one. */
  volatile uint32_t *target = reinterpret_cast<volatile uint32_t *> ((uintptr_t) 0x10);

  ks_debug_fault_kernel<<<1, 1, 0, stream>>> (target);
  return cudaGetLastError ();
}
