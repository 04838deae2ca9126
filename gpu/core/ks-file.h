/* ks-file.h: files written so that the one they replace survives anything.
 *
 * Every file Kernelscope writes (images, CSV, JSON) goes to a temporary
 * beside its target, ".NAME.XXXXXX" in the same folder, and is renamed over
 * the target only once complete and flushed to disk. A failure, a full disk
 * or a signal leaves the old file as it was, and the temporary is removed:
 * by the writer on failure, by the signal handlers of
 * ks_file_remove_temporaries_on_signals on SIGINT, SIGTERM and SIGHUP. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _KsAtomicFile KsAtomicFile;

/* Opens a temporary for path. The new file gets the mode of the file it
 * replaces, or 0666 less the umask. */
KsAtomicFile *ks_atomic_file_open      (const char *path, GError **error);
gboolean      ks_atomic_file_write     (KsAtomicFile *file, const void *data, gsize size,
                                        GError **error);
/* Flushes, closes and renames over the target; frees file. On failure the
 * temporary is removed and the target is untouched. */
gboolean      ks_atomic_file_commit    (KsAtomicFile *file, GError **error);
/* Removes the temporary; the target is untouched. Frees file; NULL is fine. */
void          ks_atomic_file_abort     (KsAtomicFile *file);

/* The whole of data to path, atomically. */
gboolean      ks_file_replace_contents (const char *path, const void *data, gsize size,
                                        GError **error);

/* Whether path can be written: its folder exists and is writable, and path
 * is not a folder. Checked for every output of a command before the first
 * is written. */
gboolean      ks_file_check_writable   (const char *path, GError **error);

/* Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the
 * temporaries being written and then end the process with the signal, as
 * its default action would. For programs (the command-line tool), once. */
void          ks_file_remove_temporaries_on_signals (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsAtomicFile, ks_atomic_file_abort)

/* A file name for a message: g_filename_display_name's (or _basename's) text,
 * with control characters written as escapes (\n, \t, \x1b), so that a name
 * holding a newline stays on the message's one line and is still the name. */
char        *ks_file_display_name      (const char *path);
char        *ks_file_display_basename  (const char *path);

G_END_DECLS
