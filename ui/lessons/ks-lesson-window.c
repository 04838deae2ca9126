/* ks-lesson-window.c: "Lessons" (see ks-lesson-window.h): the type, its
 * template, properties and actions, the lessons in the sidebar and the
 * lesson and variant shown, and the public API.
 *
 * The window's other concerns have files of their own (listed in
 * ks-lesson-window-private.h, with the struct they share). This one is the
 * top of them: it calls into all of them, and none calls back, so that the
 * template callbacks, the actions and every function that checks the type
 * are here. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-lesson-cells.h"
#include "ks-lesson-window-private.h"
#include "ks-ui-util.h"

G_DEFINE_FINAL_TYPE (KsLessonWindow, ks_lesson_window, ADW_TYPE_WINDOW)

/* ---- what the defects are, in words ------------------------------------------------------- */

static const struct
{
  const char *id;
  const char *text;
} defect_names[] = {
  { "P2", N_("P2: surplus threads read past the input before the bounds test") },
  { "P3", N_("P3: the output is never cleared, so results pile onto whatever it held") },
  { "P5", N_("P5: numpy.int is int64 on Linux, so the int kernel reads the pixels wrongly") },
  { "P6", N_("P6: the check compares two booleans and passes a wrong result") },
  { "P9", N_("P9: “if d_c == (d_a + d_b)” is true for any array, right or wrong") },
  { "P10", N_("P10: the 257th thread writes past the 256-entry table") },
  { "P11", N_("P11: one pixel per thread makes more global atomics than no shared memory at all") },
  { "P13", N_("P13: gray values are truncated instead of rounded") },
  { "P14", N_("P14: a hard-coded size breaks on any other size") },
  { "P15", N_("P15: one time around compilation, copies and kernel, against a Python-style loop") },
  { "P16", N_("P16: increments without atomics race, and updates are lost") },
  { "P18", N_("P18: device printf is unordered and shows only when the host waits") },
};

static char *
describe_defects (const char *defects)
{
  g_auto (GStrv) ids = g_strsplit (defects, " ", -1);
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; ids[i] != NULL; i++)
    {
      const char *text = ids[i];

      if (ids[i][0] == '\0')
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (defect_names); k++)
        if (g_str_equal (defect_names[k].id, ids[i]))
          text = _(defect_names[k].text);
      if (s->len > 0)
        g_string_append_c (s, '\n');
      g_string_append (s, text);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- lessons and variants ---------------------------------------------------------------------- */

static void
show_variant (KsLessonWindow *self)
{
  const KsLessonVariant *v = self->variant;
  g_autofree char *defects = describe_defects (v->defects);

  gtk_label_set_label (self->variant_label, v->description);
  gtk_label_set_label (self->defects_label, defects);
  gtk_widget_set_visible (GTK_WIDGET (self->defects_label), defects[0] != '\0');
  if (v->sanitizer != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("This defect shows only under a sanitizer on "
                                                 "CUDA. compute-sanitizer reports: %s."),
                                               v->sanitizer);

      gtk_label_set_label (self->sanitizer_label, text);
    }
  _ks_lesson_window_drop_sanitizer (self);
  _ks_lesson_window_update_sanitizer (self);
  _ks_lesson_window_load_source (self);
  /* Another lesson or variant starts from its own launch. */
  self->grid = self->block = (KsDim3) { 0, 0, 0 };
  _ks_lesson_window_update_launch (self);
  self->generation++;
  self->cancelled = FALSE;
  _ks_lesson_window_clear_results (self);
  g_clear_pointer (&self->report, ks_lesson_report_free);
  _ks_lesson_window_update_actions (self);
  _ks_lesson_window_request_run (self);
  _ks_lesson_window_update_status (self, NULL);
}

static void
set_variant (KsLessonWindow *self, const KsLessonVariant *variant)
{
  if (variant == self->variant)
    return;
  self->variant = variant;
  show_variant (self);
}

static void
on_variant_toggled_cb (GtkToggleButton *button, KsLessonWindow *self)
{
  if (self->syncing || !gtk_toggle_button_get_active (button))
    return;
  set_variant (self, g_object_get_data (G_OBJECT (button), "ks-variant"));
}

static void
on_variant_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, KsLessonWindow *self)
{
  guint selected = gtk_drop_down_get_selected (dropdown);

  if (self->syncing || self->lesson == NULL || selected >= self->lesson->n_variants)
    return;
  set_variant (self, &self->lesson->variants[selected]);
}

