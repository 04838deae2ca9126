/* ks-lesson-window-heatmap.c: a long array in a KsLessonWindow's result
 * area, as a summary and a heatmap. Its pixels are made on the runner with
 * the rest of a run (each the mean of the elements it covers, and for the
 * checked output a second picture of its differences); the picture shows
 * them, switches between values and differences, follows presenter mode,
 * and says in its tooltip which elements lie under the pointer. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "ks-lesson-window-private.h"

/* The longest side of a heatmap, in pixels: each is the mean of its elements. */
#define HEATMAP_SIDE 256
/* Values a long array's summary lists at each end. */
#define SUMMARY_VALUES 6
/* The side a heatmap is drawn at when it has fewer pixels, and in presenter
 * mode (whose type is half as large again) the side of every heatmap. */
#define HEATMAP_MIN_SIDE 192
#define HEATMAP_PRESENTER_SCALE 1.5

void
_ks_lesson_window_heatmap_free (gpointer data)
{
  Heatmap *h = data;

  g_free (h->key);
  g_bytes_unref (h->pixels);
  g_clear_pointer (&h->diff_pixels, g_bytes_unref);
  g_free (h);
}

/* Viridis at five stops: ordered in lightness, so it reads in gray on a projector too. */
static void
colormap (double t, guint8 *rgba)
{
  static const guint8 stops[5][3] = {
    { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 },
  };
  double x = CLAMP (t, 0, 1) * 4;
  guint k = MIN ((guint) x, 3u);
  double f = x - k;

  for (guint c = 0; c < 3; c++)
    rgba[c] = (guint8) lround (stops[k][c] + f * (stops[k + 1][c] - stops[k][c]));
  rgba[3] = 255;
}

/* A light gray for an element equal to its reference, lighter for larger
 * values, and red for one that differs: they differ in lightness as much
 * as in hue, so the red stands out in gray on a projector too. */
static void
difference_color (double t, gboolean differs, guint8 *rgba)
{
  if (differs)
    {
      rgba[0] = 224;
      rgba[1] = 27;
      rgba[2] = 36;
    }
  else
    rgba[0] = rgba[1] = rgba[2] = (guint8) lround (150 + 90 * CLAMP (t, 0, 1));
  rgba[3] = 255;
}

/* expected: the reference of the checked output, for its differences; NULL otherwise. */
Heatmap *
_ks_lesson_window_make_heatmap (const char *key, const KsArray *a, const KsArray *expected,
                                double tolerance)
{
  gsize cols = a->cols > 0 ? a->cols : (gsize) ceil (sqrt ((double) a->length));
  gsize rows = (a->length + cols - 1) / cols;
  gsize f = 1, w, h;
  g_autofree double *sums = NULL;
  g_autofree guint *counts = NULL;
  g_autofree guint *differing = NULL;
  guint8 *pixels;
  double lo = INFINITY, hi = -INFINITY;
  Heatmap *heat;

  while ((cols + f - 1) / f > HEATMAP_SIDE || (rows + f - 1) / f > HEATMAP_SIDE)
    f++;
  w = (cols + f - 1) / f;
  h = (rows + f - 1) / f;
  sums = g_new0 (double, w * h);
  counts = g_new0 (guint, w * h);
  if (expected != NULL)
    differing = g_new0 (guint, w * h);
  for (gsize i = 0; i < a->length; i++)
    {
      double v = ks_array_get_double (a, i);
      gsize cell = (i / cols / f) * w + (i % cols) / f;

      if (differing != NULL && _ks_lesson_window_element_differs (expected, a, i, tolerance))
        differing[cell]++;
      if (isnan (v))
        continue;
      sums[cell] += v;
      counts[cell]++;
    }
  for (gsize c = 0; c < w * h; c++)
    if (counts[c] > 0)
      {
        sums[c] /= counts[c];
        lo = MIN (lo, sums[c]);
        hi = MAX (hi, sums[c]);
      }
  pixels = g_malloc0 (w * h * 4);
  for (gsize c = 0; c < w * h; c++)
    if (counts[c] > 0)
      colormap (hi > lo ? (sums[c] - lo) / (hi - lo) : 0.5, pixels + c * 4);
  heat = g_new0 (Heatmap, 1);
  heat->key = g_strdup (key);
  heat->pixels = g_bytes_new_take (pixels, w * h * 4);
  if (differing != NULL)
    {
      guint8 *diff = g_malloc0 (w * h * 4);

      for (gsize c = 0; c < w * h; c++)
        {
          double t = counts[c] > 0 && hi > lo ? (sums[c] - lo) / (hi - lo) : 0.5;

          if (counts[c] == 0 && differing[c] == 0)
            continue;
          difference_color (t, differing[c] > 0, diff + c * 4);
        }
      heat->diff_pixels = g_bytes_new_take (diff, w * h * 4);
    }
  heat->width = (int) w;
  heat->height = (int) h;
  heat->rows = rows;
  heat->cols = cols;
  heat->f = f;
  heat->per = f * f;
  heat->lo = lo;
  heat->hi = hi;
  return heat;
}

