#!/usr/bin/env python3
"""Draws Shardscope's icon: two nodes of four GPUs, each GPU a tile split into the shards it holds, on
a dark rounded square. One drawing, three outputs: assets/icons/shardscope.png (256 px, also the
window's), the hicolor theme's PNG sizes under assets/icons/hicolor/NxN/apps/ (each pixel the mean of
samples of the 256 px drawing, so small sizes stay sharp-edged but smooth), and
assets/icons/hicolor/scalable/apps/shardscope.svg (the same shapes as SVG). Standard library only
(zlib), so it runs anywhere; the files are committed and this script documents how they were made.

    scripts/make_icon.py [ASSETS_ICONS_DIR]
"""
import os
import struct
import sys
import zlib

SIZE = 256
SIZES = [16, 24, 32, 48, 64, 128, 256, 512]
BG = (30, 36, 48, 255)
NODE = (52, 62, 80, 255)
SHARDS = [(86, 156, 214), (214, 157, 86), (112, 190, 120), (176, 128, 210)]

# The shapes, in the 256 px drawing's coordinates: (x0, y0, x1, y1, corner radius).
SQUARE = (8, 8, 248, 248, 40)


def nodes():
    for node in range(2):
        nx0, ny0 = 28, 36 + node * 100
        yield node, (nx0, ny0, nx0 + 200, ny0 + 84, 14)


def gpus(node, box):
    nx0, ny0 = box[0], box[1]
    for gpu in range(4):
        gx0, gy0 = nx0 + 10 + gpu * 47, ny0 + 12
        yield gpu, (gx0, gy0, gx0 + 39, gy0 + 60, 6)


def rounded(x, y, box):
    x0, y0, x1, y1, r = box
    if x < x0 or x >= x1 or y < y0 or y >= y1:
        return False
    cx = min(max(x, x0 + r), x1 - 1 - r)
    cy = min(max(y, y0 + r), y1 - 1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def pixel(x, y):
    if not rounded(x, y, SQUARE):
        return (0, 0, 0, 0)
    colour = BG
    for node, box in nodes():
        if rounded(x, y, box):
            colour = NODE
        for gpu, tile in gpus(node, box):
            if rounded(x, y, tile):
                # Each GPU holds one shard of every colour in a different order: the tile's rows.
                band = int((y - tile[1]) * 4 // 60)
                r, g, b = SHARDS[(band + gpu + node) % 4]
                colour = (r, g, b, 255)
    return colour


def sampled_pixel(px, py, size):
    """The mean of k x k samples of the 256 px drawing over the pixel, colours weighted by alpha."""
    if size == SIZE:
        return pixel(px, py)
    k = max(2, 2 * SIZE // size)
    scale = SIZE / size
    acc = [0.0, 0.0, 0.0, 0.0]
    for i in range(k):
        for j in range(k):
            r, g, b, a = pixel((px + (i + 0.5) / k) * scale - 0.5, (py + (j + 0.5) / k) * scale - 0.5)
            acc[0] += r * a
            acc[1] += g * a
            acc[2] += b * a
            acc[3] += a
    if acc[3] == 0:
        return (0, 0, 0, 0)
    return (round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(acc[3] / (k * k)))


def png(size):
    rows = [[sampled_pixel(x, y, size) for x in range(size)] for y in range(size)]
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def svg():
    def rect(box, fill, extra=""):
        x0, y0, x1, y1, r = box
        return (f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="{r}" ry="{r}" '
                f'fill="{fill}"{extra}/>')

    def hex_colour(c):
        return "#%02x%02x%02x" % c[:3]

    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">',
             "<title>Shardscope</title>", "<defs>"]
    shapes = []
    for node, box in nodes():
        shapes.append(rect(box, hex_colour(NODE)))
        for gpu, tile in gpus(node, box):
            clip = f"gpu{node}{gpu}"
            parts.append(f'<clipPath id="{clip}">{rect(tile, "#000")}</clipPath>')
            x0, y0, x1, y1, _ = tile
            for band in range(4):
                colour = SHARDS[(band + gpu + node) % 4]
                shapes.append(f'<rect x="{x0}" y="{y0 + band * 15}" width="{x1 - x0}" height="15" '
                              f'fill="{hex_colour(colour)}" clip-path="url(#{clip})"/>')
    parts.append("</defs>")
    parts.append(rect(SQUARE, hex_colour(BG)))
    parts.extend(shapes)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    icons = sys.argv[1] if len(sys.argv) > 1 else "assets/icons"
    write(os.path.join(icons, "shardscope.png"), png(SIZE))
    for size in SIZES:
        write(os.path.join(icons, "hicolor", f"{size}x{size}", "apps", "shardscope.png"), png(size))
    write(os.path.join(icons, "hicolor", "scalable", "apps", "shardscope.svg"), svg().encode())
