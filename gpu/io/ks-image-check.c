/* ks-image-check.c: a file's structure walked before a decoder sees it: that
 * it holds the data its header promises (PNG, JPEG, BMP, GIF, TIFF, PNM, ICO,
 * TGA, XPM), so that neither a truncated file opens as an image nor a lying
 * header has the decoder allocate for it, and the GIF sizes gdk-pixbuf
 * asserts on. One piece past 800 lines: the nine walks are one concept and
 * share one buffered reader, read a byte at a time over the whole of a JPEG,
 * which stays static in the file that reads with it. */
#include "config.h"

#include <string.h>
#include <gio/gio.h>

#include "ks-error.h"
#include "ks-image-io-private.h"

static guint32
read_le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

/* ---- what the decoders let through ------------------------------------------- */

/* A buffered reader over the file, for the structure walks below: they read
 * what the headers promise against what the file holds, before a decoder
 * allocates for it. */
typedef struct
{
  GInputStream *in;
  goffset size;  /* of the file */
  goffset base;  /* file offset of buf[0] */
  gsize len;
  gsize pos;
  guint8 buf[65536];
} Reader;

static goffset
reader_tell (const Reader *r)
{
  return r->base + (goffset) r->pos;
}

static gboolean
reader_byte (Reader *r, guint8 *b)
{
  if (r->pos == r->len)
    {
      gssize n;

      r->base += (goffset) r->len;
      r->len = r->pos = 0;
      n = g_input_stream_read (r->in, r->buf, sizeof r->buf, NULL, NULL);
      if (n <= 0)
        return FALSE;
      r->len = (gsize) n;
    }
  *b = r->buf[r->pos++];
  return TRUE;
}

static gboolean
reader_bytes (Reader *r, guint8 *dst, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!reader_byte (r, dst + i))
      return FALSE;
  return TRUE;
}

/* FALSE when the new position lies past the end of the file. */
static gboolean
reader_seek (Reader *r, guint64 offset)
{
  if (offset > (guint64) r->size)
    return FALSE;
  if ((goffset) offset >= r->base && (goffset) offset <= r->base + (goffset) r->len)
    {
      r->pos = (gsize) ((goffset) offset - r->base);
      return TRUE;
    }
  if (!g_seekable_seek (G_SEEKABLE (r->in), (goffset) offset, G_SEEK_SET, NULL, NULL))
    return FALSE;
  r->base = (goffset) offset;
  r->len = r->pos = 0;
  return TRUE;
}

static gboolean
reader_skip (Reader *r, guint64 n)
{
  return reader_seek (r, (guint64) reader_tell (r) + n);
}

static guint32
read_be32 (const guint8 *p)
{
  return (guint32) p[3] | (guint32) p[2] << 8 | (guint32) p[1] << 16 | (guint32) p[0] << 24;
}

static gboolean
truncated (GError **error, const char *display, const char *what)
{
  g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” is truncated: %s", display, what);
  return FALSE;
}

/* The most a compressed byte can expand to: deflate emits at most 258 bytes
 * for two 1-bit codes (1032:1); LZW at most 4096 bytes for a 12-bit code. */
#define DEFLATE_MAX_RATIO 1032
#define LZW_MAX_RATIO 2731

/* A header promising more pixels than its data can hold, even at the best
 * compression there is: refused before the decoder allocates them. */
static gboolean
lying_header (GError **error, const char *display, guint64 w, guint64 h)
{
  g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
               "“%s” is damaged: its header promises %" G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT
               " pixels, but the file holds the data of a much smaller image", display, w, h);
  return FALSE;
}

/* PNG: the chunks up to IEND lie within the file, and the compressed pixel
 * data (IDAT) can hold the rows IHDR promises. libpng reports both, but only
 * after gdk-pixbuf has allocated the whole image. */
