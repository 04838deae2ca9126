/* ks-user-kernel-annotations.c: the `//@` annotations (ks-user-kernel.h):
 * parameters, the entry's name, inputs, output, the default launch and
 * dynamic shared memory, each a row of annotation_kinds with the modes it
 * applies to and its reader. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-user-kernel-private.h"

/* C++ keywords, CUDA's built-in variables, and the names the expression
 * wrapper defines: a parameter with one of these names would not compile, or
 * would hide what the user's statements see. */
static const char *const reserved_names[] = {
  "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char16_t",
  "char32_t", "class", "const", "constexpr", "const_cast", "continue", "decltype", "default",
  "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
  "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
  "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public",
  "register", "reinterpret_cast", "return", "short", "signed", "sizeof", "static",
  "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
  "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
  "virtual", "void", "volatile", "wchar_t", "while",
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "printf",
  "x", "y", "width", "height", "in", "in2", "out", "p", "g", "cov",
};

static gboolean
is_reserved_name (const char *name)
{
  if (g_str_has_prefix (name, "ks_") || g_str_has_prefix (name, "Ks")
      || g_str_has_prefix (name, "KS_") || g_str_has_prefix (name, "__"))
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (reserved_names); i++)
    if (g_str_equal (name, reserved_names[i]))
      return TRUE;
  return FALSE;
}

/* A cursor over one annotation's text, which keeps the column of each word. */
typedef struct
{
  const char *p;
  const char *end;
  guint line;
  guint column;   /* of p */
} Cursor;

static void
cursor_advance (Cursor *c, gsize n)
{
  for (gsize i = 0; i < n && c->p < c->end; i++)
    {
      /* count characters, not bytes, like the lexer */
      if (((guchar) *c->p & 0xc0) != 0x80)
        c->column++;
      c->p++;
    }
}

static void
cursor_skip_blanks (Cursor *c)
{
  while (c->p < c->end && g_ascii_isspace (*c->p))
    cursor_advance (c, 1);
}

static gboolean
cursor_at_end (Cursor *c)
{
  cursor_skip_blanks (c);
  return c->p >= c->end;
}

/* The next word: up to a blank or one of [ , ] "; *column gets its start. */
static char *
cursor_word (Cursor *c, guint *column)
{
  const char *start;

  cursor_skip_blanks (c);
  *column = c->column;
  start = c->p;
  while (c->p < c->end && !g_ascii_isspace (*c->p) && strchr ("[,]\"", *c->p) == NULL)
    cursor_advance (c, 1);
  if (c->p == start)
    return NULL;
  return g_strndup (start, c->p - start);
}

/* The rest of the annotation, trimmed. */
static char *
cursor_rest (Cursor *c, guint *column)
{
  gsize len;

  cursor_skip_blanks (c);
  *column = c->column;
  len = c->end - c->p;
  return g_strndup (c->p, len);
}

static gboolean
cursor_take (Cursor *c, char ch)
{
  cursor_skip_blanks (c);
  if (c->p < c->end && *c->p == ch)
    {
      cursor_advance (c, 1);
      return TRUE;
    }
  return FALSE;
}

/* A "quoted" string with \" and \\ escapes; NULL when unterminated. */
static char *
cursor_quoted (Cursor *c)
{
  GString *s = g_string_new (NULL);

  cursor_advance (c, 1);
  while (c->p < c->end && *c->p != '"')
    {
      if (*c->p == '\\' && c->p + 1 < c->end)
        cursor_advance (c, 1);
      g_string_append_c (s, *c->p);
      cursor_advance (c, 1);
    }
  if (c->p >= c->end)
    {
      g_string_free (s, TRUE);
      return NULL;
    }
  cursor_advance (c, 1);
  return g_string_free (s, FALSE);
}

