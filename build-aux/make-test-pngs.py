#!/usr/bin/env python3
"""Writes the small PNG files of tests/data/ (run by hand; the outputs are committed).

Every file is built byte by byte with zlib and struct, so the tests know the
exact pixel values without trusting any image library:

  gray8.png        4×2, 8-bit gray           values below
  gray1.png        8×1, 1-bit gray           0 and 255 alternating
  gray16.png       3×1, 16-bit gray          v·257 (so 16→8 bits is v by truncation or rounding)
  graya8.png       2×1, 8-bit gray + alpha
  rgb8.png         3×2, 8-bit RGB
  rgb16.png        2×1, 16-bit RGB           v·257 per channel
  rgba8.png        2×2, 8-bit RGBA
  palette.png      4×1, 8-bit palette with a tRNS chunk (entry 3 half transparent)
  palette2.png     4×1, 2-bit palette without tRNS
  absurd.png       a valid header claiming 100000×100000 RGB, a tiny IDAT and IEND
  huge-side.png    a valid header claiming 16385×1 gray (one past the limit)

The expected RGBA8 values are repeated in tests/test-image.c.
"""

import os
import struct
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width, height, bit_depth, color_type, rows, extra=b"", idat=None):
    """rows: a list of raw scanlines (bytes, without the filter byte)."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    if idat is None:
        raw = b"".join(b"\x00" + r for r in rows)
        idat = zlib.compress(raw, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def pack_bits(values, depth):
    out = bytearray()
    per_byte = 8 // depth
    for i in range(0, len(values), per_byte):
        byte = 0
        group = values[i:i + per_byte]
        for j, v in enumerate(group):
            byte |= v << (8 - depth * (j + 1))
        out.append(byte)
    return bytes(out)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
    files = {}

    files["gray8.png"] = png(4, 2, 8, 0, [bytes([0, 1, 127, 128]), bytes([200, 254, 255, 37])])
    files["gray1.png"] = png(8, 1, 1, 0, [pack_bits([0, 1, 0, 1, 1, 0, 0, 1], 1)])
    files["gray16.png"] = png(3, 1, 16, 0, [struct.pack(">HHH", 0 * 257, 77 * 257, 255 * 257)])
    files["graya8.png"] = png(2, 1, 8, 4, [bytes([10, 255, 200, 0])])
    files["rgb8.png"] = png(3, 2, 8, 2, [bytes([255, 0, 0, 0, 255, 0, 0, 0, 255]),
                                         bytes([1, 2, 3, 100, 150, 200, 255, 255, 255])])
    files["rgb16.png"] = png(2, 1, 16, 2, [struct.pack(">HHHHHH", 10 * 257, 20 * 257, 30 * 257,
                                                       250 * 257, 128 * 257, 1 * 257)])
    files["rgba8.png"] = png(2, 2, 8, 6, [bytes([1, 2, 3, 4, 250, 251, 252, 253]),
                                          bytes([0, 0, 0, 0, 255, 255, 255, 255])])
    plte = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30])
    files["palette.png"] = png(4, 1, 8, 3, [bytes([3, 2, 1, 0])],
                               extra=chunk(b"PLTE", plte)
                               + chunk(b"tRNS", bytes([255, 255, 255, 128])))
    files["palette2.png"] = png(4, 1, 2, 3, [pack_bits([0, 1, 2, 3], 2)],
                                extra=chunk(b"PLTE", plte))
    # A header no decoder should act on: 100000×100000×3 bytes is 30 GB.
    files["absurd.png"] = png(100000, 100000, 8, 2, [], idat=zlib.compress(b"\x00" * 64))
    files["huge-side.png"] = png(16385, 1, 8, 0, [bytes(16385)])

    os.makedirs(out_dir, exist_ok=True)
    for name, data in sorted(files.items()):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
