/* ks-declared-kernel.c: declarations (ks-declared-kernel.h) into CUDA
 * source: the arguments read and checked, then the kernel of its kind
 * written around the user's pieces, each behind a #line naming the piece.
 * The generated text is meant to be read: comments say what it does and
 * why, the generated names start with ks_. */
#include "config.h"

#include <string.h>

#include "ks-array.h"
#include "ks-declared-kernel.h"
#include "ks-error.h"

static const char *const kind_names[] = {
  "elementwise", "reduction", "inclusive-scan", "exclusive-scan",
};

/* PyCUDA's default names, as C identifiers. */
static const char *const default_names[] = {
  "elementwise", "reduction", "inclusive_scan", "exclusive_scan",
};

const char *
ks_declared_kind_name (KsDeclaredKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (kind_names), NULL);
  return kind_names[kind];
}

gboolean
ks_declared_kind_parse (const char *name, KsDeclaredKind *kind)
{
  g_return_val_if_fail (name != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (kind_names); i++)
    if (g_ascii_strcasecmp (name, kind_names[i]) == 0)
      {
        if (kind != NULL)
          *kind = (KsDeclaredKind) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ks_declaration_get_name (const KsDeclaration *declaration)
{
  g_return_val_if_fail (declaration != NULL, NULL);
  g_return_val_if_fail ((guint) declaration->kind < G_N_ELEMENTS (default_names), NULL);
  if (declaration->name != NULL && declaration->name[0] != '\0')
    return declaration->name;
  return default_names[declaration->kind];
}

/* ---- problems at the user's text ----------------------------------------- */

typedef struct
{
  KsDiagnostic *diagnostic;   /* the first problem; NULL while there is none */
} Problems;

static gboolean fail (Problems *p, const char *piece, guint line, guint column,
                      const char *format, ...) G_GNUC_PRINTF (5, 6);

/* Keeps the first problem only: the rest often follow from it. Returns FALSE
 * for the caller to return. */
static gboolean
fail (Problems *p, const char *piece, guint line, guint column, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (p->diagnostic != NULL)
    return FALSE;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  p->diagnostic = ks_diagnostic_new (KS_DIAGNOSTIC_ERROR, piece, line, column, message);
  return FALSE;
}

static gboolean
is_blank (const char *text)
{
  for (const char *c = text != NULL ? text : ""; *c != '\0'; c++)
    if (!g_ascii_isspace (*c))
      return FALSE;
  return TRUE;
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

static gboolean
is_identifier (const char *s)
{
  if (s == NULL || !is_ident_start (*s))
    return FALSE;
  for (s++; *s != '\0'; s++)
    if (!is_ident_char (*s))
      return FALSE;
  return TRUE;
}

/* Whether text holds word as a whole identifier. */
static gboolean
mentions (const char *text, const char *word)
{
  gsize len = strlen (word);

  for (const char *at = text != NULL ? strstr (text, word) : NULL; at != NULL;
       at = strstr (at + 1, word))
    if ((at == text || !is_ident_char (at[-1])) && !is_ident_char (at[len]))
      return TRUE;
  return FALSE;
}

/* Names the generated code uses itself. */
static gboolean
check_name (Problems *p, const char *piece, guint line, guint column, const char *name,
            const KsDeclaration *d)
{
  if (g_str_has_prefix (name, "ks_"))
    return fail (p, piece, line, column, "“%s”: names starting with ks_ belong to the generated "
                 "code; choose another name", name);
  if (g_str_equal (name, "i") || g_str_equal (name, KS_DECLARED_LENGTH))
    return fail (p, piece, line, column, "“%s” is the generated loop's %s; choose another name",
                 name, g_str_equal (name, "i") ? "index (i)" : "length (n, added to the "
                                                               "arguments)");
  if (d->kind == KS_DECLARED_REDUCTION && g_str_equal (name, KS_DECLARED_RESULT))
    return fail (p, piece, line, column, "“%s” is the argument the reduction writes its result "
                 "to (added to the arguments); choose another name", name);
  return TRUE;
}

/* ---- the arguments -------------------------------------------------------- */

typedef struct
{
  char *name;
  KsElemType type;
  gboolean pointer;
  gboolean is_const;      /* the pointee (or the scalar) is const */
  gboolean restrict_;
} DeclArg;

static void
decl_arg_free (DeclArg *a)
{
  g_free (a->name);
  g_free (a);
}

typedef struct
{
  const char *start;
  gsize len;
  char punct;        /* '*', ',' or 0 for a word */
  guint line;
  guint column;
} Word;

static const char type_help[] =
  "the arguments take char, short, int, long, long long (signed or unsigned), int8_t … "
  "uint64_t, size_t, float and double, as values or pointers";

/* A word of a C type's spelling, or a type's name (int8_t): never a name. */
static gboolean
is_type_word (const char *word)
{
  static const char *const keywords[] = {
    "char", "short", "int", "long", "float", "double", "signed", "unsigned", "const", "void",
    "bool", "volatile",
  };

  for (guint k = 0; k < G_N_ELEMENTS (keywords); k++)
    if (g_str_equal (word, keywords[k]))
      return TRUE;
  /* The short names (i8, f32) are no C types: they may name an argument. */
  return ks_elem_type_parse (word, NULL) && strlen (word) > 3;
}

static gboolean
words_are_type (const GPtrArray *words, guint from, guint to)
{
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint k = from; k < to; k++)
    {
      const Word *w = g_ptr_array_index ((GPtrArray *) words, k);

      if (text->len > 0)
        g_string_append_c (text, ' ');
      g_string_append_len (text, w->start, w->len);
    }
  return from < to && ks_elem_type_parse (text->str, NULL);
}

/* "float a float": a type, a name, a type; the word that needs a comma after it. */
static const Word *
missing_comma (const GPtrArray *type_words)
{
  for (guint k = 1; k + 1 < type_words->len; k++)
    if (words_are_type (type_words, 0, k) && !words_are_type (type_words, 0, k + 1)
        && words_are_type (type_words, k + 1, type_words->len))
      return g_ptr_array_index ((GPtrArray *) type_words, k);
  return NULL;
}

/* One argument from its words [from, to): [const] TYPE… [const] [*] [const|__restrict__] NAME. */
static DeclArg *
read_arg (Problems *p, const GArray *words, guint from, guint to, const KsDeclaration *d,
          const GPtrArray *args)
{
  g_autoptr (GString) type = g_string_new (NULL);
  const Word *first = &g_array_index (words, Word, from);
  const Word *name_word = &g_array_index (words, Word, to - 1);
  DeclArg *arg;
  gboolean pointer = FALSE, is_const = FALSE, restrict_ = FALSE;
  guint type_words = 0;
  g_autoptr (GPtrArray) type_word = g_ptr_array_new ();   /* const Word * */
  const Word *type_start;
  g_autofree char *name = NULL;
  KsElemType elem;

  if (name_word->punct != 0)
    {
      fail (p, "arguments", name_word->line, name_word->column + 1,
            "the argument has no name: write TYPE NAME or TYPE *NAME");
      return NULL;
    }
  for (guint k = from; k + 1 < to; k++)
    {
      const Word *w = &g_array_index (words, Word, k);
      g_autofree char *text = g_strndup (w->start, w->len);

      if (w->punct == '*')
        {
          if (pointer)
            {
              fail (p, "arguments", w->line, w->column, "a pointer to a pointer cannot be bound "
                    "to an array: pass the data as TYPE *NAME");
              return NULL;
            }
          pointer = TRUE;
        }
      else if (g_str_equal (text, "const"))
        is_const |= !pointer;   /* a const pointer to data it may write is no promise */
      else if (g_str_equal (text, "__restrict__") || g_str_equal (text, "__restrict")
               || g_str_equal (text, "restrict"))
        {
          if (!pointer)
            {
              fail (p, "arguments", w->line, w->column, "%s qualifies a pointer: write it after "
                    "the *", text);
              return NULL;
            }
          restrict_ = TRUE;
        }
      else if (pointer)
        {
          const Word *next = &g_array_index (words, Word, k + 1);
          g_autofree char *next_text = g_strndup (next->start, next->len);

          /* "float *x float *z": the next argument's type follows a name. */
          if (next->punct == 0 && is_type_word (next_text))
            fail (p, "arguments", w->line, w->column + w->len, "a comma is missing after “%s”",
                  text);
          else
            fail (p, "arguments", w->line, w->column, "“%s” after the *: write TYPE *NAME", text);
          return NULL;
        }
      else
        {
          if (type->len > 0)
            g_string_append_c (type, ' ');
          g_string_append (type, text);
          type_words++;
          g_ptr_array_add (type_word, (gpointer) w);
        }
    }
  name = g_strndup (name_word->start, name_word->len);
  if (is_type_word (name))
    {
      fail (p, "arguments", name_word->line, name_word->column + name_word->len,
            "the argument has no name: write %s%s%s %sNAME", type->str, type->len > 0 ? " " : "",
            name, pointer ? "*" : "");
      return NULL;
    }
  if (type_words == 0)
    {
      fail (p, "arguments", first->line, first->column, "“%s” has no type: write TYPE %s%s",
            name, pointer ? "*" : "", name);
      return NULL;
    }
  type_start = g_ptr_array_index (type_word, 0);
  if (!ks_elem_type_parse (type->str, &elem) || elem == KS_ELEM_OTHER)
    {
      const Word *missing = missing_comma (type_word);

      if (missing != NULL)
        {
          g_autofree char *after = g_strndup (missing->start, missing->len);

          fail (p, "arguments", missing->line, missing->column + missing->len,
                "a comma is missing after “%s”", after);
          return NULL;
        }
      fail (p, "arguments", type_start->line, type_start->column, "unknown type “%s”: %s",
            type->str, type_help);
      return NULL;
    }
  if (g_str_equal (type->str, ks_elem_type_short_name (elem)))
    {
      /* The pasted signature is C: f32 would not compile. */
      fail (p, "arguments", type_start->line, type_start->column, "“%s” is a binding's short "
            "name; the arguments are C: write %s", type->str, ks_elem_type_c_name (elem));
      return NULL;
    }
  if (!check_name (p, "arguments", name_word->line, name_word->column, name, d))
    return NULL;
  for (guint k = 0; k < args->len; k++)
    if (g_str_equal (((const DeclArg *) g_ptr_array_index ((GPtrArray *) args, k))->name, name))
      {
        fail (p, "arguments", name_word->line, name_word->column, "“%s” is declared twice",
              name);
        return NULL;
      }

  arg = g_new0 (DeclArg, 1);
  arg->name = g_steal_pointer (&name);
  arg->type = elem;
  arg->pointer = pointer;
  arg->is_const = is_const;
  arg->restrict_ = restrict_;
  return arg;
}

/* "float a, const float *__restrict__ x" into DeclArg, or NULL at the first problem. */
static GPtrArray *
read_arguments (Problems *p, const KsDeclaration *d)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func ((GDestroyNotify) decl_arg_free);
  g_autoptr (GArray) words = g_array_new (FALSE, FALSE, sizeof (Word));
  const char *text = d->arguments != NULL ? d->arguments : "";
  const char *line_start = text;
  guint line = 1, from = 0;

  if (is_blank (text))
    {
      fail (p, "arguments", 1, 1, "no arguments: declare the arrays and values the kernel works "
            "on, for example “float a, float *x, float *y”");
      return NULL;
    }
  for (const char *c = text; *c != '\0';)
    {
      Word w = { c, 1, 0, line, (guint) g_utf8_strlen (line_start, c - line_start) + 1 };

      if (*c == '\n')
        {
          line++;
          line_start = ++c;
          continue;
        }
      if (g_ascii_isspace (*c))
        {
          c++;
          continue;
        }
      if (is_ident_start (*c))
        {
          while (is_ident_char (*c))
            c++;
          w.len = c - w.start;
        }
      else if (*c == '*' || *c == ',')
        {
          w.punct = *c;
          c++;
        }
      else
        {
          gunichar u = g_utf8_get_char_validated (c, -1);
          g_autofree char *shown = u != (gunichar) -1 && u != (gunichar) -2
                                   ? g_ucs4_to_utf8 (&u, 1, NULL, NULL, NULL) : g_strdup ("?");

          fail (p, "arguments", w.line, w.column, "“%s” cannot stand in an argument: write "
                "TYPE NAME or TYPE *NAME, separated by commas%s", shown,
                *c == '[' ? " (an array is a pointer: TYPE *NAME)"
                : *c == '&' ? " (a reference cannot be bound: pass a pointer)" : "");
          return NULL;
        }
      g_array_append_val (words, w);
    }

  for (guint k = 0; k <= words->len; k++)
    {
      const Word *w = k < words->len ? &g_array_index (words, Word, k) : NULL;
      DeclArg *arg;

      if (w != NULL && w->punct != ',')
        continue;
      if (k == from)
        {
          const Word *at = w != NULL ? w : &g_array_index (words, Word, k - 1);

          fail (p, "arguments", at->line, at->column + (w == NULL), "an argument is missing %s "
                "this comma", w != NULL ? "before" : "after");
          return NULL;
        }
      arg = read_arg (p, words, from, k, d, args);
      if (arg == NULL)
        return NULL;
      g_ptr_array_add (args, arg);
      from = k + 1;
    }
  return g_steal_pointer (&args);
}

/* ---- writing the source --------------------------------------------------- */

typedef struct
{
  GString *s;
  const char *file;    /* NAME.cu: the generated lines' file */
} Writer;

static guint
lines_in (const GString *s)
{
  guint n = 0;

  for (gsize i = 0; i < s->len; i++)
    n += s->str[i] == '\n';
  return n;
}

/* The user's text on lines of its own, behind #line 1 "PIECE", and the
 * generated file's numbering back after it. The tokens that close it
 * (suffix) go on its last line, so that a message about what the text
 * lacks ("expected an expression" after "a+") lands on the user's line too;
 * after a // comment, on a line of their own. */
static void
paste (Writer *w, const char *piece, const char *text, const char *suffix)
{
  g_autofree char *body = g_strdup (text);
  const char *last_line;

  g_strchomp (body);
  last_line = strrchr (body, '\n') != NULL ? strrchr (body, '\n') + 1 : body;
  g_string_append_printf (w->s, "#line 1 \"%s\"\n%s", piece, body);
  if (suffix != NULL)
    g_string_append_printf (w->s, "%s%s", strstr (last_line, "//") != NULL ? "\n" : " ",
                            suffix);
  g_string_append_c (w->s, '\n');
  /* The directive is on line lines_in + 1; the line after it is its number. */
  g_string_append_printf (w->s, "#line %u \"%s\"\n", lines_in (w->s) + 2, w->file);
}

/* The user's text in a comment, each line behind "//   ". */
static void
echo (Writer *w, const char *label, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i + 1] == NULL && lines[i][0] == '\0' && i > 0)
        break;
      g_string_append_printf (w->s, "//   %-12s %s\n", i == 0 ? label : "", lines[i]);
    }
}

