// 11-09 tiled as in the C twin: the products are added with += straight into
// C, which nobody cleared, and there are no bounds checks (width must be a
// multiple of TILE).
#define TILE 2

__global__ void matrix_mul_tiled (const float *a, const float *b, float *c, int width)
{
  __shared__ float tile_a[TILE][TILE];
  __shared__ float tile_b[TILE][TILE];
  int col = TILE * blockIdx.x + threadIdx.x;
  int row = TILE * blockIdx.y + threadIdx.y;

  for (int t = 0; t < width / TILE; t++)
    {
      tile_a[threadIdx.y][threadIdx.x] = a[row * width + t * TILE + threadIdx.x];
      tile_b[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * width + col];
      __syncthreads ();
      for (int k = 0; k < TILE; k++)
        c[row * width + col] += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
      __syncthreads ();
    }
}
