// 11-05 as in the book: one block of N threads indexed by threadIdx.x alone,
// no bounds check; N can never exceed the largest block (1024 threads).
__global__ void add_num (float *result, const float *a, const float *b)
{
  int i = threadIdx.x;

  result[i] = a[i] + b[i];
}
