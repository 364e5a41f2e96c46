#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gavel_fig9.sh — Gavel's continuous single-GPU experiment (paper Fig. 9),
# small: heterogeneity-agnostic versus heterogeneity-aware LAS (max-min
# fairness) at increasing Poisson arrival rates; docs/gavel.md has the figures.
#
# Usage: sh bench/gavel_fig9.sh [TARMAC] [RATES...]
# Cluster 12 V100 + 12 P100 + 12 K80 (the paper: 36 of each); six of Gavel's
# job types as classes (uniform mix), one GPU each, speeds from Gavel's
# isolated throughputs (../shared/data/gavel/SOURCE.md) relative to the V100;
# run time on a V100 lognormal, mean 2 h; rounds of 6 min; 6 days of arrivals.
# Prints the mean JCT (hours) of the jobs that
# completed, per rate and policy.
set -eu
BIN=${1:-build/sim/tarmac}
shift 2>/dev/null || true
RATES=${*:-"2 4 6 8 10 12"}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

scenario() { # $1 rate per hour, $2 policy
    /usr/bin/python3 - "$1" "$2" > "$T/s.json" <<'PY'
import json, sys
rate, policy = float(sys.argv[1]), sys.argv[2]
# isolated throughput k80, p100, v100 (steps/s), Gavel's simulation_throughputs.json
types = {"resnet50": (0.619, 2.619, 4.395), "transformer": (1.752, 5.092, 8.618),
         "lm": (17.142, 58.173, 64.742), "a3c": (3.439, 5.681, 7.176),
         "cyclegan": (0.505, 2.403, 4.426), "recommendation": (10.441, 16.597, 7.470)}
classes = []
for name, (k80, p100, v100) in types.items():
    classes.append({"name": name, "kind": "training", "gpus": 1,
                    "arrival": {"rate_per_hour": rate / len(types)},
                    "duration": {"dist": "lognormal", "mean": "2h", "sigma": 1.0},
                    "gpu_types": ["V100", "P100", "K80"], "gpu_mem_gib": 8,
                    "speeds": {"V100": 1.0, "P100": p100 / v100, "K80": k80 / v100},
                    "preemptible": True, "checkpoint": "1m", "restart_overhead": "10s"})
print(json.dumps({"name": "gavel-fig9", "seed": 11, "horizon": "6d", "sample": "1h",
                  "policy": policy,
                  "fleet": {"pools": [{"name": t.lower(), "gpu_type": t, "nodes": 3, "gpus_per_node": 4}
                                      for t in ("V100", "P100", "K80")]},
                  "workload": {"classes": classes}}))
PY
}

printf "rate_per_h,policy,jobs_completed,jct_mean_h,jct_p95_h,queued_end,preemptions\n"
for r in $RATES; do
    for p in "gavel max-min-agnostic" "gavel max-min"; do
        scenario "$r" "$p"
        "$BIN" run "$T/s.json" -q --json -o "$T/o.h5" > "$T/o.json"
        /usr/bin/python3 - "$T/o.json" "$r" "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("%s,%s,%d,%.2f,%.2f,%d,%d" % (sys.argv[2], sys.argv[3], d["jobs_completed"],
      d["completion_mean_s"] / 3600, d["completion_p95_s"] / 3600, d["jobs_queued_end"], d["preemptions"]))
PY
    done
done