static gboolean
check_png (Reader *r, const char *display, GError **error)
{
  guint32 w = 0, h = 0;
  guint depth = 0, ctype = 0, interlace = 0, channels;
  guint64 idat = 0, bits, need;
  guint8 c[13];

  if (!reader_skip (r, 8))
    return TRUE;
  for (;;)
    {
      guint32 len;

      if (!reader_bytes (r, c, 8))
        return truncated (error, display, "the PNG data ends before its end chunk (IEND)");
      len = read_be32 (c);
      if (len > G_MAXINT32 || reader_tell (r) + (goffset) len + 4 > r->size)
        return truncated (error, display, "a PNG chunk ends past the end of the file");
      if (memcmp (c + 4, "IEND", 4) == 0)
        break;
      if (memcmp (c + 4, "IHDR", 4) == 0 && len >= 13)
        {
          if (!reader_bytes (r, c, 13))
            return TRUE;
          w = read_be32 (c);
          h = read_be32 (c + 4);
          depth = c[8];
          ctype = c[9];
          interlace = c[12];
          len -= 13;
        }
      else if (memcmp (c + 4, "IDAT", 4) == 0)
        idat += len;
      if (!reader_skip (r, (guint64) len + 4))
        return TRUE;
    }
  switch (ctype)
    {
    case 0: case 3: channels = 1; break;
    case 2: channels = 3; break;
    case 4: channels = 2; break;
    case 6: channels = 4; break;
    default: return TRUE; /* libpng names it */
    }
  bits = (guint64) channels * depth;
  /* Interlaced rows are shorter, but they hold every pixel's bits. */
  need = interlace ? (guint64) w * h * bits / 8 : (guint64) h * (((guint64) w * bits + 7) / 8);
  if (need > idat * DEFLATE_MAX_RATIO + 65536)
    return lying_header (error, display, w, h);
  return TRUE;
}

/* JPEG: its decoder recovers from a file cut short — gray where the data
 * ended, and no error — so a truncated download would open as an image. The
 * markers are walked to the end-of-image marker (an embedded thumbnail's
 * lies inside its segment, padding may follow); a Huffman-coded block takes
 * at least one bit, so a header promising more blocks than the data has bits
 * lies. */
static gboolean
check_jpeg (Reader *r, const char *display, GError **error)
{
  static const char cut[] = "the JPEG data ends before the image does (no end-of-image marker)";
  guint64 entropy = 0, blocks = 0;
  guint w = 0, h = 0;
  int pending = -1;
  guint8 b, m, seg[2 + 2 + 2 + 1 + 3 * 4];

  if (!reader_skip (r, 2))
    return TRUE;
  for (;;)
    {
      guint len;

      if (pending >= 0)
        {
          m = (guint8) pending;
          pending = -1;
        }
      else
        {
          /* Bytes outside a segment are skipped, as libjpeg does. */
          do
            if (!reader_byte (r, &b))
              return truncated (error, display, cut);
          while (b != 0xff);
          do
            if (!reader_byte (r, &m))
              return truncated (error, display, cut);
          while (m == 0xff);
        }
      if (m == 0xd9)
        break;
      if (m == 0x01 || (m >= 0xd0 && m <= 0xd8))
        continue;
      if (!reader_bytes (r, seg, 2))
        return truncated (error, display, cut);
      len = (guint) seg[0] << 8 | seg[1];
      if (len < 2 || reader_tell (r) + (goffset) len - 2 > r->size)
        return truncated (error, display, cut);
      len -= 2;
      if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc && len >= 9)
        {
          guint n = MIN ((len - 6) / 3, 4u), hmax = 1, vmax = 1;

          if (!reader_bytes (r, seg, 6 + 3 * n))
            return TRUE;
          len -= 6 + 3 * n;
          h = (guint) seg[1] << 8 | seg[2];
          w = (guint) seg[3] << 8 | seg[4];
          for (guint i = 0; i < n; i++)
            {
              hmax = MAX (hmax, (guint) seg[7 + 3 * i] >> 4);
              vmax = MAX (vmax, (guint) seg[7 + 3 * i] & 15);
            }
          /* Arithmetic coding (and lossless) can spend less than a bit a block. */
          if (m <= 0xc2 && n > 0 && (seg[7] >> 4) != 0 && (seg[7] & 15) != 0)
            {
              guint64 cw = ((guint64) w * (seg[7] >> 4) + hmax - 1) / hmax;
              guint64 ch = ((guint64) h * (seg[7] & 15) + vmax - 1) / vmax;

              blocks = ((cw + 7) / 8) * ((ch + 7) / 8);
            }
        }
      if (!reader_skip (r, len))
        return truncated (error, display, cut);
      if (m != 0xda)
        continue;
      /* Entropy-coded data up to the next marker that is not a restart. */
      while (pending < 0)
        {
          if (!reader_byte (r, &b))
            return truncated (error, display, cut);
          if (b != 0xff)
            {
              entropy++;
              continue;
            }
          do
            if (!reader_byte (r, &m))
              return truncated (error, display, cut);
          while (m == 0xff);
          if (m == 0x00)
            entropy++;
          else if (m < 0xd0 || m > 0xd7)
            pending = m;
        }
    }
  if (blocks > entropy * 8)
    return lying_header (error, display, w, h);
  return TRUE;
}

