#include "config.h"

#include "ks-nvrtc.h"

#include <dlfcn.h>
#include <string.h>

#include "ks-error.h"

/* ---- diagnostics, resources, results: plain data ------------------------- */

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

void
ks_kernel_resources_free (KsKernelResources *resources)
{
  if (resources == NULL)
    return;
  g_free (resources->name);
  g_free (resources->lowered_name);
  g_free (resources);
}

KsKernelResources *
ks_kernel_resources_copy (const KsKernelResources *resources)
{
  KsKernelResources *r;

  g_return_val_if_fail (resources != NULL, NULL);

  r = g_memdup2 (resources, sizeof *resources);
  r->name = g_strdup (resources->name);
  r->lowered_name = g_strdup (resources->lowered_name);
  return r;
}

void
ks_compile_result_free (KsCompileResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->cubin, g_bytes_unref);
  g_free (result->log);
  g_clear_pointer (&result->diagnostics, g_ptr_array_unref);
  g_clear_pointer (&result->kernels, g_ptr_array_unref);
  g_free (result);
}

guint
ks_compile_result_count (const KsCompileResult *result, KsDiagnosticSeverity severity)
{
  guint n = 0;

  g_return_val_if_fail (result != NULL, 0);

  for (guint i = 0; result->diagnostics != NULL && i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (d->severity == severity)
        n++;
    }
  return n;
}

/* ---- NVRTC -------------------------------------------------------------- */

/* NVRTC's own types, declared here so that the engine builds without the
 * CUDA headers: nvrtcResult is an int enum, nvrtcProgram an opaque pointer. */
typedef int KsNvrtcResult;
typedef struct _KsNvrtcProgramImpl *KsNvrtcProgram;

enum
{
  KS_NVRTC_SUCCESS = 0,
  KS_NVRTC_ERROR_INVALID_OPTION = 5,
  KS_NVRTC_ERROR_COMPILATION = 6,
};

/* The indentation NVRTC puts before the echoed source line and its caret line. */
#define KS_NVRTC_ECHO_INDENT 2
/* Compiled programs kept in memory: an editor recompiling as the user types
 * revisits few sources; a cubin is tens of kilobytes. */
#define KS_NVRTC_CACHE_SIZE 64

typedef struct
{
  void *handle;
  char *path;
  int major;
  int minor;
  GArray *archs; /* guint, ascending */

  const char *  (*GetErrorString)       (KsNvrtcResult result);
  KsNvrtcResult (*Version)              (int *major, int *minor);
  KsNvrtcResult (*GetNumSupportedArchs) (int *n);
  KsNvrtcResult (*GetSupportedArchs)    (int *archs);
  KsNvrtcResult (*CreateProgram)        (KsNvrtcProgram *program, const char *source,
                                         const char *name, int n_headers,
                                         const char *const *headers,
                                         const char *const *include_names);
  KsNvrtcResult (*AddNameExpression)    (KsNvrtcProgram program, const char *const expression);
  KsNvrtcResult (*CompileProgram)       (KsNvrtcProgram program, int n_options,
                                         const char *const *options);
  KsNvrtcResult (*GetProgramLogSize)    (KsNvrtcProgram program, size_t *size);
  KsNvrtcResult (*GetProgramLog)        (KsNvrtcProgram program, char *log);
  KsNvrtcResult (*GetCUBINSize)         (KsNvrtcProgram program, size_t *size);
  KsNvrtcResult (*GetCUBIN)             (KsNvrtcProgram program, char *cubin);
  KsNvrtcResult (*GetPTXSize)           (KsNvrtcProgram program, size_t *size);
  KsNvrtcResult (*GetPTX)               (KsNvrtcProgram program, char *ptx);
  KsNvrtcResult (*GetLoweredName)       (KsNvrtcProgram program, const char *const expression,
                                         const char **lowered_name);
  KsNvrtcResult (*DestroyProgram)       (KsNvrtcProgram *program);
} KsNvrtcApi;

/* Loaded once and never unloaded: the function pointers stay valid for
 * every thread that read them. A failure is remembered for the
 * KS_NVRTC_LIBRARY value it happened with, so that a corrected value is
 * tried again. */
