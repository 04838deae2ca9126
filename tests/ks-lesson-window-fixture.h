/* ks-lesson-window-fixture.h: the Lessons window on the CPU engine, opened
 * for a test, as test-lesson-window.c and test-lesson-results.c use it: a
 * lesson selected and run, its result cells and labels found by key, a
 * launch typed and run. */
#pragma once

#include <gtk/gtk.h>

#include "ks-lesson-cells.h"
#include "ks-lesson-window.h"
#include "ks-pipeline.h"

G_BEGIN_DECLS

typedef struct
{
  KsPipeline *pipeline;
  GtkWindow *parent;
  KsLessonWindow *window;
} KsLessonFixture;

/* For g_test_add: the window, presented with its first lesson run; without a
 * display both do nothing (the test skips). */
void            ks_lesson_fixture_setup       (KsLessonFixture *f, gconstpointer data);
void            ks_lesson_fixture_teardown    (KsLessonFixture *f, gconstpointer data);

/* Runs the main loop until the window's run is over. */
void            ks_lesson_fixture_wait        (KsLessonWindow *window);
/* Selects lesson `id` and its `variant` (NULL: the fixed one) and waits for
 * its report. */
void            ks_lesson_fixture_run         (KsLessonFixture *f, const char *id,
                                               const char *variant);
/* The result widget under `key`, drawn: cells, or a label's text. */
KsLessonCells  *ks_lesson_fixture_cells       (KsLessonFixture *f, const char *key);
const char     *ks_lesson_fixture_label       (KsLessonFixture *f, const char *key);
/* For ks_ui_test_find_widget_matching: the entry of that widget name. */
gboolean        ks_lesson_fixture_entry_named (GtkWidget *widget, gconstpointer name);
/* Types `text` into the launch entry `name` and runs it. */
/* Scrolls the lesson's page so that `key`'s widget is `above` pixels below the top. */
void            ks_lesson_fixture_scroll_to   (KsLessonFixture *f, const char *key,
                                               double above);
void            ks_lesson_fixture_type_launch (KsLessonFixture *f, const char *name,
                                               const char *text);

G_END_DECLS
