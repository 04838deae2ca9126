/* ks-worker.h: the worker process that compiles and runs user kernels.
 *
 * A user kernel can fault (an illegal address, a trap, a misaligned access)
 * or never end. A fault is sticky: it ends CUDA in the process it happens in.
 * So user kernels, and NVRTC with them, run in `kernelscope-worker`, a child
 * process with its own CUDA context. The application keeps its device
 * buffers and shares them with the worker through CUDA IPC memory handles,
 * ordered by IPC events, so results stay in device memory and reach the
 * screen through interop. A watchdog kills a run that passes its time limit;
 * after a fault or a kill the worker is started again on the next request,
 * and the application's own CUDA context is untouched.
 *
 * The protocol is GVariant messages over a socket pair (ks-worker-private.h);
 * device printf is captured in the worker and returned with each run.
 */
#pragma once

#include <gio/gio.h>

#include "ks-array.h"
#include "ks-emu.h"
#include "ks-launch.h"
#include "ks-nvrtc.h"
#include "ks-program.h"
#include "ks-user-kernel.h"

G_BEGIN_DECLS

#define KS_WORKER_DEFAULT_TIMEOUT_MS 2000
#define KS_WORKER_DEFAULT_COMPILE_TIMEOUT_MS 30000
#define KS_WORKER_DEFAULT_PRINTF_FIFO (1u << 20)
/* The most launches one run makes in a row (ks_worker_launch_set_launches). */
#define KS_WORKER_MAX_LAUNCHES 1000000
/* The architecture compiled for when no GPU is there to ask. */
#define KS_WORKER_DEFAULT_ARCH 90

#define KS_TYPE_WORKER (ks_worker_get_type ())
G_DECLARE_FINAL_TYPE (KsWorker, ks_worker, KS, WORKER, GObject)

/* A worker for CUDA device `ordinal` (the application's engine's), or -1 for
 * compilation only (no GPU). The process starts on the first request.
 * Thread-safe: requests from several threads are served one at a time. */
KsWorker     *ks_worker_new             (int ordinal);
int           ks_worker_get_ordinal     (KsWorker *self);

/* The watchdog's limit for one run (default 2 s; a sequence of launches is one
 * run) and for one compilation. */
void          ks_worker_set_timeout_ms  (KsWorker *self, guint ms);
guint         ks_worker_get_timeout_ms  (KsWorker *self);
void          ks_worker_set_compile_timeout_ms (KsWorker *self, guint ms);
/* cudaLimitPrintfFifoSize of the worker's context; a change restarts it. */
void          ks_worker_set_printf_fifo (KsWorker *self, gsize bytes);
gsize         ks_worker_get_printf_fifo (KsWorker *self);

/* Whether the process is alive now; how many times it was started. */
gboolean      ks_worker_is_running      (KsWorker *self);
guint         ks_worker_get_starts      (KsWorker *self);
/* Starts the process now (it starts by itself on the first request):
 * *ms gets how long it took until it answered. */
gboolean      ks_worker_start           (KsWorker *self, double *ms, GError **error);
void          ks_worker_stop            (KsWorker *self);

/* The architecture the worker compiles for: the device's, else
 * KS_WORKER_DEFAULT_ARCH; ks_worker_set_arch overrides it (0: back to that). */
guint         ks_worker_get_arch        (KsWorker *self);
void          ks_worker_set_arch        (KsWorker *self, guint arch);

/* Compiles in the worker (ks_kernel_source_compile there). Results are
 * cached here by source, launch shape and arch. A source that does not
 * compile is a result with success FALSE; errors are for a worker that could
 * not compile at all (NVRTC missing: KS_ERROR_UNAVAILABLE; timed out:
 * KS_ERROR_TIMED_OUT; crashed: KS_ERROR_WORKER). */
KsCompileResult *ks_worker_compile      (KsWorker *self, const KsKernelSource *source,
                                         const KsLaunchConfig *resolved_launch,
                                         gboolean instrumented, GCancellable *cancellable,
                                         GError **error);

/* The compiled entry's attributes as the worker's CUDA reports them
 * (cudaFuncGetAttributes); without a GPU, from the compiler's resources. */
gboolean      ks_worker_kernel_attributes (KsWorker *self, const KsCompileResult *compiled,
                                           guint entry, guint64 dynamic_shared,
                                           KsKernelAttributes *attrs, GError **error);
/* The compiler's resources as launch validation wants them. */
void          ks_kernel_resources_to_attributes (const KsKernelResources *resources,
                                                 guint64 dynamic_shared,
                                                 KsKernelAttributes *attrs);

