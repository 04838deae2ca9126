/* Publishing on the main loop: the pipeline's property and signal tables,
 * notifying, and dropping or recording a published run. Every other
 * ks-pipeline*.c file publishes through these, so they sit below all of
 * them; ks-pipeline.c's class_init fills the tables. */
#include "config.h"

#include "ks-pipeline-private.h"

GParamSpec *_ks_pipeline_properties[N_PROPS];
guint _ks_pipeline_signals[N_SIGNALS];

void
_ks_pipeline_notify (KsPipeline *self, guint prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), _ks_pipeline_properties[prop]);
}

void
_ks_pipeline_clear_outcome (KsPipeline *self)
{
  if (self->outcome == NULL)
    return;
  g_clear_pointer (&self->outcome, _ks_pipeline_outcome_free);
  _ks_pipeline_notify (self, PROP_RESULT);
}

void
_ks_pipeline_record_sample (KsPipeline *self)
{
  KsTimingSample s = { g_get_monotonic_time (), self->outcome->result.kernel_ms, -1,
                       self->outcome->result.warmup,
                       ks_engine_is_cuda (self->outcome->source->engine) };

  g_array_append_val (self->history, s);
  if (self->history->len > KS_PIPELINE_HISTORY)
    g_array_remove_range (self->history, 0, self->history->len - KS_PIPELINE_HISTORY);
}
