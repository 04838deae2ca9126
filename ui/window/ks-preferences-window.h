/* ks-preferences-window.h: the preferences, an AdwPreferencesWindow over the
 * application's GSettings. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define KS_TYPE_PREFERENCES_WINDOW (ks_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (KsPreferencesWindow, ks_preferences_window, KS, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

/* Every row is bound to settings: a change is saved at once. */
KsPreferencesWindow *ks_preferences_window_new (GtkWindow *parent, GSettings *settings);

G_END_DECLS