static GMutex nvrtc_load_lock;
static KsNvrtcApi *nvrtc_api;
static char *nvrtc_failed_for;
static GError *nvrtc_failure;

#define KS_NVRTC_HOW_TO_GET \
  "user kernels need the CUDA 13 toolkit's runtime compiler (Debian/Ubuntu: the " \
  "cuda-nvrtc-13-0 package"

static const struct
{
  const char *name;
  gsize offset;
} nvrtc_symbols[] = {
  { "nvrtcGetErrorString", G_STRUCT_OFFSET (KsNvrtcApi, GetErrorString) },
  { "nvrtcVersion", G_STRUCT_OFFSET (KsNvrtcApi, Version) },
  { "nvrtcGetNumSupportedArchs", G_STRUCT_OFFSET (KsNvrtcApi, GetNumSupportedArchs) },
  { "nvrtcGetSupportedArchs", G_STRUCT_OFFSET (KsNvrtcApi, GetSupportedArchs) },
  { "nvrtcCreateProgram", G_STRUCT_OFFSET (KsNvrtcApi, CreateProgram) },
  { "nvrtcAddNameExpression", G_STRUCT_OFFSET (KsNvrtcApi, AddNameExpression) },
  { "nvrtcCompileProgram", G_STRUCT_OFFSET (KsNvrtcApi, CompileProgram) },
  { "nvrtcGetProgramLogSize", G_STRUCT_OFFSET (KsNvrtcApi, GetProgramLogSize) },
  { "nvrtcGetProgramLog", G_STRUCT_OFFSET (KsNvrtcApi, GetProgramLog) },
  { "nvrtcGetCUBINSize", G_STRUCT_OFFSET (KsNvrtcApi, GetCUBINSize) },
  { "nvrtcGetCUBIN", G_STRUCT_OFFSET (KsNvrtcApi, GetCUBIN) },
  { "nvrtcGetPTXSize", G_STRUCT_OFFSET (KsNvrtcApi, GetPTXSize) },
  { "nvrtcGetPTX", G_STRUCT_OFFSET (KsNvrtcApi, GetPTX) },
  { "nvrtcGetLoweredName", G_STRUCT_OFFSET (KsNvrtcApi, GetLoweredName) },
  { "nvrtcDestroyProgram", G_STRUCT_OFFSET (KsNvrtcApi, DestroyProgram) },
};

static void
nvrtc_api_free (KsNvrtcApi *api)
{
  if (api->handle != NULL)
    dlclose (api->handle);
  g_clear_pointer (&api->archs, g_array_unref);
  g_free (api->path);
  g_free (api);
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a;
  guint y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

/* Resolves the symbols of an opened library and asks its version and
 * architectures; takes the handle. */
static KsNvrtcApi *
nvrtc_api_new (void *handle, const char *path, GError **error)
{
  KsNvrtcApi *api = g_new0 (KsNvrtcApi, 1);
  int n_archs = 0;
  g_autofree int *archs = NULL;

  api->handle = handle;
  api->path = g_strdup (path);

  for (gsize i = 0; i < G_N_ELEMENTS (nvrtc_symbols); i++)
    {
      void *symbol = dlsym (handle, nvrtc_symbols[i].name);

      if (symbol == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                       "NVRTC at %s has no %s, so it is not the CUDA 13 runtime compiler: "
                       KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)",
                       path, nvrtc_symbols[i].name);
          nvrtc_api_free (api);
          return NULL;
        }
      /* POSIX makes a data pointer from dlsym valid as a function pointer;
       * memcpy avoids writing one type through a pointer to the other. */
      memcpy ((guint8 *) api + nvrtc_symbols[i].offset, &symbol, sizeof symbol);
    }

  if (api->Version (&api->major, &api->minor) != KS_NVRTC_SUCCESS
      || api->GetNumSupportedArchs (&n_archs) != KS_NVRTC_SUCCESS || n_archs <= 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "NVRTC at %s does not answer for its version and architectures: "
                   KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)", path);
      nvrtc_api_free (api);
      return NULL;
    }

  archs = g_new0 (int, n_archs);
  if (api->GetSupportedArchs (archs) != KS_NVRTC_SUCCESS)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                   "NVRTC at %s does not list the architectures it compiles for: "
                   KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)", path);
      nvrtc_api_free (api);
      return NULL;
    }
  api->archs = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_archs);
  for (int i = 0; i < n_archs; i++)
    {
      guint arch = (guint) archs[i];

      g_array_append_val (api->archs, arch);
    }
  g_array_sort (api->archs, compare_guint);
  return api;
}

