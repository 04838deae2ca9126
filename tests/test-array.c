/* test-array.c: element types, host arrays and their files: parsing and
 * naming the types, an array's limits, elements, text and comparison, and
 * .npy and .csv read and written. The .npy reader is checked against bytes
 * written by hand here, not only against its own writer. What a user writes
 * to bind a kernel's arguments, and the data it generates, is in
 * test-bindings.c. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array.h"
#include "ks-error.h"
#include "ks-test-helpers.h"

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static char *
write_tmp (const char *name, const void *data, gsize len)
{
  char *path = tmp_path (name);

  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
  return path;
}

/* ---- element types ------------------------------------------------------ */

static void
test_elem_parse (void)
{
  static const struct
  {
    const char *text;
    KsElemType type;
  } good[] = {
    { "int", KS_ELEM_INT32 },
    { "signed", KS_ELEM_INT32 },
    { "signed int", KS_ELEM_INT32 },
    { "unsigned", KS_ELEM_UINT32 },
    { "unsigned int", KS_ELEM_UINT32 },
    { "const unsigned int", KS_ELEM_UINT32 },
    { "char", KS_ELEM_INT8 },
    { "signed char", KS_ELEM_INT8 },
    { "unsigned char", KS_ELEM_UINT8 },
    { "short", KS_ELEM_INT16 },
    { "short int", KS_ELEM_INT16 },
    { "unsigned short", KS_ELEM_UINT16 },
    { "long", KS_ELEM_INT64 },
    { "unsigned long", KS_ELEM_UINT64 },
    { "long long", KS_ELEM_INT64 },
    { "long unsigned int", KS_ELEM_UINT64 },
    { "unsigned long long", KS_ELEM_UINT64 },
    { "size_t", KS_ELEM_UINT64 },
    { "int8_t", KS_ELEM_INT8 },
    { "uint8_t", KS_ELEM_UINT8 },
    { "int16_t", KS_ELEM_INT16 },
    { "uint16_t", KS_ELEM_UINT16 },
    { "int32_t", KS_ELEM_INT32 },
    { "uint32_t", KS_ELEM_UINT32 },
    { "int64_t", KS_ELEM_INT64 },
    { "const uint64_t", KS_ELEM_UINT64 },
    { "float", KS_ELEM_FLOAT32 },
    { "const float", KS_ELEM_FLOAT32 },
    { "float const", KS_ELEM_FLOAT32 },
    { "volatile double", KS_ELEM_FLOAT64 },
    { "const __restrict__ float", KS_ELEM_FLOAT32 },
    { "  double  ", KS_ELEM_FLOAT64 },
    { "i8", KS_ELEM_INT8 },
    { "u8", KS_ELEM_UINT8 },
    { "i16", KS_ELEM_INT16 },
    { "u16", KS_ELEM_UINT16 },
    { "i32", KS_ELEM_INT32 },
    { "u32", KS_ELEM_UINT32 },
    { "i64", KS_ELEM_INT64 },
    { "u64", KS_ELEM_UINT64 },
    { "f32", KS_ELEM_FLOAT32 },
    { "f64", KS_ELEM_FLOAT64 },
  };
  static const char *const bad[] = {
    "", "const", "uchar", "float4", "long double", "unsigned float", "signed unsigned",
    "short long", "long long long", "int int", "bool", "half", "const uint8_t int",
    "struct foo", "F32", "float *",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      KsElemType type = KS_ELEM_OTHER;

      if (!ks_elem_type_parse (good[i].text, &type))
        g_error ("“%s” was not read as a type", good[i].text);
      if (type != good[i].type)
        g_error ("“%s” read as %s", good[i].text, ks_elem_type_short_name (type));
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      KsElemType type = KS_ELEM_OTHER;

      if (ks_elem_type_parse (bad[i], &type))
        g_error ("“%s” was read as %s", bad[i], ks_elem_type_short_name (type));
    }
}

static void
test_elem_names (void)
{
  static const gsize sizes[] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8 };

  for (KsElemType t = 0; t < KS_ELEM_OTHER; t++)
    {
      KsElemType back = KS_ELEM_OTHER;

      g_assert_cmpuint (ks_elem_type_size (t), ==, sizes[t]);
      /* the C spelling and the short name both read back as the type */
      g_assert_true (ks_elem_type_parse (ks_elem_type_c_name (t), &back));
      g_assert_cmpint (back, ==, t);
      g_assert_true (ks_elem_type_parse (ks_elem_type_short_name (t), &back));
      g_assert_cmpint (back, ==, t);
    }
  g_assert_cmpstr (ks_elem_type_c_name (KS_ELEM_UINT32), ==, "unsigned int");
  g_assert_cmpstr (ks_elem_type_c_name (KS_ELEM_INT64), ==, "long long");
  g_assert_cmpstr (ks_elem_type_short_name (KS_ELEM_FLOAT32), ==, "f32");
  g_assert_cmpuint (ks_elem_type_size (KS_ELEM_OTHER), ==, 0);
  g_assert_true (ks_elem_type_is_float (KS_ELEM_FLOAT64));
  g_assert_false (ks_elem_type_is_float (KS_ELEM_INT32));
  g_assert_true (ks_elem_type_is_signed (KS_ELEM_INT8));
  g_assert_false (ks_elem_type_is_signed (KS_ELEM_UINT64));
  g_assert_false (ks_elem_type_is_signed (KS_ELEM_OTHER));
}

/* ---- arrays ------------------------------------------------------------- */

static void
test_array_limits (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) a = NULL;

  a = ks_array_new (KS_ELEM_FLOAT32, 0, &error);
  g_assert_null (a);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "0"));
  g_clear_error (&error);

  /* one element past 2 GiB of bytes */
  a = ks_array_new (KS_ELEM_INT8, ((gsize) 2 << 30) + 1, &error);
  g_assert_null (a);
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "2147483649"));
  g_assert_nonnull (strstr (error->message, "2 GiB"));
  g_clear_error (&error);

  a = ks_array_new (KS_ELEM_FLOAT64, G_MAXSIZE / 4, &error);
  g_assert_null (a);
  g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "268435456"));   /* the limit in f64 elements */
  g_clear_error (&error);

  a = ks_array_new (KS_ELEM_UINT16, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->length, ==, 5);
  g_assert_cmpuint (a->rows, ==, 5);
  g_assert_cmpuint (a->cols, ==, 0);
  g_assert_cmpuint (ks_array_get_bytes (a), ==, 10);
  for (guint i = 0; i < 10; i++)
    g_assert_cmpuint (a->data[i], ==, 0);
}

