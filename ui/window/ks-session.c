/* Sessions: a window's set-up as a JSON document (docs/sessions.md says
 * what each member means), and the bundle of files a run is exported as.
 *
 * Reading is two steps so that a bad file changes nothing: the document is
 * parsed and validated into a KsSession (and its embedded images decoded)
 * in a thread, and only a session that passed all of it is applied, on the
 * main thread. What the document itself gets wrong (not JSON, another
 * format, a newer version, a member of the wrong type or out of its range)
 * refuses the whole file; what only this machine lacks (an op, a device, an
 * input file) is left out on its own when applying, and named. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-image-view.h"
#include "ks-json.h"
#include "ks-kernel-panel.h"
#include "ks-session.h"
#include "ks-window-private.h"
#include "ks-op-registry.h"

#define SAMPLE_RESOURCE_DIR "/org/kernelscope/Kernelscope/samples/"

/* The launch panel's ranges: what a user can set, whatever the device allows. */
#define BLOCK_XY_MAX 65536
#define BLOCK_Z_MAX 1024
#define GRID_MAX 2147483647
#define ZOOM_MIN (1.0 / 64.0)
#define ZOOM_MAX 256.0

/* Object data of a window that writes the last session when it closes. */
#define LAST_FILE_KEY "ks-session-last-file"
#define APPLICATION_KEY "ks-session-application"

/* How long an export waits for the runs queued before it. */
#define EXPORT_WAIT_MS 10000

typedef enum
{
  INPUT_NONE,
  INPUT_FILE,
  INPUT_SAMPLE,
  INPUT_EMBEDDED,
} InputKind;

typedef struct
{
  InputKind kind;
  char *name;         /* as the window's title shows it */
  GFile *file;        /* INPUT_FILE */
  char *sample;       /* INPUT_SAMPLE */
  KsImage *image;     /* INPUT_EMBEDDED; a decoded sample for the second slot */
  gboolean missing;   /* the file or the sample is not there */
} SessionInput;

typedef struct
{
  char *name;
  double number;      /* numbers, and true and false as 1 and 0 */
  char *choice;       /* a choice's id, in place of a number */
} ParamValue;

struct _KsSession
{
  SessionInput inputs[2];

  char *op_id;
  GArray *params;     /* ParamValue */

  gboolean has_launch;
  KsLaunchConfig launch;

  char *device_id;

  gboolean has_overlay;
  KsOverlayMode overlay;
  double overlay_opacity;  /* NAN: not given */
  double split;            /* NAN: not given */
  gboolean zoom_fit;
  double zoom;             /* NAN: not given (or fit) */

  gboolean has_kernel;
  char *kernel_source;
  KsKernelMode kernel_mode;
  gboolean kernel_visible;
  GArray *kernel_params; /* ParamValue, numbers only: the kernel's //@param values */
};

static void
param_value_clear (gpointer data)
{
  ParamValue *value = data;

  g_free (value->name);
  g_free (value->choice);
}

static KsSession *
session_new (void)
{
  KsSession *session = g_new0 (KsSession, 1);

  session->params = g_array_new (FALSE, TRUE, sizeof (ParamValue));
  g_array_set_clear_func (session->params, param_value_clear);
  session->kernel_params = g_array_new (FALSE, TRUE, sizeof (ParamValue));
  g_array_set_clear_func (session->kernel_params, param_value_clear);
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
  g_free (session->kernel_source);
  g_array_unref (session->kernel_params);
  g_free (session);
}

const char *
ks_session_get_op_id (const KsSession *session)
{
  g_return_val_if_fail (session != NULL, NULL);
  return session->op_id;
}

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

