/* ks-array-file.c: arrays in files. .npy (a header that is a Python dict
 * literal, then the data) and .csv (numbers in rows, maybe a header line),
 * each read into the type asked for with every value checked, and written
 * atomically; the extension decides which.
 *
 * One file, since ks_array_load chooses between the two readers while both
 * formats share the reading of a file within limits and the atomic write. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ks-array-private.h"
#include "ks-error.h"
#include "ks-file.h"

/* Larger files are not read at all: no array they could hold is allowed. A
 * .csv spends up to ~25 characters per value, hence the margin. */
#define MAX_FILE_BYTES ((guint64) 8 << 30)

static gboolean
read_file (const char *path, char **contents, gsize *length, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *display = ks_file_display_name (path);
  GStatBuf st;

  if (g_stat (path, &st) == 0 && (guint64) st.st_size > MAX_FILE_BYTES)
    {
      g_autofree char *size = g_format_size_full (st.st_size, G_FORMAT_SIZE_IEC_UNITS);

      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "“%s” is %s; arrays are read from files of at most 8 GiB", display, size);
      return FALSE;
    }
  if (!g_file_get_contents (path, contents, length, &local))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "Could not read “%s”: %s",
                   display, local->message);
      return FALSE;
    }
  return TRUE;
}

/* Converts src (of src's type) into a new array of type, every element
 * checked; the message names the first one that does not fit. */
static KsArray *
convert_array (const KsArray *src, KsElemType type, const char *display, GError **error)
{
  g_autoptr (KsArray) dst = NULL;
  gsize ss = ks_elem_type_size (src->type), ds = ks_elem_type_size (type);

  if (src->type == type)
    return ks_array_copy (src);

  dst = ks_array_new (type, src->length, error);
  if (dst == NULL)
    return NULL;
  dst->rows = src->rows;
  dst->cols = src->cols;
  for (gsize i = 0; i < src->length; i++)
    {
      Value v;
      Fit fit;

      _ks_array_value_load (src->data + i * ss, src->type, &v);
      fit = _ks_array_value_fits (&v, type);
      if (fit != FIT_OK)
        {
          g_autofree char *text = _ks_array_format_value (&v, src->type);
          g_autofree char *why = _ks_array_fit_message (text, fit, type,
                                                        ks_elem_type_short_name (type));

          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s” holds %s values that are read as %s, but element %" G_GSIZE_FORMAT
                       " does not convert: %s", display, ks_elem_type_short_name (src->type),
                       ks_elem_type_short_name (type), i, why);
          return NULL;
        }
      _ks_array_value_store (&v, type, dst->data + i * ds);
    }
  return g_steal_pointer (&dst);
}

/* .npy: the header is a Python dict literal, e.g.
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * read here with a small tokenizer rather than by position, since writers
 * differ in key order and spacing. */
typedef struct
{
  const char *p;
  const char *end;
} Cursor;

static void
skip_space (Cursor *c)
{
  while (c->p < c->end && g_ascii_isspace (*c->p))
    c->p++;
}

static gboolean
expect_char (Cursor *c, char ch)
{
  skip_space (c);
  if (c->p < c->end && *c->p == ch)
    {
      c->p++;
      return TRUE;
    }
  return FALSE;
}

