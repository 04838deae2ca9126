#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ks-cli.h"
#include "ks-lesson.h"

/* `lesson`: the tutorial's examples as lessons: `lesson list`, and
 * `lesson run NAME` with the result, its check and the timings. */

typedef struct
{
  gboolean book;
  char *variant;
  char *engine;
  char *source;
  char *grid;
  char *block;
  int repeat;
  int size;
  int device;
  int show;
  gint64 seed;
  gboolean json;
  gboolean sanitize;
} LessonOptions;

static void
lesson_options_clear (LessonOptions *o)
{
  g_free (o->variant);
  g_free (o->engine);
  g_free (o->source);
  g_free (o->grid);
  g_free (o->block);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LessonOptions, lesson_options_clear)

static int
lesson_list (const LessonOptions *o)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  for (guint i = 0; i < n; i++)
    {
      const KsLesson *l = lessons[i];
      g_autoptr (GString) variants = g_string_new (NULL);

      for (guint k = 0; k < l->n_variants; k++)
        {
          const KsLessonVariant *v = &l->variants[k];

          g_string_append_printf (variants, "%s%s%s%s%s", k > 0 ? ", " : "", v->id,
                                  v->defects[0] != '\0' ? " (" : "", v->defects,
                                  v->defects[0] != '\0' ? ")" : "");
        }
      ks_cli_print ("%-6s %-22s %s\n       variants: %s\n", l->id, l->slug, l->title,
                    variants->str);
    }
  if (o->json)
    {
      g_autoptr (JsonNode) root = ks_lesson_registry_to_json ();
      g_autoptr (GError) error = NULL;

      if (!ks_cli_emit_json (root, TRUE, NULL, &error))
        return ks_cli_report_error (error);
    }
  return KS_CLI_EXIT_OK;
}

static void
print_array (const KsLessonArray *la, guint show)
{
  const KsArray *a = la->array;
  gsize n = MIN (a->length, (gsize) show);

  ks_cli_print ("  %s (%s, %s", la->name, la->role, ks_elem_type_short_name (a->type));
  if (a->cols != 0)
    ks_cli_print (", %" G_GSIZE_FORMAT "×%" G_GSIZE_FORMAT, a->rows, a->cols);
  else
    ks_cli_print (", %" G_GSIZE_FORMAT, a->length);
  ks_cli_print ("):");
  if (a->cols != 0 && a->length <= 64)
    {
      for (gsize r = 0; r < a->rows; r++)
        {
          ks_cli_print ("\n   ");
          for (gsize c = 0; c < a->cols; c++)
            {
              g_autofree char *v = ks_array_format_element (a, r * a->cols + c);

              ks_cli_print (" %8s", v);
            }
        }
      ks_cli_print ("\n");
      return;
    }
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *v = ks_array_format_element (a, i);

      ks_cli_print (" %s", v);
    }
  if (n < a->length)
    ks_cli_print (" … (%" G_GSIZE_FORMAT " more)", a->length - n);
  ks_cli_print ("\n");
}

static void
print_timing (const char *name, const KsTiming *t)
{
  if (t->n == 0 || isnan (t->median_ms))
    return;
  ks_cli_print ("  %-11s %10.4f ms  (median of %u, min %.4f, max %.4f", name, t->median_ms, t->n,
                t->min_ms, t->max_ms);
  if (!isnan (t->warmup_ms))
    ks_cli_print ("; warm-up %.4f, not counted", t->warmup_ms);
  ks_cli_print (")\n");
}

