// Every thread says which block and thread it is: the lines arrive in the
// order the blocks ran, which is not the order of their indices.
__global__ void
hello ()
{
  printf ("block %u thread %u\n", blockIdx.x, threadIdx.x);
}
