/* ks-cpu-simd.c: hand-vectorised AVX2 and AVX-512 loops of the CPU engine,
 * compiled with target attributes and chosen at run time, so that the
 * project still builds for the x86-64 baseline. Everything else, and every
 * processor without them, runs the portable loops; both give the same bytes.
 *
 * Why by hand: the compiler's vectorisation of the portable loops widens each
 * byte to a 32-bit lane and multiplies with vpmulld (10 cycles' latency on
 * several Intel cores), and keeps the filters' passes apart, each through
 * memory. The luma here multiplies 16-bit pairs with one pmaddwd; the
 * filters' vertical pass keeps its taps' pairs in registers and the
 * horizontal pass rounds, narrows and puts alpha back in the same loop. */
#include "config.h"

#include <string.h>

#include "ks-cpu-simd.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define KS_SIMD_X86 1
#include <immintrin.h>
#else
#define KS_SIMD_X86 0
#endif

#define KS_AVX2 __attribute__ ((target ("avx2")))
#define KS_AVX512 __attribute__ ((target ("avx2,avx512f,avx512bw,avx512vl")))

/* Written once by the first caller (the same value from any thread) and by
 * _ks_cpu_simd_force; read with atomics. −1: not known yet. */
static gint simd_level = -1;

KsCpuSimd
_ks_cpu_simd_supported (void)
{
#if KS_SIMD_X86
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw")
      && __builtin_cpu_supports ("avx512vl"))
    return KS_CPU_SIMD_AVX512;
  if (__builtin_cpu_supports ("avx2"))
    return KS_CPU_SIMD_AVX2;
#endif
  return KS_CPU_SIMD_PORTABLE;
}

const char *
_ks_cpu_simd_name (KsCpuSimd level)
{
  static const char *const names[] = { "portable", "avx2", "avx512" };

  g_return_val_if_fail (level <= KS_CPU_SIMD_AVX512, NULL);
  return names[level];
}

void
_ks_cpu_simd_force (KsCpuSimd level)
{
  g_atomic_int_set (&simd_level, (gint) MIN (level, _ks_cpu_simd_supported ()));
}

KsCpuSimd
_ks_cpu_simd_level (void)
{
  gint level = g_atomic_int_get (&simd_level);

  if (level < 0)
    {
      const char *want = g_getenv ("KS_CPU_SIMD");
      KsCpuSimd best = _ks_cpu_simd_supported ();

      level = (gint) best;
      for (gint k = KS_CPU_SIMD_PORTABLE; want != NULL && k <= KS_CPU_SIMD_AVX512; k++)
        if (g_str_equal (want, _ks_cpu_simd_name ((KsCpuSimd) k)))
          level = MIN (k, (gint) best);
      g_atomic_int_set (&simd_level, level);
    }
  return (KsCpuSimd) level;
}

#if KS_SIMD_X86

/* ---- luma ----------------------------------------------------------------
 * s = 299 R + 587 G + 114 B + bias as two pmaddwd per word of four bytes:
 * (R, B) against (299, 114), (G, 0) against (587, 0). s ≤ 256 000, so s >> 3
 * fits a signed 16-bit lane, and ((s >> 3) · 33555) >> 22 — the portable
 * loop's exact division by 1000 — is pmulhuw's >> 16, then >> 6. */

static inline guint8
luma_one (const guint8 *p, guint32 bias)
{
  guint32 s = 299u * p[0] + 587u * p[1] + 114u * p[2] + bias;

  return (guint8) (((s >> 3) * 33555u) >> 22);
}

