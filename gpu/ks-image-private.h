/* ks-image-private.h: testing hooks of the image files; not for ui/ or app/. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lowers the largest side ks_image_load accepts (KS_IMAGE_MAX_SIDE when 0),
 * so that a fuzzer's memory limit is not spent on legitimately large images.
 * Not thread-safe: set it before loading anything. */
void          _ks_image_set_max_side    (guint side);

G_END_DECLS