static char *
read_string (Cursor *c)
{
  char quote;
  const char *start;

  skip_space (c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return NULL;
  quote = *c->p++;
  start = c->p;
  while (c->p < c->end && *c->p != quote)
    c->p++;
  if (c->p >= c->end)
    return NULL;
  return g_strndup (start, c->p++ - start);
}

static gboolean
read_word (Cursor *c, const char *word)
{
  gsize n = strlen (word);

  skip_space (c);
  if ((gsize) (c->end - c->p) >= n && strncmp (c->p, word, n) == 0)
    {
      c->p += n;
      return TRUE;
    }
  return FALSE;
}

/* (3,) or (3, 4) or (): at most 3 dimensions are read, so that a 3-D file
 * gets a message of its own. */
static gboolean
read_shape (Cursor *c, guint64 *dims, guint *n_dims)
{
  *n_dims = 0;
  if (!expect_char (c, '('))
    return FALSE;
  for (;;)
    {
      guint64 d = 0;
      gboolean any = FALSE;

      skip_space (c);
      if (c->p < c->end && *c->p == ')')
        {
          c->p++;
          return TRUE;
        }
      while (c->p < c->end && g_ascii_isdigit (*c->p))
        {
          if (d > (G_MAXUINT64 - 9) / 10)
            return FALSE;
          d = d * 10 + (guint64) (*c->p++ - '0');
          any = TRUE;
        }
      if (!any)
        return FALSE;
      if (c->p < c->end && *c->p == 'L')   /* Python 2's long literals */
        c->p++;
      if (*n_dims < 3)
        dims[*n_dims] = d;
      (*n_dims)++;
      skip_space (c);
      if (c->p < c->end && *c->p == ',')
        c->p++;
      else if (c->p >= c->end || *c->p != ')')
        return FALSE;
    }
}

static gboolean
npy_descr_type (const char *descr, KsElemType *type, char **why)
{
  static const struct
  {
    const char *descr;
    KsElemType type;
  } known[] = {
    { "<f4", KS_ELEM_FLOAT32 }, { "<f8", KS_ELEM_FLOAT64 },
    { "|i1", KS_ELEM_INT8 },    { "<i1", KS_ELEM_INT8 },
    { "|u1", KS_ELEM_UINT8 },   { "<u1", KS_ELEM_UINT8 },
    { "<i2", KS_ELEM_INT16 },   { "<u2", KS_ELEM_UINT16 },
    { "<i4", KS_ELEM_INT32 },   { "<u4", KS_ELEM_UINT32 },
    { "<i8", KS_ELEM_INT64 },   { "<u8", KS_ELEM_UINT64 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (g_str_equal (descr, known[i].descr))
      {
        *type = known[i].type;
        return TRUE;
      }

  if (g_str_equal (descr, "|b1"))
    *why = g_strdup ("it holds booleans (|b1), which kernels cannot be bound to; "
                     "save it as uint8 (numpy: a.astype(np.uint8))");
  else if (descr[0] == '>')
    *why = g_strdup_printf ("it is big-endian (%s); save it little-endian "
                            "(numpy: a.astype(a.dtype.newbyteorder('<')))", descr);
  else
    *why = g_strdup_printf ("its type %s is not one of <f4 <f8 <i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8",
                            descr);
  return FALSE;
}

static gboolean
npy_bad (GError **error, const char *display, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
npy_bad (GError **error, const char *display, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "“%s” cannot be read as .npy: %s",
               display, what);
  return FALSE;
}

static KsArray *
npy_fail (GError **error, const char *display, const char *format, ...) G_GNUC_PRINTF (3, 4);

static KsArray *
npy_fail (GError **error, const char *display, const char *format, ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "“%s” cannot be read as .npy: %s",
               display, what);
  return NULL;
}

/* A .npy file's header and data, before its values are read. */
typedef struct
{
  char *contents;
  gsize size;
  guint64 data_start;
  char *descr;          /* a type string: "<f4" */
  char *fields;         /* or a structured dtype's list, as written: "[('x', '<f4'), …]" */
  guint64 dims[3];
  guint n_dims;
} NpyFile;

static void
npy_file_clear (NpyFile *f)
{
  g_free (f->contents);
  g_free (f->descr);
  g_free (f->fields);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (NpyFile, npy_file_clear)

/* A bracketed Python literal at c, as written. */
static char *
read_bracketed (Cursor *c)
{
  const char *start;
  gint depth = 0;
  char quote = 0;

  skip_space (c);
  start = c->p;
  for (; c->p < c->end; c->p++)
    {
      char ch = *c->p;

      if (quote != 0)
        {
          if (ch == quote)
            quote = 0;
          continue;
        }
      if (ch == '\'' || ch == '"')
        quote = ch;
      else if (ch == '[' || ch == '(')
        depth++;
      else if ((ch == ']' || ch == ')') && --depth == 0)
        {
          c->p++;
          return g_strndup (start, c->p - start);
        }
    }
  return NULL;
}

static gboolean
read_npy (const char *path, const char *display, NpyFile *f, GError **error)
{
  guint major;
  guint64 header_len;
  gboolean have_fortran = FALSE, fortran = FALSE, have_shape = FALSE;
  Cursor c;

  if (!read_file (path, &f->contents, &f->size, error))
    return FALSE;

  if (f->size < 10 || memcmp (f->contents, "\x93NUMPY", 6) != 0)
    return npy_bad (error, display, "it does not start with the .npy signature (\\x93NUMPY)");
  major = (guint8) f->contents[6];
  if (major == 1)
    {
      header_len = (guint8) f->contents[8] | (guint) (guint8) f->contents[9] << 8;
      f->data_start = 10 + header_len;
    }
  else if (major == 2 || major == 3)
    {
      if (f->size < 12)
        return npy_bad (error, display, "the file ends inside its header");
      header_len = (guint64) (guint8) f->contents[8] | (guint64) (guint8) f->contents[9] << 8
                   | (guint64) (guint8) f->contents[10] << 16
                   | (guint64) (guint8) f->contents[11] << 24;
      f->data_start = 12 + header_len;
    }
  else
    return npy_bad (error, display, "its format version %u.%u is not 1, 2 or 3", major,
                     (guint8) f->contents[7]);
  if (f->data_start > f->size)
    return npy_bad (error, display, "its header is %" G_GUINT64_FORMAT " bytes long but the "
                     "file has only %" G_GSIZE_FORMAT " bytes", header_len, f->size);

  c.p = f->contents + f->data_start - header_len;
  c.end = f->contents + f->data_start;
  if (!expect_char (&c, '{'))
    return npy_bad (error, display, "its header is not a dictionary");
  for (;;)
    {
      g_autofree char *key = NULL;

      if (expect_char (&c, '}'))
        break;
      key = read_string (&c);
      if (key == NULL || !expect_char (&c, ':'))
        return npy_bad (error, display, "its header is damaged");
      if (g_str_equal (key, "descr"))
        {
          g_clear_pointer (&f->descr, g_free);
          g_clear_pointer (&f->fields, g_free);
          skip_space (&c);
          if (c.p < c.end && *c.p == '[')
            f->fields = read_bracketed (&c);
          else
            f->descr = read_string (&c);
          if (f->descr == NULL && f->fields == NULL)
            return npy_bad (error, display, "the header's descr is neither a type string nor "
                             "a list of fields");
        }
      else if (g_str_equal (key, "fortran_order"))
        {
          have_fortran = TRUE;
          if (read_word (&c, "True"))
            fortran = TRUE;
          else if (read_word (&c, "False"))
            fortran = FALSE;
          else
            return npy_bad (error, display, "the header's fortran_order is not True or False");
        }
      else if (g_str_equal (key, "shape"))
        {
          have_shape = TRUE;
          if (!read_shape (&c, f->dims, &f->n_dims))
            return npy_bad (error, display, "the header's shape is not a tuple of integers");
        }
      else
        return npy_bad (error, display, "its header has an unknown key “%s”", key);
      if (!expect_char (&c, ','))
        {
          if (expect_char (&c, '}'))
            break;
          return npy_bad (error, display, "its header is damaged");
        }
    }
  if ((f->descr == NULL && f->fields == NULL) || !have_fortran || !have_shape)
    return npy_bad (error, display, "its header lacks %s",
                     f->descr == NULL && f->fields == NULL ? "descr"
                     : !have_fortran ? "fortran_order" : "shape");
  if (fortran && f->n_dims > 1)
    return npy_bad (error, display, "it is in Fortran (column-major) order; save it in C order "
                     "(numpy: np.save(path, np.ascontiguousarray(a)))");
  if (f->n_dims == 0 || f->n_dims > 2)
    return npy_bad (error, display, "it holds a %u-D array; arrays here are 1-D or 2-D",
                     f->n_dims);
  if (f->n_dims == 2 && f->dims[1] != 0 && f->dims[0] > G_MAXUINT64 / f->dims[1])
    return npy_bad (error, display, "its shape is too large");
  return TRUE;
}

static KsArray *
load_npy (const char *path, const char *display, KsElemType type, GError **error)
{
  g_auto (NpyFile) f = { 0 };
  g_autoptr (KsArray) raw = NULL;
  guint64 length, needed;
  KsElemType file_type;

  if (!read_npy (path, display, &f, error))
    return NULL;
  if (f.fields != NULL)
    return npy_fail (error, display, "it holds a structured array (%s): bind it to an array of "
                     "the struct with those fields, NAME=STRUCT[N]:file(PATH)", f.fields);
  if (g_str_equal (f.descr, "<c8") || g_str_equal (f.descr, "<c16"))
    return npy_fail (error, display, "it holds complex numbers (%s): bind it as %s[N]",
                     f.descr, g_str_equal (f.descr, "<c8") ? "c64" : "c128");
  {
    g_autofree char *why = NULL;

    if (!npy_descr_type (f.descr, &file_type, &why))
      return npy_fail (error, display, "%s", why);
  }
  length = f.n_dims == 2 ? f.dims[0] * f.dims[1] : f.dims[0];
  if (length == 0)
    return npy_fail (error, display, "it holds no elements");
  if (!_ks_array_check_size (file_type, length, error))
    {
      g_prefix_error (error, "“%s”: ", display);
      return NULL;
    }
  needed = length * ks_elem_type_size (file_type);
  if (f.size - f.data_start != needed)
    return npy_fail (error, display, "its header describes %" G_GUINT64_FORMAT " %s elements "
                     "(%" G_GUINT64_FORMAT " bytes), but %" G_GUINT64_FORMAT " bytes of data "
                     "follow it", length, f.descr, needed, (guint64) (f.size - f.data_start));

  raw = ks_array_new (file_type, length, error);
  if (raw == NULL)
    return NULL;
  memcpy (raw->data, f.contents + f.data_start, needed);
  if (f.n_dims == 2)
    {
      raw->rows = f.dims[0];
      raw->cols = f.dims[1];
    }
  if (type == KS_ELEM_OTHER || type == file_type)
    return g_steal_pointer (&raw);
  return convert_array (raw, type, display, error);
}

/* ---- .npy files of vectors, complex numbers and structs ------------------- */

/* The leaves of one scalar dtype string at path and offset: a number, a
 * complex number's two parts, or padding (|Vn, no leaf). */
static gboolean
descr_leaves (const char *descr, const char *path, gsize *offset, GArray *leaves, char **why)
{
  KsElemType type;
  gsize size;

  if (descr[0] == '|' && descr[1] == 'V')
    {
      *offset += g_ascii_strtoull (descr + 2, NULL, 10);
      return TRUE;
    }
  if (g_str_equal (descr, "<c8") || g_str_equal (descr, "<c16"))
    {
      KsElemType part = descr[2] == '8' ? KS_ELEM_FLOAT32 : KS_ELEM_FLOAT64;
      gsize n = ks_elem_type_size (part);

      for (guint i = 0; i < 2; i++)
        {
          ValueLeaf leaf = { g_strdup_printf ("%s[%u]", path, i), part, *offset + i * n };
          g_array_append_val (leaves, leaf);
        }
      *offset += 2 * n;
      return TRUE;
    }
  if (!npy_descr_type (descr, &type, why))
    return FALSE;
  size = ks_elem_type_size (type);
  {
    ValueLeaf leaf = { g_strdup (path), type, *offset };
    g_array_append_val (leaves, leaf);
  }
  *offset += size;
  return TRUE;
}

static gboolean fields_leaves (Cursor *c, const char *path, gsize *offset, GArray *leaves,
                               guint depth, char **why);

/* A field's dtype (a string or a nested list) repeated over its subarray
 * shape, each element at path[i][j]. */
static gboolean
field_leaves (Cursor *c, const char *path, gsize *offset, GArray *leaves, guint depth, char **why)
{
  g_autofree char *descr = NULL;
  g_autofree char *nested = NULL;
  guint64 dims[3] = { 1, 1, 1 };
  guint n_dims = 0;
  guint64 count = 1;

  skip_space (c);
  if (c->p < c->end && *c->p == '[')
    nested = read_bracketed (c);
  else
    descr = read_string (c);
  if (descr == NULL && nested == NULL)
    {
      *why = g_strdup_printf ("the type of the field %s is not a type string", path);
      return FALSE;
    }
  if (expect_char (c, ','))
    {
      skip_space (c);
      if (c->p < c->end && *c->p == '(')
        {
          if (!read_shape (c, dims, &n_dims) || n_dims > 2)
            {
              *why = g_strdup_printf ("the field %s has a shape of more than 2 dimensions", path);
              return FALSE;
            }
        }
      else
        {
          char *end;
          dims[0] = g_ascii_strtoull (c->p, &end, 10);
          if (end == c->p)
            {
              *why = g_strdup_printf ("the shape of the field %s is not a number", path);
              return FALSE;
            }
          c->p = end;
          n_dims = 1;
        }
    }
  for (guint d = 0; d < n_dims; d++)
    count *= dims[d];
  if (count == 0 || count > 65536)
    {
      *why = g_strdup_printf ("the field %s has %" G_GUINT64_FORMAT " elements", path, count);
      return FALSE;
    }
  for (guint64 k = 0; k < count; k++)
    {
      g_autofree char *sub = NULL;

      if (n_dims == 0)
        sub = g_strdup (path);
      else if (n_dims == 1)
        sub = g_strdup_printf ("%s[%" G_GUINT64_FORMAT "]", path, k);
      else
        sub = g_strdup_printf ("%s[%" G_GUINT64_FORMAT "][%" G_GUINT64_FORMAT "]", path,
                               k / dims[1], k % dims[1]);
      if (nested != NULL)
        {
          Cursor inner = { nested, nested + strlen (nested) };
          if (!fields_leaves (&inner, sub, offset, leaves, depth + 1, why))
            return FALSE;
        }
      else if (!descr_leaves (descr, sub, offset, leaves, why))
        return FALSE;
    }
  return TRUE;
}

/* [('name', DTYPE[, SHAPE]), …]: each field's leaves at .name, one after
 * the other as numpy packs them (padding is written as void fields). */
static gboolean
fields_leaves (Cursor *c, const char *path, gsize *offset, GArray *leaves, guint depth, char **why)
{
  if (depth > 8)
    {
      *why = g_strdup ("its fields are nested too deep");
      return FALSE;
    }
  if (!expect_char (c, '['))
    {
      *why = g_strdup ("its list of fields is damaged");
      return FALSE;
    }
  for (;;)
    {
      g_autofree char *name = NULL;
      g_autofree char *sub = NULL;

      if (expect_char (c, ']'))
        return TRUE;
      if (!expect_char (c, '(') || (name = read_string (c)) == NULL || !expect_char (c, ','))
        {
          *why = g_strdup ("its list of fields is damaged (a field is (NAME, TYPE[, SHAPE]); "
                           "titles are not read)");
          return FALSE;
        }
      sub = *name != '\0' ? g_strdup_printf ("%s.%s", path, name) : g_strdup (path);
      if (!field_leaves (c, sub, offset, leaves, depth, why))
        return FALSE;
      if (!expect_char (c, ')'))
        {
          *why = g_strdup ("its list of fields is damaged");
          return FALSE;
        }
      if (!expect_char (c, ','))
        {
          if (expect_char (c, ']'))
            return TRUE;
          *why = g_strdup ("its list of fields is damaged");
          return FALSE;
        }
    }
}

/* "pos.x, pos.y, mass": leaves' paths for a message, without the leading dots. */
static char *
leaf_names (const GArray *leaves)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < leaves->len; i++)
    {
      const char *path = g_array_index (leaves, ValueLeaf, i).path;
      g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", *path == '.' ? path + 1 : path);
    }
  return g_string_free (s, FALSE);
}

static KsArray *
load_npy_of (const char *path, const char *display, KsValueType *element, GError **error)
{
  g_auto (NpyFile) f = { 0 };
  g_autoptr (GArray) file_leaves = _ks_value_leaves_new ();
  g_autoptr (GArray) want = _ks_value_type_leaves (element);
  g_autoptr (KsArray) array = NULL;
  g_autofree guint *from = NULL;
  g_autofree char *why = NULL;
  gsize item = 0;
  guint64 count;

  if (!read_npy (path, display, &f, error))
    return NULL;
  if (f.fields != NULL)
    {
      Cursor c = { f.fields, f.fields + strlen (f.fields) };

      if (f.n_dims != 1)
        return npy_fail (error, display, "it holds a %u-D structured array; an array of %s is "
                         "1-D", f.n_dims, element->name);
      if (!fields_leaves (&c, "", &item, file_leaves, 0, &why))
        return npy_fail (error, display, "%s", why);
      count = f.dims[0];
    }
  else if (f.n_dims == 2 && !g_str_has_prefix (f.descr, "<c"))
    {
      /* n × lanes: the components of each item side by side */
      for (guint64 k = 0; k < f.dims[1] && k < 64; k++)
        {
          g_autofree char *sub = g_strdup_printf ("[%" G_GUINT64_FORMAT "]", k);
          if (!descr_leaves (f.descr, sub, &item, file_leaves, &why))
            return npy_fail (error, display, "%s", why);
        }
      if (f.dims[1] != want->len || element->kind == KS_VALUE_STRUCT)
        return npy_fail (error, display, "it holds a %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
                         " array, but an array of %s is read from shape (N, %u)%s", f.dims[0],
                         f.dims[1], element->name, want->len,
                         element->kind == KS_VALUE_STRUCT ? " … or rather from a structured "
                         "array with its fields" : "");
      count = f.dims[0];
    }
  else
    {
      if (f.n_dims != 1)
        return npy_fail (error, display, "it holds a 2-D array of complex numbers; an array "
                         "of %s is 1-D", element->name);
      if (!descr_leaves (f.descr, "", &item, file_leaves, &why))
        return npy_fail (error, display, "%s", why);
      count = f.dims[0];
    }
  if (count == 0)
    return npy_fail (error, display, "it holds no elements");
  if (item == 0 || count > G_MAXUINT64 / item || f.size - f.data_start != count * item)
    return npy_fail (error, display, "its header describes %" G_GUINT64_FORMAT " items of %"
                     G_GSIZE_FORMAT " bytes, but %" G_GUINT64_FORMAT " bytes of data follow it",
                     count, item, (guint64) (f.size - f.data_start));

  /* every leaf of the element from the file's leaf of the same name */
  from = g_new (guint, want->len);
  for (guint i = 0; i < want->len; i++)
    {
      g_autofree char *key = _ks_value_leaf_key (g_array_index (want, ValueLeaf, i).path);

      from[i] = G_MAXUINT;
      for (guint k = 0; k < file_leaves->len && from[i] == G_MAXUINT; k++)
        {
          g_autofree char *fkey = _ks_value_leaf_key (g_array_index (file_leaves, ValueLeaf,
                                                                     k).path);
          if (g_str_equal (key, fkey))
            from[i] = k;
        }
      if (from[i] == G_MAXUINT || file_leaves->len != want->len)
        {
          g_autofree char *have = leaf_names (file_leaves);
          g_autofree char *need = leaf_names (want);

          return npy_fail (error, display, "its items hold %s, but %s holds %s: %s",
                           *have != '\0' ? have : "one plain number", element->name, need,
                           element->kind == KS_VALUE_STRUCT
                           ? "save a structured array with the struct's field names"
                           : element->kind == KS_VALUE_COMPLEX
                           ? "save complex numbers (numpy: a.astype(np.complex64))"
                           : "save an array of shape (N, components)");
        }
    }

  array = ks_array_new_of (element, count, error);
  if (array == NULL)
    {
      g_prefix_error (error, "“%s”: ", display);
      return NULL;
    }
  for (guint64 n = 0; n < count; n++)
    {
      const guint8 *src = (const guint8 *) f.contents + f.data_start + n * item;
      guint8 *dst = array->data + n * element->size;

      for (guint i = 0; i < want->len; i++)
        {
          const ValueLeaf *w = &g_array_index (want, ValueLeaf, i);
          const ValueLeaf *h = &g_array_index (file_leaves, ValueLeaf, from[i]);
          Value v;
          Fit fit;

          _ks_array_value_load (src + h->offset, h->type, &v);
          fit = _ks_array_value_fits (&v, w->type);
          if (fit != FIT_OK)
            {
              g_autofree char *text = _ks_array_format_value (&v, h->type);
              g_autofree char *bad = _ks_array_fit_message (text, fit, w->type,
                                                            ks_elem_type_short_name (w->type));

              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”: item %" G_GUINT64_FORMAT "%s%s does not convert: %s", display,
                           n, *w->path != '\0' ? ", " : "",
                           *w->path == '.' ? w->path + 1 : w->path, bad);
              return NULL;
            }
          _ks_array_value_store (&v, w->type, dst + w->offset);
        }
    }
  return g_steal_pointer (&array);
}

