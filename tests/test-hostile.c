/* test-hostile.c: damaged, lying and odd files, opened by ks_image_load and by
 * kernelscope-cli as a user runs it. A refused file gives one clear message
 * naming it, and nothing is written; an accepted one opens at its size. No
 * case may crash, hang or make the decoder allocate what a lying header asks
 * for. The corpus is written at test time by make-hostile-corpus.py, whose
 * manifest says for each case what to expect and why. */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "ks-file.h"
#include "ks-test-helpers.h"

#if defined(__SANITIZE_ADDRESS__)
#define KS_HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KS_HOSTILE_ASAN 1
#endif
#endif
#ifndef KS_HOSTILE_ASAN
#define KS_HOSTILE_ASAN 0
#endif

/* A hang detector, not a speed assertion: every case takes well under a
 * second; one still running after this long is stuck (a FIFO read, a loop in
 * a decoder). Generous, as the ui tests' patience is: a vector image may use
 * its renderer's 10 s budget, and a loaded machine runs everything slowly. */
#define HANG_GUARD_S 60

/* The largest image in the corpus is 4096×4096 (64 MiB as RGBA): 1 GiB of
 * address space leaves room for the libraries, the decoder and the copies,
 * and turns the 1 GiB pixbuf a lying header asks for into a failure that
 * shows. AddressSanitizer reserves terabytes of shadow memory: no limit there. */
#define ADDRESS_SPACE_LIMIT (G_GUINT64_CONSTANT (1) << 30)

/* CLI-side problems found by this corpus, kept visible as TODO until fixed
 * (a listed case that passes fails, so the list shrinks with the fixes). */
static const char *const cli_known_issues[] = {
  NULL,
};

typedef struct
{
  char *name;
  char *path;   /* in the corpus folder; bytes, not necessarily UTF-8 */
  char *format;
  char *kind;
  gboolean accept;
  guint width;
  guint height;
  char **needles;
  char *note;
} Case;

static char *cli_path;
static char *root_dir;    /* this run's temporary folder */
static char *corpus_dir;
static GPtrArray *cases;

static void
case_free (gpointer data)
{
  Case *c = data;

  g_free (c->name);
  g_free (c->path);
  g_free (c->format);
  g_free (c->kind);
  g_strfreev (c->needles);
  g_free (c->note);
  g_free (c);
}

static gboolean
in_list (const char *const *list, const char *name)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (g_str_equal (list[i], name))
      return TRUE;
  return FALSE;
}

static void
limit_address_space (void)
{
#if !KS_HOSTILE_ASAN
  struct rlimit rl;

  /* Only the soft limit: a child that needs more (a renderer with a budget of
   * its own) may raise it. */
  if (getrlimit (RLIMIT_AS, &rl) == 0
      && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > ADDRESS_SPACE_LIMIT))
    {
      rl.rlim_cur = ADDRESS_SPACE_LIMIT;
      if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
        rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_AS, &rl);
    }
#endif
}

static void
cli_child_setup (gpointer user_data)
{
  /* Both survive exec: SIGALRM ends a stuck CLI, the limit bounds its memory. */
  alarm (HANG_GUARD_S);
  limit_address_space ();
}

/* ---- the corpus ---------------------------------------------------------- */

static gboolean
parse_size (const char *s, guint *w, guint *h)
{
  g_auto (GStrv) parts = g_strsplit (s, "x", 2);
  guint64 a, b;

  if (g_strv_length (parts) != 2
      || !g_ascii_string_to_unsigned (parts[0], 10, 1, KS_IMAGE_MAX_SIDE, &a, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 1, KS_IMAGE_MAX_SIDE, &b, NULL))
    return FALSE;
  *w = a;
  *h = b;
  return TRUE;
}

static GPtrArray *
read_manifest (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "manifest.tsv", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *list = g_ptr_array_new_with_free_func (case_free);

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = NULL;
      g_autofree char *file = NULL;
      Case *c;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      f = g_strsplit (lines[i], "\t", -1);
      if (g_strv_length (f) != 8)
        g_error ("manifest line %u has %u fields, not 8", i + 1, g_strv_length (f));
      c = g_new0 (Case, 1);
      c->name = g_strdup (f[0]);
      file = g_strcompress (f[1]);
      c->path = g_build_filename (dir, file, NULL);
      c->format = g_strdup (f[2]);
      c->kind = g_strdup (f[3]);
      c->accept = g_str_equal (f[4], "accept");
      if (c->accept ? !parse_size (f[5], &c->width, &c->height)
                    : !g_str_equal (f[4], "refuse"))
        g_error ("manifest line %u: bad outcome “%s” / size “%s”", i + 1, f[4], f[5]);
      c->needles = g_str_equal (f[6], "-") ? g_new0 (char *, 1) : g_strsplit (f[6], ",", -1);
      c->note = g_strdup (f[7]);
      g_ptr_array_add (list, c);
    }
  return list;
}

