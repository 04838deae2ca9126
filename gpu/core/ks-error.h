#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define KS_ERROR (ks_error_quark ())

typedef enum
{
  KS_ERROR_FAILED,            /* anything else */
  KS_ERROR_INVALID_ARGUMENT,  /* a bad parameter value, unknown op or parameter, size mismatch */
  KS_ERROR_LAUNCH_CONFIG,     /* a launch configuration the device cannot run */
  KS_ERROR_UNAVAILABLE,       /* the engine or device cannot be used here (no driver, GPU, NPP) */
  KS_ERROR_DEVICE_LOST,       /* a sticky CUDA error happened earlier: no CUDA in this process */
  KS_ERROR_CUDA,              /* a CUDA call failed; the message names the call and the error */
  KS_ERROR_IMAGE,             /* an image could not be read or written */
  KS_ERROR_TOO_LARGE,         /* an image or allocation beyond the supported limits */
  KS_ERROR_COMPILE,           /* a user kernel did not compile; the diagnostics say why */
  KS_ERROR_KERNEL_FAULT,      /* a user kernel faulted (illegal address, trap, …) in the worker */
  KS_ERROR_TIMED_OUT,         /* a user kernel or its compilation ran past its time limit */
  KS_ERROR_WORKER,            /* the kernel worker process could not be started or talked to */
} KsError;

GQuark ks_error_quark (void);

G_END_DECLS
