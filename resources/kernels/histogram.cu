// Histogram: 256 bins counted over n bytes. Each block counts into its own
// bins in shared memory, where atomics are cheap and contend only within the
// block, then adds them to the global bins once: 256 global atomics per
// block instead of one per byte. Zero `bins` before the run.
//@block 256

__global__ void
histogram (unsigned int *bins, const unsigned char *data, int n)
{
  __shared__ unsigned int local[256];

  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    local[i] = 0;
  __syncthreads ();

  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd (&local[data[i]], 1u);
  __syncthreads ();

  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i] != 0)
      atomicAdd (&bins[i], local[i]);
}
