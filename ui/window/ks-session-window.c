/* ks-session-window.c: the window's side of sessions — opening one (read
 * in a thread, applied only once it is valid, a toast that names the file
 * or says what was left out), saving one (captured, written in a thread,
 * added to the recent files), and the last session, written when a window
 * that ks_session_start_window set up closes. The last session is the one
 * place the last state of a window is kept: its op, parameters, launch and
 * engine as well as its inputs, view and kernel. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-session-private.h"

/* ---- the window's side ---------------------------------------------------- */

static char *
file_display_name (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  return base != NULL ? g_filename_display_name (base) : g_file_get_parse_name (file);
}

static void
add_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *exec = g_strdup_printf ("%s %%u", g_get_prgname ());
  char *groups[] = { (char *) KS_SESSION_RECENT_GROUP, NULL };
  GtkRecentData data = {
    .mime_type = (char *) KS_SESSION_MIME_TYPE,
    .app_name = (char *) g_get_application_name (),
    .app_exec = exec,
    .groups = groups,
  };

  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

typedef struct
{
  KsWindow *window;   /* owned */
  GFile *file;
  gboolean startup;   /* the last session, when the window opens */
  KsSessionApplyFlags flags;
  gboolean sample_otherwise;  /* open the sample when the session gives no image */
} OpenJob;

static void
open_job_free (OpenJob *job)
{
  g_object_unref (job->window);
  g_object_unref (job->file);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OpenJob, open_job_free)

static void
on_session_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (OpenJob) job = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsSession) session = ks_session_load_finish (result, &error);
  g_autofree char *name = file_display_name (job->file);
  g_autofree char *problems = NULL;
  gboolean a_set = FALSE;

  if (!_ks_session_window_alive (job->window))
    return;
  if (session == NULL)
    {
      /* No last session yet is no news. */
      if (!job->startup || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_autofree char *message = g_strdup_printf (_("Could not open the session %s, so "
                                                        "nothing changed: %s"), name,
                                                      error->message);
          _ks_session_toast (job->window, message);
        }
      if (job->sample_otherwise)
        ks_window_open_sample (job->window);
      return;
    }
  problems = _ks_session_apply (session, job->window, job->flags, &a_set);
  if (job->sample_otherwise && !a_set
      && ks_pipeline_get_input (job->window->pipeline, KS_INPUT_A) == NULL)
    ks_window_open_sample (job->window);
  if (!job->startup)
    add_recent (job->file);
  if (problems != NULL)
    {
      g_autofree char *message = job->startup
        ? g_strdup_printf (_("The last session is back, except that %s"), problems)
        : g_strdup_printf (_("Opened the session %s, except that %s"), name, problems);
      _ks_session_toast (job->window, message);
    }
  else if (!job->startup)
    {
      g_autofree char *message = g_strdup_printf (_("Opened the session %s"), name);
      _ks_session_toast (job->window, message);
    }
}

void
_ks_session_open (KsWindow *window, GFile *file, gboolean startup, KsSessionApplyFlags flags,
                  gboolean sample_otherwise)
{
  OpenJob *job = g_new0 (OpenJob, 1);

  job->window = g_object_ref (window);
  job->file = g_object_ref (file);
  job->startup = startup;
  job->flags = flags;
  job->sample_otherwise = sample_otherwise;
  ks_session_load_async (file, NULL, on_session_loaded_cb, job);
}

typedef struct
{
  KsWindow *window;   /* owned */
  GFile *file;
} SaveData;

static void
on_session_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveData *data = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = file_display_name (data->file);
  g_autofree char *message = NULL;

  if (!ks_session_save_finish (result, &error))
    message = g_strdup_printf (_("Could not save the session %s: %s"), name, error->message);
  else
    {
      add_recent (data->file);
      message = g_strdup_printf (_("Saved the session %s"), name);
    }
  _ks_session_toast (data->window, message);
  g_object_unref (data->window);
  g_object_unref (data->file);
  g_free (data);
}

void
_ks_session_save (KsWindow *window, GFile *file)
{
  SaveData *data;

  data = g_new0 (SaveData, 1);
  data->window = g_object_ref (window);
  data->file = g_object_ref (file);
  ks_session_save_async (_ks_session_capture (window), file, NULL, on_session_saved_cb, data);
}

/* ---- the last session ----------------------------------------------------- */

GFile *
ks_session_get_last_file (void)
{
  g_autofree char *path = g_build_filename (g_get_user_state_dir (), "kernelscope",
                                            "last-session" KS_SESSION_EXTENSION, NULL);

  return g_file_new_for_path (path);
}

static void
on_last_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GApplication) application = user_data;
  g_autoptr (GError) error = NULL;

  /* The window is gone: there is no one to tell but the log. */
  if (!ks_session_save_finish (result, &error))
    g_warning ("The last session could not be written: %s", error->message);
  if (application != NULL)
    g_application_release (application);
}

void
_ks_window_session_dispose (KsWindow *self)
{
  g_autoptr (GFile) file = g_object_steal_data (G_OBJECT (self), LAST_FILE_KEY);
  GApplication *application = g_object_steal_data (G_OBJECT (self), APPLICATION_KEY);
  KsSession *session;

  g_signal_handlers_disconnect_by_data (gtk_recent_manager_get_default (), self);
  if (file == NULL || !_ks_session_window_alive (self))
    {
      g_clear_object (&application);
      return;
    }
  /* The application stays until the file is written (the hold is released
   * by the callback, which also drops this reference). */
  if (application != NULL)
    g_application_hold (application);
  session = _ks_session_capture (self);
  /* The CPU engine as a choice, not as the fallback of a machine without
   * CUDA: that one must not keep a GPU installed later off. */
  if (g_strcmp0 (session->device_id, "cpu") == 0 && !ks_cuda_available (NULL))
    g_clear_pointer (&session->device_id, g_free);
  _ks_session_save_async (session, file, TRUE, NULL, on_last_saved_cb, application);
}
