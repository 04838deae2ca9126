#pragma once

#include "ks-op.h"

G_BEGIN_DECLS

/* Every built-in op, in the order of the op files (op_files in the top-level
 * meson.build) and, within a file, of its list. */
guint         ks_op_registry_count      (void);
const KsOp   *ks_op_registry_get        (guint index);
const KsOp   *ks_op_registry_lookup     (const char *id);

G_END_DECLS
