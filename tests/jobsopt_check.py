#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""jobsopt_check.py — `--jobs full|summary|none` on run and replay
(docs/output.md, "What --jobs keeps").

  - the three modes of one run hold the same values in every dataset but
    /jobs and /jobs_summary (the root attribute jobs_table aside), and the
    default is full, without the attribute;
  - /jobs_summary is /jobs folded by (class, gpus, gpu_milli): counts and
    maxima exact, sums and means to rounding;
  - replay takes the option too;
  - a bad mode is a usage error (64) naming the modes, with no file left;
  - readers cope with a file without /jobs: plot draws the rest, export names
    the tables, the Python package's Run.jobs raises TarmacError naming the
    mode, Run.jobs_summary reads the shapes.
Usage: jobsopt_check.py (TARMAC_BIN, TARMAC_SRC from ctest)
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from checklib import BIN, SRC, check
from checklib import failures as fails


def tm(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd)


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, o):
            if isinstance(o, h5py.Dataset) and o.dtype.kind in "iuf":
                out[name] = o[()]
        f.visititems(visit)
        out["@attrs"] = {k: f.attrs[k] for k in f.attrs}
    return out


def same(a, b):
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def fold(path):
    """/jobs of a full file folded by shape, as /jobs_summary should hold it."""
    with h5py.File(path, "r") as f:
        j = {c: f["jobs"][c][()] for c in f["jobs"].attrs["columns"]}
    keys = sorted(set(zip(j["class"].tolist(), j["gpus"].tolist(), j["gpu_milli"].tolist())))
    rows = []
    for k in keys:
        m = (j["class"] == k[0]) & (j["gpus"] == k[1]) & (j["gpu_milli"] == k[2])
        st = m & ~np.isnan(j["start_s"])
        done = m & (j["state"] == 2)
        rows.append({
            "class": k[0], "gpus": k[1], "gpu_milli": k[2], "jobs": int(m.sum()),
            "jobs_started": int(st.sum()), "jobs_completed": int(done.sum()),
            "jobs_rejected": int((m & (j["state"] == 3)).sum()),
            "jobs_failed": int((m & (j["state"] == 4)).sum()),
            "interruptions": int(j["interruptions"][m].sum()),
            "wait_mean_s": j["wait_s"][st].mean() if st.any() else math.nan,
            "wait_max_s": j["wait_s"][st].max() if st.any() else math.nan,
            "run_mean_s": j["run_s"][done].mean() if done.any() else math.nan,
            "alloc_gpu_s": j["alloc_gpu_s"][m].sum(), "busy_gpu_s": j["busy_gpu_s"][m].sum(),
            "lost_gpu_s": j["lost_gpu_s"][m].sum(), "work_ref_gpu_s": j["work_ref_gpu_s"][m].sum(),
        })
    return rows


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_modes(tag, files):
    full, summ, none = (datasets(files[m]) for m in ("full", "summary", "none"))
    check("jobs_table" not in full["@attrs"], f"{tag}: a full file has the attribute jobs_table")
    check(summ["@attrs"].get("jobs_table") == "summary", f"{tag}: summary's jobs_table")
    check(none["@attrs"].get("jobs_table") == "none", f"{tag}: none's jobs_table")
    check(any(k.startswith("jobs/") for k in full), f"{tag}: full has no /jobs")
    for name, d in (("summary", summ), ("none", none)):
        check(not any(k.startswith("jobs/") for k in d), f"{tag}: {name} has /jobs")
        for k, v in full.items():
            if k.startswith("jobs/") or k == "@attrs":
                continue
            check(k in d and same(v, d[k]), f"{tag}: {name}: /{k} differs from the full file's")
        extra = [k for k in d if k not in full and not k.startswith("jobs_summary/") and k != "@attrs"]
        check(not extra, f"{tag}: {name} has datasets the full file lacks: {extra}")
    check(not any(k.startswith("jobs_summary/") for k in none), f"{tag}: none has /jobs_summary")
    want = fold(files["full"])
    with h5py.File(files["summary"], "r") as f:
        g = f["jobs_summary"]
        cols = list(g.attrs["columns"])
        got = [{c: g[c][i].item() for c in cols} for i in range(g["class"].shape[0])]
        check(g["class"].attrs.get("labels") is not None, f"{tag}: /jobs_summary/class has no labels")
    check(len(got) == len(want), f"{tag}: {len(got)} shapes, want {len(want)}")
    check(len(want) > 1, f"{tag}: the case has a single shape")
    for w, g in zip(want, got):
        for c, v in w.items():
            ok = close(float(v), float(g[c])) if isinstance(v, float) else v == g[c]
            check(ok, f"{tag}: shape {w['class'], w['gpus'], w['gpu_milli']}: {c} {g[c]}, want {v}")


