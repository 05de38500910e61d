#!/usr/bin/env python3
"""Draws Shardscope's icon (assets/icons/shardscope.png): two nodes of four GPUs, each GPU a tile split
into the shards it holds, on a dark rounded square. Standard library only (zlib), so it runs anywhere;
the PNG is committed and this script documents how it was made."""
import struct
import sys
import zlib

SIZE = 256
BG = (30, 36, 48, 255)
NODE = (52, 62, 80, 255)
SHARDS = [(86, 156, 214), (214, 157, 86), (112, 190, 120), (176, 128, 210)]


def rounded(x, y, x0, y0, x1, y1, r):
    if x < x0 or x >= x1 or y < y0 or y >= y1:
        return False
    cx = min(max(x, x0 + r), x1 - 1 - r)
    cy = min(max(y, y0 + r), y1 - 1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def pixel(x, y):
    if not rounded(x, y, 8, 8, 248, 248, 40):
        return (0, 0, 0, 0)
    colour = BG
    for node in range(2):
        nx0, ny0 = 28, 36 + node * 100
        if rounded(x, y, nx0, ny0, nx0 + 200, ny0 + 84, 14):
            colour = NODE
        for gpu in range(4):
            gx0, gy0 = nx0 + 10 + gpu * 47, ny0 + 12
            if rounded(x, y, gx0, gy0, gx0 + 39, gy0 + 60, 6):
                # Each GPU holds one shard of every colour in a different order: the tile's rows.
                band = (y - gy0) * 4 // 60
                r, g, b = SHARDS[(band + gpu + node) % 4]
                colour = (r, g, b, 255)
    return colour


def png(width, height, rgba_rows):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rgba_rows)
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "assets/icons/shardscope.png"
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, [[pixel(x, y) for x in range(SIZE)] for y in range(SIZE)]))
