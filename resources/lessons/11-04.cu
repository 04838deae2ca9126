// 11-04 Adding two numbers with explicit copies: the host allocates three
// device buffers, copies a and b in, launches one thread, copies the result out.
__global__ void add_num (float *result, const float *a, const float *b)
{
  int i = threadIdx.x;

  result[i] = a[i] + b[i];
}