/* BMP: uncompressed rows have a size the header gives; RLE data must reach
 * its end-of-bitmap code. The decoder fills what is missing with black. */
static gboolean
check_bmp (Reader *r, const char *display, GError **error)
{
  guint8 buf[54];
  guint32 offset, compression;
  gint32 width, height;
  guint bits;

  if (!reader_bytes (r, buf, 54) || buf[0] != 'B' || buf[1] != 'M' || read_le32 (buf + 14) < 40)
    return TRUE;
  offset = read_le32 (buf + 10);
  width = (gint32) read_le32 (buf + 18);
  height = (gint32) read_le32 (buf + 22);
  bits = buf[28] | buf[29] << 8;
  compression = read_le32 (buf + 30);
  if (width <= 0 || height == 0 || bits == 0)
    return TRUE;
  if (compression == 0 || compression == 3)
    {
      guint64 row = ((guint64) width * bits + 31) / 32 * 4;
      guint64 need = (guint64) offset + row * (guint64) ABS ((gint64) height);

      if ((guint64) r->size < need)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                       "“%s” is truncated: the BMP header promises %" G_GUINT64_FORMAT
                       " bytes, the file has %" G_GINT64_FORMAT, display, need,
                       (gint64) r->size);
          return FALSE;
        }
      return TRUE;
    }
  if ((compression != 1 && compression != 2) || !reader_seek (r, offset))
    return TRUE;
  for (;;)
    {
      guint8 pair[2];

      if (!reader_bytes (r, pair, 2))
        return truncated (error, display,
                          "the BMP's compressed pixels end before their end-of-bitmap code");
      if (pair[0] != 0 || pair[1] == 0)
        continue;
      if (pair[1] == 1)
        return TRUE;
      if (!reader_skip (r, pair[1] == 2 ? 2
                                        : ((compression == 1 ? pair[1] : (pair[1] + 1u) / 2)
                                           + 1) & ~1u))
        return truncated (error, display,
                          "the BMP's compressed pixels end before their end-of-bitmap code");
    }
}

/* GIF: every block lies within the file — the decoder shows a file cut short
 * as a complete image — and no frame is larger than its LZW data can expand
 * to. A file may end without its trailer (0x3B) after a complete frame: old
 * encoders wrote such files (Python's idlelib icons), and they are whole. */
static gboolean
check_gif (Reader *r, const char *display, GError **error)
{
  static const char cut[] = "the GIF data ends before its trailer";
  guint8 b, d[13];
  guint frames = 0;

  if (!reader_bytes (r, d, 13))
    return TRUE;
  if ((d[10] & 0x80) && !reader_skip (r, (guint64) 3 << ((d[10] & 7) + 1)))
    return truncated (error, display, cut);
  for (;;)
    {
      gboolean frame;
      guint64 data = 0;
      guint fw = 0, fh = 0;

      if (!reader_byte (r, &b))
        return frames > 0 ? TRUE : truncated (error, display, cut);
      if (b == 0x3b)
        return TRUE;
      if (b != 0x2c && b != 0x21)
        continue; /* the decoder skips bytes that start no block: so does this */
      frame = b == 0x2c;
      if (frame)
        {
          /* The image descriptor, its local palette, the LZW code size. */
          if (!reader_bytes (r, d, 9)
              || ((d[8] & 0x80) && !reader_skip (r, (guint64) 3 << ((d[8] & 7) + 1))))
            return truncated (error, display, cut);
          fw = d[4] | d[5] << 8;
          fh = d[6] | d[7] << 8;
        }
      /* The extension's label, or the code size. */
      if (!reader_byte (r, &b))
        return truncated (error, display, cut);
      /* The data sub-blocks, up to the empty one. */
      for (;;)
        {
          if (!reader_byte (r, &b))
            return truncated (error, display, cut);
          if (b == 0)
            break;
          if (!reader_skip (r, b))
            return truncated (error, display, cut);
          data += b;
        }
      if (frame && (guint64) fw * fh > data * LZW_MAX_RATIO + 4096)
        return lying_header (error, display, fw, fh);
      frames += frame;
    }
}

