/* ks-lesson-window-report.c: a run's report in a KsLessonWindow's result
 * area, which it replaces wholesale: the check and the book's own check,
 * the inputs beside the outputs (as cells, each naming the block and
 * thread that wrote it; as 11-02's tables of device attributes; or as a
 * summary and heatmap), images, steps, device printf, atomics, refused
 * accesses, notes and the timings. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-lesson-cells.h"
#include "ks-lesson-window-private.h"

/* ---- cells and pictures ------------------------------------------------------------------- */

static KsLessonCells *
add_cells (KsLessonWindow *self, GtkBox *box, const KsArray *array, const gint32 *block_of,
           const gint32 *thread_of, const KsDim3 *grid, const KsDim3 *block)
{
  GtkWidget *cells = ks_lesson_cells_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();

  ks_lesson_cells_set_array (KS_LESSON_CELLS (cells), array, block_of, thread_of, grid, block);
  ks_lesson_cells_set_show_owners (KS_LESSON_CELLS (cells),
                                   gtk_toggle_button_get_active (self->owners_toggle));
  /* A wide matrix scrolls sideways in its own place instead of widening the window. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), cells);
  gtk_box_append (box, scroller);
  g_ptr_array_add (self->cells, cells);
  return KS_LESSON_CELLS (cells);
}

static GtkWidget *
new_picture (GBytes *pixels, int width, int height)
{
  g_autoptr (GdkTexture) texture = gdk_memory_texture_new (width, height,
                                                           GDK_MEMORY_R8G8B8A8, pixels,
                                                           (gsize) width * 4);
  GtkWidget *picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_halign (picture, GTK_ALIGN_START);
  return picture;
}

/* ---- 11-02's attributes ------------------------------------------------------------------ */

/* 11-02's arrays: a device's 84 attributes in the order printed, or per
 * device (a row each) its compute capability, memory and then those 84.
 * The number of leading values, or -1 for another array. */
static int
attribute_lead (const KsLessonReport *r, const KsArray *a)
{
  guint n = 0;

  ks_lesson_device_attributes (&n);
  if (!r->lesson->host_only || a->type != KS_ELEM_INT64)
    return -1;
  if (a->length == n)
    return 0;
  if (a->cols == n + 3)
    return 3;
  return -1;
}

/* One name and its value in an attribute table; the value red with what
 * was expected where it differs from the check's reference. */
static void
attach_attribute (GtkGrid *grid, int column, int row, const char *name, const char *tooltip,
                  const KsArray *a, gsize i, const KsArray *expected, double tolerance)
{
  gint64 v = (gint64) ks_array_get_double (a, i);
  g_autofree char *text = v < 0 ? g_strdup ("—") : ks_array_format_element (a, i);
  GtkWidget *name_label = _ks_lesson_window_new_label (name, "monospace");
  GtkWidget *value_label = _ks_lesson_window_new_label (text, "monospace");

  gtk_label_set_wrap (GTK_LABEL (name_label), FALSE);
  gtk_label_set_xalign (GTK_LABEL (value_label), 1);
  gtk_widget_set_tooltip_text (name_label, tooltip);
  if (v < 0)
    gtk_widget_set_tooltip_text (value_label,
                                 _("Not printed: the device does not report this attribute"));
  if (expected != NULL && _ks_lesson_window_element_differs (expected, a, i, tolerance))
    {
      g_autofree char *e = ks_array_format_element (expected, i);
      g_autofree char *says = g_strdup_printf (_("Differs from the reference: expected %s, "
                                                 "got %s"), e, text);

      gtk_widget_add_css_class (value_label, "error");
      gtk_widget_set_tooltip_text (value_label, says);
    }
  gtk_grid_attach (grid, name_label, column, row, 1, 1);
  gtk_grid_attach (grid, value_label, column + 1, row, 1, 1);
}

/* The attributes by name and value in two pairs of columns, read down
 * (the names sorted as the book prints them); the leading values of a
 * device's row first. */
static GtkWidget *
new_attribute_table (const KsArray *a, gsize offset, int lead, const KsArray *expected,
                     double tolerance)
{
  const char *const lead_names[3] = { N_("Compute capability, major"),
                                      N_("Compute capability, minor"),
                                      N_("Total memory, GB (rounded down)") };
  guint n = 0;
  const KsLessonDeviceAttribute *attributes = ks_lesson_device_attributes (&n);
  guint total = n + (guint) lead;
  guint half = (total + 1) / 2;
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  gtk_grid_set_column_spacing (grid, 12);
  gtk_grid_set_row_spacing (grid, 2);
  for (guint k = 0; k < total; k++)
    {
      int column = k < half ? 0 : 3;
      int row = (int) (k % half);

      if (k < (guint) lead)
        attach_attribute (grid, column, row, _(lead_names[k]), NULL, a, offset + k, expected,
                          tolerance);
      else
        {
          const KsLessonDeviceAttribute *at = &attributes[k - lead];
          g_autofree char *tip = g_strdup_printf (_("%s in the CUDA runtime, attribute %d"),
                                                  at->cuda_name, at->attribute);

          attach_attribute (grid, column, row, at->name, tip, a, offset + k, expected,
                            tolerance);
        }
    }
  /* A gap between the two pairs of columns. */
  gtk_grid_attach (grid, gtk_separator_new (GTK_ORIENTATION_VERTICAL), 2, 0, 1, (int) half);
  return GTK_WIDGET (grid);
}

static void
add_attribute_tables (KsLessonWindow *self, GtkBox *box, const KsLessonArray *la, int lead,
                      const char *key, RunJob *job, gboolean checked)
{
  const KsArray *a = la->array;
  const KsArray *expected = checked ? job->report->check.expected_values : NULL;
  gsize rows = lead == 0 ? 1 : a->rows;
  GtkWidget *tables = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  for (gsize d = 0; d < rows; d++)
    {
      GtkWidget *table = new_attribute_table (a, d * (a->cols > 0 && lead > 0 ? a->cols : 0),
                                              lead, expected, job->tolerance);

      if (rows > 1)
        {
          g_autofree char *title = g_strdup_printf (_("Device #%u"), (guint) d);

          gtk_box_append (GTK_BOX (tables), _ks_lesson_window_new_label (title, "heading"));
        }
      gtk_box_append (GTK_BOX (tables), table);
    }
  if (checked)
    _ks_lesson_window_add_difference_count (self, box, key, &job->report->check);
  if (lead > 0)
    {
      /* The text read back is the same table again: folded unless it is wrong. */
      GtkWidget *expander = gtk_expander_new_with_mnemonic (_("_Table"));

      gtk_expander_set_child (GTK_EXPANDER (expander), tables);
      gtk_expander_set_expanded (GTK_EXPANDER (expander), checked);
      gtk_box_append (box, expander);
    }
  else
    gtk_box_append (box, tables);
  _ks_lesson_window_remember (self, key, tables);
}

/* ---- the report ---------------------------------------------------------------------------- */

static void
add_arrays (KsLessonWindow *self, GtkBox *column, const GPtrArray *arrays, const char *prefix,
            RunJob *job)
{
  const KsLessonReport *r = job->report;
  const KsLessonArray *checked = g_str_equal (prefix, "output")
                                   ? _ks_lesson_window_checked_output (r) : NULL;

  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);
      const KsArray *a = la->array;
      g_autofree char *key = g_strdup_printf ("%s:%s", prefix, la->name);
      g_autofree char *heading = NULL;
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);

      if (a->cols > 0)
        heading = g_strdup_printf ("%s  (%s, %s, %" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT ")",
                                   la->name, la->role, ks_elem_type_short_name (a->type),
                                   a->rows, a->cols);
      else
        heading = g_strdup_printf ("%s  (%s, %s, %" G_GSIZE_FORMAT ")", la->name, la->role,
                                   ks_elem_type_short_name (a->type), a->length);
      gtk_box_append (GTK_BOX (box), _ks_lesson_window_new_label (heading, "monospace"));
      if (attribute_lead (r, a) >= 0)
        add_attribute_tables (self, GTK_BOX (box), la, attribute_lead (r, a), key, job,
                              la == checked);
      else if (_ks_lesson_window_is_large (a))
        _ks_lesson_window_add_summary (self, GTK_BOX (box), la, key, job, la == checked);
      else
        {
          KsLessonCells *cells;

          if (la == checked)
            _ks_lesson_window_add_difference_count (self, GTK_BOX (box), key, &r->check);
          cells = add_cells (self, GTK_BOX (box), a, la->block_of, la->thread_of, &r->grid,
                             &r->block);
          if (la == checked)
            ks_lesson_cells_set_reference (cells, r->check.expected_values, job->tolerance);
          _ks_lesson_window_remember (self, key, GTK_WIDGET (cells));
        }
      gtk_box_append (column, box);
    }
}

