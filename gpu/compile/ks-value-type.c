/* ks-value-type.c: vector, complex and struct types (ks-value-type.h):
 * the table of CUDA's vector types with their real alignments, the complex
 * spellings, structs laid out with C's rules, values read from and written
 * as text, and numpy's description of a type. The leaves of a type (its
 * scalars with their paths and offsets) serve the .npy files
 * (ks-array-file.c). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array-private.h"

/* ---- the types ------------------------------------------------------------ */

static KsValueType *
value_type_new (KsValueKind kind, const char *name, KsElemType scalar, guint lanes, gsize size,
                gsize align)
{
  KsValueType *t = g_new0 (KsValueType, 1);

  t->ref_count = 1;
  t->kind = kind;
  t->name = g_strdup (name);
  t->scalar = scalar;
  t->lanes = lanes;
  t->size = size;
  t->align = align;
  return t;
}

KsValueType *
ks_value_type_ref (KsValueType *type)
{
  g_return_val_if_fail (type != NULL, NULL);
  g_atomic_int_inc (&type->ref_count);
  return type;
}

void
ks_value_type_unref (KsValueType *type)
{
  if (type == NULL || !g_atomic_int_dec_and_test (&type->ref_count))
    return;
  for (guint i = 0; i < type->n_fields; i++)
    {
      g_free (type->fields[i].name);
      ks_value_type_unref (type->fields[i].type);
    }
  g_free (type->fields);
  g_free (type->name);
  g_free (type);
}

KsValueType *
ks_value_type_new_scalar (KsElemType scalar)
{
  gsize size = ks_elem_type_size (scalar);

  if (size == 0)
    return NULL;
  return value_type_new (KS_VALUE_SCALAR, ks_elem_type_short_name (scalar), scalar, 1, size,
                         size);
}

/* CUDA's vector types (vector_types.h of CUDA 13): a 3-component type keeps
 * its component's alignment; the others are aligned to their size, except
 * the 4-component 64-bit ones: 16 (the deprecated long4, double4, …, and
 * the _16a spellings) or 32 (_32a). long is 64 bits, as on Linux. */
static const struct
{
  const char *base;
  KsElemType scalar;
  guint align[4];     /* of 1, 2, 3 and 4 components */
} vector_families[] = {
  { "char", KS_ELEM_INT8, { 1, 2, 1, 4 } },
  { "uchar", KS_ELEM_UINT8, { 1, 2, 1, 4 } },
  { "short", KS_ELEM_INT16, { 2, 4, 2, 8 } },
  { "ushort", KS_ELEM_UINT16, { 2, 4, 2, 8 } },
  { "int", KS_ELEM_INT32, { 4, 8, 4, 16 } },
  { "uint", KS_ELEM_UINT32, { 4, 8, 4, 16 } },
  { "long", KS_ELEM_INT64, { 8, 16, 8, 16 } },
  { "ulong", KS_ELEM_UINT64, { 8, 16, 8, 16 } },
  { "longlong", KS_ELEM_INT64, { 8, 16, 8, 16 } },
  { "ulonglong", KS_ELEM_UINT64, { 8, 16, 8, 16 } },
  { "float", KS_ELEM_FLOAT32, { 4, 8, 4, 16 } },
  { "double", KS_ELEM_FLOAT64, { 8, 16, 8, 16 } },
};

static KsValueType *
lookup_vector (const char *name)
{
  for (guint f = 0; f < G_N_ELEMENTS (vector_families); f++)
    {
      gsize n = strlen (vector_families[f].base);
      const char *rest = name + n;
      guint lanes;
      gsize comp, align;

      if (strncmp (name, vector_families[f].base, n) != 0 || rest[0] < '1' || rest[0] > '4')
        continue;
      lanes = (guint) (rest[0] - '0');
      comp = ks_elem_type_size (vector_families[f].scalar);
      align = vector_families[f].align[lanes - 1];
      if (rest[1] != '\0')
        {
          /* long4_16a, double4_32a: only the 4-component 64-bit types */
          if (lanes != 4 || comp != 8)
            return NULL;
          if (g_str_equal (rest + 1, "_16a"))
            align = 16;
          else if (g_str_equal (rest + 1, "_32a"))
            align = 32;
          else
            return NULL;
        }
      return value_type_new (KS_VALUE_VECTOR, name, vector_families[f].scalar, lanes,
                             comp * lanes, align);
    }
  return NULL;
}

