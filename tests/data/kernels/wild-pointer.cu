// Writes a terabyte past its array: an illegal address, which ends the
// worker's CUDA context and nothing else.
__global__ void
wild (int *p)
{
  p[(1ull << 40) + threadIdx.x] = 1;
}
