/* ks-session-write.c: a session made and written — what a window shows
 * captured into a KsSession, the session serialised as the JSON document
 * (embedded images encoded as PNG), and the document written atomically
 * to a file in a thread. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gdk-pixbuf/gdk-pixbuf.h>

#include "ks-json.h"
#include "ks-op-registry.h"
#include "ks-session-private.h"

/* ---- capture -------------------------------------------------------------- */

/* A bundled sample reached through its resource URI counts as the sample. */
static char *
sample_of_file (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  const char *prefix = "resource://" SAMPLE_RESOURCE_DIR;
  g_autofree char *name = NULL;

  if (!g_str_has_prefix (uri, prefix) || !g_str_has_suffix (uri, ".png"))
    return NULL;
  name = g_strndup (uri + strlen (prefix), strlen (uri) - strlen (prefix) - strlen (".png"));
  return strchr (name, '/') == NULL ? g_steal_pointer (&name) : NULL;
}

/* The values a session left for a kernel that has not compiled yet, so that
 * they are not lost; else the running kernel's. */
static void
capture_kernel_params (KsPipeline *pipeline, GArray *out)
{
  KsKernelSource *kernel = ks_pipeline_get_user_kernel (pipeline);
  GHashTable *remembered = ks_pipeline_get_remembered_user_params (pipeline);

  if (remembered != NULL)
    {
      /* In name order, so that saving twice writes the same file. */
      g_autoptr (GList) names = g_list_sort (g_hash_table_get_keys (remembered),
                                             (GCompareFunc) strcmp);

      for (GList *l = names; l != NULL; l = l->next)
        {
          ParamValue value = { .name = g_strdup (l->data),
                               .number = *(const double *) g_hash_table_lookup (remembered,
                                                                                l->data) };
          g_array_append_val (out, value);
        }
    }
  else if (kernel != NULL)
    {
      guint n_specs = 0;
      const KsParamSpec *specs = ks_kernel_source_get_params (kernel, &n_specs);
      const KsParams *values = ks_pipeline_get_user_params (pipeline);

      for (guint i = 0; i < n_specs && i < KS_OP_MAX_PARAMS; i++)
        {
          ParamValue value = { .name = g_strdup (specs[i].name), .number = values->values[i] };
          g_array_append_val (out, value);
        }
    }
}

/* The declaration form's kind and the pieces its kind reads. */
static void
capture_declaration (const KsDeclaration *from, SessionDeclaration *d)
{
  gboolean scan = from->kind == KS_DECLARED_INCLUSIVE_SCAN
                  || from->kind == KS_DECLARED_EXCLUSIVE_SCAN;

  d->kind = from->kind;
  d->name = g_strdup (from->name);
  d->preamble = from->preamble != NULL && *from->preamble != '\0' ? g_strdup (from->preamble)
                                                                   : NULL;
  if (from->kind == KS_DECLARED_ELEMENTWISE || from->kind == KS_DECLARED_REDUCTION)
    d->arguments = g_strdup (from->arguments);
  if (from->kind == KS_DECLARED_ELEMENTWISE)
    d->operation = g_strdup (from->operation);
  if (from->kind == KS_DECLARED_REDUCTION)
    d->map_expr = g_strdup (from->map_expr);
  if (from->kind != KS_DECLARED_ELEMENTWISE)
    {
      d->reduce_expr = g_strdup (from->reduce_expr);
      d->dtype = g_strdup (from->dtype);
    }
  if (from->kind == KS_DECLARED_REDUCTION || from->kind == KS_DECLARED_EXCLUSIVE_SCAN)
    d->neutral = g_strdup (from->neutral);
  d->out_of_place = scan && from->out_of_place;
}

