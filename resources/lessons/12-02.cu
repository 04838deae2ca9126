// 12-02 Histogram privatised in shared memory: each block counts into its own
// 256 bins with shared atomics, then adds them to the global bins. The clear
// and merge loops stride over the bins by blockDim.x, so any block size
// works, and a grid of few blocks gives each thread many pixels: global
// atomics = blocks x 256, far fewer than one per pixel.
#define NUM_BINS 256

__global__ void shared_hist (int *bins, const int *pixels, int size)
{
  __shared__ int cache[NUM_BINS];

  for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x)
    cache[i] = 0;
  __syncthreads ();
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < size; i += blockDim.x * gridDim.x)
    atomicAdd (&cache[pixels[i]], 1);
  __syncthreads ();
  for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x)
    atomicAdd (&bins[i], cache[i]);
}
