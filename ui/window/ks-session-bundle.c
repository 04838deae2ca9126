/* ks-session-bundle.c: a run exported as a bundle — a folder
 * "kernelscope-OP-DATE" with result.png and overlay.png (or histogram.csv),
 * the timings as CSV and JSON, the session and a README, taken from the
 * published run at one moment, written under a hidden name in a thread and
 * renamed when complete. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-session-private.h"

/* How long an export waits for the runs queued before it. */
#define EXPORT_WAIT_MS 10000

typedef struct
{
  KsWindow *window;        /* owned */
  GFile *folder;
  gint64 wait_until;
  /* Taken at one moment, from the published run. */
  KsSession *session;
  char *folder_tag;        /* the op's id, or "kernel" */
  char *title;             /* the op's title, for the README */
  char *device;
  char *timings_csv;
  char *timings_json;
  gboolean image_output;
  guint32 histogram[4][256];
  KsCoverage *coverage;    /* a copy, or NULL */
  KsLaunchConfig resolved;
  KsOverlayMode overlay;
  double opacity;
  char *result_tmp;        /* where the result is written before it moves in */
  GDateTime *when;
} Export;

static void
export_free (Export *e)
{
  g_object_unref (e->window);
  g_object_unref (e->folder);
  ks_session_free (e->session);
  g_free (e->folder_tag);
  g_free (e->title);
  g_free (e->device);
  g_free (e->timings_csv);
  g_free (e->timings_json);
  ks_coverage_free (e->coverage);
  g_free (e->result_tmp);
  g_clear_pointer (&e->when, g_date_time_unref);
  g_free (e);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Export, export_free)

static KsCoverage *
coverage_copy (const KsCoverage *c)
{
  gsize n = (gsize) c->width * c->height;
  KsCoverage *copy = g_new (KsCoverage, 1);

  *copy = *c;
  copy->writes = c->writes != NULL ? g_memdup2 (c->writes, n * sizeof (guint32)) : NULL;
  copy->owner_block = c->owner_block != NULL ? g_memdup2 (c->owner_block, n * sizeof (guint32))
                                             : NULL;
  copy->owner_thread = c->owner_thread != NULL
                       ? g_memdup2 (c->owner_thread, n * sizeof (guint32)) : NULL;
  return copy;
}

static void
export_fail (Export *e, const char *reason)
{
  g_autofree char *message = g_strdup_printf (_("Could not export the bundle: %s"), reason);

  _ks_session_toast (e->window, message);
}

