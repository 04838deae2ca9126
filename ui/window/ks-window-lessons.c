/* ks-window-lessons.c: "win.lessons", one Lessons window per main window.
 *
 * The main window keeps only a weak reference to it, in its object data, so
 * closing the Lessons window frees it and the next activation makes a fresh
 * one; while it is open, a second activation brings it forward. */
#include "config.h"

#include "ks-lesson-window.h"
#include "ks-window-lessons.h"
#include "ks-window-private.h"

#define LESSONS_KEY "ks-lesson-window"

static void
weak_ref_free (gpointer data)
{
  GWeakRef *ref = data;

  g_weak_ref_clear (ref);
  g_free (ref);
}

static void
lessons_action (KsWindow *self, const char *action_name, GVariant *parameter)
{
  GWeakRef *ref = g_object_get_data (G_OBJECT (self), LESSONS_KEY);
  g_autoptr (GtkWidget) window = ref != NULL ? g_weak_ref_get (ref) : NULL;

  if (window == NULL)
    {
      /* GTK holds the new toplevel; the reference taken here is ours to drop. */
      window = g_object_ref (ks_lesson_window_new (GTK_WINDOW (self), self->pipeline));
      ref = g_new0 (GWeakRef, 1);
      g_weak_ref_init (ref, window);
      g_object_set_data_full (G_OBJECT (self), LESSONS_KEY, ref, weak_ref_free);
    }
  gtk_window_present (GTK_WINDOW (window));
}

const KsWindowActionEntry _ks_window_lessons_actions[] = {
  { "win.lessons", NULL, lessons_action },
  { NULL },
};

void
_ks_window_class_init_lessons (GtkWidgetClass *widget_class)
{
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK, "win.lessons",
                                       NULL);
}
