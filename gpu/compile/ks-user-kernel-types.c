/* ks-user-kernel-types.c: the types a kernel's text declares at file
 * scope, read from its tokens so that arguments of those types can be
 * bound: structs and classes (struct Particle { float3 pos; float mass; };,
 * typedef struct { … } Particle;), with their members' types, fixed-size
 * array members and __align__ / alignas; typedef and using aliases of
 * known types. Each struct is laid out with C's rules (ks-value-type.h);
 * the compiler checks that layout later (ks-user-kernel-layout.c). What
 * cannot be laid out (a union, a bit-field, a pointer member, a member of
 * an unknown type) is kept with the reason, which the binding's message
 * then gives. */
#include "config.h"

#include <string.h>

#include "ks-user-kernel-private.h"

void
_ks_source_type_free (SourceType *t)
{
  if (t == NULL)
    return;
  g_clear_pointer (&t->type, ks_value_type_unref);
  g_free (t->problem);
  g_free (t);
}

/* Past the end: an empty token that is nothing, so that look-ahead needs
 * no bounds check of its own. */
static const Token end_token = { TOK_PUNCT, "", 0, 0, 0 };

static const Token *
tok_at (const GArray *tokens, guint i)
{
  return i < tokens->len ? &g_array_index (tokens, Token, i) : &end_token;
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

/* The index of the bracket that closes the one at `open` (any of ( [ {),
 * or tokens->len. */
static guint
skip_brackets (const GArray *tokens, guint open)
{
  gint depth = 0;

  for (guint i = open; i < tokens->len; i++)
    {
      const Token *t = tok_at (tokens, i);

      if (t->kind != TOK_PUNCT || t->len != 1)
        continue;
      if (strchr ("([{", t->start[0]) != NULL)
        depth++;
      else if (strchr (")]}", t->start[0]) != NULL && --depth == 0)
        return i;
    }
  return tokens->len;
}

/* The end of the declaration starting at i: its ';' at this level (or a
 * function's closing '}'). */
static guint
declaration_end (const GArray *tokens, guint i)
{
  gboolean saw_paren = FALSE;

  for (; i < tokens->len; i++)
    {
      const Token *t = tok_at (tokens, i);

      if (tok_is (t, ";"))
        return i;
      if (tok_is (t, "(") || tok_is (t, "["))
        {
          saw_paren |= tok_is (t, "(");
          i = skip_brackets (tokens, i);
          continue;
        }
      if (tok_is (t, "{"))
        {
          i = skip_brackets (tokens, i);
          /* a function's body ends it; a struct's is followed by its declarators */
          if (saw_paren)
            return i;
          continue;
        }
      if (tok_is (t, "}"))
        return i > 0 ? i - 1 : 0;
    }
  return tokens->len;
}

/* N in __align__(N), alignas(N), __attribute__((aligned(N))) at i, which
 * moves past them; 0 when there is no such attribute at i. */
static gsize
read_align (const GArray *tokens, guint *i, guint end)
{
  const Token *t = tok_at (tokens, *i);
  gsize align = 0;
  guint close;

  if (!(tok_is (t, "__align__") || tok_is (t, "__builtin_align__") || tok_is (t, "alignas")
        || tok_is (t, "__attribute__") || tok_is (t, "__declspec"))
      || !tok_is (tok_at (tokens, *i + 1), "("))
    return 0;
  close = skip_brackets (tokens, *i + 1);
  for (guint k = *i + 2; k < close && k < end; k++)
    {
      const Token *n = tok_at (tokens, k);

      if (n->kind == TOK_NUMBER)
        align = MAX (align, (gsize) g_ascii_strtoull (n->start, NULL, 0));
    }
  *i = close + 1;
  return MAX (align, 1);
}

static gboolean
is_specifier (const Token *t)
{
  return tok_is (t, "const") || tok_is (t, "volatile") || tok_is (t, "mutable")
         || tok_is (t, "struct") || tok_is (t, "class") || tok_is (t, "__device__")
         || tok_is (t, "__host__") || tok_is (t, "__restrict__") || tok_is (t, "typename");
}

/* Where the standard library and CCCL put the fixed-width types and size_t. */
static const char *const scalar_scopes[] = { "cuda::std::", "std::", "::" };

gboolean
_ks_user_kernel_resolve_type (GHashTable *types, const char *base, KsElemType *type,
                              KsValueType **value, char **problem)
{
  SourceType *known;
  KsValueType *builtin;

  *value = NULL;
  *problem = NULL;
  *type = KS_ELEM_OTHER;
  if (ks_elem_type_parse (base, type))
    return TRUE;
  /* ::uint8_t, std::size_t, cuda::std::int32_t: the same scalar types */
  for (guint i = 0; i < G_N_ELEMENTS (scalar_scopes); i++)
    if (g_str_has_prefix (base, scalar_scopes[i])
        && ks_elem_type_parse (base + strlen (scalar_scopes[i]), type))
      return TRUE;
  /* the source's own names first: a typedef may shadow nothing built in,
   * but a struct of the user's may be called anything */
  known = types != NULL ? g_hash_table_lookup (types, base) : NULL;
  if (known != NULL)
    {
      if (known->type == NULL)
        {
          *problem = g_strdup (known->problem);
          return FALSE;
        }
      if (known->type->kind == KS_VALUE_SCALAR)
        {
          *type = known->type->scalar;
          return TRUE;
        }
      *value = ks_value_type_ref (known->type);
      *type = known->type->scalar;
      return TRUE;
    }
  builtin = ks_value_type_lookup (base);
  if (builtin != NULL)
    {
      *value = builtin;
      *type = builtin->scalar;
      return TRUE;
    }
  return FALSE;
}

/* The type text of tokens [from, to) without specifiers: "unsigned int",
 * "thrust::complex<float>". */
static char *
base_text (const GArray *tokens, guint from, guint to)
{
  GString *s = g_string_new (NULL);
  char prev = 0;

  for (guint i = from; i < to; i++)
    {
      const Token *t = tok_at (tokens, i);

      if (is_specifier (t))
        continue;
      if (s->len > 0 && t->kind == TOK_IDENT && (g_ascii_isalnum (prev) || prev == '_'))
        g_string_append_c (s, ' ');
      g_string_append_len (s, t->start, t->len);
      prev = t->start[t->len - 1];
    }
  return g_string_free (s, FALSE);
}

static void
add_type (GHashTable *types, const char *name, KsValueType *type, const char *problem)
{
  SourceType *t = g_new0 (SourceType, 1);

  t->type = type != NULL ? ks_value_type_ref (type) : NULL;
  t->problem = problem != NULL ? g_strdup (problem) : NULL;
  g_hash_table_replace (types, g_strdup (name), t);
}

/* One member declaration [from, to) of a struct: its declarators added as
 * fields; FALSE with *problem when it cannot be laid out. Declarations
 * that take no room (functions, static members, types, access labels)
 * add nothing. */
static gboolean
add_members (GHashTable *types, KsValueType *strukt, const GArray *tokens, guint from, guint to,
             char **problem)
{
  gsize member_align = 0;
  guint i = from, first_name = G_MAXUINT;
  g_autofree char *base = NULL;
  g_autoptr (KsValueType) value = NULL;
  KsElemType scalar;

  /* leading attributes (access labels are read_struct_body's) */
  for (;;)
    {
      gsize a = read_align (tokens, &i, to);

      if (a == 0)
        break;
      member_align = MAX (member_align, a);
    }
  if (i >= to)
    return TRUE;
  {
    const Token *t = tok_at (tokens, i);

    if (tok_is (t, "static") || tok_is (t, "using") || tok_is (t, "typedef")
        || tok_is (t, "friend") || tok_is (t, "template") || tok_is (t, "enum")
        || tok_is (t, "static_assert") || tok_is (t, "constexpr"))
      return TRUE;
    if (tok_is (t, "union"))
      {
        *problem = g_strdup_printf ("a member of %s is a union, which Kernelscope cannot lay "
                                    "out", strukt->name);
        return FALSE;
      }
  }
  for (guint k = i; k < to; k++)
    {
      const Token *t = tok_at (tokens, k);

      if (tok_is (t, "("))
        return TRUE;   /* a member function, a constructor, an operator */
      if (tok_is (t, "{"))
        {
          *problem = g_strdup_printf ("%s defines a type inside itself; define it before %s "
                                      "and use it by name", strukt->name, strukt->name);
          return FALSE;
        }
    }

  /* the base type: the tokens before the first declarator's name */
  for (guint k = i; k < to; k++)
    {
      const Token *t = tok_at (tokens, k);
      const Token *n = tok_at (tokens, k + 1);

      if (t->kind == TOK_IDENT && !is_specifier (t) && !tok_is (t, "unsigned")
          && !tok_is (t, "signed") && !tok_is (t, "long") && !tok_is (t, "short")
          && !tok_is (t, "int") && !tok_is (t, "char")
          && (k + 1 >= to || tok_is (n, ",") || tok_is (n, "[") || tok_is (n, ":")
              || tok_is (n, "=") || tok_is (n, ";")))
        {
          first_name = k;
          break;
        }
    }
  if (first_name == G_MAXUINT)
    {
      *problem = g_strdup_printf ("Kernelscope cannot read a member of %s", strukt->name);
      return FALSE;
    }
  for (guint k = i; k < first_name; k++)
    if (tok_is (tok_at (tokens, k), "*") || tok_is (tok_at (tokens, k), "&"))
      {
        g_autofree char *name = tok_dup (tok_at (tokens, first_name));
        *problem = g_strdup_printf ("its member %s is a %s, which has no value to bind", name,
                                    tok_is (tok_at (tokens, k), "*") ? "pointer" : "reference");
        return FALSE;
      }
  base = base_text (tokens, i, first_name);
  if (!_ks_user_kernel_resolve_type (types, base, &scalar, &value, problem))
    {
      g_autofree char *name = tok_dup (tok_at (tokens, first_name));

      if (*problem == NULL)
        *problem = g_strdup_printf ("its member %s has type %s, which Kernelscope does not "
                                    "know", name, base);
      else
        {
          char *inner = *problem;
          *problem = g_strdup_printf ("its member %s has type %s: %s", name, base, inner);
          g_free (inner);
        }
      return FALSE;
    }
  if (value == NULL)
    value = ks_value_type_new_scalar (scalar);

  /* the declarators: NAME[N][M], *NAME (refused), NAME : BITS (refused), NAME = INIT */
  for (guint k = first_name; k < to;)
    {
      g_autofree char *name = NULL;
      guint64 count = 1;
      const Token *t = tok_at (tokens, k);

      if (tok_is (t, "*") || tok_is (t, "&"))
        {
          const Token *n = tok_at (tokens, k + 1);
          g_autofree char *pname = n->kind == TOK_IDENT ? tok_dup (n) : g_strdup ("");
          *problem = g_strdup_printf ("its member %s is a pointer, which has no value to bind",
                                      pname);
          return FALSE;
        }
      if (t->kind != TOK_IDENT)
        {
          *problem = g_strdup_printf ("Kernelscope cannot read a member of %s", strukt->name);
          return FALSE;
        }
      name = tok_dup (t);
      k++;
      while (k < to && tok_is (tok_at (tokens, k), "["))
        {
          const Token *n = tok_at (tokens, k + 1);
          guint64 dim;
          char *end = NULL;

          if (n->kind != TOK_NUMBER || !tok_is (tok_at (tokens, k + 2), "]"))
            {
              *problem = g_strdup_printf ("the size of its array member %s is not a plain "
                                          "number", name);
              return FALSE;
            }
          {
            g_autofree char *text = tok_dup (n);
            dim = g_ascii_strtoull (text, &end, 0);
            while (end != NULL && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L'))
              end++;
            if (end == NULL || *end != '\0' || dim == 0 || dim > G_MAXUINT / count)
              {
                *problem = g_strdup_printf ("the size of its array member %s is not a plain "
                                            "number", name);
                return FALSE;
              }
          }
          count *= dim;
          k += 3;
        }
      if (k < to && tok_is (tok_at (tokens, k), ":"))
        {
          *problem = g_strdup_printf ("its member %s is a bit-field, which Kernelscope cannot "
                                      "lay out", name);
          return FALSE;
        }
      if (k < to && tok_is (tok_at (tokens, k), "="))
        {
          /* a default member initializer: up to the next declarator */
          while (k < to && !tok_is (tok_at (tokens, k), ","))
            {
              const Token *u = tok_at (tokens, k);
              k = (tok_is (u, "(") || tok_is (u, "[") || tok_is (u, "{"))
                  ? skip_brackets (tokens, k) + 1 : k + 1;
            }
        }
      if (k < to && tok_is (tok_at (tokens, k), "{"))
        k = skip_brackets (tokens, k) + 1;
      ks_value_type_add_field (strukt, name, value, (guint) count, member_align);
      if (k < to && !tok_is (tok_at (tokens, k), ","))
        {
          *problem = g_strdup_printf ("Kernelscope cannot read the member %s of %s", name,
                                      strukt->name);
          return FALSE;
        }
      k++;
    }
  return TRUE;
}

/* The struct whose body's braces are at open and close. */
static KsValueType *
read_struct_body (GHashTable *types, const char *name, gsize struct_align, gboolean is_class,
                  const GArray *tokens, guint open, guint close, char **problem)
{
  g_autoptr (KsValueType) strukt = ks_value_type_new_struct (name);
  gboolean private_part = is_class;

  for (guint i = open + 1; i < close;)
    {
      guint end = declaration_end (tokens, i);

      if (end > close)
        end = close;
      /* access labels decide whether what follows can be checked */
      while (i + 1 < end && tok_is (tok_at (tokens, i + 1), ":")
             && (tok_is (tok_at (tokens, i), "public") || tok_is (tok_at (tokens, i), "private")
                 || tok_is (tok_at (tokens, i), "protected")))
        {
          private_part = !tok_is (tok_at (tokens, i), "public");
          i += 2;
        }
      if (i < end)
        {
          guint before = strukt->n_fields;

          if (!add_members (types, strukt, tokens, i, end, problem))
            return NULL;
          if (private_part && strukt->n_fields > before)
            {
              *problem = g_strdup_printf ("its member %s is private: make the members public "
                                          "(or write struct)",
                                          strukt->fields[before].name);
              return NULL;
            }
        }
      i = end + 1;
    }
  ks_value_type_end_struct (strukt, struct_align);
  return g_steal_pointer (&strukt);
}

/* struct/class/union at i (after typedef when there is one): a definition
 * is read and named by its tag and, for a typedef, its aliases; returns
 * the index after the declaration. */
static guint
read_struct (GHashTable *types, const GArray *tokens, guint i, gboolean is_typedef)
{
  const Token *kw = tok_at (tokens, i);
  gboolean is_union = tok_is (kw, "union"), is_class = tok_is (kw, "class");
  gsize struct_align = 0;
  g_autofree char *tag = NULL;
  g_autofree char *problem = NULL;
  g_autoptr (KsValueType) strukt = NULL;
  guint open, close, end;

  i++;
  for (;;)
    {
      gsize a = read_align (tokens, &i, tokens->len);

      if (a == 0)
        break;
      struct_align = MAX (struct_align, a);
    }
  if (tok_at (tokens, i)->kind == TOK_IDENT)
    tag = tok_dup (tok_at (tokens, i++));
  for (;;)
    {
      gsize a = read_align (tokens, &i, tokens->len);

      if (a == 0)
        break;
      struct_align = MAX (struct_align, a);
    }
  if (tok_is (tok_at (tokens, i), "final"))
    i++;
  if (!tok_is (tok_at (tokens, i), "{"))
    {
      if (tok_is (tok_at (tokens, i), ":") && tag != NULL)
        add_type (types, tag, NULL, "it derives from another type, which Kernelscope cannot "
                  "lay out; write its members out");
      return declaration_end (tokens, i) + 1;
    }
  open = i;
  close = skip_brackets (tokens, open);
  if (close >= tokens->len)
    return tokens->len;
  if (is_union)
    problem = g_strdup ("it is a union, which Kernelscope cannot lay out");
  else
    strukt = read_struct_body (types, tag != NULL ? tag : "", struct_align, is_class, tokens,
                               open, close, &problem);

  end = declaration_end (tokens, close + 1);
  if (tag != NULL)
    add_type (types, tag, strukt, problem);
  if (is_typedef)
    {
      /* typedef struct [TAG] { … } NAME[, *PNAME];: the plain names */
      for (guint k = close + 1; k < end; k++)
        {
          const Token *t = tok_at (tokens, k);
          const Token *prev = tok_at (tokens, k - 1);

          if (t->kind != TOK_IDENT || tok_is (prev, "*"))
            continue;
          if (strukt != NULL && *strukt->name == '\0')
            {
              g_free (strukt->name);
              strukt->name = tok_dup (t);
            }
          {
            g_autofree char *alias = tok_dup (t);
            add_type (types, alias, strukt, problem);
          }
        }
    }
  return end + 1;
}

/* typedef BASE NAME; / using NAME = BASE;: an alias of a type already known. */
static void
read_alias (GHashTable *types, const GArray *tokens, guint base_from, guint base_to,
            const Token *name_token)
{
  g_autofree char *base = base_text (tokens, base_from, base_to);
  g_autofree char *name = tok_dup (name_token);
  g_autofree char *problem = NULL;
  g_autoptr (KsValueType) value = NULL;
  KsElemType scalar;

  for (guint k = base_from; k < base_to; k++)
    if (tok_is (tok_at (tokens, k), "*") || tok_is (tok_at (tokens, k), "&")
        || tok_is (tok_at (tokens, k), "("))
      return;
  if (!_ks_user_kernel_resolve_type (types, base, &scalar, &value, &problem))
    {
      if (problem != NULL)
        add_type (types, name, NULL, problem);
      return;
    }
  if (value == NULL)
    value = ks_value_type_new_scalar (scalar);
  else if (value->kind == KS_VALUE_STRUCT)
    {
      /* the struct keeps its layout; the compiler knows both names */
    }
  add_type (types, name, value, NULL);
}

void
_ks_user_kernel_read_types (KsKernelSource *self, const GArray *tokens)
{
  guint i = 0;

  while (i < tokens->len)
    {
      const Token *t = tok_at (tokens, i);

      if (tok_is (t, "template"))
        {
          /* a template is a family, not a type: skip it and what it declares */
          guint k = i + 1;

          if (tok_is (tok_at (tokens, k), "<"))
            {
              gint depth = 0;
              for (; k < tokens->len; k++)
                {
                  if (tok_is (tok_at (tokens, k), "<"))
                    depth++;
                  else if (tok_is (tok_at (tokens, k), ">") && --depth == 0)
                    break;
                }
            }
          i = declaration_end (tokens, k + 1) + 1;
          continue;
        }
      if (tok_is (t, "struct") || tok_is (t, "class") || tok_is (t, "union"))
        {
          i = read_struct (self->types, tokens, i, FALSE);
          continue;
        }
      if (tok_is (t, "typedef"))
        {
          const Token *n = tok_at (tokens, i + 1);
          guint end;

          if (tok_is (n, "struct") || tok_is (n, "class") || tok_is (n, "union"))
            {
              /* typedef struct Tag Alias; names a struct defined elsewhere */
              guint after = i + 2;
              while (after < tokens->len && tok_at (tokens, after)->kind == TOK_IDENT
                     && !tok_is (tok_at (tokens, after + 1), ";"))
                after++;
              if (!tok_is (tok_at (tokens, after), "{")
                  && tok_is (tok_at (tokens, after + 1), ";")
                  && tok_at (tokens, after)->kind == TOK_IDENT && after > i + 2)
                {
                  read_alias (self->types, tokens, i + 1, after, tok_at (tokens, after));
                  i = after + 2;
                  continue;
                }
              i = read_struct (self->types, tokens, i + 1, TRUE);
              continue;
            }
          end = declaration_end (tokens, i + 1);
          if (end < tokens->len && end > i + 2 && tok_at (tokens, end - 1)->kind == TOK_IDENT)
            read_alias (self->types, tokens, i + 1, end - 1, tok_at (tokens, end - 1));
          i = end + 1;
          continue;
        }
      if (tok_is (t, "using") && tok_at (tokens, i + 1)->kind == TOK_IDENT && tok_is (tok_at (tokens, i + 2), "="))
        {
          guint end = declaration_end (tokens, i + 3);

          read_alias (self->types, tokens, i + 3, MIN (end, tokens->len), tok_at (tokens, i + 1));
          i = end + 1;
          continue;
        }
      if (tok_is (t, "{") || tok_is (t, "(") || tok_is (t, "["))
        {
          i = skip_brackets (tokens, i) + 1;
          continue;
        }
      i++;
    }
}
