#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks of `tarmac sensitivity` at each end beyond the cost (tests/sensitivity_ends.cmake);
one part per test:
  breakeven  --breakeven: the breakeven volume with the API price x0.8 is above the base's
             (or owning never wins), with x1.2 below it; each equals what `tarmac breakeven`
             finds on a copy of the scenario with the API price written x0.8 / x1.2
  json       --json parses, and carries the numbers of the table (to the table's precision)
             and of the file (exactly), breakeven and size included
  reps       --replications 4: every replication of the base and of the growth ends equals a
             `tarmac run --replication r` of the (moved) scenario accounted; the mean is theirs
             and lies inside the printed interval; replication 0 is the one-replication answer
  bad        bad flags: exit 64 with a message naming the flag, no file left
  size       --size-target: a price end is the base size marked unchanged (not searched
             again); the simulated ends equal `tarmac size` on the moved scenario
"""
import copy
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BIN = os.environ["TARMAC_BIN"]
SRC = os.environ["TARMAC_SRC"]
SMALL = os.path.join(SRC, "tests", "sensitivity_small.json")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(args, cwd):
    return subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True, timeout=600)


def ok(args, cwd):
    p = run(args, cwd)
    if p.returncode != 0:
        fail(f"{' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def small():
    with open(SMALL) as f:
        return json.load(f)


def priced(sc, f):
    """sc with the service's API price given in the scenario (0.18 USD/Mtok, the catalog's
    price of the mapped API) times f, instead of the catalog mapping"""
    sc = copy.deepcopy(sc)
    sc.pop("cost", None)
    sc["workload"]["services"][0]["api_price"] = {"input_usd_per_mtok": 0.18 * f,
                                                  "output_usd_per_mtok": 0.18 * f}
    return sc


def write(d, name, sc):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        json.dump(sc, f)
    return p


def by_input(j):
    return {x["input"]: x for x in j["inputs"]}


def part_breakeven(d):
    base = write(d, "base.json", priced(small(), 1))
    p = ok(["sensitivity", base, "--breakeven", "--search-replications", "2", "-j", "1", "--json",
            "-o", "s.h5"], d)
    j = json.loads(p.stdout)
    b0 = j["base"]["breakeven"]
    api = by_input(j)["api_price"]
    lo, hi = api["low"]["breakeven"], api["high"]["breakeven"]
    if b0["state"] != "crosses":
        fail(f"the base should cross in the default range: {b0}")
    # a cheaper API moves the breakeven up (or out of the range), a dearer one down
    if not (lo["state"] == "never" or lo["tokens_per_month"] > b0["tokens_per_month"]):
        fail(f"API price x0.8: {lo}, base {b0}: should move up")
    if not (hi["state"] == "at_lowest" or hi["tokens_per_month"] < b0["tokens_per_month"]):
        fail(f"API price x1.2: {hi}, base {b0}: should move down")
    for f, got, name in ((1, b0, "base"), (0.8, lo, "low"), (1.2, hi, "high")):
        sc = write(d, f"api{f}.json", priced(small(), f))
        q = ok(["breakeven", sc, "--replications", "2", "-j", "1", "--json", "-o", f"b{f}.h5"], d)
        want = json.loads(q.stdout)["own_beats_api_tokens_per_month"]
        g = got["tokens_per_month"]
        if want is None or g is None:
            if not (want is None and g is None):
                fail(f"{name}: sensitivity {got}, tarmac breakeven {want}")
        elif not abs(g - want) <= 1e-9 * want:
            fail(f"{name}: sensitivity {g!r} tokens/month, tarmac breakeven {want!r}")
        print(f"API price x{f}: owning beats the API from {g} tokens/month (= tarmac breakeven)")
    # no crossover: at x0.1 the API price is too low for owning to win in the range, and the
    # table says so, by how much, as tarmac breakeven does
    p = ok(["sensitivity", base, "--breakeven", "--delta", "90%", "--search-replications", "2",
            "-j", "1", "-o", "n.h5"], d)
    if not re.search(r"^API price\s+none up to [\d.]+ T", p.stdout, re.M):
        fail(f"--delta 90%: the API price row should say 'none up to': {p.stdout}")
    m = re.search(r"^API price x 0\.1: owning still loses at ([\d.]+ T) tokens/month: "
                  r"(\$[\d,]+) a month against the API's (\$[\d,]+)", p.stdout, re.M)
    if not m:
        fail(f"--delta 90%: no 'owning still loses' line: {p.stdout}")
    sc = write(d, "api0.1.json", priced(small(), 1 - 0.9))
    q = ok(["breakeven", sc, "--replications", "2", "-j", "1", "-o", "b01.h5"], d)
    w = re.search(r"owning does not beat the API in this range; at ([\d.]+) T tokens/month it "
                  r"costs (\$[\d,]+) a month against the API's (\$[\d,]+)", q.stdout)
    if not w:
        fail(f"tarmac breakeven at x0.1: {q.stdout}")
    if abs(float(w.group(1)) - float(m.group(1).split()[0])) > 0.006 or \
            w.group(2, 3) != m.group(2, 3):
        fail(f"tarmac breakeven at x0.1 says {w.group(0)}\nsensitivity: {m.group(0)}")
    print(f"API price x0.1: {m.group(0)} (as tarmac breakeven says)")
    # the file has them
    with h5py.File(os.path.join(d, "s.h5"), "r") as h:
        g = h["sensitivity"]
        names = [x.decode() if isinstance(x, bytes) else x for x in g["input"][()]]
        i = names.index("api_price")
        if g["breakeven/tokens_per_month_low"][i] != lo["tokens_per_month"] and not (
                lo["tokens_per_month"] is None and math.isnan(g["breakeven/tokens_per_month_low"][i])):
            fail("file and JSON differ (breakeven low)")
        if g["breakeven/base/tokens_per_month"][()] != b0["tokens_per_month"]:
            fail("file and JSON differ (breakeven base)")


def table_numbers(line):
    return [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", line)]


def part_json(d):
    args = ["sensitivity", SMALL, "--replications", "3", "--breakeven", "--size-target",
            "wait_p95<=10m", "--search-replications", "2", "-j", "1"]
    t = ok(args + ["-o", "t.h5"], d).stdout
    p = ok(args + ["--json", "-o", "j.h5"], d)
    try:
        j = json.loads(p.stdout)
    except ValueError as e:
        fail(f"--json does not parse: {e}: {p.stdout[:500]}")
    if j["command"] != "sensitivity" or j["replications"] != 3 or j["output"] != "j.h5":
        fail(f"header {j['command']} {j['replications']} {j['output']}")
    rows = by_input(j)
    labels = {"gpu_price": "GPU price", "power_price": "power price", "api_price": "API price",
              "staff_cost": "staff cost", "utilization_target": "utilization target",
              "growth_rate": "growth rate"}
    lines = t.splitlines()
    checked = 0
    for key, lab in labels.items():
        r = rows[key]
        ln = [x for x in lines if x.startswith(lab + " ") and "[" in x]
        if len(ln) != 1:
            fail(f"{lab}: no table row with intervals in {t}")
        nums = table_numbers(ln[0])
        # base low high, then per output: low [lo, hi] high [lo, hi], swing between
        lo, hi = r["low"], r["high"]
        want = [lo["usd_per_useful_gpu_h"], lo["usd_per_useful_gpu_h_ci_lo"],
                lo["usd_per_useful_gpu_h_ci_hi"], hi["usd_per_useful_gpu_h"],
                hi["usd_per_useful_gpu_h_ci_lo"], hi["usd_per_useful_gpu_h_ci_hi"], r["swing"]]
        got = nums[-13:-6]
        for g, w in zip(got, want):
            if abs(g - w) > 0.51e-4:
                fail(f"{lab}: table {got}, JSON {want}")
        want = [lo["usd_per_month"], lo["usd_per_month_ci_lo"], lo["usd_per_month_ci_hi"],
                hi["usd_per_month"], hi["usd_per_month_ci_lo"], hi["usd_per_month_ci_hi"]]
        for g, w in zip(nums[-6:], want):
            if abs(g - w) > 0.51:
                fail(f"{lab}: table {nums[-6:]}, JSON {want}")
        checked += 1
        # breakeven row: the volumes as printed (4 significant digits)
        be = [x for x in lines if x.startswith(lab + " ") and "[" not in x and " B" in x]
        if len(be) != 1:
            fail(f"{lab}: no breakeven row")
        vols = [float(v) * 1e9 for v in re.findall(r"([\d.]+) B", be[0])]
        for v, e in zip(vols, (lo["breakeven"], hi["breakeven"])):
            if not abs(v - e["tokens_per_month"]) <= 5e-4 * v:
                fail(f"{lab}: breakeven printed {vols}, JSON {lo['breakeven']}, {hi['breakeven']}")
        # size row
        sz = [x for x in lines if x.startswith(lab + " ") and ("unchanged" in x or "low:" in x)]
        if len(sz) != 1:
            fail(f"{lab}: no size row")
        if r["resimulated"]:
            n = [int(x) for x in re.findall(r"h100 (\d+) nodes", sz[0])]
            if n != [lo["size"]["nodes"]["h100"], hi["size"]["nodes"]["h100"]]:
                fail(f"{lab}: size printed {n}, JSON {lo['size']} {hi['size']}")
        elif lo["size"]["state"] != "unchanged" or "unchanged" not in sz[0]:
            fail(f"{lab}: a price should leave the size unchanged: {lo['size']}")
    # the JSON and the file carry the same numbers, exactly
    with h5py.File(os.path.join(d, "j.h5"), "r") as h:
        g = h["sensitivity"]
        names = [x.decode() if isinstance(x, bytes) else x for x in g["input"][()]]
        for i, n in enumerate(names):
            for side in ("low", "high"):
                for o in ("usd_per_useful_gpu_h", "usd_per_month"):
                    if g[f"{o}_{side}"][i] != rows[n][side][o]:
                        fail(f"{n} {side} {o}: file {g[f'{o}_{side}'][i]!r} JSON {rows[n][side][o]!r}")
                    if g[f"{o}_{side}_ci_lo"][i] != rows[n][side][o + "_ci_lo"]:
                        fail(f"{n} {side} {o}: interval differs")
                if g[f"size/gpus_{side}"][i] != rows[n][side]["size"]["gpus"]:
                    fail(f"{n} {side}: size GPUs differ")
        if g["base/usd_per_month"][()] != j["base"]["usd_per_month"]:
            fail("base differs")
    print(f"json: parses; {checked} rows equal the table's and the file's numbers")


def run_cost(d, scen, rep, name):
    ok(["run", scen, "-q", "--replication", str(rep), "-o", name], d)
    with h5py.File(os.path.join(d, name), "r") as f:
        return f["cost/usd_per_work_ref_gpu_hour"][()], f["cost/usd_per_month"][()]


def part_reps(d):
    R = 4
    p = ok(["sensitivity", SMALL, "--replications", str(R), "--json", "-o", "r.h5"], d)
    j = json.loads(p.stdout)
    one = json.loads(ok(["sensitivity", SMALL, "--json", "-o", "one.h5"], d).stdout)
    sc = small()
    hi = copy.deepcopy(sc)
    hi["workload"]["classes"][0]["arrival"]["growth_per_month"] = 0.1 * 1.2
    hi_path = write(d, "growth_hi.json", hi)
    with h5py.File(os.path.join(d, "r.h5"), "r") as h:
        g = h["sensitivity"]
        names = [x.decode() if isinstance(x, bytes) else x for x in g["input"][()]]
        gi = names.index("growth_rate")
        if g["replications"][()] != R or g["usd_per_useful_gpu_h_high_reps"].shape != (6, R):
            fail("replications in the file")
        base_reps = g["base/usd_per_useful_gpu_h_reps"][()]
        hi_reps = g["usd_per_useful_gpu_h_high_reps"][gi]
        hi_ci = (g["usd_per_useful_gpu_h_high_ci_lo"][gi], g["usd_per_useful_gpu_h_high_ci_hi"][gi])
        base_ci = (g["base/usd_per_useful_gpu_h_ci_lo"][()], g["base/usd_per_useful_gpu_h_ci_hi"][()])
    single_base, single_hi = [], []
    for r in range(R):
        single_base.append(run_cost(d, SMALL, r, f"b{r}.h5")[0])
        single_hi.append(run_cost(d, hi_path, r, f"h{r}.h5")[0])
        if base_reps[r] != single_base[r]:
            fail(f"base replication {r}: sensitivity {base_reps[r]!r}, tarmac run {single_base[r]!r}")
        if abs(hi_reps[r] - single_hi[r]) > 1e-12 * single_hi[r]:
            fail(f"growth x1.2 replication {r}: sensitivity {hi_reps[r]!r}, run {single_hi[r]!r}")
    for name, singles, ci, mean in (
            ("base", single_base, base_ci, j["base"]["usd_per_useful_gpu_h"]),
            ("growth x1.2", single_hi, hi_ci, by_input(j)["growth_rate"]["high"]["usd_per_useful_gpu_h"])):
        m = float(np.mean(singles))
        if abs(m - mean) > 1e-12 * m:
            fail(f"{name}: mean {mean!r}, the single replications' mean {m!r}")
        if not (ci[0] < m < ci[1]):
            fail(f"{name}: interval {ci} does not contain the replications' mean {m}")
        if len(set(singles)) < 2:
            fail(f"{name}: the replications are all equal ({singles}): no spread to test")
        print(f"{name}: {R} replications {['%.4f' % x for x in singles]}, mean {m:.4f} in "
              f"[{ci[0]:.4f}, {ci[1]:.4f}]")
    # replication 0 alone is the one-replication answer
    if one["base"]["usd_per_useful_gpu_h"] != single_base[0]:
        fail("one replication: base is not replication 0")
    if one["base"]["usd_per_useful_gpu_h_ci_lo"] is not None:
        fail("one replication: an interval where there is none")
    # the tornado draws the intervals
    for h5, want in (("r.h5", 1), ("one.h5", 0)):
        q = ok(["plot", h5, "-o", "pics" + h5], d)
        if "warning" in q.stderr:
            fail(f"plot {h5}: {q.stderr}")
        with open(os.path.join(d, "pics" + h5, "tornado.gp")) as f:
            gp = f.read()
        if ("xerrorbars" in gp) != bool(want):
            fail(f"{h5}: the tornado should {'' if want else 'not '}draw intervals")
        with open(os.path.join(d, "pics" + h5, "tornado.dat")) as f:
            rows_ = [ln.split() for ln in f if not ln.startswith("#")]
        # the first row (the largest swing): its low end's interval as in the file
        lo_ci = rows_[0][6:8]
        if want and ("NaN" in lo_ci or float(lo_ci[0]) >= float(lo_ci[1])):
            fail(f"{h5}: tornado.dat interval {lo_ci}")
    print("tornado: error bars from the intervals with replications, none without")


def part_bad(d):
    cases = [(["--replications", "0"], r"--replications needs an integer"),
             (["--replications", "x"], r"--replications needs an integer"),
             (["--search-replications", "0", "--breakeven"], r"--search-replications needs"),
             (["--max-nodes", "0", "--breakeven"], r"--max-nodes needs"),
             (["--size-pools", "h100"], r"--size-pools goes with --size-target"),
             (["--breakeven-pools", "h100"], r"--breakeven-pools goes with --breakeven"),
             (["--search-replications", "2"], r"go with --breakeven or --size-target"),
             (["-j", "2"], r"go with --breakeven or --size-target"),
             (["--size-target", "bogus<=1"], r"--size-target: 'bogus<=1': unknown metric"),
             (["--size-target", "wait_p95>=10m"], r"--size-target"),
             (["--size-target", "wait_p95<=10m", "--size-pools", "nope"],
              r"--size-pools: no pool named 'nope'"),
             (["--breakeven", "--breakeven-pools", "h100,h100"],
              r"--breakeven-pools: 'h100' given twice"),
             (["--breakeven", "--frobnicate"], r"--frobnicate")]
    for extra, msg in cases:
        p = run(["sensitivity", SMALL, "-o", "bad.h5"] + extra, d)
        if p.returncode != 64 or not re.search(msg, p.stderr):
            fail(f"{extra}: exit {p.returncode} (want 64), stderr {p.stderr!r}")
        if os.listdir(d):
            fail(f"{extra}: left {os.listdir(d)}")
    # the embedded default has 5 pools, the searches at most 4: the flag to name them
    for flag, name in (("--breakeven", "--breakeven-pools"), ("--size-target=wait_p95<=1h",
                                                               "--size-pools")):
        p = run(["sensitivity", flag, "-o", "bad.h5"], d)
        if p.returncode != 64 or f"name at most 4 with {name}" not in p.stderr or os.listdir(d):
            fail(f"{flag} on 5 pools: exit {p.returncode}, {p.stderr!r}")
    # breakeven needs a service: a data error, not a usage one
    p = run(["sensitivity", os.path.join(SRC, "scenarios", "teams.json"), "--breakeven", "-o",
             "bad.h5"], d)
    if p.returncode != 65 or "needs at least one service" not in p.stderr or os.listdir(d):
        fail(f"--breakeven without services: exit {p.returncode}, {p.stderr!r}")
    print(f"bad flags: {len(cases)} x exit 64 with the flag named, no file")


def part_size(d):
    target = "wait_p95<=10m"
    p = ok(["sensitivity", SMALL, "--size-target", target, "--search-replications", "3", "-j",
            "1", "--json", "-o", "z.h5"], d)
    j = by_input(json.loads(p.stdout))
    base = json.loads(p.stdout)["base"]["size"]
    for k in ("gpu_price", "power_price", "staff_cost", "api_price"):
        for side in ("low", "high"):
            s = j[k][side]["size"]
            if s["state"] != "unchanged" or s["nodes"] != base["nodes"]:
                fail(f"{k} {side}: {s}, base {base}")
    sc = small()
    ends = {"growth_rate": [], "utilization_target": []}
    for f in (0.8, 1.2):
        g = copy.deepcopy(sc)
        g["workload"]["classes"][0]["arrival"]["growth_per_month"] = 0.1 * f
        ends["growth_rate"].append(write(d, f"g{f}.json", g))
    for f in (0.8, 1.2):
        g = copy.deepcopy(sc)
        g["workload"]["services"][0]["autoscale"]["target_util"] = 0.7 * f
        ends["utilization_target"].append(write(d, f"u{f}.json", g))
    for inp, side, path in [(k, s_, p_) for k in ends for s_, p_ in zip(("low", "high"), ends[k])]:
        q = ok(["size", path, "--target", target, "--replications", "3", "-j", "1", "--json",
                "-o", f"s{side}.h5"], d)
        want = json.loads(q.stdout)["chosen"]
        got = j[inp][side]["size"]
        wn = want["pools"][0]["nodes"]
        if got["state"] != "found" or got["nodes"]["h100"] != wn or got["gpus"] != want["pools"][0]["gpus"]:
            fail(f"{inp} {side}: sensitivity {got}, tarmac size {want}")
        print(f"{inp} x{0.8 if side == 'low' else 1.2}: h100 {wn} nodes (= tarmac size)")
    q = ok(["size", SMALL, "--target", target, "--replications", "3", "-j", "1", "--json", "-o",
            "sb.h5"], d)
    if base["nodes"]["h100"] != json.loads(q.stdout)["chosen"]["pools"][0]["nodes"]:
        fail(f"base size {base}, tarmac size {q.stdout[:300]}")
    with h5py.File(os.path.join(d, "z.h5"), "r") as h:
        g = h["sensitivity/size"]
        if g["target"][()].decode() != target or list(g["base/nodes"][()]) != [base["nodes"]["h100"]]:
            fail("size in the file")
        labels = g["state_low"].attrs["labels"]
        labels = (labels.decode() if isinstance(labels, bytes) else str(labels)).split("\n")
        if labels != ["none", "found", "not_found", "unchanged"]:
            fail(f"state labels {labels}")


with tempfile.TemporaryDirectory() as d:
    globals()["part_" + sys.argv[1]](d)
