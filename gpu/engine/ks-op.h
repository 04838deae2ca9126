#pragma once

#include <glib.h>

#include "ks-image.h"
#include "ks-launch.h"

G_BEGIN_DECLS

#define KS_OP_MAX_PARAMS 8
#define KS_OP_MAX_INPUTS 2

typedef enum
{
  KS_PARAM_INT,
  KS_PARAM_DOUBLE,
  KS_PARAM_BOOL,
  KS_PARAM_CHOICE, /* an index into `choices` */
} KsParamType;

typedef struct
{
  const char *name;        /* "truncate": used on the command line and in sessions */
  const char *title;       /* "Truncate like the tutorial" */
  const char *description;
  KsParamType type;
  double min;
  double max;
  double default_value;
  const char *const *choices; /* NULL-terminated ids for KS_PARAM_CHOICE */
  const char *const *choice_titles;
} KsParamSpec;

/* Values in the order of the op's specs; bools are 0 or 1, choices an index. */
typedef struct
{
  double values[KS_OP_MAX_PARAMS];
} KsParams;

typedef enum
{
  KS_OP_OUTPUT_IMAGE,
  KS_OP_OUTPUT_HISTOGRAM,
} KsOpOutputKind;

typedef struct _KsOp KsOp;

struct _KsOp
{
  const char *id;          /* "gray" */
  const char *title;       /* "Grayscale" */
  const char *group;       /* "Tutorial", "Colour", "Filters", "Geometry" */
  const char *description;
  guint n_inputs;          /* 1 or 2; every input has the same size */
  KsOpOutputKind output_kind;
  KsFormat output_format;  /* image ops */
  const KsParamSpec *params;
  guint n_params;
  KsLaunchConfig default_launch;
  guint default_pixels_per_thread;
  /* How the engines run it (engine-private, gpu/engine/ks-engine-private.h). */
  const struct _KsOpImpl *impl;
};

/* Whether the op accepts an input of this format; RGBA8 always, GRAY8 where the op says. */
gboolean      ks_op_accepts_format      (const KsOp *op, KsFormat format);
/* Bytes read and written once by one run on a width × height input, with
 * the op's default parameters (ks_op_bytes_moved_for: with these). */
guint64       ks_op_bytes_moved         (const KsOp *op, KsFormat input_format,
                                         guint width, guint height);
guint64       ks_op_bytes_moved_for     (const KsOp *op, const KsParams *params,
                                         KsFormat input_format, guint width, guint height);
/* The output's size for an input of width × height (resize changes it). */
void          ks_op_output_size         (const KsOp *op, const KsParams *params,
                                         guint width, guint height,
                                         guint *out_width, guint *out_height);

const KsParamSpec *ks_op_lookup_param   (const KsOp *op, const char *name, guint *index);
void          ks_params_init            (KsParams *params, const KsOp *op);
/* Sets a value with range and type checks: "0.5", "true", a choice id. */
gboolean      ks_params_set             (KsParams *params, const KsOp *op, const char *name,
                                         const char *value, GError **error);
/* "name=value" as on the command line. */
gboolean      ks_params_parse_assignment (KsParams *params, const KsOp *op, const char *assignment,
                                          GError **error);
gboolean      ks_params_validate        (const KsParams *params, const KsOp *op, GError **error);
double        ks_params_get             (const KsParams *params, const KsOp *op, const char *name);
char         *ks_param_format_value     (const KsParamSpec *spec, double value);

G_END_DECLS
