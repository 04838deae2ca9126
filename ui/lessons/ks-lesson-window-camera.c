/* ks-lesson-window-camera.c: "Run on the Live Camera" in a KsLessonWindow,
 * for a lesson with a live op (12-04): the button says whether a camera was
 * found, and puts the lesson's op and block on the pipeline and opens the
 * camera in the main window. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-camera.h"
#include "ks-lesson-window-private.h"
#include "ks-op-registry.h"

/* The main window: the one the lessons were opened from, which made this
 * window its transient (ui/window/ks-window-lessons.c); it has the camera. */
static GtkWindow *
main_window (KsLessonWindow *self)
{
  return gtk_window_get_transient_for (GTK_WINDOW (self));
}

/* The button says whether there is a camera, as the main window's menu does. */
void
_ks_lesson_window_update_live (KsLessonWindow *self)
{
  const KsLesson *l = self->lesson;
  g_autofree char *tip = NULL;
  char block[48];

  gtk_widget_set_visible (GTK_WIDGET (self->live_button), l != NULL && l->live_op != NULL);
  if (l == NULL || l->live_op == NULL)
    {
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.live-camera", FALSE);
      return;
    }
  ks_dim3_format (&l->live_block, block, sizeof block);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "lesson.live-camera",
                                 main_window (self) != NULL);
  if (self->probed && self->camera == NULL)
    {
      /* Still a button: a camera plugged in since is found, and the main
       * window says what was looked for. */
      gtk_button_set_label (self->live_button, _("No Camera Found"));
      tip = g_strdup (_("No camera was found. Click to look again: a camera found opens in "
                        "the main window"));
    }
  else
    {
      gtk_button_set_label (self->live_button, _("Run on the _Live Camera"));
      if (self->camera != NULL)
        tip = g_strdup_printf (_("Opens %s in the main window, running the op “%s” with "
                                 "blocks of %s, as this lesson’s kernel does"),
                               self->camera, l->live_op, block);
      else
        tip = g_strdup_printf (_("Opens the camera in the main window, running the op “%s” "
                                 "with blocks of %s, as this lesson’s kernel does"),
                               l->live_op, block);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->live_button),
                               main_window (self) != NULL
                                 ? tip
                                 : _("The camera opens in the main window, and this window "
                                     "belongs to none"));
}

static void
on_probed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GWeakRef) ref = user_data;
  g_autoptr (KsLessonWindow) self = g_weak_ref_get (ref);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = ks_camera_probe_finish (result, &error);

  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->probe);
  if (names == NULL)
    g_debug ("camera probe: %s", error->message);
  self->probed = TRUE;
  g_free (self->camera);
  self->camera = names != NULL && names[0] != NULL ? g_strdup (names[0]) : NULL;
  _ks_lesson_window_update_live (self);
}

void
_ks_lesson_window_probe_camera (KsLessonWindow *self)
{
  GWeakRef *ref;

  if (self->probe != NULL)
    return;
  self->probe = g_cancellable_new ();
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  ks_camera_probe_async (self->probe, on_probed_cb, ref);
}

/* The lesson's op on the main window's pipeline, launched as the lesson's
 * kernel is (its block, a grid covering the frame, a pixel a thread; the
 * book's variant truncates as astype(uint8) does), and the camera as its
 * input. */
void
_ks_lesson_window_open_live_camera (KsLessonWindow *self)
{
  GtkWindow *window = main_window (self);
  const KsOp *op;
  KsLaunchConfig launch;
  guint truncate;

  if (window == NULL || self->lesson == NULL || self->lesson->live_op == NULL)
    return;
  op = ks_op_registry_lookup (self->lesson->live_op);
  if (op == NULL)
    {
      g_warning ("lesson %s: no op “%s”", self->lesson->id, self->lesson->live_op);
      return;
    }
  ks_pipeline_set_op (self->pipeline, op);
  if (ks_op_lookup_param (op, "truncate", &truncate) != NULL)
    ks_pipeline_set_param (self->pipeline, truncate, self->variant->book ? 1 : 0);
  launch = *ks_pipeline_get_launch (self->pipeline);
  launch.block = self->lesson->live_block;
  launch.auto_grid = TRUE;
  launch.mode = KS_LAUNCH_PER_PIXEL;
  launch.pixels_per_thread = 1;
  ks_pipeline_set_launch (self->pipeline, &launch);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-camera", "s", "");
  gtk_window_present (window);
  /* Whether it found one shows in the main window; the button follows the
   * next probe. */
  _ks_lesson_window_probe_camera (self);
}
