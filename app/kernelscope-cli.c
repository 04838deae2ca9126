#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "ks-cli.h"

int
main (int argc, char **argv)
{
  int status = ks_cli_main (argc, argv);

  /* Output that never reached its destination (a full disk, /dev/full) is a
   * failure too, whatever the command thought of its work. */
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      int saved = errno;

      fprintf (stderr, "kernelscope-cli: could not write the output: %s\n",
               saved != 0 ? g_strerror (saved) : "write error");
      if (status == KS_CLI_EXIT_OK)
        status = KS_CLI_EXIT_FAILED;
    }
  return status;
}
