/* ks-worker-server-compile.c: the worker's "compile" request: a kernel
 * source compiled with NVRTC in this process, the result sent back. */
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
  source = ks_kernel_source_new ((KsKernelMode) g_variant_get_uint32 (mode),
                                 g_variant_get_string (file, NULL),
                                 g_variant_get_string (text, NULL));
  result = ks_kernel_source_compile (source, &launch, g_variant_get_boolean (instrumented),
                                     g_variant_get_uint32 (arch), error);
  if (result == NULL)
    return REPLY_ERROR;
  g_variant_dict_insert_value (reply, "result", _ks_compile_result_to_variant (result));
  (void) s;
  return REPLY_OK;
}
