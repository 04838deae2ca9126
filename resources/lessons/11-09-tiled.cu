// 11-09 tiled, as the C twin does it: each block loads a TILE x TILE tile of
// A and of B into shared memory per step, so each element of A and B is read
// from global memory width/TILE times instead of width times. The sum lives
// in a register, started at zero; C is written once.
#define TILE 2

__global__ void matrix_mul_tiled (const float *a, const float *b, float *c, int width)
{
  __shared__ float tile_a[TILE][TILE];
  __shared__ float tile_b[TILE][TILE];
  int col = TILE * blockIdx.x + threadIdx.x;
  int row = TILE * blockIdx.y + threadIdx.y;
  float sum = 0.0f;

  for (int t = 0; t < (width + TILE - 1) / TILE; t++)
    {
      int ak = t * TILE + threadIdx.x;
      int bk = t * TILE + threadIdx.y;

      tile_a[threadIdx.y][threadIdx.x] = row < width && ak < width ? a[row * width + ak] : 0.0f;
      tile_b[threadIdx.y][threadIdx.x] = bk < width && col < width ? b[bk * width + col] : 0.0f;
      __syncthreads ();
      for (int k = 0; k < TILE; k++)
        sum += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
      __syncthreads ();
    }
  if (row < width && col < width)
    c[row * width + col] = sum;
}