/* Generated at test time: the corpus is never committed as binary files. */
static gboolean
make_corpus (const char *dir)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "make-hostile-corpus.py",
                                                   NULL);
  const char *args[] = { script, dir, NULL };
  g_auto (KsTestProgramResult) r = { 0 };

  if (python == NULL)
    return FALSE;
  ks_test_run_program (&r, python, NULL, args);
  if (r.status != 0)
    g_error ("make-hostile-corpus.py failed (exit %d): %s", r.status, r.err);
  return TRUE;
}

static const char *
ok_image (guint w, guint h)
{
  static GHashTable *made;
  g_autofree char *name = g_strdup_printf ("ok-%ux%u.png", w, h);
  char *path;

  if (made == NULL)
    made = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  path = g_hash_table_lookup (made, name);
  if (path == NULL)
    {
      g_autoptr (KsImage) image = ks_test_random_image (KS_FORMAT_RGBA8, w, h, w * 7919 + h);
      g_autoptr (GError) error = NULL;

      path = g_build_filename (root_dir, name, NULL);
      g_assert_true (ks_image_save (image, path, &error));
      g_assert_no_error (error);
      g_hash_table_insert (made, g_steal_pointer (&name), path);
    }
  return path;
}

/* ---- what a refusal must look like ------------------------------------------ */

/* Problems with a refusal message, appended to problems; none when it names
 * the file, says what is wrong, and leaks nothing of how it was read. */
static void
check_message (const Case *c, const char *message, const char *where, GString *problems)
{
  /* As messages show names: control characters escaped (ks-file.h). */
  g_autofree char *display = ks_file_display_basename (c->path);

  if (message == NULL || *message == '\0')
    {
      g_string_append_printf (problems, "%s: empty message; ", where);
      return;
    }
  if (strstr (message, display) == NULL)
    g_string_append_printf (problems, "%s: “%s” does not name “%s”; ", where, message, display);
  if (strlen (message) < strlen (display) + 12)
    g_string_append_printf (problems, "%s: “%s” does not say what is wrong; ", where, message);
  /* A temporary name, or the corpus folder: the user named neither. */
  if (strstr (message, "kernelscope-") != NULL || strstr (message, root_dir) != NULL)
    g_string_append_printf (problems, "%s: “%s” shows a path the user did not give; ", where,
                            message);
  /* Nothing here legitimately needs more memory than the limit: a damaged
   * file blamed on memory was allocated for before it was checked. */
  if (strstr (message, "memory") != NULL)
    g_string_append_printf (problems, "%s: “%s” blames memory for a damaged file; ", where,
                            message);
  for (guint i = 0; c->needles[i] != NULL; i++)
    if (strstr (message, c->needles[i]) == NULL)
      g_string_append_printf (problems, "%s: “%s” does not contain “%s”; ", where, message,
                              c->needles[i]);
}

static gboolean
skip_as_root (const Case *c)
{
  if (g_str_equal (c->name, "fs-unreadable") && geteuid () == 0)
    {
      g_test_skip ("running as root: a mode-000 file is readable");
      return TRUE;
    }
  return FALSE;
}

/* Fails; or marks TODO a case on cli_known_issues, and fails one there that
 * no longer has problems. */
static void
report (const Case *c, GString *problems, gboolean listed)
{
  if (problems->len > 0 && listed)
    g_test_incomplete_printf ("%s (on cli_known_issues): %s", c->name, problems->str);
  else if (problems->len > 0)
    g_test_fail_printf ("%s, expected to %s (%s): %s", c->name, c->accept ? "open" : "be refused",
                        c->note, problems->str);
  else if (listed)
    g_test_fail_printf ("%s passes now: remove it from cli_known_issues", c->name);
}

/* ---- ks_image_load ----------------------------------------------------------- */

static void
load_case (const Case *c, GString *problems)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = ks_image_load (c->path, &error);

  if (c->accept)
    {
      if (image == NULL)
        g_string_append_printf (problems, "refused: %s; ", error->message);
      else if (image->width != c->width || image->height != c->height)
        g_string_append_printf (problems, "opened as %u×%u, not %u×%u; ", image->width,
                                image->height, c->width, c->height);
      return;
    }
  if (image != NULL)
    {
      g_string_append_printf (problems, "opened as %u×%u; ", image->width, image->height);
      return;
    }
  if (error == NULL)
    {
      g_string_append (problems, "refused without a GError; ");
      return;
    }
  if (error->domain != KS_ERROR)
    g_string_append_printf (problems, "error domain %s, not KS_ERROR; ",
                            g_quark_to_string (error->domain));
  check_message (c, error->message, "message", problems);
}

