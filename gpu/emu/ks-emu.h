/* ks-emu.h: CUDA kernels run on the CPU, with CUDA's semantics, by
 * interpreting the PTX that NVRTC produces for them.
 *
 * The PTX is the compiler's own reading of the source: templates, device
 * functions, the math library (inlined from libdevice), fast intrinsics,
 * atomics, warp intrinsics and printf all arrive as PTX instructions, so the
 * emulator implements one instruction set rather than the CUDA C++ language.
 * NVRTC needs no GPU, and nothing but Kernelscope itself has to be installed
 * on a student's machine.
 *
 * A launch runs its grid block by block on worker threads. Inside a block the
 * warps of 32 lanes run in lockstep, one instruction for all active lanes of
 * a warp at a time; a warp whose lanes diverge runs the lanes at the lowest
 * instruction first, so that they meet again where the branches join.
 * bar.sync waits until every warp of the block has arrived or exited.
 *
 * Every memory access is checked: global addresses against the buffers the
 * launch was given, shared and local ones against the block's and the
 * thread's memory, alignment against the access's size. Shared memory keeps,
 * per byte, whether it was written and by which thread in which interval
 * between barriers, which finds reads of never-written shared memory and
 * races between two threads without a barrier between them. A finding is
 * reported like compute-sanitizer reports it (the kind, the address, the
 * thread and block, the source line from the PTX's .loc) and the access is
 * suppressed (a read gives zeros), so that one run shows every finding and
 * nothing outside the launch's memory is ever touched.
 *
 * Thread-safe: a module may be launched from several threads at once. */
#pragma once

#include <gio/gio.h>

#include "ks-kernel-common.h"

G_BEGIN_DECLS

/* Device addresses the kernel sees for the launch's buffers start here
 * (a generic address, like cudaMalloc's), each buffer 256-byte aligned. */
#define KS_EMU_GLOBAL_BASE G_GUINT64_CONSTANT (0x0000700000000000)
/* The most findings a result keeps; the count goes on. */
#define KS_EMU_MAX_FINDINGS 100
/* The most blocks a worker thread runs at once. */
#define KS_EMU_MAX_RESIDENT_BLOCKS 64
/* Local memory (stack frame and local arrays) a thread may have. */
#define KS_EMU_MAX_LOCAL_BYTES (512u * 1024u)

typedef enum
{
  KS_EMU_SPACE_GENERIC,
  KS_EMU_SPACE_GLOBAL,
  KS_EMU_SPACE_SHARED,
  KS_EMU_SPACE_LOCAL,
  KS_EMU_SPACE_CONST,
  KS_EMU_SPACE_PARAM,
} KsEmuSpace;

typedef enum
{
  KS_EMU_ACCESS_READ,
  KS_EMU_ACCESS_WRITE,
  KS_EMU_ACCESS_ATOMIC,
} KsEmuAccess;

typedef enum
{
  /* memcheck */
  KS_EMU_FINDING_OUT_OF_BOUNDS,     /* outside every buffer, or past the block's shared memory */
  KS_EMU_FINDING_MISALIGNED,        /* address not a multiple of the access's size */
  /* initcheck */
  KS_EMU_FINDING_UNINITIALIZED,     /* a read of shared memory no thread wrote */
  /* racecheck */
  KS_EMU_FINDING_SHARED_RACE,       /* two threads, one writing, no barrier between */
  /* synccheck */
  KS_EMU_FINDING_DIVERGENT_BARRIER, /* bar.sync reached by some lanes of a warp only */
  KS_EMU_FINDING_WARP_SYNC,         /* a *.sync intrinsic whose member mask names lanes
                                     * that are not there */
  /* the run */
  KS_EMU_FINDING_TRAP,              /* trap, or assert() failing */
  KS_EMU_FINDING_TIME_LIMIT,        /* stopped at the launch's time limit */
  KS_EMU_FINDING_STACK,             /* local memory past KS_EMU_MAX_LOCAL_BYTES, or calls too deep */
} KsEmuFindingKind;

