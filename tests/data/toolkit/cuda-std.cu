// libcu++ in device code: cuda::std::array, numeric_limits, the fixed-width
// types and cuda::std::complex.
#include <cuda/std/array>
#include <cuda/std/complex>
#include <cuda/std/cstdint>
#include <cuda/std/limits>

__global__ void std_things(int *sums, cuda::std::complex<float> *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    cuda::std::array<int, 4> a = {1, 2, 3, 4};
    int s = 0;
    for (int v : a)
        s += v * i;
    sums[i] = s < cuda::std::numeric_limits<cuda::std::int32_t>::max() ? s : -1;
    z[i] = z[i] * cuda::std::complex<float>(0.0f, 1.0f);
}