/* The candidates when KS_NVRTC_LIBRARY is not set: the loader's path first
 * (ldconfig or LD_LIBRARY_PATH), then where toolkits install themselves. */
static GPtrArray *
nvrtc_default_candidates (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *const roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"),
                                "/usr/local/cuda" };

  g_ptr_array_add (paths, g_strdup (KS_NVRTC_LIBRARY_NAME));
  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    if (roots[i] != NULL && roots[i][0] != '\0')
      g_ptr_array_add (paths, g_build_filename (roots[i], "lib64", KS_NVRTC_LIBRARY_NAME, NULL));
  return paths;
}

static KsNvrtcApi *
nvrtc_open (const char *wanted, GError **error)
{
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GString) looked = g_string_new (NULL);
  g_autofree char *first_reason = NULL;

  if (wanted != NULL)
    {
      paths = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (paths, g_strdup (wanted));
    }
  else
    paths = nvrtc_default_candidates ();

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      void *handle;

      /* RTLD_LOCAL: NVRTC's symbols must not interpose on anyone else's. */
      handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
      if (handle != NULL)
        return nvrtc_api_new (handle, path, error);

      if (first_reason == NULL)
        first_reason = g_strdup (dlerror ());
      if (i > 0)
        g_string_append (looked, ", ");
      g_string_append (looked, path);
    }

  if (wanted != NULL)
    g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                 "NVRTC could not be loaded from %s, the file KS_NVRTC_LIBRARY names (%s): "
                 KS_NVRTC_HOW_TO_GET "; set KS_NVRTC_LIBRARY to the path of its "
                 KS_NVRTC_LIBRARY_NAME ", or unset it)",
                 wanted, first_reason != NULL ? first_reason : "it could not be loaded");
  else
    g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
                 "NVRTC (" KS_NVRTC_LIBRARY_NAME ") was not found (looked for %s): "
                 KS_NVRTC_HOW_TO_GET ", or set KS_NVRTC_LIBRARY to its path)",
                 looked->str);
  return NULL;
}

static KsNvrtcApi *
nvrtc_get (GError **error)
{
  KsNvrtcApi *api = g_atomic_pointer_get (&nvrtc_api);
  const char *wanted;

  if (api != NULL)
    return api;

  g_mutex_lock (&nvrtc_load_lock);
  api = nvrtc_api;
  if (api == NULL)
    {
      wanted = g_getenv ("KS_NVRTC_LIBRARY");
      if (wanted != NULL && wanted[0] == '\0')
        wanted = NULL;

      if (nvrtc_failure != NULL && g_strcmp0 (nvrtc_failed_for, wanted) == 0)
        {
          if (error != NULL)
            *error = g_error_copy (nvrtc_failure);
        }
      else
        {
          g_autoptr(GError) local_error = NULL;

          api = nvrtc_open (wanted, &local_error);
          g_clear_error (&nvrtc_failure);
          g_clear_pointer (&nvrtc_failed_for, g_free);
          if (api != NULL)
            g_atomic_pointer_set (&nvrtc_api, api);
          else
            {
              nvrtc_failed_for = g_strdup (wanted);
              nvrtc_failure = g_error_copy (local_error);
              g_propagate_error (error, g_steal_pointer (&local_error));
            }
        }
    }
  g_mutex_unlock (&nvrtc_load_lock);
  return api;
}

gboolean
ks_nvrtc_load (GError **error)
{
  return nvrtc_get (error) != NULL;
}

int
ks_nvrtc_version (void)
{
  KsNvrtcApi *api = g_atomic_pointer_get (&nvrtc_api);

  /* CUDA's own convention: 13000 for 13.0, 12080 for 12.8. */
  return api != NULL ? api->major * 1000 + api->minor * 10 : 0;
}

