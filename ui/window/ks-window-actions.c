/* The window's actions, keyboard shortcuts, drag and drop and clipboard:
 * opening, pasting and saving images, zoom, run, the panes' toggles, the
 * sessions' dialogs, the recent files, the preferences and the sweep
 * window. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-preferences-window.h"
#include "ks-session-private.h"
#include "ks-sweep-window.h"
#include "ks-window-private.h"

/* Entries of the "Recent" submenu: the newest images and sessions. */
#define RECENT_MAX 8

static void
add_image_filters (GtkFileChooser *chooser)
{
  g_autoptr (GtkFileFilter) images = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();

  gtk_file_filter_set_name (images, _("Images"));
  gtk_file_filter_add_pixbuf_formats (images);
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (chooser, images);
  gtk_file_chooser_add_filter (chooser, all);
}

static void
on_open_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  KsWindow *self = user_data;
  KsInputSlot slot = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (dialog), "slot"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      if (file != NULL)
        _ks_window_open_file (self, file, slot);
    }
  g_object_unref (dialog);
}

static void
open_dialog (KsWindow *self, KsInputSlot slot)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    slot == KS_INPUT_A ? _("Open Image") : _("Open Second Image"), GTK_WINDOW (self),
    GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));

  add_image_filters (GTK_FILE_CHOOSER (dialog));
  g_object_set_data (G_OBJECT (dialog), "slot", GUINT_TO_POINTER (slot));
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
open_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  open_dialog (self, KS_INPUT_A);
}

static void
open_second_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  open_dialog (self, KS_INPUT_B);
}

static void
open_test_card_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  KsImage *a = ks_pipeline_get_input (self->pipeline, KS_INPUT_A);
  g_autoptr (KsImage) card = ks_image_new_test_card (a != NULL ? a->width : 1024,
                                                     a != NULL ? a->height : 768, NULL);

  if (card == NULL)
    _ks_window_toast (self, _("Not enough memory for the test card"));
  else
    _ks_window_open_image (self, card, _("Test card"), KS_INPUT_A);
}

static void
preferences_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  GSettings *settings = _ks_window_get_settings (self);

  if (settings == NULL)
    {
      _ks_window_toast (self, _("Preferences need Kernelscope’s settings schema, which is not "
                                "installed here (GSETTINGS_SCHEMA_DIR)"));
      return;
    }
  gtk_window_present (GTK_WINDOW (ks_preferences_window_new (GTK_WINDOW (self), settings)));
}

static void
open_sample_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  ks_window_open_named_sample (self, g_variant_get_string (parameter, NULL));
}

static void
image_unref (gpointer image)
{
  ks_image_unref (image);
}

/* On the pipeline's worker: a pasted screenshot can be tens of megapixels,
 * and encoding and decoding it takes longer than a frame. A GdkTexture is
 * immutable, and the clipboard's are in memory, so reading it here is safe. */
static void
decode_thread (GTask *task, gpointer source_object, gpointer task_data,
               GCancellable *cancellable)
{
  g_autoptr (GBytes) png = gdk_texture_save_to_png_bytes (task_data);
  GError *error = NULL;
  KsImage *image = ks_image_load_bytes (png, &error);

  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, image_unref);
}

static void
on_decoded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  KsInputSlot slot = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (self), "paste-slot"));
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = g_task_propagate_pointer (G_TASK (result), &error);

  if (image == NULL)
    _ks_window_toast (self, error->message);
  else
    _ks_window_open_image (self, image, _("Pasted image"), slot);
}

static void
on_texture_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = gdk_clipboard_read_texture_finish (GDK_CLIPBOARD (source),
                                                                      result, &error);
  g_autoptr (GTask) task = NULL;

  if (texture == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The clipboard holds no image (%s)"),
                                                  error->message);
      _ks_window_toast (self, message);
      return;
    }
  task = g_task_new (NULL, NULL, on_decoded_cb, g_object_ref (self));
  g_task_set_task_data (task, g_steal_pointer (&texture), g_object_unref);
  ks_runner_queue (ks_pipeline_get_runner (self->pipeline), task, decode_thread);
}

