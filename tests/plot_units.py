#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""plot_units.py — `tarmac plot` stays readable for every result kind.

Reads the scripts and data `tarmac plot` writes (docs/plots.md):

- Time axes in the unit the span asks for: hours for a 2-day run, days for
  3.5 days and for a year, named in the axis label.
- No `10^5`-style tick labels anywhere: the breakeven figure's log axes are
  labelled 10B / 1T tokens and $1k / $100k; GPU-hours, counts and money past
  10^4 are shown in k or M with the prefix in the label, and no title prints
  a number in e-notation.
- Many classes (40, with long names): wait_cdf, slowdown and the ledger draw
  at most 10 entries of classes (9 with the most GPU-hours, one "other 31
  classes"), every label at most 28 characters; compare_classes comes in
  pages of at most 6 classes, at most 4 pages, each row of panels at least
  180 pixels high, and every page's PNG is drawn at the size its script asks.
- Confidence intervals never leave the quantity's range: in compare (means)
  and sweep data, no interval end below 0, and none above 100 % for
  allocation utilization; a sweep without replications draws without a
  gnuplot warning.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

from checklib import BIN, SRC, check, failures

SMALL = os.path.join(SRC, "tests", "golden", "small.json")


def tarmac(*args, cwd=None):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd)
    check(p.returncode == 0, f"tarmac {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def plot(h5, out):
    p = tarmac("plot", h5, "-o", out)
    check(p.stderr == "", f"plot {h5}: stderr {p.stderr!r}")
    return p


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        check(False, f"{path}: {e}")
        return ""


def png_size(path):
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError as e:
        check(False, f"{path}: {e}")
        return None
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def titles(gp):
    """The key entries of the plot commands: title '...' after a using."""
    return re.findall(r"(?<!set )title '((?:[^']|'')*)'", gp)


def data_blocks(dat):
    return [[r.split() for r in b.split("\n") if r.strip() and not r.startswith("#")]
            for b in dat.split("\n\n\n") if b.strip()]


def no_power_labels(folder):
    for n in sorted(os.listdir(folder)):
        if n.endswith(".gp"):
            gp = read(os.path.join(folder, n))
            check("10^%L" not in gp and "%T" not in gp, f"{n}: power-of-ten tick labels")
            for t in re.findall(r"title '((?:[^']|'')*)'", gp):
                check(not re.search(r"\d[eE][+-]\d", t), f"{n}: a number in e-notation: {t!r}")


def scenario(d, name, n_classes, horizon, sample, long_names):
    classes = []
    for i in range(n_classes):
        nm = f"a workload class with a rather long name {i:02d}" if long_names else f"class-{i:02d}"
        classes.append({"name": nm, "arrival": {"offered_load": 0.6 / n_classes},
                        "gpus": {"dist": "discrete", "values": [1, 2, 4, 8],
                                 "weights": [0.4, 0.3, 0.2, 0.1]},
                        "duration": {"dist": "exponential", "mean": "2h"}})
    path = os.path.join(d, name + ".json")
    with open(path, "w") as f:
        json.dump({"name": name, "seed": 3, "horizon": horizon, "sample": sample,
                   "policy": "fifo-first-fit",
                   "fleet": {"pools": [{"name": "h100", "gpu_type": "H100", "nodes": 8,
                                        "gpus_per_node": 8}]},
                   "workload": {"classes": classes}}, f)
    return path


with tempfile.TemporaryDirectory() as d:
    # --- time axes: hours for 2 days, days for a year -----------------------
    run = os.path.join(d, "run.h5")
    tarmac("run", SMALL, "--seed", "7", "-q", "-o", run)
    plot(run, os.path.join(d, "run"))
    gp = read(os.path.join(d, "run", "utilization.gp"))
    check("set xlabel 'simulated time (h)'" in gp, "2-day run: time axis in hours")
    no_power_labels(os.path.join(d, "run"))

    # 3.5 days: past 3 days, the axis is in days
    mid = os.path.join(d, "mid.h5")
    tarmac("run", scenario(d, "mid", 2, "84h", "1h", False), "-q", "-o", mid)
    plot(mid, os.path.join(d, "mid"))
    gp = read(os.path.join(d, "mid", "utilization.gp"))
    check("set xlabel 'simulated time (d)'" in gp, "3.5-day run: time axis in days")

    year = os.path.join(d, "year.h5")
    tarmac("run", scenario(d, "year", 3, "365d", "1d", False), "-q", "-o", year)
    plot(year, os.path.join(d, "year"))
    gp = read(os.path.join(d, "year", "utilization.gp"))
    check("set xlabel 'simulated time (d)'" in gp, "1-year run: time axis in days")
    led = read(os.path.join(d, "year", "ledger.gp"))
    check("set ylabel 'k GPU-hours'" in led, "1-year ledger: GPU-hours in thousands")
    check(re.search(r"went \(\d+(\.\d+)? k GPU-hours\)", led) is not None,
          "1-year ledger title: the total in k GPU-hours")
    sb = read(os.path.join(d, "year", "shape_blocked.gp"))
    check("(k GPU-hours)" in sb, "1-year shape_blocked: GPU-hours in thousands")
    no_power_labels(os.path.join(d, "year"))

    # --- 40 classes with long names ----------------------------------------
    c40 = scenario(d, "c40", 40, "3d", "1h", True)
    r40 = os.path.join(d, "c40.h5")
    tarmac("run", c40, "-q", "-o", r40)
    out = os.path.join(d, "c40")
    plot(r40, out)
    for fig in ("wait_cdf", "slowdown"):
        t = titles(read(os.path.join(out, fig + ".gp")))
        cls = [x for x in t if not x.startswith("all classes")]
        check(len(cls) == 10, f"40 classes, {fig}: {len(cls)} class curves, want 10")
        check(any(x.startswith("other 31 classes") for x in cls), f"{fig}: no 'other 31 classes' curve")
        names = [re.sub(r" \(\d+ jobs\)$", "", x) for x in cls]
        check(all(len(x) <= 28 for x in names), f"{fig}: a label longer than 28 characters: {names}")
        check(len(set(names)) == len(names), f"{fig}: shortened labels collide: {names}")
        size = png_size(os.path.join(out, fig + ".png"))
        check(size == (1100, 680), f"{fig}.png: {size}")
    blocks = data_blocks(read(os.path.join(out, "ledger.dat")))
    check(len(blocks) == 2 and len(blocks[1]) == 10 and blocks[1][-1][0] == '"other',
          f"40 classes, ledger: {len(blocks[1]) if len(blocks) == 2 else '?'} consumer bars, want 10 with the others last")

    cmp40 = os.path.join(d, "c40cmp.h5")
    tarmac("compare", c40, "--policies", "fifo-first-fit,fifo-best-fit", "--replications", "3",
           "-j", "2", "--per-class", "-q", "-o", cmp40)
    out = os.path.join(d, "c40cmp")
    plot(cmp40, out)
    pages = sorted(n[:-3] for n in os.listdir(out) if n.startswith("compare_classes") and n.endswith(".gp"))
    want = ["compare_classes", "compare_classes_2", "compare_classes_3", "compare_classes_4",
            "compare_classes_diff", "compare_classes_diff_2", "compare_classes_diff_3",
            "compare_classes_diff_4"]
    check(pages == want, f"40 classes compared: pages {pages}")
    for n in pages:
        gp = read(os.path.join(out, n + ".gp"))
        m = re.search(r"^set terminal \w+ size (\d+),(\d+)", gp, re.M)
        lay = re.search(r"^set multiplot layout (\d+),(\d+)", gp, re.M)
        if not (m and lay):
            check(False, f"{n}.gp: no terminal size or layout")
            continue
        w, h, rows = int(m.group(1)), int(m.group(2)), int(lay.group(1))
        check(rows <= 6, f"{n}: {rows} rows of classes, want at most 6")
        mg = re.search(r"margins [\d.]+,[\d.]+,([\d.]+),([\d.]+) spacing [\d.]+,([\d.]+)", gp)
        if mg:
            b, t, sp = (float(x) for x in mg.groups())
            panel = (t - b - (rows - 1) * sp) * h / rows
            check(panel >= 180, f"{n}: panels {panel:.0f} px high, want at least 180")
        else:
            check(False, f"{n}.gp: no margins and spacing")
        check("top 24 of 40 by GPU-hours" in gp, f"{n}: the title does not say which classes")
        check(png_size(os.path.join(out, n + ".png")) == (w, h), f"{n}.png: not drawn at {w}x{h}")
        for lab in re.findall(r"set title '((?:[^']|'')*): (?:mean wait|p95 wait|mean bounded)", gp):
            check(len(lab) <= 18, f"{n}: class label {lab!r} longer than 18 characters")

    # --- intervals inside the quantity's range ------------------------------
    # a loaded pool of 3 nodes: allocation near 100 %, intervals past it
    hot = os.path.join(d, "hot.json")
    with open(SMALL) as f:
        s = json.load(f)
    s["fleet"]["pools"][0]["nodes"] = 3
    s["horizon"] = "1d"
    with open(hot, "w") as f:
        json.dump(s, f)
    cmp = os.path.join(d, "hot-cmp.h5")
    tarmac("compare", hot, "--policies", "fifo-first-fit,fifo-best-fit", "--replications", "3",
           "-j", "2", "-q", "-o", cmp)
    out = os.path.join(d, "hot-cmp")
    plot(cmp, out)
    blocks = data_blocks(read(os.path.join(out, "compare.dat")))
    heads = re.findall(r"^# (\w+) \(", read(os.path.join(out, "compare.dat")), re.M)
    check(len(blocks) == len(heads) and len(blocks) > 5, f"compare.dat: {len(blocks)} blocks, {len(heads)} names")
    for name, rows in zip(heads, blocks):
        for r in rows:
            lo, hi = float(r[2]), float(r[3])
            check(not lo < 0, f"compare.dat {name}: interval from {lo}")
            if name == "alloc_util":
                check(not hi > 100, f"compare.dat alloc_util: interval to {hi} %")

    sweep = os.path.join(d, "hot-sweep.json")
    with open(sweep, "w") as f:
        json.dump({"scenario": hot, "replications": 3,
                   "grid": {"fleet.pools[0].nodes": [2, 3]}}, f)
    tarmac("sweep", sweep, "-j", "2", "-q", "-o", os.path.join(d, "hot.points"))
    out = os.path.join(d, "hot-sweep")
    plot(os.path.join(d, "hot.points", "merged.h5"), out)
    dat = read(os.path.join(out, "sweep.dat"))
    cols = re.search(r"^# x (?!=)(.*)$", dat, re.M)
    cols = cols.group(1).split() if cols else []
    check("alloc_util_ci_high" in cols, f"sweep.dat columns: {cols}")
    for rows in data_blocks(dat):
        for r in rows:
            v = dict(zip(cols, (float(x) for x in r[1:])))
            for k, x in v.items():
                if k.endswith(("_ci_low", "_ci_high")):
                    check(not x < 0, f"sweep.dat {k} = {x}")
            if "alloc_util_ci_high" in v:
                check(not v["alloc_util_ci_high"] > 100, f"sweep.dat alloc_util to {v['alloc_util_ci_high']} %")
    gp = read(os.path.join(out, "sweep.gp"))
    check(re.search(r"using 1:\d+:\d+:\d+ with yerror", gp) is not None, "sweep.gp: intervals by their ends")

    # one replication: no interval, and gnuplot draws it without a warning
    one = os.path.join(d, "one.json")
    with open(one, "w") as f:
        json.dump({"scenario": SMALL, "replications": 1,
                   "grid": {"policy": ["fifo-first-fit", "fifo-best-fit"]}}, f)
    tarmac("sweep", one, "-j", "2", "-q", "-o", os.path.join(d, "one.points"))
    plot(os.path.join(d, "one.points", "merged.h5"), os.path.join(d, "one"))

    # --- breakeven: readable log axes --------------------------------------
    be = os.path.join(d, "breakeven.h5")
    tarmac("breakeven", "scenarios/chat-breakeven.json", "--volumes", "10B:1T:3",
           "--replications", "1", "--refine", "1", "--seed", "1", "-j", "2", "-q", "-o", be, cwd=SRC)
    out = os.path.join(d, "breakeven")
    plot(be, out)
    gp = read(os.path.join(out, "breakeven.gp"))
    check("'10B' 1e10" in gp and "'1T' 1e12" in gp, "breakeven: token axis not labelled 10B .. 1T")
    check(re.search(r"'\$\d+k' 1e\d", gp) is not None, "breakeven: cost axis not labelled $..k")
    no_power_labels(out)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("plot units: all checks passed")
