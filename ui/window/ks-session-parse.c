/* ks-session-parse.c: the KsSession record, and reading one — a file of at
 * most KS_SESSION_MAX_BYTES loaded (in a thread for the async call), parsed
 * as JSON and validated member by member, its embedded images decoded.
 * Anything the document gets wrong refuses it whole, with one clause that
 * says what (ks-session-private.h says why reading is kept apart from
 * applying). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-json.h"
#include "ks-session-private.h"

#define ZOOM_MIN (1.0 / 64.0)
#define ZOOM_MAX 256.0

static void
param_value_clear (gpointer data)
{
  ParamValue *value = data;

  g_free (value->name);
  g_free (value->choice);
}

KsSession *
_ks_session_new (void)
{
  KsSession *session = g_new0 (KsSession, 1);

  session->params = g_array_new (FALSE, TRUE, sizeof (ParamValue));
  g_array_set_clear_func (session->params, param_value_clear);
  session->kernel_params = g_array_new (FALSE, TRUE, sizeof (ParamValue));
  g_array_set_clear_func (session->kernel_params, param_value_clear);
  session->left_out = g_ptr_array_new_with_free_func (g_free);
  session->overlay_opacity = NAN;
  session->split = NAN;
  session->zoom = NAN;
  return session;
}

void
ks_session_free (KsSession *session)
{
  if (session == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (session->inputs); i++)
    {
      SessionInput *in = &session->inputs[i];

      g_free (in->name);
      g_clear_object (&in->file);
      g_free (in->sample);
      g_clear_pointer (&in->image, ks_image_unref);
    }
  g_free (session->op_id);
  g_array_unref (session->params);
  g_free (session->device_id);
  g_free (session->launch_refused);
  g_free (session->kernel_source);
  g_array_unref (session->kernel_params);
  g_strfreev (session->kernel_include_dirs);
  g_free (session->kernel_entry);
  _ks_session_declaration_clear (&session->declared);
  g_ptr_array_unref (session->left_out);
  g_free (session);
}

void
_ks_session_declaration_clear (SessionDeclaration *d)
{
  g_free (d->name);
  g_free (d->arguments);
  g_free (d->operation);
  g_free (d->map_expr);
  g_free (d->reduce_expr);
  g_free (d->neutral);
  g_free (d->dtype);
  g_free (d->preamble);
  memset (d, 0, sizeof *d);
}

const char *
ks_session_get_op_id (const KsSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->op_id;
}

static gboolean G_GNUC_PRINTF (2, 3)
refuse (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

/* A member of the object, or NULL when it is absent or null. */
static JsonNode *
member (JsonObject *object, const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

static gboolean
get_object (JsonObject *parent, const char *name, const char *where, JsonObject **out,
            GError **error)
{
  JsonNode *node = member (parent, name);

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return refuse (error, _("“%s” must be an object"), where);
  *out = json_node_get_object (node);
  return TRUE;
}

static gboolean
get_string (JsonObject *parent, const char *name, const char *where, const char **out,
            GError **error)
{
  JsonNode *node = member (parent, name);

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return refuse (error, _("“%s” must be a string"), where);
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
get_boolean (JsonObject *parent, const char *name, const char *where, gboolean *present,
             gboolean *out, GError **error)
{
  JsonNode *node = member (parent, name);

  *present = node != NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return refuse (error, _("“%s” must be true or false"), where);
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* A finite number, integer or not. */
static gboolean
node_number (JsonNode *node, double *out)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return isfinite (*out);
}

static gboolean
get_number (JsonObject *parent, const char *name, const char *where, double min, double max,
            double *out, GError **error)
{
  JsonNode *node = member (parent, name);

  *out = NAN;
  if (node == NULL)
    return TRUE;
  if (!node_number (node, out))
    return refuse (error, _("“%s” must be a number"), where);
  if (*out < min || *out > max)
    return refuse (error, _("“%s” is %g, out of its range %g to %g"), where, *out, min, max);
  return TRUE;
}

/* Whole numbers (1 and 1.0 alike) in [min, max]. */
static gboolean
node_whole (JsonNode *node, guint64 min, guint64 max, guint *out)
{
  double v;

  if (!node_number (node, &v) || v != floor (v) || v < (double) min || v > (double) max)
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

static gboolean
get_dim3 (JsonObject *parent, const char *name, const char *where, guint64 min,
          const guint64 max[3], KsDim3 *out, GError **error)
{
  JsonNode *node = member (parent, name);
  JsonArray *array;
  guint values[3];

  if (node == NULL)
    return refuse (error, _("“%s” is missing"), where);
  if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) != 3)
    return refuse (error, _("“%s” must be a list of three whole numbers"), where);
  array = json_node_get_array (node);
  for (guint i = 0; i < 3; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      double v;

      if (!node_number (element, &v) || v != floor (v))
        return refuse (error, _("“%s” must be a list of three whole numbers"), where);
      if (!node_whole (element, min, max[i], &values[i]))
        {
          g_autofree char *lo = g_strdup_printf ("%" G_GUINT64_FORMAT, min);
          g_autofree char *hi = g_strdup_printf ("%" G_GUINT64_FORMAT, max[i]);

          return refuse (error, _("“%s” holds %g, out of its range %s to %s"), where, v, lo, hi);
        }
    }
  *out = (KsDim3) { values[0], values[1], values[2] };
  return TRUE;
}

/* By the launch rule (ks_launch_config_check_limits): a launch of the wrong
 * shape (a zero side, 3 pixels a thread) is a broken file, refused; one past
 * the CPU device's limits, which are CUDA's (a file names no device it must
 * run on, and the settings' last launch is judged the same way), is one the
 * launch panel can hold but no device can run: a problem of the restore,
 * not of the file. *refused then says why, and the rest of the session
 * comes back. */
static gboolean
read_launch (JsonObject *object, KsLaunchConfig *l, char **refused, GError **error)
{
  static const guint64 dim_max[3] = { G_MAXUINT32, G_MAXUINT32, G_MAXUINT32 };
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autoptr (GError) local = NULL;
  gboolean present = FALSE, auto_grid = FALSE;
  const char *mode = NULL, *field = NULL;
  JsonNode *ppt;

  if (!get_dim3 (object, "block", "launch.block", 0, dim_max, &l->block, error)
      || !get_boolean (object, "auto_grid", "launch.auto_grid", &present, &auto_grid, error))
    return FALSE;
  if (!present)
    return refuse (error, _("“%s” is missing"), "launch.auto_grid");
  l->auto_grid = auto_grid;
  if (!get_dim3 (object, "grid", "launch.grid", 0, dim_max, &l->grid, error)
      || !get_string (object, "mode", "launch.mode", &mode, error))
    return FALSE;
  if (mode == NULL)
    return refuse (error, _("“%s” is missing"), "launch.mode");
  if (!ks_launch_mode_from_string (mode, &l->mode))
    return refuse (error, _("“%s” must be one of %s"), "launch.mode", "per-pixel, grid-stride");
  ppt = member (object, "pixels_per_thread");
  if (ppt == NULL)
    return refuse (error, _("“%s” is missing"), "launch.pixels_per_thread");
  if (!node_whole (ppt, 0, G_MAXUINT32, &l->pixels_per_thread))
    return refuse (error, _("“%s” must be a whole number"), "launch.pixels_per_thread");
  if (!ks_launch_config_check_limits (l, NULL, &field, &local))
    {
      g_autofree char *where = g_strconcat ("launch.", field, NULL);

      return refuse (error, _("“%s” cannot be launched: %s"), where, local->message);
    }
  if (!ks_launch_config_check_limits (l, ks_device_get_limits (cpu), &field, &local))
    {
      g_autofree char *where = g_strconcat ("launch.", field, NULL);

      *refused = g_strdup_printf (_("“%s” cannot be launched: %s"), where, local->message);
    }
  return TRUE;
}

static gboolean
read_params (JsonObject *object, KsSession *session, GError **error)
{
  g_autoptr (GList) names = object != NULL ? json_object_get_members (object) : NULL;

  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (object, name);
      g_autofree char *where = g_strdup_printf ("op.parameters.%s", name);
      ParamValue value = { 0 };

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
        value.number = json_node_get_boolean (node) ? 1 : 0;
      else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        value.choice = g_strdup (json_node_get_string (node));
      else if (!node_number (node, &value.number))
        return refuse (error, _("“%s” must be a number, true or false, or a choice’s name"),
                       where);
      value.name = g_strdup (name);
      g_array_append_val (session->params, value);
    }
  return TRUE;
}

