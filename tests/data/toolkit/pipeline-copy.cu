// An asynchronous copy into shared memory with cuda_pipeline.h's primitives.
#include <cuda_pipeline.h>

__global__ void staged_double(const float *in, float *out, int n)
{
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        __pipeline_memcpy_async(&tile[threadIdx.x], &in[i], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (i < n)
        out[i] = 2.0f * tile[threadIdx.x];
}
