/* ks-cli.h: what the commands of kernelscope-cli share. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "kernelscope.h"
#include "ks-bench.h"
#include "ks-file.h"
#include "ks-json.h"

G_BEGIN_DECLS

typedef enum
{
  KS_CLI_EXIT_OK = 0,
  KS_CLI_EXIT_FAILED = 1, /* the work failed: a file, the device, the engine */
  KS_CLI_EXIT_USAGE = 2,  /* the command line is wrong */
} KsCliExit;

#define KS_CLI_ERROR (ks_cli_error_quark ())

typedef enum
{
  KS_CLI_ERROR_USAGE, /* exits with KS_CLI_EXIT_USAGE */
} KsCliError;

GQuark    ks_cli_error_quark         (void);

/* The whole tool: argv as main() gets it; returns the exit code. */
int       ks_cli_main                (int argc, char **argv);

/* Prints "kernelscope-cli: MESSAGE" as one line on stderr and returns the
 * exit code the error deserves: 2 for usage errors, 1 for the rest. */
int       ks_cli_report_error        (const GError *error);
/* One line on stderr, prefixed, for notes that are not failures. */
void      ks_cli_note                (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* The text report on stdout (data; diagnostics go to stderr through
 * ks_cli_note). Nothing once ks_cli_set_json (TRUE): stdout then holds only
 * the JSON document that ks_cli_emit_json prints. */
void      ks_cli_print               (const char *format, ...) G_GNUC_PRINTF (1, 2);
void      ks_cli_set_json            (gboolean json);
/* The command's report: printed on stdout when --json was given, written
 * atomically to output when that is not NULL (--output FILE); both may hold. */
gboolean  ks_cli_emit_json           (JsonNode *root, gboolean json, const char *output,
                                      GError **error);
/* JSON members shared by the reports (a dimension: ks_json_add_dim3): a launch as
 * {block, grid ("auto" or [x, y, z]), mode, pixels_per_thread}; a parameter's
 * value as its type (a choice by its id). */
void      ks_cli_json_add_launch     (JsonBuilder *b, const char *name,
                                      const KsLaunchConfig *config, guint default_ppt,
                                      gboolean resolved);
void      ks_cli_json_add_param      (JsonBuilder *b, const KsParamSpec *spec, double value);
/* Wraps an error about a command-line value as a usage error. */
void      ks_cli_usage_error         (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Parses a command's options (entries may be NULL); argv[0] is the command's
 * name. Sets *help when --help was given (its text is then printed on stdout).
 * *args gets the remaining words (a new strv: free it), args[0] being the
 * program name. A short option may be glued to its value (-irandom:8x8); text
 * values must be UTF-8 whatever the locale. --version prints the version and
 * sets *help too: the command then returns at once, like after --help. */
gboolean  ks_cli_parse_options       (GOptionContext *context, const GOptionEntry *entries,
                                      int argc, char **argv, char ***args, gboolean *help,
                                      GError **error);

/* --engine cuda|cpu and --device N; NULL engine name means CUDA when
 * available, otherwise the CPU engine with a note on stderr. */
KsEngine *ks_cli_open_engine         (const char *engine_name, int device, GError **error);

/* "7680x4320" */
gboolean  ks_cli_parse_size          (const char *text, guint *width, guint *height,
                                      GError **error);

/* "block 32×8, grid 60×540 (auto), one pass per thread, 4 pixels per thread";
 * unresolved configurations say "grid auto". */
char     *ks_cli_describe_launch     (const KsLaunchConfig *config, guint default_ppt,
                                      gboolean resolved);

/* An input image: a path, "random:WxH", "testcard:WxH", "gray:…" (ks-cli-run.c). */
KsImage  *ks_cli_load_input          (const char *spec, guint index, GError **error);

int       ks_cli_cmd_devices         (int argc, char **argv);
int       ks_cli_cmd_ops             (int argc, char **argv);
int       ks_cli_cmd_run             (int argc, char **argv);
int       ks_cli_cmd_compare         (int argc, char **argv);
int       ks_cli_cmd_bench           (int argc, char **argv);
int       ks_cli_cmd_bench_display   (int argc, char **argv);
int       ks_cli_cmd_kernel          (int argc, char **argv);
int       ks_cli_cmd_bench_kernel    (int argc, char **argv);
int       ks_cli_cmd_bench_cpu       (int argc, char **argv);
int       ks_cli_cmd_sweep           (int argc, char **argv);
int       ks_cli_cmd_lesson          (int argc, char **argv);


/* ---- bench (ks-cli-bench-report.c) --------------------------------------- */

/* A table for people, one row per op. */
char     *ks_cli_bench_table         (const KsBenchReport *report);
JsonNode *ks_cli_bench_json          (const KsBenchReport *report);
gboolean  ks_cli_bench_write_json    (const KsBenchReport *report, const char *path,
                                      GError **error);

/* ---- bench-display (ks-cli-bench-display.c) ------------------------------ */

/* One image size: what a frame costs on each path. */
typedef struct
{
  guint width;
  guint height;
  KsTiming interop_wall;   /* (a) whole frame, host clock, after glFinish */
  KsTiming copy_wall;      /* (b) */
  KsTiming kernel;         /* the op, CUDA events, in both paths' frames */
  KsTiming interop_cuda;   /* (a) map + copy + unmap, CUDA events */
  KsTiming download;       /* (b) device → pinned staging, CUDA events */
  double ratio;            /* (b) median / (a) median */
  gboolean have_shared;    /* (c) ran: the shared-memory path is available */
  KsTiming shared_wall;    /* (c) whole frame, host clock, after glFinish */
  double shared_ratio;     /* (b) median / (c) median */
} KsCliDisplaySize;

/* What bench-display measured, and on what: all borrowed. */
typedef struct
{
  const char *device_name;
  const char *device_id;
  const char *op;
  const char *gl;          /* ks_egl_context_describe */
  const char *interop;     /* ks_interop_describe */
  const char *shared;      /* (c)'s ks_interop_describe, or why it did not run */
  guint frames;            /* timed frames per path and size */
  guint warmup_frames;
  const GArray *sizes;     /* KsCliDisplaySize */
} KsCliDisplayReport;

JsonNode *ks_cli_display_json        (const KsCliDisplayReport *report);

G_END_DECLS
