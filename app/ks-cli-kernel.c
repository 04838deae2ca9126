#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ks-array-run.h"
#include "ks-cli.h"
#include "ks-cli-kernel-declared.h"
#include "ks-user-run.h"

/* `kernel`: the user's own kernel, compiled in the worker process and run on
 * the engine's device — the GPU in the worker, or without one the CPU
 * engine's emulator with its checks (ks-emu.h) — on images (expression and
 * image modes) or on arrays bound to its arguments (the "any" mode). The
 * runs themselves are the worker library's (ks-user-run.c, ks-array-run.c).
 *
 * One piece because one invocation fills one KernelReport, from the source
 * and its launch through the compile or the run to the --json report:
 * kernel_main picks --check, the array run or the image run, and all three
 * write the fields report_json reads, so the options, the runs and the
 * report change together. */

typedef struct
{
  char *expr;
  char *kind;
  char **inputs;
  char *output;
  char **params;
  char **bindings;
  char **saves;
  char *save_inputs;
  char *block;
  char *grid;
  char *engine;
  char *kernel;
  char **include_dirs;
  gboolean stride;
  int ppt;
  gboolean check;
  int arch;
  double timeout;
  int repeat;
  int device;
  int show;
  int printf_buffer;
  gboolean json;
  /* sequences, module variables and dynamic shared memory (array kernels) */
  int launches;
  char **swaps;
  char **consts;
  char *shared;
  KsCliDeclared declared;   /* --elementwise, --reduce, --scan (ks-cli-kernel-declared.c) */
} KernelOptions;

static void
kernel_options_clear (KernelOptions *o)
{
  g_free (o->expr);
  g_free (o->kind);
  g_strfreev (o->inputs);
  g_free (o->output);
  g_strfreev (o->params);
  g_strfreev (o->bindings);
  g_strfreev (o->saves);
  g_free (o->save_inputs);
  g_free (o->block);
  g_free (o->grid);
  g_free (o->engine);
  g_free (o->kernel);
  g_strfreev (o->include_dirs);
  g_strfreev (o->swaps);
  g_strfreev (o->consts);
  g_free (o->shared);
  ks_cli_declared_clear (&o->declared);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (KernelOptions, kernel_options_clear)

/* What one invocation found, for the report and --json. */
typedef struct
{
  const char *file_name;
  KsKernelSource *source;
  KsCompileResult *compiled;
  guint arch;
  const char *engine_name; /* which engine ran it: the GPU's name, or the CPU engine's */
  gboolean ran;
  KsLaunchConfig launch;
  KsWorkerRunResult run;
  GPtrArray *out_names;   /* the out and inout arrays' argument names, as run.arrays */
  GPtrArray *bindings;    /* KsBinding: the arguments as bound (--arg), for the report */
  GPtrArray *global_names; /* the module variables read back, as run.globals */
  const char *failure;    /* the run's error message, when it failed */
  const KsCliDeclared *declared; /* a declared kernel's options, or NULL */
} KernelReport;

/* ---- the source ---------------------------------------------------------- */

/* A file's mode: image when the entry takes ks_image arguments, any
 * otherwise. Its includes are read from its own folder, then the
 * --include-dir folders. */
static KsKernelSource *
open_source (const KernelOptions *o, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char *folder = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (KsKernelSource) source = NULL;
  KsKernelSourceOptions options = { 0 };
  KsKernelMode mode = KS_KERNEL_MODE_ANY;
  const GPtrArray *args;

  for (guint i = 0; o->include_dirs != NULL && o->include_dirs[i] != NULL; i++)
    if (!g_file_test (o->include_dirs[i], G_FILE_TEST_IS_DIR))
      {
        ks_cli_usage_error (error, "--include-dir %s: %s", o->include_dirs[i],
                            g_file_test (o->include_dirs[i], G_FILE_TEST_EXISTS)
                            ? "not a folder" : "no such folder");
        return NULL;
      }

  if (o->declared.declared)
    return ks_cli_declared_open (&o->declared, error);
  if (o->kind != NULL && !ks_kernel_mode_parse (o->kind, &mode))
    {
      ks_cli_usage_error (error, "--kind is expression, image or any, not “%s”", o->kind);
      return NULL;
    }
  if (o->expr != NULL)
    {
      if (path != NULL)
        {
          ks_cli_usage_error (error, "give a .cu file or --expr, not both");
          return NULL;
        }
      if (o->kind != NULL && mode != KS_KERNEL_MODE_EXPRESSION)
        {
          ks_cli_usage_error (error, "--expr is an expression: --kind %s does not apply",
                              o->kind);
          return NULL;
        }
      if (o->kernel != NULL)
        {
          ks_cli_usage_error (error, "--kernel picks one of a file's __global__ functions; "
                              "an expression has none");
          return NULL;
        }
      options.include_dirs = (const char *const *) o->include_dirs;
      return ks_kernel_source_new_full (KS_KERNEL_MODE_EXPRESSION, "expression", o->expr,
                                        &options);
    }
  if (path == NULL)
    {
      ks_cli_usage_error (error, "kernel needs a .cu file or --expr STATEMENTS (see %s kernel "
                          "--help)", g_get_prgname ());
      return NULL;
    }
  if (!g_file_get_contents (path, &text, NULL, &local))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "cannot read %s: %s", path, local->message);
      return NULL;
    }
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "%s is not UTF-8 text", path);
      return NULL;
    }
  folder = g_path_get_dirname (path);
  options.source_dir = folder;
  options.include_dirs = (const char *const *) o->include_dirs;
  options.kernel = o->kernel;
  if (o->kind != NULL)
    return ks_kernel_source_new_full (mode, path, text, &options);

  /* Statements without a __global__ function are an expression. */
  if (strstr (text, "__global__") == NULL)
    {
      if (o->kernel != NULL)
        {
          ks_cli_usage_error (error, "--kernel %s: %s has no __global__ function to pick",
                              o->kernel, path);
          return NULL;
        }
      return ks_kernel_source_new_full (KS_KERNEL_MODE_EXPRESSION, path, text, &options);
    }
  source = ks_kernel_source_new_full (KS_KERNEL_MODE_ANY, path, text, &options);
  args = ks_kernel_source_get_args (source);
  for (guint i = 0; args != NULL && i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);

      if (strstr (arg->type_text, "ks_image") != NULL)
        return ks_kernel_source_new_full (KS_KERNEL_MODE_IMAGE, path, text, &options);
    }
  return g_steal_pointer (&source);
}