/* One launch of a compiled entry, its arguments in order. */
typedef struct _KsWorkerLaunch KsWorkerLaunch;

/* Where a pointer inside an argument's bytes must point in the worker:
 * into shared device buffer `buffer` (ks_worker_launch_share) at `offset`. */
typedef struct
{
  gsize at;        /* byte offset of the pointer inside the argument */
  guint buffer;
  gsize offset;
} KsWorkerPointer;

KsWorkerLaunch *ks_worker_launch_new    (const KsCompileResult *compiled, guint entry,
                                         KsDim3 grid, KsDim3 block, guint64 dynamic_shared);
void          ks_worker_launch_free     (KsWorkerLaunch *launch);
/* Shares device memory of this process (the start of a cudaMalloc
 * allocation, `size` bytes; host memory of the CPU engine for a worker
 * without a device) with the worker; returns its index. name (static, or
 * NULL) is what the CPU engine's findings call the memory: "the image “in”". */
guint         ks_worker_launch_share    (KsWorkerLaunch *launch, gpointer device_ptr, gsize size,
                                         const char *name);
/* An argument passed by value (a scalar, a struct), `align` its alignment. */
void          ks_worker_launch_add_value (KsWorkerLaunch *launch, gconstpointer data, gsize size,
                                          gsize align);
/* An argument by value whose bytes hold pointers to shared buffers (the
 * ks_image struct, coverage buffers): the worker writes them in. */
void          ks_worker_launch_add_value_with_pointers (KsWorkerLaunch *launch,
                                                        gconstpointer data, gsize size,
                                                        gsize align,
                                                        const KsWorkerPointer *pointers,
                                                        guint n_pointers);
/* A pointer argument to a host array: copied to the worker's device memory
 * before the run (in, inout) and back after it (out, inout: in the result). */
void          ks_worker_launch_add_array (KsWorkerLaunch *launch, const KsArray *array,
                                          KsArrayDirection direction);
/* Adds an "any" kernel's arguments in its signature's order: each pointer
 * its array (arrays: one per pointer argument, in order) in the binding's
 * direction, each scalar its bound value. out_names (when not NULL) gets the
 * names of the out and inout arrays, the order ks_worker_run returns them in.
 * FALSE when an argument is unbound or a value does not fit its type. */
gboolean      ks_worker_launch_bind     (KsWorkerLaunch *launch, const GPtrArray *args,
                                         const GPtrArray *bindings, const GPtrArray *arrays,
                                         GPtrArray *out_names, GError **error);
/* The automatic grid of an array kernel: one thread per element of the
 * longest array, along x. */
KsDim3        ks_worker_auto_grid       (const KsDim3 *block, const GPtrArray *arrays);
/* The CUDA stream of this process that produced the shared inputs and will
 * consume the outputs: the run waits for it, and it waits for the run. NULL:
 * the caller has synchronised. */
void          ks_worker_launch_set_stream (KsWorkerLaunch *launch, gpointer cuda_stream);
/* Time the kernel with the timing protocol's repeats in the worker (1: once). */
void          ks_worker_launch_set_repeats (KsWorkerLaunch *launch, guint repeats);
/* For a run on the CPU engine (a worker without a device; a GPU ignores
 * this): with track_writers, who last wrote each 4-byte word of the out and
 * inout arrays (KsWorkerRunResult's block_of and thread_of); with a
 * block_order_seed other than 0, the blocks start in an order drawn from
 * it, 32 at a time on one thread, their warps interleaved an instruction at
 * a time, so that races between blocks lose updates as on a GPU and a run
 * is the same for the same seed. */
void          ks_worker_launch_set_cpu_model (KsWorkerLaunch *launch, gboolean track_writers,
                                              guint64 block_order_seed);

/* Runs the kernel `launches` times in a row in one request (1: once, the
 * default), each launch on what the one before left in the arrays and in the
 * module's variables: nothing is copied or cleared between them (a
 * simulation's steps, an iteration). Each launch is timed (the result's
 * launch_ms). Not with repeats above 1, which time one launch again and
 * again from the same inputs: ks_worker_run refuses both. The worker's time
 * limit is for the whole sequence, as for the repeats. */
void          ks_worker_launch_set_launches (KsWorkerLaunch *launch, guint launches);
/* Between two launches, arguments a and b (indices in the order added: two
 * arrays of the same size, each in one pair at most) trade their memory:
 * ping-pong buffers, launch k reading a's and writing b's, launch k + 1 the
 * other way round. The out and inout arrays come back as the arguments were
 * bound at the last launch: b's result is what the last launch wrote
 * through b, whichever memory that was. */
