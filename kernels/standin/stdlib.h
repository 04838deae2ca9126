/* stdlib.h for kernels compiled by NVRTC: malloc, free and abs are built
 * into NVRTC for device code; the exit codes are what is left. */
#pragma once

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
