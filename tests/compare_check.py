#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""compare_check.py — `tarmac compare` from the outside.

1. Two identical policies (a preset and its specification) give a paired
   difference of exactly zero, with an interval that contains it, in the JSON
   summary, the printed table and the HDF5 file.
2. Every per-run value in /compare/runs is recomputed here, independently,
   from `tarmac run --replication r` of the same scenario with that policy:
   the jobs table and the time series, with the warm-up removed as documented
   (docs/output.md, "Comparison files"). The runs of different policies have
   the same jobs (common random numbers).
3. Means, intervals and paired differences are recomputed from those values,
   with the Student-t quantile of 2 degrees of freedom in closed form.
4. Per workload class: identical policies differ by exactly zero with
   intervals containing zero (JSON, HDF5, the --per-class table); every
   per-class run value in /compare/class_runs is recomputed from the run's
   jobs table with the warm-up removed; and without a warm-up it equals what
   the run's own file reports under /summary/classes/<class>.
5. Bad command lines exit 64, an unknown policy 65, naming it.
"""
import json
import math
import os
import sys
import tempfile

import h5py
import numpy as np

from checklib import SRC, check, failures, tarmac

SCEN = os.path.join(SRC, "tests", "analysis_small.json")


def close(a, b, rel=1e-9):
    if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * (1 + abs(a) + abs(b))


def nearest_rank(x, q):
    x = np.sort(x)
    return float(x[max(0, math.ceil(q * len(x)) - 1)]) if len(x) else math.nan


def metrics_from_run(path, warm, horizon):
    """The metrics of one run, from its file, as docs/output.md defines them."""
    with h5py.File(path, "r") as f:
        j = {k: f["jobs"][k][()] for k in f["jobs"]}
        t = {k: f["timeseries"][k][()] for k in f["timeseries"]}
    after = j["submit_s"] >= warm
    started = after & ~np.isnan(j["start_s"])
    completed = after & (j["state"] == 2)
    w = j["wait_s"][started]
    run = j["run_s"][completed]
    sd = np.maximum(1.0, (j["wait_s"][completed] + run) / np.maximum(run, 10.0))
    inside = (t["t_s"] >= warm) & (t["t_end_s"] <= horizon)
    width = (t["t_end_s"] - t["t_s"])[inside]
    return {
        "wait_mean_s": float(w.mean()) if len(w) else math.nan,
        "wait_p50_s": nearest_rank(w, 0.50),
        "wait_p95_s": nearest_rank(w, 0.95),
        "wait_p99_s": nearest_rank(w, 0.99),
        "slowdown_mean": float(sd.mean()) if len(sd) else math.nan,
        "alloc_util": float((t["gpus_alloc"][inside] * width).sum() / (t["gpus_up"][inside] * width).sum()),
        "queue_len_mean": float((t["queue_len"][inside] * width).sum() / width.sum()),
        "jobs_arrived": float(after.sum()),
        "jobs_completed": float(((j["state"] == 2) & (j["end_s"] >= warm) & (j["end_s"] <= horizon)).sum()),
        "jobs_waiting_end": float((after & (j["state"] == 0)).sum()),
        "_submit": np.sort(j["submit_s"]),
        "_classes": {c: class_metrics(j, after & (j["class"] == c)) for c in np.unique(j["class"])},
    }


def class_metrics(j, mask):
    """The per-class metrics of the jobs in mask (those of one class after the warm-up)."""
    started = mask & ~np.isnan(j["start_s"])
    completed = mask & (j["state"] == 2)
    w = j["wait_s"][started]
    run = j["run_s"][completed]
    sd = np.maximum(1.0, (j["wait_s"][completed] + run) / np.maximum(run, 10.0))
    return {
        "wait_mean_s": float(w.mean()) if len(w) else math.nan,
        "wait_p50_s": nearest_rank(w, 0.50),
        "wait_p95_s": nearest_rank(w, 0.95),
        "slowdown_mean": float(sd.mean()) if len(sd) else math.nan,
        "jobs_arrived": float(mask.sum()),
        "gpu_hours": float(j["alloc_gpu_s"][mask].sum()) / 3600,
        "work_gpu_hours": float(j["work_ref_gpu_s"][mask].sum()) / 3600,
    }


with tempfile.TemporaryDirectory() as d:
    # 1. identical policies
    same = os.path.join(d, "same.h5")
    p = tarmac("compare", SCEN, "--policies", "fifo-best-fit",
               "--policy", "same: order=fifo placement=best-fit backfill=none",
               "--replications", "3", "--warmup", "12h", "-o", same, "--json")
    js = json.loads(p.stdout)
    check(js["replications"] == 3 and js["warmup_s"] == 43200, "JSON replications and warm-up")
    check([x["label"] for x in js["policies"]] == ["fifo-best-fit", "same"], f"labels {js['policies']}")
    for name, m in js["metrics"].items():
        b = m["policies"][1]
        check(b["diff_mean"] == 0, f"JSON {name}: identical policies differ by {b['diff_mean']}")
        check(b["diff_ci_low"] <= 0 <= b["diff_ci_high"], f"JSON {name}: interval {b['diff_ci_low']}..{b['diff_ci_high']} lacks 0")
        check(m["policies"][0]["values"] == b["values"], f"JSON {name}: values differ")
    with h5py.File(same, "r") as f:
        check(f.attrs["kind"] == "compare", "root attribute kind")
        for name in f["compare/metrics"]:
            g = f["compare/metrics"][name]
            check(g["diff_mean"][1] == 0 and g["diff_ci_low"][1] <= 0 <= g["diff_ci_high"][1],
                  f"HDF5 {name}: difference {g['diff_mean'][1]} [{g['diff_ci_low'][1]}, {g['diff_ci_high'][1]}]")
    check(list(js["classes"]) == ["training", "evaluation"], f"JSON classes {list(js['classes'])}")
    for cls, ms in js["classes"].items():
        check(set(ms) == {"wait_mean_s", "wait_p50_s", "wait_p95_s", "slowdown_mean", "jobs_arrived",
                          "gpu_hours", "work_gpu_hours"},
              f"JSON class {cls} metrics {sorted(ms)}")
        for name, m in ms.items():
            b = m["policies"][1]
            check(b["diff_mean"] == 0, f"JSON {cls} {name}: identical policies differ by {b['diff_mean']}")
            check(b["diff_ci_low"] <= 0 <= b["diff_ci_high"],
                  f"JSON {cls} {name}: interval {b['diff_ci_low']}..{b['diff_ci_high']} lacks 0")
            check(m["policies"][0]["values"] == b["values"], f"JSON {cls} {name}: values differ")
    with h5py.File(same, "r") as f:
        for name in f["compare/class_metrics"]:
            g = f["compare/class_metrics"][name]
            check(g["class"].attrs["labels"].split("\n") == ["training", "evaluation"], f"{name}: class labels")
            for i in range(len(g["policy"])):
                if g["policy"][i] == 1:
                    check(g["diff_mean"][i] == 0 and g["diff_ci_low"][i] <= 0 <= g["diff_ci_high"][i],
                          f"HDF5 class {g['class'][i]} {name}: difference {g['diff_mean'][i]} "
                          f"[{g['diff_ci_low'][i]}, {g['diff_ci_high'][i]}]")
    table = tarmac("compare", SCEN, "--policies", "fifo-best-fit", "--policy",
                   "same: order=fifo placement=best-fit backfill=none", "--replications", "3",
                   "--warmup", "12h", "-o", same, "--per-class").stdout
    print(table)
    rows = [l for l in table.splitlines() if l.split()[:1] == ["same"]]
    n_rows = len(js["metrics"]) + sum(len(ms) for ms in js["classes"].values())
    check(len(rows) == n_rows, f"{len(rows)} printed rows of 'same', want {n_rows}")
    check("class training" in table and "class evaluation" in table, "--per-class: the class sections")
    for l in rows:
        check("*" not in l, f"printed a significant difference between identical policies: {l}")
    # the interval of a mean never leaves the metric's range in the table: every
    # metric is at least 0 and the allocation share at most 100 % (the file keeps
    # the symmetric interval; with 3 replications some reach below 0 there)
    metric = ""
    for l in table.splitlines():
        if "[" not in l or l.startswith("metric"):
            continue
        if not l.startswith(" "):
            metric = l[:30]
        lo, hi = (float(x) for x in l[l.index("[") + 1:l.index("]")].split(","))
        check(lo >= 0, f"printed interval below 0: {l}")
        if metric.startswith("allocation utilization (%)"):
            check(hi <= 100, f"printed allocation interval above 100 %: {l}")

    # 2. per-run values against `tarmac run`, and common random numbers
    out = os.path.join(d, "cmp.h5")
    pols = ["fifo-first-fit", "fifo-best-fit"]
    js = json.loads(tarmac("compare", SCEN, "--policies", ",".join(pols), "--replications", "3",
                           "--warmup", "12h", "-o", out, "--json").stdout)
    warm, horizon = 43200.0, 3 * 86400.0
    with open(SCEN) as fh:
        scen = json.load(fh)
    mine = {}
    for pi, pol in enumerate(pols):
        scen["policy"] = pol
        sp = os.path.join(d, f"s{pi}.json")
        with open(sp, "w") as fh:
            json.dump(scen, fh)
        for r in range(3):
            rp = os.path.join(d, f"run{pi}{r}.h5")
            tarmac("run", sp, "--replication", str(r), "-o", rp, "-q")
            mine[pi, r] = metrics_from_run(rp, warm, horizon)
    for r in range(3):
        check(np.array_equal(mine[0, r]["_submit"], mine[1, r]["_submit"]),
              f"replication {r}: the policies saw different jobs")
    check(not np.array_equal(mine[0, 0]["_submit"], mine[0, 1]["_submit"]), "replications 0 and 1 have the same jobs")
    with h5py.File(out, "r") as f:
        runs = {k: f["compare/runs"][k][()] for k in f["compare/runs"]}
        labels = f["compare/runs/policy"].attrs["labels"].split("\n")
        check(labels == pols, f"policy labels {labels}")
        check(list(f["compare/runs"].attrs["columns"])[:2] == ["policy", "replication"], "runs columns")
        for i in range(len(runs["policy"])):
            pi, r = int(runs["policy"][i]), int(runs["replication"][i])
            for k, want in mine[pi, r].items():
                if k.startswith("_"):
                    continue
                got = float(runs[k][i])
                # quantiles come from a sketch with 0.5 % relative error
                rel = 0.0051 if k.startswith("wait_p") else 1e-9
                check(close(got, want, rel), f"policy {pols[pi]} replication {r} {k}: compare {got}, run file {want}")
        # the per-class values of every run, from its jobs table
        cr = {k: f["compare/class_runs"][k][()] for k in f["compare/class_runs"]}
        cls_labels = f["compare/class_runs/class"].attrs["labels"].split("\n")
        check(len(cr["class"]) == 2 * 3 * len(cls_labels), f"{len(cr['class'])} class rows")
        for i in range(len(cr["class"])):
            pi, r, c = int(cr["policy"][i]), int(cr["replication"][i]), int(cr["class"][i])
            want = mine[pi, r]["_classes"].get(c)
            check(want is not None, f"class {c}: no jobs in the run file")
            for k, v in (want or {}).items():
                got = float(cr[k][i])
                rel = 0.0051 if k.startswith("wait_p") else 1e-9
                check(close(got, v, rel), f"policy {pols[pi]} replication {r} class {cls_labels[c]} {k}: "
                      f"compare {got}, run file {v}")
        # and their intervals and paired differences, as for the overall metrics
        for name in f["compare/class_metrics"]:
            g = f["compare/class_metrics"][name]
            for i in range(len(g["class"])):
                c, pi = int(g["class"][i]), int(g["policy"][i])
                sel = lambda q, r: float(cr[name][(cr["policy"] == q) & (cr["replication"] == r) & (cr["class"] == c)][0])
                v = np.array([sel(pi, r) for r in range(3)])
                dd = v - np.array([sel(0, r) for r in range(3)])
                m, sdv = v.mean(), v.std(ddof=1)
                a = 2 * 0.975 - 1
                tq = a * math.sqrt(2 / (1 - a * a))  # Student t, 2 d.o.f.
                check(close(g["mean"][i], m) and close(g["ci_low"][i], m - tq * sdv / math.sqrt(3)),
                      f"class {c} {name} interval of policy {pi}")
                check(close(g["diff_mean"][i], dd.mean()), f"class {c} {name} paired difference of policy {pi}")
                jm = js["classes"][cls_labels[c]][name]["policies"][pi]
                check(close(jm["mean"], m) and close(jm["diff_mean"], dd.mean()), f"class {c} {name}: JSON and HDF5 agree")
        # 3. intervals and paired differences, recomputed
        a = 2 * 0.975 - 1
        t2 = a * math.sqrt(2 / (1 - a * a))  # Student t, 2 d.o.f., closed form
        check(close(float(f["compare/t_quantile"][()]), t2), f"t quantile {f['compare/t_quantile'][()]} vs {t2}")
        for name in f["compare/metrics"]:
            g = f["compare/metrics"][name]
            check(g["mean"].attrs["units"] == g["diff_mean"].attrs["units"], f"{name}: units")
            v = np.array([[float(runs[name][(runs["policy"] == pi) & (runs["replication"] == r)][0]) for r in range(3)] for pi in range(2)])
            for pi in range(2):
                m, s = v[pi].mean(), v[pi].std(ddof=1)
                dd = v[pi] - v[0]
                dm, ds = dd.mean(), dd.std(ddof=1)
                check(close(g["mean"][pi], m), f"{name} mean")
                check(close(g["sd"][pi], s), f"{name} sd")
                check(close(g["ci_low"][pi], m - t2 * s / math.sqrt(3)) and close(g["ci_high"][pi], m + t2 * s / math.sqrt(3)),
                      f"{name} interval of policy {pi}")
                check(close(g["diff_mean"][pi], dm) and close(g["diff_ci_low"][pi], dm - t2 * ds / math.sqrt(3)),
                      f"{name} paired difference of policy {pi}")
                jm = js["metrics"][name]["policies"][pi]
                check(close(jm["mean"], m) and close(jm["ci_high"], m + t2 * s / math.sqrt(3)), f"{name}: JSON and HDF5 agree")
        # the provenance a reader needs
        check(f["provenance/scenario_name"].asstr()[()] == "small mixed fleet", "scenario name")
        check(f["compare"].attrs["policy_specs"].split("\n") == pols, "policy specs")

    # without a warm-up, the per-class values are those of the run's own file
    nowarm = os.path.join(d, "nowarm.h5")
    tarmac("compare", SCEN, "--policies", "fifo-best-fit", "--replications", "2", "--warmup", "0",
           "-o", nowarm, "-q")
    with h5py.File(nowarm, "r") as f:
        cr = {k: f["compare/class_runs"][k][()] for k in f["compare/class_runs"]}
        cls_labels = f["compare/class_runs/class"].attrs["labels"].split("\n")
    for r in range(2):
        rp = os.path.join(d, f"own{r}.h5")
        tarmac("run", SCEN, "--replication", str(r), "-o", rp, "-q")
        with h5py.File(rp, "r") as f:
            for c, cls in enumerate(cls_labels):
                i = np.flatnonzero((cr["replication"] == r) & (cr["class"] == c))
                check(len(i) == 1, f"replication {r} class {cls}: {len(i)} rows")
                for k in ("wait_mean_s", "wait_p50_s", "wait_p95_s", "slowdown_mean", "jobs_arrived"):
                    own = float(f[f"summary/classes/{cls}/{k}"][()])
                    got = float(cr[k][i[0]]) if len(i) else math.nan
                    check(close(got, own), f"replication {r} class {cls} {k}: compare {got}, /summary {own}")

    # 5. bad command lines
    tarmac("compare", SCEN, "--policies", "fifo-best-fit", "--replications", "1", "-o", out, code=64)
    tarmac("compare", SCEN, "--replications", "3", "-o", out, code=64)
    tarmac("compare", SCEN, "--policies", "fifo-best-fit", "--warmup", "5d", "-o", out, code=64)
    p = tarmac("compare", SCEN, "--policies", "fifo-best-fit,order=fifo placement=nowhere", "-o", out, code=65)
    check("nowhere" in p.stderr, f"unknown policy message: {p.stderr}")
    check(not [n for n in os.listdir(d) if ".tmp" in n], "temporary files left behind")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("compare: all checks passed")
