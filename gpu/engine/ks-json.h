/* ks-json.h: what every JSON file Kernelscope writes shares (the command-line
 * tool's reports, the window's exports).
 *
 * The documents are built with json-glib; these helpers hold the choices that
 * json-glib cannot make for us. json-glib writes whatever it is given, and a
 * double that was never measured (NAN) would come out as "nan", which no JSON
 * reader accepts: NULL strings and non-finite numbers become null instead, so
 * that an unmeasured value never reads as a number. */
#pragma once

#include <json-glib/json-glib.h>

#include "ks-launch.h"
#include "ks-timing.h"

G_BEGIN_DECLS

void      ks_json_add_string     (JsonBuilder *builder, const char *value);
void      ks_json_add_number     (JsonBuilder *builder, double value);
/* A device property's value: numbers, booleans and strings as themselves (NaN
 * and infinities as null), any other type as its GVariant text. */
JsonNode *ks_json_from_variant   (GVariant *value);
/* A timing's members, added to the object being built: median_ms, mad_ms,
 * min_ms, max_ms, warmup_ms, and the number of timed runs as `count_key`. The
 * benchmark's rows hold them next to their own members, bench-display gives
 * each timing an object of its own, and each file keeps its own name for the
 * count ("runs", "n") for the scripts that read it. */
void      ks_json_add_timing     (JsonBuilder *builder, const KsTiming *timing,
                                  const char *count_key);
/* A block or grid as a member: name: [x, y, z]. */
void      ks_json_add_dim3       (JsonBuilder *builder, const char *name, const KsDim3 *dim);
typedef enum
{
  KS_JSON_LAUNCH_NONE = 0,
  /* An automatic grid not yet resolved is written "grid": "auto" rather
   * than the manual grid it keeps (the command-line tool's reports). */
  KS_JSON_LAUNCH_AUTO_GRID_AS_WORD = 1 << 0,
} KsJsonLaunchFlags;

/* A launch as a member: name: {"block": [x, y, z], "grid": [x, y, z],
 * "auto_grid": bool, "mode": "per-pixel" | "grid-stride",
 * "pixels_per_thread": n}, in that order: the shape of sessions
 * (docs/sessions.md) and of the command-line tool's JSON. */
void      ks_json_add_launch     (JsonBuilder *builder, const char *name,
                                  const KsLaunchConfig *launch, KsJsonLaunchFlags flags);
/* Pretty-printed, ending with a newline. */
char     *ks_json_to_data        (JsonNode *root);
gboolean  ks_json_write          (JsonNode *root, const char *path, GError **error);

G_END_DECLS
