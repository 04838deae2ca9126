/* ks-lesson.h: the tutorial's examples as lessons that run, show and break.
 *
 * A lesson is one example of the PyCUDA tutorial (chapters 11 and 12): a
 * short explanation, a kernel in the "any" mode (ks-user-kernel.h: a
 * __global__ function whose pointers are bound to host arrays), its launch,
 * its data, and a check of the result against an independent CPU reference.
 * Where the tutorial has a defect, a lesson has variants: the fixed one
 * (variants[0]) and one or more "as in the book" that reproduce the defect's
 * consequence deterministically on the CPU engine.
 *
 * Engines. The lesson's kernel source (or an edited copy) is compiled with
 * NVRTC in the worker (ks-worker.h) and runs on both engines as it is. On
 * the CPU engine its PTX runs on the emulator (ks-emu.h) with CUDA's
 * semantics: the launch as given, warps of 32 lanes in lockstep, every
 * access checked, so an access past an array or shared table is caught,
 * counted and reported, never made (a read yields 0). The blocks start one
 * at a time in an order drawn from the seed, so a race (the non-atomic
 * histogram, 11-07's overlapping cells) loses updates the same way for the
 * same seed, and "blocks run in any order" (11-03) shows. On CUDA the kernel
 * runs in the worker process; the CPU engine runs it too, on the same data,
 * for the side-by-side time, the equality check, the owners and the
 * faults.
 *
 * Sources are in the GResource bundle (/org/kernelscope/lessons/NAME.cu,
 * from resources/lessons/): ks_lesson_get_source gives the pristine text,
 * which is what "Reset" restores. The image lessons read
 * /org/kernelscope/lessons/samples/lesson-*.png (256×256, derived from the
 * bundled astronaut photo, and drawn circles).
 *
 * For a panel: list ks_lesson_registry; show lesson->title, ->explanation
 * and the variants (variant->book marks the ones that reproduce a defect,
 * variant->defects names them, variant->description says what to look for);
 * put ks_lesson_get_source in the editor; run with ks_lesson_run in a GTask
 * (it blocks: the CUDA path talks to the worker); show the report's inputs
 * and outputs (KsArray with rows × cols; small arrays carry per element the
 * block and thread that wrote it, for hovering), images, printf, check,
 * steps, atomics, faults, timings and notes. ks_lesson_report_to_json is the
 * same report as data. A run takes a GCancellable (options->cancellable):
 * cancelled, it stops at the next repeat, stage or block and returns
 * G_IO_ERROR_CANCELLED without a report.
 *
 * Two lessons differ in shape. 11-02 (device properties) runs no kernel
 * (lesson->host_only): the host enumerates the devices and prints what the
 * book prints, on CUDA through the runtime's cudaGetDeviceProperties and
 * cudaDeviceGetAttribute in this process, on the CPU engine what the book
 * prints where there is no NVIDIA device, with what the CPU engine stands
 * for in the notes; its source is the host code, for reading (an edit is
 * refused). 12-04 (webcam) runs 12-03's kernel on a sequence of frames
 * (options->size of them, 30 by default) that the engine makes from the
 * seed, since the camera lives in the window: lesson->live_op says which
 * op of the main window does the same on the live camera.
 *
 * A variant can run under compute-sanitizer on CUDA (ks_lesson_sanitize):
 * the lesson's worker process is started under the tool, so the same
 * kernel, data and launch run, with the buffers as the book allocates them
 * (an Out binding left uncleared, the book's 256 bins without the guard
 * slot); the report holds what the tool counted and said.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "ks-array.h"
#include "ks-engine.h"
#include "ks-image.h"
#include "ks-timing.h"
#include "ks-worker.h"

G_BEGIN_DECLS

/* Arrays up to this many elements record which block and thread wrote each element. */
#define KS_LESSON_OWNER_LIMIT 4096
/* Accesses past an array or shared table listed one by one (all are counted). */
#define KS_LESSON_MAX_LISTED_FAULTS 16
/* The bytes a never-initialised output (an Out binding) starts with in the
 * book variants: the "garbage" an allocator may leave, made visible. */
#define KS_LESSON_POISON_BYTE 0x5A

