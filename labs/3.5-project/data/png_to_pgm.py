#!/usr/bin/env python3
"""png_to_pgm.py - converts an 8-bit RGB or greyscale PNG to an 8-bit greyscale binary PGM (P5).

Stdlib only (zlib, struct): the PNG is decoded here, per the PNG specification (W3C, "Portable
Network Graphics (PNG) Specification", 2nd ed.: chunk layout section 5, filter types 0-4 and the
Paeth predictor section 9), so the course needs no imaging library. Supported: bit depth 8,
colour types 0 (grey), 2 (RGB), 4 (grey + alpha), 6 (RGBA), no interlacing; alpha is ignored.

Luminance: ITU-R BT.601 luma weights, Y = 0.299 R + 0.587 G + 0.114 B, computed in integers as
(299 R + 587 G + 114 B + 500) // 1000 (round half up), which stays in [0, 255].

Usage: python3 png_to_pgm.py IN.png OUT.pgm
"""
import struct
import sys
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel (bit depth 8)


def read_chunks(data):
    """Yields (type, payload) for every chunk, checking each CRC."""
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("not a PNG file (bad signature)")
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        ctype = data[pos + 4 : pos + 8]
        payload = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        if zlib.crc32(ctype + payload) & 0xFFFFFFFF != crc:
            raise ValueError(f"CRC mismatch in chunk {ctype!r}")
        yield ctype, payload
        pos += 12 + length
        if ctype == b"IEND":
            return


def paeth(a, b, c):
    """The Paeth predictor (PNG spec, 9.4): a = left, b = up, c = upper left."""
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    if pb <= pc:
        return b
    return c


def unfilter(raw, width, height, bpp):
    """Undoes the per-scanline filters; returns `height` bytearrays of width * bpp samples."""
    stride = width * bpp
    rows = []
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1 : pos + 1 + stride])
        pos += 1 + stride
        if ftype == 0:  # None
            pass
        elif ftype == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:  # Up
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:  # Paeth
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upleft = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 0xFF
        else:
            raise ValueError(f"unknown PNG filter type {ftype}")
        rows.append(line)
        prev = line
    return rows


def decode_png(data):
    """Returns (width, height, channels, rows) of an 8-bit non-interlaced PNG."""
    header = None
    idat = []
    for ctype, payload in read_chunks(data):
        if ctype == b"IHDR":
            header = struct.unpack(">IIBBBBB", payload)
        elif ctype == b"IDAT":
            idat.append(payload)
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, ctype, _compression, _filter, interlace = header
    if depth != 8 or ctype not in CHANNELS or interlace != 0:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {ctype}, interlace {interlace}")
    bpp = CHANNELS[ctype]
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != height * (1 + width * bpp):
        raise ValueError("image data has the wrong length")
    return width, height, bpp, unfilter(raw, width, height, bpp)


def luma_bt601(r, g, b):
    """ITU-R BT.601 luma of 8-bit R, G, B, rounded half up to an integer in [0, 255]."""
    return (299 * r + 587 * g + 114 * b + 500) // 1000


def to_grey(width, bpp, rows):
    out = bytearray()
    for line in rows:
        for x in range(width):
            px = line[x * bpp : (x + 1) * bpp]
            out.append(px[0] if bpp <= 2 else luma_bt601(px[0], px[1], px[2]))
    return bytes(out)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: png_to_pgm.py IN.png OUT.pgm\n")
        return 2
    with open(argv[1], "rb") as f:
        width, height, bpp, rows = decode_png(f.read())
    grey = to_grey(width, bpp, rows)
    with open(argv[2], "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (width, height))
        f.write(grey)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
