// Tiled matrix multiplication with shared memory (square matrices of width n).
#include <math.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel (float *M, float *N, float *P, int Width)
{
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;
  float Pvalue = 0;

  for (int ph = 0; ph < ceil (Width / (float) TILE_WIDTH); ++ph)
    {
      if (Row < Width && ph * TILE_WIDTH + tx < Width)
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
      else
        Mds[ty][tx] = 0;
      if (ph * TILE_WIDTH + ty < Width && Col < Width)
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
      else
        Nds[ty][tx] = 0;
      __syncthreads ();
      for (int k = 0; k < TILE_WIDTH; ++k)
        Pvalue += Mds[ty][k] * Nds[k][tx];
      __syncthreads ();
    }
  if (Row < Width && Col < Width)
    P[Row * Width + Col] = Pvalue;
}
