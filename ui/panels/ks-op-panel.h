/* ks-op-panel.h: the operation panel — the op registry grouped and searchable,
 * the chosen op's description, and widgets generated from its typed parameters.
 * Every change goes to the pipeline, which re-runs the op. */
#pragma once

#include <gtk/gtk.h>

#include "ks-panel.h"

G_BEGIN_DECLS

#define KS_TYPE_OP_PANEL (ks_op_panel_get_type ())
G_DECLARE_FINAL_TYPE (KsOpPanel, ks_op_panel, KS, OP_PANEL, KsPanel)

GtkWidget  *ks_op_panel_new          (void);
/* KsPanel's "pipeline", with the panel's type checked (the tests call it). */
void        ks_op_panel_set_pipeline (KsOpPanel *self, KsPipeline *pipeline);

G_END_DECLS
