# SPDX-License-Identifier: Apache-2.0
"""partition_check.py — node owners and the partition rule (docs/partition.md).

1. strict is the siloed fleet: the run of two teams on their own pools gives
   each team exactly the results of a run of that team's pools alone (same
   jobs, same waits, same GPU-hours, job for job). Classes draw from their own
   random streams (one per class index) and the other team's classes are kept
   in the lone runs (their jobs never start: no pool of theirs), so both runs
   see the same arrivals; per-tenant queues keep a blocked team from holding
   up the other; first-fit uses no randomness.
2. strict never places a job on a node another tenant owns (/jobs first_node).
3. none ignores owners: the same scenario with and without pool owners gives
   the same summary.
4. borrow:R never lets an owner's job wait longer than R (plus the restart
   cost) when borrowers hold its own node: a hand-made case where another
   team's preemptible gangs fill the owner's node. The reclaim comes at R, not
   at the next event (the policy's wake-up), and borrowing did happen.
   The same for a 16-GPU gang over two owned nodes (a spanning reclaim).
5. `tarmac place` snapshots for each mode, against expected decisions, and
   spanning reclaims worked by hand.
6. Bad input: an unknown pool owner, a malformed reclaim delay.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BIN = os.environ["TARMAC_BIN"]
fails = 0


def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print("FAIL:", what)
    else:
        print("ok:", what)


def run(tmp, sc, name):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(sc, f)
    out = os.path.join(tmp, name + ".h5")
    p = subprocess.run([BIN, "run", path, "-q", "--json", "-o", out], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(p.stderr)
        raise SystemExit("tarmac run %s failed (exit %d)" % (name, p.returncode))
    return json.loads(p.stdout), out


def jobs(h5, tenant):
    with h5py.File(h5, "r") as f:
        g = f["jobs"]
        order = np.argsort(g["id"][:])
        cols = {k: g[k][:][order] for k in ("id", "tenant", "wait_s", "start_s", "end_s",
                                            "busy_gpu_s", "first_node", "n_nodes", "state")}
    m = cols["tenant"] == tenant
    return {k: v[m] for k, v in cols.items()}


TWO = {
    "name": "two-teams", "seed": 3, "horizon": "7d",
    "policy": "order=fifo placement=first-fit backfill=none partition=strict",
    "tenants": [{"name": "a", "share": 0.5}, {"name": "b", "share": 0.5}],
    "fleet": {"pools": [
        {"name": "pa", "gpu_type": "H100", "nodes": 4, "gpus_per_node": 8, "tenant": "a"},
        {"name": "pb", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 8, "tenant": "b"}]},
    "workload": {"classes": [
        {"name": "tune", "kind": "fine-tuning", "tenants": {"a": 1},
         "arrival": {"rate_per_s": 0.0009}},
        {"name": "eval", "kind": "evaluation", "tenants": {"b": 1}, "gpus": 2,
         "arrival": {"rate_per_s": 0.004}}]},
}


def same_class(a, b):
    skip = set()
    return all(a[k] == b[k] for k in a if k not in skip)


with tempfile.TemporaryDirectory() as tmp:
    # 1. the siloed fleet equals each team alone on its pools
    full, full_h5 = run(tmp, TWO, "full")
    for t, (cls, pool) in enumerate((("tune", "pa"), ("eval", "pb"))):
        alone = copy.deepcopy(TWO)
        alone["fleet"]["pools"] = [p for p in alone["fleet"]["pools"] if p["name"] == pool]
        res, h5 = run(tmp, alone, "alone-" + pool)
        cf = next(c for c in full["classes"] if c["name"] == cls)
        ca = next(c for c in res["classes"] if c["name"] == cls)
        diff = {k: (cf[k], ca[k]) for k in cf if cf[k] != ca[k]}
        check(not diff and cf["jobs_started"] > 100,
              "strict: team %s's class figures equal its pools alone (%d jobs started)%s"
              % (cls, cf["jobs_started"], "" if not diff else ": " + repr(diff)))
        jf, ja = jobs(full_h5, t), jobs(h5, t)
        same = all(np.array_equal(jf[k], ja[k], equal_nan=True)
                   for k in ("id", "wait_s", "start_s", "end_s", "busy_gpu_s"))
        check(same and len(jf["id"]) > 100,
              "strict: team %s job for job equal (%d jobs)" % (cls, len(jf["id"])))

    # 2. strict never uses another tenant's nodes (pa = nodes 0..3, pb = 4..5)
    ok = True
    for t, lo, hi in ((0, 0, 3), (1, 4, 5)):
        j = jobs(full_h5, t)
        started = j["first_node"] >= 0
        last = j["first_node"] + np.maximum(j["n_nodes"], 1) - 1
        ok &= bool(np.all((j["first_node"][started] >= lo) & (last[started] <= hi)))
    check(ok, "strict: every job ran on its own tenant's nodes")
    # the same fleet shared: team a spills onto b's nodes (so the check can fail)
    shared = copy.deepcopy(TWO)
    shared["policy"] = shared["policy"].replace("strict", "none")
    sres, sh5 = run(tmp, shared, "shared")
    ja = jobs(sh5, 0)
    check(bool(np.any(ja["first_node"] >= 4)), "none: team a also ran on b's nodes")

    # 3. none ignores owners: same summary as the fleet without owners
    plain = copy.deepcopy(shared)
    for p in plain["fleet"]["pools"]:
        del p["tenant"]
    pres, _ = run(tmp, plain, "plain")
    for d in (sres, pres):
        for k in ("wall_s", "output", "source"):
            d.pop(k, None)
    check(sres == pres, "none: owners change nothing")

    # 4. borrowing: the owner's wait is bounded by the reclaim delay
    BOUND = {
        "name": "reclaim", "seed": 5, "horizon": "4d", "stop": "horizon",
        "policy": "order=fifo placement=first-fit backfill=none partition=borrow:30m",
        "tenants": [{"name": "lender", "share": 0.5}, {"name": "borrower", "share": 0.5}],
        "fleet": {"pools": [
            {"name": "own", "gpu_type": "H100", "nodes": 1, "gpus_per_node": 8,
             "tenant": "lender"},
            {"name": "theirs", "gpu_type": "H100", "nodes": 1, "gpus_per_node": 8,
             "tenant": "borrower"}]},
        "workload": {"classes": [
            {"name": "big", "kind": "training", "tenants": {"borrower": 1}, "gpus": 8,
             "can_span": False, "duration": {"dist": "constant", "value": "10h"},
             "checkpoint": "1h", "restart_overhead": "5m",
             "arrival": {"rate_per_s": 0.0005}},
            {"name": "owner", "kind": "evaluation", "tenants": {"lender": 1}, "gpus": 8,
             "duration": {"dist": "constant", "value": "10m"},
             "arrival": {"rate_per_s": 0.00002}}]},
    }
    res, h5 = run(tmp, BOUND, "borrow30")
    own = next(c for c in res["classes"] if c["name"] == "owner")
    big = next(c for c in res["classes"] if c["name"] == "big")
    bound = 1800 + 300
    check(own["jobs_started"] >= 3 and own["wait_max_s"] <= bound,
          "borrow:30m: owner waits at most 30 min + restart (max %.1f s over %d jobs)"
          % (own["wait_max_s"], own["jobs_started"]))
    check(abs(own["wait_max_s"] - 1800) < 1,
          "borrow:30m: the reclaim comes when the delay runs out (max wait %.1f s)"
          % own["wait_max_s"])
    check(big["preemptions"] >= 1, "borrow:30m: borrowers were reclaimed (%d preemptions)"
          % big["preemptions"])
    j = jobs(h5, 0)
    check(len(j["wait_s"]) >= 3 and bool(np.all(j["wait_s"] <= bound)),
          "borrow:30m: job for job, started or not (max %.1f s)" % np.max(j["wait_s"]))
    zero = copy.deepcopy(BOUND)
    zero["policy"] = zero["policy"].replace("borrow:30m", "borrow")
    res0, _ = run(tmp, zero, "borrow0")
    own0 = next(c for c in res0["classes"] if c["name"] == "owner")
    check(own0["wait_max_s"] == 0, "borrow: with no delay the owner never waits (max %.1f s)"
          % own0["wait_max_s"])
    # without reclaim (shared fleet) the owner waits for the borrowers' 10 h runs
    nr = copy.deepcopy(BOUND)
    nr["policy"] = nr["policy"].replace("partition=borrow:30m", "partition=none")
    resn, hn = run(tmp, nr, "none")
    jn = jobs(hn, 0)
    check(np.max(jn["wait_s"]) > bound, "none: the owner waits longer (max %.1f s), so the bound"
          " is the partition's doing" % np.max(jn["wait_s"]))

    # a training team's gang of 16 GPUs over its two nodes, which the other
    # team's 4-GPU preemptible jobs fill while it is away: reclaimed over both
    # nodes when the delay runs out
    gang = copy.deepcopy(BOUND)
    gang["fleet"]["pools"][0]["nodes"] = 2
    gang["workload"]["classes"][0].update(gpus=4, arrival={"rate_per_s": 0.002})
    gang["workload"]["classes"][1].update(gpus=16, can_span=True,
                                          duration={"dist": "constant", "value": "1h"})
    resg, hg = run(tmp, gang, "gang30")
    owng = next(c for c in resg["classes"] if c["name"] == "owner")
    bigg = next(c for c in resg["classes"] if c["name"] == "big")
    jg = jobs(hg, 0)
    # the guarantee: a gang starts by 30 min after its submission, or when
    # the team's previous gang (which holds both nodes) ends, if later
    submit = jg["start_s"] - jg["wait_s"]
    prev_end = np.concatenate(([-np.inf], jg["end_s"][:-1]))
    late = jg["start_s"] - np.maximum(submit + 1800, prev_end)
    check(owng["jobs_started"] >= 3 and len(jg["wait_s"]) >= 3 and
          bool(np.all(late <= 1e-3)) and bigg["preemptions"] >= 2,
          "borrow:30m: a 16-GPU gang over two owned nodes starts by 30 min after its submission "
          "or its team's previous gang's end (latest by %.3f s over %d jobs, %d borrowers "
          "preempted)" % (np.max(late), len(jg["wait_s"]), bigg["preemptions"]))
    nrg = copy.deepcopy(gang)
    nrg["policy"] = nrg["policy"].replace("partition=borrow:30m", "partition=none")
    _, hng = run(tmp, nrg, "gang-none")
    check(np.max(jobs(hng, 0)["wait_s"]) > bound,
          "none: the gang waits longer (max %.1f s)" % np.max(jobs(hng, 0)["wait_s"]))

    # 5. tarmac place, one snapshot per mode
    snap = {
        "now_us": 3600000000,
        "gpu_types": [{"name": "H100", "mem_mib": 81920}],
        "nodes": [{"type": "H100", "gpus": 8, "tenant": 0}, {"type": "H100", "gpus": 8,
                                                              "tenant": 1}],
        "running": [
            {"id": 1, "tenant": 0, "gpus": 8, "flags": ["preemptible"], "start_us": 0,
             "lost_gpu_s": 100, "parts": [{"node": 0, "gpus": 8, "gpu_ids": list(range(8))}]},
            {"id": 4, "tenant": 0, "gpus": 4, "flags": ["preemptible"], "start_us": 0,
             "lost_gpu_s": 50, "parts": [{"node": 1, "gpus": 4, "gpu_ids": [0, 1, 2, 3]}]}],
        "queue": [{"id": 3, "tenant": 1, "gpus": 6, "submit_us": 10},
                  {"id": 6, "tenant": 0, "gpus": 4, "submit_us": 20, "flags": ["preemptible"]},
                  {"id": 7, "tenant": 0, "gpus": 2, "submit_us": 30}]}

    def place(policy):
        s = dict(snap, policy="order=fifo placement=first-fit backfill=none " + policy)
        p = subprocess.run([BIN, "place"], input=json.dumps(s), capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            return None
        return [(d["kind"], d.get("job_id"), [x["node"] for x in d.get("parts", [])])
                for d in json.loads(p.stdout)["decisions"]]

    cases = {
        # FIFO over all: the head (6 GPUs) does not fit node 1's 4 free GPUs; the pass stops
        "partition=none": [],
        # one queue per tenant: tenant 1's head waits, tenant 0's jobs do not use node 1
        "partition=strict": [],
        # the preemptible job of tenant 0 borrows node 1; the non-preemptible one does not
        "partition=borrow:2h": [("start", 6, [1])],
        # reclaim: tenant 1's head has waited an hour; the borrower on its node goes
        "partition=borrow:30m": [("preempt", 4, []), ("start", 3, [1])],
    }
    for pol, want in cases.items():
        got = place(pol)
        check(got == want, "place %s: got %s, want %s" % (pol, got, want))

    # a spanning reclaim, by hand: tenant 0 owns nodes 0 and 1 (8 GPUs each),
    # tenant 1 borrows them: id 1 holds node 0 (8 GPUs, priority 0), id 2
    # GPUs 0-3 of node 1 (priority 0), id 3 GPUs 4-5 (priority 5); GPUs 6-7 of
    # node 1 are free. Victims go lowest priority first, most GPUs first.
    span = {
        "now_us": 7200000000,
        "gpu_types": [{"name": "H100", "mem_mib": 81920}],
        "nodes": [{"type": "H100", "gpus": 8, "tenant": 0}, {"type": "H100", "gpus": 8,
                                                              "tenant": 0},
                  {"type": "H100", "gpus": 8, "tenant": 1}],
        "running": [
            {"id": 1, "tenant": 1, "gpus": 8, "flags": ["preemptible"], "start_us": 0,
             "parts": [{"node": 0, "gpus": 8, "gpu_ids": list(range(8))}]},
            {"id": 2, "tenant": 1, "gpus": 4, "flags": ["preemptible"], "start_us": 0,
             "parts": [{"node": 1, "gpus": 4, "gpu_ids": [0, 1, 2, 3]}]},
            {"id": 3, "tenant": 1, "gpus": 2, "flags": ["preemptible"], "start_us": 0,
             "priority": 5, "parts": [{"node": 1, "gpus": 2, "gpu_ids": [4, 5]}]},
            {"id": 4, "tenant": 1, "gpus": 8, "flags": ["preemptible"], "start_us": 0,
             "parts": [{"node": 2, "gpus": 8, "gpu_ids": list(range(8))}]}]}

    def place_span(gpus):
        s = dict(span, queue=[{"id": 10, "tenant": 0, "gpus": gpus, "submit_us": 0,
                               "flags": ["can_span"]}],
                 policy="order=fifo placement=first-fit backfill=none partition=borrow:1h")
        p = subprocess.run([BIN, "place"], input=json.dumps(s), capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            return None
        return [(d["kind"], d.get("job_id"), [(x["node"], x["gpus"]) for x in d.get("parts", [])])
                for d in json.loads(p.stdout)["decisions"]]

    # 16 GPUs: 2 free + 8 (id 1) + 4 (id 2) + 2 (id 3, priority 5, last); both nodes
    got = place_span(16)
    want = [("preempt", 1, []), ("preempt", 2, []), ("preempt", 3, []),
            ("start", 10, [(0, 8), (1, 8)])]
    check(got == want, "spanning reclaim of 16 GPUs: got %s, want %s" % (got, want))
    # 12 GPUs: 2 free + 8 + 4 suffice; id 3 (priority 5) is spared
    got = place_span(12)
    want = [("preempt", 1, []), ("preempt", 2, []), ("start", 10, [(0, 8), (1, 4)])]
    check(got == want, "spanning reclaim of 12 GPUs: got %s, want %s" % (got, want))
    # 24 GPUs: more than the tenant owns; node 2 is not its to reclaim
    got = place_span(24)
    check(got == [], "no reclaim beyond the tenant's nodes: got %s" % got)

    # 6. bad input
    bad = copy.deepcopy(TWO)
    bad["fleet"]["pools"][1]["tenant"] = "nobody"
    path = os.path.join(tmp, "bad.json")
    with open(path, "w") as f:
        json.dump(bad, f)
    p = subprocess.run([BIN, "validate", path], capture_output=True, text=True)
    check(p.returncode == 65 and "fleet.pools[1].tenant" in p.stderr,
          "unknown owner: exit %d, %s" % (p.returncode, p.stderr.strip()))
    bad = copy.deepcopy(TWO)
    bad["policy"] = bad["policy"].replace("strict", "borrow:soon")
    with open(path, "w") as f:
        json.dump(bad, f)
    p = subprocess.run([BIN, "validate", path], capture_output=True, text=True)
    check(p.returncode == 65 and "borrow" in p.stderr,
          "bad reclaim delay: exit %d, %s" % (p.returncode, p.stderr.strip()))

print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
