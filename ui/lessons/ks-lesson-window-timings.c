/* ks-lesson-window-timings.c: "Timings, done right" in a KsLessonWindow's
 * report: compile, copies and kernel measured apart (medians, spreads, a
 * bar each to one scale) against the C reference loop, beside the book's
 * single span, and in words why the book's figure differs. */
#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "ks-lesson-window-private.h"

static char *
format_ms (double ms)
{
  if (!isfinite (ms) || ms < 0)
    return g_strdup ("—");
  if (ms >= 100)
    return g_strdup_printf ("%.0f ms", ms);
  if (ms >= 1)
    return g_strdup_printf ("%.2f ms", ms);
  if (ms >= 0.01)
    return g_strdup_printf ("%.3f ms", ms);
  return g_strdup_printf ("%.2f µs", ms * 1000);
}

/* One row of the timing table: what, median, the spread, and a bar to the scale. */
static void
add_timing_row (GtkGrid *grid, int row, const char *what, const char *detail, double ms,
                const KsTiming *t, double scale)
{
  g_autofree char *median = format_ms (ms);
  g_autofree char *spread = NULL;
  GtkWidget *bar = gtk_progress_bar_new ();
  GtkWidget *value = _ks_lesson_window_new_label (median, "monospace");
  GtkWidget *name = _ks_lesson_window_new_label (what, NULL);

  if (t != NULL && t->n > 0)
    {
      g_autofree char *lo = format_ms (t->min_ms);
      g_autofree char *hi = format_ms (t->max_ms);
      g_autofree char *warm = format_ms (t->warmup_ms);

      if (isfinite (t->warmup_ms))
        spread = g_strdup_printf (_("median of %u, %s – %s; warm-up %s, not counted"), t->n, lo,
                                  hi, warm);
      else
        spread = g_strdup_printf (_("median of %u, %s – %s"), t->n, lo, hi);
    }
  gtk_label_set_xalign (GTK_LABEL (value), 1);
  gtk_widget_set_tooltip_text (name, detail);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (bar),
                                 scale > 0 && isfinite (ms) ? CLAMP (ms / scale, 0, 1) : 0);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (bar, 160, -1);
  gtk_grid_attach (grid, name, 0, row, 1, 1);
  gtk_grid_attach (grid, value, 1, row, 1, 1);
  gtk_grid_attach (grid, bar, 2, row, 1, 1);
  if (spread != NULL)
    gtk_grid_attach (grid, _ks_lesson_window_new_label (spread, "dim-label"), 3, row, 1, 1);
}

static double
median_or_nan (const KsTiming *t)
{
  return t->n > 0 ? t->median_ms : NAN;
}

void
_ks_lesson_window_add_timings (KsLessonWindow *self, const KsLessonReport *r)
{
  const KsLessonTimings *t = &r->timings;
  GtkWidget *section = _ks_lesson_window_new_section (self->results_box, _("Timings, done right"));
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  double upload = median_or_nan (&t->upload), kernel = median_or_nan (&t->kernel);
  double download = median_or_nan (&t->download), cpu = median_or_nan (&t->cpu_kernel);
  double reference = median_or_nan (&t->reference);
  const double all[6] = { t->compile_ms, upload, kernel, download, cpu, reference };
  double scale = 0, parts = 0;
  int row = 0;
  g_autoptr (GString) why = g_string_new (NULL);
  /* 11-02 runs no kernel: it has no copies or launch to show. */
  gboolean host = r->lesson->host_only;

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (isfinite (all[i]))
      scale = MAX (scale, all[i]);
  if (isfinite (t->book_total_ms))
    scale = MAX (scale, t->book_total_ms);

  gtk_grid_set_column_spacing (grid, 18);
  gtk_grid_set_row_spacing (grid, 6);
  if (isfinite (t->compile_ms))
    add_timing_row (grid, row++, t->compile_cached ? _("Compile (NVRTC, cached)")
                                                   : _("Compile (NVRTC)"),
                    _("Compiling the kernel in the worker process, once"), t->compile_ms, NULL,
                    scale);
  if (!host)
    {
      add_timing_row (grid, row++, _("Upload"),
                      r->cuda ? _("Host to device: the in and in-out arrays")
                              : _("Into the CPU engine’s memory: the in and in-out arrays"),
                      upload, &t->upload, scale);
      add_timing_row (grid, row++, r->cuda ? _("Kernel") : _("Kernel (on the CPU engine)"),
                      _("The launch alone, without copies"), kernel, &t->kernel, scale);
      add_timing_row (grid, row++, _("Download"),
                      r->cuda ? _("Device to host: the out and in-out arrays")
                              : _("Out of the CPU engine’s memory: the out and in-out arrays"),
                      download, &t->download, scale);
    }
  if (r->cuda && isfinite (cpu))
    add_timing_row (grid, row++, _("CPU engine, same data"),
                    _("The same kernel’s PTX run on the CPU, warp by warp, every access checked"),
                    cpu, &t->cpu_kernel, scale);
  if (!host)
    add_timing_row (grid, row++, _("C reference loop"),
                    _("A plain C loop computing the same result: the fair CPU baseline, not an "
                      "interpreted Python loop"), reference, &t->reference, scale);
  else if (t->reference.n > 0)
    add_timing_row (grid, row++, _("The check’s own query"),
                    _("The devices asked again, by other calls, for the check"), reference,
                    &t->reference, scale);
  if (isfinite (t->book_total_ms))
    {
      GtkWidget *separator = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);

      gtk_grid_attach (grid, separator, 0, row++, 4, 1);
      add_timing_row (grid, row++, _("The book’s way: one span"), t->book_total_covers,
                      t->book_total_ms, NULL, scale);
    }
  gtk_box_append (GTK_BOX (section), GTK_WIDGET (grid));
  _ks_lesson_window_remember (self, "timings", GTK_WIDGET (grid));

  /* Why the book's figure differs, with this run's numbers. */
  for (guint i = 1; i < 4; i++)
    if (isfinite (all[i]))
      parts += all[i];
  if (!host && isfinite (t->book_total_ms) && t->book_total_ms > 0)
    {
      g_autofree char *book = format_ms (t->book_total_ms);
      g_autofree char *k = format_ms (kernel);

      g_string_append_printf (why, _("The book times one run as one span, with no warm-up: %s "
                                     "(%s). Of that, the kernel is %s, %.0f %%. "),
                              book, t->book_total_covers, k,
                              isfinite (kernel) ? 100 * kernel / t->book_total_ms : 0.0);
      if (t->book_total_ms > parts)
        {
          g_autofree char *rest = format_ms (t->book_total_ms - parts);

          g_string_append_printf (why, _("%s more than upload, kernel and download measured "
                                         "apart: what only a first run pays (allocation, "
                                         "first-use compilation, cold memory). "), rest);
        }
    }
  if (isfinite (kernel) && isfinite (reference) && reference > 0)
    {
      g_autofree char *k = format_ms (kernel);
      g_autofree char *c = format_ms (reference);

      g_string_append_printf (why, _("Fairly compared, on the same data and both warm: the "
                                     "kernel takes %s and the C loop %s."), k, c);
    }
  if (why->len > 0)
    {
      GtkWidget *label = _ks_lesson_window_new_label (why->str, NULL);

      gtk_box_append (GTK_BOX (section), label);
      _ks_lesson_window_remember (self, "timing-why", label);
    }
  if (t->method != NULL)
    gtk_box_append (GTK_BOX (section), _ks_lesson_window_new_label (t->method, "dim-label"));
}
