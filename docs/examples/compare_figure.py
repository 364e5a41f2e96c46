#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Draw a comparison file of `tarmac compare` with matplotlib (docs/python.md).

    python3 docs/examples/compare_figure.py tarmac-compare.h5 [compare.png]

Top row: each policy's mean over the replications with its confidence
interval, for the mean wait, the 95th percentile wait and the allocation
utilization. Bottom row: the paired difference of each policy to the first
(the baseline) with its interval: an interval that does not cross zero is a
difference the replications resolve. Writes a PNG (Agg backend, no display).

Needs h5py, pandas and matplotlib (Debian: python3-h5py python3-pandas
python3-matplotlib). The test suite runs it (test_python_pkg).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.isdir(os.path.join(HERE, "..", "..", "python", "tarmac")):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import tarmac  # noqa: E402

METRICS = ["wait_mean_s", "wait_p95_s", "alloc_util"]
SCALE = {"s": (1 / 60, "min")}  # waits in minutes

src = sys.argv[1] if len(sys.argv) > 1 else "tarmac-compare.h5"
out = sys.argv[2] if len(sys.argv) > 2 else "compare.png"
c = tarmac.open(src)
if not isinstance(c, tarmac.Compare):
    sys.exit(f"{src}: a {c.kind} file, not a comparison (tarmac compare)")
info, policies = c.metric_info, c.policies
fig, axes = plt.subplots(2, len(METRICS), figsize=(4 * len(METRICS), 6.5), squeeze=False)
x = range(len(policies))
for j, m in enumerate(METRICS):
    t = c.metric(m)
    k, unit = SCALE.get(info.units[m], (1, "" if info.units[m] == "1" else info.units[m]))
    top, bottom = axes[0][j], axes[1][j]
    top.bar(x, t["mean"] * k, color="#8fb4d9", edgecolor="#2b5d8a")
    top.errorbar(x, t["mean"] * k, yerr=[(t["mean"] - t["ci_low"]) * k, (t["ci_high"] - t["mean"]) * k],
                 fmt="none", ecolor="black", capsize=4)
    top.set_title(info.label[m])
    top.set_ylabel(f"mean{f' ({unit})' if unit else ''}")
    d = t.iloc[1:]
    xd = range(1, len(policies))
    bottom.axhline(0, color="grey", lw=0.8)
    bottom.errorbar(xd, d["diff_mean"] * k, yerr=[(d["diff_mean"] - d["diff_ci_low"]) * k,
                                                   (d["diff_ci_high"] - d["diff_mean"]) * k],
                    fmt="o", color="#c0392b", capsize=4)
    bottom.annotate("baseline", (0, 0), ha="center", va="bottom", fontsize=8, color="grey")
    bottom.set_xlim(-0.5, len(policies) - 0.5)
    bottom.set_ylabel(f"minus {policies[0]}{f' ({unit})' if unit else ''}")
    for ax in (top, bottom):
        ax.set_xticks(list(x))
        ax.set_xticklabels(policies, rotation=15, ha="right", fontsize=8)
conf = c.figures["confidence"]
fig.suptitle(f"{c.provenance.scenario_name}: {len(policies)} policies, {c.figures['replications']} replications, "
             f"{conf:.0%} intervals (top: mean; bottom: paired difference to {policies[0]})", fontsize=10)
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"{out}: {', '.join(METRICS)} of {len(policies)} policies from {src}")