/* TIFF: the strips (or tiles) of the first page lie within the file and hold
 * the pixels the header promises: libtiff reports both only after gdk-pixbuf
 * has allocated the whole image, or not at all for a strip that claims more
 * bytes than the file has. */
typedef struct
{
  gboolean big_endian;
  guint64 width, height, bits, samples, compression;
  guint32 bits_at;                     /* where BitsPerSample's values are, or 0 */
  guint32 type[2], count[2], value[2]; /* offsets, byte counts */
} TiffPage;

static guint32
tiff_u32 (const TiffPage *t, const guint8 *p)
{
  return t->big_endian ? read_be32 (p) : read_le32 (p);
}

static guint
tiff_u16 (const TiffPage *t, const guint8 *p)
{
  return t->big_endian ? (guint) p[0] << 8 | p[1] : (guint) p[1] << 8 | p[0];
}

/* The i-th array's values (SHORT or LONG), or NULL when they do not lie in the file. */
static guint64 *
tiff_array (Reader *r, const TiffPage *t, guint i, guint8 *inline_value)
{
  guint size = t->type[i] == 3 ? 2 : 4;
  g_autofree guint64 *values = NULL;
  guint8 v[4];

  if (t->count[i] == 0 || t->count[i] > (1u << 20) || (t->type[i] != 3 && t->type[i] != 4))
    return NULL;
  values = g_new (guint64, t->count[i]);
  if ((guint64) t->count[i] * size > 4 && !reader_seek (r, t->value[i]))
    return NULL;
  for (guint32 k = 0; k < t->count[i]; k++)
    {
      const guint8 *p = v;

      if ((guint64) t->count[i] * size <= 4)
        p = inline_value + k * size;
      else if (!reader_bytes (r, v, size))
        return NULL;
      values[k] = size == 2 ? tiff_u16 (t, p) : tiff_u32 (t, p);
    }
  return g_steal_pointer (&values);
}

static gboolean
check_tiff (Reader *r, const char *display, GError **error)
{
  TiffPage t = { 0 };
  g_autofree guint64 *offsets = NULL;
  g_autofree guint64 *counts = NULL;
  guint8 e[12], inline_values[2][4];
  guint64 sum = 0, need, ratio;
  guint n;

  if (!reader_bytes (r, e, 8) || (e[0] != e[1]) || (e[0] != 'I' && e[0] != 'M'))
    return TRUE;
  t.big_endian = e[0] == 'M';
  if (tiff_u16 (&t, e + 2) != 42)
    return TRUE; /* BigTIFF: libtiff checks it */
  if (!reader_seek (r, tiff_u32 (&t, e + 4)) || !reader_bytes (r, e, 2))
    return truncated (error, display, "its TIFF directory lies past the end of the file");
  n = tiff_u16 (&t, e);
  t.bits = t.samples = t.compression = 1;
  for (guint i = 0; i < n; i++)
    {
      guint tag, type;
      guint32 count;

      if (!reader_bytes (r, e, 12))
        return truncated (error, display, "its TIFF directory ends past the end of the file");
      tag = tiff_u16 (&t, e);
      type = tiff_u16 (&t, e + 2);
      count = tiff_u32 (&t, e + 4);
      if (tag == 273 || tag == 324 || tag == 279 || tag == 325)
        {
          guint k = tag == 273 || tag == 324 ? 0 : 1;

          t.type[k] = type;
          t.count[k] = count;
          t.value[k] = tiff_u32 (&t, e + 8);
          memcpy (inline_values[k], e + 8, 4);
        }
      else if (type == 3 || type == 4)
        {
          guint64 v = type == 3 ? tiff_u16 (&t, e + 8) : tiff_u32 (&t, e + 8);

          if (tag == 256)
            t.width = v;
          else if (tag == 257)
            t.height = v;
          else if (tag == 258 && type == 3 && count <= 2)
            t.bits = v;
          else if (tag == 258 && type == 3)
            t.bits_at = tiff_u32 (&t, e + 8);
          else if (tag == 259)
            t.compression = v;
          else if (tag == 277)
            t.samples = v;
        }
    }
  if (t.bits_at != 0 && reader_seek (r, t.bits_at) && reader_bytes (r, e, 2))
    t.bits = tiff_u16 (&t, e);
  offsets = tiff_array (r, &t, 0, inline_values[0]);
  counts = tiff_array (r, &t, 1, inline_values[1]);
  if (offsets == NULL || counts == NULL || t.count[0] != t.count[1])
    return TRUE; /* libtiff reports what is missing */
  for (guint32 k = 0; k < t.count[0]; k++)
    {
      if (offsets[k] + counts[k] > (guint64) r->size)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                       "“%s” is truncated: its TIFF strip %u of %u ends at byte %"
                       G_GUINT64_FORMAT ", the file has %" G_GINT64_FORMAT, display, k + 1,
                       t.count[0], offsets[k] + counts[k], (gint64) r->size);
          return FALSE;
        }
      sum += counts[k];
    }
  switch (t.compression)
    {
    case 1: ratio = 1; break;
    case 5: ratio = LZW_MAX_RATIO; break;
    case 8: case 32946: ratio = DEFLATE_MAX_RATIO; break;
    case 32773: ratio = 64; break;  /* PackBits: 128 bytes from 2 */
    default: return TRUE;
    }
  need = t.width * t.height * t.samples * t.bits / 8;
  if (ratio == 1 && sum < need)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is truncated: the TIFF header promises %" G_GUINT64_FORMAT
                   " bytes of pixels, the file holds %" G_GUINT64_FORMAT, display, need, sum);
      return FALSE;
    }
  if (need > sum * ratio + 65536)
    return lying_header (error, display, t.width, t.height);
  return TRUE;
}

