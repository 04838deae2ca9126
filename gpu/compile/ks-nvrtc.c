/* ks-nvrtc.c: compiling a request with NVRTC: the program created with its
 * headers and name expressions, Kernelscope's options, the log read into
 * diagnostics, the cubin and each entry's resource card collected, and the
 * result cached. */
#include "config.h"

#include <string.h>

#include "ks-error.h"
#include "ks-nvrtc-private.h"

static char *
program_log (const KsNvrtcApi *api, KsNvrtcProgram program)
{
  size_t size = 0;
  char *log;

  if (api->GetProgramLogSize (program, &size) != KS_NVRTC_SUCCESS || size == 0)
    return g_strdup ("");
  log = g_malloc0 (size + 1);
  if (api->GetProgramLog (program, log) != KS_NVRTC_SUCCESS)
    log[0] = '\0';
  return log;
}

static gboolean
nvrtc_check (const KsNvrtcApi *api, KsNvrtcResult result, const char *call, const char *what,
             GError **error)
{
  if (result == KS_NVRTC_SUCCESS)
    return TRUE;
  g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "%s failed for %s: %s (%d)", call, what,
               api->GetErrorString (result), result);
  return FALSE;
}

/* The program's output after a successful compilation: the cubin (timed
 * with the compilation, as the header promises), then the PTX for the
 * launch bounds and each entry's card. */
static gboolean
collect_outputs (const KsNvrtcApi *api, KsNvrtcProgram program, const KsCompileRequest *request,
                 gint64 start, KsCompileResult *result, GError **error)
{
  size_t size = 0;
  g_autofree char *ptx = NULL;
  char *cubin;

  if (!nvrtc_check (api, api->GetCUBINSize (program, &size), "nvrtcGetCUBINSize",
                    request->program_name, error))
    return FALSE;
  cubin = g_malloc (MAX (size, 1));
  if (!nvrtc_check (api, api->GetCUBIN (program, cubin), "nvrtcGetCUBIN",
                    request->program_name, error))
    {
      g_free (cubin);
      return FALSE;
    }
  result->cubin = g_bytes_new_take (cubin, size);
  result->compile_ms = (double) (g_get_monotonic_time () - start) / 1000.0;

  /* Not fatal: with options such as -dlto there is no PTX, and then no launch bounds. */
  if (api->GetPTXSize (program, &size) == KS_NVRTC_SUCCESS && size > 0)
    {
      ptx = g_malloc0 (size + 1);
      if (api->GetPTX (program, ptx) != KS_NVRTC_SUCCESS)
        g_clear_pointer (&ptx, g_free);
    }

  for (guint i = 0; request->entries != NULL && request->entries[i] != NULL; i++)
    {
      KsKernelResources *card = g_new0 (KsKernelResources, 1);
      const char *lowered = NULL;

      g_ptr_array_add (result->kernels, card);
      card->name = g_strdup (request->entries[i]);
      card->arch = request->arch;
      if (!nvrtc_check (api, api->GetLoweredName (program, request->entries[i], &lowered),
                        "nvrtcGetLoweredName", request->entries[i], error))
        return FALSE;
      /* The name belongs to the program, which is destroyed after this. */
      card->lowered_name = g_strdup (lowered);
      ks_nvrtc_parse_resources (result->log, card->lowered_name, card);
      card->launch_bounds = _ks_nvrtc_launch_bounds_from_ptx (ptx, card->lowered_name);
      card->max_threads_per_block = _ks_nvrtc_max_threads_for (card->num_regs, card->launch_bounds);
    }
  result->ptx = g_steal_pointer (&ptx);
  return TRUE;
}

