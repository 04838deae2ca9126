// 11-10 An element-wise kernel as ElementwiseKernel generates it: the
// operation on element i inside a grid-stride loop over n elements.
__global__ void add (const float *d_a, const float *d_b, float *d_c, int n)
{
  for (int i = blockDim.x * blockIdx.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    d_c[i] = d_a[i] + d_b[i];
}
