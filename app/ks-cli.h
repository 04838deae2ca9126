/* ks-cli.h: what the commands of kernelscope-cli share. */
#pragma once

#include <gio/gio.h>

#include "kernelscope.h"

G_BEGIN_DECLS

typedef enum
{
  KS_CLI_EXIT_OK = 0,
  KS_CLI_EXIT_FAILED = 1, /* the work failed: a file, the device, the engine */
  KS_CLI_EXIT_USAGE = 2,  /* the command line is wrong */
} KsCliExit;

#define KS_CLI_ERROR (ks_cli_error_quark ())

typedef enum
{
  KS_CLI_ERROR_USAGE, /* exits with KS_CLI_EXIT_USAGE */
} KsCliError;

GQuark    ks_cli_error_quark         (void);

/* The whole tool: argv as main() gets it; returns the exit code. */
int       ks_cli_main                (int argc, char **argv);

/* Prints "kernelscope-cli: MESSAGE" as one line on stderr and returns the
 * exit code the error deserves: 2 for usage errors, 1 for the rest. */
int       ks_cli_report_error        (const GError *error);
/* One line on stderr, prefixed, for notes that are not failures. */
void      ks_cli_note                (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* Wraps an error about a command-line value as a usage error. */
void      ks_cli_usage_error         (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Parses a command's options; argv[0] is the command's name. Sets *help when
 * --help was given (its text is then printed on stdout). *args gets the
 * remaining words (a new strv: free it), args[0] being the program name. */
gboolean  ks_cli_parse_options       (GOptionContext *context, int argc, char **argv,
                                      char ***args, gboolean *help, GError **error);

/* --engine cuda|cpu and --device N; NULL engine name means CUDA when
 * available, otherwise the CPU engine with a note on stderr. */
KsEngine *ks_cli_open_engine         (const char *engine_name, int device, GError **error);

/* "7680x4320" */
gboolean  ks_cli_parse_size          (const char *text, guint *width, guint *height,
                                      GError **error);

/* "block 32×8, grid 60×540 (auto), one pass per thread, 4 pixels per thread";
 * unresolved configurations say "grid auto". */
char     *ks_cli_describe_launch     (const KsLaunchConfig *config, guint default_ppt,
                                      gboolean resolved);

int       ks_cli_cmd_devices         (int argc, char **argv);
int       ks_cli_cmd_ops             (int argc, char **argv);
int       ks_cli_cmd_run             (int argc, char **argv);
int       ks_cli_cmd_compare         (int argc, char **argv);
int       ks_cli_cmd_bench           (int argc, char **argv);
int       ks_cli_cmd_bench_display   (int argc, char **argv);

/* JSON for the devices listing: strings escaped, NaN as null. */
void      ks_cli_json_string         (GString *s, const char *value);
void      ks_cli_json_variant        (GString *s, GVariant *value);

G_END_DECLS