/* PNM: binary data of the length the header gives (the decoder allocates the
 * image first), ASCII samples that are all there and within the maximum (the
 * decoder clamps them). */
static gboolean
pnm_number (Reader *r, guint64 *value, gboolean one_digit)
{
  guint8 b;
  gboolean any = FALSE;

  do
    {
      if (!reader_byte (r, &b))
        return FALSE;
      if (b == '#')
        do
          if (!reader_byte (r, &b))
            return FALSE;
        while (b != '\n' && b != '\r');
    }
  while (g_ascii_isspace (b) || b == '\n' || b == '\r');
  *value = 0;
  while (g_ascii_isdigit (b))
    {
      any = TRUE;
      *value = MIN (*value * 10 + (b - '0'), G_MAXUINT32 + (guint64) 1);
      if (one_digit || !reader_byte (r, &b))
        break;
    }
  return any;
}

static gboolean
check_pnm (Reader *r, const char *display, GError **error)
{
  guint64 w, h, maxval = 1, n, bytes, v;
  guint8 head[2];
  guint kind;

  if (!reader_bytes (r, head, 2) || head[0] != 'P' || head[1] < '1' || head[1] > '6')
    return TRUE;
  kind = head[1] - '0';
  if (!pnm_number (r, &w, FALSE) || !pnm_number (r, &h, FALSE)
      || (kind != 1 && kind != 4 && !pnm_number (r, &maxval, FALSE))
      || w == 0 || h == 0 || maxval == 0 || maxval > 65535)
    return TRUE; /* the decoder names what is wrong */
  n = w * h * (kind == 3 || kind == 6 ? 3 : 1);
  if (kind >= 4)
    {
      /* One whitespace byte ends the header; the number reader consumed it. */
      bytes = kind == 4 ? (w + 7) / 8 * h : n * (maxval > 255 ? 2 : 1);
      if ((guint64) reader_tell (r) + bytes > (guint64) r->size)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                       "“%s” is truncated: the PNM header promises %" G_GUINT64_FORMAT
                       " bytes of pixels, the file holds %" G_GINT64_FORMAT, display, bytes,
                       (gint64) (r->size - reader_tell (r)));
          return FALSE;
        }
      return TRUE;
    }
  for (guint64 i = 0; i < n; i++)
    {
      if (!pnm_number (r, &v, kind == 1))
        {
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                       "“%s” is truncated: its PNM data ends after %" G_GUINT64_FORMAT " of %"
                       G_GUINT64_FORMAT " samples", display, i, n);
          return FALSE;
        }
      if (v > maxval)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                       "“%s” is damaged: its PNM sample %" G_GUINT64_FORMAT " is %"
                       G_GUINT64_FORMAT ", above the maximum %" G_GUINT64_FORMAT
                       " its header gives", display, i + 1, v, maxval);
          return FALSE;
        }
    }
  return TRUE;
}

