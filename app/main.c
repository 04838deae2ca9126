#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "ks-application.h"

int
main (int argc, char *argv[])
{
  g_autoptr (KsApplication) app = NULL;
  /* Run from the build tree, the catalogues are in build/po (./run.sh sets it). */
  const char *localedir = g_getenv ("KS_LOCALEDIR");

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL && *localedir != '\0' ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = ks_application_new ();
  g_set_application_name ("Kernelscope");
  return g_application_run (G_APPLICATION (app), argc, argv);
}
