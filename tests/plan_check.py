#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""plan_check.py — `tarmac plan` end to end (docs/plan.md).

    plan_check.py gap|cost|bad|file|sigint|cut|rollout

- gap: on a tiny case (tests/plan_tiny.json, 4 quarters, two pools) the
  greedy plan and the exact search's: both meet the targets in every period,
  the exact one costs no more, and without a look-ahead the greedy is
  measurably worse on a case where the look-ahead closes the gap (the gap
  docs/plan.md reports); with roll-outs on estimates (a screen), the gaps
  docs/plan.md reports for them, with the chosen fleets alone confirmed in
  full (the default) and every search confirmed (--confirm-all), and the
  greedy beside --exact is the greedy without it.
- cost: the owning cost per period checked by hand: plan_tiny.json's cost
  model leaves only straight-line depreciation (capex / 5 years), so a
  quarter of owning costs nodes x GPUs x server price / 20; orders cost the
  nodes ordered x their price, and arrive a lead time later.
- bad: zero periods, growth at or below -100 %, a budget that cannot pay for
  the nodes a period needs: a clear message, the exit code, no file.
- file: the HDF5 file read back with h5py (periods, pools, provenance with
  the resolved scenario), `--json` against it, and `tarmac plot` on it: a
  PNG of the stated size.
- cut: the staircase's cuts (docs/plan.md, "The searches"): on the tiny
  case with --lookahead 0 and --max-nodes 7, with and without a budget,
  the greedy cuts steps by their cost bound (--verbose says so); each cut's
  bound is the nodes' depreciation (16,000 per big node, 2,000 per small
  one a quarter: plan_tiny.json leaves nothing else) and is above the cost
  it names, which is the cost of the period's chosen fleet (without a
  roll-out the cheapest the budget pays for); the schedule is the one the
  walk without cuts chose (2+1, 2+2, 2+6, 3+6 nodes, $174,000, recorded
  before the cuts existed), with the budget also the exact search's.
