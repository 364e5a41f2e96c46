#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""plot_check.py — `tarmac plot` on real results.

- A run file and a comparison file give non-empty PNG and SVG pictures, each
  with its .dat and .gp; gnuplot says nothing (no warnings).
- The embedded default run (the one `make run` writes) gives every run figure,
  per pool and per type, shape-blocked idle time and services included; a real
  openb packing replay (when TARMAC_DATA_DIR has the trace) gives `packing`,
  and a packing sweep's merged file `sweep_packing`.
- Every PNG is a valid PNG: the signature, then an IHDR chunk of 13 bytes
  with a correct CRC, whose width and height are those the script asks for.
- Every SVG parses as XML with an <svg> root whose viewBox is the asked size.
- The scripts stand alone: run with gnuplot in their folder (no tarmac), they
  draw the same picture again, byte for byte.
- Without gnuplot in PATH: exit 69, a message saying so, the data and scripts
  written (and drawable later), no picture. A gnuplot that fails: exit 69
  (the program tarmac runs failed; 70 is for tarmac's own bugs) with its
  message. A file that is no tarmac result: exit 66.
"""
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

import h5py

from checklib import BIN, SRC, check, failures

SCEN = os.path.join(SRC, "tests", "analysis_small.json")
GNUPLOT = shutil.which("gnuplot")


def tarmac(*args, code=0, env=None):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, env=env)
    check(p.returncode == code, f"tarmac {' '.join(args)}: exit {p.returncode}, want {code}: {p.stderr}")
    return p


def png_size(path):
    """(width, height) of a valid PNG; fails the test otherwise."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG signature")
    length, kind = struct.unpack(">I4s", data[8:16])
    check(kind == b"IHDR" and length == 13, f"{path}: first chunk {kind!r} of {length} bytes, want IHDR of 13")
    body = data[16:16 + 13]
    crc = struct.unpack(">I", data[29:33])[0]
    check(zlib.crc32(b"IHDR" + body) == crc, f"{path}: IHDR CRC mismatch")
    w, h, depth, colour = struct.unpack(">IIBB", body[:10])
    check(depth == 8 and colour in (2, 6), f"{path}: bit depth {depth}, colour type {colour}")
    iend = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    check(data[-12:] == iend, f"{path}: does not end with an IEND chunk")
    return w, h


