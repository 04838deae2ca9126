/* ks-param-editor.h: one row per typed parameter (KsParamSpec): a slider and
 * its value for a number, a spin button for a whole number, a switch for a
 * flag, a drop-down for a choice. The op panel shows the built-in op's
 * parameters with it, the kernel panel a user kernel's declared ones. */
#pragma once

#include <adwaita.h>

#include "ks-op.h"

G_BEGIN_DECLS

#define KS_TYPE_PARAM_EDITOR (ks_param_editor_get_type ())
G_DECLARE_FINAL_TYPE (KsParamEditor, ks_param_editor, KS, PARAM_EDITOR, AdwPreferencesGroup)

GtkWidget *ks_param_editor_new            (void);
/* Rows for the first KS_OP_MAX_PARAMS specs (copied), each showing its
 * default. Specs equal to the shown ones keep their rows, so that a slider
 * being dragged survives a kernel's recompile. */
void       ks_param_editor_set_specs      (KsParamEditor *self, const KsParamSpec *specs,
                                           guint n_specs);
guint      ks_param_editor_get_n_specs    (KsParamEditor *self);
/* Shows the values (in the order of the specs) without emitting "value-changed". */
void       ks_param_editor_set_values     (KsParamEditor *self, const KsParams *values);
/* Property "show-names": each row's subtitle is the parameter's name, as a
 * kernel's source spells it, instead of its description. */
void       ks_param_editor_set_show_names (KsParamEditor *self, gboolean show_names);
gboolean   ks_param_editor_get_show_names (KsParamEditor *self);

/* Signal "value-changed" (guint index, double value): the user changed the
 * widget of parameter `index`; bools are 0 or 1, choices an index. */

G_END_DECLS
