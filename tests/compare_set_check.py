# SPDX-License-Identifier: Apache-2.0
"""compare_set_check.py — arms that change the scenario (`tarmac compare --set`)
and class specializations (scenarios/SCHEMA.md, "specialize").

1. A class's `specialize` block loads, and from its `at` on the class's jobs
   take the new shape while the arrivals stay the same: `tarmac synth` of the
   scenario with and without the block gives the same submit times, job for
   job, and the jobs after `at` have the new GPUs and durations.
2. An arm whose --set writes the value the scenario already has gives exactly
   the results of the arm without it (every paired difference 0).
3. Common random numbers hold across arms that differ in the scenario: with
   the fleet split by team (partition=strict), specializing one team's class
   leaves every other team's class exactly as it was (diff 0 in every
   replication), and the specialized class holds fewer GPU-hours, by about
   the ratio of the expected GPU-time per job of its two shapes.
4. The file records what each arm set (/compare@policy_settings).
5. Bad arms: an unknown label is a usage error (64); a horizon or class list
   that differs from the compared scenario's, a path that does not exist or a
   value the scenario refuses are scenario errors (65) naming the arm; none
   leaves a file.
6. The specialization report of a run (docs/output.md, "Specialization"),
   by hand: the jobs after the switch from /jobs, the old and new GPU-hours
   as those jobs times each shape's expected GPU-time (8 and 2/3 GPU-h), the
   window's capacity (32 GPUs, no failures) and held GPU-hours from the time
   series; reclaimed is never more than freed, 0 in a siloed fleet (no other
   team can use team b's GPUs) and positive in a shared one whose other team
   has work waiting.
7. Per-tenant waits (/tenants, and the run summary's tenant table) against
   the jobs table: the jobs that started, their mean wait exactly, the median
   and p95 within the sketch's error.
"""
import json
import os
import re
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


SCENARIO = {
    "name": "two-teams", "seed": 11, "horizon": "10d", "sample": "1h",
    "policy": "order=fifo placement=first-fit backfill=none partition=strict",
    "tenants": [{"name": "a", "share": 0.5}, {"name": "b", "share": 0.5}],
    "fleet": {"pools": [
        {"name": "a-pool", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 8, "tenant": "a"},
        {"name": "b-pool", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 8, "tenant": "b"}]},
    "workload": {"classes": [
        {"name": "train", "tenants": {"a": 1}, "arrival": {"rate_per_hour": 1.5},
         "gpus": {"dist": "discrete", "values": [2, 4, 8], "weights": [0.3, 0.4, 0.3]},
         "duration": {"dist": "exponential", "mean": "3h"}},
        {"name": "infer", "tenants": {"b": 1}, "arrival": {"rate_per_hour": 1.5},
         "gpus": 4, "duration": {"dist": "exponential", "mean": "2h"}}]},
}
# the specialized model: one GPU for a third of the time (expected GPU-time
# per job 4 x 2 h = 8 GPU-h before, 1 x 40 min = 0.67 GPU-h after; team b's
# pool is 75 % loaded before)
SPECIAL = {"at": "0s", "gpus": 1, "duration": {"dist": "exponential", "mean": "40m"}}