KsSession *
ks_session_capture (KsWindow *window)
{
  KsPipeline *pipeline;
  KsImageView *view;
  KsKernelPanel *panel;
  KsSession *session;
  const KsOp *op;
  KsDevice *device;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (KS_IS_WINDOW (window), NULL);
  pipeline = ks_window_get_pipeline (window);
  g_return_val_if_fail (pipeline != NULL, NULL);
  view = KS_IMAGE_VIEW (ks_window_get_view (window));
  panel = ks_window_get_kernel_panel (window);
  session = session_new ();

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
    {
      const KsLaunchConfig *l = &session->launch;

      json_builder_set_member_name (builder, "launch");
      json_builder_begin_object (builder);
      ks_json_add_dim3 (builder, "block", &l->block);
      ks_json_add_dim3 (builder, "grid", &l->grid);
      json_builder_set_member_name (builder, "auto_grid");
      json_builder_add_boolean_value (builder, l->auto_grid);
      json_builder_set_member_name (builder, "mode");
      json_builder_add_string_value (builder, l->mode == KS_LAUNCH_GRID_STRIDE ? "grid-stride"
                                                                              : "per-pixel");
      json_builder_set_member_name (builder, "pixels_per_thread");
      json_builder_add_int_value (builder, l->pixels_per_thread);
      json_builder_end_object (builder);
    }

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

/* ---- reading -------------------------------------------------------------- */

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

static gboolean
read_launch (JsonObject *object, KsLaunchConfig *l, GError **error)
{
  static const guint64 block_max[3] = { BLOCK_XY_MAX, BLOCK_XY_MAX, BLOCK_Z_MAX };
  static const guint64 grid_max[3] = { GRID_MAX, GRID_MAX, GRID_MAX };
  gboolean present = FALSE, auto_grid = FALSE;
  const char *mode = NULL;
  JsonNode *ppt;

  if (!get_dim3 (object, "block", "launch.block", 1, block_max, &l->block, error)
      || !get_boolean (object, "auto_grid", "launch.auto_grid", &present, &auto_grid, error))
    return FALSE;
  if (!present)
    return refuse (error, _("“%s” is missing"), "launch.auto_grid");
  l->auto_grid = auto_grid;
  /* An automatic grid is derived from the image: the manual one it keeps for
   * later may be 0 there. */
  if (!get_dim3 (object, "grid", "launch.grid", auto_grid ? 0 : 1, grid_max, &l->grid, error)
      || !get_string (object, "mode", "launch.mode", &mode, error))
    return FALSE;
  if (mode == NULL)
    return refuse (error, _("“%s” is missing"), "launch.mode");
  if (g_str_equal (mode, "per-pixel"))
    l->mode = KS_LAUNCH_PER_PIXEL;
  else if (g_str_equal (mode, "grid-stride"))
    l->mode = KS_LAUNCH_GRID_STRIDE;
  else
    return refuse (error, _("“%s” must be one of %s"), "launch.mode", "per-pixel, grid-stride");
  ppt = member (object, "pixels_per_thread");
  if (ppt == NULL)
    return refuse (error, _("“%s” is missing"), "launch.pixels_per_thread");
  if (!node_whole (ppt, 0, 16, &l->pixels_per_thread)
      || (l->pixels_per_thread & (l->pixels_per_thread - 1)) != 0)
    return refuse (error, _("“%s” must be one of %s"), "launch.pixels_per_thread",
                   "0, 1, 2, 4, 8, 16");
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

static gboolean
read_kernel (JsonObject *kernel, KsSession *session, GError **error)
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
      if (!read_launch (launch, &session->launch, error))
        return FALSE;
      session->has_launch = TRUE;
    }

  if (!get_object (top, "engine", "engine", &engine, error)
      || !get_string (engine, "device", "engine.device", &device, error))
    return FALSE;
  session->device_id = g_strdup (device);

  if (!get_object (top, "view", "view", &view, error)
      || (view != NULL && !read_view (view, session, error)))
    return FALSE;
  if (!get_object (top, "kernel", "kernel", &kernel, error)
      || (kernel != NULL && !read_kernel (kernel, session, error)))
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
  session = session_new ();
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

static void
save_async (KsSession *session, GFile *file, gboolean private, GCancellable *cancellable,
            GAsyncReadyCallback callback, gpointer user_data)
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
  save_async (session, file, FALSE, cancellable, callback, user_data);
}