KsSession *
_ks_session_capture (KsWindow *window)
{
  KsPipeline *pipeline;
  KsImageView *view;
  KsKernelPanel *panel;
  KsSession *session;
  const KsOp *op;
  KsDevice *device;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  pipeline = window->pipeline;
  g_return_val_if_fail (pipeline != NULL, NULL);
  view = window->view;
  panel = window->kernel_panel;
  session = _ks_session_new ();

  for (guint slot = KS_INPUT_A; slot <= KS_INPUT_B; slot++)
    {
      KsImage *image = ks_pipeline_get_input (pipeline, slot);
      GFile *file = _ks_window_get_input_file (window, slot);
      const char *sample = _ks_window_get_input_sample (window, slot);
      SessionInput *in = &session->inputs[slot];
      g_autofree char *resource_sample = NULL;

      if (image == NULL)
        continue;
      in->name = g_strdup (ks_pipeline_get_input_name (pipeline, slot));
      if (file != NULL)
        resource_sample = sample_of_file (file);
      if (sample != NULL || resource_sample != NULL)
        {
          in->kind = INPUT_SAMPLE;
          in->sample = g_strdup (sample != NULL ? sample : resource_sample);
        }
      else if (file != NULL)
        {
          in->kind = INPUT_FILE;
          in->file = g_object_ref (file);
        }
      else
        {
          /* Pasted, or the test card: only its pixels say what it was. */
          in->kind = INPUT_EMBEDDED;
          in->image = ks_image_ref (image);
        }
    }

  op = ks_pipeline_get_op (pipeline);
  if (op != NULL)
    {
      const KsParams *params = ks_pipeline_get_params (pipeline);

      session->op_id = g_strdup (op->id);
      for (guint p = 0; p < op->n_params; p++)
        {
          const KsParamSpec *spec = &op->params[p];
          ParamValue value = { .name = g_strdup (spec->name), .number = params->values[p] };

          if (spec->type == KS_PARAM_CHOICE && params->values[p] >= 0
              && params->values[p] < g_strv_length ((char **) spec->choices))
            value.choice = g_strdup (spec->choices[(guint) params->values[p]]);
          g_array_append_val (session->params, value);
        }
    }

  session->has_launch = TRUE;
  session->launch = *ks_pipeline_get_launch (pipeline);

  device = ks_pipeline_get_device (pipeline);
  if (device != NULL)
    session->device_id = g_strdup (ks_device_get_id (device));

  session->has_overlay = TRUE;
  session->overlay = ks_image_view_get_overlay (view);
  session->overlay_opacity = ks_image_view_get_overlay_opacity (view);
  session->split = ks_image_view_get_split (view);
  session->zoom_fit = ks_image_view_get_fit (view);
  if (!session->zoom_fit)
    session->zoom = ks_image_view_get_zoom (view);

  buffer = GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (panel));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  session->has_kernel = TRUE;
  session->kernel_source = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  session->kernel_mode = ks_kernel_panel_get_mode (panel);
  session->kernel_visible = _ks_window_get_kernel_visible (window);
  capture_kernel_params (pipeline, session->kernel_params);
  session->kernel_include_dirs = g_strdupv ((char **) ks_kernel_panel_get_include_dirs (panel));
  session->kernel_entry = g_strdup (ks_kernel_panel_get_kernel (panel));
  {
    KsDeclaration declaration;

    session->has_declared = ks_kernel_panel_get_declaration (panel, &declaration);
    if (session->has_declared)
      capture_declaration (&declaration, &session->declared);
  }
  return session;
}

/* ---- writing -------------------------------------------------------------- */

static char *
encode_png_base64 (const KsImage *image, GError **error)
{
  g_autoptr (KsImage) rgba = ks_image_to_rgba (image);
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autofree char *png = NULL;
  gsize size = 0;

  /* Straight (not premultiplied) RGBA, as KsImage holds it: PNG keeps it exact. */
  pixbuf = gdk_pixbuf_new_from_data (rgba->data, GDK_COLORSPACE_RGB, TRUE, 8, (int) rgba->width,
                                     (int) rgba->height, (int) rgba->stride, NULL, NULL);
  if (!gdk_pixbuf_save_to_buffer (pixbuf, &png, &size, "png", error, NULL))
    return NULL;
  return g_base64_encode ((const guchar *) png, size);
}

static void
add_string_member (JsonBuilder *builder, const char *name, const char *value)
{
  if (value == NULL)
    return;
  json_builder_set_member_name (builder, name);
  ks_json_add_string (builder, value);
}

