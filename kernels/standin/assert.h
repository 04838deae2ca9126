/* assert.h for kernels compiled by NVRTC: assert in device code, as CUDA
 * has it. A failed assertion prints "FILE:LINE: FUNCTION: block: [..],
 * thread: [..] Assertion `EXPR` failed." and stops the kernel, and the
 * launch fails (a GPU's context cannot be used again: the worker is
 * restarted); the CPU engine reports it as a finding. Without effect when
 * NDEBUG is defined before the include. Not behind #pragma once: as in C,
 * each include follows the NDEBUG of that moment. */
#undef assert

#ifdef NDEBUG
#define assert(e) ((void) 0)
#else
#define assert(e) \
  ((e) ? (void) 0 : __assertfail (#e, __FILE__, __LINE__, __func__, sizeof (char)))
#endif