/* A line's values: separated by commas and/or whitespace; a single comma at
 * the end of a line is tolerated, an empty value between two commas is not. */
static GPtrArray *
split_csv_line (const char *line, gboolean *empty_field)
{
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  gboolean after_comma = FALSE;
  const char *p = line;

  *empty_field = FALSE;
  for (;;)
    {
      const char *start;

      while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
      if (*p == '\0')
        break;
      if (*p == ',')
        {
          if (tokens->len == 0 || after_comma)
            {
              *empty_field = TRUE;
              return NULL;
            }
          after_comma = TRUE;
          p++;
          continue;
        }
      start = p;
      while (*p != '\0' && *p != ',' && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
      g_ptr_array_add (tokens, g_strndup (start, p - start));
      after_comma = FALSE;
    }
  return g_steal_pointer (&tokens);
}

/* A header names columns: a word that is not a number (nan and inf are). */
static gboolean
is_header_line (const char *line)
{
  g_autoptr (GPtrArray) tokens = NULL;
  gboolean empty_field;

  for (const char *p = line; *p != '\0'; p++)
    if (g_ascii_isalpha (*p) || *p == '"' || *p == '\'')
      {
        tokens = split_csv_line (line, &empty_field);
        if (tokens == NULL)
          return TRUE;
        for (guint i = 0; i < tokens->len; i++)
          {
            Value v;

            if (!_ks_array_value_parse (g_ptr_array_index (tokens, i), &v))
              return TRUE;
          }
        return FALSE;
      }
  return FALSE;
}

static KsArray *
load_csv (const char *path, const char *display, KsElemType type, GError **error)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  g_autoptr (KsArray) array = NULL;
  gsize size, elem_size;
  guint64 rows = 0, cols = 0;
  gboolean seen_first = FALSE, index_value = FALSE;
  guint first_line = 0;

  if (type == KS_ELEM_OTHER)
    type = KS_ELEM_FLOAT64;
  elem_size = ks_elem_type_size (type);
  if (!read_file (path, &contents, &size, error))
    return NULL;
  if (memchr (contents, '\0', size) != NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” cannot be read as .csv: it is not text", display);
      return NULL;
    }

  lines = g_strsplit (contents, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      g_autoptr (GPtrArray) tokens = NULL;
      gboolean empty_field;
      guint first_value;

      if (*g_strstrip (lines[l]) == '\0')
        continue;
      if (!seen_first)
        {
          seen_first = TRUE;
          first_line = l + 1;
          if (is_header_line (lines[l]))
            {
              g_autoptr (GString) compact = g_string_new (NULL);

              /* what ks_array_save_csv writes for a vector, in any case and spacing */
              for (const char *p = lines[l]; *p != '\0'; p++)
                if (!g_ascii_isspace (*p))
                  g_string_append_c (compact, g_ascii_tolower (*p));
              index_value = g_str_equal (compact->str, "index,value");
              continue;
            }
        }

      tokens = split_csv_line (lines[l], &empty_field);
      if (tokens == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s”, line %u: a value is missing between two commas", display, l + 1);
          return NULL;
        }
      if (cols == 0)
        {
          cols = tokens->len;
          if (index_value && cols != 2)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”, line %u: the header is “index,value” but the line has %u "
                           "values instead of 2", display, l + 1, tokens->len);
              return NULL;
            }
        }
      else if (tokens->len != cols)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                       "“%s”, line %u has %u values, but the rows before it have %" G_GUINT64_FORMAT
                       "; every row needs the same number", display, l + 1, tokens->len, cols);
          return NULL;
        }

      first_value = index_value ? 1 : 0;
      for (guint t = first_value; t < tokens->len; t++)
        {
          const char *text = g_ptr_array_index (tokens, t);
          guint8 elem_bytes[8];
          Value v;
          Fit fit;

          if (!_ks_array_value_parse (text, &v))
            {
              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”, line %u, value %u: “%s” is not a number", display, l + 1,
                           t + 1, text);
              return NULL;
            }
          fit = _ks_array_value_fits (&v, type);
          if (fit != FIT_OK)
            {
              g_autofree char *why = _ks_array_fit_message (text, fit, type,
                                                            ks_elem_type_short_name (type));

              g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                           "“%s”, line %u, value %u: %s", display, l + 1, t + 1, why);
              return NULL;
            }
          if (bytes->len + elem_size > KS_ARRAY_MAX_BYTES)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                           "“%s” holds more than 2 GiB of %s values (line %u); the limit is "
                           "2 GiB", display, ks_elem_type_short_name (type), l + 1);
              return NULL;
            }
          _ks_array_value_store (&v, type, elem_bytes);
          g_byte_array_append (bytes, elem_bytes, elem_size);
        }
      rows++;
    }

  if (bytes->len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” holds no numbers%s", display,
                   first_line != 0 ? " (only a header line)" : "");
      return NULL;
    }

  array = ks_array_new (type, bytes->len / elem_size, error);
  if (array == NULL)
    return NULL;
  memcpy (array->data, bytes->data, bytes->len);
  if (!index_value && rows > 1 && cols > 1)
    {
      array->rows = rows;
      array->cols = cols;
    }
  return g_steal_pointer (&array);
}