static void
print_report (const KsLessonReport *r, guint show)
{
  char grid[32], block[32];
  const KsLessonTimings *t = &r->timings;

  ks_dim3_format (&r->grid, grid, sizeof grid);
  ks_dim3_format (&r->block, block, sizeof block);
  ks_cli_print ("%s %s — %s (%s)\n", r->lesson->id, r->lesson->title, r->variant->title,
                r->variant->id);
  ks_cli_print ("%s\n", r->lesson->explanation);
  ks_cli_print ("engine: %s%s\n", r->engine_name, r->edited ? " (edited kernel)" : "");
  if (r->lesson->host_only)
    ks_cli_print ("launch: none, no kernel runs\n");
  else
    ks_cli_print ("launch: grid %s, block %s, %" G_GUINT64_FORMAT " threads, %" G_GUINT64_FORMAT
                  " bytes of dynamic shared memory\n", grid, block, r->threads,
                  r->dynamic_shared);
  if (r->inputs->len > 0)
    ks_cli_print ("inputs:\n");
  for (guint i = 0; i < r->inputs->len; i++)
    print_array (g_ptr_array_index (r->inputs, i), show);
  if (r->outputs->len > 0)
    ks_cli_print ("outputs:\n");
  for (guint i = 0; i < r->outputs->len; i++)
    print_array (g_ptr_array_index (r->outputs, i), show);
  for (guint i = 0; i < r->steps->len; i++)
    {
      const KsLessonStep *s = g_ptr_array_index (r->steps, i);
      g_autoptr (GString) line = g_string_new (NULL);

      for (gsize k = 0; k < s->values->length; k++)
        {
          g_autofree char *v = ks_array_format_element (s->values, k);

          g_string_append_printf (line, " %s", v);
        }
      ks_cli_print ("step %u, %s:%s\n", i, s->title, line->str);
    }
  if (r->printf_output != NULL && r->printf_output[0] != '\0')
    {
      ks_cli_print ("device printf:\n%s", r->printf_output);
      if (!g_str_has_suffix (r->printf_output, "\n"))
        ks_cli_print ("\n");
    }
  ks_cli_print ("check (against %s): %s\n", r->check.against != NULL ? r->check.against : "—",
                r->check.summary != NULL ? r->check.summary : "none");
  if (r->book_check.present)
    ks_cli_print ("the book's check (%s): says %s on the result, %s on a wrong one\n",
                  r->book_check.description,
                  r->book_check.says_correct_on_result ? "correct" : "wrong",
                  r->book_check.says_correct_on_wrong ? "correct" : "wrong");
  if (r->atomics.counted)
    ks_cli_print ("atomics: %" G_GUINT64_FORMAT " global, %" G_GUINT64_FORMAT " shared (%s)\n",
                  r->atomics.global, r->atomics.shared, r->atomics.how);
  if (r->n_faults > 0)
    {
      ks_cli_print ("found by the CPU engine's checks: %" G_GUINT64_FORMAT "\n", r->n_faults);
      for (guint i = 0; i < r->faults->len; i++)
        ks_cli_print ("  %s\n", (const char *) g_ptr_array_index (r->faults, i));
    }
  if (r->cuda)
    ks_cli_print ("CUDA against the CPU engine: %s%s%s\n", r->matches_cpu ? "equal" : "different",
                  r->cpu_difference != NULL ? ", " : "",
                  r->cpu_difference != NULL ? r->cpu_difference : "");
  ks_cli_print ("timings:\n");
  if (!isnan (t->compile_ms))
    ks_cli_print ("  compile     %10.4f ms%s\n", t->compile_ms, t->compile_cached ? " (cached)" : "");
  print_timing ("upload", &t->upload);
  print_timing ("kernel", &t->kernel);
  print_timing ("download", &t->download);
  if (r->cuda)
    print_timing ("CPU engine", &t->cpu_kernel);
  print_timing ("C reference", &t->reference);
  if (!isnan (t->book_total_ms))
    ks_cli_print ("  book's way  %10.4f ms  (one span, no warm-up: %s)\n", t->book_total_ms,
                  t->book_total_covers);
  for (guint i = 0; i < r->notes->len; i++)
    ks_cli_print ("note: %s\n", (const char *) g_ptr_array_index (r->notes, i));
  if (r->variant->sanitizer != NULL)
    ks_cli_print ("note: Under compute-sanitizer: %s.\n", r->variant->sanitizer);
}

static void
print_sanitizer (const KsLessonSanitizerReport *s)
{
  ks_cli_print ("compute-sanitizer, %s, on %s (%.1f s):\n", s->tool, s->device,
                s->wall_ms / 1000.0);
  ks_cli_print ("  command: %s\n", s->command_line);
  ks_cli_print ("  %s\n", s->summary);
  for (guint i = 0; i < s->findings->len; i++)
    ks_cli_print ("  finding: %s\n", (const char *) g_ptr_array_index (s->findings, i));
  if (s->run_error != NULL)
    ks_cli_print ("  the run under the tool: %s\n", s->run_error);
}

