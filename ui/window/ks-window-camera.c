/* ks-window-camera.c: the window's camera — win.open-camera and
 * win.stop-camera, the primary menu's camera item, the camera's rates in the
 * header bar while it runs, and the camera stopping when another image
 * becomes the input or the window closes. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-camera.h"
#include "ks-window-private.h"

/* This file's state is its own, not a field of KsWindow's struct: it lives
 * in the window's object data under this key and goes on "destroy", so that
 * closing the window releases the camera at once rather than whenever the
 * last reference to the window goes. */
#define CAMERA_DATA "ks-window-camera"

typedef struct
{
  KsWindow *window;          /* borrowed: the data goes with the window */
  KsCamera *camera;          /* owned: the running or last camera, or NULL */
  GCancellable *probe;       /* owned: the device probe under way, or NULL */
  gboolean probed;           /* a probe has answered */
  char *found;               /* the camera the menu offers, or NULL for none */
  char *title;               /* the header bar's title before the camera's rates replaced it */
} WindowCamera;

static void
disconnect_camera (WindowCamera *wc)
{
  if (wc->camera == NULL)
    return;
  g_signal_handlers_disconnect_by_data (wc->camera, wc);
  ks_camera_stop (wc->camera);
  g_clear_object (&wc->camera);
}

static void
window_camera_free (gpointer data)
{
  WindowCamera *wc = data;

  disconnect_camera (wc);
  if (wc->probe != NULL)
    g_cancellable_cancel (wc->probe);
  g_clear_object (&wc->probe);
  g_free (wc->found);
  g_free (wc->title);
  g_free (wc);
}

static WindowCamera *
lookup (KsWindow *self)
{
  return g_object_get_data (G_OBJECT (self), CAMERA_DATA);
}

/* A menu label shows "_" as a mnemonic: a device name's own are doubled. */
static char *
escape_mnemonics (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "_", -1);

  return g_strjoinv ("__", parts);
}

static gboolean
camera_active (WindowCamera *wc)
{
  KsCameraState state = wc->camera != NULL ? ks_camera_get_state (wc->camera) : KS_CAMERA_STOPPED;

  return state == KS_CAMERA_STARTING || state == KS_CAMERA_RUNNING;
}

static void
update_menu (WindowCamera *wc)
{
  GMenu *section = wc->window->camera_section;
  g_autoptr (GMenuItem) item = NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (wc->window), "win.stop-camera", camera_active (wc));
  if (section == NULL)
    return;
  if (camera_active (wc))
    item = g_menu_item_new (_("Stop _Camera"), "win.stop-camera");
  else
    {
      g_autofree char *name = wc->found != NULL ? escape_mnemonics (wc->found) : NULL;
      g_autofree char *label = NULL;

      if (name != NULL)
        label = g_strdup_printf (_("Open _Camera (%s)"), name);
      else if (wc->probed)
        /* Still an action: a camera plugged in since then is found, and the
         * toast says what was looked for. */
        label = g_strdup (_("No Camera Found"));
      else
        label = g_strdup (_("Open _Camera"));
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-camera", g_variant_new_string (""));
    }
  g_menu_remove_all (section);
  g_menu_append_item (section, item);
}

/* While the camera runs the header bar's title gives its rates; the
 * subtitle (the input's name, size and op) stays the window's. */
static void
update_title (WindowCamera *wc)
{
  AdwWindowTitle *title = wc->window->window_title;
  g_autofree char *text = NULL;

  if (title == NULL)
    return;
  if (wc->camera == NULL || !ks_camera_get_running (wc->camera))
    {
      if (wc->title != NULL)
        adw_window_title_set_title (title, wc->title);
      g_clear_pointer (&wc->title, g_free);
      return;
    }
  if (wc->title == NULL)
    wc->title = g_strdup (adw_window_title_get_title (title));
  /* TRANSLATORS: the header bar's title while a camera is the input: the
   * frames the camera sends per second, those the op kept up with, and the
   * frames skipped so far because the op was still busy. */
  text = g_strdup_printf (_("Camera %.1f fps, %.1f shown, %llu dropped"),
                          ks_camera_get_camera_fps (wc->camera),
                          ks_camera_get_delivered_fps (wc->camera),
                          (unsigned long long) ks_camera_get_frames_dropped (wc->camera));
  adw_window_title_set_title (title, text);
}

static void
on_camera_state_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  WindowCamera *wc = user_data;

  update_menu (wc);
  /* The rates appear with their first measurement, half a second in. */
  if (!ks_camera_get_running (wc->camera))
    update_title (wc);
}

static void
on_camera_rates_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  update_title (user_data);
}

static void
on_camera_error_cb (KsCamera *camera, GError *error, gpointer user_data)
{
  WindowCamera *wc = user_data;

  _ks_window_toast (wc->window, error->message);
}

