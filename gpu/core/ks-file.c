#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "ks-error.h"
#include "ks-file.h"

/* The temporaries being written, for the signal handlers. A handler may only
 * read these slots and call unlink (async-signal-safe); a slot is emptied
 * before its string is freed. */
#define MAX_TEMPORARIES 32
static char *volatile temporaries[MAX_TEMPORARIES];
static GMutex temporaries_lock;

static void
register_temporary (char *path)
{
  g_mutex_lock (&temporaries_lock);
  for (guint i = 0; i < MAX_TEMPORARIES; i++)
    if (temporaries[i] == NULL)
      {
        temporaries[i] = path;
        break;
      }
  g_mutex_unlock (&temporaries_lock);
}

static void
unregister_temporary (const char *path)
{
  g_mutex_lock (&temporaries_lock);
  for (guint i = 0; i < MAX_TEMPORARIES; i++)
    if (temporaries[i] == path)
      temporaries[i] = NULL;
  g_mutex_unlock (&temporaries_lock);
}

struct _KsAtomicFile
{
  char *path;       /* the target */
  char *temporary;  /* registered while it exists */
  int fd;
};

static void
set_file_error (GError **error, const char *what, const char *path, int err)
{
  g_autofree char *display = ks_file_display_name (path);

  g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "Cannot %s “%s”: %s", what, display,
               g_strerror (err));
}

KsAtomicFile *
ks_atomic_file_open (const char *path, GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  KsAtomicFile *file;
  struct stat st;
  mode_t mode, mask;

  g_return_val_if_fail (path != NULL && *path != '\0', NULL);

  if (!ks_file_check_writable (path, error))
    return NULL;
  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  file = g_new0 (KsAtomicFile, 1);
  file->path = g_strdup (path);
  file->fd = -1;
  /* Each name is registered before the file is made, so that a signal that
   * ends the process any time after the file exists removes it (with
   * mkstemp the file existed for a moment before the handler knew of it). */
  for (guint attempt = 0;; attempt++)
    {
      static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
      char suffix[7];
      int err;

      for (guint i = 0; i < 6; i++)
        suffix[i] = letters[g_random_int_range (0, (gint32) sizeof letters - 1)];
      suffix[6] = '\0';
      file->temporary = g_strdup_printf ("%s%c.%s.%s", dir, G_DIR_SEPARATOR, base, suffix);
      register_temporary (file->temporary);
      file->fd = g_open (file->temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (file->fd >= 0)
        break;
      err = errno;
      /* A name another file has is drawn again, a hundred times at most;
       * any other error ends it. */
      unregister_temporary (file->temporary);
      g_clear_pointer (&file->temporary, g_free);
      if (err != EEXIST || attempt == 99)
        {
          set_file_error (error, "write", path, err);
          g_free (file->path);
          g_free (file);
          return NULL;
        }
    }

  /* What the replaced file had, else what a new file would get. */
  if (stat (path, &st) == 0)
    mode = st.st_mode & 07777;
  else
    {
      mask = umask (0);
      umask (mask);
      mode = 0666 & ~mask;
    }
  (void) fchmod (file->fd, mode);
  return file;
}

gboolean
ks_atomic_file_write (KsAtomicFile *file, const void *data, gsize size, GError **error)
{
  const guint8 *p = data;

  g_return_val_if_fail (file != NULL && file->fd >= 0, FALSE);

  while (size > 0)
    {
      gssize n = write (file->fd, p, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          set_file_error (error, "write", file->path, n < 0 ? errno : ENOSPC);
          return FALSE;
        }
      p += n;
      size -= (gsize) n;
    }
  return TRUE;
}

static void
atomic_file_free (KsAtomicFile *file)
{
  if (file->fd >= 0)
    close (file->fd);
  if (file->temporary != NULL)
    {
      unregister_temporary (file->temporary);
      g_free (file->temporary);
    }
  g_free (file->path);
  g_free (file);
}

void
ks_atomic_file_abort (KsAtomicFile *file)
{
  if (file == NULL)
    return;
  if (file->temporary != NULL)
    (void) g_unlink (file->temporary);
  atomic_file_free (file);
}

gboolean
ks_atomic_file_commit (KsAtomicFile *file, GError **error)
{
  int err = 0;

  g_return_val_if_fail (file != NULL && file->fd >= 0, FALSE);

  /* On disk before the rename: after a crash the target is the old file
   * or the whole new one, never a truncated one. */
  if (fsync (file->fd) != 0 && errno != EINVAL)
    err = errno;
  if (close (file->fd) != 0 && err == 0)
    err = errno;
  file->fd = -1;
  if (err == 0 && g_rename (file->temporary, file->path) != 0)
    err = errno;
  if (err != 0)
    {
      set_file_error (error, "write", file->path, err);
      ks_atomic_file_abort (file);
      return FALSE;
    }
  /* Renamed: nothing of ours is left to remove. */
  unregister_temporary (file->temporary);
  g_clear_pointer (&file->temporary, g_free);
  atomic_file_free (file);
  return TRUE;
}

gboolean
ks_file_replace_contents (const char *path, const void *data, gsize size, GError **error)
{
  KsAtomicFile *file = ks_atomic_file_open (path, error);

  if (file == NULL)
    return FALSE;
  if (!ks_atomic_file_write (file, data, size, error))
    {
      ks_atomic_file_abort (file);
      return FALSE;
    }
  return ks_atomic_file_commit (file, error);
}

gboolean
ks_file_check_writable (const char *path, GError **error)
{
  g_autofree char *display = NULL;
  g_autofree char *dir = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  display = ks_file_display_name (path);
  if (*path == '\0')
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_FAILED,
                           "An output needs a file name");
      return FALSE;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "Cannot write “%s”: it is a folder", display);
      return FALSE;
    }
  dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *dir_display = ks_file_display_name (dir);

      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "Cannot write “%s”: the folder “%s” does not exist", display, dir_display);
      return FALSE;
    }
  if (access (dir, W_OK) != 0)
    {
      int err = errno;
      g_autofree char *dir_display = ks_file_display_name (dir);

      g_set_error (error, KS_ERROR, KS_ERROR_FAILED,
                   "Cannot write “%s”: the folder “%s” is not writable (%s)", display,
                   dir_display, g_strerror (err));
      return FALSE;
    }
  return TRUE;
}

static void
on_signal (int sig)
{
  for (guint i = 0; i < MAX_TEMPORARIES; i++)
    {
      char *path = temporaries[i];

      if (path != NULL)
        (void) unlink (path);
    }
  /* Then what the signal would have done: end the process, with its status. */
  signal (sig, SIG_DFL);
  raise (sig);
}

static char *
escape_controls (char *text)
{
  GString *s;

  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      goto escape;
  return text;

escape:
  s = g_string_sized_new (strlen (text) + 8);
  for (const char *p = text; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '\n')
        g_string_append (s, "\\n");
      else if (c == '\t')
        g_string_append (s, "\\t");
      else if (c == '\r')
        g_string_append (s, "\\r");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (s, "\\x%02x", c);
      else
        g_string_append_c (s, (char) c);
    }
  g_free (text);
  return g_string_free (s, FALSE);
}

char *
ks_file_display_name (const char *path)
{
  return escape_controls (g_filename_display_name (path));
}

char *
ks_file_display_basename (const char *path)
{
  return escape_controls (g_filename_display_basename (path));
}

void
ks_file_remove_temporaries_on_signals (void)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
  struct sigaction action;

  memset (&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset (&action.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction old;

      /* A signal the caller ignores (nohup) stays ignored. */
      if (sigaction (signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (signals[i], &action, NULL);
    }
}
