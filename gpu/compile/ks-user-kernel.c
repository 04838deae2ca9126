/* ks-user-kernel.c: the user's kernel source — annotations, the entry
 * point's signature, and the translation unit NVRTC compiles.
 *
 * The text is read by a small C lexer that knows comments, string and
 * character literals and preprocessor lines, so that `__global__` inside any
 * of them is not taken for a kernel and annotations are found only in real
 * line comments. Nothing here understands C++ beyond what a signature needs:
 * the compiler itself reports everything else, at the user's lines. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "ks-error.h"
#include "ks-gpu-resources.h"
#include "ks-user-kernel.h"

/* The largest dynamic shared memory any supported device grants a block
 * (sm_90: 227 KB); the launch checks the device's own limit. */
#define KS_USER_MAX_SHARED (227u * 1024u)

/* The generated struct ks_params is 8-byte aligned, whatever its members,
 * so that it lands at the same offset whether the launcher aligns it to its
 * widest member or to 8. */
#define KS_PARAMS_ALIGN 8

/* The file name the generated lines after the user's text belong to. */
#define KS_GENERATED_FILE "ks-generated.cu"

struct _KsKernelSource
{
  gint ref_count;
  KsKernelMode mode;
  char *file_name;
  char *text;

  GPtrArray *diagnostics;   /* KsDiagnostic */
  GPtrArray *args;          /* KsKernelArg */
  char *entry;

  KsParamSpec params[KS_OP_MAX_PARAMS];
  guint n_params;
  GPtrArray *strings;       /* the specs' names and titles */

  guint n_inputs;
  KsFormat output_format;
  KsLaunchConfig launch;
  guint64 dynamic_shared;
};

/* ---- modes and arguments -------------------------------------------------- */

static const char *const mode_names[] = { "expression", "image", "any" };

const char *
ks_kernel_mode_name (KsKernelMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), NULL);
  return mode_names[mode];
}

gboolean
ks_kernel_mode_parse (const char *name, KsKernelMode *mode)
{
  g_return_val_if_fail (name != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_ascii_strcasecmp (name, mode_names[i]) == 0)
      {
        if (mode != NULL)
          *mode = (KsKernelMode) i;
        return TRUE;
      }
  return FALSE;
}

void
ks_kernel_arg_free (KsKernelArg *arg)
{
  if (arg == NULL)
    return;
  g_free (arg->name);
  g_free (arg->type_text);
  g_free (arg);
}

/* ---- diagnostics ---------------------------------------------------------- */

static void add_diagnostic (KsKernelSource *self, KsDiagnosticSeverity severity, guint line,
                            guint column, const char *format, ...) G_GNUC_PRINTF (5, 6);

static void
add_diagnostic (KsKernelSource *self, KsDiagnosticSeverity severity, guint line, guint column,
                const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->diagnostics,
                   ks_diagnostic_new (severity, self->file_name, line, column, message));
}

/* ---- the lexer ------------------------------------------------------------ */

typedef enum
{
  TOK_IDENT,
  TOK_NUMBER,
  TOK_STRING,
  TOK_CHAR,
  TOK_PUNCT,
} TokKind;

typedef struct
{
  TokKind kind;
  const char *start;
  gsize len;
  guint line;
  guint column;
} Token;

typedef struct
{
  const char *start;   /* the text after "//@" */
  gsize len;
  guint line;
  guint column;        /* of the first character after "//@" */
} Annotation;

typedef struct
{
  const char *text;
  const char *p;
  const char *line_start;
  guint line;
  gboolean line_has_code;   /* something other than blanks before p on this line */
  GArray *tokens;           /* Token */
  GArray *annotations;      /* Annotation */
} Lexer;

static guint
lexer_column (const Lexer *lx, const char *at)
{
  return (guint) g_utf8_strlen (lx->line_start, at - lx->line_start) + 1;
}

static void
lexer_newline (Lexer *lx)
{
  /* lx->p is on the '\n' */
  lx->p++;
  lx->line++;
  lx->line_start = lx->p;
  lx->line_has_code = FALSE;
}

/* Skips a string or character literal opened at lx->p, escapes included;
 * an unterminated one ends at the line's end. */
static void
lexer_skip_quoted (Lexer *lx)
{
  char quote = *lx->p++;

  while (*lx->p != '\0' && *lx->p != quote && *lx->p != '\n')
    {
      if (*lx->p == '\\' && lx->p[1] != '\0')
        {
          if (lx->p[1] == '\n')
            {
              lx->p++;
              lexer_newline (lx);
              continue;
            }
          lx->p++;
        }
      lx->p++;
    }
  if (*lx->p == quote)
    lx->p++;
}

static void
lexer_skip_block_comment (Lexer *lx)
{
  lx->p += 2;
  while (*lx->p != '\0' && !(lx->p[0] == '*' && lx->p[1] == '/'))
    {
      if (*lx->p == '\n')
        lexer_newline (lx);
      else
        lx->p++;
    }
  if (*lx->p != '\0')
    lx->p += 2;
}

static void
lexer_line_comment (Lexer *lx)
{
  const char *start = lx->p + 2;
  const char *end = start;

  while (*end != '\0' && *end != '\n')
    end++;
  if (*start == '@')
    {
      Annotation a;

      a.start = start + 1;
      a.len = end - a.start;
      while (a.len > 0 && g_ascii_isspace (a.start[a.len - 1]))
        a.len--;
      a.line = lx->line;
      a.column = lexer_column (lx, a.start);
      g_array_append_val (lx->annotations, a);
    }
  lx->p = end;
}

static gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

