/* ks-evict.cu: evicts the L2 cache by reading a buffer larger than it.
 *
 * The benchmark empties L2 before every timed kernel so that the kernel reads
 * its inputs from device memory. Overwriting a scratch buffer (a memset) does
 * that too, but leaves L2 full of dirty lines, and the timed kernel then pays
 * for writing them back as it evicts them: tens of megabytes on an H200, a
 * fixed cost that is a larger share of a small op's time. Reading the buffer
 * leaves only clean lines behind, so the timed kernel moves its own bytes and
 * no one else's.
 */

#include "ks-kernels.h"

namespace {

/* The loads are kept by folding every word into a value that is stored only
 * when it is not the buffer's content (zeros): never, but the compiler cannot
 * know. */
__global__ void
ks_evict_kernel (const uint4 *__restrict__ buf, size_t n, uint32_t *sink)
{
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  uint32_t acc = 0;

  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
      const uint4 v = buf[i];
      acc |= v.x | v.y | v.z | v.w;
    }
  if (acc != 0)
    *sink = acc;
}

} /* namespace */

extern "C" cudaError_t
ks_cuda_evict_launch (const void *buf, size_t bytes, uint32_t *sink, int sm_count,
                      cudaStream_t stream)
{
  if (buf == NULL || sink == NULL || bytes < sizeof (uint4) || sm_count <= 0)
    return cudaErrorInvalidValue;
  ks_evict_kernel<<<(unsigned) sm_count * 8u, 256, 0, stream>>> (
    static_cast<const uint4 *> (buf), bytes / sizeof (uint4), sink);
  return cudaGetLastError ();
}
