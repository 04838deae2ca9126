/* ks-lesson-cells.c: a lesson's small arrays as cells (see ks-lesson-cells.h).
 *
 * One widget draws every cell with GtkSnapshot rather than one GtkLabel per
 * element: 12-02's 257 bins would otherwise be hundreds of widgets to
 * measure and style for every run. The cell size comes from the widest
 * value in the widget's own font, measured again when the CSS changes
 * (presenter mode). */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "ks-lesson-cells.h"
#include "ks-ui-util.h"

#define GAP 2
#define PAD_X 8
#define PAD_Y 4

/* Highlights that read on a light and a dark background, and on a projector. */
static const GdkRGBA unwritten_color = { 1.0f, 0.60f, 0.0f, 0.45f };
static const GdkRGBA different_color = { 0.88f, 0.11f, 0.14f, 0.50f };

struct _KsLessonCells
{
  GtkWidget parent_instance;

  /* owned */
  KsArray *array;
  gint32 *block_of;
  gint32 *thread_of;
  GPtrArray *texts;          /* char *, one per element */
  KsDim3 grid;
  KsDim3 block;
  gboolean have_launch;

  KsArray *expected;         /* the reference, or NULL */
  double tolerance;
  gboolean show_owners;

  /* layout, from the font: 0 until measured */
  int cell_w;
  int cell_h;
  int value_h;
  int gutter_w;
};

G_DEFINE_FINAL_TYPE (KsLessonCells, ks_lesson_cells, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SHOW_OWNERS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
differs (KsLessonCells *self, gsize i)
{
  double e, v;

  if (self->expected == NULL || i >= self->expected->length)
    return FALSE;
  e = ks_array_get_double (self->expected, i);
  v = ks_array_get_double (self->array, i);
  /* Written as the check writes it, so that a NaN on either side differs. */
  return !(fabs (e - v) <= self->tolerance);
}

static gsize
n_cols (KsLessonCells *self)
{
  if (self->array == NULL)
    return 0;
  if (self->array->cols > 0)
    return self->array->cols;
  return MIN (self->array->length, (gsize) KS_LESSON_CELLS_ROW);
}

static gsize
n_rows (KsLessonCells *self)
{
  gsize cols = n_cols (self);

  return cols == 0 ? 0 : (self->array->length + cols - 1) / cols;
}

/* "b2 t5": the owner line in a cell, short enough to fit under the value. */
static char *
owner_short (KsLessonCells *self, gsize i)
{
  if (self->block_of == NULL)
    return NULL;
  if (self->block_of[i] < 0)
    /* TRANSLATORS: in a cell of a lesson's array: no thread wrote this element. */
    return g_strdup (_("unwritten"));
  /* TRANSLATORS: in a cell: the block (b) and the thread (t) that wrote it, as numbers. */
  return g_strdup_printf (_("b%d t%d"), self->block_of[i], self->thread_of[i]);
}

static PangoLayout *
small_layout (GtkWidget *widget, const char *text)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_scale_new (0.72));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  return layout;
}

static void
ensure_layout (KsLessonCells *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  g_autoptr (PangoLayout) layout = NULL;
  g_autofree char *last_index = NULL;
  int w, h, widest = 0;
  gsize rows = n_rows (self);

  if (self->cell_w > 0)
    return;
  layout = gtk_widget_create_pango_layout (widget, "0");
  pango_layout_get_pixel_size (layout, &w, &h);
  self->value_h = h;
  if (self->texts != NULL)
    for (guint i = 0; i < self->texts->len; i++)
      {
        pango_layout_set_text (layout, g_ptr_array_index (self->texts, i), -1);
        pango_layout_get_pixel_size (layout, &w, NULL);
        widest = MAX (widest, w);
      }
  self->cell_h = self->value_h + 2 * PAD_Y;
  if (self->show_owners && self->block_of != NULL && self->array != NULL)
    {
      g_autoptr (PangoLayout) small = small_layout (widget, "0");
      int sh;

      pango_layout_get_pixel_size (small, NULL, &sh);
      for (gsize i = 0; i < self->array->length; i++)
        {
          g_autofree char *text = owner_short (self, i);

          pango_layout_set_text (small, text, -1);
          pango_layout_get_pixel_size (small, &w, NULL);
          widest = MAX (widest, w);
        }
      self->cell_h += sh;
    }
  self->cell_w = MAX (widest, h) + 2 * PAD_X;

  /* The gutter holds the index of each row's first element (matrices: the row). */
  last_index = g_strdup_printf ("%" G_GSIZE_FORMAT,
                                rows == 0 ? 0
                                : (rows - 1) * (self->array->cols > 0 ? 1 : n_cols (self)));
  pango_layout_set_text (layout, last_index, -1);
  pango_layout_get_pixel_size (layout, &w, NULL);
  self->gutter_w = w + PAD_X;
}

