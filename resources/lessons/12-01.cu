// 12-01 Histogram with global atomics: one thread per pixel; the bounds test
// comes before the load, and bins start at zero (the host clears them).
__global__ void atomic_hist (int *bins, const int *pixels, int size)
{
  int tid = threadIdx.x + blockDim.x * blockIdx.x;

  if (tid < size)
    atomicAdd (&bins[pixels[tid]], 1);
}
