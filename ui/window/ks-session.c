/* ks-session.c: the functions of ks-session.h that take a window — they
 * check it and hand on to the file of their concern — and the start of an
 * application window, from a session or the last one.
 *
 * A KsWindow is checked only here and in ks-window.c, which defines its
 * type: the files below call each other with a window already checked
 * (ks-window-private.h says why). The rest of ks-session.h is in the file
 * of its concern: the record and reading in ks-session-parse.c, writing in
 * ks-session-write.c, the last session's file in ks-session-window.c. */
#include "config.h"

#include "ks-session-private.h"

KsSession *
ks_session_capture (KsWindow *window)
{
  g_return_val_if_fail (KS_IS_WINDOW (window), NULL);
  return _ks_session_capture (window);
}

char *
ks_session_apply (const KsSession *session, KsWindow *window, KsSessionApplyFlags flags)
{
  g_return_val_if_fail (session != NULL && KS_IS_WINDOW (window), NULL);
  g_return_val_if_fail (_ks_session_window_alive (window), NULL);
  return _ks_session_apply (session, window, flags, NULL);
}

void
ks_session_open (KsWindow *window, GFile *file, KsSessionApplyFlags flags)
{
  g_return_if_fail (KS_IS_WINDOW (window) && G_IS_FILE (file));
  _ks_session_open (window, file, FALSE, flags, FALSE);
}

void
ks_session_save (KsWindow *window, GFile *file)
{
  g_return_if_fail (KS_IS_WINDOW (window) && G_IS_FILE (file));
  _ks_session_save (window, file);
}

void
ks_session_export_bundle (KsWindow *window, GFile *folder)
{
  g_return_if_fail (KS_IS_WINDOW (window) && G_IS_FILE (folder));
  _ks_session_export_bundle (window, folder);
}

void
ks_session_start_window (KsWindow *window, GFile *session, gboolean with_images)
{
  GSettings *settings;
  GtkApplication *application;

  g_return_if_fail (KS_IS_WINDOW (window));
  settings = _ks_window_get_settings (window);
  application = gtk_window_get_application (GTK_WINDOW (window));
  g_object_set_data_full (G_OBJECT (window), LAST_FILE_KEY, ks_session_get_last_file (),
                          g_object_unref);
  if (application != NULL)
    g_object_set_data_full (G_OBJECT (window), APPLICATION_KEY, g_object_ref (application),
                            g_object_unref);
  if (session != NULL)
    _ks_session_open (window, session, FALSE,
                      with_images ? KS_SESSION_APPLY_SKIP_INPUTS : KS_SESSION_APPLY_ALL,
                      !with_images);
  else if (settings == NULL || !g_settings_get_boolean (settings, "restore-last"))
    {
      if (!with_images)
        ks_window_open_sample (window);
    }
  else
    {
      g_autoptr (GFile) last = ks_session_get_last_file ();

      _ks_session_open (window, last, TRUE,
                        with_images ? KS_SESSION_APPLY_SKIP_INPUTS : KS_SESSION_APPLY_ALL,
                        !with_images);
    }
}