static gboolean
parse_number (const char *word, gboolean integer, double *value)
{
  char *end = NULL;
  double v;

  if (word == NULL)
    return FALSE;
  errno = 0;
  v = g_ascii_strtod (word, &end);
  if (end == word || errno != 0 || !isfinite (v))
    return FALSE;
  if (!integer && (*end == 'f' || *end == 'F'))
    end++;
  if (*end != '\0')
    return FALSE;
  if (integer && (v != floor (v) || v < G_MININT32 || v > G_MAXINT32
                  || strpbrk (word, ".eE") != NULL))
    return FALSE;
  *value = v;
  return TRUE;
}

static char *
keep_string (KsKernelSource *self, char *s)
{
  g_ptr_array_add (self->strings, s);
  return s;
}

/* //@param TYPE NAME DEFAULT [MIN, MAX] "Title" ["Description"] */
static void
parse_param (KsKernelSource *self, Cursor *c, guint keyword_column)
{
  g_autofree char *type_word = NULL;
  g_autofree char *name = NULL;
  g_autofree char *default_word = NULL;
  g_autofree char *title = NULL;
  g_autofree char *description = NULL;
  guint type_col, name_col, default_col, col;
  KsParamSpec spec = { 0 };
  double value = 0;

  type_word = cursor_word (c, &type_col);
  if (type_word == NULL)
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, type_col,
                                      "@param needs a type, a name, a default value, a range and "
                                      "a title: //@param float gain 1.0 [0, 4] \"Gain\"");
      return;
    }
  if (g_str_equal (type_word, "float"))
    spec.type = KS_PARAM_DOUBLE;
  else if (g_str_equal (type_word, "int"))
    spec.type = KS_PARAM_INT;
  else if (g_str_equal (type_word, "bool"))
    spec.type = KS_PARAM_BOOL;
  else
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, type_col,
                                      "unknown parameter type “%s”: a parameter is float, int or "
                                      "bool", type_word);
      return;
    }

  name = cursor_word (c, &name_col);
  if (name == NULL)
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                                      "@param %s needs a name after the type", type_word);
      return;
    }
  if (!_ks_user_kernel_is_identifier (name))
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                                      "“%s” is not a valid parameter name: use letters, digits "
                                      "and _, starting with a letter", name);
      return;
    }
  if (is_reserved_name (name))
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                                      "“%s” cannot name a parameter: it is a C++ keyword or a "
                                      "name the kernel already uses (x, y, width, height, in, "
                                      "in2, out, p, and names starting with ks_ or __)", name);
      return;
    }
  for (guint i = 0; i < self->n_params; i++)
    if (g_str_equal (self->params[i].name, name))
      {
        _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                                        "a parameter named “%s” is already declared: each "
                                        "parameter needs its own name", name);
        return;
      }
  if (self->n_params == KS_OP_MAX_PARAMS)
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, keyword_column,
                                      "too many parameters: a kernel takes at most %d, and “%s” "
                                      "would be number %u", KS_OP_MAX_PARAMS, name,
                                      self->n_params + 1);
      return;
    }

  default_word = cursor_word (c, &default_col);
  if (spec.type == KS_PARAM_BOOL)
    {
      if (default_word != NULL && g_str_equal (default_word, "true"))
        value = 1;
      else if (default_word != NULL && g_str_equal (default_word, "false"))
        value = 0;
      else
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, default_col,
                                          "the default of bool “%s” is true or false, not “%s”",
                                          name, default_word != NULL ? default_word : "");
          return;
        }
      spec.min = 0;
      spec.max = 1;
      cursor_skip_blanks (c);
      if (c->p < c->end && *c->p == '[')
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                                          "bool “%s” takes no range: write //@param bool %s %s "
                                          "\"Title\"", name, name, default_word);
          return;
        }
    }
  else
    {
      gboolean integer = spec.type == KS_PARAM_INT;
      g_autofree char *min_word = NULL;
      g_autofree char *max_word = NULL;
      guint min_col, max_col;
      const char *what = integer ? "a whole number" : "a number";

      if (!parse_number (default_word, integer, &value))
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, default_col,
                                          "the default of %s “%s” must be %s, not “%s”", type_word,
                                          name, what, default_word != NULL ? default_word : "");
          return;
        }
      cursor_skip_blanks (c);
      if (!cursor_take (c, '['))
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                                          "%s “%s” needs a range after its default: [MIN, MAX], "
                                          "for example //@param %s %s %s [0, 10] \"Title\"",
                                          type_word, name, type_word, name, default_word);
          return;
        }
      min_word = cursor_word (c, &min_col);
      if (!parse_number (min_word, integer, &spec.min))
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, min_col,
                                          "the minimum of %s “%s” must be %s, not “%s”", type_word,
                                          name, what, min_word != NULL ? min_word : "");
          return;
        }
      cursor_skip_blanks (c);
      if (!cursor_take (c, ','))
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                                          "a comma must separate the minimum and the maximum of "
                                          "“%s”: [MIN, MAX]", name);
          return;
        }
      max_word = cursor_word (c, &max_col);
      if (!parse_number (max_word, integer, &spec.max))
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, max_col,
                                          "the maximum of %s “%s” must be %s, not “%s”", type_word,
                                          name, what, max_word != NULL ? max_word : "");
          return;
        }
      cursor_skip_blanks (c);
      if (!cursor_take (c, ']'))
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                                          "the range of “%s” must end with ]: [MIN, MAX]", name);
          return;
        }
      if (spec.min > spec.max)
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, min_col,
                                          "the range of “%s” is empty: its minimum %s is above "
                                          "its maximum %s", name, min_word, max_word);
          return;
        }
      if (value < spec.min || value > spec.max)
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, default_col,
                                          "the default of “%s”, %s, is outside its range [%s, %s]",
                                          name, default_word, min_word, max_word);
          return;
        }
    }

  cursor_skip_blanks (c);
  col = c->column;
  if (c->p < c->end && *c->p == '"')
    {
      title = cursor_quoted (c);
      if (title == NULL)
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, col,
                                          "the title of “%s” has no closing quote", name);
          return;
        }
      cursor_skip_blanks (c);
      col = c->column;
      if (c->p < c->end && *c->p == '"')
        {
          description = cursor_quoted (c);
          if (description == NULL)
            {
              _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, col,
                                              "the description of “%s” has no closing quote", name);
              return;
            }
        }
    }
  if (!cursor_at_end (c))
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                                      "unexpected text after the parameter “%s”: its title and "
                                      "description go in double quotes, as in \"Gain\"", name);
      return;
    }

  spec.name = keep_string (self, g_steal_pointer (&name));
  spec.title = keep_string (self, title != NULL ? g_steal_pointer (&title)
                                                : g_strdup (spec.name));
  spec.description = description != NULL ? keep_string (self, g_steal_pointer (&description))
                                          : NULL;
  spec.default_value = value;
  self->params[self->n_params++] = spec;
}