static void
paste_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (self));
  KsInputSlot slot = g_str_equal (action_name, "win.paste-second") ? KS_INPUT_B : KS_INPUT_A;

  g_object_set_data (G_OBJECT (self), "paste-slot", GUINT_TO_POINTER (slot));
  gdk_clipboard_read_texture_async (clipboard, NULL, on_texture_read_cb, g_object_ref (self));
}

typedef struct
{
  KsWindow *window;  /* owned */
  char *name;        /* the file's, for the message */
} Saving;

static void
on_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Saving *saving = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_save_output_finish (KS_PIPELINE (source), result, &error))
    _ks_window_toast (saving->window, error->message);
  else
    {
      g_autofree char *message = g_strdup_printf (_("Saved %s"), saving->name);
      _ks_window_toast (saving->window, message);
    }
  g_object_unref (saving->window);
  g_free (saving->name);
  g_free (saving);
}

void
_ks_window_save_result (KsWindow *self, GFile *file)
{
  Saving *saving;

  saving = g_new0 (Saving, 1);
  saving->window = g_object_ref (self);
  saving->name = g_file_get_basename (file);
  ks_pipeline_save_output_async (self->pipeline, file, NULL, on_saved_cb, saving);
}

static void
on_save_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  KsWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file == NULL)
        _ks_window_toast (self, _("Choose a local file to save to"));
      else
        _ks_window_save_result (self, file);
    }
  g_object_unref (dialog);
}

static void
save_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  const KsRunResult *result = ks_pipeline_get_result (self->pipeline);
  GtkFileChooserNative *dialog;

  if (result == NULL || result->output == NULL)
    {
      _ks_window_toast (self, _("There is no output image to save: this operation produces a "
                                "histogram"));
      return;
    }
  dialog = gtk_file_chooser_native_new (_("Save Result"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  /* TRANSLATORS: the file name the result is saved under unless the user types another. */
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), _("result.png"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
zoom_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  KsImageView *view = self->view;

  if (g_str_equal (action_name, "win.zoom-fit"))
    ks_image_view_zoom_fit (view);
  else if (g_str_equal (action_name, "win.zoom-1to1"))
    ks_image_view_zoom_1to1 (view);
  else if (g_str_equal (action_name, "win.zoom-in"))
    ks_image_view_zoom_in (view);
  else
    ks_image_view_zoom_out (view);
}

static void
run_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  /* Failures reach the user through the pipeline's signals. */
  ks_pipeline_queue_run (self->pipeline);
}

static void
toggle_panel_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  gboolean left = _ks_window_get_left_visible (self), right = _ks_window_get_right_visible (self);

  if (g_str_equal (action_name, "win.toggle-left"))
    left = !left;
  else
    right = !right;
  _ks_window_set_panels_visible (self, left, right);
}

static void
edit_kernel_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  _ks_window_set_kernel_visible (self, !_ks_window_get_kernel_visible (self));
}

static void
add_session_filters (GtkFileChooser *chooser)
{
  g_autoptr (GtkFileFilter) sessions = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) json = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();

  gtk_file_filter_set_name (sessions, _("Kernelscope sessions"));
  gtk_file_filter_add_pattern (sessions, "*" KS_SESSION_EXTENSION);
  gtk_file_filter_set_name (json, _("JSON files"));
  gtk_file_filter_add_pattern (json, "*.json");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (chooser, sessions);
  gtk_file_chooser_add_filter (chooser, json);
  gtk_file_chooser_add_filter (chooser, all);
}

static void
on_open_session_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  KsWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        _ks_session_open (self, file, FALSE, KS_SESSION_APPLY_ALL, FALSE);
    }
  g_object_unref (dialog);
}

static void
open_session_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    _("Open Session"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"),
    _("_Cancel"));

  add_session_filters (GTK_FILE_CHOOSER (dialog));
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_session_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_save_session_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  KsWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (file != NULL)
        _ks_session_save (self, file);
    }
  g_object_unref (dialog);
}

