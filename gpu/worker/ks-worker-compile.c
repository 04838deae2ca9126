/* ks-worker-compile.c: the compile requests of KsWorker (ks-worker.h), with
 * their cache, and the query of a compiled entry's attributes. */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-worker-client-private.h"

/* ---- compiling ----------------------------------------------------------- */

static KsCompileResult *
compile_result_copy (const KsCompileResult *result)
{
  g_autoptr (GVariant) value = g_variant_ref_sink (_ks_compile_result_to_variant (result));
  KsCompileResult *copy = _ks_compile_result_from_variant (value, NULL);

  g_assert (copy != NULL);
  return copy;
}

static void
checksum_field (GChecksum *sum, const char *text)
{
  g_checksum_update (sum, (const guchar *) (text != NULL ? text : ""), -1);
  g_checksum_update (sum, (const guchar *) "", 1);
}

static char *
compile_key (const KsKernelSource *source, const KsLaunchConfig *launch, gboolean instrumented,
             guint arch)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  const char *file = ks_kernel_source_get_file_name (source);
  const char *text = ks_kernel_source_get_text (source);

  const char *kernel = ks_kernel_source_get_kernel_option (source);
  const char *const *dirs = ks_kernel_source_get_include_dirs (source);
  const GPtrArray *headers = ks_kernel_source_get_headers (source);
  const char *dir = ks_kernel_source_get_source_dir (source);

  /* The file name shapes the messages (#line), so it is part of the key;
   * so are the kernel asked for, the headers read (a changed header
   * compiles again) and the folders the messages name. Every field ends
   * with a NUL, so that no two requests hash alike by moving text from one
   * field to the next. */
  checksum_field (sum, file);
  checksum_field (sum, text);
  checksum_field (sum, kernel);
  checksum_field (sum, dir);
  for (guint i = 0; dirs[i] != NULL; i++)
    checksum_field (sum, dirs[i]);
  checksum_field (sum, "\001headers");
  for (guint i = 0; i < headers->len; i++)
    {
      const KsKernelHeader *h = g_ptr_array_index (headers, i);

      checksum_field (sum, h->name);
      checksum_field (sum, h->path);
      checksum_field (sum, h->contents);
    }
  return g_strdup_printf ("%s|%d|%u,%u,%u|%u,%u,%u|%d|%d|%u|%d|%u",
                          g_checksum_get_string (sum), (int) ks_kernel_source_get_mode (source),
                          launch->block.x, launch->block.y, launch->block.z, launch->grid.x,
                          launch->grid.y, launch->grid.z, launch->auto_grid, (int) launch->mode,
                          launch->pixels_per_thread, instrumented, arch);
}

/* What the worker needs to make the same source again: the kernel asked
 * for, the folders (for the messages) and the headers as they were read
 * here, so that the worker reads no file. */
static void
insert_source_options (GVariantDict *fields, const KsKernelSource *source)
{
  const GPtrArray *headers = ks_kernel_source_get_headers (source);
  GVariantBuilder list;

  if (ks_kernel_source_get_kernel_option (source) != NULL)
    g_variant_dict_insert (fields, "kernel", "s", ks_kernel_source_get_kernel_option (source));
  if (ks_kernel_source_get_source_dir (source) != NULL)
    g_variant_dict_insert (fields, "source-dir", "s", ks_kernel_source_get_source_dir (source));
  g_variant_dict_insert (fields, "include-dirs", "^as",
                         (char **) ks_kernel_source_get_include_dirs (source));
  g_variant_builder_init (&list, G_VARIANT_TYPE ("a(sss)"));
  for (guint i = 0; i < headers->len; i++)
    {
      const KsKernelHeader *h = g_ptr_array_index (headers, i);

      g_variant_builder_add (&list, "(sss)", h->name, h->path, h->contents);
    }
  g_variant_dict_insert_value (fields, "headers", g_variant_builder_end (&list));
}

