// PyCUDA's complex numbers: z = (z·w + 1) / 2i + 1 for every element.
#include <pycuda-complex.hpp>

typedef pycuda::complex<float> cfloat;

__global__ void affine (cfloat *z, const cfloat *w, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = (z[i] * w[i] + 1.0f) / cfloat (0.0f, 2.0f) + pycuda::exp (cfloat ());
}
