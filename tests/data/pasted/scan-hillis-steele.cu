// An inclusive scan of one block with double-buffered shared memory.
#define SECTION_SIZE 1024

__global__ void Kogge_Stone_scan_kernel (float *X, float *Y, unsigned int InputSize)
{
  __shared__ float XY[2][SECTION_SIZE];
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  int pout = 0, pin = 1;

  XY[pout][threadIdx.x] = i < InputSize ? X[i] : 0.0f;
  __syncthreads ();
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2)
    {
      pout = 1 - pout;
      pin = 1 - pout;
      if (threadIdx.x >= stride)
        XY[pout][threadIdx.x] = XY[pin][threadIdx.x] + XY[pin][threadIdx.x - stride];
      else
        XY[pout][threadIdx.x] = XY[pin][threadIdx.x];
      __syncthreads ();
    }
  if (i < InputSize)
    Y[i] = XY[pout][threadIdx.x];
}
