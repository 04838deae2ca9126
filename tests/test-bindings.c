/* test-bindings.c: the bindings of a kernel's arguments: what a user writes
 * on the command line or in the bindings editor, and what the kernel then
 * gets: the data an initialiser generates (zeros, ranges, constants, random
 * and normal values, a file), a binding's text parsed and written back, a
 * set of bindings checked against a kernel's signature, the defaults for a
 * signature, and scalars packed as the kernel reads them. Arrays and their
 * files themselves are in test-array.c. */
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

static KsBinding *
parse_ok (const char *text)
{
  g_autoptr (GError) error = NULL;
  KsBinding *b = ks_binding_parse (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (b);
  return b;
}

static KsArray *
create_ok (const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBinding) b = parse_ok (text);
  KsArray *a = ks_binding_create_array (b, &error);

  g_assert_no_error (error);
  g_assert_nonnull (a);
  return a;
}

/* ---- generated data ----------------------------------------------------- */

static void
test_init_zeros_range_const (void)
{
  g_autoptr (KsArray) z = create_ok ("z=f64[6]:zeros");
  g_autoptr (KsArray) z2 = create_ok ("z=i32[3]");
  g_autoptr (KsArray) r = create_ok ("r=i32[5]:range");
  g_autoptr (KsArray) r2 = create_ok ("r = f32[4] : range(5, 0.5)");
  g_autoptr (KsArray) r3 = create_ok ("r=i16[4]:range(10, -3)");
  g_autoptr (KsArray) c = create_ok ("c=u8[3]:const(7)");
  g_autoptr (KsArray) cf = create_ok ("c=f32[2]:const(-1.25)");

  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (ks_array_get_double (z, i), ==, 0);
  g_assert_cmpuint (z2->length, ==, 3);
  g_assert_cmpfloat (ks_array_get_double (z2, 2), ==, 0);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpfloat (ks_array_get_double (r, i), ==, i);
  g_assert_cmpfloat (ks_array_get_double (r2, 0), ==, 5);
  g_assert_cmpfloat (ks_array_get_double (r2, 1), ==, 5.5);
  g_assert_cmpfloat (ks_array_get_double (r2, 3), ==, 6.5);
  g_assert_cmpfloat (ks_array_get_double (r3, 3), ==, 1);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpfloat (ks_array_get_double (c, i), ==, 7);
  g_assert_cmpfloat (ks_array_get_double (cf, 1), ==, -1.25);
}

static void
test_init_random (void)
{
  g_autoptr (KsArray) a = create_ok ("a=f32[10000]:random(7)");
  g_autoptr (KsArray) b = create_ok ("b=f32[10000]:random(7)");
  g_autoptr (KsArray) c = create_ok ("c=f32[10000]:random(8)");
  g_autoptr (KsArray) d = create_ok ("d=f64[3]:random(0)");
  g_autoptr (KsArray) u = create_ok ("u=u8[10000]:random(3)");
  g_autoptr (KsArray) s = create_ok ("s=i64[10000]:random(3)");
  double sum = 0;
  guint seen[100] = { 0 };

  /* reproducible, and another seed gives other data */
  g_assert_cmpmem (a->data, ks_array_get_bytes (a), b->data, ks_array_get_bytes (b));
  g_assert_false (memcmp (a->data, c->data, ks_array_get_bytes (a)) == 0);

  /* SplitMix64 from state 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4
   * (the published reference sequence): f64 takes the top 53 bits. Pinning
   * them keeps every machine's data the same. */
  g_assert_cmpfloat (ks_array_get_double (d, 0), ==,
                     (double) (G_GUINT64_CONSTANT (0xe220a8397b1dcdaf) >> 11) * 0x1.0p-53);
  g_assert_cmpfloat (ks_array_get_double (d, 1), ==,
                     (double) (G_GUINT64_CONSTANT (0x6e789e6aa1b965f4) >> 11) * 0x1.0p-53);

  for (guint i = 0; i < a->length; i++)
    {
      double v = ks_array_get_double (a, i);

      g_assert_cmpfloat (v, >=, 0);
      g_assert_cmpfloat (v, <, 1);
      sum += v;
    }
  /* mean of 10⁴ uniforms: sd 0.289/100; 0.015 is over 5 standard errors */
  g_assert_cmpfloat (fabs (sum / a->length - 0.5), <, 0.015);

  for (guint i = 0; i < u->length; i++)
    {
      double v = ks_array_get_double (u, i);
      double w = ks_array_get_double (s, i);

      g_assert_cmpfloat (v, >=, 0);
      g_assert_cmpfloat (v, <, 100);
      g_assert_cmpfloat (w, >=, 0);
      g_assert_cmpfloat (w, <, 100);
      g_assert_cmpfloat (v, ==, w);   /* the same draws, whatever the integer type */
      seen[(guint) v]++;
    }
  /* every value of [0, 100) appears: 100 expected each */
  for (guint v = 0; v < 100; v++)
    g_assert_cmpuint (seen[v], >, 50);
}

/* random(SEED, LOW, HIGH): numpy's randint(LOW, HIGH) for integers (HIGH
 * never drawn) and rand() * (HIGH - LOW) + LOW for floats. */
