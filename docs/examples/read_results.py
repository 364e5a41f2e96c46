#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Load a tarmac result with the Python package (docs/python.md) and print it.

    python3 docs/examples/read_results.py tarmac-out.h5

For a run (or replay) file: the waits per class, the jobs by state, the time
series per simulated day and the GPU-hour ledger, checked against the file's
own totals. For any other kind (compare, breakeven, sweep, packing, size):
what the file is and its summary figures.

Needs h5py and pandas (Debian: apt-get install python3-h5py python3-pandas).
Run from a checkout it uses the package in python/; installed, the one on
the path. The test suite runs it (test_python_example, test_python_pkg).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.isdir(os.path.join(HERE, "..", "..", "python", "tarmac")):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import tarmac  # noqa: E402

path = sys.argv[1] if len(sys.argv) > 1 else "tarmac-out.h5"
r = tarmac.open(path)
print(r)
if not isinstance(r, tarmac.Run):
    print(r.summary)
    sys.exit(0)

jobs, ts, s = r.jobs, r.timeseries, r.summary
print(f"scenario {r.provenance.scenario_name!r}: {len(jobs)} jobs, {len(ts)} time bins")
print("\nwait per class (minutes, jobs that started):")
started = jobs[jobs["start_s"].notna()]
print((started.groupby("class", observed=True)["wait_s"].describe(percentiles=[0.5, 0.95]) / 60)
      .drop(columns="count").round(1).to_string())
print("\njobs by state at the end:")
print(jobs.groupby(["class", "state"], observed=True).size().unstack(fill_value=0).to_string())

ts["day"] = (ts["t_s"] // 86400).astype(int)
ts["width_h"] = (ts["t_end_s"] - ts["t_s"]) / 3600
ts["alloc_gh"] = ts.gpus_alloc * ts.width_h
ts["up_gh"] = ts.gpus_up * ts.width_h
ts["queue_h"] = ts.queue_len * ts.width_h
daily = ts.groupby("day")[["alloc_gh", "up_gh", "queue_h", "width_h"]].sum()
daily = daily.assign(alloc_util_pct=100 * daily.alloc_gh / daily.up_gh,
                      queue_len_mean=daily.queue_h / daily.width_h)
print("\nper simulated day:")
print(daily[["alloc_util_pct", "queue_len_mean"]].round(1).to_string())

ledger = r.ledger
print("\nwhere the owned GPU-hours went (ledger, by group):")
print(ledger.groupby("group", observed=True)[["gpu_hours", "share"]].sum().round(3).to_string())

# the views agree with the file's own totals
assert len(jobs) == s["jobs_arrived"], (len(jobs), s["jobs_arrived"])
integral = ts.alloc_gh.sum()
assert abs(integral - s["fleet_gpu_hours_alloc"]) <= 1e-6 * s["fleet_gpu_hours_alloc"]
owned = ledger.gpu_hours.sum()
assert abs(owned - s["gpu_hours_owned"]) <= 1e-6 * s["gpu_hours_owned"], (owned, s["gpu_hours_owned"])
print(f"\nchecks: {len(jobs)} job rows = jobs_arrived; the time series integrates to "
      f"{integral:.1f} GPU-hours = fleet_gpu_hours_alloc; the ledger adds up to "
      f"{owned:.1f} = gpu_hours_owned")
