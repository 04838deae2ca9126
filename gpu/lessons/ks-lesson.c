/* ks-lesson.c: the lessons' registry: the lessons of the lessons' files
 * (ks-lesson-NAME.c, lesson_files in meson.build) in the tutorial's order,
 * a lesson by id or slug, its variants, and the catalogue as JSON. */
#include "config.h"

#include "ks-json.h"
#include "ks-lesson-files.h"
#include "ks-lesson-private.h"

/* The lesson files' lists (KS_LESSON_FILES, generated from meson.build's
 * lesson_files), one after the other: the tutorial's order. */
#define KS_X_DECLARE(name) extern const KsLesson *const _ks_lessons_##name[];
KS_LESSON_FILES (KS_X_DECLARE)
#undef KS_X_DECLARE

static const KsLesson *const *const lesson_files[] = {
#define KS_X_ENTRY(name) _ks_lessons_##name,
  KS_LESSON_FILES (KS_X_ENTRY)
#undef KS_X_ENTRY
};

static GPtrArray *
registry (void)
{
  static GPtrArray *lessons;

  if (g_once_init_enter (&lessons))
    {
      GPtrArray *all = g_ptr_array_new ();

      for (guint f = 0; f < G_N_ELEMENTS (lesson_files); f++)
        for (guint i = 0; lesson_files[f][i] != NULL; i++)
          g_ptr_array_add (all, (gpointer) lesson_files[f][i]);
      g_once_init_leave (&lessons, all);
    }
  return lessons;
}

const KsLesson *const *
ks_lesson_registry (guint *n)
{
  GPtrArray *lessons = registry ();

  if (n != NULL)
    *n = lessons->len;
  return (const KsLesson *const *) lessons->pdata;
}

const KsLesson *
ks_lesson_lookup (const char *name)
{
  GPtrArray *lessons;

  g_return_val_if_fail (name != NULL, NULL);
  lessons = registry ();
  for (guint i = 0; i < lessons->len; i++)
    {
      const KsLesson *l = g_ptr_array_index (lessons, i);

      if (g_ascii_strcasecmp (l->id, name) == 0 || g_ascii_strcasecmp (l->slug, name) == 0)
        return l;
    }
  return NULL;
}

const KsLessonVariant *
ks_lesson_lookup_variant (const KsLesson *lesson, const char *id)
{
  g_return_val_if_fail (lesson != NULL, NULL);
  if (id == NULL || *id == '\0')
    return &lesson->variants[0];
  for (guint i = 0; i < lesson->n_variants; i++)
    if (g_str_equal (lesson->variants[i].id, id))
      return &lesson->variants[i];
  return NULL;
}

const KsLessonVariant *
ks_lesson_get_book_variant (const KsLesson *lesson)
{
  g_return_val_if_fail (lesson != NULL, NULL);
  for (guint i = 0; i < lesson->n_variants; i++)
    if (lesson->variants[i].book)
      return &lesson->variants[i];
  return NULL;
}

JsonNode *
ks_lesson_registry_to_json (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  GPtrArray *lessons = registry ();

  json_builder_begin_array (b);
  for (guint i = 0; i < lessons->len; i++)
    {
      const KsLesson *l = g_ptr_array_index (lessons, i);

      json_builder_begin_object (b);
      _ks_lesson_member_string (b, "id", l->id);
      _ks_lesson_member_string (b, "slug", l->slug);
      _ks_lesson_member_string (b, "title", l->title);
      _ks_lesson_member_string (b, "explanation", l->explanation);
      _ks_lesson_member_bool (b, "host_only", l->host_only);
      if (l->live_op != NULL)
        {
          json_builder_set_member_name (b, "live");
          json_builder_begin_object (b);
          _ks_lesson_member_string (b, "op", l->live_op);
          ks_json_add_dim3 (b, "block", &l->live_block);
          json_builder_end_object (b);
        }
      json_builder_set_member_name (b, "variants");
      json_builder_begin_array (b);
      for (guint k = 0; k < l->n_variants; k++)
        {
          const KsLessonVariant *v = &l->variants[k];

          json_builder_begin_object (b);
          _ks_lesson_member_string (b, "id", v->id);
          _ks_lesson_member_bool (b, "book", v->book);
          _ks_lesson_member_string (b, "defects", v->defects);
          _ks_lesson_member_string (b, "description", v->description);
          _ks_lesson_member_string (b, "sanitizer_tool", ks_lesson_get_sanitizer_tool (l, v));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}