static void
test_init_random_range (void)
{
  g_autoptr (KsArray) k = create_ok ("k=i32[10000]:random(5, 1, 5)");
  g_autoptr (KsArray) neg = create_ok ("n=i8[10000]:random(5, -128, 128)");
  g_autoptr (KsArray) wide = create_ok ("w=u64[1000]:random(2, 0, 9007199254740992)");
  g_autoptr (KsArray) f = create_ok ("f=f32[10000]:random(5, 0, 255)");
  g_autoptr (KsArray) f_unit = create_ok ("f=f32[10000]:random(5, 0, 1)");
  g_autoptr (KsArray) f_same = create_ok ("f=f32[10000]:random(5)");
  g_autoptr (KsArray) i_same = create_ok ("i=u16[10000]:random(5)");
  g_autoptr (KsArray) i_hundred = create_ok ("i=u16[10000]:random(5, 0, 100)");
  g_autoptr (KsArray) d = create_ok ("d=f64[10000]:random(9, -2, -1)");
  guint seen[4] = { 0 }, seen_neg[256] = { 0 };
  double max_wide = 0, min_f = 255, max_f = 0;

  for (gsize i = 0; i < k->length; i++)
    {
      double v = ks_array_get_double (k, i);
      double w = ks_array_get_double (neg, i);

      g_assert_cmpfloat (v, >=, 1);
      g_assert_cmpfloat (v, <=, 4);
      g_assert_cmpfloat (v, ==, floor (v));
      seen[(guint) v - 1]++;
      seen_neg[(guint) (w + 128)]++;
    }
  /* each of 1 … 4 about 2500 times, each of -128 … 127 about 39 */
  for (guint v = 0; v < 4; v++)
    g_assert_cmpuint (seen[v], >, 2200);
  for (guint v = 0; v < 256; v++)
    g_assert_cmpuint (seen_neg[v], >, 10);

  for (gsize i = 0; i < wide->length; i++)
    max_wide = MAX (max_wide, ks_array_get_double (wide, i));
  /* a span past 32 bits reaches the top of its range: the largest of 1000
   * draws is within 1 % of 2^53 with probability 1 - 0.99^1000 */
  g_assert_cmpfloat (max_wide, >, 0.99 * 9007199254740992.0);
  g_assert_cmpfloat (max_wide, <, 9007199254740992.0);

  for (gsize i = 0; i < f->length; i++)
    {
      double v = ks_array_get_double (f, i);

      g_assert_cmpfloat (v, >=, 0);
      g_assert_cmpfloat (v, <, 255);
      min_f = MIN (min_f, v);
      max_f = MAX (max_f, v);
      /* the same draws scaled: within a float's rounding of 255·u */
      g_assert_cmpfloat (fabs (v - 255 * ks_array_get_double (f_unit, i)), <=, 255 * 0x1.0p-24);
    }
  g_assert_cmpfloat (min_f, <, 1);
  g_assert_cmpfloat (max_f, >, 254);
  for (gsize i = 0; i < d->length; i++)
    {
      double v = ks_array_get_double (d, i);

      g_assert_cmpfloat (v, >=, -2);
      g_assert_cmpfloat (v, <, -1);
    }

  /* the type's own range written out draws what random(SEED) alone does */
  g_assert_cmpmem (f_unit->data, ks_array_get_bytes (f_unit), f_same->data,
                   ks_array_get_bytes (f_same));
  g_assert_cmpmem (i_hundred->data, ks_array_get_bytes (i_hundred), i_same->data,
                   ks_array_get_bytes (i_same));
}

static void
test_init_normal (void)
{
  g_autoptr (KsArray) a = create_ok ("a=f64[100000]:normal(11, 2, 0.5)");
  g_autoptr (KsArray) b = create_ok ("b=f64[100000]:normal(11, 2, 0.5)");
  g_autoptr (KsArray) std = create_ok ("s=f32[100001]:normal(4)");
  g_autoptr (KsArray) ints = create_ok ("i=i32[1000]:normal(5, 100, 10)");
  double sum = 0, sum2 = 0, mean, sd, within = 0;
  gsize n = a->length;

  g_assert_cmpmem (a->data, ks_array_get_bytes (a), b->data, ks_array_get_bytes (b));
  for (gsize i = 0; i < n; i++)
    {
      double v = ks_array_get_double (a, i);

      sum += v;
      sum2 += v * v;
      if (fabs (v - 2) < 0.5)
        within++;
    }
  mean = sum / n;
  sd = sqrt (sum2 / n - mean * mean);
  /* n = 10⁵: the mean's standard error is 0.5/√n = 0.0016, the sd's about
   * 0.5/√(2n) = 0.0011, the share within one sd's sqrt(0.68·0.32/n) =
   * 0.0015. The tolerances are five of those: a wrong mean, a wrong sd or a
   * non-normal shape (uniform: 0.58 within one sd) fails; the seed is fixed,
   * so the test is not flaky either way. */
  g_assert_cmpfloat (fabs (mean - 2), <, 0.008);
  g_assert_cmpfloat (fabs (sd - 0.5), <, 0.0056);
  g_assert_cmpfloat (fabs (within / n - 0.6827), <, 0.0075);

  sum = 0;
  for (gsize i = 0; i < std->length; i++)
    {
      g_assert_true (isfinite (ks_array_get_double (std, i)));
      sum += ks_array_get_double (std, i);
    }
  g_assert_cmpfloat (fabs (sum / std->length), <, 0.016);

  for (gsize i = 0; i < ints->length; i++)
    {
      double v = ks_array_get_double (ints, i);

      g_assert_cmpfloat (v, ==, round (v));
      g_assert_cmpfloat (v, >, 40);
      g_assert_cmpfloat (v, <, 160);
    }
}

