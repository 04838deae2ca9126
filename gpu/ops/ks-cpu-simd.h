/* ks-cpu-simd.h: the CPU engine's hand-vectorised x86 loops (ks-cpu-simd.c),
 * chosen at run time from what the processor has. Each computes exactly the
 * integers of the portable loops it replaces (kernels/ks-pixel.h,
 * kernels/ks-filter.h); tests/test-cpu-simd.c holds every level to them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  KS_CPU_SIMD_PORTABLE = 0,  /* plain C loops, vectorised by the compiler */
  KS_CPU_SIMD_AVX2 = 1,
  KS_CPU_SIMD_AVX512 = 2,    /* AVX-512 F, BW and VL */
} KsCpuSimd;

/* The level the engine uses: the best the processor has, lowered by
 * KS_CPU_SIMD=portable|avx2|avx512 in the environment (read once) or by
 * _ks_cpu_simd_force. */
KsCpuSimd   _ks_cpu_simd_level        (void);
/* The best level this processor runs. */
KsCpuSimd   _ks_cpu_simd_supported    (void);
/* Tests and benchmarks: use at most `level` from now on (clamped to what
 * the processor has). Not for use while a run is in progress. */
void        _ks_cpu_simd_force        (KsCpuSimd level);
const char *_ks_cpu_simd_name         (KsCpuSimd level);

/* The rounded (bias 500) or truncated (bias 0) BT.601 luma of n RGBA8
 * pixels, as _ks_cpu_luma_row; FALSE, with nothing written, where the level
 * has no vector loop for it. */
gboolean    _ks_cpu_simd_luma_row     (const guint8 *a, guint8 *out, guint n, guint32 bias);

/* The separable filters' passes for symmetric taps w[0 … 2e], e ≤ 3:
 * v[i] = Σ_k w[k] · rows[k][i] for i < m (the vertical pass, 8-bit lanes
 * into 32-bit sums), and the horizontal pass over 4-lane pixels with a
 * power-of-two divisor 2^shift, alpha taken from `centre`:
 * dst[4x + c] = (Σ_k w[k] · v[4(x + k) + c] + half) >> shift for c < 3.
 * FALSE, with nothing written, where the level has no loop for them. */
gboolean    _ks_cpu_simd_vsum_u8      (guint32 *v, const guint8 *const *rows, const guint32 *w,
                                       guint e, gsize m);
gboolean    _ks_cpu_simd_hsum_shift   (guint8 *dst, const guint32 *v, const guint32 *w, guint e,
                                       guint n, guint32 half, guint shift, const guint8 *centre);

G_END_DECLS
