#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <glib/gstdio.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <gio/gio.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-image.h"
#include "ks-image-private.h"
#include "ks-program.h"

/* What ks_image_load accepts on either side (_ks_image_set_max_side). */
static guint max_side = KS_IMAGE_MAX_SIDE;

void
_ks_image_set_max_side (guint side)
{
  max_side = side != 0 ? MIN (side, KS_IMAGE_MAX_SIDE) : KS_IMAGE_MAX_SIDE;
}

typedef struct
{
  int width;
  int height;
  gboolean too_large;
} SizeCheck;

/* Decoding a 100000×100000 header would allocate 40 GB before failing: refuse
 * in size-prepared, before the loader allocates the pixbuf. */
static void
on_size_prepared_cb (GdkPixbufLoader *loader, int width, int height, gpointer user_data)
{
  SizeCheck *check = user_data;

  check->width = width;
  check->height = height;
  if (width <= 0 || height <= 0 || (guint) width > KS_IMAGE_MAX_SIDE
      || (guint) height > KS_IMAGE_MAX_SIDE)
    {
      check->too_large = TRUE;
      /* A 1×1 target keeps the loader from allocating the full size. */
      gdk_pixbuf_loader_set_size (loader, 1, 1);
    }
}

static KsImage *
image_from_pixbuf (GdkPixbuf *pixbuf, GError **error)
{
  int w = gdk_pixbuf_get_width (pixbuf), h = gdk_pixbuf_get_height (pixbuf);
  int n_channels = gdk_pixbuf_get_n_channels (pixbuf);
  int rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  gboolean alpha = gdk_pixbuf_get_has_alpha (pixbuf);
  const guint8 *pixels = gdk_pixbuf_read_pixels (pixbuf);
  KsImage *image;

  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 || n_channels < 3)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "Unsupported pixel layout (%d bits per sample, %d channels)",
                   gdk_pixbuf_get_bits_per_sample (pixbuf), n_channels);
      return NULL;
    }
  image = ks_image_new (KS_FORMAT_RGBA8, w, h, error);
  if (image == NULL)
    return NULL;
  for (int y = 0; y < h; y++)
    {
      const guint8 *src = pixels + (gsize) y * rowstride;
      guint8 *dst = ks_image_row (image, y);
      if (alpha && n_channels == 4)
        memcpy (dst, src, (gsize) w * 4);
      else
        for (int x = 0; x < w; x++)
          {
            dst[4 * x + 0] = src[n_channels * x + 0];
            dst[4 * x + 1] = src[n_channels * x + 1];
            dst[4 * x + 2] = src[n_channels * x + 2];
            dst[4 * x + 3] = 255;
          }
    }
  return image;
}

static KsImage *
load_data (const guint8 *data, gsize len, const char *what, GError **error)
{
  g_autoptr (GdkPixbufLoader) loader = NULL;
  g_autoptr (GError) local_error = NULL;
  SizeCheck check = { 0, 0, FALSE };
  gboolean ok;
  GdkPixbuf *pixbuf;

  if (len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s is empty", what);
      return NULL;
    }
  loader = gdk_pixbuf_loader_new ();
  g_signal_connect (loader, "size-prepared", G_CALLBACK (on_size_prepared_cb), &check);
  ok = gdk_pixbuf_loader_write (loader, data, len, &local_error);
  /* close() must run even after a failed write, or the loader warns on finalize. */
  if (!gdk_pixbuf_loader_close (loader, ok ? &local_error : NULL))
    ok = FALSE;
  if (check.too_large)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "%s is %d×%d pixels; Kernelscope opens images up to %u×%u",
                   what, check.width, check.height, KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return NULL;
    }
  if (!ok)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s could not be read: %s", what,
                   local_error != NULL ? local_error->message : "the data is incomplete");
      return NULL;
    }
  pixbuf = gdk_pixbuf_loader_get_pixbuf (loader);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s is not an image Kernelscope can read",
                   what);
      return NULL;
    }
  return image_from_pixbuf (pixbuf, error);
}

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

