/* ks-lesson-sanitize.c: a lesson's kernel run under compute-sanitizer.
 *
 * The tool wraps a worker process of the run's own (ks-worker-private.h's
 * wrapper), so the kernel, its data and its launch are the lesson's, bound
 * as the book binds them: an Out buffer the book never clears reaches the
 * kernel uncleared, for initcheck to see, and 12-02's bins have the book's
 * 256 entries, for memcheck to see the 257th thread's atomic past them. The
 * tool writes its log to a temporary file, read after the worker quits. */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ks-error.h"
#include "ks-lesson-private.h"

#define SANITIZER "compute-sanitizer"
/* Errors listed in the log in full; the summary counts them all. */
#define PRINT_LIMIT "20"
/* The tool slows start-up, kernels and the exit by a large factor. */
#define SLOW_MS (120 * 1000)

void
ks_lesson_sanitizer_report_free (KsLessonSanitizerReport *report)
{
  if (report == NULL)
    return;
  g_free (report->tool);
  g_free (report->program);
  g_free (report->command_line);
  g_free (report->device);
  g_free (report->output);
  g_ptr_array_unref (report->findings);
  g_free (report->run_error);
  g_free (report->summary);
  g_free (report);
}

static char *
executable_in (const char *dir, const char *relative)
{
  g_autofree char *path = NULL;

  if (dir == NULL || *dir == '\0')
    return NULL;
  path = g_build_filename (dir, relative, NULL);
  return g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) ? g_steal_pointer (&path) : NULL;
}

gboolean
ks_lesson_find_sanitizer (char **path, char **why_not)
{
  const char *env = g_getenv ("KS_COMPUTE_SANITIZER");
  const char *cuda_home = g_getenv ("CUDA_HOME");
  g_autofree char *found = NULL;

  if (path != NULL)
    *path = NULL;
  if (why_not != NULL)
    *why_not = NULL;
  if (env != NULL && *env != '\0')
    {
      if (g_file_test (env, G_FILE_TEST_IS_EXECUTABLE))
        found = g_strdup (env);
      else if (why_not != NULL)
        *why_not = g_strdup_printf ("KS_COMPUTE_SANITIZER names %s, which is not a program "
                                    "that can run.", env);
    }
  else
    {
      found = g_find_program_in_path (SANITIZER);
      if (found == NULL)
        found = executable_in (cuda_home, "bin/" SANITIZER);
      if (found == NULL)
        found = executable_in ("/usr/local/cuda", "bin/" SANITIZER);
      /* The toolkit's own folder, where bin/ holds only a link to it. */
      if (found == NULL)
        found = executable_in (cuda_home, SANITIZER "/" SANITIZER);
      if (found == NULL)
        found = executable_in ("/usr/local/cuda", SANITIZER "/" SANITIZER);
      if (found == NULL && why_not != NULL)
        *why_not = g_strdup ("compute-sanitizer was not found on PATH, in $CUDA_HOME/bin or "
                             "in /usr/local/cuda/bin: it comes with the CUDA toolkit (set "
                             "KS_COMPUTE_SANITIZER to its path).");
    }
  if (found == NULL)
    return FALSE;
  if (path != NULL)
    *path = g_steal_pointer (&found);
  return TRUE;
}

const char *
ks_lesson_get_sanitizer_tool (const KsLesson *lesson, const KsLessonVariant *variant)
{
  g_return_val_if_fail (lesson != NULL && variant != NULL, NULL);
  if (variant->sanitizer_tool != NULL)
    return variant->sanitizer_tool;
  for (guint i = 0; i < lesson->n_variants; i++)
    if (lesson->variants[i].sanitizer_tool != NULL)
      return lesson->variants[i].sanitizer_tool;
  return "memcheck";
}

/* ---- the tool's log ---------------------------------------------------------- */

/* The text of a line of the tool's ("========= …"), or NULL for other text. */
static const char *
tool_text (const char *line)
{
  if (!g_str_has_prefix (line, "========="))
    return NULL;
  line += strlen ("=========");
  if (*line == ' ')
    line++;
  return line;
}

