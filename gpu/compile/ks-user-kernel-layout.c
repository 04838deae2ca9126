/* ks-user-kernel-layout.c: the layout of an any kernel's argument types,
 * checked against the compiler. Kernelscope lays structs out itself with
 * C's rules (ks-user-kernel-types.c); a declaration it misreads (an
 * attribute it does not know, a macro, a type it resolved wrongly) would
 * give the kernel shifted bytes without a word. So the unit carries, after
 * the user's text, one table per struct an argument uses: the addresses of
 * its fields in a __device__ object of it, and its size and alignment. NVRTC
 * spells those out as the PTX's initializers
 *
 *   .global .align 8 .u64 ks_layout_0[4] = {generic(ks_layout_object_0), …+12, …};
 *   .global .align 8 .b8 ks_layout_size_0[16] = {20, 0, 0, 0, 0, 0, 0, 0, 4};
 *
 * and the entry declares each parameter's bytes and alignment
 * (.param .align 4 .b8 NAME[20], .param .f32 NAME, .param .u64 NAME): both
 * are compared with what Kernelscope would pass, without a GPU. The object
 * sits in a union whose constexpr constructor sets another member, so that
 * a struct with constructors needs no dynamic initialisation. */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-user-kernel-private.h"

gsize
ks_kernel_arg_get_size (const KsKernelArg *arg)
{
  g_return_val_if_fail (arg != NULL, 0);
  if (arg->pointer)
    return 8;
  return arg->value != NULL ? arg->value->size : ks_elem_type_size (arg->type);
}

gsize
ks_kernel_arg_get_align (const KsKernelArg *arg)
{
  g_return_val_if_fail (arg != NULL, 0);
  if (arg->pointer)
    return 8;
  return arg->value != NULL ? arg->value->align : ks_elem_type_size (arg->type);
}

const char *
ks_kernel_arg_get_type_name (const KsKernelArg *arg)
{
  g_return_val_if_fail (arg != NULL, NULL);
  return arg->value != NULL ? arg->value->name : ks_elem_type_short_name (arg->type);
}

/* The structs the arguments use, nested ones first, each once. */
static void
collect_structs (KsValueType *t, GPtrArray *structs)
{
  if (t == NULL || t->kind != KS_VALUE_STRUCT)
    return;
  for (guint i = 0; i < structs->len; i++)
    if (g_ptr_array_index (structs, i) == t)
      return;
  for (guint i = 0; i < t->n_fields; i++)
    collect_structs (t->fields[i].type, structs);
  g_ptr_array_add (structs, t);
}

static GPtrArray *
arg_structs (const KsKernelSource *self)
{
  GPtrArray *structs = g_ptr_array_new ();

  for (guint i = 0; i < self->args->len; i++)
    collect_structs (((KsKernelArg *) g_ptr_array_index (self->args, i))->value, structs);
  return structs;
}

void
_ks_user_kernel_append_layout_probe (const KsKernelSource *self, GString *s)
{
  g_autoptr (GPtrArray) structs = arg_structs (self);
  guint lines = 1;

  if (structs->len == 0)
    return;
  for (gsize i = 0; i < s->len; i++)
    lines += s->str[i] == '\n';
  g_string_append_printf (s, "#line %u \"ks-generated.cu\"\n", lines + 1);
  for (guint k = 0; k < structs->len; k++)
    {
      const KsValueType *t = g_ptr_array_index (structs, k);

      g_string_append_printf (s,
                              "union ks_layout_union_%u { char ks_c = 0; %s ks_s; "
                              "__device__ ~ks_layout_union_%u () {} };\n"
                              "static __device__ ks_layout_union_%u ks_layout_object_%u;\n"
                              "extern \"C\" __device__ const char *ks_layout_%u[] = { "
                              "(const char *) &ks_layout_object_%u.ks_s",
                              k, t->name, k, k, k, k, k);
      for (guint f = 0; f < t->n_fields; f++)
        g_string_append_printf (s, ", (const char *) &ks_layout_object_%u.ks_s.%s", k,
                                t->fields[f].name);
      g_string_append_printf (s,
                              " };\n"
                              "extern \"C\" __device__ unsigned long long ks_layout_size_%u[] = "
                              "{ sizeof (%s), alignof (%s) };\n",
                              k, t->name, t->name);
    }
}

