/* ks-session-private.h: what the files of sessions share. A session is a
 * window's set-up as a JSON document (docs/sessions.md says what each
 * member means); the bundle is the files a run is exported as.
 *
 * Reading is two steps so that a bad file changes nothing: the document is
 * parsed and validated into a KsSession (and its embedded images decoded)
 * in a thread, and only a session that passed all of it is applied, on the
 * main thread. What the document itself gets wrong (not JSON, another
 * format, a newer version, a member of the wrong type or out of its range)
 * refuses the whole file; what only this machine lacks (an op, a device, an
 * input file) is left out on its own when applying, and named.
 *
 * The files, each calling only those below it:
 *
 *   ks-session.c         ks-session.h's functions that take a window: they
 *                        check it, which only the file of the window's type
 *                        may (ks-window-private.h), and hand on
 *   ks-session-bundle.c  a run exported as a folder of files
 *   ks-session-window.c  the window's side: opening (read, applied, a
 *                        toast), saving (captured, written, a toast), the
 *                        last session written when the window closes
 *   ks-session-apply.c   a session applied to a window and its pipeline
 *   ks-session-write.c   a window captured into a session; a session
 *                        serialised to JSON and written to a file
 *   ks-session-parse.c   the KsSession record; a file read, parsed and
 *                        validated into one
 */
#pragma once

#include "ks-session.h"
#include "ks-window-private.h"

G_BEGIN_DECLS

#define SAMPLE_RESOURCE_DIR "/org/kernelscope/Kernelscope/samples/"

/* Object data of a window that writes the last session when it closes. */
#define LAST_FILE_KEY "ks-session-last-file"
#define APPLICATION_KEY "ks-session-application"

typedef enum
{
  INPUT_NONE,
  INPUT_FILE,
  INPUT_SAMPLE,
  INPUT_EMBEDDED,
} InputKind;

typedef struct
{
  InputKind kind;
  char *name;         /* as the window's title shows it */
  GFile *file;        /* INPUT_FILE */
  char *sample;       /* INPUT_SAMPLE */
  KsImage *image;     /* INPUT_EMBEDDED; a decoded sample for the second slot */
  gboolean missing;   /* the file or the sample is not there */
} SessionInput;

typedef struct
{
  char *name;
  double number;      /* numbers, and true and false as 1 and 0 */
  char *choice;       /* a choice's id, in place of a number */
} ParamValue;

/* A declared kernel (ks-declared-kernel.h) as the form holds it; the
 * pieces its kind does not read are NULL. */
typedef struct
{
  KsDeclaredKind kind;
  char *name;
  char *arguments;
  char *operation;
  char *map_expr;
  char *reduce_expr;  /* a reduction's reduce_expr, a scan's scan_expr */
  char *neutral;
  char *dtype;        /* a reduction's dtype_out, a scan's dtype */
  char *preamble;
  gboolean out_of_place;
} SessionDeclaration;

struct _KsSession
{
  SessionInput inputs[2];

  char *op_id;
  GArray *params;     /* ParamValue */

  gboolean has_launch;
  KsLaunchConfig launch;
  char *launch_refused;  /* why the file's launch is not restored; NULL: it is */

  char *device_id;

  gboolean has_overlay;
  KsOverlayMode overlay;
  double overlay_opacity;  /* NAN: not given */
  double split;            /* NAN: not given */
  gboolean zoom_fit;
  double zoom;             /* NAN: not given (or fit) */

  gboolean has_kernel;
  char *kernel_source;
  KsKernelMode kernel_mode;
  gboolean kernel_visible;
  GArray *kernel_params; /* ParamValue, numbers only: the kernel's //@param values */
  GStrv kernel_include_dirs; /* the editor's include folders; NULL: not given */
  char *kernel_entry;     /* the kernel chooser's pick, or NULL */
  gboolean has_declared;  /* the source is a declared kernel's, generated from: */
  SessionDeclaration declared;

  /* What the file gets wrong in a part that is only added to the rest (the
   * editor's include folders, its pick, its declaration): left out on its
   * own, each a clause for the toast, rather than refusing the file. */
  GPtrArray *left_out;
};

/* A disposed window has let its pipeline and widgets go; work that ends
 * after the window closed has nowhere to go. */
static inline gboolean
_ks_session_window_alive (KsWindow *window)
{
  return window->pipeline != NULL;
}

static inline void
_ks_session_toast (KsWindow *window, const char *message)
{
  if (_ks_session_window_alive (window))
    _ks_window_toast (window, message);
}

/* ks-session-parse.c: an empty session, nothing given. */
KsSession *_ks_session_new     (void);
void       _ks_session_declaration_clear (SessionDeclaration *declaration);

/* ks-session-write.c: ks_session_capture, for a window already checked. */
KsSession *_ks_session_capture (KsWindow *window);
/* ks_session_save_async; a private file (the last session) only the user
 * may read, in a folder that may be new. */
void       _ks_session_save_async (KsSession *session, GFile *file, gboolean private,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);

/* ks-session-apply.c: ks_session_apply, for a window already checked; also
 * says whether slot A gets an image from the session. */
char *_ks_session_apply (const KsSession *session, KsWindow *window, KsSessionApplyFlags flags,
                         gboolean *input_a_set);

/* ks-session-window.c: ks_session_open; at startup (the last session, when
 * the window opens) quietly when there is none yet; with sample_otherwise,
 * the bundled sample opens when the session gives no image. */
void _ks_session_open (KsWindow *window, GFile *file, gboolean startup, KsSessionApplyFlags flags,
                       gboolean sample_otherwise);
/* ks_session_save, for a window already checked. */
void _ks_session_save (KsWindow *window, GFile *file);

/* ks-session-bundle.c: ks_session_export_bundle, for a window already checked. */
void _ks_session_export_bundle (KsWindow *window, GFile *folder);

G_END_DECLS