GArray *
ks_nvrtc_supported_archs (GError **error)
{
  KsNvrtcApi *api = nvrtc_get (error);
  GArray *copy;

  if (api == NULL)
    return NULL;
  copy = g_array_sized_new (FALSE, FALSE, sizeof (guint), api->archs->len);
  g_array_append_vals (copy, api->archs->data, api->archs->len);
  return copy;
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

/* ---- ptxas' resource lines and the PTX's launch bounds -------------------- */

static void
parse_usage_fields (const char *fields, KsKernelResources *resources)
{
  g_auto(GStrv) parts = g_strsplit (fields, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *field = g_strstrip (parts[i]);
      guint64 value;
      char *end;

      if (g_str_has_prefix (field, "Used ") || g_str_has_prefix (field, "used "))
        field += 5;
      value = g_ascii_strtoull (field, &end, 10);
      if (end == field)
        continue;
      while (*end == ' ')
        end++;

      if (g_str_equal (end, "registers"))
        resources->num_regs = (guint) value;
      else if (g_str_equal (end, "barriers"))
        resources->barriers = (guint) value;
      else if (g_str_equal (end, "bytes smem"))
        resources->shared_static = value;
      else if (g_str_equal (end, "bytes cmem[0]"))
        resources->const_bytes = value;
      else if (g_str_equal (end, "bytes lmem"))
        resources->local_bytes = MAX (resources->local_bytes, value);
    }
}

/* "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" */
static void
parse_frame_fields (const char *fields, KsKernelResources *resources)
{
  g_auto(GStrv) parts = g_strsplit (fields, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *field = g_strstrip (parts[i]);
      char *end;
      guint64 value = g_ascii_strtoull (field, &end, 10);

      if (end == field)
        continue;
      while (*end == ' ')
        end++;
      if (g_str_equal (end, "bytes stack frame"))
        resources->local_bytes = MAX (resources->local_bytes, value);
      else if (g_str_equal (end, "bytes spill stores"))
        resources->spill_stores = value;
      else if (g_str_equal (end, "bytes spill loads"))
        resources->spill_loads = value;
    }
}

/* Quoted or bare name after a prefix: "…function '_Z3addPf' for 'sm_90'",
 * "…properties for _Z3addPf". */
static char *
name_after (const char *line, const char *prefix)
{
  const char *start = strstr (line, prefix);
  const char *end;

  if (start == NULL)
    return NULL;
  start += strlen (prefix);
  if (*start == '\'')
    {
      start++;
      end = strchr (start, '\'');
    }
  else
    {
      end = start;
      while (*end != '\0' && !g_ascii_isspace (*end))
        end++;
    }
  return end != NULL ? g_strndup (start, (gsize) (end - start)) : NULL;
}

gboolean
ks_nvrtc_parse_resources (const char *log, const char *lowered_name,
                          KsKernelResources *resources)
{
  g_auto(GStrv) lines = NULL;
  g_autofree char *entry = NULL;      /* the entry whose "Compiling" section we are in */
  g_autofree char *properties = NULL; /* the function "Function properties for" named */
  gboolean found = FALSE;

  g_return_val_if_fail (lowered_name != NULL, FALSE);
  g_return_val_if_fail (resources != NULL, FALSE);

  resources->num_regs = 0;
  resources->shared_static = 0;
  resources->local_bytes = 0;
  resources->spill_stores = 0;
  resources->spill_loads = 0;
  resources->const_bytes = 0;
  resources->barriers = 0;
  if (log == NULL)
    return FALSE;

  lines = g_strsplit (log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      char *body;

      if (!g_str_has_prefix (line, "ptxas"))
        continue;
      /* "ptxas info    : Used 10 registers, …" */
      body = strchr (line, ':');
      if (body != NULL)
        body = g_strchug (body + 1);

      if (strstr (line, "Compiling entry function ") != NULL)
        {
          g_free (entry);
          entry = name_after (line, "Compiling entry function ");
        }
      else if (strstr (line, "Function properties for ") != NULL)
        {
          g_free (properties);
          properties = name_after (line, "Function properties for ");
        }
      else if (strstr (line, "bytes stack frame") != NULL)
        {
          /* "ptxas         .     0 bytes stack frame, …": no colon */
          if (g_strcmp0 (properties, lowered_name) == 0)
            {
              const char *fields = line + strlen ("ptxas");

              while (*fields == ' ' || *fields == '.')
                fields++;
              parse_frame_fields (fields, resources);
              found = TRUE;
            }
        }
      else if (body != NULL && g_str_has_prefix (body, "Used ")
               && g_strcmp0 (entry, lowered_name) == 0)
        {
          parse_usage_fields (body, resources);
          found = TRUE;
        }
    }
  return found;
}

/* `.maxntid 128, 1, 1` (from __launch_bounds__) or `.reqntid` between the
 * entry's parameter list and its body; 0 when neither is there. */
static guint
launch_bounds_from_ptx (const char *ptx, const char *lowered_name)
{
  g_autofree char *needle = NULL;
  const char *p;
  const char *body;
  const char *directives[] = { ".maxntid", ".reqntid" };

  if (ptx == NULL)
    return 0;
  needle = g_strdup_printf (".entry %s(", lowered_name);
  p = strstr (ptx, needle);
  if (p == NULL)
    return 0;
  p = strchr (p + strlen (needle), ')');
  body = p != NULL ? strchr (p, '{') : NULL;
  if (body == NULL)
    return 0;

  for (gsize i = 0; i < G_N_ELEMENTS (directives); i++)
    {
      const char *d = g_strstr_len (p, body - p, directives[i]);
      guint64 threads = 1;

      if (d == NULL)
        continue;
      d += strlen (directives[i]);
      for (int dim = 0; dim < 3; dim++)
        {
          char *end;
          guint64 n;

          while (*d == ' ' || *d == '\t' || *d == ',')
            d++;
          n = g_ascii_strtoull (d, &end, 10);
          if (end == d)
            break;
          threads *= n;
          d = end;
        }
      return (guint) MIN (threads, G_MAXUINT);
    }
  return 0;
}

/* The largest block the registers allow, as the hardware checks a launch on
 * sm_75 and newer: registers go to warps in units of 256 (a warp of a
 * 40-register kernel takes 40 × 32 = 1280), a block may hold 65536, and the
 * block's warps are counted rounded up to a multiple of the SM's four
 * sub-partitions, each with a quarter of the registers. So a block fits
 * when 4 × ceil(warps / 4) × per_warp ≤ 65536, that is with at most
 * 4 × floor(16384 / per_warp) warps: 96 registers give 640 threads, not
 * the 672 that 65536 / 3072 alone would suggest; 255 registers give 256. */
static guint
max_threads_for (guint num_regs, guint launch_bounds)
{
  guint limit = 1024;

  if (launch_bounds > 0)
    limit = MIN (limit, launch_bounds);
  if (num_regs > 0)
    {
      guint per_warp = (num_regs * 32 + 255) / 256 * 256;
      guint warps = 4 * (16384 / per_warp);

      limit = MIN (limit, warps * 32);
    }
  return limit;
}

/* ---- compiling, and the cache ---------------------------------------------- */

static GMutex cache_lock;
static GHashTable *cache_results; /* key (hex SHA-256) → KsCompileResult, owned */
static GQueue cache_order = G_QUEUE_INIT; /* keys, oldest first; borrowed from the table */

static KsCompileResult *
compile_result_copy (const KsCompileResult *result)
{
  KsCompileResult *copy = g_new0 (KsCompileResult, 1);

  copy->success = result->success;
  /* GBytes is immutable: sharing it is as good as a copy. */
  copy->cubin = result->cubin != NULL ? g_bytes_ref (result->cubin) : NULL;
  copy->log = g_strdup (result->log);
  copy->diagnostics = g_ptr_array_new_full (result->diagnostics->len,
                                            (GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; i < result->diagnostics->len; i++)
    g_ptr_array_add (copy->diagnostics,
                     ks_diagnostic_copy (g_ptr_array_index (result->diagnostics, i)));
  copy->kernels = g_ptr_array_new_full (result->kernels->len,
                                        (GDestroyNotify) ks_kernel_resources_free);
  for (guint i = 0; i < result->kernels->len; i++)
    g_ptr_array_add (copy->kernels,
                     ks_kernel_resources_copy (g_ptr_array_index (result->kernels, i)));
  copy->compile_ms = result->compile_ms;
  copy->cached = result->cached;
  return copy;
}

/* Each field with its length first, so that no two requests hash alike by
 * moving text from one field to the next. */
static void
hash_text (GChecksum *checksum, const char *text)
{
  guint64 len = text != NULL ? strlen (text) : G_MAXUINT64;
  guint64 le = GUINT64_TO_LE (len);

  g_checksum_update (checksum, (const guchar *) &le, sizeof le);
  if (text != NULL)
    g_checksum_update (checksum, (const guchar *) text, (gssize) len);
}

static void
hash_strv (GChecksum *checksum, const char *const *strv)
{
  guint n = strv != NULL ? g_strv_length ((char **) strv) : 0;
  g_autofree char *count = g_strdup_printf ("%u", n);

  hash_text (checksum, count);
  for (guint i = 0; i < n; i++)
    hash_text (checksum, strv[i]);
}

static char *
request_key (const KsCompileRequest *request, const KsNvrtcApi *api)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *numbers = NULL;

  /* The library and its version too: a cubin is only as good as its compiler. */
  numbers = g_strdup_printf ("%d.%d sm_%u %u", api->major, api->minor, request->arch,
                             request->n_headers);
  hash_text (checksum, api->path);
  hash_text (checksum, numbers);
  hash_text (checksum, request->source);
  hash_text (checksum, request->program_name);
  hash_strv (checksum, request->entries);
  for (guint i = 0; i < request->n_headers; i++)
    {
      hash_text (checksum, request->headers[i].name);
      hash_text (checksum, request->headers[i].contents);
    }
  hash_strv (checksum, request->extra_options);
  return g_strdup (g_checksum_get_string (checksum));
}

static KsCompileResult *
cache_lookup (const char *key)
{
  KsCompileResult *hit = NULL;

  g_mutex_lock (&cache_lock);
  if (cache_results != NULL)
    {
      const KsCompileResult *stored = g_hash_table_lookup (cache_results, key);

      if (stored != NULL)
        hit = compile_result_copy (stored);
    }
  g_mutex_unlock (&cache_lock);
  if (hit != NULL)
    hit->cached = TRUE;
  return hit;
}

static void
cache_insert (const char *key, const KsCompileResult *result)
{
  g_mutex_lock (&cache_lock);
  if (cache_results == NULL)
    cache_results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) ks_compile_result_free);
  /* Two threads compiling the same source: the first one's result stays. */
  if (!g_hash_table_contains (cache_results, key))
    {
      char *owned_key = g_strdup (key);

      while (cache_order.length >= KS_NVRTC_CACHE_SIZE)
        g_hash_table_remove (cache_results, g_queue_pop_head (&cache_order));
      g_hash_table_insert (cache_results, owned_key, compile_result_copy (result));
      g_queue_push_tail (&cache_order, owned_key);
    }
  g_mutex_unlock (&cache_lock);
}