def asked_size(gp):
    with open(gp) as f:
        m = re.search(r"^set terminal \w+ size (\d+),(\d+)", f.read(), re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


def figures(folder, ext):
    return sorted(n[:-len(ext) - 1] for n in os.listdir(folder) if n.endswith("." + ext))


with tempfile.TemporaryDirectory() as d:
    run = os.path.join(d, "run.h5")
    cmp = os.path.join(d, "cmp.h5")
    tarmac("run", SCEN, "-o", run, "-q")
    tarmac("compare", SCEN, "--policies", "fifo-first-fit,fifo-best-fit", "--replications", "3",
           "-o", cmp, "-q")
    RUN_FIGS = {"utilization", "utilization_pools", "utilization_types", "shape_blocked", "services",
                "wait_cdf", "slowdown", "cost", "ledger"}
    want = {run: RUN_FIGS, cmp: {"compare", "compare_diff", "compare_classes", "compare_classes_diff"}}

    for fmt in ("png", "svg"):
        for res, names in want.items():
            out = os.path.join(d, f"{os.path.basename(res)[:-3]}-{fmt}")
            p = tarmac("plot", res, "-o", out, "--format", fmt)
            check(p.stderr == "", f"plot {res} {fmt}: stderr {p.stderr!r}")
            got = set(figures(out, fmt))
            check(got == names, f"{res} {fmt}: figures {sorted(got)}, want {sorted(names)}")
            for n in got:
                pic, gp, dat = (os.path.join(out, f"{n}.{e}") for e in (fmt, "gp", "dat"))
                check(os.path.getsize(dat) > 100 and os.path.getsize(gp) > 100, f"{n}: data or script empty")
                check(f"wrote {out}/{n}.{fmt}" in p.stdout, f"{n}: not reported on stdout")
                size = asked_size(gp)
                check(size is not None, f"{gp}: no terminal size")
                if fmt == "png":
                    check(5000 < os.path.getsize(pic) < 2_000_000, f"{pic}: {os.path.getsize(pic)} bytes")
                    check(png_size(pic) == size, f"{pic}: {png_size(pic)} pixels, script asks {size}")
                else:
                    root = ET.parse(pic).getroot()
                    check(root.tag.endswith("svg"), f"{pic}: root {root.tag}")
                    vb = root.get("viewBox", "")
                    check(vb.split() == ["0", "0", str(size[0]), str(size[1])], f"{pic}: viewBox {vb!r}, script asks {size}")
                    check(len(list(root.iter())) > 50, f"{pic}: almost empty")
                # the script alone draws the same picture again
                with open(pic, "rb") as f:
                    first = f.read()
                os.remove(pic)
                g = subprocess.run([GNUPLOT, f"{n}.gp"], cwd=out, capture_output=True, text=True)
                check(g.returncode == 0 and g.stderr == "", f"gnuplot {n}.gp: exit {g.returncode}: {g.stderr}")
                with open(pic, "rb") as f:
                    check(f.read() == first, f"{pic}: redrawn from its script, it differs")

    # PDF: the same figures, as PDF files
    out = os.path.join(d, "run-pdf")
    tarmac("plot", run, "-o", out, "--format", "pdf", "-q")
    for n in want[run]:
        with open(os.path.join(out, f"{n}.pdf"), "rb") as f:
            data = f.read()
        check(data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:] and len(data) > 5000, f"{n}.pdf")

    # the titles name the scenario; the utilization script plots the queue
    with open(os.path.join(d, "run-png", "utilization.gp")) as f:
        gp = f.read()
    check("small mixed fleet" in gp and "queue length" in gp and "GPU utilization (%)" in gp, "utilization script")
    # --only, --list
    p = tarmac("plot", run, "-o", os.path.join(d, "only"), "--only", "wait_cdf")
    check(figures(os.path.join(d, "only"), "png") == ["wait_cdf"], "--only wait_cdf")
    tarmac("plot", run, "--only", "nosuch", code=64)
    p = tarmac("plot", "--list", run)
    check(re.search(r"^utilization\s+yes", p.stdout, re.M) and re.search(r"^compare\s+no", p.stdout, re.M), f"--list: {p.stdout}")
    # the default folder: next to the file
    tarmac("plot", run, "-q")
    check(figures(os.path.join(d, "run-plots"), "png") == sorted(want[run]), "default folder run-plots")

    # no gnuplot in PATH
    empty = os.path.join(d, "empty-path")
    os.mkdir(empty)
    env = dict(os.environ, PATH=empty)
    out = os.path.join(d, "nognuplot")
    p = tarmac("plot", run, "-o", out, env=env, code=69)
    check("gnuplot" in p.stderr and "not found in PATH" in p.stderr and "apt-get install gnuplot" in p.stderr,
          f"missing-gnuplot message: {p.stderr}")
    check(figures(out, "png") == [], "pictures without gnuplot")
    check(figures(out, "gp") == sorted(want[run]) and figures(out, "dat") == sorted(want[run]),
          f"data and scripts without gnuplot: {os.listdir(out)}")
    for n in want[run]:  # and they draw, once gnuplot is there
        g = subprocess.run([GNUPLOT, f"{n}.gp"], cwd=out, capture_output=True, text=True)
        check(g.returncode == 0 and os.path.getsize(os.path.join(out, f"{n}.png")) > 5000, f"drawing {n} later")

    # a gnuplot that fails, and one that draws nothing
    fake = os.path.join(d, "fake")
    os.mkdir(fake)
    gp = os.path.join(fake, "gnuplot")
    with open(gp, "w") as f:
        f.write('#!/bin/sh\necho "\\"$1\\" line 7: undefined variable: nosuch" >&2\nexit 3\n')
    os.chmod(gp, stat.S_IRWXU)
    p = tarmac("plot", run, "-o", os.path.join(d, "fails"), env=dict(os.environ, PATH=fake), code=69)
    check("status 3" in p.stderr and "undefined variable: nosuch" in p.stderr, f"failing gnuplot: {p.stderr}")
    with open(gp, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    p = tarmac("plot", run, "-o", os.path.join(d, "silent"), env=dict(os.environ, PATH=fake), code=69)
    check("wrote no picture" in p.stderr, f"gnuplot without a picture: {p.stderr}")

    # not a tarmac result; no such file
    other = os.path.join(d, "other.h5")
    with h5py.File(other, "w") as f:
        f["x"] = [1, 2, 3]
    p = tarmac("plot", other, "-o", os.path.join(d, "other"), code=66)
    check("nothing to plot" in p.stderr, f"non-result message: {p.stderr}")
    tarmac("plot", os.path.join(d, "nosuch.h5"), code=66)

    # the embedded default scenario, as `make run` writes it, and a real
    # packing replay: valid, non-empty pictures of every figure
    default = os.path.join(d, "default.h5")
    tarmac("run", "-o", default, "-q")
    out = os.path.join(d, "default-plots")
    p = tarmac("plot", default, "-o", out)
    check(p.stderr == "", f"plot default: stderr {p.stderr!r}")
    check(set(figures(out, "png")) == RUN_FIGS, f"default run figures: {figures(out, 'png')}")
    for n in figures(out, "png"):
        pic = os.path.join(out, f"{n}.png")
        check(png_size(pic) == asked_size(os.path.join(out, f"{n}.gp")), f"{pic}: size")
        check(os.path.getsize(pic) > 20000, f"{pic}: {os.path.getsize(pic)} bytes")
    with open(os.path.join(out, "services.gp")) as f:
        gp = f.read()
    check("assistant" in gp and "code-completion" in gp and "title 'target 99 %'" in gp,
          "default services: both services and their SLO target")
    with open(os.path.join(out, "utilization_pools.gp")) as f:
        gp = f.read()
    check(all(f"title '{x}'" in gp for x in ("h100", "h100-reserved", "a100", "l40s", "l4")),
          "default utilization_pools: every pool")
    ob = os.path.join(os.environ.get("TARMAC_DATA_DIR", ""), "alibaba-gpu-v2023-openb")
    if os.path.isdir(ob):
        pack = os.path.join(d, "pack.h5")
        tarmac("replay", os.path.join(ob, "openb_pod_list_gpushare40.csv"), "--format", "openb",
               "--protocol", "pack", "--nodes", os.path.join(ob, "openb_node_list_gpu_node.csv"),
               "--policy", "order=fifo placement=first-fit backfill=none",
               "--policy", "order=fifo placement=best-fit backfill=none",
               "--seeds", "2", "--target", "110", "--step", "5", "-o", pack, "-q")
        out = os.path.join(d, "pack-plots")
        p = tarmac("plot", pack, "-o", out)
        check(p.stderr == "", f"plot packing: stderr {p.stderr!r}")
        check(figures(out, "png") == ["packing"], f"packing figures: {figures(out, 'png')}")
        pic = os.path.join(out, "packing.png")
        if os.path.exists(pic):
            check(png_size(pic) == (1400, 800) and os.path.getsize(pic) > 20000, f"{pic}")
            with open(os.path.join(out, "packing.gp")) as f:
                gp = f.read()
            check("perfect packing (y = x)" in gp and "placement=best-fit" in gp
                  and "mean over 2 seeds" in gp, "packing script")
        # a packing sweep over the two policies: its merged file's mean curves
        sweep = os.path.join(d, "fgd.json")
        with open(sweep, "w") as f:
            json.dump({"kind": "pack", "replications": 2,
                       "pack": {"nodes": "data:alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv",
                                "pods": "data:alibaba-gpu-v2023-openb/openb_pod_list_gpushare40.csv",
                                "target_pct": 110, "step_pct": 10, "seed": 7},
                       "grid": {"policy": ["order=fifo placement=first-fit backfill=none",
                                           "order=fifo placement=best-fit backfill=none"]}}, f)
        tarmac("sweep", sweep, "-j", "2", "-q")
        out = os.path.join(d, "sweep-plots")
        p = tarmac("plot", os.path.join(d, "fgd.points", "merged.h5"), "-o", out)
        check(p.stderr == "", f"plot sweep: stderr {p.stderr!r}")
        check(figures(out, "png") == ["sweep", "sweep_packing"],
              f"sweep figures: {figures(out, 'png')}")
        # the key results at the target against the policy, the only parameter
        with open(os.path.join(out, "sweep.gp")) as f:
            gp = f.read()
        check("set xtics ('placement=first-fit' 0, 'placement=best-fit' 1)" in gp
              and "GPU allocation at the target (%)" in gp, "sweep script")
        pic = os.path.join(out, "sweep_packing.png")
        if os.path.exists(pic):
            check(png_size(pic) == (1400, 800) and os.path.getsize(pic) > 20000, f"{pic}")
            with open(os.path.join(out, "sweep_packing.gp")) as f:
                gp = f.read()
            check("title 'order=fifo placement=best-fit backfill=none'" in gp and "fgd.json" in gp,
                  "sweep_packing script: a line per combination, the sweep named")
            check("bands: lowest to highest replication" in gp and "filledcurves" in gp,
                  "sweep_packing script: the spread over the replications")
        # the bands: per combination, the lowest and highest of its points' own
        # curves, recomputed here from /sweep/curves
        with h5py.File(os.path.join(d, "fgd.points", "merged.h5")) as f:
            alloc = f["sweep/curves/alloc_pct"][()]
            combo = f["sweep/points/combo"][()]
        with open(os.path.join(out, "sweep_packing.dat")) as f:
            blocks = f.read().split("\n\n\n")
        for k in range(2):
            rows = [r.split() for r in blocks[k].split("\n") if r and not r.startswith("#")]
            lo = [float(r[2]) for r in rows]
            hi = [float(r[3]) for r in rows]
            sel = alloc[combo == k]
            check(len(sel) == 2 and all(abs(a - b) < 1e-6 for a, b in zip(lo, sel.min(axis=0)))
                  and all(abs(a - b) < 1e-6 for a, b in zip(hi, sel.max(axis=0))),
                  f"sweep_packing band of combination {k}")
    else:
        print(f"no openb trace in {ob}: the packing figures are checked by test_plot only")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("plot: all checks passed")