KsCompileResult *
ks_worker_compile (KsWorker *self, const KsKernelSource *source,
                   const KsLaunchConfig *resolved_launch, gboolean instrumented,
                   GCancellable *cancellable, GError **error)
{
  g_autofree char *key = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) value = NULL;
  KsCompileResult *cached;
  KsCompileResult *result;
  GVariantDict fields;
  guint arch;

  g_return_val_if_fail (KS_IS_WORKER (self), NULL);
  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (resolved_launch != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  arch = ks_worker_get_arch (self);
  key = compile_key (source, resolved_launch, instrumented, arch);

  g_mutex_lock (&self->lock);
  cached = g_hash_table_lookup (self->compile_cache, key);
  if (cached != NULL)
    {
      result = compile_result_copy (cached);
      g_mutex_unlock (&self->lock);
      result->cached = TRUE;
      return result;
    }
  if (!_ks_worker_ensure_started_locked (self, NULL, error))
    {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  g_variant_dict_init (&fields, NULL);
  g_variant_dict_insert (&fields, "mode", "u", (guint32) ks_kernel_source_get_mode (source));
  g_variant_dict_insert (&fields, "file", "s", ks_kernel_source_get_file_name (source) != NULL
                                               ? ks_kernel_source_get_file_name (source)
                                               : "kernel.cu");
  g_variant_dict_insert (&fields, "text", "s", ks_kernel_source_get_text (source));
  insert_source_options (&fields, source);
  g_variant_dict_insert_value (&fields, "launch", _ks_launch_config_to_variant (resolved_launch));
  g_variant_dict_insert (&fields, "instrumented", "b", instrumented);
  g_variant_dict_insert (&fields, "arch", "u", arch);
  reply = _ks_worker_exchange_locked (self, "compile", g_variant_dict_end (&fields),
                                      g_atomic_int_get (&self->compile_timeout_ms), "compilation",
                                      cancellable, error);
  if (reply == NULL)
    {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  value = g_variant_lookup_value (reply, "result", G_VARIANT_TYPE ("a{sv}"));
  result = value != NULL ? _ks_compile_result_from_variant (value, error) : NULL;
  if (result == NULL)
    {
      if (value == NULL)
        g_set_error (error, KS_ERROR, KS_ERROR_WORKER,
                     "The kernel worker's reply to a compilation has no result");
      _ks_worker_kill_locked (self);
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  g_hash_table_insert (self->compile_cache, g_steal_pointer (&key), compile_result_copy (result));
  g_mutex_unlock (&self->lock);
  return result;
}

/* ---- attributes ---------------------------------------------------------- */

void
ks_kernel_resources_to_attributes (const KsKernelResources *resources, guint64 dynamic_shared,
                                   KsKernelAttributes *attrs)
{
  g_return_if_fail (resources != NULL);
  g_return_if_fail (attrs != NULL);

  memset (attrs, 0, sizeof *attrs);
  attrs->num_regs = resources->num_regs;
  attrs->shared_static = resources->shared_static;
  attrs->shared_dynamic = dynamic_shared;
  attrs->local_bytes = resources->local_bytes;
  /* Unknown (no ptxas lines): CUDA's own limit, the launch's check decides. */
  attrs->max_threads_per_block = resources->max_threads_per_block > 0
                                 ? resources->max_threads_per_block : 1024;
}

static const KsKernelResources *
compiled_entry (const KsCompileResult *compiled, guint entry, GError **error)
{
  if (!compiled->success || compiled->cubin == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_COMPILE,
                   "The kernel did not compile; fix the errors shown and run it again");
      return NULL;
    }
  if (compiled->kernels == NULL || entry >= compiled->kernels->len)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "Entry %u does not exist: the compilation has %u", entry,
                   compiled->kernels != NULL ? compiled->kernels->len : 0);
      return NULL;
    }
  return g_ptr_array_index (compiled->kernels, entry);
}

gboolean
ks_worker_kernel_attributes (KsWorker *self, const KsCompileResult *compiled, guint entry,
                             guint64 dynamic_shared, KsKernelAttributes *attrs, GError **error)
{
  const KsKernelResources *resources;
  g_autoptr (GVariant) reply = NULL;
  GVariantDict fields;
  gsize size;
  const void *data;
  guint32 regs = 0, max_threads = 0;
  guint64 shared = 0, local = 0;

  g_return_val_if_fail (KS_IS_WORKER (self), FALSE);
  g_return_val_if_fail (compiled != NULL, FALSE);
  g_return_val_if_fail (attrs != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((resources = compiled_entry (compiled, entry, error)) == NULL)
    return FALSE;
  ks_kernel_resources_to_attributes (resources, dynamic_shared, attrs);
  if (self->ordinal < 0)
    return TRUE;

  g_mutex_lock (&self->lock);
  if (!_ks_worker_ensure_started_locked (self, NULL, error))
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  if (!self->has_cuda)
    {
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  data = g_bytes_get_data (compiled->cubin, &size);
  g_variant_dict_init (&fields, NULL);
  g_variant_dict_insert_value (&fields, "cubin",
                               g_variant_new_fixed_array (G_VARIANT_TYPE_BYTE, data, size, 1));
  g_variant_dict_insert (&fields, "lowered-name", "s",
                         resources->lowered_name != NULL ? resources->lowered_name : "");
  reply = _ks_worker_exchange_locked (self, "attributes", g_variant_dict_end (&fields),
                                      KS_WORKER_HELLO_TIMEOUT_MS,
                                      "query of the kernel's attributes", NULL, error);
  g_mutex_unlock (&self->lock);
  if (reply == NULL)
    return FALSE;
  g_variant_lookup (reply, "num-regs", "u", &regs);
  g_variant_lookup (reply, "shared-static", "t", &shared);
  g_variant_lookup (reply, "local-bytes", "t", &local);
  g_variant_lookup (reply, "max-threads", "u", &max_threads);
  attrs->num_regs = regs;
  attrs->shared_static = shared;
  attrs->local_bytes = local;
  attrs->max_threads_per_block = max_threads;
  attrs->shared_dynamic = dynamic_shared;
  return TRUE;
}
