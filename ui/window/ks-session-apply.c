/* ks-session-apply.c: a session applied to a window and its pipeline — the
 * device first, then the inputs, the op and its parameters, the launch,
 * the kernel editor and the view. What does not fit this machine or this
 * version is left as it was and named; the rest applies. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-op-registry.h"
#include "ks-session-private.h"

static void
on_device_set_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) window = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_device_finish (KS_PIPELINE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The session’s device could not be used: "
                                                    "%s"), error->message);
      _ks_session_toast (window, message);
    }
}

static void
apply_device (const KsSession *session, KsWindow *window, GPtrArray *problems)
{
  KsPipeline *pipeline = window->pipeline;
  KsDevice *current = ks_pipeline_get_device (pipeline);
  g_autoptr (KsDevice) device = NULL;
  const char *id = session->device_id;

  if (id == NULL || (current != NULL && g_str_equal (ks_device_get_id (current), id)))
    return;
  if (g_str_equal (id, "cpu"))
    device = ks_device_get_cpu ();
  else if (g_str_has_prefix (id, "cuda:") && g_ascii_isdigit (id[5]) && strlen (id) <= 8
           && ks_cuda_available (NULL))
    device = ks_device_get_cuda ((int) g_ascii_strtoll (id + 5, NULL, 10), NULL);
  if (device == NULL)
    {
      g_ptr_array_add (problems,
                       g_strdup_printf (_("the device “%s” is not available here, so the engine "
                                          "stays on %s"), id,
                                        current != NULL ? ks_device_get_name (current) : "-"));
      return;
    }
  ks_pipeline_set_device_async (pipeline, device, NULL, on_device_set_cb, g_object_ref (window));
}

/* Whether slot A gets an image from the session. */
static gboolean
apply_inputs (const KsSession *session, KsWindow *window, GPtrArray *problems)
{
  gboolean a_set = FALSE;

  for (guint slot = KS_INPUT_A; slot <= KS_INPUT_B; slot++)
    {
      const SessionInput *in = &session->inputs[slot];

      if (in->kind == INPUT_NONE)
        continue;
      if (in->missing && in->kind == INPUT_FILE)
        {
          g_autofree char *parse = g_file_get_parse_name (in->file);

          g_ptr_array_add (problems, g_strdup_printf (_("its image %s is missing, so the current "
                                                        "image stays"), parse));
          continue;
        }
      if (in->missing)
        {
          g_ptr_array_add (problems, g_strdup_printf (_("the sample “%s” is not part of this "
                                                        "version, so the current image stays"),
                                                      in->sample));
          continue;
        }
      switch (in->kind)
        {
        case INPUT_FILE:
          _ks_window_open_file (window, in->file, slot);
          break;
        case INPUT_SAMPLE:
          if (slot == KS_INPUT_A)
            ks_window_open_named_sample (window, in->sample);
          else
            {
              g_autofree char *path = g_strconcat (SAMPLE_RESOURCE_DIR, in->sample, ".png", NULL);
              g_autofree char *uri = g_strconcat ("resource://", path, NULL);
              g_autoptr (GFile) file = g_file_new_for_uri (uri);

              /* Read in the window's loading thread, as a file would be. */
              _ks_window_open_file (window, file, slot);
            }
          break;
        case INPUT_EMBEDDED:
          _ks_window_open_image (window, in->image, in->name, slot);
          break;
        case INPUT_NONE:
        default:
          g_assert_not_reached ();
        }
      a_set |= slot == KS_INPUT_A;
    }
  return a_set;
}

static void
apply_op (const KsSession *session, KsWindow *window, GPtrArray *problems)
{
  KsPipeline *pipeline = window->pipeline;
  const KsOp *op;
  KsParams params;

  if (session->op_id == NULL)
    return;
  op = ks_op_registry_lookup (session->op_id);
  if (op == NULL)
    {
      g_ptr_array_add (problems, g_strdup_printf (_("its operation “%s” does not exist in this "
                                                    "version, so the operation and its "
                                                    "parameters stay as they were"),
                                                  session->op_id));
      return;
    }
  ks_params_init (&params, op);
  for (guint i = 0; i < session->params->len; i++)
    {
      const ParamValue *value = &g_array_index (session->params, ParamValue, i);
      g_autoptr (GError) error = NULL;
      const KsParamSpec *spec;
      KsParams trial = params;
      guint index;
      double v = value->number;

      spec = ks_op_lookup_param (op, value->name, &index);
      if (spec == NULL)
        {
          g_ptr_array_add (problems, g_strdup_printf (_("%s has no parameter “%s”"), op->title,
                                                      value->name));
          continue;
        }
      if (value->choice != NULL)
        {
          gboolean found = FALSE;

          for (guint c = 0; spec->type == KS_PARAM_CHOICE && spec->choices[c] != NULL; c++)
            if (g_str_equal (spec->choices[c], value->choice))
              {
                v = c;
                found = TRUE;
              }
          if (!found)
            {
              g_ptr_array_add (problems, g_strdup_printf (_("the parameter “%s” has no value "
                                                            "“%s”, so it keeps its default"),
                                                          value->name, value->choice));
              continue;
            }
        }
      trial.values[index] = v;
      if (!ks_params_validate (&trial, op, &error))
        {
          g_ptr_array_add (problems, g_strdup_printf (_("the parameter “%s” keeps its default "
                                                        "(%s)"), value->name, error->message));
          continue;
        }
      params = trial;
    }
  ks_pipeline_set_op (pipeline, op);
  for (guint p = 0; p < op->n_params; p++)
    ks_pipeline_set_param (pipeline, p, params.values[p]);
}

