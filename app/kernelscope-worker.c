/* kernelscope-worker: the process user kernels compile and run in
 * (gpu/worker/ks-worker.h), and vector images are rendered in (--render, under a
 * budget: gpu/io/ks-image-render.c). Started by Kernelscope; not meant to be
 * run by hand. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib.h>

#include "ks-image-private.h"
#include "ks-worker-private.h"

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *render = NULL;
  int max_side = 0;
  int fd = -1;
  int device = -1;
  int status;
  gboolean guard_arrays = FALSE;
  gint64 printf_fifo = KS_WORKER_DEFAULT_PRINTF_FIFO;
  GOptionEntry entries[] = {
    { "fd", 0, 0, G_OPTION_ARG_INT, &fd, "The socket to serve requests on", "FD" },
    { "device", 0, 0, G_OPTION_ARG_INT, &device, "The CUDA device; -1: compile only", "N" },
    { "printf-fifo", 0, 0, G_OPTION_ARG_INT64, &printf_fifo,
      "Bytes of device printf buffered per launch", "BYTES" },
    { "guard-arrays", 0, 0, G_OPTION_ARG_NONE, &guard_arrays,
      "Leave unallocated memory after every array argument, so that a sanitizer sees accesses "
      "past an array's end", NULL },
    { "render", 0, 0, G_OPTION_ARG_FILENAME, &render,
      "Render a vector image and write its pixels on stdout", "FILE" },
    { "max-side", 0, 0, G_OPTION_ARG_INT, &max_side, "The largest side --render accepts", "N" },
    { NULL },
  };

  context = g_option_context_new ("- serve Kernelscope's user kernels");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("kernelscope-worker: %s\n", error->message);
      return KS_WORKER_EXIT_USAGE;
    }
  if (render != NULL)
    {
      if (max_side <= 0)
        {
          g_printerr ("kernelscope-worker: --render needs --max-side\n");
          return KS_WORKER_EXIT_USAGE;
        }
      return _ks_image_render_main (render, (guint) max_side);
    }
  if (fd < 0 || fcntl (fd, F_GETFD) < 0)
    {
      g_printerr ("kernelscope-worker: --fd must name an open socket; this program is started "
                  "by Kernelscope\n");
      return KS_WORKER_EXIT_USAGE;
    }
  if (printf_fifo < 4096 || printf_fifo > ((gint64) 1 << 30))
    {
      g_printerr ("kernelscope-worker: --printf-fifo %" G_GINT64_FORMAT " is outside 4096 … "
                  "1073741824 bytes\n", printf_fifo);
      return KS_WORKER_EXIT_USAGE;
    }
  status = _ks_worker_server_main (fd, device, (gsize) printf_fifo, guard_arrays);
  /* After a sticky fault the CUDA runtime's teardown at exit can only fail
   * or stall: leave without it. */
  if (status == KS_WORKER_EXIT_FAULT)
    _exit (status);
  return status;
}