/* gdk_pixbuf_new_from_file's messages start “Failed to load image “PATH”: ”:
 * the whole path again (for ks_image_load_bytes, a temporary file's). The
 * reason follows it. */
static const char *
pixbuf_reason (const char *message, const char *path)
{
  /* As gdk-pixbuf shows it: control characters as they are. */
  g_autofree char *shown = g_filename_display_name (path);
  const char *at = strstr (message, shown);
  const char *colon = at != NULL ? strstr (at + strlen (shown), ": ") : NULL;

  return colon != NULL && colon[2] != '\0' ? colon + 2 : message;
}

/* Whether the file holds all the data its header promises, checked before
 * the decoder allocates the image: decoders recover from much of what is
 * missing (gray, black or transparent where the data ended, and no error), so
 * a truncated download would open as an image, and a header that lies about
 * the size would have the decoder allocate for it first. */
static gboolean
check_complete (const char *path, const char *display, const char *format, goffset size,
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

/* ---- vector images ---------------------------------------------------------- */

/* A vector image's cost is not its size: a 1 KB SVG with a wide blur renders
 * for minutes in gigabytes. They are rendered by the worker program under a
 * budget — RENDER_SECONDS of time, and address space for a few surfaces of the
 * image's size (a filter needs several) — that the kernel enforces, so that
 * nothing of it can hang or exhaust this process. */
#define RENDER_SECONDS 10
#define RENDER_BASE_BYTES ((guint64) 1 << 30)
#define RENDER_SURFACES 6

#if defined(__SANITIZE_ADDRESS__)
#define KS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KS_ASAN 1
#endif
#endif

typedef struct
{
  guint64 bytes;
} RenderBudget;

/* In the child between fork and exec: async-signal-safe calls only. */
static void
render_child_setup (gpointer data)
{
  const RenderBudget *budget = data;
  struct rlimit cpu = { RENDER_SECONDS, RENDER_SECONDS + 1 };

  setrlimit (RLIMIT_CPU, &cpu);
#ifndef KS_ASAN
  {
    /* AddressSanitizer reserves terabytes of address space: no limit there. */
    struct rlimit as = { budget->bytes, budget->bytes };

    setrlimit (RLIMIT_AS, &as);
  }
#else
  (void) budget;
#endif
  /* Wall-clock time too (a timer survives exec): a renderer that sleeps or
   * waits is ended like one that computes. */
  alarm (RENDER_SECONDS);
}

static char *
render_stderr (int fd)
{
  char buf[1024];
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  char *line, *nl;

  buf[MAX (n, 0)] = '\0';
  line = g_utf8_make_valid (buf, -1);
  nl = strchr (line, '\n');
  if (nl != NULL)
    *nl = '\0';
  return line;
}

static KsImage *
render_vector (const char *path, const char *display, int width, int height, GError **error)
{
  g_autofree char *program = NULL;
  g_autofree char *side = g_strdup_printf ("%u", max_side);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (KsImage) image = NULL;
  RenderBudget budget;
  GInputStream *out;
  guint32 header[2] = { 0, 0 };
  gsize got = 0;
  gboolean read_ok;
  int err_fd;

  program = ks_worker_program_find (&local);
  if (program == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is a vector image, which Kernelscope renders in a separate process: %s",
                   display, local->message);
      return NULL;
    }
  budget.bytes = RENDER_BASE_BYTES + (guint64) RENDER_SURFACES * 4 * width * height;
  {
    /* A limit this process already has binds the renderer too: say that one. */
    struct rlimit current;

    if (getrlimit (RLIMIT_AS, &current) == 0 && current.rlim_cur != RLIM_INFINITY
        && (guint64) current.rlim_cur < budget.bytes)
      budget.bytes = (guint64) current.rlim_cur;
  }
  /* memfd_create without _GNU_SOURCE (the build does not define it). */
  err_fd = (int) syscall (SYS_memfd_create, "kernelscope-render-stderr", 1u /* MFD_CLOEXEC */);
  if (err_fd < 0)
    {
      int saved = errno;

      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot render “%s”: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  g_subprocess_launcher_take_stderr_fd (launcher, dup (err_fd));
  /* A loader's warning is not the renderer's failure, even in a test run. */
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  g_subprocess_launcher_set_child_setup (launcher, render_child_setup, &budget, NULL);
  process = g_subprocess_launcher_spawn (launcher, &local, program, "--render", path,
                                         "--max-side", side, NULL);
  if (process == NULL)
    {
      close (err_fd);
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot render “%s”: %s", display,
                   local->message);
      return NULL;
    }

  out = g_subprocess_get_stdout_pipe (process);
  read_ok = g_input_stream_read_all (out, header, sizeof header, &got, NULL, NULL)
            && got == sizeof header && header[0] >= 1 && header[1] >= 1
            && header[0] <= max_side && header[1] <= max_side;
  if (read_ok)
    image = ks_image_new (KS_FORMAT_RGBA8, header[0], header[1], NULL);
  for (guint y = 0; read_ok && image != NULL && y < image->height; y++)
    read_ok = g_input_stream_read_all (out, ks_image_row (image, y), (gsize) image->width * 4,
                                       &got, NULL, NULL)
              && got == (gsize) image->width * 4;
  /* A child that stops reading ends here; one that is still writing is killed. */
  if (!read_ok || image == NULL)
    g_subprocess_force_exit (process);
  g_input_stream_close (out, NULL, NULL);
  g_subprocess_wait (process, NULL, NULL);

  if (g_subprocess_get_if_signaled (process))
    {
      int sig = g_subprocess_get_term_sig (process);

      close (err_fd);
      if (sig == SIGXCPU || sig == SIGALRM)
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "“%s” takes more than %d s to render; Kernelscope stops vector images "
                     "there", display, RENDER_SECONDS);
      else if (sig == SIGKILL && image == NULL)
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "Not enough memory to render “%s”", display);
      else if (sig == SIGKILL)
        return g_steal_pointer (&image);  /* killed after sending everything */
      else
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "“%s” could not be rendered within %" G_GUINT64_FORMAT " MiB of memory "
                     "(the renderer stopped with signal %s)", display, budget.bytes >> 20,
                     g_strsignal (sig));
      return NULL;
    }
  if (g_subprocess_get_exit_status (process) != 0 || !read_ok || image == NULL)
    {
      g_autofree char *why = render_stderr (err_fd);

      close (err_fd);
      /* The loader's reason, which may be the budget's: its allocation failed. */
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "%s (Kernelscope renders vector images within %" G_GUINT64_FORMAT
                   " MiB and %d s)", *why != '\0' ? why : "The renderer failed",
                   budget.bytes >> 20, RENDER_SECONDS);
      return NULL;
    }
  close (err_fd);
  return g_steal_pointer (&image);
}

