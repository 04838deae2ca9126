/* The kernel editor and its console in the window, as a user meets them:
 * an error typed into the editor is marked on its line and listed, fixing it
 * makes a new version live, breaking it again keeps the last good one
 * running; every template compiles; on a machine without a GPU running says
 * so in the console; an array kernel's launch the device refuses is refused
 * before it runs; a declared kernel's form generates, compiles and runs. Compilation is real (NVRTC in the worker); the tests
 * that need it skip where NVRTC is missing. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "ks-array-view.h"
#include "ks-test-helpers.h"
#include "ks-ui-test-helpers.h"
#include "ks-window-private.h"

typedef struct
{
  KsWindow *window;
  KsKernelPanel *panel;
  KsPipeline *pipeline;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1440, 900);
  gtk_window_present (GTK_WINDOW (f->window));
  ks_window_open_sample (f->window);
  f->panel = ks_window_get_kernel_panel (f->window);
  f->pipeline = ks_window_get_pipeline (f->window);
  KS_UI_TEST_WAIT_FOR (ks_pipeline_get_input (f->pipeline, KS_INPUT_A) != NULL,
                       KS_UI_TEST_PATIENCE_S);
  g_assert_nonnull (ks_pipeline_get_input (f->pipeline, KS_INPUT_A));
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  ks_ui_test_close_window (f->window);
}

/* Whether the console's text holds `needle` now. */
static gboolean
console_shows (KsConsolePanel *console, const char *needle)
{
  g_autofree char *text = ks_console_panel_get_text (console);

  return strstr (text, needle) != NULL;
}

/* Until the debounce has passed and the compile has come back. */
static void
wait_compiled (KsKernelPanel *panel)
{
  ks_ui_test_iterate_for (20);
  for (int i = 0; i < 3000 && ks_kernel_panel_is_compiling (panel); i++)
    ks_ui_test_iterate_for (10);
  g_assert_false (ks_kernel_panel_is_compiling (panel));
}

/* Types the text as the user would: an edit, then the debounce. */
static void
type_text (KsKernelPanel *panel, const char *text)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (panel));
  GtkTextIter start, end;

  /* Edits, not gtk_text_buffer_set_text: that one is irreversible and
   * leaves the buffer unmodified, which typing never does. */
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_delete_interactive (buffer, &start, &end, TRUE);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_interactive (buffer, &end, text, -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);
  g_assert_true (ks_kernel_panel_is_compiling (panel));
  wait_compiled (panel);
}

static guint
count_marks (KsKernelPanel *panel, const char *category)
{
  GtkSourceBuffer *buffer = ks_kernel_panel_get_buffer (panel);
  GtkTextIter iter;
  guint n = 0;

  gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (buffer), &iter);
  if (gtk_source_buffer_get_source_marks_at_iter (buffer, &iter, category) != NULL)
    {
      GSList *marks = gtk_source_buffer_get_source_marks_at_iter (buffer, &iter, category);
      n += g_slist_length (marks);
      g_slist_free (marks);
    }
  while (gtk_source_buffer_forward_iter_to_source_mark (buffer, &iter, category))
    {
      GSList *marks = gtk_source_buffer_get_source_marks_at_iter (buffer, &iter, category);
      n += g_slist_length (marks);
      g_slist_free (marks);
    }
  return n;
}

/* A row of the problems list whose label says `text`. */
static GtkListBoxRow *
problem_row (KsKernelPanel *panel, const char *text)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();

  ks_ui_test_find_widgets (GTK_WIDGET (panel), GTK_TYPE_LIST_BOX_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autoptr (GPtrArray) labels = g_ptr_array_new ();

      ks_ui_test_find_widgets (g_ptr_array_index (rows, i), GTK_TYPE_LABEL, labels);
      for (guint j = 0; j < labels->len; j++)
        if (strstr (gtk_label_get_text (g_ptr_array_index (labels, j)), text) != NULL)
          return g_ptr_array_index (rows, i);
    }
  return NULL;
}

/* Only with KS_SCREENSHOT_DIR: the editor's pictures are for looking at,
 * not for the documentation. */
static void
save_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("KS_SCREENSHOT_DIR");

  if (dir != NULL)
    ks_ui_test_save_screenshot_in (widget, dir, name);
}

static const char good_expression[] =
  "// Invert, as an expression\n"
  "out.x = 255 - in.x;\n"
  "out.y = 255 - in.y;\n"
  "out.z = 255 - in.z;\n";

/* Line 3 uses a name nobody declared. */
static const char bad_expression[] =
  "// Invert, as an expression\n"
  "out.x = 255 - in.x;\n"
  "out.y = 255 - undeclared_thing;\n"
  "out.z = 255 - in.z;\n";