static void
save_session_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    _("Save Session"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"),
    _("_Cancel"));

  add_session_filters (GTK_FILE_CHOOSER (dialog));
  /* TRANSLATORS: the file name a session is saved under unless the user types
   * another; keep the .kscope.json ending. */
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), _("session.kscope.json"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_session_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_export_response_cb (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  KsWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (folder != NULL)
        _ks_session_export_bundle (self, folder);
    }
  g_object_unref (dialog);
}

static void
export_bundle_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
    _("Export Bundle Into Folder"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
    _("_Export"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* A session by its group, its type or its name: the recent manager re-reads
 * its file when another process writes it, and an entry can come back
 * without the group for a moment. */
static gboolean
info_is_session (GtkRecentInfo *info)
{
  return gtk_recent_info_has_group (info, KS_SESSION_RECENT_GROUP)
         || g_strcmp0 (gtk_recent_info_get_mime_type (info), KS_SESSION_MIME_TYPE) == 0
         || g_str_has_suffix (gtk_recent_info_get_uri (info), ".kscope.json");
}

static gboolean
recent_is_session (const char *uri)
{
  g_autoptr (GtkRecentInfo) info = gtk_recent_manager_lookup_item (gtk_recent_manager_get_default (),
                                                                   uri, NULL);

  if (info != NULL)
    return info_is_session (info);
  return g_str_has_suffix (uri, ".json");
}

static void
on_recent_checked_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  GFile *file = G_FILE (source);
  g_autoptr (GError) error = NULL;
  g_autoptr (GFileInfo) info = g_file_query_info_finish (file, result, &error);
  g_autofree char *uri = g_file_get_uri (file);

  if (self->pipeline == NULL)
    return;
  if (info == NULL)
    {
      g_autofree char *name = g_file_get_parse_name (file);
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          /* Gone for good: it leaves the menu too. */
          gtk_recent_manager_remove_item (gtk_recent_manager_get_default (), uri, NULL);
          message = g_strdup_printf (_("%s is not there any more, so it was taken off the recent "
                                       "files"), name);
        }
      else
        message = g_strdup_printf (_("Could not open %s: %s"), name, error->message);
      _ks_window_toast (self, message);
      return;
    }
  if (recent_is_session (uri))
    _ks_session_open (self, file, FALSE, KS_SESSION_APPLY_ALL, FALSE);
  else
    _ks_window_open_file (self, file, KS_INPUT_A);
}

static void
open_recent_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  /* Asked first, off the main thread: a file that has gone gets a message
   * of its own, and a folder on a slow mount does not block the window. */
  g_file_query_info_async (file, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_DEFAULT, NULL, on_recent_checked_cb, g_object_ref (self));
}

static void
recent_info_unref (gpointer info)
{
  gtk_recent_info_unref (info);
}

static int
compare_newest_first (gconstpointer a, gconstpointer b)
{
  GtkRecentInfo *ia = *(GtkRecentInfo *const *) a;
  GtkRecentInfo *ib = *(GtkRecentInfo *const *) b;

  return g_date_time_compare (gtk_recent_info_get_modified (ib),
                              gtk_recent_info_get_modified (ia));
}

/* A menu label shows "_" as a mnemonic: a file name's own are doubled. */
static char *
escape_underscores (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "_", -1);

  return g_strjoinv ("__", parts);
}

static void
update_recent_menu (KsWindow *self)
{
  GMenu *menu = _ks_window_get_recent_menu (self);
  const char *application = g_get_application_name ();
  g_autoptr (GPtrArray) mine = g_ptr_array_new_with_free_func (recent_info_unref);
  GList *items;

  if (menu == NULL)
    return;
  /* Only what Kernelscope itself opened or saved: other programs' files
   * are not its to offer. */
  items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  for (GList *l = items; l != NULL; l = l->next)
    {
      if (application != NULL && gtk_recent_info_has_application (l->data, application))
        g_ptr_array_add (mine, l->data);
      else
        gtk_recent_info_unref (l->data);
    }
  g_list_free (items);
  g_ptr_array_sort (mine, compare_newest_first);

  g_menu_remove_all (menu);
  for (guint i = 0; i < mine->len && i < RECENT_MAX; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (mine, i);
      g_autofree char *name = escape_underscores (gtk_recent_info_get_display_name (info));
      g_autofree char *label = info_is_session (info)
                               ? g_strdup_printf (_("%s (session)"), name)
                               : g_strdup (name);
      g_autoptr (GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (gtk_recent_info_get_uri (info)));
      g_menu_append_item (menu, item);
    }
  if (mine->len == 0)
    {
      /* An item without an action is shown greyed out. */
      g_autoptr (GMenuItem) item = g_menu_item_new (_("No recent files"), NULL);

      g_menu_append_item (menu, item);
    }
}