KS_AVX2 static void
luma_avx2 (const guint8 *a, guint8 *out, guint n, guint32 bias)
{
  const __m256i rb = _mm256_set1_epi32 (0x00ff00ff), g = _mm256_set1_epi32 (0xff);
  const __m256i wrb = _mm256_set1_epi32 (299 | (114 << 16)), wg = _mm256_set1_epi32 (587);
  const __m256i b = _mm256_set1_epi32 ((gint) bias), k = _mm256_set1_epi16 ((gshort) 33555);
  /* packs work within 128-bit lanes: one permute puts the words in order */
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  gsize i = 0;

  for (; i + 32 <= n; i += 32)
    {
      __m256i s[4], lo, hi;

      for (guint j = 0; j < 4; j++)
        {
          __m256i v = _mm256_loadu_si256 ((const __m256i *) (a + 4 * i + 32 * j));
          __m256i t = _mm256_add_epi32 (
            _mm256_madd_epi16 (_mm256_and_si256 (v, rb), wrb),
            _mm256_madd_epi16 (_mm256_and_si256 (_mm256_srli_epi32 (v, 8), g), wg));
          s[j] = _mm256_srli_epi32 (_mm256_add_epi32 (t, b), 3);
        }
      lo = _mm256_srli_epi16 (_mm256_mulhi_epu16 (_mm256_packs_epi32 (s[0], s[1]), k), 6);
      hi = _mm256_srli_epi16 (_mm256_mulhi_epu16 (_mm256_packs_epi32 (s[2], s[3]), k), 6);
      _mm256_storeu_si256 ((__m256i *) (out + i),
                           _mm256_permutevar8x32_epi32 (_mm256_packus_epi16 (lo, hi), order));
    }
  for (; i < n; i++)
    out[i] = luma_one (a + 4 * i, bias);
}

KS_AVX512 static void
luma_avx512 (const guint8 *a, guint8 *out, guint n, guint32 bias)
{
  const __m512i rb = _mm512_set1_epi32 (0x00ff00ff), g = _mm512_set1_epi32 (0xff);
  const __m512i wrb = _mm512_set1_epi32 (299 | (114 << 16)), wg = _mm512_set1_epi32 (587);
  const __m512i b = _mm512_set1_epi32 ((gint) bias), k = _mm512_set1_epi16 ((gshort) 33555);
  const __m512i order = _mm512_setr_epi32 (0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  gsize i = 0;

  for (; i + 64 <= n; i += 64)
    {
      __m512i s[4], lo, hi;

      for (guint j = 0; j < 4; j++)
        {
          __m512i v = _mm512_loadu_si512 ((const void *) (a + 4 * i + 64 * j));
          __m512i t = _mm512_add_epi32 (
            _mm512_madd_epi16 (_mm512_and_si512 (v, rb), wrb),
            _mm512_madd_epi16 (_mm512_and_si512 (_mm512_srli_epi32 (v, 8), g), wg));
          s[j] = _mm512_srli_epi32 (_mm512_add_epi32 (t, b), 3);
        }
      lo = _mm512_srli_epi16 (_mm512_mulhi_epu16 (_mm512_packs_epi32 (s[0], s[1]), k), 6);
      hi = _mm512_srli_epi16 (_mm512_mulhi_epu16 (_mm512_packs_epi32 (s[2], s[3]), k), 6);
      _mm512_storeu_si512 ((void *) (out + i),
                           _mm512_permutexvar_epi32 (order, _mm512_packus_epi16 (lo, hi)));
    }
  if (i < n)
    luma_avx2 (a + 4 * i, out + i, n - (guint) i, bias);
}

/* ---- the separable filters' passes ----------------------------------------
 * 32-bit lanes throughout: a vertical sum reaches 255 · 1024 (18 bits), the
 * horizontal one 255 · 2^20. Symmetric taps: the pair of rows (or columns)
 * t and 2e − t is added before its one multiply. e is a compile-time constant
 * in each instance (1 to 3), so the pairs' loop unrolls. */

static inline guint32
vsum_one (const guint8 *const *rows, const guint32 *w, guint e, gsize i)
{
  guint32 s = w[e] * rows[e][i];

  for (guint t = 0; t < e; t++)
    s += w[t] * ((guint32) rows[t][i] + rows[2 * e - t][i]);
  return s;
}

static inline guint8
hsum_one (const guint32 *v, const guint32 *w, guint e, gsize j, guint32 half, guint shift)
{
  guint32 s = w[e] * v[j + 4 * e];

  for (guint t = 0; t < e; t++)
    s += w[t] * (v[j + 4 * t] + v[j + 4 * (2 * e - t)]);
  return (guint8) ((s + half) >> shift);
}

static inline void
hsum_tail (guint8 *dst, const guint32 *v, const guint32 *w, guint e, gsize j0, gsize m,
           guint32 half, guint shift, const guint8 *centre)
{
  for (gsize j = j0; j < m; j++)
    dst[j] = (j & 3) == 3 ? centre[j] : hsum_one (v, w, e, j, half, shift);
}

KS_AVX2 static inline __m256i
load8_u32_avx2 (const guint8 *p)
{
  return _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p));
}

