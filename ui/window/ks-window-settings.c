/* What the window keeps in GSettings beyond its size: the last op, its
 * parameters, launch and engine (given back at the next start), the engine and
 * launch defaults of the preferences, and the style. A value that does not
 * fit (an op that no longer exists, a parameter out of its range, a launch
 * with a zero side) is skipped on its own: the rest still comes back.
 *
 * An application window that finds a last session file (ks-session.c) is
 * set up from it once it is read, after these: the session was written by
 * the same close as these keys, so both agree, and where they do not the
 * session wins. These keys are what a window starts from without one. */
#include "config.h"

#include <adwaita.h>

#include "ks-window-private.h"
#include "ks-op-registry.h"

void
_ks_window_settings_save (GSettings *settings, KsPipeline *pipeline)
{
  const KsOp *op = ks_pipeline_get_op (pipeline);
  const KsParams *params = ks_pipeline_get_params (pipeline);
  const KsLaunchConfig *l = ks_pipeline_get_launch (pipeline);
  KsEngine *engine = ks_pipeline_get_engine (pipeline);
  GVariantBuilder values;

  g_return_if_fail (G_IS_SETTINGS (settings) && KS_IS_PIPELINE (pipeline));
  if (op == NULL)
    return;
  g_variant_builder_init (&values, G_VARIANT_TYPE ("a{sd}"));
  for (guint p = 0; p < op->n_params; p++)
    g_variant_builder_add (&values, "{sd}", op->params[p].name, params->values[p]);
  g_settings_delay (settings);
  g_settings_set_string (settings, "last-op", op->id);
  g_settings_set_value (settings, "last-params", g_variant_builder_end (&values));
  g_settings_set (settings, "last-launch", "(uuuuuubbu)", l->block.x, l->block.y, l->block.z,
                  l->grid.x, l->grid.y, l->grid.z, l->auto_grid,
                  l->mode == KS_LAUNCH_GRID_STRIDE, l->pixels_per_thread);
  /* The CPU engine as a choice, not as the fallback of a machine without CUDA:
   * that one must not keep a GPU installed later off. */
  if (engine != NULL)
    g_settings_set_string (settings, "last-engine",
                           ks_engine_is_cuda (engine) ? "cuda"
                           : ks_cuda_available (NULL) ? "cpu" : "");
  g_settings_apply (settings);
}

/* The launch rule of sessions (ks-session-parse.c), against the CPU device's
 * limits, which are CUDA's: the device the launch will meet is not known yet,
 * and the pipeline's validation judges it against that one once it is. */
static gboolean
launch_fits (const KsLaunchConfig *l)
{
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  g_autoptr (GError) error = NULL;

  if (ks_launch_config_check_limits (l, ks_device_get_limits (cpu), NULL, &error))
    return TRUE;
  g_debug ("The last launch is left out: %s", error->message);
  return FALSE;
}

