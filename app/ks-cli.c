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
  { "bench-cpu", ks_cli_cmd_bench_cpu,
    "Benchmark the CPU engine running kernels: images, lessons, growth with threads" },
  { "sweep", ks_cli_cmd_sweep,
    "Measure an op under a set of block shapes: time, GB/s, occupancy, the fastest" },
  { "lesson", ks_cli_cmd_lesson, "Run the tutorial's examples as lessons, as in the book or fixed" },
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

static gboolean json_mode;

void
ks_cli_set_json (gboolean json)
{
  json_mode = json;
}

void
ks_cli_print (const char *format, ...)
{
  va_list args;

  if (json_mode)
    return;
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
}

gboolean
ks_cli_emit_json (JsonNode *root, gboolean json, const char *output, GError **error)
{
  if (output != NULL && !ks_json_write (root, output, error))
    return FALSE;
  if (json)
    {
      g_autofree char *data = ks_json_to_data (root);

      fputs (data, stdout);
      fflush (stdout);
    }
  return TRUE;
}

void
ks_cli_json_add_launch (JsonBuilder *b, const char *name, const KsLaunchConfig *config,
                        guint default_ppt, gboolean resolved)
{
  KsLaunchConfig shown = *config;

  /* 0: 16 bytes of pixels per thread, whatever the format. */
  if (shown.pixels_per_thread == 0)
    shown.pixels_per_thread = default_ppt;
  ks_json_add_launch (b, name, &shown,
                      resolved ? KS_JSON_LAUNCH_NONE : KS_JSON_LAUNCH_AUTO_GRID_AS_WORD);
}