/* "thrust::complex<float>" → "float"; NULL when name is not complex<…>. */
static char *
complex_template_arg (const char *name)
{
  const char *lt = strchr (name, '<');
  const char *word;
  gsize n;

  if (lt == NULL || !g_str_has_suffix (name, ">"))
    return NULL;
  /* the last component before '<' is "complex", in any namespace */
  for (word = lt; word > name && (g_ascii_isalnum (word[-1]) || word[-1] == '_'); word--)
    ;
  if ((gsize) (lt - word) != strlen ("complex") || strncmp (word, "complex", 7) != 0)
    return NULL;
  n = strlen (lt + 1) - 1;
  return g_strndup (lt + 1, n);
}

KsValueType *
ks_value_type_lookup (const char *name_in)
{
  g_autoptr (GString) name = g_string_new (NULL);
  g_autofree char *arg = NULL;
  KsElemType scalar = KS_ELEM_OTHER;

  g_return_val_if_fail (name_in != NULL, NULL);

  for (const char *p = name_in; *p != '\0'; p++)
    if (!g_ascii_isspace (*p))
      g_string_append_c (name, *p);
  if (name->len == 0)
    return NULL;

  if (g_str_equal (name->str, "cuFloatComplex") || g_str_equal (name->str, "cuComplex")
      || g_str_equal (name->str, "c64") || g_str_equal (name->str, "complex64"))
    scalar = KS_ELEM_FLOAT32;
  else if (g_str_equal (name->str, "cuDoubleComplex") || g_str_equal (name->str, "c128")
           || g_str_equal (name->str, "complex128"))
    scalar = KS_ELEM_FLOAT64;
  else if ((arg = complex_template_arg (name->str)) != NULL)
    {
      if (g_str_equal (arg, "float"))
        scalar = KS_ELEM_FLOAT32;
      else if (g_str_equal (arg, "double"))
        scalar = KS_ELEM_FLOAT64;
      else
        return NULL;
    }
  if (scalar != KS_ELEM_OTHER)
    {
      /* complex<T> is aligned to its size, like float2 and double2 */
      gsize size = 2 * ks_elem_type_size (scalar);
      return value_type_new (KS_VALUE_COMPLEX, name_in, scalar, 2, size, size);
    }
  return lookup_vector (name->str);
}

KsValueType *
ks_value_type_new_struct (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  return value_type_new (KS_VALUE_STRUCT, name, KS_ELEM_OTHER, 0, 0, 1);
}

void
ks_value_type_add_field (KsValueType *strukt, const char *name, KsValueType *type, guint count,
                         gsize member_align)
{
  gsize align, offset;
  KsValueField *f;

  g_return_if_fail (strukt != NULL && strukt->kind == KS_VALUE_STRUCT);
  g_return_if_fail (name != NULL && type != NULL && count > 0);

  align = MAX (type->align, member_align);
  offset = (strukt->size + align - 1) / align * align;
  strukt->fields = g_renew (KsValueField, strukt->fields, strukt->n_fields + 1);
  f = &strukt->fields[strukt->n_fields++];
  f->name = g_strdup (name);
  f->offset = offset;
  f->count = count;
  f->type = ks_value_type_ref (type);
  strukt->size = offset + type->size * count;
  strukt->align = MAX (strukt->align, align);
}

void
ks_value_type_end_struct (KsValueType *strukt, gsize struct_align)
{
  g_return_if_fail (strukt != NULL && strukt->kind == KS_VALUE_STRUCT);

  strukt->align = MAX (strukt->align, MAX (struct_align, 1));
  /* An empty struct is one byte in C++. */
  strukt->size = MAX (strukt->size, 1);
  strukt->size = (strukt->size + strukt->align - 1) / strukt->align * strukt->align;
}

