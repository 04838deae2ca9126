/* ks-kernel-panel-private.h: what the files of the kernel panel share: its
 * instance, its property and signal tables, and the functions one file
 * calls in another. ks-kernel-panel.c (the type, its actions and public
 * functions) calls into the others; files call the editor; the editor
 * calls the arrays, the cards and the includes (include folders, the kernel
 * chooser), which compile again through the kernel.compile action; all of
 * them call status, which calls none. The declaration form
 * (ks-kernel-panel-declared.c) is called by the type's file only and calls
 * the files (its text goes in through set_text) and the editor; the form is
 * left through status, by whichever file puts other text in. */
#pragma once

#include <adwaita.h>

#include "ks-array-view.h"
#include "ks-declared-kernel.h"
#include "ks-kernel-panel.h"
#include "ks-param-editor.h"

G_BEGIN_DECLS

struct _KsKernelPanel
{
  KsPanel parent_instance;

  /* template widgets */
  GtkToggleButton *expression_button;
  GtkToggleButton *image_button;
  GtkToggleButton *any_button;
  GtkLabel *title_label;
  GtkDropDown *kernel_dropdown;
  GtkStringList *kernel_list;
  GtkLabel *include_label;
  GtkSourceView *source_view;
  GtkStack *bottom_stack;
  GtkListBox *diagnostics_list;
  AdwPreferencesGroup *resources_group;
  AdwActionRow *registers_row;
  AdwActionRow *shared_row;
  AdwActionRow *local_row;
  AdwActionRow *spill_row;
  AdwActionRow *max_threads_row;
  AdwActionRow *arch_row;
  GtkLabel *no_params_label;
  KsParamEditor *params_group;
  GtkStackPage *arrays_page;
  GtkLabel *arrays_label;
  KsArrayView *array_view;
  GtkLabel *status_label;
  GtkWidget *declaration_box;
  AdwComboRow *declared_kind_row;
  AdwEntryRow *declared_name_row;
  AdwEntryRow *declared_arguments_row;
  AdwEntryRow *declared_operation_row;
  AdwEntryRow *declared_map_row;
  AdwEntryRow *declared_combine_row;
  AdwEntryRow *declared_dtype_row;
  AdwEntryRow *declared_neutral_row;
  AdwEntryRow *declared_preamble_row;
  AdwActionRow *declared_out_of_place_row;
  GtkSwitch *declared_out_of_place_switch;

  /* owned references */
  KsWorker *own_worker;         /* without a pipeline: compilation only */
  GtkSourceBuffer *buffer;
  GFile *file;
  char *name;                   /* the file's or the template's; NULL: after the mode */
  char *title;
  char *status;
  GCancellable *compile_cancellable;
  KsKernelSource *last_good;
  KsCompileResult *last_good_compiled;
  GPtrArray *diagnostics;       /* KsDiagnostic of the newest finished compile */
  GStrv include_dirs;           /* searched after the file's folder; never NULL */
  char *kernel;                 /* the chooser's pick among several kernels, or NULL */
  GtkTextTag *error_tag;
  GtkTextTag *warning_tag;

  KsKernelMode mode;
  gboolean active;
  gboolean loading;             /* the text is being replaced: not an edit */
  gboolean syncing;             /* the mode buttons follow the mode: not the user */
  gboolean syncing_kernels;     /* the chooser follows the text: not the user */
  guint debounce_source;
  guint generation;             /* of the newest compile asked for */
  guint version;
  guint64 dynamic_shared;

  /* a declared kernel (ks-kernel-panel-declared.c): the form generates the text */
  gboolean declared;
  gboolean filling;             /* the form is being filled: not an edit */
  guint declared_debounce;
  KsDeclaredKind declared_kind; /* of the newest text the form generated */
  const char *const *declared_example; /* bindings the next compile applies, static */
};

enum
{
  PROP_0,
  PROP_ACTIVE,
  PROP_MODE,
  PROP_TITLE,
  PROP_STATUS,
  N_PROPS
};

extern GParamSpec *_ks_kernel_panel_properties[N_PROPS];