static void
add_data (KsLessonWindow *self, RunJob *job)
{
  const KsLessonReport *r = job->report;
  const GPtrArray *lists[2] = { r->inputs, r->outputs };
  const char *const prefixes[2] = { "input", "output" };
  const char *const titles[2] = { _("Inputs"), _("Outputs") };
  GtkWidget *flow;

  if (r->inputs->len == 0 && r->outputs->len == 0)
    return;
  /* Inputs beside outputs while the window is wide enough, one above the other when not. */
  flow = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 2);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (flow), 24);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (flow), 12);
  gtk_widget_set_can_focus (flow, FALSE);
  for (guint k = 0; k < 2; k++)
    {
      GtkWidget *column;

      if (lists[k]->len == 0)
        continue;
      column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
      gtk_widget_set_valign (column, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (column), _ks_lesson_window_new_label (titles[k], "heading"));
      add_arrays (self, GTK_BOX (column), lists[k], prefixes[k], job);
      gtk_flow_box_append (GTK_FLOW_BOX (flow), column);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (flow); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    gtk_widget_set_can_focus (c, FALSE);
  gtk_box_append (self->results_box, flow);
}

static void
add_check (KsLessonWindow *self, const KsLessonReport *r)
{
  const KsLessonCheck *c = &r->check;
  g_autofree char *text = NULL;
  GtkWidget *label;

  if (c->summary == NULL)
    return;
  if (c->passed)
    text = g_strdup_printf (_("✓ Checked against %s: %s"), c->against, c->summary);
  else
    text = g_strdup_printf (_("✗ Checked against %s: %s"), c->against, c->summary);
  label = _ks_lesson_window_new_label (text, c->passed ? "success" : "error");
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (self->results_box, label);
  _ks_lesson_window_remember (self, "check", label);
  if (_ks_lesson_window_checked_output (r) != NULL)
    gtk_box_append (self->results_box,
                    _ks_lesson_window_new_label (_("Every element that differs from the reference "
                                                   "is red: hover it for the value expected. Cells "
                                                   "no thread wrote are orange."), "dim-label"));

  if (r->book_check.present)
    {
      const KsLessonBookCheck *b = &r->book_check;
      g_autoptr (GString) s = g_string_new (NULL);

      g_string_append_printf (s, _("The book’s check, %s, says “%s” on this result"),
                              b->description,
                              b->says_correct_on_result ? _("correct") : _("wrong"));
      g_string_append_printf (s, _(", and “%s” on a deliberately wrong one (%s)."),
                              b->says_correct_on_wrong ? _("correct") : _("wrong"),
                              b->wrong_description);
      if (b->says_correct_on_wrong)
        {
          g_string_append_c (s, ' ');
          g_string_append (s, _("It passes a wrong result: the check is vacuous."));
        }
      if (b->real_check_catches_wrong)
        {
          g_string_append_c (s, ' ');
          g_string_append (s, _("The element-wise comparison catches the wrong one."));
        }
      label = _ks_lesson_window_new_label (s->str,
                                           b->says_correct_on_wrong ? "ks-error-box" : NULL);
      gtk_box_append (self->results_box, label);
      _ks_lesson_window_remember (self, "book-check", label);
    }
  if (r->cuda)
    {
      g_autofree char *cmp = NULL;

      if (r->matches_cpu)
        cmp = g_strdup (_("CUDA and the CPU engine’s twin give the same outputs."));
      else
        cmp = g_strdup_printf (_("CUDA and the CPU engine’s twin differ: %s"),
                               r->cpu_difference != NULL ? r->cpu_difference : "");
      gtk_box_append (self->results_box,
                      _ks_lesson_window_new_label (cmp, r->matches_cpu ? NULL : "warning"));
    }
}