/* Names of bundled samples are plain words: nothing that reaches outside
 * the samples' folder. */
static gboolean
sample_exists (const char *name)
{
  g_autofree char *path = NULL;

  for (const char *c = name; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && *c != '-' && *c != '_')
      return FALSE;
  path = g_strconcat (SAMPLE_RESOURCE_DIR, name, ".png", NULL);
  return *name != '\0' && g_resources_get_info (path, 0, NULL, NULL, NULL);
}

static gboolean
is_png (GBytes *bytes)
{
  static const guint8 signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  return size >= sizeof signature && memcmp (data, signature, sizeof signature) == 0;
}

static gboolean
read_input (JsonObject *object, const char *key, GFile *base_dir, SessionInput *in,
            GError **error)
{
  g_autofree char *where = g_strdup_printf ("inputs.%s", key);
  g_autofree char *where_name = g_strdup_printf ("inputs.%s.name", key);
  g_autofree char *where_path = g_strdup_printf ("inputs.%s.path", key);
  g_autofree char *where_uri = g_strdup_printf ("inputs.%s.uri", key);
  g_autofree char *where_sample = g_strdup_printf ("inputs.%s.sample", key);
  g_autofree char *where_png = g_strdup_printf ("inputs.%s.png", key);
  JsonObject *input;
  const char *name, *path, *uri, *sample, *png;

  if (!get_object (object, key, where, &input, error))
    return FALSE;
  if (input == NULL)
    return TRUE;
  if (!get_string (input, "name", where_name, &name, error)
      || !get_string (input, "path", where_path, &path, error)
      || !get_string (input, "uri", where_uri, &uri, error)
      || !get_string (input, "sample", where_sample, &sample, error)
      || !get_string (input, "png", where_png, &png, error))
    return FALSE;
  if ((path != NULL) + (uri != NULL) + (sample != NULL) + (png != NULL) != 1)
    return refuse (error, _("“%s” must give exactly one of “path”, “uri”, “sample” or “png”"),
                   where);

  if (path != NULL || uri != NULL)
    {
      in->kind = INPUT_FILE;
      if (uri != NULL)
        in->file = g_file_new_for_uri (uri);
      else if (g_path_is_absolute (path) || base_dir == NULL)
        in->file = g_file_new_for_path (path);
      else
        in->file = g_file_resolve_relative_path (base_dir, path);
      in->missing = !g_file_query_exists (in->file, NULL);
      in->name = name != NULL ? g_strdup (name) : g_file_get_basename (in->file);
    }
  else if (sample != NULL)
    {
      in->kind = INPUT_SAMPLE;
      in->sample = g_strdup (sample);
      in->missing = !sample_exists (sample);
      in->name = name != NULL ? g_strdup (name) : g_strconcat (sample, ".png", NULL);
    }
  else
    {
      gsize size = 0;
      guchar *data = g_base64_decode (png, &size);
      g_autoptr (GBytes) bytes = g_bytes_new_take (data, size);
      g_autoptr (GError) local = NULL;

      if (!is_png (bytes))
        return refuse (error, _("the embedded image of “%s” is not a PNG image"), where);
      in->image = ks_image_load_bytes (bytes, &local);
      if (in->image == NULL)
        return refuse (error, _("the embedded image of “%s” could not be read: %s"), where,
                       local->message);
      in->kind = INPUT_EMBEDDED;
      in->name = g_strdup (name != NULL ? name : _("Embedded image"));
    }
  return TRUE;
}