typedef struct
{
  const char *id;            /* "fixed", "book", "int64", "race", "tiled", "tiled-book" */
  const char *title;         /* "As in the book" */
  const char *description;   /* what it shows and what to look for, 1–3 sentences */
  gboolean book;             /* reproduces a defect of the tutorial */
  const char *defects;       /* the defects it shows, as docs/lessons.md numbers them: "P2 P3"; "" none */
  const char *source_name;   /* "12-01-book.cu": the resource under /org/kernelscope/lessons/ */
  const char *sanitizer;     /* NULL, or what compute-sanitizer would report on CUDA (the
                              * report's notes do not repeat it) */
  gboolean cuda_deterministic; /* FALSE: CUDA's result varies from run to run (a race) */
  const char *sanitizer_tool;  /* the compute-sanitizer tool that shows this variant's defect
                                * ("memcheck", "initcheck", "racecheck"); NULL: see
                                * ks_lesson_get_sanitizer_tool */
} KsLessonVariant;

typedef struct _KsLessonImpl KsLessonImpl;

typedef struct
{
  const char *id;            /* "11-06" */
  const char *slug;          /* "million-additions" */
  const char *title;         /* "A million additions, GPU against CPU" */
  const char *script;        /* the tutorial's file: "Chapter11/06_add_number.py" */
  const char *explanation;   /* 2–3 sentences: what it teaches */
  const KsLessonVariant *variants;  /* variants[0]: the default (fixed) */
  guint n_variants;
  /* TRUE: no kernel runs (11-02); the source is the host's code, shown for
   * reading, and the lesson takes no launch, size or edited source. */
  gboolean host_only;
  /* A lesson a window may also run on the live camera (12-04): the op of
   * the main window's registry that computes what the lesson's kernel does
   * ("gray": BT.601, as 12-03's kernel), to open the camera with in the main
   * window, and the block to launch it with (1024 × 1 × 1, the book's; the
   * grid covers the frame, 64 blocks at the book's 256×256). NULL and zeros
   * for the others. */
  const char *live_op;
  KsDim3 live_block;
  const KsLessonImpl *impl;  /* private */
} KsLesson;

/* Every lesson in the tutorial's order; *n gets how many. */
const KsLesson *const *ks_lesson_registry (guint *n);
/* The registry as JSON: [{id, slug, title, explanation, host_only, live (12-04:
 * {op, block}), variants: [{id, book, defects, description, sanitizer_tool}]}]. */
JsonNode     *ks_lesson_registry_to_json (void);
/* By id ("11-06") or slug ("million-additions"); NULL when unknown. */
const KsLesson *ks_lesson_lookup (const char *name);
/* By variant id; NULL (or "") gives variants[0]; NULL when unknown. */
const KsLessonVariant *ks_lesson_lookup_variant (const KsLesson *lesson, const char *id);
/* The first variant with book set; NULL when the lesson has none. */
const KsLessonVariant *ks_lesson_get_book_variant (const KsLesson *lesson);

/* The pristine kernel source of a variant (what Reset restores). */
char         *ks_lesson_get_source     (const KsLesson *lesson, const KsLessonVariant *variant,
                                        GError **error);

typedef struct
{
  guint repeats;             /* timed runs after the warm-up (at least 1) */
  guint size;                /* 0: the lesson's size; else N (11-05), the matrix side (11-07,
                              * 11-09), the number of frames (12-04, at most
                              * KS_LESSON_MAX_FRAMES) — the other lessons refuse it */
  guint64 seed;              /* random data and the CPU engine's block order (11-03) */
  const char *source;        /* NULL: the pristine kernel; else an edited one */
  gboolean skip_cpu_run;     /* CUDA runs: do not run the kernel on the CPU engine beside it */
  /* NULL, or borrowed for the call: checked before each timed repeat, between
   * the stages (reference, compile, runs, copies) and inside the CPU engine's
   * runs; cancelled, the run ends with G_IO_ERROR_CANCELLED and no report.
   * Cancelling from another thread is safe. */
  GCancellable *cancellable;
  /* Another launch than the lesson's, to break it on purpose: each of grid
   * and block is used when all its sides are non-zero (zeros: the lesson's).
   * The book's and the fixed kernels run it as given; the CPU engine runs at
   * most KS_LESSON_MAX_THREADS threads in a lesson. */
  KsDim3 grid;
  KsDim3 block;
} KsLessonOptions;

/* The most threads a lesson's launch may have on the CPU engine, which runs
 * a lesson on one worker thread. */