static void
test_errors_marked (Fixture *f, gconstpointer data)
{
  g_autofree char *fixed_status = NULL;
  const GPtrArray *diagnostics;
  const KsDiagnostic *first = NULL;
  GtkListBoxRow *row;
  GtkTextIter cursor;
  guint version;

  if (!ks_test_have_nvrtc ())
    return;
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  ks_ui_test_iterate_for (50);
  g_assert_true (ks_kernel_panel_get_active (f->panel));
  ks_kernel_panel_set_mode (f->panel, KS_KERNEL_MODE_EXPRESSION);

  type_text (f->panel, good_expression);
  version = ks_kernel_panel_get_version (f->panel);
  g_assert_cmpuint (version, >=, 1);
  g_assert_cmpuint (count_marks (f->panel, "error"), ==, 0);
  g_assert_true (ks_pipeline_get_user_kernel (f->pipeline)
                 == ks_kernel_panel_get_last_good (f->panel));

  /* An error: a mark on line 3, and a row in the list that takes the cursor there. */
  type_text (f->panel, bad_expression);
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, version);
  diagnostics = ks_kernel_panel_get_diagnostics (f->panel);
  for (guint i = 0; i < diagnostics->len && first == NULL; i++)
    if (((KsDiagnostic *) g_ptr_array_index (diagnostics, i))->severity == KS_DIAGNOSTIC_ERROR)
      first = g_ptr_array_index (diagnostics, i);
  if (first == NULL)
    g_error ("No error for the undeclared name; status: %s", ks_kernel_panel_get_status (f->panel));
  g_assert_cmpuint (first->line, ==, 3);
  g_assert_nonnull (strstr (first->message, "undeclared_thing"));
  {
    GSList *marks = gtk_source_buffer_get_source_marks_at_line (
      ks_kernel_panel_get_buffer (f->panel), 2, "error");
    g_autoptr (GPtrArray) views = g_ptr_array_new ();
    GtkSourceMarkAttributes *attributes;
    g_autofree char *tooltip = NULL;
    int priority = 0;

    g_assert_nonnull (marks);
    /* Hovering the mark shows the compiler's message. */
    ks_ui_test_find_widgets (GTK_WIDGET (f->panel), GTK_SOURCE_TYPE_VIEW, views);
    g_assert_cmpuint (views->len, ==, 1);
    attributes = gtk_source_view_get_mark_attributes (g_ptr_array_index (views, 0), "error",
                                                      &priority);
    g_assert_nonnull (attributes);
    tooltip = gtk_source_mark_attributes_get_tooltip_text (attributes, marks->data);
    g_assert_cmpstr (tooltip, ==, first->message);
    g_slist_free (marks);
  }
  row = problem_row (f->panel, "3:");
  g_assert_nonnull (row);
  g_assert_nonnull (problem_row (f->panel, "error: "));
  g_signal_emit_by_name (gtk_widget_get_parent (GTK_WIDGET (row)), "row-activated", row);
  gtk_text_buffer_get_iter_at_mark (
    GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (f->panel)), &cursor,
    gtk_text_buffer_get_insert (GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (f->panel))));
  g_assert_cmpint (gtk_text_iter_get_line (&cursor), ==, 2);
  /* The last good version still runs while the text does not compile. */
  g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), "Does not compile"));
  /* Typed, not saved: the title says so. */
  g_assert_true (g_str_has_suffix (ks_kernel_panel_get_title (f->panel), " •"));
  ks_ui_test_iterate_for (200);
  save_screenshot (GTK_WIDGET (f->panel), "kernel-editor-error.png");

  /* Fixed: the mark goes, a new version is live. */
  type_text (f->panel, good_expression);
  g_assert_cmpuint (count_marks (f->panel, "error"), ==, 0);
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, version + 1);
  /* "Version N is live" on a GPU; without one it compiles but cannot run. */
  fixed_status = g_strdup_printf ("Version %u ", version + 1);
  g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), fixed_status));

  /* Broken again: that version is kept, and the pipeline still runs it. */
  type_text (f->panel, bad_expression);
  g_assert_cmpuint (count_marks (f->panel, "error"), >=, 1);
  {
    g_autofree char *kept = g_strdup_printf ("version %u, the last that did, is ", version + 1);
    g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), kept));
  }
  g_assert_nonnull (ks_pipeline_get_user_kernel (f->pipeline));
  g_assert_true (ks_pipeline_get_user_kernel (f->pipeline)
                 == ks_kernel_panel_get_last_good (f->panel));
  g_assert_cmpstr (ks_kernel_source_get_text (ks_pipeline_get_user_kernel (f->pipeline)), ==,
                   good_expression);

  /* Closing the editor gives the image back to the built-in op; the text stays. */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  ks_ui_test_iterate_for (50);
  g_assert_null (ks_pipeline_get_user_kernel (f->pipeline));
  {
    GtkTextIter start, end;
    g_autofree char *text = NULL;

    gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (f->panel)), &start,
                                &end);
    text = gtk_text_iter_get_text (&start, &end);
    g_assert_cmpstr (text, ==, bad_expression);
  }
}

