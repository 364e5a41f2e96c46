#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""place_snapshot_gen.py: random `tarmac place` snapshots (docs/place-json.md).

    place_snapshot_gen.py --seed S --nodes N --running-fill F --queue Q [--policy P] > snap.json

A cluster of N nodes of three GPU types (8-GPU nodes mostly, some 4-GPU
ones), filled to about F (0..1) of its GPUs with running jobs placed
first-fit on a random node order (whole-GPU gangs of 1, 2, 4 and 8 GPUs, and
GPU shares), with priorities, preemptible flags, start times, end estimates
and checkpoints; then a queue of Q jobs of the same shapes (some with type
constraints, host CPU, GPU memory, unknown estimates, can_span). A few
nodes and GPUs are out of service. Deterministic in --seed.

Used by bench/README.md ("tarmac place at scale") for the large snapshots and
by tests/place_runaway_cmp.sh for the small ones whose decisions must not
change when the placement core is made faster.
"""
import argparse
import json
import random
import sys

TYPES = [("H100", 81920), ("A100", 40960), ("L4", 24576)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--running-fill", type=float, default=0.8)
    ap.add_argument("--queue", type=int, default=100)
    ap.add_argument("--policy", default=None)
    ap.add_argument("--shares", type=float, default=0.2, help="fraction of jobs that are shares")
    ap.add_argument("--down", type=float, default=0.02, help="fraction of nodes out of service")
    ap.add_argument("--span", type=float, default=0.1,
                    help="fraction of queued multi-GPU gangs that may span nodes")
    ap.add_argument("--whole-nodes", action="store_true",
                    help="an SWF-like machine: one GPU type, 8-GPU nodes all in service, every job "
                    "whole nodes (the count-based backfilling of backfill_count.c)")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    now = 10_000_000_000
    if args.whole_nodes:
        whole_nodes(args, rnd, now)
        return

    nodes = []
    free = []  # per node: per GPU milli free
    memfree = []
    cpufree = []
    for n in range(args.nodes):
        t = rnd.choice([0, 0, 1, 2])
        g = 8 if rnd.random() < 0.85 else 4
        cpu = rnd.choice([96000, 192000])
        node = {"type": TYPES[t][0], "gpus": g, "cpu_milli": cpu, "mem_mib": 1048576}
        if rnd.random() < args.down:
            node["up"] = False
        elif rnd.random() < args.down:
            node["gpus_down"] = [rnd.randrange(g)]
        nodes.append(node)
        free.append([1000] * g)
        memfree.append([TYPES[t][1]] * g)
        cpufree.append(cpu)

    def shape(r):
        if r.random() < args.shares:
            return 1, r.choice([250, 500, 750])
        return r.choice([1, 1, 2, 2, 4, 8]), 1000

    def job_fields(r, jid, running):
        gpus, milli = shape(r)
        j = {"id": jid, "submit_us": now - r.randrange(1, 3_600_000_000),
             "gpus": gpus, "gpu_milli": milli,
             "priority": r.randrange(4)}
        if r.random() < 0.8:
            j["estimate_us"] = r.randrange(60, 36000) * 1_000_000
        if r.random() < 0.3:
            j["gpu_mem_mib"] = r.choice([8192, 20480, 30000, 60000])
        if r.random() < 0.2:
            j["gpu_types"] = r.sample([t[0] for t in TYPES], r.randrange(1, 3))
        if r.random() < 0.3:
            j["cpu_milli"] = r.choice([4000, 16000, 48000])
        flags = []
        if r.random() < 0.6:
            flags.append("preemptible")
        if gpus > 1 and r.random() < args.span and not running:
            flags.append("can_span")
        if flags:
            j["flags"] = flags
        return j

    total = sum(n["gpus"] for n in nodes)
    target = int(total * args.running_fill)
    used = 0
    running = []
    jid = 1
    order = list(range(args.nodes))
    tries = 0
    while used < target and tries < 20 * args.nodes + 1000:
        tries += 1
        j = job_fields(rnd, jid, True)
        j.pop("gpu_types", None)
        n = rnd.choice(order)
        nd = nodes[n]
        t = [x[0] for x in TYPES].index(nd["type"])
        mem = j.get("gpu_mem_mib", 0)
        if mem > TYPES[t][1] or j.get("cpu_milli", 0) > cpufree[n]:
            continue
        down = set(nd.get("gpus_down", []))
        if j["gpu_milli"] < 1000:
            gs = [g for g in range(nd["gpus"]) if g not in down and free[n][g] >= j["gpu_milli"]
                  and memfree[n][g] >= mem]
            if not gs:
                continue
            g = gs[0]
            free[n][g] -= j["gpu_milli"]
            memfree[n][g] -= mem
            part = {"node": n, "gpus": 1, "gpu": g, "milli": j["gpu_milli"], "gpu_ids": [g]}
            used += 1
        else:
            gs = [g for g in range(nd["gpus"]) if g not in down and free[n][g] == 1000]
            if len(gs) < j["gpus"]:
                continue
            gs = gs[: j["gpus"]]
            for g in gs:
                free[n][g] = 0
                memfree[n][g] = 0
            part = {"node": n, "gpus": j["gpus"], "gpu": None, "milli": 1000, "gpu_ids": gs}
            used += j["gpus"]
        cpufree[n] -= j.get("cpu_milli", 0)
        start = now - rnd.randrange(1, 7_200_000_000)
        j["start_us"] = start
        if "estimate_us" in j:
            j["end_estimate_us"] = start + j["estimate_us"]
        if rnd.random() < 0.5:
            j["checkpoint_us"] = rnd.randrange(60, 3600) * 1_000_000
        if rnd.random() < 0.2:
            j["overhead_us"] = rnd.randrange(1, 300) * 1_000_000
        j["parts"] = [part]
        running.append(j)
        jid += 1

    queue = []
    for _ in range(args.queue):
        queue.append(job_fields(rnd, jid, False))
        jid += 1
    queue.sort(key=lambda q: q["submit_us"])

    snap = {"now_us": now, "gpu_types": [{"name": a, "mem_mib": b} for a, b in TYPES],
            "nodes": nodes, "running": running, "queue": queue}
    if args.policy:
        snap["policy"] = args.policy
    json.dump(snap, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


def whole_nodes(args, rnd, now):
    nodes = [{"type": "H100", "gpus": 8} for _ in range(args.nodes)]
    order = list(range(args.nodes))
    rnd.shuffle(order)
    target = int(args.nodes * args.running_fill)
    running = []
    jid = 1
    pos = 0

    def job(r, jid):
        m = r.choice([1, 1, 1, 2, 4])
        j = {"id": jid, "submit_us": now - r.randrange(1, 3_600_000_000), "gpus": 8 * m,
             "priority": r.randrange(4)}
        if r.random() < 0.9:
            j["estimate_us"] = r.randrange(60, 36000) * 1_000_000
        flags = ["preemptible"] if r.random() < 0.5 else []
        if m > 1:
            flags.append("can_span")
        if flags:
            j["flags"] = flags
        return j, m

    while pos < target:
        j, m = job(rnd, jid)
        m = min(m, target - pos)
        j["gpus"] = 8 * m
        if m == 1 and "can_span" in j.get("flags", []):
            j["flags"].remove("can_span")
        j["parts"] = [{"node": order[pos + i], "gpus": 8, "gpu_ids": list(range(8))}
                      for i in range(m)]
        pos += m
        start = now - rnd.randrange(1, 7_200_000_000)
        j["start_us"] = start
        if "estimate_us" in j:
            j["end_estimate_us"] = start + j["estimate_us"]
        running.append(j)
        jid += 1
    queue = []
    for _ in range(args.queue):
        queue.append(job(rnd, jid)[0])
        jid += 1
    queue.sort(key=lambda q: q["submit_us"])
    snap = {"now_us": now, "gpu_types": [{"name": "H100", "mem_mib": 81920}], "nodes": nodes,
            "running": running, "queue": queue}
    if args.policy:
        snap["policy"] = args.policy
    json.dump(snap, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
