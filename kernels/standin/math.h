/* math.h for kernels compiled by NVRTC: the functions (sqrtf, expf, fabs,
 * isnan, …, with C++'s float overloads) are built into NVRTC; the constants
 * are what is left: INFINITY, NAN, HUGE_VAL and the M_ constants that
 * glibc's math.h gives C++ programs. */
#pragma once

/* CCCL's cuda/std/cmath defines these two as well (thrust/complex.h
 * includes it): its definitions stay where it came first. */
#ifndef INFINITY
#define INFINITY (1.0f / 0.0f)
#endif
#ifndef NAN
#define NAN (0.0f / 0.0f)
#endif
#define HUGE_VALF INFINITY
#define HUGE_VAL ((double) INFINITY)

#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
