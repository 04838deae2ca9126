/* ks-lesson-report.c: a run's report: its arrays, images and steps, the
 * table of its timings, freeing it, finding an array in it, and the report
 * as JSON (with the members the registry's JSON uses too). */
#include "config.h"

#include <math.h>

#include "ks-json.h"
#include "ks-lesson-private.h"

KsLessonArray *
_ks_lesson_array_new (const char *name, const char *role, KsArray *array)
{
  KsLessonArray *la = g_new0 (KsLessonArray, 1);

  la->name = g_strdup (name);
  la->role = g_strdup (role);
  la->array = array;
  return la;
}

static void
lesson_array_free (KsLessonArray *la)
{
  g_free (la->name);
  g_free (la->role);
  g_clear_pointer (&la->array, ks_array_free);
  g_free (la->block_of);
  g_free (la->thread_of);
  g_free (la);
}

static void
lesson_image_free (KsLessonImage *li)
{
  g_free (li->name);
  g_clear_pointer (&li->image, ks_image_unref);
  g_free (li);
}

static void
lesson_step_free (KsLessonStep *s)
{
  g_free (s->title);
  g_clear_pointer (&s->values, ks_array_free);
  g_free (s);
}

/* The report's timings as a table: one list for creating, freeing and
 * writing them, in the order the JSON gives them. */
static const struct
{
  const char *name;
  gsize offset;
} timing_members[] = {
  { "upload", G_STRUCT_OFFSET (KsLessonTimings, upload) },
  { "kernel", G_STRUCT_OFFSET (KsLessonTimings, kernel) },
  { "download", G_STRUCT_OFFSET (KsLessonTimings, download) },
  { "cpu_kernel", G_STRUCT_OFFSET (KsLessonTimings, cpu_kernel) },
  { "reference", G_STRUCT_OFFSET (KsLessonTimings, reference) },
};

static KsTiming *
timing_member (KsLessonTimings *timings, guint k)
{
  return G_STRUCT_MEMBER_P (timings, timing_members[k].offset);
}

void
ks_lesson_report_free (KsLessonReport *report)
{
  if (report == NULL)
    return;
  g_free (report->engine_name);
  g_ptr_array_unref (report->inputs);
  g_ptr_array_unref (report->outputs);
  g_ptr_array_unref (report->images);
  g_ptr_array_unref (report->steps);
  g_ptr_array_unref (report->faults);
  g_ptr_array_unref (report->notes);
  g_free (report->printf_output);
  g_free (report->check.against);
  g_free (report->check.summary);
  g_free (report->check.output);
  g_clear_pointer (&report->check.expected_values, ks_array_free);
  g_free (report->book_check.description);
  g_free (report->book_check.wrong_description);
  g_free (report->atomics.how);
  g_free (report->cpu_difference);
  for (guint k = 0; k < G_N_ELEMENTS (timing_members); k++)
    ks_timing_clear (timing_member (&report->timings, k));
  g_free (report->timings.book_total_covers);
  g_free (report->timings.method);
  g_free (report);
}

const KsLessonArray *
ks_lesson_report_find (const KsLessonReport *report, const char *name)
{
  GPtrArray *lists[] = { report->outputs, report->inputs };

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; i < lists[l]->len; i++)
      {
        const KsLessonArray *la = g_ptr_array_index (lists[l], i);

        if (g_str_equal (la->name, name))
          return la;
      }
  return NULL;
}

KsLessonReport *
_ks_lesson_report_new (const KsLesson *lesson, const KsLessonVariant *variant)
{
  KsLessonReport *r = g_new0 (KsLessonReport, 1);

  r->lesson = lesson;
  r->variant = variant;
  r->inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_array_free);
  r->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_array_free);
  r->images = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_image_free);
  r->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) lesson_step_free);
  r->faults = g_ptr_array_new_with_free_func (g_free);
  r->notes = g_ptr_array_new_with_free_func (g_free);
  r->check.first_difference = G_MAXSIZE;
  r->timings.compile_ms = NAN;
  r->timings.book_total_ms = NAN;
  for (guint k = 0; k < G_N_ELEMENTS (timing_members); k++)
    ks_timing_begin (timing_member (&r->timings, k), 0);
  r->timings.cpu_kernel.median_ms = NAN;
  r->timings.reference.median_ms = NAN;
  return r;
}

