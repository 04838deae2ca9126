// Host-header typedefs and fixed-width integers, as kernels written against
// nvcc's headers use them.
#include <cstdint>
#include <climits>

__global__ void pack (const uint8_t *bytes, uint32_t *words, ulong n_words, ushort shift)
{
  uint i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_words)
    {
      uint32_t w = 0;
      for (int k = 0; k < 4; k++)
        w |= (uint32_t) bytes[4 * i + k] << (8 * k);
      words[i] = (w << shift) | (w >> ((32 - shift) & 31));
      if (words[i] == UINT_MAX)
        words[i] = 0;
    }
}
