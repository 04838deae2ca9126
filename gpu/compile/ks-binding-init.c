/* ks-binding-init.c: the ways to fill an array, the INIT of
 * NAME=TYPE[LENGTH]:INIT (ks-array.h): zeros, range, const, random, normal
 * and file, one row each in init_kinds with how the kind is read, checked,
 * written back and made. random and normal come from SplitMix64, the same
 * on every machine. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-array-private.h"
#include "ks-binding-private.h"
#include "ks-error.h"
#include "ks-file.h"

/* ---- generated data ----------------------------------------------------- */

/* SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by the
 * golden-ratio increment and a fixed mix. Written out here so that a seed
 * gives the same array on every machine and with every GLib (GRand promises
 * no stable sequence); it passes BigCrush, plenty for test inputs. */
typedef struct
{
  guint64 state;
} Rng;

static guint64
rng_next (Rng *rng)
{
  guint64 z = (rng->state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* [0, 1) with 53 random bits */
static double
rng_double (Rng *rng)
{
  return (double) (rng_next (rng) >> 11) * 0x1.0p-53;
}

/* The range random draws from: LOW and HIGH as given, or where the binding
 * names none (both 0, as bindings made by hand leave them) [0, 1) for
 * floats and the whole numbers [0, 100) for integers. */
static void
uniform_range (const KsBinding *b, double *low, double *high)
{
  if (b->init_b == 0 && b->init_c == 0)
    {
      *low = 0;
      *high = ks_elem_type_is_float (b->type) ? 1 : 100;
    }
  else
    {
      *low = b->init_b;
      *high = b->init_c;
    }
}

/* Uniform in [low, high): floats from 24 (f32) or 53 (f64) random bits,
 * scaled; integers the whole numbers low, low + 1, …, high - 1, by a
 * multiply of random bits by the span rather than a modulo (the bias, under
 * span / 2^64, is far below any test's notice). For [0, 1) and [0, 100)
 * these are the values random(SEED) always gave. */
static void
fill_uniform (KsArray *array, guint64 seed, double low, double high)
{
  Rng rng = { seed };
  gsize size = ks_elem_type_size (array->type);
  guint64 span = 0;

  if (!ks_elem_type_is_float (array->type))
    span = (guint64) (high - low);
  for (gsize i = 0; i < array->length; i++)
    {
      guint64 x = rng_next (&rng);
      guint8 *dst = array->data + i * size;

      if (array->type == KS_ELEM_FLOAT32)
        {
          /* 24 bits, exactly a float's precision: rounding a 53-bit double
           * could give 1.0f, outside [0, 1). A scaled value that rounds up
           * to high is kept below it. */
          float u = (float) (x >> 40) * 0x1.0p-24f;
          float f = low == 0 && high == 1 ? u : (float) (low + (high - low) * (double) u);

          if (f >= (float) high && (float) high > (float) low)
            f = nextafterf ((float) high, (float) low);
          memcpy (dst, &f, 4);
        }
      else if (array->type == KS_ELEM_FLOAT64)
        {
          double u = (double) (x >> 11) * 0x1.0p-53;
          double d = low == 0 && high == 1 ? u : low + (high - low) * u;

          if (d >= high && high > low)
            d = nextafter (high, low);
          memcpy (dst, &d, 8);
        }
      else
        {
          /* The high 32 bits times a span that fits 32 bits keep random(SEED)'s
           * old values; wider spans take all 64 bits. */
          guint64 offset = span <= G_MAXUINT32
                           ? ((x >> 32) * span) >> 32
                           : (guint64) (((unsigned __int128) x * span) >> 64);
          Value v;

          if (low < 0)
            {
              v.kind = VALUE_SIGNED;
              v.i = (gint64) low + (gint64) offset;
            }
          else
            {
              v.kind = VALUE_UNSIGNED;
              v.u = (guint64) low + offset;
            }
          _ks_array_value_store (&v, array->type, dst);
        }
    }
}

/* Box–Muller: two uniforms give two independent normal values. Integers get
 * the nearest value, saturated at the type's limits. */
static void
fill_normal (KsArray *array, guint64 seed, double mean, double sd)
{
  Rng rng = { seed };

  for (gsize i = 0; i < array->length; i += 2)
    {
      double u1 = 1.0 - rng_double (&rng);   /* (0, 1]: log(u1) is finite */
      double u2 = rng_double (&rng);
      double r = sqrt (-2.0 * log (u1));

      ks_array_set_double (array, i, mean + sd * r * cos (2 * G_PI * u2));
      if (i + 1 < array->length)
        ks_array_set_double (array, i + 1, mean + sd * r * sin (2 * G_PI * u2));
    }
}

/* ---- numbers ------------------------------------------------------------ */

/* Seeds are whole numbers a double holds exactly. */
#define MAX_SEED 9007199254740992.0   /* 2^53 */

/* "name(a, b)": the arguments as numbers; FALSE with *bad the first that is
 * not one. */
static gboolean
parse_call_args (const char *args_text, double *out, guint max_args, guint *n_args, char **bad)
{
  g_auto (GStrv) parts = g_strsplit (args_text, ",", -1);

  *n_args = 0;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = g_strstrip (parts[i]);
      Value v;

      if (*n_args == max_args)
        {
          *n_args = max_args + 1;
          return TRUE;
        }
      if (!_ks_array_value_parse (part, &v))
        {
          *bad = g_strdup (part);
          return FALSE;
        }
      out[(*n_args)++] = _ks_array_value_to_double (&v);
    }
  return TRUE;
}

static gboolean
check_seed (double seed)
{
  return seed >= 0 && seed <= MAX_SEED && floor (seed) == seed;
}

/* The shortest text that reads back as the same double. */
static char *
format_number (double d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.15g", d);
  if (g_ascii_strtod (buf, NULL) != d)
    g_ascii_formatd (buf, sizeof buf, "%.17g", d);
  return g_strdup (buf);
}

/* ---- the kinds ---------------------------------------------------------- */

/* The numbers in parentheses into b's fields (none, n = 0, when the kind is
 * written alone): NULL, or what is wrong. */
typedef char *(*InitParseFunc) (KsBinding *b, const double *a, guint n);
/* The path in parentheses, for a kind that reads a file. */
typedef char *(*InitParsePathFunc) (KsBinding *b, const char *path);
/* NULL when b can make its array; else why not. */
typedef char *(*InitCheckFunc) (const KsBinding *b);
/* Fills the new array of b's type and length. */
typedef void (*InitFillFunc) (const KsBinding *b, KsArray *array);
/* Makes the array itself, for a kind that reads a file. */
typedef KsArray *(*InitLoadFunc) (const KsBinding *b, const char *text, GError **error);
/* Appends how the kind is written: "range(1, 2)". */
typedef void (*InitFormatFunc) (const KsBinding *b, GString *s);

typedef struct
{
  KsArrayInit init;
  const char *name;
  gboolean alone;                /* also written without parentheses: "zeros", "range" */
  const char *form;              /* with parentheses, as messages show it; NULL: never */
  guint min_args;                /* how many numbers go in the parentheses */
  guint max_args;                /* at most MAX_INIT_ARGS */
  InitParseFunc parse;           /* NULL: nothing to read (zeros) */
  InitParsePathFunc parse_path;  /* instead of numbers, a path */
  InitCheckFunc check;           /* NULL: any type and length will do */
  InitFillFunc fill;             /* NULL: the zeros of a new array */
  InitLoadFunc load;             /* instead of filling a new array */
  InitFormatFunc format;
} InitKind;

/* The most numbers a kind takes: normal(SEED, MEAN, SD). */
#define MAX_INIT_ARGS 3

static void
zeros_format (const KsBinding *b, GString *s)
{
  g_string_append (s, "zeros");
}

static char *
range_parse (KsBinding *b, const double *a, guint n)
{
  b->init_a = a[0];
  b->init_b = n == 2 ? a[1] : 1;
  return NULL;
}

/* A range's first and last element fit its type (the others lie between). */
static char *
range_check (const KsBinding *b)
{
  Value v = { VALUE_FLOAT, 0, 0, 0 };
  Fit fit;

  for (guint end = 0; end < 2; end++)
    {
      g_autofree char *text = NULL;
      g_autofree char *why = NULL;
      gsize index = end == 0 ? 0 : b->length - 1;

      v.d = b->init_a + (double) index * b->init_b;
      fit = _ks_array_value_fits (&v, b->type);
      if (fit == FIT_OK)
        continue;
      text = _ks_array_format_value (&v, KS_ELEM_FLOAT64);
      why = _ks_array_fit_message (text, fit, b->type, ks_elem_type_short_name (b->type));
      return g_strdup_printf ("element %" G_GSIZE_FORMAT " of the range is %s", index, why);
    }
  return NULL;
}

static void
range_fill (const KsBinding *b, KsArray *array)
{
  /* start + i·step in double: exact for whole numbers below 2^53 */
  for (gsize i = 0; i < b->length; i++)
    ks_array_set_double (array, i, b->init_a + (double) i * b->init_b);
}

static void
range_format (const KsBinding *b, GString *s)
{
  g_autofree char *a = format_number (b->init_a);
  g_autofree char *bb = format_number (b->init_b);

  if (b->init_a == 0 && b->init_b == 1)
    g_string_append (s, "range");
  else
    g_string_append_printf (s, "range(%s, %s)", a, bb);
}

static char *
const_parse (KsBinding *b, const double *a, guint n)
{
  b->init_a = a[0];
  return NULL;
}

/* The constant fits the type. */
static char *
const_check (const KsBinding *b)
{
  Value v = { VALUE_FLOAT, 0, 0, 0 };
  g_autofree char *text = NULL;
  Fit fit;

  v.d = b->init_a;
  fit = _ks_array_value_fits (&v, b->type);
  if (fit == FIT_OK)
    return NULL;
  text = _ks_array_format_value (&v, KS_ELEM_FLOAT64);
  return _ks_array_fit_message (text, fit, b->type, ks_elem_type_short_name (b->type));
}

static void
const_fill (const KsBinding *b, KsArray *array)
{
  for (gsize i = 0; i < b->length; i++)
    ks_array_set_double (array, i, b->init_a);
}

static void
const_format (const KsBinding *b, GString *s)
{
  g_autofree char *a = format_number (b->init_a);

  g_string_append_printf (s, "const(%s)", a);
}

/* normal(SEED[, MEAN, SD]). */
static char *
seeded_parse (KsBinding *b, const double *a, guint n)
{
  if (!check_seed (a[0]))
    return g_strdup_printf ("the seed must be a whole number from 0 to 2^53, not %g", a[0]);
  b->init_a = a[0];
  b->init_b = n >= 2 ? a[1] : 0;
  b->init_c = n >= 3 ? a[2] : 1;
  return NULL;
}

/* random(SEED[, LOW, HIGH]): LOW and HIGH in init_b and init_c, the type's
 * default range when they are left out (the type is read before the INIT). */
static char *
random_parse (KsBinding *b, const double *a, guint n)
{
  if (!check_seed (a[0]))
    return g_strdup_printf ("the seed must be a whole number from 0 to 2^53, not %g", a[0]);
  if (n == 2)
    return g_strdup ("random() takes a seed alone or a seed, LOW and HIGH: random(SEED, LOW, "
                     "HIGH)");
  if (n == 3 && !(a[1] < a[2]))
    return g_strdup_printf ("random(SEED, LOW, HIGH) draws from LOW up to HIGH: LOW must be "
                            "below HIGH, not %g and %g", a[1], a[2]);
  b->init_a = a[0];
  b->init_b = n == 3 ? a[1] : 0;
  b->init_c = n == 3 ? a[2] : 0;
  return NULL;
}

/* A binding built by hand may hold any seed and range: the range is
 * [LOW, HIGH) with LOW below HIGH, whole numbers whose values fit the type
 * for integers (HIGH itself is never drawn). */
static char *
random_check (const KsBinding *b)
{
  double low, high;

  uniform_range (b, &low, &high);
  if (!check_seed (b->init_a))
    return g_strdup ("the seed must be a whole number from 0 to 2^53");
  if (!isfinite (low) || !isfinite (high) || !(low < high))
    return g_strdup_printf ("random(SEED, LOW, HIGH) draws from LOW up to HIGH: LOW must be "
                            "below HIGH, and both finite (got %g and %g)", low, high);
  if (!ks_elem_type_is_float (b->type))
    {
      Value v = { VALUE_FLOAT, 0, 0, 0 };
      Fit fit;

      if (floor (low) != low || floor (high) != high)
        return g_strdup_printf ("an integer array draws whole numbers: LOW and HIGH must be "
                                "whole, not %g and %g", low, high);
      if (high - low > MAX_SEED)
        return g_strdup_printf ("random(SEED, LOW, HIGH) spans at most 2^53 values, not %g",
                                high - low);
      for (guint end = 0; end < 2; end++)
        {
          v.d = end == 0 ? low : high - 1;
          fit = _ks_array_value_fits (&v, b->type);
          if (fit != FIT_OK)
            {
              g_autofree char *text = _ks_array_format_value (&v, KS_ELEM_FLOAT64);
              g_autofree char *why = _ks_array_fit_message (text, fit, b->type,
                                                            ks_elem_type_short_name (b->type));

              return g_strdup_printf ("random(SEED, LOW, HIGH) would draw %s", why);
            }
        }
    }
  return NULL;
}

static void
random_fill (const KsBinding *b, KsArray *array)
{
  double low, high;

  uniform_range (b, &low, &high);
  fill_uniform (array, (guint64) b->init_a, low, high);
}

static void
random_format (const KsBinding *b, GString *s)
{
  g_autofree char *a = format_number (b->init_a);
  g_autofree char *low = format_number (b->init_b);
  g_autofree char *high = format_number (b->init_c);
  KsBinding defaults = *b;

  /* The type's own range is written as random(SEED) alone. */
  defaults.init_b = defaults.init_c = 0;
  uniform_range (&defaults, &defaults.init_b, &defaults.init_c);
  if ((b->init_b == 0 && b->init_c == 0)
      || (b->init_b == defaults.init_b && b->init_c == defaults.init_c))
    g_string_append_printf (s, "random(%s)", a);
  else
    g_string_append_printf (s, "random(%s, %s, %s)", a, low, high);
}

static char *
normal_check (const KsBinding *b)
{
  if (!isfinite (b->init_b) || !isfinite (b->init_c) || b->init_c < 0)
    return g_strdup ("the mean must be a finite number and the standard deviation a finite "
                     "number of at least 0");
  if (!check_seed (b->init_a))
    return g_strdup ("the seed must be a whole number from 0 to 2^53");
  return NULL;
}

static void
normal_fill (const KsBinding *b, KsArray *array)
{
  fill_normal (array, (guint64) b->init_a, b->init_b, b->init_c);
}

static void
normal_format (const KsBinding *b, GString *s)
{
  g_autofree char *a = format_number (b->init_a);
  g_autofree char *bb = format_number (b->init_b);
  g_autofree char *c = format_number (b->init_c);

  if (b->init_b == 0 && b->init_c == 1)
    g_string_append_printf (s, "normal(%s)", a);
  else
    g_string_append_printf (s, "normal(%s, %s, %s)", a, bb, c);
}

static char *
file_parse_path (KsBinding *b, const char *path)
{
  b->path = g_strstrip (g_strdup (path));
  if (*b->path == '\0')
    return g_strdup ("file() needs the path of a .npy or .csv file");
  return NULL;
}

/* The file's values, as many as the binding says. */
static KsArray *
file_load (const KsBinding *b, const char *text, GError **error)
{
  g_autoptr (KsArray) array = NULL;

  array = ks_array_load (b->path != NULL ? b->path : "", b->type, error);
  if (array == NULL)
    return NULL;
  if (array->length != b->length)
    {
      g_autofree char *display = ks_file_display_name (b->path);

      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "%s: “%s” holds %" G_GSIZE_FORMAT " values, but the binding asks for %"
                   G_GSIZE_FORMAT " (write %s=%s[%" G_GSIZE_FORMAT "]:file(%s))", text,
                   display, array->length, b->length, b->name,
                   ks_elem_type_short_name (b->type), array->length, b->path);
      return NULL;
    }
  return g_steal_pointer (&array);
}

