// 11-06 as in the book: the same loop, launched with ceil(N/1024 + 1) = 978 blocks.
__global__ void add_num (float *result, const float *a, const float *b, int n)
{
  int tid = threadIdx.x + blockIdx.x * blockDim.x;

  while (tid < n)
    {
      result[tid] = a[tid] + b[tid];
      tid += blockDim.x * gridDim.x;
    }
}
