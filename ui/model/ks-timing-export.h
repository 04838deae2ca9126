/* ks-timing-export.h: the timing history as CSV or JSON, from the data given
 * (the pipeline passes its own; tests pass any device name). */
#pragma once

#include "ks-pipeline.h"

G_BEGIN_DECLS

typedef struct
{
  const char *device_name;
  gboolean cuda;
  const char *op_id;
  guint width;                  /* input A's size; 0 without one */
  guint height;
  const GArray *history;        /* KsTimingSample, oldest first */
} KsTimingExport;

/* Times are seconds since the first sample; a display time not reported yet
 * is empty in CSV and null in JSON, as is any time that is not a number. */
char *ks_timing_export_csv  (const KsTimingExport *data);
char *ks_timing_export_json (const KsTimingExport *data);

G_END_DECLS
