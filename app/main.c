#include "config.h"

#include "ks-application.h"

int
main (int argc, char *argv[])
{
  g_autoptr (KsApplication) app = ks_application_new ();

  g_set_application_name ("Kernelscope");
  return g_application_run (G_APPLICATION (app), argc, argv);
}
