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
 * line. What is read is bounded in files and bytes. The CUDA toolkit's
 * headers (cuda_fp16.h, curand_kernel.h, cooperative_groups.h, CCCL's
 * cuda/std, cub and thrust) are not read here: NVRTC searches the
 * toolkit's include folders (_ks_user_kernel_toolkit_dirs) after the
 * headers served by name.
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
 * toolkit's headers, which NVRTC reads itself, do not count. */
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


static gboolean
is_served (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (resource_headers); i++)
    if (g_str_equal (name, resource_headers[i]))
      return TRUE;
  return g_strv_contains (standin_names (), name);
}

/* ---- the CUDA toolkit's headers ------------------------------------------------- */

/* The toolkit's include folders are not read here but given to NVRTC
 * (-I), which opens what an #include reaches itself, after the headers
 * served by name: cooperative_groups.h, curand_kernel.h, cub and thrust
 * reach 250 to 300 files and 3 to 5 MB through includes under #if, which
 * NVRTC skips and a reader of #include lines could not, and their quoted
 * includes ("info.h", "helpers.h") are relative to their own folders, which
 * served names are not. Compiling curand_kernel.h or cooperative_groups.h
 * took as long either way (1.1 to 1.5 s); reading them first added 50 to
 * 160 ms. */

/* The toolkit's root: beside the NVRTC that KS_NVRTC_LIBRARY names (only
 * there, when it is set: that NVRTC's headers and no other toolkit's), else
 * the first of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda that has an
 * include folder, as NVRTC itself is looked for (ks-nvrtc-loader.c). */
static GPtrArray *
toolkit_roots (void)
{
  GPtrArray *roots = g_ptr_array_new_with_free_func (g_free);
  const char *library = g_getenv ("KS_NVRTC_LIBRARY");
  const char *const homes[] = { g_getenv ("CUDA_HOME"), g_getenv ("CUDA_PATH"),
                                "/usr/local/cuda" };

  if (library != NULL && library[0] != '\0')
    {
      if (g_path_is_absolute (library))
        {
          g_autofree char *lib_dir = g_path_get_dirname (library);

          g_ptr_array_add (roots, g_build_filename (lib_dir, "..", NULL));
        }
      return roots;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (homes); i++)
    if (homes[i] != NULL && homes[i][0] != '\0')
      g_ptr_array_add (roots, g_strdup (homes[i]));
  return roots;
}