static void
test_templates_compile (Fixture *f, gconstpointer data)
{
  static const struct
  {
    const char *name;
    KsKernelMode mode;
  } cases[] = {
    { "invert", KS_KERNEL_MODE_EXPRESSION },   { "gray", KS_KERNEL_MODE_EXPRESSION },
    { "box-blur", KS_KERNEL_MODE_IMAGE },      { "add-arrays", KS_KERNEL_MODE_ANY },
    { "histogram", KS_KERNEL_MODE_ANY },
  };

  if (!ks_test_have_nvrtc ())
    return;
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      guint before = ks_kernel_panel_get_version (f->panel);
      const GPtrArray *diagnostics;

      g_test_message ("template %s", cases[i].name);
      g_assert_true (ks_kernel_panel_load_template (f->panel, cases[i].name, &error));
      g_assert_no_error (error);
      g_assert_cmpint (ks_kernel_panel_get_mode (f->panel), ==, cases[i].mode);
      wait_compiled (f->panel);
      diagnostics = ks_kernel_panel_get_diagnostics (f->panel);
      for (guint j = 0; j < diagnostics->len; j++)
        {
          const KsDiagnostic *d = g_ptr_array_index (diagnostics, j);
          if (d->severity == KS_DIAGNOSTIC_ERROR)
            g_error ("%s: %u:%u %s", cases[i].name, d->line, d->column, d->message);
        }
      g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, before + 1);
      g_assert_cmpuint (count_marks (f->panel, "error"), ==, 0);
      /* Image modes run in the pipeline; "any" kernels run on arrays instead. */
      if (cases[i].mode == KS_KERNEL_MODE_ANY)
        g_assert_null (ks_pipeline_get_user_kernel (f->pipeline));
      else
        g_assert_true (ks_pipeline_get_user_kernel (f->pipeline)
                       == ks_kernel_panel_get_last_good (f->panel));
      g_assert_nonnull (strstr (ks_kernel_panel_get_title (f->panel), cases[i].name));
    }

  /* A mode switch recompiles the same text in the other mode: an expression
   * is no image kernel, so that says where it fails, and back again compiles. */
  {
    guint before;

    ks_kernel_panel_load_template (f->panel, "invert", NULL);
    wait_compiled (f->panel);
    before = ks_kernel_panel_get_version (f->panel);
    ks_kernel_panel_set_mode (f->panel, KS_KERNEL_MODE_IMAGE);
    wait_compiled (f->panel);
    g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, before);
    g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), "Does not compile"));
    ks_kernel_panel_set_mode (f->panel, KS_KERNEL_MODE_EXPRESSION);
    wait_compiled (f->panel);
    g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, before + 1);
  }
}

/* Without NVRTC the editor says what is missing and how to get it, and the
 * window carries on with the built-in op. */
static void
test_nvrtc_missing (Fixture *f, gconstpointer data)
{
  const char *status;

  g_setenv ("KS_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", TRUE);
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  ks_kernel_panel_compile_now (f->panel);
  wait_compiled (f->panel);
  g_unsetenv ("KS_NVRTC_LIBRARY");

  status = ks_kernel_panel_get_status (f->panel);
  g_test_message ("status: %s", status);
  g_assert_nonnull (strstr (status, "Cannot compile here"));
  g_assert_nonnull (strstr (status, "/nonexistent/libnvrtc.so.13"));
  g_assert_nonnull (strstr (status, "cuda-nvrtc"));
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, 0);
  g_assert_null (ks_pipeline_get_user_kernel (f->pipeline));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window)));
}

static void
mark_ran (gboolean *ran, gpointer report, KsKernelPanel *panel)
{
  *ran = TRUE;
}

/* The result on screen, downloaded. */
static KsImage *
download_result (KsPipeline *pipeline)
{
  g_autoptr (GError) error = NULL;
  KsImage *image = ks_pipeline_download_output (pipeline, &error);

  g_assert_no_error (error);
  g_assert_nonnull (image);
  return image;
}

/* Until a run newer than `before` is published. */
static const KsRunResult *
wait_new_result (KsPipeline *pipeline, const KsRunResult *before)
{
  KS_UI_TEST_WAIT_FOR (ks_pipeline_get_result (pipeline) != before, KS_UI_TEST_PATIENCE_S);
  g_assert_true (ks_pipeline_get_result (pipeline) != before);
  return ks_pipeline_get_result (pipeline);
}

static void
assert_inverted (KsPipeline *pipeline)
{
  g_autoptr (KsImage) out = download_result (pipeline);
  KsImage *in = ks_pipeline_get_input (pipeline, KS_INPUT_A);

  g_assert_cmpuint (out->width, ==, in->width);
  g_assert_cmpuint (out->height, ==, in->height);
  for (guint y = 0; y < in->height; y++)
    for (guint x = 0; x < in->width; x++)
      {
        guint32 a = ks_image_get_rgba (in, x, y), b = ks_image_get_rgba (out, x, y);

        if (b != ((~a & 0x00ffffffu) | (a & 0xff000000u)))
          g_error ("pixel (%u, %u): %08x is not the inverse of %08x", x, y, b, a);
      }
}

static const char wild_kernel[] =
  "// Writes far outside its image: an illegal address.\n"
  "__global__ void wild (ks_image out, ks_image in)\n"
  "{\n"
  "  out.data[(1ull << 40) + threadIdx.x] = 1;\n"
  "}\n";

static const char invert_kernel[] =
  "__global__ void invert (ks_image out, ks_image in)\n"
  "{\n"
  "  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (!ks_inside (out, x, y))\n"
  "    return;\n"
  "  uchar4 v = ks_rgba (in, x, y);\n"
  "  ks_rgba (out, x, y) = make_uchar4 (255 - v.x, 255 - v.y, 255 - v.z, v.w);\n"
  "}\n";