void
ks_cli_json_add_param (JsonBuilder *b, const KsParamSpec *spec, double value)
{
  switch (spec->type)
    {
    case KS_PARAM_INT:
      json_builder_add_int_value (b, (gint64) value);
      break;
    case KS_PARAM_BOOL:
      json_builder_add_boolean_value (b, value != 0);
      break;
    case KS_PARAM_CHOICE:
      ks_json_add_string (b, spec->choices != NULL ? spec->choices[(int) value] : NULL);
      break;
    case KS_PARAM_DOUBLE:
    default:
      ks_json_add_number (b, value);
      break;
    }
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

static gboolean
takes_value (const GOptionEntry *entry)
{
  return entry->arg != G_OPTION_ARG_NONE
         && !(entry->arg == G_OPTION_ARG_CALLBACK && (entry->flags & G_OPTION_FLAG_NO_ARG));
}

static const GOptionEntry *
find_entry (const GOptionEntry *entries, const char *long_name, gsize len, char short_name)
{
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    if (long_name != NULL ? strlen (e->long_name) == len
                            && strncmp (e->long_name, long_name, len) == 0
                          : e->short_name == short_name)
      return e;
  return NULL;
}

/* The words as GOption reads them, with a short option glued to its value
 * (-irandom:8x8, as getopt allows) split into the option and the value; GOption
 * would read the value as a cluster of flags and report one never typed. */
static char **
split_glued_values (const GOptionEntry *entries, int argc, char **argv, gboolean *separator)
{
  GPtrArray *words = g_ptr_array_new ();
  gboolean value_next = FALSE, literal = FALSE;

  g_ptr_array_add (words, g_strdup (g_get_prgname ()));
  for (int i = 1; i < argc; i++)
    {
      const char *word = argv[i];

      if (value_next || literal || word[0] != '-' || word[1] == '\0')
        {
          value_next = FALSE;
          g_ptr_array_add (words, g_strdup (word));
          continue;
        }
      if (word[1] == '-')
        {
          const char *eq = strchr (word + 2, '=');
          const GOptionEntry *e = find_entry (entries, word + 2,
                                              eq != NULL ? (gsize) (eq - word - 2)
                                                         : strlen (word + 2), 0);

          literal = *separator = word[2] == '\0';
          value_next = e != NULL && eq == NULL && takes_value (e);
          g_ptr_array_add (words, g_strdup (word));
          continue;
        }
      for (gsize j = 1; word[j] != '\0'; j++)
        {
          const GOptionEntry *e = find_entry (entries, NULL, 0, word[j]);

          if (e == NULL || !takes_value (e))
            continue;
          if (word[j + 1] == '\0')
            value_next = TRUE;
          else
            {
              g_ptr_array_add (words, g_strndup (word, j + 1));
              word = NULL;
              g_ptr_array_add (words, g_strdup (argv[i] + j + 1));
            }
          break;
        }
      if (word != NULL)
        g_ptr_array_add (words, g_strdup (word));
    }
  g_ptr_array_add (words, NULL);
  return (char **) g_ptr_array_free (words, FALSE);
}

static gboolean
check_utf8 (const GOptionEntry *entry, GError **error)
{
  char **values = NULL;
  char *one[2] = { NULL, NULL };

  if (entry->arg == G_OPTION_ARG_STRING)
    {
      one[0] = *(char **) entry->arg_data;
      values = one;
    }
  else
    values = *(char ***) entry->arg_data;
  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    if (!g_utf8_validate (values[i], -1, NULL))
      {
        g_autofree char *shown = g_utf8_make_valid (values[i], -1);

        ks_cli_usage_error (error, "--%s “%s” is not UTF-8 text", entry->long_name, shown);
        return FALSE;
      }
  return TRUE;
}

gboolean
ks_cli_parse_options (GOptionContext *context, const GOptionEntry *entries, int argc,
                      char **argv, char ***args, gboolean *help, GError **error)
{
  const char *command = argv[0];
  g_autoptr (GError) local = NULL;
  gboolean separator = FALSE;
  g_autoptr (GArray) all = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  /* GOption's own --help calls exit(); ours returns to main like every path. */
  gboolean version = FALSE;
  const GOptionEntry help_entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, help, "Show this help", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Show the version", NULL },
  };

  *help = FALSE;
  /* Text values are taken as the bytes typed and checked as UTF-8 below:
   * GOption would convert them from the locale's character set, which under
   * LANG=C refuses every non-ASCII byte with a message naming no option. */
  for (const GOptionEntry *in = entries; in != NULL && in->long_name != NULL; in++)
    {
      GOptionEntry copy = *in;

      if (copy.arg == G_OPTION_ARG_STRING)
        copy.arg = G_OPTION_ARG_FILENAME;
      else if (copy.arg == G_OPTION_ARG_STRING_ARRAY)
        copy.arg = G_OPTION_ARG_FILENAME_ARRAY;
      g_array_append_val (all, copy);
    }
  g_array_append_vals (all, help_entries, G_N_ELEMENTS (help_entries));
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_add_main_entries (context, (GOptionEntry *) (void *) all->data, NULL);

  *args = split_glued_values ((const GOptionEntry *) (void *) all->data, argc, argv,
                             &separator);
  if (!g_option_context_parse_strv (context, args, &local))
    {
      g_set_error (error, KS_CLI_ERROR, KS_CLI_ERROR_USAGE, "%s: %s (see " PROGRAM " %s --help)",
                   command, local->message, command);
      return FALSE;
    }
  /* "--" ends the options; GOption leaves it among the words when more follow. */
  for (guint i = 1; separator && (*args)[i] != NULL; i++)
    if (g_str_equal ((*args)[i], "--"))
      {
        g_free ((*args)[i]);
        memmove (*args + i, *args + i + 1, (g_strv_length (*args + i + 1) + 1) * sizeof (char *));
        break;
      }
  for (guint i = 0; entries != NULL && entries[i].long_name != NULL; i++)
    if ((entries[i].arg == G_OPTION_ARG_STRING || entries[i].arg == G_OPTION_ARG_STRING_ARRAY)
        && !check_utf8 (&entries[i], &local))
      {
        g_set_error (error, KS_CLI_ERROR, KS_CLI_ERROR_USAGE, "%s: %s", command, local->message);
        return FALSE;
      }

  if (version && !*help)
    {
      printf (PROGRAM " %s\n", PACKAGE_VERSION);
      *help = TRUE;
    }
  else if (*help)
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
        ks_cli_note ("CUDA is unavailable, so the CPU engine runs: %s", why->message);
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
                      "bench, bench-display, kernel, bench-kernel, bench-cpu, sweep, lesson; see " PROGRAM
                      " --help)", name);
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

      /* help --help and help help: the tool's own help. */
      if (g_str_equal (argv[2], "help") || g_str_equal (argv[2], "--help")
          || g_str_equal (argv[2], "-h"))
        {
          print_usage (stdout);
          return KS_CLI_EXIT_OK;
        }
      if (argc > 3)
        {
          g_autoptr (GError) error = NULL;

          ks_cli_usage_error (&error, "help takes one command, got %d (see " PROGRAM " --help)",
                              argc - 2);
          return ks_cli_report_error (error);
        }
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
