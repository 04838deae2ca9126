// 12-02 as in the book: one table entry per thread, but the launch has 257
// threads per block for 256 entries, and 256 x 257 threads for 65 536
// pixels, so every thread sees at most one pixel.
__global__ void shared_hist (int *bins, const int *pixels, int size)
{
  __shared__ int cache[256];
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int offset = blockDim.x * gridDim.x;

  cache[threadIdx.x] = 0;
  __syncthreads ();
  while (i < size)
    {
      atomicAdd (&cache[pixels[i]], 1);
      i += offset;
    }
  __syncthreads ();
  atomicAdd (&bins[threadIdx.x], cache[threadIdx.x]);
}