KS_AVX2 static inline __attribute__ ((always_inline)) void
vsum_avx2_e (guint32 *v, const guint8 *const *rows, const guint32 *w, guint e, gsize m)
{
  __m256i wt[4];
  gsize i = 0;

  for (guint t = 0; t <= e; t++)
    wt[t] = _mm256_set1_epi32 ((gint) w[t]);
  for (; i + 8 <= m; i += 8)
    {
      __m256i s = _mm256_mullo_epi32 (load8_u32_avx2 (rows[e] + i), wt[e]);

      for (guint t = 0; t < e; t++)
        s = _mm256_add_epi32 (s, _mm256_mullo_epi32 (_mm256_add_epi32 (
                                                       load8_u32_avx2 (rows[t] + i),
                                                       load8_u32_avx2 (rows[2 * e - t] + i)),
                                                     wt[t]));
      _mm256_storeu_si256 ((__m256i *) (v + i), s);
    }
  for (; i < m; i++)
    v[i] = vsum_one (rows, w, e, i);
}

KS_AVX2 static inline __attribute__ ((always_inline)) __m256i
hsum8_avx2 (const guint32 *v, const __m256i *wt, guint e, gsize j, __m256i half, __m128i shift)
{
  __m256i s = _mm256_mullo_epi32 (_mm256_loadu_si256 ((const __m256i *) (v + j + 4 * e)), wt[e]);

  for (guint t = 0; t < e; t++)
    s = _mm256_add_epi32 (
      s, _mm256_mullo_epi32 (
           _mm256_add_epi32 (_mm256_loadu_si256 ((const __m256i *) (v + j + 4 * t)),
                             _mm256_loadu_si256 ((const __m256i *) (v + j + 4 * (2 * e - t)))),
           wt[t]));
  return _mm256_srl_epi32 (_mm256_add_epi32 (s, half), shift);
}

KS_AVX2 static inline __attribute__ ((always_inline)) void
hsum_avx2_e (guint8 *dst, const guint32 *v, const guint32 *w, guint e, guint n, guint32 half,
             guint shift, const guint8 *centre)
{
  const __m256i h = _mm256_set1_epi32 ((gint) half);
  const __m128i sh = _mm_cvtsi32_si128 ((gint) shift);
  const __m128i alpha = _mm_set1_epi32 ((gint) 0xff000000u);
  const __m256i low8 = _mm256_set1_epi32 (0xff);
  gsize m = 4 * (gsize) n, j = 0;
  __m256i wt[4];

  for (guint t = 0; t <= e; t++)
    wt[t] = _mm256_set1_epi32 ((gint) w[t]);
  for (; j + 16 <= m; j += 16)
    {
      /* The low byte of each lane, as the portable loop's cast and
       * vpmovdb keep it: masked first, the saturating packs only narrow.
       * packus_epi32 works per 128-bit lane; the 64-bit permute puts the
       * words in order. */
      __m256i p = _mm256_permute4x64_epi64 (
        _mm256_packus_epi32 (_mm256_and_si256 (hsum8_avx2 (v, wt, e, j, h, sh), low8),
                             _mm256_and_si256 (hsum8_avx2 (v, wt, e, j + 8, h, sh), low8)),
        0xd8);
      __m128i r = _mm_packus_epi16 (_mm256_castsi256_si128 (p), _mm256_extracti128_si256 (p, 1));
      __m128i c = _mm_loadu_si128 ((const __m128i *) (centre + j));

      _mm_storeu_si128 ((__m128i *) (dst + j), _mm_blendv_epi8 (r, c, alpha));
    }
  hsum_tail (dst, v, w, e, j, m, half, shift, centre);
}