/* In a subprocess: a decoder crash, a hang or a GdkPixbuf critical (fatal
 * under G_DEBUG=fatal-warnings) fails this case, not the whole program. The
 * subprocess writes what it found to a file the parent reads. */
static void
test_load (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (GString) problems = g_string_new (NULL);
  g_autofree char *base = g_strdup_printf ("load-%s.txt", c->name);
  g_autofree char *found = g_build_filename (root_dir, base, NULL);
  g_autofree char *text = NULL;

  if (skip_as_root (c))
    return;
  if (g_test_subprocess ())
    {
      limit_address_space ();
      load_case (c, problems);
      g_assert_true (g_file_set_contents (found, problems->str, -1, NULL));
      return;
    }
  g_remove (found);
  g_test_trap_subprocess (NULL, (guint64) HANG_GUARD_S * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  if (g_test_trap_reached_timeout ())
    g_string_append_printf (problems, "still loading after %d s; ", HANG_GUARD_S);
  else if (!g_test_trap_has_passed ())
    g_string_append (problems, "the loading process crashed or printed a critical (its "
                     "stderr is in the log); ");
  else if (!g_file_get_contents (found, &text, NULL, NULL))
    g_string_append (problems, "the loading process wrote no findings; ");
  else
    g_string_append (problems, text);
  g_remove (found);
  report (c, problems, FALSE);
}

/* ---- kernelscope-cli ---------------------------------------------------------- */

typedef struct
{
  int status;   /* -1: killed by a signal */
  int signal;
  char *out;
  char *err;
} CliRun;

static void
cli_run_clear (CliRun *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliRun, cli_run_clear)

static void
run_cli (CliRun *r, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, cli_path);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  memset (r, 0, sizeof *r);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT,
                               cli_child_setup, NULL, &r->out, &r->err, &wait_status, &error));
  g_assert_no_error (error);
  if (WIFEXITED (wait_status))
    r->status = WEXITSTATUS (wait_status);
  else
    {
      r->status = -1;
      r->signal = WIFSIGNALED (wait_status) ? WTERMSIG (wait_status) : 0;
    }
  {
    /* TAP is UTF-8: the corpus's odd names are shown valid. */
    g_autofree char *line = g_strdup_printf ("%s %s %s: exit %d%s%s\nstdout: %s\nstderr: %s",
                                             args[0], args[1], args[2], r->status,
                                             r->signal != 0 ? ", signal " : "",
                                             r->signal != 0 ? g_strsignal (r->signal) : "",
                                             r->out, r->err);
    g_autofree char *valid = g_utf8_make_valid (line, -1);

    g_test_message ("%s", valid);
  }
}

static const char OUT_BYTES[] = "an earlier result, to be kept when the input is refused\n";

/* A folder holding only OUT.png with known bytes; returns OUT.png's path. */
static char *
fresh_output (const char *dir)
{
  g_autoptr (GError) error = NULL;
  char *out = g_build_filename (dir, "OUT.png", NULL);

  ks_test_remove_tree (dir);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (out, OUT_BYTES, -1, &error));
  g_assert_no_error (error);
  return out;
}

static void
check_only_output (const char *dir, const char *what, GString *problems)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (!g_str_equal (name, "OUT.png"))
      {
        g_autofree char *shown = g_filename_display_name (name);
        g_string_append_printf (problems, "%s: left “%s” beside OUT.png; ", what, shown);
      }
}

static void
check_run (const Case *c, const CliRun *r, const char *what, GString *problems)
{
  const char *nl;

  if (r->status == -1)
    {
      g_string_append_printf (problems, "%s: killed by %s%s; ", what, g_strsignal (r->signal),
                              r->signal == SIGALRM ? " (the hang guard)" : "");
      return;
    }
  if (c->accept)
    {
      if (r->status != 0)
        g_string_append_printf (problems, "%s: exit %d: %s; ", what, r->status, r->err);
      return;
    }
  if (r->status != 1)
    g_string_append_printf (problems, "%s: exit %d, not 1; ", what, r->status);
  if (*r->out != '\0')
    g_string_append_printf (problems, "%s: printed to stdout: “%s”; ", what, r->out);
  nl = strchr (r->err, '\n');
  if (!g_str_has_prefix (r->err, "kernelscope-cli: ") || nl == NULL || nl[1] != '\0')
    g_string_append_printf (problems, "%s: stderr is not one “kernelscope-cli: …” line: “%s”; ",
                            what, r->err);
  else
    {
      g_autofree char *message = g_strndup (r->err + strlen ("kernelscope-cli: "),
                                            nl - r->err - strlen ("kernelscope-cli: "));
      check_message (c, message, what, problems);
    }
}