int
_ks_image_render_main (const char *path, guint side)
{
  g_autofree char *display = ks_file_display_basename (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autoptr (KsImage) image = NULL;
  guint32 header[2];

  max_side = MIN (side, KS_IMAGE_MAX_SIDE);
  pixbuf = gdk_pixbuf_new_from_file (path, &error);
  if (pixbuf == NULL)
    {
      fprintf (stderr, "“%s” could not be rendered: %s\n", display,
               pixbuf_reason (error->message, path));
      return 1;
    }
  if ((guint) gdk_pixbuf_get_width (pixbuf) > max_side
      || (guint) gdk_pixbuf_get_height (pixbuf) > max_side)
    {
      fprintf (stderr, "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u\n", display,
                  gdk_pixbuf_get_width (pixbuf), gdk_pixbuf_get_height (pixbuf), max_side,
                  max_side);
      return 1;
    }
  image = image_from_pixbuf (pixbuf, &error);
  if (image == NULL)
    {
      fprintf (stderr, "“%s” could not be rendered: %s\n", display,
               pixbuf_reason (error->message, path));
      return 1;
    }
  g_clear_object (&pixbuf);
  header[0] = image->width;
  header[1] = image->height;
  if (fwrite (header, sizeof header, 1, stdout) != 1)
    return 1;
  for (guint y = 0; y < image->height; y++)
    if (fwrite (ks_image_row (image, y), (gsize) image->width * 4, 1, stdout) != 1)
      return 1;
  return fflush (stdout) == 0 ? 0 : 1;
}

/* GIF files whose screen or a frame is 0 pixels wide or high, or with a
 * frame that reaches past the screen: gdk-pixbuf 2.42 fails its own
 * assertions on them (in gdk_pixbuf_get_file_info and the GIF loader), which
 * print criticals or, with G_DEBUG=fatal-criticals, abort. The blocks are
 * walked here first. */
static gboolean
check_gif_sizes (const char *path, const char *display, GError **error)
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

KsImage *
ks_image_load (const char *path, GError **error)
{
  g_autofree char *display = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  GdkPixbufFormat *format;
  GStatBuf st;
  int width = 0, height = 0;

  g_return_val_if_fail (path != NULL, NULL);
  display = ks_file_display_basename (path);
  if (g_stat (path, &st) != 0 || g_access (path, R_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot open “%s”: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot open “%s”: %s", display,
                   S_ISDIR (st.st_mode) ? g_strerror (EISDIR) : "not a regular file");
      return NULL;
    }
  if (st.st_size == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” is empty", display);
      return NULL;
    }
  if (!check_gif_sizes (path, display, error))
    return NULL;
  /* Only the header is read here: absurd dimensions are refused before any
   * pixel memory is allocated. */
  format = gdk_pixbuf_get_file_info (path, &width, &height);
  if (format == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is not an image Kernelscope can read (unknown or damaged format)",
                   display);
      return NULL;
    }
  if (width <= 0 || height <= 0 || (guint) width > max_side || (guint) height > max_side)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u", display, width,
                   height, max_side, max_side);
      return NULL;
    }
  if (gdk_pixbuf_format_is_scalable (format))
    return render_vector (path, display, width, height, error);
  {
    g_autofree char *name = gdk_pixbuf_format_get_name (format);

    if (!check_complete (path, display, name, st.st_size, error))
      return NULL;
  }
  /* The whole-file decoders notice truncated PNG data, which the incremental
   * loader lets through as a partly black image. */
  pixbuf = gdk_pixbuf_new_from_file (path, &local_error);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” could not be read: %s", display,
                   pixbuf_reason (local_error->message, path));
      return NULL;
    }
  return image_from_pixbuf (pixbuf, error);
}