static gboolean
read_view (JsonObject *view, KsSession *session, GError **error)
{
  const char *overlay = NULL;
  JsonNode *zoom;

  if (!get_string (view, "overlay", "view.overlay", &overlay, error)
      || !get_number (view, "overlay_opacity", "view.overlay_opacity", 0, 1,
                      &session->overlay_opacity, error)
      || !get_number (view, "split", "view.split", 0, 1, &session->split, error))
    return FALSE;
  if (overlay != NULL)
    {
      if (!ks_overlay_mode_from_string (overlay, &session->overlay))
        return refuse (error, _("“%s” must be one of %s"), "view.overlay",
                       "none, block, thread, warp, coverage");
      session->has_overlay = TRUE;
    }
  zoom = member (view, "zoom");
  if (zoom != NULL && JSON_NODE_HOLDS_VALUE (zoom)
      && json_node_get_value_type (zoom) == G_TYPE_STRING)
    {
      if (!g_str_equal (json_node_get_string (zoom), "fit"))
        return refuse (error, _("“%s” must be “fit” or a number"), "view.zoom");
      session->zoom_fit = TRUE;
    }
  else if (zoom != NULL)
    {
      if (!node_number (zoom, &session->zoom))
        return refuse (error, _("“%s” must be “fit” or a number"), "view.zoom");
      if (session->zoom < ZOOM_MIN || session->zoom > ZOOM_MAX)
        return refuse (error, _("“%s” is %g, out of its range %g to %g"), "view.zoom",
                       session->zoom, ZOOM_MIN, ZOOM_MAX);
    }
  return TRUE;
}

