// Escape times of the Mandelbrot set with cuComplex.
#include <cuComplex.h>

__global__ void mandelbrot (int *counts, int width, int height, int max_iter)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= width || y >= height)
    return;
  cuFloatComplex c = make_cuFloatComplex (-2.0f + 3.0f * x / width, -1.5f + 3.0f * y / height);
  cuFloatComplex z = make_cuFloatComplex (0.0f, 0.0f);
  int n = 0;
  while (n < max_iter && cuCabsf (z) <= 2.0f)
    {
      z = cuCaddf (cuCmulf (z, z), c);
      n++;
    }
  counts[y * width + x] = n;
}