/* ---- reading the PTX ------------------------------------------------------ */

static const char *
skip_blanks (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
    p++;
  return p;
}

/* The initializer of the .global NAME as 64-bit words: numbers as they are
 * (a .b8 table's bytes put together little-endian), an address as its
 * offset from the symbol it names (generic(SYM)+N → N). FALSE when the PTX
 * has no such variable. */
static gboolean
read_table (const char *ptx, const char *name, GArray *words)
{
  g_autofree char *needle = g_strdup_printf (" %s[", name);
  const char *p = strstr (ptx, needle);
  const char *line_start;
  gboolean bytes;
  guint n = 0;

  if (p == NULL)
    return FALSE;
  for (line_start = p; line_start > ptx && line_start[-1] != '\n'; line_start--)
    ;
  bytes = g_strstr_len (line_start, p - line_start + 1, ".b8") != NULL;
  p = strchr (p, '{');
  if (p == NULL)
    return FALSE;
  p++;
  for (;;)
    {
      guint64 v = 0;
      char *end;

      p = skip_blanks (p);
      if (*p == '}' || *p == '\0')
        break;
      if (g_str_has_prefix (p, "generic("))
        {
          p = strchr (p, ')');
          if (p == NULL)
            return FALSE;
          p++;
        }
      else if (g_ascii_isalpha (*p) || *p == '_')
        {
          while (g_ascii_isalnum (*p) || *p == '_' || *p == '$')
            p++;
        }
      else
        {
          v = g_ascii_strtoull (p, &end, 0);
          if (end == p)
            return FALSE;
          p = end;
        }
      p = skip_blanks (p);
      if (*p == '+')
        {
          v += g_ascii_strtoull (p + 1, &end, 0);
          p = end;
        }
      if (bytes)
        {
          if (n % 8 == 0)
            {
              guint64 zero = 0;
              g_array_append_val (words, zero);
            }
          g_array_index (words, guint64, n / 8) |= (v & 0xff) << (8 * (n % 8));
        }
      else
        g_array_append_val (words, v);
      n++;
      p = skip_blanks (p);
      if (*p == ',')
        p++;
    }
  return TRUE;
}

typedef struct
{
  gsize size;
  gsize align;
} PtxParam;

static gsize
ptx_type_size (const char *type, gsize len)
{
  /* b8 u16 s32 f64 …: the bits after the letter */
  if (len == 2 && type[1] == '8')
    return 1;
  if (len == 3 && strncmp (type + 1, "16", 2) == 0)
    return 2;
  if (len == 3 && strncmp (type + 1, "32", 2) == 0)
    return 4;
  if (len == 3 && strncmp (type + 1, "64", 2) == 0)
    return 8;
  return 0;
}

/* The parameters of .entry NAME, in order; NULL when the PTX has no such
 * entry. */
static GArray *
read_params (const char *ptx, const char *entry)
{
  g_autofree char *needle = g_strdup_printf (".entry %s(", entry);
  g_autoptr (GArray) params = g_array_new (FALSE, TRUE, sizeof (PtxParam));
  const char *p = strstr (ptx, needle);
  const char *close;

  if (p == NULL)
    return NULL;
  p += strlen (needle);
  close = strchr (p, ')');
  if (close == NULL)
    return NULL;
  while ((p = strstr (p, ".param")) != NULL && p < close)
    {
      PtxParam param = { 0, 0 };
      gsize explicit_align = 0;
      const char *type;
      gsize type_len;

      p = skip_blanks (p + 6);
      if (g_str_has_prefix (p, ".align"))
        {
          char *end;
          explicit_align = g_ascii_strtoull (p + 6, &end, 10);
          p = skip_blanks (end);
        }
      type = p + 1;
      for (type_len = 0; g_ascii_isalnum (type[type_len]); type_len++)
        ;
      param.size = ptx_type_size (type, type_len);
      p = type + type_len;
      /* .ptr .global .align N describe what a pointer points at */
      while (*p != '\0' && *p != ',' && *p != ')' && *p != '[')
        p++;
      if (*p == '[')
        param.size *= g_ascii_strtoull (p + 1, NULL, 10);
      param.align = explicit_align != 0 ? explicit_align : param.size;
      g_array_append_val (params, param);
    }
  return g_steal_pointer (&params);
}

