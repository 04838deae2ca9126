// 11-09 Matrix product, one thread per cell of C: the size is a parameter
// and threads outside the matrix do nothing.
__global__ void matrix_mul (const float *a, const float *b, float *c, int width)
{
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;

  if (row < width && col < width)
    {
      float sum = 0.0f;

      for (int k = 0; k < width; k++)
        sum += a[row * width + k] * b[k * width + col];
      c[row * width + col] = sum;
    }
}
