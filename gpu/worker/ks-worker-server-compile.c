/* ks-worker-server-compile.c: the worker's "compile" request: a kernel
 * source (its text, the kernel asked for and the headers read by the
 * client) compiled with NVRTC in this process, the result sent back. */
#include "config.h"

#include "ks-error.h"
#include "ks-worker-server-private.h"

ReplyKind
_ks_worker_handle_compile (Server *s, GVariant *fields, GVariantDict *reply, GError **error)
{
  g_autoptr (GVariant) mode = NULL;
  g_autoptr (GVariant) file = NULL;
  g_autoptr (GVariant) text = NULL;
  g_autoptr (GVariant) launch_v = NULL;
  g_autoptr (GVariant) instrumented = NULL;
  g_autoptr (GVariant) arch = NULL;
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsCompileResult) result = NULL;
  g_autoptr (GVariant) headers_v = NULL;
  g_autoptr (GPtrArray) headers =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_header_free);
  g_autofree const char **include_dirs = NULL;
  KsKernelSourceOptions options = { 0 };
  KsLaunchConfig launch;

  if ((mode = _ks_worker_lookup (fields, "mode", "u", error)) == NULL
      || (file = _ks_worker_lookup (fields, "file", "s", error)) == NULL
      || (text = _ks_worker_lookup (fields, "text", "s", error)) == NULL
      || (launch_v = _ks_worker_lookup (fields, "launch", "(uuuuuubuu)", error)) == NULL
      || (instrumented = _ks_worker_lookup (fields, "instrumented", "b", error)) == NULL
      || (arch = _ks_worker_lookup (fields, "arch", "u", error)) == NULL)
    return REPLY_PROTOCOL;
  if (g_variant_get_uint32 (mode) > KS_KERNEL_MODE_ANY)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_WORKER, "Unknown kernel mode %u",
                   g_variant_get_uint32 (mode));
      return REPLY_PROTOCOL;
    }
  if (!ks_nvrtc_load (error))
    return REPLY_ERROR;

  _ks_launch_config_from_variant (launch_v, &launch);
  /* The kernel asked for, the folders and the headers the client read:
   * optional, and the worker reads no file itself. */
  g_variant_lookup (fields, "kernel", "&s", &options.kernel);
  g_variant_lookup (fields, "source-dir", "&s", &options.source_dir);
  if (g_variant_lookup (fields, "include-dirs", "^a&s", &include_dirs))
    options.include_dirs = include_dirs;
  if ((headers_v = g_variant_lookup_value (fields, "headers", G_VARIANT_TYPE ("a(sss)"))) != NULL)
    {
      GVariantIter iter;
      const char *name, *path, *contents;

      g_variant_iter_init (&iter, headers_v);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &name, &path, &contents))
        g_ptr_array_add (headers, ks_kernel_header_new (name, path, contents));
    }
  options.headers = headers;
  source = ks_kernel_source_new_full ((KsKernelMode) g_variant_get_uint32 (mode),
                                      g_variant_get_string (file, NULL),
                                      g_variant_get_string (text, NULL), &options);
  result = ks_kernel_source_compile (source, &launch, g_variant_get_boolean (instrumented),
                                     g_variant_get_uint32 (arch), error);
  if (result == NULL)
    return REPLY_ERROR;
  g_variant_dict_insert_value (reply, "result", _ks_compile_result_to_variant (result));
  (void) s;
  return REPLY_OK;
}