static void
add_images (KsLessonWindow *self, RunJob *job)
{
  GtkWidget *section, *row;

  if (job->images->len == 0)
    return;
  section = _ks_lesson_window_new_section (self->results_box, _("Images"));
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 18);
  for (guint i = 0; i < job->images->len; i++)
    {
      const ImagePixels *p = g_ptr_array_index (job->images, i);
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      GtkWidget *picture = new_picture (p->pixels, p->width, p->height);
      g_autofree char *key = g_strdup_printf ("image:%s", p->name);

      gtk_box_append (GTK_BOX (box), picture);
      gtk_box_append (GTK_BOX (box), _ks_lesson_window_new_label (p->name, "monospace"));
      gtk_box_append (GTK_BOX (row), box);
      _ks_lesson_window_remember (self, key, picture);
    }
  /* Side by side; a narrow window scrolls them. */
  {
    GtkWidget *scroller = gtk_scrolled_window_new ();

    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                    GTK_POLICY_NEVER);
    gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), row);
    gtk_box_append (GTK_BOX (section), scroller);
  }
}

/* A text in columns (11-02's two attributes a line) keeps them: it scrolls
 * sideways in its own place instead of wrapping. */
static GtkWidget *
new_unwrapped_text (GtkWidget *view)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  return scroller;
}

