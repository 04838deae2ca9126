/* ks-user-kernel-unit.c: the translation unit NVRTC compiles: the prelude
 * (ks-user.cuh and stand-ins for the standard and CUDA headers, from the
 * bundle, and the user's own headers; the CUDA toolkit's include folders
 * for NVRTC to search), the generated struct ks_params, `#line 1 "FILE"` before the
 * user's text so that messages land on the user's lines, the expression
 * mode's wrapper; the parameters' bytes as that struct lays them out; and
 * compiling, with the source's own diagnostics before the compiler's and a
 * missing include explained. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "ks-error.h"
#include "ks-user-kernel-private.h"

/* The generated struct ks_params is 8-byte aligned, whatever its members,
 * so that it lands at the same offset whether the launcher aligns it to its
 * widest member or to 8. */
#define KS_PARAMS_ALIGN 8

/* The file name the generated lines after the user's text belong to. */
#define KS_GENERATED_FILE "ks-generated.cu"

static const char *
param_type_name (KsParamType type)
{
  switch (type)
    {
    case KS_PARAM_DOUBLE:
      return "float";
    case KS_PARAM_BOOL:
      return "bool";
    case KS_PARAM_INT:
    case KS_PARAM_CHOICE:
    default:
      return "int";
    }
}

/* The bundle's headers, then the user's. */
static KsCompileHeader *
unit_headers (const KsKernelSource *source, guint *n_headers)
{
  guint n_bundle = 0;
  const KsCompileHeader *bundle = _ks_user_kernel_bundle_headers (&n_bundle);
  KsCompileHeader *headers = g_new0 (KsCompileHeader, n_bundle + source->headers->len);

  memcpy (headers, bundle, n_bundle * sizeof *headers);
  for (guint i = 0; i < source->headers->len; i++)
    {
      const KsKernelHeader *h = g_ptr_array_index (source->headers, i);

      headers[n_bundle + i].name = h->name;
      headers[n_bundle + i].contents = h->contents;
    }
  *n_headers = n_bundle + source->headers->len;
  return headers;
}

static char **
unit_options (void)
{
  g_auto (GStrv) toolkit = _ks_user_kernel_toolkit_dirs ();
  GPtrArray *options = g_ptr_array_new ();

  g_ptr_array_add (options, g_strdup ("-default-device"));
  for (guint i = 0; toolkit != NULL && toolkit[i] != NULL; i++)
    g_ptr_array_add (options, g_strconcat ("-I", toolkit[i], NULL));
  g_ptr_array_add (options, NULL);
  return (char **) g_ptr_array_free (options, FALSE);
}

void
ks_kernel_unit_clear (KsKernelUnit *unit)
{
  if (unit == NULL)
    return;
  g_free (unit->source);
  g_free (unit->entry);
  g_free (unit->headers);
  g_strfreev (unit->extra_options);
  memset (unit, 0, sizeof *unit);
}

static void
append_quoted_file (GString *s, const char *file)
{
  g_string_append_c (s, '"');
  for (const char *c = file; *c != '\0'; c++)
    {
      if (*c == '"' || *c == '\\')
        g_string_append_c (s, '\\');
      if (*c != '\n')
        g_string_append_c (s, *c);
    }
  g_string_append_c (s, '"');
}

static guint
count_lines (const GString *s)
{
  guint n = 1;

  for (gsize i = 0; i < s->len; i++)
    n += s->str[i] == '\n';
  return n;
}

/* The members in declaration order; bool is one byte, float and int four,
 * and the struct is aligned to KS_PARAMS_ALIGN. Without parameters it holds
 * one unused byte (C++ has no empty struct of size 0), KS_PARAMS_ALIGN
 * bytes in all. */
static void
append_params_struct (GString *s, const KsKernelSource *self)
{
  g_string_append_printf (s, "struct alignas (%d) ks_params\n{\n", KS_PARAMS_ALIGN);
  for (guint i = 0; i < self->n_params; i++)
    g_string_append_printf (s, "  %s %s;\n", param_type_name (self->params[i].type),
                            self->params[i].name);
  if (self->n_params == 0)
    g_string_append (s, "  unsigned char ks_none;\n");
  g_string_append (s, "};\n\n");
}

static void
append_user_text (GString *s, const KsKernelSource *self)
{
  gsize len = strlen (self->text);

  g_string_append (s, "#line 1 ");
  append_quoted_file (s, self->file_name);
  g_string_append_c (s, '\n');
  g_string_append (s, self->text);
  if (len == 0 || self->text[len - 1] != '\n')
    g_string_append_c (s, '\n');
}

