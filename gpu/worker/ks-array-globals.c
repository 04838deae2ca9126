/* ks-array-globals.c: the module's __device__ and __constant__ variables of
 * an array run (PyCUDA's get_global and memcpy_htod): the variables a
 * request sets before the first launch and reads back after the last,
 * found by their C++ names, checked against their declarations and handed
 * to the launch by their PTX names.
 *
 * The size comes from the PTX (ks-worker-globals.c); the element type,
 * which the PTX keeps only for scalars (arrays are bytes there, integers
 * unsigned), from the declaration in the source. A name at namespace scope
 * is its own PTX name; a name in a named namespace, ns::coeffs, is found
 * mangled (_ZN2ns6coeffsE). */
#include "config.h"

#include <string.h>

#include "ks-array-run-private.h"
#include "ks-error.h"

/* The source with its comments, string literals and preprocessor lines
 * blanked out (newlines kept), so that a declaration's words are its own. */
static char *
strip_source (const char *text)
{
  char *s = g_strdup (text);
  gboolean line_start = TRUE;

  for (char *p = s; *p != '\0'; p++)
    {
      if (line_start && *p == '#')
        {
          /* To the end of the line, and of the lines a backslash joins. */
          for (; *p != '\0' && !(*p == '\n' && text[p - s - 1] != '\\'); p++)
            if (*p != '\n')
              *p = ' ';
          if (*p == '\0')
            break;
        }
      else if (p[0] == '/' && p[1] == '/')
        for (; *p != '\0' && *p != '\n'; p++)
          *p = ' ';
      else if (p[0] == '/' && p[1] == '*')
        {
          for (; *p != '\0' && !(p[0] == '*' && p[1] == '/'); p++)
            if (*p != '\n')
              *p = ' ';
          if (*p == '\0')
            break;
          p[0] = ' ';
          p[1] = ' ';
          p++;
        }
      else if (*p == '"' || *p == '\'')
        {
          char quote = *p;

          for (p++; *p != '\0' && *p != quote && *p != '\n'; p++)
            {
              if (*p == '\\' && p[1] != '\0' && p[1] != '\n')
                *p++ = ' ';
              *p = ' ';
            }
          if (*p == '\0')
            break;
        }
      if (*p == '\n')
        line_start = TRUE;
      else if (*p != ' ' && *p != '\t')
        line_start = FALSE;
    }
  return s;
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* The element type the source declares `name` (its last component) with:
 * "__constant__ float coeffs[16];" gives f32; a struct, a vector type or a
 * declaration it cannot read gives KS_ELEM_OTHER. */
static KsElemType
declared_type (const char *text, const char *name)
{
  static const char *const qualifiers[] = {
    "__device__", "__constant__", "__managed__", "static", "const", "volatile", "extern",
  };
  g_autofree char *s = strip_source (text);
  const char *last = g_strrstr (name, "::");
  gsize len;

  last = last != NULL ? last + 2 : name;
  len = strlen (last);
  if (len == 0)
    return KS_ELEM_OTHER;
  for (const char *p = strstr (s, last); p != NULL; p = strstr (p + 1, last))
    {
      const char *after = p + len, *from = p;
      g_autofree char *head = NULL;
      g_auto (GStrv) words = NULL;
      g_autoptr (GString) type = g_string_new (NULL);
      gboolean device = FALSE;
      KsElemType t;

      if ((p > s && is_ident_char (p[-1])) || is_ident_char (*after))
        continue;
      while (*after == ' ' || *after == '\t' || *after == '\n' || *after == '\r')
        after++;
      if (*after != '[' && *after != '=' && *after != ';' && *after != '{')
        continue;
      /* Back to the start of the statement. */
      while (from > s && from[-1] != ';' && from[-1] != '{' && from[-1] != '}')
        from--;
      head = g_strndup (from, (gsize) (p - from));
      if (strpbrk (head, "()=,<>*&[") != NULL)
        continue;
      words = g_strsplit_set (head, " \t\r\n", -1);
      for (guint i = 0; words[i] != NULL; i++)
        {
          gboolean qualifier = FALSE;

          if (words[i][0] == '\0')
            continue;
          for (guint q = 0; q < G_N_ELEMENTS (qualifiers); q++)
            qualifier |= g_str_equal (words[i], qualifiers[q]);
          device |= g_str_equal (words[i], "__device__") || g_str_equal (words[i], "__constant__")
                    || g_str_equal (words[i], "__managed__");
          if (!qualifier)
            g_string_append_printf (type, "%s%s", type->len > 0 ? " " : "", words[i]);
        }
      if (device && type->len > 0 && ks_elem_type_parse (type->str, &t))
        return t;
    }
  return KS_ELEM_OTHER;
}

/* The PTX name of a C++ name: itself at namespace scope; ns::name and
 * a::b::name mangled as nested names are. */
static char *
symbol_for (const char *name)
{
  g_auto (GStrv) parts = NULL;
  g_autoptr (GString) mangled = NULL;

  if (strstr (name, "::") == NULL)
    return g_strdup (name);
  parts = g_strsplit (g_str_has_prefix (name, "::") ? name + 2 : name, "::", -1);
  if (g_strv_length (parts) == 1)
    return g_strdup (parts[0]);
  mangled = g_string_new ("_ZN");
  for (guint i = 0; parts[i] != NULL; i++)
    g_string_append_printf (mangled, "%zu%s", strlen (parts[i]), parts[i]);
  g_string_append_c (mangled, 'E');
  return g_string_free (g_steal_pointer (&mangled), FALSE);
}

static gboolean
valid_name (const char *name)
{
  g_auto (GStrv) parts = g_strsplit (g_str_has_prefix (name, "::") ? name + 2 : name, "::", -1);

  if (parts[0] == NULL)
    return FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || g_ascii_isdigit (parts[i][0]))
        return FALSE;
      for (const char *c = parts[i]; *c != '\0'; c++)
        if (!is_ident_char (*c))
          return FALSE;
    }
  return TRUE;
}

