#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""run_h5_check.py — `tarmac run` on the default scenario, read back with h5py.

Checks that the file a real reader sees agrees with the printed summary and
with itself (the jobs table against /summary, the time series against the
totals), that every dataset has units and a description, that two runs with
the same seed are identical dataset by dataset (but for the command line that
wrote each, which names its own output) and that another seed differs, and
that /provenance/command_line splits back, by shell rules, into the very
arguments given (an output name with a space and a quote in it).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from checklib import BIN, check, failures


def run(out, *args):
    p = subprocess.run([BIN, "run", "-o", out, *args], capture_output=True, text=True)
    check(p.returncode == 0, f"tarmac run exit {p.returncode}: {p.stderr}")
    return p.stdout


def datasets(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out


with tempfile.TemporaryDirectory() as d:
    a, b, c = (os.path.join(d, n) for n in ("a.h5", "it's b.h5", "c.h5"))
    text = run(a)
    print(text)
    run(b)
    run(c, "--seed", "2")
    check(not [n for n in os.listdir(d) if ".tmp" in n], "temporary files left behind")
    subprocess.run(["h5dump", "-H", a], check=True, capture_output=True)

    with h5py.File(a, "r") as f:
        check(f.attrs["schema_version"] == 1, "schema_version")
        jobs = {k: f["jobs"][k][()] for k in f["jobs"].attrs["columns"]}
        s = {k: f["summary"][k][()] for k in f["summary"] if isinstance(f["summary"][k], h5py.Dataset)}
        n = len(jobs["id"])
        for k, v in jobs.items():
            check(len(v) == n, f"/jobs/{k} has {len(v)} rows, want {n}")
        check(n == s["jobs_arrived"], f"{n} job rows, {s['jobs_arrived']} arrived")
        state = jobs["state"]
        for code, key in ((0, "jobs_queued_end"), (1, "jobs_running_end"), (2, "jobs_completed"), (3, "jobs_rejected")):
            check(int((state == code).sum()) == s[key], f"state {code} count vs /summary/{key}")
        started = ~np.isnan(jobs["start_s"])
        check(abs(jobs["wait_s"][started].mean() - s["wait_mean_s"]) < 1e-9 * (1 + s["wait_mean_s"]), "wait mean")
        check(np.allclose(jobs["wait_s"][started], (jobs["start_s"] - jobs["submit_s"])[started]), "wait = start - submit")
        # allocated GPU-hours: jobs table vs summary (running jobs count up to the end)
        gh = jobs["alloc_gpu_s"].sum() / 3600
        check(abs(gh - s["gpu_hours_alloc"]) < 1e-6 * gh, f"GPU-hours {gh} vs {s['gpu_hours_alloc']}")
        # a job that ran once, to completion, held its GPUs for exactly run_s
        once = (jobs["interruptions"] == 0) & (jobs["state"] == 2)
        held = jobs["gpus"] * jobs["gpu_milli"] / 1000.0 * jobs["run_s"]
        check(np.allclose(held[once], jobs["alloc_gpu_s"][once]), "alloc_gpu_s = gpus x run_s")
        # the fleet's allocation is the jobs' plus the service replicas'
        svc = sum(f["summary/services"][k]["gpu_hours_alloc"][()] for k in f["summary/services"])
        check(abs(s["fleet_gpu_hours_alloc"] - s["gpu_hours_alloc"] - svc) < 1e-6 * s["fleet_gpu_hours_alloc"],
              "fleet allocation = jobs + services")
        check(abs(s["alloc_util"] - s["fleet_gpu_hours_alloc"] / s["gpu_hours_up"]) < 1e-12, "alloc_util")
        ts = {k: f["timeseries"][k][()] for k in f["timeseries"]}
        width = ts["t_end_s"] - ts["t_s"]
        check(abs((ts["gpus_alloc"] * width).sum() / 3600 - s["fleet_gpu_hours_alloc"]) < 1e-6 * s["fleet_gpu_hours_alloc"], "time series integrates to the total")
        check(int(ts["arrivals"].sum()) == n, "time-series arrivals")
        check(abs(ts["t_end_s"][-1] - s["t_end_s"]) < 1e-9, "time series ends at t_end")
        labels = f["jobs"]["class"].attrs["labels"]
        labels = labels.decode() if isinstance(labels, bytes) else labels
        check(labels.split("\n") == ["training", "fine-tuning", "quantization", "batch-inference", "embedding", "evaluation"], f"class labels {labels!r}")
        # units and descriptions on every dataset
        def has_attrs(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "iuf":
                check("units" in obj.attrs and "description" in obj.attrs, f"{name} lacks units/description")
        f.visititems(has_attrs)
        # the printed table: class rows "name arrived started completed rejected queued running ..."
        for i, name in enumerate(["training", "fine-tuning", "quantization", "batch-inference", "embedding", "evaluation"]):
            m = re.search(rf"^{re.escape(name)}\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)", text, re.M)
            check(m is not None, f"printed row for {name}")
            if m:
                got = [int(x.replace(",", "")) for x in m.groups()]
                g = f["summary"]["classes"][name]
                want = [int(g[k][()]) for k in ("jobs_arrived", "jobs_started", "jobs_completed", "jobs_rejected", "jobs_queued_end", "jobs_running_end")]
                check(got == want, f"printed {name} {got} vs file {want}")
        m = re.search(r"utilization: allocated ([\d.]+) %", text)
        check(m is not None and abs(float(m.group(1)) - 100 * s["alloc_util"]) < 0.051, "printed utilization")
        prov = f["provenance"]
        check(int(prov["seed"][()]) == 1, "seed in provenance")
        for lib in ("gsl", "hdf5", "cjson", "zlib"):
            check(lib in prov["libraries"], f"library version {lib}")
    for path, args in ((a, []), (b, []), (c, ["--seed", "2"])):
        with h5py.File(path, "r") as f:
            line = f["provenance/command_line"].asstr()[()]
        check(shlex.split(line) == ["tarmac", "run", "-o", path, *args],
              f"command_line {line!r} does not split back into the arguments given")

    da, db, dc = (datasets(h5py.File(x, "r")) for x in (a, b, c))
    check(da.keys() == db.keys(), "same datasets")
    for k in da:
        if k == "provenance/command_line":
            continue
        va, vb = np.asarray(da[k]), np.asarray(db[k])
        same = va.shape == vb.shape and (np.array_equal(va, vb, equal_nan=True) if va.dtype.kind == "f" else np.array_equal(va, vb))
        check(same, f"{k} differs between two runs with the same seed")
    check(not np.array_equal(da["jobs/submit_s"], dc["jobs/submit_s"]) if len(da["jobs/submit_s"]) == len(dc["jobs/submit_s"]) else True, "another seed gives other jobs")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("HDF5 output read back with h5py: all checks passed")
