/* ks-kernel-panel-arrays.c: the kernel panel's arrays side. In the "any"
 * mode the compiled entry's arguments are bound to arrays and values in
 * the array view, and "Run" (the kernel.run-arrays action) runs it on them
 * in the worker: the pipeline's runner validates the launch panel's block
 * and grid against its device and runs it (ks_pipeline_run_arrays_async),
 * and the arrays the run wrote come back to the view. A declared kernel's
 * result and length are bound as the declaration implies. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-kernel-panel-private.h"

/* A declared kernel's arrays, after the page took the compiled signature:
 * a reduction's result is one element, and a template's first bindings
 * are set. */
static void
declared_bindings (KsKernelPanel *self, KsKernelSource *source)
{
  const GPtrArray *args = ks_kernel_source_get_args (source);

  if (!self->declared)
    return;
  for (guint i = 0; self->declared_kind == KS_DECLARED_REDUCTION && i < args->len; i++)
    {
      const KsKernelArg *arg = g_ptr_array_index ((GPtrArray *) args, i);

      if (arg->pointer && g_str_equal (arg->name, KS_DECLARED_RESULT))
        {
          g_autofree char *text = g_strdup_printf (KS_DECLARED_RESULT "=%s[1]:zeros:out",
                                                   ks_elem_type_short_name (arg->type));
          const char *texts[] = { text, NULL };

          ks_array_view_set_bindings (self->array_view, texts, NULL);
        }
    }
  if (self->declared_example != NULL)
    ks_array_view_set_bindings (self->array_view, (const char *const *) self->declared_example,
                                NULL);
  self->declared_example = NULL;
}

/* Before a declared kernel runs: n is the length of the first array bound
 * to one of the declaration's pointers, as PyCUDA passes it. */
static void
declared_sync_length (KsKernelPanel *self)
{
  g_autoptr (GPtrArray) bindings = NULL;

  if (!self->declared)
    return;
  bindings = ks_array_view_get_bindings (self->array_view);
  for (guint i = 0; i < bindings->len; i++)
    {
      const KsBinding *b = g_ptr_array_index (bindings, i);

      if (b->is_array && !g_str_equal (b->name, KS_DECLARED_RESULT))
        {
          g_autofree char *text = g_strdup_printf (KS_DECLARED_LENGTH "=%" G_GSIZE_FORMAT,
                                                   b->length);
          const char *texts[] = { text, NULL };

          ks_array_view_set_bindings (self->array_view, texts, NULL);
          return;
        }
    }
}

void
_ks_kernel_panel_show_arrays_page (KsKernelPanel *self, KsKernelSource *source)
{
  gboolean any = self->mode == KS_KERNEL_MODE_ANY;

  gtk_stack_page_set_visible (self->arrays_page, any);
  if (any && source != NULL)
    {
      const char *entry = ks_kernel_source_get_entry (source);
      g_autofree char *text = g_strdup_printf (_("Bind the arguments of %s to arrays and "
                                                 "values, then run it in the worker."),
                                               entry != NULL ? entry : _("the kernel"));

      ks_array_view_set_signature (self->array_view, ks_kernel_source_get_args (source));
      declared_bindings (self, source);
      gtk_label_set_label (self->arrays_label, text);
    }
}

/* ---- running an "any" kernel on arrays --------------------------------------------------- */

/* What the run's callback reports on: the panel and the source that ran. */
typedef struct
{
  KsKernelPanel *panel;
  KsKernelSource *source;
} ArraysRun;

static void
arrays_run_free (ArraysRun *run)
{
  g_object_unref (run->panel);
  ks_kernel_source_unref (run->source);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ArraysRun, arrays_run_free)

static void
on_arrays_ran_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ArraysRun) closure = user_data;
  KsKernelPanel *self = closure->panel;
  KsKernelSource *source = closure->source;
  g_autoptr (GError) error = NULL;
  KsArrayRunResult run = { 0 };
  KsUserRunReport report = { 0 };
  KsEngine *engine = ks_pipeline_get_engine (KS_PIPELINE (object));
  static guint launches;

  report.number = ++launches;
  report.source = source;
  report.kernel_ms = -1;
  if (ks_pipeline_run_arrays_finish (KS_PIPELINE (object), result, &run, &error))
    {
      report.kernel_ms = run.run.kernel_ms;
      if (self->array_view != NULL && run.run.arrays != NULL)
        {
          g_ptr_array_add (run.out_names, NULL);
          ks_array_view_set_results (self->array_view, run.run.arrays,
                                     (const char *const *) run.out_names->pdata);
        }
    }
  /* What ran, printed and was found, whether it ran to the end or not. */
  report.printf_output = run.run.printf_output;
  report.printf_lines = run.run.printf_lines;
  report.printf_lines_lost = run.run.printf_lines_lost;
  report.emulated = run.run.emulated;
  report.findings = run.run.findings;
  report.n_findings = run.run.n_findings;
  report.engine = engine != NULL && ks_engine_is_cuda (engine)
                  ? ks_device_get_name (ks_engine_get_device (engine)) : _("CPU engine");
  report.launch.grid = run.launch.grid;
  report.launch.block = run.launch.block;
  if (g_error_matches (error, KS_ERROR, KS_ERROR_COMPILE))
    {
      /* The window's words: the compiler's are in the problems list. */
      g_clear_error (&error);
      g_set_error_literal (&error, KS_ERROR, KS_ERROR_COMPILE, _("The kernel does not compile"));
    }
  report.error = error;
  if (error != NULL)
    {
      g_autofree char *status = g_strdup_printf (_("Version %u compiles. %s"), self->version,
                                                 error->message);
      _ks_kernel_panel_set_status (self, status);
    }
  g_signal_emit (self, _ks_kernel_panel_signals[SIGNAL_ARRAYS_RAN], 0, &report);
  ks_array_run_result_clear (&run);
}

/* The kernel.run-arrays action (ks-kernel-panel.c): the last source that
 * compiled in the "any" mode, run on the array view's arrays in the worker,
 * on the pipeline's runner. The runner validates the launch panel's block
 * and grid against the device before it runs anything. */
void
_ks_kernel_panel_run_arrays (KsKernelPanel *self)
{
  KsPipeline *pipeline = ks_panel_get_pipeline (KS_PANEL (self));
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) bindings = NULL;
  g_autoptr (GPtrArray) arrays = NULL;
  ArraysRun *closure;

  if (self->last_good == NULL || ks_kernel_source_get_mode (self->last_good) != KS_KERNEL_MODE_ANY)
    {
      _ks_kernel_panel_report_error (self,
                                     _("Compile a kernel in the “Any kernel” mode first"));
      return;
    }
  if (pipeline == NULL)
    {
      /* The device whose limits the launch must meet is the pipeline's;
       * without one the panel's worker only compiles. */
      _ks_kernel_panel_report_error (self, _("Running needs the window’s engine; compiling "
                                             "and checking work here."));
      return;
    }
  declared_sync_length (self);
  bindings = ks_array_view_get_bindings (self->array_view);
  arrays = ks_array_view_create_arrays (self->array_view, &error);
  if (arrays == NULL)
    {
      _ks_kernel_panel_report_error (self, error->message);
      return;
    }
  closure = g_new0 (ArraysRun, 1);
  closure->panel = g_object_ref (self);
  closure->source = ks_kernel_source_ref (self->last_good);
  /* The block and grid of the launch panel, as for image kernels. */
  ks_pipeline_run_arrays_async (pipeline, self->last_good, bindings, arrays,
                                ks_pipeline_get_launch (pipeline), NULL, on_arrays_ran_cb,
                                closure);
}
