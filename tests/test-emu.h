/* test-emu.h: what the emulator's test programs (test-emu*.c) share
 * (test-emu-helpers.c). */
#pragma once

#include "ks-emu.h"
#include "ks-error.h"
#include "ks-nvrtc.h"
#include "ks-test-helpers.h"

G_BEGIN_DECLS

/* The byte outputs are filled with before a run, so that unwritten
 * elements show. */
#define EMU_POISON 0xCD

typedef struct
{
  KsEmuModule *module;
  GPtrArray *names;  /* the entries' lowered names, in the order asked */
} EmuProgram;

void          emu_program_clear      (EmuProgram *p);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (EmuProgram, emu_program_clear)

/* Compiles for sm_90 with NVRTC (the source must compile) and parses the PTX
 * (it must parse). */
void          emu_compile_with       (EmuProgram *p, const char *source,
                                      const char *const *entries, const char *const *options);
void          emu_compile            (EmuProgram *p, const char *source,
                                      const char *const *entries);
/* The PTX name of entries[i]. */
const char   *emu_entry              (const EmuProgram *p, guint i);
KsDim3        emu_dim3               (guint x, guint y, guint z);
/* The next parameter: a buffer's device address, or a value. */
void          emu_param_buffer       (KsEmuLaunch *launch, gpointer data, gsize size,
                                      const char *name);
void          emu_param_int          (KsEmuLaunch *launch, gint32 v);
void          emu_param_float        (KsEmuLaunch *launch, float v);
/* Runs; the run must end well and find nothing. */
void          emu_run_clean          (KsEmuLaunch *launch, KsEmuResult *result);
gpointer      emu_poisoned           (gsize size);
float        *emu_random_floats      (gsize n, double lo, double hi);
guint32       emu_bits               (float f);
void          emu_assert_same_float  (float expected, float actual, gsize i);
/* The distance of two floats in representable values. */
guint32       emu_ulps               (float a, float b);
guint64       emu_ulps64             (double a, double b);
/* main's start: TRUE where NVRTC loads; else prints a TAP plan of no tests,
 * skipped, and main returns 77. */
gboolean      emu_have_nvrtc         (void);

G_END_DECLS
