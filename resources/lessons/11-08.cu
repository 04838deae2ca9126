// 11-08 Dot product: each thread sums products over a grid-stride loop,
// then the block halves its partial sums in shared memory until one is left
// (the block size must be a power of two); the host adds the blocks' partials.
#define THREADS 512

__global__ void gpu_dot (const float *a, const float *b, float *partial, int n)
{
  __shared__ float cache[THREADS];
  float sum = 0.0f;

  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x)
    sum += a[i] * b[i];
  cache[threadIdx.x] = sum;
  __syncthreads ();
  for (int half = blockDim.x / 2; half > 0; half /= 2)
    {
      if (threadIdx.x < half)
        cache[threadIdx.x] += cache[threadIdx.x + half];
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = cache[0];
}
