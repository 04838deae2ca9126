/* ks-array-run.h: a user kernel of the "any" mode run on arrays bound to
 * its arguments, through the worker.
 *
 * One place resolves and validates such a launch: the automatic grid comes
 * from the longest array, and the block and grid are checked against the
 * device's limits and the compiled kernel's real attributes before anything
 * runs, with the same messages as for image kernels (ks-user-run.h). The
 * check needs the compiler, never a GPU: a launch the device refuses is
 * refused the same way on a machine without one.
 *
 * A run may be a sequence of launches on the same arrays (a simulation's
 * steps), with pairs of arrays swapped between launches (ping-pong
 * buffers), and may set the module's __device__ and __constant__ variables
 * before it and read them after it, by their C++ names. */
#pragma once

#include "ks-engine.h"
#include "ks-worker.h"

G_BEGIN_DECLS

typedef struct
{
  KsKernelSource *source;         /* borrowed; the "any" mode */
  const GPtrArray *bindings;      /* KsBinding, borrowed: checked against the signature */
  const GPtrArray *arrays;        /* KsArray, borrowed: one per pointer argument in order;
                                   * NULL: made here from the bindings */
  KsLaunchConfig launch;          /* as chosen: the block, and the grid unless auto_grid */
  guint repeats;                  /* timed runs in the worker; 0 or 1: once */
  /* What the lessons' book bindings need beyond a binding's text: */
  guint64 dynamic_shared;         /* bytes of extern __shared__; 0: the source's //@shared */
  const guint *uncleared;         /* indices of out arguments that reach the kernel
                                   * uncleared (n_uncleared of them; a GPU only) */
  guint n_uncleared;
  gboolean track_writers;         /* the CPU engine's model of the run: */
  guint64 block_order_seed;       /* see ks_worker_launch_set_cpu_model */
  /* PyCUDA's shared=, sequences and get_global: */
  gboolean dynamic_shared_set;    /* dynamic_shared as given, 0 too, over the //@shared */
  guint launches;                 /* launches in a row, each on what the one before left
                                   * (ks_worker_launch_set_launches); 0 or 1: once. Not
                                   * with repeats above 1 */
  const char *const *swaps;       /* NULL, or pointer argument names in pairs, ending in
                                   * NULL: swaps[2k] and swaps[2k + 1] trade their arrays
                                   * between launches (ks_worker_launch_add_swap); the
                                   * results are the arrays as bound at the last launch */
  const GPtrArray *globals;       /* KsBinding, borrowed: __device__ and __constant__
                                   * variables set before the first launch,
                                   * NAME=TYPE[LENGTH]:INIT or NAME=VALUE (a scalar) */
  const char *const *read_globals;/* NULL-terminated: variables read back after the last
                                   * launch, into the result's run.globals */
} KsArrayRunRequest;

typedef struct
{
  KsLaunchConfig launch;          /* resolved: the grid that ran, or would have */
  KsCompileResult *compiled;      /* the compilation, also when it failed or the run did */
  KsKernelAttributes attributes;  /* as the worker reported them */
  KsWorkerRunResult run;          /* kernel time, printf, the out and inout arrays */
  GPtrArray *out_names;           /* char *: the argument names of run.arrays, in order */
  GPtrArray *global_names;        /* char *: the variables of run.globals, in order */
} KsArrayRunResult;

void          ks_array_run_request_init  (KsArrayRunRequest *request, KsKernelSource *source);
/* A module variable's binding for the request's globals: as
 * ks_binding_parse reads an argument's, and a name may be qualified
 * (sim::steps=0) for a variable in a namespace. */
KsBinding    *ks_binding_parse_global    (const char *text, GError **error);
void          ks_array_run_result_clear  (KsArrayRunResult *result);

/* Compiles (cached), resolves the launch for the arrays and checks it
 * against the limits and the kernel (KS_ERROR_LAUNCH_CONFIG, with a valid
 * *suggestion when not NULL). A source that does not compile:
 * KS_ERROR_COMPILE, the compilation still in *compiled. */
gboolean      ks_array_kernel_prepare    (KsWorker *worker, const KsDeviceLimits *limits,
                                          const KsArrayRunRequest *request,
                                          const GPtrArray *arrays, KsLaunchConfig *resolved,
                                          KsCompileResult **compiled,
                                          KsKernelAttributes *attributes,
                                          KsLaunchConfig *suggestion, GCancellable *cancellable,
                                          GError **error);

/* Prepares, binds the arguments and runs. result is filled as far as the
 * run got, on failure too (ks_array_run_result_clear it either way). The
 * worker says when it has no GPU to run on. */
gboolean      ks_array_kernel_run        (KsWorker *worker, const KsDeviceLimits *limits,
                                          const KsArrayRunRequest *request,
                                          KsArrayRunResult *result, GCancellable *cancellable,
                                          GError **error);

G_END_DECLS
