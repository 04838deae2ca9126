// Hello from every thread, as a first CUDA lesson prints it.
#include <stdio.h>

__global__ void hello ()
{
  printf ("Hello from block %d, thread %d\n", blockIdx.x, threadIdx.x);
}