static const struct
{
  const char *name;
  const char *value;
} constants[] = {
  { "INFINITY", "__int_as_float (0x7f800000)" },
  { "NAN", "__int_as_float (0x7fffffff)" },
  { "FLT_MAX", "3.402823466e+38f" },
  { "FLT_MIN", "1.175494351e-38f" },
  { "DBL_MAX", "1.7976931348623157e+308" },
  { "DBL_MIN", "2.2250738585072014e-308" },
  { "CHAR_MIN", "(-128)" },
  { "CHAR_MAX", "127" },
  { "SCHAR_MIN", "(-128)" },
  { "SCHAR_MAX", "127" },
  { "UCHAR_MAX", "255" },
  { "SHRT_MIN", "(-32768)" },
  { "SHRT_MAX", "32767" },
  { "USHRT_MAX", "65535" },
  { "INT_MIN", "(-2147483647 - 1)" },
  { "INT_MAX", "2147483647" },
  { "UINT_MAX", "4294967295u" },
  { "LONG_MIN", "(-9223372036854775807l - 1)" },
  { "LONG_MAX", "9223372036854775807l" },
  { "ULONG_MAX", "18446744073709551615ul" },
  { "LLONG_MIN", "(-9223372036854775807ll - 1)" },
  { "LLONG_MAX", "9223372036854775807ll" },
  { "ULLONG_MAX", "18446744073709551615ull" },
};