#define KS_LESSON_MAX_THREADS (G_GUINT64_CONSTANT (1) << 24)
/* 12-04's frames: how many by default, and at most. */
#define KS_LESSON_DEFAULT_FRAMES 30
#define KS_LESSON_MAX_FRAMES 300

void          ks_lesson_options_init   (KsLessonOptions *options);

/* The launch a variant uses with these options. */
void          ks_lesson_get_launch     (const KsLesson *lesson, const KsLessonVariant *variant,
                                        const KsLessonOptions *options, KsDim3 *grid,
                                        KsDim3 *block, guint64 *dynamic_shared);

/* One array of the report: a kernel argument (name as in the source) or a
 * value the host derives ("dot", "bins as int64"). */
typedef struct
{
  char *name;
  char *role;                /* "input", "output", "inout", "host" */
  KsArray *array;            /* with its shape (rows × cols; vectors cols = 0) */
  /* Per element (arrays of at most KS_LESSON_OWNER_LIMIT elements that the
   * kernel writes): the linear index of the block and of the thread in its
   * block that wrote it last, -1 where nothing wrote it. NULL otherwise. On
   * CUDA they come from the CPU engine's run of the same launch. */
  gint32 *block_of;
  gint32 *thread_of;
} KsLessonArray;

typedef struct
{
  char *name;                /* "input", "circles", "result" */
  KsImage *image;
} KsLessonImage;

/* A stage of a reduction or scan: the values after it. */
typedef struct
{
  char *title;               /* "after halving to 4" */
  KsArray *values;
} KsLessonStep;

/* The check of a run's result. Where it compares an array element by element
 * (every lesson but 11-01 and 11-03, which check printed text and the order
 * the blocks ran in, and 11-02 on the CPU engine, which checks its one
 * line; 11-02 on CUDA checks its text parsed back, "as printed, parsed
 * back", against an independent query), `output` names the array that was checked, as the
 * report's outputs name it (ks_lesson_report_find gives it: a kernel
 * argument such as "c" or "bins", or a host result such as "dot"), and
 * `expected_values` holds the reference it was compared with, element for
 * element (a reference may be shorter than the output: 12-02's book variant
 * has a guard slot past its 256 bins, and only the bins are compared);
 * first_difference indexes both. */
typedef struct
{
  gboolean passed;
  char *against;             /* what the reference is, in words */
  gsize compared;            /* elements compared */
  gsize differing;
  gsize first_difference;    /* G_MAXSIZE when none */
  double expected;           /* at first_difference */
  double actual;
  char *summary;             /* one line */
  char *output;              /* owned: the checked output's name; NULL: no array was compared */
  KsArray *expected_values;  /* owned: the reference, NULL with output */
} KsLessonCheck;

/* The tutorial's own check, where it is wrong (P6, P9): its verdict on the
 * run's result and on a deliberately wrong one. */
typedef struct
{
  gboolean present;
  char *description;         /* the check as the book writes it, in words */
  gboolean says_correct_on_result;
  char *wrong_description;   /* how the wrong result differs */
  gboolean says_correct_on_wrong;
  gboolean real_check_catches_wrong;
} KsLessonBookCheck;

typedef struct
{
  gboolean counted;          /* the lesson uses atomics */
  guint64 global;            /* atomic operations on global memory */
  guint64 shared;            /* on shared memory */
  char *how;                 /* "counted by the CPU model", with the arithmetic */
} KsLessonAtomics;

typedef struct
{
  double compile_ms;         /* NVRTC in the worker; NAN on the CPU engine */
  gboolean compile_cached;
  KsTiming upload;           /* host → device of the in and inout arrays */
  KsTiming kernel;
  KsTiming download;         /* device → host of the out and inout arrays */
  KsTiming cpu_kernel;       /* the CPU engine's run of the kernel on the same data (NAN
                              * median when not run) */
  KsTiming reference;        /* the plain C reference loop, the fair CPU baseline */
  double book_total_ms;      /* the book's way: one span around allocation, copies,
                              * first-use compilation and the kernel, no warm-up */
  char *book_total_covers;   /* what that span holds here */
  char *method;              /* how each number above was measured */
} KsLessonTimings;

