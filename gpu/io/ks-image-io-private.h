/* ks-image-io-private.h: what the files of ks_image_load share
 * (ks-image-load.c, ks-image-decode.c, ks-image-check.c, ks-image-render.c);
 * not for other layers. */
#pragma once

#include <gdk-pixbuf/gdk-pixbuf.h>

#include "ks-image.h"

G_BEGIN_DECLS

/* ---- decoding (ks-image-decode.c) ------------------------------------------ */

/* A decoded pixbuf as RGBA8, whatever its channels. */
KsImage      *_ks_image_from_pixbuf     (GdkPixbuf *pixbuf, GError **error);
/* Data decoded in memory by the incremental loader, refused past
 * KS_IMAGE_MAX_SIDE before it allocates; what: the data's name in messages. */
KsImage      *_ks_image_load_data       (const guint8 *data, gsize len, const char *what,
                                         GError **error);
/* The reason in a message of gdk_pixbuf_new_from_file about path. */
const char   *_ks_image_pixbuf_reason   (const char *message, const char *path);

/* ---- the file's structure (ks-image-check.c) ------------------------------- */

/* Whether a file of gdk-pixbuf's format `format`, `size` bytes, holds the
 * data its header promises; display: its name in messages. */
gboolean      _ks_image_check_complete  (const char *path, const char *display, const char *format,
                                         goffset size, GError **error);
/* FALSE for a GIF whose screen or frames gdk-pixbuf would assert on. */
gboolean      _ks_image_check_gif_sizes (const char *path, const char *display, GError **error);

/* ---- vector images (ks-image-render.c) ------------------------------------- */

/* The image of a vector file of width×height, rendered in the worker
 * program within its budget; max_side: the largest side accepted. */
KsImage      *_ks_image_render_vector   (const char *path, const char *display, int width,
                                         int height, guint max_side, GError **error);

G_END_DECLS
