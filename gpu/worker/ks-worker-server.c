/* ks-worker-server.c: the worker process's side of ks-worker.h: its request
 * loop. The message format is ks-worker-protocol.c; the requests are served
 * in ks-worker-server-compile.c, -load.c and -run.c.
 *
 * The worker serves one request at a time on its socket. It owns a CUDA
 * context of its own (ks-worker-server-context.c), so a user kernel that
 * faults ends this process and nothing else: after a sticky error it replies
 * with the error and exits. */
#include "config.h"

#include <unistd.h>

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "ks-error.h"
#include "ks-worker-server-private.h"

static ReplyKind
handle_hello (Server *s, GVariantDict *reply)
{
  g_autoptr (GError) nvrtc_error = NULL;
  gboolean nvrtc = ks_nvrtc_load (&nvrtc_error);

  g_variant_dict_insert (reply, "pid", "x", (gint64) getpid ());
  g_variant_dict_insert (reply, "cuda", "b", s->has_cuda);
  g_variant_dict_insert (reply, "cuda-reason", "s", s->cuda_reason != NULL ? s->cuda_reason : "");
  g_variant_dict_insert (reply, "device-name", "s", s->device_name != NULL ? s->device_name : "");
  g_variant_dict_insert (reply, "arch", "u", s->arch);
  g_variant_dict_insert (reply, "nvrtc-version", "i", nvrtc ? ks_nvrtc_version () : 0);
  g_variant_dict_insert (reply, "nvrtc-reason", "s", nvrtc ? "" : nvrtc_error->message);
  return REPLY_OK;
}

static gboolean
server_reply (Server *s, ReplyKind kind, GVariantDict *fields, const GError *error,
              int cuda_error)
{
  g_autoptr (GVariant) message = NULL;
  g_autoptr (GError) write_error = NULL;

  if (kind == REPLY_OK)
    message = _ks_worker_message_new ("ok", g_variant_dict_end (fields));
  else
    {
      GVariantDict e;

      g_variant_dict_init (&e, NULL);
      g_variant_dict_insert (&e, "domain", "s", g_quark_to_string (error->domain));
      g_variant_dict_insert (&e, "code", "i", error->code);
      g_variant_dict_insert (&e, "message", "s", error->message);
      g_variant_dict_insert (&e, "fatal", "b", s->fatal || kind == REPLY_PROTOCOL);
      if (cuda_error != 0)
        {
          g_variant_dict_insert (&e, "cuda-error", "i", cuda_error);
#if HAVE_CUDA
          g_variant_dict_insert (&e, "cuda-name", "s", cudaGetErrorName ((cudaError_t) cuda_error));
#endif
        }
      message = _ks_worker_message_new ("error", g_variant_dict_end (&e));
    }
  if (!_ks_worker_write_message (s->fd, message, -1, &write_error))
    {
      g_message ("The worker could not reply: %s", write_error->message);
      return FALSE;
    }
  return TRUE;
}

/* A client that dies closes its end, which the request loop reads as the
 * end; but while a kernel never ends nothing reads the socket, so this
 * thread ends the process once the parent is gone. It asks getppid rather
 * than relying on PR_SET_PDEATHSIG, which fires when the thread that
 * started the worker ends (a pool thread of the application), not the
 * application. */
static gpointer
watch_parent (gpointer data)
{
  pid_t parent = GPOINTER_TO_INT (data);

  for (;;)
    {
      if (getppid () != parent)
        _exit (KS_WORKER_EXIT_OK);
      g_usleep (200 * 1000);
    }
  return NULL;
}

int
_ks_worker_server_main (int fd, int device, gsize printf_fifo, gboolean guard_arrays)
{
  Server s = { 0 };
  int status = KS_WORKER_EXIT_OK;

  g_return_val_if_fail (fd >= 0, KS_WORKER_EXIT_USAGE);

  s.fd = fd;
  s.device = device;
  s.printf_fifo = printf_fifo;
  s.guard_arrays = guard_arrays;
  s.libraries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s.ipc_buffers = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                         (GDestroyNotify) g_bytes_unref, NULL);
  if (getppid () == 1)
    return KS_WORKER_EXIT_OK;
  g_thread_unref (g_thread_new ("ks-parent-watch", watch_parent,
                                GINT_TO_POINTER ((int) getppid ())));
  _ks_worker_server_capture_stdout (&s);
  _ks_worker_server_start_cuda (&s);

  for (;;)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GVariant) message = _ks_worker_read_message (fd, -1, NULL, &error);
      g_autoptr (GVariant) fields = NULL;
      GVariantDict reply;
      const char *command;
      ReplyKind kind;
      int cuda_error = 0;

      if (message == NULL)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
            break;
          g_message ("The worker stops on a bad request: %s", error->message);
          status = KS_WORKER_EXIT_PROTOCOL;
          break;
        }
      g_variant_get (message, "(&s@a{sv})", &command, &fields);
      g_variant_dict_init (&reply, NULL);
      if (g_str_equal (command, "hello"))
        kind = handle_hello (&s, &reply);
      else if (g_str_equal (command, "compile"))
        kind = _ks_worker_handle_compile (&s, fields, &reply, &error);
      else if (g_str_equal (command, "attributes"))
        kind = _ks_worker_handle_attributes (&s, fields, &reply, &cuda_error, &error);
      else if (g_str_equal (command, "run"))
        kind = _ks_worker_handle_run (&s, fields, &reply, &cuda_error, &error);
      else if (g_str_equal (command, "quit"))
        {
          server_reply (&s, REPLY_OK, &reply, NULL, 0);
          break;
        }
      else
        {
          g_set_error (&error, KS_ERROR, KS_ERROR_WORKER, "Unknown request “%s”", command);
          kind = REPLY_PROTOCOL;
        }
      if (kind != REPLY_OK)
        g_variant_dict_clear (&reply);
      server_reply (&s, kind, &reply, error, cuda_error);
      if (kind == REPLY_PROTOCOL)
        {
          g_message ("The worker stops on a bad request: %s", error->message);
          status = KS_WORKER_EXIT_PROTOCOL;
          break;
        }
      if (s.fatal)
        {
          status = KS_WORKER_EXIT_FAULT;
          break;
        }
    }

  _ks_worker_server_stop_cuda (&s);
  g_hash_table_unref (s.libraries);
  g_hash_table_unref (s.ipc_buffers);
  g_free (s.cuda_reason);
  g_free (s.device_name);
  return status;
}
