/* ks-worker-globals.c: a module's __device__ and __constant__ variables as
 * its PTX declares them, for the runs that set and read them
 * (ks-array-run.c) on either engine.
 *
 * The PTX, not the cubin, because both engines have it and it is text: a
 * module-scope variable is one line at the start of a line,
 *
 *   .const .align 4 .b8 coeffs[64];
 *   .global .align 4 .u32 counter;
 *   .visible .global .align 8 .b8 _ZN2ns5stateE[32] = {0, …};
 *
 * NVRTC gives arrays, structs and vector types as bytes and every integer
 * as unsigned, so a variable's element type comes from the source when it
 * matters (ks-array-run.c); its size is the PTX's. */
#include "config.h"

#include <string.h>

#include "ks-worker.h"

void
ks_module_global_free (KsModuleGlobal *global)
{
  if (global == NULL)
    return;
  g_free (global->symbol);
  g_free (global);
}

/* The size in bytes of a PTX fundamental type, and the element type it
 * stands for in a scalar (bit types, which say nothing of it: OTHER). */
static guint
ptx_type (const char *t, KsElemType *type)
{
  static const struct
  {
    const char *name;
    guint size;
    KsElemType type;
  } types[] = {
    { ".u8", 1, KS_ELEM_UINT8 },    { ".s8", 1, KS_ELEM_INT8 },     { ".b8", 1, KS_ELEM_OTHER },
    { ".u16", 2, KS_ELEM_UINT16 },  { ".s16", 2, KS_ELEM_INT16 },   { ".b16", 2, KS_ELEM_OTHER },
    { ".f16", 2, KS_ELEM_OTHER },   { ".u32", 4, KS_ELEM_UINT32 },  { ".s32", 4, KS_ELEM_INT32 },
    { ".b32", 4, KS_ELEM_OTHER },   { ".f32", 4, KS_ELEM_FLOAT32 }, { ".u64", 8, KS_ELEM_UINT64 },
    { ".s64", 8, KS_ELEM_INT64 },   { ".b64", 8, KS_ELEM_OTHER },   { ".f64", 8, KS_ELEM_FLOAT64 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (t, types[i].name) == 0)
      {
        *type = types[i].type;
        return types[i].size;
      }
  return 0;
}

/* One declaration line, up to its initialiser; NULL when it is not a
 * variable of .global or .const memory with a size (an .extern one, a
 * texture reference, a function). */
static KsModuleGlobal *
parse_declaration (const char *line)
{
  g_autofree char *head = g_strndup (line, strcspn (line, "=;"));
  g_auto (GStrv) tokens = g_strsplit_set (head, " \t", -1);
  gboolean space = FALSE, constant = FALSE;
  guint elem = 0, vec = 1;
  KsElemType type = KS_ELEM_OTHER;
  const char *name = NULL;
  guint64 count = 1;
  const char *dims;
  g_autoptr (KsModuleGlobal) global = NULL;

  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *t = tokens[i];

      if (t[0] == '\0')
        continue;
      if (name != NULL)
        return NULL;
      if (t[0] != '.')
        name = t;
      else if (strcmp (t, ".global") == 0 || strcmp (t, ".const") == 0)
        {
          space = TRUE;
          constant = t[1] == 'c';
        }
      else if (strcmp (t, ".extern") == 0)
        return NULL;
      else if (strcmp (t, ".align") == 0)
        {
          /* Its number, on its own or not. */
          while (tokens[i + 1] != NULL && tokens[i + 1][0] == '\0')
            i++;
          if (tokens[i + 1] != NULL)
            i++;
        }
      else if (strcmp (t, ".v2") == 0 || strcmp (t, ".v4") == 0)
        vec = (guint) (t[2] - '0');
      else if (elem == 0)
        elem = ptx_type (t, &type);
    }
  if (!space || elem == 0 || name == NULL)
    return NULL;

  global = g_new0 (KsModuleGlobal, 1);
  dims = strchr (name, '[');
  global->symbol = g_strndup (name, dims != NULL ? (gsize) (dims - name) : strlen (name));
  while (dims != NULL && *dims == '[')
    {
      char *end = NULL;
      guint64 n = g_ascii_strtoull (dims + 1, &end, 10);

      /* An unsized array is extern shared-style storage: nothing to set. */
      if (end == dims + 1 || *end != ']' || n == 0 || count > G_MAXUINT32 / n)
        return NULL;
      count *= n;
      dims = end + 1;
    }
  global->is_array = strchr (name, '[') != NULL || vec > 1;
  global->size = (gsize) (count * elem * vec);
  global->type = global->is_array ? KS_ELEM_OTHER : type;
  global->constant = constant;
  if (global->symbol[0] == '\0')
    return NULL;
  return g_steal_pointer (&global);
}

GPtrArray *
ks_module_globals_from_ptx (const char *ptx)
{
  GPtrArray *globals = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_module_global_free);
  const char *line = ptx;

  g_return_val_if_fail (ptx != NULL, globals);

  while (line != NULL && *line != '\0')
    {
      const char *next = strchr (line, '\n');
      g_autofree char *text = g_strndup (line, next != NULL ? (gsize) (next - line)
                                                            : strlen (line));

      /* Module scope is the start of a line; a function's own variables
       * and its code are indented. */
      if (text[0] == '.' && (strstr (text, ".global") != NULL || strstr (text, ".const") != NULL))
        {
          KsModuleGlobal *g = parse_declaration (text);

          /* Kernelscope's own variables (the printf line count, the
           * struct layout tables) are not the user's to set or read, and
           * do not make a module reload for every run. */
          if (g != NULL && (g_str_has_prefix (g->symbol, "ks_")
                            || strstr (g->symbol, "ks_layout_") != NULL))
            g_clear_pointer (&g, ks_module_global_free);
          if (g != NULL)
            g_ptr_array_add (globals, g);
        }
      line = next != NULL ? next + 1 : NULL;
    }
  return globals;
}
