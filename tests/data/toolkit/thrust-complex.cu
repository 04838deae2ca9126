// thrust/complex.h includes the host headers <complex> and <sstream>.
#include <thrust/complex.h>

__global__ void rotate(thrust::complex<float> *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = z[i] * thrust::complex<float>(0.0f, 1.0f);
}