gboolean
ks_value_type_equal (const KsValueType *a, const KsValueType *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a == b)
    return TRUE;
  if (a->kind != b->kind || a->scalar != b->scalar || a->lanes != b->lanes || a->size != b->size
      || a->align != b->align || a->n_fields != b->n_fields)
    return FALSE;
  for (guint i = 0; i < a->n_fields; i++)
    if (a->fields[i].offset != b->fields[i].offset || a->fields[i].count != b->fields[i].count
        || !ks_value_type_equal (a->fields[i].type, b->fields[i].type))
      return FALSE;
  return TRUE;
}

const char *
ks_value_type_get_name (const KsValueType *type)
{
  g_return_val_if_fail (type != NULL, NULL);
  return type->name;
}

/* ---- the leaves ----------------------------------------------------------- */

static void
add_leaves (const KsValueType *t, const char *path, gsize offset, GArray *leaves)
{
  static const char *const lane_names[] = { "x", "y", "z", "w" };

  switch (t->kind)
    {
    case KS_VALUE_SCALAR:
      {
        ValueLeaf leaf = { g_strdup (path), t->scalar, offset };
        g_array_append_val (leaves, leaf);
      }
      break;
    case KS_VALUE_VECTOR:
    case KS_VALUE_COMPLEX:
      for (guint i = 0; i < t->lanes; i++)
        {
          ValueLeaf leaf = { NULL, t->scalar, offset + i * ks_elem_type_size (t->scalar) };

          leaf.path = g_strdup_printf ("%s.%s", path, t->kind == KS_VALUE_VECTOR
                                                      ? lane_names[i]
                                                      : i == 0 ? "real" : "imag");
          g_array_append_val (leaves, leaf);
        }
      break;
    case KS_VALUE_STRUCT:
    default:
      for (guint i = 0; i < t->n_fields; i++)
        {
          const KsValueField *f = &t->fields[i];

          for (guint k = 0; k < f->count; k++)
            {
              g_autofree char *sub = f->count > 1
                                     ? g_strdup_printf ("%s.%s[%u]", path, f->name, k)
                                     : g_strdup_printf ("%s.%s", path, f->name);

              add_leaves (f->type, sub, offset + f->offset + k * f->type->size, leaves);
            }
        }
      break;
    }
}

static void
leaf_clear (gpointer data)
{
  g_free (((ValueLeaf *) data)->path);
}

GArray *
_ks_value_leaves_new (void)
{
  GArray *leaves = g_array_new (FALSE, TRUE, sizeof (ValueLeaf));

  g_array_set_clear_func (leaves, leaf_clear);
  return leaves;
}

GArray *
_ks_value_type_leaves (const KsValueType *type)
{
  GArray *leaves = _ks_value_leaves_new ();

  add_leaves (type, "", 0, leaves);
  return leaves;
}

/* ".pos.x" and ".pos[0]" name the same component, as ".z.real" and ".z[0]"
 * do: numpy writes a vector as a subarray or as fields x, y, z, w. */
char *
_ks_value_leaf_key (const char *path)
{
  static const struct
  {
    const char *name;
    const char *index;
  } lanes[] = {
    { ".x", "[0]" }, { ".y", "[1]" }, { ".z", "[2]" }, { ".w", "[3]" },
    { ".real", "[0]" }, { ".imag", "[1]" },
  };
  GString *key = g_string_new (NULL);
  const char *p = path;

  while (*p != '\0')
    {
      gboolean done = FALSE;

      for (guint i = 0; i < G_N_ELEMENTS (lanes) && !done; i++)
        {
          gsize n = strlen (lanes[i].name);

          if (strncmp (p, lanes[i].name, n) == 0 && (p[n] == '\0' || p[n] == '.' || p[n] == '['))
            {
              g_string_append (key, lanes[i].index);
              p += n;
              done = TRUE;
            }
        }
      if (!done)
        g_string_append_c (key, *p++);
    }
  return g_string_free (key, FALSE);
}

/* ---- values as text ------------------------------------------------------- */