/* ---- JSON ------------------------------------------------------------------- */

/* Members of the object being built, name and value in one call. */
void
_ks_lesson_member_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  ks_json_add_string (b, value);
}

static void
member_number (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  ks_json_add_number (b, value);
}

static void
member_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

void
_ks_lesson_member_bool (JsonBuilder *b, const char *name, gboolean value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

static void
member_ints (JsonBuilder *b, const char *name, const gint32 *values, gsize n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (gsize i = 0; i < n; i++)
    json_builder_add_int_value (b, values[i]);
  json_builder_end_array (b);
}

static gsize
values_shown (const KsArray *a, gsize max_values)
{
  return max_values != 0 ? MIN (a->length, max_values) : a->length;
}

static void
json_array_values (JsonBuilder *b, const KsArray *a, gsize max_values)
{
  gsize n = values_shown (a, max_values);

  _ks_lesson_member_string (b, "type", ks_elem_type_short_name (a->type));
  member_int (b, "length", (gint64) a->length);
  json_builder_set_member_name (b, "shape");
  json_builder_begin_array (b);
  json_builder_add_int_value (b, (gint64) a->rows);
  if (a->cols != 0)
    json_builder_add_int_value (b, (gint64) a->cols);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "values");
  json_builder_begin_array (b);
  for (gsize i = 0; i < n; i++)
    ks_json_add_number (b, ks_array_get_double (a, i));
  json_builder_end_array (b);
}

static void
json_lesson_arrays (JsonBuilder *b, const char *name, const GPtrArray *list, gsize max_values)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (list, i);
      gsize n = values_shown (la->array, max_values);

      json_builder_begin_object (b);
      _ks_lesson_member_string (b, "name", la->name);
      _ks_lesson_member_string (b, "role", la->role);
      json_array_values (b, la->array, max_values);
      if (la->block_of != NULL)
        {
          member_ints (b, "block_of", la->block_of, n);
          member_ints (b, "thread_of", la->thread_of, n);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
json_strings (JsonBuilder *b, const char *name, const GPtrArray *list)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    ks_json_add_string (b, g_ptr_array_index (list, i));
  json_builder_end_array (b);
}