static void
add_printf (KsLessonWindow *self, const KsLessonReport *r)
{
  gboolean host = r->lesson->host_only;
  GtkWidget *section, *view, *shown;

  if (r->printf_output == NULL || r->printf_output[0] == '\0')
    return;
  section = _ks_lesson_window_new_section (self->results_box, host ? _("What the script prints")
                                                                   : _("Device printf"));
  view = _ks_lesson_window_new_text_view (r->printf_output, !host);
  shown = host ? new_unwrapped_text (view) : view;
  gtk_widget_add_css_class (shown, "card");
  gtk_box_append (GTK_BOX (section), shown);
  _ks_lesson_window_remember (self, "printf", view);
}

static void
add_steps (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section;

  if (r->steps->len == 0)
    return;
  section = _ks_lesson_window_new_section (self->results_box, _("Step by step"));
  for (guint i = 0; i < r->steps->len; i++)
    {
      const KsLessonStep *step = g_ptr_array_index (r->steps, i);
      g_autofree char *title = g_strdup_printf (_("Step %u: %s"), i, step->title);
      g_autofree char *key = g_strdup_printf ("step:%u", i);
      KsLessonCells *cells;

      gtk_box_append (GTK_BOX (section), _ks_lesson_window_new_label (title, NULL));
      cells = add_cells (self, GTK_BOX (section), step->values, NULL, NULL, NULL, NULL);
      _ks_lesson_window_remember (self, key, GTK_WIDGET (cells));
    }
}

static void
add_atomics_and_faults (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section, *label;

  if (r->atomics.counted)
    {
      g_autofree char *global = g_strdup_printf ("%" G_GUINT64_FORMAT, r->atomics.global);
      g_autofree char *shared = g_strdup_printf ("%" G_GUINT64_FORMAT, r->atomics.shared);
      g_autofree char *text = NULL;

      section = _ks_lesson_window_new_section (self->results_box, _("Atomic operations"));
      text = g_strdup_printf (_("%s on global memory, %s on shared memory"), global, shared);
      label = _ks_lesson_window_new_label (text, "title-4");
      gtk_box_append (GTK_BOX (section), label);
      _ks_lesson_window_remember (self, "atomics", label);
      if (r->atomics.how != NULL)
        gtk_box_append (GTK_BOX (section),
                        _ks_lesson_window_new_label (r->atomics.how, "dim-label"));
    }
  if (r->n_faults > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, r->n_faults);
      g_autofree char *text = NULL;
      g_autoptr (GString) list = g_string_new (NULL);

      section = _ks_lesson_window_new_section (self->results_box, _("What the checks found"));
      text = g_strdup_printf (ngettext ("The CPU engine’s checks found %s problem, an access "
                                        "it refused or a race (on a GPU it would have gone "
                                        "unnoticed):",
                                        "The CPU engine’s checks found %s problems, accesses "
                                        "it refused or races (on a GPU they would have gone "
                                        "unnoticed):",
                                        (gulong) MIN (r->n_faults, G_MAXULONG)),
                              count);
      label = _ks_lesson_window_new_label (text, "warning");
      gtk_box_append (GTK_BOX (section), label);
      _ks_lesson_window_remember (self, "faults", label);
      for (guint i = 0; i < r->faults->len; i++)
        g_string_append_printf (list, "%s%s", i > 0 ? "\n" : "",
                                (const char *) g_ptr_array_index (r->faults, i));
      if (r->n_faults > r->faults->len)
        {
          g_autofree char *more = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                   r->n_faults - r->faults->len);

          g_string_append_c (list, '\n');
          g_string_append_printf (list, _("… and %s more"), more);
        }
      gtk_box_append (GTK_BOX (section), _ks_lesson_window_new_label (list->str, "monospace"));
    }
}

static void
add_notes (KsLessonWindow *self, const KsLessonReport *r)
{
  GtkWidget *section = NULL;

  /* The sanitizer's findings are shown with the variant, not among the notes. */
  for (guint i = 0; i < r->notes->len; i++)
    {
      const char *note = g_ptr_array_index (r->notes, i);

      if (section == NULL)
        {
          section = _ks_lesson_window_new_section (self->results_box, _("What the run shows"));
          _ks_lesson_window_remember (self, "notes", section);
        }
      gtk_box_append (GTK_BOX (section), _ks_lesson_window_new_label (note, NULL));
    }
}

void
_ks_lesson_window_show_report (KsLessonWindow *self, RunJob *job)
{
  const KsLessonReport *r = job->report;

  _ks_lesson_window_clear_results (self);
  add_check (self, r);
  add_data (self, job);
  add_images (self, job);
  add_steps (self, r);
  add_printf (self, r);
  add_atomics_and_faults (self, r);
  add_notes (self, r);
  _ks_lesson_window_add_timings (self, r);
}