static void
format_into (const KsValueType *t, const guint8 *bytes, GString *s)
{
  Value v;

  switch (t->kind)
    {
    case KS_VALUE_SCALAR:
      {
        g_autofree char *text = NULL;

        _ks_array_value_load (bytes, t->scalar, &v);
        text = _ks_array_format_value (&v, t->scalar);
        g_string_append (s, text);
      }
      break;
    case KS_VALUE_VECTOR:
      g_string_append_c (s, '(');
      for (guint i = 0; i < t->lanes; i++)
        {
          g_autofree char *text = NULL;

          _ks_array_value_load (bytes + i * ks_elem_type_size (t->scalar), t->scalar, &v);
          text = _ks_array_format_value (&v, t->scalar);
          g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", text);
        }
      g_string_append_c (s, ')');
      break;
    case KS_VALUE_COMPLEX:
      {
        g_autofree char *re = NULL;
        g_autofree char *im = NULL;
        double imag;

        _ks_array_value_load (bytes, t->scalar, &v);
        re = _ks_array_format_value (&v, t->scalar);
        _ks_array_value_load (bytes + ks_elem_type_size (t->scalar), t->scalar, &v);
        imag = v.d;
        im = _ks_array_format_value (&v, t->scalar);
        /* numpy's way: 1.5-2j, 0+1j, 1+nanj */
        g_string_append_printf (s, "%s%s%sj", re, signbit (imag) && !isnan (imag) ? "" : "+",
                                im);
      }
      break;
    case KS_VALUE_STRUCT:
    default:
      g_string_append_c (s, '{');
      for (guint i = 0; i < t->n_fields; i++)
        {
          const KsValueField *f = &t->fields[i];

          g_string_append_printf (s, "%s%s=", i > 0 ? ", " : "", f->name);
          if (f->count > 1)
            g_string_append_c (s, '(');
          for (guint k = 0; k < f->count; k++)
            {
              if (k > 0)
                g_string_append (s, ", ");
              format_into (f->type, bytes + f->offset + k * f->type->size, s);
            }
          if (f->count > 1)
            g_string_append_c (s, ')');
        }
      g_string_append_c (s, '}');
      break;
    }
}

char *
ks_value_type_format (const KsValueType *type, const guint8 *bytes)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (type != NULL && bytes != NULL, NULL);
  format_into (type, bytes, s);
  return g_string_free (s, FALSE);
}

/* A value as written, before its type is known. */
typedef enum
{
  LIT_NUMBER,
  LIT_COMPLEX,
  LIT_TUPLE,
  LIT_STRUCT,
} LitKind;

typedef struct
{
  LitKind kind;
  char *type_name;      /* float3(…), Particle{…}; else NULL */
  char *re, *im;        /* a number: re; a complex number: both */
  GPtrArray *items;     /* Lit: a tuple's values, a struct's */
  GPtrArray *names;     /* char *: a struct's field names, with items */
} Lit;

static void
lit_free (Lit *lit)
{
  if (lit == NULL)
    return;
  g_free (lit->type_name);
  g_free (lit->re);
  g_free (lit->im);
  g_clear_pointer (&lit->items, g_ptr_array_unref);
  g_clear_pointer (&lit->names, g_ptr_array_unref);
  g_free (lit);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Lit, lit_free)

typedef struct
{
  const char *p;
  char *error;
} LitParser;

static void
lit_skip (LitParser *lp)
{
  while (g_ascii_isspace (*lp->p))
    lp->p++;
}

/* A run of characters that is neither a bracket, a comma, '=' nor a space:
 * a number, a complex number, a type's or a field's name. */
static char *
lit_word (LitParser *lp)
{
  const char *start;

  lit_skip (lp);
  start = lp->p;
  while (*lp->p != '\0' && strchr ("(){},= \t\r\n", *lp->p) == NULL)
    lp->p++;
  return lp->p > start ? g_strndup (start, lp->p - start) : NULL;
}

static gboolean
is_type_name (const char *word)
{
  if (!(g_ascii_isalpha (*word) || *word == '_'))
    return FALSE;
  for (const char *p = word; *p != '\0'; p++)
    if (!(g_ascii_isalnum (*p) || strchr ("_:<>", *p) != NULL))
      return FALSE;
  return TRUE;
}