/* Two variants are a switch (Fixed / As in the book); more are a dropdown. */
static void
build_variant_controls (KsLessonWindow *self)
{
  const KsLesson *l = self->lesson;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->variant_box))) != NULL)
    gtk_box_remove (self->variant_box, child);
  self->syncing = TRUE;
  if (l->n_variants == 1)
    gtk_box_append (self->variant_box,
                    _ks_lesson_window_new_label (_("Fixed: the book’s example has no defect to "
                                                   "show here"),
                                                 "dim-label"));
  else if (l->n_variants == 2)
    {
      GtkWidget *first = NULL;

      for (guint i = 0; i < 2; i++)
        {
          GtkWidget *button = gtk_toggle_button_new_with_label (l->variants[i].title);

          g_object_set_data (G_OBJECT (button), "ks-variant", (gpointer) &l->variants[i]);
          gtk_widget_set_name (button, l->variants[i].id);
          if (first != NULL)
            gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), GTK_TOGGLE_BUTTON (first));
          else
            first = button;
          gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button),
                                        &l->variants[i] == self->variant);
          g_signal_connect_object (button, "toggled", G_CALLBACK (on_variant_toggled_cb), self,
                                   G_CONNECT_DEFAULT);
          gtk_box_append (self->variant_box, button);
        }
    }
  else
    {
      GtkStringList *titles = gtk_string_list_new (NULL);
      GtkWidget *dropdown;

      for (guint i = 0; i < l->n_variants; i++)
        gtk_string_list_append (titles, l->variants[i].title);
      dropdown = gtk_drop_down_new (G_LIST_MODEL (titles), NULL);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown),
                                  (guint) (self->variant - l->variants));
      g_signal_connect_object (dropdown, "notify::selected",
                               G_CALLBACK (on_variant_selected_cb), self, G_CONNECT_DEFAULT);
      gtk_box_append (self->variant_box, dropdown);
    }
  self->syncing = FALSE;
}

static void
sync_variant_controls (KsLessonWindow *self)
{
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->variant_box));

  self->syncing = TRUE;
  for (; child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_TOGGLE_BUTTON (child))
        gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (child),
                                      g_object_get_data (G_OBJECT (child), "ks-variant")
                                        == self->variant);
      else if (GTK_IS_DROP_DOWN (child))
        gtk_drop_down_set_selected (GTK_DROP_DOWN (child),
                                    (guint) (self->variant - self->lesson->variants));
    }
  self->syncing = FALSE;
}

static void
show_lesson (KsLessonWindow *self, const KsLesson *lesson)
{
  g_autofree char *script = NULL;
  g_autofree char *subtitle = NULL;

  self->lesson = lesson;
  self->variant = &lesson->variants[0];
  subtitle = g_strdup_printf ("%s · %s", lesson->id, lesson->title);
  adw_window_title_set_subtitle (self->window_title, subtitle);
  gtk_label_set_label (self->title_label, lesson->title);
  script = g_strdup_printf (_("Lesson %s, from the tutorial’s %s"), lesson->id, lesson->script);
  gtk_label_set_label (self->script_label, script);
  gtk_label_set_label (self->explanation_label, lesson->explanation);
  build_variant_controls (self);
  if (lesson->live_op != NULL && !self->probed)
    _ks_lesson_window_probe_camera (self);
  _ks_lesson_window_update_live (self);
  show_variant (self);
}

static void
on_lesson_selected_cb (GtkListBox *box, GtkListBoxRow *row, KsLessonWindow *self)
{
  const KsLesson *lesson;

  if (row == NULL)
    return;
  lesson = g_object_get_data (G_OBJECT (row), "ks-lesson");
  if (lesson != NULL && lesson != self->lesson)
    show_lesson (self, lesson);
}

static void
header_func (GtkListBoxRow *row, GtkListBoxRow *before, gpointer user_data)
{
  const KsLesson *lesson = g_object_get_data (G_OBJECT (row), "ks-lesson");
  const KsLesson *previous = before != NULL ? g_object_get_data (G_OBJECT (before), "ks-lesson")
                                            : NULL;
  GtkWidget *header;

  if (previous != NULL && strncmp (previous->id, lesson->id, 2) == 0)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  header = _ks_lesson_window_new_label (g_str_has_prefix (lesson->id, "11")
                                          ? _("Chapter 11: PyCUDA basics")
                                          : _("Chapter 12: image processing"),
                                        "heading");
  gtk_label_set_selectable (GTK_LABEL (header), FALSE);
  gtk_widget_set_margin_top (header, before != NULL ? 12 : 6);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_widget_set_margin_start (header, 12);
  gtk_list_box_row_set_header (row, header);
}

