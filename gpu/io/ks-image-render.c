/* ks-image-render.c: vector images, rendered in the worker program under a
 * budget of time and memory: the subprocess started, its pixels read back,
 * and the worker program's side of it (_ks_image_render_main). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <gio/gio.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-image-io-private.h"
#include "ks-image-private.h"
#include "ks-program.h"

/* ---- vector images ---------------------------------------------------------- */

/* A vector image's cost is not its size: a 1 KB SVG with a wide blur renders
 * for minutes in gigabytes. They are rendered by the worker program under a
 * budget — RENDER_SECONDS of time, and address space for a few surfaces of the
 * image's size (a filter needs several) — that the kernel enforces, so that
 * nothing of it can hang or exhaust this process. */
#define RENDER_SECONDS 10
#define RENDER_BASE_BYTES ((guint64) 1 << 30)
#define RENDER_SURFACES 6

#if defined(__SANITIZE_ADDRESS__)
#define KS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KS_ASAN 1
#endif
#endif

typedef struct
{
  guint64 bytes;
} RenderBudget;

/* In the child between fork and exec: async-signal-safe calls only. */
static void
render_child_setup (gpointer data)
{
  const RenderBudget *budget = data;
  struct rlimit cpu = { RENDER_SECONDS, RENDER_SECONDS + 1 };

  setrlimit (RLIMIT_CPU, &cpu);
#ifndef KS_ASAN
  {
    /* AddressSanitizer reserves terabytes of address space: no limit there. */
    struct rlimit as = { budget->bytes, budget->bytes };

    setrlimit (RLIMIT_AS, &as);
  }
#else
  (void) budget;
#endif
  /* Wall-clock time too (a timer survives exec): a renderer that sleeps or
   * waits is ended like one that computes. */
  alarm (RENDER_SECONDS);
}

static char *
render_stderr (int fd)
{
  char buf[1024];
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  char *line, *nl;

  buf[MAX (n, 0)] = '\0';
  line = g_utf8_make_valid (buf, -1);
  nl = strchr (line, '\n');
  if (nl != NULL)
    *nl = '\0';
  return line;
}