/* kernel.declared, by PyCUDA's names for the pieces of each kind. */
static void
build_declaration (JsonBuilder *builder, const SessionDeclaration *d)
{
  gboolean scan = d->kind == KS_DECLARED_INCLUSIVE_SCAN || d->kind == KS_DECLARED_EXCLUSIVE_SCAN;

  json_builder_set_member_name (builder, "declared");
  json_builder_begin_object (builder);
  add_string_member (builder, "kind", ks_declared_kind_name (d->kind));
  add_string_member (builder, "name", d->name);
  add_string_member (builder, "arguments", d->arguments);
  add_string_member (builder, "operation", d->operation);
  add_string_member (builder, "map_expr", d->map_expr);
  add_string_member (builder, scan ? "scan_expr" : "reduce_expr", d->reduce_expr);
  add_string_member (builder, "neutral", d->neutral);
  add_string_member (builder, scan ? "dtype" : "dtype_out", d->dtype);
  add_string_member (builder, "preamble", d->preamble);
  if (scan)
    {
      json_builder_set_member_name (builder, "out_of_place");
      json_builder_add_boolean_value (builder, d->out_of_place);
    }
  json_builder_end_object (builder);
}

static gboolean
build_input (JsonBuilder *builder, const char *key, const SessionInput *in, GError **error)
{
  json_builder_set_member_name (builder, key);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  ks_json_add_string (builder, in->name);
  switch (in->kind)
    {
    case INPUT_FILE:
      {
        g_autofree char *path = g_file_get_path (in->file);
        g_autofree char *uri = path == NULL ? g_file_get_uri (in->file) : NULL;

        json_builder_set_member_name (builder, path != NULL ? "path" : "uri");
        json_builder_add_string_value (builder, path != NULL ? path : uri);
      }
      break;
    case INPUT_SAMPLE:
      json_builder_set_member_name (builder, "sample");
      json_builder_add_string_value (builder, in->sample);
      break;
    case INPUT_EMBEDDED:
      {
        g_autofree char *png = encode_png_base64 (in->image, error);

        if (png == NULL)
          return FALSE;
        json_builder_set_member_name (builder, "png");
        json_builder_add_string_value (builder, png);
      }
      break;
    case INPUT_NONE:
    default:
      g_assert_not_reached ();
    }
  json_builder_end_object (builder);
  return TRUE;
}