static void
fill_sidebar (KsLessonWindow *self)
{
  guint n = 0;
  const KsLesson *const *lessons = ks_lesson_registry (&n);

  gtk_list_box_set_header_func (self->lesson_list, header_func, NULL, NULL);
  for (guint i = 0; i < n; i++)
    {
      const KsLesson *l = lessons[i];
      GtkWidget *row = gtk_list_box_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (l->title);
      g_autoptr (GString) sub = g_string_new (l->id);

      for (guint k = 0; k < l->n_variants; k++)
        if (l->variants[k].defects[0] != '\0')
          g_string_append_printf (sub, " · %s", l->variants[k].defects);
      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_wrap (GTK_LABEL (title), TRUE);
      gtk_box_append (GTK_BOX (box), title);
      gtk_box_append (GTK_BOX (box), _ks_lesson_window_new_label (sub->str, "dim-label"));
      gtk_label_set_selectable (GTK_LABEL (gtk_widget_get_last_child (box)), FALSE);
      gtk_widget_add_css_class (gtk_widget_get_last_child (box), "caption");
      gtk_widget_set_margin_top (box, 4);
      gtk_widget_set_margin_bottom (box, 4);
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data (G_OBJECT (row), "ks-lesson", (gpointer) l);
      gtk_widget_set_name (row, l->id);
      gtk_list_box_append (self->lesson_list, row);
    }
}

/* ---- editor, presenter mode, engine -------------------------------------------------------- */

static void
on_buffer_changed_cb (GtkTextBuffer *buffer, KsLessonWindow *self)
{
  if (self->loading)
    return;
  _ks_lesson_window_update_edit_label (self);
  _ks_lesson_window_update_actions (self);
}

/* The teacher's projector: large type while the main window is in presenter mode. */
static void
on_parent_classes_cb (GtkWidget *parent, GParamSpec *pspec, KsLessonWindow *self)
{
  if (gtk_widget_has_css_class (parent, "ks-presenter"))
    gtk_widget_add_css_class (GTK_WIDGET (self), "ks-presenter");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "ks-presenter");
  for (guint i = 0; i < self->heat_pictures->len; i++)
    _ks_lesson_window_size_heat_picture (self, g_ptr_array_index (self->heat_pictures, i));
}

static void
on_engine_changed_cb (KsPipeline *pipeline, GParamSpec *pspec, KsLessonWindow *self)
{
  _ks_lesson_window_update_edit_label (self);
  _ks_lesson_window_update_status (self, NULL);
  _ks_lesson_window_update_sanitizer (self);
}

static void
on_owners_toggled_cb (GtkToggleButton *button, KsLessonWindow *self)
{
  gboolean show = gtk_toggle_button_get_active (button);

  for (guint i = 0; i < self->cells->len; i++)
    ks_lesson_cells_set_show_owners (g_ptr_array_index (self->cells, i), show);
}

static void
run_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_lesson_window_run (KS_LESSON_WINDOW (widget));
}

static void
reset_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_lesson_window_reset_source (KS_LESSON_WINDOW (widget));
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ks_lesson_window_cancel (KS_LESSON_WINDOW (widget));
}

static void
sanitize_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_lesson_window_start_sanitize (KS_LESSON_WINDOW (widget));
}

static void
cancel_sanitize_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_lesson_window_cancel_sanitize (KS_LESSON_WINDOW (widget));
}

static void
live_camera_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ks_lesson_window_open_live_camera (KS_LESSON_WINDOW (widget));
}

/* Esc stops a run in flight, else compute-sanitizer's; with neither, it
 * closes the window as before. (Presenter mode's Esc belongs to the main
 * window, not to this one.) */
static gboolean
escape_cb (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (widget);

  if (self->job != NULL)
    _ks_lesson_window_cancel_run (self);
  else if (self->sanitize_cancellable != NULL)
    _ks_lesson_window_cancel_sanitize (self);
  else
    gtk_window_close (GTK_WINDOW (self));
  return TRUE;
}