/* "1.5-2j" → "1.5", "-2"; "2j" → "0", "2". */
static gboolean
split_complex (const char *word, char **re, char **im)
{
  gsize n = strlen (word);
  g_autofree char *body = NULL;
  Value v;

  if (n < 2 || (word[n - 1] != 'j' && word[n - 1] != 'J'))
    return FALSE;
  body = g_strndup (word, n - 1);
  for (gsize i = n - 2; i > 0; i--)
    if ((body[i] == '+' || body[i] == '-') && body[i - 1] != 'e' && body[i - 1] != 'E')
      {
        *re = g_strndup (body, i);
        *im = g_strdup (body + (body[i] == '+' ? i + 1 : i));
        if (!_ks_array_value_parse (*re, &v) || !_ks_array_value_parse (*im, &v))
          {
            g_clear_pointer (re, g_free);
            g_clear_pointer (im, g_free);
            return FALSE;
          }
        return TRUE;
      }
  if (!_ks_array_value_parse (body, &v))
    return FALSE;
  *re = g_strdup ("0");
  *im = g_steal_pointer (&body);
  return TRUE;
}

static Lit *lit_parse_value (LitParser *lp, guint depth);

/* The values up to the closing bracket; a struct's as NAME=VALUE. */
static gboolean
lit_parse_items (LitParser *lp, Lit *lit, char close, guint depth)
{
  lit->items = g_ptr_array_new_with_free_func ((GDestroyNotify) lit_free);
  if (close == '}')
    lit->names = g_ptr_array_new_with_free_func (g_free);
  lit_skip (lp);
  if (*lp->p == close)
    {
      lp->p++;
      if (close == ')')
        {
          lp->error = g_strdup ("() holds no values");
          return FALSE;
        }
      return TRUE;
    }
  for (;;)
    {
      Lit *item;

      if (close == '}')
        {
          g_autofree char *name = lit_word (lp);

          lit_skip (lp);
          if (name == NULL || !is_type_name (name) || *lp->p != '=')
            {
              lp->error = g_strdup_printf ("a struct's fields are written by name, "
                                           "{NAME=VALUE, …}%s%s%s",
                                           name != NULL ? ": “" : "", name != NULL ? name : "",
                                           name != NULL ? "” has no =" : "");
              return FALSE;
            }
          lp->p++;
          for (guint i = 0; i < lit->names->len; i++)
            if (g_str_equal (g_ptr_array_index (lit->names, i), name))
              {
                lp->error = g_strdup_printf ("the field “%s” is given twice", name);
                return FALSE;
              }
          g_ptr_array_add (lit->names, g_steal_pointer (&name));
        }
      item = lit_parse_value (lp, depth + 1);
      if (item == NULL)
        return FALSE;
      g_ptr_array_add (lit->items, item);
      lit_skip (lp);
      if (*lp->p == ',')
        {
          lp->p++;
          continue;
        }
      if (*lp->p == close)
        {
          lp->p++;
          return TRUE;
        }
      lp->error = *lp->p == '\0'
                  ? g_strdup_printf ("the value has no closing %c", close)
                  : g_strdup_printf ("expected “,” or “%c”, not “%s”", close, lp->p);
      return FALSE;
    }
}

static Lit *
lit_parse_value (LitParser *lp, guint depth)
{
  g_autoptr (Lit) lit = g_new0 (Lit, 1);
  g_autofree char *word = NULL;

  if (depth > 16)
    {
      lp->error = g_strdup ("the value is nested too deep");
      return NULL;
    }
  lit_skip (lp);
  if (*lp->p != '(' && *lp->p != '{')
    {
      word = lit_word (lp);
      if (word == NULL)
        {
          lp->error = *lp->p == '\0' ? g_strdup ("a value is missing")
                                     : g_strdup_printf ("expected a value, not “%s”", lp->p);
          return NULL;
        }
      lit_skip (lp);
    }
  if (*lp->p == '(' || *lp->p == '{')
    {
      char open = *lp->p++;

      if (word != NULL && !is_type_name (word))
        {
          lp->error = g_strdup_printf ("“%s” is not a type's name", word);
          return NULL;
        }
      lit->kind = open == '(' ? LIT_TUPLE : LIT_STRUCT;
      lit->type_name = g_steal_pointer (&word);
      if (!lit_parse_items (lp, lit, open == '(' ? ')' : '}', depth))
        return NULL;
      return g_steal_pointer (&lit);
    }

  {
    Value v;

    if (_ks_array_value_parse (word, &v))
      {
        lit->kind = LIT_NUMBER;
        lit->re = g_steal_pointer (&word);
        return g_steal_pointer (&lit);
      }
    if (split_complex (word, &lit->re, &lit->im))
      {
        lit->kind = LIT_COMPLEX;
        return g_steal_pointer (&lit);
      }
  }
  lp->error = g_strdup_printf ("“%s” is not a number", word);
  return NULL;
}

