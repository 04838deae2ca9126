// A text histogram with per-block bins in shared memory.
#define NUM_BINS 7

__global__ void histogram_privatized_kernel (unsigned char *input, unsigned int *bins,
                                             unsigned int num_elements)
{
  __shared__ unsigned int histo_s[NUM_BINS];
  uint tid = blockIdx.x * blockDim.x + threadIdx.x;

  for (uint binIdx = threadIdx.x; binIdx < NUM_BINS; binIdx += blockDim.x)
    histo_s[binIdx] = 0u;
  __syncthreads ();
  for (uint i = tid; i < num_elements; i += blockDim.x * gridDim.x)
    {
      int alphabet_position = input[i] - 'a';
      if (alphabet_position >= 0 && alphabet_position < 26)
        atomicAdd (&histo_s[alphabet_position / 4], 1);
    }
  __syncthreads ();
  for (uint binIdx = threadIdx.x; binIdx < NUM_BINS; binIdx += blockDim.x)
    {
      uint binValue = histo_s[binIdx];
      if (binValue > 0)
        atomicAdd (&bins[binIdx], binValue);
    }
}