static void
invalidate (KsLessonCells *self)
{
  self->cell_w = 0;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static void
ks_lesson_cells_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                         int *minimum, int *natural, int *minimum_baseline,
                         int *natural_baseline)
{
  KsLessonCells *self = KS_LESSON_CELLS (widget);

  ensure_layout (self);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = self->gutter_w + (int) n_cols (self) * (self->cell_w + GAP);
  else
    *minimum = *natural = (int) n_rows (self) * (self->cell_h + GAP);
}

static void
cell_origin (KsLessonCells *self, gsize index, double *x, double *y)
{
  gsize cols = n_cols (self);

  *x = self->gutter_w + (double) (index % cols) * (self->cell_w + GAP);
  *y = (double) (index / cols) * (self->cell_h + GAP);
}

static void
ks_lesson_cells_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  KsLessonCells *self = KS_LESSON_CELLS (widget);
  g_autoptr (PangoLayout) layout = NULL;
  g_autoptr (PangoLayout) small = NULL;
  GdkRGBA fg, cell_bg, dim;
  gsize cols = n_cols (self);

  if (self->array == NULL || cols == 0)
    return;
  ensure_layout (self);
  ks_ui_get_text_color (widget, &fg);
  cell_bg = fg;
  cell_bg.alpha = 0.07f;
  dim = fg;
  dim.alpha = 0.6f;
  layout = gtk_widget_create_pango_layout (widget, NULL);
  small = small_layout (widget, NULL);

  for (gsize r = 0; r < n_rows (self); r++)
    {
      g_autofree char *label = g_strdup_printf ("%" G_GSIZE_FORMAT,
                                                self->array->cols > 0 ? r : r * cols);
      int lw, lh;

      pango_layout_set_text (layout, label, -1);
      pango_layout_get_pixel_size (layout, &lw, &lh);
      ks_ui_append_layout (snapshot, layout, self->gutter_w - PAD_X / 2.0 - lw,
                           r * (self->cell_h + GAP) + (self->value_h + 2 * PAD_Y - lh) / 2.0,
                           &dim);
    }

  for (gsize i = 0; i < self->array->length; i++)
    {
      KsLessonCellState state = ks_lesson_cells_get_state (self, i);
      const GdkRGBA *bg = state == KS_LESSON_CELL_DIFFERENT   ? &different_color
                          : state == KS_LESSON_CELL_UNWRITTEN ? &unwritten_color
                                                              : &cell_bg;
      double x, y;
      int tw, th;
      GskRoundedRect rect;

      cell_origin (self, i, &x, &y);
      gsk_rounded_rect_init_from_rect (&rect, &GRAPHENE_RECT_INIT (x, y, self->cell_w,
                                                                   self->cell_h), 3);
      gtk_snapshot_push_rounded_clip (snapshot, &rect);
      gtk_snapshot_append_color (snapshot, bg, &rect.bounds);
      gtk_snapshot_pop (snapshot);
      if (state == KS_LESSON_CELL_DIFFERENT)
        {
          const float widths[4] = { 2, 2, 2, 2 };
          GdkRGBA solid = different_color;
          GdkRGBA colors[4];

          solid.alpha = 1;
          for (guint k = 0; k < 4; k++)
            colors[k] = solid;
          gtk_snapshot_append_border (snapshot, &rect, widths, colors);
        }

      pango_layout_set_text (layout, g_ptr_array_index (self->texts, i), -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      ks_ui_append_layout (snapshot, layout, x + (self->cell_w - tw) / 2.0, y + PAD_Y, &fg);
      if (self->show_owners && self->block_of != NULL)
        {
          g_autofree char *owner = owner_short (self, i);

          pango_layout_set_text (small, owner, -1);
          pango_layout_get_pixel_size (small, &tw, NULL);
          ks_ui_append_layout (snapshot, small, x + (self->cell_w - tw) / 2.0, y + PAD_Y + th,
                               &dim);
        }
    }
}

static gboolean
ks_lesson_cells_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard,
                               GtkTooltip *tooltip)
{
  KsLessonCells *self = KS_LESSON_CELLS (widget);
  gssize index = ks_lesson_cells_index_at (self, x, y);
  g_autofree char *text = NULL;
  double cx, cy;

  if (index < 0)
    return FALSE;
  text = ks_lesson_cells_describe (self, index);
  cell_origin (self, index, &cx, &cy);
  gtk_tooltip_set_text (tooltip, text);
  gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) { (int) cx, (int) cy, self->cell_w,
                                                       self->cell_h });
  return TRUE;
}

