/* ks-panel.c: the base of the main window's panels (see ks-panel.h): the
 * "pipeline" property, the signal group that follows it, and the dispose
 * every panel shared. */
#include "config.h"

#include "ks-panel.h"

typedef struct
{
  /* owned references */
  KsPipeline *pipeline;
  GSignalGroup *signals;
} KsPanelPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (KsPanel, ks_panel, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_PIPELINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

void
ks_panel_set_pipeline (KsPanel *self, KsPipeline *pipeline)
{
  KsPanelPrivate *priv = ks_panel_get_instance_private (self);
  g_autoptr (KsPipeline) old = NULL;

  g_return_if_fail (KS_IS_PANEL (self));
  g_return_if_fail (pipeline == NULL || KS_IS_PIPELINE (pipeline));

  if (priv->pipeline == pipeline)
    return;
  old = g_steal_pointer (&priv->pipeline);
  priv->pipeline = pipeline != NULL ? g_object_ref (pipeline) : NULL;
  g_signal_group_set_target (priv->signals, pipeline);
  if (KS_PANEL_GET_CLASS (self)->pipeline_changed != NULL)
    KS_PANEL_GET_CLASS (self)->pipeline_changed (self, old, pipeline);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PIPELINE]);
}

KsPipeline *
ks_panel_get_pipeline (KsPanel *self)
{
  KsPanelPrivate *priv = ks_panel_get_instance_private (self);

  g_return_val_if_fail (KS_IS_PANEL (self), NULL);
  return priv->pipeline;
}

GSignalGroup *
ks_panel_get_signals (KsPanel *self)
{
  KsPanelPrivate *priv = ks_panel_get_instance_private (self);

  g_return_val_if_fail (KS_IS_PANEL (self), NULL);
  return priv->signals;
}

static void
ks_panel_dispose (GObject *object)
{
  KsPanel *self = KS_PANEL (object);
  KsPanelPrivate *priv = ks_panel_get_instance_private (self);
  GtkWidget *child;

  g_signal_group_set_target (priv->signals, NULL);
  g_clear_object (&priv->pipeline);
  /* A panel's template has an unbound top box, which the panel's
   * gtk_widget_dispose_template leaves in place. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (ks_panel_parent_class)->dispose (object);
}

static void
ks_panel_finalize (GObject *object)
{
  KsPanelPrivate *priv = ks_panel_get_instance_private (KS_PANEL (object));

  g_object_unref (priv->signals);
  G_OBJECT_CLASS (ks_panel_parent_class)->finalize (object);
}

static void
ks_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  KsPanel *self = KS_PANEL (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      g_value_set_object (value, ks_panel_get_pipeline (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_panel_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  KsPanel *self = KS_PANEL (object);

  switch (prop_id)
    {
    case PROP_PIPELINE:
      ks_panel_set_pipeline (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_panel_class_init (KsPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_panel_dispose;
  object_class->finalize = ks_panel_finalize;
  object_class->get_property = ks_panel_get_property;
  object_class->set_property = ks_panel_set_property;

  properties[PROP_PIPELINE] =
    g_param_spec_object ("pipeline", NULL, NULL, KS_TYPE_PIPELINE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Subclasses inherit it: each panel is its template's one top box. */
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_panel_init (KsPanel *self)
{
  KsPanelPrivate *priv = ks_panel_get_instance_private (self);

  priv->signals = g_signal_group_new (KS_TYPE_PIPELINE);
}