/* Each pixel takes its right-hand neighbour's colour: the last pixel of the
 * last row reads one pixel past the image. */
static const char shift_kernel[] =
  "__global__ void shift (ks_image out, ks_image in)\n"
  "{\n"
  "  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (!ks_inside (out, x, y))\n"
  "    return;\n"
  "  ks_rgba (out, x, y) = ks_rgba (in, x + 1, y);\n"
  "}\n";

/* Without a GPU: the editor's kernel runs on the CPU engine and shows its
 * result; a kernel that reads past its image runs too, and the console
 * reports the read like compute-sanitizer, with the thread, the block and the
 * line; the text stays and the next kernel runs. */
static void
test_cpu_runs_and_checks (Fixture *f, gconstpointer data)
{
  KsConsolePanel *console = ks_window_get_console_panel (f->window);
  const KsRunResult *now;
  KsImage *in;
  g_autofree char *text = NULL;
  g_autofree char *who = NULL;
  guint w, h;

  if (!ks_test_have_nvrtc ())
    return;
  if (ks_engine_is_cuda (ks_pipeline_get_engine (f->pipeline)))
    {
      g_test_skip ("A CUDA engine runs user kernels on the GPU: gpu-fault-and-fix");
      return;
    }
  KS_UI_TEST_WAIT_FOR (ks_pipeline_get_result (f->pipeline) != NULL, KS_UI_TEST_PATIENCE_S);
  now = ks_pipeline_get_result (f->pipeline);

  /* The invert template goes live on the CPU engine, every pixel right. */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  wait_compiled (f->panel);
  now = wait_new_result (f->pipeline, now);
  assert_inverted (f->pipeline);
  KS_UI_TEST_WAIT_FOR (console_shows (console, "no errors"), KS_UI_TEST_PATIENCE_S);
  g_assert_true (console_shows (console, "· CPU engine ·"));
  g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), "CPU engine"));

  /* One read past the image, by the last thread of the last block. */
  in = ks_pipeline_get_input (f->pipeline, KS_INPUT_A);
  w = in->width;
  h = in->height;
  ks_kernel_panel_set_mode (f->panel, KS_KERNEL_MODE_IMAGE);
  type_text (f->panel, shift_kernel);
  KS_UI_TEST_WAIT_FOR (console_shows (console, "checks found"), KS_UI_TEST_PATIENCE_S);
  text = ks_console_panel_get_text (console);
  g_test_message ("console: %s", text);
  g_assert_nonnull (strstr (text, "Invalid __global__ read of size 4 bytes"));
  g_assert_nonnull (strstr (text, ":7 in "));
  {
    const KsLaunchConfig *launch = ks_pipeline_get_launch (f->pipeline);
    guint bx = launch->block.x, by = launch->block.y;

    who = g_strdup_printf ("by thread (%u,%u,0) in block (%u,%u,0)", (w - 1) % bx, (h - 1) % by,
                           (w - 1) / bx, (h - 1) / by);
  }
  g_assert_nonnull (strstr (text, who));
  g_assert_nonnull (strstr (text, "The CPU engine’s checks found 1 error."));
  g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), "found 1 error"));
  ks_ui_test_iterate_for (200);
  save_screenshot (GTK_WIDGET (console), "kernel-console-cpu-findings.png");
  save_screenshot (GTK_WIDGET (f->window), "kernel-window-cpu-findings.png");

  /* The run went to the end: every other pixel is its neighbour's. */
  {
    g_autoptr (KsImage) out = download_result (f->pipeline);

    for (guint y = 0; y < h; y++)
      for (guint x = 0; x < w; x++)
        {
          guint32 want = x + 1 < w ? ks_image_get_rgba (in, x + 1, y)
                         : y + 1 < h ? ks_image_get_rgba (in, 0, y + 1) : 0;

          if (ks_image_get_rgba (out, x, y) != want)
            g_error ("pixel (%u, %u): %08x, not %08x", x, y, ks_image_get_rgba (out, x, y),
                     want);
        }
  }

  /* Fixed: the next kernel runs, the window still on the CPU engine. */
  now = ks_pipeline_get_result (f->pipeline);
  type_text (f->panel, invert_kernel);
  wait_new_result (f->pipeline, now);
  assert_inverted (f->pipeline);
  g_assert_false (ks_engine_is_cuda (ks_pipeline_get_engine (f->pipeline)));
}

/* On a GPU: the editor's kernel runs on the image; a kernel that faults ends
 * only the worker — the console says so, the last good result and the text
 * stay, the next good kernel runs, and the built-in ops go on on CUDA. */
