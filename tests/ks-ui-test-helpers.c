/* ks-ui-test-helpers.c: what the ui test programs share (see the header). */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "ks-ui-test-helpers.h"

/* ---- the display ------------------------------------------------------------------ */

static gboolean have_display;

gboolean
ks_ui_test_init_display (KsUiTestDisplay what)
{
  have_display = gtk_init_check ();
  if (!have_display)
    return FALSE;
  if (what & KS_UI_TEST_ADWAITA)
    adw_init ();
  if (what & KS_UI_TEST_APP_STYLE)
    {
      g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();

      gtk_css_provider_load_from_resource (css, "/org/kernelscope/Kernelscope/style.css");
      gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                  GTK_STYLE_PROVIDER (css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    }
  return TRUE;
}

gboolean
ks_ui_test_require_display (KsUiTestDisplay what)
{
  if (ks_ui_test_init_display (what))
    return TRUE;
  /* Before g_test_run: a plan of nothing, which meson's TAP reader counts
   * as skipped. */
  g_print ("1..0 # SKIP no display (run the ui suite under xvfb-run)\n");
  return FALSE;
}

gboolean
ks_ui_test_skip_without_display (void)
{
  /* GLib then exits 77, or reports the skip in TAP under meson. */
  if (!have_display)
    g_test_skip ("No display: run under xvfb-run");
  return !have_display;
}

gboolean
ks_ui_test_have_display (void)
{
  return have_display;
}

char *
ks_ui_test_use_build_schemas (void)
{
  char *dir = g_test_build_filename (G_TEST_BUILT, "..", "resources", NULL);

  g_setenv ("GSETTINGS_SCHEMA_DIR", dir, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  return dir;
}

gboolean
ks_ui_test_have_build_schemas (const char *dir)
{
  if (g_file_test (dir, G_FILE_TEST_IS_DIR))
    return TRUE;
  g_print ("1..0 # SKIP the compiled schema is not in %s\n", dir);
  return FALSE;
}

/* ---- the main loop ---------------------------------------------------------------- */

/* Enough for everything one change sets off (layout, drawing, a few idle
 * callbacks), few enough that a check comes round within a millisecond or
 * two however busy the loop is. */
#define DISPATCH_BATCH 50

void
ks_ui_test_iterate (void)
{
  for (int i = 0; i < 3; i++)
    {
      g_usleep (1000);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
}

void
ks_ui_test_iterate_some (void)
{
  for (guint i = 0; i < DISPATCH_BATCH && g_main_context_iteration (NULL, FALSE); i++)
    ;
  /* The other threads (the pipeline's worker, GStreamer's streaming
   * threads, the X server) get the processor between batches. */
  g_usleep (1000);
}

void
ks_ui_test_iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    ks_ui_test_iterate_some ();
}

gint64
ks_ui_test_deadline (guint seconds)
{
  return g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
}

gboolean
ks_ui_test_wait_step (gint64 deadline_us)
{
  if (g_get_monotonic_time () >= deadline_us)
    return FALSE;
  ks_ui_test_iterate_some ();
  return TRUE;
}

gboolean
ks_ui_test_wait_until (KsUiTestCondition cond, gpointer data, guint seconds)
{
  KS_UI_TEST_WAIT_FOR (cond (data), seconds);
  return cond (data);
}

/* ---- pipelines -------------------------------------------------------------------- */

void
ks_ui_test_on_done_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

GAsyncResult *
ks_ui_test_wait_for_result (GAsyncResult **result)
{
  KS_UI_TEST_WAIT_FOR (*result != NULL, KS_UI_TEST_PATIENCE_S);
  g_assert_nonnull (*result);
  return *result;
}

void
ks_ui_test_settle (KsPipeline *pipeline)
{
  KS_UI_TEST_WAIT_FOR (ks_pipeline_is_idle (pipeline), KS_UI_TEST_PATIENCE_S);
  g_assert_true (ks_pipeline_is_idle (pipeline));
  ks_ui_test_iterate ();
}

void
ks_ui_test_use_cpu (KsPipeline *pipeline)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  ks_pipeline_set_device_async (pipeline, cpu, NULL, ks_ui_test_on_done_cb, &result);
  g_assert_true (ks_pipeline_set_device_finish (pipeline, ks_ui_test_wait_for_result (&result),
                                                &error));
  g_assert_no_error (error);
}

void
ks_ui_test_set_input (KsPipeline *pipeline, KsInputSlot slot, KsImage *image, const char *name)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  ks_pipeline_set_input_async (pipeline, slot, image, name, NULL, ks_ui_test_on_done_cb,
                               &result);
  g_assert_true (ks_pipeline_set_input_finish (pipeline, ks_ui_test_wait_for_result (&result),
                                               &error));
  g_assert_no_error (error);
}

