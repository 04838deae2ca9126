// 11-03 Blocks run in any order. Each block takes the next slot of `order`
// with an atomic counter and writes its own index there, so the array records
// the order the blocks really ran in; the printf lines come in that order too.
__global__ void blocks (int *order, int *next)
{
  int slot = atomicAdd (next, 1);

  if (slot < (int) gridDim.x)
    order[slot] = blockIdx.x;
  printf ("I am in block no: %d \n", blockIdx.x);
}