void
_ks_window_settings_restore (GSettings *settings, KsPipeline *pipeline)
{
  g_autofree char *op_id = NULL;
  g_autoptr (GVariant) saved = NULL;
  GVariantIter iter;
  const char *name;
  double value;
  const KsOp *op;
  g_autofree char *defaults = NULL;
  KsLaunchConfig l = *ks_pipeline_get_launch (pipeline);
  gboolean stride = FALSE, restored_launch = FALSE;

  g_return_if_fail (G_IS_SETTINGS (settings) && KS_IS_PIPELINE (pipeline));
  if (g_settings_get_boolean (settings, "restore-last"))
    {
      op_id = g_settings_get_string (settings, "last-op");
      op = *op_id != '\0' ? ks_op_registry_lookup (op_id) : NULL;
      if (op != NULL)
        {
          ks_pipeline_set_op (pipeline, op);
          saved = g_settings_get_value (settings, "last-params");
          g_variant_iter_init (&iter, saved);
          while (g_variant_iter_next (&iter, "{&sd}", &name, &value))
            {
              guint index;
              KsParams trial = *ks_pipeline_get_params (pipeline);

              if (ks_op_lookup_param (op, name, &index) == NULL)
                continue;
              trial.values[index] = value;
              if (ks_params_validate (&trial, op, NULL))
                ks_pipeline_set_param (pipeline, index, value);
            }
        }
      g_settings_get (settings, "last-launch", "(uuuuuubbu)", &l.block.x, &l.block.y,
                      &l.block.z, &l.grid.x, &l.grid.y, &l.grid.z, &l.auto_grid, &stride,
                      &l.pixels_per_thread);
      l.mode = stride ? KS_LAUNCH_GRID_STRIDE : KS_LAUNCH_PER_PIXEL;
      if (launch_fits (&l))
        {
          ks_pipeline_set_launch (pipeline, &l);
          restored_launch = TRUE;
        }
    }
  /* Teaching: a new launch covers one pixel per thread, one pass. */
  defaults = g_settings_get_string (settings, "launch-defaults");
  if (!restored_launch && g_str_equal (defaults, "teaching"))
    {
      l = *ks_pipeline_get_launch (pipeline);
      l.pixels_per_thread = 1;
      l.mode = KS_LAUNCH_PER_PIXEL;
      ks_pipeline_set_launch (pipeline, &l);
    }
}

KsDevice *
_ks_window_settings_start_device (GSettings *settings, GError **error)
{
  g_autofree char *engine = NULL;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  if (g_settings_get_boolean (settings, "restore-last"))
    engine = g_settings_get_string (settings, "last-engine");
  if (engine == NULL || *engine == '\0')
    {
      g_free (engine);
      engine = g_settings_get_string (settings, "default-engine");
    }
  if (g_str_equal (engine, "cpu"))
    return ks_device_get_cpu ();
  if (g_str_equal (engine, "cuda") && ks_cuda_available (NULL))
    return ks_device_get_cuda (g_settings_get_int (settings, "default-device"), error);
  return NULL;
}

static void
on_color_scheme_changed_cb (GSettings *settings, const char *key, gpointer user_data)
{
  g_autofree char *scheme = g_settings_get_string (settings, "color-scheme");
  AdwColorScheme value = ADW_COLOR_SCHEME_DEFAULT;

  if (g_str_equal (scheme, "light"))
    value = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_str_equal (scheme, "dark"))
    value = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), value);
}

void
_ks_window_settings_follow_style (GSettings *settings, gpointer owner)
{
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_signal_connect_object (settings, "changed::color-scheme",
                           G_CALLBACK (on_color_scheme_changed_cb), owner, 0);
  on_color_scheme_changed_cb (settings, NULL, NULL);
}

/* Teaching launches one pixel per thread in one pass, so that the grid a
 * student computes by hand is the one that runs; the fastest gives each op
 * back its own pixels per thread. Changed while a window is open, the
 * current launch follows at once. */
static void
on_launch_defaults_changed_cb (GSettings *settings, const char *key, KsPipeline *pipeline)
{
  g_autofree char *defaults = g_settings_get_string (settings, "launch-defaults");
  KsLaunchConfig l = *ks_pipeline_get_launch (pipeline);

  if (g_str_equal (defaults, "teaching"))
    {
      l.pixels_per_thread = 1;
      l.mode = KS_LAUNCH_PER_PIXEL;
    }
  else
    l.pixels_per_thread = 0;
  ks_pipeline_set_launch (pipeline, &l);
}

void
_ks_window_settings_follow_launch_defaults (GSettings *settings, KsPipeline *pipeline)
{
  g_return_if_fail (G_IS_SETTINGS (settings) && KS_IS_PIPELINE (pipeline));
  g_signal_connect_object (settings, "changed::launch-defaults",
                           G_CALLBACK (on_launch_defaults_changed_cb), pipeline, 0);
}