static void
lex (Lexer *lx, const char *text)
{
  gboolean in_directive = FALSE;

  lx->text = text;
  lx->p = text;
  lx->line_start = text;
  lx->line = 1;
  lx->line_has_code = FALSE;
  lx->tokens = g_array_new (FALSE, FALSE, sizeof (Token));
  lx->annotations = g_array_new (FALSE, FALSE, sizeof (Annotation));

  while (*lx->p != '\0')
    {
      const char *p = lx->p;
      Token t;

      if (*p == '\n')
        {
          in_directive = FALSE;
          lexer_newline (lx);
          continue;
        }
      if (*p == '\\' && p[1] == '\n')
        {
          /* a continued line: a directive goes on */
          lx->p++;
          lexer_newline (lx);
          lx->line_has_code = TRUE;
          continue;
        }
      if (g_ascii_isspace (*p))
        {
          lx->p++;
          continue;
        }
      if (p[0] == '/' && p[1] == '/')
        {
          lexer_line_comment (lx);
          continue;
        }
      if (p[0] == '/' && p[1] == '*')
        {
          lexer_skip_block_comment (lx);
          continue;
        }
      if (*p == '#' && !lx->line_has_code)
        {
          in_directive = TRUE;
          lx->p++;
          continue;
        }

      lx->line_has_code = TRUE;
      t.start = p;
      t.line = lx->line;
      t.column = lexer_column (lx, p);
      if (*p == '"' || *p == '\'')
        {
          t.kind = *p == '"' ? TOK_STRING : TOK_CHAR;
          lexer_skip_quoted (lx);
        }
      else if (is_ident_start (*p))
        {
          t.kind = TOK_IDENT;
          while (is_ident_char (*lx->p))
            lx->p++;
          /* u8"…", L'…': the prefix belongs to the literal */
          if (*lx->p == '"' || *lx->p == '\'')
            {
              t.kind = *lx->p == '"' ? TOK_STRING : TOK_CHAR;
              lexer_skip_quoted (lx);
            }
        }
      else if (g_ascii_isdigit (*p) || (*p == '.' && g_ascii_isdigit (p[1])))
        {
          t.kind = TOK_NUMBER;
          while (is_ident_char (*lx->p) || *lx->p == '.'
                 || ((*lx->p == '+' || *lx->p == '-')
                     && (lx->p[-1] == 'e' || lx->p[-1] == 'E' || lx->p[-1] == 'p'
                         || lx->p[-1] == 'P')))
            lx->p++;
        }
      else if ((guchar) *p >= 0x80)
        {
          /* One character outside ASCII, whole: a token cut inside its
           * UTF-8 bytes would put invalid text into the messages. */
          t.kind = TOK_PUNCT;
          lx->p = g_utf8_next_char (p);
        }
      else
        {
          t.kind = TOK_PUNCT;
          lx->p += p[0] == ':' && p[1] == ':' ? 2 : 1;
        }
      t.len = lx->p - p;
      if (!in_directive)
        g_array_append_val (lx->tokens, t);
    }
}

static void
lexer_clear (Lexer *lx)
{
  g_clear_pointer (&lx->tokens, g_array_unref);
  g_clear_pointer (&lx->annotations, g_array_unref);
}

static gboolean
tok_is (const Token *t, const char *s)
{
  return t->len == strlen (s) && memcmp (t->start, s, t->len) == 0;
}

static char *
tok_dup (const Token *t)
{
  return g_strndup (t->start, t->len);
}

/* ---- names ---------------------------------------------------------------- */

static gboolean
is_identifier (const char *s)
{
  if (!is_ident_start (*s))
    return FALSE;
  for (s++; *s != '\0'; s++)
    if (!is_ident_char (*s))
      return FALSE;
  return TRUE;
}

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

/* ---- annotations ---------------------------------------------------------- */

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

static const char *
param_type_name (KsParamType type)
{
  switch (type)
    {
    case KS_PARAM_DOUBLE:
      return "float";
    case KS_PARAM_BOOL:
      return "bool";
    case KS_PARAM_INT:
    case KS_PARAM_CHOICE:
    default:
      return "int";
    }
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
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, type_col,
                      "@param needs a type, a name, a default value, a range and a title: "
                      "//@param float gain 1.0 [0, 4] \"Gain\"");
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
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, type_col,
                      "unknown parameter type “%s”: a parameter is float, int or bool",
                      type_word);
      return;
    }

  name = cursor_word (c, &name_col);
  if (name == NULL)
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                      "@param %s needs a name after the type", type_word);
      return;
    }
  if (!is_identifier (name))
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                      "“%s” is not a valid parameter name: use letters, digits and _, "
                      "starting with a letter", name);
      return;
    }
  if (is_reserved_name (name))
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                      "“%s” cannot name a parameter: it is a C++ keyword or a name the kernel "
                      "already uses (x, y, width, height, in, in2, out, p, and names starting "
                      "with ks_ or __)", name);
      return;
    }
  for (guint i = 0; i < self->n_params; i++)
    if (g_str_equal (self->params[i].name, name))
      {
        add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, name_col,
                        "a parameter named “%s” is already declared: each parameter needs its "
                        "own name", name);
        return;
      }
  if (self->n_params == KS_OP_MAX_PARAMS)
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, keyword_column,
                      "too many parameters: a kernel takes at most %d, and “%s” would be "
                      "number %u", KS_OP_MAX_PARAMS, name, self->n_params + 1);
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
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, default_col,
                          "the default of bool “%s” is true or false, not “%s”", name,
                          default_word != NULL ? default_word : "");
          return;
        }
      spec.min = 0;
      spec.max = 1;
      cursor_skip_blanks (c);
      if (c->p < c->end && *c->p == '[')
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                          "bool “%s” takes no range: write //@param bool %s %s \"Title\"",
                          name, name, default_word);
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
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, default_col,
                          "the default of %s “%s” must be %s, not “%s”", type_word, name, what,
                          default_word != NULL ? default_word : "");
          return;
        }
      cursor_skip_blanks (c);
      if (!cursor_take (c, '['))
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                          "%s “%s” needs a range after its default: [MIN, MAX], for example "
                          "//@param %s %s %s [0, 10] \"Title\"",
                          type_word, name, type_word, name, default_word);
          return;
        }
      min_word = cursor_word (c, &min_col);
      if (!parse_number (min_word, integer, &spec.min))
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, min_col,
                          "the minimum of %s “%s” must be %s, not “%s”", type_word, name, what,
                          min_word != NULL ? min_word : "");
          return;
        }
      cursor_skip_blanks (c);
      if (!cursor_take (c, ','))
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                          "a comma must separate the minimum and the maximum of “%s”: "
                          "[MIN, MAX]", name);
          return;
        }
      max_word = cursor_word (c, &max_col);
      if (!parse_number (max_word, integer, &spec.max))
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, max_col,
                          "the maximum of %s “%s” must be %s, not “%s”", type_word, name, what,
                          max_word != NULL ? max_word : "");
          return;
        }
      cursor_skip_blanks (c);
      if (!cursor_take (c, ']'))
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                          "the range of “%s” must end with ]: [MIN, MAX]", name);
          return;
        }
      if (spec.min > spec.max)
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, min_col,
                          "the range of “%s” is empty: its minimum %s is above its maximum %s",
                          name, min_word, max_word);
          return;
        }
      if (value < spec.min || value > spec.max)
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, default_col,
                          "the default of “%s”, %s, is outside its range [%s, %s]", name,
                          default_word, min_word, max_word);
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
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, col,
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
              add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, col,
                              "the description of “%s” has no closing quote", name);
              return;
            }
        }
    }
  if (!cursor_at_end (c))
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, c->line, c->column,
                      "unexpected text after the parameter “%s”: its title and description go "
                      "in double quotes, as in \"Gain\"", name);
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

typedef enum
{
  ANN_PARAM,
  ANN_KERNEL,
  ANN_INPUTS,
  ANN_OUTPUT,
  ANN_BLOCK,
  ANN_GRID,
  ANN_MODE,
  ANN_PPT,
  ANN_SHARED,
  N_ANN,
} AnnotationKind;

