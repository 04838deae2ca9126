// A block's sum with cooperative_groups/reduce.h: cg::reduce over each
// warp-sized tile, then over the tiles' sums in shared memory.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void block_sum(const int *in, int *out, int n)
{
    __shared__ int partial[32];
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    int v = cg::reduce(tile, i < n ? in[i] : 0, cg::plus<int>());
    if (tile.thread_rank() == 0)
        partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        int s = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0;
        s = cg::reduce(tile, s, cg::plus<int>());
        if (tile.thread_rank() == 0)
            out[blockIdx.x] = s;
    }
}