static Lit *
lit_parse (const char *text, char **error)
{
  LitParser lp = { text, NULL };
  g_autoptr (Lit) lit = lit_parse_value (&lp, 0);

  if (lit != NULL)
    {
      lit_skip (&lp);
      if (*lp.p != '\0')
        lp.error = g_strdup_printf ("“%s” follows the value", lp.p);
    }
  if (lp.error != NULL)
    {
      *error = lp.error;
      return NULL;
    }
  return g_steal_pointer (&lit);
}

char *
ks_value_text_check (const char *text)
{
  g_autoptr (Lit) lit = NULL;
  char *why = NULL;

  g_return_val_if_fail (text != NULL, g_strdup ("no value"));
  lit = lit_parse (text, &why);
  return why;
}

static char *
store_number (const char *text, KsElemType scalar, guint8 *dst)
{
  Value v;
  Fit fit;

  if (!_ks_array_value_parse (text, &v))
    return g_strdup_printf ("“%s” is not a number", text);
  fit = _ks_array_value_fits (&v, scalar);
  if (fit != FIT_OK)
    return _ks_array_fit_message (text, fit, scalar, ks_elem_type_c_name (scalar));
  _ks_array_value_store (&v, scalar, dst);
  return NULL;
}

static const char *
lit_kind_text (const Lit *lit)
{
  switch (lit->kind)
    {
    case LIT_NUMBER:
      return "a number";
    case LIT_COMPLEX:
      return "a complex number";
    case LIT_TUPLE:
      return "a tuple";
    case LIT_STRUCT:
    default:
      return "a struct";
    }
}

/* "pos: " before a message about a field; nothing at the top. */
static char *
at (const char *path, char *why)
{
  char *s;

  if (why == NULL || *path == '\0')
    return why;
  s = g_strdup_printf ("%s: %s", path, why);
  g_free (why);
  return s;
}

static char *assign (const KsValueType *t, const Lit *lit, guint8 *dst, const char *path,
                     GString *missing);

