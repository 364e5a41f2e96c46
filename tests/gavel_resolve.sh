#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gavel_resolve.sh — when the engine solves Gavel's allocation again
# (docs/gavel.md, "When X is solved"): as Gavel's scheduler in simulation,
# only when the job set changed and at least 1920 s (its
# minimum_time_between_allocation_resets) after the last solve. Under
# "gavel fifo" a job with no row in X never starts (Gavel's FIFO skips jobs
# of priority 0), so on a fleet with room for every job each job starts at
# the first solve after its arrival: the distinct start times are round
# boundaries at least 1920 s apart (every 360 s if X were solved at every
# boundary where the job set changed), and a job that arrives just after a
# solve waits more than a round.
set -eu
BIN=${TARMAC_BIN:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "gavel_resolve: $*" >&2; exit 1; }

cat > "$T/s.json" <<JSON
{
  "name": "gavel-resolve", "seed": 5, "horizon": "2d", "sample": "1h",
  "policy": "gavel fifo",
  "fleet": {"pools": [
    {"name": "a", "gpu_type": "H100", "nodes": 4, "gpus_per_node": 8}
  ]},
  "workload": {"classes": [
    {"name": "train", "kind": "training", "arrival": {"rate_per_hour": 2},
     "gpus": 1, "duration": {"dist": "exponential", "mean": "2h"},
     "preemptible": true, "checkpoint": "10m", "restart_overhead": "2m"}
  ]}
}
JSON
"$BIN" run "$T/s.json" -q -o "$T/o.h5"
/usr/bin/python3 - "$T/o.h5" <<'PY' || fail "start times do not follow the 1920 s solve interval"
import sys, h5py
j = h5py.File(sys.argv[1], "r")["jobs"]
sub, st = j["submit_s"][:], j["start_s"][:]
starts = sorted({float(s) for s in st if s == s and s >= 0})
if len(starts) < 10:
    print("only %d distinct start times" % len(starts)); sys.exit(1)
for s in starts:
    if abs(s / 360.0 - round(s / 360.0)) > 1e-9:
        print("a start at %.3f s, not a round boundary" % s); sys.exit(1)
gaps = [b - a for a, b in zip(starts, starts[1:])]
if min(gaps) < 1920:
    print("two solves %.0f s apart (< 1920 s)" % min(gaps)); sys.exit(1)
waits = [b - a for a, b in zip(sub, st) if b == b and b >= 0]
if max(waits) <= 360:
    print("no job waited more than a round: X looks solved at every boundary"); sys.exit(1)
PY
echo "gavel_resolve: ok"