static void
test_array_get_set (void)
{
  static const struct
  {
    KsElemType type;
    double in;
    double out;
  } cases[] = {
    { KS_ELEM_UINT8, 300, 255 },     { KS_ELEM_UINT8, -5, 0 },
    { KS_ELEM_UINT8, 2.5, 3 },       { KS_ELEM_UINT8, NAN, 0 },
    { KS_ELEM_INT8, -200, -128 },    { KS_ELEM_INT8, 127.4, 127 },
    { KS_ELEM_INT16, -2.5, -3 },     { KS_ELEM_UINT16, 70000, 65535 },
    { KS_ELEM_INT32, 3e9, 2147483647 }, { KS_ELEM_UINT32, 4294967295.0, 4294967295.0 },
    { KS_ELEM_INT64, -1e30, -9223372036854775808.0 },
    { KS_ELEM_UINT64, 1e30, 18446744073709551615.0 },
    { KS_ELEM_UINT64, 4096, 4096 },
    { KS_ELEM_FLOAT32, 0.1, (float) 0.1 },
    { KS_ELEM_FLOAT64, 0.1, 0.1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (KsArray) a = ks_array_new (cases[i].type, 3, NULL);

      ks_array_set_double (a, 1, cases[i].in);
      g_assert_cmpfloat (ks_array_get_double (a, 1), ==, cases[i].out);
      g_assert_cmpfloat (ks_array_get_double (a, 0), ==, 0);
      g_assert_cmpfloat (ks_array_get_double (a, 2), ==, 0);
    }

  {
    /* the bytes, not only the double: -1 in i16 is ff ff */
    g_autoptr (KsArray) a = ks_array_new (KS_ELEM_INT16, 2, NULL);

    ks_array_set_double (a, 1, -1);
    g_assert_cmpuint (a->data[0], ==, 0);
    g_assert_cmpuint (a->data[2], ==, 0xff);
    g_assert_cmpuint (a->data[3], ==, 0xff);
  }
}

static void
test_array_format (void)
{
  g_autoptr (KsArray) i64 = ks_array_new (KS_ELEM_INT64, 1, NULL);
  g_autoptr (KsArray) u64 = ks_array_new (KS_ELEM_UINT64, 1, NULL);
  g_autoptr (KsArray) f32 = ks_array_new (KS_ELEM_FLOAT32, 2, NULL);
  g_autoptr (KsArray) f64 = ks_array_new (KS_ELEM_FLOAT64, 1, NULL);
  g_autoptr (KsArray) u8 = ks_array_new (KS_ELEM_UINT8, 1, NULL);
  gint64 min = G_MININT64;
  guint64 max = G_MAXUINT64;
  char *s;

  memcpy (i64->data, &min, 8);
  memcpy (u64->data, &max, 8);
  ks_array_set_double (f32, 0, 0.1);
  ks_array_set_double (f32, 1, INFINITY);
  ks_array_set_double (f64, 0, 0.1);
  ks_array_set_double (u8, 0, 200);

  s = ks_array_format_element (i64, 0);
  g_assert_cmpstr (s, ==, "-9223372036854775808");
  g_free (s);
  s = ks_array_format_element (u64, 0);
  g_assert_cmpstr (s, ==, "18446744073709551615");
  g_free (s);
  s = ks_array_format_element (f32, 0);
  g_assert_cmpstr (s, ==, "0.100000001");
  g_free (s);
  s = ks_array_format_element (f32, 1);
  g_assert_cmpstr (s, ==, "inf");
  g_free (s);
  s = ks_array_format_element (f64, 0);
  g_assert_cmpstr (s, ==, "0.10000000000000001");
  g_free (s);
  s = ks_array_format_element (u8, 0);
  g_assert_cmpstr (s, ==, "200");
  g_free (s);
}

static void
test_array_equal (void)
{
  g_autoptr (KsArray) a = ks_array_new (KS_ELEM_FLOAT32, 4, NULL);
  g_autoptr (KsArray) b = ks_array_new (KS_ELEM_FLOAT32, 4, NULL);
  g_autoptr (KsArray) c = ks_array_new (KS_ELEM_FLOAT32, 3, NULL);
  g_autoptr (KsArray) i = ks_array_new (KS_ELEM_INT32, 2, NULL);
  g_autoptr (KsArray) j = ks_array_new (KS_ELEM_INT32, 2, NULL);
  g_autoptr (KsArray) k = ks_array_new (KS_ELEM_UINT64, 2, NULL);
  g_autoptr (KsArray) big1 = ks_array_new (KS_ELEM_INT64, 1, NULL);
  g_autoptr (KsArray) big2 = ks_array_new (KS_ELEM_INT64, 1, NULL);
  gint64 x1 = (G_GINT64_CONSTANT (1) << 60) + 1, x2 = G_GINT64_CONSTANT (1) << 60;
  gsize first = 99;

  for (guint n = 0; n < 4; n++)
    {
      ks_array_set_double (a, n, n * 10.0);
      ks_array_set_double (b, n, n * 10.0);
    }
  g_assert_true (ks_array_equal (a, b, 0, 0, &first));
  g_assert_cmpuint (first, ==, 4);

  ks_array_set_double (b, 2, 20.5);
  g_assert_false (ks_array_equal (a, b, 0.1, 0, &first));
  g_assert_cmpuint (first, ==, 2);
  g_assert_true (ks_array_equal (a, b, 0.5, 0, NULL));
  /* the relative part scales with |b|: 0.5 / 20.5 */
  g_assert_true (ks_array_equal (a, b, 0, 0.025, NULL));
  g_assert_false (ks_array_equal (a, b, 0, 0.02, NULL));

  /* NaN agrees with NaN only */
  ks_array_set_double (a, 3, NAN);
  ks_array_set_double (b, 2, 20);
  g_assert_false (ks_array_equal (a, b, 1e30, 0, &first));
  g_assert_cmpuint (first, ==, 3);
  ks_array_set_double (b, 3, NAN);
  g_assert_true (ks_array_equal (a, b, 0, 0, NULL));
  ks_array_set_double (a, 3, INFINITY);
  ks_array_set_double (b, 3, INFINITY);
  g_assert_true (ks_array_equal (a, b, 0, 0, NULL));
  ks_array_set_double (b, 3, -INFINITY);
  g_assert_false (ks_array_equal (a, b, 1e30, 1, NULL));

  /* lengths differ: not equal, first difference at the shorter length */
  for (guint n = 0; n < 3; n++)
    ks_array_set_double (c, n, n * 10.0);
  g_assert_false (ks_array_equal (a, c, 0, 0, &first));
  g_assert_cmpuint (first, ==, 3);

  /* integers exactly, whatever the tolerance */
  ks_array_set_double (i, 1, 5);
  ks_array_set_double (j, 1, 6);
  g_assert_false (ks_array_equal (i, j, 100, 1, &first));
  g_assert_cmpuint (first, ==, 1);
  ks_array_set_double (k, 1, 5);
  g_assert_true (ks_array_equal (i, k, 0, 0, NULL));
  memcpy (big1->data, &x1, 8);
  memcpy (big2->data, &x2, 8);
  g_assert_false (ks_array_equal (big1, big2, 0, 0, NULL));  /* equal as doubles */

  {
    g_autoptr (KsArray) copy = ks_array_copy (a);

    g_assert_true (copy->data != a->data);
    g_assert_true (ks_array_equal (a, copy, 0, 0, NULL));
  }
}

/* ---- .npy --------------------------------------------------------------- */

static void
test_npy_round_trip (void)
{
  for (KsElemType t = 0; t < KS_ELEM_OTHER; t++)
    for (guint shape = 0; shape < 2; shape++)
      {
        g_autoptr (GError) error = NULL;
        g_autofree char *name = g_strdup_printf ("rt-%s-%u.npy", ks_elem_type_short_name (t),
                                                 shape);
        g_autofree char *path = tmp_path (name);
        g_autofree char *contents = NULL;
        g_autoptr (KsArray) a = ks_array_new (t, 12, NULL);
        g_autoptr (KsArray) back = NULL;
        gsize len;
        guint header_len;

        for (guint i = 0; i < 12; i++)
          ks_array_set_double (a, i, ks_elem_type_is_signed (t) ? (double) i * 7 - 40 : i * 9);
        if (ks_elem_type_is_float (t))
          ks_array_set_double (a, 5, 0.1);
        if (shape == 1)
          {
            a->rows = 3;
            a->cols = 4;
          }
        g_assert_true (ks_array_save_npy (a, path, &error));
        g_assert_no_error (error);

        /* as numpy writes it: version 1.0, data at a multiple of 64 */
        g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
        g_assert_cmpmem (contents, 8, "\x93NUMPY\x01\x00", 8);
        header_len = (guint8) contents[8] | (guint8) contents[9] << 8;
        g_assert_cmpuint ((10 + header_len) % 64, ==, 0);
        g_assert_cmpuint (len, ==, 10 + header_len + ks_array_get_bytes (a));
        g_assert_cmpint (contents[10 + header_len - 1], ==, '\n');
        g_assert_nonnull (g_strstr_len (contents + 10, header_len,
                                        shape ? "'shape': (3, 4)" : "'shape': (12,)"));

        back = ks_array_load (path, t, &error);
        g_assert_no_error (error);
        g_assert_cmpint (back->type, ==, t);
        g_assert_cmpuint (back->length, ==, 12);
        g_assert_cmpuint (back->rows, ==, shape ? 3 : 12);
        g_assert_cmpuint (back->cols, ==, shape ? 4 : 0);
        g_assert_cmpmem (back->data, ks_array_get_bytes (back), a->data,
                         ks_array_get_bytes (a));
        g_clear_pointer (&back, ks_array_free);

        /* KS_ELEM_OTHER: the file's own type */
        back = ks_array_load (path, KS_ELEM_OTHER, &error);
        g_assert_no_error (error);
        g_assert_cmpint (back->type, ==, t);
      }
}

/* A header as numpy writes it, padded to 64 bytes with the newline last. */
static GByteArray *
npy_bytes (guint major, const char *dict, const void *data, gsize data_len)
{
  GByteArray *bytes = g_byte_array_new ();
  g_autoptr (GString) header = g_string_new (dict);
  guint prefix = major == 1 ? 10 : 12;
  guint8 magic[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (guint8) major, 0 };

  while ((prefix + header->len + 1) % 64 != 0)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');
  magic[8] = header->len & 0xff;
  magic[9] = (header->len >> 8) & 0xff;
  magic[10] = 0;
  magic[11] = 0;
  g_byte_array_append (bytes, magic, prefix);
  g_byte_array_append (bytes, (const guint8 *) header->str, header->len);
  g_byte_array_append (bytes, data, data_len);
  return bytes;
}

static KsArray *
load_bytes (const char *name, GByteArray *bytes, KsElemType type, GError **error)
{
  g_autofree char *path = write_tmp (name, bytes->data, bytes->len);

  return ks_array_load (path, type, error);
}

static void
test_npy_hand_written (void)
{
  /* little-endian int16 2×3: 1, -2, 3, 256, -32768, 32767 */
  static const guint8 i16[] = { 1, 0, 0xfe, 0xff, 3, 0, 0, 1, 0, 0x80, 0xff, 0x7f };
  static const double i16_values[] = { 1, -2, 3, 256, -32768, 32767 };
  /* float64 1.5, -0.25 (IEEE 754 little-endian) */
  static const guint8 f64[] = { 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0xd0, 0xbf };
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) v1 = npy_bytes (1, "{'descr': '<i2', 'fortran_order': False, "
                                         "'shape': (2, 3), }", i16, sizeof i16);
  /* another key order and spacing, double quotes, version 2 and 3 */
  g_autoptr (GByteArray) v2 = npy_bytes (2, "{\"shape\":(2,),\"fortran_order\":False,"
                                         "\"descr\":\"<f8\"}", f64, sizeof f64);
  g_autoptr (GByteArray) v3 = npy_bytes (3, "{'descr': '|u1', 'fortran_order': True, "
                                         "'shape': (4,), }", "\x01\x02\x03\xff", 4);
  g_autoptr (KsArray) a = load_bytes ("hand-v1.npy", v1, KS_ELEM_INT16, &error);
  g_autoptr (KsArray) b = NULL;
  g_autoptr (KsArray) c = NULL;
  g_autoptr (KsArray) d = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (a->length, ==, 6);
  g_assert_cmpuint (a->rows, ==, 2);
  g_assert_cmpuint (a->cols, ==, 3);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (ks_array_get_double (a, i), ==, i16_values[i]);

  b = load_bytes ("hand-v2.npy", v2, KS_ELEM_FLOAT64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (b->length, ==, 2);
  g_assert_cmpfloat (ks_array_get_double (b, 0), ==, 1.5);
  g_assert_cmpfloat (ks_array_get_double (b, 1), ==, -0.25);

  /* Fortran order of a 1-D array is the same layout */
  c = load_bytes ("hand-v3.NPY", v3, KS_ELEM_UINT8, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ks_array_get_double (c, 3), ==, 255);

  /* converted to the binding's type: int16 as f32 */
  d = load_bytes ("hand-v1b.npy", v1, KS_ELEM_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpint (d->type, ==, KS_ELEM_FLOAT32);
  g_assert_cmpfloat (ks_array_get_double (d, 4), ==, -32768);
  g_assert_cmpuint (d->cols, ==, 3);
}

static void
assert_refused (GByteArray *bytes, const char *name, KsElemType type, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) a = load_bytes (name, bytes, type, &error);

  g_assert_null (a);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, name) == NULL || strstr (error->message, expected) == NULL)
    g_error ("%s: expected a message naming the file and “%s”, got “%s”", name, expected,
             error->message);
}