void
ks_nvrtc_clear_cache (void)
{
  g_mutex_lock (&cache_lock);
  g_queue_clear (&cache_order);
  g_clear_pointer (&cache_results, g_hash_table_unref);
  g_mutex_unlock (&cache_lock);
}

static char *
program_log (const KsNvrtcApi *api, KsNvrtcProgram program)
{
  size_t size = 0;
  char *log;

  if (api->GetProgramLogSize (program, &size) != KS_NVRTC_SUCCESS || size == 0)
    return g_strdup ("");
  log = g_malloc0 (size + 1);
  if (api->GetProgramLog (program, log) != KS_NVRTC_SUCCESS)
    log[0] = '\0';
  return log;
}

static gboolean
nvrtc_check (const KsNvrtcApi *api, KsNvrtcResult result, const char *call, const char *what,
             GError **error)
{
  if (result == KS_NVRTC_SUCCESS)
    return TRUE;
  g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "%s failed for %s: %s (%d)", call, what,
               api->GetErrorString (result), result);
  return FALSE;
}

/* The program's output after a successful compilation: the cubin (timed
 * with the compilation, as the header promises), then the PTX for the
 * launch bounds and each entry's card. */
static gboolean
collect_outputs (const KsNvrtcApi *api, KsNvrtcProgram program, const KsCompileRequest *request,
                 gint64 start, KsCompileResult *result, GError **error)
{
  size_t size = 0;
  g_autofree char *ptx = NULL;
  char *cubin;

  if (!nvrtc_check (api, api->GetCUBINSize (program, &size), "nvrtcGetCUBINSize",
                    request->program_name, error))
    return FALSE;
  cubin = g_malloc (MAX (size, 1));
  if (!nvrtc_check (api, api->GetCUBIN (program, cubin), "nvrtcGetCUBIN",
                    request->program_name, error))
    {
      g_free (cubin);
      return FALSE;
    }
  result->cubin = g_bytes_new_take (cubin, size);
  result->compile_ms = (double) (g_get_monotonic_time () - start) / 1000.0;

  /* Not fatal: with options such as -dlto there is no PTX, and then no launch bounds. */
  if (api->GetPTXSize (program, &size) == KS_NVRTC_SUCCESS && size > 0)
    {
      ptx = g_malloc0 (size + 1);
      if (api->GetPTX (program, ptx) != KS_NVRTC_SUCCESS)
        g_clear_pointer (&ptx, g_free);
    }

  for (guint i = 0; request->entries != NULL && request->entries[i] != NULL; i++)
    {
      KsKernelResources *card = g_new0 (KsKernelResources, 1);
      const char *lowered = NULL;

      g_ptr_array_add (result->kernels, card);
      card->name = g_strdup (request->entries[i]);
      card->arch = request->arch;
      if (!nvrtc_check (api, api->GetLoweredName (program, request->entries[i], &lowered),
                        "nvrtcGetLoweredName", request->entries[i], error))
        return FALSE;
      /* The name belongs to the program, which is destroyed after this. */
      card->lowered_name = g_strdup (lowered);
      ks_nvrtc_parse_resources (result->log, card->lowered_name, card);
      card->launch_bounds = launch_bounds_from_ptx (ptx, card->lowered_name);
      card->max_threads_per_block = max_threads_for (card->num_regs, card->launch_bounds);
    }
  return TRUE;
}

