#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# plan_screen_check.py — screening in `tarmac plan` (docs/plan.md,
# "Screening" and "Roll-outs on estimates"): on tests/plan_tiny.json (2 days
# a period, so the screen is a few hours after the warm-up), for several
# growths and budgets:
#   - with --full-rollouts the plan is the unscreened one (same schedule and
#     cost), every period's fleet passing in full and minimal in full: with
#     one node fewer in any pool that grew past the fleet of the period
#     before, the fleet was simulated in full at the period's demand and
#     failed (/plan/fleet_*), unless that is below the load bound;
#   - with the default roll-outs on estimates, every period's fleet still
#     passes in full (/plan/pass, and its row in /plan/fleet_*), and is
#     minimal in full where no budget can have made nodes arrive earlier;
#     /plan/rollout says which; and the estimated roll-outs simulate fewer
#     fleets in full over the cases than the full ones;
#   - the output says what the screen decided and what the full evaluation
#     confirmed.
# And --screen's bad values exit 64 naming the option.
import os
import subprocess
import sys
import tempfile

import h5py

from checklib import BIN, check, failures
from plan_common import BASE


def run(args):
    return subprocess.run([BIN] + args, capture_output=True, text=True)


def read(path):
    with h5py.File(path, "r") as h:
        p = h["plan"]
        fleets = {}
        for d, n, ok in zip(p["fleet_demand"][:], p["fleet_nodes"][:], p["fleet_pass"][:]):
            fleets[(round(float(d), 12), tuple(int(x) for x in n))] = int(ok)
        return (p["nodes"][:].tolist(), p["demand"][:].tolist(), p["pass"][:].tolist(),
                float(p["own_usd_total"][()]), fleets)


def minimal(tag, nb, dem, fleets):
    prev = None
    for t, (m, dd) in enumerate(zip(nb, dem)):
        for k in range(len(m)):
            if prev is not None and m[k] <= prev[k]:
                continue
            if m[k] == 0:
                continue
            fewer = list(m)
            fewer[k] -= 1
            got = fleets.get((round(float(dd), 12), tuple(fewer)))
            check(got != 1, f"{tag} period {t + 1}: {fewer} passes in full, so {m} is not minimal")
        prev = m


def fleets_in_full(out):
    for x in out.splitlines():
        if x.startswith("search:"):
            return int(x.split("simulated ")[1].split(" fleets")[0])
    return -1


with tempfile.TemporaryDirectory() as d:
    corrected, full_est, full_full = 0, 0, 0
    for growth, budget in (("30%", "400k"), ("30%", "700k"), ("20%", "330k"), ("40%", "700k"),
                           ("30%", None)):
        fa, fb, fc = (os.path.join(d, x) for x in ("plain.h5", "est.h5", "full.h5"))
        money = ["--budget", budget] if budget else []
        tag = f"{growth} {budget or 'no budget'}"
        a = run(BASE + ["--growth", growth, "--no-screen", "-o", fa] + money)
        b = run(BASE + ["--growth", growth, "--screen", "6h", "-o", fb] + money)
        c = run(BASE + ["--growth", growth, "--screen", "6h", "--full-rollouts", "-o", fc] + money)
        check(a.returncode == 0 and b.returncode == 0 and c.returncode == 0,
              f"{tag}: exit {a.returncode}, {b.returncode}, {c.returncode}: {a.stderr} "
              f"{b.stderr} {c.stderr}")
        if a.returncode or b.returncode or c.returncode:
            continue
        check("screened" not in a.stdout, "--no-screen: a screen line")
        line = [x for x in c.stdout.splitlines() if x.startswith("screened ")]
        check(len(line) == 1 and "confirmed in full" in line[0],
              f"{tag}: the screen's line: {line}")
        if line and "0 corrected" not in line[0]:
            corrected += 1
        na, _, _, ua, _ = read(fa)
        # full roll-outs: the unscreened plan, minimal in full
        nc, dem, ok, uc, fleets = read(fc)
        check(all(x == 1 for x in ok), f"{tag} full roll-outs: a period's fleet fails in full")
        for t, (m, dd) in enumerate(zip(nc, dem)):
            check(fleets.get((round(float(dd), 12), tuple(m))) == 1,
                  f"{tag} period {t + 1}: {m} not passed in full")
        minimal(tag + " full roll-outs", nc, dem, fleets)
        check(na == nc and abs(ua - uc) < 1e-6 * max(1, ua),
              f"{tag}: unscreened {na} ${ua:.0f}, screened with full roll-outs {nc} ${uc:.0f}")
        # estimated roll-outs: every period confirmed in full, minimal where no budget
        nb, dem, ok, ub, fleets = read(fb)
        check(all(x == 1 for x in ok), f"{tag} estimated: a period's fleet fails in full")
        for t, (m, dd) in enumerate(zip(nb, dem)):
            check(fleets.get((round(float(dd), 12), tuple(m))) == 1,
                  f"{tag} estimated period {t + 1}: {m} not passed in full")
        if budget is None:
            minimal(tag + " estimated", nb, dem, fleets)
        with h5py.File(fb, "r") as h, h5py.File(fc, "r") as h2, h5py.File(fa, "r") as h3:
            check(h["plan/rollout"][()].decode() == "estimated", f"{tag}: /plan/rollout")
            check(h2["plan/rollout"][()].decode() == "full", f"{tag}: /plan/rollout full")
            check(h3["plan/rollout"][()].decode() == "full", f"{tag}: /plan/rollout unscreened")
        full_est += fleets_in_full(b.stdout)
        full_full += fleets_in_full(c.stdout)
        print(f"{tag}: unscreened and full roll-outs {nc} ${uc:.0f}; estimated roll-outs {nb} "
              f"${ub:.0f}; {line[0] if line else ''}")
    print(f"{corrected} of 5 cases had a screened answer corrected in full; fleets in full: "
          f"{full_est} with roll-outs on estimates, {full_full} with full roll-outs")
    check(0 < full_est < full_full, f"estimated roll-outs simulated {full_est} fleets in full, "
          f"full ones {full_full}")
    for bad in ("0", "-2h", "later"):
        p = run(BASE + ["--growth", "30%", "--screen", bad])
        check(p.returncode == 64 and "--screen" in p.stderr,
              f"--screen {bad}: exit {p.returncode}: {p.stderr}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("plan screen: ok")
