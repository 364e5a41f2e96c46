#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""cost_check.py — cost, sizing and breakeven from the command line.

1. `tarmac run` writes /cost: the breakdown rows add up to total_usd, the
   pools to fleet_usd, the chargeback to fleet_usd (full absorption), the
   tenants to the classes' charges; the summary prints the cost lines and
   --json is unchanged in shape.
2. `tarmac size` on M/M/c (1-GPU nodes, 8 jobs/h of 1 h): the smallest fleet
   for wait_mean<=7.5m is 11 GPUs (Erlang C; test_size checks the method), in
   the text and --json; neighbours and growth are reported.
3. `tarmac breakeven` on the example scenario over a narrow range: the file's
   tables, scalars and fleets agree with --json; `tarmac plot` draws it.
4. Bad input: malformed and impossible targets, bad volumes, a scenario
   without services, negative prices — clear messages, non-zero exits, no
   output file.
"""
import json
import re
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from checklib import BIN, SRC, check, failures, tarmac

SMALL = os.path.join(SRC, "tests", "analysis_small.json")
CHAT = os.path.join(SRC, "scenarios", "chat-breakeven.json")


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * (1 + abs(a) + abs(b))


MMC = {"name": "mmc", "seed": 7, "horizon": "5000h", "policy": "fifo-first-fit",
       "fleet": {"pools": [{"name": "gpu", "gpu_type": "H100", "nodes": 12, "gpus_per_node": 1}]},
       "workload": {"classes": [{"name": "jobs", "arrival": {"rate_per_hour": 8}, "gpus": 1,
                                 "duration": {"dist": "exponential", "mean": "1h"}}]}}

with tempfile.TemporaryDirectory() as d:
    # 1. the run's /cost
    out = os.path.join(d, "run.h5")
    p = tarmac("run", SMALL, "-o", out)
    check("cost: $" in p.stdout and "per useful (goodput) GPU-hour" in p.stdout, f"run summary: {p.stdout[-600:]}")
    with h5py.File(out, "r") as f:
        c = f["cost"]
        total, fleet = c["total_usd"][()], c["fleet_usd"][()]
        check(close(c["breakdown/usd"][()].sum(), total), "breakdown adds up to total_usd")
        check(close(c["pools/total_usd"][()].sum(), fleet), "pools add up to fleet_usd")
        check(close(c["chargeback/usd"][()].sum(), fleet), "chargeback adds up to fleet_usd")
        check(close(c["chargeback/share"][()].sum(), 1.0), "shares add up to 1")
        kinds = c["chargeback/kind"][()]
        check(close(c["tenants/usd"][()].sum(), c["chargeback/usd"][()][kinds == 0].sum()),
              "tenants add up to the classes' charges")
        check(close(total, fleet + c["api_usd"][()]), "total = fleet + API")
        check(close(c["owned_usd"][()] + c["reserved_usd"][()] + c["ondemand_usd"][()], fleet), "fleet = owned + reserved + on-demand")
        # the chat service sends overflow to the API at its own price: 0.18 / 0.18
        svc = f["summary/services/chat"]
        api = (svc["tokens_in_api"][()] + svc["tokens_out_api"][()]) * 0.18 / 1e6
        check(close(c["api_usd"][()], api), f"api_usd {c['api_usd'][()]} vs {api}")
        # pools: on the calendar, allocated GPU-hours match the summary's
        for i, name in enumerate(c["pools/pool"].attrs["labels"].split("\n")):
            check(close(c["pools/gpu_hours_alloc"][()][i], f[f"summary/pools/{name}/gpu_hours_alloc"][()]),
                  f"pool {name}: allocated GPU-hours")
        params = json.loads(c["parameters"][()].decode())
        check(params["owned"]["pue"] == 1.3 and params["api"]["model"] == "openai/gpt-4o-mini", "parameters")
        check(c["total_usd"].attrs["units"] == "1" and c["total_usd"].attrs["long_name"].endswith("(USD)"), "units")
    # the same service priced by the cost section (cost.api.services) instead of
    # its own api_price: its API spend in /summary is priced as /cost prices it
    with open(SMALL) as f:
        viacost = json.load(f)
    viacost["workload"]["services"][0].pop("api_price")
    viacost.setdefault("cost", {})["api"] = {"services": {"chat": "together/llama-3.1-8b-instruct-turbo"}}
    vpath, vout = os.path.join(d, "viacost.json"), os.path.join(d, "viacost.h5")
    with open(vpath, "w") as f:
        json.dump(viacost, f)
    tarmac("run", vpath, "-q", "-o", vout)
    with h5py.File(vout, "r") as f:
        svc = f["summary/services/chat"]
        toks = svc["tokens_in_api"][()] + svc["tokens_out_api"][()]
        check(toks > 0 and close(svc["api_usd"][()], f["cost/api_usd"][()], 1e-9),
              f"API spend priced by cost.api: /summary {svc['api_usd'][()]} vs /cost "
              f"{f['cost/api_usd'][()]} for {toks} tokens")
    j = json.loads(tarmac("run", SMALL, "-o", out, "--json").stdout)
    check(j["command"] == "run", "run --json")

    # 2. size on M/M/c
    mmc = os.path.join(d, "mmc.json")
    with open(mmc, "w") as f:
        json.dump(MMC, f)
    p = tarmac("size", mmc, "--target", "wait_mean<=7.5m", "--warmup", "500h")
    check("smallest fleet: gpu 11 nodes (11 H100)" in p.stdout, f"size text: {p.stdout}")
    check("neighbours:" in p.stdout and "gpu 10 nodes" in p.stdout and "gpu 12 nodes" in p.stdout, "neighbours")
    # the spread: with one term a fleet that passes has a replication within the
    # limit (its mean is); with one replication the count is the decision itself
    spread = re.search(r"smallest fleet: .*\(([1-5]) of 5 replications meet the targets", p.stdout)
    check(spread is not None, f"size spread: {p.stdout}")
    p1 = tarmac("size", mmc, "--target", "wait_mean<=7.5m", "--warmup", "500h", "--replications", "1")
    chosen = re.search(r"smallest fleet: gpu (\d+) nodes .*\((\d) of 1 replications", p1.stdout)
    below = re.search(r"gpu (\d+) nodes \(\d+ H100\): [^\n]*fails[^\n]*; (\d) of 1 replications", p1.stdout)
    above = re.search(r"gpu (\d+) nodes \(\d+ H100\): [^\n]*meets the targets; (\d) of 1 replications", p1.stdout)
    check(chosen and chosen.group(2) == "1" and below and below.group(2) == "0" and above and
          above.group(2) == "1", f"size --replications 1: the count is the decision: {p1.stdout}")
    j = json.loads(tarmac("size", mmc, "--target", "wait_mean<=7.5m", "--warmup", "500h", "--json",
                          "--growth", "0.05").stdout)
    check(j["chosen"]["pools"][0]["nodes"] == 11 and j["chosen"]["meets"], f"size --json: {j['chosen']}")
    t = j["chosen"]["targets"][0]
    check(t["bound"] <= t["limit"] == 450 and t["mean"] <= t["bound"], f"bound {t}")
    check(j["growth"]["fails"] and j["growth"]["month"] >= 1, f"growth {j['growth']}")
    check(sum(j["growth"]["add_nodes"].values()) >= 1, "growth adds nodes")
    check(all(n["meets"] == (n["pools"][0]["nodes"] > 11) for n in j["neighbours"]), "neighbours meet or not")
    # the load bound: 8 jobs/h of 1 h on 1-GPU nodes need 8 GPUs on average, so
    # the search starts at 8 nodes; from 0 it finds the same fleet with more
    # fleets simulated
    p = tarmac("size", mmc, "--target", "wait_mean<=7.5m", "--warmup", "500h", "-v")
    check("the offered load needs 8.0 GPUs on average" in p.stderr and
          "the search starts at gpu 8 nodes" in p.stderr, f"size -v: {p.stderr[:400]}")
    check("simulated gpu 7 nodes" not in p.stderr, "nothing below the load bound is simulated")
    # (unscreened: the screen starts at its own guess, whatever the floor)
    b, z = (json.loads(tarmac("size", mmc, "--target", "wait_mean<=7.5m", "--warmup", "500h",
                              "--no-screen", "--json", *more).stdout)
            for more in ([], ["--min-nodes", "0"]))
    check(z["chosen"] == b["chosen"] and z["fleets_simulated"] > b["fleets_simulated"],
          f"--min-nodes 0: {z['chosen']['pools'][0]['nodes']} nodes, {z['fleets_simulated']} "
          f"fleets against {b['fleets_simulated']} from the bound")
    # interrupted (SIGINT after the first fleet is judged): exit 130, and the
    # fleets simulated so far are listed
    pr = subprocess.Popen([BIN, "size", SMALL, "--target", "wait_p95<=30m", "--replications", "20",
                           "-j", "1", "--min-nodes", "0", "-v"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    first = ""
    for line in pr.stderr:
        if "simulated h100" in line:
            first = line.strip()
            pr.send_signal(signal.SIGINT)
            break
    rest = pr.stderr.read()
    pr.wait()
    listed = rest.split("fleets simulated before the interruption:")[-1]
    check(pr.returncode == 130 and first and "interrupted while simulating" in rest and
          first.replace("simulated ", "").split(" at demand")[0] in listed,
          f"size interrupted: exit {pr.returncode}, first {first!r}, then {rest[-500:]!r}")
    # the replications run on the worker pool: one process and three give the same answer
    one, three = (json.loads(tarmac("size", mmc, "--target", "wait_mean<=7.5m", "--warmup", "500h", "--json",
                                    "-j", k).stdout) for k in ("1", "3"))
    check(one == three, f"size -j 1 and -j 3 differ: {one} / {three}")

    # 3. breakeven
    # below every crossover: each option says by how much the API wins at the
    # top of the range, with the figures of its row (10 B tokens at $0.18/M: $1,800)
    be_low = os.path.join(d, "be_low.h5")
    p = tarmac("breakeven", CHAT, "--volumes", "1B:10B:2", "--refine", "1", "--replications", "1",
               "-o", be_low)
    with h5py.File(be_low, "r") as f:
        own_top = f["breakeven/volume/own_usd_per_month"][()][-1]
    m = re.search(r"owning does not beat the API in this range; at 10 B tokens/month it costs "
                  r"\$([\d,]+) a month against the API's \$([\d,]+)", p.stdout)
    check(m is not None and m.group(2) == "1,800" and
          abs(float(m.group(1).replace(",", "")) - own_top) <= 0.5,
          f"breakeven says by how much the API wins: {p.stdout[-700:]}")
    be = os.path.join(d, "be.h5")
    j = json.loads(tarmac("breakeven", CHAT, "--volumes", "10B:1T:3", "--refine", "3", "--replications", "1",
                          "-o", be, "--json").stdout)
    with h5py.File(be, "r") as f:
        b = f["breakeven"]
        v = b["volume/tokens_per_month"][()]
        check(len(v) == 3 and close(v[0], 1e10) and close(v[2], 1e12), f"volumes {v}")
        check(close(b["api_usd_per_mtok"][()], 0.18), "Together's Llama 8B price, mapped by cost.api.services")
        check(np.allclose(b["volume/api_usd_per_month"][()], v * 0.18 / 1e6), "API cost is linear in volume")
        own = b["volume/own_usd_per_month"][()]
        check(np.all(np.diff(own) >= 0), f"owning costs more at more volume: {own}")
        x = b["own_beats_api_tokens_per_month"][()]
        check(math.isclose(x, j["own_beats_api_tokens_per_month"], rel_tol=1e-12), "scalar vs json")
        check(1e10 < x < 1e12, f"crossing {x} inside the range")
        check(len(b["fleet/nodes"][()]) == 3 and b["fleet/pool"].attrs["labels"] == "h100", "fleets")
        u = b["utilization/utilization"][()]
        check(len(u) == 20 and close(u[-1], 1.0), "utilization grid")
        check(f.attrs["kind"] == "breakeven", "kind")
    if shutil.which("gnuplot"):
        pd = os.path.join(d, "plots")
        tarmac("plot", be, "-o", pd)
        check(os.path.getsize(os.path.join(pd, "breakeven.png")) > 0, "breakeven.png")
        tarmac("plot", out, "-o", pd, "--only", "cost")
        check(os.path.getsize(os.path.join(pd, "cost.png")) > 0, "cost.png")
        # a pool name that tries to leave its string: it stays data
        evil = dict(MMC, horizon="100h", name="x'; system('touch PWNED') ; '")
        evil["fleet"] = {"pools": [{"name": "a\"b'; system('touch PWNED')", "gpu_type": "H100", "nodes": 12,
                                    "gpus_per_node": 1}]}
        ef = os.path.join(d, "evil.json")
        with open(ef, "w") as f:
            json.dump(evil, f)
        eo = os.path.join(d, "evil.h5")
        tarmac("run", ef, "-o", eo, "-q")
        ed = os.path.join(d, "evil-plots")
        tarmac("plot", eo, "-o", ed, "--only", "cost")
        check(os.path.getsize(os.path.join(ed, "cost.png")) > 0, "cost.png of the evil names")
        check(not os.path.exists(os.path.join(ed, "PWNED")) and not os.path.exists("PWNED"), "no PWNED")

    # 4. bad input
    def bad(code, pattern, *args):
        p = tarmac(*args, code=code)
        check(pattern in p.stderr, f"tarmac {' '.join(args)}: '{p.stderr.strip()}' lacks '{pattern}'")
    bad(64, "--target is required", "size", mmc)
    bad(64, "'wait_p95>=10m': wait_p95 falls as the fleet grows, so the target must be '<='", "size", mmc, "--target", "wait_p95>=10m")
    bad(64, "unknown metric 'cost'", "size", mmc, "--target", "cost<=5")
    bad(64, "expected a duration", "size", mmc, "--target", "wait_p95<=soon")
    bad(64, "the scenario has no services", "size", mmc, "--target", "slo>=0.99")
    bad(65, "no fleet of at most 4 nodes per pool meets the targets", "size", mmc, "--target", "wait_mean<=1m",
        "--max-nodes", "4", "--replications", "2")
    bad(64, "--min-nodes 5 is more than --max-nodes 4", "size", mmc, "--target", "wait_mean<=1m",
        "--min-nodes", "5", "--max-nodes", "4")
    bad(64, "--volumes needs LO:HI[:N]", "breakeven", CHAT, "--volumes", "5B:1B")
    bad(64, "--volumes needs LO:HI[:N]", "breakeven", CHAT, "--volumes", "x:1B")
    nob = os.path.join(d, "nob.h5")
    bad(65, "breakeven needs at least one service", "breakeven", mmc, "-o", nob)
    check(not os.path.exists(nob), "no breakeven file after a failure")
    neg = dict(MMC, cost={"owned": {"electricity_usd_per_kwh": -0.05}})
    negf = os.path.join(d, "neg.json")
    with open(negf, "w") as f:
        json.dump(neg, f)
    bad(65, "cost.owned.electricity_usd_per_kwh: expected a number in [0, 1000], got -0.05", "run", negf,
        "-o", os.path.join(d, "neg.h5"))
    check(not os.path.exists(os.path.join(d, "neg.h5")), "no run file after a failure")
    bad(65, "cost.owned.electricity_usd_per_kwh", "validate", negf)
    negp = dict(MMC, gpu_types=[{"name": "H100", "purchase_usd": -1}])
    with open(negf, "w") as f:
        json.dump(negp, f)
    bad(65, "gpu_types[0].purchase_usd: expected a number in [0", "size", negf, "--target", "wait_mean<=1h")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("cost, size and breakeven agree from the command line")