static void
test_gpu_fault_and_fix (Fixture *f, gconstpointer data)
{
  KsConsolePanel *console = ks_window_get_console_panel (f->window);
  const KsRunResult *good, *now;
  g_autofree char *text = NULL;

  if (!ks_test_have_nvrtc ())
    return;
  if (!ks_engine_is_cuda (ks_pipeline_get_engine (f->pipeline)))
    {
      g_test_skip ("Needs the CUDA engine: user kernels run on an NVIDIA GPU");
      return;
    }
  KS_UI_TEST_WAIT_FOR (ks_pipeline_get_result (f->pipeline) != NULL, KS_UI_TEST_PATIENCE_S);
  now = ks_pipeline_get_result (f->pipeline);

  /* The invert template goes live and the view's result is its output. */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  wait_compiled (f->panel);
  good = wait_new_result (f->pipeline, now);
  g_assert_nonnull (ks_pipeline_get_user_kernel (f->pipeline));
  assert_inverted (f->pipeline);

  /* A kernel that faults: the console says what happened, in plain words. */
  ks_kernel_panel_set_mode (f->panel, KS_KERNEL_MODE_IMAGE);
  type_text (f->panel, wild_kernel);
  KS_UI_TEST_WAIT_FOR (console_shows (console, "cudaErrorIllegalAddress"),
                       KS_UI_TEST_PATIENCE_S);
  text = ks_console_panel_get_text (console);
  g_test_message ("console: %s", text);
  g_assert_nonnull (strstr (text, "cudaErrorIllegalAddress"));
  g_assert_nonnull (strstr (text, "restarted"));
  ks_ui_test_iterate_for (200);
  save_screenshot (GTK_WIDGET (console), "kernel-console-fault.png");
  save_screenshot (GTK_WIDGET (f->window), "kernel-window-fault.png");

  /* The last good result is still the one shown, the text is the user's, and
   * the application's CUDA is fine. */
  g_assert_true (ks_pipeline_get_result (f->pipeline) == good);
  assert_inverted (f->pipeline);
  g_assert_true (ks_engine_is_cuda (ks_pipeline_get_engine (f->pipeline)));
  {
    GtkTextBuffer *buffer = GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (f->panel));
    GtkTextIter start, end;
    g_autofree char *kept = NULL;

    gtk_text_buffer_get_bounds (buffer, &start, &end);
    kept = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
    g_assert_cmpstr (kept, ==, wild_kernel);
  }

  /* Fixed: a new worker runs the next good kernel, and the view follows. */
  type_text (f->panel, invert_kernel);
  now = wait_new_result (f->pipeline, good);
  assert_inverted (f->pipeline);

  /* Closing the editor gives the image back to the built-in op, on CUDA. */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  wait_new_result (f->pipeline, now);
  g_assert_null (ks_pipeline_get_user_kernel (f->pipeline));
  g_assert_true (ks_engine_is_cuda (ks_pipeline_get_engine (f->pipeline)));
}

/* On either engine: the tutorial's addition in the "any" mode, its
 * arguments bound in the array view, run with the launch panel's block and
 * grid; the results table holds a + b. */