KS_AVX512 static inline __attribute__ ((always_inline)) __m512i
load16_u32_avx512 (const guint8 *p, __mmask16 k)
{
  return _mm512_cvtepu8_epi32 (_mm_maskz_loadu_epi8 (k, p));
}

KS_AVX512 static inline __attribute__ ((always_inline)) __m512i
vsum16_avx512 (const guint8 *const *r, const __m512i *wt, guint e, gsize i, __mmask16 k)
{
  __m512i s = _mm512_mullo_epi32 (load16_u32_avx512 (r[e] + i, k), wt[e]);

  for (guint t = 0; t < e; t++)
    s = _mm512_add_epi32 (s, _mm512_mullo_epi32 (_mm512_add_epi32 (load16_u32_avx512 (r[t] + i, k),
                                                                   load16_u32_avx512 (
                                                                     r[2 * e - t] + i, k)),
                                                 wt[t]));
  return s;
}

KS_AVX512 static inline __attribute__ ((always_inline)) void
vsum_avx512_e (guint32 *v, const guint8 *const *rows, const guint32 *w, guint e, gsize m)
{
  /* Local copies: stores to v could alias rows[], which would otherwise be
   * reloaded for every vector. */
  const guint8 *r[7];
  __m512i wt[4];
  gsize i = 0;

  for (guint t = 0; t <= 2 * e; t++)
    r[t] = rows[t];
  for (guint t = 0; t <= e; t++)
    wt[t] = _mm512_set1_epi32 ((gint) w[t]);
  for (; i + 16 <= m; i += 16)
    _mm512_storeu_si512 ((void *) (v + i), vsum16_avx512 (r, wt, e, i, (__mmask16) 0xffff));
  /* The last, partial vector by masks: no bytes read or written past m. */
  if (i < m)
    {
      __mmask16 k = (__mmask16) ((1u << (m - i)) - 1);

      _mm512_mask_storeu_epi32 (v + i, k, vsum16_avx512 (r, wt, e, i, k));
    }
}

KS_AVX512 static inline __attribute__ ((always_inline)) void
hsum16_avx512 (guint8 *dst, const guint32 *v, const __m512i *wt, guint e, gsize j, __m512i h,
               __m128i sh, const guint8 *centre, __mmask16 k)
{
  __m512i s = _mm512_mullo_epi32 (_mm512_maskz_loadu_epi32 (k, v + j + 4 * e), wt[e]);
  __m128i r, c;

  for (guint t = 0; t < e; t++)
    s = _mm512_add_epi32 (
      s, _mm512_mullo_epi32 (_mm512_add_epi32 (_mm512_maskz_loadu_epi32 (k, v + j + 4 * t),
                                               _mm512_maskz_loadu_epi32 (
                                                 k, v + j + 4 * (2 * e - t))),
                             wt[t]));
  r = _mm512_cvtepi32_epi8 (_mm512_srl_epi32 (_mm512_add_epi32 (s, h), sh));
  c = _mm_maskz_loadu_epi8 (k, centre + j);
  /* Bytes 3, 7, 11 and 15 are the alpha lanes: the centre's. */
  _mm_mask_storeu_epi8 (dst + j, k, _mm_mask_blend_epi8 (0x8888, r, c));
}

KS_AVX512 static inline __attribute__ ((always_inline)) void
hsum_avx512_e (guint8 *dst, const guint32 *v, const guint32 *w, guint e, guint n, guint32 half,
               guint shift, const guint8 *centre)
{
  const __m512i h = _mm512_set1_epi32 ((gint) half);
  const __m128i sh = _mm_cvtsi32_si128 ((gint) shift);
  gsize m = 4 * (gsize) n, j = 0;
  __m512i wt[4];

  for (guint t = 0; t <= e; t++)
    wt[t] = _mm512_set1_epi32 ((gint) w[t]);
  for (; j + 16 <= m; j += 16)
    hsum16_avx512 (dst, v, wt, e, j, h, sh, centre, (__mmask16) 0xffff);
  if (j < m)
    hsum16_avx512 (dst, v, wt, e, j, h, sh, centre, (__mmask16) ((1u << (m - j)) - 1));
}

