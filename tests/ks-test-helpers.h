/* ks-test-helpers.h: what the test programs share. */
#pragma once

#include "kernelscope.h"
#include "ks-lesson.h"

G_BEGIN_DECLS

/* A poison byte that no test input maps to by accident in a whole row. */
#define KS_TEST_POISON 0xA5

/* Data files, found relative to G_TEST_SRCDIR (meson sets it; on a GPU host
 * set it to the source tree's tests/ folder), never by absolute build paths. */
char       *ks_test_data_path        (const char *name);
char       *ks_test_sample_path      (const char *name);

KsEngine   *ks_test_cpu_engine       (void);

/* The exit status meson's exitcode protocol reports as a skip; the cuda and
 * interop suites use that protocol, since meson 1.0 counts a TAP program that
 * exits non-zero as an error. */
#define KS_TEST_SKIPPED 77

typedef enum
{
  KS_TEST_NEEDS_CUDA = 0,
  KS_TEST_NEEDS_NVRTC = 1 << 0, /* user kernels, compiled at run time */
} KsTestNeeds;

/* For a CUDA test program's main, after g_test_init and before g_test_run:
 * whether a CUDA device (and what `needs` adds) is there. Where it is not,
 * prints a TAP plan of no tests, skipped, with the reason; main then returns
 * KS_TEST_SKIPPED. */
gboolean    ks_test_require_cuda     (KsTestNeeds needs);
/* For a test that compiles kernels: TRUE where NVRTC loads; where it does
 * not, marks the test skipped with the reason and returns FALSE. */
gboolean    ks_test_have_nvrtc       (void);
/* For a test that compiles a kernel including the CUDA toolkit's header
 * (a path under include/ or include/cccl/: "curand_kernel.h",
 * "cub/block/block_reduce.cuh"): TRUE where NVRTC loads and the toolkit
 * Kernelscope finds (KS_NVRTC_LIBRARY unset) has it; otherwise marks the
 * test skipped with the reason and returns FALSE. */
gboolean    ks_test_have_toolkit_header (const char *header);
/* The CUDA engine on device 0: once CUDA is there, the device and the engine
 * must open. */
KsEngine   *ks_test_cuda_engine      (void);
/* A fresh seed from the test's random generator (g_test_rand_int: --seed
 * replays a run), named in the log with `what` so a failure can be rebuilt. */
guint32     ks_test_next_seed        (const char *what);
/* steps generations of Conway's Game of Life on a w×h torus of 0/1 cells,
 * in place: the reference the array kernels' sequences are held to. */
void        ks_test_life_steps       (guint8 *board, guint w, guint h, guint steps);
KsImage    *ks_test_image_new        (KsFormat format, guint width, guint height);
KsImage    *ks_test_random_image     (KsFormat format, guint width, guint height, guint32 seed);
KsImage    *ks_test_load_sample      (void);

/* A launch configuration: block bx×by, grid gx×gy (0×0: auto). */
KsLaunchConfig ks_test_launch        (guint bx, guint by, guint gx, guint gy, KsLaunchMode mode,
                                      guint pixels_per_thread);

typedef struct
{
  const char *op;               /* registry id */
  const char *const *params;    /* "name=value", NULL-terminated; NULL for defaults */
  const KsLaunchConfig *launch; /* NULL: the op's default launch */
  gboolean instrument;
  int poison;                   /* byte written over the output before the run; -1: none */
} KsTestRun;

/* Uploads the inputs, allocates (and poisons) the output, runs, downloads.
 * *out gets the output image (NULL for histogram ops); *result the run's
 * result (clear it with ks_run_result_clear). */
gboolean    ks_test_try_run          (KsEngine *engine, const KsTestRun *spec,
                                      KsImage *const *inputs, KsImage **out,
                                      KsRunResult *result, GError **error);
/* The same; the run must succeed. */
KsImage    *ks_test_run              (KsEngine *engine, const KsTestRun *spec,
                                      KsImage *const *inputs, KsRunResult *result);
/* Shortcut: op with params on one or two inputs, default launch, no poison. */
KsImage    *ks_test_run_simple       (KsEngine *engine, const char *op, const char *param,
                                      KsImage *a, KsImage *b);

/* Fails with the first differing pixel named. */
void        ks_test_assert_images_equal (const KsImage *expected, const KsImage *actual,
                                         const char *what);
/* Counts pixels whose bytes are all `value`. */
guint64     ks_test_count_filled_pixels (const KsImage *image, guint8 value);
/* Two engines' coverage of one launch: the same pixels written as often,
 * by the same block and thread (where written), and as many idle threads. */
void        ks_test_assert_coverage_equal (const KsCoverage *cpu, const KsCoverage *gpu,
                                           const char *what);

/* The error's message must contain every NULL-terminated needle. */
void        ks_test_assert_message_has (const GError *error, ...) G_GNUC_NULL_TERMINATED;

/* What one measurement holds, whatever the machine's speed or load: `n`
 * timed runs, each a finite time of at least 0 (a fast run on a clock that
 * counts microseconds may take 0), and statistics of those same samples
 * (min <= median <= max, a spread of at least 0). It compares no time with
 * another measurement's, nor with a bound: a loaded machine runs slowly. */
void        ks_test_assert_timing      (const KsTiming *timing, guint n);

/* Independent references of the tutorial ops, written from their definitions. */
guint8      ks_test_ref_gray         (guint r, guint g, guint b, gboolean truncate);
guint32     ks_test_ref_invert       (guint32 rgba);
guint32     ks_test_ref_add          (guint32 a, guint32 b);
KsImage    *ks_test_ref_image        (const char *op, gboolean truncate, const KsImage *a,
                                      const KsImage *b);

/* A program run as a user runs it: exit status, stdout and stderr. */
typedef struct
{
  int status;
  char *out;
  char *err;
} KsTestProgramResult;

void        ks_test_program_result_clear (KsTestProgramResult *result);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (KsTestProgramResult, ks_test_program_result_clear)
/* Runs program with args (NULL-terminated, without the program) in the
 * environment envp (NULL: this process's); it must exit normally. */
void        ks_test_run_program       (KsTestProgramResult *result, const char *program,
                                       char **envp, const char *const *args);
/* Removes a directory and everything in it, folders too (never through a
 * link to one). */
void        ks_test_remove_tree       (const char *dir);

/* A lesson's variant (NULL: the fixed one) on the CPU engine, timed twice at
 * `size` (0: the lesson's own); the run must succeed. */
KsLessonReport *ks_test_run_lesson    (const char *name, const char *variant, guint size);

G_END_DECLS
