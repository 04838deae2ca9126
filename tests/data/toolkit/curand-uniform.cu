// Monte-Carlo estimate of pi: each thread draws points in the unit square
// with cuRAND's default generator (XORWOW), one subsequence per thread, and
// keeps its first draw.
#include <curand_kernel.h>

__global__ void monte_carlo_pi(unsigned long long seed, float *first, unsigned int *inside,
                               int samples, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    curandState state;
    curand_init(seed, i, 0, &state);
    unsigned int hits = 0;
    for (int s = 0; s < samples; s++) {
        float x = curand_uniform(&state);
        float y = curand_uniform(&state);
        if (s == 0)
            first[i] = x;
        if (x * x + y * y <= 1.0f)
            hits++;
    }
    inside[i] = hits;
}

// The generator's raw numbers for subsequence 0.
__global__ void xorwow_raw(unsigned long long seed, unsigned int *out, int count)
{
    curandState state;
    curand_init(seed, 0, 0, &state);
    for (int k = 0; k < count; k++)
        out[k] = curand(&state);
}