static void
test_arrays (Fixture *f, gconstpointer data)
{
  const char *bindings[] = { "result=f32[5000]:zeros:out", "a=f32[5000]:range",
                             "b=f32[5000]:range(0, 2)", "n=5000", NULL };
  g_autoptr (GPtrArray) views = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) result = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  KsArrayView *view;
  KsLaunchConfig launch;
  gboolean ran = FALSE;

  if (!ks_test_have_nvrtc ())
    return;
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  g_assert_true (ks_kernel_panel_load_template (f->panel, "add-arrays", NULL));
  wait_compiled (f->panel);
  g_assert_cmpint (ks_kernel_panel_get_mode (f->panel), ==, KS_KERNEL_MODE_ANY);
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), >=, 1);

  ks_ui_test_find_widgets (GTK_WIDGET (f->panel), KS_TYPE_ARRAY_VIEW, views);
  g_assert_cmpuint (views->len, ==, 1);
  view = g_ptr_array_index (views, 0);
  g_assert_true (ks_array_view_set_bindings (view, bindings, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ks_array_view_get_check (view), ==, KS_BINDING_OK);

  /* A block and a grid too small for 5000 elements: the grid-stride loop covers them. */
  launch = *ks_pipeline_get_launch (f->pipeline);
  launch.block = (KsDim3) { 64, 1, 1 };
  launch.grid = (KsDim3) { 7, 1, 1 };
  launch.auto_grid = FALSE;
  ks_pipeline_set_launch (f->pipeline, &launch);

  g_signal_connect_swapped (f->panel, "arrays-ran", G_CALLBACK (mark_ran), &ran);
  gtk_widget_activate_action (GTK_WIDGET (f->panel), "kernel.run-arrays", NULL);
  KS_UI_TEST_WAIT_FOR (ran, KS_UI_TEST_PATIENCE_S);
  g_assert_true (ran);

  dir = g_dir_make_tmp ("ks-test-arrays-XXXXXX", NULL);
  path = g_build_filename (dir, "result.csv", NULL);
  file = g_file_new_for_path (path);
  g_assert_true (ks_array_view_show_array (view, "result"));
  g_assert_true (ks_array_view_save_shown (view, file, &error));
  g_assert_no_error (error);
  result = ks_array_load (path, KS_ELEM_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (result->length, ==, 5000);
  for (gsize i = 0; i < result->length; i++)
    g_assert_cmpfloat (ks_array_get_double (result, i), ==, 3.0 * i);
  g_remove (path);
  g_rmdir (dir);
  {
    g_autofree char *text = ks_console_panel_get_text (ks_window_get_console_panel (f->window));

    g_test_message ("console: %s", text);
    g_assert_nonnull (strstr (text, "grid 7×1×1 · block 64×1×1"));
  }
}

/* What an "arrays-ran" report said: the error's message, or "" after a run. */
static void
keep_report (char **message, const KsUserRunReport *report, KsKernelPanel *panel)
{
  g_free (*message);
  *message = g_strdup (report->error != NULL ? report->error->message : "");
}

/* A launch the device refuses is refused before the kernel runs, with the
 * message the command line gives, on the pipeline's device: on the CPU
 * engine too. */
static void
test_arrays_impossible_launch (Fixture *f, gconstpointer data)
{
  const char *bindings[] = { "result=f32[5000]:zeros:out", "a=f32[5000]:range",
                             "b=f32[5000]:range(0, 2)", "n=5000", NULL };
  g_autoptr (GPtrArray) views = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *message = NULL;
  const char *needle = "A block of 2048×1 has 2048 threads in x; this device allows at most "
                       "1024 in x";
  KsArrayView *view;
  KsLaunchConfig launch;

  if (!ks_test_have_nvrtc ())
    return;
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  g_assert_true (ks_kernel_panel_load_template (f->panel, "add-arrays", NULL));
  wait_compiled (f->panel);
  g_assert_cmpint (ks_kernel_panel_get_mode (f->panel), ==, KS_KERNEL_MODE_ANY);
  ks_ui_test_find_widgets (GTK_WIDGET (f->panel), KS_TYPE_ARRAY_VIEW, views);
  g_assert_cmpuint (views->len, ==, 1);
  view = g_ptr_array_index (views, 0);
  g_assert_true (ks_array_view_set_bindings (view, bindings, &error));
  g_assert_no_error (error);

  launch = *ks_pipeline_get_launch (f->pipeline);
  launch.block = (KsDim3) { 2048, 1, 1 };
  launch.auto_grid = TRUE;
  ks_pipeline_set_launch (f->pipeline, &launch);

  g_signal_connect_swapped (f->panel, "arrays-ran", G_CALLBACK (keep_report), &message);
  gtk_widget_activate_action (GTK_WIDGET (f->panel), "kernel.run-arrays", NULL);
  KS_UI_TEST_WAIT_FOR (message != NULL, KS_UI_TEST_PATIENCE_S);
  g_assert_nonnull (message);
  g_test_message ("run: %s", message);
  g_assert_nonnull (strstr (message, needle));
  g_assert_nonnull (strstr (message, "Try a block of"));
  g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), needle));
  g_signal_handlers_disconnect_by_func (f->panel, keep_report, &message);
}

/* Two kernels: the chooser appears with both, the source alone does not
 * say which runs, and picking one in the chooser compiles and keeps that
 * one. The helper the text includes is found in the include folder. */
static void
test_kernel_chooser (Fixture *f, gconstpointer data)
{
  static const char text[] =
    "#include <math.h>\n"
    "#include \"scale.cuh\"\n"
    "typedef unsigned int uint;\n"
    "__global__ void first (float *out, uint n) { if (threadIdx.x < n) out[threadIdx.x] = 1; }\n"
    "__global__ void second (float *out, const float *a, uint n)\n"
    "{\n"
    "  if (threadIdx.x < n) out[threadIdx.x] = scale (sqrtf (a[threadIdx.x]));\n"
    "}\n";
  g_autofree char *dir = g_dir_make_tmp ("ks-test-editor-inc-XXXXXX", NULL);
  g_autofree char *helper = g_build_filename (dir, "scale.cuh", NULL);
  const char *dirs[] = { dir, NULL };
  GtkDropDown *chooser;
  GListModel *names;
  KsKernelSource *good;
  gboolean several = FALSE;
  const GPtrArray *diagnostics;

  if (!ks_test_have_nvrtc ())
    return;
  g_assert_true (g_file_set_contents (helper, "#pragma once\n"
                                      "__device__ float scale (float x) { return 3 * x; }\n",
                                      -1, NULL));
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  ks_kernel_panel_set_mode (f->panel, KS_KERNEL_MODE_ANY);
  ks_kernel_panel_set_include_dirs (f->panel, dirs);
  g_assert_true (g_strv_equal (ks_kernel_panel_get_include_dirs (f->panel), dirs));
  ks_kernel_panel_set_text (f->panel, text);
  wait_compiled (f->panel);

  chooser = ks_ui_test_template_child (f->panel, KS_TYPE_KERNEL_PANEL, "kernel_dropdown");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (chooser)));
  names = gtk_drop_down_get_model (chooser);
  g_assert_cmpuint (g_list_model_get_n_items (names), ==, 2);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (names), 0), ==, "first");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (names), 1), ==, "second");
  g_assert_cmpuint (gtk_drop_down_get_selected (chooser), ==, GTK_INVALID_LIST_POSITION);
  diagnostics = ks_kernel_panel_get_diagnostics (f->panel);
  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    several |= strstr (((KsDiagnostic *) g_ptr_array_index (diagnostics, i))->message,
                       "several __global__ functions (first, second)") != NULL;
  g_assert_true (several);
  g_assert_null (ks_kernel_panel_get_last_good (f->panel));

  /* The user picks the second. */
  gtk_drop_down_set_selected (chooser, 1);
  g_assert_cmpstr (ks_kernel_panel_get_kernel (f->panel), ==, "second");
  wait_compiled (f->panel);
  good = ks_kernel_panel_get_last_good (f->panel);
  g_assert_nonnull (good);
  g_assert_cmpstr (ks_kernel_source_get_entry (good), ==, "second");
  g_assert_cmpuint (ks_kernel_source_get_headers (good)->len, ==, 1);
  g_assert_cmpuint (gtk_drop_down_get_selected (chooser), ==, 1);
  g_assert_cmpuint (ks_kernel_source_get_args (good)->len, ==, 3);

  /* Then the first. */
  gtk_drop_down_set_selected (chooser, 0);
  wait_compiled (f->panel);
  g_assert_cmpstr (ks_kernel_source_get_entry (ks_kernel_panel_get_last_good (f->panel)), ==,
                   "first");

  /* One kernel: no chooser. */
  ks_kernel_panel_set_text (f->panel, "__global__ void only (int *o) { o[0] = 1; }\n");
  wait_compiled (f->panel);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (chooser)));
  g_assert_null (ks_kernel_panel_get_kernel (f->panel));

  /* Without the include folder the helper is missing, and the message says
   * so (once a kernel is picked: the text alone does not compile before). */
  ks_kernel_panel_set_include_dirs (f->panel, NULL);
  ks_kernel_panel_set_text (f->panel, text);
  wait_compiled (f->panel);
  gtk_drop_down_set_selected (chooser, 1);
  wait_compiled (f->panel);
  diagnostics = ks_kernel_panel_get_diagnostics (f->panel);
  several = FALSE;
  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    several |= strstr (((KsDiagnostic *) g_ptr_array_index (diagnostics, i))->message,
                       "cannot open “scale.cuh”") != NULL;
  g_assert_true (several);

  g_unlink (helper);
  g_rmdir (dir);
}