static KsCompileResult *
compile_once (const KsNvrtcApi *api, const KsCompileRequest *request, gboolean verbose,
              GError **error)
{
  g_autoptr(KsCompileResult) result = g_new0 (KsCompileResult, 1);
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_free);
  g_autofree const char **contents = g_new0 (const char *, request->n_headers + 1);
  g_autofree const char **names = g_new0 (const char *, request->n_headers + 1);
  const char *program_name = request->program_name != NULL ? request->program_name : "kernel.cu";
  KsNvrtcProgram program = NULL;
  KsNvrtcResult status;
  gint64 start;

  result->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  result->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_resources_free);

  for (guint i = 0; i < request->n_headers; i++)
    {
      contents[i] = request->headers[i].contents;
      names[i] = request->headers[i].name;
    }
  if (!nvrtc_check (api, api->CreateProgram (&program, request->source, program_name,
                                             (int) request->n_headers, contents, names),
                    "nvrtcCreateProgram", program_name, error))
    return NULL;

  for (guint i = 0; request->entries != NULL && request->entries[i] != NULL; i++)
    if (!nvrtc_check (api, api->AddNameExpression (program, request->entries[i]),
                      "nvrtcAddNameExpression", request->entries[i], error))
      {
        api->DestroyProgram (&program);
        return NULL;
      }

  /* A cubin for exactly the device's architecture (a PTX would be JIT-compiled
   * by the driver, hiding the resource card); C++17 for the user's templates;
   * line info so that tools can map SASS back to the user's lines; ptxas'
   * verbose output for the resource card. */
  g_ptr_array_add (options, g_strdup_printf ("--gpu-architecture=sm_%u", request->arch));
  g_ptr_array_add (options, g_strdup ("-std=c++17"));
  g_ptr_array_add (options, g_strdup ("-lineinfo"));
  if (verbose)
    g_ptr_array_add (options, g_strdup ("-Xptxas=-v"));
  for (guint i = 0; request->extra_options != NULL && request->extra_options[i] != NULL; i++)
    g_ptr_array_add (options, g_strdup (request->extra_options[i]));

  start = g_get_monotonic_time ();
  status = api->CompileProgram (program, (int) options->len,
                                (const char *const *) options->pdata);
  result->log = program_log (api, program);

  if (status == KS_NVRTC_ERROR_INVALID_OPTION)
    {
      g_autofree char *said = g_strstrip (g_strdup (result->log));

      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The compiler refused the options given for %s: %s", program_name,
                   said[0] != '\0' ? said : api->GetErrorString (status));
      api->DestroyProgram (&program);
      return NULL;
    }
  if (status != KS_NVRTC_SUCCESS && status != KS_NVRTC_ERROR_COMPILATION)
    {
      nvrtc_check (api, status, "nvrtcCompileProgram", program_name, error);
      api->DestroyProgram (&program);
      return NULL;
    }

  result->success = status == KS_NVRTC_SUCCESS;
  result->compile_ms = (double) (g_get_monotonic_time () - start) / 1000.0;
  if (result->success && !collect_outputs (api, program, request, start, result, error))
    {
      api->DestroyProgram (&program);
      return NULL;
    }
  api->DestroyProgram (&program);

  g_ptr_array_unref (result->diagnostics);
  result->diagnostics = ks_nvrtc_parse_log (result->log);
  /* Messages outside any #line (ptxas', NVRTC's own) belong to the program. */
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (d->file == NULL)
        d->file = g_strdup (program_name);
    }
  return g_steal_pointer (&result);
}

