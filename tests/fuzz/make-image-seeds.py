#!/usr/bin/env python3
"""Writes the small images fuzz-image starts from into seeds/fuzz-image/.

Standard library only: BMP (24-bit, 32-bit, 8-bit palette, RLE8, 1-bit),
GIF (still and two frames), PNM (P1 to P6), TIFF (RGB, both byte orders),
TGA (plain and RLE), ICO, XPM and XBM, each 8x6 pixels. The PNGs are copied
from tests/data; the JPEG comes from Kernelscope itself:
  kernelscope-cli run invert --in testcard:8x6 --engine cpu --out seeds/fuzz-image/jpeg.jpg
"""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "seeds", "fuzz-image")
W, H = 8, 6


def pixel(x, y):
    return (x * 255 // (W - 1), y * 255 // (H - 1), 128)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def bmp(bits, palette=None, rows=None, compression=0):
    """rows: the pixel data, bottom row first, each padded to 4 bytes."""
    pal = b"".join(bytes((b, g, r, 0)) for r, g, b in palette or [])
    data = b"".join(rows)
    offset = 14 + 40 + len(pal)
    header = struct.pack("<2sIHHI", b"BM", offset + len(data), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, W, H, 1, bits, compression, len(data), 2835, 2835,
                       len(palette or []), 0)
    return header + info + pal + data


def pad(row):
    return row + b"\0" * (-len(row) % 4)


def bmp_seeds():
    write("bmp24.bmp", bmp(24, rows=[pad(b"".join(bytes(pixel(x, y)[::-1]) for x in range(W)))
                                     for y in reversed(range(H))]))
    write("bmp32.bmp", bmp(32, rows=[b"".join(bytes(pixel(x, y)[::-1]) + b"\x80"
                                              for x in range(W)) for y in reversed(range(H))]))
    palette = [(i * 36, 255 - i * 36, 64) for i in range(8)]
    write("bmp8.bmp", bmp(8, palette, [pad(bytes((x + y) % 8 for x in range(W)))
                                       for y in reversed(range(H))]))
    rle = b""
    for y in range(H):
        rle += bytes((4, y % 8, 4, (y + 1) % 8)) + b"\0\0"
    rle += b"\0\1"
    write("bmp-rle8.bmp", bmp(8, palette, [rle], compression=1))
    write("bmp1.bmp", bmp(1, [(0, 0, 0), (255, 255, 255)],
                          [pad(bytes((0xAA if y % 2 else 0x55,))) for y in range(H)]))


def gif_image(indices):
    """LZW with a clear code every two pixels: the code width stays 3 bits."""
    clear, end = 4, 5
    codes = []
    for i in range(0, len(indices), 2):
        codes.append(clear)
        codes.extend(indices[i:i + 2])
    codes.append(end)
    bits = acc = 0
    out = bytearray()
    for c in codes:
        acc |= c << bits
        bits += 3
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    blocks = b""
    for i in range(0, len(out), 255):
        chunk = bytes(out[i:i + 255])
        blocks += bytes((len(chunk),)) + chunk
    return (b"\x2c" + struct.pack("<HHHHB", 0, 0, W, H, 0) + b"\x02" + blocks + b"\0")


def gif_seeds():
    head = b"GIF89a" + struct.pack("<HHBBB", W, H, 0x81, 0, 0)
    colours = bytes((0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255))
    pixels = [(x + y) % 4 for y in range(H) for x in range(W)]
    write("gif.gif", head + colours + gif_image(pixels) + b"\x3b")
    gce = b"\x21\xf9\x04\x04\x0a\x00\x01\x00"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    flipped = [(x + y + 1) % 4 for y in range(H) for x in range(W)]
    write("anim.gif", head + colours + loop + gce + gif_image(pixels) + gce
          + gif_image(flipped) + b"\x3b")


def pnm_seeds():
    rgb = b"".join(bytes(pixel(x, y)) for y in range(H) for x in range(W))
    gray = bytes(pixel(x, y)[0] for y in range(H) for x in range(W))
    write("p6.ppm", b"P6\n%d %d\n255\n" % (W, H) + rgb)
    write("p5.pgm", b"P5\n# a comment\n%d %d\n255\n" % (W, H) + gray)
    write("p4.pbm", b"P4\n%d %d\n" % (W, H) + bytes((0x5A,) * H))
    write("p3.ppm", b"P3\n%d %d\n255\n" % (W, H)
          + b" ".join(b"%d" % v for v in rgb) + b"\n")
    write("p2.pgm", b"P2\n%d %d\n15\n" % (W, H) + b" ".join(b"%d" % (v % 16) for v in gray) + b"\n")
    write("p1.pbm", b"P1\n%d %d\n" % (W, H)
          + b"\n".join(b" ".join(b"%d" % ((x + y) % 2) for x in range(W)) for y in range(H))
          + b"\n")


def tiff(order):
    rgb = b"".join(bytes(pixel(x, y)) for y in range(H) for x in range(W))
    entries = [  # tag, type (3 short, 4 long), count, value
        (256, 3, 1, W), (257, 3, 1, H), (258, 3, 3, None), (259, 3, 1, 1), (262, 3, 1, 2),
        (273, 4, 1, None), (277, 3, 1, 3), (278, 3, 1, H), (279, 4, 1, len(rgb)),
        (284, 3, 1, 1),
    ]
    ifd_at = 8
    ifd_size = 2 + 12 * len(entries) + 4
    bps_at = ifd_at + ifd_size
    data_at = bps_at + 6
    out = struct.pack(order + "2sHI", b"II" if order == "<" else b"MM", 42, ifd_at)
    out += struct.pack(order + "H", len(entries))
    for tag, typ, count, value in entries:
        if tag == 258:
            value = bps_at
            out += struct.pack(order + "HHII", tag, typ, count, value)
        elif tag == 273:
            out += struct.pack(order + "HHII", tag, typ, count, data_at)
        elif typ == 3:
            out += struct.pack(order + "HHIHH", tag, typ, count, value, 0)
        else:
            out += struct.pack(order + "HHII", tag, typ, count, value)
    out += struct.pack(order + "I", 0)
    out += struct.pack(order + "HHH", 8, 8, 8)
    return out + rgb


def tga_seeds():
    head = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, W, H, 24, 0x20)
    rows = b"".join(bytes(pixel(x, y)[::-1]) for y in range(H) for x in range(W))
    write("tga.tga", head + rows)
    head = struct.pack("<BBBHHBHHHHBB", 0, 0, 10, 0, 0, 0, 0, 0, W, H, 24, 0x20)
    rle = b""
    for y in range(H):
        rle += bytes((0x80 | 3,)) + bytes(pixel(0, y)[::-1])
        rle += bytes((3,)) + b"".join(bytes(pixel(x, y)[::-1]) for x in range(4, 8))
    write("tga-rle.tga", head + rle)