static void
test_npy_refused (void)
{
  static const guint8 twelve[12] = { 0 };
  g_autoptr (GByteArray) truncated = npy_bytes (1, "{'descr': '<f4', 'fortran_order': False, "
                                                "'shape': (3,), }", twelve, 8);
  g_autoptr (GByteArray) extra = npy_bytes (1, "{'descr': '<f4', 'fortran_order': False, "
                                            "'shape': (2,), }", twelve, 12);
  g_autoptr (GByteArray) fortran = npy_bytes (1, "{'descr': '<i4', 'fortran_order': True, "
                                              "'shape': (1, 3), }", twelve, 12);
  g_autoptr (GByteArray) boolean = npy_bytes (1, "{'descr': '|b1', 'fortran_order': False, "
                                              "'shape': (12,), }", twelve, 12);
  g_autoptr (GByteArray) big = npy_bytes (1, "{'descr': '>f4', 'fortran_order': False, "
                                          "'shape': (3,), }", twelve, 12);
  g_autoptr (GByteArray) complex = npy_bytes (1, "{'descr': '<c8', 'fortran_order': False, "
                                              "'shape': (1,), }", twelve, 8);
  g_autoptr (GByteArray) three_d = npy_bytes (1, "{'descr': '|u1', 'fortran_order': False, "
                                              "'shape': (2, 2, 3), }", twelve, 12);
  g_autoptr (GByteArray) scalar = npy_bytes (1, "{'descr': '<f4', 'fortran_order': False, "
                                             "'shape': (), }", twelve, 4);
  g_autoptr (GByteArray) damaged = npy_bytes (1, "{'descr': '<f4', 'fortran_order': False, "
                                              "'shape': (3,", twelve, 12);
  g_autoptr (GByteArray) no_shape = npy_bytes (1, "{'descr': '<f4', 'fortran_order': False}",
                                               twelve, 12);
  g_autoptr (GByteArray) not_npy = g_byte_array_new ();
  g_autoptr (GByteArray) short_header = g_byte_array_new ();
  g_autoptr (GByteArray) wrong_version = npy_bytes (1, "{'descr': '<f4', "
                                                    "'fortran_order': False, 'shape': (3,), }",
                                                    twelve, 12);
  g_autoptr (GByteArray) too_big = npy_bytes (1, "{'descr': '<f8', 'fortran_order': False, "
                                              "'shape': (100000, 100000), }", twelve, 8);
  g_autoptr (GByteArray) ragged_int = NULL;

  assert_refused (truncated, "truncated.npy", KS_ELEM_FLOAT32, "8 bytes of data");
  assert_refused (extra, "extra.npy", KS_ELEM_FLOAT32, "12 bytes of data");
  assert_refused (fortran, "fortran.npy", KS_ELEM_INT32, "Fortran");
  assert_refused (boolean, "bool.npy", KS_ELEM_UINT8, "booleans");
  assert_refused (big, "big.npy", KS_ELEM_FLOAT32, "big-endian");
  assert_refused (complex, "complex.npy", KS_ELEM_FLOAT32, "<c8");
  assert_refused (three_d, "three.npy", KS_ELEM_UINT8, "3-D");
  assert_refused (scalar, "scalar.npy", KS_ELEM_FLOAT32, "0-D");
  assert_refused (damaged, "damaged.npy", KS_ELEM_FLOAT32, "shape");
  assert_refused (no_shape, "noshape.npy", KS_ELEM_FLOAT32, "lacks shape");

  g_byte_array_append (not_npy, (const guint8 *) "1,2,3\n4,5,6\n", 12);
  assert_refused (not_npy, "text.npy", KS_ELEM_FLOAT32, "signature");
  /* a header length past the end of the file */
  g_byte_array_append (short_header, (const guint8 *) "\x93NUMPY\x01\x00\xff\x00{'de", 15);
  assert_refused (short_header, "short.npy", KS_ELEM_FLOAT32, "255 bytes long");
  wrong_version->data[6] = 4;
  assert_refused (wrong_version, "v4.npy", KS_ELEM_FLOAT32, "version 4.0");

  {
    g_autoptr (GError) error = NULL;
    g_autoptr (KsArray) a = load_bytes ("huge.npy", too_big, KS_ELEM_FLOAT64, &error);

    g_assert_null (a);
    g_assert_error (error, KS_ERROR, KS_ERROR_TOO_LARGE);
    g_assert_nonnull (strstr (error->message, "huge.npy"));
  }

  /* values that do not fit the binding's type: the first one is named */
  {
    static const gint16 values[] = { 1, 255, 300, 400 };

    ragged_int = npy_bytes (1, "{'descr': '<i2', 'fortran_order': False, 'shape': (4,), }",
                            values, sizeof values);
    assert_refused (ragged_int, "wide.npy", KS_ELEM_UINT8, "element 2");
    assert_refused (ragged_int, "wide2.npy", KS_ELEM_UINT8, "300 does not fit in u8 (0 to 255)");
  }
  {
    static const double values[] = { 1, 2.5 };
    g_autoptr (GByteArray) halves = npy_bytes (1, "{'descr': '<f8', 'fortran_order': False, "
                                               "'shape': (2,), }", values, sizeof values);

    assert_refused (halves, "halves.npy", KS_ELEM_INT32, "element 1");
  }
}

