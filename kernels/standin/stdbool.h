/* stdbool.h for kernels compiled by NVRTC: C++ has bool, true and false. */
#pragma once

#define __bool_true_false_are_defined 1
