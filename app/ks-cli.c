#include "config.h"

#include "ks-cli.h"

#include <stdio.h>
#include <string.h>

#define PROGRAM "kernelscope-cli"

G_DEFINE_QUARK (ks-cli-error-quark, ks_cli_error)

typedef struct
{
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "devices", ks_cli_cmd_devices, "List the devices and their properties" },
  { "ops", ks_cli_cmd_ops, "List the operations with their parameters" },
  { "run", ks_cli_cmd_run, "Run an operation on image files" },
  { "compare", ks_cli_cmd_compare, "Compare two images" },
  { "bench", ks_cli_cmd_bench, "Benchmark the operations, and NPP where present" },
  { "bench-display", ks_cli_cmd_bench_display,
    "Benchmark showing a result: CUDA–OpenGL interop against download and upload" },
  { "kernel", ks_cli_cmd_kernel, "Compile and run your own kernel (a .cu file or an expression)" },
  { "bench-kernel", ks_cli_cmd_bench_kernel,
    "Benchmark your own kernels: compiling, an edit to its result, restarts, speed" },
};

static char *
one_line (const char *message)
{
  g_autofree char *copy = g_strdup (message != NULL ? message : "unknown error");
  char **lines = g_strsplit_set (g_strstrip (copy), "\r\n", -1);
  GString *s = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strstrip (lines[i]);

      if (*line == '\0')
        continue;
      if (s->len > 0)
        g_string_append (s, " ");
      g_string_append (s, line);
    }
  g_strfreev (lines);
  return g_string_free (s, FALSE);
}

int
ks_cli_report_error (const GError *error)
{
  g_autofree char *message = one_line (error != NULL ? error->message : NULL);
  gboolean usage = error != NULL
                   && (error->domain == KS_CLI_ERROR || error->domain == G_OPTION_ERROR);

  fflush (stdout);
  fprintf (stderr, PROGRAM ": %s\n", message);
  return usage ? KS_CLI_EXIT_USAGE : KS_CLI_EXIT_FAILED;
}

void
ks_cli_note (const char *format, ...)
{
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  line = one_line (text);
  fflush (stdout);
  fprintf (stderr, PROGRAM ": %s\n", line);
}

void
ks_cli_usage_error (GError **error, const char *format, ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, KS_CLI_ERROR, KS_CLI_ERROR_USAGE, message);
  g_free (message);
}

gboolean
ks_cli_parse_options (GOptionContext *context, int argc, char **argv, char ***args,
                      gboolean *help, GError **error)
{
  /* GOption's own --help calls exit(); ours returns to main like every path. */
  const GOptionEntry help_entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, help, "Show this help", NULL },
    G_OPTION_ENTRY_NULL
  };
  const char *command = argv[0];
  g_autoptr (GError) local = NULL;

  *help = FALSE;
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_add_main_entries (context, help_entries, NULL);

  *args = g_new0 (char *, argc + 1);
  (*args)[0] = g_strdup (g_get_prgname ());
  for (int i = 1; i < argc; i++)
    (*args)[i] = g_strdup (argv[i]);

  if (!g_option_context_parse_strv (context, args, &local))
    {
      g_set_error (error, KS_CLI_ERROR, KS_CLI_ERROR_USAGE, "%s: %s (see " PROGRAM " %s --help)",
                   command, local->message, command);
      return FALSE;
    }

  if (*help)
    {
      g_autofree char *text = g_option_context_get_help (context, TRUE, NULL);
      g_autofree char *needle = g_strdup_printf ("%s ", g_get_prgname ());
      const char *at = strstr (text, needle);

      /* "kernelscope-cli [OPTION…] OP" → "kernelscope-cli run [OPTION…] OP" */
      if (at != NULL)
        printf ("%.*s%s%s", (int) (at - text + strlen (needle)), text, command,
                at + strlen (needle) - 1);
      else
        fputs (text, stdout);
    }
  return TRUE;
}

KsEngine *
ks_cli_open_engine (const char *engine_name, int device, GError **error)
{
  g_autoptr (KsDevice) dev = NULL;
  g_autoptr (GError) why = NULL;
  gboolean want_cuda;

  if (engine_name == NULL)
    {
      want_cuda = ks_cuda_available (&why);
      if (!want_cuda)
        g_print ("Engine: CPU (CUDA is unavailable: %s)\n", why->message);
    }
  else if (g_ascii_strcasecmp (engine_name, "cuda") == 0)
    {
      want_cuda = TRUE;
      if (!ks_cuda_available (&why))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "the CUDA engine is unavailable: %s", why->message);
          return NULL;
        }
    }
  else if (g_ascii_strcasecmp (engine_name, "cpu") == 0)
    {
      want_cuda = FALSE;
    }
  else
    {
      ks_cli_usage_error (error, "unknown engine “%s”: use --engine cuda or --engine cpu",
                          engine_name);
      return NULL;
    }

  if (!want_cuda && device >= 0 && engine_name != NULL)
    {
      ks_cli_usage_error (error, "--device selects a CUDA device; the CPU engine has none");
      return NULL;
    }

  if (want_cuda)
    dev = ks_device_get_cuda (device >= 0 ? device : 0, error);
  else
    dev = ks_device_get_cpu ();
  if (dev == NULL)
    return NULL;
  return ks_engine_new (dev, error);
}

