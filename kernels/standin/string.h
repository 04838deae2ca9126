/* string.h for kernels compiled by NVRTC: memcpy and memset are built into
 * NVRTC for device code; nothing else of string.h exists there. */
#pragma once