static void
file_format (const KsBinding *b, GString *s)
{
  g_string_append_printf (s, "file(%s)", b->path != NULL ? b->path : "");
}

/* In the order messages list them. A new kind is a row here (and its value
 * in KsArrayInit). */
static const InitKind init_kinds[] = {
  /* init, name, alone, form, min_args, max_args,
   * parse, parse_path, check, fill, load, format */
  { KS_ARRAY_INIT_ZEROS, "zeros", TRUE, NULL, 0, 0,
    NULL, NULL, NULL, NULL, NULL, zeros_format },
  { KS_ARRAY_INIT_RANGE, "range", TRUE, "range(START, STEP)", 1, 2,
    range_parse, NULL, range_check, range_fill, NULL, range_format },
  { KS_ARRAY_INIT_CONST, "const", FALSE, "const(V)", 1, 1,
    const_parse, NULL, const_check, const_fill, NULL, const_format },
  { KS_ARRAY_INIT_UNIFORM, "random", FALSE, "random(SEED[, LOW, HIGH])", 1, 3,
    random_parse, NULL, random_check, random_fill, NULL, random_format },
  { KS_ARRAY_INIT_NORMAL, "normal", FALSE, "normal(SEED, MEAN, SD)", 1, 3,
    seeded_parse, NULL, normal_check, normal_fill, NULL, normal_format },
  { KS_ARRAY_INIT_FILE, "file", FALSE, "file(PATH)", 0, 0,
    NULL, file_parse_path, NULL, NULL, file_load, file_format },
};