gboolean
ks_session_save_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- applying ------------------------------------------------------------- */

/* A disposed window has let its pipeline and widgets go; work that ends
 * after the window closed has nowhere to go. */
static gboolean
window_alive (KsWindow *window)
{
  return ks_window_get_pipeline (window) != NULL;
}

static void
toast (KsWindow *window, const char *message)
{
  if (window_alive (window))
    _ks_window_toast (window, message);
}

static void
on_device_set_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) window = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_device_finish (KS_PIPELINE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf (_("The session’s device could not be used: "
                                                    "%s"), error->message);
      toast (window, message);
    }
}

static void
apply_device (const KsSession *session, KsWindow *window, GPtrArray *problems)
{
  KsPipeline *pipeline = ks_window_get_pipeline (window);
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
          ks_window_open_file (window, in->file, slot);
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
              ks_window_open_file (window, file, slot);
            }
          break;
        case INPUT_EMBEDDED:
          ks_window_open_image (window, in->image, in->name, slot);
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
  KsPipeline *pipeline = ks_window_get_pipeline (window);
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
  KsImageView *view = KS_IMAGE_VIEW (ks_window_get_view (window));

  if (session->has_overlay)
    ks_image_view_set_overlay (view, session->overlay);
  if (!isnan (session->overlay_opacity))
    ks_image_view_set_overlay_opacity (view, session->overlay_opacity);
  if (!isnan (session->split))
    {
      /* Through the slider's adjustment, which moves the view's split too. */
      GObject *adjustment = gtk_widget_get_template_child (GTK_WIDGET (window), KS_TYPE_WINDOW,
                                                           "split_adjustment");

      if (GTK_IS_ADJUSTMENT (adjustment))
        gtk_adjustment_set_value (GTK_ADJUSTMENT (adjustment), session->split);
      else
        ks_image_view_set_split (view, session->split);
    }
  if (session->zoom_fit)
    ks_image_view_zoom_fit (view);
  else if (!isnan (session->zoom))
    ks_image_view_set_zoom (view, session->zoom);
}

static void
apply_kernel (const KsSession *session, KsWindow *window)
{
  KsKernelPanel *panel = ks_window_get_kernel_panel (window);
  KsPipeline *pipeline = ks_window_get_pipeline (window);

  if (!session->has_kernel)
    return;
  ks_kernel_panel_set_mode (panel, session->kernel_mode);
  /* The values wait in the pipeline until the kernel has compiled. */
  ks_pipeline_forget_user_params (pipeline);
  for (guint i = 0; i < session->kernel_params->len; i++)
    {
      const ParamValue *value = &g_array_index (session->kernel_params, ParamValue, i);

      ks_pipeline_remember_user_param (pipeline, value->name, value->number);
    }
  ks_kernel_panel_set_text (panel, session->kernel_source);
  if (session->kernel_visible != _ks_window_get_kernel_visible (window))
    _ks_window_set_kernel_visible (window, session->kernel_visible);
}

static char *
apply_full (const KsSession *session, KsWindow *window, KsSessionApplyFlags flags,
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
    ks_pipeline_set_launch (ks_window_get_pipeline (window), &session->launch);
  apply_kernel (session, window);
  apply_view (session, window);
  if (input_a_set != NULL)
    *input_a_set = a_set;
  if (problems->len == 0)
    return NULL;
  g_ptr_array_add (problems, NULL);
  return g_strjoinv ("; ", (char **) problems->pdata);
}

char *
ks_session_apply (const KsSession *session, KsWindow *window, KsSessionApplyFlags flags)
{
  g_return_val_if_fail (session != NULL && KS_IS_WINDOW (window), NULL);
  g_return_val_if_fail (window_alive (window), NULL);
  return apply_full (session, window, flags, NULL);
}