/* Which modes each annotation means something in (1 << KsKernelMode). */
static const struct
{
  const char *keyword;
  guint modes;
} annotation_kinds[N_ANN] = {
  [ANN_PARAM] = { "param", 7 },
  [ANN_KERNEL] = { "kernel", 1 << KS_KERNEL_MODE_IMAGE | 1 << KS_KERNEL_MODE_ANY },
  [ANN_INPUTS] = { "inputs", 1 << KS_KERNEL_MODE_EXPRESSION | 1 << KS_KERNEL_MODE_IMAGE },
  [ANN_OUTPUT] = { "output", 1 << KS_KERNEL_MODE_EXPRESSION | 1 << KS_KERNEL_MODE_IMAGE },
  [ANN_BLOCK] = { "block", 7 },
  [ANN_GRID] = { "grid", 7 },
  [ANN_MODE] = { "mode", 7 },
  [ANN_PPT] = { "pixels-per-thread", 1 << KS_KERNEL_MODE_EXPRESSION | 1 << KS_KERNEL_MODE_IMAGE },
  [ANN_SHARED] = { "shared", 7 },
};

typedef struct
{
  guint seen_line[N_ANN];   /* 0: not seen */
  char *kernel;             /* //@kernel's name, as written */
  guint kernel_line;
  guint kernel_column;
  guint inputs_line;
  guint inputs_column;
} Annotations;

static void
parse_annotation (KsKernelSource *self, const Annotation *a, Annotations *found)
{
  Cursor c = { a->start, a->start + a->len, a->line, a->column };
  g_autofree char *keyword = NULL;
  g_autofree char *value = NULL;
  guint keyword_col, value_col;
  AnnotationKind kind = N_ANN;

  keyword = cursor_word (&c, &keyword_col);
  for (guint i = 0; keyword != NULL && i < N_ANN; i++)
    if (g_str_equal (keyword, annotation_kinds[i].keyword))
      kind = (AnnotationKind) i;
  if (kind == N_ANN)
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, keyword_col,
                      "unknown annotation “@%s”: expected @param, @kernel, @inputs, @output, "
                      "@block, @grid, @mode, @pixels-per-thread or @shared",
                      keyword != NULL ? keyword : "");
      return;
    }
  if ((annotation_kinds[kind].modes & (1u << self->mode)) == 0)
    {
      add_diagnostic (self, KS_DIAGNOSTIC_WARNING, a->line, keyword_col,
                      "@%s has no effect on a kernel of the %s mode", keyword,
                      ks_kernel_mode_name (self->mode));
      return;
    }
  if (kind == ANN_PARAM)
    {
      parse_param (self, &c, keyword_col);
      return;
    }
  if (found->seen_line[kind] != 0)
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, keyword_col,
                      "@%s is given twice: the first is on line %u", keyword,
                      found->seen_line[kind]);
      return;
    }
  found->seen_line[kind] = a->line;

  value = kind == ANN_KERNEL ? cursor_rest (&c, &value_col) : cursor_word (&c, &value_col);
  if (value == NULL || *value == '\0')
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, keyword_col,
                      "@%s needs a value after it", keyword);
      return;
    }
  if (kind != ANN_KERNEL && !cursor_at_end (&c))
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, c.column,
                      "unexpected text after @%s %s: it takes one value", keyword, value);
      return;
    }

  switch (kind)
    {
    case ANN_KERNEL:
      {
        const char *lt = strchr (value, '<');
        g_autofree char *base = g_strstrip (g_strndup (value, lt != NULL ? (gsize) (lt - value)
                                                                         : strlen (value)));
        if (!is_identifier (base) || (lt != NULL && value[strlen (value) - 1] != '>'))
          {
            add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                            "“%s” is not a kernel name: write the name of a __global__ function, "
                            "with its template arguments if it has any (add or scale<float>)",
                            value);
            return;
          }
        found->kernel = g_steal_pointer (&value);
        found->kernel_line = a->line;
        found->kernel_column = value_col;
      }
      break;
    case ANN_INPUTS:
      if (g_str_equal (value, "1") || g_str_equal (value, "2"))
        self->n_inputs = value[0] - '0';
      else
        add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                        "@inputs is 1 or 2, not “%s”", value);
      found->inputs_line = a->line;
      found->inputs_column = keyword_col;
      break;
    case ANN_OUTPUT:
      if (g_str_equal (value, "rgba"))
        self->output_format = KS_FORMAT_RGBA8;
      else if (g_str_equal (value, "gray"))
        self->output_format = KS_FORMAT_GRAY8;
      else
        add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                        "@output is rgba or gray, not “%s”", value);
      break;
    case ANN_BLOCK:
    case ANN_GRID:
      {
        KsDim3 d;
        if (kind == ANN_GRID && g_str_equal (value, "auto"))
          self->launch.auto_grid = TRUE;
        else if (ks_dim3_parse (value, &d, NULL))
          {
            if (kind == ANN_BLOCK)
              self->launch.block = d;
            else
              {
                self->launch.grid = d;
                self->launch.auto_grid = FALSE;
              }
          }
        else
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                          "@%s takes one to three positive whole numbers such as 16x16, 256 or "
                          "32x8x1%s, not “%s”", keyword, kind == ANN_GRID ? " (or auto)" : "",
                          value);
      }
      break;
    case ANN_MODE:
      if (g_str_equal (value, "per-pixel"))
        self->launch.mode = KS_LAUNCH_PER_PIXEL;
      else if (g_str_equal (value, "grid-stride"))
        self->launch.mode = KS_LAUNCH_GRID_STRIDE;
      else
        add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                        "@mode is per-pixel or grid-stride, not “%s”", value);
      break;
    case ANN_PPT:
      {
        double v = 0;
        if (parse_number (value, TRUE, &v) && (v == 1 || v == 2 || v == 4 || v == 8 || v == 16))
          self->launch.pixels_per_thread = (guint) v;
        else
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                          "@pixels-per-thread is 1, 2, 4, 8 or 16, not “%s”", value);
      }
      break;
    case ANN_SHARED:
      {
        char *end = NULL;
        guint64 v;

        errno = 0;
        v = g_ascii_strtoull (value, &end, 10);
        if (!g_ascii_isdigit (value[0]) || *end != '\0' || errno != 0)
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                          "@shared takes a number of bytes, such as 4096, not “%s”", value);
        else if (v > KS_USER_MAX_SHARED)
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, a->line, value_col,
                          "@shared %s is more shared memory than any GPU gives a block: at most "
                          "%u bytes", value, KS_USER_MAX_SHARED);
        else
          self->dynamic_shared = v;
      }
      break;
    case ANN_PARAM:
    case N_ANN:
    default:
      g_assert_not_reached ();
    }
}