static gboolean
has_suffix_ci (const char *path, const char *suffix)
{
  gsize n = strlen (path), m = strlen (suffix);

  return n >= m && g_ascii_strcasecmp (path + n - m, suffix) == 0;
}

KsArray *
ks_array_load (const char *path, KsElemType type, GError **error)
{
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail ((guint) type <= KS_ELEM_OTHER, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  display = ks_file_display_name (path);
  if (has_suffix_ci (path, ".npy"))
    return load_npy (path, display, type, error);
  if (has_suffix_ci (path, ".csv"))
    return load_csv (path, display, type, error);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "“%s” is neither a .npy nor a .csv file: arrays are read from those two formats",
               display);
  return NULL;
}

/* .csv: one row of components per item (one row alone for one item). */
static KsArray *
load_csv_of (const char *path, const char *display, KsValueType *element, GError **error)
{
  g_autoptr (KsArray) array = NULL;
  gsize count;

  if (element->kind == KS_VALUE_STRUCT)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s”: an array of the struct %s is read from .npy (a structured array with "
                   "its fields), not from .csv", display, element->name);
      return NULL;
    }
  array = load_csv (path, display, element->scalar, error);
  if (array == NULL)
    return NULL;
  if (!(array->cols == element->lanes && array->rows * array->cols == array->length)
      && !(array->cols == 0 && (array->length == element->lanes || element->lanes == 1)))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "“%s” holds %" G_GSIZE_FORMAT " values in %" G_GSIZE_FORMAT " columns, but "
                   "an array of %s is read from rows of %u components", display, array->length,
                   array->cols > 0 ? array->cols : 1, element->name, element->lanes);
      return NULL;
    }
  count = array->length / element->lanes;
  array->rows = count;
  array->cols = element->lanes;
  array->element = ks_value_type_ref (element);
  return g_steal_pointer (&array);
}

