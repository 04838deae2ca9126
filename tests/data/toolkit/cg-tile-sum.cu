// A sum with cooperative groups: each warp-sized tile adds its values with
// shfl_down, and the tile's first thread adds the tile's sum to the total.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void tile_sum(const float *in, float *total, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;

    for (int offset = tile.size() / 2; offset > 0; offset /= 2)
        v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0)
        atomicAdd(total, v);
}
