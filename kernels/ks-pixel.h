/* ks-pixel.h: the per-pixel math of the element-wise ops and the histogram's luma.
 *
 * Pixels travel as packed RGBA8 in a uint32_t, R in the low byte (the byte order
 * of the image in memory on a little-endian machine). All arithmetic is integer,
 * so the CPU engine and the CUDA kernels agree exactly.
 */
#pragma once

#include "ks-kernel-common.h"

KS_KERNEL_BEGIN_DECLS

#define KS_R(p) ((p) & 0xffu)
#define KS_G(p) (((p) >> 8) & 0xffu)
#define KS_B(p) (((p) >> 16) & 0xffu)
#define KS_A(p) ((p) >> 24)
#define KS_RGBA(r, g, b, a) \
  ((uint32_t) (r) | ((uint32_t) (g) << 8) | ((uint32_t) (b) << 16) | ((uint32_t) (a) << 24))

/* BT.601 luma with integer weights 299, 587, 114 (sum 1000).
 * Rounded to nearest: (sum + 500) / 1000. Truncated, as the tutorial's float→uint8
 * cast does: sum / 1000. Either way gray of (v, v, v) is v. */
KS_HD uint32_t
ks_luma601_rgb (uint32_t r, uint32_t g, uint32_t b, int32_t truncate)
{
  uint32_t s = 299u * r + 587u * g + 114u * b;
  return truncate ? s / 1000u : (s + 500u) / 1000u;
}

KS_HD uint32_t
ks_luma601 (uint32_t p, int32_t truncate)
{
  return ks_luma601_rgb (KS_R (p), KS_G (p), KS_B (p), truncate);
}

/* Element-wise ops: out = f(a, b, params). The alpha channel of a is kept. */

KS_HD uint32_t
ks_px_invert (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  (void) b;
  (void) p;
  return a ^ 0x00ffffffu;
}

/* params: i[0] = truncate. Output: the gray value in the low byte. */
KS_HD uint32_t
ks_px_gray (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  (void) b;
  return ks_luma601 (a, p->i[0]);
}

/* Saturating per-channel add of R, G and B; alpha from a. */
KS_HD uint32_t
ks_px_add (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  uint32_t r = KS_R (a) + KS_R (b), g = KS_G (a) + KS_G (b), bl = KS_B (a) + KS_B (b);
  (void) p;
  return KS_RGBA (r > 255u ? 255u : r, g > 255u ? 255u : g, bl > 255u ? 255u : bl, KS_A (a));
}

/* a·wa + b·wb per channel, rounded and saturated; alpha from a.
 * params: i[0] = wa, i[1] = wb in 16.16 fixed point, each in [0, 2] (131072):
 * 255 · 131072 · 2 + 32768 < 2^31, so 32-bit arithmetic is exact and cheap. */
KS_HD uint32_t
ks_blend_channel (uint32_t ca, uint32_t cb, const KsPixelParams *p)
{
  int32_t v = ((int32_t) ca * p->i[0] + (int32_t) cb * p->i[1] + 32768) >> 16;
  return v > 255 ? 255u : (uint32_t) v;
}

KS_HD uint32_t
ks_px_blend (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  return KS_RGBA (ks_blend_channel (KS_R (a), KS_R (b), p),
                  ks_blend_channel (KS_G (a), KS_G (b), p),
                  ks_blend_channel (KS_B (a), KS_B (b), p), KS_A (a));
}

/* R, G and B through their lookup tables (brightness/contrast, gamma,
 * threshold, per-channel equalisation); alpha kept. */
KS_HD uint32_t
ks_px_lut (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  (void) b;
  return KS_RGBA (p->lut[0][KS_R (a)], p->lut[1][KS_G (a)], p->lut[2][KS_B (a)], KS_A (a));
}

/* Luma through lut[3], the change added to each channel (equalisation of the
 * luma that keeps the colours): c' = clamp(c + lut[Y] − Y). Alpha kept. */
KS_HD uint32_t
ks_px_luma_lut (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  int32_t y = (int32_t) ks_luma601 (a, 0);
  int32_t d = (int32_t) p->lut[3][y] - y;
  (void) b;
  return KS_RGBA (ks_clamp_u8 ((int32_t) KS_R (a) + d), ks_clamp_u8 ((int32_t) KS_G (a) + d),
                  ks_clamp_u8 ((int32_t) KS_B (a) + d), KS_A (a));
}

/* Channel permutation: output channel k is input channel i[k] (0 R … 3 A). */
KS_HD uint32_t
ks_px_swap (uint32_t a, uint32_t b, const KsPixelParams *p)
{
  (void) b;
  return KS_RGBA ((a >> (8 * p->i[0])) & 0xffu, (a >> (8 * p->i[1])) & 0xffu,
                  (a >> (8 * p->i[2])) & 0xffu, (a >> (8 * p->i[3])) & 0xffu);
}

KS_KERNEL_END_DECLS