/* The <math.h>, <float.h> and <limits.h> constants the pieces name (neutral
 * values often are one): NVRTC has none of those headers. */
static void
write_constants (Writer *w, const char *const *texts, guint n_texts)
{
  gboolean any = FALSE;

  for (guint k = 0; k < G_N_ELEMENTS (constants); k++)
    {
      gboolean used = FALSE;

      for (guint t = 0; t < n_texts && !used; t++)
        used = mentions (texts[t], constants[k].name);
      if (!used)
        continue;
      if (!any)
        g_string_append (w->s, "// Constants of <math.h>, <float.h> and <limits.h> the "
                         "declaration names.\n");
      any = TRUE;
      g_string_append_printf (w->s, "#ifndef %s\n#define %s %s\n#endif\n", constants[k].name,
                              constants[k].name, constants[k].value);
    }
  if (any)
    g_string_append_c (w->s, '\n');
}

static void
write_preamble (Writer *w, const KsDeclaration *d)
{
  if (is_blank (d->preamble))
    return;
  g_string_append (w->s, "// The preamble: the declaration's helpers.\n");
  paste (w, "preamble", d->preamble, NULL);
  g_string_append_c (w->s, '\n');
}

static void
append_arg (GString *s, const DeclArg *a)
{
  g_string_append_printf (s, "%s%s %s%s%s", a->is_const ? "const " : "",
                          ks_elem_type_c_name (a->type), a->pointer ? "*" : "",
                          a->restrict_ ? "__restrict__ " : "", a->name);
}