static gboolean
arch_supported (const KsNvrtcApi *api, guint arch)
{
  for (guint i = 0; i < api->archs->len; i++)
    if (g_array_index (api->archs, guint, i) == arch)
      return TRUE;
  return FALSE;
}

KsCompileResult *
ks_nvrtc_compile (const KsCompileRequest *request, GError **error)
{
  KsNvrtcApi *api;
  g_autofree char *key = NULL;
  g_autoptr(KsCompileResult) result = NULL;

  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (request->source != NULL, NULL);
  g_return_val_if_fail (request->n_headers == 0 || request->headers != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  api = nvrtc_get (error);
  if (api == NULL)
    return NULL;

  if (!arch_supported (api, request->arch))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "NVRTC %d.%d cannot compile for sm_%u: it knows sm_%u to sm_%u",
                   api->major, api->minor, request->arch,
                   g_array_index (api->archs, guint, 0),
                   g_array_index (api->archs, guint, api->archs->len - 1));
      return NULL;
    }
  for (guint i = 0; i < request->n_headers; i++)
    if (request->headers[i].name == NULL || request->headers[i].contents == NULL)
      {
        g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                     "Header %u of %u given to the compiler has no %s", i + 1,
                     request->n_headers, request->headers[i].name == NULL ? "name" : "text");
        return NULL;
      }

  key = request_key (request, api);
  result = cache_lookup (key);
  if (result != NULL)
    return g_steal_pointer (&result);

  result = compile_once (api, request, TRUE, error);
  if (result == NULL)
    return NULL;

  /* NVRTC 13.0 drops ptxas' own error ("Entry function '…' uses too much
   * shared data …") from the log when -Xptxas=-v is given, leaving a failed
   * compilation without a reason: compile again without it to get one. */
  if (!result->success && ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR) == 0)
    {
      g_autoptr(KsCompileResult) quiet = compile_once (api, request, FALSE, error);

      if (quiet == NULL)
        return NULL;
      quiet->compile_ms += result->compile_ms;
      g_clear_pointer (&result, ks_compile_result_free);
      result = g_steal_pointer (&quiet);
    }
  if (!result->success && ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR) == 0)
    g_ptr_array_add (result->diagnostics,
                     ks_diagnostic_new (KS_DIAGNOSTIC_ERROR,
                                        request->program_name != NULL
                                          ? request->program_name : "kernel.cu",
                                        0, 0, "The compiler failed without giving a reason"));

  cache_insert (key, result);
  return g_steal_pointer (&result);
}
