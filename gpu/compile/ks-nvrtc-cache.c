/* ks-nvrtc-cache.c: compile results (KsCompileResult's life) and the cache
 * of them in memory, keyed by a hash of the whole request and bounded to the
 * most recent KS_NVRTC_CACHE_SIZE. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ks-nvrtc-private.h"

/* Compiled programs kept in memory: an editor recompiling as the user types
 * revisits few sources; a cubin is tens of kilobytes. */
#define KS_NVRTC_CACHE_SIZE 64

void
ks_compile_result_free (KsCompileResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->cubin, g_bytes_unref);
  g_free (result->ptx);
  g_free (result->log);
  g_clear_pointer (&result->diagnostics, g_ptr_array_unref);
  g_clear_pointer (&result->kernels, g_ptr_array_unref);
  g_free (result);
}

guint
ks_compile_result_count (const KsCompileResult *result, KsDiagnosticSeverity severity)
{
  guint n = 0;

  g_return_val_if_fail (result != NULL, 0);

  for (guint i = 0; result->diagnostics != NULL && i < result->diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (d->severity == severity)
        n++;
    }
  return n;
}

/* ---- the cache ------------------------------------------------------------ */

static GMutex cache_lock;
static GHashTable *cache_results; /* key (hex SHA-256) → KsCompileResult, owned */
static GQueue cache_order = G_QUEUE_INIT; /* keys, oldest first; borrowed from the table */

static KsCompileResult *
compile_result_copy (const KsCompileResult *result)
{
  KsCompileResult *copy = g_new0 (KsCompileResult, 1);

  copy->success = result->success;
  /* GBytes is immutable: sharing it is as good as a copy. */
  copy->cubin = result->cubin != NULL ? g_bytes_ref (result->cubin) : NULL;
  copy->ptx = g_strdup (result->ptx);
  copy->log = g_strdup (result->log);
  copy->diagnostics = g_ptr_array_new_full (result->diagnostics->len,
                                            (GDestroyNotify) ks_diagnostic_free);
  for (guint i = 0; i < result->diagnostics->len; i++)
    g_ptr_array_add (copy->diagnostics,
                     ks_diagnostic_copy (g_ptr_array_index (result->diagnostics, i)));
  copy->kernels = g_ptr_array_new_full (result->kernels->len,
                                        (GDestroyNotify) ks_kernel_resources_free);
  for (guint i = 0; i < result->kernels->len; i++)
    g_ptr_array_add (copy->kernels,
                     ks_kernel_resources_copy (g_ptr_array_index (result->kernels, i)));
  copy->compile_ms = result->compile_ms;
  copy->cached = result->cached;
  return copy;
}

/* Each field with its length first, so that no two requests hash alike by
 * moving text from one field to the next. */
static void
hash_text (GChecksum *checksum, const char *text)
{
  guint64 len = text != NULL ? strlen (text) : G_MAXUINT64;
  guint64 le = GUINT64_TO_LE (len);

  g_checksum_update (checksum, (const guchar *) &le, sizeof le);
  if (text != NULL)
    g_checksum_update (checksum, (const guchar *) text, (gssize) len);
}

static void
hash_strv (GChecksum *checksum, const char *const *strv)
{
  guint n = strv != NULL ? g_strv_length ((char **) strv) : 0;
  g_autofree char *count = g_strdup_printf ("%u", n);

  hash_text (checksum, count);
  for (guint i = 0; i < n; i++)
    hash_text (checksum, strv[i]);
}

char *
_ks_nvrtc_request_key (const KsCompileRequest *request, const KsNvrtcApi *api)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *numbers = NULL;

  /* The library and its version too: a cubin is only as good as its compiler. */
  numbers = g_strdup_printf ("%d.%d sm_%u %u", api->major, api->minor, request->arch,
                             request->n_headers);
  hash_text (checksum, api->path);
  hash_text (checksum, numbers);
  hash_text (checksum, request->source);
  hash_text (checksum, request->program_name);
  hash_strv (checksum, request->entries);
  for (guint i = 0; i < request->n_headers; i++)
    {
      hash_text (checksum, request->headers[i].name);
      hash_text (checksum, request->headers[i].contents);
    }
  hash_strv (checksum, request->extra_options);
  /* A folder NVRTC reads headers from (-I, the CUDA toolkit's) by its path,
   * in the options, and by when a file in it was last added, removed or
   * replaced: an upgraded toolkit compiles again. */
  for (guint i = 0; request->extra_options != NULL && request->extra_options[i] != NULL; i++)
    {
      const char *option = request->extra_options[i];
      GStatBuf st;

      if (g_str_has_prefix (option, "--include-path="))
        option += strlen ("--include-path=");
      else if (g_str_has_prefix (option, "-I"))
        option += 2;
      else
        continue;
      if (g_stat (option, &st) == 0)
        {
          g_autofree char *stamp = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                    (gint64) st.st_mtime);

          hash_text (checksum, stamp);
        }
    }
  return g_strdup (g_checksum_get_string (checksum));
}

KsCompileResult *
_ks_nvrtc_cache_lookup (const char *key)
{
  KsCompileResult *hit = NULL;

  g_mutex_lock (&cache_lock);
  if (cache_results != NULL)
    {
      const KsCompileResult *stored = g_hash_table_lookup (cache_results, key);

      if (stored != NULL)
        hit = compile_result_copy (stored);
    }
  g_mutex_unlock (&cache_lock);
  if (hit != NULL)
    hit->cached = TRUE;
  return hit;
}

void
_ks_nvrtc_cache_insert (const char *key, const KsCompileResult *result)
{
  g_mutex_lock (&cache_lock);
  if (cache_results == NULL)
    cache_results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) ks_compile_result_free);
  /* Two threads compiling the same source: the first one's result stays. */
  if (!g_hash_table_contains (cache_results, key))
    {
      char *owned_key = g_strdup (key);

      while (cache_order.length >= KS_NVRTC_CACHE_SIZE)
        g_hash_table_remove (cache_results, g_queue_pop_head (&cache_order));
      g_hash_table_insert (cache_results, owned_key, compile_result_copy (result));
      g_queue_push_tail (&cache_order, owned_key);
    }
  g_mutex_unlock (&cache_lock);
}

void
ks_nvrtc_clear_cache (void)
{
  g_mutex_lock (&cache_lock);
  g_queue_clear (&cache_order);
  g_clear_pointer (&cache_results, g_hash_table_unref);
  g_mutex_unlock (&cache_lock);
}