static void
test_init_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = write_tmp ("init.csv", "1,2,3\n", 6);
  g_autofree char *text = g_strdup_printf ("x=u16[3]:file(%s):in", path);
  g_autofree char *wrong = g_strdup_printf ("x=u16[4]:file(%s)", path);
  g_autoptr (KsArray) a = create_ok (text);
  g_autoptr (KsBinding) b = parse_ok (wrong);
  g_autoptr (KsArray) none = NULL;

  g_assert_cmpint (a->type, ==, KS_ELEM_UINT16);
  g_assert_cmpfloat (ks_array_get_double (a, 2), ==, 3);
  none = ks_binding_create_array (b, &error);
  g_assert_null (none);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "holds 3 values"));
  g_assert_nonnull (strstr (error->message, "init.csv"));
}

/* ---- bindings ----------------------------------------------------------- */

static void
test_binding_parse (void)
{
  static const struct
  {
    const char *text;
    const char *canonical;
  } good[] = {
    { "a=f32[1000000]:random(7):in", NULL },
    { "a = f32[1000000]:random(7)", "a=f32[1000000]:random(7)" },
    { "b=u8[16]:zeros", NULL },
    { "b=u8[16]", "b=u8[16]:zeros" },
    { "r=i32[10]:range", NULL },
    { "r=i32[10]:range(0, 1)", "r=i32[10]:range" },
    { "r=f32[10]:range(5, 0.5):out", NULL },
    { "r=f64[10]:range(0.1, 0.2)", NULL },
    { "c=f64[3]:const(2.5):inout", NULL },
    { "c=float[3]:const(2)", "c=f32[3]:const(2)" },
    { "g=f32[8]:normal(3)", NULL },
    { "k=i32[8]:random(3, 1, 5)", NULL },
    { "k=i32[8]:random(3, 0, 100)", "k=i32[8]:random(3)" },
    { "h=f32[8]:random(3, 0, 255)", NULL },
    { "h=f64[8]:random(3, 0, 1)", "h=f64[8]:random(3)" },
    { "g=f32[8]:normal(3, 0, 1)", "g=f32[8]:normal(3)" },
    { "g=f32[8]:normal(3, 10, 2.5)", NULL },
    { "f=f32[4]:file(/tmp/with:colon(1).npy):in", NULL },
    { "f=f32[4]:file( data.csv )", "f=f32[4]:file(data.csv)" },
    { "n=1000000", NULL },
    { " scale = -2.5 ", "scale=-2.5" },
    { "_x1=1e-3", NULL },
  };
  static const struct
  {
    const char *text;
    const char *message;
  } bad[] = {
    { "a=f32[abc]:zeros", "a=f32[abc]:zeros: the length must be a positive integer, not “abc”" },
    { "a=f32[0]:zeros", "a=f32[0]:zeros: the length must be a positive integer, not “0”" },
    { "a=f32[-3]", "a=f32[-3]: the length must be a positive integer, not “-3”" },
    { "a=f33[10]:zeros", "a=f33[10]:zeros: “f33” is not an element type "
                         "(i8 u8 i16 u16 i32 u32 i64 u64 f32 f64, a vector type such as "
                         "float3, c64, c128, or a struct of the kernel)" },
    { "a=f32[10:zeros", "a=f32[10:zeros: the length has no closing ]" },
    { "a=f32[10]zeros", "a=f32[10]zeros: expected “:” and how to fill the array after “]”, "
                        "not “zeros”" },
    { "a=f32[10]:ones", "a=f32[10]:ones: “ones” is not a way to fill an array (zeros, range, "
                        "range(START, STEP), const(V), random(SEED[, LOW, HIGH]), normal(SEED, MEAN, SD) or "
                        "file(PATH))" },
    { "a=f32[10]:random", "a=f32[10]:random: “random” is not a way to fill an array" },
    { "a=f32[10]:random(x)", "a=f32[10]:random(x): random() takes numbers, and “x” is not one" },
    { "a=f32[10]:random(-1)", "the seed must be a whole number from 0 to 2^53, not -1" },
    { "a=f32[10]:random(1.5)", "the seed must be a whole number" },
    { "a=f32[10]:random(1, 2)", "a=f32[10]:random(1, 2): random() takes a seed alone or a "
                                "seed, LOW and HIGH: random(SEED, LOW, HIGH)" },
    { "a=f32[10]:random(1, 2, 3, 4)", "random() was given 4 numbers; write it "
                                      "random(SEED[, LOW, HIGH])" },
    { "a=f32[10]:random(1, 5, 5)", "LOW must be below HIGH, not 5 and 5" },
    { "a=i32[10]:random(1, 0.5, 3)", "LOW and HIGH must be whole, not 0.5 and 3" },
    { "a=u8[10]:random(1, 0, 257)", "a=u8[10]:random(1, 0, 257): random(SEED, LOW, HIGH) would "
                                    "draw 256 does not fit in u8 (0 to 255)" },
    { "a=u8[10]:random(1, -1, 5)", "would draw -1 does not fit in u8" },
    { "a=f32[10]:normal(1, 0, -1)", "the standard deviation a finite number of at least 0" },
    { "a=f32[10]:const()", "const() was given 0 numbers; write it const(V)" },
    { "a=f32[10]:zeros:sideways", "a=f32[10]:zeros:sideways: “sideways” is not a direction "
                                  "(in, out or inout)" },
    { "a=f32[10]:file()", "file() needs the path" },
    { "a=u8[4]:const(300)", "a=u8[4]:const(300): 300 does not fit in u8 (0 to 255)" },
    { "a=u8[300]:range", "a=u8[300]:range: element 299 of the range is 299 does not fit in u8" },
    { "a=i8[4]:range(-5, -50)", "element 3 of the range is -155 does not fit in i8" },
    { "a=i32[4]:const(0.5)", "0.5 is not a whole number" },
    { "a=f32[1000000000]", "a=f32[1000000000]: An array of 1000000000 f32 elements" },
    { "a", "a: a binding is NAME=TYPE[LENGTH]:INIT or NAME=VALUE" },
    { "1a=3", "1a=3: “1a” is not an argument name" },
    { "a b=3", "“a b” is not an argument name" },
    { "n=", "n=: nothing follows the =" },
    { "n=abc", "n=abc: the value must be a number, not “abc”" },
    { "n=f32", "n=f32: an array needs a length: n=f32[LENGTH]:zeros" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (KsBinding) b = parse_ok (good[i].text);
      g_autoptr (KsBinding) copy = ks_binding_copy (b);
      g_autofree char *s = ks_binding_to_string (copy);
      g_autoptr (KsBinding) again = parse_ok (s);
      g_autofree char *s2 = ks_binding_to_string (again);

      g_assert_cmpstr (s, ==, good[i].canonical != NULL ? good[i].canonical : good[i].text);
      g_assert_cmpstr (s2, ==, s);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsBinding) b = ks_binding_parse (bad[i].text, &error);

      if (b != NULL)
        g_error ("“%s” was accepted", bad[i].text);
      g_assert_true (error->domain == KS_ERROR);
      if (strstr (error->message, bad[i].message) == NULL)
        g_error ("“%s”: expected “%s”, got “%s”", bad[i].text, bad[i].message, error->message);
    }

  {
    g_autoptr (KsBinding) a = parse_ok ("a=f32[1000000]:random(7):in");
    g_autoptr (KsBinding) n = parse_ok ("n=1000000");
    g_autoptr (KsBinding) f = parse_ok ("f=i16[4]:file(x:y.npy):out");
    g_autoptr (KsBinding) d = parse_ok ("d=f32[4]:normal(9, -1, 3)");
    KsKernelArg const_arg = { "a", "const float *", KS_ELEM_FLOAT32, TRUE, TRUE, 1, 1 };
    KsKernelArg plain_arg = { "a", "float *", KS_ELEM_FLOAT32, TRUE, FALSE, 1, 1 };

    g_assert_cmpstr (a->name, ==, "a");
    g_assert_true (a->is_array);
    g_assert_cmpint (a->type, ==, KS_ELEM_FLOAT32);
    g_assert_cmpuint (a->length, ==, 1000000);
    g_assert_cmpint (a->init, ==, KS_ARRAY_INIT_UNIFORM);
    g_assert_cmpfloat (a->init_a, ==, 7);
    g_assert_true (a->direction_given);
    g_assert_cmpint (a->direction, ==, KS_ARRAY_IN);
    g_assert_false (n->is_array);
    g_assert_cmpstr (n->value, ==, "1000000");
    g_assert_cmpstr (f->path, ==, "x:y.npy");
    g_assert_cmpint (f->direction, ==, KS_ARRAY_OUT);
    g_assert_cmpint (d->init, ==, KS_ARRAY_INIT_NORMAL);
    g_assert_cmpfloat (d->init_b, ==, -1);
    g_assert_cmpfloat (d->init_c, ==, 3);

    /* the direction by default follows the pointer's constness */
    g_assert_cmpint (ks_binding_resolve_direction (d, &const_arg), ==, KS_ARRAY_IN);
    g_assert_cmpint (ks_binding_resolve_direction (d, &plain_arg), ==, KS_ARRAY_INOUT);
    g_assert_cmpint (ks_binding_resolve_direction (f, &const_arg), ==, KS_ARRAY_OUT);
  }
}

