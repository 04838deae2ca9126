// 11-03 as in the book: every block prints its index and nothing else, so
// the only record of the order is the console, which nothing orders.
__global__ void blocks ()
{
  printf ("I am in block no: %d \n", blockIdx.x);
}