static const InitKind *
kind_of (KsArrayInit init)
{
  for (guint i = 0; i < G_N_ELEMENTS (init_kinds); i++)
    if (init_kinds[i].init == init)
      return &init_kinds[i];
  return NULL;
}

/* ---- reading, checking, writing and making ------------------------------ */

/* "“foo” is not a way to fill an array (zeros, range, range(START, STEP), …
 * or file(PATH))": every way the table knows. */
static char *
not_a_way (const char *init)
{
  g_autoptr (GPtrArray) ways = g_ptr_array_new ();
  g_autoptr (GString) usage = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (init_kinds); i++)
    {
      if (init_kinds[i].alone)
        g_ptr_array_add (ways, (gpointer) init_kinds[i].name);
      if (init_kinds[i].form != NULL)
        g_ptr_array_add (ways, (gpointer) init_kinds[i].form);
    }
  for (guint i = 0; i < ways->len; i++)
    {
      if (i > 0)
        g_string_append (usage, i + 1 == ways->len ? " or " : ", ");
      g_string_append (usage, g_ptr_array_index (ways, i));
    }
  return g_strdup_printf ("“%s” is not a way to fill an array (%s)", init, usage->str);
}

gboolean
_ks_binding_init_takes_path (const char *init)
{
  for (guint i = 0; i < G_N_ELEMENTS (init_kinds); i++)
    if (init_kinds[i].parse_path != NULL && g_str_has_prefix (init, init_kinds[i].name)
        && strchr (init, '(') != NULL)
      return TRUE;
  return FALSE;
}

