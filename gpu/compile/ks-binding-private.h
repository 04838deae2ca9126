/* ks-binding-private.h: what ks-binding.c takes from ks-binding-init.c, the
 * table of the ways to fill an array (the INIT of NAME=TYPE[LENGTH]:INIT).
 * Messages come back as what is wrong, for the caller to put after the
 * binding's text. */
#pragma once

#include <glib.h>

#include "ks-array.h"

G_BEGIN_DECLS

/* Whether INIT (what follows the ':') starts a kind whose argument is a path,
 * which runs to the last ')' and may hold colons: file(PATH). */
gboolean _ks_binding_init_takes_path (const char *init);
/* Reads INIT into b's init and its fields: NULL, or what is wrong. */
char    *_ks_binding_parse_init      (KsBinding *b, const char *init);
/* NULL when b's INIT can make an array of b's type and length (the values it
 * would generate fit the type, its seed is whole); else why not. */
char    *_ks_binding_check_init      (const KsBinding *b);
/* Appends INIT as ks_binding_parse reads it back: "range(1, 2)". */
void     _ks_binding_format_init     (const KsBinding *b, GString *s);
/* The array INIT makes: generated, or read from a file (text, the whole
 * binding, starts the messages). */
KsArray *_ks_binding_make_array      (const KsBinding *b, const char *text, GError **error);

G_END_DECLS