static const Heatmap *
find_heatmap (RunJob *job, const char *key)
{
  for (guint i = 0; i < job->heatmaps->len; i++)
    {
      const Heatmap *h = g_ptr_array_index (job->heatmaps, i);

      if (g_str_equal (h->key, key))
        return h;
    }
  return NULL;
}

/* What a heatmap's picture needs to say what lies under the pointer. The
 * values are looked up in the window's report when asked: the result area
 * is rebuilt whenever the report changes, so they are always the ones
 * drawn. */
struct _HeatView
{
  KsLessonWindow *window;    /* borrowed: the picture is in its result area */
  char *name;                /* the array, among the report's inputs or outputs */
  gboolean output;
  GdkTexture *values;
  GdkTexture *differences;   /* NULL: not the checked output */
  GtkLabel *caption;         /* borrowed: the picture's caption */
  char *values_caption;
  char *differences_caption;
  gsize rows;                /* the elements' layout, and the f × f each pixel covers */
  gsize cols;
  gsize f;
  int width;
  int height;
  double tolerance;
  gboolean show_differences;
};

static void
heat_view_free (gpointer data)
{
  HeatView *hv = data;

  g_free (hv->name);
  g_clear_object (&hv->values);
  g_clear_object (&hv->differences);
  g_free (hv->values_caption);
  g_free (hv->differences_caption);
  g_free (hv);
}

static const KsArray *
heat_view_array (HeatView *hv)
{
  const KsLessonReport *r = hv->window->report;
  const GPtrArray *arrays;

  if (r == NULL)
    return NULL;
  arrays = hv->output ? r->outputs : r->inputs;
  for (guint i = 0; i < arrays->len; i++)
    {
      const KsLessonArray *la = g_ptr_array_index (arrays, i);

      if (g_str_equal (la->name, hv->name))
        return la->array;
    }
  return NULL;
}

/* "[2, 5]" in a matrix, "[37]" in a vector. */
static char *
element_position (const KsArray *a, gsize i)
{
  if (a->cols > 0)
    return g_strdup_printf ("[%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "]", i / a->cols,
                            i % a->cols);
  return g_strdup_printf ("[%" G_GSIZE_FORMAT "]", i);
}