static void
build_expression (GString *s, const KsKernelSource *self, guint ppt, guint mode,
                  gboolean instrumented, char **entry)
{
  const gboolean gray = self->output_format == KS_FORMAT_GRAY8;
  const gboolean two = self->n_inputs > 1;
  const char *out_type = gray ? "unsigned char" : "uchar4";

  g_string_append (s,
                   "__device__ __forceinline__ void\n"
                   "ks_expression_pixel (const unsigned int x, const unsigned int y,\n"
                   "                     const unsigned int width, const unsigned int height,\n"
                   "                     const uchar4 in, ");
  if (two)
    g_string_append (s, "const uchar4 in2, ");
  g_string_append_printf (s, "%s &out, const ks_params ks_p)\n{\n", out_type);
  for (guint i = 0; i < self->n_params; i++)
    g_string_append_printf (s, "  const %s %s = ks_p.%s;\n  (void) %s;\n",
                            param_type_name (self->params[i].type), self->params[i].name,
                            self->params[i].name, self->params[i].name);
  g_string_append (s, "  (void) ks_p;\n");
  append_user_text (s, self);
  g_string_append_printf (s, "#line %u ", count_lines (s) + 1);
  append_quoted_file (s, KS_GENERATED_FILE);
  g_string_append_printf (s,
                          "\n}\n\n"
                          "template <unsigned PPT, unsigned MODE, bool INSTRUMENTED>\n"
                          "__global__ void\n"
                          "ks_expression_kernel (KsGeometry g, ks_image out, ks_image in, "
                          "ks_image in2, ks_params p,\n"
                          "                      KsCoverageBuffers cov)\n"
                          "{\n"
                          "  ks_expression_walk<PPT, MODE, INSTRUMENTED, %u, %s> (\n"
                          "    g, out, in, in2, cov,\n"
                          "    [&] (unsigned int px, unsigned int py, const uchar4 &a, "
                          "const uchar4 &b, %s &o) {\n"
                          "      (void) b;\n"
                          "      ks_expression_pixel (px, py, g.width, g.height, a, %so, p);\n"
                          "    });\n"
                          "}\n",
                          self->n_inputs, gray ? "true" : "false", out_type, two ? "b, " : "");
  *entry = g_strdup_printf ("ks_expression_kernel<%u, %u, %s>", ppt, mode,
                            instrumented ? "true" : "false");
}

gboolean
ks_kernel_source_build_unit (const KsKernelSource *source, const KsLaunchConfig *resolved_launch,
                             gboolean instrumented, KsKernelUnit *unit, GError **error)
{
  g_autoptr (GString) s = NULL;
  char *entry = NULL;

  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (unit != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (unit, 0, sizeof *unit);
  if (ks_kernel_source_has_errors (source))
    {
      g_autofree char *first = NULL;
      for (guint i = 0; i < source->diagnostics->len && first == NULL; i++)
        {
          const KsDiagnostic *d = g_ptr_array_index (source->diagnostics, i);
          if (d->severity == KS_DIAGNOSTIC_ERROR)
            first = ks_diagnostic_format (d);
        }
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE, "%s cannot be compiled: %s",
                   source->file_name, first);
      return FALSE;
    }

  s = g_string_new ("#include \"ks-user.cuh\"\n\n");
  if (source->mode != KS_KERNEL_MODE_ANY || source->n_params > 0)
    append_params_struct (s, source);

  if (source->mode == KS_KERNEL_MODE_EXPRESSION)
    {
      guint ppt = resolved_launch != NULL ? resolved_launch->pixels_per_thread : 0;
      guint mode = resolved_launch != NULL ? (guint) resolved_launch->mode
                                           : (guint) source->launch.mode;

      if (ppt == 0)
        ppt = source->launch.pixels_per_thread;
      if (ppt != 1 && ppt != 2 && ppt != 4 && ppt != 8 && ppt != 16)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                       "%u pixels per thread: an expression kernel takes 1, 2, 4, 8 or 16", ppt);
          return FALSE;
        }
      if (mode != KS_LAUNCH_PER_PIXEL && mode != KS_LAUNCH_GRID_STRIDE)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG,
                       "launch mode %u: an expression kernel runs per pixel (0) or "
                       "grid-stride (1)", mode);
          return FALSE;
        }
      build_expression (s, source, ppt, mode, instrumented, &entry);
    }
  else
    {
      append_user_text (s, source);
      if (source->mode == KS_KERNEL_MODE_ANY)
        _ks_user_kernel_append_layout_probe (source, s);
      entry = g_strdup (source->entry);
    }

  unit->source = g_string_free (g_steal_pointer (&s), FALSE);
  unit->entry = entry;
  unit->headers = unit_headers (source, &unit->n_headers);
  unit->extra_options = unit_options ();
  return TRUE;
}

