/* ks-panel.h: what every panel of the main window is: a widget that shows
 * and edits one pipeline. KsPanel holds the "pipeline" property and a signal
 * group on it, so that a panel connects its handlers to the pipeline's
 * signals once, in its init, and they follow whichever pipeline it is given.
 * A panel that must refresh when it is given another pipeline overrides
 * pipeline_changed. Its children are unparented when it is disposed. */
#pragma once

#include <gtk/gtk.h>

#include "ks-pipeline.h"

G_BEGIN_DECLS

#define KS_TYPE_PANEL (ks_panel_get_type ())
G_DECLARE_DERIVABLE_TYPE (KsPanel, ks_panel, KS, PANEL, GtkWidget)

struct _KsPanelClass
{
  GtkWidgetClass parent_class;

  /* After the panel took the new pipeline (either may be NULL; never the
   * same), before "pipeline" is notified. Not called when it is disposed. */
  void (*pipeline_changed) (KsPanel *self, KsPipeline *old_pipeline, KsPipeline *pipeline);
};

void          ks_panel_set_pipeline (KsPanel *self, KsPipeline *pipeline);
KsPipeline   *ks_panel_get_pipeline (KsPanel *self);
/* Targets the panel's pipeline; connect with g_signal_group_connect_object. */
GSignalGroup *ks_panel_get_signals  (KsPanel *self);

G_END_DECLS