/* ---- the window's side ---------------------------------------------------- */

static char *
file_display_name (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  return base != NULL ? g_filename_display_name (base) : g_file_get_parse_name (file);
}

static void
add_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *exec = g_strdup_printf ("%s %%u", g_get_prgname ());
  char *groups[] = { (char *) KS_SESSION_RECENT_GROUP, NULL };
  GtkRecentData data = {
    .mime_type = (char *) KS_SESSION_MIME_TYPE,
    .app_name = (char *) g_get_application_name (),
    .app_exec = exec,
    .groups = groups,
  };

  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

typedef struct
{
  KsWindow *window;   /* owned */
  GFile *file;
  gboolean startup;   /* the last session, when the window opens */
  KsSessionApplyFlags flags;
  gboolean sample_otherwise;  /* open the sample when the session gives no image */
} OpenJob;

static void
open_job_free (OpenJob *job)
{
  g_object_unref (job->window);
  g_object_unref (job->file);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OpenJob, open_job_free)

static void
on_session_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (OpenJob) job = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (KsSession) session = ks_session_load_finish (result, &error);
  g_autofree char *name = file_display_name (job->file);
  g_autofree char *problems = NULL;
  gboolean a_set = FALSE;

  if (!window_alive (job->window))
    return;
  if (session == NULL)
    {
      /* No last session yet is no news. */
      if (!job->startup || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_autofree char *message = g_strdup_printf (_("Could not open the session %s, so "
                                                        "nothing changed: %s"), name,
                                                      error->message);
          toast (job->window, message);
        }
      if (job->sample_otherwise)
        ks_window_open_sample (job->window);
      return;
    }
  problems = apply_full (session, job->window, job->flags, &a_set);
  if (job->sample_otherwise && !a_set
      && ks_pipeline_get_input (ks_window_get_pipeline (job->window), KS_INPUT_A) == NULL)
    ks_window_open_sample (job->window);
  if (!job->startup)
    add_recent (job->file);
  if (problems != NULL)
    {
      g_autofree char *message = job->startup
        ? g_strdup_printf (_("The last session is back, except that %s"), problems)
        : g_strdup_printf (_("Opened the session %s, except that %s"), name, problems);
      toast (job->window, message);
    }
  else if (!job->startup)
    {
      g_autofree char *message = g_strdup_printf (_("Opened the session %s"), name);
      toast (job->window, message);
    }
}

static void
open_session (KsWindow *window, GFile *file, gboolean startup, KsSessionApplyFlags flags,
              gboolean sample_otherwise)
{
  OpenJob *job = g_new0 (OpenJob, 1);

  job->window = g_object_ref (window);
  job->file = g_object_ref (file);
  job->startup = startup;
  job->flags = flags;
  job->sample_otherwise = sample_otherwise;
  ks_session_load_async (file, NULL, on_session_loaded_cb, job);
}

void
ks_session_open (KsWindow *window, GFile *file, KsSessionApplyFlags flags)
{
  g_return_if_fail (KS_IS_WINDOW (window) && G_IS_FILE (file));
  open_session (window, file, FALSE, flags, FALSE);
}

typedef struct
{
  KsWindow *window;   /* owned */
  GFile *file;
} SaveData;

static void
on_session_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveData *data = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = file_display_name (data->file);
  g_autofree char *message = NULL;

  if (!ks_session_save_finish (result, &error))
    message = g_strdup_printf (_("Could not save the session %s: %s"), name, error->message);
  else
    {
      add_recent (data->file);
      message = g_strdup_printf (_("Saved the session %s"), name);
    }
  toast (data->window, message);
  g_object_unref (data->window);
  g_object_unref (data->file);
  g_free (data);
}

