// Add arrays: the tutorial's vector addition, result = a + b, over any
// number of elements. The grid-stride loop lets any grid cover all n: each
// thread starts at its global index and steps by the whole grid's size.
// Bind a and b to input arrays, result to an output array, n to their length.

__global__ void
add (float *result, float *a, float *b, int n)
{
  const int stride = gridDim.x * blockDim.x;

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    result[i] = a[i] + b[i];
}