static gboolean
write_text (const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return g_file_set_contents (path, text, -1, error);
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  /* The bundle's folder holds only the files written here: no subfolders. */
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static char *
histogram_csv (guint32 (*bins)[256])
{
  GString *s = g_string_new ("bin,r,g,b,luma\n");

  for (guint i = 0; i < 256; i++)
    g_string_append_printf (s, "%u,%u,%u,%u,%u\n", i, bins[0][i], bins[1][i], bins[2][i],
                            bins[3][i]);
  return g_string_free (s, FALSE);
}

/* The README stays in English, like the CSV and JSON files beside it: a
 * bundle is made to be passed on (a bug report, a class's shared folder). */
static char *
readme_text (const Export *e, const char *overlay_note)
{
  GString *s = g_string_new ("Kernelscope bundle\n\n");
  g_autofree char *date = g_date_time_format (e->when, "%Y-%m-%d %H:%M:%S");
  char block[64], grid[64];

  ks_dim3_format (&e->resolved.block, block, sizeof block);
  ks_dim3_format (&e->resolved.grid, grid, sizeof grid);
  g_string_append_printf (s, "Exported %s by %s %s.\n", date, PACKAGE_NAME, PACKAGE_VERSION);
  g_string_append_printf (s, "Operation: %s\nEngine: %s\n", e->title, e->device);
  g_string_append_printf (s, "Launch that ran: block %s, grid %s, %s, %u pixel(s) per thread\n\n",
                          block, grid,
                          e->resolved.mode == KS_LAUNCH_GRID_STRIDE ? "grid-stride" : "per-pixel",
                          e->resolved.pixels_per_thread);
  if (e->image_output)
    {
      g_string_append (s, "result.png           the output image of the run shown\n");
      if (overlay_note == NULL)
        g_string_append_printf (s, "overlay.png          the %s overlay over it, at %.0f %% "
                                "opacity\n", ks_overlay_mode_to_string (e->overlay),
                                e->opacity * 100);
    }
  else
    g_string_append (s, "histogram.csv        the run's 256 bins of R, G, B and luma\n");
  g_string_append (s, "timings.csv          per-stage timings and the history of kernel times\n"
                      "timings.json         the same as JSON\n"
                      "session.kscope.json  the set-up: open it in Kernelscope (Open Session)\n");
  if (overlay_note != NULL)
    g_string_append_printf (s, "\nNo overlay.png: %s\n", overlay_note);
  return g_string_free (s, FALSE);
}

static void
export_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Export *e = task_data;
  g_autofree char *parent = g_file_get_path (e->folder);
  g_autofree char *staging = g_build_filename (parent, ".kernelscope-bundle-XXXXXX", NULL);
  g_autofree char *date = g_date_time_format (e->when, "%Y%m%d-%H%M%S");
  g_autofree char *session_text = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *final = NULL;
  const char *overlay_note = NULL;
  GError *error = NULL;

  if (g_mkdtemp_full (staging, 0755) == NULL)
    {
      int errsv = errno;
      g_autofree char *where = g_filename_display_name (parent);

      if (e->result_tmp != NULL)
        g_unlink (e->result_tmp);
      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (errsv),
                               _("no folder can be made in %s (%s)"), where, g_strerror (errsv));
      return;
    }

  if (e->image_output)
    {
      g_autofree char *result_path = g_build_filename (staging, "result.png", NULL);
      g_autoptr (KsImage) result = NULL;

      if (g_rename (e->result_tmp, result_path) != 0)
        {
          int errsv = errno;

          g_set_error (&error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s",
                       g_strerror (errsv));
          goto fail;
        }
      g_clear_pointer (&e->result_tmp, g_free);
      if (e->coverage == NULL)
        overlay_note = "this run recorded no coverage (every pixel was written once and no "
                       "overlay was on); turn an overlay on in the view and export again";
      else
        {
          g_autoptr (KsImage) overlay = NULL;
          g_autoptr (GError) compose_error = NULL;
          g_autofree char *overlay_path = g_build_filename (staging, "overlay.png", NULL);

          result = ks_image_load (result_path, &error);
          if (result == NULL)
            goto fail;
          overlay = ks_overlay_compose (result, e->coverage, &e->resolved, e->overlay, e->opacity,
                                        &compose_error);
          if (overlay == NULL)
            overlay_note = "the run's coverage does not match its output";
          else if (!ks_image_save (overlay, overlay_path, &error))
            goto fail;
        }
    }
  else
    {
      g_autofree char *csv = histogram_csv (e->histogram);

      if (!write_text (staging, "histogram.csv", csv, &error))
        goto fail;
    }

  session_text = ks_session_to_json (e->session, NULL, &error);
  readme = readme_text (e, overlay_note);
  if (session_text == NULL || !write_text (staging, "timings.csv", e->timings_csv, &error)
      || !write_text (staging, "timings.json", e->timings_json, &error)
      || !write_text (staging, "session" KS_SESSION_EXTENSION, session_text, &error)
      || !write_text (staging, "README.txt", readme, &error))
    goto fail;

  /* Complete: it takes its name now, the first that is free. */
  for (guint n = 1; n <= 100 && final == NULL; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup_printf ("kernelscope-%s-%s", e->folder_tag, date)
                                     : g_strdup_printf ("kernelscope-%s-%s-%u", e->folder_tag,
                                                        date, n);
      g_autofree char *path = g_build_filename (parent, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS) && g_rename (staging, path) == 0)
        final = g_steal_pointer (&path);
    }
  if (final == NULL)
    {
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                           _("every name for it is taken in that folder"));
      goto fail;
    }
  g_task_return_pointer (task, g_steal_pointer (&final), g_free);
  return;

fail:
  if (e->result_tmp != NULL)
    g_unlink (e->result_tmp);
  remove_tree (staging);
  g_task_return_error (task, error);
}

static void
on_exported_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Export) e = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_task_propagate_pointer (G_TASK (result), &error);

  if (path == NULL)
    export_fail (e, error->message);
  else
    {
      g_autofree char *name = g_filename_display_basename (path);
      g_autofree char *message = g_strdup_printf (_("Exported the bundle to %s"), name);

      _ks_session_toast (e->window, message);
    }
}

