/* test-emu-helpers.c: what the emulator's test programs share: kernels
 * compiled by NVRTC into modules, launches' parameters, poisoned and random
 * buffers, float comparisons. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "test-emu.h"

void
emu_program_clear (EmuProgram *p)
{
  g_clear_pointer (&p->module, ks_emu_module_free);
  g_clear_pointer (&p->names, g_ptr_array_unref);
}

void
emu_compile_with (EmuProgram *p, const char *source, const char *const *entries,
              const char *const *options)
{
  KsCompileRequest request = {
    .source = source,
    .program_name = "emu.cu",
    .arch = 90,
    .entries = entries,
    .extra_options = options,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsCompileResult) result = ks_nvrtc_compile (&request, &error);

  g_assert_no_error (error);
  if (!result->success)
    g_error ("the test kernel does not compile:\n%s", result->log);
  g_assert_nonnull (result->ptx);
  p->module = ks_emu_module_new (result->ptx, &error);
  g_assert_no_error (error);
  p->names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < result->kernels->len; i++)
    {
      const KsKernelResources *k = g_ptr_array_index (result->kernels, i);

      g_ptr_array_add (p->names, g_strdup (k->lowered_name));
    }
}

void
emu_compile (EmuProgram *p, const char *source, const char *const *entries)
{
  emu_compile_with (p, source, entries, NULL);
}

const char *
emu_entry (const EmuProgram *p, guint i)
{
  return g_ptr_array_index (p->names, i);
}

KsDim3
emu_dim3 (guint x, guint y, guint z)
{
  KsDim3 d = { x, y, z };

  return d;
}

void
emu_param_buffer (KsEmuLaunch *launch, gpointer data, gsize size, const char *name)
{
  guint64 address = ks_emu_launch_add_buffer (launch, data, size, name);

  ks_emu_launch_add_param (launch, &address, sizeof address);
}

void
emu_param_int (KsEmuLaunch *launch, gint32 v)
{
  ks_emu_launch_add_param (launch, &v, sizeof v);
}

void
emu_param_float (KsEmuLaunch *launch, float v)
{
  ks_emu_launch_add_param (launch, &v, sizeof v);
}

/* Runs; the run must end well, without findings. */
void
emu_run_clean (KsEmuLaunch *launch, KsEmuResult *result)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = ks_emu_launch_run (launch, NULL, result, &error);

  for (guint i = 0; i < result->findings->len; i++)
    g_test_message ("finding: %s", ((KsEmuFinding *) g_ptr_array_index (result->findings,
                                                                      i))->message);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (result->n_findings, ==, 0);
}

gpointer
emu_poisoned (gsize size)
{
  gpointer p = g_malloc (size);

  memset (p, EMU_POISON, size);
  return p;
}

float *
emu_random_floats (gsize n, double lo, double hi)
{
  float *v = g_new (float, n);

  for (gsize i = 0; i < n; i++)
    v[i] = (float) g_test_rand_double_range (lo, hi);
  return v;
}

guint32
emu_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

void
emu_assert_same_float (float expected, float actual, gsize i)
{
  if (emu_bits (expected) != emu_bits (actual))
    g_error ("element %" G_GSIZE_FORMAT ": %.9g (0x%08x) expected, %.9g (0x%08x) computed", i,
             expected, emu_bits (expected), actual, emu_bits (actual));
}

/* The distance in representable floats. */
guint32
emu_ulps (float a, float b)
{
  gint32 x = (gint32) emu_bits (a), y = (gint32) emu_bits (b);

  if (isnan (a) && isnan (b))
    return 0;
  if (x < 0)
    x = G_MININT32 - x;
  if (y < 0)
    y = G_MININT32 - y;
  return x > y ? (guint32) x - (guint32) y : (guint32) y - (guint32) x;
}

guint64
emu_ulps64 (double a, double b)
{
  gint64 x, y;

  if (isnan (a) && isnan (b))
    return 0;
  memcpy (&x, &a, 8);
  memcpy (&y, &b, 8);
  if (x < 0)
    x = G_MININT64 - x;
  if (y < 0)
    y = G_MININT64 - y;
  return x > y ? (guint64) x - (guint64) y : (guint64) y - (guint64) x;
}


gboolean
emu_have_nvrtc (void)
{
  g_autoptr(GError) error = NULL;

  if (ks_nvrtc_load (&error))
    return TRUE;
  g_print ("1..0 # SKIP NVRTC is not available: %s\n", error->message);
  return FALSE;
}