gboolean
ks_cli_parse_size (const char *text, guint *width, guint *height, GError **error)
{
  g_auto (GStrv) parts = NULL;
  guint64 w = 0, h = 0;

  if (text != NULL)
    parts = g_strsplit_set (text, "xX", -1);
  if (parts == NULL || g_strv_length (parts) != 2
      || !g_ascii_string_to_unsigned (parts[0], 10, 1, KS_IMAGE_MAX_SIDE, &w, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 1, KS_IMAGE_MAX_SIDE, &h, NULL))
    {
      ks_cli_usage_error (error, "“%s” is not a size: write WIDTHxHEIGHT, each 1 to %u, "
                          "for example 7680x4320", text != NULL ? text : "", KS_IMAGE_MAX_SIDE);
      return FALSE;
    }
  *width = (guint) w;
  *height = (guint) h;
  return TRUE;
}

char *
ks_cli_describe_launch (const KsLaunchConfig *config, guint default_ppt, gboolean resolved)
{
  char block[64], grid[64];
  guint ppt = config->pixels_per_thread != 0 ? config->pixels_per_thread : default_ppt;
  const char *mode = config->mode == KS_LAUNCH_GRID_STRIDE ? "grid-stride loop"
                                                           : "one pass per thread";

  ks_dim3_format (&config->block, block, sizeof block);
  if (config->auto_grid && !resolved)
    g_strlcpy (grid, "auto", sizeof grid);
  else
    ks_dim3_format (&config->grid, grid, sizeof grid);
  /* A resolved automatic grid shows its size and where it came from. */
  if (config->auto_grid && resolved)
    g_strlcat (grid, " (auto)", sizeof grid);

  if (ppt == 0)
    return g_strdup_printf ("block %s, grid %s, %s, 16 bytes of pixels per thread", block, grid,
                            mode);
  return g_strdup_printf ("block %s, grid %s, %s, %u pixel%s per thread", block, grid, mode, ppt,
                          ppt == 1 ? "" : "s");
}

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage:\n  " PROGRAM " COMMAND [OPTION…]\n\n"
                "Kernelscope without a window: what a CUDA kernel does to an image.\n\n"
                "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-13s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "  %-13s %s\n", "help", "Show this help, or a command's with help COMMAND");
  fprintf (out, "\nRun “" PROGRAM " COMMAND --help” for the options of a command.\n"
                "Exit status: 0 done, 1 failed, 2 bad usage.\n");
}

static const Command *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static int
unknown_command (const char *name)
{
  g_autoptr (GError) error = NULL;

  ks_cli_usage_error (&error, "unknown command “%s” (commands: devices, ops, run, compare, "
                      "bench, bench-display, kernel, bench-kernel; see " PROGRAM " --help)", name);
  return ks_cli_report_error (error);
}

int
ks_cli_main (int argc, char **argv)
{
  const Command *command;

  g_set_prgname (PROGRAM);
  /* Ctrl-C or a kill during a save leaves the old file and no temporary. */
  ks_file_remove_temporaries_on_signals ();

  if (argc < 2)
    {
      g_autoptr (GError) error = NULL;

      ks_cli_usage_error (&error, "no command given (see " PROGRAM " --help)");
      return ks_cli_report_error (error);
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || (strcmp (argv[1], "help") == 0 && argc == 2))
    {
      print_usage (stdout);
      return KS_CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf (PROGRAM " %s\n", PACKAGE_VERSION);
      return KS_CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "help") == 0)
    {
      char *help_argv[] = { argv[2], (char *) "--help", NULL };

      command = find_command (argv[2]);
      if (command == NULL)
        return unknown_command (argv[2]);
      return command->run (2, help_argv);
    }

  command = find_command (argv[1]);
  if (command == NULL)
    {
      if (argv[1][0] == '-')
        {
          g_autoptr (GError) error = NULL;

          ks_cli_usage_error (&error, "unknown option %s: options follow the command (see "
                              PROGRAM " --help)", argv[1]);
          return ks_cli_report_error (error);
        }
      return unknown_command (argv[1]);
    }
  return command->run (argc - 1, argv + 1);
}