static void
ks_lesson_cells_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (ks_lesson_cells_parent_class)->css_changed (widget, change);
  /* A new font size (presenter mode) makes every cell another size. */
  invalidate (KS_LESSON_CELLS (widget));
}

static void
ks_lesson_cells_finalize (GObject *object)
{
  KsLessonCells *self = KS_LESSON_CELLS (object);

  g_clear_pointer (&self->array, ks_array_free);
  g_clear_pointer (&self->block_of, g_free);
  g_clear_pointer (&self->thread_of, g_free);
  g_clear_pointer (&self->texts, g_ptr_array_unref);
  g_clear_pointer (&self->expected, ks_array_free);

  G_OBJECT_CLASS (ks_lesson_cells_parent_class)->finalize (object);
}

static void
ks_lesson_cells_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsLessonCells *self = KS_LESSON_CELLS (object);

  switch (prop_id)
    {
    case PROP_SHOW_OWNERS:
      g_value_set_boolean (value, self->show_owners);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_lesson_cells_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  KsLessonCells *self = KS_LESSON_CELLS (object);

  switch (prop_id)
    {
    case PROP_SHOW_OWNERS:
      ks_lesson_cells_set_show_owners (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_lesson_cells_class_init (KsLessonCellsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ks_lesson_cells_finalize;
  object_class->get_property = ks_lesson_cells_get_property;
  object_class->set_property = ks_lesson_cells_set_property;
  widget_class->measure = ks_lesson_cells_measure;
  widget_class->snapshot = ks_lesson_cells_snapshot;
  widget_class->query_tooltip = ks_lesson_cells_query_tooltip;
  widget_class->css_changed = ks_lesson_cells_css_changed;

  properties[PROP_SHOW_OWNERS] =
    g_param_spec_boolean ("show-owners", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_css_name (widget_class, "ks-lesson-cells");
}

static void
ks_lesson_cells_init (KsLessonCells *self)
{
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_halign (GTK_WIDGET (self), GTK_ALIGN_START);
}

/* ---- public ------------------------------------------------------------------------------ */

GtkWidget *
ks_lesson_cells_new (void)
{
  return g_object_new (KS_TYPE_LESSON_CELLS, NULL);
}

void
ks_lesson_cells_set_array (KsLessonCells *self, const KsArray *array, const gint32 *block_of,
                           const gint32 *thread_of, const KsDim3 *grid, const KsDim3 *block)
{
  g_return_if_fail (KS_IS_LESSON_CELLS (self));
  g_return_if_fail ((block_of == NULL) == (thread_of == NULL));

  g_clear_pointer (&self->array, ks_array_free);
  g_clear_pointer (&self->block_of, g_free);
  g_clear_pointer (&self->thread_of, g_free);
  g_clear_pointer (&self->texts, g_ptr_array_unref);
  g_clear_pointer (&self->expected, ks_array_free);
  self->have_launch = grid != NULL && block != NULL;
  if (self->have_launch)
    {
      self->grid = *grid;
      self->block = *block;
    }
  if (array != NULL)
    {
      self->array = ks_array_copy (array);
      self->texts = g_ptr_array_new_full (array->length, g_free);
      for (gsize i = 0; i < array->length; i++)
        g_ptr_array_add (self->texts, ks_array_format_element (array, i));
      if (block_of != NULL)
        {
          self->block_of = g_memdup2 (block_of, array->length * sizeof (gint32));
          self->thread_of = g_memdup2 (thread_of, array->length * sizeof (gint32));
        }
    }
  invalidate (self);
}

void
ks_lesson_cells_set_reference (KsLessonCells *self, const KsArray *expected, double tolerance)
{
  g_return_if_fail (KS_IS_LESSON_CELLS (self));
  g_return_if_fail (expected == NULL || self->array != NULL);

  g_clear_pointer (&self->expected, ks_array_free);
  if (expected != NULL)
    self->expected = ks_array_copy (expected);
  self->tolerance = tolerance;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ks_lesson_cells_set_show_owners (KsLessonCells *self, gboolean show)
{
  g_return_if_fail (KS_IS_LESSON_CELLS (self));
  show = !!show;
  if (self->show_owners == show)
    return;
  self->show_owners = show;
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_OWNERS]);
}

gboolean
ks_lesson_cells_get_show_owners (KsLessonCells *self)
{
  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), FALSE);
  return self->show_owners;
}

gsize
ks_lesson_cells_get_n_cells (KsLessonCells *self)
{
  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), 0);
  return self->array != NULL ? self->array->length : 0;
}