static void
check_output (const Case *c, const char *out, const char *what, GString *problems)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;

  if (!g_file_get_contents (out, &bytes, &len, NULL))
    {
      g_string_append_printf (problems, "%s: OUT.png is gone; ", what);
      return;
    }
  if (!c->accept)
    {
      if (len != strlen (OUT_BYTES) || memcmp (bytes, OUT_BYTES, len) != 0)
        g_string_append_printf (problems, "%s: OUT.png was changed; ", what);
    }
  else
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsImage) image = ks_image_load (out, &error);

      if (image == NULL)
        g_string_append_printf (problems, "%s: OUT.png does not open: %s; ", what,
                                error->message);
      else if (image->width != c->width || image->height != c->height)
        g_string_append_printf (problems, "%s: OUT.png is %u×%u; ", what, image->width,
                                image->height);
    }
}

/* The CPU engine throughout: decoding does not depend on the engine, and
 * CUDA's address-space reservations do not fit under the memory limit. */
static void
test_cli (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (GString) problems = g_string_new (NULL);
  g_autofree char *dir = g_build_filename (root_dir, "out", NULL);
  const char *ok = c->accept ? ok_image (c->width, c->height) : ok_image (16, 12);

  if (skip_as_root (c))
    return;
  {
    g_autofree char *out = fresh_output (dir);
    const char *args[] = { "run", "invert", "--engine", "cpu", "--in", c->path, "--out", out,
                           NULL };
    g_auto (CliRun) r = { 0 };

    run_cli (&r, args);
    check_run (c, &r, "run invert", problems);
    check_output (c, out, "run invert", problems);
    check_only_output (dir, "run invert", problems);
  }
  {
    g_autofree char *out = fresh_output (dir);
    const char *args[] = { "run", "add", "--engine", "cpu", "--in", c->path, "--in", ok, "--out",
                           out, NULL };
    g_auto (CliRun) r = { 0 };

    run_cli (&r, args);
    check_run (c, &r, "run add", problems);
    check_output (c, out, "run add", problems);
    check_only_output (dir, "run add", problems);
  }
  {
    const char *args[] = { "compare", c->path, ok, NULL };
    g_auto (CliRun) r = { 0 };
    g_autofree char *size = g_strdup_printf ("size: %u×%u\n", c->width, c->height);

    run_cli (&r, args);
    check_run (c, &r, "compare", problems);
    if (c->accept && r.status == 0 && strstr (r.out, size) == NULL)
      g_string_append_printf (problems, "compare: stdout “%s” lacks “%s”; ", r.out, size);
  }
  ks_test_remove_tree (dir);
  report (c, problems, in_list (cli_known_issues, c->name));
}

/* The corpus covers what it promises: every format, both outcomes. */
static void
test_corpus (void)
{
  static const char *const formats[] = { "png", "jpeg", "bmp", "gif", "tiff", "pnm", "svg",
                                         "ico", "tga", "xpm", "fs" };

  g_assert_cmpuint (cases->len, >=, 70);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      guint n = 0;

      for (guint i = 0; i < cases->len; i++)
        n += g_str_equal (((Case *) cases->pdata[i])->format, formats[f]);
      if (n == 0)
        g_error ("no %s case in the corpus", formats[f]);
    }
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* Next to this program: build/tests/../app/kernelscope-cli. */
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  if (!g_file_test (cli_path, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("1..0 # SKIP %s was not built\n", cli_path);
      return 77;
    }
  if (g_test_subprocess ())
    root_dir = g_strdup (g_getenv ("KS_TEST_HOSTILE_DIR"));
  else
    {
      root_dir = g_dir_make_tmp ("ks-test-hostile-XXXXXX", NULL);
      g_assert_nonnull (root_dir);
      g_setenv ("KS_TEST_HOSTILE_DIR", root_dir, TRUE);
    }
  g_assert_nonnull (root_dir);
  corpus_dir = g_build_filename (root_dir, "corpus", NULL);
  if (!g_test_subprocess () && !make_corpus (corpus_dir))
    {
      g_print ("1..0 # SKIP python3 is not installed\n");
      ks_test_remove_tree (root_dir);
      return 77;
    }
  cases = read_manifest (corpus_dir);

  g_test_add_func ("/ks/hostile/corpus", test_corpus);
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = cases->pdata[i];
      g_autofree char *load = g_strdup_printf ("/ks/hostile/%s/%s/load", c->format, c->name);
      g_autofree char *cli = g_strdup_printf ("/ks/hostile/%s/%s/cli", c->format, c->name);

      g_test_add_data_func (load, c, test_load);
      g_test_add_data_func (cli, c, test_cli);
    }

  ret = g_test_run ();
  if (!g_test_subprocess ())
    ks_test_remove_tree (root_dir);
  g_ptr_array_unref (cases);
  g_free (corpus_dir);
  g_free (root_dir);
  g_free (cli_path);
  return ret;
}