/* ICO: every image the directory lists lies within the file (the decoder
 * shows the part of a cut one it has). */
static gboolean
check_ico (Reader *r, const char *display, GError **error)
{
  guint8 d[16];
  guint n;

  if (!reader_bytes (r, d, 6))
    return TRUE;
  n = d[4] | d[5] << 8;
  for (guint i = 0; i < n; i++)
    {
      if (!reader_bytes (r, d, 16))
        return truncated (error, display, "its icon directory ends past the end of the file");
      if ((guint64) read_le32 (d + 8) + read_le32 (d + 12) > (guint64) r->size)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                       "“%s” is truncated: its icon %u of %u ends past the end of the file",
                       display, i + 1, n);
          return FALSE;
        }
    }
  return TRUE;
}

/* TGA: uncompressed pixels of the size the header gives, RLE packets for
 * every pixel (the decoder allocates the image before it reads them). */
static gboolean
check_tga (Reader *r, const char *display, GError **error)
{
  static const char cut[] = "the TGA pixel data ends before the image does";
  guint8 d[18];
  guint64 w, h, px, skip;

  if (!reader_bytes (r, d, 18))
    return TRUE;
  w = d[12] | d[13] << 8;
  h = d[14] | d[15] << 8;
  px = (d[16] + 7u) / 8;
  skip = d[0] + (d[1] != 0 ? (guint64) (d[5] | d[6] << 8) * ((d[7] + 7u) / 8) : 0);
  if (!reader_skip (r, skip))
    return truncated (error, display, cut);
  if (d[2] >= 1 && d[2] <= 3)
    {
      if ((guint64) reader_tell (r) + w * h * px > (guint64) r->size)
        return truncated (error, display, cut);
      return TRUE;
    }
  if (d[2] < 9 || d[2] > 11)
    return TRUE;
  for (guint64 done = 0; done < w * h;)
    {
      guint8 b;
      guint run;

      if (!reader_byte (r, &b))
        return truncated (error, display, cut);
      run = (b & 0x7f) + 1u;
      if (!reader_skip (r, (b & 0x80) ? px : px * run))
        return truncated (error, display, cut);
      done += run;
    }
  return TRUE;
}

/* XPM: every pixel names a colour the file defines, and every row is there
 * (the decoder draws the others in black or leaves them transparent). Text
 * files of up to 64 MiB are checked, which covers any XPM seen in use. */