/* The C++ name of a PTX name: ns::name for a nested name symbol_for made,
 * else the symbol itself. */
static char *
name_for (const char *symbol)
{
  g_autoptr (GString) name = g_string_new (NULL);
  const char *p = symbol + 3;

  if (!g_str_has_prefix (symbol, "_ZN"))
    return g_strdup (symbol);
  while (g_ascii_isdigit (*p))
    {
      char *end = NULL;
      guint64 n = g_ascii_strtoull (p, &end, 10);

      if (n == 0 || strlen (end) < n)
        return g_strdup (symbol);
      g_string_append_printf (name, "%s%.*s", name->len > 0 ? "::" : "", (int) n, end);
      p = end + n;
    }
  if (g_strcmp0 (p, "E") != 0 || name->len == 0)
    return g_strdup (symbol);
  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* "coeffs (64 bytes), counter (4 bytes)", or "none". */
static char *
list_globals (const GPtrArray *globals)
{
  g_autoptr (GString) list = g_string_new (NULL);

  for (guint i = 0; i < globals->len; i++)
    {
      const KsModuleGlobal *g = g_ptr_array_index (globals, i);
      g_autofree char *name = name_for (g->symbol);

      g_string_append_printf (list, "%s%s (%" G_GSIZE_FORMAT " bytes)", i > 0 ? ", " : "",
                              name, g->size);
    }
  return list->len > 0 ? g_string_free (g_steal_pointer (&list), FALSE) : g_strdup ("none");
}

static const KsModuleGlobal *
find_global (const GPtrArray *globals, const char *name, const char *what, GError **error)
{
  g_autofree char *symbol = NULL;
  g_autofree char *list = NULL;

  if (!valid_name (name))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "Cannot %s “%s”: that is not a C++ name (name a __device__ or __constant__ "
                   "variable, ns::name inside a namespace)", what, name);
      return NULL;
    }
  symbol = symbol_for (name);
  for (guint i = 0; i < globals->len; i++)
    {
      const KsModuleGlobal *g = g_ptr_array_index (globals, i);

      if (g_str_equal (g->symbol, symbol))
        return g;
    }
  list = list_globals (globals);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "Cannot %s “%s”: the module has no __device__ or __constant__ variable of that "
               "name (it has: %s)", what, name, list);
  return NULL;
}

/* The element type of a variable: as declared, else its PTX scalar type. */
static KsElemType
global_type (const KsKernelSource *source, const char *name, const KsModuleGlobal *g)
{
  KsElemType t = declared_type (ks_kernel_source_get_text (source), name);

  return t != KS_ELEM_OTHER ? t : g->type;
}

/* "float[16]", "unsigned int", "64 bytes". */
static char *
describe_global (const KsModuleGlobal *g, KsElemType type)
{
  gsize elem = type != KS_ELEM_OTHER ? ks_elem_type_size (type) : 0;

  if (elem == 0 || g->size % elem != 0)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes", g->size);
  if (!g->is_array)
    return g_strdup_printf ("%s, %" G_GSIZE_FORMAT " bytes", ks_elem_type_c_name (type), g->size);
  return g_strdup_printf ("%s[%" G_GSIZE_FORMAT "], %" G_GSIZE_FORMAT " bytes",
                          ks_elem_type_c_name (type), g->size / elem, g->size);
}