/* ---- the editor's additions: left out on their own when wrong ------------ */

static void G_GNUC_PRINTF (2, 3)
leave_out (KsSession *session, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (session->left_out, g_strdup_vprintf (format, args));
  va_end (args);
}

static gboolean
node_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

/* kernel.include_dirs: folders, a relative one taken from the session
 * file's folder. One that is not there is left out and named; a value that
 * is no list of names leaves the editor's folders as they are. */
static void
read_include_dirs (JsonObject *kernel, GFile *base_dir, KsSession *session)
{
  JsonNode *node = member (kernel, "include_dirs");
  g_autoptr (GStrvBuilder) dirs = NULL;
  JsonArray *array;

  if (node == NULL)
    return;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      leave_out (session, _("“%s” must be a list of folders, so the kernel editor’s include "
                            "folders stay as they were"), "kernel.include_dirs");
      return;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (!node_is_string (json_array_get_element (array, i))
        || *json_array_get_string_element (array, i) == '\0')
      {
        leave_out (session, _("“%s” holds something that is not a folder’s name (item %u), so "
                              "the kernel editor’s include folders stay as they were"),
                   "kernel.include_dirs", i + 1);
        return;
      }
  dirs = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      const char *path = json_array_get_string_element (array, i);
      g_autoptr (GFile) folder = g_path_is_absolute (path) || base_dir == NULL
                                   ? g_file_new_for_path (path)
                                   : g_file_resolve_relative_path (base_dir, path);
      g_autofree char *resolved = g_file_get_path (folder);

      if (resolved == NULL
          || g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
        {
          leave_out (session, _("its include folder %s is not there, so the kernel editor does "
                                "not search it"), path);
          continue;
        }
      g_strv_builder_add (dirs, resolved);
    }
  session->kernel_include_dirs = g_strv_builder_end (dirs);
}

/* kernel.declared: the declaration form's kind and pieces, by PyCUDA's
 * names. Anything wrong in it leaves the declaration out: the editor gets
 * the generated source (kernel.source) as text. */
static gboolean
read_declaration (JsonObject *object, SessionDeclaration *d, char **why)
{
  const struct
  {
    const char *name;
    char **field;
    guint kinds;   /* bit per KsDeclaredKind that reads it */
  } pieces[] = {
    { "name", &d->name, 0xf },
    { "arguments", &d->arguments, 1 << KS_DECLARED_ELEMENTWISE | 1 << KS_DECLARED_REDUCTION },
    { "operation", &d->operation, 1 << KS_DECLARED_ELEMENTWISE },
    { "map_expr", &d->map_expr, 1 << KS_DECLARED_REDUCTION },
    { "reduce_expr", &d->reduce_expr, 1 << KS_DECLARED_REDUCTION },
    { "scan_expr", &d->reduce_expr,
      1 << KS_DECLARED_INCLUSIVE_SCAN | 1 << KS_DECLARED_EXCLUSIVE_SCAN },
    { "neutral", &d->neutral, 1 << KS_DECLARED_REDUCTION | 1 << KS_DECLARED_EXCLUSIVE_SCAN },
    { "dtype_out", &d->dtype, 1 << KS_DECLARED_REDUCTION },
    { "dtype", &d->dtype, 1 << KS_DECLARED_INCLUSIVE_SCAN | 1 << KS_DECLARED_EXCLUSIVE_SCAN },
    { "preamble", &d->preamble, 0xf },
  };
  JsonNode *kind = member (object, "kind");
  JsonNode *out_of_place = member (object, "out_of_place");

  if (kind == NULL)
    {
      *why = g_strdup_printf (_("“%s” is missing"), "kernel.declared.kind");
      return FALSE;
    }
  if (!node_is_string (kind) || !ks_declared_kind_parse (json_node_get_string (kind), &d->kind))
    {
      *why = g_strdup_printf (_("“%s” must be one of %s"), "kernel.declared.kind",
                              "elementwise, reduction, inclusive-scan, exclusive-scan");
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (pieces); i++)
    {
      JsonNode *node = member (object, pieces[i].name);

      if (node == NULL || (pieces[i].kinds & (1u << d->kind)) == 0)
        continue;
      if (!node_is_string (node))
        {
          *why = g_strdup_printf (_("“kernel.declared.%s” must be a string"), pieces[i].name);
          return FALSE;
        }
      g_free (*pieces[i].field);
      *pieces[i].field = g_strdup (json_node_get_string (node));
    }
  if (out_of_place != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (out_of_place)
          || json_node_get_value_type (out_of_place) != G_TYPE_BOOLEAN)
        {
          *why = g_strdup_printf (_("“%s” must be true or false"), "kernel.declared.out_of_place");
          return FALSE;
        }
      d->out_of_place = json_node_get_boolean (out_of_place);
    }
  return TRUE;
}

