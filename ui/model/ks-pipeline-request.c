/* What a run is built from, taken from the model on the main loop: the
 * request for the current op, the output's size, the key of a configuration's
 * plain time, and the launch validated against the device (revalidate). */
#include "config.h"

#include "ks-pipeline-private.h"

void
_ks_pipeline_build_request (KsPipeline *self, const Source *s, KsRunRequest *request)
{
  ks_run_request_init (request, self->op);
  request->params = self->params;
  request->launch = self->launch;
  for (guint i = 0; i < self->op->n_inputs; i++)
    request->inputs[i] = s->buffers[i];
}

void
_ks_pipeline_revalidate (KsPipeline *self)
{
  KsRunRequest request;
  g_autoptr (GError) error = NULL;
  g_autofree char *old_message = g_steal_pointer (&self->validation_message);
  gboolean was_valid = self->valid;

  /* The user's kernel is validated on the runner, where it is compiled:
   * its attributes come from the worker (user_validated). */
  if (self->user_kernel != NULL)
    {
      self->validation_message = g_steal_pointer (&old_message);
      return;
    }
  self->have_occupancy = FALSE;
  self->valid = TRUE;
  if (self->source->buffers[KS_INPUT_A] != NULL)
    {
      _ks_pipeline_build_request (self, self->source, &request);
      /* Validation reads the device's limits and the kernel's attributes; it
       * launches nothing, so it stays on the main loop and the launch panel
       * answers at once. */
      self->valid = ks_engine_validate (self->source->engine, &request, &self->resolved,
                                        &self->suggestion, &error);
      if (!self->valid)
        self->validation_message = g_strdup (error->message);
      else if (ks_engine_is_cuda (self->source->engine)
               && ks_engine_kernel_attributes (self->source->engine, &request,
                                               &self->attributes, NULL))
        {
          ks_launch_occupancy (&self->resolved, ks_device_get_limits (self->source->device),
                               &self->attributes, &self->occupancy);
          self->have_occupancy = TRUE;
        }
    }
  if (was_valid != self->valid)
    _ks_pipeline_notify (self, PROP_VALID);
  if (g_strcmp0 (old_message, self->validation_message) != 0)
    _ks_pipeline_notify (self, PROP_VALIDATION_MESSAGE);
}

void
_ks_pipeline_output_size (KsPipeline *self, guint *width, guint *height)
{
  KsImage *a = self->source->inputs[KS_INPUT_A];

  if (self->user_kernel != NULL)
    {
      /* User kernels write an image of the input's size. */
      *width = a->width;
      *height = a->height;
      return;
    }
  ks_op_output_size (self->op, &self->params, a->width, a->height, width, height);
}

/* What a plain run's time depends on: the op, the launch that runs, the
 * output's size and the engine (not the parameters' values). */
char *
_ks_pipeline_config_key (KsPipeline *self, guint width, guint height)
{
  const KsLaunchConfig *l = &self->resolved;

  return g_strdup_printf ("%s %p %ux%u b%ux%ux%u g%ux%ux%u m%u p%u", self->op->id,
                          (gpointer) self->source->engine, width, height, l->block.x, l->block.y,
                          l->block.z, l->grid.x, l->grid.y, l->grid.z, (guint) l->mode,
                          l->pixels_per_thread);
}