#define KS_SIMD_BY_E(FN, e, ...)       \
  switch (e)                           \
    {                                  \
    case 1:                            \
      FN (__VA_ARGS__, 1);             \
      break;                           \
    case 2:                            \
      FN (__VA_ARGS__, 2);             \
      break;                           \
    default:                           \
      FN (__VA_ARGS__, 3);             \
      break;                           \
    }

#define VSUM_AVX2(v, rows, w, m, e) vsum_avx2_e (v, rows, w, e, m)
#define VSUM_AVX512(v, rows, w, m, e) vsum_avx512_e (v, rows, w, e, m)
#define HSUM_AVX2(dst, v, w, n, half, shift, centre, e) \
  hsum_avx2_e (dst, v, w, e, n, half, shift, centre)
#define HSUM_AVX512(dst, v, w, n, half, shift, centre, e) \
  hsum_avx512_e (dst, v, w, e, n, half, shift, centre)

KS_AVX2 static void
vsum_avx2 (guint32 *v, const guint8 *const *rows, const guint32 *w, guint e, gsize m)
{
  KS_SIMD_BY_E (VSUM_AVX2, e, v, rows, w, m)
}

KS_AVX512 static void
vsum_avx512 (guint32 *v, const guint8 *const *rows, const guint32 *w, guint e, gsize m)
{
  KS_SIMD_BY_E (VSUM_AVX512, e, v, rows, w, m)
}

KS_AVX2 static void
hsum_avx2 (guint8 *dst, const guint32 *v, const guint32 *w, guint e, guint n, guint32 half,
           guint shift, const guint8 *centre)
{
  KS_SIMD_BY_E (HSUM_AVX2, e, dst, v, w, n, half, shift, centre)
}

KS_AVX512 static void
hsum_avx512 (guint8 *dst, const guint32 *v, const guint32 *w, guint e, guint n, guint32 half,
             guint shift, const guint8 *centre)
{
  KS_SIMD_BY_E (HSUM_AVX512, e, dst, v, w, n, half, shift, centre)
}

#endif /* KS_SIMD_X86 */

gboolean
_ks_cpu_simd_luma_row (const guint8 *a, guint8 *out, guint n, guint32 bias)
{
#if KS_SIMD_X86
  switch (_ks_cpu_simd_level ())
    {
    case KS_CPU_SIMD_AVX512:
      luma_avx512 (a, out, n, bias);
      return TRUE;
    case KS_CPU_SIMD_AVX2:
      luma_avx2 (a, out, n, bias);
      return TRUE;
    case KS_CPU_SIMD_PORTABLE:
    default:
      break;
    }
#endif
  (void) a, (void) out, (void) n, (void) bias;
  return FALSE;
}

gboolean
_ks_cpu_simd_vsum_u8 (guint32 *v, const guint8 *const *rows, const guint32 *w, guint e, gsize m)
{
  if (e < 1 || e > 3)
    return FALSE;
#if KS_SIMD_X86
  switch (_ks_cpu_simd_level ())
    {
    case KS_CPU_SIMD_AVX512:
      vsum_avx512 (v, rows, w, e, m);
      return TRUE;
    case KS_CPU_SIMD_AVX2:
      vsum_avx2 (v, rows, w, e, m);
      return TRUE;
    case KS_CPU_SIMD_PORTABLE:
    default:
      break;
    }
#endif
  (void) v, (void) rows, (void) w, (void) m;
  return FALSE;
}

gboolean
_ks_cpu_simd_hsum_shift (guint8 *dst, const guint32 *v, const guint32 *w, guint e, guint n,
                         guint32 half, guint shift, const guint8 *centre)
{
  if (e < 1 || e > 3 || shift > 31)
    return FALSE;
#if KS_SIMD_X86
  switch (_ks_cpu_simd_level ())
    {
    case KS_CPU_SIMD_AVX512:
      hsum_avx512 (dst, v, w, e, n, half, shift, centre);
      return TRUE;
    case KS_CPU_SIMD_AVX2:
      hsum_avx2 (dst, v, w, e, n, half, shift, centre);
      return TRUE;
    case KS_CPU_SIMD_PORTABLE:
    default:
      break;
    }
#endif
  (void) dst, (void) v, (void) w, (void) n, (void) half, (void) centre;
  return FALSE;
}
