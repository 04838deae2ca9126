#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "kernelscope.h"
#include "ks-application.h"
#include "ks-nvrtc.h"
#include "ks-session.h"
#include "ks-window.h"

#define KS_WEBSITE "https://github.com/kernelscope/kernelscope"
#define KS_ISSUE_URL "https://github.com/kernelscope/kernelscope/issues"

static void
append_version (GString *s, const char *what, int version)
{
  /* CUDA versions are 1000 × major + 10 × minor; 0: not there. */
  if (version > 0)
    g_string_append_printf (s, "%s: %d.%d\n", what, version / 1000, version % 1000 / 10);
  else
    g_string_append_printf (s, "%s: none\n", what);
}

/* The about window's Troubleshooting text: what a bug report needs. */
static char *
debug_info (GtkWindow *window)
{
  GString *s = g_string_new (NULL);
  g_autoptr (GError) why = NULL;
  g_autoptr (GError) nvrtc = NULL;
  g_autoptr (GPtrArray) devices = ks_devices_enumerate ();

  g_string_append_printf (s, "Kernelscope %s\n", PACKAGE_VERSION);
  g_string_append_printf (s, "GTK %u.%u.%u, libadwaita %u.%u.%u, GLib %u.%u.%u\n",
                          gtk_get_major_version (), gtk_get_minor_version (),
                          gtk_get_micro_version (), adw_get_major_version (),
                          adw_get_minor_version (), adw_get_micro_version (), glib_major_version,
                          glib_minor_version, glib_micro_version);
  append_version (s, "CUDA driver", ks_cuda_driver_version ());
  append_version (s, "CUDA runtime", ks_cuda_runtime_version ());
  if (ks_cuda_available (&why))
    g_string_append (s, "CUDA: available\n");
  else
    g_string_append_printf (s, "CUDA: unavailable: %s\n", why->message);
  if (ks_nvrtc_load (&nvrtc))
    append_version (s, "NVRTC", ks_nvrtc_version ());
  else
    g_string_append_printf (s, "NVRTC: unavailable: %s\n", nvrtc->message);
  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      KsDevice *device = g_ptr_array_index (devices, i);

      g_string_append_printf (s, "Device %s: %s\n", ks_device_get_id (device),
                              ks_device_get_name (device));
    }
  if (KS_IS_WINDOW (window))
    {
      g_autofree char *display = ks_window_get_debug_info (KS_WINDOW (window));

      g_string_append (s, display);
    }
  return g_string_free (s, FALSE);
}

struct _KsApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (KsApplication, ks_application, ADW_TYPE_APPLICATION)

static KsWindow *
new_window (KsApplication *self)
{
  KsWindow *window = ks_window_new (GTK_APPLICATION (self));
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
ks_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  /* The last session (restore-last), or the bundled sample. */
  if (window == NULL)
    {
      window = GTK_WINDOW (new_window (KS_APPLICATION (app)));
      ks_session_start_window (KS_WINDOW (window), NULL, FALSE);
    }
  gtk_window_present (window);
}

/* `kernelscope a.png [b.png]`: the first image is the input, the second the
 * second input of two-image ops; a session file (*.kscope.json) opens as a
 * session. A new window takes the rest of the last session, but not its
 * inputs: the files named here win. */
static void
ks_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));
  GFile *session = NULL;
  GFile *images[2] = { NULL, NULL };
  guint n_images = 0;

  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *name = g_file_get_basename (files[i]);

      if (name != NULL && g_str_has_suffix (name, KS_SESSION_EXTENSION))
        session = files[i];
      else if (n_images < G_N_ELEMENTS (images))
        images[n_images++] = files[i];
    }
  /* A session named here takes the last one's place. */
  if (window == NULL)
    {
      window = GTK_WINDOW (new_window (KS_APPLICATION (app)));
      ks_session_start_window (KS_WINDOW (window), session, n_images > 0);
    }
  else if (session != NULL)
    ks_session_open (KS_WINDOW (window), session,
                     n_images > 0 ? KS_SESSION_APPLY_SKIP_INPUTS : KS_SESSION_APPLY_ALL);
  for (guint i = 0; i < n_images; i++)
    ks_window_open_file (KS_WINDOW (window), images[i], i == 0 ? KS_INPUT_A : KS_INPUT_B);
  gtk_window_present (window);
}

static void
about_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *app = user_data;
  const char *developers[] = { _("The Kernelscope developers"), NULL };
  GtkWindow *window = gtk_application_get_active_window (app);
  g_autofree char *debug = debug_info (window);
  GtkWidget *about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                                   "transient-for", window,
                                   "application-name", "Kernelscope",
                                   "application-icon", "org.kernelscope.Kernelscope",
                                   "version", PACKAGE_VERSION,
                                   "comments", _("See what a GPU kernel does to an image while "
                                                 "it runs: pick an operation, choose the CUDA "
                                                 "grid and block, and watch the result, the "
                                                 "timings and the histograms live."),
                                   "license-type", GTK_LICENSE_GPL_3_0,
                                   "developers", developers,
                                   "developer-name", _("The Kernelscope developers"),
                                   "website", KS_WEBSITE,
                                   "issue-url", KS_ISSUE_URL,
                                   "debug-info", debug,
                                   "debug-info-filename", "kernelscope-debug-info.txt",
                                   NULL);
  gtk_window_present (GTK_WINDOW (about));
}

/* Each window closes as if its close button were pressed, so that it saves
 * its settings and its session; the application ends when the last one has
 * gone and the session file is written (the window holds the application
 * until then). g_application_quit would end it at once, with neither. */
static void
quit_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_destroy (l->data);
  g_list_free (windows);
}

static const GActionEntry app_actions[] = {
  { .name = "about", .activate = about_action },
  { .name = "quit", .activate = quit_action },
};

static void
ks_application_startup (GApplication *app)
{
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *help_accels[] = { "<Control>question", NULL };

  G_APPLICATION_CLASS (ks_application_parent_class)->startup (app);
  /* The kernel editor's languages and style schemes. */
  gtk_source_init ();
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions),
                                   app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.show-help-overlay",
                                         help_accels);
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    "/org/kernelscope/Kernelscope/icons");
}

/* --version answers in this process, before any window or D-Bus name. */
static int
ks_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("kernelscope %s\n", PACKAGE_VERSION);
      return 0;
    }
  return -1;
}

static void
ks_application_class_init (KsApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->handle_local_options = ks_application_handle_local_options;
  app_class->activate = ks_application_activate;
  app_class->open = ks_application_open;
  app_class->startup = ks_application_startup;
}

static void
ks_application_init (KsApplication *self)
{
  /* GOption translates the description in the application's text domain. */
  g_application_add_main_option (G_APPLICATION (self), "version", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_NONE, N_("Show the version"), NULL);
  g_application_set_option_context_parameter_string (G_APPLICATION (self),
                                                     _("[IMAGE [IMAGE2]]"));
  g_application_set_option_context_summary (
    G_APPLICATION (self),
    _("Shows what a GPU kernel does to an image while it runs: pick an operation or write a "
      "kernel, choose the CUDA grid and block, and watch the result, the timings and the "
      "histograms live. IMAGE is the input, IMAGE2 the second input of two-image operations; "
      "an image opened while Kernelscope runs opens in its window."));
}

KsApplication *
ks_application_new (void)
{
  return g_object_new (KS_TYPE_APPLICATION,
                       "application-id", "org.kernelscope.Kernelscope",
                       /* One instance: a file opened while Kernelscope runs opens in
                        * its window (without a session bus, each start is its own). */
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/org/kernelscope/Kernelscope",
                       NULL);
}