KsImage *
_ks_image_render_vector (const char *path, const char *display, int width, int height,
                         guint max_side, GError **error)
{
  g_autofree char *program = NULL;
  g_autofree char *side = g_strdup_printf ("%u", max_side);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (KsImage) image = NULL;
  RenderBudget budget;
  GInputStream *out;
  guint32 header[2] = { 0, 0 };
  gsize got = 0;
  gboolean read_ok;
  int err_fd;

  program = ks_worker_program_find (&local);
  if (program == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is a vector image, which Kernelscope renders in a separate process: %s",
                   display, local->message);
      return NULL;
    }
  budget.bytes = RENDER_BASE_BYTES + (guint64) RENDER_SURFACES * 4 * width * height;
  {
    /* A limit this process already has binds the renderer too: say that one. */
    struct rlimit current;

    if (getrlimit (RLIMIT_AS, &current) == 0 && current.rlim_cur != RLIM_INFINITY
        && (guint64) current.rlim_cur < budget.bytes)
      budget.bytes = (guint64) current.rlim_cur;
  }
  /* memfd_create without _GNU_SOURCE (the build does not define it). */
  err_fd = (int) syscall (SYS_memfd_create, "kernelscope-render-stderr", 1u /* MFD_CLOEXEC */);
  if (err_fd < 0)
    {
      int saved = errno;

      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot render “%s”: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  g_subprocess_launcher_take_stderr_fd (launcher, dup (err_fd));
  /* A loader's warning is not the renderer's failure, even in a test run. */
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  g_subprocess_launcher_set_child_setup (launcher, render_child_setup, &budget, NULL);
  process = g_subprocess_launcher_spawn (launcher, &local, program, "--render", path,
                                         "--max-side", side, NULL);
  if (process == NULL)
    {
      close (err_fd);
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot render “%s”: %s", display,
                   local->message);
      return NULL;
    }

  out = g_subprocess_get_stdout_pipe (process);
  read_ok = g_input_stream_read_all (out, header, sizeof header, &got, NULL, NULL)
            && got == sizeof header && header[0] >= 1 && header[1] >= 1
            && header[0] <= max_side && header[1] <= max_side;
  if (read_ok)
    image = ks_image_new (KS_FORMAT_RGBA8, header[0], header[1], NULL);
  for (guint y = 0; read_ok && image != NULL && y < image->height; y++)
    read_ok = g_input_stream_read_all (out, ks_image_row (image, y), (gsize) image->width * 4,
                                       &got, NULL, NULL)
              && got == (gsize) image->width * 4;
  /* A child that stops reading ends here; one that is still writing is killed. */
  if (!read_ok || image == NULL)
    g_subprocess_force_exit (process);
  g_input_stream_close (out, NULL, NULL);
  g_subprocess_wait (process, NULL, NULL);

  if (g_subprocess_get_if_signaled (process))
    {
      int sig = g_subprocess_get_term_sig (process);

      close (err_fd);
      if (sig == SIGXCPU || sig == SIGALRM)
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "“%s” takes more than %d s to render; Kernelscope stops vector images "
                     "there", display, RENDER_SECONDS);
      else if (sig == SIGKILL && image == NULL)
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "Not enough memory to render “%s”", display);
      else if (sig == SIGKILL)
        return g_steal_pointer (&image);  /* killed after sending everything */
      else
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "“%s” could not be rendered within %" G_GUINT64_FORMAT " MiB of memory "
                     "(the renderer stopped with signal %s)", display, budget.bytes >> 20,
                     g_strsignal (sig));
      return NULL;
    }
  if (g_subprocess_get_exit_status (process) != 0 || !read_ok || image == NULL)
    {
      g_autofree char *why = render_stderr (err_fd);

      close (err_fd);
      /* The loader's reason, which may be the budget's: its allocation failed. */
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "%s (Kernelscope renders vector images within %" G_GUINT64_FORMAT
                   " MiB and %d s)", *why != '\0' ? why : "The renderer failed",
                   budget.bytes >> 20, RENDER_SECONDS);
      return NULL;
    }
  close (err_fd);
  return g_steal_pointer (&image);
}

int
_ks_image_render_main (const char *path, guint side)
{
  g_autofree char *display = ks_file_display_basename (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autoptr (KsImage) image = NULL;
  guint32 header[2];
  guint max_side = MIN (side, KS_IMAGE_MAX_SIDE);

  pixbuf = gdk_pixbuf_new_from_file (path, &error);
  if (pixbuf == NULL)
    {
      fprintf (stderr, "“%s” could not be rendered: %s\n", display,
               _ks_image_pixbuf_reason (error->message, path));
      return 1;
    }
  if ((guint) gdk_pixbuf_get_width (pixbuf) > max_side
      || (guint) gdk_pixbuf_get_height (pixbuf) > max_side)
    {
      fprintf (stderr, "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u\n", display,
                  gdk_pixbuf_get_width (pixbuf), gdk_pixbuf_get_height (pixbuf), max_side,
                  max_side);
      return 1;
    }
  image = _ks_image_from_pixbuf (pixbuf, &error);
  if (image == NULL)
    {
      fprintf (stderr, "“%s” could not be rendered: %s\n", display,
               _ks_image_pixbuf_reason (error->message, path));
      return 1;
    }
  g_clear_object (&pixbuf);
  header[0] = image->width;
  header[1] = image->height;
  if (fwrite (header, sizeof header, 1, stdout) != 1)
    return 1;
  for (guint y = 0; y < image->height; y++)
    if (fwrite (ks_image_row (image, y), (gsize) image->width * 4, 1, stdout) != 1)
      return 1;
  return fflush (stdout) == 0 ? 0 : 1;
}
