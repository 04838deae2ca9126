// 11-09 as in the book: the size (3) is pasted into the source before it is
// compiled, only threadIdx is used, so the whole matrix must fit one block.
#define MATRIX_SIZE 3

__global__ void matrix_mul (const float *a, const float *b, float *c)
{
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  float sum = 0.0f;

  for (int k = 0; k < MATRIX_SIZE; k++)
    sum += a[ty * MATRIX_SIZE + k] * b[k * MATRIX_SIZE + tx];
  c[ty * MATRIX_SIZE + tx] = sum;
}