static void
export_run_thread (Export *e)
{
  g_autoptr (GTask) task = g_task_new (NULL, NULL, on_exported_cb, e);

  g_task_set_task_data (task, e, NULL);
  g_task_run_in_thread (task, export_thread);
}

static void
on_result_saved_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Export *e = user_data;
  g_autoptr (GError) error = NULL;

  if (!ks_pipeline_save_output_finish (KS_PIPELINE (source), result, &error))
    {
      export_fail (e, error->message);
      export_free (e);
      return;
    }
  export_run_thread (e);
}

static void
export_start (Export *e)
{
  KsPipeline *pipeline = e->window->pipeline;
  KsImageView *view;
  const KsRunResult *result;
  const KsCoverage *coverage;
  g_autofree char *parent = NULL;

  if (!_ks_session_window_alive (e->window))
    {
      export_free (e);
      return;
    }
  result = ks_pipeline_get_result (pipeline);
  parent = g_file_get_path (e->folder);
  if (result == NULL)
    {
      export_fail (e, _("no run has finished yet"));
      export_free (e);
      return;
    }
  if (parent == NULL)
    {
      export_fail (e, _("choose a folder on this computer"));
      export_free (e);
      return;
    }

  /* Everything from the published run, now: the next one replaces it. */
  view = e->window->view;
  e->session = _ks_session_capture (e->window);
  e->when = g_date_time_new_now_local ();
  if (ks_pipeline_get_user_kernel (pipeline) != NULL)
    {
      e->folder_tag = g_strdup ("kernel");
      e->title = g_strdup ("your kernel (kernel editor)");
    }
  else
    {
      const KsOp *op = ks_pipeline_get_result_op (pipeline);

      e->folder_tag = g_strdup (op != NULL ? op->id : "result");
      e->title = op != NULL ? g_strdup_printf ("%s (%s)", op->title, op->id) : g_strdup ("-");
    }
  e->device = g_strdup_printf ("%s (%s)", ks_device_get_name (ks_pipeline_get_device (pipeline)),
                               ks_device_get_id (ks_pipeline_get_device (pipeline)));
  e->timings_csv = ks_pipeline_export_timings (pipeline, FALSE);
  e->timings_json = ks_pipeline_export_timings (pipeline, TRUE);
  e->image_output = result->output != NULL;
  e->resolved = result->launch;
  e->overlay = ks_image_view_get_overlay (view);
  if (e->overlay == KS_OVERLAY_NONE)
    e->overlay = KS_OVERLAY_BLOCK;
  e->opacity = ks_image_view_get_overlay_opacity (view);
  coverage = ks_pipeline_get_coverage (pipeline);
  /* Copied: the published run's coverage goes with the next run, and the
   * overlay is composed in a thread. */
  if (coverage != NULL && e->image_output)
    e->coverage = coverage_copy (coverage);
  if (!e->image_output)
    {
      memcpy (e->histogram, result->histogram, sizeof e->histogram);
      export_run_thread (e);
      return;
    }
  {
    g_autofree char *uuid = g_uuid_string_random ();
    g_autofree char *name = g_strdup_printf (".kernelscope-result-%s.png", uuid);
    g_autoptr (GFile) tmp = NULL;

    e->result_tmp = g_build_filename (parent, name, NULL);
    tmp = g_file_new_for_path (e->result_tmp);
    ks_pipeline_save_output_async (pipeline, tmp, NULL, on_result_saved_cb, e);
  }
}

static gboolean
export_wait_cb (gpointer user_data)
{
  Export *e = user_data;

  if (_ks_session_window_alive (e->window) && !ks_pipeline_is_idle (e->window->pipeline)
      && g_get_monotonic_time () < e->wait_until)
    return G_SOURCE_CONTINUE;
  export_start (e);
  return G_SOURCE_REMOVE;
}

void
_ks_session_export_bundle (KsWindow *window, GFile *folder)
{
  Export *e;

  e = g_new0 (Export, 1);
  e->window = g_object_ref (window);
  e->folder = g_object_ref (folder);
  e->wait_until = g_get_monotonic_time () + EXPORT_WAIT_MS * G_TIME_SPAN_MILLISECOND;
  /* A change made just before is still running: the bundle shows its result. */
  if (ks_pipeline_is_idle (window->pipeline))
    export_start (e);
  else
    g_timeout_add (50, export_wait_cb, e);
}