static gsize
param_size (KsParamType type)
{
  return type == KS_PARAM_BOOL ? 1 : 4;
}

GBytes *
ks_kernel_source_pack_params (const KsKernelSource *source, const KsParams *params)
{
  guint8 *data;
  gsize offset = 0, size;

  g_return_val_if_fail (source != NULL, NULL);

  for (guint i = 0; i < source->n_params; i++)
    {
      gsize n = param_size (source->params[i].type);
      offset = (offset + n - 1) / n * n + n;
    }
  size = MAX (offset, 1);
  size = (size + KS_PARAMS_ALIGN - 1) / KS_PARAMS_ALIGN * KS_PARAMS_ALIGN;
  data = g_malloc0 (size);

  offset = 0;
  for (guint i = 0; i < source->n_params; i++)
    {
      const KsParamSpec *spec = &source->params[i];
      gsize n = param_size (spec->type);
      double v = params != NULL ? params->values[i] : spec->default_value;

      offset = (offset + n - 1) / n * n;
      switch (spec->type)
        {
        case KS_PARAM_BOOL:
          data[offset] = v != 0;
          break;
        case KS_PARAM_DOUBLE:
          {
            float f = (float) v;
            memcpy (data + offset, &f, sizeof f);
          }
          break;
        case KS_PARAM_INT:
        case KS_PARAM_CHOICE:
        default:
          {
            gint32 k = (gint32) CLAMP (round (v), (double) G_MININT32, (double) G_MAXINT32);
            memcpy (data + offset, &k, sizeof k);
          }
          break;
        }
      offset += n;
    }
  return g_bytes_new_take (data, size);
}

/* Whether file is in one of the toolkit's include folders. Warnings there
 * are not the user's to act on: nvcc treats the toolkit's folder as one of
 * system headers and shows none, and neither does Kernelscope (CCCL's
 * cuda/std/cmath defines INFINITY again after a math.h, say). Errors
 * there are shown: the user's code is often their cause. */
static gboolean
in_toolkit (const GStrv toolkit, const char *file)
{
  for (guint i = 0; toolkit != NULL && file != NULL && toolkit[i] != NULL; i++)
    if (g_str_has_prefix (file, toolkit[i]) && file[strlen (toolkit[i])] == G_DIR_SEPARATOR)
      return TRUE;
  return FALSE;
}

KsCompileResult *
ks_kernel_source_compile (const KsKernelSource *source, const KsLaunchConfig *resolved_launch,
                          gboolean instrumented, guint arch, GError **error)
{
  KsKernelUnit unit = { 0 };
  KsCompileRequest request = { 0 };
  const char *entries[2] = { NULL, NULL };
  KsCompileResult *result;
  g_autoptr (GPtrArray) merged = NULL;
  g_auto (GStrv) toolkit = NULL;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  merged = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; i < source->diagnostics->len; i++)
    g_ptr_array_add (merged, ks_diagnostic_copy (g_ptr_array_index (source->diagnostics, i)));

  /* A source with errors of its own is not worth NVRTC's time: the result
   * carries them, as a failed compilation would. */
  if (ks_kernel_source_has_errors (source))
    {
      result = g_new0 (KsCompileResult, 1);
      result->success = FALSE;
      result->log = g_strdup ("");
      result->diagnostics = g_steal_pointer (&merged);
      result->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_resources_free);
      return result;
    }

  if (!ks_kernel_source_build_unit (source, resolved_launch, instrumented, &unit, error))
    return NULL;

  entries[0] = unit.entry;
  request.source = unit.source;
  request.program_name = source->file_name;
  request.arch = arch;
  request.entries = entries;
  request.headers = unit.headers;
  request.n_headers = unit.n_headers;
  request.extra_options = (const char *const *) unit.extra_options;
  result = ks_nvrtc_compile (&request, error);
  ks_kernel_unit_clear (&unit);
  if (result == NULL)
    return NULL;

  if (result->diagnostics == NULL)
    result->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  toolkit = _ks_user_kernel_toolkit_dirs ();
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *said = g_ptr_array_index (result->diagnostics, i);
      KsDiagnostic *d;

      if (said->severity == KS_DIAGNOSTIC_WARNING && in_toolkit (toolkit, said->file))
        continue;
      d = ks_diagnostic_copy (said);

      _ks_user_kernel_explain_missing (source, d);
      g_ptr_array_add (merged, d);
    }
  g_ptr_array_unref (result->diagnostics);
  result->diagnostics = g_steal_pointer (&merged);
  return result;
}
