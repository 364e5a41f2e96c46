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
"""
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
        import re
        for i, (args, code, pat) in enumerate(cases):
            p, out = compare(tmp, args, out="bad%d.h5" % i)
            check(p.returncode == code and re.search(pat, p.stderr) is not None
                  and not os.path.exists(out),
                  "bad arm %s: exit %d (want %d), message %r" %
                  (args[-1], p.returncode, code, p.stderr.strip()[:160]))
    print("compare_set_check: %s" % ("all checks passed" if not fails else
                                      "%d check(s) failed" % fails))
    sys.exit(1 if fails else 0)


main()
