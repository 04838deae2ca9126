/* ks-ui-util.h: small pieces that several widgets draw, format or set up the
 * same way: text in a snapshot, chart axes and their numbers, times, the
 * kernel source buffers and the CSV/JSON export dialog. */
#pragma once

#include <gtk/gtk.h>
#include <adwaita.h>
#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

/* Drawing: the widget's CSS text colour; a layout with its top-left corner
 * at (x, y); a cairo source of @color with its alpha multiplied by @alpha. */
void   ks_ui_get_text_color  (GtkWidget *widget, GdkRGBA *color);
void   ks_ui_append_layout   (GtkSnapshot *snapshot, PangoLayout *layout, double x, double y,
                              const GdkRGBA *color);
void   ks_ui_cairo_set_color (cairo_t *cr, const GdkRGBA *color, double alpha);

/* Charts (see ks-ui-util.c). */
double ks_ui_nice_ceiling             (double v);
void   ks_ui_chart_draw_axes          (cairo_t *cr, double plot_x, double plot_y, double plot_w,
                                       double plot_h);
void   ks_ui_chart_append_placeholder (GtkWidget *widget, GtkSnapshot *snapshot,
                                       const char *text, double plot_x, double plot_y,
                                       double plot_w, double plot_h, const GdkRGBA *fg);

/* Times in milliseconds: with fixed decimals, for a panel's figures; with
 * about three significant digits in ms, µs or ns, for a chart's labels. */
char  *ks_ui_format_ms       (double ms);
char  *ks_ui_format_ms_short (double ms);

void   ks_ui_source_buffer_init_cuda (GtkSourceBuffer *buffer);

/* A toast showing text as it is: libadwaita 1.2 reads a toast's title as
 * Pango markup, and messages carry file names and errors ("<data>", "&"). */
AdwToast *ks_ui_toast_new (const char *text);

GtkFileChooserNative *ks_ui_export_dialog_new (GtkWindow *parent, const char *title,
                                               const char *file_name, gboolean json);

G_END_DECLS