def ico_seed():
    xor = b"".join(bytes(pixel(x, y)[::-1]) + b"\xff" for y in reversed(range(H))
                   for x in range(W))
    mask = b"\0\0\0\0" * H
    info = struct.pack("<IiiHHIIiiII", 40, W, 2 * H, 1, 32, 0, len(xor) + len(mask), 0, 0, 0, 0)
    image = info + xor + mask
    head = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", W, H, 0, 0, 1, 32, len(image), 6 + 16)
    write("ico.ico", head + entry + image)


def text_seeds():
    rows = ['"%s",' % "".join(".#"[(x + y) % 2] for x in range(W)) for y in range(H)]
    rows[-1] = rows[-1][:-1]
    xpm = ("/* XPM */\nstatic char *seed[] = {\n\"%d %d 2 1\",\n\". c #FF0000\",\n"
           "\"# c None\",\n%s\n};\n") % (W, H, "\n".join(rows))
    write("xpm.xpm", xpm.encode())
    xbm = ("#define seed_width %d\n#define seed_height %d\nstatic unsigned char seed_bits[] = {\n"
           "%s };\n") % (W, H, ", ".join("0x%02x" % (0x55 << (y % 2) & 0xFF) for y in range(H)))
    write("xbm.xbm", xbm.encode())


def main():
    os.makedirs(OUT, exist_ok=True)
    data = os.path.join(HERE, "..", "data")
    for name in ("gray8", "gray1", "gray16", "graya8", "rgb8", "rgba8", "palette", "palette2",
                 "absurd"):
        shutil.copy(os.path.join(data, name + ".png"), OUT)
    bmp_seeds()
    gif_seeds()
    pnm_seeds()
    write("tiff-le.tif", tiff("<"))
    write("tiff-be.tif", tiff(">"))
    tga_seeds()
    ico_seed()
    text_seeds()


if __name__ == "__main__":
    main()
