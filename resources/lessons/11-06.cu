// 11-06 A million additions: a grid-stride loop, so any grid covers any n.
__global__ void add_num (float *result, const float *a, const float *b, int n)
{
  int tid = threadIdx.x + blockIdx.x * blockDim.x;

  while (tid < n)
    {
      result[tid] = a[tid] + b[tid];
      tid += blockDim.x * gridDim.x;
    }
}
