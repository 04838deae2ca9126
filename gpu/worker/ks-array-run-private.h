/* ks-array-run-private.h: what the files of an array run share: the
 * module's variables a request sets and reads (ks-array-globals.c), bound
 * to its launch by ks-array-run.c. */
#pragma once

#include "ks-array-run.h"

G_BEGIN_DECLS

/* The request's globals and read_globals on the launch, by their PTX names,
 * each found in the compiled module and checked against its size and
 * declared type (KS_ERROR_INVALID_ARGUMENT naming it and what the module
 * has). global_names gets the names read back, in the order of the run
 * result's globals. */
gboolean      _ks_array_bind_globals    (const KsArrayRunRequest *request,
                                         const KsCompileResult *compiled,
                                         KsWorkerLaunch *launch, GPtrArray *global_names,
                                         GError **error);

G_END_DECLS