/* ---- signatures ----------------------------------------------------------- */

typedef struct
{
  char *name;
  guint name_index;     /* of the name's token */
  guint open;           /* the token index of the parameter list's '(' and ')' */
  guint close;
  gboolean is_template;
  gboolean has_body;
} KernelDecl;

static void
kernel_decl_clear (KernelDecl *d)
{
  g_free (d->name);
}

/* The index of the bracket that closes the one at `open`, counting ( [ { and
 * <; G_MAXUINT when it is not closed. */
static guint
match_close (const GArray *tokens, guint open)
{
  gint depth = 0;

  for (guint i = open; i < tokens->len; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (t->kind != TOK_PUNCT)
        continue;
      if (strchr ("([{<", t->start[0]) != NULL && t->len == 1)
        depth++;
      else if (strchr (")]}>", t->start[0]) != NULL && t->len == 1)
        {
          depth--;
          if (depth == 0)
            return i;
        }
    }
  return G_MAXUINT;
}

/* Attributes with arguments that may stand between __global__ and the name. */
static gboolean
is_attribute (const Token *t)
{
  return tok_is (t, "__launch_bounds__") || tok_is (t, "__attribute__")
         || tok_is (t, "__cluster_dims__") || tok_is (t, "__maxnreg__")
         || tok_is (t, "__declspec") || tok_is (t, "alignas");
}

/* Whether the declaration whose specifiers end just before `at` (walking
 * back over specifiers) starts with template <…>. */
static gboolean
declared_as_template (const GArray *tokens, guint at)
{
  gint i = (gint) at - 1;

  while (i >= 0)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (t->kind == TOK_IDENT && (tok_is (t, "static") || tok_is (t, "inline")
                                   || tok_is (t, "extern") || tok_is (t, "void")
                                   || tok_is (t, "__noinline__") || tok_is (t, "__forceinline__")
                                   || tok_is (t, "__host__") || tok_is (t, "__device__")))
        i--;
      else if (t->kind == TOK_STRING)   /* extern "C" */
        i--;
      else if (tok_is (t, ">"))
        {
          gint depth = 0;
          for (; i >= 0; i--)
            {
              const Token *u = &g_array_index (tokens, Token, i);
              if (tok_is (u, ">"))
                depth++;
              else if (tok_is (u, "<") && --depth == 0)
                break;
            }
          return i >= 1 && tok_is (&g_array_index (tokens, Token, i - 1), "template");
        }
      else
        return FALSE;
    }
  return FALSE;
}

/* Every __global__ function, declared or defined, in the order they appear. */
static GArray *
find_kernels (const GArray *tokens)
{
  GArray *decls = g_array_new (FALSE, TRUE, sizeof (KernelDecl));

  g_array_set_clear_func (decls, (GDestroyNotify) kernel_decl_clear);
  for (guint i = 0; i < tokens->len; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      KernelDecl d = { 0 };
      guint j;

      if (t->kind != TOK_IDENT || !tok_is (t, "__global__"))
        continue;
      d.is_template = declared_as_template (tokens, i);
      for (j = i + 1; j + 1 < tokens->len; j++)
        {
          const Token *u = &g_array_index (tokens, Token, j);
          const Token *next = &g_array_index (tokens, Token, j + 1);

          if (u->kind == TOK_IDENT && is_attribute (u) && tok_is (next, "("))
            {
              j = match_close (tokens, j + 1);
              if (j == G_MAXUINT)
                break;
              continue;
            }
          if (u->kind == TOK_IDENT && tok_is (next, "("))
            break;
          if (u->kind == TOK_PUNCT && !tok_is (u, "::"))
            {
              j = G_MAXUINT;
              break;
            }
        }
      if (j == G_MAXUINT || j + 1 >= tokens->len)
        continue;
      d.name_index = j;
      d.name = tok_dup (&g_array_index (tokens, Token, j));
      d.open = j + 1;
      d.close = match_close (tokens, d.open);
      if (d.close == G_MAXUINT)
        {
          g_free (d.name);
          continue;
        }
      for (guint k = d.close + 1; k < tokens->len; k++)
        {
          const Token *u = &g_array_index (tokens, Token, k);
          if (tok_is (u, "{"))
            {
              d.has_body = TRUE;
              break;
            }
          if (tok_is (u, ";") || tok_is (u, "}"))
            break;
        }
      g_array_append_val (decls, d);
      i = d.close;
    }
  return decls;
}

static gboolean
is_qualifier (const Token *t)
{
  return tok_is (t, "const") || tok_is (t, "volatile") || tok_is (t, "__restrict__")
         || tok_is (t, "__restrict") || tok_is (t, "restrict") || tok_is (t, "struct")
         || tok_is (t, "__grid_constant__");
}

/* "const float *", "float *__restrict__", "unsigned int". */
static char *
type_text (const GArray *tokens, guint from, guint to, guint skip)
{
  GString *s = g_string_new (NULL);
  char prev = 0;

  for (guint i = from; i < to; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (i == skip)
        continue;
      if (s->len > 0 && prev != '*' && prev != '&' && prev != ':' && !tok_is (t, "::"))
        g_string_append_c (s, ' ');
      g_string_append_len (s, t->start, t->len);
      prev = t->start[t->len - 1];
    }
  return g_string_free (s, FALSE);
}

