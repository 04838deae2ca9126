#!/usr/bin/env python3
"""Writes the hostile-file corpus that tests/test-hostile.c opens.

Usage: make-hostile-corpus.py OUTPUT-FOLDER

Every file is built here from scratch (small valid images in PNG, JPEG, BMP,
GIF, TIFF, PNM, ICO, TGA, XPM and SVG, then damaged systematically), plus odd
file-system entries. The folder gets a manifest, manifest.tsv, one case a line:

  name  file  format  kind  expect  size  needles  note

file is escaped as g_strcompress() reads it (octal for bytes outside printable
ASCII); expect is "accept" (size is WIDTHxHEIGHT) or "refuse" (size is "-");
needles are comma-separated words the error message must contain ("-": none
beyond the file's name). Output is deterministic: fixed seeds, no clock.
"""

import os
import random
import struct
import sys
import zlib

CASES = []
OUT = None


def add(name, data, fmt, kind, expect, size=None, needles=(), note="", file=None):
    """Writes data (bytes) as file (default: name plus the format's extension)."""
    if file is None:
        file = (name + "." + EXT[fmt]).encode()
    if data is not None:
        with open(os.path.join(OUT, file), "wb") as f:
            f.write(data)
    record(name, file, fmt, kind, expect, size, needles, note)


def record(name, file, fmt, kind, expect, size=None, needles=(), note=""):
    assert expect in ("accept", "refuse")
    assert (size is not None) == (expect == "accept"), name
    assert all(c.name != name for c in CASES), name
    assert "\t" not in note and "\n" not in note
    CASES.append(Case(name, file, fmt, kind, expect, size, needles, note))


class Case:
    def __init__(self, name, file, fmt, kind, expect, size, needles, note):
        self.name, self.file, self.fmt, self.kind = name, file, fmt, kind
        self.expect, self.size, self.needles, self.note = expect, size, needles, note


EXT = {"png": "png", "jpeg": "jpg", "bmp": "bmp", "gif": "gif", "tiff": "tif",
       "pnm": "ppm", "pgm": "pgm", "pbm": "pbm", "ico": "ico", "tga": "tga",
       "xpm": "xpm", "svg": "svg", "text": "png", "fs": "png"}


def escape(name):
    out = []
    for b in name:
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 < b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\%03o" % b)
    return "".join(out)


def cut(data, fraction):
    return data[:int(len(data) * fraction)]


def pixels_rgb(w, h, seed):
    rng = random.Random(seed)
    return [[(rng.randrange(256), rng.randrange(256), rng.randrange(256))
             for _ in range(w)] for _ in range(h)]


# ---- PNG --------------------------------------------------------------------

PNG_SIG = b"\x89PNG\r\n\x1a\n"


def chunk(kind, data, crc=None):
    if crc is None:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def ihdr(w, h, depth, ctype, interlace=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, interlace))


