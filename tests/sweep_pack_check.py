#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""sweep_pack_check.py — a packing sweep (kind "pack") against `tarmac replay
--protocol pack`: point (policy, pod list, replication k) equals seed k of the
replay of that policy and pod list, curve for curve, bit for bit; the merged
file holds every curve (rows equal the point files) and their means.

Needs the openb trace (TARMAC_DATA_DIR); skipped (77) without it, except under
CI=true.
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BIN = os.environ["TARMAC_BIN"]
DATA = os.environ.get("TARMAC_DATA_DIR", "")
OB = os.path.join(DATA, "alibaba-gpu-v2023-openb")
if not os.path.isdir(OB):
    if os.environ.get("CI") == "true":
        print(f"FAIL: CI=true and the openb trace is missing ({OB})")
        sys.exit(1)
    print(f"SKIPPED: no openb trace in {OB}")
    sys.exit(77)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


METRICS = ["alloc_pct", "frag_pct", "frag_capacity_pct", "failed_pods", "failed_gpu_pct"]
POLICIES = ["order=fifo placement=first-fit backfill=none", "order=fifo placement=best-fit backfill=none"]
LISTS = ["openb_pod_list_gpushare40.csv", "openb_pod_list_multigpu50.csv"]
R, TARGET, STEP, SEED = 2, 110, 2, 42

with tempfile.TemporaryDirectory() as w:
    sweep = os.path.join(w, "fgd.json")
    with open(sweep, "w") as f:
        json.dump({"kind": "pack", "replications": R,
                   "pack": {"nodes": "data:alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv",
                            "pods": "data:alibaba-gpu-v2023-openb/" + LISTS[0],
                            "target_pct": TARGET, "step_pct": STEP, "seed": SEED},
                   "grid": {"policy": POLICIES,
                            "pods": ["data:alibaba-gpu-v2023-openb/" + x for x in LISTS]}}, f)
    plan = subprocess.run([BIN, "sweep", "plan", sweep, "--json"], capture_output=True, text=True)
    check(plan.returncode == 0, f"plan: {plan.stderr}")
    pts = json.loads(plan.stdout)["points"] if plan.returncode == 0 else []
    check(len(pts) == 8 and all(p["seed"] == SEED for p in pts), "plan of the packing sweep")
    run = subprocess.run([BIN, "sweep", sweep, "-j", "2", "-q"], capture_output=True, text=True)
    check(run.returncode == 0, f"sweep: exit {run.returncode}: {run.stderr}")
    P = os.path.join(w, "fgd.points")
    merged = os.path.join(P, "merged.h5")
    with h5py.File(merged, "r") as m:
        g = m["sweep"]
        check(g.attrs["sweep_kind"] == "pack" and int(g["n_ok"][()]) == 8, "merged packing sweep")
        grid = g["curves/arrived_pct"][()]
        check(grid.shape == (8, TARGET // STEP + 1), f"curve grid {grid.shape}")
        for combo in range(4):
            pol, lst = POLICIES[combo // 2], LISTS[combo % 2]
            out = os.path.join(w, f"replay{combo}.h5")
            r = subprocess.run([BIN, "replay", os.path.join(OB, lst), "--format", "openb", "--protocol", "pack",
                                "--nodes", os.path.join(OB, "openb_node_list_gpu_node.csv"), "--policy", pol,
                                "--seeds", str(R), "--seed", str(SEED), "--target", str(TARGET), "--step", str(STEP),
                                "-o", out, "-q"], capture_output=True, text=True)
            check(r.returncode == 0, f"replay {combo}: {r.stderr}")
            with h5py.File(out, "r") as rep:
                for k in range(R):
                    i = combo * R + k
                    with h5py.File(os.path.join(P, f"p{i:06d}.h5"), "r") as pf:
                        check(int(pf["sweep_point/replication"][()]) == k, "point replication")
                        check(pf["packing/policies/p00"].attrs["spec"] == pol, "point policy")
                        for mt in METRICS:
                            want = rep[f"packing/policies/p00/seeds/s{k:02d}/{mt}"][()]
                            got = pf[f"packing/policies/p00/seeds/s00/{mt}"][()]
                            check(want.tobytes() == got.tobytes(), f"point {i} {mt} differs from replay seed {k}")
                            check(g[f"curves/{mt}"][i].tobytes() == got.tobytes(), f"merged curve {mt} of point {i}")
                            check(g[f"points/{mt}"][i] == got[-1], f"merged end value {mt} of point {i}")
                        check(int(pf["packing/policies/p00/pods"][0]) == int(rep["packing/policies/p00/pods"][k]),
                              f"point {i} pods")
                        check(g["points/pods_failed"][i] == rep["packing/policies/p00/pods_failed"][k],
                              f"merged pods_failed of point {i}")
                for mt in METRICS:
                    want = rep[f"packing/policies/p00/{mt}_mean"][()]
                    got = g[f"curves_mean/{mt}"][combo]
                    check(np.allclose(got, want, rtol=1e-12, atol=1e-12), f"mean curve {mt} of combination {combo}")
        labels = g["params/pods"].attrs["values"].split("\n")
        check([labels[c].split("/")[-1] for c in g["params/pods"][()]] == LISTS * 2, "params pods")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("packing sweep equals tarmac replay seed for seed; the merged file holds every curve")
