/* ks-lesson-window-private.h: what the files of KsLessonWindow share.
 *
 * The window is split by concern, and the calls between its files go one
 * way, down this list (no file calls one above it):
 *
 *   ks-lesson-window.c            the type, its template and properties, the
 *                                 lessons and variants shown, the actions, the API
 *   ks-lesson-window-camera.c     "Run on the Live Camera"
 *   ks-lesson-window-sanitizer.c  "Run under compute-sanitizer"
 *   ks-lesson-window-editor.c     the kernel in the editor, and the launch under it
 *   ks-lesson-window-run.c        a run: on the runner, queued, cancelled, received
 *   ks-lesson-window-report.c     the report in the result area
 *   ks-lesson-window-timings.c    the report's timings
 *   ks-lesson-window-heatmap.c    a long array's heatmap: made, drawn, hovered
 *   ks-lesson-window-results.c    the result area's parts
 *   ks-lesson-window-status.c     the actions' state and the status line
 */
#pragma once

#include "ks-lesson-window.h"

G_BEGIN_DECLS

/* ---- what a run makes on the runner (ks-lesson-window-run.c) -------------------------------- */

/* A large array's heatmap, made on the runner: RGBA pixels, each the mean
 * of the f × f elements it covers (`per` of them), on a scale from lo to
 * hi. The checked output has a second picture, of its differences: red
 * where an element of the pixel differs from the reference, gray (lighter
 * for larger values) where they all equal it. */
typedef struct
{
  char *key;                 /* "input:a", "output:result" */
  GBytes *pixels;
  GBytes *diff_pixels;       /* the checked output's differences, or NULL */
  int width;
  int height;
  gsize rows;                /* the elements as laid out: vectors wrap into a square */
  gsize cols;
  gsize f;
  gsize per;
  double lo;
  double hi;
} Heatmap;

typedef struct
{
  char *name;
  GBytes *pixels;            /* RGBA8, tightly packed */
  int width;
  int height;
} ImagePixels;

typedef struct
{
  /* read-only once queued */
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  KsEngine *engine;
  KsWorker *worker;
  char *source;              /* the edited kernel, or NULL */
  KsDim3 grid;               /* the user's launch; zeros: the lesson's */
  KsDim3 block;
  guint repeats;
  guint generation;

  /* written by the runner, read once the task returned */
  KsLessonReport *report;
  GError *error;
  GPtrArray *heatmaps;       /* Heatmap */
  GPtrArray *images;         /* ImagePixels */
  double tolerance;          /* the checked output's elements further than this differ */
} RunJob;

/* ---- the window ------------------------------------------------------------------------------ */

struct _KsLessonWindow
{
  AdwWindow parent_instance;

  /* template widgets */
  AdwWindowTitle *window_title;
  GtkButton *run_button;
  GtkSpinner *spinner;
  GtkButton *cancel_button;
  GtkListBox *lesson_list;
  GtkScrolledWindow *content_scroller;
  GtkLabel *title_label;
  GtkLabel *script_label;
  GtkLabel *explanation_label;
  GtkBox *variant_box;
  GtkLabel *variant_label;
  GtkLabel *defects_label;
  GtkWidget *sanitizer_box;
  GtkLabel *sanitizer_label;
  GtkButton *sanitize_button;
  GtkSpinner *sanitize_spinner;
  GtkButton *sanitize_cancel_button;
  GtkLabel *sanitize_status_label;
  GtkBox *sanitize_results_box;
  GtkButton *live_button;
  GtkLabel *source_heading;
  GtkLabel *source_name_label;
  GtkButton *reset_button;
  GtkSourceView *source_view;
  GtkLabel *edit_label;
  GtkLabel *launch_label;
  GtkEntry *grid_entry;
  GtkEntry *block_entry;
  GtkWidget *launch_reset;
  GtkWidget *launch_edit_box; /* the grid and block entries and their reset */
  GtkSpinButton *repeats_spin;
  KsDim3 grid;               /* the launch the user typed; zeros: the lesson's */
  KsDim3 block;
  GtkLabel *status_label;
  GtkToggleButton *owners_toggle;
  GtkBox *results_box;

  /* owned references */
  KsPipeline *pipeline;
  GtkSourceBuffer *buffer;
  KsLessonReport *report;     /* the one shown, or NULL */
  char *pristine;             /* the variant's own source */
  GHashTable *result_widgets; /* key → widget in results_box (borrowed) */
  GPtrArray *cells;           /* KsLessonCells in results_box (borrowed) */
  GPtrArray *heat_pictures;   /* the heatmaps' GtkPictures in results_box (borrowed) */
  GCancellable *cancellable;  /* the run in flight's, or NULL */
  GCancellable *sanitize_cancellable; /* compute-sanitizer's run in flight, or NULL */
  char *sanitize_message;     /* how its last run ended when it gave no report, or NULL */
  GCancellable *probe;        /* the camera probe under way, or NULL */
  char *camera;               /* the camera the probe found, or NULL */

  /* borrowed */
  const KsLesson *lesson;
  const KsLessonVariant *variant;
  RunJob *job;                /* in flight (the task owns it), or NULL */

  guint generation;           /* of the lesson and variant shown */
  guint n_runs;
  gboolean pending;           /* a run was asked for while one was in flight */
  gboolean cancelling;        /* Cancel was pressed for the run in flight */
  gboolean cancelled;         /* the last run of what is shown was cancelled */
  gboolean probed;            /* the camera probe has answered */
  gboolean loading;           /* the editor's text is being replaced */
  gboolean syncing;           /* the variant controls follow the model */
  gboolean closed;
};

