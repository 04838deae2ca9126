/* ks-user-kernel-signature.c: the entry point and its signature: every
 * __global__ function found in the tokens, declarations merged with their
 * definition, the one to run chosen (by the caller's kernel option, by
 * //@kernel, or the only one), its
 * arguments read as KsKernelArg and, in the image mode, checked against the
 * documented image signature. Here too ks_kernel_source_new, which reads a
 * text in that order: the lexer, the annotations, the signature, then the
 * user's headers (ks-user-kernel-includes.c). */
#include "config.h"

#include <string.h>

#include "ks-user-kernel-private.h"

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
  const Token *prev_token = NULL;
  char prev = 0;

  for (guint i = from; i < to; i++)
    {
      const Token *t = &g_array_index (tokens, Token, i);
      if (i == skip)
        continue;
      /* "std::size_t", but "const ::uint8_t": a leading :: keeps its space */
      if (s->len > 0 && prev != '*' && prev != '&' && prev != ':'
          && (!tok_is (t, "::") || (prev_token != NULL && is_qualifier (prev_token))))
        g_string_append_c (s, ' ');
      g_string_append_len (s, t->start, t->len);
      prev = t->start[t->len - 1];
      prev_token = t;
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
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, t->line, t->column,
                                      "argument %u of “%s” has no name: name it so that it can be "
                                      "bound", number, kernel);
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
      /* thrust::complex<float>: a qualified or template name, as one word */
      if (first_star == G_MAXUINT && base->len > 0
          && (tok_is (t, "::") || tok_is (t, "<") || tok_is (t, ">")
              || (t->kind == TOK_NUMBER && base->str[base->len - 1] == '<')))
        {
          g_string_append_len (base, t->start, t->len);
          continue;
        }
      if (first_star != G_MAXUINT || (t->kind != TOK_IDENT && !tok_is (t, "::")))
        {
          other = TRUE;
          continue;
        }
      if (base->len > 0 && base->str[base->len - 1] != ':' && base->str[base->len - 1] != '<')
        g_string_append_c (base, ' ');
      g_string_append_len (base, t->start, t->len);
    }
  if (first_star != G_MAXUINT && n_stars == 0)
    n_stars = 1;
  arg->pointer = n_stars > 0;
  arg->is_const = arg->pointer ? const_before_star : const_anywhere;
  if (other || n_stars > 1 || base->len == 0
      || !_ks_user_kernel_resolve_type (self->types, base->str, &arg->type, &arg->value,
                                        &arg->type_problem))
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
                      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, arg->line,
                                                      arg->column,
                                                      "“%s” names two arguments of %s: give each "
                                                      "its own name", arg->name, d->name);
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
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, name_token->line,
                                      name_token->column,
                                      "an image kernel takes (ks_image out, ks_image in[, "
                                      "ks_image in2][, ks_params p]), but “%s” takes %s; write "
                                      "the any mode for other arguments", self->entry, got);
      return;
    }
  if (found->inputs_line != 0 && self->n_inputs != n_images - 1)
    _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, found->inputs_line,
                                    found->inputs_column,
                                    "@inputs says %u but “%s” takes %u input image%s",
                                    self->n_inputs, self->entry, n_images - 1,
                                    n_images == 2 ? "" : "s");
  self->n_inputs = n_images - 1;
}

static void
parse_signature (KsKernelSource *self, const GArray *tokens, const Annotations *found)
{
  g_autoptr (GArray) all = find_kernels (tokens);
  g_autoptr (GArray) decls = unique_kernels (all);
  const KernelDecl *entry = NULL;
  /* The caller's choice (--kernel, the editor's chooser) wins over the
   * text's //@kernel; its messages have no line in the text. */
  const gboolean picked = self->kernel_option != NULL;
  const char *wanted = picked ? self->kernel_option : found->kernel;
  const guint at_line = picked ? 0 : found->kernel_line;
  const guint at_column = picked ? 0 : found->kernel_column;
  const char *how = picked ? "" : "//@kernel ";

  self->kernels = g_new0 (char *, decls->len + 1);
  for (guint i = 0; i < decls->len; i++)
    self->kernels[i] = g_strdup (g_array_index (decls, KernelDecl, i).name);

  if (wanted != NULL)
    {
      const char *lt = strchr (wanted, '<');
      g_autofree char *base = g_strstrip (g_strndup (wanted, lt != NULL ? (gsize) (lt - wanted)
                                                                        : strlen (wanted)));

      for (guint i = 0; i < decls->len && entry == NULL; i++)
        if (g_str_equal (g_array_index (decls, KernelDecl, i).name, base))
          entry = &g_array_index (decls, KernelDecl, i);
      if (entry == NULL)
        {
          g_autofree char *names = kernel_names (decls);
          if (decls->len == 0)
            _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, at_line, at_column,
                                            "%s “%s”, but the source has no __global__ "
                                            "function", picked ? "the kernel asked for is"
                                                               : "@kernel names", base);
          else
            _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, at_line, at_column,
                                            "%s “%s”, but there is no __global__ "
                                            "function of that name (the source has %s)",
                                            picked ? "the kernel asked for is" : "@kernel names",
                                            base, names);
          return;
        }
      if (entry->is_template && lt == NULL)
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, at_line, at_column,
                                          "“%s” is a template: name the instantiation to run, for "
                                          "example %s%s<float>", base, how, base);
          return;
        }
      if (!entry->is_template && lt != NULL)
        {
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, at_line, at_column,
                                          "“%s” is not a template: name it without template "
                                          "arguments", base);
          return;
        }
      self->entry = g_strdup (wanted);
    }
  else if (decls->len == 0)
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, 0, 0,
                                      "the source has no __global__ function: write the kernel to "
                                      "run, as in __global__ void %s",
                                      self->mode == KS_KERNEL_MODE_IMAGE
                                      ? "filter (ks_image out, ks_image in)"
                                      : "add (float *result, const float *a, const float *b, "
                                        "int n)");
      return;
    }
  else if (decls->len > 1)
    {
      g_autofree char *names = kernel_names (decls);
      const KernelDecl *second = &g_array_index (decls, KernelDecl, 1);
      const Token *t = &g_array_index (tokens, Token, second->name_index);
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, t->line, t->column,
                                      "the source has several __global__ functions (%s): say "
                                      "which one runs with //@kernel NAME (kernelscope-cli "
                                      "kernel: --kernel NAME; the editor: its kernel chooser)",
                                      names);
      return;
    }
  else
    {
      entry = &g_array_index (decls, KernelDecl, 0);
      if (entry->is_template)
        {
          const Token *t = &g_array_index (tokens, Token, entry->name_index);
          _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, t->line, t->column,
                                          "“%s” is a template: name the instantiation to run, for "
                                          "example //@kernel %s<float>", entry->name, entry->name);
          return;
        }
      self->entry = g_strdup (entry->name);
    }

  parse_args (self, tokens, entry);
  if (self->mode == KS_KERNEL_MODE_IMAGE)
    check_image_signature (self, &g_array_index (tokens, Token, entry->name_index), found);
}