void          ks_worker_launch_add_swap (KsWorkerLaunch *launch, guint a, guint b);
/* Writes bytes into the module's variable `symbol` (its PTX name; a
 * __device__ or __constant__ variable of exactly that size) before the
 * first launch. */
void          ks_worker_launch_set_global (KsWorkerLaunch *launch, const char *symbol,
                                           GBytes *bytes);
/* Reads the module's variable `symbol` back after the last launch, into
 * the result's globals in the order asked, as length elements of type
 * (which must make up the variable's size). */
void          ks_worker_launch_read_global (KsWorkerLaunch *launch, const char *symbol,
                                            KsElemType type, gsize length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsWorkerLaunch, ks_worker_launch_free)

/* A __device__ or __constant__ variable of a module, as its PTX declares it. */
typedef struct
{
  char *symbol;        /* the PTX name: the C++ name at namespace scope, mangled in a
                        * namespace ("_ZN2ns5coeffE") */
  gsize size;          /* bytes */
  gboolean constant;   /* __constant__ (.const), else __device__ (.global) */
  gboolean is_array;   /* declared with [N]: arrays, and structs and vectors as bytes */
  KsElemType type;     /* a scalar's from its PTX type (integers as unsigned), else
                        * KS_ELEM_OTHER */
} KsModuleGlobal;

void          ks_module_global_free     (KsModuleGlobal *global);
/* The module-scope .global and .const variables the PTX defines, in its
 * order, without Kernelscope's own (the printf line counter). */
GPtrArray    *ks_module_globals_from_ptx (const char *ptx);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsModuleGlobal, ks_module_global_free)

typedef struct
{
  double kernel_ms;          /* CUDA events in the worker: the median of the repeats */
  double kernel_min_ms;
  double kernel_max_ms;
  double round_trip_ms;      /* request sent to reply read */
  char *printf_output;       /* device printf in the order the device flushed it */
  guint64 printf_lines;      /* lines received */
  guint64 printf_lines_lost; /* lines printed but overwritten in the FIFO (overflow) */
  GPtrArray *arrays;         /* KsArray: the out and inout arrays, in the order added */
  /* Runs on the CPU emulator (a worker without a GPU, ks-emu.h): */
  gboolean emulated;         /* the CPU engine ran it; kernel_ms is the emulator's wall time */
  GPtrArray *findings;       /* KsEmuFinding: what its checks found (NULL on a GPU), kept on
                              * a failed run too */
  guint64 n_findings;        /* all of them; findings holds the first KS_EMU_MAX_FINDINGS */
  guint64 lane_instructions; /* instructions executed, per active thread */
  guint64 global_atomics;    /* atomic operations per thread on global memory */
  guint64 shared_atomics;    /* and on shared memory */
  /* With ks_worker_launch_set_cpu_model's track_writers, per array of
   * `arrays` (NULL elsewhere): gint32 per 4-byte word, the block (linear)
   * and the thread in it that wrote it last, -1 where nobody did. */
  GPtrArray *block_of;
  GPtrArray *thread_of;
  /* Sequences (ks_worker_launch_set_launches) and module variables: */
  guint launches_run;        /* launches that ran to their end */
  GArray *launch_ms;         /* double: each launch's time in order, for more than one launch
                              * (kernel_ms and its min and max are then over the launches) */
  GPtrArray *globals;        /* KsArray: the variables ks_worker_launch_read_global asked for */
} KsWorkerRunResult;

void          ks_worker_run_result_clear (KsWorkerRunResult *result);

/* Runs the launch. Errors: KS_ERROR_KERNEL_FAULT (the cause in plain words
 * and the CUDA error; the worker is gone and starts again on the next
 * request), KS_ERROR_TIMED_OUT (killed by the watchdog), KS_ERROR_LAUNCH_CONFIG
 * (refused by CUDA before running), KS_ERROR_UNAVAILABLE (no GPU),
 * G_IO_ERROR_CANCELLED (the worker is stopped). */
gboolean      ks_worker_run             (KsWorker *self, KsWorkerLaunch *launch,
                                         GCancellable *cancellable,
                                         KsWorkerRunResult *result, GError **error);

/* Plain words for a CUDA error a user kernel caused ("The kernel read or
 * wrote an address outside any allocation"). */
const char   *ks_worker_describe_fault  (int cuda_error);

G_END_DECLS