with tempfile.TemporaryDirectory() as d:
    small = os.path.join(SRC, "tests", "golden", "small.json")
    files = {}
    for mode in ("full", "summary", "none"):
        files[mode] = os.path.join(d, f"run-{mode}.h5")
        p = tm("run", small, "--seed", "3", "--jobs", mode, "-q", "-o", files[mode])
        check(p.returncode == 0, f"run --jobs {mode}: exit {p.returncode}: {p.stderr}")
    default = os.path.join(d, "run-default.h5")
    tm("run", small, "--seed", "3", "-q", "-o", default)
    a, b = datasets(default), datasets(files["full"])
    check(a.keys() == b.keys() and all(k == "@attrs" or same(a[k], b[k]) for k in a),
          "run without --jobs differs from --jobs full")
    check_modes("run", files)

    # replay (time protocol): the same three
    trace = os.path.join(SRC, "tests", "golden", "traces", "helios.csv")
    rfiles = {}
    for mode in ("full", "summary", "none"):
        rfiles[mode] = os.path.join(d, f"replay-{mode}.h5")
        p = tm("replay", trace, "--format", "helios", "--fleet", small, "--jobs", mode, "-q",
               "-o", rfiles[mode])
        check(p.returncode == 0, f"replay --jobs {mode}: exit {p.returncode}: {p.stderr}")
    check_modes("replay", rfiles)

    # a bad mode: usage error, no file
    bad = os.path.join(d, "bad.h5")
    for cmd in (["run", small], ["replay", trace, "--format", "helios", "--fleet", small]):
        p = tm(*cmd, "--jobs", "some", "-o", bad)
        check(p.returncode == 64 and "--jobs needs full, summary or none" in p.stderr,
              f"{cmd[0]} --jobs some: exit {p.returncode}, {p.stderr!r}")
        check(not os.path.exists(bad), f"{cmd[0]} --jobs some left a file")

    # the option is the time protocol's: refused with another
    swf = os.path.join(d, "tiny.swf")
    with open(swf, "w") as f:
        f.write("; MaxNodes: 4\n; MaxProcs: 4\n")
        for k in range(1, 6):
            f.write(f"{k} {k * 10} 0 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n")
    p = tm("replay", swf, "--format", "swf", "--protocol", "window", "--window", "0:5",
           "--jobs", "none", "-o", bad)
    check(p.returncode == 64 and "--jobs needs --protocol time" in p.stderr,
          f"replay --protocol window --jobs none: exit {p.returncode}, {p.stderr!r}")
    check(not os.path.exists(bad), "replay --protocol window --jobs none left a file")
    p = tm("replay", swf, "--format", "swf", "--protocol", "window", "--window", "0:5", "-q",
           "-o", os.path.join(d, "win.h5"))
    check(p.returncode == 0, f"replay of the tiny SWF window: exit {p.returncode}: {p.stderr}")

    # readers
    p = tm("plot", files["none"], "-o", os.path.join(d, "plots"), "-q")
    check(p.returncode in (0, 69), f"plot of a file without /jobs: exit {p.returncode}: {p.stderr}")
    check(os.path.exists(os.path.join(d, "plots", "utilization.dat")),
          "plot of a file without /jobs drew no utilization figure")
    check(not os.path.exists(os.path.join(d, "plots", "wait_cdf.dat")),
          "plot of a file without /jobs drew a wait CDF")
    p = tm("export", files["none"], "--table", "jobs", "--csv", "-o", os.path.join(d, "j.csv"))
    check(p.returncode == 66 and "no table /jobs" in p.stderr,
          f"export --table jobs of a file without it: exit {p.returncode}, {p.stderr!r}")
    p = tm("export", files["summary"], "--table", "jobs_summary", "--csv", "-o", "-")
    check(p.returncode == 0 and p.stdout.startswith("class,gpus,gpu_milli,jobs"),
          f"export --table jobs_summary: exit {p.returncode}, {p.stdout[:80]!r}")
    p = tm("report", files["summary"], "-o", os.path.join(d, "r.html"), "-q")
    check(p.returncode == 0, f"report of a summary file: exit {p.returncode}: {p.stderr}")

    sys.path.insert(0, os.path.join(SRC, "python"))
    import tarmac
    for mode in ("summary", "none"):
        r = tarmac.open(files[mode])
        check(isinstance(r, tarmac.Run), f"python: a --jobs {mode} file is not a Run: {type(r)}")
        check(r.jobs_table == mode, f"python: jobs_table {r.jobs_table!r}, want {mode}")
        try:
            r.jobs
            check(False, f"python: Run.jobs of a --jobs {mode} file did not raise")
        except tarmac.TarmacError as ex:
            check(f"--jobs {mode}" in str(ex), f"python: Run.jobs message {ex}")
        check(r.summary["jobs_arrived"] > 0, "python: summary of a file without /jobs")
    check(tarmac.open(files["full"]).jobs_table == "full", "python: jobs_table of a full file")
    s = tarmac.open(files["summary"]).jobs_summary
    check(int(s["jobs"].sum()) == len(tarmac.open(files["full"]).jobs),
          "python: jobs_summary's jobs do not add up to /jobs")

if fails:
    print(f"{len(fails)} failure(s)")
    sys.exit(1)
print("jobsopt_check: ok")
