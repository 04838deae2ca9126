/* ks-array-view-private.h: what the files of the array view share: its
 * instance, the widgets of an argument's row, its signal table and the
 * functions one file calls in another. ks-array-view.c (the type and its
 * public functions) calls into bindings, rows and results; bindings call
 * rows, and so does results for the file dialogs; rows call no other. */
#pragma once

#include "ks-array-view.h"

G_BEGIN_DECLS

/* The widgets of one argument's row. */
typedef struct
{
  GtkWidget *row;              /* AdwExpanderRow (pointers) or AdwActionRow (scalars) */
  GtkImage *check_icon;
  char *declared;              /* "const float *a" */
  /* pointers */
  GtkDropDown *type_dropdown;
  GtkStringList *type_names;   /* the dropdown's: the ten scalars, then value types */
  GtkSpinButton *length_spin;
  GtkDropDown *init_dropdown;
  GtkStringList *init_names;   /* the dropdown's */
  KsArrayInit inits[KS_ARRAY_INIT_FILE + 1];  /* what each of its choices is */
  guint n_inits;
  GtkWidget *start_row;
  GtkWidget *step_row;
  GtkWidget *value_row;
  GtkWidget *seed_row;
  GtkWidget *mean_row;
  GtkWidget *sd_row;
  GtkWidget *file_row;
  GtkSpinButton *start_spin;
  GtkSpinButton *step_spin;
  GtkSpinButton *value_spin;
  GtkSpinButton *seed_spin;
  GtkSpinButton *mean_spin;
  GtkSpinButton *sd_spin;
  GtkDropDown *direction_dropdown;
  /* scalars */
  GtkEditable *value_entry;
} ArgRow;

/* What an entry of the results' dropdown shows. */
typedef struct
{
  char *name;
  guint result;          /* index in results, or G_MAXUINT for an input */
  KsBinding *input;      /* inputs: what makes the array again */
  KsKernelArg *arg;      /* inputs: the pointer it bound (a struct's layout) */
} ArrayChoice;

struct _KsArrayView
{
  GtkWidget parent_instance;

  /* template widgets */
  GtkListBox *args_list;
  GtkLabel *no_args_label;
  GtkWidget *summary_box;
  GtkImage *summary_icon;
  GtkLabel *summary_label;
  GtkWidget *results_box;
  GtkDropDown *array_dropdown;
  GtkLabel *shape_label;
  GtkStack *results_stack;
  GtkColumnView *column_view;
  GtkGrid *matrix_grid;
  GtkLabel *results_error_label;

  /* owned */
  GPtrArray *args;          /* KsKernelArg */
  GPtrArray *bindings;      /* KsBinding, one per argument, in order */
  GPtrArray *extra;         /* KsBinding set for names that are no argument */
  GPtrArray *rows;          /* ArgRow, one per argument */
  GPtrArray *messages;      /* KsDiagnostic of the last full check */
  KsBindingCheck check;
  GPtrArray *run_inputs;    /* KsBinding of the in arrays of the last create_arrays */
  GPtrArray *run_input_args; /* KsKernelArg: the pointers they bound, in the same order */
  GPtrArray *results;       /* KsArray, or NULL */
  GPtrArray *choices;       /* ArrayChoice */
  GPtrArray *shown_owner;   /* holds the shown array */
  const KsArray *shown;     /* borrowed from shown_owner */
  char *shown_name;
  GtkFileChooserNative *chooser;

  /* Set while widgets are updated from the bindings, so that their change
   * signals do not write the same values back. */
  gboolean syncing;
};

enum
{
  SIGNAL_BINDINGS_CHANGED,
  N_SIGNALS
};

extern guint _ks_array_view_signals[N_SIGNALS];

/* ks-array-view-rows.c */
void               _ks_array_view_arg_row_free    (gpointer data);
const KsKernelArg *_ks_array_view_get_arg         (KsArrayView *self, guint index);
KsBinding         *_ks_array_view_get_binding     (KsArrayView *self, guint index);
ArgRow            *_ks_array_view_get_row         (KsArrayView *self, guint index);
void               _ks_array_view_update_summary  (KsArrayView *self);
void               _ks_array_view_update_checks   (KsArrayView *self);
void               _ks_array_view_sync_row        (KsArrayView *self, guint index);
void               _ks_array_view_rebuild_rows    (KsArrayView *self);
/* Makes an array binding's elements the pointee's type: a scalar, a vector
 * or complex type, or a struct by name (which starts from zeros unless
 * from a file). */
void               _ks_array_view_set_pointee     (KsBinding *binding, const KsKernelArg *arg);
/* Whether an array binding's elements are the pointee's type. */
gboolean           _ks_array_view_has_pointee     (const KsBinding *binding,
                                                   const KsKernelArg *arg);
/* The file dialogs' (a row's data file, the results' "Save…"). */
void               _ks_array_view_add_filter      (GtkFileChooser *chooser, const char *title,
                                                   const char *pattern);
GtkWindow         *_ks_array_view_toplevel_window (KsArrayView *self);

/* ks-array-view-bindings.c */
void       _ks_array_view_set_signature (KsArrayView *self, const GPtrArray *args);
gboolean   _ks_array_view_set_bindings  (KsArrayView *self, const char *const *texts,
                                         GError **error);
GPtrArray *_ks_array_view_create_arrays (KsArrayView *self, GError **error);

/* ks-array-view-results.c */
void     _ks_array_view_class_init_results (GtkWidgetClass *widget_class);
void     _ks_array_view_set_list_model     (KsArrayView *self, GListModel *model);
void     _ks_array_view_set_results        (KsArrayView *self, GPtrArray *arrays,
                                            const char *const *names);
gboolean _ks_array_view_show_array         (KsArrayView *self, const char *name);
gboolean _ks_array_view_save_shown         (KsArrayView *self, GFile *file, GError **error);

G_END_DECLS
