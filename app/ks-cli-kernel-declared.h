/* ks-cli-kernel-declared.h: `kernel`'s declared kernels (ks-declared-kernel.h):
 * the options that declare one (--elementwise, --reduce, --scan and theirs),
 * the source they generate, the bindings they add, what --json says of them. */
#pragma once

#include <json-glib/json-glib.h>

#include "ks-declared-kernel.h"

G_BEGIN_DECLS

typedef struct
{
  char *elementwise;   /* the arguments */
  char *operation;
  char *reduce;        /* reduce_expr */
  char *map;
  char *arguments;
  char *dtype_out;
  char *scan;          /* scan_expr */
  char *dtype;
  char *neutral;
  gboolean inclusive;
  gboolean exclusive;
  gboolean out_of_place;
  char *preamble;      /* the text, or @FILE */
  char *name;
  gboolean emit_source;

  /* what was read from them */
  gboolean declared;
  KsDeclaration declaration;
  char *preamble_text;
} KsCliDeclared;

void       ks_cli_declared_clear         (KsCliDeclared *d);
/* The options, to append to the command's (G_OPTION_ENTRY_NULL not included). */
guint      ks_cli_declared_n_entries     (void);
void       ks_cli_declared_get_entries   (KsCliDeclared *d, GOptionEntry *entries);
/* Whether the options declare a kernel; FALSE with a usage error when they
 * are inconsistent or mixed with a file, --expr or --kind (given: say so). */
gboolean   ks_cli_declared_read          (KsCliDeclared *d, gboolean file_or_expr,
                                          gboolean kind, GError **error);
/* The generated "any" kernel; NULL with the declaration's problem. */
KsKernelSource *ks_cli_declared_open     (const KsCliDeclared *d, GError **error);
/* --json: "declared" {kind, name, source (its file name), text (the
 * generated source)} and, for a reduction, "result". */
void       ks_cli_declared_add_json      (JsonBuilder *b, const KsCliDeclared *d,
                                          KsKernelSource *source, const GPtrArray *out_names,
                                          const GPtrArray *arrays);

G_END_DECLS