void
ks_session_save (KsWindow *window, GFile *file)
{
  SaveData *data;

  g_return_if_fail (KS_IS_WINDOW (window) && G_IS_FILE (file));
  data = g_new0 (SaveData, 1);
  data->window = g_object_ref (window);
  data->file = g_object_ref (file);
  ks_session_save_async (ks_session_capture (window), file, NULL, on_session_saved_cb, data);
}

/* ---- the last session ----------------------------------------------------- */

GFile *
ks_session_get_last_file (void)
{
  g_autofree char *path = g_build_filename (g_get_user_state_dir (), "kernelscope",
                                            "last-session" KS_SESSION_EXTENSION, NULL);

  return g_file_new_for_path (path);
}

static void
on_last_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GApplication) application = user_data;
  g_autoptr (GError) error = NULL;

  /* The window is gone: there is no one to tell but the log. */
  if (!ks_session_save_finish (result, &error))
    g_warning ("The last session could not be written: %s", error->message);
  if (application != NULL)
    g_application_release (application);
}

void
_ks_window_session_dispose (KsWindow *self)
{
  g_autoptr (GFile) file = g_object_steal_data (G_OBJECT (self), LAST_FILE_KEY);
  GApplication *application = g_object_steal_data (G_OBJECT (self), APPLICATION_KEY);

  g_signal_handlers_disconnect_by_data (gtk_recent_manager_get_default (), self);
  if (file == NULL || !window_alive (self))
    {
      g_clear_object (&application);
      return;
    }
  /* The application stays until the file is written (the hold is released
   * by the callback, which also drops this reference). */
  if (application != NULL)
    g_application_hold (application);
  save_async (ks_session_capture (self), file, TRUE, NULL, on_last_saved_cb, application);
}

void
ks_session_start_window (KsWindow *window, GFile *session, gboolean with_images)
{
  GSettings *settings;
  GtkApplication *application;

  g_return_if_fail (KS_IS_WINDOW (window));
  settings = _ks_window_get_settings (window);
  application = gtk_window_get_application (GTK_WINDOW (window));
  g_object_set_data_full (G_OBJECT (window), LAST_FILE_KEY, ks_session_get_last_file (),
                          g_object_unref);
  if (application != NULL)
    g_object_set_data_full (G_OBJECT (window), APPLICATION_KEY, g_object_ref (application),
                            g_object_unref);
  if (session != NULL)
    open_session (window, session, FALSE,
                  with_images ? KS_SESSION_APPLY_SKIP_INPUTS : KS_SESSION_APPLY_ALL, !with_images);
  else if (settings == NULL || !g_settings_get_boolean (settings, "restore-last"))
    {
      if (!with_images)
        ks_window_open_sample (window);
    }
  else
    {
      g_autoptr (GFile) last = ks_session_get_last_file ();

      open_session (window, last, TRUE,
                    with_images ? KS_SESSION_APPLY_SKIP_INPUTS : KS_SESSION_APPLY_ALL,
                    !with_images);
    }
}

/* ---- bundles -------------------------------------------------------------- */

typedef struct
{
  KsWindow *window;        /* owned */
  GFile *folder;
  gint64 wait_until;
  /* Taken at one moment, from the published run. */
  KsSession *session;
  char *folder_tag;        /* the op's id, or "kernel" */
  char *title;             /* the op's title, for the README */
  char *device;
  char *timings_csv;
  char *timings_json;
  gboolean image_output;
  guint32 histogram[4][256];
  KsCoverage *coverage;    /* a copy, or NULL */
  KsLaunchConfig resolved;
  KsOverlayMode overlay;
  double opacity;
  char *result_tmp;        /* where the result is written before it moves in */
  GDateTime *when;
} Export;

static void
export_free (Export *e)
{
  g_object_unref (e->window);
  g_object_unref (e->folder);
  ks_session_free (e->session);
  g_free (e->folder_tag);
  g_free (e->title);
  g_free (e->device);
  g_free (e->timings_csv);
  g_free (e->timings_json);
  ks_coverage_free (e->coverage);
  g_free (e->result_tmp);
  g_clear_pointer (&e->when, g_date_time_unref);
  g_free (e);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Export, export_free)