static KsKernelArg *
parse_arg (KsKernelSource *self, const GArray *tokens, guint from, guint to, guint number,
           const char *kernel)
{
  KsKernelArg *arg;
  guint name_index = G_MAXUINT;
  guint end = to;
  guint n_stars = 0, first_star = G_MAXUINT;
  gboolean const_before_star = FALSE, const_anywhere = FALSE, other = FALSE;
  GString *base;

  /* a default argument: "int n = 4" */
  for (guint i = from; i < to; i++)
    if (tok_is (&g_array_index (tokens, Token, i), "="))
      {
        end = i;
        break;
      }
  for (guint i = end; i > from; i--)
    {
      const Token *t = &g_array_index (tokens, Token, i - 1);
      if (tok_is (t, "]"))
        {
          /* float a[] */
          while (i > from && !tok_is (&g_array_index (tokens, Token, i - 1), "["))
            i--;
          n_stars++;
          continue;
        }
      if (t->kind == TOK_IDENT && !is_qualifier (t) && i - 1 > from)
        name_index = i - 1;
      break;
    }

  arg = g_new0 (KsKernelArg, 1);
  if (name_index == G_MAXUINT)
    {
      const Token *t = &g_array_index (tokens, Token, from);
      arg->name = g_strdup_printf ("arg%u", number);
      arg->line = t->line;
      arg->column = t->column;
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, t->line, t->column,
                      "argument %u of “%s” has no name: name it so that it can be bound",
                      number, kernel);
    }
  else
    {
      const Token *t = &g_array_index (tokens, Token, name_index);
      arg->name = tok_dup (t);
      arg->line = t->line;
      arg->column = t->column;
    }
  arg->type_text = type_text (tokens, from, end, name_index);

  base = g_string_new (NULL);
  for (guint i = from; i < end; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (i == name_index)
        continue;
      if (tok_is (t, "*") || tok_is (t, "["))
        {
          if (first_star == G_MAXUINT)
            first_star = i;
          n_stars += tok_is (t, "*");
          continue;
        }
      if (tok_is (t, "]"))
        continue;
      if (tok_is (t, "const"))
        {
          const_anywhere = TRUE;
          if (first_star == G_MAXUINT)
            const_before_star = TRUE;
          continue;
        }
      if (is_qualifier (t))
        continue;
      if (first_star != G_MAXUINT || t->kind != TOK_IDENT)
        {
          other = TRUE;
          continue;
        }
      if (base->len > 0)
        g_string_append_c (base, ' ');
      g_string_append_len (base, t->start, t->len);
    }
  if (first_star != G_MAXUINT && n_stars == 0)
    n_stars = 1;
  arg->pointer = n_stars > 0;
  arg->is_const = arg->pointer ? const_before_star : const_anywhere;
  if (other || n_stars > 1 || base->len == 0 || !ks_elem_type_parse (base->str, &arg->type))
    arg->type = KS_ELEM_OTHER;
  g_string_free (base, TRUE);
  return arg;
}

static void
parse_args (KsKernelSource *self, const GArray *tokens, const KernelDecl *d)
{
  guint start = d->open + 1;
  gint depth = 0;
  guint number = 1;

  /* (void) and () take nothing */
  if (d->close == d->open + 1
      || (d->close == d->open + 2 && tok_is (&g_array_index (tokens, Token, d->open + 1), "void")))
    return;
  for (guint i = d->open + 1; i <= d->close; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (i == d->close || (depth == 0 && tok_is (t, ",")))
        {
          if (i > start)
            {
              KsKernelArg *arg = parse_arg (self, tokens, start, i, number++, d->name);

              /* Bindings name arguments: two of one name cannot be told apart. */
              for (guint j = 0; j < self->args->len; j++)
                {
                  const KsKernelArg *other = g_ptr_array_index (self->args, j);
                  if (g_strcmp0 (other->name, arg->name) == 0)
                    {
                      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, arg->line, arg->column,
                                      "“%s” names two arguments of %s: give each its own name",
                                      arg->name, d->name);
                      break;
                    }
                }
              g_ptr_array_add (self->args, arg);
            }
          start = i + 1;
          continue;
        }
      if (t->len == 1 && strchr ("([{<", t->start[0]) != NULL)
        depth++;
      else if (t->len == 1 && strchr (")]}>", t->start[0]) != NULL)
        depth--;
    }
}

static char *
kernel_names (const GArray *decls)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < decls->len; i++)
    {
      const KernelDecl *d = &g_array_index (decls, KernelDecl, i);
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", d->name);
    }
  return g_string_free (s, FALSE);
}

/* Declarations and the definition of one kernel become one entry: the
 * definition's, whose argument names are those the body uses. */
static GArray *
unique_kernels (GArray *all)
{
  GArray *decls = g_array_new (FALSE, TRUE, sizeof (KernelDecl));

  g_array_set_clear_func (decls, (GDestroyNotify) kernel_decl_clear);
  for (guint i = 0; i < all->len; i++)
    {
      KernelDecl *d = &g_array_index (all, KernelDecl, i);
      gboolean merged = FALSE;

      for (guint k = 0; k < decls->len; k++)
        {
          KernelDecl *e = &g_array_index (decls, KernelDecl, k);
          if (g_str_equal (e->name, d->name))
            {
              if (d->has_body && !e->has_body)
                {
                  char *name = e->name;
                  *e = *d;
                  e->name = name;
                }
              merged = TRUE;
              break;
            }
        }
      if (!merged)
        {
          KernelDecl copy = *d;
          copy.name = g_strdup (d->name);
          g_array_append_val (decls, copy);
        }
    }
  return decls;
}

static gboolean
is_image_type (const KsKernelArg *arg, const char *type)
{
  g_autofree char *plain = NULL;
  const char *t = arg->type_text;

  if (arg->pointer || strchr (arg->type_text, '&') != NULL)
    return FALSE;
  if (g_str_has_prefix (t, "const "))
    t += 6;
  plain = g_strdup (t);
  g_strstrip (plain);
  return g_str_equal (plain, type);
}

static char *
args_text (const GPtrArray *args)
{
  GString *s = g_string_new ("(");

  for (guint i = 0; i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);
      gsize len = strlen (arg->type_text);
      g_string_append_printf (s, "%s%s%s%s", i ? ", " : "", arg->type_text,
                              len > 0 && (arg->type_text[len - 1] == '*') ? "" : " ", arg->name);
    }
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

static void
check_image_signature (KsKernelSource *self, const Token *name_token, const Annotations *found)
{
  const GPtrArray *args = self->args;
  guint n_images = 0;
  gboolean params = FALSE, ok = TRUE;

  for (guint i = 0; i < args->len && ok; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);
      if (is_image_type (arg, "ks_image") && !params && n_images < 3)
        n_images++;
      else if (is_image_type (arg, "ks_params") && !params && i == args->len - 1)
        params = TRUE;
      else
        ok = FALSE;
    }
  if (!ok || n_images < 2)
    {
      g_autofree char *got = args_text (args);
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, name_token->line, name_token->column,
                      "an image kernel takes (ks_image out, ks_image in[, ks_image in2]"
                      "[, ks_params p]), but “%s” takes %s; write the any mode for other "
                      "arguments", self->entry, got);
      return;
    }
  if (found->inputs_line != 0 && self->n_inputs != n_images - 1)
    add_diagnostic (self, KS_DIAGNOSTIC_ERROR, found->inputs_line, found->inputs_column,
                    "@inputs says %u but “%s” takes %u input image%s", self->n_inputs,
                    self->entry, n_images - 1, n_images == 2 ? "" : "s");
  self->n_inputs = n_images - 1;
}