/* ---- GObject ----------------------------------------------------------------------------------- */

static void
ks_lesson_window_constructed (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);
  GtkWindow *parent;
  GtkListBoxRow *first;

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->constructed (object);
  g_return_if_fail (KS_IS_PIPELINE (self->pipeline));
  g_signal_connect_object (self->pipeline, "notify::engine", G_CALLBACK (on_engine_changed_cb),
                           self, G_CONNECT_DEFAULT);
  parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  if (parent != NULL)
    {
      g_signal_connect_object (parent, "notify::css-classes", G_CALLBACK (on_parent_classes_cb),
                               self, G_CONNECT_DEFAULT);
      on_parent_classes_cb (GTK_WIDGET (parent), NULL, self);
    }
  fill_sidebar (self);
  first = gtk_list_box_get_row_at_index (self->lesson_list, 0);
  if (first != NULL)
    gtk_list_box_select_row (self->lesson_list, first);
  _ks_lesson_window_update_actions (self);
}

static void
ks_lesson_window_dispose (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  /* A run in flight stops at its next repeat, stage or block; its callback
   * finds the window gone. */
  self->closed = TRUE;
  self->job = NULL;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  _ks_lesson_window_cancel_sanitize (self);
  g_clear_object (&self->sanitize_cancellable);
  if (self->probe != NULL)
    g_cancellable_cancel (self->probe);
  g_clear_object (&self->probe);
  g_clear_object (&self->pipeline);
  g_clear_object (&self->buffer);
  if (self->result_widgets != NULL)
    g_hash_table_remove_all (self->result_widgets);
  if (self->cells != NULL)
    g_ptr_array_set_size (self->cells, 0);
  if (self->heat_pictures != NULL)
    g_ptr_array_set_size (self->heat_pictures, 0);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_LESSON_WINDOW);

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->dispose (object);
}

static void
ks_lesson_window_finalize (GObject *object)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  g_clear_pointer (&self->report, ks_lesson_report_free);
  g_free (self->pristine);
  g_free (self->camera);
  g_free (self->sanitize_message);
  g_hash_table_unref (self->result_widgets);
  g_ptr_array_unref (self->cells);
  g_ptr_array_unref (self->heat_pictures);

  G_OBJECT_CLASS (ks_lesson_window_parent_class)->finalize (object);
}

static void
ks_lesson_window_get_property (GObject *object, guint prop_id, GValue *value,
                               GParamSpec *pspec)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, self->pipeline);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, ks_lesson_window_get_running (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_lesson_window_set_property (GObject *object, guint prop_id, const GValue *value,
                               GParamSpec *pspec)
{
  KsLessonWindow *self = KS_LESSON_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      self->pipeline = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_lesson_window_class_init (KsLessonWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ks_lesson_window_constructed;
  object_class->dispose = ks_lesson_window_dispose;
  object_class->finalize = ks_lesson_window_finalize;
  object_class->get_property = ks_lesson_window_get_property;
  object_class->set_property = ks_lesson_window_set_property;

  _ks_lesson_window_properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  _ks_lesson_window_properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, _ks_lesson_window_properties);

  /* Languages and style schemes; a second call does nothing. */
  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/kernelscope/Kernelscope/ui/"
                                               "ks-lesson-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, lesson_list);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, content_scroller);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, script_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, variant_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, variant_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, defects_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitizer_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitizer_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_spinner);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_cancel_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_status_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, sanitize_results_box);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, live_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, source_heading);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, source_name_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, reset_button);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, source_view);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, edit_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, launch_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, owners_toggle);
  gtk_widget_class_bind_template_child (widget_class, KsLessonWindow, results_box);
  gtk_widget_class_bind_template_callback (widget_class, on_lesson_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_owners_toggled_cb);

  gtk_widget_class_install_action (widget_class, "lesson.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "lesson.reset", NULL, reset_action);
  gtk_widget_class_install_action (widget_class, "lesson.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "lesson.sanitize", NULL, sanitize_action);
  gtk_widget_class_install_action (widget_class, "lesson.cancel-sanitize", NULL,
                                   cancel_sanitize_action);
  gtk_widget_class_install_action (widget_class, "lesson.live-camera", NULL,
                                   live_camera_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "lesson.run", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "lesson.run",
                                       NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_Escape, 0, escape_cb, NULL);
}

static void
ks_lesson_window_init (KsLessonWindow *self)
{
  self->result_widgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cells = g_ptr_array_new ();
  self->heat_pictures = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  _ks_lesson_window_build_launch_row (self);

  self->buffer = g_object_ref (GTK_SOURCE_BUFFER (
    gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view))));
  ks_ui_source_buffer_init_cuda (self->buffer);
  g_signal_connect_object (self->buffer, "changed", G_CALLBACK (on_buffer_changed_cb), self,
                           G_CONNECT_DEFAULT);
}

/* ---- public ----------------------------------------------------------------------------------- */

GtkWidget *
ks_lesson_window_new (GtkWindow *parent, KsPipeline *pipeline)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (KS_IS_PIPELINE (pipeline), NULL);
  return g_object_new (KS_TYPE_LESSON_WINDOW, "transient-for", parent, "pipeline", pipeline,
                       NULL);
}

