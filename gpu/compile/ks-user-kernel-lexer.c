/* ks-user-kernel-lexer.c: a small C lexer over the user's text. It knows
 * comments, string and character literals and preprocessor lines, so that
 * `__global__` inside any of them is not taken for a kernel and annotations
 * are found only in real line comments; nothing here understands C++ beyond
 * what a signature needs. */
#include "config.h"

#include "ks-user-kernel-private.h"

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

void
_ks_user_kernel_lex (Lexer *lx, const char *text)
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

void
_ks_user_kernel_lexer_clear (Lexer *lx)
{
  g_clear_pointer (&lx->tokens, g_array_unref);
  g_clear_pointer (&lx->annotations, g_array_unref);
}

gboolean
_ks_user_kernel_is_identifier (const char *s)
{
  if (!is_ident_start (*s))
    return FALSE;
  for (s++; *s != '\0'; s++)
    if (!is_ident_char (*s))
      return FALSE;
  return TRUE;
}
