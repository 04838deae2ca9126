/* test-cli-lesson.c: `kernelscope-cli lesson` as a user runs it: the list,
 * a run with its JSON report on stdout, the book switch, and wrong names. */
#include "config.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "ks-test-helpers.h"

static char *cli_path;

static void
run_cli (KsTestProgramResult *r, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) "lesson");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  ks_test_run_program (r, cli_path, NULL, (const char *const *) argv->pdata);
}

#define RUN(r, ...) run_cli ((r), (const char *const[]) { __VA_ARGS__, NULL })

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_list (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) j = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonArray *list;

  RUN (&r, "list");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "11-06"));
  g_assert_nonnull (strstr (r.out, "million-additions"));
  g_assert_nonnull (strstr (r.out, "12-06"));
  g_assert_nonnull (strstr (r.out, "11-02  device-properties"));
  g_assert_nonnull (strstr (r.out, "12-04  webcam-gray"));

  RUN (&j, "list", "--json");
  g_assert_cmpint (j.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, j.out, -1, &error));
  g_assert_no_error (error);
  list = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (list), ==, 18);
  /* 12-04 says what the window runs on the live camera; 11-02 runs no kernel. */
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *l = json_array_get_object_element (list, i);
      const char *id = json_object_get_string_member (l, "id");

      g_assert_true (json_object_get_boolean_member (l, "host_only") == g_str_equal (id, "11-02"));
      g_assert_true (json_object_has_member (l, "live") == g_str_equal (id, "12-04"));
      if (g_str_equal (id, "12-04"))
        g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (l, "live"),
                                                        "op"), ==, "gray");
    }
}

static void
test_run_json (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o, *check;
  JsonArray *outputs;
  gboolean found = FALSE;

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, "run", "11-11", "--json", "--engine", "cpu", "--repeat", "3");
  g_assert_cmpint (r.status, ==, 0);
  /* stdout holds only the document. */
  o = parse_object (parser, r.out);
  g_assert_cmpstr (json_object_get_string_member (o, "lesson"), ==, "11-11");
  g_assert_cmpstr (json_object_get_string_member (o, "engine"), ==, "cpu");
  check = json_object_get_object_member (o, "check");
  g_assert_true (json_object_get_boolean_member (check, "passed"));
  /* The check names its output and gives the reference: [0..4]·[0..4] = 30. */
  g_assert_cmpstr (json_object_get_string_member (check, "output"), ==, "out");
  g_assert_cmpfloat (json_array_get_double_element (
                       json_object_get_array_member (
                         json_object_get_object_member (check, "expected_values"), "values"),
                       0), ==, 30);
  g_assert_true (json_object_get_null_member (o, "sanitizer"));
  outputs = json_object_get_array_member (o, "outputs");
  for (guint i = 0; i < json_array_get_length (outputs); i++)
    {
      JsonObject *a = json_array_get_object_element (outputs, i);

      if (g_str_equal (json_object_get_string_member (a, "name"), "out"))
        {
          g_assert_cmpfloat (json_array_get_double_element (
                               json_object_get_array_member (a, "values"), 0), ==, 30);
          found = TRUE;
        }
    }
  g_assert_true (found);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "steps")), ==, 4);
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (json_object_get_object_member (o, "timings"),
                                                    "kernel"), "runs"), ==, 3);
}

static void
test_run_text_and_book (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) b = { 0 };
  g_auto (KsTestProgramResult) none = { 0 };
  const char *sanitizer;

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&r, "run", "histogram", "--engine", "cpu", "--repeat", "1");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "check (against"));
  g_assert_nonnull (strstr (r.out, "correct"));
  g_assert_nonnull (strstr (r.out, "kernel"));
  g_assert_nonnull (strstr (r.out, "book's way"));

  /* The book's variant: a wrong result is the lesson, not a failure. */
  RUN (&b, "run", "12-01", "--book", "--engine", "cpu", "--repeat", "1");
  g_assert_cmpint (b.status, ==, 0);
  g_assert_nonnull (strstr (b.out, "wrong"));
  /* What compute-sanitizer would report, once, as the last note. */
  sanitizer = strstr (b.out, "\nnote: Under compute-sanitizer: memcheck on a -G build reports");
  g_assert_nonnull (sanitizer);
  g_assert_true (strstr (b.out, "Under compute-sanitizer") == sanitizer + strlen ("\nnote: "));
  g_assert_null (strstr (sanitizer + strlen ("\nnote: U"), "Under compute-sanitizer"));
  g_assert_null (strstr (strchr (sanitizer + 1, '\n'), "\nnote: "));
  g_assert_null (strstr (r.out, "compute-sanitizer"));

  RUN (&none, "run", "11-04", "--book", "--engine", "cpu");
  g_assert_cmpint (none.status, ==, 2);
  g_assert_nonnull (strstr (none.err, "no book variant"));
}

/* `lesson run --source` on the CPU engine runs the edited kernel as it is,
 * says which engine ran it, and prints what the checks found: without its
 * bounds test the 448 surplus threads of 977 × 1024 read a and b and write
 * result past their 10^6 elements, and the last in-range thread reads a[n]. */