enum
{
  SIGNAL_ARRAYS_RAN,
  SIGNAL_ERROR,
  N_SIGNALS
};

extern guint _ks_kernel_panel_signals[N_SIGNALS];

/* ks-kernel-panel-status.c */
/* Hides the declaration form, the text staying (unless it is the form's own). */
void        _ks_kernel_panel_leave_declared (KsKernelPanel *self);
void        _ks_kernel_panel_set_status   (KsKernelPanel *self, const char *text);
const char *_ks_kernel_panel_file_name    (KsKernelPanel *self);
void        _ks_kernel_panel_update_title (KsKernelPanel *self);
void        _ks_kernel_panel_report_error (KsKernelPanel *self, const char *message);
KsWorker   *_ks_kernel_panel_worker_of    (KsKernelPanel *self);
char       *_ks_kernel_panel_buffer_text  (KsKernelPanel *self);

/* ks-kernel-panel-cards.c */
void _ks_kernel_panel_class_init_cards  (GtkWidgetClass *widget_class);
void _ks_kernel_panel_show_resources    (KsKernelPanel *self, const KsKernelResources *r);
void _ks_kernel_panel_sync_param_values (KsKernelPanel *self);
void _ks_kernel_panel_show_params       (KsKernelPanel *self, KsKernelSource *source);

/* ks-kernel-panel-arrays.c */
void _ks_kernel_panel_show_arrays_page (KsKernelPanel *self, KsKernelSource *source);
void _ks_kernel_panel_run_arrays       (KsKernelPanel *self);

/* ks-kernel-panel-editor.c */
void _ks_kernel_panel_class_init_editor (GtkWidgetClass *widget_class);
void _ks_kernel_panel_setup_editor      (KsKernelPanel *self);
void _ks_kernel_panel_compile_now       (KsKernelPanel *self);
void _ks_kernel_panel_apply_live        (KsKernelPanel *self);
void _ks_kernel_panel_sync_mode_buttons (KsKernelPanel *self);
void _ks_kernel_panel_set_mode          (KsKernelPanel *self, KsKernelMode mode);

/* ks-kernel-panel-includes.c */
void            _ks_kernel_panel_class_init_includes (GtkWidgetClass *widget_class);
KsKernelSource *_ks_kernel_panel_new_source     (KsKernelPanel *self, const char *text);
void            _ks_kernel_panel_show_kernels   (KsKernelPanel *self, KsKernelSource *source);
void            _ks_kernel_panel_set_include_dirs (KsKernelPanel *self, const char *const *dirs);
void            _ks_kernel_panel_set_kernel     (KsKernelPanel *self, const char *kernel);
void            _ks_kernel_panel_choose_include_dir (KsKernelPanel *self);

/* ks-kernel-panel-declared.c */
void     _ks_kernel_panel_class_init_declared (GtkWidgetClass *widget_class);
gboolean _ks_kernel_panel_load_declared  (KsKernelPanel *self, const char *name);
gboolean _ks_kernel_panel_get_declaration (KsKernelPanel *self, KsDeclaration *declaration);
/* Fills the form and regenerates; bindings (static, or NULL) are what the
 * first compile binds. */
void     _ks_kernel_panel_set_declaration (KsKernelPanel *self, const KsDeclaration *declaration,
                                           const char *const *bindings);

/* ks-kernel-panel-editor.c, for a problem found before compiling */
void _ks_kernel_panel_show_problem      (KsKernelPanel *self, const KsDiagnostic *diagnostic);

/* ks-kernel-panel-files.c */
void     _ks_kernel_panel_set_text      (KsKernelPanel *self, const char *text);
gboolean _ks_kernel_panel_load_template (KsKernelPanel *self, const char *name, GError **error);
void     _ks_kernel_panel_open_file     (KsKernelPanel *self, GFile *file);
void     _ks_kernel_panel_save_file     (KsKernelPanel *self, GFile *file);
void     _ks_kernel_panel_choose_file   (KsKernelPanel *self, gboolean save);

G_END_DECLS
