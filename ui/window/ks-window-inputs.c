/* ks-window-inputs.c: where the window's inputs come from — a file read in
 * a thread, an image handed in (pasted, the test card, a session's
 * embedded one), a bundled sample — and, once the pipeline took one, what
 * it came from (the file or the sample's name), which a session records. */
#include "config.h"

#include <glib/gi18n.h>

#include "ks-window-private.h"

#define SAMPLE_RESOURCE_DIR "/org/kernelscope/Kernelscope/samples/"

typedef struct
{
  KsWindow *window;
  KsInputSlot slot;
  GFile *file;
  char *sample;
} InputSetData;

static void
input_set_data_free (InputSetData *d)
{
  g_object_unref (d->window);
  g_clear_object (&d->file);
  g_free (d->sample);
  g_free (d);
}

static void
on_input_set_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  InputSetData *d = user_data;
  KsWindow *self = d->window;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_set_input_finish (KS_PIPELINE (object), result, &error))
    {
      g_autofree char *message = g_strdup_printf (_("%s The current image stays."),
                                                  error->message);
      _ks_window_toast (self, message);
    }
  else
    {
      g_set_object (&self->input_files[d->slot], d->file);
      g_free (self->input_samples[d->slot]);
      self->input_samples[d->slot] = g_strdup (d->sample);
      if (d->file != NULL)
        {
          g_autofree char *uri = g_file_get_uri (d->file);
          gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
        }
    }
  input_set_data_free (d);
}

static void
open_image_from (KsWindow *self, KsImage *image, const char *name, KsInputSlot slot,
                 GFile *file, const char *sample)
{
  InputSetData *d = g_new0 (InputSetData, 1);

  d->window = g_object_ref (self);
  d->slot = slot;
  d->file = file != NULL ? g_object_ref (file) : NULL;
  d->sample = g_strdup (sample);
  ks_pipeline_set_input_async (self->pipeline, slot, image, name, NULL, on_input_set_cb, d);
}

void
_ks_window_open_image (KsWindow *self, KsImage *image, const char *name, KsInputSlot slot)
{
  open_image_from (self, image, name, slot, NULL, NULL);
}

typedef struct
{
  GFile *file;
  KsInputSlot slot;
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *d = data;
  g_object_unref (d->file);
  g_free (d);
}

static void
image_unref (gpointer image)
{
  ks_image_unref (image);
}

static void
load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LoadData *d = task_data;
  g_autofree char *path = g_file_get_path (d->file);
  GError *error = NULL;
  KsImage *image;

  if (path == NULL)
    {
      /* Not on a local file system (for example a remote location): read it through GIO. */
      g_autoptr (GBytes) bytes = g_file_load_bytes (d->file, cancellable, NULL, &error);
      image = bytes != NULL ? ks_image_load_bytes (bytes, &error) : NULL;
    }
  else
    image = ks_image_load (path, &error);
  if (image == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, image, image_unref);
}

static void
on_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (KsWindow) self = user_data;
  LoadData *d = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *name = g_file_get_basename (d->file);

  if (image == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("%s The current image stays."),
                                                  error->message);
      _ks_window_toast (self, message);
      return;
    }
  open_image_from (self, image, name, d->slot, d->file, NULL);
}

void
_ks_window_open_file (KsWindow *self, GFile *file, KsInputSlot slot)
{
  g_autoptr (GTask) task = NULL;
  LoadData *d;

  d = g_new0 (LoadData, 1);
  d->file = g_object_ref (file);
  d->slot = slot;
  task = g_task_new (NULL, NULL, on_loaded_cb, g_object_ref (self));
  g_task_set_task_data (task, d, load_data_free);
  g_task_run_in_thread (task, load_thread);
}

void
ks_window_open_sample (KsWindow *self)
{
  ks_window_open_named_sample (self, "astronaut");
}

void
ks_window_open_named_sample (KsWindow *self, const char *name)
{
  g_autofree char *file = g_strdup_printf ("%s.png", name);
  g_autofree char *path = g_strconcat (SAMPLE_RESOURCE_DIR, file, NULL);
  g_autoptr (GBytes) bytes = g_resources_lookup_data (path, 0, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (KsImage) image = NULL;

  if (bytes != NULL)
    image = ks_image_load_bytes (bytes, &error);
  if (image == NULL)
    image = ks_image_new_test_card (1024, 768, NULL);
  if (image == NULL)
    {
      _ks_window_toast (self, _("Not enough memory for the sample image"));
      return;
    }
  open_image_from (self, image, bytes != NULL ? file : _("Test card"), KS_INPUT_A, NULL,
                   bytes != NULL ? name : NULL);
}