- rollout: the look-ahead roll-out keeps to the budget as the chosen step
  does (docs/plan.md, "The searches"). Tiny case, 30 % growth, quarter 2,
  the roll-out from 2 big + 2 small nodes (--verbose prints its cost; a
  quarter of a big node costs $16,000, of a small one $2,000): without a
  budget it takes 2+4 in quarter 3 ($40,000) and 4+4 in quarter 4
  ($72,000): $112,000, two big nodes ($640,000) ordered in quarter 3; with
  $400k a quarter those cannot be ordered in one quarter, so one is ordered
  a quarter earlier and arrives in quarter 3, costed again as 3+4
  ($56,000): $128,000; with $330k the earlier quarter has only $250,000
  left after the two small nodes, so no single pool carries quarter 4 and
  the roll-out says so. The roll-out from 3+1 ($50,000 + $66,000) needs one
  big node a quarter and is the same in all three. The schedules follow:
  $176,000 (the optimum) without a budget and with $400k, $200,000 with
  $330k (docs/plan.md's gap table).
- sigint: SIGINT during a long plan: exit 130, what was planned and
  simulated so far printed, and written with /plan/complete = 0; during
  --exact, the fleets of the grid simulated so far written the same way.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import h5py

from checklib import BIN, SRC, check, failures
from plan_common import BASE, TINY


def plan(args, cwd):
    return subprocess.run([BIN] + args, capture_output=True, text=True, cwd=cwd)


def gap_line(out):
    for line in out.splitlines():
        if line.startswith("greedy plan:"):
            return line
    return ""


def test_gap(d):
    # with the look-ahead (default 2): the greedy finds the exact optimum
    for growth, budget in (("30%", "400k"), ("30%", "700k"), ("20%", "330k")):
        f = os.path.join(d, f"gap-{growth[:-1]}-{budget}.h5")
        p = plan(BASE + ["--growth", growth, "--budget", budget, "--exact", "-o", f], d)
        check(p.returncode == 0, f"gap {growth} {budget}: exit {p.returncode}: {p.stderr}")
        if p.returncode:
            continue
        with h5py.File(f, "r") as h:
            pl = h["plan"]
            check(pl["search"][()].decode() == "exact", "the --exact file's plan is the exact one")
            exact, greedy = pl["own_usd_total"][()], pl["greedy_own_usd_total"][()]
            check(exact <= greedy + 1e-6, f"exact {exact} costs more than greedy {greedy}")
            check(abs(pl["gap"][()] - (greedy - exact) / exact) < 1e-12, "gap = greedy / exact - 1")
            check(all(pl["pass"][:] == 1), f"{growth} {budget}: a period of the exact plan fails")
            check(pl["greedy_nodes"].shape == pl["nodes"].shape, "greedy_nodes has the plan's shape")
            # the fleet never shrinks
            n = pl["nodes"][:]
            check(all((n[t + 1] >= n[t]).all() for t in range(len(n) - 1)), "a fleet shrank")
            check(pl["gap"][()] == 0, f"{growth} {budget}: look-ahead 2 leaves a gap {pl['gap'][()]}")
    # without it the greedy is myopic: 12.5 % more on this case
    p = plan(BASE + ["--growth", "30%", "--budget", "400k", "--exact", "--lookahead", "0"], d)
    check(p.returncode == 0, f"lookahead 0: exit {p.returncode}: {p.stderr}")
    line = gap_line(p.stdout)
    check("gap 12.50 %" in line, f"lookahead 0: expected a 12.50 % gap, got '{line}'")
    # roll-outs on estimates (a 6-hour screen: the default whenever a screen
    # runs): the gaps docs/plan.md reports. With every search confirmed
    # (--confirm-all) 12.5 % at 30 %, $400k (the screen passes fleets at
    # x2.2 that fail in full, and the roll-out from the dear mix looks
    # cheaper than it is), none at 20 %, $330k. With the chosen fleets alone
    # confirmed (the default) none in either: the screen fails the dead-end
    # mix of quarter 3 (2 + 4, which passes in full), so it is never a
    # candidate. And the greedy beside --exact is the greedy without it (its
    # estimates reuse its own full evaluations, not the exact search's grid)
    for growth, budget, mode, want in (("30%", "400k", ["--confirm-all"], 0.125),
                                       ("20%", "330k", ["--confirm-all"], 0.0),
                                       ("30%", "400k", [], 0.0), ("20%", "330k", [], 0.0)):
        f, g = os.path.join(d, "est-exact.h5"), os.path.join(d, "est.h5")
        args = BASE + ["--growth", growth, "--budget", budget, "--screen", "6h"] + mode
        p = plan(args + ["--exact", "-o", f], d)
        q = plan(args + ["-o", g], d)
        check(p.returncode == 0 and q.returncode == 0,
              f"estimated {growth} {budget}: exit {p.returncode}, {q.returncode}: {p.stderr}")
        if p.returncode or q.returncode:
            continue
        with h5py.File(f, "r") as h, h5py.File(g, "r") as h2:
            pl, alone = h["plan"], h2["plan"]
            check(abs(pl["gap"][()] - want) < 1e-12,
                  f"estimated {growth} {budget} {mode}: gap {pl['gap'][()]}, expected {want}")
            check(alone["confirmation"][()].decode() == ("every search" if mode else "chosen"),
                  f"estimated {growth} {budget} {mode}: /plan/confirmation")
            check(pl["greedy_nodes"][:].tolist() == alone["nodes"][:].tolist(),
                  f"estimated {growth} {budget}: the greedy beside --exact "
                  f"{pl['greedy_nodes'][:].tolist()}, alone {alone['nodes'][:].tolist()}")
            check(alone["rollout"][()].decode() == "estimated", "/plan/rollout estimated")
            check(all(alone["pass"][:] == 1), f"estimated {growth} {budget}: a period fails")


def test_cost(d):
    f = os.path.join(d, "cost.h5")
    p = plan(BASE + ["--growth", "30%", "-o", f], d)
    check(p.returncode == 0, f"cost: exit {p.returncode}: {p.stderr}")
    if p.returncode:
        return
    with h5py.File(f, "r") as h:
        pl = h["plan"]
        names = [x.decode() for x in pl["pool_name"][:]]
        check(names == ["big", "small"], f"pool names {names}")
        # server price per GPU x GPUs per node, nothing on top (plan_tiny.json)
        node_usd = {"big": 8 * 40000.0, "small": 4 * 10000.0}
        check(list(pl["node_usd"][:]) == [node_usd["big"], node_usd["small"]],
              f"node_usd {list(pl['node_usd'][:])}")
        nodes, arrive, order = pl["nodes"][:], pl["arrive"][:], pl["order"][:]
        lead = pl["lead_periods"][:]
        check(list(lead) == [1, 1], f"lead times {list(lead)}")
        check(list(nodes[0]) == [2, 1], "period 1 is the installed fleet (nothing can arrive)")
        for t in range(len(nodes)):
            # a quarter of straight-line depreciation over 5 years: capex / 20
            want = (nodes[t][0] * node_usd["big"] + nodes[t][1] * node_usd["small"]) / 20
            check(abs(pl["own_usd"][t] - want) < 1e-6 * want,
                  f"period {t + 1}: own_usd {pl['own_usd'][t]}, by hand {want}")
            prev = nodes[t - 1] if t else [2, 1]
            check(list(arrive[t]) == [nodes[t][k] - prev[k] for k in range(2)],
                  f"period {t + 1}: arrivals are the fleet's growth")
            # ordered one quarter before they arrive
            nxt = arrive[t + 1] if t + 1 < len(nodes) else [0, 0]
            check(list(order[t]) == list(nxt), f"period {t + 1}: orders {list(order[t])}, arrivals next {list(nxt)}")
            want_o = order[t][0] * node_usd["big"] + order[t][1] * node_usd["small"]
            check(abs(pl["order_usd"][t] - want_o) < 1e-6, f"period {t + 1}: order_usd")
        check(abs(pl["own_usd_total"][()] - sum(pl["own_usd"][:])) < 1e-6, "own_usd_total")
        # demand compounds
        check(all(abs(pl["demand"][t] - 1.3 ** t) < 1e-12 for t in range(4)), "demand 1.3^t")
        # the hand-checked figure of the docs (docs/plan.md): 4 quarters, $176,000
        check(abs(pl["own_usd_total"][()] - 176000) < 1e-6, f"total {pl['own_usd_total'][()]}")


def test_bad(d):
    cases = [
        (["--periods", "0", "--growth", "5%"], 64, "--periods"),
        (["--periods", "3", "--growth", "-100%"], 64, "--growth"),
        (["--periods", "3", "--growth", "-1.5"], 64, "--growth"),
        (["--periods", "3"], 64, "--growth is required"),
        (["--periods", "4", "--growth", "30%", "--budget", "200k", "--max-nodes", "4"], 65,
         "budget of \\$200,000 per period cannot pay"),
        (["--periods", "4", "--growth", "30%", "--budget", "-5"], 64, "--budget"),
        (["--periods", "4", "--growth", "30%", "--lead-time", "tiny=2"], 64, "no pool named 'tiny'"),
        (["--periods", "40", "--growth", "5%", "--exact", "--max-nodes", "1000"], 64,
         "exact search would simulate more than"),
    ]
    for extra, code, msg in cases:
        args = ["plan", TINY, "--target", "wait_p95<=30m", "--replications", "3", "-j", "1",
                "--lead-time", "1", "-o", "out.h5"] + extra
        with tempfile.TemporaryDirectory() as sd:
            p = subprocess.run([BIN] + args, capture_output=True, text=True, cwd=sd)
            check(p.returncode == code, f"{extra}: exit {p.returncode}, expected {code}: {p.stderr}")
            check(re.search(msg, p.stderr) is not None, f"{extra}: stderr lacks '{msg}': {p.stderr}")
            check(os.listdir(sd) == [], f"{extra}: left {os.listdir(sd)}")
    # the lead time: nothing can arrive in period 1, which fails
    with tempfile.TemporaryDirectory() as sd:
        p = subprocess.run([BIN, "plan", TINY, "--target", "wait_p95<=1s", "--periods", "2",
                            "--growth", "0", "--replications", "2", "-j", "1", "-o", "out.h5"],
                           capture_output=True, text=True, cwd=sd)
        check(p.returncode == 65, f"lead time: exit {p.returncode}: {p.stderr}")
        check("lead times" in p.stderr, f"lead time: {p.stderr}")
        check(os.listdir(sd) == [], f"lead time: left {os.listdir(sd)}")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def test_file(d):
    f = os.path.join(d, "tarmac-plan.h5")
    p = plan(BASE + ["--growth", "30%", "-o", f], d)
    check(p.returncode == 0, f"file: exit {p.returncode}: {p.stderr}")
    if p.returncode:
        return
    with h5py.File(f, "r") as h:
        check(h.attrs["kind"] == "plan", "root kind = plan")
        pl = h["plan"]
        check(pl["complete"][()] == 1 and pl["found"][()] == 1, "complete and found")
        check(pl["periods"][()] == 4 and pl["months_per_period"][()] == 3, "4 quarters")
        check(abs(pl["growth_per_period"][()] - 0.3) < 1e-12, "growth")
        check(len(pl["demand"]) == 4 and pl["nodes"].shape == (4, 2), "period arrays")
        check(pl["mean"].shape == (4, 1) and pl["bound"].shape == (4, 1), "one term")
        check(all(pl["runs"][:] == 3), "3 replications per period")
        check(all(0 <= pl["runs_meeting"][t] <= 3 for t in range(4)), "spread in [0, 3]")
        # every period's fleet is one of the fleets simulated, at its demand
        fn, fd = pl["fleet_nodes"][:], pl["fleet_demand"][:]
        for t in range(4):
            rows = [i for i in range(len(fd)) if fd[i] == pl["demand"][t] and (fn[i] == pl["nodes"][t]).all()]
            check(len(rows) == 1, f"period {t + 1}: its fleet is in the fleet list once")
            if rows:
                usd = pl["fleet_usd_per_month"][rows[0]][1] * 3  # owned
                check(abs(usd - pl["own_usd"][t]) < 1e-6 * usd, f"period {t + 1}: own_usd from the fleet's cost")
        prov = h["provenance"]
        resolved = json.loads(prov["scenario_resolved"][()])
        check(resolved["name"] == "plan-tiny", "provenance: the resolved scenario")
        check("tarmac_version" in prov, "provenance: the version")
    # --json: the same plan as the file, on stdout alone (the text goes)
    p = plan(BASE + ["--growth", "30%", "--json"], d)
    check(p.returncode == 0, f"json: exit {p.returncode}: {p.stderr}")
    if p.returncode == 0:
        js = json.loads(p.stdout)
        with h5py.File(f, "r") as h:
            pl = h["plan"]
            check(js["command"] == "plan" and js["search"] == "greedy", "json: command, search")
            check(js["rollout"] == pl["rollout"][()].decode(), f"json: rollout {js['rollout']}")
            check([x["nodes"] for x in js["schedule"]] == pl["nodes"][:].astype(int).tolist(),
                  "json: the schedule's nodes are the file's")
            check([x["arrive"] for x in js["schedule"]] == pl["arrive"][:].astype(int).tolist(),
                  "json: arrivals")
            check(abs(js["own_usd_total"] - pl["own_usd_total"][()]) < 1e-6, "json: own_usd_total")
            check(all(abs(x["own_usd"] - pl["own_usd"][t]) < 1e-6
                      for t, x in enumerate(js["schedule"])), "json: own_usd per period")
            check([x["name"] for x in js["pools"]] == ["big", "small"], "json: pools")
            check(js["budget_usd_per_period"] is None, "json: no budget is null")
            check(js["fleets_simulated"] == len(pl["fleet_demand"]), "json: fleets simulated")
    out = os.path.join(d, "plots")
    p = subprocess.run([BIN, "plot", f, "-o", out, "--only", "plan"], capture_output=True, text=True)
    check(p.returncode == 0, f"plot: exit {p.returncode}: {p.stderr}")
    png = os.path.join(out, "plan.png")
    check(os.path.isfile(png), "plan.png written")
    if os.path.isfile(png):
        w, hgt = png_size(png)
        check((w, hgt) == (1300, 620), f"plan.png is {w}x{hgt}, expected 1300x620")
        check(os.path.getsize(png) > 10000, f"plan.png has {os.path.getsize(png)} bytes")


def test_cut(d):
    cut_re = re.compile(r"^  cut big (\d+) nodes? .*, small (\d+) nodes? .* and more small nodes at "
                        r"demand x(\S+): they cost at least \$(\d+) a period, above \$(\d+)")
    for budget in (None, "330k"):
        f = os.path.join(d, f"cut-{budget}.h5")
        args = ["plan", TINY, "--target", "wait_p95<=30m", "--periods", "4", "--lead-time", "1",
                "--max-nodes", "7", "--replications", "3", "-j", "1", "--growth", "30%",
                "--lookahead", "0", "--no-screen", "--verbose", "--exact", "-o", f]
        if budget:
            args += ["--budget", budget]
        p = plan(args, d)
        check(p.returncode == 0, f"cut {budget}: exit {p.returncode}: {p.stderr[-400:]}")
        if p.returncode:
            continue
        cuts = [cut_re.match(x) for x in p.stderr.splitlines() if x.startswith("  cut ")]
        check(len(cuts) >= 2 and all(cuts), f"cut {budget}: cut lines {cuts}")
        with h5py.File(f, "r") as h:
            pl = h["plan"]
            greedy = pl["greedy_nodes"][:].tolist()
            demand = pl["demand"][:].tolist()
            check(greedy == [[2, 1], [2, 2], [2, 6], [3, 6]], f"cut {budget}: greedy {greedy}")
            check(abs(pl["greedy_own_usd_total"][()] - 174000) < 1e-6, "cut: greedy $174,000")
            # with the budget, the exact optimum too; without, the myopic
            # greedy is 3.6 % off (exact $168,000), as it was before the cuts
            if budget:
                check(pl["gap"][()] == 0, f"cut {budget}: gap {pl['gap'][()]}")
            else:
                check(abs(pl["own_usd_total"][()] - 168000) < 1e-6, "cut: exact $168,000")
        for m in cuts:
            if not m:
                continue
            big, small, dem, lb, above = (int(m[1]), int(m[2]), float(m[3]), int(m[4]),
                                          int(m[5]))
            check(lb == 16000 * big + 2000 * small, f"cut: bound {lb} for {big}+{small}")
            check(lb > above, f"cut: bound {lb} not above {above}")
            t = min(range(len(demand)), key=lambda i: abs(demand[i] - dem))
            chosen = 16000 * greedy[t][0] + 2000 * greedy[t][1]
            check(above == chosen, f"cut at x{dem}: above ${above}, the chosen fleet ${chosen}")


def test_rollout(d):
    ro = re.compile(r"^  roll-out from big (\d+) nodes? .*, small (\d+) nodes? [^:]*: (.*)$")
    want = {None: ("$112000 over the periods ahead", 176000),
            "400k": ("$128000 over the periods ahead", 176000),
            "330k": ("no single pool carries a period ahead within the budget", 200000)}
    for budget, (from22, total) in want.items():
        f = os.path.join(d, f"rollout-{budget}.h5")
        args = BASE + ["--growth", "30%", "--no-screen", "--verbose", "-o", f]
        if budget:
            args += ["--budget", budget]
        p = plan(args, d)
        check(p.returncode == 0, f"rollout {budget}: exit {p.returncode}: {p.stderr[-400:]}")
        if p.returncode:
            continue
        lines = [ro.match(x) for x in p.stderr.splitlines() if x.startswith("  roll-out from")]
        got = {(int(m[1]), int(m[2])): m[3] for m in lines[:2] if m}
        check(got.get((2, 2)) == from22, f"rollout {budget}: from 2+2 '{got.get((2, 2))}'")
        check(got.get((3, 1)) == "$116000 over the periods ahead",
              f"rollout {budget}: from 3+1 '{got.get((3, 1))}'")
        with h5py.File(f, "r") as h:
            check(abs(h["plan"]["own_usd_total"][()] - total) < 1e-6,
                  f"rollout {budget}: total {h['plan']['own_usd_total'][()]}, want {total}")


def test_sigint(d):
    import signal
    import time
    f = os.path.join(d, "int.h5")
    p = subprocess.Popen([BIN, "plan", os.path.join(SRC, "tests", "analysis_small.json"), "--target",
                          "wait_p95<=3h", "--periods", "60", "--growth", "10%", "--lead-time", "0",
                          "--replications", "3", "-j", "1", "-o", f],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 130, f"sigint: exit {p.returncode}: {err[-400:]}")
    check("periods planned before the interruption" in err, f"sigint: stderr {err[-400:]}")
    check(os.path.isfile(f), "sigint: the file of what was planned so far")
    if os.path.isfile(f):
        with h5py.File(f, "r") as h:
            check(h["plan/complete"][()] == 0, "sigint: complete = 0")
            check(h["plan/periods"][()] == 60, "sigint: periods as asked")
            check(h["plan/nodes"].shape[0] < 60, "sigint: fewer periods planned than asked")
    # during --exact (the grid is simulated first): the fleets simulated so
    # far are written, no period planned, complete = 0
    f = os.path.join(d, "int-exact.h5")
    p = subprocess.Popen([BIN, "plan", os.path.join(SRC, "tests", "analysis_small.json"), "--target",
                          "wait_p95<=3h", "--periods", "6", "--growth", "10%", "--lead-time", "0",
                          "--max-nodes", "20", "--exact", "--replications", "3", "-j", "1",
                          "-o", f],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 130, f"sigint --exact: exit {p.returncode}: {err[-400:]}")
    m = re.search(r"wrote the (\d+) fleets simulated so far", err)
    check(m is not None, f"sigint --exact: stderr {err[-400:]}")
    check(os.path.isfile(f), "sigint --exact: the file of the fleets simulated so far")
    if os.path.isfile(f) and m:
        with h5py.File(f, "r") as h:
            pl = h["plan"]
            check(pl["complete"][()] == 0 and pl["found"][()] == 0, "sigint --exact: complete 0")
            check(pl["search"][()].decode() == "exact", "sigint --exact: search exact")
            check(pl["nodes"].shape[0] == 0, f"sigint --exact: {pl['nodes'].shape[0]} periods")
            n = len(pl["fleet_demand"])
            check(n == int(m[1]) and 0 < n < 6 * 13 * 13,
                  f"sigint --exact: {n} fleets in the file, {m[1]} said, of {6 * 13 * 13}")


with tempfile.TemporaryDirectory() as d:
    {"gap": test_gap, "sigint": test_sigint, "cost": test_cost, "bad": test_bad, "file": test_file,
     "cut": test_cut, "rollout": test_rollout}[sys.argv[1]](d)
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
