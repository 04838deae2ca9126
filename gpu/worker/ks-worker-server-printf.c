/* ks-worker-server-printf.c: device printf captured in the worker: stdout
 * replaced by a memory file, read back and emptied after each run. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ks-worker-server-private.h"

/* Device printf writes through stdio to fd 1; a memory file there lets the
 * worker read back exactly what each run printed. */
void
_ks_worker_server_capture_stdout (Server *s)
{
  /* memfd_create without _GNU_SOURCE (the build does not define it). */
  int fd = (int) syscall (SYS_memfd_create, "kernelscope-printf", 1u /* MFD_CLOEXEC */);

  s->printf_fd = -1;
  if (fd < 0)
    {
      g_message ("Device printf is not captured: memfd_create failed: %s", g_strerror (errno));
      return;
    }
  fflush (stdout);
  if (dup2 (fd, STDOUT_FILENO) < 0)
    {
      g_message ("Device printf is not captured: dup2 failed: %s", g_strerror (errno));
      close (fd);
      return;
    }
  close (fd);
  s->printf_fd = STDOUT_FILENO;
}

#if HAVE_CUDA
/* What the runs since the last call printed; the file starts over. */
char *
_ks_worker_server_take_printf (Server *s)
{
  off_t end;
  char *text;
  gssize n = 0;

  fflush (stdout);
  if (s->printf_fd < 0 || (end = lseek (s->printf_fd, 0, SEEK_CUR)) <= 0)
    return g_strdup ("");
  text = g_malloc ((gsize) end + 1);
  while (n < end)
    {
      gssize got = pread (s->printf_fd, text + n, (gsize) (end - n), n);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      n += got;
    }
  text[n] = '\0';
  if (ftruncate (s->printf_fd, 0) != 0 || lseek (s->printf_fd, 0, SEEK_SET) != 0)
    g_message ("Could not reset the captured printf output: %s", g_strerror (errno));
  return text;
}

guint64
_ks_worker_server_count_lines (const char *text)
{
  guint64 n = 0;
  const char *p;

  for (p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  /* A last line without its newline is a line too. */
  if (p != text && p[-1] != '\n')
    n++;
  return n;
}
#endif
