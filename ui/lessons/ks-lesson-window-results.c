/* ks-lesson-window-results.c: the parts of a KsLessonWindow's result area
 * that the report, its heatmaps and timings and the sanitizer's findings
 * are built of: which arrays are too large for cells, which output the
 * check flagged and which of its elements differ, the labels, sections and
 * text views, and the widgets remembered by key for
 * ks_lesson_window_get_result_widget. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "ks-lesson-window-private.h"

/* Arrays up to this many elements are shown as cells (12-02's book variant
 * has 257 bins, the 257th its guard slot); longer ones as a summary and a
 * heatmap. */
#define CELL_LIMIT 320
/* Matrices wider than this are a heatmap even when small enough. */
#define CELL_COLS_LIMIT 32

gboolean
_ks_lesson_window_is_large (const KsArray *a)
{
  return a->length > CELL_LIMIT || a->cols > CELL_COLS_LIMIT;
}

const KsLessonArray *
_ks_lesson_window_checked_output (const KsLessonReport *r)
{
  const KsLessonCheck *c = &r->check;

  if (c->passed || c->differing == 0 || c->output == NULL || c->expected_values == NULL)
    return NULL;
  return ks_lesson_report_find (r, c->output);
}

/* Whether element i differs from the reference, as the check decides it:
 * further than the tolerance, or NaN on either side. */
gboolean
_ks_lesson_window_element_differs (const KsArray *expected, const KsArray *actual, gsize i,
                                   double tolerance)
{
  if (i >= expected->length || i >= actual->length)
    return FALSE;
  return !(fabs (ks_array_get_double (expected, i) - ks_array_get_double (actual, i))
           <= tolerance);
}

void
_ks_lesson_window_clear_results (KsLessonWindow *self)
{
  GtkWidget *child;

  g_hash_table_remove_all (self->result_widgets);
  g_ptr_array_set_size (self->cells, 0);
  g_ptr_array_set_size (self->heat_pictures, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->results_box))) != NULL)
    gtk_box_remove (self->results_box, child);
}

void
_ks_lesson_window_remember (KsLessonWindow *self, const char *key, GtkWidget *widget)
{
  g_hash_table_insert (self->result_widgets, g_strdup (key), widget);
}

GtkWidget *
_ks_lesson_window_new_label (const char *text, const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

GtkWidget *
_ks_lesson_window_new_section (GtkBox *parent, const char *title)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  gtk_box_append (GTK_BOX (box), _ks_lesson_window_new_label (title, "heading"));
  gtk_box_append (parent, box);
  return box;
}

GtkWidget *
_ks_lesson_window_new_text_view (const char *text, gboolean wrap)
{
  GtkWidget *view = gtk_text_view_new ();

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), wrap ? GTK_WRAP_WORD_CHAR : GTK_WRAP_NONE);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 6);
  return view;
}

/* How many elements of the checked output differ, under its heading. */
void
_ks_lesson_window_add_difference_count (KsLessonWindow *self, GtkBox *box, const char *key,
                                        const KsLessonCheck *c)
{
  g_autofree char *k = g_strdup_printf ("%" G_GSIZE_FORMAT, c->differing);
  g_autofree char *n = g_strdup_printf ("%" G_GSIZE_FORMAT, c->compared);
  g_autofree char *text = NULL;
  g_autofree char *count_key = g_strconcat (key, ":differences", NULL);
  GtkWidget *label;

  /* TRANSLATORS: "3 of 25 elements differ from the reference". */
  text = g_strdup_printf (ngettext ("%s of %s element differs from the reference",
                                    "%s of %s elements differ from the reference",
                                    (gulong) MIN (c->differing, G_MAXULONG)),
                          k, n);
  label = _ks_lesson_window_new_label (text, "error");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (box, label);
  _ks_lesson_window_remember (self, count_key, label);
}