/* The linear indices of the thread in its block and of the block in the
 * grid, whatever the launch's dimensions. */
static const char linear_indices[] =
  "  const unsigned int ks_threads = blockDim.x * blockDim.y * blockDim.z;\n"
  "  const unsigned int ks_thread =\n"
  "    threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
  "  const unsigned long ks_blocks_launched = (unsigned long) gridDim.x * gridDim.y * "
  "gridDim.z;\n"
  "  const unsigned long ks_block =\n"
  "    blockIdx.x + (unsigned long) gridDim.x * (blockIdx.y + (unsigned long) gridDim.y * "
  "blockIdx.z);\n";

static void
write_elementwise (Writer *w, const KsDeclaration *d, const GPtrArray *args, const char *name)
{
  g_string_append_printf (w->s,
                          "// %s: an element-wise kernel, generated from its declaration (as "
                          "for\n// PyCUDA's ElementwiseKernel):\n", name);
  echo (w, "arguments", d->arguments);
  echo (w, "operation", d->operation);
  g_string_append_printf (w->s,
                          "// The operation runs once for every i < n, in a grid-stride loop: "
                          "any grid\n// covers all n elements. n is the arrays' length unless "
                          "bound otherwise.\n"
                          "//@kernel %s\n//@block 256\n\n", name);
  {
    const char *texts[] = { d->operation, d->preamble };
    write_constants (w, texts, G_N_ELEMENTS (texts));
  }
  write_preamble (w, d);
  g_string_append_printf (w->s, "__global__ void\n%s (", name);
  for (guint k = 0; k < args->len; k++)
    {
      append_arg (w->s, g_ptr_array_index ((GPtrArray *) args, k));
      g_string_append (w->s, ", ");
    }
  g_string_append (w->s, "unsigned long n)\n{\n");
  g_string_append (w->s, linear_indices);
  g_string_append (w->s,
                   "  const unsigned long ks_stride = (unsigned long) ks_threads * "
                   "ks_blocks_launched;\n\n"
                   "  for (unsigned long i = ks_block * ks_threads + ks_thread; i < n; "
                   "i += ks_stride)\n"
                   "    {\n");
  paste (w, "operation", d->operation, ";");
  g_string_append (w->s, "    }\n}\n");
}