char *
_ks_lesson_window_heat_view_describe (HeatView *hv, GtkWidget *picture, double x, double y)
{
  const KsArray *a = heat_view_array (hv);
  const KsArray *expected = NULL;
  double w = gtk_widget_get_width (picture), h = gtk_widget_get_height (picture);
  double scale = MIN (w / hv->width, h / hv->height);
  double fx, fy, sum = 0;
  gsize r0, c0, r1, c1, n = 0, n_sum = 0, n_diff = 0, first = G_MAXSIZE, last = 0, lowest = 0;
  g_autoptr (GString) s = g_string_new (NULL);

  if (a == NULL || scale <= 0)
    return NULL;
  if (hv->show_differences && hv->window->report != NULL)
    expected = hv->window->report->check.expected_values;
  /* GtkPicture centres the scaled heatmap in its allocation. */
  fx = (x - (w - hv->width * scale) / 2) / scale;
  fy = (y - (h - hv->height * scale) / 2) / scale;
  if (fx < 0 || fy < 0 || fx >= hv->width || fy >= hv->height)
    return NULL;
  r0 = (gsize) fy * hv->f;
  c0 = (gsize) fx * hv->f;
  r1 = MIN (r0 + hv->f, hv->rows);
  c1 = MIN (c0 + hv->f, hv->cols);
  for (gsize r = r0; r < r1; r++)
    for (gsize c = c0; c < c1; c++)
      {
        gsize i = r * hv->cols + c;
        double v;

        if (i >= a->length)
          continue;
        if (n++ == 0)
          lowest = i;
        last = i;
        v = ks_array_get_double (a, i);
        if (!isnan (v))
          {
            sum += v;
            n_sum++;
          }
        if (expected != NULL && _ks_lesson_window_element_differs (expected, a, i, hv->tolerance))
          {
            n_diff++;
            if (first == G_MAXSIZE)
              first = i;
          }
      }
  if (n == 0)
    return NULL;

  if (n == 1)
    {
      g_autofree char *where = element_position (a, lowest);
      g_autofree char *value = ks_array_format_element (a, lowest);

      g_string_append_printf (s, "%s = %s", where, value);
    }
  else
    {
      g_autofree char *from = element_position (a, lowest);
      g_autofree char *to = element_position (a, last);
      g_autofree char *mean = g_strdup_printf ("%.6g", n_sum > 0 ? sum / n_sum : NAN);
      g_autofree char *count = g_strdup_printf ("%" G_GSIZE_FORMAT, n);

      /* TRANSLATORS: hovering a heatmap pixel that stands for several
       * elements: how many, the first and last of them, and their mean. */
      g_string_append_printf (s, ngettext ("%s element, %s to %s, mean %s",
                                           "%s elements, %s to %s, mean %s",
                                           (gulong) MIN (n, G_MAXULONG)),
                              count, from, to, mean);
    }
  if (expected == NULL)
    return g_string_free (g_steal_pointer (&s), FALSE);

  g_string_append_c (s, '\n');
  if (n_diff == 0)
    g_string_append (s, n == 1 ? _("Equals the reference")
                               : _("Every one of them equals the reference"));
  else
    {
      g_autofree char *e = ks_array_format_element (expected, first);
      g_autofree char *v = ks_array_format_element (a, first);

      if (n > 1)
        {
          g_autofree char *where = element_position (a, first);
          g_autofree char *k = g_strdup_printf ("%" G_GSIZE_FORMAT, n_diff);
          g_autofree char *of = g_strdup_printf ("%" G_GSIZE_FORMAT, n);

          g_string_append_printf (s, ngettext ("%s of %s differs; the first is %s",
                                               "%s of %s differ; the first is %s",
                                               (gulong) MIN (n_diff, G_MAXULONG)),
                                  k, of, where);
          g_string_append_c (s, '\n');
        }
      g_string_append_printf (s, _("Differs from the reference: expected %s, got %s"), e, v);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
on_heat_query_tooltip_cb (GtkWidget *picture, int x, int y, gboolean keyboard,
                          GtkTooltip *tooltip, gpointer user_data)
{
  g_autofree char *text = _ks_lesson_window_heat_view_describe (user_data, picture, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* Drawn at least HEATMAP_MIN_SIDE on its longest side (a 100-pixel one is
 * still seen), and larger in presenter mode, like the type. */
void
_ks_lesson_window_size_heat_picture (KsLessonWindow *self, GtkWidget *picture)
{
  HeatView *hv = g_object_get_data (G_OBJECT (picture), "ks-heat-view");
  int longest = MAX (hv->width, hv->height);
  double side = MAX (longest, HEATMAP_MIN_SIDE);

  if (gtk_widget_has_css_class (GTK_WIDGET (self), "ks-presenter"))
    side *= HEATMAP_PRESENTER_SCALE;
  gtk_widget_set_size_request (picture, (int) lround (hv->width * side / longest),
                               (int) lround (hv->height * side / longest));
}

static void
heat_view_show (HeatView *hv, GtkWidget *picture, gboolean differences)
{
  hv->show_differences = differences && hv->differences != NULL;
  gtk_picture_set_paintable (GTK_PICTURE (picture),
                             GDK_PAINTABLE (hv->show_differences ? hv->differences
                                                                 : hv->values));
  gtk_label_set_label (hv->caption, hv->show_differences ? hv->differences_caption
                                                         : hv->values_caption);
}

static void
on_heat_mode_toggled_cb (GtkToggleButton *button, GtkWidget *picture)
{
  HeatView *hv = g_object_get_data (G_OBJECT (picture), "ks-heat-view");
  gboolean differences = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button),
                                                             "ks-differences"));

  if (gtk_toggle_button_get_active (button))
    heat_view_show (hv, picture, differences);
}

static GdkTexture *
heat_texture (const Heatmap *heat, GBytes *pixels)
{
  return gdk_memory_texture_new (heat->width, heat->height, GDK_MEMORY_R8G8B8A8, pixels,
                                 (gsize) heat->width * 4);
}

/* "Values" and "Differences", over the picture of the checked output. */
static GtkWidget *
new_heat_mode_switch (GtkWidget *picture)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *values = gtk_toggle_button_new_with_mnemonic (_("_Values"));
  GtkWidget *differences = gtk_toggle_button_new_with_mnemonic (_("_Differences"));

  gtk_widget_add_css_class (row, "linked");
  gtk_widget_set_halign (row, GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (values, _("The heatmap of the values"));
  gtk_widget_set_tooltip_text (differences,
                               _("Red where an element differs from the reference"));
  g_object_set_data (G_OBJECT (differences), "ks-differences", GINT_TO_POINTER (TRUE));
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (differences), GTK_TOGGLE_BUTTON (values));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (differences), TRUE);
  g_signal_connect_object (values, "toggled", G_CALLBACK (on_heat_mode_toggled_cb), picture,
                           G_CONNECT_DEFAULT);
  g_signal_connect_object (differences, "toggled", G_CALLBACK (on_heat_mode_toggled_cb),
                           picture, G_CONNECT_DEFAULT);
  gtk_box_append (GTK_BOX (row), values);
  gtk_box_append (GTK_BOX (row), differences);
  return row;
}