KsImage *
ks_image_load_bytes (GBytes *bytes, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) local_error = NULL;
  KsImage *image;
  gsize len = 0;
  const guint8 *data;
  int fd;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "The image data is empty");
      return NULL;
    }
  /* Through a file, so that the same whole-file decoders as for opened files
   * see the data: they refuse truncated images, the incremental loader does not. */
  fd = g_file_open_tmp ("kernelscope-XXXXXX", &path, &local_error);
  if (fd < 0)
    return load_data (data, len, "The image", error);
  close (fd);
  if (!g_file_set_contents (path, (const char *) data, len, &local_error))
    {
      g_unlink (path);
      return load_data (data, len, "The image", error);
    }
  image = ks_image_load (path, &local_error);
  g_unlink (path);
  if (image == NULL)
    {
      /* Name the data, not the temporary file. */
      const char *msg = local_error->message;
      const char *rest = strstr (msg, "” ");
      g_set_error (error, KS_ERROR, local_error->code, "The image%s",
                   rest != NULL ? rest + strlen ("”") : ": could not be read");
    }
  return image;
}

/* The writable gdk-pixbuf format whose extensions name path's, or NULL;
 * *known gets ".png, .jpg, …" (free it) when it is NULL. */
static char *
writable_type_for (const char *path, char **known)
{
  g_autoptr (GSList) formats = gdk_pixbuf_get_formats ();
  g_autofree char *base = g_path_get_basename (path);
  const char *dot = strrchr (base, '.');
  g_autofree char *ext = dot != NULL && dot != base ? g_ascii_strdown (dot + 1, -1) : NULL;
  g_autoptr (GString) list = g_string_new (NULL);

  for (GSList *l = formats; l != NULL; l = l->next)
    {
      g_auto (GStrv) exts = NULL;

      if (!gdk_pixbuf_format_is_writable (l->data))
        continue;
      exts = gdk_pixbuf_format_get_extensions (l->data);
      for (guint i = 0; exts[i] != NULL; i++)
        {
          if (ext != NULL && g_ascii_strcasecmp (exts[i], ext) == 0)
            return gdk_pixbuf_format_get_name (l->data);
          g_string_append_printf (list, "%s.%s", list->len > 0 ? ", " : "", exts[i]);
        }
    }
  if (known != NULL)
    *known = g_strdup (list->str);
  return NULL;
}

