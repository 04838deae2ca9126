// The standard headers first, then the toolkit's, which define the same
// types and limits under NVRTC: they must agree.
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <cooperative_groups.h>
#include <curand_kernel.h>
#include <cuda/std/cmath>

__global__ void limits_of(uint64_t *big, float *inf, int *imax)
{
    big[0] = UINT64_MAX;
    inf[0] = INFINITY;
    imax[0] = INT_MAX;
}