enum
{
  PROP_0,
  PROP_PIPELINE,
  PROP_RUNNING,
  N_PROPS
};

/* ---- ks-lesson-window-status.c -------------------------------------------------------------- */

/* Set by class_init; the run notifies "running". */
extern GParamSpec *_ks_lesson_window_properties[N_PROPS];

gboolean _ks_lesson_window_engine_is_cuda (KsLessonWindow *self);
/* The editor's text; a new string. */
char    *_ks_lesson_window_buffer_text    (KsLessonWindow *self);
/* What ks_lesson_window_get_edited says. */
gboolean _ks_lesson_window_is_edited      (KsLessonWindow *self);
void     _ks_lesson_window_update_actions (KsLessonWindow *self);
/* The status line: the run in flight, the last run, or failure (NULL: none). */
void     _ks_lesson_window_update_status  (KsLessonWindow *self, const char *failure);

/* An async callback's hold on the window (g_autoptr (GWeakRef)). */
void     _ks_lesson_window_weak_ref_free  (GWeakRef *ref);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GWeakRef, _ks_lesson_window_weak_ref_free)

/* ---- ks-lesson-window-results.c ------------------------------------------------------------- */

/* Shown as a summary and a heatmap rather than as cells. */
gboolean             _ks_lesson_window_is_large        (const KsArray *a);
/* The output the check compared with its reference, when something differs. */
const KsLessonArray *_ks_lesson_window_checked_output  (const KsLessonReport *r);
/* Whether element i differs from the reference, as the check decides it. */
gboolean             _ks_lesson_window_element_differs (const KsArray *expected,
                                                        const KsArray *actual, gsize i,
                                                        double tolerance);
void       _ks_lesson_window_clear_results (KsLessonWindow *self);
/* A widget of the result area under its key (ks_lesson_window_get_result_widget). */
void       _ks_lesson_window_remember      (KsLessonWindow *self, const char *key,
                                            GtkWidget *widget);
GtkWidget *_ks_lesson_window_new_label     (const char *text, const char *css_class);
/* A box with a heading, appended to parent. */
GtkWidget *_ks_lesson_window_new_section   (GtkBox *parent, const char *title);
GtkWidget *_ks_lesson_window_new_text_view (const char *text, gboolean wrap);
/* How many elements of the checked output differ, under its heading. */
void       _ks_lesson_window_add_difference_count (KsLessonWindow *self, GtkBox *box,
                                                   const char *key, const KsLessonCheck *c);

/* ---- ks-lesson-window-heatmap.c ------------------------------------------------------------- */

/* What a heatmap's picture keeps as its "ks-heat-view" data. */
typedef struct _HeatView HeatView;

/* On the runner. expected: the reference of the checked output, for its
 * differences; NULL otherwise. */
Heatmap *_ks_lesson_window_make_heatmap (const char *key, const KsArray *a,
                                         const KsArray *expected, double tolerance);
void     _ks_lesson_window_heatmap_free (gpointer data);
/* What the heatmap's picture says under the pointer at (x, y); NULL off it. */
char    *_ks_lesson_window_heat_view_describe (HeatView *hv, GtkWidget *picture, double x,
                                               double y);
/* Its size, which follows presenter mode. */
void     _ks_lesson_window_size_heat_picture  (KsLessonWindow *self, GtkWidget *picture);
/* A long array: how long, its ends, its range and a heatmap. */
void     _ks_lesson_window_add_summary (KsLessonWindow *self, GtkBox *box,
                                        const KsLessonArray *la, const char *key, RunJob *job,
                                        gboolean checked);

/* ---- ks-lesson-window-timings.c, ks-lesson-window-report.c ---------------------------------- */

void _ks_lesson_window_add_timings (KsLessonWindow *self, const KsLessonReport *r);
/* The result area, rebuilt for the report of job. */
void _ks_lesson_window_show_report (KsLessonWindow *self, RunJob *job);

/* ---- ks-lesson-window-run.c ----------------------------------------------------------------- */

/* What Run does: one run in flight, at most one waiting. */
void _ks_lesson_window_request_run (KsLessonWindow *self);
/* What Cancel does. */
void _ks_lesson_window_cancel_run  (KsLessonWindow *self);

/* ---- ks-lesson-window-editor.c -------------------------------------------------------------- */

/* The line under the editor: whether an edit can run here. */
void _ks_lesson_window_update_edit_label (KsLessonWindow *self);
/* The variant's pristine source into the editor. */
void _ks_lesson_window_load_source       (KsLessonWindow *self);
void _ks_lesson_window_update_launch     (KsLessonWindow *self);
/* The grid and block entries and the timed runs, under the launch (from init). */
void _ks_lesson_window_build_launch_row  (KsLessonWindow *self);

/* ---- ks-lesson-window-sanitizer.c ----------------------------------------------------------- */

void _ks_lesson_window_update_sanitizer (KsLessonWindow *self);
void _ks_lesson_window_start_sanitize   (KsLessonWindow *self);
void _ks_lesson_window_cancel_sanitize  (KsLessonWindow *self);
/* A variant left (or the window closed) takes its sanitizer run with it. */
void _ks_lesson_window_drop_sanitizer   (KsLessonWindow *self);

/* ---- ks-lesson-window-camera.c -------------------------------------------------------------- */

void _ks_lesson_window_update_live      (KsLessonWindow *self);
void _ks_lesson_window_probe_camera     (KsLessonWindow *self);
/* lesson.live-camera: the lesson's op on the main window's camera. */
void _ks_lesson_window_open_live_camera (KsLessonWindow *self);

G_END_DECLS
