#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# plan_screen_check.py — screening in `tarmac plan` (docs/plan.md,
# "Screening"): on tests/plan_tiny.json (2 days a period, so the screen is a
# few hours after the warm-up), for several growths and budgets, the plan
# with the screen
#   - has every period's fleet passing in full (/plan/pass), and minimal in
#     full: with one node fewer in any pool that grew past the fleet of the
#     period before, the fleet was simulated in full at the period's demand
#     and failed (/plan/fleet_*), unless that is below the load bound (then
#     it was not simulated at all, in full or by the screen's confirmation);
#   - costs what the unscreened plan costs (the same schedule here);
#   - says what the screen decided and what the full evaluation confirmed.
# And --screen's bad values exit 64 naming the option.
import os
import subprocess
import sys
import tempfile

import h5py

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
TINY = os.path.join(SRC, "tests", "plan_tiny.json")
BASE = ["plan", TINY, "--target", "wait_p95<=30m", "--periods", "4", "--lead-time", "1",
        "--max-nodes", "4", "--replications", "3", "-j", "1"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


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


with tempfile.TemporaryDirectory() as d:
    corrected = 0
    for growth, budget in (("30%", "400k"), ("30%", "700k"), ("20%", "330k"), ("40%", "700k")):
        fa, fb = os.path.join(d, "plain.h5"), os.path.join(d, "screened.h5")
        a = run(BASE + ["--growth", growth, "--budget", budget, "--no-screen", "-o", fa])
        b = run(BASE + ["--growth", growth, "--budget", budget, "--screen", "6h", "-o", fb])
        check(a.returncode == 0 and b.returncode == 0,
              f"{growth} {budget}: exit {a.returncode}, {b.returncode}: {a.stderr} {b.stderr}")
        if a.returncode or b.returncode:
            continue
        check("screened" not in a.stdout, "--no-screen: a screen line")
        line = [x for x in b.stdout.splitlines() if x.startswith("screened ")]
        check(len(line) == 1 and "confirmed in full" in line[0],
              f"{growth} {budget}: the screen's line: {line}")
        if line and "0 corrected" not in line[0]:
            corrected += 1
        na, _, _, ua, _ = read(fa)
        nb, dem, ok, ub, fleets = read(fb)
        check(all(x == 1 for x in ok), f"{growth} {budget}: a period's fleet fails in full")
        prev = None
        for t, (m, dd) in enumerate(zip(nb, dem)):
            key = (round(float(dd), 12), tuple(m))
            check(fleets.get(key) == 1, f"{growth} {budget} period {t + 1}: {m} not passed in full")
            for k in range(len(m)):
                if prev is not None and m[k] <= prev[k]:
                    continue
                if m[k] == 0:
                    continue
                fewer = list(m)
                fewer[k] -= 1
                got = fleets.get((round(float(dd), 12), tuple(fewer)))
                check(got != 1, f"{growth} {budget} period {t + 1}: {fewer} passes in full, so "
                      f"{m} is not minimal")
            prev = m
        check(na == nb and abs(ua - ub) < 1e-6 * max(1, ua),
              f"{growth} {budget}: unscreened {na} ${ua:.0f}, screened {nb} ${ub:.0f}")
        print(f"{growth} {budget}: {nb} with and without the screen; {line[0] if line else ''}")
    print(f"{corrected} of 4 cases had a screened answer corrected in full")
    for bad in ("0", "-2h", "later"):
        p = run(BASE + ["--growth", "30%", "--screen", bad])
        check(p.returncode == 64 and "--screen" in p.stderr,
              f"--screen {bad}: exit {p.returncode}: {p.stderr}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("plan screen: ok")