typedef struct
{
  KsEmuFindingKind kind;
  KsEmuSpace space;       /* where the access went; GENERIC when it resolved nowhere */
  KsEmuAccess access;
  guint size;             /* bytes of the access; 0 for findings that are not accesses */
  guint64 address;        /* as the kernel computed it */
  KsDim3 thread;          /* threadIdx of the thread that made the access */
  KsDim3 block;           /* blockIdx */
  char *file;             /* from the PTX's .file/.loc: the source's name, or NULL */
  guint line;             /* 1-based; 0 when the PTX has no line for the instruction */
  char *function;         /* the PTX function it happened in (its mangled name) */
  /* A race's other access: the thread and line that came first. */
  KsEmuAccess other_access;
  KsDim3 other_thread;
  guint other_line;
  /* The whole report in compute-sanitizer's words, several lines:
   * "Invalid __global__ read of size 4 bytes\n    at vector_add.cu:12 …\n
   *  by thread (255,0,0) in block (3,0,0)\n    Address 0x… is out of bounds …" */
  char *message;
} KsEmuFinding;

void          ks_emu_finding_free        (KsEmuFinding *finding);
const char   *ks_emu_finding_kind_name   (KsEmuFindingKind kind); /* "out-of-bounds" */

/* ---- modules ---------------------------------------------------------- */

typedef struct _KsEmuModule KsEmuModule;

/* Parses PTX (as nvrtcGetPTX returns it; compiled with -lineinfo the
 * findings name source lines). KS_ERROR_INVALID_ARGUMENT for text that is
 * not PTX or uses an instruction the emulator does not implement, naming
 * the instruction and its PTX line. */
KsEmuModule  *ks_emu_module_new          (const char *ptx, GError **error);
void          ks_emu_module_free         (KsEmuModule *module);
/* The .entry functions, by their PTX (lowered) names. */
guint         ks_emu_module_n_entries    (const KsEmuModule *module);
const char   *ks_emu_module_entry_name   (const KsEmuModule *module, guint i);
/* An entry's parameters as its .param declarations lay them out: how many,
 * and each one's size and alignment in bytes. FALSE: no such entry. */
gboolean      ks_emu_module_entry_params (const KsEmuModule *module, const char *entry,
                                          guint *n_params, gsize *sizes, gsize *aligns,
                                          guint max_params);
/* Bytes of static __shared__ memory the entry uses (its .shared variables). */
guint64       ks_emu_module_entry_shared (const KsEmuModule *module, const char *entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsEmuModule, ks_emu_module_free)

/* ---- launches --------------------------------------------------------- */

typedef struct _KsEmuLaunch KsEmuLaunch;

/* A launch of entry (its PTX name) over grid × block threads with
 * dynamic_shared bytes of extern __shared__ memory. The shape is checked
 * when it runs (at most 1024 threads a block, CUDA's grid limits). */
KsEmuLaunch  *ks_emu_launch_new          (const KsEmuModule *module, const char *entry,
                                          KsDim3 grid, KsDim3 block, guint64 dynamic_shared);
void          ks_emu_launch_free         (KsEmuLaunch *launch);
/* Memory the kernel may read and write in place (host memory of the
 * caller's, which must outlive the run): returns the device address the
 * kernel sees for its first byte. name is used in findings ("the array
 * “out”"); it may be NULL. */
guint64       ks_emu_launch_add_buffer   (KsEmuLaunch *launch, gpointer data, gsize size,
                                          const char *name);
/* The next parameter's bytes, in the entry's order (a pointer parameter is
 * 8 bytes: a device address from ks_emu_launch_add_buffer). The sizes are
 * checked against the entry's when it runs. */
void          ks_emu_launch_add_param    (KsEmuLaunch *launch, gconstpointer data, gsize size);
/* Stops the run after ms of wall time with a TIME_LIMIT finding and
 * KS_ERROR_TIMED_OUT (0: no limit; the default is 2000). */
void          ks_emu_launch_set_time_limit (KsEmuLaunch *launch, guint ms);
/* Worker threads for the blocks (0: one per core, the default). */
void          ks_emu_launch_set_threads  (KsEmuLaunch *launch, guint n_threads);
/* The racecheck and initcheck tracking of shared memory (on by default);
 * memcheck is always on. */
