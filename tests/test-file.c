/* test-file.c: files are replaced whole or not at all — the old file
 * survives a failed, aborted or interrupted write, and no temporary is left
 * behind, also when a signal ends the process mid-write. */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "ks-file.h"
#include "ks-test-helpers.h"

static char *tmp_dir;

static char *
path_in (const char *dir, const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The names in dir, sorted, joined by spaces. */
static char *
list_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static char *
fresh_dir (const char *name)
{
  char *dir = path_in (tmp_dir, name);

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  return dir;
}

static void
assert_contents (const char *path, const char *expected)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_replace (void)
{
  g_autofree char *dir = fresh_dir ("replace");
  g_autofree char *target = path_in (dir, "out.txt");
  g_autofree char *names = NULL;
  g_autoptr (GError) error = NULL;
  struct stat st;

  g_assert_true (ks_file_replace_contents (target, "first", 5, &error));
  g_assert_no_error (error);
  assert_contents (target, "first");
  /* The replacement keeps the mode of the file it replaces. */
  g_assert_cmpint (g_chmod (target, 0640), ==, 0);
  g_assert_true (ks_file_replace_contents (target, "second", 6, &error));
  g_assert_no_error (error);
  assert_contents (target, "second");
  g_assert_cmpint (g_stat (target, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "out.txt");
}

static void
test_abort_keeps_old (void)
{
  g_autofree char *dir = fresh_dir ("abort");
  g_autofree char *target = path_in (dir, "out.txt");
  g_autofree char *names = NULL;
  g_autoptr (GError) error = NULL;
  KsAtomicFile *file;

  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  file = ks_atomic_file_open (target, &error);
  g_assert_no_error (error);
  g_assert_true (ks_atomic_file_write (file, "half of the new", 15, &error));
  ks_atomic_file_abort (file);
  assert_contents (target, "old");
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "out.txt");
}

static void
test_unwritable (void)
{
  g_autofree char *dir = fresh_dir ("unwritable");
  g_autofree char *missing = path_in (dir, "no-such-folder/out.txt");
  g_autofree char *names = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_false (ks_file_replace_contents (missing, "x", 1, &error));
  ks_test_assert_message_has (error, "no-such-folder", "does not exist", NULL);
  g_clear_error (&error);
  g_assert_false (ks_file_check_writable (dir, &error));
  ks_test_assert_message_has (error, "is a folder", NULL);
  g_clear_error (&error);
  g_assert_false (ks_file_check_writable ("", &error));
  g_assert_nonnull (error);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "");
}

/* A signal in the middle of a write: the process ends with the signal, the
 * old file is as it was, and the temporary is gone. */
static void
test_signal_removes_temporary (void)
{
  g_autofree char *dir = path_in (tmp_dir, "signal");
  g_autofree char *target = path_in (dir, "out.txt");

  if (g_test_subprocess ())
    {
      KsAtomicFile *file;

      ks_file_remove_temporaries_on_signals ();
      file = ks_atomic_file_open (target, NULL);
      g_assert_nonnull (file);
      g_assert_true (ks_atomic_file_write (file, "the new one, unfinished", 23, NULL));
      raise (SIGTERM);
      g_assert_not_reached ();
    }

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  assert_contents (target, "old");
  {
    g_autofree char *names = list_dir (dir);

    g_assert_cmpstr (names, ==, "out.txt");
  }
}

/* An image saved over another file replaces it whole, through a temporary
 * that is gone afterwards. */
static void
test_image_save_replaces (void)
{
  g_autofree char *dir = fresh_dir ("image");
  g_autofree char *target = path_in (dir, "picture.png");
  g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, 16, 16, 3);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (target, "not yet an image", -1, NULL));
  g_assert_true (ks_image_save (image, target, &error));
  g_assert_no_error (error);
  {
    g_autoptr (KsImage) back = ks_image_load (target, &error);

    g_assert_no_error (error);
    ks_test_assert_images_equal (image, back, "saved over an old file");
  }
  {
    g_autofree char *names = list_dir (dir);

    g_assert_cmpstr (names, ==, "picture.png");
  }
}

static void
remove_all (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        ks_test_remove_tree (p);
    }
  ks_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* A subprocess works in its parent's folder. */
  if (g_test_subprocess ())
    tmp_dir = g_strdup (g_getenv ("KS_TEST_FILE_DIR"));
  else
    {
      tmp_dir = g_dir_make_tmp ("ks-test-file-XXXXXX", NULL);
      g_setenv ("KS_TEST_FILE_DIR", tmp_dir, TRUE);
    }
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/file/replace", test_replace);
  g_test_add_func ("/ks/file/abort-keeps-old", test_abort_keeps_old);
  g_test_add_func ("/ks/file/unwritable", test_unwritable);
  g_test_add_func ("/ks/file/signal-removes-temporary", test_signal_removes_temporary);
  g_test_add_func ("/ks/file/image-save", test_image_save_replaces);

  ret = g_test_run ();
  if (!g_test_subprocess ())
    remove_all (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