char *
_ks_binding_parse_init (KsBinding *b, const char *init)
{
  g_autofree char *name = NULL;
  g_autofree char *args = NULL;
  g_autofree char *bad = NULL;
  const char *open = strchr (init, '(');
  const InitKind *kind = NULL;
  double a[MAX_INIT_ARGS] = { 0 };
  guint n = 0;

  b->init_a = 0;
  b->init_b = 0;
  b->init_c = 0;
  for (guint i = 0; i < G_N_ELEMENTS (init_kinds); i++)
    if (init_kinds[i].alone && g_str_equal (init, init_kinds[i].name))
      {
        b->init = init_kinds[i].init;
        return init_kinds[i].parse != NULL ? init_kinds[i].parse (b, a, 0) : NULL;
      }
  if (open == NULL || !g_str_has_suffix (init, ")"))
    return not_a_way (init);

  name = g_strstrip (g_strndup (init, open - init));
  args = g_strndup (open + 1, strlen (open + 1) - 1);
  for (guint i = 0; i < G_N_ELEMENTS (init_kinds) && kind == NULL; i++)
    if (init_kinds[i].form != NULL && g_str_equal (name, init_kinds[i].name))
      kind = &init_kinds[i];
  if (kind != NULL && kind->parse_path != NULL)
    {
      b->init = kind->init;
      return kind->parse_path (b, args);
    }

  /* Numbers are read before the name is judged: "foo(x)" is told about x. */
  if (!parse_call_args (args, a, MAX_INIT_ARGS, &n, &bad))
    return g_strdup_printf ("%s() takes numbers, and “%s” is not one", name, bad);
  if (kind == NULL)
    return not_a_way (init);
  if (n < kind->min_args || n > kind->max_args)
    return g_strdup_printf ("%s() was given %u numbers; write it %s", name, n, kind->form);
  b->init = kind->init;
  return kind->parse (b, a, n);
}

char *
_ks_binding_check_init (const KsBinding *b)
{
  const InitKind *kind = kind_of (b->init);

  return kind != NULL && kind->check != NULL ? kind->check (b) : NULL;
}

void
_ks_binding_format_init (const KsBinding *b, GString *s)
{
  const InitKind *kind = kind_of (b->init);

  /* a value outside KsArrayInit reads as the file it would name */
  if (kind == NULL)
    file_format (b, s);
  else
    kind->format (b, s);
}

KsArray *
_ks_binding_make_array (const KsBinding *b, const char *text, GError **error)
{
  const InitKind *kind = kind_of (b->init);
  g_autoptr (KsArray) array = NULL;

  if (kind != NULL && kind->load != NULL)
    return kind->load (b, text, error);
  array = ks_array_new (b->type, b->length, error);
  if (array == NULL)
    return NULL;
  g_assert (kind != NULL);
  if (kind->fill != NULL)
    kind->fill (b, array);
  return g_steal_pointer (&array);
}