static KsCoverage *
coverage_copy (const KsCoverage *c)
{
  gsize n = (gsize) c->width * c->height;
  KsCoverage *copy = g_new (KsCoverage, 1);

  *copy = *c;
  copy->writes = c->writes != NULL ? g_memdup2 (c->writes, n * sizeof (guint32)) : NULL;
  copy->owner_block = c->owner_block != NULL ? g_memdup2 (c->owner_block, n * sizeof (guint32))
                                             : NULL;
  copy->owner_thread = c->owner_thread != NULL
                       ? g_memdup2 (c->owner_thread, n * sizeof (guint32)) : NULL;
  return copy;
}

static void
export_fail (Export *e, const char *reason)
{
  g_autofree char *message = g_strdup_printf (_("Could not export the bundle: %s"), reason);

  toast (e->window, message);
}

static gboolean
write_text (const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return g_file_set_contents (path, text, -1, error);
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  /* The bundle's folder holds only the files written here: no subfolders. */
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static char *
histogram_csv (guint32 (*bins)[256])
{
  GString *s = g_string_new ("bin,r,g,b,luma\n");

  for (guint i = 0; i < 256; i++)
    g_string_append_printf (s, "%u,%u,%u,%u,%u\n", i, bins[0][i], bins[1][i], bins[2][i],
                            bins[3][i]);
  return g_string_free (s, FALSE);
}

/* The README stays in English, like the CSV and JSON files beside it: a
 * bundle is made to be passed on (a bug report, a class's shared folder). */
static char *
readme_text (const Export *e, const char *overlay_note)
{
  GString *s = g_string_new ("Kernelscope bundle\n\n");
  g_autofree char *date = g_date_time_format (e->when, "%Y-%m-%d %H:%M:%S");
  char block[64], grid[64];

  ks_dim3_format (&e->resolved.block, block, sizeof block);
  ks_dim3_format (&e->resolved.grid, grid, sizeof grid);
  g_string_append_printf (s, "Exported %s by %s %s.\n", date, PACKAGE_NAME, PACKAGE_VERSION);
  g_string_append_printf (s, "Operation: %s\nEngine: %s\n", e->title, e->device);
  g_string_append_printf (s, "Launch that ran: block %s, grid %s, %s, %u pixel(s) per thread\n\n",
                          block, grid,
                          e->resolved.mode == KS_LAUNCH_GRID_STRIDE ? "grid-stride" : "per-pixel",
                          e->resolved.pixels_per_thread);
  if (e->image_output)
    {
      g_string_append (s, "result.png           the output image of the run shown\n");
      if (overlay_note == NULL)
        g_string_append_printf (s, "overlay.png          the %s overlay over it, at %.0f %% "
                                "opacity\n", ks_overlay_mode_to_string (e->overlay),
                                e->opacity * 100);
    }
  else
    g_string_append (s, "histogram.csv        the run's 256 bins of R, G, B and luma\n");
  g_string_append (s, "timings.csv          per-stage timings and the history of kernel times\n"
                      "timings.json         the same as JSON\n"
                      "session.kscope.json  the set-up: open it in Kernelscope (Open Session)\n");
  if (overlay_note != NULL)
    g_string_append_printf (s, "\nNo overlay.png: %s\n", overlay_note);
  return g_string_free (s, FALSE);
}

static void
export_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Export *e = task_data;
  g_autofree char *parent = g_file_get_path (e->folder);
  g_autofree char *staging = g_build_filename (parent, ".kernelscope-bundle-XXXXXX", NULL);
  g_autofree char *date = g_date_time_format (e->when, "%Y%m%d-%H%M%S");
  g_autofree char *session_text = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *final = NULL;
  const char *overlay_note = NULL;
  GError *error = NULL;

  if (g_mkdtemp_full (staging, 0755) == NULL)
    {
      int errsv = errno;
      g_autofree char *where = g_filename_display_name (parent);

      if (e->result_tmp != NULL)
        g_unlink (e->result_tmp);
      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (errsv),
                               _("no folder can be made in %s (%s)"), where, g_strerror (errsv));
      return;
    }

  if (e->image_output)
    {
      g_autofree char *result_path = g_build_filename (staging, "result.png", NULL);
      g_autoptr (KsImage) result = NULL;

      if (g_rename (e->result_tmp, result_path) != 0)
        {
          int errsv = errno;

          g_set_error (&error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s",
                       g_strerror (errsv));
          goto fail;
        }
      g_clear_pointer (&e->result_tmp, g_free);
      if (e->coverage == NULL)
        overlay_note = "this run recorded no coverage (every pixel was written once and no "
                       "overlay was on); turn an overlay on in the view and export again";
      else
        {
          g_autoptr (KsImage) overlay = NULL;
          g_autoptr (GError) compose_error = NULL;
          g_autofree char *overlay_path = g_build_filename (staging, "overlay.png", NULL);

          result = ks_image_load (result_path, &error);
          if (result == NULL)
            goto fail;
          overlay = ks_overlay_compose (result, e->coverage, &e->resolved, e->overlay, e->opacity,
                                        &compose_error);
          if (overlay == NULL)
            overlay_note = "the run's coverage does not match its output";
          else if (!ks_image_save (overlay, overlay_path, &error))
            goto fail;
        }
    }
  else
    {
      g_autofree char *csv = histogram_csv (e->histogram);

      if (!write_text (staging, "histogram.csv", csv, &error))
        goto fail;
    }

  session_text = ks_session_to_json (e->session, NULL, &error);
  readme = readme_text (e, overlay_note);
  if (session_text == NULL || !write_text (staging, "timings.csv", e->timings_csv, &error)
      || !write_text (staging, "timings.json", e->timings_json, &error)
      || !write_text (staging, "session" KS_SESSION_EXTENSION, session_text, &error)
      || !write_text (staging, "README.txt", readme, &error))
    goto fail;

  /* Complete: it takes its name now, the first that is free. */
  for (guint n = 1; n <= 100 && final == NULL; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup_printf ("kernelscope-%s-%s", e->folder_tag, date)
                                     : g_strdup_printf ("kernelscope-%s-%s-%u", e->folder_tag,
                                                        date, n);
      g_autofree char *path = g_build_filename (parent, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS) && g_rename (staging, path) == 0)
        final = g_steal_pointer (&path);
    }
  if (final == NULL)
    {
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                           _("every name for it is taken in that folder"));
      goto fail;
    }
  g_task_return_pointer (task, g_steal_pointer (&final), g_free);
  return;