/* The launch as the options give it, before it meets the data. */
static gboolean
parse_launch (const KernelOptions *o, KsKernelSource *source, KsLaunchConfig *launch,
              GError **error)
{
  ks_kernel_source_get_default_launch (source, launch);
  if (o->block != NULL)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_dim3_parse (o->block, &launch->block, &local))
        {
          ks_cli_usage_error (error, "--block %s: %s", o->block, local->message);
          return FALSE;
        }
    }
  if (o->grid != NULL && g_strcmp0 (o->grid, "auto") != 0)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_dim3_parse (o->grid, &launch->grid, &local))
        {
          ks_cli_usage_error (error, "--grid %s: %s", o->grid, local->message);
          return FALSE;
        }
      launch->auto_grid = FALSE;
    }
  else if (o->grid != NULL)
    launch->auto_grid = TRUE;
  if (o->stride)
    launch->mode = KS_LAUNCH_GRID_STRIDE;
  if (o->ppt != 0)
    {
      if (o->ppt != 1 && o->ppt != 2 && o->ppt != 4 && o->ppt != 8 && o->ppt != 16)
        {
          ks_cli_usage_error (error, "--ppt must be 1, 2, 4, 8 or 16, not %d", o->ppt);
          return FALSE;
        }
      launch->pixels_per_thread = (guint) o->ppt;
    }
  if (launch->pixels_per_thread == 0)
    launch->pixels_per_thread = 1;
  return TRUE;
}

