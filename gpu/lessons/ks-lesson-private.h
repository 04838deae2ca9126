/* ks-lesson-private.h: what the files of the lessons share, in the order
 * they call each other: the registry (ks-lesson.c) lists the lessons' files
 * (ks-lesson-NAME.c, each a lesson or a few that share their code, ending
 * with its list); those build their runs with the helpers (ks-lesson-util.c);
 * the runner (ks-lesson-run.c, the kernel's runs on either engine in
 * ks-lesson-run-kernel.c) calls a lesson's KsLessonImpl and fills the report
 * (ks-lesson-report.c); compute-sanitizer (ks-lesson-sanitize.c) runs a
 * lesson through the runner. */
#pragma once

#include "ks-lesson.h"
#include "ks-worker-private.h"

G_BEGIN_DECLS

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
  guint size;                  /* the lesson's size after options */
  /* the check: the output at this argument index against the reference,
   * which the report's check holds (check.expected_values) */
  int checked_arg;             /* -1: the lesson's finish sets the check itself */
  double abs_tol;
  double rel_tol;
  /* after the kernel ran */
  GPtrArray *results;          /* KsArray per arg (NULL for scalars and inputs) */
  gint32 **block_of;           /* per arg, or NULL */
  gint32 **thread_of;
  gpointer lesson_data;        /* a lesson's own state */
  GDestroyNotify lesson_data_free;
  /* the kernel */
  gboolean sanitize;           /* under compute-sanitizer: one run, the book's buffers */
  KsKernelSource *source;      /* once compiled */
  KsCompileResult *compiled;
  KsWorker *cpu_worker;        /* a worker without a device: the CPU engine's runs */
} KsLessonRun;

struct _KsLessonImpl
{
  /* Builds the args and the launch for run->variant. */
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
   * the engine that ran it (engine NULL or the CPU engine: run->cpu_worker;
   * CUDA: worker), before finish. */
  gboolean (*more) (KsLessonRun *run, KsEngine *engine, KsWorker *worker, GError **error);
  /* NULL: the lesson takes no size. Else sets run->size from
   * run->options.size (0: the lesson's default), or refuses it with an error. */
  gboolean (*size) (KsLessonRun *run, GError **error);
  /* The check's reference in words; NULL: "an independent C reference". */
  const char *against;
};

/* ---- the lessons' files ---------------------------------------------------
 *
 * Each ks-lesson-NAME.c ends with its lessons for the registry, in the
 * tutorial's order: const KsLesson *const _ks_lessons_NAME[] = { …, NULL },
 * NAME as in lesson_files (meson.build). */

/* variants[0] of most lessons: the fixed kernel, deterministic on CUDA. */
#define KS_LESSON_FIXED(src, desc) { "fixed", "Fixed", desc, FALSE, "", src, NULL, TRUE, NULL }

/* A lesson with a kernel and no live camera. */
#define KS_LESSON(id, slug, title, script, text, variants, impl) \
  { id, slug, title, script, text, variants, G_N_ELEMENTS (variants), FALSE, NULL, { 0, 0, 0 }, \
    &impl }

/* ---- the helpers (ks-lesson-util.c) -------------------------------------- */

static inline KsDim3
_ks_lesson_dim3 (guint x, guint y, guint z)
{
  KsDim3 d = { x, y, z };

  return d;
}

/* The elements of an array as the kernel's types; inline, for the
 * references' loops that are timed. */
static inline float *
_ks_lesson_f32 (const KsArray *a)
{
  g_assert (a->type == KS_ELEM_FLOAT32);
  return (float *) a->data;
}

static inline gint32 *
_ks_lesson_i32 (const KsArray *a)
{
  g_assert (ks_elem_type_size (a->type) == 4 && !ks_elem_type_is_float (a->type));
  return (gint32 *) a->data;
}

/* An argument's data before the run (what the kernel reads). */
static inline const KsArray *
_ks_lesson_arg_data (const KsLessonRun *run, guint arg)
{
  const KsLessonArg *a = g_ptr_array_index (run->args, arg);

  g_assert (a->is_array);
  return a->array;
}

/* An argument's data after the run. */
static inline const KsArray *
_ks_lesson_result (const KsLessonRun *run, guint arg)
{
  const KsArray *a = g_ptr_array_index (run->results, arg);

  g_assert (a != NULL);
  return a;
}

/* Pixel i's BT.601 gray in integer thousandths (exact) from float planes. */
static inline int
_ks_lesson_gray_thousandths (const KsArray *b, const KsArray *g, const KsArray *r, gsize i)
{
  return 299 * (int) _ks_lesson_f32 (r)[i] + 587 * (int) _ks_lesson_f32 (g)[i]
         + 114 * (int) _ks_lesson_f32 (b)[i];
}

double        _ks_lesson_now_ms          (void);
KsArray      *_ks_lesson_new_array       (KsElemType type, gsize length, gsize rows, gsize cols);
/* An array initialised as ks-array.h's bindings do it (normal, uniform). */
KsArray      *_ks_lesson_binding_array   (KsElemType type, gsize length, KsArrayInit init,
                                          double a, double b, double c);
/* Integers drawn uniformly from [lo, hi], as numpy.random.randint (lo, hi + 1). */
void          _ks_lesson_fill_randint    (KsArray *a, guint64 seed, int lo, int hi);
guint         _ks_lesson_arg_array       (KsLessonRun *run, const char *name, KsArray *array,
                                          KsArrayDirection direction, const char *book_binding);
void          _ks_lesson_arg_scalar      (KsLessonRun *run, const char *name, KsElemType type,
                                          double value);
