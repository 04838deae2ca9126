// 12-01 as in the book, on Linux or NumPy 2: numpy.int is int64 there, but the
// kernel still reads int, so it sees each 8-byte pixel as two 4-byte values.
__global__ void atomic_hist (int *bins, const int *pixels, int size)
{
  int tid = threadIdx.x + blockDim.x * blockIdx.x;
  int value = pixels[tid];

  if (tid < size)
    atomicAdd (&bins[value], 1);
}
