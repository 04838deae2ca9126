#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ks-cli.h"
#include "ks-npp.h"
#include "ks-op-registry.h"

/* ---- devices ------------------------------------------------------------ */

static char *
format_version (int version)
{
  if (version <= 0)
    return g_strdup ("unknown");
  return g_strdup_printf ("%d.%d", version / 1000, (version % 1000) / 10);
}

/* The groups in the order the device lists them. */
static GPtrArray *
property_groups (const GArray *props)
{
  GPtrArray *groups = g_ptr_array_new ();

  for (guint i = 0; i < props->len; i++)
    {
      const KsDeviceProperty *prop = &g_array_index (props, KsDeviceProperty, i);
      gboolean seen = FALSE;

      for (guint g = 0; g < groups->len && !seen; g++)
        seen = g_strcmp0 (g_ptr_array_index (groups, g), prop->group) == 0;
      if (!seen)
        g_ptr_array_add (groups, (gpointer) prop->group);
    }
  return groups;
}

static void
print_device (KsDevice *device)
{
  const GArray *props = ks_device_get_properties (device);
  g_autoptr (GPtrArray) groups = property_groups (props);
  guint label_width = 0;

  for (guint i = 0; i < props->len; i++)
    label_width = MAX (label_width,
                       g_utf8_strlen (g_array_index (props, KsDeviceProperty, i).label, -1));

  ks_cli_print ("%s — %s\n", ks_device_get_id (device), ks_device_get_name (device));
  for (guint g = 0; g < groups->len; g++)
    {
      const char *group = g_ptr_array_index (groups, g);

      ks_cli_print ("  %s\n", group != NULL ? group : "Other");
      for (guint i = 0; i < props->len; i++)
        {
          const KsDeviceProperty *prop = &g_array_index (props, KsDeviceProperty, i);
          g_autofree char *value = NULL;
          guint pad;

          if (g_strcmp0 (prop->group, group) != 0)
            continue;
          value = ks_device_property_format (prop);
          /* Pad by characters, not bytes: labels may hold "×" and the like. */
          pad = label_width - (guint) g_utf8_strlen (prop->label, -1);
          ks_cli_print ("    %s%*s  %s\n", prop->label, (int) pad, "", value);
        }
    }
}

static void
add_device (JsonBuilder *b, KsDevice *device)
{
  const GArray *props = ks_device_get_properties (device);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  ks_json_add_string (b, ks_device_get_id (device));
  json_builder_set_member_name (b, "name");
  ks_json_add_string (b, ks_device_get_name (device));
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, ks_device_get_kind (device) == KS_DEVICE_KIND_CUDA ? "cuda"
                                                                                       : "cpu");
  json_builder_set_member_name (b, "ordinal");
  json_builder_add_int_value (b, ks_device_get_ordinal (device));
  json_builder_set_member_name (b, "properties");
  json_builder_begin_array (b);
  for (guint i = 0; i < props->len; i++)
    {
      const KsDeviceProperty *prop = &g_array_index (props, KsDeviceProperty, i);
      g_autofree char *text = ks_device_property_format (prop);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "group");
      ks_json_add_string (b, prop->group);
      json_builder_set_member_name (b, "key");
      ks_json_add_string (b, prop->key);
      json_builder_set_member_name (b, "label");
      ks_json_add_string (b, prop->label);
      json_builder_set_member_name (b, "value");
      json_builder_add_value (b, ks_json_from_variant (prop->value));
      json_builder_set_member_name (b, "unit");
      ks_json_add_string (b, prop->unit);
      json_builder_set_member_name (b, "text");
      ks_json_add_string (b, text);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The listing as JSON: every property with its raw value, then whether CUDA
 * and NPP can be used and why not. */
static JsonNode *
devices_json (GPtrArray *devices, gboolean cuda, const GError *cuda_error, const char *driver,
              const char *runtime, KsNpp *npp, const GError *npp_error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < devices->len; i++)
    add_device (b, g_ptr_array_index (devices, i));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "cuda");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "available");
  json_builder_add_boolean_value (b, cuda);
  json_builder_set_member_name (b, "reason");
  ks_json_add_string (b, cuda_error != NULL ? cuda_error->message : NULL);
  json_builder_set_member_name (b, "driver_version");
  ks_json_add_string (b, driver);
  json_builder_set_member_name (b, "runtime_version");
  ks_json_add_string (b, runtime);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "npp");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "available");
  json_builder_add_boolean_value (b, npp != NULL);
  json_builder_set_member_name (b, "version");
  ks_json_add_string (b, npp != NULL ? ks_npp_get_version (npp) : NULL);
  json_builder_set_member_name (b, "reason");
  ks_json_add_string (b, npp != NULL ? NULL
                             : npp_error != NULL ? npp_error->message
                                                 : "NPP is only used with CUDA");
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