void          _ks_lesson_note            (KsLessonRun *run, const char *format, ...)
                                          G_GNUC_PRINTF (2, 3);
/* Takes the array / the image. */
void          _ks_lesson_add_host_output (KsLessonRun *run, const char *name, KsArray *array);
void          _ks_lesson_add_image       (KsLessonRun *run, const char *name, KsImage *image);
/* The lesson's reference, once the run has computed it; NULL when none. */
const KsArray *_ks_lesson_reference      (const KsLessonRun *run);
/* The check's verdict (summary: taken); output NULL: no array compared. */
void          _ks_lesson_set_check       (KsLessonRun *run, gboolean passed, const char *against,
                                          const char *output, gsize compared, gsize differing,
                                          gsize first, double expected, double actual,
                                          char *summary);
/* The output `name` against check.expected_values, element by element,
 * within run->abs_tol and rel_tol. */
void          _ks_lesson_compare_check   (KsLessonRun *run, const char *name,
                                          const KsArray *actual, const char *against);
/* x + y element by element in float, capped at `ceiling` (INFINITY: not
 * capped), with x's shape: the reference of every adding lesson. */
KsArray      *_ks_lesson_sum_reference   (const KsLessonRun *run, guint x_arg, guint y_arg,
                                          float ceiling);
/* The book's own check (P6, P9): its verdicts on the result and on `wrong`. */
void          _ks_lesson_book_check      (KsLessonRun *run, const char *description,
                                          gboolean on_result, gboolean on_wrong,
                                          const KsArray *wrong);
/* A copy of a with its middle element increased by 1. */
KsArray      *_ks_lesson_make_wrong      (const KsArray *a);
/* The lessons' 256×256 pictures from the bundle. */
KsImage      *_ks_lesson_load_sample     (const char *name);
/* The gray photo's pixels as `type`, rows × cols. */
KsArray      *_ks_lesson_photo_gray_pixels (KsElemType type);
/* One channel of an RGBA8 image (0 R, 1 G, 2 B) as floats, rows × cols. */
KsArray      *_ks_lesson_channel_array   (const KsImage *rgba, guint channel);
/* Floats to a gray image as astype(uint8) casts them. */
KsImage      *_ks_lesson_gray_image      (const KsArray *a);
gboolean      _ks_lesson_cancelled       (const KsLessonRun *run, GError **error);

/* ---- the report (ks-lesson-report.c) -------------------------------------- */

KsLessonReport *_ks_lesson_report_new    (const KsLesson *lesson, const KsLessonVariant *variant);
/* Takes the array. */
KsLessonArray *_ks_lesson_array_new      (const char *name, const char *role, KsArray *array);
/* Members of the JSON object being built, name and value in one call. */
void          _ks_lesson_member_string   (JsonBuilder *b, const char *name, const char *value);
void          _ks_lesson_member_bool     (JsonBuilder *b, const char *name, gboolean value);

/* ---- the runner (ks-lesson-run.c, ks-lesson-run-kernel.c) ------------------ */

/* Compiles the run's kernel in the worker (run->source and run->compiled).
 * A source that does not compile: KS_ERROR_COMPILE, the diagnostics in the
 * report's notes. */
gboolean      _ks_lesson_compile         (KsLessonRun *run, KsWorker *worker, const char *text,
                                          GError **error);
/* The compiled kernel on the CPU engine (run->cpu_worker): the first run
 * gives run->results, the owners, the report's faults, atomics and printf
 * (and, when the engine is the CPU one, the book's first span); then the
 * timed runs (the report's cpu_kernel, and every stage on the CPU engine). */
gboolean      _ks_lesson_run_model       (KsLessonRun *run, gboolean engine_is_cpu,
                                          GError **error);
/* The compiled kernel in `worker` on CUDA: the book's first span, the timed
 * runs, the copies, the comparison with the CPU engine's results
 * (run->results, then replaced by CUDA's); under the sanitizer only the
 * first run. */
gboolean      _ks_lesson_run_cuda        (KsLessonRun *run, KsEngine *engine, KsWorker *worker,
                                          GError **error);
/* One run of the compiled kernel (run->compiled) in the worker on `data` (a
 * KsArray per argument, NULL for scalars; NULL: the arguments' own); with
 * `model`, on the CPU engine, in the seed's block order with the writers
 * tracked (else on every core): `results` gets a KsArray per argument for the outputs (NULL
 * elsewhere), `result` the worker's (clear it). */
gboolean      _ks_lesson_run_once        (KsLessonRun *run, KsWorker *worker,
                                          const GPtrArray *data, gboolean model,
                                          GPtrArray *results, KsWorkerRunResult *result,
                                          GError **error);
/* One run on `data` (as above) whose outputs are written back into it. */
gboolean      _ks_lesson_run_in_place    (KsLessonRun *run, KsWorker *worker, GPtrArray *data,
                                          GError **error);
/* The variant's kernel compiled and run once in `worker` as the book
 * allocates its buffers (for compute-sanitizer); the lesson's errors. */
gboolean      _ks_lesson_run_for_sanitizer (const KsLesson *lesson,
                                            const KsLessonVariant *variant, KsEngine *engine,
                                            KsWorker *worker, const KsLessonOptions *options,
                                            GError **error);

/* ---- compute-sanitizer (ks-lesson-sanitize.c) ----------------------------- */

/* compute-sanitizer's log read into r (r->tool and r->findings set):
 * errors (-1 without a summary), warnings and the first findings. */
void          _ks_lesson_sanitizer_parse_log (KsLessonSanitizerReport *r, const char *log);

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

/* The seeded generator behind the lessons' data. */
guint64       _ks_lesson_splitmix64    (guint64 *state);

G_END_DECLS
