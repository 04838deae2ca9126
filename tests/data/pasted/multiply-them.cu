// PyCUDA's first example: one block, one thread per element.
__global__ void multiply_them (float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
