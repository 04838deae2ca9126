/* What the window takes from GSettings beyond its size: the engine and
 * launch defaults of the preferences, and the style. The last state of a
 * window (its op, parameters, launch, engine, inputs, kernel) is not kept
 * here: the last session file (ks-session-window.c) holds all of it, and an
 * application window that finds one is set up from it once it is read,
 * after these defaults. Without one (the first start, restore-last off, a
 * file that is refused) the window keeps the op's own defaults. */
#include "config.h"

#include <adwaita.h>

#include "ks-window-private.h"

/* Teaching: a new launch covers one pixel per thread, one pass. */
void
_ks_window_settings_apply_launch_defaults (GSettings *settings, KsPipeline *pipeline)
{
  g_autofree char *defaults = NULL;
  KsLaunchConfig l;

  g_return_if_fail (G_IS_SETTINGS (settings) && KS_IS_PIPELINE (pipeline));
  defaults = g_settings_get_string (settings, "launch-defaults");
  if (g_str_equal (defaults, "teaching"))
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
  engine = g_settings_get_string (settings, "default-engine");
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