void          ks_emu_launch_set_shared_checks (KsEmuLaunch *launch, gboolean on);
/* Records who last wrote each elem_size-byte element of the buffer that
 * starts at address (from ks_emu_launch_add_buffer): block_of[i] the block's
 * linear index (x fastest), thread_of[i] the thread's in its block. The
 * arrays hold the buffer's size / elem_size entries and must outlive the
 * run; elements nobody wrote keep what they held. */
void          ks_emu_launch_track_writers (KsEmuLaunch *launch, guint64 address, gsize elem_size,
                                           gint32 *block_of, gint32 *thread_of);
/* The order the blocks start in: 0 (the default) in index order, shared out
 * among the worker threads; any other seed a permutation drawn from it,
 * which, with one worker thread, makes "blocks run in any order" show and
 * come out the same for the same seed. */
void          ks_emu_launch_set_block_order (KsEmuLaunch *launch, guint64 seed);
/* Blocks each worker thread runs at once (1, the default: each block to its
 * end before the next starts; at most KS_EMU_MAX_RESIDENT_BLOCKS). With
 * more, their warps take turns an instruction at a time, as a GPU's
 * multiprocessor interleaves its resident blocks, so that a race between
 * blocks (a non-atomic read-modify-write of global memory) loses updates as
 * it can on the GPU — the same ones for the same order. Slower. */
void          ks_emu_launch_set_resident_blocks (KsEmuLaunch *launch, guint n_blocks);

/* The module's __device__ and __constant__ variables (its .global and .const
 * ones) as launches share them. Without it every launch starts from the
 * module's initial values; with it the launches of a sequence see what the
 * ones before them wrote, and the caller sets the variables before the
 * first and reads them after the last (PyCUDA's get_global). */
typedef struct _KsEmuGlobals KsEmuGlobals;

/* The variables as the module initialises them. */
KsEmuGlobals *ks_emu_globals_new         (const KsEmuModule *module);
void          ks_emu_globals_free        (KsEmuGlobals *globals);
/* The bytes of the variable of that PTX name, to read or write between
 * launches (*size: how many), or NULL when the module has none. */
guint8       *ks_emu_globals_lookup      (KsEmuGlobals *globals, const char *name, gsize *size);
/* The launch uses globals (of its module, outliving the run) in place. A
 * launch's writes to them are its own until it ends: one launch at a time
 * per KsEmuGlobals. */
void          ks_emu_launch_set_globals  (KsEmuLaunch *launch, KsEmuGlobals *globals);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsEmuLaunch, ks_emu_launch_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsEmuGlobals, ks_emu_globals_free)

typedef struct
{
  GPtrArray *findings;        /* KsEmuFinding: the first KS_EMU_MAX_FINDINGS, in a stable
                               * order (by block in the order they started, then by the
                               * order they happened in) */
  guint64 n_findings;         /* all of them */
  char *printf_output;        /* device printf, block by block in the order they started
                               * (blockIdx order unless ks_emu_launch_set_block_order) */
  guint64 printf_lines;
  guint64 lane_instructions;  /* instructions executed, counted per active lane */
  guint64 global_atomics;     /* atomic operations (atom, red) per lane on global memory */
  guint64 shared_atomics;     /* and on shared memory */
  double ms;                  /* wall time of the run */
} KsEmuResult;

void          ks_emu_result_clear        (KsEmuResult *result);

/* Runs the launch. TRUE when it ran to the end — with findings or without
 * (result->n_findings says); FALSE with KS_ERROR_LAUNCH_CONFIG (an
 * impossible shape, parameters that do not match the entry),
 * KS_ERROR_TIMED_OUT (the time limit), KS_ERROR_KERNEL_FAULT (a finding the
 * kernel cannot go on after: a divergent barrier, a trap, the stack) or
 * G_IO_ERROR_CANCELLED; result holds what the run found until then in
 * every case. */
gboolean      ks_emu_launch_run          (KsEmuLaunch *launch, GCancellable *cancellable,
                                          KsEmuResult *result, GError **error);

G_END_DECLS
