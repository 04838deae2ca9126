#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-json.h"

void
ks_json_add_string (JsonBuilder *builder, const char *value)
{
  g_return_if_fail (JSON_IS_BUILDER (builder));

  if (value == NULL)
    json_builder_add_null_value (builder);
  else
    json_builder_add_string_value (builder, value);
}

void
ks_json_add_number (JsonBuilder *builder, double value)
{
  g_return_if_fail (JSON_IS_BUILDER (builder));

  if (isfinite (value))
    json_builder_add_double_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

JsonNode *
ks_json_from_variant (GVariant *value)
{
  JsonNode *node = json_node_alloc ();

  if (value == NULL)
    return json_node_init_null (node);

  /* json_gvariant_serialize would do for most of this, but it writes a NaN
   * double as "nan" and wraps a uint64 above G_MAXINT64 to a negative number. */
  switch (g_variant_classify (value))
    {
    case G_VARIANT_CLASS_BOOLEAN:
      return json_node_init_boolean (node, g_variant_get_boolean (value));
    case G_VARIANT_CLASS_BYTE:
      return json_node_init_int (node, g_variant_get_byte (value));
    case G_VARIANT_CLASS_INT16:
      return json_node_init_int (node, g_variant_get_int16 (value));
    case G_VARIANT_CLASS_UINT16:
      return json_node_init_int (node, g_variant_get_uint16 (value));
    case G_VARIANT_CLASS_INT32:
      return json_node_init_int (node, g_variant_get_int32 (value));
    case G_VARIANT_CLASS_UINT32:
      return json_node_init_int (node, g_variant_get_uint32 (value));
    case G_VARIANT_CLASS_INT64:
      return json_node_init_int (node, g_variant_get_int64 (value));
    case G_VARIANT_CLASS_UINT64:
      {
        guint64 v = g_variant_get_uint64 (value);

        /* json-glib holds integers as gint64: past G_MAXINT64 the nearest
         * double is the closest value it can write. */
        if (v <= G_MAXINT64)
          return json_node_init_int (node, (gint64) v);
        return json_node_init_double (node, (double) v);
      }
    case G_VARIANT_CLASS_DOUBLE:
      {
        double d = g_variant_get_double (value);

        return isfinite (d) ? json_node_init_double (node, d) : json_node_init_null (node);
      }
    case G_VARIANT_CLASS_STRING:
      return json_node_init_string (node, g_variant_get_string (value, NULL));
    default:
      {
        /* Containers and the rarer types: the text a person would read,
         * rather than a JSON shape no reader of this file expects. */
        g_autofree char *text = g_variant_print (value, FALSE);

        return json_node_init_string (node, text);
      }
    }
}

void
ks_json_add_timing (JsonBuilder *builder, const KsTiming *timing, const char *count_key)
{
  g_return_if_fail (JSON_IS_BUILDER (builder));
  g_return_if_fail (timing != NULL);
  g_return_if_fail (count_key != NULL);

  json_builder_set_member_name (builder, "median_ms");
  ks_json_add_number (builder, timing->median_ms);
  json_builder_set_member_name (builder, "mad_ms");
  ks_json_add_number (builder, timing->mad_ms);
  json_builder_set_member_name (builder, "min_ms");
  ks_json_add_number (builder, timing->min_ms);
  json_builder_set_member_name (builder, "max_ms");
  ks_json_add_number (builder, timing->max_ms);
  json_builder_set_member_name (builder, "warmup_ms");
  ks_json_add_number (builder, timing->warmup_ms);
  json_builder_set_member_name (builder, count_key);
  json_builder_add_int_value (builder, timing->n);
}

char *
ks_json_to_data (JsonNode *root)
{
  g_autoptr (JsonGenerator) generator = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (root != NULL, NULL);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  /* A text file, for the shell and for diffs, ends with a newline. */
  return g_strconcat (text, "\n", NULL);
}

gboolean
ks_json_write (JsonNode *root, const char *path, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (root != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  text = ks_json_to_data (root);
  return ks_file_replace_contents (path, text, strlen (text), error);
}

void
ks_json_add_dim3 (JsonBuilder *builder, const char *name, const KsDim3 *dim)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  json_builder_add_int_value (builder, dim->x);
  json_builder_add_int_value (builder, dim->y);
  json_builder_add_int_value (builder, dim->z);
  json_builder_end_array (builder);
}

void
ks_json_add_launch (JsonBuilder *builder, const char *name, const KsLaunchConfig *launch,
                    KsJsonLaunchFlags flags)
{
  g_return_if_fail (JSON_IS_BUILDER (builder));
  g_return_if_fail (name != NULL && launch != NULL);

  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  ks_json_add_dim3 (builder, "block", &launch->block);
  if (launch->auto_grid && (flags & KS_JSON_LAUNCH_AUTO_GRID_AS_WORD) != 0)
    {
      json_builder_set_member_name (builder, "grid");
      json_builder_add_string_value (builder, "auto");
    }
  else
    ks_json_add_dim3 (builder, "grid", &launch->grid);
  json_builder_set_member_name (builder, "auto_grid");
  json_builder_add_boolean_value (builder, launch->auto_grid);
  json_builder_set_member_name (builder, "mode");
  json_builder_add_string_value (builder, ks_launch_mode_to_string (launch->mode));
  json_builder_set_member_name (builder, "pixels_per_thread");
  json_builder_add_int_value (builder, launch->pixels_per_thread);
  json_builder_end_object (builder);
}
