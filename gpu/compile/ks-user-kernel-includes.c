/* ks-user-kernel-includes.c: the headers a user kernel compiles with.
 * Kernelscope's own come from the bundle: the prelude (ks-user.cuh and what
 * it includes) and the stand-ins for the standard and CUDA headers
 * (kernels/standin/: NVRTC has their functions built in, but no header
 * files). The user's own are read from disk. The #include lines of
 * the text are found (outside comments and literals), each name is looked
 * for in the folders a C compiler would search (the includer's folder for
 * "…", then the source's folder and the include folders in order), and the
 * files found are read, and searched in turn, into KsKernelHeader: the name
 * as spelled, which NVRTC matches, and the text behind `#line 1 "PATH"`, so
 * that messages and the CPU engine's findings name the file that holds the
 * line. What is read is bounded in files and bytes.
 *
 * Nothing here decides that an include is missing: an #include under an
 * #if that is false is never opened, and only the compiler knows. When it
 * says "cannot open source file", the message is replaced by one naming
 * the folders that were searched (_ks_user_kernel_explain_missing). */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ks-gpu-resources.h"
#include "ks-user-kernel-private.h"

/* A pasted kernel with its helpers is a few files of kilobytes; the
 * toolkit's half-precision headers are the largest served, 330 KB each. */
#define KS_MAX_HEADERS 256
#define KS_MAX_HEADER_BYTES ((gsize) 8 << 20)
#define KS_MAX_HEADERS_TOTAL ((gsize) 32 << 20)

/* ---- the headers Kernelscope serves ----------------------------------------------- */

/* Kernelscope's prelude, then the stand-ins for the standard and CUDA
 * headers (kernels/standin/: NVRTC has their functions built in, but no
 * header files), all from the bundle. */
static const char *const resource_headers[] = {
  "ks-user.cuh",
  "ks-kernel-common.h",
  "ks-geometry.cuh",
};

#define STANDIN_PATH "/org/kernelscope/kernels/standin/"

typedef struct
{
  KsCompileHeader *headers;
  guint n_headers;
  char **standin_names;   /* NULL-terminated */
} BundleHeaders;

/* Resource data stays mapped for the life of the process and ends with a
 * NUL, so the bytes are kept and used as a string. */
