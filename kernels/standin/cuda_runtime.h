/* cuda_runtime.h for kernels compiled by NVRTC: NVRTC declares the CUDA
 * built-ins itself (threadIdx, dim3, the vector types, atomics, math);
 * the runtime API is host code. */
#pragma once

#include <cuda_runtime_api.h>
