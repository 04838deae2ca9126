#include "config.h"

#include <gtksourceview/gtksource.h>

#include "ks-application.h"
#include "ks-window.h"

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

  if (window == NULL)
    {
      window = GTK_WINDOW (new_window (KS_APPLICATION (app)));
      ks_window_open_sample (KS_WINDOW (window));
    }
  gtk_window_present (window);
}

/* `kernelscope a.png [b.png]`: the first file is the input, the second the
 * second input of two-image ops. */
static void
ks_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (new_window (KS_APPLICATION (app)));
  if (n_files > 0)
    ks_window_open_file (KS_WINDOW (window), files[0], KS_INPUT_A);
  if (n_files > 1)
    ks_window_open_file (KS_WINDOW (window), files[1], KS_INPUT_B);
  gtk_window_present (window);
}

static void
about_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkApplication *app = user_data;
  static const char *developers[] = { "The Kernelscope developers", NULL };
  GtkWidget *about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                                   "transient-for", gtk_application_get_active_window (app),
                                   "application-name", "Kernelscope",
                                   "application-icon", "org.kernelscope.Kernelscope",
                                   "version", PACKAGE_VERSION,
                                   "comments", "See what a GPU kernel does to an image while it "
                                               "runs: pick an operation, choose the CUDA grid and "
                                               "block, and watch the result, the timings and the "
                                               "histograms live.",
                                   "license-type", GTK_LICENSE_GPL_3_0,
                                   "developers", developers,
                                   NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
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
  g_application_add_main_option (G_APPLICATION (self), "version", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_NONE, "Show the version", NULL);
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
