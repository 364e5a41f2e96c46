#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""export_check.py — `tarmac export` round-trips tables to CSV.

For /jobs and /timeseries of a run file and /compare/runs of a comparison:
the header is the table's `columns` attribute, the row count is the table's
length, and every cell reads back to the stored value exactly (integers as
integers, floats with 17 significant digits, NaN as an empty cell). With
--labels, coded columns carry their labels. -o writes atomically; a missing
table is exit 66 and names --list.
"""
import csv
import io
import math
import os
import sys
import tempfile

import h5py

from checklib import SRC, check, failures, tarmac

SCEN = os.path.join(SRC, "tests", "analysis_small.json")


def round_trip(h5, table, text, labels=False):
    rows = list(csv.reader(io.StringIO(text)))
    with h5py.File(h5, "r") as f:
        g = f[table]
        cols = list(g.attrs["columns"])
        check(rows[0] == cols, f"{table}: header {rows[0]}, want {cols}")
        n = len(g[cols[0]])
        check(len(rows) - 1 == n, f"{table}: {len(rows) - 1} CSV rows, {n} in the file")
        check(n > 0, f"{table}: empty")
        bad = 0
        for ci, c in enumerate(cols):
            v = g[c][()]
            lab = g[c].attrs.get("labels")
            lab = lab.split("\n") if (labels and lab is not None) else None
            for i in range(n):
                cell = rows[i + 1][ci]
                if lab is not None:
                    want = lab[int(v[i])] if 0 <= int(v[i]) < len(lab) else ("" if v[i] < 0 else str(int(v[i])))
                    ok = cell == want
                elif v.dtype.kind == "f":
                    ok = (cell == "" and math.isnan(v[i])) or (cell != "" and float(cell) == v[i])
                else:
                    ok = cell == str(int(v[i]))
                if not ok and bad < 5:
                    check(False, f"{table}/{c} row {i}: CSV {cell!r}, file {v[i]!r}")
                bad += not ok
        check(bad == 0, f"{table}: {bad} cells differ")
    return rows


with tempfile.TemporaryDirectory() as d:
    run, cmp = os.path.join(d, "run.h5"), os.path.join(d, "cmp.h5")
    tarmac("run", SCEN, "-o", run, "-q")
    tarmac("compare", SCEN, "--policies", "fifo-first-fit,fifo-best-fit", "--replications", "2", "-o", cmp, "-q")

    out = os.path.join(d, "jobs.csv")
    p = tarmac("export", run, "--table", "jobs", "--csv", "-o", out)
    check(p.stdout == "", "export -o printed to stdout")
    with open(out) as f:
        rows = round_trip(run, "jobs", f.read())
    # NaN cells exist (jobs still running have no end) and are empty
    end = rows[0].index("end_s")
    check(any(r[end] == "" for r in rows[1:]), "no empty cell for a NaN end_s")
    check(not [n for n in os.listdir(d) if ".tmp" in n], "temporary file left behind")

    round_trip(run, "timeseries", tarmac("export", run, "--table", "/timeseries").stdout)
    rows = round_trip(run, "jobs", tarmac("export", run, "--table", "jobs", "--labels").stdout, labels=True)
    cls = rows[0].index("class")
    check({r[cls] for r in rows[1:]} == {"training", "evaluation"}, "class labels")
    gt = rows[0].index("gpu_type")
    check({r[gt] for r in rows[1:]} <= {"H100", "L40S", ""}, "gpu_type labels")
    round_trip(cmp, "compare/runs", tarmac("export", cmp, "--table", "compare/runs").stdout)
    round_trip(cmp, "compare/metrics/wait_mean_s", tarmac("export", cmp, "--table", "compare/metrics/wait_mean_s", "--labels").stdout, labels=True)

    p = tarmac("export", run, "--list")
    check("jobs" in p.stdout and "timeseries" in p.stdout and "summary" not in p.stdout, f"--list: {p.stdout}")
    p = tarmac("export", cmp, "--list")
    check("compare/runs" in p.stdout and "compare/metrics/alloc_util" in p.stdout, f"--list: {p.stdout}")
    p = tarmac("export", run, "--table", "nosuch", code=66)
    check("--list" in p.stderr, f"missing table message: {p.stderr}")
    tarmac("export", run, "--table", "summary", code=66)  # a group of scalars is no table
    tarmac("export", run, code=64)
    tarmac("export", os.path.join(d, "nosuch.h5"), "--table", "jobs", code=66)
    tarmac("export", run, "--table", "jobs", "-o", os.path.join(d, "no", "such", "dir.csv"), code=73)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("export: all checks passed")