int
ks_cli_cmd_devices (int argc, char **argv)
{
  gboolean json = FALSE, help = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON with every property", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) cuda_error = NULL;
  g_autoptr (GError) npp_error = NULL;
  g_autoptr (GPtrArray) devices = NULL;
  g_autofree char *driver = NULL;
  g_autofree char *runtime = NULL;
  gboolean cuda;
  KsNpp *npp = NULL;

  g_option_context_set_summary (context, "Lists the CPU device and every CUDA device with "
                                "their properties, then whether CUDA and NPP can be used.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;
  if (g_strv_length (args) > 1)
    {
      ks_cli_usage_error (&error, "devices takes no arguments, got “%s”", args[1]);
      return ks_cli_report_error (error);
    }

  devices = ks_devices_enumerate ();
  cuda = ks_cuda_available (&cuda_error);
  driver = format_version (ks_cuda_driver_version ());
  runtime = format_version (ks_cuda_runtime_version ());
  /* NPP only matters, and is only probed, where CUDA works. */
  if (cuda)
    npp = ks_npp_get (&npp_error);

  if (json)
    {
      /* Versions the driver does not report are null, not "unknown". */
      g_autoptr (JsonNode) root =
        devices_json (devices, cuda, cuda_error, ks_cuda_driver_version () > 0 ? driver : NULL,
                      ks_cuda_runtime_version () > 0 ? runtime : NULL, npp, npp_error);

      ks_cli_emit_json (root, TRUE, NULL, NULL);
      return KS_CLI_EXIT_OK;
    }

  for (guint i = 0; i < devices->len; i++)
    {
      print_device (g_ptr_array_index (devices, i));
      ks_cli_print ("\n");
    }
  if (cuda)
    ks_cli_print ("CUDA: available (driver %s, runtime %s)\n", driver, runtime);
  else
    ks_cli_print ("CUDA: unavailable — %s\n", cuda_error->message);
  if (npp != NULL)
    ks_cli_print ("NPP: available%s%s\n", *ks_npp_get_version (npp) != '\0' ? ", version " : "",
                  ks_npp_get_version (npp));
  else if (npp_error != NULL)
    ks_cli_print ("NPP: unavailable — %s\n", npp_error->message);
  return KS_CLI_EXIT_OK;
}

/* ---- ops ---------------------------------------------------------------- */

static const char *
param_type_name (KsParamType type)
{
  switch (type)
    {
    case KS_PARAM_INT:
      return "int";
    case KS_PARAM_DOUBLE:
      return "number";
    case KS_PARAM_BOOL:
      return "bool";
    case KS_PARAM_CHOICE:
      return "choice";
    default:
      return "?";
    }
}

static void
print_param (const KsParamSpec *spec)
{
  g_autofree char *def = ks_param_format_value (spec, spec->default_value);
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s, "    %s (%s", spec->name, param_type_name (spec->type));
  if (spec->type == KS_PARAM_INT || spec->type == KS_PARAM_DOUBLE)
    {
      g_autofree char *min = ks_param_format_value (spec, spec->min);
      g_autofree char *max = ks_param_format_value (spec, spec->max);

      g_string_append_printf (s, " %s to %s", min, max);
    }
  else if (spec->type == KS_PARAM_CHOICE && spec->choices != NULL)
    {
      g_autofree char *choices = g_strjoinv ("|", (char **) spec->choices);

      g_string_append_printf (s, ": %s", choices);
    }
  g_string_append_printf (s, ", default %s)", def);
  if (spec->title != NULL)
    g_string_append_printf (s, " — %s", spec->title);
  ks_cli_print ("%s\n", s->str);
  if (spec->description != NULL && *spec->description != '\0')
    ks_cli_print ("        %s\n", spec->description);
  if (spec->type == KS_PARAM_CHOICE && spec->choices != NULL && spec->choice_titles != NULL)
    for (guint c = 0; spec->choices[c] != NULL && spec->choice_titles[c] != NULL; c++)
      ks_cli_print ("        %s: %s\n", spec->choices[c], spec->choice_titles[c]);
}

static void
print_op (const KsOp *op)
{
  g_autofree char *launch = ks_cli_describe_launch (&op->default_launch,
                                                     op->default_pixels_per_thread, FALSE);

  ks_cli_print ("%s — %s (%s)\n", op->id, op->title, op->group);
  if (op->description != NULL && *op->description != '\0')
    ks_cli_print ("  %s\n", op->description);
  ks_cli_print ("  inputs: %u rgba8 image%s%s%s\n", op->n_inputs, op->n_inputs == 1 ? "" : "s",
                op->n_inputs > 1 ? " of the same size" : "",
                ks_op_accepts_format (op, KS_FORMAT_GRAY8) ? " (gray8 accepted)" : "");
  if (op->output_kind == KS_OP_OUTPUT_HISTOGRAM)
    ks_cli_print ("  output: 256-bin histograms of R, G, B and luma\n");
  else
    ks_cli_print ("  output: %s image\n", ks_format_name (op->output_format));
  ks_cli_print ("  default launch: %s\n", launch);
  if (op->n_params == 0)
    ks_cli_print ("  parameters: none\n");
  else
    ks_cli_print ("  parameters:\n");
  for (guint p = 0; p < op->n_params; p++)
    print_param (&op->params[p]);
}

