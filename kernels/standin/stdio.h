/* stdio.h for kernels compiled by NVRTC: device code's printf is built into
 * NVRTC (and counted by ks-user.cuh); files and streams do not exist on the
 * device, so there is nothing else to declare. */
#pragma once

#define EOF (-1)
