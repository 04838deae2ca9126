// 11-07 Squaring a matrix in place: the row width is a parameter and every
// thread checks that its cell exists, so any size works.
__global__ void square (float *a, int width, int height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < width && y < height)
    {
      int idx = x + y * width;

      a[idx] = a[idx] * a[idx];
    }
}
