/* ks-nvrtc-resources.c: the resource card of a compiled entry: ptxas'
 * verbose lines (registers, barriers, shared, local and constant memory,
 * spills), the launch bounds the PTX records, and the largest block those
 * allow. */
#include "config.h"

#include <string.h>

#include "ks-nvrtc-private.h"

void
ks_kernel_resources_free (KsKernelResources *resources)
{
  if (resources == NULL)
    return;
  g_free (resources->name);
  g_free (resources->lowered_name);
  g_free (resources);
}

KsKernelResources *
ks_kernel_resources_copy (const KsKernelResources *resources)
{
  KsKernelResources *r;

  g_return_val_if_fail (resources != NULL, NULL);

  r = g_memdup2 (resources, sizeof *resources);
  r->name = g_strdup (resources->name);
  r->lowered_name = g_strdup (resources->lowered_name);
  return r;
}

/* ---- ptxas' resource lines and the PTX's launch bounds -------------------- */

static void
parse_usage_fields (const char *fields, KsKernelResources *resources)
{
  g_auto(GStrv) parts = g_strsplit (fields, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *field = g_strstrip (parts[i]);
      guint64 value;
      char *end;

      if (g_str_has_prefix (field, "Used ") || g_str_has_prefix (field, "used "))
        field += 5;
      value = g_ascii_strtoull (field, &end, 10);
      if (end == field)
        continue;
      while (*end == ' ')
        end++;

      if (g_str_equal (end, "registers"))
        resources->num_regs = (guint) value;
      else if (g_str_equal (end, "barriers"))
        resources->barriers = (guint) value;
      else if (g_str_equal (end, "bytes smem"))
        resources->shared_static = value;
      else if (g_str_equal (end, "bytes cmem[0]"))
        resources->const_bytes = value;
      else if (g_str_equal (end, "bytes lmem"))
        resources->local_bytes = MAX (resources->local_bytes, value);
    }
}

/* "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" */
static void
parse_frame_fields (const char *fields, KsKernelResources *resources)
{
  g_auto(GStrv) parts = g_strsplit (fields, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *field = g_strstrip (parts[i]);
      char *end;
      guint64 value = g_ascii_strtoull (field, &end, 10);

      if (end == field)
        continue;
      while (*end == ' ')
        end++;
      if (g_str_equal (end, "bytes stack frame"))
        resources->local_bytes = MAX (resources->local_bytes, value);
      else if (g_str_equal (end, "bytes spill stores"))
        resources->spill_stores = value;
      else if (g_str_equal (end, "bytes spill loads"))
        resources->spill_loads = value;
    }
}

/* Quoted or bare name after a prefix: "…function '_Z3addPf' for 'sm_90'",
 * "…properties for _Z3addPf". */
static char *
name_after (const char *line, const char *prefix)
{
  const char *start = strstr (line, prefix);
  const char *end;

  if (start == NULL)
    return NULL;
  start += strlen (prefix);
  if (*start == '\'')
    {
      start++;
      end = strchr (start, '\'');
    }
  else
    {
      end = start;
      while (*end != '\0' && !g_ascii_isspace (*end))
        end++;
    }
  return end != NULL ? g_strndup (start, (gsize) (end - start)) : NULL;
}

gboolean
ks_nvrtc_parse_resources (const char *log, const char *lowered_name,
                          KsKernelResources *resources)
{
  g_auto(GStrv) lines = NULL;
  g_autofree char *entry = NULL;      /* the entry whose "Compiling" section we are in */
  g_autofree char *properties = NULL; /* the function "Function properties for" named */
  gboolean found = FALSE;

  g_return_val_if_fail (lowered_name != NULL, FALSE);
  g_return_val_if_fail (resources != NULL, FALSE);

  resources->num_regs = 0;
  resources->shared_static = 0;
  resources->local_bytes = 0;
  resources->spill_stores = 0;
  resources->spill_loads = 0;
  resources->const_bytes = 0;
  resources->barriers = 0;
  if (log == NULL)
    return FALSE;

  lines = g_strsplit (log, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      char *body;

      if (!g_str_has_prefix (line, "ptxas"))
        continue;
      /* "ptxas info    : Used 10 registers, …" */
      body = strchr (line, ':');
      if (body != NULL)
        body = g_strchug (body + 1);

      if (strstr (line, "Compiling entry function ") != NULL)
        {
          g_free (entry);
          entry = name_after (line, "Compiling entry function ");
        }
      else if (strstr (line, "Function properties for ") != NULL)
        {
          g_free (properties);
          properties = name_after (line, "Function properties for ");
        }
      else if (strstr (line, "bytes stack frame") != NULL)
        {
          /* "ptxas         .     0 bytes stack frame, …": no colon */
          if (g_strcmp0 (properties, lowered_name) == 0)
            {
              const char *fields = line + strlen ("ptxas");

              while (*fields == ' ' || *fields == '.')
                fields++;
              parse_frame_fields (fields, resources);
              found = TRUE;
            }
        }
      else if (body != NULL && g_str_has_prefix (body, "Used ")
               && g_strcmp0 (entry, lowered_name) == 0)
        {
          parse_usage_fields (body, resources);
          found = TRUE;
        }
    }
  return found;
}

/* `.maxntid 128, 1, 1` (from __launch_bounds__) or `.reqntid` between the
 * entry's parameter list and its body; 0 when neither is there. */
guint
_ks_nvrtc_launch_bounds_from_ptx (const char *ptx, const char *lowered_name)
{
  g_autofree char *needle = NULL;
  const char *p;
  const char *body;
  const char *directives[] = { ".maxntid", ".reqntid" };

  if (ptx == NULL)
    return 0;
  needle = g_strdup_printf (".entry %s(", lowered_name);
  p = strstr (ptx, needle);
  if (p == NULL)
    return 0;
  p = strchr (p + strlen (needle), ')');
  body = p != NULL ? strchr (p, '{') : NULL;
  if (body == NULL)
    return 0;

  for (gsize i = 0; i < G_N_ELEMENTS (directives); i++)
    {
      const char *d = g_strstr_len (p, body - p, directives[i]);
      guint64 threads = 1;

      if (d == NULL)
        continue;
      d += strlen (directives[i]);
      for (int dim = 0; dim < 3; dim++)
        {
          char *end;
          guint64 n;

          while (*d == ' ' || *d == '\t' || *d == ',')
            d++;
          n = g_ascii_strtoull (d, &end, 10);
          if (end == d)
            break;
          threads *= n;
          d = end;
        }
      return (guint) MIN (threads, G_MAXUINT);
    }
  return 0;
}

/* The largest block the registers allow, as the hardware checks a launch on
 * sm_75 and newer: registers go to warps in units of 256 (a warp of a
 * 40-register kernel takes 40 × 32 = 1280), a block may hold 65536, and the
 * block's warps are counted rounded up to a multiple of the SM's four
 * sub-partitions, each with a quarter of the registers. So a block fits
 * when 4 × ceil(warps / 4) × per_warp ≤ 65536, that is with at most
 * 4 × floor(16384 / per_warp) warps: 96 registers give 640 threads, not
 * the 672 that 65536 / 3072 alone would suggest; 255 registers give 256. */
guint
_ks_nvrtc_max_threads_for (guint num_regs, guint launch_bounds)
{
  guint limit = 1024;

  if (launch_bounds > 0)
    limit = MIN (limit, launch_bounds);
  if (num_regs > 0)
    {
      guint per_warp = (num_regs * 32 + 255) / 256 * 256;
      guint warps = 4 * (16384 / per_warp);

      limit = MIN (limit, warps * 32);
    }
  return limit;
}