/* a ⊕ b as a function of the element type, the user's expression inside. */
static void
write_combine (Writer *w, const char *function, const char *type, const char *piece,
               const char *expr)
{
  g_string_append_printf (w->s,
                          "__device__ __forceinline__ %s\n"
                          "%s (const %s a, const %s b)\n"
                          "{\n"
                          "  return (\n", type, function, type, type);
  paste (w, piece, expr, ");");
  g_string_append (w->s, "}\n\n");
}

static void
write_reduction (Writer *w, const KsDeclaration *d, const GPtrArray *args, const char *name,
                 KsElemType out)
{
  const char *t = ks_elem_type_c_name (out);

  g_string_append_printf (w->s,
                          "// %s: a reduction, generated from its declaration (as for PyCUDA's\n"
                          "// ReductionKernel):\n", name);
  echo (w, "dtype_out", t);
  echo (w, "neutral", d->neutral);
  echo (w, "reduce_expr", d->reduce_expr);
  echo (w, "map_expr", d->map_expr);
  echo (w, "arguments", d->arguments);
  g_string_append_printf (
    w->s,
    "// result[0] = neutral ⊕ map_expr(0) ⊕ … ⊕ map_expr(n-1), ⊕ being reduce_expr (a\n"
    "// function of a and b), in one launch: every block reduces its share in shared\n"
    "// memory, and the block that finishes last reduces the blocks' results. The\n"
    "// order of the combining depends only on the launch's shape: the same launch\n"
    "// gives the same result, to the bit, every time. At most %d blocks take part.\n"
    "//@kernel %s\n//@block 256\n\n", KS_DECLARED_MAX_BLOCKS, name);
  {
    const char *texts[] = { d->neutral, d->reduce_expr, d->map_expr, d->preamble };
    write_constants (w, texts, G_N_ELEMENTS (texts));
  }
  write_preamble (w, d);
  g_string_append_printf (
    w->s,
    "#define KS_MAX_BLOCKS %d\n\n"
    "// One result per block, and the count of blocks done: a ticket counter that\n"
    "// the last block sets back to 0 for the next launch.\n"
    "__device__ %s ks_block_results[KS_MAX_BLOCKS];\n"
    "__device__ unsigned int ks_blocks_done;\n\n", KS_DECLARED_MAX_BLOCKS, t);
  write_combine (w, "ks_reduce", t, "reduce_expr", d->reduce_expr);
  g_string_append_printf (
    w->s,
    "// Reduces shared[0 .. count) into shared[0]: each step combines the upper\n"
    "// half into the lower one, so the tree's shape depends only on count.\n"
    "__device__ __forceinline__ void\n"
    "ks_reduce_block (%s *shared, const unsigned int thread, unsigned int count)\n"
    "{\n"
    "  __syncthreads ();\n"
    "  while (count > 1)\n"
    "    {\n"
    "      const unsigned int half = (count + 1) / 2;\n\n"
    "      if (thread < count - half)\n"
    "        shared[thread] = ks_reduce (shared[thread], shared[thread + half]);\n"
    "      __syncthreads ();\n"
    "      count = half;\n"
    "    }\n"
    "}\n\n", t);

  g_string_append_printf (w->s, "__global__ void\n%s (", name);
  for (guint k = 0; k < args->len; k++)
    {
      append_arg (w->s, g_ptr_array_index ((GPtrArray *) args, k));
      g_string_append (w->s, ", ");
    }
  g_string_append_printf (w->s, "%s *" KS_DECLARED_RESULT ", unsigned long n)\n{\n", t);
  g_string_append_printf (w->s, "  __shared__ %s ks_shared[1024];\n"
                                "  __shared__ bool ks_last;\n", t);
  g_string_append (w->s, linear_indices);
  g_string_append (w->s,
                   "  const unsigned int ks_blocks = ks_blocks_launched < KS_MAX_BLOCKS\n"
                   "                                 ? (unsigned int) ks_blocks_launched : "
                   "KS_MAX_BLOCKS;\n");
  g_string_append_printf (w->s, "  const %s ks_neutral = (\n", t);
  paste (w, "neutral", d->neutral, ");");
  g_string_append_printf (w->s, "  %s ks_value = ks_neutral;\n\n", t);
  g_string_append (w->s,
                   "  if (ks_block >= ks_blocks)\n"
                   "    return;\n"
                   "  for (unsigned long i = ks_block * ks_threads + ks_thread; i < n;\n"
                   "       i += (unsigned long) ks_blocks * ks_threads)\n"
                   "    ks_value = ks_reduce (ks_value, (\n");
  paste (w, "map_expr", d->map_expr, "));");
  g_string_append (
    w->s,
    "  ks_shared[ks_thread] = ks_value;\n"
    "  ks_reduce_block (ks_shared, ks_thread, ks_threads);\n\n"
    "  // The block's result, made visible to every block before it takes a\n"
    "  // ticket: the block with the last ticket sees all the others' results.\n"
    "  if (ks_thread == 0)\n"
    "    {\n"
    "      ks_block_results[ks_block] = ks_shared[0];\n"
    "      __threadfence ();\n"
    "      ks_last = atomicAdd (&ks_blocks_done, 1u) == ks_blocks - 1;\n"
    "    }\n"
    "  __syncthreads ();\n"
    "  if (!ks_last)\n"
    "    return;\n\n"
    "  // Read past this multiprocessor's cache: the results came from others.\n");
  g_string_append_printf (w->s, "  const volatile %s *ks_results = ks_block_results;\n\n", t);
  g_string_append (
    w->s,
    "  ks_value = ks_neutral;\n"
    "  for (unsigned int ks_b = ks_thread; ks_b < ks_blocks; ks_b += ks_threads)\n"
    "    ks_value = ks_reduce (ks_value, ks_results[ks_b]);\n"
    "  ks_shared[ks_thread] = ks_value;\n"
    "  ks_reduce_block (ks_shared, ks_thread, ks_threads);\n"
    "  if (ks_thread == 0)\n"
    "    {\n"
    "      " KS_DECLARED_RESULT "[0] = ks_shared[0];\n"
    "      ks_blocks_done = 0;\n"
    "    }\n"
    "}\n");
}