static KsCompileResult *
compile_once (const KsNvrtcApi *api, const KsCompileRequest *request, gboolean verbose,
              GError **error)
{
  g_autoptr(KsCompileResult) result = g_new0 (KsCompileResult, 1);
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_free);
  g_autofree const char **contents = g_new0 (const char *, request->n_headers + 1);
  g_autofree const char **names = g_new0 (const char *, request->n_headers + 1);
  const char *program_name = request->program_name != NULL ? request->program_name : "kernel.cu";
  KsNvrtcProgram program = NULL;
  KsNvrtcResult status;
  gint64 start;

  result->diagnostics = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  result->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_kernel_resources_free);

  for (guint i = 0; i < request->n_headers; i++)
    {
      contents[i] = request->headers[i].contents;
      names[i] = request->headers[i].name;
    }
  if (!nvrtc_check (api, api->CreateProgram (&program, request->source, program_name,
                                             (int) request->n_headers, contents, names),
                    "nvrtcCreateProgram", program_name, error))
    return NULL;

  for (guint i = 0; request->entries != NULL && request->entries[i] != NULL; i++)
    if (!nvrtc_check (api, api->AddNameExpression (program, request->entries[i]),
                      "nvrtcAddNameExpression", request->entries[i], error))
      {
        api->DestroyProgram (&program);
        return NULL;
      }

  /* A cubin for exactly the device's architecture (a PTX would be JIT-compiled
   * by the driver, hiding the resource card); C++17 for the user's templates;
   * line info so that tools can map SASS back to the user's lines; ptxas'
   * verbose output for the resource card. */
  g_ptr_array_add (options, g_strdup_printf ("--gpu-architecture=sm_%u", request->arch));
  g_ptr_array_add (options, g_strdup ("-std=c++17"));
  g_ptr_array_add (options, g_strdup ("-lineinfo"));
  if (verbose)
    g_ptr_array_add (options, g_strdup ("-Xptxas=-v"));
  for (guint i = 0; request->extra_options != NULL && request->extra_options[i] != NULL; i++)
    g_ptr_array_add (options, g_strdup (request->extra_options[i]));

  start = g_get_monotonic_time ();
  status = api->CompileProgram (program, (int) options->len,
                                (const char *const *) options->pdata);
  result->log = program_log (api, program);

  if (status == KS_NVRTC_ERROR_INVALID_OPTION)
    {
      g_autofree char *said = g_strstrip (g_strdup (result->log));

      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "The compiler refused the options given for %s: %s", program_name,
                   said[0] != '\0' ? said : api->GetErrorString (status));
      api->DestroyProgram (&program);
      return NULL;
    }
  if (status != KS_NVRTC_SUCCESS && status != KS_NVRTC_ERROR_COMPILATION)
    {
      nvrtc_check (api, status, "nvrtcCompileProgram", program_name, error);
      api->DestroyProgram (&program);
      return NULL;
    }

  result->success = status == KS_NVRTC_SUCCESS;
  result->compile_ms = (double) (g_get_monotonic_time () - start) / 1000.0;
  if (result->success && !collect_outputs (api, program, request, start, result, error))
    {
      api->DestroyProgram (&program);
      return NULL;
    }
  api->DestroyProgram (&program);

  g_ptr_array_unref (result->diagnostics);
  result->diagnostics = ks_nvrtc_parse_log (result->log);
  /* Messages outside any #line (ptxas', NVRTC's own) belong to the program. */
  for (guint i = 0; i < result->diagnostics->len; i++)
    {
      KsDiagnostic *d = g_ptr_array_index (result->diagnostics, i);

      if (d->file == NULL)
        d->file = g_strdup (program_name);
    }
  return g_steal_pointer (&result);
}

static gboolean
arch_supported (const KsNvrtcApi *api, guint arch)
{
  for (guint i = 0; i < api->archs->len; i++)
    if (g_array_index (api->archs, guint, i) == arch)
      return TRUE;
  return FALSE;
}

KsCompileResult *
ks_nvrtc_compile (const KsCompileRequest *request, GError **error)
{
  KsNvrtcApi *api;
  g_autofree char *key = NULL;
  g_autoptr(KsCompileResult) result = NULL;

  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (request->source != NULL, NULL);
  g_return_val_if_fail (request->n_headers == 0 || request->headers != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  api = _ks_nvrtc_get (error);
  if (api == NULL)
    return NULL;

  if (!arch_supported (api, request->arch))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                   "NVRTC %d.%d cannot compile for sm_%u: it knows sm_%u to sm_%u",
                   api->major, api->minor, request->arch,
                   g_array_index (api->archs, guint, 0),
                   g_array_index (api->archs, guint, api->archs->len - 1));
      return NULL;
    }
  for (guint i = 0; i < request->n_headers; i++)
    if (request->headers[i].name == NULL || request->headers[i].contents == NULL)
      {
        g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                     "Header %u of %u given to the compiler has no %s", i + 1,
                     request->n_headers, request->headers[i].name == NULL ? "name" : "text");
        return NULL;
      }

  key = _ks_nvrtc_request_key (request, api);
  result = _ks_nvrtc_cache_lookup (key);
  if (result != NULL)
    return g_steal_pointer (&result);

  result = compile_once (api, request, TRUE, error);
  if (result == NULL)
    return NULL;

  /* NVRTC 13.0 drops ptxas' own error ("Entry function '…' uses too much
   * shared data …") from the log when -Xptxas=-v is given, leaving a failed
   * compilation without a reason: compile again without it to get one. */
  if (!result->success && ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR) == 0)
    {
      g_autoptr(KsCompileResult) quiet = compile_once (api, request, FALSE, error);

      if (quiet == NULL)
        return NULL;
      quiet->compile_ms += result->compile_ms;
      g_clear_pointer (&result, ks_compile_result_free);
      result = g_steal_pointer (&quiet);
    }
  if (!result->success && ks_compile_result_count (result, KS_DIAGNOSTIC_ERROR) == 0)
    g_ptr_array_add (result->diagnostics,
                     ks_diagnostic_new (KS_DIAGNOSTIC_ERROR,
                                        request->program_name != NULL
                                          ? request->program_name : "kernel.cu",
                                        0, 0, "The compiler failed without giving a reason"));

  _ks_nvrtc_cache_insert (key, result);
  return g_steal_pointer (&result);
}