static void
parse_signature (KsKernelSource *self, const GArray *tokens, const Annotations *found)
{
  g_autoptr (GArray) all = find_kernels (tokens);
  g_autoptr (GArray) decls = unique_kernels (all);
  const KernelDecl *entry = NULL;

  if (found->kernel != NULL)
    {
      const char *lt = strchr (found->kernel, '<');
      g_autofree char *base = g_strstrip (g_strndup (found->kernel,
                                                     lt != NULL ? (gsize) (lt - found->kernel)
                                                                : strlen (found->kernel)));

      for (guint i = 0; i < decls->len && entry == NULL; i++)
        if (g_str_equal (g_array_index (decls, KernelDecl, i).name, base))
          entry = &g_array_index (decls, KernelDecl, i);
      if (entry == NULL)
        {
          g_autofree char *names = kernel_names (decls);
          if (decls->len == 0)
            add_diagnostic (self, KS_DIAGNOSTIC_ERROR, found->kernel_line, found->kernel_column,
                            "@kernel names “%s”, but the source has no __global__ function",
                            base);
          else
            add_diagnostic (self, KS_DIAGNOSTIC_ERROR, found->kernel_line, found->kernel_column,
                            "@kernel names “%s”, but there is no __global__ function of that "
                            "name (the source has %s)", base, names);
          return;
        }
      if (entry->is_template && lt == NULL)
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, found->kernel_line, found->kernel_column,
                          "“%s” is a template: name the instantiation to run, for example "
                          "//@kernel %s<float>", base, base);
          return;
        }
      if (!entry->is_template && lt != NULL)
        {
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, found->kernel_line, found->kernel_column,
                          "“%s” is not a template: name it without template arguments", base);
          return;
        }
      self->entry = g_strdup (found->kernel);
    }
  else if (decls->len == 0)
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, 0, 0,
                      "the source has no __global__ function: write the kernel to run, as in "
                      "__global__ void %s", self->mode == KS_KERNEL_MODE_IMAGE
                      ? "filter (ks_image out, ks_image in)"
                      : "add (float *result, const float *a, const float *b, int n)");
      return;
    }
  else if (decls->len > 1)
    {
      g_autofree char *names = kernel_names (decls);
      const KernelDecl *second = &g_array_index (decls, KernelDecl, 1);
      const Token *t = &g_array_index (tokens, Token, second->name_index);
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, t->line, t->column,
                      "the source has several __global__ functions (%s): say which one runs "
                      "with //@kernel NAME", names);
      return;
    }
  else
    {
      entry = &g_array_index (decls, KernelDecl, 0);
      if (entry->is_template)
        {
          const Token *t = &g_array_index (tokens, Token, entry->name_index);
          add_diagnostic (self, KS_DIAGNOSTIC_ERROR, t->line, t->column,
                          "“%s” is a template: name the instantiation to run, for example "
                          "//@kernel %s<float>", entry->name, entry->name);
          return;
        }
      self->entry = g_strdup (entry->name);
    }

  parse_args (self, tokens, entry);
  if (self->mode == KS_KERNEL_MODE_IMAGE)
    check_image_signature (self, &g_array_index (tokens, Token, entry->name_index), found);
}

/* ---- the source ----------------------------------------------------------- */

KsKernelSource *
ks_kernel_source_new (KsKernelMode mode, const char *file_name, const char *text)
{
  KsKernelSource *self;
  Annotations found = { { 0 } };
  Lexer lx = { 0 };

  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), NULL);
  g_return_val_if_fail (text != NULL, NULL);

  self = g_new0 (KsKernelSource, 1);
  self->ref_count = 1;
  self->mode = mode;
  self->file_name = g_strdup (file_name != NULL && *file_name != '\0' ? file_name : "kernel.cu");
  self->text = g_strdup (text);
  self->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  self->args = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_arg_free);
  self->strings = g_ptr_array_new_with_free_func (g_free);
  self->n_inputs = 1;
  self->output_format = KS_FORMAT_RGBA8;
  ks_launch_config_init (&self->launch, 16, 16);
  self->launch.pixels_per_thread = 1;

  if (!g_utf8_validate (text, -1, NULL))
    {
      add_diagnostic (self, KS_DIAGNOSTIC_ERROR, 0, 0,
                      "the source is not valid UTF-8 text: save it as UTF-8");
      return self;
    }

  lex (&lx, self->text);
  for (guint i = 0; i < lx.annotations->len; i++)
    parse_annotation (self, &g_array_index (lx.annotations, Annotation, i), &found);
  if (mode != KS_KERNEL_MODE_EXPRESSION)
    parse_signature (self, lx.tokens, &found);
  if (mode == KS_KERNEL_MODE_ANY)
    self->n_inputs = 1;
  g_free (found.kernel);
  lexer_clear (&lx);
  return self;
}

KsKernelSource *
ks_kernel_source_ref (KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  g_atomic_int_inc (&source->ref_count);
  return source;
}

void
ks_kernel_source_unref (KsKernelSource *source)
{
  if (source == NULL || !g_atomic_int_dec_and_test (&source->ref_count))
    return;
  g_free (source->file_name);
  g_free (source->text);
  g_free (source->entry);
  g_ptr_array_unref (source->diagnostics);
  g_ptr_array_unref (source->args);
  g_ptr_array_unref (source->strings);
  g_free (source);
}

KsKernelMode
ks_kernel_source_get_mode (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, KS_KERNEL_MODE_EXPRESSION);
  return source->mode;
}

const char *
ks_kernel_source_get_text (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->text;
}

const char *
ks_kernel_source_get_file_name (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->file_name;
}

const GPtrArray *
ks_kernel_source_get_diagnostics (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->diagnostics;
}

gboolean
ks_kernel_source_has_errors (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, TRUE);
  for (guint i = 0; i < source->diagnostics->len; i++)
    if (((const KsDiagnostic *) g_ptr_array_index (source->diagnostics, i))->severity
        == KS_DIAGNOSTIC_ERROR)
      return TRUE;
  return FALSE;
}

const char *
ks_kernel_source_get_entry (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->entry;
}

const GPtrArray *
ks_kernel_source_get_args (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return source->args;
}

const KsParamSpec *
ks_kernel_source_get_params (const KsKernelSource *source, guint *n_params)
{
  g_return_val_if_fail (source != NULL, NULL);
  if (n_params != NULL)
    *n_params = source->n_params;
  return source->params;
}

void
ks_kernel_source_init_params_op (const KsKernelSource *source, KsOp *op)
{
  g_return_if_fail (source != NULL && op != NULL);
  memset (op, 0, sizeof *op);
  op->id = source->file_name;
  op->title = source->file_name;
  op->group = "User";
  op->n_inputs = source->n_inputs;
  op->output_kind = KS_OP_OUTPUT_IMAGE;
  op->output_format = source->output_format;
  op->params = source->params;
  op->n_params = source->n_params;
  op->default_launch = source->launch;
  op->default_pixels_per_thread = source->launch.pixels_per_thread;
}

guint
ks_kernel_source_get_n_inputs (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, 1);
  return source->n_inputs;
}

KsFormat
ks_kernel_source_get_output_format (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, KS_FORMAT_RGBA8);
  return source->output_format;
}

void
ks_kernel_source_get_default_launch (const KsKernelSource *source, KsLaunchConfig *launch)
{
  g_return_if_fail (source != NULL && launch != NULL);
  *launch = source->launch;
}