static void
write_scan (Writer *w, const KsDeclaration *d, const char *name, KsElemType elem)
{
  const char *t = ks_elem_type_c_name (elem);
  const gboolean exclusive = d->kind == KS_DECLARED_EXCLUSIVE_SCAN;
  const char *out = d->out_of_place ? "y" : "x";

  g_string_append_printf (w->s,
                          "// %s: %s scan, generated from its declaration (as for PyCUDA's\n"
                          "// %s):\n", name, exclusive ? "an exclusive" : "an inclusive",
                          exclusive ? "ExclusiveScanKernel" : "InclusiveScanKernel");
  echo (w, "dtype", t);
  echo (w, "scan_expr", d->reduce_expr);
  if (exclusive)
    echo (w, "neutral", d->neutral);
  if (exclusive)
    g_string_append_printf (w->s, "// %s[i] = neutral ⊕ x[0] ⊕ … ⊕ x[i-1]", out);
  else
    g_string_append_printf (w->s, "// %s[i] = x[0] ⊕ … ⊕ x[i]", out);
  g_string_append_printf (
    w->s,
    ", ⊕ being scan_expr (a function of a and b),\n"
    "// %s. One block scans the whole array, a block of elements at a time,\n"
    "// carrying the total of those before into the next; the other blocks of a\n"
    "// bigger grid have nothing to do. Right for any n, at one block's pace.\n"
    "//@kernel %s\n//@block 256\n//@grid 1\n\n",
    d->out_of_place ? "from x into y" : "in place", name);
  {
    const char *texts[] = { d->neutral, d->reduce_expr, d->preamble };
    write_constants (w, texts, G_N_ELEMENTS (texts));
  }
  write_preamble (w, d);
  write_combine (w, "ks_scan", t, "scan_expr", d->reduce_expr);

  g_string_append_printf (w->s, "__global__ void\n%s (", name);
  if (d->out_of_place)
    g_string_append_printf (w->s, "const %s *x, %s *y, unsigned long n)\n{\n", t, t);
  else
    g_string_append_printf (w->s, "%s *x, unsigned long n)\n{\n", t);
  g_string_append_printf (w->s, "  __shared__ %s ks_shared[1024];\n", t);
  g_string_append (w->s,
                   "  const unsigned int ks_threads = blockDim.x * blockDim.y * blockDim.z;\n"
                   "  const unsigned int ks_thread =\n"
                   "    threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n");
  if (exclusive)
    {
      g_string_append_printf (w->s, "  const %s ks_neutral = (\n", t);
      paste (w, "neutral", d->neutral, ");");
      g_string_append_printf (w->s, "  %s ks_carry = ks_neutral;\n\n", t);
    }
  else
    g_string_append_printf (w->s, "  %s ks_carry = %s ();  /* the total so far, after the "
                                  "first block of elements */\n\n", t, t);
  g_string_append_printf (
    w->s,
    "  if (blockIdx.x != 0 || blockIdx.y != 0 || blockIdx.z != 0)\n"
    "    return;\n"
    "  for (unsigned long ks_start = 0; ks_start < n; ks_start += ks_threads)\n"
    "    {\n"
    "      const unsigned long i = ks_start + ks_thread;\n"
    "      const unsigned int ks_count = n - ks_start < ks_threads ? (unsigned int) (n - ks_start)\n"
    "                                                              : ks_threads;\n"
    "      const bool ks_mine = ks_thread < ks_count;\n\n"
    "      if (ks_mine)\n"
    "        ks_shared[ks_thread] = x[i];\n"
    "      __syncthreads ();\n"
    "      // Hillis and Steele: after the step with offset d each element holds the\n"
    "      // scan of the 2d elements that end with it (or of all before it).\n"
    "      for (unsigned int ks_offset = 1; ks_offset < ks_count; ks_offset *= 2)\n"
    "        {\n"
    "          const bool ks_adds = ks_mine && ks_thread >= ks_offset;\n"
    "          %s ks_sum = %s ();\n\n"
    "          if (ks_adds)\n"
    "            ks_sum = ks_scan (ks_shared[ks_thread - ks_offset], ks_shared[ks_thread]);\n"
    "          __syncthreads ();\n"
    "          if (ks_adds)\n"
    "            ks_shared[ks_thread] = ks_sum;\n"
    "          __syncthreads ();\n"
    "        }\n", t, t);
  if (exclusive)
    g_string_append_printf (
      w->s,
      "      if (ks_mine)\n"
      "        %s[i] = ks_thread == 0 ? ks_carry : ks_scan (ks_carry, ks_shared[ks_thread - 1]);\n"
      "      ks_carry = ks_scan (ks_carry, ks_shared[ks_count - 1]);\n", out);
  else
    g_string_append_printf (
      w->s,
      "      if (ks_mine)\n"
      "        %s[i] = ks_start == 0 ? ks_shared[ks_thread] : ks_scan (ks_carry, "
      "ks_shared[ks_thread]);\n"
      "      ks_carry = ks_start == 0 ? ks_shared[ks_count - 1]\n"
      "                               : ks_scan (ks_carry, ks_shared[ks_count - 1]);\n", out);
  g_string_append (w->s,
                   "      // Everyone has read the block's last element before the next block\n"
                   "      // of elements overwrites it.\n"
                   "      __syncthreads ();\n"
                   "    }\n"
                   "}\n");
}

