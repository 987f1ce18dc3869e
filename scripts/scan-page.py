#!/usr/bin/env python3
"""Make an image-only PDF from one page of a PDF, as a scanner would: the page is rendered
to grey pixels by poppler's pdftoppm, and the pixels alone are wrapped in a new one-page PDF
(no text layer is left).

    scripts/scan-page.py IN.pdf PAGE OUT.pdf [DPI]      (DPI: 300 by default)
"""
import os
import subprocess
import sys
import tempfile
import zlib


def render(pdf, page, dpi):
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "page")
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-singlefile",
                        "-f", str(page), "-l", str(page), pdf, root], check=True)
        data = open(root + ".pgm", "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval, separated by whitespace
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    assert fields[0] == b"P5" and fields[3] == b"255", "an 8-bit PGM"
    return int(fields[1]), int(fields[2]), data[pos + 1:]


def wrap(width, height, pixels, dpi):
    w_pt, h_pt = width * 72 / dpi, height * 72 / dpi
    image = zlib.compress(pixels, 9)
    content = f"q {w_pt:.2f} 0 0 {h_pt:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt:.2f} {h_pt:.2f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} "
        f"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode "
        f"/Length {len(image)} >>\nstream\n".encode() + image + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    pdf, page, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    dpi = int(sys.argv[4]) if len(sys.argv) == 5 else 300
    width, height, pixels = render(pdf, page, dpi)
    with open(out, "wb") as f:
        f.write(wrap(width, height, pixels, dpi))


if __name__ == "__main__":
    main()