/* One annotation's value, read: a word, or for @kernel the rest of the line. */
typedef struct
{
  Annotations *found;
  guint line;
  const char *keyword;
  guint keyword_col;
  const char *value;
  guint value_col;
} AnnotationValue;

static void
read_kernel (KsKernelSource *self, const AnnotationValue *v)
{
  const char *lt = strchr (v->value, '<');
  g_autofree char *base = g_strstrip (g_strndup (v->value, lt != NULL ? (gsize) (lt - v->value)
                                                                      : strlen (v->value)));
  if (!_ks_user_kernel_is_identifier (base)
      || (lt != NULL && v->value[strlen (v->value) - 1] != '>'))
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                      "“%s” is not a kernel name: write the name of a __global__ "
                                      "function, with its template arguments if it has any (add "
                                      "or scale<float>)", v->value);
      return;
    }
  v->found->kernel = g_strdup (v->value);
  v->found->kernel_line = v->line;
  v->found->kernel_column = v->value_col;
}

static void
read_inputs (KsKernelSource *self, const AnnotationValue *v)
{
  if (g_str_equal (v->value, "1") || g_str_equal (v->value, "2"))
    self->n_inputs = v->value[0] - '0';
  else
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@inputs is 1 or 2, not “%s”", v->value);
  v->found->inputs_line = v->line;
  v->found->inputs_column = v->keyword_col;
}