/* --sanitize: the variant again, once, under compute-sanitizer. The summary
 * goes after the report (text) or into it as "sanitizer_run" (JSON, an
 * {"error": …} when it could not run). */
static gboolean
run_sanitizer (const KsLesson *lesson, const KsLessonVariant *variant, KsEngine *engine,
               const KsLessonOptions *options, JsonObject *json, GError **error)
{
  g_autoptr (KsLessonSanitizerReport) s = NULL;
  g_autoptr (GError) local = NULL;

  if (!ks_lesson_sanitize (lesson, variant, engine, options, &s, &local))
    {
      if (json != NULL)
        {
          JsonObject *o = json_object_new ();

          json_object_set_string_member (o, "error", local->message);
          json_object_set_object_member (json, "sanitizer_run", o);
        }
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (json != NULL)
    json_object_set_member (json, "sanitizer_run", ks_lesson_sanitizer_report_to_json (s));
  else
    print_sanitizer (s);
  return TRUE;
}

/* An optional dimension option: absent leaves *out as it is (zeros: the
 * lesson's); a bad one is a usage error naming the option. */
static gboolean
parse_dim3_option (const char *option, const char *text, KsDim3 *out, GError **error)
{
  if (text == NULL || ks_dim3_parse (text, out, error))
    return TRUE;
  g_prefix_error (error, "%s: ", option);
  (*error)->domain = KS_CLI_ERROR;
  (*error)->code = KS_CLI_ERROR_USAGE;
  return FALSE;
}

static int
lesson_run (const LessonOptions *o, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsEngine) engine = NULL;
  g_autoptr (KsWorker) worker = NULL;
  g_autoptr (KsLessonReport) report = NULL;
  g_autofree char *text = NULL;
  const KsLesson *lesson = ks_lesson_lookup (name);
  const KsLessonVariant *variant;
  KsLessonOptions options;
  gboolean ok;

  if (lesson == NULL)
    {
      ks_cli_usage_error (&error, "no lesson “%s”: `%s lesson list` names them (11-01 … 12-06)",
                          name, g_get_prgname ());
      return ks_cli_report_error (error);
    }
  if (o->book && o->variant != NULL)
    {
      ks_cli_usage_error (&error, "give --book or --variant, not both");
      return ks_cli_report_error (error);
    }
  variant = o->book ? ks_lesson_get_book_variant (lesson)
                    : ks_lesson_lookup_variant (lesson, o->variant);
  if (variant == NULL)
    {
      g_autoptr (GString) ids = g_string_new (NULL);

      for (guint k = 0; k < lesson->n_variants; k++)
        g_string_append_printf (ids, "%s%s", k > 0 ? ", " : "", lesson->variants[k].id);
      if (o->book)
        ks_cli_usage_error (&error, "lesson %s has no book variant: the tutorial's example has "
                            "no defect to show (variants: %s)", lesson->id, ids->str);
      else
        ks_cli_usage_error (&error, "lesson %s has no variant “%s” (variants: %s)", lesson->id,
                            o->variant, ids->str);
      return ks_cli_report_error (error);
    }
  ks_lesson_options_init (&options);
  options.repeats = (guint) o->repeat;
  options.size = (guint) o->size;
  options.seed = (guint64) o->seed;
  if (!parse_dim3_option ("--grid", o->grid, &options.grid, &error)
      || !parse_dim3_option ("--block", o->block, &options.block, &error))
    return ks_cli_report_error (error);
  if (o->source != NULL)
    {
      g_autoptr (GError) local = NULL;

      if (!g_file_get_contents (o->source, &text, NULL, &local))
        {
          g_set_error (&error, KS_ERROR, KS_ERROR_FAILED, "cannot read %s: %s", o->source,
                       local->message);
          return ks_cli_report_error (error);
        }
      options.source = text;
    }

  engine = ks_cli_open_engine (o->engine, o->device, &error);
  if (engine == NULL)
    return ks_cli_report_error (error);
  if (ks_engine_is_cuda (engine))
    worker = ks_worker_new (ks_device_get_ordinal (ks_engine_get_device (engine)));

  ok = ks_lesson_run (lesson, variant, engine, worker, &options, &report, &error);
  if (report != NULL)
    {
      g_autoptr (JsonNode) root = o->json ? ks_lesson_report_to_json (report, 0) : NULL;

      if (!o->json)
        print_report (report, (guint) o->show);
      /* The sanitizer's own run, after the report's: it checks the same kernel. */
      if (ok && o->sanitize)
        ok = run_sanitizer (lesson, variant, engine, &options,
                            root != NULL ? json_node_get_object (root) : NULL, &error);
      if (root != NULL)
        ks_cli_emit_json (root, TRUE, NULL, NULL);
    }
  if (!ok)
    return ks_cli_report_error (error);
  return KS_CLI_EXIT_OK;
}

