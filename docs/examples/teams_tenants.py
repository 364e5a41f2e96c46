# SPDX-License-Identifier: Apache-2.0
"""teams_tenants.py — per-team figures of `tarmac run` result files.

    python3 docs/examples/teams_tenants.py siloed.h5 shared.h5 borrow.h5

For each file: per tenant (team), from /jobs (the `tenant` column and its
labels): jobs, mean and 95th-percentile wait (jobs that never started count
their wait to the end of the run), busy and lost GPU-hours; and for the fleet,
busy utilization, preemptions and the cost per goodput GPU-hour (/cost).
"""
import sys

import h5py
import numpy as np

print("%-8s %-9s %6s %9s %9s %10s %9s" % ("run", "team", "jobs", "wait h", "p95 h",
                                          "busy GPUh", "lost GPUh"))
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        j = f["jobs"]
        labels = j["tenant"].attrs["labels"]
        labels = (labels.decode() if isinstance(labels, bytes) else str(labels)).split("\n")
        ten, wait = j["tenant"][:], j["wait_s"][:] / 3600
        busy, lost = j["busy_gpu_s"][:] / 3600, j["lost_gpu_s"][:] / 3600
        name = path.rsplit("/", 1)[-1].removesuffix(".h5")
        for t, label in enumerate(labels):
            m = ten == t
            if not m.any():
                continue
            print("%-8s %-9s %6d %9.2f %9.2f %10.0f %9.0f" % (
                name, label, m.sum(), wait[m].mean(), np.percentile(wait[m], 95),
                busy[m].sum(), lost[m].sum()))
        s, c = f["summary"], f["cost"]
        print("%-8s fleet: busy utilization %.3f, preemptions %d, usd per goodput GPU-hour %.2f"
              % (name, s["busy_util"][()], s["preemptions"][()],
                 c["usd_per_goodput_gpu_hour"][()]))