/* ---- reading a source ----------------------------------------------------- */

KsKernelSource *
ks_kernel_source_new (KsKernelMode mode, const char *file_name, const char *text)
{
  return ks_kernel_source_new_full (mode, file_name, text, NULL);
}

KsKernelSource *
ks_kernel_source_new_full (KsKernelMode mode, const char *file_name, const char *text,
                           const KsKernelSourceOptions *options)
{
  KsKernelSource *self;
  Annotations found = { { 0 } };
  Lexer lx = { 0 };

  g_return_val_if_fail ((guint) mode <= KS_KERNEL_MODE_ANY, NULL);
  g_return_val_if_fail (text != NULL, NULL);

  self = g_new0 (KsKernelSource, 1);
  self->ref_count = 1;
  self->mode = mode;
  self->file_name = g_strdup (file_name != NULL && *file_name != '\0' ? file_name : "kernel.cu");
  self->text = g_strdup (text);
  self->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  self->args = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_arg_free);
  self->strings = g_ptr_array_new_with_free_func (g_free);
  self->headers = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_header_free);
  self->kernels = g_new0 (char *, 1);
  if (options != NULL && options->kernel != NULL && options->kernel[0] != '\0')
    self->kernel_option = g_strstrip (g_strdup (options->kernel));
  if (options != NULL && options->source_dir != NULL && options->source_dir[0] != '\0')
    self->source_dir = g_strdup (options->source_dir);
  self->include_dirs = g_strdupv (options != NULL ? (char **) options->include_dirs : NULL);
  if (self->include_dirs == NULL)
    self->include_dirs = g_new0 (char *, 1);
  self->types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) _ks_source_type_free);
  self->n_inputs = 1;
  self->output_format = KS_FORMAT_RGBA8;
  ks_launch_config_init (&self->launch, 16, 16);
  self->launch.pixels_per_thread = 1;

  if (!g_utf8_validate (text, -1, NULL))
    {
      _ks_user_kernel_add_diagnostic (self, KS_DIAGNOSTIC_ERROR, 0, 0,
                                      "the source is not valid UTF-8 text: save it as UTF-8");
      return self;
    }

  _ks_user_kernel_lex (&lx, self->text);
  for (guint i = 0; i < lx.annotations->len; i++)
    _ks_user_kernel_parse_annotation (self, &g_array_index (lx.annotations, Annotation, i), &found);
  if (mode == KS_KERNEL_MODE_ANY)
    _ks_user_kernel_read_types (self, lx.tokens);
  if (mode != KS_KERNEL_MODE_EXPRESSION)
    {
      g_strfreev (self->kernels);
      parse_signature (self, lx.tokens, &found);
    }
  if (options != NULL && options->headers != NULL)
    for (guint i = 0; i < options->headers->len; i++)
      {
        const KsKernelHeader *h = g_ptr_array_index (options->headers, i);

        g_ptr_array_add (self->headers, ks_kernel_header_new (h->name, h->path, h->contents));
      }
  else if (options != NULL)
    _ks_user_kernel_read_includes (self);
  if (mode == KS_KERNEL_MODE_ANY)
    self->n_inputs = 1;
  /* An array kernel indexes along x: its default block is a row of 256
   * threads, as array code launches it, not an image's 16×16 tile. */
  if (mode == KS_KERNEL_MODE_ANY && found.seen_line[ANN_BLOCK] == 0)
    {
      self->launch.block.x = 256;
      self->launch.block.y = 1;
      self->launch.block.z = 1;
    }
  g_free (found.kernel);
  _ks_user_kernel_lexer_clear (&lx);
  return self;
}