static AdwPreferencesRow *
find_row (KsKernelPanel *panel, const char *title)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();

  ks_ui_test_find_widgets (GTK_WIDGET (panel), ADW_TYPE_PREFERENCES_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    if (g_strcmp0 (adw_preferences_row_get_title (g_ptr_array_index (rows, i)), title) == 0)
      return g_ptr_array_index (rows, i);
  g_error ("no row “%s”", title);
  return NULL;
}

static gboolean
has_diagnostic (KsKernelPanel *panel, const char *file, guint line, guint column)
{
  const GPtrArray *diagnostics = ks_kernel_panel_get_diagnostics (panel);

  for (guint i = 0; diagnostics != NULL && i < diagnostics->len; i++)
    {
      const KsDiagnostic *d = g_ptr_array_index ((GPtrArray *) diagnostics, i);

      if (d->severity == KS_DIAGNOSTIC_ERROR && g_strcmp0 (d->file, file) == 0
          && d->line == line && d->column == column)
        return TRUE;
    }
  return FALSE;
}

/* A declared reduction from the templates: its form, the generated source
 * read-only in the editor, a mistake in a piece listed at the piece's
 * place, a run on the arrays (n following their length, the result one
 * element) on the window's engine, and "Edit as CUDA" handing the text over. */
static void
test_declared (Fixture *f, gconstpointer data)
{
  const char *bindings[] = { "x=f32[1000]:range", "y=f32[1000]:const(2)", NULL };
  g_autoptr (GPtrArray) views = g_ptr_array_new ();
  g_autoptr (GPtrArray) buttons = g_ptr_array_new ();
  g_autoptr (GPtrArray) editors = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (KsArray) result = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  g_autofree char *text = NULL;
  AdwPreferencesRow *map_row, *arguments_row;
  KsArrayView *view;
  KsLaunchConfig launch;
  gboolean ran = FALSE;
  guint version;

  if (!ks_test_have_nvrtc ())
    return;
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-kernel", NULL);
  gtk_widget_activate_action (GTK_WIDGET (f->panel), "kernel.template", "s", "declared-dot");
  wait_compiled (f->panel);
  g_assert_cmpint (ks_kernel_panel_get_mode (f->panel), ==, KS_KERNEL_MODE_ANY);
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), >=, 1);
  g_assert_cmpstr (ks_kernel_source_get_entry (ks_kernel_panel_get_last_good (f->panel)), ==,
                   "dot");
  g_assert_cmpstr (ks_kernel_panel_get_title (f->panel), ==, "dot.cu");
  {
    GtkTextIter start, end;

    gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (ks_kernel_panel_get_buffer (f->panel)), &start,
                                &end);
    text = gtk_text_iter_get_text (&start, &end);
  }
  g_assert_nonnull (strstr (text, "#line 1 \"map_expr\"\nx[i]*y[i] ));"));
  map_row = find_row (f->panel, "Map: the value of element i");
  arguments_row = find_row (f->panel, "Arguments");
  g_assert_true (gtk_widget_is_visible (GTK_WIDGET (map_row)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (find_row (f->panel,
                                                                  "Operation on element i"))));

  /* A mistake in the map: the compiler's message, in the piece. */
  version = ks_kernel_panel_get_version (f->panel);
  gtk_editable_set_text (GTK_EDITABLE (map_row), "x[i]*w");
  wait_compiled (f->panel);
  g_assert_true (has_diagnostic (f->panel, "map_expr", 1, 6));
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), ==, version);
  g_assert_nonnull (strstr (ks_kernel_panel_get_status (f->panel), "Does not compile"));
  /* One in the arguments: found before compiling, at its column. */
  gtk_editable_set_text (GTK_EDITABLE (map_row), "x[i]*y[i]");
  gtk_editable_set_text (GTK_EDITABLE (arguments_row), "const float *x, const flaot *y");
  wait_compiled (f->panel);
  g_assert_true (has_diagnostic (f->panel, "arguments", 1, 23));
  gtk_editable_set_text (GTK_EDITABLE (arguments_row), "const float *x, const float *y");
  wait_compiled (f->panel);
  g_assert_cmpuint (ks_kernel_panel_get_version (f->panel), >, version);

  ks_ui_test_find_widgets (GTK_WIDGET (f->panel), KS_TYPE_ARRAY_VIEW, views);
  view = g_ptr_array_index (views, 0);
  g_assert_true (ks_array_view_set_bindings (view, bindings, &error));
  g_assert_no_error (error);
  launch = *ks_pipeline_get_launch (f->pipeline);
  launch.block = (KsDim3) { 128, 1, 1 };
  launch.auto_grid = TRUE;
  ks_pipeline_set_launch (f->pipeline, &launch);
  g_signal_connect_swapped (f->panel, "arrays-ran", G_CALLBACK (mark_ran), &ran);
  gtk_widget_activate_action (GTK_WIDGET (f->panel), "kernel.run-arrays", NULL);
  KS_UI_TEST_WAIT_FOR (ran, KS_UI_TEST_PATIENCE_S);
  g_assert_true (ran);
  g_signal_handlers_disconnect_by_func (f->panel, mark_ran, &ran);

  /* 2 · (0 + 1 + … + 999), exact in float. */
  dir = g_dir_make_tmp ("ks-test-declared-XXXXXX", NULL);
  path = g_build_filename (dir, "result.csv", NULL);
  file = g_file_new_for_path (path);
  g_assert_true (ks_array_view_show_array (view, "result"));
  g_assert_true (ks_array_view_save_shown (view, file, &error));
  g_assert_no_error (error);
  result = ks_array_load (path, KS_ELEM_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (result->length, ==, 1);
  g_assert_cmpfloat (ks_array_get_double (result, 0), ==, 999000.0);
  g_remove (path);
  g_rmdir (dir);

  /* Edit as CUDA: the form goes, the text stays and can be edited. */
  ks_ui_test_find_widgets (GTK_WIDGET (f->panel), GTK_SOURCE_TYPE_VIEW, editors);
  g_assert_cmpuint (editors->len, ==, 1);
  g_assert_false (gtk_text_view_get_editable (g_ptr_array_index (editors, 0)));
  ks_ui_test_find_widgets (GTK_WIDGET (f->panel), GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (buttons, i)), "Edit as CUDA") == 0)
      g_signal_emit_by_name (g_ptr_array_index (buttons, i), "clicked");
  g_assert_false (gtk_widget_is_visible (GTK_WIDGET (map_row)));
  g_assert_true (gtk_text_view_get_editable (g_ptr_array_index (editors, 0)));
  g_assert_cmpstr (ks_kernel_source_get_entry (ks_kernel_panel_get_last_good (f->panel)), ==,
                   "dot");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (!ks_ui_test_require_display (KS_UI_TEST_ADWAITA))
    return 0;
  gtk_source_init ();

  g_test_add ("/ks/kernel-editor/errors-marked", Fixture, NULL, fixture_setup,
              test_errors_marked, fixture_teardown);
  g_test_add ("/ks/kernel-editor/templates-compile", Fixture, NULL, fixture_setup,
              test_templates_compile, fixture_teardown);
  g_test_add ("/ks/kernel-editor/cpu-runs-and-checks", Fixture, NULL, fixture_setup,
              test_cpu_runs_and_checks, fixture_teardown);
  g_test_add ("/ks/kernel-editor/nvrtc-missing", Fixture, NULL, fixture_setup,
              test_nvrtc_missing, fixture_teardown);
  g_test_add ("/ks/kernel-editor/gpu-fault-and-fix", Fixture, NULL, fixture_setup,
              test_gpu_fault_and_fix, fixture_teardown);
  g_test_add ("/ks/kernel-editor/kernel-chooser", Fixture, NULL, fixture_setup,
              test_kernel_chooser, fixture_teardown);
  g_test_add ("/ks/kernel-editor/arrays", Fixture, NULL, fixture_setup,
              test_arrays, fixture_teardown);
  g_test_add ("/ks/kernel-editor/arrays-impossible-launch", Fixture, NULL, fixture_setup,
              test_arrays_impossible_launch, fixture_teardown);
  g_test_add ("/ks/kernel-editor/declared", Fixture, NULL, fixture_setup, test_declared,
              fixture_teardown);
  return g_test_run ();
}