static void
read_kernel_additions (JsonObject *kernel, GFile *base_dir, KsSession *session)
{
  JsonNode *entry = member (kernel, "entry");
  JsonNode *declared = member (kernel, "declared");

  read_include_dirs (kernel, base_dir, session);
  if (entry != NULL && (!node_is_string (entry) || *json_node_get_string (entry) == '\0'))
    leave_out (session, _("“%s” must be a kernel’s name, so the kernel’s text decides which of "
                          "its kernels runs"), "kernel.entry");
  else if (entry != NULL)
    session->kernel_entry = g_strdup (json_node_get_string (entry));

  if (declared != NULL)
    {
      g_autofree char *why = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (declared))
        why = g_strdup_printf (_("“%s” must be an object"), "kernel.declared");
      else if (read_declaration (json_node_get_object (declared), &session->declared, &why))
        session->has_declared = TRUE;
      if (!session->has_declared)
        {
          _ks_session_declaration_clear (&session->declared);
          leave_out (session, _("its declared kernel cannot be read (%s), so the editor has the "
                                "kernel’s generated source as text"), why);
        }
    }
}

static gboolean
read_kernel (JsonObject *kernel, GFile *base_dir, KsSession *session, GError **error)
{
  const char *source = NULL, *mode = NULL;
  gboolean present = FALSE;
  JsonObject *params = NULL;
  g_autoptr (GList) names = NULL;

  if (!get_string (kernel, "source", "kernel.source", &source, error)
      || !get_string (kernel, "mode", "kernel.mode", &mode, error)
      || !get_boolean (kernel, "visible", "kernel.visible", &present, &session->kernel_visible,
                       error)
      || !get_object (kernel, "parameters", "kernel.parameters", &params, error))
    return FALSE;
  names = params != NULL ? json_object_get_members (params) : NULL;
  for (GList *l = names; l != NULL; l = l->next)
    {
      ParamValue value = { 0 };

      if (!node_number (json_object_get_member (params, l->data), &value.number))
        {
          g_autofree char *where = g_strdup_printf ("kernel.parameters.%s", (char *) l->data);
          return refuse (error, _("“%s” must be a number"), where);
        }
      value.name = g_strdup (l->data);
      g_array_append_val (session->kernel_params, value);
    }
  if (source == NULL)
    return refuse (error, _("“%s” is missing"), "kernel.source");
  if (mode == NULL)
    return refuse (error, _("“%s” is missing"), "kernel.mode");
  if (!ks_kernel_mode_parse (mode, &session->kernel_mode))
    return refuse (error, _("“%s” must be one of %s"), "kernel.mode", "expression, image, any");
  session->kernel_source = g_strdup (source);
  session->has_kernel = TRUE;
  read_kernel_additions (kernel, base_dir, session);
  return TRUE;
}