int
ks_cli_cmd_lesson (int argc, char **argv)
{
  g_auto (LessonOptions) o = { .repeat = 5, .show = 10, .device = -1, .seed = 1 };
  gboolean help = FALSE;
  const GOptionEntry entries[] = {
    { "book", 'B', 0, G_OPTION_ARG_NONE, &o.book,
      "Run the variant as in the book, which shows the tutorial's defect", NULL },
    { "variant", 'V', 0, G_OPTION_ARG_STRING, &o.variant,
      "Run this variant (fixed, book, … as `lesson list` shows them)", "ID" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &o.engine,
      "cuda or cpu (default: CUDA when available)", "ENGINE" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &o.repeat,
      "Timed runs after a warm-up (default 5)", "N" },
    { "size", 0, 0, G_OPTION_ARG_INT, &o.size,
      "N for 11-05, the matrix side for 11-07 and 11-09, the frames for 12-04 (default: the "
      "lesson's)", "N" },
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &o.grid,
      "Another grid than the lesson's, to break it on purpose", "X[xY[xZ]]" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &o.block,
      "Another block than the lesson's", "X[xY[xZ]]" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o.seed,
      "Random data, and the CPU engine's block order for 11-03 (default 1)", "N" },
    { "source", 0, 0, G_OPTION_ARG_FILENAME, &o.source,
      "Run an edited copy of the lesson's kernel (CUDA only)", "FILE.cu" },
    { "show", 0, 0, G_OPTION_ARG_INT, &o.show, "Elements of each long array printed (default 10)",
      "N" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &o.device, "CUDA device ordinal (default 0)", "N" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &o.json,
      "Print the report as JSON on stdout instead of text", NULL },
    { "sanitize", 0, 0, G_OPTION_ARG_NONE, &o.sanitize,
      "Then run the kernel once more under compute-sanitizer (CUDA) and print its summary",
      NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("list | run NAME");
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  guint n_args;

  g_option_context_set_summary (
    context,
    "The tutorial's examples as lessons. `lesson list` names them (11-01 … 12-06) with their\n"
    "variants; `lesson run NAME` runs one (by id or name) and prints its data, its result,\n"
    "the check against an independent CPU reference and the timings: compile, upload,\n"
    "kernel and download apart, warm-up excluded, medians, next to the book's single time.\n"
    "--book runs the variant that reproduces the tutorial's defect. The CPU engine runs\n"
    "every lesson, and catches out-of-range accesses instead of making them. --sanitize\n"
    "then runs the kernel under compute-sanitizer (memcheck, initcheck or racecheck, as the\n"
    "variant's defect needs) on CUDA. 11-02 runs no kernel; 12-04 runs --size frames.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (o.json);
  n_args = g_strv_length (args);
  if (o.repeat < 1 || o.repeat > 10000)
    {
      ks_cli_usage_error (&error, "--repeat must be between 1 and 10000, not %d", o.repeat);
      return ks_cli_report_error (error);
    }
  if (o.size < 0 || o.show < 0 || o.seed < 0)
    {
      ks_cli_usage_error (&error, "--size, --show and --seed are 0 or more");
      return ks_cli_report_error (error);
    }
  if (n_args >= 2 && g_str_equal (args[1], "list") && n_args == 2)
    return lesson_list (&o);
  if (n_args == 3 && g_str_equal (args[1], "run"))
    return lesson_run (&o, args[2]);
  ks_cli_usage_error (&error, "lesson takes `list` or `run NAME` (see %s lesson --help)",
                      g_get_prgname ());
  return ks_cli_report_error (error);
}
