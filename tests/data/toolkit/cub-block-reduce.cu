// A block's sum with CUB's BlockReduce.
#include <cub/block/block_reduce.cuh>

__global__ void cub_sum(const int *in, int *out, int n)
{
    typedef cub::BlockReduce<int, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * 128 + threadIdx.x;

    int sum = BlockReduce(temp).Sum(i < n ? in[i] : 0);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}