static void
apply_view (const KsSession *session, KsWindow *window)
{
  KsImageView *view = window->view;

  if (session->has_overlay)
    ks_image_view_set_overlay (view, session->overlay);
  if (!isnan (session->overlay_opacity))
    ks_image_view_set_overlay_opacity (view, session->overlay_opacity);
  if (!isnan (session->split))
    {
      /* Through the slider's adjustment, which moves the view's split too. */
      GtkAdjustment *adjustment = window->split_adjustment;

      if (GTK_IS_ADJUSTMENT (adjustment))
        gtk_adjustment_set_value (adjustment, session->split);
      else
        ks_image_view_set_split (view, session->split);
    }
  if (session->zoom_fit)
    ks_image_view_zoom_fit (view);
  else if (!isnan (session->zoom))
    ks_image_view_set_zoom (view, session->zoom);
}

/* Whether the text has a __global__ function of the pick's name ("scale"
 * for "scale<float>"). */
static gboolean
text_has_kernel (const KsSession *session, const char *pick)
{
  g_autoptr (KsKernelSource) source = ks_kernel_source_new (session->kernel_mode, "kernel.cu",
                                                            session->kernel_source);
  const char *lt = strchr (pick, '<');
  g_autofree char *base = g_strndup (pick, lt != NULL ? (gsize) (lt - pick) : strlen (pick));

  return g_strv_contains (ks_kernel_source_get_kernels (source), base);
}

static void
apply_kernel (const KsSession *session, KsWindow *window, GPtrArray *problems)
{
  KsKernelPanel *panel = window->kernel_panel;
  KsPipeline *pipeline = window->pipeline;

  if (!session->has_kernel)
    return;
  ks_kernel_panel_set_mode (panel, session->kernel_mode);
  if (session->kernel_include_dirs != NULL)
    ks_kernel_panel_set_include_dirs (panel, (const char *const *) session->kernel_include_dirs);
  /* The values wait in the pipeline until the kernel has compiled. */
  ks_pipeline_forget_user_params (pipeline);
  for (guint i = 0; i < session->kernel_params->len; i++)
    {
      const ParamValue *value = &g_array_index (session->kernel_params, ParamValue, i);

      ks_pipeline_remember_user_param (pipeline, value->name, value->number);
    }
  if (session->has_declared)
    {
      /* Back as the form, which generates the source again. */
      const SessionDeclaration *d = &session->declared;
      KsDeclaration declaration = {
        .kind = d->kind, .name = d->name, .arguments = d->arguments, .operation = d->operation,
        .map_expr = d->map_expr, .reduce_expr = d->reduce_expr, .neutral = d->neutral,
        .dtype = d->dtype, .preamble = d->preamble, .out_of_place = d->out_of_place,
      };

      ks_kernel_panel_set_declaration (panel, &declaration);
    }
  else
    {
      ks_kernel_panel_set_text (panel, session->kernel_source);
      if (session->kernel_entry != NULL && !text_has_kernel (session, session->kernel_entry))
        g_ptr_array_add (problems, g_strdup_printf (_("its kernel’s text has no kernel “%s”, so "
                                                      "the text decides which of its kernels "
                                                      "runs"), session->kernel_entry));
      else if (session->kernel_entry != NULL)
        ks_kernel_panel_set_kernel (panel, session->kernel_entry);
    }
  if (session->kernel_visible != _ks_window_get_kernel_visible (window))
    _ks_window_set_kernel_visible (window, session->kernel_visible);
}

char *
_ks_session_apply (const KsSession *session, KsWindow *window, KsSessionApplyFlags flags,
                   gboolean *input_a_set)
{
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  gboolean a_set = FALSE;

  /* The device first: the inputs then go once, to the device they stay on. */
  apply_device (session, window, problems);
  if ((flags & KS_SESSION_APPLY_SKIP_INPUTS) == 0)
    a_set = apply_inputs (session, window, problems);
  apply_op (session, window, problems);
  if (session->has_launch)
    ks_pipeline_set_launch (window->pipeline, &session->launch);
  else if (session->launch_refused != NULL)
    g_ptr_array_add (problems, g_strdup_printf (_("its launch stays as it was (%s)"),
                                                session->launch_refused));
  apply_kernel (session, window, problems);
  apply_view (session, window);
  /* What the file's editor members got wrong, found when it was read. */
  for (guint i = 0; i < session->left_out->len; i++)
    g_ptr_array_add (problems, g_strdup (g_ptr_array_index (session->left_out, i)));
  if (input_a_set != NULL)
    *input_a_set = a_set;
  if (problems->len == 0)
    return NULL;
  g_ptr_array_add (problems, NULL);
  return g_strjoinv ("; ", (char **) problems->pdata);
}