/* ---- bindings against a signature --------------------------------------- */

static void
arg_free (gpointer data)
{
  KsKernelArg *arg = data;

  g_free (arg->name);
  g_free (arg->type_text);
  g_free (arg);
}

static void
add_arg (GPtrArray *args, const char *type_text, const char *name, guint line, guint column)
{
  KsKernelArg *arg = g_new0 (KsKernelArg, 1);
  g_autofree char *pointee = g_strdup (type_text);
  char *star = strchr (pointee, '*');

  arg->name = g_strdup (name);
  arg->type_text = g_strdup (type_text);
  arg->pointer = star != NULL;
  if (star != NULL)
    *star = '\0';
  arg->is_const = strstr (pointee, "const") != NULL;
  if (!ks_elem_type_parse (pointee, &arg->type))
    arg->type = KS_ELEM_OTHER;
  arg->line = line;
  arg->column = column;
  g_ptr_array_add (args, arg);
}

/* __global__ void k (const float *a, int *b, float *c, int n, float scale) */
static GPtrArray *
make_args (void)
{
  GPtrArray *args = g_ptr_array_new_with_free_func (arg_free);

  add_arg (args, "const float *", "a", 3, 20);
  add_arg (args, "int *", "b", 3, 36);
  add_arg (args, "float *", "c", 4, 20);
  add_arg (args, "int", "n", 4, 30);
  add_arg (args, "float", "scale", 4, 37);
  return args;
}

static KsBindingCheck
check_texts (const GPtrArray *args, const char *const *texts, GPtrArray **messages)
{
  g_autoptr (GPtrArray) bindings = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   ks_binding_free);

  for (guint i = 0; texts[i] != NULL; i++)
    g_ptr_array_add (bindings, parse_ok (texts[i]));
  *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  return ks_bindings_check (args, bindings, *messages);
}

