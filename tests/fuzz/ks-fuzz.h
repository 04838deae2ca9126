/* ks-fuzz.h: what the libFuzzer harnesses share. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

G_BEGIN_DECLS

/* The entry points libFuzzer calls (declared here: the project builds with
 * -Werror=missing-prototypes). */
int         LLVMFuzzerInitialize   (int *argc, char ***argv);
int         LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Criticals and warnings abort, so that a failed g_return_if_fail or a
 * warning on hostile input counts as a crash; debug messages are dropped. */
void        ks_fuzz_init_logging   (void);

/* Criticals and warnings of this library's log domain ("GdkPixbuf") are
 * printed once each and not fatal: a library's own assertions on hostile
 * input are reported, not fixed here, and must not stop a long run. */
void        ks_fuzz_tolerate_domain (const char *domain);

/* The input cut into at most max_fields fields at each `separator` byte; the
 * last field keeps the rest. A field ends early at a NUL byte, as a C string
 * from the command line or a file would. Free with g_strfreev. */
char      **ks_fuzz_split          (const uint8_t *data, size_t size, char separator,
                                    guint max_fields);

/* The bytes as one C string (up to the first NUL). */
char       *ks_fuzz_string         (const uint8_t *data, size_t size);

/* Aborts with the message when `ok` is false: a broken promise of the API. */
#define ks_fuzz_check(ok, ...) \
  G_STMT_START { if (G_UNLIKELY (!(ok))) g_error (__VA_ARGS__); } G_STMT_END

G_END_DECLS