guint64
ks_kernel_source_get_dynamic_shared (const KsKernelSource *source)
{
  g_return_val_if_fail (source != NULL, 0);
  return source->dynamic_shared;
}

/* ---- the translation unit ------------------------------------------------- */

/* What NVRTC lacks of the C headers that ks-geometry.cuh and ks-kernel-common.h
 * include: it has size_t, ptrdiff_t, NULL, the vector types, dim3 and the
 * device functions built in, but no header files. */
static const char stdint_standin[] =
  "#pragma once\n"
  "typedef signed char int8_t;\n"
  "typedef unsigned char uint8_t;\n"
  "typedef short int16_t;\n"
  "typedef unsigned short uint16_t;\n"
  "typedef int int32_t;\n"
  "typedef unsigned int uint32_t;\n"
  "typedef long int64_t;\n"
  "typedef unsigned long uint64_t;\n"
  "typedef long intptr_t;\n"
  "typedef unsigned long uintptr_t;\n"
  "#define INT8_MIN (-128)\n"
  "#define INT8_MAX 127\n"
  "#define UINT8_MAX 255\n"
  "#define INT16_MIN (-32768)\n"
  "#define INT16_MAX 32767\n"
  "#define UINT16_MAX 65535\n"
  "#define INT32_MIN (-2147483647 - 1)\n"
  "#define INT32_MAX 2147483647\n"
  "#define UINT32_MAX 4294967295u\n"
  "#define INT64_MIN (-9223372036854775807l - 1)\n"
  "#define INT64_MAX 9223372036854775807l\n"
  "#define UINT64_MAX 18446744073709551615ul\n"
  "#define SIZE_MAX UINT64_MAX\n";

static const char stddef_standin[] =
  "#pragma once\n"
  "#define offsetof(type, member) __builtin_offsetof (type, member)\n";

static const char cuda_runtime_standin[] =
  "#pragma once\n"
  "/* NVRTC declares the CUDA built-ins itself. */\n";

static const char *const resource_headers[] = {
  "ks-user.cuh",
  "ks-kernel-common.h",
  "ks-geometry.cuh",
};

static KsCompileHeader compile_headers[G_N_ELEMENTS (resource_headers) + 3];

static gpointer
load_headers (gpointer data)
{
  guint n = 0;

  (void) data;
  for (guint i = 0; i < G_N_ELEMENTS (resource_headers); i++)
    {
      g_autofree char *path = g_strconcat ("/org/kernelscope/kernels/", resource_headers[i],
                                           NULL);
      /* Resource data stays mapped for the life of the process and ends with
       * a NUL, so the bytes are kept and used as a string. */
      GBytes *bytes = g_resource_lookup_data (ks_gpu_get_resource (), path,
                                              G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
      g_assert (bytes != NULL);
      compile_headers[n].name = resource_headers[i];
      compile_headers[n++].contents = g_bytes_get_data (bytes, NULL);
    }
  compile_headers[n].name = "stdint.h";
  compile_headers[n++].contents = stdint_standin;
  compile_headers[n].name = "stddef.h";
  compile_headers[n++].contents = stddef_standin;
  compile_headers[n].name = "cuda_runtime.h";
  compile_headers[n++].contents = cuda_runtime_standin;
  return GUINT_TO_POINTER (n);
}

static const KsCompileHeader *
get_headers (guint *n_headers)
{
  static GOnce once = G_ONCE_INIT;

  *n_headers = GPOINTER_TO_UINT (g_once (&once, load_headers, NULL));
  return compile_headers;
}

static const char *const unit_options[] = { "-default-device", NULL };

void
ks_kernel_unit_clear (KsKernelUnit *unit)
{
  if (unit == NULL)
    return;
  g_free (unit->source);
  g_free (unit->entry);
  memset (unit, 0, sizeof *unit);
}

static void
append_quoted_file (GString *s, const char *file)
{
  g_string_append_c (s, '"');
  for (const char *c = file; *c != '\0'; c++)
    {
      if (*c == '"' || *c == '\\')
        g_string_append_c (s, '\\');
      if (*c != '\n')
        g_string_append_c (s, *c);
    }
  g_string_append_c (s, '"');
}

static guint
count_lines (const GString *s)
{
  guint n = 1;

  for (gsize i = 0; i < s->len; i++)
    n += s->str[i] == '\n';
  return n;
}

/* The members in declaration order; bool is one byte, float and int four,
 * and the struct is aligned to KS_PARAMS_ALIGN. Without parameters it holds
 * one unused byte (C++ has no empty struct of size 0), KS_PARAMS_ALIGN
 * bytes in all. */
static void
append_params_struct (GString *s, const KsKernelSource *self)
{
  g_string_append_printf (s, "struct alignas (%d) ks_params\n{\n", KS_PARAMS_ALIGN);
  for (guint i = 0; i < self->n_params; i++)
    g_string_append_printf (s, "  %s %s;\n", param_type_name (self->params[i].type),
                            self->params[i].name);
  if (self->n_params == 0)
    g_string_append (s, "  unsigned char ks_none;\n");
  g_string_append (s, "};\n\n");
}

static void
append_user_text (GString *s, const KsKernelSource *self)
{
  gsize len = strlen (self->text);

  g_string_append (s, "#line 1 ");
  append_quoted_file (s, self->file_name);
  g_string_append_c (s, '\n');
  g_string_append (s, self->text);
  if (len == 0 || self->text[len - 1] != '\n')
    g_string_append_c (s, '\n');
}

static void
build_expression (GString *s, const KsKernelSource *self, guint ppt, guint mode,
                  gboolean instrumented, char **entry)
{
  const gboolean gray = self->output_format == KS_FORMAT_GRAY8;
  const gboolean two = self->n_inputs > 1;
  const char *out_type = gray ? "unsigned char" : "uchar4";

  g_string_append (s,
                   "__device__ __forceinline__ void\n"
                   "ks_expression_pixel (const unsigned int x, const unsigned int y,\n"
                   "                     const unsigned int width, const unsigned int height,\n"
                   "                     const uchar4 in, ");
  if (two)
    g_string_append (s, "const uchar4 in2, ");
  g_string_append_printf (s, "%s &out, const ks_params ks_p)\n{\n", out_type);
  for (guint i = 0; i < self->n_params; i++)
    g_string_append_printf (s, "  const %s %s = ks_p.%s;\n  (void) %s;\n",
                            param_type_name (self->params[i].type), self->params[i].name,
                            self->params[i].name, self->params[i].name);
  g_string_append (s, "  (void) ks_p;\n");
  append_user_text (s, self);
  g_string_append_printf (s, "#line %u ", count_lines (s) + 1);
  append_quoted_file (s, KS_GENERATED_FILE);
  g_string_append_printf (s,
                          "\n}\n\n"
                          "template <unsigned PPT, unsigned MODE, bool INSTRUMENTED>\n"
                          "__global__ void\n"
                          "ks_expression_kernel (KsGeometry g, ks_image out, ks_image in, "
                          "ks_image in2, ks_params p,\n"
                          "                      KsCoverageBuffers cov)\n"
                          "{\n"
                          "  ks_expression_walk<PPT, MODE, INSTRUMENTED, %u, %s> (\n"
                          "    g, out, in, in2, cov,\n"
                          "    [&] (unsigned int px, unsigned int py, const uchar4 &a, "
                          "const uchar4 &b, %s &o) {\n"
                          "      (void) b;\n"
                          "      ks_expression_pixel (px, py, g.width, g.height, a, %so, p);\n"
                          "    });\n"
                          "}\n",
                          self->n_inputs, gray ? "true" : "false", out_type, two ? "b, " : "");
  *entry = g_strdup_printf ("ks_expression_kernel<%u, %u, %s>", ppt, mode,
                            instrumented ? "true" : "false");
}

gboolean
ks_kernel_source_build_unit (const KsKernelSource *source, const KsLaunchConfig *resolved_launch,
                             gboolean instrumented, KsKernelUnit *unit, GError **error)
{
  g_autoptr (GString) s = NULL;
  char *entry = NULL;

  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (unit != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (unit, 0, sizeof *unit);
  if (ks_kernel_source_has_errors (source))
    {
      g_autofree char *first = NULL;
      for (guint i = 0; i < source->diagnostics->len && first == NULL; i++)
        {
          const KsDiagnostic *d = g_ptr_array_index (source->diagnostics, i);
          if (d->severity == KS_DIAGNOSTIC_ERROR)
            first = ks_diagnostic_format (d);
        }
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE, "%s cannot be compiled: %s",
                   source->file_name, first);
      return FALSE;
    }

  s = g_string_new ("#include \"ks-user.cuh\"\n\n");
  if (source->mode != KS_KERNEL_MODE_ANY || source->n_params > 0)
    append_params_struct (s, source);

  if (source->mode == KS_KERNEL_MODE_EXPRESSION)
    {
      guint ppt = resolved_launch != NULL ? resolved_launch->pixels_per_thread : 0;
      guint mode = resolved_launch != NULL ? (guint) resolved_launch->mode
                                           : (guint) source->launch.mode;

      if (ppt == 0)
        ppt = source->launch.pixels_per_thread;
      if (ppt != 1 && ppt != 2 && ppt != 4 && ppt != 8 && ppt != 16)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                       "%u pixels per thread: an expression kernel takes 1, 2, 4, 8 or 16", ppt);
          return FALSE;
        }
      if (mode != KS_LAUNCH_PER_PIXEL && mode != KS_LAUNCH_GRID_STRIDE)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                       "launch mode %u: an expression kernel runs per pixel (0) or "
                       "grid-stride (1)", mode);
          return FALSE;
        }
      build_expression (s, source, ppt, mode, instrumented, &entry);
    }
  else
    {
      append_user_text (s, source);
      entry = g_strdup (source->entry);
    }

  unit->source = g_string_free (g_steal_pointer (&s), FALSE);
  unit->entry = entry;
  unit->headers = get_headers (&unit->n_headers);
  unit->extra_options = unit_options;
  return TRUE;
}