char *
ks_session_to_json (const KsSession *session, gsize *length, GError **error)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  char *text;

  g_return_val_if_fail (session != NULL, NULL);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, KS_SESSION_FORMAT);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, KS_SESSION_VERSION);
  json_builder_set_member_name (builder, "generator");
  json_builder_add_string_value (builder, PACKAGE_NAME " " PACKAGE_VERSION);

  json_builder_set_member_name (builder, "inputs");
  json_builder_begin_object (builder);
  for (guint slot = 0; slot < G_N_ELEMENTS (session->inputs); slot++)
    if (session->inputs[slot].kind != INPUT_NONE
        && !build_input (builder, slot == KS_INPUT_A ? "a" : "b", &session->inputs[slot], error))
      return NULL;
  json_builder_end_object (builder);

  if (session->op_id != NULL)
    {
      json_builder_set_member_name (builder, "op");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, session->op_id);
      json_builder_set_member_name (builder, "parameters");
      json_builder_begin_object (builder);
      for (guint i = 0; i < session->params->len; i++)
        {
          const ParamValue *value = &g_array_index (session->params, ParamValue, i);
          const KsOp *op = ks_op_registry_lookup (session->op_id);
          const KsParamSpec *spec = op != NULL ? ks_op_lookup_param (op, value->name, NULL) : NULL;

          json_builder_set_member_name (builder, value->name);
          if (value->choice != NULL)
            json_builder_add_string_value (builder, value->choice);
          else if (spec != NULL && spec->type == KS_PARAM_BOOL)
            json_builder_add_boolean_value (builder, value->number != 0);
          else if (spec != NULL && spec->type == KS_PARAM_INT)
            json_builder_add_int_value (builder, (gint64) value->number);
          else
            ks_json_add_number (builder, value->number);
        }
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }

  if (session->has_launch)
    ks_json_add_launch (builder, "launch", &session->launch, KS_JSON_LAUNCH_NONE);

  if (session->device_id != NULL)
    {
      json_builder_set_member_name (builder, "engine");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "device");
      json_builder_add_string_value (builder, session->device_id);
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "view");
  json_builder_begin_object (builder);
  if (session->has_overlay)
    {
      json_builder_set_member_name (builder, "overlay");
      json_builder_add_string_value (builder, ks_overlay_mode_to_string (session->overlay));
    }
  if (!isnan (session->overlay_opacity))
    {
      json_builder_set_member_name (builder, "overlay_opacity");
      ks_json_add_number (builder, session->overlay_opacity);
    }
  if (!isnan (session->split))
    {
      json_builder_set_member_name (builder, "split");
      ks_json_add_number (builder, session->split);
    }
  if (session->zoom_fit || !isnan (session->zoom))
    {
      json_builder_set_member_name (builder, "zoom");
      if (session->zoom_fit)
        json_builder_add_string_value (builder, "fit");
      else
        ks_json_add_number (builder, session->zoom);
    }
  json_builder_end_object (builder);

  if (session->has_kernel)
    {
      json_builder_set_member_name (builder, "kernel");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "visible");
      json_builder_add_boolean_value (builder, session->kernel_visible);
      json_builder_set_member_name (builder, "mode");
      json_builder_add_string_value (builder, ks_kernel_mode_name (session->kernel_mode));
      json_builder_set_member_name (builder, "source");
      ks_json_add_string (builder, session->kernel_source);
      if (session->kernel_include_dirs != NULL)
        {
          json_builder_set_member_name (builder, "include_dirs");
          json_builder_begin_array (builder);
          for (guint i = 0; session->kernel_include_dirs[i] != NULL; i++)
            ks_json_add_string (builder, session->kernel_include_dirs[i]);
          json_builder_end_array (builder);
        }
      add_string_member (builder, "entry", session->kernel_entry);
      if (session->has_declared)
        build_declaration (builder, &session->declared);
      if (session->kernel_params->len > 0)
        {
          json_builder_set_member_name (builder, "parameters");
          json_builder_begin_object (builder);
          for (guint i = 0; i < session->kernel_params->len; i++)
            {
              const ParamValue *value = &g_array_index (session->kernel_params, ParamValue, i);

              json_builder_set_member_name (builder, value->name);
              ks_json_add_number (builder, value->number);
            }
          json_builder_end_object (builder);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  text = ks_json_to_data (root);
  if (length != NULL)
    *length = strlen (text);
  return text;
}


/* ---- saving --------------------------------------------------------------- */

typedef struct
{
  KsSession *session;
  GFile *file;
  gboolean private;   /* the last session: only the user may read it; its folder may be new */
} SaveJob;

static void
save_job_free (gpointer data)
{
  SaveJob *job = data;

  ks_session_free (job->session);
  g_object_unref (job->file);
  g_free (job);
}

static void
save_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SaveJob *job = task_data;
  g_autofree char *text = NULL;
  gsize length = 0;
  GError *error = NULL;

  text = ks_session_to_json (job->session, &length, &error);
  if (text == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (job->private)
    {
      g_autoptr (GFile) dir = g_file_get_parent (job->file);

      if (!g_file_make_directory_with_parents (dir, cancellable, &error))
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
            {
              g_task_return_error (task, error);
              return;
            }
          g_clear_error (&error);
        }
    }
  /* A temporary beside the file, renamed over it once complete: the old
   * session survives a full disk or a crash. */
  if (!g_file_replace_contents (job->file, text, length, NULL, FALSE,
                                job->private ? G_FILE_CREATE_PRIVATE : G_FILE_CREATE_NONE, NULL,
                                cancellable, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
_ks_session_save_async (KsSession *session, GFile *file, gboolean private,
                        GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  SaveJob *job = g_new0 (SaveJob, 1);

  job->session = session;
  job->file = g_object_ref (file);
  job->private = private;
  g_task_set_source_tag (task, ks_session_save_async);
  g_task_set_task_data (task, job, save_job_free);
  g_task_run_in_thread (task, save_thread);
}

void
ks_session_save_async (KsSession *session, GFile *file, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (session != NULL && G_IS_FILE (file));
  _ks_session_save_async (session, file, FALSE, cancellable, callback, user_data);
}

gboolean
ks_session_save_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