/* ---- the declaration ------------------------------------------------------ */

static gboolean
need_piece (Problems *p, const char *piece, const char *text, const char *example)
{
  if (!is_blank (text))
    return TRUE;
  return fail (p, piece, 1, 1, "%s is empty: %s", piece, example);
}

static gboolean
read_dtype (Problems *p, const char *piece, const char *text, KsElemType *type)
{
  if (is_blank (text))
    return fail (p, piece, 1, 1, "%s is empty: name the element type, for example float or "
                 "int", piece);
  if (!ks_elem_type_parse (text, type))
    return fail (p, piece, 1, 1, "unknown type “%s”: %s is char, short, int, long, long long "
                 "(signed or unsigned), int8_t … uint64_t, size_t, float or double (or f32, "
                 "i32, …)", text, piece);
  return TRUE;
}

char *
ks_declaration_generate_text (const KsDeclaration *d, KsDiagnostic **diagnostic, GError **error)
{
  Problems p = { NULL };
  g_autoptr (GPtrArray) args = NULL;
  g_autofree char *file = NULL;
  g_autoptr (GString) s = NULL;
  KsElemType type = KS_ELEM_FLOAT32;
  const char *name;
  Writer w;

  g_return_val_if_fail (d != NULL, NULL);
  g_return_val_if_fail ((guint) d->kind < G_N_ELEMENTS (kind_names), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  name = ks_declaration_get_name (d);
  if (!is_identifier (name))
    fail (&p, "name", 1, 1, "“%s” is not a C name: letters, digits and _, not starting with a "
          "digit", name);
  else
    check_name (&p, "name", 1, 1, name, d);

  switch (d->kind)
    {
    case KS_DECLARED_ELEMENTWISE:
      if (p.diagnostic == NULL)
        args = read_arguments (&p, d);
      need_piece (&p, "operation", d->operation, "write what happens to element i, for "
                  "example “z[i] = a*x[i] + y[i]”");
      break;
    case KS_DECLARED_REDUCTION:
      if (p.diagnostic == NULL)
        args = read_arguments (&p, d);
      read_dtype (&p, "dtype_out", d->dtype, &type);
      need_piece (&p, "neutral", d->neutral, "the value that changes nothing, 0 for a+b, "
                  "-INFINITY for fmaxf(a, b)");
      need_piece (&p, "reduce_expr", d->reduce_expr, "combine a and b, for example “a+b”");
      need_piece (&p, "map_expr", d->map_expr, "the value of element i, for example "
                  "“x[i]*y[i]”");
      break;
    case KS_DECLARED_INCLUSIVE_SCAN:
    case KS_DECLARED_EXCLUSIVE_SCAN:
      if (!is_blank (d->arguments))
        fail (&p, "arguments", 1, 1, "a scan takes no arguments: it scans x (in place, or into "
              "y out of place)");
      read_dtype (&p, "dtype", d->dtype, &type);
      need_piece (&p, "scan_expr", d->reduce_expr, "combine a and b, for example “a+b”");
      if (d->kind == KS_DECLARED_EXCLUSIVE_SCAN)
        need_piece (&p, "neutral", d->neutral, "the value the exclusive scan starts from, 0 "
                    "for a+b");
      else if (!is_blank (d->neutral))
        fail (&p, "neutral", 1, 1, "an inclusive scan starts from x[0] and takes no neutral "
              "value (the exclusive scan does)");
      break;
    default:
      g_assert_not_reached ();
    }

  if (p.diagnostic != NULL)
    {
      g_autofree char *text = ks_diagnostic_format (p.diagnostic);

      g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, text);
      if (diagnostic != NULL)
        *diagnostic = p.diagnostic;
      else
        ks_diagnostic_free (p.diagnostic);
      return NULL;
    }

  file = g_strconcat (name, ".cu", NULL);
  s = g_string_new (NULL);
  w.s = s;
  w.file = file;
  if (d->kind == KS_DECLARED_ELEMENTWISE)
    write_elementwise (&w, d, args, name);
  else if (d->kind == KS_DECLARED_REDUCTION)
    write_reduction (&w, d, args, name, type);
  else
    write_scan (&w, d, name, type);
  if (diagnostic != NULL)
    *diagnostic = NULL;
  return g_string_free (g_steal_pointer (&s), FALSE);
}