static gboolean
check_struct (const KsValueType *t, guint k, const char *ptx, GError **error)
{
  g_autofree char *name = g_strdup_printf ("ks_layout_%u", k);
  g_autofree char *size_name = g_strdup_printf ("ks_layout_size_%u", k);
  g_autoptr (GArray) offsets = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_autoptr (GArray) sizes = g_array_new (FALSE, TRUE, sizeof (guint64));
  guint64 size, align;

  if (!read_table (ptx, name, offsets) || !read_table (ptx, size_name, sizes))
    return TRUE;
  g_array_set_size (sizes, MAX (sizes->len, 2));
  g_array_set_size (offsets, MAX (offsets->len, t->n_fields + 1));
  size = g_array_index (sizes, guint64, 0);
  align = g_array_index (sizes, guint64, 1);
  if (size != t->size || align != t->align)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The compiler lays out %s in %" G_GUINT64_FORMAT " bytes aligned to %"
                   G_GUINT64_FORMAT ", but Kernelscope read its declaration as %" G_GSIZE_FORMAT
                   " bytes aligned to %" G_GSIZE_FORMAT ", so it cannot pass values of it: "
                   "declare its members plainly (no macros, no attributes other than "
                   "__align__ or alignas)", t->name, size, align, t->size, t->align);
      return FALSE;
    }
  for (guint f = 0; f < t->n_fields; f++)
    {
      guint64 at = g_array_index (offsets, guint64, f + 1) - g_array_index (offsets, guint64, 0);

      if (at != t->fields[f].offset)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "The compiler puts %s's field %s at byte %" G_GUINT64_FORMAT ", but "
                       "Kernelscope read its declaration as putting it at byte %" G_GSIZE_FORMAT
                       ", so it cannot pass values of %s: declare its members plainly (no "
                       "macros, no attributes other than __align__ or alignas)", t->name,
                       t->fields[f].name, at, t->fields[f].offset, t->name);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ks_kernel_source_check_layout (const KsKernelSource *source, const KsCompileResult *compiled,
                               GError **error)
{
  g_autoptr (GPtrArray) structs = NULL;
  g_autoptr (GArray) params = NULL;
  const KsKernelResources *entry;

  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (compiled != NULL, FALSE);

  if (source->mode != KS_KERNEL_MODE_ANY || !compiled->success || compiled->ptx == NULL)
    return TRUE;

  structs = arg_structs (source);
  for (guint k = 0; k < structs->len; k++)
    if (!check_struct (g_ptr_array_index (structs, k), k, compiled->ptx, error))
      return FALSE;

  if (compiled->kernels == NULL || compiled->kernels->len == 0)
    return TRUE;
  entry = g_ptr_array_index (compiled->kernels, 0);
  if (entry->lowered_name == NULL
      || (params = read_params (compiled->ptx, entry->lowered_name)) == NULL)
    return TRUE;
  if (params->len != source->args->len)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The compiled kernel %s takes %u parameters, but Kernelscope read %u in its "
                   "signature: write the signature without macros", source->entry, params->len,
                   source->args->len);
      return FALSE;
    }
  for (guint i = 0; i < params->len; i++)
    {
      const PtxParam *p = &g_array_index (params, PtxParam, i);
      const KsKernelArg *arg = g_ptr_array_index (source->args, i);
      gsize size = ks_kernel_arg_get_size (arg), align = ks_kernel_arg_get_align (arg);

      /* a type that cannot be bound is refused with its reason by the
       * bindings' check */
      if (size == 0)
        continue;
      if (p->size != size || p->align != align)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "The compiled kernel takes “%s” as %" G_GSIZE_FORMAT " bytes aligned to %"
                       G_GSIZE_FORMAT ", but Kernelscope would pass %" G_GSIZE_FORMAT
                       " bytes aligned to %" G_GSIZE_FORMAT " (%s%s as it read the source): "
                       "it is not run with arguments that would be misread; declare the type "
                       "plainly, or pass the value another way", arg->name, p->size, p->align,
                       size, align, arg->pointer ? "a pointer to " : "",
                       ks_kernel_arg_get_type_name (arg));
          return FALSE;
        }
    }
  return TRUE;
}
