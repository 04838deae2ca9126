/* ks-array-view.h: the arguments of a kernel in the "any" mode bound to
 * arrays and values, and the arrays a run produced, as tables of numbers.
 *
 * One row per argument: for a pointer its element type (a scalar, or the
 * pointee's vector, complex or struct type: float4, c64, Particle), length,
 * initial data and direction; for a scalar its value, as the command line
 * writes it (400, (1, 2, 3), 1.5-2j, {pos=(1, 2, 3), mass=2}). Each row
 * shows what ks_bindings_check finds in it, and a summary lists every
 * finding. The results area shows one array at a time (the run's out and
 * inout arrays and the inputs it was given) as an index/value list, one
 * item a row (ks_array_format_item), or as a grid of cells for small
 * matrices, and saves it as .csv or .npy. */
#pragma once

#include <gtk/gtk.h>

#include "ks-array.h"
#include "ks-user-kernel.h"

G_BEGIN_DECLS

/* The default length of new arrays, until the user picks another one. */
#define KS_ARRAY_VIEW_DEFAULT_LENGTH 1024
/* The longest array the length field accepts: 2^28 elements. */
#define KS_ARRAY_VIEW_MAX_LENGTH (1u << 28)

#define KS_TYPE_ARRAY_VIEW (ks_array_view_get_type ())
G_DECLARE_FINAL_TYPE (KsArrayView, ks_array_view, KS, ARRAY_VIEW, GtkWidget)

GtkWidget      *ks_array_view_new            (void);

/* The entry point's arguments (KsKernelArg, copied). Arguments whose name and
 * kind (pointer or scalar) are unchanged keep their bindings; a kept array
 * whose element type was the old pointee's follows the new pointee. New
 * arguments get ks_bindings_default's, with the length of the arrays already
 * bound (KS_ARRAY_VIEW_DEFAULT_LENGTH when there are none). */
void            ks_array_view_set_signature  (KsArrayView *self, const GPtrArray *args);

/* KsBinding, a new array the caller owns: one per argument in the
 * arguments' order, then any binding set for a name that is no argument. */
GPtrArray      *ks_array_view_get_bindings   (KsArrayView *self);
/* Bindings in the command line's syntax ("a=f32[400]:random(7)", "n=400"),
 * one text each. Each replaces the binding of its argument; one for a name
 * that is no argument is kept, and the check reports it. Nothing changes
 * when a text does not parse (KS_ERROR_INVALID_ARGUMENT naming it). */
gboolean        ks_array_view_set_bindings   (KsArrayView *self, const char *const *texts,
                                              GError **error);

/* The worst finding of ks_bindings_check over all bindings: the caller
 * refuses to run on KS_BINDING_ERROR. */
KsBindingCheck  ks_array_view_get_check      (KsArrayView *self);
/* KsDiagnostic: every finding, as the summary lists them (a new array). */
GPtrArray      *ks_array_view_get_messages   (KsArrayView *self);

/* The arrays to run with: one KsArray per pointer argument, in the
 * arguments' order (scalars have none; ks_binding_pack_scalar packs them).
 * Fails with KS_ERROR_INVALID_ARGUMENT when the check finds an error, or
 * with the error of an array that could not be made (a file that does not
 * load). The input arrays' bindings are remembered, so that the results
 * area can show what the run was given. */
GPtrArray      *ks_array_view_create_arrays  (KsArrayView *self, GError **error);

/* The run's out and inout arrays (KsArray, in the order of names), shown in
 * the results area; the view keeps a reference on arrays, which must not
 * change afterwards. An array with an element type is a list of its items;
 * another with cols > 0 is a rows × cols matrix. NULL clears the results. */
void            ks_array_view_set_results    (KsArrayView *self, GPtrArray *arrays,
                                              const char *const *names);
/* Chooses the shown array by its name (a result or an input); FALSE when
 * there is none of that name. */
gboolean        ks_array_view_show_array     (KsArrayView *self, const char *name);
/* What "Save…" writes: the shown array to file, as .npy when its name ends
 * in .npy, else as .csv ("index,value" rows for vectors, plain rows for
 * matrices). */
gboolean        ks_array_view_save_shown     (KsArrayView *self, GFile *file, GError **error);

G_END_DECLS
