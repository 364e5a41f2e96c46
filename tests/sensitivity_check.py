#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks of `tarmac sensitivity` (tests/sensitivity.cmake); one part per test:
  linear  +/-20 % GPU price moves the cost per useful GPU-hour by exactly the
          capex-linear share (depreciation, capital, maintenance) of the fleet
          cost x 20 %, hand-computed from the file's base breakdown; power and
          staff the same way from their parts
  order   the printed table and the file are sorted by swing, largest first,
          absent inputs last and named "not in this scenario"
  bad     --delta 0, --delta 150%, a missing scenario: a clear message, exit
          64/66, no file
  file    the file read back with h5py: every input, units, provenance
  plot    `tarmac plot` draws the tornado PNG (a real picture, not empty)
"""
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
TEAMS = os.path.join(SRC, "scenarios", "teams.json")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(args, cwd):
    return subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True, timeout=240)


def rows(path):
    with h5py.File(path, "r") as f:
        g = f["sensitivity"]
        names = [x.decode() if isinstance(x, bytes) else x for x in g["input"][()]]
        out = {}
        for i, n in enumerate(names):
            out[n] = {k: g[k][i] for k in ("present", "resimulated", "base_value", "low_value",
                                            "high_value", "swing", "usd_per_useful_gpu_h_low",
                                            "usd_per_useful_gpu_h_high", "usd_per_month_low",
                                            "usd_per_month_high")}
        base = {k: float(g["base"][k][()]) for k in g["base"]}
        return names, out, base, float(g["delta"][()])


def part_linear(d):
    p = run([ "sensitivity", SMALL, "-q", "-o", "s.h5"], d)
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {p.stderr}")
    names, r, b, delta = rows(os.path.join(d, "s.h5"))
    if abs(delta - 0.2) > 1e-15:
        fail(f"delta {delta}")
    u = b["usd_per_useful_gpu_h"]
    # the base is a plain run's cost accounting
    p = run(["run", SMALL, "-q", "-o", "r.h5"], d)
    if p.returncode != 0:
        fail(f"run: {p.stderr}")
    with h5py.File(os.path.join(d, "r.h5"), "r") as f:
        ref, fleet = f["cost/usd_per_work_ref_gpu_hour"][()], f["cost/fleet_usd"][()]
    if ref != u or fleet != b["fleet_usd"]:
        fail(f"base {u} USD/useful GPU-h, fleet {b['fleet_usd']}; tarmac run: {ref}, {fleet}")
    capex_share = (b["depreciation_usd"] + b["capital_usd"] + b["maintenance_usd"]) / b["fleet_usd"]
    for key, share in (("gpu_price", capex_share), ("power_price", b["energy_usd"] / b["fleet_usd"]),
                       ("staff_cost", b["staff_usd"] / b["fleet_usd"])):
        row = r[key]
        if row["resimulated"]:
            fail(f"{key} was simulated again; a price re-accounts the base run")
        want_hi, want_lo = u * (1 + 0.2 * share), u * (1 - 0.2 * share)
        for got, want, side in ((row["usd_per_useful_gpu_h_high"], want_hi, "high"),
                                (row["usd_per_useful_gpu_h_low"], want_lo, "low")):
            if not abs(got - want) <= 1e-9 * u:
                fail(f"{key} {side}: {got!r} USD/useful GPU-h, hand-computed {want!r} "
                     f"(share {share:.6f} of the fleet cost)")
        print(f"{key}: share {share:.4f}, {u:.6f} -> {row['usd_per_useful_gpu_h_high']:.6f} "
              f"(exact within 1e-9)")
    if not 0.3 < capex_share < 0.9:
        fail(f"capex share {capex_share}: the case should be capex-heavy")
    # the GPU price input is the purchase price of the pool's type, moved by 20 %
    gp = r["gpu_price"]
    if not (abs(gp["low_value"] - 0.8 * gp["base_value"]) < 1e-6 and
            abs(gp["high_value"] - 1.2 * gp["base_value"]) < 1e-6):
        fail(f"gpu_price values {gp['base_value']} {gp['low_value']} {gp['high_value']}")


def part_order(d):
    for scen, absent in ((SMALL, set()), (TEAMS, {"API price", "utilization target", "growth rate"})):
        p = run(["sensitivity", scen, "-o", "t.h5"], d)
        if p.returncode != 0:
            fail(f"{scen}: exit {p.returncode}: {p.stderr}")
        names, r, _, _ = rows(os.path.join(d, "t.h5"))
        sw = [r[n]["swing"] if r[n]["present"] else -1 for n in names]
        if sw != sorted(sw, reverse=True):
            fail(f"{scen}: file rows not sorted by swing: {list(zip(names, sw))}")
        lines = p.stdout.split("\n\n")[1].splitlines()[1:]
        printed = [re.split(r"\s{2,}", ln.strip())[0] for ln in lines]
        labels = {"gpu_price": "GPU price", "power_price": "power price", "api_price": "API price",
                  "staff_cost": "staff cost", "utilization_target": "utilization target",
                  "growth_rate": "growth rate"}
        if printed != [labels[n] for n in names]:
            fail(f"{scen}: printed order {printed}, file order {names}")
        got_absent = {re.split(r"\s{2,}", ln.strip())[0] for ln in lines if "not in this scenario" in ln}
        if got_absent != absent:
            fail(f"{scen}: absent {got_absent}, expected {absent}")
        if printed[0] != "GPU price":
            fail(f"{scen}: the largest swing should be the GPU price's, got {printed[0]}")
    print("order: by swing, absent last")


def part_bad(d):
    cases = [(["--delta", "0"], 64, r"--delta needs a percentage in \(0, 100\)"),
             (["--delta", "150%"], 64, r"--delta needs a percentage in \(0, 100\)"),
             (["--delta", "abc"], 64, r"--delta"),
             ([], 66, r"no-such\.json")]
    for extra, code, msg in cases:
        scen = os.path.join(d, "no-such.json") if code == 66 else SMALL
        p = run(["sensitivity", scen, "-o", "bad.h5"] + extra, d)
        if p.returncode != code or not re.search(msg, p.stderr):
            fail(f"{extra}: exit {p.returncode} (want {code}), stderr {p.stderr!r}")
        left = os.listdir(d)
        if left:
            fail(f"{extra}: left {left}")
    print("bad input: 64/66, messages, no file")


def part_file(d):
    p = run(["sensitivity", SMALL, "-q", "--delta", "10%"], d)
    if p.returncode != 0:
        fail(p.stderr)
    path = os.path.join(d, "tarmac-sensitivity.h5")
    with h5py.File(path, "r") as f:
        if f.attrs["kind"] != "sensitivity":
            fail(f"kind {f.attrs['kind']}")
        g = f["sensitivity"]
        if abs(g["delta"][()] - 0.1) > 1e-15:
            fail("delta")
        if len(g["input"]) != 6 or sorted(g["input_code"][()]) != list(range(6)):
            fail("inputs")
        ln = g["usd_per_useful_gpu_h_low"].attrs["long_name"]
        if not str(ln).endswith("(USD/h)") or "(USD/month)" not in str(g["usd_per_month_high"].attrs["long_name"]):
            fail(f"units in long_name: {ln}")
        if int(g["runs"][()]) != 5:
            fail(f"runs {g['runs'][()]}: the base, utilization target and growth at low and high")
        if "provenance" not in f or "scenario_given" not in f["provenance"]:
            fail("provenance")
        if not np.all(g["present"][()] == 1):
            fail("every input is in sensitivity_small.json")
    print("file: read back")


def part_plot(d):
    p = run(["sensitivity", SMALL, "-q", "-o", "s.h5"], d)
    if p.returncode != 0:
        fail(p.stderr)
    p = run(["plot", "s.h5", "-o", "pics"], d)
    if p.returncode != 0:
        fail(f"plot: {p.returncode} {p.stderr}")
    png = os.path.join(d, "pics", "tornado.png")
    if not os.path.exists(png):
        fail(f"no tornado.png: {p.stdout} {p.stderr}")
    size = os.path.getsize(png)
    with open(png, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if size < 20000 or w != 900 or h < 600:
        fail(f"tornado.png {w}x{h}, {size} bytes")
    print(f"plot: tornado.png {w}x{h}, {size} bytes")


with tempfile.TemporaryDirectory() as d:
    globals()["part_" + sys.argv[1]](d)