static gboolean
parse_params (const KernelOptions *o, KsKernelSource *source, KsParams *params, GError **error)
{
  KsOp op = { 0 };

  /* The parameter helpers read only the op's name and parameter list. */
  op.id = "kernel";
  op.params = ks_kernel_source_get_params (source, &op.n_params);
  ks_params_init (params, &op);
  for (guint i = 0; o->params != NULL && o->params[i] != NULL; i++)
    {
      g_autoptr (GError) local = NULL;

      if (!ks_params_parse_assignment (params, &op, o->params[i], &local))
        {
          ks_cli_usage_error (error, "--param %s: %s", o->params[i], local->message);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- reporting ----------------------------------------------------------- */

static void
print_diagnostics (const GPtrArray *diagnostics)
{
  fflush (stdout);
  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    {
      g_autofree char *line = ks_diagnostic_format (g_ptr_array_index (diagnostics, i));

      fprintf (stderr, "%s\n", line);
    }
}

static void
print_resources (const KsKernelResources *r)
{
  ks_cli_print ("kernel %s (sm_%u): %u registers per thread, %" G_GUINT64_FORMAT " bytes of static "
                "shared memory, %" G_GUINT64_FORMAT " bytes of local memory per thread, spills %"
                G_GUINT64_FORMAT " bytes stored / %" G_GUINT64_FORMAT " loaded, at most %u threads "
                "per block\n",
                r->name, r->arch, r->num_regs, r->shared_static, r->local_bytes, r->spill_stores,
                r->spill_loads, r->max_threads_per_block);
}

static void
print_printf (const KsWorkerRunResult *run)
{
  if (run->printf_output != NULL && run->printf_output[0] != '\0')
    {
      ks_cli_print ("device printf (%" G_GUINT64_FORMAT " line%s, in the order the device flushed "
                    "them):\n", run->printf_lines, run->printf_lines == 1 ? "" : "s");
      ks_cli_print ("%s", run->printf_output);
      if (!g_str_has_suffix (run->printf_output, "\n"))
        ks_cli_print ("\n");
    }
  if (run->printf_lines_lost > 0)
    ks_cli_note ("%" G_GUINT64_FORMAT " printf lines were lost: the device's printf buffer "
                 "overflowed (print less, or from fewer threads)", run->printf_lines_lost);
}

/* What the CPU engine's checks found, in compute-sanitizer's form: each
 * report's lines behind its marks, then the count. */
static void
print_findings (const KsWorkerRunResult *run)
{
  if (!run->emulated)
    return;
  for (guint i = 0; run->findings != NULL && i < run->findings->len; i++)
    {
      const KsEmuFinding *f = g_ptr_array_index (run->findings, i);
      g_auto (GStrv) lines = g_strsplit (f->message, "\n", -1);

      for (guint k = 0; lines[k] != NULL; k++)
        if (lines[k][0] != '\0')
          ks_cli_print ("========= %s\n", lines[k]);
      ks_cli_print ("=========\n");
    }
  if (run->findings != NULL && run->n_findings > run->findings->len)
    ks_cli_print ("========= … and %" G_GUINT64_FORMAT " more\n",
                  run->n_findings - run->findings->len);
  ks_cli_print ("========= ERROR SUMMARY: %" G_GUINT64_FORMAT " error%s\n", run->n_findings,
                run->n_findings == 1 ? "" : "s");
}

static void
print_timing (const KsWorkerRunResult *run, guint repeats)
{
  if (run->launch_ms != NULL)
    ks_cli_print ("kernel: %u launch%s, %.4f ms each (median; min %.4f, max %.4f)\n",
                  run->launch_ms->len, run->launch_ms->len == 1 ? "" : "es", run->kernel_ms,
                  run->kernel_min_ms, run->kernel_max_ms);
  else if (repeats > 1)
    ks_cli_print ("kernel: %.4f ms (median of %u runs after a warm-up, min %.4f, max %.4f)\n",
                  run->kernel_ms, repeats, run->kernel_min_ms, run->kernel_max_ms);
  else
    ks_cli_print ("kernel: %.4f ms\n", run->kernel_ms);
}

static const char *
access_name (KsEmuAccess access)
{
  return access == KS_EMU_ACCESS_WRITE ? "write" : access == KS_EMU_ACCESS_ATOMIC ? "atomic"
                                                                                : "read";
}

/* One finding of the CPU engine's checks: its kind, the access, who made it
 * where, and the whole report. */
static void
add_finding (JsonBuilder *b, const KsEmuFinding *f)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kind");
  ks_json_add_string (b, ks_emu_finding_kind_name (f->kind));
  json_builder_set_member_name (b, "access");
  ks_json_add_string (b, f->size > 0 ? access_name (f->access) : NULL);
  json_builder_set_member_name (b, "size");
  json_builder_add_int_value (b, f->size);
  json_builder_set_member_name (b, "address");
  json_builder_add_int_value (b, (gint64) f->address);
  ks_json_add_dim3 (b, "thread", &f->thread);
  ks_json_add_dim3 (b, "block", &f->block);
  json_builder_set_member_name (b, "file");
  ks_json_add_string (b, f->file);
  json_builder_set_member_name (b, "line");
  json_builder_add_int_value (b, f->line);
  if (f->kind == KS_EMU_FINDING_SHARED_RACE)
    {
      json_builder_set_member_name (b, "other_access");
      ks_json_add_string (b, access_name (f->other_access));
      ks_json_add_dim3 (b, "other_thread", &f->other_thread);
      json_builder_set_member_name (b, "other_line");
      json_builder_add_int_value (b, f->other_line);
    }
  json_builder_set_member_name (b, "message");
  ks_json_add_string (b, f->message);
  json_builder_end_object (b);
}

static const char *
init_name (KsArrayInit init)
{
  static const char *const names[] = { "zeros", "range", "const", "random", "normal", "file" };

  return (guint) init < G_N_ELEMENTS (names) ? names[init] : "file";
}

/* The arguments as bound: each binding's text, which runs the kernel on the
 * same data again, and for random and normal data the seed. */
static void
add_bindings (JsonBuilder *b, const GPtrArray *bindings)
{
  json_builder_set_member_name (b, "bindings");
  json_builder_begin_array (b);
  for (guint i = 0; i < bindings->len; i++)
    {
      const KsBinding *binding = g_ptr_array_index (bindings, i);
      g_autofree char *text = ks_binding_to_string (binding);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      ks_json_add_string (b, binding->name);
      json_builder_set_member_name (b, "binding");
      ks_json_add_string (b, text);
      if (binding->is_array)
        {
          json_builder_set_member_name (b, "type");
          ks_json_add_string (b, ks_elem_type_short_name (binding->type));
          json_builder_set_member_name (b, "length");
          json_builder_add_int_value (b, (gint64) binding->length);
          json_builder_set_member_name (b, "init");
          ks_json_add_string (b, init_name (binding->init));
          if (binding->init == KS_ARRAY_INIT_UNIFORM || binding->init == KS_ARRAY_INIT_NORMAL)
            {
              json_builder_set_member_name (b, "seed");
              json_builder_add_int_value (b, (gint64) binding->init_a);
            }
        }
      else
        {
          json_builder_set_member_name (b, "value");
          ks_json_add_string (b, binding->value);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The text's __global__ functions, by name, and the headers it included
 * from the folders. */
static void
add_source_json (JsonBuilder *b, const KsKernelSource *source)
{
  const char *const *kernels = ks_kernel_source_get_kernels (source);
  const GPtrArray *headers = ks_kernel_source_get_headers (source);

  json_builder_set_member_name (b, "functions");
  json_builder_begin_array (b);
  for (guint i = 0; kernels[i] != NULL; i++)
    ks_json_add_string (b, kernels[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "headers");
  json_builder_begin_array (b);
  for (guint i = 0; i < headers->len; i++)
    {
      const KsKernelHeader *h = g_ptr_array_index (headers, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      ks_json_add_string (b, h->name);
      json_builder_set_member_name (b, "path");
      ks_json_add_string (b, h->path);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* name: { NAME: [values…], … } for arrays and their names: numbers, an
 * array of components per item for vectors and complex numbers, and a
 * struct's items as they print ({pos=(1, 2, 3), mass=2}). */
static void
add_arrays_json (JsonBuilder *b, const char *member, const GPtrArray *names,
                 const GPtrArray *arrays)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  for (guint i = 0; arrays != NULL && i < arrays->len; i++)
    {
      const KsArray *a = g_ptr_array_index (arrays, i);

      json_builder_set_member_name (b, g_ptr_array_index (names, i));
      json_builder_begin_array (b);
      if (a->element != NULL && a->element->kind == KS_VALUE_STRUCT)
        for (gsize k = 0; k < a->rows; k++)
          {
            g_autofree char *item = ks_array_format_item (a, k);

            ks_json_add_string (b, item);
          }
      else if (a->element != NULL)
        for (gsize k = 0; k < a->rows; k++)
          {
            json_builder_begin_array (b);
            for (gsize c = 0; c < a->cols; c++)
              ks_json_add_number (b, ks_array_get_double (a, k * a->cols + c));
            json_builder_end_array (b);
          }
      else
        for (gsize k = 0; k < a->length; k++)
          ks_json_add_number (b, ks_array_get_double (a, k));
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
}

static JsonNode *
report_json (const KernelReport *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  const GPtrArray *own = ks_kernel_source_get_diagnostics (r->source);
  const GPtrArray *diagnostics = r->compiled != NULL ? r->compiled->diagnostics : own;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  ks_json_add_string (b, r->file_name);
  json_builder_set_member_name (b, "mode");
  ks_json_add_string (b, ks_kernel_mode_name (ks_kernel_source_get_mode (r->source)));
  json_builder_set_member_name (b, "arch");
  json_builder_add_int_value (b, r->arch);
  json_builder_set_member_name (b, "entry");
  ks_json_add_string (b, ks_kernel_source_get_entry (r->source));
  add_source_json (b, r->source);
  json_builder_set_member_name (b, "compiled");
  json_builder_add_boolean_value (b, r->compiled != NULL && r->compiled->success);
  if (r->compiled != NULL)
    {
      json_builder_set_member_name (b, "compile_ms");
      ks_json_add_number (b, r->compiled->compile_ms);
      json_builder_set_member_name (b, "cached");
      json_builder_add_boolean_value (b, r->compiled->cached);
    }

  json_builder_set_member_name (b, "diagnostics");
  json_builder_begin_array (b);
  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index (diagnostics, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "severity");
      ks_json_add_string (b, ks_diagnostic_severity_name (d->severity));
      json_builder_set_member_name (b, "file");
      ks_json_add_string (b, d->file);
      json_builder_set_member_name (b, "line");
      json_builder_add_int_value (b, d->line);
      json_builder_set_member_name (b, "column");
      json_builder_add_int_value (b, d->column);
      json_builder_set_member_name (b, "code");
      ks_json_add_string (b, d->code);
      json_builder_set_member_name (b, "message");
      ks_json_add_string (b, d->message);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; r->compiled != NULL && r->compiled->kernels != NULL
                    && i < r->compiled->kernels->len; i++)
    {
      const KsKernelResources *k = g_ptr_array_index (r->compiled->kernels, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      ks_json_add_string (b, k->name);
      json_builder_set_member_name (b, "symbol");
      ks_json_add_string (b, k->lowered_name);
      json_builder_set_member_name (b, "registers");
      json_builder_add_int_value (b, k->num_regs);
      json_builder_set_member_name (b, "shared_static_bytes");
      json_builder_add_int_value (b, (gint64) k->shared_static);
      json_builder_set_member_name (b, "local_bytes");
      json_builder_add_int_value (b, (gint64) k->local_bytes);
      json_builder_set_member_name (b, "spill_store_bytes");
      json_builder_add_int_value (b, (gint64) k->spill_stores);
      json_builder_set_member_name (b, "spill_load_bytes");
      json_builder_add_int_value (b, (gint64) k->spill_loads);
      json_builder_set_member_name (b, "max_threads_per_block");
      json_builder_add_int_value (b, k->max_threads_per_block);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "engine");
  ks_json_add_string (b, r->engine_name);
  json_builder_set_member_name (b, "ran");
  json_builder_add_boolean_value (b, r->ran);
  if (r->bindings != NULL)
    add_bindings (b, r->bindings);
  if (r->run.emulated)
    {
      json_builder_set_member_name (b, "findings_total");
      json_builder_add_int_value (b, (gint64) r->run.n_findings);
      json_builder_set_member_name (b, "findings");
      json_builder_begin_array (b);
      for (guint i = 0; r->run.findings != NULL && i < r->run.findings->len; i++)
        add_finding (b, g_ptr_array_index (r->run.findings, i));
      json_builder_end_array (b);
    }
  if (r->failure != NULL)
    {
      json_builder_set_member_name (b, "error");
      ks_json_add_string (b, r->failure);
    }
  if (r->declared != NULL)
    ks_cli_declared_add_json (b, r->declared, r->source, r->out_names, r->run.arrays);
  if (r->ran)
    {
      json_builder_set_member_name (b, "launch");
      json_builder_begin_object (b);
      ks_json_add_dim3 (b, "grid", &r->launch.grid);
      ks_json_add_dim3 (b, "block", &r->launch.block);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "kernel_ms");
      ks_json_add_number (b, r->run.kernel_ms);
      if (r->run.launch_ms != NULL)
        {
          json_builder_set_member_name (b, "launches");
          json_builder_add_int_value (b, r->run.launch_ms->len);
          json_builder_set_member_name (b, "kernel_min_ms");
          ks_json_add_number (b, r->run.kernel_min_ms);
          json_builder_set_member_name (b, "kernel_max_ms");
          ks_json_add_number (b, r->run.kernel_max_ms);
          json_builder_set_member_name (b, "launch_ms");
          json_builder_begin_array (b);
          for (guint i = 0; i < r->run.launch_ms->len; i++)
            ks_json_add_number (b, g_array_index (r->run.launch_ms, double, i));
          json_builder_end_array (b);
        }
      json_builder_set_member_name (b, "printf");
      ks_json_add_string (b, r->run.printf_output != NULL ? r->run.printf_output : "");
      json_builder_set_member_name (b, "printf_lines");
      json_builder_add_int_value (b, (gint64) r->run.printf_lines);
      json_builder_set_member_name (b, "printf_lines_lost");
      json_builder_add_int_value (b, (gint64) r->run.printf_lines_lost);
      add_arrays_json (b, "arrays", r->out_names, r->run.arrays);
      if (r->run.globals != NULL && r->run.globals->len > 0)
        add_arrays_json (b, "globals", r->global_names, r->run.globals);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* ---- running -------------------------------------------------------------- */

static gboolean
run_on_images (const KernelOptions *o, KsWorker *worker, KsEngine *engine, KernelReport *r,
               const KsLaunchConfig *launch, const KsParams *params, GError **error)
{
  g_autoptr (KsImage) image_out = NULL;
  KsImage *images[KS_OP_MAX_INPUTS] = { NULL, NULL };
  guint n_inputs = ks_kernel_source_get_n_inputs (r->source);
  guint n_given = o->inputs != NULL ? g_strv_length (o->inputs) : 0;
  KsUserRunRequest request;
  KsUserRunResult result = { 0 };
  KsLaunchConfig suggestion;
  gboolean ok = FALSE;

  if (n_given != n_inputs)
    {
      ks_cli_usage_error (error, "this kernel reads %u input image%s (--in FILE), got %u",
                          n_inputs, n_inputs == 1 ? "" : "s", n_given);
      return FALSE;
    }
  ks_user_run_request_init (&request, r->source);
  request.params = *params;
  request.launch = *launch;
  request.repeats = (guint) o->repeat;
  for (guint i = 0; i < n_inputs; i++)
    {
      images[i] = ks_cli_load_input (o->inputs[i], i, error);
      if (images[i] == NULL || (request.inputs[i] = ks_engine_upload (engine, images[i], NULL,
                                                                      error)) == NULL)
        goto out;
    }

  if (!ks_user_kernel_prepare (worker, engine, &request, &r->launch, &r->compiled, NULL,
                               &suggestion, NULL, error))
    {
      if (r->compiled != NULL)
        print_diagnostics (r->compiled->diagnostics);
      if (g_error_matches (*error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG))
        {
          char block[32];
          g_autofree char *message = NULL;

          ks_dim3_format (&suggestion.block, block, sizeof block);
          message = g_strdup_printf ("%s (try: --block %s)", (*error)->message, block);
          g_clear_error (error);
          g_set_error_literal (error, KS_ERROR, KS_ERROR_LAUNCH_CONFIG, message);
        }
      goto out;
    }
  print_diagnostics (r->compiled->diagnostics);
  for (guint i = 0; i < r->compiled->kernels->len; i++)
    print_resources (g_ptr_array_index (r->compiled->kernels, i));

  if (!ks_user_kernel_run (worker, engine, &request, &result, NULL, error))
    {
      /* A run the CPU engine stopped says why in its findings. */
      r->run = result.run;
      memset (&result.run, 0, sizeof result.run);
      goto out;
    }
  r->ran = TRUE;
  r->launch = result.launch;
  r->run = result.run;
  memset (&result.run, 0, sizeof result.run);
  {
    g_autofree char *text = ks_cli_describe_launch (&r->launch, 1, TRUE);

    ks_cli_print ("launch: %s\n", text);
  }
  print_timing (&r->run, request.repeats);
  print_printf (&r->run);
  print_findings (&r->run);

  if (o->output != NULL)
    {
      image_out = ks_engine_download (engine, result.output, NULL, error);
      if (image_out == NULL || !ks_image_save (image_out, o->output, error))
        goto out;
      ks_cli_print ("output: %u×%u %s → %s\n", image_out->width, image_out->height,
                    ks_format_name (image_out->format), o->output);
    }
  ok = TRUE;

out:
  ks_user_run_result_clear (&result);
  for (guint i = 0; i < KS_OP_MAX_INPUTS; i++)
    {
      g_clear_pointer (&request.inputs[i], ks_buffer_unref);
      g_clear_pointer (&images[i], ks_image_unref);
    }
  return ok;
}

/* The --arg bindings, checked against the kernel's signature: every
 * finding printed at the argument's line, and an error when the kernel
 * could not run with them. */
static GPtrArray *
parse_bindings (const KernelOptions *o, KernelReport *r, GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (r->source);
  g_autoptr (GPtrArray) bindings =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (GPtrArray) messages =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_diagnostic_free);
  KsBindingCheck check;

  for (guint i = 0; o->bindings != NULL && o->bindings[i] != NULL; i++)
    {
      g_autoptr (GError) local = NULL;
      KsBinding *b = ks_binding_parse (o->bindings[i], &local);

      if (b == NULL)
        {
          ks_cli_usage_error (error, "--arg %s: %s", o->bindings[i], local->message);
          return NULL;
        }
      g_ptr_array_add (bindings, b);
    }
  /* A declared kernel's n and result, when not bound. */
  if (o->declared.declared
      && !ks_declaration_complete_bindings (o->declared.declaration.kind, r->source, bindings,
                                            error))
    return NULL;
  check = ks_bindings_check (args, bindings, messages);
  for (guint i = 0; i < messages->len; i++)
    {
      KsDiagnostic *d = g_ptr_array_index (messages, i);

      if (d->file == NULL)
        d->file = g_strdup (r->file_name);
    }
  print_diagnostics (messages);
  if (check == KS_BINDING_ERROR)
    {
      ks_cli_usage_error (error, "the arguments are not bound as the kernel needs them (--arg "
                          "NAME=TYPE[LENGTH]:INIT for pointers, NAME=VALUE for scalars)");
      return NULL;
    }
  r->bindings = g_ptr_array_ref (bindings);
  return g_steal_pointer (&bindings);
}

static gboolean
save_array (const KsArray *array, const char *path, GError **error)
{
  if (g_str_has_suffix (path, ".npy") || g_str_has_suffix (path, ".NPY"))
    return ks_array_save_npy (array, path, error);
  return ks_array_save_csv (array, path, error);
}

/* An in array's data as the kernel got it: made again from its binding,
 * which gives the same data every time (a seed, a range, a file). */
static KsArray *
input_array (const KernelReport *r, const char *name)
{
  for (guint i = 0; r->bindings != NULL && i < r->bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (r->bindings, i);

      if (b->is_array && g_str_equal (b->name, name))
        return ks_binding_create_array (b, NULL);
    }
  return NULL;
}

static KsArrayDirection
binding_direction (const KernelReport *r, const KsBinding *b)
{
  const GPtrArray *args = ks_kernel_source_get_args (r->source);

  for (guint i = 0; args != NULL && i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index (args, i);

      if (g_str_equal (arg->name, b->name))
        return ks_binding_resolve_direction (b, arg);
    }
  return ks_binding_resolve_direction (b, NULL);
}

/* --save-inputs DIR: each in and inout array's data before the run as
 * DIR/NAME.npy, and the --arg options that run the kernel on them again. */
static gboolean
save_inputs (const KernelOptions *o, const KernelReport *r, GError **error)
{
  g_autoptr (GString) again = g_string_new (NULL);

  if (o->save_inputs == NULL)
    return TRUE;
  if (g_mkdir_with_parents (o->save_inputs, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, KS_ERROR, KS_ERROR_FAILED, "cannot create the folder %s: %s",
                   o->save_inputs, g_strerror (saved));
      return FALSE;
    }
  for (guint i = 0; r->bindings != NULL && i < r->bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (r->bindings, i);
      g_autofree char *file = NULL;
      g_autofree char *path = NULL;
      g_autoptr (KsArray) array = NULL;
      g_autoptr (KsBinding) from_file = NULL;
      g_autofree char *text = NULL;

      if (!b->is_array || binding_direction (r, b) == KS_ARRAY_OUT)
        {
          /* An out array starts as its binding says: nothing to keep. */
          text = ks_binding_to_string (b);
          g_string_append_printf (again, " --arg '%s'", text);
          continue;
        }
      file = g_strconcat (b->name, ".npy", NULL);
      path = g_build_filename (o->save_inputs, file, NULL);
      array = ks_binding_create_array (b, error);
      if (array == NULL || !ks_array_save_npy (array, path, error))
        return FALSE;
      from_file = ks_binding_copy (b);
      from_file->init = KS_ARRAY_INIT_FILE;
      g_free (from_file->path);
      from_file->path = g_strdup (path);
      text = ks_binding_to_string (from_file);
      g_string_append_printf (again, " --arg '%s'", text);
      ks_cli_print ("saved the input %s → %s\n", b->name, path);
    }
  ks_cli_print ("to run it again on them:%s\n", again->str);
  return TRUE;
}

static gboolean
save_arrays (const KernelOptions *o, const KernelReport *r, GError **error)
{
  for (guint i = 0; o->saves != NULL && o->saves[i] != NULL; i++)
    {
      const char *eq = strchr (o->saves[i], '=');
      g_autofree char *name = eq != NULL ? g_strndup (o->saves[i], eq - o->saves[i]) : NULL;
      const KsArray *array = NULL;
      g_autoptr (KsArray) input = NULL;

      if (name == NULL || eq[1] == '\0')
        {
          ks_cli_usage_error (error, "--save %s: write NAME=FILE.csv or NAME=FILE.npy",
                              o->saves[i]);
          return FALSE;
        }
      for (guint k = 0; k < r->out_names->len; k++)
        if (g_str_equal (g_ptr_array_index (r->out_names, k), name))
          array = g_ptr_array_index (r->run.arrays, k);
      /* An in array is saved as the kernel read it. */
      if (array == NULL)
        array = input = input_array (r, name);
      /* Or a module variable, read back for it. */
      for (guint k = 0; array == NULL && r->global_names != NULL && k < r->global_names->len; k++)
        if (g_str_equal (g_ptr_array_index (r->global_names, k), name))
          array = g_ptr_array_index (r->run.globals, k);
      if (array == NULL)
        {
          ks_cli_usage_error (error, "--save %s: “%s” is not an array argument of the kernel",
                              o->saves[i], name);
          return FALSE;
        }
      if (!save_array (array, eq + 1, error))
        return FALSE;
      ks_cli_print ("saved %s → %s\n", name, eq + 1);
    }
  return TRUE;
}

static void
print_array (const char *name, const KsArray *a, guint show)
{
  gsize count = ks_array_get_count (a);
  gsize n = MIN (count, (gsize) show);

  ks_cli_print ("%s (%s, %" G_GSIZE_FORMAT " elements):", name, ks_array_get_type_name (a),
                count);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *v = ks_array_format_item (a, i);

      ks_cli_print ("%s[%" G_GSIZE_FORMAT "] %s", i == 0 ? " " : ", ", i, v);
    }
  if (n < count)
    {
      g_autofree char *last = ks_array_format_item (a, count - 1);

      ks_cli_print (", … [%" G_GSIZE_FORMAT "] %s", count - 1, last);
    }
  ks_cli_print ("\n");
}

/* --const, --swap and --save of a module variable as the request takes
 * them: bindings, names in pairs, and the --save names that are no
 * argument of the kernel (the run finds them among its variables). */
static gboolean
parse_run_options (const KernelOptions *o, const GPtrArray *args, GPtrArray *consts,
                   GStrvBuilder *swaps, GStrvBuilder *reads, GError **error)
{
  for (guint i = 0; o->consts != NULL && o->consts[i] != NULL; i++)
    {
      g_autoptr (GError) local = NULL;
      KsBinding *b = ks_binding_parse_global (o->consts[i], &local);

      if (b == NULL)
        {
          ks_cli_usage_error (error, "--const %s: %s", o->consts[i], local->message);
          return FALSE;
        }
      g_ptr_array_add (consts, b);
    }
  for (guint i = 0; o->swaps != NULL && o->swaps[i] != NULL; i++)
    {
      g_auto (GStrv) pair = g_strsplit (o->swaps[i], ",", -1);

      if (g_strv_length (pair) != 2 || *g_strstrip (pair[0]) == '\0'
          || *g_strstrip (pair[1]) == '\0')
        {
          ks_cli_usage_error (error, "--swap %s: name two pointer arguments, A,B", o->swaps[i]);
          return FALSE;
        }
      g_strv_builder_add (swaps, pair[0]);
      g_strv_builder_add (swaps, pair[1]);
    }
  for (guint i = 0; o->saves != NULL && o->saves[i] != NULL; i++)
    {
      const char *eq = strchr (o->saves[i], '=');
      g_autofree char *name = eq != NULL ? g_strndup (o->saves[i], eq - o->saves[i]) : NULL;
      gboolean is_arg = FALSE;

      for (guint k = 0; name != NULL && args != NULL && k < args->len; k++)
        is_arg |= g_str_equal (((const KsKernelArg *) g_ptr_array_index (args, k))->name, name);
      if (name != NULL && !is_arg)
        g_strv_builder_add (reads, name);
    }
  return TRUE;
}

static gboolean
run_on_arrays (const KernelOptions *o, KsWorker *worker, KsEngine *engine, KernelReport *r,
               const KsLaunchConfig *launch, GError **error)
{
  const GPtrArray *args = ks_kernel_source_get_args (r->source);
  g_autoptr (GPtrArray) bindings = NULL;
  g_autoptr (GPtrArray) consts =
    g_ptr_array_new_with_free_func ((GDestroyNotify) ks_binding_free);
  g_autoptr (GStrvBuilder) swaps = g_strv_builder_new ();
  g_autoptr (GStrvBuilder) reads = g_strv_builder_new ();
  g_auto (GStrv) swap_names = NULL;
  g_auto (GStrv) read_names = NULL;
  KsArrayRunRequest request;
  KsArrayRunResult result = { 0 };
  gboolean ran;

  if (!parse_run_options (o, args, consts, swaps, reads, error))
    return FALSE;
  bindings = parse_bindings (o, r, error);
  if (bindings == NULL)
    return FALSE;

  ks_array_run_request_init (&request, r->source);
  request.bindings = bindings;
  request.launch = *launch;
  request.repeats = (guint) o->repeat;
  request.launches = (guint) MAX (o->launches, 1);
  request.swaps = (const char *const *) (swap_names = g_strv_builder_end (swaps));
  request.globals = consts;
  request.read_globals = (const char *const *) (read_names = g_strv_builder_end (reads));
  if (o->shared != NULL)
    {
      request.dynamic_shared = g_ascii_strtoull (o->shared, NULL, 10);
      request.dynamic_shared_set = TRUE;
    }
  ran = ks_array_kernel_run (worker, ks_device_get_limits (ks_engine_get_device (engine)),
                             &request, &result, NULL, error);
  r->compiled = g_steal_pointer (&result.compiled);
  r->out_names = g_steal_pointer (&result.out_names);
  r->global_names = g_steal_pointer (&result.global_names);
  r->run = result.run;
  memset (&result.run, 0, sizeof result.run);
  r->launch = result.launch;
  ks_array_run_result_clear (&result);
  if (r->compiled != NULL)
    {
      print_diagnostics (r->compiled->diagnostics);
      if (!r->compiled->success)
        {
          g_clear_error (error);
          g_set_error_literal (error, KS_ERROR, KS_ERROR_COMPILE, "the kernel does not compile");
          return FALSE;
        }
      for (guint i = 0; i < r->compiled->kernels->len; i++)
        print_resources (g_ptr_array_index (r->compiled->kernels, i));
    }
  if (!ran)
    return FALSE;
  r->ran = TRUE;

  {
    char grid[32], block[32];

    ks_dim3_format (&r->launch.grid, grid, sizeof grid);
    ks_dim3_format (&r->launch.block, block, sizeof block);
    ks_cli_print ("launch: grid %s, block %s\n", grid, block);
  }
  print_timing (&r->run, (guint) o->repeat);
  print_printf (&r->run);
  print_findings (&r->run);
  for (guint i = 0; r->run.arrays != NULL && i < r->run.arrays->len; i++)
    print_array (g_ptr_array_index (r->out_names, i), g_ptr_array_index (r->run.arrays, i),
                 (guint) o->show);
  for (guint i = 0; r->run.globals != NULL && i < r->run.globals->len; i++)
    print_array (g_ptr_array_index (r->global_names, i), g_ptr_array_index (r->run.globals, i),
                 (guint) o->show);
  return save_arrays (o, r, error) && save_inputs (o, r, error);
}

static int
kernel_main (const KernelOptions *o, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (KsKernelSource) source = NULL;
  g_autoptr (KsWorker) worker = NULL;
  g_autoptr (KsEngine) engine = NULL;
  KernelReport report = { 0 };
  KsLaunchConfig launch;
  KsParams params;
  int status = KS_CLI_EXIT_FAILED;

  /* Every output is checked before the kernel runs or anything is written. */
  if (o->output != NULL && !ks_image_check_save_path (o->output, &error))
    {
      error->domain = KS_CLI_ERROR;
      error->code = KS_CLI_ERROR_USAGE;
      return ks_cli_report_error (error);
    }
  if (o->output != NULL && !ks_file_check_writable (o->output, &error))
    return ks_cli_report_error (error);
  for (guint i = 0; o->saves != NULL && o->saves[i] != NULL; i++)
    {
      const char *eq = strchr (o->saves[i], '=');

      if (eq != NULL && eq[1] != '\0' && !ks_file_check_writable (eq + 1, &error))
        return ks_cli_report_error (error);
    }
  source = open_source (o, path, &error);
  if (source == NULL)
    goto out;
  report.source = source;
  report.file_name = ks_kernel_source_get_file_name (source);
  if (o->declared.declared)
    report.declared = &o->declared;
  if (o->declared.emit_source)
    {
      status = KS_CLI_EXIT_OK;
      goto out;
    }
  if (!parse_launch (o, source, &launch, &error) || !parse_params (o, source, &params, &error))
    goto out;
  if (ks_kernel_source_has_errors (source))
    {
      print_diagnostics (ks_kernel_source_get_diagnostics (source));
      g_set_error_literal (&error, KS_ERROR, KS_ERROR_COMPILE, "the kernel does not compile");
      goto out;
    }

  if (!o->check)
    {
      /* Without a GPU the CPU engine runs the kernel's PTX: a worker
       * without a device is the emulator's. */
      engine = ks_cli_open_engine (o->engine, o->device, &error);
      if (engine == NULL)
        goto out;
      worker = ks_worker_new (ks_engine_is_cuda (engine)
                              ? ks_device_get_ordinal (ks_engine_get_device (engine)) : -1);
      report.engine_name = ks_engine_is_cuda (engine)
                           ? ks_device_get_name (ks_engine_get_device (engine))
                           : "CPU engine (PTX emulator)";
      ks_cli_print ("engine: %s\n", report.engine_name);
    }
  else
    worker = ks_worker_new (-1);
  if (o->arch > 0)
    ks_worker_set_arch (worker, (guint) o->arch);
  else if (o->check && ks_cuda_available (NULL))
    {
      g_autoptr (KsDevice) dev = ks_device_get_cuda (MAX (o->device, 0), NULL);

      if (dev != NULL)
        ks_worker_set_arch (worker, ks_device_get_limits (dev)->cc_major * 10
                                    + ks_device_get_limits (dev)->cc_minor);
    }
  ks_worker_set_timeout_ms (worker, (guint) MIN (o->timeout * 1000.0 + 0.5, (double) G_MAXUINT));
  if (o->printf_buffer > 0)
    ks_worker_set_printf_fifo (worker, (gsize) o->printf_buffer);
  report.arch = ks_worker_get_arch (worker);

  if (o->check)
    {
      g_autoptr (GPtrArray) bindings = NULL;

      /* The bindings are checked against the signature as a run would. */
      if (ks_kernel_source_get_mode (source) == KS_KERNEL_MODE_ANY && o->bindings != NULL
          && (bindings = parse_bindings (o, &report, &error)) == NULL)
        goto out;
      if (ks_kernel_source_get_mode (source) != KS_KERNEL_MODE_ANY && o->bindings != NULL)
        {
          ks_cli_usage_error (&error, "--arg binds the arguments of an array kernel; this one "
                              "runs on images (--in FILE)");
          goto out;
        }
      report.compiled = ks_worker_compile (worker, source, &launch, FALSE, NULL, &error);
      if (report.compiled == NULL)
        goto out;
      print_diagnostics (report.compiled->diagnostics);
      if (!report.compiled->success)
        {
          g_set_error (&error, KS_ERROR, KS_ERROR_COMPILE, "%s does not compile (%u error%s)",
                       report.file_name, ks_compile_result_count (report.compiled,
                                                                  KS_DIAGNOSTIC_ERROR),
                       ks_compile_result_count (report.compiled, KS_DIAGNOSTIC_ERROR) == 1
                       ? "" : "s");
          goto out;
        }
      for (guint i = 0; i < report.compiled->kernels->len; i++)
        print_resources (g_ptr_array_index (report.compiled->kernels, i));
      /* The arguments' types as the compiler laid them out, as a run checks
       * them before it binds anything. */
      if (!ks_kernel_source_check_layout (source, report.compiled, &error))
        goto out;
      ks_cli_print ("compiled for sm_%u in %.1f ms%s\n", report.arch, report.compiled->compile_ms,
                    report.compiled->cached ? " (cached)" : "");
    }
  else if (ks_kernel_source_get_mode (source) == KS_KERNEL_MODE_ANY)
    {
      if (o->inputs != NULL || o->output != NULL)
        {
          ks_cli_usage_error (&error, "this kernel takes arrays, not images: bind its arguments "
                              "with --arg NAME=… instead of --in/--out");
          goto out;
        }
      if (!run_on_arrays (o, worker, engine, &report, &launch, &error))
        goto out;
    }
  else
    {
      if (o->bindings != NULL)
        {
          ks_cli_usage_error (&error, "--arg binds the arguments of an array kernel; this one "
                              "runs on images (--in FILE)");
          goto out;
        }
      if (o->launches > 1 || o->swaps != NULL || o->consts != NULL || o->shared != NULL)
        {
          ks_cli_usage_error (&error, "--launches, --swap, --const and --shared apply to "
                              "kernels on arrays (--arg); an image kernel takes its dynamic "
                              "shared memory from //@shared");
          goto out;
        }
      if (!run_on_images (o, worker, engine, &report, &launch, &params, &error))
        goto out;
    }
  /* Like compute-sanitizer, a run with findings fails. */
  if (report.run.n_findings > 0 && report.run.launch_ms != NULL)
    g_set_error (&error, KS_ERROR, KS_ERROR_KERNEL_FAULT,
                 "the CPU engine's checks found %" G_GUINT64_FORMAT " problem%s in the kernel "
                 "(above) in launch %u of %d; the sequence stopped there",
                 report.run.n_findings, report.run.n_findings == 1 ? "" : "s",
                 report.run.launches_run, o->launches);
  else if (report.run.n_findings > 0)
    g_set_error (&error, KS_ERROR, KS_ERROR_KERNEL_FAULT,
                 "the CPU engine's checks found %" G_GUINT64_FORMAT " problem%s in the kernel "
                 "(above)", report.run.n_findings, report.run.n_findings == 1 ? "" : "s");
  else
    status = KS_CLI_EXIT_OK;

out:
  if (error != NULL && report.run.n_findings > 0 && !report.ran)
    print_findings (&report.run);
  if (error != NULL)
    report.failure = error->message;
  /* The report says what failed too: a script reads why from it. */
  if (o->json && report.source != NULL)
    {
      g_autoptr (JsonNode) root = report_json (&report);

      ks_cli_emit_json (root, TRUE, NULL, NULL);
    }
  if (error != NULL)
    status = ks_cli_report_error (error);
  g_clear_pointer (&report.compiled, ks_compile_result_free);
  g_clear_pointer (&report.out_names, g_ptr_array_unref);
  g_clear_pointer (&report.bindings, g_ptr_array_unref);
  g_clear_pointer (&report.global_names, g_ptr_array_unref);
  ks_worker_run_result_clear (&report.run);
  return status;
}

/* The ranges of --launches and --shared, and what does not go together. */
static gboolean
check_run_options (const KernelOptions *o, GError **error)
{
  guint64 shared = 0;

  if (o->launches < 1 || o->launches > KS_WORKER_MAX_LAUNCHES)
    ks_cli_usage_error (error, "--launches must be between 1 and %d, not %d",
                        KS_WORKER_MAX_LAUNCHES, o->launches);
  else if (o->launches > 1 && o->repeat > 1)
    ks_cli_usage_error (error, "--repeat times one launch again and again from the same inputs; "
                        "--launches runs a sequence, each launch on what the one before left, "
                        "and times every launch: give one or the other");
  else if (o->swaps != NULL && o->launches <= 1)
    ks_cli_usage_error (error, "--swap trades arrays between launches: give --launches N (more "
                        "than 1) too");
  else if (o->shared != NULL && !g_ascii_string_to_unsigned (o->shared, 10, 0, G_MAXUINT64,
                                                             &shared, NULL))
    ks_cli_usage_error (error, "--shared takes a number of bytes, such as 4096, not “%s”",
                        o->shared);
  else if (shared > KS_USER_MAX_SHARED)
    ks_cli_usage_error (error, "--shared %s is more shared memory than any GPU gives a block: at "
                        "most %u bytes", o->shared, KS_USER_MAX_SHARED);
  else
    return TRUE;
  return FALSE;
}

int
ks_cli_cmd_kernel (int argc, char **argv)
{
  g_auto (KernelOptions) o = { .device = -1, .repeat = 1, .timeout = 2.0, .show = 10,
                              .launches = 1 };
  gboolean help = FALSE;
  const GOptionEntry entries[] = {
    { "expr", 'x', 0, G_OPTION_ARG_STRING, &o.expr,
      "Statements over one pixel instead of a file (in, out, x, y, width, height)",
      "STATEMENTS" },
    { "kind", 'k', 0, G_OPTION_ARG_STRING, &o.kind,
      "expression, image or any (default: expression when the file has no __global__ "
      "function, image when its kernel takes ks_image arguments, any otherwise)", "KIND" },
    { "in", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.inputs,
      "Input image (twice for two inputs), or random:WxH or testcard:WxH", "FILE" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Output image", "FILE" },
    { "arg", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &o.bindings,
      "Bind an argument: NAME=TYPE[LENGTH]:INIT[:in|out|inout] for a pointer (INIT: zeros, "
      "range, range(START,STEP), const(V), random(SEED[,LOW,HIGH]), normal(SEED[,MEAN,SD]), "
      "file(PATH); TYPE: f32 … u64, a vector type such as float3, c64, c128, or a struct of "
      "the source), NAME=VALUE for a scalar (2.5, (1, 2, 3), 1.5-2j, {pos=(1, 2, 3), mass=2})",
      "BINDING" },
    { "save", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.saves,
      "Write an array to a .csv or .npy file: an out or inout array or a __device__ or "
      "__constant__ variable after the run, an in array as the kernel read it", "NAME=FILE" },
    { "save-inputs", 0, 0, G_OPTION_ARG_FILENAME, &o.save_inputs,
      "Write each in and inout array's data before the run to DIR/NAME.npy and print the "
      "--arg options that run the kernel on them again", "DIR" },
    { "const", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.consts,
      "Set a __constant__ or __device__ variable before the run: NAME=TYPE[LENGTH]:INIT as for "
      "--arg, NAME=VALUE for a scalar (repeatable)", "BINDING" },
    { "launches", 0, 0, G_OPTION_ARG_INT, &o.launches,
      "Run the kernel N times in a row, each launch on what the one before left, and time "
      "each (not with --repeat)", "N" },
    { "swap", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.swaps,
      "Between launches, pointer arguments A and B trade arrays (ping-pong); results are as "
      "bound at the last launch (repeatable)", "A,B" },
    { "shared", 0, 0, G_OPTION_ARG_STRING, &o.shared,
      "Dynamic shared memory of each block (extern __shared__), instead of the source's "
      "//@shared", "BYTES" },
    { "show", 0, 0, G_OPTION_ARG_INT, &o.show, "Elements of each result printed (default 10)",
      "N" },
    { "kernel", 0, 0, G_OPTION_ARG_STRING, &o.kernel,
      "The __global__ function to run when the file has several, in place of its //@kernel "
      "(a template's instantiation: NAME<float>)", "NAME" },
    { "include-dir", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.include_dirs,
      "Look for the file's #include \"…\" and #include <…> here, after the file's own folder "
      "(repeatable, searched in order)", "DIR" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o.params,
      "Set a parameter the source declares with //@param (repeatable)", "NAME=VALUE" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &o.block, "Block size", "X[xY[xZ]]" },
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &o.grid,
      "Grid size, used exactly (default auto: one thread per pixel or element)", "X[xY[xZ]]" },
    { "stride", 's', 0, G_OPTION_ARG_NONE, &o.stride,
      "Expressions: a grid-stride loop instead of one pass", NULL },
    { "ppt", 0, 0, G_OPTION_ARG_INT, &o.ppt,
      "Expressions: consecutive pixels per thread, 1, 2, 4, 8 or 16", "N" },
    { "check", 'c', 0, G_OPTION_ARG_NONE, &o.check,
      "Compile only and print the diagnostics and resources (no GPU needed)", NULL },
    { "arch", 0, 0, G_OPTION_ARG_INT, &o.arch,
      "Compile for sm_N, for example 90 (default: the GPU's, else 90)", "N" },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &o.timeout,
      "Stop a kernel that runs longer than this (default 2)", "SECONDS" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &o.repeat,
      "Timed runs after a warm-up (default 1: one run, untimed warm-up excluded)", "N" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &o.engine,
      "cuda or cpu (default: cuda when available; the CPU engine runs the kernel's PTX and "
      "checks every access)", "ENGINE" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &o.device, "CUDA device ordinal (default 0)", "N" },
    { "printf-buffer", 0, 0, G_OPTION_ARG_INT, &o.printf_buffer,
      "The device's printf buffer in bytes (default 1048576); lines beyond it are lost",
      "BYTES" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &o.json,
      "Print diagnostics, resources, timing, printf and results as JSON on stdout instead of "
      "the report", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GArray) all_entries = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  g_autoptr (GOptionContext) context = g_option_context_new ("[FILE.cu]");
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  guint n_args;

  g_option_context_set_summary (
    context,
    "Compiles your own CUDA kernel with NVRTC and runs it: an expression over pixels\n"
    "(--expr), an image kernel taking ks_image arguments, or any kernel with its arguments\n"
    "bound to arrays (--arg), also as a sequence of launches on its own output\n"
    "(--launches, --swap) with its __constant__ and __device__ variables set and read\n"
    "back (--const, --save), or one declared as for PyCUDA's ElementwiseKernel,\n"
    "ReductionKernel and scan kernels (--elementwise, --reduce, --scan). On a GPU it\n"
    "runs in a separate worker process; without one\n"
    "the CPU engine runs its PTX with CUDA's semantics and checks every access, reporting\n"
    "out-of-bounds and misaligned accesses, shared-memory races and uninitialised reads\n"
    "like compute-sanitizer. Compile errors are printed as FILE:LINE:COL: error: …; a\n"
    "kernel that faults, has findings or runs past --timeout makes the command exit with\n"
    "status 1 naming the cause. The C and CUDA headers a kernel includes (stdio.h,\n"
    "math.h, stdint.h, assert.h, cuComplex.h, math_constants.h, …) are served by\n"
    "Kernelscope; its own headers are read from its folder and --include-dir.");
  g_array_append_vals (all_entries, entries, G_N_ELEMENTS (entries) - 1);
  g_array_set_size (all_entries, all_entries->len + ks_cli_declared_n_entries ());
  ks_cli_declared_get_entries (&o.declared, &g_array_index (all_entries, GOptionEntry,
                                                            all_entries->len
                                                            - ks_cli_declared_n_entries ()));
  if (!ks_cli_parse_options (context, (const GOptionEntry *) (void *) all_entries->data, argc,
                             argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  ks_cli_set_json (o.json);
  n_args = g_strv_length (args);
  if (n_args > 2)
    {
      ks_cli_usage_error (&error, "kernel takes one .cu file, got “%s” too", args[2]);
      return ks_cli_report_error (error);
    }
  if (!(o.timeout >= 0.001) || o.timeout > 3600)
    {
      ks_cli_usage_error (&error, "--timeout is in seconds, from 0.001 to 3600, not %g",
                          o.timeout);
      return ks_cli_report_error (error);
    }
  if (o.repeat < 1 || o.repeat > 10000)
    {
      ks_cli_usage_error (&error, "--repeat must be between 1 and 10000, not %d", o.repeat);
      return ks_cli_report_error (error);
    }
  if (!check_run_options (&o, &error))
    return ks_cli_report_error (error);
  if (o.printf_buffer != 0 && (o.printf_buffer < 4096 || o.printf_buffer > (1 << 30)))
    {
      ks_cli_usage_error (&error, "--printf-buffer is between 4096 and 1073741824 bytes, not %d",
                          o.printf_buffer);
      return ks_cli_report_error (error);
    }
  if (o.show < 0)
    {
      ks_cli_usage_error (&error, "--show must be 0 or more, not %d", o.show);
      return ks_cli_report_error (error);
    }
  if (o.arch != 0 && (o.arch < 50 || o.arch > 200))
    {
      ks_cli_usage_error (&error, "--arch is a compute capability such as 90 (sm_90), not %d",
                          o.arch);
      return ks_cli_report_error (error);
    }
  if (!ks_cli_declared_read (&o.declared, n_args == 2 || o.expr != NULL, o.kind != NULL,
                             &error))
    return ks_cli_report_error (error);
  return kernel_main (&o, n_args == 2 ? args[1] : NULL);
}