static const char *
resource_text (const char *path)
{
  GBytes *bytes = g_resource_lookup_data (ks_gpu_get_resource (), path,
                                          G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  g_assert (bytes != NULL);
  return g_bytes_get_data (bytes, NULL);
}

static gpointer
load_headers (gpointer data)
{
  static BundleHeaders bundle;
  g_auto (GStrv) standins = g_resource_enumerate_children (ks_gpu_get_resource (), STANDIN_PATH,
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  guint n_standins = standins != NULL ? g_strv_length (standins) : 0;
  guint n = 0;

  (void) data;
  g_assert (n_standins > 0);
  bundle.headers = g_new0 (KsCompileHeader, G_N_ELEMENTS (resource_headers) + n_standins);
  bundle.standin_names = g_new0 (char *, n_standins + 1);
  for (guint i = 0; i < G_N_ELEMENTS (resource_headers); i++)
    {
      g_autofree char *path = g_strconcat ("/org/kernelscope/kernels/", resource_headers[i],
                                           NULL);

      bundle.headers[n].name = resource_headers[i];
      bundle.headers[n++].contents = resource_text (path);
    }
  for (guint i = 0; i < n_standins; i++)
    {
      g_autofree char *path = g_strconcat (STANDIN_PATH, standins[i], NULL);

      bundle.standin_names[i] = g_strdup (standins[i]);
      bundle.headers[n].name = bundle.standin_names[i];
      bundle.headers[n++].contents = resource_text (path);
    }
  bundle.n_headers = n;
  return &bundle;
}

static const BundleHeaders *
get_bundle (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, load_headers, NULL);
}

static const char *const *
standin_names (void)
{
  return (const char *const *) get_bundle ()->standin_names;
}

const KsCompileHeader *
_ks_user_kernel_bundle_headers (guint *n_headers)
{
  const BundleHeaders *bundle = get_bundle ();

  *n_headers = bundle->n_headers;
  return bundle->headers;
}


/* The CUDA toolkit's own headers that compile under NVRTC as they are, and
 * are read from the toolkit's folder where no folder of the user's has them.
 * Under NVRTC they include nothing but each other. */
static const char *const toolkit_names[] = {
  "cuda_fp16.h",
  "cuda_fp16.hpp",
  "cuda_bf16.h",
  "cuda_bf16.hpp",
};

static gboolean
in_list (const char *name, const char *const *list, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (g_str_equal (name, list[i]))
      return TRUE;
  return FALSE;
}

static gboolean
is_served (const char *name)
{
  return in_list (name, resource_headers, G_N_ELEMENTS (resource_headers))
         || g_strv_contains (standin_names (), name);
}

static gboolean
is_toolkit_name (const char *name)
{
  return in_list (name, toolkit_names, G_N_ELEMENTS (toolkit_names));
}

/* Where the toolkit's headers are: beside the NVRTC that KS_NVRTC_LIBRARY
 * names, then under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda, as NVRTC
 * itself is looked for (ks-nvrtc-loader.c). */
static GPtrArray *
toolkit_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *library = g_getenv ("KS_NVRTC_LIBRARY");
  const char *const roots[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"),
                                "/usr/local/cuda" };

  if (library != NULL && library[0] != '\0' && g_path_is_absolute (library))
    {
      g_autofree char *lib_dir = g_path_get_dirname (library);

      g_ptr_array_add (dirs, g_build_filename (lib_dir, "..", "include", NULL));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    if (roots[i] != NULL && roots[i][0] != '\0')
      g_ptr_array_add (dirs, g_build_filename (roots[i], "include", NULL));
  return dirs;
}

/* ---- finding the #include lines ------------------------------------------------- */

typedef struct
{
  char *name;
  gboolean angle;   /* <…> */
  guint line;
  guint column;     /* of the name's first character */
} Include;

static void
include_clear (Include *inc)
{
  g_free (inc->name);
}

static const char *
skip_blanks_and_comments (const char *p, gboolean *in_comment)
{
  for (;;)
    {
      if (*in_comment)
        {
          const char *end = strstr (p, "*/");

          if (end == NULL)
            return p + strlen (p);
          p = end + 2;
          *in_comment = FALSE;
          continue;
        }
      while (*p == ' ' || *p == '\t')
        p++;
      if (p[0] == '/' && p[1] == '*')
        {
          *in_comment = TRUE;
          p += 2;
          continue;
        }
      return p;
    }
}

/* Skips the rest of a line of code, noting a block comment left open. */
static void
skip_code (const char *p, gboolean *in_comment)
{
  while (*p != '\0')
    {
      if (*in_comment)
        {
          const char *end = strstr (p, "*/");

          if (end == NULL)
            return;
          p = end + 2;
          *in_comment = FALSE;
          continue;
        }
      if (p[0] == '/' && p[1] == '/')
        return;
      if (p[0] == '/' && p[1] == '*')
        {
          *in_comment = TRUE;
          p += 2;
          continue;
        }
      if (*p == '"' || *p == '\'')
        {
          char quote = *p++;

          while (*p != '\0' && *p != quote)
            p += p[0] == '\\' && p[1] != '\0' ? 2 : 1;
          if (*p == quote)
            p++;
          continue;
        }
      p++;
    }
}

/* The text's #include "…" and #include <…> lines, in order; a computed
 * include (#include MACRO) is the compiler's business. */
static GArray *
find_includes (const char *text)
{
  GArray *found = g_array_new (FALSE, TRUE, sizeof (Include));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_comment = FALSE;

  g_array_set_clear_func (found, (GDestroyNotify) include_clear);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *p = skip_blanks_and_comments (line, &in_comment);
      const char *name;
      char close;
      Include inc = { 0 };

      if (*p != '#')
        {
          skip_code (p, &in_comment);
          continue;
        }
      p = skip_blanks_and_comments (p + 1, &in_comment);
      if (strncmp (p, "include", 7) != 0 || g_ascii_isalnum (p[7]) || p[7] == '_')
        {
          skip_code (p, &in_comment);
          continue;
        }
      p = skip_blanks_and_comments (p + 7, &in_comment);
      if (*p != '"' && *p != '<')
        {
          skip_code (p, &in_comment);
          continue;
        }
      close = *p == '"' ? '"' : '>';
      name = p + 1;
      p = strchr (name, close);
      if (p == NULL || p == name)
        continue;
      inc.name = g_strndup (name, (gsize) (p - name));
      inc.angle = close == '>';
      inc.line = i + 1;
      inc.column = g_utf8_validate (line, name - line, NULL)
                   ? (guint) g_utf8_strlen (line, name - line) + 1 : (guint) (name - line) + 1;
      g_array_append_val (found, inc);
      skip_code (p + 1, &in_comment);
    }
  return found;
}

/* ---- reading them ---------------------------------------------------------------- */

typedef struct
{
  KsKernelSource *self;
  gsize total;
  gboolean over;   /* a bound was reached: said once */
} Reader;

KsKernelHeader *
ks_kernel_header_new (const char *name, const char *path, const char *contents)
{
  KsKernelHeader *header = g_new0 (KsKernelHeader, 1);

  header->name = g_strdup (name);
  header->path = g_strdup (path);
  header->contents = g_strdup (contents);
  return header;
}

void
ks_kernel_header_free (KsKernelHeader *header)
{
  if (header == NULL)
    return;
  g_free (header->name);
  g_free (header->path);
  g_free (header->contents);
  g_free (header);
}

