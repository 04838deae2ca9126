/* ks-user-run.h: a user kernel of the expression or image mode run on an
 * engine's images through the worker, like a built-in op.
 *
 * The application's engine owns the inputs and the output. On a CUDA engine
 * the worker process runs the kernel on them through CUDA IPC; on the CPU
 * engine a worker without a device runs its PTX on the emulator
 * (ks-emu.h), in place on the engine's host memory, with its checks. The launch is resolved and
 * validated with the compiled kernel's real attributes before anything
 * runs, with the same messages and suggestions as for built-in ops. */
#pragma once

#include "ks-engine.h"
#include "ks-worker.h"

G_BEGIN_DECLS

typedef struct
{
  KsKernelSource *source;         /* borrowed */
  KsParams params;                /* in the order of the source's parameters */
  KsLaunchConfig launch;          /* as chosen; resolved here */
  KsBuffer *inputs[KS_OP_MAX_INPUTS];
  KsBuffer *output;               /* NULL: a new buffer of the output's size and format */
  gboolean instrument;            /* record a KsCoverage (expression mode) */
  guint repeats;                  /* timed runs in the worker; 0 or 1: once */
} KsUserRunRequest;

typedef struct
{
  KsLaunchConfig launch;          /* resolved: the grid that really ran */
  KsBuffer *output;               /* a new reference */
  KsCoverage *coverage;           /* when instrumented */
  KsCompileResult *compiled;      /* the compilation that ran (cached in the worker client) */
  KsKernelAttributes attributes;  /* as the worker's CUDA reported them */
  KsWorkerRunResult run;          /* kernel time, printf */
} KsUserRunResult;

void          ks_user_run_request_init  (KsUserRunRequest *request, KsKernelSource *source);
void          ks_user_run_result_clear  (KsUserRunResult *result);

/* Resolves the launch for the inputs, compiles (cached), checks the launch
 * against the device and the kernel (KS_ERROR_LAUNCH_CONFIG, with a valid
 * *suggestion when not NULL). */
gboolean      ks_user_kernel_prepare    (KsWorker *worker, KsEngine *engine,
                                         const KsUserRunRequest *request,
                                         KsLaunchConfig *resolved, KsCompileResult **compiled,
                                         KsKernelAttributes *attributes,
                                         KsLaunchConfig *suggestion, GCancellable *cancellable,
                                         GError **error);

/* Prepares and runs, on a worker of the engine's device (ks_worker_new (-1)
 * for the CPU engine). The output is written only by a run that succeeded:
 * after a fault or a time-out the caller's previous result is untouched
 * (the kernel writes to a fresh buffer when request->output is NULL). A
 * failed run on the CPU engine still leaves its findings and printf output
 * in result->run (ks_user_run_result_clear it either way). */
gboolean      ks_user_kernel_run        (KsWorker *worker, KsEngine *engine,
                                         const KsUserRunRequest *request,
                                         KsUserRunResult *result, GCancellable *cancellable,
                                         GError **error);

G_END_DECLS
