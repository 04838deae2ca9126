/* cuda.h for kernels compiled by NVRTC: the driver API is host code; a
 * kernel finds here only the version it compiles against (13000 for 13.0). */
#pragma once

#ifndef CUDA_VERSION
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#endif