/* ---- the main window -------------------------------------------------------------- */

GSettings *
ks_ui_test_fresh_settings (const char *const *keys)
{
  GSettings *settings = g_settings_new ("org.kernelscope.Kernelscope");

  for (guint i = 0; keys[i] != NULL; i++)
    g_settings_reset (settings, keys[i]);
  g_settings_set_string (settings, "default-engine", "cpu");
  return settings;
}

KsWindow *
ks_ui_test_open_window (void)
{
  KsWindow *window = ks_window_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  ks_ui_test_iterate_for (100);
  return window;
}

void
ks_ui_test_close_window (gpointer window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  ks_ui_test_iterate_for (50);
}

/* ---- widgets ---------------------------------------------------------------------- */

void
ks_ui_test_find_widgets (GtkWidget *root, GType type, GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    ks_ui_test_find_widgets (child, type, found);
}

guint
ks_ui_test_count_widgets (GtkWidget *root, GType type)
{
  g_autoptr (GPtrArray) found = g_ptr_array_new ();

  ks_ui_test_find_widgets (root, type, found);
  return found->len;
}

static gboolean
match_type (GtkWidget *widget, gconstpointer data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, GPOINTER_TO_SIZE (data));
}

GtkWidget *
ks_ui_test_find_widget (GtkWidget *root, GType type)
{
  return ks_ui_test_find_widget_matching (root, match_type, GSIZE_TO_POINTER (type));
}

GtkWidget *
ks_ui_test_find_widget_matching (GtkWidget *root, KsUiTestWidgetMatch match, gconstpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = ks_ui_test_find_widget_matching (child, match, data);

      if (found != NULL)
        return found;
    }
  return NULL;
}

void
ks_ui_test_present (GtkWindow *window, GtkWidget *laid_out)
{
  gtk_window_present (window);
  KS_UI_TEST_WAIT_FOR (gtk_widget_get_mapped (GTK_WIDGET (window))
                       && gtk_widget_get_width (laid_out) > 0, KS_UI_TEST_PATIENCE_S);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window)));
  ks_ui_test_iterate ();
}

static gboolean
match_shown_label (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_is_drawable (widget)
         && strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

gboolean
ks_ui_test_label_shows (GtkWidget *root, const char *text)
{
  return ks_ui_test_find_widget_matching (root, match_shown_label, text) != NULL;
}

GtkEventController *
ks_ui_test_find_controller (GtkWidget *widget, GType type)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      /* The widget keeps its own reference: the one returned is borrowed. */
      g_autoptr (GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type))
        return controller;
    }
  return NULL;
}

gpointer
ks_ui_test_template_child (gpointer widget, GType type, const char *name)
{
  GObject *object = gtk_widget_get_template_child (GTK_WIDGET (widget), type, name);

  g_assert_nonnull (object);
  return object;
}

/* ---- pixels and screenshots ------------------------------------------------------- */