static void
on_recent_changed_cb (GtkRecentManager *manager, gpointer user_data)
{
  update_recent_menu (user_data);
}

void
_ks_window_setup_recent (KsWindow *self)
{
  g_signal_connect (gtk_recent_manager_get_default (), "changed",
                    G_CALLBACK (on_recent_changed_cb), self);
  update_recent_menu (self);
}

static gboolean
on_drop_cb (GtkDropTarget *target, const GValue *value, double x, double y, gpointer user_data)
{
  KsWindow *self = user_data;
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = g_value_get_boxed (value);
  if (files == NULL)
    return FALSE;
  /* Two files at once: the second becomes the second input. */
  _ks_window_open_file (self, files->data, KS_INPUT_A);
  if (files->next != NULL)
    _ks_window_open_file (self, files->next->data, KS_INPUT_B);
  return TRUE;
}

void
_ks_window_setup_dnd (KsWindow *self)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (target, "drop", G_CALLBACK (on_drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}

/* One sweep window a main window: a second activation brings it forward. */
static void
sweep_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  if (self->sweep_window == NULL)
    {
      self->sweep_window = ks_sweep_window_new (GTK_WINDOW (self), self->pipeline);
      g_object_add_weak_pointer (G_OBJECT (self->sweep_window), (gpointer *) &self->sweep_window);
    }
  gtk_window_present (GTK_WINDOW (self->sweep_window));
}

const KsWindowActionEntry _ks_window_actions[] = {
  { "win.open", NULL, open_action },
  { "win.open-second", NULL, open_second_action },
  { "win.open-test-card", NULL, open_test_card_action },
  { "win.open-sample", "s", open_sample_action },
  { "win.preferences", NULL, preferences_action },
  { "win.paste", NULL, paste_action },
  { "win.paste-second", NULL, paste_action },
  { "win.save", NULL, save_action },
  { "win.zoom-fit", NULL, zoom_action },
  { "win.zoom-1to1", NULL, zoom_action },
  { "win.zoom-in", NULL, zoom_action },
  { "win.zoom-out", NULL, zoom_action },
  { "win.run", NULL, run_action },
  { "win.toggle-left", NULL, toggle_panel_action },
  { "win.toggle-right", NULL, toggle_panel_action },
  { "win.edit-kernel", NULL, edit_kernel_action },
  { "win.open-session", NULL, open_session_action },
  { "win.save-session", NULL, save_session_action },
  { "win.export-bundle", NULL, export_bundle_action },
  { "win.open-recent", "s", open_recent_action },
  { "win.sweep", NULL, sweep_action },
  { NULL },
};

void
_ks_window_class_init_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_comma, GDK_CONTROL_MASK,
                                       "win.preferences", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.open-second", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_v, GDK_CONTROL_MASK, "win.paste",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_v, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.paste-second", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "win.zoom-fit",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_CONTROL_MASK, "win.zoom-1to1",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK,
                                       "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK,
                                       "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK,
                                       "win.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.run", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.run", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, 0, "win.toggle-left", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "win.edit-kernel", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, GDK_CONTROL_MASK,
                                       "win.toggle-right", NULL);
  /* Ctrl+Shift+O opens the second image and Ctrl+E the kernel editor: the
   * sessions take Alt and Shift of their own. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                       "win.open-session", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.save-session", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.export-bundle", NULL);
}
