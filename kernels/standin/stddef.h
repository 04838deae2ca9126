/* stddef.h for kernels compiled by NVRTC: NVRTC has size_t, ptrdiff_t and
 * NULL built in; offsetof is what is left. NVRTC's front end has no
 * __builtin_offsetof, but its __INTADDR__ takes a member's address from a
 * null pointer as a constant expression. */
#pragma once

/* CCCL's headers define it too, where it is not yet defined. */
#ifndef offsetof
#define offsetof(type, member) ((size_t) __INTADDR__ (&((type *) 0)->member))
#endif
