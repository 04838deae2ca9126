// 12-01's C twin without atomics: every thread reads its bin, adds one and
// writes it back; threads running at the same time overwrite each other.
__global__ void histogram_without_atomic (int *bins, const int *input, int size)
{
  int tid = threadIdx.x + blockDim.x * blockIdx.x;
  int item = input[tid];

  if (tid < size)
    bins[item]++;
}