def png_raw(w, h, depth, ctype, seed, interlace=0):
    """Filtered scanlines (filter type 0) of random samples."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    rng = random.Random(seed)

    def sample():
        if ctype == 3:
            return rng.randrange(4)
        return rng.randrange(1 << depth)

    def scanlines(pw, ph):
        raw = bytearray()
        for _ in range(ph):
            raw.append(0)
            if depth < 8:
                bits, nbits = 0, 0
                row = bytearray()
                for _ in range(pw * channels):
                    bits = bits << depth | sample()
                    nbits += depth
                    if nbits == 8:
                        row.append(bits)
                        bits, nbits = 0, 0
                if nbits:
                    row.append(bits << (8 - nbits))
                raw += row
            else:
                for _ in range(pw * channels):
                    v = sample()
                    raw += struct.pack(">H", v) if depth == 16 else bytes([v])
        return raw

    if not interlace:
        return bytes(scanlines(w, h))
    raw = bytearray()
    for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                           (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
        pw = (w - x0 + dx - 1) // dx if w > x0 else 0
        ph = (h - y0 + dy - 1) // dy if h > y0 else 0
        if pw and ph:
            raw += scanlines(pw, ph)
    return bytes(raw)


PALETTE = bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])


def png(w, h, depth=8, ctype=2, seed=1, interlace=0, plte=True, extra=b"", idat=None):
    body = ihdr(w, h, depth, ctype, interlace)
    if ctype == 3 and plte:
        body += chunk(b"PLTE", PALETTE)
    body += extra
    if idat is None:
        idat = chunk(b"IDAT", zlib.compress(png_raw(w, h, depth, ctype, seed, interlace), 9))
    return PNG_SIG + body + idat + chunk(b"IEND", b"")


def zeros_stream(n, level=9):
    c = zlib.compressobj(level)
    block = bytes(1 << 16)
    out = []
    while n > 0:
        out.append(c.compress(block[:min(n, len(block))]))
        n -= len(block)
    out.append(c.flush())
    return b"".join(out)


def make_png():
    w, h = 16, 12
    ok = png(w, h)
    add("png-valid-rgb8", ok, "png", "valid", "accept", (w, h))
    add("png-valid-rgba8", png(w, h, 8, 6), "png", "valid", "accept", (w, h))
    add("png-rgb16", png(w, h, 16, 2), "png", "valid", "accept", (w, h),
        note="16-bit samples: gdk-pixbuf reduces them to 8 bits, as for any photo editor")
    add("png-gray16", png(w, h, 16, 0), "png", "valid", "accept", (w, h))
    add("png-gray-alpha", png(w, h, 8, 4), "png", "valid", "accept", (w, h),
        note="grayscale with alpha is an ordinary PNG")
    add("png-gray1", png(w, h, 1, 0), "png", "valid", "accept", (w, h))
    add("png-palette", png(w, h, 2, 3), "png", "valid", "accept", (w, h))
    add("png-interlaced", png(w, h, 8, 2, interlace=1), "png", "valid", "accept", (w, h))
    add("png-trailing-garbage", ok + bytes(random.Random(7).randrange(256) for _ in range(300)),
        "png", "garbage-after", "accept", (w, h),
        note="bytes after IEND are ignored by every PNG reader; the image is complete")
    iend = ok.rindex(b"IEND") - 4
    add("png-trunc-signature", ok[:8], "png", "truncated", "refuse")
    add("png-trunc-header-only", ok[:8 + 25], "png", "truncated", "refuse")
    add("png-trunc-half", cut(ok, 0.5), "png", "truncated", "refuse")
    add("png-trunc-90", cut(ok, 0.9), "png", "truncated", "refuse")
    add("png-no-iend", ok[:iend], "png", "truncated", "refuse",
        note="IEND cut off: a download that stopped short; refused like other truncations")
    add("png-lie-16000", PNG_SIG + ihdr(16000, 16000, 8, 2)
        + chunk(b"IDAT", zlib.compress(png_raw(16, 12, 8, 2, 1), 9)) + chunk(b"IEND", b""),
        "png", "lying-header", "refuse",
        note="16000x16000 within the side limit, data for a few rows: refuse without "
        "allocating 768 MB")
    add("png-lie-16384-rgba", PNG_SIG + ihdr(16384, 16384, 8, 6)
        + chunk(b"IDAT", zlib.compress(bytes(4096), 9)) + chunk(b"IEND", b""),
        "png", "lying-header", "refuse", note="a 1 GiB pixbuf for 20 bytes of data")
    add("png-lie-100000x1", PNG_SIG + ihdr(100000, 1, 8, 2)
        + chunk(b"IDAT", zlib.compress(bytes(300001), 9)) + chunk(b"IEND", b""),
        "png", "lying-header", "refuse", needles=("100000",))
    add("png-lie-0x0", PNG_SIG + ihdr(0, 0, 8, 2) + chunk(b"IDAT", zlib.compress(b"")) +
        chunk(b"IEND", b""), "png", "lying-header", "refuse")
    add("png-lie-overflow32", PNG_SIG + ihdr(0x10001, 0x10001, 8, 6)
        + chunk(b"IDAT", zlib.compress(bytes(1000))) + chunk(b"IEND", b""),
        "png", "lying-header", "refuse", note="65537x65537x4 overflows 32 bits")
    add("png-lie-negative", PNG_SIG + ihdr(0x80000010, 12, 8, 2)
        + chunk(b"IDAT", zlib.compress(png_raw(16, 12, 8, 2, 1))) + chunk(b"IEND", b""),
        "png", "lying-header", "refuse", note="width with the top bit set (negative as int32)")
    add("png-bomb-100000", PNG_SIG + ihdr(100000, 100000, 8, 0)
        + chunk(b"IDAT", zeros_stream(4 << 20)) + chunk(b"IEND", b""),
        "png", "bomb", "refuse", needles=("100000",))
    add("png-bomb-16000-short", PNG_SIG + ihdr(16000, 16000, 8, 6)
        + chunk(b"IDAT", zeros_stream(2 << 20)) + chunk(b"IEND", b""),
        "png", "bomb", "refuse",
        note="zeros for 32 of 16000 rows: refused before the 1 GB pixbuf is allocated")
    add("png-zeros-4096", PNG_SIG + ihdr(4096, 4096, 8, 0)
        + chunk(b"IDAT", zeros_stream(4096 * 4097)) + chunk(b"IEND", b""),
        "png", "bomb", "accept", (4096, 4096),
        note="16 MB of zeros in 16 KB: a legitimate black image within the limits")
    bad_crc = bytearray(ok)
    bad_crc[8 + 4 + 4 + 13] ^= 0xFF
    add("png-bad-crc-ihdr", bytes(bad_crc), "png", "bad-crc", "refuse")
    idat_at = ok.index(b"IDAT")
    idat_len = struct.unpack(">I", ok[idat_at - 4:idat_at])[0]
    bad_crc = bytearray(ok)
    bad_crc[idat_at + 4 + idat_len] ^= 0xFF
    add("png-bad-crc-idat", bytes(bad_crc), "png", "bad-crc", "refuse")
    bad_data = bytearray(ok)
    for i in range(idat_at + 10, idat_at + 4 + idat_len - 4):
        bad_data[i] ^= 0x5A
    bad_data[idat_at + 4 + idat_len:idat_at + 8 + idat_len] = struct.pack(
        ">I", zlib.crc32(bytes(bad_data[idat_at:idat_at + 4 + idat_len])) & 0xFFFFFFFF)
    add("png-corrupt-zlib", bytes(bad_data), "png", "corrupt-data", "refuse",
        note="valid CRCs around a damaged deflate stream")
    text = chunk(b"tEXt", b"Comment\x00hello", crc=0x12345678)
    add("png-bad-crc-ancillary", png(w, h, extra=text), "png", "bad-crc", "accept", (w, h),
        note="a damaged comment chunk: libpng drops ancillary chunks with a bad CRC; the "
        "pixels are intact")
    add("png-palette-no-plte", png(w, h, 2, 3, plte=False), "png", "corrupt-data", "refuse",
        note="palette image without its palette")
    short_plte = PNG_SIG + ihdr(w, h, 2, 3) + chunk(b"PLTE", PALETTE[:6]) + \
        chunk(b"IDAT", zlib.compress(png_raw(w, h, 2, 3, 1))) + chunk(b"IEND", b"")
    add("png-palette-index-out-of-range", short_plte, "png", "corrupt-data", "accept", (w, h),
        note="indices up to 3 into a 2-entry palette: libpng, as browsers do, shows the "
        "missing entries as black; the rest of the file is sound")
    add("png-bad-depth", PNG_SIG + ihdr(w, h, 7, 2) + chunk(b"IDAT", b"") + chunk(b"IEND", b""),
        "png", "lying-header", "refuse")
    add("png-no-idat", PNG_SIG + ihdr(w, h, 8, 2) + chunk(b"IEND", b""), "png", "truncated",
        "refuse")
    add("png-short-idat-rows", PNG_SIG + ihdr(w, h, 8, 2)
        + chunk(b"IDAT", zlib.compress(png_raw(w, h, 8, 2, 1)[:(1 + 3 * w) * 5]))
        + chunk(b"IEND", b""), "png", "truncated", "refuse",
        note="a complete file whose pixel data stops after 5 of 12 rows")
    rng = random.Random(11)
    add("png-random-after-magic", PNG_SIG + bytes(rng.randrange(256) for _ in range(2000)),
        "png", "random", "refuse")


# ---- JPEG -------------------------------------------------------------------

DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
DC_VALS = list(range(12))
AC_BITS = [1] + [0] * 15      # one code, "0": end of block
AC_VALS = [0x00]


def huff_codes(bits, vals):
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[vals[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


DC_CODES = huff_codes(DC_BITS, DC_VALS)
AC_CODES = huff_codes(AC_BITS, AC_VALS)


class BitWriter:
    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.acc = self.acc << 1 | (value >> i & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc, self.n = 0, 0

    def flush(self):
        while self.n:
            self.put(1, 1)
        return bytes(self.out)


def put_dc(bw, diff):
    size = abs(diff).bit_length()
    bw.put(*DC_CODES[size])
    if size:
        bw.put(diff if diff > 0 else diff + (1 << size) - 1, size)


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def jpeg(w, h, ncomp=3, progressive=False, seed=3, adobe=False, app=b""):
    """Blocks of one flat colour each (only DC coefficients): a real JPEG of
    w x h, w and h multiples of 8."""
    bw_, bh_ = w // 8, h // 8
    rng = random.Random(seed)
    dcs = [[[rng.randrange(-1000, 1000) for _ in range(ncomp)] for _ in range(bw_)]
           for _ in range(bh_)]
    out = b"\xFF\xD8" + segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00") + app
    if adobe:
        out += segment(0xEE, b"Adobe\x00\x64\x00\x00\x00\x00\x00")
    out += segment(0xDB, b"\x00" + bytes([1] * 64))
    sof = struct.pack(">BHHB", 8, h, w, ncomp)
    for c in range(ncomp):
        sof += bytes([c + 1, 0x11, 0])
    out += segment(0xC2 if progressive else 0xC0, sof)
    out += segment(0xC4, b"\x00" + bytes(DC_BITS) + bytes(DC_VALS))
    out += segment(0xC4, b"\x10" + bytes(AC_BITS) + bytes(AC_VALS))

    def sos(comps, ss, se):
        p = bytes([len(comps)])
        for c in comps:
            p += bytes([c + 1, 0x00])
        return segment(0xDA, p + bytes([ss, se, 0]))

    if not progressive:
        bw = BitWriter()
        pred = [0] * ncomp
        for row in dcs:
            for block in row:
                for c in range(ncomp):
                    put_dc(bw, block[c] - pred[c])
                    pred[c] = block[c]
                    bw.put(*AC_CODES[0])
        out += sos(range(ncomp), 0, 63) + bw.flush()
    else:
        bw = BitWriter()
        pred = [0] * ncomp
        for row in dcs:
            for block in row:
                for c in range(ncomp):
                    put_dc(bw, block[c] - pred[c])
                    pred[c] = block[c]
        out += sos(range(ncomp), 0, 0) + bw.flush()
        for c in range(ncomp):
            bw = BitWriter()
            for _ in range(bw_ * bh_):
                bw.put(*AC_CODES[0])
            out += sos([c], 1, 63) + bw.flush()
    return out + b"\xFF\xD9"


def make_jpeg():
    w, h = 32, 24
    ok = jpeg(w, h)
    add("jpeg-valid", ok, "jpeg", "valid", "accept", (w, h))
    add("jpeg-gray", jpeg(w, h, 1), "jpeg", "valid", "accept", (w, h))
    add("jpeg-cmyk", jpeg(w, h, 4, adobe=True), "jpeg", "valid", "accept", (w, h),
        note="CMYK with an Adobe marker, as print workflows write: gdk-pixbuf converts it")
    prog = jpeg(w, h, progressive=True)
    add("jpeg-progressive", prog, "jpeg", "valid", "accept", (w, h))
    add("jpeg-trailing-garbage", ok + b"\x00" * 64 + b"garbage", "jpeg", "garbage-after",
        "accept", (w, h), note="padding after the end-of-image marker, as some cameras write")
    sos_at = ok.index(b"\xFF\xDA")
    add("jpeg-trunc-header-only", ok[:sos_at], "jpeg", "truncated", "refuse")
    add("jpeg-trunc-half", cut(ok, 0.5), "jpeg", "truncated", "refuse")
    add("jpeg-trunc-90", cut(ok, 0.9), "jpeg", "truncated", "refuse")
    add("jpeg-no-eoi", ok[:-2], "jpeg", "truncated", "refuse",
        note="entropy data complete, end-of-image marker missing")
    add("jpeg-progressive-trunc", prog[:prog.rindex(b"\xFF\xDA")], "jpeg", "truncated",
        "refuse", note="progressive JPEG cut before its last scan")
    thumb = jpeg(8, 8, seed=9)
    exif = segment(0xE1, b"Exif\x00\x00" + thumb)
    with_thumb = jpeg(w, h, app=exif)
    add("jpeg-trunc-thumbnail", with_thumb[:with_thumb.index(b"\xFF\xDA", len(exif) + 4) + 20],
        "jpeg", "truncated", "refuse",
        note="cut short; the embedded thumbnail's end marker is still in the last 4 KiB")
    add("jpeg-lie-16000", ok.replace(struct.pack(">BHH", 8, h, w), struct.pack(">BHH", 8, 16000,
        16000)), "jpeg", "lying-header", "refuse",
        note="16000x16000 header over 12 blocks of data")
    add("jpeg-lie-0x0", ok.replace(struct.pack(">BHH", 8, h, w), struct.pack(">BHH", 8, 0, 0)),
        "jpeg", "lying-header", "refuse")
    add("jpeg-lie-65535x1", ok.replace(struct.pack(">BHH", 8, h, w),
        struct.pack(">BHH", 8, 1, 65535)), "jpeg", "lying-header", "refuse",
        note="beyond libjpeg's 65500 limit")
    add("jpeg-lie-20000x8", ok.replace(struct.pack(">BHH", 8, h, w),
        struct.pack(">BHH", 8, 8, 20000)), "jpeg", "lying-header", "refuse",
        needles=("20000",))
    rng = random.Random(13)
    add("jpeg-random-after-magic", b"\xFF\xD8\xFF\xE0" + bytes(rng.randrange(256)
        for _ in range(2000)) + b"\xFF\xD9", "jpeg", "random", "refuse")


# ---- BMP --------------------------------------------------------------------

def bmp(w, h, bits=24, palette=None, rows=None, compression=0, size_image=0):
    if palette is None and bits <= 8:
        palette = [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 0, 255)] + \
            [(i, i, i) for i in range(4, 1 << bits)]
        palette = palette[:1 << bits]
    pal = b"".join(bytes([b, g, r, 0]) for r, g, b in (palette or []))
    if rows is None:
        px = pixels_rgb(w, abs(h), 5)
        rows = bytearray()
        stride = (w * bits + 31) // 32 * 4
        for y in range(abs(h)):
            row = bytearray()
            if bits == 24:
                for r, g, b in px[y]:
                    row += bytes([b, g, r])
            elif bits == 32:
                for r, g, b in px[y]:
                    row += bytes([b, g, r, 255])
            elif bits == 8:
                row += bytes(p[0] % len(palette) for p in px[y])
            row += bytes(stride - len(row))
            rows += row
        rows = bytes(rows)
    offset = 14 + 40 + len(pal)
    header = b"BM" + struct.pack("<IHHI", offset + len(rows), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, bits, compression, size_image, 2835, 2835,
                       len(palette or []), 0)
    return header + info + pal + rows


def make_bmp():
    w, h = 16, 12
    ok = bmp(w, h)
    add("bmp-valid-24", ok, "bmp", "valid", "accept", (w, h))
    add("bmp-valid-32", bmp(w, h, 32), "bmp", "valid", "accept", (w, h))
    add("bmp-valid-8", bmp(w, h, 8), "bmp", "valid", "accept", (w, h))
    add("bmp-top-down", bmp(w, -h), "bmp", "valid", "accept", (w, h),
        note="negative height is the standard top-down row order")
    add("bmp-trailing-garbage", ok + b"\xAB" * 100, "bmp", "garbage-after", "accept", (w, h))
    add("bmp-trunc-header-only", ok[:54], "bmp", "truncated", "refuse")
    add("bmp-trunc-half", cut(ok, 0.5), "bmp", "truncated", "refuse")
    add("bmp-trunc-90", cut(ok, 0.9), "bmp", "truncated", "refuse")
    add("bmp-lie-16000", bmp(16000, 16000, rows=ok[54:]), "bmp", "lying-header", "refuse")
    add("bmp-lie-100000x1", bmp(100000, 1, rows=ok[54:]), "bmp", "lying-header", "refuse",
        needles=("100000",))
    add("bmp-lie-0x0", bmp(0, 0, rows=b""), "bmp", "lying-header", "refuse")
    add("bmp-lie-negative-width", bmp(-16, 12, rows=ok[54:]), "bmp", "lying-header", "refuse")
    add("bmp-lie-min-height", bmp(16, -0x80000000, rows=ok[54:]), "bmp", "lying-header",
        "refuse", note="height INT32_MIN: its absolute value overflows")
    add("bmp-lie-overflow32", bmp(0x10001, 0x10001, rows=ok[54:]), "bmp", "lying-header",
        "refuse")
    add("bmp-bad-bits", bmp(w, h, 7, palette=[], rows=ok[54:]), "bmp", "lying-header", "refuse")
    off = bytearray(ok)
    off[10:14] = struct.pack("<I", 1 << 20)
    add("bmp-offset-past-end", bytes(off), "bmp", "lying-header", "refuse")
    rle = bytearray()
    for y in range(h):
        rle += bytes([w, y % 4, 0, 0])      # a run of w pixels, end of line
    rle += b"\x00\x01"
    full = bmp(w, h, 8, rows=bytes(rle), compression=1, size_image=len(rle))
    add("bmp-rle8-valid", full, "bmp", "valid", "accept", (w, h))
    add("bmp-rle8-trunc", full[:len(full) - len(rle) // 2], "bmp", "truncated", "refuse",
        note="RLE rows stop halfway, no end-of-bitmap code")
    rng = random.Random(17)
    add("bmp-random-after-magic", b"BM" + bytes(rng.randrange(256) for _ in range(600)), "bmp",
        "random", "refuse")


# ---- GIF --------------------------------------------------------------------

def lzw(indices, min_size):
    clear, eoi = 1 << min_size, (1 << min_size) + 1
    bits = []

    def emit(code, size):
        bits.append((code, size))

    def reset():
        return {bytes([i]): i for i in range(clear)}, eoi + 1, min_size + 1

    table, next_code, size = reset()
    emit(clear, size)
    w = b""
    for c in indices:
        wc = w + bytes([c])
        if wc in table:
            w = wc
            continue
        emit(table[w], size)
        if next_code < 4096:
            table[wc] = next_code
            if next_code == 1 << size and size < 12:
                size += 1
            next_code += 1
        else:
            emit(clear, size)
            table, next_code, size = reset()
        w = bytes([c])
    emit(table[w], size)
    emit(eoi, size)
    out, acc, n = bytearray(), 0, 0
    for code, s in bits:
        acc |= code << n
        n += s
        while n >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            n -= 8
    if n:
        out.append(acc)
    return bytes(out)


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        part = data[i:i + 255]
        out += bytes([len(part)]) + part
    return bytes(out) + b"\x00"


def gif(w, h, frame=None, screen=None, indices=None, trailer=True):
    sw, sh = screen or (w, h)
    fw, fh = frame or (w, h)
    if indices is None:
        rng = random.Random(19)
        indices = [rng.randrange(4) for _ in range(fw * fh)]
    out = b"GIF89a" + struct.pack("<HHBBB", sw, sh, 0x81, 0, 0) + PALETTE + b"\xFF\xFF\xFF"
    out += b"\x2C" + struct.pack("<HHHHB", 0, 0, fw, fh, 0)
    out += b"\x02" + sub_blocks(lzw(indices, 2))
    return out + (b"\x3B" if trailer else b"")


def make_gif():
    w, h = 16, 12
    ok = gif(w, h)
    add("gif-valid", ok, "gif", "valid", "accept", (w, h))
    add("gif-trailing-garbage", ok + b"junk" * 20, "gif", "garbage-after", "accept", (w, h))
    add("gif-trunc-header-only", ok[:13 + 12], "gif", "truncated", "refuse",
        note="screen descriptor and palette, no image: gdk-pixbuf must not print a critical")
    add("gif-trunc-half", cut(ok, 0.5), "gif", "truncated", "refuse")
    add("gif-trunc-90", cut(ok, 0.9), "gif", "truncated", "refuse")
    add("gif-no-trailer", ok[:-1], "gif", "truncated", "accept", (w, h),
        note="only the trailer byte 0x3B missing after a complete frame: old encoders wrote "
        "such files (Python's idlelib icons), every viewer opens them")
    add("gif-cut-in-frame", ok[:-3], "gif", "truncated", "refuse",
        note="cut inside the last frame's data sub-blocks")
    add("gif-lie-screen-65535", gif(w, h, screen=(65535, 65535)), "gif", "lying-header",
        "refuse", needles=("65535",))
    add("gif-lie-screen-0x0", gif(w, h, screen=(0, 0)), "gif", "lying-header", "refuse")
    add("gif-bomb-frame", gif(w, h, frame=(16000, 16000), screen=(16000, 16000),
                              indices=[0] * 4096), "gif", "bomb", "refuse",
        note="a 16000x16000 frame with data for 4096 pixels")
    add("gif-frame-outside-screen", gif(w, h, frame=(60000, 60000), screen=(w, h),
                                        indices=[1] * 256), "gif", "lying-header", "refuse",
        note="a frame far larger than its 16x12 screen")
    rng = random.Random(23)
    add("gif-random-after-magic", b"GIF89a" + bytes(rng.randrange(256) for _ in range(500)),
        "gif", "random", "refuse")


# ---- TIFF -------------------------------------------------------------------

def tiff(w, h, data=None, big_endian=False, compression=1, strip_bytes=None,
         strip_offset=None, next_ifd=0, bits=8):
    e = ">" if big_endian else "<"
    if data is None:
        data = bytes(v for row in pixels_rgb(w, h, 29) for px in row for v in px)
        if compression == 8:
            data = zlib.compress(data)
    entries = []
    n_entries = 10
    ifd_at = 8
    bps_at = ifd_at + 2 + 12 * n_entries + 4
    data_at = bps_at + 6
    entries = [
        (256, 4, 1, w), (257, 4, 1, h), (258, 3, 3, bps_at), (259, 3, 1, compression),
        (262, 3, 1, 2), (273, 4, 1, data_at if strip_offset is None else strip_offset),
        (277, 3, 1, 3), (278, 4, 1, h),
        (279, 4, 1, len(data) if strip_bytes is None else strip_bytes), (284, 3, 1, 1),
    ]
    out = (b"MM\x00\x2A" if big_endian else b"II\x2A\x00") + struct.pack(e + "I", ifd_at)
    out += struct.pack(e + "H", len(entries))
    for tag, typ, count, value in entries:
        if typ == 3 and count == 1:
            out += struct.pack(e + "HHIHH", tag, typ, count, value, 0)
        else:
            out += struct.pack(e + "HHII", tag, typ, count, value)
    out += struct.pack(e + "I", next_ifd)
    out += struct.pack(e + "HHH", bits, bits, bits)
    return out + data


def make_tiff():
    w, h = 16, 12
    ok = tiff(w, h)
    add("tiff-valid", ok, "tiff", "valid", "accept", (w, h))
    add("tiff-valid-big-endian", tiff(w, h, big_endian=True), "tiff", "valid", "accept", (w, h))
    add("tiff-valid-deflate", tiff(w, h, compression=8), "tiff", "valid", "accept", (w, h))
    add("tiff-trunc-header-only", ok[:8], "tiff", "truncated", "refuse")
    add("tiff-trunc-half", cut(ok, 0.5), "tiff", "truncated", "refuse")
    add("tiff-trunc-90", cut(ok, 0.9), "tiff", "truncated", "refuse",
        note="the strip's last rows missing")
    add("tiff-strip-past-end", tiff(w, h, strip_offset=1 << 24), "tiff", "lying-header",
        "refuse")
    add("tiff-strip-count-past-end", tiff(w, h, strip_bytes=1 << 24), "tiff", "lying-header",
        "refuse")
    small = bytes(w * h * 3)
    add("tiff-lie-16000", tiff(16000, 16000, data=small), "tiff", "lying-header", "refuse",
        note="uncompressed 16000x16000 over 576 bytes of data: refuse before allocating 1 GB")
    add("tiff-lie-100000x1", tiff(100000, 1, data=small), "tiff", "lying-header", "refuse",
        needles=("100000",))
    add("tiff-lie-0x0", tiff(0, 0, data=small), "tiff", "lying-header", "refuse")
    add("tiff-bomb-deflate", tiff(16000, 16000, data=zeros_stream(1 << 20), compression=8),
        "tiff", "bomb", "refuse",
        note="deflate strip of 1 MB of zeros for a 768 MB image")
    add("tiff-ifd-loop", tiff(w, h, next_ifd=8), "tiff", "corrupt-data", "accept", (w, h),
        note="the next-IFD link points back at the first; the first page is complete and "
        "libtiff detects the loop")
    rng = random.Random(31)
    add("tiff-random-after-magic", b"II\x2A\x00" + bytes(rng.randrange(256) for _ in range(800)),
        "tiff", "random", "refuse")


# ---- PNM --------------------------------------------------------------------

def make_pnm():
    w, h = 16, 12
    data = bytes(v for row in pixels_rgb(w, h, 37) for px in row for v in px)
    ok = b"P6\n%d %d\n255\n" % (w, h) + data
    add("pnm-valid-p6", ok, "pnm", "valid", "accept", (w, h))
    add("pnm-valid-p5", b"P5\n# comment\n%d %d\n255\n" % (w, h) + data[:w * h], "pgm", "valid",
        "accept", (w, h))
    ascii_ = b"P3\n%d %d\n255\n" % (w, h) + b" ".join(b"%d" % v for v in data) + b"\n"
    add("pnm-valid-p3", ascii_, "pnm", "valid", "accept", (w, h))
    add("pnm-valid-p4", b"P4\n%d %d\n" % (w, h) + bytes(2 * h), "pbm", "valid", "accept",
        (w, h))
    add("pnm-trunc-header-only", ok[:len(ok) - len(data)], "pnm", "truncated", "refuse")
    add("pnm-trunc-half", cut(ok, 0.5), "pnm", "truncated", "refuse")
    add("pnm-trunc-90", cut(ok, 0.9), "pnm", "truncated", "refuse")
    add("pnm-trunc-ascii", cut(ascii_, 0.6), "pnm", "truncated", "refuse")
    add("pnm-lie-16000", b"P6\n16000 16000\n255\n" + data, "pnm", "lying-header", "refuse")
    add("pnm-lie-100000x1", b"P6\n100000 1\n255\n" + data, "pnm", "lying-header", "refuse",
        needles=("100000",))
    add("pnm-lie-0x0", b"P6\n0 0\n255\n", "pnm", "lying-header", "refuse")
    add("pnm-lie-negative", b"P6\n-16 12\n255\n" + data, "pnm", "lying-header", "refuse")
    add("pnm-lie-overflow32", b"P6\n4294967312 12\n255\n" + data, "pnm", "lying-header",
        "refuse", note="a width of 2^32 + 16 that wraps to 16")
    add("pnm-maxval-0", b"P6\n%d %d\n0\n" % (w, h) + data, "pnm", "lying-header", "refuse")
    add("pnm-ascii-out-of-range", b"P3\n2 1\n255\n300 0 0 0 0 999\n", "pnm", "corrupt-data",
        "refuse", note="samples above maxval")


# ---- ICO, TGA, XPM ------------------------------------------------------------

def ico(w, h, count=1, offset=None, declared=None):
    dib = bmp(w, h, 32)[14:]
    dib = dib[:8] + struct.pack("<i", 2 * h) + dib[12:]
    mask = bytes(((w + 31) // 32 * 4) * h)
    image = dib + mask
    dw, dh = declared or (w, h)
    out = struct.pack("<HHH", 0, 1, count)
    out += struct.pack("<BBBBHHII", dw % 256, dh % 256, 0, 0, 1, 32, len(image),
                       6 + 16 if offset is None else offset)
    return out + image


def tga(w, h, rle=False):
    px = pixels_rgb(w, h, 41)
    out = struct.pack("<BBBHHBHHHHBB", 0, 0, 10 if rle else 2, 0, 0, 0, 0, 0, w, h, 24, 0x20)
    for row in px:
        if rle:
            for r, g, b in row:
                out += bytes([0, b, g, r])
        else:
            for r, g, b in row:
                out += bytes([b, g, r])
    return out


def xpm(w, h, header=None, body=None):
    rng = random.Random(43)
    rows = body or ['"%s"' % "".join(rng.choice(".#") for _ in range(w)) for _ in range(h)]
    head = header or '"%d %d 2 1"' % (w, h)
    return ("/* XPM */\nstatic char *x[] = {\n%s,\n\". c #000000\",\n\"# c #FFFFFF\",\n%s\n};\n"
            % (head, ",\n".join(rows))).encode()


def make_others():
    ok = ico(16, 16)
    add("ico-valid", ok, "ico", "valid", "accept", (16, 16))
    add("ico-trunc-half", cut(ok, 0.5), "ico", "truncated", "refuse")
    add("ico-no-entries", ok[:4] + b"\x00\x00" + ok[6:], "ico", "lying-header", "refuse")
    add("ico-offset-past-end", ico(16, 16, offset=1 << 20), "ico", "lying-header", "refuse")
    add("ico-dir-lies-size", ico(16, 16, declared=(0, 0)), "ico", "lying-header", "refuse",
        note="the directory says 256x256 (0), the image inside is 16x16: the two disagree")
    ok = tga(16, 12)
    add("tga-valid", ok, "tga", "valid", "accept", (16, 12))
    add("tga-valid-rle", tga(16, 12, rle=True), "tga", "valid", "accept", (16, 12))
    add("tga-trunc-half", cut(ok, 0.5), "tga", "truncated", "refuse")
    add("tga-rle-trunc", cut(tga(16, 12, rle=True), 0.7), "tga", "truncated", "refuse")
    add("tga-lie-0x0", struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 24, 0x20),
        "tga", "lying-header", "refuse")
    add("tga-lie-16000", ok[:12] + struct.pack("<HH", 16000, 16000) + ok[16:], "tga",
        "lying-header", "refuse")
    ok = xpm(8, 6)
    add("xpm-valid", ok, "xpm", "valid", "accept", (8, 6))
    add("xpm-trunc-half", cut(ok, 0.6), "xpm", "truncated", "refuse")
    add("xpm-lie-100000x1", xpm(8, 6, header='"100000 1 2 1"'), "xpm", "lying-header", "refuse")
    add("xpm-undefined-colour", xpm(8, 1, body=['"..@@..##"']), "xpm", "corrupt-data",
        "refuse", note="a pixel character with no colour defined")


# ---- SVG --------------------------------------------------------------------

def make_svg():
    head = '<?xml version="1.0"?>\n'
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s">%s</svg>\n'
    add("svg-valid", (head + svg % (32, 24, '<rect width="32" height="24" fill="red"/>'))
        .encode(), "svg", "valid", "accept", (32, 24))
    blur = ('<defs><filter id="b" x="-1" y="-1" width="3" height="3"><feGaussianBlur '
            'stdDeviation="1000"/></filter></defs><rect width="16000" height="16000" '
            'fill="blue" filter="url(#b)"/>' + "<!-- padding -->" * 40)
    add("svg-huge-blur", (head + svg % (16000, 16000, blur)).encode(), "svg", "bomb",
        "refuse", note="1 KB asking for a 1000-pixel blur over 16000x16000: minutes of CPU")
    lol = ['<!ENTITY lol0 "lol">']
    for i in range(1, 10):
        lol.append('<!ENTITY lol%d "%s">' % (i, "&lol%d;" % (i - 1) * 10))
    add("svg-billion-laughs", (head + "<!DOCTYPE svg [\n" + "\n".join(lol) + "\n]>\n"
        + svg % (32, 24, "<text>&lol9;</text>")).encode(), "svg", "bomb", "refuse",
        note="entities expanding to 10^9 copies of lol")
    ext = ('<image href="file:///etc/passwd" width="10" height="10"/>'
           '<image href="http://192.0.2.1/x.png" width="10" height="10"/>'
           '<use href="/etc/hostname#x"/>')
    add("svg-external-refs", (head + svg % (32, 24, ext)).encode(), "svg", "external",
        "accept", (32, 24), note="opens as drawn, without what it links to: nothing is "
        "fetched from the network or read outside its folder")
    add("svg-width-100000", (head + svg % (100000, 24, "<rect width='10' height='10'/>"))
        .encode(), "svg", "lying-header", "refuse", needles=("100000",))
    nested = "<g>" * 20000 + "<rect width='1' height='1'/>" + "</g>" * 20000
    add("svg-deep-nesting", (head + svg % (32, 24, nested)).encode(), "svg", "bomb", "refuse",
        note="20000 nested groups: no drawing needs that, parsers limit depth")
    add("svg-trunc-half", cut((head + svg % (32, 24, "<rect width='10' height='10'/>" * 10))
        .encode(), 0.5), "svg", "truncated", "refuse")


# ---- not images, and file-system entries -----------------------------------------

def make_misc():
    add("empty-file", b"", "text", "empty", "refuse", file=b"empty.png")
    add("text-named-png", b"This is a text file, not an image.\n" * 20, "text", "not-image",
        "refuse", file=b"notes.png")
    rng = random.Random(47)
    add("random-bytes", bytes(rng.randrange(256) for _ in range(4096)), "text", "random",
        "refuse", file=b"noise.png")
    valid = png(16, 12)
    add("name-not-utf8", valid, "png", "odd-name", "accept", (16, 12),
        note="a Latin-1 file name: it opens, messages show it escaped", file=b"caf\xe9.png")
    add("name-not-utf8-trunc", cut(valid, 0.5), "png", "odd-name", "refuse",
        file=b"d\xe9j\xe0-cut.png")
    add("name-with-newline", cut(valid, 0.5), "png", "odd-name", "refuse",
        note="the message must still be one line", file=b"two\nlines.png")

    os.mkdir(os.path.join(OUT, b"directory.png"))
    record("fs-directory", b"directory.png", "fs", "filesystem", "refuse")
    os.mkfifo(os.path.join(OUT, b"fifo.png"))
    record("fs-fifo", b"fifo.png", "fs", "filesystem", "refuse",
           note="opening a FIFO would block until a writer comes")
    os.symlink(b"loop-b.png", os.path.join(OUT, b"loop-a.png"))
    os.symlink(b"loop-a.png", os.path.join(OUT, b"loop-b.png"))
    record("fs-symlink-loop", b"loop-a.png", "fs", "filesystem", "refuse")
    os.symlink(b"nowhere/missing.png", os.path.join(OUT, b"dangling.png"))
    record("fs-dangling-symlink", b"dangling.png", "fs", "filesystem", "refuse")
    os.symlink(b"/dev/zero", os.path.join(OUT, b"zero.png"))
    record("fs-dev-zero", b"zero.png", "fs", "filesystem", "refuse",
           note="an endless file: refused without reading it")
    path = os.path.join(OUT, b"unreadable.png")
    with open(path, "wb") as f:
        f.write(valid)
    os.chmod(path, 0)
    record("fs-unreadable", b"unreadable.png", "fs", "filesystem", "refuse",
           note="mode 000; readable anyway when the tests run as root, then not checked")


def main():
    global OUT
    if len(sys.argv) != 2:
        sys.exit("usage: make-hostile-corpus.py OUTPUT-FOLDER")
    OUT = os.fsencode(sys.argv[1])
    os.makedirs(OUT, exist_ok=True)
    for make in (make_png, make_jpeg, make_bmp, make_gif, make_tiff, make_pnm, make_others,
                 make_svg, make_misc):
        make()
    with open(os.path.join(OUT, b"manifest.tsv"), "wb") as f:
        f.write(b"# name\tfile\tformat\tkind\texpect\tsize\tneedles\tnote\n")
        for c in CASES:
            size = "%dx%d" % c.size if c.size else "-"
            fields = [c.name, escape(c.file), c.fmt, c.kind, c.expect, size,
                      ",".join(c.needles) or "-", c.note or "-"]
            f.write(("\t".join(fields) + "\n").encode())


if __name__ == "__main__":
    main()