gboolean
ks_image_check_save_path (const char *path, GError **error)
{
  g_autofree char *known = NULL;
  g_autofree char *type = NULL;
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  type = writable_type_for (path, &known);
  if (type != NULL)
    return TRUE;
  display = ks_file_display_basename (path);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "Cannot write “%s”: %s names no image format Kernelscope can write (it writes %s)",
               display, strrchr (display, '.') != NULL ? "its extension" : "no extension", known);
  return FALSE;
}

static gboolean
write_chunk (const char *data, gsize size, GError **error, gpointer user_data)
{
  return ks_atomic_file_write (user_data, data, size, error);
}

gboolean
ks_image_save (const KsImage *image, const char *path, GError **error)
{
  g_autoptr (KsImage) rgba = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autofree char *type = NULL;
  KsAtomicFile *file;
  gboolean ok;

  g_return_val_if_fail (image != NULL && path != NULL, FALSE);
  if (!ks_image_check_save_path (path, error))
    return FALSE;
  type = writable_type_for (path, NULL);
  /* An RGBA image is encoded from its own memory: a copy would be one more
   * image-sized allocation at the peak of a save. */
  rgba = image->format == KS_FORMAT_RGBA8 ? ks_image_ref ((KsImage *) image)
                                          : ks_image_to_rgba (image);
  if (rgba == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to save the image");
      return FALSE;
    }
  pixbuf = gdk_pixbuf_new_from_data (rgba->data, GDK_COLORSPACE_RGB, TRUE, 8, rgba->width,
                                     rgba->height, rgba->stride, NULL, NULL);
  if (g_str_equal (type, "jpeg") || g_str_equal (type, "bmp"))
    {
      /* These formats have no alpha channel. */
      g_autoptr (GdkPixbuf) opaque = gdk_pixbuf_new (GDK_COLORSPACE_RGB, FALSE, 8, rgba->width,
                                                     rgba->height);
      if (opaque == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to save the image");
          return FALSE;
        }
      gdk_pixbuf_fill (opaque, 0);
      gdk_pixbuf_composite (pixbuf, opaque, 0, 0, rgba->width, rgba->height, 0, 0, 1, 1,
                            GDK_INTERP_NEAREST, 255);
      g_set_object (&pixbuf, opaque);
    }
  /* Encoded straight into a temporary beside the target, which replaces it
   * only once complete (ks-file.h): an interrupted save loses nothing. */
  file = ks_atomic_file_open (path, &local_error);
  if (file != NULL)
    {
      ok = gdk_pixbuf_save_to_callback (pixbuf, write_chunk, file, type, &local_error, NULL);
      if (!ok)
        {
          g_autofree char *display = ks_file_display_name (path);

          ks_atomic_file_abort (file);
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot save “%s”: %s", display,
                       local_error->message);
          return FALSE;
        }
      if (ks_atomic_file_commit (file, &local_error))
        return TRUE;
    }
  /* The writer's message names the file and the reason. */
  g_set_error_literal (error, KS_ERROR, KS_ERROR_IMAGE, local_error->message);
  return FALSE;
}
