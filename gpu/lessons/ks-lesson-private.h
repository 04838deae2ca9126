/* ks-lesson-private.h: what ks-lesson.c (registry, data, checks, the CUDA
 * path), ks-lesson-cpu.c (the CPU model and the kernels' twins),
 * ks-lesson-device.c (11-02), ks-lesson-webcam.c (12-04) and
 * ks-lesson-sanitize.c (compute-sanitizer) share. */
#pragma once

#include "ks-lesson.h"
#include "ks-worker-private.h"

G_BEGIN_DECLS

typedef struct _KsSim KsSim;

/* One thread of the CPU model, as the kernel sees itself. */
typedef struct
{
  KsDim3 block_idx;
  KsDim3 thread_idx;
  guint block;               /* linear block index */
  guint thread;              /* linear thread index in its block */
} KsSimThread;

/* A CPU twin runs `n_blocks` blocks from `first` (in the model's order) as
 * one wave; most twins handle them one after the other. */
typedef void (*KsSimTwin) (KsSim *sim, guint first, guint n_blocks);

/* A kernel argument of a lesson: an array (its data before the run) or a scalar. */
typedef struct
{
  char *name;
  gboolean is_array;
  KsArray *array;
  KsArrayDirection direction;  /* in, or inout for what the kernel writes */
  const char *book_binding;    /* how the book binds it ("drv.Out"), or NULL */
  KsElemType scalar_type;
  double scalar;
  gsize book_length;           /* elements the book allocates where the lesson adds a guard
                                * slot (12-02's bins: 256); 0: the array's length */
} KsLessonArg;

/* One run being prepared and carried out. */
typedef struct
{
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  KsLessonOptions options;
  KsLessonReport *report;
  GPtrArray *args;             /* KsLessonArg, in the kernel's order */
  KsDim3 grid;
  KsDim3 block;
  guint64 shared;
  KsSimTwin twin;
  guint wave;                  /* blocks per wave in the CPU model (1: one at a time) */
  gboolean shuffle_blocks;     /* run blocks in a seeded order (11-03) */
  guint size;                  /* the lesson's size after options */
  /* the check: the output at this argument index against the reference,
   * which the report's check holds (check.expected_values) */
  int checked_arg;             /* -1: the lesson's finish sets the check itself */
  double abs_tol;
  double rel_tol;
  /* after the CPU model ran */
  GPtrArray *results;          /* KsArray per arg (NULL for scalars and inputs) */
  gint32 **block_of;           /* per arg, or NULL */
  gint32 **thread_of;
  gpointer lesson_data;        /* a lesson's own state */
  GDestroyNotify lesson_data_free;
  /* the CUDA path */
  gboolean sanitize;           /* under compute-sanitizer: one run, the book's buffers */
  KsKernelSource *source;      /* once compiled */
  KsCompileResult *compiled;
} KsLessonRun;

struct _KsLessonImpl
{
  /* Builds the args, the launch and the twin for run->variant. */
  gboolean (*setup) (KsLessonRun *run, GError **error);
  /* The independent reference for run->checked_arg, from the args' data. */
  KsArray *(*reference) (const KsLessonRun *run);
  /* After the kernel ran (run->results hold its outputs): host results,
   * images, steps, the book's check, notes; may set the check itself. */
  void (*finish) (KsLessonRun *run);
  /* NULL, or the lesson's whole run where no kernel runs (11-02, with
   * lesson->host_only): printf, outputs, check, timings and notes. */
  gboolean (*host) (KsLessonRun *run, KsEngine *engine, GError **error);
  /* NULL, or more runs of the kernel after the first (12-04's frames), on
   * the engine that ran it (engine NULL or the CPU engine: the CPU model;
   * CUDA: worker), before finish. */
  gboolean (*more) (KsLessonRun *run, KsEngine *engine, KsWorker *worker, GError **error);
};

/* ---- shared by the lessons' files (ks-lesson.c) ------------------------------- */

double        _ks_lesson_now_ms          (void);
KsArray      *_ks_lesson_new_array       (KsElemType type, gsize length, gsize rows, gsize cols);
guint         _ks_lesson_arg_array       (KsLessonRun *run, const char *name, KsArray *array,
                                          KsArrayDirection direction, const char *book_binding);
void          _ks_lesson_arg_scalar      (KsLessonRun *run, const char *name, KsElemType type,
                                          double value);
void          _ks_lesson_note            (KsLessonRun *run, const char *format, ...)
                                          G_GNUC_PRINTF (2, 3);