KsPipeline *
ks_lesson_window_get_pipeline (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->pipeline;
}

gboolean
ks_lesson_window_select (KsLessonWindow *self, const char *name)
{
  const KsLesson *lesson;
  GtkListBoxRow *row;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  lesson = ks_lesson_lookup (name);
  if (lesson == NULL)
    return FALSE;
  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->lesson_list, i)) != NULL; i++)
    if (g_object_get_data (G_OBJECT (row), "ks-lesson") == lesson)
      {
        gtk_list_box_select_row (self->lesson_list, row);
        break;
      }
  /* Selecting the lesson shown goes back to its fixed variant. */
  if (self->lesson == lesson && self->variant != &lesson->variants[0])
    {
      self->variant = &lesson->variants[0];
      sync_variant_controls (self);
      show_variant (self);
    }
  return self->lesson == lesson;
}

const KsLesson *
ks_lesson_window_get_lesson (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->lesson;
}

gboolean
ks_lesson_window_select_variant (KsLessonWindow *self, const char *id)
{
  const KsLessonVariant *variant;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  if (self->lesson == NULL)
    return FALSE;
  variant = ks_lesson_lookup_variant (self->lesson, id);
  if (variant == NULL)
    return FALSE;
  if (variant != self->variant)
    {
      self->variant = variant;
      sync_variant_controls (self);
      show_variant (self);
    }
  return TRUE;
}

const KsLessonVariant *
ks_lesson_window_get_variant (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->variant;
}

void
ks_lesson_window_run (KsLessonWindow *self)
{
  g_return_if_fail (KS_IS_LESSON_WINDOW (self));
  _ks_lesson_window_request_run (self);
}

void
ks_lesson_window_cancel (KsLessonWindow *self)
{
  g_return_if_fail (KS_IS_LESSON_WINDOW (self));
  _ks_lesson_window_cancel_run (self);
}

gboolean
ks_lesson_window_get_running (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  return self->job != NULL;
}

const KsLessonReport *
ks_lesson_window_get_report (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->report;
}

guint
ks_lesson_window_get_n_runs (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), 0);
  return self->n_runs;
}

GtkSourceBuffer *
ks_lesson_window_get_buffer (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return self->buffer;
}

gboolean
ks_lesson_window_get_edited (KsLessonWindow *self)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), FALSE);
  return _ks_lesson_window_is_edited (self);
}

void
ks_lesson_window_reset_source (KsLessonWindow *self)
{
  g_return_if_fail (KS_IS_LESSON_WINDOW (self));
  if (self->lesson == NULL)
    return;
  self->loading = TRUE;
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), self->pristine, -1);
  self->loading = FALSE;
  _ks_lesson_window_update_edit_label (self);
  _ks_lesson_window_update_actions (self);
}

GtkWidget *
ks_lesson_window_get_result_widget (KsLessonWindow *self, const char *key)
{
  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  return g_hash_table_lookup (self->result_widgets, key);
}

char *
ks_lesson_window_describe_heatmap (KsLessonWindow *self, const char *key, double x, double y)
{
  GtkWidget *picture;
  HeatView *hv;

  g_return_val_if_fail (KS_IS_LESSON_WINDOW (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  picture = g_hash_table_lookup (self->result_widgets, key);
  hv = picture != NULL ? g_object_get_data (G_OBJECT (picture), "ks-heat-view") : NULL;
  return hv != NULL ? _ks_lesson_window_heat_view_describe (hv, picture, x, y) : NULL;
}
