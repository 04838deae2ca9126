#include "config.h"

#include "ks-cli.h"

int
main (int argc, char **argv)
{
  return ks_cli_main (argc, argv);
}
