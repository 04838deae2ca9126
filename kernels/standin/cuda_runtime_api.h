/* cuda_runtime_api.h for kernels compiled by NVRTC: the runtime API is host
 * code; a kernel finds here only the runtime's version (13000 for 13.0). */
#pragma once

#include <cuda.h>

#ifndef CUDART_VERSION
#define CUDART_VERSION CUDA_VERSION
#endif
