/* ks-image-private.h: testing hooks of the image files, and the worker
 * program's renderer (app/kernelscope-worker.c); not for ui/. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lowers the largest side ks_image_load accepts (KS_IMAGE_MAX_SIDE when 0),
 * so that a fuzzer's memory limit is not spent on legitimately large images.
 * Not thread-safe: set it before loading anything. */
void          _ks_image_set_max_side    (guint side);

/* Vector images are rendered by the worker program (--render FILE --max-side
 * N), under the memory and time budget its parent set: it writes the width
 * and height (two native-endian u32) and then the RGBA8 rows, tightly packed,
 * on stdout, or one line on stderr and exits 1 (ks-image-render.c). */
int           _ks_image_render_main     (const char *path, guint max_side);

G_END_DECLS