static gboolean
check_xpm (Reader *r, const char *display, GError **error)
{
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) keys = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  gboolean in_string = FALSE, in_comment = FALSE;
  guint w, h, ncolors, cpp;
  guint8 b, prev = 0;

  if (r->size > 64 << 20)
    return TRUE;
  /* The C strings, outside comments. */
  while (reader_byte (r, &b))
    {
      if (in_comment && prev == '*' && b == '/')
        {
          in_comment = FALSE;
          b = 0; /* "*" + "/" ends it: neither starts anything */
        }
      else if (in_comment)
        ;
      else if (!in_string && prev == '/' && b == '*')
        {
          in_comment = TRUE;
          b = 0;
        }
      else if (b == '"')
        {
          if (in_string)
            g_ptr_array_add (strings, g_strdup (text->str));
          else
            g_string_truncate (text, 0);
          in_string = !in_string;
        }
      else if (in_string)
        g_string_append_c (text, (char) b);
      prev = b;
    }
  if (strings->len == 0
      || sscanf (strings->pdata[0], "%u %u %u %u", &w, &h, &ncolors, &cpp) != 4
      || cpp == 0 || cpp > 31 || ncolors == 0)
    return TRUE; /* the decoder names what is wrong */
  if (strings->len < 1 + (guint64) ncolors + h)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is truncated: its XPM data holds %u of the %u colours and rows its "
                   "header promises", display, strings->len - 1, ncolors + h);
      return FALSE;
    }
  keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 1; i <= ncolors; i++)
    g_hash_table_add (keys, g_strndup (strings->pdata[i], cpp));
  for (guint y = 0; y < h; y++)
    {
      const char *row = strings->pdata[1 + ncolors + y];
      gsize len = strlen (row);

      for (guint x = 0; x < w; x++)
        {
          g_autofree char *key = (gsize) (x + 1) * cpp <= len
                                 ? g_strndup (row + (gsize) x * cpp, cpp) : NULL;

          if (key == NULL || !g_hash_table_contains (keys, key))
            {
              g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                           "“%s” is damaged: pixel (%u, %u) of its XPM data %s", display, x, y,
                           key == NULL ? "is missing" : "names a colour the file does not "
                           "define");
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* Whether the file holds all the data its header promises, checked before
 * the decoder allocates the image: decoders recover from much of what is
 * missing (gray, black or transparent where the data ended, and no error), so
 * a truncated download would open as an image, and a header that lies about
 * the size would have the decoder allocate for it first. */
gboolean
_ks_image_check_complete (const char *path, const char *display, const char *format, goffset size,
                          GError **error)
{
  static const struct
  {
    const char *format;
    gboolean (*check) (Reader *r, const char *display, GError **error);
  } checks[] = {
    { "png", check_png }, { "jpeg", check_jpeg }, { "bmp", check_bmp }, { "gif", check_gif },
    { "tiff", check_tiff }, { "pnm", check_pnm }, { "ico", check_ico }, { "tga", check_tga },
    { "xpm", check_xpm },
  };
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  g_autofree Reader *r = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    if (g_strcmp0 (format, checks[i].format) == 0)
      {
        file = g_file_new_for_path (path);
        in = g_file_read (file, NULL, NULL);
        if (in == NULL)
          return TRUE; /* the decoder reports what is wrong */
        r = g_new0 (Reader, 1);
        r->in = G_INPUT_STREAM (in);
        r->size = size;
        return checks[i].check (r, display, error);
      }
  return TRUE;
}

/* GIF files whose screen or a frame is 0 pixels wide or high, or with a
 * frame that reaches past the screen: gdk-pixbuf 2.42 fails its own
 * assertions on them (in gdk_pixbuf_get_file_info and the GIF loader), which
 * print criticals or, with G_DEBUG=fatal-criticals, abort. The blocks are
 * walked here first. */
gboolean
_ks_image_check_gif_sizes (const char *path, const char *display, GError **error)
{
  g_autoptr (GMappedFile) map = g_mapped_file_new (path, FALSE, NULL);
  const guint8 *p;
  gsize len, i;
  guint sw, sh;

  if (map == NULL || (len = g_mapped_file_get_length (map)) < 13)
    return TRUE;
  p = (const guint8 *) g_mapped_file_get_contents (map);
  if (memcmp (p, "GIF8", 4) != 0)
    return TRUE;
  sw = p[6] | p[7] << 8;
  sh = p[8] | p[9] << 8;
  if (sw == 0 || sh == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is damaged: its GIF screen is %u×%u pixels", display, sw, sh);
      return FALSE;
    }
  i = 13 + ((p[10] & 0x80) ? (gsize) 3 << ((p[10] & 7) + 1) : 0);
  while (i < len && p[i] != 0x3b)
    {
      if (p[i] == 0x2c)
        {
          guint x, y, w, h;

          if (len - i < 10)
            break;
          x = p[i + 1] | p[i + 2] << 8;
          y = p[i + 3] | p[i + 4] << 8;
          w = p[i + 5] | p[i + 6] << 8;
          h = p[i + 7] | p[i + 8] << 8;
          if (w == 0 || h == 0 || x + w > sw || y + h > sh)
            {
              g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                           "“%s” is damaged: a GIF frame of %u×%u pixels at (%u, %u) does not "
                           "fit its %u×%u screen", display, w, h, x, y, sw, sh);
              return FALSE;
            }
          i += 10 + ((p[i + 9] & 0x80) ? (gsize) 3 << ((p[i + 9] & 7) + 1) : 0) + 1;
        }
      else if (p[i] == 0x21)
        i += 2;
      else
        {
          /* The GIF loader skips bytes that start no block: so does this. */
          i++;
          continue;
        }
      /* the data sub-blocks, up to the empty one */
      while (i < len && p[i] != 0)
        i += (gsize) p[i] + 1;
      i++;
    }
  return TRUE;
}
