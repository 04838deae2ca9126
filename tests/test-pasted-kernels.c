/* test-pasted-kernels.c: kernels as teaching material and PyCUDA's examples
 * write them (tests/data/pasted), with their standard headers, several
 * kernels a file, __constant__ memory, vector, complex and struct types,
 * compile unchanged through `kernelscope-cli kernel --check`: each line of
 * the folder's MANIFEST is a file and the options a user would give. A line
 * with " => " after them runs the kernel on the CPU engine with those
 * options, and what follows is a line its output must hold (the results, or
 * device printf). No GPU is needed; without NVRTC the test skips. */
#include "config.h"

#include <string.h>

#include "ks-test-helpers.h"

static char *cli_path;
static char *data_dir;

static void
test_compiles (gconstpointer data)
{
  const char *line = data;
  const char *arrow = strstr (line, " => ");
  g_autofree char *command = arrow != NULL ? g_strndup (line, arrow - line) : g_strdup (line);
  g_auto (GStrv) words = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    {
      g_test_skip ("NVRTC is not available");
      return;
    }
  g_assert_true (g_shell_parse_argv (command, NULL, &words, NULL));
  g_ptr_array_add (argv, g_strdup ("kernel"));
  if (arrow != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--engine"));
      g_ptr_array_add (argv, g_strdup ("cpu"));
    }
  else
    g_ptr_array_add (argv, g_strdup ("--check"));
  g_ptr_array_add (argv, g_strdup ("--arch"));
  g_ptr_array_add (argv, g_strdup ("90"));
  g_ptr_array_add (argv, g_build_filename (data_dir, words[0], NULL));
  for (guint i = 1; words[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (words[i]));
  g_ptr_array_add (argv, NULL);
  ks_test_run_program (&r, cli_path, NULL, (const char *const *) argv->pdata);
  if (r.status != 0)
    {
      g_test_message ("%s does not compile (status %d):\n%s%s", line, r.status, r.out, r.err);
      g_test_fail ();
      return;
    }
  if (arrow != NULL)
    {
      if (strstr (r.out, arrow + 4) == NULL)
        {
          g_test_message ("%s: the output does not hold “%s”:\n%s", command, arrow + 4, r.out);
          g_test_fail ();
        }
      g_assert_nonnull (strstr (r.out, "ERROR SUMMARY: 0 errors"));
      return;
    }
  g_assert_nonnull (strstr (r.out, "compiled for sm_90"));
  /* nothing to warn about either: these are clean kernels */
  g_assert_null (strstr (r.err, "error"));
}

int
main (int argc, char **argv)
{
  g_autofree char *manifest_path = NULL;
  g_autofree char *manifest = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;

  g_test_init (&argc, &argv, NULL);
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  if (!g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("1..0 # SKIP %s was not built\n", cli_path);
      return 77;
    }
  data_dir = g_test_build_filename (G_TEST_DIST, "data", "pasted", NULL);
  manifest_path = g_build_filename (data_dir, "MANIFEST", NULL);
  g_assert_true (g_file_get_contents (manifest_path, &manifest, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (manifest, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strstrip (lines[i]);
      g_autofree char *path = NULL;
      g_autofree char *name = NULL;

      if (line[0] == '\0' || line[0] == '#')
        continue;
      name = g_strdelimit (g_strdup (line), " /<>", '-');
      path = g_strconcat ("/ks/pasted/", name, NULL);
      g_test_add_data_func (path, line, test_compiles);
    }
  return g_test_run ();
}
