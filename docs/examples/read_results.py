#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Load a tarmac result into pandas: the jobs table and the time series.

    python3 docs/examples/read_results.py tarmac-out.h5

Needs h5py and pandas (Debian: apt-get install python3-h5py python3-pandas).
The layout of the file: docs/output.md (or `man 5 tarmac-output`). The test
suite runs this script on a fresh result (test_python_example).
"""
import sys

import h5py
import pandas as pd


def table(f, name):
    """A table group (one dataset per column) as a DataFrame, columns in order."""
    g = f[name]
    return pd.DataFrame({c: g[c][()] for c in g.attrs["columns"]})


def labels(f, column):
    """The names behind a coded column: {code: name}."""
    return dict(enumerate(f[column].attrs["labels"].split("\n")))


path = sys.argv[1] if len(sys.argv) > 1 else "tarmac-out.h5"
with h5py.File(path, "r") as f:
    jobs = table(f, "jobs").sort_values("id")  # rows are in finishing order
    jobs["class"] = jobs["class"].map(labels(f, "jobs/class"))
    jobs["state"] = jobs["state"].map(labels(f, "jobs/state"))
    ts = table(f, "timeseries")
    arrived = int(f["summary/jobs_arrived"][()])
    gpu_hours = float(f["summary/fleet_gpu_hours_alloc"][()])
    name = f["provenance/scenario_name"].asstr()[()]

print(f"scenario {name!r}: {len(jobs)} jobs, {len(ts)} time bins")
print("\nwait per class (minutes, jobs that started):")
started = jobs[jobs["start_s"].notna()]
print((started.groupby("class")["wait_s"].describe(percentiles=[0.5, 0.95]) / 60)
      .drop(columns="count").round(1).to_string())
print("\njobs by state at the end:")
print(jobs.groupby(["class", "state"]).size().unstack(fill_value=0).to_string())

ts["day"] = (ts["t_s"] // 86400).astype(int)
ts["width_h"] = (ts["t_end_s"] - ts["t_s"]) / 3600
daily = ts.groupby("day").apply(
    lambda d: pd.Series({"alloc_util_pct": 100 * (d.gpus_alloc * d.width_h).sum() / (d.gpus_up * d.width_h).sum(),
                         "queue_len_mean": (d.queue_len * d.width_h).sum() / d.width_h.sum()}))
print("\nper simulated day:")
print(daily.round(1).to_string())

# the two views agree with the file's own totals
assert len(jobs) == arrived, (len(jobs), arrived)
integral = (ts.gpus_alloc * ts.width_h).sum()
assert abs(integral - gpu_hours) <= 1e-6 * gpu_hours, (integral, gpu_hours)
print(f"\nchecks: {len(jobs)} job rows = /summary/jobs_arrived; "
      f"time series integrates to {integral:.1f} GPU-hours = /summary/fleet_gpu_hours_alloc")