static void
json_check (JsonBuilder *b, const KsLessonCheck *c, gsize max_values)
{
  json_builder_set_member_name (b, "check");
  json_builder_begin_object (b);
  _ks_lesson_member_bool (b, "passed", c->passed);
  _ks_lesson_member_string (b, "against", c->against);
  member_int (b, "compared", (gint64) c->compared);
  member_int (b, "differing", (gint64) c->differing);
  json_builder_set_member_name (b, "first_difference");
  if (c->first_difference == G_MAXSIZE)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, (gint64) c->first_difference);
  member_number (b, "expected", c->expected);
  member_number (b, "actual", c->actual);
  _ks_lesson_member_string (b, "summary", c->summary);
  _ks_lesson_member_string (b, "output", c->output);
  json_builder_set_member_name (b, "expected_values");
  if (c->expected_values != NULL)
    {
      json_builder_begin_object (b);
      json_array_values (b, c->expected_values, max_values);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

static void
json_timings (JsonBuilder *b, const KsLessonTimings *t)
{
  json_builder_set_member_name (b, "timings");
  json_builder_begin_object (b);
  member_number (b, "compile_ms", t->compile_ms);
  _ks_lesson_member_bool (b, "compile_cached", t->compile_cached);
  for (guint k = 0; k < G_N_ELEMENTS (timing_members); k++)
    {
      json_builder_set_member_name (b, timing_members[k].name);
      json_builder_begin_object (b);
      ks_json_add_timing (b, timing_member ((KsLessonTimings *) t, k), "runs");
      json_builder_end_object (b);
    }
  member_number (b, "book_total_ms", t->book_total_ms);
  _ks_lesson_member_string (b, "book_total_covers", t->book_total_covers);
  _ks_lesson_member_string (b, "method", t->method);
  json_builder_end_object (b);
}

JsonNode *
ks_lesson_report_to_json (const KsLessonReport *r, gsize max_values)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (r != NULL, NULL);
  json_builder_begin_object (b);
  _ks_lesson_member_string (b, "lesson", r->lesson->id);
  _ks_lesson_member_string (b, "slug", r->lesson->slug);
  _ks_lesson_member_string (b, "title", r->lesson->title);
  _ks_lesson_member_string (b, "variant", r->variant->id);
  _ks_lesson_member_bool (b, "book", r->variant->book);
  _ks_lesson_member_string (b, "defects", r->variant->defects);
  _ks_lesson_member_string (b, "sanitizer", r->variant->sanitizer);
  _ks_lesson_member_string (b, "engine", r->cuda ? "cuda" : "cpu");
  _ks_lesson_member_string (b, "device", r->engine_name);
  _ks_lesson_member_bool (b, "edited", r->edited);
  json_builder_set_member_name (b, "launch");
  json_builder_begin_object (b);
  ks_json_add_dim3 (b, "grid", &r->grid);
  ks_json_add_dim3 (b, "block", &r->block);
  member_int (b, "dynamic_shared_bytes", (gint64) r->dynamic_shared);
  member_int (b, "threads", (gint64) r->threads);
  json_builder_end_object (b);
  json_lesson_arrays (b, "inputs", r->inputs, max_values);
  json_lesson_arrays (b, "outputs", r->outputs, max_values);
  _ks_lesson_member_string (b, "printf", r->printf_output != NULL ? r->printf_output : "");
  json_check (b, &r->check, max_values);

  if (r->book_check.present)
    {
      const KsLessonBookCheck *bc = &r->book_check;

      json_builder_set_member_name (b, "book_check");
      json_builder_begin_object (b);
      _ks_lesson_member_string (b, "description", bc->description);
      _ks_lesson_member_bool (b, "says_correct_on_result", bc->says_correct_on_result);
      _ks_lesson_member_string (b, "wrong_result", bc->wrong_description);
      _ks_lesson_member_bool (b, "says_correct_on_wrong", bc->says_correct_on_wrong);
      _ks_lesson_member_bool (b, "real_check_catches_wrong", bc->real_check_catches_wrong);
      json_builder_end_object (b);
    }
  if (r->atomics.counted)
    {
      json_builder_set_member_name (b, "atomics");
      json_builder_begin_object (b);
      member_int (b, "global", (gint64) r->atomics.global);
      member_int (b, "shared", (gint64) r->atomics.shared);
      _ks_lesson_member_string (b, "how", r->atomics.how);
      json_builder_end_object (b);
    }
  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->steps->len; i++)
    {
      const KsLessonStep *s = g_ptr_array_index (r->steps, i);

      json_builder_begin_object (b);
      _ks_lesson_member_string (b, "title", s->title);
      json_array_values (b, s->values, 0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  member_int (b, "out_of_range_accesses", (gint64) r->n_faults);
  json_strings (b, "faults", r->faults);
  if (r->cuda)
    {
      _ks_lesson_member_bool (b, "matches_cpu", r->matches_cpu);
      if (r->cpu_difference != NULL)
        _ks_lesson_member_string (b, "cpu_difference", r->cpu_difference);
    }
  json_timings (b, &r->timings);
  json_strings (b, "notes", r->notes);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