GStrv
_ks_user_kernel_toolkit_dirs (void)
{
  g_autoptr (GPtrArray) roots = toolkit_roots ();

  for (guint i = 0; i < roots->len; i++)
    {
      g_autofree char *include = g_build_filename (g_ptr_array_index (roots, i), "include",
                                                   NULL);
      g_autofree char *cccl = g_build_filename (include, "cccl", NULL);
      GPtrArray *dirs;

      if (!g_file_test (include, G_FILE_TEST_IS_DIR))
        continue;
      dirs = g_ptr_array_new ();
      g_ptr_array_add (dirs, g_canonicalize_filename (include, NULL));
      /* CUDA 13's CCCL (cuda/std, cub, thrust, nv/target) is in a folder of
       * its own, which the toolkit's own headers expect on the path. */
      if (g_file_test (cccl, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (dirs, g_canonicalize_filename (cccl, NULL));
      g_ptr_array_add (dirs, NULL);
      return (GStrv) g_ptr_array_free (dirs, FALSE);
    }
  return NULL;
}

/* The headers that come with the toolkit, by name or folder, and the part
 * of NVIDIA's packages that holds them (with the toolkit's version after
 * it: libcurand-dev-13-0), where one does; cuda-toolkit holds them all. */
static const struct
{
  const char *prefix;
  const char *package;
} toolkit_headers[] = {
  { "curand", "libcurand-dev" },
  { "cuda/", "cuda-cccl" },
  { "cub/", "cuda-cccl" },
  { "thrust/", "cuda-cccl" },
  { "nv/", "cuda-cccl" },
  { "cooperative_groups", "cuda-cudart-dev" },
  { "cuda_fp16.h", "cuda-cudart-dev" },
  { "cuda_fp16.hpp", "cuda-cudart-dev" },
  { "cuda_bf16.h", "cuda-cudart-dev" },
  { "cuda_bf16.hpp", "cuda-cudart-dev" },
  { "cuda_fp8.h", "cuda-cudart-dev" },
  { "cuda_pipeline", "cuda-cudart-dev" },
  { "cuda_awbarrier", "cuda-cudart-dev" },
  { "mma.h", NULL },
  { "crt/", NULL },
  { "sm_", "cuda-cudart-dev" },
  { "vector_types.h", "cuda-cudart-dev" },
  { "vector_functions.h", "cuda-cudart-dev" },
  { "device_atomic_functions.h", "cuda-cudart-dev" },
};

static gboolean
is_toolkit_header (const char *name, const char **package)
{
  for (gsize i = 0; i < G_N_ELEMENTS (toolkit_headers); i++)
    if (g_str_has_prefix (name, toolkit_headers[i].prefix))
      {
        *package = toolkit_headers[i].package;
        return TRUE;
      }
  return FALSE;
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
 * folder its own "…" includes start in. A name found in none of the
 * folders is left to the compiler: it is the toolkit's, which NVRTC finds
 * on its include path, or it is missing, which only the compiler can say. */
static void
read_includes_of (Reader *r, const char *text, const char *from, const char *own)
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

      if (is_served (inc->name) || have_header (self, inc->name))
        continue;
      dirs = search_dirs (self, own, inc->angle);
      path = look_in (dirs, inc->name);
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
      read_includes_of (r, contents, path, folder);
    }
}

void
_ks_user_kernel_read_includes (KsKernelSource *self)
{
  Reader r = { self, 0, FALSE };

  read_includes_of (&r, self->text, self->file_name, self->source_dir);
}

/* ---- a missing include ------------------------------------------------------------ */

/* " (NVIDIA's package libcurand-dev-13-0, part of cuda-toolkit-13-0)", with
 * the version of the NVRTC in use. */
static char *
toolkit_part (const char *package)
{
  int nvrtc = ks_nvrtc_version ();
  g_autofree char *version = nvrtc > 0 ? g_strdup_printf ("-%d-%d", nvrtc / 1000,
                                                          nvrtc % 1000 / 10)
                                       : g_strdup ("");

  if (package != NULL)
    return g_strdup_printf (" (NVIDIA's package %s%s, part of cuda-toolkit%s)", package, version,
                            version);
  return g_strdup_printf (" (NVIDIA's package cuda-toolkit%s)", version);
}

/* Where the toolkit's headers were looked for, and what to do. */
static char *
toolkit_looked_in (void)
{
  g_autoptr (GPtrArray) roots = toolkit_roots ();
  g_autoptr (GString) s = g_string_new (NULL);
  const char *library = g_getenv ("KS_NVRTC_LIBRARY");

  for (guint i = 0; i < roots->len; i++)
    {
      g_autofree char *include = g_build_filename (g_ptr_array_index (roots, i), "include",
                                                   NULL);
      g_autofree char *shown = g_canonicalize_filename (include, NULL);

      g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == roots->len ? " or " : ", ",
                              shown);
    }
  if (library != NULL && library[0] != '\0')
    return g_strdup_printf ("no include folder beside the NVRTC that KS_NVRTC_LIBRARY names%s%s; "
                            "install them there, or leave KS_NVRTC_LIBRARY unset and set "
                            "CUDA_HOME to the toolkit's folder", s->len > 0 ? ": " : "",
                            s->str);
  return g_strdup_printf ("no %s; install them, or set CUDA_HOME to the toolkit's folder", s->str);
}

/* The toolkit's folder that holds file, the longest of them (include/cccl
 * is inside include/), or NULL. */
static const char *
toolkit_folder_of (const GStrv toolkit, const char *file)
{
  const char *best = NULL;

  for (guint i = 0; toolkit != NULL && file != NULL && toolkit[i] != NULL; i++)
    if (g_str_has_prefix (file, toolkit[i]) && file[strlen (toolkit[i])] == G_DIR_SEPARATOR
        && (best == NULL || strlen (toolkit[i]) > strlen (best)))
      best = toolkit[i];
  return best;
}

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
  g_auto (GStrv) toolkit = NULL;
  const char *within;
  const char *package = NULL;
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
  toolkit = _ks_user_kernel_toolkit_dirs ();
  within = toolkit_folder_of (toolkit, d->file);
  if (within != NULL)
    {
      /* thrust/complex.h includes <complex> and <sstream> whatever the
       * compiler: not every header of the toolkit is made for NVRTC. */
      message = g_strdup_printf ("cannot open “%s”, which the CUDA toolkit's %s includes: it is "
                                 "a host C++ header, which the run-time compiler does not have, "
                                 "so that header of the toolkit compiles with nvcc only",
                                 name, d->file + strlen (within) + 1);
      g_free (d->message);
      d->message = message;
      return;
    }

  if (is_toolkit_header (name, &package))
    {
      g_autofree char *part = toolkit_part (package);

      if (toolkit != NULL)
        {
          g_autofree char *where = g_strjoinv (" and ", toolkit);

          message = g_strdup_printf ("cannot open “%s”: the CUDA toolkit's headers in %s do not "
                                     "have it; check its name, or install the part of the "
                                     "toolkit that holds it%s", name, where, part);
        }
      else
        {
          g_autofree char *where = toolkit_looked_in ();

          message = g_strdup_printf ("cannot open “%s”: it comes with the CUDA toolkit's "
                                     "headers%s, which are not installed here (%s)", name, part,
                                     where);
        }
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
