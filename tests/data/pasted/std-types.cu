// Argument types spelled with their namespace, as C++ code writes them.
#include <cstdint>

__global__ void twice (std::int32_t *out, const ::uint8_t *in, std::size_t n)
{
  std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2;
}
