// 12-03 as in the book: 65 536 threads in 64 blocks of 1024, the 256-pixel
// row width written into the index, no bounds check, double-precision
// weights; the host then truncates the float to uint8.
#define INDEX(a, b) a*256+b

__global__ void bgr2gray (float *result, const float *b, const float *g, const float *r)
{
  unsigned int idx = threadIdx.x + blockIdx.x * (blockDim.x * blockDim.y);
  unsigned int a = idx / 256;
  unsigned int c = idx % 256;

  result[INDEX (a, c)] = (0.299 * r[INDEX (a, c)] + 0.587 * g[INDEX (a, c)]
                          + 0.114 * b[INDEX (a, c)]);
}