static void
read_output (KsKernelSource *self, const AnnotationValue *v)
{
  if (g_str_equal (v->value, "rgba"))
    self->output_format = KS_FORMAT_RGBA8;
  else if (g_str_equal (v->value, "gray"))
    self->output_format = KS_FORMAT_GRAY8;
  else
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@output is rgba or gray, not “%s”", v->value);
}

/* @block and @grid; only the grid may be auto. */
static void
read_dim3 (KsKernelSource *self, const AnnotationValue *v, gboolean grid)
{
  KsDim3 d;

  if (grid && g_str_equal (v->value, "auto"))
    self->launch.auto_grid = TRUE;
  else if (ks_dim3_parse (v->value, &d, NULL))
    {
      if (!grid)
        self->launch.block = d;
      else
        {
          self->launch.grid = d;
          self->launch.auto_grid = FALSE;
        }
    }
  else
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@%s takes one to three positive whole numbers such as "
                                    "16x16, 256 or 32x8x1%s, not “%s”", v->keyword,
                                    grid ? " (or auto)" : "", v->value);
}

static void
read_block (KsKernelSource *self, const AnnotationValue *v)
{
  read_dim3 (self, v, FALSE);
}

static void
read_grid (KsKernelSource *self, const AnnotationValue *v)
{
  read_dim3 (self, v, TRUE);
}

static void
read_mode (KsKernelSource *self, const AnnotationValue *v)
{
  if (g_str_equal (v->value, "per-pixel"))
    self->launch.mode = KS_LAUNCH_PER_PIXEL;
  else if (g_str_equal (v->value, "grid-stride"))
    self->launch.mode = KS_LAUNCH_GRID_STRIDE;
  else
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@mode is per-pixel or grid-stride, not “%s”", v->value);
}

static void
read_pixels_per_thread (KsKernelSource *self, const AnnotationValue *v)
{
  double n = 0;

  if (parse_number (v->value, TRUE, &n) && (n == 1 || n == 2 || n == 4 || n == 8 || n == 16))
    self->launch.pixels_per_thread = (guint) n;
  else
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@pixels-per-thread is 1, 2, 4, 8 or 16, not “%s”", v->value);
}

static void
read_shared (KsKernelSource *self, const AnnotationValue *v)
{
  char *end = NULL;
  guint64 n;

  errno = 0;
  n = g_ascii_strtoull (v->value, &end, 10);
  if (!g_ascii_isdigit (v->value[0]) || *end != '\0' || errno != 0)
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@shared takes a number of bytes, such as 4096, not “%s”",
                                    v->value);
  else if (n > KS_USER_MAX_SHARED)
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, v->line, v->value_col,
                                    "@shared %s is more shared memory than any GPU gives a "
                                    "block: at most %u bytes", v->value, KS_USER_MAX_SHARED);
  else
    self->dynamic_shared = n;
}

/* The modes an annotation means something in (1 << KsKernelMode). */
#define ALL_MODES (1 << KS_KERNEL_MODE_EXPRESSION | 1 << KS_KERNEL_MODE_IMAGE \
                   | 1 << KS_KERNEL_MODE_ANY)
#define IMAGE_MODES (1 << KS_KERNEL_MODE_EXPRESSION | 1 << KS_KERNEL_MODE_IMAGE)

/* In the order messages list them. An annotation either reads its own words
 * and may be given many times (read_words: @param), or takes one value, once
 * (read_value; rest: the value is the rest of the line). A new one is a row
 * here and its value in AnnotationKind. */