static void
test_run_edited_on_cpu (void)
{
  static const char edited[] =
    "__global__ void add_num (float *result, const float *a, const float *b, int n)\n"
    "{\n"
    "  int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "  result[i] = a[i + 1] + b[i];\n"
    "}\n";
  g_autofree char *dir = g_dir_make_tmp ("ks-test-cli-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "edited.cu", NULL);
  g_auto (KsTestProgramResult) r = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  g_assert_true (g_file_set_contents (path, edited, -1, NULL));
  RUN (&r, "run", "11-06", "--source", path, "--engine", "cpu", "--repeat", "1");
  g_test_message ("%s", r.out);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "engine: CPU engine"));
  g_assert_nonnull (strstr (r.out, "found by the CPU engine's checks: 1345\n"));
  g_assert_nonnull (strstr (r.out, "Invalid __global__ read of size 4 bytes: at 11-06.cu:4"));
  g_assert_nonnull (strstr (r.out, "by thread (575,0,0) in block (976,0,0)"));
  ks_test_remove_tree (dir);
}

static void
test_bad_usage (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  g_auto (KsTestProgramResult) v = { 0 };
  g_auto (KsTestProgramResult) s = { 0 };
  g_auto (KsTestProgramResult) e = { 0 };

  RUN (&r, "run", "no-such-lesson", "--engine", "cpu");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no lesson “no-such-lesson”"));
  g_assert_cmpstr (r.out, ==, "");

  RUN (&v, "run", "11-09", "--variant", "nope", "--engine", "cpu");
  g_assert_cmpint (v.status, ==, 2);
  g_assert_nonnull (strstr (v.err, "tiled-book"));

  RUN (&s, "run", "12-06", "--size", "7", "--engine", "cpu");
  g_assert_cmpint (s.status, ==, 1);
  g_assert_nonnull (strstr (s.err, "takes no size"));

  RUN (&e, "frobnicate");
  g_assert_cmpint (e.status, ==, 2);
}

/* 11-02 on the CPU engine prints what the book prints without a device;
 * 12-04 runs --size frames. */
static void
test_new_lessons (void)
{
  g_auto (KsTestProgramResult) d = { 0 };
  g_auto (KsTestProgramResult) w = { 0 };

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&d, "run", "device-properties", "--engine", "cpu");
  g_assert_cmpint (d.status, ==, 0);
  g_assert_nonnull (strstr (d.out, "device printf:\n0 device(s) found.\n"));
  g_assert_nonnull (strstr (d.out, "launch: none, no kernel runs"));
  g_assert_nonnull (strstr (d.out, "logical cores"));

  /* Text: the JSON of every pixel of every frame is megabytes. */
  RUN (&w, "run", "12-04", "--book", "--engine", "cpu", "--size", "2", "--repeat", "1");
  g_assert_cmpint (w.status, ==, 0);
  g_assert_nonnull (strstr (w.out, "gray (astype(uint8)), frame by frame (host, u8, 512×256)"));
  g_assert_nonnull (strstr (w.out, "truncated as astype(uint8) does, on each of the 2 frames): "
                                   "correct"));
  g_assert_nonnull (strstr (w.out, "ms per frame, the book's way (host, f64, 2)"));
}

/* --sanitize where it cannot run (the CPU engine, or no CUDA at all): the
 * report as usual, then the reason in one line and the failure's exit code;
 * in JSON the reason is the report's sanitizer_run. */
static void
test_sanitize_unavailable (void)
{
  g_auto (KsTestProgramResult) t = { 0 };
  g_auto (KsTestProgramResult) j = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o, *run;

  if (!ks_test_have_nvrtc ())
    return;
  RUN (&t, "run", "12-01", "--book", "--sanitize", "--engine", "cpu", "--repeat", "1");
  g_assert_cmpint (t.status, ==, 1);
  g_assert_nonnull (strstr (t.out, "check (against"));
  g_assert_nonnull (strstr (t.err, "kernelscope-cli: compute-sanitizer checks"));
  g_assert_null (strstr (t.out, "compute-sanitizer, "));

  /* A small lesson: the JSON holds every value. */
  RUN (&j, "run", "11-11", "--sanitize", "--engine", "cpu", "--repeat", "1", "--json");
  g_assert_cmpint (j.status, ==, 1);
  o = parse_object (parser, j.out);
  g_assert_cmpstr (json_object_get_string_member (o, "lesson"), ==, "11-11");
  run = json_object_get_object_member (o, "sanitizer_run");
  g_assert_nonnull (strstr (json_object_get_string_member (run, "error"), "compute-sanitizer"));
  g_assert_nonnull (strstr (j.err, "compute-sanitizer"));
}

static void
test_help (void)
{
  g_auto (KsTestProgramResult) r = { 0 };
  const char *args[] = { "help", "lesson", NULL };

  ks_test_run_program (&r, cli_path, NULL, args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--book"));
  g_assert_nonnull (strstr (r.out, "--sanitize"));
  g_assert_nonnull (strstr (r.out, "list | run NAME"));
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  cli_path = g_test_build_filename (G_TEST_BUILT, "..", "app", "kernelscope-cli", NULL);
  g_test_add_func ("/ks/cli/lesson/list", test_list);
  g_test_add_func ("/ks/cli/lesson/run-json", test_run_json);
  g_test_add_func ("/ks/cli/lesson/run-text-and-book", test_run_text_and_book);
  g_test_add_func ("/ks/cli/lesson/run-edited-on-cpu", test_run_edited_on_cpu);
  g_test_add_func ("/ks/cli/lesson/bad-usage", test_bad_usage);
  g_test_add_func ("/ks/cli/lesson/help", test_help);
  g_test_add_func ("/ks/cli/lesson/new-lessons", test_new_lessons);
  g_test_add_func ("/ks/cli/lesson/sanitize-unavailable", test_sanitize_unavailable);
  ret = g_test_run ();
  g_free (cli_path);
  return ret;
}