const char *
ks_lesson_cells_get_text (KsLessonCells *self, gsize index)
{
  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), NULL);
  g_return_val_if_fail (index < ks_lesson_cells_get_n_cells (self), NULL);
  return g_ptr_array_index (self->texts, index);
}

KsLessonCellState
ks_lesson_cells_get_state (KsLessonCells *self, gsize index)
{
  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), KS_LESSON_CELL_WRITTEN);
  g_return_val_if_fail (index < ks_lesson_cells_get_n_cells (self), KS_LESSON_CELL_WRITTEN);
  if (differs (self, index))
    return KS_LESSON_CELL_DIFFERENT;
  if (self->block_of != NULL && self->block_of[index] < 0)
    return KS_LESSON_CELL_UNWRITTEN;
  return KS_LESSON_CELL_WRITTEN;
}

/* A linear index as (x, y, z) within dims. */
static void
unlinear (gint32 index, const KsDim3 *dims, guint *x, guint *y, guint *z)
{
  guint dx = MAX (dims->x, 1), dy = MAX (dims->y, 1);

  *x = (guint) index % dx;
  *y = (guint) index / dx % dy;
  *z = (guint) index / (dx * dy);
}

char *
ks_lesson_cells_describe (KsLessonCells *self, gsize index)
{
  g_autoptr (GString) s = g_string_new (NULL);
  const char *value;

  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), NULL);
  g_return_val_if_fail (index < ks_lesson_cells_get_n_cells (self), NULL);
  value = g_ptr_array_index (self->texts, index);
  if (self->array->cols > 0)
    g_string_append_printf (s, "[%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "] = %s",
                            index / self->array->cols, index % self->array->cols, value);
  else
    g_string_append_printf (s, "[%" G_GSIZE_FORMAT "] = %s", index, value);
  g_string_append_c (s, '\n');
  if (self->block_of == NULL)
    g_string_append (s, _("Which thread wrote it is not recorded for this array"));
  else if (self->block_of[index] < 0)
    g_string_append (s, _("No thread wrote this element: it keeps what it held before the run"));
  else if (self->have_launch)
    {
      guint bx, by, bz, tx, ty, tz;

      unlinear (self->block_of[index], &self->grid, &bx, &by, &bz);
      unlinear (self->thread_of[index], &self->block, &tx, &ty, &tz);
      g_string_append_printf (s, _("Written by block (%u, %u, %u), thread (%u, %u, %u)"), bx, by,
                              bz, tx, ty, tz);
    }
  else
    g_string_append_printf (s, _("Written by block %d, thread %d"), self->block_of[index],
                            self->thread_of[index]);
  if (differs (self, index))
    {
      g_autofree char *expected = ks_array_format_element (self->expected, index);

      g_string_append_c (s, '\n');
      /* TRANSLATORS: hovering a cell of a lesson's result that is wrong: the
       * value the reference has there, and the value the kernel left. */
      g_string_append_printf (s, _("Differs from the reference: expected %s, got %s"), expected,
                              value);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

gssize
ks_lesson_cells_index_at (KsLessonCells *self, double x, double y)
{
  gsize cols, col, row, index;
  double fx, fy;

  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), -1);
  cols = n_cols (self);
  if (cols == 0)
    return -1;
  ensure_layout (self);
  fx = x - self->gutter_w;
  if (fx < 0 || y < 0)
    return -1;
  col = (gsize) (fx / (self->cell_w + GAP));
  row = (gsize) (y / (self->cell_h + GAP));
  fx -= col * (double) (self->cell_w + GAP);
  fy = y - row * (double) (self->cell_h + GAP);
  /* The gaps between cells belong to no cell. */
  if (col >= cols || fx > self->cell_w || fy > self->cell_h)
    return -1;
  index = row * cols + col;
  return index < self->array->length ? (gssize) index : -1;
}

gboolean
ks_lesson_cells_get_cell_center (KsLessonCells *self, gsize index, double *x, double *y)
{
  double cx, cy;

  g_return_val_if_fail (KS_IS_LESSON_CELLS (self), FALSE);
  if (index >= ks_lesson_cells_get_n_cells (self))
    return FALSE;
  ensure_layout (self);
  cell_origin (self, index, &cx, &cy);
  if (x != NULL)
    *x = cx + self->cell_w / 2.0;
  if (y != NULL)
    *y = cy + self->cell_h / 2.0;
  return TRUE;
}
