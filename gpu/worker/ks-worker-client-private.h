/* ks-worker-client-private.h: what the files of KsWorker, the application's
 * side of the worker process, share: the object and a launch's insides, and
 * the locked steps of a request (ks-worker-process.c) that the requests
 * (ks-worker-compile.c, ks-worker-run.c) and the buffers they share
 * (ks-worker-ipc.c) are built on. Not for the worker's side.
 *
 * Like every header here it does not include config.h: the .c files that
 * include it have, so HAVE_CUDA says the same in all of them. */
#pragma once

#include <gio/gio.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-worker-private.h"

G_BEGIN_DECLS

struct _KsWorker
{
  GObject parent_instance;

  /* settings, read without the lock */
  int ordinal;
  guint timeout_ms;
  guint compile_timeout_ms;
  guint printf_fifo;
  guint arch_override;
  guint cached_arch;
  guint starts;

  /* The CPU engine's last module (ks-worker-emu.c), under its own lock: an
   * atomic reference-counted box, so that a run keeps its module while
   * another replaces it. */
  GMutex emu_lock;
  gpointer emu_module;
  GDestroyNotify emu_module_release;

  /* everything below: under lock, held for a whole request and its reply */
  GMutex lock;
  /* also under process_lock when it changes, so that is_running never
   * waits for a run to end */
  GMutex process_lock;
  GSubprocess *process;
  int fd;                      /* our end of the socket pair; -1 when stopped */
  guint process_printf_fifo;   /* what the running process was started with */
  gboolean ipc_disabled;
  GHashTable *env;             /* name → value (NULL: unset) for new processes */
  char **wrapper;              /* argv before the program (compute-sanitizer), or NULL */
  guint wrapper_slow_ms;       /* a wrapped process's time to start and to end */
  /* from the running process's hello */
  gboolean has_cuda;
  char *cuda_reason;
  guint device_arch;
  char *nvrtc_reason;
  /* the ordering events of this start (client side) */
  gboolean events_sent;
  gboolean last_run_used_ipc;
  gboolean ipc_fallback_said;
#if HAVE_CUDA
  cudaEvent_t ready;
  cudaEvent_t done;
#endif
  GHashTable *compile_cache;   /* key → KsCompileResult */
};

typedef struct
{
  KsWorkerArgKind kind;
  GBytes *bytes;               /* values; in and inout arrays */
  GArray *pointers;            /* KsWorkerPointer */
  gsize align;
  gsize size;                  /* out arrays */
  KsElemType type;             /* arrays, for the result */
  gsize length, rows, cols;
  KsValueType *element;        /* arrays of vectors, complex numbers or structs, or NULL */
  char *name;                  /* the parameter's name, when bound by name (findings) */
} LaunchArg;

typedef struct
{
  gpointer device;             /* the start of its allocation */
  gsize size;                  /* the allocation's size */
  const char *name;            /* for the CPU engine's findings, or NULL */
} LaunchBuffer;

/* What ks_worker_launch_share returned an index of: a pointer inside one of
 * the launch's buffers. */
typedef struct
{
  guint buffer;
  gsize delta;                 /* from the allocation's start */
} LaunchShare;

struct _KsWorkerLaunch
{
  GBytes *cubin;
  char *ptx;                   /* what the CPU emulator runs (ks-worker-emu.c) */
  char *lowered_name;
  KsDim3 grid;
  KsDim3 block;
  guint64 dynamic_shared;
  GArray *buffers;             /* LaunchBuffer */
  GArray *shares;              /* LaunchShare */
  GPtrArray *args;             /* LaunchArg */
  gpointer stream;
  guint repeats;
  /* The CPU engine's model of a launch (ks_worker_launch_set_cpu_model). */
  gboolean track_writers;
  guint64 block_order_seed;
  /* A sequence of launches and the module's variables. */
  guint launches;
  GArray *swaps;               /* guint pairs: argument indices */
  GPtrArray *set_globals;      /* LaunchGlobal, with bytes */
  GPtrArray *read_globals;     /* LaunchGlobal, with type and length */
  gboolean has_globals;        /* the PTX defines variables of the user's */
};

typedef struct
{
  char *symbol;
  GBytes *bytes;               /* set */
  KsElemType type;             /* read */
  gsize length;
} LaunchGlobal;

/* What ks_worker_run refuses before anything runs: repeats with a sequence,
 * swaps of arguments that are not two arrays of one size. */
gboolean      _ks_worker_launch_check   (const KsWorkerLaunch *launch, GError **error);

/* ---- the process (ks-worker-process.c); all with self->lock held ---------- */

/* Forgets the process: closes our end, drops the object and what its hello
 * said, and the ordering events of this start. */
void          _ks_worker_clear_process_locked (KsWorker *self);
/* Ends the process for good: SIGKILL, then reap it. */
void          _ks_worker_kill_locked    (KsWorker *self);
/* The process ended by itself (a fault, a protocol error): reap it, giving
 * it a moment to exit before it is killed; returns how it ended. */
char         *_ks_worker_reap_locked    (KsWorker *self);
/* Whether the process is there and nothing is waiting on its socket. */
gboolean      _ks_worker_process_alive_locked (KsWorker *self);
/* Starts the process unless it runs (a new one where it ended while idle or
 * runs with another printf FIFO); *ms: how long it took to answer, 0 when it
 * was running. */
gboolean      _ks_worker_ensure_started_locked (KsWorker *self, double *ms, GError **error);
/* Sends a request and reads its reply; on a time-out, a cancellation or a
 * dead process the process is gone afterwards (killed and reaped). The
 * reply's fields on ("ok", …); an error reply becomes *error. */
GVariant     *_ks_worker_exchange_locked (KsWorker *self, const char *command, GVariant *fields,
                                          guint timeout_ms, const char *what,
                                          GCancellable *cancellable, GError **error);

/* ---- runs without a GPU (ks-worker-emu.c) --------------------------------- */

/* The launch on the CPU emulator, in this process; the worker's lock is not
 * taken (the emulator shares nothing with the process). */
gboolean      _ks_worker_run_emulated   (KsWorker *self, KsWorkerLaunch *launch,
                                         GCancellable *cancellable, KsWorkerRunResult *result,
                                         GError **error);

/* ---- shared device buffers (ks-worker-ipc.c) ------------------------------ */

#if HAVE_CUDA
/* A CUDA error of this process as KS_ERROR_CUDA naming the call, cleared. */
gboolean      _ks_worker_client_check   (cudaError_t err, const char *call, GError **error);
/* The events that order the worker's run after this process's stream and
 * this process's stream after the run: created once per worker start. */
gboolean      _ks_worker_ensure_events_locked (KsWorker *self, GVariantDict *fields,
                                               GError **error);
#endif
/* The shared buffers as the worker gets them: IPC handles, or where this
 * process cannot export its memory, their bytes. *copied says which. */
gboolean      _ks_worker_build_buffers_locked (KsWorker *self, KsWorkerLaunch *launch,
                                               GVariantBuilder *builder, gboolean *copied,
                                               GError **error);

G_END_DECLS
