// Element-wise addition as the runtime API's samples write it.
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vectorAdd (const float *A, const float *B, float *C, int numElements)
{
  int i = blockDim.x * blockIdx.x + threadIdx.x;

  if (i < numElements)
    C[i] = A[i] + B[i] + 0.0f;
}