static const struct
{
  const char *keyword;
  guint modes;
  void (*read_words) (KsKernelSource *self, Cursor *c, guint keyword_column);
  void (*read_value) (KsKernelSource *self, const AnnotationValue *v);
  gboolean rest;
} annotation_kinds[N_ANN] = {
  [ANN_PARAM] = { "param", ALL_MODES, parse_param, NULL, FALSE },
  [ANN_KERNEL] = { "kernel", 1 << KS_KERNEL_MODE_IMAGE | 1 << KS_KERNEL_MODE_ANY, NULL,
                   read_kernel, TRUE },
  [ANN_INPUTS] = { "inputs", IMAGE_MODES, NULL, read_inputs, FALSE },
  [ANN_OUTPUT] = { "output", IMAGE_MODES, NULL, read_output, FALSE },
  [ANN_BLOCK] = { "block", ALL_MODES, NULL, read_block, FALSE },
  [ANN_GRID] = { "grid", ALL_MODES, NULL, read_grid, FALSE },
  [ANN_MODE] = { "mode", ALL_MODES, NULL, read_mode, FALSE },
  [ANN_PPT] = { "pixels-per-thread", IMAGE_MODES, NULL, read_pixels_per_thread, FALSE },
  [ANN_SHARED] = { "shared", ALL_MODES, NULL, read_shared, FALSE },
};

/* "@param, @kernel, … or @shared": every annotation the table knows. */
static char *
annotation_names (void)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < N_ANN; i++)
    g_string_append_printf (s, "%s@%s", i == 0 ? "" : i + 1 == N_ANN ? " or " : ", ",
                            annotation_kinds[i].keyword);
  return g_string_free (s, FALSE);
}

void
_ks_user_kernel_parse_annotation (KsKernelSource *self, const Annotation *a, Annotations *found)
{
  Cursor c = { a->start, a->start + a->len, a->line, a->column };
  g_autofree char *keyword = NULL;
  g_autofree char *value = NULL;
  guint keyword_col, value_col;
  AnnotationKind kind = N_ANN;
  AnnotationValue v;

  keyword = cursor_word (&c, &keyword_col);
  for (guint i = 0; keyword != NULL && i < N_ANN; i++)
    if (g_str_equal (keyword, annotation_kinds[i].keyword))
      kind = (AnnotationKind) i;
  if (kind == N_ANN)
    {
      g_autofree char *names = annotation_names ();

      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, keyword_col,
                                      "unknown annotation “@%s”: expected %s",
                                      keyword != NULL ? keyword : "", names);
      return;
    }
  if ((annotation_kinds[kind].modes & (1u << self->mode)) == 0)
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_WARNING, a->line, keyword_col,
                                      "@%s has no effect on a kernel of the %s mode", keyword,
                                      ks_kernel_mode_name (self->mode));
      return;
    }
  if (annotation_kinds[kind].read_words != NULL)
    {
      annotation_kinds[kind].read_words (self, &c, keyword_col);
      return;
    }
  if (found->seen_line[kind] != 0)
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, keyword_col,
                                      "@%s is given twice: the first is on line %u", keyword,
                                      found->seen_line[kind]);
      return;
    }
  found->seen_line[kind] = a->line;

  value = annotation_kinds[kind].rest ? cursor_rest (&c, &value_col)
                                      : cursor_word (&c, &value_col);
  if (value == NULL || *value == '\0')
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, keyword_col,
                                      "@%s needs a value after it", keyword);
      return;
    }
  if (!annotation_kinds[kind].rest && !cursor_at_end (&c))
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, c.column,
                                      "unexpected text after @%s %s: it takes one value",
                                      keyword, value);
      return;
    }

  v.found = found;
  v.line = a->line;
  v.keyword = keyword;
  v.keyword_col = keyword_col;
  v.value = value;
  v.value_col = value_col;
  annotation_kinds[kind].read_value (self, &v);
}
