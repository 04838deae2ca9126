/* device_functions.h for kernels compiled by NVRTC: threadIdx, blockIdx, blockDim,
 * gridDim and the device functions are built into NVRTC. */
#pragma once