/* The one message of a check, with its severity and place. */
static void
assert_one_message (GPtrArray *messages, KsDiagnosticSeverity severity, guint line,
                    guint column, const char *text)
{
  const KsDiagnostic *d;

  if (messages->len != 1)
    {
      for (guint i = 0; i < messages->len; i++)
        g_printerr ("%s\n", ((KsDiagnostic *) g_ptr_array_index (messages, i))->message);
      g_error ("expected one message, got %u", messages->len);
    }
  d = g_ptr_array_index (messages, 0);
  g_assert_cmpint (d->severity, ==, severity);
  g_assert_cmpuint (d->line, ==, line);
  g_assert_cmpuint (d->column, ==, column);
  if (strstr (d->message, text) == NULL)
    g_error ("expected “%s” in “%s”", text, d->message);
}

static void
test_bindings_check (void)
{
  g_autoptr (GPtrArray) args = make_args ();
  const char *ok[] = { "a=f32[8]:random(1)", "b=i32[8]:zeros", "c=f32[8]:zeros:out", "n=8",
                       "scale=2", NULL };
  g_autoptr (GPtrArray) m = NULL;

  g_assert_cmpint (check_texts (args, ok, &m), ==, KS_BINDING_OK);
  g_assert_cmpuint (m->len, ==, 0);
  g_clear_pointer (&m, g_ptr_array_unref);

  {
    const char *t[] = { "a=f32[8]:random(1)", "b=u32[8]:zeros", "c=f32[8]:zeros", "n=8",
                        "scale=2.5", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_WARNING);
    assert_one_message (m, KS_DIAGNOSTIC_WARNING, 3, 36,
                        "“b” is an int pointer but is bound to u32 data: the kernel will read "
                        "the bits of unsigned values as signed (bind i32 data, or change the "
                        "pointer to unsigned int *)");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f32[8]:random(1)", "b=f32[8]:zeros", "c=f32[8]:zeros", "n=8",
                        "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_WARNING);
    assert_one_message (m, KS_DIAGNOSTIC_WARNING, 3, 36,
                        "the bits of float values as integers (bind i32 data, or change the "
                        "pointer to float *)");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f64[8]:random(1)", "b=i32[8]:zeros", "c=f32[8]:zeros", "n=8",
                        "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    assert_one_message (m, KS_DIAGNOSTIC_ERROR, 3, 20,
                        "“a” is a float pointer but is bound to f64 data: the kernel reads "
                        "4-byte elements from an array of 8-byte ones");
    g_assert_nonnull (strstr (((KsDiagnostic *) m->pdata[0])->message,
                              "(bind f32 data, or change the pointer to double *)"));
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    /* c missing, d unknown */
    const char *t[] = { "a=f32[8]:random(1)", "b=i32[8]:zeros", "d=f32[8]:zeros", "n=8",
                        "scale=2", NULL };
    const KsDiagnostic *d0, *d1;

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    g_assert_cmpuint (m->len, ==, 2);
    d0 = m->pdata[0];
    d1 = m->pdata[1];
    g_assert_cmpuint (d0->line, ==, 4);
    g_assert_cmpuint (d0->column, ==, 20);
    g_assert_nonnull (strstr (d0->message, "“c” is not bound"));
    g_assert_nonnull (strstr (d0->message, "c=f32[1024]:zeros"));
    g_assert_cmpuint (d1->line, ==, 0);
    g_assert_nonnull (strstr (d1->message, "“d” is bound, but the kernel has no argument of "
                                           "that name (its arguments: a, b, c, n, scale)"));
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f32[8]:random(1)", "b=i32[8]:zeros", "c=f32[8]:zeros", "n=8",
                        "n=9", "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    assert_one_message (m, KS_DIAGNOSTIC_ERROR, 4, 30, "“n” is bound 2 times");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f32[8]:random(1)", "b=i32[8]:zeros", "c=f32[8]:zeros",
                        "n=5000000000", "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    assert_one_message (m, KS_DIAGNOSTIC_ERROR, 4, 30,
                        "“n”: 5000000000 does not fit in int (-2147483648 to 2147483647)");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f32[8]:random(1)", "b=i32[8]:zeros", "c=f32[8]:zeros", "n=2.5",
                        "scale=1e39", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    g_assert_cmpuint (m->len, ==, 2);
    g_assert_nonnull (strstr (((KsDiagnostic *) m->pdata[0])->message,
                              "2.5 is not a whole number"));
    g_assert_nonnull (strstr (((KsDiagnostic *) m->pdata[1])->message,
                              "1e39 does not fit in float"));
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    /* an array for a scalar, a value for a pointer */
    const char *t[] = { "a=3", "b=i32[8]:zeros", "c=f32[8]:zeros", "n=i32[8]:zeros",
                        "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    g_assert_cmpuint (m->len, ==, 2);
    g_assert_nonnull (strstr (((KsDiagnostic *) m->pdata[0])->message,
                              "“a” is a pointer (const float *) but is bound to the value 3"));
    g_assert_nonnull (strstr (((KsDiagnostic *) m->pdata[1])->message,
                              "“n” is an int value but is bound to an array"));
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f32[8]:random(1):out", "b=i32[8]:zeros", "c=f32[8]:zeros", "n=8",
                        "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    assert_one_message (m, KS_DIAGNOSTIC_ERROR, 3, 20,
                        "“a” is a const pointer, so the kernel only reads it, but it is bound "
                        "as out");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "a=f32[8]:random(1):inout", "b=i32[8]:zeros", "c=f32[8]:zeros", "n=8",
                        "scale=2", NULL };

    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_WARNING);
    assert_one_message (m, KS_DIAGNOSTIC_WARNING, 3, 20, "bound as inout");
    g_clear_pointer (&m, g_ptr_array_unref);
  }

  /* an argument Kernelscope cannot bind */
  {
    g_autoptr (GPtrArray) other = g_ptr_array_new_with_free_func (arg_free);
    const char *t[] = { "p=f32[4]:zeros", NULL };

    add_arg (other, "float4 *", "p", 2, 5);
    g_assert_cmpint (check_texts (other, t, &m), ==, KS_BINDING_ERROR);
    assert_one_message (m, KS_DIAGNOSTIC_ERROR, 2, 5, "float4 *");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
}

