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
#   - with the default (roll-outs on estimates, the chosen fleets alone
#     confirmed in full: docs/plan.md, "Confirmation"), every period's fleet
#     still passes in full (/plan/pass, and its row in /plan/fleet_*) with
#     all R replications, is the one chosen candidate of its period in
#     /plan/candidate_* with that full verdict, has the one-fewer neighbour
#     of its confirmed pool failing in full where it was above the floor,
#     and is minimal in full where no budget can have made nodes arrive
#     earlier; /plan/rollout and /plan/confirmation say which; and it
#     simulates fewer fleets in full over the cases than --confirm-all,
#     which simulates fewer than the full roll-outs;
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


def chosen_confirmed(tag, path):
    """Every period's fleet is its period's one chosen candidate, simulated in
    full with all R replications and passing; the one-fewer fleet of the pool
    it was confirmed in, when simulated, fails in full and is the spread's."""
    with h5py.File(path, "r") as h:
        p = h["plan"]
        R = int(p["replications"][()])
        nodes, dem = p["nodes"][:].tolist(), p["demand"][:].tolist()
        runs = {}
        for d, n, ok, r in zip(p["fleet_demand"][:], p["fleet_nodes"][:], p["fleet_pass"][:],
                               p["fleet_runs"][:]):
            runs[(round(float(d), 12), tuple(int(x) for x in n))] = (int(ok), int(r))
        cp, cn = p["candidate_period"][:].tolist(), p["candidate_nodes"][:].tolist()
        cc, cf = p["candidate_chosen"][:].tolist(), p["candidate_full_pass"][:].tolist()
        cr, cpool = p["candidate_full_runs"][:].tolist(), p["candidate_pool"][:].tolist()
        fewer = p["fewer_pool"][:].tolist()
        for t, (m, dd) in enumerate(zip(nodes, dem)):
            ch = [i for i in range(len(cp)) if cp[i] == t and cc[i] == 1]
            check(len(ch) == 1, f"{tag} period {t + 1}: {len(ch)} chosen candidates")
            if len(ch) != 1:
                continue
            i = ch[0]
            # the same fleet, unless a later period's budget fallback ordered
            # nodes earlier and raised it (then the raised fleet is simulated
            # in full below)
            same = [int(x) for x in cn[i]] == [int(x) for x in m]
            check(same or all(int(x) >= int(y) for x, y in zip(m, cn[i])),
                  f"{tag} period {t + 1}: the chosen candidate {cn[i]}, the plan {m}")
            check(cf[i] == 1 and cr[i] == R,
                  f"{tag} period {t + 1}: the chosen {m} not confirmed in full with {R} runs "
                  f"(full {cf[i]}, {cr[i]} runs)")
            key = (round(float(dd), 12), tuple(int(x) for x in m))
            check(runs.get(key) == (1, R),
                  f"{tag} period {t + 1}: {m} in /plan/fleet_*: {runs.get(key)}, expected (1, {R})")
            if not same:
                continue
            k = int(cpool[i])
            less = list(int(x) for x in m)
            less[k] -= 1
            got = runs.get((round(float(dd), 12), tuple(less)))
            if got is not None:
                check(got[0] == 0, f"{tag} period {t + 1}: {less} passes in full")
                check(fewer[t] == k, f"{tag} period {t + 1}: fewer_pool {fewer[t]}, confirmed {k}")


def fleets_in_full(out):
    for x in out.splitlines():
        if x.startswith("search:"):
            return int(x.split("simulated ")[1].split(" fleets")[0])
    return -1


with tempfile.TemporaryDirectory() as d:
    corrected, full_est, full_full, full_all = 0, 0, 0, 0
    for growth, budget in (("30%", "400k"), ("30%", "700k"), ("20%", "330k"), ("40%", "700k"),
                           ("30%", None)):
        fa, fb, fc = (os.path.join(d, x) for x in ("plain.h5", "est.h5", "full.h5"))
        money = ["--budget", budget] if budget else []
        tag = f"{growth} {budget or 'no budget'}"
        a = run(BASE + ["--growth", growth, "--no-screen", "-o", fa] + money)
        b = run(BASE + ["--growth", growth, "--screen", "6h", "-o", fb] + money)
        c = run(BASE + ["--growth", growth, "--screen", "6h", "--full-rollouts", "-o", fc] + money)
        fe = os.path.join(d, "all.h5")
        e = run(BASE + ["--growth", growth, "--screen", "6h", "--confirm-all", "-o", fe] + money)
        check(a.returncode == 0 and b.returncode == 0 and c.returncode == 0 and e.returncode == 0,
              f"{tag}: exit {a.returncode}, {b.returncode}, {c.returncode}, {e.returncode}: "
              f"{a.stderr} {b.stderr} {c.stderr} {e.stderr}")
        if a.returncode or b.returncode or c.returncode or e.returncode:
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
        chosen_confirmed(tag + " estimated", fb)
        chosen_confirmed(tag + " confirm-all", fe)
        chosen_confirmed(tag + " full roll-outs", fc)
        with h5py.File(fb, "r") as h, h5py.File(fc, "r") as h2, h5py.File(fa, "r") as h3:
            check(h["plan/rollout"][()].decode() == "estimated", f"{tag}: /plan/rollout")
            check(h2["plan/rollout"][()].decode() == "full", f"{tag}: /plan/rollout full")
            check(h3["plan/rollout"][()].decode() == "full", f"{tag}: /plan/rollout unscreened")
            for hh, want in ((h, "chosen"), (h2, "every search"), (h3, "every fleet")):
                got = hh["plan/confirmation"][()].decode()
                check(got == want, f"{tag}: /plan/confirmation {got}, expected {want}")
        full_est += fleets_in_full(b.stdout)
        full_full += fleets_in_full(c.stdout)
        full_all += fleets_in_full(e.stdout)
        print(f"{tag}: unscreened and full roll-outs {nc} ${uc:.0f}; estimated roll-outs {nb} "
              f"${ub:.0f}; {line[0] if line else ''}")
    print(f"{corrected} of 5 cases had a screened answer corrected in full; fleets in full: "
          f"{full_est} with the chosen fleets confirmed, {full_all} with every search "
          f"confirmed, {full_full} with full roll-outs")
    check(0 < full_est < full_all < full_full,
          f"fleets in full: {full_est} (chosen confirmed), {full_all} (every search), "
          f"{full_full} (full roll-outs)")
    for bad in ("0", "-2h", "later"):
        p = run(BASE + ["--growth", "30%", "--screen", bad])
        check(p.returncode == 64 and "--screen" in p.stderr,
              f"--screen {bad}: exit {p.returncode}: {p.stderr}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("plan screen: ok")