GdkTexture *
ks_ui_test_render (GtkWidget *widget)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr (GskRenderNode) node = NULL;
  GskRenderer *renderer;
  GdkTexture *texture;
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);
  int w = 0, h = 0;

  /* Rendered by the window's own renderer rather than one of the test's:
   * the pixels are those the screen gets (the rounding that the pixel
   * assertions allow for is that renderer's), and the image view's GL
   * texture belongs to that renderer's context. */
  while (node == NULL && g_get_monotonic_time () < deadline)
    {
      g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();

      ks_ui_test_iterate ();
      w = gtk_widget_get_width (widget);
      h = gtk_widget_get_height (widget);
      gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
      node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
    }
  g_assert_nonnull (node);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  g_assert_nonnull (renderer);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_assert_nonnull (texture);
  return texture;
}

guint8 *
ks_ui_test_texture_pixels (GdkTexture *texture, int *width, int *height)
{
  guint8 *pixels;

  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
  pixels = g_malloc ((gsize) *width * *height * 4);
  gdk_texture_download (texture, pixels, (gsize) *width * 4);
  return pixels;
}

guint8 *
ks_ui_test_render_pixels (GtkWidget *widget, int *width, int *height)
{
  g_autoptr (GdkTexture) texture = ks_ui_test_render (widget);

  return ks_ui_test_texture_pixels (texture, width, height);
}

gboolean
ks_ui_test_write_png (GdkTexture *texture, const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_mkdir_with_parents (dir, 0755);
  if (!gdk_texture_save_to_png (texture, path))
    return FALSE;
  g_test_message ("screenshot: %s", path);
  return TRUE;
}

char *
ks_ui_test_screenshot_dir (void)
{
  const char *dir = g_getenv ("KS_SCREENSHOT_DIR");

  if (dir != NULL)
    return g_strdup (dir);
  return g_test_build_filename (G_TEST_BUILT, "screenshots", NULL);
}

void
ks_ui_test_save_screenshot_in (GtkWidget *widget, const char *dir, const char *name)
{
  g_autoptr (GdkTexture) texture = ks_ui_test_render (widget);

  g_assert_true (ks_ui_test_write_png (texture, dir, name));
}

void
ks_ui_test_save_screenshot (GtkWidget *widget, const char *name)
{
  g_autofree char *dir = ks_ui_test_screenshot_dir ();

  ks_ui_test_save_screenshot_in (widget, dir, name);
}

void
ks_ui_test_wait_window_idle (KsWindow *window)
{
  KsPipeline *pipeline = ks_window_get_pipeline (window);
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);

  /* Twice idle in a row: an upload's completion queues the run after it. */
  for (int calm = 0; calm < 3 && g_get_monotonic_time () < deadline;)
    {
      ks_ui_test_iterate_for (10);
      calm = ks_pipeline_is_idle (pipeline) ? calm + 1 : 0;
    }
  g_assert_true (ks_pipeline_is_idle (pipeline));
}

/* Waits for a toast that contains `text`. */
const char *
ks_ui_test_wait_message (KsWindow *window, const char *text)
{
  const gint64 deadline = ks_ui_test_deadline (KS_UI_TEST_PATIENCE_S);

  do
    {
      const char *message = ks_window_get_last_message (window);

      if (message != NULL && strstr (message, text) != NULL)
        return message;
    }
  while (ks_ui_test_wait_step (deadline));
  g_test_message ("last message: %s", ks_window_get_last_message (window));
  g_assert_not_reached ();
  return NULL;
}

void
ks_ui_test_wait_input_name (KsWindow *window, const char *name)
{
  KsPipeline *pipeline = ks_window_get_pipeline (window);

  KS_UI_TEST_WAIT_FOR (g_strcmp0 (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), name) == 0,
                       KS_UI_TEST_PATIENCE_S);
  g_assert_cmpstr (ks_pipeline_get_input_name (pipeline, KS_INPUT_A), ==, name);
}