/* The first number after `after` in text; -1 when none. */
static gint64
number_after (const char *text, const char *after)
{
  const char *p = strstr (text, after);

  if (p == NULL)
    return -1;
  p += strlen (after);
  while (*p == ' ')
    p++;
  if (!g_ascii_isdigit (*p))
    return -1;
  return g_ascii_strtoll (p, NULL, 10);
}

static gboolean
is_record_start (const char *text)
{
  static const char *const not_errors[] = {
    "COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
    "Target application", "Saved host backtrace", "Internal Sanitizer", "Note:",
  };

  if (text[0] == '\0' || text[0] == ' ' || text[0] == '\t')
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (not_errors); i++)
    if (g_str_has_prefix (text, not_errors[i]))
      return FALSE;
  return TRUE;
}

/* One finding: the record's first line and its first details ("at …", "by
 * thread …", "Address …"), on one line. */
static char *
finding_from (char **lines, guint start)
{
  g_autofree char *first = g_strstrip (g_strdup (tool_text (lines[start])));
  GString *out = g_string_new (first);
  guint details = 0;

  for (guint i = start + 1; lines[i] != NULL && details < 4; i++)
    {
      const char *text = tool_text (lines[i]);
      g_autofree char *detail = NULL;

      if (text == NULL || (text[0] != ' ' && text[0] != '\t'))
        break;
      detail = g_strstrip (g_strdup (text));
      if (detail[0] == '\0' || g_str_has_prefix (detail, "Saved host backtrace")
          || g_str_has_prefix (detail, "Host Frame") || detail[0] == '#')
        continue;
      g_string_append (out, details == 0 ? " " : ", ");
      g_string_append (out, detail);
      details++;
    }
  if (out->len > 400)
    {
      g_string_truncate (out, 397);
      g_string_append (out, "…");
    }
  return g_string_free (out, FALSE);
}

void
_ks_lesson_sanitizer_parse_log (KsLessonSanitizerReport *r, const char *log)
{
  g_auto (GStrv) lines = g_strsplit (log, "\n", -1);
  gint64 error_summary = -1, race_errors = -1;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *text = tool_text (lines[i]);

      if (text == NULL)
        continue;
      /* "ERROR SUMMARY: 133 errors", then perhaps "ERROR SUMMARY: 33 errors
       * were not printed…": the first counts them all. */
      if (g_str_has_prefix (text, "ERROR SUMMARY:") && strstr (text, "not printed") == NULL
          && strstr (text, "not displayed") == NULL)
        error_summary = number_after (text, "ERROR SUMMARY:");
      /* "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" */
      else if (g_str_has_prefix (text, "RACECHECK SUMMARY:"))
        {
          const char *open = strchr (text, '(');

          race_errors = open != NULL ? number_after (open, "(") : -1;
          r->warnings = MAX (number_after (text, "errors,"), 0);
        }
      else if (is_record_start (text) && r->findings->len < KS_LESSON_SANITIZER_MAX_FINDINGS)
        g_ptr_array_add (r->findings, finding_from (lines, i));
    }
  r->errors = g_str_equal (r->tool, "racecheck") && race_errors >= 0 ? race_errors
                                                                     : error_summary;
}

static char *
describe (const KsLessonSanitizerReport *r)
{
  const char *first = r->findings->len > 0 ? g_ptr_array_index (r->findings, 0) : NULL;

  if (r->errors < 0)
    return g_strdup_printf ("%s printed no summary%s%s", r->tool,
                            r->run_error != NULL ? ": " : "",
                            r->run_error != NULL ? r->run_error : "");
  if (r->errors == 0)
    return g_strdup_printf ("%s: no errors%s", r->tool,
                            g_str_equal (r->tool, "racecheck") && r->warnings > 0
                            ? ", some warnings" : "");
  return g_strdup_printf ("%s: %" G_GINT64_FORMAT " error%s%s%s", r->tool, r->errors,
                          r->errors == 1 ? "" : "s", first != NULL ? "; the first: " : "",
                          first != NULL ? first : "");
}

/* The log kept in the report: its start, cut at a character. */
static void
keep_output (KsLessonSanitizerReport *r, const char *log, gsize length)
{
  gsize keep = MIN (length, (gsize) KS_LESSON_SANITIZER_MAX_OUTPUT);
  g_autofree char *head = g_strndup (log, keep);

  r->output_length = length;
  r->output = g_utf8_make_valid (head, -1);
}