typedef struct
{
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  gboolean cuda;             /* the engine that ran the kernel */
  char *engine_name;         /* "CPU engine", or the device's name */
  gboolean edited;           /* an edited source ran */
  KsDim3 grid;
  KsDim3 block;
  guint64 dynamic_shared;
  guint64 threads;           /* grid × block */
  GPtrArray *inputs;         /* KsLessonArray */
  GPtrArray *outputs;        /* KsLessonArray: what the kernel wrote, and host results */
  GPtrArray *images;         /* KsLessonImage (image lessons) */
  char *printf_output;       /* device printf (CPU engine: in its block order) */
  KsLessonCheck check;
  KsLessonBookCheck book_check;
  KsLessonAtomics atomics;
  GPtrArray *steps;          /* KsLessonStep (11-11, 11-12) */
  guint64 n_faults;          /* what the CPU engine's checks found: accesses past an array
                              * or table, races, … */
  GPtrArray *faults;         /* char *, the first KS_LESSON_MAX_LISTED_FAULTS in words */
  gboolean matches_cpu;      /* CUDA runs: the outputs equal the CPU engine's */
  char *cpu_difference;      /* CUDA runs where they do not: where */
  KsLessonTimings timings;
  GPtrArray *notes;          /* char *: what the run shows, in plain words */
} KsLessonReport;

void          ks_lesson_report_free    (KsLessonReport *report);
/* An output (or input) by name; NULL when none. */
const KsLessonArray *ks_lesson_report_find (const KsLessonReport *report, const char *name);

/* Runs a lesson. engine: NULL or a CPU engine runs the kernel on the CPU
 * engine (worker: NULL, or one without a device, which compiles it); a CUDA
 * engine runs the kernel in `worker` (required then; its device should be
 * the engine's), times the copies on the engine, and runs it on the CPU
 * engine beside it. A check that fails is not an error: the report says so (that
 * is what the book variants show). Errors: KS_ERROR_INVALID_ARGUMENT (an
 * option the lesson does not take), KS_ERROR_LAUNCH_CONFIG (a block of
 * more than 1024 threads, …), KS_ERROR_UNAVAILABLE (no NVRTC),
 * KS_ERROR_TIMED_OUT or KS_ERROR_KERNEL_FAULT (the CPU engine stopped the
 * kernel: its findings are in the error), KS_ERROR_COMPILE (the report is still returned, with the
 * diagnostics in notes), G_IO_ERROR_CANCELLED (options->cancellable; no
 * report), and the worker's errors. */
gboolean      ks_lesson_run            (const KsLesson *lesson, const KsLessonVariant *variant,
                                        KsEngine *engine, KsWorker *worker,
                                        const KsLessonOptions *options, KsLessonReport **report,
                                        GError **error);

/* The report as JSON: {lesson, variant, sanitizer, engine, launch, inputs,
 * outputs (name, role, type, shape, values, block_of, thread_of), printf,
 * check (with output and expected_values: type, shape, values), book_check,
 * atomics, steps, faults, timings, notes}. Arrays of more than `max_values`
 * elements, the check's expected_values among them, are given by their first
 * max_values values (and "length"); 0: all. */
JsonNode     *ks_lesson_report_to_json (const KsLessonReport *report, gsize max_values);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsLessonReport, ks_lesson_report_free)

/* ---- 11-02: the attributes PyCUDA 2017.1.1 prints ----------------------------
 *
 * Device.get_attributes() iterates the device_attribute names in
 * alphabetical order and keys its dict by value, so of two names for one
 * attribute the alphabetically first is kept: 84 of its 89 names. The
 * script prints them sorted in Python's string order, where '_' comes after
 * letters and digits (every MAXIMUM_* before every MAX_*): byte order,
 * strcmp's. Each has a runtime equivalent, the cudaDeviceAttr of the same
 * number (cudaDevAttrMaxTexture2DLayeredWidth for PyCUDA's
 * MAXIMUM_TEXTURE2D_ARRAY_WIDTH). */
typedef struct
{
  const char *name;          /* PyCUDA's, as printed: "MAX_THREADS_PER_BLOCK" */
  int attribute;             /* the cudaDeviceAttr (= CUdevice_attribute) number: 1 */
  const char *cuda_name;     /* "cudaDevAttrMaxThreadsPerBlock" */
} KsLessonDeviceAttribute;