/* Takes the array / the image. */
void          _ks_lesson_add_host_output (KsLessonRun *run, const char *name, KsArray *array);
void          _ks_lesson_add_image       (KsLessonRun *run, const char *name, KsImage *image);
/* The check's verdict (summary: taken); output NULL: no array compared. */
void          _ks_lesson_set_check       (KsLessonRun *run, gboolean passed, const char *against,
                                          const char *output, gsize compared, gsize differing,
                                          gsize first, double expected, double actual,
                                          char *summary);
/* The output `name` against check.expected_values, element by element,
 * within run->abs_tol and rel_tol. */
void          _ks_lesson_compare_check   (KsLessonRun *run, const char *name,
                                          const KsArray *actual, const char *against);
/* The lessons' 256×256 pictures from the bundle. */
KsImage      *_ks_lesson_load_sample     (const char *name);
/* One channel of an RGBA8 image (0 R, 1 G, 2 B) as floats, rows × cols. */
KsArray      *_ks_lesson_channel_array   (const KsImage *rgba, guint channel);
/* Floats to a gray image as astype(uint8) casts them. */
KsImage      *_ks_lesson_gray_image      (const KsArray *a);
/* Pixel i's BT.601 gray in integer thousandths (exact) from float planes. */
int           _ks_lesson_gray_thousandths (const KsArray *b, const KsArray *g, const KsArray *r,
                                           gsize i);
gboolean      _ks_lesson_cancelled       (const KsLessonRun *run, GError **error);
/* One run of the compiled kernel (run->compiled) in the worker on `data` (a
 * KsArray per argument, NULL for scalars; NULL: the arguments' own):
 * `results` gets a KsArray per argument for the outputs (NULL elsewhere),
 * `result` the worker's (clear it). */
gboolean      _ks_lesson_cuda_run_once   (KsLessonRun *run, KsWorker *worker,
                                          const GPtrArray *data, GPtrArray *results,
                                          KsWorkerRunResult *result, GError **error);
/* The variant's kernel compiled and run once in `worker` as the book
 * allocates its buffers (for compute-sanitizer); the lesson's errors. */
gboolean      _ks_lesson_run_for_sanitizer (const KsLesson *lesson,
                                            const KsLessonVariant *variant, KsEngine *engine,
                                            KsWorker *worker, const KsLessonOptions *options,
                                            GError **error);

/* compute-sanitizer's log read into r (r->tool and r->findings set):
 * errors (-1 without a summary), warnings and the first findings. */
void          _ks_lesson_sanitizer_parse_log (KsLessonSanitizerReport *r, const char *log);

extern const KsLessonImpl _ks_lesson_impl_device;
extern const KsLessonImpl _ks_lesson_impl_webcam;

/* ---- 11-02 (ks-lesson-device.c) ---------------------------------------------- */

#define KS_LESSON_N_DEVICE_ATTRIBUTES 84

/* One device as the book prints it. */
typedef struct
{
  char *name;
  int major;
  int minor;
  guint64 total_memory;      /* bytes */
  gint64 values[KS_LESSON_N_DEVICE_ATTRIBUTES];  /* in ks_lesson_device_attributes' order */
  gboolean present[KS_LESSON_N_DEVICE_ATTRIBUTES]; /* FALSE: the query failed, not printed */
} KsLessonDevice;

void          _ks_lesson_device_clear    (KsLessonDevice *device);
/* The book's text for n devices (n may be 0). Parsed back, total_memory is
 * the printed GB times 2^30. */
char         *_ks_lesson_device_text     (const KsLessonDevice *devices, guint n);
/* The text parsed back: the devices in it (KsLessonDevice, cleared by the
 * array), or NULL with the line that does not parse in *error. */
GArray       *_ks_lesson_device_parse    (const char *text, GError **error);

/* ---- the CPU model (ks-lesson-cpu.c) ------------------------------------- */

/* The seeded generator behind the lessons' data and the model's block order. */
guint64       _ks_lesson_splitmix64    (guint64 *state);

/* Runs run->twin over run->grid in the model's order on copies of the
 * arrays; run->results get the arrays after the run, the report its
 * faults, atomics and printf. Owner maps for tracked outputs. Between
 * blocks (or waves) it looks at run->options.cancellable: cancelled, it
 * stops with G_IO_ERROR_CANCELLED and run->results stay NULL. */
gboolean      _ks_lesson_sim_run       (KsLessonRun *run, GError **error);
/* The same on `arrays` without touching the report (for timing). */
gboolean      _ks_lesson_sim_run_quiet (KsLessonRun *run, GPtrArray *arrays, GError **error);