static void
add_diagnostic (Reader *r, const char *file, guint line, guint column, const char *format, ...)
  G_GNUC_PRINTF (5, 6);

static void
add_diagnostic (Reader *r, const char *file, guint line, guint column, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (r->self->diagnostics,
                   ks_diagnostic_new (KS_DIAGNOSTIC_ERROR, file, line, column, message));
}

static gboolean
have_header (const KsKernelSource *self, const char *name)
{
  for (guint i = 0; i < self->headers->len; i++)
    if (g_str_equal (((const KsKernelHeader *) g_ptr_array_index (self->headers, i))->name, name))
      return TRUE;
  return FALSE;
}

/* dir/name as messages write it: "inc/helper.cuh", "helper.cuh" for ".". */
static char *
display_path (const char *dir, const char *name)
{
  if (g_path_is_absolute (name) || dir == NULL || g_str_equal (dir, "."))
    return g_strdup (name);
  return g_build_filename (dir, name, NULL);
}

/* The first of dirs that holds name (a file or not: a folder of that name
 * is found, and refused when read), as display_path; NULL when none. */
static char *
look_in (const GPtrArray *dirs, const char *name)
{
  if (g_path_is_absolute (name))
    return g_file_test (name, G_FILE_TEST_EXISTS) ? g_strdup (name) : NULL;
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = display_path (g_ptr_array_index (dirs, i), name);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&path);
    }
  return NULL;
}

static void
append_line_directive (GString *s, const char *path)
{
  g_string_append (s, "#line 1 \"");
  for (const char *c = path; *c != '\0'; c++)
    {
      if (*c == '"' || *c == '\\')
        g_string_append_c (s, '\\');
      if (*c != '\n')
        g_string_append_c (s, *c);
    }
  g_string_append (s, "\"\n");
}

/* Reads path, found for inc in the file `from`; NULL after a diagnostic at
 * the #include when it cannot be used. */
static char *
read_header (Reader *r, const char *from, const Include *inc, const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  GStatBuf st;
  gsize length = 0;

  if (g_stat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      add_diagnostic (r, from, inc->line, inc->column,
                      "“%s” is a folder, not a header file: include a file in it", path);
      return NULL;
    }
  if (g_stat (path, &st) == 0 && (guint64) st.st_size > KS_MAX_HEADER_BYTES)
    {
      add_diagnostic (r, from, inc->line, inc->column,
                      "“%s” is %" G_GUINT64_FORMAT " MiB: a header may have at most %"
                      G_GSIZE_FORMAT " MiB", path, (guint64) st.st_size >> 20,
                      KS_MAX_HEADER_BYTES >> 20);
      return NULL;
    }
  if (!g_file_get_contents (path, &text, &length, &error))
    {
      add_diagnostic (r, from, inc->line, inc->column, "cannot read “%s”: %s", path,
                      error->message);
      return NULL;
    }
  if (length > KS_MAX_HEADER_BYTES || r->total + length > KS_MAX_HEADERS_TOTAL)
    {
      add_diagnostic (r, from, inc->line, inc->column,
                      "“%s” makes the included headers more than %" G_GSIZE_FORMAT " MiB: "
                      "include less", path, KS_MAX_HEADERS_TOTAL >> 20);
      r->over = TRUE;
      return NULL;
    }
  if (strlen (text) != length || !g_utf8_validate (text, (gssize) length, NULL))
    {
      add_diagnostic (r, from, inc->line, inc->column,
                      "“%s” is not UTF-8 text: save it as UTF-8", path);
      return NULL;
    }
  r->total += length;
  return g_steal_pointer (&text);
}

/* The folders #include "…" searches from a file in `own` (NULL: the text
 * itself, whose folder is the source's); <…> searches the include folders
 * only. */
static GPtrArray *
search_dirs (const KsKernelSource *self, const char *own, gboolean angle)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);

  if (!angle && own != NULL)
    g_ptr_array_add (dirs, g_strdup (own));
  if (!angle && self->source_dir != NULL
      && (own == NULL || g_strcmp0 (own, self->source_dir) != 0))
    g_ptr_array_add (dirs, g_strdup (self->source_dir));
  for (guint i = 0; self->include_dirs[i] != NULL; i++)
    g_ptr_array_add (dirs, g_strdup (self->include_dirs[i]));
  return dirs;
}

/* The includes of one file: `from` names it in messages, `own` is the
 * folder its own "…" includes start in, `toolkit` that it is the CUDA
 * toolkit's (which include only each other under NVRTC). */