fail:
  if (e->result_tmp != NULL)
    g_unlink (e->result_tmp);
  remove_tree (staging);
  g_task_return_error (task, error);
}

static void
on_exported_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Export) e = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_task_propagate_pointer (G_TASK (result), &error);

  if (path == NULL)
    export_fail (e, error->message);
  else
    {
      g_autofree char *name = g_filename_display_basename (path);
      g_autofree char *message = g_strdup_printf (_("Exported the bundle to %s"), name);

      toast (e->window, message);
    }
}

static void
export_run_thread (Export *e)
{
  g_autoptr (GTask) task = g_task_new (NULL, NULL, on_exported_cb, e);

  g_task_set_task_data (task, e, NULL);
  g_task_run_in_thread (task, export_thread);
}

static void
on_result_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Export *e = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_save_output_finish (KS_PIPELINE (source), result, &error))
    {
      export_fail (e, error->message);
      export_free (e);
      return;
    }
  export_run_thread (e);
}

static void
export_start (Export *e)
{
  KsPipeline *pipeline = ks_window_get_pipeline (e->window);
  KsImageView *view;
  const KsRunResult *result;
  const KsCoverage *coverage;
  g_autofree char *parent = NULL;

  if (!window_alive (e->window))
    {
      export_free (e);
      return;
    }
  result = ks_pipeline_get_result (pipeline);
  parent = g_file_get_path (e->folder);
  if (result == NULL)
    {
      export_fail (e, _("no run has finished yet"));
      export_free (e);
      return;
    }
  if (parent == NULL)
    {
      export_fail (e, _("choose a folder on this computer"));
      export_free (e);
      return;
    }

  /* Everything from the published run, now: the next one replaces it. */
  view = KS_IMAGE_VIEW (ks_window_get_view (e->window));
  e->session = ks_session_capture (e->window);
  e->when = g_date_time_new_now_local ();
  if (ks_pipeline_get_user_kernel (pipeline) != NULL)
    {
      e->folder_tag = g_strdup ("kernel");
      e->title = g_strdup ("your kernel (kernel editor)");
    }
  else
    {
      const KsOp *op = ks_pipeline_get_result_op (pipeline);

      e->folder_tag = g_strdup (op != NULL ? op->id : "result");
      e->title = op != NULL ? g_strdup_printf ("%s (%s)", op->title, op->id) : g_strdup ("-");
    }
  e->device = g_strdup_printf ("%s (%s)", ks_device_get_name (ks_pipeline_get_device (pipeline)),
                               ks_device_get_id (ks_pipeline_get_device (pipeline)));
  e->timings_csv = ks_pipeline_export_timings (pipeline, FALSE);
  e->timings_json = ks_pipeline_export_timings (pipeline, TRUE);
  e->image_output = result->output != NULL;
  e->resolved = result->launch;
  e->overlay = ks_image_view_get_overlay (view);
  if (e->overlay == KS_OVERLAY_NONE)
    e->overlay = KS_OVERLAY_BLOCK;
  e->opacity = ks_image_view_get_overlay_opacity (view);
  coverage = ks_pipeline_get_coverage (pipeline);
  /* Copied: the published run's coverage goes with the next run, and the
   * overlay is composed in a thread. */
  if (coverage != NULL && e->image_output)
    e->coverage = coverage_copy (coverage);
  if (!e->image_output)
    {
      memcpy (e->histogram, result->histogram, sizeof e->histogram);
      export_run_thread (e);
      return;
    }
  {
    g_autofree char *uuid = g_uuid_string_random ();
    g_autofree char *name = g_strdup_printf (".kernelscope-result-%s.png", uuid);
    g_autoptr (GFile) tmp = NULL;

    e->result_tmp = g_build_filename (parent, name, NULL);
    tmp = g_file_new_for_path (e->result_tmp);
    ks_pipeline_save_output_async (pipeline, tmp, NULL, on_result_saved_cb, e);
  }
}

static gboolean
export_wait_cb (gpointer user_data)
{
  Export *e = user_data;

  if (window_alive (e->window) && !ks_pipeline_is_idle (ks_window_get_pipeline (e->window))
      && g_get_monotonic_time () < e->wait_until)
    return G_SOURCE_CONTINUE;
  export_start (e);
  return G_SOURCE_REMOVE;
}

void
ks_session_export_bundle (KsWindow *window, GFile *folder)
{
  Export *e;

  g_return_if_fail (KS_IS_WINDOW (window) && G_IS_FILE (folder));
  e = g_new0 (Export, 1);
  e->window = g_object_ref (window);
  e->folder = g_object_ref (folder);
  e->wait_until = g_get_monotonic_time () + EXPORT_WAIT_MS * G_TIME_SPAN_MILLISECOND;
  /* A change made just before is still running: the bundle shows its result. */
  if (ks_pipeline_is_idle (ks_window_get_pipeline (window)))
    export_start (e);
  else
    g_timeout_add (50, export_wait_cb, e);
}
