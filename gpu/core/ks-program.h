#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The worker program, kernelscope-worker: it compiles and runs user kernels
 * (gpu/worker/) and renders vector images (gpu/io/ks-image-render.c). */
#define KS_WORKER_PROGRAM "kernelscope-worker"

/* Its path: KS_WORKER_PATH when set, else beside the running executable
 * (installed next to it, or app/ of the build tree beside tests/), else
 * ../libexec from it, else the libexecdir Kernelscope was configured for. */
char         *ks_worker_program_find    (GError **error);

G_END_DECLS