KsArray *
ks_array_load_of (const char *path, KsValueType *element, GError **error)
{
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (element != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (element->kind == KS_VALUE_SCALAR)
    return ks_array_load (path, element->scalar, error);
  display = ks_file_display_name (path);
  if (has_suffix_ci (path, ".npy"))
    return load_npy_of (path, display, element, error);
  if (has_suffix_ci (path, ".csv"))
    return load_csv_of (path, display, element, error);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "“%s” is neither a .npy nor a .csv file: arrays are read from those two formats",
               display);
  return NULL;
}

/* The head and the body as one file, atomically (ks-file.h): a reader never
 * sees half a file, and a failed or interrupted save keeps the old one. */
static gboolean
write_atomically (const char *path, const void *head, gsize head_len, const void *body,
                  gsize body_len, GError **error)
{
  KsAtomicFile *file = ks_atomic_file_open (path, error);

  if (file == NULL)
    return FALSE;
  if (!ks_atomic_file_write (file, head, head_len, error)
      || !ks_atomic_file_write (file, body, body_len, error))
    {
      ks_atomic_file_abort (file);
      return FALSE;
    }
  return ks_atomic_file_commit (file, error);
}

gboolean
ks_array_save_npy (const KsArray *array, const char *path, GError **error)
{
  /* the signature, version 1.0, and the header's length (set below) */
  g_autoptr (GString) header = g_string_new_len ("\x93NUMPY\x01\x00\x00\x00", 10);
  const gsize dict_start = 10;

  g_return_val_if_fail (array != NULL, FALSE);
  g_return_val_if_fail ((guint) array->type < KS_ELEM_OTHER, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (array->element != NULL && array->element->kind != KS_VALUE_VECTOR)
    {
      /* complex numbers and structs: one item per row, of numpy's dtype */
      g_autofree char *descr = ks_value_type_npy_descr (array->element);

      g_string_append_printf (header, "{'descr': %s, 'fortran_order': False, 'shape': (%"
                              G_GSIZE_FORMAT ",), }", descr, array->rows);
    }
  else
    {
      g_string_append_printf (header, "{'descr': '%s', 'fortran_order': False, 'shape': ",
                              _ks_array_npy_descr (array->type));
      if (array->cols > 0 && array->rows * array->cols == array->length)
        g_string_append_printf (header, "(%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "), }",
                                array->rows, array->cols);
      else
        g_string_append_printf (header, "(%" G_GSIZE_FORMAT ",), }", array->length);
    }
  /* numpy pads with spaces and ends with a newline so that the data starts
   * at a multiple of 64 bytes (aligned for any type, and for mmap). */
  while ((header->len + 1) % 64 != 0)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');
  if (header->len - dict_start > G_MAXUINT16)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The type %s is too large to describe in a .npy header",
                   ks_array_get_type_name (array));
      return FALSE;
    }
  header->str[8] = (char) ((header->len - dict_start) & 0xff);
  header->str[9] = (char) ((header->len - dict_start) >> 8);

  return write_atomically (path, header->str, header->len, array->data,
                           ks_array_get_bytes (array), error);
}

gboolean
ks_array_save_csv (const KsArray *array, const char *path, GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  gboolean matrix;

  g_return_val_if_fail (array != NULL, FALSE);
  g_return_val_if_fail ((guint) array->type < KS_ELEM_OTHER, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (array->element != NULL && array->element->kind == KS_VALUE_STRUCT)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "An array of the struct %s is saved as .npy (a structured array), not as "
                   ".csv", array->element->name);
      return FALSE;
    }
  /* vectors and complex numbers: a row of components per item */
  matrix = array->cols > 0 && array->rows * array->cols == array->length;
  if (!matrix)
    g_string_append (text, "index,value\n");
  for (gsize i = 0; i < array->length; i++)
    {
      g_autofree char *value = ks_array_format_element (array, i);

      if (!matrix)
        g_string_append_printf (text, "%" G_GSIZE_FORMAT ",%s\n", i, value);
      else
        {
          g_string_append (text, value);
          g_string_append_c (text, (i + 1) % array->cols == 0 ? '\n' : ',');
        }
    }
  return write_atomically (path, text->str, text->len, NULL, 0, error);
}