static gboolean
read_document (JsonNode *root, GFile *base_dir, KsSession *session, GError **error)
{
  JsonObject *top, *inputs, *op, *params, *launch, *engine, *view, *kernel;
  const char *format = NULL, *op_id = NULL, *device = NULL;
  JsonNode *version;
  double v;

  if (root == NULL)
    return refuse (error, _("it is empty"));
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return refuse (error, _("it is not a Kernelscope session (it holds no JSON object)"));
  top = json_node_get_object (root);
  if (!get_string (top, "format", "format", &format, error))
    return FALSE;
  if (g_strcmp0 (format, KS_SESSION_FORMAT) != 0)
    return refuse (error, _("it is not a Kernelscope session (its “format” is not “%s”)"),
                   KS_SESSION_FORMAT);
  version = member (top, "version");
  if (version == NULL)
    return refuse (error, _("“%s” is missing"), "version");
  if (!node_number (version, &v) || v != floor (v))
    return refuse (error, _("“%s” must be a whole number"), "version");
  if (v > KS_SESSION_VERSION)
    return refuse (error, _("it was written by a newer Kernelscope (session version %.0f; this "
                            "one reads version %d)"), v, KS_SESSION_VERSION);
  if (v < 1)
    return refuse (error, _("its “version” %.0f does not exist"), v);

  if (!get_object (top, "inputs", "inputs", &inputs, error)
      || !read_input (inputs, "a", base_dir, &session->inputs[KS_INPUT_A], error)
      || !read_input (inputs, "b", base_dir, &session->inputs[KS_INPUT_B], error))
    return FALSE;

  if (!get_object (top, "op", "op", &op, error))
    return FALSE;
  if (op != NULL)
    {
      if (!get_string (op, "id", "op.id", &op_id, error)
          || !get_object (op, "parameters", "op.parameters", &params, error)
          || !read_params (params, session, error))
        return FALSE;
      if (op_id == NULL)
        return refuse (error, _("“%s” is missing"), "op.id");
      session->op_id = g_strdup (op_id);
    }

  if (!get_object (top, "launch", "launch", &launch, error))
    return FALSE;
  if (launch != NULL)
    {
      if (!read_launch (launch, &session->launch, &session->launch_refused, error))
        return FALSE;
      session->has_launch = session->launch_refused == NULL;
    }

  if (!get_object (top, "engine", "engine", &engine, error)
      || !get_string (engine, "device", "engine.device", &device, error))
    return FALSE;
  session->device_id = g_strdup (device);

  if (!get_object (top, "view", "view", &view, error)
      || (view != NULL && !read_view (view, session, error)))
    return FALSE;
  if (!get_object (top, "kernel", "kernel", &kernel, error)
      || (kernel != NULL && !read_kernel (kernel, base_dir, session, error)))
    return FALSE;
  return TRUE;
}

KsSession *
ks_session_from_bytes (GBytes *bytes, GFile *base_dir, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (KsSession) session = NULL;
  g_autoptr (GError) local = NULL;
  gsize size;
  const char *data;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &size);
  if (size == 0)
    {
      refuse (error, _("it is empty"));
      return NULL;
    }
  if (!g_utf8_validate (data, size, NULL))
    {
      refuse (error, _("it is not a text file"));
      return NULL;
    }
  if (!json_parser_load_from_data (parser, data, size, &local))
    {
      refuse (error, _("it is not valid JSON (%s)"), local->message);
      return NULL;
    }
  session = _ks_session_new ();
  if (!read_document (json_parser_get_root (parser), base_dir, session, error))
    return NULL;
  return g_steal_pointer (&session);
}

KsSession *
ks_session_load_file (GFile *file, GCancellable *cancellable, GError **error)
{
  g_autoptr (GFileInfo) info = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GFile) dir = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (info == NULL)
    return NULL;
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      refuse (error, _("it is a folder"));
      return NULL;
    }
  if (g_file_info_get_size (info) > KS_SESSION_MAX_BYTES)
    {
      g_autofree char *limit = g_format_size (KS_SESSION_MAX_BYTES);

      refuse (error, _("it is larger than a session can be (%s)"), limit);
      return NULL;
    }
  bytes = g_file_load_bytes (file, cancellable, NULL, error);
  if (bytes == NULL)
    return NULL;
  dir = g_file_get_parent (file);
  return ks_session_from_bytes (bytes, dir, error);
}

static void
session_free_pointer (gpointer session)
{
  ks_session_free (session);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  KsSession *session = ks_session_load_file (task_data, cancellable, &error);

  if (session == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, session, session_free_pointer);
}

void
ks_session_load_async (GFile *file, GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (file));
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_session_load_async);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, load_thread);
}

KsSession *
ks_session_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
