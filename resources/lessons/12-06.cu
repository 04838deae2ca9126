// 12-06 Inversion as gpuarray's 255 - x runs it: the element-wise a*x + b
// kernel with a = -1 and b = 255, over a grid-stride loop.
__global__ void axpbz (float *z, const float *x, float a, float b, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    z[i] = a * x[i] + b;
}
