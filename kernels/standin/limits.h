/* limits.h for kernels compiled by NVRTC: the integer types' limits, as on
 * 64-bit Linux (char is signed, long is 64 bits). Where the toolkit's CCCL
 * is on the include path its cuda/std/climits gives them, so that they are
 * defined once, as its own headers define them, whichever is included
 * first. */
#pragma once

#if defined(__has_include) && __has_include(<cuda/std/climits>)
#include <cuda/std/climits>
#else
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295u
#define LONG_MIN (-9223372036854775807l - 1)
#define LONG_MAX 9223372036854775807l
#define ULONG_MAX 18446744073709551615ul
#define LLONG_MIN (-9223372036854775807ll - 1)
#define LLONG_MAX 9223372036854775807ll
#define ULLONG_MAX 18446744073709551615ull
#endif

#ifndef MB_LEN_MAX
#define MB_LEN_MAX 16
#endif
