/* ks-ui-util.c: drawing, formatting and set-up shared by several widgets
 * (see ks-ui-util.h). */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include <adwaita.h>

#include "ks-ui-util.h"

/* ---- drawing ---------------------------------------------------------------------------- */

void
ks_ui_get_text_color (GtkWidget *widget, GdkRGBA *color)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (color != NULL);

#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, color);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), color);
#endif
}

void
ks_ui_append_layout (GtkSnapshot *snapshot, PangoLayout *layout, double x, double y,
                     const GdkRGBA *color)
{
  g_return_if_fail (GTK_IS_SNAPSHOT (snapshot));
  g_return_if_fail (PANGO_IS_LAYOUT (layout));
  g_return_if_fail (color != NULL);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

void
ks_ui_cairo_set_color (cairo_t *cr, const GdkRGBA *color, double alpha)
{
  g_return_if_fail (cr != NULL && color != NULL);

  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha * alpha);
}

/* ---- charts ----------------------------------------------------------------------------- */

/* 1, 2 or 5 times a power of ten at or above @v: an axis maximum or a step
 * between gridlines that people can read; 1 for nothing to show (zero,
 * negative or not a number). */
double
ks_ui_nice_ceiling (double v)
{
  double p, m;

  if (v <= 0 || !isfinite (v))
    return 1.0;
  p = pow (10, floor (log10 (v)));
  m = v / p;
  if (m <= 1.0)
    return p;
  if (m <= 2.0)
    return 2 * p;
  if (m <= 5.0)
    return 5 * p;
  return 10 * p;
}

/* The two axes, left and bottom, in cairo's current source: one pixel wide
 * and on the pixel grid just outside the plot, so that no mark hides them.
 * Leaves the line width at 1. */
void
ks_ui_chart_draw_axes (cairo_t *cr, double plot_x, double plot_y, double plot_w, double plot_h)
{
  g_return_if_fail (cr != NULL);

  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, plot_x - 0.5, plot_y);
  cairo_line_to (cr, plot_x - 0.5, plot_y + plot_h + 0.5);
  cairo_line_to (cr, plot_x + plot_w, plot_y + plot_h + 0.5);
  cairo_stroke (cr);
}

/* What an empty chart says (no data yet), centred in the plot at half the
 * text colour's strength. */
void
ks_ui_chart_append_placeholder (GtkWidget *widget, GtkSnapshot *snapshot, const char *text,
                                double plot_x, double plot_y, double plot_w, double plot_h,
                                const GdkRGBA *fg)
{
  g_autoptr (PangoLayout) layout = NULL;
  int w, h;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (text != NULL && fg != NULL);

  layout = gtk_widget_create_pango_layout (widget, text);
  pango_layout_get_pixel_size (layout, &w, &h);
  ks_ui_append_layout (snapshot, layout, plot_x + (plot_w - w) / 2, plot_y + (plot_h - h) / 2,
                       &(GdkRGBA) { fg->red, fg->green, fg->blue, 0.5f });
}

/* ---- times ------------------------------------------------------------------------------ */

/* Kernels range from microseconds on a GPU to seconds on the CPU engine:
 * four decimals below 0.01 ms, fewer as the time grows; "—" for a time not
 * measured (negative or not a number). */
char *
ks_ui_format_ms (double ms)
{
  if (!isfinite (ms) || ms < 0)
    return g_strdup ("—");
  if (ms < 0.01)
    return g_strdup_printf ("%.4f ms", ms);
  if (ms < 1)
    return g_strdup_printf ("%.3f ms", ms);
  if (ms < 100)
    return g_strdup_printf ("%.2f ms", ms);
  return g_strdup_printf ("%.0f ms", ms);
}

/* Short enough for an axis: "0", or about three significant digits in the
 * unit that keeps them above 1; "—" for not a number. */
char *
ks_ui_format_ms_short (double ms)
{
  if (!isfinite (ms))
    return g_strdup ("—");
  if (ms == 0)
    return g_strdup ("0");
  if (ms >= 100)
    return g_strdup_printf ("%.0f ms", ms);
  if (ms >= 1)
    return g_strdup_printf ("%.3g ms", ms);
  if (ms >= 0.001)
    return g_strdup_printf ("%.3g µs", ms * 1000);
  return g_strdup_printf ("%.3g ns", ms * 1e6);
}

/* ---- kernel sources --------------------------------------------------------------------- */

static void
update_scheme (GtkSourceBuffer *buffer)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (
    schemes, dark ? "Adwaita-dark" : "Adwaita");

  if (scheme != NULL)
    gtk_source_buffer_set_style_scheme (buffer, scheme);
}

static void
on_dark_changed_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  update_scheme (GTK_SOURCE_BUFFER (user_data));
}

/* A buffer for CUDA C: highlighted, in the Adwaita scheme that matches the
 * style (light or dark) and follows it for as long as the buffer lives. */
void
ks_ui_source_buffer_init_cuda (GtkSourceBuffer *buffer)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();

  g_return_if_fail (GTK_SOURCE_IS_BUFFER (buffer));

  gtk_source_buffer_set_language (buffer,
                                  gtk_source_language_manager_get_language (languages, "cuda"));
  gtk_source_buffer_set_highlight_syntax (buffer, TRUE);
  update_scheme (buffer);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed_cb), buffer, G_CONNECT_DEFAULT);
}

/* ---- export ----------------------------------------------------------------------------- */

/* A modal save dialog for a CSV or a JSON file, suggesting @file_name and
 * filtering on its kind; the caller connects "response" and shows it.
 * Returns: (transfer full). */
GtkFileChooserNative *
ks_ui_export_dialog_new (GtkWindow *parent, const char *title, const char *file_name,
                         gboolean json)
{
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
  GtkFileChooserNative *dialog;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (title != NULL && file_name != NULL, NULL);

  dialog = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), file_name);
  gtk_file_filter_set_name (filter, json ? _("JSON files") : _("CSV files"));
  gtk_file_filter_add_suffix (filter, json ? "json" : "csv");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  return dialog;
}

AdwToast *
ks_ui_toast_new (const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  return adw_toast_new (escaped);
}