static void
test_bindings_default (void)
{
  g_autoptr (GPtrArray) args = make_args ();
  g_autoptr (GPtrArray) more = g_ptr_array_new_with_free_func (arg_free);
  g_autoptr (GPtrArray) bindings = ks_bindings_default (args, 4096);
  g_autoptr (GPtrArray) more_bindings = NULL;
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   ks_diagnostic_free);
  static const char *const expected[] = {
    "a=f32[4096]:random(1)", "b=i32[4096]:zeros", "c=f32[4096]:zeros", "n=4096", "scale=0",
  };

  g_assert_cmpuint (bindings->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < bindings->len; i++)
    {
      g_autofree char *s = ks_binding_to_string (g_ptr_array_index (bindings, i));

      g_assert_cmpstr (s, ==, expected[i]);
    }
  /* the defaults pass their own check */
  g_assert_cmpint (ks_bindings_check (args, bindings, messages), ==, KS_BINDING_OK);
  g_assert_cmpuint (messages->len, ==, 0);

  add_arg (more, "const double *", "x", 1, 1);
  add_arg (more, "const uint8_t *", "y", 1, 2);
  add_arg (more, "float4 *", "z", 1, 3);
  add_arg (more, "size_t", "count", 1, 4);
  add_arg (more, "unsigned", "N", 1, 5);
  more_bindings = ks_bindings_default (more, 10);
  {
    static const char *const want[] = {
      "x=f64[10]:random(1)", "y=u8[10]:random(2)", "z=f32[10]:zeros", "count=10", "N=10",
    };

    for (guint i = 0; i < more_bindings->len; i++)
      {
        g_autofree char *s = ks_binding_to_string (g_ptr_array_index (more_bindings, i));

        g_assert_cmpstr (s, ==, want[i]);
      }
  }
}

static void
assert_packed (const char *text, const char *type_text, const void *bytes, gsize len)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBinding) b = parse_ok (text);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (arg_free);
  g_autoptr (GBytes) packed = NULL;

  add_arg (args, type_text, b->name, 1, 1);
  packed = ks_binding_pack_scalar (b, g_ptr_array_index (args, 0), &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (packed, NULL), g_bytes_get_size (packed), bytes, len);
}

static void
assert_pack_refused (const char *text, const char *type_text, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsBinding) b = parse_ok (text);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (arg_free);
  g_autoptr (GBytes) packed = NULL;

  add_arg (args, type_text, b->name, 1, 1);
  packed = ks_binding_pack_scalar (b, g_ptr_array_index (args, 0), &error);
  g_assert_null (packed);
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, message) == NULL)
    g_error ("expected “%s” in “%s”", message, error->message);
}

