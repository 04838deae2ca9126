#!/usr/bin/env python3
"""Writes the three 256x256 pictures of the image lessons (docs/lessons.md).

  lesson-photo-color.png  the bundled astronaut photo (resources/samples,
                          NASA, public domain) reduced 2:1 by averaging
                          each 2x2 block, 8-bit RGB
  lesson-photo-gray.png   the same, to gray with BT.601 weights, rounded
  lesson-circles.png      white discs on black, values 0 and 255 only

Standard library only: PNG is read and written here with zlib. The output
is the same on every run, so the committed files can be checked by running
this again:  build-aux/make-lesson-images.py resources/samples
"""
import struct
import sys
import zlib
from pathlib import Path

SIDE = 256


def read_png(path):
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise SystemExit(f"{path}: only 8-bit RGB or RGBA, not interlaced, is read here")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            corner = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    pixels = [[tuple(row[x * channels:x * channels + 3]) for x in range(width)] for row in rows]
    return width, height, pixels


def write_png(path, width, height, colour, rows):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    png = (b"\x89PNG\r\n\x1a\n"
           + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 9))
           + chunk(b"IEND", b""))
    Path(path).write_bytes(png)


def main():
    outdir = Path(sys.argv[1] if len(sys.argv) > 1 else "resources/samples")
    width, height, src = read_png(outdir / "astronaut.png")
    if width != 2 * SIDE or height != 2 * SIDE:
        raise SystemExit("astronaut.png is expected to be 512x512")

    colour_rows, gray_rows = [], []
    for y in range(SIDE):
        crow, grow = [], []
        for x in range(SIDE):
            block = [src[2 * y + dy][2 * x + dx] for dy in (0, 1) for dx in (0, 1)]
            r, g, b = ((sum(p[c] for p in block) + 2) // 4 for c in range(3))
            crow += [r, g, b]
            # BT.601 in integers: 299/587/114 thousandths, rounded half up.
            grow.append((299 * r + 587 * g + 114 * b + 500) // 1000)
        colour_rows.append(crow)
        gray_rows.append(grow)
    write_png(outdir / "lesson-photo-color.png", SIDE, SIDE, 2, colour_rows)
    write_png(outdir / "lesson-photo-gray.png", SIDE, SIDE, 0, gray_rows)

    # Discs of several sizes, some overlapping, some touching the border, so
    # that the white set is neither convex nor aligned with the 1-D launch's rows.
    discs = [(64, 64, 40), (180, 70, 52), (120, 170, 30), (150, 190, 44), (30, 220, 28),
             (240, 240, 36), (200, 130, 12)]
    circle_rows = []
    for y in range(SIDE):
        circle_rows.append([255 if any((x - cx) ** 2 + (y - cy) ** 2 <= r * r
                                       for cx, cy, r in discs) else 0
                            for x in range(SIDE)])
    write_png(outdir / "lesson-circles.png", SIDE, SIDE, 0, circle_rows)
    white = sum(v == 255 for row in circle_rows for v in row)
    print(f"wrote {outdir}/lesson-photo-color.png, lesson-photo-gray.png, "
          f"lesson-circles.png ({white} white pixels)")


if __name__ == "__main__":
    main()