static void
op_json (JsonBuilder *b, const KsOp *op)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  ks_json_add_string (b, op->id);
  json_builder_set_member_name (b, "title");
  ks_json_add_string (b, op->title);
  json_builder_set_member_name (b, "group");
  ks_json_add_string (b, op->group);
  json_builder_set_member_name (b, "description");
  ks_json_add_string (b, op->description);
  json_builder_set_member_name (b, "inputs");
  json_builder_add_int_value (b, op->n_inputs);
  json_builder_set_member_name (b, "input_formats");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "rgba8");
  if (ks_op_accepts_format (op, KS_FORMAT_GRAY8))
    json_builder_add_string_value (b, "gray8");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "output");
  json_builder_add_string_value (b, op->output_kind == KS_OP_OUTPUT_HISTOGRAM
                                      ? "histogram" : ks_format_name (op->output_format));
  ks_cli_json_add_launch (b, "default_launch", &op->default_launch,
                          op->default_pixels_per_thread, FALSE);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint p = 0; p < op->n_params; p++)
    {
      const KsParamSpec *spec = &op->params[p];

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      ks_json_add_string (b, spec->name);
      json_builder_set_member_name (b, "title");
      ks_json_add_string (b, spec->title);
      json_builder_set_member_name (b, "description");
      ks_json_add_string (b, spec->description);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, param_type_name (spec->type));
      json_builder_set_member_name (b, "default");
      ks_cli_json_add_param (b, spec, spec->default_value);
      if (spec->type == KS_PARAM_INT || spec->type == KS_PARAM_DOUBLE)
        {
          json_builder_set_member_name (b, "min");
          ks_cli_json_add_param (b, spec, spec->min);
          json_builder_set_member_name (b, "max");
          ks_cli_json_add_param (b, spec, spec->max);
        }
      if (spec->type == KS_PARAM_CHOICE && spec->choices != NULL)
        {
          json_builder_set_member_name (b, "choices");
          json_builder_begin_array (b);
          for (guint c = 0; spec->choices[c] != NULL; c++)
            {
              json_builder_begin_object (b);
              json_builder_set_member_name (b, "id");
              ks_json_add_string (b, spec->choices[c]);
              json_builder_set_member_name (b, "title");
              ks_json_add_string (b, spec->choice_titles != NULL ? spec->choice_titles[c] : NULL);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

int
ks_cli_cmd_ops (int argc, char **argv)
{
  gboolean help = FALSE, json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the ops as JSON on stdout: parameters with types, ranges and defaults", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("[OP…]");
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) error = NULL;
  guint n_args;

  g_option_context_set_summary (context, "Lists the operations (or the ones named): inputs, "
                                "parameters with their ranges and defaults, default launch.");
  if (!ks_cli_parse_options (context, entries, argc, argv, &args, &help, &error))
    return ks_cli_report_error (error);
  if (help)
    return KS_CLI_EXIT_OK;

  n_args = g_strv_length (args);
  for (guint i = 1; i < n_args; i++)
    if (ks_op_registry_lookup (args[i]) == NULL)
      {
        ks_cli_usage_error (&error, "unknown op “%s” (see %s ops)", args[i], g_get_prgname ());
        return ks_cli_report_error (error);
      }
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "ops");
      json_builder_begin_array (b);
      for (guint i = 0; i < (n_args > 1 ? n_args - 1 : ks_op_registry_count ()); i++)
        op_json (b, n_args > 1 ? ks_op_registry_lookup (args[i + 1]) : ks_op_registry_get (i));
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      ks_cli_emit_json (root, TRUE, NULL, NULL);
      return KS_CLI_EXIT_OK;
    }

  if (n_args > 1)
    {
      for (guint i = 1; i < n_args; i++)
        {
          if (i > 1)
            ks_cli_print ("\n");
          print_op (ks_op_registry_lookup (args[i]));
        }
      return KS_CLI_EXIT_OK;
    }
  for (guint i = 0; i < ks_op_registry_count (); i++)
    {
      if (i > 0)
        ks_cli_print ("\n");
      print_op (ks_op_registry_get (i));
    }
  return KS_CLI_EXIT_OK;
}