static char *
command_line (const char *const *wrapper, int ordinal)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *worker = ks_worker_program_find (NULL);

  for (guint i = 0; wrapper[i] != NULL; i++)
    {
      g_autofree char *quoted = g_shell_quote (wrapper[i]);

      g_string_append_printf (s, "%s%s", i > 0 ? " " : "", quoted);
    }
  {
    g_autofree char *quoted = g_shell_quote (worker != NULL ? worker : KS_WORKER_PROGRAM);

    g_string_append_printf (s, " %s --fd 0 --device %d …", quoted, ordinal);
  }
  return g_strdup (s->str);
}

/* Cancelled: the tool ends at once (the worker under it sees its parent go
 * and ends too), also while the worker is still starting, which waits for
 * nothing else. */
static void
on_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  GPid pid = _ks_worker_get_pid (KS_WORKER (user_data));

  if (pid > 0)
    kill (pid, SIGKILL);
}

/* The lesson's run ended badly under the tool: is that what the tool shows
 * (memcheck ends a kernel at its first error, and CUDA then reports a launch
 * failure that stops the worker) or a failure to report? */
static gboolean
is_finding (const GError *error)
{
  return g_error_matches (error, KS_ERROR, KS_ERROR_KERNEL_FAULT)
         || g_error_matches (error, KS_ERROR, KS_ERROR_WORKER)
         || g_error_matches (error, KS_ERROR, KS_ERROR_CUDA)
         || g_error_matches (error, KS_ERROR, KS_ERROR_DEVICE_LOST);
}

gboolean
ks_lesson_sanitize (const KsLesson *lesson, const KsLessonVariant *variant,
                    KsEngine *cuda_engine, const KsLessonOptions *options,
                    KsLessonSanitizerReport **report, GError **error)
{
  g_autofree char *program = NULL;
  g_autofree char *why_not = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *log = NULL;
  g_autoptr (KsWorker) worker = NULL;
  g_autoptr (GError) local = NULL;
  KsLessonSanitizerReport *r;
  const char *tool;
  GCancellable *cancellable;
  gulong handler;
  gsize log_length = 0;
  gboolean ran;
  int ordinal;
  double t0;

  g_return_val_if_fail (lesson != NULL && variant != NULL, FALSE);
  g_return_val_if_fail (report != NULL && *report == NULL, FALSE);

  if (options != NULL && g_cancellable_set_error_if_cancelled (options->cancellable, error))
    return FALSE;
  if (lesson->host_only)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "Lesson %s runs no kernel, so compute-sanitizer has nothing to check.",
                   lesson->id);
      return FALSE;
    }
  if (!HAVE_CUDA)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "compute-sanitizer checks kernels on an NVIDIA GPU, and this build of "
                   "Kernelscope has no CUDA support.");
      return FALSE;
    }
  if (cuda_engine == NULL || !ks_engine_is_cuda (cuda_engine))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "compute-sanitizer checks the kernel on an NVIDIA GPU with CUDA, and this "
                   "run is on the CPU engine.");
      return FALSE;
    }
  if (!ks_lesson_find_sanitizer (&program, &why_not))
    {
      g_set_error_literal (error, KS_ERROR, KS_ERROR_UNAVAILABLE, why_not);
      return FALSE;
    }
  tool = ks_lesson_get_sanitizer_tool (lesson, variant);
  dir = g_dir_make_tmp ("kernelscope-sanitizer-XXXXXX", error);
  if (dir == NULL)
    return FALSE;
  log_path = g_build_filename (dir, "sanitizer.log", NULL);
  ordinal = ks_device_get_ordinal (ks_engine_get_device (cuda_engine));

  {
    const char *wrapper[] = { program, "--tool", tool, "--log-file", log_path,
                              "--print-limit", PRINT_LIMIT, "--show-backtrace", "no", NULL };

    r = g_new0 (KsLessonSanitizerReport, 1);
    r->lesson = lesson;
    r->variant = variant;
    r->tool = g_strdup (tool);
    r->program = g_strdup (program);
    r->command_line = command_line (wrapper, ordinal);
    r->device = g_strdup (ks_device_get_name (ks_engine_get_device (cuda_engine)));
    r->findings = g_ptr_array_new_with_free_func (g_free);
    r->errors = -1;

    worker = ks_worker_new (ordinal);
    _ks_worker_set_wrapper (worker, wrapper, SLOW_MS);
  }
  ks_worker_set_timeout_ms (worker, SLOW_MS);
  ks_worker_set_compile_timeout_ms (worker, SLOW_MS);

  t0 = _ks_lesson_now_ms ();
  cancellable = options != NULL ? options->cancellable : NULL;
  handler = cancellable != NULL ? g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled_cb),
                                                         worker, NULL)
                                : 0;
  ran = _ks_lesson_run_for_sanitizer (lesson, variant, cuda_engine, worker, options, &local);
  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  if (!ran && g_cancellable_is_cancelled (cancellable))
    {
      g_clear_error (&local);
      g_cancellable_set_error_if_cancelled (cancellable, &local);
    }
  if (!ran)
    {
      if (!is_finding (local))
        {
          ks_lesson_sanitizer_report_free (r);
          g_clear_object (&worker);
          (void) g_remove (log_path);
          (void) g_rmdir (dir);
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      r->run_error = g_strdup (local->message);
    }
  /* "quit", then the wait for the tool: it writes its summary as the worker ends. */
  ks_worker_stop (worker);
  g_clear_object (&worker);
  r->wall_ms = _ks_lesson_now_ms () - t0;

  if (!g_file_get_contents (log_path, &log, &log_length, NULL))
    {
      log = g_strdup ("");
      log_length = 0;
    }
  (void) g_remove (log_path);
  (void) g_rmdir (dir);
  keep_output (r, log, log_length);
  _ks_lesson_sanitizer_parse_log (r, log);
  if (r->errors < 0 && r->run_error != NULL && r->findings->len == 0)
    {
      /* Nothing from the tool and a failed run: the tool did not get to run it. */
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                   "Under compute-sanitizer the lesson did not run: %s%s%s", r->run_error,
                   log[0] != '\0' ? " The tool said: " : "", log[0] != '\0' ? r->output : "");
      ks_lesson_sanitizer_report_free (r);
      return FALSE;
    }
  r->summary = describe (r);
  *report = r;
  return TRUE;
}