static char *
assign_lanes (const KsValueType *t, const Lit *lit, guint8 *dst, const char *path,
              GString *missing)
{
  static const char *const lane_names[] = { "x", "y", "z", "w" };
  gsize comp = ks_elem_type_size (t->scalar);
  const char *what = t->kind == KS_VALUE_COMPLEX ? "complex number" : "vector";

  switch (lit->kind)
    {
    case LIT_NUMBER:
      if (t->kind == KS_VALUE_COMPLEX || t->lanes == 1)
        return at (path, store_number (lit->re, t->scalar, dst));
      return at (path, g_strdup_printf ("%s is a %s of %u components; write them as (%s)",
                                        t->name, what, t->lanes,
                                        t->lanes == 2 ? "X, Y" : t->lanes == 3 ? "X, Y, Z"
                                                                               : "X, Y, Z, W"));
    case LIT_COMPLEX:
      if (t->lanes != 2)
        return at (path, g_strdup_printf ("%s has %u components, and a complex number gives 2",
                                          t->name, t->lanes));
      {
        char *why = store_number (lit->re, t->scalar, dst);

        if (why == NULL)
          why = store_number (lit->im, t->scalar, dst + comp);
        return at (path, why);
      }
    case LIT_TUPLE:
      if (lit->type_name != NULL)
        {
          g_autoptr (KsValueType) named = ks_value_type_lookup (lit->type_name);

          if (named == NULL || !ks_value_type_equal (named, t))
            return at (path, g_strdup_printf ("the value is written as %s but the argument is "
                                              "%s", lit->type_name, t->name));
        }
      if (lit->items->len != t->lanes)
        return at (path, g_strdup_printf ("%s has %u components, and the value gives %u",
                                          t->name, t->lanes, lit->items->len));
      for (guint i = 0; i < t->lanes; i++)
        {
          const Lit *item = g_ptr_array_index (lit->items, i);

          if (item->kind != LIT_NUMBER)
            return at (path, g_strdup_printf ("a component of %s is a number, not %s", t->name,
                                              lit_kind_text (item)));
          {
            char *why = store_number (item->re, t->scalar, dst + i * comp);
            if (why != NULL)
              return at (path, why);
          }
        }
      return NULL;
    case LIT_STRUCT:
    default:
      if (t->kind == KS_VALUE_COMPLEX)
        return at (path, g_strdup_printf ("%s is a complex number: write it 1.5-2j or (1.5, -2)",
                                          t->name));
      for (guint i = 0; i < lit->items->len; i++)
        {
          const char *name = g_ptr_array_index (lit->names, i);
          const Lit *item = g_ptr_array_index (lit->items, i);
          guint lane = G_MAXUINT;

          for (guint k = 0; k < t->lanes; k++)
            if (g_str_equal (name, lane_names[k]))
              lane = k;
          if (lane == G_MAXUINT)
            return at (path, g_strdup_printf ("%s has no component “%s”", t->name, name));
          if (item->kind != LIT_NUMBER)
            return at (path, g_strdup_printf ("a component of %s is a number, not %s", t->name,
                                              lit_kind_text (item)));
          {
            char *why = store_number (item->re, t->scalar, dst + lane * comp);
            if (why != NULL)
              return at (path, why);
          }
        }
      for (guint k = 0; k < t->lanes; k++)
        {
          gboolean given = FALSE;

          for (guint i = 0; i < lit->names->len && !given; i++)
            given = g_str_equal (g_ptr_array_index (lit->names, i), lane_names[k]);
          if (!given && missing != NULL)
            g_string_append_printf (missing, "%s%s%s%s", missing->len > 0 ? ", " : "", path,
                                    *path != '\0' ? "." : "", lane_names[k]);
        }
      return NULL;
    }
}

static char *
assign_struct (const KsValueType *t, const Lit *lit, guint8 *dst, const char *path,
               GString *missing)
{
  if (lit->kind != LIT_STRUCT)
    return at (path, g_strdup_printf ("%s is a struct: write it {%s=…%s}", t->name,
                                      t->n_fields > 0 ? t->fields[0].name : "",
                                      t->n_fields > 1 ? ", …" : ""));
  if (lit->type_name != NULL && !g_str_equal (lit->type_name, t->name))
    return at (path, g_strdup_printf ("the value is written as %s but the argument is %s",
                                      lit->type_name, t->name));
  for (guint i = 0; i < lit->items->len; i++)
    {
      const char *name = g_ptr_array_index (lit->names, i);
      const Lit *item = g_ptr_array_index (lit->items, i);
      const KsValueField *f = NULL;
      g_autofree char *sub = NULL;

      for (guint k = 0; k < t->n_fields && f == NULL; k++)
        if (g_str_equal (t->fields[k].name, name))
          f = &t->fields[k];
      if (f == NULL)
        {
          g_autoptr (GString) names = g_string_new (NULL);

          for (guint k = 0; k < t->n_fields; k++)
            g_string_append_printf (names, "%s%s", k > 0 ? ", " : "", t->fields[k].name);
          return at (path, g_strdup_printf ("%s has no field “%s” (its fields: %s)", t->name,
                                            name, names->str));
        }
      sub = *path != '\0' ? g_strdup_printf ("%s.%s", path, name) : g_strdup (name);
      if (f->count == 1)
        {
          char *why = assign (f->type, item, dst + f->offset, sub, missing);
          if (why != NULL)
            return why;
          continue;
        }
      if (item->kind != LIT_TUPLE || item->type_name != NULL || item->items->len != f->count)
        return at (sub, g_strdup_printf ("the field holds %u values of %s: write them as "
                                         "(V1, V2, …)", f->count, f->type->name));
      for (guint k = 0; k < f->count; k++)
        {
          g_autofree char *elem = g_strdup_printf ("%s[%u]", sub, k);
          char *why = assign (f->type, g_ptr_array_index (item->items, k),
                              dst + f->offset + k * f->type->size, elem, missing);
          if (why != NULL)
            return why;
        }
    }
  for (guint k = 0; k < t->n_fields && missing != NULL; k++)
    {
      gboolean given = FALSE;

      for (guint i = 0; i < lit->names->len && !given; i++)
        given = g_str_equal (g_ptr_array_index (lit->names, i), t->fields[k].name);
      if (!given)
        g_string_append_printf (missing, "%s%s%s%s", missing->len > 0 ? ", " : "", path,
                                *path != '\0' ? "." : "", t->fields[k].name);
    }
  return NULL;
}