/* The 84, in the order printed; *n gets 84. */
const KsLessonDeviceAttribute *ks_lesson_device_attributes (guint *n);
/* PyCUDA's five other names, each the alias of one of the 84 (same
 * number): SHARED_MEMORY_PER_BLOCK of MAX_SHARED_MEMORY_PER_BLOCK, … */
const KsLessonDeviceAttribute *ks_lesson_device_attribute_aliases (guint *n);

/* ---- compute-sanitizer, run on a lesson ------------------------------------- */

/* The log kept in a report (its start; longer logs say how much was cut). */
#define KS_LESSON_SANITIZER_MAX_OUTPUT (64 * 1024)
/* Findings given in words. */
#define KS_LESSON_SANITIZER_MAX_FINDINGS 5

typedef struct
{
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  char *tool;                /* "memcheck", "initcheck" or "racecheck" */
  char *program;             /* the compute-sanitizer that ran */
  char *command_line;        /* the tool's command line around the worker, quoted for a shell */
  char *device;              /* the device's name */
  gint64 errors;             /* from its "ERROR SUMMARY: N errors" (racecheck: its "RACECHECK
                              * SUMMARY: … (N errors, …)"); -1: it printed no summary */
  gint64 warnings;           /* racecheck's warnings; 0 for the other tools */
  char *output;              /* the tool's log, at most KS_LESSON_SANITIZER_MAX_OUTPUT bytes */
  gsize output_length;       /* the whole log's bytes */
  GPtrArray *findings;       /* char *: the first KS_LESSON_SANITIZER_MAX_FINDINGS errors, one
                              * line each ("Invalid __global__ atomic of size 4 bytes at
                              * atomic_hist (12-02-book.cu:14) by thread (256,0,0) of block
                              * (0,0,0): the address is out of bounds") */
  char *run_error;           /* NULL, or how the lesson's run ended when it did not end well
                              * (the tool stops a kernel at a memcheck error: CUDA then
                              * reports a launch failure) */
  char *summary;             /* one line for people */
  double wall_ms;            /* the whole run under the tool */
} KsLessonSanitizerReport;

void          ks_lesson_sanitizer_report_free (KsLessonSanitizerReport *report);
/* {tool, program, command_line, device, errors, warnings, clean, findings,
 * run_error, summary, wall_ms, output, output_length, output_truncated}. */
JsonNode     *ks_lesson_sanitizer_report_to_json (const KsLessonSanitizerReport *report);

/* compute-sanitizer: $KS_COMPUTE_SANITIZER when set, else on PATH, else in
 * $CUDA_HOME/bin, else /usr/local/cuda/bin. FALSE with *why_not (one
 * sentence, free it) when none is there. Either pointer may be NULL. */
gboolean      ks_lesson_find_sanitizer (char **path, char **why_not);
/* The tool a variant is checked with: its sanitizer_tool, else that of the
 * lesson's first variant that has one (so a fixed variant is checked by the
 * tool that flags its book variant), else "memcheck". */
const char   *ks_lesson_get_sanitizer_tool (const KsLesson *lesson,
                                            const KsLessonVariant *variant);

/* Runs the variant once under compute-sanitizer (the tool above) on
 * cuda_engine's device: a worker process of its own is started under the
 * tool with its log in a temporary file, the lesson's kernel is compiled
 * and run there once with the lesson's data and launch (options: size,
 * seed, source, grid, block; repeats and skip_cpu_run do not apply), the
 * worker quits and the tool's summary is read. A kernel the tool stops
 * (memcheck's errors end the kernel's context) is a finding, not an error:
 * the report's run_error says so. Blocks (seconds to minutes): run it in a
 * GTask. options->cancellable kills the tool and its worker. Errors:
 * KS_ERROR_UNAVAILABLE with one sentence (no CUDA engine, a build without
 * CUDA, no compute-sanitizer, a lesson without a kernel), the lesson's own
 * errors (KS_ERROR_INVALID_ARGUMENT, KS_ERROR_LAUNCH_CONFIG, KS_ERROR_COMPILE),
 * KS_ERROR_WORKER when the worker did not start or answer under the tool,
 * G_IO_ERROR_CANCELLED. */
gboolean      ks_lesson_sanitize       (const KsLesson *lesson, const KsLessonVariant *variant,
                                        KsEngine *cuda_engine, const KsLessonOptions *options,
                                        KsLessonSanitizerReport **report, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsLessonSanitizerReport, ks_lesson_sanitizer_report_free)

G_END_DECLS
