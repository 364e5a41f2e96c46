#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gavel_ledger.sh — Gavel's round preemptions in the GPU-hour ledger
# (docs/gavel.md): with fewer jobs than GPUs every lease is renewed and no
# restart overhead is paid; with more jobs than GPUs the rounds time-slice,
# each preempted job keeps its work (work_lost stays 0) and each restart pays
# the class's restart overhead, which the ledger shows as alloc_restart:
# exactly restarts x overhead x GPUs.
set -eu
BIN=${TARMAC_BIN:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "gavel_ledger: $*" >&2; exit 1; }

# $1 arrivals per hour, $2 policy
scenario() {
    cat > "$T/s.json" <<JSON
{
  "name": "gavel-ledger", "seed": 3, "horizon": "2d", "sample": "1h",
  "policy": "$2",
  "fleet": {"pools": [
    {"name": "a", "gpu_type": "H100", "nodes": 2, "gpus_per_node": 4},
    {"name": "b", "gpu_type": "A100-80GB", "nodes": 2, "gpus_per_node": 4}
  ]},
  "workload": {"classes": [
    {"name": "train", "kind": "training", "arrival": {"rate_per_hour": $1},
     "gpus": 1, "duration": {"dist": "exponential", "mean": "3h"},
     "preemptible": true, "checkpoint": "10m", "restart_overhead": "2m",
     "gpu_types": ["H100", "A100-80GB"]}
  ]}
}
JSON
}
summary() {
    "$BIN" run "$T/s.json" -q --json -o "$T/o.h5" > "$T/o.json"
    /usr/bin/python3 - "$T/o.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = {x["bucket"]: x["gpu_hours"] for x in d["ledger"]["fleet"]}
print(d["preemptions"], d["jobs_running_end"] + d["jobs_queued_end"], "%.6f" % b["alloc_restart"], "%.6f" % b["work_lost"])
PY
}

# light load: 0.5 jobs/h x 3 h = 1.5 jobs on 16 GPUs, leases always renewed
scenario 0.5 "gavel max-min@360"
set -- $(summary)
[ "$1" = 0 ] || fail "light load: $1 preemptions, want 0 (leases are renewed)"
[ "$3" = 0.000000 ] || fail "light load: alloc_restart $3 GPU-h, want 0"

# heavy load: 12 jobs/h x 3 h = 36 jobs on 16 GPUs, the rounds time-slice
scenario 12 "gavel max-min@360"
set -- $(summary)
[ "$1" -gt 100 ] || fail "heavy load: $1 preemptions, want many (time-slicing)"
[ "$4" = 0.000000 ] || fail "heavy load: work_lost $4 GPU-h, want 0 (a round checkpoints)"
# every preemption is followed by a restart of 2 min on 1 GPU, except for the
# jobs preempted and still waiting at the end, and a restart cut by the end
/usr/bin/python3 - "$1" "$2" "$3" <<'PY' || fail "heavy load: alloc_restart does not match the restarts"
import sys
pre, left, restart = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
hi = pre * 2 / 60.0
lo = (pre - left) * 2 / 60.0
if not (lo - 1e-6 <= restart <= hi + 1e-6):
    print("alloc_restart %.4f GPU-h outside [%.4f, %.4f] for %d preemptions" % (restart, lo, hi, pre))
    sys.exit(1)
PY
echo "gavel_ledger: ok"
