#include "config.h"

#include <gio/gio.h>

#include "ks-error.h"
#include "ks-program.h"

/* KS_WORKER_PATH, else beside the running executable (installed next to
 * it, or app/ of the build tree beside tests/), else ../libexec from it, else
 * the libexecdir it was configured for. */
char *
ks_worker_program_find (GError **error)
{
  const char *env = g_getenv ("KS_WORKER_PATH");
  g_autoptr (GPtrArray) tried = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  if (env != NULL && *env != '\0')
    {
      if (g_file_test (env, G_FILE_TEST_IS_EXECUTABLE))
        return g_strdup (env);
      g_ptr_array_add (tried, g_strdup_printf ("%s (KS_WORKER_PATH)", env));
    }
  else if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      char *candidates[] = {
        g_build_filename (dir, KS_WORKER_PROGRAM, NULL),
        g_build_filename (dir, "..", "app", KS_WORKER_PROGRAM, NULL),
        g_build_filename (dir, "..", "libexec", KS_WORKER_PROGRAM, NULL),
        g_build_filename (KS_LIBEXECDIR, KS_WORKER_PROGRAM, NULL),
      };

      for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
        g_ptr_array_add (tried, candidates[i]);
      for (guint i = 0; i < tried->len; i++)
        if (g_file_test (g_ptr_array_index (tried, i), G_FILE_TEST_IS_EXECUTABLE))
          return g_strdup (g_ptr_array_index (tried, i));
    }
  g_ptr_array_add (tried, NULL);
  {
    g_autofree char *list = g_strjoinv (", ", (char **) tried->pdata);

    g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                 "The kernel worker program %s was not found (tried %s); set KS_WORKER_PATH to "
                 "it or reinstall Kernelscope", KS_WORKER_PROGRAM,
                 *list != '\0' ? list : "no path: the executable's location is unknown");
  }
  return NULL;
}