/* The bytes a binding sets a variable to, checked against it. */
static GBytes *
global_bytes (const KsKernelSource *source, const KsBinding *b, const KsModuleGlobal *g,
              GError **error)
{
  KsElemType declared = global_type (source, b->name, g);
  g_autofree char *what = describe_global (g, declared);

  if (!b->is_array)
    {
      KsKernelArg arg = { 0 };

      if (g->is_array || declared == KS_ELEM_OTHER)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "Cannot set “%s” (%s) to a value: it is not a number; give "
                       "%s=TYPE[LENGTH]:INIT, such as %s=%s[%" G_GSIZE_FORMAT "]:const(%s)",
                       b->name, what, b->name, b->name,
                       ks_elem_type_short_name (declared != KS_ELEM_OTHER ? declared
                                                                          : KS_ELEM_UINT8),
                       g->size / (declared != KS_ELEM_OTHER ? ks_elem_type_size (declared) : 1),
                       b->value);
          return NULL;
        }
      arg.name = b->name;
      arg.type_text = (char *) ks_elem_type_c_name (declared);
      arg.type = declared;
      return ks_binding_pack_scalar (b, &arg, error);
    }
  if (b->direction_given)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "Cannot set “%s”: a variable has no direction (in, out or inout); it is read "
                   "back with the results when asked to", b->name);
      return NULL;
    }
  if ((gsize) b->length * ks_elem_type_size (b->type) != g->size
      || (declared != KS_ELEM_OTHER
          && (ks_elem_type_size (declared) != ks_elem_type_size (b->type)
              || ks_elem_type_is_float (declared) != ks_elem_type_is_float (b->type))))
    {
      g_autofree char *fix = NULL;

      if (declared != KS_ELEM_OTHER && g->size % ks_elem_type_size (declared) == 0)
        fix = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", ks_elem_type_short_name (declared),
                               g->size / ks_elem_type_size (declared));
      else
        fix = g_strdup_printf ("a type and length of %" G_GSIZE_FORMAT " bytes", g->size);
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "Cannot set “%s” (%s) to %s[%" G_GSIZE_FORMAT "] (%" G_GSIZE_FORMAT
                   " bytes): give %s", b->name, what, ks_elem_type_short_name (b->type),
                   b->length, (gsize) (b->length * ks_elem_type_size (b->type)), fix);
      return NULL;
    }
  {
    g_autoptr (KsArray) array = ks_binding_create_array (b, error);

    if (array == NULL)
      return NULL;
    return g_bytes_new (array->data, ks_array_get_bytes (array));
  }
}

KsBinding *
ks_binding_parse_global (const char *text, GError **error)
{
  const char *eq;
  g_autofree char *name = NULL;
  g_autofree char *last_text = NULL;
  const char *last;
  KsBinding *b;

  g_return_val_if_fail (text != NULL, NULL);

  eq = strchr (text, '=');
  name = eq != NULL ? g_strstrip (g_strndup (text, (gsize) (eq - text))) : NULL;
  last = name != NULL ? g_strrstr (name, "::") : NULL;
  if (last == NULL)
    return ks_binding_parse (text, error);
  /* Read under the name's last part, which an argument's rules allow. */
  last_text = g_strconcat (last + 2, eq, NULL);
  b = ks_binding_parse (last_text, error);
  if (b == NULL)
    return NULL;
  if (!valid_name (name))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” is not a C++ name (ns::name for a variable in a namespace)", name);
      ks_binding_free (b);
      return NULL;
    }
  g_free (b->name);
  b->name = g_steal_pointer (&name);
  return b;
}

gboolean
_ks_array_bind_globals (const KsArrayRunRequest *request, const KsCompileResult *compiled,
                        KsWorkerLaunch *launch, GPtrArray *global_names, GError **error)
{
  g_autoptr (GPtrArray) globals = NULL;

  if ((request->globals == NULL || request->globals->len == 0)
      && (request->read_globals == NULL || request->read_globals[0] == NULL))
    return TRUE;
  globals = ks_module_globals_from_ptx (compiled->ptx != NULL ? compiled->ptx : "");
  for (guint i = 0; request->globals != NULL && i < request->globals->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (request->globals, i);
      const KsModuleGlobal *g = find_global (globals, b->name, "set", error);
      g_autoptr (GBytes) bytes = NULL;

      if (g == NULL || (bytes = global_bytes (request->source, b, g, error)) == NULL)
        return FALSE;
      for (guint k = 0; k < i; k++)
        if (g_str_equal (((const KsBinding *) g_ptr_array_index (request->globals, k))->name,
                         b->name))
          {
            g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                         "“%s” is set twice: give each variable one value", b->name);
            return FALSE;
          }
      ks_worker_launch_set_global (launch, g->symbol, bytes);
    }
  for (guint i = 0; request->read_globals != NULL && request->read_globals[i] != NULL; i++)
    {
      const char *name = request->read_globals[i];
      const KsModuleGlobal *g = find_global (globals, name, "read back", error);
      KsElemType type;

      if (g == NULL)
        return FALSE;
      /* As it was set, else as declared: bytes where neither says. */
      type = global_type (request->source, name, g);
      for (guint k = 0; request->globals != NULL && k < request->globals->len; k++)
        {
          const KsBinding *b = g_ptr_array_index (request->globals, k);

          if (g_str_equal (b->name, name) && b->is_array)
            type = b->type;
        }
      if (type == KS_ELEM_OTHER || g->size % ks_elem_type_size (type) != 0)
        type = KS_ELEM_UINT8;
      ks_worker_launch_read_global (launch, g->symbol, type, g->size / ks_elem_type_size (type));
      g_ptr_array_add (global_names, g_strdup (name));
    }
  return TRUE;
}
