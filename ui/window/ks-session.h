/* ks-session.h: everything a user set up in a window — its inputs, the op
 * and its parameters, the launch, the engine, the view's overlay, split and
 * zoom, the kernel editor — as a JSON file (docs/sessions.md), and the
 * bundle of a run's files exported beside it.
 *
 * A file is parsed and validated whole, embedded images decoded, before
 * anything is applied: a file that is refused changes nothing. Reading,
 * writing, encoding and decoding happen off the main thread. */
#pragma once

#include "ks-window.h"

G_BEGIN_DECLS

#define KS_SESSION_FORMAT "kernelscope-session"
#define KS_SESSION_VERSION 1
/* The extension Kernelscope gives the session files it writes. */
#define KS_SESSION_EXTENSION ".kscope.json"
/* How session files are told apart from images in the recent files. */
#define KS_SESSION_MIME_TYPE "application/x-kernelscope-session+json"
#define KS_SESSION_RECENT_GROUP "kernelscope-session"
/* The largest session file read (embedded images included). */
#define KS_SESSION_MAX_BYTES ((goffset) 512 * 1024 * 1024)

typedef struct _KsSession KsSession;

typedef enum
{
  KS_SESSION_APPLY_ALL = 0,
  /* Everything but the inputs (files from the command line win). */
  KS_SESSION_APPLY_SKIP_INPUTS = 1 << 0,
} KsSessionApplyFlags;

/* What the window shows now. Images that came from neither a file nor a
 * bundled sample are referenced, and encoded only by ks_session_to_json. */
KsSession  *ks_session_capture        (KsWindow *window);
void        ks_session_free           (KsSession *session);
/* The document, pretty-printed. Encodes embedded images as PNG, which takes
 * long for a large one: call it off the main thread. */
char       *ks_session_to_json        (const KsSession *session, gsize *length, GError **error);
/* Parses and validates a whole document and decodes its embedded images;
 * relative input paths are taken from base_dir (NULL: the current folder).
 * Checks that the input files exist (a missing one is no reason to refuse
 * the file; ks_session_apply names it). NULL with a KS_ERROR whose message
 * is one clause saying what is wrong. Blocking: off the main thread. */
KsSession  *ks_session_from_bytes     (GBytes *bytes, GFile *base_dir, GError **error);
/* ks_session_from_bytes of a file of at most KS_SESSION_MAX_BYTES. Blocking. */
KsSession  *ks_session_load_file      (GFile *file, GCancellable *cancellable, GError **error);
void        ks_session_load_async     (GFile *file, GCancellable *cancellable,
                                       GAsyncReadyCallback callback, gpointer user_data);
KsSession  *ks_session_load_finish    (GAsyncResult *result, GError **error);
/* Writes it atomically (g_file_replace_contents) in a thread; takes the
 * session. */
void        ks_session_save_async     (KsSession *session, GFile *file,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback, gpointer user_data);
gboolean    ks_session_save_finish    (GAsyncResult *result, GError **error);

/* The op's id ("gray"), or NULL when the session names none. */
const char *ks_session_get_op_id      (const KsSession *session);

/* Sets the window up from the session. What does not fit this machine or
 * this version (an op that does not exist, a parameter out of its range, a
 * missing input file, a device that is not here) is left as it was, and the
 * rest applies. Returns NULL, or a sentence naming what was left out. */
char       *ks_session_apply          (const KsSession *session, KsWindow *window,
                                       KsSessionApplyFlags flags);

/* The window's side, each ending in a toast that names the file or folder,
 * or says why it failed. Opening applies the session only once it is read
 * and valid; saving adds the file to the recent files. */
void        ks_session_open           (KsWindow *window, GFile *file,
                                       KsSessionApplyFlags flags);
void        ks_session_save           (KsWindow *window, GFile *file);
/* A folder "kernelscope-OP-DATE" inside `folder` with result.png,
 * overlay.png, timings.csv, timings.json, session.kscope.json and
 * README.txt (histogram ops: histogram.csv in place of the images), made
 * under a hidden name and renamed when complete. Waits for the runs queued
 * so far, so that the files show the session's configuration. */
void        ks_session_export_bundle  (KsWindow *window, GFile *folder);

/* $XDG_STATE_HOME/kernelscope/last-session.kscope.json. */
GFile      *ks_session_get_last_file  (void);
/* The start of an application window: it writes its session to the last
 * session file when it closes (holding its application until that is
 * written). It starts from `session` (a file from the command line), or
 * else, when the restore-last setting is on and the last session file can
 * be read, from that one: with images from the command line (with_images),
 * from everything but the session's inputs. A window left with no image
 * opens the bundled sample. */
void        ks_session_start_window   (KsWindow *window, GFile *session,
                                       gboolean with_images);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsSession, ks_session_free)

G_END_DECLS
