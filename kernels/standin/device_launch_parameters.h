/* device_launch_parameters.h for kernels compiled by NVRTC: threadIdx, blockIdx, blockDim,
 * gridDim and the device functions are built into NVRTC. */
#pragma once