/* ---- .csv --------------------------------------------------------------- */

static KsArray *
load_text (const char *name, const char *text, KsElemType type, GError **error)
{
  g_autofree char *path = write_tmp (name, text, strlen (text));

  return ks_array_load (path, type, error);
}

static void
assert_csv_refused (const char *name, const char *text, KsElemType type, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) a = load_text (name, text, type, &error);

  g_assert_null (a);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, name) == NULL || strstr (error->message, expected) == NULL)
    g_error ("%s: expected a message naming the file and “%s”, got “%s”", name, expected,
             error->message);
}

static void
test_csv_load (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) m = load_text ("m.csv", "x, y, z\n1, 2, 3\r\n\n4 5\t6\n", KS_ELEM_INT32,
                                     &error);
  g_autoptr (KsArray) row = NULL;
  g_autoptr (KsArray) column = NULL;
  g_autoptr (KsArray) special = NULL;
  g_autoptr (KsArray) big = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (m->length, ==, 6);
  g_assert_cmpuint (m->rows, ==, 2);
  g_assert_cmpuint (m->cols, ==, 3);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (ks_array_get_double (m, i), ==, i + 1);

  row = load_text ("row.CSV", "0.5,1e3,-2,", KS_ELEM_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (row->length, ==, 3);
  g_assert_cmpuint (row->cols, ==, 0);
  g_assert_cmpfloat (ks_array_get_double (row, 1), ==, 1000);

  column = load_text ("column.csv", "7\n8\n9\n", KS_ELEM_UINT8, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (column->length, ==, 3);
  g_assert_cmpuint (column->cols, ==, 0);
  g_assert_cmpfloat (ks_array_get_double (column, 2), ==, 9);

  /* nan and inf are numbers, not a header; whole floats are fine for integers */
  special = load_text ("special.csv", "nan, inf, -inf, 3.0\n", KS_ELEM_FLOAT64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (special->length, ==, 4);
  g_assert_true (isnan (ks_array_get_double (special, 0)));
  g_assert_cmpfloat (ks_array_get_double (special, 2), ==, -INFINITY);

  /* 64-bit integers are read exactly, not through a double */
  big = load_text ("big.csv", "18446744073709551615, -9223372036854775808\n", KS_ELEM_UINT64,
                   &error);
  g_assert_null (big);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "value 2"));
  g_clear_error (&error);
  big = load_text ("big.csv", "18446744073709551615, 18446744073709551614\n", KS_ELEM_UINT64,
                   &error);
  g_assert_no_error (error);
  g_assert_true (memcmp (big->data, "\xff\xff\xff\xff\xff\xff\xff\xff\xfe", 9) == 0);

  {
    g_autoptr (KsArray) iv = load_text ("iv.csv", "Index, Value\n0, 5\n1, 6\n2, 7\n",
                                        KS_ELEM_INT8, &error);

    /* ks_array_save_csv's vector layout reads back as the vector, not as 3 × 2 */
    g_assert_no_error (error);
    g_assert_cmpuint (iv->length, ==, 3);
    g_assert_cmpuint (iv->cols, ==, 0);
    g_assert_cmpfloat (ks_array_get_double (iv, 0), ==, 5);
    g_assert_cmpfloat (ks_array_get_double (iv, 2), ==, 7);
  }

  assert_csv_refused ("ragged.csv", "a,b\n1,2\n3,4\n5\n", KS_ELEM_FLOAT32, "line 4 has 1 values");
  assert_csv_refused ("word.csv", "1,2\n3,x\n", KS_ELEM_FLOAT32, "line 2, value 2: “x”");
  assert_csv_refused ("range.csv", "1 2 300\n", KS_ELEM_UINT8,
                      "line 1, value 3: 300 does not fit in u8 (0 to 255)");
  assert_csv_refused ("whole.csv", "1.5\n", KS_ELEM_INT32, "not a whole number");
  assert_csv_refused ("f32.csv", "1e39\n", KS_ELEM_FLOAT32, "does not fit in f32");
  assert_csv_refused ("commas.csv", "1,,2\n", KS_ELEM_FLOAT32, "line 1: a value is missing");
  assert_csv_refused ("empty.csv", "\n\n", KS_ELEM_FLOAT32, "holds no numbers");
  assert_csv_refused ("header.csv", "index,value\n", KS_ELEM_FLOAT32, "only a header");
  /* a bad number on the first line is an error, not a header skipped */
  assert_csv_refused ("first.csv", "1.2.3, 4\n", KS_ELEM_FLOAT32, "line 1, value 1");

  {
    g_autoptr (KsArray) none = load_text ("data.txt", "1,2\n", KS_ELEM_FLOAT32, &error);

    g_assert_null (none);
    g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "data.txt"));
    g_assert_nonnull (strstr (error->message, ".npy"));
    g_clear_error (&error);
  }
  {
    g_autofree char *missing = tmp_path ("missing.csv");
    g_autoptr (KsArray) none = ks_array_load (missing, KS_ELEM_FLOAT32, &error);

    g_assert_null (none);
    g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "missing.csv"));
  }
}

