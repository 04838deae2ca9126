/* ks-nvrtc-diagnostic.c: KsDiagnostic, a message at the user's line, and
 * NVRTC's log read into them: located messages with the echoed source line
 * and its caret, unlocated ones, ptxas' errors, and the instantiation
 * context as notes. */
#include "config.h"

#include <string.h>

#include "ks-nvrtc.h"

/* The indentation NVRTC puts before the echoed source line and its caret line. */
#define KS_NVRTC_ECHO_INDENT 2

KsDiagnostic *
ks_diagnostic_new (KsDiagnosticSeverity severity, const char *file, guint line, guint column,
                   const char *message)
{
  KsDiagnostic *d = g_new0 (KsDiagnostic, 1);

  d->severity = severity;
  d->file = g_strdup (file);
  d->line = line;
  d->column = column;
  d->message = g_strdup (message);
  return d;
}

KsDiagnostic *
ks_diagnostic_copy (const KsDiagnostic *diagnostic)
{
  KsDiagnostic *d;

  g_return_val_if_fail (diagnostic != NULL, NULL);

  d = ks_diagnostic_new (diagnostic->severity, diagnostic->file, diagnostic->line,
                         diagnostic->column, diagnostic->message);
  d->code = g_strdup (diagnostic->code);
  return d;
}

void
ks_diagnostic_free (KsDiagnostic *diagnostic)
{
  if (diagnostic == NULL)
    return;
  g_free (diagnostic->file);
  g_free (diagnostic->code);
  g_free (diagnostic->message);
  g_free (diagnostic);
}

const char *
ks_diagnostic_severity_name (KsDiagnosticSeverity severity)
{
  switch (severity)
    {
    case KS_DIAGNOSTIC_ERROR:
      return "error";
    case KS_DIAGNOSTIC_WARNING:
      return "warning";
    case KS_DIAGNOSTIC_NOTE:
    default:
      return "note";
    }
}

char *
ks_diagnostic_format (const KsDiagnostic *diagnostic)
{
  GString *s;

  g_return_val_if_fail (diagnostic != NULL, NULL);

  s = g_string_new (diagnostic->file != NULL ? diagnostic->file : "<source>");
  if (diagnostic->line > 0)
    {
      g_string_append_printf (s, ":%u", diagnostic->line);
      if (diagnostic->column > 0)
        g_string_append_printf (s, ":%u", diagnostic->column);
    }
  g_string_append_printf (s, ": %s: %s", ks_diagnostic_severity_name (diagnostic->severity),
                          diagnostic->message != NULL ? diagnostic->message : "");
  return g_string_free (s, FALSE);
}

/* ---- NVRTC's log ---------------------------------------------------------- */

typedef struct
{
  GRegex *located;    /* user.cu(3): error: … / user.cu(1): warning #177-D: … */
  GRegex *unlocated;  /* error: … / nvrtc: error: … */
  GRegex *ptxas;      /* ptxas error   : … */
  GRegex *context;    /* instantiation of "…" at line 5 of "user.cu" */
} LogPatterns;

static const LogPatterns *
log_patterns (void)
{
  static LogPatterns patterns;
  static gsize initialised = 0;

  if (g_once_init_enter (&initialised))
    {
      const char *severities = "(catastrophic error|internal error|error|warning|remark|note)";
      g_autofree char *located = NULL;
      g_autofree char *unlocated = NULL;

      located = g_strdup_printf ("^(\\S.*?)\\((\\d+)\\): %s(?: #([^\\s:]+))?: (.*)$",
                                 severities);
      unlocated = g_strdup_printf ("^(?:nvrtc: )?%s(?: #([^\\s:]+))?: (.*)$", severities);
      patterns.located = g_regex_new (located, G_REGEX_OPTIMIZE, 0, NULL);
      patterns.unlocated = g_regex_new (unlocated, G_REGEX_OPTIMIZE, 0, NULL);
      patterns.ptxas = g_regex_new ("^ptxas\\s+(error|fatal|warning)\\s*: (.*)$",
                                    G_REGEX_OPTIMIZE, 0, NULL);
      patterns.context = g_regex_new ("^(.*) at line (\\d+)(?: of \"(.*)\")?$",
                                      G_REGEX_OPTIMIZE, 0, NULL);
      g_assert (patterns.located != NULL && patterns.unlocated != NULL
                && patterns.ptxas != NULL && patterns.context != NULL);
      g_once_init_leave (&initialised, 1);
    }
  return &patterns;
}