guint         _ks_sim_threads_per_block (const KsSim *sim);
void          _ks_sim_thread           (const KsSim *sim, guint block, guint thread,
                                        KsSimThread *t);
const KsLessonRun *_ks_sim_get_run     (const KsSim *sim);
gint64        _ks_sim_scalar           (const KsSim *sim, guint arg);
double        _ks_sim_scalar_double    (const KsSim *sim, guint arg);

/* Checked global accesses to argument `arg` (element type as the kernel reads it). */
float         _ks_sim_ldf              (KsSim *sim, const KsSimThread *t, guint arg, gint64 i);
void          _ks_sim_stf              (KsSim *sim, const KsSimThread *t, guint arg, gint64 i,
                                        float v);
gint32        _ks_sim_ldi              (KsSim *sim, const KsSimThread *t, guint arg, gint64 i);
void          _ks_sim_sti              (KsSim *sim, const KsSimThread *t, guint arg, gint64 i,
                                        gint32 v);
gint32        _ks_sim_atomic_addi      (KsSim *sim, const KsSimThread *t, guint arg, gint64 i,
                                        gint32 v);

/* A block's shared table of `length` 32-bit words. */
typedef struct
{
  const char *name;
  guint length;
  gint32 *words;
} KsSimShared;

void          _ks_sim_shared_init      (KsSimShared *shared, const char *name, guint length);
void          _ks_sim_shared_clear     (KsSimShared *shared);
gint32        _ks_sim_sh_ldi           (KsSim *sim, const KsSimThread *t, KsSimShared *sh,
                                        gint64 i);
void          _ks_sim_sh_sti           (KsSim *sim, const KsSimThread *t, KsSimShared *sh,
                                        gint64 i, gint32 v);
float         _ks_sim_sh_ldf           (KsSim *sim, const KsSimThread *t, KsSimShared *sh,
                                        gint64 i);
void          _ks_sim_sh_stf           (KsSim *sim, const KsSimThread *t, KsSimShared *sh,
                                        gint64 i, float v);
gint32        _ks_sim_sh_atomic_addi   (KsSim *sim, const KsSimThread *t, KsSimShared *sh,
                                        gint64 i, gint32 v);
void          _ks_sim_printf           (KsSim *sim, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* The twins, by the source they mirror. */
void          _ks_twin_hello           (KsSim *sim, guint first, guint n);
void          _ks_twin_hello_book      (KsSim *sim, guint first, guint n);
void          _ks_twin_blocks          (KsSim *sim, guint first, guint n);
void          _ks_twin_blocks_book     (KsSim *sim, guint first, guint n);
void          _ks_twin_add_thread      (KsSim *sim, guint first, guint n);  /* 11-04, 11-05 book */
void          _ks_twin_add_checked     (KsSim *sim, guint first, guint n);  /* 11-05 */
void          _ks_twin_add_stride      (KsSim *sim, guint first, guint n);  /* 11-06 */
void          _ks_twin_square          (KsSim *sim, guint first, guint n);
void          _ks_twin_square_book     (KsSim *sim, guint first, guint n);
void          _ks_twin_dot             (KsSim *sim, guint first, guint n);
void          _ks_twin_matmul          (KsSim *sim, guint first, guint n);
void          _ks_twin_matmul_book     (KsSim *sim, guint first, guint n);
void          _ks_twin_matmul_tiled    (KsSim *sim, guint first, guint n);
void          _ks_twin_matmul_tiled_book (KsSim *sim, guint first, guint n);
void          _ks_twin_elementwise_add (KsSim *sim, guint first, guint n);
void          _ks_twin_reduce          (KsSim *sim, guint first, guint n);
void          _ks_twin_scan            (KsSim *sim, guint first, guint n);
void          _ks_twin_hist            (KsSim *sim, guint first, guint n);
void          _ks_twin_hist_book       (KsSim *sim, guint first, guint n);
void          _ks_twin_hist_race       (KsSim *sim, guint first, guint n);
void          _ks_twin_hist_shared     (KsSim *sim, guint first, guint n);
void          _ks_twin_hist_shared_book (KsSim *sim, guint first, guint n);
void          _ks_twin_gray            (KsSim *sim, guint first, guint n);
void          _ks_twin_gray_book       (KsSim *sim, guint first, guint n);
void          _ks_twin_add_clamp       (KsSim *sim, guint first, guint n);
void          _ks_twin_axpbz           (KsSim *sim, guint first, guint n);

G_END_DECLS
