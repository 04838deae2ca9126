/* The data a run works from and gives back: a source (the device, its engine,
 * the inputs and their copies on the device) and an outcome (a published run),
 * with the work done on the worker to make them — uploads, histograms, the
 * coverage mask and the overlay's ownership texture. Nothing here touches the
 * pipeline. */
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "ks-op-registry.h"
#include "ks-pipeline-private.h"

/* ---- what the engine works from ------------------------------------------------- */

Source *
_ks_pipeline_source_new (KsDevice *device, KsEngine *engine)
{
  Source *s = g_new0 (Source, 1);

  g_atomic_ref_count_init (&s->ref);
  s->device = g_object_ref (device);
  s->engine = g_object_ref (engine);
  s->upload_ms = -1;
  return s;
}

Source *
_ks_pipeline_source_ref (Source *s)
{
  g_atomic_ref_count_inc (&s->ref);
  return s;
}

/* A GDestroyNotify too. */
void
_ks_pipeline_source_unref (gpointer data)
{
  Source *s = data;

  if (!g_atomic_ref_count_dec (&s->ref))
    return;
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&s->buffers[i], ks_buffer_unref);
      g_clear_pointer (&s->inputs[i], ks_image_unref);
      g_free (s->names[i]);
    }
  g_object_unref (s->engine);
  g_object_unref (s->device);
  g_free (s);
}

/* The same inputs, to be uploaded again (on another engine, or with one replaced). */
Source *
_ks_pipeline_source_derive (const Source *base, KsDevice *device, KsEngine *engine)
{
  Source *s = _ks_pipeline_source_new (device, engine);

  for (guint i = 0; i < 2; i++)
    {
      s->inputs[i] = base->inputs[i] != NULL ? ks_image_ref (base->inputs[i]) : NULL;
      s->names[i] = g_strdup (base->names[i]);
    }
  return s;
}

/* ---- a published run -------------------------------------------------------------- */

void
_ks_pipeline_outcome_free (gpointer data)
{
  Outcome *o = data;

  ks_run_result_clear (&o->result);
  g_clear_pointer (&o->coverage_mask, ks_image_unref);
  g_free (o->ownership);
  g_free (o->shareable_refused);
  _ks_pipeline_source_unref (o->source);
  g_free (o);
}

/* ---- on the worker: uploads and histograms ---------------------------------------- */

/* Nearest-neighbour resampling, so that a second image of another size can
 * still be added to or blended with the first. */
static KsImage *
resample (const KsImage *src, guint width, guint height)
{
  KsImage *dst = ks_image_new (src->format, width, height, NULL);

  if (dst == NULL)
    return NULL;
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      ks_image_set_rgba (dst, x, y,
                         ks_image_get_rgba (src, (guint) ((guint64) x * src->width / width),
                                            (guint) ((guint64) y * src->height / height)));
  return dst;
}

/* Input B follows input A's size; without one, the test card stands in. */
KsImage *
_ks_pipeline_second_input_for (const Source *s)
{
  KsImage *a = s->inputs[KS_INPUT_A], *b = s->inputs[KS_INPUT_B];

  if (b == NULL)
    return ks_image_new_test_card (a->width, a->height, NULL);
  if (b->width == a->width && b->height == a->height)
    return ks_image_ref (b);
  return resample (b, a->width, a->height);
}

gboolean
_ks_pipeline_run_histogram (KsEngine *engine, KsBuffer *buffer, guint32 out[4][256],
                            GError **error)
{
  KsRunRequest request;
  KsRunResult result = { 0 };

  ks_run_request_init (&request, ks_op_registry_lookup ("histogram"));
  request.inputs[0] = buffer;
  if (!ks_engine_run (engine, &request, &result, error))
    return FALSE;
  memcpy (out, result.histogram, sizeof result.histogram);
  ks_run_result_clear (&result);
  return TRUE;
}

gboolean
_ks_pipeline_upload_inputs (Source *s, GError **error)
{
  g_autoptr (KsImage) b = NULL;

  if (s->inputs[KS_INPUT_A] == NULL)
    return TRUE;
  s->buffers[0] = ks_engine_upload (s->engine, s->inputs[KS_INPUT_A], &s->upload_ms, error);
  if (s->buffers[0] == NULL)
    return FALSE;
  b = _ks_pipeline_second_input_for (s);
  if (b == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   _("Not enough memory for the second image"));
      return FALSE;
    }
  s->buffers[1] = ks_engine_upload (s->engine, b, NULL, error);
  return s->buffers[1] != NULL
         && _ks_pipeline_run_histogram (s->engine, s->buffers[0], s->histogram, error);
}

/* ---- on the worker: a run's coverage, for the view ------------------------------- */

/* The overlay's texture data (see Outcome.ownership). */
guint32 *
_ks_pipeline_pack_ownership (const KsCoverage *coverage)
{
  gsize n;
  guint32 *packed;

  if (coverage == NULL || coverage->writes == NULL || coverage->width == 0)
    return NULL;
  n = (gsize) coverage->width * coverage->height;
  packed = g_try_new (guint32, 2 * n);
  if (packed == NULL)
    return NULL;
  for (gsize i = 0; i < n; i++)
    {
      packed[2 * i] = coverage->owner_block[i];
      packed[2 * i + 1] = (coverage->owner_thread[i] & 0xffffu)
                          | MIN (coverage->writes[i], 0xffffu) << 16;
    }
  return packed;
}

KsImage *
_ks_pipeline_coverage_mask (const KsCoverage *coverage)
{
  KsImage *mask;

  if (coverage == NULL || coverage->writes == NULL || coverage->width == 0)
    return NULL;
  mask = ks_image_new (KS_FORMAT_GRAY8, coverage->width, coverage->height, NULL);
  if (mask == NULL)
    return NULL;
  for (guint y = 0; y < coverage->height; y++)
    {
      const guint32 *writes = coverage->writes + (gsize) y * coverage->width;
      guint8 *row = ks_image_row (mask, y);

      for (guint x = 0; x < coverage->width; x++)
        row[x] = writes[x] != 0 ? 255 : 0;
    }
  return mask;
}