static KsDiagnosticSeverity
severity_from_word (const char *word)
{
  if (g_str_equal (word, "warning"))
    return KS_DIAGNOSTIC_WARNING;
  if (g_str_equal (word, "remark") || g_str_equal (word, "note"))
    return KS_DIAGNOSTIC_NOTE;
  /* error, catastrophic error, internal error, ptxas' fatal */
  return KS_DIAGNOSTIC_ERROR;
}

static guint
parse_guint (const char *text)
{
  guint64 value = g_ascii_strtoull (text, NULL, 10);

  return (guint) MIN (value, G_MAXUINT);
}

static gboolean
is_blank (const char *line)
{
  for (; *line != '\0'; line++)
    if (!g_ascii_isspace (*line))
      return FALSE;
  return TRUE;
}

static gboolean
is_caret_line (const char *line)
{
  const char *caret = strchr (line, '^');

  if (caret == NULL)
    return FALSE;
  for (const char *p = line; p < caret; p++)
    if (*p != ' ' && *p != '\t')
      return FALSE;
  return is_blank (caret + 1);
}

/* NVRTC echoes the source line after two spaces and writes the caret line
 * the same way, copying the line's tabs and putting one space per byte of
 * everything else, so the caret's byte offset is the byte offset into the
 * source line. The column counts characters (a tab is one, "é" is one), as
 * an editor does; 0 when the two lines do not have that shape. */
static guint
column_from_caret (const char *echo, const char *caret_line)
{
  gsize offset;
  gsize echo_len;
  const char *source_line;

  if (strlen (echo) < KS_NVRTC_ECHO_INDENT || strncmp (echo, "  ", KS_NVRTC_ECHO_INDENT) != 0
      || strncmp (caret_line, "  ", KS_NVRTC_ECHO_INDENT) != 0)
    return 0;

  offset = (gsize) (strchr (caret_line, '^') - caret_line) - KS_NVRTC_ECHO_INDENT;
  source_line = echo + KS_NVRTC_ECHO_INDENT;
  echo_len = strlen (source_line);

  /* Past the end: the caret points after the line's last character. */
  if (offset >= echo_len)
    {
      if (g_utf8_validate (source_line, -1, NULL))
        return (guint) (g_utf8_strlen (source_line, -1) + (offset - echo_len) + 1);
      return (guint) offset + 1;
    }
  if (g_utf8_validate (source_line, (gssize) offset, NULL))
    return (guint) g_utf8_strlen (source_line, (gssize) offset) + 1;
  return (guint) offset + 1;
}

static char *
match_group (GMatchInfo *match, int group)
{
  char *text = g_match_info_fetch (match, group);

  if (text != NULL && text[0] == '\0')
    g_clear_pointer (&text, g_free);
  return text;
}

/* "detected during:" / "detected during instantiation of "f<float>" at line 5":
 * where a template was instantiated from, as notes at those lines. Lines
 * without a place are appended to the message. */
static void
add_context_line (GPtrArray *diagnostics, KsDiagnostic *parent, const char *line)
{
  g_autofree char *text = g_strstrip (g_strdup (line));
  const char *what = text;
  g_autoptr(GMatchInfo) match = NULL;

  if (g_str_has_prefix (what, "detected during"))
    {
      what += strlen ("detected during");
      if (*what == ':')
        what++;
      while (*what == ' ')
        what++;
      if (*what == '\0')
        return;
    }

  if (g_regex_match (log_patterns ()->context, what, 0, &match))
    {
      g_autofree char *message = g_match_info_fetch (match, 1);
      g_autofree char *number = g_match_info_fetch (match, 2);
      g_autofree char *file = match_group (match, 3);
      KsDiagnostic *note;

      note = ks_diagnostic_new (KS_DIAGNOSTIC_NOTE, file != NULL ? file : parent->file,
                                parse_guint (number), 0, message);
      g_ptr_array_add (diagnostics, note);
    }
  else
    {
      char *message = g_strconcat (parent->message, "\n", text, NULL);

      g_free (parent->message);
      parent->message = message;
    }
}

