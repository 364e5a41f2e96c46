#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Read the plotted points of Gavel's solver-scaling figures (bench/README.md,
"Gavel's paper-reported solve times, side by side").

The figures in Gavel's repository
(scheduler/notebooks/figures/evaluation/solver_scaling/*.pdf) are matplotlib
PDFs: one content stream holding the axis ticks (a short line and a text
label each) and, per series, the markers as "1 0 0 1 dx dy cm /Mk Do"
offsets. The axes are log2 in both directions (policy_runtime.ipynb), so two
ticks fix each axis; the others check the fit. Prints, per series, jobs and
seconds of every marker.

Usage: gavel_pdf_points.py FILE.pdf...   (git show the files out of the mirror)
"""
import math
import re
import sys
import zlib


def first_stream(path):
    data = open(path, "rb").read()
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            return zlib.decompress(m.group(1)).decode("latin1")
        except zlib.error:
            continue
    sys.exit(f"{path}: no compressed content stream")


def log2_axis(ticks, what, path):
    if len(ticks) < 2:
        sys.exit(f"{path}: fewer than two {what} ticks")
    (p0, v0), (p1, v1) = ticks[0], ticks[-1]
    k = (p1 - p0) / (math.log2(v1) - math.log2(v0))
    f = lambda p: 2 ** (math.log2(v0) + (p - p0) / k)
    worst = max(abs(math.log2(f(p)) - math.log2(v)) for p, v in ticks)
    if worst > 1e-6:
        sys.exit(f"{path}: {what} ticks are not on a log2 axis (off by {worst:g})")
    return f


def main(paths):
    for path in paths:
        s = first_stream(path)
        label = r"\n\nB\nBT /F1 [\d.]+ Tf\n[\d. ]+Td\n\(([\d.]+)\) Tj"
        xt = re.findall(r"([\d.]+) ([\d.]+) m\n\1 ([\d.]+) l" + label, s)
        yt = re.findall(r"([\d.]+) ([\d.]+) m\n([\d.]+) \2 l" + label, s)
        fx = log2_axis([(float(a), float(v)) for a, _, _, v in xt], "x", path)
        fy = log2_axis([(float(b), float(v)) for _, b, _, v in yt], "y", path)
        print(path)
        blocks = re.findall(r"\nq\n((?:1 0 0 1 [-\d.]+ [-\d.]+ cm /M\d Do\n)+)Q", s)
        for i, blk in enumerate(blocks):
            x = y = 0.0
            pts = []
            for line in blk.strip().split("\n"):
                a = line.split()
                x += float(a[4])
                y += float(a[5])
                pts.append(f"{round(fx(x))}: {fy(y):.3g}")
            print(f"  series {i}: " + ", ".join(pts))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
