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

static KsArray *
load_npy (const char *path, const char *display, KsElemType type, GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *descr = NULL;
  g_autoptr (KsArray) raw = NULL;
  gsize size;
  guint major;
  guint64 header_len, data_start, dims[3] = { 0 }, length, needed;
  guint n_dims = 0;
  gboolean have_fortran = FALSE, fortran = FALSE, have_shape = FALSE;
  KsElemType file_type;
  Cursor c;

  if (!read_file (path, &contents, &size, error))
    return NULL;

  if (size < 10 || memcmp (contents, "\x93NUMPY", 6) != 0)
    return npy_fail (error, display, "it does not start with the .npy signature (\\x93NUMPY)");
  major = (guint8) contents[6];
  if (major == 1)
    {
      header_len = (guint8) contents[8] | (guint) (guint8) contents[9] << 8;
      data_start = 10 + header_len;
    }
  else if (major == 2 || major == 3)
    {
      if (size < 12)
        return npy_fail (error, display, "the file ends inside its header");
      header_len = (guint64) (guint8) contents[8] | (guint64) (guint8) contents[9] << 8
                   | (guint64) (guint8) contents[10] << 16 | (guint64) (guint8) contents[11] << 24;
      data_start = 12 + header_len;
    }
  else
    return npy_fail (error, display, "its format version %u.%u is not 1, 2 or 3", major,
                     (guint8) contents[7]);
  if (data_start > size)
    return npy_fail (error, display, "its header is %" G_GUINT64_FORMAT " bytes long but the "
                     "file has only %" G_GSIZE_FORMAT " bytes", header_len, size);

  c.p = contents + data_start - header_len;
  c.end = contents + data_start;
  if (!expect_char (&c, '{'))
    return npy_fail (error, display, "its header is not a dictionary");
  for (;;)
    {
      g_autofree char *key = NULL;

      if (expect_char (&c, '}'))
        break;
      key = read_string (&c);
      if (key == NULL || !expect_char (&c, ':'))
        return npy_fail (error, display, "its header is damaged");
      if (g_str_equal (key, "descr"))
        {
          g_clear_pointer (&descr, g_free);
          descr = read_string (&c);
          if (descr == NULL)
            return npy_fail (error, display, "the header's descr is not a type string "
                             "(structured arrays are not supported)");
        }
      else if (g_str_equal (key, "fortran_order"))
        {
          have_fortran = TRUE;
          if (read_word (&c, "True"))
            fortran = TRUE;
          else if (read_word (&c, "False"))
            fortran = FALSE;
          else
            return npy_fail (error, display, "the header's fortran_order is not True or False");
        }
      else if (g_str_equal (key, "shape"))
        {
          have_shape = TRUE;
          if (!read_shape (&c, dims, &n_dims))
            return npy_fail (error, display, "the header's shape is not a tuple of integers");
        }
      else
        return npy_fail (error, display, "its header has an unknown key “%s”", key);
      if (!expect_char (&c, ','))
        {
          if (expect_char (&c, '}'))
            break;
          return npy_fail (error, display, "its header is damaged");
        }
    }
  if (descr == NULL || !have_fortran || !have_shape)
    return npy_fail (error, display, "its header lacks %s",
                     descr == NULL ? "descr" : !have_fortran ? "fortran_order" : "shape");

  {
    g_autofree char *why = NULL;

    if (!npy_descr_type (descr, &file_type, &why))
      return npy_fail (error, display, "%s", why);
  }
  if (fortran && n_dims > 1)
    return npy_fail (error, display, "it is in Fortran (column-major) order; save it in C order "
                     "(numpy: np.save(path, np.ascontiguousarray(a)))");
  if (n_dims == 0 || n_dims > 2)
    return npy_fail (error, display, "it holds a %u-D array; arrays here are 1-D or 2-D", n_dims);
  if (n_dims == 2 && dims[1] != 0 && dims[0] > G_MAXUINT64 / dims[1])
    return npy_fail (error, display, "its shape is too large");
  length = n_dims == 2 ? dims[0] * dims[1] : dims[0];
  if (length == 0)
    return npy_fail (error, display, "it holds no elements");
  if (!_ks_array_check_size (file_type, length, error))
    {
      g_prefix_error (error, "“%s”: ", display);
      return NULL;
    }
  needed = length * ks_elem_type_size (file_type);
  if (size - data_start != needed)
    return npy_fail (error, display, "its header describes %" G_GUINT64_FORMAT " %s elements "
                     "(%" G_GUINT64_FORMAT " bytes), but %" G_GUINT64_FORMAT " bytes of data "
                     "follow it", length, descr, needed, (guint64) (size - data_start));

  raw = ks_array_new (file_type, length, error);
  if (raw == NULL)
    return NULL;
  memcpy (raw->data, contents + data_start, needed);
  if (n_dims == 2)
    {
      raw->rows = dims[0];
      raw->cols = dims[1];
    }
  if (type == KS_ELEM_OTHER || type == file_type)
    return g_steal_pointer (&raw);
  return convert_array (raw, type, display, error);
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

  g_string_append_printf (header, "{'descr': '%s', 'fortran_order': False, 'shape': ",
                          _ks_array_npy_descr (array->type));
  if (array->cols > 0 && array->rows * array->cols == array->length)
    g_string_append_printf (header, "(%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "), }",
                            array->rows, array->cols);
  else
    g_string_append_printf (header, "(%" G_GSIZE_FORMAT ",), }", array->length);
  /* numpy pads with spaces and ends with a newline so that the data starts
   * at a multiple of 64 bytes (aligned for any type, and for mmap). */
  while ((header->len + 1) % 64 != 0)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');
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