def compare(tmp, args, out="c.h5"):
    path = os.path.join(tmp, "sc.json")
    with open(path, "w") as f:
        json.dump(SCENARIO, f)
    o = os.path.join(tmp, out)
    p = subprocess.run([BIN, "compare", path, "--replications", "4", "-j", "1", "--json",
                        "-o", o] + args, capture_output=True, text=True)
    return p, o


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # 1. synth with and without a class specialization
        sc = json.loads(json.dumps(SCENARIO))
        base = os.path.join(tmp, "base.json")
        with open(base, "w") as f:
            json.dump(sc, f)
        sc["workload"]["classes"][1]["specialize"] = dict(SPECIAL, at="5d")
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as f:
            json.dump(sc, f)
        rows = {}
        for name, path in (("base", base), ("spec", spec)):
            out = os.path.join(tmp, name + ".csv")
            p = subprocess.run([BIN, "synth", path, "-q", "-o", out], capture_output=True,
                               text=True)
            check(p.returncode == 0, "synth %s: exit 0 (%s)" % (name, p.stderr.strip()))
            rows[name] = np.genfromtxt(out, delimiter=",", names=True, dtype=None,
                                       encoding="ascii")
        b, s = rows["base"], rows["spec"]
        check(len(b) == len(s) and np.array_equal(b["submit_us"], s["submit_us"])
              and np.array_equal(b["cls"], s["cls"]),
              "specialize keeps the arrivals: %d and %d jobs, the same submit times" %
              (len(b), len(s)))
        at = 5 * 86400 * 10**6
        inf = s["cls"] == 1
        after, before = inf & (s["submit_us"] >= at), inf & (s["submit_us"] < at)
        check(after.sum() > 50 and np.all(s["gpus"][after] == 1)
              and np.all(s["gpus"][before] == 4),
              "after `at` the class's jobs have 1 GPU (%d jobs), before it 4 (%d jobs)" %
              (after.sum(), before.sum()))
        m_after = s["duration_us"][after].mean() / 60e6
        m_before = s["duration_us"][before].mean() / 60e6
        check(25 < m_after < 60 and 90 < m_before < 160,
              "mean duration %.1f min after `at` (40 expected), %.1f min before (120)" %
              (m_after, m_before))
        check(np.array_equal(b["gpus"][b["cls"] == 0], s["gpus"][s["cls"] == 0]),
              "the other class's jobs are unchanged")

        # 2. and 3. the arms
        pol = "order=fifo placement=first-fit backfill=none partition=strict"
        p, out = compare(tmp, [
            "--policy", "base:" + pol, "--policy", "same:" + pol, "--policy", "special:" + pol,
            "--set", "same:fleet.pools[1].nodes=2",
            "--set", "special:workload.classes[1].specialize=" + json.dumps(SPECIAL)])
        check(p.returncode == 0, "compare with --set: exit 0 (%s)" % p.stderr.strip())
        if p.returncode != 0:
            return
        js = json.loads(p.stdout)
        labels = [x["label"] for x in js["policies"]]
        check(labels == ["base", "same", "special"], "arms %s" % labels)
        same_zero = all(m["policies"][1]["diff_mean"] == 0 and m["policies"][1]["diff_sd"] == 0
                        for m in js["metrics"].values()
                        if np.isfinite(m["policies"][1]["diff_mean"]))
        check(same_zero, "an arm that sets the value the scenario has: every difference 0")
        train = js["classes"]["train"]
        unchanged = all(m["policies"][2]["values"] == m["policies"][0]["values"]
                        for m in train.values())
        check(unchanged, "siloed: specializing team b's class leaves team a's class as it was, "
              "replication for replication")
        infer = js["classes"]["infer"]
        gh = infer["gpu_hours"]["policies"]
        ratio = gh[2]["mean"] / gh[0]["mean"]
        # jobs arrived in the window hold their expected GPU-time (8 and 2/3
        # GPU-h); waits do not count, so the ratio is near 1/12
        check(0.05 < ratio < 0.13,
              "the specialized class holds %.0f GPU-h against %.0f (ratio %.3f, 1/12 = 0.083 "
              "expected)" % (gh[2]["mean"], gh[0]["mean"], ratio))
        check(infer["jobs_arrived"]["policies"][2]["values"] ==
              infer["jobs_arrived"]["policies"][0]["values"],
              "the specialized class sees the same arrivals")
        # 4. the settings in the file
        with h5py.File(out, "r") as f:
            sets = f["compare"].attrs["policy_settings"]
            sets = sets.decode() if isinstance(sets, bytes) else sets
        lines = sets.split("\n")
        check(len(lines) == 3 and lines[0] == "" and lines[1] == "fleet.pools[1].nodes=2"
              and lines[2].startswith("workload.classes[1].specialize={"),
              "/compare@policy_settings records each arm's keys: %r" % lines)

        # 5. bad arms
        cases = [
            (["--policy", "a:" + pol, "--set", "b:seed=3"], 64, "no policy is labelled 'b'"),
            (["--policy", "a:" + pol, "--policy", "b:" + pol, "--set", 'b:horizon="5d"'], 65,
             "horizon differs"),
            (["--policy", "a:" + pol, "--policy", "b:" + pol,
              "--set", "b:workload.classes[1].name=other"], 65, "must keep their names"),
            (["--policy", "a:" + pol, "--policy", "b:" + pol,
              "--set", "b:workload.classes[4].gpus=1"], 65, r"has 2 elements, no \[4\]"),
            (["--policy", "a:" + pol, "--policy", "b:" + pol,
              "--set", "b:fleet.pools[0].nodes=-1"], 65, "--set for 'b'"),
            (["--policy", "a:" + pol, "--set", "a:nokey"], 64, "LABEL:PATH=VALUE"),
        ]
        for i, (args, code, pat) in enumerate(cases):
            p, out = compare(tmp, args, out="bad%d.h5" % i)
            check(p.returncode == code and re.search(pat, p.stderr) is not None
                  and not os.path.exists(out),
                  "bad arm %s: exit %d (want %d), message %r" %
                  (args[-1], p.returncode, code, p.stderr.strip()[:160]))
        # 6. the specialization report of a run
        for part, want_reclaimed in (("none", "positive"), ("strict", "zero")):
            sc = json.loads(json.dumps(SCENARIO))
            sc["horizon"] = "20d"
            sc["policy"] = "order=fifo placement=first-fit backfill=none partition=" + part
            sc["workload"]["classes"][0]["arrival"]["rate_per_hour"] = 3  # team a overloaded
            sc["workload"]["classes"][1]["specialize"] = dict(SPECIAL, at="10d")
            path = os.path.join(tmp, "run-%s.json" % part)
            with open(path, "w") as f:
                json.dump(sc, f)
            out = os.path.join(tmp, "run-%s.h5" % part)
            p = subprocess.run([BIN, "run", path, "-o", out], capture_output=True, text=True)
            check(p.returncode == 0, "run partition=%s: exit 0 (%s)" % (part, p.stderr.strip()))
            with h5py.File(out, "r") as f:
                g = f["summary/classes/infer/specialization"]
                r = {k: float(g[k][()]) for k in g}
                j = {k: f["jobs"][k][()] for k in ("class", "submit_s")}
                t = {k: f["timeseries"][k][()] for k in ("t_s", "t_end_s", "gpus_alloc")}
                check("specialization" not in f["summary/classes/train"],
                      "a class without a specialization has no report")
            at = 10 * 86400.0
            n = int(((j["class"] == 1) & (j["submit_s"] >= at)).sum())
            check(r["at_s"] == at and r["jobs"] == n and n > 100,
                  "partition=%s: %d jobs after the switch (report %d)" % (part, n, r["jobs"]))
            check(abs(r["old_gpu_hours"] - 8 * n) < 1e-6 * n
                  and abs(r["new_gpu_hours"] - n * 2 / 3) < 1e-6 * n
                  and abs(r["freed_gpu_hours"] - n * (8 - 2 / 3)) < 1e-6 * n,
                  "old %.1f = %d x 8, new %.1f = %d x 2/3, freed %.1f" %
                  (r["old_gpu_hours"], n, r["new_gpu_hours"], n, r["freed_gpu_hours"]))
            check(abs(r["capacity_gpu_hours"] - 32 * 240) < 1e-6,
                  "capacity %.3f GPU-h = 32 GPUs x 240 h" % r["capacity_gpu_hours"])
            inside = t["t_s"] >= at
            held = float((t["gpus_alloc"][inside] * (t["t_end_s"] - t["t_s"])[inside]).sum()) / 3600
            check(abs(r["class_gpu_hours"] + r["others_gpu_hours"] - held) < 1e-6 * held,
                  "class + others = %.3f GPU-h held after the switch (time series %.3f)" %
                  (r["class_gpu_hours"] + r["others_gpu_hours"], held))
            beyond = r["others_gpu_hours"] - (r["capacity_gpu_hours"] - r["old_gpu_hours"])
            want = min(max(beyond, 0.0), r["freed_gpu_hours"])
            check(abs(r["reclaimed_gpu_hours"] - want) < 1e-6 * held
                  and r["reclaimed_gpu_hours"] <= r["freed_gpu_hours"],
                  "reclaimed %.1f = clamp(others - (capacity - old), 0, freed)" %
                  r["reclaimed_gpu_hours"])
            ok = r["reclaimed_gpu_hours"] > 0 if want_reclaimed == "positive" else \
                r["reclaimed_gpu_hours"] == 0
            check(ok, "partition=%s: reclaimed %.1f GPU-h (%s expected)" %
                  (part, r["reclaimed_gpu_hours"], want_reclaimed))
            check("specialization of infer from 10.0 d: %d jobs" % n in p.stdout,
                  "the run summary has the specialization line")
            # 7. per-tenant waits
            with h5py.File(out, "r") as f:
                jt = {k: f["jobs"][k][()] for k in ("tenant", "start_s", "wait_s")}
                tt = {k: f["tenants"][k][()] for k in ("jobs_started", "wait_mean_s", "wait_p50_s",
                                                      "wait_p95_s")}
            for ti, name in enumerate(("a", "b")):
                w = np.sort(jt["wait_s"][(jt["tenant"] == ti) & ~np.isnan(jt["start_s"])])
                p50 = w[max(0, int(np.ceil(0.50 * len(w))) - 1)]
                p95 = w[max(0, int(np.ceil(0.95 * len(w))) - 1)]
                check(tt["jobs_started"][ti] == len(w) and len(w) > 0
                      and abs(tt["wait_mean_s"][ti] - w.mean()) <= 1e-9 * max(1.0, w.mean())
                      and abs(tt["wait_p50_s"][ti] - p50) <= 0.005 * p50 + 1e-6
                      and abs(tt["wait_p95_s"][ti] - p95) <= 0.005 * p95 + 1e-6,
                      "partition=%s tenant %s: %d started, mean wait %.1f s (jobs %.1f), p50 %.1f "
                      "(%.1f), p95 %.1f (%.1f)" %
                      (part, name, tt["jobs_started"][ti], tt["wait_mean_s"][ti], w.mean(),
                       tt["wait_p50_s"][ti], p50, tt["wait_p95_s"][ti], p95))
            check(re.search(r"^tenant +arrived +started +wait mean", p.stdout, re.M) is not None,
                  "the run summary has the tenant table")
    print("compare_set_check: %s" % ("all checks passed" if not fails else
                                      "%d check(s) failed" % fails))
    sys.exit(1 if fails else 0)


main()
