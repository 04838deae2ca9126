// 12-05 Saturating image addition: the grid-stride loop of 11-06 on two gray
// images as floats, every sum above 255 clamped to 255.
__global__ void add_num (float *result, const float *a, const float *b, int n)
{
  int tid = threadIdx.x + blockIdx.x * blockDim.x;

  while (tid < n)
    {
      float sum = a[tid] + b[tid];

      result[tid] = sum > 255.0f ? 255.0f : sum;
      tid += blockDim.x * gridDim.x;
    }
}