JsonNode *
ks_lesson_sanitizer_report_to_json (const KsLessonSanitizerReport *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (r != NULL, NULL);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "lesson");
  json_builder_add_string_value (b, r->lesson->id);
  json_builder_set_member_name (b, "variant");
  json_builder_add_string_value (b, r->variant->id);
  json_builder_set_member_name (b, "tool");
  json_builder_add_string_value (b, r->tool);
  json_builder_set_member_name (b, "program");
  json_builder_add_string_value (b, r->program);
  json_builder_set_member_name (b, "command_line");
  json_builder_add_string_value (b, r->command_line);
  json_builder_set_member_name (b, "device");
  json_builder_add_string_value (b, r->device);
  json_builder_set_member_name (b, "errors");
  if (r->errors >= 0)
    json_builder_add_int_value (b, r->errors);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "warnings");
  json_builder_add_int_value (b, r->warnings);
  json_builder_set_member_name (b, "clean");
  json_builder_add_boolean_value (b, r->errors == 0);
  json_builder_set_member_name (b, "findings");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->findings->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (r->findings, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "run_error");
  if (r->run_error != NULL)
    json_builder_add_string_value (b, r->run_error);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "summary");
  json_builder_add_string_value (b, r->summary);
  json_builder_set_member_name (b, "wall_ms");
  json_builder_add_double_value (b, r->wall_ms);
  json_builder_set_member_name (b, "output");
  json_builder_add_string_value (b, r->output);
  json_builder_set_member_name (b, "output_length");
  json_builder_add_int_value (b, (gint64) r->output_length);
  json_builder_set_member_name (b, "output_truncated");
  json_builder_add_boolean_value (b, r->output_length > KS_LESSON_SANITIZER_MAX_OUTPUT);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