static void
test_csv_save (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *vpath = tmp_path ("vector.csv");
  g_autofree char *mpath = tmp_path ("matrix.csv");
  g_autofree char *text = NULL;
  g_autoptr (KsArray) v = ks_array_new (KS_ELEM_FLOAT32, 3, NULL);
  g_autoptr (KsArray) m = ks_array_new (KS_ELEM_INT16, 4, NULL);
  g_autoptr (KsArray) back = NULL;

  ks_array_set_double (v, 0, 0.1);
  ks_array_set_double (v, 1, -2);
  ks_array_set_double (v, 2, 1e20);
  g_assert_true (ks_array_save_csv (v, vpath, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (vpath, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "index,value\n0,0.100000001\n1,-2\n2,1.00000002e+20\n");
  back = ks_array_load (vpath, KS_ELEM_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->cols, ==, 0);
  g_assert_true (ks_array_equal (v, back, 0, 0, NULL));   /* %.9g: floats survive exactly */
  g_clear_pointer (&back, ks_array_free);
  g_clear_pointer (&text, g_free);

  for (guint i = 0; i < 4; i++)
    ks_array_set_double (m, i, (double) i - 2);
  m->rows = 2;
  m->cols = 2;
  g_assert_true (ks_array_save_csv (m, mpath, &error));
  g_assert_true (g_file_get_contents (mpath, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "-2,-1\n0,1\n");
  back = ks_array_load (mpath, KS_ELEM_INT16, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->rows, ==, 2);
  g_assert_cmpuint (back->cols, ==, 2);
  g_assert_true (ks_array_equal (m, back, 0, 0, NULL));

  /* a save that cannot happen leaves an error, not a file */
  {
    g_autofree char *bad = g_build_filename (tmp_dir, "no-such-dir", "x.csv", NULL);

    g_assert_false (ks_array_save_csv (m, bad, &error));
    g_assert_error (error, KS_ERROR, KS_ERROR_FAILED);
    g_assert_nonnull (strstr (error->message, "x.csv"));
  }
}

/* ---- vector, complex and struct types ------------------------------------ */

/* CUDA 13's vector_types.h: sizes and alignments, the odd ones included. */
static void
test_value_types (void)
{
  static const struct
  {
    const char *name;
    KsValueKind kind;
    KsElemType scalar;
    guint lanes;
    gsize size, align;
  } known[] = {
    { "char1", KS_VALUE_VECTOR, KS_ELEM_INT8, 1, 1, 1 },
    { "char3", KS_VALUE_VECTOR, KS_ELEM_INT8, 3, 3, 1 },
    { "uchar4", KS_VALUE_VECTOR, KS_ELEM_UINT8, 4, 4, 4 },
    { "short3", KS_VALUE_VECTOR, KS_ELEM_INT16, 3, 6, 2 },
    { "ushort4", KS_VALUE_VECTOR, KS_ELEM_UINT16, 4, 8, 8 },
    { "int2", KS_VALUE_VECTOR, KS_ELEM_INT32, 2, 8, 8 },
    { "uint3", KS_VALUE_VECTOR, KS_ELEM_UINT32, 3, 12, 4 },
    { "long2", KS_VALUE_VECTOR, KS_ELEM_INT64, 2, 16, 16 },
    { "ulong3", KS_VALUE_VECTOR, KS_ELEM_UINT64, 3, 24, 8 },
    { "longlong4", KS_VALUE_VECTOR, KS_ELEM_INT64, 4, 32, 16 },
    { "float2", KS_VALUE_VECTOR, KS_ELEM_FLOAT32, 2, 8, 8 },
    { "float3", KS_VALUE_VECTOR, KS_ELEM_FLOAT32, 3, 12, 4 },
    { "float4", KS_VALUE_VECTOR, KS_ELEM_FLOAT32, 4, 16, 16 },
    { "double2", KS_VALUE_VECTOR, KS_ELEM_FLOAT64, 2, 16, 16 },
    { "double3", KS_VALUE_VECTOR, KS_ELEM_FLOAT64, 3, 24, 8 },
    { "double4", KS_VALUE_VECTOR, KS_ELEM_FLOAT64, 4, 32, 16 },
    { "double4_16a", KS_VALUE_VECTOR, KS_ELEM_FLOAT64, 4, 32, 16 },
    { "ulonglong4_32a", KS_VALUE_VECTOR, KS_ELEM_UINT64, 4, 32, 32 },
    { "cuFloatComplex", KS_VALUE_COMPLEX, KS_ELEM_FLOAT32, 2, 8, 8 },
    { "cuDoubleComplex", KS_VALUE_COMPLEX, KS_ELEM_FLOAT64, 2, 16, 16 },
    { "c64", KS_VALUE_COMPLEX, KS_ELEM_FLOAT32, 2, 8, 8 },
    { "thrust::complex<double>", KS_VALUE_COMPLEX, KS_ELEM_FLOAT64, 2, 16, 16 },
    { "cuda::std::complex< float >", KS_VALUE_COMPLEX, KS_ELEM_FLOAT32, 2, 8, 8 },
  };
  static const char *const unknown[] = {
    "float5", "float0", "int4_32a", "float3_16a", "complex<int>", "f32", "Particle", "float",
  };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    {
      g_autoptr (KsValueType) t = ks_value_type_lookup (known[i].name);

      g_test_message ("%s", known[i].name);
      g_assert_nonnull (t);
      g_assert_cmpint (t->kind, ==, known[i].kind);
      g_assert_cmpint (t->scalar, ==, known[i].scalar);
      g_assert_cmpuint (t->lanes, ==, known[i].lanes);
      g_assert_cmpuint (t->size, ==, known[i].size);
      g_assert_cmpuint (t->align, ==, known[i].align);
    }
  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    {
      g_autoptr (KsValueType) t = ks_value_type_lookup (unknown[i]);

      if (t != NULL)
        g_error ("“%s” was read as %s", unknown[i], t->name);
    }
}

/* struct Particle { float3 pos; float mass; int id; short m[3]; double d; }:
 * 12 + 4 + 4 + 6, padded to 32 for the double, 40 in all. */
static KsValueType *
particle_type (void)
{
  KsValueType *t = ks_value_type_new_struct ("Particle");
  g_autoptr (KsValueType) f3 = ks_value_type_lookup ("float3");
  g_autoptr (KsValueType) f = ks_value_type_new_scalar (KS_ELEM_FLOAT32);
  g_autoptr (KsValueType) i = ks_value_type_new_scalar (KS_ELEM_INT32);
  g_autoptr (KsValueType) sh = ks_value_type_new_scalar (KS_ELEM_INT16);
  g_autoptr (KsValueType) d = ks_value_type_new_scalar (KS_ELEM_FLOAT64);

  ks_value_type_add_field (t, "pos", f3, 1, 0);
  ks_value_type_add_field (t, "mass", f, 1, 0);
  ks_value_type_add_field (t, "id", i, 1, 0);
  ks_value_type_add_field (t, "m", sh, 3, 0);
  ks_value_type_add_field (t, "d", d, 1, 0);
  ks_value_type_end_struct (t, 0);
  return t;
}

static void
test_value_text (void)
{
  g_autoptr (KsValueType) f3 = ks_value_type_lookup ("float3");
  g_autoptr (KsValueType) c = ks_value_type_lookup ("c64");
  g_autoptr (KsValueType) u4 = ks_value_type_lookup ("uchar4");
  g_autoptr (KsValueType) p = particle_type ();
  guint8 bytes[64];
  float v[3];
  static const struct
  {
    const char *text;
    const char *why;
  } bad[] = {
    { "(1, 2)", "float3 has 3 components, and the value gives 2" },
    { "2", "float3 is a vector of 3 components; write them as (X, Y, Z)" },
    { "(1, 2, x)", "“x” is not a number" },
    { "(1, 2, 3", "the value has no closing )" },
    { "int3(1, 2, 3)", "the value is written as int3 but the argument is float3" },
    { "(1, 2, 3) 4", "“4” follows the value" },
  };
  char *why, *warning = NULL;

  g_assert_cmpuint (p->size, ==, 40);
  g_assert_cmpuint (p->align, ==, 8);
  g_assert_cmpuint (p->fields[3].offset, ==, 20);
  g_assert_cmpuint (p->fields[4].offset, ==, 32);

  g_assert_null (ks_value_type_parse (f3, "(1.5, 2, -3)", bytes, NULL));
  memcpy (v, bytes, sizeof v);
  g_assert_cmpfloat (v[0], ==, 1.5);
  g_assert_cmpfloat (v[2], ==, -3);
  g_assert_null (ks_value_type_parse (f3, "float3(1,2,3)", bytes, NULL));
  g_assert_null (ks_value_type_parse (f3, "{x=1, z=2}", bytes, &warning));
  g_assert_cmpstr (warning, ==, "y is not given and is zero");
  g_clear_pointer (&warning, g_free);
  {
    g_autofree char *text = ks_value_type_format (f3, bytes);
    g_assert_cmpstr (text, ==, "(1, 0, 2)");
  }

  g_assert_null (ks_value_type_parse (c, "1.5-2j", bytes, NULL));
  memcpy (v, bytes, 8);
  g_assert_cmpfloat (v[0], ==, 1.5);
  g_assert_cmpfloat (v[1], ==, -2);
  {
    g_autofree char *text = ks_value_type_format (c, bytes);
    g_assert_cmpstr (text, ==, "1.5-2j");
  }
  g_assert_null (ks_value_type_parse (c, "-2.5e-1j", bytes, NULL));
  memcpy (v, bytes, 8);
  g_assert_cmpfloat (v[0], ==, 0);
  g_assert_cmpfloat (v[1], ==, -0.25);
  g_assert_null (ks_value_type_parse (c, "(3, 4)", bytes, NULL));
  {
    g_autofree char *text = ks_value_type_format (c, bytes);
    g_assert_cmpstr (text, ==, "3+4j");
  }

  g_assert_null (ks_value_type_parse (p, "Particle{pos=(1, 2, 3), mass=2, m=(1, -2, 3), id=7}",
                                      bytes, &warning));
  g_assert_cmpstr (warning, ==, "d is not given and is zero");
  g_clear_pointer (&warning, g_free);
  {
    g_autofree char *text = ks_value_type_format (p, bytes);
    g_assert_cmpstr (text, ==, "{pos=(1, 2, 3), mass=2, id=7, m=(1, -2, 3), d=0}");
  }

  /* what is wrong, named */
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      why = ks_value_type_parse (f3, bad[i].text, bytes, NULL);
      g_assert_cmpstr (why, ==, bad[i].why);
      g_free (why);
    }
  why = ks_value_type_parse (u4, "(1, 2, 3, 300)", bytes, NULL);
  g_assert_cmpstr (why, ==, "300 does not fit in unsigned char (0 to 255)");
  g_free (why);
  why = ks_value_type_parse (p, "{pos=(1, 2, 3), weight=2}", bytes, NULL);
  g_assert_cmpstr (why, ==, "Particle has no field “weight” (its fields: pos, mass, id, m, d)");
  g_free (why);
  why = ks_value_type_parse (p, "{pos=(1, 2), mass=2}", bytes, NULL);
  g_assert_cmpstr (why, ==, "pos: float3 has 3 components, and the value gives 2");
  g_free (why);
  why = ks_value_type_parse (p, "{m=(1, 2)}", bytes, NULL);
  g_assert_cmpstr (why, ==, "m: the field holds 3 values of i16: write them as (V1, V2, …)");
  g_free (why);
  why = ks_value_type_parse (p, "{pos=(1, 2, 3), pos=(1, 2, 3)}", bytes, NULL);
  g_assert_cmpstr (why, ==, "the field “pos” is given twice");
  g_free (why);
  why = ks_value_type_parse (p, "(1, 2)", bytes, NULL);
  g_assert_cmpstr (why, ==, "Particle is a struct: write it {pos=…, …}");
  g_free (why);
}

/* A .npy of version 1.0 with this header dict and data, written here byte
 * by byte as numpy would. */
static char *
write_npy (const char *name, const char *dict, const void *data, gsize len)
{
  g_autoptr (GString) s = g_string_new_len ("\x93NUMPY\x01\x00\x00\x00", 10);

  g_string_append (s, dict);
  while ((s->len + 1) % 64 != 0)
    g_string_append_c (s, ' ');
  g_string_append_c (s, '\n');
  s->str[8] = (char) ((s->len - 10) & 0xff);
  s->str[9] = (char) ((s->len - 10) >> 8);
  g_string_append_len (s, data, (gssize) len);
  return write_tmp (name, s->str, s->len);
}

static void
test_npy_typed_round_trip (void)
{
  g_autoptr (KsValueType) f3 = ks_value_type_lookup ("float3");
  g_autoptr (KsValueType) c128 = ks_value_type_lookup ("c128");
  g_autoptr (KsValueType) p = particle_type ();
  KsValueType *types[] = { f3, c128, p };
  const char *const descrs[] = { "'descr': '<f4'", "'descr': '<c16'",
                                 "'descr': [('pos', '<f4', (3,)), ('mass', '<f4'), ('id', "
                                 "'<i4'), ('m', '<i2', (3,)), ('', '|V6'), ('d', '<f8')]" };

  for (guint k = 0; k < G_N_ELEMENTS (types); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *name = g_strdup_printf ("typed-%s.npy", types[k]->name);
      g_autofree char *path = tmp_path (name);
      g_autofree char *contents = NULL;
      g_autoptr (KsArray) a = ks_array_new_of (types[k], 5, &error);
      g_autoptr (KsArray) back = NULL;

      g_assert_no_error (error);
      g_assert_cmpuint (ks_array_get_count (a), ==, 5);
      for (gsize i = 0; i < ks_array_get_bytes (a); i++)
        a->data[i] = (guint8) (i * 7 + 3);
      if (types[k] == p)
        for (guint i = 0; i < 5; i++)
          memset (a->data + i * 40 + 26, 0, 6);   /* padding: numpy writes none */
      g_assert_true (ks_array_save_npy (a, path, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      g_assert_nonnull (strstr (contents + 10, descrs[k]));   /* past the header length */
      back = ks_array_load_of (path, types[k], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ks_array_get_count (back), ==, 5);
      g_assert_cmpmem (back->data, ks_array_get_bytes (back), a->data, ks_array_get_bytes (a));
      {
        g_autofree char *x = ks_array_format_item (a, 3);
        g_autofree char *y = ks_array_format_item (back, 3);
        g_assert_cmpstr (x, ==, y);
      }
    }
}

/* Files as numpy writes them: a float3 array as fields x, y, z; a struct
 * array packed (no padding, fields in another order) and with a subarray of
 * complex numbers; and the mismatches refused by name. */
static void
test_npy_typed_hand_written (void)
{
  g_autoptr (KsValueType) f3 = ks_value_type_lookup ("float3");
  g_autoptr (KsValueType) d2 = ks_value_type_lookup ("double2");
  g_autoptr (KsValueType) p = particle_type ();
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) a = NULL;
  const float xyz[6] = { 1, 2, 3, 4, 5, 6 };
  /* packed: d (f8), id (i8), pos (f4×3), m (u1×3), mass (f4) = 8+8+12+3+4 = 35 bytes */
  guint8 packed[2 * 35] = { 0 };
  g_autofree char *fields_path = write_npy ("xyz.npy", "{'descr': [('x', '<f4'), ('y', '<f4'), "
                                            "('z', '<f4')], 'fortran_order': False, "
                                            "'shape': (2,), }", xyz, sizeof xyz);
  g_autofree char *rows_path = write_npy ("rows.npy", "{'descr': '<f4', 'fortran_order': False, "
                                          "'shape': (2, 3), }", xyz, sizeof xyz);
  g_autofree char *packed_path = NULL;
  g_autofree char *c8_path = write_npy ("c8.npy", "{'descr': '<c8', 'fortran_order': False, "
                                        "'shape': (3,), }", xyz, sizeof xyz);

  a = ks_array_load_of (fields_path, f3, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ks_array_get_count (a), ==, 2);
  g_assert_cmpmem (a->data, 24, xyz, 24);
  g_clear_pointer (&a, ks_array_free);
  a = ks_array_load_of (rows_path, f3, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (a->data, 24, xyz, 24);
  g_clear_pointer (&a, ks_array_free);
  /* complex numbers into double2: converted, and equal */
  a = ks_array_load_of (c8_path, d2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ks_array_get_count (a), ==, 3);
  g_assert_cmpfloat (ks_array_get_double (a, 5), ==, 6);
  g_clear_pointer (&a, ks_array_free);

  for (guint i = 0; i < 2; i++)
    {
      guint8 *r = packed + 35 * i;
      double d = 0.5 + i;
      gint64 id = 100 + i;
      float pos[3] = { 1.0f + i, 2, 3 }, mass = 9;

      memcpy (r, &d, 8);
      memcpy (r + 8, &id, 8);
      memcpy (r + 16, pos, 12);
      r[28] = 7;
      r[29] = 8;
      r[30] = (guint8) (9 + i);
      memcpy (r + 31, &mass, 4);
    }
  packed_path = write_npy ("packed.npy", "{'descr': [('d', '<f8'), ('id', '<i8'), "
                           "('pos', [('x', '<f4'), ('y', '<f4'), ('z', '<f4')]), "
                           "('m', '|u1', (3,)), ('mass', '<f4')], 'fortran_order': False, "
                           "'shape': (2,), }", packed, sizeof packed);
  a = ks_array_load_of (packed_path, p, &error);
  g_assert_no_error (error);
  {
    g_autofree char *second = ks_array_format_item (a, 1);
    g_assert_cmpstr (second, ==, "{pos=(2, 2, 3), mass=9, id=101, m=(7, 8, 10), d=1.5}");
  }
  g_clear_pointer (&a, ks_array_free);

  /* the file's fields are not the struct's */
  {
    g_autofree char *path = write_npy ("short.npy", "{'descr': [('pos', '<f4', (3,)), "
                                       "('mass', '<f4')], 'fortran_order': False, 'shape': (1,), "
                                       "}", xyz, 16);
    a = ks_array_load_of (path, p, &error);
    g_assert_null (a);
    g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "its items hold pos[0], pos[1], pos[2], mass, but "
                              "Particle holds pos.x, pos.y, pos.z, mass, id, m[0], m[1], m[2], "
                              "d: save a structured array with the struct's field names"));
    g_clear_error (&error);
  }
  /* a plain vector where float3 needs rows of 3 */
  {
    g_autofree char *path = write_npy ("flat.npy", "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (6,), }", xyz, sizeof xyz);
    a = ks_array_load_of (path, f3, &error);
    g_assert_null (a);
    g_assert_nonnull (strstr (error->message, "its items hold one plain number, but float3 "
                              "holds x, y, z"));
    g_clear_error (&error);
  }
  /* a value that does not fit, by item and field */
  {
    float big[3] = { 1, 2, 300 };
    g_autoptr (KsValueType) i3 = ks_value_type_lookup ("char3");   /* 300 does not fit */
    g_autofree char *path = write_npy ("big.npy", "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (1, 3), }", big, sizeof big);
    a = ks_array_load_of (path, i3, &error);
    g_assert_null (a);
    g_assert_nonnull (strstr (error->message, "item 0, z does not convert"));
    g_clear_error (&error);
  }
  /* and a plain array from a structured or complex file says what to bind */
  a = ks_array_load (fields_path, KS_ELEM_FLOAT32, &error);
  g_assert_null (a);
  g_assert_nonnull (strstr (error->message, "it holds a structured array"));
  g_clear_error (&error);
  a = ks_array_load (c8_path, KS_ELEM_FLOAT32, &error);
  g_assert_null (a);
  g_assert_nonnull (strstr (error->message, "bind it as c64[N]"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-test-array-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/array/elem-type/parse", test_elem_parse);
  g_test_add_func ("/ks/array/elem-type/names", test_elem_names);
  g_test_add_func ("/ks/array/limits", test_array_limits);
  g_test_add_func ("/ks/array/get-set", test_array_get_set);
  g_test_add_func ("/ks/array/format", test_array_format);
  g_test_add_func ("/ks/array/equal", test_array_equal);
  g_test_add_func ("/ks/array/npy/round-trip", test_npy_round_trip);
  g_test_add_func ("/ks/array/npy/hand-written", test_npy_hand_written);
  g_test_add_func ("/ks/array/npy/refused", test_npy_refused);
  g_test_add_func ("/ks/array/csv/load", test_csv_load);
  g_test_add_func ("/ks/array/csv/save", test_csv_save);
  g_test_add_func ("/ks/array/value-type/table", test_value_types);
  g_test_add_func ("/ks/array/value-type/text", test_value_text);
  g_test_add_func ("/ks/array/npy/typed-round-trip", test_npy_typed_round_trip);
  g_test_add_func ("/ks/array/npy/typed-hand-written", test_npy_typed_hand_written);

  status = g_test_run ();

  /* the files the tests wrote, then the folder */
  ks_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
