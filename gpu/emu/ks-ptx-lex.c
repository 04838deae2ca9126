/* ks-ptx-lex.c: PTX text as tokens, and the PTX types by name.
 *
 * Words run over letters, digits and _ $ % . so that an opcode
 * ("ld.global.v2.f32"), a directive (".reg"), a register ("%tid.x") and a
 * label ("$L__BB0_2") are one token each; the parser splits an opcode at its
 * dots. A number starts with a digit: decimal, 0x hexadecimal, 0f and 0d
 * floating-point bit patterns, and the rare decimal fraction. */
#include "config.h"

#include "ks-error.h"
#include "ks-emu-private.h"

static const struct
{
  const char *name;
  KsPtxType type;
  guint size;
} types[] = {
  { "b8", KS_PTX_B8, 1 }, { "b16", KS_PTX_B16, 2 }, { "b32", KS_PTX_B32, 4 },
  { "b64", KS_PTX_B64, 8 }, { "b128", KS_PTX_B128, 16 },
  { "u8", KS_PTX_U8, 1 }, { "u16", KS_PTX_U16, 2 }, { "u32", KS_PTX_U32, 4 },
  { "u64", KS_PTX_U64, 8 },
  { "s8", KS_PTX_S8, 1 }, { "s16", KS_PTX_S16, 2 }, { "s32", KS_PTX_S32, 4 },
  { "s64", KS_PTX_S64, 8 },
  { "f16", KS_PTX_F16, 2 }, { "f16x2", KS_PTX_F16X2, 4 }, { "bf16", KS_PTX_BF16, 2 },
  { "bf16x2", KS_PTX_BF16X2, 4 }, { "f32", KS_PTX_F32, 4 }, { "f64", KS_PTX_F64, 8 },
  { "pred", KS_PTX_PRED, 0 },
};

KsPtxType
_ks_ptx_type_from_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (types[i].name, name) == 0)
      return types[i].type;
  return KS_PTX_NONE;
}

const char *
_ks_ptx_type_name (KsPtxType type)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (types[i].type == type)
      return types[i].name;
  return "none";
}

guint
_ks_ptx_type_size (KsPtxType type)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (types[i].type == type)
      return types[i].size;
  return 0;
}

gboolean
_ks_ptx_type_is_signed (KsPtxType type)
{
  return type == KS_PTX_S8 || type == KS_PTX_S16 || type == KS_PTX_S32 || type == KS_PTX_S64;
}

gboolean
_ks_ptx_type_is_float (KsPtxType type)
{
  return type >= KS_PTX_F16 && type <= KS_PTX_F64;
}

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static void
push (GArray *tokens, KsPtxTokenKind kind, const char *text, gsize len, guint line)
{
  KsPtxToken t = { kind, line, (guint) len, text };

  g_array_append_val (tokens, t);
}

GArray *
_ks_ptx_lex (const char *ptx, GError **error)
{
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (KsPtxToken));
  const char *p = ptx;
  guint line = 1;

  while (*p != '\0')
    {
      char c = *p;

      if (c == '\n')
        {
          line++;
          p++;
        }
      else if (g_ascii_isspace (c))
        p++;
      else if (c == '/' && p[1] == '/')
        {
          while (*p != '\0' && *p != '\n')
            p++;
        }
      else if (c == '/' && p[1] == '*')
        {
          guint start = line;

          p += 2;
          while (*p != '\0' && !(p[0] == '*' && p[1] == '/'))
            {
              if (*p == '\n')
                line++;
              p++;
            }
          if (*p == '\0')
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "PTX line %u: a comment that does not end", start);
              return NULL;
            }
          p += 2;
        }
      else if (c == '"')
        {
          const char *start = ++p;

          while (*p != '\0' && *p != '"' && *p != '\n')
            p += (p[0] == '\\' && p[1] != '\0') ? 2 : 1;
          if (*p != '"')
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "PTX line %u: a string that does not end", line);
              return NULL;
            }
          push (tokens, KS_PTX_TOK_STRING, start, (gsize) (p - start), line);
          p++;
        }
      else if (g_ascii_isdigit (c))
        {
          const char *start = p;
          gboolean hex = c == '0' && strchr ("xXfFdD", p[1]) != NULL;
          gboolean dot = FALSE;

          /* A decimal fraction may have an exponent with a sign: 1.5e+3. */
          while (g_ascii_isalnum (*p) || *p == '.' || *p == '_'
                 || (!hex && dot && (*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
            dot |= *p++ == '.';
          push (tokens, KS_PTX_TOK_NUMBER, start, (gsize) (p - start), line);
        }
      else if (is_word_char (c))
        {
          const char *start = p;

          while (is_word_char (*p))
            p++;
          push (tokens, KS_PTX_TOK_WORD, start, (gsize) (p - start), line);
        }
      else if (strchr ("{}[]()<>,;:+-|!@=*", c) != NULL)
        {
          push (tokens, KS_PTX_TOK_PUNCT, p, 1, line);
          p++;
        }
      else
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "PTX line %u: unexpected character 0x%02x", line, (guint) (guchar) c);
          return NULL;
        }
    }
  push (tokens, KS_PTX_TOK_EOF, p, 0, line);
  return g_steal_pointer (&tokens);
}