KsKernelSource *
ks_declaration_generate (const KsDeclaration *declaration, KsDiagnostic **diagnostic,
                         GError **error)
{
  g_autofree char *text = ks_declaration_generate_text (declaration, diagnostic, error);
  g_autofree char *file = NULL;

  if (text == NULL)
    return NULL;
  file = g_strconcat (ks_declaration_get_name (declaration), ".cu", NULL);
  return ks_kernel_source_new (KS_KERNEL_MODE_ANY, file, text);
}

/* ---- bindings ------------------------------------------------------------- */

static const KsBinding *
find_binding (const GPtrArray *bindings, const char *name)
{
  for (guint i = 0; i < bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index ((GPtrArray *) bindings, i);

      if (g_strcmp0 (b->name, name) == 0)
        return b;
    }
  return NULL;
}

static void
add_out_array (GPtrArray *bindings, const KsKernelArg *arg, gsize length)
{
  KsBinding *b = g_new0 (KsBinding, 1);

  b->name = g_strdup (arg->name);
  b->is_array = TRUE;
  b->type = arg->type;
  b->length = length;
  b->init = KS_ARRAY_INIT_ZEROS;
  b->direction = KS_ARRAY_OUT;
  b->direction_given = TRUE;
  g_ptr_array_add (bindings, b);
}

gboolean
ks_declaration_complete_bindings (KsDeclaredKind kind, const KsKernelSource *source,
                                  GPtrArray *bindings, GError **error)
{
  const GPtrArray *args;
  const KsKernelArg *result_arg = NULL, *y_arg = NULL;
  gsize length = 0;

  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (bindings != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  args = ks_kernel_source_get_args (source);
  for (guint i = 0; args != NULL && i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index ((GPtrArray *) args, i);
      const KsBinding *b;

      if (!arg->pointer)
        continue;
      if (kind == KS_DECLARED_REDUCTION && g_str_equal (arg->name, KS_DECLARED_RESULT))
        {
          result_arg = arg;
          continue;
        }
      if (kind != KS_DECLARED_ELEMENTWISE && kind != KS_DECLARED_REDUCTION
          && g_str_equal (arg->name, "y"))
        {
          y_arg = arg;
          continue;
        }
      b = find_binding (bindings, arg->name);
      if (length == 0 && b != NULL && b->is_array)
        length = b->length;
    }

  /* Nothing is added when something cannot be. */
  if (length == 0 && find_binding (bindings, KS_DECLARED_LENGTH) == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "n is not bound and no array gives the length: bind an array "
                   "(NAME=TYPE[LENGTH]:INIT) or n itself (n=LENGTH)");
      return FALSE;
    }
  if (result_arg != NULL && find_binding (bindings, KS_DECLARED_RESULT) == NULL)
    add_out_array (bindings, result_arg, 1);
  if (y_arg != NULL && length > 0 && find_binding (bindings, "y") == NULL)
    add_out_array (bindings, y_arg, length);
  if (find_binding (bindings, KS_DECLARED_LENGTH) == NULL)
    {
      KsBinding *b = g_new0 (KsBinding, 1);

      b->name = g_strdup (KS_DECLARED_LENGTH);
      b->value = g_strdup_printf ("%" G_GSIZE_FORMAT, length);
      g_ptr_array_add (bindings, b);
    }
  return TRUE;
}