/* A long array: how long, its ends, its range and a heatmap; for the
 * checked output, its differences too. */
void
_ks_lesson_window_add_summary (KsLessonWindow *self, GtkBox *box, const KsLessonArray *la,
                               const char *key, RunJob *job, gboolean checked)
{
  const KsArray *a = la->array;
  const Heatmap *heat = find_heatmap (job, key);
  g_autoptr (GString) ends = g_string_new (NULL);
  g_autofree char *first = NULL;
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;
  g_autofree char *values_key = g_strconcat (key, ":values", NULL);
  g_autofree char *heat_key = g_strconcat (key, ":heatmap", NULL);
  g_autofree char *shape = NULL;
  GtkWidget *label, *picture, *caption;
  HeatView *hv;
  gsize n = MIN (a->length, (gsize) SUMMARY_VALUES);

  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *v = ks_array_format_element (a, i);

      g_string_append_printf (ends, "%s%s", i > 0 ? "  " : "", v);
    }
  g_string_append (ends, "  …");
  for (gsize i = a->length - n; i < a->length; i++)
    {
      g_autofree char *v = ks_array_format_element (a, i);

      g_string_append_printf (ends, "  %s", v);
    }
  if (a->cols > 0)
    shape = g_strdup_printf ("%" G_GSIZE_FORMAT " × %" G_GSIZE_FORMAT, a->rows, a->cols);
  else
    shape = g_strdup_printf ("%" G_GSIZE_FORMAT, a->length);
  first = g_strdup_printf (_("%s elements: too many for cells, so the first and last values "
                             "and a heatmap"), shape);
  gtk_box_append (box, _ks_lesson_window_new_label (first, "dim-label"));
  label = _ks_lesson_window_new_label (ends->str, "monospace");
  gtk_box_append (box, label);
  _ks_lesson_window_remember (self, values_key, label);
  if (checked)
    _ks_lesson_window_add_difference_count (self, box, key, &job->report->check);
  if (heat == NULL)
    return;

  hv = g_new0 (HeatView, 1);
  hv->window = self;
  hv->name = g_strdup (la->name);
  hv->output = g_str_has_prefix (key, "output:");
  hv->values = heat_texture (heat, heat->pixels);
  hv->rows = heat->rows;
  hv->cols = heat->cols;
  hv->f = heat->f;
  hv->width = heat->width;
  hv->height = heat->height;
  hv->tolerance = job->tolerance;
  lo = g_strdup_printf ("%.6g", heat->lo);
  hi = g_strdup_printf ("%.6g", heat->hi);
  if (heat->per > 1)
    hv->values_caption = g_strdup_printf (_("Each pixel is the mean of %u elements; dark "
                                            "violet is %s, yellow %s. Hover a pixel for its "
                                            "elements."), (guint) heat->per, lo, hi);
  else
    hv->values_caption = g_strdup_printf (_("One pixel per element; dark violet is %s, yellow "
                                            "%s. Hover a pixel for its element."), lo, hi);
  if (checked && heat->diff_pixels != NULL)
    {
      hv->differences = heat_texture (heat, heat->diff_pixels);
      if (heat->per > 1)
        hv->differences_caption = g_strdup_printf (_("Red: a pixel of %u elements where at "
                                                     "least one differs from the reference; "
                                                     "gray where all equal it (lighter for "
                                                     "larger values). Hover a pixel for the "
                                                     "values expected."), (guint) heat->per);
      else
        hv->differences_caption = g_strdup (_("Red: an element that differs from the "
                                              "reference; gray where it equals it (lighter "
                                              "for larger values). Hover a pixel for the "
                                              "value expected."));
    }

  picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_halign (picture, GTK_ALIGN_START);
  gtk_widget_set_has_tooltip (picture, TRUE);
  g_object_set_data_full (G_OBJECT (picture), "ks-heat-view", hv, heat_view_free);
  g_signal_connect (picture, "query-tooltip", G_CALLBACK (on_heat_query_tooltip_cb), hv);
  caption = _ks_lesson_window_new_label (NULL, "dim-label");
  hv->caption = GTK_LABEL (caption);
  if (hv->differences != NULL)
    gtk_box_append (box, new_heat_mode_switch (picture));
  gtk_box_append (box, picture);
  gtk_box_append (box, caption);
  heat_view_show (hv, picture, TRUE);
  _ks_lesson_window_size_heat_picture (self, picture);
  g_ptr_array_add (self->heat_pictures, picture);
  _ks_lesson_window_remember (self, heat_key, picture);
}
