// 11-12 Inclusive scan (Hillis-Steele) in shared memory: at step k every
// element adds the one 2^k places before it, so after log2(blockDim.x) steps
// element i holds the sum of elements 0..i. One block, a power of two at
// least n; each step's values are copied to `steps` so they can be shown.
__global__ void inclusive_scan (int *data, int *steps, int n)
{
  extern __shared__ int buf[];
  int t = threadIdx.x;
  int level = 0;

  buf[t] = t < n ? data[t] : 0;
  __syncthreads ();
  for (int offset = 1; offset < (int) blockDim.x; offset *= 2)
    {
      int add = t >= offset ? buf[t - offset] : 0;

      __syncthreads ();
      buf[t] += add;
      __syncthreads ();
      steps[level * blockDim.x + t] = buf[t];
      level++;
    }
  if (t < n)
    data[t] = buf[t];
}
