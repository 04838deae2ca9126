// 11-11 Reduction: map (a[i] * b[i]) then reduce (+) in shared memory. One
// block whose size is a power of two at least n; after every halving step
// the block's partial sums are copied to `steps` so each stage can be shown.
__global__ void dot_reduce (const unsigned int *a, const unsigned int *b, unsigned int *out,
                            unsigned int *steps, int n)
{
  extern __shared__ unsigned int partial[];
  unsigned int t = threadIdx.x;
  int level = 0;

  partial[t] = (int) t < n ? a[t] * b[t] : 0u;
  __syncthreads ();
  steps[t] = partial[t];
  for (unsigned int half = blockDim.x / 2; half > 0; half /= 2)
    {
      if (t < half)
        partial[t] += partial[t + half];
      __syncthreads ();
      level++;
      steps[level * blockDim.x + t] = partial[t];
      __syncthreads ();
    }
  if (t == 0)
    out[0] = partial[0];
}