static gsize
param_size (KsParamType type)
{
  return type == KS_PARAM_BOOL ? 1 : 4;
}

GBytes *
ks_kernel_source_pack_params (const KsKernelSource *source, const KsParams *params)
{
  guint8 *data;
  gsize offset = 0, size;

  g_return_val_if_fail (source != NULL, NULL);

  for (guint i = 0; i < source->n_params; i++)
    {
      gsize n = param_size (source->params[i].type);
      offset = (offset + n - 1) / n * n + n;
    }
  size = MAX (offset, 1);
  size = (size + KS_PARAMS_ALIGN - 1) / KS_PARAMS_ALIGN * KS_PARAMS_ALIGN;
  data = g_malloc0 (size);

  offset = 0;
  for (guint i = 0; i < source->n_params; i++)
    {
      const KsParamSpec *spec = &source->params[i];
      gsize n = param_size (spec->type);
      double v = params != NULL ? params->values[i] : spec->default_value;

      offset = (offset + n - 1) / n * n;
      switch (spec->type)
        {
        case KS_PARAM_BOOL:
          data[offset] = v != 0;
          break;
        case KS_PARAM_DOUBLE:
          {
            float f = (float) v;
            memcpy (data + offset, &f, sizeof f);
          }
          break;
        case KS_PARAM_INT:
        case KS_PARAM_CHOICE:
        default:
          {
            gint32 k = (gint32) CLAMP (round (v), (double) G_MININT32, (double) G_MAXINT32);
            memcpy (data + offset, &k, sizeof k);
          }
          break;
        }
      offset += n;
    }
  return g_bytes_new_take (data, size);
}

KsCompileResult *
ks_kernel_source_compile (const KsKernelSource *source, const KsLaunchConfig *resolved_launch,
                          gboolean instrumented, guint arch, GError **error)
{
  KsKernelUnit unit = { 0 };
  KsCompileRequest request = { 0 };
  const char *entries[2] = { NULL, NULL };
  KsCompileResult *result;
  g_autoptr (GPtrArray) merged = NULL;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  merged = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; i < source->diagnostics->len; i++)
    g_ptr_array_add (merged, ks_diagnostic_copy (g_ptr_array_index (source->diagnostics, i)));

  /* A source with errors of its own is not worth NVRTC's time: the result
   * carries them, as a failed compilation would. */
  if (ks_kernel_source_has_errors (source))
    {
      result = g_new0 (KsCompileResult, 1);
      result->success = FALSE;
      result->log = g_strdup ("");
      result->diagnostics = g_steal_pointer (&merged);
      result->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_resources_free);
      return result;
    }

  if (!ks_kernel_source_build_unit (source, resolved_launch, instrumented, &unit, error))
    return NULL;

  entries[0] = unit.entry;
  request.source = unit.source;
  request.program_name = source->file_name;
  request.arch = arch;
  request.entries = entries;
  request.headers = unit.headers;
  request.n_headers = unit.n_headers;
  request.extra_options = unit.extra_options;
  result = ks_nvrtc_compile (&request, error);
  ks_kernel_unit_clear (&unit);
  if (result == NULL)
    return NULL;

  if (result->diagnostics == NULL)
    result->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; i < result->diagnostics->len; i++)
    g_ptr_array_add (merged, ks_diagnostic_copy (g_ptr_array_index (result->diagnostics, i)));
  g_ptr_array_unref (result->diagnostics);
  result->diagnostics = g_steal_pointer (&merged);
  return result;
}
