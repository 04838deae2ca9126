// 11-05 Adding with In/Out bindings, any length: the index covers the grid
// and each thread checks it against n, so the data is not limited to one block.
__global__ void add_num (float *result, const float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    result[i] = a[i] + b[i];
}