static void
on_probed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = ks_camera_probe_finish (result, &error);
  WindowCamera *wc = lookup (self);

  if (wc == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&wc->probe);
  if (names == NULL)
    g_debug ("camera probe: %s", error->message);
  wc->probed = TRUE;
  g_free (wc->found);
  wc->found = names != NULL && names[0] != NULL ? g_strdup (names[0]) : NULL;
  update_menu (wc);
}

static void
probe (WindowCamera *wc)
{
  if (wc->probe != NULL)
    return;
  wc->probe = g_cancellable_new ();
  ks_camera_probe_async (wc->probe, on_probed_cb, g_object_ref (wc->window));
}

/* The camera gives way to any other image the user opens: a file, a paste,
 * a sample or a session. Its own frames carry its name; the first one may
 * not be there yet, and until it is, what changes is not the camera's. */
static void
on_inputs_changed_cb (KsPipeline *pipeline, gpointer user_data)
{
  WindowCamera *wc = lookup (user_data);

  if (wc == NULL || wc->camera == NULL || !ks_camera_get_running (wc->camera)
      || ks_camera_get_frames_delivered (wc->camera) == 0)
    return;
  if (g_strcmp0 (ks_pipeline_get_input_name (pipeline, KS_INPUT_A),
                 ks_camera_get_name (wc->camera)) != 0)
    ks_camera_stop (wc->camera);
}

static void
on_destroy_cb (GtkWidget *widget, gpointer user_data)
{
  g_object_set_data (G_OBJECT (widget), CAMERA_DATA, NULL);
}

static WindowCamera *
ensure (KsWindow *self)
{
  WindowCamera *wc = lookup (self);

  if (wc != NULL)
    return wc;
  wc = g_new0 (WindowCamera, 1);
  wc->window = self;
  g_object_set_data_full (G_OBJECT (self), CAMERA_DATA, wc, window_camera_free);
  /* The window's dispose disconnects every handler it is the data of. */
  g_signal_connect (self->pipeline, "inputs-changed",
                    G_CALLBACK (on_inputs_changed_cb), self);
  g_signal_connect (self, "destroy", G_CALLBACK (on_destroy_cb), NULL);
  return wc;
}

static void
on_camera_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  WindowCamera *wc = lookup (self);

  if (ks_camera_start_finish (KS_CAMERA (source), result, &error) || wc == NULL
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (g_error_matches (error, KS_CAMERA_ERROR, KS_CAMERA_ERROR_NOT_FOUND))
    {
      wc->probed = TRUE;
      g_clear_pointer (&wc->found, g_free);
      update_menu (wc);
    }
  _ks_window_toast (self, error->message);
}

static void
start_camera (KsWindow *self, const char *source)
{
  WindowCamera *wc = ensure (self);

  disconnect_camera (wc);
  wc->camera = ks_camera_new (self->pipeline, source, 0, 0);
  g_signal_connect (wc->camera, "notify::state", G_CALLBACK (on_camera_state_cb), wc);
  g_signal_connect (wc->camera, "notify::camera-fps", G_CALLBACK (on_camera_rates_cb), wc);
  g_signal_connect (wc->camera, "notify::frames-dropped", G_CALLBACK (on_camera_rates_cb), wc);
  g_signal_connect (wc->camera, "error", G_CALLBACK (on_camera_error_cb), wc);
  ks_camera_start_async (wc->camera, NULL, on_camera_started_cb, g_object_ref (self));
}

static void
open_camera_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  const char *source = g_variant_get_string (parameter, NULL);

  start_camera (self, *source != '\0' ? source : NULL);
}

static void
stop_camera_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  WindowCamera *wc = lookup (self);

  if (wc != NULL && wc->camera != NULL)
    ks_camera_stop (wc->camera);
}

KsCamera *
_ks_window_get_camera (KsWindow *self)
{
  WindowCamera *wc;

  /* KS_IS_WINDOW would call up into ks-window.c (ks-window-private.h
   * says why it may not): the nearest type this file can check. */
  g_return_val_if_fail (ADW_IS_APPLICATION_WINDOW (self), NULL);
  wc = lookup (self);
  return wc != NULL ? wc->camera : NULL;
}

void
_ks_window_setup_camera (KsWindow *self)
{
  WindowCamera *wc = ensure (self);

  update_menu (wc);
  probe (wc);
}

const KsWindowActionEntry _ks_window_camera_actions[] = {
  { "win.open-camera", "s", open_camera_action },
  { "win.stop-camera", NULL, stop_camera_action },
  { NULL },
};

void
_ks_window_class_init_camera (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_child (widget_class, KsWindow, camera_section);
}