static void
test_pack_scalar (void)
{
  assert_packed ("n=-2", "int", "\xfe\xff\xff\xff", 4);
  assert_packed ("n=4096", "unsigned int", "\x00\x10\x00\x00", 4);
  assert_packed ("n=65535", "unsigned short", "\xff\xff", 2);
  assert_packed ("n=-128", "signed char", "\x80", 1);
  assert_packed ("n=200", "unsigned char", "\xc8", 1);
  assert_packed ("n=-1", "long long", "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  assert_packed ("n=18446744073709551615", "size_t", "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  assert_packed ("n=9007199254740993", "int64_t", "\x01\x00\x00\x00\x00\x00\x20\x00", 8);
  assert_packed ("x=1.5", "float", "\x00\x00\xc0\x3f", 4);
  assert_packed ("x=2", "float", "\x00\x00\x00\x40", 4);       /* an int for a float is fine */
  assert_packed ("x=-0.25", "double", "\x00\x00\x00\x00\x00\x00\xd0\xbf", 8);
  assert_packed ("n=3.0", "int", "\x03\x00\x00\x00", 4);

  assert_pack_refused ("n=5000000000", "int", "5000000000 does not fit in int");
  assert_pack_refused ("n=-1", "unsigned int", "-1 does not fit in unsigned int (0 to 4294967295)");
  assert_pack_refused ("n=256", "unsigned char", "(0 to 255)");
  assert_pack_refused ("n=0.5", "short", "0.5 is not a whole number");
  assert_pack_refused ("x=1e300", "float", "does not fit in float");
  assert_pack_refused ("n=f32[4]:zeros", "int", "bound to an array");
  assert_pack_refused ("p=4", "float *", "a pointer");
  assert_pack_refused ("h=1", "half", "cannot be passed");
}

/* ---- typed bindings -------------------------------------------------------- */

static const char typed_source[] =
  "struct Particle { float3 pos; float mass; int id; };\n"
  "typedef struct { double re, im; } Pair;\n"
  "__global__ void k (float4 *v, const cuFloatComplex *z, Particle *p, float3 s,\n"
  "                   Particle q, double2 d, Pair w, float *plain)\n"
  "{\n}\n";

/* "typedef float2 cuFloatComplex" is what cuComplex.h says; the name alone
 * is known too. */
static KsKernelSource *
typed_kernel (void)
{
  KsKernelSource *source = ks_kernel_source_new (KS_KERNEL_MODE_ANY, "typed.cu", typed_source);

  g_assert_false (ks_kernel_source_has_errors (source));
  return source;
}

static void
test_binding_typed_parse (void)
{
  static const char *const round_trips[] = {
    "v=float3[4]:random(7)", "z=c64[3]:range", "p=Particle[2]:zeros",
    "p=Particle[2]:file(p.npy):in", "s=(1.5, 2, 3)", "s=float3(1.5,2,3)", "z=1.5-2j",
    "q={pos=(1,2,3), mass=2, id=7}", "q=Particle{pos=(1, 2, 3)}", "d=double2(0.5, -1)",
  };
  static const struct
  {
    const char *text;
    const char *message;
  } bad[] = {
    { "p=Particle[2]:random(1)", "an array of the struct Particle starts from zeros or from a "
                                 ".npy file with fields of the same names" },
    { "q={pos=(1,2", "the value has no closing )" },
    { "q={pos}", "a struct's fields are written by name, {NAME=VALUE, …}: “pos” has no =" },
    { "z=1.5-2i", "the value must be a number, not “1.5-2i”" },
    { "v=float3", "an array needs a length: v=float3[LENGTH]:zeros" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (round_trips); i++)
    {
      g_autoptr (KsBinding) b = parse_ok (round_trips[i]);
      g_autofree char *text = ks_binding_to_string (b);
      g_autoptr (KsBinding) again = parse_ok (text);
      g_autofree char *text2 = ks_binding_to_string (again);

      g_assert_cmpstr (text, ==, text2);
    }
  {
    g_autoptr (KsBinding) b = parse_ok ("v = float3[4] : random(7)");
    g_autofree char *text = ks_binding_to_string (b);

    g_assert_cmpstr (text, ==, "v=float3[4]:random(7)");
    g_assert_nonnull (b->element);
    g_assert_cmpint (b->type, ==, KS_ELEM_FLOAT32);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (KsBinding) b = ks_binding_parse (bad[i].text, &error);

      g_assert_null (b);
      g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
      if (strstr (error->message, bad[i].message) == NULL)
        g_error ("expected “%s” in “%s”", bad[i].message, error->message);
    }
}

static void
test_binding_typed_arrays (void)
{
  g_autoptr (KsKernelSource) source = typed_kernel ();
  const GPtrArray *args = ks_kernel_source_get_args (source);
  g_autoptr (KsArray) v = create_ok ("v=float3[4]:random(7)");
  g_autoptr (KsArray) flat = create_ok ("f=f32[12]:random(7)");
  g_autoptr (KsArray) z = create_ok ("z=c64[3]:range");
  g_autoptr (KsBinding) pb = parse_ok ("p=Particle[2]:zeros");
  g_autoptr (KsArray) p = NULL;
  g_autoptr (GError) error = NULL;

  /* random fills every component, as the plain array of them */
  g_assert_cmpstr (ks_array_get_type_name (v), ==, "float3");
  g_assert_cmpuint (ks_array_get_count (v), ==, 4);
  g_assert_cmpuint (v->length, ==, 12);
  g_assert_cmpmem (v->data, 48, flat->data, 48);
  {
    g_autofree char *item = ks_array_format_item (z, 2);
    g_assert_cmpstr (item, ==, "4+5j");
  }
  /* a struct's array needs the kernel's argument for its layout */
  g_assert_null (ks_binding_create_array (pb, &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  p = ks_binding_create_array_for (pb, g_ptr_array_index ((GPtrArray *) args, 2), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ks_array_get_count (p), ==, 2);
  g_assert_cmpuint (ks_array_get_bytes (p), ==, 40);
  {
    g_autofree char *item = ks_array_format_item (p, 1);
    g_assert_cmpstr (item, ==, "{pos=(0, 0, 0), mass=0, id=0}");
  }
  /* the wrong argument: it points to something else */
  g_assert_null (ks_binding_create_array_for (pb, g_ptr_array_index ((GPtrArray *) args, 0),
                                              &error));
  g_assert_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT);
}

static void
test_bindings_typed_check (void)
{
  g_autoptr (KsKernelSource) source = typed_kernel ();
  const GPtrArray *args = ks_kernel_source_get_args (source);
  const char *good[] = { "v=float4[8]:random(1)", "z=c64[8]:random(2)", "p=Particle[8]:zeros",
                         "s=(1.5, 2, 3)", "q={pos=(1, 2, 3), mass=2, id=7}", "d=(0.5, -1)",
                         "w={re=1, im=2}", "plain=f32[8]", NULL };
  g_autoptr (GPtrArray) m = NULL;

  g_assert_cmpint (check_texts (args, good, &m), ==, KS_BINDING_OK);
  g_clear_pointer (&m, g_ptr_array_unref);
  {
    /* float2 data for a complex pointer: laid out alike, fine */
    const char *t[] = { "v=float4[8]", "z=float2[8]", "p=Particle[8]", "s=(1, 2, 3)",
                        "q={pos=(1, 2, 3), mass=2, id=7}", "d=(0, 0)", "w={re=0, im=0}",
                        "plain=f32[8]", NULL };
    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_OK);
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "v=float3[8]", "z=c64[8]", "p=Particle[8]", "s=(1, 2, 3)",
                        "q={pos=(1, 2, 3), mass=2, id=7}", "d=(0, 0)", "w={re=0, im=0}",
                        "plain=f32[8]", NULL };
    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    assert_one_message (m, KS_DIAGNOSTIC_ERROR, 3, 28,
                        "“v” is a float4 pointer but is bound to float3 data: the kernel reads "
                        "16-byte elements of 4 f32 components (bind v=float4[8]:…)");
    g_clear_pointer (&m, g_ptr_array_unref);
  }
  {
    const char *t[] = { "v=float4[8]", "z=c64[8]", "p=f32[8]", "s=(1, 2, 3)",
                        "q={pos=(1, 2, 3), id=7}", "d=(0, 0)", "w={re=0, im=0}",
                        "plain=float4[2]", NULL };
    g_assert_cmpint (check_texts (args, t, &m), ==, KS_BINDING_ERROR);
    g_assert_cmpuint (m->len, ==, 3);
    g_assert_nonnull (strstr (((KsDiagnostic *) g_ptr_array_index (m, 0))->message,
                              "“p” points to the struct Particle but is bound to f32 data"));
    g_assert_cmpint (((KsDiagnostic *) g_ptr_array_index (m, 1))->severity, ==,
                     KS_DIAGNOSTIC_WARNING);
    g_assert_nonnull (strstr (((KsDiagnostic *) g_ptr_array_index (m, 1))->message,
                              "“q” (Particle): mass is not given and is zero"));
    g_assert_nonnull (strstr (((KsDiagnostic *) g_ptr_array_index (m, 2))->message,
                              "“plain” is a float pointer but is bound to float4 data: bind f32 "
                              "data (plain=f32[8]:…)"));
    g_clear_pointer (&m, g_ptr_array_unref);
  }
}

/* The bytes a typed scalar passes, with its alignment; defaults that bind. */
static void
test_pack_typed (void)
{
  g_autoptr (KsKernelSource) source = typed_kernel ();
  const GPtrArray *args = ks_kernel_source_get_args (source);
  const KsKernelArg *s = g_ptr_array_index ((GPtrArray *) args, 3);
  const KsKernelArg *q = g_ptr_array_index ((GPtrArray *) args, 4);
  const KsKernelArg *d = g_ptr_array_index ((GPtrArray *) args, 5);
  g_autoptr (KsBinding) sb = parse_ok ("s=(1.5, 2, 3)");
  g_autoptr (KsBinding) qb = parse_ok ("q={pos=(1, 2, 3), mass=2, id=7}");
  g_autoptr (KsBinding) db = parse_ok ("d=0.5+1j");
  g_autoptr (GBytes) sv = NULL;
  g_autoptr (GBytes) qv = NULL;
  g_autoptr (GBytes) dv = NULL;
  g_autoptr (GPtrArray) defaults = NULL;
  g_autoptr (GPtrArray) m = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  g_autoptr (GError) error = NULL;
  const float want_s[3] = { 1.5f, 2, 3 };
  const float want_q[5] = { 1, 2, 3, 2, 0 };
  const double want_d[2] = { 0.5, 1 };
  gint32 id = 7;

  sv = ks_binding_pack_scalar (sb, s, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (sv, NULL), g_bytes_get_size (sv), want_s, 12);
  g_assert_cmpuint (ks_kernel_arg_get_align (s), ==, 4);
  qv = ks_binding_pack_scalar (qb, q, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (qv), ==, 20);
  g_assert_cmpmem (g_bytes_get_data (qv, NULL), 16, want_q, 16);
  g_assert_cmpmem ((const guint8 *) g_bytes_get_data (qv, NULL) + 16, 4, &id, 4);
  /* a complex number's text into double2 */
  dv = ks_binding_pack_scalar (db, d, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (dv, NULL), g_bytes_get_size (dv), want_d, 16);
  g_assert_cmpuint (ks_kernel_arg_get_align (d), ==, 16);

  defaults = ks_bindings_default (args, 16);
  g_assert_cmpint (ks_bindings_check (args, defaults, m), ==, KS_BINDING_OK);
  {
    g_autofree char *text = ks_binding_to_string (g_ptr_array_index (defaults, 4));
    g_assert_cmpstr (text, ==, "q={pos=(0, 0, 0), mass=0, id=0}");
  }
  {
    g_autofree char *text = ks_binding_to_string (g_ptr_array_index (defaults, 1));
    g_assert_cmpstr (text, ==, "z=cuFloatComplex[16]:random(1)");
  }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-test-bindings-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ks/array/init/zeros-range-const", test_init_zeros_range_const);
  g_test_add_func ("/ks/array/init/random", test_init_random);
  g_test_add_func ("/ks/array/init/random-range", test_init_random_range);
  g_test_add_func ("/ks/array/init/normal", test_init_normal);
  g_test_add_func ("/ks/array/init/file", test_init_file);
  g_test_add_func ("/ks/array/binding/parse", test_binding_parse);
  g_test_add_func ("/ks/array/bindings/check", test_bindings_check);
  g_test_add_func ("/ks/array/bindings/default", test_bindings_default);
  g_test_add_func ("/ks/array/bindings/pack-scalar", test_pack_scalar);
  g_test_add_func ("/ks/array/binding/typed-parse", test_binding_typed_parse);
  g_test_add_func ("/ks/array/binding/typed-arrays", test_binding_typed_arrays);
  g_test_add_func ("/ks/array/bindings/typed-check", test_bindings_typed_check);
  g_test_add_func ("/ks/array/bindings/pack-typed", test_pack_typed);

  status = g_test_run ();

  /* the files the tests wrote, then the folder */
  ks_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