/* One located diagnostic: its header line at lines[i], then indented lines up
 * to the next blank line: the message's continuation ("function "f(int)"
 * (declared at line 1)"), the echoed source line and its caret, and the
 * instantiation context. Returns the index after it. */
static guint
parse_located (GPtrArray *diagnostics, char **lines, guint n_lines, guint i, GMatchInfo *match)
{
  g_autofree char *file = g_match_info_fetch (match, 1);
  g_autofree char *number = g_match_info_fetch (match, 2);
  g_autofree char *word = g_match_info_fetch (match, 3);
  g_autofree char *code = match_group (match, 4);
  g_autofree char *message = g_match_info_fetch (match, 5);
  g_autoptr(GString) full_message = g_string_new (message);
  KsDiagnostic *d;
  guint end = i + 1;
  guint caret = 0;
  guint message_end;

  while (end < n_lines && (lines[end][0] == ' ' || lines[end][0] == '\t'))
    {
      if (caret == 0 && end > i + 1 && is_caret_line (lines[end]))
        caret = end;
      end++;
    }

  message_end = caret != 0 ? caret - 1 : end;
  for (guint k = i + 1; k < message_end; k++)
    {
      g_autofree char *more = g_strstrip (g_strdup (lines[k]));

      g_string_append_c (full_message, '\n');
      g_string_append (full_message, more);
    }

  d = ks_diagnostic_new (severity_from_word (word), file, parse_guint (number),
                         caret != 0 ? column_from_caret (lines[caret - 1], lines[caret]) : 0,
                         full_message->str);
  d->code = g_steal_pointer (&code);
  g_ptr_array_add (diagnostics, d);

  for (guint k = caret != 0 ? caret + 1 : end; k < end; k++)
    add_context_line (diagnostics, d, lines[k]);
  return end;
}

GPtrArray *
ks_nvrtc_parse_log (const char *log)
{
  const LogPatterns *patterns = log_patterns ();
  GPtrArray *diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  g_auto(GStrv) lines = NULL;
  guint n_lines;
  guint i = 0;

  if (log == NULL)
    return diagnostics;

  lines = g_strsplit (log, "\n", -1);
  n_lines = g_strv_length (lines);
  for (guint k = 0; k < n_lines; k++)
    {
      gsize len = strlen (lines[k]);

      if (len > 0 && lines[k][len - 1] == '\r')
        lines[k][len - 1] = '\0';
    }

  /* Everything else is left out: ptxas' info lines, "Remark: The warnings
   * can be suppressed…", "N errors detected in the compilation of…",
   * "Compilation terminated.". */
  while (i < n_lines)
    {
      g_autoptr(GMatchInfo) match = NULL;

      if (g_regex_match (patterns->located, lines[i], 0, &match))
        {
          i = parse_located (diagnostics, lines, n_lines, i, match);
          continue;
        }
      g_clear_pointer (&match, g_match_info_free);

      if (g_regex_match (patterns->unlocated, lines[i], 0, &match))
        {
          g_autofree char *word = g_match_info_fetch (match, 1);
          g_autofree char *code = match_group (match, 2);
          g_autofree char *message = g_match_info_fetch (match, 3);
          KsDiagnostic *d = ks_diagnostic_new (severity_from_word (word), NULL, 0, 0, message);

          d->code = g_steal_pointer (&code);
          g_ptr_array_add (diagnostics, d);
        }
      else
        {
          g_clear_pointer (&match, g_match_info_free);
          if (g_regex_match (patterns->ptxas, lines[i], 0, &match))
            {
              g_autofree char *word = g_match_info_fetch (match, 1);
              g_autofree char *message = g_match_info_fetch (match, 2);

              g_ptr_array_add (diagnostics,
                               ks_diagnostic_new (severity_from_word (word), NULL, 0, 0,
                                                  message));
            }
        }
      i++;
    }
  return diagnostics;
}