static char *
assign (const KsValueType *t, const Lit *lit, guint8 *dst, const char *path, GString *missing)
{
  switch (t->kind)
    {
    case KS_VALUE_SCALAR:
      if (lit->kind != LIT_NUMBER)
        return at (path, g_strdup_printf ("%s is a number, not %s", ks_elem_type_c_name (t->scalar),
                                          lit_kind_text (lit)));
      return at (path, store_number (lit->re, t->scalar, dst));
    case KS_VALUE_VECTOR:
    case KS_VALUE_COMPLEX:
      return assign_lanes (t, lit, dst, path, missing);
    case KS_VALUE_STRUCT:
    default:
      return assign_struct (t, lit, dst, path, missing);
    }
}

char *
ks_value_type_parse (const KsValueType *type, const char *text, guint8 *dst, char **warning)
{
  g_autoptr (Lit) lit = NULL;
  g_autoptr (GString) missing = g_string_new (NULL);
  char *why = NULL;

  g_return_val_if_fail (type != NULL && dst != NULL, g_strdup ("no type"));

  memset (dst, 0, type->size);
  if (text == NULL || (lit = lit_parse (text, &why)) == NULL)
    return why != NULL ? why : g_strdup ("no value");
  why = assign (type, lit, dst, "", missing);
  if (why == NULL && missing->len > 0 && warning != NULL)
    *warning = g_strdup_printf ("%s %s not given and %s zero", missing->str,
                                strchr (missing->str, ',') != NULL ? "are" : "is",
                                strchr (missing->str, ',') != NULL ? "are" : "is");
  return why;
}

/* ---- numpy's description -------------------------------------------------- */

static void
descr_into (const KsValueType *t, GString *s)
{
  switch (t->kind)
    {
    case KS_VALUE_SCALAR:
      g_string_append_printf (s, "'%s'", _ks_array_npy_descr (t->scalar));
      break;
    case KS_VALUE_COMPLEX:
      g_string_append (s, t->scalar == KS_ELEM_FLOAT32 ? "'<c8'" : "'<c16'");
      break;
    case KS_VALUE_VECTOR:
      /* a vector alone is a 2-D array of its components (ks_array_save_npy) */
      g_string_append_printf (s, "'%s'", _ks_array_npy_descr (t->scalar));
      break;
    case KS_VALUE_STRUCT:
    default:
      {
        gsize end = 0;

        g_string_append_c (s, '[');
        for (guint i = 0; i < t->n_fields; i++)
          {
            const KsValueField *f = &t->fields[i];

            if (f->offset > end)
              g_string_append_printf (s, "('', '|V%" G_GSIZE_FORMAT "'), ", f->offset - end);
            g_string_append_printf (s, "('%s', ", f->name);
            descr_into (f->type, s);
            if (f->type->kind == KS_VALUE_VECTOR && f->count > 1)
              g_string_append_printf (s, ", (%u, %u)", f->count, f->type->lanes);
            else if (f->type->kind == KS_VALUE_VECTOR)
              g_string_append_printf (s, ", (%u,)", f->type->lanes);
            else if (f->count > 1)
              g_string_append_printf (s, ", (%u,)", f->count);
            g_string_append (s, "), ");
            end = f->offset + f->count * f->type->size;
          }
        if (t->size > end)
          g_string_append_printf (s, "('', '|V%" G_GSIZE_FORMAT "'), ", t->size - end);
        if (s->str[s->len - 1] == ' ')
          g_string_truncate (s, s->len - 2);
        g_string_append_c (s, ']');
      }
      break;
    }
}

char *
ks_value_type_npy_descr (const KsValueType *type)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (type != NULL, NULL);
  descr_into (type, s);
  return g_string_free (s, FALSE);
}