static void
read_includes_of (Reader *r, const char *text, const char *from, const char *own,
                  gboolean toolkit)
{
  KsKernelSource *self = r->self;
  g_autoptr (GArray) includes = find_includes (text);

  for (guint i = 0; i < includes->len && !r->over; i++)
    {
      const Include *inc = &g_array_index (includes, Include, i);
      g_autoptr (GPtrArray) dirs = NULL;
      g_autofree char *path = NULL;
      g_autofree char *contents = NULL;
      g_autofree char *folder = NULL;
      g_autoptr (GString) served = NULL;
      gboolean from_toolkit = FALSE;

      if (is_served (inc->name) || have_header (self, inc->name))
        continue;
      if (toolkit && !is_toolkit_name (inc->name))
        continue;
      dirs = toolkit ? g_ptr_array_new_with_free_func (g_free)
                     : search_dirs (self, own, inc->angle);
      if (toolkit)
        g_ptr_array_add (dirs, g_strdup (own));
      path = look_in (dirs, inc->name);
      if (path == NULL && is_toolkit_name (inc->name))
        {
          g_autoptr (GPtrArray) cuda = toolkit_dirs ();

          path = look_in (cuda, inc->name);
          from_toolkit = path != NULL;
        }
      if (path == NULL)
        continue;
      if (self->headers->len >= KS_MAX_HEADERS)
        {
          add_diagnostic (r, from, inc->line, inc->column,
                          "the source includes more than %d headers: include fewer",
                          KS_MAX_HEADERS);
          r->over = TRUE;
          return;
        }
      contents = read_header (r, from, inc, path);
      if (contents == NULL)
        continue;

      served = g_string_new (NULL);
      append_line_directive (served, path);
      g_string_append (served, contents);
      if (served->len > 0 && served->str[served->len - 1] != '\n')
        g_string_append_c (served, '\n');
      g_ptr_array_add (self->headers, ks_kernel_header_new (inc->name, path, served->str));
      folder = g_path_get_dirname (path);
      read_includes_of (r, contents, path, folder, toolkit || from_toolkit);
    }
}

void
_ks_user_kernel_read_includes (KsKernelSource *self)
{
  Reader r = { self, 0, FALSE };

  read_includes_of (&r, self->text, self->file_name, self->source_dir, FALSE);
}

/* ---- a missing include ------------------------------------------------------------ */

static char *
folders_text (const KsKernelSource *self)
{
  g_autoptr (GPtrArray) dirs = search_dirs (self, NULL, FALSE);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < dirs->len; i++)
    {
      const char *dir = g_ptr_array_index (dirs, i);

      if (i > 0)
        g_string_append (s, i + 1 == dirs->len ? " and " : ", ");
      g_string_append (s, g_str_equal (dir, ".") ? "the current folder" : dir);
    }
  return g_string_free (s, FALSE);
}

void
_ks_user_kernel_explain_missing (const KsKernelSource *self, KsDiagnostic *d)
{
  static GRegex *pattern;
  static gsize initialised = 0;
  g_autoptr (GMatchInfo) match = NULL;
  g_autofree char *name = NULL;
  g_autofree char *folders = NULL;
  char *message;

  if (g_once_init_enter (&initialised))
    {
      pattern = g_regex_new ("^(?:cannot|could not) open source file \"([^\"]+)\"",
                             G_REGEX_OPTIMIZE, 0, NULL);
      g_assert (pattern != NULL);
      g_once_init_leave (&initialised, 1);
    }
  if (d->message == NULL || !g_regex_match (pattern, d->message, 0, &match))
    return;
  name = g_match_info_fetch (match, 1);
  folders = folders_text (self);

  if (is_toolkit_name (name))
    {
      g_autoptr (GPtrArray) cuda = toolkit_dirs ();
      g_autoptr (GString) where = g_string_new (NULL);

      for (guint i = 0; i < cuda->len; i++)
        g_string_append_printf (where, "%s%s", i > 0 ? ", " : "",
                                (const char *) g_ptr_array_index (cuda, i));
      message = g_strdup_printf ("cannot open “%s”: it comes with the CUDA toolkit's headers, "
                                 "which are not installed here (looked in %s%s%s); install "
                                 "them, or add the folder that holds %s to the include "
                                 "folders", name, folders[0] != '\0' ? folders : "",
                                 folders[0] != '\0' ? ", " : "", where->str, name);
    }
  else if (folders[0] != '\0')
    message = g_strdup_printf ("cannot open “%s”: it is not in %s, and it is not one of the "
                               "standard headers Kernelscope serves; add the folder that holds "
                               "it to the include folders (kernelscope-cli kernel "
                               "--include-dir DIR)", name, folders);
  else
    message = g_strdup_printf ("cannot open “%s”: the kernel is from no file and has no "
                               "include folders, and it is not one of the standard headers "
                               "Kernelscope serves; add the folder that holds it to the "
                               "include folders (kernelscope-cli kernel --include-dir DIR)",
                               name);
  g_free (d->message);
  d->message = message;
}
